#!/bin/sh
# check-deps.sh - the module dependency rule of docs/ARCHITECTURE.md,
# checked on the includes.
#
# usage: scripts/check-deps.sh [ROOT]     (ROOT: the repository root, default .)
#
# The allowed graph has one source of truth: the `set(RV_DEPS_<module> ...)`
# lines of ROOT/CMakeLists.txt (the libraries each rv_<module> links). A
# module may include its own headers and those of every module it reaches
# through RV_DEPS, transitively; cli/ (the executable, which links them all)
# may include any module. Each `#include "mod/..."` in ROOT/src/<module>/*.c
# and *.h naming another module's folder outside that set is an error,
# reported as "path:line: <module> may not include <mod>/ (...)".
# A test file x_test.c beside a module follows its module's rule: it is
# linked against rv_<module> only, so what that library does not reach, the
# test may not see either (a test that needs another module's code belongs
# in that module or in a module above both).
# A folder under src/ that has no RV_DEPS line (other than cli) is an error
# too: a new module declares its dependencies before it is used.
#
# Exit status: 0 clean, 1 violations found, 2 usage or unreadable input.
# Registered as a test by tests/integration/deps.sh (sh.deps, `make test`).

root=${1:-.}
if [ ! -f "$root/CMakeLists.txt" ] || [ ! -d "$root/src" ]; then
	echo "check-deps: $root: no CMakeLists.txt and src/ there" >&2
	exit 2
fi

# "module dep dep ..." per RV_DEPS line (rv_ prefixes dropped, other
# libraries such as PkgConfig::SQLITE3 or ${MATH_LIB} ignored).
deps=$(awk '
	/^[[:space:]]*set[[:space:]]*\([[:space:]]*RV_DEPS_/ {
		text = $0
		while (text !~ /\)/ && (getline more) > 0) text = text " " more
		sub(/^[[:space:]]*set[[:space:]]*\([[:space:]]*RV_DEPS_/, "", text)
		sub(/\).*/, "", text)
		n = split(text, w, /[[:space:]]+/)
		line = w[1]
		for (i = 2; i <= n; i++)
			if (w[i] ~ /^rv_[a-z0-9_]+$/) line = line " " substr(w[i], 4)
		print line
	}' "$root/CMakeLists.txt")
if [ -z "$deps" ]; then
	echo "check-deps: $root/CMakeLists.txt: no set(RV_DEPS_<module> ...) lines" >&2
	exit 2
fi

# Every quoted include naming a folder, as "path:line:included-module".
tmp=$(mktemp "${TMPDIR:-/tmp}/check-deps.XXXXXX") || exit 2
trap 'rm -f "$tmp"' EXIT
(
	cd "$root" || exit 2
	for f in src/*/*.c src/*/*.h; do
		[ -f "$f" ] || continue
		awk '
			/^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"\/]+\// {
				s = $0
				sub(/^[^"]*"/, "", s)
				sub(/\/.*/, "", s)
				print FILENAME ":" FNR ":" s
			}' "$f"
	done
) >"$tmp" || exit 2
modules=$(cd "$root/src" && for d in */; do printf '%s ' "${d%/}"; done)

printf '%s\n' "$deps" | awk -v includes="$tmp" -v modules="$modules" '
	{
		mod = $1
		declared[mod] = 1
		for (i = 2; i <= NF; i++) edge[mod, ++nedge[mod]] = $i
	}
	# reach[m, x] = 1 when m may include x (itself and RV_DEPS, transitively).
	function close_over(m, from,    i, d) {
		for (i = 1; i <= nedge[from]; i++) {
			d = edge[from, i]
			if ((m, d) in reach) continue
			reach[m, d] = 1
			close_over(m, d)
		}
	}
	function allowed(m,    s, i, x) {
		s = ""
		for (i = 1; i <= nmods; i++) {
			x = mods[i]
			if ((m, x) in reach) s = s (s == "" ? "" : " ") x
		}
		return s
	}
	END {
		for (m in declared) { reach[m, m] = 1; close_over(m, m) }
		bad = 0
		nmods = split(modules, mods, " ")
		for (i = 1; i <= nmods; i++) {
			m = mods[i]
			if (m != "cli" && !(m in declared)) {
				printf "src/%s/: module without a set(RV_DEPS_%s ...) line in CMakeLists.txt\n", m, m
				bad = 1
			}
			isdir[m] = 1
		}
		while ((getline line < includes) > 0) {
			split(line, p, ":")
			split(p[1], q, "/")
			m = q[2]; inc = p[3]
			if (m == "cli" || !(inc in isdir) || inc == m) continue
			if (!(m in declared)) continue   # reported above
			if (!((m, inc) in reach)) {
				printf "%s:%s: %s may not include %s/ (RV_DEPS_%s reaches: %s)\n", \
					p[1], p[2], m, inc, m, allowed(m)
				bad = 1
			}
		}
		exit bad
	}'
