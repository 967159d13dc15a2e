#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""No import circles between the files of the switch: scripts/callgraph
--check on each directory below (a file calling an exported function of a
file that calls it back, directly or round a longer loop), then on a copy
of daemon/ with one back-call put in, which it must catch. TAP."""
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "scripts", "callgraph")
DIRS = ["daemon", "kmod", "lib/core", "tools/optincctl", "tools/onn"]


def check(d):
    r = subprocess.run([sys.executable, TOOL, "--check", d], cwd=ROOT,
                       capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def main():
    print(f"1..{len(DIRS) + 1}")
    fails = 0
    for n, d in enumerate(DIRS, 1):
        rc, out = check(d)
        for line in out.splitlines():
            print("# " + line)
        print(("ok" if rc == 0 else "not ok") + f" {n} - {d}: no import circle")
        fails += rc != 0
    # l2.c is called by job_live.c (optinc_l2_unpin): a call back closes a loop
    tmp = tempfile.mkdtemp(prefix="optinc-circles.")
    try:
        shutil.copytree(os.path.join(ROOT, "daemon"), os.path.join(tmp, "daemon"))
        with open(os.path.join(tmp, "daemon", "l2.c"), "a") as f:
            f.write("\nvoid optinc_l2_test_back_call(void)\n{\n\toptinc_agg_sync();\n}\n")
        r = subprocess.run([sys.executable, TOOL, "--check", "daemon"], cwd=tmp,
                           capture_output=True, text=True)
        caught = r.returncode == 1 and "daemon/l2.c -> daemon/job_live.c" in r.stdout
        for line in r.stdout.splitlines():
            print("# " + line)
    finally:
        shutil.rmtree(tmp)
    n = len(DIRS) + 1
    print(("ok" if caught else "not ok") + f" {n} - a call from l2.c back into job_live.c is caught")
    fails += not caught
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
