#!/usr/bin/env python3
"""kb-live-cases.py - the knowledge base's test cases from recorded live runs.

src/explain/kb_test.c checks every rule on a crafted incident; this script
lists the evidence stretches of real fault-injection runs so that
src/pipeline/kb_live_test.c checks the built-in rules on what a host really
showed. Each fixture directory tests/fixtures/eval/live-*/ holds one
recording (eval.*.rvl: the host's telemetry, 200 ms samples) and the run's
results.json (its "injections": fault, round, t0/t1 = unix seconds the
fault was on, skipped). Per fixture it writes:

  fault cases   one per injection that was not skipped: baseline
                [t0 - 90, t0 - 2), incident [t0 + 2, t1] (the agent
                detects about 2 s after t0); expected = the fault's rule ids
                from CAUSES of eval/faults.py (imported, not copied); kind
                fault for a development kind, heldout for a held-out one
                (eval/faults.py: the split)
  quiet cases   up to 6 stretches of a 90 s baseline and a 40 s incident
                right after it, outside every [t0 - 30, t1 + 60] of the
                run's injections and after the first sample + 60 s, spread
                over the clean time; expected "-": no rule may fire

A run with a background load (results.json "background_pct" set and not
0) gets the kinds fault-bg, heldout-bg and quiet-bg, which the test
reports apart.

    scripts/kb-live-cases.py                 every usable live-* fixture
    scripts/kb-live-cases.py DIR...          only these fixture directories
    scripts/kb-live-cases.py --out FILE      elsewhere than the default

Default output: tests/fixtures/kb/live-cases.tsv (its header says how it
was made). Regenerate it whenever the fixtures or CAUSES change. A default
fixture has exactly one .rvl and a results.json with injections; the
short-* runs are never taken. Python 3 standard library only.
"""
import argparse
import glob
import importlib.util
import json
import os
import struct
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "tests", "fixtures")
DEFAULT_OUT = os.path.join(FIXTURES, "kb", "live-cases.tsv")

BASE_S = 90.0            # baseline length, seconds
FAULT_GAP_S = 2.0        # baseline ends this long before t0; the incident starts as long after
QUIET_S = 40.0           # a quiet case's incident stretch
QUIET_MAX = 6            # quiet cases per run at most
LEARN_SKIP_S = 60.0      # no quiet case before the first sample + this
PRE_FAULT_S = 30.0       # a fault's stretch for the quiet cases: [t0 - PRE, t1 + POST]
POST_FAULT_S = 60.0

RVL_MAGIC = b"RVLREC\0\1"
RVL_BLOCK = b"RVB1"


def load_faults():
    """eval/faults.py: CAUSES (fault -> expected rule ids) and SPLIT (fault
    -> "dev" or "held-out")."""
    path = os.path.join(ROOT, "eval", "faults.py")
    sys.dont_write_bytecode = True      # no __pycache__ beside eval/faults.py
    spec = importlib.util.spec_from_file_location("faults", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.CAUSES, mod.SPLIT


def first_sample_ts(path):
    """Unix seconds of a recording's first sample (src/record/rvl.h: the
    first block's payload opens with t[0], 64 bits, most significant first)."""
    with open(path, "rb") as f:
        head = f.read(16)
        if len(head) < 16 or head[:8] != RVL_MAGIC:
            raise ValueError(f"{path}: not a .rvl recording")
        (length,) = struct.unpack_from("<I", head, 12)
        f.seek(16 + length + 4)
        block = f.read(24)
    if len(block) < 24 or block[:4] != RVL_BLOCK:
        raise ValueError(f"{path}: no sample block")
    return struct.unpack_from(">q", block, 16)[0] / 1e9


def fixture_of(d, explicit):
    """(recording, results) of a usable fixture directory, else None (or an
    error for a directory named on the command line)."""
    rvl = glob.glob(os.path.join(d, "*.rvl"))
    res = os.path.join(d, "results.json")
    why = None
    if len(rvl) != 1:
        why = f"{len(rvl)} .rvl files (need exactly one)"
    elif not os.path.isfile(res):
        why = "no results.json"
    else:
        with open(res, encoding="utf-8") as f:
            results = json.load(f)
        if not results.get("injections"):
            why = "results.json has no injections"
    if why:
        if explicit:
            sys.exit(f"kb-live-cases: {d}: {why}")
        return None
    return rvl[0], results


def fault_rows(rel, bg, injections, causes, split):
    rows = []
    for inj in injections:
        if inj.get("skipped"):
            continue
        fault, t0, t1 = inj["fault"], float(inj["t0"]), float(inj["t1"])
        if fault not in causes:
            sys.exit(f"kb-live-cases: {rel}: fault {fault} has no entry in CAUSES"
                     " (eval/faults.py)")
        if t1 <= t0 + FAULT_GAP_S:
            continue
        kind = "heldout" if split.get(fault) == "held-out" else "fault"
        rows.append((rel, kind + bg, f"{fault}#{inj.get('round', 1)}",
                     ",".join(causes[fault]), t0 - BASE_S, t0 - FAULT_GAP_S,
                     t0 + FAULT_GAP_S, t1))
    return rows


def clean_stretches(lo, hi, injections):
    """[lo, hi] less every fault's [t0 - PRE, t1 + POST], as sorted pairs."""
    busy = sorted((float(i["t0"]) - PRE_FAULT_S, float(i["t1"]) + POST_FAULT_S)
                  for i in injections)
    out, at = [], lo
    for b0, b1 in busy:
        if b0 > at:
            out.append((at, min(b0, hi)))
        at = max(at, b1)
    if at < hi:
        out.append((at, hi))
    return [(a, b) for a, b in out if b > a]


def quiet_rows(rel, bg, first_ts, results):
    """Up to QUIET_MAX non-overlapping baseline + incident slots, picked
    evenly from all the slots that fit the clean stretches."""
    slot = BASE_S + QUIET_S
    hi = float(results.get("detect_end") or results.get("run_end"))
    slots = []
    for a, b in clean_stretches(first_ts + LEARN_SKIP_S, hi, results["injections"]):
        n = int((b - a) // slot)
        slots += [a + k * slot for k in range(n)]
    if len(slots) > QUIET_MAX:
        step = (len(slots) - 1) / (QUIET_MAX - 1)
        slots = [slots[round(k * step)] for k in range(QUIET_MAX)]
    return [(rel, "quiet" + bg, f"quiet@{s - first_ts:.0f}s", "-", s, s + BASE_S,
             s + BASE_S, s + slot) for s in slots]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("dirs", nargs="*", help="fixture directories (default: every"
                    " usable tests/fixtures/eval/live-*)")
    ap.add_argument("--out", default=DEFAULT_OUT, help="the TSV to write")
    a = ap.parse_args()

    causes, split = load_faults()
    dirs = a.dirs or sorted(glob.glob(os.path.join(FIXTURES, "eval", "live-*")))
    rows = []
    for d in dirs:
        if not os.path.isdir(d):
            sys.exit(f"kb-live-cases: {d}: not a directory")
        fx = fixture_of(d, bool(a.dirs))
        if fx is None:
            print(f"kb-live-cases: {os.path.relpath(d, FIXTURES)}: skipped (no single"
                  " recording with injections)", file=sys.stderr)
            continue
        rvl, results = fx
        rel = os.path.relpath(os.path.abspath(d), FIXTURES)
        bg = "-bg" if results.get("background_pct") else ""
        rows += fault_rows(rel, bg, results["injections"], causes, split)
        rows += quiet_rows(rel, bg, first_sample_ts(rvl), results)

    cmd = "scripts/kb-live-cases.py" + "".join(" " + x for x in sys.argv[1:])
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "w", encoding="utf-8") as f:
        f.write("# Knowledge-base cases from recorded live runs, read by"
                " src/pipeline/kb_live_test.c.\n"
                f"# Generated by: {cmd}\n"
                "# Do not edit: rerun that command (the fixtures or CAUSES in"
                " eval/faults.py changed).\n"
                "# One case a line, tab-separated:\n"
                "#   fixture_dir  a directory under tests/fixtures with one"
                " eval.*.rvl recording\n"
                "#   kind         fault | heldout | quiet, each with -bg when the"
                " run had a background CPU load\n"
                "#                (heldout: a kind the rules were not written"
                " against, eval/faults.py)\n"
                "#   label        fault#round, or quiet@<seconds after the"
                " first sample>\n"
                "#   expected     rule ids, comma-separated, any of which is"
                " right; - : no rule may fire\n"
                "#   base_from base_to  the baseline [from, to), unix seconds\n"
                "#   start end          the incident stretch [start, end],"
                " unix seconds\n"
                "# fault: baseline [t0-90, t0-2), incident [t0+2, t1];"
                " quiet: 90 s + 40 s outside every\n"
                "# [t0-30, t1+60] and after the first sample + 60 s.\n")
        for r in rows:
            f.write("\t".join(r[:4]) + "".join(f"\t{x:.3f}" for x in r[4:]) + "\n")
    kinds = {}
    for r in rows:
        kinds[r[1]] = kinds.get(r[1], 0) + 1
    print(f"kb-live-cases: {len(rows)} cases to {os.path.relpath(a.out)}: "
          + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
