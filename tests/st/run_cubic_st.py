#!/usr/bin/env python3
"""System tests of the cubic group (aclnnUpsampleBicubic2d, aclnnUpsampleBilinear2dAA, aclnnUpsampleBicubic2dAA
and their backwards) through the library's C API (ctypes) against float64 PyTorch.

The cases are drawn from a fixed seed (no clock, no file): CASES_PER_OP per operator and direction, shapes that
grow and shrink (the antialiased ones as strongly as 1/7 and beyond), sizes of 1, identity axes, every dtype,
NCHW / ND (and NHWC for the bicubic pair), align_corners both ways, scales that give the sizes. Per element:

    |ours - torch_f64| <= (e_out + 2 (taps + 4) u_acc) * A + 2^-46 * T + tiny

A: the operator applied to |x| with |weights| (the runner's own float64 weight matrices, written from PyTorch's
formulas; they must reproduce torch's float64 result to 1e-11 first); T: the same with unit weights; taps: the
most nonzero taps of an output on H plus those on W. fp16 / bf16 round once on store (e_out 2^-11 / 2^-8).

Usage: run_cubic_st.py [--lib build/libtrilinear3d.so] [--only NAME_SUBSTRING]. Debian's /usr/bin/python3
(python3-torch, python3-numpy). Exit 1 if a case fails.
"""
import argparse
import ctypes
import math
import os
import random
import sys

import numpy as np
import torch

CASES_PER_OP = 110
SEED = 20261204

ACL_FLOAT, ACL_FLOAT16, ACL_DOUBLE, ACL_BF16 = 0, 1, 11, 27
ACL_FORMAT_NCHW, ACL_FORMAT_NHWC, ACL_FORMAT_ND = 0, 1, 2

# name, kind, forward api, backward api
OPS = [
    ("Bicubic2d", "cubic", "aclnnUpsampleBicubic2d", "aclnnUpsampleBicubic2dBackward"),
    ("Bilinear2dAA", "linear_aa", "aclnnUpsampleBilinear2dAA", "aclnnUpsampleBilinear2dAABackward"),
    ("Bicubic2dAA", "cubic_aa", "aclnnUpsampleBicubic2dAA", "aclnnUpsampleBicubic2dAAGrad"),
]

DTYPES = {  # name: (acl, numpy storage, torch dtype, e_out, u_acc, tiny)
    "float32": (ACL_FLOAT, np.float32, torch.float32, 0.0, 2.0**-24, 2.0**-149),
    "float16": (ACL_FLOAT16, np.float16, torch.float16, 2.0**-11, 2.0**-24, 2.0**-24),
    "bfloat16": (ACL_BF16, np.uint16, torch.bfloat16, 2.0**-8, 2.0**-24, 2.0**-133),
    "float64": (ACL_DOUBLE, np.float64, torch.float64, 0.0, 2.0**-53, 0.0),
}


# ---- the runner's own weights (PyTorch's formulas) -------------------------------------------------------
def keys(d, a):
    x = abs(d)
    if x <= 1.0:
        return (a + 2.0) * x**3 - (a + 3.0) * x**2 + 1.0
    if x < 2.0:
        return a * x**3 - 5.0 * a * x**2 + 8.0 * a * x - 4.0 * a
    return 0.0


def step(n_in, n_out, align, scale):
    if align:
        return (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    return 1.0 / scale if scale > 0 else n_in / n_out


def weights(kind, n_in, n_out, align, scale, backward, copy):
    m = np.zeros((n_out, n_in))
    r = step(n_in, n_out, align, scale)
    if copy:  # torch's bicubic backward where neither axis changes size
        return np.eye(n_in)
    if kind == "cubic":
        for o in range(n_out):
            x = r * o if align else r * (o + 0.5) - 0.5
            f = min(math.floor(x), n_in - 1)
            t = min(max(x - f, 0.0), 1.0)
            for k in range(-1, 3):
                m[o, min(max(f + k, 0), n_in - 1)] += keys(t - k, -0.75)
        return m
    if n_in == n_out and (not backward or r == 1.0):  # torch 2.x's AA forward skips the axis
        return np.eye(n_in)
    stretch = max(r, 1.0)
    half = (2.0 if kind == "cubic_aa" else 1.0) * stretch
    most = int(math.ceil(half)) * 2 + 1
    for o in range(n_out):
        c = r * (o + 0.5)
        lo = max(int(c - half + 0.5), 0)
        hi = min(int(c + half + 0.5), n_in, lo + most)
        for i in range(lo, hi):
            d = (i + 0.5 - c) / stretch
            m[o, i] = keys(d, -0.5) if kind == "cubic_aa" else max(0.0, 1.0 - abs(d))
        total = m[o].sum()
        if total != 0.0:
            m[o] /= total
    return m


def apply(mh, mw, x, backward):
    """x: (N, C, H, W) float64 -> (N, C, H', W')."""
    if backward:
        mh, mw = mh.T, mw.T
    return np.einsum("ah,nchw,bw->ncab", mh, x, mw, optimize=True)


# ---- PyTorch ---------------------------------------------------------------------------------------------
def torch_result(case, x64):
    kind, align = case["kind"], case["align"]
    out = [case["out_h"], case["out_w"]]
    sh = case["scales_h"] if case["scales_h"] > 0 else None
    sw = case["scales_w"] if case["scales_w"] > 0 else None
    fn = {"cubic": torch.ops.aten.upsample_bicubic2d, "linear_aa": torch.ops.aten._upsample_bilinear2d_aa,
          "cubic_aa": torch.ops.aten._upsample_bicubic2d_aa}[kind]
    if not case["backward"]:
        return fn(torch.from_numpy(x64), out, align, sh, sw).numpy()
    n, c = case["n"], case["c"]
    inp = torch.zeros((n, c, case["in_h"], case["in_w"]), dtype=torch.float64, requires_grad=True)
    fn(inp, out, align, sh, sw).backward(torch.from_numpy(x64))
    return inp.grad.numpy()


# ---- the library -----------------------------------------------------------------------------------------
class Library:
    def __init__(self, path):
        self.lib = lib = ctypes.CDLL(path)
        vp, i64p, u64p = ctypes.c_void_p, ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(ctypes.c_uint64)
        sig = {
            "aclInit": (ctypes.c_int, [ctypes.c_char_p]),
            "aclrtSetDevice": (ctypes.c_int, [ctypes.c_int32]),
            "aclrtSynchronizeStream": (ctypes.c_int, [vp]),
            "aclrtMalloc": (ctypes.c_int, [ctypes.POINTER(vp), ctypes.c_size_t, ctypes.c_int]),
            "aclrtFree": (ctypes.c_int, [vp]),
            "aclrtMemcpy": (ctypes.c_int, [vp, ctypes.c_size_t, vp, ctypes.c_size_t, ctypes.c_int]),
            "aclGetRecentErrMsg": (ctypes.c_char_p, []),
            "aclCreateTensor": (vp, [i64p, ctypes.c_uint64, ctypes.c_int, i64p, ctypes.c_int64, ctypes.c_int, i64p,
                                     ctypes.c_uint64, vp]),
            "aclDestroyTensor": (ctypes.c_int, [vp]),
            "aclCreateIntArray": (vp, [i64p, ctypes.c_uint64]),
            "aclDestroyIntArray": (ctypes.c_int, [vp]),
        }
        for _, _, fwd, bwd in OPS:
            sig[fwd + "GetWorkspaceSize"] = (ctypes.c_int32, [vp, vp, ctypes.c_bool, ctypes.c_double, ctypes.c_double,
                                                              vp, u64p, ctypes.POINTER(vp)])
            sig[bwd + "GetWorkspaceSize"] = (ctypes.c_int32, [vp, vp, vp, ctypes.c_bool, ctypes.c_double,
                                                              ctypes.c_double, vp, u64p, ctypes.POINTER(vp)])
            sig[fwd] = sig[bwd] = (ctypes.c_int32, [vp, ctypes.c_uint64, vp, vp])
        for name, (res, args) in sig.items():
            f = getattr(lib, name)
            f.restype, f.argtypes = res, args
        assert lib.aclInit(None) == 0 and lib.aclrtSetDevice(0) == 0

    @staticmethod
    def ints(values):
        return (ctypes.c_int64 * len(values))(*[int(v) for v in values])

    def run(self, api, backward, src, dst_shape, dst_storage, acl_dtype, fmt, case):
        """src: numpy array in view order (stored dtype); returns the result in view order."""
        lib = self.lib
        bufs, tensors, arrays = [], [], []
        try:
            def tensor(arr):
                p = ctypes.c_void_p()
                assert lib.aclrtMalloc(ctypes.byref(p), max(1, arr.nbytes), 0) == 0
                bufs.append(p)
                assert lib.aclrtMemcpy(p, arr.nbytes, arr.ctypes.data_as(ctypes.c_void_p), arr.nbytes, 1) == 0
                dims = arr.shape
                strides = [int(np.prod(dims[i + 1:])) for i in range(len(dims))]
                t = lib.aclCreateTensor(self.ints(dims), len(dims), acl_dtype, self.ints(strides), 0, fmt,
                                        self.ints(dims), len(dims), p)
                tensors.append(t)
                return t, p
            s, _ = tensor(np.ascontiguousarray(src))
            # NaN everywhere first: an element the operator does not write stays NaN and fails.
            poison = np.full(dst_shape, 0x7FC0, dtype=np.uint16) if dst_storage == np.uint16 else \
                np.full(dst_shape, np.nan, dtype=dst_storage)
            d, dp = tensor(poison)
            out_size = lib.aclCreateIntArray(self.ints([case["out_h"], case["out_w"]]), 2)
            arrays.append(out_size)
            ws, ex = ctypes.c_uint64(0), ctypes.c_void_p()
            if backward:
                nchw = [case["n"], case["c"], case["in_h"], case["in_w"]]
                in_size = nchw if fmt != ACL_FORMAT_NHWC else [nchw[0], nchw[2], nchw[3], nchw[1]]
                arr = lib.aclCreateIntArray(self.ints(in_size), 4)
                arrays.append(arr)
                st = getattr(lib, api + "GetWorkspaceSize")(s, out_size, arr, case["align"], case["scales_h"],
                                                            case["scales_w"], d, ctypes.byref(ws), ctypes.byref(ex))
            else:
                st = getattr(lib, api + "GetWorkspaceSize")(s, out_size, case["align"], case["scales_h"],
                                                            case["scales_w"], d, ctypes.byref(ws), ctypes.byref(ex))
            if st != 0:
                raise RuntimeError("%sGetWorkspaceSize: %d %s" % (api, st, lib.aclGetRecentErrMsg()))
            w = ctypes.c_void_p()
            if ws.value:
                assert lib.aclrtMalloc(ctypes.byref(w), ws.value, 0) == 0
                bufs.append(w)
            st = getattr(lib, api)(w, ws.value, ex, None)
            if st != 0 or lib.aclrtSynchronizeStream(None) != 0:
                raise RuntimeError("%s: %d %s" % (api, st, lib.aclGetRecentErrMsg()))
            res = np.zeros(dst_shape, dtype=dst_storage)
            assert lib.aclrtMemcpy(res.ctypes.data_as(ctypes.c_void_p), res.nbytes, dp, res.nbytes, 2) == 0
            return res
        finally:
            for t in tensors:
                lib.aclDestroyTensor(t)
            for a in arrays:
                lib.aclDestroyIntArray(a)
            for p in bufs:
                lib.aclrtFree(p)


# ---- cases ---------------------------------------------------------------------------------------------------
def make_cases():
    rnd = random.Random(SEED)
    cases = []
    for name, kind, fwd, bwd in OPS:
        for backward in (False, True):
            for k in range(CASES_PER_OP):
                aa = kind != "cubic"
                shape_kind = k % 6  # up, down, strong down, identity axis, size one, mixed
                def size_pair():
                    i = rnd.randint(1, 24)
                    if shape_kind == 0:
                        return i, rnd.randint(i, 3 * i + 2)
                    if shape_kind == 1:
                        o = rnd.randint(1, 24)
                        return max(i, o) + rnd.randint(0, 20), o
                    if shape_kind == 2:
                        o = rnd.randint(1, 6)
                        return o * rnd.choice([7, 9, 12, 20]) + rnd.randint(0, 5), o
                    if shape_kind == 3:
                        return i, i
                    if shape_kind == 4:
                        return rnd.choice([(1, rnd.randint(1, 9)), (rnd.randint(1, 9), 1)])
                    return i, rnd.randint(1, 40)
                in_h, out_h = size_pair()
                in_w, out_w = size_pair() if rnd.random() < 0.7 else (rnd.randint(1, 30), rnd.randint(1, 30))
                if aa and not (in_h // out_h <= 50 and out_h <= 50 * in_h and in_w // out_w <= 50 and
                               out_w <= 50 * in_w):
                    in_h, out_h = 9, 4
                align = rnd.random() < 0.3
                scales_h = scales_w = 0.0
                if not align and rnd.random() < 0.3:  # scales that give the sizes
                    scales_h = (out_h + rnd.uniform(0.0, 0.9)) / in_h
                    scales_w = (out_w + rnd.uniform(0.0, 0.9)) / in_w
                    scales_h = scales_h if math.floor(in_h * scales_h) == out_h else 0.0
                    scales_w = scales_w if math.floor(in_w * scales_w) == out_w else 0.0
                if aa and not backward:
                    # torch 1.13's AA forward resamples an axis of unchanged size by its scale, torch 2.x skips
                    # it (as the library): no scale on such an axis here.
                    scales_h = 0.0 if in_h == out_h else scales_h
                    scales_w = 0.0 if in_w == out_w else scales_w
                formats = ["NCHW", "ND"] + ([] if aa else ["NHWC"])
                cases.append(dict(
                    name="%s%s_%03d" % (name, "Backward" if backward else "", k), kind=kind,
                    api=bwd if backward else fwd, backward=backward, n=rnd.randint(1, 3), c=rnd.randint(1, 12),
                    in_h=in_h, in_w=in_w, out_h=out_h, out_w=out_w, align=align, scales_h=scales_h,
                    scales_w=scales_w, dtype=["float32", "float64", "float16", "bfloat16"][k % 4],
                    format=formats[(k // 4) % len(formats)]))
    return cases


def run_case(lib, case, rnd):
    acl, storage, tdtype, e_out, u_acc, tiny = DTYPES[case["dtype"]]
    n, c = case["n"], case["c"]
    src_hw = (case["out_h"], case["out_w"]) if case["backward"] else (case["in_h"], case["in_w"])
    dst_hw = (case["in_h"], case["in_w"]) if case["backward"] else (case["out_h"], case["out_w"])
    x = torch.from_numpy(rnd.standard_normal((n, c) + src_hw)).to(tdtype)  # rounded to the dtype
    x64 = x.to(torch.float64).numpy()
    nhwc = case["format"] == "NHWC"
    fmt = {"NCHW": ACL_FORMAT_NCHW, "ND": ACL_FORMAT_ND, "NHWC": ACL_FORMAT_NHWC}[case["format"]]
    view = x.permute(0, 2, 3, 1) if nhwc else x
    src = view.contiguous().view(torch.int16).numpy().view(np.uint16) if case["dtype"] == "bfloat16" else \
        view.contiguous().numpy()
    dst_shape = (n,) + dst_hw + (c,) if nhwc else (n, c) + dst_hw
    got = lib.run(case["api"], case["backward"], src, dst_shape, storage, acl, fmt, case)
    if case["dtype"] == "bfloat16":
        got = (got.astype(np.uint32) << 16).view(np.float32)
    got = got.astype(np.float64)
    if nhwc:
        got = got.transpose(0, 3, 1, 2)
    golden = torch_result(case, x64)
    b = case["backward"]
    copy = b and case["kind"] == "cubic" and case["in_h"] == case["out_h"] and case["in_w"] == case["out_w"]
    mh = weights(case["kind"], case["in_h"], case["out_h"], case["align"], case["scales_h"], b, copy)
    mw = weights(case["kind"], case["in_w"], case["out_w"], case["align"], case["scales_w"], b, copy)
    own = apply(mh, mw, x64, case["backward"])
    agree = np.max(np.abs(own - golden) / (1.0 + np.abs(golden))) if golden.size else 0.0
    if agree > 1e-11:
        return False, "the runner's weights differ from torch float64 by %.3g" % agree
    absum = apply(np.abs(mh), np.abs(mw), np.abs(x64), case["backward"])
    taps = apply((mh != 0).astype(float), (mw != 0).astype(float), np.abs(x64), case["backward"])
    count = lambda m, b: int((m != 0).sum(axis=0 if b else 1).max())
    terms = count(mh, case["backward"]) + count(mw, case["backward"])
    bound = (e_out + 2.0 * (terms + 4) * u_acc) * absum + 2.0**-46 * taps + tiny
    err = np.abs(got - golden)
    ratio = np.divide(err, bound, out=np.where(err > 0, np.inf, 0.0), where=bound > 0)
    worst = float(np.max(ratio)) if err.size else 0.0
    ok = bool(np.all(err <= bound))
    return ok, "worst error / bound %.3f" % worst


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", default=os.environ.get("TRILINEAR3D_LIB", "build/libtrilinear3d.so"))
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    lib = Library(args.lib)
    rnd = np.random.default_rng(SEED)
    cases = [c for c in make_cases() if args.only in c["name"]]
    failed = 0
    per_api = {}
    for case in cases:
        try:
            ok, text = run_case(lib, case, rnd)
        except RuntimeError as e:
            ok, text = False, str(e)
        per_api.setdefault(case["api"], [0, 0])[0 if ok else 1] += 1
        if not ok:
            failed += 1
            print("FAIL %s %s %s %dx%d -> %dx%d align=%d scales=(%g,%g) N=%d C=%d: %s" % (
                case["name"], case["dtype"], case["format"], case["in_h"], case["in_w"], case["out_h"],
                case["out_w"], case["align"], case["scales_h"], case["scales_w"], case["n"], case["c"], text))
    for api, (passed, bad) in sorted(per_api.items()):
        print("%-36s %4d passed %4d failed" % (api, passed, bad))
    print("cubic system tests: %d cases, %d failed" % (len(cases), failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
