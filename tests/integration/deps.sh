#!/bin/sh
# deps.sh - the dependency rule of docs/ARCHITECTURE.md holds: every
# `#include "mod/..."` in src/ names a module its own reaches through the
# RV_DEPS lines of CMakeLists.txt (scripts/check-deps.sh says how). A
# forbidden include fails `make test` here.
#
# The checker must be able to fail: it runs on the two fixture trees of
# tests/fixtures/deps/ too, clean/ (transitive and multi-line RV_DEPS,
# cli/ including everything, a non-module folder) passing and bad/ (base
# including low, a test including a module above its own, a folder without
# an RV_DEPS line) failing with those three messages and no other.

. "$SRC/tests/integration/lib.sh.inc"
it_setup

CHECK="$SRC/scripts/check-deps.sh"
FIX="$SRC/tests/fixtures/deps"

sh "$CHECK" "$SRC" >real.txt 2>&1
rc=$?
if [ "$rc" -eq 0 ]; then
	ok "src/ includes only the modules RV_DEPS allows"
else
	not_ok "src/ includes only the modules RV_DEPS allows (exit status $rc)"
	sed 's/^/    # /' real.txt
fi

sh "$CHECK" "$FIX/clean" >clean.txt 2>&1
rc=$?
check "self-test: the clean fixture passes (exit status $rc)" [ "$rc" -eq 0 ]
show clean.txt

sh "$CHECK" "$FIX/bad" >bad.txt 2>&1
rc=$?
check "self-test: the bad fixture fails (exit status $rc)" [ "$rc" -eq 1 ]
for want in \
	'src/base/base.c:3: base may not include low/ (RV_DEPS_base reaches: base)' \
	'src/low/low_test.c:3: low may not include high/ (RV_DEPS_low reaches: base low)' \
	'src/orphan/: module without a set(RV_DEPS_orphan ...) line in CMakeLists.txt'; do
	if grep -Fxq -- "$want" bad.txt; then
		ok "self-test: bad fixture reports '$want'"
	else
		not_ok "self-test: bad fixture reports '$want'"
		show bad.txt
	fi
done
n=$(wc -l <bad.txt)
check "self-test: the bad fixture gives exactly 3 messages ($n)" [ "$n" -eq 3 ]

sh "$CHECK" "$FIX/none" >none.txt 2>&1
rc=$?
check "self-test: a folder without CMakeLists.txt is a usage error (exit status $rc)" [ "$rc" -eq 2 ]

it_finish
