"""Compile a generated module's Gluon kernel for sm_90a on this CPU machine (no GPU): python3 ptx.py mods/TAG.py
[B H G S D]. A stand-in driver answers Triton's device queries; the module's own warmup builds the arguments and
descriptors from CPU tensors. Writes mods/TAG.ptx and prints the consumer's instruction counts."""
import collections
import importlib.util
import pathlib
import re
import sys

import torch
import triton
from triton.backends.compiler import GPUTarget


class _Driver:
    """Just enough of triton.runtime.driver.active for JITFunction.run(warmup=True)."""
    def get_current_target(self):
        return GPUTarget("cuda", 90, 32)

    def get_current_device(self):
        return 0

    def get_current_stream(self, device=None):
        return 0

    def get_device_interface(self):
        return torch.cuda

    def __getattr__(self, name):
        raise AttributeError(name)


def compile_module(path, B=4, H=32, G=8, S=4096, D=128):
    triton.runtime.driver.set_active(_Driver())
    spec = importlib.util.spec_from_file_location("m", path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    m._interpreting = lambda: False
    name = next(n[:-len("_warmup")] for n in dir(m) if n.endswith("_warmup"))
    q = torch.empty(B, H, S, D, dtype=torch.bfloat16)
    k = torch.empty(B, G, S, D, dtype=torch.bfloat16)
    v = torch.empty(B, G, S, D, dtype=torch.bfloat16)
    o = torch.empty(B, H, S, D, dtype=torch.bfloat16)
    got = []
    for fn in (getattr(m, f"_{name}_gluon"), getattr(m, f"_{name}_kernel")):
        fn.warmup = (lambda w: lambda *a, **k: got.append(w(*a, **k)))(fn.warmup)
    getattr(m, name + "_warmup")(q, k, v, o, scale=D ** -0.5)
    kernel = got[-1]
    return kernel.result() if hasattr(kernel, "result") else kernel


def loop_counts(ptx):
    """Instruction mnemonics per loop body (labels that a later backward branch targets)."""
    lines = ptx.splitlines()
    labels = {m.group(1): i for i, l in enumerate(lines) if (m := re.match(r"^(\$L__BB\w+):", l))}
    loops = []
    for i, l in enumerate(lines):
        m = re.search(r"bra(?:\.uni)?\s+(\$L__BB\w+);", l)
        if m and m.group(1) in labels and labels[m.group(1)] < i:
            body = lines[labels[m.group(1)]:i + 1]
            c = collections.Counter(re.match(r"\s*(?:@!?%p\d+\s+)?([a-z][\w]*(?:\.[\w]+)?)", x).group(1)
                                    for x in body if re.match(r"\s*(?:@!?%p\d+\s+)?[a-z]", x))
            loops.append((labels[m.group(1)], i, c))
    return loops


if __name__ == "__main__":
    path = pathlib.Path(sys.argv[1])
    kernel = compile_module(path, *map(int, sys.argv[2:]))
    ptx = kernel.asm["ptx"]
    path.with_suffix(".ptx").write_text(ptx)
    print("shared", kernel.metadata.shared, "regs?", "maxnreg" in ptx)
    for lo, hi, c in loop_counts(ptx):
        if c["wgmma.mma_async"] or c.get("wgmma.mma_async.sync", 0):
            keep = {k: v for k, v in sorted(c.items()) if k.split(".")[0] in
                    ("wgmma", "bar", "mbarrier", "fma", "ex2", "max", "mul", "add", "cvt", "sub", "selp", "shfl")}
            print(f"loop lines {lo}-{hi}: {keep}")
