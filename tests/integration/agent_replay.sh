#!/bin/sh
# agent_replay.sh - the replay of the agent's own recording is the live run
# again: `reveal agent --replay` of what `reveal agent --record` wrote
# learns the same model, to the byte, and scores the same windows, so a
# recorded run (eval/faultinject.py --record, then --rescore) can be
# scored again with other settings and reproduces the live verdicts.
#
# The agent watches this host for 17 s (learning 6 s at 100 ms, windows of
# 1 s every 200 ms, the saved model written at the end of learning) while
# two shell loops keep both CPUs busy from the 11th second to the 14th (after
# the quiet windows that follow a fit, which begin when the fit thread ends,
# a sample or more later live than inline in the replay); it
# stops on SIGTERM. The replay of its recording with the same settings
# must write a model file identical to the live one, and the same incident
# events (start, end, windows, peak score, subsystem and top signals; the
# events' own time is when the agent decided, wall clock live, the data's
# time in a replay, and is left out).

. "$SRC/tests/integration/lib.sh.inc"
it_setup

# agent ARGS...: the agent with the settings of both runs; exec, so that
# a background `agent ... &` is the agent itself, for SIGTERM
agent() {
	exec "$REVEAL" agent --interval 100ms --learn 6s --listen "" --store "" \
		--set detect.window=1s --set detect.step=200ms --set refit=0 "$@"
}
LOOPS=
cleanup_procs() {
	for p in $LOOPS; do kill "$p" 2>/dev/null; done
	[ -n "${AGENT:-}" ] && kill "$AGENT" 2>/dev/null
	wait 2>/dev/null
}
trap 'cleanup_procs; it_cleanup' EXIT

agent --state-dir live --events live.jsonl --record rec.rvl \
	>live.out 2>live.err &
AGENT=$!
sleep 11
for _ in 1 2; do
	(end=$(($(date +%s) + 3)); while [ "$(date +%s)" -lt "$end" ]; do :; done) &
	LOOPS="$LOOPS $!"
done
sleep 6
for p in $LOOPS; do kill "$p" 2>/dev/null; done
LOOPS=
kill -TERM "$AGENT"
wait "$AGENT"
RC=$?
AGENT=
check "the live agent stops on SIGTERM, exit 0 (got $RC)" test "$RC" -eq 0
[ "$RC" -eq 0 ] || show live.err
check "it learned and saved its model" test -s live/reveal.model
# shellcheck disable=SC2012 # one file, a known name pattern
REC=$(ls rec.*.rvl 2>/dev/null | head -1)
check "it recorded one segment ($REC)" test -n "$REC" -a "$(ls rec.*.rvl | wc -l)" -eq 1

(agent --replay "$REC" --state-dir replay --events replay.jsonl) \
	>replay.out 2>err.txt
RC=$?
expect_rc "the replay of that recording" 0
check "the replay learned and saved its model" test -s replay/reveal.model
if cmp -s live/reveal.model replay/reveal.model; then
	ok "the replay learned the live model, to the byte"
else
	not_ok "the replay learned the live model, to the byte"
	cmp live/reveal.model replay/reveal.model | sed 's/^/    # /'
fi

# the incident events without their own time, and without the consumers
# (whose workload: measured by a live agent only, from this host's
# processes; a replay measures none)
strip() {
	sed 's/"time": *[0-9.e+-]*, *//; s/,"consumers":\[.*\]}$/}/' "$1"
}
strip live.jsonl >live.ev
strip replay.jsonl >replay.ev
N=$(wc -l <live.ev)
check "the live run reported the busy CPUs ($N event lines)" test "$N" -ge 1
if cmp -s live.ev replay.ev; then
	ok "the replay reports the live run's incident events ($N lines)"
else
	not_ok "the replay reports the live run's incident events"
	diff live.ev replay.ev | cut -c1-200 | sed -n '1,10s/^/    # /p'
fi
it_finish
