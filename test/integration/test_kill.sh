#!/usr/bin/env bash
# shellcheck disable=SC2317  # (helper functions are called through wait_for)
# kill -9 of slurmctld in the middle of a job under priority/fairway, then a restart: the
# usage charged before the kill (a calculation period's charge of the running job, a job
# end since) must not be lost, and nothing may be charged twice.  slurmctld itself saves
# association usage only every 5 minutes; Fairway's usage file and journal
# (lib/state/usage_store.h) fill the gap.  Decay is off, so RawUsage must equal AllocCPUS x
# Elapsed (sacct) exactly.  The fair-share history (fairway_history_days, kept in
# StateSaveLocation) reads back whole after the kill, with periods from before and after it.
#
# Environment: FAIRWAY_PLUGIN_DIR, the directory holding priority_fairway.so (required);
# FAIRWAY_BUILD_DIR (its tools/fairway) for the history check.
set -euo pipefail
# shellcheck source=test/integration/lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"

tb_start_fairway_no_decay <<<"PriorityParameters=fairway_history_days=1"

# From Slurm 25.11 on, slurmctld refuses to start after a crash (fatal "No Assoc usage file")
# when the cluster existed before and it never saved its association usage, which it does
# every 5 minutes and whenever a partition is deleted.  So it saves its state once, before
# any job: everything charged from here on is in Fairway's files only, on every release.
check "slurmctld saves its state (a partition created and deleted)" \
	bash -c 'scontrol create partition=fw_save nodes=n1 state=down && scontrol delete partition=fw_save'
if wait_for 10 test -s "$TB_DIR/spool/ctld/assoc_usage"; then
	pass "slurmctld saved association usage"
else
	fail "slurmctld saved association usage" "no $TB_DIR/spool/ctld/assoc_usage after 10 s"
fi

# A long job, charged by the calculation thread while it runs.
long=$(submit fw_u5 chem.lab -n6 -t 3 --wrap 'sleep 100')
charged() { sshare -n -P -A chem.lab -u fw_u5 -o rawusage | awk 'NF { u = $1 } END { exit !(u > 0) }'; }
if wait_for 75 charged; then pass "the running job is charged by a period"; else fail "the running job is charged by a period" "still 0"; fi
# A short job that ends after that period: charged at its end, i.e. in the journal only.
short=$(submit fw_u3 chem.theory -n4 -t 2 --wrap 'sleep 3')
short_done() { [ -z "$(squeue -h -j "$short" -o %i 2>/dev/null)" ]; }
wait_for 30 short_done || true
sleep 6	# let slurmctld save its job state (it does so within 5 s of a change)
check "journal holds the job end" grep -q "^e .* $short " "$TB_DIR/spool/ctld/fairway_usage.journal"

killed_at=$(date +%s)
check "kill -9 slurmctld" "$TESTBED" kill-ctld "$TB_DIR"
check "restart slurmctld" "$TESTBED" restart-ctld "$TB_DIR"
assert_match "restart restored Fairway's usage" "usage of [0-9]+ associations restored from the period at [0-9]+, plus [0-9]+ job ends" \
	"$(grep 'restored from the period' "$TB_DIR/log/slurmctld.log" | tail -n 1)"

usage_exact_after 120 "$long" "long job finished" "after kill -9 (nothing lost, nothing twice)"
check "slurmctld still answers" scontrol ping

# The history: mode 0700 under StateSaveLocation, periods on both sides of the kill, nothing
# torn (a torn block would be named on stderr and skipped).
cli=${FAIRWAY_BUILD_DIR:-}/tools/fairway
hdir=$TB_DIR/spool/ctld/fairway_history
assert_eq "the history is under StateSaveLocation, mode 0700" 700 "$(stat -c %a "$hdir" 2>&1)"
if [ -x "$cli" ]; then
	# A period after the restart (the first may append none: the next one).  The day file's
	# time says when a period last appended.
	appended_after_kill() {
		[ "$(stat -c %Y "$hdir"/history-*.fwh 2>/dev/null | sort -n | tail -n 1)" -gt "$killed_at" ]
	}
	wait_for 130 appended_after_kill || true
	"$cli" history --account chem.lab --user fw_u5 --json >"$TB_DIR/history.json" 2>"$TB_DIR/history.err" || true
	assert_eq "fairway history reads it whole after kill -9" "" "$(cat "$TB_DIR/history.err")"
	assert_eq "history periods before and after the kill" "yes yes" "$(python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))[0]["periods"]
t = int(sys.argv[2])
print("yes" if any(x["time"] < t for x in p) else "no", "yes" if any(x["time"] > t for x in p) else "no")' \
		"$TB_DIR/history.json" "$killed_at" 2>&1)"
else
	fail "fairway history after kill -9" "FAIRWAY_BUILD_DIR must hold a build with tools/fairway"
fi

finish
