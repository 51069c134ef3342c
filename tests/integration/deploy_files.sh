#!/bin/sh
# deploy_files.sh - the files of deploy/ are valid and agree with the agent.
#
# Prometheus: promtool accepts reveal-scrape.yml and reveal-alerts.yml, and
# `promtool test rules` feeds the alerts series to show that each fires
# when it should (with its labels) and not otherwise. Grafana: the
# dashboard is JSON with the datasource/host/instance variables, every
# query parses as PromQL (promtool, variables substituted), and every
# reveal_* name the dashboard and the alert rules use is on the /metrics
# page of a real agent, started here until it detects. Kubernetes: the
# ConfigMap's reveal.yaml passes `reveal agent --check-config` (and a
# broken copy does not), it points collect.root at the /host mounts the
# DaemonSet makes. systemd: ExecStart runs `reveal agent --config`, its
# flags are accepted by the agent, and `systemd-analyze verify` passes when
# systemd-analyze is installed (optional: without it the keys are checked
# with grep, and the test says so). deploy/reveal.yaml passes
# --check-config.
#
# Needs promtool, curl and python3 (scripts/install-deps.sh); a missing
# tool fails the test. python3's yaml module is used when present, else
# the ConfigMap block is cut out with awk.

. "$SRC/tests/integration/lib.sh.inc"
it_setup

D="$SRC/deploy"

for tool in promtool curl python3; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		not_ok "$tool is installed (scripts/install-deps.sh)"
		it_finish
	fi
done

# ------------------------------------------------------------ Prometheus

if promtool check config "$D/prometheus/reveal-scrape.yml" >pc.txt 2>&1; then
	ok "promtool check config reveal-scrape.yml (it loads reveal-alerts.yml)"
else
	not_ok "promtool check config reveal-scrape.yml"
	show pc.txt
fi
if promtool check rules "$D/prometheus/reveal-alerts.yml" >pr.txt 2>&1; then
	ok "promtool check rules reveal-alerts.yml: $(grep -o '[0-9]* rules found' pr.txt)"
else
	not_ok "promtool check rules reveal-alerts.yml"
	show pr.txt
fi
for a in RevealIncidentOpen RevealAgentDown RevealSamplesMissed RevealSinkErrors RevealLearningStuck; do
	check "alert $a is defined" grep -q "alert: $a\$" "$D/prometheus/reveal-alerts.yml"
done

# The alerts' behaviour. promtool compares annotations too: they are prose,
# so a copy without them is tested (expressions, `for` and labels as they
# are).
awk '
	skip && ($0 ~ /^[ \t]*$/ || match($0, /^ */) && RLENGTH > ind) { next }
	{ skip = 0 }
	/^ *annotations:/ { match($0, /^ */); ind = RLENGTH; skip = 1; next }
	{ print }
' "$D/prometheus/reveal-alerts.yml" >alerts-noann.yml
cat >alerts-test.yml <<'EOF'
rule_files:
  - alerts-noann.yml
evaluation_interval: 1m
tests:
  - interval: 1m
    input_series:
      - series: 'reveal_incidents_open{instance="n1",job="reveal",subsystem="cpu"}'
        values: '0 0 1 1 1 1'
      - series: 'reveal_incidents_open{instance="n1",job="reveal",subsystem="net"}'
        values: '0x5'
      - series: 'up{instance="n1",job="reveal"}'
        values: '1 0x10'
      - series: 'up{instance="n2",job="reveal-kubernetes"}'
        values: '1x10'
      - series: 'up{instance="x",job="node"}'
        values: '0x10'
      - series: 'reveal_samples_missed_total{instance="n1",job="reveal"}'
        values: '0+60x20'
      - series: 'reveal_samples_missed_total{instance="n2",job="reveal"}'
        values: '0+1x20'
      - series: 'reveal_sink_errors_total{instance="n1",job="reveal",sink="store"}'
        values: '0 0 0 3 3 3'
      - series: 'reveal_sink_errors_total{instance="n1",job="reveal",sink="events"}'
        values: '0x5'
    alert_rule_test:
      # pending at 2m, firing from 3m; the subsystem that has none stays quiet
      - eval_time: 2m
        alertname: RevealIncidentOpen
        exp_alerts: []
      - eval_time: 4m
        alertname: RevealIncidentOpen
        exp_alerts:
          - exp_labels: {severity: warning, instance: n1, job: reveal, subsystem: cpu}
      # down from 1m: firing after 5 minutes, only for reveal's jobs
      - eval_time: 3m
        alertname: RevealAgentDown
        exp_alerts: []
      - eval_time: 7m
        alertname: RevealAgentDown
        exp_alerts:
          - exp_labels: {severity: critical, instance: n1, job: reveal}
      # 1 missed sample per second: fires after 10 minutes; 1 a minute: never
      - eval_time: 8m
        alertname: RevealSamplesMissed
        exp_alerts: []
      - eval_time: 16m
        alertname: RevealSamplesMissed
        exp_alerts:
          - exp_labels: {severity: warning, instance: n1, job: reveal}
      # errors at 3m: fires at once, per sink
      - eval_time: 2m
        alertname: RevealSinkErrors
        exp_alerts: []
      - eval_time: 4m
        alertname: RevealSinkErrors
        exp_alerts:
          - exp_labels: {severity: warning, instance: n1, job: reveal, sink: store}
  - interval: 1m
    input_series:
      - series: 'reveal_learning{instance="n1",job="reveal"}'
        values: '1x90'
      - series: 'reveal_learning_progress_ratio{instance="n1",job="reveal"}'
        values: '0x90'
      - series: 'reveal_learning{instance="n2",job="reveal"}'
        values: '1x9 0x80'
      - series: 'reveal_learning_progress_ratio{instance="n2",job="reveal"}'
        values: '0+0.1x9 1x80'
    alert_rule_test:
      - eval_time: 30m
        alertname: RevealLearningStuck
        exp_alerts: []
      - eval_time: 75m
        alertname: RevealLearningStuck
        exp_alerts:
          - exp_labels: {severity: warning, instance: n1, job: reveal}
EOF
if ! grep -q 'annotations:' alerts-noann.yml && grep -q 'alert: RevealLearningStuck' alerts-noann.yml &&
	promtool test rules alerts-test.yml >pt.txt 2>&1; then
	ok "promtool test rules: each alert fires when it should, with its labels, and not before"
else
	not_ok "promtool test rules: each alert fires when it should, with its labels, and not before"
	show pt.txt
fi

# ------------------------------------------------------------ Grafana

DASH="$D/grafana/reveal-dashboard.json"
if python3 - "$DASH" >exprs.txt 2>dash.err <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d.get("schemaVersion", 0) >= 36, "schemaVersion %s" % d.get("schemaVersion")
var = {v["name"]: v for v in d["templating"]["list"]}
assert var["datasource"]["type"] == "datasource" and var["datasource"]["query"] == "prometheus"
q = var["host"]["query"]
q = q["query"] if isinstance(q, dict) else q
assert q.replace(" ", "") == "label_values(reveal_build_info,host)", q
assert var["instance"]["type"] == "query"
ids = []
exprs = []
def walk(o, path):
    if isinstance(o, dict):
        if o.get("type") in ("timeseries", "stat", "bargauge", "table", "gauge", "row"):
            ids.append(o.get("id"))
            if o["type"] != "row":
                ds = o.get("datasource", {})
                assert ds.get("uid") == "${datasource}", "%s: datasource %s" % (o.get("title"), ds)
                assert o.get("targets"), "%s: no query" % o.get("title")
        for k, v in o.items():
            if k == "expr":
                exprs.append(" ".join(v.split()))
            else:
                walk(v, path + "/" + k)
    elif isinstance(o, list):
        for x in o:
            walk(x, path)
walk(d, "")
assert len(ids) == len(set(ids)), "panel ids repeat"
assert any(p.get("repeat") == "instance" for p in d["panels"]), "no row repeated by instance"
for e in exprs:
    print(e)
PY
then
	ok "the Grafana dashboard is JSON with its variables, $(wc -l <exprs.txt) queries"
else
	not_ok "the Grafana dashboard is JSON with its variables"
	show dash.err
fi

# Every query parses as PromQL: the Grafana variables substituted, each
# becomes a recording rule that promtool checks.
{
	echo "groups:"
	echo "  - name: dashboard"
	echo "    rules:"
	n=0
	while IFS= read -r e; do
		n=$((n + 1))
		# shellcheck disable=SC2016 # Grafana's $variables, literal
		e=$(printf '%s' "$e" | sed -e 's/\$__rate_interval/1m/g; s/\$__range/1h/g; s/\$__interval/1m/g' \
			-e 's/\${\{0,1\}instance}\{0,1\}/.*/g; s/\${\{0,1\}host}\{0,1\}/.*/g' -e "s/'/''/g")
		echo "      - record: dashboard:q$n"
		echo "        expr: '$e'"
	done <exprs.txt
} >dash-rules.yml
if [ -s exprs.txt ] && promtool check rules dash-rules.yml >dr.txt 2>&1; then
	ok "every dashboard query parses as PromQL"
else
	not_ok "every dashboard query parses as PromQL"
	show dr.txt
fi

# ------------------------------------------------------------ a real agent

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
PORT=$(free_port)
URL="http://127.0.0.1:$PORT"
# window 1 s every 250 ms: 3 s of learning make the 8 windows a fit needs
"$REVEAL" agent --listen "127.0.0.1:$PORT" --learn 3s --store '' --state-dir "$IT_TMP/st" \
	--set refit=0 --set detect.window=1s --set detect.step=250ms -q >agent.out 2>agent.err &
AGENT=$!
trap 'kill "$AGENT" 2>/dev/null; wait 2>/dev/null; it_cleanup' EXIT
detecting() {
	curl -sf "$URL/api/v1/status" >status.json && grep -q '"state":"detecting"' status.json
}
i=0
while ! detecting && [ $i -lt 60 ]; do
	sleep 1
	i=$((i + 1))
done
if detecting && curl -sf "$URL/metrics" >metrics.txt; then
	ok "a live agent detects after ${i}s and serves /metrics"
else
	not_ok "a live agent detects and serves /metrics"
	show agent.err
fi
kill "$AGENT" 2>/dev/null
wait "$AGENT" 2>/dev/null

sed -n 's/^# TYPE \([a-zA-Z_:][a-zA-Z0-9_:]*\) .*/\1/p' metrics.txt 2>/dev/null | sort -u >have.txt
# names the agent only exports with http.raw_channels: true
echo reveal_channel_value >>have.txt
sort -u -o have.txt have.txt
grep -o 'reveal_[a-zA-Z0-9_]*' exprs.txt | sort -u >dash-names.txt
grep -o 'reveal_[a-zA-Z0-9_]*' "$D/prometheus/reveal-alerts.yml" | sort -u >alert-names.txt
check "/metrics lists the families (>= 25: $(wc -l <have.txt))" test "$(wc -l <have.txt)" -ge 25
for f in dash-names.txt alert-names.txt; do
	missing=$(comm -23 "$f" have.txt | tr '\n' ' ')
	if [ "$(wc -l <"$f")" -ge 5 ] && [ -z "$missing" ]; then
		ok "$f: all $(wc -l <"$f") reveal_* names are on /metrics"
	else
		not_ok "$f: names not on /metrics: ${missing:-(too few names: $(wc -l <"$f"))}"
	fi
done
# the names the brief asks for by name are the ones used
for m in reveal_fused_score reveal_fused_threshold reveal_incidents_open reveal_incidents_total \
	reveal_learning_progress_ratio reveal_source_collect_seconds reveal_cpu_seconds_total \
	reveal_samples_missed_total reveal_sink_errors_total; do
	if ! grep -qx "$m" dash-names.txt; then
		not_ok "the dashboard shows $m"
		dash_missing=1
	fi
done
[ -z "${dash_missing:-}" ] && ok "the dashboard shows score, threshold, incidents, learning, sources, CPU, misses, sink errors"

# ------------------------------------------------------------ Kubernetes

K="$D/kubernetes/daemonset.yaml"
if python3 -c 'import yaml' 2>/dev/null; then
	how="python3-yaml"
	python3 - "$K" >cm.yaml 2>cm.err <<'PY'
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
kinds = sorted(d["kind"] for d in docs)
assert kinds == ["ConfigMap", "DaemonSet", "Namespace", "Service", "ServiceAccount"], kinds
cm = [d for d in docs if d["kind"] == "ConfigMap"][0]
sys.stdout.write(cm["data"]["reveal.yaml"])
PY
else
	# the block scalar under "reveal.yaml: |", less its indentation
	how="awk"
	awk '
		/^  reveal\.yaml: \|/ { on = 1; next }
		on && /^[^ \t]/ { exit }
		on && /^[ \t]*$/ { print ""; next }
		on { match($0, /^ */); if (!ind) ind = RLENGTH; if (RLENGTH < ind) exit; print substr($0, ind + 1) }
	' "$K" >cm.yaml 2>cm.err
fi
run agent --check-config cm.yaml
if [ "$RC" -eq 0 ] && grep -q 'collect:' cm.yaml; then
	ok "the ConfigMap's reveal.yaml ($how) passes --check-config"
else
	not_ok "the ConfigMap's reveal.yaml ($how) passes --check-config"
	show cm.err
	show err.txt
fi
{ cat cm.yaml; printf 'detect:\n  bogus_key: 1\n'; } >cm-bad.yaml
run agent --check-config cm-bad.yaml
expect_rc "a broken copy of it is refused" 2
run agent --print-config --config cm.yaml
check "it reads the host's /proc and /sys under /host" grep -Eq '^  root: "?/host"?$' out.txt
check "it serves on every interface, port 9464" grep -Eq '^  listen: "?:9464"?$' out.txt
check "its store and model are under /var/lib/reveal" \
	sh -c "grep -Eq '^state_dir: \"?/var/lib/reveal\"?\$' out.txt && grep -Eq '^  path: \"?/var/lib/reveal/reveal.db\"?\$' out.txt"
check "the DaemonSet mounts /proc and /sys read-only at /host" \
	sh -c "grep -A1 'mountPath: /host/proc\$' '$K' | grep -q 'readOnly: true' && grep -A1 'mountPath: /host/sys\$' '$K' | grep -q 'readOnly: true' && grep -Eq '^ +path: /proc\$' '$K' && grep -Eq '^ +path: /sys\$' '$K'"
check "the DaemonSet runs the agent on the ConfigMap's file" \
	sh -c "grep -q 'mountPath: /etc/reveal\$' '$K' && grep -q -- '- /etc/reveal/reveal.yaml' '$K'"
check "the DaemonSet uses the node's network, adds PERFMON only, read-only root" \
	sh -c "grep -Eq '^ +hostNetwork: true' '$K' && grep -q 'add: \[\"PERFMON\"\]' '$K' && grep -q 'drop: \[\"ALL\"\]' '$K' && grep -q 'readOnlyRootFilesystem: true' '$K'"
check "probes on /api/v1/status, scrape annotations, headless Service" \
	sh -c "[ \$(grep -c 'path: /api/v1/status' '$K') -eq 2 ] && grep -q 'prometheus.io/scrape: \"true\"' '$K' && grep -q 'clusterIP: None' '$K'"

# ------------------------------------------------------------ reveal.yaml

run agent --check-config "$D/reveal.yaml"
expect_rc "deploy/reveal.yaml passes --check-config" 0

# ------------------------------------------------------------ systemd

U="$D/reveal.service"
EXEC=$(sed -n 's/^ExecStart=//p' "$U")
check "ExecStart runs /usr/local/bin/reveal agent --config /etc/reveal/reveal.yaml" \
	sh -c "printf '%s\n' '$EXEC' | grep -Eq '^/usr/local/bin/reveal agent .*--config /etc/reveal/reveal.yaml( |\$)'"
# the same flags, on this binary with deploy/reveal.yaml, are accepted
# shellcheck disable=SC2046 # ExecStart's words, split as systemd splits them
set -- $(printf '%s\n' "$EXEC" | sed -e 's#^/usr/local/bin/reveal ##' -e "s#/etc/reveal/reveal.yaml#$D/reveal.yaml#")
run "$@" --print-config
if [ "$RC" -eq 0 ] && grep -Eq '^state_dir: "?/var/lib/reveal"?$' out.txt &&
	grep -Eq '^  path: "?/var/lib/reveal/reveal.db"?$' out.txt; then
	ok "the agent accepts ExecStart's flags: state and store under /var/lib/reveal"
else
	not_ok "the agent accepts ExecStart's flags: state and store under /var/lib/reveal"
	show err.txt
fi
# shellcheck disable=SC2016 # $MAINPID is the unit's, literal
keys_ok() {
	grep -q '^Type=simple$' "$U" && grep -q '^ExecReload=/bin/kill -HUP \$MAINPID$' "$U" &&
		grep -q '^Restart=on-failure$' "$U" && grep -q '^DynamicUser=yes$' "$U" &&
		grep -q '^StateDirectory=reveal$' "$U" && grep -q '^AmbientCapabilities=CAP_PERFMON$' "$U" &&
		grep -q '^CapabilityBoundingSet=CAP_PERFMON$' "$U" && grep -q '^NoNewPrivileges=yes$' "$U" &&
		grep -q '^ProtectSystem=strict$' "$U" && grep -q '^MemoryMax=' "$U" && grep -q '^CPUQuota=' "$U" &&
		grep -q '^WantedBy=multi-user.target$' "$U"
}
if ! keys_ok; then
	not_ok "the unit has its keys (Type, ExecReload, Restart, DynamicUser, StateDirectory, CAP_PERFMON, limits)"
elif command -v systemd-analyze >/dev/null 2>&1; then
	# verify wants ExecStart's binary to exist: this one stands in for it
	mkdir -p unit
	sed "s#^ExecStart=/usr/local/bin/reveal #ExecStart=$REVEAL #" "$U" >unit/reveal.service
	if systemd-analyze verify unit/reveal.service >sv.txt 2>&1 && ! grep -q . sv.txt; then
		ok "systemd-analyze verify accepts the unit (and it has its keys)"
	else
		not_ok "systemd-analyze verify accepts the unit"
		show sv.txt
	fi
else
	ok "the unit has its keys (systemd-analyze not installed: checked the keys only)"
fi

it_finish
