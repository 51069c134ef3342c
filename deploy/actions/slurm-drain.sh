#!/bin/sh
# slurm-drain.sh - an incident action of `reveal agent` (docs/AGENT.md,
# "Actions"; deploy/README.md, "Incident actions"): drains this Slurm node
# when reveal opens an incident on it, so that no new job starts there
# while running jobs finish.
#
#   actions:
#     - name: slurm-drain
#       on: [open]
#       min_severity: major
#       command: ["/etc/reveal/actions/slurm-drain.sh"]
#       timeout: 20s
#
# The reason names the incident ("reveal: incident 12 gpu"), so that
# `sinfo -R` says why and `reveal report --store ... --incident 12` explains it.
# Nothing happens on close: a person looks at the node and resumes it
# (scontrol update nodename=NODE state=resume); a close event is accepted
# and ignored, so `on: [open, close]` does no harm. The node is NODE, else
# this host's short name (Slurm's NodeName as a rule). scontrol (SCONTROL
# names another program) must run as a Slurm operator or administrator:
# deploy/README.md says how to give the agent one. Exit status:
# scontrol's, 2 when REVEAL_EVENT is neither open nor close.
set -eu

scontrol=${SCONTROL:-scontrol}

case ${REVEAL_EVENT:-} in
open)
	node=${NODE:-$(hostname -s)}
	exec "$scontrol" update nodename="$node" state=drain \
		reason="reveal: incident ${REVEAL_INCIDENT_ID:-?} ${REVEAL_SUBSYSTEM:-?}"
	;;
close)
	exit 0
	;;
*)
	echo "slurm-drain.sh: REVEAL_EVENT is '${REVEAL_EVENT:-}', not open or close (reveal agent runs this: docs/AGENT.md, Actions)" >&2
	exit 2
	;;
esac
