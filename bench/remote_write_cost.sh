#!/bin/sh
# remote_write_cost.sh - what one agent's remote write costs the storage:
# bytes per second on the wire, samples per second and active series per
# node, at the default settings (or INTERVAL), measured on this host.
#
#   sh bench/remote_write_cost.sh [DURATION_S] [INTERVAL]
#
# Starts VictoriaMetrics (Debian package) on a temporary folder and a
# loopback port, and `build/reveal agent` with remote_write.url pointing at
# it (every other key at its default but learn, 30 s, and refit off) for
# DURATION_S seconds (default 300); then reads the agent's own counters
# (reveal_remote_write_bytes_total, _samples_total, _requests_total) and
# asks the storage how many series the node has. Prints one line per
# number; docs/SCALING.md quotes them with this command.
set -eu
DUR=${1:-300}
INTERVAL=${2:-10s}
REVEAL=${REVEAL:-build/reveal}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/rw-cost.XXXXXX")
port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
VP=$(port)
AP=$(port)
cleanup() {
	kill "${AGENT:-}" "${VM:-}" 2>/dev/null || true
	wait 2>/dev/null || true
	rm -rf "$TMP"
}
trap cleanup EXIT INT TERM

victoria-metrics -storageDataPath="$TMP/vm" -httpListenAddr="127.0.0.1:$VP" \
	-search.latencyOffset=0s -loggerLevel=ERROR >"$TMP/vm.log" 2>&1 &
VM=$!
sleep 2
"$REVEAL" agent -q --listen "127.0.0.1:$AP" --store "" --state-dir "$TMP/state" --learn 30s \
	--set refit=0 --set host=cost-node --set remote_write.url="http://127.0.0.1:$VP/api/v1/write" \
	--set remote_write.interval="$INTERVAL" >"$TMP/agent.log" 2>&1 &
AGENT=$!
sleep "$DUR"
curl -sf "http://127.0.0.1:$AP/metrics" >"$TMP/metrics.txt"
up=$(awk '$1 == "reveal_uptime_seconds" { print $2 }' "$TMP/metrics.txt")
val() {
	awk -v n="$1" '$1 == n { print $2 }' "$TMP/metrics.txt"
}
bytes=$(val reveal_remote_write_bytes_total)
samples=$(val reveal_remote_write_samples_total)
reqs=$(val reveal_remote_write_requests_total)
curl -sf "http://127.0.0.1:$VP/internal/force_flush" >/dev/null || true
sleep 2
series=$(curl -sf "http://127.0.0.1:$VP/api/v1/series" -d 'match[]={node="cost-node"}' |
	python3 -c 'import json, sys; print(len(json.load(sys.stdin)["data"]))')
chans=$(curl -sf "http://127.0.0.1:$VP/api/v1/series" -d 'match[]=reveal_channel_mean{node="cost-node"}' |
	python3 -c 'import json, sys; print(len(json.load(sys.stdin)["data"]))')
echo "interval:            $INTERVAL"
echo "agent uptime:        $up s"
echo "requests:            $reqs"
echo "samples:             $samples ($(python3 -c "print(round($samples / $up, 1))") per second)"
echo "bytes on the wire:   $bytes ($(python3 -c "print(round($bytes / $up, 1))") per second, $(python3 -c "print(round($bytes / max($reqs, 1)))") per request, snappy-compressed protobuf)"
echo "series of the node:  $series ($chans channels' means)"
echo "vm disk:             $(du -sk "$TMP/vm" | cut -f1) KiB after $DUR s"
