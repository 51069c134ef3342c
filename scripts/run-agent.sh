#!/bin/sh
# `make run`: the main job, `reveal agent`, on this host with its embedded
# defaults (deploy/reveal.yaml shows them): it learns this host for 10
# minutes, then detects; the dashboard and the Prometheus endpoint are at
# http://127.0.0.1:9464/ ; incidents go to ./reveal.db and the log. The
# model is kept in REVEAL_STATE (default build/agent), so the next `make
# run` detects at once. Ctrl-C stops it.
#
#   scripts/run-agent.sh [path/to/reveal] [more reveal agent flags]
set -eu
REVEAL=${1:-build/reveal}
[ $# -gt 0 ] && shift
STATE=${REVEAL_STATE:-build/agent}

if [ ! -x "$REVEAL" ]; then
    echo "run-agent.sh: $REVEAL not found; run 'make' first" >&2
    exit 1
fi
mkdir -p "$STATE"
echo "reveal agent: dashboard http://127.0.0.1:9464/ , metrics /metrics; Ctrl-C stops" >&2
exec "$REVEAL" agent --state-dir "$STATE" --store "$STATE/reveal.db" "$@"
