#!/usr/bin/env bash
# The Python extension's CI: for each torch in TRILINEAR3D_TORCHES (default "pypi debian": PyPI's pinned torch
# and Debian's python3-torch 1.13, see tools/python_env.sh) it creates or reuses the venv, builds one wheel of
# ./python (`pip wheel`, the extension compiled once), installs it into that venv and runs the pytest suite
# (python/tests) against it, and checks that the same wheel installs and runs in a fresh venv which shares
# only torch.
#
# Usage: bash tools/run_python_tests.sh [PYTEST ARGS...]
# Environment: TRILINEAR3D_TORCHES; MAX_JOBS (default nproc); SKIP_BUILD=1 reuses the installed package
#   and skips the wheel check; TRILINEAR3D_LIB_DIR (python/setup.py) bundles an already built library
#   instead of building one in build-py/lib (CI's python step passes its main build).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}"
export MAX_JOBS="${MAX_JOBS:-${JOBS:-$(nproc)}}"
# The library's worker count stays small so that the tests also behave on loaded CI machines.
export TRILINEAR3D_CORES="${TRILINEAR3D_CORES:-2}"

for kind in ${TRILINEAR3D_TORCHES:-pypi debian}; do
  start=${SECONDS}
  PY="$(TRILINEAR3D_TORCH="${kind}" bash tools/python_env.sh | tail -n 1)"
  version="$("${PY}" -c 'import torch; print(torch.__version__)')"
  echo "=== run_python_tests: torch ${version} (${kind}) from ${PY}, library from ${TRILINEAR3D_LIB_DIR:-a build in build-py/lib}"
  if [[ "${SKIP_BUILD:-0}" != "1" ]]; then
    dist="build-py/dist-${kind}" fresh="build-py/venv-wheel-${kind}"
    rm -rf "${dist}" "${fresh}"
    "${PY}" -m pip wheel -q --no-build-isolation --no-deps --progress-bar off -w "${dist}" ./python
    "${PY}" -m pip install -q --no-deps --force-reinstall --no-index --progress-bar off "${dist}"/trilinear3d-*.whl
    "${PY}" -m pip show trilinear3d | grep -E '^(Name|Version|Location):'

    # The wheel on a "second machine": a fresh venv that sees the same torch (a .pth to its site folder) but
    # not the package installed above (pip itself runs without the .pth).
    "${PY}" -m venv "${fresh}"
    torch_site="$("${PY}" -c 'import os, torch; print(os.path.dirname(os.path.dirname(torch.__file__)))')"
    fresh_site="$("${fresh}/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
    # Installed before the .pth exists: pip would otherwise find the package above and skip the wheel.
    "${fresh}/bin/python" -m pip install -q --no-deps --no-index "${dist}"/trilinear3d-*.whl
    echo "${torch_site}" >"${fresh_site}/torch-site.pth"
    (cd / && "${ROOT}/${fresh}/bin/python" -c '
import torch, torch.nn as nn, trilinear3d
assert "venv-wheel" in trilinear3d.__file__, trilinear3d.__file__
trilinear3d.enable()
x = torch.randn(1, 2, 3, 4, 5, requires_grad=True)
nn.Upsample(scale_factor=2, mode="trilinear")(x).sum().backward()
assert trilinear3d.stats()["forward"] == 1 and trilinear3d.stats()["backward"] == 1, trilinear3d.stats()
print("run_python_tests: wheel", trilinear3d.__file__, "runs with torch", torch.__version__)')
    rm "${fresh_site}/torch-site.pth"
    "${fresh}/bin/python" -m pip uninstall -q -y trilinear3d
    if "${fresh}/bin/python" -m pip show trilinear3d >/dev/null 2>&1; then
      echo "run_python_tests: pip uninstall left trilinear3d installed" >&2
      exit 1
    fi
  fi
  # -rs: the reason of each skip (the compile tests need torch.compile, which Debian's 1.13 lacks).
  (cd python && "${PY}" -m pytest -p no:cacheprovider -q -rs tests "$@")
  echo "=== run_python_tests: torch ${version} (${kind}) passed in $((SECONDS - start)) s"
done
