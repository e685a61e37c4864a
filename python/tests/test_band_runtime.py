"""A sliding-window band whose width is a runtime scalar (issue 41 item 2): pgpu-narrow-fold-ranges
solves the user's `s - t < w` for the key coordinate (t > s - w), so the runtime width narrows the
key folds exactly as the Constexpr width of bench/attention_kernels.py's window_attention does, and
the Triton source shows the same interval split. The runtime kernel (runtime_window_attention, w a
T.i32 cast to index) is checked against the KIR interpreter through the generated Triton under
TRITON_INTERPRET=1 at odd shapes and widths (1, 5, 64, wider than the queries), one compiled kernel
for every width.
"""
import os
import re
import subprocess

import numpy as np
import pytest

from conftest import load_bench

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)

SOLVED = "; 1 predicate(s) solved for the tile coordinate"


def runtime_kernel(spelling, name):
    """The band with w a runtime scalar, spelled three ways: the suite's (w: T.i32 cast to index), w: T.index,
    and the difference of positions cast to i32 against w: T.i32."""
    import tessel
    import tessel.language as T
    ak = load_bench("attention_kernels")
    if spelling == "i32_to_index":
        return ak.runtime_window_attention(T.f16, name=name)
    wtype = T.index if spelling == "index" else T.i32

    @tessel.kernel(name=name, numerics="relaxed_normalization")
    def kernel(Q: T.In[T.f16, ("B", "H", "S", "D")], K: T.In[T.f16, ("B", "H", "T", "D")],
               V: T.In[T.f16, ("B", "H", "T", "D")], O: T.Out[T.f16, ("B", "H", "S", "D")],
               scale: T.f32, w: wtype):
        nb, nh, ns, nd = Q.shape

        @tessel.fn
        def summarize(k, v, kpos, q, s, sc, width):
            scores = T.contract(q, k, reduce=((0, 1),), acc_dtype=T.f32) * sc
            if spelling == "index":
                band = s - kpos < width
            else:
                band = T.cast(s - kpos, T.i32) < width
            return ak._summary(scores, (kpos <= s) & band, v)

        for b, h, s in T.parallel(T.domain(0, nb), T.domain(0, nh), T.domain(0, ns)):
            ak._attend(Q, K, V, O, T.f16, b, h, h, s, summarize, (s, scale, w))
    return kernel


def narrowing(tessel_bin, source):
    """pgpu-narrow-fold-ranges' remarks (the solved count left out) and the pgpu's loops."""
    res = subprocess.run([str(tessel_bin), "compile", str(source), "--emit=pgpu", "--remarks"], capture_output=True,
                         text=True)
    assert res.returncode == 0, res.stderr
    remarks = sorted(ln.split("remark: ", 1)[1].replace(SOLVED, "") for ln in res.stderr.splitlines()
                     if "pgpu-narrow-fold-ranges:" in ln)
    return remarks, res.stdout.count("pgpu.for"), res.stderr


def loops(src):
    return len(re.findall(r"^\s+for \w+ in (?:tl\.|gl\.)?(?:static_)?range\(", src, re.M))


@pytest.mark.parametrize("spelling", ["i32_to_index", "index", "i32_compare"])
def test_runtime_band_narrows_like_constexpr(tessel_bin, root, tmp_path, monkeypatch, spelling):
    import tessel.language as T
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    constexpr = load_bench("attention_kernels").window_attention(T.f16, name="band_constexpr")
    runtime = runtime_kernel(spelling, "band_runtime")
    want, want_loops, _ = narrowing(tessel_bin, constexpr._write(tmp_path, {"W": 64}))
    got, got_loops, stderr = narrowing(tessel_bin, runtime._write(tmp_path, {}))
    # Both key folds (the blocked one and the element-wise fallback's) split alike: two coordinate
    # predicates, the tail mask, both all-false ends skipped; the runtime one by a solved predicate.
    assert any("2 all-false interval(s) skipped" in r for r in want), want
    assert got == want, stderr
    assert SOLVED in stderr, stderr
    assert got_loops == want_loops
    # The serializer sees the narrowed folds: the Triton source has the constexpr spelling's loops.
    assert loops(runtime.source("triton", {})) == loops(constexpr.source("triton", {"W": 64}))


@pytest.fixture(scope="module")
def band(tmp_path_factory):
    """The runtime kernel and its one Triton launch function (compiled once, for every shape and width),
    at small tiles: the band crosses many tile boundaries."""
    mp = pytest.MonkeyPatch()
    mp.setenv("TESSEL_CACHE", str(tmp_path_factory.mktemp("cache")))
    kernel = runtime_kernel("i32_to_index", "band_triton")
    yield kernel, kernel._launcher({}, {"BLOCK_S": 16, "BLOCK_T": 16, "BLOCK_D": 16})
    mp.undo()


@pytest.mark.parametrize("S", [1, 67, 130])
@pytest.mark.parametrize("T_", [1, 67, 130])
def test_runtime_band_matches_kir_through_triton(band, S, T_):
    torch = pytest.importorskip("torch")
    kernel, launch = band
    shapes = {"B": 1, "H": 2, "S": S, "T": T_, "D": 16}
    for w in (1, 5, 64, S + 70):
        ref = kernel.run_interp(shapes, {"scale": 0.35, "w": w}, None, seed=3, segments="random")
        q, k, v = (torch.from_numpy(np.array(ref[f"{n}.in"])) for n in ("Q", "K", "V"))
        want = np.array(ref["O"]).astype(np.float64)
        # The KIR interpreter is the band as written: key t of query s iff t <= s and s - t < w.
        if T_ > 0 and S > 0:
            s, t = np.arange(S)[:, None], np.arange(T_)[None, :]
            visible = (t <= s) & (s - t < w)
            scores = np.einsum("bhsd,bhtd->bhst", q.double().numpy(), k.double().numpy()) * 0.35
            scores = np.where(visible, scores, -np.inf)
            p = np.exp(scores - np.where(visible.any(1)[:, None], scores.max(-1, keepdims=True), 0))
            p = np.where(visible, p, 0)
            o = np.einsum("bhst,bhtd->bhsd", p, v.double().numpy()) / np.maximum(p.sum(-1, keepdims=True), 1e-300)
            np.testing.assert_allclose(want, np.where(visible.any(1)[None, None, :, None], o, 0), rtol=5e-3,
                                       atol=5e-3, err_msg=f"KIR vs NumPy, w={w}")
        out = torch.full((1, 2, S, 16), float("nan"), dtype=torch.float16)
        launch(q, k, v, out, scale=0.35, w=w)
        np.testing.assert_allclose(out.double().numpy(), want, rtol=2e-3, atol=2e-3, err_msg=f"w={w}")
