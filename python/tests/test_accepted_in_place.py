"""Kernels kir-to-pgpu used to refuse (issue 41), now constructed, checked against the KIR interpreter and
NumPy through Triton under TRITON_INTERPRET=1 at odd shapes (1, primes, non-multiples of every block):

- a scalar flag updated in place at an index coordinate (corpus 260: `found[0] = T.where(bad, 1.0,
  found[0])` beside an in-place scale of the whole view): one instance stores the element, its read
  realized before the store; the T.any is phased (32768-element chunks or-ed into a workspace, the flag
  and the scale after a wait; TESSEL_DEEP adds a poison alone in the third chunk);
- two rotate-halves of two views in one T.parallel member (corpus 245: q's, then k's): k's reads stand
  after q's stores and read k's old values;
- a kernel-level buffer over `T.domain(0, G)`, G an integer kernel scalar (corpus 306's group axis): a
  workspace axis sized at launch (pgpu.workspace_extent).
"""
import math
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402


@tessel.kernel(name="aip_flag")
def flag(g: T.InOut[T.f32, ("N",)], found: T.InOut[T.f32, (1,)], scale: T.In[T.f32, (1,)]):
    elems = T.domain(0, g.shape[0])
    v = g[elems]
    g[elems] = v * scale[0]
    bad = T.any(~(T.abs(v) < math.inf))
    found[0] = T.where(bad, 1.0, found[0])


@tessel.kernel(name="aip_two_rotations")
def two_rotations(q: T.InOut[T.f32, ("S", "HQ", "D")], k: T.InOut[T.f32, ("S", "HK", "D")],
                  cs: T.In[T.f32, ("S", "H")]):
    S, HQ, D = q.shape
    half = T.domain(0, cs.shape[1])
    dims = T.domain(0, D)
    lo, hi = dims[0:cs.shape[1]], dims[cs.shape[1]:2 * cs.shape[1]]
    qh, kh = T.domain(0, HQ), T.domain(0, k.shape[1])
    for t in T.parallel(T.domain(0, S)):
        c = cs[t, half]
        s = c * 0.5
        q1, q2 = q[t, qh, lo], q[t, qh, hi]
        q[t, qh, lo] = q1 * c - q2 * s
        q[t, qh, hi] = q2 * c + q1 * s
        k1, k2 = k[t, kh, lo], k[t, kh, hi]
        k[t, kh, lo] = k1 * c - k2 * s
        k[t, kh, hi] = k2 * c + k1 * s


@tessel.kernel(name="aip_scalar_axis")
def scalar_axis(x: T.In[T.f32, ("N", "C")], y: T.Out[T.f32, ("N",)], groups: T.i32):
    N, C = x.shape
    G = T.cast(groups, T.index)
    CG = C // G
    ns, cs, grps = T.domain(0, N), T.domain(0, C), T.domain(0, G)
    part = T.buffer(over=(ns, grps), dtype=T.f32, init=None)
    for n, g in T.parallel(ns, grps):
        part[n, g] = T.sum(x[n, cs[g * CG:g * CG + CG]])
    for n in T.parallel(ns):
        y[n] = T.max(part[n, grps])


def _torch(kernel, arrays, **scalars):
    import torch
    tensors = [torch.tensor(np.ascontiguousarray(a)) for a in arrays]
    kernel(*tensors, **scalars)
    return [t.numpy() for t in tensors]


@pytest.mark.parametrize("n,poison", [(1, None), (127, "nan"), (263, "-inf"), (1031, None)])
def test_flag_in_place(n, poison):
    _flag_case(n, poison, None)


@pytest.mark.skipif(not os.environ.get("TESSEL_DEEP"), reason="three 32768-element chunks under the interpreter")
def test_flag_in_the_last_chunk():
    _flag_case(65537, "nan", 65536)  # the T.any's phased chunks: the poison alone in the third


def _flag_case(n, poison, at):
    rng = np.random.default_rng(n)
    g = (rng.standard_normal(n) * 1000).astype(np.float32)
    if poison:
        g[rng.integers(0, n) if at is None else at] = np.float32(poison)
    found = np.zeros(1, np.float32) if poison != "-inf" else np.full(1, 0.5, np.float32)
    scale = np.array([0.25], np.float32)
    want = flag.run_interp(shapes={"N": n}, inputs={"g": g, "found": found, "scale": scale})
    got = _torch(flag, [g, found, scale])
    np.testing.assert_array_equal(got[0], g * np.float32(0.25))
    np.testing.assert_array_equal(got[1], [1.0] if poison else found)
    np.testing.assert_array_equal(want["g"], got[0])
    np.testing.assert_array_equal(want["found"], got[1])


@pytest.mark.parametrize("s,hq,hk,h", [(1, 1, 1, 1), (3, 7, 1, 5), (13, 5, 2, 64)])
def test_two_rotations_in_one_member(s, hq, hk, h):
    rng = np.random.default_rng(s * 31 + h)
    d = 2 * h + 3                                      # lanes past the rotated halves stay as they were
    q = rng.standard_normal((s, hq, d)).astype(np.float32)
    k = rng.standard_normal((s, hk, d)).astype(np.float32)
    cs = rng.standard_normal((s, h)).astype(np.float32)
    want = two_rotations.run_interp(shapes={"S": s, "HQ": hq, "HK": hk, "D": d, "H": h},
                                    inputs={"q": q, "k": k, "cs": cs})
    got = _torch(two_rotations, [q, k, cs])

    def rotate(x):
        c, sn = cs[:, None, :], cs[:, None, :] * np.float32(0.5)
        out = x.copy()
        out[..., :h] = x[..., :h] * c - x[..., h:2 * h] * sn
        out[..., h:2 * h] = x[..., h:2 * h] * c + x[..., :h] * sn
        return out

    np.testing.assert_allclose(got[0], rotate(q), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got[1], rotate(k), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(want["q"], got[0], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(want["k"], got[1], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("n,c,groups", [(1, 1, 1), (3, 35, 5), (17, 12, 4), (29, 21, 7)])
def test_buffer_over_a_scalar_axis(n, c, groups):
    rng = np.random.default_rng(n + c)
    x = rng.standard_normal((n, c)).astype(np.float32)
    y = np.zeros(n, np.float32)
    want = scalar_axis.run_interp(shapes={"N": n, "C": c}, scalars={"groups": groups}, inputs={"x": x})["y"]
    got = _torch(scalar_axis, [x, y], groups=groups)[1]
    ref = x.reshape(n, groups, c // groups).astype(np.float64).sum(2).max(1)
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(want, ref, rtol=1e-5, atol=1e-5)
