#!/bin/sh
# style.sh - the mechanical part of STYLE.md over src/.
#
# Fails on: calls to unsafe or banned C library functions (sscanf, atoi,
# atol, strtok, sprintf, strcpy, strcat, gets); files over 800 lines;
# printing to stdout/stderr outside src/cli/ and src/base/log.c (library
# code logs through base/log.h; writing to a FILE* handed in is fine).
# Comments and string literals are blanked first, so prose such as
# "no sprintf()" or a help text does not count.

. "$SRC/tests/integration/lib.sh.inc"
it_setup

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

find "$SRC/src" -type f \( -name '*.c' -o -name '*.h' \) | sort >files.txt
nfiles=$(wc -l <files.txt)
check "found the C sources ($nfiles files)" [ "$nfiles" -ge 10 ]

# Every source line as "path:line:code", the code with comments removed
# and the contents of string and character literals blanked.
code_view() {
	while read -r f; do
		awk -v name="${f#"$SRC"/}" '
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
	[ "$n" -gt "$MAX_LINES" ] && long="$long ${f#"$SRC"/}($n)"
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

# The checks above must be able to fail: run them on a planted sample.
printf '%s\n' 'static void f(FILE *f) { fprintf(f, "x"); }' \
	'/* sprintf( in a comment */' 'int a = atoi(s); // strcpy(' \
	'	fprintf(stderr, "debug %d\n", x);' 'char *s = "printf(";' \
	'	fflush(stderr);' '	fputs(s, f);' '	fputs(s, stdout);' >"$IT_TMP/sample.c"
SRC_SAVE=$SRC
echo "$IT_TMP/sample.c" >files.txt
SRC=$IT_TMP
code_view >sample.txt
SRC=$SRC_SAVE
hits=$(grep -cE "$BANNED_RE" sample.txt)
check "self-test: banned-call pattern finds atoi only ($hits)" [ "$hits" -eq 1 ]
hits=$(grep -cE "$PRINT_RE" sample.txt)
check "self-test: printing pattern finds fprintf(stderr and fputs(s, stdout) ($hits)" [ "$hits" -eq 2 ]

it_finish
