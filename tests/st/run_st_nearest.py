#!/usr/bin/env python3
"""System tests of the nearest group and aclnnResize (docs/spec.md §9) against float64 PyTorch.

Every case is drawn from a fixed seed (no clock, no files): 110 per entry point, 14 nearest entry points
and aclnnResize, over odd ratios, 1 -> N, N -> 1, the exact doubling, equal sizes, scales used and
ignored, every dtype (uint8 for the forwards), both formats of each rank and both memory orders, and
inf / NaN inputs. Each case runs through the public C API (ctypes) and is checked against PyTorch 1.13's
aten op in float64 on the same stored values:
  - forwards: bitwise equal to the float64 golden rounded to the dtype (a copy: the picked elements);
    NaN where the golden is NaN;
  - backwards: |ours - golden| <= terms * u_acc * A + e_out * |golden| per element (A: the sum of the
    magnitudes of its terms, terms: their count; docs/spec.md §5), non-finite classes equal;
  - Resize bilinear: |ours - golden| <= (8 + 4 (iH + iW)) * u_acc * T + e_out * |golden| with T the sum
    of |x| over each output's 2 x 2 taps (docs/spec.md §5's bound of the linear group, A <= T).
The 2-D forwards' golden runs PyTorch on channels-last memory: 1.13's channels-last kernel takes
nearest_idx's size cases (out == in, out == 2 in) as PyTorch 2.15 does in every layout (docs/spec.md §9),
where 1.13's NCHW kernel drops them.
Usage: /usr/bin/python3 tests/st/run_st_nearest.py [--lib build/libtrilinear3d.so] [--only NAME,...] [--list]
Exit 0 when every case passes, 1 otherwise.
"""
import argparse
import ctypes
import math
import os
import zlib
import random
import sys

import numpy as np
import torch

ACL_FLOAT, ACL_FLOAT16, ACL_UINT8, ACL_DOUBLE, ACL_BF16 = 0, 1, 4, 11, 27
FMT = {"NCHW": 0, "NHWC": 1, "ND": 2, "NDHWC": 27, "NCDHW": 30, "NCL": 47}
CASES_PER_OP = 110

# name: (rank, exact, backward, scale rule, float scales, torch op)
OPS = {
    "Nearest1d": (3, False, False, "none", False, "upsample_nearest1d"),
    "Nearest2d": (4, False, False, "none", False, "upsample_nearest2d"),
    "Nearest1dV2": (3, False, False, "per_axis", True, "upsample_nearest1d"),
    "Nearest2dV2": (4, False, False, "all_or_none", True, "upsample_nearest2d"),
    "Nearest3d": (5, False, False, "all_or_none", False, "upsample_nearest3d"),
    "NearestExact1d": (3, True, False, "per_axis", False, "_upsample_nearest_exact1d"),
    "NearestExact2d": (4, True, False, "per_axis", False, "_upsample_nearest_exact2d"),
    "NearestExact3d": (5, True, False, "all_or_none", False, "_upsample_nearest_exact3d"),
    "Nearest1dBackward": (3, False, True, "per_axis", False, "upsample_nearest1d_backward"),
    "Nearest2dBackward": (4, False, True, "per_axis", False, "upsample_nearest2d_backward"),
    "Nearest3dBackward": (5, False, True, "all_or_none", False, "upsample_nearest3d_backward"),
    "NearestExact1dBackward": (3, True, True, "per_axis", False, "_upsample_nearest_exact1d_backward"),
    "NearestExact2dBackward": (4, True, True, "per_axis", False, "_upsample_nearest_exact2d_backward"),
    "NearestExact3dBackward": (5, True, True, "all_or_none", False, "_upsample_nearest_exact3d_backward"),
    "Resize": (4, False, False, "per_axis", True, None),
}

DTYPES = {  # name: (acl, torch dtype, u_acc, e_out)
    "float32": (ACL_FLOAT, torch.float32, 2.0**-24, 0.0),
    "float64": (ACL_DOUBLE, torch.float64, 2.0**-53, 0.0),
    "float16": (ACL_FLOAT16, torch.float16, 2.0**-24, 2.0**-11),
    "bfloat16": (ACL_BF16, torch.bfloat16, 2.0**-24, 2.0**-8),
    "uint8": (ACL_UINT8, torch.uint8, 0.0, 0.0),
}

PAIRS = [(7, 19), (13, 5), (1, 9), (9, 1), (8, 16), (5, 5), (6, 13), (3, 7), (16, 8), (11, 4), (2, 37), (31, 31)]


def draw_cases():
    rnd = random.Random(20261204)
    cases = []
    for name, (rank, exact, backward, rule, float_scales, _) in OPS.items():
        dtypes = ["float32", "float64", "float16", "bfloat16"] + ([] if backward or name == "Resize" else ["uint8"])
        if name == "Resize":
            dtypes = ["float32", "float16", "bfloat16", "float64"]
        formats = {3: ["NCL", "ND"], 4: ["NCHW", "NHWC", "ND"], 5: ["NCDHW", "NDHWC", "ND"]}[rank]
        if name == "Resize":
            formats = ["NCHW", "NHWC"]
        for k in range(CASES_PER_OP):
            spatial = rank - 2
            ins, outs, scales = [], [], []
            for a in range(spatial):
                if rnd.random() < 0.5:
                    i, o = PAIRS[rnd.randrange(len(PAIRS))]
                else:
                    i, o = rnd.randint(1, 24), rnd.randint(1, 40)
                ins.append(i)
                outs.append(o)
            mode = rnd.choice(["none", "consistent", "other"])
            for a in range(spatial):
                if mode == "consistent":
                    scales.append(outs[a] / ins[a])
                elif mode == "other":
                    scales.append(round(rnd.uniform(0.3, 4.0), 3))
                else:
                    scales.append(0.0)
            if name == "Resize":
                scales = [round(rnd.uniform(0.3, 3.5), 2) for _ in range(2)]
                outs = [int(float(ins[a]) * float(np.float32(scales[a]))) for a in range(2)]
                if min(outs) < 1:
                    scales = [max(s, 1.0) for s in scales]
                    outs = [int(float(ins[a]) * float(np.float32(scales[a]))) for a in range(2)]
            dtype = dtypes[k % len(dtypes)]
            cases.append({
                "name": "%s_%03d" % (name, k), "op": name, "n": rnd.randint(1, 3),
                "c": rnd.choice([1, 3, 5, 9, 16]), "in": ins, "out": outs, "scales": scales, "dtype": dtype,
                "format": formats[(k // len(dtypes)) % len(formats)], "permuted": rnd.random() < 0.3,
                "nonfinite": dtype != "uint8" and rnd.random() < 0.3,
                "mode": ("bilinear" if k % 3 == 2 else "nearest") if name == "Resize" else None,
            })
    return cases


def used_scales(case):
    rank, _, _, rule, float_scales, _ = OPS[case["op"]]
    s = list(case["scales"])
    if float_scales:
        s = [float(np.float32(v)) for v in s]
    if rule == "none":
        return [None] * len(s)
    if rule == "all_or_none" and not all(v > 0 for v in s):
        return [None] * len(s)
    return [v if v > 0 else None for v in s]


class Library:
    def __init__(self, path):
        self.lib = lib = ctypes.CDLL(path)
        vp, i64p = ctypes.c_void_p, ctypes.POINTER(ctypes.c_int64)
        lib.aclCreateTensor.restype = vp
        lib.aclCreateTensor.argtypes = [i64p, ctypes.c_uint64, ctypes.c_int, i64p, ctypes.c_int64, ctypes.c_int, i64p,
                                        ctypes.c_uint64, vp]
        lib.aclCreateIntArray.restype = vp
        lib.aclCreateIntArray.argtypes = [i64p, ctypes.c_uint64]
        lib.aclCreateFloatArray.restype = vp
        lib.aclCreateFloatArray.argtypes = [ctypes.POINTER(ctypes.c_float), ctypes.c_uint64]
        lib.aclGetRecentErrMsg.restype = ctypes.c_char_p
        lib.aclrtMalloc.argtypes = [ctypes.POINTER(vp), ctypes.c_size_t, ctypes.c_int]
        lib.aclrtMemcpy.argtypes = [vp, ctypes.c_size_t, vp, ctypes.c_size_t, ctypes.c_int]
        lib.aclrtFree.argtypes = [vp]
        lib.aclDestroyTensor.argtypes = [vp]
        lib.aclDestroyIntArray.argtypes = [vp]
        lib.aclDestroyFloatArray.argtypes = [vp]
        lib.aclrtSynchronizeDevice.argtypes = []
        assert lib.aclInit(None) == 0 and lib.aclrtSetDevice(0) == 0

    def msg(self):
        m = self.lib.aclGetRecentErrMsg()
        return m.decode(errors="replace") if m else ""

    @staticmethod
    def i64(values):
        return (ctypes.c_int64 * len(values))(*[int(v) for v in values])

    def device_copy(self, t):
        """t (dense: contiguous or a permutation of it) -> (device pointer, bytes), its storage copied."""
        nbytes = max(1, t.numel() * t.element_size())
        p = ctypes.c_void_p()
        assert self.lib.aclrtMalloc(ctypes.byref(p), nbytes, 0) == 0
        assert self.lib.aclrtMemcpy(p, nbytes, ctypes.c_void_p(t.data_ptr()), t.numel() * t.element_size(), 1) == 0
        return p, nbytes

    def tensor(self, view, fmt, acl, dev):
        dims, strides = list(view.shape), list(view.stride())
        storage = [view.numel()]
        return self.lib.aclCreateTensor(self.i64(dims), len(dims), acl, self.i64(strides), 0, FMT[fmt],
                                        self.i64(storage), 1, dev)


def as_format(t, fmt):
    """A logical NC... tensor as the view of its format (channels-last formats: N, spatial..., C)."""
    if fmt in ("NHWC", "NDHWC"):
        return t.permute(0, *range(2, t.dim()), 1)
    return t


def laid_out(t, fmt, permuted):
    """A dense copy of logical t whose format view is contiguous, or (permuted) in the other memory order."""
    view = as_format(t, fmt).contiguous()
    if permuted and t.dim() >= 3:
        other = view.permute(0, view.dim() - 1, *range(1, view.dim() - 1)).contiguous()
        view = other.permute(0, *range(2, view.dim()), 1)
    return view


def from_view(view, fmt):
    if fmt in ("NHWC", "NDHWC"):
        return view.permute(0, view.dim() - 1, *range(1, view.dim() - 1))
    return view


def call(lib, case, src_t, src_view, dst_view, dst_dev, fmt, acl):
    """GetWorkspaceSize + run of the case's entry point; returns the status."""
    op = case["op"]
    rank, exact, backward, _, float_scales, _ = OPS[op]
    l = lib.lib
    src_dev, _ = lib.device_copy(src_view)
    src = lib.tensor(src_view, fmt, acl, src_dev)
    dst = lib.tensor(dst_view, fmt, acl, dst_dev)
    sp = rank - 2
    outs = case["out"]
    ins = [case["n"], case["c"]] + case["in"]
    o = l.aclCreateIntArray(lib.i64(outs), len(outs))
    i = l.aclCreateIntArray(lib.i64(ins), len(ins))
    s = [float(v) for v in case["scales"]] + [0.0] * 3
    ws, ex = ctypes.c_uint64(0), ctypes.c_void_p()
    W, E = ctypes.byref(ws), ctypes.byref(ex)
    d, f = ctypes.c_double, ctypes.c_float
    vp = ctypes.c_void_p
    name = "aclnnUpsample" + op if op != "Resize" else "aclnnResize"
    fn = getattr(l, name + "GetWorkspaceSize")
    if op == "Resize":
        arr = (ctypes.c_float * 4)(1.0, 1.0, *[float(v) for v in case["scales"]])
        scales = l.aclCreateFloatArray(arr, 4)
        rc = fn(vp(src), vp(scales), case["mode"].encode(), vp(dst), W, E)
        l.aclDestroyFloatArray(vp(scales))
    elif not backward:
        args = [vp(src), vp(o)]
        if op not in ("Nearest1d", "Nearest2d"):
            args += [(f if float_scales else d)(x) for x in s[:sp]]
        rc = fn(*args, vp(dst), W, E)
    else:
        rc = fn(vp(src), vp(o), vp(i), *[d(x) for x in s[:sp]], vp(dst), W, E)
    status = rc
    if rc == 0:
        wsp = ctypes.c_void_p()
        if ws.value > 0:
            assert l.aclrtMalloc(ctypes.byref(wsp), ws.value, 0) == 0
        status = getattr(l, name)(wsp, ws, ex, None)
        assert l.aclrtSynchronizeDevice() == 0
        if ws.value > 0:
            l.aclrtFree(wsp)
    l.aclDestroyTensor(vp(src))
    l.aclDestroyTensor(vp(dst))
    l.aclDestroyIntArray(vp(o))
    l.aclDestroyIntArray(vp(i))
    l.aclrtFree(src_dev)
    return status


def golden(case, x64):
    """float64 PyTorch of the case on x64 (the stored values in float64), and for backwards the magnitudes'
    result and the term counts."""
    op = case["op"]
    rank, exact, backward, _, _, torch_name = OPS[op]
    sc = used_scales(case)
    if op == "Resize":
        scale = [float(np.float32(v)) for v in case["scales"]]
        if case["mode"] == "nearest":
            x_cl = x64.contiguous(memory_format=torch.channels_last)
            return torch.ops.aten.upsample_nearest2d(x_cl, case["out"], scale[0], scale[1]), None, None
        g = torch.ops.aten.upsample_bilinear2d(x64, case["out"], False, scale[0], scale[1])
        # §5's T: |x| summed with unit weight over each output's 2 x 2 taps.
        m = x64.abs().nan_to_num(posinf=0.0)
        for axis, (n_in, n_out, sc) in enumerate(zip(case["in"], case["out"], scale)):
            src = ((torch.arange(n_out, dtype=torch.float64) + 0.5) / sc - 0.5).clamp(min=0.0)
            i0 = src.floor().long().clamp(max=n_in - 1)
            i1 = (i0 + 1).clamp(max=n_in - 1)
            m = m.index_select(2 + axis, i0) + m.index_select(2 + axis, i1)
        return g, m, None
    fn = getattr(torch.ops.aten, torch_name)
    if not backward:
        if rank == 4:
            x64 = x64.contiguous(memory_format=torch.channels_last)
        return fn(x64, case["out"], *sc), None, None
    in_size = [case["n"], case["c"]] + case["in"]
    g = fn(x64, case["out"], in_size, *sc)
    a = fn(x64.abs(), case["out"], in_size, *sc)
    t = fn(torch.ones_like(x64), case["out"], in_size, *sc)
    return g, a, t


def run_case(lib, case):
    op = case["op"]
    rank, exact, backward, _, _, _ = OPS[op]
    acl, tdt, u_acc, e_out = DTYPES[case["dtype"]]
    gen = torch.Generator().manual_seed(zlib.crc32(case["name"].encode()))
    small = [case["n"], case["c"]] + case["in"]
    large = [case["n"], case["c"]] + case["out"]
    src_shape = large if backward else small
    dst_shape = small if backward else large
    if case["dtype"] == "uint8":
        x = torch.randint(0, 256, src_shape, generator=gen, dtype=torch.uint8)
    else:
        x = torch.randn(src_shape, generator=gen, dtype=torch.float64)
        if case["nonfinite"]:
            flat = x.view(-1)
            for j, v in enumerate([math.inf, -math.inf, math.nan]):
                flat[(j * 7919) % flat.numel()] = v
        x = x.to(tdt)
    fmt = case["format"]
    src_view = laid_out(x, fmt, case["permuted"])
    dst_logical = torch.full(dst_shape, 0, dtype=tdt) if case["dtype"] == "uint8" else torch.full(dst_shape, math.nan, dtype=tdt)
    dst_view = laid_out(dst_logical, fmt, not case["permuted"] and rank > 3)
    dst_dev, dst_bytes = lib.device_copy(dst_view)
    status = call(lib, case, x, src_view, dst_view, dst_dev, fmt, acl)
    if status != 0:
        lib.lib.aclrtFree(dst_dev)
        return False, "status %d: %s" % (status, lib.msg())
    result_view = torch.empty_strided(dst_view.shape, dst_view.stride(), dtype=tdt)
    assert lib.lib.aclrtMemcpy(ctypes.c_void_p(result_view.data_ptr()), dst_bytes, dst_dev, dst_bytes, 2) == 0
    lib.lib.aclrtFree(dst_dev)
    ours = from_view(result_view, fmt).to(torch.float64)
    g, a, terms = golden(case, x.to(torch.float64))
    if not backward and not (op == "Resize" and case["mode"] == "bilinear"):
        want = g.to(tdt).to(torch.float64)
        same = (ours == want) | (ours.isnan() & want.isnan())
        if not bool(same.all()):
            k = int((~same).flatten().nonzero()[0])
            return False, "element %d: %r, golden %r" % (k, ours.flatten()[k].item(), want.flatten()[k].item())
        return True, "bitwise"
    finite = g.isfinite()
    cls_ok = (ours.isnan() == g.isnan()) & ((ours == g) | finite | g.isnan())
    if not bool(cls_ok.all()):
        k = int((~cls_ok).flatten().nonzero()[0])
        return False, "class of element %d: %r, golden %r" % (k, ours.flatten()[k].item(), g.flatten()[k].item())
    k_terms = terms if terms is not None else torch.full_like(g, 8.0 + 4.0 * sum(case["in"]))
    bound = k_terms * u_acc * a.nan_to_num(posinf=0.0) + e_out * g.abs()
    err = (ours - g).abs()
    bad = finite & (err > bound)
    if case["dtype"] == "float16":  # docs/spec.md §5: near 65520, ±inf of the golden's sign is correct
        bad &= ~((g.abs() >= 65504) & ours.isinf() & (ours.sign() == g.sign()))
    if bool(bad.any()):
        k = int(bad.flatten().nonzero()[0])
        return False, "element %d: %r, golden %r, bound %g" % (k, ours.flatten()[k].item(), g.flatten()[k].item(),
                                                              bound.flatten()[k].item())
    worst = float((err[finite] / bound[finite].clamp(min=1e-300)).max()) if bool(finite.any()) else 0.0
    return True, "worst error / bound %.3g" % worst


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", default=os.environ.get("TRILINEAR3D_LIB", "build/libtrilinear3d.so"))
    ap.add_argument("--only", default="")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()
    cases = draw_cases()
    if args.only:
        keep = set(args.only.split(","))
        cases = [c for c in cases if c["name"] in keep or c["op"] in keep]
    if args.list:
        for c in cases:
            print(c)
        return 0
    lib = Library(args.lib)
    failed, per_op = 0, {}
    for case in cases:
        ok, text = run_case(lib, case)
        per_op.setdefault(case["op"], [0, 0])[0 if ok else 1] += 1
        if not ok:
            failed += 1
            print("FAIL %s (%s %s %s in %s out %s scales %s%s): %s" % (
                case["name"], case["dtype"], case["format"], "permuted" if case["permuted"] else "dense",
                case["in"], case["out"], case["scales"], " " + case["mode"] if case["mode"] else "", text))
    for op, (ok, bad) in per_op.items():
        print("%-24s %4d passed %4d failed" % (op, ok, bad))
    print("st_nearest: %d cases, %d failed" % (len(cases), failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
