#!/usr/bin/env bash
# The README's first command, as a new user runs it: scripts/demo installs what is missing,
# builds, starts a cluster with priority/fairway, runs its workload and prints squeue,
# sprio, sshare and the fairway CLI.  Checked here: it succeeds, the queued jobs got their
# priorities from priority/fairway (sprio lists them, the held job stays at 0, the others
# are above 1), the job that fills the cluster is an example user's, sshare and `fairway
# shares` show the example tree, the closing summary names the waiting job with the
# highest priority, no terminal escape codes reach a file, and the demo's cluster is gone
# afterwards.
# Environment: FAIRWAY_BUILD_DIR (scripts/check sets it: the demo then reuses that build).
set -euo pipefail
# shellcheck source=test/integration/lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"

out="" && tmpfile out
log "running scripts/demo (about 2.5 minutes: a workload, then one calculation period)"
if "$FW_ROOT/scripts/demo" >"$out" 2>&1; then
	pass "scripts/demo exits 0"
else
	fail "scripts/demo exits 0" "$(tail -n 20 "$out")"
fi
# The text between two "== TITLE" headers of the demo's output.
section() { awk -v t="$1" '/^.*== / { on = (index($0, t) > 0); next } on' "$out"; }

assert_ne "slurmctld's log: priority/fairway loaded" 0 \
	"$(grep -c 'priority/fairway: Priority FAIRWAY plugin .* loaded' "$out" || true)"

sq=$(section "squeue (PRIORITY set by priority/fairway)")
pending=$(awk '$5 == "PENDING" && $7 > 1' <<<"$sq" | wc -l)
assert_eq "15 queued jobs with a priority above 1" 15 "$pending"
assert_eq "the held job has priority 0" 0 \
	"$(awk '$5 == "PENDING" && $8 ~ /Held/ { print $7 }' <<<"$sq")"
assert_ne "queued jobs have different priorities (fair-share differs)" 1 \
	"$(awk '$5 == "PENDING" && $7 > 1 { print $7 }' <<<"$sq" | sort -u | wc -l)"
assert_eq "the job filling the cluster is fw_u5's, not root's" fw_u5 \
	"$(awk '$5 == "RUNNING" { print $3 }' <<<"$sq" | sort -u)"

sp=$(section "sprio -l")
assert_eq "sprio -l lists the 15 weighed jobs" 15 \
	"$(awk '$1 ~ /^[0-9]+$/' <<<"$sp" | wc -l)"

ss=$(section "sshare -a -l")
assert_match "sshare shows the example tree" "bloggs\.prj\.high +fw_u1 +parent" "$ss"
fs=$(section "fairway snapshot + fairway shares")
assert_match "fairway shares prints the same tree offline" "chem\.theory" "$fs"
# The highest priority (ties: the lowest job id, as squeue --sort=-p,i orders them).
first=$(awk '$5 == "PENDING" && $7 > 0 { print $7, $1 }' <<<"$sq" | sort -k1,1nr -k2,2n |
	awk 'NR == 1 { print $2 }')
assert_match "the summary names the waiting job with the highest priority ($first)" \
	"job $first of fw_u[0-9] \(account [a-z.]+\) has the" "$(section "What priority/fairway did")"
wt=$(section "fairway weights")
assert_match "fairway weights says which factor decides the queue's order" \
	"makes [0-9]+% of the priority gaps between|No two neighbours of different" "$wt"
ex=$(section "fairway explain ")
assert_match "the demo ends with fairway explain of its last waiting job" \
	"it is [0-9]+(st|nd|rd|th) of [0-9]+ pending jobs" "$ex"
assert_match "... naming the job directly ahead" "Directly ahead: job [0-9]+ " "$ex"
assert_eq "no terminal escape codes in the demo's output to a file" 0 \
	"$(grep -c $'\033' "$out" || true)"

dir=$(sed -n 's/.*PriorityType=priority\/fairway in \(\/[^ ]*\).*/\1/p' "$out" | head -n 1)
assert_ne "the demo said where its cluster ran" "" "$dir"
if [ -n "$dir" ]; then
	assert_eq "no process of the demo's cluster is left" "" \
		"$(pgrep -f -- "$dir" || true)"
	check "the demo removed its directory" test ! -e "$dir"
fi

finish
