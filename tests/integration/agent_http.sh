#!/bin/sh
# agent_http.sh - the agent's HTTP endpoint stays answerable while other
# clients hold connections open (docs/AGENT.md, HTTP).
#
# A live agent (learning, so no model is needed) with http.idle_timeout 4s
# and the other http keys at their defaults (32 connections, 8 per client):
# 1. One client (127.0.0.1) opens 300 TCP connections and holds them
#    without a request: the agent keeps 8 of them and closes the rest at
#    once (none waits in the accept queue).
# 2. Meanwhile /metrics and /api/v1/status from another address (curl
#    --interface 127.0.0.2) answer within 2 s; a 9th connection of the full
#    client is refused within 2 s rather than queued; sampling goes on.
# 3. After the idle timeout the agent has closed the 8 idle connections and
#    127.0.0.1 is served again within 2 s.
# 4. A client trickling its request header a byte every 0.5 s (never idle
#    for 4 s) is cut off at the request deadline, 2 x the idle timeout.
#
# Loopback addresses only (all of 127/8 is this host on Linux). Needs curl
# and python3 (the holding and trickling clients). About 15 s; every wait is
# bounded and the helpers stop by themselves.

. "$SRC/tests/integration/lib.sh.inc"
it_setup

for tool in curl python3; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		not_ok "$tool is installed (scripts/install-deps.sh)"
		it_finish
	fi
done

IDLE_S=4          # http.idle_timeout
PER_CLIENT=8      # http.per_client_connections (the default)
NHOLD=300         # idle connections of one client
HOLD_S=12         # how long the holder keeps them at most
MAX_ANSWER_S=2    # a scrape slower than this fails the test

AGENT='' HOLDER='' TRICKLER=''
cleanup_procs() {
	for p in $AGENT $HOLDER $TRICKLER; do
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
}
trap 'cleanup_procs; it_cleanup' EXIT

PORT=$(python3 -c '
import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])')

# hold.py PORT N SECONDS: opens N connections from 127.0.0.1 and keeps
# them for SECONDS; writes "connected C failed F" to held.txt once done,
# then every 0.2 s the number the server has not closed to open.txt.
cat >hold.py <<'EOF'
import os, select, socket, sys, time
port, n, hold = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
end = time.monotonic() + hold
socks, failed = [], 0
for _ in range(n):
    s = socket.socket()
    s.settimeout(3)
    try:
        s.connect(("127.0.0.1", port))
        socks.append(s)
    except OSError:
        failed += 1
        s.close()
with open("held.txt", "w") as f:
    f.write("connected %d failed %d\n" % (len(socks), failed))
poll = select.poll()
for s in socks:
    poll.register(s, select.POLLIN)
while time.monotonic() < end:
    # nothing was sent: a readable socket is one the server closed
    closed = len(poll.poll(0))
    with open("open.tmp", "w") as f:
        f.write("%d\n" % (len(socks) - closed))
    os.rename("open.tmp", "open.txt")
    time.sleep(0.2)
EOF

# trickle.py PORT SRC LIMIT: sends a request header from SRC a byte every
# 0.5 s; prints the seconds until the server closed the connection, or
# "open" after LIMIT seconds.
cat >trickle.py <<'EOF'
import socket, sys, time
port, src, limit = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
s = socket.create_connection(("127.0.0.1", port), timeout=3, source_address=(src, 0))
t0 = time.monotonic()
s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Pad: ")
s.settimeout(0.5)
result = "open"
while time.monotonic() - t0 < limit:
    try:
        s.recv(1)            # end of file, a reset or an answer: cut off
        result = "%.1f" % (time.monotonic() - t0)
        break
    except socket.timeout:
        try:
            s.send(b"a")
        except OSError:
            result = "%.1f" % (time.monotonic() - t0)
            break
    except OSError:
        result = "%.1f" % (time.monotonic() - t0)
        break
print(result)
EOF

# scrape SRC PATH OUT: GET http://127.0.0.1:PORT/PATH from source address
# SRC into OUT; sets CODE (000: no answer) and SECS (curl's total time).
scrape() {
	set -- "$1" "$2" "$3" "$(curl -s -o "$3" -w '%{http_code} %{time_total}' --max-time 5 \
		--interface "$1" "http://127.0.0.1:$PORT$2" 2>/dev/null)"
	CODE=${4%% *}
	SECS=${4#* }
}

# prompt: the last scrape took at most MAX_ANSWER_S.
prompt() {
	awk -v s="$SECS" -v m="$MAX_ANSWER_S" 'BEGIN { exit !(s != "" && s <= m) }'
}

metric() {
	[ -f "$1" ] && awk -v s="$2" '$1 == s { print $2; exit }' "$1"
}

serving() {
	scrape 127.0.0.1 /api/v1/status st.json && [ "$CODE" = 200 ]
}

open_now() {
	cat open.txt 2>/dev/null
}

open_is() {
	[ "$(open_now)" = "$1" ]
}

"$REVEAL" agent --listen "127.0.0.1:$PORT" --store "" --events "" --state-dir st \
	--learn 10m --set "http.idle_timeout=${IDLE_S}s" -q >agent.out 2>agent.err &
AGENT=$!
if wait_for 15 serving; then
	ok "the agent serves /api/v1/status on 127.0.0.1:$PORT"
else
	not_ok "the agent serves /api/v1/status on 127.0.0.1:$PORT"
	show agent.err
	it_finish
fi
scrape 127.0.0.2 /metrics m0.txt
S0=$(metric m0.txt reveal_samples_total)

# ------------------------------------------------------------------ 1
echo "# 1. $NHOLD idle connections from 127.0.0.1"
python3 hold.py "$PORT" "$NHOLD" "$HOLD_S" &
HOLDER=$!
python3 trickle.py "$PORT" 127.0.0.3 $((IDLE_S * 5)) >trickle.txt 2>&1 &
TRICKLER=$!
if wait_for 10 test -s held.txt; then
	ok "the holder connected: $(cat held.txt)"
else
	not_ok "the holder connected $NHOLD times within 10 s"
fi
if wait_for 3 open_is "$PER_CLIENT"; then
	ok "the agent keeps $PER_CLIENT of the client's connections and closes the rest at once"
else
	not_ok "the agent keeps $PER_CLIENT of the client's connections (open: $(open_now))"
fi

# ------------------------------------------------------------------ 2
echo "# 2. scrapes while they are held"
scrape 127.0.0.2 /metrics m1.txt
check "/metrics from 127.0.0.2 answers 200 (got $CODE in $SECS s)" test "$CODE" = 200
check "... within $MAX_ANSWER_S s" prompt
check "... with the agent's metrics" grep -qs '^reveal_samples_total ' m1.txt
scrape 127.0.0.2 /api/v1/status s1.json
check "/api/v1/status from 127.0.0.2 answers 200 (got $CODE in $SECS s)" test "$CODE" = 200
check "... within $MAX_ANSWER_S s" prompt
check "... with the agent's state" grep -qs '"state":"learning"' s1.json
scrape 127.0.0.1 /metrics m2.txt
check "a 9th connection of 127.0.0.1 is refused, not served (got $CODE)" test "$CODE" != 200
check "... within $MAX_ANSWER_S s, not queued (took $SECS s)" prompt
S1=$(metric m1.txt reveal_samples_total)
check "sampling goes on (reveal_samples_total $S0 -> $S1)" \
	awk -v a="$S0" -v b="$S1" 'BEGIN { exit !(a != "" && b > a) }'

# ------------------------------------------------------------------ 3
echo "# 3. after the idle timeout (${IDLE_S}s)"
if wait_for $((IDLE_S + 3)) open_is 0; then
	ok "the agent closed the idle connections"
else
	not_ok "the agent closed the idle connections within $((IDLE_S + 3)) s (open: $(open_now))"
fi
scrape 127.0.0.1 /metrics m3.txt
check "/metrics from 127.0.0.1 answers 200 again (got $CODE in $SECS s)" test "$CODE" = 200
check "... within $MAX_ANSWER_S s" prompt
check "the holder stops by itself" wait_for $((HOLD_S + 5)) sh -c "! kill -0 $HOLDER 2>/dev/null"

# ------------------------------------------------------------------ 4
echo "# 4. a client trickling its header"
wait "$TRICKLER"
TRICKLER=
T=$(cat trickle.txt)
check "it is cut off near the request deadline of $((IDLE_S * 2)) s (after $T s)" \
	awk -v t="$T" -v d=$((IDLE_S * 2)) 'BEGIN { exit !(t != "open" && t >= d - 1 && t <= d + 2) }'

check "the agent is still running" kill -0 "$AGENT"
kill -TERM "$AGENT"
wait "$AGENT"
RC=$?
AGENT=
check "it stops cleanly on SIGTERM (exit $RC)" test "$RC" -eq 0
it_finish
