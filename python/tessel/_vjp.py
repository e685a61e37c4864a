"""Backward kernels derived from the forward (issue 45): `kernel.vjp(wrt=("x",))`.

The derivative is a KIR-to-KIR transformation in the compiler (the kir-vjp pass, run by `tessel vjp`);
this module only gives its result the surface of any kernel: `.kir()`, `.run_interp()`, `.source()`,
calls with torch tensors."""
import pathlib
import tempfile

from . import _cli
from ._errors import CompileError
from ._jit import Param
from ._kernel import Kernel
from ._types import ViewSpec


class VjpKernel(Kernel):
    """The vector-Jacobian product of `forward` with respect to the input views `wrt`.

    Its ABI is the forward's, with each output view `y` replaced in place by the input `d_y` (the
    cotangent of y) and an output view `d_x` appended for each input x of `wrt`, in the forward's
    argument order; runtime scalars and constexprs are the forward's."""

    def __init__(self, forward: Kernel, wrt):
        if isinstance(wrt, str):
            wrt = (wrt,)
        wrt = tuple(wrt)
        if not wrt:
            raise ValueError(f"{forward.name}.vjp: wrt names no input")
        views = {p.name: p for p in forward.params() if p.kind == "view"}
        for x in wrt:
            if not isinstance(x, str):
                raise TypeError(f"{forward.name}.vjp: wrt holds view names, got {x!r}")
            if x not in views:
                raise ValueError(f"{forward.name}.vjp: no view argument named {x!r}; the views are "
                                 f"{', '.join(views)}")
            if views[x].spec.mode != "in":
                raise ValueError(f"{forward.name}.vjp: {x!r} is a T.{views[x].spec.mode.capitalize()} view; only "
                                 "T.In views are differentiated")
        self.forward = forward
        self.wrt = wrt
        super().__init__(forward.fn, name=f"{forward.name}_vjp", target=forward.target, checked=forward.checked,
                         **forward.options)

    def params(self):
        if self._params is None:
            params, tail = [], []
            for p in self.forward.params():
                if p.kind != "view":
                    params.append(p)
                    continue
                spec = p.spec
                if spec.mode == "in":
                    params.append(p)
                    if p.name in self.wrt:
                        tail.append(Param(f"d_{p.name}", "view", ViewSpec("out", spec.dtype, spec.extents, None), None))
                else:
                    params.append(Param(f"d_{p.name}", "view", ViewSpec("in", spec.dtype, spec.extents, None), None))
            self._params = params + tail
        return self._params

    def kir(self, constexprs: dict | None = None, **kw) -> str:
        """The derived kernel's KIR text for one specialization of the forward (`tessel vjp`)."""
        cx = dict(constexprs or {}, **kw)
        key = self._key(cx)
        if key not in self._cache:
            forward = self.forward.kir(cx)
            with tempfile.TemporaryDirectory(prefix="tessel-vjp-") as tmp:
                path = pathlib.Path(tmp) / f"{self.forward.name}.mlir"
                path.write_text(forward)
                res = _cli.run_tessel(["vjp", f"{path}:{self.forward.name}", f"--wrt={','.join(self.wrt)}"])
                self._cache[key] = _cli.check(res, f"tessel vjp of kernel '{self.forward.name}'")
        return self._cache[key]

    def vjp(self, wrt):
        raise CompileError(f"{self.name}: the derivative of a derived kernel is not derived (no second order yet)")

    def __repr__(self):
        return f"<tessel.kernel {self.name} (vjp of {self.forward.name} wrt {', '.join(self.wrt)})>"
