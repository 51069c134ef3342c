#!/bin/sh
# agent_whose.sh - whose workload (issue 18, acceptance 1 and 2): a live
# agent sampling every 200 ms on a host with 2,000 more (idle) processes;
# stress-ng runs inside a cgroup this test creates (cgroup v1 cpu,cpuacct
# here; v2 layouts are covered by the fixture trees of src/attrib's unit
# tests), and the CPU incident it causes must name that stress-ng process
# and that cgroup as its top consumers: in /api/v1/incidents, in the
# store and in `reveal report`. The process scan that finds them must not
# make the sampling loop miss a deadline (reveal_samples_missed_total
# unchanged while it runs), and /metrics counts the scans and the
# processes read. The same live agent runs an incident action that hangs
# (a command killed at its 2 s timeout) and one that appends the incident
# JSON to a file: neither delays sampling either (issue 18, acceptance 3,
# on a live agent; tests/integration/agent_actions.sh has the rest).
#
# Needs root (cgroup creation), stress-ng, sqlite3, curl and python3.
# About 70 s.

. "$SRC/tests/integration/lib.sh.inc"
it_setup
need_tools stress-ng sqlite3 curl python3

if [ "$(id -u)" != 0 ]; then
	not_ok "root, to create a cgroup (the CI runs as root)"
	it_finish
fi
# The cgroup: in every v1 CPU hierarchy (cpu and cpuacct, mounted apart
# or together), as a container runtime makes it, or in the v2 tree.
NAME=reveal-whose-$$
CGS=
for d in /sys/fs/cgroup/cpu,cpuacct /sys/fs/cgroup/cpu /sys/fs/cgroup/cpuacct; do
	[ -f "$d/cgroup.procs" ] && [ ! -L "$d" ] && CGS="$CGS $d/$NAME"
done
if [ -z "$CGS" ] && grep -qw cpu /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
	CGS=/sys/fs/cgroup/$NAME
fi
check "a CPU cgroup hierarchy to create a cgroup in:$CGS" test -n "$CGS"
for cg in $CGS; do
	if ! mkdir "$cg"; then
		not_ok "mkdir $cg"
		it_finish
	fi
done
AP=$(free_port)
URL="http://127.0.0.1:$AP"
IDLE=
# (one kill per pid: dash's kill stops at an empty argument)
cleanup_procs() {
	for p in "${AGENT:-}" "${STRESS:-}"; do
		[ -n "$p" ] && kill "$p" 2>/dev/null
	done
	if [ -n "$IDLE" ]; then
		pkill -P "$IDLE" sleep 2>/dev/null
		kill "$IDLE" 2>/dev/null
	fi
	wait 2>/dev/null
	for cg in $CGS; do rmdir "$cg" 2>/dev/null; done
}
trap 'cleanup_procs; it_cleanup' EXIT

# 2,000 idle processes (sleep blocks in the kernel; one shell forks them)
sh -c 'i=0; while [ $i -lt 2000 ]; do sleep 600 & i=$((i + 1)); done; wait' >/dev/null 2>&1 &
IDLE=$!
idle_up() { test "$(pgrep -c -P "$IDLE" sleep)" -ge 2000; }
check "2000 idle processes run" wait_for 30 idle_up

stress-ng --cpu 1 --timeout 2s --quiet >/dev/null 2>&1   # cached before learning
cat >agent.yaml <<EOF
actions:
  - name: hang
    on: [open, close]
    command: ["sleep", "30"]
    timeout: 2s
  - name: append
    on: [open, close]
    command: ["/bin/sh", "-c", "cat >> '$PWD/actions.jsonl'"]
EOF
"$REVEAL" agent --config agent.yaml --listen "127.0.0.1:$AP" --store reveal.db \
	--events events.jsonl --state-dir state --interval 200ms --learn 40s --set refit=0 \
	--set detect.incident_min=3 >agent.out 2>agent.err &
AGENT=$!
judging() { curl -sf "$URL/api/v1/status" >status.json && grep -q '"judging":true' status.json; }
if wait_for 120 judging; then
	ok "the agent detects and judges windows"
else
	not_ok "the agent detects and judges windows"
	show agent.err
	it_finish
fi
missed() { curl -sf "$URL/metrics" | sed -n 's/^reveal_samples_missed_total \([0-9]*\).*/\1/p'; }
MISSED0=$(missed)

# the load, inside the cgroup: the shell moves itself in, then execs
sh -c 'for cg in $0; do echo $$ >"$cg/cgroup.procs" || exit 1; done
	exec stress-ng --cpu 2 --timeout 20s --quiet' "$CGS" >/dev/null 2>&1 &
STRESS=$!
# (polled with curl and grep: a Python started every second would be a
# consumer of its own)
measured() {
	curl -sf "$URL/api/v1/incidents" >inc.json && grep -q '"resource":"cpu"' inc.json
}
# the incident the load opened: its subsystem is cpu, or cpu holds a
# quarter of it (the load's first page faults can lead); either way its
# CPU consumers are measured
CPU_INC='[i for i in json.load(open("inc.json"))["incidents"] if any(c["resource"] == "cpu" for c in i["consumers"])][0]'

if wait_for 40 measured; then
	ok "an incident with measured CPU consumers appears"
	echo "    # $(json inc.json '[(i["subsystem"], [c["text"] for c in i["consumers"]]) for i in d["incidents"] if i["consumers"]]')"
else
	not_ok "an incident with measured CPU consumers appears"
	show inc.json
	show agent.err
fi
REL=/$NAME
check "its top CPU process is a stress-ng worker in $REL" python3 -c '
import json, sys
inc = '"$CPU_INC"'
procs = [c for c in inc["consumers"] if c["kind"] == "process" and c["resource"] == "cpu"]
top = procs[0]
assert top["comm"].startswith("stress-ng"), top
assert top["cgroup"] == sys.argv[1], (top["cgroup"], sys.argv[1])
assert top["amount"] > 0.5 and top["share"] > 0.3, top
' "$REL"
check "its top CPU cgroup is $REL" python3 -c '
import json, sys
inc = '"$CPU_INC"'
cgs = [c for c in inc["consumers"] if c["kind"] == "cgroup" and c["resource"] == "cpu"]
assert cgs and cgs[0]["cgroup"] == sys.argv[1], cgs
assert cgs[0]["amount"] > 0.5, cgs[0]
' "$REL"
wait "$STRESS" 2>/dev/null
STRESS=
MISSED1=$(missed)
check "no sample missed while it scanned ($MISSED0 -> $MISSED1)" test "${MISSED0:-x}" = "${MISSED1:-y}"
curl -sf "$URL/metrics" >metrics.txt
check "/metrics counts the scans" grep -Eq '^reveal_attrib_scans_total [1-9]' metrics.txt
check "the hanging action was killed at its timeout (counted)" \
	grep -Eq '^reveal_action_runs_total\{action="hang",result="timeout"\} [1-9]' metrics.txt
check "the append action received the incident JSON" grep -q '"event":"open"' actions.jsonl
check "the last scan read the 2000 idle processes and more" \
	awk '$1 == "reveal_attrib_processes" { exit !($2 >= 2000) }' metrics.txt
echo "    # $(grep -E '^reveal_attrib_(scan_seconds|processes) ' metrics.txt | tr '\n' ' ')"
check "the store holds them" \
	test "$(sqlite3 reveal.db "SELECT count(*) FROM incident_consumers WHERE comm LIKE 'stress-ng%'")" -ge 1
check "the incidents view shows the top consumer" \
	test "$(sqlite3 reveal.db "SELECT count(*) FROM incidents_view WHERE top_consumer LIKE '%stress-ng%'")" -ge 1
kill "$AGENT" 2>/dev/null
wait "$AGENT" 2>/dev/null
AGENT=
ID=$(sqlite3 reveal.db "SELECT incident_id FROM incident_consumers WHERE comm LIKE 'stress-ng%' LIMIT 1")
"$REVEAL" report --store reveal.db --incident "$ID" >rep.txt 2>rep.err
check "reveal report names whose workload" grep -q '^Whose workload:' rep.txt
check "... with the stress-ng process" grep -q 'stress-ng' rep.txt
check "the close event carries the consumers" python3 -c '
import json
ev = [json.loads(l) for l in open("events.jsonl")]
assert any(e["event"] == "close" and any(c["comm"].startswith("stress-ng") for c in e["consumers"] if c["comm"]) for e in ev)
'
it_finish
