#!/usr/bin/env python3
"""faultinject.py - fault-injection evaluation of `reveal agent` on this host.

A training-like job (`reveal workload`: matrix steps, a loopback TCP
all-reduce) and the agent (200 ms sampling) run inside a network namespace
this script creates. After the agent has learned, real tools inject faults
one at a time: stress-ng stressors (CPU contention, cache thrashing, memory
bandwidth, a memory leak, a disk write storm, a file-system metadata storm),
an nftables random-drop rule (packet loss) and a tbf qdisc (bandwidth
throttling) on the namespace's lo, the job's traffic path. The host's own
network is never touched. Quiet stretches between the faults measure false
alarms.

Scoring, from the agent's incident events (JSON lines):
  detected   an incident overlaps the injection
  TTD        time from the start of the injection until the agent reported
             the incident open (the event's arrival, read every 100 ms)
  top-1/2    the injection's subsystem is the incident's first / among its
             first two subsystems (the ranking of the closed incident; when
             several incidents open during the injection, the longest one)
  false/h    incidents that start outside every injection (and its settle
             time) per hour of such clean time

    eval/faultinject.py              the full run of `make eval` (about 60 min)
    eval/faultinject.py --short      3 faults, about 5 min (make test)

Needs root (network namespace, nftables, tc) and stress-ng, nft, tc, ip
(scripts/install-deps.sh). A fault whose tool is missing or refused is
reported as skipped with the reason. Exit status: 0, or 1 when --check is
given and a target is missed, 2 for bad usage or a failed setup.
"""

import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

NCPU = os.cpu_count() or 1
HALF = max(1, NCPU // 2)

# name -> (expected subsystem, what the operator would call it, how)
# The expected subsystem is where the fault's resource lives, fixed before
# any run: the CPU's caches belong to the cpu, memory bandwidth to mem.
FAULTS = {
    "cpu-contention": ("cpu", "noisy neighbour on every core",
                       ["stress", "--cpu", str(NCPU)]),
    "cache-thrash": ("cpu", "cache thrashing",
                     ["stress", "--cache", str(HALF)]),
    "memory-bandwidth": ("mem", "memory bandwidth hog (STREAM)",
                         ["stress", "--stream", str(HALF)]),
    "memory-leak": ("mem", "memory leak, 256 MiB more every 4 s",
                    ["leak", "256M", "4"]),
    "disk-write-storm": ("storage", "disk write storm",
                         ["stress", "--hdd", "2", "--hdd-bytes", "1G"]),
    "metadata-storm": ("storage", "file-system metadata storm",
                       ["stress", "--dentry", str(HALF), "--dir", "1"]),
    "packet-loss": ("net", "10 % packet loss on the job's path (nftables)",
                    ["nft-drop", "10"]),
    "bandwidth-throttle": ("net", "bandwidth throttled to 16 Mbit/s (tbf)",
                           ["tbf", "16mbit"]),
}
# packet loss last: its TCP after-effects (delayed ACKs) can outlast the short gaps
SHORT = ["cpu-contention", "disk-write-storm", "packet-loss"]

TARGETS = {"detected": 0.90, "ttd_median_s": 5.0, "top1": 0.80, "false_per_h": 1.0}


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


def run(cmd, check=True, **kw):
    return subprocess.run(cmd, check=check, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, **kw)


class Namespace:
    """A network namespace with lo up; removed by close()."""

    def __init__(self, name):
        self.name = name
        run(["ip", "netns", "add", name])
        # an Ethernet MTU: the job's segments are the size a NIC carries, and
        # tbf's bucket (32 KiB) holds one
        run(["ip", "-n", name, "link", "set", "lo", "mtu", "1500", "up"])

    def cmd(self, argv):
        return ["ip", "netns", "exec", self.name] + argv

    def close(self):
        pids = run(["ip", "netns", "pids", self.name], check=False).stdout.split()
        for p in pids:
            try:
                os.kill(int(p), signal.SIGKILL)
            except (ProcessLookupError, ValueError):
                pass
        run(["ip", "netns", "del", self.name], check=False)


def start(argv, logpath):
    f = open(logpath, "ab")
    return subprocess.Popen(argv, stdout=f, stderr=subprocess.STDOUT,
                            start_new_session=True)


def stop(p, grace=5.0):
    if p is None or p.poll() is not None:
        return
    try:
        os.killpg(p.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        p.wait(grace)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()


class Injector:
    """Starts and stops one fault; check() says why it cannot run here."""

    def __init__(self, ns, name, spec, tmp, logdir):
        self.ns, self.name, self.tmp, self.logdir = ns, name, tmp, logdir
        self.kind, self.args = spec[2][0], spec[2][1:]
        self.procs = []
        self.leak_next = None

    def check(self):
        tool = {"stress": "stress-ng", "leak": "stress-ng", "nft-drop": "nft",
                "tbf": "tc"}[self.kind]
        if not shutil.which(tool):
            return f"{tool} is not installed (scripts/install-deps.sh)"
        if self.kind == "nft-drop":
            r = run(self.ns.cmd(["nft", "add", "table", "inet", "rv_probe"]), check=False)
            if r.returncode:
                return "nft refused a table in the namespace: " + r.stderr.strip()
            run(self.ns.cmd(["nft", "delete", "table", "inet", "rv_probe"]), check=False)
        if self.kind == "tbf":
            r = run(self.ns.cmd(["tc", "qdisc", "add", "dev", "lo", "root", "tbf", "rate",
                                 "1gbit", "burst", "1mb", "latency", "50ms"]), check=False)
            if r.returncode:
                return "tc refused a tbf qdisc on lo: " + r.stderr.strip()
            run(self.ns.cmd(["tc", "qdisc", "del", "dev", "lo", "root"]), check=False)
        return None

    def stress(self, args):
        path = os.path.join(self.logdir, f"stress-{self.name}.log")
        return start(self.ns.cmd(["stress-ng"] + args + ["--temp-path", self.tmp,
                                                          "--timeout", "0", "--quiet"]), path)

    def begin(self):
        if self.kind == "stress":
            self.procs.append(self.stress(self.args))
        elif self.kind == "leak":
            self.leak_next = time.time()
            self.tick()
        elif self.kind == "nft-drop":
            rules = ("table inet rv_eval {\n chain out {\n"
                     "  type filter hook output priority 0; policy accept;\n"
                     f"  meta l4proto tcp numgen random mod 100 < {self.args[0]} drop\n"
                     " }\n}\n")
            run(self.ns.cmd(["nft", "-f", "-"]), input=rules)
        elif self.kind == "tbf":
            run(self.ns.cmd(["tc", "qdisc", "add", "dev", "lo", "root", "tbf", "rate",
                             self.args[0], "burst", "32kb", "latency", "100ms"]))

    def tick(self):
        """The leak grows: one more stress-ng --vm worker holding its memory."""
        if self.kind == "leak" and time.time() >= self.leak_next:
            self.procs.append(self.stress(["--vm", "1", "--vm-bytes", self.args[0],
                                           "--vm-hang", "0", "--vm-keep"]))
            self.leak_next += float(self.args[1])

    def end(self):
        for p in self.procs:
            stop(p)
        self.procs = []
        if self.kind == "nft-drop":
            run(self.ns.cmd(["nft", "delete", "table", "inet", "rv_eval"]), check=False)
        elif self.kind == "tbf":
            run(self.ns.cmd(["tc", "qdisc", "del", "dev", "lo", "root"]), check=False)


class Events:
    """Follows the agent's JSON lines; notes when each line arrived."""

    def __init__(self, path):
        self.path, self.pos, self.buf = path, 0, b""
        self.incidents = {}

    def poll(self):
        try:
            with open(self.path, "rb") as f:
                f.seek(self.pos)
                data = f.read()
        except FileNotFoundError:
            return []
        self.pos += len(data)
        self.buf += data
        now, new = time.time(), []
        while b"\n" in self.buf:
            line, self.buf = self.buf.split(b"\n", 1)
            ev = json.loads(line)
            inc = self.incidents.setdefault(ev["id"], {"id": ev["id"]})
            if ev["event"] == "open":
                # the agent's own decision time; the arrival for older agents
                inc["reported"] = ev.get("time", now)
                inc["start"] = ev["start"]
                inc["open_subsystem"] = ev["subsystem"]
                new.append(inc)
            inc["end"] = ev["end"] if ev["end"] is not None else None
            inc["start"] = ev["start"]
            inc["subsystems"] = [s["name"] for s in ev.get("subsystems", [])] or [ev["subsystem"]]
            inc["subsystem"] = ev["subsystem"]
            inc["cause"] = (ev.get("cause") or {}).get("id")
            inc["top"] = [m["name"] for m in ev.get("top_metrics", [])[:3]]
        return new


def wait_learned(agent_log, agent, limit):
    t0 = time.time()
    while time.time() - t0 < limit:
        if agent.poll() is not None:
            raise SystemExit(f"faultinject: the agent stopped while learning: see {agent_log}")
        with open(agent_log, errors="replace") as f:
            if re.search(r"agent: .* done in [0-9.]+ s", f.read()):
                return
        time.sleep(1)
    raise SystemExit(f"faultinject: the agent did not finish learning in {limit:.0f} s")


def score(plan, incidents, detect_start, detect_end, settle):
    """Per injection results and the false-alarm rate (see the module text)."""
    rows = []
    busy = []
    for inj in plan:
        t0, t1 = inj["t0"], inj["t1"]
        busy.append((t0 - 2.0, t1 + settle))
        if inj.get("skipped"):
            rows.append(dict(inj))
            continue
        hits = sorted((i for i in incidents.values() if "reported" in i
                       and i["start"] <= t1 and (i["end"] is None or i["end"] >= t0)),
                      key=lambda i: i["start"])
        row = dict(inj, detected=bool(hits))
        if hits:
            # an incident reported after the injection began is its own; one
            # reported before (still open from earlier) only overlaps it
            # reported before (still open from earlier) only overlaps it.
            # Time to detect: the first one; the blame: the longest one
            new = [i for i in hits if i["reported"] >= t0]
            first = new[0] if new else hits[0]
            def length(i):
                return (i["end"] or detect_end) - i["start"]
            main = max(new, key=length) if new else first
            row.update(id=main["id"], ttd_s=first["reported"] - t0 if new else None,
                       pre_open=not new, incidents=len(new),
                       top1=main["subsystems"][0], ranking=main["subsystems"],
                       top1_ok=main["subsystems"][0] == inj["expect"],
                       top2_ok=inj["expect"] in main["subsystems"][:2],
                       cause=main.get("cause"), top=main.get("top"),
                       duration_s=length(main))
        rows.append(row)
    false = [i for i in incidents.values() if "reported" in i and i["start"] >= detect_start
             and not any(a <= i["start"] <= b for a, b in busy)]
    clean_s = detect_end - detect_start
    for a, b in busy:
        a, b = max(a, detect_start), min(b, detect_end)
        clean_s -= max(0.0, b - a)
    return rows, false, max(clean_s, 0.0)


def summarize(rows, false, clean_s):
    done = [r for r in rows if not r.get("skipped")]
    det = [r for r in done if r["detected"]]
    ttd = [r["ttd_s"] for r in det if r["ttd_s"] is not None]
    s = {
        "injections": len(done),
        "skipped": len(rows) - len(done),
        "detected": len(det) / len(done) if done else 0.0,
        "ttd_median_s": statistics.median(ttd) if ttd else None,
        "ttd_max_s": max(ttd) if ttd else None,
        "top1": sum(r["top1_ok"] for r in det) / len(done) if done else 0.0,
        "top2": sum(r["top2_ok"] for r in det) / len(done) if done else 0.0,
        "false_incidents": len(false),
        "clean_min": clean_s / 60.0,
        "false_per_h": len(false) / (clean_s / 3600.0) if clean_s > 0 else None,
    }
    s["met"] = {
        "detected": s["detected"] >= TARGETS["detected"],
        "ttd_median_s": s["ttd_median_s"] is not None and s["ttd_median_s"] <= TARGETS["ttd_median_s"],
        "top1": s["top1"] >= TARGETS["top1"],
        "false_per_h": s["false_per_h"] is not None and s["false_per_h"] <= TARGETS["false_per_h"],
    }
    return s


def markdown(rows, false, s, cmd):
    out = [f"Command: `{cmd}`", "",
           "| # | fault | expected | detected | TTD (s) | top-1 | top-2 | ranking | likely cause |",
           "|---|---|---|---|---|---|---|---|---|"]
    for k, r in enumerate(rows, 1):
        if r.get("skipped"):
            out.append(f"| {k} | {r['fault']} | {r['expect']} | skipped: {r['skipped']} | | | | | |")
            continue
        if not r["detected"]:
            out.append(f"| {k} | {r['fault']} | {r['expect']} | **no** | | | | | |")
            continue
        out.append("| {} | {} | {} | yes{} | {} | {} | {} | {} | {} |".format(
            k, r["fault"], r["expect"], " (already open)" if r["pre_open"] else "",
            "-" if r["ttd_s"] is None else f"{r['ttd_s']:.1f}",
            "yes" if r["top1_ok"] else "no", "yes" if r["top2_ok"] else "no",
            " > ".join(r["ranking"][:3]), r["cause"] or "-"))
    ttd = "-" if s["ttd_median_s"] is None else f"{s['ttd_median_s']:.1f} s"
    fph = "-" if s["false_per_h"] is None else f"{s['false_per_h']:.2f}"
    out += ["", "| measure | result | target | met |", "|---|---|---|---|",
            f"| injections detected | {100 * s['detected']:.0f} % of {s['injections']}"
            f" ({s['skipped']} skipped) | ≥ 90 % | {'yes' if s['met']['detected'] else 'NO'} |",
            f"| median time to detect | {ttd} (max {s['ttd_max_s'] or 0:.1f} s) | ≤ 5 s |"
            f" {'yes' if s['met']['ttd_median_s'] else 'NO'} |",
            f"| top-1 subsystem right | {100 * s['top1']:.0f} % | ≥ 80 % |"
            f" {'yes' if s['met']['top1'] else 'NO'} |",
            f"| top-2 subsystem right | {100 * s['top2']:.0f} % | | |",
            f"| false incidents per hour | {fph} ({s['false_incidents']} in"
            f" {s['clean_min']:.1f} clean min) | ≤ 1 | {'yes' if s['met']['false_per_h'] else 'NO'} |"]
    for i in false:
        out.append(f"\nFalse incident {i['id']}: {i['subsystem']}, top {', '.join(i['top'])}")
    return "\n".join(out) + "\n"


def rescore(a):
    """Replays a recorded run through the agent of this build (fast) and
    scores it against the injections of that run: for trying detection
    changes without injecting again. TTD uses the agent's decision time."""
    import glob
    d = a.rescore
    with open(os.path.join(d, "results.json")) as f:
        old = json.load(f)
    recs = sorted(glob.glob(os.path.join(d, "eval.*.rvl")))
    if len(recs) != 1:
        raise SystemExit(f"faultinject: expected one recording in {d}, found {len(recs)}")
    plan = [{k: r[k] for k in ("fault", "expect", "what", "round", "t0", "t1", "skipped")
             if k in r} for r in old["injections"]]
    ev_path = os.path.join(d, "replay-events.jsonl")
    if os.path.exists(ev_path):
        os.unlink(ev_path)
    learn = old.get("learn_s", 120)
    with tempfile.TemporaryDirectory() as state:
        r = run([a.reveal, "agent", "--replay", recs[0], "--learn", f"{learn:.0f}s", "--listen", "",
                 "--store", "", "--events", ev_path, "--state-dir", state, "--set", "refit=0",
                 "-q"] + [x for kv in a.agent_set for x in ("--set", kv)], check=False)
    if r.returncode:
        raise SystemExit("faultinject: replay failed: " + r.stderr.strip())
    ev = Events(ev_path)
    ev.poll()
    rows, false, clean_s = score(plan, ev.incidents, old["detect_start"], old["detect_end"],
                                 a.settle)
    s = summarize(rows, false, clean_s)
    print(markdown(rows, false, s, "eval/faultinject.py " + " ".join(sys.argv[1:])))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("--reveal", default=os.path.join(ROOT, "build", "reveal"))
    ap.add_argument("--out", help="folder for logs, events, store and results "
                    "(default: a new temporary folder)")
    ap.add_argument("--short", action="store_true", help="3 faults, short gaps (make test)")
    ap.add_argument("--faults", help="comma-separated subset of: " + ", ".join(FAULTS))
    ap.add_argument("--rounds", type=int, help="passes over the faults (default 2; short 1)")
    ap.add_argument("--learn", type=float, help="agent learning time, s (default 300; short 90)")
    ap.add_argument("--clean", type=float, help="clean stretch before the first fault, s "
                    "(default 1080; short 20)")
    ap.add_argument("--duration", type=float, help="each injection, s (default 40; short 25)")
    ap.add_argument("--gap", type=float, help="quiet time after each injection, s "
                    "(default 100; short 25); the next one also waits until no incident "
                    "is open (at most 60 s; short 40 s)")
    ap.add_argument("--settle", type=float, default=45.0,
                    help="time after an injection not counted as clean, s (default 45)")
    ap.add_argument("--markdown", help="also write the tables to this file")
    ap.add_argument("--record", action="store_true",
                    help="the agent also records every sample (OUT/eval.*.rvl), to replay "
                    "the run offline: reveal agent --replay")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 when a target is missed (with --short: when an injection "
                    "is not detected or blamed on the wrong subsystem)")
    ap.add_argument("--agent-set", action="append", default=[], metavar="KEY=VALUE",
                    help="extra agent configuration (repeatable), e.g. detect.incident_min=3")
    ap.add_argument("--rescore", metavar="DIR",
                    help="no live run: replay DIR's recording (a run made with --record) "
                    "through this build's agent and score it against DIR's schedule")
    a = ap.parse_args()
    if a.rescore:
        return rescore(a)

    short = a.short
    rounds = a.rounds or (1 if short else 2)
    learn = a.learn or (90.0 if short else 300.0)
    clean = a.clean if a.clean is not None else (20.0 if short else 1080.0)
    dur = a.duration or (25.0 if short else 40.0)
    gap = a.gap or (25.0 if short else 100.0)
    quiet_max = 40.0 if short else 60.0
    names = a.faults.split(",") if a.faults else (SHORT if short else list(FAULTS))
    for n in names:
        if n not in FAULTS:
            ap.error(f"unknown fault '{n}'; known: {', '.join(FAULTS)}")
    if os.geteuid() != 0:
        ap.error("needs root: it creates a network namespace, nftables rules and a qdisc")
    for tool in ("ip", "nft", "tc", "stress-ng"):
        if not shutil.which(tool):
            log(f"note: {tool} is not installed; the faults that need it are skipped")
    if not os.access(a.reveal, os.X_OK):
        ap.error(f"{a.reveal}: no such program (run make first)")

    out = a.out or tempfile.mkdtemp(prefix="reveal-eval-")
    os.makedirs(out, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="stress-", dir=out)
    ns = Namespace(f"reveal-eval-{os.getpid()}")
    procs = []
    inj = None
    try:
        injectors = {n: Injector(ns, n, FAULTS[n], tmp, out) for n in names}
        why = {n: injectors[n].check() for n in names}
        for n, w in why.items():
            if w:
                log(f"{n}: skipped: {w}")
        # stress-ng once before learning, so that loading it is part of normal
        run(["stress-ng", "--cpu", "1", "--timeout", "1s", "--quiet"], check=False)
        wl = start(ns.cmd([a.reveal, "workload", "--report", "10s"]), os.path.join(out, "workload.log"))
        procs.append(wl)
        time.sleep(3)
        events_path = os.path.join(out, "events.jsonl")
        agent_log = os.path.join(out, "agent.log")
        for stale in (events_path, os.path.join(out, "eval.db")):
            if os.path.exists(stale):
                os.unlink(stale)
        agent = start(ns.cmd([a.reveal, "agent", "--interval", "200ms", "--learn", f"{learn:.0f}s",
                              "--listen", "", "--store", os.path.join(out, "eval.db"),
                              "--events", events_path, "--state-dir", os.path.join(out, "state"),
                              "--set", "refit=0"] + [x for kv in a.agent_set for x in ("--set", kv)] +
                             (["--record", os.path.join(out, "eval.rvl")] if a.record else [])),
                      agent_log)
        procs.append(agent)
        log(f"learning for {learn:.0f} s (agent at 200 ms; output in {out})")
        wait_learned(agent_log, agent, learn + 120)
        ev = Events(events_path)
        detect_start = time.time()
        log(f"detecting; clean stretch of {clean:.0f} s")

        def idle(seconds):
            t_end = time.time() + seconds
            while time.time() < t_end:
                if inj:
                    inj.tick()
                for i in ev.poll():
                    log(f"  incident {i['id']} opened: {i['open_subsystem']}")
                for p in procs:
                    if p.poll() is not None:
                        raise SystemExit(f"faultinject: {p.args[-1] if p is wl else 'the agent'}"
                                         f" stopped (exit {p.returncode}); see the logs in {out}")
                time.sleep(0.1)

        idle(clean)
        plan = []
        for r in range(rounds):
            for n in (names if r % 2 == 0 else list(reversed(names))):
                item = {"fault": n, "expect": FAULTS[n][0], "what": FAULTS[n][1], "round": r + 1}
                if why[n]:
                    item.update(skipped=why[n], t0=time.time(), t1=time.time())
                    plan.append(item)
                    continue
                inj = injectors[n]
                # each fault starts on a quiet host: one that begins inside an
                # open incident only extends it
                t_wait = time.time()
                while any(i.get("end", 0) is None for i in ev.incidents.values()) \
                        and time.time() - t_wait < quiet_max:
                    idle(0.5)
                log(f"inject {n} ({FAULTS[n][1]}) for {dur:.0f} s")
                item["t0"] = time.time()
                inj.begin()
                idle(dur)
                inj.end()
                item["t1"] = time.time()
                inj = None
                plan.append(item)
                idle(gap)
        detect_end = time.time()
        idle(2)
    finally:
        if inj:
            inj.end()
        for p in reversed(procs):
            stop(p, 10)
        ns.close()
        shutil.rmtree(tmp, ignore_errors=True)
    ev.poll()
    rows, false, clean_s = score(plan, ev.incidents, detect_start, detect_end, a.settle)
    s = summarize(rows, false, clean_s)
    cmd = "make eval" if not (short or a.faults or a.rounds) else " ".join(["eval/faultinject.py"] + sys.argv[1:])
    md = markdown(rows, false, s, cmd)
    print(md)
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump({"summary": s, "injections": rows, "false": false, "incidents":
                   list(ev.incidents.values()), "learn_s": learn, "detect_start": detect_start,
                   "detect_end": detect_end}, f, indent=1)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(md)
    log(f"results in {out}/results.json")
    if a.check:
        if short:
            bad = [r for r in rows if not r.get("skipped") and not (r["detected"] and r["top2_ok"])]
            skipped = [r for r in rows if r.get("skipped")]
            if bad or skipped:
                for r in bad:
                    log(f"FAIL: {r['fault']} was not detected with subsystem {r['expect']} in its top 2")
                for r in skipped:
                    log(f"FAIL: {r['fault']} could not be injected: {r['skipped']}")
                return 1
        elif not all(s["met"].values()):
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
