#!/bin/sh
# embed-text.sh IN OUT SYMBOL - writes OUT, a C file that defines
#   const char SYMBOL[]        the bytes of IN, then a NUL
#   const size_t SYMBOL_len    the number of bytes of IN
# so a text file (share/reveal/rules.yaml) is compiled into the binary.
# Used by CMakeLists.txt and tests/fuzz/fuzz.mk; POSIX sh and od only. OUT
# is written through a temporary file, so a failed run leaves no half file.
set -eu
if [ $# -ne 3 ]; then
	echo "usage: $0 IN OUT SYMBOL" >&2
	exit 2
fi
in=$1
out=$2
sym=$3
tmp=$out.tmp.$$
trap 'rm -f "$tmp"' EXIT
n=$(wc -c <"$in" | tr -d ' ')
{
	printf '/* Generated from %s by scripts/embed-text.sh: do not edit. */\n' "$(basename "$in")"
	printf '#include <stddef.h>\n\n'
	printf 'extern const char %s[];\nextern const size_t %s_len;\n\n' "$sym" "$sym"
	printf 'const char %s[] = {\n' "$sym"
	od -An -v -tx1 "$in" | sed -e 's/ *\([0-9a-f][0-9a-f]\)/0x\1, /g' -e 's/^/\t/' -e 's/ *$//'
	printf '\t0x00\n};\n\nconst size_t %s_len = %s;\n' "$sym" "$n"
} >"$tmp"
mv "$tmp" "$out"
trap - EXIT
