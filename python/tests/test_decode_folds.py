"""Single-query (decode) attention whose key/value rows are the member's own: each member (b, h) reads
k[b, h // G] (or k[b, h]) and q[b, h], so the score contraction's operands both vary across the innermost
parallel axis. Before, the workset was built element by element (every score recomputed per output
channel). Now, where the lane reaches the keys only through h // G (query heads sharing a key/value head),
the lanes are gathered by group: each program owns up to BLOCK_HQ query heads of one group, whose keys
are one [BLOCK_T, D] tile per step shared in a [BLOCK_HQ, D] x [D, BLOCK_T] tile product; otherwise each
program owns one member and still folds the key axis in BLOCK_T-wide tiles (scores by a broadcast multiply
and a sum over D).

Each kernel runs against a NumPy reference on the KIR interpreter, on the pgpu interpreter after the shared
pipeline with 16-wide key tiles (several tiles and a masked tail per member), and through the Triton
provider under TRITON_INTERPRET=1 at odd shapes: T = 1, primes, no multiple of any block, D = 1 and odd,
groups of 1, 2, 3, 4 and 17 query heads per key/value head (17: two lane blocks of 16 per group), a last
group with fewer heads than the others.
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


def make_gqa_decode(numerics):
    @tessel.kernel(name=f"gqa_decode_{numerics}", numerics=numerics)
    def gqa_decode(q: T.In[T.f32, ("B", "HQ", "D")], k: T.In[T.f32, ("B", "HKV", "T", "D")],
                   v: T.In[T.f32, ("B", "HKV", "T", "D")], out: T.Out[T.f32, ("B", "HQ", "D")], scale: T.f32):
        B, HQ, D = q.shape
        HKV, TK = k.shape[1], k.shape[2]
        group = HQ // HKV
        keys, dims = T.domain(0, TK), T.domain(0, D)
        for b, h in T.parallel(T.domain(0, B), T.domain(0, HQ)):
            kh = h // group
            s = T.matvec(k[b, kh, keys, dims], q[b, h, dims]) * scale
            e = T.exp(s - T.max(s))
            out[b, h, dims] = T.vecmat(e, v[b, kh, keys, dims]) / T.sum(e)
    return gqa_decode


@tessel.kernel
def mha_decode_products(q: T.In[T.f32, ("B", "H", "D")], k: T.In[T.f32, ("B", "H", "T", "D")],
                        v: T.In[T.f32, ("B", "H", "T", "D")], out: T.Out[T.f32, ("B", "H", "D")]):
    """The same math written as sums of products (kir-contract-products makes them contractions)."""
    B, H, D = q.shape
    keys, dims = T.domain(0, k.shape[2]), T.domain(0, D)
    for b, h in T.parallel(T.domain(0, B), T.domain(0, H)):
        s = T.sum(q[b, h, dims] * k[b, h, keys, dims], axis=1)
        p = T.exp(s - T.max(s))
        out[b, h, dims] = T.sum(T.broadcast(p, over=(keys, dims), dims=[0]) * v[b, h, keys, dims], axis=0) / T.sum(p)


def reference(q, k, v, scale):
    q, k, v = (a.astype(np.float64) for a in (q, k, v))
    G = q.shape[1] // k.shape[1]
    kk, vv = np.repeat(k, G, axis=1), np.repeat(v, G, axis=1)
    s = np.einsum("bhd,bhtd->bht", q, kk) * scale
    p = np.exp(s - s.max(axis=2, keepdims=True))
    return np.einsum("bht,bhtd->bhd", p, vv) / p.sum(axis=2)[..., None]


def remarks(kernel, tessel_bin, tmp_path):
    source = kernel._write(tmp_path, None)
    res = subprocess.run([str(tessel_bin), "compile", str(source), "--emit=pgpu", "--remarks"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return res.stdout, res.stderr


ONE = "one member per program (a contraction's operands both vary"
GROUPED = "BLOCK_HQ lanes of one group"


def run_three_ways(kernel, tessel_bin, tmp_path, shapes, inputs, scalars, want, tol, how):
    """The KIR interpreter, the pgpu interpreter after the shared pipeline with 16-wide key tiles (free
    axes 64 wide: the tiled variant; then 16 wide: D > 16 takes the element-wise fallback), and the
    generated Triton under TRITON_INTERPRET=1, each against `want`."""
    _, err = remarks(kernel, tessel_bin, tmp_path)
    assert f"region fold constructed on fragments: {how}" in err, err
    assert "constructed element by element" not in err, err
    got = kernel.run_interp(shapes=shapes, scalars=scalars, inputs=inputs)
    np.testing.assert_allclose(got["out"], want, **tol, err_msg="KIR interpreter")

    args = []
    for n, val in inputs.items():
        np.save(tmp_path / f"{n}.npy", val)
        args += ["--in", f"{n}={tmp_path / f'{n}.npy'}"]
    args += [a for n, val in scalars.items() for a in ("--scalar", f"{n}={val}")]
    source = kernel._write(tmp_path, None)
    program = tmp_path / "program.mlir"
    opt = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(source), *PIPELINE, "-o", str(program)],
                         capture_output=True, text=True)
    assert opt.returncode == 0, opt.stderr
    declared = sorted(set(w.split('"')[1] for w in program.read_text().split("#pgpu.param<")[1:]))
    assert "BLOCK_T" in declared, declared
    shape = ",".join(f"{n}={val}" for n, val in shapes.items())
    for free in (64, 16):   # lanes 64 then 16 wide (a group of 17 is two lane blocks of 16)
        params = [f"--param={p}={16 if p == 'BLOCK_T' else free}" for p in declared if p.startswith("BLOCK_")]
        out = tmp_path / f"pgpu{free}"
        res = subprocess.run([str(tessel_bin), "run", str(program), "--shape", shape, "--order", "shuffle",
                              "--out", str(out), *args, *params], capture_output=True, text=True)
        assert res.returncode == 0, res.stderr
        np.testing.assert_allclose(np.load(out / "out.npy"), want, **tol, err_msg=f"pgpu, free axes {free}")

    targs = {n: torch.tensor(val) for n, val in inputs.items()}
    targs["out"] = torch.full(want.shape, float("nan"), dtype=torch.float32)
    kernel(**targs, **scalars)
    np.testing.assert_allclose(targs["out"].numpy(), want, **tol, err_msg="triton")


GQA = [  # B, HQ, HKV, T, D
    (1, 1, 1, 1, 1),
    (2, 4, 1, 37, 16),       # one kv head shared by 4 query heads, a prime T
    (3, 6, 2, 131, 5),       # groups of 3, T no multiple of any block
    (1, 4, 4, 17, 24),       # plain multi-head (group of 1)
    (2, 8, 2, 64, 40),       # groups of 4, T a whole number of 16-wide tiles
]


@pytest.mark.parametrize("numerics", ["source", "relaxed_normalization"])
@pytest.mark.parametrize("B,HQ,HKV,TK,D", GQA, ids=[f"B{c[0]}HQ{c[1]}HKV{c[2]}T{c[3]}D{c[4]}" for c in GQA])
def test_gqa_decode(B, HQ, HKV, TK, D, numerics, tessel_bin, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(B * 131 + TK * 7 + D)
    inputs = dict(q=rng.standard_normal((B, HQ, D)).astype(np.float32),
                  k=rng.standard_normal((B, HKV, TK, D)).astype(np.float32),
                  v=rng.standard_normal((B, HKV, TK, D)).astype(np.float32))
    scale = 1.0 / math.sqrt(D)
    want = reference(**inputs, scale=scale)
    run_three_ways(make_gqa_decode(numerics), tessel_bin, tmp_path, dict(B=B, HQ=HQ, HKV=HKV, T=TK, D=D), inputs,
                   dict(scale=scale), want, dict(rtol=1e-4, atol=1e-5), GROUPED)


@pytest.mark.parametrize("B,H,TK,D", [(1, 1, 1, 3), (2, 3, 29, 7)])
def test_mha_decode_products(B, H, TK, D, tessel_bin, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(TK + D)
    inputs = dict(q=rng.standard_normal((B, H, D)).astype(np.float32),
                  k=rng.standard_normal((B, H, TK, D)).astype(np.float32),
                  v=rng.standard_normal((B, H, TK, D)).astype(np.float32))
    want = reference(**inputs, scale=1.0)
    run_three_ways(mha_decode_products, tessel_bin, tmp_path, dict(B=B, H=H, T=TK, D=D), inputs, {}, want,
                   dict(rtol=1e-4, atol=1e-5), ONE)


@tessel.kernel
def grouped_ceil(q: T.In[T.f32, ("B", "HQ", "D")], k: T.In[T.f32, ("B", "HKV", "T", "D")],
                 v: T.In[T.f32, ("B", "HKV", "T", "D")], out: T.Out[T.f32, ("B", "HQ", "D")]):
    """Groups of ceil(HQ / HKV) query heads: the last key/value head's group is short when HKV does not
    divide HQ."""
    B, HQ, D = q.shape
    HKV = k.shape[1]
    group = (HQ + HKV - 1) // HKV
    keys, dims = T.domain(0, k.shape[2]), T.domain(0, D)
    for b, h in T.parallel(T.domain(0, B), T.domain(0, HQ)):
        s = T.matvec(k[b, h // group, keys, dims], q[b, h, dims])
        e = T.exp(s - T.max(s))
        out[b, h, dims] = T.vecmat(e, v[b, h // group, keys, dims]) / T.sum(e)


@pytest.mark.parametrize("B,HQ,HKV,TK,D", [(1, 1, 1, 1, 1), (2, 7, 3, 23, 9), (1, 35, 2, 41, 8), (2, 5, 5, 19, 3)])
def test_grouped_ceil(B, HQ, HKV, TK, D, tessel_bin, tmp_path, monkeypatch):
    """Short last groups (7 heads in groups of 3: 3, 3, 1; 35 in groups of 18: two lane blocks of 16 per
    group at BLOCK_HQ = 16, the second group 17 heads), groups of one (each program one head)."""
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(HQ * 3 + HKV)
    G = -(-HQ // HKV)
    inputs = dict(q=rng.standard_normal((B, HQ, D)).astype(np.float32),
                  k=rng.standard_normal((B, HKV, TK, D)).astype(np.float32),
                  v=rng.standard_normal((B, HKV, TK, D)).astype(np.float32))
    kk = np.repeat(inputs["k"], G, axis=1)[:, :HQ].astype(np.float64)
    vv = np.repeat(inputs["v"], G, axis=1)[:, :HQ].astype(np.float64)
    s = np.einsum("bhd,bhtd->bht", inputs["q"].astype(np.float64), kk)
    p = np.exp(s - s.max(axis=2, keepdims=True))
    want = np.einsum("bht,bhtd->bhd", p, vv) / p.sum(axis=2)[..., None]
    run_three_ways(grouped_ceil, tessel_bin, tmp_path, dict(B=B, HQ=HQ, HKV=HKV, T=TK, D=D), inputs, {}, want,
                   dict(rtol=1e-4, atol=1e-5), GROUPED)


def test_shared_keys_keep_lanes(tessel_bin, tmp_path):
    """Must not fire: keys shared by every head of a sequence (multi-query, one matrix per b): only the
    query varies across the lanes, which stay BLOCK_H heads per program (one tile product per key tile)."""
    @tessel.kernel(name="mqa_decode_lanes")
    def mqa(q: T.In[T.f32, ("B", "H", "D")], k: T.In[T.f32, ("B", "T", "D")], v: T.In[T.f32, ("B", "T", "D")],
            out: T.Out[T.f32, ("B", "H", "D")]):
        B, H, D = q.shape
        keys, dims = T.domain(0, k.shape[1]), T.domain(0, D)
        for b, h in T.parallel(T.domain(0, B), T.domain(0, H)):
            s = T.matvec(k[b, keys, dims], q[b, h, dims])
            e = T.exp(s - T.max(s))
            out[b, h, dims] = T.vecmat(e, v[b, keys, dims]) / T.sum(e)
    _, err = remarks(mqa, tessel_bin, tmp_path)
    assert "region fold constructed on fragments: BLOCK_H lanes" in err, err
    assert "one member per program" not in err, err


SPLITS = [  # B, HQ, HKV, T, D: T = 70 is 5 tiles of 16 (FOLD_SPLIT 4: 2 + 2 + 1 + an empty segment)
    (1, 4, 1, 70, 16),
    (2, 6, 2, 97, 5),        # groups of 3, D padded
    (1, 35, 2, 41, 8),       # groups of 18: two lane blocks of 16 per group, a short last group
    (1, 2, 2, 1, 3),         # one key: never split
]


@pytest.mark.parametrize("split", [2, 4, 8])
@pytest.mark.parametrize("B,HQ,HKV,TK,D", SPLITS, ids=[f"B{c[0]}HQ{c[1]}HKV{c[2]}T{c[3]}D{c[4]}" for c in SPLITS])
def test_grouped_split_kv(B, HQ, HKV, TK, D, split, tessel_bin, tmp_path, monkeypatch):
    """Split-KV: under relaxed_normalization the grouped decode's key fold is one online fold, which
    pgpu-split-folds cuts into FOLD_SPLIT contiguous segments of key tiles, one program each; the
    group's last arriving segment combines the summaries in segment order (the fold's own combine).
    The pgpu interpreter (programs in shuffled order) against the reference."""
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    kernel = make_gqa_decode("relaxed_normalization") if HQ % HKV == 0 else grouped_ceil
    rng = np.random.default_rng(split * 11 + HQ)
    G = -(-HQ // HKV)
    inputs = dict(q=rng.standard_normal((B, HQ, D)).astype(np.float32),
                  k=rng.standard_normal((B, HKV, TK, D)).astype(np.float32),
                  v=rng.standard_normal((B, HKV, TK, D)).astype(np.float32))
    scalars = dict(scale=0.7) if kernel is not grouped_ceil else {}
    kk = np.repeat(inputs["k"], G, axis=1)[:, :HQ].astype(np.float64)
    vv = np.repeat(inputs["v"], G, axis=1)[:, :HQ].astype(np.float64)
    s = np.einsum("bhd,bhtd->bht", inputs["q"].astype(np.float64), kk) * scalars.get("scale", 1.0)
    p = np.exp(s - s.max(axis=2, keepdims=True))
    want = np.einsum("bht,bhtd->bhd", p, vv) / p.sum(axis=2)[..., None]
    source = kernel._write(tmp_path, None)
    source.write_text(source.read_text().replace("#kir.compile_options<>",
                                                 "#kir.compile_options<numerics = relaxed_normalization>"))
    assert "relaxed_normalization" in source.read_text()
    program = tmp_path / "program.mlir"
    opt = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(source), *PIPELINE, "-o", str(program)],
                         capture_output=True, text=True)
    assert opt.returncode == 0, opt.stderr
    text = program.read_text()
    assert "pgpu.last_program" in text and "BLOCK_HQ" in text, text[:2000]
    args = []
    for n, val in inputs.items():
        np.save(tmp_path / f"{n}.npy", val)
        args += ["--in", f"{n}={tmp_path / f'{n}.npy'}"]
    args += [a for n, val in scalars.items() for a in ("--scalar", f"{n}={val}")]
    shape = ",".join(f"{n}={val}" for n, val in dict(B=B, HQ=HQ, HKV=HKV, T=TK, D=D).items())
    binding = {"BLOCK_HQ": 16, "BLOCK_T": 16, "BLOCK_D": 16, "FOLD_SPLIT": split}
    out = tmp_path / "pgpu"
    res = subprocess.run([str(tessel_bin), "run", str(program), "--shape", shape, "--order", "shuffle", "--out",
                          str(out), *args, *[f"--param={k}={v}" for k, v in binding.items()]],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    np.testing.assert_allclose(np.load(out / "out.npy"), want, rtol=1e-4, atol=1e-5)
