#!/bin/sh
# k8s-taint.sh - an incident action of `reveal agent` (docs/AGENT.md,
# "Actions"; deploy/README.md, "Incident actions"): taints this Kubernetes
# node while reveal has an incident open on it, so that the scheduler
# places no new pods there, and removes the taint when the incident closes.
#
#   actions:
#     - name: taint-node
#       on: [open, close]
#       min_severity: major
#       command: ["/etc/reveal/actions/k8s-taint.sh"]
#       timeout: 20s
#
# The agent runs it with REVEAL_EVENT (open or close), REVEAL_SUBSYSTEM
# (cpu, gpu, mem, net, storage, other) and REVEAL_INCIDENT_ID in the
# environment (the incident's JSON on stdin is not needed, and not read).
# The node is NODE, else NODE_NAME (the DaemonSet sets it from
# spec.nodeName), else this host's name. The taint is
# reveal.io/anomaly=SUBSYSTEM:NoSchedule: pods already running stay
# (NoExecute would evict them). kubectl (KUBECTL names another program)
# needs credentials allowed to patch nodes: deploy/README.md has the RBAC.
#
# Incidents that overlap: each open sets the taint again (--overwrite: the
# value is the newest subsystem) and the first close removes it. A close
# whose taint is already gone succeeds. Exit status: kubectl's, 2 when
# REVEAL_EVENT is neither open nor close.
set -eu

node=${NODE:-${NODE_NAME:-$(hostname)}}
kubectl=${KUBECTL:-kubectl}
key=reveal.io/anomaly

case ${REVEAL_EVENT:-} in
open)
	exec "$kubectl" taint nodes "$node" "$key=${REVEAL_SUBSYSTEM:-other}:NoSchedule" --overwrite
	;;
close)
	if out=$("$kubectl" taint nodes "$node" "$key:NoSchedule-" 2>&1); then
		printf '%s\n' "$out"
		exit 0
	fi
	case $out in
	*"not found"*) exit 0 ;;   # removed already (by hand, or an earlier close)
	esac
	printf '%s\n' "$out" >&2
	exit 1
	;;
*)
	echo "k8s-taint.sh: REVEAL_EVENT is '${REVEAL_EVENT:-}', not open or close (reveal agent runs this: docs/AGENT.md, Actions)" >&2
	exit 2
	;;
esac
