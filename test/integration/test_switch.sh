#!/usr/bin/env bash
# shellcheck disable=SC2317  # (helper functions are called through wait_for)
# A site switching PriorityType while jobs run: multifactor -> fairway -> multifactor ->
# fairway, one slurmctld restart each, with a long job running through all of it and short
# jobs ending under each plugin.  Every plugin charges the running job from the last period
# the previous one recorded in priority_last_decay_ran, and each job end from there on, so
# at the end RawUsage must equal AllocCPUS x Elapsed (sacct) for every association: nothing
# lost and nothing charged twice at any switch.  The second switch to fairway also proves
# that Fairway's usage file left from its first turn (older than what multifactor charged
# since) is not restored over newer usage.
#
# Decay is off (PriorityDecayHalfLife=0) so the expected usage is an exact integer; decay
# and resets across a switch are compared with multifactor by fw_diff --decay-thread.
#
# Environment: FAIRWAY_PLUGIN_DIR, the directory holding priority_fairway.so (required).
set -euo pipefail
# shellcheck source=test/integration/lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"

require_fairway_plugin

tb_start_example priority/multifactor <<'EOF'
PriorityDecayHalfLife=0
PriorityUsageResetPeriod=NONE
PriorityCalcPeriod=1
EOF

# RawUsage of fw_u5 in chem.lab (the long job's association)
long_usage() { sshare -n -P -A chem.lab -u fw_u5 -o rawusage | awk 'NF { u = $1 } END { print u + 0 }'; }
grown_since() { [ "$(long_usage)" -gt "$1" ]; }
switch_to() { # priority type
	"$TESTBED" restart-ctld "$TB_DIR" --priority-type "$1" >/dev/null
	assert_eq "$1 in use" "$1" \
		"$(scontrol show config | awk -F' = ' '/^PriorityType /{print $2}')"
}
short_job() { # user account cpus seconds: runs and ends under the current plugin
	local j
	j=$(submit "$1" "$2" -n"$3" -t 2 --wrap "sleep $4")
	done_() { [ -z "$(squeue -h -j "$j" -o %i 2>/dev/null)" ]; }
	if wait_for 40 done_; then pass "short job of $1 ended under $(scontrol show config | awk -F' = ' '/^PriorityType /{print $2}')"; else fail "short job of $1 ended" "$(squeue -h -j "$j" -o %T)"; fi
}

long=$(submit fw_u5 chem.lab -n6 -t 5 --wrap 'sleep 200')
if wait_for 80 grown_since 0; then pass "multifactor charged the running job"; else fail "multifactor charged the running job" "RawUsage still 0"; fi
short_job fw_u1 bloggs.prj 8 3

switch_to priority/fairway
at=$(long_usage)
short_job fw_u3 chem.theory 4 3
if wait_for 80 grown_since "$at"; then pass "fairway charged the running job after the switch"; else fail "fairway charged the running job after the switch" "RawUsage still $at"; fi

switch_to priority/multifactor
at=$(long_usage)
short_job fw_u2 bloggs.prj.low 3 2
if wait_for 80 grown_since "$at"; then pass "multifactor charged the running job after switching back"; else fail "multifactor charged the running job after switching back" "RawUsage still $at"; fi

switch_to priority/fairway
short_job fw_u6 chem.lab 5 2
usage_exact_after 150 "$long" "long job finished under fairway" "after three switches"
check "slurmctld still answers" scontrol ping

finish
