"""Issue 13's other attention shapes (bf16) in the Triton spelling and the generated Gluon spelling at
128/128/8/2 (split rows; with PAIR_BLOCKS=2 too for causal), BLOCK_D the head size's power of two:
  python3 shapes.py gen  (CPU)  -> mods/shapes_<form>_<tag>_d<D>.py
  python3 shapes.py run  (the H200) -> one JSON line per (module, shape): checked against f32 SDPA first,
  then timed beside SDPA's default in the same process (median of 20 CUDA-event timings).
Data for the defaults per form (which binding a call should take where the tuner has not run)."""
import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parents[2] / "python"), str(HERE.parents[2] / "bench")]

SHAPES = {  # (B, H, S, D) per form, from issue 13's table
    "causal": [(4, 32, 4096, 128), (1, 32, 16384, 128), (16, 16, 1024, 64), (1, 4, 4099, 96)],
    "full": [(4, 32, 4096, 128), (1, 32, 16384, 128), (16, 16, 1024, 64)],
}
BINDINGS = {
    "tri": {},
    "gl128": dict(BLOCK_S=128, BLOCK_T=128, WARPS=8, STAGES=2, GLUON=1),
    "gl128p": dict(BLOCK_S=128, BLOCK_T=128, WARPS=8, STAGES=2, GLUON=1, PAIR_BLOCKS=2),
    "gl64": dict(BLOCK_S=64, BLOCK_T=64, WARPS=4, STAGES=2, GLUON=1),
}


def gen():
    import attention_kernels as ak
    from tessel import language as T
    kernel = ak.attention(T.bf16)
    (HERE / "mods").mkdir(exist_ok=True)
    for form, shapes in SHAPES.items():
        for d in sorted({1 << (s[3] - 1).bit_length() for s in shapes}):
            for tag, params in BINDINGS.items():
                if tag == "gl128p" and form != "causal":
                    continue
                path = HERE / "mods" / f"shapes_{form}_{tag}_d{d}.py"
                path.write_text(kernel.source("triton", {"CAUSAL": form == "causal"}, dict(params, BLOCK_D=d)))
                print(path.name, "written")


def run():
    import torch.nn.functional as F
    from run_one import checked, load, timed
    for path in sorted((HERE / "mods").glob("shapes_*.py")):
        _, form, tag, d = path.stem.split("_")
        call = load(str(path.relative_to(HERE))).attention
        for (B, H, S, D) in SHAPES[form]:
            if 1 << (D - 1).bit_length() != int(d[1:]):
                continue
            row = {"module": path.name, "form": form, "shape": [B, H, S, D]}
            try:
                err, (q, k, v, o), scale = checked(call, B, H, S, D, is_causal=form == "causal")
                row["max_abs_err"] = err
                row["correct"] = err < 2e-2
                if row["correct"]:
                    flops = 4 * B * H * D * (S * (S + 1) / 2 if form == "causal" else S * S)
                    ms = timed(lambda: call(q, k, v, o, scale=scale))
                    sd = timed(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=form == "causal", scale=scale))
                    row.update(ms=ms, TFLOPs=flops / ms / 1e9, sdpa_TFLOPs=flops / sd / 1e9, ratio_sdpa=sd / ms)
            except Exception as e:  # one line per case, whatever happens
                row["error"] = repr(e)[:400]
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    {"gen": gen, "run": run}[sys.argv[1]]()
