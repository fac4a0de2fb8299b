#!/usr/bin/env bash
# Run every test/integration/test_*.sh (or only the ones named: run-all.sh test_parity
# test_kill) one after the other (each starts and stops its own testbed) and add up their
# "N passed, M failed" lines. A test that dies without printing its summary counts as one
# failure. Exit non-zero if anything failed.
#
# Environment is passed through (FAIRWAY_PLUGIN_DIR, FAIRWAY_SLURM_PREFIX, TMPDIR, ...).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd -P)
total_pass=0 total_fail=0 t0=$SECONDS
summary=()

tests=()
if [ $# -gt 0 ]; then
	for n in "$@"; do
		t=$here/${n%.sh}.sh
		[ -f "$t" ] || { echo "run-all.sh: no test $n in $here" >&2; exit 2; }
		tests+=("$t")
	done
else
	tests=("$here"/test_*.sh)
fi

for t in "${tests[@]}"; do
	[ -e "$t" ] || continue
	name=$(basename "$t")
	echo "=== $name"
	ts=$SECONDS
	out=$(mktemp "${TMPDIR:-/tmp}/fw-run-all.XXXXXX")
	bash "$t" 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	last=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$out" | tail -n 1 || true)
	rm -f "$out"
	if [ -n "$last" ]; then
		p=${last%% passed*}
		f=${last#*passed, }
		f=${f%% failed}
	else
		p=0 f=1
	fi
	# a non-zero exit with "0 failed" is still a failure
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	summary+=("$(printf '%-28s %3d passed, %3d failed  (exit %d, %ds)' "$name" "$p" "$f" "$rc" $((SECONDS - ts)))")
done

echo "=== summary ($((SECONDS - t0))s)"
printf '%s\n' "${summary[@]}"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
