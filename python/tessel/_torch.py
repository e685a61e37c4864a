"""`@tessel.kernel` kernels as PyTorch custom operators, so `torch.compile` keeps them in its graph.

Each kernel is registered once as `torch.ops.tessel.<name>` (a suffix `_2`, `_3`, ... when another
kernel object took the name) with the schema of its signature: views are tensors, in order, and the
views it writes (`Out`, `InOut`) are declared mutated, so the schema stays functional (the op
returns nothing; torch.compile's functionalization handles the writes); scalars are `float`/`int`
and constexprs `bool`/`int`/`str` keyword arguments (an Enum constexpr travels as its member's
name), defaults included. The fake (meta) implementation checks what the generated wrapper checks
(element types, ranks, static extents, equal extents of a shared shape symbol, one device) on fake
tensors, so a mismatch is reported while tracing, and allocates nothing: the outputs are the views
the caller passes in. The real implementation is the ordinary eager call.

A kernel registers when it is created if torch is already imported (else at its first call, or at
`kernel.torch_op()`): torch.compile cannot register an operator while it traces. Under
`torch.compile` a kernel call becomes a call of its operator (see `Kernel.__call__`).
"""
from __future__ import annotations

import enum
import inspect
import re
import sys

_names: dict = {}  # op name -> the kernel registered under it


def compiling() -> bool:
    """Whether torch.compile (Dynamo) is tracing the caller. Replaced by torch's own check once torch
    is loaded, so Dynamo folds it to True in traced code and the eager path pays one call."""
    return False


_DTYPES = {"f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64", "i1": "bool",
           "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64", "f8e4m3": "float8_e4m3fn",
           "f8e5m2": "float8_e5m2"}


def _op_name(kernel) -> str:
    base = re.sub(r"\W", "_", kernel.name) or "kernel"
    name, n = base, 1
    while name in _names and _names[name] is not kernel:
        n += 1
        name = f"{base}_{n}"
    return name


def register(kernel):
    """Registers `kernel` as a custom operator (once); returns it."""
    import torch

    global compiling
    compiling = torch.compiler.is_compiling
    params = kernel.params()
    views = [p for p in params if p.kind == "view"]
    scalars = [p for p in params if p.kind == "scalar"]
    constexprs = [p for p in params if p.kind == "constexpr"]
    P = inspect.Parameter
    signature = [P(p.name, P.POSITIONAL_OR_KEYWORD, annotation=torch.Tensor) for p in views]
    signature += [P(p.name, P.KEYWORD_ONLY, annotation=float if p.spec.is_float else int) for p in scalars]
    enums = {}
    for p in constexprs:
        kind = p.spec.kind
        default = P.empty if p.default is None else p.default
        if isinstance(kind, type) and issubclass(kind, enum.Enum):
            enums[p.name] = kind
            kind = str
            default = default.name if isinstance(default, enum.Enum) else default
        signature.append(P(p.name, P.KEYWORD_ONLY, annotation=kind, default=default))
    defaults = {p.name: p.default for p in constexprs if p.default is not None}

    def real(*args, **kwargs):
        # Constexprs at their defaults are left out: the eager call then shares the plain call's
        # cached launcher and tuned winner.
        for name, kind in enums.items():
            if isinstance(kwargs.get(name), str):
                kwargs[name] = kind[kwargs[name]]
        for name, value in defaults.items():
            if name in kwargs and kwargs[name] == value and type(kwargs[name]) is type(value):
                del kwargs[name]
        kernel(*args, **kwargs)

    real.__signature__ = inspect.Signature(signature, return_annotation=None)
    name = _op_name(kernel)
    op = torch.library.custom_op(f"tessel::{name}", real,
                                 mutates_args=tuple(p.name for p in views if p.spec.mode != "in"))

    def fake(*args, **kwargs):
        bound = inspect.Signature(signature).bind(*args, **kwargs)
        check_views(kernel.name, [(p, bound.arguments[p.name]) for p in views])

    op.register_fake(fake)
    _names[name] = kernel
    kernel._op, kernel._op_name, kernel._op_enums = op, name, tuple(enums)
    return op


def register_if_loaded(kernel) -> None:
    """Registers `kernel` now when torch is already imported; a kernel whose signature does not
    resolve yet (or is not one torch can express) is registered, or reports why not, on demand."""
    if "torch" in sys.modules:
        try:
            register(kernel)
        except Exception as e:  # noqa: BLE001 - `kernel.torch_op()` raises it again; compiling names it
            kernel._op_error = f"{type(e).__name__}: {e}"


def check_registered(kernel) -> None:
    """Inside torch.compile, a kernel without an operator (made before torch was imported and never
    called since, or one whose registration failed) cannot become one: say why, rather than let
    Dynamo trace into the eager path."""
    torch = sys.modules.get("torch")
    if torch is not None and torch.compiler.is_compiling():
        why = getattr(kernel, "_op_error", None)
        if why:
            raise RuntimeError(f"tessel kernel '{kernel.name}' has no torch operator: {why}")
        raise RuntimeError(f"tessel kernel '{kernel.name}' was created before torch was imported and is called "
                           f"for the first time inside torch.compile, which cannot register its operator: call "
                           f"{kernel.name}.torch_op() once before compiling (or import torch first)")


def check_views(kernel_name: str, views) -> None:
    """The wrapper's checks of (param, tensor) pairs that hold for fake tensors too."""
    import torch

    sizes, device = {}, None
    for p, t in views:
        spec = p.spec
        where = f"kernel '{kernel_name}': argument '{p.name}'"
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{where} must be a torch.Tensor, got {type(t).__name__}")
        dtype = getattr(torch, _DTYPES[spec.dtype.name])
        if t.dtype != dtype:
            raise TypeError(f"{where} must have dtype {dtype}, got {t.dtype}")
        if t.dim() != len(spec.extents):
            raise ValueError(f"{where} must have rank {len(spec.extents)}, got {t.dim()}")
        for axis, (extent, size) in enumerate(zip(spec.extents, t.shape)):
            if isinstance(extent, int):
                if size != extent:
                    raise ValueError(f"{where} axis {axis} must have extent {extent}, got {size}")
            elif sizes.setdefault(extent, size) != size:
                raise ValueError(f"{where} axis {axis} is extent '{extent}' = {sizes[extent]} elsewhere, got {size}")
        if device is not None and t.device != device:
            raise ValueError(f"{where} is on {t.device}, other arguments on {device}")
        device = t.device


def call_arguments(kernel, kwargs: dict) -> dict:
    """The keyword arguments of a traced call as the operator takes them (Enum constexprs by name)."""
    return {k: (v.name if k in kernel._op_enums and isinstance(v, enum.Enum) else v) for k, v in kwargs.items()}
