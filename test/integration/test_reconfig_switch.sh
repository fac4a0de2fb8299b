#!/usr/bin/env bash
# shellcheck disable=SC2317  # (helper functions are called through wait_for)
# An administrator changes the fair-share algorithm with `scontrol reconfigure`: adds
# PriorityFlags=NO_FAIR_TREE to slurm.conf (Fair Tree -> classic), then removes it again.
# From the first calculation period after each reconfigure, priority/fairway must show
# what a slurmctld restarted with the new slurm.conf shows: `sshare -a -l -P` (NormShares
# of every user included), `sprio -l` and squeue's priorities.  (Slurm 22.05's
# multifactor keeps the old algorithm's normalized shares until a restart:
# doc/differences.md.)
#
# As in test_parity.sh: no decay, age weight 0 and pending jobs in DOWN partitions, so
# the usage does not move between captures.
#
# Environment: FAIRWAY_PLUGIN_DIR, the directory holding priority_fairway.so (required).
set -euo pipefail
# shellcheck source=test/integration/lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"

tb_start_fairway_no_decay <<<"$FROZEN_PRIORITY_CONF"
conf=$TB_DIR/etc/slurm.conf
state=$TB_DIR/spool/ctld/priority_last_decay_ran

submit fw_u1 bloggs.prj -n8 -t 2 --wrap 'sleep 5' >/dev/null
submit fw_u2 bloggs.prj.low -n3 -t 2 --wrap 'sleep 3' >/dev/null
submit fw_u3 chem.theory -n16 -t 2 --wrap 'sleep 6' >/dev/null
submit fw_u6 chem.lab -N2 -n5 -t 2 --wrap 'sleep 4' >/dev/null
usage_jobs_finished
submit_per_example_account -p hold -n1 -t 5

dir=$TB_DIR/switch
mkdir -p "$dir"
capture() { # file-prefix
	sshare -a -l -P >"$1.sshare"
	sprio -l -h | sort -n >"$1.sprio"
	squeue -h -o '%i %Q %u %a' | sort -n >"$1.squeue"
}
same() { # name file-a file-b
	if diff -u "$2" "$3" >"$dir/diff.out"; then pass "$1"; else fail "$1" "$(head -c 1500 "$dir/diff.out")"; fi
}
restart() {
	"$TESTBED" restart-ctld "$TB_DIR" >/dev/null
	sprio_ready() { [ "$(sprio -h -o '%i' 2>/dev/null | wc -l)" -ge 8 ]; }
	wait_for 30 sprio_ready || fail "sprio lists the pending jobs after a restart" "$(sprio -h 2>&1 | wc -l) lines"
	sleep 3	# the first period runs as the thread starts; let it finish
}
# The calculation thread writes priority_last_decay_ran at the end of every period.
period_ended_after() { [ "$(stat -c %Y "$state" 2>/dev/null || echo 0)" -gt "$1" ]; }
reconfigure_and_wait() { # name
	local t
	t=$(date +%s)
	check "scontrol reconfigure ($1)" scontrol reconfigure
	# The first period after it (PriorityCalcPeriod=1: within about a minute).
	if wait_for 90 period_ended_after "$t"; then pass "a period ran after the reconfigure ($1)"; else fail "a period ran after the reconfigure ($1)" "state file $(stat -c %y "$state")"; fi
}
algo_in_log() { grep -c 'fair-share algorithm changed by reconfigure' "$TB_DIR/log/slurmctld.log" || true; }

restart
capture "$dir/fair_tree"

# Fair Tree -> classic
printf 'PriorityFlags=NO_FAIR_TREE\n' >>"$conf"
reconfigure_and_wait "Fair Tree to classic"
capture "$dir/classic_reconf"
assert_eq "the plugin logged the algorithm change once" 1 "$(algo_in_log)"
restart
capture "$dir/classic_restart"
# The comparison proves something only if classic's values differ from Fair Tree's.
assert_ne "classic's sshare differs from Fair Tree's" "$(cat "$dir/fair_tree.sshare")" \
	"$(cat "$dir/classic_restart.sshare")"
same "sshare -a -l after reconfigure to classic = after a restart" \
	"$dir/classic_restart.sshare" "$dir/classic_reconf.sshare"
same "sprio -l after reconfigure to classic = after a restart" \
	"$dir/classic_restart.sprio" "$dir/classic_reconf.sprio"
same "squeue priorities after reconfigure to classic = after a restart" \
	"$dir/classic_restart.squeue" "$dir/classic_reconf.squeue"

# classic -> Fair Tree
sed -i '/^PriorityFlags=NO_FAIR_TREE$/d' "$conf"
reconfigure_and_wait "classic to Fair Tree"
capture "$dir/fair_tree_reconf"
restart
capture "$dir/fair_tree_restart"
same "sshare -a -l after reconfigure to Fair Tree = after a restart" \
	"$dir/fair_tree_restart.sshare" "$dir/fair_tree_reconf.sshare"
same "sprio -l after reconfigure to Fair Tree = after a restart" \
	"$dir/fair_tree_restart.sprio" "$dir/fair_tree_reconf.sprio"
same "squeue priorities after reconfigure to Fair Tree = after a restart" \
	"$dir/fair_tree_restart.squeue" "$dir/fair_tree_reconf.squeue"
same "Fair Tree again: the same as before the switches" \
	"$dir/fair_tree.sshare" "$dir/fair_tree_restart.sshare"
check "slurmctld still answers" scontrol ping

finish
