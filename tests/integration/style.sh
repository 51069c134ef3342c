#!/bin/sh
# style.sh - the mechanical part of STYLE.md over src/.
#
# Fails on: calls to unsafe or banned C library functions (sscanf, atoi,
# atol, strtok, sprintf, strcpy, strcat, gets); files over 800 lines;
# printing to stdout/stderr outside src/cli/ and src/base/log.c (library
# code logs through base/log.h; writing to a FILE* handed in is fine).
# Comments and string literals are blanked first, so prose such as
# "no sprintf()" or a help text does not count.
#
# Also fails on:
# - a function body longer than 60 lines (from its opening "{" to its
#   closing "}" at the start of a line, both left out) in src/**/*.[ch],
#   unless tests/integration/style-long-functions.txt lists it. Test code
#   (*_test.c, and the *_test*.h helpers they include) is left out: a test
#   reads as one story of set-up, tables and assertions, and cutting it to
#   fit a line count hides which assertion belongs to which set-up.
# - a call of exit, _exit, _Exit, quick_exit, abort or assert outside
#   src/cli/ (and test code, whose cmocka programs own their main), unless
#   tests/integration/style-exits.txt lists the function. Library code
#   returns a negative errno with the detail in a struct rv_err; it has no
#   assert() today and gets none (an assert is an abort in disguise).
# Both lists hold "path function reason" lines (# comments, blank lines
# ignored). Every entry must carry a reason (not one starting with FIXME),
# and an entry that no longer applies (the function is gone, is short
# again, or no longer exits) fails too, so the lists only shrink.
#
# usage: style.sh [ROOT]       checks ROOT (default $SRC) and, without
#                              ROOT, runs the self-tests on planted samples
#                              and on tests/fixtures/style/
#        style.sh --list [ROOT] prints the functions over the limit as
#                              style-long-functions.txt lines (reasons
#                              kept from the current list, FIXME for new
#                              ones), to regenerate the list

SELF=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
if [ -z "${SRC:-}" ]; then
	SRC=$(cd "$(dirname "$0")/../.." && pwd)
fi
LIST=0
if [ "${1:-}" = "--list" ]; then
	LIST=1
	shift
fi
ROOT=${1:-$SRC}
SELFTEST=1
[ $# -gt 0 ] && SELFTEST=0
ROOT=$(cd "$ROOT" && pwd) || exit 2
MAX_FUNC=60
LONG_ALLOW=$ROOT/tests/integration/style-long-functions.txt
EXIT_ALLOW=$ROOT/tests/integration/style-exits.txt

. "$SRC/tests/integration/lib.sh.inc"
if [ "$LIST" -eq 1 ]; then
	IT_TMP=$(mktemp -d "${TMPDIR:-/tmp}/reveal-style.XXXXXX") || exit 1
	trap it_cleanup EXIT
	cd "$IT_TMP" || exit 1
else
	it_setup
fi

MAX_LINES=800
BANNED='sscanf|atoi|atol|strtok|sprintf|strcpy|strcat|gets'
# On "path:line:code" lines: a call of a banned name (not a longer name
# ending in it, such as snprintf or fgets).
BANNED_RE="^[^:]*:[0-9]+:(.*[^A-Za-z0-9_])?($BANNED)[[:space:]]*\\("
# Printing to the standard streams: bare printf/puts/perror/putchar, the
# FILE* printers aimed at stderr/stdout (fprintf(stderr, ...), fputs(s,
# stdout), ...). Other uses (fflush(stderr) in a test redirecting it) pass.
STD='(stderr|stdout)([^A-Za-z0-9_]|$)'
PRINT_RE="^[^:]*:[0-9]+:(.*[^A-Za-z0-9_])?((printf|vprintf|puts|putchar|perror)[[:space:]]*\\(|(fprintf|vfprintf)[[:space:]]*\\([[:space:]]*$STD|(fputs|fputc|putc|fwrite)[[:space:]]*\\(.*$STD)"

find "$ROOT/src" -type f \( -name '*.c' -o -name '*.h' \) | sort >files.txt
nfiles=$(wc -l <files.txt)

# Every source line as "path:line:code", the code with comments removed
# and the contents of string and character literals blanked.
code_view() {
	while read -r f; do
		awk -v name="${f#"$ROOT"/}" '
		BEGIN { incomment = 0 }
		{
			line = $0; out = ""; n = length(line); i = 1
			while (i <= n) {
				c = substr(line, i, 1); c2 = substr(line, i, 2)
				if (incomment) {
					if (c2 == "*/") { incomment = 0; i += 2 } else i++
					continue
				}
				if (c2 == "/*") { incomment = 1; out = out " "; i += 2; continue }
				if (c2 == "//") break
				if (c == "\"" || c == "\047") {
					q = c; out = out q; i++
					while (i <= n) {
						c = substr(line, i, 1)
						if (c == "\\") { i += 2; continue }
						i++
						if (c == q) break
					}
					out = out q
					continue
				}
				out = out c; i++
			}
			print name ":" FNR ":" out
		}' "$f"
	done <files.txt
}
code_view >code.txt

# ---- functions (for the length and exit checks) ------------------------

# From code.txt, one line per function body ("F path name first length",
# first = the line of its "{", length = the lines between the braces) and
# per exiting call ("X path line function call", function "-" at file
# scope). A function is a line at column 0 naming it before its "(" and
# not ending in ";", then a "{" alone at column 0 (the house style) or at
# the end of a column-0 line ending in ") {"; it ends at the next "}" at
# column 0.
functions() {
	awk '
	{
		p = index($0, ":"); path = substr($0, 1, p - 1); rest = substr($0, p + 1)
		q = index(rest, ":"); ln = substr(rest, 1, q - 1) + 0; code = substr(rest, q + 1)
		if (path != cur) { cur = path; infn = 0; cand = "" }
		if (!infn && code ~ /^[A-Za-z_]/ && code ~ /\(/) {
			s = code; sub(/\(.*/, "", s); sub(/[[:space:]]+$/, "", s)
			n = split(s, w, /[^A-Za-z0-9_]+/); cand = w[n]
			if (code ~ /;[[:space:]]*$/) cand = ""
		} else if (!infn && code ~ /^[A-Za-z_#]/ && code ~ /;[[:space:]]*$/)
			cand = ""
		if (!infn && code ~ /^\{[[:space:]]*$/ && cand != "") {
			infn = 1; start = ln; fname = cand; next
		}
		if (!infn && cand != "" && code ~ /^[A-Za-z_].*\)[[:space:]]*\{[[:space:]]*$/ &&
		    code !~ /=/) {
			infn = 1; start = ln; fname = cand; next
		}
		if (infn && code ~ /^\}/) {
			print "F", path, fname, start, ln - start - 1
			infn = 0; cand = ""; next
		}
		if (match(code, /(^|[^A-Za-z0-9_.>])(exit|_exit|_Exit|quick_exit|abort|assert)[[:space:]]*\(/)) {
			call = substr(code, RSTART, RLENGTH)
			gsub(/^[^A-Za-z_]+|[[:space:]]*\($/, "", call)
			print "X", path, ln, (infn ? fname : "-"), call
		}
	}' code.txt | grep -v -E "^[FX] [^ ]*_test[a-z]*\.[ch] "
}
functions >functions.txt

# The entries of an allowlist as "path function reason" (comments and
# blank lines dropped); a missing list is an empty one.
allow_entries() {
	[ -f "$1" ] || return 0
	grep -v -E '^[[:space:]]*(#|$)' "$1"
}

# Prints the functions over MAX_FUNC lines as allowlist lines, the reason
# kept from the current list or a FIXME.
list_long() {
	allow_entries "$LONG_ALLOW" >allow_long.txt
	awk -v max="$MAX_FUNC" '
		FILENAME == ARGV[1] { k = $1 " " $2; $1 = $2 = ""; sub(/^ +/, ""); why[k] = $0; next }
		$1 == "F" && $5 > max {
			k = $2 " " $3
			print k " " (k in why && why[k] != "" ? why[k] : "FIXME: say why it is long (" $5 " lines)")
		}' allow_long.txt functions.txt
}

if [ "$LIST" -eq 1 ]; then
	list_long
	exit 0
fi
[ "$SELFTEST" -eq 1 ] && min_files=10 || min_files=1
check "found the C sources ($nfiles files)" [ "$nfiles" -ge "$min_files" ]
[ "$SELFTEST" -eq 0 ] ||
	check "comment stripping keeps code (snprintf calls seen)" grep -q 'snprintf *(' code.txt
check "comment stripping removes comments (no '*/' left)" lacks code.txt '\*/'

# ---- banned calls ------------------------------------------------------

grep -E "$BANNED_RE" code.txt >banned.txt
if [ -s banned.txt ]; then
	not_ok "no calls to $BANNED"
	sed 's/^/    # /' banned.txt
else
	ok "no calls to $BANNED"
fi

# ---- file length -------------------------------------------------------

long=
while read -r f; do
	n=$(wc -l <"$f")
	[ "$n" -gt "$MAX_LINES" ] && long="$long ${f#"$ROOT"/}($n)"
done <files.txt
check "every file has at most $MAX_LINES lines${long:+ (too long:$long)}" [ -z "$long" ]

# ---- printing outside cli/ and the log sink ----------------------------

grep -v -E '^(src/cli/|src/base/log\.c:)' code.txt |
	grep -E "$PRINT_RE" \
	>printing.txt
if [ -s printing.txt ]; then
	not_ok "no printing to stderr/stdout outside src/cli/ and src/base/log.c"
	sed 's/^/    # /' printing.txt
else
	ok "no printing to stderr/stdout outside src/cli/ and src/base/log.c"
fi

# ---- function length ---------------------------------------------------

# Checks functions.txt against an allowlist; prints one problem a line.
# KIND long: F entries over MAX_FUNC; KIND exit: X entries outside src/cli/.
allow_check() {
	awk -v kind="$1" -v max="$MAX_FUNC" -v list="${2#"$ROOT"/}" '
		FILENAME == ARGV[1] {
			k = $1 " " $2; entry[k] = 1
			if (NF < 3 || $3 ~ /^FIXME/)
				printf "%s: entry %s %s has no reason\n", list, $1, $2
			next
		}
		$1 == "F" { exists[$2 " " $3] = 1 }
		kind == "long" && $1 == "F" && $5 > max {
			k = $2 " " $3; hit[k] = 1
			if (!(k in entry))
				printf "%s:%d: %s is %d lines long (at most %d)\n", $2, $4, $3, $5, max
		}
		kind == "exit" && $1 == "X" && $2 !~ /^src\/cli\// {
			k = $2 " " $4; hit[k] = 1
			if (!(k in entry))
				printf "%s:%d: %s calls %s() outside src/cli/\n", $2, $3, $4, $5
		}
		END {
			for (k in entry) {
				split(k, f, " ")
				if (!(k in exists))
					printf "%s: entry %s %s: no such function (remove it)\n", list, f[1], f[2]
				else if (!(k in hit))
					printf "%s: entry %s %s: %s (remove it)\n", list, f[1], f[2], \
						kind == "long" ? "no longer over " max " lines" : "no longer exits"
			}
		}' "$3" functions.txt | sort
}

allow_entries "$LONG_ALLOW" >allow_long.txt
allow_check long "$LONG_ALLOW" allow_long.txt >long_funcs.txt
if [ -s long_funcs.txt ]; then
	not_ok "no function over $MAX_FUNC lines outside ${LONG_ALLOW#"$ROOT"/}"
	sed 's/^/    # /' long_funcs.txt
else
	ok "no function over $MAX_FUNC lines outside ${LONG_ALLOW#"$ROOT"/}"
fi

# ---- exit and abort only in cli/ ---------------------------------------

allow_entries "$EXIT_ALLOW" >allow_exit.txt
allow_check exit "$EXIT_ALLOW" allow_exit.txt >exits.txt
if [ -s exits.txt ]; then
	not_ok "no exit/_exit/abort/assert outside src/cli/ but ${EXIT_ALLOW#"$ROOT"/}"
	sed 's/^/    # /' exits.txt
else
	ok "no exit/_exit/abort/assert outside src/cli/ but ${EXIT_ALLOW#"$ROOT"/}"
fi

[ "$SELFTEST" -eq 1 ] || it_finish

# The checks above must be able to fail: run them on a planted sample.
printf '%s\n' 'static void f(FILE *f) { fprintf(f, "x"); }' \
	'/* sprintf( in a comment */' 'int a = atoi(s); // strcpy(' \
	'	fprintf(stderr, "debug %d\n", x);' 'char *s = "printf(";' \
	'	fflush(stderr);' '	fputs(s, f);' '	fputs(s, stdout);' >"$IT_TMP/sample.c"
ROOT_SAVE=$ROOT
echo "$IT_TMP/sample.c" >files.txt
ROOT=$IT_TMP
code_view >sample.txt
ROOT=$ROOT_SAVE
hits=$(grep -cE "$BANNED_RE" sample.txt)
check "self-test: banned-call pattern finds atoi only ($hits)" [ "$hits" -eq 1 ]
hits=$(grep -cE "$PRINT_RE" sample.txt)
check "self-test: printing pattern finds fprintf(stderr and fputs(s, stdout) ($hits)" [ "$hits" -eq 2 ]

# The function-length and exit checks must be able to fail too: the tree
# tests/fixtures/style/ holds functions of 61 and 62 lines (the brace of
# one on its signature line) and one of 60, library code calling abort()
# and exit() (one allowed), test and cli/ code that exits (not counted),
# and allowlists with stale and reason-less entries.
sh "$SELF" "$SRC/tests/fixtures/style" >fixture.txt 2>&1
rc=$?
check "self-test: the style fixture fails (exit status $rc)" [ "$rc" -eq 1 ]
L=tests/integration/style-long-functions.txt
X=tests/integration/style-exits.txt
for want in \
	'src/lib/long.c:13: too_long is 61 lines long (at most 60)' \
	'src/lib/long.c:153: brace_on_line is 62 lines long (at most 60)' \
	"$L: entry src/lib/gone.c vanished: no such function (remove it)" \
	"$L: entry src/lib/long.c at_limit has no reason" \
	"$L: entry src/lib/long.c at_limit: no longer over 60 lines (remove it)" \
	"$L: entry src/lib/long.c give_up has no reason" \
	'src/lib/long.c:144: give_up calls abort() outside src/cli/' \
	"$X: entry src/lib/long.c at_limit: no longer exits (remove it)"; do
	if grep -Fxq -- "    # $want" fixture.txt; then
		ok "self-test: style fixture reports '$want'"
	else
		not_ok "self-test: style fixture reports '$want'"
		sed -n '/^not ok/,$s/^/    # /p' fixture.txt
	fi
done
n=$(grep -c '^    # ' fixture.txt)
check "self-test: the style fixture gives exactly 9 problems ($n)" [ "$n" -eq 9 ]
sh "$SELF" --list "$SRC/tests/fixtures/style" >list.txt 2>&1
check "self-test: --list prints too_long with a FIXME" \
	grep -Fxq 'src/lib/long.c too_long FIXME: say why it is long (61 lines)' list.txt
n=$(wc -l <list.txt)
check "self-test: --list prints too_long and brace_on_line only ($n)" [ "$n" -eq 2 ]

it_finish
