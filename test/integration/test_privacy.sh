#!/usr/bin/env bash
# shellcheck disable=SC2317  # (helper functions are called through wait_for)
# sprio under PrivateData=jobs: a user sees only their own jobs' priority factors, an
# operator (root) sees all -- under priority/fairway exactly what priority/multifactor
# shows, checked with two unix users on a live cluster.  The fairway command, which reads
# the queue through the same RPCs, shows a user what sprio shows them: explain of their own
# job answers, explain or compare of another user's job says there is no such job, or none
# the user may see (sprio -j shows that user nothing either), weights counts only their jobs.
#
# Environment: FAIRWAY_PLUGIN_DIR, the directory holding priority_fairway.so (required);
# FAIRWAY_BUILD_DIR (its tools/fairway) for the fairway command's part.
set -euo pipefail
# shellcheck source=test/integration/lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"

require_fairway_plugin

extra="" && tmpfile extra
cat >"$extra" <<'EOF'
PrivateData=jobs
PriorityWeightAge=0
PartitionName=hold Nodes=ALL State=DOWN PriorityJobFactor=1
EOF
tb_start --priority-type priority/fairway --plugin-dir "$FAIRWAY_PLUGIN_DIR" --conf-extra "$extra"
# shellcheck disable=SC1091
. "$TB_DIR/etc/testbed.env"
check "example accounts" "$EXAMPLE_ACCOUNTS" "$TB_DIR"

held_job() { submit "$1" "$2" -p hold -n1 -t 5 --wrap 'sleep 1'; }
j1=$(held_job fw_u1 bloggs.prj)
j2=$(held_job fw_u1 bloggs.prj.high)
j3=$(held_job fw_u3 chem.theory)
sprio_as() { # user -> the job ids sprio shows that user
	runuser -u "$1" -- env SLURM_CONF="$SLURM_CONF" sprio -h -o '%i' 2>/dev/null | tr -d ' ' | sort -n | tr '\n' ' '
}
listed() { [ -n "$(sprio -h -o '%i' 2>/dev/null)" ]; }
wait_for 30 listed || true

capture() { # label
	assert_eq "$1: root sees every pending job" "$(printf '%s\n' "$j1" "$j2" "$j3" | sort -n | tr '\n' ' ')" "$(sprio -h -o '%i' | tr -d ' ' | sort -n | tr '\n' ' ')"
	assert_eq "$1: fw_u1 sees only fw_u1's jobs" "$(printf '%s\n' "$j1" "$j2" | sort -n | tr '\n' ' ')" "$(sprio_as fw_u1)"
	assert_eq "$1: fw_u3 sees only fw_u3's job" "$j3 " "$(sprio_as fw_u3)"
	assert_eq "$1: fw_u6 (no jobs) sees none" "" "$(sprio_as fw_u6)"
}
capture "priority/fairway"

cli=${FAIRWAY_BUILD_DIR:-}/tools/fairway
if [ -x "$cli" ]; then
	as() { # user command... -> its output and exit status
		runuser -u "$1" -- env SLURM_CONF="$SLURM_CONF" "${@:2}"
	}
	set +e
	out=$(as fw_u1 "$cli" explain -P "$j1" 2>&1); rc=$?
	set -e
	assert_eq "fw_u1: explain of fw_u1's job answers" 0 "$rc"
	assert_match "... with its factors" "^Factor\|Partition\|Weighted\|Share" "$out"
	set +e
	out=$(as fw_u1 "$cli" explain "$j3" 2>&1); rc=$?
	set -e
	assert_eq "fw_u1: explain of fw_u3's job exits 1" 1 "$rc"
	assert_eq "... saying there is no such job, or not one fw_u1 may see" \
		"fairway: no job $j3 (or not visible to you: PrivateData)" "$out"
	assert_match "... as sprio -j finds no such job for fw_u1" "^Unable to find jobs" \
		"$(as fw_u1 sprio -h -j "$j3" -o '%i' 2>&1)"
	set +e
	out=$(as fw_u1 "$cli" compare "$j1" "$j3" 2>&1); rc=$?
	set -e
	assert_eq "fw_u1: compare with fw_u3's job exits 1" 1 "$rc"
	assert_eq "fw_u1: weights counts fw_u1's 2 jobs" 2 \
		"$(as fw_u1 "$cli" weights -P | awk -F'|' '$1 == "hold" { print $2; exit }')"
	assert_eq "root: weights counts all 3 jobs" 3 \
		"$("$cli" weights -P | awk -F'|' '$1 == "hold" { print $2; exit }')"
else
	fail "fairway command under PrivateData=jobs" "FAIRWAY_BUILD_DIR must hold a build with tools/fairway"
fi
"$TESTBED" restart-ctld "$TB_DIR" --priority-type priority/multifactor >/dev/null
wait_for 30 listed || true
capture "priority/multifactor (reference)"
finish
