"""What the corpus files share: loading one, drawing its inputs, running it on the KIR interpreter and
through the Triton provider, and comparing with its NumPy reference (bench/corpus/README.md has the
contract a file follows)."""
import importlib.util
import pathlib
import re
import sys

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
if str(ROOT / "python") not in sys.path:
    sys.path.insert(0, str(ROOT / "python"))

_NAME = re.compile(r"^\d{2,}_[a-z0-9_]+$")

# numpy dtypes of the views' element types (bf16 travels as f32 holding bf16-representable values)
_NP = {"f16": np.float16, "bf16": np.float32, "f8e4m3": np.float32, "f8e5m2": np.float32,
       "f32": np.float32, "f64": np.float64, "i1": np.bool_,
       "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64, "u8": np.uint8}


def names() -> list:
    """Every corpus kernel, by file stem, in order of its number (100_x after 99_y), then name."""
    stems = (p.stem for p in HERE.glob("*.py") if _NAME.match(p.stem))
    return sorted(stems, key=lambda s: (int(s.split("_", 1)[0]), s))


def resolve(args) -> list:
    """Kernels named on a command line: a file stem, or a number standing for every file it starts
    (`127` is 127_gelu_backward; `29` is 29_embedding_bag and 29_embedding_bag_b). Unknown names raise."""
    stems, out = names(), []
    for a in args:
        found = [a] if a in stems else [s for s in stems if s.split("_", 1)[0] == a]
        if not found:
            raise SystemExit(f"no corpus kernel named {a!r} (a file stem of bench/corpus/, or its number)")
        out += [s for s in found if s not in out]
    return out


def load(name: str):
    """bench/corpus/NAME.py, loaded once per process as `_corpus_NAME`."""
    key = f"_corpus_{name}"
    module = sys.modules.get(key)
    if module is None:
        spec = importlib.util.spec_from_file_location(key, HERE / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[key] = module
        spec.loader.exec_module(module)
    return module


def params(mod):
    return mod.KERNEL.params()


def _extent(e, shape):
    return int(e) if isinstance(e, int) else int(shape[e])


def view_shape(spec, shape) -> tuple:
    return tuple(_extent(e, shape) for e in spec.extents)


def draw(mod, shape: dict, seed: int) -> dict:
    """The file's inputs at `shape`, each view's array in its element type (bf16 values rounded)."""
    rng = np.random.default_rng(seed)
    given = mod.inputs(dict(shape), rng)
    out = {}
    for p in params(mod):
        if p.kind == "view" and p.spec.mode != "out":
            if p.name not in given:
                raise KeyError(f"{mod.__name__}: inputs() gave no array for view '{p.name}'")
            arr = np.asarray(given[p.name])
            want = view_shape(p.spec, shape)
            if arr.shape != want:
                raise ValueError(f"{mod.__name__}: inputs()['{p.name}'] has shape {arr.shape}, the view wants {want}")
            arr = arr.astype(_NP[p.spec.dtype.name])
            if p.spec.dtype.name == "bf16":
                arr = _round_bf16(arr)
            elif p.spec.dtype.name in _TORCH_F8:
                arr = _round_f8(arr, p.spec.dtype.name)
            out[p.name] = arr
        elif p.kind == "scalar":
            if p.name not in given:
                raise KeyError(f"{mod.__name__}: inputs() gave no value for scalar '{p.name}'")
            out[p.name] = given[p.name]
    return out


# FP8 views travel as f32 holding FP8-representable values too (NumPy has no FP8 dtype; the interpreters
# read FP8 views as f32 arrays, docs/language.md), rounded by torch's conversion (the language's rule)
_TORCH_F8 = {"f8e4m3": "float8_e4m3fn", "f8e5m2": "float8_e5m2"}


def _round_f8(a: np.ndarray, name: str) -> np.ndarray:
    import torch
    t = torch.tensor(np.ascontiguousarray(a, dtype=np.float32))
    return t.to(getattr(torch, _TORCH_F8[name])).to(torch.float32).numpy()


def _round_bf16(a: np.ndarray) -> np.ndarray:
    bits = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16  # round to nearest even
    return bits.astype(np.uint32).view(np.float32)


def symbols(mod) -> set:
    return {e for p in params(mod) if p.kind == "view" for e in p.spec.extents if isinstance(e, str)}


def expected(mod, inputs: dict) -> dict:
    return {k: np.asarray(v) for k, v in mod.reference(**{k: np.copy(v) if isinstance(v, np.ndarray) else v
                                                          for k, v in inputs.items()}).items()}


def run_interp(mod, shape: dict, inputs: dict) -> dict:
    """Outputs of the KIR interpreter (`tessel run`) on `inputs`."""
    views = {p.name for p in params(mod) if p.kind == "view" and p.spec.mode != "out"}
    scalars = {p.name: inputs[p.name] for p in params(mod) if p.kind == "scalar"}
    res = mod.KERNEL.run_interp(shapes={s: shape[s] for s in symbols(mod)}, scalars=scalars,
                                constexprs=getattr(mod, "CONSTEXPRS", {}) or None,
                                inputs={k: v for k, v in inputs.items() if k in views})
    return {p.name: res[p.name] for p in params(mod) if p.kind == "view" and p.spec.mode != "in"}


def torch_args(mod, shape: dict, inputs: dict, device: str):
    """(positional views, keyword scalars and constexprs) for a call on torch tensors; Out views are
    filled with NaN (floats) or a marker (integers) so that an unwritten element shows."""
    import torch
    views, kw = [], {}
    for p in params(mod):
        if p.kind == "view":
            tdt = getattr(torch, {"f16": "float16", "bf16": "bfloat16", **_TORCH_F8, "f32": "float32", "f64": "float64",
                                  "i1": "bool", "i8": "int8", "i16": "int16", "i32": "int32",
                                  "i64": "int64", "u8": "uint8"}[p.spec.dtype.name])
            if p.spec.mode == "out":
                t = torch.empty(view_shape(p.spec, shape), dtype=tdt, device=device)
                t.fill_(float("nan") if t.is_floating_point() else (0x5E if tdt != torch.bool else 0))
            else:
                # a copy, always: .to() on the CPU with the same dtype would share the array, and an InOut
                # view written in place would then change the inputs the peer and the reference read
                t = torch.tensor(np.ascontiguousarray(inputs[p.name])).to(device=device, dtype=tdt)
            views.append(t)
        elif p.kind == "scalar":
            kw[p.name] = inputs[p.name]
    kw.update(getattr(mod, "CONSTEXPRS", {}) or {})
    return views, kw


def outputs_of(mod, views: list) -> dict:
    out = {}
    for p, t in zip([p for p in params(mod) if p.kind == "view"], views):
        if p.spec.mode != "in":
            out[p.name] = t
    return out


def run_torch(mod, shape: dict, inputs: dict, device: str = "cpu") -> dict:
    """Outputs of the generated Triton kernel called on torch tensors (on the CPU: TRITON_INTERPRET=1)."""
    views, kw = torch_args(mod, shape, inputs, device)
    mod.KERNEL(*views, **kw)
    return {k: v.detach().float().cpu().numpy() if v.is_floating_point() else v.cpu().numpy()
            for k, v in outputs_of(mod, views).items()}


def marked(mod, attr: str, path: str):
    """The reason a file gives for XFAIL or SKIP on `path` ("interp" or "triton"), or None: the mark is a
    string (every path) or {path: reason}."""
    mark = getattr(mod, attr, None)
    if isinstance(mark, dict):
        return mark.get(path)
    return mark


def mismatch(mod, got: dict, want: dict, tol: dict | None = None) -> str | None:
    """None when every output agrees with the reference within the file's tolerance, else a message."""
    tol = tol or getattr(mod, "TOLERANCE", dict(rtol=1e-3, atol=1e-3))
    for k, w in want.items():
        if k not in got:
            return f"output '{k}' missing"
        g = np.asarray(got[k])
        if g.shape != w.shape:
            return f"output '{k}': shape {g.shape}, reference {w.shape}"
        if g.size == 0:
            continue
        if np.issubdtype(w.dtype, np.floating) or np.issubdtype(g.dtype, np.floating):
            g64, w64 = g.astype(np.float64), w.astype(np.float64)
            ok = np.isclose(g64, w64, rtol=tol["rtol"], atol=tol["atol"], equal_nan=True)
        else:
            ok = g == w
        if not ok.all():
            bad = np.argwhere(~ok)
            at = tuple(int(i) for i in bad[0])
            return (f"output '{k}': {len(bad)} of {ok.size} elements differ; first at {at}: "
                    f"got {g[at]!r}, reference {w[at]!r}")
    return None


def interpreter_bf16_dot():
    """Under TRITON_INTERPRET=1, makes the Triton interpreter's tl.dot read bfloat16 operands as values.
    The interpreter keeps bf16 tensors as their uint16 bit patterns and its create_dot converts only 8-bit
    float operands, so a bf16 tl.dot multiplies the bit patterns (triton-lang/triton#11584, closed
    unsupported; Triton 3.6). bf16 -> f32 is exact: the bits shifted into the high half. Installed once,
    and only when the interpreter is in use; compiled kernels and every other op are untouched. Returns
    whether the interpreter was patched."""
    import os
    if os.environ.get("TRITON_INTERPRET") != "1":
        return False
    from triton.runtime import interpreter as ti
    import triton.language as tl
    builder = ti.InterpreterBuilder
    if getattr(builder.create_dot, "_tessel_bf16", False):
        return True
    original = builder.create_dot

    def create_dot(self, a, b, d, *args, **kwargs):
        def widened(h):
            if h.dtype != tl.bfloat16:
                return h
            bits = np.ascontiguousarray(h.data).astype(np.uint32) << 16
            return ti.TensorHandle(bits.view(np.float32), tl.float32)
        return original(self, widened(a), widened(b), d, *args, **kwargs)

    create_dot._tessel_bf16 = True
    builder.create_dot = create_dot
    return True


def check(mod, shape: dict, seed: int, path: str, device: str = "cpu") -> str | None:
    """Draws inputs at `shape`, runs `path` ("interp": the KIR interpreter; "triton": the kernel called
    on torch tensors on `device`) and compares with the reference: None, or what differs."""
    if path == "triton" and device == "cpu":
        interpreter_bf16_dot()
    inputs = draw(mod, shape, seed)
    want = expected(mod, inputs)  # first: a call writes InOut views, which share the arrays' memory
    got = run_interp(mod, shape, inputs) if path == "interp" else run_torch(mod, shape, inputs, device)
    return mismatch(mod, got, want)
