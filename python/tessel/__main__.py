"""`python -m tessel emit FILE.py:KERNEL` prints the KIR a DSL kernel traces to.

    python -m tessel emit examples/softmax.py:softmax [--constexpr CAUSAL=false] [--verify]
    python -m tessel run  examples/softmax.py:softmax --shape M=3,N=5 [--scalar eps=1e-5] [--seed 0] [--out DIR]
    python -m tessel tune examples/softmax.py:softmax --shape M=16384,N=8192 [--budget-s 60] [--retune]
        [--domain BLOCK=4096/8192] [--workers 14] [--target triton|cutile|auto]
"""
from __future__ import annotations

import argparse
import enum
import importlib.util
import os
import pathlib
import sys

from . import _finder
from ._errors import CompileError
from ._kernel import Kernel


def load_kernel(spec: str) -> Kernel:
    """The kernel named KERNEL in FILE.py (FILE.py alone: the kernel named like the file)."""
    path, name = spec.rsplit(":", 1) if ":" in spec and not spec.endswith(".py") else (spec, "")
    file = pathlib.Path(path)
    if not file.exists():
        raise CompileError(f"no such file: {file}")
    name = name or file.stem
    mod_name = f"_tessel_user_{file.stem}"
    # While the file runs, its imports find the modules beside it first (as `python FILE.py` would).
    finder = _finder.install(_finder.FolderFinder(file.resolve().parent))
    try:
        mod_spec = importlib.util.spec_from_file_location(mod_name, file)
        module = importlib.util.module_from_spec(mod_spec)
        sys.modules[mod_name] = module
        mod_spec.loader.exec_module(module)
    finally:
        sys.meta_path.remove(finder)
    k = getattr(module, name, None)
    if not isinstance(k, Kernel):
        kernels = sorted(n for n, v in vars(module).items() if isinstance(v, Kernel))
        raise CompileError(f"{file} has no @tessel.kernel named '{name}' (it has: {', '.join(kernels) or 'none'})")
    return k


def _parse_constexprs(k: Kernel, items) -> dict:
    specs = {p.name: p.spec for p in k.params() if p.kind == "constexpr"}
    out = {}
    for item in items or ():
        for part in item.split(","):
            key, _, text = part.partition("=")
            if key not in specs:
                raise CompileError(f"kernel '{k.name}' has no constexpr '{key}' (it declares: "
                                   f"{', '.join(sorted(specs)) or 'none'})")
            kind = specs[key].kind
            if kind is bool:
                if text not in ("true", "false"):
                    raise CompileError(f"constexpr {key} is a bool: true or false, got '{text}'")
                out[key] = text == "true"
            elif kind is int:
                out[key] = int(text)
            elif isinstance(kind, type) and issubclass(kind, enum.Enum):
                out[key] = kind[text]
            else:
                out[key] = text
    return out


def _kv(items) -> dict:
    out = {}
    for item in items or ():
        for part in item.split(","):
            k, _, v = part.partition("=")
            out[k] = v
    return out


def _tune_arguments(k: Kernel, shapes: dict, scalars: dict, seed: int):
    """Random non-zero CUDA tensors for the kernel's views (integer views within their declared
    T.Range), and typed scalars."""
    import torch
    gen = torch.Generator(device="cuda").manual_seed(seed)
    dtypes = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32, "f64": torch.float64,
              "i8": torch.int8, "i16": torch.int16, "i32": torch.int32, "i64": torch.int64,
              "f8e4m3": torch.float8_e4m3fn, "f8e5m2": torch.float8_e5m2}

    def extent(e, who):
        if isinstance(e, int):
            return e
        if e not in shapes:
            raise CompileError(f"kernel '{k.name}': view '{who}' needs --shape {e}=N")
        return shapes[e]

    tensors, typed = [], {}
    for p in k.params():
        if p.kind == "scalar":
            if p.name not in scalars:
                raise CompileError(f"kernel '{k.name}': missing --scalar {p.name}=VALUE")
            typed[p.name] = float(scalars[p.name]) if p.spec.is_float else int(scalars[p.name])
        if p.kind != "view":
            continue
        spec = p.spec
        dims = [extent(e, p.name) for e in spec.extents]
        dtype = dtypes.get(spec.dtype.name)
        if dtype is None:
            raise CompileError(f"kernel '{k.name}': view '{p.name}' has element type {spec.dtype.name}, which "
                               "`tessel tune` cannot generate")
        if spec.mode == "out":
            tensors.append(torch.empty(dims, dtype=dtype, device="cuda"))
        elif dtype.is_floating_point:
            mag = torch.rand(dims, generator=gen, device="cuda") + 0.5
            sign = torch.randint(0, 2, dims, generator=gen, device="cuda") * 2 - 1
            tensors.append((mag * sign).to(dtype))
        else:
            lo, hi = (1, 8) if spec.range is None else (extent(spec.range.lo, p.name), extent(spec.range.hi, p.name))
            tensors.append(torch.randint(lo, max(hi, lo + 1), dims, generator=gen, device="cuda", dtype=dtype))
    return tensors, typed


def _emit(args) -> int:
    """`emit`: the KIR of the kernel, and nothing else, on stdout or in `--output`. The author's module
    runs while it loads and traces: its print()s go to stderr (the `tessel` binary parses what this
    writes as KIR). With `--output` (how the binary calls it) the process's stdout itself is stderr
    from here on, so writes that bypass sys.stdout cannot reach the KIR either."""
    import contextlib
    if args.output:
        sys.stdout.flush()
        os.dup2(2, 1)
    try:
        with contextlib.redirect_stdout(sys.stderr):
            k = load_kernel(args.spec)
            text = k.compile("kir", _parse_constexprs(k, args.constexpr)) if args.verify else \
                k.kir(_parse_constexprs(k, args.constexpr))
    except CompileError as err:
        print(str(err), file=sys.stderr)
        return 2
    if args.output:
        with open(args.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tessel")
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("emit", help="print the KIR of FILE.py:KERNEL")
    e.add_argument("spec")
    e.add_argument("--constexpr", action="append")
    e.add_argument("--verify", action="store_true", help="print the compiler's verified KIR instead")
    e.add_argument("--output", help="write the KIR to this file instead of stdout; the author's code (its "
                   "print()s, or anything else writing to stdout) then writes to stderr")
    r = sub.add_parser("run", help="run FILE.py:KERNEL on the reference interpreter")
    r.add_argument("spec")
    r.add_argument("--shape", action="append")
    r.add_argument("--scalar", action="append")
    r.add_argument("--constexpr", action="append")
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--out")
    t = sub.add_parser("tune", help="tune FILE.py:KERNEL on random CUDA inputs of the given shape")
    t.add_argument("spec")
    t.add_argument("--shape", action="append")
    t.add_argument("--scalar", action="append")
    t.add_argument("--constexpr", action="append")
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--budget-s", type=float, default=60.0, help="search time budget in seconds")
    t.add_argument("--retune", action="store_true", help="search again even when the cache has a winner")
    t.add_argument("--domain", action="append", metavar="NAME=V1/V2/...",
                   help="search only these declared values of a parameter (repeatable)")
    t.add_argument("--workers", type=int, default=0, help="compile candidates ahead on this many processes")
    t.add_argument("--target", choices=["triton", "cutile", "auto"],
                   help="the provider to tune, or auto: measure Triton and cuTile, keep the faster correct one "
                        "(default: the kernel's own target)")
    args = ap.parse_args(argv)
    if args.cmd == "emit":
        return _emit(args)
    try:
        k = load_kernel(args.spec)
        cx = _parse_constexprs(k, args.constexpr)
        shapes = {key: int(v) for key, v in _kv(args.shape).items()}
        scalars = _kv(args.scalar)
        if args.cmd == "tune":
            domain = {}
            for name, values in _kv(args.domain).items():
                try:
                    domain[name] = [int(v) for v in values.split("/")]
                except ValueError:
                    raise CompileError(f"--domain {name}={values}: expected integers separated by '/'") from None
            import torch
            if not torch.cuda.is_available():
                raise CompileError("tessel tune measures on a CUDA device, and none is available here")
            tensors, typed = _tune_arguments(k, shapes, scalars, args.seed)
            best = k.tune(*tensors, budget_s=args.budget_s, retune=args.retune, domain=domain or None,
                          compile_workers=args.workers, target=args.target, **typed, **cx)
            report = k.last_tuning or {}
            if report.get("cache_hit"):
                print(f"{k.name}: cached winner {best} (use --retune to search again)")
            else:
                if report.get("head_to_head_ms"):
                    print(f"{k.name}: providers head to head: " +
                          ", ".join(f"{p} {ms:.4f} ms" for p, ms in report["head_to_head_ms"].items()))
                print(f"{k.name}: winner {best}: {report.get('winner_ms')} ms (default {report.get('default_ms')} ms); "
                      f"{report.get('timed')} timed, {len(report.get('rejected', []))} rejected, "
                      f"{report.get('skipped_for_budget')} skipped for the budget, {report.get('wall_s')} s")
            return 0
        res = k.run_interp(shapes, scalars, cx, seed=args.seed, out=args.out)
        for name, arr in res.items():
            print(f"{name}: {arr.dtype}{list(arr.shape)}")
        return 0
    except CompileError as err:
        print(str(err), file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
