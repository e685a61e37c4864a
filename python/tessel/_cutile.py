"""The cuTile provider's Python side: its toolchain, and ahead-of-time compilation of generated source.

`tessel compile ... --target=cutile --emit=source` (or `kernel.source("cutile")`) writes a module with,
per kernel, `_<name>_kernel` (a `@ct.kernel`), the launch wrapper `<name>(...)` and `<name>_ABI`, the
kernel's arguments in order: `('view', dtype, rank)`, `('scalar', dtype)` or `('workspace', dtype, 1)`.
`export_cubin` compiles such a kernel to a cubin without a GPU (tileiras runs on the CPU), which is how
CI proves the source is valid cuTile; on a GPU `ct.launch` (the wrapper) JIT-compiles the same way.

The toolchain (cuda-tile 1.7.0, tileiras, ptxas and libnvvm 13.4) comes from PyPI wheels, laid out under
DIR/cu13 by the maintainers' `cutile-toolchain.sh fetch DIR` (kept outside the repository; docs/cutile.md
gives its steps); `toolchain(DIR)` finds it and makes it importable.
"""
from __future__ import annotations

import importlib.util
import os
import pathlib

from . import _finder

_DTYPES = ("float16", "bfloat16", "float32", "float64", "bool_", "int8", "int16", "int32", "int64",
           "uint8", "uint16", "uint32", "uint64")


def toolchain(root: str | os.PathLike) -> dict:
    """Makes the toolchain under `root` (the DIR of `cutile-toolchain.sh fetch DIR`, holding cu13/bin and
    cu13/lib) the one this process uses: CUDA_HOME and PATH for tileiras, and `cuda.tile` importable
    from `root/site` (a `pip install --target` of cuda-tile==1.7.0) when it is not installed already.
    Returns the environment entries it set (for subprocesses)."""
    root = pathlib.Path(root)
    cu = root / "cu13"
    if not (cu / "bin" / "tileiras").exists():
        raise FileNotFoundError(f"no tileiras under {cu / 'bin'}; run cutile-toolchain.sh fetch {root}")
    env = {"CUDA_HOME": str(cu), "PATH": f"{cu / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"}
    site = root / "site"
    if site.exists():
        env["PYTHONPATH"] = f"{site}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"
        if not _finder.installed(site):  # importable here ahead of sys.path, as PYTHONPATH does there
            _finder.install(_finder.FolderFinder(site))
    os.environ.update(env)
    return env


def unavailable() -> str | None:
    """Why this process cannot launch generated cuTile modules, or None: `cuda.tile` does not import, or
    it finds no tileiras to compile with (see `toolchain`). `target="auto"` then measures Triton alone."""
    try:
        import cuda.tile  # noqa: F401
    except ImportError as e:
        return f"cuda.tile does not import ({e}); install cuda-tile==1.7.0 and its toolchain (docs/cutile.md)"
    try:
        from cuda.tile._compile import _find_compiler_bin
    except ImportError:  # another cuda-tile release: its first launch says what it misses
        return None
    try:
        _find_compiler_bin()
    except FileNotFoundError as e:
        return f"cuda.tile finds no tileiras ({e})"
    return None


def load_source(path: str | os.PathLike, name: str | None = None):
    """Imports a generated cuTile module from a file."""
    path = pathlib.Path(path)
    spec = importlib.util.spec_from_file_location(name or f"_tessel_cutile_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def signatures(abi):
    """Every `KernelSignature` a launch of the generated kernel can take: one per combination of its
    guards a launch can pass. A guard (`('guard', 'bool', path)`) is a launch fact the wrapper evaluates,
    a `ct.Constant[bool]` in the kernel, so each branch is its own compilation; `path` holds the
    (guard, branch) pairs around it, and outside them the wrapper passes False."""
    paths = [entry[2] for entry in abi if entry[0] == "guard"]
    combos = []
    for combo in range(1 << len(paths)):
        values = [bool(combo >> g & 1) for g in range(len(paths))]
        if all(not v or all(values[outer] == taken for outer, taken in path) for v, path in zip(values, paths)):
            combos.append(signature(abi, values))
    return combos


def signature(abi, guards=None):
    """The `KernelSignature` of a generated kernel's `<name>_ABI` (arrays with 32-bit indices, as the
    wrapper guarantees; scalars of their declared dtype; guards take `guards` in order, all True by
    default)."""
    import cuda.tile as ct
    from cuda.tile.compilation import ArrayConstraint, CallingConvention, KernelSignature, ScalarConstraint

    params, guard_values = [], iter(guards or ())
    for entry in abi:
        kind, dtype = entry[0], entry[1]
        if kind == "guard":
            dtype = "bool_"
        if dtype not in _DTYPES:
            raise ValueError(f"unknown cuTile dtype {dtype!r} in the kernel ABI")
        dt = getattr(ct, dtype)
        if kind in ("view", "workspace"):
            params.append(ArrayConstraint(dtype=dt, ndim=entry[2], index_dtype=ct.int32, stride_lower_bound_incl=0,
                                          alias_groups=[], may_alias_internally=False))
        elif kind == "scalar":
            params.append(ScalarConstraint(dt))
        elif kind == "guard":
            params.append(bool(next(guard_values, True)))
        else:
            raise ValueError(f"unknown argument kind {kind!r} in the kernel ABI")
    return KernelSignature(params, calling_convention=CallingConvention.cutile_python_v1())


def export_cubin(module, name: str, out: str | os.PathLike, gpu_code: str = "sm_90") -> pathlib.Path:
    """Compiles kernel `name` of a generated module (or the path of one) to a cubin for `gpu_code`
    through tileiras, without a GPU: one entry per guard combination (`signatures`). Raises cuTile's own
    error (with the generated line) on failure."""
    from cuda.tile.compilation import export_kernel

    if not hasattr(module, f"{name}_ABI"):
        module = load_source(module)
    out = pathlib.Path(out)
    export_kernel(getattr(module, f"_{name}_kernel"), signatures(getattr(module, f"{name}_ABI")), str(out),
                  gpu_code=gpu_code, output_format="cubin")
    return out
