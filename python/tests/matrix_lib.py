"""The differential matrix (issue 19): every suite kernel x shapes x parameter bindings x pass groups x
providers, against the KIR interpreter.

A kernel is KIR text: a file of examples/kir, or a DSL example of examples/*.py traced with one of its
constexpr variants. Its signature (views, extents, scalars) is read from that text, the pass groups
from the compiler (`tessel groups`), the program after each group from `tessel-opt
--tessel-pipeline=stop-after=GROUP`, and each program's parameter domains from its
`#pgpu.param<"NAME", [candidates], default>` declarations. Nothing here copies the pipeline.

Draws are seeded: `Plan(seed)` gives the same shapes and bindings for the same seed. A failure is
shrunk (earliest failing group, then smaller extents, then smaller parameters) and reported with the
commands that reproduce it.
"""
from __future__ import annotations

import concurrent.futures
import dataclasses
import math
import os
import pathlib
import random
import re
import shlex
import subprocess
import tempfile
import threading
import time
import typing

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
BUILD = pathlib.Path(os.environ.get("TESSEL_BUILD_DIR", ROOT / "build"))
TESSEL = BUILD / "bin" / "tessel"
TESSEL_OPT = BUILD / "bin" / "tessel-opt"

DEEP = os.environ.get("TESSEL_MATRIX_DEEP", "0") == "1"
# Subprocesses at once (the machine may be shared; CI has 2 cores).
JOBS = int(os.environ.get("TESSEL_MATRIX_JOBS", str(min(2, os.cpu_count() or 1))))


@dataclasses.dataclass(frozen=True)
class Budget:
    seeds: tuple          # fixed seeds that always run (a drawn one is added, see seeds())
    shapes: int           # shapes per kernel and seed
    work: int             # cap on the product of a shape's extents (interpreter time)
    triton_shapes: int    # shapes per kernel through Triton (TRITON_INTERPRET=1)
    triton_work: int
    shrink_runs: int      # runs the shrinker may spend
    drawn_shapes: int     # shapes of the session's drawn seed (free draws: the edges are the fixed seeds')
    drawn_triton_shapes: int
    largest_work: int | None = None  # cap on the largest-that-fits binding's work (draw_bindings' `cap`)
    random_final_only: bool = False  # random bindings only at the final program (fixed_bindings)
    random_at_edges: bool = True     # random bindings through Triton at the degenerate shapes (degenerate)
    edges_final_only: bool = False   # the degenerate shapes on the pgpu interpreter at the final program only


# CI: the fixed seed's 4 shapes (all ones, a 0, one block past a block, a free draw) and 2 free draws of the
# session's seed: 6 shapes x >= 3 bindings per kernel through the interpreter after every group; through
# Triton 2 + 1 shapes (each Triton run costs about six interpreter runs: CI's time limit, not the floor of
# issue 19, sets these; TESSEL_MATRIX_DEEP=1 runs 4 seeds x 8 shapes, 6 through Triton).
# The largest binding that fits is capped in CI at LARGEST_WORK lanes (see capped_largest): py/linear_attention's
# at D = 193 (BLOCK_T = BLOCK = 256 fitted to the largest extent for T = 1) took 20 s a run, 65% of its test.
LARGEST_WORK = 1 << 16
CI = Budget(seeds=(0,), shapes=4, work=1024, triton_shapes=2, triton_work=256, shrink_runs=100,
            drawn_shapes=2, drawn_triton_shapes=1, largest_work=LARGEST_WORK, random_final_only=True,
            random_at_edges=False, edges_final_only=True)
DEEP_BUDGET = Budget(seeds=(0, 1, 2, 3), shapes=8, work=16384, triton_shapes=6, triton_work=4096,
                     shrink_runs=200, drawn_shapes=8, drawn_triton_shapes=6)

# Extents are drawn from these: 0, 1, 2, primes, block sizes +-1 (64, 128, 256, 512) and
# non-multiples of every tile (16, 32, 64).
POOL = (0, 1, 2, 3, 5, 7, 13, 15, 17, 31, 33, 37, 47, 63, 65, 127, 129, 255, 257, 511, 513)

# Examples the compiler rejects today, and why. A kernel listed here that compiles joins the matrix
# by itself (the test prints a note to remove it from the list).
REJECTED = {
}
# Rejected by Triton legalization: the groups before it are checked; joins when legalization accepts it.
TRITON_REJECTED: dict = {}
# Not run through Triton here, and why (not ours).
TRITON_SKIPPED = {
    # Triton 3.6's CPU interpreter multiplies bf16 tl.dot operands as their raw bits.
    "matmul": "the Triton interpreter's bf16 tl.dot is wrong (checked on the pgpu interpreter and the GPU)",
}
# The DSL example a KIR kernel of examples/kir mirrors, where their names differ.
KIR_EXAMPLE = {"embedding_gather": "embedding", "embedding_scatter_add": "scatter_add",
               "cumsum_exclusive_reverse": "cumsum"}
# Kernels whose pgpu programs cost the interpreter far more per element (a region fold's blocks per
# query row): their share of the work cap.
# grouped_gemm: every program of its persistent segment walk (PERSIST x 132 of them) reads each group's
# bounds from `offs` (two prefix reductions per group), so its cost grows with programs x G^2 whatever
# the elements: Triton's CPU interpreter ran one launch at G = 193 (M = N = K = 1, PERSIST = 4) for over
# 30 minutes (session 12's full run).
WORK_SHARE = {"attention": 1 / 4, "linear_attention": 1 / 2, "grouped_gemm": 1 / 8}
# Runtime scalars where the kernel's meaning constrains them; others get 0.5.
SCALARS = {"eps": 1e-5, "scale": 0.35, "alpha": 0.75}


# --- kernels -------------------------------------------------------------------------------------

@dataclasses.dataclass
class View:
    name: str
    dtype: str
    extents: list  # symbol names or ints
    mode: str      # in | out | inout


@dataclasses.dataclass
class Kernel:
    id: str                 # e.g. kir/softmax, py/gemm[HAS_BIAS=True]
    example: str            # the example it comes from (tolerances, rejections)
    path: pathlib.Path      # KIR text
    name: str               # kernel symbol
    views: list
    scalars: dict           # name -> text
    segments: bool          # has a region_fold/region_scan: random segmentations are legal
    rtol: float = 2e-5
    atol: float = 2e-6
    exact: bool = False

    @property
    def target(self):
        return f"{self.path}:{self.name}"

    @property
    def innermost(self):
        """Extents some view has innermost (contiguous): the ones blocking cuts into blocks."""
        return sorted({v.extents[-1] for v in self.views if v.extents and isinstance(v.extents[-1], str)})

    @property
    def extents(self):
        seen = []
        for v in self.views:
            for e in v.extents:
                if isinstance(e, str) and e not in seen:
                    seen.append(e)
        return seen


def _split_top(text, sep=","):
    out, depth, cur = [], 0, []
    for ch in text:
        if ch in "<[({":
            depth += 1
        elif ch in ">])}":
            depth -= 1
        if ch == sep and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur))
    return out


_VIEW = re.compile(r"!kir\.view<\s*(\w+)\s*,\s*\[([^\]]*)\]\s*,\s*(\w+)\s*>")


def parse_signatures(text):
    """[(name, views, scalars)] of every kir.kernel in KIR text; scalars maps name -> type."""
    out = []
    for m in re.finditer(r"kir\.kernel\s+@(\w+)\(", text):
        i, depth = m.end(), 1
        while depth:
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        views, scalars = [], {}
        for arg in _split_top(text[m.end():i - 1]):
            arg = re.sub(r"loc\(.*\)", "", arg).strip()
            am = re.match(r"%(\w+)\s*:\s*(.*)", arg, re.S)
            if not am:
                continue
            name, ty = am.group(1), am.group(2).strip()
            vm = _VIEW.match(ty)
            if vm:
                ext = [int(e) if e.strip().lstrip("-").isdigit() else e.strip().strip('"')
                       for e in vm.group(2).split(",") if e.strip()]
                views.append(View(name, vm.group(1), ext, vm.group(3)))
            else:
                scalars[name] = ty.split()[0]
        out.append((m.group(1), views, scalars))
    return out


def _scalar_text(name, ty):
    if ty.startswith("f") or ty.startswith("bf"):
        return repr(float(np.float32(SCALARS.get(name, 0.5))))
    return "3"


def _tolerance(example, views):
    from conftest import ALL
    spec = ALL.get(example, {})
    rtol, atol = max(spec.get("rtol", 2e-5), 2e-5), max(spec.get("atol", 2e-6), 2e-6)
    if any(v.dtype in ("f16", "bf16") and v.mode != "in" for v in views):
        rtol, atol = max(rtol, 2e-3), max(atol, 2e-3)  # one rounding of a half-precision result
    return rtol, atol, bool(spec.get("exact"))


def _make(kid, example, path, name, views, scalar_types, text, scalar_values=None):
    rtol, atol, exact = _tolerance(example, views)
    scalars = {}
    for s, ty in scalar_types.items():
        v = (scalar_values or {}).get(s)
        scalars[s] = repr(float(np.float32(v))) if v is not None else _scalar_text(s, ty)
    return Kernel(kid, example, path, name, views, scalars,
                  segments="region_fold" in text or "region_scan" in text, rtol=rtol, atol=atol, exact=exact)


def _cx_id(cx):
    return ",".join(f"{k}={v}" for k, v in sorted(cx.items()))


def suite_ids():
    """The ids of suite_kernels, in its order, without tracing (for pytest parameters)."""
    from conftest import ALL
    out = []
    for path in sorted((EXAMPLES / "kir").glob("*.mlir")):
        out += [f"kir/{m}" for m in re.findall(r"kir\.kernel\s+@(\w+)\(", path.read_text())]
    for example in sorted(ALL):
        out += [f"py/{example}" + (f"[{_cx_id(cx)}]" if cx else "") for cx in ALL[example].get("constexprs", [{}])]
    return out


def suite_kernels(kir_dir: pathlib.Path):
    """Every suite kernel as KIR: examples/kir/*.mlir (each kernel of a file), and each DSL example
    with each of its constexpr variants (test_dsl.ALL), traced into kir_dir."""
    import importlib.util
    from conftest import ALL
    kernels = []
    for path in sorted((EXAMPLES / "kir").glob("*.mlir")):
        text = path.read_text()
        for name, views, scalars in parse_signatures(text):
            kernels.append(_make(f"kir/{name}", KIR_EXAMPLE.get(name, name), path, name, views, scalars, text))
    kir_dir.mkdir(parents=True, exist_ok=True)
    for example in sorted(ALL):
        file = EXAMPLES / f"{example}.py"
        spec = importlib.util.spec_from_file_location(f"tessel_matrix_{example}", file)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        kobj = getattr(module, example)
        for cx in ALL[example].get("constexprs", [{}]):
            kid = f"py/{example}" + (f"[{_cx_id(cx)}]" if cx else "")
            text = kobj.kir(cx)
            path = kir_dir / (re.sub(r"[^\w=,.-]", "_", kid[3:]) + ".mlir")
            path.write_text(text)
            for name, views, scalars in parse_signatures(text):
                kernels.append(_make(kid, example, path, name, views, scalars, text,
                                     ALL[example].get("scalars", {})))
    return kernels


# --- compiler ------------------------------------------------------------------------------------

def run(cmd, check=False, timeout=600):
    res = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=timeout)
    if check and res.returncode != 0:
        raise RuntimeError(f"{shell(cmd)}\n{res.stderr}")
    return res


def compile_or_located_rejection(kernel, kid, target: str, selector: str, out, rejected: dict) -> bool:
    """Compiles a suite kernel's source for a selector target (ptx, amdgpu) into `out`; True when the
    selector accepted it. A rejection must be located errors naming `selector`, leave no artifact and
    be the one `rejected` expects for `kid` (its reason in the message); an acceptance must not be."""
    res = run([TESSEL, "compile", kernel.target, f"--target={target}", "--emit=source", "-o", out])
    if res.returncode != 0:
        errors = [line for line in res.stderr.splitlines() if ": error: " in line]
        assert errors and all(re.match(rf"^[^:\s]+:\d+:\d+: error: the {selector} selector ", e) for e in errors), \
            res.stderr
        assert not pathlib.Path(out).exists(), "a rejected program leaves no artifact"
        assert kid in rejected, f"unexpected rejection:\n{res.stderr}"
        assert rejected[kid] in res.stderr
        return False
    assert kid not in rejected, f"{kid} now compiles for {selector}: remove it from REJECTED"
    return True


def shell(cmd):
    return " ".join(shlex.quote(str(c)) for c in cmd)


_GROUPS = None


def groups():
    """The pipeline's pass groups, in order, as the compiler lists them."""
    global _GROUPS
    if _GROUPS is None:
        _GROUPS = run([TESSEL, "groups"], check=True).stdout.split()
    return _GROUPS


# Compiler parameters and provider knobs (`, provider = "triton"`) alike; `covers = "SYM"` names the
# shape symbol the parameter's extent covers (PGPUAttrs.td).
_PARAM = re.compile(r'#pgpu\.param<"(\w+)",\s*\[([^\]]*)\],\s*(-?\d+)\s*(,[^>]*)?>')
_COVERS = re.compile(r'covers\s*=\s*"(\w+)"')


class Param(typing.NamedTuple):
    """A declared parameter: its sorted candidates, its default and the shape symbol it covers (or None)."""
    candidates: list
    default: int
    covers: str | None = None


def kernel_text(text, kernel):
    """The op of kernel @kernel (kir or pgpu) in a module's text: a group that leaves it as it was
    changed nothing this kernel runs."""
    m = re.search(rf"^\s*(kir|pgpu)\.kernel @{kernel}\(", text, re.M)
    if not m:
        return text
    end = re.compile(r"^\s*(kir|pgpu)\.kernel @", re.M).search(text, m.end())
    return text[m.start():end.start() if end else len(text)]


def declared_params(text, kernel):
    """{name: Param} that pgpu.kernel @kernel declares (on its header line)."""
    m = re.search(rf"pgpu\.kernel @{kernel}\(.*", text)
    out = {}
    for p in _PARAM.finditer(m.group(0) if m else ""):
        covers = _COVERS.search(p.group(4) or "")
        out[p.group(1)] = Param(sorted(int(c) for c in p.group(2).split(",") if c.strip()), int(p.group(3)),
                                covers.group(1) if covers else None)
    return out


@dataclasses.dataclass
class Program:
    group: str
    path: pathlib.Path | None   # None: rejected at this group
    text: str
    params: dict
    same_as: str | None = None  # the earlier group whose program this one equals
    error: str = ""


def programs(kernel: Kernel, out: pathlib.Path, only=None):
    """The program after every group (tessel-opt --tessel-pipeline=stop-after=GROUP), or after `only`."""
    out.mkdir(parents=True, exist_ok=True)
    result, prev = [], None
    for g in [only] if only else groups():
        res = run([TESSEL_OPT, kernel.path, f"--tessel-pipeline=stop-after={g}"])
        if res.returncode != 0:
            result.append(Program(g, None, "", {}, error=res.stderr.strip()))
            prev = None
            continue
        path = out / f"{g}.mlir"
        path.write_text(res.stdout)
        p = Program(g, path, kernel_text(res.stdout, kernel.name), declared_params(res.stdout, kernel.name))
        if prev is not None and prev.text == p.text:
            p.same_as = prev.same_as or prev.group
        result.append(p)
        prev = p
    return result


# --- draws ---------------------------------------------------------------------------------------

# One block of the smallest blocking past the first, +-1: a loop with full blocks and a partial one.
PAST_A_BLOCK = (127, 129, 191, 193)


def draw_shape(rng, extents, cap, zero=False, ones=False, past_block=()):
    """A shape over `extents` whose work fits `cap`: all ones, one 0, or one of `past_block` (extents
    that blocking cuts) just past one block, or free draws from POOL."""
    if ones:
        return {e: 1 for e in extents}
    shape = {e: rng.choice(POOL[1:]) for e in extents}
    pinned = None
    if zero and extents:
        shape[rng.choice(extents)] = 0
    elif past_block and extents:
        pinned = rng.choice(past_block)
        shape[pinned] = rng.choice(PAST_A_BLOCK)
    # Keep the interpreters quick: shrink the largest extent (an empty extent does not make the others free).
    while math.prod(max(v, 1) for v in shape.values()) > cap:
        free = {e: v for e, v in shape.items() if e != pinned and v > 1} or shape
        big = max(free, key=free.get)
        shape[big] = rng.choice([v for v in POOL[1:] if v < shape[big]] or [1])
    return shape


def covered_extent(param: Param, shape):
    """The extent a parameter's blocks cut: the shape symbol its declaration `covers`, else (a tile whose
    axis the declaration does not name) the shape's largest extent, an upper bound on it."""
    if param.covers in shape:
        return max(shape[param.covers], 1)
    return max([v for v in shape.values()] + [1])


def fits(param: Param, shape):
    """The candidates that fit the shape: none beyond the first that covers the parameter's extent (the
    last of them is "the largest that fits")."""
    need = covered_extent(param, shape)
    covering = [c for c in param.candidates if c >= need]
    return [c for c in param.candidates if c <= (covering[0] if covering else param.candidates[-1])]


RANDOM_CAP = 256
# ... and at most RANDOM_WORK lanes in the product of their three largest parameters (a contraction's
# work per program instance is at most three tile extents), or 16 times the smallest binding's where
# that is more (histogram's smallest is 1024 x 64 x 32): a random 128 x 256 x 64 draw of linear
# attention took the pgpu interpreter over 10 minutes at 255 program instances.
RANDOM_WORK = 1 << 18


def _work(binding):
    return math.prod(sorted(binding.values())[-3:])


def capped_largest(params, largest, shape, cap):
    """`largest` (the largest binding that fits) stepped down to at most `cap` lanes over its three largest
    parameters (_work): first the parameters that cover no extent of the shape (their fit is a guess
    against the largest extent), then those that do, the largest first. A parameter that covers its own
    extent keeps its one block over it where the others can make room."""
    b = dict(largest)
    while _work(b) > cap:
        down = [k for k in b if params[k].candidates.index(b[k]) > 0]
        if not down:
            break
        uncovered = [k for k in down if params[k].covers not in shape]
        k = max(uncovered or down, key=lambda k: b[k])
        b[k] = params[k].candidates[params[k].candidates.index(b[k]) - 1]
    return b


def fixed_bindings(params, shape, cap=None):
    """The bindings draw_bindings' list starts with: the smallest, and the largest that fits (with `cap`,
    capped_largest at max(cap, 16 times the smallest's work)) where it differs."""
    if not params:
        return [{}]
    params = {k: Param(*p) for k, p in params.items()}
    smallest = {k: p.candidates[0] for k, p in params.items()}
    largest = {k: fits(p, shape)[-1] for k, p in params.items()}
    if cap is not None:
        largest = capped_largest(params, largest, shape, max(cap, 16 * _work(smallest)))
    return [smallest] + ([largest] if largest != smallest else [])


def degenerate(shape) -> bool:
    """Whether every extent is 1 or some extent is 0: every program instance then runs the same all-true or
    all-false masks whatever the tiles, so one binding's launch covers the path (CI's Triton runs draw the
    random bindings, keeping the draws, but launch only the smallest and the largest that fits there)."""
    return all(v <= 1 for v in shape.values()) or 0 in shape.values()


def draw_bindings(rng, params, shape, deep=False, cap=None):
    """fixed_bindings, then random bindings of the declared domains (deduplicated)."""
    if not params:
        return [{}]
    unique = fixed_bindings(params, shape, cap)
    smallest, largest = unique[0], unique[-1]
    params = {k: Param(*p) for k, p in params.items()}
    # Random ones reach past what fits, up to RANDOM_CAP lanes per axis (the interpreters pay per lane).
    domain = {k: [v for v in p.candidates if v <= max(RANDOM_CAP, largest[k])] for k, p in params.items()}
    for _ in range((3 if deep else 1) + (largest == smallest)):
        for _try in range(50):
            b = {k: rng.choice(c) for k, c in domain.items()}
            if _work(b) > max(RANDOM_WORK, 16 * _work(smallest)):
                continue
            if b not in unique:
                unique.append(b)
                break
    return unique


def shape_text(shape):
    return ",".join(f"{k}={v}" for k, v in shape.items())


# --- runs ----------------------------------------------------------------------------------------

@dataclasses.dataclass
class Case:
    kernel: Kernel
    shape: dict
    seed: int
    group: str
    program: pathlib.Path
    binding: dict

    def key(self):
        return (self.kernel.id, self.kernel.name, shape_text(self.shape), self.seed, self.group,
                tuple(sorted(self.binding.items())))


def kir_command(kernel, shape, seed, out):
    cmd = [TESSEL, "run", kernel.target, "--stage", "kir", "--seed", seed, "--shape", shape_text(shape),
           "--out", out]
    if kernel.segments:
        cmd += ["--segments", "random"]
    return cmd + [f"--scalar={k}={v}" for k, v in kernel.scalars.items()]


def program_command(kernel, program, shape, seed, binding, out):
    cmd = [TESSEL, "run", f"{program}:{kernel.name}", "--seed", seed, "--shape", shape_text(shape),
           "--order", "shuffle", "--out", out]
    if kernel.segments:
        cmd += ["--segments", "random"]
    cmd += [f"--param={k}={v}" for k, v in binding.items()]
    return cmd + [f"--scalar={k}={v}" for k, v in kernel.scalars.items()]


def load_outputs(directory):
    return {p.name[:-4]: np.load(p) for p in pathlib.Path(directory).glob("*.npy") if not p.name.endswith(".in.npy")}


def load_inputs(directory):
    return {p.name[:-7]: np.load(p) for p in pathlib.Path(directory).glob("*.in.npy")}


def compare(kernel, got, want):
    """None when they agree, else a one-line description of the worst difference."""
    for key, w in want.items():
        if key not in got:
            return f"{key}: missing"
        g = got[key]
        if g.shape != w.shape:
            return f"{key}: shape {g.shape} != {w.shape}"
        if kernel.exact or not np.issubdtype(w.dtype, np.floating):
            if not np.array_equal(g, w, equal_nan=np.issubdtype(w.dtype, np.floating)):
                bad = np.argwhere(g != w)
                return f"{key}: {len(bad)} of {w.size} differ, first at {tuple(bad[0])}: {g[tuple(bad[0])]} != {w[tuple(bad[0])]}"
            continue
        g64, w64 = g.astype(np.float64), w.astype(np.float64)
        with np.errstate(invalid="ignore"):
            ok = np.isclose(g64, w64, rtol=kernel.rtol, atol=kernel.atol, equal_nan=True)
        if not ok.all():
            bad = np.argwhere(~ok)
            i = tuple(bad[0])
            return f"{key}: {len(bad)} of {w.size} differ (rtol={kernel.rtol}, atol={kernel.atol}), first at {i}: {g64[i]} != {w64[i]}"
    return None


class Reference:
    """KIR-interpreter results per (kernel, shape, seed), computed once."""

    def __init__(self, tmp):
        self.tmp = pathlib.Path(tmp)
        self.cache = {}
        self.lock = threading.Lock()

    def get(self, kernel, shape, seed):
        """(outputs, inputs) or None when the KIR interpreter rejects the shape (e.g. an empty range)."""
        key = (kernel.id, kernel.name, shape_text(shape), seed)
        with self.lock:
            if key in self.cache:
                return self.cache[key]
        out = pathlib.Path(tempfile.mkdtemp(dir=self.tmp, prefix="ref-"))
        res = run(kir_command(kernel, shape, seed, out))
        value = (load_outputs(out), load_inputs(out)) if res.returncode == 0 else None
        if value is None and 0 not in shape.values():
            raise RuntimeError(f"the KIR interpreter fails on {kernel.id} {shape_text(shape)}:\n{res.stderr}")
        with self.lock:
            self.cache[key] = value
        return value


def check_case(case: Case, refs: Reference):
    """None when the program after case.group agrees with the KIR interpreter, else why not."""
    ref = refs.get(case.kernel, case.shape, case.seed)
    if ref is None:
        return None
    out = pathlib.Path(tempfile.mkdtemp(dir=refs.tmp, prefix="run-"))
    t0 = time.time()
    try:
        res = run(program_command(case.kernel, case.program, case.shape, case.seed, case.binding, out),
                  timeout=RUN_TIMEOUT)
        why = f"exit {res.returncode}: {res.stderr.strip()[-600:]}" if res.returncode else \
            compare(case.kernel, load_outputs(out), ref[0])
    except subprocess.TimeoutExpired:  # a hang, or a draw past what the interpreter runs in time
        why = f"{TIMED_OUT} after {RUN_TIMEOUT} s"
    if os.environ.get("TESSEL_MATRIX_TIMES"):  # a progress log: one line per run, with its verdict
        with open(os.environ["TESSEL_MATRIX_TIMES"], "a") as f:
            f.write(f"{time.time() - t0:.3f} {case.kernel.id} {case.group} {shape_text(case.shape)} seed={case.seed} "
                    f"{case.binding} {'agrees' if why is None else 'DISAGREES: ' + why.splitlines()[0][:200]}\n")
    return why


# One pgpu-interpreter run's time limit: past it the case fails as timed out (not shrunk: each try
# could cost as much).
RUN_TIMEOUT = int(os.environ.get("TESSEL_MATRIX_RUN_TIMEOUT", "600"))
TIMED_OUT = "the pgpu interpreter timed out"


def parallel(fn, items):
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(JOBS, 1)) as pool:
        return list(pool.map(fn, items))


# --- shrinking -----------------------------------------------------------------------------------

def shrink(case: Case, progs, refs: Reference, budget: int):
    """The smallest failing case reachable from `case`: the earliest group that fails, then each
    extent as small as it still fails, then each parameter as small as it still fails."""
    spent = 0
    by_group = {p.group: p for p in progs}

    def fails(c):
        nonlocal spent
        spent += 1
        return check_case(c, refs)

    best, why = case, check_case(case, refs)
    for p in progs:  # the earliest group whose program fails
        if p.group == case.group:
            break
        if p.path is None or p.same_as:
            continue
        binding = {k: v for k, v in case.binding.items() if k in p.params}
        trial = dataclasses.replace(case, group=p.group, program=p.path, binding=binding)
        w = fails(trial)
        if w:
            best, why = trial, w
            break
    progress = True
    while progress and spent < budget:
        progress = False
        for e in list(best.shape):
            v = best.shape[e]
            # Smallest first: the edge values, the pool's values (block sizes - 1 among them), v / 2, v - 1.
            for smaller in sorted({0, 1, 2, v // 2, v - 1, *POOL} - {v}):
                if smaller < 0 or smaller >= v or spent >= budget:
                    continue
                trial = dataclasses.replace(best, shape={**best.shape, e: smaller})
                w = fails(trial)
                if w:
                    best, why, progress = trial, w, True
                    break
        params = by_group[best.group].params
        for k, v in best.binding.items():
            for smaller in [c for c in params[k].candidates if c < v] if k in params else []:
                if spent >= budget:
                    break
                trial = dataclasses.replace(best, binding={**best.binding, k: smaller})
                w = fails(trial)
                if w:
                    best, why, progress = trial, w, True
                    break
    return best, why, spent


def reproducer(case: Case):
    k = case.kernel
    return "\n".join([
        f"  {shell([TESSEL_OPT, k.path, f'--tessel-pipeline=stop-after={case.group}', '-o', '/tmp/matrix.mlir'])}",
        f"  {shell(kir_command(k, case.shape, case.seed, '/tmp/matrix-kir'))}",
        f"  {shell(program_command(k, '/tmp/matrix.mlir', case.shape, case.seed, case.binding, '/tmp/matrix-pgpu'))}",
    ])


# --- accounting (printed at the end of the session) ----------------------------------------------

STATS = {"kernels": set(), "shapes": 0, "bindings": 0, "groups": 0, "runs": 0, "cells": 0,
         "triton_kernels": set(), "triton_runs": 0, "ptx_kernels": set(), "ptx_runs": 0, "rejected": {},
         "seeds": set()}
STATS_LOCK = threading.Lock()


def summary_lines():
    s = STATS
    if not s["kernels"] and not s["triton_kernels"] and not s["ptx_kernels"]:
        return []
    providers = 1 + bool(s["triton_kernels"]) + bool(s["ptx_kernels"])
    lines = [
        f"differential matrix ({'deep' if DEEP else 'ci'}; seeds {sorted(s['seeds'])}; replay with "
        f"TESSEL_MATRIX_SEED=N): {len(s['kernels'])} kernels x {s['shapes']} shapes x >= {s['bindings']} "
        f"bindings per shape x {len(groups())} groups (shape x binding x group cells: {s['cells']}; "
        f"{s['runs']} distinct pgpu/KIR interpreter runs) x {providers} providers "
        f"[interp: {len(s['kernels'])} kernels; triton: {len(s['triton_kernels'])} kernels, "
        f"{s['triton_runs']} launches under TRITON_INTERPRET=1"
        + (f"; ptx: {len(s['ptx_kernels'])} kernels, {s['ptx_runs']} launches on the GPU]" if s["ptx_kernels"] else "]"),
    ]
    for k, why in sorted(s["rejected"].items()):
        lines.append(f"  expected rejection: {k}: {why}")
    return lines


def seeds(budget: Budget):
    """The fixed seeds, plus one drawn per session (printed; TESSEL_MATRIX_SEED=N replays it)."""
    env = os.environ.get("TESSEL_MATRIX_SEED")
    drawn = int(env) if env else _SESSION_SEED
    return tuple(dict.fromkeys(budget.seeds + (drawn,)))


def shape_count(budget: Budget, seed: int, triton: bool = False) -> tuple[int, bool]:
    """(how many shapes seed `seed` draws, whether its first draws are the edges: all ones, a 0, one block
    past a block): a fixed seed draws the edges and budget.shapes; the drawn seed only free draws."""
    if seed in budget.seeds:
        return (budget.triton_shapes if triton else budget.shapes), True
    return (budget.drawn_triton_shapes if triton else budget.drawn_shapes), False


_SESSION_SEED = random.SystemRandom().randrange(1000, 10**6)
