#!/bin/sh
# deb.sh - the Debian package of `make deb` (scripts/build-deb.sh), made
# from the binary in REVEAL (nothing is rebuilt), looked at, installed,
# checked and purged:
#
# - dpkg-deb --info: package reveal, the version of CMakeLists.txt, this
#   machine's architecture, Section admin, Priority optional, a synopsis
#   and a long description; Depends names, for every library the binary
#   links (readelf NEEDED), the package that holds it (or one it
#   provides, as libopenblas0); the conffile and the maintainer scripts,
#   which enable and start nothing;
# - dpkg-deb --contents: every file (binary, rules, both units, the
#   configuration, /var/lib/reveal, copyright, changelog, man page), all
#   root's, modes 0755/0644 (/var/lib/reveal 0750); the binary stripped,
#   without RUNPATH; the units are deploy/'s with ExecStart's
#   /usr/local/bin/reveal made /usr/bin/reveal and nothing else changed,
#   the configuration deploy/reveal.yaml with state_dir and store.path in
#   /var/lib/reveal;
# - lintian finds no error (its warnings are printed);
# - dpkg -i: the files in place with their owners and modes,
#   `/usr/bin/reveal --version` names the version and a commit (a hash
#   when SRC is a git checkout), `systemd-analyze verify` accepts both
#   installed units without a word, dpkg lists /etc/reveal/reveal.yaml as
#   a conffile and the agent accepts it (--check-config), no unit is
#   enabled;
# - dpkg --purge: none of the package's paths is left, dpkg no longer
#   lists reveal.
#
# Runs as root (dpkg -i), else fails at once. Refuses, touching nothing,
# when reveal is installed already or one of its paths exists: that is
# someone's install, which this test would overwrite and purge. Once it
# installs, the package is purged on every exit, also after a failed
# check or an interrupt. Needs dpkg-dev, chrpath, lintian and
# systemd-analyze (scripts/install-deps.sh). Release build only
# (CMakeLists.txt: RV_TESTS_RELEASE_ONLY). About 20 s.

. "$SRC/tests/integration/lib.sh.inc"
it_setup

if [ "$(id -u)" -ne 0 ]; then
	not_ok "runs as root (dpkg -i and dpkg --purge of the package need it)"
	it_finish
fi
need_tools dpkg-deb dpkg-shlibdeps chrpath readelf lintian systemd-analyze

VERSION=$(sed -n 's/^project(reveal VERSION \([0-9][0-9.]*\).*/\1/p' "$SRC/CMakeLists.txt")
ARCH=$(dpkg --print-architecture)
UNITS=/lib/systemd/system
# every path the package puts on the machine (and DynamicUser='s state)
PATHS="/usr/bin/reveal /usr/share/reveal /etc/reveal /var/lib/reveal
	/var/lib/private/reveal $UNITS/reveal.service $UNITS/reveal-fleet.service
	/usr/share/doc/reveal /usr/share/man/man1/reveal.1.gz
	/usr/share/lintian/overrides/reveal"

# pkg_status: dpkg's status of reveal, "" when dpkg does not know it.
pkg_status() {
	dpkg-query -W -f='${Status}' reveal 2>/dev/null || true
}

# ------------------------------------------------------- someone's install
present=""
for p in $PATHS; do
	if [ -e "$p" ] || [ -L "$p" ]; then
		present="$present $p"
	fi
done
STATUS=$(pkg_status)
case "$STATUS" in
"" | *" not-installed") ;;
*) present="$present (dpkg: reveal '$STATUS')" ;;
esac
if [ -n "$present" ]; then
	not_ok "no reveal on this machine before the test: found$present;" \
		"refusing to install over someone's install and purge it: remove it" \
		"(dpkg --purge reveal) or run the test on another machine"
	it_finish
fi
ok "reveal is not installed here, none of its paths exists"

# From the first dpkg -i on, every exit purges the package.
INSTALLED=0
deb_cleanup() {
	if [ "$INSTALLED" = 1 ] && [ -n "$(pkg_status)" ]; then
		dpkg --purge reveal >"$IT_TMP/purge-exit.txt" 2>&1 ||
			sed 's/^/    # /' "$IT_TMP/purge-exit.txt"
	fi
	it_cleanup
}
trap deb_cleanup EXIT

# -------------------------------------------------------------- the package
if sh "$SRC/scripts/build-deb.sh" --binary "$REVEAL" --out "$IT_TMP/pkg" >build.txt 2>build-err.txt; then
	ok "scripts/build-deb.sh packages $REVEAL"
else
	not_ok "scripts/build-deb.sh packages $REVEAL"
	show build-err.txt
	it_finish
fi
DEB=$(tail -n 1 build.txt)
check "the package is reveal_${VERSION}_$ARCH.deb" test "$DEB" = "$IT_TMP/pkg/reveal_${VERSION}_$ARCH.deb"
echo "# $(basename "$DEB"): $(du -k "$DEB" | cut -f1) KiB"

field() {
	dpkg-deb --field "$DEB" "$1"
}
check "Package: reveal" test "$(field Package)" = reveal
check "Version: $VERSION (CMakeLists.txt)" test "$(field Version)" = "$VERSION"
check "Architecture: $ARCH" test "$(field Architecture)" = "$ARCH"
check "Section: admin, Priority: optional" test "$(field Section) $(field Priority)" = "admin optional"
check "a Maintainer" sh -c "dpkg-deb --field '$DEB' Maintainer | grep -Eq '^[^<]+ <[^@>]+@[^>]+>$'"
field Description >desc.txt
check "a synopsis and a long description that says nothing is started" \
	sh -c "test \$(head -n 1 desc.txt | wc -c) -le 80 && test \$(wc -l <desc.txt) -ge 5 &&
		grep -q 'neither enables nor starts' desc.txt"
DEPENDS=$(field Depends)
echo "# Depends: $DEPENDS"
printf '%s\n' "$DEPENDS" | tr ',|' '\n\n' | sed 's/(.*//; s/[[:space:]]//g; s/:.*//' | sort -u >depnames.txt

# Every library the binary links (NEEDED), where ldd finds it, and the
# package that holds it: dpkg -S, once for all (merged /usr: dpkg may know
# a library under /lib or /usr/lib, or the file behind an alternative).
readelf -d "$REVEAL" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' >needed.txt
ldd "$REVEAL" >ldd.txt 2>&1
: >cand.txt
while read -r so; do
	path=$(awk -v so="$so" '$1 == so && $2 == "=>" && $3 ~ /^\// { print $3 }' ldd.txt)
	[ -n "$path" ] || continue
	real=$(readlink -f "$path")
	printf '%s %s\n' "$so" "$path" "$so" "${path#/usr}" "$so" "$real" "$so" "${real#/usr}" >>cand.txt
done <needed.txt
# shellcheck disable=SC2046
dpkg -S $(awk '{ print $2 }' cand.txt | sort -u) 2>/dev/null | grep -v '^diversion' >owners.txt
# dep_names SONAME PKG: the names a dependency on the library SONAME of
# PKG may use: PKG, what it provides, what its shlibs or symbols file
# gives for SONAME (libopenblas.so.0 of libopenblas0-pthread: libopenblas0).
dep_names() {
	echo "$2"
	dpkg-query -W -f='${Provides}\n' "$2" 2>/dev/null | tr ',' '\n'
	dpkg-query --control-show "$2" shlibs 2>/dev/null |
		awk -v n="${1%%.so.*}" -v v="${1#*.so.}" '$1 == n && $2 == v { $1 = $2 = ""; print }' | tr ',|' '\n\n'
	dpkg-query --control-show "$2" symbols 2>/dev/null | awk -v so="$1" '$1 == so { print $2 }'
}
missing=""
nlibs=0
while read -r so; do
	nlibs=$((nlibs + 1))
	pkg=$(awk -v so="$so" '$1 == so { print $2 }' cand.txt | while read -r p; do
		sed -n "s#^\([^:,]*\)[^ ]*: $p\$#\1#p" owners.txt
	done | head -n 1)
	if [ -z "$pkg" ]; then
		missing="$missing $so(no package)"
		continue
	fi
	hit=0
	for n in $(dep_names "$so" "$pkg" | sed 's/(.*//; s/[[:space:]]//g; s/:.*//'); do
		grep -qx "$n" depnames.txt && hit=1
	done
	[ "$hit" = 1 ] || missing="$missing $so($pkg)"
done <needed.txt
check "Depends names the package of each of the $nlibs libraries the binary links${missing:+, not:$missing}" \
	test -z "$missing" -a "$nlibs" -gt 5
check "Depends names no sanitizer runtime" lacks depnames.txt 'san[0-9]*$'

dpkg-deb --info "$DEB" conffiles >conffiles.txt 2>&1
check "conffiles: /etc/reveal/reveal.yaml" test "$(cat conffiles.txt)" = /etc/reveal/reveal.yaml
mkdir ctl
dpkg-deb --control "$DEB" ctl
check "maintainer scripts postinst, prerm, postrm, md5sums" \
	test -x ctl/postinst -a -x ctl/prerm -a -x ctl/postrm -a -s ctl/md5sums
# systemctl, deb-systemd-invoke or deb-systemd-helper with enable, start,
# restart or reenable (try-restart, of a unit that runs, is fine)
grep -hv '^[[:space:]]*#' ctl/postinst ctl/prerm ctl/postrm >maint.txt
check "the maintainer scripts neither enable nor start a unit" \
	lacks maint.txt '(systemctl|deb-systemd-invoke|deb-systemd-helper)([[:space:]]+[^[:space:]]+)*[[:space:]]+(enable|start|restart|reenable)([[:space:]]|$)'
check "postinst reloads systemd (daemon-reload) when it runs" grep -q 'daemon-reload' ctl/postinst

# ------------------------------------------------------------- its files
dpkg-deb --contents "$DEB" >contents.txt
# has MODE PATH: --contents lists ./PATH with MODE, owned by root
has() {
	awk -v m="$1" -v p="./$2" '$1 == m && $2 == "root/root" && $6 == p { f = 1 } END { exit !f }' contents.txt
}
for e in "-rwxr-xr-x usr/bin/reveal" "-rw-r--r-- usr/share/reveal/rules.yaml" \
	"-rwxr-xr-x usr/share/reveal/actions/k8s-taint.sh" \
	"-rwxr-xr-x usr/share/reveal/actions/slurm-drain.sh" \
	"-rw-r--r-- lib/systemd/system/reveal.service" \
	"-rw-r--r-- lib/systemd/system/reveal-fleet.service" \
	"-rw-r--r-- etc/reveal/reveal.yaml" "drwxr-x--- var/lib/reveal/" \
	"-rw-r--r-- usr/share/doc/reveal/copyright" \
	"-rw-r--r-- usr/share/doc/reveal/changelog.gz" \
	"-rw-r--r-- usr/share/man/man1/reveal.1.gz"; do
	# shellcheck disable=SC2086
	check "--contents: /${e#* } ${e%% *} root/root" has $e
done
check "--contents: everything root's, modes 0755/0644 (but /var/lib/reveal)" \
	sh -c "! awk '\$2 != \"root/root\" ||
		(\$1 != \"drwxr-xr-x\" && \$1 != \"-rw-r--r--\" && \$1 != \"-rwxr-xr-x\" &&
		 \$6 != \"./var/lib/reveal/\")' contents.txt | grep -q ."
dpkg-deb -x "$DEB" x
check "the binary is stripped" sh -c "! readelf -S x/usr/bin/reveal | grep -q '\\.symtab'"
check "the binary has no RUNPATH" sh -c "! readelf -d x/usr/bin/reveal | grep -Eq 'RUNPATH|RPATH'"
check "/usr/share/reveal/rules.yaml is share/reveal/rules.yaml" cmp -s x/usr/share/reveal/rules.yaml "$SRC/share/reveal/rules.yaml"
for u in reveal.service reveal-fleet.service; do
	diff "$SRC/deploy/$u" "x$UNITS/$u" | grep '^[<>]' >"$u.diff"
	check "$u: deploy/$u with ExecStart=/usr/bin/reveal, nothing else changed" \
		sh -c "grep -q '^> ExecStart=/usr/bin/reveal ' '$u.diff' &&
			! grep -Ev '^(< ExecStart=/usr/local/bin/reveal|> ExecStart=/usr/bin/reveal) ' '$u.diff' | grep -q ."
done
diff "$SRC/deploy/reveal.yaml" x/etc/reveal/reveal.yaml | grep '^[<>]' >yaml.diff
check "reveal.yaml: deploy/reveal.yaml, state_dir and store.path in /var/lib/reveal" \
	sh -c "grep -qx '> state_dir: \"/var/lib/reveal\"' yaml.diff &&
		grep -qx '>   path: \"/var/lib/reveal/reveal.db\"' yaml.diff && test \$(wc -l <yaml.diff) -eq 4"

# ------------------------------------------------------------------ lintian
lintian "$DEB" >lintian.txt 2>lintian-err.txt
LRC=$?
grep '^[EW]: ' lintian.txt | sed 's/^/# lintian: /'
if [ "$LRC" -le 1 ] && ! grep -q '^E: ' lintian.txt; then
	ok "lintian: no error ($(grep -c '^W: ' lintian.txt) warnings)"
else
	not_ok "lintian: no error (status $LRC)"
	show lintian.txt
	show lintian-err.txt
fi

# ------------------------------------------------------------------ install
INSTALLED=1
if dpkg -i "$DEB" >install.txt 2>&1; then
	ok "dpkg -i installs it"
else
	not_ok "dpkg -i installs it"
	show install.txt
	it_finish
fi
# mode PATH: its mode and owner, as ls writes them
mode() {
	stat -c '%A %U:%G' "$1" 2>/dev/null
}
for e in "-rwxr-xr-x /usr/bin/reveal" "-rw-r--r-- /usr/share/reveal/rules.yaml" \
	"-rwxr-xr-x /usr/share/reveal/actions/k8s-taint.sh" \
	"-rw-r--r-- $UNITS/reveal.service" "-rw-r--r-- $UNITS/reveal-fleet.service" \
	"-rw-r--r-- /etc/reveal/reveal.yaml" "drwxr-x--- /var/lib/reveal" \
	"-rw-r--r-- /usr/share/doc/reveal/copyright" "-rw-r--r-- /usr/share/doc/reveal/changelog.gz" \
	"-rw-r--r-- /usr/share/man/man1/reveal.1.gz"; do
	check "installed: ${e#* } ${e%% *} root:root" test "$(mode "${e#* }")" = "${e%% *} root:root"
done
/usr/bin/reveal --version >version.txt 2>&1
if [ -e "$SRC/.git" ]; then
	COMMIT_RE='[0-9a-f]{7,}(-dirty)?'
else
	COMMIT_RE='[0-9a-f]{7,}(-dirty)?|unknown'
fi
if grep -Eqx "reveal $VERSION \\(commit ($COMMIT_RE)\\)" version.txt; then
	ok "/usr/bin/reveal --version: $(cat version.txt)"
else
	not_ok "/usr/bin/reveal --version says 'reveal $VERSION (commit ...)'"
	show version.txt
fi
check "it is the version of \$REVEAL" test "$(cat version.txt)" = "$("$REVEAL" --version 2>&1)"
for u in reveal.service reveal-fleet.service; do
	if systemd-analyze verify "$UNITS/$u" >"sv-$u.txt" 2>&1 && ! grep -q . "sv-$u.txt"; then
		ok "systemd-analyze verify $UNITS/$u: clean"
	else
		not_ok "systemd-analyze verify $UNITS/$u: clean"
		show "sv-$u.txt"
	fi
done
dpkg-query -W -f='${Conffiles}\n' reveal >dconf.txt
check "dpkg lists /etc/reveal/reveal.yaml as a conffile" grep -Eq '^ /etc/reveal/reveal.yaml [0-9a-f]{32}$' dconf.txt
check "dpkg -L lists /var/lib/reveal" sh -c "dpkg -L reveal | grep -qx /var/lib/reveal"
check "the agent accepts /etc/reveal/reveal.yaml (--check-config)" \
	sh -c "/usr/bin/reveal agent --check-config /etc/reveal/reveal.yaml >check.txt 2>&1"
check "no unit is enabled" sh -c "! find /etc/systemd/system -name 'reveal*' 2>/dev/null | grep -q ."

# -------------------------------------------------------------------- purge
if dpkg --purge reveal >purge.txt 2>&1; then
	ok "dpkg --purge reveal"
	INSTALLED=0
else
	not_ok "dpkg --purge reveal"
	show purge.txt
fi
left=""
for p in $PATHS; do
	if [ -e "$p" ] || [ -L "$p" ]; then
		left="$left $p"
	fi
done
check "nothing is left behind${left:+:$left}" test -z "$left"
STATUS=$(pkg_status)
check "dpkg no longer lists reveal as installed${STATUS:+ ($STATUS)}" \
	sh -c "case '$STATUS' in '' | *' not-installed') exit 0 ;; *) exit 1 ;; esac"

it_finish
