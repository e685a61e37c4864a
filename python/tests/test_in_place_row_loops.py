"""Row loops that update their view in place (pgpu-refine-mapping, issue 41, corpus 70): rotate-half on
q[t, h, :] read and written in one element loop, its table rows gathered through a per-token position id
pos[t], takes BLOCK_P members over all (token, head) rows per program instead of one 64-lane row a
program. Differential: Triton under TRITON_INTERPRET=1 against the KIR interpreter at odd shapes (one
element, primes, programs ending mid-row). Must not fire: a view updated by two statements (the second
reads what the first wrote), and a row's value that enters the arithmetic (a bias)."""
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module
torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402


@tessel.kernel
def rope_in_place(q: T.InOut[T.f32, ("T", "HQ", "D")], k: T.InOut[T.f32, ("T", "HK", "D")],
                  cos: T.In[T.f32, ("P", "D2")], sin: T.In[T.f32, ("P", "D2")],
                  pos: T.In[T.i32, ("T",), T.Range(0, "P")]):
    NT, HQ, D = q.shape
    HK = k.shape[1]
    D2 = cos.shape[1]
    dims, half = T.domain(0, D), T.domain(0, D2)
    lo, hi = dims[0:D2], dims[D2:2 * D2]
    for t, h in T.parallel(T.domain(0, NT), T.domain(0, HQ)):
        c, s = cos[pos[t], half], sin[pos[t], half]
        x1, x2 = q[t, h, lo], q[t, h, hi]
        q[t, h, lo] = x1 * c - x2 * s
        q[t, h, hi] = x2 * c + x1 * s
    for t, h in T.parallel(T.domain(0, NT), T.domain(0, HK)):
        c, s = cos[pos[t], half], sin[pos[t], half]
        x1, x2 = k[t, h, lo], k[t, h, hi]
        k[t, h, lo] = x1 * c - x2 * s
        k[t, h, hi] = x2 * c + x1 * s


@tessel.kernel
def twice_in_place(x: T.InOut[T.f32, ("M", "N")]):
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        x[m, cols] = x[m, cols] * 2.0
        x[m, cols] = x[m, cols] + 1.0  # reads what the statement before wrote


@tessel.kernel
def biased_in_place(x: T.InOut[T.f32, ("M", "N")], b: T.In[T.f32, ("M",)]):
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        x[m, cols] = x[m, cols] + b[m]


def _owns_rows(kernel):
    return "'BLOCK_P'" in next(l for l in kernel.source().split("\n") if "_PARAMS = {" in l)


def test_in_place_rows_take_several_rows_per_program():
    src = rope_in_place.source()
    assert _owns_rows(rope_in_place)
    assert src.count("tl.program_id(0)") == 1  # both segments refined in one chain


def test_must_not_fire_on_chained_updates_or_a_row_value():
    assert not _owns_rows(twice_in_place)
    assert not _owns_rows(biased_in_place)


# T, HQ, HK, D2, P: one element; primes; a row longer than a block; many short rows past a program
SHAPES = [(1, 1, 1, 1, 1), (7, 3, 1, 5, 13), (3, 2, 1, 67, 5), (37, 5, 2, 3, 11)]


@pytest.mark.parametrize("shape", SHAPES)
def test_rope_in_place_agrees_with_the_interpreter(shape, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    nt, hq, hk, d2, p = shape
    rng = np.random.default_rng(nt * 100 + d2)
    q = rng.standard_normal((nt, hq, 2 * d2)).astype(np.float32)
    k = rng.standard_normal((nt, hk, 2 * d2)).astype(np.float32)
    cos = rng.standard_normal((p, d2)).astype(np.float32)
    sin = rng.standard_normal((p, d2)).astype(np.float32)
    pos = rng.integers(0, p, size=nt).astype(np.int32)
    want = rope_in_place.run_interp(shapes={}, inputs=dict(q=q, k=k, cos=cos, sin=sin, pos=pos))
    for params in (None, {"BLOCK_P": 256, "BLOCK": 64}):  # the call's binding; programs ending mid-row
        tq, tk = torch.from_numpy(q.copy()), torch.from_numpy(k.copy())
        args = (tq, tk, torch.from_numpy(cos), torch.from_numpy(sin), torch.from_numpy(pos))
        if params is None:
            rope_in_place(*args)
        else:
            rope_in_place.launch(*args, params=params)
        np.testing.assert_allclose(tq.numpy(), want["q"], rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(tk.numpy(), want["k"], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("m, n", [(1, 1), (7, 129)])
def test_kept_kernels_agree_with_the_interpreter(m, n, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(m + n)
    x = rng.standard_normal((m, n)).astype(np.float32)
    b = rng.standard_normal((m,)).astype(np.float32)
    for kernel, inputs in ((twice_in_place, dict(x=x)), (biased_in_place, dict(x=x, b=b))):
        want = kernel.run_interp(shapes={}, inputs=inputs)["x"]
        tx = torch.from_numpy(x.copy())
        kernel(tx, *[torch.from_numpy(v) for n_, v in inputs.items() if n_ != "x"])
        np.testing.assert_allclose(tx.numpy(), want, rtol=1e-6)
