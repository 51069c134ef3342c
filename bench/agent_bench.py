#!/usr/bin/env python3
"""Steady CPU cost of `reveal agent` while detecting, next to `reveal record`.

Starts, at the same moment, `reveal agent` (learning LEARN seconds, then
scoring a window every second; no store, no HTTP, no events) and `reveal
record` on the same sources at the same interval, lets the agent finish
learning and fitting, then measures both processes' utime + stime from
/proc/PID/stat over SECONDS. The difference is what detection costs on top
of collection. Both run on this host side by side, so machine noise hits
both alike.

    /usr/bin/python3 bench/agent_bench.py [--seconds 120] [--learn 60] [--interval 100ms]
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REVEAL = os.path.join(ROOT, "build", "reveal")
TICK = os.sysconf("SC_CLK_TCK")


def cpu_s(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=120.0)
    ap.add_argument("--learn", type=float, default=60.0)
    ap.add_argument("--interval", default="100ms")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="reveal-agent-bench.")
    agent = subprocess.Popen([REVEAL, "agent", "-q", "--listen", "", "--store", "",
                              "--state-dir", tmp, "--learn", "%gs" % args.learn,
                              "--interval", args.interval, "--set", "refit=0"],
                             stderr=subprocess.DEVNULL)
    record = subprocess.Popen([REVEAL, "record", "-q", "-o", os.path.join(tmp, "r.rvl"),
                               "--interval", args.interval], stderr=subprocess.DEVNULL)
    try:
        # learning, the fit, and a few seconds for the model file to appear
        deadline = time.time() + args.learn + 120
        while not os.path.exists(os.path.join(tmp, "reveal.model")):
            if time.time() > deadline or agent.poll() is not None:
                print("agent_bench: the agent did not finish learning", file=sys.stderr)
                return 1
            time.sleep(1)
        time.sleep(5)
        a0, r0, t0 = cpu_s(agent.pid), cpu_s(record.pid), time.monotonic()
        time.sleep(args.seconds)
        a1, r1, t1 = cpu_s(agent.pid), cpu_s(record.pid), time.monotonic()
    finally:
        agent.terminate()
        record.terminate()
        agent.wait()
        record.wait()
    wall = t1 - t0
    pa, pr = 100 * (a1 - a0) / wall, 100 * (r1 - r0) / wall
    print("over %.0f s at %s, detecting:" % (wall, args.interval))
    print("  reveal agent   %.3f %% of one core" % pa)
    print("  reveal record  %.3f %% of one core" % pr)
    print("  detection on top of collection: %.3f %% of one core (agent / record %.2fx)"
          % (pa - pr, pa / pr if pr > 0 else float("nan")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
