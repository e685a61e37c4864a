"""The other attention forms (bench/attention_kernels: causal, full, sliding window W=256; bf16) in the Triton
spelling at its defaults and the generated Gluon spelling at 128/128/8/2 (split rows) and 64/64/4/2:
  python3 forms.py gen [TAG...]  (CPU)  -> mods/forms_<form>_<tag>.py
  python3 forms.py run   (the H200) -> one JSON line per module: checked against f32 SDPA (math, a boolean
  mask for the window) at S=T=1031 and the timed shape B4 H32 S=T=4096 D128, then timed beside SDPA's default."""
import json
import os
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parents[2] / "python"), str(HERE.parents[2] / "bench")]

FORMS = {  # form -> (factory name, constexprs, binding name)
    "causal": ("attention", {"CAUSAL": True}, "attention"),
    "full": ("attention", {"CAUSAL": False}, "attention"),
    "window": ("window_attention", {"W": 256}, "window_attention"),
}
BINDINGS = {
    "tri": {},
    "gl128": dict(BLOCK_S=128, BLOCK_T=128, WARPS=8, STAGES=2, GLUON=1, BLOCK_D=128),
    "gl64": dict(BLOCK_S=64, BLOCK_T=64, WARPS=4, STAGES=2, GLUON=1, BLOCK_D=128),
}


def gen():
    import attention_kernels as ak
    from tessel import language as T
    out = HERE / "mods"
    out.mkdir(exist_ok=True)
    for form, (factory, constexprs, _) in FORMS.items():
        kernel = getattr(ak, factory)(T.bf16)
        for tag, params in BINDINGS.items():
            if len(sys.argv) > 2 and tag not in sys.argv[2:]:
                continue
            (out / f"forms_{form}_{tag}.py").write_text(kernel.source("triton", constexprs, params))
            print(form, tag, "written")


def run():
    import torch
    import torch.nn.functional as F
    from run_one import checked, load, timed

    def visible(form, s):
        i = torch.arange(s, device="cuda")
        if form == "full":
            return None
        mask = i[None, :] <= i[:, None]
        if form == "window":
            mask &= i[None, :] > i[:, None] - 256
        return mask

    for path in sorted((HERE / "mods").glob("forms_*.py")):
        form = path.stem.split("_")[1]
        binding = FORMS[form][2]
        mod = load(str(path.relative_to(HERE)))
        call = getattr(mod, binding)
        row = {"module": path.name, "form": form}
        try:
            errs = []
            for (B, H, S, D) in ((1, 4, 1031, 128), (4, 32, 4096, 128)):
                err, (q, k, v, o), scale = checked(call, B, H, S, D, attn_mask=visible(form, S))
                errs.append(err)
            row["max_abs_err"] = errs
            row["correct"] = all(e < 2e-2 for e in errs)
            if row["correct"]:
                pairs = {"full": S * S, "causal": S * (S + 1) / 2,
                         "window": sum(min(256, s + 1) for s in range(S))}[form]
                flops = 4 * B * H * D * pairs
                ms = timed(lambda: call(q, k, v, o, scale=scale))
                if form == "window":
                    sd = None  # SDPA with a dense mask is no peer for a band (bench/attention.py uses Flex)
                else:
                    sd = timed(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=form == "causal", scale=scale))
                row.update(ms=ms, TFLOPs=flops / ms / 1e9, sdpa_ms=sd,
                           ratio_sdpa=(sd / ms) if sd else None)
        except Exception as e:  # one line per module, whatever happens
            row["error"] = repr(e)[:400]
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    {"gen": gen, "run": run}[sys.argv[1]]()
