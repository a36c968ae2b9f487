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

# Reliability (tests/reliability/README.md): each step configures and builds its own directory.
# The unit and reliability tests under AddressSanitizer + UndefinedBehaviorSanitizer.
step_asan() {
  cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRILINEAR3D_SANITIZE=address,undefined \
    -DTRILINEAR3D_BUILD_EXAMPLES=OFF -DTRILINEAR3D_WERROR=ON
  cmake --build build-asan -j "${JOBS}"
  ASAN_OPTIONS=detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-asan --output-on-failure -j2 -L "ut|reliability"
}

# The stream, plan cache and concurrency tests under ThreadSanitizer (the stress test runs 3 s here).
step_tsan() {
  cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRILINEAR3D_SANITIZE=thread \
    -DTRILINEAR3D_BUILD_EXAMPLES=OFF -DTRILINEAR3D_WERROR=ON
  cmake --build build-tsan -j "${JOBS}" --target trilinear3d_ut_test_streams trilinear3d_reliability_concurrency \
    trilinear3d_reliability_exit_drain_probe trilinear3d_ut_op_host_test_plan_cache
  TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
    ctest --test-dir build-tsan --output-on-failure \
    -R '^(test_streams[.]|op_host[.]test_plan_cache[.]|reliability[.](concurrency|exit_drain)[.])'
}

# The libFuzzer target (clang, ASan + UBSan) for FUZZ_SECONDS (default 60) from the seed corpus;
# new inputs go to build-fuzz/corpus, crashes to build-fuzz/artifacts/. tests/fuzz/README.md runs it longer.
step_fuzz() {
  cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DTRILINEAR3D_BUILD_FUZZ=ON -DTRILINEAR3D_SANITIZE=address,undefined -DTRILINEAR3D_BUILD_EXAMPLES=OFF
  cmake --build build-fuzz -j "${JOBS}" --target trilinear3d_fuzz
  mkdir -p build-fuzz/corpus build-fuzz/artifacts
  build-fuzz/tests/fuzz/trilinear3d_fuzz -max_total_time="${FUZZ_SECONDS:-60}" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix=build-fuzz/artifacts/ build-fuzz/corpus tests/fuzz/corpus
}

# The PyTorch extension (python/): build, install and run its pytest suite.
step_python() {
  SKIP_DEPS=1 bash tools/run_python_tests.sh
}

STEPS=(deps format configure build ctest python asan tsan fuzz)

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
