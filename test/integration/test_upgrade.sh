#!/usr/bin/env bash
# shellcheck disable=SC2317  # (functions called through wait_for)
# A site upgrading Slurm, and Fairway built for each release, on one StateSaveLocation:
# release after release of FAIRWAY_UPGRADE_CHAIN on ONE testbed (one database, one spool),
# with jobs pending across every step.  Each step ends the way that leaves the most to
# Fairway's own files: slurmctld killed (-9) after jobs ended since its last checkpoint of
# association usage, so what they charged is only in Fairway's usage file and journal,
# written by the older release's Fairway and read by the newer one's.  At every step:
#   * slurmdbd converts the database and slurmctld its state (the new release is up, its
#     version is the one asked for), the pending jobs are still there, same ids;
#   * Fairway read the older release's files: one "restored from the period" line, none
#     "unusable" (a file refused must be named with its version, in one line);
#   * RawUsage of every association is what it was before the step, and equals AllocCPUS x
#     Elapsed of every finished job in sacct (decay off): nothing lost, nothing twice.
# Then a downgrade: the previous release's slurmctld on the newest's state must refuse it
# (with Slurm's own fatal line) and change no state file: the newest starts again
# with the same usage and jobs.  Last, the site goes back to priority/multifactor on the
# newest release: RawUsage unchanged, a job charged by multifactor, still exact.
#
# Environment: FAIRWAY_UPGRADE_CHAIN, the releases oldest first, space-separated
# "VERSION:PREFIX:PLUGINDIR" (PREFIX: the Slurm installed there as scripts/slurm-source
# built it; empty or /usr: the installed Slurm; PLUGINDIR: Fairway built for it, holding
# priority_fairway.so; the installed Slurm only before any prefix), e.g.
#   "22.05.8:/usr:_build/plugin/.libs 23.11.4:P:_build-23.11.4/plugin/.libs"
# with P the third line of `scripts/slurm-source --version 23.11.4`.  At least two
# releases; without them the test says SKIP and fails (scripts/check runs it where every
# release is built).  A chain may repeat a release (no downgrade is tried then).
# TESTBED_TIMEOUT defaults to 120 s here: slurmdbd converts the database at its start.
set -euo pipefail
# shellcheck source=test/integration/lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"

read -r -a chain <<<"${FAIRWAY_UPGRADE_CHAIN:-}"
if [ "${#chain[@]}" -lt 2 ]; then
	echo "SKIP: FAIRWAY_UPGRADE_CHAIN must name at least two releases (VERSION:PREFIX:PLUGINDIR ...), got '${FAIRWAY_UPGRADE_CHAIN:-}'"
	fail "upgrade chain given" "FAIRWAY_UPGRADE_CHAIN unset or one release"
	finish
fi
vers=() prefixes=() plugins=()
for c in "${chain[@]}"; do
	IFS=: read -r v p d <<<"$c"
	[ "$p" = /usr ] && p=""
	if [ -z "$v" ] || [ ! -f "$d/priority_fairway.so" ] || { [ -n "$p" ] && [ ! -x "$p/sbin/slurmctld" ]; }; then
		echo "SKIP: $c: no priority_fairway.so in '$d' or no sbin/slurmctld under '$p'"
		fail "upgrade chain given" "$c unusable"
		finish
	fi
	if [ -z "$p" ] && [ "${#vers[@]}" -gt 0 ] && [ -n "${prefixes[-1]}" ]; then
		echo "SKIP: $c: only the first release may be the installed Slurm"
		fail "upgrade chain given" "$c: the installed Slurm after a prefix"
		finish
	fi
	vers+=("$v") prefixes+=("$p") plugins+=("$(cd "$d" && pwd -P)")
done
n=${#vers[@]}
newest=$((n - 1))
log "chain: ${vers[*]}"

# slurmdbd converting the database may take longer than the testbed's default wait.
export TESTBED_TIMEOUT=${TESTBED_TIMEOUT:-120}
ORIG_PATH=$PATH
TB_DIR=$(mktemp -d "${TMPDIR:-/tmp}/fw-it.XXXXXX")
SSL=$TB_DIR/spool/ctld
CTLD_LOG=$TB_DIR/log/slurmctld.log
tmpfile conf
cat >"$conf" <<'EOF'
PriorityDecayHalfLife=0
PriorityUsageResetPeriod=NONE
PriorityCalcPeriod=1
PartitionName=hold Nodes=ALL State=DOWN
EOF

log_mark=0
mark_log() { log_mark=$(wc -l <"$CTLD_LOG" 2>/dev/null || echo 0); }
new_log() { tail -n +"$((log_mark + 1))" "$CTLD_LOG" 2>/dev/null || true; }

use_release() { # index: the clients of that release first in PATH
	PATH=$ORIG_PATH
	eval "$("$TESTBED" env "$TB_DIR")"
}

# Start the testbed on release i (its Slurm, its Fairway) in TB_DIR, on the state there.  A
# start that fails is stopped and tried once more on the same state, as tb_start does: on two
# cores, with the release lanes starting testbeds together, slurmdbd once lost its database
# while starting (CI, 2026-11-29) and one start of 22.05.8 did not come up in time.  The
# reason is on the NOTE/FAIL line itself.
start_on() { # index label
	local i=$1 out=$TB_DIR/start-$1.out
	local args=(${prefixes[$i]:+--slurm-prefix "${prefixes[$i]}"} --plugin-dir "${plugins[$i]}"
		--priority-type priority/fairway --conf-extra "$conf")
	PATH=$ORIG_PATH
	mark_log
	"$TESTBED" start "$TB_DIR" "${args[@]}" >"$out" 2>&1 && return 0
	cat "$out"
	echo "NOTE: $2: testbed start failed ($(_tb_start_reason "$out")); trying once more"
	"$TESTBED" stop "$TB_DIR" >/dev/null 2>&1 || true
	mark_log
	"$TESTBED" start "$TB_DIR" "${args[@]}" >"$out" 2>&1 && return 0
	cat "$out"
	fail "$2" "testbed start failed twice: $(_tb_start_reason "$out") (logs: $TB_DIR/log)"
	finish
}

start_release() { # index: start the testbed on release i on the state of release i-1
	local i=$1 t0=$SECONDS
	start_on "$i" "Slurm ${vers[$i]} starts on the state of ${vers[$((i - 1))]:-nothing}"
	use_release "$i"
	pass "Slurm ${vers[$i]} up on this StateSaveLocation ($((SECONDS - t0)) s)"
	assert_eq "slurmctld is ${vers[$i]}" "${vers[$i]}" "$(scontrol version | awk '{print $2}')"
}

# The testbed has no option for "the installed Slurm again" once a prefix was given: only
# the first releases may be the installed one.
start_first() {
	local t0=$SECONDS
	start_on 0 "testbed start on Slurm ${vers[0]}"
	use_release 0
	pass "Slurm ${vers[0]} up ($((SECONDS - t0)) s)"
	check "example accounts" "$EXAMPLE_ACCOUNTS" "$TB_DIR"
}

pending_ids() { squeue -h -t PD -o %i | sort -n | tr '\n' ' '; }
root_usage() { usage_table | awk -F'|' '$1 == "root" && $2 == "" { print $3 }'; }
sacct_total() {
	sacct -a -X -n -P -o alloccpus,elapsedraw,state -S 2000-01-01 |
		awk -F'|' '$1 > 0 && $3 !~ /RUNNING|PENDING/ { s += $1 * $2 } END { print s + 0 }'
}
exact() { # label: every association's RawUsage = AllocCPUS x Elapsed of sacct's jobs
	local f=$FAILED
	: >"$TB_DIR/base.txt"
	assert_eq "RawUsage = AllocCPUS x Elapsed for every association $1" \
		"$(expected_table "$TB_DIR/base.txt" | grep -v '^root|root|' | awk -F'|' '$3 > 0')" \
		"$(usage_table | awk -F'|' '$3 > 0')"
	[ "$FAILED" = "$f" ] || sacct -a -X -n -P -o jobid,account,user,alloccpus,elapsedraw,state,start,end -S 2000-01-01 | sed 's/^/  sacct: /'
}

# Jobs that end on release i after slurmctld's last checkpoint of association usage, and
# after the last calculation period (so that they are in the journal, not the usage file);
# one more pending job; then slurmctld is killed.
work_then_kill() { # index
	local i=$1 last left j1 j2
	# slurmctld saves its association usage (from 25.11 on it will not start after a crash
	# without one): deleting a partition makes it save at once.
	scontrol create partition=fw_save nodes=n1 state=down >/dev/null &&
		scontrol delete partition=fw_save >/dev/null
	wait_for 10 test -s "$SSL/assoc_usage" || true
	# A period about to end (PriorityCalcPeriod=1: every minute) would move the job ends
	# into the usage file: wait for it to pass first.
	last=$(stat -c %Y "$SSL/priority_last_decay_ran" 2>/dev/null || echo 0)
	left=$((last + 60 - $(date +%s)))
	if [ "$last" -gt 0 ] && [ "$left" -lt 15 ] && [ "$left" -gt -10 ]; then
		period_passed() { [ "$(stat -c %Y "$SSL/priority_last_decay_ran")" -gt "$last" ]; }
		wait_for 30 period_passed || true
	fi
	j1=$(submit fw_u1 bloggs.prj -n4 -t 1 --wrap 'sleep 2')
	j2=$(submit fw_u5 chem.lab -n3 -t 1 --wrap 'sleep 3')
	ended() { [ -z "$(squeue -h -j "$j1,$j2" -t R,CF,CG,PD -o %i 2>/dev/null)" ]; }
	if wait_for 40 ended; then pass "jobs ran and ended on ${vers[$i]}"; else fail "jobs ran and ended on ${vers[$i]}" "$(squeue -h -o '%i %T %r' | tr '\n' ';')"; fi
	local pairs ua
	read -r -d "" -a pairs <<<"$EXAMPLE_USER_ACCOUNTS" || true
	ua=${pairs[$((i % ${#pairs[@]}))]}
	submit "${ua%%:*}" "${ua#*:}" -p hold -t 1 --wrap 'true' >/dev/null
	sleep 6 # slurmctld saves its job state within 5 s of a change
	exact "on ${vers[$i]}, before its slurmctld is killed"
	before_usage=$(usage_table)
	before_pending=$(pending_ids)
	before_root=$(root_usage)
	journal_lines=$(wc -l <"$SSL/fairway_usage.journal" 2>/dev/null || echo 0)
	log "${vers[$i]}: RawUsage of root $before_root, sacct $(sacct_total) CPU-s, pending: $before_pending, journal lines: $journal_lines"
	check "kill -9 slurmctld of ${vers[$i]}" "$TESTBED" kill-ctld "$TB_DIR"
}

carried_over() { # index label: what the step must have kept
	local i=$1 what=$2 restored after
	assert_eq "$what: the pending jobs are still pending, same ids" "$before_pending" "$(pending_ids)"
	restored=$(new_log | grep -E 'restored from the period' | tail -n 1 || true)
	assert_match "$what: Fairway read the older release's usage file and journal" \
		"usage of [0-9]+ associations restored from the period at [0-9]+, plus [0-9]+ job ends" "$restored"
	assert_match "$what: job ends replayed from the journal" "plus [1-9][0-9]* job ends" "$restored"
	assert_eq "$what: no Fairway file refused or unusable" "" \
		"$(new_log | grep -E 'fairway.*(unusable|refus)' || true)"
	after=$(root_usage)
	assert_eq "$what: RawUsage of every association unchanged" "$before_usage" "$(usage_table)"
	log "$what: RawUsage of root $before_root before, $after after (${restored##*: })"
	exact "$what"
}

steps=()
t_step=$SECONDS
start_first
work_then_kill 0
steps+=("${vers[0]} $((SECONDS - t_step)) s")
for ((i = 1; i < n; i++)); do
	t_step=$SECONDS
	check "stop ${vers[$((i - 1))]}" "$TESTBED" stop "$TB_DIR"
	start_release "$i"
	carried_over "$i" "${vers[$((i - 1))]} -> ${vers[$i]}"
	work_then_kill "$i"
	steps+=("${vers[$((i - 1))]}->${vers[$i]} $((SECONDS - t_step)) s")
done

# The downgrade: the previous release's slurmctld, with its own plugins and Fairway, on the
# newest release's state, while the newest's slurmdbd and slurmd go on.
t_step=$SECONDS
prev=$((newest - 1))
if [ "${vers[$prev]}" = "${vers[$newest]}" ]; then
	# (a chain that repeats a release, e.g. to try a build of the plugin against another)
	log "no downgrade: the last two steps are both ${vers[$newest]}"
else
	if [ -n "${prefixes[$prev]}" ]; then
		prev_sysdir=${prefixes[$prev]}/lib/slurm
		[ -d "$prev_sysdir" ] || prev_sysdir=${prefixes[$prev]}/lib64/slurm
		prev_ctld=${prefixes[$prev]}/sbin/slurmctld
	else
		prev_ctld=$(PATH=$ORIG_PATH:/usr/sbin:/sbin command -v slurmctld)
		prev_sysdir=${TESTBED_SLURM_PLUGINDIR:-$(ldd "$prev_ctld" | sed -n 's|^[[:space:]]*libslurmfull\.so => \(/.*\)/libslurmfull\.so .*|\1|p')}
	fi
	mkdir -p "$TB_DIR/etc-down"
	cp -a "$TB_DIR/etc/." "$TB_DIR/etc-down/"
	sed -i "s|^PluginDir=.*|PluginDir=${plugins[$prev]}:$TB_DIR/plugins:$prev_sysdir|" "$TB_DIR/etc-down/slurm.conf"
	state_sums() { (cd "$SSL" && find . -maxdepth 1 -type f ! -name '*.pid' -print0 | sort -z | xargs -0 sha256sum); }
	sums_before=$(state_sums)
	mark_log
	rc=0
	SLURM_CONF=$TB_DIR/etc-down/slurm.conf timeout -k 5 60 "$prev_ctld" -D >"$TB_DIR/log/downgrade.out" 2>&1 || rc=$?
	# (23.11 stops at 22.05's "incompatible version"; 24.11's state is refused by 23.11 at
	# its cluster name file, "fairway|ID" since 24.11: either is Slurm's own fatal line)
	refusal=$(new_log | grep -E 'fatal:' | head -n 1 || true)
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] && [ -n "$refusal" ]; then
		pass "downgrade to ${vers[$prev]} refused (exit $rc): ${refusal#*] }"
	else
		fail "downgrade to ${vers[$prev]} refused" "slurmctld ${vers[$prev]} exit $rc, log: $(new_log | tail -n 3 | tr '\n' ' ')"
	fi
	assert_eq "the refused downgrade changed no state file of Fairway or slurmctld" "$sums_before" "$(state_sums)"
fi
# The newest again, on the state the downgrade refused (or straight after its kill -9).
mark_log
check "the newest (${vers[$newest]}) starts again" "$TESTBED" restart-ctld "$TB_DIR"
carried_over "$newest" "${vers[$newest]} started again"
if [ "${vers[$prev]}" = "${vers[$newest]}" ]; then
	steps+=("${vers[$newest]} again $((SECONDS - t_step)) s")
else
	steps+=("downgrade ${vers[$newest]}->${vers[$prev]} refused, ${vers[$newest]} again $((SECONDS - t_step)) s")
fi

# Back to multifactor on the newest release, after the upgrade: a clean restart of
# slurmctld, nothing lost, a job charged by multifactor exactly.
t_step=$SECONDS
before_usage=$(usage_table)
before_pending=$(pending_ids)
check "switch to priority/multifactor on ${vers[$newest]}" "$TESTBED" restart-ctld "$TB_DIR" --priority-type priority/multifactor
assert_eq "multifactor in use" priority/multifactor "$(scontrol show config | awk -F' = ' '/^PriorityType /{print $2}')"
assert_eq "multifactor: the pending jobs are still pending" "$before_pending" "$(pending_ids)"
assert_eq "multifactor: RawUsage of every association unchanged" "$before_usage" "$(usage_table)"
j=$(submit fw_u3 chem.theory -n5 -t 1 --wrap 'sleep 2')
job_gone() { [ -z "$(squeue -h -j "$j" -o %i 2>/dev/null)" ]; }
# (sacct's listing of every job has been seen to lag its record of the one job by seconds)
in_sacct() { sacct -a -X -n -P -o jobid,state -S 2000-01-01 | grep -qx "$j|COMPLETED"; }
if wait_for 40 job_gone && wait_for 20 in_sacct; then pass "a job ran under multifactor, in sacct"; else fail "a job ran under multifactor, in sacct" "$(squeue -h -j "$j" -o %T) $(sacct -n -X -P -j "$j" -o state)"; fi
exact "under multifactor after the upgrade (nothing lost, nothing twice)"
log "multifactor: RawUsage of root $(root_usage), sacct $(sacct_total) CPU-s"
steps+=("back to multifactor $((SECONDS - t_step)) s")

log "steps: $(printf '%s; ' "${steps[@]}")"
finish
