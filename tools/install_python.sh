#!/usr/bin/env bash
# Builds libtrilinear3d and the PyTorch extension, and installs the Python module `trilinear3d` for the
# system Python (/usr/bin/python3, which has Debian's python3-torch).
#
# Usage: bash tools/install_python.sh [--target DIR]
#   default target: /usr/bin/python3's site directory (/usr/local/lib/python3.11/dist-packages on Debian 12),
#   which needs root (sudo is used when not root). With --target DIR the package goes to DIR/trilinear3d
#   (add DIR to PYTHONPATH); tools/run_python_tests.sh installs that way into its build folder.
# Environment: BUILD_DIR (default build-py), JOBS (default nproc), SKIP_DEPS=1 skips tools/install_deps.sh,
#   PYTHON (default /usr/bin/python3).
#
# The installed package folder holds __init__.py, the extension _C.*.so and a copy of libtrilinear3d.so.0,
# which the extension finds through its rpath ($ORIGIN): nothing else needs installing or LD_LIBRARY_PATH.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}"
BUILD_DIR="${BUILD_DIR:-build-py}"
case "${BUILD_DIR}" in /*) ;; *) BUILD_DIR="${ROOT}/${BUILD_DIR}" ;; esac
JOBS="${JOBS:-$(nproc)}"
PYTHON="${PYTHON:-/usr/bin/python3}"

TARGET=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --target) TARGET="$2"; shift 2 ;;
    --target=*) TARGET="${1#--target=}"; shift ;;
    *) echo "install_python: unknown argument '$1' (usage: install_python.sh [--target DIR])" >&2; exit 2 ;;
  esac
done

if [[ "${SKIP_DEPS:-0}" != "1" ]]; then
  bash tools/install_deps.sh python
fi

echo "=== install_python: building libtrilinear3d in ${BUILD_DIR}/lib"
cmake -S . -B "${BUILD_DIR}/lib" -DCMAKE_BUILD_TYPE=Release -DTRILINEAR3D_BUILD_TESTS=OFF \
  -DTRILINEAR3D_BUILD_EXAMPLES=OFF -DTRILINEAR3D_BUILD_BENCH=OFF >/dev/null
cmake --build "${BUILD_DIR}/lib" -j "${JOBS}"

echo "=== install_python: building the extension"
STAGE="${BUILD_DIR}/stage"
rm -rf "${STAGE}"
(
  cd python
  TRILINEAR3D_LIB_DIR="${BUILD_DIR}/lib" MAX_JOBS="${JOBS}" "${PYTHON}" setup.py --quiet build_ext \
    --build-lib "${STAGE}" --build-temp "${BUILD_DIR}/ext-temp"
)
cp python/trilinear3d/*.py "${STAGE}/trilinear3d/"
cp -L "${BUILD_DIR}/lib/libtrilinear3d.so.0" "${STAGE}/trilinear3d/libtrilinear3d.so.0"
rm -rf python/trilinear3d.egg-info

if [[ -z "${TARGET}" ]]; then
  TARGET="$("${PYTHON}" -c 'import site; print(site.getsitepackages()[0])')"
fi
SUDO=()
mkdir -p "${TARGET}" 2>/dev/null || true
if [[ ! -w "${TARGET}" && "$(id -u)" -ne 0 ]]; then
  SUDO=(sudo)
fi
echo "=== install_python: installing into ${TARGET}/trilinear3d"
"${SUDO[@]}" mkdir -p "${TARGET}"
"${SUDO[@]}" rm -rf "${TARGET}/trilinear3d"
"${SUDO[@]}" cp -r "${STAGE}/trilinear3d" "${TARGET}/trilinear3d"

# Check from a neutral folder, so that python/trilinear3d (no extension) cannot shadow the installed one.
(cd / && PYTHONPATH="${TARGET}${PYTHONPATH:+:${PYTHONPATH}}" "${PYTHON}" -c \
  'import trilinear3d, torch; x = torch.ones(1, 1, 2, 2, 2); y = trilinear3d.interpolate(x, size=3); assert float(y.sum()) == 27.0; print("install_python: import trilinear3d OK:", trilinear3d.__file__)')
