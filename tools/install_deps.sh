#!/usr/bin/env bash
# Installs what trilinear3d needs, from Debian 12's packages, by need:
#
#   bash tools/install_deps.sh build    compiler and CMake: the library and the examples (tools/run_sample.sh)
#   bash tools/install_deps.sh test     build + what tools/run_tests.sh's ctest, format, emulation and
#                                       sanitizer steps use
#   bash tools/install_deps.sh python   build + what the PyTorch extension needs (python/)
#   bash tools/install_deps.sh bench    build + libtorch and the chart (bench/, tools/run_bench.sh)
#   bash tools/install_deps.sh all      every group (the default; .ci/run and tools/run_tests.sh)
#
# Several groups may be named. This file holds the project's one list of system packages; every
# package is in some group. Skips apt entirely when every package asked for is already installed.
set -euo pipefail

BUILD_PACKAGES=(
  build-essential cmake g++             # compiler and build
)
TEST_PACKAGES=(
  libgtest-dev googletest               # unit and system tests (googletest: the source, for cross builds)
  clang-format                          # tools/format.sh, tools/check_format.sh
  python3 python3-numpy python3-pytest  # ST runner (tests/st), tools/check_isa.py
  python3-torch                         # golden results of the ST runner (Debian's torch 1.13)
  nlohmann-json3-dev                    # tests/st/cases.json
  pkg-config                            # the consumer test builds the sample with pkg-config
  valgrind clang libclang-rt-14-dev     # reliability: sanitizers, libFuzzer; valgrind's CPU: AVX2, no AVX-512
  qemu-user g++-aarch64-linux-gnu       # other CPUs: qemu -cpu Nehalem (no AVX), the aarch64 cross build
)
PYTHON_PACKAGES=(
  python3 python3-dev python3-pytest python3-numpy  # the extension's build and its pytest suite
  python3-setuptools ninja-build        # torch.utils.cpp_extension (the Python extension)
  pybind11-dev                          # torch's extension headers include pybind11 (no package depends on it)
  python3-venv python3-pip              # tools/python_env.sh: the venv with PyPI's torch, pip install ./python
  python3-torch                         # Debian's torch 1.13, the second torch the extension is tested with
)
BENCH_PACKAGES=(
  libtorch-dev                          # bench/: PyTorch's CPU kernel in the same process
  libbenchmark-dev                      # bench/
  python3 python3-matplotlib            # bench/plot_bench.py (bench/results/bench.png)
)

groups=("$@")
if [[ ${#groups[@]} -eq 0 ]]; then
  groups=(all)
fi
PACKAGES=()
for group in "${groups[@]}"; do
  case "${group}" in
    build) PACKAGES+=("${BUILD_PACKAGES[@]}") ;;
    test) PACKAGES+=("${BUILD_PACKAGES[@]}" "${TEST_PACKAGES[@]}") ;;
    python) PACKAGES+=("${BUILD_PACKAGES[@]}" "${PYTHON_PACKAGES[@]}") ;;
    bench) PACKAGES+=("${BUILD_PACKAGES[@]}" "${BENCH_PACKAGES[@]}") ;;
    all) PACKAGES+=("${BUILD_PACKAGES[@]}" "${TEST_PACKAGES[@]}" "${PYTHON_PACKAGES[@]}" "${BENCH_PACKAGES[@]}") ;;
    *)
      echo "install_deps: unknown group '${group}' (build, test, python, bench or all)" >&2
      exit 2
      ;;
  esac
done
# Each package once, in first-named order.
mapfile -t PACKAGES < <(printf '%s\n' "${PACKAGES[@]}" | awk '!seen[$0]++')

missing=()
for package in "${PACKAGES[@]}"; do
  if [[ "$(dpkg-query -W -f='${Status}' "${package}" 2>/dev/null || true)" != "install ok installed" ]]; then
    missing+=("${package}")
  fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install_deps: all ${#PACKAGES[@]} packages of ${groups[*]} already installed"
  exit 0
fi

echo "install_deps: installing ${missing[*]}"
APT=(env DEBIAN_FRONTEND=noninteractive apt-get)
if [[ "$(id -u)" -ne 0 ]]; then
  APT=(sudo "${APT[@]}")
fi
"${APT[@]}" update
"${APT[@]}" install -y --no-install-recommends "${missing[@]}"
