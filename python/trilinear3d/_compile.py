"""torch.compile support: while enable() is in effect, compiled graphs call the library.

Eager torch reaches the library through the CPU kernels that enable() registers for aten's operators. A
compiled graph never does: AOTAutograd and Inductor trace ``F.interpolate`` with torch's Python
decompositions (torch/_decomp), which turn aten's ``upsample_trilinear3d.vec`` into index arithmetic before
any CPU kernel is consulted, and Inductor compiles that arithmetic into its own loops. So, for every operator
of :data:`COVERED`:

* **An opaque operator.** ``trilinear3d::aten_<name>`` and ``trilinear3d::aten_<name>_backward`` carry aten's
  own schemas (SymInt sizes: dynamic shapes trace) and the override's CPU kernels (the library where it takes
  the case, torch's kernel otherwise; defined in python/csrc/trilinear3d_ext.cpp). Here they get their fake
  (shape and memory format) and autograd registrations (``torch.library.register_fake`` and
  ``register_autograd``): the backward is the ``_backward`` operator, whose own backward is the forward.
  Inductor calls such operators as extern kernels.
* **The route.** The Python decomposition of aten's ``<name>.vec`` (the overload ``F.interpolate`` and
  ``nn.Upsample`` call; torch keeps it in ``OpOverload.py_kernels``, used only while tracing under the
  Python dispatcher) is wrapped: while enabled, a case the library takes (a CPU tensor of a covered dtype and
  rank, all scales or none) becomes a call of the opaque operator; anything else, and everything while
  disabled, is torch's decomposition unchanged. Eager execution never runs this code.
* **Guards and caches.** The route's decision depends on enable(), which neither Dynamo nor the compile
  caches see. When Dynamo traces a covered operator, the wrapper adds a Dynamo guard on the routing state (a
  graph compiled before enable() recompiles after it, and the other way round; both stay cached, so
  switching back and forth costs no further compiles), and enable() adds ``+trilinear3d:<the covered
  operators>`` to ``torch.compiler.config.cache_key_tag`` (the documented way to separate the on-disk FX graph
  and AOTAutograd caches) while it is in effect.

The two hooks into torch's internals, the ``py_kernels`` entries and the Dynamo guard, are here alone, and
checked: where a torch lacks what they need, a warning says so; without the route compiled graphs keep
torch's behaviour, and without the guard enable() and disable() call ``torch.compiler.reset()`` instead.

Adding an operator of the resize family (say ``upsample_bilinear2d``): its kernel in ForEachOverride
(python/csrc/trilinear3d_ext.cpp) and a row of :data:`COVERED`; everything else follows from aten's schemas
(the nearest operators have no ``align_corners``: the route passes on whatever aten's schema has between the
sizes and the scales).
"""
import dataclasses
import sys
import warnings

import torch

from . import _C

_LIBRARY_DTYPES = (torch.float32, torch.float64, torch.bfloat16, torch.float16)


@dataclasses.dataclass(frozen=True)
class Covered:
    """An aten operator that enable() serves, with its ``_backward``. Its arguments, in every overload, are
    read from aten's schemas: ``output_size`` (the spatial dims), ``scales_*`` / ``scale_factors``, and any
    others (``align_corners``) passed through in order."""
    name: str
    dtypes: tuple = _LIBRARY_DTYPES

    @property
    def spatial_dims(self):
        for argument in getattr(torch.ops.aten, self.name).default._schema.arguments:
            if argument.name == "output_size":
                return argument.N
        raise AssertionError(f"aten::{self.name} has no output_size")


# The nearest operators' forwards also take uint8 (as torch's do; there is no uint8 gradient).
_NEAREST_DTYPES = _LIBRARY_DTYPES + (torch.uint8,)

# The table of covered operators: one row per aten operator (forward; its _backward comes with it).
COVERED = (
    Covered("upsample_trilinear3d"),
    Covered("upsample_bilinear2d"),
    Covered("upsample_linear1d"),
    Covered("upsample_nearest3d", _NEAREST_DTYPES),
    Covered("upsample_nearest2d", _NEAREST_DTYPES),
    Covered("upsample_nearest1d", _NEAREST_DTYPES),
    Covered("_upsample_nearest_exact3d", _NEAREST_DTYPES),
    Covered("_upsample_nearest_exact2d", _NEAREST_DTYPES),
    Covered("_upsample_nearest_exact1d", _NEAREST_DTYPES),
    Covered("upsample_bicubic2d"),
    Covered("_upsample_bilinear2d_aa"),
    Covered("_upsample_bicubic2d_aa"),
)

_routing = False  # enable() in effect; read by the route while tracing (and guarded by Dynamo)
_route_installed = False
_guard_available = None  # None until the first traced call tells
# The compile caches' tag while enabled. It names the covered operators: a cache filled by a version of this
# module that routed fewer of them must not serve this one's graphs (their keys are the graph before the route).
_CACHE_TAG = "+trilinear3d:" + ",".join(row.name for row in COVERED)


def supported():
    """Whether this torch has torch.compile and the library registrations the route needs."""
    return hasattr(torch, "compile") and hasattr(torch.library, "register_fake") and hasattr(
        torch.library, "register_autograd") and hasattr(torch.ops.trilinear3d, "aten_" + COVERED[0].name)


def _suggest_memory_format(t):
    from torch._prims_common import suggest_memory_format
    return suggest_memory_format(t)


def _register_operator(row):
    """Fake and autograd registrations of trilinear3d::aten_<name> and aten_<name>_backward."""
    forward = getattr(torch.ops.trilinear3d, "aten_" + row.name).default
    backward = getattr(torch.ops.trilinear3d, "aten_" + row.name + "_backward").default
    forward_arity = len(forward._schema.arguments)
    backward_arity = len(backward._schema.arguments)

    # forward(self, output_size, *rest); backward(grad_output, output_size, input_size, *rest): rest is the
    # same arguments (align_corners where the operator has it, then the scales) in both.
    def forward_fake(self, output_size, *rest):
        return torch.empty((self.shape[0], self.shape[1], *output_size), dtype=self.dtype, device=self.device,
                           memory_format=_suggest_memory_format(self))

    def backward_fake(grad_output, output_size, input_size, *rest):
        return torch.empty(tuple(input_size), dtype=grad_output.dtype, device=grad_output.device,
                           memory_format=_suggest_memory_format(grad_output))

    def forward_setup(ctx, inputs, output):
        ctx.input_size = list(inputs[0].shape)
        ctx.output_size = list(inputs[1])
        ctx.rest = tuple(inputs[2:])

    def forward_grad(ctx, grad):
        grad_input = backward(grad, ctx.output_size, ctx.input_size, *ctx.rest)
        return (grad_input,) + (None,) * (forward_arity - 1)

    def backward_setup(ctx, inputs, output):
        ctx.output_size = list(inputs[1])
        ctx.rest = tuple(inputs[3:])

    def backward_grad(ctx, grad):  # the backward is linear in grad_output: its gradient is the forward
        return (forward(grad, ctx.output_size, *ctx.rest),) + (None,) * (backward_arity - 1)

    torch.library.register_fake(forward, forward_fake)
    torch.library.register_fake(backward, backward_fake)
    torch.library.register_autograd(forward, forward_grad, setup_context=forward_setup)
    torch.library.register_autograd(backward, backward_grad, setup_context=backward_setup)


def _route(row):
    """The wrapper of torch's decomposition of aten.<name>.vec."""
    from torch._decomp.decompositions import upsample_compute_output_size

    vec = getattr(torch.ops.aten, row.name).vec
    forward = getattr(torch.ops.trilinear3d, "aten_" + row.name).default
    names = [argument.name for argument in vec._schema.arguments]
    defaults = {a.name: a.default_value for a in vec._schema.arguments if a.has_default_value()}
    middle = [name for name in names if name not in ("input", "output_size", "scale_factors")]
    dims = row.spatial_dims

    def routed_call(args, kwargs):
        """The opaque operator's call for this case, or None where torch's decomposition keeps it."""
        bound = dict(defaults)
        bound.update(zip(names, args))
        bound.update(kwargs)
        x, output_size, scale_factors = bound["input"], bound["output_size"], bound.get("scale_factors")
        if not isinstance(x, torch.Tensor) or x.device.type != "cpu" or x.dtype not in row.dtypes or \
                x.dim() != dims + 2:
            return None
        if scale_factors is not None and (len(scale_factors) != dims or any(s <= 0 for s in scale_factors)):
            return None  # the library takes all scales (> 0) or none; torch decides the rest
        if output_size is not None and len(output_size) != dims:
            return None
        osize = upsample_compute_output_size(x.size(), output_size, scale_factors)
        scales = list(scale_factors) if scale_factors is not None else [None] * dims
        return forward(x, osize, *[bound[name] for name in middle], *scales)

    def wrap(original):
        def kernel(*args, **kwargs):
            _guard_routing()
            if _routing:
                out = routed_call(args, kwargs)
                if out is not None:
                    return out
            return original(*args, **kwargs)
        kernel.__wrapped__ = original
        kernel.__name__ = f"trilinear3d_route_{row.name}_vec"
        return kernel

    return vec, wrap


# --- The two hooks into torch's internals ----------------------------------------------------------------

_ROUTED_KEYS = ("CompositeImplicitAutograd", "Autograd")


def _install_route():
    """Wraps torch's Python decompositions of aten.<name>.vec (OpOverload.py_kernels, private): see above."""
    global _route_installed
    if _route_installed:
        return True
    try:
        import torch._decomp.decompositions  # noqa: F401  (registers the py_kernels wrapped here)
        for row in COVERED:
            vec, wrap = _route(row)
            keys = [getattr(torch._C.DispatchKey, name) for name in _ROUTED_KEYS]
            if keys[0] not in vec.py_kernels:
                raise LookupError(f"aten.{row.name}.vec has no Python decomposition ({_ROUTED_KEYS[0]})")
            for key in keys:
                if key in vec.py_kernels:
                    vec.py_kernels[key] = wrap(vec.py_kernels[key])
            vec._dispatch_cache.clear()
    except Exception as error:  # noqa: BLE001  (any change of torch's internals: keep torch's behaviour)
        warnings.warn(f"trilinear3d: torch {torch.__version__}: compiled graphs keep torch's own upsampling "
                      f"(the route into torch's decompositions is unavailable: {error!r})", stacklevel=3)
        return False
    _route_installed = True
    return True


def _guard_routing():
    """While Dynamo traces, guards the frame being compiled on the routing state (private Dynamo API)."""
    global _guard_available
    if _guard_available is False:
        return
    try:
        symbolic_convert = sys.modules.get("torch._dynamo.symbolic_convert")
        tx = getattr(symbolic_convert.tls, "current_tx", None) if symbolic_convert is not None else None
        if tx is None:
            return  # not Dynamo (make_fx, export, the Python dispatcher in eager code): nothing to guard
        from torch._dynamo.guards import GuardBuilder, install_guard
        from torch._dynamo.source import AttrSource
        install_guard(AttrSource(tx.import_source(__name__), "_routing").make_guard(GuardBuilder.CONSTANT_MATCH))
        _guard_available = True
    except Exception as error:  # noqa: BLE001
        if _guard_available is None:
            warnings.warn(f"trilinear3d: torch {torch.__version__}: no Dynamo guard on enable() ({error!r}); "
                          "enable() and disable() reset torch.compile's caches instead", stacklevel=2)
        _guard_available = False


def _set_routing(on):
    """enable() / disable(): the route's state, the compile caches' tag, and (without the guard) a reset."""
    global _routing
    if not _route_installed or _routing == on:
        return
    _routing = on
    from torch.compiler import config as compiler_config
    tag = compiler_config.cache_key_tag
    if on and not tag.endswith(_CACHE_TAG):
        compiler_config.cache_key_tag = tag + _CACHE_TAG
    elif not on and tag.endswith(_CACHE_TAG):
        compiler_config.cache_key_tag = tag[:-len(_CACHE_TAG)]
    if _guard_available is False:
        torch.compiler.reset()


def install():
    """At import: the operators' registrations and the route, where this torch can compile."""
    if not supported():
        return False
    for row in COVERED:
        assert row.name in _C._overridden_ops() and row.name + "_backward" in _C._overridden_ops(), row
        _register_operator(row)
    return _install_route()
