#!/usr/bin/env bash
# shellcheck disable=SC2317  # (helper functions are called through wait_for)
# PriorityParameters=fairway_fairshare_tres=gres/gpu on a live cluster with GPUs (two nodes
# of 8 CPUs and 4 count-only GPUs each, gres/gpu in AccountingStorageTRES):
#   * fw_u1 has used CPUs only and fw_u3 mostly GPUs; each then has a GPU job and a CPU job
#     pending in the DOWN partition hold.  sprio's FAIRSHARE of every pending job is its
#     user's FairShare times the weight in the table of the usage it was judged by: `fairway
#     shares --tres gres/gpu` of the period's snapshot for the GPU jobs, `fairway shares` (=
#     sshare) for the CPU jobs;
#   * so fw_u1's GPU job has the higher factor of its two and fw_u3's the lower;
#   * the snapshot names the TRES each GPU job was judged by, and no CPU job's;
#   * `fairway shares --tres` gives fw_u3 the GPU usage sshare shows in GrpTRESRaw (minutes);
#   * fairway explain says the GPU job's factor comes from its gres/gpu usage; promtool passes
#     the metrics, which give each association's factor on the GPU tree;
#   * fairway whatif --shares chem=1 of the period's snapshot predicts every pending job's
#     priority after the same change is made (sacctmgr, then a period).
# Environment: FAIRWAY_PLUGIN_DIR (required), FAIRWAY_BUILD_DIR (its tools/fairway).
set -euo pipefail
# shellcheck source=test/integration/lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"

require_fairway_plugin
cli=${FAIRWAY_BUILD_DIR:-}/tools/fairway
[ -x "$cli" ] || { fail "fairway CLI" "FAIRWAY_BUILD_DIR must hold a build with tools/fairway"; finish; }
command -v promtool >/dev/null || { fail "promtool" "not installed (scripts/install-deps)"; finish; }

mdir=$(mktemp -d "${TMPDIR:-/tmp}/fw-it-tres.XXXXXX")
trap 'rc=$?; rm -rf "$mdir"; (exit $rc); _cleanup' EXIT

extra="" && tmpfile extra
{
	echo "$FROZEN_PRIORITY_CONF"
	echo "PriorityParameters=fairway_fairshare_tres=gres/gpu,fairway_metrics_dir=$mdir"
} >"$extra"
tb_start --priority-type priority/fairway --plugin-dir "$FAIRWAY_PLUGIN_DIR" --conf-extra "$extra" \
	--nodes 2 --cpus 8 --gpus 4
# shellcheck disable=SC1091
. "$TB_DIR/etc/testbed.env"
check "example accounts" "$EXAMPLE_ACCOUNTS" "$TB_DIR"
ctld_log=$TB_DIR/log/slurmctld.log
assert_ne "the list in force is logged" 0 \
	"$(grep -c 'a job that mostly asks for one of gres/gpu gets the fair-share factor' "$ctld_log" || true)"

# Usage: fw_u1 8 CPUs and no GPU for 4 s; fw_u3 1 CPU and 4 GPUs for 16 s, a GPU-minute and
# more (sshare shows TRES usage in minutes).  Usage does not decay.
submit fw_u1 bloggs.prj -n8 -t 2 --wrap 'sleep 4' >/dev/null
submit fw_u3 chem.theory -n1 --gres=gpu:4 -t 2 --wrap 'sleep 16' >/dev/null
usage_jobs_finished
# Pending in hold (all 16 CPUs, 8 GPUs): 1 GPU with 1 CPU is a GPU job (1/8 >= 1/16);
# 4 CPUs and no GPU a CPU job.
gpu1=$(submit fw_u1 bloggs.prj -p hold -n1 --gres=gpu:1 -t 5 --wrap 'sleep 1')
cpu1=$(submit fw_u1 bloggs.prj -p hold -n4 -t 5 --wrap 'sleep 1')
gpu3=$(submit fw_u3 chem.theory -p hold -n1 --gres=gpu:1 -t 5 --wrap 'sleep 1')
cpu3=$(submit fw_u3 chem.theory -p hold -n4 -t 5 --wrap 'sleep 1')
# The next period (PriorityCalcPeriod is a minute) weighs them and publishes.
weighed() {
	python3 - "$mdir/fairway.json" "$gpu1" "$cpu1" "$gpu3" "$cpu3" 2>/dev/null <<'EOF'
import json, sys
jobs = {j["id"] for j in json.load(open(sys.argv[1])).get("jobs", [])}
sys.exit(0 if {int(i) for i in sys.argv[2:]} <= jobs else 1)
EOF
}
if wait_for 90 weighed; then
	pass "a period published the four pending jobs"
else
	fail "a period published the four pending jobs" "$(ls -l "$mdir" 2>&1)"
	finish
fi
sleep 2
cp "$mdir/fairway.json" "$TB_DIR/snapshot.json"

# The TRES the snapshot says the job was judged by ("billing": none).
job_text() { python3 - "$TB_DIR/snapshot.json" "$1" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
job = [j for j in doc["jobs"] if j["id"] == int(sys.argv[2])][0]
print(job.get("fairshare_tres", "billing"))
EOF
}
assert_eq "the snapshot lists gres/gpu" '["gres/gpu"]' \
	"$(python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1]))["fairshare_tres"]))' "$TB_DIR/snapshot.json")"
assert_eq "judged by: fw_u1's GPU job, CPU job, fw_u3's GPU job, CPU job" \
	"gres/gpu billing gres/gpu billing" \
	"$(job_text "$gpu1") $(job_text "$cpu1") $(job_text "$gpu3") $(job_text "$cpu3")"

# sprio's FAIRSHARE (weighted) against the weight times the FairShare of the job's user in the
# table it was judged by.
"$cli" shares -P --tres gres/gpu "$TB_DIR/snapshot.json" >"$TB_DIR/shares_gpu.txt"
"$cli" shares -P "$TB_DIR/snapshot.json" >"$TB_DIR/shares.txt"
sshare -a -l -P >"$TB_DIR/sshare.txt"
if cmp -s <(cut -d'|' -f1-9 "$TB_DIR/sshare.txt") <(cut -d'|' -f1-9 "$TB_DIR/shares.txt"); then
	pass "fairway shares of the period's snapshot = live sshare (billing)"
else
	fail "fairway shares of the period's snapshot = live sshare (billing)" \
		"$(diff <(cut -d'|' -f1-9 "$TB_DIR/sshare.txt") <(cut -d'|' -f1-9 "$TB_DIR/shares.txt") | head -8)"
fi
sprio -h -o '%i|%F' >"$TB_DIR/sprio.txt"
fs_of() { # table user account -> FairShare
	awk -F'|' -v u="$2" -v a="$3" '$2 == u { acct = $1; sub(/^ +/, "", acct); if (acct == a) print $8 }' "$1"
}
sprio_fs() { awk -F'|' -v j="$1" '$1 + 0 == j { gsub(/ /, "", $2); print $2 }' "$TB_DIR/sprio.txt"; }
weight=$(sed -n 's/^PriorityWeightFairshare=//p' "$TB_DIR/etc/slurm.conf" | tail -1)
bad=""
for row in "$gpu1 fw_u1 bloggs.prj shares_gpu" "$cpu1 fw_u1 bloggs.prj shares" \
	"$gpu3 fw_u3 chem.theory shares_gpu" "$cpu3 fw_u3 chem.theory shares"; do
	read -r j u a table <<<"$row"
	want=$(fs_of "$TB_DIR/$table.txt" "$u" "$a")
	got=$(sprio_fs "$j")
	# sprio prints the weighted factor rounded; the table prints the factor to 6 decimals.
	ok=$(awk -v w="$weight" -v f="$want" -v g="$got" 'BEGIN { d = w * f - g; print (f != "" && g != "" && d < 1 && d > -1) ? 1 : 0 }')
	[ "$ok" = 1 ] || bad+=" job $j: sprio $got, $table $u $want x $weight;"
	eval "fs_$j=\$got"
done
assert_eq "sprio FAIRSHARE = weight x FairShare of the table each job was judged by" "" "$bad"
higher() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 > b + 0) }'; }
fs_gpu1=$(eval echo "\$fs_$gpu1") fs_cpu1=$(eval echo "\$fs_$cpu1")
fs_gpu3=$(eval echo "\$fs_$gpu3") fs_cpu3=$(eval echo "\$fs_$cpu3")
if higher "$fs_gpu1" "$fs_cpu1" && higher "$fs_cpu3" "$fs_gpu3"; then
	pass "fw_u1 (CPUs used) ranks higher for GPUs, fw_u3 (GPUs used) for CPUs"
else
	fail "fw_u1 (CPUs used) ranks higher for GPUs, fw_u3 (GPUs used) for CPUs" \
		"fw_u1 GPU $fs_gpu1 CPU $fs_cpu1, fw_u3 GPU $fs_gpu3 CPU $fs_cpu3"
fi

# The GPU table's RawUsage (GPU-seconds) is the GPU usage sshare shows in GrpTRESRaw
# (gres/gpu=GPU-minutes, truncated).
raw_gpu=$(awk -F'|' '$2 == "fw_u3" { acct = $1; sub(/^ +/, "", acct); if (acct == "chem.theory") print $5 }' "$TB_DIR/shares_gpu.txt")
tres_raw=$(sshare -a -n -P -o account,user,grptresraw |
	awk -F'|' '$2 == "fw_u3" { acct = $1; sub(/^ +/, "", acct); if (acct == "chem.theory") print $3 }' |
	tr ',' '\n' | sed -n 's|^gres/gpu=||p' || true)
assert_match "fw_u3's GPU usage is 4 GPUs x its seconds, a minute or more" '^([6-9][0-9]|[1-9][0-9]{2,})$' "$raw_gpu"
assert_eq "fairway shares --tres gres/gpu RawUsage / 60 = sshare GrpTRESRaw gres/gpu (fw_u3)" \
	"$tres_raw" "$(( ${raw_gpu:-0} / 60 ))"
assert_match "fairway shares --tres of a TRES not listed is refused" 'fairway_fairshare_tres lists gres/gpu' \
	"$("$cli" shares --tres gres/mps "$TB_DIR/snapshot.json" 2>&1 || true)"

assert_match "fairway explain: the GPU job's factor comes from its gres/gpu usage" \
	'from its usage of gres/gpu, the resource the job asks mostly for' \
	"$("$cli" explain --snapshot "$TB_DIR/snapshot.json" "$gpu1" 2>&1 || true)"
check "promtool check metrics passes fairway.prom" sh -c "promtool check metrics <'$mdir/fairway.prom'"
assert_match "fairway_info names the list" '^fairway_info\{(.*,)?fairshare_tres="gres/gpu"(,.*)?\} 1$' \
	"$(grep '^fairway_info{' "$mdir/fairway.prom")"
assert_ne "each association's factor on the GPU tree" 0 \
	"$(grep -c '^fairway_association_tres_fairshare_factor{.*tres="gres/gpu"} ' "$mdir/fairway.prom" || true)"

# whatif: chem's shares from 60 to 1, predicted from the period's snapshot (each job on the
# tree it was judged on), then made on the cluster.
"$cli" whatif -P "$TB_DIR/snapshot.json" --shares chem=1 >"$TB_DIR/predicted.P"
awk -F'|' '$1 == "hold" { print $2, $6 }' "$TB_DIR/predicted.P" | sort -n >"$TB_DIR/predicted"
squeue -h -t PD -p hold -o '%i %Q' | sort -n >"$TB_DIR/before"
assert_eq "the prediction covers the four jobs" 4 "$(wc -l <"$TB_DIR/predicted")"
assert_ne "the prediction changes priorities" "$(cat "$TB_DIR/before")" "$(cat "$TB_DIR/predicted")"
state=$TB_DIR/spool/ctld/priority_last_decay_ran
period_ended_after() { [ "$(stat -c %Y "$state" 2>/dev/null || echo 0)" -gt "$1" ]; }
check "sacctmgr modify account chem set fairshare=1" \
	sacctmgr -i modify account where name=chem cluster="$CLUSTER" set fairshare=1
sleep 2	# slurmdbd's update reaches slurmctld
t=$(date +%s)
wait_for 90 period_ended_after "$t" || fail "a period ran after the change" "state file $(stat -c %y "$state")"
sleep 1
squeue -h -t PD -p hold -o '%i %Q' | sort -n >"$TB_DIR/after"
if diff -u "$TB_DIR/predicted" "$TB_DIR/after" >"$TB_DIR/diff"; then
	pass "every pending job's priority after the change = whatif's prediction"
else
	fail "every pending job's priority after the change = whatif's prediction" "$(cat "$TB_DIR/diff")"
fi
finish
