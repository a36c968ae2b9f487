#!/usr/bin/env bash
# Installs everything trilinear3d needs to build, test, benchmark and format, from Debian 12's packages.
# The one list of system packages: README's commands, tools/run_sample.sh, tools/run_tests.sh and .ci/run
# all come through here. Skips apt entirely when every package is already installed.
set -euo pipefail

PACKAGES=(
  build-essential cmake g++             # compiler and build
  libgtest-dev googletest               # unit and system tests
  libbenchmark-dev                      # bench/
  clang-format                          # tools/format.sh, tools/check_format.sh
  python3 python3-dev python3-pytest python3-numpy python3-matplotlib  # ST runner, Python extension, charts
  python3-setuptools ninja-build         # torch.utils.cpp_extension (the Python extension)
  python3-venv python3-pip              # tools/python_env.sh: the venv with PyPI's torch, pip install ./python
  pybind11-dev                          # torch's extension headers include pybind11 (no package depends on it)
  python3-torch libtorch-dev            # golden results, PyTorch comparison, the extension
  nlohmann-json3-dev                    # tests/st/cases.json
  valgrind clang libclang-rt-14-dev     # reliability: sanitizers, libFuzzer; valgrind's CPU: AVX2, no AVX-512
  qemu-user g++-aarch64-linux-gnu       # other CPUs: qemu -cpu Nehalem (no AVX), the aarch64 cross build
)

missing=()
for package in "${PACKAGES[@]}"; do
  if [[ "$(dpkg-query -W -f='${Status}' "${package}" 2>/dev/null || true)" != "install ok installed" ]]; then
    missing+=("${package}")
  fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install_deps: all ${#PACKAGES[@]} packages already installed"
  exit 0
fi

echo "install_deps: installing ${missing[*]}"
APT=(env DEBIAN_FRONTEND=noninteractive apt-get)
if [[ "$(id -u)" -ne 0 ]]; then
  APT=(sudo "${APT[@]}")
fi
"${APT[@]}" update
"${APT[@]}" install -y --no-install-recommends "${PACKAGES[@]}"
