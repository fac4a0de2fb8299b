#!/usr/bin/env bash
# shellcheck disable=SC2317  # (functions called through wait_for)
# A primary and a backup slurmctld sharing StateSaveLocation, both with
# PriorityType=priority/fairway, a long job running through every change of controller and
# short jobs ending under each:
#
#   1. `scontrol takeover`: the primary hands over and exits, the backup takes control;
#   2. the primary comes back: started again, it takes control back from the backup;
#   3. kill -9 of the primary between two periods, its journal ending in a torn line (half a
#      line appended, as a write cut short by the kill leaves it): the backup takes over
#      after SlurmctldTimeout, replays the usage file and the journal, and a job then ends
#      under the backup;
#   4. (after the cold start below) both controllers up at once: the primary (back again) is
#      stopped (SIGSTOP) right after one of its periods until the backup takes over and runs
#      its own period, then continued; it ends a job 5 s later, before its own next period,
#      in the journal the backup rotated; until it reasserts itself and the backup goes back
#      to standby, both run as primary.  Then the backup takes over: it replays its own usage
#      file, and the primary's journal line must add exactly the job's time after that file.
#
# After the first three, with decay off (as test_switch.sh), every association's RawUsage must
# equal AllocCPUS x Elapsed (sacct): nothing lost and nothing charged twice.  Then the backup
# takes over once more (its first period weighs the pending jobs), is killed -9, and the
# primary starts cold from the files: the pending jobs' priorities must be the backup's, and
# RawUsage still exact; and again after case 4.  Fairway's usage file and journal must be
# whole throughout.
#
# Each controller has its own hostname and address: the test makes two network and UTS
# namespaces (held by a `sleep` each), joined by a veth pair on a private subnet that exists
# only inside them.  The testbed (munged, MariaDB, slurmdbd, slurmd, the primary) runs in
# the first, the backup slurmctld in the second; both read the same StateSaveLocation.
#
# Environment: FAIRWAY_PLUGIN_DIR, the directory holding priority_fairway.so (required);
# FW_FAILOVER_SUBNET, the first three bytes of the test's subnet (default 10.231.47).
set -euo pipefail

# ---- outside the namespaces: make them, run the test inside the first, remove them ----
if [ -z "${FW_FAILOVER_BACKUP_NS:-}" ]; then
	sub=${FW_FAILOVER_SUBNET:-10.231.47}
	name=$(basename "$0" .sh)
	holders=()
	drop_ns() {
		local p
		for p in "${holders[@]}"; do kill "$p" 2>/dev/null || true; done
	}
	trap drop_ns EXIT
	ns_fail() { echo "FAIL: $name: $1"; echo "0 passed, 1 failed"; exit 1; }
	for _ in primary backup; do
		unshare --uts --net sleep 100000 </dev/null >/dev/null 2>&1 &
		holders+=($!)
	done
	nsa=${holders[0]} nsb=${holders[1]}
	sleep 0.2
	# nothing is set in a namespace that is not a new one of its own (a holder that failed or
	# is not the unshared process would name this machine's)
	for p in "$nsa" "$nsb"; do
		for t in uts net; do
			n=$(readlink "/proc/$p/ns/$t" 2>/dev/null) || n=""
			if [ -z "$n" ] || [ "$n" = "$(readlink "/proc/$$/ns/$t")" ]; then
				ns_fail "no new $t namespace for the controllers (unshare --uts --net)"
			fi
		done
	done
	[ "$(readlink "/proc/$nsa/ns/net")" != "$(readlink "/proc/$nsb/ns/net")" ] ||
		ns_fail "the two controllers' namespaces are one"
	# the veth pair is made inside the first namespace, its peer moved to the second: no
	# interface ever appears outside them
	if ! { nsenter -t "$nsa" --uts --net sh -ec 'hostname fwprimary; ip link set lo up' &&
		nsenter -t "$nsb" --uts --net sh -ec 'hostname fwbackup; ip link set lo up' &&
		nsenter -t "$nsa" --net ip link add fwctl0 type veth peer name fwctl1 netns "$nsb" &&
		nsenter -t "$nsa" --net sh -ec "ip addr add $sub.1/24 dev fwctl0; ip link set fwctl0 up" &&
		nsenter -t "$nsb" --net sh -ec "ip addr add $sub.2/24 dev fwctl1; ip link set fwctl1 up"; }; then
		ns_fail "cannot make the two controllers' namespaces (unshare, nsenter, ip)"
	fi
	rc=0
	FW_FAILOVER_BACKUP_NS=$nsb FW_FAILOVER_SUBNET=$sub \
		nsenter -t "$nsa" --uts --net bash "$0" "$@" || rc=$?
	exit "$rc"
fi

# ---- inside the first namespace ----
# shellcheck source=test/integration/lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
SUB=$FW_FAILOVER_SUBNET
NSB=$FW_FAILOVER_BACKUP_NS

require_fairway_plugin
# SlurmctldTimeout: how long the backup waits for the primary's answer before it takes over.
# With 6 s, on 2 cores beside the other live lanes of scripts/check, a 26.05.3 backup took
# over from a primary that was running (2026-11-28): the primary then stopped, and every
# later case failed.  15 s, and the test says so when the backup took over unasked.
tmpfile extra
cat >"$extra" <<EOF
PriorityDecayHalfLife=0
PriorityUsageResetPeriod=NONE
PriorityCalcPeriod=1
PriorityWeightAge=0
PriorityWeightFairshare=100000
PriorityWeightJobSize=1000
PriorityWeightPartition=1000
PartitionName=hold Nodes=ALL State=DOWN PriorityJobFactor=2
SlurmctldTimeout=15
EOF
tb_start --priority-type priority/fairway --plugin-dir "$FAIRWAY_PLUGIN_DIR" \
	--conf-extra "$extra" --nodes 2 --addr "$SUB.1" \
	--ctld-hosts "fwprimary($SUB.1) fwbackup($SUB.2)"
check "example accounts" "$EXAMPLE_ACCOUNTS" "$TB_DIR"

SPOOL=$TB_DIR/spool/ctld
PLOG=$TB_DIR/log/slurmctld.log
BLOG=$TB_DIR/log/slurmctld-backup.log
BPID=$TB_DIR/run/slurmctld-backup.pid
BCONF=$TB_DIR/etc/slurm-backup.conf

# The backup reads slurm.conf with its own pid and log file, so that the testbed's pid file
# stays the primary's.
sed -e "s|^SlurmctldPidFile=.*|SlurmctldPidFile=$BPID|" \
	-e "s|^SlurmctldLogFile=.*|SlurmctldLogFile=$BLOG|" "$SLURM_CONF" >"$BCONF"
backup_pid() { local p; p=$(tr -dc '0-9' <"$BPID" 2>/dev/null) && [ -n "$p" ] && alive "$p" && echo "$p"; }
start_backup() {
	SLURM_CONF=$BCONF setsid nsenter -t "$NSB" --uts --net slurmctld </dev/null >>"$TB_DIR/log/slurmctld-backup.stdout" 2>&1 &
}
stop_backup() {
	local p
	p=$(backup_pid) || return 0
	kill -TERM "$p" 2>/dev/null || true
	wait_for 15 bash -c "! kill -0 $p 2>/dev/null" || kill -KILL "$p" 2>/dev/null || true
}
primary_pid() { local p; p=$(tr -dc '0-9' <"$TB_DIR/run/slurmctld.pid" 2>/dev/null) && [ -n "$p" ] && alive "$p" && echo "$p"; }
# stop the backup before the testbed (else it takes over from the stopping primary)
_fo_rc=0
trap '_fo_rc=$?; stop_backup; (exit $_fo_rc); _cleanup' EXIT

# How long a controller may take to say it is in control: from Slurm 26.05 on, a backup
# asked to give control back answers the primary's REQUEST_CONTROL only after
# CONTROL_TIMEOUT - 1 (29 s), and the primary starts only then.
# How often a log says its slurmctld took control, or went (back) to standby.
controls() { grep -c 'Running as primary controller' "$1" 2>/dev/null || true; }
standbys() { grep -c 'slurmctld running in background mode' "$1" 2>/dev/null || true; }
more_than() { [ "$("$1" "$2")" -gt "$3" ]; }
# The backup's last word on its state: in control, or in standby.
backup_state() { grep -oE 'Running as primary controller|slurmctld running in background mode' "$BLOG" | tail -n 1; }
in_control_since() { # label log count-before
	local t0=$SECONDS
	if wait_for 90 more_than controls "$2" "$3"; then
		pass "$1 ($((SECONDS - t0)) s)"
	else
		fail "$1" "no 'Running as primary controller' in $2 within 90 s; its last errors: $(last_errors "$2")"
	fi
}
# A log's last three lines of error or fatal, on one line.
last_errors() { grep -E 'error:|fatal:' "$1" 2>/dev/null | tail -n 3 | tr '\n' ' ' | head -c 600; }
# The primary started again while the backup is in control.  On 26.05 the backup answers
# its REQUEST_CONTROL after 29 s, before it has saved its state ("Old state possible"), and
# the primary can read StateSaveLocation while the backup rewrites it: it then stops with
# "fatal: No Assoc usage file" (one run of three, 2026-11-28).  Under the load of CI's
# parallel lanes the primary also once stopped before taking control (2026-11-29; its log
# did not come back).  A primary that stops on a fatal error of Slurm's own (not one of
# priority/fairway) is started once more, with its last error on the log; a crash, or a
# fatal error of ours, fails the test.
primary_returns() { # label count-before
	local f
	f=$(fatals "$PLOG")
	"$TESTBED" restart-ctld "$TB_DIR" >/dev/null 2>&1 || true
	up_or_gone() { more_than controls "$PLOG" "$1" || ! primary_pid >/dev/null; }
	wait_for 90 up_or_gone "$2" || true
	if ! primary_pid >/dev/null && more_than fatals "$PLOG" "$f" \
		&& ! grep 'fatal:' "$PLOG" | tail -n 1 | grep -q 'fairway'; then
		log "the primary stopped: $(grep 'fatal:' "$PLOG" | tail -n 1); started once more"
		"$TESTBED" restart-ctld "$TB_DIR" >/dev/null 2>&1 || true
	fi
	in_control_since "$1" "$PLOG" "$2"
}
fatals() { grep -c 'fatal:' "$1" 2>/dev/null || true; }
# The last line of a log in which Fairway said what it restored.
restored_line() { grep -E 'priority/fairway: (usage of [0-9]+ associations restored|usage (file|journal) )' "$1" | tail -n 1; }

# A job that runs and ends under the controller now in control.
short_job() { # label user account cpus
	local j
	j=$(submit "$2" "$3" -n"$4" -t 2 --wrap 'sleep 2')
	done_() { [ -z "$(squeue -h -j "$j" -o %i 2>/dev/null)" ]; }
	if wait_for 40 done_; then pass "$1: job $j of $2 ended"; else fail "$1: job $j of $2 ended" "$(squeue -h -j "$j" -o %T)"; fi
	# Its record in slurmdbd: a primary sends it within a second or two.  A backup that took
	# control on Slurm 26.05 sends none (its slurmdbd agent waits for a release that only a
	# primary's start gives; doc/reliability.md); its records reach slurmdbd, if at all,
	# through dbd.messages when it hands control back.  Then the job is counted from
	# slurmctld's own record (CPUs x RunTime), taken now while the controller holds it.
	local t0=$SECONDS
	if wait_for 8 job_in_sacct "$j"; then
		log "job $j in sacct $((SECONDS - t0)) s after it ended"
	else
		ctld_record "$j" >>"$CTLD_JOBS"
		log "job $j not in sacct $((SECONDS - t0)) s after it ended; counted from slurmctld's record: $(tail -n 1 "$CTLD_JOBS")"
	fi
	# slurmctld writes its job state within 5 s of a change
	local w=$((6 - (SECONDS - t0)))
	[ "$w" -le 0 ] || sleep "$w"
}

# slurmctld's record of an ended job, as "jobid|account|user|cpus|seconds" (RunTime).
CTLD_JOBS=$TB_DIR/ctld_jobs.txt
: >"$CTLD_JOBS"
ctld_record() { # job
	scontrol show job -o "$1" | tr ' ' '\n' | awk -F= '
		$1 == "JobId" { id = $2 } $1 == "Account" { a = $2 } $1 == "NumCPUs" { c = $2 }
		$1 == "UserId" { u = $2; sub(/\(.*/, "", u) }
		$1 == "RunTime" { t = $2; d = 0
			if (t ~ /-/) { split(t, x, "-"); d = x[1]; t = x[2] }
			n = split(t, h, ":"); s = 0
			for (i = 1; i <= n; i++) s = s * 60 + h[i]
			secs = d * 86400 + s }
		END { print id "|" a "|" u "|" c "|" secs }'
}
# What sacct says the ended jobs used (as lib.sh's expected_table), plus the jobs sacct does
# not list that slurmctld's records above account for, added up the tree.
expected_table() { # baseline-file (empty here)
	local parents
	parents=$(sacctmgr -n -P show assoc where cluster=fairway format=account,parentname,user |
		awk -F'|' '$3 == "" { print $1 "|" $2 }')
	{
		sacct -a -X -n -P -o jobid,account,user,alloccpus,elapsedraw,state -S 2000-01-01
		sed 's/$/|CTLD/' "$CTLD_JOBS"
	} | awk -F'|' -v parents="$parents" '
		BEGIN {
			n = split(parents, p, "\n")
			for (i = 1; i <= n; i++) { split(p[i], f, "|"); up[f[1]] = f[2] }
		}
		$6 == "CTLD" && ($1 in seen) { next }
		$4 > 0 && $6 !~ /RUNNING|PENDING/ {
			seen[$1] = 1
			c = $4 * $5
			u[$2 "|" $3] += c
			for (a = $2; a != "" ; a = up[a]) u[a "|"] += c
		}
		END { for (k in u) print k "|" u[k] }' | sort
}

# Fairway's usage file and journals as their readers take them: every journal line whole
# and well-formed, the usage file a header, entries and an end line that counts them.
files_whole() {
	python3 - "$SPOOL" <<'PY'
import os, re, sys
d = sys.argv[1]
h = r'(0x[0-9a-f.p+-]+|0x0p\+0|[0-9.]+)'
line = re.compile(r'^[ec] \d+ \d+ \d+ %s %s \d+ %s %s \d+ %s %s$' % ((h,) * 6))
bad = []
for name in ("fairway_usage.journal", "fairway_usage.journal.old"):
    p = os.path.join(d, name)
    if not os.path.exists(p):
        continue
    t = open(p).read()
    if t and not t.endswith("\n"):
        bad.append("%s: torn last line %r" % (name, t.rsplit("\n", 1)[-1]))
    for i, l in enumerate(t.split("\n")[:-1], 1):
        if not line.match(l):
            bad.append("%s:%d: %r" % (name, i, l))
u = open(os.path.join(d, "fairway_usage")).read().split("\n")
ok = (u[-1] == "" and re.match(r"^fairway-usage 1 \d+$", u[0]) and
      re.match(r"^end %d$" % (len(u) - 3), u[-2]) and
      all(re.match(r"^[aq] \d+ %s %s$" % (h, h), l) for l in u[1:-2]))
if not ok:
    bad.append("fairway_usage: not whole")
print("; ".join(bad))
sys.exit(1 if bad else 0)
PY
}

# From Slurm 25.11 on, slurmctld refuses to start after a crash when it never saved its
# association usage: it saves its state once, before any job (as test_kill.sh).
check "slurmctld saves its state (a partition created and deleted)" \
	bash -c 'scontrol create partition=fw_save nodes=n1 state=down && scontrol delete partition=fw_save'
wait_for 10 test -s "$SPOOL/assoc_usage" || true

t_start=$SECONDS
start_backup
both_up() { [ "$(scontrol ping 2>/dev/null | grep -c 'is UP')" -eq 2 ]; }
if wait_for 30 both_up; then pass "the backup is up in standby"; else fail "the backup is up in standby" "$(scontrol ping 2>&1 | tr '\n' ' ')"; fi

# Pending jobs whose priorities are compared at the end; a long job running through it all.
submit_per_example_account -p hold
long=$(submit fw_u5 chem.lab -n6 -t 10 --wrap 'sleep 600')
long_runs() { [ "$(squeue -h -j "$long" -o %T)" = RUNNING ]; }
if wait_for 30 long_runs; then pass "the long job runs"; else fail "the long job runs" "$(squeue -h -j "$long" -o %T)"; fi
short_job "primary" fw_u1 bloggs.prj 8

# 1. scontrol takeover
log "case 1: scontrol takeover"
n=$(controls "$BLOG")
check "scontrol takeover" scontrol takeover
in_control_since "the backup took control at scontrol takeover" "$BLOG" "$n"
short_job "backup after takeover" fw_u3 chem.theory 4

# 2. the primary comes back and takes control back
log "case 2: the primary comes back"
n=$(controls "$PLOG") nb=$(standbys "$BLOG")
primary_returns "the primary took control back" "$n"
if wait_for 30 more_than standbys "$BLOG" "$nb"; then pass "the backup went back to standby"; else fail "the backup went back to standby" "no new standby line in $BLOG"; fi
short_job "primary back" fw_u2 bloggs.prj.low 3
check "the journal holds the job end" test -s "$SPOOL/fairway_usage.journal"

# 3. kill -9 of the primary between two periods, in the middle of a journal write
log "case 3: kill -9 of the primary, the journal torn"
assert_eq "the backup is in standby before the kill -9 (it took over unasked if not)" \
	"slurmctld running in background mode" "$(backup_state)"
printf 'e %s 4294967295 1 0x1p+' "$(date +%s)" >>"$SPOOL/fairway_usage.journal"
n=$(controls "$BLOG")
check "kill -9 of the primary" "$TESTBED" kill-ctld "$TB_DIR"
t_kill=$SECONDS
in_control_since "the backup took over after kill -9" "$BLOG" "$n"
log "takeover after kill -9 took $((SECONDS - t_kill)) s"
assert_match "the backup replayed Fairway's usage file and journal" \
	"usage of [0-9]+ associations restored from the period at [0-9]+, plus [1-9][0-9]* job ends" \
	"$(restored_line "$BLOG")"
short_job "backup after kill -9" fw_u6 chem.lab 5
if out=$(files_whole); then
	pass "usage file and journal whole after the torn write"
else
	fail "usage file and journal whole after the torn write" "$out"
fi

# The primary comes back after the kill -9 and takes control back from the backup.
n=$(controls "$PLOG")
primary_returns "the primary came back after kill -9" "$n"
assert_match "the primary replayed Fairway's usage file and journal" \
	"usage of [0-9]+ associations restored from the period at [0-9]+" "$(restored_line "$PLOG")"
if long_runs; then pass "the long job ran through all of it"; else fail "the long job ran through all of it" "$(squeue -h -j "$long" -o %T)"; fi

# The long job ends: every charge is in.
check "scancel the long job" scancel "$long"
usage_exact_after 60 "$long" "long job ended" "after takeover, return, kill -9 and return"
log "the first three cases took $((SECONDS - t_start)) s"
usage_table | awk -F'|' '$3 > 0' | sed 's/^/  RawUsage /'

# Cold start: the backup takes over (its first period weighs the pending jobs with the
# final usage), dies by kill -9; the primary starts from the files alone.
prios() { squeue -h -t PD -o '%i %Q' | sort; }
# (a controller's first period starts with the line that says what it restored)
restores() { grep -c 'associations restored from the period' "$1" 2>/dev/null || true; }
n=$(controls "$BLOG") r=$(restores "$BLOG")
check "scontrol takeover (for the cold start)" scontrol takeover
in_control_since "the backup took control" "$BLOG" "$n"
wait_for 20 more_than restores "$BLOG" "$r" || true
sleep 3
before=$(prios)
p=$(backup_pid) && kill -KILL "$p"
wait_for 10 bash -c "! kill -0 ${p:-0} 2>/dev/null" || true
n=$(controls "$PLOG") r=$(restores "$PLOG")
"$TESTBED" restart-ctld "$TB_DIR" >/dev/null || true
in_control_since "the primary started cold after kill -9 of the backup" "$PLOG" "$n"
wait_for 20 more_than restores "$PLOG" "$r" || true
sleep 3
assert_eq "pending jobs' priorities equal a cold start's" "$before" "$(prios)"
assert_ne "the pending jobs have priorities" "" "$(awk '$2 > 1' <<<"$before")"
usage_exact_after 10 "$long" "no job left running" "after a cold start from the files"
if out=$(files_whole); then pass "usage file and journal whole after the cold start"; else fail "usage file and journal whole after the cold start" "$out"; fi

# 4. both controllers up at once, a second long job running through it.  The primary is
# stopped right after one of its periods; the backup takes over and runs its own period; the
# primary, continued, ends the job 5 s later (before its next period, 60 s after its last), and
# the backup then takes over: it replays its own usage file, which holds the job's time up to
# its period, and the primary's journal line must hold exactly the rest.
log "case 4: both controllers up at once"
start_backup
if wait_for 30 both_up; then pass "the backup is up in standby again"; else fail "the backup is up in standby again" "$(scontrol ping 2>&1 | tr '\n' ' ')"; fi
long=$(submit fw_u4 chem.theory -n4 -t 10 --wrap 'sleep 600')
if wait_for 30 long_runs; then pass "the second long job runs"; else fail "the second long job runs" "$(squeue -h -j "$long" -o %T)"; fi
usage_period() { head -n 1 "$SPOOL/fairway_usage" 2>/dev/null | awk '{print $3}'; }
period_after() { [ "$(usage_period)" != "$1" ]; }
wait_for 75 period_after "$(usage_period)" || true
ppid=$(primary_pid) || ppid=""
n=$(controls "$BLOG") nb=$(standbys "$BLOG") p_primary=$(usage_period)
if [ -n "$ppid" ]; then
	kill -STOP "$ppid"
	in_control_since "the backup took over from the stopped primary" "$BLOG" "$n"
	wait_for 20 period_after "$p_primary" || true
	p_backup=$(usage_period)
	kill -CONT "$ppid"
	t_both=$SECONDS
	sleep 5 # (the job runs 5 s past the backup's period, whose usage file holds the time before)
	check "scancel the second long job (under the primary, continued)" scancel "$long"
	# Either the primary reasserts itself (the backup goes back to standby), or it reads the
	# backup's request for control, queued while it was stopped, and exits.
	settled() { ! alive "$ppid" || more_than standbys "$BLOG" "$nb"; }
	if wait_for 60 settled; then
		if alive "$ppid"; then
			pass "one controller again: the primary reasserted itself, the backup in standby"
		else
			pass "one controller again: the primary gave control to the backup and exited"
		fi
	else
		fail "one controller again" "both still in control after 60 s"
	fi
	log "both controllers were up for $((SECONDS - t_both)) s"
	ended() { [ -z "$(squeue -h -j "$long" -o %i 2>/dev/null)" ]; }
	wait_for 30 ended || true
	if alive "$ppid"; then
		log "usage file of the primary's period $p_primary, the backup's $p_backup, now $(usage_period)"
		n=$(controls "$BLOG") r=$(restores "$BLOG")
		check "scontrol takeover (after both were up)" scontrol takeover
		in_control_since "the backup took control after both were up" "$BLOG" "$n"
		wait_for 20 more_than restores "$BLOG" "$r" || true
		assert_match "the backup replayed its own period's usage file and the primary's job end" \
			"usage of [0-9]+ associations restored from the period at $p_backup, plus [1-9][0-9]* job ends" \
			"$(restored_line "$BLOG")"
	fi
else
	fail "the primary runs" "no pid in $TB_DIR/run/slurmctld.pid"
fi
check "a controller answers" scontrol ping
usage_exact_after 60 "$long" "second long job ended" "after both controllers were up, then a takeover"
log "all four cases took $((SECONDS - t_start)) s"
usage_table | awk -F'|' '$3 > 0' | sed 's/^/  RawUsage /'
if out=$(files_whole); then pass "usage file and journal whole at the end"; else fail "usage file and journal whole at the end" "$out"; fi

stop_backup
finish
