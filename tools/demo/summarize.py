#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Summarise a demo run: train.csv + switch.raw -> switch.csv, time.csv,
bytes.csv (for plot.gp) and a table on stdout; exit 1 when the final test
accuracies differ by more than the given percentage points."""
import csv
import os
import sys

ALGOS = ("optinc", "ring")


def read_train(path):
    runs = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            runs.setdefault(row["algo"], []).append(row)
    return runs


def step_times(rows):
    steps = sum(int(r["steps"]) for r in rows)
    mean = {}
    for k in ("compute_ms", "comm_ms", "step_ms"):
        mean[k] = sum(float(r[k]) * int(r["steps"]) for r in rows) / steps
    return steps, mean


def read_switch(path):
    sent = {}
    with open(path) as f:
        for line in f:
            algo, server, rx = line.strip().split(",")
            sent.setdefault(algo, []).append(int(rx))
    return sent


def write_switch(out, runs, sent):
    """Bytes per server per step over the gradient's bytes (Fig. 6)."""
    ratio = {}
    with open(os.path.join(out, "switch.csv"), "w") as f:
        f.write("algo,server,rx_bytes,steps,bytes_per_step,grad_bytes,ratio\n")
        for algo, per_server in sent.items():
            steps, _ = step_times(runs[algo])
            grad = int(runs[algo][0]["grad_bytes"])
            ratio[algo] = []
            for i, rx in enumerate(per_server):
                r = rx / steps / grad
                ratio[algo].append(r)
                f.write(f"{algo},{i},{rx},{steps},{rx / steps:.1f},{grad},{r:.4f}\n")
    with open(os.path.join(out, "bytes.csv"), "w") as f:
        f.write("server,optinc,ring\n")
        n = max(len(v) for v in ratio.values())
        for i in range(n):
            vals = [ratio.get(a, [0.0] * n)[i] for a in ALGOS]
            f.write(f"h{i},{vals[0]:.4f},{vals[1]:.4f}\n")
    return ratio


def main():
    out, servers = sys.argv[1], int(sys.argv[2])
    max_diff = float(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[3] else None
    runs = read_train(os.path.join(out, "train.csv"))
    ratio = write_switch(out, runs, read_switch(os.path.join(out, "switch.raw")))
    print(f"\n{'algo':8} {'epochs':>6} {'test acc %':>10} {'test loss':>9} "
          f"{'step ms':>8} {'compute':>8} {'comm':>8} {'sent/grad':>9}")
    with open(os.path.join(out, "time.csv"), "w") as f:
        f.write("algo,compute_ms,comm_ms,step_ms\n")
        for algo in ALGOS:
            if algo not in runs:
                continue
            rows = runs[algo]
            _, t = step_times(rows)
            f.write(f"{algo},{t['compute_ms']:.3f},{t['comm_ms']:.3f},{t['step_ms']:.3f}\n")
            r = sum(ratio[algo]) / len(ratio[algo])
            print(f"{algo:8} {sum(1 for r in rows if int(r['steps'])):6} {float(rows[-1]['test_acc']):10.2f} "
                  f"{float(rows[-1]['test_loss']):9.4f} {t['step_ms']:8.2f} "
                  f"{t['compute_ms']:8.2f} {t['comm_ms']:8.2f} {r:9.3f}")
    print(f"(sent/grad: bytes each server sent into the switch per step over "
          f"the gradient's bytes; ring all-reduce needs 2(N-1)/N = "
          f"{2 * (servers - 1) / servers:.3f} plus headers)")
    if "optinc" not in runs or "ring" not in runs:
        return 0
    diff = float(runs["optinc"][-1]["test_acc"]) - float(runs["ring"][-1]["test_acc"])
    speed = step_times(runs["ring"])[1]["step_ms"] / step_times(runs["optinc"])[1]["step_ms"]
    print(f"final test accuracy optinc - ring: {diff:+.2f} percentage points; "
          f"step time ring / optinc: {speed:.2f}x")
    if max_diff is not None and abs(diff) > max_diff:
        print(f"accuracy difference above {max_diff} points", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
