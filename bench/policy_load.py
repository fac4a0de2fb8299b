#!/usr/bin/env python3
"""The load of bench/policy-experiment and its samples.

Three groups (grpa, grpb, grpc; users fw_e1..fw_e6, two per group, in account GROUP.prj) keep
the queue saturated: every 2 seconds each active group is topped up to PENDING pending jobs
from its own seeded stream of jobs (1, 2, 4 or 8 CPUs; 30 to 120 s of sleep; the same stream
in every run).  grpa and grpb are active from the start, grpc from --enter seconds.  Each
round also samples squeue: the CPUs each group has running and its pending jobs, written as
one CSV row (t, then per group running CPUs and pending jobs).  At --seconds every job is
cancelled.

With --gpus (the GPU phase, on a testbed with GPUs): grpa keeps PENDING jobs of 4 or 8 CPUs
and no GPU pending and PENDING GPU jobs (1 CPU, 1 or 2 GPUs); grpb keeps PENDING GPU jobs
pending and runs nothing else; grpc stays idle.  Each row then has per group its running CPUs,
running GPUs and pending jobs.
"""
import argparse
import random
import subprocess
import sys
import time

GROUPS = [("grpa", ("fw_e1", "fw_e2")), ("grpb", ("fw_e3", "fw_e4")), ("grpc", ("fw_e5", "fw_e6"))]
PENDING = 12
ROUND = 2.0


def jobs_of(group, seed):
    """An endless, seeded stream of (cpus, seconds) for one group."""
    rng = random.Random(f"{seed}:{group}")
    while True:
        yield rng.choice((1, 2, 4, 8)), rng.randint(30, 120)


def gpu_jobs_of(group, seed):
    """An endless, seeded stream of (GPUs, seconds) for one group's GPU jobs (1 CPU each)."""
    rng = random.Random(f"{seed}:{group}:gpu")
    while True:
        yield rng.choice((1, 2)), rng.randint(30, 120)


def gpus_of(tres_per_node):
    """The GPUs of squeue's %b ("gres:gpu:2", "gres/gpu:2", "N/A")."""
    if "gpu" not in tres_per_node:
        return 0
    tail = tres_per_node.rsplit(":", 1)[-1]
    return int(tail) if tail.isdigit() else 1


def sample():
    """Per group: running CPUs, running GPUs, and pending jobs (by kind: "cpu", "gpu")."""
    out = subprocess.run(["squeue", "-h", "-o", "%a|%T|%C|%b"], capture_output=True, text=True,
                         check=True).stdout
    running = {g: 0 for g, _ in GROUPS}
    gpus = {g: 0 for g, _ in GROUPS}
    pending = {g: {"cpu": 0, "gpu": 0} for g, _ in GROUPS}
    for line in out.splitlines():
        acct, state, cpus, tres = line.split("|")
        group = acct.split(".")[0]
        if group not in running:
            continue
        if state == "RUNNING":
            running[group] += int(cpus)
            gpus[group] += gpus_of(tres)
        elif state == "PENDING":
            pending[group]["gpu" if gpus_of(tres) else "cpu"] += 1
    return running, gpus, pending


def submit(work, user, account, cpus, seconds, gpus=0):
    extra = ["-N", "1", f"--gres=gpu:{gpus}"] if gpus else []
    subprocess.run(["sbatch", "--parsable", f"--uid={user}", "-A", account, "-D", work,
                    "-o", "/dev/null", "-n", str(cpus), "-t", "4", *extra,
                    "--wrap", f"sleep {seconds}"],
                   capture_output=True, text=True, check=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--seconds", type=float, required=True)
    ap.add_argument("--enter", type=float, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", default="bmrc")
    ap.add_argument("--gpus", action="store_true", help="the GPU phase's load")
    a = ap.parse_args()
    streams = {g: jobs_of(g, a.seed) for g, _ in GROUPS}
    gpu_streams = {g: gpu_jobs_of(g, a.seed) for g, _ in GROUPS}
    # What each group keeps pending: the CPU phase, one stream each (grpc from --enter); the
    # GPU phase, grpa CPU and GPU jobs, grpb GPU jobs.
    kinds = ({"grpa": ("cpu", "gpu"), "grpb": ("gpu",), "grpc": ()} if a.gpus
             else {g: ("cpu",) for g, _ in GROUPS})
    turn = {g: 0 for g, _ in GROUPS}
    t0 = time.monotonic()
    with open(a.out, "w") as f:
        f.write("t," + ",".join(f"{g}_cpus,{g}_gpus,{g}_pending" for g, _ in GROUPS) + "\n")
        while True:
            t = time.monotonic() - t0
            if t >= a.seconds:
                break
            running, gpus, pending = sample()
            f.write(f"{t:.1f}," + ",".join(
                f"{running[g]},{gpus[g]},{pending[g]['cpu'] + pending[g]['gpu']}"
                for g, _ in GROUPS) + "\n")
            f.flush()
            for g, users in GROUPS:
                if g == "grpc" and t < a.enter:
                    continue
                for kind in kinds[g]:
                    for _ in range(PENDING - pending[g][kind]):
                        user = users[turn[g] % 2]
                        if kind == "gpu":
                            n, secs = next(gpu_streams[g])
                            submit(a.work, user, f"{g}.prj", 1, secs, gpus=n)
                        else:
                            cpus, secs = next(streams[g])
                            submit(a.work, user, f"{g}.prj", cpus, secs)
                        turn[g] += 1
            time.sleep(max(0.0, ROUND - (time.monotonic() - t0 - t)))
    subprocess.run(["scancel", "--user=" + ",".join(u for _, us in GROUPS for u in us)],
                   capture_output=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
