"""The nearest modes: trilinear3d.interpolate(mode='nearest' / 'nearest-exact') and the operators
torch.ops.trilinear3d.upsample_nearest1d/2d/3d, _upsample_nearest_exact1d/2d/3d (and their _backward) against
F.interpolate, and enable() serving aten's nearest operators and their backwards: the forward bit for bit equal to
torch's (nearest copies values), the backward within the bound of a float64 reference; all four float dtypes and
the uint8 forward; contiguous and channels_last(_3d) read and written in place, the output and the gradient in
the input's memory format; odd ratios (7 -> 19, 13 -> 5, 1 -> N, N -> 1, large sizes); gradcheck /
gradgradcheck in float64; torch's kernel for what the library would compute differently; an unmodified model
with nn.Upsample(mode='nearest')."""
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

DTYPES = [torch.float32, torch.float64, torch.bfloat16, torch.float16]
# The backward's bound against float64 (docs/spec.md §5): sums of a few values, rounded once.
TOLERANCE = {torch.float64: 1e-12, torch.float32: 1e-5, torch.bfloat16: 1e-2, torch.float16: 2e-3}
MODES = ("nearest", "nearest-exact")
PREFIX = {"nearest": "upsample_nearest", "nearest-exact": "_upsample_nearest_exact"}
SHAPES = {1: (2, 3, 7), 2: (2, 3, 6, 5), 3: (2, 3, 4, 6, 5)}
# F.interpolate arguments per rank: an exact 2x, an odd size per axis, non-integer scales.
KWARGS = {
    1: [dict(scale_factor=2), dict(size=19), dict(scale_factor=1.5)],
    2: [dict(scale_factor=2), dict(size=(13, 4)), dict(scale_factor=(1.5, 2.5))],
    3: [dict(scale_factor=2), dict(size=(9, 5, 11)), dict(scale_factor=(1.5, 0.5, 2.5))],
}
KWARG_IDS = ["x2", "size", "scales"]
CHANNELS_LAST = {1: None, 2: torch.channels_last, 3: torch.channels_last_3d}


@pytest.fixture(autouse=True)
def _disabled_around():
    trilinear3d.disable()
    yield
    trilinear3d.disable()


def _op(mode, rank):
    return f"{PREFIX[mode]}{rank}d"


def _format(t, channels_last):
    fmt = CHANNELS_LAST[t.dim() - 2] if channels_last else torch.contiguous_format
    return t.contiguous(memory_format=fmt)


def _memory_format(rank, channels_last):
    return CHANNELS_LAST[rank] if channels_last else torch.contiguous_format


def _run(x, g, mode, fn=F.interpolate, **kwargs):
    x = x.detach().requires_grad_()
    y = fn(x, mode=mode, **kwargs)
    (gx,) = torch.autograd.grad(y, x, g)
    return y, gx


def _reference(x, g, dtype, mode, **kwargs):
    """The golden result at dtype: torch's float64 result from the inputs rounded to dtype, rounded to dtype. For
    the forward this is the nearest copy of the dtype's values itself (every value is exact in float64)."""
    return tuple(t.to(dtype) for t in _run(x.to(dtype).double(), g.to(dtype).double(), mode, **kwargs))


def _torch_forward(x, mode, **kwargs):
    """torch's own forward at x's dtype, or None where its CPU kernel lacks the dtype (torch 1.13: float16)."""
    try:
        with torch.no_grad():
            return F.interpolate(x, mode=mode, **kwargs)
    except RuntimeError:
        return None


def _check_backward(gx, ref_gx, dtype, ratio):
    tol = TOLERANCE[dtype] * max(1, ratio)
    torch.testing.assert_close(gx.double(), ref_gx.double(), rtol=tol, atol=tol)


CASES = [(mode, rank, cl) for mode in MODES for rank in (1, 2, 3) for cl in ((False, True) if rank > 1 else (False,))]
CASE_IDS = [f"{mode}-{rank}d" + ("-channels_last" if cl else "") for mode, rank, cl in CASES]


@pytest.mark.parametrize("mode,rank,channels_last", CASES, ids=CASE_IDS)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("case", range(3), ids=KWARG_IDS)
def test_enabled_matches_torch(mode, rank, channels_last, dtype, case):
    kwargs = KWARGS[rank][case]
    torch.manual_seed(0)
    x = _format(torch.randn(SHAPES[rank], dtype=torch.float64), channels_last)
    with torch.no_grad():
        shape = F.interpolate(x, mode=mode, **kwargs).shape
    g = _format(torch.randn(shape, dtype=torch.float64), channels_last)
    ref_y, ref_gx = _reference(x, g, dtype, mode, **kwargs)
    torch_y = _torch_forward(x.to(dtype), mode, **kwargs)

    trilinear3d.reset_stats()
    with trilinear3d.enabled():
        y, gx = _run(x.to(dtype), g.to(dtype), mode, **kwargs)
    counts = trilinear3d.stats()[_op(mode, rank)]
    assert counts == {"forward": 1, "backward": 1, "fallback_forward": 0, "fallback_backward": 0}, counts
    assert y.dtype == gx.dtype == dtype
    fmt = _memory_format(rank, channels_last)
    assert y.is_contiguous(memory_format=fmt) and gx.is_contiguous(memory_format=fmt)
    assert torch.equal(y, ref_y)  # nearest copies values: bit for bit
    if torch_y is not None:
        assert torch.equal(y, torch_y)
    _check_backward(gx, ref_gx, dtype, g.numel() // x.numel())

    # The direct function: the same library, the same results.
    trilinear3d.reset_stats()
    y2, gx2 = _run(x.to(dtype), g.to(dtype), mode, fn=trilinear3d.interpolate, **kwargs)
    counts = trilinear3d.stats()[_op(mode, rank)]
    assert counts["forward"] == 1 and counts["backward"] == 1, counts
    assert torch.equal(y2, y) and torch.equal(gx2, gx)
    assert y2.is_contiguous(memory_format=fmt) and gx2.is_contiguous(memory_format=fmt)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("rank,channels_last", [(1, False), (2, False), (2, True), (3, False), (3, True)],
                         ids=["1d", "2d", "2d-channels_last", "3d", "3d-channels_last"])
def test_uint8_forward(mode, rank, channels_last):
    """torch's nearest forwards take uint8; the library's too: the same bytes, in the input's memory format."""
    torch.manual_seed(0)
    x = _format(torch.randint(0, 256, SHAPES[rank], dtype=torch.uint8), channels_last)
    kwargs = KWARGS[rank][1]
    reference = F.interpolate(x.double(), mode=mode, **kwargs).to(torch.uint8)
    trilinear3d.reset_stats()
    with trilinear3d.enabled():
        y = F.interpolate(x, mode=mode, **kwargs)
    assert trilinear3d.stats()[_op(mode, rank)]["forward"] == 1
    assert y.dtype == torch.uint8 and y.is_contiguous(memory_format=_memory_format(rank, channels_last))
    assert torch.equal(y, reference)
    torch_y = _torch_forward(x, mode, **kwargs)
    if torch_y is not None:
        assert torch.equal(y, torch_y)
    assert torch.equal(trilinear3d.interpolate(x, mode=mode, **kwargs), reference)


# Sizes where the index rule's float arithmetic decides the boundary outputs: odd ratios both ways, 1 -> N,
# N -> 1, and long axes (float's 24-bit mantissa), by size and by scale factor.
ODD_SIZES = [(7, dict(size=19)), (13, dict(size=5)), (1, dict(size=9)), (9, dict(size=1)), (19, dict(size=7)),
             (5, dict(size=13)), (7, dict(scale_factor=19 / 7)), (13, dict(scale_factor=5 / 13)),
             (3001, dict(size=7919)), (7919, dict(size=3001)),
             (100003, dict(size=300007)), (4097, dict(scale_factor=1.37))]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("size,kwargs", ODD_SIZES, ids=[f"{n}-{list(k.values())[0]:.4g}" for n, k in ODD_SIZES])
def test_odd_ratios_1d(mode, size, kwargs):
    torch.manual_seed(0)
    x = torch.randn(1, 2, size, dtype=torch.float32)
    with torch.no_grad():
        ref_y = F.interpolate(x, mode=mode, **kwargs)
    g = torch.randn(ref_y.shape, dtype=torch.float32)
    _, ref_gx = _run(x.double(), g.double(), mode, **kwargs)
    trilinear3d.reset_stats()
    with trilinear3d.enabled():
        y, gx = _run(x, g, mode, **kwargs)
    counts = trilinear3d.stats()[_op(mode, 1)]
    assert counts == {"forward": 1, "backward": 1, "fallback_forward": 0, "fallback_backward": 0}, counts
    assert torch.equal(y, ref_y)
    _check_backward(gx, ref_gx, torch.float32, g.numel() // x.numel() + 1)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("rank", [2, 3])
def test_odd_ratios_every_axis(mode, rank):
    """7 -> 19 and 13 -> 5 on each axis of the 2-D and 3-D operators, both memory formats."""
    torch.manual_seed(0)
    for channels_last in (False, True):
        for sizes in ((7, 13, 13)[:rank], (13, 7, 7)[:rank]):
            out = tuple(19 if n == 7 else 5 for n in sizes)
            x = _format(torch.randn((1, 3) + sizes), channels_last)
            with torch.no_grad():
                ref_y = F.interpolate(x, size=out, mode=mode)
            g = _format(torch.randn(ref_y.shape), channels_last)
            _, ref_gx = _run(x.double(), g.double(), mode, size=out)
            trilinear3d.reset_stats()
            with trilinear3d.enabled():
                y, gx = _run(x, g, mode, size=out)
            assert trilinear3d.stats()[_op(mode, rank)]["fallback_forward"] == 0
            assert torch.equal(y, ref_y), (sizes, out, channels_last)
            _check_backward(gx, ref_gx, torch.float32, 8)


def _random_case(rng, rank):
    shape = (rng.randint(1, 2), rng.randint(1, 4)) + tuple(rng.randint(1, 9) for _ in range(rank))
    if rng.random() < 0.5:
        return shape, {"size": tuple(rng.randint(1, 17) for _ in range(rank))}
    while True:
        scales = tuple(rng.choice([0.5, 0.75, 1.0, 1.3, 1.5, 2.0, 2.5, 3.0, 1 / 3]) for _ in range(rank))
        if all(int(n * s) > 0 for n, s in zip(shape[2:], scales)):
            return shape, {"scale_factor": scales}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("rank", [1, 2, 3])
def test_interpolate_random_cases_float64(mode, rank):
    """trilinear3d.interpolate against F.interpolate in float64 on random shapes, sizes and scale factors, up
    and down, both memory formats: forward bit for bit, gradient to rounding; and a strided view."""
    rng = random.Random(11 + rank)
    for i in range(12):
        shape, kwargs = _random_case(rng, rank)
        x = _format(torch.randn(shape, dtype=torch.float64), rank > 1 and i % 2 == 1)
        with torch.no_grad():
            g = torch.randn(F.interpolate(x, mode=mode, **kwargs).shape, dtype=torch.float64)
        ref_y, ref_gx = _run(x, g, mode, **kwargs)
        y, gx = _run(x, g, mode, fn=trilinear3d.interpolate, **kwargs)
        assert torch.equal(y, ref_y), (shape, kwargs)
        torch.testing.assert_close(gx, ref_gx, rtol=1e-12, atol=1e-12, msg=lambda m: f"{shape} {kwargs}: {m}")
    x = torch.randn(SHAPES[rank][:-1] + (12,), dtype=torch.float64)[..., ::2]  # every other column, in place
    assert torch.equal(trilinear3d.interpolate(x, scale_factor=3, mode=mode), F.interpolate(x, scale_factor=3,
                                                                                           mode=mode))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("rank", [1, 2, 3])
def test_gradcheck_and_gradgradcheck(mode, rank):
    torch.manual_seed(0)
    x = torch.randn((1, 2) + (3,) * rank, dtype=torch.float64, requires_grad=True)
    cases = (dict(size=(5,) * rank), dict(scale_factor=2), dict(size=(2,) * rank))
    for kwargs in cases:
        direct = lambda t: trilinear3d.interpolate(t, mode=mode, **kwargs)  # noqa: E731
        assert torch.autograd.gradcheck(direct, (x,)) and torch.autograd.gradgradcheck(direct, (x,))
    trilinear3d.reset_stats()
    with trilinear3d.enabled():
        for kwargs in cases:
            routed = lambda t: F.interpolate(t, mode=mode, **kwargs)  # noqa: E731
            assert torch.autograd.gradcheck(routed, (x,)) and torch.autograd.gradgradcheck(routed, (x,))
    counts = trilinear3d.stats()[_op(mode, rank)]
    assert counts["forward"] > 0 and counts["backward"] > 0, counts
    assert counts["fallback_forward"] == counts["fallback_backward"] == 0, counts


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("rank", [2, 3])
def test_gradient_in_grad_outputs_memory_format(mode, rank):
    """The backward's gradient is in grad_output's memory format, whatever the input's was: both mixes, against
    torch's kernel (whose nearest3d backward returns a contiguous gradient)."""
    torch.manual_seed(0)
    name = _op(mode, rank)
    backward = getattr(torch.ops.aten, name + "_backward")
    in_size = [2, 5] + [4, 6, 3][:rank]
    out_size = [9, 10, 7][:rank]
    for g_cl in (False, True):
        g = _format(torch.randn([2, 5] + out_size, dtype=torch.float64), g_cl)
        ref = backward(g, out_size, in_size)
        trilinear3d.reset_stats()
        with trilinear3d.enabled():
            ours = backward(g, out_size, in_size)
        assert trilinear3d.stats()[name]["backward"] == 1
        assert ours.is_contiguous(memory_format=_memory_format(rank, g_cl))
        torch.testing.assert_close(ours, ref, rtol=1e-12, atol=1e-12)
        direct = getattr(trilinear3d, name.lstrip("_") + "_backward")(g, out_size, in_size)
        assert torch.equal(direct, ours)


def test_scales_the_library_would_compute_differently_fall_back_to_torch():
    """torch maps each axis by float(1 / s) where a scale is given, by float(in) / float(out) where not; the
    library likewise from the scales it is given (all or none for the forwards, float for the V2 ones). Cases
    where no set of library scales gives torch's ratios keep torch's kernel (bit for bit): a scale a float
    parameter does not hold closely enough, and a scale on an axis that upsample_nearest copies or doubles
    (torch's own kernels disagree there: the 1-D and 3-D forwards map by the scale, the 2-D forward and the
    backwards copy or halve). Partial sets and scales that do not give the sizes run the library."""
    aten = torch.ops.aten
    x2 = torch.randn(1, 2, 7, 5, dtype=torch.float64)
    g2 = torch.randn(1, 2, 10, 12, dtype=torch.float64)
    x1 = torch.randn(1, 2, 10, dtype=torch.float64)
    g1 = torch.randn(1, 2, 20, dtype=torch.float64)
    fallbacks = {  # name: (operator, call)
        "2d float-rounded scale": ("upsample_nearest2d",
                                   lambda: aten.upsample_nearest2d(x2, [10, 12], 1.5368520691948284, 2.5)),
        "1d float-rounded scale": ("upsample_nearest1d",
                                   lambda: aten.upsample_nearest1d(x2[0], [12], 2.4898532638512685)),
        "2d doubled axis": ("upsample_nearest2d", lambda: aten.upsample_nearest2d(x2, [14, 10], 2.05, 2.05)),
        "1d doubled axis": ("upsample_nearest1d", lambda: aten.upsample_nearest1d(x1, [20], 2.05)),
        "3d same-size axis": ("upsample_nearest3d", lambda: aten.upsample_nearest3d(
            x2.unsqueeze(2), [1, 10, 12], 1.01, 1.5, 2.5)),
        "1d backward doubled axis": ("upsample_nearest1d", lambda: aten.upsample_nearest1d_backward(
            g1, [20], [1, 2, 10], 2.05)),
    }
    library = {
        "2d scales": ("upsample_nearest2d", lambda: aten.upsample_nearest2d(x2, [10, 12], 1.5, 2.5)),
        "2d partial": ("upsample_nearest2d", lambda: aten.upsample_nearest2d(x2, [10, 12], 1.5, None)),
        "2d scales that do not give the sizes": ("upsample_nearest2d",
                                                  lambda: aten.upsample_nearest2d(x2, [10, 12], 1.75, 3.0)),
        "2d doubled axis, scale 2": ("upsample_nearest2d", lambda: aten.upsample_nearest2d(x2, [14, 10], 2.0, 2.0)),
        "exact 2d scales": ("_upsample_nearest_exact2d",
                            lambda: aten._upsample_nearest_exact2d(x2, [10, 12], 1.45, 2.45)),
        "exact 1d doubled axis": ("_upsample_nearest_exact1d",
                                  lambda: aten._upsample_nearest_exact1d(x1, [20], 2.05)),
        "exact 3d partial": ("_upsample_nearest_exact3d", lambda: aten._upsample_nearest_exact3d(
            x2.unsqueeze(2), [2, 10, 12], None, 1.45, None)),
        "2d backward scales": ("upsample_nearest2d", lambda: aten.upsample_nearest2d_backward(
            g2, [10, 12], [1, 2, 7, 5], 1.5368520691948284, 2.5)),
        "2d backward partial": ("upsample_nearest2d", lambda: aten.upsample_nearest2d_backward(
            g2, [10, 12], [1, 2, 7, 5], None, 2.45)),
        "exact 1d backward doubled axis": ("_upsample_nearest_exact1d",
                                           lambda: aten._upsample_nearest_exact1d_backward(
                                               g1, [20], [1, 2, 10], 2.05)),
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
            if "backward" in name:
                torch.testing.assert_close(call(), reference[name], rtol=1e-12, atol=1e-12, msg=name)
            else:
                assert torch.equal(call(), reference[name]), name
            counts = trilinear3d.stats()[op]
            assert counts["forward"] + counts["backward"] == 1, (name, counts)
            assert counts["fallback_forward"] + counts["fallback_backward"] == 0, (name, counts)


def test_direct_operators_are_the_overrides_kernels():
    """The torch.ops.trilinear3d nearest operators take any scales (torch's meaning, partial sets included):
    where the library cannot pick torch's source indices for them, torch's kernel does, as under enable()."""
    x = torch.randn(1, 2, 7, 5, dtype=torch.float64)
    trilinear3d.reset_stats()
    assert torch.equal(trilinear3d.upsample_nearest2d(x, [10, 12], 1.5, None),
                       torch.ops.aten.upsample_nearest2d(x, [10, 12], 1.5, None))
    assert torch.equal(trilinear3d.upsample_nearest2d(x, [10, 12], 1.5368520691948284, 2.5),
                       torch.ops.aten.upsample_nearest2d(x, [10, 12], 1.5368520691948284, 2.5))
    assert trilinear3d.stats()["upsample_nearest2d"] == {"forward": 1, "backward": 0, "fallback_forward": 1,
                                                         "fallback_backward": 0}
    with pytest.raises(RuntimeError, match="Input and output sizes should be greater than 0"):
        trilinear3d.upsample_nearest_exact2d(x, [0, 12])


def test_uncovered_cases_fall_back_with_torchs_errors():
    x = torch.randn(1, 2, 3, 4)
    rejected = {
        "zero size": lambda: torch.ops.aten.upsample_nearest2d(x, [0, 8]),
        "int": lambda: torch.ops.aten.upsample_nearest2d(x.int(), [6, 8]),
        "exact 1d zero size": lambda: torch.ops.aten._upsample_nearest_exact1d(x[0], [0]),
        "uint8 backward": lambda: torch.ops.aten.upsample_nearest2d_backward(
            torch.zeros(1, 2, 6, 8, dtype=torch.uint8), [6, 8], [1, 2, 3, 4]),
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
        assert F.interpolate(empty, scale_factor=2, mode="nearest").shape == (0, 2, 6, 8)
    assert trilinear3d.stats()["upsample_nearest2d"]["forward"] == 0


@pytest.mark.parametrize("mode", MODES)
def test_interpolate_argument_errors_match_torch(mode):
    x = torch.randn(1, 2, 3, 4)
    calls = [dict(size=4, align_corners=False), dict(size=4, align_corners=True), dict(size=(4, 5, 6)),
             dict(scale_factor=2, size=4)]
    for kwargs in calls:
        errors = []
        for fn in (trilinear3d.interpolate, F.interpolate):
            with pytest.raises(Exception) as info:
                fn(x, mode=mode, **kwargs)
            errors.append((type(info.value), str(info.value)))
        assert errors[0] == errors[1], kwargs
    errors = []
    for fn in (trilinear3d.interpolate, F.interpolate):  # a rank no nearest operator has
        with pytest.raises(Exception) as info:
            fn(torch.randn(1, 2, 3, 4, 5, 6), size=2, mode=mode)
        errors.append((type(info.value), str(info.value)))
    assert errors[0] == errors[1]


class _NearestNet(nn.Module):
    """A small decoder that upsamples with nn.Upsample(mode='nearest'), as FPNs and U-Nets do: it knows nothing
    of trilinear3d."""

    def __init__(self, rank):
        super().__init__()
        conv = {2: nn.Conv2d, 3: nn.Conv3d}[rank]
        self.down = conv(3, 8, 3, stride=2, padding=1)
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.mix = conv(8 + 3, 4, 3, padding=1)

    def forward(self, x):
        return self.mix(torch.cat([self.up(torch.relu(self.down(x))), x], dim=1))


@pytest.mark.parametrize("rank", [2, 3])
def test_unmodified_model_with_nn_upsample_nearest(rank):
    """Forward and backward routed (forward bit for bit, parameter gradients within the bound), in both memory
    formats; disable() restores torch."""
    torch.manual_seed(0)
    model = _NearestNet(rank)
    name = _op("nearest", rank)
    for channels_last in (False, True):
        x = _format(torch.randn((2, 3) + (8, 12, 10)[:rank]), channels_last)
        if channels_last:
            model = model.to(memory_format=CHANNELS_LAST[rank])
        reference = model(x)
        ref_grads = torch.autograd.grad(reference.square().mean(), list(model.parameters()))
        trilinear3d.reset_stats()
        with trilinear3d.enabled():
            out = model(x)
            grads = torch.autograd.grad(out.square().mean(), list(model.parameters()))
        counts = trilinear3d.stats()[name]
        assert counts == {"forward": 1, "backward": 1, "fallback_forward": 0, "fallback_backward": 0}, counts
        assert torch.equal(out, reference)
        for a, b in zip(grads, ref_grads):
            torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-5)
        again = model(x)
        assert trilinear3d.stats()[name] == counts  # disabled: the counter stops
        assert torch.equal(again, reference)


def test_stats_and_overridden_operators_cover_the_nearest_operators():
    trilinear3d.reset_stats()
    counts = trilinear3d.stats()
    names = {f"{prefix}{rank}d" for prefix in PREFIX.values() for rank in (1, 2, 3)}
    assert names <= set(counts)
    assert all(counts[name] == {"forward": 0, "backward": 0, "fallback_forward": 0, "fallback_backward": 0}
               for name in names)
    overridden = set(trilinear3d._C._overridden_ops())
    assert {name + suffix for name in names for suffix in ("", "_backward")} <= overridden
