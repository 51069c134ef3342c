#!/usr/bin/env python3
"""Steady CPU cost of `reveal agent` while detecting, next to `reveal record`.

Starts, at the same moment, `reveal agent` (learning LEARN seconds, then
scoring a window every second; no store, no HTTP, no events) and `reveal
record` on the same sources at the same interval, lets the agent finish
learning and fitting, then measures both processes' CPU time over SECONDS
(the sum_exec_runtime of their threads, /proc/PID/task/*/schedstat, in
nanoseconds). The difference is what detection costs on top of
collection. Both run on this host side by side, so machine noise hits
both alike. A process that exits before the end fails the run (it would
read as a cheap one).

    /usr/bin/python3 bench/agent_bench.py [--seconds 120] [--learn 60] [--interval 100ms]
                                          [--metric-set FILE] [--floor]

With --floor, bench/floor.c (built with gcc into build/floor) runs beside
them at the same interval on the files `reveal record` keeps open: what the
kernel's answers to those reads cost with nothing done with them. It reads
every one of them at every sweep, the slow sources' files too, which reveal
reads once a second (docs/COLLECTOR.md).

With --metric-set a second agent runs beside the first with that metric set
(`reveal prune`'s output): both are measured over the same seconds, CPU per
window and resident memory (VmRSS, VmHWM) side by side.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REVEAL = os.path.join(ROOT, "build", "reveal")
TICK = os.sysconf("SC_CLK_TCK")


def cpu_s(pid):
    """CPU seconds of pid's live threads, to the nanosecond (schedstat's
    sum_exec_runtime; /proc/PID/stat counts in clock ticks, 10 ms, which is
    3 % of what a 0.3 % process uses in two minutes)."""
    total = 0
    try:
        for tid in os.listdir("/proc/%d/task" % pid):
            try:
                with open("/proc/%d/task/%s/schedstat" % (pid, tid)) as f:
                    total += int(f.read().split()[0])
            except FileNotFoundError:
                pass                      # a thread that just ended
        return total / 1e9
    except FileNotFoundError:
        pass
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def mem_kib(pid):
    """VmRSS and VmHWM of pid in KiB."""
    out = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            key = line.split(":")[0]
            if key in ("VmRSS", "VmHWM"):
                out[key] = int(line.split()[1])
    return out.get("VmRSS", 0), out.get("VmHWM", 0)


def start_agent(tmp, name, args, extra):
    state = os.path.join(tmp, name)
    os.makedirs(state, exist_ok=True)
    return state, subprocess.Popen([REVEAL, "agent", "-q", "--listen", "", "--store", "",
                                    "--state-dir", state, "--learn", "%gs" % args.learn,
                                    "--interval", args.interval, "--set", "refit=0"] + extra,
                                   stderr=subprocess.DEVNULL)


def start_floor(pid, interval, seconds):
    """bench/floor.c at the same interval on the files `reveal record` (pid) keeps open."""
    floor = os.path.join(ROOT, "build", "floor")
    src = os.path.join(ROOT, "bench", "floor.c")
    if not os.path.exists(floor) or os.path.getmtime(floor) < os.path.getmtime(src):
        subprocess.run(["gcc", "-O2", "-o", floor, src], check=True)
    time.sleep(1.5)
    files = []
    for fd in sorted(os.listdir("/proc/%d/fd" % pid), key=int):
        try:
            t = os.readlink("/proc/%d/fd/%s" % (pid, fd))
        except OSError:
            continue
        t = re.sub(r"^/proc/\d+/net/", "/proc/net/", t)
        # a directory kept open (sys.cgroup's tops) is listed, not read
        if (t.startswith("/proc/") or t.startswith("/sys/")) and not os.path.isdir(t):
            files.append(t)
    ms = interval[:-2] if interval.endswith("ms") else str(int(float(interval[:-1]) * 1000))
    p = subprocess.Popen([floor, ms, str(int(seconds))] + files, stdout=subprocess.DEVNULL)
    p.nfiles = len(files)
    return p


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=120.0)
    ap.add_argument("--learn", type=float, default=60.0)
    ap.add_argument("--interval", default="100ms")
    ap.add_argument("--metric-set", help="also run an agent with this metric set beside it")
    ap.add_argument("--floor", action="store_true",
                    help="also bench/floor.c on the files reveal record keeps open")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="reveal-agent-bench.")
    agents = [("full", ) + start_agent(tmp, "full", args, [])]
    if args.metric_set:
        agents.append(("metric set", ) + start_agent(tmp, "pruned", args,
                                                     ["--metric-set", args.metric_set]))
    record = subprocess.Popen([REVEAL, "record", "-q", "-o", os.path.join(tmp, "r.rvl"),
                               "--interval", args.interval], stderr=subprocess.DEVNULL)
    floor = start_floor(record.pid, args.interval, args.learn + 200) if args.floor else None
    try:
        # learning, the fit, and a few seconds for the model files to appear
        deadline = time.time() + args.learn + 120
        for _, state, proc in agents:
            while not os.path.exists(os.path.join(state, "reveal.model")):
                if time.time() > deadline or proc.poll() is not None:
                    print("agent_bench: an agent did not finish learning", file=sys.stderr)
                    return 1
                time.sleep(1)
        time.sleep(5)
        procs = [p for _, _, p in agents] + [record] + ([floor] if floor else [])
        c0 = [cpu_s(p.pid) for p in procs]
        t0 = time.monotonic()
        time.sleep(args.seconds)
        c1 = [cpu_s(p.pid) for p in procs]
        t1 = time.monotonic()
        for p in procs:
            if p.poll() is not None:
                # a process that died mid-run would read as a cheap one
                print("agent_bench: %s exited during the measurement (status %s)"
                      % (" ".join(p.args[:2]), p.returncode), file=sys.stderr)
                return 1
        mem = [mem_kib(p.pid) for _, _, p in agents]
    finally:
        for _, _, p in agents:
            p.terminate()
        record.terminate()
        if floor:
            floor.terminate()
            floor.wait()
        for _, _, p in agents:
            p.wait()
        record.wait()
    wall = t1 - t0
    pct = [100 * (b - a) / wall for a, b in zip(c0, c1)]
    pf = pct.pop() if floor else None
    pr = pct[-1]
    print("over %.0f s at %s, detecting (a window a second):" % (wall, args.interval))
    for (name, _, _), pa, (rss, hwm) in zip(agents, pct, mem):
        print("  reveal agent (%s)  %.3f %% of one core = %.2f ms of CPU per window; "
              "RSS %d KiB (peak %d KiB)" % (name, pa, pa * 10, rss, hwm))
    print("  reveal record  %.3f %% of one core" % pr)
    if pf is not None:
        print("  floor on reveal record's %d files  %.3f %% of one core (agent / floor %.2fx, "
              "record / floor %.2fx)" % (floor.nfiles, pf, pct[0] / pf, pr / pf))
    pa = pct[0]
    print("  detection on top of collection: %.3f %% of one core (agent / record %.2fx)"
          % (pa - pr, pa / pr if pr > 0 else float("nan")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
