"""Compile a generated module's warp-specialized Gluon kernel for sm_90 on a machine without a GPU
(GLUON_PTX / GLUON_TTGIR: also write its PTX / TTGIR there):
python3 gluon_compile.py MODULE.py BINDING SHAPES_JSON -> one JSON line of facts about the PTX.

The binding is called on CPU tensors of the given shapes (random, bf16 or SHAPES_JSON's "dtype", a view's own in its
"dtypes" entry) with its launch intercepted:
the wrapper's checks and host descriptors run as on the GPU (the TMA switch forced on), and the
arguments it would launch `_<binding>_gluon` with are bound and compiled by Triton's own binder and
compiler for an sm_90 target, down to PTX and ptxas. Run without TRITON_INTERPRET in the environment
(Gluon's JIT is then the compiling one)."""
import json
import os
import sys

import torch

from sm90_compile import compile_sm90, intercept


def main(path, binding, shapes):
    torch.manual_seed(0)
    dtype = getattr(torch, shapes.get("dtype", "bfloat16"))  # the views' element type (bf16 unless given)
    dtypes = {name: getattr(torch, d) for name, d in shapes.get("dtypes", {}).items()}  # per view, where given
    views = {name: torch.randn(*shape, dtype=dtypes.get(name, dtype)) for name, shape in shapes["views"].items()}
    # the TMA switch as on the GPU (an sm_90 one)
    kernel, launch = intercept(path, binding, "gluon", views, shapes.get("scalars", {}),
                               {"_interpreting": lambda: False, "_arch": lambda t: 9})
    if launch is None:
        print(json.dumps({"launched": False}))
        return
    from triton.experimental.gluon._runtime import GluonASTSource
    compiled, kwargs = compile_sm90(kernel, launch, GluonASTSource)
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
