#!/usr/bin/env bash
# shellcheck disable=SC2317  # (helper functions are called through wait_for)
# The files a period publishes with PriorityParameters=fairway_metrics_dir=DIR, on a live
# cluster under priority/fairway:
#   * promtool (Debian's prometheus package) passes fairway.prom; a real node_exporter with
#     its textfile collector on DIR, scraped over HTTP on loopback, serves it, and every
#     association's values there equal sshare -a -l -P's (shares, usage, effective usage,
#     fair-share factor, Level FS);
#   * the pending-queue figures of the hold partition equal squeue's (count, lowest and
#     highest priority);
#   * fairway shares of fairway.json prints what sshare prints;
#   * the modes are 0644 and 0600; the other options in the same line (not Fairway's, unknown,
#     malformed) get one log line each and slurmctld runs;
#   * with fairway_history_days: DIR/fairway_history (0700, files 0600) holds each period, and
#     fairway history --account/--user (its directory found through slurmctld's configuration)
#     gives the last period's raw usage and fair-share factor as sshare shows them;
#   * the directory removed: one log line for the whole episode, priorities unchanged, and the
#     files come back (with a line saying so) once it is there again;
#   * a real Prometheus (Debian's prometheus) scrapes node_exporter and evaluates the rules of
#     packaging/prometheus: each without error, FairwayUserStarved firing for the starved,
#     FairwayAssociationFarBelowShare for the associations far below their share;
#   * fairway_starvation_minutes=1 on the DOWN partition, where no job can start: the users
#     whose jobs have waited a minute with a fair-share factor in the top quarter (from sshare)
#     are the ones starved, each told once in the log and marked 1 in the metrics;
#   * hold brought up, its jobs start: fairway history --job gives each the place and priority
#     it had in the scheduler's order (squeue --sort=-p,V,i) before it started;
#   * fairway_usage=allocated added by reconfigure, two long jobs running: sshare's normalized
#     usage is the share of CPUs held (RawUsage stays historical), fairway_info names the basis,
#     and fairway shares of the period's snapshot prints what sshare prints.
# Environment: FAIRWAY_PLUGIN_DIR (required), FAIRWAY_BUILD_DIR (its tools/fairway).
set -euo pipefail
# shellcheck source=test/integration/lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
# shellcheck source=test/integration/prometheus.sh
. "$(dirname "$0")/prometheus.sh"

require_fairway_plugin
cli=${FAIRWAY_BUILD_DIR:-}/tools/fairway
[ -x "$cli" ] || { fail "fairway CLI" "FAIRWAY_BUILD_DIR must hold a build with tools/fairway"; finish; }
for tool in promtool prometheus-node-exporter; do
	command -v "$tool" >/dev/null || { fail "$tool" "not installed (scripts/install-deps)"; finish; }
done

mdir=$(mktemp -d "${TMPDIR:-/tmp}/fw-it-metrics.XXXXXX")
pdir=""
cleanup_metrics() {
	prometheus_stop
	rm -rf "$mdir" ${pdir:+"$pdir"}
}
trap 'rc=$?; cleanup_metrics; (exit $rc); _cleanup' EXIT

extra="" && tmpfile extra
{
	echo "$FROZEN_PRIORITY_CONF"
	echo "PriorityParameters=fairway_metrics_dir=$mdir,nodecay,fairway_colour=blue,fairway_metrics_dir,fairway_history_days=2,fairway_starvation_minutes=1,fairway_decay=exact"
} >"$extra"
tb_start --priority-type priority/fairway --plugin-dir "$FAIRWAY_PLUGIN_DIR" --conf-extra "$extra"
# shellcheck disable=SC1091
. "$TB_DIR/etc/testbed.env"
check "example accounts" "$EXAMPLE_ACCOUNTS" "$TB_DIR"
ctld_log=$TB_DIR/log/slurmctld.log
state=$TB_DIR/spool/ctld/priority_last_decay_ran

# Usage that makes fair-share differ, then jobs that stay pending (partition hold is DOWN).
submit fw_u1 bloggs.prj -n8 -t 2 --wrap 'sleep 5' >/dev/null
submit fw_u3 chem.theory -n16 -t 2 --wrap 'sleep 6' >/dev/null
usage_jobs_finished
submit_per_example_account -p hold -n1 -t 5
submit fw_u4 chem.theory -p hold -n2 -t 5 --nice=300 --wrap 'sleep 1' >/dev/null
submit fw_u5 chem.lab -p hold -n1 -t 5 -H --wrap 'sleep 1' >/dev/null
# The next period (PriorityCalcPeriod is a minute) weighs them.
published() { grep -q '^fairway_partition_pending_jobs{partition="hold"} [1-9]' "$mdir/fairway.prom" 2>/dev/null; }
if wait_for 90 published; then
	pass "a period published the pending jobs"
else
	fail "a period published the pending jobs" "$(ls -l "$mdir" 2>&1)"
fi
sleep 2

# ---- the options line (read at each start) ----
starts=$(grep -c 'Priority FAIRWAY plugin .* loaded' "$ctld_log")
assert_eq "one line for a word that is not a Fairway option" "$starts" \
	"$(grep -c "'nodecay' is not a Fairway option" "$ctld_log" || true)"
assert_eq "one line for an unknown fairway_ option" "$starts" \
	"$(grep -c "unknown option 'fairway_colour'" "$ctld_log" || true)"
assert_eq "one line for fairway_metrics_dir without a value" "$starts" \
	"$(grep -c "fairway_metrics_dir needs a directory" "$ctld_log" || true)"
check "slurmctld runs with the bad options" scontrol ping
assert_eq "one line per start for fairway_decay=exact" "$starts" \
	"$(grep -c 'usage decays exactly, by 2^(-t/PriorityDecayHalfLife) (fairway_decay=exact)' "$ctld_log" || true)"

# ---- the files ----
assert_eq "fairway.prom is mode 0644" 644 "$(stat -c %a "$mdir/fairway.prom")"
assert_eq "fairway.json is mode 0600" 600 "$(stat -c %a "$mdir/fairway.json")"
# With fairway_history_days the forecast's model too (partitions and figures only: 0644).
assert_eq "fairway_forecast.json is mode 0644" 644 "$(stat -c %a "$mdir/fairway_forecast.json")"
assert_eq "nothing else in the directory" "fairway.json fairway.prom fairway_forecast.json fairway_history" \
	"$(cd "$mdir" && echo *)"
assert_eq "the history directory is mode 0700" 700 "$(stat -c %a "$mdir/fairway_history")"
assert_eq "the history files are mode 0600" "600 600" \
	"$(stat -c %a "$mdir/fairway_history/names" "$mdir"/fairway_history/history-*.fwh | head -2 | tr '\n' ' ' | sed 's/ $//')"
check "promtool check metrics passes fairway.prom" sh -c "promtool check metrics <'$mdir/fairway.prom'"

# ---- node_exporter serves them ----
node_exporter_start "$mdir" "$TB_DIR/log/node_exporter.log"
port=$EXPORTER_PORT
scrape() { python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen("http://127.0.0.1:'"$port"'/metrics", timeout=5).read().decode())' >"$TB_DIR/scrape.txt" 2>/dev/null; }
wait_for 20 scrape || fail "node_exporter answers on 127.0.0.1:$port" "$(tail -3 "$TB_DIR/log/node_exporter.log")"
assert_eq "node_exporter read the file without error" 0 \
	"$(awk '/^node_textfile_scrape_error / { print $2 }' "$TB_DIR/scrape.txt")"
assert_match "fairway_info names the decay mode" '^fairway_info\{(.*,)?decay="exact"(,.*)?\} 1$' \
	"$(grep '^fairway_info{' "$TB_DIR/scrape.txt")"
sshare -a -l -P >"$TB_DIR/sshare.txt"
# Every association of sshare in the scrape, with sshare's values (printed %f: 6 decimals).
cmp_out=$(python3 - "$TB_DIR/scrape.txt" "$TB_DIR/sshare.txt" <<'EOF'
import math, re, sys
samples = {}
pat = re.compile(r'^(fairway_association_[a-z_]+)\{(.*)\} (\S+)$')
for line in open(sys.argv[1]):
    m = pat.match(line.strip())
    if not m:
        continue
    labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(2)))
    key = (labels.get("account", ""), labels.get("user", ""))
    samples.setdefault(key, {})[m.group(1)] = float(m.group(3))
rows = [l.rstrip("\n").split("|") for l in open(sys.argv[2])]
head, rows = rows[0], rows[1:]
col = {n: i for i, n in enumerate(head)}
names = {"NormShares": "shares_normalized", "NormUsage": "usage_normalized",
         "EffectvUsage": "usage_effective", "FairShare": "fairshare_factor", "LevelFS": "level_fs"}
bad, n = [], 0
for r in rows:
    key = (r[col["Account"]].strip(), r[col["User"]])
    got = samples.get(key)
    if got is None:
        bad.append("%s: no samples" % (key,)); continue
    n += 1
    for c, m in names.items():
        if c not in col:
            continue
        want, have = r[col[c]], got.get("fairway_association_" + m)
        if want == "":
            if have is not None: bad.append("%s %s: sshare empty, metric %s" % (key, c, have))
            continue
        if have is None:
            bad.append("%s %s: no sample" % (key, c)); continue
        w = float(want)
        if math.isinf(w) or math.isinf(have):
            if w != have: bad.append("%s %s: %s != %s" % (key, c, want, have))
        elif abs(w - have) > 5.1e-7:
            bad.append("%s %s: sshare %s, metric %.9f" % (key, c, want, have))
    raw = got.get("fairway_association_usage_raw")
    if raw is None or int(raw) != int(r[col["RawUsage"]]):
        bad.append("%s RawUsage: sshare %s, metric %s" % (key, r[col["RawUsage"]], raw))
    if r[col["RawShares"]] not in ("", "parent"):
        if got.get("fairway_association_shares_raw") != float(r[col["RawShares"]]):
            bad.append("%s RawShares: %s != %s" % (key, r[col["RawShares"]], got.get("fairway_association_shares_raw")))
print("%d associations compared" % n)
print("\n".join(bad[:10]) if bad else "OK")
EOF
)
log "$cmp_out"
assert_eq "every association's metrics served by node_exporter = sshare -a -l -P" OK "$(echo "$cmp_out" | tail -n +2)"
assert_eq "all associations of sshare compared" "$(($(wc -l <"$TB_DIR/sshare.txt") - 1)) associations compared" \
	"$(echo "$cmp_out" | head -1)"

# ---- the history ----
"$cli" history --account chem.theory --user fw_u3 -P >"$TB_DIR/history.P" 2>"$TB_DIR/history.err" || true
last=$(tail -1 "$TB_DIR/history.P")
want=$(awk -F'|' '$2 == "fw_u3" && $1 ~ /chem.theory/ { print $5 "|" $8 }' "$TB_DIR/sshare.txt")
have=$(echo "$last" | awk -F'|' '{ printf "%s|%s", $4, $8 }')
assert_eq "fairway history: the last period's raw usage and factor = sshare's" "$want" "$have"
assert_ne "fairway history lists the periods" 0 "$(($(wc -l <"$TB_DIR/history.P") - 1))"
assert_match "fairway history of an account" "^Fair-share of account bloggs \\(association [0-9]+\\): [0-9]+ period" \
	"$("$cli" history --account bloggs 2>&1 | head -1)"

# ---- the pending queue ----
squeue -h -t PD -p hold -o '%Q' | awk '$1 > 0' | sort -n >"$TB_DIR/prios"
metric() { awk -v m="$1" '$1 == m { print $2 }' "$TB_DIR/scrape.txt"; }
assert_eq "pending jobs of hold = squeue's (held jobs not weighed)" "$(wc -l <"$TB_DIR/prios")" \
	"$(metric 'fairway_partition_pending_jobs{partition="hold"}')"
assert_eq "lowest priority in hold = squeue's" "$(head -1 "$TB_DIR/prios")" \
	"$(metric 'fairway_partition_pending_priority{partition="hold",quantile="0"}')"
assert_eq "highest priority in hold = squeue's" "$(tail -1 "$TB_DIR/prios")" \
	"$(metric 'fairway_partition_pending_priority{partition="hold",quantile="1"}')"
assert_match "the period's job-lock time is published" '^[0-9.e-]+$' "$(metric fairway_period_job_lock_seconds)"

# ---- the snapshot ----
# replay_equals_sshare NAME SSHARE-FILE: fairway shares of the period's snapshot prints the
# first nine columns of the live sshare -a -l -P saved in SSHARE-FILE.
replay_equals_sshare() {
	"$cli" shares -P "$mdir/fairway.json" | cut -d'|' -f1-9 >"$2.replay" || true
	cut -d'|' -f1-9 "$2" >"$2.9"
	if cmp -s "$2.9" "$2.replay"; then
		pass "$1"
	else
		fail "$1" "$(diff "$2.9" "$2.replay" | head -12; grep -v '"usage": 0.0' "$mdir/fairway.json" | head -12)"
	fi
}
replay_equals_sshare "fairway shares of fairway.json = live sshare -a -l -P" "$TB_DIR/sshare.txt"

# ---- the directory goes away for two periods, then comes back ----
squeue -h -t PD -o '%i %Q' | sort >"$TB_DIR/prio_before"
rm -rf "$mdir"
t=$(stat -c %Y "$state")
period_ended_after() { [ "$(stat -c %Y "$state" 2>/dev/null || echo 0)" -gt "$1" ]; }
wait_for 90 period_ended_after "$t" || fail "a period ran without the directory" "state file $(stat -c %y "$state")"
t=$(stat -c %Y "$state")
wait_for 90 period_ended_after "$t" || fail "a second period ran without the directory" "state file $(stat -c %y "$state")"
assert_eq "one log line for two periods without the directory" 1 \
	"$(grep -c "fair-share not published to $mdir: cannot create $mdir/fairway.prom.new: No such file or directory" "$ctld_log" || true)"
check "slurmctld runs without the directory" scontrol ping
squeue -h -t PD -o '%i %Q' | sort >"$TB_DIR/prio_after"
if cmp -s "$TB_DIR/prio_before" "$TB_DIR/prio_after"; then
	pass "priorities unchanged without the directory"
else
	fail "priorities unchanged without the directory" "$(diff "$TB_DIR/prio_before" "$TB_DIR/prio_after" | head -5)"
fi
mkdir -p "$mdir"
if wait_for 90 test -s "$mdir/fairway.prom"; then
	pass "the files come back with the directory"
else
	fail "the files come back with the directory" "$(ls -l "$mdir")"
fi
if wait_for 5 grep -q "fair-share published to $mdir again" "$ctld_log"; then
	pass "a log line says the files are written again"
else
	fail "a log line says the files are written again" "$(grep fairway_metrics "$ctld_log" | tail -3)"
fi

# ---- starvation: nobody in hold can start ----
squeue -h -t PD -p hold -o '%u|%a|%Q' | awk -F'|' '$3 > 0 { print $1 "|" $2 }' | sort -u >"$TB_DIR/waiting"
want=$(python3 - "$TB_DIR/sshare.txt" "$TB_DIR/waiting" <<'EOF'
import math, sys
rows = [l.rstrip("\n").split("|") for l in open(sys.argv[1])][1:]
fs = {(r[0].strip(), r[1]): float(r[7]) for r in rows if r[1]}
waiting = [tuple(l.strip().split("|")[::-1]) for l in open(sys.argv[2]) if l.strip()]
f = sorted(fs[w] for w in waiting)
threshold = f[math.ceil(0.75 * len(f)) - 1]
print(" ".join(sorted("%s|%s" % (a, u) for a, u in waiting if fs[(a, u)] >= threshold and fs[(a, u)] > 0)))
EOF
)
told=$(grep -o 'fair-share starvation: user [^ ]* in account [^ ]*' "$ctld_log" |
	awk '{ print $7 "|" $4 }' | sort | tr '\n' ' ' | sed 's/ $//')
assert_ne "some user is starved" "" "$want"
assert_eq "the users told starved (once each) = those waiting with a top-quarter factor" "$want" "$told"
marked=$(awk '/^fairway_association_starved\{/ && $2 == 1' "$mdir/fairway.prom" |
	sed -E 's/.*account="([^"]*)",user="([^"]*)".*/\1|\2/' | sort | tr '\n' ' ' | sed 's/ $//')
assert_eq "the same users marked 1 in fairway_association_starved" "$want" "$marked"

# ---- a real Prometheus scrapes node_exporter and evaluates the shipped rules ----
# Every 2 seconds, in a scratch directory, on a loopback port, the shipped rules with their
# `for:` and the 6-hour window shortened to seconds (quick_rules; promtool tests the file as
# shipped): every rule evaluates without error, the recording rules give samples, and the
# alerts fire where they should: FairwayUserStarved for exactly the starved users, and
# FairwayAssociationFarBelowShare for exactly the associations with a job pending that got
# under a quarter of their share (fw_u1 and fw_u3 used the cluster; the others did not).
pdir=$(mktemp -d "${TMPDIR:-/tmp}/fw-it-prometheus.XXXXXX")
quick_rules "$pdir/fairway.rules.yml"
prometheus_start "$pdir" "$pdir/fairway.rules.yml" "$TB_DIR/log/prometheus.log"
scrape
far_below=$(python3 -c '
import re, sys
ratio, pending = {}, set()
for line in open(sys.argv[1]):
    m = re.match(r"fairway_association_(delivered_entitled_ratio|oldest_pending_seconds)\{(.*)\} (\S+)$", line)
    if not m:
        continue
    labels = dict(re.findall(r"(\w+)=\"([^\"]*)\"", m.group(2)))
    key = labels["account"] + "|" + labels["user"]
    if m.group(1) == "oldest_pending_seconds":
        pending.add(key)
    else:
        ratio[key] = float(m.group(3))
print(" ".join(sorted(k for k in pending if ratio.get(k, float("nan")) < 0.25)))' "$TB_DIR/scrape.txt")
assert_match "some associations with jobs pending got under a quarter of their share" '[a-z]' "$far_below"
firing() { [ "$(alerts_in_state "$1" firing 2>/dev/null)" = "$2" ]; }
if wait_for 60 firing FairwayUserStarved "$want"; then
	pass "Prometheus: FairwayUserStarved fires for the starved users, from node_exporter's scrape"
else
	fail "Prometheus: FairwayUserStarved fires for $want" "firing: '$(alerts_in_state FairwayUserStarved firing 2>&1)'; $(tail -n 3 "$TB_DIR/log/prometheus.log" | tr '\n' ' ')"
fi
if wait_for 60 firing FairwayAssociationFarBelowShare "$far_below"; then
	pass "Prometheus: FairwayAssociationFarBelowShare fires for the associations far below their share"
else
	fail "Prometheus: FairwayAssociationFarBelowShare fires for $far_below" "firing: '$(alerts_in_state FairwayAssociationFarBelowShare firing 2>&1)'"
fi
assert_eq "Prometheus: FairwayForecastOverdue does not fire without a forecast model" "" \
	"$(alerts_in_state FairwayForecastOverdue firing 2>&1)"
rules_ok=$(prometheus_api rules 2>&1 | python3 -c '
import json, sys
g = json.load(sys.stdin)["data"]["groups"]
r = [x for grp in g for x in grp["rules"]]
bad = [x["name"] for x in r if x.get("health") != "ok"]
print("%d rules, not ok: %s" % (len(r), " ".join(bad) or "none"))' 2>&1)
assert_eq "Prometheus loaded the 5 shipped rules and evaluated each without error" "5 rules, not ok: none" "$rules_ok"
recorded=$(prometheus_api 'query?query=count(fairway:association_delivered_entitled_ratio:avg6h)' 2>&1 |
	python3 -c 'import json, sys; r = json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)' 2>&1)
assert_ne "Prometheus recorded the associations' 6-hour delivered/entitled ratio" 0 "$recorded"
kill "$PROMETHEUS_PID" 2>/dev/null || true

# ---- why a job started: hold comes up, every weighed job there starts ----
squeue -h -t PD -p hold --sort=-p,V,i -o '%i %Q' | awk '$2 > 0' >"$TB_DIR/order"
n=$(wc -l <"$TB_DIR/order")
t=$(stat -c %Y "$state")
check "partition hold up" scontrol update partitionname=hold state=up
hold_started() { [ -z "$(squeue -h -t PD -p hold -o '%i %Q' | awk '$2 > 0')" ]; }
wait_for 30 hold_started || fail "the jobs in hold start" "$(squeue -h -p hold -o '%i %T %r' | head -5)"
wait_for 90 period_ended_after "$t" || fail "a period ran after the starts" "state file $(stat -c %y "$state")"
sleep 2
bad="" k=0
while read -r j prio; do
	k=$((k + 1))
	row=$("$cli" history --job "$j" -P 2>&1 | tail -n 1 || true)
	got=$(echo "$row" | awk -F'|' '{ print $7 "|" $9 "|" $10 "|" $11 }')
	[ "$got" = "$prio|$k|$n|0" ] || bad+=" $j($got, want $prio|$k|$n|0)"
done <"$TB_DIR/order"
assert_eq "fairway history --job: every started job's priority, place and passed = the order before" "" "$bad"
assert_match "fairway history --job in words" "^Job [0-9]+ \\(user [^ ]+, account [^ ]+\\) started .* in partition hold" \
	"$("$cli" history --job "$(head -1 "$TB_DIR/order" | cut -d' ' -f1)" 2>&1 | head -1)"

# ---- fairway_usage=allocated: fair-share compares what running jobs hold now ----
# fw_u1 holds 4 CPUs, fw_u3 2 (billing = CPUs here); everyone else holds nothing, whatever
# usage they have.  sshare's RawUsage stays historical; its other columns are computed from
# what is held, and fairway shares of the period's snapshot prints the same.
submit fw_u1 bloggs.prj -n4 -t 10 --wrap 'sleep 600' >/dev/null
submit fw_u3 chem.theory -n2 -t 10 --wrap 'sleep 600' >/dev/null
two_running() { [ "$(squeue -h -t R -u fw_u1,fw_u3 -o %i | wc -l)" -eq 2 ]; }
wait_for 30 two_running || fail "two long jobs run" "$(squeue -h -o '%i %u %T %r' | head -5)"
sed -i 's/^PriorityParameters=.*/&,fairway_usage=allocated/' "$TB_DIR/etc/slurm.conf"
t=$(date +%s)
check "scontrol reconfigure (fairway_usage=allocated)" scontrol reconfigure
wait_for 90 period_ended_after "$t" || fail "a period ran after the reconfigure" "state file $(stat -c %y "$state")"
sleep 2
assert_ne "a log line names fairway_usage=allocated" 0 \
	"$(grep -c 'running jobs hold now with shares (fairway_usage=allocated)' "$ctld_log" || true)"
assert_match "fairway_info names the usage basis" '^fairway_info\{(.*,)?usage="allocated"(,.*)?\} 1$' \
	"$(grep '^fairway_info{' "$mdir/fairway.prom")"
sshare -a -l -P >"$TB_DIR/sshare_held.txt"
assert_eq "fw_u1's NormUsage: 4 of the 6 CPUs held" "0.666667" \
	"$(awk -F'|' '$2 == "fw_u1" && $1 ~ /^ *bloggs\.prj$/ { print $6 }' "$TB_DIR/sshare_held.txt")"
idle_with_usage=$(awk -F'|' 'NR > 1 && $2 != "" && $2 != "fw_u1" && $2 != "fw_u3" && $5 > 0 { n++; if ($6 + 0 != 0) bad++ } END { print n + 0 "|" bad + 0 }' "$TB_DIR/sshare_held.txt")
assert_match "users with RawUsage but nothing running: NormUsage 0" '^[1-9][0-9]*\|0$' "$idle_with_usage"
replay_equals_sshare "fairway_usage=allocated: fairway shares of fairway.json = live sshare -a -l -P" \
	"$TB_DIR/sshare_held.txt"
finish
