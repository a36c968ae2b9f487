"""The bilinear and linear modes: trilinear3d.interpolate(mode='bilinear' / 'linear') and the operators
torch.ops.trilinear3d.upsample_bilinear2d / upsample_linear1d (and their _backward) against F.interpolate, and
enable() serving aten::upsample_bilinear2d, aten::upsample_linear1d and their backwards: all four dtypes,
contiguous and channels_last read and written in place, gradcheck / gradgradcheck in float64, torch's kernel for
what the library would compute differently (a partial set of scales, scales that do not give the sizes), and an
unmodified 2-D U-Net."""
import os
import random
import sys

import pytest
import torch
import torch.nn.functional as F
from torch import nn

_python_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _python_dir]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import trilinear3d  # noqa: E402
from unet2d import UNet2d  # noqa: E402

DTYPES = [torch.float32, torch.float64, torch.bfloat16, torch.float16]
TOLERANCE = {torch.float64: 1e-12, torch.float32: 1e-5, torch.bfloat16: 2e-2, torch.float16: 2e-3}
OPS = {"bilinear": "upsample_bilinear2d", "linear": "upsample_linear1d"}
SHAPES = {"bilinear": (2, 3, 6, 5), "linear": (2, 3, 7)}
# F.interpolate arguments per mode: an upscale, sizes with align_corners, scales of their own per axis.
KWARGS = {
    "bilinear": [dict(scale_factor=2), dict(size=(7, 9), align_corners=True), dict(scale_factor=(1.5, 0.5))],
    "linear": [dict(scale_factor=2), dict(size=11, align_corners=True), dict(scale_factor=0.6)],
}
KWARG_IDS = ["x2", "size_align", "scales"]


@pytest.fixture(autouse=True)
def _disabled_around():
    trilinear3d.disable()
    yield
    trilinear3d.disable()


def _run(x, g, mode, fn=F.interpolate, **kwargs):
    x = x.detach().requires_grad_()
    y = fn(x, mode=mode, **kwargs)
    (gx,) = torch.autograd.grad(y, x, g)
    return y, gx


def _format(t, channels_last):
    return t.contiguous(memory_format=torch.channels_last) if channels_last else t.contiguous()


def _reference(x, g, dtype, mode, **kwargs):
    """The golden result at dtype: torch's float64 result from the inputs rounded to dtype, rounded to dtype
    (docs/spec.md §5). torch's own bf16 kernels of 1.13 compute in bf16 and are further from it than the bound
    allows; fp16 has no CPU kernel there."""
    return tuple(t.to(dtype) for t in _run(x.to(dtype).double(), g.to(dtype).double(), mode, **kwargs))


def _check_close(y, gx, ref_y, ref_gx, dtype, ratio):
    tol = TOLERANCE[dtype]
    torch.testing.assert_close(y, ref_y, rtol=tol, atol=tol)
    scale = max(1, ratio) * 4
    torch.testing.assert_close(gx.double(), ref_gx.double(), rtol=tol * scale, atol=tol * scale)


CASES = [(mode, cl) for mode in ("bilinear", "linear") for cl in ((False, True) if mode == "bilinear" else (False,))]


@pytest.mark.parametrize("mode,channels_last", CASES, ids=["bilinear", "bilinear_channels_last", "linear"])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("case", range(3), ids=KWARG_IDS)
def test_enabled_matches_torch(mode, channels_last, dtype, case):
    kwargs = KWARGS[mode][case]
    torch.manual_seed(0)
    x = _format(torch.randn(SHAPES[mode], dtype=torch.float64), channels_last)
    with torch.no_grad():
        shape = F.interpolate(x, mode=mode, **kwargs).shape
    g = _format(torch.randn(shape, dtype=torch.float64), channels_last)
    ref_y, ref_gx = _reference(x, g, dtype, mode, **kwargs)

    trilinear3d.reset_stats()
    with trilinear3d.enabled():
        y, gx = _run(x.to(dtype), g.to(dtype), mode, **kwargs)
    counts = trilinear3d.stats()[OPS[mode]]
    assert counts == {"forward": 1, "backward": 1, "fallback_forward": 0, "fallback_backward": 0}, counts
    assert trilinear3d.stats()["forward"] == 0  # the top-level keys are the trilinear operator's
    assert y.dtype == gx.dtype == dtype
    fmt = torch.channels_last if channels_last else torch.contiguous_format
    assert y.is_contiguous(memory_format=fmt) and gx.is_contiguous(memory_format=fmt)
    _check_close(y, gx, ref_y, ref_gx, dtype, g.numel() // x.numel())

    # The direct function: the same library, the same results.
    trilinear3d.reset_stats()
    y2, gx2 = _run(x.to(dtype), g.to(dtype), mode, fn=trilinear3d.interpolate, **kwargs)
    assert trilinear3d.stats()[OPS[mode]]["forward"] == 1 and trilinear3d.stats()[OPS[mode]]["backward"] == 1
    assert torch.equal(y2, y) and torch.equal(gx2, gx)
    assert y2.is_contiguous(memory_format=fmt) and gx2.is_contiguous(memory_format=fmt)


def _random_case(rng, mode):
    dims = 2 if mode == "bilinear" else 1
    shape = (rng.randint(1, 2), rng.randint(1, 4)) + tuple(rng.randint(1, 9) for _ in range(dims))
    kwargs = {"align_corners": rng.random() < 0.5}
    if rng.random() < 0.5:
        kwargs["size"] = tuple(rng.randint(1, 13) for _ in range(dims))
    else:
        while True:
            scales = tuple(rng.choice([0.5, 0.75, 1.0, 1.3, 1.5, 2.0, 2.5, 3.0, 1 / 3]) for _ in range(dims))
            if all(int(n * s) > 0 for n, s in zip(shape[2:], scales)):
                break
        kwargs["scale_factor"] = scales
    return shape, kwargs


@pytest.mark.parametrize("mode,channels_last", CASES, ids=["bilinear", "bilinear_channels_last", "linear"])
def test_interpolate_random_cases_float64(mode, channels_last):
    """trilinear3d.interpolate against F.interpolate in float64 (to rounding), values and gradients, on random
    shapes, sizes and scale factors, up and down, both align modes; channels_last (2-D) and a strided view."""
    rng = random.Random(7)
    for _ in range(12):
        shape, kwargs = _random_case(rng, mode)
        x = _format(torch.randn(shape, dtype=torch.float64), channels_last)
        y_ref = F.interpolate(x, mode=mode, **kwargs)
        g = torch.randn(y_ref.shape, dtype=torch.float64)
        ref_y, ref_gx = _run(x, g, mode, **kwargs)
        y, gx = _run(x, g, mode, fn=trilinear3d.interpolate, **kwargs)
        torch.testing.assert_close(y, ref_y, rtol=1e-12, atol=1e-12, msg=lambda m: f"{shape} {kwargs}: {m}")
        torch.testing.assert_close(gx, ref_gx, rtol=1e-11, atol=1e-11, msg=lambda m: f"{shape} {kwargs}: {m}")
    # A strided view (every other column), read in place.
    x = torch.randn(SHAPES[mode][:-1] + (12,), dtype=torch.float64)[..., ::2]
    torch.testing.assert_close(trilinear3d.interpolate(x, scale_factor=2, mode=mode),
                               F.interpolate(x, scale_factor=2, mode=mode), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mode", ["bilinear", "linear"])
def test_gradcheck_and_gradgradcheck(mode):
    torch.manual_seed(0)
    x = torch.randn(SHAPES[mode][:2] + (3,) * (len(SHAPES[mode]) - 2), dtype=torch.float64, requires_grad=True)
    dims = x.dim() - 2
    cases = (dict(size=(5,) * dims), dict(scale_factor=(2.0, 1.5)[:dims], align_corners=True),
             dict(scale_factor=(1.7, 0.7)[:dims]))
    for kwargs in cases:
        direct = lambda t: trilinear3d.interpolate(t, mode=mode, **kwargs)  # noqa: E731
        assert torch.autograd.gradcheck(direct, (x,)) and torch.autograd.gradgradcheck(direct, (x,))
    trilinear3d.reset_stats()
    with trilinear3d.enabled():
        for kwargs in cases:
            routed = lambda t: F.interpolate(t, mode=mode, **kwargs)  # noqa: E731
            assert torch.autograd.gradcheck(routed, (x,)) and torch.autograd.gradgradcheck(routed, (x,))
    counts = trilinear3d.stats()[OPS[mode]]
    assert counts["forward"] > 0 and counts["backward"] > 0, counts
    assert counts["fallback_forward"] == counts["fallback_backward"] == 0, counts


def test_channels_last_gradient_with_a_contiguous_input():
    """The backward reads gradOut in its own format (NHWC for aclnnUpsampleBilinear2dBackwardV2, inputSize then
    in N, H, W, C order) whatever the input's: both mixes, against torch's kernel."""
    torch.manual_seed(0)
    for x_cl, g_cl in ((False, True), (True, False)):
        x = _format(torch.randn(2, 5, 4, 6, dtype=torch.float64), x_cl)
        g = _format(torch.randn(2, 5, 9, 10, dtype=torch.float64), g_cl)
        ref = torch.ops.aten.upsample_bilinear2d_backward(g, [9, 10], list(x.shape), False)
        trilinear3d.reset_stats()
        with trilinear3d.enabled():
            ours = torch.ops.aten.upsample_bilinear2d_backward(g, [9, 10], list(x.shape), False)
        assert trilinear3d.stats()["upsample_bilinear2d"]["backward"] == 1
        assert ours.is_contiguous(memory_format=torch.channels_last if g_cl else torch.contiguous_format)
        torch.testing.assert_close(ours, ref, rtol=1e-12, atol=1e-12)
        torch.testing.assert_close(trilinear3d.upsample_bilinear2d_backward(g, [9, 10], list(x.shape), False), ref,
                                   rtol=1e-12, atol=1e-12)


def test_scales_the_library_would_compute_differently_fall_back_to_torch():
    """torch uses each given scale on its own axis; the library uses all or none of them, and only where they
    give the sizes. Those cases keep torch's kernel (bit for bit); all scales that give the sizes run the
    library (both then use 1/s)."""
    aten = torch.ops.aten
    x2 = torch.randn(1, 2, 6, 5, dtype=torch.float64)
    g2 = torch.randn(1, 2, 12, 10, dtype=torch.float64)
    x1 = torch.randn(1, 2, 7, dtype=torch.float64)
    g1 = torch.randn(1, 2, 14, dtype=torch.float64)
    fallbacks = {  # name: (operator, call)
        "2d partial": ("upsample_bilinear2d", lambda: aten.upsample_bilinear2d(x2, [12, 10], False, 2.0, None)),
        "2d inconsistent": ("upsample_bilinear2d", lambda: aten.upsample_bilinear2d(x2, [12, 10], False, 2.5, 2.0)),
        "2d backward partial": ("upsample_bilinear2d", lambda: aten.upsample_bilinear2d_backward(
            g2, [12, 10], [1, 2, 6, 5], False, None, 2.1)),
        "2d backward inconsistent": ("upsample_bilinear2d", lambda: aten.upsample_bilinear2d_backward(
            g2, [12, 10], [1, 2, 6, 5], False, 2.2, 2.0)),
        "1d inconsistent": ("upsample_linear1d", lambda: aten.upsample_linear1d(x1, [14], False, 2.3)),
        "1d backward inconsistent": ("upsample_linear1d", lambda: aten.upsample_linear1d_backward(
            g1, [14], [1, 2, 7], False, 2.3)),
    }
    library = {
        "2d scales": ("upsample_bilinear2d", lambda: aten.upsample_bilinear2d(x2, [12, 10], False, 2.0, 2.0)),
        "2d scales 1/s": ("upsample_bilinear2d", lambda: aten.upsample_bilinear2d(x2, [12, 10], False, 2.05, 2.1)),
        "2d align ignores scales": ("upsample_bilinear2d", lambda: aten.upsample_bilinear2d(x2, [12, 10], True,
                                                                                           3.0, None)),
        "2d backward scales": ("upsample_bilinear2d", lambda: aten.upsample_bilinear2d_backward(
            g2, [12, 10], [1, 2, 6, 5], False, 2.05, 2.1)),
        "1d scale": ("upsample_linear1d", lambda: aten.upsample_linear1d(x1, [14], False, 2.1)),
        "1d backward scale": ("upsample_linear1d", lambda: aten.upsample_linear1d_backward(
            g1, [14], [1, 2, 7], False, 2.1)),
    }
    reference = {name: call() for name, (_, call) in {**fallbacks, **library}.items()}
    with trilinear3d.enabled():
        for name, (op, call) in fallbacks.items():
            trilinear3d.reset_stats()
            assert torch.equal(call(), reference[name]), name
            counts = trilinear3d.stats()[op]
            assert counts["forward"] + counts["backward"] == 0, (name, counts)
            assert counts["fallback_forward"] + counts["fallback_backward"] == 1, (name, counts)
        for name, (op, call) in library.items():
            trilinear3d.reset_stats()
            torch.testing.assert_close(call(), reference[name], rtol=1e-12, atol=1e-12, msg=name)
            counts = trilinear3d.stats()[op]
            assert counts["forward"] + counts["backward"] == 1, (name, counts)
            assert counts["fallback_forward"] + counts["fallback_backward"] == 0, (name, counts)


def test_uncovered_cases_fall_back_with_torchs_errors():
    x = torch.randn(1, 2, 3, 4)
    rejected = {
        "zero size": lambda: torch.ops.aten.upsample_bilinear2d(x, [0, 8], False),
        "int": lambda: torch.ops.aten.upsample_bilinear2d(x.int(), [6, 8], False),
        "1d zero size": lambda: torch.ops.aten.upsample_linear1d(x[0], [0], False),
    }
    errors = {}
    for name, fn in rejected.items():
        with pytest.raises(Exception) as info:
            fn()
        errors[name] = (type(info.value), str(info.value))
    empty = torch.randn(0, 2, 3, 4)
    trilinear3d.reset_stats()
    with trilinear3d.enabled():
        for name, fn in rejected.items():
            with pytest.raises(Exception) as info:
                fn()
            assert (type(info.value), str(info.value)) == errors[name], name
        assert F.interpolate(empty, scale_factor=2, mode="bilinear").shape == (0, 2, 6, 8)
    assert trilinear3d.stats()["upsample_bilinear2d"]["forward"] == 0


def test_direct_operator_errors():
    x = torch.randn(1, 2, 3, 4)
    with pytest.raises(ValueError, match="all given or all None"):
        trilinear3d.upsample_bilinear2d(x, [6, 8], False, 2.0, None)
    with pytest.raises(ValueError, match="must match outputSize"):
        trilinear3d.upsample_bilinear2d(x, [6, 8], False, 2.0, 2.5)
    with pytest.raises(ValueError, match="must match outputSize"):
        trilinear3d.upsample_linear1d(x[0], [9], False, 2.0)
    with pytest.raises(RuntimeError, match="Expected grad_output to have the same shape as output"):
        trilinear3d.upsample_bilinear2d_backward(torch.randn(1, 2, 6, 9), [6, 8], [1, 2, 3, 4], False)
    with pytest.raises(RuntimeError, match="expected a 4-D"):
        trilinear3d.upsample_bilinear2d(x[0], [6, 8], False)
    with pytest.raises(ValueError, match="mode must be"):
        trilinear3d.interpolate(x, size=4, mode="bicubic")


@pytest.mark.parametrize("mode,shape", [("bilinear", (2, 3, 4)), ("bilinear", (1, 2, 3, 4, 5)),
                                        ("linear", (2, 3, 4, 5))])
def test_wrong_rank_matches_torch(mode, shape):
    x = torch.randn(shape)
    size = [4] * (len(shape) - 2)
    errors = []
    for fn in (trilinear3d.interpolate, F.interpolate):
        with pytest.raises(Exception) as info:
            fn(x, size=size, mode=mode)
        errors.append((type(info.value), str(info.value)))
    assert errors[0] == errors[1]


def test_unmodified_2d_unet_runs_on_the_library_and_disable_restores():
    """A small 2-D U-Net whose decoder upsamples with nn.Upsample(mode='bilinear'), unmodified: forward and
    backward routed, equal to torch's within the bound, in both memory formats; disable() restores torch."""
    torch.manual_seed(0)
    model = UNet2d(width=4)
    for channels_last in (False, True):
        x = _format(torch.randn(2, 3, 16, 12), channels_last)
        if channels_last:
            model = model.to(memory_format=torch.channels_last)
        reference = model(x)
        ref_grads = torch.autograd.grad(reference.square().mean(), list(model.parameters()))

        trilinear3d.reset_stats()
        with trilinear3d.enabled():
            out = model(x)
            grads = torch.autograd.grad(out.square().mean(), list(model.parameters()))
        counts = trilinear3d.stats()["upsample_bilinear2d"]
        assert counts == {"forward": 2, "backward": 2, "fallback_forward": 0, "fallback_backward": 0}, counts
        torch.testing.assert_close(out, reference, rtol=1e-5, atol=1e-5)
        for a, b in zip(grads, ref_grads):
            torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-5)

        again = model(x)
        again_grads = torch.autograd.grad(again.square().mean(), list(model.parameters()))
        assert trilinear3d.stats()["upsample_bilinear2d"] == counts  # disabled: the counter stops
        assert torch.equal(again, reference)
        assert all(torch.equal(a, b) for a, b in zip(again_grads, ref_grads))


def test_nn_upsample_linear_script():
    up = nn.Upsample(scale_factor=3, mode="linear", align_corners=True)
    x = torch.randn(2, 3, 5, requires_grad=True)
    up(x).sum().backward()
    reference = x.grad
    x.grad = None
    trilinear3d.reset_stats()
    with trilinear3d.enabled():
        up(x).sum().backward()
    counts = trilinear3d.stats()["upsample_linear1d"]
    assert counts["forward"] == 1 and counts["backward"] == 1, counts
    torch.testing.assert_close(x.grad, reference, rtol=1e-5, atol=1e-5)


def test_stats_keys_and_overridden_operators():
    trilinear3d.reset_stats()
    counts = trilinear3d.stats()
    operators = {"upsample_trilinear3d", "upsample_bilinear2d", "upsample_linear1d", "upsample_bicubic2d",
                 "_upsample_bilinear2d_aa", "_upsample_bicubic2d_aa"} | {
        f"{prefix}{rank}d" for prefix in ("upsample_nearest", "_upsample_nearest_exact") for rank in (1, 2, 3)}
    assert set(counts) == {"forward", "backward", "fallback_forward", "fallback_backward"} | operators
    assert all(v == 0 for k, v in counts.items() if not isinstance(v, dict))
    assert set(trilinear3d._C._overridden_ops()) == {name + suffix for name in operators
                                                     for suffix in ("", "_backward")}
