"""kir-monotone-reductions (MonotoneReductions.cpp): a maximum or minimum of a non-decreasing map of a row
is the map of the row's maximum or minimum, so `max(e / sum(e))` of softmax probabilities (corpus 178's
`p >= min_p * max(p)`) reads the row no more. Exact rewrites: against the KIR interpreter (the unrewritten
program) on the pgpu interpreter after the whole pipeline, shuffled order, two BLOCK bindings, and against
the generated Triton under TRITON_INTERPRET=1, at odd shapes (empty rows V = 0, B = 0 and 1, primes, not
multiples of any block), on random rows and rows holding +inf, NaN and all -inf; against NumPy on the
finite rows. A scale of unknown sign (`x / t` with a runtime t, negative here) must stay a reduction.
"""
import os
import re
import subprocess

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module
torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402


@tessel.kernel
def scaled_extrema(x: T.In[T.f32, ("B", "V")], out: T.Out[T.f32, ("B", "V")],
                   mp: T.Out[T.f32, ("B",)], mn: T.Out[T.f32, ("B",)], ms: T.Out[T.f32, ("B",)],
                   mt: T.Out[T.f32, ("B",)], me: T.Out[T.f32, ("B",)], t: T.f32, min_p: T.f32):
    B, V = x.shape
    cols = T.domain(0, V)
    for b in T.parallel(T.domain(0, B)):
        row = x[b, cols]
        z = row / t
        e = T.exp(z - T.max(z))
        p = e / T.sum(e)
        kept = T.where(p >= min_p * T.max(p), p, 0.0)
        out[b, cols] = kept / T.sum(kept)
        mp[b] = T.max(p)              # max(e) / sum(e), max(e) = exp(m - m) on a non-empty row
        mn[b] = T.min(row * 2.5)      # a positive constant scale: min(x) * 2.5
        ms[b] = T.max(row - 1.5)      # a finite shift
        mt[b] = T.max(row / t)        # t's sign is unknown: stays
        me[b] = T.max(T.exp(row))     # exp(max(x)), -inf on an empty row


OUTS = ("out", "mp", "mn", "ms", "mt", "me")
SHAPES = [dict(B=1, V=1), dict(B=3, V=0), dict(B=0, V=7), dict(B=4, V=2), dict(B=5, V=127),
          dict(B=3, V=1031), dict(B=2, V=4099)]
SHAPE_ID = lambda s: "-".join(f"{k}{v}" for k, v in s.items())  # noqa: E731


def make_rows(B, V, rng, special):
    x = (3.0 * rng.standard_normal((B, V))).astype(np.float32)
    if special and V:
        if B > 0:
            x[0, V // 2] = np.inf
        if B > 1:
            x[1, V // 3] = np.nan
        if B > 2:
            x[2, :] = -np.inf
    return x


def reference(x, t, min_p):
    xd = x.astype(np.float64)
    B, V = x.shape
    with np.errstate(all="ignore"):
        z = xd / t
        e = np.exp(z - (z.max(axis=1, keepdims=True) if V else 0.0))
        p = e / e.sum(axis=1, keepdims=True)
        pmax = p.max(axis=1, keepdims=True) if V else np.full((B, 1), -np.inf)
        kept = np.where(p >= min_p * pmax, p, 0.0)
        ext = lambda f, a, idn: f(a, axis=1) if V else np.full(B, idn)  # noqa: E731
        return {"out": kept / kept.sum(axis=1, keepdims=True), "mp": pmax[:, 0],
                "mn": ext(np.min, xd * 2.5, np.inf), "ms": ext(np.max, xd - 1.5, -np.inf),
                "mt": ext(np.max, xd / t, -np.inf), "me": ext(np.max, np.exp(xd), -np.inf)}


def run(tessel_bin, src, stage, shapes, x, scalars, tmp, params=None):
    out = tmp / f"{stage}-{'-'.join(f'{k}{v}' for k, v in (params or {}).items())}"
    np.save(tmp / "x.npy", x)
    args = [str(tessel_bin), "run", str(src), "--stage", stage, "--seed", "3", "--out", str(out),
            "--shape", ",".join(f"{k}={v}" for k, v in shapes.items()), "--in", f"x={tmp / 'x.npy'}"]
    args += [f"--scalar={k}={v!r}" for k, v in scalars.items()]
    if stage == "pgpu":
        args += ["--order", "shuffle", *[f"--param={k}={v}" for k, v in (params or {}).items()]]
    res = subprocess.run(args, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return {n: np.load(out / f"{n}.npy") for n in OUTS}


@pytest.mark.parametrize("special", [False, True], ids=["finite", "inf-nan"])
@pytest.mark.parametrize("shapes", SHAPES, ids=SHAPE_ID)
def test_pgpu_matches_kir(tessel_bin, tmp_path, shapes, special):
    src = tmp_path / "k.mlir"
    src.write_text(scaled_extrema.kir())
    x = make_rows(shapes["B"], shapes["V"], np.random.default_rng(shapes["V"] + 7), special)
    scalars = {"t": -0.7, "min_p": 0.05}
    ref = run(tessel_bin, src, "kir", shapes, x, scalars, tmp_path)
    if not special:
        want = reference(x, scalars["t"], scalars["min_p"])
        for n in OUTS:
            np.testing.assert_allclose(ref[n], want[n], rtol=1e-4, atol=1e-6, err_msg=f"kir {n}")
    for block in (64, 512):
        got = run(tessel_bin, src, "pgpu", shapes, x, scalars, tmp_path, {"BLOCK": block})
        for n in OUTS:
            # the extrema of x are exact (a maximum in any order, the rewrites exact); out and
            # mp = max(e) / sum(e) read sums that blocking reassociates
            np.testing.assert_allclose(got[n], ref[n], rtol=1e-5 if n in ("out", "mp") else 0, atol=0,
                                       err_msg=f"pgpu BLOCK={block} {n}")


@pytest.mark.parametrize("shapes", [dict(B=1, V=1), dict(B=3, V=0), dict(B=4, V=131), dict(B=3, V=1031)],
                         ids=SHAPE_ID)
def test_triton_matches_kir(shapes, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    B, V = shapes["B"], shapes["V"]
    x = make_rows(B, V, np.random.default_rng(V + 11), special=True)
    ref = scaled_extrema.run_interp(shapes, scalars={"t": -0.7, "min_p": 0.05}, inputs={"x": x})
    outs = {"out": torch.empty(B, V), **{n: torch.empty(B) for n in OUTS[1:]}}
    scaled_extrema(torch.from_numpy(x), **outs, t=-0.7, min_p=0.05)
    for n, v in outs.items():
        np.testing.assert_allclose(v.numpy(), ref[n], rtol=1e-5, atol=1e-7, err_msg=n)


def test_rewrite_removes_the_maxima_of_maps_but_the_unknown_sign(tessel_bin, tmp_path):
    src = tmp_path / "k.mlir"
    src.write_text(scaled_extrema.kir())
    before = src.read_text()
    res = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(src), "-kir-monotone-reductions"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    after = res.stdout
    # before: max z, sum e, max p (twice), sum kept, min(2.5 x), max(x - 1.5), max(x / t), max(exp x); after: max z,
    # the two sums, min x, max x (shared by the shift and the exponential), max(x / t)
    assert before.count("kir.reduce ") == 9 and after.count("kir.reduce ") == 6, after
    defs = dict(re.findall(r"(%\d+) = (kir\.\w+ \w* ?%\w+(?:, %\w+)?)", after))
    inputs = [defs.get(v, v) for v in re.findall(r"kir\.reduce (%\w+) ", after)]
    assert inputs.count("kir.load %x") == 2, inputs                   # min x and max x
    assert sum(i.startswith("kir.binary div") for i in inputs) == 2, inputs  # max z = max(x / t), max(x / t)
    assert not any(i.startswith("kir.unary exp") and "max" in i for i in inputs)
