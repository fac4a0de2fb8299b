#!/bin/sh
# The Prometheus rules shipped in packaging/prometheus: promtool accepts them and their unit
# tests pass (each alert fires where it should and not before, the recording rules' values).
# Debian's prometheus package has promtool; without it the test is skipped (exit 77).
set -u
dir=${FAIRWAY_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/packaging/prometheus
command -v promtool >/dev/null 2>&1 || { echo "SKIP: promtool not found (Debian: prometheus)"; exit 77; }
pass=0 fail=0
if out=$(promtool check rules "$dir/fairway.rules.yml" 2>&1); then pass=$((pass + 1))
else fail=$((fail + 1)); echo "FAIL: promtool check rules: $out"; fi
if out=$(cd "$dir" && promtool test rules fairway.rules.test.yml 2>&1); then pass=$((pass + 1))
else fail=$((fail + 1)); echo "FAIL: promtool test rules: $out"; fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
