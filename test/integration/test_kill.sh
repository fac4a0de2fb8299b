#!/usr/bin/env bash
# shellcheck disable=SC2317  # (helper functions are called through wait_for)
# kill -9 of slurmctld in the middle of a job under priority/fairway, then a restart: the
# usage charged before the kill (a calculation period's charge of the running job, a job
# end since) must not be lost, and nothing may be charged twice.  slurmctld itself saves
# association usage only every 5 minutes; Fairway's usage file and journal
# (lib/core/usage_store.h) fill the gap.  Decay is off, so RawUsage must equal AllocCPUS x
# Elapsed (sacct) exactly.
#
# Environment: FAIRWAY_PLUGIN_DIR, the directory holding priority_fairway.so (required).
set -euo pipefail
# shellcheck source=test/integration/lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"

tb_start_fairway_no_decay </dev/null

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

check "kill -9 slurmctld" "$TESTBED" kill-ctld "$TB_DIR"
check "restart slurmctld" "$TESTBED" restart-ctld "$TB_DIR"
assert_match "restart restored Fairway's usage" "usage of [0-9]+ associations restored from the period at [0-9]+, plus [0-9]+ job ends" \
	"$(grep 'restored from the period' "$TB_DIR/log/slurmctld.log" | tail -n 1)"

usage_exact_after 120 "$long" "long job finished" "after kill -9 (nothing lost, nothing twice)"
check "slurmctld still answers" scontrol ping

finish
