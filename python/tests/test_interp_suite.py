"""The reference interpreter against independent NumPy references.

Each suite kernel in examples/kir runs through `tessel run` at odd shapes (0 and 1 where legal,
primes, 129, 1000) and two seeds; the inputs the kernel saw come back as NAME.in.npy and its
outputs as NAME.npy. References are computed here, in float64 from those inputs.
"""
import itertools

import numpy as np
import pytest

from conftest import SEEDS, run_kernel

@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("m,n", [(0, 5), (1, 1), (3, 129), (37, 1000), (2, 0)])
def test_softmax(tessel_bin, root, tmp_path, m, n, seed):
    a = run_kernel(tessel_bin, root, tmp_path, "softmax.mlir", {"M": m, "N": n}, seed)
    x = a["x.in"].astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True)) if n else x
    ref = e / e.sum(axis=1, keepdims=True) if n else x
    assert a["y"].shape == (m, n)
    np.testing.assert_allclose(a["y"], ref, rtol=2e-6, atol=1e-7)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("m,n", [(1, 1), (5, 7), (13, 129)])
def test_layernorm(tessel_bin, root, tmp_path, m, n, seed):
    a = run_kernel(tessel_bin, root, tmp_path, "layernorm.mlir", {"M": m, "N": n}, seed, scalars={"eps": 1e-5})
    x = a["x.in"].astype(np.float64)
    mean = x.mean(axis=1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=1, keepdims=True)
    ref = (x - mean) / np.sqrt(var + np.float32(1e-5)) * a["w.in"] + a["bb.in"]
    np.testing.assert_allclose(a["y"], ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("bias", ["false", "true"])
@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (7, 9, 13), (31, 17, 129), (3, 5, 0)])
def test_gemm(tessel_bin, root, tmp_path, m, n, k, bias, seed):
    a = run_kernel(tessel_bin, root, tmp_path, "gemm.mlir", {"M": m, "N": n, "K": k}, seed,
                   constexprs={"HAS_BIAS": bias})
    ref = a["a.in"].astype(np.float64) @ a["b.in"].astype(np.float64)
    if bias == "true":
        ref = ref + a["bias.in"]
    assert a["c"].dtype == np.float32
    np.testing.assert_allclose(a["c"], ref, rtol=1e-5, atol=1e-5 * max(k, 1))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("m,n", [(1, 1), (3, 5), (4, 129), (2, 1000)])
def test_cumsum(tessel_bin, root, tmp_path, m, n, seed):
    a = run_kernel(tessel_bin, root, tmp_path, "cumsum.mlir:cumsum", {"M": m, "N": n}, seed)
    x = a["x.in"].astype(np.float64)
    np.testing.assert_allclose(a["y"], np.cumsum(x, axis=1), rtol=1e-5, atol=1e-4)
    b = run_kernel(tessel_bin, root, tmp_path, "cumsum.mlir:cumsum_exclusive_reverse", {"M": m, "N": n}, seed)
    x = b["x.in"].astype(np.float64)
    rev_incl = np.flip(np.cumsum(np.flip(x, axis=1), axis=1), axis=1)
    np.testing.assert_allclose(b["y"], rev_incl - x, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("n,bins", [(0, 3), (1, 1), (37, 5), (1000, 17)])
def test_histogram(tessel_bin, root, tmp_path, n, bins, seed):
    a = run_kernel(tessel_bin, root, tmp_path, "histogram.mlir", {"N": n, "B": bins}, seed)
    x = a["x.in"]
    assert x.min(initial=0) >= -3 and x.max(initial=0) < bins
    ref = np.bincount(x[x >= 0], minlength=bins)
    np.testing.assert_array_equal(a["h"], ref)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("m,n", [(1, 1), (3, 5), (11, 129)])
def test_argmax(tessel_bin, root, tmp_path, m, n, seed):
    a = run_kernel(tessel_bin, root, tmp_path, "argmax.mlir", {"M": m, "N": n}, seed)
    x = a["x.in"]
    np.testing.assert_array_equal(a["idx"], np.argmax(x, axis=1))
    np.testing.assert_array_equal(a["v"], x.max(axis=1))


def attention_reference(q, k, v, scale, causal):
    q, k, v = (t.astype(np.float64) for t in (q, k, v))
    s = np.einsum("bhsd,bhtd->bhst", q, k) * scale
    S, T = s.shape[-2:]
    visible = np.ones((S, T), bool)
    if causal:
        visible = np.arange(T)[None, :] <= np.arange(S)[:, None]
    s = np.where(visible, s, -np.inf)
    out = np.zeros(q.shape[:-1] + (v.shape[-1],))
    rows = visible.any(axis=1)
    if T and rows.any():
        mx = s[..., rows, :].max(axis=-1, keepdims=True)
        p = np.exp(s[..., rows, :] - mx)
        out[..., rows, :] = (p / p.sum(axis=-1, keepdims=True)) @ v
    return out


@pytest.mark.parametrize("segments", ["one", "random", "3"])
@pytest.mark.parametrize("causal", ["true", "false"])
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("b,h,s,t,d", [(1, 1, 1, 1, 64), (2, 3, 17, 29, 64), (1, 2, 13, 13, 128), (1, 1, 5, 0, 64)])
def test_attention(tessel_bin, root, tmp_path, b, h, s, t, d, seed, causal, segments):
    scale = 1.0 / np.sqrt(d)
    a = run_kernel(tessel_bin, root, tmp_path, "attention.mlir", {"B": b, "H": h, "S": s, "T": t, "D": d}, seed,
                   scalars={"scale": repr(float(np.float32(scale)))}, constexprs={"CAUSAL": causal},
                   extra=["--segments", segments])
    ref = attention_reference(a["Q.in"], a["K.in"], a["V.in"], np.float32(scale), causal == "true")
    assert a["O"].dtype == np.float16
    np.testing.assert_allclose(a["O"].astype(np.float64), ref, rtol=2e-3, atol=2e-3)
    if t == 0:
        assert not a["O"].any(), "all-masked rows are zero"


def test_fold_segmentations_agree(tessel_bin, root, tmp_path):
    """The author's summarize/combine laws hold: three segmentations give one result within f16 rounding."""
    shapes = {"B": 1, "H": 2, "S": 19, "T": 31, "D": 64}
    outs = [run_kernel(tessel_bin, root, tmp_path, "attention.mlir", shapes, 5, scalars={"scale": "0.125"},
                       extra=["--segments", seg])["O"].astype(np.float64) for seg in ("one", "random", "7")]
    for x, y in itertools.combinations(outs, 2):
        np.testing.assert_allclose(x, y, rtol=2e-3, atol=2e-3)
