#!/usr/bin/env python3
"""Runs one of CANN ops-cv's example programs (kept unchanged in this folder) and checks what it prints
against a float64 reference of the same problem: the example's own input data, shapes and attributes,
resampled with PyTorch's index and weight math (linear, cubic, antialiased, nearest and nearest-exact;
independent of the library's code).

Usage: check_example.py NAME PROGRAM [LAUNCHER...]   (NAME: a key of EXAMPLES)"""
import itertools
import math
import re
import struct
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


def keys(d, a):
    """Keys' cubic convolution weight at distance d."""
    x = abs(d)
    if x <= 1.0:
        return (a + 2.0) * x ** 3 - (a + 3.0) * x ** 2 + 1.0
    if x < 2.0:
        return a * x ** 3 - 5.0 * a * x ** 2 + 8.0 * a * x - 4.0 * a
    return 0.0


def cubic_weights(n_in, n_out, align_corners):
    """upsample_bicubic2d: four taps around the unclamped source index, clamped indices adding up."""
    step = ((n_in - 1) / (n_out - 1) if n_out > 1 else 0.0) if align_corners else n_in / n_out
    rows = []
    for o in range(n_out):
        src = step * o if align_corners else step * (o + 0.5) - 0.5
        f = min(int(math.floor(src)), n_in - 1)
        t = min(max(src - f, 0.0), 1.0)
        row = [0.0] * n_in
        for k in range(-1, 3):
            row[min(max(f + k, 0), n_in - 1)] += keys(t - k, -0.75)
        rows.append(row)
    return rows


def aa_weights(n_in, n_out, align_corners, cubic):
    """_upsample_bilinear2d_aa / _upsample_bicubic2d_aa: the stretched filter, normalised per output."""
    step = ((n_in - 1) / (n_out - 1) if n_out > 1 else 0.0) if align_corners else n_in / n_out
    if n_in == n_out:
        return [[1.0 if i == o else 0.0 for i in range(n_in)] for o in range(n_out)]
    stretch = max(step, 1.0)
    half = (2.0 if cubic else 1.0) * stretch
    rows = []
    for o in range(n_out):
        centre = step * (o + 0.5)
        lo = max(int(centre - half + 0.5), 0)
        hi = min(int(centre + half + 0.5), n_in, lo + int(math.ceil(half)) * 2 + 1)
        row = [0.0] * n_in
        for i in range(lo, hi):
            d = (i + 0.5 - centre) / stretch
            row[i] = keys(d, -0.5) if cubic else max(0.0, 1.0 - abs(d))
        total = sum(row)
        rows.append([w / total for w in row] if total else row)
    return rows


def separable(weights, x, h, w, oh, ow, align_corners, transpose):
    a, b = weights(h, oh, align_corners), weights(w, ow, align_corners)
    if transpose:
        return [sum(a[y][i] * b[z][j] * x[y * ow + z] for y in range(oh) for z in range(ow))
                for i in range(h) for j in range(w)]
    return [sum(a[y][i] * b[z][j] * x[i * w + j] for i in range(h) for j in range(w))
            for y in range(oh) for z in range(ow)]


def f32(v):
    return struct.unpack("f", struct.pack("f", v))[0]


def bilinear_aa(n_in, n_out, align_corners):
    return aa_weights(n_in, n_out, align_corners, False)


def bicubic_aa(n_in, n_out, align_corners):
    return aa_weights(n_in, n_out, align_corners, True)


def nearest_index(n_in, n_out, exact, scale=None):
    """PyTorch's nearest_idx / nearest_neighbor_exact_compute_source_index, in float as aten computes them:
    scale = 1 / scale when one is given, else float(in) / float(out); nearest floor(o * scale), exact
    floor((o + 0.5) * scale), both clamped to in - 1."""
    s = f32(1.0 / scale) if scale and scale > 0 else f32(f32(n_in) / f32(n_out))
    return [min(int(math.floor(f32(f32(o + 0.5 if exact else o) * s))), n_in - 1) for o in range(n_out)]


def nearest(x, planes, in_sizes, out_sizes, exact, transpose=False, scales=None):
    """Forward: each output copies the input its per-axis indices pick. Backward (transpose: x is the gradient
    of out_sizes): each input sums the gradient elements that picked it. planes = N * C."""
    scales = scales or [None] * len(in_sizes)
    axes = [nearest_index(i, o, exact, s) for i, o, s in zip(in_sizes, out_sizes, scales)]
    n_in, n_out = math.prod(in_sizes), math.prod(out_sizes)
    result = [0.0] * (planes * (n_in if transpose else n_out))
    for p in range(planes):
        for o_flat, o in enumerate(itertools.product(*[range(n) for n in out_sizes])):
            i_flat = 0
            for axis, size, idx in zip(axes, in_sizes, o):
                i_flat = i_flat * size + axis[idx]
            if transpose:
                result[p * n_in + i_flat] += x[p * n_out + o_flat]
            else:
                result[p * n_out + o_flat] = x[p * n_in + i_flat]
    return result


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
    # self {1,1,3,3} = 1..9 -> out {1,1,5,5}, align_corners false, scales 0
    "test_aclnn_upsample_bicubic2d": lambda: separable(cubic_weights, list(range(1, 10)), 3, 3, 5, 5, False, False),
    # gradOut {1,1,2,2} = 1, 2, 3, 4.1f -> gradInput {1,1,3,3}, align_corners true (the scales 1.1 do not count)
    "test_aclnn_upsample_bicubic2d_backward": lambda: separable(
        cubic_weights, [1.0, 2.0, 3.0, f32(4.1)], 3, 3, 2, 2, True, True),
    # input {1,1,4,2} = 0..7 -> out {1,1,8,4}, align_corners true (the scales 2.0 do not count)
    "test_aclnn_upsample_bilinear2d_aa": lambda: separable(bilinear_aa, list(range(8)), 4, 2, 8, 4, True, False),
    # gradOutput {1,1,4,2} = 0..7 -> out {1,1,8,4}, align_corners true
    "test_aclnn_upsample_bilinear2d_aa_backward": lambda: separable(
        bilinear_aa, list(range(8)), 8, 4, 4, 2, True, True),
    # x {1,1,3,3} = 1..9 -> out {1,1,5,5}, align_corners false, scales 0
    "test_aclnn_upsample_bicubic2d_aa": lambda: separable(bicubic_aa, list(range(1, 10)), 3, 3, 5, 5, False, False),
    # gradOutput {1,1,4,2} = 0..7 -> out {1,1,8,4}, align_corners true
    "test_aclnn_upsample_bicubic2d_aa_grad": lambda: separable(bicubic_aa, list(range(8)), 8, 4, 4, 2, True, True),
    # aclnnUpsampleNearest1d: self {1,3,3} = 0..8 -> out {1,3,5}
    "test_aclnn_upsample_nearest1d": lambda: nearest(list(range(9)), 3, [3], [5], False),
    # aclnnUpsampleNearest2d: self {1,1,4,2} = 0..7 -> out {1,1,8,4}
    "test_aclnn_upsample_nearest2d": lambda: nearest(list(range(8)), 1, [4, 2], [8, 4], False),
    # aclnnUpsampleNearest1dBackward: gradOut {1,1,2} = 1, 4.1f -> gradInput {1,1,3}, scales 1.1 (used: docs/spec.md
    # §9, the step 1 / 1.1 whatever the sizes)
    "test_aclnn_upsample_nearest1d_backward": lambda: nearest([1.0, f32(4.1)], 1, [3], [2], False, True, [1.1]),
    # aclnnUpsampleNearest2dBackward: gradOut {2,2,3,3} = 1..36 -> gradInput {2,2,1,1}, scales 0
    "test_aclnn_upsample_nearest2d_grad": lambda: nearest(list(range(1, 37)), 4, [1, 1], [3, 3], False, True),
    # aclnnUpsampleNearestExact2d: self {1,1,4,2} = 0..7 -> out {1,1,8,4}, scales 0; the uint8 example the same
    "test_aclnn_upsample_nearest_exact2d": lambda: nearest(list(range(8)), 1, [4, 2], [8, 4], True),
    "test_aclnn_upsample_nearest_exact2d_uint8": lambda: nearest(list(range(8)), 1, [4, 2], [8, 4], True),
    # aclnnUpsampleNearestExact2dBackward: gradOut {1,1,4,2} = 0..7 -> gradInput {1,1,8,4}, scales 2.0 (used: the
    # step 1 / 2 whatever the sizes)
    "test_aclnn_upsample_nearest_exact2d_grad": lambda: nearest(
        list(range(8)), 1, [8, 4], [4, 2], True, True, [2.0, 2.0]),
    # aclnnUpsampleNearest1dV2: self {1,3,3} = 0..8 -> out {1,3,6}, scaleL 0 (none)
    "test_aclnn_upsample_nearest1d_v2": lambda: nearest(list(range(9)), 3, [3], [6], False),
    # aclnnUpsampleNearest2dV2: self {1,1,4,2} = 0..7 -> out {1,1,8,4}, scales 0
    "test_aclnn_upsample_nearest2d_v2": lambda: nearest(list(range(8)), 1, [4, 2], [8, 4], False),
    # aclnnUpsampleNearest3d: self {2,2,2,2,3} = 1..48 -> out {2,2,1,1,1}, scales 0
    "test_aclnn_upsample_nearest3d": lambda: nearest(list(range(1, 49)), 4, [2, 2, 3], [1, 1, 1], False),
    # aclnnUpsampleNearest3dBackward: gradOut {2,2,2,2,2} = 1..32 -> gradInput {2,2,1,1,1}, scales 0
    "test_aclnn_upsample_nearest3d_grad": lambda: nearest(list(range(1, 33)), 4, [1, 1, 1], [2, 2, 2], False, True),
    # aclnnUpsampleNearestExact1d: self {1,3,3} = 0..8 -> out {1,3,5}, scales 0 (its out host vector holds 5
    # floats, the tensor 15: the example copies past that vector, the library does not)
    "test_aclnn_upsample_nearest": lambda: nearest(list(range(9)), 3, [3], [5], True),
    # aclnnUpsampleNearestExact1d on uint8: the same problem, its host vectors of the tensors' sizes
    "test_aclnn_upsample_nearest_exact1d_uint8": lambda: nearest(list(range(9)), 3, [3], [5], True),
    # aclnnUpsampleNearestExact3d: self {2,2,2,2,3} = 1..48 -> out {2,2,1,1,1}, scales 0
    "test_aclnn_upsample_nearest_exact3d": lambda: nearest(list(range(1, 49)), 4, [2, 2, 3], [1, 1, 1], True),
    # aclnnUpsampleNearestExact3dBackward: gradOut {2,2,2,2,2} = 1..32 -> gradInput {2,2,1,1,1}, scales 0
    "test_aclnn_upsample_nearest_exact3d_grad": lambda: nearest(
        list(range(1, 33)), 4, [1, 1, 1], [2, 2, 2], True, True),
    # aclnnResize, mode "nearest": self {1,1,2,2} = 1..4, scales {1, 1, 2, 2} -> out {1,1,4,4} (docs/spec.md §9:
    # interpolate(scale_factor, mode="nearest"), the scales given to the index rule)
    "test_aclnn_resize": lambda: nearest([1.0, 2.0, 3.0, 4.0], 1, [2, 2], [4, 4], False, scales=[2.0, 2.0]),
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
