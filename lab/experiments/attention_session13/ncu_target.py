"""One launch of tessel's generated causal kernel (base_c1.py) or the hand two-loop FA2 (ws_probe._fa,
host descriptors, 64/64/4/3), after a warm-up, for ncu."""
import importlib.util, math, sys
sys.path[:0] = ["scratch/s13"]
import torch


def main():
    which = sys.argv[1]
    B, H, S, D = 4, 32, 4096, 128
    q, k, v = (torch.randn(B, H, S, D, device="cuda", dtype=torch.bfloat16) for _ in range(3)); o = torch.empty_like(q)
    if which == "tessel":
        spec = importlib.util.spec_from_file_location("base_c1", "scratch/s13/base_c1.py"); m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
        fn = lambda: m.attention(q, k, v, o, scale=1 / math.sqrt(D))
    else:
        import ws_probe as P
        fn = P.fa(q, k, v, o, 1 / math.sqrt(D), True, 64, 64, 4, 3, False, False)
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    fn()
    torch.cuda.synchronize()


if __name__ == "__main__":
    main()
