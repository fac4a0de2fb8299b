#!/usr/bin/env python3
"""The load of bench/forecast-experiment, and the forecasts it records.

Three accounts (fc_chem 1 share, fc_phys 2, fc_bio 3; users fw_e1..fw_e6, two each) keep
jobs pending from seeded streams (1, 2, 4 or 8 CPUs; 10 to 60 s of sleep, well under the
5-minute time limit backfill plans with), a quarter of them in partition urgent (a higher
PriorityTier on half the nodes), the rest in debug.  fc_chem keeps the most pending (30,
against 20 and 12), so its usage grows and its jobs fall behind; every 90 s one account (in
turn) adds a burst of 12 jobs.  Each round (2 s) tops every account up to its level.

Each time the plugin publishes a new forecast model (fairway_forecast.json's "time"), the
forecast of every pending job is recorded with `fairway forecast -P`, which carries
backfill's planned start (squeue --start) from the same read of the queue: one CSV row per
job (t, job, partition, place, of, seconds, low, high, backfill, no_estimate).  At the end
every job is cancelled and the starts are read from sacct (job, start, partition).
"""
import argparse
import csv
import json
import os
import random
import subprocess
import sys
import time

ACCOUNTS = [("fc_chem", ("fw_e1", "fw_e2"), 30), ("fc_phys", ("fw_e3", "fw_e4"), 20),
            ("fc_bio", ("fw_e5", "fw_e6"), 12)]
ROUND = 2.0
BURST_EVERY = 90.0
BURST = 12


def jobs_of(account, seed):
    """An endless, seeded stream of (cpus, seconds, partition) for one account."""
    rng = random.Random(f"{seed}:{account}")
    while True:
        yield (rng.choice((1, 2, 4, 8)), rng.randint(10, 60),
               "urgent" if rng.random() < 0.25 else "debug")


def pending_counts():
    out = subprocess.run(["squeue", "-h", "-t", "PD", "-o", "%a"], capture_output=True,
                         text=True, check=True).stdout
    counts = {a: 0 for a, _, _ in ACCOUNTS}
    for line in out.split():
        if line in counts:
            counts[line] += 1
    return counts


def submit(work, user, account, cpus, seconds, partition):
    subprocess.run(["sbatch", "--parsable", f"--uid={user}", "-A", account, "-p", partition,
                    "-D", work, "-o", "/dev/null", "-n", str(cpus), "-t", "5",
                    "--wrap", f"sleep {seconds}"], capture_output=True, text=True, check=True)


def model_time(path):
    try:
        with open(path) as f:
            return json.load(f)["time"]
    except (OSError, ValueError, KeyError):
        return None


def record_forecasts(cli, writer):
    now = int(time.time())
    out = subprocess.run([cli, "forecast", "-P"], capture_output=True, text=True)
    if out.returncode != 0:
        print(f"forecast_load: fairway forecast failed: {out.stderr.strip()}", file=sys.stderr)
        return 0
    rows = 0
    for line in out.stdout.splitlines()[1:]:
        f = line.split("|")
        if len(f) != 9:
            continue
        writer.writerow([now] + f)
        rows += 1
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--seconds", type=float, required=True)
    ap.add_argument("--model", required=True, help="the fairway_forecast.json to watch")
    ap.add_argument("--cli", required=True, help="the fairway command")
    ap.add_argument("--out", required=True, help="directory for forecasts.csv and starts.csv")
    ap.add_argument("--seed", default="forecast")
    a = ap.parse_args()
    streams = {acct: jobs_of(acct, a.seed) for acct, _, _ in ACCOUNTS}
    turn = {acct: 0 for acct, _, _ in ACCOUNTS}
    begin = time.time()
    t0 = time.monotonic()
    last_model = model_time(a.model)
    next_burst, burst_turn, recorded, periods = BURST_EVERY, 0, 0, 0
    with open(os.path.join(a.out, "forecasts.csv"), "w", newline="") as fc:
        w = csv.writer(fc)
        w.writerow(["t", "job", "partition", "place", "of", "seconds", "low", "high",
                    "backfill", "no_estimate"])
        while time.monotonic() - t0 < a.seconds:
            t = time.monotonic() - t0
            counts = pending_counts()
            for acct, users, level in ACCOUNTS:
                extra = 0
                if t >= next_burst and ACCOUNTS[burst_turn % len(ACCOUNTS)][0] == acct:
                    extra = BURST
                for _ in range(max(0, level - counts[acct]) + extra):
                    cpus, secs, part = next(streams[acct])
                    submit(a.work, users[turn[acct] % 2], acct, cpus, secs, part)
                    turn[acct] += 1
            if t >= next_burst:
                next_burst += BURST_EVERY
                burst_turn += 1
            m = model_time(a.model)
            if m is not None and m != last_model:
                last_model = m
                periods += 1
                recorded += record_forecasts(a.cli, w)
                fc.flush()
            time.sleep(max(0.0, ROUND - (time.monotonic() - t0 - t)))
    # explain's answer for a pending job, as a user reads it.
    out = subprocess.run([a.cli, "forecast", "-P"], capture_output=True, text=True).stdout
    estimated = [r.split("|")[0] for r in out.splitlines()[1:] if r.split("|")[4:5] != [""]]
    if estimated:
        with open(os.path.join(a.out, "explain.txt"), "w") as f:
            subprocess.run([a.cli, "explain", estimated[-1]], stdout=f, text=True)
    users = ",".join(u for _, us, _ in ACCOUNTS for u in us)
    subprocess.run(["scancel", "--user=" + users], capture_output=True)
    time.sleep(3)
    start = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(begin - 5))
    out = subprocess.run(["sacct", "-X", "-n", "-P", "-a", "-S", start, "-o",
                          "JobIDRaw,Start,Partition,State"], capture_output=True, text=True,
                         check=True).stdout
    starts = 0
    with open(os.path.join(a.out, "starts.csv"), "w", newline="") as sc:
        w = csv.writer(sc)
        w.writerow(["job", "start", "partition"])
        for line in out.splitlines():
            job, when, part, _state = line.split("|")[:4]
            if not job.isdigit() or when in ("", "Unknown", "None"):
                continue
            epoch = int(time.mktime(time.strptime(when, "%Y-%m-%dT%H:%M:%S")))
            w.writerow([job, epoch, part])
            starts += 1
    print(f"forecast_load: {periods} periods, {recorded} forecasts recorded, {starts} starts")
    return 0


if __name__ == "__main__":
    sys.exit(main())
