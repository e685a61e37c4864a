"""Runs one bias-attention kernel (tessel's generated `bias.py`, or FlexAttention with the bias as a
score_mod) a few times, for ncu to profile one launch; `flex` also copies Inductor's generated
kernel source to $OUT."""
import importlib.util, math, os, pathlib, shutil, sys
import torch
HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2] / "bench"))
from run_bench import nonzero

if __name__ == "__main__":
    which = sys.argv[1]
    B, H, S, D = 4, 32, 4096, 128
    torch.manual_seed(0)
    q, k, v = (nonzero(B, H, S, D, dtype=torch.bfloat16) for _ in range(3))
    bias = nonzero(H, S, S, dtype=torch.bfloat16)
    scale = 1.0 / math.sqrt(D)
    if which == "flex":
        from torch.nn.attention.flex_attention import flex_attention
        f = torch.compile(flex_attention, dynamic=False)
        run = lambda: f(q, k, v, score_mod=lambda sc, b, h, qi, ki: sc + bias[h, qi, ki], scale=scale)
    else:
        spec = importlib.util.spec_from_file_location(which, HERE / f"{which}.py")
        mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
        o = torch.empty_like(q)
        fn = getattr(mod, f"k_{which}")
        args = (q, k, v, bias, o) if which.startswith("bias") else (q, k, v, o)
        run = lambda: fn(*args, scale=scale)
    for _ in range(3):
        run()
    torch.cuda.synchronize()
    if which == "flex" and os.environ.get("OUT"):
        dest = pathlib.Path(os.environ["OUT"]) / "flex_src"
        dest.mkdir(exist_ok=True)
        for p in pathlib.Path("/tmp").glob("torchinductor_*/**/*.py"):
            if "tem_fused" in p.read_text(errors="ignore"):
                shutil.copy(p, dest / p.name)
