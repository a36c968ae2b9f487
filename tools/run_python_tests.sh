#!/usr/bin/env bash
# Builds the trilinear3d Python extension, installs it into the build folder (no root needed) and runs its
# pytest suite (python/tests) with the system Python, which has Debian's python3-torch.
#
# Usage: bash tools/run_python_tests.sh [PYTEST ARGS...]
# Environment: BUILD_DIR (default build-py), JOBS, PYTHON (default /usr/bin/python3) as in
#   tools/install_python.sh; SKIP_DEPS=1 skips tools/install_deps.sh; SKIP_BUILD=1 reuses the last install.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}"
BUILD_DIR="${BUILD_DIR:-build-py}"
case "${BUILD_DIR}" in /*) ;; *) BUILD_DIR="${ROOT}/${BUILD_DIR}" ;; esac
export BUILD_DIR
PYTHON="${PYTHON:-/usr/bin/python3}"
SITE="${BUILD_DIR}/site"

if [[ "${SKIP_BUILD:-0}" != "1" ]]; then
  bash tools/install_python.sh --target "${SITE}"
fi

# The library's worker count stays small so that the tests also behave on loaded CI machines.
export TRILINEAR3D_CORES="${TRILINEAR3D_CORES:-2}"
cd "${ROOT}/python"
PYTHONPATH="${SITE}${PYTHONPATH:+:${PYTHONPATH}}" "${PYTHON}" -m pytest -p no:cacheprovider -q tests "$@"
