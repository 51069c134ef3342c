#!/bin/sh
# agent_level.sh - a level that moves and stays keeps its incident open for
# as long as it stays, live and in a replay of the live run's recording;
# and a fact changed at run time is seen.
#
# The agent watches a copy of the memhost fixture tree with the NICs of
# the factshost fixture, at 100 ms, learning for 5 s; a small script keeps
# the tree's memory at rest (the page cache wandering by a few MiB, page
# faults counting on) and, when told to, reserves the pool. A huge page
# pool of 2048
# pages (4 GiB) is reserved in the tree's /proc/meminfo (HugePages_Total,
# HugePages_Free, Hugetlb up; MemFree and MemAvailable down by as much) and
# eno1's MTU goes from 9000 to 1500; after HOLD_S seconds the pool is
# released. Checked, live and in the replay with the same settings:
#   - one incident, mem, opened within 3 s of the reservation and open for
#     the whole hold, closed at most 10 s after the release; its likely
#     cause, decided on its onset, is hugepage-misconfiguration;
#   - the replay reports the same incident (start, end, subsystem, top
#     signals);
#   - live: the agent logs the fact's change, /api/v1/facts shows the new
#     MTU and the change, /metrics counts it, and reveal_level_score is
#     above 1 while the pool is held.
# About 80 s.

. "$SRC/tests/integration/lib.sh.inc"
it_setup
need_tools python3 curl sqlite3

HOLD_S=60
ROOT="$IT_TMP/host"
cp -r "$SRC/tests/fixtures/collect/memhost" "$ROOT"
mkdir -p "$ROOT/sys/class"
cp -r "$SRC/tests/fixtures/collect/factshost/sys/class/net" "$ROOT/sys/class/net"
PORT=$(free_port)

# host.py ROOT CONTROL: a host at rest, every 100 ms: the page cache and
# free memory wander by a few MiB, page faults and frees count on; when
# CONTROL says "pool", a pool of 2048 huge pages of 2 MiB (4 GiB) is
# reserved (HugePages_Total and _Free, Hugetlb up; MemFree and
# MemAvailable down by as much). Files are rewritten in place: the agent
# keeps them open.
cat >host.py <<'EOF'
import random, sys, time
root, control = sys.argv[1], sys.argv[2]
mi, vm = root + "/proc/meminfo", root + "/proc/vmstat"
base = [line.split(":", 1) for line in open(mi)]
vmstat = [line.split() for line in open(vm)]
rnd = random.Random(7)
walk = 0
def put(path, text):
    with open(path, "r+") as f:
        f.write(text)
        f.truncate()
while True:
    try:
        pool = open(control).read().strip() == "pool"
    except OSError:
        pool = False
    walk = max(-20480, min(20480, walk + rnd.randint(-2048, 2048)))
    out = []
    for k, v in base:
        n = v.split()
        if k in ("MemFree", "MemAvailable"):
            x = int(n[0]) - walk - (4194304 if pool else 0)
            out.append(f"{k}:{x:>16} kB\n")
        elif k == "Cached":
            out.append(f"{k}:{int(n[0]) + walk:>16} kB\n")
        elif k in ("HugePages_Total", "HugePages_Free"):
            out.append(f"{k}:{2048 if pool else 0:>8}\n")
        elif k == "Hugetlb":
            out.append(f"{k}:{4194304 if pool else 0:>16} kB\n")
        else:
            out.append(f"{k}:{v}")
    put(mi, "".join(out))
    for row in vmstat:
        if row[0] in ("pgfault", "pgfree", "pgalloc_normal"):
            row[1] = str(int(row[1]) + rnd.randint(10, 30))
    put(vm, "".join(f"{k} {v}\n" for k, v in vmstat))
    time.sleep(0.1)
EOF
echo rest >control
python3 host.py "$ROOT" control &
HOST=$!

agent() {
	exec "$REVEAL" agent --interval 100ms --learn 5s --set refit=0 \
		--set detect.window=1s --set detect.step=200ms --set collect.root="$ROOT" \
		--set collect.rediscover=0 "$@"
}
trap '[ -n "${AGENT:-}" ] && kill "$AGENT" 2>/dev/null; kill "$HOST" 2>/dev/null; it_cleanup' EXIT

agent --listen "127.0.0.1:$PORT" --store live.db --events live.jsonl --state-dir live \
	--set collect.facts_interval=1s --record rec.rvl >live.out 2>live.err &
AGENT=$!
if ! wait_for 30 grep -q "detecting" live.err; then
	not_ok "the agent learned"
	show live.err
	it_finish
fi
sleep 3

echo pool >control
echo 1500 >"$ROOT/sys/class/net/eno1/mtu"
T_ON=$(date +%s.%N)
sleep 5
curl -s "http://127.0.0.1:$PORT/api/v1/facts" >facts.json
curl -s "http://127.0.0.1:$PORT/metrics" >held.prom
sleep $((HOLD_S - 5))
echo rest >control
T_OFF=$(date +%s.%N)
sleep 12
kill -TERM "$AGENT"
wait "$AGENT"
RC=$?
AGENT=
kill "$HOST" 2>/dev/null
check "the agent stops on SIGTERM, exit 0 (got $RC)" test "$RC" -eq 0

# the facts
check "the MTU change is logged" grep -q "fact net.eno1.mtu changed: 9000 -> 1500" live.err
check "/api/v1/facts shows the new MTU" \
	test "$(json facts.json '[f["value"] for f in d["facts"] if f["fact"] == "net.eno1.mtu"]')" = "['1500']"
check "... and the change" \
	test "$(json facts.json '[(c["from"], c["to"]) for c in d["changes"] if c["fact"] == "net.eno1.mtu"]')" = "[('9000', '1500')]"
check "/metrics counts it" grep -q '^reveal_fact_changes_total 1$' held.prom
LEVEL=$(sed -n 's/^reveal_level_score //p' held.prom)
check "reveal_level_score is above 1 while the pool is held ($LEVEL)" \
	python3 -c "import sys; sys.exit(0 if float('$LEVEL') > 1 else 1)"

# incidents_ok EVENTS DB WHAT: the one incident of the level shift
incidents_ok() {
	python3 - "$1" "$T_ON" "$T_OFF" >"$3.check" <<'EOF'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
t_on, t_off = float(sys.argv[2]), float(sys.argv[3])
opens = [e for e in ev if e["event"] == "open"]
closes = {e["id"]: e for e in ev if e["event"] == "close"}
print("incidents:", [(e["id"], e["subsystem"], e["start"] - t_on) for e in opens])
assert len(opens) == 1, "one incident"
o = opens[0]
c = closes.get(o["id"])
assert o["subsystem"] == "mem", "mem"
assert o["time"] - t_on <= 3.0, f"opened {o['time'] - t_on:.1f} s after the reservation"
assert c is not None, "closed"
assert c["end"] >= t_off - 1.0, f"ended {c['end'] - t_off:.1f} s after the release"
assert 0 <= c["time"] - t_off <= 10.0, f"closed {c['time'] - t_off:.1f} s after the release"
print("ok", o["id"], c["end"] - o["start"])
EOF
}
if incidents_ok live.jsonl live.db live; then
	ok "live: one mem incident, open through the hold, closed within 10 s of the release"
else
	not_ok "live: one mem incident, open through the hold, closed within 10 s of the release"
	show live.check
fi
CAUSE=$(sqlite3 live.db "SELECT rule_id || ':' || role FROM incident_causes ORDER BY rank LIMIT 1")
check "live: its cause, decided on the onset, is hugepage-misconfiguration ($CAUSE)" \
	test "$CAUSE" = "hugepage-misconfiguration:onset"

# the replay of the recording
# shellcheck disable=SC2012 # one file, a known name pattern
REC=$(ls rec.*.rvl 2>/dev/null | head -1)
(agent --replay "$REC" --listen "" --store replay.db --events replay.jsonl \
	--state-dir replay) >replay.out 2>err.txt
RC=$?
expect_rc "the replay of the live recording" 0
strip() {
	sed 's/"time": *[0-9.e+-]*, *//; s/,"consumers":\[.*\]}$/}/' "$1"
}
strip live.jsonl >live.ev
strip replay.jsonl >replay.ev
if cmp -s live.ev replay.ev; then
	ok "the replay reports the live incident (open and close, span, subsystem, signals)"
else
	not_ok "the replay reports the live incident"
	diff live.ev replay.ev | cut -c1-200 | sed -n '1,10s/^/    # /p'
fi
CAUSE=$(sqlite3 replay.db "SELECT rule_id FROM incident_causes ORDER BY rank LIMIT 1")
check "replay: the same cause ($CAUSE)" test "$CAUSE" = "hugepage-misconfiguration"
it_finish
