"""Region folds over a domain the parallel member defines (issue 42 item 1): a key domain whose extent is
loaded per member (`T.domain(0, seq_lens[b])`, a CSR row `items[indptr[r]:indptr[r + 1]]`) is folded in
tiles, not element by element: one program per member, its fold's tile loop running to the member's own
bound with the last tile masked, and keys read through index tensors (a paged cache's
`k_cache[block_table[b, t // BS], t % BS, h, dims]`, paired coordinates) gathered as whole
[tile, D] fragments.

Each kernel runs against a NumPy reference on the KIR interpreter, on the pgpu interpreter after the
whole shared pipeline with 16-wide blocks (several tiles and a masked tail per member), and through the
Triton provider under TRITON_INTERPRET=1 at odd shapes: sequences of 0 and 1 tokens, 17, lengths that are
no multiple of any block, block tables with repeated and out-of-order ids.
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
from interp_cli import assert_tiled, run_three_ways  # noqa: E402


def make_paged_decode(numerics="source"):
    @tessel.kernel(name=f"member_paged_decode_{numerics}", numerics=numerics)
    def paged_decode(q: T.In[T.f32, ("B", "H", "D")], k_cache: T.In[T.f32, ("NB", "BS", "H", "D")],
                     v_cache: T.In[T.f32, ("NB", "BS", "H", "D")],
                     block_table: T.In[T.i32, ("B", "MB"), T.Range(0, "NB")], seq_lens: T.In[T.i32, ("B",)],
                     out: T.Out[T.f32, ("B", "H", "D")], scale: T.f32):
        B, H, D = q.shape
        BS = k_cache.shape[1]
        dims = T.domain(0, D)
        for b, h in T.parallel(T.domain(0, B), T.domain(0, H)):
            toks = T.domain(0, seq_lens[b])
            t = T.indices(toks)
            blk = block_table[b, t // BS]
            k = k_cache[blk, t % BS, h, dims]
            v = v_cache[blk, t % BS, h, dims]
            s = T.sum(q[b, h, dims] * k, axis=1) * scale
            p = T.exp(s - T.max(s))
            out[b, h, dims] = T.sum(p * v, axis=0) / T.sum(p)
    return paged_decode


@tessel.kernel(numerics="relaxed_normalization")    # the online (one-fold) form of max and sum
def ragged_logsumexp(x: T.In[T.f32, ("R", "C")], lens: T.In[T.i32, ("R",)], out: T.Out[T.f32, ("R",)]):
    for r in T.parallel(T.domain(0, x.shape[0])):
        cols = T.domain(0, lens[r])                   # this row's first lens[r] columns
        row = x[r, cols]
        m = T.max(row)
        out[r] = T.log(T.sum(T.exp(row - m))) + m


@tessel.kernel
def csr_softmax_gather(values: T.In[T.f32, ("NNZ",)], indices: T.In[T.i32, ("NNZ",), T.Range(0, "V")],
                       indptr: T.In[T.i32, ("R1",)], table: T.In[T.f32, ("V", "D")],
                       out: T.Out[T.f32, ("R", "D")]):
    R, D = out.shape
    items, dims = T.domain(0, values.shape[0]), T.domain(0, D)
    for r in T.parallel(T.domain(0, R)):
        seg = items[indptr[r]:indptr[r + 1]]          # a CSR row: a subregion with loaded bounds
        w = values[seg]
        e = T.exp(w - T.max(w))
        out[r, dims] = T.sum(T.broadcast(e, over=(seg, dims), dims=[0]) * table[indices[seg], dims],
                             axis=0) / T.sum(e)


def paged_inputs(rng, B, H, D, NB, BS, MB, lens):
    table = rng.integers(0, NB, size=(B, MB))
    if B > 1:
        table[1] = table[0, ::-1]                     # out of order, repeated across sequences
    return dict(q=rng.standard_normal((B, H, D)).astype(np.float32),
                k_cache=rng.standard_normal((NB, BS, H, D)).astype(np.float32),
                v_cache=rng.standard_normal((NB, BS, H, D)).astype(np.float32),
                block_table=table.astype(np.int32), seq_lens=np.array(lens, np.int32))


def paged_reference(q, k_cache, v_cache, block_table, seq_lens, scale):
    B, H, D = q.shape
    BS = k_cache.shape[1]
    out = np.empty((B, H, D))
    with np.errstate(invalid="ignore", divide="ignore"):
        for b in range(B):
            t = np.arange(int(seq_lens[b]))
            blk = block_table[b, t // BS]
            k = k_cache[blk, t % BS].astype(np.float64)
            v = v_cache[blk, t % BS].astype(np.float64)
            s = np.einsum("hd,thd->ht", q[b].astype(np.float64), k) * scale
            m = s.max(-1, keepdims=True, initial=-np.inf)
            p = np.exp(s - m)
            out[b] = np.einsum("ht,thd->hd", p, v) / p.sum(-1)[:, None]   # no keys: 0 / 0 = NaN
    return out


PAGED = [  # B, H, D, NB, BS, MB, seq_lens
    (1, 1, 1, 1, 1, 1, [1]),
    (3, 2, 5, 7, 4, 5, [0, 17, 20]),                 # an empty sequence, 17 tokens, a full table
    (4, 3, 24, 13, 16, 3, [1, 33, 47, 48]),           # a block of 16: 33 = two tiles and one token
    (2, 1, 40, 3, 5, 11, [53, 29]),                   # more blocks than the cache has: ids repeat
]


@pytest.mark.parametrize("numerics", ["source", "relaxed_normalization"])
@pytest.mark.parametrize("B,H,D,NB,BS,MB,lens", PAGED, ids=[f"B{c[0]}H{c[1]}D{c[2]}BS{c[4]}L{'-'.join(map(str, c[6]))}"
                                                            for c in PAGED])
def test_paged_decode(B, H, D, NB, BS, MB, lens, numerics, tessel_bin, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(B * 31 + D)
    inputs = paged_inputs(rng, B, H, D, NB, BS, MB, lens)
    scale = 1.0 / math.sqrt(D)
    want = paged_reference(**inputs, scale=scale)
    kernel = make_paged_decode(numerics)
    run_three_ways(kernel, tessel_bin, tmp_path, dict(B=B, H=H, D=D, NB=NB, BS=BS, MB=MB), inputs,
                   dict(scale=scale), "out", want, dict(rtol=1e-4, atol=1e-5))


@pytest.mark.parametrize("numerics", ["source", "relaxed_normalization"])
def test_paged_decode_is_tiled(numerics, tessel_bin, tmp_path):
    """The remark names the fragment construction (no fold left element by element), and the keys and
    values are read as [tile, D] fragments (2-D gathers)."""
    program = assert_tiled(make_paged_decode(numerics), tessel_bin, tmp_path)
    # K and V as [tile, D] fragments gathered through the block table.
    tiles = [ln for ln in program.splitlines()
             if "pgpu.gather" in ln and ln.rstrip().endswith("-> !pgpu.fragment<f32, [BLOCK_A0, BLOCK_D]>")]
    assert len(tiles) >= 2, program                # K and V (K in both passes of the exact form)


ROWS = [(1, 1, [0]), (1, 1, [1]), (5, 17, [17, 0, 1, 16, 5]), (3, 70, [70, 33, 64])]


@pytest.mark.parametrize("R,C,lens", ROWS, ids=[f"R{r}C{c}" + "-".join(map(str, l)) for r, c, l in ROWS])
def test_ragged_logsumexp(R, C, lens, tessel_bin, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(R * 7 + C)
    x = (rng.standard_normal((R, C)) * 3).astype(np.float32)
    with np.errstate(divide="ignore", invalid="ignore"):
        want = np.array([np.log(np.exp(x[r, :n] - x[r, :n].max(initial=-np.inf)).sum()) + x[r, :n].max(initial=-np.inf)
                         for r, n in enumerate(lens)])
    run_three_ways(ragged_logsumexp, tessel_bin, tmp_path, dict(R=R, C=C), dict(x=x, lens=np.array(lens, np.int32)),
                   {}, "out", want, dict(rtol=1e-5, atol=1e-5))


CSR = [(1, 1, 1, [0, 0]), (4, 7, 5, [0, 3, 3, 20, 21]), (3, 11, 17, [0, 17, 19, 36])]


@pytest.mark.parametrize("R,V,D,indptr", CSR, ids=[f"R{c[0]}V{c[1]}D{c[2]}" for c in CSR])
def test_csr_softmax_gather(R, V, D, indptr, tessel_bin, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(V * 3 + D)
    nnz = indptr[-1] + 2                              # items past the last row are never read
    values = rng.standard_normal(nnz).astype(np.float32)
    indices = rng.integers(0, V, nnz).astype(np.int32)
    table = rng.standard_normal((V, D)).astype(np.float32)
    want = np.empty((R, D))
    with np.errstate(divide="ignore", invalid="ignore"):
        for r in range(R):
            seg = slice(indptr[r], indptr[r + 1])
            w = values[seg].astype(np.float64)
            e = np.exp(w - w.max(initial=-np.inf))
            want[r] = (e[:, None] * table[indices[seg]]).sum(0) / e.sum()
    inputs = dict(values=values, indices=indices, indptr=np.array(indptr, np.int32), table=table)
    run_three_ways(csr_softmax_gather, tessel_bin, tmp_path, dict(NNZ=nnz, V=V, R1=R + 1, R=R, D=D), inputs, {},
                   "out", want, dict(rtol=1e-4, atol=1e-5))


@tessel.kernel
def selected_keys_attention(q: T.In[T.f32, ("R", "D")], emb: T.In[T.f32, ("V", "D")],
                            sel: T.In[T.i32, ("K",), T.Range(0, "V")], out: T.Out[T.f32, ("R", "D")]):
    R, D = q.shape
    keys, dims = T.domain(0, sel.shape[0]), T.domain(0, D)
    for r in T.parallel(T.domain(0, R)):
        k = emb[sel[keys], dims]                      # the same gathered keys for every row
        s = T.sum(q[r, dims] * k, axis=1)
        p = T.exp(s - T.max(s))
        out[r, dims] = T.sum(p * k, axis=0) / T.sum(p)


@pytest.mark.parametrize("R,V,D,K", [(1, 1, 1, 1), (19, 7, 5, 23), (33, 50, 17, 70)])
def test_gathered_keys_keep_lanes(R, V, D, K, tessel_bin, tmp_path, monkeypatch):
    """A gather in a workset with no domain of its own: the rows stay BLOCK_R lanes per program and
    the keys, the same for every lane, are one [tile, D] gathered fragment."""
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(R + V)
    q = rng.standard_normal((R, D)).astype(np.float32)
    emb = rng.standard_normal((V, D)).astype(np.float32)
    sel = rng.integers(0, V, K).astype(np.int32)
    k = emb[sel].astype(np.float64)
    s = q.astype(np.float64) @ k.T
    p = np.exp(s - s.max(1, keepdims=True))
    want = (p @ k) / p.sum(1, keepdims=True)
    source = selected_keys_attention._write(tmp_path, None)
    res = subprocess.run([str(tessel_bin), "compile", str(source), "--emit=pgpu", "--remarks"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert "region fold constructed on fragments: BLOCK_R lanes" in res.stderr, res.stderr
    assert "-> !pgpu.fragment<f32, [BLOCK_K, BLOCK_D]>" in res.stdout, res.stdout
    inputs = dict(q=q, emb=emb, sel=sel)
    got = selected_keys_attention.run_interp(shapes=dict(R=R, V=V, D=D, K=K), inputs=inputs)
    np.testing.assert_allclose(got["out"], want, rtol=1e-4, atol=1e-5, err_msg="KIR interpreter")
    targs = {n: torch.tensor(v) for n, v in inputs.items()}
    targs["out"] = torch.full((R, D), float("nan"))
    selected_keys_attention(**targs)
    np.testing.assert_allclose(targs["out"].numpy(), want, rtol=1e-4, atol=1e-5, err_msg="triton")


@tessel.kernel
def gqa_paged_decode(q: T.In[T.f32, ("B", "H", "D")], k_cache: T.In[T.f32, ("NB", "BS", "KVH", "D")],
                     v_cache: T.In[T.f32, ("NB", "BS", "KVH", "D")],
                     block_table: T.In[T.i32, ("B", "MB"), T.Range(0, "NB")], seq_lens: T.In[T.i32, ("B",)],
                     out: T.Out[T.f32, ("B", "H", "D")], scale: T.f32, GROUP: T.Constexpr[int] = 3):
    B, H, D = q.shape
    BS, KVH = k_cache.shape[1], k_cache.shape[2]
    dims = T.domain(0, D)
    for b, kvh, g in T.parallel(T.domain(0, B), T.domain(0, KVH), T.domain(0, GROUP)):
        toks = T.domain(0, seq_lens[b])               # the same for the group's query heads
        t = T.indices(toks)
        blk = block_table[b, t // BS]
        k = k_cache[blk, t % BS, kvh, dims]           # shared by the GROUP query heads of kvh
        v = v_cache[blk, t % BS, kvh, dims]
        s = T.sum(q[b, kvh * GROUP + g, dims] * k, axis=1) * scale
        p = T.exp(s - T.max(s))
        out[b, kvh * GROUP + g, dims] = T.sum(p * v, axis=0) / T.sum(p)


GQA = [(1, 1, 1, 1, 1, 1, [1]), (3, 2, 5, 7, 4, 5, [0, 17, 20]), (2, 3, 24, 13, 16, 4, [64, 33])]


@pytest.mark.parametrize("B,KVH,D,NB,BS,MB,lens", GQA, ids=[f"B{c[0]}KVH{c[1]}D{c[2]}L{'-'.join(map(str, c[6]))}"
                                                           for c in GQA])
def test_gqa_paged_decode_keeps_lanes(B, KVH, D, NB, BS, MB, lens, tessel_bin, tmp_path, monkeypatch):
    """The tokens' domain depends only on the sequence, not on the query head within its key/value
    head's group (the innermost parallel axis): the group's heads stay lanes of one program, which
    gathers each key tile once for all of them and contracts it as one [lanes, D] x [D, tile]
    pgpu.contract."""
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(B * 5 + D)
    H = 3 * KVH
    inputs = paged_inputs(rng, B, KVH, D, NB, BS, MB, lens)
    inputs["q"] = rng.standard_normal((B, H, D)).astype(np.float32)
    scale = 1.0 / math.sqrt(D)
    expanded = {n: np.repeat(inputs[n], 3, axis=2) for n in ("k_cache", "v_cache")}  # head h reads h // 3
    want = paged_reference(inputs["q"], expanded["k_cache"], expanded["v_cache"], inputs["block_table"],
                           inputs["seq_lens"], scale)
    program = assert_tiled(gqa_paged_decode, tessel_bin, tmp_path, "BLOCK_A0 lanes")
    assert "pgpu.contract" in program
    run_three_ways(gqa_paged_decode, tessel_bin, tmp_path, dict(B=B, H=H, D=D, NB=NB, BS=BS, MB=MB, KVH=KVH),
                   inputs, dict(scale=scale), "out", want, dict(rtol=1e-4, atol=1e-5), how="BLOCK_A0 lanes")
