"""tessel.language — the kernel authoring DSL (`import tessel.language as T`).

See docs/language.md for every construct with an example. Summary:

* parameters: ``T.In[T.f32, ("M", "N")]``, ``T.Out[...]``, ``T.InOut[...]`` (optional third entry
  ``T.Range(lo, hi)`` for integer inputs), runtime scalars (``eps: T.f32``) and
  ``T.Constexpr[bool|int|str|Enum]`` specialization parameters (resolved at trace time);
* element types: ``T.f16 T.bf16 T.f32 T.f64 T.f8e4m3 T.f8e5m2 T.i1 (T.bool_) T.i8 T.i16 T.i32 T.i64 T.index``;
  calling one makes a typed constant, ``T.f32(0.5)``;
* domains: ``T.domain(lo, hi, step=1)``, ``T.extent("N")`` / ``x.shape[0]``, subregions ``d[b:e]``,
  ``T.indices(d)``, ``T.index_relation(ids, d)``;
* accesses: ``x[i, cols]`` (load), ``y[i, cols] = v`` (store), ``T.load``/``T.store`` with ``valid=``
  / ``fill=``, gathers and scatters through index-tensor coordinates, ``T.scatter_reduce``, atomics,
  ``T.buffer``;
* pointwise math, comparisons, ``T.where``, ``T.cast``, broadcasting by axis provenance;
* structured ops: ``T.sum/max/min/any/all``, ``T.reduce``, ``T.argmax/argmin``, ``T.scan``,
  ``T.cumsum/cummax/cummin``, ``T.contract/dot/matvec/vecmat/matmul/outer``, ``T.histogram``,
  ``T.region_fold``, ``T.region_scan``;
* control: ``T.parallel``; ordinary ``if``/``for``/``while`` over runtime values (rewritten into
  kir.if / kir.for / kir.while with carries, see _pycontrol.py); ``T.for_``, ``T.if_``, ``T.while_``.
"""
from ._types import (  # noqa: F401
    Constexpr, DType, In, InOut, Out, Range, bf16, f16, f32, f64, f8e4m3, f8e5m2, i1, i8, i16, i32, i64, index,
)
from ._core import Domain, Record, Value, View  # noqa: F401
from ._semantic import (  # noqa: F401
    atomic_add, atomic_cas, atomic_load, atomic_max, atomic_min, atomic_rmw, atomic_store, bitcast, broadcast,
    broadcast_to, buffer, cast, domain, extent, extract, fdiv, full, full_like, index_relation, indices, join,
    load, maximum, minimum, ones, record, record_get, reshape, store, subregion, transpose, where, zeros,
)
from ._structured import (  # noqa: F401
    argmax, argmin, contract, cummax, cummin, cumsum, dot, histogram, matmul, matvec, outer, reduce,
    region_fold, region_scan, scan, scatter_reduce, vecmat,
)
from ._control import for_, if_, parallel, while_  # noqa: F401
from ._structured import all_ as all  # noqa: F401,A001
from ._structured import any_ as any  # noqa: F401,A001
from ._structured import max_ as max  # noqa: F401,A001
from ._structured import min_ as min  # noqa: F401,A001
from ._structured import sum_ as sum  # noqa: F401,A001
from ._errors import error as _error
from ._semantic import binary as _binary, unary as _unary

bool_ = i1


def exp(x):
    return _unary("exp", x)


def exp2(x, approximate: bool = False, flush_to_zero: bool = False):
    """2**x; `approximate`/`flush_to_zero` (f32 only; FTZ requires approximate) relax the numerics."""
    return _unary("exp2", x, approximate, flush_to_zero)


def log(x):
    return _unary("log", x)


def log2(x):
    return _unary("log2", x)


def sqrt(x):
    return _unary("sqrt", x)


def rsqrt(x):
    return _unary("rsqrt", x)


def tanh(x, approximate: bool = False):
    return _unary("tanh", x, approximate)


def sigmoid(x):
    return _unary("sigmoid", x)


def sin(x):
    return _unary("sin", x)


def cos(x):
    return _unary("cos", x)


def erf(x):
    return _unary("erf", x)


def log1p(x):
    """log(1 + x) without rounding 1 + x first (accurate near 0; -inf at -1, NaN below)."""
    return _unary("log1p", x)


def expm1(x):
    """e**x - 1 without rounding e**x first (accurate near 0)."""
    return _unary("expm1", x)


def gelu(x, approximate: str = "none"):
    """GELU as torch.nn.functional.gelu defines it: x/2 * (1 + erf(x / sqrt(2))), or with
    approximate="tanh" x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x**3))). Composed of KIR ops, each
    with its own accuracy (erf, tanh: library precision); f16/bf16 operands compute in their dtype."""
    if approximate == "none":
        return x * 0.5 * (1.0 + erf(x * 0.7071067811865476))
    if approximate == "tanh":
        return x * 0.5 * (1.0 + tanh(0.7978845608028654 * (x + 0.044715 * (x * x * x))))
    raise _error(f"T.gelu: approximate= must be 'none' or 'tanh', got {approximate!r}")


def floor(x):
    return _unary("floor", x)


def ceil(x):
    return _unary("ceil", x)


def round(x):  # noqa: A001
    """The nearest integer, ties to even (as torch.round / numpy.rint): 2.5 -> 2.0, -0.5 -> -0.0;
    NaN, infinities and zeros are kept. A float of x's type (kir.unary round); T.cast it to an
    integer type."""
    return _unary("round", x)


def abs(x):  # noqa: A001
    return _unary("abs", x)


def neg(x):
    return _unary("neg", x)


def pow(x, y):  # noqa: A001
    return _binary("pow", x, y)


def relu(x):
    """max(x, 0) (a NaN propagates)."""
    return maximum(x, 0)


__all__ = [n for n in dir() if not n.startswith("_")]
