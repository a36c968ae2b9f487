#!/usr/bin/env bash
# Builds and runs the benchmark (bench/): docs/spec.md §8's cases B1-B8, the forward cases F1, F3, F5 and the
# linear group's L1-L6, ours against PyTorch's CPU kernel (the libtorch of tools/python_env.sh's venv, else
# Debian's libtorch-dev) and memcpy, 2 threads each, in one process.
# Writes bench/results/bench.md (the table), bench.json and bench.png for the best ISA tier this CPU has,
# and bench-<tier>.* for a lower one (BENCH_TIERS="avx512 avx2" by default; e.g. BENCH_TIERS=avx2 on an
# AVX-512 machine writes bench-avx2.* alone).
#
# Usage: tools/run_bench.sh [trilinear3d_bench options...]   e.g. --cases B1,B3 --reps 9 --threads 1
# Default: all cases, --threads 2. BUILD_DIR (default build-bench/) and JOBS (default nproc) may be overridden.
# Needs the packages of `bash tools/install_deps.sh bench` (libtorch-dev, python3-matplotlib); takes a few minutes.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}"
BUILD_DIR="${BUILD_DIR:-build-bench}"
JOBS="${JOBS:-$(nproc)}"
RESULTS="bench/results"

# The rival torch is picked here on every run, not left to the build directory's cache: a directory first
# configured before the venv existed would otherwise keep Debian's libtorch (1.13) once the venv is there.
# Without the venv, bench/CMakeLists.txt's default (Debian's) or the cache's choice stands.
VENV="${TRILINEAR3D_VENV:-${HOME}/.cache/trilinear3d/venv-torch}"
torch_args=()
for dir in "${VENV}"/lib/python3*/site-packages/torch/share/cmake/Torch; do
  [[ -f "${dir}/TorchConfig.cmake" ]] && torch_args=("-DTRILINEAR3D_TORCH_DIR=${dir}") && break
done
cmake -S . -B "${BUILD_DIR}" -DCMAKE_BUILD_TYPE=Release -DTRILINEAR3D_BUILD_BENCH=ON \
  -DTRILINEAR3D_BUILD_TESTS=OFF -DTRILINEAR3D_BUILD_EXAMPLES=OFF "${torch_args[@]}"
cmake --build "${BUILD_DIR}" -j "${JOBS}" --target trilinear3d_bench

mkdir -p "${RESULTS}"
# One table per ISA tier this CPU has among BENCH_TIERS (default: avx512 and avx2), each tier forced
# on both sides: TRILINEAR3D_ISA for the library, ATEN_CPU_CAPABILITY for PyTorch. The CPU's best tier's
# results are bench.{md,json,png}, whichever tiers run; a lower tier's carry its name (bench-avx2.md, ...).
BENCH="${BUILD_DIR}/bench/trilinear3d_bench"
supported=$(grep -m1 '^flags' /proc/cpuinfo || true)
has_flags() {
  for flag in "$@"; do
    [[ " ${supported} " == *" ${flag} "* ]] || return 1
  done
}
best=baseline
if has_flags avx512f avx512bw avx512vl avx512dq avx2 fma; then
  best=avx512
elif has_flags avx2 fma; then
  best=avx2
fi
ran=0
for tier in ${BENCH_TIERS:-avx512 avx2}; do
  case "${tier}" in
    avx512) has_flags avx512f avx512bw avx512vl avx512dq avx2 fma || continue ;;
    avx2) has_flags avx2 fma || continue ;;
    baseline) ;;
    *) echo "run_bench: unknown tier ${tier} in BENCH_TIERS" >&2; exit 2 ;;
  esac
  name="bench"
  [[ "${tier}" == "${best}" ]] || name="bench-${tier}"
  aten="${tier/baseline/default}"  # PyTorch names its baseline "default"
  echo "=== run_bench: ${tier} (${RESULTS}/${name}.md)"
  TRILINEAR3D_ISA="${tier}" ATEN_CPU_CAPABILITY="${aten}" "${BENCH}" --threads 2 "$@" \
    --md "${RESULTS}/${name}.md" --json "${RESULTS}/${name}.json"
  /usr/bin/python3 bench/plot_bench.py "${RESULTS}/${name}.json" "${RESULTS}/${name}.png"
  ran=$((ran + 1))
done
echo "run_bench: wrote ${ran} table(s) to ${RESULTS}/"
