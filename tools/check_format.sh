#!/usr/bin/env bash
# Fails (exit 1, listing the files) when a C++ file's formatting differs from .clang-format. For CI;
# tools/format.sh fixes it. Same file selection as tools/format.sh.
set -euo pipefail

exec bash "$(dirname "${BASH_SOURCE[0]}")/format.sh" --check
