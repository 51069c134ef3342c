#!/bin/sh
# The NVML check, run ON a GPU machine from gpu-pack/ (scripts/gpu-pack.sh;
# DEVELOPERS.md). Writes into $OUT (or ./gpu-out):
#   summary.txt   nvidia-smi, channels per source and part at rest, the
#                 unavailable parts with their reasons, GPM / NVLink /
#                 process channels idle against under load, the training
#                 process as the per-process GPU lister saw it
#   cost.txt      nvml_bench: the source's sampling cost per GPU and part,
#                 idle and under load (300 sweeps at 100 ms each)
#   metrics.json  reveal metrics --json --sample while the training loop runs
#   gpu.csv       reveal export of a 45 s recording at 100 ms (idle 10 s,
#                 then under load), GPU columns and the timestamp only
# About 100 s. Needs python3 with torch for the load.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$here/gpu-out}
mkdir -p "$out"
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
R="$here/reveal"
S="$out/summary.txt"
{
    echo "== nvidia-smi"; nvidia-smi -q 2>&1 | head -40
    echo "== nvidia-smi nvlink -s"; nvidia-smi nvlink -s 2>&1 | head -40
    echo "== reveal --version"; "$R" --version
    echo "== metrics (idle) and the GPU facts"
    "$R" metrics 2>&1 | grep -E '^(gpu\.|unavailable|[0-9]+ channels|  gpu\.)'
} >"$S" 2>&1
echo "== cost (idle)" >"$out/cost.txt"
[ -x "$here/nvml_bench" ] && "$here/nvml_bench" libnvidia-ml.so.1 300 100 >>"$out/cost.txt" 2>&1

"$R" record -o "$out/run.rvl" --interval 100ms --duration 45s 2>>"$S" &
rec=$!
sleep 10
python3 - <<'PY' >>"$S" 2>&1 &
import os, time, torch
print("== load: pid %d" % os.getpid(), flush=True)
dev = "cuda"
m = torch.nn.Sequential(torch.nn.Linear(8192, 8192), torch.nn.ReLU(), torch.nn.Linear(8192, 8192)).to(dev).half()
opt = torch.optim.SGD(m.parameters(), lr=1e-3)
x = torch.randn(4096, 8192, device=dev).half()
t0, steps = time.time(), 0
while time.time() - t0 < 30:
    loss = m(x).float().square().mean()
    opt.zero_grad(); loss.backward(); opt.step(); steps += 1
torch.cuda.synchronize()
print("== load: %d training steps in 30 s" % steps)
PY
load=$!
sleep 8
"$R" metrics --json --sample --interval 1000 >"$out/metrics.json" 2>>"$S"
echo "== GPU processes under load (pid $load)" >>"$S"
"$R" metrics --gpu-processes >>"$S" 2>&1
echo "== cost (under load)" >>"$out/cost.txt"
[ -x "$here/nvml_bench" ] && "$here/nvml_bench" libnvidia-ml.so.1 100 100 >>"$out/cost.txt" 2>&1
wait $load
wait $rec
"$R" export "$out/run.rvl" --csv -o "$out/all.csv" 2>>"$S"
python3 - "$out/all.csv" "$out/gpu.csv" "$out/metrics.json" >>"$S" 2>&1 <<'PY'
import csv, json, sys, collections
rows = list(csv.reader(open(sys.argv[1])))
keep = [0] + [i for i, n in enumerate(rows[0]) if n.startswith("gpu.")]
with open(sys.argv[2], "w", newline="") as f:
    w = csv.writer(f)
    for r in rows:
        w.writerow([r[i] for i in keep])
d = json.load(open(sys.argv[3]))
print("== channels per source:", dict(collections.Counter(c["source"] for c in d["channels"])))
for c in d["channels"]:
    if c["source"] == "nvml" and "-link" not in c["name"]:
        print("  %-36s %s %s" % (c["name"], c.get("value"), c["unit"]))
links = [c for c in d["channels"] if "-link" in c["name"]]
print("== NVLink channels: %d, links up: %d" % (len(links), sum(1 for c in links if c["name"].startswith("gpu.nvlink_up:") and c.get("value") == 1)))
print("== unavailable:", [(u["source"], u["reason"]) for u in d["unavailable"]])
# idle (first 8 s) against load (20..40 s) for the GPM and process channels
t0 = float(rows[1][0])
def mean(col, a, b):
    v = [float(r[col]) for r in rows[1:] if r[col] not in ("", "nan") and a <= float(r[0]) - t0 < b]
    return sum(v) / len(v) if v else None
print("== idle -> load (mean over 0-8 s and 20-40 s)")
for i, n in enumerate(rows[0]):
    if any(n.startswith(p) for p in ("gpu.sm_", "gpu.tensor", "gpu.dram", "gpu.fp", "gpu.gr_", "gpu.nvlink_tx", "gpu.nvlink_rx", "gpu.processes", "gpu.util_pct", "gpu.gpm_")):
        print("  %-36s %s -> %s" % (n, mean(i, 0, 8), mean(i, 20, 40)))
PY
rm -f "$out/all.csv"
ls -l "$out"
