#!/bin/sh
# remote_write_outage.sh - the agent's remote write while its receiver is
# away for a minute: the agent keeps sampling and scoring, its queue stays
# within remote_write.queue_size, what did not fit is counted as dropped on
# /metrics, and delivery resumes when the receiver is back.
#
# A live agent (100 ms samples, 10 s of learning, summaries every second,
# a queue of 64 KiB: a few seconds of requests) writes into a real
# Prometheus (Debian package, remote-write receiver on, loopback). Once
# samples arrive, Prometheus is stopped for 60 s and started again on the
# same port and data folder.
#
# Needs prometheus, curl and python3 (scripts/install-deps.sh).

. "$SRC/tests/integration/lib.sh.inc"
it_setup

need_tools prometheus curl python3

AP=$(free_port)
PP=$(free_port)
AURL="http://127.0.0.1:$AP"
PURL="http://127.0.0.1:$PP"
QUEUE=65536
printf 'global:\n  scrape_interval: 15s\n' >prom.yml

start_prom() {
	prometheus --config.file=prom.yml --storage.tsdb.path=prom-data \
		--web.enable-remote-write-receiver --web.listen-address="127.0.0.1:$PP" \
		--log.level=error >>prom.log 2>&1 &
	PROM=$!
}
cleanup_procs() {
	for p in ${AGENT:-} ${PROM:-}; do
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
}
trap 'cleanup_procs; it_cleanup' EXIT

start_prom
check "Prometheus starts" wait_for 30 curl -sf "$PURL/-/ready" -o /dev/null

"$REVEAL" agent --listen "127.0.0.1:$AP" --store "" --state-dir state --learn 10s \
	--set refit=0 --set host=outage-node --set remote_write.url="$PURL/api/v1/write" \
	--set remote_write.interval=1s --set remote_write.queue_size=$QUEUE \
	--set remote_write.labels=cluster=it >agent.out 2>agent.err &
AGENT=$!

# metric NAME: its value on the agent's /metrics (empty when absent)
metric() {
	curl -sf "$AURL/metrics" | awk -v n="$1" '$1 == n { print $2 }'
}
# prom_value QUERY: the value of an instant query's first result as a
# whole number; 0 when it has none, -1 when Prometheus does not answer
prom_value() {
	curl -sf "$PURL/api/v1/query" --data-urlencode "query=$1" |
		python3 -c '
import json, sys
try:
    r = json.load(sys.stdin)["data"]["result"]
    print(int(float(r[0]["value"][1])) if r else 0)
except ValueError:
    print(-1)'
}
CHAN='reveal_channel_mean{node="outage-node",channel="cpu.busy_pct"}'
# stored: how many samples of one channel of the node Prometheus holds
stored() {
	prom_value "count_over_time($CHAN[10m])"
}
delivering() {
	[ "$(stored)" -ge 3 ] 2>/dev/null
}
detecting() {
	[ "$(metric reveal_learning)" = 0 ]
}
if wait_for 60 delivering; then
	ok "summaries arrive in Prometheus"
else
	not_ok "summaries arrive in Prometheus"
	show agent.err
fi
check "the agent detects" wait_for 60 detecting
SENT0=$(metric reveal_remote_write_samples_total)
SCORED0=$(metric reveal_windows_scored_total)
check "the agent counts delivered samples ($SENT0)" test "${SENT0:-0}" -gt 0

BEFORE=$(stored)
kill "$PROM"
wait "$PROM" 2>/dev/null
DOWN_AT=$(date +%s)
MAXQ=0
while [ $(($(date +%s) - DOWN_AT)) -lt 60 ]; do
	q=$(metric reveal_remote_write_queue_bytes)
	[ "${q:-0}" -gt "$MAXQ" ] && MAXQ=$q
	sleep 2
done
curl -sf "$AURL/metrics" >down.txt
check "while the receiver is away, /metrics says so (reveal_remote_write_up 0)" \
	grep -q '^reveal_remote_write_up 0$' down.txt
check "the queue stayed within its bound ($MAXQ <= $QUEUE bytes)" test "$MAXQ" -le "$QUEUE"
check "the queue held requests meanwhile ($MAXQ bytes at most)" test "$MAXQ" -gt 0
DROPPED=$(awk '$1 == "reveal_remote_write_dropped_samples_total" { print $2 }' down.txt)
check "what did not fit was counted as dropped ($DROPPED samples)" test "${DROPPED:-0}" -gt 0
SCORED1=$(awk '$1 == "reveal_windows_scored_total" { print $2 }' down.txt)
check "the agent kept scoring windows ($SCORED0 -> $SCORED1)" test "${SCORED1:-0}" -gt $((SCORED0 + 40))
check "the agent is still running" kill -0 "$AGENT"
check "it logged the failure once" test "$(grep -c 'remote_write.*retrying' agent.err)" -eq 1

start_prom
UP_AT=$(date +%s)
check "Prometheus is back" wait_for 30 curl -sf "$PURL/-/ready" -o /dev/null
# newest: the time of the newest sample of that channel
newest() {
	prom_value "timestamp($CHAN)"
}
more() {
	[ "$(stored)" -gt "$((BEFORE + 3))" ] && [ "$(newest)" -gt "$UP_AT" ]
}
if wait_for 40 more; then
	ok "delivery resumes: samples of the outage's end and newer ($BEFORE -> $(stored) of cpu.busy_pct)"
else
	not_ok "delivery resumes: samples of the outage's end and newer ($BEFORE -> $(stored), newest $(newest), back at $UP_AT)"
	show agent.err
fi
check "/metrics says so (reveal_remote_write_up 1)" \
	sh -c "curl -sf '$AURL/metrics' | grep -q '^reveal_remote_write_up 1\$'"
check "it logged the recovery" grep -q 'remote_write.*delivering again' agent.err

kill -TERM "$AGENT"
wait "$AGENT"
RC=$?
AGENT=
check "the agent stops cleanly (exit $RC)" test "$RC" -eq 0
it_finish
