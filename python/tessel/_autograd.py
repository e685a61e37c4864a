"""`tessel.autograd(kernel, wrt=...)`: a tessel kernel as a differentiable torch function (issue 45).

The returned callable takes the kernel's input views (positionally, in the kernel's order; tensors)
and its scalars (by keyword), allocates the output views, runs the kernel, and returns the outputs
(one tensor, or a tuple in the kernel's order). Its backward runs the derived kernel
`kernel.vjp(wrt)` (docs/language.md, "Derived backward kernels"): the forward's inputs and the
outputs' cotangents in, the cotangents of the `wrt` inputs out (the other inputs get none).

Both directions are torch custom operators (`torch.ops.tessel.<name>_fwd` and `<name>_bwd`,
registered through torch.library with fake implementations that allocate the outputs from the
inputs' shapes), the forward's backward formula registered with `register_autograd`: so the
function works in eager mode and inside `torch.compile(fullgraph=True)`, where both stay opaque
calls in the forward and backward graphs.

What is checked when `tessel.autograd` is called: the kernel has no InOut view; every output extent
is a number or a shape symbol some input view names (so the outputs can be allocated); every `wrt`
name is a float input view; and the derivative derives (its KIR is built now, so a kernel whose
backward cannot be derived raises the kir-vjp error here, at the author's line, not at the first
backward). Constexprs are fixed per function (`constexprs=`).
"""
from __future__ import annotations

import inspect
import re
import typing

_names: set = set()  # operator names taken by autograd functions of this process


def _dtype(torch, spec):
    from ._torch import _DTYPES
    return getattr(torch, _DTYPES[spec.dtype.name])


def _op_base(kernel) -> str:
    base = re.sub(r"\W", "_", kernel.name) or "kernel"
    name, n = base, 1
    while f"{name}_fwd" in _names:
        n += 1
        name = f"{base}_{n}"
    _names.add(f"{name}_fwd")
    return name


def _launcher(interpreter: bool, constexprs: dict):
    """How a kernel runs on {view name: tensor} (outputs written in place): launched as a call of the
    kernel, or on the KIR interpreter (`Kernel.run_interp`, CPU, NumPy; any dtype NumPy holds, f64
    GEMMs included, which no GPU provider spells)."""
    def launch(k, given, scalars):
        views = [p for p in k.params() if p.kind == "view"]
        if not interpreter:
            k(*[given[p.name] for p in views], **scalars, **constexprs)
            return
        import torch
        got = k.run_interp(shapes={}, scalars=scalars, constexprs=constexprs,
                           inputs={p.name: given[p.name].detach().cpu().numpy() for p in views
                                   if p.spec.mode == "in"})
        for p in views:
            if p.spec.mode == "out":
                t = given[p.name]
                t.copy_(torch.from_numpy(got[p.name].reshape(tuple(t.shape))))
    return launch


def autograd(kernel, wrt=None, *, constexprs: dict | None = None, interpreter: bool = False):
    """A torch-callable whose forward is `kernel` and whose backward is `kernel.vjp(wrt)`.

    `wrt`: the input views to differentiate (names; default every float T.In view). Call the result
    with the kernel's T.In views positionally (in order) and its scalars by keyword; it returns the
    T.Out views (freshly allocated; a tuple when the kernel has several). `interpreter=True` runs both
    kernels on the KIR interpreter instead of launching them (CPU tensors; for checks in float64).
    Raises `CompileError` (the derivation's reason, at the op) when the backward cannot be derived,
    `ValueError` when the kernel's outputs cannot be allocated from its inputs."""
    import torch

    from . import _vjp

    constexprs = dict(constexprs or {})
    params = kernel.params()
    views = [p for p in params if p.kind == "view"]
    scalars = [p for p in params if p.kind == "scalar"]
    ins = [p for p in views if p.spec.mode == "in"]
    outs = [p for p in views if p.spec.mode == "out"]
    name = kernel.name
    for p in views:
        if p.spec.mode == "inout":
            raise ValueError(f"tessel.autograd({name}): '{p.name}' is a T.InOut view; a differentiable function "
                             "reads its inputs and writes fresh outputs")
    if not outs:
        raise ValueError(f"tessel.autograd({name}): the kernel writes no T.Out view")
    if wrt is None:
        wrt = tuple(p.name for p in ins if p.spec.dtype.is_float)
    wrt = _vjp.checked_wrt(name, params, wrt)
    # Each output extent: a number, or a symbol an input names at (input position, axis).
    where = {}
    for i, p in enumerate(ins):
        for axis, e in enumerate(p.spec.extents):
            if isinstance(e, str):
                where.setdefault(e, (i, axis))
    for p in outs:
        for e in p.spec.extents:
            if isinstance(e, str) and e not in where:
                raise ValueError(f"tessel.autograd({name}): output '{p.name}' has extent '{e}', which no input view "
                                 "names, so it cannot be allocated")
    derived = kernel.vjp(wrt)
    launch = _launcher(interpreter, constexprs)
    derived.kir(constexprs)  # derives now: a CompileError names the op that has no derivative

    def shape(p, args):
        return [e if isinstance(e, int) else args[where[e][0]].shape[where[e][1]] for e in p.spec.extents]

    base = _op_base(kernel)
    P = inspect.Parameter
    kw = [P(s.name, P.KEYWORD_ONLY, annotation=float if s.spec.is_float else int) for s in scalars]

    def many(n):
        return typing.Tuple[(torch.Tensor,) * n]

    def fwd(*args, **kwargs):
        made = [torch.empty(shape(p, args), dtype=_dtype(torch, p.spec), device=args[0].device) for p in outs]
        given = {p.name: a for p, a in zip(ins, args)}
        given.update({p.name: t for p, t in zip(outs, made)})
        launch(kernel, given, kwargs)
        return made[0] if len(made) == 1 else tuple(made)

    def fwd_fake(*args, **kwargs):
        from ._torch import check_views
        check_views(name, list(zip(ins, args)))
        made = [args[0].new_empty(shape(p, args), dtype=_dtype(torch, p.spec)) for p in outs]
        return made[0] if len(made) == 1 else tuple(made)

    fwd.__signature__ = inspect.Signature(
        [P(p.name, P.POSITIONAL_OR_KEYWORD, annotation=torch.Tensor) for p in ins] + kw,
        return_annotation=torch.Tensor if len(outs) == 1 else many(len(outs)))
    forward_op = torch.library.custom_op(f"tessel::{base}_fwd", fwd, mutates_args=())
    forward_op.register_fake(fwd_fake)

    wrt_ins = [p for p in ins if p.name in wrt]

    def bwd(*args, **kwargs):
        # args: the forward's inputs, then one cotangent per output.
        given = {p.name: a for p, a in zip(ins, args)}
        given.update({f"d_{p.name}": g for p, g in zip(outs, args[len(ins):])})
        made = [torch.empty_like(given[p.name], memory_format=torch.contiguous_format) for p in wrt_ins]
        given.update({f"d_{p.name}": t for p, t in zip(wrt_ins, made)})
        launch(derived, given, kwargs)
        return made[0] if len(made) == 1 else tuple(made)

    def bwd_fake(*args, **kwargs):
        made = [torch.empty_like(a, memory_format=torch.contiguous_format) for p, a in zip(ins, args) if p.name in wrt]
        return made[0] if len(made) == 1 else tuple(made)

    bwd.__signature__ = inspect.Signature(
        [P(p.name, P.POSITIONAL_OR_KEYWORD, annotation=torch.Tensor) for p in ins]
        + [P(f"d_{p.name}", P.POSITIONAL_OR_KEYWORD, annotation=torch.Tensor) for p in outs] + kw,
        return_annotation=torch.Tensor if len(wrt_ins) == 1 else many(len(wrt_ins)))
    backward_op = torch.library.custom_op(f"tessel::{base}_bwd", bwd, mutates_args=())
    backward_op.register_fake(bwd_fake)

    def setup_context(ctx, inputs, keyword_only_inputs, output):
        ctx.save_for_backward(*inputs)
        ctx.scalars = dict(keyword_only_inputs)

    def backward(ctx, *grads):
        inputs = ctx.saved_tensors
        # The cotangents in the outputs' dtypes and layouts the derived kernel reads (a sum's backward
        # hands an expanded, stride-0 gradient: read as it is).
        got = backward_op(*inputs, *grads, **ctx.scalars)
        got = (got,) if len(wrt_ins) == 1 else tuple(got)
        it = iter(got)
        return tuple(next(it) if p.name in wrt else None for p in ins)

    if kw:
        forward_op.register_autograd(backward, setup_context=setup_context)
    else:
        forward_op.register_autograd(
            backward, setup_context=lambda ctx, inputs, output: setup_context(ctx, inputs, {}, output))

    def function(*args, **kwargs):
        if len(args) != len(ins):
            raise TypeError(f"tessel.autograd({name}) takes the {len(ins)} input views "
                            f"({', '.join(p.name for p in ins)}) positionally, got {len(args)}")
        return forward_op(*args, **kwargs)

    function.__name__ = f"{name}_autograd"
    function.__doc__ = (f"tessel kernel '{name}' as a differentiable function of "
                        f"({', '.join(p.name for p in ins)}); backward: its vjp wrt {', '.join(wrt)}.")
    function.forward_op, function.backward_op, function.vjp = forward_op, backward_op, derived
    function.op_names = (f"tessel::{base}_fwd", f"tessel::{base}_bwd")  # as torch.ops.tessel.<name> spells them
    return function

