#!/usr/bin/env bash
# configure's bad-input paths: each gets one line that says what to do.
# No tree given and none cached, a missing tree, a tree that is not Slurm, an unconfigured
# tree, a tree of another Slurm version than the installed libslurm, a slurmctld of another
# version than the tree, missing public headers, a Slurm library directory without
# libslurmfull.so, a missing header-only library package.
set -euo pipefail
# shellcheck source=test/integration/lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"

mapfile -t slurm < <("$FW_ROOT/scripts/slurm-source")
work=$(mktemp -d "${TMPDIR:-/tmp}/fw-cfg.XXXXXX")
trap 'rm -rf "$work"' RETURN EXIT

cfg() { # expected-regex configure-args...
	local want=$1 out
	shift
	out=$(cd "$work" && "$FW_ROOT/configure" -q "$@" 2>&1 | tail -n 1) || true
	assert_match "configure $*" "$want" "$out"
}
cfg_env() { # expected-regex VAR=value configure-args...
	local want=$1 var=$2 out
	shift 2
	out=$(cd "$work" && env "$var" "$FW_ROOT/configure" -q "$@" 2>&1 | tail -n 1) || true
	assert_match "$var configure $*" "$want" "$out"
}

# No --with-slurm-source and nothing in scripts/slurm-source's cache.
mkdir -p "$work/empty-cache"
cfg_env "^configure: error: no Slurm source tree: run 'scripts/slurm-source'" \
	FAIRWAY_SLURM_CACHE="$work/empty-cache"
# The source matches libslurm but the installed slurmctld is another version.
printf '#!/bin/sh\necho "slurm-wlm 99.11.1"\n' >"$work/slurmctld" && chmod +x "$work/slurmctld"
cfg_env "^configure: error: the installed slurmctld is 99.11.1 but the Slurm source is [0-9.]*: the plugin would not load" \
	SLURMCTLD="$work/slurmctld" --with-slurm-source="${slurm[0]}" --with-slurm-build="${slurm[1]}"

cfg "^configure: error: --with-slurm-source=/nonexistent is not a Slurm source tree .*scripts/slurm-source" \
	--with-slurm-source=/nonexistent
mkdir -p "$work/bare/src/slurmctld" && touch "$work/bare/src/slurmctld/slurmctld.h"
cfg "^configure: error: .* has not been configured .*scripts/slurm-source" \
	--with-slurm-source="$work/bare"
mkdir -p "$work/other/slurm"
sed 's/"[0-9]*\.[0-9]*\.[0-9]*"/"99.11.1"/' "${slurm[1]}/config.h" >"$work/other/config.h"
sed 's/^#define SLURM_VERSION_NUMBER .*/#define SLURM_VERSION_NUMBER 0x630b01/' \
	"${slurm[1]}/slurm/slurm_version.h" >"$work/other/slurm/slurm_version.h"
cfg "^configure: error: Slurm source is version 99.11.1 but the installed libslurm headers are .*: slurmctld only loads plugins built for its exact version" \
	--with-slurm-source="${slurm[0]}" --with-slurm-build="$work/other"
cfg "^configure: error: Slurm's public headers were not found at /nowhere/slurm/slurm_version.h: install libslurm-dev" \
	--with-slurm-source="${slurm[0]}" --with-slurm-include=/nowhere
cfg "^configure: error: --with-slurm-libdir=/nonexistent has no libslurmfull.so" \
	--with-slurm-source="${slurm[0]}" --with-slurm-build="${slurm[1]}" --with-slurm-libdir=/nonexistent
# A missing Debian package (configure's own check, made to fail through autoconf's cache
# variable as if the header were absent): the package to install.
cfg_env "^configure: error: nlohmann/json.hpp not found: install nlohmann-json3-dev" \
	ac_cv_header_nlohmann_json_hpp=no --with-slurm-source="${slurm[0]}" --with-slurm-build="${slurm[1]}"
cfg_env "^configure: error: CLI/CLI.hpp not found: install libcli11-dev" \
	ac_cv_header_CLI_CLI_hpp=no --with-slurm-source="${slurm[0]}" --with-slurm-build="${slurm[1]}"
finish
