"""On the GPU: each variant of make_variants.py against torch's parallel form (the corpus peer) at corpus 27's
bench shape (B8 H16 T4096 D128 f32): max error against the peer, then the median of CUDA-event timings.
    PYTHONPATH=python python3 lab/experiments/retention_exact_split_s46/ab.py DIR [B H T D]"""
import importlib.util
import pathlib
import sys

import torch


def load(path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m.retention


def timed(fn, reps=20):
    fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        torch.cuda.synchronize()
        times.append(s.elapsed_time(e))
    return sorted(times)[len(times) // 2]


def main(folder, B=8, H=16, T=4096, D=128):
    g = torch.Generator(device="cuda").manual_seed(0)
    q = torch.randn(B, H, T, D, device="cuda", generator=g) / D ** 0.5
    k, v = (torch.randn(B, H, T, D, device="cuda", generator=g) for _ in range(2))
    gamma = (1.0 - 2.0 ** (-5.0 - torch.arange(H, device="cuda") * 4.0 / max(H - 1, 1))).float()
    n = torch.arange(T, device="cuda")
    diff = (n[:, None] - n[None, :]).float()
    mask = torch.where(diff >= 0, gamma[:, None, None] ** diff.clamp(min=0), 0.0)
    peer = lambda: ((q @ k.transpose(-1, -2)) * mask) @ v  # noqa: E731
    want = peer()
    print(f"peer (torch eager, fp32 IEEE): {timed(peer):.2f} ms")
    for path in sorted(pathlib.Path(folder).glob("*.py")):
        o = torch.empty_like(q)
        try:
            fn = load(path)
            fn(q, k, v, gamma, o)
            err = (o - want).abs().max().item()
            print(f"{path.stem:>16}: {timed(lambda: fn(q, k, v, gamma, o)):8.2f} ms  max |err| {err:.2e}", flush=True)
        except Exception as e:  # a binding past the registers or shared memory
            print(f"{path.stem:>16}: failed: {type(e).__name__}: {str(e)[:160]}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], *map(int, sys.argv[2:]))
