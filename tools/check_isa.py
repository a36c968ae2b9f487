#!/usr/bin/env python3
"""Fails when a function of a built x86-64 binary that is not ISA-tier code holds a VEX or EVEX
instruction (AVX, AVX2, FMA, F16C, AVX-512): such a function runs on every CPU, so it must be
baseline (SSE2) code. Only functions of the tiers' namespaces may hold them:
trilinear3d::kernel::avx2:: and trilinear3d::kernel::avx512:: (their lambdas and template
instantiations included), and, for the libraries' own helpers, names passed with --allow.

Usage: tools/check_isa.py [--allow REGEX]... FILE...   (objdump from binutils)
Exit status: 0 clean, 1 leaks found (listed), 2 usage or objdump error.
"""
import argparse
import re
import subprocess
import sys

ISA_NAMESPACES = re.compile(r"^trilinear3d::kernel::(avx2|avx512)::")
# Legacy prefixes that may stand before a VEX/EVEX opcode byte (segment overrides, address size).
SEGMENT_PREFIXES = {"26", "2e", "36", "3e", "64", "65", "67"}
# In 64-bit mode 0xc4 / 0xc5 always start a VEX instruction and 0x62 an EVEX one.
VEX_EVEX = {"c4", "c5", "62"}
HEADER = re.compile(r"^[0-9a-f]+ <(.*)>:$")
INSTRUCTION = re.compile(r"^\s*[0-9a-f]+:\t([0-9a-f ]+)\t(.*)$")


def strip_templates(name):
    """The name without its <...> groups (nested), so template arguments do not count."""
    out, depth = [], 0
    for ch in name:
        if ch == "<":
            depth += 1
        elif ch == ">" and depth > 0:
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def strip_decltypes(name):
    """The name without its decltype(...) groups (nested parentheses included): a return type such as
    decltype(auto) stands before the qualified name, and its parenthesis is not the parameter list."""
    out, i = [], 0
    while i < len(name):
        if name.startswith("decltype(", i):
            depth, i = 1, i + len("decltype(")
            while i < len(name) and depth > 0:
                depth += {"(": 1, ")": -1}.get(name[i], 0)
                i += 1
            continue
        out.append(name[i])
        i += 1
    return "".join(out)


def owner(name):
    """The function's qualified name without return type, template arguments or parameters: a lambda
    or local class is owned by the function it is defined in."""
    name = re.sub(r" \[clone [^\]]*\]", "", name)
    name = name.replace("(anonymous namespace)", "{anonymous}")
    name = strip_decltypes(strip_templates(name)).split("(", 1)[0]
    return name.split(" ")[-1]


def is_isa_code(name, allow):
    return ISA_NAMESPACES.match(owner(name)) is not None or any(a.search(name) for a in allow)


def vex_or_evex(byte_text):
    for byte in byte_text.split():
        if byte in SEGMENT_PREFIXES:
            continue
        return byte in VEX_EVEX
    return False


def check(path, allow):
    try:
        dump = subprocess.run(["objdump", "-d", "-C", "-w", "--insn-width=15", path], check=True,
                              capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as error:
        print(f"check_isa: objdump {path}: {error}", file=sys.stderr)
        sys.exit(2)
    leaks, functions, isa_functions = {}, 0, 0
    current, current_is_isa = None, True
    for line in dump.splitlines():
        header = HEADER.match(line)
        if header:
            current = header.group(1)
            current_is_isa = is_isa_code(current, allow)
            functions += 1
            isa_functions += current_is_isa
            continue
        if current is None or current_is_isa:
            continue
        instruction = INSTRUCTION.match(line)
        if instruction and vex_or_evex(instruction.group(1)):
            entry = leaks.setdefault(current, [0, instruction.group(2).strip()])
            entry[0] += 1
    print(f"check_isa: {path}: {functions} functions, {isa_functions} of them ISA-tier code, "
          f"{len(leaks)} other functions with VEX/EVEX instructions")
    for name, (count, first) in sorted(leaks.items()):
        print(f"  LEAK {name}: {count} VEX/EVEX instructions, first: {first}")
    return not leaks


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--allow", action="append", default=[], type=re.compile,
                        help="also accept functions whose demangled name matches this regex")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    clean = all([check(path, args.allow) for path in args.files])
    if not clean:
        print("check_isa: code outside the ISA tiers' namespaces uses instructions beyond SSE2; every CPU "
              "runs it. See src/op_kernel/isa_begin.h.")
    return 0 if clean else 1


if __name__ == "__main__":
    sys.exit(main())
