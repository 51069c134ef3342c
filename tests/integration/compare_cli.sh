#!/bin/sh
# compare_cli.sh - `reveal compare A B`: consistency between two runs.
#
# Per-window CSVs: synth makes a data set with three planted faults;
# detect scores it with its defaults, with 5 s windows and with a step of
# 500 ms (two samples at 200 ms). A run compared with itself agrees
# completely (IoU 1, hit rates 1) and its incidents, formed again from the
# CSV by detect's merger, are those detect wrote with --incidents (the
# CSV ranks channels without their weights: on this data the merger
# splits them exactly as detect did; see pipeline/compare.h). Default against 5 s windows: the IoU in the JSON
# is the one worked out here from the two CSVs (anomalous windows matched
# by timestamp), and the text says the same; against the 500 ms step the
# runs still compare. Agent stores: three replays of one recording with
# the agent's defaults, with windows of 10 s (a shorter incident inside
# the default one) and with detect.incident_min=40 (no incident): the
# incident table matches the first two and leaves the default's incident
# unmatched against the third. A store beside a CSV of the same
# recording, and beside one of other telemetry (a warning). Bad input: a CSV without the anomaly column, a malformed
# line, a SQLite file that is not a store, runs that share no time, and
# bad usage, each exit status 2 with the file (and line) named.

. "$SRC/tests/integration/lib.sh.inc"
it_setup

PY=${PYTHON3:-python3}
need_tools "$PY" sqlite3
REC=$SRC/tests/fixtures/fleet/straggler.rvl

"$REVEAL" synth -o D >synth.txt 2>&1
check "synth exits 0" [ $? -eq 0 ]
for cfg in "def:" "w5:--window 5s" "half:--step 500ms"; do
	name=${cfg%%:*}
	# shellcheck disable=SC2086 # the options are words
	"$REVEAL" detect --train D/train.csv --test D/test.csv -o "$name.csv" \
		--incidents "$name.json" -q ${cfg#*:} >"detect-$name.txt" 2>&1
	check "detect $name writes its windows" [ -s "$name.csv" ]
done

# ---- a run against itself ----------------------------------------------

run compare def.csv def.csv
expect_rc "def.csv against itself" 0
check "itself: IoU 1" grep -q "^IoU of anomalous windows:  1.000$" out.txt
check "itself: every incident found both ways" \
	grep -q "A found by B 1.00 (3 of 3), B found by A 1.00 (3 of 3)" out.txt
check "the paper's figures are cited" grep -q "median IoU 0.50 and hit rate 0.92" out.txt
run compare def.csv def.csv --format json -o self.json
expect_rc "itself, JSON to a file" 0
check "nothing on stdout with -o" [ ! -s out.txt ]
check "no temporary file left" sh -c '! ls self.json.tmp.* 2>/dev/null'
same=$(json self.json '[(p["a"]["start_ts"], p["a"]["end_ts"], p["a"]["subsystem"]) for p in d["incidents"]] == [(round(i["start"], 3), round(i["end"], 3), i["subsystem"]) for i in __import__("json").load(open("def.json"))["incidents"]]')
check "the CSV's incidents are detect's own (start, end, subsystem)" [ "$same" = True ]

# ---- two configurations ----------------------------------------------------

run compare def.csv w5.csv -o cmp.json
expect_rc "default against 5 s windows" 0
want=$("$PY" - def.csv w5.csv <<'EOF'
import csv, sys
rows = [list(csv.DictReader(open(f))) for f in sys.argv[1:3]]
ts = [{float(r["timestamp"]): r["anomaly"] == "1" for r in x} for x in rows]
lo = max(min(t) for t in ts) - 1.0
hi = min(max(t) for t in ts)
a = {t for t, v in ts[0].items() if v and lo < t <= hi}
b = {t for t, v in ts[1].items() if v and lo < t <= hi}
print("%.6f" % (len(a & b) / len(a | b)))
EOF
)
got=$(json cmp.json '"%.6f" % d["compare"]["iou"]')
check "IoU is windows in both over windows in either ($got, worked out: $want)" \
	[ -n "$want" ] && [ "$got" = "$want" ]
check "hit rates are shares" [ "$(json cmp.json '0 <= d["compare"]["a"]["hit_rate"] <= 1 and 0 <= d["compare"]["b"]["hit_rate"] <= 1')" = True ]
run compare def.csv w5.csv
expect_rc "the same as text" 0
check "the text says the JSON's IoU" \
	grep -q "^IoU of anomalous windows:  $(json cmp.json '"%.3f" % d["compare"]["iou"]')$" out.txt
check "the text matches A's cpu incident with one of B's" \
	grep -Eq "^  1 +[0-9T:-]+Z +[0-9.]+ s  cpu +[0-9]+ +[0-9T:-]+Z +[0-9.]+ s  [a-z]+ +[0-9.]+ s$" out.txt

run compare def.csv half.csv --format json
expect_rc "against a step of 500 ms" 0
check "a 500 ms run compares (0 < IoU <= 1)" \
	[ "$(json out.txt '0 < d["compare"]["iou"] <= 1 and d["compare"]["b"]["step_s"] < 1')" = True ]

# ---- agent stores ----------------------------------------------------------

replay() {
	db=$1
	shift
	"$REVEAL" agent --replay "$REC" --learn 10s --listen "" --state-dir "st-$db" \
		--store "$db" -q "$@" >"agent-$db.txt" 2>&1
	check "agent replay writes $db" [ -s "$db" ]
}
replay A.db
replay B.db --set detect.window=10s
replay C.db --set detect.incident_min=40

run compare A.db A.db
expect_rc "a store against itself" 0
check "store itself: IoU 1" grep -q "^IoU of anomalous windows:  1.000$" out.txt
run compare A.db B.db
expect_rc "default store against 10 s windows" 0
cp out.txt ab.txt
check "the table matches the two cpu incidents, with their overlap" \
	grep -Eq "^  1 +[0-9T:-]+Z +28\.0 s  cpu +1 +[0-9T:-]+Z +4\.0 s  cpu +5\.0 s$" ab.txt
check "store A's incident is found by B and B's by A" \
	grep -q "A found by B 1.00 (1 of 1), B found by A 1.00 (1 of 1)" ab.txt
run compare A.db B.db --format json
check "store IoU is the 5 s of 29 they share" \
	[ "$(json out.txt 'abs(d["compare"]["iou"] - 5 / 29) < 0.01')" = True ]
run compare A.db C.db
expect_rc "against a store without incidents" 0
check "A's incident is unmatched (a dash)" grep -Eq "^  1 .* cpu +—$" out.txt
check "hit rates: 0 of 1, n/a" \
	grep -q "A found by B 0.00 (0 of 1), B found by A n/a (no incidents)" out.txt
start=$(sqlite3 A.db 'SELECT start_ts FROM incidents')
run compare A.db B.db --until "$(awk "BEGIN { printf \"%.3f\", $start - 100 }")"
expect_rc "stores before their incidents" 0
check "nothing in the range: IoU 1, incidents left out" \
	grep -q "Left out (outside the range): A 0 windows, 1 incident; B 0 windows, 1 incident" out.txt

"$REVEAL" detect --train "$REC" --test "$REC" -o rec.csv -q >detect-rec.txt 2>&1
check "detect over the recording" [ -s rec.csv ]
run compare A.db rec.csv --format json
expect_rc "a store against a CSV of the same recording" 0
check "kinds store and csv, the incident found by the CSV" \
	[ "$(json out.txt '(d["compare"]["a"]["kind"], d["compare"]["b"]["kind"], d["compare"]["a"]["hit"])')" = "('store', 'csv', 1)" ]

run compare A.db def.csv
expect_rc "a store against a CSV of other telemetry" 0
expect_err "it is said" "A\.db: none of its 1 incidents lies in the time def\.csv covers"

# ---- bad input ---------------------------------------------------------------

run compare D/test.csv def.csv
expect_rc "telemetry instead of a detect CSV" 2
expect_err_fixed "the missing column is named" "D/test.csv:1: no 'anomaly' column"
sed '5s/,[^,]*$//' def.csv >bad.csv
run compare def.csv bad.csv
expect_rc "a malformed line" 2
expect_err_fixed "its file and line are named" "bad.csv:5: row has 12 fields, header has 13"
sqlite3 other.db 'CREATE TABLE t(a); INSERT INTO t VALUES (1);'
run compare other.db A.db
expect_rc "a SQLite file that is not a store" 2
expect_err "the file is named" "other\.db"
"$PY" -c 'import sys
for i, l in enumerate(open("def.csv")):
    if i:
        t, r = l.split(",", 1)
        l = "%.1f,%s" % (float(t) + 86400, r)
    sys.stdout.write(l)' >late.csv
run compare def.csv late.csv
expect_rc "runs a day apart" 2
expect_err "both spans are named" "def\.csv covers .* and late\.csv covers .*do not overlap"
run compare def.csv w5.csv --since 2001-01-01T00:00:00Z --until 2001-01-02T00:00:00Z -o none.json
expect_rc "a range outside the runs" 2
expect_err_fixed "the range is named" "range asked (2001-01-01T00:00:00Z .. 2001-01-02T00:00:00Z)"
check "no output file on error" [ ! -e none.json ]
run compare missing.csv def.csv
expect_rc "a missing file" 2
expect_err_fixed "it is named" "missing.csv: No such file"
run compare def.csv
expect_rc "one run only" 2
expect_err "usage" "want two runs"
run compare def.csv def.csv --format xml
expect_rc "an unknown format" 2
run compare def.csv def.csv --gap -1
expect_rc "a bad --gap" 2
run compare --help
expect_rc "help" 0
check "help cites the paper" grep -q "median IoU 0.50 and hit rate 0.92" out.txt

it_finish
