#!/usr/bin/env bash
# Creates (or reuses) the Python virtual environment the extension is built and tested in, and prints its
# python on the last line of stdout.
#
#   TRILINEAR3D_TORCH=pypi (default): PyPI's torch (pinned below) with MONAI (python/bench_models.py) and pytest,
#     in TRILINEAR3D_VENV (default ~/.cache/trilinear3d/venv-torch). PyPI's Linux wheel pulls the CUDA runtime
#     (about 5 GB installed), so the venv lives outside the repository and is shared by clones and worktrees;
#     pip's cache (~/.cache/pip) makes re-creating it mostly unpacking.
#   TRILINEAR3D_TORCH=debian: Debian's python3-torch (1.13) through a --system-site-packages venv in
#     TRILINEAR3D_DEBIAN_VENV (default ~/.cache/trilinear3d/venv-debian); nothing is downloaded.
#
# Usage: PY="$(bash tools/python_env.sh | tail -n 1)"
# Environment: BASE_PYTHON (default /usr/bin/python3).
set -euo pipefail

TORCH_VERSION="2.15.0"
MONAI_VERSION="1.6.1"
BASE_PYTHON="${BASE_PYTHON:-/usr/bin/python3}"
KIND="${TRILINEAR3D_TORCH:-pypi}"

case "${KIND}" in
  pypi)
    VENV="${TRILINEAR3D_VENV:-${HOME}/.cache/trilinear3d/venv-torch}"
    want="torch==${TORCH_VERSION} monai==${MONAI_VERSION} pytest numpy ninja"
    ;;
  debian)
    VENV="${TRILINEAR3D_DEBIAN_VENV:-${HOME}/.cache/trilinear3d/venv-debian}"
    want="debian"
    ;;
  *) echo "python_env: TRILINEAR3D_TORCH must be pypi or debian, not '${KIND}'" >&2; exit 2 ;;
esac

PY="${VENV}/bin/python"
stamp="${VENV}/.trilinear3d-requirements"
if [[ -x "${PY}" && -f "${stamp}" && "$(cat "${stamp}")" == "${want}" ]]; then
  echo "python_env: reusing ${VENV} (${want})" >&2
  echo "${PY}"
  exit 0
fi

start=${SECONDS}
echo "python_env: creating ${VENV} (${want})" >&2
mkdir -p "$(dirname "${VENV}")"
if [[ "${KIND}" == "debian" ]]; then
  "${BASE_PYTHON}" -m venv --clear --system-site-packages "${VENV}"
else
  "${BASE_PYTHON}" -m venv --clear "${VENV}"
  # No progress bars in CI logs; the downloaded wheels stay in pip's cache for the next creation.
  "${PY}" -m pip install --progress-bar off -q --upgrade pip setuptools wheel >&2
  # shellcheck disable=SC2086  # want is a list of requirements
  "${PY}" -m pip install --progress-bar off -q ${want} >&2
fi
echo "${want}" >"${stamp}"
echo "python_env: ${VENV} ready in $((SECONDS - start)) s" >&2
echo "${PY}"
