"""Split-KV under source numerics: the exact two-pass softmax of single- and multi-query decode (corpus
21_mqa_decode, 91_gqa_decode_long, 23_mla_decode at their defaults) is two region folds in one program, the
row maximum and then the sums of exp(s - max) and their product with V, which read it. pgpu-split-folds
splits the later fold over FOLD_SPLIT programs of contiguous key tiles and runs the maximum's fold whole in
every one of them, so each segment sums its slice with the same complete maximum; the point's last arrival
adds the segments' sums in segment order (the sums reassociated, as any reduction may be: seed 002 §4). No
partial summary is rescaled, so no numerical permission is needed; before, the two folds stayed in one
program per point (B programs for 21_mqa_decode's bench shape, 16 on 132 multiprocessors).

Each case runs the pgpu interpreter (programs in shuffled and reversed order, which must agree bit for bit)
and, for one shape, the Triton provider under TRITON_INTERPRET=1 (two calls, bit-identical), against a NumPy
reference at odd shapes: T = 1 (one tile: no split), primes, splits past the tile count (empty segments).
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
from interp_cli import make_mla, make_mqa  # noqa: E402

PIPELINE = ["--tessel-pipeline=stop-after=realize-folds"]


# The same kernels test_decode_rows builds, at source numerics (the default).
mqa = make_mqa("source")
mla = make_mla("source")


@tessel.kernel(name="gqa_two_pass")
def gqa(q: T.In[T.f32, ("B", "HQ", "D")], k: T.In[T.f32, ("B", "HKV", "T", "D")],
        v: T.In[T.f32, ("B", "HKV", "T", "D")], o: T.Out[T.f32, ("B", "HQ", "D")], scale: T.f32):
    B, HQ, D = q.shape
    group = HQ // k.shape[1]
    keys, dims = T.domain(0, k.shape[2]), T.domain(0, D)
    for b, h in T.parallel(T.domain(0, B), T.domain(0, HQ)):
        s = T.matvec(k[b, h // group, keys, dims], q[b, h, dims]) * scale
        e = T.exp(s - T.max(s))
        o[b, h, dims] = T.vecmat(e, v[b, h // group, keys, dims]) / T.sum(e)


def softmax_product(s, v):
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    return np.einsum("...t,...td->...d", p, v) / p.sum(axis=-1)[..., None]


def mqa_case(B, H, TK, D, seed):
    rng = np.random.default_rng(seed)
    inputs = dict(q=rng.standard_normal((B, H, D)).astype(np.float32),
                  k=rng.standard_normal((B, TK, D)).astype(np.float32),
                  v=rng.standard_normal((B, TK, D)).astype(np.float32))
    scale = 1.0 / math.sqrt(D)
    q, k, v = (a.astype(np.float64) for a in inputs.values())
    s = np.einsum("bhd,btd->bht", q, k) * scale
    want = softmax_product(s, np.broadcast_to(v[:, None], (B, H, TK, D)))
    return inputs, dict(scale=scale), dict(B=B, H=H, T=TK, D=D), want


def gqa_case(B, HQ, HKV, TK, D, seed):
    rng = np.random.default_rng(seed)
    inputs = dict(q=rng.standard_normal((B, HQ, D)).astype(np.float32),
                  k=rng.standard_normal((B, HKV, TK, D)).astype(np.float32),
                  v=rng.standard_normal((B, HKV, TK, D)).astype(np.float32))
    G = HQ // HKV
    kk, vv = (np.repeat(inputs[n], G, axis=1).astype(np.float64) for n in ("k", "v"))
    s = np.einsum("bhd,bhtd->bht", inputs["q"].astype(np.float64), kk) * 0.7
    return inputs, dict(scale=0.7), dict(B=B, HQ=HQ, HKV=HKV, T=TK, D=D), softmax_product(s, vv)


def pipeline(kernel, tmp_path):
    """The kernel after the shared pipeline (split-folds included) and its remarks."""
    source = kernel._write(tmp_path, None)
    program = tmp_path / "program.mlir"
    opt = subprocess.run([str(pathlib_bin().parent / "tessel-opt"), str(source), *PIPELINE, "-o", str(program)],
                         capture_output=True, text=True)
    assert opt.returncode == 0, opt.stderr
    return program


_BIN = []


def pathlib_bin():
    return _BIN[0]


@pytest.fixture(autouse=True)
def _bin(tessel_bin, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    _BIN[:] = [tessel_bin]


def run_pgpu(program, tmp_path, inputs, scalars, shapes, binding, order, tag):
    args = []
    for n, val in inputs.items():
        np.save(tmp_path / f"{n}.npy", val)
        args += ["--in", f"{n}={tmp_path / f'{n}.npy'}"]
    args += [a for n, val in scalars.items() for a in ("--scalar", f"{n}={val}")]
    shape = ",".join(f"{n}={val}" for n, val in shapes.items())
    out = tmp_path / f"pgpu-{tag}-{order}"
    res = subprocess.run([str(pathlib_bin()), "run", str(program), "--shape", shape, "--order", order, "--out",
                          str(out), *args, *[f"--param={k}={v}" for k, v in binding.items()]],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return np.load(out / "o.npy")


def test_remarks_and_structure(tmp_path):
    """The maximum's fold is split in a first phase (its programs count themselves; the sums' programs wait
    for the count), the sums' fold is split (remarks at the folds), and the program holds the last arrival's
    combine."""
    for kernel in (mqa, gqa):
        source = kernel._write(tmp_path, None)
        res = subprocess.run([str(pathlib_bin()), "compile", str(source), "--emit=source", "--target=triton",
                              "--remarks"],
                             capture_output=True, text=True)
        assert res.returncode == 0, res.stderr
        assert "became two region folds" in res.stderr, res.stderr
        assert "this fold is split in a first phase" in res.stderr, res.stderr
        assert "the fold's tiles are cut into FOLD_SPLIT contiguous segments" in res.stderr, res.stderr
        assert "two folds run in one program" not in res.stderr, res.stderr
        text = pipeline(kernel, tmp_path).read_text()
        assert "pgpu.last_program" in text and 'pgpu.workspace_extent "FOLD_SPLITS"' in text


MQA = [(1, 1, 1, 1), (2, 3, 37, 5), (1, 5, 67, 24), (3, 2, 131, 7)]   # B, H, T, D


@pytest.mark.parametrize("split", [2, 4, 8])
@pytest.mark.parametrize("B,H,TK,D", MQA, ids=[f"B{c[0]}H{c[1]}T{c[2]}D{c[3]}" for c in MQA])
def test_mqa_split(B, H, TK, D, split, tmp_path):
    inputs, scalars, shapes, want = mqa_case(B, H, TK, D, B * 101 + H * 13 + TK + split)
    program = pipeline(mqa, tmp_path)
    binding = {"BLOCK_T": 16, "BLOCK_H": 16, "BLOCK_D": 32, "FOLD_SPLIT": split}
    got = run_pgpu(program, tmp_path, inputs, scalars, shapes, binding, "shuffle", "mqa")
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    again = run_pgpu(program, tmp_path, inputs, scalars, shapes, binding, "reverse", "mqa")
    assert np.array_equal(got, again), "the segments' combine must not depend on the programs' order"


GQA = [(2, 4, 1, 37, 16), (1, 6, 2, 41, 5), (2, 3, 3, 70, 12)]   # B, HQ, HKV, T, D


@pytest.mark.parametrize("split", [2, 4])
@pytest.mark.parametrize("B,HQ,HKV,TK,D", GQA, ids=[f"B{c[0]}HQ{c[1]}HKV{c[2]}T{c[3]}D{c[4]}" for c in GQA])
def test_gqa_split(B, HQ, HKV, TK, D, split, tmp_path):
    inputs, scalars, shapes, want = gqa_case(B, HQ, HKV, TK, D, HQ * 7 + TK + split)
    program = pipeline(gqa, tmp_path)
    binding = {"BLOCK_HQ": 16, "BLOCK_T": 16, "BLOCK_D": 16, "FOLD_SPLIT": split}
    got = run_pgpu(program, tmp_path, inputs, scalars, shapes, binding, "shuffle", "gqa")
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    again = run_pgpu(program, tmp_path, inputs, scalars, shapes, binding, "reverse", "gqa")
    assert np.array_equal(got, again)


@pytest.mark.parametrize("split", [1, 4])
def test_mqa_split_triton(split):
    """Triton under TRITON_INTERPRET=1: the split two-pass kernel (and the unsplit branch), two calls
    bit-identical (the tickets are reset by the last arrival)."""
    inputs, scalars, shapes, want = mqa_case(2, 3, 37, 5, 11)
    params = {"BLOCK_T": 16, "BLOCK_H": 16, "BLOCK_D": 16, "FOLD_SPLIT": split}
    outs = []
    for _ in range(2):
        targs = {n: torch.tensor(val) for n, val in inputs.items()}
        targs["o"] = torch.full(want.shape, float("nan"), dtype=torch.float32)
        mqa.launch(**targs, **scalars, params=params)
        outs.append(targs["o"].numpy().copy())
    np.testing.assert_allclose(outs[0], want, rtol=1e-4, atol=1e-5)
    assert np.array_equal(outs[0], outs[1])


def test_gqa_split_triton():
    """Triton under TRITON_INTERPRET=1: grouped decode (a short head group padded in a 16-lane block), the
    sums split 4 ways beside the repeated maximum; two calls bit-identical."""
    inputs, scalars, shapes, want = gqa_case(2, 6, 2, 41, 12, 5)
    params = {"BLOCK_HQ": 16, "BLOCK_T": 16, "BLOCK_D": 16, "FOLD_SPLIT": 4}
    outs = []
    for _ in range(2):
        targs = {n: torch.tensor(val) for n, val in inputs.items()}
        targs["o"] = torch.full(want.shape, float("nan"), dtype=torch.float32)
        gqa.launch(**targs, **scalars, params=params)
        outs.append(targs["o"].numpy().copy())
    np.testing.assert_allclose(outs[0], want, rtol=1e-4, atol=1e-5)
    assert np.array_equal(outs[0], outs[1])


def test_call_default_split():
    """21_mqa_decode's bench shape (B = 16 sequences: 16 programs on 132 multiprocessors) takes a split;
    256 sequences fill the device unsplit."""
    def meta(*shape):
        return torch.empty(shape, device="meta")
    few = mqa.call_defaults(meta(16, 32, 128), meta(16, 8192, 128), meta(16, 8192, 128), meta(16, 32, 128),
                            scale=0.1)
    assert few.get("FOLD_SPLIT", 1) >= 8, few
    many = mqa.call_defaults(meta(256, 32, 128), meta(256, 8192, 128), meta(256, 8192, 128),
                             meta(256, 32, 128), scale=0.1)
    assert many.get("FOLD_SPLIT", 1) == 1, many


def test_call_default_no_split_on_elementwise_branch():
    """A call whose [H, DC] accumulator is wider than every tile (23_mla_decode's bench shape, DC = 512)
    takes the element-wise branch, whose folds are not split: FOLD_SPLIT stays 1 there (each segment's
    program would run the whole branch again); the tiled shape of the same kernel is split."""
    def meta(*shape):
        return torch.empty(shape, device="meta")

    def defaults(B, H, TK, DC, DR):
        return mla.call_defaults(meta(B, H, DC), meta(B, H, DR), meta(B, TK, DC), meta(B, TK, DR), meta(B, H, DC))
    assert defaults(32, 128, 4096, 512, 64).get("FOLD_SPLIT", 1) == 1
    assert defaults(8, 16, 4096, 64, 16).get("FOLD_SPLIT", 1) > 1


def test_mla_split(tmp_path):
    """Two products in the scores (MLA's latent and rotary parts), the latent cache also the value: the
    sums' fold split 4 ways beside the repeated maximum, on the pgpu interpreter."""
    B, H, TK, DC, DR = 2, 3, 41, 19, 7
    rng = np.random.default_rng(3)
    inputs = dict(qn=rng.standard_normal((B, H, DC)).astype(np.float32),
                  qr=rng.standard_normal((B, H, DR)).astype(np.float32),
                  c=rng.standard_normal((B, TK, DC)).astype(np.float32),
                  kr=rng.standard_normal((B, TK, DR)).astype(np.float32))
    qn, qr, c, kr = (a.astype(np.float64) for a in inputs.values())
    s = np.einsum("bhc,btc->bht", qn, c) + np.einsum("bhr,btr->bht", qr, kr)
    want = softmax_product(s, np.broadcast_to(c[:, None], (B, H, TK, DC)))
    program = pipeline(mla, tmp_path)
    binding = {"BLOCK_T": 16, "BLOCK_H": 16, "BLOCK_DC": 32, "BLOCK_DR": 16, "FOLD_SPLIT": 4}
    got = run_pgpu(program, tmp_path, inputs, {}, dict(B=B, H=H, T=TK, DC=DC, DR=DR), binding, "shuffle", "mla")
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    again = run_pgpu(program, tmp_path, inputs, {}, dict(B=B, H=H, T=TK, DC=DC, DR=DR), binding, "reverse", "mla")
    assert np.array_equal(got, again)
