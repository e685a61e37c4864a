"""Backward kernels derived from the forward (issue 45): what `kernel.vjp(wrt=("x",))` builds.

The derivative is a KIR-to-KIR transformation in the compiler (the kir-vjp pass, run by `tessel vjp`);
this module checks `wrt`, gives the derived kernel its parameters, and derives its KIR text. The
kernel object itself is `_kernel.VjpKernel`, so that the derived kernel is inspectable and callable
like any other."""
import pathlib
import tempfile

from . import _cli
from ._jit import Param
from ._types import ViewSpec


def checked_wrt(name: str, params, wrt) -> tuple:
    """`wrt` as a tuple of the names of T.In views of the kernel `name` (with `params`)."""
    wrt = (wrt,) if isinstance(wrt, str) else tuple(wrt)
    if not wrt:
        raise ValueError(f"{name}.vjp: wrt names no input")
    views = {p.name: p for p in params if p.kind == "view"}
    for x in wrt:
        if not isinstance(x, str):
            raise TypeError(f"{name}.vjp: wrt holds view names, got {x!r}")
        if x not in views:
            raise ValueError(f"{name}.vjp: no view argument named {x!r}; the views are {', '.join(views)}")
        if views[x].spec.mode != "in":
            raise ValueError(f"{name}.vjp: {x!r} is a T.{views[x].spec.mode.capitalize()} view; only T.In views "
                             "are differentiated")
    return wrt


def derived_params(params, wrt) -> list:
    """The derived kernel's parameters (the ABI kir-vjp builds): the forward's, each output view `y`
    replaced in place by the input `d_y`, then an output view `d_x` per input of `wrt`, in order."""
    out, tail = [], []
    for p in params:
        if p.kind != "view":
            out.append(p)
            continue
        spec = p.spec
        if spec.mode == "in":
            out.append(p)
            if p.name in wrt:
                tail.append(Param(f"d_{p.name}", "view", ViewSpec("out", spec.dtype, spec.extents, None), None))
        else:
            out.append(Param(f"d_{p.name}", "view", ViewSpec("in", spec.dtype, spec.extents, None), None))
    return out + tail


def derived_kir(name: str, forward_text: str, wrt) -> str:
    """The KIR text of kernel `name`'s derivative (`tessel vjp`), with the forward's locations."""
    with tempfile.TemporaryDirectory(prefix="tessel-vjp-") as tmp:
        path = pathlib.Path(tmp) / f"{name}.mlir"
        path.write_text(forward_text)
        res = _cli.run_tessel(["vjp", f"{path}:{name}", f"--wrt={','.join(wrt)}"])
        return _cli.check(res, f"tessel vjp of kernel '{name}'")
