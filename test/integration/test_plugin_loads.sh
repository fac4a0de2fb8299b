#!/usr/bin/env bash
# shellcheck disable=SC2317  # (helper functions are called through wait_for)
# Fairway's plugin in a real slurmctld: it loads, computes priorities for pending jobs, and
# a held job gets priority 0.
#
# Environment:
#   FAIRWAY_PLUGIN_DIR      directory holding priority_fairway.so (required for
#                           priority/fairway; the test FAILS, never skips, without it)
#   FAIRWAY_PRIORITY_TYPE   override the plugin under test (default priority/fairway), e.g.
#                           priority/multifactor to check this script against Slurm's own
set -euo pipefail
# shellcheck source=test/integration/lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"

PRIORITY_TYPE=${FAIRWAY_PRIORITY_TYPE:-priority/fairway}
PLUGIN_SO=priority_${PRIORITY_TYPE#priority/}.so
start_opts=(--priority-type "$PRIORITY_TYPE")

if [ -n "${FAIRWAY_PLUGIN_DIR:-}" ]; then
	if [ -f "$FAIRWAY_PLUGIN_DIR/$PLUGIN_SO" ]; then
		pass "plugin found: $FAIRWAY_PLUGIN_DIR/$PLUGIN_SO"
		start_opts+=(--plugin-dir "$FAIRWAY_PLUGIN_DIR")
	elif [ "$PRIORITY_TYPE" = priority/fairway ]; then
		fail "plugin found" "$FAIRWAY_PLUGIN_DIR/$PLUGIN_SO is missing (build it first)"
		finish
	else
		start_opts+=(--plugin-dir "$FAIRWAY_PLUGIN_DIR")
	fi
elif [ "$PRIORITY_TYPE" = priority/fairway ]; then
	fail "plugin found" "FAIRWAY_PLUGIN_DIR is not set (point it at the directory holding priority_fairway.so)"
	finish
fi
log "plugin under test: $PRIORITY_TYPE"

# debug level so that a plugin announcing itself at info, verbose or debug is seen
extra="" && tmpfile extra
echo "SlurmctldDebug=debug" >"$extra"
tb_start "${start_opts[@]}" --conf-extra "$extra"
# shellcheck disable=SC1091
. "$TB_DIR/etc/testbed.env"
CTLD_LOG=$TB_DIR/log/slurmctld.log

# (a) the plugin is loaded and in use
assert_eq "PriorityType in use" "$PRIORITY_TYPE" \
	"$(scontrol show config | awk -F' = ' '/^PriorityType /{print $2}')"
assert_match "slurmctld.log mentions $PRIORITY_TYPE" "$PRIORITY_TYPE" "$(grep -F "$PRIORITY_TYPE" "$CTLD_LOG" || true)"
# (mpi/pmix always fails to load here — no libpmix — so only priority plugins count)
assert_eq "no plugin load failure for priority/*" "" \
	"$(grep -E "Couldn't load specified plugin.*priority/|failed to initialize priority plugin" "$CTLD_LOG" || true)"

assert_eq "--conf-extra replaced, not duplicated" "" \
	"$(grep -F 'specified more than once' "$CTLD_LOG" || true)"

check "example accounts" "$EXAMPLE_ACCOUNTS" "$TB_DIR"

# Fill the whole cluster so that everything submitted afterwards stays pending.
blocker=$(sbatch --parsable -A root -N "$NODES" --exclusive -t 30 -D "$TB_DIR/work" \
	-o /dev/null -J blocker --wrap 'sleep 1200')
blocker_running() { [ "$(squeue -h -j "$blocker" -o %T)" = RUNNING ]; }
if wait_for 20 blocker_running; then pass "blocker job runs"; else fail "blocker job runs" "state $(squeue -h -j "$blocker" -o %T)"; fi

# Pending jobs of several users, accounts and sizes.
submit() { # user account sbatch-options...
	local u=$1 a=$2
	shift 2
	sbatch --parsable --uid="$u" -A "$a" -t 5 -D "$TB_DIR/work" -o /dev/null "$@" --wrap 'sleep 5'
}
pending=()
pending+=("$(submit fw_u1 bloggs.prj -n1)")
pending+=("$(submit fw_u1 bloggs.prj.high -n4)")
pending+=("$(submit fw_u2 bloggs.prj -N2 -n16)")
pending+=("$(submit fw_u2 bloggs.prj.low -n1)")
pending+=("$(submit fw_u3 chem.theory -n8)")
pending+=("$(submit fw_u4 chem.theory -N4 -n32)")
pending+=("$(submit fw_u5 chem.lab -n2)")
pending+=("$(submit fw_u6 chem.lab -N3 -n48)")
held=$(submit fw_u3 chem.theory -n1 -H)
log "pending jobs ${pending[*]}, held job $held"

# (b) pending jobs get nonzero priorities, and not all the same
prio_of() { squeue -h -j "$1" -o %Q 2>/dev/null; }
all_pending() {
	local j
	for j in "${pending[@]}" "$held"; do [ "$(squeue -h -j "$j" -o %T)" = PENDING ] || return 1; done
}
if wait_for 10 all_pending; then pass "jobs stay pending behind the blocker"; else fail "jobs stay pending behind the blocker" "$(squeue -h -o '%i %T %r' | tr '\n' ';')"; fi
prios=()
for j in "${pending[@]}"; do prios+=("$(prio_of "$j")"); done
log "job:priority $(for i in "${!pending[@]}"; do printf '%s:%s ' "${pending[$i]}" "${prios[$i]}"; done)"
zero=""
for i in "${!pending[@]}"; do
	[[ ${prios[$i]} =~ ^[0-9]+$ ]] && [ "${prios[$i]}" -gt 0 ] || zero="$zero ${pending[$i]}=${prios[$i]:-none}"
done
assert_eq "pending jobs have nonzero priorities" "" "$zero"
distinct=$(printf '%s\n' "${prios[@]}" | sort -u | wc -l)
if [ "$distinct" -gt 1 ]; then
	pass "priorities differ ($distinct distinct values)"
else
	fail "priorities differ" "all ${#prios[@]} pending jobs have priority ${prios[0]:-?}"
fi

# (c) a held job has priority 0
assert_eq "held job has priority 0" 0 "$(prio_of "$held")"

# the plugin did not take slurmctld down while doing all that
check "slurmctld still answers" scontrol ping
check "all daemons still up" "$TESTBED" status "$TB_DIR"

finish
