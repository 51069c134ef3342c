#!/bin/sh
# fleet-recordings.sh - (re)makes the recordings tests/integration/fleet.sh
# replays as a fleet: five nodes that ran the same training-like job
# (`reveal workload`), each recorded for DUR seconds one after the other on
# this host, so that every node's telemetry is its own. The fifth, the
# straggler, had its job slowed by contention: two busy loops at the job's
# priority from the 15th second to the end.
#
#   sh scripts/fleet-recordings.sh [OUTDIR] [REVEAL]
#
# OUTDIR defaults to tests/fixtures/fleet, REVEAL to build/reveal; DUR (45)
# sets the seconds per node. Run it on a quiet host: what else runs there
# is in every node's recording.
set -eu
OUT=${1:-tests/fixtures/fleet}
REVEAL=${2:-build/reveal}
DUR=${DUR:-45}
mkdir -p "$OUT"
HOGS=
cleanup() {
	for p in $HOGS; do kill "$p" 2>/dev/null || true; done
}
trap cleanup EXIT INT TERM

record_node() {
	name=$1
	"$REVEAL" workload -q --duration "$((DUR + 4))s" &
	job=$!
	sleep 2
	"$REVEAL" record -q -o "$OUT/$name.rvl" --duration "${DUR}s" --exclude perf &
	rec=$!
	if [ "$name" = straggler ]; then
		sleep 15
		for _ in 1 2; do
			(while :; do :; done) &
			HOGS="$HOGS $!"
		done
	fi
	wait "$rec"
	cleanup
	HOGS=
	wait "$job" || true
	echo "$OUT/$name.rvl: $(wc -c <"$OUT/$name.rvl") bytes"
}

for n in node1 node2 node3 node4 straggler; do
	record_node "$n"
done
