#!/usr/bin/env bash
# Digests of the operator's result bits per ISA tier (tools/bit_digest/bit_digest.cpp): the check that a
# restructuring or a kernel change keeps every result bit. Builds the digest program against BUILD_DIR's
# library and runs it once per tier this CPU has, with the given VAR=value settings in the environment
# (e.g. a forced kernel).
#
# Usage: tools/bit_digest.sh BUILD_DIR [VAR=value ...]
#   prints "<tier> digest <hex> cases <n> rejected <k>" per tier; the per-case lines go to
#   ${BIT_DIGEST_OUT:-/tmp/bit_digest}/<label>-<tier>.txt, where label joins the settings (or "auto"),
#   for diffing two builds' cases.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [[ $# -lt 1 || ! -f "$1/libtrilinear3d.so" ]]; then
  echo "usage: tools/bit_digest.sh BUILD_DIR [VAR=value ...]  (BUILD_DIR holds libtrilinear3d.so)" >&2
  exit 2
fi
BUILD="$(cd "$1" && pwd)"
shift
SETTINGS=("$@")
OUT="${BIT_DIGEST_OUT:-/tmp/bit_digest}"
mkdir -p "${OUT}"
PROGRAM="${BUILD}/bit_digest"
# The source of this script's checkout, the headers of the build's: the digest program needs only the
# public C API, which both share.
SOURCE_INCLUDE="$(sed -n 's/^trilinear3d_SOURCE_DIR:STATIC=//p' "${BUILD}/CMakeCache.txt")/include"
if [[ ! -x "${PROGRAM}" || "${ROOT}/tools/bit_digest/bit_digest.cpp" -nt "${PROGRAM}" ]]; then
  g++ -std=c++17 -O1 -Wall -Wextra -Werror -I "${SOURCE_INCLUDE}" "${ROOT}/tools/bit_digest/bit_digest.cpp" \
    -L "${BUILD}" -Wl,-rpath,"${BUILD}" -ltrilinear3d -o "${PROGRAM}"
fi
label="auto"
if [[ ${#SETTINGS[@]} -gt 0 ]]; then
  label="$(printf '%s_' "${SETTINGS[@]}" | tr -c 'A-Za-z0-9_=.\n-' '_' | sed 's/_$//')"
fi
flags=$(grep -m1 '^flags' /proc/cpuinfo || true)
has() { [[ " ${flags} " == *" $1 "* ]]; }
tiers=(baseline)
if [[ "$(uname -m)" == "x86_64" ]]; then
  tiers=()
  has avx512f && has avx512bw && has avx512vl && has avx512dq && tiers+=(avx512)
  has avx2 && has fma && tiers+=(avx2)
  tiers+=(baseline)
fi
for tier in "${tiers[@]}"; do
  env "${SETTINGS[@]}" TRILINEAR3D_ISA="${tier}" TRILINEAR3D_QUIET=1 "${PROGRAM}" --cases >"${OUT}/${label}-${tier}.txt"
  echo "${tier} $(tail -n 1 "${OUT}/${label}-${tier}.txt")"
done
