#!/usr/bin/env python3
"""faultinject.py - fault-injection evaluation of `reveal agent` on this host.

A training-like job (`reveal workload`: matrix steps, a loopback TCP
all-reduce) and the agent (200 ms sampling) run inside a network namespace
this script creates. After the agent has learned, real tools inject faults
one at a time: stress-ng stressors (CPU contention, cache thrashing, memory
bandwidth, a memory leak, a disk write storm, a file-system metadata storm),
an nftables random-drop rule (packet loss) and a tbf qdisc (bandwidth
throttling) on the namespace's lo, the job's traffic path, and a CPU quota
on the job's own cgroup (cgroup throttling). The host's own network is never
touched. Quiet stretches between the faults measure false alarms.

Scoring, from the agent's incident events (JSON lines):
  detected   an incident overlaps the injection
  TTD        time from the start of the injection until the agent reported
             the incident open (the event's `time`, the agent's decision)
  blamed     the longest first-phase incident reported during the injection;
             follow-on phases (`follows`, `phase` > 1) belong to the fault of
             the incident they follow and are never blamed
  top-1/2    the injection's subsystem is the blamed incident's first / among
             its first two subsystems (its ranking when it closed)
  at open    the blamed incident's subsystem in its open event, what an
             alert shows first (measured, no target)
  close      time from the end of the injection until the blamed incident's
             close event; "all closed": until every incident of the fault
             (follow-ons included) closed; "> N s": still open at the end
  false/h    first-phase incidents that start outside every injection (and
             its settle time) per hour of such clean time
  cause      the blamed incident's likely causes (the store's ranking at its
             close, else its event's cause) against the fault's rule
             (CAUSES): right (first), second, undecided (an undecided rule
             first that names the fault's among the causes that remain),
             wrong (another first), none

    eval/faultinject.py                  the full run of `make eval` (about 66 min)
    eval/faultinject.py --background 40  the same on top of a steady 40 % CPU load
    eval/faultinject.py --short          3 faults, about 5 min (make test)
    eval/faultinject.py --self-test      checks the scoring on made-up incidents

Needs root (network namespace, nftables, tc, cgroups) and stress-ng, nft,
tc, ip (scripts/install-deps.sh). A fault whose tool is missing or refused
is reported as skipped with the reason. Exit status: 0, or 1 when --check
is given and a target is missed, 2 for bad usage or a failed setup.
"""

import argparse
import glob
import json
import os
import re
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

sys.path.insert(0, HERE)
from faults import (CAUSES, DEV, FAULTS, HELD_OUT, SEEN, SPLIT, Injector, log,  # noqa: E402
                    read_text, run, start, stop, write_text)

# packet loss last: its TCP after-effects (delayed ACKs) can outlast the short gaps
SHORT = ["cpu-contention", "disk-write-storm", "packet-loss"]

# What --check enforces on a full run, for the held-out kinds and the
# development kinds alike (the summary tables show each). The false
# incidents, the clean time and the incidents open at the end are of the
# whole run.
TARGETS = {
    "detected": 0.95,          # share of the injections with an incident
    "ttd_median_s": 3.0,       # median time to detect
    "top1": 0.85,              # expected subsystem first in the ranking
    "top2": 0.95,              # ... among the first two
    "cause_ok": 0.80,          # likely cause right, or undecided naming the right one
    "cause_wrong": 0.05,       # ... another rule first, at most
    "false_per_h": 0.5,        # false incidents per clean hour ...
    "clean_min": 30.0,         # ... measured over at least this many clean minutes
    "close_median_s": 10.0,    # median time to close after the fault ended
    "close_max_s": 30.0,       # longest time to close
    "open_at_end": 0,          # incidents still open when the run ended
}
# The first corpus (SEEN) keeps the stricter targets it met before the
# corpus grew.
TARGETS_SEEN = dict(TARGETS, ttd_median_s=2.0, top1=0.95, top2=1.0)

# The sets a table is made of, in the order they are shown.
SETS = (("held-out", "held-out kinds (the rules never saw them)", TARGETS),
        ("dev", "development kinds (the rules may be written against them)", TARGETS),
        ("seen", "the first corpus (nine development kinds)", TARGETS_SEEN))


def in_set(row, name):
    """Whether an injection (its row) is of a set: held-out, dev or seen."""
    fault = row["fault"]
    if name == "seen":
        return fault in SEEN
    return row.get("set", SPLIT.get(fault, "dev")) == name


INTERVAL = "200ms"      # the agent's sampling interval

# A close event whose decision time is this close to the end of the run (or
# after it) is the agent closing everything as it stops, not a real close.
CLOSE_SLACK_S = 0.25


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

    def net_only(self, argv):
        """argv in the namespace's network only: `ip netns exec` also
        mounts a fresh /sys, which hides the host's cgroup hierarchies from
        the agent (its sys.cgroup source would see no quota)."""
        return ["nsenter", f"--net=/run/netns/{self.name}"] + argv

    def close(self):
        pids = run(["ip", "netns", "pids", self.name], check=False).stdout.split()
        for p in pids:
            try:
                os.kill(int(p), signal.SIGKILL)
            except (ProcessLookupError, ValueError):
                pass
        run(["ip", "netns", "del", self.name], check=False)


# ------------------------------------------------------------ the job's cgroup

def cgroup_mounts():
    """(mount point, 'v1' or 'v2', mount options) of every cgroup mount."""
    out = []
    with open("/proc/self/mounts") as f:
        for line in f:
            fields = line.split()
            if len(fields) < 4 or fields[2] not in ("cgroup", "cgroup2"):
                continue
            mnt = fields[1].replace("\\040", " ")
            out.append((mnt, "v2" if fields[2] == "cgroup2" else "v1", fields[3].split(",")))
    return out


def own_cgroup(version):
    """This process's cgroup path in the v2 tree or the v1 cpu hierarchy."""
    for line in read_text("/proc/self/cgroup").splitlines():
        num, ctrls, path = line.split(":", 2)
        if (version == "v2" and num == "0" and ctrls == "") or \
                (version == "v1" and "cpu" in ctrls.split(",")):
            return path
    return "/"


def process_tree(pid):
    """pid and all its descendants (from /proc)."""
    children = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            stat = read_text(f"/proc/{d}/stat")
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(d))
    tree, todo = [], [pid]
    while todo:
        p = todo.pop()
        tree.append(p)
        todo += children.get(p, [])
    return tree


class Cgroup:
    """The job's own cpu cgroup, for the cgroup-throttle fault: cgroup v2
    (cpu.max) where its cpu controller can be used, else cgroup v1's cpu
    hierarchy (cpu.cfs_quota_us). create() tries both and keeps the first
    that takes a process and a quota; remove() moves what is left out and
    deletes it."""

    PERIOD_US = 100000            # CFS period: 100 ms
    QUOTA_US = (1000, 20000)      # the quota stays within 1 ms .. 20 ms a period

    def __init__(self, version, mnt, parent, name):
        self.version, self.mnt, self.parent = version, mnt, parent
        self.path = os.path.join(parent, name)
        self.rel = "/" + os.path.relpath(self.path, mnt)
        self.started = None      # when the job was moved in

    @staticmethod
    def candidates():
        """(version, mount, parent dir, None) to try, or (..., None, why not)."""
        out = []
        for mnt, version, opts in cgroup_mounts():
            if version == "v2":
                try:
                    ctrls = read_text(os.path.join(mnt, "cgroup.controllers")).split()
                except OSError as e:
                    out.append((version, mnt, None, f"cgroup v2 at {mnt}: {e.strerror}"))
                    continue
                if "cpu" not in ctrls:
                    out.append((version, mnt, None, f"cgroup v2 at {mnt} has no cpu "
                                "controller (it is bound to a cgroup v1 hierarchy)"))
                    continue
                # the mount's root: the only cgroup that may both hold processes
                # and hand the cpu controller down
                sub = os.path.join(mnt, "cgroup.subtree_control")
                try:
                    if "cpu" not in read_text(sub).split():
                        write_text(sub, "+cpu")
                except OSError as e:
                    out.append((version, mnt, None, f"cgroup v2 at {mnt}: enabling cpu "
                                f"in cgroup.subtree_control: {e.strerror}"))
                    continue
                out.append((version, mnt, mnt, None))
            elif "cpu" in opts:
                parent = os.path.join(mnt, own_cgroup("v1").lstrip("/"))
                out.append((version, mnt, parent if os.path.isdir(parent) else mnt, None))
        return out

    @classmethod
    def create(cls, name):
        """(a working Cgroup, None) or (None, why none works here)."""
        why = []
        cands = cls.candidates()
        for version, mnt, parent, whynot in sorted(cands, key=lambda c: c[0] != "v2"):
            if whynot:
                why.append(whynot)
                continue
            cg = cls(version, mnt, parent, name)
            err = cg.probe()
            if not err:
                return cg, None
            why.append(f"cgroup {version} at {cg.path}: {err}")
        if not cands:
            why.append("no cgroup hierarchy is mounted")
        return None, "no usable cpu cgroup: " + "; ".join(why)

    def probe(self):
        """Creates the cgroup and checks that it takes a quota and a process."""
        try:
            os.mkdir(self.path)
        except FileExistsError:
            pass
        except OSError as e:
            return f"mkdir: {e.strerror}"
        sleeper = None
        try:
            self.set_quota(self.QUOTA_US[1])
            self.set_quota(None)
            sleeper = subprocess.Popen(["sleep", "30"])
            write_text(os.path.join(self.path, "cgroup.procs"), str(sleeper.pid))
            if not self.holds(sleeper.pid):
                raise OSError(0, "a process written to cgroup.procs is not in it")
        except OSError as e:
            self.remove()
            return e.strerror or str(e)
        finally:
            if sleeper:
                sleeper.kill()
                sleeper.wait()
        return None

    def holds(self, pid, tid=None):
        """Whether a process (or one of its threads) is in this cgroup."""
        p = f"/proc/{pid}/task/{tid}/cgroup" if tid else f"/proc/{pid}/cgroup"
        for line in read_text(p).splitlines():
            num, ctrls, path = line.split(":", 2)
            if (self.version == "v2" and num == "0" and ctrls == "") or \
                    (self.version == "v1" and "cpu" in ctrls.split(",")):
                return path == self.rel
        return False

    def wrap(self, argv):
        """argv run so that it, and all it starts, begins inside the cgroup."""
        procs = os.path.join(self.path, "cgroup.procs")
        return ["sh", "-c", 'echo $$ > "$0" && exec "$@"', procs] + argv

    def check_job(self, pid, want=2):
        """None when the job (pid: its first process) and all its processes
        and threads, at least `want` processes, are in the cgroup; else why."""
        try:
            tree = process_tree(pid)
            tasks = [(p, t) for p in tree for t in os.listdir(f"/proc/{p}/task")]
            out = [f"{p}/{t}" for p, t in tasks if not self.holds(p, t)]
        except OSError as e:
            return f"the job's processes: {e}"
        if len(tree) < want:
            return f"the job has {len(tree)} process(es) where {want} were expected"
        if out:
            return f"threads of the job outside {self.path}: {', '.join(out)}"
        self.started = time.time()
        log(f"cgroup-throttle: the job's {len(tree)} processes ({len(tasks)} threads) are in "
            f"{self.path} (cgroup {self.version})")
        return None

    def job_cpu_share(self):
        """The job's CPU time since it was moved in, as a share of one CPU."""
        tick, used = os.sysconf("SC_CLK_TCK"), 0
        for pid in read_text(os.path.join(self.path, "cgroup.procs")).split():
            try:
                f = read_text(f"/proc/{pid}/stat").rsplit(")", 1)[1].split()
            except OSError:
                continue
            used += int(f[11]) + int(f[12])
        return used / tick / max(1.0, time.time() - self.started)

    def set_quota(self, quota_us):
        """CPU time per 100 ms period (µs); None: no limit."""
        if self.version == "v2":
            write_text(os.path.join(self.path, "cpu.max"),
                       f"{quota_us or 'max'} {self.PERIOD_US}")
        else:
            write_text(os.path.join(self.path, "cpu.cfs_period_us"), str(self.PERIOD_US))
            write_text(os.path.join(self.path, "cpu.cfs_quota_us"), str(quota_us or -1))

    def throttled(self):
        """(periods, throttled periods) so far, from cpu.stat."""
        kv = dict(line.split()[:2] for line in
                  read_text(os.path.join(self.path, "cpu.stat")).splitlines() if " " in line)
        return int(kv.get("nr_periods", 0)), int(kv.get("nr_throttled", 0))

    def remove(self):
        """Moves any process left to the parent and deletes the cgroup."""
        if not os.path.isdir(self.path):
            return
        t_end = time.time() + 5.0
        while True:
            try:
                for pid in read_text(os.path.join(self.path, "cgroup.procs")).split():
                    try:
                        write_text(os.path.join(self.parent, "cgroup.procs"), pid)
                    except OSError:
                        pass     # exiting already
                os.rmdir(self.path)
                return
            except FileNotFoundError:
                return
            except OSError as e:
                if time.time() > t_end:
                    log(f"note: could not remove {self.path}: {e.strerror}")
                    return
                time.sleep(0.1)


# ------------------------------------------------------------------ the events

def follow(obj):
    """Appends what obj.path (a file being written) gained since obj.pos to
    obj.buf; False while the file does not exist."""
    try:
        with open(obj.path, "rb") as f:
            f.seek(obj.pos)
            data = f.read()
    except FileNotFoundError:
        return False
    obj.pos += len(data)
    obj.buf += data
    return True


class Events:
    """Follows the agent's JSON lines; notes when each line arrived."""

    def __init__(self, path):
        self.path, self.pos, self.buf = path, 0, b""
        self.incidents = {}

    def poll(self):
        if not follow(self):
            return []
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
            elif ev["event"] == "close":
                inc["closed"] = ev.get("time", now)
            inc["end"] = ev["end"] if ev["end"] is not None else None
            inc["start"] = ev["start"]
            inc["subsystems"] = [s["name"] for s in ev.get("subsystems", [])] or [ev["subsystem"]]
            inc["subsystem"] = ev["subsystem"]
            inc["cause"] = (ev.get("cause") or {}).get("id")
            inc["top"] = [m["name"] for m in ev.get("top_metrics", [])[:3]]
            # follow-on phases; events without them (older agents) are first phases
            inc["phase"] = ev.get("phase") or 1
            inc["follows"] = ev.get("follows")
        return new


def mark_open_at_end(incidents, run_end, still_open=()):
    """Flags the incidents not closed before the run ended: no close event,
    or only the one the agent writes for everything as it stops (at or just
    before run_end), or open when the run ended (still_open: their ids)."""
    for i in incidents.values():
        i["open_at_end"] = (i["id"] in still_open or "closed" not in i
                            or i["closed"] >= run_end - CLOSE_SLACK_S)


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


# ------------------------------------------------------------------- scoring

def is_follow_on(i):
    return i.get("follows") is not None or (i.get("phase") or 1) > 1


def first_phase_of(i, incidents):
    """The incident a follow-on phase continues, following the chain back
    (itself for a first phase, or where the chain leaves the run)."""
    seen = set()
    while i.get("follows") is not None and i["follows"] in incidents and i["id"] not in seen:
        seen.add(i["id"])
        i = incidents[i["follows"]]
    return i


class JobLog:
    """Follows the job's reports (`reveal workload --report 10s`): each
    line's all-reduce time, with the time it arrived."""

    PAT = re.compile(r"all-reduce ([0-9.]+) ms")
    COMPUTE = re.compile(r"compute ([0-9.]+) ms")

    def __init__(self, path):
        self.path, self.pos, self.buf = path, 0, b""
        self.reports = []          # (arrival time, all-reduce ms)
        self.computes = []         # (arrival time, compute ms a step)

    def poll(self):
        if not follow(self):
            return
        now = time.time()
        while b"\n" in self.buf:
            line, self.buf = self.buf.split(b"\n", 1)
            text = line.decode("utf-8", "replace")
            m = self.PAT.search(text)
            if m:
                self.reports.append((now, float(m.group(1))))
            m = self.COMPUTE.search(text)
            if m:
                self.computes.append((now, float(m.group(1))))


# A report covers the REPORT_S before it arrived; the job has recovered
# when a report wholly after the fault shows an all-reduce at most
# RECOVERED_X times its median over the minute before the fault.
REPORT_S = 10.0
RECOVERED_X = 2.0


def job_recovery(reports, t0, t1):
    """Seconds from the end of a fault (t1) to the first report of the job
    wholly after it that is back to its level before the fault (t0);
    None when no report after it is, or when there is no level to compare
    with (no report in the minute before the fault)."""
    before = [ms for t, ms in reports if t0 - 60.0 <= t <= t0]
    if not before:
        return None
    level = statistics.median(before)
    for t, ms in reports:
        if t >= t1 + REPORT_S and ms <= RECOVERED_X * level:
            return t - t1
    return None


# The job slowed by itself: a report wholly outside the faults whose compute
# time a step (its matrices alone, no network) is at least SLOWED_X times
# its median before the first fault. Nothing injected slowed it; the host
# did (on a VM: the hypervisor's other tenants, which steal no time the
# guest can count but make each instruction slower).
SLOWED_X = 1.5


def job_slowed(computes, plan, incidents):
    """Incident id -> (compute ms, level ms) for the first-phase incidents
    that began while the job's compute was slowed with no fault injected
    (SLOWED_X) and after which the job never got its compute back: such an
    incident still open at the end is right, the host is not back to
    normal. Incidents begun during a fault are the fault's."""
    done = [r for r in plan if not r.get("skipped")]
    if not done or not computes:
        return {}
    first = min(r["t0"] for r in done)
    before = [ms for t, ms in computes if t <= first]
    if not before:
        return {}
    level = statistics.median(before)
    out = {}
    for i in incidents:
        if is_follow_on(i) or "start" not in i:
            continue
        st = i["start"]
        if any(r["t0"] - 2.0 <= st <= r["t1"] for r in done):
            continue
        span = [(t, ms) for t, ms in computes if t - REPORT_S <= st <= t]
        later = [ms for t, ms in computes if t > st]
        if not span or any(t - REPORT_S < r["t1"] and t > r["t0"] for t, _ in span
                           for r in done):
            continue
        if all(ms >= SLOWED_X * level for ms in later):    # the span's reports among them
            out[i["id"]] = (span[-1][1], level)
    return out


def read_causes(db):
    """Incident id -> the rule ids of its likely causes, best first, from the
    agent's store (the ranking of its last explanation; the cross-layer
    notes, rules of another subsystem, are no causes); {} without one."""
    if not db or not os.path.exists(db):
        return {}
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        cols = [r[1] for r in con.execute("PRAGMA table_info(incident_causes)")]
        where = " WHERE role <> 'note'" if "role" in cols else ""
        out = {}
        for iid, rule in con.execute("SELECT incident_id, rule_id FROM incident_causes"
                                     + where + " ORDER BY incident_id, rank"):
            out.setdefault(iid, []).append(rule)
        return out
    finally:
        con.close()


def add_causes(incidents, causes):
    """Puts each incident's ranked causes (read_causes) into it; one the
    store does not hold keeps the cause of its last event alone."""
    for i in incidents.values():
        i["causes"] = causes.get(i["id"]) or event_cause(i)


def event_cause(i):
    """The cause of an incident's last event, as a ranking of one or none."""
    return [i["cause"]] if i.get("cause") else []


# rule id -> the candidates of an undecided rule (`reveal report
# --list-rules`), filled by load_undecided before scoring
UNDECIDED = {}


def load_undecided(reveal):
    """Reads which rules of the binary's knowledge base are undecided and the
    causes each stands for."""
    r = run([reveal, "report", "--list-rules"], check=False)
    if r.returncode:
        raise SystemExit(f"faultinject: {reveal} report --list-rules: {r.stderr.strip()}")
    UNDECIDED.clear()
    last = None
    for line in r.stdout.splitlines():
        if line.startswith("    undecided between: ") and last:
            UNDECIDED[last] = tuple(x.strip() for x in line.split(":", 1)[1].split(","))
        elif line and not line.startswith(" "):
            last = line.split()[0]


def cause_verdict(fault, ranked, undecided=None):
    """The likely cause of a fault's incident (ranked: rule ids, best first):
    right (the fault's rule first), second (it is second), undecided (an
    undecided rule first whose candidates include the fault's rule: the
    report names the causes that remain), wrong (another rule first, the
    fault's not second), none (no rule matched)."""
    if not ranked:
        return "none"
    ok = CAUSES.get(fault, ())
    if ranked[0] in ok:
        return "right"
    if len(ranked) > 1 and ranked[1] in ok:
        return "second"
    cands = (UNDECIDED if undecided is None else undecided).get(ranked[0], ())
    return "undecided" if any(c in ok for c in cands) else "wrong"


def close_time(i):
    """When the agent closed the incident; None while it is open."""
    return None if i.get("open_at_end") or "closed" not in i else i["closed"]


def score_injection(inj, reported, incidents, detect_end, run_end):
    """One injection's row: detection, blame, time to close (the module text)."""
    t0, t1 = inj["t0"], inj["t1"]
    hits = sorted((i for i in reported
                   if i["start"] <= t1 and (i["end"] is None or i["end"] >= t0)),
                  key=lambda i: i["start"])
    row = dict(inj, detected=bool(hits))
    if not hits:
        return row

    def length(i):
        return (i["end"] or detect_end) - i["start"]
    # a first phase reported after the injection began is the fault's own; an
    # incident reported before (still open from earlier) or a follow-on of an
    # earlier incident only overlaps it. Time to detect: the first one
    # reported; the blame: the longest one
    new = [i for i in hits if i["reported"] >= t0 and not is_follow_on(i)]
    if new:
        main = max(new, key=length)
    else:
        earlier = [i for i in hits if not is_follow_on(i)]
        main = earlier[0] if earlier else hits[0]
    roots = new or [first_phase_of(main, incidents)]
    root_ids = {i["id"] for i in roots}
    phases = [i for i in reported if is_follow_on(i)
              and first_phase_of(i, incidents)["id"] in root_ids]
    row.update(id=main["id"], ttd_s=min(i["reported"] for i in new) - t0 if new else None,
               pre_open=not new, follow_on_of_earlier=not new and is_follow_on(main),
               incidents=len(new), follow_ons=len(phases),
               incident_ids=[i["id"] for i in roots + phases],
               own_ids=[i["id"] for i in new],
               top1=main["subsystems"][0], ranking=main["subsystems"],
               top1_ok=main["subsystems"][0] == inj["expect"],
               top2_ok=inj["expect"] in main["subsystems"][:2],
               open_subsystem=main.get("open_subsystem"),
               open_ok=main.get("open_subsystem") == inj["expect"],
               cause=main.get("cause"), top=main.get("top"), duration_s=length(main))
    ranked = main["causes"] if "causes" in main else event_cause(main)
    row.update(causes=ranked, cause_verdict=cause_verdict(inj["fault"], ranked))
    # time to close: from the end of the fault; one still open when the run
    # ended has taken at least the rest of the run
    rest = run_end - t1
    c = close_time(main)
    row.update(close_s=None if c is None else c - t1, close_open=c is None,
               close_min_s=rest if c is None else None)
    closes = [close_time(i) for i in roots + phases]
    row.update(all_close_s=None if None in closes else max(closes) - t1,
               all_close_open=None in closes,
               all_close_min_s=rest if None in closes else None)
    return row


def score(plan, incidents, detect_start, detect_end, settle, run_end=None):
    """Per injection results, the false incidents and the clean time (see the
    module text). run_end: when the run ended (default detect_end); an
    incident flagged open_at_end (mark_open_at_end) counts as never closed."""
    run_end = detect_end if run_end is None else run_end
    reported = [i for i in incidents.values() if "reported" in i]
    rows, busy = [], []
    for inj in plan:
        busy.append((inj["t0"] - 2.0, inj["t1"] + settle))
        rows.append(dict(inj) if inj.get("skipped") else
                    score_injection(inj, reported, incidents, detect_end, run_end))
    # follow-on phases belong to the fault (or false incident) they follow;
    # an incident a fault counts as its own (reported after it began) is not
    # false even when its first window began more than 2 s before the fault
    own = {k for r in rows for k in r.get("own_ids", [])}
    false = [i for i in reported if not is_follow_on(i) and i["id"] not in own
             and detect_start <= i["start"] <= detect_end
             and not any(a <= i["start"] <= b for a, b in busy)]
    clean_s = detect_end - detect_start
    for a, b in busy:
        a, b = max(a, detect_start), min(b, detect_end)
        clean_s -= max(0.0, b - a)
    return rows, false, max(clean_s, 0.0)


def close_stats(det, key):
    """(median, whether it is only a lower bound, max, how many never closed)
    of a time to close over the detected rows. One never closed counts as its
    lower bound; the median is exact unless such a bound reaches it."""
    vals = [r[key + "_min_s"] if r[key + "_open"] else r[key + "_s"] for r in det]
    if not vals:
        return None, False, None, 0
    med = statistics.median(vals)
    bounds = [r[key + "_min_s"] for r in det if r[key + "_open"]]
    return med, bool(bounds) and min(bounds) <= med, max(vals), len(bounds)


def summarize(rows, false, clean_s, incidents=None, targets=None):
    done = [r for r in rows if not r.get("skipped")]
    det = [r for r in done if r["detected"]]
    ttd = [r["ttd_s"] for r in det if r["ttd_s"] is not None]
    still = sorted(i["id"] for i in (incidents or {}).values()
                   if "reported" in i and i.get("open_at_end"))
    still_first = sorted(i["id"] for i in (incidents or {}).values()
                         if "reported" in i and i.get("open_at_end") and not i.get("follows"))
    cmed, clow, cmax, copen = close_stats(det, "close")
    amed, alow, amax, aopen = close_stats(det, "all_close")
    s = {
        "injections": len(done),
        "skipped": len(rows) - len(done),
        "detected": len(det) / len(done) if done else 0.0,
        "ttd_median_s": statistics.median(ttd) if ttd else None,
        "ttd_max_s": max(ttd) if ttd else None,
        "top1": sum(r["top1_ok"] for r in det) / len(done) if done else 0.0,
        "top2": sum(r["top2_ok"] for r in det) / len(done) if done else 0.0,
        "open_right": sum(r.get("open_ok", False) for r in det) / len(done) if done else 0.0,
        "false_incidents": len(false),
        "clean_min": clean_s / 60.0,
        "false_per_h": len(false) / (clean_s / 3600.0) if clean_s > 0 else None,
        "close_median_s": cmed, "close_median_lower": clow, "close_max_s": cmax,
        "close_unclosed": copen, "all_close_median_s": amed, "all_close_median_lower": alow,
        "all_close_max_s": amax, "all_close_unclosed": aopen,
        "follow_ons": sum(r["follow_ons"] for r in det),
        # the likely cause: shares of the injections, an undetected one
        # counts as none
        "causes": {v: sum(r.get("cause_verdict") == v for r in det) / len(done) if done
                   else 0.0 for v in ("right", "second", "undecided", "wrong")},
        "open_at_end": still,
        "first_open_at_end": still_first,
    }
    t = TARGETS if targets is None else targets
    c = s["causes"]
    s["cause_ok"] = c["right"] + c["undecided"]
    s["met"] = {
        "detected": s["detected"] >= t["detected"],
        "cause_ok": s["cause_ok"] >= t["cause_ok"],
        "cause_wrong": c["wrong"] <= t["cause_wrong"],
        "ttd_median_s": s["ttd_median_s"] is not None and s["ttd_median_s"] <= t["ttd_median_s"],
        "top1": s["top1"] >= t["top1"],
        "top2": s["top2"] >= t["top2"],
        "false_per_h": s["false_per_h"] is not None and s["false_per_h"] <= t["false_per_h"],
        "clean_min": s["clean_min"] >= t["clean_min"],
        "close_median_s": cmed is not None and not clow and cmed <= t["close_median_s"],
        "close_max_s": cmax is not None and copen == 0 and cmax <= t["close_max_s"],
        "open_at_end": len(still) <= t["open_at_end"],
    }
    return s


def short_failures(rows, s, incidents=(), settle=0.0, detect_end=None, slowed=None):
    """What `--short --check` rejects: a fault not injected, not detected or
    its subsystem outside the top two, a first-phase incident still open at
    the end (a follow-on phase still open is an after-effect the full run's
    time-to-close columns measure; the short run is too short to judge it).
    An incident reported after detect_end, when the run had found every
    incident closed, never had a chance to close: it is not one that failed
    to end with its fault (the table lists it, a false incident when it
    began outside the faults and their settle time). slowed: job_slowed's
    incidents, still open rightly (the job itself stayed slow)."""
    out = []
    slowed = slowed or {}
    for r in rows:
        if r.get("skipped"):
            out.append(f"{r['fault']} could not be injected: {r['skipped']}")
        elif not (r["detected"] and r["top2_ok"]):
            out.append(f"{r['fault']} was not detected with subsystem {r['expect']} in its top 2")
    late = {i["id"] for i in incidents
            if detect_end is not None and i.get("reported", detect_end) > detect_end}
    still = [i for i in s.get("first_open_at_end", s["open_at_end"])
             if i not in job_degraded(rows, incidents, settle) and i not in late
             and i not in slowed]
    if still:
        out.append("incident(s) still open at the end of the run: "
                   + ", ".join(str(i) for i in still))
    return out


def job_degraded(rows, incidents=(), settle=0.0):
    """Incident id -> the row of its fault, for the faults after which the
    job never got back to its level (job_recovery): their incidents still
    open at the end are right, the host is not back to normal. Their
    incidents: those scored with the fault, and any that began during it or
    in its settle time (what a fault leaves behind may outgrow its first
    incident and be reported as one of its own)."""
    out = {}
    for r in rows:
        if r.get("job_level") is not None and r.get("job_recovered_s") is None:
            for i in r.get("incident_ids", []):
                out[i] = r
            for i in incidents:
                if r["t0"] <= i.get("start", r["t0"] - 1.0) <= r["t1"] + settle:
                    out[i["id"]] = r
    return out


def job_text(rows, reports):
    """The job's own view of each fault: its all-reduce time before, and
    how long after the fault it was back to it."""
    out = ["Job recovery (all-reduce, from `reveal workload --report 10s`; back when a report "
           f"wholly after the fault is within {RECOVERED_X:g}x the minute before it):", ""]
    for k, r in enumerate(rows, 1):
        if r.get("skipped"):
            continue
        after = [ms for t, ms in reports if t >= r["t1"]]
        if r.get("job_level") is None:
            out.append(f"- #{k} {r['fault']}: no report before it")
        elif r.get("job_recovered_s") is None:
            out.append(f"- #{k} {r['fault']}: {r['job_level']:.1f} ms before; not back by the "
                       f"end of the run (last {after[-1] if after else float('nan'):.1f} ms)")
        else:
            out.append(f"- #{k} {r['fault']}: {r['job_level']:.1f} ms before; back "
                       f"{r['job_recovered_s']:.0f} s after it ended (after it: "
                       f"{', '.join(f'{ms:.1f}' for ms in after[:8])} ms)")
    return "\n".join(out) + "\n"


def background_cmd(pct):
    """The background load: one stress-ng worker busy about pct % of one
    core, in busy slices of random length (0 to 0.5 s) between idle ones."""
    return f"stress-ng --cpu 1 --cpu-load {pct:g} --cpu-load-slice 0"


def fmt_close(r, key):
    if r[key + "_open"]:
        return f"> {r[key + '_min_s']:.0f}"
    return f"{r[key + '_s']:.1f}"


def fmt_s(v, bound=""):
    """Seconds; bound: "> " or "≥ " where v is only a lower bound."""
    return "-" if v is None else f"{bound}{v:.1f} s"


def cause_shares(s):
    c = s.get("causes") or {}
    right, second, und, wrong = (100 * c.get(k, 0.0)
                                 for k in ("right", "second", "undecided", "wrong"))
    return (f"{right:.0f} % / {second:.0f} % / {und:.0f} % / {wrong:.0f} % / "
            f"{max(0.0, 100 - right - second - und - wrong):.0f} %")


def fmt_cause(r):
    """The likely causes of a row, the first two, and the verdict on them."""
    if not r["causes"]:
        return "- (none)"
    return f"{' > '.join(r['causes'][:2])} ({r['cause_verdict']})"


def row_line(k, r):
    """One injection's line of the table."""
    head = f"| {k} | {r['fault']} | {r.get('set', SPLIT.get(r['fault'], 'dev'))} | {r['expect']} |"
    if r.get("skipped"):
        return f"{head} skipped: {r['skipped']} | | | | | | | | |"
    if not r["detected"]:
        return f"{head} **no** | | | | | | | | |"
    how = ""
    if r["pre_open"]:
        how = " (follow-on of an earlier incident)" if r["follow_on_of_earlier"] \
            else " (already open)"
    return "{} yes{} | {} | {} | {} | {} | {} | {} | {} | {} |".format(
        head, how, "-" if r["ttd_s"] is None else f"{r['ttd_s']:.1f}",
        fmt_close(r, "close"), fmt_close(r, "all_close"), r["follow_ons"],
        "yes" if r["top1_ok"] else "no", "yes" if r["top2_ok"] else "no",
        " > ".join(r["ranking"][:3]), fmt_cause(r))


def measure_table(title, s, t):
    """The measures of one set of injections against its targets."""
    met = s["met"]

    def yes(k):
        return "yes" if met[k] else "NO"

    def lb(lower):
        return "≥ " if lower else ""

    def gt(unclosed):
        return "> " if unclosed else ""
    fph = "-" if s["false_per_h"] is None else f"{s['false_per_h']:.2f}"
    wrong = 100 * s["causes"]["wrong"]
    return ["", f"**{title}**", "", "| measure | result | target | met |", "|---|---|---|---|",
            f"| injections detected | {100 * s['detected']:.0f} % of {s['injections']}"
            f" ({s['skipped']} skipped) | ≥ {100 * t['detected']:.0f} % | {yes('detected')} |",
            f"| median time to detect | {fmt_s(s['ttd_median_s'])} (max "
            f"{fmt_s(s['ttd_max_s'])}) | ≤ {t['ttd_median_s']:g} s | {yes('ttd_median_s')} |",
            f"| top-1 subsystem right | {100 * s['top1']:.0f} % | ≥ {100 * t['top1']:.0f} % |"
            f" {yes('top1')} |",
            f"| top-2 subsystem right | {100 * s['top2']:.0f} % | ≥ {100 * t['top2']:.0f} % |"
            f" {yes('top2')} |",
            f"| subsystem right at open (the first report) |"
            f" {100 * s.get('open_right', 0.0):.0f} % | (measured) | - |",
            f"| likely cause right, or undecided naming it | {100 * s['cause_ok']:.0f} % |"
            f" ≥ {100 * t['cause_ok']:.0f} % | {yes('cause_ok')} |",
            f"| likely cause wrong (another rule first) | {wrong:.0f} % |"
            f" ≤ {100 * t['cause_wrong']:.0f} % | {yes('cause_wrong')} |",
            f"| likely cause: the fault's rule first / second / undecided, naming it / "
            f"another first / none | {cause_shares(s)} | | - |",
            f"| false incidents per hour (whole run) | {fph} ({s['false_incidents']} in"
            f" {s['clean_min']:.1f} clean min) | ≤ {t['false_per_h']:g} over ≥"
            f" {t['clean_min']:.0f} clean min |"
            f" {'yes' if met['false_per_h'] and met['clean_min'] else 'NO'} |",
            f"| median time to close | {fmt_s(s['close_median_s'], lb(s['close_median_lower']))}"
            f" (all of the fault's incidents:"
            f" {fmt_s(s['all_close_median_s'], lb(s['all_close_median_lower']))}) |"
            f" ≤ {t['close_median_s']:g} s |"
            f" {yes('close_median_s')} |",
            f"| longest time to close | {fmt_s(s['close_max_s'], gt(s['close_unclosed']))}"
            f" (all of the fault's incidents: "
            f"{fmt_s(s['all_close_max_s'], gt(s['all_close_unclosed']))}) |"
            f" ≤ {t['close_max_s']:g} s | {yes('close_max_s')} |",
            f"| incidents open at the end of the run (whole run) | {len(s['open_at_end'])}"
            f"{' (' + ', '.join(map(str, s['open_at_end'])) + ')' if s['open_at_end'] else ''}"
            f" | {t['open_at_end']} | {yes('open_at_end')} |",
            "", f"Follow-on phases: {s['follow_ons']} in all."]


def set_summaries(rows, false, clean_s, incidents=None, shown=("held-out", "dev", "seen")):
    """(name, title, summary, targets) of every set shown that has injections."""
    out = []
    for name, title, targets in SETS:
        sub = [r for r in rows if in_set(r, name)]
        if name in shown and sub:
            out.append((name, title, summarize(sub, false, clean_s, incidents, targets),
                        targets))
    return out


def markdown(rows, false, sums, meta):
    """The tables of docs/EVALUATION.md: one line per injection (of the
    sets shown), then the measures of each set; sums: set_summaries;
    meta: cmd, and background_pct, cgroup when they apply."""
    out = [f"Command: `{meta['cmd']}`"]
    if meta.get("background_pct"):
        out.append(f"Background load: `{background_cmd(meta['background_pct'])}` "
                   f"(about {meta['background_pct']:g} % of one core, outside the namespace) "
                   "from before learning to the end.")
    if meta.get("cgroup"):
        out.append(f"Job's cgroup: {meta['cgroup']}.")
    shown = {name for name, _, _, _ in sums}
    out += ["",
            "| # | fault | set | expected | detected | TTD (s) | closed after (s) "
            "| all closed (s) | follow-ons | top-1 | top-2 | ranking | likely cause |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for k, r in enumerate(rows, 1):
        if any(in_set(r, name) for name in shown):
            out.append(row_line(k, r))
    for name, title, s, t in sums:
        out += measure_table(title, s, t)
    for i in false:
        out.append(f"\nFalse incident {i['id']}: {i['subsystem']}, top {', '.join(i['top'])}")
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------ the runs

def rescore(a):
    """Replays a recorded run through the agent of this build (fast) and
    scores it against the injections of that run: for trying detection
    changes without injecting again. TTD uses the agent's decision time."""
    d = a.rescore
    with open(os.path.join(d, "results.json")) as f:
        old = json.load(f)
    recs = sorted(glob.glob(os.path.join(d, "eval.*.rvl")))
    if len(recs) != 1:
        raise SystemExit(f"faultinject: expected one recording in {d}, found {len(recs)}")
    plan = [{k: r[k] for k in ("fault", "expect", "what", "set", "round", "t0", "t1",
                               "skipped", "note") if k in r} for r in old["injections"]]
    learn = old.get("learn_s", 120)
    # the live run's sampling interval: learning then spans the same samples
    interval = old.get("interval", INTERVAL)
    # the replay's events and store go to a folder of its own: the run's
    # folder may be a fixture of the checkout, or read-only
    with tempfile.TemporaryDirectory() as state:
        ev_path = os.path.join(state, "replay-events.jsonl")
        r = run([a.reveal, "agent", "--replay", recs[0], "--interval", interval,
                 "--learn", f"{learn:.0f}s", "--listen", "",
                 "--store", os.path.join(state, "replay.db"), "--events", ev_path,
                 "--state-dir", state, "--set", "refit=0",
                 "-q"] + [x for kv in a.agent_set for x in ("--set", kv)], check=False)
        if r.returncode:
            raise SystemExit("faultinject: replay failed: " + r.stderr.strip())
        causes = read_causes(os.path.join(state, "replay.db"))
        ev = Events(ev_path)
        ev.poll()
    add_causes(ev.incidents, causes)
    # runs older than the run_end field stopped the agent 2 s after detect_end;
    # the replay closes what is open at the recording's end, as the agent did
    run_end = old.get("run_end", old["detect_end"] + 2.0)
    mark_open_at_end(ev.incidents, run_end)
    rows, false, clean_s = score(plan, ev.incidents, old["detect_start"], old["detect_end"],
                                 a.settle, run_end)
    sums = set_summaries(rows, false, clean_s, ev.incidents, shown_sets(a))
    print(markdown(rows, false, sums, {"cmd": "eval/faultinject.py " + " ".join(sys.argv[1:]),
                                       "background_pct": old.get("background_pct"),
                                       "cgroup": old.get("cgroup")}))
    return 0


def shown_sets(a):
    """The sets --set asks to show: held-out, dev (with its first corpus) or all."""
    return {"all": ("held-out", "dev", "seen"), "dev": ("dev", "seen"),
            "held-out": ("held-out",)}[a.set]


class Warm:
    """Keeps the injectors' files in the page cache. A host that reclaims
    page cache left untouched for a while (DAMON's proactive reclaim, as on
    the machines of docs/EVALUATION.md: a minute) drops stress-ng, nft, tc
    and ip and their libraries between faults; each fault would then begin
    with seconds of reading them back from disk, and the time to detect
    would count the disk, not the fault. Reading a cached file marks it
    used; it costs a few milliseconds every EVERY seconds."""

    EVERY = 15.0

    def __init__(self, tools):
        paths = set()
        for t in tools:
            exe = shutil.which(t)
            if not exe:
                continue
            paths.add(os.path.realpath(exe))
            r = run(["ldd", exe], check=False)
            for line in r.stdout.splitlines():
                m = re.search(r"(/\S+) \(0x", line)
                if m:
                    paths.add(os.path.realpath(m.group(1)))
        self.paths = sorted(paths)
        self.next = 0.0

    def tick(self):
        if time.time() < self.next:
            return
        self.next = time.time() + self.EVERY
        for p in self.paths:
            try:
                with open(p, "rb") as f:
                    while f.read(1 << 20):
                        pass
            except OSError:
                pass


class Live:
    """One live run: the namespace, the job, the agent, the faults."""

    def __init__(self, a, names, out, p):
        self.a, self.names, self.out, self.p = a, names, out, p
        self.procs = {}          # what -> Popen: stops the run when one exits
        self.inj = None
        self.ev = None
        self.job = JobLog(os.path.join(out, "workload.log"))
        self.cg, self.cg_why = None, None
        self.plan = []
        self.warm = Warm(["stress-ng", "nft", "tc", "ip", "dd", "sh", "true", "swapon",
                          "swapoff"])

    def idle(self, seconds):
        t_end = time.time() + seconds
        while time.time() < t_end:
            self.warm.tick()
            if self.inj:
                self.inj.tick()
            self.job.poll()
            for i in self.ev.poll():
                extra = f" (phase {i['phase']}, follows {i['follows']})" if is_follow_on(i) else ""
                log(f"  incident {i['id']} opened: {i['open_subsystem']}{extra}")
            for what, proc in self.procs.items():
                if proc.poll() is not None:
                    raise SystemExit(f"faultinject: {what} stopped (exit {proc.returncode}); "
                                     f"see the logs in {self.out}")
            time.sleep(0.1)

    def wait_quiet(self):
        """Until no incident is open (at most quiet_max): a fault that begins
        inside an open incident only extends it."""
        t_wait = time.time()
        while any(i.get("end", 0) is None for i in self.ev.incidents.values()) \
                and time.time() - t_wait < self.p["quiet_max"]:
            self.idle(0.5)

    def start_job(self):
        a, out = self.a, self.out
        if self.p["background_pct"]:
            pct = self.p["background_pct"]
            log(f"background load: {background_cmd(pct)} (outside the namespace)")
            self.procs["the background load"] = start(
                background_cmd(pct).split() + ["--timeout", "0", "--quiet"],
                os.path.join(out, "background.log"))
        # stress-ng once before learning, so that loading it is part of normal
        run(["stress-ng", "--cpu", "1", "--timeout", "1s", "--quiet"], check=False)
        job = self.ns.cmd([a.reveal, "workload", "--report", "10s"])
        if "cgroup-throttle" in self.names:
            self.cg, self.cg_why = Cgroup.create(f"reveal-eval-{os.getpid()}")
            if self.cg:
                job = self.cg.wrap(job)
        self.procs["the job"] = start(job, os.path.join(out, "workload.log"))
        time.sleep(3)
        if self.procs["the job"].poll() is not None:
            raise SystemExit(f"faultinject: the job did not start: see {out}/workload.log")
        if self.cg:
            self.cg_why = self.cg.check_job(self.procs["the job"].pid)

    def start_agent(self):
        a, out, learn = self.a, self.out, self.p["learn"]
        self.events_path = os.path.join(out, "events.jsonl")
        agent_log = os.path.join(out, "agent.log")
        # a run in a used folder starts afresh: an old log would pass for the
        # end of learning, an old model would be loaded instead of learning
        state = os.path.join(out, "state")
        for stale in ([self.events_path, agent_log] +
                      [os.path.join(out, "eval.db" + x) for x in ("", "-wal", "-shm")] +
                      glob.glob(os.path.join(out, "eval.*.rvl")) +
                      ([os.path.join(state, f) for f in os.listdir(state)]
                       if os.path.isdir(state) else [])):
            if os.path.isfile(stale):
                os.unlink(stale)
        agent = start(self.ns.net_only(
            [a.reveal, "agent", "--interval", INTERVAL, "--learn", f"{learn:.0f}s",
             "--listen", "", "--store", os.path.join(out, "eval.db"),
             "--events", self.events_path, "--state-dir", os.path.join(out, "state"),
             "--set", "refit=0"] + [x for kv in a.agent_set for x in ("--set", kv)] +
            (["--record", os.path.join(out, "eval.rvl")] if a.record else [])), agent_log)
        self.procs["the agent"] = agent
        log(f"learning for {learn:.0f} s (agent at {INTERVAL}; output in {out})")
        wait_learned(agent_log, agent, learn + 120)
        self.ev = Events(self.events_path)

    def inject_all(self, injectors, why):
        p = self.p
        for r in range(p["rounds"]):
            for n in (self.names if r % 2 == 0 else list(reversed(self.names))):
                item = {"fault": n, "expect": FAULTS[n].expect, "what": FAULTS[n].what,
                        "set": SPLIT[n], "round": r + 1}
                if why[n]:
                    item.update(skipped=why[n], t0=time.time(), t1=time.time())
                    self.plan.append(item)
                    continue
                self.wait_quiet()
                self.inj = injectors[n]
                log(f"inject {n} ({FAULTS[n].what}) for {p['duration']:.0f} s")
                item["t0"] = time.time()
                self.inj.begin()
                self.idle(p["duration"])
                self.inj.end()
                item["t1"] = time.time()
                if self.inj.note:
                    item["note"] = self.inj.note
                self.inj = None
                self.plan.append(item)
                self.idle(p["gap"])

    def run(self):
        """The whole run; returns (detect_start, detect_end, run_end)."""
        out, p = self.out, self.p
        tmp = tempfile.mkdtemp(prefix="stress-", dir=out)
        self.ns = Namespace(f"reveal-eval-{os.getpid()}")
        injectors = {}
        try:
            injectors.update({n: Injector(self.ns, n, FAULTS[n], tmp, out) for n in self.names})
            why = {n: injectors[n].check() for n in self.names if n != "cgroup-throttle"}
            self.start_job()
            if "cgroup-throttle" in self.names:
                cgi = injectors["cgroup-throttle"]
                cgi.cg, cgi.cg_why = (None, self.cg_why) if self.cg_why else (self.cg, None)
                why["cgroup-throttle"] = cgi.check()
            for n, w in why.items():
                if w:
                    log(f"{n}: skipped: {w}")
                else:
                    injectors[n].prepare()     # files it needs, before learning
            self.start_agent()
            detect_start = time.time()
            log(f"detecting; clean stretch of {p['clean']:.0f} s")
            self.idle(p["clean"])
            self.inject_all(injectors, why)
            # the last fault's incidents get the same chance to close as the others
            self.wait_quiet()
            # an incident the agent reported just now may not be read yet:
            # look again a second later (it writes within one step)
            self.idle(1.5)
            self.wait_quiet()
            detect_end = time.time()
            self.idle(2)
            self.ev.poll()
            run_end = time.time()
            self.still_open = {i["id"] for i in self.ev.incidents.values()
                               if i.get("end", 0) is None}
        finally:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)    # let the cleanup finish
            if self.inj:
                try:
                    self.inj.end()
                except (OSError, subprocess.SubprocessError) as e:
                    log(f"note: ending {self.inj.name}: {e}")
            for what in ("the agent", "the job", "the background load"):
                stop(self.procs.pop(what, None), 10)
            for inj in injectors.values():
                try:
                    inj.cleanup()
                except (OSError, subprocess.SubprocessError) as e:
                    log(f"note: cleaning up after {inj.name}: {e}")
            self.ns.close()
            if self.cg:
                self.cg.remove()
            shutil.rmtree(tmp, ignore_errors=True)
        self.ev.poll()       # the agent's last word: the rankings of what it closed
        return detect_start, detect_end, run_end


def plan_text(p, n_inj):
    """How long the run takes and the least clean time it measures."""
    total = p["learn"] + p["clean"] + n_inj * (p["duration"] + p["gap"])
    # clean: the first stretch, and each gap past the settle time (less the 2 s
    # before the next injection); waits for a quiet host only add to it
    clean = p["clean"] + n_inj * max(0.0, p["gap"] - p["settle"] - 2.0)
    return total / 60.0, clean / 60.0


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("--reveal", default=os.path.join(ROOT, "build", "reveal"))
    ap.add_argument("--out", help="folder for logs, events, store and results "
                    "(default: a new temporary folder)")
    ap.add_argument("--short", action="store_true", help="3 faults, short gaps (make test)")
    ap.add_argument("--faults", help="comma-separated subset of: " + ", ".join(FAULTS))
    ap.add_argument("--set", choices=("all", "dev", "held-out"), default="all",
                    help="inject (or, with --rescore, show) only the development kinds or only "
                    "the held-out ones (eval/faults.py: the split); default all")
    ap.add_argument("--list", action="store_true",
                    help="no run: list the fault kinds with their set, subsystem and rules")
    ap.add_argument("--rounds", type=int, help="passes over the faults (default 2; short 1)")
    ap.add_argument("--learn", type=float, help="agent learning time, s (default 300; short 90)")
    ap.add_argument("--clean", type=float, help="clean stretch before the first fault, s "
                    "(default 1080; short 20)")
    ap.add_argument("--duration", type=float, help="each injection, s (default 40; short 25)")
    ap.add_argument("--gap", type=float, help="quiet time after each injection, s "
                    "(default 60; short 25); the next one also waits until no incident "
                    "is open (at most 60 s; short 40 s), and so does the end of the run")
    ap.add_argument("--settle", type=float, default=45.0,
                    help="time after an injection not counted as clean, s (default 45)")
    ap.add_argument("--background", type=float, metavar="PCT",
                    help="a steady, bursty CPU load of about PCT %% of one core (stress-ng "
                    "--cpu 1 --cpu-load PCT --cpu-load-slice 0, outside the namespace) from before "
                    "learning to the end: the agent learns with it, the faults come on top")
    ap.add_argument("--markdown", help="also write the tables to this file")
    ap.add_argument("--record", action="store_true",
                    help="the agent also records every sample (OUT/eval.*.rvl), to replay "
                    "the run offline: reveal agent --replay")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 when a target is missed (with --short: when an injection "
                    "is not detected or blamed on a subsystem outside its top two, or an "
                    "incident is still open at the end)")
    ap.add_argument("--agent-set", action="append", default=[], metavar="KEY=VALUE",
                    help="extra agent configuration (repeatable), e.g. detect.incident_min=3")
    ap.add_argument("--rescore", metavar="DIR",
                    help="no live run: replay DIR's recording (a run made with --record) "
                    "through this build's agent and score it against DIR's schedule")
    ap.add_argument("--self-test", action="store_true",
                    help="no run: check the scoring on made-up incidents (no root needed)")
    return ap, ap.parse_args()


def main():
    ap, a = parse_args()
    if a.self_test:
        return self_test()
    if a.list:
        return list_faults()
    if a.rescore:
        load_undecided(a.reveal)
        return rescore(a)

    short = a.short
    p = {"rounds": a.rounds or (1 if short else 2),
         "learn": a.learn or (90.0 if short else 300.0),
         "clean": a.clean if a.clean is not None else (20.0 if short else 1080.0),
         "duration": a.duration or (25.0 if short else 40.0),
         "gap": a.gap or (25.0 if short else 60.0),
         "settle": a.settle,
         "quiet_max": 40.0 if short else 60.0,
         "background_pct": a.background}
    names = a.faults.split(",") if a.faults else (SHORT if short else list(FAULTS))
    for n in names:
        if n not in FAULTS:
            ap.error(f"unknown fault '{n}'; known: {', '.join(FAULTS)}")
    if a.set != "all":
        names = [n for n in names if SPLIT[n] == a.set]
    if a.background is not None and not 0 < a.background <= 100:
        ap.error(f"--background {a.background:g}: a share of one core, over 0 and at most 100 (%)")
    if os.geteuid() != 0:
        ap.error("needs root: it creates a network namespace, nftables rules, a qdisc, a cgroup")
    for tool in ("ip", "nft", "tc", "stress-ng"):
        if not shutil.which(tool):
            log(f"note: {tool} is not installed; the faults that need it are skipped")
    if a.background and not shutil.which("stress-ng"):
        ap.error("--background needs stress-ng (scripts/install-deps.sh)")
    if not os.access(a.reveal, os.X_OK):
        ap.error(f"{a.reveal}: no such program (run make first)")
    load_undecided(a.reveal)
    total_min, clean_min = plan_text(p, len(names) * p["rounds"])
    log(f"{len(names) * p['rounds']} injections, about {total_min:.0f} min; at least "
        f"{clean_min:.1f} clean min (the false-alarm target needs {TARGETS['clean_min']:.0f})")

    out = a.out or tempfile.mkdtemp(prefix="reveal-eval-")
    os.makedirs(out, exist_ok=True)
    # a stop by SIGTERM cleans up like Ctrl-C: namespace, qdisc, cgroup
    signal.signal(signal.SIGTERM, lambda sig, frame: sys.exit(128 + sig))
    live = Live(a, names, out, p)
    detect_start, detect_end, run_end = live.run()
    ev = live.ev
    mark_open_at_end(ev.incidents, run_end, live.still_open)
    add_causes(ev.incidents, read_causes(os.path.join(out, "eval.db")))
    rows, false, clean_s = score(live.plan, ev.incidents, detect_start, detect_end, a.settle,
                                 run_end)
    for r in rows:
        if not r.get("skipped"):
            before = [ms for t, ms in live.job.reports if r["t0"] - 60.0 <= t <= r["t0"]]
            r["job_level"] = statistics.median(before) if before else None
            r["job_recovered_s"] = job_recovery(live.job.reports, r["t0"], r["t1"])
    sums = set_summaries(rows, false, clean_s, ev.incidents, shown_sets(a))
    s = summarize(rows, false, clean_s, ev.incidents)
    plain = not (short or a.faults or a.set != "all" or a.rounds or a.learn or a.clean is not None or a.duration
                 or a.gap or a.background or a.agent_set)
    cgroup = (f"{live.cg.path} (cgroup {live.cg.version})" if live.cg and not live.cg_why
              else None)
    meta = {"cmd": "make eval" if plain else " ".join(["eval/faultinject.py"] + sys.argv[1:]),
            "background_pct": a.background, "cgroup": cgroup}
    md = markdown(rows, false, sums, meta)
    print(md)
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump({"summary": s, "targets": TARGETS,
                   "sets": {name: summ for name, _, summ, _ in sums},
                   "split": {n: SPLIT[n] for n in names}, "injections": rows, "false": false,
                   "incidents": list(ev.incidents.values()), "learn_s": p["learn"],
                   "interval": INTERVAL,
                   "params": p, "faults": names, "background_pct": a.background,
                   "cgroup": cgroup, "detect_start": detect_start, "detect_end": detect_end,
                   "run_end": run_end, "job_reports": live.job.reports,
                   "job_computes": live.job.computes}, f, indent=1)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(md)
    log(f"results in {out}/results.json")
    print(job_text(rows, live.job.reports))
    if a.check:
        degraded = job_degraded(rows, ev.incidents.values(), a.settle)
        for i, r in sorted(degraded.items()):
            if i in s.get("first_open_at_end", ()):
                log(f"note: incident {i} is still open, and rightly: after {r['fault']} the job "
                    f"never got back to its all-reduce of {r['job_level']:.1f} ms")
        for inc in sorted(ev.incidents.values(), key=lambda i: i["id"]):
            if "reported" in inc:
                log(f"  incident {inc['id']}: {inc.get('open_subsystem')} at open, "
                    f"{' > '.join(inc.get('subsystems') or [])} at the end"
                    f"{' (still open)' if inc.get('open_at_end') else ''}; top "
                    f"{', '.join(inc.get('top') or [])}")
        for inc in sorted(ev.incidents.values(), key=lambda i: i["id"]):
            if inc.get("open_at_end") and inc.get("reported", detect_end) > detect_end:
                log(f"note: incident {inc['id']} was reported "
                    f"{inc['reported'] - detect_end:.1f} s after every incident had closed "
                    "(the run's end): it had no time to close")
        slowed = job_slowed(live.job.computes, live.plan, ev.incidents.values())
        for i, (ms, level) in sorted(slowed.items()):
            if i in s.get("first_open_at_end", ()):
                log(f"note: incident {i} is still open, and rightly: it began with no fault "
                    f"while the job's compute a step went from {level:.1f} ms to {ms:.1f} ms "
                    f"({SLOWED_X:g}x or more) and stayed there to the end")
        bad = short_failures(rows, s, ev.incidents.values(), a.settle, detect_end,
                             slowed) if short else \
            [f"{name}: target missed: {k}" for name, _, summ, _ in sums
             for k, ok in summ["met"].items() if not ok]
        for b in bad:
            log(f"FAIL: {b}")
        if bad:
            return 1
    return 0


def list_faults():
    """--list: the corpus, a line per kind."""
    print("kind                   set       expected  rules (any is right)   what")
    for n, f in FAULTS.items():
        print(f"{n:22s} {SPLIT[n]:9s} {f.expect:9s} {','.join(f.causes):22s} {f.what}")
    print(f"\n{len(FAULTS)} kinds: {len(HELD_OUT)} held out, {len(DEV)} for development "
          f"({len(SEEN)} of them the first corpus); the split: eval/faults.py")
    return 0


# ------------------------------------------------------------------ self-test

def self_test():
    """The scoring on made-up incidents: blame, follow-on phases, time to
    close, incidents open at the end, events of older agents."""
    checks = []

    def expect(what, got, want):
        checks.append(what)
        if got != want:
            raise SystemExit(f"faultinject: self-test: {what}: got {got!r}, want {want!r}")

    def inc(id_, start, reported, end, closed, subs, phase=None, follows=None):
        i = {"id": id_, "start": start, "reported": reported, "end": end, "subsystems": subs,
             "subsystem": subs[0], "cause": None, "top": ["m"]}
        if closed is not None:
            i["closed"] = closed
        if phase is not None:
            i.update(phase=phase, follows=follows)
        return i

    plan = [{"fault": "cpu-contention", "expect": "cpu", "t0": 1000.0, "t1": 1040.0},
            {"fault": "packet-loss", "expect": "net", "t0": 1200.0, "t1": 1240.0},
            {"fault": "cgroup-throttle", "expect": "cpu", "t0": 1300.0, "t1": 1300.0,
             "skipped": "no usable cpu cgroup"},
            {"fault": "disk-write-storm", "expect": "storage", "t0": 1400.0, "t1": 1440.0}]
    incs = {i["id"]: i for i in [
        # fault 1: a short storage blip, the long cpu incident (no phase fields:
        # an older agent) and two follow-on phases, the last past the settle time
        inc(1, 1001.0, 1002.5, 1045.0, 1048.0, ["cpu", "mem"]),
        inc(4, 1010.0, 1011.0, 1012.0, 1014.0, ["storage"], 1, None),
        inc(2, 1060.0, 1061.0, 1080.0, 1083.0, ["cpu"], 2, 1),
        inc(3, 1150.0, 1151.0, 1155.0, 1160.0, ["cpu"], 3, 2),
        # fault 2: a first phase and a longer follow-on still open at the end
        inc(6, 1205.0, 1206.0, 1230.0, 1250.0, ["net", "cpu"], 1, None),
        inc(8, 1232.0, 1233.0, None, None, ["cpu"], 2, 6),
        # clean time: a false incident; a follow-on of it is not another one
        inc(5, 1600.0, 1601.0, 1603.0, 1606.0, ["mem"]),
        inc(9, 1620.0, 1621.0, 1625.0, 1628.0, ["mem"], 2, 5),
        # fault 4: closed only by the agent stopping at the end of the run
        inc(10, 1402.0, 1404.0, 1700.0, 1799.9, ["storage"], 1, None)]}
    mark_open_at_end(incs, 1800.0)
    expect("a close at the agent's stop is no close", incs[10]["open_at_end"], True)
    expect("a close before the end is one", incs[6]["open_at_end"], False)
    # a fault's own incident whose first window began 3 s before it (a 3 s
    # window holding its first samples) is not false
    early = dict(incs)
    early[11] = inc(11, 1196.5, 1201.0, 1210.0, 1212.0, ["net"])
    _, false_e, _ = score(plan, early, 900.0, 1790.0, 45.0, 1800.0)
    expect("an own incident begun before the fault is not false",
           sorted(i["id"] for i in false_e), [5])
    rows, false, clean_s = score(plan, incs, 900.0, 1790.0, 45.0, 1800.0)
    r1, r2, r3, r4 = rows
    expect("detected", [r["detected"] for r in (r1, r2, r4)], [True, True, True])
    expect("time to detect: the first reported", r1["ttd_s"], 2.5)
    expect("blame: the longest first phase", r1["id"], 1)
    expect("its ranking", (r1["top1_ok"], r1["top2_ok"]), (True, True))
    expect("follow-ons of the fault, chain followed", r1["follow_ons"], 2)
    expect("the fault's incidents", sorted(r1["incident_ids"]), [1, 2, 3, 4])
    expect("time to close", r1["close_s"], 8.0)
    expect("all its incidents closed", r1["all_close_s"], 120.0)
    expect("a longer follow-on is never blamed", r2["id"], 6)
    expect("blamed incident closed", (r2["close_s"], r2["close_open"]), (10.0, False))
    expect("a follow-on open at the end", (r2["all_close_open"], r2["all_close_min_s"]),
           (True, 560.0))
    expect("skipped row kept", r3.get("skipped"), "no usable cpu cgroup")
    expect("blamed incident open at the end", (r4["close_open"], r4["close_min_s"]),
           (True, 360.0))
    expect("false: first phases outside the faults only", [i["id"] for i in false], [5])
    # clean: 890 s of detection less (998..1085), (1198..1285), (1298..1345), (1398..1485)
    expect("clean time", round(clean_s, 6), 890.0 - 87.0 - 87.0 - 47.0 - 87.0)
    s = summarize(rows, false, clean_s, incs)
    expect("median time to close (open ones as lower bounds)", s["close_median_s"], 10.0)
    expect("longest time to close", (s["close_max_s"], s["close_unclosed"]), (360.0, 1))
    expect("... exact: the open one is above it", s["close_median_lower"], False)
    expect("open at the end", s["open_at_end"], [8, 10])
    early = [{"close_s": 8.0, "close_open": False, "close_min_s": None},
             {"close_s": None, "close_open": True, "close_min_s": 5.0},
             {"close_s": 12.0, "close_open": False, "close_min_s": None}]
    expect("a median an open incident reaches is a lower bound", close_stats(early, "close"),
           (8.0, True, 12.0, 1))
    expect("targets missed", sorted(k for k, ok in s["met"].items() if not ok),
           ["cause_ok", "clean_min", "close_max_s", "false_per_h", "open_at_end",
            "ttd_median_s"])
    expect("detection and top-2 met", (s["met"]["detected"], s["met"]["top2"]), (True, True))
    # 8 is a follow-on phase: its after-effect is not the short check's
    expect("short check", short_failures(rows, s),
           ["cgroup-throttle could not be injected: no usable cpu cgroup",
            "incident(s) still open at the end of the run: 10"])
    # the job never got back after the fault of incident 10: its incident
    # still open is right, the short check takes it
    deg = [dict(r) for r in rows]
    for r in deg:
        if 10 in r.get("incident_ids", []):
            r.update(job_level=4.5, job_recovered_s=None)
    expect("short check, job not back", short_failures(deg, s),
           ["cgroup-throttle could not be injected: no usable cpu cgroup"])
    # reported after the run found every incident closed: no time to close
    lastmin = [{"id": 10, "start": 1500.0, "reported": 1501.0}]
    expect("short check, reported after detect_end", short_failures(rows, s, lastmin, 0.0, 1500.5),
           ["cgroup-throttle could not be injected: no usable cpu cgroup"])
    expect("... reported before it still fails", short_failures(rows, s, lastmin, 0.0, 1501.5),
           ["cgroup-throttle could not be injected: no usable cpu cgroup",
            "incident(s) still open at the end of the run: 10"])
    # an incident that began in the settle time after such a fault is its too
    late = {"id": 11, "start": 1260.0}
    pl = [dict(r) for r in rows if r.get("fault") == "packet-loss"]
    pl[0].update(job_level=4.5, job_recovered_s=None)
    expect("job not back: an incident begun in its settle time", 11 in
           job_degraded(pl, [late], 45.0), True)
    expect("... not after it", 11 in job_degraded(pl, [late], 10.0), False)
    pl[0].update(job_recovered_s=12.0)
    expect("... nor when the job got back", 11 in job_degraded(pl, [late], 45.0), False)
    reps = [(90.0, 4.0), (100.0, 5.0), (120.0, 90.0), (130.0, 95.0), (140.0, 9.0),
            (150.0, 5.0)]
    expect("job back: the first report wholly after, within 2x", job_recovery(reps, 101, 125),
           15.0)
    expect("job not back", job_recovery(reps[:4], 101, 125), None)
    expect("no level before the fault", job_recovery(reps, 50, 60), None)
    # the job's compute slowed with no fault: an incident begun then, still
    # open at the end, is right while the job stays slow
    plan3 = [{"fault": "packet-loss", "expect": "net", "t0": 200.0, "t1": 225.0}]
    comp = [(150.0, 5.0), (160.0, 5.5), (170.0, 5.2), (230.0, 5.4), (240.0, 5.3),
            (250.0, 5.1), (260.0, 9.0)]
    new3 = {"id": 5, "start": 254.0}
    expect("job slowed with no fault", job_slowed(comp, plan3, [new3]), {5: (9.0, 5.2)})
    expect("... not when it got its compute back",
           job_slowed(comp + [(270.0, 5.5)], plan3, [new3]), {})
    expect("... not when the slowing is a third",
           job_slowed(comp[:-1] + [(260.0, 7.0)], plan3, [new3]), {})
    expect("... not when the report spans the fault",
           job_slowed(comp, [dict(plan3[0], t1=252.0)], [new3]), {})
    expect("... not for a follow-on phase",
           job_slowed(comp, plan3, [dict(new3, follows=4, phase=2)]), {})
    expect("... not begun during the fault",
           job_slowed(comp, plan3, [dict(new3, start=210.0)]), {})
    expect("short check takes it",
           short_failures([], {"open_at_end": [5], "first_open_at_end": [5]}, [new3],
                          slowed={5: (9.0, 5.2)}), [])
    expect("... and without it fails",
           short_failures([], {"open_at_end": [5], "first_open_at_end": [5]}, [new3]),
           ["incident(s) still open at the end of the run: 5"])
    md = markdown(rows, false, set_summaries(rows, false, clean_s, incs),
                  {"cmd": "x", "background_pct": 40.0})
    for part in ("| 1 | cpu-contention | dev | cpu | yes | 2.5 | 8.0 | 120.0 | 2 | yes | yes |",
                 "| 2 | packet-loss | dev | net | yes | 6.0 | 10.0 | > 560 | 1 |",
                 "| 4 | disk-write-storm | dev | storage | yes | 4.0 | > 360 | > 360 | 0 |",
                 "> 360.0 s", "cpu-load 40", "**the first corpus",
                 "| incidents open at the end of the run (whole run) | 2 (8, 10) |"):
        if part not in md:
            print(md)
        expect(f"markdown shows {part!r}", part in md, True)

    # a fault met only by a follow-on of an earlier incident has no own incident
    plan2 = [{"fault": "cache-thrash", "expect": "cpu", "t0": 2000.0, "t1": 2040.0}]
    incs2 = {1: inc(1, 1900.0, 1901.0, 1950.0, 1952.0, ["mem"], 1, None),
             2: inc(2, 2010.0, 2012.0, 2020.0, 2025.0, ["cpu"], 2, 1)}
    mark_open_at_end(incs2, 2500.0)
    rows2, false2, _ = score(plan2, incs2, 1800.0, 2400.0, 45.0, 2500.0)
    expect("detected through a follow-on of an earlier incident",
           (rows2[0]["detected"], rows2[0]["pre_open"], rows2[0]["follow_on_of_earlier"],
            rows2[0]["ttd_s"]), (True, True, True, None))
    expect("... whose first phase is the false one", [i["id"] for i in false2], [1])

    # events: older lines without phase fields; a close's time, else its arrival
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "events.jsonl")
        base = {"start": 10.0, "end": None, "subsystem": "cpu",
                "subsystems": [{"name": "cpu", "share": 0.9}], "cause": None, "top_metrics": []}
        lines = [dict(base, event="open", id=1, time=11.0),
                 dict(base, event="close", id=1, time=20.0, end=18.0),
                 dict(base, event="open", id=2, time=30.0, phase=2, follows=1),
                 dict(base, event="update", id=2, time=31.0, phase=2, follows=1),
                 dict(base, event="open", id=3, time=40.0, phase=1, follows=None),
                 dict(base, event="close", id=3, end=45.0)]
        with open(path, "w") as f:
            f.write("".join(json.dumps(x) + "\n" for x in lines))
        ev = Events(path)
        t_read = time.time()
        ev.poll()
        e = ev.incidents
        expect("no phase fields: a first phase", (e[1]["phase"], is_follow_on(e[1])), (1, False))
        expect("close time from the event", e[1]["closed"], 20.0)
        expect("a follow-on", (e[2]["phase"], e[2]["follows"], is_follow_on(e[2])), (2, 1, True))
        expect("its first phase", first_phase_of(e[2], e)["id"], 1)
        expect("phase 1, follows null", is_follow_on(e[3]), False)
        expect("close time without `time`: the arrival", e[3]["closed"] >= t_read, True)
        expect("open incident has no close", "closed" in e[2], False)
    # likely causes: the verdict on a ranking, the store's rankings
    expect("cause: the fault's rule first", cause_verdict("packet-loss", ["packet-loss"]),
           "right")
    expect("cause: the fault's rule second",
           cause_verdict("cpu-contention", ["memory-bandwidth-saturation", "cpu-contention"]),
           "second")
    expect("cause: another rule first, the fault's third",
           cause_verdict("cpu-contention", ["a", "b", "cpu-contention"]), "wrong")
    expect("cause: no rule", cause_verdict("packet-loss", []), "none")
    und = {"cpu-bound-undecided": ("cache-thrash", "memory-bandwidth-saturation")}
    expect("cause: an undecided rule naming the fault's",
           cause_verdict("cache-thrash", ["cpu-bound-undecided", "x"], und), "undecided")
    expect("cause: an undecided rule not naming it",
           cause_verdict("packet-loss", ["cpu-bound-undecided"], und), "wrong")
    expect("cause: the fault's rule second beats undecided",
           cause_verdict("cache-thrash", ["cpu-bound-undecided", "cache-thrash"], und), "second")
    with tempfile.TemporaryDirectory() as d:
        db = os.path.join(d, "s.db")
        con = sqlite3.connect(db)
        con.execute("CREATE TABLE incident_causes (incident_id INTEGER, rank INTEGER, "
                    "rule_id TEXT, title TEXT, confidence REAL, role TEXT)")
        con.executemany("INSERT INTO incident_causes VALUES (?, ?, ?, '', 0.5, ?)",
                        [(4, 1, "b", "cause"), (4, 0, "a", "onset"), (5, 0, "c", "cause"),
                         (5, 1, "n", "note")])
        con.commit()
        con.close()
        got = read_causes(db)
        expect("store causes by rank", got, {4: ["a", "b"], 5: ["c"]})
        incs = {4: {"id": 4, "cause": "a"}, 6: {"id": 6, "cause": "x"}, 7: {"id": 7, "cause": None}}
        add_causes(incs, got)
        expect("an incident not in the store keeps its event's cause",
               [incs[k]["causes"] for k in (4, 6, 7)], [["a", "b"], ["x"], []])
        expect("no store, no causes", read_causes(os.path.join(d, "none.db")), {})
    row = {"fault": "packet-loss", "cause": "packet-loss",
           "causes": ["packet-loss", "cpu-contention"], "cause_verdict": "right"}
    expect("the cause column", fmt_cause(row), "packet-loss > cpu-contention (right)")
    expect("cause shares",
           cause_shares({"causes": {"right": 0.5, "second": 0.25, "undecided": 0.125,
                                    "wrong": 0.0}}),
           "50 % / 25 % / 12 % / 0 % / 12 %")
    # the split: the first corpus is development; the rest of a subsystem
    # held out in hash order until half its kinds (rounded up) are
    from faults import Fault, name_hash, split
    made = {n: Fault(sub, n, ["stress"], ["r"]) for n, sub in
            [("cpu-contention", "cpu"), ("a", "cpu"), ("b", "cpu"), ("c", "cpu"),
             ("d", "net"), ("e", "net"), ("f", "net")]}
    got = split(made)
    want = {"cpu-contention": "dev"}
    for n in sorted("abc", key=name_hash):
        want[n] = "held-out" if sum(v == "held-out" for k, v in want.items()
                                    if made[k].expect == "cpu") < 2 else "dev"
    for n in sorted("def", key=name_hash):
        want[n] = "held-out" if sum(v == "held-out" for k, v in want.items()
                                    if made[k].expect == "net") < 2 else "dev"
    expect("the split rule", got, want)
    expect("the corpus: every seen kind is a development one",
           all(SPLIT[n] == "dev" for n in SEEN), True)
    expect("... at least 30 kinds, half of them or so held out",
           (len(FAULTS) >= 30, abs(len(HELD_OUT) - len(DEV)) <= 4), (True, True))
    expect("a row's set: its own, else the split's",
           (in_set({"fault": "fork-storm", "set": "held-out"}, "held-out"),
            in_set({"fault": "packet-loss"}, "dev"), in_set({"fault": "packet-loss"}, "seen")),
           (True, True, True))
    # a loop of follows (a broken file) ends
    loop = {1: {"id": 1, "follows": 2, "phase": 2}, 2: {"id": 2, "follows": 1, "phase": 2}}
    expect("a loop of follows ends", first_phase_of(loop[1], loop)["id"] in (1, 2), True)
    print(f"faultinject: self-test: {len(checks)} checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
