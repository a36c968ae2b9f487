"""Tests of the trilinear3d PyTorch extension against torch.nn.functional.interpolate(mode='trilinear').

Run with the system Python (it has torch): /usr/bin/python3 -m pytest python/tests
(tools/run_python_tests.sh builds and installs the module first and points PYTHONPATH at it).
"""
import os
import random
import sys

import pytest
import torch
import torch.nn.functional as F

# The installed module, never the source folder python/trilinear3d (it has no compiled extension).
_python_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _python_dir]

import trilinear3d  # noqa: E402

FLOAT_DTYPES = [torch.float32, torch.float64, torch.bfloat16]


def reference(x, size=None, scale_factor=None, align_corners=False, recompute_scale_factor=None):
    return F.interpolate(x, size=size, scale_factor=scale_factor, mode="trilinear", align_corners=align_corners,
                         recompute_scale_factor=recompute_scale_factor)


def random_case(rng):
    """A random (shape, kwargs) of F.interpolate arguments: sizes or scale factors, up and down, align both."""
    shape = (rng.randint(1, 2), rng.randint(1, 5), rng.randint(1, 6), rng.randint(1, 7), rng.randint(1, 9))
    kwargs = {"align_corners": rng.random() < 0.5}
    kind = rng.choice(["size", "size_int", "scale", "scale_float"])
    if kind == "size":
        kwargs["size"] = tuple(rng.randint(1, 13) for _ in range(3))
    elif kind == "size_int":
        kwargs["size"] = rng.randint(1, 11)
    else:
        while True:
            scales = tuple(rng.choice([0.5, 0.75, 1.0, 1.3, 1.5, 2.0, 2.5, 3.0, 1 / 3]) for _ in range(3))
            if all(int(n * s) > 0 for n, s in zip(shape[2:], scales)):
                break
        kwargs["scale_factor"] = scales if kind == "scale" else scales[0]
        if kind == "scale_float" and any(int(n * scales[0]) <= 0 for n in shape[2:]):
            kwargs["scale_factor"] = 2.0
    return shape, kwargs


def tolerances(dtype):
    return {torch.float64: (1e-12, 1e-12), torch.float32: (1e-5, 1e-5), torch.bfloat16: (2e-2, 2e-2)}[dtype]


# ----------------------------------------------------------------------------------------------------------
# Values and gradients against F.interpolate


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("seed", range(12))
def test_forward_and_gradient_match_torch(dtype, seed):
    rng = random.Random(1000 * seed + (dtype == torch.float64))
    torch.manual_seed(seed)
    shape, kwargs = random_case(rng)
    x = torch.randn(shape, dtype=dtype, requires_grad=True)
    y = trilinear3d.interpolate(x, **kwargs)
    r = reference(x, **kwargs)
    assert y.shape == r.shape and y.dtype == dtype
    rtol, atol = tolerances(dtype)
    torch.testing.assert_close(y, r, rtol=rtol, atol=atol)
    g = torch.randn_like(r)
    (gx,) = torch.autograd.grad(y, x, g)
    (gr,) = torch.autograd.grad(r, x, g)
    assert gx.shape == x.shape and gx.dtype == dtype
    torch.testing.assert_close(gx, gr, rtol=rtol, atol=atol * max(1, g.numel() // x.numel()))


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("kwargs", [dict(size=(9, 13, 17)), dict(scale_factor=(1.5, 2.0, 0.6)), dict(size=(2, 3, 4))])
def test_float64_agrees_to_rounding(align_corners, kwargs):
    torch.manual_seed(1)
    x = torch.randn(2, 3, 5, 6, 7, dtype=torch.float64, requires_grad=True)
    y = trilinear3d.interpolate(x, align_corners=align_corners, **kwargs)
    r = reference(x, align_corners=align_corners, **kwargs)
    torch.testing.assert_close(y, r, rtol=1e-13, atol=1e-13)
    g = torch.randn_like(r)
    torch.testing.assert_close(torch.autograd.grad(y, x, g)[0], torch.autograd.grad(r, x, g)[0], rtol=1e-12,
                               atol=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_bfloat16_against_float64(seed):
    """bf16 accumulates in fp32 and rounds once: within one bf16 rounding of the float64 result, and at least
    as accurate as torch's own bf16 kernel."""
    rng = random.Random(77 + seed)
    torch.manual_seed(seed)
    shape, kwargs = random_case(rng)
    x = torch.randn(shape).to(torch.bfloat16).requires_grad_(True)
    x64 = x.detach().double().requires_grad_(True)
    y = trilinear3d.interpolate(x, **kwargs)
    r64 = reference(x64, **kwargs)
    assert y.dtype == torch.bfloat16
    torch.testing.assert_close(y.double(), r64, rtol=2 ** -7, atol=1e-6)
    g = torch.randn(r64.shape).to(torch.bfloat16)
    (gx,) = torch.autograd.grad(y, x, g)
    (g64,) = torch.autograd.grad(r64, x64, g.double())
    assert gx.dtype == torch.bfloat16
    torch.testing.assert_close(gx.double(), g64, rtol=2 ** -7, atol=1e-5)
    # torch's bf16 kernels, for comparison: ours is never worse than 2x theirs (plus one bf16 ulp of slack).
    rb = reference(x, **kwargs)
    (gb,) = torch.autograd.grad(rb, x, g)
    ulp = 2 ** -7 * float(r64.detach().abs().max())
    assert float((y.double() - r64).detach().abs().max()) <= 2 * float((rb.double() - r64).detach().abs().max()) + ulp
    ulp = 2 ** -7 * float(g64.abs().max())
    assert float((gx.double() - g64).abs().max()) <= 2 * float((gb.double() - g64).abs().max()) + ulp


def test_float16_against_float64():
    """torch 1.13 has no fp16 CPU kernel; the float64 result rounded once is the reference."""
    torch.manual_seed(3)
    x = torch.randn(2, 3, 4, 5, 6).half().requires_grad_(True)
    x64 = x.detach().double().requires_grad_(True)
    y = trilinear3d.interpolate(x, size=(7, 9, 11))
    r64 = reference(x64, size=(7, 9, 11))
    assert y.dtype == torch.float16
    torch.testing.assert_close(y.double(), r64, rtol=2 ** -10, atol=1e-6)
    g = torch.randn(r64.shape).half()
    (gx,) = torch.autograd.grad(y, x, g)
    (g64,) = torch.autograd.grad(r64, x64, g.double())
    assert gx.dtype == torch.float16
    torch.testing.assert_close(gx.double(), g64, rtol=2 ** -10, atol=1e-5)


def test_scale_factor_semantics():
    """With scale_factor the output size is floor(in * scale) and the scale itself maps coordinates (torch's
    default, recompute_scale_factor=None); recompute_scale_factor=True maps by the sizes instead."""
    torch.manual_seed(4)
    x = torch.randn(1, 2, 3, 5, 7, dtype=torch.float64)
    for scale in [1.7, (2.5, 1.3, 0.45), 3]:
        for recompute in [None, False, True]:
            for align in [False, True]:
                y = trilinear3d.interpolate(x, scale_factor=scale, align_corners=align,
                                            recompute_scale_factor=recompute)
                r = reference(x, scale_factor=scale, align_corners=align, recompute_scale_factor=recompute)
                assert y.shape == r.shape
                torch.testing.assert_close(y, r, rtol=1e-13, atol=1e-13)
    # The scale, not in/out, decides the weights: 1.7 on a size of 5 gives 8 outputs, not a ratio of 8/5.
    a = trilinear3d.interpolate(x, scale_factor=1.7)
    b = trilinear3d.interpolate(x, size=(5, 8, 11))
    assert a.shape == b.shape and not torch.allclose(a, b)


def test_identity_and_downsampling():
    torch.manual_seed(5)
    x = torch.randn(2, 3, 4, 6, 8, dtype=torch.float64, requires_grad=True)
    y = trilinear3d.interpolate(x, size=(4, 6, 8))
    torch.testing.assert_close(y, x, rtol=0, atol=0)
    for kwargs in [dict(size=(2, 3, 4)), dict(scale_factor=0.5), dict(size=1)]:
        y = trilinear3d.interpolate(x, **kwargs)
        r = reference(x, **kwargs)
        torch.testing.assert_close(y, r, rtol=1e-13, atol=1e-13)
        g = torch.randn_like(r)
        torch.testing.assert_close(torch.autograd.grad(y, x, g)[0], torch.autograd.grad(r, x, g)[0])


def test_gradcheck_double():
    torch.manual_seed(6)
    for align in [False, True]:
        x = torch.randn(2, 2, 3, 4, 5, dtype=torch.float64, requires_grad=True)
        assert torch.autograd.gradcheck(lambda t: trilinear3d.interpolate(t, size=(5, 3, 7), align_corners=align),
                                        (x,))
        assert torch.autograd.gradcheck(
            lambda t: trilinear3d.interpolate(t, scale_factor=(1.5, 0.75, 2.0), align_corners=align), (x,))


def test_gradgradcheck_double():
    """The backward op is differentiable too (its derivative is the forward op)."""
    torch.manual_seed(7)
    x = torch.randn(1, 2, 3, 4, 3, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradgradcheck(lambda t: trilinear3d.interpolate(t, size=(4, 5, 6)), (x,))
    g = torch.randn(1, 2, 4, 5, 6, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(
        lambda t: trilinear3d.upsample_trilinear3d_backward(t, [4, 5, 6], [1, 2, 3, 4, 3], True), (g,))


def test_deterministic():
    torch.manual_seed(8)
    x = torch.randn(2, 4, 5, 6, 7, requires_grad=True)
    g = torch.randn(2, 4, 11, 13, 15)
    results = []
    for _ in range(3):
        y = trilinear3d.interpolate(x, size=(11, 13, 15))
        results.append((y, torch.autograd.grad(y, x, g)[0]))
    for y, gx in results[1:]:
        assert torch.equal(y, results[0][0]) and torch.equal(gx, results[0][1])


# ----------------------------------------------------------------------------------------------------------
# Layouts: channels_last_3d and other strided views, read and written in place


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_channels_last_3d(dtype):
    torch.manual_seed(9)
    x = torch.randn(2, 16, 3, 4, 5, dtype=dtype).to(memory_format=torch.channels_last_3d).requires_grad_(True)
    assert not x.is_contiguous()
    # torch's bf16 kernels round every step: bf16 is checked against float64 (ours rounds once).
    ref_dtype = torch.float64 if dtype == torch.bfloat16 else dtype
    xr = x.detach().to(ref_dtype).requires_grad_(True)
    y = trilinear3d.interpolate(x, size=(6, 7, 9))
    r = reference(xr, size=(6, 7, 9))
    assert y.is_contiguous(memory_format=torch.channels_last_3d) and not y.is_contiguous()
    rtol, atol = tolerances(dtype)
    torch.testing.assert_close(y.to(ref_dtype), r, rtol=rtol, atol=atol)
    g = torch.randn(r.shape, dtype=dtype).to(memory_format=torch.channels_last_3d)
    (gx,) = torch.autograd.grad(y, x, g)
    (gr,) = torch.autograd.grad(r, xr, g.to(ref_dtype))
    assert gx.is_contiguous(memory_format=torch.channels_last_3d) and not gx.is_contiguous()
    torch.testing.assert_close(gx.to(ref_dtype), gr, rtol=rtol, atol=atol * 8)


def test_channels_last_3d_no_copies():
    """The library reads the input and the incoming gradient where they are: a hook on the op sees the same
    data pointers, and the outputs are fresh channels_last_3d tensors of exactly their own size."""
    torch.manual_seed(10)
    x = torch.randn(1, 8, 4, 4, 4).to(memory_format=torch.channels_last_3d)
    with torch.autograd.profiler.profile() as prof:
        y = trilinear3d.interpolate(x, size=(8, 8, 8))
        gx = trilinear3d.upsample_trilinear3d_backward(y, [8, 8, 8], list(x.shape), False)
    names = {e.name for e in prof.function_events}
    # No layout conversion ran anywhere: no contiguous/copy_/clone/to ops, only ours (and empty).
    assert not names & {"aten::contiguous", "aten::copy_", "aten::clone", "aten::to", "aten::_to_copy"}, names
    assert "trilinear3d::upsample_trilinear3d" in names and "trilinear3d::upsample_trilinear3d_backward" in names
    for t, shape in ((y, (1, 8, 8, 8, 8)), (gx, (1, 8, 4, 4, 4))):
        assert t.shape == shape and t.is_contiguous(memory_format=torch.channels_last_3d)
        storage = t.untyped_storage() if hasattr(t, "untyped_storage") else t.storage()
        assert storage.nbytes() == t.numel() * t.element_size()  # nothing beyond the tensor itself
    torch.testing.assert_close(y, reference(x, size=(8, 8, 8)))


def test_contiguous_no_copies():
    torch.manual_seed(11)
    x = torch.randn(1, 3, 4, 4, 4, requires_grad=True)
    g = torch.randn(1, 3, 8, 8, 8)
    with torch.autograd.profiler.profile() as prof:
        y = trilinear3d.interpolate(x, size=(8, 8, 8))
        (gx,) = torch.autograd.grad(y, x, g)
    names = {e.name for e in prof.function_events}
    assert not names & {"aten::contiguous", "aten::copy_", "aten::clone", "aten::_to_copy"}, names
    assert y.is_contiguous() and gx.is_contiguous()


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_non_contiguous_input(dtype):
    torch.manual_seed(12)
    base = torch.randn(3, 6, 7, 9, 11, dtype=dtype)
    views = {
        "sliced": base[1:, ::2, 1:6, ::3, 2:9],
        "permuted": base.permute(0, 1, 4, 3, 2),
        "strided-w": base[..., ::2],
        "expanded": torch.randn(1, 1, 3, 4, 5, dtype=dtype).expand(2, 3, 3, 4, 5),
    }
    rtol, atol = tolerances(dtype)
    for name, v in views.items():
        assert not v.is_contiguous(), name
        x = v.detach().requires_grad_(True)
        y = trilinear3d.interpolate(x, size=(5, 6, 7), align_corners=True)
        r = reference(x, size=(5, 6, 7), align_corners=True)
        torch.testing.assert_close(y, r, rtol=rtol, atol=atol, msg=name)
        torch.testing.assert_close(y, trilinear3d.interpolate(v.contiguous(), size=(5, 6, 7), align_corners=True),
                                   rtol=0, atol=0, msg=name)
        # A non-contiguous incoming gradient (a slice of a larger tensor) and the zero-stride one of sum().
        g = torch.randn(r.shape[:-1] + (2 * r.shape[-1],), dtype=dtype)[..., ::2]
        torch.testing.assert_close(torch.autograd.grad(y, x, g)[0], torch.autograd.grad(r, x, g)[0], rtol=rtol,
                                   atol=atol * 4, msg=name)
        (gs,) = torch.autograd.grad(y.sum(), x)
        (gsr,) = torch.autograd.grad(r.sum(), x)
        torch.testing.assert_close(gs, gsr, rtol=rtol, atol=atol * 4, msg=name)


def test_empty_batch():
    x = torch.randn(0, 3, 2, 3, 4, requires_grad=True)
    y = trilinear3d.interpolate(x, size=(4, 5, 6))
    assert y.shape == (0, 3, 4, 5, 6)
    (gx,) = torch.autograd.grad(y, x, torch.randn(0, 3, 4, 5, 6))
    assert gx.shape == x.shape


# ----------------------------------------------------------------------------------------------------------
# The torch operators


def test_registered_operators():
    torch.manual_seed(13)
    x = torch.randn(2, 3, 4, 5, 6, requires_grad=True)
    y = torch.ops.trilinear3d.upsample_trilinear3d(x, [6, 7, 8], True)
    torch.testing.assert_close(y, torch.ops.aten.upsample_trilinear3d(x, [6, 7, 8], True))
    y2 = torch.ops.trilinear3d.upsample_trilinear3d(x, [8, 10, 12], False, 2.0, 2.0, 2.0)
    torch.testing.assert_close(y2, torch.ops.aten.upsample_trilinear3d(x, [8, 10, 12], False, 2.0, 2.0, 2.0))
    g = torch.randn(2, 3, 6, 7, 8)
    gi = torch.ops.trilinear3d.upsample_trilinear3d_backward(g, [6, 7, 8], [2, 3, 4, 5, 6], True)
    torch.testing.assert_close(gi, torch.ops.aten.upsample_trilinear3d_backward(g, [6, 7, 8], [2, 3, 4, 5, 6], True))
    # The operator itself is differentiable (its Autograd kernel).
    torch.testing.assert_close(torch.autograd.grad(y, x, g)[0], gi)


def test_torchscript():
    @torch.jit.script
    def scripted(x: torch.Tensor) -> torch.Tensor:
        return torch.ops.trilinear3d.upsample_trilinear3d(x, [4, 6, 8], False, None, None, None)

    x = torch.randn(1, 2, 2, 3, 4)
    torch.testing.assert_close(scripted(x), reference(x, size=(4, 6, 8)))


def test_operator_errors():
    x = torch.randn(1, 2, 3, 4, 5)
    with pytest.raises(ValueError, match="all given or all None"):
        torch.ops.trilinear3d.upsample_trilinear3d(x, [6, 8, 10], False, 2.0, None, None)
    with pytest.raises(ValueError, match="scales .* must match outputSize"):
        torch.ops.trilinear3d.upsample_trilinear3d(x, [6, 8, 11], False, 2.0, 2.0, 2.0)
    with pytest.raises(RuntimeError, match="Expected grad_output to have the same shape as output"):
        torch.ops.trilinear3d.upsample_trilinear3d_backward(torch.randn(1, 2, 6, 8, 9), [6, 8, 10], [1, 2, 3, 4, 5],
                                                            False)
    with pytest.raises(RuntimeError, match="expected a 5-D"):
        torch.ops.trilinear3d.upsample_trilinear3d(x[0], [6, 8, 10], False)


# ----------------------------------------------------------------------------------------------------------
# Argument errors: the same exception types (and messages where torch's are ours to match) as F.interpolate


def _error_of(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return e
    return None


ERROR_CASES = [
    ("both", dict(size=4, scale_factor=2.0)),
    ("neither", dict()),
    ("size length", dict(size=(4, 4))),
    ("scale length", dict(scale_factor=(2.0, 2.0, 2.0, 2.0))),
    ("zero size", dict(size=(0, 4, 4))),
    ("negative size", dict(size=(-1, 4, 4))),
    ("scale to zero", dict(scale_factor=0.1)),
    ("negative scale", dict(scale_factor=-2.0)),
    ("recompute with size", dict(size=4, recompute_scale_factor=True)),
]


@pytest.mark.parametrize("name,kwargs", ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_argument_errors_match_torch(name, kwargs):
    x = torch.randn(1, 2, 3, 4, 5)
    ours = _error_of(lambda: trilinear3d.interpolate(x, **kwargs))
    theirs = _error_of(lambda: reference(x, **kwargs))
    assert theirs is not None and ours is not None, name
    assert type(ours) is type(theirs), (name, ours, theirs)
    assert str(ours) == str(theirs), name


@pytest.mark.parametrize("shape", [(3, 4, 5), (2, 3, 4, 5), (1, 1, 2, 3, 4, 5), (4, 5)])
def test_wrong_rank_matches_torch(shape):
    x = torch.randn(shape)
    dim = len(shape) - 2
    size = 4 if dim <= 0 else [4] * dim
    ours = _error_of(lambda: trilinear3d.interpolate(x, size=size))
    theirs = _error_of(lambda: reference(x, size=size))
    assert type(ours) is type(theirs) is NotImplementedError
    assert str(ours) == str(theirs)


def test_type_errors():
    x = torch.randn(1, 2, 3, 4, 5)
    for kwargs in [dict(size=4, align_corners=1), dict(size=4, align_corners="yes"), dict(size=4.0),
                   dict(size=(4, 4, 4.5)), dict(size=True), dict(scale_factor="a"), dict(scale_factor=(2, 2, None))]:
        with pytest.raises(TypeError):
            reference(x, **kwargs)
        with pytest.raises(TypeError):
            trilinear3d.interpolate(x, **kwargs)
    with pytest.raises(TypeError, match="must be Tensor"):
        trilinear3d.interpolate([1.0, 2.0], size=4)


def test_unsupported_dtype_and_empty_channels():
    x = torch.randn(1, 2, 3, 4, 5)
    with pytest.raises(RuntimeError, match="not implemented for 'Long'"):
        trilinear3d.interpolate(x.long(), size=4)
    with pytest.raises(RuntimeError, match="not implemented for 'Int'"):
        trilinear3d.interpolate(x.int(), size=4)
    empty_c = torch.randn(1, 0, 3, 4, 5)
    theirs = _error_of(lambda: reference(empty_c, size=4))
    ours = _error_of(lambda: trilinear3d.interpolate(empty_c, size=4))
    assert type(ours) is type(theirs) is RuntimeError and str(ours) == str(theirs)


def test_library_errors_carry_its_message():
    """Errors the library finds (here a dim above CANN's 2^20 limit) surface with aclGetRecentErrMsg's text."""
    x = torch.randn(1, 1, 1, 1, 1)
    with pytest.raises(ValueError, match=r"above the limit 2\^20.*aclnn status 161002"):
        trilinear3d.interpolate(x, size=(2 ** 20 + 1, 1, 1))
    with pytest.raises(RuntimeError, match="non-finite output size"):
        trilinear3d.interpolate(x, scale_factor=float("inf"))
    # The module still works after errors.
    torch.testing.assert_close(trilinear3d.interpolate(x, size=2), reference(x, size=2))


# ----------------------------------------------------------------------------------------------------------
# Large outputs (>= 4 MiB) come from the extension's buffer cache: ordinary tensors, reused after free


@pytest.mark.parametrize("channels_last", [False, True])
def test_large_outputs(channels_last):
    torch.manual_seed(14)
    fmt = torch.channels_last_3d if channels_last else torch.contiguous_format
    x = torch.randn(1, 8, 8, 16, 16).to(memory_format=fmt).requires_grad_(True)
    size = (33, 64, 64)  # 8 * 33 * 64 * 64 floats: 4.3 MB
    y = trilinear3d.interpolate(x, size=size)
    assert y.is_contiguous(memory_format=fmt) and y.storage().size() == y.numel()
    torch.testing.assert_close(y, reference(x, size=size))
    g = torch.randn(y.shape).to(memory_format=fmt)
    torch.testing.assert_close(torch.autograd.grad(y, x, g)[0], torch.autograd.grad(reference(x, size=size), x, g)[0],
                               rtol=1e-5, atol=1e-4)
    big_grad = trilinear3d.upsample_trilinear3d_backward(torch.randn(1, 8, 40, 64, 64), [40, 64, 64],
                                                         [1, 8, 33, 64, 64], False)
    assert big_grad.shape == (1, 8, 33, 64, 64) and big_grad.is_contiguous()
    # An ordinary tensor: it can be resized, written, viewed and freed.
    z = y.detach().clone()
    y2 = y.detach()
    y2.add_(1.0)
    torch.testing.assert_close(y2, z + 1.0)
    y2.resize_(2 * y2.numel())
    assert y2.numel() == 2 * z.numel()


@pytest.mark.skipif(os.environ.get("TRILINEAR3D_PY_CACHE_MB", "1") == "0", reason="buffer cache disabled")
def test_large_output_buffers_are_reused():
    x = torch.randn(1, 8, 8, 16, 16)
    y = trilinear3d.interpolate(x, size=(33, 64, 64))
    ptr = y.data_ptr()
    expected = y.clone()
    del y
    y = trilinear3d.interpolate(x, size=(33, 64, 64))
    assert y.data_ptr() == ptr
    assert torch.equal(y, expected)


def test_concurrent_python_threads():
    """Calls from several threads share the library's default stream; each gets its own correct result."""
    import threading

    torch.manual_seed(15)
    inputs = [torch.randn(2, 3, 4, 5, 6, dtype=torch.float64, requires_grad=True) for _ in range(4)]
    expected = []
    for x in inputs:
        r = reference(x, size=(7, 8, 9))
        expected.append((r.detach(), torch.autograd.grad(r.sum(), x)[0]))
    failures = []

    def work(i):
        try:
            for _ in range(20):
                y = trilinear3d.interpolate(inputs[i], size=(7, 8, 9))
                (gx,) = torch.autograd.grad(y.sum(), inputs[i])
                torch.testing.assert_close(y.detach(), expected[i][0])
                torch.testing.assert_close(gx, expected[i][1])
        except Exception as e:  # noqa: BLE001
            failures.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(inputs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, failures


def test_no_grad_and_inference_mode():
    x = torch.randn(1, 2, 3, 4, 5, requires_grad=True)
    with torch.no_grad():
        y = trilinear3d.interpolate(x, size=(4, 5, 6))
    assert not y.requires_grad and y.grad_fn is None
    with torch.inference_mode():
        big = torch.randn(1, 8, 8, 16, 16)
        for xi in (x, big):
            z = trilinear3d.interpolate(xi, size=(33, 64, 64))
            assert z.is_inference() and not z.requires_grad
            torch.testing.assert_close(z, reference(xi, size=(33, 64, 64)))
