#!/usr/bin/env bash
# shellcheck disable=SC2317  # (helper functions are called through wait_for)
# The switch a site makes: the same cluster, the same usage and the same pending jobs under
# priority/multifactor, then priority/fairway, then multifactor again.  `sshare -a -l -P`,
# `sprio -l` and the priorities in squeue must be identical, and RawUsage must not change.
#
# To make the three captures comparable without timing noise, usage does not decay
# (PriorityDecayHalfLife=0), the age weight is 0 (age grows between captures), no job runs
# while the captures are taken (the queued jobs wait in partitions that are DOWN in
# slurm.conf, so they stay pending across restarts), and
# each capture follows a slurmctld restart: both plugins run a full calculation period when
# they start, so the captures never wait for PriorityCalcPeriod.  A last pair of captures
# turns the age weight on and bounds the difference the seconds between two periods make.
#
# Environment: FAIRWAY_PLUGIN_DIR, the directory holding priority_fairway.so (required);
# FAIRWAY_BUILD_DIR, the build whose tools/fairway replays a snapshot of the live tree.
set -euo pipefail
# shellcheck source=test/integration/lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"

require_fairway_plugin
# slurmctld inherits this: Fairway weighs the queue in two threads from the second pending
# job on (priority_fairway(8)), so the live comparison covers the parallel pass too.
export FAIRWAY_WEIGH_THREADS=2 FAIRWAY_PARALLEL_MIN_JOBS=2

extra="" && tmpfile extra
{
	echo "$FROZEN_PRIORITY_CONF"
	cat <<'EOF'
PriorityWeightQOS=1000
PartitionName=hold2 Nodes=ALL State=DOWN PriorityJobFactor=5
SlurmctldDebug=verbose
DebugFlags=Priority
EOF
} >"$extra"
tb_start --priority-type priority/multifactor --plugin-dir "$FAIRWAY_PLUGIN_DIR" --conf-extra "$extra"
# shellcheck disable=SC1091
. "$TB_DIR/etc/testbed.env"
check "example accounts" "$EXAMPLE_ACCOUNTS" "$TB_DIR"


# Usage: short jobs of several users; each is charged when it ends (priority_p_job_end).
submit fw_u1 bloggs.prj -n8 -t 2 --wrap 'sleep 6' >/dev/null
submit fw_u1 bloggs.prj -n8 -t 2 --wrap 'sleep 6' >/dev/null
submit fw_u2 bloggs.prj.low -n3 -t 2 --wrap 'sleep 4' >/dev/null
submit fw_u3 chem.theory -n16 -t 2 --wrap 'sleep 8' >/dev/null
submit fw_u5 chem.lab -n1 -t 2 --wrap 'sleep 3' >/dev/null
submit fw_u6 chem.lab -N2 -n5 -t 2 --wrap 'sleep 5' >/dev/null
usage_jobs_finished

# Pending jobs that stay pending: their partitions are down (one job in two partitions
# gets one priority per partition).
submit_per_example_account -p hold -n1 -t 5
submit_per_example_account -p hold2 -N3 -n24 -t 5
submit fw_u4 chem.theory -p hold -n2 -t 5 --nice=300 --wrap 'sleep 1' >/dev/null
submit fw_u6 chem.lab -p hold,hold2 -n4 -t 5 --wrap 'sleep 1' >/dev/null
held=$(submit fw_u5 chem.lab -p hold -n1 -t 5 -H --wrap 'sleep 1')

# Switch plugins with a restart, wait until the first calculation period has run.
switch_to() { # priority type
	"$TESTBED" restart-ctld "$TB_DIR" --priority-type "$1" >/dev/null
	sprio_ready() { [ "$(sprio -h -o '%i' 2>/dev/null | wc -l)" -ge 19 ]; }
	if ! wait_for 30 sprio_ready; then
		fail "sprio lists the pending jobs under $1" "$(sprio -h 2>&1 | wc -l) lines"
	fi
	sleep 3	# the period runs right after the thread starts; let it finish
}
# sshare --json (23.02 on) needs the JSON serializer plugin, which distributions build
# (json-c): the shares without the reply's meta data, to compare between the plugins.
json_shares() { # file
	sshare -a -l --json 2>"$1.err" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(json.dumps(d["shares"], sort_keys=True, indent=1))' >"$1" 2>>"$1.err" || true
}
has_json=0
sshare --help 2>&1 | grep -q -- --json && has_json=1
capture() { # file-prefix
	sshare -a -l -P >"$1.sshare"
	[ "$has_json" -eq 0 ] || json_shares "$1.sshare_json"
	sprio -l -h | sort -n >"$1.sprio"
	sprio -w -h >"$1.sprio_w"
	sprio -n -l -h | sort -n >"$1.sprio_n"
	squeue -h -o '%i %Q %u %a' | sort -n >"$1.squeue"
}
dir=$TB_DIR/parity
mkdir -p "$dir"
same() { # name file-a file-b
	if diff -u "$2" "$3" >"$dir/diff.out"; then
		pass "$1"
	else
		fail "$1" "$(head -c 1500 "$dir/diff.out")"
	fi
}

switch_to priority/multifactor
capture "$dir/mf1"
switch_to priority/fairway
assert_eq "priority/fairway in use" priority/fairway \
	"$(scontrol show config | awk -F' = ' '/^PriorityType /{print $2}')"
capture "$dir/fw"
# The administrator's offline view: a snapshot of the live tree replayed by 'fairway
# shares' prints what sshare prints (every column but the TRES ones, which a snapshot does
# not hold).
cli=${FAIRWAY_BUILD_DIR:-}/tools/fairway
if [ -x "$cli" ]; then
	check "fairway snapshot of the live cluster" "$cli" snapshot -o "$dir/live.json"
	"$cli" shares -P "$dir/live.json" >"$dir/replay.sshare" || true
	cut -d'|' -f1-9 "$dir/fw.sshare" >"$dir/fw.sshare9"
	cut -d'|' -f1-9 "$dir/replay.sshare" >"$dir/replay.sshare9"
	same "fairway shares of the snapshot = live sshare -a -l -P" "$dir/fw.sshare9" "$dir/replay.sshare9"
else
	fail "fairway CLI" "FAIRWAY_BUILD_DIR must hold a build with tools/fairway (got '${FAIRWAY_BUILD_DIR:-}'); scripts/check sets it"
fi
assert_ne "fairway weighed the queue in two threads (slurmctld.log)" 0 \
	"$(grep -c 'priority/fairway: weighed [0-9]* jobs in 2 threads' "$TB_DIR/log/slurmctld.log" || true)"
switch_to priority/multifactor
capture "$dir/mf2"

log "multifactor sshare:"
sed 's/^/    /' "$dir/mf1.sshare"
log "multifactor sprio:"
sed 's/^/    /' "$dir/mf1.sprio"

nonempty() { [ -s "$1" ] && [ "$(wc -l <"$1")" -gt 1 ]; }
check "sshare captured" nonempty "$dir/mf1.sshare"
check "sprio captured" nonempty "$dir/mf1.sprio"
# The capture is worth something only if fair-share differs between users.
assert_ne "fair-share factors differ between users" 1 \
	"$(awk -F'|' 'NR > 1 && $2 != "" { print $8 }' "$dir/mf1.sshare" | sort -u | wc -l)"
same "sshare -a -l: multifactor = fairway" "$dir/mf1.sshare" "$dir/fw.sshare"
same "sprio -l: multifactor = fairway" "$dir/mf1.sprio" "$dir/fw.sprio"
same "squeue priorities: multifactor = fairway" "$dir/mf1.squeue" "$dir/fw.squeue"
same "sprio -w (weights): multifactor = fairway" "$dir/mf1.sprio_w" "$dir/fw.sprio_w"
same "sprio -n -l (normalized factors): multifactor = fairway" "$dir/mf1.sprio_n" "$dir/fw.sprio_n"
check "sprio -n captured" nonempty "$dir/mf1.sprio_n"
if [ "$has_json" -eq 1 ]; then
	check "sshare --json answers (the JSON serializer is installed)" nonempty "$dir/mf1.sshare_json"
	[ -s "$dir/mf1.sshare_json" ] || log "sshare --json: $(head -c 300 "$dir/mf1.sshare_json.err")"
	same "sshare -a -l --json: multifactor = fairway" "$dir/mf1.sshare_json" "$dir/fw.sshare_json"
	check "scontrol show nodes --json answers" sh -c 'scontrol show nodes --json | python3 -c "import json, sys; assert json.load(sys.stdin)[\"nodes\"]"'
fi
same "sshare after switching back to multifactor" "$dir/mf1.sshare" "$dir/mf2.sshare"
same "sprio after switching back to multifactor" "$dir/mf1.sprio" "$dir/mf2.sprio"
assert_eq "held job keeps priority 0 under fairway" 0 \
	"$(awk -v j="$held" '$1 == j { print $2 }' "$dir/fw.squeue")"

# Age: a time-dependent difference, explained and bounded.  Each plugin weighs the queue
# in its first period after its restart, some seconds after the other, and a pending job's
# age grows meanwhile: with PriorityWeightAge=W and PriorityMaxAge=M seconds, by at most
# W x (seconds between the two periods) / M.  Every other factor must stay identical.
# Jobs in a DOWN partition accrue no age (slurmctld clears their accrue time when it
# restarts), so three more jobs wait in the default partition while every node is drained:
# eligible, accruing, never started.
sed -i 's/^PriorityWeightAge=.*/PriorityWeightAge=100000/' "$TB_DIR/etc/slurm.conf"
printf 'PriorityMaxAge=1-0\n' >>"$TB_DIR/etc/slurm.conf"
"$TESTBED" restart-ctld "$TB_DIR" >/dev/null
check "drain every node" scontrol update nodename=ALL state=drain reason=fairway-parity
for ua in fw_u1:bloggs.prj fw_u3:chem.theory fw_u5:chem.lab; do
	submit "${ua%%:*}" "${ua#*:}" -n1 -t 5 --wrap 'sleep 1' >/dev/null
done
sleep 5
age_capture() { sprio -h -o '%i|%r|%Y|%A|%F|%J|%P|%Q|%N' | tr -d ' ' | sort >"$1"; }
t0=$(date +%s)
switch_to priority/fairway
age_capture "$dir/fw_age.sprio"
switch_to priority/multifactor
age_capture "$dir/mf_age.sprio"
t1=$(date +%s)
bound=$(( (100000 * (t1 - t0) + 86399) / 86400 + 1 ))
log "age bound: $bound (periods at most $((t1 - t0)) s apart)"
check "sprio with age captured" nonempty "$dir/mf_age.sprio"
assert_ne "pending jobs have a nonzero age factor" 0 \
	"$(awk -F'|' '$4 > 0' "$dir/fw_age.sprio" | wc -l)"
age_diff=$(join -t'|' -j1 <(awk -F'|' '{ print $1 "/" $2 "|" $0 }' "$dir/fw_age.sprio") \
	<(awk -F'|' '{ print $1 "/" $2 "|" $0 }' "$dir/mf_age.sprio") |
	awk -F'|' -v b="$bound" '
	{	# fields: key, then fairway 2-10, then multifactor 11-19
		for (i = 6; i <= 10; i++) if ($i != $(i + 9)) { print "job " $1 ": factor " i - 1 " " $i " vs " $(i + 9); next }
		da = $5 - $14; dp = $4 - $13
		if (da < 0) da = -da
		if (dp < 0) dp = -dp
		if (da > b || dp > b + 1) print "job " $1 ": age " $5 " vs " $14 ", priority " $4 " vs " $13 " (bound " b ")"
		n++
	}
	END { if (n < 19) print "only " n " jobs compared" }')
assert_eq "with age: every factor identical, age and priority within the bound" "" "$age_diff"
check "slurmctld still answers" scontrol ping

finish
