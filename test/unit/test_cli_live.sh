#!/usr/bin/env bash
# The fairway command's live mode without a cluster: slurmctld's answers come from
# test/unit/fake_slurmctld_rpc.c, preloaded over libslurm's RPCs. Job ids as squeue names them
# (27_3, 27_[4-9:2], 30+1); a job that is not pending or not there, and an association slurmctld
# does not have, are one line and exit status 1; what a user sees under PrivateData (a tree
# without its root) ends no command by an exception; snapshot -o writes through devices and
# FIFOs (standard output through a link to /proc/self/fd/1, as /dev/stdout) and makes a new
# file 0600.
# Environment (set by 'make check'): FAIRWAY_CLI, FAIRWAY_FAKE_SLURMCTLD (the preloaded library).
set -u
cli=${FAIRWAY_CLI:-./tools/fairway}
fake=${FAIRWAY_FAKE_SLURMCTLD:-./test/unit/.libs/fake_slurmctld_rpc.so}
pass=0 fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }
tmp=$(mktemp -d) || exit 1
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
[ -r "$fake" ] || { echo "FAIL: $fake is missing (make check builds it)"; exit 1; }
printf 'ClusterName=fakecluster\nSlurmctldHost=localhost\n' >"$tmp/slurm.conf"
export SLURM_CONF=$tmp/slurm.conf
# Under AddressSanitizer (scripts/sanitize) the preloaded library comes before ASan's runtime,
# which ASan refuses unless told that the order is intended.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
# What the fake slurmctld hands out it never frees (its free functions do nothing): LeakSanitizer
# is told to leave those allocations alone, and only those.
printf 'leak:fake_slurmctld_rpc\n' >"$tmp/lsan.supp"
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$tmp/lsan.supp:print_suppressions=0"

live() { # scenario command...
  local scenario=$1
  shift
  FAKE_SLURMCTLD=$scenario LD_PRELOAD=$fake "$@"
}
expect() { # name status regex scenario command...
  local name=$1 want=$2 re=$3
  shift 3
  live "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [ "$rc" -eq "$want" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -Eq -- "$re" "$tmp/err"; then ok
  else ko "$name: exit $rc (want $want), stderr: $(head -c 400 "$tmp/err")"; fi
}

# Job ids as squeue prints them.
for id in 27_3:40 27_6:27 30+1:31 40:40; do
  if live queue "$cli" explain "${id%%:*}" 2>"$tmp/err" | grep -q "^Job ${id##*:} "; then ok
  else ko "explain ${id%%:*}: not job ${id##*:}: $(cat "$tmp/err")"; fi
done
expect "explain of a running job" 1 '^fairway: job 10 is running$' queue "$cli" explain 10
expect "explain of a completed job" 1 '^fairway: job 11 is completed$' queue "$cli" explain 11
expect "explain of no job" 1 '^fairway: no job 99999$' queue "$cli" explain 99999
expect "explain of a task the array does not have" 1 '^fairway: no job 27_5$' queue "$cli" explain 27_5
expect "compare with a running job" 1 '^fairway: job 10 is running$' queue "$cli" compare 40 10
expect "explain of no association" 1 '^fairway: slurmctld has no association of user nosuch$' \
  queue "$cli" explain --user nosuch
if [ "$(id -u)" -eq 0 ] && command -v runuser >/dev/null; then
  # The libraries the command loads from where nobody cannot read them (a Slurm release
  # installed under root's home, found through LD_LIBRARY_PATH, which runuser drops) are
  # copied where nobody can.
  mkdir -m 755 "$tmp/lib"
  # So are its plugins (libslurm's PluginDir, lib/slurm beside it), which 26.05's slurm_init
  # loads (auth, certgen, ...).
  plugindir=$tmp/lib
  for lib in $(ldd "$cli" | awk '$2 == "=>" && $3 ~ /^\// {print $3}'); do
    runuser -u nobody -- test -r "$lib" && continue
    cp "$lib" "$tmp/lib/"
    case $lib in */libslurm.so*)
      if [ -d "${lib%/*}/slurm" ]; then cp -r "${lib%/*}/slurm" "$tmp/lib/slurm"; plugindir=$tmp/lib/slurm; fi
    esac
  done
  chmod -R a+rX "$tmp/lib"
  { cat "$SLURM_CONF"; echo "PluginDir=$plugindir"; } >"$tmp/slurm-user.conf"
  chmod 644 "$tmp/slurm-user.conf"
  expect "explain of a job hidden by PrivateData=jobs" 1 \
    '^fairway: no job 99999 \(or not visible to you: PrivateData\)$' \
    private runuser -u nobody -- env SLURM_CONF="$tmp/slurm-user.conf" FAKE_SLURMCTLD=private \
    LD_LIBRARY_PATH="$tmp/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" LD_PRELOAD="$fake" "$cli" explain 99999
else
  echo "SKIP: not root: PrivateData=jobs (a user other than root and SlurmUser) was not tried"
fi

# history --job takes the same forms: an array task's or component's job id is asked of slurmctld.
mkdir "$tmp/hist"
expect "history --job of an array task" 2 "has no start of job 27_3 \\(job 40\\)" \
  queue "$cli" history --dir "$tmp/hist" --job 27_3
expect "history --job of a heterogeneous component" 2 "has no start of job 30\\+1 \\(job 31\\)" \
  queue "$cli" history --dir "$tmp/hist" --job 30+1
expect "history --job of a task slurmctld does not have" 1 '^fairway: history: --job 27_99: no such job$' \
  queue "$cli" history --dir "$tmp/hist" --job 27_99

# No command ends by an exception (an abort, status 134), whatever slurmctld hides: at most one
# line on stderr, "fairway: ...".
for scenario in queue private; do
  for args in "explain --user fw_u1 --account bloggs.prj" "explain --user fw_u1 --json" \
              "explain --account bloggs.prj" "explain --user root" "explain 40" "compare 40 31" \
              "weights" "whatif --weight age=0" "snapshot" "history --account a"; do
    # shellcheck disable=SC2086
    live "$scenario" "$cli" $args >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" -le 2 ] && [ "$(wc -l <"$tmp/err")" -le 1 ] && ! grep -qv '^fairway: ' "$tmp/err"; then ok
    else ko "$scenario: fairway $args: exit $rc, stderr: $(head -c 400 "$tmp/err")"; fi
  done
done

# snapshot -o: a new file 0600 holding the cluster's name; a device and a FIFO written through.
if (umask 022; live queue "$cli" snapshot -o "$tmp/snap.json") 2>"$tmp/err" &&
   [ "$(stat -c %a "$tmp/snap.json")" = 600 ] && grep -q '"name": "fakecluster"' "$tmp/snap.json"; then ok
else ko "snapshot -o a new file: $(ls -l "$tmp/snap.json" 2>&1) $(cat "$tmp/err")"; fi
if mknod "$tmp/null" c 1 3 2>/dev/null; then
  if live queue "$cli" snapshot -o "$tmp/null" 2>"$tmp/err" && [ -c "$tmp/null" ]; then ok
  else ko "snapshot -o a character device: $(ls -l "$tmp/null") $(cat "$tmp/err")"; fi
else
  echo "SKIP: mknod refused: snapshot -o a character device was not tried"
fi
# A link to standard output as /dev/stdout is (one of its own: a wrong rule replaces only it).
ln -s /proc/self/fd/1 "$tmp/stdout"
if live queue "$cli" snapshot -o "$tmp/stdout" 2>"$tmp/err" | grep -q '"fairway_snapshot": 2' &&
   [ -L "$tmp/stdout" ]; then ok
else ko "snapshot -o a link to /proc/self/fd/1 (a pipe): $(ls -l "$tmp/stdout") $(cat "$tmp/err")"; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
