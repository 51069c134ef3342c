#!/bin/sh
# fleet.sh - a fleet of five agents remote-writing into real storage, and
# `reveal fleet` naming the straggler and the node configured differently,
# against Prometheus (Debian package, remote-write receiver on, loopback)
# and then against VictoriaMetrics (Debian package, single node).
#
# The five agents replay tests/fixtures/fleet/*.rvl (scripts/fleet-
# recordings.sh): node1..node4 ran the same training-like job, straggler
# ran it too with two busy loops from its 15th second on (its job slowed
# by contention). Each agent reads its static facts from a copy of the
# fixture tree tests/fixtures/collect/factshost; node4's copy has 0 huge
# pages of 2 MiB where the others have 1024. Replays run as fast as they
# can; remote_write.time_offset moves every recording so that all five
# start at the same whole second, 90 s before now (samples older than
# VictoriaMetrics' 30-s search latency, in the range Prometheus takes).
#
# For each backend, `reveal fleet` must name exactly one straggler,
# `straggler`, out of step after the contention began, with signals that
# set it apart; and exactly one drift finding, node4's
# mem.hugepages_2048kb (0 against the majority's 1024, held by 4 of 5).
# The two backends must give the same verdicts. Also: every format of the
# report; `reveal fleet --serve` over the last 5 minutes of VictoriaMetrics
# (the straggler out of step now, the drift, a score per node on /metrics,
# the report as JSON); clear errors for a storage that is not there and a
# selector that matches nothing.

. "$SRC/tests/integration/lib.sh.inc"
it_setup

need_tools prometheus victoria-metrics curl python3

FIX=$SRC/tests/fixtures/fleet
NODES="node1 node2 node3 node4 straggler"
BACKEND_PID=
cleanup_procs() {
	[ -n "$BACKEND_PID" ] && kill "$BACKEND_PID" 2>/dev/null
	[ -n "${SERVE:-}" ] && kill "$SERVE" 2>/dev/null
	wait 2>/dev/null
}
trap 'cleanup_procs; it_cleanup' EXIT

# the facts: every node the fixture host, node4 without 2 MiB huge pages
cp -R "$SRC/tests/fixtures/collect/factshost" facts
cp -R facts facts-node4
HP=facts-node4/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
check "the fixture host has 1024 huge pages of 2 MiB" test "$(cat "$HP")" = 1024
echo 0 >"$HP"

# The first sample of each recording (whole seconds).
for n in $NODES; do
	first=$("$REVEAL" export "$FIX/$n.rvl" --csv | sed -n 2p | cut -d, -f1)
	eval "FIRST_$n=${first%.*}"
done

# replay_all NAME URL: the five agents, each under its own node name, in
# parallel, every recording moved to start at $START; their logs in
# NAME-NODE.err.
replay_all() {
	pids=
	for n in $NODES; do
		root=facts
		[ "$n" = node4 ] && root=facts-node4
		eval "off=\$((START - FIRST_$n))"
		"$REVEAL" agent --replay "$FIX/$n.rvl" --listen "" --store "" --state-dir "$1-state-$n" \
			--learn 20s --set refit=0 --set host="$n" --set collect.root="$root" \
			--set remote_write.url="$2" --set remote_write.interval=1s \
			--set remote_write.labels=cluster=it,group=job1 \
			--set remote_write.time_offset="${off}s" >"$1-$n.out" 2>"$1-$n.err" &
		pids="$pids $!"
	done
	rc=0
	for p in $pids; do
		wait "$p" || rc=1
	done
	return $rc
}

# nodes_seen URL: the storage answers for all five nodes
nodes_seen() {
	curl -sf "$1/api/v1/query" --data-urlencode \
		'query=count(last_over_time(reveal_node_learning{cluster="it"}[10m]))' |
		grep -q '"value":\[[0-9.]*,"5"\]'
}

# fleet_check NAME URL WRITE_URL: the agents into the storage (WRITE_URL)
# starting 90 s ago (older than VictoriaMetrics' 30 s search latency), then
# the report in every format, read through URL, checked.
fleet_check() {
	name=$1
	url=$2
	START=$(($(date +%s) - 90))
	if replay_all "$name" "$3"; then
		ok "$name: five agents replayed into it"
	else
		not_ok "$name: five agents replayed into it"
		show "$name-node1.err"
	fi
	for n in $NODES; do
		if grep -q 'remote_write.*\(dropped\|refused\|rejected\|HTTP\|undelivered\)' "$name-$n.err"; then
			not_ok "$name: agent $n delivered everything"
			show "$name-$n.err"
		fi
	done
	# VictoriaMetrics makes what it received searchable within a second or two
	curl -sf "$url/internal/force_flush" >/dev/null 2>&1
	check "$name: the storage answers for the five nodes" wait_for 30 nodes_seen "$url"
	SINCE=$START
	UNTIL=$((START + 50))
	run fleet --prometheus "$url" --selector 'cluster="it"' --group-by group \
		--since "$SINCE" --until "$UNTIL" --persist 10s --format json -o "$name.json"
	expect_rc "$name: reveal fleet" 0
	[ "$RC" -eq 0 ] || return
	check "$name: five nodes, one group" \
		test "$(json "$name.json" 'd["fleet"]["nodes"], d["fleet"]["groups"], len(d["groups"])')" = "(5, 1, 1)"
	check "$name: exactly one straggler, named straggler" \
		test "$(json "$name.json" '[s["node"] for s in d["stragglers"]]')" = "['straggler']"
	check "$name: its stretch begins after the contention did (second 15 of 45)" \
		test "$(json "$name.json" 'd["stragglers"][0]["stretches"][0]["start_ts"] >= '"$SINCE"' + 12')" = True
	check "$name: with signals that set it apart" \
		test "$(json "$name.json" 'len(d["stragglers"][0]["signals"]) > 0')" = True
	check "$name: exactly one drift finding, node4's huge pages" \
		test "$(json "$name.json" '[(f["key"], [o["node"] for o in f["odd"]]) for f in d["drift"]]')" = \
		"[('mem.hugepages_2048kb', ['node4'])]"
	check "$name: 0 against the majority's 1024 (4 of 5)" \
		test "$(json "$name.json" '(d["drift"][0]["odd"][0]["value"], d["drift"][0]["majority"], d["drift"][0]["majority_nodes"])')" = \
		"('0', '1024', 4)"
	for f in text markdown html; do
		run fleet --prometheus "$url" --selector 'cluster="it"' --since "$SINCE" \
			--until "$UNTIL" --persist 10s --format "$f" -o "$name.$f"
		expect_rc "$name: the $f report" 0
		check "$name: the $f report names the straggler and node4" \
			sh -c "grep -q straggler '$name.$f' && grep -q node4 '$name.$f'"
	done
}

# on_backend NAME URL READY LOG: once the storage just started at URL
# answers on READY, the fleet check against it (LOG shown when it does not)
on_backend() {
	if wait_for 30 curl -sf "$2$3" -o /dev/null; then
		fleet_check "$1" "$2" "$2/api/v1/write"
	else
		not_ok "$1 starts"
		show "$4"
	fi
}
stop_backend() {
	kill "$BACKEND_PID"
	wait "$BACKEND_PID" 2>/dev/null
	BACKEND_PID=
}

# ---------------------------------------------------------------- Prometheus
PP=$(free_port)
printf 'global:\n  scrape_interval: 15s\n' >prom.yml
prometheus --config.file=prom.yml --storage.tsdb.path=prom-data --web.enable-remote-write-receiver \
	--web.listen-address="127.0.0.1:$PP" --log.level=error >prom.log 2>&1 &
BACKEND_PID=$!
on_backend prometheus "http://127.0.0.1:$PP" /-/ready prom.log
stop_backend

# ------------------------------------------------------------ VictoriaMetrics
VP=$(free_port)
victoria-metrics -storageDataPath=vm-data -httpListenAddr="127.0.0.1:$VP" \
	-loggerLevel=ERROR >vm.log 2>&1 &
BACKEND_PID=$!
VURL="http://127.0.0.1:$VP"
on_backend victoria "$VURL" /health vm.log
if [ -f prometheus.json ] && [ -f victoria.json ]; then
	verdict='([(s["node"], len(s["stretches"])) for s in d["stragglers"]], [(f["key"], f["odd"]) for f in d["drift"]])'
	check "both backends give the same verdicts" \
		test "$(json prometheus.json "$verdict")" = "$(json victoria.json "$verdict")"
fi

# ------------------------------------------------------------------ --serve
# the same analysis behind /metrics, over the last 5 minutes
FP=$(free_port)
"$REVEAL" fleet --serve "127.0.0.1:$FP" --prometheus "$VURL" --selector 'cluster="it"' \
	--lookback 5m --every 1m --persist 10s >serve.out 2>serve.err &
SERVE=$!
served() {
	curl -sf "http://127.0.0.1:$FP/metrics" >serve.txt && grep -q '^reveal_fleet_up 1$' serve.txt
}
if wait_for 30 served; then
	ok "reveal fleet --serve analyses and serves /metrics"
	check "--serve: the straggler is out of step (reveal_fleet_straggler 1)" \
		grep -q '^reveal_fleet_straggler{group="job1",node="straggler"} 1$' serve.txt
	check "--serve: no other node is" \
		test "$(grep -c '^reveal_fleet_straggler{' serve.txt)" -eq 1
	check "--serve: node4's huge pages drift" \
		grep -q '^reveal_fleet_drift{group="job1",node="node4",fact="mem.hugepages_2048kb",value="0",majority="1024"} 1$' serve.txt
	check "--serve: a score for each of the five nodes" \
		test "$(grep -c '^reveal_fleet_straggler_score{' serve.txt)" -eq 5
	curl -sf "http://127.0.0.1:$FP/report.json" -o serve.json
	check "--serve: /report.json names the straggler" \
		test "$(json serve.json '[s["node"] for s in d["stragglers"]]')" = "['straggler']"
else
	not_ok "reveal fleet --serve analyses and serves /metrics"
	show serve.err
fi
kill -TERM "$SERVE"
wait "$SERVE"
RC=$?
check "--serve stops on SIGTERM (exit $RC)" test "$RC" -eq 0

# -------------------------------------------------------------- errors
run fleet --prometheus "http://127.0.0.1:$(free_port)" --since 10m
expect_rc "a storage that is not there" 1
expect_err "it says where it tried" "127\\.0\\.0\\.1"
run fleet --prometheus "$VURL" --selector 'cluster="none"' --since "$START" --until "$((START + 50))"
expect_rc "a selector that matches no node" 1
expect_err "it says so" "no node"
run fleet --since 1h
expect_rc "no --prometheus" 2
stop_backend
it_finish
