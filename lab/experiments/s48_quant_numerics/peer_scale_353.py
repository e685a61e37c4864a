"""Corpus 353 at its bench shape and the bench's inputs (seed 2): which cache bytes change when the f16
rounding of the scale is elided (Inductor's fused sc.float(), emulate_precision_casts off) and when, in
addition, /7 is a multiply by the reciprocal. python3 lab/experiments/s48_quant_numerics/peer_scale_353.py
(from the repository root, PYTHONPATH=python; about 1 GB of memory)."""
import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "bench" / "corpus"))
import _harness as H  # noqa: E402

mod = H.load("353_int4_kv_cache_append")
inp = H.draw(mod, mod.BENCH_SHAPE, 2)
k, slot = inp["k"], inp["slot"]
B, NH = k.shape[:2]
g = k.astype(np.float32).reshape(B, NH, 4, 32)
am = np.abs(g).max(axis=3)
f32 = np.float32


def quantized(scale):
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.clip(np.rint(g / scale[..., None]), -8, 7)


stored = np.where(am > 0, am / f32(7), f32(1)).astype(np.float16).astype(np.float32)  # the file's scale
want = quantized(stored)
for label, scale in [("unrounded f32 scale", np.where(am > 0, am / f32(7), f32(1))),
                     ("unrounded, * (1/7)", np.where(am > 0, am * (f32(1) / f32(7)), f32(1)))]:
    bad = (quantized(scale) != want).reshape(B, NH, 64, 2).any(axis=3)
    at = sorted((int(slot[b]), int(h), int(p)) for b, h, p in np.argwhere(bad))
    print(f"{label}: {int(bad.sum())} bytes differ, first at {at[0]}")
b = int(np.nonzero(slot == 72)[0][0])
x = f32(g[b, 6, 0, 15])
print(f"(72, 6, 7): odd channel {x}, stored scale {stored[b, 6, 0]}: {x / stored[b, 6, 0]!r} -> "
      f"{np.rint(x / stored[b, 6, 0])}; unrounded {am[b, 6, 0] / f32(7)!r}: {x / (am[b, 6, 0] / f32(7))!r}")
print("reference byte", mod.reference(**inp)["cache"][72, 6, 7])
