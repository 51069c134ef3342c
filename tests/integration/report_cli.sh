#!/bin/sh
# report_cli.sh - `reveal report` over `reveal detect --incidents` output.
#
# synth plants three faults (cpu contention, packet loss, disk write
# storm); detect finds them; report must explain each with the rule of its
# fault ranked first (the knowledge base over evidence worked out from the
# data), in every format, with the filters, and refuse bad input with a
# clear message. Two incidents made into phases of one cascade by hand are
# linked both ways in every format, named without a link when a filter
# leaves one out. The store input is covered by agent_live.sh and
# report_ro.sh.

. "$SRC/tests/integration/lib.sh.inc"
it_setup

PY=${PYTHON3:-python3}

"$REVEAL" synth -o D >synth.txt 2>&1
check "synth exits 0" [ $? -eq 0 ]
"$REVEAL" detect --train D/train.csv --test D/test.csv -o win.csv --incidents inc.json -q \
	>detect.txt 2>&1
check "detect writes the incidents" [ -s inc.json ]
check "the incidents file names the window" grep -q '"window":' inc.json

# ---- formats ------------------------------------------------------------

run report --incidents inc.json --data D/test.csv
expect_rc "text report" 0
cp out.txt report.txt
check "text report has a likely cause" grep -q -i "likely cause" report.txt
check "text report has checks to run" grep -q -i "check" report.txt

for ext in md json html; do
	run report --incidents inc.json --data D/test.csv -o "r.$ext"
	expect_rc "report -o r.$ext" 0
	check "r.$ext written, nothing on stdout" [ -s "r.$ext" ] && [ ! -s out.txt ]
done
check "format from the extension: markdown" grep -q '^|' r.md
check "format from the extension: html" grep -q '<svg' r.html
check "html has no external asset" sh -c '! grep -E -q "(src|href)=\"(https?:)?//" r.html'
check "no temporary file left" sh -c '! ls r.*.tmp.* >/dev/null 2>&1'

# ---- every planted fault explained by its own rule ---------------------

# Fault intervals from the labels (start end per line).
awk -F, 'NR > 1 {
		if ($2 == 1 && !in_run) { start = $1; in_run = 1 }
		if ($2 == 1) last = $1
		if ($2 == 0 && in_run) { print start, last; in_run = 0 }
	} END { if (in_run) print start, last }' D/labels.csv >faults.txt
check "three fault intervals" [ "$(wc -l <faults.txt)" -eq 3 ]

# For each fault, the likeliest cause of the incident overlapping it most.
"$PY" - r.json faults.txt >causes.txt <<'EOF'
import json, sys
rep = json.load(open(sys.argv[1]))
for line in open(sys.argv[2]):
    a, b = map(float, line.split())
    best, over = None, 0.0
    for inc in rep["incidents"]:
        o = min(b, inc["end"]) - max(a, inc["start"])
        if o > over:
            best, over = inc, o
    if best is None:
        print("none")
    else:
        causes = best.get("causes") or []
        print(causes[0]["id"] if causes else "no-rule", len(best.get("series") or []),
              len(best.get("signals") or []))
EOF
cat causes.txt
set -- cpu-contention packet-loss disk-saturation-writeback
n=0
while read -r cause nseries nsig; do
	n=$((n + 1))
	want=$(eval echo "\${$n}")
	if [ "$cause" = "$want" ]; then
		ok "fault $n explained as $want"
	else
		not_ok "fault $n explained as $cause, expected $want"
	fi
	check "fault $n: plots and signals" [ "${nseries:-0}" -ge 1 ] && [ "${nsig:-0}" -ge 1 ]
done <causes.txt

# ---- filters -------------------------------------------------------------

run report --incidents inc.json --data D/test.csv --summary
expect_rc "summary" 0
total=$("$PY" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["incidents"]))' r.json)
lines=$(grep -c -E '^ *#?[0-9]+ ' out.txt || true)
check "summary: one line per incident ($total)" [ "$lines" -eq "$total" ]

run report --incidents inc.json --data D/test.csv --subsystem net --format json
expect_rc "--subsystem net" 0
check "--subsystem net keeps only incidents involving net" "$PY" -c '
import json, sys
r = json.load(open("out.txt"))["incidents"]
assert r, "none kept"
for i in r:
    subs = i["subsystems"]
    assert subs[0]["name"] == "net" or any(s["name"] == "net" and s["share"] >= 0.25 for s in subs), subs
'
first=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["incidents"][0]["id"])' r.json)
run report --incidents inc.json --data D/test.csv --incident "$first" --format json
check "--incident $first keeps that one" "$PY" -c '
import json, sys
r = json.load(open("out.txt"))["incidents"]
assert [i["id"] for i in r] == [int(sys.argv[1])], r
' "$first"
run report --incidents inc.json --data D/test.csv --until 1 --format json
check "--until before the data keeps none" "$PY" -c '
import json
assert json.load(open("out.txt"))["incidents"] == []
'
run report --incidents inc.json --data D/test.csv --min-severity critical --format json
check "--min-severity critical keeps only critical ones" "$PY" -c '
import json
for i in json.load(open("out.txt"))["incidents"]:
    assert i["severity"] == "critical", i["severity"]
'

# ---- phases of a cascade --------------------------------------------------

# The second incident made a follow-on phase of the first by hand, as the
# merger writes a cascade: "phase":2,"follows":1.
sed '/^{"id":2,/s/"phase":1,"follows":null/"phase":2,"follows":1/' inc.json >casc.json
check "casc.json: incident 2 follows incident 1" grep -q '^{"id":2,.*"phase":2,"follows":1,' casc.json
sub1=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["incidents"][0]["subsystem"])' \
	inc.json)
sub2=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["incidents"][1]["subsystem"])' \
	inc.json)
run report --incidents casc.json --data D/test.csv
expect_rc "report of a cascade" 0
# the section of each incident: from its INCIDENT line to the next one
awk '/^INCIDENT /{n=$2} n==1' out.txt >inc1.txt
awk '/^INCIDENT /{n=$2} n==2' out.txt >inc2.txt
check "text: incident 1 is followed by incident 2" \
	grep -q "^  Followed by incident 2 ($sub2, [0-9].* after it began)\.\$" inc1.txt
check "text: incident 2 is phase 2 of incident 1" \
	grep -q "^  Follow-on phase 2 of incident 1 ($sub1)\.\$" inc2.txt
check "text: under the chain" sh -c 'sed -n "/^Chain/,/^\$/p" inc2.txt | grep -q Follow-on'
check "text: no phase line elsewhere" [ "$(grep -c 'Follow' out.txt)" -eq 2 ]
run report --incidents casc.json --data D/test.csv --format markdown
check "markdown: a link to incident 1 and its anchor" sh -c \
	'grep -q "^Follow-on phase 2 of \[incident 1\](#incident-1) " out.txt &&
	 grep -q "^<a id=\"incident-1\"></a>\$" out.txt'
run report --incidents casc.json --data D/test.csv --format html
check "html: links both ways between the cards" sh -c \
	'grep -q "Followed by <a href=\"#incident-2\">incident 2</a>" out.txt &&
	 grep -q "Follow-on phase 2 of <a href=\"#incident-1\">incident 1</a>" out.txt &&
	 grep -q "id=\"incident-1\"" out.txt'
run report --incidents casc.json --data D/test.csv --format json
check "json: phase, follows and followed_by" "$PY" -c '
import json
r = {i["id"]: i for i in json.load(open("out.txt"))["incidents"]}
assert (r[1]["phase"], r[1]["follows"], r[1]["followed_by"]) == (1, None, [2]), r[1]
assert (r[2]["phase"], r[2]["follows"], r[2]["followed_by"]) == (2, 1, []), r[2]
assert (r[3]["phase"], r[3]["follows"], r[3]["followed_by"]) == (1, None, []), r[3]
'
run report --incidents casc.json --data D/test.csv --incident 2 --format html
check "--incident 2: incident 1 named, without a link" sh -c \
	'grep -q "Follow-on phase 2 of incident 1 ($0)\.</p>" out.txt &&
	 ! grep -q "#incident-1" out.txt' "$sub1"
run report --incidents casc.json --data D/test.csv --incident 1 --format markdown
check "--incident 1: incident 2 named, without a link" sh -c \
	'grep -q "^Followed by incident 2 (" out.txt && ! grep -q "#incident-2" out.txt'
# a file of an older reveal, without the fields: every incident a first one
sed 's/,"phase":[0-9]*,"follows":[0-9a-z]*//' inc.json >old.json
check "old.json has no phase" sh -c '! grep -q phase old.json'
run report --incidents old.json --data D/test.csv --format json
check "an older incidents file: phase 1, follows null" "$PY" -c '
import json
r = json.load(open("out.txt"))["incidents"]
assert len(r) == 3 and all(i["phase"] == 1 and i["follows"] is None for i in r), r
'
sed '/^{"id":2,/s/"phase":1,/"phase":0,/' inc.json >badphase.json
run report --incidents badphase.json --data D/test.csv
expect_rc "a phase of 0" 2
check "the error names file:line and the field" \
	grep -q 'badphase.json:3: incident 2: "phase" must be' err.txt
sed '/^{"id":2,/s/"follows":null/"follows":2/' inc.json >selfloop.json
run report --incidents selfloop.json --data D/test.csv
expect_rc "an incident that follows itself" 2
check "the error names file:line and the field" \
	grep -q 'selfloop.json:3: incident 2: "follows" must be' err.txt

# ---- rules ------------------------------------------------------------------

run report --list-rules
expect_rc "--list-rules" 0
check "at least 12 rules listed" [ "$(wc -l <out.txt)" -ge 12 ]
run report --print-builtin-rules
check "--print-builtin-rules prints the rules file" grep -q '^- id:' out.txt
cp out.txt mine.yaml
printf -- '- id: packet-loss\n  enabled: false\n' >off.yaml
run report --rules off.yaml --list-rules
check "a rules file removes a rule" sh -c '! grep -q "^packet-loss " out.txt'
run report --incidents inc.json --data D/test.csv --rules off.yaml --format json
check "without packet-loss, the loss incident is not blamed on it" sh -c \
	'! grep -q "\"id\":\"packet-loss\"" out.txt'
printf -- '- id: broken\n  title: x\n  colour: red\n' >bad.yaml
run report --rules bad.yaml --check-rules
expect_rc "a rules file with an error" 2
check "the error names file and line" grep -q 'bad.yaml:3:' err.txt

# ---- refusals ------------------------------------------------------------

run report --incidents inc.json
expect_rc "--incidents without --data" 2
check "says --data is wanted" grep -q -- '--data' err.txt
run report --store nowhere.db
expect_rc "a store that does not exist" 2
check "names the store" grep -q 'nowhere.db' err.txt
check "and does not create it" [ ! -e nowhere.db ]
run report --incidents inc.json --data D/test.csv --format pdf
expect_rc "--format pdf" 2
printf '{"incidents": [ {"id": 1, "start": 5, ' >cut.json
run report --incidents cut.json --data D/test.csv
expect_rc "a cut incidents file" 2
check "the JSON error names file:line:col" grep -q 'cut.json:1:' err.txt
run report --incidents inc.json --data D/test.csv -o /nonexistent/dir/r.html
expect_rc "an output folder that does not exist" 1

it_finish
