#!/bin/sh
# prune_cli.sh - `reveal prune` on two small fleet recordings:
#
# - it writes a metric set whose counts match the summary it prints (kept,
#   dropped, constant, per subsystem adding up), whose every dropped
#   channel names a kept one and an r above the threshold, and which the
#   reader accepts (`reveal agent --replay --metric-set` watches exactly
#   the kept channels);
# - the channels the knowledge base's rules read are kept (also constant
#   ones with --drop-constant), pruned like any with --kb-signals prune;
# - the result does not depend on the order of the inputs; --threshold is
#   written into the file; -q prints nothing;
# - bad usage and bad input exit 2 naming the problem (no input, no -o, a
#   bad --threshold or --gaps, a missing file, a CSV column that is not a
#   channel name, too few samples, nothing that varies) and leave an
#   existing output as it was;
#   an output that cannot be written exits 1.
#
# About 1 s.

. "$SRC/tests/integration/lib.sh.inc"
it_setup

FX="$SRC/tests/fixtures/fleet"
cp "$FX/node1.rvl" "$FX/node2.rvl" .

# ------------------------------------------------------------- the set
run prune node1.rvl node2.rvl -o all.yaml
expect_rc "prune two recordings, constant channels kept (the default)" 0
check "a channel constant in both is kept by default" grep -qx '  - mem.mem_total_bytes' all.yaml
check "no constant list then" sh -c "! grep -q '^constant:' all.yaml || grep -qx 'constant: \[\]' all.yaml"
check "the summary says how many constant ones are kept" grep -q 'constant ones (--drop-constant leaves them out)' out.txt
run prune --drop-constant node1.rvl node2.rvl -o set.yaml
expect_rc "prune two recordings, --drop-constant" 0
check "the set is written" test -s set.yaml
check "it says its version" grep -qx 'version: 1' set.yaml
check "it records the threshold" grep -qx 'threshold: 0.5' set.yaml
check "it records the inputs" grep -qx 'inputs: \["node1.rvl", "node2.rvl"\]' set.yaml

# section NAME: the "  - " items of the block list NAME, one a line
section() {
	awk -v k="$1:" '$1 == k { on = 1; next } /^[a-z]/ { on = 0 } on && /^  - / { sub(/^  - /, ""); print }' set.yaml
}
section keep >keep.txt
section drop >drop.txt
section constant >constant.txt
NKEEP=$(wc -l <keep.txt)
NDROP=$(wc -l <drop.txt)
NCONST=$(wc -l <constant.txt)
# "all    KEPT  DROPPED  CONSTANT"
set -- $(awk '$1 == "all" { print $2, $3, $4 }' out.txt)
check "kept in the file ($NKEEP) = the summary's ($1)" test "$NKEEP" = "${1:-x}"
check "dropped in the file ($NDROP) = the summary's ($2)" test "$NDROP" = "${2:-x}"
check "constant in the file ($NCONST) = the summary's ($3)" test "$NCONST" = "${3:-x}"
check "some channels are kept, some dropped, some constant" \
	test "$NKEEP" -gt 5 -a "$NDROP" -gt 5 -a "$NCONST" -gt 5
SUMKEPT=$(awk 'NR > 1 && $1 != "all" && NF == 4 && $2 ~ /^[0-9]+$/ { s += $2 } END { print s }' out.txt)
check "the subsystems' kept add up to all ($SUMKEPT)" test "$SUMKEPT" = "$NKEEP"
# with --drop-constant the constant channels a rule reads are kept all the same
KBCONST=$(sed -n 's/.*, and \([0-9]*\) constant ones the knowledge base reads.*/\1/p' out.txt)
KBCONST=${KBCONST:-0}
NVARY=$((NKEEP - KBCONST))
check "the summary names the file" grep -q "^wrote set.yaml: $NVARY of $((NVARY + NDROP)) varying channels kept" out.txt
check "constant channels a rule reads are kept ($KBCONST), mem.oom_kill among them" \
	sh -c "test $KBCONST -gt 0 && grep -qx 'mem.oom_kill' keep.txt"
check "cpu.busy_pct (read directly) is kept" grep -qx 'cpu.busy_pct' keep.txt
check "mem.mem_total_bytes is constant" grep -qx 'mem.mem_total_bytes' constant.txt

# every drop: {channel: C, kept: K, r: R} with K kept and |R| > 0.5
sed -n 's/^{channel: \([^,]*\), kept: \([^,]*\), r: \([-0-9.]*\)}$/\2 \3/p' drop.txt >kept_r.txt
check "every drop has channel, kept and r" test "$(wc -l <kept_r.txt)" = "$NDROP"
cut -d' ' -f1 kept_r.txt | sort -u >kept_of_drops.txt
check "every dropped channel's kept one is kept" test -z "$(sort keep.txt | comm -13 - kept_of_drops.txt)"
check "every r is above the threshold" awk '{ r = $2 < 0 ? -$2 : $2; if (r <= 0.5) exit 1 }' kept_r.txt

run agent --replay node1.rvl --learn 20s --listen "" --store "" --state-dir rp --metric-set set.yaml
expect_rc "the agent reads the set" 0
expect_err_fixed "it watches the kept channels" "watching $NKEEP of its $NKEEP channels"

# ------------------------------------------- the knowledge base's channels
# mem.numa_miss (a rule reads it), mem.compact_success (none does) and
# cpu.softirq_pct:cpu0 (a rule reads the per-CPU skew of cpu.softirq_pct)
# all follow cpu.busy_pct, in levels and in changes
awk 'BEGIN { srand(7); print "timestamp,cpu.busy_pct,mem.numa_miss,mem.compact_success,cpu.softirq_pct:cpu0"
	for (i = 0; i < 600; i++) { x = sin(i / 9) * 10 + rand()
		printf "%d,%.4f,%.4f,%.4f,%.4f\n", 1700000000 + i, x, 2 * x + rand() / 10,
			3 * x + rand() / 10, x + rand() / 10 } }' >kb.csv
# kbsec FILE NAME: the items of block list NAME of FILE, on one line
kbsec() {
	awk -v k="$2:" '$1 == k { on = 1; next } /^[a-z]/ { on = 0 }
		on && /^  - / { sub(/^  - /, ""); sub(/^\{channel: /, ""); sub(/,.*/, ""); printf "%s ", $0 }' "$1"
}
run prune kb.csv -o kb.yaml
expect_rc "prune a CSV of channels the rules read" 0
check "the rules' channels are kept by default ($(kbsec kb.yaml keep))" \
	test "$(kbsec kb.yaml keep)" = "cpu.busy_pct cpu.softirq_pct:cpu0 mem.numa_miss "
check "the one no rule reads is dropped ($(kbsec kb.yaml drop))" test "$(kbsec kb.yaml drop)" = "mem.compact_success "
check "the summary counts the two kept for the rules" \
	grep -q '^2 varying channels kept only because the knowledge base reads them' out.txt
run prune --kb-signals prune kb.csv -o kbp.yaml
expect_rc "prune --kb-signals prune" 0
check "--kb-signals prune keeps cpu.busy_pct alone ($(kbsec kbp.yaml keep))" \
	test "$(kbsec kbp.yaml keep)" = "cpu.busy_pct "
check "--kb-signals prune says nothing of the rules" sh -c "! grep -q 'knowledge base' out.txt"
run prune --kb-signals some kb.csv -o kbp.yaml
expect_rc "--kb-signals some" 2
expect_err "--kb-signals some: said" "--kb-signals some: want keep or prune"

# ------------------------------------------------------------- options
run prune --drop-constant node2.rvl node1.rvl -o swapped.yaml -q
expect_rc "prune, inputs swapped, -q" 0
check "-q prints nothing" test ! -s out.txt
check "the order of the inputs does not matter" \
	test "$(sed 1,4d set.yaml)" = "$(sed 1,4d swapped.yaml)"
run prune node1.rvl -o high.yaml --threshold 0.9 --gaps exact
expect_rc "--threshold 0.9 --gaps exact" 0
check "the threshold is written" grep -qx 'threshold: 0.9' high.yaml
run prune --help
expect_rc "--help" 0
check "--help prints the usage" grep -q '^usage: reveal prune INPUT' out.txt

# ------------------------------------------------------------- errors
cp set.yaml before.yaml
run prune -o set.yaml
expect_rc "no input" 2
expect_err_fixed "no input: says what it wants" "want at least one INPUT"
run prune node1.rvl
expect_rc "no -o" 2
expect_err_fixed "no -o: says so" "-o/--output METRICSET.yaml is required"
for bad in 1.5 0 1 abc -0.2; do
	run prune node1.rvl -o set.yaml --threshold "$bad"
	expect_rc "--threshold $bad" 2
	expect_err_fixed "--threshold $bad: named" "--threshold $bad: want a number between 0 and 1"
done
run prune node1.rvl -o set.yaml --gaps some
expect_rc "--gaps some" 2
run prune node1.rvl missing.rvl -o set.yaml
expect_rc "a missing input" 2
expect_err "a missing input: named" "missing\\.rvl"
printf 'timestamp,cpu.busy_pct,CPU Busy\n1,1,2\n2,2,3\n' >badname.csv
run prune badname.csv -o set.yaml
expect_rc "a column that is not a channel name" 2
expect_err_fixed "the column is named with its file" "badname.csv: column 3: 'CPU Busy' is not a channel name"
printf 'timestamp,cpu.busy_pct\n1,1\n2,2\n' >short.csv
run prune short.csv -o set.yaml
expect_rc "too few samples" 2
expect_err_fixed "too few samples: named" "short.csv: 1 channels x 2 samples: too few to correlate"
{ echo timestamp,cpu.busy_pct,mem.mem_total_bytes; for i in 1 2 3 4 5 6 7 8 9 10 11 12; do echo "$i,5,7"; done; } >flat.csv
run prune flat.csv -o set.yaml
expect_rc "nothing varies" 2
expect_err_fixed "nothing varies: said" "no channel varies in any input (2 constant)"
check "a failed run leaves the old set as it was" cmp -s set.yaml before.yaml
run prune node1.rvl -o nodir/set.yaml
expect_rc "an output folder that does not exist" 1
expect_err_fixed "the output is named" "nodir/set.yaml"
check "no partial file is left" test ! -e nodir

it_finish
