"""faults.py - the fault corpus of eval/faultinject.py: what each fault is,
where its resource lives, which knowledge-base rule names its mechanism,
whether the rules may be written against it, and how it is injected.

Every fault is a real tool's real effect on this host (stress-ng
stressors, dd, a shell loop, nftables, tc, ip, sysctl-style writes to
/proc and /sys, cgroups, swapon), never our own code faking signals.
The expected subsystem and the rules are fixed from what the fault does
in the kernel, before any run.

The split. A rule written against recordings is judged on kinds it has
never seen. The kinds are split once, by this fixed rule (written down
before any run of the corpus was looked at):

  1. The nine kinds of the first corpus (SEEN) have been looked at while
     the rules were written: they are development kinds.
  2. Within each expected subsystem, the other kinds are taken in the
     order of the SHA-256 of their name (hex digits, ascending); each one
     is held out while the subsystem's held-out kinds are fewer than half
     of its kinds (rounded up), else it is a development kind.

`split()` computes it; `make eval` reports the two sets apart, and the
acceptance counts the held-out kinds. The rules may be written against the
development kinds only; calibration (`measured:` in rules.yaml) counts the
held-out runs only (src/pipeline/kb_live_test.c).

Python 3 standard library only.
"""

import glob
import hashlib
import os
import re
import shutil
import signal
import subprocess
import time

NCPU = os.cpu_count() or 1
HALF = max(1, NCPU // 2)

# The kinds of the first corpus: the rules were written looking at them.
SEEN = ("cpu-contention", "cache-thrash", "memory-bandwidth", "memory-leak",
        "disk-write-storm", "metadata-storm", "packet-loss", "bandwidth-throttle",
        "cgroup-throttle")


class Fault:
    """One kind: expected subsystem, what an operator would call it, how it
    is injected (kind and arguments), the rule ids that name its
    mechanism (any of them is right)."""

    def __init__(self, expect, what, how, causes):
        self.expect, self.what, self.causes = expect, what, tuple(causes)
        self.kind, self.args = how[0], list(how[1:])


def _f(expect, what, how, *causes):
    return Fault(expect, what, how, causes)


# The expected subsystem is where the fault's resource lives: the CPU's
# caches and its scheduler belong to the cpu, memory bandwidth, page
# faults, limits and pools to mem, a block device and the file system's
# metadata to storage, the traffic path to net.
FAULTS = {
    # ---- the first corpus (SEEN) ----
    "cpu-contention": _f("cpu", "noisy neighbour on every core",
                         ["stress", "--cpu", str(NCPU)], "cpu-contention"),
    "cache-thrash": _f("cpu", "cache thrashing", ["stress", "--cache", str(HALF)],
                       "cache-thrash"),
    "memory-bandwidth": _f("mem", "memory bandwidth hog (STREAM)",
                           ["stress", "--stream", str(HALF)], "memory-bandwidth-saturation"),
    "memory-leak": _f("mem", "memory leak, 256 MiB more every 4 s", ["leak", "256M", "4"],
                      "memory-leak-swapping"),
    "disk-write-storm": _f("storage", "disk write storm",
                           ["stress", "--hdd", "2", "--hdd-bytes", "1G"],
                           "disk-saturation-writeback"),
    "metadata-storm": _f("storage", "file-system metadata storm",
                         ["stress", "--dentry", str(HALF), "--dir", "1"], "metadata-storm"),
    "packet-loss": _f("net", "10 % packet loss on the job's path (nftables, on arrival)",
                      ["nft-drop", "10"], "packet-loss"),
    "bandwidth-throttle": _f("net", "bandwidth throttled to 16 Mbit/s (tbf)",
                             ["tbf", "16mbit"], "bandwidth-throttle"),
    "cgroup-throttle": _f("cpu", "the job's cgroup throttled to half the CPU time it uses "
                          "(CFS quota)", ["cgroup", "0.5"], "cgroup-cpu-throttling"),
    # ---- cpu: the scheduler and process creation ----
    "fork-storm": _f("cpu", "processes forked and reaped as fast as they go",
                     ["stress", "--fork", "1"], "process-churn"),
    "exec-storm": _f("cpu", "a shell loop running /bin/true", ["shloop", "/bin/true"],
                     "process-churn"),
    "thread-churn": _f("cpu", "threads created and joined as fast as they go",
                       ["stress", "--pthread", "1"], "process-churn"),
    "context-switch-storm": _f("cpu", "two tasks handing the CPU to each other",
                               ["stress", "--switch", "1"], "context-switch-storm"),
    "futex-storm": _f("cpu", "threads contending on futexes", ["stress", "--futex", "1"],
                      "context-switch-storm"),
    "pipe-storm": _f("cpu", "a writer and a reader ping-ponging through a pipe",
                     ["stress", "--pipe", "1"], "context-switch-storm"),
    "compute-bound": _f("cpu", "a new compute-bound process on one core (matrix products)",
                        ["stress", "--matrix", "1"], "cpu-compute-bound"),
    # ---- mem ----
    "hugepage-pool": _f("mem", "a huge page pool of a quarter of the memory reserved and unused",
                        ["hugepages", "0.25"], "hugepage-misconfiguration"),
    "memrate": _f("mem", "memory read/write rate hog (stress-ng memrate)",
                  ["stress", "--memrate", "1"], "memory-bandwidth-saturation"),
    "mmap-churn": _f("mem", "memory mapped, touched and unmapped in a loop",
                     ["stress", "--mmap", "1"], "page-fault-storm"),
    "malloc-churn": _f("mem", "heap allocations and frees in a loop",
                       ["stress", "--malloc", "1"], "page-fault-storm"),
    "vm-churn": _f("mem", "1 GiB mapped, written, checked and unmapped in a loop",
                   ["stress", "--vm", "1", "--vm-bytes", "1G"],
                   "page-fault-storm", "memory-bandwidth-saturation"),
    "memcg-oom": _f("mem", "a process in a memory cgroup whose limit is below its use "
                    "(killed and restarted)", ["memcg", "128M", "256M"], "memory-cgroup-oom"),
    "swap-on": _f("mem", "a 1 GiB swap file turned on", ["swapon", "1024"],
                  "swap-config-change"),
    # ---- storage ----
    "direct-write": _f("storage", "dd writing with O_DIRECT", ["dd", "write-direct"],
                       "disk-saturation-io"),
    "sync-write": _f("storage", "dd writing 64 KiB blocks with O_DSYNC", ["dd", "write-dsync"],
                     "disk-saturation-io"),
    "direct-read": _f("storage", "dd reading a 1 GiB file with O_DIRECT", ["dd", "read-direct"],
                      "disk-saturation-io"),
    "link-storm": _f("storage", "hard links created and removed", ["stress", "--link", "1"],
                     "metadata-storm"),
    "symlink-storm": _f("storage", "symbolic links created and removed",
                        ["stress", "--symlink", "1"], "metadata-storm"),
    "rename-storm": _f("storage", "files renamed in a loop", ["stress", "--rename", "1"],
                       "metadata-storm"),
    # ---- net ----
    "tcp-flood": _f("net", "a TCP stream flooding the job's loopback", ["stress", "--sock", "1"],
                    "local-traffic-flood"),
    "udp-flood": _f("net", "a UDP flood on the job's loopback", ["stress", "--udp", "1"],
                    "local-traffic-flood"),
    "mtu-lowered": _f("net", "the job's interface MTU lowered to 576", ["mtu", "576"],
                      "mtu-change"),
    "htb-throttle": _f("net", "an htb class limiting the job's interface to 24 Mbit/s",
                       ["htb", "24mbit"], "bandwidth-throttle"),
    "nft-policer": _f("net", "an nftables policer dropping TCP over 2 MB/s on arrival",
                      ["nft-limit", "2"], "packet-loss", "bandwidth-throttle"),
}

CAUSES = {n: f.causes for n, f in FAULTS.items()}


def name_hash(name):
    return hashlib.sha256(name.encode("utf-8")).hexdigest()


def split(faults=None):
    """name -> "dev" or "held-out", by the rule of the module text."""
    faults = FAULTS if faults is None else faults
    out = {}
    for sub in sorted({f.expect for f in faults.values()}):
        names = [n for n, f in faults.items() if f.expect == sub]
        quota = (len(names) + 1) // 2
        held = 0
        for n in names:
            if n in SEEN:
                out[n] = "dev"
        for n in sorted((n for n in names if n not in SEEN), key=name_hash):
            if held < quota:
                out[n] = "held-out"
                held += 1
            else:
                out[n] = "dev"
    return out


SPLIT = split()
HELD_OUT = tuple(n for n in FAULTS if SPLIT[n] == "held-out")
DEV = tuple(n for n in FAULTS if SPLIT[n] == "dev")


# ------------------------------------------------------------------ helpers

def run(cmd, check=True, **kw):
    return subprocess.run(cmd, check=check, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, **kw)


def read_text(path):
    with open(path) as f:
        return f.read()


def write_text(path, text):
    with open(path, "w") as f:
        f.write(text)


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


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


def meminfo_kib(key):
    for line in read_text("/proc/meminfo").splitlines():
        k, _, v = line.partition(":")
        if k == key:
            return int(v.split()[0])
    return None


# STREAM is a memory-bandwidth test only when its arrays are several times
# the last-level cache (stress-ng sizes them from the L3 it finds: 4 times
# it). A VM that hides its cache topology leaves stress-ng at a built-in
# 2 MiB, about 26 MiB of arrays that a server's L3 mostly holds: a CPU hog,
# not the fault named. Then a 32 MiB L3 is assumed, what one core complex
# of the EPYC hosts of these runs has (about 386 MiB of arrays).
STREAM_LLC_DEFAULT = "32M"


def stream_llc():
    """(stress-ng size argument, what the results say) for the host's
    last-level cache, from sysfs; STREAM_LLC_DEFAULT where none is shown."""
    best_level, best = 0, None
    for d in glob.glob("/sys/devices/system/cpu/cpu0/cache/index*"):
        try:
            level = int(read_text(os.path.join(d, "level")))
            size = read_text(os.path.join(d, "size")).strip()
        except (OSError, ValueError):
            continue
        # an L2 alone would size STREAM as small as no size at all
        if level >= 3 and level > best_level and re.fullmatch(r"[0-9]+[KMG]", size):
            best_level, best = level, size
    if best:
        return best, f"the host's L{best_level} cache of {best}"
    return (STREAM_LLC_DEFAULT, f"an assumed {STREAM_LLC_DEFAULT} L3 "
            "(the host shows no cache sizes)")


# ------------------------------------------------------- the memory cgroup

class MemCgroup:
    """A memory cgroup of its own for the memcg-oom fault: cgroup v2 where
    the memory controller is there, else cgroup v1's memory hierarchy.
    Processes wrapped by wrap() begin inside it; remove() kills what is
    left and deletes it."""

    def __init__(self, path, version):
        self.path, self.version = path, version

    @classmethod
    def create(cls, name):
        """(a MemCgroup, None) or (None, why none works here)."""
        why = []
        with open("/proc/self/mounts") as f:
            mounts = [line.split() for line in f]
        for m in mounts:
            if len(m) < 4 or m[2] not in ("cgroup", "cgroup2"):
                continue
            mnt = m[1].replace("\\040", " ")
            if m[2] == "cgroup2":
                try:
                    if "memory" not in read_text(os.path.join(mnt, "cgroup.controllers")).split():
                        continue
                    sub = os.path.join(mnt, "cgroup.subtree_control")
                    if "memory" not in read_text(sub).split():
                        write_text(sub, "+memory")
                except OSError as e:
                    why.append(f"cgroup v2 at {mnt}: {e.strerror}")
                    continue
                version = "v2"
            elif "memory" in m[3].split(","):
                version = "v1"
            else:
                continue
            cg = cls(os.path.join(mnt, name), version)
            try:
                os.makedirs(cg.path, exist_ok=True)
                cg.set_limit(None)
                return cg, None
            except OSError as e:
                why.append(f"{cg.path}: {e.strerror}")
                cg.remove()
        return None, "no usable memory cgroup: " + ("; ".join(why) or "no memory controller")

    def set_limit(self, limit):
        """Bytes, or None: no limit."""
        if self.version == "v2":
            write_text(os.path.join(self.path, "memory.max"), str(limit or "max"))
        else:
            write_text(os.path.join(self.path, "memory.limit_in_bytes"), str(limit or -1))

    def oom_kills(self):
        try:
            if self.version == "v2":
                text = read_text(os.path.join(self.path, "memory.events"))
            else:
                text = read_text(os.path.join(self.path, "memory.oom_control"))
        except OSError:
            return None
        for line in text.splitlines():
            k, _, v = line.partition(" ")
            if k == "oom_kill":
                return int(v)
        return None

    def wrap(self, argv):
        procs = os.path.join(self.path, "cgroup.procs")
        return ["sh", "-c", 'echo $$ > "$0" && exec "$@"', procs] + argv

    def remove(self):
        if not os.path.isdir(self.path):
            return
        t_end = time.time() + 5.0
        while True:
            try:
                for pid in read_text(os.path.join(self.path, "cgroup.procs")).split():
                    try:
                        os.kill(int(pid), signal.SIGKILL)
                    except (ProcessLookupError, ValueError):
                        pass
                os.rmdir(self.path)
                return
            except FileNotFoundError:
                return
            except OSError as e:
                if time.time() > t_end:
                    log(f"note: could not remove {self.path}: {e.strerror}")
                    return
                time.sleep(0.1)


def size_bytes(text):
    m = re.fullmatch(r"([0-9]+)([KMG]?)", text)
    return int(m.group(1)) << {"": 0, "K": 10, "M": 20, "G": 30}[m.group(2)]


# ------------------------------------------------------------------ injectors

class Injector:
    """Starts and stops one fault; check() says why it cannot run here,
    prepare() makes what it needs before the agent starts learning (files,
    a swap area), cleanup() undoes what is left at the end of the run.

    ns: the namespace (eval/faultinject.py Namespace); tmp: a folder on the
    host's disk for the stressors' files; cg: the job's cpu cgroup (the
    cgroup-throttle fault), cg_why why there is none."""

    # how many bytes dd writes per pass, and the size of the file it reads
    DD_BYTES = 256 << 20
    READ_FILE_BYTES = 1 << 30

    def __init__(self, ns, name, fault, tmp, logdir, cgroup=None, cgroup_why=None):
        self.ns, self.name, self.tmp, self.logdir = ns, name, tmp, logdir
        self.kind, self.args = fault.kind, fault.args
        self.cg, self.cg_why = cgroup, cgroup_why
        self.procs = []
        self.leak_next = None
        self.note = None         # what the fault did, for the results
        self.cg_stat = None
        self.state = None        # what end() must restore
        self.memcg = None

    # ---- before the run

    def check(self):
        k = self.kind
        if k == "cgroup":
            return None if self.cg else (self.cg_why or "no cgroup for the job")
        tool = {"stress": "stress-ng", "leak": "stress-ng", "nft-drop": "nft",
                "nft-limit": "nft", "tbf": "tc", "htb": "tc", "memcg": "stress-ng",
                "dd": "dd", "shloop": "sh", "mtu": "ip", "swapon": "swapon",
                "hugepages": None}[k]
        if tool and not shutil.which(tool):
            return f"{tool} is not installed (scripts/install-deps.sh)"
        if k in ("nft-drop", "nft-limit"):
            r = run(self.ns.cmd(["nft", "add", "table", "inet", "rv_probe"]), check=False)
            if r.returncode:
                return "nft refused a table in the namespace: " + r.stderr.strip()
            run(self.ns.cmd(["nft", "delete", "table", "inet", "rv_probe"]), check=False)
        if k in ("tbf", "htb"):
            r = run(self.ns.cmd(["tc", "qdisc", "add", "dev", "lo", "root", "tbf", "rate",
                                 "1gbit", "burst", "1mb", "latency", "50ms"]), check=False)
            if r.returncode:
                return "tc refused a qdisc on lo: " + r.stderr.strip()
            run(self.ns.cmd(["tc", "qdisc", "del", "dev", "lo", "root"]), check=False)
        if k == "hugepages":
            if not os.access("/proc/sys/vm/nr_hugepages", os.W_OK):
                return "/proc/sys/vm/nr_hugepages is not writable"
            if not meminfo_kib("Hugepagesize"):
                return "the kernel has no huge pages (no Hugepagesize in /proc/meminfo)"
        if k == "swapon":
            if not shutil.which("mkswap") or not shutil.which("swapoff"):
                return "mkswap or swapoff is not installed"
            if read_text("/proc/swaps").count("\n") > 1:
                return "swap is on already: turning more on is not the fault named"
        if k == "memcg":
            self.memcg, why = MemCgroup.create(f"reveal-eval-mem-{os.getpid()}")
            return why
        return None

    def prepare(self):
        """Before learning: the file direct-read reads, the swap area."""
        if self.kind == "dd" and self.args[0] == "read-direct":
            path = os.path.join(self.tmp, "read-direct.dat")
            run(["dd", "if=/dev/zero", f"of={path}", "bs=1M",
                 f"count={self.READ_FILE_BYTES >> 20}", "conv=fsync", "status=none"])
        elif self.kind == "swapon":
            path = os.path.join(self.tmp, "swapfile")
            run(["dd", "if=/dev/zero", f"of={path}", "bs=1M", f"count={self.args[0]}",
                 "conv=fsync", "status=none"])
            os.chmod(path, 0o600)
            run(["mkswap", path])
            self.state = path

    # ---- the fault

    def stress(self, args, wrap=None):
        if "--stream" in args:
            size, what = stream_llc()
            args = args + ["--stream-l3-size", size]
            self.note = "STREAM arrays sized for " + what
            log(f"  {self.name}: {self.note}")
        argv = self.ns.cmd(["stress-ng"] + args + ["--temp-path", self.tmp,
                                                   "--timeout", "0", "--quiet"])
        path = os.path.join(self.logdir, f"stress-{self.name}.log")
        return start(wrap(argv) if wrap else argv, path)

    def shell(self, script):
        path = os.path.join(self.logdir, f"fault-{self.name}.log")
        return start(self.ns.cmd(["sh", "-c", script]), path)

    def begin(self):
        self.note = None
        getattr(self, "begin_" + self.kind.replace("-", "_"))()

    def begin_stress(self):
        self.procs.append(self.stress(self.args))

    def begin_leak(self):
        self.leak_next = time.time()
        self.tick()

    def begin_shloop(self):
        self.procs.append(self.shell(f"while :; do {self.args[0]}; done"))

    def begin_dd(self):
        what = self.args[0]
        if what == "read-direct":
            src = os.path.join(self.tmp, "read-direct.dat")
            cmd = f"dd if={src} of=/dev/null bs=1M iflag=direct status=none"
        else:
            dst = os.path.join(self.tmp, f"{what}.dat")
            bs, flag = ("1M", "oflag=direct") if what == "write-direct" else ("64k", "oflag=dsync")
            count = self.DD_BYTES // size_bytes(bs.upper())
            cmd = f"dd if=/dev/zero of={dst} bs={bs} count={count} {flag} status=none"
        self.procs.append(self.shell(f"while :; do {cmd}; done"))

    def begin_nft_drop(self):
        # dropped as they arrive, as a lossy link loses them: the sender
        # sent them and learns of the loss from missing ACKs, so it
        # retransmits and times out. Dropped on the output hook instead,
        # each send fails locally (EPERM) and TCP reports no loss at all.
        self.nft(f"meta l4proto tcp numgen random mod 100 < {self.args[0]} drop")

    def begin_nft_limit(self):
        # a policer: what arrives above the rate is dropped
        self.nft(f"meta l4proto tcp limit rate over {self.args[0]} mbytes/second drop")

    def nft(self, rule):
        rules = ("table inet rv_eval {\n chain lossy {\n"
                 "  type filter hook input priority 0; policy accept;\n"
                 f"  {rule}\n }}\n}}\n")
        run(self.ns.cmd(["nft", "-f", "-"]), input=rules)

    def begin_tbf(self):
        run(self.ns.cmd(["tc", "qdisc", "add", "dev", "lo", "root", "tbf", "rate",
                         self.args[0], "burst", "32kb", "latency", "100ms"]))

    def begin_htb(self):
        run(self.ns.cmd(["tc", "qdisc", "add", "dev", "lo", "root", "handle", "1:", "htb",
                         "default", "10"]))
        run(self.ns.cmd(["tc", "class", "add", "dev", "lo", "parent", "1:", "classid", "1:10",
                         "htb", "rate", self.args[0], "ceil", self.args[0]]))

    def begin_mtu(self):
        link = run(self.ns.cmd(["ip", "-o", "link", "show", "lo"])).stdout
        m = re.search(r" mtu ([0-9]+)", link)
        self.state = m.group(1) if m else "1500"
        run(self.ns.cmd(["ip", "link", "set", "lo", "mtu", self.args[0]]))
        self.note = f"lo's MTU {self.state} -> {self.args[0]}"

    def begin_hugepages(self):
        page_kib = meminfo_kib("Hugepagesize")
        want_kib = min(meminfo_kib("MemTotal") * float(self.args[0]),
                       meminfo_kib("MemAvailable") / 3)
        self.state = read_text("/proc/sys/vm/nr_hugepages").strip()
        write_text("/proc/sys/vm/nr_hugepages", str(int(want_kib // page_kib)))
        got = int(read_text("/proc/sys/vm/nr_hugepages"))
        self.note = (f"nr_hugepages {self.state} -> {got} ({got * page_kib >> 10} MiB of "
                     f"{page_kib >> 10} MiB pages)")
        log(f"  {self.name}: {self.note}")

    def begin_swapon(self):
        run(["swapon", self.state])
        self.note = f"swapon {self.state} ({self.args[0]} MiB)"

    def begin_memcg(self):
        limit, use = self.args
        self.memcg.set_limit(size_bytes(limit))
        self.cg_stat = self.memcg.oom_kills()
        self.procs.append(self.stress(["--vm", "1", "--vm-bytes", use, "--vm-keep"],
                                      wrap=self.memcg.wrap))
        self.note = f"memory limit {limit}, the process uses {use}"

    def begin_cgroup(self):
        # a share of what the job uses, so that the quota bites on any host
        # (a fixed 20 % of a CPU is more than the job takes on this one)
        period, (qmin, qmax) = self.cg.PERIOD_US, self.cg.QUOTA_US
        use = self.cg.job_cpu_share()
        quota = int(min(max(use * float(self.args[0]) * period, qmin), qmax))
        self.cg_stat = self.cg.throttled()
        self.cg.set_quota(quota)
        self.note = (f"quota {quota / 1000:.1f} ms per {period // 1000} ms "
                     f"({100 * quota / period:.1f} % of one CPU; the job used "
                     f"{100 * use:.1f} %)")
        log(f"  cgroup-throttle: {self.note}")

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
        k = self.kind
        if k in ("nft-drop", "nft-limit"):
            r = run(self.ns.cmd(["nft", "delete", "table", "inet", "rv_eval"]), check=False)
            left = run(self.ns.cmd(["nft", "list", "tables"]), check=False).stdout
            if r.returncode or "rv_eval" in left:
                # the loss would go on unseen by the results: stop the run
                raise SystemExit("faultinject: the nftables rule could not be removed: "
                                 + (r.stderr.strip() or "table rv_eval still listed"))
        elif k in ("tbf", "htb"):
            run(self.ns.cmd(["tc", "qdisc", "del", "dev", "lo", "root"]), check=False)
        elif k == "mtu" and self.state:
            run(self.ns.cmd(["ip", "link", "set", "lo", "mtu", self.state]), check=False)
        elif k == "hugepages" and self.state is not None:
            write_text("/proc/sys/vm/nr_hugepages", self.state)
            left = read_text("/proc/sys/vm/nr_hugepages").strip()
            if left != self.state:
                raise SystemExit(f"faultinject: nr_hugepages is {left}, not {self.state} again")
        elif k == "swapon" and self.state:
            run(["swapoff", self.state], check=False)
        elif k == "memcg":
            self.memcg.set_limit(None)
            kills = self.memcg.oom_kills()
            if kills is not None and self.cg_stat is not None:
                self.note = f"{self.note}; {kills - self.cg_stat} OOM kills in the cgroup"
                log(f"  {self.name}: {kills - self.cg_stat} OOM kills")
        elif k == "cgroup":
            try:
                periods, thr = self.cg.throttled()
                self.cg.set_quota(None)
            except OSError as e:
                log(f"note: cgroup-throttle: restoring the quota of {self.cg.path}: {e}")
                return
            p0, t0 = self.cg_stat or (0, 0)
            self.note = f"{self.note or ''}; throttled in {thr - t0} of {periods - p0} periods"
            log(f"  cgroup-throttle: throttled in {thr - t0} of {periods - p0} periods")

    def cleanup(self):
        """At the end of the run, also after an error: nothing left behind."""
        if self.kind == "hugepages" and self.state is not None:
            if read_text("/proc/sys/vm/nr_hugepages").strip() != self.state:
                write_text("/proc/sys/vm/nr_hugepages", self.state)
        if self.kind == "swapon" and self.state:
            if self.state in read_text("/proc/swaps"):
                run(["swapoff", self.state], check=False)
        if self.memcg:
            self.memcg.remove()
