#!/usr/bin/python3
"""reveal collector benchmarks, side by side in one run (issue 3; numbers go to
docs/COLLECTOR_PERFORMANCE.md).

1. CPU of `reveal record --interval 100ms` over --duration (default 120 s) as % of one
   core: the whole run (getrusage of the child, startup included) and the steady state
   (the threads' schedstat CPU time at t=10 s and just before the end).
2. At the same time and for the same time, bench/floor.c at 100 ms (pread + number scan
   of the nine big procfs files, nothing else): ratio reveal/floor, us per sweep and
   us per channel-sample; and two floors on reveal's own files (those a running
   `reveal record` keeps open): every file at every sweep, and "at reveal's cadence"
   (the files strace sees read at every sweep then, the others at one sweep in ten,
   as reveal reads its slow sources at the default --slow-interval 1s).
   Fairness: the collectors (reveal, the floors, --reveal-before) share one CPU,
   all moved together to the next CPU every 10 s, so that none keeps a quieter CPU
   for the whole run; and each has its own interval (reveal 100 ms, the floors
   100.1, 100.2, 100.3 ms, the before binary 100.4 ms), so that their wake-ups
   drift through each other instead of keeping the phase their start gave them
   (same-phase or not, a fixed phase changed one contender's cost by 15 % here).
3. At the same time, prometheus-node-exporter (the Debian package, run directly on
   127.0.0.1:9199) scraped at 100 ms with keep-alive, and a second one on :9198 scraped
   at 1 s: CPU %, series per scrape, us per series-sample.
4. us per sweep of the collector library alone (bench/collect_sweep.c, back-to-back
   sweeps) on this host (root "") and on the 128-CPU, 8-GPU fixture host
   (tests/fixtures/collect/gen_bighost.py + the fake libnvidia-ml).
5. --long: bytes per value of a 10-minute recording of this host idle, then of one under
   `stress-ng --cpu 1 --vm 1 --vm-bytes 256M --io 1` (20 minutes).

  bench/collect_bench.py [--duration 120] [--long] [--long-duration 600]
                         [--reveal-before OLD/reveal]
                         [--skip-node-exporter] [--json FILE]

Needs build/reveal (make), gcc, strace; for 3 prometheus-node-exporter, for 5 stress-ng
(`scripts/install-deps.sh --bench` installs them). The markdown tables go to stdout, progress to stderr.
"""
import argparse
import http.client
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, "build")
REVEAL = os.path.join(BUILD, "reveal")
FLOOR = os.path.join(BUILD, "floor")
SWEEP = os.path.join(BUILD, "collect_sweep")
NODE_EXPORTER = "/usr/bin/prometheus-node-exporter"
NVML_FAKE = os.path.join(BUILD, "fakes", "libnvidia_ml_fake.so")
BIGHOST = os.path.join(ROOT, "tests", "fixtures", "collect", "gen_bighost.py")
TICK = os.sysconf("SC_CLK_TCK")
STEADY_FROM_S = 10.0
ROTATE_S = 10.0
SLOW_EVERY = 10         # reveal's default --slow-interval (1 s) in 100 ms sweeps
INTERVALS_MS = {"reveal": 100.0, "floor_like": 100.1, "floor_same": 100.2, "floor": 100.3,
                "reveal_before": 100.4}
SUMMARY = re.compile(r"reveal record: .*: (\d+) samples of (\d+) channels, (\d+) bytes "
                     r"\(([\d.]+) bytes per value\), (\d+) deadlines missed, ([\d.]+) s CPU")


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def build():
    if not os.path.exists(REVEAL):
        raise SystemExit("no build/reveal: run make first")
    subprocess.run(["gcc", "-O2", "-o", FLOOR, os.path.join(ROOT, "bench", "floor.c")],
                   check=True)
    libs = [os.path.join(BUILD, "librv_%s.a" % m) for m in ("collect", "derive", "catalog", "base")]
    extra = []
    cache = os.path.join(BUILD, "CMakeCache.txt")
    if os.path.exists(cache):
        with open(cache) as f:
            if re.search(r"^PFM_LIB:FILEPATH=(?!.*NOTFOUND).+$", f.read(), re.M):
                extra.append("-lpfm")
    subprocess.run(["gcc", "-O2", "-I", os.path.join(ROOT, "src"), "-o", SWEEP,
                    os.path.join(ROOT, "bench", "collect_sweep.c")] + libs + extra +
                   ["-ldl", "-lm", "-lpthread"], check=True)


def stat_cpu_s(pid):
    """CPU seconds of a live process: the sum_exec_runtime of its threads
    (/proc/PID/task/*/schedstat, nanoseconds); /proc/PID/stat's utime + stime
    (10 ms ticks) where schedstat is missing."""
    total, seen = 0, False
    try:
        for tid in os.listdir("/proc/%d/task" % pid):
            try:
                with open("/proc/%d/task/%s/schedstat" % (pid, tid)) as f:
                    total += int(f.read().split()[0])
                    seen = True
            except (FileNotFoundError, ValueError, IndexError):
                pass
    except FileNotFoundError:
        pass
    if seen:
        return total / 1e9
    with open("/proc/%d/stat" % pid) as f:
        rest = f.read().rsplit(")", 1)[1].split()
    return (int(rest[11]) + int(rest[12])) / TICK


def vm_hwm_mib(pid):
    """Peak RSS of a live process (ru_maxrss of a child is useless here: it survives
    exec, so it starts at the size of this Python process)."""
    with open("/proc/%d/status" % pid) as f:
        for ln in f:
            if ln.startswith("VmHWM:"):
                return int(ln.split()[1]) / 1024.0
    return None


def ru_cpu_s(ru):
    return ru.ru_utime + ru.ru_stime


class Contender:
    """A child started now, its CPU time read at t=10 s and at t=end-0.3 s."""

    def __init__(self, name, cmd, **kw):
        self.name, self.cmd = name, cmd
        self.t0 = time.monotonic()
        self.proc = subprocess.Popen(cmd, **kw)
        self.marks = {}
        self.hwm_mib = None

    def mark(self, key):
        try:
            self.marks[key] = (time.monotonic() - self.t0, stat_cpu_s(self.proc.pid))
            if key == "end":
                self.hwm_mib = vm_hwm_mib(self.proc.pid)
        except (OSError, IndexError):
            pass

    def steady(self):
        (ta, ca), (tb, cb) = self.marks["steady0"], self.marks["end"]
        return {"cpu_s": cb - ca, "wall_s": tb - ta, "pct": 100.0 * (cb - ca) / (tb - ta)}

    def reap(self):
        _, status, ru = os.wait4(self.proc.pid, 0)
        self.wall_s = time.monotonic() - self.t0
        self.total_cpu_s = ru_cpu_s(ru)
        return status


def wait_port(port, deadline_s=10.0):
    t = time.monotonic() + deadline_s
    while time.monotonic() < t:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit("node exporter did not listen on :%d" % port)


def scraper(port, interval_s, stop, out):
    """Scrapes /metrics at absolute deadlines with one keep-alive connection."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    nxt = time.monotonic()
    scrapes, series, errors, lat = 0, 0, 0, []
    while not stop.is_set():
        t = time.monotonic()
        try:
            conn.request("GET", "/metrics")
            body = conn.getresponse().read()
            lat.append(time.monotonic() - t)
            scrapes += 1
            series = sum(1 for ln in body.split(b"\n") if ln and not ln.startswith(b"#"))
        except (OSError, http.client.HTTPException):
            errors += 1
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        nxt += interval_s
        d = nxt - time.monotonic()
        if d > 0:
            stop.wait(d)
        else:
            nxt = time.monotonic()
    conn.close()
    out.update(scrapes=scrapes, series=series, errors=errors,
               scrape_ms_median=1000.0 * statistics.median(lat) if lat else None)


def reveal_files(tmp):
    """The procfs/sysfs files a running `reveal record` keeps open (its
    /proc/PID/fd), for the floors that read "the same files", each with how
    often reveal reads it: 1 when strace sees it read at (nearly) every sweep
    of 5 s, SLOW_EVERY for the others (reveal's slow sources)."""
    p = subprocess.Popen([REVEAL, "record", "-q", "-o", os.path.join(tmp, "probe.rvl"),
                          "--interval", "100ms", "--duration", "7s"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.5)
    paths = {}
    fddir = "/proc/%d/fd" % p.pid
    for fd in sorted(os.listdir(fddir), key=int):
        try:
            target = os.readlink(os.path.join(fddir, fd))
        except OSError:
            continue
        # /proc/net is /proc/self/net: the link names reveal's own pid,
        # gone when it exits.
        target = re.sub(r"^/proc/\d+/net/", "/proc/net/", target)
        # a directory kept open (sys.cgroup's tops) is listed, not read
        if (target.startswith("/proc/") or target.startswith("/sys/")) and \
                not os.path.isdir(target):
            paths[int(fd)] = target
    trace = os.path.join(tmp, "probe.strace")
    subprocess.run(["strace", "-qq", "-e", "trace=pread64", "-e", "signal=none", "-o", trace,
                    "-p", str(p.pid)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    p.wait()
    reads = {}
    with open(trace) as f:
        for ln in f:
            m = re.match(r"pread64\((\d+),", ln)
            if m:
                reads[int(m.group(1))] = reads.get(int(m.group(1)), 0) + 1
    most = max(reads.values()) if reads else 0
    if most < 20:
        raise SystemExit("strace saw %d reads of a file in 5 s of reveal record" % most)
    return [(path, 1 if reads.get(fd, 0) * 2 >= most else SLOW_EVERY)
            for fd, path in sorted(paths.items())]


def rotate(cs, stop):
    """Moves the collectors together to the next CPU every ROTATE_S."""
    cpus = sorted(os.sched_getaffinity(0))
    k = 0
    while True:
        for c in cs:
            try:
                for tid in os.listdir("/proc/%d/task" % c.proc.pid):
                    os.sched_setaffinity(int(tid), {cpus[k % len(cpus)]})
            except OSError:
                pass
        k += 1
        if stop.wait(ROTATE_S):
            return


def side_by_side(duration, node_exporter, tmp, before=None):
    """reveal record, the floors and the node exporters at the same time, for the same time;
    with before, a second `reveal record` from that binary beside them."""
    rvl = os.path.join(tmp, "side.rvl")
    files = reveal_files(tmp)
    iv = INTERVALS_MS
    cs = [Contender("reveal", [REVEAL, "record", "-o", rvl, "--interval", "%gms" % iv["reveal"],
                               "--duration", "%ds" % duration],
                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True),
          Contender("floor", [FLOOR, str(iv["floor"]), str(duration)], stdout=subprocess.PIPE,
                    text=True),
          Contender("floor_same", [FLOOR, str(iv["floor_same"]), str(duration)] +
                    [f for f, _ in files], stdout=subprocess.PIPE, text=True),
          Contender("floor_like", [FLOOR, str(iv["floor_like"]), str(duration)] +
                    [f if n == 1 else "%s@%d" % (f, n) for f, n in files],
                    stdout=subprocess.PIPE, text=True)]
    if before:
        cs.append(Contender("reveal_before", [before, "record", "-o", os.path.join(tmp, "before.rvl"),
                                              "--interval", "%gms" % iv["reveal_before"],
                                              "--duration", "%ds" % duration],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
    stop = threading.Event()
    rotator = threading.Thread(target=rotate, args=(list(cs), stop))
    rotator.start()
    if node_exporter:
        # the 100 ms scraper drifts too (100.5 ms): a scrape costs ~10 ms
        for port, every, name in ((9199, 0.1005, "0.1s"), (9198, 1.0, "1s")):
            c = Contender("node_exporter_" + name,
                          [NODE_EXPORTER, "--web.listen-address=127.0.0.1:%d" % port],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            wait_port(port)
            c.mark("start")
            out = {}
            th = threading.Thread(target=scraper, args=(port, every, stop, out))
            th.start()
            c.scrape, c.thread = out, th
            cs.append(c)
    t0 = min(c.t0 for c in cs)
    time.sleep(max(0.0, t0 + STEADY_FROM_S - time.monotonic()))
    for c in cs:
        c.mark("steady0")
    time.sleep(max(0.0, t0 + duration - 0.3 - time.monotonic()))
    for c in cs:
        c.mark("end")
    stop.set()
    rotator.join()
    res = {}
    for c in cs:
        if c.name.startswith("node_exporter"):
            c.thread.join()
            c.proc.send_signal(signal.SIGTERM)
            c.reap()
            scraped_s = c.marks["end"][0] - c.marks["start"][0]
            scraped_cpu = c.marks["end"][1] - c.marks["start"][1]
            n, s = c.scrape["scrapes"], c.scrape["series"]
            res[c.name] = dict(c.scrape, total_cpu_s=c.total_cpu_s, wall_s=c.wall_s,
                               total_pct=100.0 * c.total_cpu_s / c.wall_s,
                               scraping_cpu_s=scraped_cpu, scraping_s=scraped_s,
                               scraping_pct=100.0 * scraped_cpu / scraped_s,
                               steady=c.steady(), peak_rss_mib=c.hwm_mib,
                               us_per_scrape=1e6 * scraped_cpu / n if n else None,
                               us_per_series_sample=1e6 * scraped_cpu / (n * s) if n and s else None)
            continue
        text = c.proc.stdout.read()
        if c.reap() != 0:
            raise SystemExit("%s failed: %s" % (c.name, text))
        r = dict(total_cpu_s=c.total_cpu_s, wall_s=c.wall_s,
                 total_pct=100.0 * c.total_cpu_s / c.wall_s, steady=c.steady(),
                 peak_rss_mib=c.hwm_mib)
        if c.name.startswith("reveal"):
            m = SUMMARY.search(text)
            if not m:
                raise SystemExit("no summary from reveal record: %r" % text)
            r.update(sweeps=int(m.group(1)), channels=int(m.group(2)), bytes=int(m.group(3)),
                     bytes_per_value=float(m.group(4)), missed=int(m.group(5)),
                     self_cpu_s=float(m.group(6)), summary=m.group(0))
        else:
            m = re.search(r"floor: sweeps (\d+) cpu_s ([\d.]+)", text)
            r.update(sweeps=int(m.group(1)), self_cpu_s=float(m.group(2)))
        r["us_per_sweep"] = 1e6 * r["total_cpu_s"] / r["sweeps"]
        r["interval_ms"] = iv[c.name]
        r["steady"]["us_per_sweep"] = (1e6 * r["steady"]["cpu_s"] /
                                       (r["steady"]["wall_s"] * 1e3 / iv[c.name]))
        res[c.name] = r
    rv = res["reveal"]
    rv["us_per_channel_sample"] = rv["us_per_sweep"] / rv["channels"]
    rv["steady"]["us_per_channel_sample"] = rv["steady"]["us_per_sweep"] / rv["channels"]
    res["same_files"] = len(files)
    res["every_sweep_files"] = sum(1 for _, n in files if n == 1)
    res["files"] = files
    # per sweep: the contenders' intervals differ by up to 0.4 %
    for who in [k for k in ("reveal", "reveal_before") if k in res]:
        for fl in ("floor", "floor_same", "floor_like"):
            for part in ("total", "steady"):
                a = res[who]["us_per_sweep"] if part == "total" else res[who]["steady"]["us_per_sweep"]
                b = res[fl]["us_per_sweep"] if part == "total" else res[fl]["steady"]["us_per_sweep"]
                res["ratio_%s_%s_%s" % (who, fl, part)] = a / max(b, 1e-9)
    return res


def sweep_bench(tmp, repeat=3):
    big = os.path.join(tmp, "bighost")
    subprocess.run(["/usr/bin/python3", BIGHOST, big], check=True)
    env = dict(os.environ, FAKE_NVML_GPUS="8")
    res = {}
    for name, root, nvml, n in (("this_host", "", "-", 2000),
                                ("bighost_128cpu_8gpu", big, NVML_FAKE, 1000)):
        runs = []
        for _ in range(repeat):
            out = subprocess.run([SWEEP, root, nvml, str(n)], check=True, env=env,
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                 text=True).stdout
            m = re.search(r"channels (\d+) valid (\d+) sweeps (\d+) cpu_us_per_sweep ([\d.]+) "
                          r"wall_us_per_sweep ([\d.]+)", out)
            runs.append((int(m.group(1)), int(m.group(2)), float(m.group(4)), float(m.group(5))))
        cpu = statistics.median(r[2] for r in runs)
        res[name] = dict(channels=runs[0][0], valid=runs[0][1], sweeps=n, repeat=repeat,
                         cpu_us_per_sweep=cpu, wall_us_per_sweep=statistics.median(r[3] for r in runs),
                         ns_per_channel=1000.0 * cpu / runs[0][0], runs=runs)
        log("sweep %s: %d channels, %.1f us per sweep" % (name, runs[0][0], cpu))
    return res


def long_bench(duration, tmp):
    res = {}
    for name in ("idle", "stress"):
        stress = None
        if name == "stress":
            stress = subprocess.Popen(["stress-ng", "--cpu", "1", "--vm", "1", "--vm-bytes",
                                       "256M", "--io", "1", "--timeout", "%ds" % (duration + 5)],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(2)
        log("long: %s recording, %d s" % (name, duration))
        p = subprocess.run([REVEAL, "record", "-o", os.path.join(tmp, name + ".rvl"),
                            "--interval", "100ms", "--duration", "%ds" % duration],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if stress:
            stress.send_signal(signal.SIGTERM)
            stress.wait()
        m = SUMMARY.search(p.stdout)
        if not m:
            raise SystemExit("no summary from reveal record: %r" % p.stdout)
        res[name] = dict(samples=int(m.group(1)), channels=int(m.group(2)),
                         bytes=int(m.group(3)), bytes_per_value=float(m.group(4)),
                         missed=int(m.group(5)), cpu_s=float(m.group(6)),
                         cpu_pct=100.0 * float(m.group(6)) / duration, summary=m.group(0))
    return res


def table(res, duration):
    out = []
    s = res.get("side")
    if s:
        rv, fl = s["reveal"], s["floor"]
        out += ["## Collector CPU at 100 ms, %d s, all contenders at the same time" % duration, "",
                "| | sweeps | CPU s (whole run) | % of one core | steady % (t=10 s..end) "
                "| µs per sweep | steady µs per sweep |",
                "|---|---:|---:|---:|---:|---:|---:|"]
        rows = [("reveal record", rv), ("floor (bench/floor.c)", fl),
                ("floor on reveal's %d files, all at every sweep" % s["same_files"],
                 s["floor_same"]),
                ("floor at reveal's cadence (%d files at every sweep, %d at one in %d)" % (
                    s["every_sweep_files"], s["same_files"] - s["every_sweep_files"], SLOW_EVERY),
                 s["floor_like"])]
        if "reveal_before" in s:
            rows.insert(1, ("reveal record, the --reveal-before binary", s["reveal_before"]))
        for name, r in rows:
            out.append("| %s | %d | %.2f | %.3f | %.3f | %.0f | %.0f |" % (
                name, r["sweeps"], r["total_cpu_s"], r["total_pct"], r["steady"]["pct"],
                r["us_per_sweep"], r["steady"]["us_per_sweep"]))
        out += ["", "Per sweep, whole run / steady state (perf's event reads have no file to "
                "read: the floors leave them out):", ""]
        for who, label in (("reveal", "reveal"), ("reveal_before", "the --reveal-before binary")):
            if who not in s:
                continue
            out.append("- %s / floor at reveal's cadence: **%.2fx** / **%.2fx**; / floor on its "
                       "files all at every sweep: %.2fx / %.2fx; / floor on the nine files: "
                       "%.2fx / %.2fx" % tuple(
                           [label] + [s["ratio_%s_%s_%s" % (who, fl, part)]
                                      for fl in ("floor_like", "floor_same", "floor")
                                      for part in ("total", "steady")]))
        out += ["", "reveal: %d channels, %.2f µs per channel-sample (%.2f steady), %d deadlines "
                "missed, %.2f bytes per value, peak RSS %.1f MiB." % (
                    rv["channels"], rv["us_per_channel_sample"],
                    rv["steady"]["us_per_channel_sample"], rv["missed"], rv["bytes_per_value"],
                    rv["peak_rss_mib"]), ""]
        nes = [(k, s[k]) for k in ("node_exporter_0.1s", "node_exporter_1s") if k in s]
        if nes:
            out += ["| prometheus-node-exporter | scrapes | series | CPU % while scraped "
                    "| steady % | µs per scrape | µs per series-sample | reveal µs per "
                    "channel-sample | ratio |",
                    "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
            for k, n in nes:
                out.append("| every %s | %d | %d | %.2f | %.2f | %.0f | %.2f | %.2f | %.0fx |" % (
                    k.split("_")[-1], n["scrapes"], n["series"], n["scraping_pct"],
                    n["steady"]["pct"], n["us_per_scrape"], n["us_per_series_sample"],
                    rv["steady"]["us_per_channel_sample"],
                    n["us_per_series_sample"] / rv["steady"]["us_per_channel_sample"]))
            out.append("")
    w = res.get("sweep")
    if w:
        out += ["## One collector sweep (bench/collect_sweep.c, back to back, median of %d)"
                % w["this_host"]["repeat"], "",
                "| host | channels | valid | µs CPU per sweep | µs wall per sweep | ns per channel |",
                "|---|---:|---:|---:|---:|---:|"]
        for k, r in w.items():
            out.append("| %s | %d | %d | %.0f | %.0f | %.0f |" % (
                k, r["channels"], r["valid"], r["cpu_us_per_sweep"], r["wall_us_per_sweep"],
                r["ns_per_channel"]))
        out.append("")
    lg = res.get("long")
    if lg:
        out += ["## Recording size, 100 ms, %d s" % lg["duration_s"], "",
                "| load | samples | channels | bytes | bytes per value | CPU % | missed |",
                "|---|---:|---:|---:|---:|---:|---:|"]
        for k in ("idle", "stress"):
            r = lg[k]
            out.append("| %s | %d | %d | %d | %.3f | %.3f | %d |" % (
                k, r["samples"], r["channels"], r["bytes"], r["bytes_per_value"],
                r["cpu_pct"], r["missed"]))
        out.append("")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--duration", type=int, default=120, help="seconds (default 120)")
    ap.add_argument("--long", action="store_true", help="also the 2 x 10 min recordings")
    ap.add_argument("--long-duration", type=int, default=600)
    ap.add_argument("--skip-node-exporter", action="store_true")
    ap.add_argument("--json", help="raw numbers to this file")
    ap.add_argument("--reveal-before", help="another reveal binary (an older build) whose "
                    "`reveal record` runs beside, for a before/after in one run")
    a = ap.parse_args()
    if a.duration < STEADY_FROM_S + 5:
        raise SystemExit("--duration must be at least %d s" % (STEADY_FROM_S + 5))
    ne = not a.skip_node_exporter
    if ne and not os.access(NODE_EXPORTER, os.X_OK):
        raise SystemExit("no %s: apt-get install -y prometheus-node-exporter, "
                         "or --skip-node-exporter" % NODE_EXPORTER)
    if a.long and not shutil.which("stress-ng"):
        raise SystemExit("no stress-ng: apt-get install -y stress-ng")
    build()
    res = {"machine": {"nproc": os.cpu_count(), "uname": " ".join(os.uname()),
                       "clk_tck": TICK}}
    with tempfile.TemporaryDirectory() as tmp:
        log("side by side for %d s ..." % a.duration)
        res["side"] = side_by_side(a.duration, ne, tmp, a.reveal_before)
        res["sweep"] = sweep_bench(tmp)
        if a.long:
            res["long"] = long_bench(a.long_duration, tmp)
            res["long"]["duration_s"] = a.long_duration
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)
    print(table(res, a.duration))


if __name__ == "__main__":
    main()
