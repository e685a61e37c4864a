"""Sweeps physical parameters of corpus kernels at their bench shapes on the GPU (issue 41: the call
defaults of skinny contractions and of rows longer than any BLOCK candidate). Each binding is checked
against the eager peer before it is timed; prints one JSON line per binding, then writes a JSON file.

    python3 lab/experiments/issue41/param_sweep.py OUT.json
"""
import itertools
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [os.path.join(os.path.dirname(BENCH), "python"), os.path.join(BENCH, "corpus"), BENCH]

import _harness as H  # noqa: E402
import corpus as C  # noqa: E402  (bench/corpus.py: the peers' torch inputs)


def grid(**axes):
    keys = list(axes)
    return [dict(zip(keys, vals)) for vals in itertools.product(*axes.values())]


SKINNY = grid(TILE_0=[16], TILE_1=[16, 32, 64], TILE_K=[64, 128], STAGES=[3, 4, 6], WARPS=[4]) + \
    grid(TILE_0=[16], TILE_1=[32, 64], TILE_K=[128], STAGES=[4], WARPS=[2, 8])
SWEEPS = {
    "07_gemv_decode": [None] + SKINNY,
    "07_skinny_gemv": [None] + SKINNY,
    "05_int8_wo_gemm": [None] + SKINNY,
    "05_int8_weight_only_gemm": [None] + SKINNY,
    "13_log_softmax": [None] + grid(BLOCK=[2048, 4096, 8192, 16384], WARPS=[4, 8, 16]),
}


def main():
    import torch
    from triton.testing import do_bench
    out = sys.argv[1] if len(sys.argv) > 1 else "param_sweep.json"
    names = sys.argv[2:] or list(SWEEPS)
    records = []
    for name in names:
        mod = H.load(name)
        shape = dict(mod.BENCH_SHAPE)
        inputs = H.draw(mod, shape, seed=2)
        views, kw = H.torch_args(mod, shape, inputs, "cuda")
        tin = C._torch_inputs(inputs, mod, "cuda")
        want = mod.peer(**tin)
        peer_ms = do_bench(lambda: mod.peer(**tin), warmup=25, rep=100, return_mode="median")
        cx = getattr(mod, "CONSTEXPRS", {}) or {}
        print(json.dumps({"kernel": name, "peer_eager_ms": peer_ms,
                          "call_defaults": mod.KERNEL.call_defaults(*views, **kw)}), flush=True)
        for params in SWEEPS[name]:
            rec = {"kernel": name, "params": params or "call defaults"}
            try:
                call = (lambda: mod.KERNEL(*views, **kw)) if params is None else \
                    (lambda f=mod.KERNEL._launcher(cx, {**mod.KERNEL.call_defaults(*views, **kw), **params}):
                     f(*views, **kw))
                call()
                torch.cuda.synchronize()
                got = H.outputs_of(mod, views)
                bad = None
                for k, w in want.items():
                    if k in got and not torch.allclose(got[k].float(), w.float(), rtol=5e-2, atol=5e-2,
                                                       equal_nan=True):
                        bad = f"{k}: max diff {(got[k].float() - w.float()).abs().max().item()}"
                if bad:
                    rec["error"] = bad
                else:
                    rec["ms"] = do_bench(call, warmup=25, rep=100, return_mode="median")
                    rec["vs_eager"] = peer_ms / rec["ms"]
            except Exception as e:
                rec["error"] = f"{type(e).__name__}: {str(e)[:200]}"
            print(json.dumps(rec), flush=True)
            records.append(rec)
    with open(out, "w") as f:
        json.dump(records, f, indent=1)


if __name__ == "__main__":
    main()
