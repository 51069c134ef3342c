#!/bin/sh
# detect-identical.sh - runs `reveal detect` over the labelled DEV entities
# of ../shared/data and a synthetic set (`reveal synth`, seeds 1 and 2, one
# with 50 replicas) in several configurations, and writes every output
# (per-window CSV, incidents JSON, model file, the info JSON without its
# timings, the reports of the incidents in every format) into one folder; --check compares such a folder with another,
# byte for byte. For refactorings that must not change a result:
#
#   scripts/detect-identical.sh --save /tmp/before build-old/reveal
#   ... change the code, rebuild ...
#   scripts/detect-identical.sh --check /tmp/before build/reveal
#
# The second run writes into a fresh folder beside (DIR.new.XXXXXX, removed
# when identical) and exits 1 naming every file that differs (or is
# missing on one side). With STORE=DB also the reports of an agent's
# store (DB is only read). About a minute on 2 cores. Needs the shared
# data folder (../shared/data beside the checkout, or DATA=folder).
set -u

usage() {
	echo "usage: scripts/detect-identical.sh --save DIR|--check DIR [REVEAL]" >&2
	exit 2
}
[ $# -ge 2 ] || usage
mode=$1
dir=$2
reveal=$(realpath "${3:-build/reveal}")
case $mode in --save|--check) ;; *) usage ;; esac
root=$(cd "$(dirname "$0")/.." && pwd)
data=${DATA:-$root/../shared/data}
[ -x "$reveal" ] || { echo "detect-identical: no executable $reveal" >&2; exit 2; }
[ -d "$data/smd" ] || { echo "detect-identical: no data in $data (set DATA)" >&2; exit 2; }

out=$dir
if [ "$mode" = --check ]; then
	out=$(mktemp -d "$dir.new.XXXXXX") || exit 2
else
	rm -rf "$out"
fi
mkdir -p "$out/in" || exit 2

# Inputs: every DEV entity, then the synthetic sets.
for f in "$data"/*/*_test.csv.gz; do
	e=$(basename "$f" _test.csv.gz)
	gzip -dc "$f" >"$out/in/${e}_test.csv"
	gzip -dc "$(dirname "$f")/${e}_train.csv.gz" >"$out/in/${e}_train.csv"
done
"$reveal" synth -o "$out/in/synth1" --seed 1 2>/dev/null || exit 1
"$reveal" synth -o "$out/in/synth50" --seed 2 --replicas 50 \
	--train-duration 4m --test-duration 2m 2>/dev/null || exit 1
for s in synth1 synth50; do
	mv "$out/in/$s/train.csv" "$out/in/${s}_train.csv"
	mv "$out/in/$s/test.csv" "$out/in/${s}_test.csv"
	rm -rf "${out:?}/in/$s"
done

# name|flags: the configurations the evaluation uses.
configs='default|
paper|--preset paper
nospe|--detectors zscore,pca,iforest
vote|--fusion vote --votes 2
ensattr|--attribution ensemble
geo|--fuse-mean arithmetic --zscore-top 1'

n=0
for tr in "$out"/in/*_train.csv; do
	e=$(basename "$tr" _train.csv)
	te=$out/in/${e}_test.csv
	echo "$configs" | while IFS='|' read -r name flags; do
		p=$out/$e.$name
		# shellcheck disable=SC2086
		"$reveal" detect -q --train "$tr" --test "$te" -o "$p.csv" $flags \
			--incidents "$p.incidents.json" --save-model "$p.model" \
			--info-json "$p.info.json" 2>"$p.stderr" || echo "exit $?" >>"$p.stderr"
		# The info JSON without its timings (the keys ending in _s or _ms).
		if [ -f "$p.info.json" ]; then
			sed -E 's/"([a-z_]*_(s|ms))": *[0-9.eE+-]+/"\1": T/g' "$p.info.json" >"$p.info"
			rm -f "$p.info.json"
		fi
		# Scoring with the saved model gives the same windows again.
		"$reveal" detect -q --model "$p.model" --test "$te" -o "$p.loaded.csv" \
			2>>"$p.stderr" || echo "exit $? (--model)" >>"$p.stderr"
		# The report of its incidents, worked out from the data.
		[ "$name" = default ] || [ "$name" = paper ] || continue
		# Run inside the folder, so that the paths it names are the same.
		for fmt in text markdown json html; do
			(cd "$out" && "$reveal" report --incidents "$e.$name.incidents.json" \
				--data "in/${e}_test.csv" --format "$fmt") 2>>"$p.stderr" |
				sed -E 's/(Generated:?\** *|"generated_ts":|"generated":")[0-9T:Z-]+/\1G/g' \
				>"$p.report.$fmt"
		done
	done
	n=$((n + 1))
	echo "detect-identical: $e done ($n)" >&2
done
rm -rf "${out:?}/in"

# With STORE=DB (an agent's store), the reports of the store too: every
# format, the summary and two filters.
if [ -n "${STORE:-}" ]; then
	for args in "--format text" "--format markdown" "--format json" "--format html" \
		"--summary" "--min-severity major" "--subsystem cpu"; do
		f=$out/store.$(echo "$args" | tr -d ' -')
		# shellcheck disable=SC2086
		"$reveal" report --store "$STORE" $args 2>"$f.stderr" |
			sed -E 's/(Generated:?\** *|"generated_ts":|"generated":")[0-9T:Z-]+/\1G/g' >"$f"
	done
fi
[ "$mode" = --save ] && { echo "detect-identical: saved $(ls "$out" | wc -l) files in $out"; exit 0; }

bad=0
for f in "$dir"/* "$out"/*; do
	b=$(basename "$f")
	if [ ! -f "$dir/$b" ] || [ ! -f "$out/$b" ]; then
		echo "only on one side: $b"
		bad=1
	elif ! cmp -s "$dir/$b" "$out/$b"; then
		echo "differs: $b"
		bad=1
	fi
done | sort -u | tee "$out.diff"
[ -s "$out.diff" ] && { echo "detect-identical: DIFFERENT ($(wc -l <"$out.diff") files; $out)"; exit 1; }
echo "detect-identical: identical ($(ls "$dir" | wc -l) files)"
rm -rf "$out.diff" "${out:?}"
