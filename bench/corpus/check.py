#!/usr/bin/env python3
"""Check the `// expect:` headers of the corpus against rankcheck.

For every program (bench/corpus/*.rk and bench/corpus/trivial/*.rk, or the
files given on the command line):

* `rankcheck classify --format json` (with --max-preemptions from a
  `// classify: --max-preemptions N` line if present, else 3) must report the
  header's kind and c, v, t;
* the same with `--no-prune` (cross-check; skipped when it exceeds the
  time limit);
* `rankcheck FILE --seed 1` must find a bug of the header's kind (exit 1), or
  pass (exit 0) for `// expect: ok`;
* for `ok` programs, `rankcheck explore --preemptions 2 --vars all` must
  exhaust without a bug;
* `rankcheck --strategy random --keep-going --runs 2000 --seed 1` gives the
  random hit rate and the execution rate (reported, not checked).

Usage: check.py [--rankcheck PATH] [--timeout SECONDS] [--jsonl OUT] [FILES...]
Prints one line per program (OK/FAIL); --jsonl appends the measurements, which
table.py turns into the README's table. Exit status 1 if any program fails.
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_RK = os.path.join(HERE, "..", "..", "target", "release", "rankcheck")


def header(path):
    with open(path) as f:
        lines = f.read().splitlines()
    m = re.match(r"//\s*expect:\s*(\w+)(?:\s+c=(\d+)\s+v=(\d+)\s+t=(\d+|\?))?", lines[0])
    if not m:
        raise SystemExit(f"{path}: no expect header")
    kind = m.group(1)
    # t=? : classify reports no thread bound (it samples priority orders when n + c > 7)
    cvt = None if m.group(2) is None else tuple(
        None if m.group(i) == "?" else int(m.group(i)) for i in (2, 3, 4))
    maxp = 3
    for line in lines[:12]:
        mm = re.match(r"//\s*classify:\s*--max-preemptions\s+(\d+)", line)
        if mm:
            maxp = int(mm.group(1))
    return kind, cvt, maxp


def run(cmd, timeout):
    t0 = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "", time.time() - t0
    return p.returncode, p.stdout, time.time() - t0


def classify(rk, path, maxp, noprune, timeout, tmp):
    cmd = [rk, "classify", "--format", "json", "--replay-dir", tmp,
           "--max-preemptions", str(maxp), path]
    if noprune:
        cmd.insert(2, "--no-prune")
    rc, out, dt = run(cmd, timeout)
    if rc is None:
        return "timeout", dt
    try:
        d = json.loads(out)
    except json.JSONDecodeError:
        return f"bad output rc={rc}", dt
    if d.get("kind") is None:
        return ("ok", d.get("schedules")), dt
    return (d["kind"], (d["c"], d["v"], d["t"]), d.get("schedules_to_first_bug")), dt


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rankcheck", default=DEFAULT_RK)
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--no-noprune", action="store_true")
    ap.add_argument("--random-runs", type=int, default=2000,
                    help="random-strategy runs for the hit rate column (0: skip)")
    ap.add_argument("--jsonl", help="append one JSON object per program to this file")
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    files = a.files or sorted(glob.glob(os.path.join(HERE, "*.rk"))) + sorted(
        glob.glob(os.path.join(HERE, "trivial", "*.rk")))
    tmp = tempfile.mkdtemp(prefix="rkcorpus")
    bad = 0
    for path in files:
        name = os.path.relpath(path, HERE)
        kind, cvt, maxp = header(path)
        notes = []
        ok = True
        c1, dt1 = classify(a.rankcheck, path, maxp, False, a.timeout, tmp)
        if kind == "ok":
            if c1 == "timeout" or c1[0] != "ok":
                ok = False
        else:
            if c1 == "timeout" or c1[0] != kind or (cvt is not None and c1[1] != cvt):
                ok = False
        if a.no_noprune:
            c2, dt2 = "skipped", 0.0
        else:
            c2, dt2 = classify(a.rankcheck, path, maxp, True, a.timeout, tmp)
            # The kind and (c, v, t) must agree; schedule counts differ by design.
            verdict = lambda c: c[:2] if c[0] != "ok" else c[:1]
            if c2 != "timeout" and c1 != "timeout" and verdict(c2) != verdict(c1):
                notes.append("PRUNE/NO-PRUNE DISAGREE")
                ok = False
        rate = None
        rc, out, dt3 = run([a.rankcheck, "--seed", "1", "--format", "json",
                            "--replay-dir", tmp, path], a.timeout)
        if rc is None:
            s1 = "timeout"
        else:
            try:
                d = json.loads(out)
                ff = d.get("first_failure")
                s1 = "pass (%d runs)" % d["runs"] if ff is None else "%s run %d" % (ff["kind"], ff["run"])
                rate = d.get("executions_per_s")
            except json.JSONDecodeError:
                s1 = f"bad rc={rc}"
        if kind == "ok":
            if not s1.startswith("pass"):
                ok = False
            rc, out, dt4 = run([a.rankcheck, "explore", "--preemptions", "2", "--vars", "all",
                                "--format", "json", "--replay-dir", tmp, path], a.timeout)
            if rc is None:
                notes.append("explore c2 timeout")
            else:
                d = json.loads(out)
                notes.append("explore c2: %s, %d schedules, exhausted=%s, %.2fs" % (
                    d.get("kind") or "no bug", d["schedules"], d["exhausted"], dt4))
                if d.get("kind") is not None or not d["exhausted"]:
                    ok = False
        elif not s1.startswith(kind):
            ok = False
        hit = None
        if a.random_runs:
            rc, out, _ = run([a.rankcheck, "--strategy", "random", "--keep-going", "--runs",
                              str(a.random_runs), "--seed", "1", "--format", "json",
                              "--replay-dir", tmp, path], a.timeout)
            if rc is not None:
                d = json.loads(out)
                hit = d["failures"] / d["runs"]
                rate = d.get("executions_per_s")
        with open(path) as fh:
            src = fh.read()
        uses = [w for w in ("await", "atomic") if re.search(r"\b%s\b" % w, re.sub(r"//.*", "", src))]
        if not ok:
            bad += 1
        if a.jsonl:
            with open(a.jsonl, "a") as fh:
                fh.write(json.dumps({
                    "file": name, "kind": kind, "cvt": cvt, "ok": ok,
                    "classify": c1, "classify_s": round(dt1, 3),
                    "noprune": c2, "noprune_s": round(dt2, 3),
                    "seed1": s1, "seed1_s": round(dt3, 3), "exec_per_s": rate, "random_hit": hit,
                    "uses": uses, "notes": notes}) + "\n")
        print("%-4s %-40s expect=%s %s | classify %s %.2fs | no-prune %s %.2fs | seed1 %s | random %s %s %s" % (
            "OK" if ok else "FAIL", name, kind, cvt, c1, dt1, c2, dt2, s1, hit, uses, "; ".join(notes)),
            flush=True)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
