"""FA2-form experiment: tessel's generated attention (base), hand-edited so the combine's rescaling is folded
into the tile's exp (fa2) and with exp2 spelling (fa2exp2), against a hand-written FA2 Triton kernel."""
import importlib.util, json, os, statistics, sys
import torch
sys.path.insert(0, os.path.dirname(__file__))
from ref_fa2 import fa2
def load(path):
    spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path); m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m); return m.attn_probe
def timed(fn, reps=20):
    for _ in range(3): fn()
    torch.cuda.synchronize(); ts = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); fn(); b.record(); torch.cuda.synchronize(); ts.append(a.elapsed_time(b))
    return statistics.median(ts)
if __name__ == "__main__":
    B, H, S, D = 4, 32, 4096, 128
    torch.manual_seed(0)
    q, k, v = (torch.randn(B, H, S, D, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    scale = D ** -0.5
    out = []
    for causal in (True, False):
        ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=scale)
        flops = 4 * B * H * S * S * D * (0.5 if causal else 1)
        tag = "causal" if causal else "full"
        cands = {}
        for kind in ("base", "new", "newexp2", "newlog2"):
            f = load(os.path.join(os.path.dirname(__file__), f"{tag}_{kind}.py"))
            cands[kind] = (lambda f=f: (lambda o: f(q, k, v, o, scale=scale)))()
        for bm, bn, w, st in ((128, 64, 8, 3), (128, 128, 8, 3)):
            cands[f"hand_{bm}_{bn}_{w}_{st}"] = (lambda bm=bm, bn=bn, w=w, st=st: (lambda o: fa2(q, k, v, o, scale, causal, bm, bn, w, st)))()
        for name, f in cands.items():
            o = torch.full_like(q, float("nan"))
            try:
                f(o); torch.cuda.synchronize()
            except Exception as e:
                print(tag, name, "FAILED", str(e)[:200]); continue
            err = (o.float() - ref.float()).abs().max().item()
            ms = timed(lambda: f(o))
            row = {"case": tag, "variant": name, "max_abs_err": err, "ms": ms, "TFLOPs": flops / ms / 1e9}
            print(json.dumps(row), flush=True); out.append(row)
    os.makedirs(os.environ.get("OUT", "."), exist_ok=True)
    json.dump(out, open(os.path.join(os.environ.get("OUT", "."), "fa2_form.json"), "w"), indent=1)
