#!/bin/sh
# The fairway command as an administrator runs it (tools/fairway, built by make):
# - 'fairway shares FILE' prints, for every fixture in test/data/snapshots and every
#   algorithm, the table Slurm's sshare -a -l -P printed for that tree (FIXTURE.ALGO.sshare);
# - 'fairway shares --json' prints one valid JSON array with a row per table row, the
#   documented keys, infinite values as the string "inf" and missing ones as null;
# - a snapshot read from standard input gives the same table as from the file;
# - malformed input (truncated JSON, a loop in the tree, an unknown parent, a missing
#   file, a wrong format version) exits with status 2 and exactly one line on stderr that
#   names the problem, and prints nothing on stdout.
# (RawShares is the string "parent" for Fairshare=parent, as sshare prints it.)
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
    if "$cli" shares --algorithm "$algo" "$j" >"$tmp/out" 2>"$tmp/err" &&
       cmp -s "$want" "$tmp/out" && [ ! -s "$tmp/err" ]; then
      ok
    else
      ko "fairway shares --algorithm $algo $(basename "$j") differs from $(basename "$want"):"
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
  rows=$(( $("$cli" shares "$j" | wc -l) - 1 ))
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
bad "a missing file" "no-such-file" "$tmp/no-such-file.json"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
