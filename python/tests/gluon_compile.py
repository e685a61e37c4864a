"""Compile a generated module's warp-specialized Gluon kernel for sm_90 on a machine without a GPU
(GLUON_PTX / GLUON_TTGIR: also write its PTX / TTGIR there):
python3 gluon_compile.py MODULE.py BINDING SHAPES_JSON -> one JSON line of facts about the PTX.

The binding is called on CPU tensors of the given shapes (random, bf16 unless SHAPES_JSON names a torch
"dtype") with its launch intercepted:
the wrapper's checks and host descriptors run as on the GPU (the TMA switch forced on), and the
arguments it would launch `_<binding>_gluon` with are bound and compiled by Triton's own binder and
compiler for an sm_90 target, down to PTX and ptxas. Run without TRITON_INTERPRET in the environment
(Gluon's JIT is then the compiling one)."""
import importlib.util
import json
import os
import sys

import torch


class _Launch(Exception):
    pass


def main(path, binding, shapes):
    spec = importlib.util.spec_from_file_location("_gluon_compile_module", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    kernel = getattr(mod, f"_{binding}_gluon")
    seen = {}

    class Capture:
        def __getitem__(self, grid):
            def launch(*args, **kwargs):
                seen.update(grid=grid, args=args, kwargs=kwargs)
                raise _Launch()
            return launch

    setattr(mod, f"_{binding}_gluon", Capture())
    mod._interpreting = lambda: False  # the TMA switch as on the GPU (an sm_90 one)
    mod._arch = lambda t: 9
    os.environ["TRITON_INTERPRET"] = "1"  # the wrapper's view checks accept CPU tensors
    torch.manual_seed(0)
    dtype = getattr(torch, shapes.get("dtype", "bfloat16"))  # the views' element type (SHAPES_JSON "dtype")
    views = {name: torch.randn(*shape, dtype=dtype) for name, shape in shapes["views"].items()}
    try:
        getattr(mod, binding)(*views.values(), **shapes.get("scalars", {}))
    except _Launch:
        pass
    del os.environ["TRITON_INTERPRET"]
    if not seen:
        print(json.dumps({"launched": False}))
        return
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import make_backend
    from triton.experimental.gluon._runtime import GluonASTSource
    from triton.runtime.jit import create_function_from_signature
    target = GPUTarget("cuda", 90, 32)
    backend = make_backend(target)
    kwargs = dict(seen["kwargs"])
    binder = create_function_from_signature(kernel.signature, kernel.params, backend)
    bound, specialization, options = binder(*seen["args"], **kwargs)
    options, signature, constexprs, attrs = kernel._pack_args(backend, kwargs, bound, specialization, options)
    compiled = triton.compile(GluonASTSource(kernel, signature, constexprs, attrs), target=target,
                              options=options.__dict__)
    ptx = compiled.asm["ptx"]
    if os.environ.get("GLUON_TTGIR"):
        open(os.environ["GLUON_TTGIR"], "w").write(compiled.asm["ttgir"])
    if os.environ.get("GLUON_PTX"):
        open(os.environ["GLUON_PTX"], "w").write(ptx)
    print(json.dumps({
        "launched": True,
        "maxnreg": kwargs.get("maxnreg"),
        "num_warps": kwargs.get("num_warps"),
        "shared": compiled.metadata.shared,
        "wgmma": ptx.count("wgmma.mma_async"),
        "tma_loads": ptx.count("cp.async.bulk.tensor"),
        "setmaxnreg": ptx.count("setmaxnreg"),
        "mbarrier_waits": ptx.count("mbarrier.try_wait"),
        "cubin_bytes": len(compiled.asm["cubin"]),
    }))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], json.loads(sys.argv[3]))
