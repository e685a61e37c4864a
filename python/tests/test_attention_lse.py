"""Attention that also writes the row logsumexp (issue 41: an extra fold result computed from the final
summary costs nothing). `lse = m + log(den)` after the region fold over the keys puts the row's log(den)
into pgpu-exp-base2's reference domain as a fragment leaf; the leaf lies outside the key loop, so the
domain keeps the scaled form of plain attention (log2(e) folded into the score scale) instead of a
multiplication by log2(e) per score. The key loops of the generated Triton/Gluon are plain attention's;
only the epilogue differs. The kernel is checked against NumPy on the KIR interpreter and through the
generated Triton under TRITON_INTERPRET=1 at odd shapes.
"""
import math
import os
import re
import subprocess

import numpy as np
import pytest

from conftest import key_loops, load_bench

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)


def lse_attention(name, causal=True, dtype="bf16"):
    """The suite's attention fold (bench/attention_kernels.py) with the row logsumexp as a second output."""
    import tessel
    import tessel.language as T
    ak = load_bench("attention_kernels")
    dt = getattr(T, dtype)

    @tessel.kernel(name=name, numerics="relaxed_normalization")
    def kernel(Q: T.In[dt, ("B", "H", "S", "D")], K: T.In[dt, ("B", "H", "T", "D")],
               V: T.In[dt, ("B", "H", "T", "D")], O: T.Out[dt, ("B", "H", "S", "D")],
               L: T.Out[T.f32, ("B", "H", "S")], scale: T.f32):
        nb, nh, ns, nd = Q.shape

        @tessel.fn
        def summarize(k, v, kpos, q, s, sc):
            scores = T.contract(q, k, reduce=((0, 1),), acc_dtype=T.f32) * sc
            return ak._summary(scores, (kpos <= s) if causal else T.full_like(kpos, True), v)

        keys, dims = T.domain(0, K.shape[2]), T.domain(0, nd)
        for b, h, s in T.parallel(T.domain(0, nb), T.domain(0, nh), T.domain(0, ns)):
            zero_row = T.zeros(dims, T.f32)
            some, m, den, acc = T.region_fold(
                sources=(K[b, h, keys, dims], V[b, h, keys, dims], T.indices(keys)), axis=0,
                identity=(False, 0.0, 0.0, zero_row), summarize=summarize, combine=ak._combine(),
                operands=(Q[b, h, s, dims], s, scale))
            O[b, h, s, dims] = T.cast(T.where(some, acc / den, zero_row), dt)
            L[b, h, s] = m + T.log(den)
    return kernel


def base2_remarks(tessel_bin, source):
    res = subprocess.run([str(tessel_bin), "compile", str(source), "--emit=pgpu", "--remarks"], capture_output=True,
                         text=True)
    assert res.returncode == 0, res.stderr
    return [ln.split("remark: ", 1)[1] for ln in res.stderr.splitlines() if "pgpu-exp-base2:" in ln]


def test_lse_keeps_plain_attentions_scaled_domain(tessel_bin, tmp_path, monkeypatch):
    import tessel.language as T
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    plain = load_bench("attention_kernels").attention(T.bf16, name="plain_attention")
    lse = lse_attention("lse_attention")
    want = base2_remarks(tessel_bin, plain._write(tmp_path, {}))
    got = base2_remarks(tessel_bin, lse._write(tmp_path, {}))
    assert len(got) == len(want) and got, (got, want)
    # Same exponentials and scalar factors, one more leaf (the row's log(den)), and never the difference form.
    assert not any("joins each exponentiated difference" in r for r in got), got
    for g, w in zip(got, want):
        assert re.sub(r"\d+ leaf|\d+-value", "", g) == re.sub(r"\d+ leaf|\d+-value", "", w), (g, w)
    # The generated key loops (Triton and the warp-specialized Gluon spelling) are plain attention's.
    plain_src, lse_src = plain.source("triton", {}), lse.source("triton", {})
    assert "@gluon.jit" in lse_src
    assert key_loops(lse_src, "lse_attention") == key_loops(plain_src, "plain_attention")


def reference(q, k, v, scale, causal):
    s = np.einsum("bhsd,bhtd->bhst", q, k) * scale
    S, T_ = s.shape[-2:]
    visible = (np.arange(T_)[None, :] <= np.arange(S)[:, None]) if causal else np.ones((S, T_), bool)
    s = np.where(visible, s, -np.inf)
    some = visible.any(1)[:, None]
    m = np.where(some, s.max(-1, keepdims=True), 0.0)
    p = np.where(visible, np.exp(s - m), 0.0)
    den = p.sum(-1, keepdims=True)
    o = np.where(some, np.einsum("bhst,bhtd->bhsd", p, v) / np.where(some, den, 1.0), 0.0)
    with np.errstate(divide="ignore"):
        return o, (m + np.log(den))[..., 0]


@pytest.fixture(scope="module")
def lse_kernels(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("TESSEL_CACHE", str(tmp_path_factory.mktemp("cache")))
    # f16 views: the Triton interpreter computes with NumPy, which has no bfloat16.
    kernels = {c: lse_attention(f"lse_attention_{'causal' if c else 'full'}", c, "f16") for c in (True, False)}
    yield {c: (k, k._launcher({}, {"BLOCK_S": 16, "BLOCK_T": 16, "BLOCK_D": 32})) for c, k in kernels.items()}
    mp.undo()


@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("S,T_,D", [(1, 1, 16), (37, 37, 32), (67, 19, 24)])
def test_lse_matches_kir_and_numpy_through_triton(lse_kernels, causal, S, T_, D):
    torch = pytest.importorskip("torch")
    kernel, launch = lse_kernels[causal]
    shapes = {"B": 1, "H": 2, "S": S, "T": T_, "D": D}
    scale = 1.0 / math.sqrt(D)
    ref = kernel.run_interp(shapes, {"scale": scale}, None, seed=5)
    q, k, v = (np.array(ref[f"{n}.in"]).astype(np.float64) for n in ("Q", "K", "V"))
    o, lse = reference(q, k, v, scale, causal)
    np.testing.assert_allclose(np.array(ref["O"]).astype(np.float64), o, rtol=2e-2, atol=2e-2)
    np.testing.assert_allclose(np.array(ref["L"]), lse, rtol=1e-4, atol=1e-4)
    tq, tk, tv = (torch.from_numpy(np.array(ref[f"{n}.in"])) for n in ("Q", "K", "V"))
    out = torch.full((1, 2, S, D), float("nan"), dtype=torch.float16)
    lout = torch.full((1, 2, S), float("nan"), dtype=torch.float32)
    launch(tq, tk, tv, out, lout, scale=scale)
    np.testing.assert_allclose(out.double().numpy(), o, rtol=2e-2, atol=2e-2)
    np.testing.assert_allclose(lout.double().numpy(), np.array(ref["L"]), rtol=1e-4, atol=1e-4)
