#!/bin/sh
# metric_set.sh - a metric set (`reveal prune`'s file, written here by hand)
# narrows what the agent and `reveal detect` watch:
#
# - `reveal agent --replay` of a fleet recording keeps exactly the set's
#   channels of the recording, names the ones it lacks, and the model it
#   saves is for those channels: the same state_dir without the set learns
#   again;
# - the live agent (a few seconds, while learning) serves reveal_channels
#   equal to the set's channels this host has, lists in
#   reveal_source_channels only the sources those channels come from, says
#   "no channel in the metric set" for the others in /api/v1/status, and
#   logs the set's channels this host lacks; collect.metric_set in a
#   configuration file does what --metric-set does;
# - a malformed set (an unknown key, a channel name with a bad character,
#   a missing file) stops the agent at start with FILE:LINE and exit 2;
# - `reveal detect --metric-set` over a synthetic CSV fits on the kept
#   columns only (its log says how many channels), names the set's columns
#   the CSV lacks, and refuses a set that keeps none of them.
#
# Needs curl and python3 (a free port). About 10 s.

. "$SRC/tests/integration/lib.sh.inc"
it_setup
need_tools curl python3

AGENT=
cleanup_procs() {
	[ -n "$AGENT" ] && kill "$AGENT" 2>/dev/null
	wait 2>/dev/null
}
trap 'cleanup_procs; it_cleanup' EXIT

REC="$SRC/tests/fixtures/fleet/node1.rvl"
# cpu.busy_pct:cpu4095 and gpu.util_pct:gpu7 are channels no test host has
cat >set.yaml <<'EOF'
# written by hand for metric_set.sh
version: 1
keep:
  - cpu.busy_pct
  - cpu.context_switches
  - cpu.load1
  - mem.mem_available_bytes
  - cpu.busy_pct:cpu4095
  - gpu.util_pct:gpu7
EOF
NSET=6

# in_list FILE: the set's channels that are lines of FILE, one a line
in_list() {
	sed -n 's/^  - //p' set.yaml | grep -Fx -f "$1"
}

# ---------------------------------------------------------------- replay
"$REVEAL" export "$REC" --csv | head -1 | tr ',' '\n' >rec_channels.txt
NREC_ALL=$(($(wc -l <rec_channels.txt) - 1))        # less the timestamp
NREC=$(in_list rec_channels.txt | wc -l)
check "the recording has some of the set's channels ($NREC)" test "$NREC" -ge 3

replay() {
	run agent --replay "$REC" --learn 20s --listen "" --store "" --state-dir rp "$@"
}
replay --metric-set set.yaml
expect_rc "agent --replay --metric-set" 0
expect_err_fixed "it watches the set's channels of the recording" \
	"watching $NREC of its $NSET channels"
expect_err_fixed "it names the ones the recording lacks" "cpu.busy_pct:cpu4095"
expect_err_fixed "it counts the recording's channels left out" \
	"it leaves out $((NREC_ALL - NREC)) of the $NREC_ALL channels in the recording"
expect_err_fixed "the model is fitted on those channels" "samples of $NREC channels"
check "the model is saved" test -s rp/reveal.model
replay
expect_rc "the same replay without the set" 0
expect_err "the saved model is for other channels: learning again" \
	"fitted on other channels \\($NREC, this host has $NREC_ALL\\)"

# the configuration key does what the flag does
printf 'collect:\n  metric_set: %s\n' "$IT_TMP/set.yaml" >agent.yaml
run agent --config agent.yaml --replay "$REC" --learn 20s --listen "" --store "" \
	--state-dir rp2
expect_rc "collect.metric_set in the configuration file" 0
expect_err_fixed "the key narrows the channels the same way" \
	"watching $NREC of its $NSET channels"

# ------------------------------------------------------------------ live
"$REVEAL" metrics >metrics.txt 2>/dev/null
awk 'NR > 1 && NF >= 5 { print $1 }' metrics.txt >host_channels.txt
NHOST=$(in_list host_channels.txt | wc -l)
# the sources of the kept channels (SOURCE is the last column)
in_list host_channels.txt >kept.txt
awk 'NR == FNR { k[$1] = 1; next } ($1 in k) { print $NF }' kept.txt metrics.txt |
	sort -u >kept_sources.txt
check "this host has some of the set's channels ($NHOST)" test "$NHOST" -ge 3

PORT=$(free_port)
"$REVEAL" agent --metric-set set.yaml --learn 10m --listen "127.0.0.1:$PORT" --store "" \
	--state-dir live >live.out 2>live.err &
AGENT=$!
metrics_up() {
	curl -sf --max-time 5 "http://127.0.0.1:$PORT/metrics" >metrics.prom
}
if wait_for 20 metrics_up; then
	ok "the live agent serves /metrics"
else
	not_ok "the live agent serves /metrics"
	show live.err
fi
curl -sf --max-time 5 "http://127.0.0.1:$PORT/api/v1/status" >status.json
kill -TERM "$AGENT"
wait "$AGENT"
RC=$?
AGENT=
check "the live agent stops on SIGTERM, exit 0 (got $RC)" test "$RC" -eq 0
GOT=$(awk '$1 == "reveal_channels" { print $2 }' metrics.prom)
check "reveal_channels is the set's channels on this host ($GOT, want $NHOST)" \
	test "$GOT" = "$NHOST"
sed -n 's/^reveal_source_channels{source="\([^"]*\)"}.*/\1/p' metrics.prom |
	sort -u >served_sources.txt
if cmp -s served_sources.txt kept_sources.txt; then
	ok "reveal_source_channels lists only the kept channels' sources ($(tr '\n' ' ' <kept_sources.txt))"
else
	not_ok "reveal_source_channels lists only the kept channels' sources"
	diff served_sources.txt kept_sources.txt | sed 's/^/    # /'
fi
NOTREAD=$(json status.json \
	'sum(1 for u in d["unavailable"] if u["reason"] == "no channel in the metric set")')
check "the status names the sources not read (${NOTREAD:-none})" test "${NOTREAD:-0}" -ge 1
if grep -Fq "not on this host (" live.err && grep -Fq "gpu.util_pct:gpu7" live.err; then
	ok "the log names the set's channels this host lacks"
else
	not_ok "the log names the set's channels this host lacks"
	show live.err
fi

# ------------------------------------------------------------ bad sets
printf 'version: 1\nkeep: [cpu.busy_pct]\ncolour: blue\n' >bad_key.yaml
printf 'version: 1\nkeep:\n  - cpu.busy_pct\n  - "cpu.bu%%sy_pct"\n' >bad_name.yaml
for f in bad_key bad_name; do
	replay --metric-set "$f.yaml"
	expect_rc "a set with $f" 2
	expect_err "the error names the place" "$f\\.yaml:[34]:[0-9]+:"
done
replay --metric-set nowhere.yaml
expect_rc "a set that does not exist" 2
expect_err_fixed "the error names the file" "nowhere.yaml"

# --------------------------------------------------------------- detect
"$REVEAL" synth -o syn --train-duration 2m --test-duration 1m >/dev/null 2>&1
cat >dset.yaml <<'EOF'
version: 1
keep: [cpu.busy_pct, 'net.rx_bytes:eth0', 'gpu.util_pct:gpu0', 'net.rx_bytes:eth9']
EOF
run detect --train syn/train.csv --test syn/test.csv -o out.csv --metric-set dset.yaml
expect_rc "detect --metric-set" 0
expect_err_fixed "it keeps the set's columns of TRAIN" \
	"syn/train.csv: 3 of its 14 channels in the metric set"
expect_err_fixed "the model has 3 channels" ", 3 channels,"
expect_err_fixed "it names the column the CSV lacks" \
	"1 of its 4 channels are not in syn/train.csv: net.rx_bytes:eth9"
BAD=$(awk -F, 'NR > 1 && $7 != "" { n = split($7, m, ";"); for (i = 1; i <= n; i++)
	if (m[i] != "cpu.busy_pct" && m[i] != "net.rx_bytes:eth0" &&
	    m[i] != "gpu.util_pct:gpu0") print m[i] }' out.csv | head -1)
check "top_metrics names only kept channels (${BAD:-none other})" test -z "$BAD"
printf 'version: 1\nkeep: [cpu.load1]\n' >none.yaml
run detect --train syn/train.csv --test syn/test.csv -o out2.csv --metric-set none.yaml
expect_rc "a set with no column of the input" 2
expect_err_fixed "it says so" "none of its 1 channels is in syn/train.csv"
it_finish
