#!/bin/sh
# record_identical.sh - a recording of the fixture host holds exactly the
# values and validity it held before the collector's sweep was made
# cheaper: `reveal record` on the 128-CPU tree of gen_bighost.py with 8
# fake H100-class GPUs, 6 sweeps, exported as CSV without the time column,
# is byte for byte tests/fixtures/record/bighost-golden.csv.gz, which the
# collector wrote before those changes. The tree moves one step between
# sweeps 3 and 4 (gen_bighost.py --sweep 1), so counters change too.
#
# A change that is meant to alter what is recorded regenerates the golden
# file (tests/fixtures/record/make-golden.sh) in the same commit, saying
# why.
#
# That recording is made with --slow-interval 0 (every source at every
# sweep, as the golden file was written). A second one with the default
# slow interval (1 s: one sweep in ten at 100 ms) must hold the same
# values except that the slow sources' channels (the sources `reveal
# record --profile` marks slow, which must be exactly the seven named
# below; net.qdisc and perf's software events are slow too but not read
# under --root) are gaps at
# every sweep of a run but its first.

. "$SRC/tests/integration/lib.sh.inc"
it_setup

FAKE="$RV_FAKE_LIBDIR/libnvidia_ml_fake.so"
GOLDEN="$SRC/tests/fixtures/record/bighost-golden.csv.gz"
[ -f "$FAKE" ] || { not_ok "fake NVML library built ($FAKE)"; it_finish; }
[ -f "$GOLDEN" ] || { not_ok "golden recording present ($GOLDEN)"; it_finish; }

if ! sh "$SRC/tests/fixtures/record/make-golden.sh" "$REVEAL" "$FAKE" now.csv >make.log 2>&1; then
	not_ok "fixture host recorded"
	show make.log
	it_finish
fi
ok "fixture host recorded"
gzip -dc "$GOLDEN" >golden.csv
head -1 now.csv >now.head
head -1 golden.csv >golden.head
check "same channels in the same order" cmp -s now.head golden.head
if cmp -s now.csv golden.csv; then
	ok "recording byte-identical to the golden one ($(wc -l <now.csv) rows, $(head -1 now.csv | tr ',' '\n' | wc -l) columns)"
else
	not_ok "recording byte-identical to the golden one"
	/usr/bin/python3 - now.csv golden.csv <<'PY' | sed 's/^/    # /'
import csv, sys
a = list(csv.reader(open(sys.argv[1])))
b = list(csv.reader(open(sys.argv[2])))
print("rows %d vs golden %d" % (len(a), len(b)))
n = 0
for r, (x, y) in enumerate(zip(a, b)):
    for c, (u, v) in enumerate(zip(x, y)):
        if u != v and n < 10:
            print("row %d column %s: %r, golden %r" % (r, b[0][c] if c < len(b[0]) else c, u, v))
            n += 1
PY
fi

# The default slow interval: gaps exactly where the slow sources are not read.
if ! sh "$SRC/tests/fixtures/record/make-golden.sh" "$REVEAL" "$FAKE" slow.csv \
	--slow-interval 1s >make-slow.log 2>&1; then
	not_ok "fixture host recorded with the default slow interval"
	show make-slow.log
	it_finish
fi
ok "fixture host recorded with the default slow interval"
/usr/bin/python3 "$SRC/tests/fixtures/collect/gen_bighost.py" host >/dev/null
FAKE_NVML_MODEL=h100 FAKE_NVML_GPUS=8 "$REVEAL" metrics --root host --nvml "$FAKE" \
	>metrics.txt 2>/dev/null
FAKE_NVML_MODEL=h100 FAKE_NVML_GPUS=8 "$REVEAL" record --root host --nvml "$FAKE" \
	--interval 100ms --duration 250ms --profile -o prof.rvl 2>prof.txt
sed -n 's/^  source \([^ ]*\) .*(slow: .*/\1/p' prof.txt | sort | tr '\n' ' ' >slow.names
check "slow sources (record --profile): $(cat slow.names)" \
	test "$(cat slow.names)" = "proc.fs proc.loadavg sys.cpufreq sys.netclass sys.numa sys.rapl sys.thermal "
if /usr/bin/python3 - slow.csv golden.csv metrics.txt slow.names >slow.out 2>&1 <<'PY'
import csv, sys
a = list(csv.reader(open(sys.argv[1])))
b = list(csv.reader(open(sys.argv[2])))
slow_src = set(open(sys.argv[4]).read().split())
source = {}
for line in open(sys.argv[3]):
    f = line.split()
    if len(f) == 5 and "." in f[0]:
        source[f[0]] = f[4]
assert a[0] == b[0], "channels differ"
slow = [c for c, name in enumerate(b[0]) if source.get(name) in slow_src]
assert len(b) == 7, "rows: %d" % (len(b) - 1)
for src in sorted(slow_src):
    n = sum(1 for c in slow if source[b[0][c]] == src)
    assert n > 0, "no column of slow source %s" % src
bad = 0
for r in range(1, 7):
    read = r in (1, 4)                 # the first sweep of each run
    for c, (u, v) in enumerate(zip(a[r], b[r])):
        want = v if (read or c not in slow) else ""
        if u != want:
            bad += 1
            if bad <= 10:
                print("row %d %s: %r, want %r" % (r, b[0][c], u, want))
# every slow column read at its sweeps holds a value somewhere
assert any(a[1][c] != "" for c in slow), "slow columns empty at the first sweep"
print("%d slow columns of %d, %d cells differ" % (len(slow), len(b[0]), bad))
sys.exit(1 if bad else 0)
PY
then
	ok "default slow interval: golden values, slow sources gaps between their reads ($(tail -1 slow.out))"
else
	not_ok "default slow interval: golden values, slow sources gaps between their reads"
	show slow.out
fi

it_finish
