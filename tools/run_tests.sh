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

# Every group: the steps below use the test packages and the python step the extension's.
step_deps() {
  bash tools/install_deps.sh all
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

# Reliability (tests/reliability/README.md): each step configures and builds its own directory, at
# SANITIZER_FLAGS (-O1 -g1: the sanitizers' reports keep their line numbers, and the build, most of these
# steps' time, takes half as long as at RelWithDebInfo's -O2 -g).
SANITIZER_FLAGS=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG"
                 "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG")
# The unit and reliability tests under AddressSanitizer + UndefinedBehaviorSanitizer (with
# float-cast-overflow, which gcc's -fsanitize=undefined leaves out: a NaN or huge double cast to an
# integer index is the class of bug the fuzz step has found most). The accuracy tests'
# sweeps run a sample (TRILINEAR3D_TEST_SAMPLE, every ASAN_SAMPLE-th case, default 5): set for the build too,
# since ctest's list of gtest cases is discovered when a test program is built.
step_asan() {
  local -x TRILINEAR3D_TEST_SAMPLE="${ASAN_SAMPLE:-5}"
  cmake -S . -B build-asan "${SANITIZER_FLAGS[@]}" -DTRILINEAR3D_SANITIZE=address,undefined,float-cast-overflow \
    -DTRILINEAR3D_BUILD_EXAMPLES=OFF -DTRILINEAR3D_WERROR=ON
  cmake --build build-asan -j "${JOBS}"
  ASAN_OPTIONS=detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-asan --output-on-failure -j2 -L "ut|reliability"
}

# The stream, event, context, plan cache and concurrency tests under ThreadSanitizer (the stress test
# runs 3 s here).
step_tsan() {
  cmake -S . -B build-tsan "${SANITIZER_FLAGS[@]}" -DTRILINEAR3D_SANITIZE=thread \
    -DTRILINEAR3D_BUILD_EXAMPLES=OFF -DTRILINEAR3D_WERROR=ON
  cmake --build build-tsan -j "${JOBS}" --target trilinear3d_ut_op_api_test_streams trilinear3d_reliability_concurrency \
    trilinear3d_reliability_exit_drain_probe trilinear3d_ut_op_api_test_plan_cache \
    trilinear3d_ut_runtime_test_events trilinear3d_ut_runtime_test_async_memory trilinear3d_ut_runtime_test_contexts
  TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
    ctest --test-dir build-tsan --output-on-failure \
    -R '^(op_api[.]test_streams[.]|op_api[.]test_plan_cache[.]|reliability[.](concurrency|exit_drain)[.]|runtime[.](test_events|test_async_memory|test_contexts)[.])'
}

# The libFuzzer target (clang, ASan + UBSan) for FUZZ_SECONDS (default 60) from the seed corpus, with a fixed
# FUZZ_SEED (default 1) so that a CI run explores what the one before it did; exploratory runs change it;
# new inputs go to build-fuzz/corpus, crashes to build-fuzz/artifacts/. tests/fuzz/README.md runs it longer.
step_fuzz() {
  cmake -S . -B build-fuzz "${SANITIZER_FLAGS[@]}" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DTRILINEAR3D_BUILD_FUZZ=ON -DTRILINEAR3D_SANITIZE=address,undefined -DTRILINEAR3D_BUILD_EXAMPLES=OFF
  cmake --build build-fuzz -j "${JOBS}" --target trilinear3d_fuzz
  mkdir -p build-fuzz/corpus build-fuzz/artifacts
  build-fuzz/tests/fuzz/trilinear3d_fuzz -seed="${FUZZ_SEED:-1}" -max_total_time="${FUZZ_SECONDS:-60}" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix=build-fuzz/artifacts/ build-fuzz/corpus tests/fuzz/corpus
}

# Every CPU. The default build holds every x86-64 tier and picks one at run time, so this machine's
# own CPU shows only its best tier. These steps run the seed sample, the examples and the
# kernel-facing sweeps on CPUs it lacks, with the library choosing its tier by itself:
# TRILINEAR3D_EXPECT_ISA is the tier it must choose there (test_kernel_dispatch checks it). The accuracy
# tests' sweeps run a sample there: every EMULATED_SAMPLE-th case (TRILINEAR3D_TEST_SAMPLE, default 7).
# Upstream's linear-group, cubic-group, nearest-group and aclnnResize examples are checked against their
# float64 reference (examples/upstream/check_example.py); not test_aclnn_upsample_bilinear2d,
# test_aclnn_upsample_bicubic2d, test_aclnn_upsample_bicubic2d_aa, test_aclnn_upsample_nearest,
# test_aclnn_upsample_nearest1d nor test_aclnn_upsample_nearest1d_v2 under valgrind: they read past a host
# vector (bilinear2d its outputSize array of 4 from a vector of 2, the bicubic ones 25 floats of out from a
# vector of 2, nearest (NearestExact1d) and nearest1d 15 floats of out from a vector of 5, nearest1d_v2 18 from
# a vector of 6), which valgrind reports in the example, not in the library. test_aclnn_resize sleeps 10 s
# before it exits: step_aarch64 leaves it out.
EMULATED_PROGRAMS=(
  examples/test_aclnn_upsample_trilinear3d_backward
  examples/ndhwc_scales_example
  examples/upsample_trilinear3d_forward_example
  examples/event_timing_async_copy_example
  examples/test_aclnn_upsample_linear1d
  examples/test_aclnn_upsample_linear1d_backward
  examples/test_aclnn_upsample_bilinear2d_backward_v2
  examples/test_aclnn_upsample_bilinear_2d_backward
  examples/test_aclnn_upsample_bicubic2d_backward
  examples/test_aclnn_upsample_bilinear2d_aa
  examples/test_aclnn_upsample_bilinear2d_aa_backward
  examples/test_aclnn_upsample_bicubic2d_aa_grad
  examples/test_aclnn_upsample_nearest2d
  examples/test_aclnn_upsample_nearest1d_backward
  examples/test_aclnn_upsample_nearest2d_grad
  examples/test_aclnn_upsample_nearest2d_v2
  examples/test_aclnn_upsample_nearest3d
  examples/test_aclnn_upsample_nearest3d_grad
  examples/test_aclnn_upsample_nearest_exact1d_uint8
  examples/test_aclnn_upsample_nearest_exact2d
  examples/test_aclnn_upsample_nearest_exact2d_uint8
  examples/test_aclnn_upsample_nearest_exact2d_grad
  examples/test_aclnn_upsample_nearest_exact3d
  examples/test_aclnn_upsample_nearest_exact3d_grad
  examples/test_aclnn_resize
  tests/ut/op_kernel/trilinear3d_ut_op_kernel_test_kernel_dispatch
  tests/ut/op_kernel/trilinear3d_ut_op_kernel_test_kernel_sweeps
  tests/ut/op_api/trilinear3d_ut_op_api_test_backward_accuracy
  tests/ut/op_kernel/trilinear3d_ut_op_kernel_test_stencil2x
  tests/ut/op_kernel/trilinear3d_ut_op_kernel_test_halving_rows_bf16
  tests/ut/op_kernel/trilinear3d_ut_op_kernel_test_fp16_denormals
  tests/ut/op_api/trilinear3d_ut_op_api_test_workspace_alignment
  tests/ut/op_api/trilinear3d_ut_op_api_test_views
  tests/ut/op_kernel/trilinear3d_ut_op_kernel_test_identity_axes
  tests/ut/op_api/trilinear3d_ut_op_api_test_determinism
  tests/ut/op_api/trilinear3d_ut_op_api_test_forward_accuracy
  tests/reliability/trilinear3d_reliability_guard_bands
  tests/ut/op_api/trilinear3d_ut_op_api_test_linear_forward_accuracy
  tests/ut/op_api/trilinear3d_ut_op_api_test_linear_backward_accuracy
  tests/ut/op_api/trilinear3d_ut_op_api_test_linear_determinism
  tests/ut/op_api/trilinear3d_ut_op_api_test_nearest_accuracy
  tests/ut/op_api/trilinear3d_ut_op_api_test_nearest_determinism
  tests/ut/op_api/trilinear3d_ut_op_api_test_resize
  tests/ut/op_api/trilinear3d_ut_op_api_test_cubic_accuracy
  tests/ut/op_api/trilinear3d_ut_op_api_test_cubic_determinism
  tests/ut/op_kernel/trilinear3d_ut_op_kernel_test_cubic_forward_rows
  tests/reliability/trilinear3d_reliability_cubic_reliability
  tests/reliability/trilinear3d_reliability_nearest_streams
)

# emulated_program BUILD_DIR EXPECTED_TIER CHILD_LAUNCHER PROGRAM LAUNCHER...: one program of run_emulated
# under the launcher; prints its "ok" line, or its output's tail and the cause, and fails.
emulated_program() {
  local build="$1" expected="$2" launcher="$3" program="$4"
  shift 4
  local start=${SECONDS} output run=("$@" "${build}/${program}")
  if [[ "${program}" == examples/test_aclnn_upsample_linear1d* || "${program}" == examples/test_aclnn_upsample_bilinear* ||
        "${program}" == examples/test_aclnn_upsample_bicubic* || "${program}" == examples/test_aclnn_upsample_nearest* ||
        "${program}" == examples/test_aclnn_resize ]]; then
    run=(python3 examples/upstream/check_example.py "${program#examples/}" "${build}/${program}" "$@")
  fi
  if ! output=$(TRILINEAR3D_QUIET=1 TRILINEAR3D_VERBOSE=1 TRILINEAR3D_EXPECT_ISA="${expected}" \
      TRILINEAR3D_TEST_CHILD_LAUNCHER="${launcher}" TRILINEAR3D_TEST_SAMPLE="${EMULATED_SAMPLE:-7}" \
      "${run[@]}" 2>&1); then
    printf '%s\n' "${output}" | grep -v -E '^\[ +(RUN|OK) +\]' | tail -n 80
    echo "run_tests: ${program} failed under $*" >&2
    return 1
  fi
  if [[ "${program}" == */test_aclnn_upsample_trilinear3d_backward ]]; then
    printf '%s\n' "${output}" | grep -E 'kernels:|result\['
    if ! printf '%s\n' "${output}" | grep -q "kernels: ${expected} " ||
       [[ "$(printf '%s\n' "${output}" | grep -c -E 'result\[[0-3]\] is: (36|100|164|228)\.000000')" != 4 ]]; then
      echo "run_tests: the seed sample under $* did not print 36/100/164/228 from the ${expected} kernels" >&2
      return 1
    fi
  fi
  echo "  ${program}: ok ($(printf '%s\n' "${output}" | grep -E '^\[  PASSED  \]' | tail -n 1 | grep . || echo 'exit 0'), $((SECONDS - start)) s)"
}

# run_emulated BUILD_DIR EXPECTED_TIER LAUNCHER... [-- PROGRAM...]: each program (default:
# EMULATED_PROGRAMS, paths under BUILD_DIR) under the launcher, EMULATED_JOBS (default nproc) at a time
# (an emulator runs a program's threads on one host thread, so one program leaves the other cores idle);
# their reports in the list's order. The seed sample must print 36/100/164/228 and name the expected tier.
run_emulated() {
  local build="$1" expected="$2"
  shift 2
  local command=() programs=("${EMULATED_PROGRAMS[@]}")
  while [[ $# -gt 0 && "$1" != "--" ]]; do
    command+=("$1")
    shift
  done
  if [[ $# -gt 0 ]]; then
    shift
    programs=("$@")
  fi
  set -- "${command[@]}"
  # The determinism tests re-execute themselves: qemu needs to be named for the child (valgrind
  # follows it with --trace-children=yes).
  local launcher=""
  if [[ "$1" == qemu-* ]]; then
    launcher="$(command -v "$1") ${*:2}"
  fi
  local logs i running=0 failed=0 jobs="${EMULATED_JOBS:-${JOBS}}"
  logs="$(mktemp -d)"
  for i in "${!programs[@]}"; do
    if ((running >= jobs)); then
      wait -n || true  # each program's status is read from its file below
      running=$((running - 1))
    fi
    (
      status=0
      emulated_program "${build}" "${expected}" "${launcher}" "${programs[i]}" "$@" >"${logs}/${i}.log" 2>&1 || status=$?
      echo "${status}" >"${logs}/${i}.status"
    ) &
    running=$((running + 1))
  done
  wait
  for i in "${!programs[@]}"; do
    cat "${logs}/${i}.log"
    if [[ "$(cat "${logs}/${i}.status" 2>/dev/null)" != 0 ]]; then
      failed=1
    fi
  done
  rm -rf "${logs}"
  return "${failed}"
}

# An x86-64 CPU with AVX2 and no AVX-512: valgrind's (it also reports memory errors).
step_valgrind() {
  run_emulated "${BUILD_DIR}" avx2 valgrind -q --error-exitcode=99 --trace-children=yes
}

# An x86-64 CPU without AVX (SSE4.2): qemu's Nehalem. qemu checks which instructions run; its AVX2
# arithmetic is not exact enough to test (valgrind does that).
step_nehalem() {
  run_emulated "${BUILD_DIR}" baseline qemu-x86_64 -cpu Nehalem -- "${EMULATED_PROGRAMS[@]}" \
    examples/test_aclnn_upsample_bilinear2d examples/test_aclnn_upsample_nearest \
    examples/test_aclnn_upsample_nearest1d examples/test_aclnn_upsample_nearest1d_v2
}

# aarch64: a cross build (g++-aarch64-linux-gnu, GoogleTest from /usr/src/googletest) whose test
# programs, each run whole (one process each: ctest's process per test case is slow under qemu),
# and examples run under qemu-aarch64.
step_aarch64() {
  local build=build-aarch64
  cmake -S . -B "${build}" -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake -DTRILINEAR3D_WERROR=ON
  cmake --build "${build}" -j "${JOBS}"
  local programs=(examples/test_aclnn_upsample_trilinear3d_backward examples/ndhwc_scales_example
                  examples/upsample_trilinear3d_forward_example examples/event_timing_async_copy_example
                  examples/test_aclnn_upsample_linear1d examples/test_aclnn_upsample_linear1d_backward
                  examples/test_aclnn_upsample_bilinear2d examples/test_aclnn_upsample_bilinear2d_backward_v2
                  examples/test_aclnn_upsample_bilinear_2d_backward examples/test_aclnn_upsample_nearest1d
                  examples/test_aclnn_upsample_nearest2d examples/test_aclnn_upsample_nearest1d_backward
                  examples/test_aclnn_upsample_nearest2d_grad examples/test_aclnn_upsample_nearest1d_v2
                  examples/test_aclnn_upsample_nearest2d_v2 examples/test_aclnn_upsample_nearest3d
                  examples/test_aclnn_upsample_nearest3d_grad examples/test_aclnn_upsample_nearest
                  examples/test_aclnn_upsample_nearest_exact1d_uint8
                  examples/test_aclnn_upsample_nearest_exact2d examples/test_aclnn_upsample_nearest_exact2d_uint8
                  examples/test_aclnn_upsample_nearest_exact2d_grad examples/test_aclnn_upsample_nearest_exact3d
                  examples/test_aclnn_upsample_nearest_exact3d_grad)
  while IFS= read -r program; do
    programs+=("${program#"${build}/"}")
  done < <(find "${build}/tests/ut" "${build}/tests/reliability" -type f -executable \
             \( -name 'trilinear3d_ut_*' -o -name 'trilinear3d_reliability_*' \) ! -name '*exit_drain_probe' | sort)
  run_emulated "${build}" baseline qemu-aarch64 -L /usr/aarch64-linux-gnu -- "${programs[@]}"
}

# The PyTorch extension (python/): build, install and run its pytest suite.
# The wheel bundles the library of the build step (same sources, Release), not a second CMake build of it in
# build-py/lib: that build was most of this step's time. Without a built library in BUILD_DIR (the step run
# alone) or with `bash tools/run_python_tests.sh`, setup.py builds its own.
step_python() {
  local -x TRILINEAR3D_LIB_DIR="${TRILINEAR3D_LIB_DIR:-}"
  if [[ -z "${TRILINEAR3D_LIB_DIR}" && -f "${BUILD_DIR}/libtrilinear3d.so.0" ]]; then
    TRILINEAR3D_LIB_DIR="$(cd "${BUILD_DIR}" && pwd)"
  fi
  SKIP_DEPS=1 bash tools/run_python_tests.sh
}

STEPS=(deps format configure build ctest valgrind nehalem aarch64 python asan tsan fuzz)

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
