"""Device (with TESSEL_BIN): the user's call at the declared defaults (GLUON on: the Gluon kernel where the
views meet TMA's rules on sm_90) of causal, full, sliding-window and grouped-query attention (bf16) at odd
shapes (S = T = 1, 67, 1031; head sizes 40, 96, 128), each against f32 SDPA on random inputs into a
NaN-filled output: python3 defaults_check.py -> one JSON line per case."""
import json
import pathlib
import sys

import torch

HERE = pathlib.Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parents[2] / "python"), str(HERE.parents[2] / "bench"), str(HERE)]

if __name__ == "__main__":
    import attention_kernels as ak
    from tessel import language as T
    from run_one import checked
    kernels = {"causal": (ak.attention(T.bf16), {"CAUSAL": True}), "full": (ak.attention(T.bf16), {"CAUSAL": False}),
               "window": (ak.window_attention(T.bf16), {"W": 256}), "gqa": (ak.gqa_attention(T.bf16), {"GROUP": 4})}
    for form, (kern, cx) in kernels.items():
        for S in (1, 67, 1031):
            for D in (40, 96, 128):
                S_, G = S, (2 if form == "gqa" else None)
                mask = None
                if form == "window":
                    i = torch.arange(S_, device="cuda")
                    mask = (i[None, :] <= i[:, None]) & (i[None, :] > i[:, None] - 256)
                sdpa = {"is_causal": form in ("causal", "gqa")} if mask is None else {"attn_mask": mask}
                if form == "gqa":
                    sdpa["enable_gqa"] = True
                row = {"form": form, "S": S, "D": D}
                try:
                    err, _, _ = checked(lambda q, k, v, o, scale: kern(q, k, v, o, scale=scale, **cx),
                                        1, 8 if form == "gqa" else 3, S, D, G=G, **sdpa)
                    row.update(max_abs_err=err, correct=err < 2e-2)
                except Exception as e:
                    row["error"] = repr(e)[:300]
                print(json.dumps(row), flush=True)
