#!/usr/bin/env bash
# shellcheck disable=SC2317  # (helper functions are called through wait_for)
# Faults around priority/fairway on a live cluster: garbage in its state files, a partition
# removed by reconfigure with jobs still queued in it, a full StateSaveLocation (a tmpfs of
# its own), an association deleted, a QOS deleted while a job waits with it, every node
# down.  (A read-only StateSaveLocation cannot be made here: remounting fails while
# slurmctld holds files open for writing, and slurmctld itself refuses to start on one --
# "fatal: Incorrect permissions on state save loc"; Fairway's write errors are the same
# code path for EROFS as for ENOSPC, and test_shim covers an unwritable directory.)  After each, slurmctld keeps running, the log says what
# happened in one line, and priorities stay sane (pending jobs in [1, 2^32-1], held jobs 0);
# once StateSaveLocation is writable again Fairway's files are written by the next period
# and the usage survives a restart.
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

# Some usage to keep: a job that runs and ends.
ran=$(submit fw_u1 bloggs.prj -p debug -n4 -t 5 --wrap 'sleep 2')
ended() { [ -z "$(squeue -h -j "$ran" -o %i 2>/dev/null)" ]; }
check "a job ran and ended" wait_for 60 ended

# StateSaveLocation on a small tmpfs of its own, to fill and make read-only below.
ssl=0
if mount_tmpfs_over "$STATE" 16m; then
	ssl=1
	pass "StateSaveLocation on a 16 MB tmpfs"
else
	echo "SKIP: mounting a tmpfs is not permitted here: full and read-only StateSaveLocation not tested"
fi

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

# 2. A partition removed by reconfigure while a job is queued in it; meanwhile
# StateSaveLocation is full.
if [ "$ssl" = 1 ]; then
	usage_before=$(usage_table)
	dd if=/dev/zero of="$STATE/zz-filler" bs=64k 2>/dev/null || true
	log "StateSaveLocation full: $(df -h "$STATE" | tail -n 1)"
fi
sed -i '/^PartitionName=gone/d' "$SLURM_CONF"
check "reconfigure without partition 'gone'" scontrol reconfigure
sleep 65	# one calculation period
alive "partition removed"
sane "partition removed"
if [ "$ssl" = 1 ]; then
	alive "StateSaveLocation full"
	assert_match "StateSaveLocation full: said in the log" \
		"priority/fairway: cannot save the usage file: .*No space left on device" \
		"$(grep -F 'priority/fairway: cannot save the usage file' "$LOG" | tail -n 1)"
	sane "StateSaveLocation full"
	rm -f "$STATE/zz-filler"	# slurmctld needs space to take the next job
fi

# 3. An association deleted (its pending job cancelled first, as sacctmgr requires; the
# soak test in make check deletes associations with jobs pending and running).
scancel -u fw_u6 || true
sacctmgr -i delete user fw_u6 account=chem.lab >/dev/null 2>&1 || true
sleep 2
alive "association deleted"

# 4. A QOS deleted while a job waits with it.
sacctmgr -i add qos fwq Priority=100 >/dev/null
sacctmgr -i modify user fw_u1 set qos+=fwq >/dev/null
sleep 2	# slurmctld hears of it from slurmdbd
qjob=$(submit fw_u1 bloggs.prj -p hold --qos=fwq -n1 -t 5 --wrap 'sleep 1')
check "QOS fwq deleted" sacctmgr -i delete qos fwq
qos_gone() { [ -z "$(scontrol -o show job "$qjob" | grep -o 'QOS=fwq')" ]; }
wait_for 20 qos_gone || true
alive "QOS deleted"

# 5. Every node down.
check "nodes down" scontrol update NodeName=ALL State=DOWN Reason=fairway-test
sleep 62
alive "all nodes down"
sane "all nodes down"
sane "QOS deleted"
if [ "$ssl" = 1 ]; then
	# 6. Space again (since step 2): a period wrote Fairway's files, and the usage
	# survives a restart (it only decays: half-life 1 day, a few minutes here).
	marker="" && tmpfile marker
	saved() { [ "$STATE/fairway_usage" -nt "$marker" ] && [ "$STATE/priority_last_decay_ran" -nt "$marker" ]; }
	check "space again: the next period saved the usage and decay state" wait_for 75 saved
	restart
	alive "restart after the faults"
	usage_after=$(usage_table)
	# account|user|raw before and after: every association that had usage keeps it
	lost=$(awk -F'|' 'NR == FNR { before[$1 "|" $2] = $3; next }
		(($1 "|" $2) in before) && before[$1 "|" $2] > 0 {
			b = before[$1 "|" $2]
			if ($3 < 0.99 * b || $3 > b + 1) print $1 "|" $2 ": " b " -> " $3
		}' <(echo "$usage_before") <(echo "$usage_after"))
	assert_eq "usage kept through a full StateSaveLocation and a restart" "" "$lost"
	check "there was usage to keep" test -n "$(echo "$usage_before" | awk -F'|' '$3 > 0')"
fi
finish
