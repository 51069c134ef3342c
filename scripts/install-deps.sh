#!/bin/sh
# Installs the Debian packages reveal needs to build, test and evaluate.
# Idempotent: does nothing when everything is present; runs `apt-get update`
# once before installing what is missing. Needs root (or sudo) only then.
#
#   scripts/install-deps.sh            build + test packages
#   scripts/install-deps.sh --eval     also the Python stack for ../shared/eval
#   scripts/install-deps.sh --bench    also what bench/ runs beside reveal
set -eu

BUILD="cmake make gcc pkg-config libopenblas-dev liblapacke-dev zlib1g-dev libpfm4-dev
       libsqlite3-dev libmicrohttpd-dev libyaml-dev
       libprotobuf-c-dev protobuf-c-compiler libsnappy-dev libcurl4-openssl-dev"
TEST="libcmocka-dev clang python3 prometheus victoria-metrics stress-ng sqlite3 curl chromium nftables iproute2"
# `make deb` (scripts/build-deb.sh: dpkg-shlibdeps, strip, chrpath) and
# its test (tests/integration/deb.sh: lintian, systemd-analyze verify)
DEB="dpkg-dev binutils chrpath lintian systemd"
EVAL="python3-numpy python3-pandas python3-scipy python3-sklearn python3-statsmodels"
BENCH="prometheus-node-exporter strace"

want="$BUILD $TEST $DEB"
for arg in "$@"; do
    case "$arg" in
    --eval) want="$want $EVAL" ;;
    --bench) want="$want $BENCH" ;;
    -h|--help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install-deps.sh: unknown option '$arg' (try --help)" >&2; exit 2 ;;
    esac
done

missing=""
for pkg in $want; do
    status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
    case "$status" in
    *"ok installed") ;;
    *) missing="$missing $pkg" ;;
    esac
done

if [ -z "$missing" ]; then
    exit 0
fi

echo "install-deps.sh: installing:$missing" >&2
if [ "$(id -u)" -eq 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO="sudo -n"
else
    echo "install-deps.sh: these Debian packages are missing:$missing" >&2
    echo "install-deps.sh: installing them needs root; run as root:" >&2
    echo "    apt-get update && apt-get install -y$missing" >&2
    exit 1
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
# shellcheck disable=SC2086
$SUDO apt-get install -y -q --no-install-recommends $missing
