#!/usr/bin/python3
"""System tests of trilinear3d: runs tests/st/cases.json through the library's public C API: the 3-D pair
and the linear group (LINEAR_OPS: aclnnUpsampleBilinear2d, aclnnUpsampleLinear1d, aclnnUpsampleBilinear2dBackward
V1 and V2, aclnnUpsampleLinear1dBackward), whose 2-D and 1-D problems run here as 5-D ones with unit D (and H)
axes, each with the scales its own rule uses (used_scales).

Run with Debian's system python (it has python3-torch 1.13 and numpy):

    /usr/bin/python3 tests/st/run_st.py --lib build/libtrilinear3d.so --all          # every case
    /usr/bin/python3 tests/st/run_st.py --lib build/libtrilinear3d.so --skip-large   # what ctest runs

Per case:
  1. gradOut (backward) / self (forward) is drawn from the case's seed and rounded to the case's dtype;
     that stored tensor is the input of everything below.
  2. It is written into aclrtMalloc'ed memory through the tensor's view (contiguous, permuted or
     sliced strides + offset + storage dims; storage outside the view holds NaN, the output's storage is
     filled with a NaN canary), and the operator is run through aclCreateTensor / aclCreateIntArray /
     ...GetWorkspaceSize / run / aclrtSynchronizeStream, all by ctypes.
  3. Golden: PyTorch's float64 CPU kernel (torch.ops.aten.upsample_trilinear3d[_backward],
     upsample_bilinear2d[_backward], upsample_linear1d[_backward]) with the scales passed only where the
     operator uses them (used_scales; PyTorch's own rule is per axis), cross-checked against this file's own float64
     reference (the separable form of docs/spec.md §2's 8-corner formula, with the non-finite classes
     tracked exactly, see Reference); for float64 cases the golden is that reference in long double.
  4. docs/spec.md §5: the element-wise bound, the comparison with PyTorch's own error in the case's dtype
     (float32, bfloat16, float64; PyTorch 1.13 has no fp16 CPU kernel), the fp16 overflow rule and the
     non-finite class rule; plus: the output's storage outside its view is unchanged.
Exit status: 0 when every case passed, 1 otherwise (2 for usage / set-up errors).
"""
import argparse
import ctypes
import json
import math
import os
import sys
import time

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# ---- CANN constants (include/acl/acl_base.h, aclnn/aclnn_base.h) -------------------------------------
ACL_FLOAT, ACL_FLOAT16, ACL_DOUBLE, ACL_BF16 = 0, 1, 11, 27
FORMAT_CODE = {"ND": 2, "NDHWC": 27, "NCDHW": 30, "NCHW": 0, "NHWC": 1, "NCL": 47}
CHANNELS_LAST = ("NDHWC", "NHWC")


class LinearOp:
    """A linear-group operator: its spatial rank, direction, C names and scales rule ("both": all of its
    scales when all give the sizes, "none": ignored, "one": its scale when it gives the size)."""

    def __init__(self, rank, backward, api, rule):
        self.rank, self.backward, self.api, self.rule = rank, backward, api, rule


LINEAR_OPS = {
    "bilinear2d": LinearOp(2, False, "aclnnUpsampleBilinear2d", "both"),
    "linear1d": LinearOp(1, False, "aclnnUpsampleLinear1d", "one"),
    "bilinear2d_backward": LinearOp(2, True, "aclnnUpsampleBilinear2dBackward", "none"),
    "bilinear2d_backward_v2": LinearOp(2, True, "aclnnUpsampleBilinear2dBackwardV2", "both"),
    "linear1d_backward": LinearOp(1, True, "aclnnUpsampleLinear1dBackward", "one"),
}


# Short names in the per-case lines.
OP_LABEL = {"backward": "bwd", "forward": "fwd", "bilinear2d": "bil2d", "linear1d": "lin1d",
            "bilinear2d_backward": "bil2dB", "bilinear2d_backward_v2": "bil2dB2", "linear1d_backward": "lin1dB"}


def case_rank(case):
    """The spatial rank of the case's operator (3 for the 3-D pair)."""
    return LINEAR_OPS[case["op"]].rank if case["op"] in LINEAR_OPS else 3


def is_backward(case):
    return case["op"] == "backward" or (case["op"] in LINEAR_OPS and LINEAR_OPS[case["op"]].backward)


def sizes5(case):
    """(input_size as 5-D [N, C, D, H, W], output_size as 3-D [oD, oH, oW], scales as 3 values): the linear
    group's sizes with unit D (and H) axes, their scales on the axes they have (0 on the others)."""
    pad = 3 - case_rank(case)
    n_c = case["input_size"][:2]
    return (n_c + [1] * pad + case["input_size"][2:], [1] * pad + case["output_size"],
            [0.0] * pad + case["scales"])


def used_scales(case):
    """The D, H, W user scales the operator uses (0: the sizes decide): the 3-D ops all three when all are
    > 0; the linear group by its rule, scales that give the sizes (floor(in * s) == out) only."""
    ins, outs, sc = sizes5(case)
    if case["op"] not in LINEAR_OPS:
        return list(sc) if all(s > 0 for s in sc) else [0.0, 0.0, 0.0]
    rank, rule = case_rank(case), LINEAR_OPS[case["op"]].rule
    axes = range(3 - rank, 3)
    gives = all(sc[a] > 0 and math.floor(ins[2 + a] * sc[a]) == outs[a] for a in axes)
    if rule == "none" or not gives:
        return [0.0, 0.0, 0.0]
    return list(sc)
ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST = 1, 2
ACL_ERROR_REPEAT_INITIALIZE = 100002


class DType:
    def __init__(self, name, acl, storage, torch_dtype, precision, u_acc, e_out, nan_bits, pytorch_has):
        self.name = name
        self.acl = acl
        self.storage = np.dtype(storage)      # numpy type of the stored values (bf16: raw uint16 bits)
        self.torch = torch_dtype
        self.precision = precision            # significand bits, implicit bit included
        self.u_acc = u_acc
        self.e_out = e_out
        self.nan_bits = nan_bits              # canary: a quiet NaN with a payload, as raw bits
        self.pytorch_has = pytorch_has        # PyTorch 1.13 has a CPU kernel in this dtype

    def bits_dtype(self):
        return {2: np.uint16, 4: np.uint32, 8: np.uint64}[self.storage.itemsize]

    def from_values(self, x):
        """float32/float64 array -> stored representation (round to nearest even)."""
        if self.name == "bfloat16":
            t = torch.from_numpy(np.ascontiguousarray(x, dtype=np.float32)).to(torch.bfloat16)
            return t.view(torch.int16).numpy().view(np.uint16)
        return np.asarray(x).astype(self.storage)

    def to_f64(self, stored):
        if self.name == "bfloat16":
            return (stored.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
        return stored.astype(np.float64)

    def to_torch(self, stored):
        if self.name == "bfloat16":
            return torch.from_numpy(np.ascontiguousarray(stored).view(np.int16)).view(torch.bfloat16)
        return torch.from_numpy(np.ascontiguousarray(stored))

    def torch_to_f64(self, t):
        t = t.contiguous()
        if self.name == "bfloat16":
            return self.to_f64(t.view(torch.int16).numpy().view(np.uint16))
        return t.numpy().astype(np.float64)

    def ulp(self, x):
        """Spacing of the stored dtype at |x| (x >= 0)."""
        emin = {"float16": -14, "bfloat16": -126, "float32": -126, "float64": -1022}[self.name]
        e = emin if x <= 0 or not math.isfinite(x) else max(emin, math.frexp(x)[1] - 1)
        return math.ldexp(1.0, e - (self.precision - 1))


DTYPES = {
    "float32": DType("float32", ACL_FLOAT, np.float32, torch.float32, 24, 2.0**-24, 0.0, 0x7FC01234, True),
    "float16": DType("float16", ACL_FLOAT16, np.float16, torch.float16, 11, 2.0**-24, 2.0**-10, 0x7E34, False),
    "bfloat16": DType("bfloat16", ACL_BF16, np.uint16, torch.bfloat16, 8, 2.0**-24, 2.0**-7, 0x7FC5, True),
    "float64": DType("float64", ACL_DOUBLE, np.float64, torch.float64, 53, 2.0**-53, 0.0, 0x7FF8000000001234, True),
}


# ---- the library through its C API ------------------------------------------------------------------
class Library:
    def __init__(self, path):
        self.lib = lib = ctypes.CDLL(path)
        vp, i64p = ctypes.c_void_p, ctypes.POINTER(ctypes.c_int64)
        sig = {
            "aclInit": (ctypes.c_int, [ctypes.c_char_p]),
            "aclrtSetDevice": (ctypes.c_int, [ctypes.c_int32]),
            "aclrtCreateStream": (ctypes.c_int, [ctypes.POINTER(vp)]),
            "aclrtDestroyStream": (ctypes.c_int, [vp]),
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
            "aclnnUpsampleTrilinear3dBackwardGetWorkspaceSize": (
                ctypes.c_int32, [vp, vp, vp, ctypes.c_bool, ctypes.c_double, ctypes.c_double, ctypes.c_double, vp,
                                 ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(vp)]),
            "aclnnUpsampleTrilinear3dBackward": (ctypes.c_int32, [vp, ctypes.c_uint64, vp, vp]),
            "aclnnUpsampleTrilinear3dGetWorkspaceSize": (
                ctypes.c_int32, [vp, vp, ctypes.c_bool, ctypes.c_double, ctypes.c_double, ctypes.c_double, vp,
                                 ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(vp)]),
            "aclnnUpsampleTrilinear3d": (ctypes.c_int32, [vp, ctypes.c_uint64, vp, vp]),
            "aclnnUpsampleBilinear2dGetWorkspaceSize": (
                ctypes.c_int32, [vp, vp, ctypes.c_bool, ctypes.c_double, ctypes.c_double, vp,
                                 ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(vp)]),
            "aclnnUpsampleLinear1dGetWorkspaceSize": (
                ctypes.c_int32, [vp, vp, ctypes.c_bool, ctypes.c_double, vp, ctypes.POINTER(ctypes.c_uint64),
                                 ctypes.POINTER(vp)]),
            "aclnnUpsampleBilinear2dBackwardGetWorkspaceSize": (
                ctypes.c_int32, [vp, vp, vp, ctypes.c_bool, ctypes.c_double, ctypes.c_double, vp,
                                 ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(vp)]),
            "aclnnUpsampleBilinear2dBackwardV2GetWorkspaceSize": (
                ctypes.c_int32, [vp, vp, vp, ctypes.c_bool, ctypes.c_double, ctypes.c_double, vp,
                                 ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(vp)]),
            "aclnnUpsampleLinear1dBackwardGetWorkspaceSize": (
                ctypes.c_int32, [vp, vp, vp, ctypes.c_bool, ctypes.c_double, vp, ctypes.POINTER(ctypes.c_uint64),
                                 ctypes.POINTER(vp)]),
        }
        for op in LINEAR_OPS.values():
            sig[op.api] = (ctypes.c_int32, [vp, ctypes.c_uint64, vp, vp])
        for name, (res, args) in sig.items():
            fn = getattr(lib, name)
            fn.restype, fn.argtypes = res, args
        rc = lib.aclInit(None)
        if rc not in (0, ACL_ERROR_REPEAT_INITIALIZE):
            raise RuntimeError(f"aclInit failed: {rc}")
        self.check(lib.aclrtSetDevice(0), "aclrtSetDevice")
        self.stream = ctypes.c_void_p()
        self.check(lib.aclrtCreateStream(ctypes.byref(self.stream)), "aclrtCreateStream")

    def err_msg(self):
        msg = self.lib.aclGetRecentErrMsg()
        return msg.decode(errors="replace") if msg else ""

    def check(self, rc, what):
        if rc != 0:
            raise RuntimeError(f"{what} returned {rc}: {self.err_msg()}")

    def malloc(self, nbytes):
        p = ctypes.c_void_p()
        self.check(self.lib.aclrtMalloc(ctypes.byref(p), max(1, nbytes), 0), "aclrtMalloc")
        return p

    def upload(self, dev, dev_bytes, host):
        host = np.ascontiguousarray(host)
        self.check(self.lib.aclrtMemcpy(dev, dev_bytes, host.ctypes.data_as(ctypes.c_void_p), host.nbytes,
                                        ACL_MEMCPY_HOST_TO_DEVICE), "aclrtMemcpy H2D")

    def download(self, host, dev, dev_bytes):
        assert host.flags.c_contiguous and host.nbytes <= dev_bytes
        self.check(self.lib.aclrtMemcpy(host.ctypes.data_as(ctypes.c_void_p), host.nbytes, dev, host.nbytes,
                                        ACL_MEMCPY_DEVICE_TO_HOST), "aclrtMemcpy D2H")

    @staticmethod
    def i64(values):
        return (ctypes.c_int64 * len(values))(*[int(v) for v in values])

    def tensor(self, view, dtype, dev):
        """The view as an aclTensor of its rank (the linear group's: without the unit D (and H) axes)."""
        keep = view.kept_axes()
        dims = self.i64([view.dims[a] for a in keep])
        strides = self.i64([view.strides[a] for a in keep])
        storage = self.i64(view.storage_dims)
        t = self.lib.aclCreateTensor(dims, len(keep), dtype.acl, strides, view.offset, FORMAT_CODE[view.fmt],
                                     storage, len(view.storage_dims), dev)
        if not t:
            raise RuntimeError(f"aclCreateTensor returned null: {self.err_msg()}")
        return t

    def int_array(self, values):
        a = self.lib.aclCreateIntArray(self.i64(values), len(values))
        if not a:
            raise RuntimeError(f"aclCreateIntArray returned null: {self.err_msg()}")
        return a


# ---- views: how a logical tensor lies in its storage ---------------------------------------------------
def row_major(shape):
    strides, acc = [0] * len(shape), 1
    for d in range(len(shape) - 1, -1, -1):
        strides[d] = acc
        acc *= shape[d]
    return strides


class View:
    """View dims (in the tensor's format), strides, offset and storage dims of one tensor.
    contiguous: row-major; permuted: a dense storage in another dimension order (e.g. an NCDHW view
    of channels-last memory); sliced: every 2nd element along 1-2 dims, padding and a start offset in
    every dim, of a storage in row-major or another order, storage dims 1-D or the full shape."""

    def __init__(self, logical_shape, fmt, kind, rnd, rank=3):
        n, c, d, h, w = logical_shape
        self.fmt = fmt
        self.rank = rank                      # spatial dims of the aclTensor (the others are unit axes)
        self.dims = [n, d, h, w, c] if fmt in CHANNELS_LAST else [n, c, d, h, w]
        dims = self.dims
        if kind == "contiguous":
            self.strides, self.offset, self.storage_dims = row_major(dims), 0, list(dims)
        elif kind == "permuted":
            perm = list(range(5))
            while perm == list(range(5)):
                perm = [int(p) for p in rnd.permutation(5)]
            phys = [dims[p] for p in perm]
            ps = row_major(phys)
            self.strides = [0] * 5
            for j, p in enumerate(perm):
                self.strides[p] = ps[j]
            self.offset, self.storage_dims = 0, phys
        elif kind == "sliced":
            steps = [1] * 5
            for a in rnd.choice(5, size=int(rnd.integers(1, 3)), replace=False):
                steps[int(a)] = 2
            pads = [int(rnd.integers(0, 3)) for _ in range(5)]
            phys_of = [dims[a] * steps[a] + pads[a] for a in range(5)]
            perm = [int(p) for p in rnd.permutation(5)] if rnd.integers(0, 2) else list(range(5))
            phys = [phys_of[p] for p in perm]
            ps = row_major(phys)
            pstride = [0] * 5
            for j, p in enumerate(perm):
                pstride[p] = ps[j]
            starts = [int(rnd.integers(0, pads[a] + 1)) for a in range(5)]
            self.strides = [steps[a] * pstride[a] for a in range(5)]
            self.offset = sum(starts[a] * pstride[a] for a in range(5))
            total = math.prod(phys)
            self.storage_dims = [total] if rnd.integers(0, 2) else phys   # 1-D storage is common in CANN
        else:
            raise ValueError(kind)
        self.storage_elems = math.prod(self.storage_dims)
        extent = self.offset + sum((dims[a] - 1) * self.strides[a] for a in range(5)) + 1
        assert extent <= self.storage_elems

    def kept_axes(self):
        """The positions of the aclTensor's dims among the 5-D view dims: all, or without D (and H)."""
        d = 1 if self.fmt in CHANNELS_LAST else 2
        dropped = set(range(d, d + 3 - self.rank))
        return [a for a in range(5) if a not in dropped]

    def is_dense_logical(self):
        """Storage is exactly the logical NCDHW tensor (no copy needed)."""
        return self.fmt not in CHANNELS_LAST and self.strides == row_major(self.dims) and self.offset == 0

    def strided(self, storage):
        """The view of a host storage array, indexed in logical NCDHW order."""
        isz = storage.itemsize
        v = np.lib.stride_tricks.as_strided(storage[self.offset:], shape=self.dims,
                                            strides=[s * isz for s in self.strides], writeable=True)
        return v.transpose(0, 4, 1, 2, 3) if self.fmt in CHANNELS_LAST else v


# ---- per-axis math of docs/spec.md §2 (the double math of src/common/resample_math.h) ------------------
class Axis:
    """unit: a unit axis that the operator does not have (PyTorch's kernels of rank 1 and 2 have no D (and H)
    axis), one tap of weight 1 instead of docs/spec.md §2's identity axis with its zero-weight twin."""

    def __init__(self, n_in, n_out, align, user_scale, unit=False):
        self.n_in, self.n_out, self.align = n_in, n_out, align
        if n_in == n_out:
            scale = 1.0
        elif align:
            scale = (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
        elif user_scale > 0:
            scale = 1.0 / user_scale
        else:
            scale = n_in / n_out
        self.scale = scale
        o = np.arange(n_out, dtype=np.float64)
        src = scale * o if align else np.maximum(0.0, scale * (o + 0.5) - 0.5)
        i0 = np.minimum(np.floor(src).astype(np.int64), n_in - 1)
        # An identity axis (n_in == n_out) has both taps on o, weights 1 and 0, as PyTorch's
        # compute_source_index_and_lambda and src/common/resample_math.h have it: an inf at o gives NaN
        # at o only. Elsewhere i1 = min(i0 + 1, in - 1).
        i1 = i0.copy() if n_in == n_out else np.minimum(i0 + 1, n_in - 1)
        l1 = np.clip(src - i0, 0.0, 1.0)
        l0 = 1.0 - l1
        self.i0, self.i1, self.l0, self.l1 = i0, i1, l0, l1
        # docs/spec.md §5's T: the taps a rounded source index can select (as tests/ut/reference does):
        # i0, i1 and, where src is within rounding of an integer k, k-1, k, k+1; identity axes only i0.
        resize = n_in != n_out
        k = np.rint(src)
        near = resize & (np.abs(src - k) <= 1e-9 * np.maximum(1.0, np.abs(src)))
        cands = []
        for oi in range(n_out):
            s = {int(i0[oi])}
            if resize:
                s.add(int(i1[oi]))
                if near[oi]:
                    s.update(min(max(int(k[oi]) + dk, 0), n_in - 1) for dk in (-1, 0, 1))
            cands.append(sorted(s))
        width = max(len(s) for s in cands)
        cidx = np.zeros((width, n_out), np.int64)
        cw = np.zeros((width, n_out), np.float64)
        for oi, s in enumerate(cands):
            cidx[:len(s), oi] = s
            cw[:len(s), oi] = 1.0
        self.near = near
        self.m = -(-n_out // n_in) + 2          # docs/spec.md §5: m = ceil(out/in) + 2
        one = np.ones(n_out)
        # Operators: lists of (source index per output, weight per output) columns.
        self.ops = {
            "W": [(i0, l0), (i1, l1)],                                           # the weights
            "R": [(i0, one), (i1, one)],                                         # corner-term counts
            "P": [(i0, (l0 > 0).astype(np.float64)), (i1, (l1 > 0).astype(np.float64))],  # positive weight
            "C": [(cidx[j], cw[j]) for j in range(width)],                       # candidate taps (T)
            "Cfar": [(cidx[j], cw[j] * (~near)) for j in range(width)],          # ... of non-near sources
        }
        if unit:
            self.ops["W"], self.ops["R"] = [(i0, one)], [(i0, one)]


def apply_axis(arr, axis, cols, n_in, n_out, backward, dtype):
    """One axis of arr through one operator (columns of (index, weight) per output position).
    backward: scatter from the n_out gradOut positions to the n_in gradInput ones (the transpose of
    the forward); forward: gather. Only finite data comes here, so zero-weight terms are skipped."""
    arr = arr.astype(dtype, copy=False)
    if not backward:
        shape = [1] * arr.ndim
        shape[axis] = n_out
        res = None
        for idx, w in cols:
            term = np.take(arr, idx, axis=axis) * w.astype(dtype).reshape(shape)
            res = term if res is None else res + term
        return res
    shape = list(arr.shape)
    shape[axis] = n_in
    res = np.zeros(shape, dtype)
    lead = (slice(None),) * axis
    if axis < arr.ndim - 1:
        # D or H: arr[..., o, ...] is made of contiguous rows; one multiply-add per output position.
        tmp = np.empty(arr[lead + (0,)].shape, dtype)
        for idx, w in cols:
            wd = w.astype(dtype)
            for o in range(n_out):
                if w[o] != 0.0:
                    np.multiply(arr[lead + (o,)], wd[o], out=tmp)
                    res[lead + (int(idx[o]),)] += tmp
        return res
    # W (innermost, strided per position): per column, sum runs of equal index with reduceat.
    for idx, w in cols:
        keep = np.flatnonzero(w != 0.0)
        if keep.size == 0:
            continue
        order = keep[np.argsort(idx[keep], kind="stable")]
        sidx = idx[order]
        starts = np.flatnonzero(np.r_[True, sidx[1:] != sidx[:-1]])
        src = arr if np.array_equal(order, np.arange(n_out)) else np.take(arr, order, axis=axis)
        prod = src * w[order].astype(dtype)
        res[..., sidx[starts]] += np.add.reduceat(prod, starts, axis=axis)
    return res


def apply3(arr, axes, op, backward, dtype=np.float64):
    """Applies operator op along the last three axes (D, H, W) of arr, the most shrinking axis first."""
    order = sorted(range(3), key=lambda a: (axes[a].n_in / axes[a].n_out) if backward
                   else (axes[a].n_out / axes[a].n_in))
    for a in order:
        ax = axes[a]
        arr = apply_axis(arr, arr.ndim - 3 + a, ax.ops[op], ax.n_in, ax.n_out, backward, dtype)
    return arr


class Reference:
    """The project's float64 reference of one chunk (n, c, D, H, W) of the input: docs/spec.md §2's direct
    8-corner formula (every corner term, zero weights included) in separable form.

    Finite part: the three per-axis weight operators applied to the input with its non-finite entries
    set to 0 (a finite computation, so the order of the sums cannot lose a NaN). Non-finite part, as
    the direct formula gives it: with corner-term counts R (all terms, coinciding corners counted
    twice) and P (terms of positive weight), both products over the axes and hence separable,
      NaN    if a NaN reaches the element, or an inf reaches it through a zero weight (R > P),
             or both +inf and -inf reach it with positive weight;
      +-inf  if only +inf (only -inf) reaches it; finite otherwise.
    A = the weights applied to |x|; T = unit weights on the candidate taps; exempt = reachable from a
    non-finite value through a near-integer source index (candidates of all sources minus those of
    sources with no near-integer axis > 0). hp: also the finite part in long double."""

    def __init__(self, g, axes, backward, hp=False):
        finite = np.isfinite(g)
        any_nonfinite = not finite.all()
        F = np.where(finite, g, 0.0) if any_nonfinite else g
        absF = np.abs(F)
        self.value = apply3(F, axes, "W", backward)
        self.A = apply3(absF, axes, "W", backward)
        self.T = apply3(absF, axes, "C", backward)
        self.value_hp = apply3(F, axes, "W", backward, np.longdouble) if hp else None
        self.exempt = np.zeros(self.value.shape, bool)
        if not any_nonfinite:
            return

        def count(mask, op):   # exact: small integers in float64
            return apply3(mask.astype(np.float64), axes, op, backward)

        def classes(r_op, p_op):
            nan_r = count(np.isnan(g), r_op)
            pinf, ninf = g == np.inf, g == -np.inf
            p_r, p_p, n_r, n_p = count(pinf, r_op), count(pinf, p_op), count(ninf, r_op), count(ninf, p_op)
            cls = np.zeros(self.value.shape, np.int8)
            cls[p_p > 0] = 2
            cls[n_p > 0] = 3
            cls[(nan_r > 0) | (p_r > p_p) | (n_r > n_p) | ((p_p > 0) & (n_p > 0))] = 1
            return cls

        nf = ~finite
        self.exempt = (count(nf, "C") - count(nf, "Cfar")) > 0
        cls = classes("R", "P")
        for v in ([self.value, self.value_hp] if hp else [self.value]):
            v[cls == 1] = np.nan
            v[cls == 2] = np.inf
            v[cls == 3] = -np.inf


def direct_reference(x, axes, backward):
    """docs/spec.md §2 literally: loops over every output point and its 8 corners, every term added
    (zero weights included), in float64. Small problems only: it checks Reference (self_test)."""
    taps = [list(zip(zip(ax.i0, ax.i1), zip(ax.l0, ax.l1))) for ax in axes]
    n, c = x.shape[:2]
    dst = [ax.n_in for ax in axes] if backward else [ax.n_out for ax in axes]
    y = np.zeros((n, c) + tuple(dst))
    with np.errstate(invalid="ignore"):   # 0 * inf and inf - inf: NaN, as intended
        direct_loops(x, y, taps, axes, backward)
    return y


def direct_loops(x, y, taps, axes, backward):
    for od in range(axes[0].n_out):
        for oh in range(axes[1].n_out):
            for ow in range(axes[2].n_out):
                (id_, ld), (ih, lh), (iw, lw) = taps[0][od], taps[1][oh], taps[2][ow]
                for a in range(2):
                    for b in range(2):
                        for e in range(2):
                            wgt = ld[a] * lh[b] * lw[e]
                            if backward:
                                y[:, :, id_[a], ih[b], iw[e]] += wgt * x[:, :, od, oh, ow]
                            else:
                                y[:, :, od, oh, ow] += wgt * x[:, :, id_[a], ih[b], iw[e]]


def self_test():
    """Checks Reference (separable, classes tracked by counts) against direct_reference on small
    random problems with NaN and +-inf, both ops, identity and size-1 axes; raises on a mismatch."""
    rnd = np.random.default_rng(12345)
    for trial in range(60):
        backward = trial % 2 == 0
        align = trial % 3 == 0
        ins = [int(v) for v in rnd.integers(1, 6, size=3)]
        outs = [int(v) if rnd.integers(0, 4) else ins[a] for a, v in enumerate(rnd.integers(1, 9, size=3))]
        axes = [Axis(ins[a], outs[a], align, 0.0) for a in range(3)]
        src = outs if backward else ins
        x = rnd.standard_normal((2, 1) + tuple(src))
        flat = x.reshape(-1)
        for v in (np.nan, np.inf, -np.inf)[: trial % 4]:
            flat[rnd.integers(0, flat.size, size=int(rnd.integers(1, 3)))] = v
        ref = Reference(x, axes, backward, hp=True)
        direct = direct_reference(x, axes, backward)
        if not np.array_equal(class_of(direct), class_of(ref.value)):
            raise AssertionError(f"self-test {trial}: classes differ for {ins} {outs} backward={backward}")
        fin = np.isfinite(direct)
        if not np.allclose(direct[fin], ref.value[fin], rtol=1e-13, atol=1e-13) or \
                not np.allclose(direct[fin], ref.value_hp[fin].astype(np.float64), rtol=1e-13, atol=1e-13):
            raise AssertionError(f"self-test {trial}: values differ for {ins} {outs} backward={backward}")


def class_of(x):
    """0 finite, 1 NaN, 2 +inf, 3 -inf."""
    c = np.zeros(x.shape, np.int8)
    c[np.isnan(x)] = 1
    c[x == np.inf] = 2
    c[x == -np.inf] = 3
    return c


# ---- one case ----------------------------------------------------------------------------------------
CHUNK_ELEMS = 1 << 25   # elements of the larger tensor per chunk of (n, c) planes (bounds the memory)


class CaseResult:
    def __init__(self, case):
        self.case = case
        self.ok = True
        self.messages = []
        self.excess = 0.0            # worst |ours - golden| / bound over the case (inf: class mismatch)
        self.pt_ratio = None         # worst of (max abs, RMS) error / allowed by the PyTorch rule
        self.ref_agree = 0.0         # worst |PyTorch f64 - reference| / (A + T) over finite elements
        self.seconds = 0.0
        self.lib_seconds = 0.0
        self.notes = {}              # element counts worth showing: non-finite classes, fp16 inf, exempt

    def note(self, key, count):
        if count:
            self.notes[key] = self.notes.get(key, 0) + int(count)

    def fail(self, msg):
        self.ok = False
        self.messages.append(msg)


def torch_scales(case, axes):
    """The scales to give PyTorch so that it does docs/spec.md §2's math: the ones the operator uses
    (used_scales), never with align_corners (PyTorch ignores them there anyway) and not on identity
    axes (docs/spec.md §2: in == out is a copy, scale 1; PyTorch would use 1/s)."""
    sc = used_scales(case)
    if case["align_corners"]:
        return [None, None, None]
    return [None if axes[a].n_in == axes[a].n_out or sc[a] <= 0 else float(sc[a]) for a in range(3)]


def torch_op(case, x, axes):
    """PyTorch's kernel of the case's operator on x (5-D, logical NCDHW; the linear group's as 4-D / 3-D
    tensors without the unit axes), its result 5-D again."""
    sd, sh, sw = torch_scales(case, axes)
    ins, outs, _ = sizes5(case)
    align = case["align_corners"]
    in_size = list(x.shape[:2]) + ins[2:]
    rank = case_rank(case)
    if rank == 3:
        if case["op"] == "backward":
            return torch.ops.aten.upsample_trilinear3d_backward(x, outs, in_size, align, sd, sh, sw)
        return torch.ops.aten.upsample_trilinear3d(x, outs, align, sd, sh, sw)
    shape5 = list(x.shape)
    x = x.reshape(shape5[:2] + shape5[5 - rank:])           # the memory format (channels last) is kept
    if rank == 2:
        if is_backward(case):
            y = torch.ops.aten.upsample_bilinear2d_backward(x, outs[1:], in_size[:2] + in_size[3:], align, sh, sw)
        else:
            y = torch.ops.aten.upsample_bilinear2d(x, outs[1:], align, sh, sw)
    elif is_backward(case):
        y = torch.ops.aten.upsample_linear1d_backward(x, outs[2:], in_size[:2] + in_size[4:], align, sw)
    else:
        y = torch.ops.aten.upsample_linear1d(x, outs[2:], align, sw)
    return y.reshape(list(y.shape[:2]) + [1] * (3 - rank) + list(y.shape[2:]))


def draw_values(case, dt, shape, rnd):
    """The op's input in its stored dtype (logical NCDHW), drawn plane by plane from the seed:
    normal N(0,1), shift_pos / shift_neg N(+-100, std 25), nonfinite N(0,1) with 1-3 each of NaN,
    +inf and -inf at random places."""
    n_planes = shape[0] * shape[1]
    plane = math.prod(shape[2:])
    gen_dtype = np.float64 if dt.name == "float64" else np.float32
    kind = case["values"]
    mean = {"shift_pos": 100.0, "shift_neg": -100.0}.get(kind, 0.0)
    std = 25.0 if kind in ("shift_pos", "shift_neg") else 1.0
    out = np.empty((n_planes, plane), dt.storage)
    for p in range(n_planes):
        x = rnd.standard_normal(plane, dtype=gen_dtype)
        if kind in ("shift_pos", "shift_neg"):
            x = x * gen_dtype(std) + gen_dtype(mean)
        out[p] = dt.from_values(x)
    flat = out.reshape(-1)
    if kind == "nonfinite":
        count = int(rnd.integers(1, 4))
        for v in (np.nan, np.inf, -np.inf):
            pos = rnd.integers(0, flat.size, size=count)
            flat[pos] = dt.from_values(np.full(count, v, np.float32))
    return out.reshape(shape)


def chunks_of(shape, other_plane):
    """(n0, n1, c0, c1) blocks of whole planes, at most CHUNK_ELEMS elements of the larger tensor."""
    n, c = shape[:2]
    plane = max(math.prod(shape[2:]), other_plane, 1)
    if c * plane <= CHUNK_ELEMS:
        step = max(1, CHUNK_ELEMS // (c * plane))
        return [(n0, min(n, n0 + step), 0, c) for n0 in range(0, n, step)]
    step = max(1, CHUNK_ELEMS // plane)
    return [(n0, n0 + 1, c0, min(c, c0 + step)) for n0 in range(n) for c0 in range(0, c, step)]


def run_library(lib, case, dt, backward, src_view, dst_view, src_bits, res):
    """Runs the op on src_bits through the views; returns the output (logical NCDHW, stored dtype)
    or None after recording the failure."""
    isz = dt.storage.itemsize
    bits_t = dt.bits_dtype()
    src_bytes, dst_bytes = src_view.storage_elems * isz, dst_view.storage_elems * isz
    src_dev = dst_dev = ws_dev = None
    tensors, arrays = [], []
    try:
        src_dev, dst_dev = lib.malloc(src_bytes), lib.malloc(dst_bytes)
        if src_view.is_dense_logical():
            lib.upload(src_dev, src_bytes, src_bits.reshape(-1))
        else:   # NaN everywhere the view does not cover: reading outside it would show
            storage = np.full(src_view.storage_elems, dt.nan_bits, bits_t).view(dt.storage)
            src_view.strided(storage)[...] = src_bits
            lib.upload(src_dev, src_bytes, storage)
            del storage
        canary = np.full(dst_view.storage_elems, dt.nan_bits, bits_t)
        lib.upload(dst_dev, dst_bytes, canary)

        tensors.append(lib.tensor(src_view, dt, src_dev))
        tensors.append(lib.tensor(dst_view, dt, dst_dev))
        arrays.append(lib.int_array(case["output_size"]))
        ws_size, executor = ctypes.c_uint64(0), ctypes.c_void_p()
        sd, sh, sw = sizes5(case)[2]
        t0 = time.time()
        linear = LINEAR_OPS.get(case["op"])
        if linear is not None:
            rc = linear_get_workspace_size(lib, case, linear, tensors, arrays, src_view, dst_view, sh, sw,
                                           ws_size, executor)
        elif backward:
            arrays.append(lib.int_array(case["input_size"]))
            rc = lib.lib.aclnnUpsampleTrilinear3dBackwardGetWorkspaceSize(
                tensors[0], arrays[0], arrays[1], case["align_corners"], sd, sh, sw, tensors[1],
                ctypes.byref(ws_size), ctypes.byref(executor))
        else:
            rc = lib.lib.aclnnUpsampleTrilinear3dGetWorkspaceSize(
                tensors[0], arrays[0], case["align_corners"], sd, sh, sw, tensors[1], ctypes.byref(ws_size),
                ctypes.byref(executor))
        if rc != 0:
            res.fail(f"GetWorkspaceSize returned {rc}: {lib.err_msg()}")
            return None
        # CANN: tensors and arrays may go right after GetWorkspaceSize.
        for t in tensors:
            lib.lib.aclDestroyTensor(t)
        for a in arrays:
            lib.lib.aclDestroyIntArray(a)
        tensors, arrays = [], []
        if ws_size.value > 0:
            ws_dev = lib.malloc(ws_size.value)
        run = lib.lib.aclnnUpsampleTrilinear3dBackward if backward else lib.lib.aclnnUpsampleTrilinear3d
        if linear is not None:
            run = getattr(lib.lib, linear.api)
        rc = run(ws_dev, ws_size.value, executor, lib.stream)
        if rc != 0:
            res.fail(f"run returned {rc}: {lib.err_msg()}")
            return None
        rc = lib.lib.aclrtSynchronizeStream(lib.stream)
        if rc != 0:
            res.fail(f"aclrtSynchronizeStream returned {rc}: {lib.err_msg()}")
            return None
        res.lib_seconds = time.time() - t0
        out_storage = np.empty(dst_view.storage_elems, bits_t)
        lib.download(out_storage, dst_dev, dst_bytes)
    finally:
        for t in tensors:
            lib.lib.aclDestroyTensor(t)
        for a in arrays:
            lib.lib.aclDestroyIntArray(a)
        for p in (src_dev, dst_dev, ws_dev):
            if p is not None:
                lib.lib.aclrtFree(p)
    # the output's storage outside its view is untouched
    touched = np.zeros(dst_view.storage_elems, bool)
    dst_view.strided(touched)[...] = True
    changed = np.flatnonzero((out_storage != canary) & ~touched)
    if changed.size:
        res.fail(f"{changed.size} storage elements outside the output's view were written (first at storage "
                 f"index {int(changed[0])})")
    return np.ascontiguousarray(dst_view.strided(out_storage.view(dt.storage)))


def linear_get_workspace_size(lib, case, linear, tensors, arrays, src_view, dst_view, sh, sw, ws_size, executor):
    """GetWorkspaceSize of a linear-group op (arrays[0]: outputSize); a backward's inputSize is N, C and the
    spatial sizes in the order of a tensor's format (NHWC: N, H, W, C), as CANN reads it: V1 by out's, V2
    by gradOut's."""
    f = lib.lib
    align = case["align_corners"]
    ws, ex = ctypes.byref(ws_size), ctypes.byref(executor)
    if not linear.backward:
        if linear.rank == 2:
            return f.aclnnUpsampleBilinear2dGetWorkspaceSize(tensors[0], arrays[0], align, sh, sw, tensors[1], ws, ex)
        return f.aclnnUpsampleLinear1dGetWorkspaceSize(tensors[0], arrays[0], align, sw, tensors[1], ws, ex)
    in_size = list(case["input_size"])
    ordered_by = dst_view if case["op"] == "bilinear2d_backward" else src_view
    if linear.rank == 2 and ordered_by.fmt == "NHWC":
        in_size = [in_size[0], in_size[2], in_size[3], in_size[1]]
    arrays.append(lib.int_array(in_size))
    fn = getattr(f, linear.api + "GetWorkspaceSize")
    if linear.rank == 2:
        return fn(tensors[0], arrays[0], arrays[1], align, sh, sw, tensors[1], ws, ex)
    return fn(tensors[0], arrays[0], arrays[1], align, sw, tensors[1], ws, ex)


def run_case(lib, case):
    res = CaseResult(case)
    t_start = time.time()
    dt = DTYPES[case["dtype"]]
    backward = is_backward(case)
    ins5, outs5, _ = sizes5(case)
    n, c = ins5[:2]
    in_sp, out_sp = ins5[2:], outs5
    src_shape = [n, c] + (out_sp if backward else in_sp)      # the op's input (gradOut / self)
    dst_shape = [n, c] + (in_sp if backward else out_sp)      # the op's output (gradInput / out)
    scales = used_scales(case)
    axes = [Axis(in_sp[a], out_sp[a], case["align_corners"], scales[a]) for a in range(3)]
    rnd = np.random.default_rng(case["seed"])
    rank = case_rank(case)
    src_view = View(src_shape, case["format"], case["view"], rnd, rank)
    dst_view = View(dst_shape, case["result_format"], case["view"], rnd, rank)
    src_bits = draw_values(case, dt, src_shape, rnd)
    ours_bits = run_library(lib, case, dt, backward, src_view, dst_view, src_bits, res)
    if ours_bits is not None:
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):   # non-finite data is expected
            check(res, case, dt, axes, backward, src_bits, ours_bits)
    res.seconds = time.time() - t_start
    return res


def check(res, case, dt, axes, backward, src_bits, ours_bits):
    """docs/spec.md §5 on the op's output, chunk by chunk of (n, c) planes (planes are independent)."""
    k = 2.0 * sum(ax.m for ax in axes)                        # k = 2 (m_D + m_H + m_W)
    size_sum = float(sum(sizes5(case)[0][2:]))                # iD + iH + iW
    hp = dt.name == "float64"
    channels_last = case["format"] in CHANNELS_LAST
    bad = class_bad = ref_bad = count = 0
    worst, ref_msg = None, None
    err_max = pt_max = err_sq = pt_sq = max_golden = 0.0
    for n0, n1, c0, c1 in chunks_of(list(ours_bits.shape), math.prod(src_bits.shape[2:])):
        x_bits = src_bits[n0:n1, c0:c1]
        x = dt.to_f64(x_bits)
        got = dt.to_f64(ours_bits[n0:n1, c0:c1])
        ref = Reference(x, axes, backward, hp=hp)
        exempt = ref.exempt
        # golden: PyTorch float64, which must agree with the reference: finite values within
        # 1e-12 (A + T) (T: a near-integer source may pick the other tap), classes equal to the
        # reference's (identity axes included, see Axis), outside the exempt elements.
        pt64 = torch_op(case, torch.from_numpy(x), axes).numpy()
        cls_pt, cls_ref = class_of(pt64), class_of(ref.value)
        # The linear group's unit axes (docs/spec.md §2: identity axes of size 1 -> 1) turn an inf into NaN
        # (1 * inf + 0 * inf); PyTorch's kernels of rank 1 and 2 have no such axis and keep the inf. There,
        # either class is accepted (unit_nan, counted and shown: "unit-axis-nan"), PyTorch's checked against
        # the reference without the unit axes' zero-weight twins.
        unit_nan = np.zeros(cls_ref.shape, bool)
        rank = case_rank(case)
        if rank < 3 and not np.isfinite(x).all():
            no_unit = [Axis(1, 1, ax.align, 0.0, unit=True) if a < 3 - rank else ax for a, ax in enumerate(axes)]
            cls_no_unit = class_of(Reference(x, no_unit, backward).value)
            unit_nan = (cls_ref == 1) & (cls_no_unit >= 2) & ~exempt
            ref_bad_unit = unit_nan & (cls_pt != cls_no_unit)
        else:
            ref_bad_unit = unit_nan
        fin = (cls_ref == 0) & (cls_pt == 0) & ~exempt
        diff = np.where(fin, np.abs(pt64 - ref.value), 0.0)
        disagree = ((cls_pt != cls_ref) & ~exempt & ~unit_nan) | ref_bad_unit | (diff > 1e-12 * (ref.A + ref.T))
        if disagree.any():
            ref_bad += int(np.count_nonzero(disagree))
            i = np.unravel_index(int(np.flatnonzero(disagree)[0]), got.shape)
            ref_msg = (f"at (n,c,d,h,w)={tuple(int(v) for v in i)} + ({n0},{c0},0,0,0): PyTorch {pt64[i]!r}, "
                       f"reference {ref.value[i]!r}, A {ref.A[i]!r}")
        with np.errstate(divide="ignore", invalid="ignore"):
            at = ref.A + ref.T
            res.ref_agree = max(res.ref_agree, float(np.max(np.where(fin & (at > 0), diff / at, 0.0))))
        # The golden's class is docs/spec.md §6's (the reference's); its finite values PyTorch's (float64 cases:
        # the long double reference).
        golden = ref.value_hp if hp else np.where(cls_ref == 0, pt64, ref.value)
        cls_g = cls_ref
        gabs = np.abs(golden).astype(np.float64)
        # the element-wise bound
        bound = k * dt.u_acc * ref.A + 4.0 * dt.u_acc * size_sum * ref.T + dt.e_out * gabs
        cls_got = class_of(got)
        gfin = cls_g == 0
        both = gfin & (cls_got == 0)
        with np.errstate(invalid="ignore"):
            err = np.where(both, np.abs(got.astype(golden.dtype) - golden), 0.0).astype(np.float64)
        ok = exempt | ((~gfin) & (cls_got == cls_g)) | (both & (err <= bound))
        if dt.name == "float16":   # overflow: +-inf of the golden's sign where |golden| >= 65520 - bound
            ok |= gfin & np.isinf(got) & (np.signbit(got) == np.signbit(golden)) & (gabs >= 65520.0 - bound)
        # The unit axes' NaN (see unit_nan) or PyTorch's inf.
        ok |= unit_nan & ((cls_got == 1) | (cls_got == cls_pt))
        # And straight against PyTorch: where its float64 result is NaN or +-inf, ours has that class.
        ok &= exempt | unit_nan | (cls_pt == 0) | (cls_got == cls_pt)
        with np.errstate(divide="ignore", invalid="ignore"):
            excess = np.where(both & ~exempt, np.where(bound > 0, err / bound, np.where(err > 0, np.inf, 0.0)), 0.0)
        excess[~ok & ~both] = np.inf
        res.note("nonfinite", np.count_nonzero(~gfin & ~exempt))
        res.note("exempt", np.count_nonzero(exempt))
        res.note("unit-axis-nan", np.count_nonzero(unit_nan & (cls_got == 1)))
        if dt.name == "float16":
            res.note("fp16-inf", np.count_nonzero(gfin & np.isinf(got) & ok))
        nbad = int(np.count_nonzero(~ok))
        bad += nbad
        class_bad += int(np.count_nonzero(~ok & ~both))
        w = np.unravel_index(int(np.argmax(excess)), got.shape)
        if excess.size and (worst is None or excess[w] > worst[0]):
            worst = (float(excess[w]), f"(n,c,d,h,w)={tuple(int(v) for v in w)} + ({n0},{c0},0,0,0): got "
                     f"{got[w]!r}, golden {float(golden[w])!r}, bound {bound[w]:.6g}, A {ref.A[w]:.6g}, "
                     f"T {ref.T[w]:.6g}")
        sel = both & ~exempt
        if sel.any():
            max_golden = max(max_golden, float(gabs[sel].max()))
        # PyTorch's own error in this dtype (max abs and RMS) on the same elements
        if dt.pytorch_has:
            xt = dt.to_torch(x_bits)
            if channels_last:   # the memory format survives torch_op's reshape to 4-D (channels_last)
                xt = xt.contiguous(memory_format=torch.channels_last_3d)
            pt_d = dt.torch_to_f64(torch_op(case, xt, axes))
            sel = sel & np.isfinite(pt_d)
            e_us = err[sel]
            e_pt = np.abs(pt_d.astype(golden.dtype)[sel] - golden[sel]).astype(np.float64)
            if e_us.size:
                err_max, pt_max = max(err_max, float(e_us.max())), max(pt_max, float(e_pt.max()))
                err_sq += float(np.dot(e_us, e_us))
                pt_sq += float(np.dot(e_pt, e_pt))
                count += int(e_us.size)
    # verdicts
    if ref_bad:
        res.fail(f"golden check: PyTorch float64 and the reference disagree at {ref_bad} elements; first {ref_msg}")
    res.excess = worst[0] if worst else 0.0
    if bad:
        res.fail(f"{bad} elements out of bound ({class_bad} non-finite where not allowed / class mismatch); "
                 f"worst {worst[1]}")
    if dt.pytorch_has and count:
        slack = 4.0 * dt.ulp(max_golden)
        rms_us, rms_pt = math.sqrt(err_sq / count), math.sqrt(pt_sq / count)
        allowed_max, allowed_rms = 2.0 * pt_max + slack, 2.0 * rms_pt + slack
        res.pt_ratio = max(err_max / allowed_max, rms_us / allowed_rms)
        res.pt_detail = (err_max, pt_max, rms_us, rms_pt, slack)
        if err_max > allowed_max:
            res.fail(f"max abs error {err_max:.6g} > 2 x PyTorch's {pt_max:.6g} + 4 ulp ({slack:.3g})")
        if rms_us > allowed_rms:
            res.fail(f"RMS error {rms_us:.6g} > 2 x PyTorch's {rms_pt:.6g} + 4 ulp ({slack:.3g})")


# ---- driver ------------------------------------------------------------------------------------------
def shape_text(case):
    n, c = case["input_size"][:2]
    i = "x".join(str(v) for v in case["input_size"][2:])
    o = "x".join(str(v) for v in case["output_size"])
    return f"{n}x{c}x[{i}]<-[{o}]" if is_backward(case) else f"{n}x{c}x[{i}]->[{o}]"


def summary(results):
    lines = [f"{'dtype':<9} {'format':<6} {'cases':>5} {'passed':>6} {'worst err/bound':>16} "
             f"{'worst err/allowed vs PyTorch':>29} {'golden vs reference':>20}"]
    rows = {}
    for r in results:
        row = rows.setdefault((r.case["dtype"], r.case["format"]), [0, 0, 0.0, None, 0.0])
        row[0] += 1
        row[1] += int(r.ok)
        row[2] = max(row[2], r.excess)
        if r.pt_ratio is not None:
            row[3] = r.pt_ratio if row[3] is None else max(row[3], r.pt_ratio)
        row[4] = max(row[4], r.ref_agree)
    dorder = {d: i for i, d in enumerate(DTYPES)}
    forder = {"NCDHW": 0, "NDHWC": 1, "ND": 2, "NCHW": 3, "NHWC": 4, "NCL": 5}
    total = [0, 0, 0.0]
    for (d, f), row in sorted(rows.items(), key=lambda kv: (dorder[kv[0][0]], forder[kv[0][1]])):
        pt = "n/a (no fp16 in PyTorch)" if row[3] is None else f"{row[3]:.3f}"
        lines.append(f"{d:<9} {f:<6} {row[0]:>5} {row[1]:>6} {row[2]:>16.3g} {pt:>29} {row[4]:>20.2g}")
        total = [total[0] + row[0], total[1] + row[1], max(total[2], row[2])]
    lines.append(f"{'all':<9} {'':<6} {total[0]:>5} {total[1]:>6} {total[2]:>16.3g}")
    return "\n".join(lines), total


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    default_lib = os.environ.get("TRILINEAR3D_LIB", os.path.join(ROOT, "build", "libtrilinear3d.so"))
    ap.add_argument("--lib", default=default_lib,
                    help="libtrilinear3d.so to test (default: $TRILINEAR3D_LIB, else build/libtrilinear3d.so)")
    ap.add_argument("--cases", default=os.path.join(HERE, "cases.json"))
    sel = ap.add_mutually_exclusive_group()
    sel.add_argument("--all", action="store_true", help="every case, the large one included (the default)")
    sel.add_argument("--skip-large", action="store_true", help="skip the cases marked large (what ctest runs)")
    ap.add_argument("--only", default="", help="comma-separated case ids and/or groups to run")
    args = ap.parse_args()

    if not os.path.exists(args.lib):
        print(f"run_st: library not found: {args.lib}", file=sys.stderr)
        return 2
    with open(args.cases) as f:
        cases = json.load(f)
    if args.skip_large:
        cases = [c for c in cases if not c.get("large")]
    if args.only:
        wanted = set(args.only.split(","))
        cases = [c for c in cases if c["id"] in wanted or c["group"] in wanted]
    if not cases:
        print("run_st: no cases selected", file=sys.stderr)
        return 2
    torch.set_num_threads(len(os.sched_getaffinity(0)))   # the goldens only; results do not depend on it
    self_test()
    lib = Library(args.lib)
    print(f"run_st: {len(cases)} cases; library {args.lib}; torch {torch.__version__} ({torch.get_num_threads()} "
          f"threads); TRILINEAR3D_CORES={os.environ.get('TRILINEAR3D_CORES', '(default)')}", flush=True)
    t_all = time.time()
    results = []
    width = len(str(len(cases)))
    for i, case in enumerate(cases):
        try:
            r = run_case(lib, case)
        except Exception as e:  # a case that cannot be set up is a failure, not the end of the run
            r = CaseResult(case)
            r.fail(f"exception: {type(e).__name__}: {e}")
        results.append(r)
        pt = " n/a" if r.pt_ratio is None else f"{r.pt_ratio:.2f}"
        fmt = case["format"] + ("/" + case["result_format"] if case["result_format"] != case["format"] else "")
        print(f"[{i + 1:>{width}}/{len(cases)}] {case['id']} {'PASS' if r.ok else 'FAIL'} {OP_LABEL.get(case['op'], case['op'][:3]):<6} "
              f"{case['dtype']:<8} {fmt:<11} {case['view']:<10} ac={int(case['align_corners'])} "
              f"{case['mode']:<14} {case['values']:<9} {shape_text(case):<34} err/bound {r.excess:<9.3g} "
              f"vs-pt {pt}  lib {r.lib_seconds * 1e3:7.1f} ms  {r.seconds:6.2f} s"
              + "".join(f"  {k} {v}" for k, v in r.notes.items()), flush=True)
        for m in r.messages:
            print(f"      {m}", flush=True)

    table, total = summary(results)
    print("\n" + table)
    print("(worst err/bound: max over elements of |ours - golden| / docs/spec.md §5's bound; err/allowed vs PyTorch: max\n"
          " of our max-abs and RMS errors over 2 x PyTorch's own + 4 ulp; golden vs reference: max |PyTorch\n"
          " float64 - reference| / (A + T), must stay below 1e-12)")
    elapsed = time.time() - t_all
    print(f"\nrun_st: {total[1]}/{total[0]} cases passed in {elapsed:.1f} s")
    failed = [r for r in results if not r.ok]
    if failed:
        print("run_st: FAILED cases:")
        for r in failed:
            c = r.case
            print(f"  {c['id']} ({c['group']}, {c['op']}, {shape_text(c)}, {c['dtype']}, {c['format']}, {c['view']}, "
                  f"align_corners={c['align_corners']}, scales={c['scales']}, {c['values']}): "
                  + " | ".join(r.messages))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
