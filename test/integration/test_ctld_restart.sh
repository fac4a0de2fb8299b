#!/usr/bin/env bash
# shellcheck disable=SC2317  # (helper functions are called through wait_for)
# The testbed's slurmctld helpers the plugin tests rely on: kill -9 slurmctld, restart it
# with another PriorityType, and jobs survive both.
set -euo pipefail
# shellcheck source=test/integration/lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"

tb_start --nodes 2 --cpus 4
CTLD_PID_FILE=$TB_DIR/run/slurmctld.pid
prio_type() { scontrol show config | awk -F' = ' '/^PriorityType /{print $2}'; }

running=$(sbatch --parsable -A root -n1 -t 10 -D "$TB_DIR/work" -o /dev/null --wrap 'sleep 600')
is_running() { [ "$(squeue -h -j "$running" -o %T)" = RUNNING ]; }
if wait_for 20 is_running; then pass "job runs"; else fail "job runs" "state $(squeue -h -j "$running" -o %T)"; fi

# slurmctld writes its state at most SAVE_MAX_WAIT (5 s) after a change: a kill -9 before
# that loses the job's start (it comes back PENDING) — real Slurm behaviour, not under test.
sleep 6
old=$(cat "$CTLD_PID_FILE")
check "kill-ctld" "$TESTBED" kill-ctld "$TB_DIR"
if alive "$old"; then fail "slurmctld is gone after kill-ctld" "pid $old alive"; else pass "slurmctld is gone after kill-ctld"; fi
if try "$TESTBED" status "$TB_DIR" >/dev/null; then fail "status notices the dead slurmctld" "exit 0"; else pass "status notices the dead slurmctld"; fi

check "restart-ctld --priority-type priority/basic" "$TESTBED" restart-ctld "$TB_DIR" --priority-type priority/basic
assert_eq "PriorityType switched" priority/basic "$(prio_type)"
assert_eq "one PriorityType line in slurm.conf" 1 "$(grep -ci '^PriorityType=' "$SLURM_CONF")"
if is_running; then pass "job survived kill -9 and restart"; else fail "job survived kill -9 and restart" "state $(squeue -h -j "$running" -o %T)"; fi

check "restart-ctld back to priority/multifactor" "$TESTBED" restart-ctld "$TB_DIR" --priority-type priority/multifactor
assert_eq "PriorityType switched back" priority/multifactor "$(prio_type)"
held=$(sbatch --parsable -A root -n1 -t 1 -H -D "$TB_DIR/work" -o /dev/null --wrap 'true')
assert_eq "held job after restart has priority 0" 0 "$(squeue -h -j "$held" -o %Q)"
check "all daemons up" "$TESTBED" status "$TB_DIR"

finish
