"""pgpu-stage-inner-k-loops: a product nested in another's element (sigmoid attention, corpus 99: the scores
q.k over the head dimension D, their sigmoid, the product with V over the keys) runs its scores' K loop once
where D fits one TILE_K block (a launch fact), the query tile read once a program before the key loop (which is
then innermost: Triton pipelines its K and V reads); past TILE_K the nested loops run as before.

The pgpu interpreter (shuffled program order) against the KIR interpreter at odd shapes (one key, primes,
197 keys, a head dimension of 1, 13 and 37) with TILE_K at 16 (D = 37 takes the nested loops) and 64 (the
staged branch), the remark on the chained form, and the generated Triton: q's load outside the key loop on
the staged branch, no loop nested in it.
"""
import pathlib
import re

import numpy as np
import pytest

import tessel
import tessel.language as T
from conftest import pass_remarks, run_stage, shape_arg


@tessel.kernel(name="staged_k_sigmoid")
def sigmoid_attention(q: T.In[T.bf16, ("B", "S", "D")], k: T.In[T.bf16, ("B", "S", "D")],
                      v: T.In[T.bf16, ("B", "S", "D")], out: T.Out[T.f32, ("B", "S", "D")]):
    B, S, D = q.shape
    keys, dims = T.domain(0, S), T.domain(0, D)
    for b, i in T.parallel(T.domain(0, B), T.domain(0, S)):
        p = T.sigmoid(T.matvec(k[b, keys, dims], q[b, i, dims]) * 0.125 - 2.0)
        out[b, i, dims] = T.vecmat(T.cast(p, T.bf16), v[b, keys, dims])


@tessel.kernel(name="staged_k_gemm")
def gemm(a: T.In[T.bf16, ("M", "K")], w: T.In[T.bf16, ("K", "N")], c: T.Out[T.f32, ("M", "N")]):
    M, K = a.shape
    rows, cols, ks = T.domain(0, M), T.domain(0, w.shape[1]), T.domain(0, K)
    c[rows, cols] = T.matmul(a[rows, ks], w[ks, cols])


def _bf16(x):
    import torch
    return torch.tensor(x, dtype=torch.float32).to(torch.bfloat16).float().numpy()


def test_remark_fires_only_on_the_chain(tessel_bin, tmp_path):
    chain = tmp_path / "chain.mlir"
    chain.write_text(sigmoid_attention.kir({}))
    said = pass_remarks(tessel_bin, chain, "pgpu-stage-inner-k-loops")
    assert len(said) == 1 and "runs once when it fits one TILE_K block" in said[0], said
    plain = tmp_path / "gemm.mlir"
    plain.write_text(gemm.kir({}))
    # must not fire: a GEMM's K loop is innermost already
    assert pass_remarks(tessel_bin, plain, "pgpu-stage-inner-k-loops") == []


def test_staged_branch_reads_q_once():
    src = sigmoid_attention.source("triton")
    assert "'TILE_K': 'D'" in src, "TILE_K declares that it covers D"
    lines = src.splitlines()
    # The staged key loop: the `for` whose body holds tl.dot but no nested `for`, q read before it.
    loops = [i for i, ln in enumerate(lines) if re.match(r"\s*for v\d+ in range\(", ln)]
    depth = lambda ln: len(ln) - len(ln.lstrip())  # noqa: E731
    innermost = []
    for i in loops:
        body = []
        for ln in lines[i + 1:]:
            if ln.strip() and depth(ln) <= depth(lines[i]):
                break
            body.append(ln)
        if any("tl.dot(" in ln for ln in body) and not any(re.match(r"\s*for ", ln) for ln in body):
            innermost.append((i, body))
    keyed = [(i, body) for i, body in innermost if sum("tl.dot(" in ln for ln in body) == 2]
    assert keyed, "a key loop with both products and no nested loop"
    i, body = keyed[0]
    descs = set(re.findall(r"# (_desc\d+): q's", src))  # q's TMA descriptor, where the provider makes one
    reads_q = lambda ln: "tl.load(q " in ln or any(f"{d}.load(" in ln for d in descs)  # noqa: E731
    assert not any(reads_q(ln) for ln in body), "q is read before the key loop"
    assert any(reads_q(ln) for ln in lines[max(0, i - 40):i]), "q's tile is read once, before the key loop"


@pytest.mark.parametrize("shape", [dict(B=1, S=1, D=1), dict(B=2, S=17, D=37), dict(B=1, S=67, D=13),
                                   dict(B=1, S=197, D=8)], ids=shape_arg)
@pytest.mark.parametrize("tile_k", [16, 64])
def test_pgpu_matches_kir(tessel_bin, tmp_path, shape, tile_k):
    rng = np.random.default_rng(shape["S"] * shape["D"] + tile_k)
    dims = (shape["B"], shape["S"], shape["D"])
    inputs = dict(q=_bf16(rng.standard_normal(dims)), k=_bf16(rng.standard_normal(dims)),
                  v=_bf16(rng.standard_normal(dims)))
    kir = run_stage(tessel_bin, sigmoid_attention, "kir", {**shape}, inputs, tmp_path)
    pgpu = run_stage(tessel_bin, sigmoid_attention, "pgpu", {**shape}, inputs, tmp_path,
                     params=dict(TILE_K=tile_k))
    want, got = np.load(kir / "out.npy"), np.load(pgpu / "out.npy")
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
