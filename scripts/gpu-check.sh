#!/bin/sh
# The NVML check of issue 3, run ON the GPU machine from gpu-pack/
# (scripts/gpu-pack.sh; DEVELOPERS.md). Writes into $OUT (or ./gpu-out):
#   metrics.json   reveal metrics --json --sample while a training loop runs
#   gpu.csv        reveal export of a 40 s recording at 100 ms (idle 10 s,
#                  then under load), GPU columns and the timestamp only
#   summary.txt    channels per source, unavailable sources, record's
#                  summary line (bytes per value, CPU), nvidia-smi -q head
# About 90 s on the GPU host. Needs python3 with torch for the load.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$here/gpu-out}
mkdir -p "$out"
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
R="$here/reveal"
{
    echo "== nvidia-smi"; nvidia-smi -q 2>&1 | head -40
    echo "== metrics (idle)"; "$R" metrics 2>&1 | grep -E '^(gpu\.|unavailable|[0-9]+ channels)'
} >"$out/summary.txt" 2>&1

"$R" record -o "$out/run.rvl" --interval 100ms --duration 40s 2>>"$out/summary.txt" &
rec=$!
sleep 10
python3 - <<'PY' >>"$out/summary.txt" 2>&1 &
import time, torch
dev = "cuda"
m = torch.nn.Sequential(torch.nn.Linear(8192, 8192), torch.nn.ReLU(), torch.nn.Linear(8192, 8192)).to(dev)
opt = torch.optim.SGD(m.parameters(), lr=1e-3)
x = torch.randn(4096, 8192, device=dev)
t0, steps = time.time(), 0
while time.time() - t0 < 25:
    loss = m(x).square().mean()
    opt.zero_grad(); loss.backward(); opt.step(); steps += 1
torch.cuda.synchronize()
print("== load: %d training steps in 25 s" % steps)
PY
load=$!
sleep 12
"$R" metrics --json --sample --interval 1000 >"$out/metrics.json" 2>>"$out/summary.txt"
wait $load
wait $rec
"$R" export "$out/run.rvl" --csv -o "$out/all.csv" 2>>"$out/summary.txt"
python3 - "$out/all.csv" "$out/gpu.csv" "$out/metrics.json" >>"$out/summary.txt" 2>&1 <<'PY'
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
    if c["source"] == "nvml":
        print("  %-32s %s %s" % (c["name"], c.get("value"), c["unit"]))
print("== unavailable:", [(u["source"], u["reason"]) for u in d["unavailable"]])
PY
rm -f "$out/all.csv"
ls -l "$out"
