import sys, importlib.util, triton, os
from triton.backends.compiler import GPUTarget
def load(path):
    spec = importlib.util.spec_from_file_location("m"+os.path.basename(path)[:-3], path); m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m); return m
path, fn = sys.argv[1], sys.argv[2]
m = load(path)
k = getattr(m, fn)
sig = {}
import inspect
params = k.arg_names
consts = {}
for a in params:
    if a in ("Q", "K", "V", "O"): sig[a] = "*bf16"
    elif a == "scale" or a == "sm_scale": sig[a] = "fp32"
    elif a.endswith("stride3"): sig[a] = "constexpr"; consts[a] = 1
    else: sig[a] = "i32"
extra = dict(a.split("=") for a in sys.argv[3:])
for a, v in extra.items():
    sig[a] = "constexpr"; consts[a] = int(v) if v.lstrip("-").isdigit() else v
vals = {"_extent_B": 4, "_extent_H": 32, "_extent_S": 4096, "_extent_T": 4096, "_extent_D": 128, "H": 32, "S": 4096}
attrs = {}
for i, a in enumerate(params):
    if sig[a] in ("*bf16",): attrs[(i,)] = [["tt.divisibility", 16]]
    elif sig[a] == "i32" and (vals.get(a, 16) % 16 == 0): attrs[(i,)] = [["tt.divisibility", 16]]
src = triton.compiler.ASTSource(fn=k, signature=sig, constexprs=consts, attrs=attrs)
c = triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": 8, "num_stages": 3})
out = sys.argv[1][:-3]
open(out + ".ttgir", "w").write(c.asm["ttgir"]); open(out + ".ptx", "w").write(c.asm["ptx"])
print("ok", c.metadata.shared, c.metadata.num_warps)
