#!/bin/sh
# test-stages.sh - the stages of `make test`: runs `make STAGE` for each
# STAGE in turn, every one of them even when an earlier one failed (a
# stage whose build fails has failed; the sanitizer build does not need
# the release build), then, when both test-release and test-san ran,
# checks that every test file is registered (and not disabled) in at
# least one of the two builds. Ends with a summary of the stages and
# exits 1 naming each stage that failed, 0 when all passed.
#
#   scripts/test-stages.sh deps test-release test-san test-fuzz    (make test)
#
# Environment (the Makefile passes its own): MAKE (default make), BUILD
# and BUILD_SAN (the folders of test-release and test-san, default build
# and build-san). Other variables of the make command line (JOBS,
# FUZZ_SECONDS, ...) reach the stages through MAKEFLAGS.
#
# The check ("registration"): every src/<module>/X_test.c must be the test
# unit.X and every tests/integration/X.sh the test sh.X of the release or
# the sanitizer build, and no test may be disabled in both. A test meant
# for one build only is listed in CMakeLists.txt (RV_TESTS_RELEASE_ONLY,
# RV_TESTS_SAN_ONLY); the other build's tests-elsewhere.txt names it.
set -u
cd "$(dirname "$0")/.." || exit 2
MAKE=${MAKE:-make}
BUILD=${BUILD:-build}
BUILD_SAN=${BUILD_SAN:-build-san}
trap 'echo "make test: interrupted"; exit 130' INT TERM

rule() {
	echo "================================================================"
}

# tests BUILDDIR [all]: the tests ctest would run in BUILDDIR (registered,
# not DISABLED), or with "all" every registered one; a name a line, sorted.
tests() {
	dir=$1
	shift
	(cd "$dir" && ctest --show-only=json-v1) | python3 -c '
import json, sys
for t in json.load(sys.stdin)["tests"]:
    props = {p["name"]: p["value"] for p in t.get("properties", [])}
    if sys.argv[1:] == ["all"] or not props.get("DISABLED"):
        print(t["name"])' "$@" | sort
}

check_registration() {
	for b in "$BUILD" "$BUILD_SAN"; do
		# configured again (with its own settings): the listing must see
		# test files added since the stage ran
		if [ ! -f "$b/CMakeCache.txt" ] || ! cmake -S . -B "$b" >/dev/null; then
			echo "registration: cannot list the tests of $b/ (not configured, or" \
				"cmake fails there: see its stage)"
			return 1
		fi
	done
	tmp=$(mktemp -d) || return 2
	if ! tests "$BUILD" >"$tmp/rel" || ! tests "$BUILD_SAN" >"$tmp/san" ||
		! { tests "$BUILD" all && tests "$BUILD_SAN" all; } >"$tmp/all"; then
		echo "registration: could not list the tests of $BUILD/ and $BUILD_SAN/"
		rm -rf "$tmp"
		return 1
	fi
	sort -u "$tmp/rel" "$tmp/san" >"$tmp/runs"
	sort -u -o "$tmp/all" "$tmp/all"
	for f in src/*/*_test.c; do
		[ -f "$f" ] && echo "unit.$(basename "$f" .c)"
	done >"$tmp/want"
	for f in tests/integration/*.sh; do
		[ -f "$f" ] && echo "sh.$(basename "$f" .sh)"
	done >>"$tmp/want"
	sort -u -o "$tmp/want" "$tmp/want"
	bad=0
	for t in $(sort -u "$tmp/want" "$tmp/all" | comm -23 - "$tmp/runs"); do
		if grep -qx "$t" "$tmp/all"; then
			echo "registration: $t is disabled in both builds ($BUILD/, $BUILD_SAN/)"
		else
			echo "registration: $t is registered in neither build ($BUILD/," \
				"$BUILD_SAN/): see RV_TESTS_RELEASE_ONLY and RV_TESTS_SAN_ONLY" \
				"in CMakeLists.txt"
		fi
		bad=1
	done
	[ "$bad" = 0 ] && echo "registration: each of the $(wc -l <"$tmp/want") test files" \
		"runs in at least one build"
	echo "registration: $(wc -l <"$tmp/rel") tests run in $BUILD/," \
		"$(wc -l <"$tmp/san") in $BUILD_SAN/, $(wc -l <"$tmp/runs") in one or both"
	rm -rf "$tmp"
	return "$bad"
}

failed=
summary=
n=$#
i=0
# stage NAME COMMAND...: runs COMMAND as the stage NAME, notes the result.
stage() {
	name=$1
	shift
	i=$((i + 1))
	rule
	echo "make test: stage $i/$n: $name"
	rule
	t0=$(date +%s)
	if "$@"; then
		result=ok
	else
		result=FAILED
		failed="$failed $name"
	fi
	summary="$summary$(printf '  %-14s %-7s %5d s' "$name" "$result" $(($(date +%s) - t0)))
"
}

check=no
case " $* " in *" test-release "*)
	case " $* " in *" test-san "*) check=yes n=$((n + 1)) ;; esac ;;
esac
for s in "$@"; do
	stage "$s" "$MAKE" --no-print-directory "$s"
done
[ "$check" = yes ] && stage registration check_registration

rule
echo "make test: summary"
printf '%s' "$summary"
if [ -n "$failed" ]; then
	echo "make test: FAILED stages:$failed"
	rule
	exit 1
fi
[ "$check" = yes ] && set -- "$@" registration
echo "make test: all stages passed ($(echo "$@" | sed 's/ /, /g'))"
rule
exit 0
