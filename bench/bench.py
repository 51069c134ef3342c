#!/usr/bin/python3
"""reveal detect benchmarks, side by side in one run (numbers go to docs/PERFORMANCE.md).

1. Wall time of the whole `reveal detect` command vs. ../shared/eval/reference_pipeline.py
   on every DEV entity, run alternately (reference, reveal, reference, reveal, ...) and
   --repeat times each, so machine noise hits both alike; the ratio of medians is reported.
2. A synthetic 700-channel host (`reveal synth --replicas 50`, 200 ms sampling, 1 h of
   training = 3598 windows of 15 samples with step 5): fit time, peak RSS (getrusage of
   the child) and scoring time per window with one thread.

  bench/bench.py [--repeat 3] [--skip-reference] [--skip-wide] [--out build/bench.md]
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(os.path.dirname(ROOT), "shared")
REVEAL = os.path.join(ROOT, "build", "reveal")
REFERENCE = os.path.join(SHARED, "eval", "reference_pipeline.py")
ENTITIES = [("asd", e) for e in ("omi-1", "omi-4", "omi-7", "omi-10")] + \
           [("smd", e) for e in ("machine-1-6", "machine-2-1", "machine-3-3")]


def timed(cmd):
    """Wall seconds and peak RSS (KiB) of one child process."""
    t0 = time.perf_counter()
    pid = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).pid
    _, status, ru = os.wait4(pid, 0)
    wall = time.perf_counter() - t0
    if status != 0:
        raise SystemExit("failed (%d): %s" % (status, " ".join(cmd)))
    return wall, ru.ru_maxrss


def dev_bench(repeat, tmp):
    rows = []
    for grp, e in ENTITIES:
        tr = os.path.join(SHARED, "data", grp, e + "_train.csv.gz")
        te = os.path.join(SHARED, "data", grp, e + "_test.csv.gz")
        ref_cmd = ["/usr/bin/python3", REFERENCE, "--train", tr, "--test", te,
                   "--out", os.path.join(tmp, "ref.csv")]
        rv_cmd = [REVEAL, "detect", "-q", "--train", tr, "--test", te,
                  "-o", os.path.join(tmp, "rv.csv")]
        ref, rv = [], []
        for _ in range(repeat):
            ref.append(timed(ref_cmd)[0])
            rv.append(timed(rv_cmd)[0])
        r, v = statistics.median(ref), statistics.median(rv)
        rows.append((e, r, v, r / v))
        print("%-12s reference %.2fs reveal %.3fs  %.1fx" % (e, r, v, r / v), file=sys.stderr)
    return rows


def wide_bench(tmp):
    d = os.path.join(tmp, "wide")
    subprocess.run([REVEAL, "synth", "-o", d, "--replicas", "50", "--train-duration", "1h",
                    "--test-duration", "10m"], check=True, stderr=subprocess.DEVNULL)
    info = os.path.join(d, "info.json")
    base = [REVEAL, "detect", "-q", "--train", os.path.join(d, "train.csv"),
            "--test", os.path.join(d, "test.csv"), "-o", os.path.join(d, "out.csv"),
            "--info-json", info]
    wall, rss = timed(base)
    with open(info) as f:
        fit = json.load(f)
    _, _ = timed(base + ["--threads", "1"])
    with open(info) as f:
        one = json.load(f)
    return {"wall_s": wall, "peak_rss_mib": rss / 1024.0, "fit_s": fit["fit_s"],
            "features_s": fit["features_train_s"], "train_windows": fit["train_windows"],
            "features_kept": fit["features_kept"], "channels": fit["metrics"],
            "pca_components": fit["pca_components"],
            "score_ms_per_window_1thread": 1000.0 * one["score_s"] / one["test_windows"],
            "test_windows": one["test_windows"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--skip-reference", action="store_true")
    ap.add_argument("--skip-wide", action="store_true")
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "bench.md"))
    args = ap.parse_args()
    if not os.path.exists(REVEAL):
        sys.exit("bench.py: build/reveal missing; run make first")
    out = ["machine: %s, %d CPUs; load average at start %.2f" % (
        os.uname().machine, os.cpu_count(), os.getloadavg()[0]), ""]
    with tempfile.TemporaryDirectory() as tmp:
        if not args.skip_reference:
            rows = dev_bench(args.repeat, tmp)
            out += ["| entity | reference_pipeline.py (s) | reveal detect (s) | speed-up |",
                    "|---|---|---|---|"]
            out += ["| %s | %.2f | %.3f | %.1fx |" % r for r in rows]
            out += ["| **min** | | | **%.1fx** |" % min(r[3] for r in rows), ""]
        if not args.skip_wide:
            w = wide_bench(tmp)
            print(json.dumps(w, indent=1), file=sys.stderr)
            out += ["| synthetic wide host | value |", "|---|---|",
                    "| channels / features kept | %d / %d |" % (w["channels"], w["features_kept"]),
                    "| training windows | %d |" % w["train_windows"],
                    "| PCA components | %d |" % w["pca_components"],
                    "| fit (s, all threads) | %.2f |" % w["fit_s"],
                    "| training features (s) | %.2f |" % w["features_s"],
                    "| whole command wall (s) | %.2f |" % w["wall_s"],
                    "| peak RSS (MiB) | %.0f |" % w["peak_rss_mib"],
                    "| scoring per window, 1 thread (ms) | %.3f |" % w["score_ms_per_window_1thread"],
                    ""]
    text = "\n".join(out)
    with open(args.out, "w") as f:
        f.write(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
