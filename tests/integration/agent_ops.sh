#!/bin/sh
# agent_ops.sh - running `reveal agent` as an operator does (issue 4,
# acceptance 3): configuration errors with FILE:LINE:COLUMN, SIGHUP reload,
# a full disk under the store and the recording, replay, SIGTERM.
#
# 1. --check-config and --config on bad files (unknown key, value out of
#    range, bad duration, YAML syntax) exit 2 with FILE:LINE:COLUMN; bad
#    flags exit 2 naming the key.
# 2. SIGHUP applies http.raw_channels at once, names a restart-only key
#    (interval) and keeps running on the old configuration when the new
#    file is invalid.
# 3. Full disk: the agent runs in a private mount namespace over a 4 MiB
#    tmpfs holding the store and the recording, which is then filled
#    (nsenter). Scoring and /metrics go on, record errors are counted in
#    reveal_sink_errors_total and logged once until the disk takes data
#    again; after the disk is freed the log says the recording writes
#    again. The fill is 4 MiB, not a few hundred KiB: an incident open
#    while the disk is full (the fill itself often opens one) is written
#    to the store every few seconds, and the store's WAL can take a small
#    freed space before the recording's next block, which then stays
#    failing (seen in CI with 300 KiB). A block can still be written on
#    the full tmpfs: the writer cuts a failed block back to the last whole
#    one, and a smaller next block fits in the slack of the file's last
#    page (seen in CI); the recording then really did write, says so, and
#    says so again when the next block fails. The check is therefore the
#    sink's contract: one report per failing streak (reports <= recoveries
#    + 1), as for the store, with the writes still failing (errors counted
#    >= 2). Where a mount namespace is not
#    permitted, a file size limit (ulimit -f) stands in for the full disk;
#    the log says which ran.
# 4. Replay of a recording of this host: learning writes the model, a second
#    replay with learn 0 uses it; a file that is not a recording fails.
# 5. SIGTERM while learning stops the agent within 2 s, exit 0.
# 6. Continuous recording with age retention: segments every max_age / 8,
#    the oldest removed once older than max_age, the rest readable.
#
# The polls use curl and grep only: the agent watches this host (see
# agent_live.sh). Needs curl, sqlite3 and python3 (once, for free ports);
# unshare, nsenter and mount (root) for the tmpfs part. Set IT_FORCE_ULIMIT=1
# to run part 3 the fallback way.

. "$SRC/tests/integration/lib.sh.inc"
it_setup

for tool in curl sqlite3 python3; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		not_ok "$tool is installed (scripts/install-deps.sh)"
		it_finish
	fi
done

AGENT=
cleanup_procs() {
	[ -n "$AGENT" ] && kill "$AGENT" 2>/dev/null
	wait 2>/dev/null
}
trap 'cleanup_procs; it_cleanup' EXIT

# Three free ports, taken once: no Python while an agent runs.
# shellcheck disable=SC2046 # three words: the ports
set -- $(python3 -c '
import socket
ss = [socket.socket() for _ in range(3)]
for s in ss: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))')
P_HUP=$1 P_FULL=$2 P_TERM=$3
set --


# get PORT PATH FILE: the body of http://127.0.0.1:PORT/PATH into FILE.
get() {
	curl -sf --max-time 5 "http://127.0.0.1:$1$2" >"$3"
}

detecting() {
	get "$1" /api/v1/status status.json && grep -q '"state":"detecting"' status.json
}

learning() {
	get "$1" /api/v1/status status.json && grep -q '"state":"learning"' status.json
}

# metric FILE SERIES: the value of SERIES (name and labels, as written) in
# the Prometheus text FILE; empty when absent.
metric() {
	awk -v s="$2" '$1 == s { print $2; exit }' "$1"
}

# gt A B: A > B as numbers; empty counts as missing (false).
gt() {
	[ -n "$1" ] && [ -n "$2" ] && awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > b) }'
}

# Short detection windows: learn 3 s (30 samples) yields 11 training
# windows of 10 samples (a fit needs 8; the default 3 s window with 1 s
# steps would need 10 s of learning).
FAST="--set detect.window=1s --set detect.step=200ms --set refit=0"

# ------------------------------------------------------------------ 1
echo "# 1. configuration errors"
cat >unknown.yaml <<'EOF'
interval: 100ms
detect:
  window: 3s
  nope: 1
EOF
run agent --check-config unknown.yaml
expect_rc "--check-config with an unknown key" 2
expect_err "the unknown key is named at its line and column" \
	"^unknown\\.yaml:4:3: unknown key 'nope'"
expect_err_fixed "the known keys of its section are listed" \
	"known: window, step, preset, incident_gap, incident_min, report_severity, minor_min, sustained_min, burst_min, absorb"
check "nothing on stdout for an invalid file" test ! -s out.txt

printf 'interval: 100ms\nhttp:\n  max_connections: 5000\n' >range.yaml
run agent --check-config range.yaml
expect_rc "--check-config with a value out of range" 2
expect_err "the value, its key and the range at line 3" \
	"^range\\.yaml:3:20: http\\.max_connections: '5000' is not in 1\\.\\.1024"

printf 'learn: 1m\nrefit: 5parsecs\n' >duration.yaml
run agent --check-config duration.yaml
expect_rc "--check-config with a bad duration" 2
expect_err "the bad duration is named at line 2" \
	"^duration\\.yaml:2:8: refit: '5parsecs' is not a duration"

printf 'interval: 100ms\ndetect:\n\twindow: 3s\n' >syntax.yaml
run agent --check-config syntax.yaml
expect_rc "--check-config with a YAML syntax error (a tab)" 2
expect_err "the syntax error is placed at line 3" "^syntax\\.yaml:3:1: .*cannot start any token"

printf 'interval: 100ms\nlearn 3s\nrefit: 0\n' >colon.yaml
run agent --check-config colon.yaml
expect_rc "--check-config with a YAML syntax error (a key without ':')" 2
expect_err "the error names the key's line 2" "^colon\\.yaml:[0-9]+:[0-9]+: could not find expected ':' .*at 2:1\\)"

run agent --check-config "$SRC/deploy/reveal.yaml"
expect_rc "--check-config deploy/reveal.yaml" 0
check "it prints valid" grep -q 'reveal\.yaml: valid$' out.txt

printf 'interval: 200ms\nlearn: 30s\nhttp:\n  raw_channels: true\n' >good.yaml
run agent --check-config good.yaml
expect_rc "--check-config on a small valid file" 0
check "it prints 'good.yaml: valid'" grep -qx 'good.yaml: valid' out.txt

run agent --config range.yaml --listen "" --store never.db --state-dir never
expect_rc "--config with a bad file" 2
expect_err "the same FILE:LINE:COLUMN message" \
	"^reveal agent: range\\.yaml:3:20: http\\.max_connections: '5000' is not in 1\\.\\.1024"
check "nothing was started: no state dir, no store" test ! -e never -a ! -e never.db

run agent --set detect.nope=1 --listen "" --store "" --state-dir never
expect_rc "--set detect.nope=1" 2
expect_err_fixed "the key is named" "unknown key 'detect.nope'"
run agent --interval 5parsecs --listen "" --store "" --state-dir never
expect_rc "--interval 5parsecs" 2
expect_err "the key and the value are named" "interval: '5parsecs' is not a duration"
run agent --set nokey --listen "" --store "" --state-dir never
expect_rc "--set without =" 2
expect_err_fixed "it asks for KEY=VALUE" "--set nokey: want KEY=VALUE"
check "no flag error started anything" test ! -e never

# ------------------------------------------------------------------ 2
echo "# 2. SIGHUP reload"
hup_config() {
	cat >c.yaml <<EOF
learn: 3s
$2
refit: 0
state_dir: st2
log_level: info
detect:
  window: 1s
  step: 200ms
http:
  listen: "127.0.0.1:$P_HUP"
  raw_channels: $1
store:
  path: ""
events:
  path: ev1.jsonl
attrib:
  enabled: false
EOF
}
hup_config false "interval: 100ms"
"$REVEAL" agent --config c.yaml >hup.out 2>hup.err &
AGENT=$!
if wait_for 25 detecting "$P_HUP"; then
	ok "the agent (--config c.yaml) learns and detects"
else
	not_ok "the agent (--config c.yaml) learns and detects"
	show hup.err
fi
get "$P_HUP" /metrics m1.txt
check "/metrics answers" grep -q '^reveal_windows_scored_total ' m1.txt
check "/metrics counts the blips not reported" grep -q '^reveal_incident_blips_total [0-9]' m1.txt
check "attrib.enabled false: no attribution worker (no reveal_attrib_* on /metrics)" \
	lacks m1.txt '^reveal_attrib_'
check "raw_channels false: no reveal_channel_value on /metrics" lacks m1.txt '^reveal_channel_value'

hup_config true "interval: 200ms"
kill -HUP "$AGENT"
has_raw() {
	get "$P_HUP" /metrics m2.txt && grep -q '^reveal_channel_value{channel="' m2.txt
}
if wait_for 5 has_raw; then
	ok "after SIGHUP /metrics has reveal_channel_value ($(grep -c '^reveal_channel_value{' m2.txt) channels)"
else
	not_ok "after SIGHUP /metrics has reveal_channel_value"
	show hup.err
fi
check "the log says the configuration was reloaded" grep -q 'agent: configuration c.yaml reloaded' hup.err
check "the log names interval as changing at the next restart" \
	grep -q 'SIGHUP: interval changes at the next restart' hup.err
check "keys that did not change are not named" lacks hup.err 'SIGHUP: (detect|http\.listen|learn|store\.path|record|state_dir) changes'
interval_kept() {
	get "$P_HUP" /api/v1/status status.json && grep -q '"interval_s":0.1,' status.json
}
check "the interval in use is still 100 ms" interval_kept

# an invalid file: line 3 has a bad boolean
printf 'learn: 3s\nhttp:\n  raw_channels: maybe\n' >c.yaml
kill -HUP "$AGENT"
if wait_for 5 grep -q 'keeping the running configuration' hup.err; then
	ok "an invalid file on SIGHUP is reported: keeping the running configuration"
else
	not_ok "an invalid file on SIGHUP is reported: keeping the running configuration"
	show hup.err
fi
check "the report names c.yaml:3:17 and the key" \
	grep -q "SIGHUP: c.yaml:3:17: http.raw_channels: 'maybe' is not true or false; keeping the running configuration" hup.err
sleep 1
check "the agent is still running" kill -0 "$AGENT"
check "/metrics still answers, raw channels still on" has_raw
kill -TERM "$AGENT"
wait "$AGENT"
RC=$?
AGENT=
check "SIGTERM after the reloads: exit 0 (got $RC)" test "$RC" -eq 0

# ------------------------------------------------------------------ 3
echo "# 3. full disk under the store and the recording"
mkdir disk
METHOD=ulimit
if [ -z "${IT_FORCE_ULIMIT:-}" ] && command -v unshare >/dev/null 2>&1 &&
	command -v nsenter >/dev/null 2>&1 &&
	unshare -m sh -c 'mount -t tmpfs -o size=4m tmpfs "$1"' sh "$PWD/disk" 2>/dev/null; then
	METHOD=tmpfs
fi
# the agent's own arguments; the store and the recording are on disk/
set -- agent --listen "127.0.0.1:$P_FULL" --store disk/reveal.db --record disk/rec.rvl \
	--events "" --state-dir st3 --learn 3s $FAST
if [ "$METHOD" = tmpfs ]; then
	echo "# method: a 4 MiB tmpfs in a private mount namespace (unshare -m), filled with nsenter"
	# unshare execs sh, which execs the agent: $! is the agent
	unshare -m sh -c 'mount -t tmpfs -o size=4m tmpfs "$1" && shift && exec "$@"' \
		sh "$PWD/disk" "$REVEAL" "$@" >full.out 2>full.err &
	ERRS_WANTED=2
	ERRS_WAIT=30
else
	# The store needs 32 KiB (its -shm file) to open. A recording holds a
	# 17 KiB header, then about 3 KiB per 64-sample block: at 20 ms a block
	# every 1.3 s passes 64 KiB within half a minute. The saved model (about
	# 100 KiB) fails too, counted in its own sink.
	echo "# method: ulimit -f 128 (512-byte blocks: 64 KiB per file; unshare -m or nsenter not usable, or IT_FORCE_ULIMIT set), interval 20ms"
	sh -c 'ulimit -f 128 && exec "$@"' sh "$REVEAL" "$@" --interval 20ms >full.out 2>full.err &
	ERRS_WANTED=2
	ERRS_WAIT=60
fi
AGENT=$!
set --
if wait_for 25 detecting "$P_FULL"; then
	ok "the agent with its store and recording on disk/ detects"
else
	not_ok "the agent with its store and recording on disk/ detects"
	show full.err
fi
# disk_free: KiB available on the tmpfs, seen from the agent's namespace
disk_free() {
	nsenter -t "$AGENT" -m df -Pk "$PWD/disk" | awk 'NR == 2 { print $4 }'
}
if [ "$METHOD" = tmpfs ]; then
	nsenter -t "$AGENT" -m sh -c 'cat /dev/zero >"$1/fill"' sh "$PWD/disk" 2>/dev/null
	check "the tmpfs is full (0 KiB available, got $(disk_free))" test "$(disk_free)" = 0
fi
get "$P_FULL" /metrics f1.txt
W1=$(metric f1.txt reveal_windows_scored_total)
# record_errs N: at least N record errors counted (N: ERRS_WANTED)
record_errs() {
	get "$P_FULL" /metrics f2.txt || return 1
	re_n=$(metric f2.txt 'reveal_sink_errors_total{sink="record"}')
	[ -n "$re_n" ] && [ "$re_n" -ge "${1:-$ERRS_WANTED}" ]
}
if wait_for "$ERRS_WAIT" record_errs; then
	ok "record errors are counted: reveal_sink_errors_total{sink=\"record\"} = $(metric f2.txt 'reveal_sink_errors_total{sink="record"}')"
else
	not_ok "record errors are counted (wanted $ERRS_WANTED within $ERRS_WAIT s): $(metric f2.txt 'reveal_sink_errors_total{sink="record"}')"
	show full.err
fi
sleep 2
if get "$P_FULL" /metrics f3.txt; then
	ok "/metrics answers with the disk full"
else
	not_ok "/metrics answers with the disk full"
fi
W3=$(metric f3.txt reveal_windows_scored_total)
check "attribution on by default: reveal_attrib_scans_total on /metrics" \
	grep -q '^reveal_attrib_scans_total ' f3.txt
check "scoring goes on: windows scored $W1 -> $W3" gt "$W3" "$W1"
check "the agent is running" kill -0 "$AGENT"
SE=$(metric f3.txt 'reveal_sink_errors_total{sink="store"}')
echo "# store errors so far: $SE (an incident has to be written for one)"
N=$(grep -c 'agent: record: .*(detection goes on' full.err)
R=$(grep -c 'agent: record: writing again' full.err)
check "the record failure is logged once per failing streak ($N reports, $R recoveries)" \
	test "$N" -ge 1 -a "$N" -le $((R + 1))
if [ "$N" -lt 1 ] || [ "$N" -gt $((R + 1)) ]; then show full.err; fi
check "the logged failure says what happened (no space / file too large)" \
	grep -Eq 'agent: record: .*(No space left on device|File too large)' full.err
# each store failure report after the first needs a recovery in between
SN=$(grep -c 'agent: store: .*(detection goes on' full.err)
SR=$(grep -c 'agent: store: writing again' full.err)
check "store failures are logged once until each recovery ($SN reports, $SR recoveries)" \
	test "$SN" -le $((SR + 1))
if gt "$SE" 0; then
	check "store errors on /metrics come with a log line" test "$SN" -ge 1
fi

if [ "$METHOD" = tmpfs ]; then
	# the sink is failing now (its last word a failure), or a block fitted
	# in the last page's slack (its last word a recovery)
	LAST=$(grep 'agent: record: ' full.err | tail -n 1)
	N=$(grep -c 'agent: record: .*(detection goes on' full.err)
	R=$(grep -c 'agent: record: writing again' full.err)
	nsenter -t "$AGENT" -m rm -f "$PWD/disk/fill"
	# the next block is written within 64 samples (6.4 s): one more
	# recovery, or (already recovered) no new failure
	recovered() { test "$(grep -c 'agent: record: writing again' full.err)" -gt "$R"; }
	case $LAST in
	*"writing again"*)
		sleep 8
		check "after the disk is freed the recording keeps writing (no new failure)" \
			test "$(grep -c 'agent: record: .*(detection goes on' full.err)" -eq "$N"
		;;
	*)
		if wait_for 12 recovered; then
			ok "after the disk is freed the log says the recording writes again"
		else
			not_ok "after the disk is freed the log says the recording writes again"
			show full.err
		fi
		;;
	esac
else
	echo "# recovery not checked: a file size limit cannot be lifted from outside"
fi
kill -TERM "$AGENT"
wait "$AGENT"
RC=$?
AGENT=
check "SIGTERM: exit 0 (got $RC)" test "$RC" -eq 0

# ------------------------------------------------------------------ 4
echo "# 4. replay"
run record -o r.rvl --interval 100ms --duration 8s -q
expect_rc "reveal record of 8 s" 0
timeout 60 "$REVEAL" agent --replay r.rvl --learn 4s --store r.db --events ev.jsonl --listen "" \
	--state-dir st4 $FAST >out.txt 2>err.txt
RC=$?
expect_rc "replay with learning runs to the end of the file by itself" 0
expect_err "the model was fitted" "agent: learn done in .* training windows"
check "the model was saved in st4/reveal.model" test -s st4/reveal.model
check "the store has the fit" test "$(sqlite3 r.db "SELECT count(*) FROM fits WHERE reason = 'learn'")" = 1
cp err.txt replay1.err

timeout 60 "$REVEAL" agent --replay r.rvl --learn 0 --store r.db --events ev.jsonl --listen "" \
	--state-dir st4 $FAST >out.txt 2>err.txt
RC=$?
expect_rc "a second replay with --learn 0 (the saved model)" 0
expect_err_fixed "it loaded the model" "model st4/reveal.model loaded"
check "the store has the loaded model as a fit too" \
	test "$(sqlite3 r.db "SELECT count(*) FROM fits WHERE reason = 'loaded'")" = 1

check "it did not learn" lacks err.txt 'learn: fitting'

# A learning period too short for a fit (fewer than 8 windows): the fit
# fails, and is tried again after another learning period, not at every
# sample; the replay says it ended while still learning.
"$REVEAL" record -q -o short.rvl --interval 100ms --duration 1500ms
run agent --replay short.rvl --learn 1s --store "" --listen "" --state-dir st4short $FAST
expect_rc "a replay that never finishes learning" 0
nfail=$(grep -c 'learn failed' err.txt)
check "the failed fit is not retried at every sample ($nfail failures)" test "$nfail" -le 4
expect_err_fixed "it says the recording ended while still learning" "ended while still learning"

run agent --replay r.rvl --learn 0 --store "" --listen "" --state-dir st4-empty $FAST
expect_rc "--learn 0 without a model" 2
expect_err_fixed "it says a model is needed" "learn 0 needs a model"

printf 'interval: 100ms\nthis is not a recording\n' >notrec.rvl
run agent --replay notrec.rvl --learn 4s --store "" --listen "" --state-dir st4x
if [ "$RC" -eq 2 ] || [ "$RC" -eq 1 ]; then
	ok "replay of a file that is not a recording: exit status $RC"
else
	not_ok "replay of a file that is not a recording: exit status $RC, expected 2 (or 1)"
fi
expect_err_fixed "the message names the file" "notrec.rvl"
run agent --replay missing.rvl --learn 4s --store "" --listen "" --state-dir st4x
if [ "$RC" -eq 2 ] || [ "$RC" -eq 1 ]; then
	ok "replay of a missing file: exit status $RC"
else
	not_ok "replay of a missing file: exit status $RC, expected 1 (or 2)"
fi
expect_err_fixed "the message names the missing file" "missing.rvl"

# ------------------------------------------------------------------ 5
echo "# 5. SIGTERM while learning"
"$REVEAL" agent --listen "127.0.0.1:$P_TERM" --store "" --learn 10m --state-dir st5 \
	>term.out 2>term.err &
AGENT=$!
check "the agent is learning" wait_for 15 learning "$P_TERM"
T0=$(date +%s%N)
kill -TERM "$AGENT"
i=0
while kill -0 "$AGENT" 2>/dev/null && [ "$i" -lt 40 ]; do
	sleep 0.05
	i=$((i + 1))
done
T1=$(date +%s%N)
wait "$AGENT"
RC=$?
AGENT=
MS=$(((T1 - T0) / 1000000))
check "it stops within 2 s (took $MS ms)" test "$MS" -le 2000
check "exit status 0 (got $RC)" test "$RC" -eq 0
check "no model is saved from an unfinished learning period" test ! -e st5/reveal.model

# --- 6. Recording retention (record.max_age = 1m: a segment every 7.5 s,
# removed once its last sample is more than a minute old).
mkdir -p rec
"$REVEAL" agent --listen "" --store "" --learn 3s --state-dir st6 --record rec/r.rvl \
	--set record.max_age=1m $FAST >ret.out 2>ret.err &
AGENT=$!
sleep 75
kill -TERM "$AGENT"
wait "$AGENT"
RC=$?
AGENT=
check "the recording agent stopped cleanly (exit $RC)" test "$RC" -eq 0
opened=$(grep -c 'agent: recording to rec/r\.' ret.err)
left=$(ls rec | grep -c '^r\.[0-9]*\.rvl$')
removed=$(grep -c 'removed rec/r\..*(retention)' ret.err)
check "segments rotate every max_age / 8 ($opened opened in 75 s)" test "$opened" -ge 8
check "the oldest segments are removed by age ($removed removed, $left left)" \
	sh -c "[ $removed -ge 1 ] && [ $((left + removed)) -eq $opened ]"
first=$(grep -o 'recording to rec/r\.[0-9]*\.rvl' ret.err | head -1 | sed 's/recording to //')
check "the first segment ($first) is gone" test ! -e "$first"
last=$(ls rec/r.*.rvl | sort | tail -1)
run export "$last" --csv -o last.csv
expect_rc "the newest segment (closed by SIGTERM) exports" 0

it_finish
