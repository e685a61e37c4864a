"""Session 11 (lead, after the merge): the D96 causal launch at the call's defaults (PAIR_BLOCKS = 2 from
pgpu-pair-blocks) and unpaired, 128 lanes paired, and the bias kernel at its defaults, as generated (no hand
edit). From the repository root: PYTHONPATH=python python3 lab/experiments/attention_session11/gen_compiled.py
DIR, then on the H200 python3 lab/experiments/attention_session11/time_variants.py DIR."""
import json, sys, pathlib
OUT = pathlib.Path(sys.argv[1])
sys.argv = [sys.argv[0], str(OUT)]
sys.path[:0] = ["lab/experiments/attention_session11"]
import gen as G
import torch
D96 = (1, 4, 4099, 96)
C = {"CAUSAL": True}
ka = G.AK.attention(G.T.bf16, name="k_probe_d96")
q = torch.empty(*D96, dtype=torch.bfloat16, device="meta")
tensors, _, ce = ka._bind((q, q, q, q), {"scale": 1.0, "CAUSAL": True})
d = ka._call_defaults(ce, tensors)
print("d96 defaults", d)
G.add("d96_defaults", G.AK.attention, "causal", d, C, shape=D96)
G.add("d96_unpaired", G.AK.attention, "causal", {**d, "PAIR_BLOCKS": 1}, C, shape=D96)
G.add("d96_128_pb2", G.AK.attention, "causal", {**G.cfg(128, 64, 8, 3), "PAIR_BLOCKS": 2}, C, shape=D96)
kb = G.AK.bias_attention(G.T.bf16, name="k_probe_bias")
q = torch.empty(4, 32, 4096, 128, dtype=torch.bfloat16, device="meta")
tensors, _, ce = kb._bind((q, q, q, torch.empty(32, 4096, 4096, dtype=torch.bfloat16, device="meta"), q), {"scale": 1.0})
bd = kb._call_defaults(ce, tensors)
print("bias defaults", bd)
G.add("bias_defaults", G.AK.bias_attention, "bias", bd, {})
for v in G.variants:
    v["profile"] = False
(OUT / "manifest.json").write_text(json.dumps(G.variants, indent=1))
print(len(G.variants), "variants")
