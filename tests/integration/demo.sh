#!/bin/sh
# demo.sh - `reveal demo` end to end (issue 6, acceptance 3).
#
# The guided run on this host, with its defaults: both injected faults
# (CPU contention; packet loss inside the demo's own network namespace)
# must be detected and blamed on the right subsystem, the HTML report must
# be written, and the demo must leave nothing behind: no process, no
# network namespace, no nftables rule, no qdisc. A second run is stopped
# with SIGINT while it learns and must clean up the same way.
#
# Needs root, stress-ng, nft, tc and python3 (scripts/install-deps.sh
# installs them); a missing one fails the test.

. "$SRC/tests/integration/lib.sh.inc"
it_setup

for tool in stress-ng nft tc python3; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		not_ok "$tool is installed (scripts/install-deps.sh)"
		it_finish
	fi
done
if [ "$(id -u)" -ne 0 ]; then
	not_ok "runs as root (the demo's network namespace and nftables rule need it)"
	it_finish
fi

# What the host has before: network namespaces in use, its nftables
# ruleset and qdiscs, and the processes the demo starts.
netns_ids() {
	for p in /proc/[0-9]*; do readlink "$p/ns/net" 2>/dev/null; done | sort -u
}
snapshot() {
	netns_ids >"$1.netns"
	nft list ruleset >"$1.nft" 2>&1
	tc qdisc show >"$1.tc" 2>&1
}
# no_leftovers DESC: no process whose command line names this test's
# folder, and no stress-ng.
no_leftovers() {
	if pgrep -af "$IT_TMP|stress-ng" | grep -v pgrep >left.txt; then
		not_ok "$1"
		show left.txt
	else
		ok "$1"
	fi
}
snapshot before

start=$(date +%s)
"$REVEAL" demo -o "$IT_TMP/out" >demo.txt 2>demo.err
RC=$?
took=$(($(date +%s) - start))
sed 's/^/    # /' demo.txt
expect_rc "reveal demo" 0
show demo.err
if [ "$took" -le 180 ]; then
	ok "the demo took $took s (at most 180 s)"
else
	not_ok "the demo took $took s (at most 180 s)"
fi

# json EXPR: evaluates EXPR over out/summary.json (as `d`).
json() {
	python3 -c 'import json, sys; d = json.load(open("out/summary.json")); print(eval(sys.argv[1]))' "$1" 2>/dev/null
}
for i in 0 1; do
	title=$(json "d['faults'][$i]['title']")
	check "fault $((i + 1)) ($title) is detected" test "$(json "d['faults'][$i]['detected']")" = True
	expect=$(json "d['faults'][$i]['expect']")
	got=$(json "d['faults'][$i].get('subsystem')")
	check "fault $((i + 1)) ($title) is blamed on $expect (got $got)" test "$got" = "$expect"
	if [ "$got" != "$expect" ]; then
		# for the log (events.jsonl goes with the folder): each incident's
		# subsystem shares and top signals at open and close
		python3 - >blame.txt 2>&1 <<'PY'
import json
for line in open("out/events.jsonl"):
    e = json.loads(line)
    print(e["event"], e["id"], e["subsystem"], e.get("windows"),
          " ".join("%s=%.3f" % (s["name"], s["share"]) for s in e["subsystems"]))
    for m in e["top_metrics"][:6]:
        print("   ", m["name"], round(m["share"], 3), m["baseline"], m["value"])
PY
		sed 's/^/    # /' blame.txt
	fi
done
# the likely cause against the rule of each fault's mechanism: shown, not
# required (how often it is right is measured by issue 14's evaluation)
check "the summary has each fault's expected rule" \
	test "$(json "[f['expect_cause'] for f in d['faults']]")" = "['cpu-contention', 'packet-loss']"
check "the summary says whether each detected fault's cause is that rule" \
	test "$(json "all(f['cause_right'] == (f['cause'] == f['expect_cause']) for f in d['faults'] if f['detected'])")" = True
check "the text names the verdict on each likely cause" \
	test "$(grep -cE 'likely cause: .*(; right|; expected [a-z-]+| expected)\)$' demo.txt)" = "$(json "sum(f['detected'] for f in d['faults'])")"
check "fault 2 is the packet loss of the demo's own namespace" \
	test "$(json "d['faults'][1]['title']")" = "packet loss"
check "the summary names the report" grep -q "Report: $IT_TMP/out/report.html" demo.txt
check "the HTML report is written" test -s out/report.html
check "the report has the CPU incident" grep -q 'cpu' out/report.html
check "the incident store is kept" test -s out/demo.db

sleep 1
snapshot after
no_leftovers "no process is left behind"
check "no network namespace is left behind" cmp -s before.netns after.netns
check "the host's nftables ruleset is as before" cmp -s before.nft after.nft
check "the host's qdiscs are as before" cmp -s before.tc after.tc

# Ctrl-C while learning: everything stops, exit status 1.
"$REVEAL" demo -o "$IT_TMP/out2" >int.txt 2>int.err &
DEMO=$!
sleep 8
kill -INT "$DEMO"
wait "$DEMO"
RC=$?
expect_rc "reveal demo interrupted" 1
check "it says it stopped everything" grep -q "interrupted; everything the demo started has been stopped" int.err
sleep 1
snapshot after2
no_leftovers "no process is left behind after Ctrl-C"
check "no network namespace is left behind after Ctrl-C" cmp -s before.netns after2.netns
check "bad options are refused with exit 2" sh -c "'$REVEAL' demo --learn 1s >/dev/null 2>&1; test \$? -eq 2"
it_finish
