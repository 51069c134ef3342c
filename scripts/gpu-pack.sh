#!/bin/sh
# Packs build/reveal and the shared libraries it needs (not libc, which the
# GPU machine has) into gpu-pack/ for the NVML check on a machine that
# reaches no package registry (DEVELOPERS.md). gpu-pack/ is git-ignored.
#
#   scripts/gpu-pack.sh          after `make`
set -eu
cd "$(dirname "$0")/.."
[ -x build/reveal ] || { echo "gpu-pack.sh: build/reveal missing: run make first" >&2; exit 2; }
rm -rf gpu-pack
mkdir -p gpu-pack/lib
cp build/reveal gpu-pack/
ldd build/reveal | awk '$3 ~ /^\// {print $3}' | while read -r lib; do
    case "$(basename "$lib")" in
    libc.so.*|libm.so.*|ld-linux*) ;;
    *) cp -L "$lib" gpu-pack/lib/ ;;
    esac
done
cp scripts/gpu-check.sh gpu-pack/
du -sh gpu-pack
