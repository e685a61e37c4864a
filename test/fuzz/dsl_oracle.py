"""The DSL fuzzer's oracle (test/fuzz/dsl_fuzz.py): shapes, random inputs, the NumPy reference of a
program with its bound, and `run_program`, which traces, compiles and runs one kernel on both
interpreters and Triton and returns what disagrees with the reference or the expected error."""
from __future__ import annotations

import os
import pathlib
import random
import shutil
import subprocess
import sys
import traceback

from dsl_nodes import FLOATS, SIZES, U, Ctx, _np
from dsl_programs import defect_lines

ROOT = pathlib.Path(__file__).resolve().parents[2]

# --------------------------------------------------------------------------------------------------
# Inputs, the NumPy reference, comparison
# --------------------------------------------------------------------------------------------------
NPDT = {"f16": "float16", "bf16": "float32", "f32": "float32", "i32": "int32", "i8": "int8", "i1": "bool_"}


def ext_size(shape, e):
    """A view extent: a shape symbol's value, or a static extent as written (loss: T.Out[T.f32, (1,)])."""
    return e if isinstance(e, int) else shape[e]


def round_bf16(a):
    np = _np()
    bits = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return bits.astype(np.uint32).view(np.float32)


# Long extents: primes and a non-multiple of 1024, more than one block of every block size along a row (N),
# several BLOCK_R row tiles of a column reduction (M), several K steps of a contraction. M and P stay
# under 70: each of their members may be a program, and Triton's interpreter runs programs one by one.
LARGE = {"N": (131, 257, 1031), "M": (37, 67), "K": (67, 131), "P": (37, 67)}
LARGE_SMALL = (2, 3, 5)


def shapes_for(prog, long=True):
    """Two shape sets per kernel: small odd extents (1 and primes), never a multiple of a block size; the
    idioms add a third with one long extent (a row walked in several blocks, columns summed over many row
    tiles: the loops the small extents never reach)."""
    rng = random.Random(f"shape:{prog.seed}:{prog.index}")
    out = []
    for j in range(2):
        shp = {s: rng.choice(SIZES) for s in ("M", "N", "K", "P")}
        if j == 0:
            shp[rng.choice(("M", "N", "K", "P"))] = 1
        out.append(shp)
    if prog.template == "idiom" and long:
        shp = {s: rng.choice(LARGE_SMALL) for s in ("M", "N", "K", "P")}
        long = rng.choice(("M", "N", "K", "P") if prog.idiom in ("gemm_twice", "gather_rows") else ("M", "N", "N"))
        shp[long] = rng.choice(LARGE[long])
        out.append(shp)
    return out


def make_inputs(prog, shape, seed):
    """Random nonzero inputs: each In/InOut view in its element type (bf16 values representable)."""
    np = _np()
    rng = np.random.default_rng(seed)
    arrays = {}
    for (name, mode, dt, ext) in prog.g.views:
        if mode == "out":
            continue
        shp = tuple(ext_size(shape, e) for e in ext)
        if name in prog.ranges:
            arr = rng.integers(0, shape[prog.ranges[name]], size=shp).astype(np.int32)
        elif dt in FLOATS:
            arr = (rng.uniform(0.25, 2.0, size=shp) * rng.choice([-1.0, 1.0], size=shp)).astype(np.float32)
            arr = arr.astype(np.float16) if dt == "f16" else (round_bf16(arr) if dt == "bf16" else arr)
        elif dt == "i1":
            arr = rng.integers(0, 2, size=shp).astype(bool)
        else:
            hi = 50 if dt == "i32" else 20
            arr = rng.integers(1, hi, size=shp) * rng.choice([-1, 1], size=shp)
            arr = arr.astype(getattr(np, NPDT[dt]))
        arrays[name] = arr
    return arrays


def reference(prog, shape, arrays, u):
    """{out view: (value, bound, checked mask)} from the program's trees, in float64."""
    np = _np()
    f64 = {k: np.asarray(v, dtype=np.float64) for k, v in arrays.items()}
    scalars = {k: float(v[1]) for k, v in prog.g.scalars.items()}
    ctx = Ctx(prog.g.frame, shape, f64, scalars, u)
    frame = prog.g.frame
    out = {}
    for (name, dt, node, mask) in prog.outputs:
        ext = [v for v in prog.g.views if v[0] == name][0][3]
        v, e = node.ev(ctx)
        full = tuple(shape[a] if a in ext else 1 for a in frame)
        v = np.broadcast_to(v, np.broadcast_shapes(v.shape, full))
        e = np.broadcast_to(e, v.shape)
        idx = tuple(slice(None) if a in ext else 0 for a in frame)
        v, e = v[idx], e[idx]
        if ext and not any(isinstance(a, str) for a in ext):    # a static-extent output: loss[0]
            v, e = np.broadcast_to(v, tuple(ext)), np.broadcast_to(e, tuple(ext))
        ok = np.isfinite(e) & np.isfinite(v)
        if mask is not None:
            mv, me = mask.ev(ctx)
            mv = np.broadcast_to(mv, np.broadcast_shapes(mv.shape, full))[idx]
            me = np.broadcast_to(me, np.broadcast_shapes(me.shape, full))[idx]
            mv, me = np.broadcast_to(mv, v.shape), np.broadcast_to(me, v.shape)
            ok = ok & (mv != 0) & (me == 0)
        out[name] = (np.array(v), np.array(e), np.array(ok))
    return out


def check_outputs(got, ref):
    """None, or a description of the first elements outside the bound."""
    np = _np()
    lines = []
    for name, (v, e, ok) in ref.items():
        if name not in got:
            lines.append(f"{name}: no output")
            continue
        g = np.asarray(got[name], dtype=np.float64)
        if g.shape != v.shape:
            lines.append(f"{name}: shape {g.shape}, expected {v.shape}")
            continue
        with np.errstate(all="ignore"):
            bad = ok & ~(np.abs(g - v) <= e)
        if bad.any():
            where_ = np.argwhere(bad)[:4]
            det = "; ".join(f"{tuple(int(i) for i in w)}: got {g[tuple(w)]!r} expected {v[tuple(w)]!r} "
                            f"+- {e[tuple(w)]:.3g}" for w in where_)
            lines.append(f"{name}: {int(bad.sum())} of {bad.size} elements outside the bound: {det}")
    return "\n".join(lines) or None


# --------------------------------------------------------------------------------------------------
# Running one kernel
# --------------------------------------------------------------------------------------------------
def tessel_bin():
    env = os.environ.get("TESSEL_BIN")
    if env:
        return env
    return str(ROOT / "build" / "bin" / "tessel")


CRASH_MARKERS = ("PLEASE submit a bug report", "Stack dump", "LLVM ERROR", "Assertion", "AddressSanitizer",
                 "UndefinedBehaviorSanitizer", "Traceback (most recent call last)")


def run_cli(args, timeout):
    try:
        r = subprocess.run([tessel_bin(), *args], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", "", ""
    if r.returncode < 0:
        return f"signal {-r.returncode}", r.stdout, r.stderr
    if any(m in r.stderr for m in CRASH_MARKERS):
        return "crash banner", r.stdout, r.stderr
    return r.returncode, r.stdout, r.stderr


def located(err, path, lines=None):
    """True when a CompileError names the kernel file and (when given) one of `lines`."""
    f = getattr(err, "file", None)
    ln = getattr(err, "line", None)
    if f is None or ln is None or os.path.basename(str(f)) != os.path.basename(str(path)):
        return False
    return lines is None or ln in lines


def load_module(path):
    import importlib.util
    name = "dslfuzz_" + pathlib.Path(path).stem
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def run_program(prog, work: pathlib.Path, triton: bool, log=None, long=True):
    """Runs one generated program; returns a list of (kind, detail) findings (empty: it passed)."""
    np = _np()
    import tessel
    work.mkdir(parents=True, exist_ok=True)
    path = work / f"k_{prog.seed}_{prog.index}.py"
    source = prog.source()
    path.write_text(source)
    if prog.invalid:
        prog.invalid = (prog.invalid[0], defect_lines(source))
    findings = []
    cx = dict(prog.constexpr_values)
    try:
        mod = load_module(path)
        kir = mod.kern.kir(cx)
    except tessel.CompileError as e:
        if prog.invalid:
            if located(e, path, prog.invalid[1]):
                return []
            return [("misplaced error", f"{prog.invalid[0]}: expected an error at {path.name}:"
                     f"{sorted(prog.invalid[1])}, got:\n{e}")]
        kind = "refused (located)" if located(e, path) else "unlocated error"
        return [(kind, f"tracing a valid program raised:\n{e}")]
    except Exception:  # a traceback from inside tessel (or the generated file itself)
        return [("traceback", traceback.format_exc())]
    mlir = work / f"k_{prog.seed}_{prog.index}.mlir"
    tmp = work / f"tmp_{prog.seed}_{prog.index}"
    tmp.mkdir(exist_ok=True)
    mlir.write_text(kir)
    if prog.invalid:
        rc, out, err = run_cli(["compile", str(mlir), "--emit=source"], 120)
        if isinstance(rc, str):
            return [(rc, f"tessel compile {mlir} --emit=source\n{err[-3000:]}")]
        if rc == 0:
            return [("accepted invalid", f"{prog.invalid[0]}: expected an error at {path.name}:"
                     f"{sorted(prog.invalid[1])}; the program traced and compiled")]
        ce = tessel.CompileError.from_compiler(err)
        if located(ce, path, prog.invalid[1]):
            return []
        return [("misplaced error", f"{prog.invalid[0]}: expected {path.name}:{sorted(prog.invalid[1])}, "
                 f"the compiler said:\n{err[-3000:]}")]
    for j, shape in enumerate(shapes_for(prog, long)):
        arrays = make_inputs(prog, shape, prog.seed * 7919 + prog.index * 31 + j)
        ins = []
        for k, a in arrays.items():
            f = tmp / f"in_{j}_{k}.npy"
            np.save(f, a)
            ins += ["--in", f"{k}={f}"]
        used = sorted({e for v in prog.g.views for e in v[3] if isinstance(e, str)})
        args = ["run", f"{mlir}:kern", "--shape", ",".join(f"{s}={shape[s]}" for s in used), *ins]
        for k, (dt, val) in prog.g.scalars.items():
            args += ["--scalar", f"{k}={val}"]
        ref = reference(prog, shape, arrays, U)
        for stage in ("kir", "pgpu"):
            outdir = tmp / f"out_{j}_{stage}"
            shutil.rmtree(outdir, ignore_errors=True)
            cmd = args + ["--out", str(outdir)] + (["--stage=pgpu"] if stage == "pgpu" else [])
            rc, out, err = run_cli(cmd, 120)
            shown = "tessel " + " ".join(cmd)
            if isinstance(rc, str):
                findings.append((rc, f"{shown}\n{err[-3000:]}"))
                continue
            if rc != 0:
                ce = tessel.CompileError.from_compiler(err)
                kind = "refused (located)" if located(ce, path) else "unlocated error"
                findings.append((f"{kind} [{stage}]", f"{shown}\n{err[-3000:]}"))
                continue
            got = {p.name[:-4]: np.load(p) for p in outdir.glob("*.npy") if not p.name.endswith(".in.npy")}
            bad = check_outputs(got, ref)
            if bad:
                findings.append((f"mismatch [{stage}]", f"{shown}\nshape {shape}\n{bad}"))
        # A bf16 program's Triton numbers are not compared (run_triton), and Triton's interpreter runs the
        # bf16 sums the provider emits as tl.reduce with a combine one element at a time in Python: at the
        # long shape that is minutes (seed 404 kernel 357 timed out): its small shapes ran it through Triton.
        slow_bf16 = j >= 2 and "bf16" in source
        if triton and not prog.skip_triton and not slow_bf16:
            try:
                bad = run_triton(prog, mod.kern, shape, arrays, cx)
            except tessel.CompileError as e:
                kind = "refused (located)" if located(e, path) else "unlocated error"
                bad = None
                findings.append((f"{kind} [triton]", str(e)[-3000:]))
            except Exception as exc:
                bad = None
                tb = traceback.extract_tb(exc.__traceback__.tb_next if exc.__traceback__ else None)
                cause = exc.__cause__
                inner = traceback.extract_tb(cause.__traceback__) if cause is not None else tb
                in_builder = bool(inner) and inner[-1].filename.endswith(os.path.join("triton", "runtime",
                                                                                      "interpreter.py"))
                del tb
                if "bf16" in prog.source() and in_builder:
                    # Triton 3.6's interpreter builder has no bf16 arithmetic or conversions of its own
                    # (docs/language.md): a departure of the CPU interpreter, not of the generated code
                    findings.append(("interpreter departure [triton]", traceback.format_exc()[-4000:]))
                else:
                    findings.append(("traceback [triton]", traceback.format_exc()[-4000:]))
            if bad:
                findings.append(("mismatch [triton]", f"shape {shape}\n{bad}"))
        if findings:
            break
    return findings


def run_triton(prog, kern, shape, arrays, cx):
    import torch
    np = _np()
    tdt = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32, "i32": torch.int32,
           "i8": torch.int8, "i1": torch.bool}
    views = []
    outs = {}
    for (name, mode, dt, ext) in prog.g.views:
        if mode == "out":
            t = torch.empty(tuple(ext_size(shape, e) for e in ext), dtype=tdt[dt])
            t.fill_(float("nan") if t.is_floating_point() else (0x5E if dt != "i1" else 0))
            outs[name] = t
        else:
            t = torch.tensor(np.ascontiguousarray(arrays[name])).to(dtype=tdt[dt])
        views.append(t)
    kw = {k: v[1] for k, v in prog.g.scalars.items()}
    kw.update(cx)
    kern(*views, **kw)
    got = {k: (t.float().numpy() if t.is_floating_point() else t.numpy()) for k, t in outs.items()}
    if "bf16" in prog.source():
        # Triton 3.6's interpreter computes bf16 arithmetic on the uint16 bit patterns (1.5 * 2.0 gives 0;
        # bench/corpus's SKIPs, docs/language.md) and converts integers to bf16 as raw bits: the kernel
        # must run without an error, its bf16 numbers are not checked on this path
        return None
    return check_outputs(got, reference(prog, shape, arrays, U))
