"""Element types, IR types and the parameter annotations of `@tessel.kernel`."""
from __future__ import annotations

import enum
import math
import re
import struct

from . import _ir
from ._errors import error


class DType:
    """An element type. Calling it builds a typed constant inside a trace: `T.f32(0.5)`."""

    def __init__(self, name: str, kind: str, bits: int, numpy: str | None, mlir: str | None = None):
        self.name, self.kind, self.bits, self.numpy = name, kind, bits, numpy
        self.mlir = mlir or name  # the MLIR spelling (f8e4m3 is MLIR's f8E4M3FN)

    is_float = property(lambda self: self.kind == "float")
    is_int = property(lambda self: self.kind == "int")  # signless integers, not i1
    is_bool = property(lambda self: self.kind == "bool")
    is_index = property(lambda self: self.kind == "index")
    is_integral = property(lambda self: self.kind in ("int", "bool", "index"))

    def __call__(self, value):
        return _ir._b().semantic.const(value, self)

    def __str__(self) -> str:
        return self.mlir

    def __repr__(self) -> str:
        return f"T.{self.name}"

    # --- constants -------------------------------------------------------------
    def format_constant(self, value) -> str:
        """The MLIR literal of `value` in this type (`arith.constant <literal> : <type>`)."""
        if self.is_bool:
            return "true" if value else "false"
        if self.is_int or self.is_index:
            v = int(value)
            if self.is_int:
                lo, hi = -(1 << (self.bits - 1)), (1 << self.bits) - 1
                if not lo <= v <= hi:
                    raise error(f"constant {v} does not fit in {self.name}")
            return str(v)
        return _format_float(float(value), self)


def _round_float(v: float, dt: DType) -> float:
    if dt.name == "f64":
        return v
    if dt.name == "f32":
        return struct.unpack("<f", struct.pack("<f", v))[0]
    if dt.name == "f16":
        return struct.unpack("<e", struct.pack("<e", v))[0]
    if dt.name == "bf16":
        bits = struct.unpack("<I", struct.pack("<f", v))[0]
        bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000  # round to nearest even
        return struct.unpack("<f", struct.pack("<I", bits))[0]
    if dt.name in _FLOAT8:
        return _round_float8(v, dt.name)
    raise AssertionError(dt.name)


# OCP FP8 (OFP8): stored mantissa bits, least normal exponent, largest finite; E4M3FN has no
# infinities (its only NaN is S.1111.111), E5M2 is IEEE-like.
_FLOAT8 = {"f8e4m3": (3, -6, 448.0), "f8e5m2": (2, -14, 57344.0)}


def _round_float8(v: float, name: str) -> float:
    """`v` (a Python float) converted as torch converts it: to f32 first, then to the nearest FP8 value,
    ties to even; past the range E5M2 gives inf and E4M3FN gives NaN (reported as out of range)."""
    mant, emin, top = _FLOAT8[name]
    v = struct.unpack("<f", struct.pack("<f", v))[0]  # raises OverflowError past f32's range
    if v == 0 or math.isnan(v) or math.isinf(v):
        return v
    e = max(math.frexp(abs(v))[1] - 1, emin)
    quantum = math.ldexp(1.0, e - mant)
    r = round(abs(v) / quantum) * quantum  # round() is ties-to-even; the quotient is exact
    return math.copysign(r if r <= top else math.inf, v)


_SPECIAL = {
    # name: (+inf, -inf, nan)
    "f16": ("0x7C00", "0xFC00", "0x7E00"),
    "bf16": ("0x7F80", "0xFF80", "0x7FC0"),
    "f32": ("0x7F800000", "0xFF800000", "0x7FC00000"),
    "f64": ("0x7FF0000000000000", "0xFFF0000000000000", "0x7FF8000000000000"),
    "f8e4m3": (None, None, "0x7F"),  # no infinities
    "f8e5m2": ("0x7C", "0xFC", "0x7F"),
}


def _format_float(v: float, dt: DType) -> str:
    pinf, ninf, nan = _SPECIAL[dt.name]
    if math.isnan(v):
        return nan
    if math.isinf(v):
        if pinf is None:
            raise error(f"{dt.name} has no infinities (constant {v!r})")
        return pinf if v > 0 else ninf
    try:
        r = _round_float(v, dt)
    except (OverflowError, struct.error):
        raise error(f"constant {v!r} is out of range for {dt.name}") from None
    if math.isinf(r):
        raise error(f"constant {v!r} is out of range for {dt.name}")
    s = repr(r)
    if "e" in s:
        mant, exp = s.split("e")
        if "." not in mant:
            mant += ".0"
        s = f"{mant}e{exp}"
    elif "." not in s:
        s += ".0"
    return s


f16 = DType("f16", "float", 16, "float16")
bf16 = DType("bf16", "float", 16, None)
f32 = DType("f32", "float", 32, "float32")
f64 = DType("f64", "float", 64, "float64")
i1 = DType("i1", "bool", 1, "bool")
i8 = DType("i8", "int", 8, "int8")
i16 = DType("i16", "int", 16, "int16")
i32 = DType("i32", "int", 32, "int32")
i64 = DType("i64", "int", 64, "int64")
index = DType("index", "index", 64, "int64")
f8e4m3 = DType("f8e4m3", "float", 8, None, "f8E4M3FN")  # torch.float8_e4m3fn
f8e5m2 = DType("f8e5m2", "float", 8, None, "f8E5M2")  # torch.float8_e5m2
DTYPES = {d.name: d for d in (f16, bf16, f32, f64, i1, i8, i16, i32, i64, index, f8e4m3, f8e5m2)}


# index lanes are 32-bit in every generated kernel (Triton's tl.int32, cuTile's ct.int32, PTX's .s32; the
# launches bound spans and index scalars below 2^31, see pgpu-narrow-fold-ranges), so the limits of index --
# the identities of T.min / T.max / cumulative min / max over index values -- are the int32 ones: INT64_MAX
# would not fit the lanes (Triton and cuTile reject it, PTX truncates it to -1, a wrong identity).
INDEX_LANE_BITS = 32


def int_min(dt: DType) -> int:
    return -(1 << (dt.bits - 1)) if dt.is_int else (-(1 << (INDEX_LANE_BITS - 1)) if dt.is_index else 0)


def int_max(dt: DType) -> int:
    return (1 << (dt.bits - 1)) - 1 if dt.is_int else ((1 << (INDEX_LANE_BITS - 1)) - 1 if dt.is_index else 1)


# --- IR types -------------------------------------------------------------------


class TensorType:
    """A ranked logical tensor type; `shape` holds None (dynamic) or a static size per axis."""

    __slots__ = ("dtype", "shape")

    def __init__(self, dtype: DType, shape):
        self.dtype, self.shape = dtype, tuple(shape)

    @property
    def rank(self) -> int:
        return len(self.shape)

    def __str__(self) -> str:
        dims = "".join(("?" if s is None else str(s)) + "x" for s in self.shape)
        return f"tensor<{dims}{self.dtype.mlir}>"

    def __eq__(self, other):
        return isinstance(other, TensorType) and str(self) == str(other)

    def __hash__(self):
        return hash(str(self))


class RecordType:
    __slots__ = ("names", "types")

    def __init__(self, names, types):
        self.names, self.types = tuple(names), tuple(types)

    def __str__(self) -> str:
        fields = ", ".join(f"{n}: {t}" for n, t in zip(self.names, self.types))
        return f"!kir.record<{fields}>"

    def __eq__(self, other):
        return isinstance(other, RecordType) and str(self) == str(other)

    def __hash__(self):
        return hash(str(self))


class BufferType:
    __slots__ = ("value_type",)

    def __init__(self, value_type):
        self.value_type = value_type

    def __str__(self) -> str:
        return f"!kir.buffer<{self.value_type}>"


DOMAIN_TYPE = "!kir.domain"


def type_str(t) -> str:
    return t if isinstance(t, str) else str(t)


# --- parameter annotations --------------------------------------------------------

_SYMBOL = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class Range:
    """Value range metadata of an integer input view: `T.Range(0, "B")` gives `{kir.range = [0, "B"]}`.

    The bounds are integers or shape symbols; the interpreter draws random inputs in [lo, hi).
    """

    def __init__(self, lo, hi):
        for b in (lo, hi):
            if not (isinstance(b, int) and not isinstance(b, bool)) and not (isinstance(b, str) and _SYMBOL.match(b)):
                raise error(f"T.Range bounds are integers or shape symbols, got {b!r}")
        self.lo, self.hi = lo, hi

    def mlir(self) -> str:
        f = lambda b: f'"{b}"' if isinstance(b, str) else str(b)
        return f"[{f(self.lo)}, {f(self.hi)}]"


class ViewSpec:
    """The annotation of an external view parameter: mode, element type, extents, range."""

    def __init__(self, mode: str, dtype: DType, extents, rng: Range | None):
        self.mode, self.dtype, self.extents, self.range = mode, dtype, tuple(extents), rng

    def type_str(self) -> str:
        return f"!kir.view<{self.dtype.mlir}, [{', '.join(str(e) for e in self.extents)}], {self.mode}>"

    def __repr__(self) -> str:
        return f"T.{ {'in': 'In', 'out': 'Out', 'inout': 'InOut'}[self.mode]}[{self.dtype!r}, {self.extents!r}]"


class _ViewMode:
    def __init__(self, mode: str, public: str):
        self.mode, self.public = mode, public

    def __getitem__(self, args) -> ViewSpec:
        if not isinstance(args, tuple) or len(args) not in (2, 3):
            raise error(f"T.{self.public}[dtype, (extents...)] (optionally a T.Range third), got {args!r}")
        dtype, extents = args[0], args[1]
        rng = args[2] if len(args) == 3 else None
        if not isinstance(dtype, DType):
            raise error(f"T.{self.public}[...] needs an element type such as T.f32 first, got {dtype!r}")
        if dtype.is_index:
            raise error(f"T.{self.public}[...]: views hold integer or float elements, not index")
        if isinstance(extents, (str, int)):
            extents = (extents,)
        if not isinstance(extents, (tuple, list)):
            raise error(f"T.{self.public}[...] needs a tuple of extents such as (\"M\", \"N\"), got {extents!r}")
        for e in extents:
            if isinstance(e, bool) or not (isinstance(e, int) and e >= 0 or isinstance(e, str) and _SYMBOL.match(e)):
                raise error(f"extent {e!r} of T.{self.public}[...] must be a shape symbol (an identifier) "
                            "or a non-negative integer")
        if rng is not None:
            if not isinstance(rng, Range):
                raise error(f"the third entry of T.{self.public}[...] must be a T.Range, got {rng!r}")
            if not dtype.is_int:
                raise error(f"T.Range applies to integer views, not {dtype.name}")
        return ViewSpec(self.mode, dtype, extents, rng)

    def __repr__(self) -> str:
        return f"T.{self.public}"


In = _ViewMode("in", "In")
Out = _ViewMode("out", "Out")
InOut = _ViewMode("inout", "InOut")


class ConstexprSpec:
    """A specialization parameter: bool, int, str or an Enum class."""

    def __init__(self, kind):
        self.kind = kind

    def check(self, name: str, value):
        k = self.kind
        ok = (k is bool and isinstance(value, bool)) or \
             (k is int and isinstance(value, int) and not isinstance(value, bool)) or \
             (k is str and isinstance(value, str)) or \
             (isinstance(k, type) and issubclass(k, enum.Enum) and isinstance(value, k))
        if not ok:
            raise error(f"constexpr '{name}' is a {getattr(k, '__name__', k)}, got {value!r}")
        return value

    def mlir(self, value) -> str:
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, int):
            return f"{value} : i64"
        if isinstance(value, enum.Enum):
            value = value.name
        return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'


class _Constexpr:
    def __getitem__(self, kind) -> ConstexprSpec:
        if kind in (bool, int, str) or (isinstance(kind, type) and issubclass(kind, enum.Enum)):
            return ConstexprSpec(kind)
        raise error(f"T.Constexpr[...] takes bool, int, str or an Enum class, got {kind!r}")

    def __repr__(self) -> str:
        return "T.Constexpr"


Constexpr = _Constexpr()
