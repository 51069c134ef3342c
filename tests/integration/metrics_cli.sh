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

# --gpu-processes: the fake GPUs' compute processes (this shell on GPU 0,
# pid 1 on GPU 1) with the use over the interval; NVML's first samples are
# ticks 0 (list at start) and 1 (list after the interval): SM 87 + 1.
FAKE="$RV_FAKE_LIBDIR/libnvidia_ml_fake.so"
FAKE_NVML_MODEL=h100 FAKE_NVML_PROCS="0:$$:40960:87,1:1:2048:5" run metrics --gpu-processes --nvml "$FAKE" --interval 20
expect_rc "gpu processes" 0
check "this shell on gpu0 with 40 GiB and 88 % SM" grep -Eq "^gpu0 +$$ +[a-z]+ +40960 +88\.0 +44\.0$" out.txt
check "pid 1 on gpu1" grep -Eq '^gpu1 +1 +[^ ]+ +2048 +6\.0 +3\.0$' out.txt
check "count" grep -Eq '^2 processes on 2 GPUs$' out.txt
# What a GPU or driver cannot give is listed with the reason, the rest
# stays: an A100 (no GPM, 12 NVLink links), an H100 on a driver before R525.
FAKE_NVML_MODEL=a100 run metrics --nvml "$FAKE"
expect_rc "a100" 0
check "a100: GPM not supported, named" grep -Fqx 'unavailable: nvml.gpm: gpu0 (NVIDIA A100-SXM4-80GB (fake 0)): GPM not supported (needs Hopper or later)' out.txt
check "a100: 12 NVLink links on gpu1" test "$(grep -c '^gpu\.nvlink_up:gpu1-link' out.txt)" -eq 12
check "a100: no GPM channel" sh -c '! grep -q "^gpu\.sm_active_pct" out.txt'
FAKE_NVML_MODEL=h100 run metrics --nvml "$RV_FAKE_LIBDIR/libnvidia_ml_old.so"
expect_rc "old driver" 0
check "old driver: GPM calls missing, named" grep -Fqx 'unavailable: nvml.gpm: nvmlGpmQueryDeviceSupport missing (driver older than R520)' out.txt
check "old driver: processes through the _v2 call" grep -Eq '^gpu\.processes:gpu0 ' out.txt
check "old driver: throttle reasons through the deprecated call" grep -Eq '^gpu\.throttle_reasons:gpu0 ' out.txt

run metrics --gpu-processes --nvml "$PWD/no-such-libnvidia-ml.so"
expect_rc "gpu processes without a library" 1
expect_err "the library named" 'no-such-libnvidia-ml.so'

run metrics --sample --interval 50
expect_rc "live host" 0
check "live host has the host busy share" grep -Eq '^cpu\.busy_pct +cpu' out.txt

it_finish
