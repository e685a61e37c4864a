"""Column sums over rows of values each row reduces (kir-row-parallels, issue 41; bench/corpus/256's
Switch/ST-MoE router losses): frac[e] = the share of tokens whose argmax is e, pmean[e] = the mean over
tokens of each token's softmax, aux = E * sum_e frac[e] * pmean[e], z = the mean of each token's
logsumexp squared, written at kernel level without a T.parallel. Replayed, every element of a column
sum recomputed the token's max, denominator and argmax over the experts (O(E*T*E) in one program); now
an added kir.parallel over the tokens computes them once per token into buffers (the argmax's index as
i64) that the column sums and the z-loss read. Lit: kir-row-parallels-column-summaries.mlir (fires;
must not fire: a row max stored once, a column sum reading no row summary).

Triton under TRITON_INTERPRET=1 against NumPy (float64) at T = 1, 17, 131 and E = 1, 7, 64 (one
expert, a prime, a power of two; ties broken to the lowest expert).
"""
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402


@tessel.kernel(name="cs_router_losses")
def router_losses(logits: T.In[T.f32, ("T", "E")], aux: T.Out[T.f32, (1,)], z: T.Out[T.f32, (1,)]):
    NT, E = logits.shape
    toks, experts = T.domain(0, NT), T.domain(0, E)
    x = logits[toks, experts]
    mx = T.max(x, axis=1)
    e = T.exp(x - mx)
    den = T.sum(e, axis=1)
    _, top = T.argmax(x, axis=1)
    chosen = T.broadcast(top, over=(toks, experts), dims=[0]) == T.broadcast(T.indices(experts), over=(toks, experts), dims=[1])
    nt = T.cast(NT, T.f32)
    frac = T.sum(T.where(chosen, 1.0, 0.0, dtype=T.f32), axis=0) / nt
    pmean = T.sum(e / den, axis=0) / nt
    aux[0] = T.cast(E, T.f32) * T.sum(frac * pmean)
    lse = mx + T.log(den)
    z[0] = T.sum(lse * lse) / nt


def reference(logits):
    x = logits.astype(np.float64)
    NT, E = x.shape
    mx = x.max(axis=1, keepdims=True)
    e = np.exp(x - mx)
    p = e / e.sum(axis=1, keepdims=True)
    frac = np.bincount(x.argmax(axis=1), minlength=E) / NT
    lse = mx[:, 0] + np.log(e.sum(axis=1))
    return E * (frac * p.mean(axis=0)).sum(), (lse * lse).mean()


DEEP = os.environ.get("TESSEL_DEEP") == "1"
# The interpreter runs a program per token: the default tier checks two cheap shapes (one expert; a
# prime of each), the deep tier every combination.
SHAPES = [(NT, E) for NT in (1, 17, 131) for E in (1, 7, 64)] if DEEP else [(1, 1), (17, 7)]


@pytest.mark.parametrize("NT,E", SHAPES)
def test_triton_router_losses(NT, E):
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    rng = np.random.default_rng(NT * 100 + E)
    logits = (2.0 * rng.standard_normal((NT, E))).astype(np.float32)
    if NT > 1 and E > 1:
        logits[1, :] = logits[1, 0]  # a tie: the lowest expert is chosen
    aux, z = torch.empty(1), torch.empty(1)
    router_losses(torch.from_numpy(logits), aux, z)
    want_aux, want_z = reference(logits)
    np.testing.assert_allclose(aux.numpy()[0], want_aux, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(z.numpy()[0], want_z, rtol=1e-4, atol=1e-5)


def test_the_row_values_are_computed_once():
    src = router_losses.source()
    # One program per token computes its values into buffers; the last program to finish sums the
    # columns from them: no arg-reduction (a reduce of values, values and positions) after that point.
    rows, last = src.split("tl.num_programs(0) - 1", 1)
    last = last.split("\ndef ", 1)[0]
    operands = [line.split("tl.reduce((", 1)[1].split(")", 1)[0] for line in last.splitlines() if "tl.reduce((" in line]
    assert "tl.reduce((" in rows and all(o.count(",") < 2 for o in operands), last
