#!/usr/bin/env bash
# build-ptx.sh compiles the CUDA C kernels of policy/backend/cuda/kernels
# (csrc/module.cu and what it includes) into PTX for sm_80 and newer with
# clang, no CUDA toolkit needed. The result is committed as kernels.ptx and
# embedded in the binary; the driver JIT-compiles it for the GPU it finds.
#
#   scripts/build-ptx.sh            rewrite policy/backend/cuda/kernels/kernels.ptx
#   scripts/build-ptx.sh OUT.ptx    write OUT.ptx instead (the package test does)
#
# CLANG names the compiler (default clang-19; Debian: apt-get install
# clang-19). The output depends only on the sources and the clang version.
set -euo pipefail

pkg="$(cd "$(dirname "$0")/.." && pwd)/policy/backend/cuda/kernels"
out="${1:-$pkg/kernels.ptx}"
clang="${CLANG:-clang-19}"

if ! command -v "$clang" >/dev/null; then
	echo "build-ptx.sh: $clang not found; install it (Debian: apt-get install clang-19)" >&2
	exit 2
fi

# Compile in the source folder with relative names, so no path of this
# machine reaches the output.
cd "$pkg/csrc"
tmp="$(mktemp)"
trap 'rm -f "$tmp"' EXIT
"$clang" -x cuda --cuda-gpu-arch=sm_80 --cuda-feature=+ptx70 --cuda-device-only \
	-nocudainc -nocudalib -O2 -S -o "$tmp" module.cu
chmod 644 "$tmp"
mv "$tmp" "$out"
trap - EXIT
