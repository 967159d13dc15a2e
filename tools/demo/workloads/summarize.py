#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Summarise a workload run of optinc-demo: steps.csv, eval.csv and
switch.raw -> switch.csv, time.csv, bytes.csv, curve.csv (for plot.gp),
summary.txt and a table on stdout. With a limit, exit 1 when the final
metrics of optinc and gloo differ by more: percentage points of test
accuracy (resnet) or percent of the validation loss (lm)."""
import csv
import os
import sys

ALGOS = ("optinc", "gloo")


def rows_of(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def by_algo(rows):
    out = {}
    for r in rows:
        out.setdefault(r["algo"], []).append(r)
    return out


def mean(rows, key):
    return sum(float(r[key]) for r in rows) / len(rows)


def times(steps, skip):
    """Mean ms per step, leaving out the first @skip steps (warm-up)."""
    rows = steps[skip:] if len(steps) > skip else steps
    return {k: mean(rows, k) for k in ("step_ms", "compute_ms", "comm_ms",
                                       "comm_span_ms")}


def read_switch(path):
    sent = {}
    with open(path) as f:
        for line in f:
            algo, _, rx = line.strip().split(",")
            sent.setdefault(algo, []).append(int(rx))
    return sent


def write_bytes(out, steps, sent):
    ratio = {}
    with open(os.path.join(out, "switch.csv"), "w") as f:
        f.write("algo,server,rx_bytes,steps,bytes_per_step,grad_bytes,ratio\n")
        for algo, per in sent.items():
            n, grad = len(steps[algo]), int(steps[algo][0]["grad_bytes"])
            ratio[algo] = [rx / n / grad for rx in per]
            for i, rx in enumerate(per):
                f.write("%s,%d,%d,%d,%.1f,%d,%.4f\n" % (algo, i, rx, n, rx / n,
                                                      grad, ratio[algo][i]))
    with open(os.path.join(out, "bytes.csv"), "w") as f:
        f.write("server,optinc,gloo\n")
        n = max(len(v) for v in ratio.values())
        for i in range(n):
            f.write("h%d,%s\n" % (i, ",".join("%.4f" % ratio.get(a, [0] * n)[i]
                                              for a in ALGOS)))
    return ratio


def write_curve(out, steps):
    """Per step: the loss of rank 0's batch and its running mean (EMA 0.95)."""
    with open(os.path.join(out, "curve.csv"), "w") as f:
        f.write("algo,step,train_loss,train_loss_ema\n")
        for algo in ALGOS:
            ema = None
            for r in steps.get(algo, []):
                x = float(r["train_loss"])
                ema = x if ema is None else 0.95 * ema + 0.05 * x
                f.write("%s,%s,%.5f,%.5f\n" % (algo, r["step"], x, ema))


def main():
    out, servers = sys.argv[1], int(sys.argv[2])
    limit = float(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[3] else None
    steps = by_algo(rows_of(os.path.join(out, "steps.csv")))
    evals = by_algo(rows_of(os.path.join(out, "eval.csv")))
    ratio = write_bytes(out, steps, read_switch(os.path.join(out, "switch.raw")))
    write_curve(out, steps)
    wl = next(iter(steps.values()))[0]["workload"]
    metric = "test_acc" if wl == "resnet" else "val_loss"
    lines = ["%-7s %6s %9s %9s %8s %8s %8s %9s" % (
        "algo", "steps", metric, "loss" if wl == "resnet" else "val_ppl",
        "step ms", "compute", "comm", "sent/grad")]
    t = {}
    with open(os.path.join(out, "time.csv"), "w") as f:
        f.write("algo,compute_ms,comm_ms,step_ms,comm_span_ms\n")
        for algo in ALGOS:
            if algo not in steps:
                continue
            t[algo] = times(steps[algo], 5)
            f.write("%s,%.3f,%.3f,%.3f,%.3f\n" % (algo, t[algo]["compute_ms"],
                                                  t[algo]["comm_ms"],
                                                  t[algo]["step_ms"],
                                                  t[algo]["comm_span_ms"]))
            last = evals[algo][-1]
            other = last["test_loss"] if wl == "resnet" else last["val_ppl"]
            lines.append("%-7s %6d %9.4f %9.4f %8.1f %8.1f %8.1f %9.3f" % (
                algo, len(steps[algo]), float(last[metric]), float(other),
                t[algo]["step_ms"], t[algo]["compute_ms"], t[algo]["comm_ms"],
                sum(ratio[algo]) / len(ratio[algo])))
    lines.append("(sent/grad: bytes each server sent into the switch per step over "
                 "the float32 gradient's bytes, counted by the switch; a ring "
                 "all-reduce needs 2(N-1)/N = %.3f plus headers)" %
                 (2 * (servers - 1) / servers))
    rc = 0
    if all(a in steps for a in ALGOS):
        a, b = (float(evals[x][-1][metric]) for x in ALGOS)
        if wl == "resnet":
            diff, unit = a - b, "percentage points"
        else:
            diff, unit = 100.0 * (a - b) / b, "% relative"
        bo = sum(ratio["optinc"]) / len(ratio["optinc"])
        bg = sum(ratio["gloo"]) / len(ratio["gloo"])
        lines.append("final %s optinc - gloo: %+.3f %s; bytes per server gloo / "
                     "optinc: %.2fx; step time gloo / optinc: %.2fx" % (
                         metric, diff, unit, bg / bo,
                         t["gloo"]["step_ms"] / t["optinc"]["step_ms"]))
        if limit is not None and abs(diff) > limit:
            lines.append("difference above the limit of %g %s" % (limit, unit))
            rc = 1
    text = "\n".join(lines)
    print("\n" + text)
    with open(os.path.join(out, "summary.txt"), "w") as f:
        f.write(text + "\n")
    return rc


if __name__ == "__main__":
    sys.exit(main())
