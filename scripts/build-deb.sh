#!/bin/sh
# build-deb.sh - the Debian package of reveal (`make deb`):
# OUT/reveal_VERSION_ARCH.deb, where VERSION is the project version of
# CMakeLists.txt, ARCH `dpkg --print-architecture` and OUT the build
# folder (build/) unless --out names another. The last line of stdout is
# the package's path.
#
#   scripts/build-deb.sh [--build DIR] [--out DIR]
#       packages DIR/reveal (default build/), built first when out of date
#       (DIR must be a release build; a new DIR is configured as one)
#   scripts/build-deb.sh --binary FILE [--out DIR]
#       packages FILE as it is, builds nothing (tests/integration/deb.sh)
# --out names the folder of the package, by default the build folder.
#
# The package holds
#   /usr/bin/reveal                       the binary, stripped, without the build's RUNPATH
#   /usr/share/reveal/rules.yaml          the shipped rules, for reference (the binary has
#                                         them built in; operators add files of their own)
#   /usr/share/reveal/actions/*.sh        deploy/actions: incident actions to copy and adapt
#                                         (taint a Kubernetes node, drain a Slurm node)
#   /lib/systemd/system/reveal.service    deploy/reveal.service and deploy/reveal-fleet.service
#   /lib/systemd/system/reveal-fleet.service  with /usr/local/bin/reveal made /usr/bin/reveal
#   /etc/reveal/reveal.yaml               conffile: deploy/reveal.yaml with state_dir and
#                                         store.path in /var/lib/reveal (as deploy/README.md)
#   /var/lib/reveal/                      0750: the agent's state (the unit's StateDirectory)
#   /usr/share/doc/reveal/                copyright, changelog.gz, README.md.gz and
#                                         README.deploy.md.gz (deploy/README.md)
#   /usr/share/man/man1/reveal.1.gz       its command list from `reveal --help`
#   /usr/share/lintian/overrides/reveal   /var/lib/reveal is 0750 on purpose
# Depends is what dpkg-shlibdeps finds the binary needs. The maintainer
# scripts enable and start nothing: postinst makes /var/lib/reveal if it is
# missing and reloads systemd (daemon-reload) when systemd runs, and after
# an upgrade restarts the units that are running; prerm stops them on
# removal; purge also removes /etc/reveal and /var/lib/reveal (with the
# /var/lib/private/reveal that DynamicUser= moves the state to).
#
# The package is native (its packaging lives in the source tree, the
# version has no Debian revision), so its changelog is changelog.gz:
# lintian wants changelog.Debian.gz only beside a Debian revision.
# The staging tree is OUT/deb-root.
# Environment: JOBS, the build's parallel jobs (default: the CPUs);
# DEB_MAINTAINER ("Name <address>") sets the Maintainer field;
# SOURCE_DATE_EPOCH (default: the time of the checked-out commit) the dates
# inside the package. Needs dpkg-dev (dpkg-shlibdeps), binutils (strip,
# readelf) and chrpath: scripts/install-deps.sh.
set -eu
umask 022
CALLER=$(pwd)
SRC=$(cd "$(dirname "$0")/.." && pwd)

die() {
	echo "build-deb.sh: $*" >&2
	exit 1
}

BUILD=build
BIN=
OUT=
while [ $# -gt 0 ]; do
	case "$1" in
	--build) BUILD=${2:?--build needs a folder}; shift 2 ;;
	--binary) BIN=${2:?--binary needs a file}; shift 2 ;;
	--out) OUT=${2:?--out needs a folder}; shift 2 ;;
	-h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "build-deb.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
	esac
done

# the paths of the command line are the caller's; the rest runs in SRC
abspath() {
	case "$1" in
	/*) printf '%s\n' "$1" ;;
	*) printf '%s/%s\n' "$CALLER" "$1" ;;
	esac
}
BUILD=$(abspath "$BUILD")
[ -z "$BIN" ] || BIN=$(abspath "$BIN")
[ -z "$OUT" ] || OUT=$(abspath "$OUT")
cd "$SRC"

for tool in dpkg-deb dpkg-shlibdeps strip readelf chrpath gzip; do
	command -v "$tool" >/dev/null 2>&1 ||
		die "$tool is missing (scripts/install-deps.sh installs it)"
done

VERSION=$(sed -n 's/^project(reveal VERSION \([0-9][0-9.]*\).*/\1/p' CMakeLists.txt)
[ -n "$VERSION" ] || die "no 'project(reveal VERSION x.y.z' in CMakeLists.txt"
ARCH=$(dpkg --print-architecture)
MAINTAINER=${DEB_MAINTAINER:-reveal maintainers <reveal@example.org>}

# ---------------------------------------------------------------- binary
if [ -z "$BIN" ]; then
	if [ ! -f "$BUILD/CMakeCache.txt" ]; then
		cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null
	fi
	if grep -q '^REVEAL_SANITIZE:BOOL=ON' "$BUILD/CMakeCache.txt"; then
		die "$BUILD/ is a sanitizer build: package a release build (--build DIR)"
	fi
	cmake --build "$BUILD" -j "${JOBS:-$(nproc 2>/dev/null || echo 2)}" --target reveal >&2
	BIN=$BUILD/reveal
fi
OUT=${OUT:-$BUILD}
if [ ! -f "$BIN" ] || [ ! -x "$BIN" ]; then
	die "$BIN: no reveal binary there"
fi
if readelf -d "$BIN" | grep -Eq 'NEEDED.*lib(a|ub)san'; then
	die "$BIN is built with the sanitizers: package a release build"
fi
# "reveal 0.1.0 (commit abc1234)": a binary of this tree's version
VLINE=$("$BIN" --version | head -n 1)
case "$VLINE" in
"reveal $VERSION (commit "*")") ;;
*) die "$BIN --version says '$VLINE', not 'reveal $VERSION (commit ...)': rebuild it" ;;
esac
COMMIT=${VLINE#*"(commit "}
COMMIT=${COMMIT%")"}
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
	SOURCE_DATE_EPOCH=$(git -c safe.directory="$SRC" log -1 --format=%ct 2>/dev/null) ||
		SOURCE_DATE_EPOCH=
	[ -n "$SOURCE_DATE_EPOCH" ] || SOURCE_DATE_EPOCH=$(date +%s)
fi
export SOURCE_DATE_EPOCH

# ------------------------------------------------------ the staged files
# stage_files: binary, rules, units, configuration, state directory.
stage_files() {
	install -D -m 0755 "$BIN" "$ROOT/usr/bin/reveal"
	strip --remove-section=.comment --remove-section=.note --strip-unneeded \
		"$ROOT/usr/bin/reveal"
	# CMake's build RUNPATH (the folder of one OpenBLAS flavour) goes: the
	# package loads the libopenblas.so.0 the system's alternatives choose,
	# the libopenblas0 of Depends (lintian: custom-library-search-path)
	chrpath -d "$ROOT/usr/bin/reveal" >/dev/null
	install -D -m 0644 share/reveal/rules.yaml "$ROOT/usr/share/reveal/rules.yaml"
	for act in deploy/actions/*.sh; do
		install -D -m 0755 "$act" "$ROOT/usr/share/reveal/actions/${act##*/}"
	done
	install -d -m 0755 "$ROOT/lib/systemd/system"
	for unit in reveal.service reveal-fleet.service; do
		sed 's#/usr/local/bin/reveal#/usr/bin/reveal#g' "deploy/$unit" \
			>"$ROOT/lib/systemd/system/$unit"
		chmod 0644 "$ROOT/lib/systemd/system/$unit"
		grep -q '^ExecStart=/usr/bin/reveal ' "$ROOT/lib/systemd/system/$unit" ||
			die "deploy/$unit: ExecStart does not run /usr/local/bin/reveal"
	done
	etc=$ROOT/etc/reveal
	install -d -m 0755 "$etc"
	sed -e 's|^state_dir: .*|state_dir: "/var/lib/reveal"|' \
		-e 's|^  path: "./reveal.db"|  path: "/var/lib/reveal/reveal.db"|' \
		deploy/reveal.yaml >"$etc/reveal.yaml"
	chmod 0644 "$etc/reveal.yaml"
	if ! grep -qx 'state_dir: "/var/lib/reveal"' "$etc/reveal.yaml" ||
		! grep -qx '  path: "/var/lib/reveal/reveal.db"' "$etc/reveal.yaml"; then
		die "deploy/reveal.yaml: no state_dir or store path line to set to /var/lib/reveal"
	fi
	echo /etc/reveal/reveal.yaml >"$ROOT/DEBIAN/conffiles"
	install -d -m 0750 "$ROOT/var/lib/reveal"
	install -d -m 0755 "$ROOT/usr/share/lintian/overrides"
	{
		echo "# Incidents and the fitted model are the host's business, not every"
		echo "# user's: 0750, as the unit's StateDirectoryMode."
		echo "reveal: non-standard-dir-perm 0750 != 0755 [var/lib/reveal/]"
	} >"$ROOT/usr/share/lintian/overrides/reveal"
	chmod 0644 "$ROOT/usr/share/lintian/overrides/reveal"
}

# copyright: the DEP-5 copyright file, printed.
copyright() {
	echo "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
	echo "Upstream-Name: reveal"
	echo "Source: the reveal source tree, commit $COMMIT"
	echo
	echo "Files: *"
	echo "Copyright: $(date -u -d "@$SOURCE_DATE_EPOCH" +%Y) the reveal developers"
	for f in LICENSE LICENSE.md LICENSE.txt COPYING; do
		if [ -f "$f" ]; then
			echo "License: reveal"
			sed -e 's/^[[:space:]]*$/./' -e 's/^/ /' "$f"
			return 0
		fi
	done
	echo "License: all-rights-reserved"
	echo " The reveal source tree carries no license file: all rights are"
	echo " reserved by the reveal developers."
}

# stage_docs: /usr/share/doc/reveal.
stage_docs() {
	doc=$ROOT/usr/share/doc/reveal
	install -d -m 0755 "$doc"
	copyright >"$doc/copyright"
	{
		echo "reveal ($VERSION) unstable; urgency=medium"
		echo
		echo "  * Packaged by scripts/build-deb.sh from commit $COMMIT."
		echo
		echo " -- $MAINTAINER  $(date -u -d "@$SOURCE_DATE_EPOCH" -R)"
	} | gzip -9n >"$doc/changelog.gz"
	gzip -9nc README.md >"$doc/README.md.gz"
	gzip -9nc deploy/README.md >"$doc/README.deploy.md.gz"
	chmod 0644 "$doc"/*
}

# man_commands: the commands of `reveal --help` as man(7) .TP items.
man_commands() {
	"$BIN" --help | awk '
		/^Commands:/ { on = 1; next }
		on && /^  [a-z]/ {
			name = $1
			sub(/^  [a-z]+ +/, "")
			gsub(/\\/, "\\e")
			if ($0 ~ /^[.\047]/) $0 = "\\&" $0
			printf ".TP\n.B %s\n%s\n", name, $0
		}'
}

# stage_man: /usr/share/man/man1/reveal.1.gz.
stage_man() {
	install -d -m 0755 "$ROOT/usr/share/man/man1"
	{
		printf '.TH REVEAL 1 "%s" "reveal %s" "User Commands"\n' \
			"$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%d)" "$VERSION"
		cat <<'MAN'
.SH NAME
reveal \- anomaly detection for AI/HPC hosts from hardware telemetry
.SH SYNOPSIS
.B reveal
.I command
.RI [ options ]
.br
.B reveal \-\-version
.SH DESCRIPTION
.B reveal
cuts a host's hardware counters into sliding windows, scores every window
with several unsupervised detectors, merges anomalous windows into incidents
and names the subsystem and the signals behind each one, with the likely
cause from its rules.
.B reveal agent
does it live: it serves Prometheus metrics, a JSON API and a dashboard on
127.0.0.1:9464 and keeps incidents in SQLite.
.SH COMMANDS
MAN
		man_commands
		cat <<'MAN'
.PP
.B reveal
.I command
.B \-\-help
describes the options of a command.
.SH FILES
.TP
.I /etc/reveal/reveal.yaml
the agent's configuration: every key with its default and range
.TP
.I /var/lib/reveal
the agent's state: incidents (reveal.db) and the fitted model
.TP
.I /usr/share/reveal/rules.yaml
the shipped root\-cause rules, for reference: they are built into the
binary, and rule files of your own add to them
.TP
.I /lib/systemd/system/reveal.service
the agent's unit, neither enabled nor started by the package:
.B systemctl enable \-\-now reveal
.TP
.I /lib/systemd/system/reveal\-fleet.service
the unit of
.BR "reveal fleet \-\-serve" ,
likewise
.SH SEE ALSO
.BR systemctl (1),
.BR journalctl (1),
.I /usr/share/doc/reveal/README.deploy.md.gz
MAN
	} >"$ROOT/reveal.1"
	[ "$(grep -c '^\.TP' "$ROOT/reveal.1")" -gt 8 ] ||
		die "no command list in '$BIN --help'"
	gzip -9n <"$ROOT/reveal.1" >"$ROOT/usr/share/man/man1/reveal.1.gz"
	rm -f "$ROOT/reveal.1"
	chmod 0644 "$ROOT/usr/share/man/man1/reveal.1.gz"
}

# ------------------------------------------------------ maintainer scripts
write_postinst() {
	cat >"$ROOT/DEBIAN/postinst" <<'SCRIPT'
#!/bin/sh
# postinst of reveal (scripts/build-deb.sh): enables and starts nothing.
set -e

# /var/lib/reveal, the agent's state, 0750. DynamicUser= (reveal.service)
# moves it to /var/lib/private/reveal at the first start and leaves a link
# there; a removal takes the link away: put it back, or the unit would not
# start beside the empty directory dpkg makes again.
state_dir() {
	if [ -d /var/lib/private/reveal ]; then
		if [ ! -L /var/lib/reveal ]; then
			rmdir /var/lib/reveal 2>/dev/null || true
		fi
		if [ ! -e /var/lib/reveal ] && [ ! -L /var/lib/reveal ]; then
			ln -s private/reveal /var/lib/reveal
		fi
	elif [ ! -e /var/lib/reveal ] && [ ! -L /var/lib/reveal ]; then
		install -d -m 0750 /var/lib/reveal
	fi
}

if [ "$1" = configure ]; then
	state_dir
	if [ -d /run/systemd/system ]; then
		systemctl --system daemon-reload >/dev/null || true
		# after an upgrade a unit that runs restarts on the new binary;
		# a stopped one stays stopped
		if [ -n "$2" ] && command -v deb-systemd-invoke >/dev/null 2>&1; then
			deb-systemd-invoke try-restart reveal.service reveal-fleet.service >/dev/null || true
		fi
	fi
fi
exit 0
SCRIPT
}

write_scripts() {
	write_postinst
	cat >"$ROOT/DEBIAN/prerm" <<'SCRIPT'
#!/bin/sh
# prerm of reveal (scripts/build-deb.sh): a removal stops the units.
set -e

if [ "$1" = remove ] && [ -d /run/systemd/system ] &&
	command -v deb-systemd-invoke >/dev/null 2>&1; then
	deb-systemd-invoke stop reveal.service reveal-fleet.service >/dev/null || true
fi
exit 0
SCRIPT
	cat >"$ROOT/DEBIAN/postrm" <<'SCRIPT'
#!/bin/sh
# postrm of reveal (scripts/build-deb.sh): purge removes the configuration
# (/etc/reveal, with the files added there), the state (/var/lib/reveal,
# and /var/lib/private/reveal where DynamicUser= keeps it) and the links
# that `systemctl enable` made.
set -e

if [ "$1" = purge ]; then
	rm -rf /etc/reveal /var/lib/reveal /var/lib/private/reveal
	for unit in reveal.service reveal-fleet.service; do
		find /etc/systemd/system -path "*.wants/$unit" -type l -delete 2>/dev/null || true
	done
fi
if { [ "$1" = remove ] || [ "$1" = purge ]; } && [ -d /run/systemd/system ]; then
	systemctl --system daemon-reload >/dev/null || true
fi
exit 0
SCRIPT
	chmod 0755 "$ROOT/DEBIAN/postinst" "$ROOT/DEBIAN/prerm" "$ROOT/DEBIAN/postrm"
}

# ------------------------------------------------------ control
# shlib_depends: DEPENDS, what dpkg-shlibdeps finds the staged binary needs.
shlib_depends() {
	# it wants a debian/control in its folder, and finds the package's
	# root by the DEBIAN folder above the binary
	SHLIB_TMP=$(mktemp -d "${TMPDIR:-/tmp}/build-deb.XXXXXX")
	mkdir -p "$SHLIB_TMP/debian"
	printf 'Source: reveal\n\nPackage: reveal\nArchitecture: any\n' >"$SHLIB_TMP/debian/control"
	line=$(cd "$SHLIB_TMP" && dpkg-shlibdeps -O -e"$ROOT/usr/bin/reveal") ||
		die "dpkg-shlibdeps failed on $BIN"
	rm -rf "$SHLIB_TMP"
	case "$line" in
	shlibs:Depends=?*) DEPENDS=${line#shlibs:Depends=} ;;
	*) die "dpkg-shlibdeps found no Depends: '$line'" ;;
	esac
}

# write_control DEPENDS
write_control() {
	size=$(du -sk --exclude=DEBIAN "$ROOT" | cut -f1)
	cat >"$ROOT/DEBIAN/control" <<CONTROL
Package: reveal
Version: $VERSION
Architecture: $ARCH
Maintainer: $MAINTAINER
Installed-Size: $size
Depends: $1
Section: admin
Priority: optional
Description: anomaly detection for AI/HPC hosts from hardware telemetry
 reveal watches a Linux host's hardware counters (CPU, memory, perf
 events, GPUs through NVML, network, storage), learns how the host
 normally behaves, then scores every second with several unsupervised
 detectors (z-score, PCA with Mahalanobis distance, Isolation Forest and
 a reconstruction-error detector). It merges anomalous windows into
 incidents and names the subsystem and the signals behind each one, with
 the likely cause from its rules.
 .
 The agent serves Prometheus metrics, a JSON API and a dashboard on
 127.0.0.1:9464 and keeps incidents in SQLite; "reveal fleet" finds
 stragglers and configuration drift across the nodes of a fleet.
 .
 The package installs the systemd units reveal.service and
 reveal-fleet.service but neither enables nor starts them: adjust
 /etc/reveal/reveal.yaml, then run "systemctl enable --now reveal".
CONTROL
	chmod 0644 "$ROOT/DEBIAN/control" "$ROOT/DEBIAN/conffiles"
}

# ------------------------------------------------------ the package
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
ROOT=$OUT/deb-root
DEB=$OUT/reveal_${VERSION}_${ARCH}.deb
rm -rf "$ROOT" "$DEB"
mkdir -p "$ROOT/DEBIAN"
SHLIB_TMP=
trap '[ -z "$SHLIB_TMP" ] || rm -rf "$SHLIB_TMP"' EXIT

stage_files
stage_docs
stage_man
write_scripts
shlib_depends
write_control "$DEPENDS"
(cd "$ROOT" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z |
	xargs -0 md5sum) >"$ROOT/DEBIAN/md5sums"
chmod 0644 "$ROOT/DEBIAN/md5sums"

dpkg-deb --root-owner-group -Zxz --build "$ROOT" "$DEB" >&2
echo "build-deb.sh: $(basename "$DEB"): $(du -k "$DEB" | cut -f1) KiB; Depends: $DEPENDS" >&2
echo "$DEB"
