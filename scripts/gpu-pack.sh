#!/bin/sh
# Packs build/reveal and the shared libraries it needs (not libc, which the
# GPU machine has) into gpu-pack/ for the NVML check on a machine that
# reaches no package registry (DEVELOPERS.md). gpu-pack/ is git-ignored.
#
#   scripts/gpu-pack.sh          after `make` (builds bench/nvml_bench too)
set -eu
cd "$(dirname "$0")/.."
[ -x build/reveal ] || { echo "gpu-pack.sh: build/reveal missing: run make first" >&2; exit 2; }
cmake --build build --target nvml_bench >/dev/null
rm -rf gpu-pack
mkdir -p gpu-pack/lib
cp build/reveal build/nvml_bench gpu-pack/
ldd build/reveal | awk '$3 ~ /^\// {print $3}' | while read -r lib; do
    case "$(basename "$lib")" in
    libc.so.*|libm.so.*|ld-linux*) ;;
    *) cp -L "$lib" gpu-pack/lib/ ;;
    esac
done
cp scripts/gpu-check.sh gpu-pack/
du -sh gpu-pack
