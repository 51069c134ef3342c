#!/bin/sh
# detect_e2e.sh - `reveal synth` then `reveal detect` end to end.
#
# Checks the per-window CSV contract (header, one row per window at the
# right timestamps), that the three planted faults are found with few false
# incidents, that incidents name the right subsystem, that a saved model
# scores byte-identically without refitting, that seeds make runs
# reproducible, that --preset paper writes the same columns, and that
# --help documents every long option of the getopt table.

. "$SRC/tests/integration/lib.sh.inc"
it_setup

PY=${PYTHON3:-python3}
HEADER='timestamp,anomaly,score,zscore,pca,iforest,top_metrics,subsystem,spe,zscore_score,pca_score,iforest_score,spe_score'
NCOLS=13
FAR_S=5          # windows farther than this from any label count as normal time
MAX_FALSE=1      # false incidents tolerated
MIN_SUBSYS_OK=3  # faults whose incident must name the fault's subsystem

# json_field FILE NAME: a number from a flat JSON object.
json_field() {
	"$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"
}

# ---- data --------------------------------------------------------------

"$REVEAL" synth -o D 2>synth.txt
check "synth exits 0" [ $? -eq 0 ]
for f in train test labels; do
	check "synth wrote D/$f.csv" [ -s "D/$f.csv" ]
done
# "planted fault 1: cpu contention   (cpu) at test +60s..+90s"
sed -n 's/.*planted fault [0-9]*: .*(\([a-z]*\)) at test.*/\1/p' synth.txt >fault_subsys.txt
check "synth lists three planted faults" [ "$(wc -l <fault_subsys.txt)" -eq 3 ]

# Fault intervals from the labels: runs of label 1, "start end" per line.
awk -F, 'NR > 1 {
		if ($2 == 1 && !in_run) { start = $1; in_run = 1 }
		if ($2 == 1) last = $1
		if ($2 != 1 && in_run) { printf "%.3f %.3f\n", start, last; in_run = 0 }
	}
	END { if (in_run) printf "%.3f %.3f\n", start, last }' D/labels.csv >faults.txt
check "labels.csv marks three faults" [ "$(wc -l <faults.txt)" -eq 3 ]

# ---- the main run ------------------------------------------------------

"$REVEAL" detect --train D/train.csv --test D/test.csv -o out.csv --incidents inc.json \
	--save-model m.bin --info-json info.json 2>detect.txt
check "detect exits 0" [ $? -eq 0 ]
for f in out.csv inc.json m.bin info.json; do
	check "detect wrote $f" [ -s "$f" ]
done

check "CSV header is the contract" [ "$(head -n 1 out.csv)" = "$HEADER" ]
bad_rows=$(awk -F, -v n=$NCOLS 'NR > 1 && NF != n' out.csv | wc -l)
check "every CSV row has $NCOLS fields" [ "$bad_rows" -eq 0 ]
bad_flags=$(awk -F, 'NR > 1 && ($2 !~ /^[01]$/ || $4 !~ /^[01]$/ || $5 !~ /^[01]$/ ||
	$6 !~ /^[01]$/ || $9 !~ /^[01]$/)' out.csv | wc -l)
check "anomaly and detector flags are 0/1" [ "$bad_flags" -eq 0 ]

W=$(json_field info.json window)
S=$(json_field info.json step)
DT=$(json_field info.json interval_s)
check "info-json: window 15 samples, step 5, interval 0.2 s ($W, $S, $DT)" \
	[ "$W/$S/$DT" = "15/5/0.2" ]
test_rows=$(($(wc -l <D/test.csv) - 1))
windows=$(($(wc -l <out.csv) - 1))
expect_windows=$(((test_rows - W) / S + 1))
check "one CSV row per test window ($windows = ($test_rows - $W) / $S + 1)" \
	[ "$windows" -eq "$expect_windows" ]
check "info-json test_windows agrees" [ "$(json_field info.json test_windows)" = "$windows" ]
# The fused threshold: a window scoring above it is anomalous; the flagged
# stretches (bridged gaps aside) are exactly those windows.
FT=$(json_field info.json fuse_threshold)
above=$(awk -F, -v t="$FT" 'NR > 1 && $3 > t' out.csv | wc -l)
above_unflagged=$(awk -F, -v t="$FT" 'NR > 1 && $3 > t && $2 != 1' out.csv | wc -l)
check "info-json fuse_threshold ($FT) is above 0 and some windows score above it ($above)" \
	awk -v t="$FT" -v n="$above" 'BEGIN { exit !(t > 0 && n > 0) }'
check "every window scoring above fuse_threshold is anomalous ($above_unflagged not)" \
	[ "$above_unflagged" -eq 0 ]

# Window k ends at test row W-1 + k*S: its timestamp must be that row's.
ts_bad=$(awk -F, -v w="$W" -v s="$S" '
	FNR == 1 { FS = ","; next }
	NR == FNR { ts[FNR - 2] = $1; next }
	{ k = FNR - 2; want = ts[w - 1 + k * s]; d = $1 - want
	  if (d > 1e-6 || d < -1e-6) bad++ }
	END { print bad + 0 }' D/test.csv out.csv)
check "window timestamps are the last sample of each window" [ "$ts_bad" -eq 0 ]

# ---- detection quality -------------------------------------------------

# For each window: its span [ts - (W-1)*DT, ts] and its distance to the
# nearest fault. Prints "hits1 hits2 hits3 far_anomalous false_incidents".
awk -v w="$W" -v dt="$DT" -v far="$FAR_S" '
	NR == FNR { fs[NR] = $1; fe[NR] = $2; nf = NR; next }
	FNR == 1 { FS = ","; next }
	{
		hi = $1; lo = hi - (w - 1) * dt; near = 0
		for (i = 1; i <= nf; i++) {
			if ($2 == 1 && lo <= fe[i] && hi >= fs[i]) hit[i]++
			if (lo <= fe[i] + far && hi >= fs[i] - far) near = 1
		}
		if (!near && $2 == 1) { far_anom++; if (!prev) runs++ }
		prev = (!near && $2 == 1)
	}
	END { printf "%d %d %d %d %d\n", hit[1], hit[2], hit[3], far_anom, runs }' \
	faults.txt out.csv >quality.txt
read -r hit1 hit2 hit3 far_anom false_inc <quality.txt
n=1
for h in "$hit1" "$hit2" "$hit3"; do
	check "fault $n ($(sed -n "${n}p" fault_subsys.txt)) overlaps anomalous windows ($h)" [ "$h" -gt 0 ]
	n=$((n + 1))
done
far_total=$(awk -v w="$W" -v dt="$DT" -v far="$FAR_S" '
	NR == FNR { fs[NR] = $1; fe[NR] = $2; nf = NR; next }
	FNR == 1 { FS = ","; next }
	{ hi = $1; lo = hi - (w - 1) * dt; near = 0
	  for (i = 1; i <= nf; i++) if (lo <= fe[i] + far && hi >= fs[i] - far) near = 1
	  if (!near) n++ }
	END { print n + 0 }' faults.txt out.csv)
check "windows > ${FAR_S}s from any fault: at most $MAX_FALSE false incidents ($false_inc runs, $far_anom of $far_total windows anomalous)" \
	[ "$false_inc" -le "$MAX_FALSE" ]

# ---- incidents JSON ----------------------------------------------------

# Validates the JSON and prints, per fault, the subsystem of the largest
# incident overlapping it ("-" when none), then the total incident windows.
"$PY" - inc.json faults.txt "$W" "$DT" >inc_check.txt 2>inc_err.txt <<'EOF'
import json, sys

doc = json.load(open(sys.argv[1]))
faults = [tuple(map(float, l.split())) for l in open(sys.argv[2]) if l.strip()]
span = (int(sys.argv[3]) - 1) * float(sys.argv[4])
incs = doc["incidents"]
assert isinstance(incs, list)
for k, inc in enumerate(incs, 1):
    assert inc["id"] == k, "ids must count from 1"
    assert inc["start"] <= inc["end"], "start after end"
    assert inc["windows"] >= 1
    assert inc["peak_score"] >= inc["mean_score"] - 1e-9
    assert isinstance(inc["subsystem"], str) and inc["subsystem"]
    assert set(inc["detectors"]) <= {"zscore", "pca", "iforest", "spe"}
    assert inc["detectors"], "an incident needs a detector"
    assert all(isinstance(t["name"], str) and 0 <= t["share"] <= 1 for t in inc["top_metrics"])
    if k > 1:
        assert incs[k - 2]["end"] < inc["start"], "incidents must be ordered and disjoint"
for fs, fe in faults:
    over = [i for i in incs if i["start"] - span <= fe and i["end"] >= fs]
    best = max(over, key=lambda i: i["windows"]) if over else None
    print(best["subsystem"] if best else "-")
print(sum(i["windows"] for i in incs))
EOF
if [ $? -eq 0 ]; then
	ok "incidents JSON is valid and well formed"
else
	not_ok "incidents JSON is valid and well formed"
	show inc_err.txt
fi
anom=$(awk -F, 'NR > 1 && $2 == 1' out.csv | wc -l)
check "anomalous CSV windows ($anom) = windows in incidents ($(sed -n 4p inc_check.txt))" \
	[ "$anom" = "$(sed -n 4p inc_check.txt)" ]

# Each detector alone stays near the faults too: the faults cover about 100 of
# the ~300 test windows, so a detector flagging far more has a threshold on
# the wrong scale (a regression once made pca flag 294 of 298 here).
for col in 4 5 6 9; do
	name=$(head -1 out.csv | cut -d, -f$col)
	flagged=$(awk -F, -v c=$col 'NR > 1 && $c == 1' out.csv | wc -l)
	check "detector $name alone flags at most 130 windows ($flagged)" [ "$flagged" -le 130 ]
done

subsys_ok=0
n=1
while [ $n -le 3 ]; do
	want=$(sed -n "${n}p" fault_subsys.txt)
	got=$(sed -n "${n}p" inc_check.txt)
	if [ "$want" = "$got" ]; then subsys_ok=$((subsys_ok + 1)); fi
	printf '# fault %d: subsystem %s, incident says %s\n' "$n" "$want" "$got"
	n=$((n + 1))
done
check "incident subsystem matches the fault for >= $MIN_SUBSYS_OK of 3 faults ($subsys_ok)" \
	[ "$subsys_ok" -ge "$MIN_SUBSYS_OK" ]

# ---- saved model, seeds, preset -----------------------------------------

"$REVEAL" detect -q --model m.bin --test D/test.csv -o out2.csv --incidents inc2.json
check "scoring with the saved model exits 0" [ $? -eq 0 ]
check "saved model gives a byte-identical CSV" cmp -s out.csv out2.csv
check "saved model gives byte-identical incidents" cmp -s inc.json inc2.json

"$REVEAL" detect -q --train D/train.csv --test D/test.csv -o seed7a.csv --seed 7
"$REVEAL" detect -q --train D/train.csv --test D/test.csv -o seed7b.csv --seed 7
"$REVEAL" detect -q --train D/train.csv --test D/test.csv -o seed8.csv --seed 8
check "equal --seed gives identical output" cmp -s seed7a.csv seed7b.csv
# The seed drives the Isolation Forest: a different one must change its scores.
# Threads split the work, not the result.
"$REVEAL" detect -q --train D/train.csv --test D/test.csv -o thr1.csv --seed 7 --threads 1
"$REVEAL" detect -q --train D/train.csv --test D/test.csv -o thr4.csv --seed 7 --threads 4
check "--threads 1 and --threads 4 give identical output" \
	sh -c 'cmp -s "$1" "$2" && cmp -s "$1" "$3"' sh thr1.csv thr4.csv seed7a.csv
# A host wide enough (1820 features, 1456 raw inputs, 1198 training windows) for the
# large-fit path with BLAS threads: equal runs must still be identical.
"$REVEAL" synth -o W --replicas 13 --train-duration 20m --test-duration 2m 2>/dev/null
"$REVEAL" detect -q --train W/train.csv --test W/test.csv -o wide1.csv --info-json wide.json
"$REVEAL" detect -q --train W/train.csv --test W/test.csv -o wide2.csv
check "wide host: two equal runs give identical output" cmp -s wide1.csv wide2.csv
check "wide host: more than 1024 features kept" \
	sh -c 'grep -o "\"features_kept\": [0-9]*" wide.json | awk "{exit !(\$2 > 1024)}"'
cut -d, -f12 seed7a.csv >if7.txt
cut -d, -f12 seed8.csv >if8.txt
check "a different --seed changes iforest_score" differ if7.txt if8.txt

"$REVEAL" detect --preset paper --train D/train.csv --test D/test.csv -o paper.csv \
	--incidents paper.json --info-json paper_info.json 2>paper.txt
check "--preset paper exits 0" [ $? -eq 0 ]
check "--preset paper writes the contract header" [ "$(head -n 1 paper.csv)" = "$HEADER" ]
pw=$(json_field paper_info.json window)
ps=$(json_field paper_info.json step)
p_windows=$(($(wc -l <paper.csv) - 1))
check "--preset paper: one row per window ($p_windows)" \
	[ "$p_windows" -eq $(((test_rows - pw) / ps + 1)) ]
check "--preset paper: fusion vote" grep -q 'fusion vote' paper.txt

# ---- --help covers the getopt table --------------------------------------

"$REVEAL" detect --help >help.txt 2>help_err.txt
check "--help exits 0" [ $? -eq 0 ]
sed -n '/detect_options\[\] = {/,/^};/p' "$SRC/src/cli/detect_cmd.c" |
	sed -n 's/^[[:space:]]*{ *"\([a-z0-9-]*\)",.*/\1/p' >longopts.txt
nopt=$(wc -l <longopts.txt)
check "getopt table parsed from detect_cmd.c ($nopt long options)" [ "$nopt" -ge 20 ]
missing=
while read -r name; do
	grep -Eq -- "--$name([^a-z-]|\$)" help.txt || missing="$missing --$name"
done <longopts.txt
check "--help mentions every long option${missing:+ (missing:$missing)}" [ -z "$missing" ]

it_finish
