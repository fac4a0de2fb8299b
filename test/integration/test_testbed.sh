#!/usr/bin/env bash
# shellcheck disable=SC2317  # (helper functions are called through wait_for)
# The testbed itself: a live cluster with Slurm's own priority/multifactor comes up with 4
# idle nodes, runs a job as an ordinary user, records it in accounting, and `stop` leaves
# no daemon of it behind; started again with no options it keeps the PriorityType,
# PluginDir and conf extras it last had.
set -euo pipefail
# shellcheck source=test/integration/lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"

# A plugin directory of its own (first in PluginDir, empty: Slurm's plugins are found after
# it) and a conf extra, both to be kept by a later start.
extra_plugins=$(mktemp -d "${TMPDIR:-/tmp}/fw-it-plugins.XXXXXX")
tmpfile extra
echo "PriorityWeightAge=1234" >"$extra"
tb_start --priority-type priority/multifactor --plugin-dir "$extra_plugins" --conf-extra "$extra"
# shellcheck disable=SC1091
. "$TB_DIR/etc/testbed.env"

assert_eq "4 idle nodes" "n1 idle n2 idle n3 idle n4 idle" \
	"$(sinfo -h -N -o '%N %T' | sort -u | tr '\n' ' ' | sed 's/ $//')"
check "status says all daemons up" "$TESTBED" status "$TB_DIR"
assert_eq "PriorityType in use" "priority/multifactor" \
	"$(scontrol show config | awk -F' = ' '/^PriorityType /{print $2}')"
assert_eq "64 CPUs (fake 16 per node)" 64 "$(sinfo -h -o '%C' | awk -F/ '{print $4}')"

# A second start on the same DIR must refuse, not start a second set of daemons.
if out=$(try "$TESTBED" start "$TB_DIR" 2>&1); then
	fail "start refuses a running testbed" "it succeeded: $out"
else
	assert_match "start refuses a running testbed" "already running" "$out"
fi

# --slurm-prefix must name an installed Slurm; a wrong one is refused before anything starts.
if out=$(try "$TESTBED" start "$TB_DIR.noslurm" --slurm-prefix "$TB_DIR/nowhere" 2>&1); then
	fail "start refuses a prefix without Slurm" "it succeeded: $out"
else
	assert_match "start refuses a prefix without Slurm" "no sbin/slurmctld" "$out"
fi
rm -rf "$TB_DIR.noslurm"

check "example accounts" "$EXAMPLE_ACCOUNTS" "$TB_DIR"
check "example accounts are idempotent" "$EXAMPLE_ACCOUNTS" "$TB_DIR"
assert_match "Fairshare=parent user exists" "^bloggs\.prj\.high\|fw_u1\|parent$" \
	"$(sacctmgr -n -P show assoc format=account,user,fairshare)"

# A job as an ordinary user: it must run, finish, write its output as that user and show
# up in sacct.
out_file=$TB_DIR/work/job-%j.out
jobid=$(sbatch --parsable --uid=fw_u3 -A chem.theory -n2 -t 1 -D "$TB_DIR/work" \
	-o "$out_file" --wrap 'id -un; sleep 2')
log "submitted job $jobid as fw_u3"
job_state() { squeue -h -j "$jobid" -o %T 2>/dev/null; }
seen_running() { [ "$(job_state)" = RUNNING ] || [ -s "${out_file/\%j/$jobid}" ]; }
job_gone() { [ -z "$(job_state)" ] || [ "$(job_state)" = COMPLETED ]; }
if wait_for 20 seen_running; then pass "job runs"; else fail "job runs" "state '$(job_state)'"; fi
if wait_for 30 job_gone; then pass "job completes"; else fail "job completes" "state '$(job_state)'"; fi
assert_eq "job ran as fw_u3" fw_u3 "$(head -n1 "${out_file/\%j/$jobid}" 2>/dev/null || true)"
sacct_line() { sacct -n -P -X -j "$jobid" -o jobid,user,account,state,exitcode 2>/dev/null; }
wait_for 15 sh -c "sacct -n -P -X -j $jobid -o state | grep -qx COMPLETED" || true
assert_eq "sacct shows the job" "$jobid|fw_u3|chem.theory|COMPLETED|0:0" "$(sacct_line)"

# stop: every daemon gone (by PID), and a second stop is harmless
pids=$(daemon_pids | tr '\n' ' ')
assert_eq "pid files for all daemons" $((NODES + 4)) "$(wc -w <<<"$pids")"
# each daemon's start time, to tell it from a later process given its PID
started() { awk '{print $22}' "/proc/$1/stat" 2>/dev/null || true; }
declare -A start_of
for p in $pids; do start_of[$p]=$(started "$p"); done
check "stop" "$TESTBED" stop "$TB_DIR"
# A daemon may still be leaving the process table when stop returns (its parent reaps it);
# one that is still running after a few seconds has survived.  A process can vanish
# between the two reads of /proc, and on a busy machine a new process can get a stopped
# daemon's PID: neither may fail the test, so a survivor is a PID with the daemon's own
# start time (field 22 of /proc/PID/stat), read before the stop.
survivors() {
	local p left=""
	for p in $pids; do
		if alive "$p" && [ "$(started "$p")" = "${start_of[$p]}" ]; then
			left="$left $p($(cat "/proc/$p/comm" 2>/dev/null || true))"
		fi
	done
	echo "$left"
}
none_left() { [ -z "$(survivors)" ]; }
wait_for 5 none_left || true
assert_eq "no daemon survives stop" "" "$(survivors)"
check "stop again is harmless" "$TESTBED" stop "$TB_DIR"
if try "$TESTBED" status "$TB_DIR" >/dev/null; then
	fail "status after stop" "exit 0 although everything is down"
else
	pass "status after stop exits non-zero"
fi

# Started again with no options, a DIR keeps the settings it last had: the plugin directory,
# the conf extra (copied: its file may be gone) and the PriorityType restart-ctld gave it.
plugin_dir() { scontrol show config | awk -F' = ' '/^PluginDir /{print $2}'; }
check "start again without options" "$TESTBED" start "$TB_DIR"
assert_match "PluginDir kept" "^$extra_plugins:" "$(plugin_dir)"
assert_eq "conf extra kept" "PriorityWeightAge=1234" \
	"$(grep -i '^PriorityWeightAge=' "$TB_DIR/etc/slurm.conf")"
check "restart-ctld --priority-type priority/basic" \
	"$TESTBED" restart-ctld "$TB_DIR" --priority-type priority/basic
check "stop before starting again" "$TESTBED" stop "$TB_DIR"
rm -f "$extra"
check "start again without options, its conf extra's file gone" "$TESTBED" start "$TB_DIR"
assert_eq "PriorityType of restart-ctld kept" "priority/basic" \
	"$(scontrol show config | awk -F' = ' '/^PriorityType /{print $2}')"
assert_match "PluginDir still kept" "^$extra_plugins:" "$(plugin_dir)"
assert_eq "conf extra still kept" "PriorityWeightAge=1234" \
	"$(grep -i '^PriorityWeightAge=' "$TB_DIR/etc/slurm.conf")"
assert_eq "4 idle nodes again" "n1 idle n2 idle n3 idle n4 idle" \
	"$(sinfo -h -N -o '%N %T' | sort -u | tr '\n' ' ' | sed 's/ $//')"
check "stop" "$TESTBED" stop "$TB_DIR"
rmdir "$extra_plugins"

finish
