"""Region folds over slices that pair by position (KIR_SubregionOp: `dims[0:H]`, `dims[H:2 * H]` and
`T.domain(0, H)` have one length form): rotate-half RoPE applied to cached keys as they are read, in a
grouped-query decode. Before, the fold workset was constructed element by element ("operands range over
different domains"): the keys scored one at a time. Now the slices and the half domain are one tile
axis, each read at its own members (the block's positions re-based at the slice's first member), the
scores tile products of [BLOCK_T, H] rotated key tiles, under a launch guard that the slices' sizes
agree at run time.

Each kernel runs against a NumPy reference on the KIR interpreter, on the pgpu interpreter after the
shared pipeline (16-wide key tiles; free axes 64 then 16 wide, the latter past D for the element-wise or
looped variants), and through Triton under TRITON_INTERPRET=1, at odd shapes: T = 1, primes, no multiple
of any block, H = 1 and odd, groups of 1, 3 and 4 query heads.
"""
import math
import os
import subprocess

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module

torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402

PIPELINE = ["--tessel-pipeline=stop-after=realize-folds"]


@tessel.kernel
def rotated_decode(q: T.In[T.f32, ("B", "HQ", "D")], k: T.In[T.f32, ("B", "HKV", "T", "D")],
                   v: T.In[T.f32, ("B", "HKV", "T", "D")], cos: T.In[T.f32, ("T", "H")],
                   sin: T.In[T.f32, ("T", "H")], out: T.Out[T.f32, ("B", "HQ", "D")], scale: T.f32):
    """Keys rotated as read (position j), the query unrotated; the output written through the slices."""
    B, HQ, D = q.shape
    HKV, TK = k.shape[1], k.shape[2]
    H = cos.shape[1]
    G = HQ // HKV
    keys, dims, half = T.domain(0, TK), T.domain(0, D), T.domain(0, H)
    lo, hi = dims[0:H], dims[H:2 * H]
    for b, h in T.parallel(T.domain(0, B), T.domain(0, HQ)):
        kh = h // G
        kc, ks = cos[keys, half], sin[keys, half]
        k1, k2 = k[b, kh, keys, lo], k[b, kh, keys, hi]
        s = (T.sum((k1 * kc - k2 * ks) * q[b, h, lo], axis=1) + T.sum((k2 * kc + k1 * ks) * q[b, h, hi], axis=1)) * scale
        e = T.exp(s - T.max(s))
        den = T.sum(e)
        o1, o2 = T.vecmat(e, v[b, kh, keys, lo]), T.vecmat(e, v[b, kh, keys, hi])
        out[b, h, lo] = o1 / den
        out[b, h, hi] = o2 / den


def reference(q, k, v, cos, sin, scale):
    q, k, v, c, s = (a.astype(np.float64) for a in (q, k, v, cos, sin))
    H = c.shape[1]
    G = q.shape[1] // k.shape[1]
    kk, vv = np.repeat(k, G, axis=1), np.repeat(v, G, axis=1)
    k1, k2 = kk[..., :H], kk[..., H:2 * H]
    kr = np.concatenate([k1 * c - k2 * s, k2 * c + k1 * s], axis=-1)
    sc = np.einsum("bhd,bhtd->bht", q[..., :2 * H], kr) * scale
    p = np.exp(sc - sc.max(axis=2, keepdims=True))
    return np.einsum("bht,bhtd->bhd", p, vv[..., :2 * H]) / p.sum(axis=2)[..., None]


SHAPES = [  # B, HQ, HKV, T, H
    (1, 1, 1, 1, 1),
    (2, 4, 1, 37, 3),        # one kv head shared by 4 query heads, a prime T, odd H
    (3, 6, 2, 131, 8),       # groups of 3, T no multiple of any block
    (1, 3, 3, 17, 5),        # plain multi-head (group of 1)
]


@pytest.mark.parametrize("B,HQ,HKV,TK,H", SHAPES, ids=[f"B{c[0]}HQ{c[1]}HKV{c[2]}T{c[3]}H{c[4]}" for c in SHAPES])
def test_rotated_decode(B, HQ, HKV, TK, H, tessel_bin, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    D = 2 * H
    rng = np.random.default_rng(B * 131 + TK * 7 + H)
    ang = rng.uniform(-3, 3, (TK, H))
    inputs = dict(q=rng.standard_normal((B, HQ, D)).astype(np.float32),
                  k=rng.standard_normal((B, HKV, TK, D)).astype(np.float32),
                  v=rng.standard_normal((B, HKV, TK, D)).astype(np.float32),
                  cos=np.cos(ang).astype(np.float32), sin=np.sin(ang).astype(np.float32))
    scalars = dict(scale=1.0 / math.sqrt(D))
    want = reference(**inputs, **scalars)
    tol = dict(rtol=1e-4, atol=1e-5)
    shapes = dict(B=B, HQ=HQ, HKV=HKV, T=TK, D=D, H=H)

    source = rotated_decode._write(tmp_path, None)
    res = subprocess.run([str(tessel_bin), "compile", str(source), "--emit=pgpu", "--remarks"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert "region fold constructed on fragments: BLOCK_HQ lanes of one group" in res.stderr, res.stderr
    assert "constructed element by element" not in res.stderr, res.stderr

    got = rotated_decode.run_interp(shapes=shapes, scalars=scalars, inputs=inputs)
    np.testing.assert_allclose(got["out"], want, **tol, err_msg="KIR interpreter")

    args = []
    for n, val in inputs.items():
        np.save(tmp_path / f"{n}.npy", val)
        args += ["--in", f"{n}={tmp_path / f'{n}.npy'}"]
    args += [a for n, val in scalars.items() for a in ("--scalar", f"{n}={val}")]
    program = tmp_path / "program.mlir"
    opt = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(source), *PIPELINE, "-o", str(program)],
                         capture_output=True, text=True)
    assert opt.returncode == 0, opt.stderr
    declared = sorted(set(w.split('"')[1] for w in program.read_text().split("#pgpu.param<")[1:]))
    assert "BLOCK_H" in declared and "BLOCK_T" in declared, declared
    shape = ",".join(f"{n}={val}" for n, val in shapes.items())
    for free in (64, 16):
        params = [f"--param={p}={16 if p == 'BLOCK_T' else free}" for p in declared
                  if p.startswith(("BLOCK_", "TILE_"))]
        out = tmp_path / f"pgpu{free}"
        res = subprocess.run([str(tessel_bin), "run", str(program), "--shape", shape, "--order", "shuffle",
                              "--out", str(out), *args, *params], capture_output=True, text=True)
        assert res.returncode == 0, res.stderr
        np.testing.assert_allclose(np.load(out / "out.npy"), want, **tol, err_msg=f"pgpu, free axes {free}")

    targs = {n: torch.tensor(val) for n, val in inputs.items()}
    targs["out"] = torch.full(want.shape, float("nan"), dtype=torch.float32)
    rotated_decode(**targs, **scalars)
    np.testing.assert_allclose(targs["out"].numpy(), want, **tol, err_msg="triton")
