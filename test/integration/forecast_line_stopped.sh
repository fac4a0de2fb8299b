#!/usr/bin/env bash
# shellcheck disable=SC2317  # (firing_debug is called through wait_for)
# A line that stops, on the live cluster of test_forecast.sh's experiment, run there as its
# FORECAST_THEN (bench/forecast-experiment: the cluster's environment, FORECAST_METRICS_DIR,
# FORECAST_WORK): the partition debug, whose model holds the recent starts, is set DOWN with
# one job pending, and a real node_exporter and Prometheus evaluate the shipped rules (their
# `for:` shortened, quick_rules).  FairwayForecastOverdue must fire for the partitions whose
# oldest pending job waits over twice the forecast for the back of their line, as the scraped
# metrics say (debug among them).  test_forecast.sh counts the PASS/FAIL lines printed.
set -euo pipefail
# shellcheck source=test/integration/lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
# shellcheck source=test/integration/prometheus.sh
. "$(dirname "$0")/prometheus.sh"

: "${FORECAST_METRICS_DIR:?run by bench/forecast-experiment (FORECAST_THEN)}"
pdir=$(mktemp -d "${TMPDIR:-/tmp}/fw-it-prometheus.XXXXXX")
trap 'rc=$?; prometheus_stop; rm -rf "$pdir"; (exit $rc); _cleanup' EXIT

# The line of debug stops: its oldest pending job stays, the others go; with none pending,
# one is submitted.  Jobs in a DOWN partition are still weighed each period.
check "partition debug down" scontrol update partitionname=debug state=down
mapfile -t pending < <(squeue -h -t PD -p debug --sort=V -o %i)
if [ "${#pending[@]}" -gt 1 ]; then
	check "the other pending jobs of debug cancelled" scancel "${pending[@]:1}"
elif [ "${#pending[@]}" -eq 0 ]; then
	check "a job pending in debug" sbatch --parsable --uid=fw_e1 -A fc_chem -p debug -n1 -t 5 \
		-D "$FORECAST_WORK" -o /dev/null --wrap 'sleep 1'
fi

node_exporter_start "$FORECAST_METRICS_DIR" "$pdir/node_exporter.log"
quick_rules "$pdir/fairway.rules.yml"
prometheus_start "$pdir" "$pdir/fairway.rules.yml" "$pdir/prometheus.log"
firing_debug() { [[ " $(alerts_in_state FairwayForecastOverdue firing 2>/dev/null) " == *" debug "* ]]; }
t0=$SECONDS
# The next period (a minute) publishes the stopped line; its job then waits past the forecast.
if wait_for 300 firing_debug; then
	pass "Prometheus: FairwayForecastOverdue fires for debug, its line stopped ($((SECONDS - t0)) s)"
else
	fail "Prometheus: FairwayForecastOverdue fires for debug" "firing: '$(alerts_in_state FairwayForecastOverdue firing 2>&1)'; $(grep -E '^fairway_partition_(oldest_pending_seconds|pending_jobs|forecast_seconds_per_place)\{partition="debug"' "$FORECAST_METRICS_DIR/fairway.prom" | tr '\n' ' ')"
fi
# Where it should fire, from the metrics Prometheus holds: oldest > 2 x p90 x pending.
want=$(prometheus_api 'query?query=fairway_partition_oldest_pending_seconds%20%3E%20on(partition)%202%20*%20fairway_partition_forecast_seconds_per_place%7Bpercentile%3D%2290%22%7D%20*%20on(partition)%20group_left%20fairway_partition_pending_jobs' |
	python3 -c 'import json, sys; print(" ".join(sorted(r["metric"]["partition"] for r in json.load(sys.stdin)["data"]["result"])))')
assert_eq "Prometheus: FairwayForecastOverdue fires exactly where the oldest job waits over twice the forecast for the back of the line" \
	"$want" "$(alerts_in_state FairwayForecastOverdue firing 2>&1)"
finish
