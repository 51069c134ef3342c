#!/usr/bin/python3
"""Side-by-side evaluation of reveal on the labelled DEV entities in ../shared/data.

Runs ../shared/eval/run_eval.py for the scikit-learn reference pipeline, for
`reveal detect --preset paper` and for reveal's default (plus optional ablation
variants), and writes one Markdown report with the means and the per-entity
numbers side by side.

  scripts/eval-dev.py [--out docs/EVALUATION-dev.md] [--ablations] [--no-reference]
                      [--pruned [--prune-threshold 0.5]]

--pruned adds reveal's default on a pruned metric set: `reveal prune` over
each entity's TRAIN data (|r| above --prune-threshold), then `reveal detect
--metric-set`; and per entity `reveal compare` of the full and the pruned
run (IoU of anomalous windows, incident hit rate both ways) with the
channels kept.

Needs Debian's python3-numpy/pandas/scipy/sklearn/statsmodels
(scripts/install-deps.sh --eval).
"""
import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(os.path.dirname(ROOT), "shared")
RUN_EVAL = os.path.join(SHARED, "eval", "run_eval.py")
REVEAL = os.path.join(ROOT, "build", "reveal")
DETECT = REVEAL + " detect -q --train {train} --test {test} -o {out} --info-json {info}"

CONFIGS = [
    ("reference (scikit-learn)", None),
    ("reveal --preset paper", DETECT + " --preset paper"),
    ("reveal (default)", DETECT),
]
ABLATIONS = [
    ("default, --fusion vote --votes 2", DETECT + " --fusion vote --votes 2"),
    ("default, no spe detector", DETECT + " --detectors zscore,pca,iforest"),
    ("default, --zscore-top 1", DETECT + " --zscore-top 1"),
    ("default, --fuse-mean arithmetic", DETECT + " --fuse-mean arithmetic"),
    ("default, --gap 0", DETECT + " --gap 0"),
    ("default, --attribution ensemble", DETECT + " --attribution ensemble"),
    ("default, --events off", DETECT + " --events off"),
    ("default, --sd-floor 0.01", DETECT + " --sd-floor 0.01"),
]

PRUNED = ("reveal (default), pruned metric set",
          REVEAL + " prune -q --threshold {thr} {train} -o {out}.metricset.yaml && "
          + DETECT + " --metric-set {out}.metricset.yaml")

METRICS = [("event recall", "event_recall"), ("FA runs/1000", "false_alarm_runs_per_1000"),
           ("AUC-PR", "auc_pr"), ("point F1", "point_f1"), ("PA F1", "pa_f1"),
           ("HR@150", "hitrate_150")]


def run(name, detector, workdir):
    out = os.path.join(workdir, name.replace(" ", "_").replace("/", "_"))
    os.makedirs(out, exist_ok=True)
    js = os.path.join(out, "results.json")
    cmd = [sys.executable, RUN_EVAL, "--sets", "dev", "--out-dir", out, "--json", js,
           "--report", os.path.join(out, "report.md"), "--name", name]
    if detector:
        cmd += ["--detector", detector]
    print("== %s" % name, file=sys.stderr, flush=True)
    subprocess.run(cmd, check=True, cwd=ROOT)
    with open(js) as f:
        return json.load(f)


def mean(rows, key, only=None):
    vals = [r["fused"][key] for r in rows if not r.get("failed")
            and (only is None or r["entity"].startswith(only)) and r["fused"][key] is not None]
    return sum(vals) / len(vals) if vals else None


def fmt(v):
    return "–" if v is None else "%.3f" % v


def report(results, order):
    lines = ["| configuration | " + " | ".join(m for m, _ in METRICS) +
             " | SMD HR@150 | mean wall s |", "|---" * (len(METRICS) + 3) + "|"]
    for name in order:
        rows = results[name]
        wall = [r["wall_s"] for r in rows if not r.get("failed")]
        lines.append("| %s | %s | %s | %.2f |" % (
            name, " | ".join(fmt(mean(rows, k)) for _, k in METRICS),
            fmt(mean(rows, "hitrate_150", "machine")), sum(wall) / len(wall)))
    lines += ["", "Per entity (event recall / FA runs per 1000 / AUC-PR / point F1):", "",
              "| entity | " + " | ".join(order) + " |", "|---" * (len(order) + 1) + "|"]
    entities = [r["entity"] for r in results[order[0]]]
    for e in entities:
        cells = []
        for name in order:
            r = next(x for x in results[name] if x["entity"] == e)["fused"]
            cells.append("%s / %s / %s / %s" % (fmt(r["event_recall"]),
                         fmt(r["false_alarm_runs_per_1000"]), fmt(r["auc_pr"]),
                         fmt(r["point_f1"])))
        lines.append("| %s | %s |" % (e, " | ".join(cells)))
    return "\n".join(lines) + "\n"


def consistency(workdir, full, pruned, entities):
    """Per entity: `reveal compare` of the full run and the pruned one, and the
    channels the metric set kept."""
    lines = ["", "Full set against the pruned set, per entity (`reveal compare`):", "",
             "| entity | channels kept / all | IoU of anomalous windows | "
             "hit rate full→pruned | hit rate pruned→full |", "|---|---|---|---|---|"]
    d_full = os.path.join(workdir, full.replace(" ", "_").replace("/", "_"))
    d_pruned = os.path.join(workdir, pruned.replace(" ", "_").replace("/", "_"))
    for e in entities:
        a = os.path.join(d_full, e + "_pred.csv")
        b = os.path.join(d_pruned, e + "_pred.csv")
        proc = subprocess.run([REVEAL, "compare", a, b, "--format", "json"],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            lines.append("| %s | – | compare failed: %s | | |" % (e, proc.stderr.strip()[:80]))
            continue
        c = json.loads(proc.stdout)["compare"]
        kept = "–"
        ms = b + ".metricset.yaml"
        if os.path.exists(ms):
            with open(ms) as f:
                text = f.read()
            kept = "%d / %d" % (text.count("\n  - ") - text.count("\n  - {"),
                                text.count("\n  - "))
        lines.append("| %s | %s | %s | %s | %s |" % (
            e, kept, fmt(c.get("iou")), fmt(c["a"].get("hit_rate")),
            fmt(c["b"].get("hit_rate"))))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "eval-dev.md"))
    ap.add_argument("--workdir", default=os.path.join(ROOT, "build", "eval-dev"))
    ap.add_argument("--ablations", action="store_true", help="also run the ablation variants")
    ap.add_argument("--no-reference", action="store_true", help="skip the Python reference")
    ap.add_argument("--pruned", action="store_true",
                    help="also run the default on a pruned metric set, and compare")
    ap.add_argument("--prune-threshold", type=float, default=0.5)
    args = ap.parse_args()
    if not os.path.exists(REVEAL):
        sys.exit("eval-dev.py: %s missing; run make first" % REVEAL)
    configs = [c for c in CONFIGS if not (args.no_reference and c[1] is None)]
    if args.ablations:
        configs += ABLATIONS
    if args.pruned:
        configs.append((PRUNED[0], PRUNED[1].replace("{thr}", "%g" % args.prune_threshold)))
    results = {name: run(name, det, args.workdir) for name, det in configs}
    text = report(results, [n for n, _ in configs])
    if args.pruned:
        text += consistency(args.workdir, "reveal (default)", PRUNED[0],
                            [r["entity"] for r in results[PRUNED[0]]])
    with open(args.out, "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
