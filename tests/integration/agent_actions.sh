#!/bin/sh
# agent_actions.sh - incident actions (docs/AGENT.md, "Actions"): a
# command action receives the incident's JSON, a webhook action posts to
# a local receiver, a failing and a hanging action are counted, time out
# and never delay detection; and the worked examples of deploy/actions/.
#
# 1. The agent replays tests/fixtures/eval/short-2026-12-05 (a recording
#    with real incidents) as fast as it can, with three actions on open
#    and close: `append` (sh -c 'cat >> actions.jsonl'), `hang` (sleep 31.7,
#    timeout 2s) and `hook` (a webhook to a python3 server that answers
#    500). Every line `append` wrote is a line of the events file (the same
#    JSON: event open or close, the same ids); the stop summary counts each
#    action's runs and drops, and every event is one or the other; `hook`'s
#    receiver got each failed run's POST with Content-Type application/json
#    and that line as its body; the failures are logged once each.
# 2. The same replay without actions reports the same events, to the
#    byte (the windows scored and the incidents are the same), and the one
#    with the hanging action took at most its timeout (the run in progress
#    at the stop) and a few seconds more: the detection loop never waited
#    on it (it would have waited 2 s per event).
# 3. Replayed at 25 times real time with the HTTP server on, /metrics
#    shows reveal_action_runs_total, _dropped_total, _seconds, _queue and
#    _failing with their HELP and TYPE lines while the agent runs.
# 4. A live agent reloaded (SIGHUP) with other actions logs that they
#    change at the next restart, and stops cleanly.
# 5. deploy/actions/k8s-taint.sh and slurm-drain.sh with stub kubectl,
#    scontrol and hostname on PATH that log their arguments.
#
# Needs python3 and curl. About 20 s (release build), 25 s under ASan.

. "$SRC/tests/integration/lib.sh.inc"
it_setup
need_tools python3 curl

REC="$SRC/tests/fixtures/eval/short-2026-12-05/eval.1796467597.rvl"
HANG_S=2

SERVER='' AGENT=''
cleanup_procs() {
	for p in $SERVER $AGENT; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
}
trap 'cleanup_procs; it_cleanup' EXIT

# agent ARGS...: the replay with the recording's settings (learning 90 s
# at 200 ms, as the live run did)
agent() {
	"$REVEAL" agent --replay "$REC" --interval 200ms --learn 90s --store "" \
		--set refit=0 "$@"
}

now() {
	date +%s.%N
}

# summary NAME FIELD: a number of the stop summary of action NAME in
# err.txt ("action NAME: 6 runs: 6 ok, 0 failed, 0 timed out; 0 dropped")
summary() {
	sed -n "s/^.*action $1: [0-9]* runs: \\([0-9]*\\) ok, \\([0-9]*\\) failed, \\([0-9]*\\) timed out; \\([0-9]*\\) dropped\$/\\1 \\2 \\3 \\4/p" err.txt |
		awk -v f="$2" 'BEGIN { i = f == "ok" ? 1 : f == "failed" ? 2 : f == "timeout" ? 3 : 4 } { print $i }'
}

# ------------------------------------------------- a receiver that says 500

cat >hook.py <<'EOF'
import http.server, os, sys, time
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        with open("hook.txt", "ab") as f:
            f.write(self.headers.get("Content-Type", "").encode() + b"\t" + body)
        self.send_response(500)
        self.send_header("Content-Length", "4")
        self.end_headers()
        self.wfile.write(b"busy")
    def log_message(self, *args):
        pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
with open("port.tmp", "w") as f:
    f.write(str(s.server_port))
os.rename("port.tmp", "port")
s.timeout = 0.2
end = time.time() + float(sys.argv[1])
while time.time() < end:
    s.handle_request()
EOF
python3 hook.py 120 &
SERVER=$!
wait_for 10 test -s port || true
HOOK_PORT=$(cat port 2>/dev/null)
check "the webhook receiver listens (port ${HOOK_PORT:-none})" test -n "$HOOK_PORT"

cat >actions.yaml <<EOF
actions:
  - name: append
    on: [open, close]
    command: ["/bin/sh", "-c", "cat >> '$IT_TMP/actions.jsonl'"]
  - name: hang
    on: [open, close]
    command: ["sleep", "31.7"]
    timeout: ${HANG_S}s
  - name: hook
    on: [open, close]
    webhook: "http://127.0.0.1:$HOOK_PORT/hook"
    headers: ["X-Team: infra"]
    timeout: 5s
EOF

# ----------------------------------------------------- 1. the three actions

T0=$(now)
agent --config actions.yaml --listen "" --state-dir with --events with.jsonl >out.txt 2>err.txt
RC=$?
T1=$(now)
expect_rc "the replay with three actions" 0
expect_err "the agent names its actions" "agent: 3 incident actions: append, hang, hook"
N=$(wc -l <with.jsonl)
check "the replay reported incidents ($N event lines)" test "$N" -ge 2

if python3 - with.jsonl actions.jsonl <<'EOF'
import json, sys
events = open(sys.argv[1]).read().splitlines()
seen = open(sys.argv[2]).read().splitlines()
assert seen, "append wrote nothing"
for line in seen:
    d = json.loads(line)
    assert d["event"] in ("open", "close"), d["event"]
    assert line in events, "not an events line: " + line[:120]
ids = [(json.loads(l)["id"], json.loads(l)["event"]) for l in seen]
assert len(set(ids)) == len(ids), "an event acted on twice"
EOF
then
	ok "every line the command action got is JSON, open or close, and a line of the events file"
else
	not_ok "every line the command action got is JSON, open or close, and a line of the events file"
	show actions.jsonl
fi

A_OK=$(summary append ok) A_DROP=$(summary append dropped)
check "append: ok runs ($A_OK) are the lines it wrote ($(wc -l <actions.jsonl))" \
	test "${A_OK:-x}" = "$(wc -l <actions.jsonl | tr -d ' ')"
check "append: ok ($A_OK) + dropped ($A_DROP) = the events ($N), none failed" \
	test "$((${A_OK:-0} + ${A_DROP:-0}))" -eq "$N" -a "$(summary append failed)" = 0

H_TO=$(summary hang timeout) H_DROP=$(summary hang dropped)
check "hang: timed out ($H_TO) at least once, never ok or failed" \
	test "${H_TO:-0}" -ge 1 -a "$(summary hang ok)" = 0 -a "$(summary hang failed)" = 0
check "hang: timed out ($H_TO) + dropped ($H_DROP) = the events ($N)" \
	test "$((${H_TO:-0} + ${H_DROP:-0}))" -eq "$N"
check "hang: the timeout is logged once" \
	test "$(grep -c "action hang: incident [0-9]* [a-z]*: timed out after $HANG_S s (process group killed)" err.txt)" -eq 1
check "no sleep of the hanging action is left" sh -c '! pgrep -f "^sleep 31.7$" >/dev/null'

W_F=$(summary hook failed) W_DROP=$(summary hook dropped)
check "hook: failed ($W_F) + dropped ($W_DROP) = the events ($N), none ok" \
	test "$((${W_F:-0} + ${W_DROP:-0}))" -eq "$N" -a "$(summary hook ok)" = 0 -a "${W_F:-0}" -ge 1
check "hook: the HTTP 500 is logged once, with the answer" \
	test "$(grep -c 'action hook: incident [0-9]* [a-z]*: HTTP 500: busy' err.txt)" -eq 1
if python3 - with.jsonl hook.txt "${W_F:-0}" <<'EOF'
import sys
events = open(sys.argv[1]).read().splitlines()
got = open(sys.argv[2]).read().splitlines()
assert len(got) == int(sys.argv[3]), "%d posts, %s failed runs" % (len(got), sys.argv[3])
for line in got:
    ctype, body = line.split("\t", 1)
    assert ctype == "application/json", ctype
    assert body in events, body[:120]
EOF
then
	ok "the receiver got one POST per failed run: application/json, an events line"
else
	not_ok "the receiver got one POST per failed run: application/json, an events line"
	show hook.txt
fi

# ------------------------------------------------ 2. detection never waited

T2=$(now)
agent --listen "" --state-dir without --events without.jsonl >out.txt 2>err2.txt
RC=$?
T3=$(now)
expect_rc "the same replay without actions" 0
if cmp -s with.jsonl without.jsonl; then
	ok "the actions changed no event (the same windows and incidents)"
else
	not_ok "the actions changed no event"
	diff with.jsonl without.jsonl | cut -c1-160 | sed -n '1,6s/^/    # /p'
fi
EXTRA=$(awk -v a="$T0" -v b="$T1" -v c="$T2" -v d="$T3" 'BEGIN { printf "%.1f", (b - a) - (d - c) }')
check "the hanging action cost the replay ${EXTRA} s, under ${HANG_S} s + 4 s (it blocks for ${HANG_S} s per event otherwise)" \
	awk -v x="$EXTRA" -v h="$HANG_S" 'BEGIN { exit !(x < h + 4) }'

# ---------------------------------------------------------------- 3. /metrics

PORT=$(free_port)
sed "s/timeout: ${HANG_S}s/timeout: 1s/" actions.yaml >metrics.yaml
agent --config metrics.yaml --speed 25 --listen "127.0.0.1:$PORT" --state-dir live \
	--events live.jsonl >out.txt 2>err3.txt &
AGENT=$!
counted() {
	curl -sf --max-time 2 "http://127.0.0.1:$PORT/metrics" >m.tmp 2>/dev/null || return 1
	mv m.tmp metrics.txt
	grep -q '^reveal_action_runs_total{action="append",result="ok"} [1-9]' metrics.txt &&
		grep -q '^reveal_action_runs_total{action="hook",result="failed"} [1-9]' metrics.txt &&
		grep -q '^reveal_action_runs_total{action="hang",result="timeout"} [1-9]' metrics.txt
}
if wait_for 40 counted; then
	ok "/metrics counts the runs while the agent replays"
else
	not_ok "/metrics counts the runs while the agent replays"
	show metrics.txt
fi
for fam in "reveal_action_runs_total counter" "reveal_action_dropped_total counter" \
	"reveal_action_seconds summary" "reveal_action_queue gauge" "reveal_action_failing gauge"; do
	# shellcheck disable=SC2086 # two words
	set -- $fam
	check "/metrics: # HELP and # TYPE $1 $2" \
		sh -c "grep -q '^# HELP $1 ' metrics.txt && grep -q '^# TYPE $1 $2\$' metrics.txt"
done
check "/metrics: a sample of each" sh -c "
	grep -q '^reveal_action_dropped_total{action=\"hang\"} [0-9]' metrics.txt &&
	grep -q '^reveal_action_seconds_sum{action=\"hang\"} [0-9.]' metrics.txt &&
	grep -q '^reveal_action_seconds_count{action=\"append\"} [1-9]' metrics.txt &&
	grep -q '^reveal_action_queue{action=\"hook\"} [0-9]' metrics.txt &&
	grep -q '^reveal_action_failing{action=\"hook\"} 1\$' metrics.txt &&
	grep -q '^reveal_action_failing{action=\"append\"} 0\$' metrics.txt"
wait "$AGENT"
RC=$?
AGENT=
check "the replay at speed 25 ends with status 0 (got $RC)" test "$RC" -eq 0

# ------------------------------------------- 4. SIGHUP: at the next restart

# a live agent (learning: no incident) whose actions change under it
"$REVEAL" agent --config actions.yaml --interval 100ms --listen "" --store "" \
	--state-dir hup >out.txt 2>hup.txt &
AGENT=$!
wait_for 20 grep -q "incident actions: append, hang, hook" hup.txt
sed 's/name: hook/name: hook2/' actions.yaml >changed.yaml && mv changed.yaml actions.yaml
kill -HUP "$AGENT"
if wait_for 10 grep -q "SIGHUP: actions changes at the next restart" hup.txt; then
	ok "SIGHUP: the log says the actions change at the next restart"
else
	not_ok "SIGHUP: the log says the actions change at the next restart"
	show hup.txt
fi
kill -TERM "$AGENT"
wait "$AGENT"
RC=$?
AGENT=
check "the live agent with actions stops on SIGTERM with status 0 (got $RC)" test "$RC" -eq 0

# ------------------------------------------------- 5. the worked examples

mkdir bin
for tool in kubectl scontrol; do
	cat >"bin/$tool" <<EOF
#!/bin/sh
printf '%s' "$tool" >>"$IT_TMP/calls.txt"
for a in "\$@"; do printf ' [%s]' "\$a" >>"$IT_TMP/calls.txt"; done
echo >>"$IT_TMP/calls.txt"
[ "\${STUB_FAIL:-}" = "" ] || { echo "\$STUB_FAIL" >&2; exit 1; }
EOF
done
# shellcheck disable=SC2016 # the stub's own $1
printf '#!/bin/sh\n[ "${1:-}" = -s ] && echo node7 || echo node7.example\n' >bin/hostname
chmod +x bin/*
K="$SRC/deploy/actions/k8s-taint.sh"
S="$SRC/deploy/actions/slurm-drain.sh"
step() {
	: >calls.txt
	env PATH="$IT_TMP/bin:$PATH" REVEAL_INCIDENT_ID=12 REVEAL_SUBSYSTEM=gpu "$@" \
		</dev/null >step.out 2>step.err
	RC=$?
}
step REVEAL_EVENT=open NODE_NAME=gpu-7 sh "$K"
check "k8s-taint.sh open: kubectl taint nodes gpu-7 reveal.io/anomaly=gpu:NoSchedule --overwrite" \
	test "$RC" -eq 0 -a "$(cat calls.txt)" = "kubectl [taint] [nodes] [gpu-7] [reveal.io/anomaly=gpu:NoSchedule] [--overwrite]"
step REVEAL_EVENT=close NODE_NAME=gpu-7 sh "$K"
check "k8s-taint.sh close: kubectl taint nodes gpu-7 reveal.io/anomaly:NoSchedule-" \
	test "$RC" -eq 0 -a "$(cat calls.txt)" = "kubectl [taint] [nodes] [gpu-7] [reveal.io/anomaly:NoSchedule-]"
step REVEAL_EVENT=open sh "$K"
check "k8s-taint.sh: the node is the host's name without NODE or NODE_NAME" \
	test "$(cat calls.txt)" = "kubectl [taint] [nodes] [node7.example] [reveal.io/anomaly=gpu:NoSchedule] [--overwrite]"
step REVEAL_EVENT=close NODE=n1 STUB_FAIL='error: taint "reveal.io/anomaly:NoSchedule" not found' sh "$K"
check "k8s-taint.sh close of a taint already gone succeeds" test "$RC" -eq 0
step REVEAL_EVENT=open NODE=n1 STUB_FAIL='forbidden' sh "$K"
check "k8s-taint.sh fails when kubectl does" test "$RC" -ne 0
step REVEAL_EVENT=update sh "$K"
check "k8s-taint.sh refuses an event other than open or close (status 2)" test "$RC" -eq 2
step REVEAL_EVENT=open sh "$S"
check "slurm-drain.sh open: scontrol update nodename=node7 state=drain reason=\"reveal: incident 12 gpu\"" \
	test "$RC" -eq 0 -a "$(cat calls.txt)" = "scontrol [update] [nodename=node7] [state=drain] [reason=reveal: incident 12 gpu]"
step REVEAL_EVENT=close sh "$S"
check "slurm-drain.sh close does nothing (a person resumes the node)" \
	test "$RC" -eq 0 -a ! -s calls.txt
it_finish
