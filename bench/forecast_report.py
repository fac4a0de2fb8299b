#!/usr/bin/env python3
"""The calibration of Fairway's forecast against the starts that followed, and backfill's.

Reads OUTDIR/forecasts.csv and OUTDIR/starts.csv (bench/forecast_load.py) and writes
OUTDIR/forecast.md: per partition and overall, for the forecasts made at least --horizon
seconds before the load ended whose job then started,
  - the share of starts inside the stated 80 % interval,
  - the median width of that interval,
  - the median absolute error of the central estimate,
  - for the same forecasts where backfill had planned a start, the median absolute error of
    backfill's StartTime and of the central estimate on those same rows;
the same for the jobs not among the first three in line; and the forecasts without an
estimate, by reason.  With --check, exits 1 unless the whole path worked: forecasts were
recorded, jobs started, forecasts with an estimate were matched to starts, and every one of
them holds its central estimate inside its interval.  A short run's coverage is no
calibration figure (its first model holds only the starts that came quickly, so it ranged
from 10 to 100 % in runs of 330-360 s): --check does not judge it.
"""
import argparse
import csv
import os
import statistics
import sys


def minutes(s):
    return "-" if s is None else f"{s / 60:.1f} min"


def figures(rows):
    """rows: (actual, central, low, high, backfill_error or None, place)."""
    if not rows:
        return None
    inside = sum(1 for r in rows if r[2] <= r[0] <= r[3])
    bf = [r for r in rows if r[4] is not None]
    return {
        "n": len(rows),
        "coverage": inside / len(rows),
        "width": statistics.median(r[3] - r[2] for r in rows),
        "error": statistics.median(abs(r[1] - r[0]) for r in rows),
        "bf_n": len(bf),
        "bf_error": statistics.median(r[4] for r in bf) if bf else None,
        "bf_ours": statistics.median(abs(r[1] - r[0]) for r in bf) if bf else None,
    }


def line(name, f):
    if not f:
        return f"| {name} | 0 | - | - | - | 0 | - | - |"
    return (f"| {name} | {f['n']} | {100 * f['coverage']:.0f} % | {minutes(f['width'])} | "
            f"{minutes(f['error'])} | {f['bf_n']} | {minutes(f['bf_ours'])} | "
            f"{minutes(f['bf_error'])} |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("--horizon", type=float, default=300)
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    with open(os.path.join(a.outdir, "starts.csv")) as f:
        starts = {int(r["job"]): int(r["start"]) for r in csv.DictReader(f)}
    with open(os.path.join(a.outdir, "forecasts.csv")) as f:
        fc = list(csv.DictReader(f))
    if not fc:
        print("forecast_report: no forecast was recorded", file=sys.stderr)
        return 1
    end = max(int(r["t"]) for r in fc)
    by_part, no_estimate, censored, evaluated = {}, {}, 0, 0
    for r in fc:
        t = int(r["t"])
        if t > end - a.horizon:
            continue
        if r["no_estimate"]:
            reason = r["no_estimate"].split(" (")[0]
            if "too few" in reason:
                reason = "too few recent starts in the partition"
            no_estimate[reason] = no_estimate.get(reason, 0) + 1
            continue
        job = int(r["job"])
        if job not in starts:
            censored += 1
            continue
        evaluated += 1
        actual = starts[job] - t
        central, low, high = float(r["seconds"]), float(r["low"]), float(r["high"])
        bf = abs(int(r["backfill"]) - starts[job]) if r["backfill"] else None
        row = (actual, central, low, high, bf, int(r["place"]))
        by_part.setdefault(r["partition"], []).append(row)
    everything = [x for rows in by_part.values() for x in rows]
    out = ["| forecasts of | n | inside the 80 % interval | median width | median error | "
           "n with backfill | our error there | backfill's error |",
           "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for part in sorted(by_part):
        out.append(line(f"partition {part}", figures(by_part[part])))
        out.append(line(f"partition {part}, place > 3",
                        figures([x for x in by_part[part] if x[5] > 3])))
    out.append(line("**all**", figures(everything)))
    out.append(line("**all, place > 3**", figures([x for x in everything if x[5] > 3])))
    out.append("")
    out.append(f"{len(fc)} forecasts recorded, {len(starts)} jobs started; evaluated: "
               f"{evaluated} forecasts made at least {a.horizon:.0f} s before the end whose job "
               f"started; {censored} whose job had not started by the end were left out.")
    if no_estimate:
        out.append("No estimate: " + "; ".join(f"{n} ({k})" for k, n in
                                                sorted(no_estimate.items())) + ".")
    text = "\n".join(out) + "\n"
    with open(os.path.join(a.outdir, "forecast.md"), "w") as f:
        f.write(text)
    print(text, end="")
    if a.check:
        problems = []
        if not starts:
            problems.append("no job started")
        if not everything:
            problems.append("no forecast with an estimate was matched to a start")
        wrong = [x for x in everything if not 0 <= x[2] <= x[1] <= x[3]]
        if wrong:
            problems.append(f"{len(wrong)} forecasts whose central estimate is outside their "
                            f"interval")
        for p in problems:
            print(f"forecast_report: {p}", file=sys.stderr)
        return 1 if problems else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
