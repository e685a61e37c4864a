"""tessel: a GPU kernel compiler. This package is the pure-Python authoring side.

    import tessel
    import tessel.language as T

    @tessel.kernel
    def softmax(x: T.In[T.f32, ("M", "N")], y: T.Out[T.f32, ("M", "N")]):
        cols = T.domain(0, x.shape[1])
        for m in T.parallel(T.domain(0, x.shape[0])):
            row = x[m, cols]
            e = T.exp(row - T.max(row))
            y[m, cols] = e / T.sum(e)

    print(softmax.kir())                       # KIR text
    out = softmax.run_interp(shapes={"M": 3, "N": 5})   # CPU reference interpreter
"""
from ._autograd import autograd
from ._errors import CompileError, Loc
from ._kernel import Kernel, kernel
from ._jit import Fn, fn
from . import language

__all__ = ["CompileError", "autograd", "Fn", "Kernel", "Loc", "fn", "kernel", "language"]
__version__ = "0.1.0"
