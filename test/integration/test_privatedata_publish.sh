#!/usr/bin/env bash
# shellcheck disable=SC2317  # (helper functions are called through wait_for)
# What Fairway publishes under slurm.conf's PrivateData, read as a user of the cluster
# (fw_u1, through runuser), on one live testbed under priority/fairway with
# fairway_metrics_dir (a directory of mode 0755, as node_exporter's textfile collector needs),
# fairway_history_days and fairway_shadow, after jobs of two users (fw_u1, fw_u3):
#   * fairway_forecast.json (0644) is readable by a user and names no user or account;
#   * PrivateData unset: fairway.prom (0644) has the samples of both users;
#   * PrivateData=usage, =users and =usage,users: fairway.prom has no sample with a user label
#     that is not empty (so no user's usage either), the accounts' samples stay, and each
#     start of slurmctld logs one line saying so;
#   * with fairway_publish_users as well, the users' samples are back;
#   * whatever the value, fairway.json, fairway_shadow.json and the history (a directory of
#     mode 0700, files 0600) are owned by SlurmUser (root here) and fw_u1 cannot read them;
#     `fairway snapshot -o FILE` under umask 022 writes mode 0600;
#   * scontrol reconfigure with the option taken out logs the line again, once.
# Each value is put in slurm.conf and slurmctld restarted (restart-ctld, which keeps the
# jobs): its first period runs at once, where a reconfigure waits for PriorityCalcPeriod.
# Environment: FAIRWAY_PLUGIN_DIR (required), FAIRWAY_BUILD_DIR (its tools/fairway; optional).
set -euo pipefail
# shellcheck source=test/integration/lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"

require_fairway_plugin
cli=${FAIRWAY_BUILD_DIR:-}/tools/fairway

mdir=$(mktemp -d "${TMPDIR:-/tmp}/fw-it-private.XXXXXX")
chmod 0755 "$mdir"
cleanup_private() { rm -rf "$mdir"; }
trap 'rc=$?; cleanup_private; (exit $rc); _cleanup' EXIT

shadow="" && tmpfile shadow
echo "PriorityWeightFairshare=300000" >"$shadow"
chmod 0644 "$shadow"
params="fairway_metrics_dir=$mdir,fairway_history_days=1,fairway_shadow=$shadow"
extra="" && tmpfile extra
{
	echo "$FROZEN_PRIORITY_CONF"
	echo "PriorityParameters=$params"
} >"$extra"
tb_start --priority-type priority/fairway --plugin-dir "$FAIRWAY_PLUGIN_DIR" --conf-extra "$extra"
# shellcheck disable=SC1091
. "$TB_DIR/etc/testbed.env"
check "example accounts" "$EXAMPLE_ACCOUNTS" "$TB_DIR"
conf=$TB_DIR/etc/slurm.conf
ctld_log=$TB_DIR/log/slurmctld.log

# Usage of two users, then a pending job of each (partition hold is DOWN).
submit fw_u1 bloggs.prj -n4 -t 2 --wrap 'sleep 2' >/dev/null
submit fw_u3 chem.theory -n8 -t 2 --wrap 'sleep 3' >/dev/null
usage_jobs_finished
submit fw_u1 bloggs.prj -p hold -n1 -t 5 --wrap 'sleep 1' >/dev/null
submit fw_u3 chem.theory -p hold -n1 -t 5 --wrap 'sleep 1' >/dev/null

as_user() { runuser -u fw_u1 -- "$@"; }
# Lines of FILE with a user label that is not empty.
user_samples() { grep -c '^fairway_[a-z_]*{[^}]*user="[^"]' "$1" || true; }
hidden_lines() { grep -c "PrivateData=[a-z,]*: fairway.prom has the accounts' samples only" "$ctld_log" || true; }

# Put PrivateData=$1 (empty: none) and, with $2 = 1, fairway_publish_users in slurm.conf,
# restart slurmctld and wait for its first period's files.
restart_with() { # private-data publish-users
	sed -i '/^PrivateData=/Id' "$conf"
	[ -z "$1" ] || echo "PrivateData=$1" >>"$conf"
	sed -i "s|^PriorityParameters=.*|PriorityParameters=$params$([ "$2" = 1 ] && echo ,fairway_publish_users)|" "$conf"
	rm -f "$mdir/fairway.prom"
	"$TESTBED" restart-ctld "$TB_DIR" >/dev/null
	if wait_for 30 test -s "$mdir/fairway.prom"; then
		pass "PrivateData='$1' option=$2: a period published"
	else
		fail "PrivateData='$1' option=$2: a period published" "$(find "$mdir" -maxdepth 1 -printf "%f " 2>&1)"
	fi
	# The shadow file is written after fairway.prom.
	wait_for 10 test -s "$mdir/fairway_shadow.json" || true
}

# What fw_u1 can read, and what fairway.prom says of users.
check_files() { # label users-expected(0/1)
	local label=$1 prom=$TB_DIR/prom.txt f
	if as_user cat "$mdir/fairway.prom" >"$prom" 2>/dev/null; then
		pass "$label: fw_u1 reads fairway.prom"
	else
		fail "$label: fw_u1 reads fairway.prom" "$(ls -l "$mdir/fairway.prom" 2>&1)"
	fi
	if [ "$2" = 1 ]; then
		assert_eq "$label: fairway.prom has samples of fw_u1 and fw_u3" "yes yes" \
			"$(grep -q 'user="fw_u1"' "$prom" && echo yes) $(grep -q 'user="fw_u3"' "$prom" && echo yes)"
	else
		assert_eq "$label: fairway.prom has no sample with a user label" 0 "$(user_samples "$prom")"
		assert_eq "$label: fairway.prom names no user" 0 "$(grep -c 'fw_u[0-9]' "$prom" || true)"
	fi
	assert_match "$label: the accounts' usage stays" \
		'^fairway_association_usage_raw\{id="[0-9]+",account="bloggs.prj",user="",parent="[^"]*"\} [0-9]' \
		"$(cat "$prom")"
	for f in fairway.json fairway_shadow.json fairway_history/names; do
		assert_eq "$label: $f is 0600, owned by root" "600 root" "$(stat -c '%a %U' "$mdir/$f" 2>&1)"
		if as_user cat "$mdir/$f" >/dev/null 2>&1; then
			fail "$label: fw_u1 cannot read $f" "it could"
		else
			pass "$label: fw_u1 cannot read $f"
		fi
	done
	assert_eq "$label: the history directory is 0700" 700 "$(stat -c %a "$mdir/fairway_history")"
	# The forecast's model is for every user: partitions and figures, no user or account.
	if as_user cat "$mdir/fairway_forecast.json" >"$TB_DIR/forecast.txt" 2>/dev/null; then
		pass "$label: fw_u1 reads fairway_forecast.json"
	else
		fail "$label: fw_u1 reads fairway_forecast.json" "$(ls -l "$mdir/fairway_forecast.json" 2>&1)"
	fi
	assert_eq "$label: fairway_forecast.json names no user or account" 0 \
		"$(grep -cE 'fw_u[0-9]|bloggs|chem' "$TB_DIR/forecast.txt" || true)"
}

for value in "" usage users usage,users; do
	before=$(hidden_lines)
	restart_with "$value" 0
	if [ -z "$value" ]; then
		check_files "PrivateData unset" 1
		assert_eq "PrivateData unset: no line about it" "$before" "$(hidden_lines)"
	else
		check_files "PrivateData=$value" 0
		assert_eq "PrivateData=$value: one line at the start" 1 "$(($(hidden_lines) - before))"
		assert_eq "PrivateData=$value: the line names it" 1 \
			"$(grep -c "PrivateData=$value: fairway.prom has the accounts' samples only" "$ctld_log" || true)"
	fi
done

restart_with usage,users 1
check_files "PrivateData=usage,users fairway_publish_users" 1
assert_eq "fairway_publish_users: one line saying users are published" 1 \
	"$(grep -c 'PrivateData=usage,users: fairway.prom still has a sample per user (fairway_publish_users)' "$ctld_log" || true)"

# A reconfigure without the option logs the line once.
before=$(hidden_lines)
sed -i "s|^PriorityParameters=.*|PriorityParameters=$params|" "$conf"
check "scontrol reconfigure" scontrol reconfigure
wait_for 10 test "$(hidden_lines)" -gt "$before" || true
sleep 1
assert_eq "scontrol reconfigure: one line" 1 "$(($(hidden_lines) - before))"

# The fairway command's snapshot, written under the usual umask.
if [ -x "$cli" ]; then
	snap=$mdir/cli-snapshot.json
	check "fairway snapshot -o FILE" sh -c "umask 022 && '$cli' snapshot -o '$snap'"
	assert_eq "fairway snapshot -o FILE is 0600" 600 "$(stat -c %a "$snap" 2>&1)"
fi

finish
