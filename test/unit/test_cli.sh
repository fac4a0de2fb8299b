#!/bin/sh
# shellcheck disable=SC2016  # sh -c '"$0" ...' scripts: their $0, $1 expand in that shell
# The fairway command as an administrator runs it (tools/fairway, built by make):
# - 'fairway shares FILE' prints, for every fixture in test/data/snapshots and every
#   algorithm, the table Slurm's sshare -a -l -P printed for that tree (FIXTURE.ALGO.sshare);
# - 'fairway shares --json' prints one valid JSON array with a row per table row, the
#   documented keys, infinite values as the string "inf" and missing ones as null;
# - a snapshot read from standard input gives the same table as from the file;
# - malformed input (truncated JSON, a loop in the tree, an unknown parent, a missing
#   file, a wrong format version) exits with status 2 and exactly one line on stderr that
#   names the problem, and prints nothing on stdout;
# - exit status and message of every error a new user meets: output that cannot be written
#   (exit 1), unknown commands and the help command, files that are not snapshots (empty,
#   binary, sshare's text), endless input, unreadable files, an unwritable --output, a
#   non-integer --dampening, no associations, no slurm.conf.
# (RawShares is the string "parent" for Fairshare=parent, as sshare prints it.)
# - fairway history over a history directory written here in the documented format (a torn
#   block skipped with one line; --since, --json, an unknown account, a missing directory).
# - fairway lint: exit 0 on a clean slurm.conf, 1 with one line per finding, 2 for a file
#   that cannot be read or is not slurm.conf; --snapshot: the queue's fair-share gaps too.
# test/unit/test_cli_malformed.sh runs the CLI over many more malformed files.
# Environment (set by 'make check'): FAIRWAY_TEST_DATA; FAIRWAY_CLI (default ./tools/fairway).
cli=${FAIRWAY_CLI:-./tools/fairway}
data=${FAIRWAY_TEST_DATA:?}/snapshots
pass=0 fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# 1. Every fixture, every algorithm: Slurm's sshare table.
for j in "$data"/*.json; do
  base=${j%.json}
  for algo in fair_tree classic depth_oblivious; do
    want=$base.$algo.sshare
    [ -f "$want" ] || continue
    if "$cli" shares -P --algorithm "$algo" "$j" >"$tmp/out" 2>"$tmp/err" &&
       cmp -s "$want" "$tmp/out" && [ ! -s "$tmp/err" ]; then
      ok
    else
      ko "fairway shares -P --algorithm $algo $(basename "$j") differs from $(basename "$want"):"
      diff "$want" "$tmp/out" | head -n 8
    fi
  done
done
[ "$pass" -ge 30 ] || ko "only $pass fixture tables compared (expected every fixture x 3 algorithms)"

# 2. Standard input.
if "$cli" shares - <"$data/test24_1.json" >"$tmp/stdin.out" &&
   "$cli" shares "$data/test24_1.json" >"$tmp/file.out" && cmp -s "$tmp/stdin.out" "$tmp/file.out"; then
  ok
else
  ko "fairway shares - (standard input) differs from the file"
fi

# 3. --json: valid JSON, a row per table row, the documented keys, "inf" and null.
json_check() { # file rows
  python3 - "$1" "$2" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
want = int(sys.argv[2])
keys = {"account", "user", "raw_shares", "norm_shares", "raw_usage", "norm_usage",
        "effective_usage", "fairshare", "level_fs"}
assert isinstance(rows, list) and len(rows) == want, f"{len(rows)} rows, table has {want}"
for r in rows:
    assert set(r) == keys, f"keys {sorted(r)}"
    for k, v in r.items():
        assert v is None or isinstance(v, (int, float, str)), f"{k}: {v!r}"
        if isinstance(v, str) and k not in ("account", "user"):
            assert v == "inf" or (k == "raw_shares" and v == "parent"), f"{k}: {v!r}"
assert rows[0]["account"] == "root" and rows[0]["user"] is None
print(sum(1 for r in rows for v in r.values() if v == "inf"))
PY
}
for j in "$data"/*.json; do
  rows=$(( $("$cli" shares -P "$j" | wc -l) - 1 ))
  if "$cli" shares --json "$j" >"$tmp/j.json" 2>"$tmp/err" && infs=$(json_check "$tmp/j.json" "$rows" 2>"$tmp/perr"); then
    ok
    echo "$infs" >>"$tmp/infs"
  else
    ko "fairway shares --json $(basename "$j"): $(tail -n 1 "$tmp/perr" "$tmp/err" 2>/dev/null | tr '\n' ' ')"
  fi
done
# Zero usage gives an infinite level fair-share under Fair Tree: some fixture shows "inf".
if [ "$(awk '{ s += $1 } END { print s + 0 }' "$tmp/infs" 2>/dev/null)" -gt 0 ]; then ok; else ko "no fixture printed an \"inf\" value in --json"; fi

# 4. Malformed input: exit 2, one line on stderr naming the problem, nothing on stdout.
bad() { # name expected-regex file
  "$cli" shares "$3" >"$tmp/bad.out" 2>"$tmp/bad.err"
  rc=$?
  if [ "$rc" -eq 2 ] && [ ! -s "$tmp/bad.out" ] && [ "$(wc -l <"$tmp/bad.err")" -eq 1 ] &&
     grep -Eq "$2" "$tmp/bad.err"; then
    ok
  else
    ko "$1: exit $rc, stderr: $(cat "$tmp/bad.err")"
  fi
}
head -c 120 "$data/test24_1.json" >"$tmp/truncated.json"
bad "truncated JSON" "truncated.json" "$tmp/truncated.json"
cat >"$tmp/loop.json" <<'J'
{"fairway_snapshot": 1, "algorithm": "fair_tree", "dampening_factor": 1,
 "associations": [
  {"id": 1, "parent": null, "account": "root", "user": null, "shares": 1, "usage": 0},
  {"id": 2, "parent": 3, "account": "a", "user": null, "shares": 1, "usage": 0},
  {"id": 3, "parent": 2, "account": "b", "user": null, "shares": 1, "usage": 0},
  {"id": 4, "parent": 3, "account": "b", "user": "u", "shares": 1, "usage": 5}]}
J
bad "a loop in the tree" "loop|cycle" "$tmp/loop.json"
sed 's/"parent": 3, "account": "b", "user": "u"/"parent": 99, "account": "b", "user": "u"/; s/"parent": 3, "account": "a"/"parent": 1, "account": "a"/; s/"parent": 2, "account": "b", "user": null/"parent": 1, "account": "b", "user": null/' \
  "$tmp/loop.json" >"$tmp/orphan.json"
bad "an unknown parent" "99" "$tmp/orphan.json"
sed 's/"fairway_snapshot": 1/"fairway_snapshot": 7/' "$data/test24_1.json" >"$tmp/version.json"
bad "an unknown format version" "version|fairway_snapshot" "$tmp/version.json"
bad "a missing file" '^fairway: cannot open "[^"]*/no-such-file.json": No such file or directory$' "$tmp/no-such-file.json"

# 5. Exit status and message of each error: expect NAME STATUS REGEX COMMAND... runs COMMAND
#    and wants STATUS and exactly one line on stderr, matching REGEX (grep -E).
expect() {
  name=$1 want=$2 re=$3
  shift 3
  "$@" >"$tmp/x.out" 2>"$tmp/x.err"
  rc=$?
  if [ "$rc" -eq "$want" ] && [ "$(wc -l <"$tmp/x.err")" -eq 1 ] && grep -Eq -- "$re" "$tmp/x.err"; then
    ok
  else
    ko "$name: exit $rc (want $want), stderr: $(head -c 600 "$tmp/x.err")"
  fi
}
skip() { echo "SKIP: $*"; }
fixture=$data/test24_1.json

# 5a. Standard output that cannot be written: exit 1 and the reason, as coreutils' tools do.
if [ -w /dev/full ]; then
  # 600 users: a table longer than stdio's buffer, so that a write fails before the flush.
  python3 - "$tmp/wide.json" <<'PY'
import json, sys
a = [{"id": 1, "parent": None, "account": "root", "user": None, "shares": 1, "usage": 0},
     {"id": 2, "parent": 1, "account": "a", "user": None, "shares": 1, "usage": 0}]
a += [{"id": 10 + i, "parent": 2, "account": "a", "user": "user%d" % i, "shares": 1,
       "usage": i} for i in range(600)]
json.dump({"fairway_snapshot": 1, "algorithm": "fair_tree", "dampening_factor": 1,
           "associations": a}, open(sys.argv[1], "w"))
PY
  full='^fairway: write error on standard output: No space left on device$'
  expect "shares >/dev/full" 1 "$full" sh -c '"$0" shares "$1" >/dev/full' "$cli" "$fixture"
  expect "shares --json >/dev/full" 1 "$full" sh -c '"$0" shares --json "$1" >/dev/full' "$cli" "$fixture"
  expect "shares (a long table) >/dev/full" 1 "$full" sh -c '"$0" shares "$1" >/dev/full' "$cli" "$tmp/wide.json"
  expect "--help >/dev/full" 1 "$full" sh -c '"$0" --help >/dev/full' "$cli"
  expect "help >/dev/full" 1 "$full" sh -c '"$0" help >/dev/full' "$cli"
  expect "snapshot --help >/dev/full" 1 "$full" sh -c '"$0" snapshot --help >/dev/full' "$cli"
else
  skip "/dev/full is not writable here: the full-disk assertions on standard output did not run"
fi
closed='^fairway: write error on standard output: Bad file descriptor$'
expect "shares with standard output closed" 1 "$closed" sh -c '"$0" shares "$1" >&-' "$cli" "$fixture"
expect "shares --json with standard output closed" 1 "$closed" sh -c '"$0" shares --json "$1" >&-' "$cli" "$fixture"
expect "help with standard output closed" 1 "$closed" sh -c '"$0" help >&-' "$cli"
expect "shares - with standard input closed" 2 '^fairway: cannot read standard input: Bad file descriptor$' \
  sh -c '"$0" shares - <&-' "$cli"
# The live snapshot to standard output needs slurmctld: test/integration/test_cli_snapshot.sh.

# 5b. Commands: unknown ones named, near misses suggested, help printed.
expect "unknown command" 2 "^fairway: unknown command 'foo' \(the commands are shares, snapshot, explain, compare, weights, whatif, history, plot, lint, forecast and help; see 'fairway --help'\)$" "$cli" foo
expect "a typo of shares" 2 "^fairway: unknown command 'share'; did you mean 'shares'\?$" "$cli" share
expect "a typo of snapshot" 2 "^fairway: unknown command 'snpashot'; did you mean 'snapshot'\?$" "$cli" snpashot
expect "the start of snapshot" 2 "^fairway: unknown command 'snap'; did you mean 'snapshot'\?$" "$cli" snap
expect "no command" 2 "^fairway: a command is required: shares, snapshot, explain, compare, weights, whatif, history, plot, lint, forecast or help \(see 'fairway --help'\)$" "$cli"
# explain offline: a version 1 snapshot holds no jobs; a job id is a number; one of JOBID or
# --account/--user.
# A version 1 snapshot (the plugin's fairway.json above fairway_queue_jobs pending jobs) holds
# no jobs: every command that needs them says why and which option keeps them.
no_queue="^fairway: \"[^\"]*test24_1.json\" is a version 1 snapshot: it holds no jobs \(the plugin's fairway.json leaves the queue out while more jobs are pending than PriorityParameters=fairway_queue_jobs, default 10000: raise it to keep the queue there; or leave out the snapshot to ask slurmctld, or take one with 'fairway snapshot'\)$"
expect "explain of a version 1 snapshot" 2 "$no_queue" \
  "$cli" explain --snapshot "$fixture" 12
expect "whatif of a version 1 snapshot" 2 "$no_queue" \
  "$cli" whatif "$fixture" --weight age=1
expect "forecast of a version 1 snapshot" 2 "$no_queue" \
  "$cli" forecast --snapshot "$fixture"
expect "explain of a job id that is no number" 2 "^fairway: JOBID 12x is not a job id \(a number, ARRAYID_TASK or HETJOBID\+OFFSET\)$" \
  "$cli" explain --snapshot "$FAIRWAY_TEST_DATA/../fuzz/corpus/snapshot/v2_queue.json" 12x
expect "explain of a job not in the snapshot" 1 "^fairway: job 9 is not pending in the snapshot$" \
  "$cli" explain --snapshot "$FAIRWAY_TEST_DATA/../fuzz/corpus/snapshot/v2_queue.json" 9
expect "explain of no association" 1 "^fairway: no association of user nosuch in the snapshot$" \
  "$cli" explain --snapshot "$FAIRWAY_TEST_DATA/../fuzz/corpus/snapshot/v2_queue.json" --user nosuch
# Array tasks (squeue's 27_3), a pending array not yet split (27_[4-9:2%2]), heterogeneous
# components (30+1): named as squeue names them.
python3 - "$FAIRWAY_TEST_DATA/../fuzz/corpus/snapshot/v2_queue.json" "$tmp/arrays.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
a, b = d["jobs"][0], d["jobs"][1]
c = json.loads(json.dumps(a))
a.update({"id": 40, "array_job_id": 27, "array_task_id": 3})
b.update({"id": 27, "array_job_id": 27, "array_tasks": "4-9:2%2"})
c.update({"id": 31, "het_job_id": 30, "het_job_offset": 1})
d["jobs"].append(c)
json.dump(d, open(sys.argv[2], "w"))
PY
for id in 27_3:40 27_6:27 30+1:31 40:40; do
  if "$cli" explain --snapshot "$tmp/arrays.json" "${id%%:*}" 2>"$tmp/err" | grep -q "^Job ${id##*:} "; then ok
  else ko "explain ${id%%:*}: not job ${id##*:}: $(cat "$tmp/err")"; fi
done
expect "explain of an array task the array does not hold" 1 "^fairway: job 27_5 is not pending in the snapshot$" \
  "$cli" explain --snapshot "$tmp/arrays.json" 27_5
expect "explain of a job id with an empty task" 2 "is not a job id" "$cli" explain --snapshot "$tmp/arrays.json" 27_
expect "explain without a job or an association" 2 "^fairway: explain needs a JOBID" "$cli" explain
# compare and weights offline: the same inputs, the same one-line errors.
v2=$FAIRWAY_TEST_DATA/../fuzz/corpus/snapshot/v2_queue.json
# forecast offline: the model beside the snapshot (as the plugin writes both), or --forecast.
mkdir -p "$tmp/fc" && cp "$v2" "$tmp/fc/fairway.json"
if "$cli" explain --snapshot "$tmp/fc/fairway.json" 2 >"$tmp/out" 2>"$tmp/err" &&
   tr -s '\n ' '  ' <"$tmp/out" | grep -q "When it may start: no estimate, because the plugin has published no forecast in $tmp/fc/fairway_forecast.json yet"; then ok
else ko "explain without a forecast model: $(cat "$tmp/out" "$tmp/err")"; fi
printf '%s\n' '{"version": 1, "time": 1000, "partitions": [{"name": "p", "starts": 40, "since": 900,' \
  ' "seconds_per_place": {"p10": 30, "p50": 120, "p90": 600}, "passed_share": 0.1}]}' >"$tmp/fc/fairway_forecast.json"
if "$cli" explain --snapshot "$tmp/fc/fairway.json" 2 >"$tmp/out" 2>"$tmp/err" &&
   tr -s '\n ' '  ' <"$tmp/out" | grep -q "When it may start: most likely within 4 min .*8 in 10 jobs at such a place start between 1 min and 20 min"; then ok
else ko "explain with a forecast model: $(cat "$tmp/out" "$tmp/err")"; fi
if "$cli" forecast --snapshot "$tmp/fc/fairway.json" -P >"$tmp/out" 2>"$tmp/err" &&
   grep -qx '2|p|2|2|240|60|1200||' "$tmp/out" && grep -qx '1|p|1|2|120|30|600||' "$tmp/out"; then ok
else ko "forecast -P: $(cat "$tmp/out" "$tmp/err")"; fi
if "$cli" forecast --snapshot "$tmp/fc/fairway.json" --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert [(j["job"], j["seconds"], j["low"], j["high"]) for j in d] == [(1, 120, 30, 600), (2, 240, 60, 1200)], d'; then ok
else ko "forecast --json"; fi
echo '{"version": 1, "time": 1000, "partitions": [' >"$tmp/fc/damaged.json"
expect "forecast with a damaged model" 2 "^fairway: the forecast $tmp/fc/damaged.json is damaged \(forecast: " \
  "$cli" forecast --snapshot "$tmp/fc/fairway.json" --forecast "$tmp/fc/damaged.json"
if "$cli" explain --snapshot "$tmp/fc/fairway.json" --forecast "$tmp/fc/damaged.json" 2 >"$tmp/out" 2>"$tmp/err" &&
   tr -s '\n ' '  ' <"$tmp/out" | grep -q "no estimate, because the forecast $tmp/fc/damaged.json is damaged"; then ok
else ko "explain with a damaged model: $(cat "$tmp/out" "$tmp/err")"; fi
expect "forecast --json -P" 2 "^fairway: forecast: --json and --parsable exclude each other$" \
  "$cli" forecast --snapshot "$tmp/fc/fairway.json" --json -P
expect "compare of a version 1 snapshot" 2 "$no_queue" \
  "$cli" compare --snapshot "$fixture" 1 2
expect "compare of a job not in the snapshot" 1 "^fairway: job 9 is not pending in the snapshot$" \
  "$cli" compare --snapshot "$v2" 1 9
expect "compare of a job with itself" 2 "^fairway: compare needs two different jobs$" \
  "$cli" compare --snapshot "$v2" 1 1
expect "compare with one job" 2 "^fairway: .*JOB2.*\(see 'fairway compare --help'\)$" \
  "$cli" compare --snapshot "$v2" 1
expect "weights of a version 1 snapshot" 2 "$no_queue" \
  "$cli" weights --snapshot "$fixture"
expect "weights --json -P" 2 "^fairway: weights: --json and --parsable exclude each other$" \
  "$cli" weights --json -P --snapshot "$v2"
# compare: job 1 (b) is ahead of job 2 (a) by fair-share, and Fair Tree parts them below the
# root at accounts b and a; the JSON says the same.
if out=$("$cli" compare --snapshot "$v2" 2 1) &&
   printf '%s\n' "$out" | grep -q '^In partition p, job 1 is ahead (1st and 2nd of 2): priority 11000 against 6000\.$' &&
   printf '%s\n' "$out" | grep -q 'What puts job 1 ahead most: fair-share (5000 more than job 2)' &&
   printf '%s\n' "$out" | grep -q 'part below the root\. There$' &&
   json=$("$cli" compare --json --snapshot "$v2" 2 1) &&
   python3 -c 'import json,sys; d=json.loads(sys.argv[1]); f=d["fair_share"]
assert d["places"][0]["first"] == 1 and d["places"][0]["separated_by"] == "fairshare", d
assert f["ancestor"] == "root" and f["side_a"]["account"] == "a" and f["side_b"]["account"] == "b", f
assert f["a_ranks_first"] is False' "$json"; then
  ok
else
  ko "compare --snapshot v2_queue.json 2 1: $out"
fi
# whatif: bad changes are one line each; no change moves no job; a change of weight does.
expect "whatif --weight without a value" 2 "^fairway: --weight fairshare: expected NAME=VALUE" \
  "$cli" whatif "$v2" --weight fairshare
expect "whatif --weight of an unknown TRES" 2 "^fairway: whatif: unknown weight nosuch: neither age, .* nor a TRES of the snapshot" \
  "$cli" whatif "$v2" --weight nosuch=5
expect "whatif --shares 0" 2 "^fairway: --shares a=0: expected ACCOUNT\[:USER\]=N" \
  "$cli" whatif "$v2" --shares a=0
expect "whatif --shares of no association" 2 "^fairway: whatif: no association of account zz in the snapshot$" \
  "$cli" whatif "$v2" --shares zz=3
expect "whatif --usage of no user" 2 "^fairway: whatif: no association of user zz in account a in the snapshot$" \
  "$cli" whatif "$v2" --usage a:zz=3
expect "whatif --max-age nonsense" 2 "^fairway: --max-age 1-2-3: expected a time" \
  "$cli" whatif "$v2" --max-age 1-2-3
expect "whatif --max-age of more days than 32 bits of seconds hold" 2 "^fairway: --max-age 99999999999999999999-0: expected a time" \
  "$cli" whatif "$v2" --max-age 99999999999999999999-0
expect "whatif --flags with an unknown flag" 2 "^fairway: --flags NO_SUCH: unknown PriorityFlag NO_SUCH" \
  "$cli" whatif "$v2" --flags NO_SUCH
expect "whatif --flags dropping ACCRUE_ALWAYS" 2 "^fairway: whatif: PriorityFlags ACCRUE_ALWAYS: its effect cannot be computed from a snapshot" \
  "$cli" whatif "$v2" --flags NONE
expect "whatif --weight assoc (0 in the snapshot)" 2 "^fairway: whatif: the snapshot holds no association factors" \
  "$cli" whatif "$v2" --weight assoc=10
if out=$("$cli" whatif -P "$v2") &&
   printf '%s\n' "$out" | grep -qx 'p|1|u21|b|11000|11000|1|1' &&
   printf '%s\n' "$out" | grep -qx 'p|2|u11|a|6000|6000|2|2' &&
   out2=$("$cli" whatif -P "$v2" --usage b:u21=1000) &&
   printf '%s\n' "$out2" | grep -qx 'p|2|u11|a|6000|11000|2|1' &&
   printf '%s\n' "$out2" | grep -qx 'b|u21|1|0.5' &&
   "$cli" whatif "$v2" --max-age 30 --weight partition=2000 | grep -q '^Partition p: 0 of 2 pending jobs change place'; then
  ok
else
  ko "whatif -P v2_queue.json: $out / $out2"
fi
# weights: fair-share decides the one pair; age is the same for both jobs; -P says so.
if out=$("$cli" weights -P --snapshot "$v2") &&
   printf '%s\n' "$out" | grep -qx 'p|2|1|fairshare|1|1.0000|10000|5000|10000|1|decides|1.0000' &&
   printf '%s\n' "$out" | grep -qx 'p|2|1|age|0|0.0000|1000|0|0|0|constant|0.0000' &&
   "$cli" weights --snapshot "$v2" | grep -q '^  fair-share makes 100% of the priority gaps between neighbours of different'; then
  ok
else
  ko "weights -P --snapshot v2_queue.json: $out"
fi
expect "help for an unknown command" 2 "^fairway: unknown command 'foo' " "$cli" help foo
expect "an unknown option" 2 "^fairway: .*--jsno.* \(see 'fairway shares --help'\)$" "$cli" shares --jsno "$fixture"
if "$cli" help >"$tmp/help.out" 2>"$tmp/help.err" && [ ! -s "$tmp/help.err" ] &&
   "$cli" --help >"$tmp/dashhelp.out" && cmp -s "$tmp/help.out" "$tmp/dashhelp.out" &&
   grep -q '^Usage: fairway ' "$tmp/help.out" && grep -q '^  shares ' "$tmp/help.out" &&
   grep -q '^  snapshot ' "$tmp/help.out" && grep -q '^  help ' "$tmp/help.out"; then
  ok
else
  ko "fairway help: exit status, or not the text of fairway --help: $(head -c 300 "$tmp/help.out" "$tmp/help.err")"
fi
if "$cli" help shares >"$tmp/hs.out" 2>&1 && "$cli" shares --help >"$tmp/hs2.out" &&
   cmp -s "$tmp/hs.out" "$tmp/hs2.out" && grep -q '^Usage: fairway shares ' "$tmp/hs.out"; then
  ok
else
  ko "fairway help shares differs from fairway shares --help: $(head -c 300 "$tmp/hs.out")"
fi
if [ "$("$cli" --version)" = "fairway $("$cli" --version | cut -d' ' -f2)" ]; then ok; else ko "fairway --version"; fi

# 5c. Files that are not snapshots: line, column, what was expected, no raw bytes.
: >"$tmp/empty.json"
expect "an empty file" 2 '^fairway: "[^"]*/empty.json": line 1, column 1: the input is empty; expected a snapshot \(a JSON object\)$' \
  "$cli" shares "$tmp/empty.json"
printf '\211PNG\r\n\032\n\0\0\0\rIHDR\377\376' >"$tmp/binary.png"
expect "a binary file" 2 '^fairway: "[^"]*/binary.png": line 1, column 1: expected .\{. \(a snapshot is a JSON object\), found byte 0x89$' \
  "$cli" shares "$tmp/binary.png"
if LC_ALL=C grep -q '[^ -~]' "$tmp/x.err"; then ko "a binary file: raw bytes on stderr"; else ok; fi
gzip -c "$fixture" >"$tmp/snapshot.json.gz"
expect "a compressed snapshot" 2 '^fairway: "[^"]*/snapshot.json.gz": line 1, column 1: expected .\{. \(a snapshot is a JSON object\), found byte 0x1f$' \
  "$cli" shares "$tmp/snapshot.json.gz"
expect "sshare's text" 2 "^fairway: \"[^\"]*/test24_1.fair_tree.sshare\": line 1, column 1: expected '\\{' \\(a snapshot is a JSON object\\), found 'Account'\$" \
  "$cli" shares "$data/test24_1.fair_tree.sshare"
expect "sshare's text on standard input" 2 "^fairway: standard input: line 1, column 1: expected .\\{. \\(a snapshot is a JSON object\\), found 'Account'\$" \
  sh -c '"$0" shares - <"$1"' "$cli" "$data/test24_1.fair_tree.sshare"
printf '{"fairway_snapshot": 1,\n "algorithm": "fair_tree"\n "dampening_factor": 1}' >"$tmp/comma.json"
expect "a missing comma" 2 "^fairway: \"[^\"]*/comma.json\": line 3, column 2: expected ',' or '}' after a value in an object, found '\"'\$" \
  "$cli" shares "$tmp/comma.json"

# 5d. Endless input: refused once past the limit, in bounded memory and time.
toolarge='is larger than 1073741824 bytes, the limit for a snapshot$'
if sh -c 'ulimit -v 1500000 || exit 1; "$0" --version; r=$?; exit $r' "$cli" >/dev/null 2>&1; then
  limit="ulimit -v 1500000;"  # 1.5 GB of address space: the 1 GiB buffer, not twice that
else
  limit=""
  skip "'ulimit -v 1500000' is refused, or the CLI cannot start under it (a sanitizer build?): /dev/zero is read under 'timeout 20' only"
fi
# Input that is not JSON is refused at its first byte: at once, whatever its length, in a few
# MB (300 MB of address space is enough for the command, far from a 1 GiB buffer).
notjson='line 1, column 1: expected .\{. \(a snapshot is a JSON object\), found'
if sh -c 'ulimit -v 300000 || exit 1; "$0" --version' "$cli" >/dev/null 2>&1; then
  small='ulimit -v 300000;'
else
  small=''  # AddressSanitizer reserves more address space than that before main
  skip "the CLI cannot start under 'ulimit -v 300000' (a sanitizer build?): input that is not JSON is refused under 'timeout 5' only"
fi
expect "/dev/zero" 2 "^fairway: \"/dev/zero\": $notjson byte 0x00\$" sh -c "$small"' exec timeout 5 "$0" shares /dev/zero' "$cli"
expect "/dev/zero on standard input" 2 "^fairway: standard input: $notjson byte 0x00\$" sh -c "$small"' exec timeout 5 "$0" shares - </dev/zero' "$cli"
expect "yes on standard input" 2 "^fairway: standard input: $notjson 'y" sh -c "$small"' yes | timeout 5 "$0" shares -' "$cli"
# A regular file over the limit is refused before it is read (a sparse file: no disk used).
if truncate -s 1073741825 "$tmp/huge.json" 2>/dev/null; then
  expect "a file over the limit" 2 "^fairway: \"[^\"]*/huge.json\" $toolarge" sh -c 'exec timeout 5 "$0" shares "$1"' "$cli" "$tmp/huge.json"
  rm -f "$tmp/huge.json"
else
  skip "truncate cannot make a sparse file here: the regular file over the limit was not tried"
fi

# 5e. Files that cannot be read: the reason.
mkdir "$tmp/adir"
expect "a directory" 2 '^fairway: cannot read "[^"]*/adir": Is a directory$' "$cli" shares "$tmp/adir"
expect "a missing file" 2 '^fairway: cannot open "/nonexistent/x.json": No such file or directory$' "$cli" shares /nonexistent/x.json
cp "$fixture" "$tmp/secret.json"
chmod 000 "$tmp/secret.json"
if [ "$(id -u)" -eq 0 ]; then
  skip "running as root, which reads a file of mode 000: the 'Permission denied' assertion on an input did not run"
else
  expect "an unreadable file" 2 '^fairway: cannot open "[^"]*/secret.json": Permission denied$' "$cli" shares "$tmp/secret.json"
fi

# 5f. snapshot -o: the reason, checked before Slurm is asked; the old file is kept.
missing_conf=$tmp/no-slurm/slurm.conf
expect "snapshot -o into a missing directory" 1 '^fairway: cannot create "[^"]*/nodir/x.json": No such file or directory$' \
  env SLURM_CONF="$missing_conf" "$cli" snapshot -o "$tmp/nodir/x.json"
expect "snapshot -o a directory" 1 '^fairway: cannot write "[^"]*/adir": Is a directory$' \
  env SLURM_CONF="$missing_conf" "$cli" snapshot -o "$tmp/adir"
mkdir "$tmp/outdir"
echo "old" >"$tmp/outdir/s.json"
expect "snapshot -o with no Slurm" 1 '^fairway: cannot read the Slurm configuration' \
  env SLURM_CONF="$missing_conf" "$cli" snapshot -o "$tmp/outdir/s.json"
if [ "$(cat "$tmp/outdir/s.json")" = old ] && [ "$(ls "$tmp/outdir")" = s.json ]; then ok; else
  ko "snapshot -o that failed changed the old file or left files: $(ls "$tmp/outdir")"
fi
if [ "$(id -u)" -eq 0 ]; then
  skip "running as root, which writes into a directory of mode 555: the 'Permission denied' assertion on --output did not run"
else
  chmod 555 "$tmp/outdir"
  expect "snapshot -o into a read-only directory" 1 '^fairway: cannot create "[^"]*/outdir/s.json": Permission denied$' \
    env SLURM_CONF="$missing_conf" "$cli" snapshot -o "$tmp/outdir/s.json"
  chmod 755 "$tmp/outdir"
fi
# A full disk while writing needs a live slurmctld: test/integration/test_cli_snapshot.sh.

# 5g. --dampening and "dampening_factor": one rule, Slurm's (an integer from 1 to 65535).
rule='FairShareDampeningFactor is an integer in Slurm, from 1 to 65535$'
for d in 1.5 2.0 0 65536 abc -1; do
  expect "shares --dampening $d" 2 "^fairway: --dampening $d: $rule" "$cli" shares --dampening "$d" "$fixture"
done
expect "snapshot --dampening 1.5" 2 "^fairway: --dampening 1.5: $rule" \
  env SLURM_CONF="$missing_conf" "$cli" snapshot --dampening 1.5
sed 's/"dampening_factor": 1,/"dampening_factor": 1.5,/' "$fixture" >"$tmp/damp.json"
expect "a snapshot with dampening_factor 1.5" 2 "^fairway: \"[^\"]*/damp.json\": \"dampening_factor\" is 1.5: $rule" \
  "$cli" shares "$tmp/damp.json"
if "$cli" shares --dampening 3 "$data/seed002_classic.json" >"$tmp/d3.out" &&
   "$cli" shares "$data/seed002_damp3.json" >"$tmp/damp3.out" && cmp -s "$tmp/d3.out" "$tmp/damp3.out"; then
  ok
else
  ko "shares --dampening 3 differs from a snapshot recorded with dampening factor 3"
fi

# 5h. No associations.
printf '{"fairway_snapshot": 1, "algorithm": "fair_tree", "dampening_factor": 1, "associations": []}\n' >"$tmp/none.json"
expect "an empty association list" 2 '^fairway: "[^"]*/none.json": the snapshot has no associations$' "$cli" shares "$tmp/none.json"

# 5i. snapshot without a slurm.conf: one line naming the file looked for and SLURM_CONF, and
#     nothing from libslurm.
how="; set SLURM_CONF to the path of the cluster's slurm.conf\$"
expect "snapshot, SLURM_CONF names a missing file" 1 \
  "^fairway: cannot read the Slurm configuration \"/nonexistent/slurm.conf\" \\(named by SLURM_CONF\\): No such file or directory$how" \
  env SLURM_CONF=/nonexistent/slurm.conf "$cli" snapshot
expect "snapshot, SLURM_CONF names a missing file in a temporary directory" 1 \
  "^fairway: cannot read the Slurm configuration \"$missing_conf\" \\(named by SLURM_CONF\\): No such file or directory$how" \
  env SLURM_CONF="$missing_conf" "$cli" snapshot
expect "snapshot, SLURM_CONF names a directory" 1 \
  "^fairway: cannot read the Slurm configuration \"[^\"]*/adir\" \\(named by SLURM_CONF\\): Is a directory$how" \
  env SLURM_CONF="$tmp/adir" "$cli" snapshot
if [ ! -e /etc/slurm/slurm.conf ] && [ ! -e /run/slurm/conf/slurm.conf ]; then
  expect "snapshot, no SLURM_CONF and no /etc/slurm/slurm.conf" 1 \
    "^fairway: no Slurm configuration: SLURM_CONF is not set and /etc/slurm/slurm.conf does not exist$how" \
    env -u SLURM_CONF -u SLURM_CONF_SERVER "$cli" snapshot
else
  skip "this machine has /etc/slurm/slurm.conf or /run/slurm/conf/slurm.conf: 'snapshot' without SLURM_CONF was not tried"
fi

# 6. fairway history over a history directory written here in the documented format
#    (lib/queue/history.h: blocks "FWH1" | count | time | records | FNV-1a), with a torn block.
hist=$tmp/history
mkdir -p "$hist"
now=$(date +%s)
python3 "$(dirname "$0")/write_history.py" "$hist" <<EOF
name 1 root
name 2 chem
name 3 chem alice
period $((now - 120)) 1:100:1:1:0 2:40:0.4:0.5:0 3:40:0.4:0.5:0.25
torn $((now - 60)) 1:110:1:1:0 2:55:0.5:0.5:0 3:55:0.5:0.5:0.5
period $now 1:120:1:1:0 2:60:0.5:0.5:0 3:60:0.5:0.5:0.5
EOF
if "$cli" history --dir "$hist" --account chem --user alice -P >"$tmp/h.out" 2>"$tmp/h.err" &&
   [ "$(wc -l <"$tmp/h.out")" -eq 3 ] &&
   tail -n 1 "$tmp/h.out" | grep -Eq '^chem\|alice\|[0-9-]+ [0-9:]+\|60\|0\.500000\|0\.500000\|1\.000\|0\.500000$' &&
   grep -q '^fairway: history: 30 bytes of "[^"]*/history" are not whole periods' "$tmp/h.err"; then
  ok
else
  ko "history -P of alice: $(cat "$tmp/h.out" "$tmp/h.err")"
fi
if "$cli" history --dir "$hist" --account chem --since 90s >/dev/null 2>&1; then
  ko "history --since 90s accepted"
else
  ok
fi
if "$cli" history --dir "$hist" --account chem --since 1m 2>/dev/null | grep -q '^Fair-share of account chem (association 2): 1 period$' &&
   "$cli" history --dir "$hist" --account chem --json 2>/dev/null |
     python3 -c 'import json,sys; a=json.load(sys.stdin); assert a[0]["id"] == 2 and len(a[0]["periods"]) == 2 and a[0]["user"] is None'; then
  ok
else
  ko "history of account chem (--since 1m, --json)"
fi
mkdir -p "$tmp/history2" && cp "$hist/names" "$tmp/history2/"
expect "history of an account not in it" 2 '^fairway: history: "[^"]*/history2" has no account bio$' \
  "$cli" history --dir "$tmp/history2" --account bio
expect "history --since that is no time" 2 '^fairway: history: --since yesterday is not a date' \
  "$cli" history --dir "$hist" --account chem --since yesterday
expect "history of a missing directory" 1 '^fairway: history: cannot read the directory [^ ]*/nohistory: No such file or directory$' \
  "$cli" history --dir "$tmp/nohistory" --account chem
expect "history without --account" 2 'history needs --account or --job' "$cli" history --dir "$hist"

# 7. fairway lint: exit 0 and one line for a clean slurm.conf, 1 and one line per finding,
#    2 and one line on stderr for a file that cannot be read or is not slurm.conf.
printf '%s\n' 'PriorityWeightFairshare=10000' 'PriorityWeightAge=1000' 'PriorityMaxAge=1-0' \
  'PartitionName=debug Nodes=ALL Default=YES' >"$tmp/clean.conf"
if "$cli" lint "$tmp/clean.conf" >"$tmp/l.out" 2>"$tmp/l.err" &&
   [ "$(cat "$tmp/l.out")" = "$tmp/clean.conf: no findings in the priority settings" ] && [ ! -s "$tmp/l.err" ] &&
   SLURM_CONF=$tmp/clean.conf "$cli" lint >/dev/null 2>&1; then
  ok
else
  ko "lint of a clean slurm.conf: $(cat "$tmp/l.out" "$tmp/l.err")"
fi
printf '%s\n' 'PriorityWeightFairshare=100' 'PriorityDecayHalfLife=1' 'PriorityCalcPeriod=5' >"$tmp/bad.conf"
"$cli" lint "$tmp/bad.conf" >"$tmp/l.out" 2>"$tmp/l.err"
rc=$?
if [ "$rc" -eq 1 ] && [ "$(wc -l <"$tmp/l.out")" -eq 2 ] && [ ! -s "$tmp/l.err" ] &&
   grep -q '^PriorityWeightFairshare=100: fair-share factors 0.001 apart' "$tmp/l.out" &&
   grep -q '^PriorityDecayHalfLife=1: shorter than PriorityCalcPeriod=5' "$tmp/l.out"; then
  ok
else
  ko "lint of a slurm.conf with two findings: exit $rc, $(cat "$tmp/l.out" "$tmp/l.err")"
fi
printf 'PriorityWeightAge=lots\n' >"$tmp/malformed.conf"
expect "lint of a malformed value" 2 "^fairway: \"[^\"]*/malformed.conf\": slurm.conf line 1: 'PriorityWeightAge=lots': not a whole number" \
  "$cli" lint "$tmp/malformed.conf"
expect "lint of a missing file" 2 '^fairway: cannot read "[^"]*/missing.conf": No such file or directory$' \
  "$cli" lint "$tmp/missing.conf"
# With --snapshot, the queue too: v2_queue's fair-share factors (1 and 0.5) are far apart; made
# 1 and 0.99999, they are 0.1 points apart under PriorityWeightFairshare=10000.
sed 's/"fairshare": 5000.0/"fairshare": 9999.9/' "$v2" >"$tmp/close_fs.json"
if "$cli" lint "$tmp/clean.conf" --snapshot "$v2" >"$tmp/l.out" 2>"$tmp/l.err" &&
   grep -q 'no findings in the priority settings$' "$tmp/l.out" && [ ! -s "$tmp/l.err" ]; then
  ok
else
  ko "lint --snapshot of a clean queue: $(cat "$tmp/l.out" "$tmp/l.err")"
fi
"$cli" lint "$tmp/clean.conf" --snapshot "$tmp/close_fs.json" >"$tmp/l.out" 2>"$tmp/l.err"
rc=$?
if [ "$rc" -eq 1 ] && [ "$(wc -l <"$tmp/l.out")" -eq 1 ] && [ ! -s "$tmp/l.err" ] &&
   grep -q '^PriorityWeightFairshare=10000: the closest two different fair-share factors of the pending jobs are 1e-05 apart, 0.1 priority points' "$tmp/l.out"; then
  ok
else
  ko "lint --snapshot of fair-share factors 0.1 points apart: exit $rc, $(cat "$tmp/l.out" "$tmp/l.err")"
fi
expect "lint --snapshot of a version 1 snapshot" 2 "$no_queue" \
  "$cli" lint "$tmp/clean.conf" --snapshot "$fixture"
if "$cli" lint --help 2>&1 | grep -q -- '--snapshot FILE'; then ok; else ko "lint --help names --snapshot"; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
