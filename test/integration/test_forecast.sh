#!/usr/bin/env bash
# The forecast of when a pending job starts, end to end on a live cluster: the short run of
# bench/forecast-experiment (its own testbed: slurmctld with sched/backfill, slurmdbd, four
# slurmd; two partitions; a load of bursts from three accounts) under priority/fairway with
# fairway_metrics_dir and fairway_history_days.  The plugin journals where each job was first
# seen, builds the model from the starts and publishes fairway_forecast.json and the forecast
# metrics; `fairway forecast -P` records every pending job's forecast each period with
# backfill's planned start; `fairway explain` gives a user the paragraph; the report matches
# the forecasts with the starts (bench/forecast_report.py --check: the whole path, each
# estimate inside its interval); then, on the same cluster, the line of debug stops and a real
# Prometheus fires FairwayForecastOverdue for it (forecast_line_stopped.sh).  The calibration
# is `make forecast-experiment`'s, in doc/forecast.md: a run this short measures none (its
# first model holds only the quick starts).
# Environment: FAIRWAY_PLUGIN_DIR (required), FAIRWAY_BUILD_DIR (its tools/fairway).
set -euo pipefail
# shellcheck source=test/integration/lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"

require_fairway_plugin
cli=${FAIRWAY_BUILD_DIR:-}/tools/fairway
[ -x "$cli" ] || { fail "fairway CLI" "FAIRWAY_BUILD_DIR must hold a build with tools/fairway"; finish; }
out=$(mktemp -d "${TMPDIR:-/tmp}/fw-forecast-test.XXXXXX")
_forecast_out=$out
trap 'rc=$?; rm -rf "$_forecast_out"; (exit $rc); _cleanup' EXIT

top=$(cd "$(dirname "$0")/../.." && pwd)
# The experiment's testbed runs the release under test (FAIRWAY_SLURM_PREFIX), as tb_start's.
[ -z "${FAIRWAY_SLURM_PREFIX:-}" ] || export TESTBED_SLURM_PREFIX=$FAIRWAY_SLURM_PREFIX
log "the short forecast experiment (about 7 minutes)"
# After the load, on the same cluster: a stopped line and FairwayForecastOverdue
# (forecast_line_stopped.sh; its results are counted below, its failure does not stop the run).
then_cmd="'$top/test/integration/forecast_line_stopped.sh' >\"\$FORECAST_OUT/line_stopped.out\" 2>&1 || true"
if FAIRWAY_CLI="$cli" FORECAST_SECONDS=360 FORECAST_HORIZON=60 FORECAST_CHECK=1 FORECAST_THEN=$then_cmd \
	"$top/bench/forecast-experiment" "$out" >"$out/run.log" 2>&1; then
	pass "the experiment's whole path: forecasts recorded, starts matched, the table produced"
else
	fail "the experiment's whole path" "$(tail -n 12 "$out/run.log" | tr '\n' ' ')"
fi
assert_match "forecasts with an estimate were matched to starts" '^\| \*\*all\*\* \| [1-9][0-9]* \|' \
	"$(cat "$out/forecast.md" 2>/dev/null)"
assert_match "the report compares backfill's planned start on the same forecasts" \
	'^\| \*\*all\*\* \| [0-9]+ \| [0-9]+ % \| [0-9.]+ min \| [0-9.]+ min \| [1-9][0-9]* \|' \
	"$(cat "$out/forecast.md" 2>/dev/null)"
assert_eq "fairway_forecast.json is mode 0644" 644 \
	"$(python3 -c 'import os,sys; print(oct(os.stat(sys.argv[1]).st_mode & 0o777)[2:])' "$out/fairway_forecast.json" 2>/dev/null || echo missing)"
# The plugin's own files: the model of a partition with enough starts, the journal's samples.
assert_eq "the published model has seconds per place for debug" ok "$(python3 - "$out/fairway_forecast.json" <<'PY' 2>&1
import json, sys
m = json.load(open(sys.argv[1]))
p = {x["name"]: x for x in m["partitions"]}["debug"]
s = p["seconds_per_place"]
assert p["starts"] >= 20 and 0 <= s["p10"] <= s["p50"] <= s["p90"], p
print("ok")
PY
)"
assert_match "the journal of starts says where jobs were first seen" '"seen_place":[1-9]' \
	"$(cat "$out"/starts-*.jsonl 2>/dev/null)"
prom=$(cat "$out/fairway.prom" 2>/dev/null || true)
assert_match "fairway.prom has the forecast at the head of debug's line" \
	'^fairway_partition_forecast_head_seconds\{partition="debug"\} [0-9.e+]+$' "$prom"
assert_match "fairway.prom has the oldest pending job's forecast per association" \
	'^fairway_association_oldest_pending_forecast_seconds\{id="[0-9]+",account="fc_(chem|phys|bio)"' "$prom"
assert_match "fairway.prom has the jobs without a forecast per partition" \
	'^fairway_partition_jobs_without_forecast\{partition="urgent"\} [0-9]+$' "$prom"
check "promtool check metrics passes fairway.prom with the forecast" \
	sh -c "promtool check metrics <'$out/fairway.prom'"
# The stopped line's results, counted here.
if [ -s "$out/line_stopped.out" ]; then
	while IFS= read -r line; do
		case $line in
		"PASS: "*) pass "${line#PASS: }" ;;
		"FAIL: "*) fail "${line#FAIL: }" "(forecast_line_stopped.sh)" ;;
		esac
	done <"$out/line_stopped.out"
else
	fail "the stopped line's checks ran" "no $out/line_stopped.out"
fi
explain=$(tr -s '\n ' '  ' <"$out/explain.txt" 2>/dev/null || true)
assert_match "fairway explain tells a pending job when it may start" \
	'When it may start: most likely within .* 8 in 10 jobs at such a place start between .* Evidence: it is [0-9]+(st|nd|rd|th) of [0-9]+ in (debug|urgent)' \
	"$explain"
finish
