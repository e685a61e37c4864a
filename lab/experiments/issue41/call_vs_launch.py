"""Corpus kernels timed through the kernel call and through launch() at the declared defaults, alone in
one process (issue 41: the corpus run's GEMM epilogue measured 2x slower than the same program launched)."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "bench", "corpus"))


def main(names):
    import torch
    from triton.testing import do_bench
    import _harness as H
    for name in names:
        mod = H.load(name)
        shape = dict(mod.BENCH_SHAPE)
        inputs = H.draw(mod, shape, seed=2)
        views, kw = H.torch_args(mod, shape, inputs, "cuda")
        mod.KERNEL(*views, **kw)
        mod.KERNEL.launch(*views, **kw)
        torch.cuda.synchronize()
        call = do_bench(lambda: mod.KERNEL(*views, **kw), return_mode="median")
        launch = do_bench(lambda: mod.KERNEL.launch(*views, **kw), return_mode="median")
        defaults = mod.KERNEL.call_defaults(*views, **kw)
        print(f"{name}: call {call:.3f} ms, launch {launch:.3f} ms, call defaults {defaults}", flush=True)
        for params in ({"TILE_1": 128}, {"TILE_1": 128, "STAGES": 4}, {"STAGES": 2}, {"TMA": 0}):
            try:
                mod.KERNEL.launch(*views, params=params, **kw)
                ms = do_bench(lambda: mod.KERNEL.launch(*views, params=params, **kw), return_mode="median")
                print(f"   {params}: {ms:.3f} ms", flush=True)
            except Exception as e:
                print(f"   {params}: {type(e).__name__}: {str(e)[:150]}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
