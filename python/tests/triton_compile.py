"""Compile a generated module's Triton kernel for sm_90 on a machine without a GPU (TRITON_PTX: also
write its PTX there): python3 triton_compile.py MODULE.py BINDING SHAPES_JSON -> one JSON line of facts
about the PTX's global memory accesses.

The binding is called on CPU tensors of the given shapes (SHAPES_JSON: {"views": {name: [shape, dtype]},
"scalars": {...}, "tma": true to take the TMA switch as on an sm_90 device, with host descriptors}) with its
launch intercepted: the wrapper's checks run as on the GPU, and the arguments
it would launch `_<binding>_kernel` with are bound, specialized (Triton's divisibility-by-16 facts of the
integers and pointers) and compiled by Triton's own binder and compiler for an sm_90 target, down to PTX
and ptxas. Run without TRITON_INTERPRET in the environment (the JIT is then the compiling one)."""
import collections
import importlib.util
import json
import os
import re
import sys

import torch


class _Launch(Exception):
    pass


def main(path, binding, shapes):
    spec = importlib.util.spec_from_file_location("_triton_compile_module", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    kernel = getattr(mod, f"_{binding}_kernel")
    seen = {}

    class Capture:
        def __getitem__(self, grid):
            def launch(*args, **kwargs):
                seen.update(grid=grid, args=args, kwargs=kwargs)
                raise _Launch()
            return launch

    setattr(mod, f"_{binding}_kernel", Capture())
    mod._interpreting = lambda: False
    if shapes.get("tma"):
        mod._arch = lambda t: 9  # the TMA switch as on an sm_90 device (the views' own alignment decides)
    os.environ["TRITON_INTERPRET"] = "1"  # the wrapper's view checks accept CPU tensors
    views = {name: torch.zeros(*shape, dtype=getattr(torch, dtype)) for name, (shape, dtype) in shapes["views"].items()}
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
    from triton.compiler import ASTSource, make_backend
    from triton.runtime.jit import create_function_from_signature
    target = GPUTarget("cuda", 90, 32)
    backend = make_backend(target)
    kwargs = dict(seen["kwargs"])
    binder = create_function_from_signature(kernel.signature, kernel.params, backend)
    bound, specialization, options = binder(*seen["args"], **kwargs)
    options, signature, constexprs, attrs = kernel._pack_args(backend, kwargs, bound, specialization, options)
    compiled = triton.compile(ASTSource(kernel, signature, constexprs, attrs), target=target,
                              options=options.__dict__)
    ptx = compiled.asm["ptx"]
    if os.environ.get("TRITON_PTX"):
        open(os.environ["TRITON_PTX"], "w").write(ptx)
    # ld.global.v4.b32, st.global.b16, ld.global.nc.v2.b32, ... : vector (.vN) or one element a thread
    accesses = collections.Counter()
    for kind, vector in re.findall(r"\b(ld|st)\.global(?:\.[a-z]+)*?(\.v\d)?\.[bfsu]\d+\b", ptx):
        accesses[f"{kind}_{'vector' if vector else 'scalar'}"] += 1
    print(json.dumps({"launched": True, "num_warps": kwargs.get("num_warps"), "shared": compiled.metadata.shared,
                      **accesses}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], json.loads(sys.argv[3]))
