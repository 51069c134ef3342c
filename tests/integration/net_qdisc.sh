#!/bin/sh
# net_qdisc.sh - the net.qdisc source against a real shaper: in a network
# namespace of its own (the host's network is not touched), lo gets
# `tc qdisc add dev lo root tbf rate 1mbit burst 32kb latency 50ms` and a
# UDP flood to 127.0.0.1; `reveal metrics --sample` run in the namespace
# (nsenter --net) must list lo's five qdisc channels and show drops and
# overlimits per second above 0 with the backlog and queue length read, and
# no more drops than `tc -s qdisc show` counted. The namespace is deleted
# at the end, also when the test fails or is interrupted.
#
# Needs root (a network namespace), ip, tc with the tbf qdisc, nsenter and
# python3; without one of them the test says what it lacks and passes as
# skipped.

. "$SRC/tests/integration/lib.sh.inc"
it_setup

# skip WHY: passes, saying why nothing was checked.
skip() {
	ok "skipped: $1"
	it_finish
}

[ "$(id -u)" -eq 0 ] || skip "needs root for a network namespace"
for tool in ip tc nsenter python3; do
	command -v "$tool" >/dev/null 2>&1 || skip "$tool is not installed"
done

NS=rv-qdisc-$$
FLOOD=
trap '[ -n "$FLOOD" ] && kill "$FLOOD" 2>/dev/null; ip netns del "$NS" 2>/dev/null; it_cleanup' EXIT
trap 'exit 129' HUP     # the EXIT trap runs on these too (a closed pipe, a
trap 'exit 141' PIPE    # closed terminal), so the namespace never stays
ip netns add "$NS" 2>ns.err || skip "ip netns add refused: $(cat ns.err)"
ip -n "$NS" link set lo up
ip netns exec "$NS" tc qdisc add dev lo root tbf rate 1mbit burst 32kb latency 50ms \
	2>tc.err || skip "tc refused a tbf qdisc: $(cat tc.err)"

nsenter --net="/run/netns/$NS" "$REVEAL" metrics >out.txt 2>err.txt
RC=$?
expect_rc "metrics in the namespace" 0
for ch in 'drops packets/s event' 'overlimits 1/s counter' 'requeues packets/s counter' \
	'backlog_bytes bytes gauge' 'qlen packets gauge'; do
	set -- $ch
	check "net.qdisc_$1:lo listed ($2, $3)" \
		grep -Eq "^net\.qdisc_$1:lo +net +$2 +$3 +net\.qdisc" out.txt
done

# 1400-byte datagrams as fast as they go for 4 s: far over 1 Mbit/s.
ip netns exec "$NS" python3 -c '
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setblocking(False)
end = time.time() + 4
while time.time() < end:
    try:
        s.sendto(b"x" * 1400, ("127.0.0.1", 9))
    except OSError:
        time.sleep(0.001)
' &
FLOOD=$!
sleep 1
nsenter --net="/run/netns/$NS" "$REVEAL" metrics --json --sample --interval 1000 \
	>sample.json 2>err.txt
RC=$?
expect_rc "metrics --sample under the flood" 0
ip netns exec "$NS" tc -s qdisc show dev lo >tc.txt
wait "$FLOOD"
FLOOD=
sed 's/^/    # /' tc.txt
if python3 - sample.json tc.txt <<'PY'
import json, re, sys
v = {c["name"]: c.get("value") for c in json.load(open(sys.argv[1]))["channels"]}
dropped = int(re.search(r"dropped (\d+)", open(sys.argv[2]).read()).group(1))
for k in ("drops", "overlimits", "requeues", "backlog_bytes", "qlen"):
    print(f"    # net.qdisc_{k}:lo = {v.get('net.qdisc_' + k + ':lo')}")
assert v["net.qdisc_drops:lo"] > 0 and v["net.qdisc_overlimits:lo"] > 0
assert v["net.qdisc_backlog_bytes:lo"] is not None and v["net.qdisc_qlen:lo"] is not None
assert v["net.qdisc_drops:lo"] * 0.9 <= dropped, dropped
PY
then ok "drops and overlimits per second above 0, backlog and qlen read, tc agrees"
else not_ok "drops and overlimits per second above 0, backlog and qlen read, tc agrees"
	show sample.json
fi

ip netns del "$NS"
check "the namespace is gone" sh -c "! ip netns list | grep -q '^$NS\\b'"
it_finish
