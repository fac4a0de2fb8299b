#!/usr/bin/env bash
# fairway plot, looked at as a person would: a share tree of about 1,000 associations and an
# account's history, written as SVG, rendered by headless Chromium (Debian's chromium package)
# to PNG.  Checks that the SVG is well-formed XML, that every association's name is in its
# text (drawn, or in the tooltip of the box that gathers it), and that the PNG rendered: its
# size, and enough distinct colours that it is not blank.
# Environment (set by 'make check'): FAIRWAY_CLI (default ./tools/fairway); FAIRWAY_PLOT_KEEP=DIR
# keeps the SVG and PNG files there.
set -u
cli=${FAIRWAY_CLI:-./tools/fairway}
pass=0 fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { echo "FAIL: chromium is not installed (scripts/install-deps installs it)"; echo "0 passed, 1 failed"; exit 1; }

# A tree of 12 departments, 2-6 groups each, 3-30 users per group; usage at random.
python3 - "$tmp/tree.json" <<'PY'
import json, random, sys
random.seed(7)
a = [{"id": 1, "parent": None, "account": "root", "user": None, "shares": 1, "usage": 0}]
nid = 2
for d in range(12):
    dept = "dept%02d" % d
    did = nid; nid += 1
    a.append({"id": did, "parent": 1, "account": dept, "user": None, "shares": random.choice([10, 20, 50, 100, 200]), "usage": 0})
    for g in range(random.randint(2, 6)):
        grp = "%s.grp%d" % (dept, g)
        gid = nid; nid += 1
        a.append({"id": gid, "parent": did, "account": grp, "user": None, "shares": random.choice([1, 2, 5, 10]), "usage": 0})
        for u in range(random.randint(3, 30)):
            a.append({"id": nid, "parent": gid, "account": grp, "user": "u%04d" % nid, "shares": random.choice([1, 1, 1, 2, 5]),
                      "usage": random.choice([0, 0, 1e3, 1e5, 1e6, 5e6]) * random.random()})
            nid += 1
json.dump({"fairway_snapshot": 1, "algorithm": "fair_tree", "dampening_factor": 1, "associations": a}, open(sys.argv[1], "w"))
PY

# A history of 100 periods of account chem (lib/core/history.h's format).
mkdir -p "$tmp/hist"
{
  echo "name 1 root"
  echo "name 2 chem"
  python3 -c '
import math, time
now = int(time.time())
for k in range(100):
    s = 0.3 + 0.2 * math.sin(k / 10.0)
    print("period %d 1:1e6:1:1:0 2:%r:%r:0.4:%r" % (now - (100 - k) * 60, s * 1e6, s, 2 ** (-s / 0.4)))'
} | python3 "$(dirname "$0")/write_history.py" "$tmp/hist"

# rendered FILE.svg -> FILE.png at WIDTHxHEIGHT; checks size and colours.
render() { # name svg width height min-colours
  local png=$tmp/$1.png
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
    --user-data-dir="$tmp/chromium" --screenshot="$png" --window-size="$3,$4" "file://$2" \
    >"$tmp/$1.chromium.log" 2>&1
  if [ ! -s "$png" ]; then
    ko "$1: Chromium rendered no PNG: $(tail -n 3 "$tmp/$1.chromium.log")"
    return
  fi
  if python3 - "$png" "$3" "$4" "$5" <<'PY'; then ok; else ko "$1: the PNG is not the picture (see above)"; fi
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, w = 8, b"", 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
assert (w, h) == (int(sys.argv[2]), int(sys.argv[3])), f"{w}x{h}"
assert depth == 8 and ctype in (2, 6), f"depth {depth} colour type {ctype}"
bpp = 3 if ctype == 2 else 4
raw = zlib.decompress(idat)
stride = w * bpp
prev = bytearray(stride)
colours = set()
for y in range(h):
    f = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for x in range(0, stride, bpp * 3):
        colours.add(bytes(line[x:x + 3]))
    prev = line
need = int(sys.argv[4])
assert len(colours) >= need, f"{len(colours)} distinct colours, want at least {need}: blank?"
print(f"  {sys.argv[1].rsplit('/', 1)[1]}: {w}x{h}, {len(colours)} distinct colours")
PY
}

# ---- the share tree ----
if "$cli" plot tree "$tmp/tree.json" -o "$tmp/tree.svg" 2>"$tmp/err" && [ ! -s "$tmp/err" ]; then ok; else ko "plot tree: $(cat "$tmp/err")"; fi
if python3 - "$tmp/tree.svg" "$tmp/tree.json" <<'PY'; then ok; else ko "plot tree: the SVG does not name every association"; fi
import json, sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
text = " ".join(t for e in root.iter() for t in (e.text or "",))
assocs = json.load(open(sys.argv[2]))["associations"]
missing = [a["user"] or a["account"] for a in assocs if (a["user"] or a["account"]) not in text]
assert len(assocs) > 900, len(assocs)
assert not missing, f"{len(missing)} names missing, e.g. {missing[:5]}"
PY
render tree "$tmp/tree.svg" 1220 300 12

# ---- the history ----
if "$cli" plot history --dir "$tmp/hist" --account chem -o "$tmp/history.svg" 2>"$tmp/err" && [ ! -s "$tmp/err" ]; then ok; else ko "plot history: $(cat "$tmp/err")"; fi
if python3 -c 'import sys, xml.etree.ElementTree as ET; r = ET.parse(sys.argv[1]).getroot(); assert "Fair-share of account chem" in "".join(e.text or "" for e in r.iter())' "$tmp/history.svg"; then ok; else ko "plot history: not well-formed or untitled"; fi
render history "$tmp/history.svg" 1000 440 4

# ---- errors ----
if "$cli" plot tree "$tmp/missing.json" -o "$tmp/x.svg" 2>"$tmp/err"; then ko "plot tree of a missing file succeeded"
elif [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ ! -e "$tmp/x.svg" ]; then ok
else ko "plot tree of a missing file: $(cat "$tmp/err")"; fi
if "$cli" plot 2>/dev/null; then ko "plot without tree or history succeeded"; else ok; fi

if [ -n "${FAIRWAY_PLOT_KEEP:-}" ]; then
  mkdir -p "$FAIRWAY_PLOT_KEEP" && cp "$tmp"/*.svg "$tmp"/*.png "$FAIRWAY_PLOT_KEEP"/
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
