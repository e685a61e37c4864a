"""`python -m tessel emit FILE.py:KERNEL` prints the KIR a DSL kernel traces to.

    python -m tessel emit examples/softmax.py:softmax [--constexpr CAUSAL=false] [--verify]
    python -m tessel run  examples/softmax.py:softmax --shape M=3,N=5 [--scalar eps=1e-5] [--seed 0] [--out DIR]
"""
from __future__ import annotations

import argparse
import enum
import importlib.util
import pathlib
import sys

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
    sys.path.insert(0, str(file.resolve().parent))
    try:
        mod_spec = importlib.util.spec_from_file_location(mod_name, file)
        module = importlib.util.module_from_spec(mod_spec)
        sys.modules[mod_name] = module
        mod_spec.loader.exec_module(module)
    finally:
        sys.path.pop(0)
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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tessel")
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("emit", help="print the KIR of FILE.py:KERNEL")
    e.add_argument("spec")
    e.add_argument("--constexpr", action="append")
    e.add_argument("--verify", action="store_true", help="print the compiler's verified KIR instead")
    r = sub.add_parser("run", help="run FILE.py:KERNEL on the reference interpreter")
    r.add_argument("spec")
    r.add_argument("--shape", action="append")
    r.add_argument("--scalar", action="append")
    r.add_argument("--constexpr", action="append")
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--out")
    args = ap.parse_args(argv)
    try:
        k = load_kernel(args.spec)
        cx = _parse_constexprs(k, args.constexpr)
        if args.cmd == "emit":
            sys.stdout.write(k.compile("kir", cx) if args.verify else k.kir(cx))
            return 0
        shapes = {key: int(v) for key, v in _kv(args.shape).items()}
        scalars = _kv(args.scalar)
        res = k.run_interp(shapes, scalars, cx, seed=args.seed, out=args.out)
        for name, arr in res.items():
            print(f"{name}: {arr.dtype}{list(arr.shape)}")
        return 0
    except CompileError as err:
        print(str(err), file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
