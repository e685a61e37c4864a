"""Corpus 342 at its largest test shape (N 37, LEVELS 16, TABLE 1031; the bench's check, seed 1): the
kernel's f32 arithmetic with and without the FMA contraction Triton's sm_90 code makes of `p - floor(p)`
for p = x * res (PTX: fma.rn.f32 of x, res and -floor(p)), against the reference and its tolerance.
python3 lab/experiments/s48_quant_numerics/fma_weight_342.py (from the repository root, PYTHONPATH=python)."""
import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "bench" / "corpus"))
import _harness as H  # noqa: E402

mod = H.load("342_hash_grid_encoding")
inp = H.draw(mod, mod.TEST_SHAPES[2], 1)
x, table = inp["x"], inp["table"]
ref = mod.reference(**inp)["out"]
f32, f64 = np.float32, np.float64
M32 = 0xFFFFFFFF
PRIMES = (1, 2654435761, 805459861)


def kernel(fma):
    N = x.shape[0]
    LV, TS, F = table.shape
    out = np.zeros((N, LV * F), f32)
    for lv in range(LV):
        res = f32(np.floor(f32(16) * f32(f64(f32(1.447)) ** lv)))
        p = (x * res).astype(f32)
        c0 = np.floor(p)
        # with FMA: one rounding of the exact x * res - c0; without: the rounded p minus c0 (exact)
        w = (x.astype(f64) * f64(res) - c0).astype(f32) if fma else (p - c0).astype(f32)
        ci = c0.astype(np.int64)
        acc = np.zeros((N, F), f32)
        for dx in (0, 1):
            for dy in (0, 1):
                for dz in (0, 1):
                    h = ((ci[:, 0] + dx) * PRIMES[0] & M32) ^ ((ci[:, 1] + dy) * PRIMES[1] & M32) ^ \
                        ((ci[:, 2] + dz) * PRIMES[2] & M32)
                    wt = ((w[:, 0] if dx else f32(1) - w[:, 0]) * (w[:, 1] if dy else f32(1) - w[:, 1])).astype(f32) \
                        * (w[:, 2] if dz else f32(1) - w[:, 2])
                    feat = table[lv, h % TS].astype(f32)
                    acc = (acc.astype(f64) + wt.astype(f64)[:, None] * feat).astype(f32) if fma else acc + wt[:, None] * feat
        out[:, lv * F:(lv + 1) * F] = acc
    return out


for fma in (False, True):
    o = kernel(fma)
    bad = ~np.isclose(o, ref, **mod.TOLERANCE)
    where = [(tuple(int(i) for i in at), float(o[tuple(at)]), float(ref[tuple(at)])) for at in np.argwhere(bad)]
    print(f"fma={fma}: {int(bad.sum())} outside the tolerance {where}; largest error {np.abs(o - ref).max():.3g}")
