#!/usr/bin/env bash
# shellcheck disable=SC2317  # (helper functions are called through wait_for)
# fairway whatif predicts what slurmctld does: a version 2 snapshot of a live cluster under
# priority/fairway, a prediction from it with other weights (PriorityWeightFairshare and
# PriorityWeightJobSize), other shares (an account's Fairshare) and PriorityFlags
# (NO_NORMAL_PART: the partition factor is PriorityJobFactor itself), then the same change
# made on the cluster (slurm.conf and `scontrol reconfigure`, `sacctmgr modify account`) and,
# after the first calculation period that follows, every pending job's priority in squeue
# equal to the predicted one, and the predicted order the scheduler's.  Under the frozen
# settings of test_parity.sh (no decay, age weight 0, pending jobs in a DOWN partition),
# nothing else moves between the two moments.  A prediction without change moves no job
# and gives every job the priority squeue shows.
#
# The shadow policy (PriorityParameters=fairway_metrics_dir=DIR,fairway_shadow=FILE) on the
# same cluster: FILE holding the new weights and flags predicts every priority that `fairway
# whatif` of the period's own snapshot (DIR/fairway.json, version 2) predicts, and what
# slurmctld then does once slurm.conf says the same (the shares change follows as a second
# step); from then on, equal to the live settings, it predicts no movement.  `fairway explain --snapshot` reads the
# period's snapshot as it reads one taken with `fairway snapshot`.
# Environment: FAIRWAY_PLUGIN_DIR (required), FAIRWAY_BUILD_DIR (its tools/fairway).
set -euo pipefail
# shellcheck source=test/integration/lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"

cli=${FAIRWAY_BUILD_DIR:-}/tools/fairway
[ -x "$cli" ] || { fail "fairway CLI" "FAIRWAY_BUILD_DIR must hold a build with tools/fairway"; finish; }

mdir=$(mktemp -d "${TMPDIR:-/tmp}/fw-it-shadow.XXXXXX")
trap 'rc=$?; rm -rf "$mdir"; (exit $rc); _cleanup' EXIT
shadow=$mdir/shadow.conf
printf '%s\n' '# candidate settings' PriorityWeightFairshare=30000 PriorityWeightJobSize=200000 \
	'PriorityFlags=NO_NORMAL_PART  # the partition factor is PriorityJobFactor' >"$shadow"
tb_start_fairway_no_decay <<EOF
$FROZEN_PRIORITY_CONF
PriorityParameters=fairway_metrics_dir=$mdir,fairway_shadow=$shadow
EOF
conf=$TB_DIR/etc/slurm.conf
state=$TB_DIR/spool/ctld/priority_last_decay_ran

submit fw_u1 bloggs.prj -n8 -t 2 --wrap 'sleep 5' >/dev/null
submit fw_u3 chem.theory -n16 -t 2 --wrap 'sleep 6' >/dev/null
submit fw_u6 chem.lab -N2 -n5 -t 2 --wrap 'sleep 4' >/dev/null
usage_jobs_finished
submit_per_example_account -p hold -n1 -t 5
submit_per_example_account -p hold -n6 -t 5
period_ended_after() { [ "$(stat -c %Y "$state" 2>/dev/null || echo 0)" -gt "$1" ]; }
t=$(date +%s)
wait_for 90 period_ended_after "$t" || fail "a period ran" "state file $(stat -c %y "$state" 2>&1)"
sleep 2

dir=$TB_DIR/whatif
mkdir -p "$dir"
check "fairway snapshot (version 2)" "$cli" snapshot -o "$dir/snap.json"
squeue -h -t PD -p hold -o '%i %Q' | sort -n >"$dir/before"
n=$(wc -l <"$dir/before")
assert_ne "pending jobs" 0 "$n"

# No change: no job moves, and every priority stays.
"$cli" whatif -P "$dir/snap.json" >"$dir/none.P"
assert_eq "whatif without a change: no job changes place" "" \
	"$(awk -F'|' 'NF == 8 && $7 != $8 && $1 != "Partition"' "$dir/none.P")"
assert_eq "whatif without a change: no priority changes" "" \
	"$(awk -F'|' 'NF == 8 && $5 != $6 && $1 != "Partition"' "$dir/none.P")"
assert_eq "whatif of the snapshot file without a change = squeue's priorities" \
	"$(cat "$dir/before")" "$(awk -F'|' '$1 == "hold" { print $2, $6 }' "$dir/none.P" | sort -n)"

# The period's own snapshot, and the shadow policy weighed in the same period.
shadow_metric() { awk -v m="$1" '$1 == m { print $2 }' "$mdir/fairway.prom"; }
shadow_taken() { [ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["taken_at"])' "$mdir/fairway_shadow.json" 2>/dev/null || echo 0)" -gt "$1" ]; }
cp "$mdir/fairway.json" "$dir/period.json"
cp "$mdir/fairway_shadow.json" "$dir/shadow.json"
cp "$mdir/fairway.prom" "$dir/period.prom"
"$cli" whatif -P "$dir/period.json" >"$dir/period.P"
assert_eq "whatif of the period's snapshot without a change = squeue's priorities" \
	"$(cat "$dir/before")" "$(awk -F'|' '$1 == "hold" { print $2, $6 }' "$dir/period.P" | sort -n)"
first=$(head -1 "$dir/before" | cut -d' ' -f1)
"$cli" explain --snapshot "$dir/period.json" -P "$first" >"$dir/explain.period" 2>&1 || true
"$cli" explain --snapshot "$dir/snap.json" -P "$first" >"$dir/explain.snap" 2>&1 || true
assert_eq "fairway explain of the period's snapshot gives job $first squeue's priority" \
	"$(squeue -h -j "$first" -o %Q)" \
	"$(awk -F'|' '/^Partition\|/ { f = 1; next } /^Level\|/ { f = 0 } f && $1 == "hold" { print $3 }' "$dir/explain.period")"
# The factors, places and fair-share path; not the forecast, which reads what only the live
# snapshot holds (squeue's Reason: PartitionDown here) and the model beside each file.
assert_eq "explain of the period's snapshot = explain of fairway snapshot's" \
	"$(sed '/^Forecast|/,$d' "$dir/explain.snap")" "$(sed '/^Forecast|/,$d' "$dir/explain.period")"
assert_eq "the shadow policy was weighed" 1 \
	"$(awk '$1 == "fairway_shadow_weighed" { print $2 }' "$dir/period.prom")"
moved=$(awk '$1 == "fairway_shadow_jobs_moved{partition=\"hold\"}" { print $2 }' "$dir/period.prom")
assert_eq "the shadow policy moves jobs" yes "$([ "${moved:-0}" -gt 0 ] && echo yes || echo "no (moved: '$moved')")"
python3 - "$dir/shadow.json" >"$dir/shadow_predicted" <<'PYEOF2'
import json, sys
doc = json.load(open(sys.argv[1]))
for p in doc["partitions"]:
    if p["partition"] == "hold":
        assert len(p["jobs_by_move"]) == p["jobs"], "every job listed"
        for j in sorted(p["jobs_by_move"], key=lambda j: j["job"]):
            print(j["job"], j["priority_after"])
PYEOF2
"$cli" whatif -P "$dir/period.json" --weight fairshare=30000 --weight jobsize=200000 \
	--flags NO_NORMAL_PART >"$dir/period_predicted.P"
assert_eq "the shadow policy's priorities = fairway whatif's of the same period" \
	"$(awk -F'|' '$1 == "hold" { print $2, $6 }' "$dir/period_predicted.P" | sort -n)" \
	"$(cat "$dir/shadow_predicted")"

# The prediction.
change=(--weight fairshare=30000 --weight jobsize=200000 --shares bloggs=5 --flags NO_NORMAL_PART)
"$cli" whatif -P "$dir/snap.json" "${change[@]}" >"$dir/predicted.P"
awk -F'|' '$1 == "hold" { print $2, $6 }' "$dir/predicted.P" | sort -n >"$dir/predicted"
awk -F'|' '$1 == "hold" { print $8, $2 }' "$dir/predicted.P" | sort -n | awk '{ print $2 }' \
	>"$dir/predicted_order"
assert_eq "the prediction covers every pending job" "$n" "$(wc -l <"$dir/predicted")"
assert_ne "the prediction changes priorities" "$(cat "$dir/before")" "$(cat "$dir/predicted")"
assert_ne "the prediction moves jobs" 0 \
	"$(awk -F'|' 'NF == 8 && $1 == "hold" && $7 != $8' "$dir/predicted.P" | wc -l)"
assert_ne "the prediction changes fair-share factors" 0 \
	"$(awk -F'|' 'NF == 4 && $1 != "Account"' "$dir/predicted.P" | wc -l)"
"$cli" whatif "$dir/snap.json" "${change[@]}" >"$dir/predicted.txt"
log "fairway whatif ${change[*]}:"
sed 's/^/    /' "$dir/predicted.txt"

# The same change on the cluster: first the settings the shadow policy names.
sed -i 's/^PriorityWeightFairshare=.*/PriorityWeightFairshare=30000/; s/^PriorityWeightJobSize=.*/PriorityWeightJobSize=200000/' "$conf"
assert_eq "slurm.conf sets no PriorityFlags yet" "" "$(grep -i '^PriorityFlags=' "$conf" || true)"
echo 'PriorityFlags=NO_NORMAL_PART' >>"$conf"
check "scontrol reconfigure" scontrol reconfigure
t=$(date +%s)
if wait_for 90 shadow_taken "$t"; then pass "a period ran after reconfigure"; else fail "a period ran after reconfigure" "$(ls -l "$mdir")"; fi
squeue -h -t PD -p hold -o '%i %Q' | sort -n >"$dir/after_settings"
if diff -u "$dir/shadow_predicted" "$dir/after_settings" >"$dir/diff"; then
	pass "every pending job's priority after reconfigure = the shadow policy's ($n jobs)"
else
	fail "every pending job's priority after reconfigure = the shadow policy's" "$(head -c 1500 "$dir/diff")"
fi
assert_eq "once slurm.conf says it, the shadow policy moves no job" 0 \
	"$(shadow_metric 'fairway_shadow_jobs_moved{partition="hold"}')"
assert_eq "once slurm.conf says it, the shadow policy keeps the order" 1 \
	"$(shadow_metric 'fairway_shadow_rank_correlation{partition="hold"}')"

# Then the shares.
check "sacctmgr modify account bloggs set fairshare=5" \
	sacctmgr -i modify account where name=bloggs cluster="$CLUSTER" set fairshare=5
sleep 2	# slurmdbd's update reaches slurmctld
t=$(date +%s)
if wait_for 90 period_ended_after "$t"; then pass "a period ran after the change"; else fail "a period ran after the change" "state file $(stat -c %y "$state")"; fi
sleep 1
squeue -h -t PD -p hold -o '%i %Q' | sort -n >"$dir/after"
if diff -u "$dir/predicted" "$dir/after" >"$dir/diff"; then
	pass "every pending job's priority after the change = whatif's prediction ($n jobs)"
else
	fail "every pending job's priority after the change = whatif's prediction" "$(head -c 1500 "$dir/diff")"
fi
squeue -h -t PD -p hold --sort=-p,V,i -o '%i' >"$dir/order"
assert_eq "the scheduler's order after the change = whatif's" "$(cat "$dir/predicted_order")" \
	"$(cat "$dir/order")"
finish
