# shellcheck shell=bash disable=SC2034,SC2317
# test/integration/lib.sh — shared helpers for the live-Slurm integration tests.
# Source it from a test script:  . "$(dirname "$0")/lib.sh"
#
# It gives:
#   tb_start [testbed start options]   start a testbed in a fresh mktemp dir under
#                                      ${TMPDIR:-/tmp}; sets TB_DIR and exports SLURM_CONF
#                                      (and PATH: the testbed's Slurm first). With
#                                      FAIRWAY_SLURM_PREFIX set, the Slurm installed there
#                                      (scripts/testbed --slurm-prefix), else the system's.
#                                      An EXIT trap stops it and removes the dir, even when
#                                      the test fails or aborts (FW_KEEP_TESTBED=1 keeps it).
#   tb_start_example TYPE < conf       the same with the example accounts (see below);
#   tb_start_fairway_no_decay < conf   priority/fairway, usage that neither decays nor resets
#   usage_exact_after SECONDS JOB ...  every association's RawUsage = what sacct says
#   FROZEN_PRIORITY_CONF               slurm.conf lines under which nothing moves
#   pass NAME / fail NAME WHY           record a result ("PASS: NAME" / "FAIL: NAME: WHY")
#   check NAME CMD...                   pass if CMD succeeds, else fail with its output
#   assert_eq NAME EXPECTED ACTUAL, assert_ne NAME A B, assert_match NAME REGEX TEXT
#   wait_for SECONDS CMD...             poll CMD every 0.2 s until it succeeds (bounded)
#   daemon_pids                         PIDs from the testbed's pid files
#   tmpfile                             mktemp file, removed on exit
#   finish                              print "N passed, M failed" and exit (1 if any failed)
#
# A test that aborts (set -e, a missing tool) still ends with the summary line and a
# non-zero exit: the EXIT trap counts the abort as a failure.

FW_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
TESTBED=$FW_ROOT/scripts/testbed
EXAMPLE_ACCOUNTS=$FW_ROOT/scripts/example-accounts
TEST_NAME=$(basename "$0" .sh)
PASSED=0
FAILED=0
TB_DIR=""
_TMPFILES=()
_MOUNTS=()
_FINISHED=0
_T0=$SECONDS

log() { echo "[$TEST_NAME +$((SECONDS - _T0))s] $*"; }

pass() { PASSED=$((PASSED + 1)); echo "PASS: $1"; }
fail() { FAILED=$((FAILED + 1)); echo "FAIL: $1: ${2:-failed}"; }

check() { # name command...
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then
		pass "$name"
	else
		fail "$name" "'$*' failed: $(head -c 300 <<<"$out" | tr '\n' ' ')"
	fi
}

assert_eq() { # name expected actual
	if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "expected '$2', got '$3'"; fi
}

assert_ne() { # name a b
	if [ "$2" != "$3" ]; then pass "$1"; else fail "$1" "both are '$2'"; fi
}

assert_match() { # name extended-regex text
	if grep -Eq -- "$2" <<<"$3"; then pass "$1"; else fail "$1" "'$(head -c 200 <<<"$3")' does not match /$2/"; fi
}

wait_for() { # seconds command... -> 0 as soon as the command succeeds, 1 on timeout
	local end=$((SECONDS + $1))
	shift
	while ((SECONDS < end)); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	"$@" >/dev/null 2>&1
}

# Temporarily relax -e so a failing command can be inspected by the caller.
try() { set +e; "$@"; local rc=$?; set -e; return $rc; }

_tb_start_reason() { # testbed start's output -> its last lines, on one line
	tail -n 4 "$1" | tr '\n' ' ' | head -c 600
}

tb_start() {
	TB_DIR=$(mktemp -d "${TMPDIR:-/tmp}/fw-it.XXXXXX")
	if [ -n "${FAIRWAY_SLURM_PREFIX:-}" ]; then
		set -- --slurm-prefix "$FAIRWAY_SLURM_PREFIX" "$@"
	fi
	log "starting testbed in $TB_DIR ($*)"
	local t0=$SECONDS out first=""
	# A start that fails is tried once more in a fresh directory, with the first attempt's
	# logs moved beside the second's: several testbeds starting at once on two cores have
	# failed to start (2026-11-28, the release lanes starting together in scripts/check).
	# Either way the reason comes out on the FAIL/NOTE line itself, not only in the logs.
	out=$(mktemp "${TMPDIR:-/tmp}/fw-it-start.XXXXXX")
	if ! "$TESTBED" start "$TB_DIR" "$@" >"$out" 2>&1; then
		cat "$out"
		first=$(_tb_start_reason "$out")
		"$TESTBED" stop "$TB_DIR" >/dev/null 2>&1 || true
		local old=$TB_DIR
		TB_DIR=$(mktemp -d "${TMPDIR:-/tmp}/fw-it.XXXXXX")
		mkdir -p "$TB_DIR/log"
		mv "$old/log" "$TB_DIR/log/first-attempt" 2>/dev/null || true
		rm -rf "$old"
		echo "NOTE: testbed start failed ($first); trying once more in $TB_DIR"
		if ! "$TESTBED" start "$TB_DIR" "$@" >"$out" 2>&1; then
			cat "$out"
			fail "testbed start" "scripts/testbed start $TB_DIR $* failed twice: $(_tb_start_reason "$out"); first: $first (logs: $TB_DIR/log)"
			rm -f "$out"
			finish
		fi
	fi
	cat "$out"
	rm -f "$out"
	eval "$("$TESTBED" env "$TB_DIR")"
	pass "testbed start ($((SECONDS - t0))s)"
}

# The usual start of a test: the testbed with PRIORITY_TYPE and our plugin directory, the
# slurm.conf lines read from standard input added, its environment loaded, and the
# example account tree created.
tb_start_example() { # priority-type < slurm.conf lines
	local extra=""
	tmpfile extra
	cat >"$extra"
	tb_start --priority-type "$1" --plugin-dir "$FAIRWAY_PLUGIN_DIR" --conf-extra "$extra"
	# shellcheck disable=SC1091
	. "$TB_DIR/etc/testbed.env"
	check "example accounts" "$EXAMPLE_ACCOUNTS" "$TB_DIR"
}

# A usage test's start: priority/fairway from FAIRWAY_PLUGIN_DIR (required), usage that
# neither decays nor resets (so that it is exactly AllocCPUS x Elapsed), a calculation
# period every second, and the slurm.conf lines read from standard input.
tb_start_fairway_no_decay() { # < more slurm.conf lines
	local conf=""
	require_fairway_plugin
	tmpfile conf
	{
		printf '%s\n' PriorityDecayHalfLife=0 PriorityUsageResetPeriod=NONE PriorityCalcPeriod=1
		cat
	} >"$conf"
	tb_start_example priority/fairway <"$conf"
}

# slurm.conf lines under which usage and priorities stay still between two captures: no
# decay, no reset, age weight 0; fair-share, job size and partition weighed; a DOWN
# partition "hold" that keeps the jobs submitted to it pending.
FROZEN_PRIORITY_CONF="PriorityDecayHalfLife=0
PriorityUsageResetPeriod=NONE
PriorityWeightAge=0
PriorityWeightFairshare=100000
PriorityWeightJobSize=1000
PriorityWeightPartition=1000
PartitionName=hold Nodes=ALL State=DOWN PriorityJobFactor=2"

tmpfile() { # creates a file removed on exit; its name goes to the variable named by $1
	local f
	f=$(mktemp "${TMPDIR:-/tmp}/fw-it-tmp.XXXXXX")
	_TMPFILES+=("$f")
	printf -v "$1" '%s' "$f"
}

# PIDs of every daemon of the testbed, from its pid files.
daemon_pids() {
	local f
	for f in "$TB_DIR"/run/*.pid; do
		[ -s "$f" ] && tr -dc '0-9\n' <"$f"
	done
}

# A tmpfs of SIZE over DIR, keeping DIR's files (copied in); unmounted on exit.  Fails
# (status 1, nothing changed) where mounting is not permitted.
mount_tmpfs_over() { # dir size
	local keep
	keep=$(mktemp -d "${TMPDIR:-/tmp}/fw-it-keep.XXXXXX")
	cp -a "$1/." "$keep/"
	if ! mount -t tmpfs -o "size=$2,mode=0755" fwtest "$1" 2>/dev/null; then
		rm -rf "$keep"
		return 1
	fi
	_MOUNTS+=("$1")
	cp -a "$keep/." "$1/"
	rm -rf "$keep"
}

alive() { # pid: running and not a zombie
	[ -d "/proc/$1" ] && [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != Z ]
}

_cleanup() {
	local rc=$?
	set +e
	[ ${#_TMPFILES[@]} -eq 0 ] || rm -f "${_TMPFILES[@]}"
	if [ "$_FINISHED" = 0 ]; then
		fail "$TEST_NAME" "aborted with exit code $rc (line ${_ERR_LINE:-?} of $0)"
	fi
	if [ -n "$TB_DIR" ] && [ -d "$TB_DIR" ]; then
		if [ "$FAILED" -gt 0 ] && [ -f "$TB_DIR/log/slurmctld.log" ]; then
			echo "--- last lines of $TB_DIR/log/slurmctld.log ---"
			tail -n 15 "$TB_DIR/log/slurmctld.log"
			echo "---"
		fi
		"$TESTBED" stop "$TB_DIR" >/dev/null 2>&1
		local m
		for m in "${_MOUNTS[@]}"; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null; done
		_MOUNTS=()
		if [ "${FW_KEEP_TESTBED:-0}" = 1 ]; then
			echo "kept testbed dir $TB_DIR (FW_KEEP_TESTBED=1)"
		else
			rm -rf "$TB_DIR"
		fi
	fi
	if [ "$_FINISHED" = 0 ]; then
		echo "$PASSED passed, $FAILED failed"
		exit 1
	fi
}
trap '_ERR_LINE=$LINENO' ERR
trap _cleanup EXIT
trap 'exit 130' INT TERM

finish() {
	_FINISHED=1
	log "done in $((SECONDS - _T0))s"
	# stop the testbed before the summary line so that it really is the last line
	_cleanup
	TB_DIR=""
	echo "$PASSED passed, $FAILED failed"
	[ "$FAILED" -eq 0 ] && exit 0
	exit 1
}

# ---- usage accounting (decay off): what sshare says vs what sacct says was used ----
# RawUsage per "account|user" (user empty for accounts), as sshare prints it (integer).
usage_table() { sshare -a -n -P -o account,user,rawusage | sed 's/^ *//' | sort; }
# Expected: what sacct says the finished jobs used, added to the user association, its
# account's ancestors and root, on top of a baseline.
expected_table() { # baseline-file
	local parents
	parents=$(sacctmgr -n -P show assoc where cluster=fairway format=account,parentname,user |
		awk -F'|' '$3 == "" { print $1 "|" $2 }')
	sacct -a -X -n -P -o account,user,alloccpus,elapsedraw,state -S 2000-01-01 |
		awk -F'|' -v parents="$parents" -v base="$1" '
		BEGIN {
			n = split(parents, p, "\n")
			for (i = 1; i <= n; i++) { split(p[i], f, "|"); up[f[1]] = f[2] }
			while ((getline line < base) > 0) { split(line, f, "|"); u[f[1] "|" f[2]] = f[3] }
		}
		$3 > 0 && $5 !~ /RUNNING|PENDING/ {
			c = $3 * $4
			u[$1 "|" $2] += c
			for (a = $1; a != "" ; a = up[a]) u[a "|"] += c
		}
		END { for (k in u) print k "|" u[k] }' | sort
}

# Whether sacct lists JOB as ended (a state other than PENDING/RUNNING, ElapsedRaw set):
# slurmctld sends job records to slurmdbd in the background, some seconds after the end.
job_in_sacct() { # job
	sacct -X -n -P -j "$1" -o state,elapsedraw 2>/dev/null |
		awk -F'|' '$1 != "" && $1 !~ /PENDING|RUNNING|REQUEUED|SUSPENDED/ && $2 != "" { ok = 1 } END { exit !ok }'
}

# Wait (at most SECONDS) until JOB has left the queue (result LABEL), then every
# association's RawUsage must be what sacct says the finished jobs used, AllocCPUS x
# Elapsed added up the tree (root's own user association aside): result "RawUsage =
# AllocCPUS x Elapsed for every association WHEN".
usage_exact_after() { # seconds job label when
	local job=$2
	job_done() { [ -z "$(squeue -h -j "$job" -o %i 2>/dev/null)" ]; }
	if wait_for "$1" job_done; then pass "$3"; else fail "$3" "$(squeue -h -j "$job" -o '%T')"; fi
	# and its record has reached slurmdbd (bounded: the comparison below says what is missing)
	wait_for 30 job_in_sacct "$job" || true
	sleep 1
	: >"$TB_DIR/base.txt"
	assert_eq "RawUsage = AllocCPUS x Elapsed for every association $4" \
		"$(expected_table "$TB_DIR/base.txt" | grep -v '^root|root|' | awk -F'|' '$3 > 0')" \
		"$(usage_table | awk -F'|' '$3 > 0')"
}

# Fail (never skip) unless FAIRWAY_PLUGIN_DIR holds priority_fairway.so.
require_fairway_plugin() {
	if [ -z "${FAIRWAY_PLUGIN_DIR:-}" ] || [ ! -f "$FAIRWAY_PLUGIN_DIR/priority_fairway.so" ]; then
		fail "plugin found" "FAIRWAY_PLUGIN_DIR must hold priority_fairway.so (got '${FAIRWAY_PLUGIN_DIR:-}')"
		finish
	fi
}

# Every user:account pair of scripts/example-accounts.
EXAMPLE_USER_ACCOUNTS="fw_u1:bloggs.prj fw_u1:bloggs.prj.high fw_u2:bloggs.prj fw_u2:bloggs.prj.low
fw_u3:chem.theory fw_u4:chem.theory fw_u5:chem.lab fw_u6:chem.lab"

# Wait (at most 60 s) until no job is left in the queue: the usage jobs a test submitted
# have ended and been charged.  One result, "usage jobs finished".
usage_jobs_finished() {
	queue_empty() { [ -z "$(squeue -h -o %i)" ]; }
	if wait_for 60 queue_empty; then pass "usage jobs finished"; else fail "usage jobs finished" "$(squeue -h -o '%i %T' | tr '\n' ';')"; fi
}

# One job of every example user:account pair, with the sbatch options given (e.g. a DOWN
# partition, so that it stays pending).
submit_per_example_account() { # sbatch-options...
	local ua
	for ua in $EXAMPLE_USER_ACCOUNTS; do
		submit "${ua%%:*}" "${ua#*:}" "$@" --wrap 'sleep 1' >/dev/null
	done
}

# submit USER ACCOUNT sbatch-options...: a batch job as USER, output discarded; prints its id.
submit() {
	local u=$1 a=$2
	shift 2
	sbatch --parsable --uid="$u" -A "$a" -D "$TB_DIR/work" -o /dev/null "$@"
}
