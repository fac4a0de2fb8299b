#!/usr/bin/env bash
# shellcheck disable=SC2016  # sh -c '"$0" ...' scripts: their $0, $1 expand in that shell
# 'fairway snapshot' against a live slurmctld where its output cannot be written: standard
# output on a full device or closed exits 1 with the reason in one line; --output on a full
# file system (a small tmpfs) or over the file size limit exits 1 with the reason, keeps the
# old file as it was and leaves no temporary file; a written --output keeps the mode of the
# file it replaces. (test/unit/test_cli.sh checks everything that needs no slurmctld.)
#
# Environment: FAIRWAY_BUILD_DIR, the build whose tools/fairway is tested (scripts/check sets
# it).
set -euo pipefail
# shellcheck source=test/integration/lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"

cli=${FAIRWAY_BUILD_DIR:-}/tools/fairway
if [ ! -x "$cli" ]; then
	fail "fairway CLI" "FAIRWAY_BUILD_DIR must hold a build with tools/fairway (got '${FAIRWAY_BUILD_DIR:-}')"
	finish
fi

tb_start --priority-type priority/multifactor
check "example accounts" "$EXAMPLE_ACCOUNTS" "$TB_DIR"
out=$TB_DIR/cli
mkdir -p "$out"

# expect NAME STATUS REGEX COMMAND...: STATUS, and exactly one line on stderr matching REGEX.
expect() {
	local name=$1 want=$2 re=$3 rc=0
	shift 3
	"$@" >"$out/x.out" 2>"$out/x.err" || rc=$?
	if [ "$rc" -eq "$want" ] && [ "$(wc -l <"$out/x.err")" -eq 1 ] && grep -Eq -- "$re" "$out/x.err"; then
		pass "$name"
	else
		fail "$name" "exit $rc (want $want), stderr: $(head -c 400 "$out/x.err")"
	fi
}
# intact NAME DIR: DIR holds only s.json, and it still says "old".
intact() {
	if [ "$(cat "$2/s.json")" = old ] && [ "$(ls -A "$2")" = s.json ]; then
		pass "$1"
	else
		fail "$1" "s.json: $(head -c 100 "$2/s.json"); files: $(ls -A "$2" | tr '\n' ' ')"
	fi
}

check "fairway snapshot to standard output" "$cli" snapshot
"$cli" snapshot >"$out/live.json"
check "fairway shares reads it back" "$cli" shares "$out/live.json"
size=$(wc -c <"$out/live.json")
log "the snapshot of the example accounts: $size bytes"

# Standard output.
expect "snapshot >/dev/full" 1 '^fairway: write error on standard output: No space left on device$' \
	sh -c '"$0" snapshot >/dev/full' "$cli"
expect "snapshot with standard output closed" 1 '^fairway: write error on standard output: Bad file descriptor$' \
	sh -c '"$0" snapshot >&-' "$cli"

# --output replaces the old file whole, with its mode made no wider than 0600 (a snapshot names
# every user and holds their jobs).
mkdir "$out/ok"
echo old >"$out/ok/s.json"
chmod 640 "$out/ok/s.json"
check "snapshot -o over an old file" "$cli" snapshot -o "$out/ok/s.json"
# (taken a second or more later: its time may differ)
untimed() { sed -E 's/"taken_at": [0-9]+/"taken_at": T/' "$1"; }
assert_eq "the new file holds the snapshot" "$(untimed "$out/live.json")" "$(untimed "$out/ok/s.json")"
assert_eq "the new file has the old file's mode, no wider than 0600" 600 "$(stat -c %a "$out/ok/s.json")"
assert_eq "no temporary file is left" s.json "$(ls -A "$out/ok")"

# --output on a full file system: a tmpfs of one page, which the old file fills.
mkdir "$out/full"
if mount_tmpfs_over "$out/full" 4k; then
	echo old >"$out/full/s.json"
	expect "snapshot -o on a full file system" 1 '^fairway: cannot write "[^"]*/full/s.json": No space left on device$' \
		"$cli" snapshot -o "$out/full/s.json"
	intact "the old file is intact after a full file system" "$out/full"
else
	log "SKIP: mounting a tmpfs is not permitted here; the file size limit below stands in for a full disk"
fi

# --output over the file size limit (SIGXFSZ ignored, as a shell with 'trap "" XFSZ' does).
if [ "$size" -gt 1024 ]; then
	mkdir "$out/fsize"
	echo old >"$out/fsize/s.json"
	expect "snapshot -o over the file size limit" 1 '^fairway: cannot write "[^"]*/fsize/s.json": File too large$' \
		bash -c 'trap "" XFSZ; ulimit -f 1; exec "$0" snapshot -o "$1"' "$cli" "$out/fsize/s.json"
	intact "the old file is intact after the file size limit" "$out/fsize"
else
	fail "snapshot size" "the snapshot is only $size bytes, under 'ulimit -f 1' (1024 bytes)"
fi

finish
