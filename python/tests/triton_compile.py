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
import json
import os
import re
import sys

import torch

from sm90_compile import compile_sm90, intercept


def main(path, binding, shapes):
    views = {name: torch.zeros(*shape, dtype=getattr(torch, dtype)) for name, (shape, dtype) in shapes["views"].items()}
    patches = {"_interpreting": lambda: False}
    if shapes.get("tma"):
        patches["_arch"] = lambda t: 9  # the TMA switch as on an sm_90 device (the views' own alignment decides)
    kernel, launch = intercept(path, binding, "kernel", views, shapes.get("scalars", {}), patches)
    if launch is None:
        print(json.dumps({"launched": False}))
        return
    from triton.compiler import ASTSource
    compiled, kwargs = compile_sm90(kernel, launch, ASTSource)
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
