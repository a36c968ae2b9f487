#!/usr/bin/env bash
# README command (1): installs the compiler and CMake (tools/install_deps.sh build), builds the library
# and runs the seed's sample program (examples/test_aclnn_upsample_trilinear3d_backward.cpp), which
# prints result[0..3] = 36, 100, 164, 228. The tests are not needed for this (without GoogleTest the
# configure step leaves them out).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}"
BUILD_DIR="${BUILD_DIR:-build}"

bash tools/install_deps.sh build
cmake -S . -B "${BUILD_DIR}"
cmake --build "${BUILD_DIR}" -j "$(nproc)" --target test_aclnn_upsample_trilinear3d_backward
"${BUILD_DIR}/examples/test_aclnn_upsample_trilinear3d_backward"
