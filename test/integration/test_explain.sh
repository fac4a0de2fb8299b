#!/usr/bin/env bash
# shellcheck disable=SC2317  # (helper functions are called through wait_for)
# fairway explain on a live cluster under priority/fairway: for every pending job, the
# factors it shows equal sprio's, its priority equals squeue's, and its place in the
# partition equals the order slurmctld's scheduler uses (higher priority first, then
# earlier submission, then lower job id: squeue --sort=-p,V,i of that partition); the job
# it names as directly ahead is the one before it there.  The same answers come from a
# version 2 snapshot of the cluster (`fairway snapshot`, then `explain --snapshot`).
# fairway compare of each job with the one before it names that one ahead, at the same places
# and priorities, separated by what explain says; fairway weights tallies the same
# separations over the partition's neighbour pairs.
# Environment: FAIRWAY_PLUGIN_DIR (required), FAIRWAY_BUILD_DIR (its tools/fairway).
set -euo pipefail
# shellcheck source=test/integration/lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"

require_fairway_plugin
cli=${FAIRWAY_BUILD_DIR:-}/tools/fairway
[ -x "$cli" ] || { fail "fairway CLI" "FAIRWAY_BUILD_DIR must hold a build with tools/fairway"; finish; }

extra="" && tmpfile extra
{
	echo "$FROZEN_PRIORITY_CONF"
	echo "PriorityWeightQOS=1000"
} >"$extra"
tb_start --priority-type priority/fairway --plugin-dir "$FAIRWAY_PLUGIN_DIR" --conf-extra "$extra"
# shellcheck disable=SC1091
. "$TB_DIR/etc/testbed.env"
check "example accounts" "$EXAMPLE_ACCOUNTS" "$TB_DIR"

# Usage that makes fair-share differ, then jobs that stay pending (partition hold is DOWN).
submit fw_u1 bloggs.prj -n8 -t 2 --wrap 'sleep 5' >/dev/null
submit fw_u3 chem.theory -n16 -t 2 --wrap 'sleep 6' >/dev/null
submit fw_u6 chem.lab -N2 -n5 -t 2 --wrap 'sleep 4' >/dev/null
usage_jobs_finished
submit_per_example_account -p hold -n1 -t 5
submit_per_example_account -p hold -n4 -t 5
submit fw_u4 chem.theory -p hold -n2 -t 5 --nice=300 --wrap 'sleep 1' >/dev/null
held=$(submit fw_u5 chem.lab -p hold -n1 -t 5 -H --wrap 'sleep 1')
"$TESTBED" restart-ctld "$TB_DIR" >/dev/null	# a period right away
sprio_ready() { [ "$(sprio -h -o '%i' 2>/dev/null | wc -l)" -ge 10 ]; }
wait_for 30 sprio_ready || fail "sprio lists the pending jobs" "$(sprio -h 2>&1 | wc -l) lines"
sleep 3

dir=$TB_DIR/explain
mkdir -p "$dir"
check "fairway lint finds nothing in the testbed's slurm.conf" "$cli" lint "$SLURM_CONF"
check "fairway snapshot (version 2)" "$cli" snapshot -o "$dir/snap.json"
# lint of the live queue finds what lint of the snapshot just taken finds.
lint_live=$("$cli" lint --live "$SLURM_CONF" 2>&1; echo "exit $?")
assert_eq "fairway lint --live = fairway lint --snapshot of the same queue" \
	"$("$cli" lint --snapshot "$dir/snap.json" "$SLURM_CONF" 2>&1; echo "exit $?")" "$lint_live"
assert_match "fairway lint --live read the queue" '^exit [01]$' "$(echo "$lint_live" | tail -n 1)"
assert_eq "the snapshot is version 2" 2 \
	"$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["fairway_snapshot"])' "$dir/snap.json")"
sprio -h -o '%i|%r|%Y|%A|%F|%J|%P|%Q|%N' | tr -d ' ' | sort -n >"$dir/sprio"
squeue -h -t PD -p hold --sort=-p,V,i -o '%i %Q' | awk '$2 > 0 { print $1 }' >"$dir/order"
jobs=$(cut -d'|' -f1 "$dir/sprio" | sort -un)
n=$(echo "$jobs" | wc -w)
assert_ne "pending jobs weighed" 0 "$n"
log "$n pending jobs; scheduling order: $(tr '\n' ' ' <"$dir/order")"

bad_factors="" bad_place="" bad_ahead="" bad_offline="" bad_prio="" bad_compare=""
declare -A separated=()
prev=""
while read -r j; do
	"$cli" explain -P "$j" >"$dir/$j.P" 2>"$dir/$j.err" || { bad_factors+=" $j(exit)"; continue; }
	# Factors: sprio's columns from explain's rows (weighted, rounded as sprio prints them).
	awk -F'|' -v j="$j" '
		/^Factor\|/ { in_f = 1; next } /^Partition\|/ { in_f = 0 }
		in_f { v[$2 "," $1] = $3; parts[$2] = 1 }
		END { for (p in parts) printf "%s|%s|%.0f|%.0f|%.0f|%.0f|%.0f|%.0f\n", j, p,
			v[p ",age"], v[p ",fairshare"], v[p ",jobsize"], v[p ",partition"], v[p ",qos"],
			0 - v[p ",nice"] }' "$dir/$j.P" >"$dir/$j.factors"
	awk -F'|' -v j="$j" '$1 == j { print $1 "|" $2 "|" $4 "|" $5 "|" $6 "|" $7 "|" $8 "|" $9 }' \
		"$dir/sprio" >"$dir/$j.sprio"
	cmp -s "$dir/$j.factors" "$dir/$j.sprio" || bad_factors+=" $j"
	row=$(awk -F'|' '/^Partition\|/ { f = 1; next } /^Level\|/ { f = 0 } f && $1 == "hold"' "$dir/$j.P")
	prio=$(echo "$row" | cut -d'|' -f3)
	[ "$prio" = "$(squeue -h -j "$j" -o %Q)" ] || bad_prio+=" $j($prio)"
	pos=$(echo "$row" | cut -d'|' -f4)
	want=$(grep -nx "$j" "$dir/order" | cut -d: -f1)
	[ "$pos" = "$want" ] || bad_place+=" $j($pos!=$want)"
	ahead=$(echo "$row" | cut -d'|' -f6)
	[ "$ahead" = "$prev" ] || bad_ahead+=" $j($ahead!=$prev)"
	if [ -n "$prev" ]; then
		sep=$(echo "$row" | cut -d'|' -f7)
		separated[$sep]=$(( ${separated[$sep]:-0} + 1 ))
		# compare: the job before it is ahead, at the places of the order, with squeue's
		# priorities, separated as explain says.
		"$cli" compare --json "$j" "$prev" >"$dir/$j.cmp" 2>&1 || true
		python3 - "$dir/$j.cmp" "$prev" "$pos" "$prio" "$(squeue -h -j "$prev" -o %Q)" "$sep" <<-'PY' || bad_compare+=" $j"
			import json, sys
			c = json.load(open(sys.argv[1]))
			prev, pos, prio, prev_prio, sep = sys.argv[2:]
			p = [x for x in c["places"] if x["partition"] == "hold"][0]
			assert p["first"] == int(prev), p
			assert p["position_a"] == int(pos) and p["position_b"] == int(pos) - 1, p
			assert p["priority_a"] == int(prio) and p["priority_b"] == int(prev_prio), p
			assert p["separated_by"] == sep, (p["separated_by"], sep)
			f = c["fair_share"]
			if not f["same_association"]:
			    assert f["ancestor"], f
			    assert (f["fs_factor_a"] >= f["fs_factor_b"]) if f["a_ranks_first"] else (f["fs_factor_a"] <= f["fs_factor_b"]), f
		PY
	fi
	"$cli" explain -P --snapshot "$dir/snap.json" "$j" >"$dir/$j.offline" 2>&1 || true
	cmp -s "$dir/$j.P" "$dir/$j.offline" || bad_offline+=" $j"
	prev=$j
done <"$dir/order"
assert_eq "explain's factors = sprio's, every pending job" "" "$bad_factors"
assert_eq "explain's priority = squeue's, every pending job" "" "$bad_prio"
assert_eq "explain's place = the scheduler's order (squeue --sort=-p,V,i)" "" "$bad_place"
assert_eq "explain's job directly ahead = the one before it in that order" "" "$bad_ahead"
assert_eq "explain of the snapshot = explain of the live cluster" "" "$bad_offline"
assert_eq "compare of each job with the one before it agrees with the order and explain" "" "$bad_compare"

# weights: the hold partition's neighbour pairs, tallied by what separates them, are the ones
# explain named job by job.
"$cli" weights -P >"$dir/weights.P"
want_tally="" got_tally=""
for k in $(printf '%s\n' "${!separated[@]}" | sort); do want_tally+="$k=${separated[$k]} "; done
got_tally=$(awk -F'|' '$1 == "hold" && $5 > 0 { print $4 "=" $5 }' "$dir/weights.P" | sort | tr '\n' ' ')
assert_eq "weights' decisions = explain's separations, partition hold" "$want_tally" "$got_tally"
assert_eq "weights counts the hold partition's jobs" "$(wc -l <"$dir/order")" \
	"$(awk -F'|' '$1 == "hold" { print $2; exit }' "$dir/weights.P")"
"$cli" weights >"$dir/weights.txt"
log "fairway weights:"
sed 's/^/    /' "$dir/weights.txt"
assert_match "weights says which factor makes the gaps between associations" \
	"makes [0-9]+% of the priority gaps between neighbours of different|No two neighbours of different associations" \
	"$(tr '\n' ' ' <"$dir/weights.txt" | tr -s ' ')"
cmp_out=$("$cli" compare "$(tail -n 1 "$dir/order")" "$(head -n 1 "$dir/order")" 2>&1 || true)
log "fairway compare $(tail -n 1 "$dir/order") $(head -n 1 "$dir/order"):"
echo "$cmp_out" | sed 's/^/    /'
assert_match "compare says which job is ahead" "In partition hold, job $(head -n 1 "$dir/order") is ahead" "$cmp_out"

last=$(tail -n 1 "$dir/order")
"$cli" explain "$last" >"$dir/last.txt" 2>&1 || true
log "fairway explain $last:"
sed 's/^/    /' "$dir/last.txt"
assert_match "explain names the job directly ahead" "Directly ahead: job $(tail -n 2 "$dir/order" | head -n 1) " "$(cat "$dir/last.txt")"
assert_match "explain shows the fair-share path" "Fair-share \(Fair Tree\), from the root" "$(cat "$dir/last.txt")"
assert_match "explain opens with the job's place and what it waits for" \
	"^It is [0-9]+(st|nd|rd|th) of [0-9]+ pending jobs? in partition hold\. " "$(sed -n 2p "$dir/last.txt")"
check "explain --json is JSON" python3 -c 'import json,sys; json.load(sys.stdin)' < <("$cli" explain --json "$last")
out=$("$cli" explain "$held" 2>&1 || true)
assert_match "a held job is explained as held" "held \(priority 0\)" "$out"
set +e
out=$("$cli" explain 999999 2>&1); rc=$?
set -e
assert_eq "a job that slurmctld does not have: exit 1" 1 "$rc"
assert_eq "... saying so" "fairway: no job 999999" "$out"
assert_eq "... with one line" 1 "$(echo "$out" | wc -l)"
out=$("$cli" explain --user fw_u1 --account bloggs.prj 2>&1 || true)
assert_match "explain --user: the usage that halves the factor" "Usage that would halve it|Any usage at all" "$out"
out=$("$cli" explain --account bloggs.prj 2>&1 || true)
assert_match "explain --account: the highest factor among its users" \
	"fair-share factor is [0-9.]+, the highest among its users'|no fair-share factor of its own" "$out"
finish
