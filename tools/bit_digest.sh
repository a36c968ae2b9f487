#!/usr/bin/env bash
# Digests of the operators' result bits per ISA tier: the check that a restructuring or a kernel change
# keeps every result bit. Two programs, two digests: the trilinear operators
# (tools/bit_digest/bit_digest.cpp) and the 2-D filter operators, bicubic, bilinear and the antialiased
# ones (tools/bit_digest/filter_digest.cpp), kept apart so that the trilinear digest stays comparable with
# the ones docs/performance.md lists from before the second. Builds both against BUILD_DIR's library and
# runs them once per tier this CPU has, with the given VAR=value settings in the environment (e.g. a
# forced kernel).
#
# Usage: tools/bit_digest.sh BUILD_DIR [VAR=value ...]
#   prints "<tier> digest <hex> cases <n> rejected <k>" (trilinear) and
#   "<tier> filter2d digest <hex> cases <n> rejected <k>" per tier; the per-case lines go to
#   ${BIT_DIGEST_OUT:-/tmp/bit_digest}/<label>-<tier>.txt and <label>-filter2d-<tier>.txt, where label joins
#   the settings (or "auto"), for diffing two builds' cases.
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
# The source of this script's checkout, the headers of the build's: the digest programs need only the
# public C API, which both share.
SOURCE_INCLUDE="$(sed -n 's/^trilinear3d_SOURCE_DIR:STATIC=//p' "${BUILD}/CMakeCache.txt")/include"
SUPPORT="${ROOT}/tools/bit_digest/digest_support.h"
for program in bit_digest filter_digest; do
  source_file="${ROOT}/tools/bit_digest/${program}.cpp"
  if [[ ! -x "${BUILD}/${program}" || "${source_file}" -nt "${BUILD}/${program}" ||
    "${SUPPORT}" -nt "${BUILD}/${program}" ]]; then
    g++ -std=c++17 -O1 -Wall -Wextra -Werror -I "${SOURCE_INCLUDE}" "${source_file}" \
      -L "${BUILD}" -Wl,-rpath,"${BUILD}" -ltrilinear3d -o "${BUILD}/${program}"
  fi
done
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
  env "${SETTINGS[@]}" TRILINEAR3D_ISA="${tier}" TRILINEAR3D_QUIET=1 "${BUILD}/bit_digest" --cases \
    >"${OUT}/${label}-${tier}.txt"
  echo "${tier} $(tail -n 1 "${OUT}/${label}-${tier}.txt")"
  env "${SETTINGS[@]}" TRILINEAR3D_ISA="${tier}" TRILINEAR3D_QUIET=1 "${BUILD}/filter_digest" --cases \
    >"${OUT}/${label}-filter2d-${tier}.txt"
  echo "${tier} $(tail -n 1 "${OUT}/${label}-filter2d-${tier}.txt")"
done
