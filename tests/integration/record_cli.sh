#!/bin/sh
# record_cli.sh - `reveal record`, `reveal export` and .rvl input to
# `reveal detect` on this host.
#
# A short recording exports to CSV with the collector's channel names and
# rates for counters (empty where there is no rate yet); SIGTERM ends a
# recording with its open block written; SIGKILL keeps every completed
# block (whole blocks only) and the export still works; two recordings
# fit and score with `reveal detect`; with --rediscover a NIC appearing
# mid-run continues the recording in a second segment; bad usage and a
# file that is not a recording exit 2 with a message.

. "$SRC/tests/integration/lib.sh.inc"
it_setup

run record -q -o r.rvl --interval 50ms --duration 2s
expect_rc "record 2 s" 0
check "recording written" test -s r.rvl
run export r.rvl --csv -o r.csv
expect_rc "export" 0
check "header names the collector's channels" grep -q '^timestamp,cpu\.user_pct,' r.csv
rows=$(($(wc -l <r.csv) - 1))
if [ "$rows" -ge 30 ] && [ "$rows" -le 41 ]; then
	ok "2 s at 50 ms gives 30 to 41 samples ($rows)"
else
	not_ok "2 s at 50 ms gives 30 to 41 samples ($rows)"
fi
col=$(head -1 r.csv | tr ',' '\n' | grep -n '^cpu\.context_switches$' | cut -d: -f1)
first=$(sed -n 2p r.csv | cut -d, -f"$col")
second=$(sed -n 3p r.csv | cut -d, -f"$col")
check "a counter has no rate at the first sample" test -z "$first"
check "and a rate from the second on" test -n "$second"

# SIGTERM: a clean stop, the open block written.
"$REVEAL" record -q -o t.rvl --interval 20ms --block 1000 2>err.txt &
pid=$!
sleep 1
kill -TERM $pid
wait $pid
RC=$?
expect_rc "record stopped by SIGTERM" 0
run export t.rvl --csv -o t.csv
expect_rc "export after SIGTERM" 0
rows=$(($(wc -l <t.csv) - 1))
check "SIGTERM kept the open block ($rows samples)" test "$rows" -ge 20
check "no warning after a clean stop" lacks err.txt "warning|truncated|error"

# SIGKILL: whole blocks of 4 survive, the export stops cleanly.
"$REVEAL" record -q -o k.rvl --interval 10ms --block 4 2>/dev/null &
pid=$!
sleep 1
kill -KILL $pid
wait $pid 2>/dev/null
run export k.rvl --csv -o k.csv
expect_rc "export of a killed recording" 0
rows=$(($(wc -l <k.csv) - 1))
if [ "$rows" -ge 8 ] && [ $((rows % 4)) -eq 0 ]; then
	ok "SIGKILL kept whole blocks of 4 ($rows samples)"
else
	not_ok "SIGKILL kept whole blocks of 4 ($rows samples)"
fi

# A cut recording: the export warns with the offset and keeps the rest.
size=$(wc -c <k.rvl)
head -c $((size - 3)) k.rvl >cut.rvl
run export cut.rvl --csv -o cut.csv
expect_rc "export of a cut recording" 0
expect_err "cut recording" 'offset [0-9]+: truncated block'

# Two recordings through detect.
run record -q -o train.rvl --interval 50ms --duration 3s
run record -q -o test.rvl --interval 50ms --duration 2s
run detect --train train.rvl --test test.rvl -o out.csv --window 5 --step 1
expect_rc "detect on recordings" 0
check "per-window output" grep -q '^timestamp,anomaly,' out.csv

# Rediscovery: a NIC that appears mid-recording starts a new segment.
mkdir -p tree/proc/net
cp "$SRC/tests/fixtures/collect/statonly/proc/stat" tree/proc/stat
netdev() {
	printf 'Inter-|   Receive                                                |  Transmit\n'
	printf ' face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n'
	for nic in "$@"; do
		printf '  %s: 100 1 0 0 0 0 0 0 200 2 0 0 0 0 0 0\n' "$nic"
	done
}
netdev eth0 >tree/proc/net/dev
"$REVEAL" record -q -o seg.rvl --root tree --interval 100ms --duration 3s --rediscover 1s \
	2>err.txt &
pid=$!
sleep 1.5
netdev eth0 eth9 >tree/proc/net/dev
wait $pid
RC=$?
expect_rc "record with --rediscover" 0
check "a second segment after the NIC appeared" test -s seg.1.rvl
run export seg.rvl --csv -o seg0.csv
run export seg.1.rvl --csv -o seg1.csv
check "the first segment has no eth9" lacks seg0.csv 'rx_bytes:eth9'
check "the second segment has eth9" grep -q 'net.rx_bytes:eth9' seg1.csv
check "no third segment" test ! -e seg.2.rvl

# Bad usage and bad files.
run record --interval 100ms
expect_rc "record without -o" 2
run record -o x.rvl --interval 0s
expect_rc "record --interval 0s" 2
run record -o x.rvl --slow-interval 11s
expect_rc "record --slow-interval 11s" 2
check "the message names the limit" grep -q -- '--slow-interval 11s: at most 10s' err.txt
run record -o x.rvl --slow-interval often
expect_rc "record --slow-interval often" 2
check "the message names the flag" grep -q -- '--slow-interval often: want a time' err.txt
printf 'timestamp,a.b\n1,2\n' >not.rvl
run export not.rvl --csv
expect_rc "export of a CSV named .rvl" 2
expect_err "not a recording" 'not.rvl'
run export missing.rvl --csv
expect_rc "export of a missing file" 2
run export r.rvl
expect_rc "export without --csv" 2

it_finish
