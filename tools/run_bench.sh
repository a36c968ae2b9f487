#!/usr/bin/env bash
# Builds and runs the benchmark (bench/): SPEC section 6's cases B1-B8 and the forward cases F1, F3, F5,
# ours against PyTorch's CPU kernel (the libtorch of tools/python_env.sh's venv, else Debian's libtorch-dev)
# and memcpy, 2 threads each, in one process.
# Writes bench/results/bench.md (the table), bench/results/bench.json and bench/results/bench.png.
#
# Usage: tools/run_bench.sh [trilinear3d_bench options...]   e.g. --cases B1,B3 --reps 9 --threads 1
# Default: all cases, --threads 2. BUILD_DIR (default build-bench/) and JOBS (default nproc) may be overridden.
# Needs the packages of tools/install_deps.sh (libtorch-dev, python3-matplotlib); takes a few minutes.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}"
BUILD_DIR="${BUILD_DIR:-build-bench}"
JOBS="${JOBS:-$(nproc)}"
RESULTS="bench/results"

cmake -S . -B "${BUILD_DIR}" -DCMAKE_BUILD_TYPE=Release -DTRILINEAR3D_BUILD_BENCH=ON \
  -DTRILINEAR3D_BUILD_TESTS=OFF -DTRILINEAR3D_BUILD_EXAMPLES=OFF
cmake --build "${BUILD_DIR}" -j "${JOBS}" --target trilinear3d_bench

mkdir -p "${RESULTS}"
"${BUILD_DIR}/bench/trilinear3d_bench" --threads 2 "$@" \
  --md "${RESULTS}/bench.md" --json "${RESULTS}/bench.json"
/usr/bin/python3 bench/plot_bench.py "${RESULTS}/bench.json" "${RESULTS}/bench.png"
echo "run_bench: wrote ${RESULTS}/bench.md, ${RESULTS}/bench.json, ${RESULTS}/bench.png"
