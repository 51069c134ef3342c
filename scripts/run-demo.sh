#!/bin/sh
# `make run`: the main job until `reveal agent` exists. Generates the
# synthetic training-job telemetry with three planted faults, fits reveal on
# the clean part, scores the faulty part and prints the incidents.
#
#   scripts/run-demo.sh [path/to/reveal]
set -eu
REVEAL=${1:-build/reveal}
DIR=${REVEAL_DEMO_DIR:-build/demo}

if [ ! -x "$REVEAL" ]; then
    echo "run-demo.sh: $REVEAL not found; run 'make' first" >&2
    exit 1
fi
mkdir -p "$DIR"
echo "== reveal synth: 10 min of training, 5 min of test telemetry with planted faults"
"$REVEAL" synth -o "$DIR"
echo
echo "== reveal detect: fit on $DIR/train.csv, score $DIR/test.csv"
"$REVEAL" detect --train "$DIR/train.csv" --test "$DIR/test.csv" \
    -o "$DIR/windows.csv" --incidents "$DIR/incidents.json" --save-model "$DIR/model.rvm"
echo
echo "Per-window verdicts: $DIR/windows.csv"
echo "Incidents as JSON:   $DIR/incidents.json"
echo "Fitted model:        $DIR/model.rvm (reuse: reveal detect --model $DIR/model.rvm --test ...)"
