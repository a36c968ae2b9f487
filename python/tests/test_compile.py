"""trilinear3d.enable() under torch.compile (Inductor, CPU): the compiled graph calls the library's forward and
backward (trilinear3d::aten_upsample_trilinear3d(_backward), seen in Inductor's generated code and in stats()),
with results equal to eager within the accuracy bound; dynamic shapes, both memory formats, all four dtypes,
max-autotune; enable() after a compile recompiles, disable() restores torch's compiled code, and the compile
caches keep the two apart; torch.export. Skipped where torch has no torch.compile (Debian's 1.13)."""
import os
import sys

import pytest
import torch

if not hasattr(torch, "compile"):
    pytest.skip(f"torch {torch.__version__} has no torch.compile / Inductor (torch >= 2.0): the compile tests "
                "run against PyPI's torch", allow_module_level=True)

import torch.nn.functional as F  # noqa: E402
from torch import nn  # noqa: E402

_python_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _python_dir]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import trilinear3d  # noqa: E402
from trilinear3d import _compile  # noqa: E402
from unet3d import UNet3d  # noqa: E402

if not _compile.supported():
    pytest.skip(f"torch {torch.__version__} lacks torch.library.register_fake / register_autograd (torch >= 2.4)",
                allow_module_level=True)

from unittest import mock  # noqa: E402

from torch._dynamo.testing import CompileCounterWithBackend  # noqa: E402
from torch._inductor.graph import GraphLowering  # noqa: E402

DTYPES = [torch.float32, torch.float64, torch.bfloat16, torch.float16]
TOLERANCE = {torch.float64: 1e-12, torch.float32: 1e-5, torch.bfloat16: 2e-2, torch.float16: 2e-3}
FORWARD_OP = "torch.ops.trilinear3d.aten_upsample_trilinear3d.default"
BACKWARD_OP = "torch.ops.trilinear3d.aten_upsample_trilinear3d_backward.default"


@pytest.fixture(autouse=True)
def _fresh_compiler():
    trilinear3d.disable()
    torch._dynamo.reset()
    yield
    trilinear3d.disable()
    torch._dynamo.reset()


def test_route_is_installed():
    assert _compile._route_installed, "the route into torch's decompositions failed to install (see its warning)"
    assert [row.name for row in _compile.COVERED] == [
        "upsample_trilinear3d", "upsample_bilinear2d", "upsample_linear1d", "upsample_nearest3d",
        "upsample_nearest2d", "upsample_nearest1d", "_upsample_nearest_exact3d", "_upsample_nearest_exact2d",
        "_upsample_nearest_exact1d", "upsample_bicubic2d", "_upsample_bilinear2d_aa", "_upsample_bicubic2d_aa"]


@pytest.mark.parametrize("channels_last", [False, True], ids=["contiguous", "channels_last_3d"])
def test_operators_registrations(channels_last):
    """torch.library.opcheck: schema, fake kernel (shapes and strides against the real one), autograd
    registration, AOT dispatch with dynamic shapes; and gradcheck / gradgradcheck in double."""
    forward = torch.ops.trilinear3d.aten_upsample_trilinear3d.default
    backward = torch.ops.trilinear3d.aten_upsample_trilinear3d_backward.default
    x = _format(torch.randn(2, 3, 4, 6, 5, dtype=torch.float64), channels_last).requires_grad_()
    g = _format(torch.randn(2, 3, 7, 5, 9, dtype=torch.float64), channels_last).requires_grad_()
    for args in ((x, [7, 5, 9], True), (x, [8, 12, 10], False, 2.0, 2.0, 2.0)):
        torch.library.opcheck(forward, args)
    torch.library.opcheck(backward, (g, [7, 5, 9], [2, 3, 4, 6, 5], False))
    small = torch.randn(1, 2, 3, 4, 3, dtype=torch.float64, requires_grad=True)
    fn = lambda t: forward(t, [5, 7, 4], False)  # noqa: E731
    assert torch.autograd.gradcheck(fn, (small,)) and torch.autograd.gradgradcheck(fn, (small,))


def _format(t, channels_last):
    return t.contiguous(memory_format=torch.channels_last_3d) if channels_last else t.contiguous()


def _eager(x, g, **kwargs):
    x = x.detach().requires_grad_()
    y = F.interpolate(x, mode="trilinear", **kwargs)
    return y, torch.autograd.grad(y, x, g)[0]


def _run_and_get_code(fn, *args):
    """fn(*args) and the code Inductor generated (or took from its cache) meanwhile. (torch's
    run_and_get_code would also reset Dynamo, dropping the graphs compiled before.)"""
    code = []
    with mock.patch.object(GraphLowering, "save_output_code", code.append):
        result = fn(*args)
    return result, "\n".join(code)


def _compiled_step(fn, x, g):
    """fn(x) and its gradient, with the code Inductor generated for them."""
    x = x.detach().requires_grad_()

    def step():
        y = fn(x)
        return y, torch.autograd.grad(y, x, g)[0]

    (y, gx), code = _run_and_get_code(step)
    return y, gx, code


def _reference(x, g, dtype, **kwargs):
    """torch's eager result at dtype, or float64's rounded to it where torch's CPU kernel lacks the dtype."""
    try:
        return _eager(x.to(dtype), g.to(dtype), **kwargs)
    except RuntimeError:
        return tuple(t.to(dtype) for t in _eager(x, g, **kwargs))


@pytest.mark.parametrize("channels_last", [False, True], ids=["contiguous", "channels_last_3d"])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_compiled_forward_and_backward_run_the_library(channels_last, dtype):
    torch.manual_seed(0)
    x = _format(torch.randn(2, 3, 4, 6, 5, dtype=torch.float64), channels_last)
    g = _format(torch.randn(2, 3, 8, 12, 10, dtype=torch.float64), channels_last)
    ref_y, ref_gx = _reference(x, g, dtype, scale_factor=2)

    trilinear3d.enable()
    trilinear3d.reset_stats()
    fn = torch.compile(lambda t: F.interpolate(t, scale_factor=2, mode="trilinear"), fullgraph=True)
    y, gx, code = _compiled_step(fn, x.to(dtype), g.to(dtype))
    assert FORWARD_OP in code and BACKWARD_OP in code, code
    counts = trilinear3d.stats()["upsample_trilinear3d"]
    assert counts == {"forward": 1, "backward": 1, "fallback_forward": 0, "fallback_backward": 0}, counts
    assert y.dtype == gx.dtype == dtype
    fmt = torch.channels_last_3d if channels_last else torch.contiguous_format
    assert y.is_contiguous(memory_format=fmt) and gx.is_contiguous(memory_format=fmt)
    tol = TOLERANCE[dtype]
    torch.testing.assert_close(y, ref_y, rtol=tol, atol=tol)
    torch.testing.assert_close(gx.double(), ref_gx.double(), rtol=tol * 32, atol=tol * 32)


@pytest.mark.parametrize("kwargs", [dict(size=(7, 5, 9), align_corners=True), dict(scale_factor=(1.5, 0.5, 2.5)),
                                    dict(scale_factor=1.7, recompute_scale_factor=True)],
                         ids=["size_align", "scales", "recompute"])
def test_compiled_arguments(kwargs):
    torch.manual_seed(0)
    x = torch.randn(1, 2, 4, 6, 5, dtype=torch.float64)
    with torch.no_grad():
        g = torch.randn(F.interpolate(x, mode="trilinear", **kwargs).shape, dtype=torch.float64)
    ref_y, ref_gx = _eager(x, g, **kwargs)
    trilinear3d.enable()
    trilinear3d.reset_stats()
    y, gx, code = _compiled_step(torch.compile(lambda t: F.interpolate(t, mode="trilinear", **kwargs)), x, g)
    assert FORWARD_OP in code and BACKWARD_OP in code
    assert trilinear3d.stats()["forward"] == 1 and trilinear3d.stats()["backward"] == 1
    torch.testing.assert_close(y, ref_y, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(gx, ref_gx, rtol=1e-11, atol=1e-11)


def test_compiled_inference():
    x = torch.randn(1, 2, 4, 6, 5)
    ref = F.interpolate(x, scale_factor=2, mode="trilinear")
    trilinear3d.enable()
    trilinear3d.reset_stats()
    fn = torch.compile(lambda t: F.interpolate(t, scale_factor=2, mode="trilinear"))
    with torch.no_grad():
        y, code = _run_and_get_code(fn, x)
    assert FORWARD_OP in code
    with torch.inference_mode():
        fn(x)
    assert trilinear3d.stats()["forward"] == 2
    torch.testing.assert_close(y, ref, rtol=1e-5, atol=1e-5)


def test_dynamic_shapes_one_graph_both_sizes_routed():
    counter = CompileCounterWithBackend("inductor")
    fn = torch.compile(lambda t: F.interpolate(t, scale_factor=2, mode="trilinear"), dynamic=True, backend=counter)
    trilinear3d.reset_stats()
    for shape in [(2, 3, 4, 6, 5), (3, 4, 5, 7, 6), (5, 2, 3, 9, 4)]:  # no equal sizes: no duck sizing
        x = torch.randn(shape)
        g = torch.randn(shape[:2] + tuple(2 * s for s in shape[2:]))
        ref_y, ref_gx = _eager(x, g, scale_factor=2)
        x = x.requires_grad_()
        trilinear3d.enable()
        y = fn(x)
        gx = torch.autograd.grad(y, x, g)[0]
        torch.testing.assert_close(y, ref_y, rtol=1e-5, atol=1e-5)
        torch.testing.assert_close(gx, ref_gx, rtol=1e-4, atol=1e-4)
        trilinear3d.disable()
    assert counter.frame_count == 1, counter.frame_count  # one graph for all sizes
    counts = trilinear3d.stats()
    assert counts["forward"] == 3 and counts["backward"] == 3 and counts["fallback_forward"] == 0, counts


def test_unmodified_module_compiled():
    torch.manual_seed(0)
    model = UNet3d(width=4)
    x = torch.randn(2, 1, 8, 8, 8)
    reference = model(x)
    ref_grads = torch.autograd.grad(reference.square().mean(), list(model.parameters()))
    trilinear3d.enable()
    trilinear3d.reset_stats()
    compiled = torch.compile(model)
    out = compiled(x)
    grads = torch.autograd.grad(out.square().mean(), list(model.parameters()))
    counts = trilinear3d.stats()
    assert counts["forward"] == 2 and counts["backward"] == 2, counts  # UNet3d's two nn.Upsample
    torch.testing.assert_close(out, reference, rtol=1e-4, atol=1e-5)
    for a, b in zip(grads, ref_grads):
        torch.testing.assert_close(a, b, rtol=1e-3, atol=1e-5)


def test_enable_after_compile_recompiles_and_disable_restores_torch():
    counter = CompileCounterWithBackend("inductor")
    fn = torch.compile(lambda t: F.interpolate(t, scale_factor=2, mode="trilinear"), backend=counter)
    torch.manual_seed(0)
    x = torch.randn(1, 2, 4, 6, 5)
    g = torch.randn(1, 2, 8, 12, 10)
    trilinear3d.reset_stats()
    y_torch, gx_torch, code = _compiled_step(fn, x, g)  # compiled before enable(): torch's code
    assert "trilinear3d" not in code and counter.frame_count == 1
    assert trilinear3d.stats()["forward"] == 0

    trilinear3d.enable()
    y, gx, code = _compiled_step(fn, x, g)  # recompiled for the enabled state
    assert FORWARD_OP in code and BACKWARD_OP in code and counter.frame_count == 2
    assert trilinear3d.stats()["forward"] == 1 and trilinear3d.stats()["backward"] == 1
    torch.testing.assert_close(y, y_torch, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(gx, gx_torch, rtol=1e-4, atol=1e-4)

    trilinear3d.disable()
    y2, gx2, code = _compiled_step(fn, x, g)  # the first graph again: no compile, torch's bits
    assert counter.frame_count == 2 and trilinear3d.stats()["forward"] == 1
    assert torch.equal(y2, y_torch) and torch.equal(gx2, gx_torch)

    with trilinear3d.enabled():  # and back: both graphs stay cached
        _compiled_step(fn, x, g)
    assert counter.frame_count == 2 and trilinear3d.stats()["forward"] == 2


def test_compile_caches_keep_enabled_and_disabled_graphs_apart():
    """Inductor's FX graph cache and AOTAutograd's cache (both on by default, on disk) must not serve a graph
    compiled in the other state: the same function compiled afresh after each switch."""
    tag = torch.compiler.config.cache_key_tag
    x = torch.randn(1, 2, 4, 6, 3)
    g = torch.randn(1, 2, 8, 12, 6)

    def compile_and_run():
        torch._dynamo.reset()  # in-memory state only: the disk caches stay
        return _compiled_step(torch.compile(lambda t: F.interpolate(t, scale_factor=2, mode="trilinear") * 2),
                              x, g)[2]

    assert "trilinear3d" not in compile_and_run()
    trilinear3d.enable()
    assert torch.compiler.config.cache_key_tag != tag
    assert FORWARD_OP in compile_and_run()
    trilinear3d.disable()
    assert torch.compiler.config.cache_key_tag == tag
    assert "trilinear3d" not in compile_and_run()


def test_max_autotune_no_cudagraphs():
    x = torch.randn(1, 2, 4, 6, 5)
    g = torch.randn(1, 2, 8, 12, 10)
    ref_y, ref_gx = _eager(x, g, scale_factor=2)
    trilinear3d.enable()
    trilinear3d.reset_stats()
    fn = torch.compile(lambda t: F.interpolate(t, scale_factor=2, mode="trilinear"),
                       mode="max-autotune-no-cudagraphs")
    y, gx, code = _compiled_step(fn, x, g)
    assert FORWARD_OP in code and BACKWARD_OP in code
    assert trilinear3d.stats()["forward"] == 1 and trilinear3d.stats()["backward"] == 1
    torch.testing.assert_close(y, ref_y, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(gx, ref_gx, rtol=1e-4, atol=1e-4)


class _Up(nn.Module):
    def forward(self, x):
        return F.interpolate(x, scale_factor=2, mode="trilinear")


def test_export_keeps_atens_operator_and_runs_the_library_when_enabled():
    x = torch.randn(1, 2, 4, 6, 5)
    ref = _Up()(x)
    trilinear3d.enable()
    program = torch.export.export(_Up(), (x,))
    targets = [str(node.target) for node in program.graph.nodes if node.op == "call_function"]
    assert targets == ["aten.upsample_trilinear3d.vec"], targets  # portable: aten's operator, as without enable()
    trilinear3d.reset_stats()
    torch.testing.assert_close(program.module()(x), ref, rtol=1e-5, atol=1e-5)
    assert trilinear3d.stats()["forward"] == 1  # the aten override serves it
    # Decomposed while enabled (what torch.compile / AOTInductor do to it), it calls the library's operator.
    decomposed = program.run_decompositions()
    targets = [str(node.target) for node in decomposed.graph.nodes if node.op == "call_function"]
    assert targets == ["trilinear3d.aten_upsample_trilinear3d.default"], targets
    torch.testing.assert_close(decomposed.module()(x), ref, rtol=1e-5, atol=1e-5)
    assert trilinear3d.stats()["forward"] == 2
    trilinear3d.disable()
    targets = [str(node.target) for node in program.run_decompositions().graph.nodes if node.op == "call_function"]
    assert not any("trilinear3d" in t for t in targets), targets


# --- The bilinear and linear modes (the rows of COVERED after the trilinear one) ------------------------------

MODES = {"bilinear": ("upsample_bilinear2d", (2, 3, 6, 5)), "linear": ("upsample_linear1d", (2, 3, 7))}


@pytest.mark.parametrize("mode", MODES)
def test_mode_operators_registrations(mode):
    """torch.library.opcheck of trilinear3d::aten_<op> and its _backward (channels_last for the 2-D one)."""
    name, shape = MODES[mode]
    forward = getattr(torch.ops.trilinear3d, "aten_" + name).default
    backward = getattr(torch.ops.trilinear3d, "aten_" + name + "_backward").default
    x = torch.randn(shape, dtype=torch.float64)
    if mode == "bilinear":
        x = x.contiguous(memory_format=torch.channels_last)
    out_size = [2 * n for n in shape[2:]]
    scales = [2.0] * len(out_size)
    x.requires_grad_()
    torch.library.opcheck(forward, (x, out_size, True))
    torch.library.opcheck(forward, (x, out_size, False, *scales))
    g = torch.randn(shape[:2] + tuple(out_size), dtype=torch.float64, requires_grad=True)
    torch.library.opcheck(backward, (g, out_size, list(shape), False))


MODE_CASES = [("bilinear", False, torch.float32), ("bilinear", True, torch.float32), ("bilinear", True, torch.bfloat16),
              ("linear", False, torch.float32), ("linear", False, torch.float16)]


@pytest.mark.parametrize("mode,channels_last,dtype", MODE_CASES,
                         ids=["bilinear-float32", "bilinear-channels_last-float32", "bilinear-channels_last-bfloat16",
                              "linear-float32", "linear-float16"])
@pytest.mark.parametrize("kwargs", [dict(scale_factor=2), dict(size=5, align_corners=True)], ids=["x2", "size_align"])
def test_compiled_modes_run_the_library(mode, channels_last, dtype, kwargs):
    name, shape = MODES[mode]
    torch.manual_seed(0)
    fmt = torch.channels_last if channels_last else torch.contiguous_format
    x = torch.randn(shape, dtype=torch.float64).contiguous(memory_format=fmt)
    with torch.no_grad():
        g = torch.randn(F.interpolate(x, mode=mode, **kwargs).shape, dtype=torch.float64).contiguous(memory_format=fmt)

    def eager(t, grad):
        t = t.detach().requires_grad_()
        y = F.interpolate(t, mode=mode, **kwargs)
        return y, torch.autograd.grad(y, t, grad)[0]

    try:
        ref_y, ref_gx = eager(x.to(dtype), g.to(dtype))
    except RuntimeError:  # torch's CPU kernel lacks the dtype
        ref_y, ref_gx = (t.to(dtype) for t in eager(x, g))
    trilinear3d.enable()
    trilinear3d.reset_stats()
    fn = torch.compile(lambda t: F.interpolate(t, mode=mode, **kwargs), fullgraph=True)
    y, gx, code = _compiled_step(fn, x.to(dtype), g.to(dtype))
    assert f"torch.ops.trilinear3d.aten_{name}.default" in code, code
    assert f"torch.ops.trilinear3d.aten_{name}_backward.default" in code, code
    counts = trilinear3d.stats()[name]
    assert counts == {"forward": 1, "backward": 1, "fallback_forward": 0, "fallback_backward": 0}, counts
    assert y.dtype == gx.dtype == dtype
    assert y.is_contiguous(memory_format=fmt) and gx.is_contiguous(memory_format=fmt)
    tol = TOLERANCE[dtype]
    torch.testing.assert_close(y, ref_y, rtol=tol, atol=tol)
    torch.testing.assert_close(gx.double(), ref_gx.double(), rtol=tol * 32, atol=tol * 32)

    trilinear3d.disable()  # torch's compiled code again
    y2, _, code = _compiled_step(fn, x.to(dtype), g.to(dtype))
    assert "trilinear3d" not in code and trilinear3d.stats()[name]["forward"] == 1


def test_dynamic_shapes_bilinear_one_graph():
    counter = CompileCounterWithBackend("inductor")
    fn = torch.compile(lambda t: F.interpolate(t, scale_factor=2, mode="bilinear"), dynamic=True, backend=counter)
    trilinear3d.enable()
    trilinear3d.reset_stats()
    for shape in [(2, 3, 4, 6), (3, 4, 5, 7), (5, 2, 9, 4)]:
        x = torch.randn(shape)
        g = torch.randn(shape[:2] + tuple(2 * s for s in shape[2:]))
        with trilinear3d.enabled(False):
            ref_y, ref_gx = (t.detach() for t in _eager_mode(x, g, "bilinear"))
        x = x.requires_grad_()
        y = fn(x)
        gx = torch.autograd.grad(y, x, g)[0]
        torch.testing.assert_close(y, ref_y, rtol=1e-5, atol=1e-5)
        torch.testing.assert_close(gx, ref_gx, rtol=1e-4, atol=1e-4)
    assert counter.frame_count == 1, counter.frame_count
    counts = trilinear3d.stats()["upsample_bilinear2d"]
    assert counts == {"forward": 3, "backward": 3, "fallback_forward": 0, "fallback_backward": 0}, counts


def _eager_mode(x, g, mode):
    x = x.detach().requires_grad_()
    y = F.interpolate(x, scale_factor=2, mode=mode)
    return y, torch.autograd.grad(y, x, g)[0]


# --- The nearest modes (the rows of COVERED after the linear ones) ----------------------------------------------

NEAREST = {(mode, rank): (f"{prefix}{rank}d", (2, 3, 7, 6, 5)[:rank + 2])
           for mode, prefix in (("nearest", "upsample_nearest"), ("nearest-exact", "_upsample_nearest_exact"))
           for rank in (1, 2, 3)}
NEAREST_FORMATS = {1: torch.contiguous_format, 2: torch.channels_last, 3: torch.channels_last_3d}


@pytest.mark.parametrize("mode,rank", NEAREST, ids=[f"{mode}-{rank}d" for mode, rank in NEAREST])
def test_nearest_operators_registrations(mode, rank):
    """torch.library.opcheck of trilinear3d::aten_<op> and its _backward (channels-last for 2-D and 3-D; the
    uint8 forward), and gradcheck / gradgradcheck through the opaque operator."""
    name, shape = NEAREST[(mode, rank)]
    forward = getattr(torch.ops.trilinear3d, "aten_" + name).default
    backward = getattr(torch.ops.trilinear3d, "aten_" + name + "_backward").default
    x = torch.randn(shape, dtype=torch.float64).contiguous(memory_format=NEAREST_FORMATS[rank])
    out_size = [2 * n + 1 for n in shape[2:]]
    x.requires_grad_()
    torch.library.opcheck(forward, (x, out_size))
    torch.library.opcheck(forward, (x, [2 * n for n in shape[2:]], *([2.0] * rank)))
    torch.library.opcheck(forward, (torch.randint(0, 256, shape, dtype=torch.uint8), out_size))
    g = torch.randn(shape[:2] + tuple(out_size), dtype=torch.float64).contiguous(
        memory_format=NEAREST_FORMATS[rank]).requires_grad_()
    torch.library.opcheck(backward, (g, out_size, list(shape)))
    small = torch.randn(shape[:2] + (3,) * rank, dtype=torch.float64, requires_grad=True)
    fn = lambda t: forward(t, [5] * rank)  # noqa: E731
    assert torch.autograd.gradcheck(fn, (small,)) and torch.autograd.gradgradcheck(fn, (small,))


NEAREST_CASES = [("nearest", 2, True, torch.float32), ("nearest", 2, False, torch.bfloat16),
                 ("nearest", 3, True, torch.float32), ("nearest", 1, False, torch.float16),
                 ("nearest-exact", 2, True, torch.float32), ("nearest-exact", 3, False, torch.float64),
                 ("nearest-exact", 1, False, torch.float32)]


@pytest.mark.parametrize("mode,rank,channels_last,dtype", NEAREST_CASES,
                         ids=[f"{m}-{r}d-{'channels_last-' if cl else ''}{str(d).split('.')[-1]}"
                              for m, r, cl, d in NEAREST_CASES])
@pytest.mark.parametrize("kwargs", [dict(scale_factor=2), dict(size=5), dict(scale_factor=1.5)],
                         ids=["x2", "size", "scales"])
def test_compiled_nearest_runs_the_library(mode, rank, channels_last, dtype, kwargs):
    """The compiled graph calls the library's forward and backward (in Inductor's code and in stats()): the
    forward bit for bit equal to eager torch's, the gradient within the bound, in the input's memory format;
    disable() restores torch's compiled code."""
    name, shape = NEAREST[(mode, rank)]
    torch.manual_seed(0)
    fmt = NEAREST_FORMATS[rank] if channels_last else torch.contiguous_format
    x = torch.randn(shape, dtype=torch.float64).contiguous(memory_format=fmt)
    with torch.no_grad():
        g = torch.randn(F.interpolate(x, mode=mode, **kwargs).shape, dtype=torch.float64).contiguous(
            memory_format=fmt)

    def eager(t, grad):
        t = t.detach().requires_grad_()
        y = F.interpolate(t, mode=mode, **kwargs)
        return y, torch.autograd.grad(y, t, grad)[0]

    ref_y, ref_gx = (t.to(dtype) for t in eager(x.to(dtype).double(), g.to(dtype).double()))
    trilinear3d.enable()
    trilinear3d.reset_stats()
    fn = torch.compile(lambda t: F.interpolate(t, mode=mode, **kwargs), fullgraph=True)
    y, gx, code = _compiled_step(fn, x.to(dtype), g.to(dtype))
    assert f"torch.ops.trilinear3d.aten_{name}.default" in code, code
    assert f"torch.ops.trilinear3d.aten_{name}_backward.default" in code, code
    counts = trilinear3d.stats()[name]
    assert counts == {"forward": 1, "backward": 1, "fallback_forward": 0, "fallback_backward": 0}, counts
    assert y.dtype == gx.dtype == dtype
    assert y.is_contiguous(memory_format=fmt) and gx.is_contiguous(memory_format=fmt)
    assert torch.equal(y, ref_y)
    tol = TOLERANCE[dtype] * 8
    torch.testing.assert_close(gx.double(), ref_gx.double(), rtol=tol, atol=tol)

    trilinear3d.disable()  # torch's compiled code again
    _, _, code = _compiled_step(fn, x.to(dtype), g.to(dtype))
    assert "trilinear3d" not in code and trilinear3d.stats()[name]["forward"] == 1


def test_compiled_nearest_uint8_inference_and_dynamic_shapes():
    """A uint8 forward (no gradient) compiled with dynamic shapes: one graph, every size routed, the same
    bytes as eager torch."""
    counter = CompileCounterWithBackend("inductor")
    fn = torch.compile(lambda t: F.interpolate(t, scale_factor=2, mode="nearest"), dynamic=True, backend=counter)
    trilinear3d.enable()
    trilinear3d.reset_stats()
    for shape in [(2, 3, 4, 6), (3, 4, 5, 7), (5, 2, 9, 4)]:
        x = torch.randint(0, 256, shape, dtype=torch.uint8)
        with trilinear3d.enabled(False):
            reference = F.interpolate(x, scale_factor=2, mode="nearest")
        assert torch.equal(fn(x), reference)
    assert counter.frame_count == 1, counter.frame_count
    counts = trilinear3d.stats()["upsample_nearest2d"]
    assert counts == {"forward": 3, "backward": 0, "fallback_forward": 0, "fallback_backward": 0}, counts


def test_unmodified_nearest_module_compiled():
    """A module with nn.Upsample(mode='nearest'), compiled unmodified: forward and backward on the library."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.Upsample(scale_factor=2, mode="nearest"),
                          nn.Conv2d(4, 2, 3, padding=1))
    x = torch.randn(2, 3, 8, 6)
    reference = model(x)
    ref_grads = torch.autograd.grad(reference.square().mean(), list(model.parameters()))
    trilinear3d.enable()
    trilinear3d.reset_stats()
    out = torch.compile(model)(x)
    grads = torch.autograd.grad(out.square().mean(), list(model.parameters()))
    counts = trilinear3d.stats()["upsample_nearest2d"]
    assert counts["forward"] == 1 and counts["backward"] == 1, counts
    torch.testing.assert_close(out, reference, rtol=1e-4, atol=1e-5)
    for a, b in zip(grads, ref_grads):
        torch.testing.assert_close(a, b, rtol=1e-3, atol=1e-5)
