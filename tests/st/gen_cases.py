#!/usr/bin/env python3
"""Writes tests/st/cases.json: the system-test cases of trilinear3d.

Deterministic: the same script always writes the same file (one fixed random.Random seed, no
clock, no environment). Re-run it after editing, and commit both:

    python3 tests/st/gen_cases.py            # writes tests/st/cases.json next to this script
    python3 tests/st/gen_cases.py --check    # exit 1 if cases.json is not what this script writes

One case is one call of the operator. Fields (see tests/st/README.md):
  id             "st0001" ...
  group          the coverage group the case belongs to (grid, ratio, size1, scales, ...)
  op             "backward" (aclnnUpsampleTrilinear3dBackward), "forward" (aclnnUpsampleTrilinear3d), or one
                 of the linear group (LINEAR_OPS): "bilinear2d" (aclnnUpsampleBilinear2d), "linear1d"
                 (aclnnUpsampleLinear1d), "bilinear2d_backward" (aclnnUpsampleBilinear2dBackward, V1),
                 "bilinear2d_backward_v2" (...BackwardV2), "linear1d_backward" (aclnnUpsampleLinear1dBackward)
  input_size     [N, C, D, H, W]: gradInput's shape (backward) / self's shape (forward), logical NCDHW;
                 the 2-D ops' [N, C, H, W], the 1-D ops' [N, C, L]
  output_size    [oD, oH, oW]: gradOut's (backward) / out's (forward) spatial size; [oH, oW]; [oL]
  mode           "size" (no scales), "scales" (the op uses them: output_size == floor(in * s)),
                 "scales_ignored" (the op's rule ignores them, the sizes decide). The rules: the 3-D ops
                 all three when all are > 0; bilinear2d and bilinear2d_backward_v2 both when both are > 0
                 and give the sizes; bilinear2d_backward none; the 1-D ops theirs when it is > 0 and gives
                 the size (linear1d rejects any other scale >= 0: its "no scale" is -1)
  scales         [scalesD, scalesH, scalesW] as passed to the op; [scalesH, scalesW]; [scale]
  align_corners  bool
  dtype          float32 | float16 | bfloat16 | float64
  format         gradOut's (backward) / self's (forward) format: NCDHW | NDHWC | ND; 2-D: NCHW | NHWC | ND;
                 1-D: NCL | ND
  result_format  gradInput's (backward) / out's (forward) format (usually = format)
  view           contiguous | permuted | sliced (applies to both tensors, each with its own layout)
  values         normal N(0,1) | shift_pos N(+100, 25) | shift_neg N(-100, 25) (std 25) |
                 nonfinite: N(0,1) with a few NaN, +inf and -inf
  seed           data and view-layout seed
  large          true for the large case (B4) and the other full-size bench shapes (skipped by ctest:
                 run_st.py --skip-large)
"""
import argparse
import json
import math
import os
import random
import sys

DTYPES = ["float32", "float16", "bfloat16", "float64"]
FORMATS = ["NCDHW", "NDHWC", "ND"]
VIEWS = ["contiguous", "permuted", "sliced"]
FINITE_VALUES = ["normal", "shift_pos", "shift_neg"]

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_PATH = os.path.join(HERE, "cases.json")


class Builder:
    def __init__(self):
        self.rnd = random.Random(20240604)
        self.cases = []

    def add(self, group, input_size, output_size=None, scales=None, align=False, dtype="float32",
            fmt="NCDHW", view="contiguous", values="normal", op="backward", result_format=None,
            mode=None, large=False, note=""):
        input_size = [int(v) for v in input_size]
        if scales is None:
            scales = [0.0, 0.0, 0.0]
        scales = [float(s) for s in scales]
        all_positive = all(s > 0 for s in scales)
        if mode is None:
            mode = "scales" if all_positive else ("size" if all(s == 0 for s in scales) else "scales_ignored")
        if all_positive:
            # CANN's InferShape: outputSize[i] == floor(inputSize[2+i] * scales[i]) (double math).
            derived = [int(math.floor(input_size[2 + a] * scales[a])) for a in range(3)]
            if output_size is not None and list(output_size) != derived:
                raise ValueError(f"{group}: output_size {output_size} != floor(in*scales) {derived}")
            output_size = derived
        assert output_size is not None and len(output_size) == 3
        output_size = [int(v) for v in output_size]
        assert all(v >= 1 for v in output_size) and all(v >= 1 for v in input_size), (input_size, output_size)
        case = {
            "id": f"st{len(self.cases) + 1:04d}",
            "group": group,
            "op": op,
            "input_size": input_size,
            "output_size": output_size,
            "mode": mode,
            "scales": scales,
            "align_corners": bool(align),
            "dtype": dtype,
            "format": fmt,
            "result_format": result_format or fmt,
            "view": view,
            "values": values,
            "seed": self.rnd.randrange(1, 2**31 - 1),
            "large": bool(large),
        }
        if note:
            case["note"] = note
        self.cases.append(case)
        return case

    # ---- random shape helpers -------------------------------------------------------------
    def axis(self, kind):
        r = self.rnd
        if kind == "up":          # integer ratio
            n = r.randint(2, 7)
            return n, n * r.choice([2, 3, 4])
        if kind == "up_frac":     # non-integer ratio
            n = r.randint(2, 9)
            return n, r.randint(n + 1, 3 * n + 1)
        if kind == "down":
            n = r.randint(2, 7)
            return n * r.choice([2, 3, 4]), n
        if kind == "down_frac":
            n = r.randint(2, 9)
            return r.randint(n + 1, 3 * n + 1), n
        if kind == "id":
            n = r.randint(2, 12)
            return n, n
        if kind == "one_in":
            return 1, r.randint(2, 9)
        if kind == "one_out":
            return r.randint(2, 9), 1
        if kind == "one_one":
            return 1, 1
        raise ValueError(kind)

    def spatial(self, kinds):
        ins, outs = [], []
        for k in kinds:
            i, o = self.axis(k)
            ins.append(i)
            outs.append(o)
        return ins, outs

    def batch(self, ins, outs, max_elems=120_000, nmax=3, cmax=8):
        """N, C such that gradOut + gradInput stay under max_elems."""
        r = self.rnd
        per_plane = math.prod(ins) + math.prod(outs)
        n = r.randint(1, nmax)
        c = r.randint(1, cmax)
        while n * c * per_plane > max_elems and c > 1:
            c -= 1
        while n * c * per_plane > max_elems and n > 1:
            n -= 1
        return [n, c] + ins


def build():
    b = Builder()
    r = b.rnd
    resize_kinds = ["up", "up_frac", "down", "down_frac", "id"]

    # A. grid: every dtype x format x align_corners x view, random mixed per-axis ratios.
    vi = 0
    for dtype in DTYPES:
        for fmt in FORMATS:
            for align in (False, True):
                for view in VIEWS:
                    kinds = [r.choice(resize_kinds) for _ in range(3)]
                    if all(k == "id" for k in kinds):
                        kinds[r.randrange(3)] = "up"
                    ins, outs = b.spatial(kinds)
                    b.add("grid", b.batch(ins, outs), outs, align=align, dtype=dtype, fmt=fmt, view=view,
                          values=FINITE_VALUES[vi % 3], note="/".join(kinds))
                    vi += 1

    # B. ratio: every per-axis kind on every axis (up, down, mixed, identity, size-1), both modes.
    kinds_all = ["up", "up_frac", "down", "down_frac", "id", "one_in", "one_out"]
    combos = []
    for a in range(3):                       # each kind on each axis, the others random
        for k in kinds_all:
            ks = [r.choice(resize_kinds) for _ in range(3)]
            ks[a] = k
            combos.append(ks)
    explicit = [["up", "up", "up"], ["down", "down", "down"], ["up", "down", "id"], ["down", "id", "up"],
                ["id", "up", "down"], ["up_frac", "down_frac", "up"], ["down_frac", "up_frac", "down_frac"]]
    combos += explicit
    for i, ks in enumerate(combos):
        ins, outs = b.spatial(ks)
        b.add("ratio", b.batch(ins, outs), outs, align=(i % 2 == 1), dtype=DTYPES[i % 4],
              fmt=FORMATS[(i // 2) % 3], view=VIEWS[(i // 3) % 3], values="normal", note="/".join(ks))

    # C. size-1 and identity axes.
    size1 = [
        ([1, 1, 1], [1, 1, 1]), ([1, 1, 1], [5, 6, 7]), ([5, 6, 7], [1, 1, 1]), ([1, 4, 6], [1, 8, 3]),
        ([4, 1, 6], [8, 1, 3]), ([4, 6, 1], [2, 12, 1]), ([1, 5, 1], [7, 5, 9]), ([3, 1, 5], [1, 7, 5]),
        ([6, 7, 8], [6, 7, 8]), ([6, 7, 8], [6, 14, 8]), ([1, 1, 9], [1, 1, 30]), ([9, 1, 1], [2, 1, 1]),
    ]
    for i, (ins, outs) in enumerate(size1):
        b.add("size1_identity", b.batch(ins, outs, nmax=2, cmax=4), outs, align=(i % 2 == 0),
              dtype=DTYPES[(i + 1) % 4], fmt=FORMATS[i % 3], view=VIEWS[(i + 2) % 3], values="normal")

    # D. user scales: used (all three > 0, not align_corners), ignored with align_corners,
    #    identity axes with a non-unit scale, awkward decimal scales, and scales not all > 0.
    scale_sets = [
        ([4, 6, 8], [2.0, 2.0, 2.0]), ([5, 6, 7], [2.5, 1.5, 3.0]), ([5, 7, 9], [2.2, 1.1, 1.7]),
        ([10, 12, 9], [0.5, 0.75, 0.6]), ([10, 10, 10], [0.3, 0.35, 0.45]), ([7, 9, 11], [1.3, 0.7, 2.9]),
        ([4, 5, 6], [1.2, 2.0, 1.1]),        # D: 4*1.2 -> 4 (identity with a non-unit scale)
        ([6, 5, 4], [1.0, 1.0, 3.5]),        # identity D and H with scale 1
        ([3, 8, 5], [4.7, 0.9, 1.19]),       # 8*0.9 -> 7, 5*1.19 -> 5 (identity, scale ignored)
        ([12, 3, 2], [0.25, 5.5, 8.0]), ([2, 2, 2], [16.0, 10.5, 7.25]), ([16, 20, 24], [0.125, 0.15, 0.2]),
    ]
    i = 0
    for ins, sc in scale_sets:
        for align in (False, True):
            b.add("scales", [r.randint(1, 2), r.randint(1, 4)] + ins, None, scales=sc, align=align,
                  dtype=DTYPES[i % 4], fmt=FORMATS[i % 3], view=VIEWS[(i // 4) % 3],
                  values=FINITE_VALUES[i % 3])
            i += 1
    ignored = [
        ([4, 6, 8], [9, 11, 13], [2.0, 0.0, 2.0]), ([8, 8, 8], [3, 5, 17], [-1.0, 2.0, 2.0]),
        ([5, 6, 7], [10, 3, 7], [2.0, 0.5, 0.0]), ([6, 6, 6], [12, 12, 12], [0.0, 0.0, 3.0]),
        ([3, 9, 4], [7, 4, 11], [-2.0, -0.5, -3.0]), ([7, 7, 7], [7, 14, 3], [1.0, 2.0, -0.5]),
    ]
    for j, (ins, outs, sc) in enumerate(ignored):
        b.add("scales", [1 + j % 2, 2 + j % 3] + ins, outs, scales=sc, align=(j % 3 == 2),
              dtype=DTYPES[(j + 1) % 4], fmt=FORMATS[(j + 1) % 3], view=VIEWS[j % 3], values="normal")

    # E. batch 1..8, channels 1..64.
    bc = [(1, 1), (2, 3), (3, 5), (4, 8), (5, 16), (6, 7), (7, 2), (8, 1), (8, 4), (1, 64), (2, 32), (3, 17),
          (1, 33), (4, 12), (5, 24), (6, 3), (7, 9), (8, 8), (2, 64), (1, 48)]
    for j, (n, c) in enumerate(bc):
        for _ in range(200):   # redraw until gradOut + gradInput hold at most 250k elements
            ks = [r.choice(resize_kinds) for _ in range(3)]
            ins, outs = b.spatial(ks)
            if n * c * (math.prod(ins) + math.prod(outs)) <= 250_000:
                break
        else:
            ks, ins, outs = ["up", "down", "one_out"], [2, 6, 3], [4, 3, 1]
        b.add("batch_channels", [n, c] + ins, outs, align=(j % 2 == 1), dtype=DTYPES[j % 4],
              fmt=FORMATS[(j + 2) % 3], view=VIEWS[j % 3], values=FINITE_VALUES[j % 3], note="/".join(ks))

    # F. large ratios, up to 64x each way.
    big = [
        ([1, 2, 2, 4, 5], [128, 8, 10]),            # 64x up on D
        ([1, 2, 3, 2, 4], [6, 128, 8]),             # 64x up on H
        ([2, 1, 3, 4, 2], [3, 8, 128]),             # 64x up on W
        ([1, 1, 2, 2, 2], [128, 128, 128]),         # 64x up on every axis (2M gradOut elements)
        ([1, 1, 2, 3, 3], [64, 96, 96]),            # 32x up on every axis
        ([1, 2, 128, 6, 5], [2, 12, 5]),            # 64x down on D
        ([1, 2, 4, 128, 6], [8, 2, 3]),             # 64x down on H
        ([1, 3, 3, 4, 128], [3, 8, 2]),             # 64x down on W
        ([1, 1, 64, 128, 128], [1, 2, 2]),          # 64x/64x/64x down
        ([1, 2, 2, 128, 3], [128, 2, 192]),         # 64x up, 64x down, 64x up
        ([1, 1, 3, 5, 7], [190, 9, 21]),            # non-integer 63.3x
    ]
    for j, (ins, outs) in enumerate(big):
        b.add("ratio64", ins, outs, align=(j % 2 == 1), dtype=["float32", "bfloat16", "float16", "float64"][j % 4],
              fmt=FORMATS[j % 3], view=VIEWS[(j + 1) % 3], values=FINITE_VALUES[j % 3])
    b.add("ratio64", [1, 2, 2, 2, 3], None, scales=[64.0, 48.5, 21.0], dtype="float32", fmt="NDHWC")
    b.add("ratio64", [1, 2, 128, 64, 100], None, scales=[1 / 64, 0.0625, 0.02], dtype="float64", fmt="NCDHW",
          view="sliced")

    # G. values N(+-100, 25): rounding-error scale, fp16 overflow (|golden| near and beyond 65504).
    for j in range(16):
        ks = [r.choice(resize_kinds) for _ in range(3)]
        ins, outs = b.spatial(ks)
        b.add("values", b.batch(ins, outs), outs, align=(j % 2 == 0), dtype=DTYPES[j % 4], fmt=FORMATS[(j + 1) % 3],
              view=VIEWS[(j // 2) % 3], values=("shift_pos", "shift_neg")[j % 2], note="/".join(ks))
    overflow = [
        ([2, 2, 2, 2, 2], [32, 16, 16], "shift_pos"),   # ~1024 terms of ~100: well beyond 65504 -> +inf
        ([1, 3, 2, 2, 2], [32, 16, 16], "shift_neg"),   # -> -inf
        ([1, 2, 3, 3, 3], [24, 24, 24], "shift_pos"),   # 8x8x8 ~ 51200: around the threshold
        ([1, 2, 3, 3, 3], [24, 24, 24], "shift_neg"),
        ([1, 2, 2, 3, 2], [20, 28, 18], "shift_pos"),   # ~ 630 terms: near 65520
        ([2, 1, 4, 2, 2], [36, 20, 20], "shift_neg"),
    ]
    for j, (ins, outs, v) in enumerate(overflow):
        b.add("fp16_overflow", ins, outs, align=(j % 2 == 1), dtype="float16", fmt=FORMATS[j % 3],
              view=VIEWS[j % 3], values=v)
    for j, (ins, outs, v) in enumerate(overflow[:3]):   # same sums in bf16 / fp32: finite
        b.add("values", ins, outs, dtype=("bfloat16", "float32", "float64")[j], fmt=FORMATS[j], values=v)

    # H. non-finite gradOut: NaN, +inf, -inf; with identity axes (0 * inf = NaN), near-integer source
    #    indices (align_corners with (in-1)/(out-1) = 1/2, 1/3; 3x down without it: src = 3o + 1).
    nonfinite_shapes = [
        ([4, 5, 6], [8, 10, 12], False), ([5, 5, 5], [9, 9, 9], True), ([9, 12, 6], [3, 4, 2], False),
        ([4, 5, 6], [4, 10, 6], False), ([6, 6, 6], [6, 6, 6], False), ([3, 4, 5], [7, 10, 13], True),
        ([7, 5, 3], [19, 13, 7], True), ([12, 9, 8], [4, 3, 8], True), ([1, 4, 6], [5, 4, 1], False),
        ([5, 7, 4], [11, 3, 4], False), ([2, 3, 4], [16, 12, 4], True), ([8, 6, 4], [3, 11, 5], False),
    ]
    j = 0
    for ins, outs, align in nonfinite_shapes:
        for rep in range(3):
            dtype = DTYPES[j % 4]
            b.add("nonfinite", [1 + j % 2, 1 + (j * 3) % 5] + ins, outs, align=align, dtype=dtype,
                  fmt=FORMATS[(j // 4) % 3], view=VIEWS[(j + rep) % 3], values="nonfinite")
            j += 1

    # I. each tensor by its own format.
    mixed = [("NDHWC", "NCDHW"), ("NCDHW", "NDHWC"), ("ND", "NDHWC"), ("NDHWC", "ND")]
    for j in range(8):
        ks = [r.choice(resize_kinds) for _ in range(3)]
        ins, outs = b.spatial(ks)
        f, rf = mixed[j % 4]
        b.add("mixed_format", b.batch(ins, outs), outs, align=(j % 2 == 1), dtype=DTYPES[j % 4], fmt=f,
              result_format=rf, view=VIEWS[(j // 2) % 3], values="normal", note="/".join(ks))

    # J. the forward operator.
    j = 0
    for dtype in DTYPES:
        for fmt in FORMATS:
            for align in (False, True):
                ks = [r.choice(resize_kinds) for _ in range(3)]
                ins, outs = b.spatial(ks)
                b.add("forward", b.batch(ins, outs), outs, align=align, dtype=dtype, fmt=fmt, view=VIEWS[j % 3],
                      values=("normal", "shift_pos", "shift_neg", "nonfinite")[j % 4], op="forward",
                      note="/".join(ks))
                j += 1
    fwd_extra = [
        ([1, 3, 4, 6, 8], None, [2.5, 1.5, 0.75], False), ([2, 2, 5, 5, 5], [9, 9, 9], None, True),
        ([1, 2, 2, 2, 2], [128, 6, 5], None, False), ([1, 1, 64, 96, 32], [1, 3, 2], None, False),
        ([1, 2, 6, 6, 6], [6, 6, 6], None, False), ([2, 4, 1, 7, 1], [5, 1, 1], None, True),
    ]
    for k, (ins, outs, sc, align) in enumerate(fwd_extra):
        b.add("forward", ins, outs, scales=sc, align=align, dtype=DTYPES[k % 4], fmt=FORMATS[k % 3],
              view=VIEWS[(k + 1) % 3], values=("normal", "nonfinite")[k % 2], op="forward")

    # K. medium sizes: long rows, many channels (NDHWC), tails that are no multiple of a vector,
    #    enough planes and rows to split over cores; the small bench shapes (docs/spec.md §8).
    medium = [
        ([2, 16, 8, 32, 33], [16, 64, 65], "float32", "NCDHW", "contiguous", False, "normal", "backward"),
        ([2, 16, 8, 32, 33], [16, 64, 65], "bfloat16", "NDHWC", "contiguous", False, "shift_pos", "backward"),
        ([1, 64, 4, 16, 16], [8, 32, 32], "float32", "NDHWC", "contiguous", False, "normal", "backward"),
        ([1, 64, 4, 16, 16], [8, 32, 32], "float16", "NDHWC", "permuted", True, "normal", "backward"),
        ([1, 32, 8, 24, 40], [8, 48, 80], "float16", "NCDHW", "contiguous", False, "normal", "backward"),
        ([2, 8, 16, 16, 16], [8, 8, 8], "float64", "NCDHW", "contiguous", True, "shift_neg", "backward"),
        ([1, 4, 30, 31, 97], [17, 29, 193], "bfloat16", "ND", "permuted", False, "normal", "backward"),
        ([1, 5, 7, 9, 250], [13, 17, 500], "float32", "NCDHW", "sliced", True, "normal", "backward"),
        ([3, 7, 11, 13, 17], [31, 37, 41], "float64", "NDHWC", "contiguous", False, "normal", "backward"),
        ([1, 2, 2, 2, 64], [4, 4, 4096], "float32", "NCDHW", "contiguous", False, "normal", "backward"),
        ([1, 8, 8, 32, 32], [16, 64, 64], "float32", "NCDHW", "contiguous", False, "nonfinite", "backward"),
        ([1, 8, 8, 32, 32], [16, 64, 64], "bfloat16", "NDHWC", "sliced", True, "nonfinite", "backward"),
        ([2, 24, 6, 20, 20], [12, 40, 40], "float16", "NDHWC", "contiguous", False, "shift_neg", "backward"),
        ([4, 6, 12, 40, 24], [12, 20, 48], "float32", "ND", "permuted", True, "normal", "backward"),
        ([1, 3, 16, 64, 64], [37, 129, 131], "float32", "NCDHW", "contiguous", True, "normal", "backward"),   # B5
        ([2, 16, 32, 64, 64], [16, 32, 32], "float32", "NCDHW", "contiguous", False, "normal", "backward"),   # B6
        ([8, 3, 16, 16, 8], [42, 45, 36], "float16", "NCDHW", "contiguous", False, "normal", "backward"),     # B7
        ([1, 16, 16, 32, 32], [32, 64, 64], "float32", "NCDHW", "contiguous", False, "normal", "forward"),
        ([1, 32, 8, 16, 16], [16, 32, 32], "bfloat16", "NDHWC", "contiguous", True, "normal", "forward"),
        ([2, 8, 16, 48, 40], [7, 21, 96], "float64", "ND", "sliced", False, "nonfinite", "forward"),
        ([1, 12, 20, 20, 20], [33, 9, 57], "float16", "NDHWC", "permuted", False, "shift_pos", "forward"),
    ]
    for ins, outs, dtype, fmt, view, align, values, op in medium:
        b.add("medium", ins, outs, align=align, dtype=dtype, fmt=fmt, view=view, values=values, op=op)

    # L. the bench shapes B1, B2, B3, B8 (large: not in ctest, run by --all).
    b1_in, b1_out = [1, 64, 8, 128, 128], [16, 256, 256]
    b.add("bench", b1_in, b1_out, dtype="float32", fmt="NCDHW", large=True, note="B1")
    b.add("bench", b1_in, b1_out, dtype="bfloat16", fmt="NCDHW", large=True, note="B2")
    b.add("bench", b1_in, b1_out, dtype="float32", fmt="NDHWC", large=True, note="B3")
    b.add("bench", [2, 32, 16, 64, 64], [16, 128, 128], dtype="float32", fmt="NCDHW", large=True, note="B8")

    # M. the large case (bench B4): gradInput [1,64,8,128,128] <- gradOut [1,64,256,256,256], bf16.
    b.add("large", [1, 64, 8, 128, 128], [256, 256, 256], dtype="bfloat16", fmt="NCDHW", view="contiguous",
          values="normal", large=True)

    # N. the linear group, after the 3-D cases (their seeds stay as they were).
    for op in LINEAR_OPS:
        build_linear(b, op)
    return b.cases


# ---- the linear group ------------------------------------------------------------------------------------
LINEAR_OPS = ["bilinear2d", "linear1d", "bilinear2d_backward", "bilinear2d_backward_v2", "linear1d_backward"]
LINEAR_FORMATS = {2: ["NCHW", "NHWC", "ND"], 1: ["NCL", "ND"]}


def linear_rank(op):
    """Spatial dims of a linear-group op."""
    return 1 if op.startswith("linear1d") else 2


def scales_used(op, ins, outs, scales):
    """Whether the op uses its scales (see the docstring's mode): all of them or none."""
    gives = [s > 0 and math.floor(i * s) == o for i, o, s in zip(ins, outs, scales)]
    if op == "bilinear2d_backward":
        return False
    return all(gives)


def add_linear(b, op, group, input_size, output_size, scales=None, align=False, dtype="float32", fmt=None,
               result_format=None, view="contiguous", values="normal", note=""):
    """A linear-group case: input_size [N, C, spatial...] and output_size of the op's rank; scales None: none
    (linear1d: -1, its "no scale")."""
    rank = linear_rank(op)
    fmt = fmt or LINEAR_FORMATS[rank][0]
    assert len(input_size) == 2 + rank and len(output_size) == rank, (op, input_size, output_size)
    assert fmt in LINEAR_FORMATS[rank] and (result_format or fmt) in LINEAR_FORMATS[rank]
    if scales is None:
        scales = [-1.0] if op == "linear1d" else [0.0] * rank
    scales = [float(v) for v in scales]
    used = scales_used(op, input_size[2:], output_size, scales)
    if op == "linear1d" and scales[0] >= 0 and not used:
        raise ValueError(f"{group}: linear1d rejects scale {scales[0]} for {input_size} -> {output_size}")
    if op == "bilinear2d" and any(v < 0 for v in scales):
        raise ValueError(f"{group}: bilinear2d rejects negative scales {scales}")
    if op == "linear1d_backward":
        magnification = scales[0] if used else output_size[0] / input_size[2]
        assert magnification <= 500, (group, input_size, output_size, scales)
    mode = "scales" if used else ("size" if all(v <= 0 for v in scales) and op != "linear1d" or scales == [-1.0]
                                  else "scales_ignored")
    if op != "linear1d" and all(v == 0 for v in scales):
        mode = "size"
    case = b.add(group, input_size[:2] + [1] * (3 - rank) + input_size[2:], [1] * (3 - rank) + output_size,
                 align=align, dtype=dtype, fmt=fmt, view=view, values=values, op=op, result_format=result_format,
                 mode=mode, note=note)
    # The op's own rank in the file: the 5-D sizes the 3-D add works with, back to N, C, spatial.
    case["input_size"] = [int(v) for v in input_size]
    case["output_size"] = [int(v) for v in output_size]
    case["scales"] = scales
    return case


def selecting_scales(ins, outs):
    """Scales with floor(in * s) == out but 1/s != in/out: using them changes the result."""
    return [round((o + 0.3) / i, 12) if math.floor(i * round((o + 0.3) / i, 12)) == o else o / i
            for i, o in zip(ins, outs)]


def build_linear(b, op):
    r = b.rnd
    rank = linear_rank(op)
    formats = LINEAR_FORMATS[rank]
    kinds = ["up", "up_frac", "down", "down_frac", "id"]
    backward = op.endswith("backward") or op.endswith("backward_v2")

    def spatial(ks):
        return b.spatial(ks)

    def nc(ins, outs, max_elems=60_000, nmax=3, cmax=8):
        per_plane = math.prod(ins) + math.prod(outs)
        n, c = r.randint(1, nmax), r.randint(1, cmax)
        while n * c * per_plane > max_elems and c > 1:
            c -= 1
        while n * c * per_plane > max_elems and n > 1:
            n -= 1
        return [n, c]

    def scales_for(mode, ins, outs):
        """Scales of one of the modes: none, used (they give the sizes), ignored by the op's rule."""
        if mode == "size":
            return None
        sel = selecting_scales(ins, outs)
        if mode == "scales":
            return sel
        if op == "linear1d":
            return [-1.0 - r.randint(0, 3) * 0.5]
        bad = list(sel)
        bad[0] = (outs[0] + 1.3) / ins[0]     # floor(in * s) = out + 1: not the size
        return bad

    # A. grid: every dtype x format x align_corners x view, random per-axis ratios, the three scales modes.
    j = 0
    for dtype in DTYPES:
        for fmt in formats:
            for align in (False, True):
                for view in VIEWS:
                    ks = [r.choice(kinds) for _ in range(rank)]
                    if all(k == "id" for k in ks):
                        ks[r.randrange(rank)] = "up_frac"
                    ins, outs = spatial(ks)
                    mode = ("size", "scales", "scales_ignored")[j % 3]
                    add_linear(b, op, "linear_grid", nc(ins, outs) + ins, outs, scales_for(mode, ins, outs),
                               align=align, dtype=dtype, fmt=fmt, view=view, values=FINITE_VALUES[j % 3],
                               note="/".join(ks))
                    j += 1

    # B. scales: used and ignored by the op's rule; with align_corners (never used); identity axes.
    if rank == 2:
        sets = [([4, 6], [8, 12], [2.0, 2.0]), ([5, 7], [12, 7], [2.5, 1.1]), ([10, 12], [5, 9], [0.5, 0.75]),
                ([6, 6], [13, 4], [2.2, 0.7]), ([9, 4], [3, 4], [0.35, 1.2]), ([3, 5], [9, 11], [3.0, 2.3]),
                ([4, 6], [8, 12], [2.0, 0.0]), ([4, 6], [8, 12], [0.0, 2.0]), ([5, 8], [11, 17], [2.2, 2.0]),
                ([7, 7], [14, 9], [2.0, 1.3]), ([8, 5], [4, 10], [0.5, 2.0]), ([3, 3], [16, 5], [5.5, 1.7])]
        if op != "bilinear2d":
            sets += [([4, 6], [8, 12], [-1.0, 2.0]), ([4, 6], [8, 12], [2.0, -3.0])]
    else:
        sets = [([4], [8], [2.0]), ([5], [12], [2.5]), ([10], [5], [0.5]), ([6], [13], [2.2]), ([9], [3], [0.35]),
                ([7], [7], [1.05]), ([3], [16], [5.5]), ([16], [5], [0.33]), ([11], [30], [2.75]), ([2], [64], [32.0])]
        if op == "linear1d":
            sets += [([4], [9], [-1.0]), ([6], [4], [-0.5])]
        else:
            sets += [([4], [9], [1.1]), ([6], [4], [0.0]), ([5], [11], [-1.0]), ([8], [20], [3.0])]
    for k, (ins, outs, sc) in enumerate(sets):
        for align in (False, True):
            add_linear(b, op, "linear_scales", [1 + k % 2, 1 + k % 4] + ins, outs, sc, align=align,
                       dtype=DTYPES[k % 4], fmt=formats[k % len(formats)], view=VIEWS[(k + int(align)) % 3],
                       values=FINITE_VALUES[k % 3])

    # C. size-1, identity and large ratios (64x; the 1-D backward's limit, 500x).
    if rank == 2:
        shapes = [([1, 1], [1, 1]), ([1, 1], [6, 7]), ([6, 7], [1, 1]), ([1, 6], [5, 3]), ([6, 1], [2, 9]),
                  ([6, 7], [6, 7]), ([6, 7], [12, 7]), ([2, 3], [128, 6]), ([3, 2], [5, 128]),
                  ([128, 6], [2, 12]), ([5, 128], [9, 2]), ([3, 5], [190, 9])]
    else:
        shapes = [([1], [1]), ([1], [9]), ([9], [1]), ([7], [7]), ([2], [128]), ([128], [2]), ([3], [190]),
                  ([4096], [64]), ([2], [1000]), ([5], [2500]), ([33], [65]), ([65], [33])]
    for k, (ins, outs) in enumerate(shapes):
        add_linear(b, op, "linear_ratio", nc(ins, outs, nmax=2, cmax=4) + ins, outs, align=(k % 2 == 1),
                   dtype=DTYPES[(k + 1) % 4], fmt=formats[k % len(formats)], view=VIEWS[(k + 2) % 3],
                   values=FINITE_VALUES[k % 3])

    # D. non-finite inputs: NaN, +inf, -inf; identity axes (0 * inf = NaN), near-integer source indices.
    if rank == 2:
        nf = [([5, 6], [10, 12], False), ([5, 5], [9, 9], True), ([9, 12], [3, 4], False), ([4, 5], [4, 10], False),
              ([6, 6], [6, 6], False), ([3, 4], [7, 10], True)]
    else:
        nf = [([6], [12], False), ([5], [9], True), ([12], [4], False), ([6], [6], False), ([4], [10], True),
              ([9], [3], False)]
    for k, (ins, outs, align) in enumerate(nf):
        for rep in range(2):
            add_linear(b, op, "linear_nonfinite", [1 + k % 2, 1 + (k * 3) % 5] + ins, outs, align=align,
                       dtype=DTYPES[(2 * k + rep) % 4], fmt=formats[(k + rep) % len(formats)],
                       view=VIEWS[(k + rep) % 3], values="nonfinite")

    # E. ops-cv-like shapes: images and feature maps (2-D), sequences and signals (1-D), channels-last.
    if rank == 2:
        ocv = [([1, 3, 112, 112], [224, 224], "float32", "NCHW"), ([2, 64, 16, 16], [32, 32], "float16", "NHWC"),
               ([1, 256, 8, 8], [16, 16], "bfloat16", "NHWC"), ([4, 8, 15, 20], [30, 40], "float32", "ND"),
               ([1, 16, 64, 64], [32, 32], "float64", "NCHW"), ([1, 3, 100, 150], [64, 96], "float32", "NHWC"),
               ([8, 4, 7, 7], [14, 14], "bfloat16", "NCHW"), ([1, 32, 33, 17], [65, 31], "float16", "NCHW")]
    else:
        ocv = [([2, 64, 100], [200], "float32", "NCL"), ([8, 16, 1000], [333], "float16", "NCL"),
               ([1, 3, 4096], [8192], "bfloat16", "ND"), ([4, 128, 50], [75], "float64", "NCL"),
               ([16, 32, 64], [128], "float32", "ND"), ([1, 80, 257], [1024], "bfloat16", "NCL"),
               ([2, 5, 3000], [1500], "float32", "NCL"), ([3, 7, 33], [99], "float16", "ND")]
    for k, (sz, outs, dtype, fmt) in enumerate(ocv):
        add_linear(b, op, "linear_ocv", sz, outs, align=(k % 2 == 1), dtype=dtype, fmt=fmt, view=VIEWS[k % 3],
                   values=("normal", "shift_pos", "normal", "shift_neg")[k % 4])

    # F. each tensor by its own format (the backwards; bilinear2d wants one format for both).
    if backward:
        mixed = [("NHWC", "NCHW"), ("NCHW", "NHWC"), ("ND", "NHWC"), ("NHWC", "ND")] if rank == 2 else \
            [("NCL", "ND"), ("ND", "NCL")]
        for k in range(4):
            ks = [r.choice(kinds) for _ in range(rank)]
            ins, outs = spatial(ks)
            f, rf = mixed[k % len(mixed)]
            add_linear(b, op, "linear_mixed_format", nc(ins, outs) + ins, outs, align=(k % 2 == 1),
                       dtype=DTYPES[k % 4], fmt=f, result_format=rf, view=VIEWS[k % 3], note="/".join(ks))

    # G. fp16 near and beyond 65504 (the backwards' sums).
    if backward:
        big = [([1, 2, 2, 2], [64, 64], "shift_pos"), ([1, 2, 2, 2], [64, 64], "shift_neg"),
               ([1, 3, 3, 3], [40, 40], "shift_pos")] if rank == 2 else \
            [([1, 2, 2], [1000], "shift_pos"), ([1, 2, 2], [1000], "shift_neg"), ([2, 2, 3], [1400], "shift_pos")]
        for k, (sz, outs, v) in enumerate(big):
            add_linear(b, op, "linear_fp16_overflow", sz, outs, align=(k % 2 == 1), dtype="float16",
                       fmt=formats[k % len(formats)], view=VIEWS[k % 3], values=v)


def render(cases):
    lines = ["["]
    for i, c in enumerate(cases):
        lines.append("  " + json.dumps(c, sort_keys=False) + ("," if i + 1 < len(cases) else ""))
    lines.append("]")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="exit 1 if cases.json differs from what would be written")
    ap.add_argument("--out", default=OUT_PATH)
    args = ap.parse_args()
    text = render(build())
    if args.check:
        try:
            with open(args.out) as f:
                same = f.read() == text
        except FileNotFoundError:
            same = False
        print("cases.json is " + ("up to date" if same else "OUT OF DATE: run tests/st/gen_cases.py"))
        return 0 if same else 1
    with open(args.out, "w") as f:
        f.write(text)
    print(f"wrote {len(json.loads(text))} cases to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
