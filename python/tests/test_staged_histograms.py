"""A member's histogram read pointwise by the member's store at the store's own bins (vLLM's frequency and
presence penalties: logits[b, vocab] -= freq[b] * count + pres[b] * (count > 0) with count the histogram of the
generated tokens; corpus 253_frequency_presence_penalty; issue 41): kir-to-pgpu counts it once into the member's
row of kept workspace (O(tokens)), reads the row per bin in the store, then returns the row to zero, instead of
recounting every token per bin (O(tokens * vocab)). Checked through the generated Triton (TRITON_INTERPRET=1)
against NumPy and the KIR interpreter at odd shapes (one bin, bins within and beyond the privatized width,
no tokens, padding), twice in a row (the kept row must be zero again)."""
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"

torch = pytest.importorskip("torch")
pytest.importorskip("triton")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402


@tessel.kernel
def penalties(logits: T.InOut[T.f32, ("B", "V")], toks: T.In[T.i32, ("B", "L")], freq: T.In[T.f32, ("B",)],
              pres: T.In[T.f32, ("B",)]):
    B, V = logits.shape
    vocab, gen = T.domain(0, V), T.domain(0, toks.shape[1])
    for b in T.parallel(T.domain(0, B)):
        t = toks[b, gen]
        count = T.histogram(t, vocab, valid=t >= 0)
        logits[b, vocab] = logits[b, vocab] - freq[b] * T.cast(count, T.f32) - \
            pres[b] * T.where(count > 0, 1.0, 0.0, dtype=T.f32)


@tessel.kernel
def max_count(logits: T.InOut[T.f32, ("B", "V")], toks: T.In[T.i32, ("B", "L")]):
    B, V = logits.shape
    vocab, gen = T.domain(0, V), T.domain(0, toks.shape[1])
    for b in T.parallel(T.domain(0, B)):
        count = T.histogram(toks[b, gen], vocab)
        logits[b, vocab] = logits[b, vocab] - T.cast(T.max(count), T.f32)   # not read at its own bins


def _penalties(logits, toks, freq, pres):
    out = logits.astype(np.float64).copy()
    for b in range(logits.shape[0]):
        c = np.bincount(toks[b][(toks[b] >= 0) & (toks[b] < logits.shape[1])], minlength=logits.shape[1])
        out[b] -= freq[b] * c + pres[b] * (c > 0)
    return out


def test_the_histogram_is_counted_once():
    src = penalties.source()
    assert "tl.atomic_add(" in src                     # each token adds one to its bin of the row
    assert max_count.source().count("tl.atomic_add(") == 0  # must not fire: the maximum reads every bin


@pytest.mark.parametrize("B,V,L", [(1, 1, 1), (2, 5, 0), (2, 37, 9), (3, 70, 131)])
def test_penalties_match_numpy(B, V, L, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(2530 + V + L)
    logits = rng.standard_normal((B, V)).astype(np.float32)
    toks = rng.integers(-1, V, (B, L)).astype(np.int32)
    freq, pres = rng.random(B).astype(np.float32), rng.random(B).astype(np.float32)
    want = _penalties(logits, toks, freq, pres)
    lt = torch.tensor(logits.copy())
    penalties(lt, torch.tensor(toks), torch.tensor(freq), torch.tensor(pres))
    np.testing.assert_allclose(lt.numpy(), want, rtol=1e-5, atol=1e-5)
    lt2 = torch.tensor(logits.copy())  # a second launch: the kept row was returned to zero
    penalties(lt2, torch.tensor(toks), torch.tensor(freq), torch.tensor(pres))
    np.testing.assert_allclose(lt2.numpy(), want, rtol=1e-5, atol=1e-5)
    ref = penalties.run_interp({"B": B, "V": V, "L": L},
                               inputs=dict(logits=logits.copy(), toks=toks, freq=freq, pres=pres))
    np.testing.assert_allclose(np.asarray(ref["logits"]), want, rtol=1e-5, atol=1e-5)
