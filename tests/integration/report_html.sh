#!/bin/sh
# report_html.sh - the HTML report of real detector output renders in a
# browser: plots drawn, nothing blank, no console message, no request.
#
# Synthetic telemetry with three planted faults (`reveal synth`) goes
# through `reveal detect --incidents` and `reveal report --format html`;
# tests/integration/html_check.py then loads the page in headless Chromium
# (DOM after rendering: every <svg> has a drawn path; screenshot: not
# blank, the plot lines show; stderr: no console message; net log: no
# request) after proving with --self-test that each of its checks can
# fail. The same input also gives valid JSON, text within 100 columns and
# one summary line per incident.
#
# Needs python3 and chromium (scripts/install-deps.sh): a missing one fails
# the test, naming the package. A missing `reveal report` fails it too.

. "$SRC/tests/integration/lib.sh.inc"
it_setup

CHECK="$SRC/tests/integration/html_check.py"
T0=$(date +%s)

if ! command -v python3 >/dev/null 2>&1; then
	not_ok "python3 is installed (Debian package python3; scripts/install-deps.sh)"
	it_finish
fi
if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
	not_ok "chromium is installed: install the Debian package 'chromium' (scripts/install-deps.sh)"
	it_finish
fi

# ------------------------------------------------------------ the checker

if python3 "$CHECK" --self-test >self.txt 2>&1; then
	ok "html_check.py --self-test: each check fails on its bad page," \
		"a good page passes ($(grep -c '^ok' self.txt) cases)"
else
	not_ok "html_check.py --self-test"
	sed 's/^/    # /' self.txt
fi

# ------------------------------------------------------------ real detector output

run synth -o data --seed 7
expect_rc "reveal synth writes data with planted faults" 0
run detect --train data/train.csv --test data/test.csv -o out.csv --incidents inc.json
expect_rc "reveal detect --incidents" 0
NINC=$(grep -c '^{"id":' inc.json 2>/dev/null)
check "the detector found incidents (${NINC:-0})" [ "${NINC:-0}" -ge 1 ]

if ! "$REVEAL" report --help >/dev/null 2>&1; then
	not_ok "reveal report exists (reveal report --help exits 0)"
	it_finish
fi

run report --incidents inc.json --data data/test.csv --format html -o report.html
expect_rc "reveal report --format html -o report.html" 0
check "report.html is an HTML5 page" sh -c 'head -n 1 report.html | grep -q "^<!DOCTYPE html>"'
check "report.html has a card per incident ($NINC)" \
	[ "$(grep -c '<section class="card' report.html)" -eq "${NINC:-0}" ]
check "report.html has inline SVG plots" grep -q '<svg class="plot' report.html
check "report.html has no <script> and no http(s) URL in an attribute" \
	lacks report.html '<script|(src|href)="(https?:)?//'

if python3 "$CHECK" report.html --screenshot shot.png --min-plots 1 >hc.txt 2>&1; then
	ok "headless Chromium: $(sed -n 's/^html_check: [^:]*: ok: //p' hc.txt)"
else
	not_ok "headless Chromium renders report.html"
	sed 's/^/    # /' hc.txt
fi

# ------------------------------------------------------------ the other formats

run report --incidents inc.json --data data/test.csv --format json -o report.json
if [ "$RC" -eq 0 ] && python3 -c '
import json, sys
d = json.load(open("report.json"))
n = int(sys.argv[1])
assert len(d["incidents"]) == n, "%d incidents, want %d" % (len(d["incidents"]), n)
for i in d["incidents"]:
    assert i["signals"] and i["series"], "incident %s without signals or series" % i["id"]
' "${NINC:-0}" >json.err 2>&1; then
	ok "reveal report --format json: valid JSON, every incident with signals and series"
else
	not_ok "reveal report --format json: valid JSON, every incident with signals and series"
	show err.txt
	show json.err
fi

run report --incidents inc.json --data data/test.csv
# columns are characters, not bytes (awk may count bytes)
wide=$(python3 -c 'import sys
print(sum(len(l.rstrip("\n")) > 100 for l in open(sys.argv[1], encoding="utf-8")))' out.txt)
check "reveal report (text): exit 0, every line within 100 columns ($wide wider)" \
	sh -c "[ $RC -eq 0 ] && [ $wide -eq 0 ] && grep -q '^INCIDENT 1 ' out.txt"
for sub in cpu net storage; do
	check "the text report names a $sub incident (a planted fault)" \
		grep -Eq "^INCIDENT [0-9]+ +[A-Z]+ +$sub " out.txt
done
run report --incidents inc.json --data data/test.csv --summary
check "reveal report --summary: one line per incident" \
	sh -c "[ $RC -eq 0 ] && [ \$(wc -l <out.txt) -eq ${NINC:-0} ]"

# How long it took, for the log only: a timing goal is a benchmark's, not a
# test's (a loaded machine once took 74 s here with every check passing).
T1=$(date +%s)
echo "# the whole test took $((T1 - T0)) s"

it_finish
