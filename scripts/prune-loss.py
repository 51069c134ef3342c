#!/usr/bin/python3
"""Where detection with a pruned metric set loses against the full set, on the
labelled DEV entities of ../shared/data (docs/EVALUATION.md, "Where the loss
comes from").

  scripts/prune-loss.py run NAME [--detect ARGS] [--prune ARGS | --family-set ARGS]
      runs `reveal detect` on every DEV entity into build/prune-loss/NAME and
      prints event recall, false-alarm runs per 1,000 and false points per
      entity and their means. --prune prunes each entity's own TRAIN data
      (`reveal prune ARGS TRAIN`); --family-set prunes all TRAIN files of a
      data set (smd/, asd/) together and uses that one set for each entity.
  scripts/prune-loss.py fragments A B
      false-alarm runs by length (windows) of runs A and B, and false points.
  scripts/prune-loss.py missed A B
      events A detects and B misses, with their labelled channels and whether
      B's metric set dropped each.
  scripts/prune-loss.py live [--kb-signals keep|prune] [RUN...]
      the recorded fault-injection runs of tests/fixtures/eval (all with 18
      faults, or the RUNs named) rescored through the agent with every
      channel and with a set pruned from the run's recording and the four
      workload recordings of tests/fixtures/fleet; one Markdown row per run
      and the totals.
  scripts/prune-loss.py hysteresis NAME H
      run NAME rescored with an incident held open while the fused score
      stays above H x the fused threshold (--info-json's fuse_threshold),
      gaps bridged as reveal detect's --gap 2.

Needs Debian's python3-numpy/pandas/sklearn (scripts/install-deps.sh --eval).
"""
import argparse
import collections
import glob
import json
import os
import re
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(os.path.dirname(ROOT), "shared")
sys.path.insert(0, os.path.join(SHARED, "eval"))
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import run_eval  # noqa: E402
import score as scorer  # noqa: E402

REVEAL = os.path.join(ROOT, "build", "reveal")
WORK = os.path.join(ROOT, "build", "prune-loss")


def entities():
    for _, e, folder in run_eval.entities_of(["dev"], os.path.join(SHARED, "data"), ""):
        yield e, folder, run_eval.entity_files(folder, e)


def aligned(name, e, files):
    lab = pd.read_csv(files["labels"]).sort_values("timestamp", kind="stable")
    ts = lab["timestamp"].to_numpy(dtype=float)
    pred = pd.read_csv(os.path.join(WORK, name, e + "_pred.csv"), dtype={"top_metrics": str})
    merged, _, _ = scorer.align(ts, pred)
    return lab["label"].to_numpy().astype(int), merged, pred


def score_entity(files, pred):
    names = [c for c in pd.read_csv(files["test"], nrows=0).columns if c != "timestamp"]
    ranges = scorer.read_interpretation(files["interp"]) if files["interp"] else None
    return scorer.score(pd.read_csv(files["labels"]), pred, ranges, names)


def print_scores(name, rows):
    for e, r in rows:
        print("%-12s event recall %.3f  FA runs/1000 %.2f  false points %d"
              % (e, r["event_recall"], r["false_alarm_runs_per_1000"], r["false_alarm_points"]))
    mean = lambda k: sum(r[k] for _, r in rows) / len(rows)  # noqa: E731
    print("MEAN %s: event recall %.3f  FA runs/1000 %.2f" % (
        name, mean("event_recall"), mean("false_alarm_runs_per_1000")))


def cmd_run(a):
    out = os.path.join(WORK, a.name)
    os.makedirs(out, exist_ok=True)
    rows = []
    for e, folder, f in entities():
        pred = os.path.join(out, e + "_pred.csv")
        pre, extra = "", a.detect
        if a.prune is not None or a.family_set is not None:
            ms = os.path.join(out, e + ".metricset.yaml")
            if a.family_set is not None:
                ms = os.path.join(out, os.path.basename(folder) + ".metricset.yaml")
                train = sorted(os.path.join(folder, x) for x in os.listdir(folder)
                               if x.endswith("_train.csv.gz") or x.endswith("_train.csv"))
                pre = "%s prune -q %s %s -o %s && " % (REVEAL, a.family_set,
                                                       " ".join(map(shlex.quote, train)), ms)
            else:
                pre = "%s prune -q %s %s -o %s && " % (REVEAL, a.prune, shlex.quote(f["train"]), ms)
            extra += " --metric-set " + shlex.quote(ms)
        cmd = pre + "%s detect -q --train %s --test %s -o %s --info-json %s %s" % (
            REVEAL, shlex.quote(f["train"]), shlex.quote(f["test"]), shlex.quote(pred),
            shlex.quote(pred + ".info.json"), extra)
        subprocess.run(cmd, shell=True, check=True)
        rows.append((e, score_entity(f, pd.read_csv(pred, dtype={"top_metrics": str}))))
    print_scores(a.name, rows)


def run_lengths(flags):
    lens, n = [], 0
    for v in list(flags) + [0]:
        if v:
            n += 1
        elif n:
            lens.append(n)
            n = 0
    return lens


def cmd_fragments(a):
    for name in (a.a, a.b):
        total, points = collections.Counter(), 0
        for e, _, f in entities():
            y, m, _ = aligned(name, e, f)
            fa = (m["anomaly"].fillna(0).to_numpy() != 0).astype(int) * (1 - y)
            points += int(fa.sum())
            total.update(min(n, 10) for n in run_lengths(fa))
        print("%s: %d false-alarm runs, %d false points; runs by length (10 = 10 or more): %s"
              % (name, sum(total.values()), points, dict(sorted(total.items()))))


def cmd_missed(a):
    for e, _, f in entities():
        y, ma, _ = aligned(a.a, e, f)
        _, mb, _ = aligned(a.b, e, f)
        fa_, fb = (x["anomaly"].fillna(0).to_numpy() != 0 for x in (ma, mb))
        names = [c for c in pd.read_csv(f["test"], nrows=0).columns if c != "timestamp"]
        ranges = scorer.read_interpretation(f["interp"]) if f["interp"] else None
        dropped = set()
        for ms in (os.path.join(WORK, a.b, e + ".metricset.yaml"),
                   os.path.join(WORK, a.b, os.path.basename(os.path.dirname(f["train"]))
                                + ".metricset.yaml")):
            if os.path.exists(ms):
                with open(ms) as fh:
                    dropped = set(re.findall(r"\{channel: (\S+),", fh.read()))
        for s, t in scorer.events_of(y):
            if fa_[s:t].any() and not fb[s:t].any():
                dims = scorer.dims_at(ranges, s) if ranges else []
                chans = ", ".join("%s%s" % (names[d - 1], " (dropped)" if names[d - 1] in dropped
                                            else "") for d in dims)
                print("%s: rows %d-%d (%d samples) missed by %s; labelled: %s"
                      % (e, s, t - 1, t - s, a.b, chans or "-"))


def cmd_hysteresis(a):
    rows = []
    for e, _, f in entities():
        path = os.path.join(WORK, a.name, e + "_pred.csv")
        pred = pd.read_csv(path, dtype={"top_metrics": str})
        with open(path + ".info.json") as fh:
            thr = json.load(fh)["fuse_threshold"]
        sc = pred["score"].to_numpy(dtype=float)
        flag, on = np.zeros(len(sc), bool), False
        for i, v in enumerate(sc):
            on = v > thr or (on and v > a.h * thr)
            flag[i] = on
        idx = np.flatnonzero(flag)
        for j in range(1, len(idx)):
            if 1 < idx[j] - idx[j - 1] <= 3:
                flag[idx[j - 1]:idx[j]] = True
        pred["anomaly"] = flag.astype(int)
        rows.append((e, score_entity(f, pred)))
    print_scores("%s, held open above %g x threshold" % (a.name, a.h), rows)


LIVE_ROWS = ("injections detected", "median time to detect", "false incidents per hour",
             "top-1 subsystem right", "likely cause")


def rescore(run_dir, extra):
    """The measures of eval/faultinject.py --rescore, by name."""
    out = subprocess.run([sys.executable, os.path.join(ROOT, "eval", "faultinject.py"),
                          "--rescore", run_dir, "--reveal", REVEAL] + extra,
                         capture_output=True, text=True, check=True).stdout
    got = {}
    for line in out.splitlines():
        cells = [c.strip() for c in line.split("|")]
        for name in LIVE_ROWS:
            if len(cells) > 3 and cells[1].startswith(name):
                got[name] = cells[2]
    return got


def cmd_live(a):
    fx = os.path.join(ROOT, "tests", "fixtures")
    runs = a.runs or sorted(os.path.basename(os.path.dirname(p)) for p in
                            glob.glob(os.path.join(fx, "eval", "*", "results.json")))
    fleet = [os.path.join(fx, "fleet", "node%d.rvl" % i) for i in range(1, 5)]
    os.makedirs(WORK, exist_ok=True)
    print("| run | channels dropped | detected (full / pruned) | median TTD | false incidents "
          "per hour | top-1 subsystem | fault's rule named first |\n|---|---|---|---|---|---|---|")
    tot = collections.Counter()
    for run in runs:
        d = os.path.join(fx, "eval", run)
        recs = [x for x in os.listdir(d) if x.startswith("eval.") and x.endswith(".rvl")]
        with open(os.path.join(d, "results.json")) as fh:
            n = len(json.load(fh)["injections"])
        if len(recs) != 1 or (not a.runs and n != 18):
            continue
        ms = os.path.join(WORK, run + ".metricset.yaml")
        subprocess.run([REVEAL, "prune", "-q", "--kb-signals", a.kb_signals] + fleet +
                       [os.path.join(d, recs[0]), "-o", ms], check=True)
        with open(ms) as fh:
            head = re.search(r"(\d+) kept, (\d+) dropped", fh.readline())
        full = rescore(d, [])
        pr = rescore(d, ["--agent-set", "collect.metric_set=" + ms])
        pick = lambda g, k, i=0: g[k].split()[i]  # noqa: E731
        first = lambda g: g["likely cause"].split()[0]  # noqa: E731
        print("| %s | %s of %d | %s / %s %% | %s / %s s | %s / %s | %s / %s %% | %s / %s %% |" % (
            run, head.group(2), int(head.group(1)) + int(head.group(2)),
            pick(full, LIVE_ROWS[0]), pick(pr, LIVE_ROWS[0]),
            pick(full, LIVE_ROWS[1]), pick(pr, LIVE_ROWS[1]),
            pick(full, LIVE_ROWS[2]), pick(pr, LIVE_ROWS[2]),
            pick(full, LIVE_ROWS[3]), pick(pr, LIVE_ROWS[3]), first(full), first(pr)))
        for side, g in (("full", full), ("pruned", pr)):
            tot[side + " false"] += int(re.search(r"\((\d+) in", g[LIVE_ROWS[2]]).group(1))
            tot[side + " first"] += round(float(first(g)) * n / 100)
            tot[side + " top1"] += round(float(pick(g, LIVE_ROWS[3])) * n / 100)
        tot["faults"] += n
    print("\nTotals over %d faults: false incidents %d full / %d pruned; top-1 subsystem %d / %d;"
          " the fault's rule first %d / %d." % (
              tot["faults"], tot["full false"], tot["pruned false"], tot["full top1"],
              tot["pruned top1"], tot["full first"], tot["pruned first"]))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("name")
    r.add_argument("--detect", default="", help="more arguments of reveal detect")
    g = r.add_mutually_exclusive_group()
    g.add_argument("--prune", help="arguments of reveal prune, per entity ('' for defaults)")
    g.add_argument("--family-set", help="arguments of reveal prune, one set per data set")
    for c in ("fragments", "missed"):
        p = sub.add_parser(c)
        p.add_argument("a")
        p.add_argument("b")
    lv = sub.add_parser("live")
    lv.add_argument("--kb-signals", default="keep", choices=("keep", "prune"))
    lv.add_argument("runs", nargs="*")
    h = sub.add_parser("hysteresis")
    h.add_argument("name")
    h.add_argument("h", type=float)
    a = ap.parse_args()
    if not os.path.exists(REVEAL):
        sys.exit("prune-loss.py: %s missing; run make first" % REVEAL)
    {"run": cmd_run, "fragments": cmd_fragments, "missed": cmd_missed, "live": cmd_live,
     "hysteresis": cmd_hysteresis}[a.cmd](a)


if __name__ == "__main__":
    main()
