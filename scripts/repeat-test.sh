#!/bin/bash
# repeat-test.sh - runs tests again and again, each time from a fresh clone
# of the committed state, to tell a flaky test from a broken one.
#
#   scripts/repeat-test.sh [-n N] [--build release|san] [-o DIR] [--keep-all] [--same-clone] TEST...
#
#   -n N            runs (default 10)
#   --build B       release (default): cmake -DCMAKE_BUILD_TYPE=Release, as
#                   make test-release; san: Debug with -DREVEAL_SANITIZE=ON,
#                   as make test-san (ASAN_OPTIONS=detect_leaks=1)
#   -o DIR          where the logs of failing runs go (default
#                   repeat-results/ in the checkout, git-ignored), in a
#                   folder per invocation: DIR/YYYYmmdd-HHMMSS/
#   --keep-all      keep the logs of passing runs too, with the test's own
#                   output (ctest --verbose): the tables of eval.short, the
#                   verdicts of sh.demo, to compare the runs
#   --same-clone    clone and build once, run the N repetitions in that
#                   build (faster, for development; the default, a fresh
#                   clone per run, is what a test's acceptance asks for)
#
# A failing run keeps its log (TEST.runI.log); eval.short keeps its run
# folder too (TEST.runI/: the agent's recording, events and results.json;
# `eval/faultinject.py --rescore DIR` replays it through another build),
# and so does every run with --keep-all.
#
# Each run: `git clone` of the checkout's HEAD (the commit, not uncommitted
# changes) into TMP/main, with TMP/shared a link to the checkout's
# ../shared (tests read ../shared/data), configure and build there as
# the Makefile does, then for each TEST `ctest -R '^TEST$'
# --output-on-failure` (a TEST that runs only in the other build is an
# error, named before anything is built), and the clone removed (on
# Ctrl-C too). A TEST is a ctest name: unit.strparse_test, sh.demo,
# eval.short (`ctest -N` in a build lists them).
#
# Prints progress (run i/N, elapsed) and at the end one line a test:
#   sh.demo: 9/10 passed (failed: run 4, log repeat-results/20250101-120000/sh.demo.run4.log)
# Exit: 0 when every run of every test passed, 1 when one failed, 2 on
# bad usage or when a TEST is not a test of the build; 130 on Ctrl-C.
set -u

usage() {
	sed -n "5,6p;7,/^#\$/p" "$0" | sed "s/^# \{0,1\}//"
	exit "${1:-2}"
}

runs=10
build=release
results=
same_clone=0
keep_all=0
tests=()
while [ $# -gt 0 ]; do
	case $1 in
	-n) runs=${2:-}; shift 2 || usage ;;
	--build) build=${2:-}; shift 2 || usage ;;
	-o) results=${2:-}; shift 2 || usage ;;
	--same-clone) same_clone=1; shift ;;
	--keep-all) keep_all=1; shift ;;
	-h | --help) usage 0 ;;
	-*) echo "repeat-test.sh: unknown option '$1'" >&2; usage ;;
	*) tests+=("$1"); shift ;;
	esac
done
if ! [[ $runs =~ ^[1-9][0-9]*$ ]]; then
	echo "repeat-test.sh: -n wants a count of runs (1 or more), not '$runs'" >&2
	exit 2
fi
case $build in
release) bdir=build cmake_args=(-DCMAKE_BUILD_TYPE=Release) ;;
san) bdir=build-san cmake_args=(-DCMAKE_BUILD_TYPE=Debug -DREVEAL_SANITIZE=ON) ;;
*) echo "repeat-test.sh: --build is release or san, not '$build'" >&2; exit 2 ;;
esac
[ ${#tests[@]} -gt 0 ] || { echo "repeat-test.sh: name at least one TEST" >&2; usage; }

root=$(git -C "$(dirname "$0")" rev-parse --show-toplevel) || exit 2
head=$(git -C "$root" rev-parse HEAD) || exit 2
short=$(git -C "$root" rev-parse --short HEAD)
shared=$(cd "$root/.." && pwd)/shared
[ -d "$shared" ] || echo "repeat-test.sh: warning: $shared is missing (tests that read ../shared/data will fail)"
[ -n "$(git -C "$root" status --porcelain --untracked-files=no)" ] &&
	echo "repeat-test.sh: note: the checkout has uncommitted changes; they are not tested (the clones are of HEAD $short)"
results=${results:-$root/repeat-results}
results=$results/$(date +%Y%m%d-%H%M%S)
jobs=$(nproc 2>/dev/null || echo 2)

t_start=$(date +%s)
here=$PWD
clone=
declare -A passed failed
for t in "${tests[@]}"; do
	passed[$t]=0
	failed[$t]=
done
done_runs=0

elapsed() {
	local s=$(($(date +%s) - t_start))
	printf '%dm%02ds' $((s / 60)) $((s % 60))
}

say() {	# say RUN TEXT: a progress line
	echo "run $1/$runs [$(elapsed)]: $2"
}

# show PATH: PATH relative to the folder the script started in, when below it
show() {
	case $1 in "$here"/*) echo "${1#"$here"/}" ;; *) echo "$1" ;; esac
}

# keep LOG NAME: copies LOG into the results folder as NAME, prints where
keep() {
	mkdir -p "$results" && cp "$1" "$results/$2" && show "$results/$2"
}

# keep_out TEST RUN: the folder a test writes its run into (eval.short:
# build/eval-short, with the agent's recording to replay with
# `eval/faultinject.py --rescore`), copied beside its log as TEST.runRUN/
# when it has one; nothing else
keep_out() {
	local d
	case $1 in
	eval.short) d=$bdir/eval-short ;;
	*) return 0 ;;
	esac
	[ -d "$d" ] || return 0
	mkdir -p "$results" && cp -r "$d" "$results/$1.run$2" && rm -rf "$results/$1.run$2/state"
}

summary() {
	echo "repeat-test: $done_runs of $runs runs of HEAD $short ($build build," \
		"$([ $same_clone = 1 ] && echo "one clone" || echo "a fresh clone each")) in $(elapsed)"
	local t all=0
	for t in "${tests[@]}"; do
		if [ -z "${failed[$t]}" ]; then
			echo "$t: ${passed[$t]}/$done_runs passed"
		else
			echo "$t: ${passed[$t]}/$done_runs passed (failed: ${failed[$t]#; })"
			all=1
		fi
	done
	return $all
}

remove_clone() {
	[ -n "$clone" ] && rm -rf "$clone"
	clone=
}
trap remove_clone EXIT
trap 'echo; echo "repeat-test: interrupted; removing the clone"; summary; exit 130' INT TERM

# check_tests: exits 2 unless each TEST is a test of the configured build
check_tests() {
	local t n note
	for t in "${tests[@]}"; do
		n=$(cd "$bdir" && ctest -N -R "^${t//./\\.}\$" | sed -n 's/^Total Tests: //p')
		[ "${n:-0}" -gt 0 ] && continue
		note=$(grep -F "$t: " "$bdir/tests-elsewhere.txt" 2>/dev/null)
		if [ -n "$note" ]; then
			echo "repeat-test.sh: $t is not a test of the $build build ($note);" \
				"repeat it with --build $([ "$build" = san ] && echo release || echo san)"
		else
			echo "repeat-test.sh: no test $t in the $build build (ctest -N lists them)"
		fi
		exit 2
	done
}

# build_failed RUN LOG: every TEST failed in RUN; LOG kept
build_failed() {
	local t log
	tail -n 30 "$2"
	log=$(keep "$2" "build.run$1.log")
	say "$1" "BUILD FAILED, log $log"
	for t in "${tests[@]}"; do
		failed[$t]="${failed[$t]}; run $1 (build failed), log $log"
	done
}

# prepare RUN: clone HEAD into a new folder, configure, check the TESTs
# (the first time), build. Returns 1 when the configure or build failed.
prepare() {
	local i=$1 log
	clone=$(mktemp -d "${TMPDIR:-/tmp}/reveal-repeat.XXXXXX") || exit 2
	log=$clone/build.log
	say "$i" "clone of $short into $clone/main"
	if ! git clone -q --no-checkout "$root" "$clone/main" >"$log" 2>&1 ||
		! git -C "$clone/main" checkout -q --detach "$head" >>"$log" 2>&1; then
		cat "$log"
		echo "repeat-test.sh: git clone of $root failed" >&2
		exit 2
	fi
	ln -s "$shared" "$clone/shared"
	cd "$clone/main" || exit 2
	say "$i" "configure and build ($build: cmake -S . -B $bdir ${cmake_args[*]})"
	if ! cmake -S . -B "$bdir" "${cmake_args[@]}" >>"$log" 2>&1; then
		build_failed "$i" "$log"
		return 1
	fi
	[ "$i" = 1 ] && check_tests
	if ! cmake --build "$bdir" -j "$jobs" >>"$log" 2>&1; then
		build_failed "$i" "$log"
		return 1
	fi
	say "$i" "built"
}

# run_tests RUN: each TEST once in the current clone's build
run_tests() {
	local i=$1 t t0 log verbose=()
	[ $keep_all = 1 ] && verbose=(--verbose)
	for t in "${tests[@]}"; do
		t0=$(date +%s)
		log=$clone/$t.log
		if {
			echo "# repeat-test: $t, run $i/$runs, HEAD $head, $build build, $(date -Is)"
			(cd "$bdir" && ASAN_OPTIONS=detect_leaks=1 \
				ctest --no-tests=error -R "^${t//./\\.}\$" --output-on-failure "${verbose[@]}")
		} >"$log" 2>&1; then
			passed[$t]=$((passed[$t] + 1))
			if [ $keep_all = 1 ]; then
				keep_out "$t" "$i"
				say "$i" "$t passed ($(($(date +%s) - t0)) s), log $(keep "$log" "$t.run$i.log")"
			else
				say "$i" "$t passed ($(($(date +%s) - t0)) s)"
			fi
		else
			keep_out "$t" "$i"
			log=$(keep "$log" "$t.run$i.log")
			failed[$t]="${failed[$t]}; run $i, log $log"
			say "$i" "$t FAILED ($(($(date +%s) - t0)) s), log $log"
		fi
	done
}

echo "repeat-test: ${tests[*]}: $runs runs of HEAD $short, $build build," \
	"$([ $same_clone = 1 ] && echo "in one clone" || echo "a fresh clone each")"
for ((i = 1; i <= runs; i++)); do
	if [ $same_clone = 0 ] || [ $i = 1 ]; then
		if ! prepare "$i"; then
			done_runs=$i
			cd "$here" && remove_clone
			[ $same_clone = 1 ] && break
			continue
		fi
	fi
	run_tests "$i"
	done_runs=$i
	if [ $same_clone = 0 ]; then
		cd "$here" && remove_clone
	fi
done
cd "$here" && remove_clone
[ $same_clone = 1 ] && [ "$done_runs" -lt "$runs" ] &&
	echo "repeat-test: the build of the one clone failed: no runs after it"
summary
