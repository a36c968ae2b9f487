"""The cubic group: enable() serving aten::upsample_bicubic2d, aten::_upsample_bilinear2d_aa,
aten::_upsample_bicubic2d_aa and their backwards (F.interpolate(mode='bicubic'), antialias=True), and the direct
operators torch.ops.trilinear3d.upsample_bicubic2d / _upsample_bilinear2d_aa / _upsample_bicubic2d_aa: all four
dtypes against torch's float64 result, contiguous and channels_last read and written in place (the gradient in
the input's memory format), strong antialiased shrinks, gradcheck / gradgradcheck in float64, and torch's kernel
for what the library refuses (a bicubic scale that does not give its size)."""
import os
import sys

import pytest
import torch
import torch.nn.functional as F

_python_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _python_dir]

import trilinear3d  # noqa: E402

DTYPES = [torch.float32, torch.float64, torch.bfloat16, torch.float16]
TOLERANCE = {torch.float64: 1e-12, torch.float32: 2e-5, torch.bfloat16: 3e-2, torch.float16: 4e-3}
# mode, antialias -> the aten operator
OPS = {("bicubic", False): "upsample_bicubic2d", ("bilinear", True): "_upsample_bilinear2d_aa",
       ("bicubic", True): "_upsample_bicubic2d_aa"}
KWARGS = [dict(scale_factor=2), dict(size=(5, 4)), dict(size=(9, 11), align_corners=True),
          dict(size=(3, 2)), dict(scale_factor=(1.5, 0.5))]
KWARG_IDS = ["x2", "down", "size_align", "shrink7", "scales"]
SHAPE = (2, 3, 21, 14)


@pytest.fixture(autouse=True)
def _disabled_around():
    trilinear3d.disable()
    yield
    trilinear3d.disable()


def _run(x, g, mode, antialias, **kwargs):
    x = x.detach().requires_grad_()
    y = F.interpolate(x, mode=mode, antialias=antialias, **kwargs)
    (gx,) = torch.autograd.grad(y, x, g)
    return y, gx


def _format(t, channels_last):
    return t.contiguous(memory_format=torch.channels_last) if channels_last else t.contiguous()


@pytest.mark.parametrize("op", list(OPS), ids=list(OPS.values()))
@pytest.mark.parametrize("channels_last", [False, True], ids=["nchw", "channels_last"])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("case", range(len(KWARGS)), ids=KWARG_IDS)
def test_enabled_matches_torch_float64(op, channels_last, dtype, case):
    mode, antialias = op
    kwargs = KWARGS[case]
    torch.manual_seed(case)
    x = _format(torch.randn(SHAPE, dtype=torch.float64), channels_last)
    with torch.no_grad():
        shape = F.interpolate(x, mode=mode, antialias=antialias, **kwargs).shape
    g = _format(torch.randn(shape, dtype=torch.float64), channels_last)
    xr, gr = x.to(dtype).double(), g.to(dtype).double()  # the inputs as the dtype holds them
    ref_y, ref_gx = _run(xr, gr, mode, antialias, **kwargs)

    trilinear3d.reset_stats()
    with trilinear3d.enabled():
        y, gx = _run(x.to(dtype), g.to(dtype), mode, antialias, **kwargs)
    counts = trilinear3d.stats()[OPS[op]]
    assert counts == {"forward": 1, "backward": 1, "fallback_forward": 0, "fallback_backward": 0}, counts
    assert y.dtype == gx.dtype == dtype
    fmt = torch.channels_last if channels_last else torch.contiguous_format
    assert y.is_contiguous(memory_format=fmt) and gx.is_contiguous(memory_format=fmt)
    tol = TOLERANCE[dtype]
    scale_y = max(1.0, ref_y.abs().max().item())
    scale_g = max(1.0, ref_gx.abs().max().item())
    torch.testing.assert_close(y.double(), ref_y, rtol=tol, atol=tol * scale_y)
    torch.testing.assert_close(gx.double(), ref_gx, rtol=tol, atol=tol * scale_g)


def test_direct_operators_gradcheck_and_gradgradcheck():
    torch.manual_seed(0)
    x = torch.randn(1, 2, 7, 6, dtype=torch.float64, requires_grad=True)
    for name, size in (("upsample_bicubic2d", [9, 4]), ("_upsample_bilinear2d_aa", [3, 4]),
                       ("_upsample_bicubic2d_aa", [2, 5])):
        op = getattr(torch.ops.trilinear3d, name)
        fn = lambda t: op(t, size, False, None, None)  # noqa: E731
        assert torch.autograd.gradcheck(fn, (x,)), name
        assert torch.autograd.gradgradcheck(fn, (x,)), name
        torch.testing.assert_close(fn(x), getattr(torch.ops.aten, name)(x, size, False, None, None),
                                   rtol=1e-12, atol=1e-12)


def test_bicubic_scale_that_does_not_give_the_size_falls_back():
    """torch takes a scale with any output size; CANN's Bicubic2d refuses one whose floor(in * s) is not the
    size: torch's kernel computes it then, with the same result as torch."""
    torch.manual_seed(1)
    x = torch.randn(1, 2, 5, 6)
    trilinear3d.reset_stats()
    with trilinear3d.enabled():
        y = torch.ops.aten.upsample_bicubic2d(x, [9, 12], False, 3.0, 2.0)  # floor(5 * 3) = 15, not 9
    assert trilinear3d.stats()["upsample_bicubic2d"]["fallback_forward"] == 1
    torch.testing.assert_close(y, torch.ops.aten.upsample_bicubic2d(x, [9, 12], False, 3.0, 2.0))


def test_antialiased_reduced_precision_served():
    """torch's CPU has no fp16 antialiased kernel of its own in some versions; the library serves fp16 and
    bf16 for both antialiased operators."""
    torch.manual_seed(2)
    x = torch.randn(1, 3, 64, 48)
    ref = F.interpolate(x.double(), size=(9, 7), mode="bilinear", antialias=True)
    trilinear3d.reset_stats()
    with trilinear3d.enabled():
        for dtype, tol in ((torch.float16, 4e-3), (torch.bfloat16, 3e-2)):
            y = F.interpolate(x.to(dtype), size=(9, 7), mode="bilinear", antialias=True)
            torch.testing.assert_close(y.double(), ref, rtol=tol, atol=tol * 4)
    assert trilinear3d.stats()["_upsample_bilinear2d_aa"]["forward"] == 2


@pytest.mark.skipif(not hasattr(torch, "compile"), reason="torch.compile is torch 2's")
@pytest.mark.parametrize("op", list(OPS), ids=list(OPS.values()))
def test_compiled_graph_runs_the_library(op):
    """A torch.compile'd interpolate of the mode runs the library's kernels while enabled (the route of
    python/trilinear3d/_compile.py), with torch's values."""
    mode, antialias = op
    torch._dynamo.reset()
    fn = torch.compile(lambda t: F.interpolate(t, size=(7, 5), mode=mode, antialias=antialias), backend="eager")
    x = torch.randn(1, 2, 13, 11, requires_grad=True)
    ref = F.interpolate(x, size=(7, 5), mode=mode, antialias=antialias)
    trilinear3d.reset_stats()
    with trilinear3d.enabled():
        y = fn(x)
        y.sum().backward()
    counts = trilinear3d.stats()[OPS[op]]
    assert counts["forward"] == 1 and counts["backward"] == 1, counts
    torch.testing.assert_close(y, ref, rtol=1e-5, atol=1e-5)
    torch._dynamo.reset()
