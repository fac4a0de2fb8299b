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

# A history of 100 periods of account chem (lib/queue/history.h's format).
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

# ---- what the tree says: its cluster and time, a label or a listing for every account drawn,
# bars inside their boxes, one meaning for colour (an account's: its users' highest factor) ----
python3 - "$FAIRWAY_TEST_DATA/../fuzz/corpus/snapshot/v2_queue.json" "$tmp/v2.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["cluster"]["name"] = "testcluster"
json.dump(d, open(sys.argv[2], "w"))
PY
if "$cli" plot tree "$tmp/v2.json" -o "$tmp/v2.svg" 2>"$tmp/err" &&
   grep -Eq 'cluster testcluster, taken [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8}' "$tmp/v2.svg"; then ok
else ko "plot tree of a version 2 snapshot: no cluster name and time: $(cat "$tmp/err")"; fi
if grep -Eq 'cluster not recorded, file written [0-9]{4}-' "$tmp/tree.svg"; then ok
else ko "plot tree of a version 1 snapshot: no time of the file"; fi
if python3 - "$tmp/tree.svg" <<'PY'; then ok; else ko "plot tree: labels, bars or colours (see above)"; fi
import re, sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
texts = [e.text or "" for e in root.iter(ns + "text")]
narrow = " ".join(t for t in texts if "too narrow" in t or t.startswith(" "))
problems = []
users = {}   # account -> factors of its users drawn
accounts = {}
for g in root.iter(ns + "g"):
    title = g.find(ns + "title")
    rects = g.findall(ns + "rect")
    if title is None or not rects or "more, too small" in (title.text or ""):
        continue
    box, name = rects[0], title.text.split(":")[0]
    x, w = float(box.get("x")), float(box.get("width"))
    for bar in rects[1:]:
        bx, bw = float(bar.get("x")), float(bar.get("width"))
        if bx < x - 1e-6 or bx + bw > x + w + 1e-6:
            problems.append(f"{name}: bar {bx}+{bw} outside its box {x}+{w}")
    m = re.search(r"factor(?: of its users)? ([0-9.]+|none)$", title.text)
    f = None if m is None or m.group(1) == "none" else float(m.group(1))
    if " / " in name:
        acct, user = name.split(" / ")
        users.setdefault(acct, []).append(f)
    else:
        accounts[name] = f
        label = g.find(ns + "text")
        drawn = label is not None and (label.text == name or
                                       (label.text.endswith("\u2026") and name.startswith(label.text[:-1])))
        if not drawn and not re.search(r"(^|[ :,])" + re.escape(name) + r"(,|$)", narrow):
            problems.append(f"account {name} is neither labelled nor listed")
for acct, fs in users.items():
    best = max(f for f in fs if f is not None)
    if acct in accounts and (accounts[acct] is None or accounts[acct] + 1e-3 < best):
        problems.append(f"account {acct}: colour factor {accounts[acct]}, its users' highest {best}")
legend = " ".join(texts)
if "2^-" in legend:
    problems.append("the legend gives the colour two meanings")
print("\n".join(problems[:10]))
assert not problems, f"{len(problems)} problems"
PY
render tree_labels "$tmp/tree.svg" 1220 420 12

# ---- the history: no time label twice; an account's factor as the history holds it ----
{
  echo "name 1 root"
  echo "name 2 bio"
  echo "name 3 bio alice"
  python3 -c '
import math, time
now = int(time.time())
for k in range(4):
    print("period %d 1:1e6:1:1:0 2:5e5:0.5:0.4:0 3:5e5:0.5:0.4:%r" % (now - (4 - k) * 60, 0.3 + 0.1 * k))'
} | python3 "$(dirname "$0")/write_history.py" "$tmp/short"
if "$cli" plot history --dir "$tmp/short" --account bio -o "$tmp/short.svg" 2>"$tmp/err" &&
   python3 - "$tmp/short.svg" <<'PY'; then ok; else ko "plot history of 4 minutes of an account: $(cat "$tmp/err")"; fi
import re, sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
ticks = [e.text for e in root.iter(ns + "text") if e.get("text-anchor") == "middle"]
assert len(ticks) == len(set(ticks)), f"a time label twice: {ticks}"
assert len(ticks) >= 2, ticks
paths = [e for e in root.iter(ns + "path") if e.get("stroke") == "#1a9850" and "L" in e.get("d", "")]
assert paths, "no factor line"
ys = [float(v) for v in re.findall(r"[ML]\s*[0-9.]+ ([0-9.]+)", paths[0].get("d"))]
assert len(set(ys)) > 1, f"the account's factor line is flat: {ys}"
assert any("highest fair-share factor of its users" in (e.text or "") for e in root.iter(ns + "text"))
PY
render short "$tmp/short.svg" 1000 440 4

# ---- -o: a device, a FIFO and a symbolic link are written through, never replaced ----
if mknod "$tmp/null" c 1 3 2>/dev/null; then
  if "$cli" plot tree "$tmp/tree.json" -o "$tmp/null" 2>"$tmp/err" && [ -c "$tmp/null" ]; then ok
  else ko "plot tree -o a character device: it is no longer one: $(ls -l "$tmp/null") $(cat "$tmp/err")"; fi
else
  echo "SKIP: mknod refused: -o to a character device was not tried"
fi
mkfifo "$tmp/fifo"
cat "$tmp/fifo" >"$tmp/fifo.out" &
reader=$!
timeout 20 "$cli" plot tree "$tmp/tree.json" -o "$tmp/fifo" 2>"$tmp/err"
rc=$?
# A reader still waiting for a writer (the FIFO replaced, or never opened) is let go.
if [ "$rc" -ne 0 ] || [ ! -p "$tmp/fifo" ]; then kill "$reader" 2>/dev/null; fi
wait "$reader" 2>/dev/null
if [ "$rc" -eq 0 ] && [ -p "$tmp/fifo" ] && grep -q '</svg>' "$tmp/fifo.out"; then ok
else ko "plot tree -o a FIFO: exit $rc, $(ls -l "$tmp/fifo") $(cat "$tmp/err")"; fi
echo old >"$tmp/real.svg"
chmod 0644 "$tmp/real.svg"
ln -s real.svg "$tmp/link.svg"
if (umask 022; "$cli" plot tree "$tmp/tree.json" -o "$tmp/link.svg") 2>"$tmp/err" && [ -L "$tmp/link.svg" ] &&
   grep -q '</svg>' "$tmp/real.svg" && [ "$(stat -c %a "$tmp/real.svg")" = 600 ]; then ok
else ko "plot tree -o a symbolic link: $(ls -l "$tmp/link.svg" "$tmp/real.svg") $(cat "$tmp/err")"; fi
if (umask 022; "$cli" plot tree "$tmp/tree.json" -o "$tmp/new.svg") 2>"$tmp/err" &&
   [ "$(stat -c %a "$tmp/new.svg")" = 600 ]; then ok
else ko "plot tree -o a new file: mode $(stat -c %a "$tmp/new.svg") (want 600: it names every user)"; fi

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
