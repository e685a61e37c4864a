"""GPU side of experiment 1: every variant checked against SDPA (math for masks/bias) on random
non-zero inputs, then timed (median of CUDA events), peers in the same process."""
import importlib.util, json, math, os, pathlib, sys, time, traceback
import torch, torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
HERE = pathlib.Path(__file__).parent
sys.path.insert(0, str(HERE.parents[2] / "bench"))
from run_bench import nonzero, timed

def pairs(S, kind, W=256):
    if kind == "causal": return S * (S + 1) // 2
    if kind == "window": return sum(min(s + 1, W) for s in range(S))
    return S * S

def main():
    only = set(sys.argv[1].split(",")) if len(sys.argv) > 1 and sys.argv[1] else None
    man = json.loads((HERE / "manifest.json").read_text())
    torch.manual_seed(0)
    torch._dynamo.config.recompile_limit = 64
    from torch.nn.attention.flex_attention import flex_attention, create_block_mask
    flex = torch.compile(flex_attention, dynamic=False)
    inputs, refs, out = {}, {}, []
    peers_done = set()
    for v in man:
        if only and not any(v["name"].startswith(o) for o in only):
            continue
        B, H, S, D, kind = v["B"], v["H"], v["S"], v["D"], v["kind"]
        key = (B, H, S, D, kind)
        dt = torch.bfloat16
        if key not in inputs:
            q, k, vv = (nonzero(B, H, S, D, dtype=dt) for _ in range(3))
            bias = nonzero(H, S, S, dtype=dt) if kind == "bias" else None
            inputs[key] = (q, k, vv, bias)
        q, k, vv, bias = inputs[key]
        scale = 1.0 / math.sqrt(D)
        kw = {}
        if kind == "causal": kw["is_causal"] = True
        if kind == "bias": kw["attn_mask"] = bias.unsqueeze(0)
        if kind == "window":
            i = torch.arange(S, device="cuda")
            kw["attn_mask"] = (i[None, :] <= i[:, None]) & (i[None, :] > i[:, None] - 256)
        if key not in refs:
            with sdpa_kernel([SDPBackend.MATH] if kind in ("bias", "window") else [SDPBackend.FLASH_ATTENTION, SDPBackend.CUDNN_ATTENTION]):
                refs[key] = F.scaled_dot_product_attention(q, k, vv, scale=scale, **kw)
        ref = refs[key]
        flops = 4.0 * B * H * D * pairs(S, kind)
        row = dict(v)
        try:
            spec = importlib.util.spec_from_file_location(v["name"], HERE / f"{v['name']}.py")
            mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
            fn = getattr(mod, v["fn"])
            o = torch.empty_like(q)
            args = (q, k, vv, bias, o) if kind == "bias" else (q, k, vv, o)
            t0 = time.monotonic()
            o.fill_(float("nan")); fn(*args, scale=scale); torch.cuda.synchronize()
            row["compile_s"] = round(time.monotonic() - t0, 1)
            err = (o.double() - ref.double()).abs().max().item()
            row["max_abs_err"] = err
            row["correct"] = err <= 2e-2
            if row["correct"]:
                row["ms"] = timed(lambda: fn(*args, scale=scale), reps=30)
                row["TFLOPs"] = flops / row["ms"] / 1e9
        except Exception as e:
            row["error"] = f"{type(e).__name__}: {e}"[-600:]
        print(json.dumps({k2: row.get(k2) for k2 in ("name", "ms", "TFLOPs", "max_abs_err", "error")}), flush=True)
        out.append(row)
        if key not in peers_done:
            peers_done.add(key)
            peers = {}
            if kind in ("causal", "full"):
                peers["sdpa_cudnn"] = lambda: (lambda c: (c.__enter__(), F.scaled_dot_product_attention(q, k, vv, scale=scale, **kw), c.__exit__(None, None, None))[1])(sdpa_kernel([SDPBackend.CUDNN_ATTENTION]))
                peers["sdpa_flash"] = lambda: (lambda c: (c.__enter__(), F.scaled_dot_product_attention(q, k, vv, scale=scale, **kw), c.__exit__(None, None, None))[1])(sdpa_kernel([SDPBackend.FLASH_ATTENTION]))
            peers["sdpa_default"] = lambda: F.scaled_dot_product_attention(q, k, vv, scale=scale, **kw)
            if kind == "causal":
                bm = create_block_mask(lambda b, h, qi, ki: ki <= qi, None, None, S, S)
                peers["flex"] = lambda: flex(q, k, vv, block_mask=bm, scale=scale)
            elif kind == "window":
                bm = create_block_mask(lambda b, h, qi, ki: (ki <= qi) & (ki > qi - 256), None, None, S, S)
                peers["flex"] = lambda: flex(q, k, vv, block_mask=bm, scale=scale)
            elif kind == "bias":
                peers["flex"] = lambda: flex(q, k, vv, score_mod=lambda sc, b, h, qi, ki: sc + bias[h, qi, ki], scale=scale)
            else:
                peers["flex"] = lambda: flex(q, k, vv, scale=scale)
            for name, pf in peers.items():
                prow = dict(name=f"peer:{name}", kind=kind, B=B, H=H, S=S, D=D)
                try:
                    r = pf(); torch.cuda.synchronize()
                    err = (r.double() - ref.double()).abs().max().item()
                    prow["max_abs_err"] = err
                    if err <= 2e-2:
                        prow["ms"] = timed(pf, reps=30); prow["TFLOPs"] = flops / prow["ms"] / 1e9
                except Exception as e:
                    prow["error"] = f"{type(e).__name__}: {e}"[-300:]
                print(json.dumps({k2: prow.get(k2) for k2 in ("name", "kind", "ms", "TFLOPs", "error")}), flush=True)
                out.append(prow)
        dest = pathlib.Path(os.environ.get("OUT", "."))
        (dest / "exp1.json").write_text(json.dumps(dict(device=torch.cuda.get_device_name(), torch=torch.__version__,
                                                         rows=out), indent=1))

if __name__ == "__main__":
    main()
