"""trilinear3d.enable(): torch's own aten::upsample_trilinear3d(_backward) on CPU tensors run the library,
unmodified modules included; what the library does not take falls back to torch's kernel; disable() restores
torch exactly. Also the output cache's empty_cache()."""
import os
import sys

import pytest
import torch
import torch.nn.functional as F
from torch import nn

_python_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _python_dir]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import trilinear3d  # noqa: E402
from unet3d import UNet3d  # noqa: E402

DTYPES = [torch.float32, torch.float64, torch.bfloat16, torch.float16]
TOLERANCE = {torch.float64: 1e-12, torch.float32: 1e-5, torch.bfloat16: 2e-2, torch.float16: 2e-3}


@pytest.fixture(autouse=True)
def _disabled_around():
    trilinear3d.disable()
    yield
    trilinear3d.disable()


def _torch_supports(dtype):
    """torch 1.13 has no float16 CPU upsampling; 2.x has."""
    try:
        F.interpolate(torch.ones(1, 1, 2, 2, 2, dtype=dtype), size=3, mode="trilinear")
        return True
    except RuntimeError:
        return False


def _run(x, g, **kwargs):
    x = x.detach().requires_grad_()
    y = F.interpolate(x, mode="trilinear", **kwargs)
    (gx,) = torch.autograd.grad(y, x, g)
    return y, gx


def _format(t, channels_last):
    return t.contiguous(memory_format=torch.channels_last_3d) if channels_last else t.contiguous()


@pytest.mark.parametrize("channels_last", [False, True], ids=["contiguous", "channels_last_3d"])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("kwargs", [dict(scale_factor=2), dict(size=(7, 5, 9), align_corners=True),
                                    dict(scale_factor=(1.5, 0.5, 2.5))], ids=["x2", "size_align", "scales"])
def test_enabled_matches_torch(channels_last, dtype, kwargs):
    torch.manual_seed(0)
    x = _format(torch.randn(2, 3, 4, 6, 5, dtype=torch.float64), channels_last)
    with torch.no_grad():
        shape = F.interpolate(x, mode="trilinear", **kwargs).shape
    g = _format(torch.randn(shape, dtype=torch.float64), channels_last)
    if _torch_supports(dtype):
        ref_y, ref_gx = _run(x.to(dtype), g.to(dtype), **kwargs)
    else:  # compare with float64, rounded to dtype
        ref_y, ref_gx = (t.to(dtype) for t in _run(x, g, **kwargs))

    trilinear3d.reset_stats()
    with trilinear3d.enabled():
        y, gx = _run(x.to(dtype), g.to(dtype), **kwargs)
    counts = trilinear3d.stats()
    assert counts["forward"] == 1 and counts["backward"] == 1, counts
    assert counts["fallback_forward"] == counts["fallback_backward"] == 0, counts
    assert y.dtype == gx.dtype == dtype
    assert y.is_contiguous(memory_format=torch.channels_last_3d if channels_last else torch.contiguous_format)
    tol = TOLERANCE[dtype]
    torch.testing.assert_close(y, ref_y, rtol=tol, atol=tol)
    scale = max(1, g.numel() // x.numel()) * 4
    torch.testing.assert_close(gx.double(), ref_gx.double(), rtol=tol * scale, atol=tol * scale)


def test_gradcheck_and_gradgradcheck_enabled():
    torch.manual_seed(0)
    x = torch.randn(1, 2, 3, 4, 3, dtype=torch.float64, requires_grad=True)
    trilinear3d.reset_stats()
    with trilinear3d.enabled():
        for kwargs in (dict(size=(5, 7, 4)), dict(scale_factor=(2.0, 1.5, 0.7), align_corners=True)):
            fn = lambda t: F.interpolate(t, mode="trilinear", **kwargs)  # noqa: E731
            assert torch.autograd.gradcheck(fn, (x,))
            assert torch.autograd.gradgradcheck(fn, (x,))
    counts = trilinear3d.stats()
    assert counts["forward"] > 0 and counts["backward"] > 0 and counts["fallback_forward"] == 0, counts


def test_unmodified_module_runs_on_the_library_and_disable_restores():
    torch.manual_seed(0)
    model = UNet3d(width=4)
    x = torch.randn(2, 1, 8, 8, 8)
    with torch.no_grad():
        reference = model(x)
    ref_grads = torch.autograd.grad(model(x).square().mean(), list(model.parameters()))

    trilinear3d.reset_stats()
    trilinear3d.enable()
    assert trilinear3d.is_enabled()
    out = model(x)
    grads = torch.autograd.grad(out.square().mean(), list(model.parameters()))
    counts = trilinear3d.stats()
    assert counts["forward"] == 2 and counts["backward"] == 2, counts  # the two nn.Upsample of UNet3d
    torch.testing.assert_close(out, reference, rtol=1e-5, atol=1e-5)
    for a, b in zip(grads, ref_grads):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-5)

    trilinear3d.disable()
    assert not trilinear3d.is_enabled()
    with torch.no_grad():
        again = model(x)
    again_grads = torch.autograd.grad(model(x).square().mean(), list(model.parameters()))
    assert trilinear3d.stats() == counts  # the counter stops
    assert torch.equal(again, reference)  # torch's own kernels: bit-identical
    assert all(torch.equal(a, b) for a, b in zip(again_grads, ref_grads))


def test_nn_upsample_script():
    """A user's script, unmodified but for the two lines."""
    up = nn.Upsample(scale_factor=2, mode="trilinear")
    x = torch.randn(1, 2, 3, 4, 5, requires_grad=True)
    trilinear3d.reset_stats()
    trilinear3d.enable()
    up(x).sum().backward()
    assert trilinear3d.stats()["forward"] == 1 and trilinear3d.stats()["backward"] == 1


def test_overloads_and_inference_modes():
    x = torch.randn(1, 2, 3, 4, 5)
    ref = torch.ops.aten.upsample_trilinear3d.vec(x, None, False, [2.0, 2.0, 2.0])
    trilinear3d.reset_stats()
    with trilinear3d.enabled():
        vec = torch.ops.aten.upsample_trilinear3d.vec(x, None, False, [2.0, 2.0, 2.0])
        default = torch.ops.aten.upsample_trilinear3d(x, [6, 8, 10], False, 2.0, 2.0, 2.0)
        with torch.no_grad():
            nograd = F.interpolate(x, scale_factor=2, mode="trilinear")
        with torch.inference_mode():
            inference = F.interpolate(x, scale_factor=2, mode="trilinear")
    assert trilinear3d.stats()["forward"] == 4
    for t in (vec, default, nograd, inference):
        torch.testing.assert_close(t, ref, rtol=1e-5, atol=1e-5)


def test_context_manager_nests_and_enable_is_idempotent():
    trilinear3d.enable()
    trilinear3d.enable()
    with trilinear3d.enabled(False):
        assert not trilinear3d.is_enabled()
        with trilinear3d.enabled():
            assert trilinear3d.is_enabled()
        assert not trilinear3d.is_enabled()
    assert trilinear3d.is_enabled()
    trilinear3d.disable()
    trilinear3d.disable()
    assert not trilinear3d.is_enabled()
    with pytest.raises(ZeroDivisionError):
        with trilinear3d.enabled():
            1 / 0
    assert not trilinear3d.is_enabled()


def test_uncovered_cases_fall_back_to_torch():
    x = torch.randn(1, 2, 3, 4, 5, dtype=torch.float64)
    partial = torch.ops.aten.upsample_trilinear3d(x, [6, 8, 10], False, 2.0, None, None)  # one scale given
    g = torch.randn(1, 2, 6, 8, 10, dtype=torch.float64)
    partial_backward = torch.ops.aten.upsample_trilinear3d_backward(g, [6, 8, 10], [1, 2, 3, 4, 5], False, None,
                                                                    2.0, None)
    rejected = {
        "zero_size": lambda: torch.ops.aten.upsample_trilinear3d(x, [0, 8, 10], False),
        "rank": lambda: torch.ops.aten.upsample_trilinear3d(x[0], [6, 8, 10], False),
        "int": lambda: torch.ops.aten.upsample_trilinear3d(x.to(torch.int32), [6, 8, 10], False),
    }
    errors = {}
    for name, fn in rejected.items():
        with pytest.raises(Exception) as info:
            fn()
        errors[name] = (type(info.value), str(info.value))

    trilinear3d.reset_stats()
    with trilinear3d.enabled():
        assert torch.equal(torch.ops.aten.upsample_trilinear3d(x, [6, 8, 10], False, 2.0, None, None), partial)
        assert torch.equal(torch.ops.aten.upsample_trilinear3d_backward(g, [6, 8, 10], [1, 2, 3, 4, 5], False, None,
                                                                        2.0, None), partial_backward)
        for name, fn in rejected.items():
            with pytest.raises(Exception) as info:
                fn()
            assert (type(info.value), str(info.value)) == errors[name], name  # torch's own error
    counts = trilinear3d.stats()
    assert counts["forward"] == counts["backward"] == 0, counts
    assert counts["fallback_forward"] == 4 and counts["fallback_backward"] == 1, counts


def test_meta_tensors_keep_torchs_kernel():
    with trilinear3d.enabled():
        y = F.interpolate(torch.empty(1, 2, 3, 4, 5, device="meta"), scale_factor=2, mode="trilinear")
    assert y.shape == (1, 2, 6, 8, 10) and y.device.type == "meta"


def test_empty_cache_releases_idle_output_buffers():
    info = trilinear3d.cache_info()
    if info["capacity_bytes"] == 0:
        pytest.skip("TRILINEAR3D_PY_CACHE_MB=0: no cache")
    trilinear3d.empty_cache()
    assert trilinear3d.cache_info()["idle_bytes"] == 0
    x = torch.randn(1, 16, 16, 32, 32)
    y = trilinear3d.interpolate(x, scale_factor=2)  # 8 MiB: from the cache
    assert trilinear3d.cache_info()["idle_bytes"] == 0  # in use
    nbytes = y.numel() * y.element_size()
    del y
    info = trilinear3d.cache_info()
    assert info["idle_buffers"] == 1 and info["idle_bytes"] >= nbytes
    assert trilinear3d.empty_cache() == info["idle_bytes"]
    assert trilinear3d.cache_info()["idle_bytes"] == 0 and trilinear3d.cache_info()["idle_buffers"] == 0
    assert trilinear3d.empty_cache() == 0
    # The cache still works after emptying.
    y = trilinear3d.interpolate(x, scale_factor=2)
    torch.testing.assert_close(y, F.interpolate(x, scale_factor=2, mode="trilinear"), rtol=1e-5, atol=1e-5)


@pytest.mark.filterwarnings("ignore::FutureWarning")  # torch 2.15 deprecates TorchScript
@pytest.mark.filterwarnings("ignore:Converting a tensor to a Python boolean")  # F.interpolate under jit.trace
def test_torchscript_module_runs_the_library_when_enabled():
    """A scripted (and a traced) unmodified model calls aten's operators: enable() serves them as in eager."""
    torch.manual_seed(0)
    model = UNet3d(width=4).eval()
    x = torch.randn(1, 1, 8, 8, 8, requires_grad=True)
    reference = model(x)
    (ref_grad,) = torch.autograd.grad(reference.sum(), x)
    for compiled in (torch.jit.script(model), torch.jit.trace(model, x)):
        trilinear3d.reset_stats()
        with trilinear3d.enabled():
            out = compiled(x)
            (grad,) = torch.autograd.grad(out.sum(), x)
        counts = trilinear3d.stats()
        assert counts["forward"] == 2 and counts["backward"] == 2, counts
        torch.testing.assert_close(out, reference, rtol=1e-5, atol=1e-5)
        torch.testing.assert_close(grad, ref_grad, rtol=1e-4, atol=1e-5)
