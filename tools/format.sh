#!/usr/bin/env bash
# Formats the project's C++ files in place with clang-format and the repository's .clang-format.
# Usage: tools/format.sh [--check]
#   --check  change nothing; list the files whose formatting differs and exit 1 if there are any.
# Files: *.h *.hpp *.c *.cc *.cpp *.cxx under include/ src/ tests/ examples/ bench/ python/, as git sees
# them (tracked or untracked, .gitignore respected, so build outputs are skipped), except upstream's
# example programs (examples/upstream/), which are kept as CANN ships them. CLANG_FORMAT picks the binary.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}"
CLANG_FORMAT="${CLANG_FORMAT:-clang-format}"
DIRS=(include src tests examples bench python tools)

check=0
if [[ "${1:-}" == "--check" ]]; then
  check=1
elif [[ $# -gt 0 ]]; then
  echo "usage: $0 [--check]" >&2
  exit 2
fi

existing=()
for dir in "${DIRS[@]}"; do
  [[ -d "${dir}" ]] && existing+=("${dir}")
done

files=()
if [[ ${#existing[@]} -gt 0 ]]; then
  if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    mapfile -t files < <(git ls-files --cached --others --exclude-standard -- "${existing[@]}" |
      grep -E '\.(h|hpp|c|cc|cpp|cxx)$' | grep -v '^examples/upstream/' | sort -u)
  else
    mapfile -t files < <(find "${existing[@]}" -type f \
      \( -name '*.h' -o -name '*.hpp' -o -name '*.c' -o -name '*.cc' -o -name '*.cpp' -o -name '*.cxx' \) \
      -not -path '*/build/*' -not -path '*/examples/upstream/*' | sort)
  fi
fi

# git ls-files --cached lists files deleted from the work tree but not yet from the index.
present=()
for file in "${files[@]}"; do
  [[ -f "${file}" ]] && present+=("${file}")
done

if [[ ${#present[@]} -eq 0 ]]; then
  echo "format: no C++ files found"
  exit 0
fi

if [[ ${check} -eq 0 ]]; then
  "${CLANG_FORMAT}" -i "${present[@]}"
  echo "format: formatted ${#present[@]} files"
  exit 0
fi

differing=()
for file in "${present[@]}"; do
  if ! "${CLANG_FORMAT}" "${file}" | cmp -s - "${file}"; then
    differing+=("${file}")
  fi
done
if [[ ${#differing[@]} -gt 0 ]]; then
  echo "check_format: ${#differing[@]} of ${#present[@]} files are not clang-formatted (run tools/format.sh):" >&2
  printf '  %s\n' "${differing[@]}" >&2
  exit 1
fi
echo "check_format: ${#present[@]} files clang-formatted"
