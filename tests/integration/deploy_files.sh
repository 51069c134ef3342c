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
# The fleet: reveal-fleet-rules.yml passes promtool, and its own test file
# (reveal-fleet-rules.test.yml) shows each alert fire, labels and text
# included, and not otherwise (and fails on a broken copy of the rules);
# reveal-scrape.yml stays valid with its commented fleet job and rule file
# uncommented. The fleet dashboard is JSON with its datasource/cluster/
# group/channel variables, a nodes x time map of straggler scores and a
# drift table, and its queries parse. Every reveal_fleet_* and
# reveal_remote_write_* name of the rules and dashboards is exported by
# src/fleet/serve.c or src/agent/api.c, every other name the fleet files
# use is a series of the agents' remote write (src/agent/remote.c).
# reveal-fleet.service: ExecStart's flags are in `reveal fleet --help`, and
# run here they serve /metrics and /healthz (against a storage that is not
# there: reveal_fleet_up 0) until SIGTERM ends them with status 0; its
# hardening keys, and `systemd-analyze verify` when present.
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
# the fleet job and its rule file, commented there, uncommented in a copy
mkdir prom
cp "$D"/prometheus/*.yml prom/
sed -e 's/^  # - reveal-fleet-rules.yml$/  - reveal-fleet-rules.yml/' \
	-e '/^  # - job_name: fleet$/,/^$/s/^  # /  /' "$D/prometheus/reveal-scrape.yml" >prom/reveal-scrape.yml
if grep -q '^  - job_name: fleet$' prom/reveal-scrape.yml && grep -q '^  - reveal-fleet-rules.yml$' prom/reveal-scrape.yml &&
	promtool check config prom/reveal-scrape.yml >pcf.txt 2>&1; then
	ok "promtool check config reveal-scrape.yml with its fleet job and rules uncommented"
else
	not_ok "promtool check config reveal-scrape.yml with its fleet job and rules uncommented"
	show pcf.txt
fi
for f in reveal-alerts.yml reveal-fleet-rules.yml; do
	if promtool check rules "$D/prometheus/$f" >pr.txt 2>&1; then
		ok "promtool check rules $f: $(grep -o '[0-9]* rules found' pr.txt)"
	else
		not_ok "promtool check rules $f"
		show pr.txt
	fi
done
# alerts_in FILE NAME...: each alert NAME is defined in deploy/prometheus/FILE.
alerts_in() {
	ai_file=$1
	shift
	for a; do
		check "alert $a is defined" grep -q "alert: $a\$" "$D/prometheus/$ai_file"
	done
}
alerts_in reveal-alerts.yml RevealIncidentOpen RevealAgentDown RevealSamplesMissed RevealSinkErrors \
	RevealLearningStuck
alerts_in reveal-fleet-rules.yml RevealFleetStraggler RevealFleetConfigDrift RevealFleetAnalysisFailing \
	RevealRemoteWriteDropping RevealRemoteWriteFailing

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

# The fleet rules come with their own test file, annotations included;
# it tests every alert of the file, and fails on a copy of the rules
# whose straggler alert fires for every node.
FT="$D/prometheus/reveal-fleet-rules.test.yml"
untested=$(sed -n 's/^ *- alert: //p' "$D/prometheus/reveal-fleet-rules.yml" | while read -r a; do
	grep -q "alertname: $a\$" "$FT" || printf '%s ' "$a"
done)
if [ -z "$untested" ] && promtool test rules "$FT" >ft.txt 2>&1; then
	ok "promtool test rules reveal-fleet-rules.test.yml: every fleet alert fires when it should, with its labels and text"
else
	not_ok "promtool test rules reveal-fleet-rules.test.yml (alerts not tested: ${untested:-none})"
	show ft.txt
fi
sed 's/reveal_fleet_straggler == 1/reveal_fleet_straggler >= 0/' "$D/prometheus/reveal-fleet-rules.yml" \
	>prom/reveal-fleet-rules.yml
cp "$FT" prom/
if grep -q 'reveal_fleet_straggler >= 0' prom/reveal-fleet-rules.yml &&
	! promtool test rules prom/reveal-fleet-rules.test.yml >/dev/null 2>&1; then
	ok "the fleet rules' test fails when RevealFleetStraggler fires for every node"
else
	not_ok "the fleet rules' test fails when RevealFleetStraggler fires for every node"
fi

# ------------------------------------------------------------ Grafana

# dash_exprs FILE KIND: prints the queries of the dashboard FILE, one a
# line, and checks it (KIND "agents" or "fleet" names the variables and
# panels it must have): the status says whether it passed.
dash_exprs() {
	python3 - "$1" "$2" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
kind = sys.argv[2]
assert d.get("schemaVersion", 0) >= 36, "schemaVersion %s" % d.get("schemaVersion")
var = {v["name"]: v for v in d["templating"]["list"]}
assert var["datasource"]["type"] == "datasource" and var["datasource"]["query"] == "prometheus"
def query(name):
    v = var[name]
    assert v["type"] == "query" and v["datasource"]["uid"] == "${datasource}", name
    q = v["query"]
    return (q["query"] if isinstance(q, dict) else q).replace(" ", "")
ids = []
exprs = []
def walk(o):
    if isinstance(o, dict):
        if "gridPos" in o:
            ids.append(o.get("id"))
            if o.get("type") != "row":
                ds = o.get("datasource", {})
                assert ds.get("uid") == "${datasource}", "%s: datasource %s" % (o.get("title"), ds)
                assert o.get("targets"), "%s: no query" % o.get("title")
        for k, v in o.items():
            if k == "expr":
                exprs.append(" ".join(v.split()))
            else:
                walk(v)
    elif isinstance(o, list):
        for x in o:
            walk(x)
walk(d)
for e in exprs:
    print(e)
assert len(ids) == len(set(ids)), "panel ids repeat"
used = set(re.findall(r"\$\{?([a-z]\w*)", " ".join(exprs)))
assert used <= set(var), "undefined variables %s" % (used - set(var))
panels = d["panels"]
def targets(types):
    return [t["expr"] for p in panels if p["type"] in types for t in p["targets"]]
if kind == "agents":
    assert query("host") == "label_values(reveal_build_info,host)", query("host")
    query("instance")
    assert any(p.get("repeat") == "instance" for p in panels), "no row repeated by instance"
else:
    assert query("cluster") == "label_values(reveal_channel_mean,cluster)", query("cluster")
    assert query("group").startswith("label_values(reveal_channel_mean{cluster=~\"$cluster\"}")
    assert "$group" in query("channel") and query("channel").endswith(",channel)")
    assert any("reveal_fleet_straggler_score" in e
               for e in targets(("heatmap", "status-history", "state-timeline"))), "no nodes x time map"
    assert any(re.search(r"reveal_fleet_drift\{[^}]*\} == 1$", e) for e in targets(("table",))), \
        "no table of current drift"
    assert any(e.startswith("quantile by (cluster, group) (0.5, reveal_channel_mean{")
               and "$channel" in e for e in targets(("timeseries",))), "no group median of $channel"
PY
}

# promql_parse EXPRS RULES: each query of the file EXPRS, the Grafana
# variables substituted, becomes a recording rule of RULES, which promtool
# checks (its output in RULES.txt).
promql_parse() {
	{
		echo "groups:"
		echo "  - name: dashboard"
		echo "    rules:"
		n=0
		while IFS= read -r e; do
			n=$((n + 1))
			# shellcheck disable=SC2016 # Grafana's $variables, literal
			e=$(printf '%s' "$e" | sed -e 's/\$__rate_interval/1m/g; s/\$__range/1h/g; s/\$__interval/1m/g' \
				-e 's/\${\{0,1\}\(instance\|host\|cluster\|group\|channel\)}\{0,1\}/.*/g' -e "s/'/''/g")
			echo "      - record: dashboard:q$n"
			echo "        expr: '$e'"
		done <"$1"
	} >"$2"
	[ -s "$1" ] && promtool check rules "$2" >"$2.txt" 2>&1
}

for kind in agents fleet; do
	dash="$D/grafana/reveal-dashboard.json"
	[ $kind = fleet ] && dash="$D/grafana/reveal-fleet-dashboard.json"
	exprs=exprs.txt
	[ $kind = fleet ] && exprs=fleet-exprs.txt
	if dash_exprs "$dash" $kind >$exprs 2>dash.err; then
		ok "the Grafana dashboard ${dash##*/} is JSON with its variables, $(wc -l <$exprs) queries"
	else
		not_ok "the Grafana dashboard ${dash##*/} is JSON with its variables"
		show dash.err
	fi
	# Every query parses as PromQL: the Grafana variables substituted, each
	# becomes a recording rule that promtool checks.
	if promql_parse $exprs $kind-rules.yml; then
		ok "every query of ${dash##*/} parses as PromQL"
	else
		not_ok "every query of ${dash##*/} parses as PromQL"
		show $kind-rules.yml.txt
	fi
done

# The fleet's names: reveal_fleet_* from the fleet server's /metrics,
# reveal_remote_write_* from the agent's (both only while there is
# something to say, so their sources are searched), any other name of
# the fleet dashboard and rules from the agents' remote write.
{
	grep -hv '^[[:space:]]*#' "$D"/prometheus/reveal-*.yml
	cat exprs.txt fleet-exprs.txt
} | grep -o 'reveal_[a-zA-Z0-9_]*' | sort -u >used.txt
grep '^reveal_fleet_' used.txt >fleet-names.txt
grep '^reveal_remote_write_' used.txt >rw-names.txt
{
	grep -v '^[[:space:]]*#' "$D/prometheus/reveal-fleet-rules.yml"
	cat fleet-exprs.txt
} | grep -o 'reveal_[a-zA-Z0-9_]*' | grep -v '^reveal_fleet_\|^reveal_remote_write_' | sort -u >summary-names.txt
for row in "fleet-names.txt src/fleet/serve.c 10" "rw-names.txt src/agent/api.c 6" \
	"summary-names.txt src/agent/remote.c 6"; do
	# shellcheck disable=SC2086 # three words
	set -- $row
	missing=$(while IFS= read -r n; do grep -qF "\"$n\"" "$SRC/$2" || printf '%s ' "$n"; done <"$1")
	if [ "$(wc -l <"$1")" -ge "$3" ] && [ -z "$missing" ]; then
		ok "$1: all $(wc -l <"$1") names are series of $2"
	else
		not_ok "$1: names not in $2: ${missing:-(too few names: $(wc -l <"$1"))}"
	fi
done

# ------------------------------------------------------------ a real agent

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
# unit_check UNIT KEYS_FN WHAT: the unit file has its keys (KEYS_FN, WHAT
# says which) and systemd-analyze verify accepts it, without a word.
unit_check() {
	if ! "$2"; then
		not_ok "${1##*/} has its keys ($3)"
	elif command -v systemd-analyze >/dev/null 2>&1; then
		# verify wants ExecStart's binary to exist: this one stands in for it
		mkdir -p unit
		sed "s#^ExecStart=/usr/local/bin/reveal #ExecStart=$REVEAL #" "$1" >"unit/${1##*/}"
		if systemd-analyze verify "unit/${1##*/}" >sv.txt 2>&1 && ! grep -q . sv.txt; then
			ok "systemd-analyze verify accepts ${1##*/} (and it has its keys)"
		else
			not_ok "systemd-analyze verify accepts ${1##*/}"
			show sv.txt
		fi
	else
		ok "${1##*/} has its keys (systemd-analyze not installed: checked the keys only)"
	fi
}
unit_check "$U" keys_ok "Type, ExecReload, Restart, DynamicUser, StateDirectory, CAP_PERFMON, limits"

# The fleet server's unit: `reveal fleet --serve` on 127.0.0.1:9465 over
# the Prometheus on 127.0.0.1:9090, every flag one that --help lists; run
# here on free ports (no storage: its analyses fail), it serves /healthz
# (503) and /metrics (reveal_fleet_up 0), and SIGTERM ends it with status 0.
UF="$D/reveal-fleet.service"
FEXEC=$(sed -n 's/^ExecStart=//p' "$UF")
check "ExecStart runs /usr/local/bin/reveal fleet --serve 127.0.0.1:9465 --prometheus http://127.0.0.1:9090" \
	sh -c "printf '%s\n' '$FEXEC' | grep -Eq '^/usr/local/bin/reveal fleet ' &&
		printf '%s\n' '$FEXEC' | grep -Eq ' --serve 127\.0\.0\.1:9465( |\$)' &&
		printf '%s\n' '$FEXEC' | grep -Eq ' --prometheus http://127\.0\.0\.1:9090( |\$)'"
run fleet --help
unknown=$(for f in $(printf '%s\n' "$FEXEC" | grep -o -- ' --[a-z-]*'); do
	grep -q -- "^ *$f " out.txt || printf '%s ' "$f"
done)
if [ "$RC" -eq 0 ] && [ -z "$unknown" ]; then
	ok "reveal fleet --help lists every flag of ExecStart"
else
	not_ok "reveal fleet --help lacks flags of ExecStart: ${unknown:-(--help failed)}"
fi
FPORT=$(free_port)
NOSTORE=$(free_port)
# shellcheck disable=SC2046 # ExecStart's words, split as systemd splits them
set -- $(printf '%s\n' "$FEXEC" | sed -e 's#^/usr/local/bin/reveal ##' \
	-e "s#127.0.0.1:9465#127.0.0.1:$FPORT#" -e "s#http://127.0.0.1:9090#http://127.0.0.1:$NOSTORE#")
"$REVEAL" "$@" >fleet.out 2>fleet.err &
FLEET=$!
trap 'kill "$FLEET" 2>/dev/null; wait 2>/dev/null; it_cleanup' EXIT
fleet_failing() {
	[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$FPORT/healthz")" = 503 ] &&
		curl -sf "http://127.0.0.1:$FPORT/metrics" >fleet-metrics.txt &&
		grep -q '^reveal_fleet_up 0$' fleet-metrics.txt &&
		grep -Eq '^reveal_fleet_analysis_errors_total [1-9]' fleet-metrics.txt
}
if wait_for 20 fleet_failing; then
	ok "the fleet server runs with ExecStart's flags: /healthz 503, reveal_fleet_up 0 without a storage"
else
	not_ok "the fleet server runs with ExecStart's flags and serves /healthz and /metrics"
	show fleet.err
fi
kill -TERM "$FLEET" 2>/dev/null
wait "$FLEET"
RC=$?
expect_rc "SIGTERM stops the fleet server" 0
fleet_keys_ok() {
	grep -q '^Type=simple$' "$UF" && grep -q '^Restart=on-failure$' "$UF" &&
		grep -q '^RestartPreventExitStatus=2$' "$UF" && grep -q '^DynamicUser=yes$' "$UF" &&
		grep -q '^CapabilityBoundingSet=$' "$UF" && ! grep -Eq '^AmbientCapabilities=.' "$UF" &&
		grep -q '^NoNewPrivileges=yes$' "$UF" && grep -q '^ProtectSystem=strict$' "$UF" &&
		grep -q '^PrivateDevices=yes$' "$UF" && grep -q '^ProtectProc=invisible$' "$UF" &&
		! grep -q '^StateDirectory=' "$UF" && grep -q '^MemoryMax=' "$UF" &&
		grep -q '^CPUQuota=' "$UF" && grep -q '^WantedBy=multi-user.target$' "$UF"
}
unit_check "$UF" fleet_keys_ok "Type, Restart, DynamicUser, no capability or state, no devices, limits"

it_finish
