#!/usr/bin/env bash
# shellcheck disable=SC2317  # (helper functions are called through wait_for)
# Every fairway command is right under every fair-share policy option and every PrivateData
# value, on one live cluster with GPUs (two nodes of 8 CPUs and 4 count-only GPUs each), with
# usage history, jobs running (what a held usage basis compares) and jobs pending, GPU and CPU
# jobs among them:
#   * under each of the default, fairway_usage=allocated, fairway_usage=committed,
#     fairway_fairshare_tres=gres/gpu and fairway_decay=exact, for EVERY pending job, the
#     fair-share factor `fairway explain --json` gives (the live cluster, no snapshot) times the
#     weight is sprio's FAIRSHARE, and `fairway compare` of each job with the next gives both
#     jobs' factors as sprio does;
#   * under each of PrivateData=none, jobs, usage, users and accounts, an ordinary user runs
#     every command (explain of their own job, another's, an association; compare; weights;
#     whatif; snapshot; shares; history; plot; forecast; lint --live): each ends with status 0, 1 or 2 and, when not 0,
#     one line on stderr -- never an abort or a signal; a user explains their own job under
#     PrivateData=usage (the factors sprio shows them, and a sentence saying the tree is
#     private), and under PrivateData=jobs the place is said to be among the jobs they can see;
#   * under PrivateData=jobs, sprio shows root every pending job and a user only their own,
#     exactly as under priority/multifactor.
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
	echo "#PriorityParameters="
	echo "#PrivateData=none"
} >"$extra"
tb_start --priority-type priority/fairway --plugin-dir "$FAIRWAY_PLUGIN_DIR" --conf-extra "$extra" \
	--nodes 2 --cpus 8 --gpus 4
# shellcheck disable=SC1091
. "$TB_DIR/etc/testbed.env"
check "example accounts" "$EXAMPLE_ACCOUNTS" "$TB_DIR"
conf=$TB_DIR/etc/slurm.conf
weight=$(sed -n 's/^PriorityWeightFairshare=//p' "$conf" | tail -1)

# Usage history: fw_u1 14 CPUs for 20 s (bloggs), fw_u3 1 CPU and 4 GPUs for 12 s (chem): on
# billing chem ranks first, on GPUs bloggs.
submit fw_u1 bloggs.prj -n14 -t 2 --wrap 'sleep 20' >/dev/null
submit fw_u3 chem.theory -n1 --gres=gpu:4 -t 2 --wrap 'sleep 12' >/dev/null
usage_jobs_finished
# Held usage: one job of chem runs through the test, so that under a held basis bloggs, which
# holds nothing, ranks first (chem's history keeps it first on billing while the test runs).
submit fw_u5 chem.lab -n1 -t 30 --wrap 'sleep 1800' >/dev/null
running() { [ "$(squeue -h -t R -o %i | wc -l)" -eq 1 ]; }
wait_for 30 running || fail "a job runs" "$(squeue -h -o '%i %T %r' | tr '\n' ';')"
# Pending in hold (DOWN): a CPU job per example association, GPU jobs of fw_u1 and fw_u3.
submit_per_example_account -p hold -n1 -t 5
own1=$(submit fw_u1 bloggs.prj -p hold -n1 --gres=gpu:1 -t 5 --wrap 'sleep 1')
other=$(submit fw_u3 chem.theory -p hold -n1 --gres=gpu:1 -t 5 --wrap 'sleep 1')
own2=$(submit fw_u1 bloggs.prj -p hold -n4 -t 5 --wrap 'sleep 1')

state=$TB_DIR/spool/ctld/priority_last_decay_ran
period_ended_after() { [ "$(stat -c %Y "$state" 2>/dev/null || echo 0)" -gt "$1" ]; }
# slurm.conf's NAME=VALUE set (commented out when VALUE is empty: slurm.conf takes no empty
# value), slurmctld restarted, and its first period waited for.
set_conf() { # NAME=VALUE
	if [ -z "${1#*=}" ]; then
		sed -i "s|^#\?${1%%=*}=.*|#$1|" "$conf"
	else
		sed -i "s|^#\?${1%%=*}=.*|$1|" "$conf"
	fi
}
restart_with() { # NAME=VALUE
	local t
	set_conf "$1"
	t=$(date +%s)
	sleep 1
	"$TESTBED" restart-ctld "$TB_DIR" --priority-type priority/fairway >/dev/null
	wait_for 60 period_ended_after "$t" || fail "a period ran under $1" "state file $(stat -c %y "$state" 2>&1)"
	sleep 1
}

# ---------------------------------------------------------------------------------------------
# The fair-share factor of every pending job under each policy.
fs_of_json() { # key < explain/compare JSON -> a factor
	python3 -c '
import json, sys
doc = json.load(sys.stdin)
key = sys.argv[1]
if key == "path":
    path = doc.get("fair_share_path") or []
    print(path[-1]["fs_factor"] if path else "none")
else:
    print(doc["fair_share"][key])' "$1"
}
for policy in "" fairway_usage=allocated fairway_usage=committed fairway_fairshare_tres=gres/gpu \
	fairway_decay=exact; do
	name=${policy:-default}
	restart_with "PriorityParameters=$policy"
	sprio -h -o '%i|%F' | tr -d ' ' | sort -n >"$TB_DIR/sprio"
	jobs=$(cut -d'|' -f1 "$TB_DIR/sprio")
	n=$(echo "$jobs" | wc -w)
	[ "$n" -ge 8 ] || fail "$name: sprio lists the pending jobs" "$n jobs"
	bad="" bad_cmp="" checked=0 prev=""
	for j in $jobs; do
		want=$(awk -F'|' -v j="$j" '$1 == j { print $2 }' "$TB_DIR/sprio")
		got=$("$cli" explain --json "$j" | fs_of_json path) || got="error"
		ok=$(awk -v w="$weight" -v f="$got" -v g="$want" \
			'BEGIN { d = w * f - g; print (f != "none" && f != "error" && d < 1 && d > -1) ? 1 : 0 }')
		[ "$ok" = 1 ] || bad+=" job $j: sprio $want, explain $got x $weight;"
		if [ -n "$prev" ]; then
			out=$("$cli" compare --json "$prev" "$j") || out=""
			a=$(fs_of_json fs_factor_a <<<"$out" 2>/dev/null || echo error)
			b=$(fs_of_json fs_factor_b <<<"$out" 2>/dev/null || echo error)
			wa=$(awk -F'|' -v j="$prev" '$1 == j { print $2 }' "$TB_DIR/sprio")
			ok=$(awk -v w="$weight" -v a="$a" -v b="$b" -v x="$wa" -v y="$want" \
				'BEGIN { d = w * a - x; e = w * b - y; print (a != "error" && d < 1 && d > -1 && e < 1 && e > -1) ? 1 : 0 }')
			[ "$ok" = 1 ] || bad_cmp+=" $prev/$j: sprio $wa/$want, compare $a/$b;"
		fi
		prev=$j
		checked=$((checked + 1))
	done
	log "$name: $checked jobs explained and compared"
	assert_eq "$name: explain's fair-share factor x weight = sprio's FAIRSHARE, every job" "" "$bad"
	assert_eq "$name: compare's two factors = sprio's, every neighbouring pair" "" "$bad_cmp"
	# The GPU policy judged the GPU jobs on their own tree: explain says so.
	[ "$name" != fairway_fairshare_tres=gres/gpu ] ||
		assert_match "$name: explain of a GPU job names the GPU usage that judged it" \
			'from its usage of gres/gpu, the resource the job asks mostly for' \
			"$("$cli" explain "$own1" 2>&1 || true)"
done

# ---------------------------------------------------------------------------------------------
# Every command as an ordinary user under each PrivateData value.
as_user() { runuser -u fw_u1 -- env SLURM_CONF="$SLURM_CONF" "$@"; }
work=$TB_DIR/work/fw_u1
mkdir -p "$work" && chown fw_u1 "$work"
"$cli" snapshot -o "$TB_DIR/root-snapshot.json"
statuses=""
# sprio as root and as three users: root sees every pending job, a user only their own.
sprio_as() { # user -> the job ids sprio shows that user
	runuser -u "$1" -- env SLURM_CONF="$SLURM_CONF" sprio -h -o '%i' 2>/dev/null | tr -d ' ' | sort -n | tr '\n' ' '
}
owned_by() { squeue -h -t PD -u "$1" -o '%i' | sort -n | tr '\n' ' '; }
sprio_visibility() { # label
	assert_eq "$1: root sees every pending job" "$(squeue -h -t PD -o '%i' | sort -n | tr '\n' ' ')" \
		"$(sprio -h -o '%i' | tr -d ' ' | sort -n | tr '\n' ' ')"
	assert_eq "$1: fw_u1 sees only fw_u1's jobs" "$(owned_by fw_u1)" "$(sprio_as fw_u1)"
	assert_eq "$1: fw_u3 sees only fw_u3's jobs" "$(owned_by fw_u3)" "$(sprio_as fw_u3)"
	assert_eq "$1: fw_u6 sees only fw_u6's jobs" "$(owned_by fw_u6)" "$(sprio_as fw_u6)"
}
for private in none jobs usage users accounts; do
	if [ "$private" = none ]; then set_conf PrivateData=; else set_conf "PrivateData=$private"; fi
	scontrol reconfigure
	sleep 1
	bad=""
	while IFS= read -r cmd; do
		[ -n "$cmd" ] || continue
		rc=0
		# shellcheck disable=SC2086
		as_user $cli $cmd >"$TB_DIR/out" 2>"$TB_DIR/err" || rc=$?
		statuses+=" $rc"
		lines=$(wc -l <"$TB_DIR/err")
		# lint's status 1 is its findings, on standard output (doc/fairway.1).
		[ "${cmd%% *}" = lint ] && [ "$rc" = 1 ] && [ "$lines" -eq 0 ] && [ -s "$TB_DIR/out" ] && rc=0
		case "$rc" in
		0) ;;
		1 | 2) [ "$lines" -eq 1 ] && grep -q '^fairway: ' "$TB_DIR/err" ||
			bad+=" [$cmd: status $rc with $lines lines on stderr: $(head -c 200 "$TB_DIR/err" | tr '\n' ' ')]" ;;
		*) bad+=" [$cmd: status $rc: $(head -c 200 "$TB_DIR/err" | tr '\n' ' ')]" ;;
		esac
	done <<EOF
explain $own1
explain --json $own1
explain -P $own1
explain $other
explain 99999
explain --user fw_u1 --account bloggs.prj
explain --user fw_u1 --account bloggs.prj --json
explain --account bloggs
explain --user fw_u3
compare $own1 $own2
compare --json $own1 $own2
compare $own1 $other
weights
weights -P
whatif --weight fairshare=2000
whatif --shares chem=1 --json
snapshot -o $work/snap.json
shares $work/snap.json
shares $TB_DIR/root-snapshot.json
plot tree $work/snap.json -o $work/tree.svg
history --account bloggs
plot history --account bloggs -o $work/history.svg
forecast
forecast -P
forecast --json
lint --live $SLURM_CONF
EOF
	assert_eq "PrivateData=$private: every command as fw_u1 ends with 0, 1 or 2 and one line" "" "$bad"
	case $private in
	usage)
		rc=0
		out=$(as_user "$cli" explain "$own1" 2>&1) || rc=$?
		assert_eq "PrivateData=usage: fw_u1 explains their own job" 0 "$rc"
		assert_match "... with a sentence saying the tree is private" \
			'The association tree is private \(PrivateData=usage\)' "$out"
		assert_match "... and sprio's factors" 'Fair-share|fair-share' "$out" ;;
	jobs)
		assert_match "PrivateData=jobs: the place is among the jobs fw_u1 can see" \
			'pending jobs? you can see' "$(as_user "$cli" explain "$own1" 2>&1 || true)"
		sprio_visibility "priority/fairway" ;;
	esac
done
log "$(wc -w <<<"$statuses") command lines run; statuses seen:$(tr ' ' '\n' <<<"$statuses" | sort -n | uniq -c | awk 'NF == 2 { printf " %s x status %s,", $1, $2 }')"
# sprio under PrivateData=jobs shows each user exactly what priority/multifactor shows them.
set_conf PrivateData=jobs
"$TESTBED" restart-ctld "$TB_DIR" --priority-type priority/multifactor >/dev/null
listed() { [ "$(sprio -h -o '%i' 2>/dev/null | wc -l)" -ge 8 ]; }
wait_for 60 listed || true
sprio_visibility "priority/multifactor (reference)"
finish
