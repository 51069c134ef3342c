#!/bin/sh
# bighost.sh - the collector on the fixture tree of a large GPU host
# (tests/fixtures/collect/gen_bighost.py: 128 CPUs, 2 NUMA nodes, 4 NICs,
# 4 InfiniBand ports, 8 NVMe disks, 8 pods under cgroup CPU quotas) with 8
# Hopper-class GPUs from the fake libnvidia-ml (FAKE_NVML_MODEL=h100: GPM,
# 18 NVLink links each, processes): at least 700 channels over every
# subsystem, each GPU with its 147 channels, and rates that match the
# fixture's counters when the tree moves one step on between the two
# sweeps of --sample.

. "$SRC/tests/integration/lib.sh.inc"
it_setup

FAKE="$RV_FAKE_LIBDIR/libnvidia_ml_fake.so"
if [ ! -f "$FAKE" ]; then
	not_ok "fake NVML library built ($FAKE)"
	it_finish
fi
/usr/bin/python3 "$SRC/tests/fixtures/collect/gen_bighost.py" host || not_ok "fixture generated"

FAKE_NVML_MODEL=h100 FAKE_NVML_GPUS=8 run metrics --root host --nvml "$FAKE" --json
expect_rc "metrics on the big host" 0
if /usr/bin/python3 - out.txt <<'PY'
import json, sys, collections
d = json.load(open(sys.argv[1]))
ch = d["channels"]
names = {c["name"] for c in ch}
subs = collections.Counter(c["subsystem"] for c in ch)
srcs = collections.Counter(c["source"] for c in ch)
print("    # %d channels; by subsystem %s" % (len(ch), dict(subs)))
print("    # by source %s" % dict(srcs))
assert len(ch) >= 700, len(ch)
for s in ("cpu", "mem", "net", "storage", "gpu"):
    assert subs[s] > 0, s
for g in range(8):
    assert "gpu.util_pct:gpu%d" % g in names, g
assert "cpu.busy_pct:cpu127" in names
assert "storage.read_bytes:nvme7n1" in names and "storage.read_bytes:nvme7n1p1" not in names
assert "net.rx_bytes:eth3" in names
assert "mem.node_numa_hit:node1" in names or any(n.startswith("mem.node_") and n.endswith(":node1") for n in names)
assert any(n.startswith("net.ib_") and "mlx5_3" in n for n in names)
gpu = collections.Counter(n.split(":")[1].split("-")[0] for n in names if n.startswith("gpu."))
print("    # GPU channels per GPU %s" % dict(gpu))
assert sorted(gpu) == ["gpu%d" % g for g in range(8)] and set(gpu.values()) == {147}, gpu
for g in range(8):
    for t in ("gpu.sm_active_pct", "gpu.tensor_active_pct", "gpu.dram_active_pct",
              "gpu.nvlink_tx_bytes", "gpu.processes", "gpu.mem_temp_c"):
        assert "%s:gpu%d" % (t, g) in names, (t, g)
    assert "gpu.nvlink_up:gpu%d-link17" % g in names and "gpu.nvlink_up:gpu%d-link18" % g not in names
# perf and net.qdisc read the running kernel; Hopper has no per-link data
# CRC counter (one note per GPU)
nvl = [u for u in d["unavailable"] if u["source"] == "nvml.nvlink"]
assert len(nvl) == 8 and all("gpu.nvlink_crc_data_errors not supported on 18 of 18 links" in u["reason"] for u in nvl), nvl
for u in d["unavailable"]:
    assert u["source"] in ("perf", "net.qdisc", "nvml.nvlink"), u
PY
then ok "700+ channels over every subsystem, 8 GPUs of 147 channels"; else not_ok "700+ channels over every subsystem, 8 GPUs of 147 channels"; show out.txt; fi

# Rates: the tree moves one step on (5000 more context switches, 10^6
# more bytes on eth0, 8 x 10 more throttled periods and 8 x 5 ms more
# throttled time) while --sample waits 2 s between its sweeps.
(sleep 0.7; /usr/bin/python3 "$SRC/tests/fixtures/collect/gen_bighost.py" host --sweep 1) &
FAKE_NVML_MODEL=h100 FAKE_NVML_GPUS=8 run metrics --root host --nvml "$FAKE" --json --sample --interval 2000
wait
expect_rc "two sweeps on the big host" 0
if /usr/bin/python3 - out.txt <<'PY'
import json, sys
d = {c["name"]: c for c in json.load(open(sys.argv[1]))["channels"]}
cs = d["cpu.context_switches"]["value"]
rx = d["net.rx_bytes:eth0"]["value"]
assert cs is not None and abs(cs - 2500.0) < 250.0, cs
assert rx is not None and abs(rx - 500000.0) < 50000.0, rx
assert d["cpu.procs_running"]["value"] == 9
thr = d["cpu.cgroup_throttled_periods"]["value"]
thr_ms = d["cpu.cgroup_throttled_time_ms"]["value"]
assert thr is not None and abs(thr - 40.0) < 4.0, thr
assert thr_ms is not None and abs(thr_ms - 20.0) < 2.0, thr_ms
assert d["cpu.cgroups_with_quota"]["value"] == 16
PY
then ok "rates over the measured interval"; else not_ok "rates over the measured interval"; show out.txt; fi

it_finish
