#!/bin/sh
# 'fairway shares' over many malformed snapshot files: every one must exit with status 2,
# print nothing on stdout and exactly one line on stderr, "fairway: " and the problem, in
# printable ASCII (no raw bytes of the input, no JSON library exception id). The files:
# - an empty file, a file of blanks, and the fixture huge_usage.json cut at every length
#   (truncated JSON);
# - random bytes (a fixed seed: the same files on every run), alone and after '{';
# - syntax errors: trailing text, trailing commas, comments, single quotes, bare words,
#   numbers JSON does not allow, bad escapes, invalid UTF-8, a byte order mark before
#   garbage, deep nesting;
# - the fixture with each value replaced by a wrong type or an out-of-range value (huge
#   numbers among them), each key removed, an unknown key added, a wrong format version;
# - trees that are not trees: a loop, a duplicate id, a second root, an unknown parent, a
#   user with children, no associations.
# Some files are also given on standard input.
# Environment (set by 'make check'): FAIRWAY_TEST_DATA; FAIRWAY_CLI (default ./tools/fairway).
cli=${FAIRWAY_CLI:-./tools/fairway}
fixture=${FAIRWAY_TEST_DATA:?}/snapshots/huge_usage.json
pass=0 fail=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/cases"

python3 - "$fixture" "$tmp/cases" <<'PY' || { echo "FAIL: generating the malformed files"; exit 1; }
import json, os, random, sys

fixture, out = sys.argv[1], sys.argv[2]
text = open(fixture, "rb").read()
base = json.loads(text)
n = 0

def write(name, data):
    global n
    n += 1
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    with open(os.path.join(out, "%04d-%s" % (n, name)), "wb") as f:
        f.write(data)

RAW = "\u0000RAW\u0000"  # stands for raw JSON text put in place after json.dumps

def snapshot(doc, raw=None):
    s = json.dumps(doc)
    if raw is not None:
        s = s.replace(json.dumps(RAW), raw)
    return s

def copy():
    return json.loads(json.dumps(base))

# Empty, blank, truncated at every length (the whole file less its last '}' and newline
# is the last one that is not JSON).
write("empty", b"")
write("blanks", b" \n\t\r\n ")
end = text.rindex(b"}")
for i in range(1, end):
    write("prefix-%d" % i, text[:i])

# Random bytes.
rng = random.Random(20261123)
for i in range(40):
    size = rng.choice([1, 2, 7, 64, 500, 4096])
    data = bytes(rng.randrange(256) for _ in range(size))
    write("random-%d" % i, data)
    write("brace-random-%d" % i, b"{" + data)
write("nul-bytes", b"\0" * 100)
write("elf", b"\x7fELF\x02\x01\x01" + bytes(range(256)))
write("png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR")
write("gzip", b"\x1f\x8b\x08\0\0\0\0\0\0\x03")
write("utf16", "{\"fairway_snapshot\": 1}".encode("utf-16"))
write("sshare-text", b"Account|User|RawShares|NormShares|RawUsage|EffectvUsage|FairShare\n"
      b"root|||0.000000|0||1.000000\n")

# Syntax.
t = text.decode()
syntax = {
    "trailing-text": t + "x",
    "two-objects": t + t,
    "trailing-comma-object": t.replace('"usage": 12345.5}', '"usage": 12345.5,}'),
    "trailing-comma-array": t.replace("12345.5}]}", "12345.5},]}"),
    "comment": "// a snapshot\n" + t,
    "block-comment": t.replace('"associations"', '/* x */ "associations"'),
    "single-quotes": t.replace('"algorithm"', "'algorithm'"),
    "bare-key": t.replace('"algorithm"', "algorithm"),
    "bare-word": t.replace('"fair_tree"', "fair_tree"),
    "NaN": t.replace("12345.5", "NaN"),
    "Infinity": t.replace("12345.5", "Infinity"),
    "leading-zero": t.replace("12345.5", "012345.5"),
    "leading-plus": t.replace("12345.5", "+12345.5"),
    "trailing-dot": t.replace("12345.5", "12345."),
    "leading-dot": t.replace("12345.5", ".5"),
    "bare-minus": t.replace("12345.5", "-"),
    "empty-exponent": t.replace("1e+30", "1e+"),
    "hex-number": t.replace("12345.5", "0x10"),
    "bad-escape": t.replace('"small"', '"sm\\all"'),
    "short-u-escape": t.replace('"small"', '"sm\\u12"'),
    "lone-high-surrogate": t.replace('"small"', '"sm\\ud800all"'),
    "lone-low-surrogate": t.replace('"small"', '"sm\\udc00all"'),
    "raw-newline-in-string": t.replace('"small"', '"sm\nall"'),
    "raw-tab-in-string": t.replace('"small"', '"sm\tall"'),
    "unterminated-string": t[: t.index('"small"') + 3],
    "missing-colon": t.replace('"algorithm":', '"algorithm"'),
    "missing-comma": t.replace('"fair_tree",', '"fair_tree"'),
    "missing-value": t.replace('"fair_tree"', ""),
    "extra-close": t.replace("12345.5}]}", "12345.5}]}}"),
    "unclosed-array": t.replace("12345.5}]}", "12345.5}}"),
    "nested-100": "[" * 100 + "]" * 100,
    "nested-100000": "[" * 100000,
    "nested-in-value": t.replace('"usage": 12345.5', '"usage": [[[[[[1]]]]]]'),
}
for name, s in syntax.items():
    write(name, s)
write("invalid-utf8", text.replace(b'"small"', b'"sm\xffall"'))
write("overlong-utf8", text.replace(b'"small"', b'"sm\xc0\xafall"'))
write("truncated-utf8", text.replace(b'"small"', b'"sm\xe2\x82"'))
write("utf8-surrogate", text.replace(b'"small"', b'"sm\xed\xa0\x80all"'))
write("bom-then-garbage", b"\xef\xbb\xbfAccount|User\n")
write("bom-twice", b"\xef\xbb\xbf\xef\xbb\xbf" + text)

# Wrong types and values at the top level.
top = {
    "fairway_snapshot": [0, 2, "1", 1.0, None, -1, True, RAW + "1e400", 99999999999999999999],
    "algorithm": ["x", "", 1, None, ["fair_tree"], "FAIR_TREE"],
    "dampening_factor": [0, 1.5, 2.0, 65536, "1", -1, None, True, RAW + "1e400",
                         99999999999999999999, 1e300],
    "associations": [{}, "x", None, 1, [1], [[]], [None], []],
}
for key, values in top.items():
    for i, v in enumerate(values):
        d = copy()
        if isinstance(v, str) and v.startswith(RAW):
            d[key] = RAW
            write("%s-raw-%d" % (key, i), snapshot(d, v[len(RAW):]))
        else:
            d[key] = v
            write("%s-%d" % (key, i), snapshot(d))
    d = copy()
    del d[key]
    write("no-%s" % key, snapshot(d))
d = copy()
d["x"] = 1
write("unknown-top-key", snapshot(d))
for i, v in enumerate([[], "x", 1, None, True, [copy()]]):
    write("top-level-%d" % i, json.dumps(v))

# Wrong types and values in an association (index 2: user h1, id 21, parent 2).
assoc = {
    "id": [0, -1, 1.5, "21", None, 4294967296, 1, 2, 99999999999999999999, RAW + "1e400"],
    "parent": [0, -1, "2", 999, 21, None, 1.5, 22, 4294967296],
    "account": ["", 1, None, "a\u0001b", [], "a\u007fb"],
    "user": [1, "", [], "u\u0001", True],
    "shares": [-1, 1.5, "x", 4294967295, 2147483647, None, "Parent", True, 1e30,
               RAW + "1e400", [1]],
    "usage": [-1, "x", None, True, "nan", "inf", "-1", "", "1 ", [], "1e99999", -0.5,
              RAW + "1e400", RAW + "-1e400", "0x1p99999"],
}
for key, values in assoc.items():
    for i, v in enumerate(values):
        d = copy()
        if isinstance(v, str) and v.startswith(RAW):
            d["associations"][2][key] = RAW
            write("assoc-%s-raw-%d" % (key, i), snapshot(d, v[len(RAW):]))
        else:
            d["associations"][2][key] = v
            write("assoc-%s-%d" % (key, i), snapshot(d))
    d = copy()
    del d["associations"][2][key]
    write("assoc-no-%s" % key, snapshot(d))
d = copy()
d["associations"][2]["x"] = 1
write("assoc-unknown-key", snapshot(d))
for i, v in enumerate([[], "x", 1, None, True]):
    d = copy()
    d["associations"][2] = v
    write("assoc-is-%d" % i, snapshot(d))

# Trees that are not trees.
def tree(name, edit):
    d = copy()
    edit(d["associations"])
    write("tree-" + name, snapshot(d))

# a: root (id 1); big (2) with users 21, 22; small (3) with user 31.
def loop(a):
    a[1]["parent"] = 3  # big under small...
    a[4]["parent"] = 2  # ...and small under big
tree("loop", loop)
tree("self-parent", lambda a: a[1].update(parent=2))
tree("duplicate-id", lambda a: a[5].update(id=21))
tree("second-root", lambda a: a[1].update(parent=None))
tree("no-root", lambda a: a[0].update(parent=31))
tree("unknown-parent", lambda a: a[5].update(parent=7))
tree("user-with-children", lambda a: a[5].update(parent=21))
tree("only-users", lambda a: [x.update(user="u") for x in a])
tree("empty", lambda a: a.clear())
PY

# check FILE LABEL [stdin]: exit 2, nothing on stdout, one printable line "fairway: ...".
check() {
  if [ "$3" = stdin ]; then
    "$cli" shares - <"$1" >"$tmp/out" 2>"$tmp/err"
  else
    "$cli" shares "$1" >"$tmp/out" 2>"$tmp/err"
  fi
  rc=$?
  lines=$(wc -l <"$tmp/err")
  if [ "$rc" -eq 2 ] && [ ! -s "$tmp/out" ] && [ "$lines" -eq 1 ] &&
     ! LC_ALL=C grep -q -e '[^ -~]' -e 'json\.exception' -e ': not valid JSON$' "$tmp/err" &&
     LC_ALL=C grep -q '^fairway: .' "$tmp/err"; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL: $2: exit $rc, $lines lines on stderr: $(head -c 300 "$tmp/err" | od -c | head -n 4)"
  fi
}

i=0
for f in "$tmp"/cases/*; do
  check "$f" "${f##*/}"
  # Every 25th file again on standard input.
  i=$((i + 1))
  [ $((i % 25)) -ne 0 ] || check "$f" "${f##*/} on standard input" stdin
done
[ "$pass" -ge 850 ] || { fail=$((fail + 1)); echo "FAIL: only $pass malformed files checked"; }
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
