#!/bin/sh
# fleet_read.sh - bench/fleet_read.c against a VictoriaMetrics of its own:
# starts `victoria-metrics` (Debian package) on a temporary folder and a
# loopback port, fills it with NODES x CHANNELS series of POINTS summaries
# at INTERVAL seconds ending now (fleet_read --load), flushes it and
# prints its disk use and RSS, then times the read of that hour the way
# `reveal fleet` reads it, one query_range per channel (fleet_read --read),
# with compressed answers and again without; stops VictoriaMetrics and
# removes the folder, also when interrupted.
#
#   cmake --build build --target fleet_read
#   bench/fleet_read.sh                      # 1000 nodes x 400 channels, 1 h at 10 s
#   NODES=100 CHANNELS=40 bench/fleet_read.sh
#
# Then `reveal fleet` (REVEAL, default BUILD/reveal) analyses that hour of
# every group (NODES / 100 groups): its wall time, peak RSS and what it
# read.
#
# Environment: NODES (1000), CHANNELS (400), INTERVAL (10, whole seconds),
# POINTS (360), THREADS (2), PORT (28429), BUILD (build), TMPDIR (/tmp),
# READS (1; 0 leaves out the raw reads), REVEAL (BUILD/reveal).
set -eu

cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
NODES=${NODES:-1000}
CHANNELS=${CHANNELS:-400}
INTERVAL=${INTERVAL:-10}
POINTS=${POINTS:-360}
THREADS=${THREADS:-2}
PORT=${PORT:-28429}
BIN=$BUILD/fleet_read
URL=http://127.0.0.1:$PORT

if [ ! -x "$BIN" ]; then
	echo "fleet_read.sh: no $BIN (cmake --build $BUILD --target fleet_read)" >&2
	exit 2
fi
command -v victoria-metrics >/dev/null || { echo "fleet_read.sh: no victoria-metrics" >&2; exit 2; }

DIR=$(mktemp -d "${TMPDIR:-/tmp}/fleet_read.XXXXXX")
victoria-metrics -storageDataPath="$DIR/data" -httpListenAddr="127.0.0.1:$PORT" \
	-search.latencyOffset=0s -loggerLevel=ERROR >"$DIR/vm.log" 2>&1 &
VM=$!
cleanup() {
	kill "$VM" 2>/dev/null || true
	wait "$VM" 2>/dev/null || true
	rm -rf "$DIR"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

i=0
until curl -sf "$URL/health" >/dev/null 2>&1; do
	i=$((i + 1))
	if [ "$i" -gt 300 ]; then
		echo "fleet_read.sh: victoria-metrics did not start in 30 s:" >&2
		cat "$DIR/vm.log" >&2
		exit 1
	fi
	sleep 0.1
done

vm_state() {	# vm_state WHEN: its disk use and RSS
	curl -sf "$URL/internal/force_flush" >/dev/null || true
	echo "vm $1: disk_kib $(du -sk "$DIR/data" | cut -f1)" \
		"rss_kib $(sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\).*/\1/p' "/proc/$VM/status")"
}

END=$(( $(date +%s) / INTERVAL * INTERVAL ))
ARGS="--url $URL --nodes $NODES --channels $CHANNELS --interval $INTERVAL --points $POINTS --end $END --threads $THREADS"
echo "victoria-metrics $(dpkg-query -W -f '${Version}' victoria-metrics 2>/dev/null || echo '?'), $(nproc) CPUs"
# shellcheck disable=SC2086
"$BIN" $ARGS --load
vm_state "after load"
if [ "${READS:-1}" != 0 ]; then
	# shellcheck disable=SC2086
	"$BIN" $ARGS --read --gzip 1
	# shellcheck disable=SC2086
	"$BIN" $ARGS --read --gzip 0
	vm_state "after reads"
fi
# `reveal fleet` itself over that hour: discovery, the reads, the analysis
# of every group (NODES / 100 groups), the report; its wall time and peak RSS
REVEAL=${REVEAL:-$BUILD/reveal}
if [ -x "$REVEAL" ]; then
	START=$((END - (POINTS - 1) * INTERVAL))
	/usr/bin/time -f "reveal fleet: %e s wall, %U s user, %M KiB peak RSS" \
		"$REVEAL" fleet -q --prometheus "$URL" --selector 'cluster="bench"' --since "$START" \
		--until "$END" --step "${INTERVAL}s" --format json -o "$DIR/fleet.json"
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))["fleet"]; print("reveal fleet: %d nodes, %d channels, %d windows, %d requests, %.0f MB read in %.1f s, analysis %.1f s" % (d["nodes"], d["channels"], d["windows"], d["requests"], d["bytes"] / 1e6, d["read_s"], d["analyse_s"]))' "$DIR/fleet.json"
fi
