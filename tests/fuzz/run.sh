#!/bin/sh
# run.sh - builds every libFuzzer target tests/fuzz/fuzz_*.c (fuzz.mk) and
# runs each for FUZZ_SECONDS from a corpus seeded with the fixture files of
# its format; exits non-zero when a target crashes, leaks, hangs or fails
# to build, naming the target and the input that did it.
#
#   tests/fuzz/run.sh                 every target, FUZZ_SECONDS each
#   tests/fuzz/run.sh stat csv        only fuzz_stat and fuzz_csv
#
# Environment: FUZZ_SECONDS (default 10), FUZZ_RUNS (stop a target after
# that many inputs, whichever of the two comes first; default none), FUZZ_JOBS (targets run at once,
# default the CPU count), FUZZ_BUILD (default build-fuzz), FUZZ_TMPDIR
# (where the targets make their file trees; default /dev/shm when
# writable, tmpfs being several times faster than a disk, else TMPDIR or
# /tmp). Without clang and libFuzzer it prints "fuzz: skipped: ..." and
# exits 0; the Makefile shows that line in a banner. Logs:
# $FUZZ_BUILD/run.XXXXXX/logs/<target>.log (kept when the run fails);
# crash inputs: $FUZZ_BUILD/crashes/<target>-crash-<sha1> (reproduce: run
# the target binary on the file). Regression inputs in
# tests/fuzz/corpus/<target>/ join the seeds of every run.
set -u

cd "$(dirname "$0")/../.." || exit 2
SECONDS_EACH=${FUZZ_SECONDS:-10}
B=${FUZZ_BUILD:-build-fuzz}
JOBS=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}
FX=tests/fixtures/collect
if [ -z "${FUZZ_TMPDIR:-}" ]; then
	if [ -d /dev/shm ] && [ -w /dev/shm ]; then
		FUZZ_TMPDIR=/dev/shm
	else
		FUZZ_TMPDIR=${TMPDIR:-/tmp}
	fi
fi

skip() {
	echo "fuzz: skipped: clang with libFuzzer not found ($1)"
	exit 0
}

# --- toolchain ------------------------------------------------------------
command -v clang >/dev/null 2>&1 || skip "no clang in PATH"
mkdir -p "$B" || exit 2
P=$B/probe.$$
printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' \
	>"$P.c"
if ! clang -fsanitize=fuzzer,address,undefined "$P.c" -o "$P" >"$B/probe.log" 2>&1; then
	rm -f "$P.c" "$P"
	skip "clang -fsanitize=fuzzer,address,undefined does not link; see $B/probe.log"
fi
rm -f "$P.c" "$P"

# --- build ----------------------------------------------------------------
t0=$(date +%s)
# Another run on the same folder waits for this build (flock, when there).
LOCK=
command -v flock >/dev/null 2>&1 && LOCK="flock $B/.build.lock"
BLOG=$B/build.$$.log
if ! $LOCK make -s -f tests/fuzz/fuzz.mk B="$B" -j "$JOBS" >"$BLOG" 2>&1; then
	cat "$BLOG"
	rm -f "$BLOG"
	echo "fuzz: FAILED: build (tests/fuzz/fuzz.mk)"
	exit 1
fi
rm -f "$BLOG"
echo "fuzz: built in $(($(date +%s) - t0)) s ($B)"

# --- seeds ----------------------------------------------------------------
# Each single-file target gets every fixture file of its format, and every
# pair A B of them as "A \xff B" (open parses A, the second sample B).
ff=$(printf '\377')

seed_files() {	# seed_files DIR FILE...: singles and pairs
	dir=$1
	shift
	i=0
	for a in "$@"; do
		[ -f "$a" ] || continue
		i=$((i + 1))
		cp "$a" "$dir/fx$i"
		j=0
		for b in "$@"; do
			[ -f "$b" ] || continue
			j=$((j + 1))
			{ cat "$a"; printf '%s' "$ff"; cat "$b"; } >"$dir/fx${i}_$j"
		done
	done
}

# The sysfs files in the order of fuzz_sysfs.c's files[], from a fixture
# host, joined with 0xff; `alt` maps each to a second instance for the
# second half of the seed (falling back to the first when absent).
sysfs_seed() {	# sysfs_seed OUT ROOT ALTMAP
	rels=$(sed -n 's/^[[:space:]]*"\(\/sys\/[^"]*\)",$/\1/p' tests/fuzz/fuzz_sysfs.c)
	: >"$1"
	for pass in 1 2; do
		for r in $rels; do
			f=$2$r
			if [ "$pass" = 2 ]; then
				alt=$2$(echo "$r" | sed "$3")
				[ -f "$alt" ] && f=$alt
			fi
			[ -f "$f" ] && cat "$f" >>"$1"
			printf '%s' "$ff" >>"$1"
		done
	done
}

seed() {	# seed TARGET DIR
	case $1 in
	stat)       seed_files "$2" $FX/*/proc/stat ;;
	meminfo)    seed_files "$2" $FX/*/proc/meminfo $FX/*/sys/devices/system/node/node*/meminfo \
	                $FX/*/sys/devices/system/node/node*/numastat ;;
	vmstat)     seed_files "$2" $FX/*/proc/vmstat ;;
	loadavg)    seed_files "$2" $FX/*/proc/loadavg ;;
	fs)         seed_files "$2" $FX/*/proc/sys/fs/* ;;
	pressure)   seed_files "$2" $FX/*/proc/pressure/* ;;
	net_dev)    seed_files "$2" $FX/*/proc/net/dev ;;
	net_snmp)   seed_files "$2" $FX/*/proc/net/snmp $FX/*/proc/net/netstat ;;
	diskstats)  seed_files "$2" $FX/*/proc/diskstats ;;
	interrupts) seed_files "$2" $FX/*/proc/interrupts ;;
	softirqs)   seed_files "$2" $FX/*/proc/softirqs ;;
	softnet)    seed_files "$2" $FX/*/proc/net/softnet_stat ;;
	sysfs)      sysfs_seed "$2/syshost" $FX/syshost \
	                's/node0/node1/;s/hwmon0/hwmon1/;s/zone0/zone1/;s/eth0/ib0/;s/mlx5_0/mlx5_1/;s/cpu0/cpu1/' ;;
	csv)
		for z in tests/fixtures/record/*.csv.gz; do
			[ -f "$z" ] || continue
			cp "$z" "$2/"
			gzip -dc "$z" | head -n 12 >"$2/$(basename "$z" .gz)"
		done
		printf 'timestamp,a,b\n2024-01-31T12:00:00Z,1,2\n2024-01-31 12:00:01.5+01:00,nan,-inf\n' >"$2/iso"
		printf '\357\273\277x, timestamp ,y\r\n1,1700000000,\r\n2,1700000000.25,3e5\r\n\r\n' >"$2/bom"
		;;
	model)      cp "$R/seeds/model/payload" "$R/seeds/model/file" "$2/" 2>/dev/null ;;
	rvl)        cp "$R/seeds/rvl/small.rvl" "$2/" 2>/dev/null ;;
	qdisc)      cp "$R/seeds/qdisc/"* "$2/" 2>/dev/null ;;
	config)     cp deploy/reveal.yaml "$2/" ;;
	metricset)	# the documented example, quoted names and inputs, offline names
		printf '# reveal metric set\nversion: 1\nthreshold: 0.5\ninputs: [a.rvl, b.csv]\nkeep:\n  - cpu.busy_pct\n  - net.rx_bytes:eth0\ndrop:\n  - {channel: cpu.user_pct, kept: cpu.busy_pct, r: 0.97}\nconstant: [mem.mem_total_bytes]\n' >"$2/example"
		printf 'version: 1\ninputs: ["a b", "q\\"\\\\", "\\xff"]\nkeep: ["net.x:#a,[b]:", gpu.util_pct:0000:3b:00.0]\ndrop:\n  - channel: "cpu.user_pct:-"\n    kept: "net.x:#a,[b]:"\n    r: -1.0000\nconstant: []\n' >"$2/quoted"
		printf 'version: 1\nthreshold: 0.9\nkeep: [cpu.cpu_r, mem.mem_u]\ndrop: [{channel: cpu.load_1, kept: cpu.cpu_r, r: 0.8123}, {channel: cpu.load_5, kept: cpu.cpu_r, r: -0.61}]\nconstant: [mem.total_mem]\n' >"$2/offline"
		;;
	rules)
		cp share/reveal/rules.yaml "$2/"
		;;
	rwrite)	# series as fuzz_rwrite.c reads them: labels, then samples
		{ printf '\003__name__\000reveal_x\000job\000reveal\000Zone\000eu\000\002'
		  printf '\000\000\000\000\000\000\360\077\005\002\000\000\000\000\000\360\177\003'
		} >"$2/two"
		{ printf '\002__name__\000up\000a\000\000\003'
		  printf '\000\000\000\000\000\000\370\177\011\000\000\000\000\000\000\000\200\001'
		  printf '\001\000\000\000\000\000\360\377\005\002a\0001\000a\0002\000\001'
		  printf '\000\000\000\000\000\000\000\000\001'
		} >"$2/refused"
		;;
	promapi)	# a byte for the endpoint (and limits), then the answer
		printf '\000{"status":"success","warnings":["w"],"data":{"resultType":"matrix","result":[{"metric":{"__name__":"reveal_channel_mean","node":"n1"},"values":[[1796573020,"1.5"],[1796573040.25,"NaN"],[1796573050,"+Inf"]]}]}}' >"$2/range"
		printf '\001{"status":"success","isPartial":true,"data":{"resultType":"vector","result":[{"metric":{"node":"n\\u00e9"},"value":[1796573070,"-Inf"]}]}}' >"$2/vector"
		printf '\001{"status":"success","data":{"resultType":"scalar","result":[1796573070,"1e+06"]}}' >"$2/scalar"
		printf '\002{"status":"success","data":[{"__name__":"reveal_fact_info","fact":"mem.hugepage_size","value":"2MiB \\"q\\""}]}' >"$2/series"
		printf '\003{"status":"success","data":["n1","n2"]}' >"$2/values"
		printf '\001{"status":"error","errorType":"bad_data","error":"invalid parameter \\"query\\""}' >"$2/error"
		printf '\004{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1,"1"],[2,"2"]]}]}}' >"$2/small"
		;;
	json)
		printf '%s\n' '{"incidents":[' \
			'{"id":1,"start":1700000005.000,"end":1700000007.000,"duration_s":2.000,"windows":2,"peak_score":0.91330285643181841,"mean_score":null,"detectors":["spe","bit7"],"subsystem":"mem","top_metrics":[{"name":"mem.used_bytes","share":0.379783}]}' \
			']}' >"$2/incidents"
		printf '[1,-0,-0.5e-3,1E+2,"\\u00e9\\ud83d\\ude00\\n\\"\\\\",true,false,null,{"a":{"":[]}},"\303\251"]' >"$2/types"
		;;
	esac
	if [ -d "tests/fuzz/corpus/$1" ]; then
		cp tests/fuzz/corpus/"$1"/* "$2/" 2>/dev/null
	fi
	return 0
}

# Everything of this run (seeds, corpora, logs) is in its own folder R, so
# that two runs (two checkouts' make test) do not mix; it is removed when
# the run passes and kept, with its logs, when it fails. Crash inputs
# collect in $B/crashes. The targets' file trees go under RUN_TMP, removed
# at the end even when a crashed target could not clean its own.
R=$(mktemp -d "$B/run.XXXXXX") || exit 2
RUN_TMP=$(mktemp -d "$FUZZ_TMPDIR/rv_fuzz_run.XXXXXX") || exit 2
trap 'rm -rf "$RUN_TMP"' EXIT
trap 'exit 130' INT TERM
mkdir -p "$R/seeds/model" "$R/seeds/rvl" "$R/corpus" "$R/logs" "$B/crashes"
"$B/gen_seeds" "$R/seeds" >"$R/logs/gen_seeds.log" 2>&1 ||
	echo "fuzz: warning: gen_seeds failed (fuzz_model, fuzz_rvl start unseeded): $(tail -n 3 "$R/logs/gen_seeds.log")"

# --- run --------------------------------------------------------------------
if [ $# -gt 0 ]; then
	names=$*
else
	names=$(for f in tests/fuzz/fuzz_*.c; do basename "$f" .c | sed 's/^fuzz_//'; done)
fi

run_one() {	# run_one NAME: fuzz it; a status line in logs/NAME.status
	n=$1
	c=$R/corpus/$n
	mkdir -p "$c"
	seed "$n" "$c"
	TMPDIR=$RUN_TMP ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
	UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
		"$B/fuzz_$n" -max_total_time="$SECONDS_EACH" ${FUZZ_RUNS:+-runs="$FUZZ_RUNS"} \
		-timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$B/crashes/$n-" "$c" \
		>"$R/logs/$n.log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$R/logs/$n.log" | tail -n 1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$R/logs/$n.log" | tail -n 1)
	cov=$(sed -n 's/^#[0-9]*[[:space:]]*DONE[[:space:]]*cov: \([0-9]*\).*/\1/p' "$R/logs/$n.log" | tail -n 1)
	if [ "$rc" = 0 ]; then
		echo "ok   fuzz_$n: ${runs:-?} runs, ${rate:-?}/s, cov ${cov:-?}" >"$R/logs/$n.status"
	else
		art=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$R/logs/$n.log" | tail -n 1)
		echo "FAIL fuzz_$n: exit $rc, input ${art:-(none written)}, log $R/logs/$n.log" \
			>"$R/logs/$n.status"
	fi
}

t0=$(date +%s)
fail=0
set -- $names
while [ $# -gt 0 ]; do
	batch=
	k=0
	while [ $# -gt 0 ] && [ "$k" -lt "$JOBS" ]; do
		if [ ! -x "$B/fuzz_$1" ]; then
			echo "fuzz: no target fuzz_$1" >&2
			fail=1
		else
			run_one "$1" &
			batch="$batch $1"
			k=$((k + 1))
		fi
		shift
	done
	wait
	for n in $batch; do
		cat "$R/logs/$n.status"
		case $(cat "$R/logs/$n.status") in
		FAIL*)
			fail=1
			echo "---- fuzz_$n: the report (tail of $R/logs/$n.log) ----"
			sed -n '/ERROR: \|runtime error: /,/^SUMMARY: /p' "$R/logs/$n.log" | head -n 80
			art=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$R/logs/$n.log" | tail -n 1)
			if [ -n "$art" ] && [ -f "$art" ]; then
				echo "input ($(wc -c <"$art") bytes, first 256 in hex):"
				od -An -tx1 -N256 "$art"
			fi
			echo "----"
			;;
		esac
	done
done
echo "fuzz: ran $(echo $names | wc -w) targets, ${SECONDS_EACH} s${FUZZ_RUNS:+ or $FUZZ_RUNS runs} each, in $(($(date +%s) - t0)) s"
if [ "$fail" != 0 ]; then
	echo "fuzz: FAILED (logs in $R/logs/, crash inputs in $B/crashes/;" \
		"reproduce: $B/fuzz_<target> <input>)"
	exit 1
fi
rm -rf "$R"
exit 0
