#!/usr/bin/env python3
"""Fails when a built shared library exports a symbol that is not a function or object of its C API:
every defined dynamic symbol must be a C name declared in a header under the include directory.
A C++ name there (kernel code, standard library template instances) would be part of the ABI by
accident: another library could bind to it or interpose it (cmake/exports.map keeps them local).

Usage: tools/check_exports.py LIBRARY INCLUDE_DIR   (nm from binutils)
Exit status: 0 clean, 1 unexpected exports (listed), 2 usage or nm error.
"""
import pathlib
import re
import subprocess
import sys

C_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")


def exported(path):
    try:
        out = subprocess.run(["nm", "-D", "--defined-only", path], check=True, capture_output=True,
                             text=True).stdout
    except (OSError, subprocess.CalledProcessError) as error:
        print(f"check_exports: nm {path}: {error}", file=sys.stderr)
        sys.exit(2)
    names = set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) >= 3:
            names.add(fields[2].split("@", 1)[0])
    return names


def declared(include_dir):
    text = "\n".join(p.read_text(errors="replace") for p in pathlib.Path(include_dir).rglob("*.h"))
    return set(re.findall(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*\(", text))


def main():
    if len(sys.argv) != 3:
        print(__doc__.split("\n\n")[2], file=sys.stderr)
        return 2
    names = exported(sys.argv[1])
    api = declared(sys.argv[2])
    bad = sorted(n for n in names if not C_NAME.match(n) or n not in api)
    print(f"check_exports: {sys.argv[1]}: {len(names)} exported symbols, {len(bad)} outside the C API")
    for name in bad:
        print(f"  UNEXPECTED {name}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
