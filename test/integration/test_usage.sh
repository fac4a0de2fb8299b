#!/usr/bin/env bash
# shellcheck disable=SC2317  # (helper functions are called through wait_for)
# Usage accounting under priority/fairway on a real cluster: every finished job must have
# charged exactly AllocCPUS x Elapsed (sacct) to its association and every ancestor, whether
# it ended between two calculation periods (charged by priority_p_job_end) or ran across a
# period (charged partly by the calculation thread, the rest at its end); nothing twice
# across a clean slurmctld restart; and `scontrol reconfigure` with new weights changes the
# priorities of pending jobs at the next period.
#
# Decay is off (PriorityDecayHalfLife=0) so the expected usage is an exact integer.
#
# Environment: FAIRWAY_PLUGIN_DIR, the directory holding priority_fairway.so (required).
set -euo pipefail
# shellcheck source=test/integration/lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"

tb_start_fairway_no_decay <<'EOF'
PriorityWeightAge=0
PriorityWeightFairshare=10000
PartitionName=hold Nodes=ALL State=DOWN PriorityJobFactor=1
EOF

queue_empty() { [ -z "$(squeue -h -p debug -o %i)" ]; }

# 1. Short jobs that end between two periods: charged at job end.
submit fw_u1 bloggs.prj -n8 -t 2 --wrap 'sleep 4' >/dev/null
submit fw_u2 bloggs.prj.low -n3 -t 2 --wrap 'sleep 3' >/dev/null
submit fw_u3 chem.theory -N2 -n20 -t 2 --wrap 'sleep 5' >/dev/null
submit fw_u1 bloggs.prj.high -n1 -t 2 --wrap 'sleep 2' >/dev/null
# 2. A job that spans at least one calculation period (PriorityCalcPeriod=1 minute).
long=$(submit fw_u5 chem.lab -n6 -t 3 --wrap 'sleep 75')
short_done() { [ "$(squeue -h -p debug -o %i | grep -cv "^$long$")" -eq 0 ]; }
if wait_for 40 short_done; then pass "short jobs finished"; else fail "short jobs finished" "$(squeue -h -o '%i %T')"; fi

: >"$TB_DIR/base.txt"
# Only the subtrees without the long job (which may already have been charged in part).
short_rows() { awk -F'|' '$3 > 0 && ($1 ~ /^bloggs/ || $1 == "chem.theory")'; }
assert_eq "RawUsage after short jobs = AllocCPUS x Elapsed of each (charged at job end)" \
	"$(expected_table "$TB_DIR/base.txt" | short_rows)" "$(usage_table | short_rows)"

# The long job is charged by the calculation thread while it runs.
running_usage() { sshare -n -P -A chem.lab -u fw_u5 -o rawusage | awk 'NF { u = $1 } END { exit !(u > 0) }'; }
if wait_for 70 running_usage; then
	pass "a running job is charged by the calculation period ($(sshare -n -P -A chem.lab -u fw_u5 -o rawusage | tail -1) CPU-s so far)"
else
	fail "a running job is charged by the calculation period" "RawUsage of fw_u5 still 0"
fi

# A clean restart in the middle of the long job: nothing lost, nothing charged twice.
"$TESTBED" restart-ctld "$TB_DIR" >/dev/null
long_done() { [ -z "$(squeue -h -j "$long" -o %i 2>/dev/null)" ]; }
if wait_for 90 long_done; then pass "long job finished"; else fail "long job finished" "$(squeue -h -j "$long" -o '%T')"; fi
sleep 1
want=$(expected_table "$TB_DIR/base.txt" | grep -v "^root|root|" | awk -F'|' '$3 > 0')
got=$(usage_table | awk -F'|' '$3 > 0')
assert_eq "RawUsage = AllocCPUS x Elapsed for every association, across periods and a restart" \
	"$want" "$got"

# 3. scontrol reconfigure with a new fair-share weight changes pending priorities at the
#    next period.
job=$(submit fw_u4 chem.theory -p hold -n1 -t 5 --wrap 'sleep 1')
prio() { squeue -h -j "$job" -o %Q; }
has_prio() { [ "$(prio)" -gt 1 ]; }
wait_for 70 has_prio || true
before=$(prio)
fs=$(sprio -h -j "$job" -o '%f' | tr -d ' ')
sed -i 's/^PriorityWeightFairshare=.*/PriorityWeightFairshare=50000/' "$TB_DIR/etc/slurm.conf"
check "scontrol reconfigure" scontrol reconfigure
changed() { [ "$(prio)" != "$before" ]; }
if wait_for 75 changed; then
	after=$(prio)
	pass "reconfigure changed the priority ($before -> $after)"
	# the fair-share part grew from 10000 x f to 50000 x f
	want_delta=$(awk -v f="$fs" 'BEGIN { printf "%d", 40000 * f }')
	delta=$((after - before))
	if [ $((delta - want_delta)) -ge -1 ] && [ $((delta - want_delta)) -le 1 ]; then
		pass "priority grew by 40000 x fair-share factor ($delta)"
	else
		fail "priority grew by 40000 x fair-share factor" "grew by $delta, expected $want_delta (factor $fs)"
	fi
else
	fail "reconfigure changed the priority" "still $before after 75 s"
fi
check "slurmctld still answers" scontrol ping

finish
