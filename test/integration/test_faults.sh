#!/usr/bin/env bash
# shellcheck disable=SC2317  # (helper functions are called through wait_for)
# Faults around priority/fairway on a live cluster: garbage in its state files, a partition
# removed by reconfigure with jobs still queued in it, an association deleted, every node
# down.  After each, slurmctld keeps running, the log says what happened in one line, and
# priorities stay sane (pending jobs in [1, 2^32-1], held jobs 0).
#
# Environment: FAIRWAY_PLUGIN_DIR, the directory holding priority_fairway.so (required).
set -euo pipefail
# shellcheck source=test/integration/lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
require_fairway_plugin

extra="" && tmpfile extra
cat >"$extra" <<'EOF'
PriorityCalcPeriod=1
PartitionName=hold Nodes=ALL State=DOWN PriorityJobFactor=1
PartitionName=gone Nodes=ALL State=DOWN PriorityJobFactor=3
EOF
tb_start --priority-type priority/fairway --plugin-dir "$FAIRWAY_PLUGIN_DIR" --conf-extra "$extra"
# shellcheck disable=SC1091
. "$TB_DIR/etc/testbed.env"
check "example accounts" "$EXAMPLE_ACCOUNTS" "$TB_DIR"
STATE=$TB_DIR/spool/ctld
LOG=$TB_DIR/log/slurmctld.log

submit fw_u1 bloggs.prj -p hold -n1 -t 5 --wrap 'sleep 1' >/dev/null
submit fw_u3 chem.theory -p hold -n2 -t 5 --wrap 'sleep 1' >/dev/null
submit fw_u4 chem.theory -p gone -n1 -t 5 --wrap 'sleep 1' >/dev/null
submit fw_u6 chem.lab -p hold -n1 -t 5 --wrap 'sleep 1' >/dev/null
held=$(submit fw_u5 chem.lab -p hold -n1 -t 5 -H --wrap 'sleep 1')

# Priorities as they must always be: pending in [1, 2^32-1], held exactly 0.
sane() { # name
	local bad
	bad=$(squeue -h -t PD -o '%i %Q %r' | awk -v h="$held" '
		$1 == h { if ($2 != 0) print; next }
		$2 < 1 || $2 > 4294967295 { print }')
	assert_eq "$1: priorities sane (pending in [1, 2^32-1], held 0)" "" "$bad"
}
alive() { # name
	check "$1: slurmctld answers" scontrol ping
	assert_eq "$1: no fatal in slurmctld.log" "" "$(grep -E 'fatal|Segmentation|core dumped' "$LOG" || true)"
}
restart() { "$TESTBED" restart-ctld "$TB_DIR" >/dev/null; }
has_prio() { [ "$(squeue -h -t PD -o %Q | sort -n | tail -n 1)" -gt 1 ]; }
wait_for 70 has_prio || true
sane "start"

# 1. Garbage state files: the decay state and its copy, then Fairway's usage file.
head -c 16 /dev/urandom >"$STATE/priority_last_decay_ran"
printf 'garbage' >"$STATE/priority_last_decay_ran.old"
restart
alive "garbage decay state"
assert_match "garbage decay state: said in the log" "decay state unusable" "$(grep -F 'decay state unusable' "$LOG" || true)"
sane "garbage decay state"
wait_for 70 has_prio || true
printf 'fairway-usage 1 12\na 1 nonsense\n' >"$STATE/fairway_usage"
restart
alive "garbage usage file"
assert_match "garbage usage file: said in the log" "usage file unusable, keeping slurmctld's usage" \
	"$(grep -F "usage file unusable" "$LOG" || true)"
printf 'e 1 2 3 garbage\n' >>"$STATE/fairway_usage.journal"
restart
alive "garbage journal"
sane "garbage files"

# 2. A partition removed by reconfigure while a job is queued in it.
sed -i '/^PartitionName=gone/d' "$SLURM_CONF"
check "reconfigure without partition 'gone'" scontrol reconfigure
sleep 65	# one calculation period
alive "partition removed"
sane "partition removed"

# 3. An association deleted (its pending job cancelled first, as sacctmgr requires).
scancel -u fw_u6 || true
sacctmgr -i delete user fw_u6 account=chem.lab >/dev/null 2>&1 || true
sleep 2
alive "association deleted"

# 4. Every node down.
check "nodes down" scontrol update NodeName=ALL State=DOWN Reason=fairway-test
sleep 62
alive "all nodes down"
sane "all nodes down"
finish
