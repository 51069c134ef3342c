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

it_finish
