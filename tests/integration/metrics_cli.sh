#!/bin/sh
# metrics_cli.sh - `reveal metrics` on a fixture tree and on this host.
#
# On tests/fixtures/collect/statonly (only proc/stat): the proc.stat
# channels are listed with subsystem, unit, kind and source; every other
# source is listed as unavailable with a reason naming its path under the
# root (nvml: its library); --json is one valid JSON object with the same content; --sample
# prints values (counters have a rate after the second sweep). Bad usage
# exits 2. On the live host at least the CPU channels exist.

. "$SRC/tests/integration/lib.sh.inc"
it_setup

FIX="$SRC/tests/fixtures/collect/statonly"

run metrics --root "$FIX"
expect_rc "fixture listing" 0
check "host and per-CPU channels listed" grep -Eq '^cpu\.busy_pct:cpu2 +cpu +% +counter +proc\.stat' out.txt
check "gauge kind" grep -Eq '^cpu\.procs_running +cpu +tasks +gauge' out.txt
check "channel count line" grep -Eq '^32 channels$' out.txt
if grep -q '^unavailable: ' out.txt; then
	if grep '^unavailable: ' out.txt | grep -v '^unavailable: nvml: .*libnvidia-ml' | grep -vq "$FIX"; then
		not_ok "every unavailable reason names its path under the root"
		show out.txt
	else
		ok "every unavailable reason names its path under the root"
	fi
else
	ok "no other source registered yet"
fi

run metrics --root "$FIX" --json
expect_rc "json" 0
if /usr/bin/python3 - out.txt <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
names = [c["name"] for c in d["channels"]]
assert len(names) == 32, len(names)
assert "cpu.user_pct:cpu0" in names and "cpu.context_switches" in names
for c in d["channels"]:
    assert c["subsystem"] == "cpu" and c["source"] == "proc.stat" and c["kind"] in ("gauge", "counter")
for u in d["unavailable"]:
    assert u["source"] and u["reason"]
PY
then ok "json parses and lists the channels"; else not_ok "json parses and lists the channels"; show out.txt; fi

run metrics --root "$FIX" --sample --interval 10
expect_rc "sample" 0
check "gauge value printed" grep -Eq '^cpu\.procs_running .* 3$' out.txt
check "counter over an unchanged file: rate 0" grep -Eq '^cpu\.context_switches .* 0$' out.txt

run metrics --interval 0
expect_rc "interval 0" 2
expect_err "interval 0" 'interval'
run metrics extra
expect_rc "stray argument" 2

run metrics --sample --interval 50
expect_rc "live host" 0
check "live host has the host busy share" grep -Eq '^cpu\.busy_pct +cpu' out.txt

it_finish
