#!/usr/bin/env bash
# README command (2): installs the dependencies, builds with warnings as errors and runs the whole test suite.
# .ci/run calls this. Usage: tools/run_tests.sh [STEP...]   (default: every step in STEPS, in order)
#
# To add a suite: write a function step_NAME below and append NAME to STEPS. A step fails the run by
# returning non-zero (set -e is on). BUILD_DIR (default build/) and JOBS (default nproc) may be overridden.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}"
BUILD_DIR="${BUILD_DIR:-build}"
JOBS="${JOBS:-$(nproc)}"

step_deps() {
  bash tools/install_deps.sh
}

step_configure() {
  cmake -S . -B "${BUILD_DIR}" -DTRILINEAR3D_WERROR=ON
}

step_build() {
  cmake --build "${BUILD_DIR}" -j "${JOBS}"
}

step_ctest() {
  ctest --test-dir "${BUILD_DIR}" --output-on-failure -j2
}

# clang-format check of the project's C++ files (see tools/check_format.sh).
step_format() {
  bash tools/check_format.sh
}

STEPS=(deps configure build ctest)

if [[ $# -gt 0 ]]; then
  STEPS=("$@")
fi

for step in "${STEPS[@]}"; do
  if ! declare -F "step_${step}" >/dev/null; then
    echo "run_tests: unknown step '${step}'" >&2
    exit 2
  fi
done

for step in "${STEPS[@]}"; do
  echo "=== run_tests: ${step}"
  start=${SECONDS}
  "step_${step}"
  echo "=== run_tests: ${step} done in $((SECONDS - start)) s"
done
echo "=== run_tests: all steps passed (${STEPS[*]})"
