"""trilinear3d: CANN's resize operators — linear (aclnnUpsampleTrilinear3d, aclnnUpsampleBilinear2d,
aclnnUpsampleLinear1d) and nearest (aclnnUpsampleNearest1d/2d/3d, aclnnUpsampleNearestExact1d/2d/3d), with their
backwards — on the CPU, for PyTorch.

``trilinear3d.interpolate(x, size=None, scale_factor=None, align_corners=None, mode='trilinear')`` is a drop-in
for ``torch.nn.functional.interpolate(x, ..., mode=...)`` with mode ``'trilinear'`` (5-D tensors), ``'bilinear'``
(4-D), ``'linear'`` (3-D), ``'nearest'`` or ``'nearest-exact'`` (3-, 4- or 5-D) on CPU tensors (float32,
float64, bfloat16 and float16; the nearest modes also uint8, without a gradient), differentiable (the gradient is
the library's backward), deterministic, and without layout copies for contiguous and channels-last tensors.

The operators are also registered with torch (CPU and Autograd kernels, usable from TorchScript)::

    torch.ops.trilinear3d.upsample_trilinear3d(self, output_size, align_corners,
                                               scales_d=None, scales_h=None, scales_w=None)
    torch.ops.trilinear3d.upsample_trilinear3d_backward(grad_output, output_size, input_size, align_corners,
                                                        scales_d=None, scales_h=None, scales_w=None)
    torch.ops.trilinear3d.upsample_bilinear2d(self, output_size, align_corners, scales_h=None, scales_w=None)
    torch.ops.trilinear3d.upsample_linear1d(self, output_size, align_corners, scales=None)
    torch.ops.trilinear3d.upsample_nearest2d(self, output_size, scales_h=None, scales_w=None)
    # upsample_nearest1d / 3d and _upsample_nearest_exact1d / 2d / 3d alike (aten's schemas), and each
    # operator's _backward(grad_output, output_size, input_size, [align_corners,] scales...)

``trilinear3d.enable()`` goes further: while enabled, torch's own ``aten::upsample_trilinear3d``,
``aten::upsample_bilinear2d``, ``aten::upsample_linear1d``, ``aten::upsample_nearest1d/2d/3d``,
``aten::_upsample_nearest_exact1d/2d/3d`` and their backwards on CPU tensors run this library, so
``F.interpolate``, ``nn.Upsample`` and any model built on them use it unmodified, autograd included::

    import trilinear3d
    trilinear3d.enable()            # or: with trilinear3d.enabled(): ...
    model(x).sum().backward()       # its linear and nearest upsampling runs libtrilinear3d
    trilinear3d.stats()             # {'forward': ..., 'upsample_bilinear2d': {'forward': ..., ...}, ...}
    trilinear3d.disable()           # torch's own kernels again

Cases the library does not take (other dtypes, negative strides, scales that it would use otherwise than torch:
a partial set, or scales that do not give the sizes; empty tensors, anything its validation refuses) run torch's
own CPU kernel; other devices never reach it. The nearest operators' outputs and gradients are in the memory
format of their input (grad_output) either way: torch's own upsample_nearest3d_backward returns a contiguous
gradient, the override the channels_last_3d one of a channels_last_3d grad_output.

Under ``torch.compile`` (torch 2.x) the same holds: while enabled, graphs that Dynamo and Inductor compile call
the library's forward and backward (``trilinear3d::aten_upsample_trilinear3d`` and its ``_backward``, and the
same for the other covered operators); a function compiled in one state recompiles in the other. How:
``trilinear3d._compile``.

The library's worker-core count is ``TRILINEAR3D_CORES`` (environment, read once at first use;
default: the machine's hardware threads). Set it before the first call.

Memory: outputs of 4 MiB and more come from a cache of buffers that are kept, once their tensors are
freed, for the next output of the same size (a training loop asks for the same shapes every step).
Up to ``TRILINEAR3D_PY_CACHE_MB`` megabytes of idle buffers are kept (environment, read at first use;
default 1024, 0 disables the cache). ``trilinear3d.empty_cache()`` frees the idle ones now;
``trilinear3d.cache_info()`` reports them.
"""
import contextlib
import math
import numbers
import operator
import os

# Errors reach Python as exceptions carrying the library's message; the echo on stderr is noise here.
os.environ.setdefault("TRILINEAR3D_QUIET", "1")

import torch  # noqa: E402  (loads libtorch before the extension)

try:
    from ._build_info import TORCH_VERSION as _BUILT_FOR_TORCH  # noqa: E402  (written by setup.py)
except ImportError:
    _BUILT_FOR_TORCH = None

try:
    from . import _C  # noqa: E402,F401  (registers torch.ops.trilinear3d.*)
except ImportError as error:  # e.g. the source folder python/trilinear3d imported instead of the installed one
    raise ImportError(
        f"trilinear3d: the compiled extension (trilinear3d._C) cannot be loaded from {os.path.dirname(__file__)}: "
        f"{error}. Build and install the module with `python3 -m pip install --no-build-isolation ./python` "
        f"(it was built for torch {_BUILT_FOR_TORCH}, this is torch {torch.__version__}), and import it from "
        "outside the repository's python/ folder."
    ) from error

__all__ = ["interpolate", "upsample_trilinear3d", "upsample_trilinear3d_backward", "upsample_bilinear2d",
           "upsample_bilinear2d_backward", "upsample_linear1d", "upsample_linear1d_backward", "upsample_nearest1d",
           "upsample_nearest1d_backward", "upsample_nearest2d", "upsample_nearest2d_backward", "upsample_nearest3d",
           "upsample_nearest3d_backward", "upsample_nearest_exact1d", "upsample_nearest_exact1d_backward",
           "upsample_nearest_exact2d", "upsample_nearest_exact2d_backward", "upsample_nearest_exact3d",
           "upsample_nearest_exact3d_backward", "upsample_bicubic2d", "upsample_bicubic2d_backward",
           "upsample_bilinear2d_aa", "upsample_bilinear2d_aa_backward", "upsample_bicubic2d_aa",
           "upsample_bicubic2d_aa_backward", "enable", "disable", "is_enabled", "enabled", "stats",
           "reset_stats", "empty_cache", "cache_info"]
__version__ = "0.1.0"


from . import _compile  # noqa: E402  (torch.compile: the route into compiled graphs)

_compile.install()


def enable():
    """Makes torch's ``aten::upsample_trilinear3d``, ``aten::upsample_bilinear2d``, ``aten::upsample_linear1d``,
    ``aten::upsample_nearest1d/2d/3d``, ``aten::_upsample_nearest_exact1d/2d/3d`` and their backwards on CPU
    tensors run this library (CPU kernels registered over torch's), until
    :func:`disable`; graphs that torch.compile traces meanwhile call the library too (see
    ``trilinear3d._compile``). Idempotent."""
    _C._enable()
    _compile._set_routing(True)


def disable():
    """Removes the kernels :func:`enable` registered: torch's own are active again, in eager code and in graphs
    compiled from now on (a function compiled while enabled recompiles). Idempotent."""
    _C._disable()
    _compile._set_routing(False)


def is_enabled():
    """Whether :func:`enable` is in effect."""
    return bool(_C._is_enabled())


@contextlib.contextmanager
def enabled(on=True):
    """Context manager: the override is on (``enabled()``) or off (``enabled(False)``) inside the block,
    and as before after it."""
    before = is_enabled()
    (enable if on else disable)()
    try:
        yield
    finally:
        (enable if before else disable)()


def stats():
    """Counts since import (or :func:`reset_stats`), per operator: for each of ``upsample_trilinear3d``,
    ``upsample_bilinear2d``, ``upsample_linear1d``, ``upsample_nearest1d/2d/3d`` and
    ``_upsample_nearest_exact1d/2d/3d`` (aten's names) a dict of ``forward`` and ``backward`` (the library's runs,
    through the override or ``torch.ops.trilinear3d``) and ``fallback_forward`` and ``fallback_backward`` (the
    calls the override handed to torch's own kernel). The top-level ``forward``, ``backward``,
    ``fallback_forward`` and ``fallback_backward`` are ``upsample_trilinear3d``'s (as before the other
    operators came)::

        {'forward': 2, 'backward': 2, 'fallback_forward': 0, 'fallback_backward': 0,
         'upsample_trilinear3d': {'forward': 2, ...}, 'upsample_bilinear2d': {...}, 'upsample_linear1d': {...}}
    """
    result = {}
    for name, (forward, backward, fallback_forward, fallback_backward) in _C._stats():
        result[name] = {"forward": forward, "backward": backward, "fallback_forward": fallback_forward,
                        "fallback_backward": fallback_backward}
    return {**result["upsample_trilinear3d"], **result}


def reset_stats():
    """Sets the counts of :func:`stats` to zero."""
    _C._reset_stats()


def empty_cache():
    """Frees the idle buffers of the output cache (see ``TRILINEAR3D_PY_CACHE_MB`` in the module docstring) and
    returns how many bytes that gave back. Buffers of live tensors stay theirs and return to the cache when
    those tensors are freed."""
    return int(_C._empty_cache())


def cache_info():
    """The output cache: ``idle_bytes`` and ``idle_buffers`` kept for reuse, ``capacity_bytes`` (the most idle
    bytes it keeps: ``TRILINEAR3D_PY_CACHE_MB`` MiB)."""
    idle_bytes, idle_buffers, capacity = _C._cache_info()
    return {"idle_bytes": int(idle_bytes), "idle_buffers": int(idle_buffers), "capacity_bytes": int(capacity)}

upsample_trilinear3d = torch.ops.trilinear3d.upsample_trilinear3d
upsample_trilinear3d_backward = torch.ops.trilinear3d.upsample_trilinear3d_backward
upsample_bilinear2d = torch.ops.trilinear3d.upsample_bilinear2d
upsample_bilinear2d_backward = torch.ops.trilinear3d.upsample_bilinear2d_backward
upsample_linear1d = torch.ops.trilinear3d.upsample_linear1d
upsample_linear1d_backward = torch.ops.trilinear3d.upsample_linear1d_backward
upsample_nearest1d = torch.ops.trilinear3d.upsample_nearest1d
upsample_nearest1d_backward = torch.ops.trilinear3d.upsample_nearest1d_backward
upsample_nearest2d = torch.ops.trilinear3d.upsample_nearest2d
upsample_nearest2d_backward = torch.ops.trilinear3d.upsample_nearest2d_backward
upsample_nearest3d = torch.ops.trilinear3d.upsample_nearest3d
upsample_nearest3d_backward = torch.ops.trilinear3d.upsample_nearest3d_backward
upsample_nearest_exact1d = torch.ops.trilinear3d._upsample_nearest_exact1d
upsample_nearest_exact1d_backward = torch.ops.trilinear3d._upsample_nearest_exact1d_backward
upsample_nearest_exact2d = torch.ops.trilinear3d._upsample_nearest_exact2d
upsample_nearest_exact2d_backward = torch.ops.trilinear3d._upsample_nearest_exact2d_backward
upsample_nearest_exact3d = torch.ops.trilinear3d._upsample_nearest_exact3d
upsample_nearest_exact3d_backward = torch.ops.trilinear3d._upsample_nearest_exact3d_backward
upsample_bicubic2d = torch.ops.trilinear3d.upsample_bicubic2d
upsample_bicubic2d_backward = torch.ops.trilinear3d.upsample_bicubic2d_backward
upsample_bilinear2d_aa = torch.ops.trilinear3d._upsample_bilinear2d_aa
upsample_bilinear2d_aa_backward = torch.ops.trilinear3d._upsample_bilinear2d_aa_backward
upsample_bicubic2d_aa = torch.ops.trilinear3d._upsample_bicubic2d_aa
upsample_bicubic2d_aa_backward = torch.ops.trilinear3d._upsample_bicubic2d_aa_backward

# interpolate()'s modes: the operator per input rank (the linear modes have one rank each), and whether the
# operator takes align_corners.
_MODES = {"linear": ({3: upsample_linear1d}, True), "bilinear": ({4: upsample_bilinear2d}, True),
          "trilinear": ({5: upsample_trilinear3d}, True),
          "nearest": ({3: upsample_nearest1d, 4: upsample_nearest2d, 5: upsample_nearest3d}, False),
          "nearest-exact": ({3: upsample_nearest_exact1d, 4: upsample_nearest_exact2d, 5: upsample_nearest_exact3d},
                            False)}


def _int_element(value, position):
    if isinstance(value, bool):
        raise TypeError(
            f"interpolate(): argument 'size' must be tuple of ints, but found element of type bool at pos {position}")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(
            f"interpolate(): argument 'size' must be tuple of ints, but found element of type "
            f"{type(value).__name__} at pos {position}") from None


def _float_element(value, position):
    if isinstance(value, numbers.Real):
        return float(value)
    if isinstance(value, torch.Tensor) and value.numel() == 1 and not value.is_complex():
        return float(value.item())
    raise TypeError(
        f"interpolate(): argument 'scale_factor' must be tuple of floats, but found element of type "
        f"{type(value).__name__} at pos {position}")


def _per_spatial_dim(value, dim, mismatch_message):
    """size or scale_factor as one value per spatial dim: a sequence must have dim of them, a scalar
    stands for every dim (F.interpolate's rule). mismatch_message() makes the error's text only when
    it is raised (formatting the value costs a tensor's repr on the hot path)."""
    if isinstance(value, (list, tuple)):
        if len(value) != dim:
            raise ValueError(mismatch_message())
        return list(value)
    return [value for _ in range(dim)]


def interpolate(input, size=None, scale_factor=None, align_corners=None, recompute_scale_factor=None, *,
                mode="trilinear"):
    r"""Linear or nearest interpolation of a 3-D (N, C, L), 4-D (N, C, H, W) or 5-D (N, C, D, H, W) tensor, as
    ``torch.nn.functional.interpolate(input, size, scale_factor, mode, align_corners, recompute_scale_factor)``
    with mode ``'linear'``, ``'bilinear'``, ``'trilinear'``, ``'nearest'`` or ``'nearest-exact'``, with the same
    argument rules and errors.

    Args:
        input (Tensor): CPU tensor of the mode's rank (the nearest modes: 3-, 4- or 5-D), of dtype float32,
            float64, bfloat16 or float16 (the nearest modes also uint8), in any layout (contiguous,
            channels_last / channels_last_3d and other strided views are read in place).
        size (int or Tuple[int, ...]): output spatial size (L; H, W; or D, H, W). Exactly one of ``size`` and
            ``scale_factor`` must be given.
        scale_factor (float or Tuple[float, float, float]): multiplier for the spatial size. The output
            size is ``floor(input_size * scale_factor)`` and, unless ``recompute_scale_factor`` is True,
            the scale factors themselves map output to input coordinates (as torch does).
        align_corners (bool): as in F.interpolate: the linear modes take it (None is taken as False); the
            nearest modes refuse any value but None.
        recompute_scale_factor (bool, optional): as in F.interpolate.
        mode (str, keyword only): ``'trilinear'`` (the default: the operator this module began with),
            ``'bilinear'``, ``'linear'``, ``'nearest'`` or ``'nearest-exact'``.

    Returns:
        Tensor of shape (N, C, *size) in torch's memory format for the input (channels_last and
        channels_last_3d stay so). Differentiable: the gradient is the library's backward of the mode
        (aclnnUpsampleTrilinear3dBackward, aclnnUpsampleBilinear2dBackwardV2, aclnnUpsampleLinear1dBackward,
        aclnnUpsampleNearest1d/2d/3dBackward, aclnnUpsampleNearestExact1d/2d/3dBackward).
    """
    if mode not in _MODES:
        raise ValueError("trilinear3d.interpolate: mode must be 'linear', 'bilinear', 'trilinear', 'nearest' or "
                         f"'nearest-exact', not {mode!r}")
    operators, takes_align_corners = _MODES[mode]
    if not isinstance(input, torch.Tensor):
        raise TypeError(f"interpolate(): argument 'input' must be Tensor, not {type(input).__name__}")
    if not takes_align_corners and align_corners is not None:
        raise ValueError("align_corners option can only be set with the interpolating modes: "
                         "linear | bilinear | bicubic | trilinear")
    if align_corners is None:
        align_corners = False
    if not isinstance(align_corners, bool):
        raise TypeError(f"interpolate(): argument 'align_corners' must be bool, not {type(align_corners).__name__}")

    dim = input.dim() - 2  # spatial dimensions, as F.interpolate counts them
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    elif size is not None:
        output_size = _per_spatial_dim(
            size, dim, lambda:
            "Input and output must have the same number of spatial dimensions, but got "
            f"input with spatial dimensions of {list(input.shape[2:])} and output size of {size}. "
            "Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
            "output size in (o1, o2, ...,oK) format.")
        scale_factors = None
    elif scale_factor is not None:
        scale_factors = _per_spatial_dim(
            scale_factor, dim, lambda:
            "Input and scale_factor must have the same number of spatial dimensions, but "
            f"got input with spatial dimensions of {list(input.shape[2:])} and "
            f"scale_factor of shape {scale_factor}. "
            "Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
            "scale_factor in (s1, s2, ...,sK) format.")
        output_size = None
    else:
        raise ValueError("either size or scale_factor should be defined")

    if recompute_scale_factor is not None and recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")

    if input.dim() not in operators:
        # torch's own message for the rank (it lists the modes of the torch at hand).
        torch.nn.functional.interpolate(input, size=size, scale_factor=scale_factor, mode=mode,
                                        align_corners=align_corners if takes_align_corners else None,
                                        recompute_scale_factor=recompute_scale_factor)
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs {sorted(operators)}D input")
    operator_ = operators[input.dim()]

    if output_size is not None:
        output_size = [_int_element(v, i + 1) for i, v in enumerate(output_size)]
        scales = (None,) * dim
    else:
        scale_factors = [_float_element(v, i + 1) for i, v in enumerate(scale_factors)]
        output_size = []
        for in_size, scale in zip(input.shape[2:], scale_factors):
            product = float(in_size) * scale
            if not math.isfinite(product):
                raise RuntimeError(
                    f"interpolate(): scale_factor {scale_factors} gives a non-finite output size for the "
                    f"input spatial size {list(input.shape[2:])}")
            output_size.append(int(product))  # torch's static_cast<int64_t>: floor for positive sizes
        scales = (None,) * dim if recompute_scale_factor else tuple(scale_factors)

    if takes_align_corners:
        return operator_(input, output_size, align_corners, *scales)
    return operator_(input, output_size, *scales)
