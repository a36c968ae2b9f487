#!/usr/bin/env python3
"""Runs one of CANN ops-cv's example programs (kept unchanged in this folder) and checks what it prints
against a float64 reference of the same problem: the example's own input data, shapes and attributes,
resampled with PyTorch's linear index math (independent of the library's code).

Usage: check_example.py NAME PROGRAM [LAUNCHER...]   (NAME: a key of EXAMPLES)"""
import math
import re
import subprocess
import sys


def axis_weights(n_in, n_out, align_corners, scale=None):
    """Row o: the weight of each input index for output o (area_pixel_compute_source_index)."""
    if align_corners:
        step = (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    else:
        step = 1.0 / scale if scale and scale > 0 else n_in / n_out
    rows = []
    for o in range(n_out):
        src = step * o if align_corners else max(0.0, step * (o + 0.5) - 0.5)
        i0 = min(int(math.floor(src)), n_in - 1)
        i1 = min(i0 + 1, n_in - 1)
        l1 = src - i0
        row = [0.0] * n_in
        row[i0] += 1.0 - l1
        row[i1] += l1
        rows.append(row)
    return rows


def forward(x, h, w, oh, ow, align_corners):
    a, b = axis_weights(h, oh, align_corners), axis_weights(w, ow, align_corners)
    return [sum(a[y][i] * b[z][j] * x[i * w + j] for i in range(h) for j in range(w))
            for y in range(oh) for z in range(ow)]


def backward(g, h, w, oh, ow, align_corners):
    a, b = axis_weights(h, oh, align_corners), axis_weights(w, ow, align_corners)
    return [sum(a[y][i] * b[z][j] * g[y * ow + z] for y in range(oh) for z in range(ow))
            for i in range(h) for j in range(w)]


# Each example's problem as its source states it (data, shapes, align_corners; the scales it passes do not
# count for these calls: see docs/spec.md §3).
EXAMPLES = {
    # self {1,1,2} = 1, 4 -> out {1,1,3}, align_corners false, scale -1 (none)
    "test_aclnn_upsample_linear1d": lambda: forward([1, 4], 1, 2, 1, 3, False),
    # self {1,1,4,2} = 0..7 -> out {1,1,8,4}, align_corners true (scales 0.5 do not give the sizes)
    "test_aclnn_upsample_bilinear2d": lambda: forward(list(range(8)), 4, 2, 8, 4, True),
    # gradOut {1,1,3} = 1, 2, 3 -> out {1,1,6}, align_corners true
    "test_aclnn_upsample_linear1d_backward": lambda: backward([1, 2, 3], 1, 6, 1, 3, True),
    # gradOut {1,1,6,6} of ones -> out {1,1,3,3}, align_corners true
    "test_aclnn_upsample_bilinear2d_backward_v2": lambda: backward([1.0] * 36, 3, 3, 6, 6, True),
    "test_aclnn_upsample_bilinear_2d_backward": lambda: backward([1.0] * 36, 3, 3, 6, 6, True),
}


def main():
    name, command = sys.argv[1], sys.argv[3:] + [sys.argv[2]]
    expected = EXAMPLES[name]()
    run = subprocess.run(command, capture_output=True, text=True, timeout=120)
    printed = {int(i): float(v) for i, v in re.findall(r"result\[(\d+)\] is: (\S+)", run.stdout)}
    problems = []
    if run.returncode != 0:
        problems.append(f"exit code {run.returncode}")
    if sorted(printed) != list(range(len(expected))):
        problems.append(f"printed indices {sorted(printed)}, expected 0..{len(expected) - 1}")
    for i, want in enumerate(expected):
        got = printed.get(i)
        # %f prints 6 decimals; the result is fp32.
        if got is None or abs(got - want) > 5e-7 + 1e-6 * abs(want):
            problems.append(f"result[{i}] is {got}, float64 reference {want:.9f}")
    if problems:
        print(run.stdout + run.stderr)
        print(f"{name}: " + "; ".join(problems))
        return 1
    print(f"{name}: {len(expected)} values match the float64 reference")
    return 0


if __name__ == "__main__":
    sys.exit(main())
