#!/bin/sh
# agent_rediscover.sh - the agent's rediscovery keeps its configuration:
# `reveal agent` on the memhost fixture tree with collect.exclude and
# collect.rediscover 1s runs through several rediscoveries, the excluded
# source stays out (a rediscovery that forgot it would find new channels
# and say "the channels changed", learning again) and SIGTERM ends it with
# status 0. The exclude list the collector borrows used to live on a stack
# frame that had returned: the first rediscovery read it and the agent
# died (SIGSEGV) a minute after start. ASAN_OPTIONS asks a sanitizer build
# to catch any such use after return at once.
#
# A slow interval above the sampling interval is also set, so that the
# sources paced by it (proc.fs here) go through rediscoveries too.

. "$SRC/tests/integration/lib.sh.inc"
it_setup

ROOT="$SRC/tests/fixtures/collect/memhost"
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_stack_use_after_return=1"
export ASAN_OPTIONS

"$REVEAL" agent --set collect.root="$ROOT" --listen "" --store "" --state-dir state \
	--learn 3s --interval 100ms --set refit=0 --set detect.window=5 --set detect.step=2 \
	--set "collect.exclude=[proc.loadavg]" --set collect.rediscover=1s \
	--set collect.slow_interval=300ms >agent.out 2>agent.err &
pid=$!
# about four rediscoveries after learning
i=0
while [ $i -lt 60 ] && kill -0 "$pid" 2>/dev/null; do
	sleep 0.1
	i=$((i + 1))
done
kill -TERM "$pid" 2>/dev/null
wait "$pid"
rc=$?
check "agent exits 0 on SIGTERM after rediscoveries (status $rc)" test "$rc" -eq 0
[ "$rc" -eq 0 ] || show agent.err
check "the excluded source is reported excluded" \
	grep -q "source proc.loadavg unavailable: excluded by configuration" agent.err
check "learning done, detecting" grep -q "detecting" agent.err
if grep -q "channels changed" agent.err; then
	not_ok "rediscovery found the same channels (proc.loadavg still excluded)"
	show agent.err
else
	ok "rediscovery found the same channels (proc.loadavg still excluded)"
fi
check "no sanitizer report" sh -c '! grep -q "ERROR: AddressSanitizer\|runtime error:" agent.err'

it_finish
