#!/usr/bin/env bash
# shellcheck disable=SC2317  # (helper functions are called through wait_for)
# sprio under PrivateData=jobs: a user sees only their own jobs' priority factors, an
# operator (root) sees all -- under priority/fairway exactly what priority/multifactor
# shows, checked with two unix users on a live cluster.
#
# Environment: FAIRWAY_PLUGIN_DIR, the directory holding priority_fairway.so (required).
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
"$TESTBED" restart-ctld "$TB_DIR" --priority-type priority/multifactor >/dev/null
wait_for 30 listed || true
capture "priority/multifactor (reference)"
finish
