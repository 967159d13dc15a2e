#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The netlink spec drift test: scripts/nlspec check on this tree (the uapi
header, the module's policies and ops, the counters it fills, the drop
reasons, optincd's telemetry keys, optincctl's printer and kmod.md's
reference against Documentation/netlink/specs/optinc.yaml), then the same
check on copies of the tree, each with one drift put in, which it must
catch. No VM, no privileges. TAP."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NLSPEC = os.path.join(ROOT, "scripts", "nlspec")

UAPI = "include/uapi/linux/optinc.h"
SPEC = "Documentation/netlink/specs/optinc.yaml"

# (what drifts, file, pattern, replacement, words of the check that must fail);
# a list of (pattern, replacement) in place of the pattern makes several edits
MUTATIONS = [
    ("uapi header: two attributes swapped by hand", UAPI,
     r"(\tOPTINC_A_JOB_ID,.*\n)(\tOPTINC_A_JOB_SIZE,.*\n)", r"\2\1", "constants have the spec's values"),
    ("uapi header: an attribute added by hand", UAPI,
     r"(\n\t__OPTINC_A_MAX\n)", r"\tOPTINC_A_JOB_PRIORITY,\n\1", "constants have the spec's values"),
    ("policy: job-size's range widened in nl_policy.c", "kmod/nl_policy.c",
     r"NLA_POLICY_RANGE\(NLA_U16, 1, OPTINC_NL_MAX_MEMBERS\)", "NLA_POLICY_RANGE(NLA_U16, 1, 128)",
     "kmod/nl_policy.c is what"),
    ("policy: job-del takes job-size in nl_policy.c", "kmod/nl_policy.c",
     r"OPTINC_NL_NOT\(\"job-del\", \"job-size\"\)",
     "{ .type = NLA_U16 }", "kmod/nl_policy.c is what"),
    ("spec: job-del takes job-size, nothing regenerated", SPEC,
     r"attributes: \[ switch-name, job-id \]\n(?=    -\n      name: job-get)",
     "attributes: [ switch-name, job-id, job-size ]\n", "kmod/nl_policy.c is what"),
    ("spec: a new job counter, no code for it", SPEC,
     [(r"(        name: rate-limited\n        type: u64\n)",
       r"\1      -\n        name: evicted\n        type: u64\n"),
      (r"(      - \{ name: rebinds, x-optincd: job \}\n)", r"\1      - { name: evicted }\n")],
     None, "port-stats and job-stats"),
    ("netlink.c: the family-wide policy back", "kmod/netlink.c",
     r"(\t\.ops\t\t= optinc_nl_ops,\n)", r"\1\t.policy\t\t= optinc_job_set_nl_policy,\n",
     "the family is the generated ops"),
    ("netlink.c: a handler renamed", "kmod/netlink.c",
     r"int optinc_nl_job_del_doit\(", "int optinc_nl_job_delete_doit(",
     "a handler for each"),
    ("stats.c: a job no longer fills rebinds", "kmod/stats.c",
     r"OPTINC_STATS_A_SPOOFED, OPTINC_STATS_A_REBINDS,", "OPTINC_STATS_A_SPOOFED,",
     "port-stats and job-stats"),
    ("lib/core: a drop reason renamed", "lib/core/frame.c",
     r'"bad_token"', '"bad_tok"', "optinc_drop_names follow"),
    ("optincd: a port counter missing from telemetry", "daemon/tlm_show.c",
     r"\tTLM_U64\(d, s, rate_limited\);\n", "", "keys the spec gives optincd"),
    ("optincd: the spec's job counters left out of its telemetry", "daemon/tlm_show.c",
     [(r"c = &optinc_tlm_job_ctrs\[i\];", "c = NULL;"),
      (r"RTE_DIM\(optinc_tlm_job_ctrs\)", "0")],
     None, "keys the spec gives optincd"),
    ("optincd: tlm_ctrs.h's key edited by hand", "daemon/tlm_ctrs.h",
     r'"join_acks"', '"acks"', "daemon/tlm_ctrs.h is what"),
    ("optincctl: a job counter printed under another key", "tools/optincctl/kmod.c",
     r'"resends"', '"resent"', "the printer reads"),
    ("optincctl: a port attribute printed under another key", "tools/optincctl/kmod.c",
     r'optincctl_print_u64\("ifindex", " port', 'optincctl_print_u64("port", " port',
     "the printer reads"),
    ("optincctl: a reply attribute never read", "tools/optincctl/kmod.c",
     r'(?s)\tif \(tb\[OPTINC_JOB_A_TABLE_MEMBERS\]\) \{\n.*?\n\t\}\n', "",
     "the printer reads"),
    ("kmod.md: the generated reference edited by hand", "Documentation/kmod.md",
     r"\| 9 \| `job-size` \| u16 \| 1\.\.64 \|", "| 9 | `job-size` | u16 | 1..65 |",
     "Documentation/kmod.md is what"),
]

n = 0
fails = 0


def ok(cond, desc, diag=()):
    global n, fails
    n += 1
    if not cond:
        fails += 1
    print(f"{'ok' if cond else 'not ok'} {n} - {desc}")
    for d in diag:
        print(f"# {d}")


def check(root):
    """nlspec check of @root: (status, [(ok, name, [diagnostics])])."""
    r = subprocess.run([NLSPEC, "--root", root, "check"], capture_output=True, text=True)
    tests = []
    for line in r.stdout.splitlines():
        m = re.match(r"(ok|not ok) \d+ - (.*)", line)
        if m:
            tests.append([m.group(1) == "ok", m.group(2), []])
        elif line.startswith("# ") and tests:
            tests[-1][2].append(line[2:])
    if r.returncode and not tests:
        tests.append([False, "nlspec check ran", r.stderr.strip().splitlines()[-3:]])
    return r.returncode, tests


def copy_tree(dst):
    files = subprocess.run([NLSPEC, "files"], capture_output=True, text=True,
                           check=True).stdout.split()
    for f in files:
        os.makedirs(os.path.dirname(os.path.join(dst, f)), exist_ok=True)
        shutil.copy(os.path.join(ROOT, f), os.path.join(dst, f))


def main():
    print("TAP version 13")
    rc, tests = check(ROOT)
    for good, name, diag in tests:
        ok(good, f"tree: {name}", diag)
    ok(rc == 0 and tests, "tree: in step with its spec (nlspec check passes)")
    with tempfile.TemporaryDirectory() as tmp:
        clean = os.path.join(tmp, "clean")
        copy_tree(clean)
        rc, tests = check(clean)
        ok(rc == 0 and all(t[0] for t in tests),
           f"a copy of the files nlspec reads passes too ({len(tests)} checks)",
           [f"{t[1]}: {'; '.join(t[2])}" for t in tests if not t[0]])
        for i, (what, path, pat, rep, expect) in enumerate(MUTATIONS):
            root = os.path.join(tmp, f"m{i}")
            shutil.copytree(clean, root)
            full = os.path.join(root, path)
            with open(full) as f:
                text = f.read()
            edits = pat if isinstance(pat, list) else [(pat, rep)]
            k = 0
            for p, r in edits:
                text, one = re.subn(p, r, text, count=1)
                k += one
            mutated = text
            if k != len(edits):
                ok(False, f"drift caught: {what}", [f"the pattern is not in {path} any more"])
                continue
            with open(full, "w") as f:
                f.write(mutated)
            rc, tests = check(root)
            caught = [t for t in tests if not t[0] and expect in t[1]]
            ok(rc != 0 and caught, f"drift caught: {what}",
               [f"{t[1]}: {t[2][0] if t[2] else ''}" for t in caught[:1]] or
               ["nlspec check did not fail where expected: " +
                "; ".join(t[1] for t in tests if not t[0])])
    print(f"1..{n}")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
