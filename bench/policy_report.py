#!/usr/bin/env python3
"""Figures and a picture from bench/policy-experiment's samples (OUTDIR/MODE.csv).

Target (BMRC): each group's share of the allocated CPUs equals its share of the shares among
the groups with work (grpa 1, grpb 2, grpc 3; grpc from --enter on).  Per sample the
deviation is the largest |allocated share - target| over those groups; averaged over the
samples from the second minute (the first jobs turned over) to grpc's entry, and from the
moment grpc's share first comes within 0.05 of its target to the end.  Written:
OUTDIR/policies.md (a table per phase, and how grpc's burst reached its target) and
OUTDIR/policies.svg (each group's share over time, per policy, against its target).

The GPU phase (runs named gpu-*): the target is each group's share of the allocated GPUs
equal to its share of the shares among the groups asking for GPUs (grpa 1/3, grpb 2/3).  Per
sample from the second minute on, grpa's share of the allocated GPUs and its distance from
1/3; written as a second table in OUTDIR/policies.md and as OUTDIR/policies-gpu.svg.
"""
import argparse
import csv
import os
import sys

SHARES = {"grpa": 1, "grpb": 2, "grpc": 3}
COLOURS = {"grpa": "#1b6ca8", "grpb": "#2e8b57", "grpc": "#c0392b"}
NAMES = {"multifactor": "priority/multifactor (BMRC's settings)",
         "fairway": "priority/fairway, the same settings",
         "allocated": "priority/fairway, fairway_usage=allocated",
         "rerank": "the same, fairway_rerank_interval=10",
         "committed": "priority/fairway, fairway_usage=committed",
         "gpu-multifactor": "priority/multifactor (BMRC's settings)",
         "gpu-fairway": "priority/fairway, the same settings",
         "gpu-tres": "priority/fairway, fairway_fairshare_tres=gres/gpu",
         "gpu-held": "the same, fairway_usage=allocated, fairway_rerank_interval=10"}
GPU_SHARES = {"grpa": 1, "grpb": 2}
WARM = 120.0  # two calculation periods: the first jobs have turned over


def load(path):
    with open(path) as f:
        return [{k: float(v) for k, v in row.items()} for row in csv.DictReader(f)]


def targets(t, enter):
    active = [g for g in SHARES if g != "grpc" or t >= enter]
    total = sum(SHARES[g] for g in active)
    return {g: (SHARES[g] / total if g in active else 0.0) for g in SHARES}


def shares(row):
    total = sum(row[f"{g}_cpus"] for g in SHARES)
    return {g: (row[f"{g}_cpus"] / total if total else 0.0) for g in SHARES}, total


def figures(rows, enter):
    p1, p2 = [], []
    c_reach = None
    c_peak = 0.0
    above = 0.0
    prev_t = None
    for r in rows:
        t = r["t"]
        s, total = shares(r)
        if not total:
            continue
        tg = targets(t, enter)
        dev = max(abs(s[g] - tg[g]) for g in SHARES if tg[g] > 0)
        if WARM <= t < enter:
            p1.append(dev)
        elif t >= enter:
            c_peak = max(c_peak, s["grpc"])
            if c_reach is None and s["grpc"] >= tg["grpc"] - 0.05:
                c_reach = t - enter
            # Once the burst has reached its target: how well the three are held there.
            if c_reach is not None:
                p2.append(dev)
            if prev_t is not None and s["grpc"] > tg["grpc"] + 0.1:
                above += t - prev_t
        prev_t = t
    mean = lambda v: sum(v) / len(v) if v else float("nan")
    return {"p1_mean": mean(p1), "p1_worst": max(p1, default=float("nan")),
            "p2_mean": mean(p2), "p2_worst": max(p2, default=float("nan")),
            "c_reach": c_reach, "c_peak": c_peak, "c_above": above, "samples": len(rows)}


def gpu_shares(row):
    total = sum(row.get(f"{g}_gpus", 0.0) for g in GPU_SHARES)
    return {g: (row.get(f"{g}_gpus", 0.0) / total if total else 0.0) for g in GPU_SHARES}, total


def gpu_figures(rows):
    """grpa's share of the allocated GPUs against its 1/3, from the second minute on."""
    target = GPU_SHARES["grpa"] / sum(GPU_SHARES.values())
    share, dev, used, cpus = [], [], [], []
    for r in rows:
        if r["t"] < WARM:
            continue
        s, total = gpu_shares(r)
        used.append(total)
        cpus.append(r["grpa_cpus"])
        if not total:
            continue
        share.append(s["grpa"])
        dev.append(abs(s["grpa"] - target))
    mean = lambda v: sum(v) / len(v) if v else float("nan")
    return {"share": mean(share), "dev_mean": mean(dev), "dev_worst": max(dev, default=float("nan")),
            "below": sum(1 for v in share if v < target / 2) / len(share) if share else float("nan"),
            "used": mean(used), "grpa_cpus": mean(cpus)}


def svg_head(w, h, left, what):
    """The picture's opening: its size, a white page and the title."""
    return [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
            f'viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="12">',
            f'<rect width="{w}" height="{h}" fill="white"/>',
            f'<text x="{left}" y="20" font-size="14" font-weight="bold">Share of allocated {what} '
            f'per group (solid) against its share of the shares (dashed)</text>']


def panel_frame(out, mode, x, y, y0, w, ph, left, seconds):
    """One policy's panel: its name, frame, share grid and minute marks."""
    out.append(f'<text x="{left}" y="{y0 - 6}" font-weight="bold">{NAMES.get(mode, mode)}</text>')
    out.append(f'<rect x="{left}" y="{y0}" width="{w - left - 20}" height="{ph}" '
               f'fill="none" stroke="#888"/>')
    for v in (0, 0.25, 0.5, 0.75, 1):
        out.append(f'<line x1="{left}" x2="{w - 20}" y1="{y(v):.1f}" y2="{y(v):.1f}" '
                   f'stroke="#ddd"/><text x="{left - 6}" y="{y(v) + 4:.1f}" '
                   f'text-anchor="end">{v:g}</text>')
    for t in range(0, int(seconds) + 1, 60):
        out.append(f'<text x="{x(t):.1f}" y="{y0 + ph + 14}" text-anchor="middle">'
                   f'{t // 60} min</text>')


def share_line(rows, g, shares_of, x, y):
    """Group g's share over time (shares_of: shares or gpu_shares), as a polyline."""
    pts = []
    for r in rows:
        s, total = shares_of(r)
        if total:
            pts.append(f"{x(r['t']):.1f},{y(s[g]):.1f}")
    return (f'<polyline fill="none" stroke="{COLOURS[g]}" stroke-width="1.8" '
            f'points="{" ".join(pts)}"/>')


def gpu_svg(runs, seconds):
    w, ph, left, top, gap = 860, 160, 60, 40, 50
    h = top + len(runs) * (ph + gap) + 20
    x = lambda t: left + (w - left - 20) * t / seconds
    total_shares = sum(GPU_SHARES.values())
    out = svg_head(w, h, left, "GPUs")
    for k, (mode, rows) in enumerate(runs):
        y0 = top + k * (ph + gap) + 18
        y = lambda v: y0 + ph * (1 - v)
        panel_frame(out, mode, x, y, y0, w, ph, left, seconds)
        for g in GPU_SHARES:
            tv = GPU_SHARES[g] / total_shares
            out.append(f'<line x1="{left}" x2="{w - 20}" y1="{y(tv):.1f}" y2="{y(tv):.1f}" '
                       f'stroke="{COLOURS[g]}" stroke-width="1.2" stroke-dasharray="6,4"/>')
            out.append(share_line(rows, g, gpu_shares, x, y))
    ly = h - 12
    for i, g in enumerate(GPU_SHARES):
        what = "CPU and GPU jobs" if g == "grpa" else "GPU jobs only"
        out.append(f'<line x1="{left + i * 260}" x2="{left + i * 260 + 24}" y1="{ly - 4}" '
                   f'y2="{ly - 4}" stroke="{COLOURS[g]}" stroke-width="2"/>'
                   f'<text x="{left + i * 260 + 30}" y="{ly}">{g} ({GPU_SHARES[g]} '
                   f'share{"s" if GPU_SHARES[g] > 1 else ""}, {what})</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def svg(runs, seconds, enter):
    w, ph, left, top, gap = 860, 200, 60, 40, 50
    h = top + len(runs) * (ph + gap) + 20
    x = lambda t: left + (w - left - 20) * t / seconds
    out = svg_head(w, h, left, "CPUs")
    for k, (mode, rows) in enumerate(runs):
        y0 = top + k * (ph + gap) + 18
        y = lambda v: y0 + ph * (1 - v)
        panel_frame(out, mode, x, y, y0, w, ph, left, seconds)
        out.append(f'<line x1="{x(enter):.1f}" x2="{x(enter):.1f}" y1="{y0}" y2="{y0 + ph}" '
                   f'stroke="#555" stroke-dasharray="2,3"/>')
        for g in SHARES:
            tgt = [(0, targets(0, enter)[g]), (enter, targets(0, enter)[g]),
                   (enter, targets(enter, enter)[g]), (seconds, targets(enter, enter)[g])]
            out.append('<polyline fill="none" stroke="{}" stroke-width="1.2" stroke-dasharray="6,4" '
                       'points="{}"/>'.format(COLOURS[g], " ".join(f"{x(t):.1f},{y(v):.1f}" for t, v in tgt)))
            out.append(share_line(rows, g, shares, x, y))
    ly = h - 12
    for i, g in enumerate(SHARES):
        out.append(f'<line x1="{left + i * 170}" x2="{left + i * 170 + 24}" y1="{ly - 4}" '
                   f'y2="{ly - 4}" stroke="{COLOURS[g]}" stroke-width="2"/>'
                   f'<text x="{left + i * 170 + 30}" y="{ly}">{g} ({SHARES[g]} '
                   f'share{"s" if SHARES[g] > 1 else ""})</text>')
    out.append(f'<text x="{left + 3 * 170}" y="{ly}">dotted line: grpc starts its burst</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def cpu_table(runs, enter):
    lines = ["| policy | grpa+grpb (1:2): mean / worst deviation | grpc's burst within 0.05 of its "
             "0.5 after | then, all three (1:2:3): mean / worst deviation | grpc's peak share | "
             "grpc above 0.6 for |",
             "| --- | --- | --- | --- | --- | --- |"]
    for mode, rows in runs:
        f = figures(rows, enter)
        reach = f"{f['c_reach']:.0f} s" if f["c_reach"] is not None else "never"
        lines.append(f"| {NAMES.get(mode, mode)} | {f['p1_mean']:.3f} / {f['p1_worst']:.3f} | "
                     f"{reach} | {f['p2_mean']:.3f} / {f['p2_worst']:.3f} | {f['c_peak']:.2f} | "
                     f"{f['c_above']:.0f} s |")
    return lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, required=True)
    ap.add_argument("--enter", type=float, required=True)
    ap.add_argument("outdir")
    a = ap.parse_args()
    runs = []
    for mode in NAMES:
        path = os.path.join(a.outdir, mode + ".csv")
        if os.path.exists(path):
            runs.append((mode, load(path)))
    if not runs:
        print("policy_report: no MODE.csv in " + a.outdir, file=sys.stderr)
        return 1
    gpu_runs = [(m, r) for m, r in runs if m.startswith("gpu-")]
    runs = [(m, r) for m, r in runs if not m.startswith("gpu-")]
    lines = []
    if runs:
        lines += cpu_table(runs, a.enter)
        with open(os.path.join(a.outdir, "policies.svg"), "w") as f:
            f.write(svg(runs, a.seconds, a.enter))
    if gpu_runs:
        if lines:
            lines.append("")
        lines += ["| policy | grpa's share of the allocated GPUs (target 0.333) | mean / worst "
                  "deviation | samples with grpa below half its target | GPUs allocated (of 16) | "
                  "grpa's CPUs |",
                  "| --- | --- | --- | --- | --- | --- |"]
        for mode, rows in gpu_runs:
            f = gpu_figures(rows)
            lines.append(f"| {NAMES.get(mode, mode)} | {f['share']:.3f} | {f['dev_mean']:.3f} / "
                         f"{f['dev_worst']:.3f} | {100 * f['below']:.0f}% | {f['used']:.1f} | "
                         f"{f['grpa_cpus']:.1f} |")
        with open(os.path.join(a.outdir, "policies-gpu.svg"), "w") as f:
            f.write(gpu_svg(gpu_runs, a.seconds))
    with open(os.path.join(a.outdir, "policies.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
