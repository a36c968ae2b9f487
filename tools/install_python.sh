#!/usr/bin/env bash
# Builds and installs the Python module `trilinear3d` with pip (python/setup.py builds libtrilinear3d with
# CMake, then the extension, and bundles the library into the package).
#
# Usage: bash tools/install_python.sh [--target DIR]
#   PYTHON (default /usr/bin/python3, with Debian's python3-torch) is the interpreter whose torch the
#   extension is built against. A venv's python installs into that venv; the system python installs
#   system-wide (pip's --break-system-packages, sudo when not root). With --target DIR the package goes to
#   DIR/trilinear3d (add DIR to PYTHONPATH).
#   The same, by hand: python3 -m pip install --no-build-isolation ./python
# Environment: SKIP_DEPS=1 skips tools/install_deps.sh; MAX_JOBS (default nproc) is the build's parallelism.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}"
PYTHON="${PYTHON:-/usr/bin/python3}"
export MAX_JOBS="${MAX_JOBS:-${JOBS:-$(nproc)}}"

args=(--no-build-isolation --no-deps --force-reinstall --progress-bar off)
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

SUDO=()
if [[ -n "${TARGET}" ]]; then
  case "${TARGET}" in /*) ;; *) TARGET="${PWD}/${TARGET}" ;; esac
  args+=(--target "${TARGET}" --upgrade)
  export PYTHONPATH="${TARGET}${PYTHONPATH:+:${PYTHONPATH}}"
elif [[ "$("${PYTHON}" -c 'import sys; print(sys.prefix == sys.base_prefix)')" == "True" ]]; then
  args+=(--break-system-packages)  # Debian's system python (PEP 668)
  if [[ "$(id -u)" -ne 0 ]]; then SUDO=(sudo --preserve-env=MAX_JOBS); fi
fi
"${SUDO[@]}" "${PYTHON}" -m pip install "${args[@]}" ./python

# Checked from a neutral folder, so that python/trilinear3d (no extension) cannot shadow the installed one.
(cd / && "${PYTHON}" -c \
  'import trilinear3d, torch; x = torch.ones(1, 1, 2, 2, 2); y = trilinear3d.interpolate(x, size=3); assert float(y.sum()) == 27.0; print("install_python: import trilinear3d OK:", trilinear3d.__file__, "torch", torch.__version__)')
