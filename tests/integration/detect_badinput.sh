#!/bin/sh
# detect_badinput.sh - `reveal detect` on bad input and bad usage.
#
# Each malformed file must stop the run with exit status 2 and a message
# that points at the place (FILE:LINE:COLUMN:, or FILE:LINE: for a row with
# the wrong field count, as record/csv.h documents) and says what is wrong.
# Bad flags must also exit 2. Missing cells (empty, nan, inf) are not
# errors: they are filled and counted in the summary line.

. "$SRC/tests/integration/lib.sh.inc"
it_setup

# A small valid table: 40 rows, two channels, one-second timestamps.
good_table() {
	printf 'timestamp,a.x,b.y\n'
	i=0
	while [ $i -lt 40 ]; do
		printf '%d,%d.5,%d\n' $((1000 + i)) $((i % 7)) $((i * 3 % 11))
		i=$((i + 1))
	done
}
good_table >good.csv

# bad_train DESC FILE ERE...: --train FILE exits 2 and stderr matches every ERE.
bad_train() {
	bt_desc=$1
	bt_file=$2
	shift 2
	run detect --train "$bt_file" --test good.csv -o o.csv
	expect_rc "$bt_desc" 2
	for bt_re in "$@"; do
		expect_err "$bt_desc" "$bt_re"
	done
}

# bad_usage DESC ERE ARGS...: `reveal detect ARGS` exits 2, stderr matches ERE.
bad_usage() {
	bu_desc=$1
	bu_re=$2
	shift 2
	run detect "$@"
	expect_rc "$bu_desc" 2
	expect_err "$bu_desc" "$bu_re"
}

# ---- malformed tables -------------------------------------------------

printf 'timestamp,a.x,b.y\n1,2,3\n2,3\n3,4,5\n' >few.csv
bad_train "ragged row, too few fields" few.csv 'few\.csv:3:' 'row has 2 fields, header has 3'

printf 'timestamp,a.x,b.y\n1,2,3\n2,3,4,5\n3,4,5\n' >many.csv
bad_train "ragged row, too many fields" many.csv 'many\.csv:3:' 'row has 4 fields, header has 3'

printf 'timestamp,a.x,b.y\n1,2,3\n2,3,4\n3,4x,5\n' >nonnum.csv
bad_train "non-numeric cell" nonnum.csv 'nonnum\.csv:4:2: ' 'non-numeric' "'4x'" "'a\.x'"

: >empty.csv
# csv.h: an empty file is reported as PATH:LINE:COLUMN like every other error.
bad_train "empty file" empty.csv 'empty\.csv:[0-9]+:[0-9]+: ' 'empty'

printf 'timestamp,a.x,b.y\n' >hdr.csv
# csv.h: "a file with no data rows" is reported as PATH:LINE:COLUMN.
bad_train "header only" hdr.csv 'hdr\.csv:[0-9]+:[0-9]+: ' 'no data rows'

printf 'timestamp,a.x,b.y,a.x\n1,2,3,4\n2,3,4,5\n' >dup.csv
bad_train "duplicate column name" dup.csv 'dup\.csv:1:4: ' 'duplicate' "'a\.x'"

printf 'timestamp,a.x,b.y\n5,2,3\n6,3,4\n4,3,4\n' >back.csv
bad_train "timestamps going backwards" back.csv 'back\.csv:4:1: ' 'earlier'

# ---- train and test disagree -------------------------------------------

sed '1s/b\.y/c.z/' good.csv >names.csv
run detect --train good.csv --test names.csv -o o.csv
expect_rc "test column named differently" 2
expect_err "test column named differently" 'names\.csv:1:3: '
expect_err "test column named differently" "'c\.z'"
expect_err "test column named differently" "'b\.y'"

cut -d, -f1,2 good.csv >count.csv
run detect --train good.csv --test count.csv -o o.csv
expect_rc "test with fewer columns" 2
expect_err "test with fewer columns" 'count\.csv:1:[0-9]+: '
expect_err "test with fewer columns" "b\.y|1 channel"

# ---- bad usage ---------------------------------------------------------

bad_usage "unknown flag" 'bogus' --bogus --train good.csv --test good.csv -o o.csv
bad_usage "missing --test" '--test' --train good.csv -o o.csv
bad_usage "missing -o" 'output' --train good.csv --test good.csv
bad_usage "--window abc" "--window.*'abc'|'abc'.*--window" \
	--window abc --train good.csv --test good.csv -o o.csv
bad_usage "--window 0" "--window.*'0'|'0'.*--window" \
	--window 0 --train good.csv --test good.csv -o o.csv
bad_usage "--window 3parsecs" "--window" \
	--window 3parsecs --train good.csv --test good.csv -o o.csv
bad_usage "--train with --model" '--train.*--model|--model.*--train' \
	--train good.csv --model m.bin --test good.csv -o o.csv
bad_usage "unknown --preset" "'nope'" --preset nope --train good.csv --test good.csv -o o.csv
bad_usage "stray argument" "stray" --train good.csv --test good.csv -o o.csv stray

# ---- files that cannot be read -------------------------------------------

# An input that cannot be read is bad input like a malformed one: exit 2.
run detect --train nosuch.csv --test good.csv -o o.csv
if [ "$RC" -ne 0 ]; then ok "missing input file: exit status $RC (non-zero)"; else not_ok "missing input file: exit status 0"; fi
expect_rc "missing input file" 2
expect_err "missing input file" 'nosuch\.csv: .*(No such file|not found)'

# A truncated gzip stream is bad input: the help promises exit 2 for it.
awk 'BEGIN { print "timestamp,a.x,b.y"
	for (i = 0; i < 3000; i++) printf "%d,%d.5,%d\n", 1000 + i, i % 7, i * 3 % 11 }' |
	gzip -c >big.csv.gz
run detect --train big.csv.gz --test good.csv -o o.csv
expect_err "intact .csv.gz is read" 'train big\.csv\.gz: 3000 rows x 2 channels'
big_size=$(wc -c <big.csv.gz)
head -c $((big_size / 2)) big.csv.gz >trunc.csv.gz
run detect --train trunc.csv.gz --test good.csv -o o.csv
expect_rc "truncated .csv.gz" 2
expect_err "truncated .csv.gz" 'trunc\.csv\.gz:.*gzip'

# ---- model files -------------------------------------------------------

run detect --train good.csv --test good.csv -o o.csv --save-model m.bin
expect_rc "save a model" 0
expect_err "clean table counts no missing cells" 'test good\.csv: .*missing cells: 0 empty, 0 nan, 0 inf'

# Flip one byte in the middle of the payload.
msize=$(wc -c <m.bin)
mid=$((msize / 2))
cp m.bin corrupt.bin
byte=$(od -An -tu1 -j "$mid" -N1 m.bin | tr -d ' ')
flipped=$(printf '%03o' $(((byte + 1) % 256)))
# shellcheck disable=SC2059
printf "\\$flipped" | dd of=corrupt.bin bs=1 seek="$mid" conv=notrunc 2>/dev/null
if cmp -s m.bin corrupt.bin; then not_ok "corrupt model: byte was not flipped"; else ok "corrupt model: one byte flipped at $mid"; fi
run detect --model corrupt.bin --test good.csv -o o.csv
expect_rc "corrupt model" 2
expect_err "corrupt model" 'corrupt\.bin: .*checksum'

head -c $((msize - 7)) m.bin >short.bin
run detect --model short.bin --test good.csv -o o.csv
if [ "$RC" -ne 0 ]; then ok "truncated model refused (exit $RC)"; else not_ok "truncated model accepted"; fi
expect_err "truncated model" 'short\.bin'

run detect --model good.csv --test good.csv -o o.csv
if [ "$RC" -ne 0 ]; then ok "CSV given as model refused (exit $RC)"; else not_ok "CSV given as model accepted"; fi

# Same channels, swapped order: refused, naming the column.
sed '1s/.*/timestamp,b.y,a.x/' good.csv >swap.csv
run detect --model m.bin --test swap.csv -o o.csv
expect_rc "model channels differ from test columns" 2
expect_err "model channels differ from test columns" "swap\.csv.*'b\.y'"
expect_err "model channels differ from test columns" "'a\.x'"

run detect --model m.bin --test good.csv -o o2.csv
expect_rc "model with matching test" 0
check "model with matching test: same CSV as when fitted" cmp -s o.csv o2.csv

# ---- missing cells are accepted and counted ---------------------------

awk -F, 'BEGIN { OFS = "," }
	NR == 5 { $2 = "" } NR == 6 { $3 = "" } NR == 7 { $3 = "nan" }
	NR == 8 { $2 = "NaN" } NR == 9 { $2 = "-nan" } NR == 10 { $2 = "inf" }
	NR == 11 { $3 = "-inf" } { print }' good.csv >miss.csv
run detect --train miss.csv --test miss.csv -o o.csv
expect_rc "empty, nan and inf cells" 0
expect_err "missing cells counted" 'train miss\.csv: .*missing cells: 2 empty, 3 nan, 2 inf'
expect_err "missing cells counted" 'test miss\.csv: .*missing cells: 2 empty, 3 nan, 2 inf'
rows=$(($(wc -l <o.csv) - 1))
check "missing cells: all 36 windows written" [ "$rows" -eq 36 ]

# A channel with no value at all cannot be filled.
printf 'timestamp,a.x,b.y\n1,,3\n2,nan,4\n3,,5\n' >allnan.csv
run detect --train allnan.csv --test good.csv -o o.csv
expect_rc "channel without any value" 2
expect_err "channel without any value" "'a\.x'"

it_finish
