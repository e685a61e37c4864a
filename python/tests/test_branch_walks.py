"""Per-member work holding an author's `if` (pgpu-refine-mapping takes BLOCK_P members a program,
pgpu-form-blocking if-converts the branch: both branches run on a block of lanes, each branch's reads
and writes masked by its lanes' condition, each result a select):

  * bench/corpus/357's Welford merge: a walk over each row's chunks carrying (n, mean, m2), a chunk merged
    only where its count is positive. Was one program a row walking its chunks with scalar loads (65536
    latency-bound programs at the bench shape); now BLOCK_P rows a program, the carries [BLOCK_P];
  * an element-wise if in a parallel loop writing different views in each branch (was one element a
    program);
  * a walk whose branch reads a value every lane shares through an index read per member (w[k[i]]):
    read only for the lanes taking the branch;
  * an atomic count under a member's if: its scatter-reduce masked by the lanes taking the branch;

each against its NumPy reference on the KIR interpreter, on the pgpu interpreter after the whole shared
pipeline (`tessel run --stage pgpu`, shuffled program order) at two bindings of BLOCK_P, and the generated
Triton under TRITON_INTERPRET=1, on random non-zero inputs at odd shapes (empty, one, primes, extents no
block size divides).
"""
import os
import tempfile

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402
from conftest import corpus, compiled_pgpu, run_stage  # noqa: E402


@tessel.kernel
def sign_split(x: T.In[T.f32, ("N",)], pos: T.Out[T.f32, ("N",)], neg: T.Out[T.f32, ("N",)]):
    N, = x.shape
    for i in T.parallel(T.domain(0, N)):
        v = x[i]
        if v > 0.0:
            pos[i] = v * 2.0
            neg[i] = 0.0
        else:
            pos[i] = 0.0
            neg[i] = -v


def sign_split_reference(x):
    return dict(pos=np.where(x > 0, 2 * x, 0), neg=np.where(x > 0, 0, -x))


@tessel.kernel
def gated_walk(k: T.In[T.i32, ("N",)], w: T.In[T.f32, ("K",)], x: T.In[T.f32, ("N", "P")],
               y: T.Out[T.f32, ("N",)]):
    N, P = x.shape
    for i in T.parallel(T.domain(0, N)):
        acc = T.f32(0.0)
        for p in T.domain(0, P):
            v = x[i, p]
            if v > acc:
                acc = acc + v * w[k[i]]
            else:
                acc = acc * 0.5
        y[i] = acc


def gated_walk_reference(k, w, x):
    y = np.zeros(x.shape[0], np.float32)
    for i in range(x.shape[0]):
        acc = np.float32(0)
        for v in x[i]:
            acc = np.float32(acc + v * w[k[i]]) if v > acc else np.float32(acc * np.float32(0.5))
        y[i] = acc
    return dict(y=y)


WELFORD_SHAPES = [dict(R=0, P=3), dict(R=1, P=1), dict(R=13, P=7), dict(R=67, P=64), dict(R=131, P=131)]


@pytest.mark.parametrize("shape", WELFORD_SHAPES, ids=[f"R{s['R']}P{s['P']}" for s in WELFORD_SHAPES])
def test_welford_merge_matches_reference(tessel_bin, root, shape):
    mod = corpus(root, "357_welford_merge")
    inputs = mod.inputs(shape, np.random.default_rng(shape["R"] * 7 + shape["P"]))
    want = mod.reference(**inputs)
    with tempfile.TemporaryDirectory() as tmp:
        out = run_stage(tessel_bin, mod.KERNEL, "kir", shape, inputs, tmp)
        for name, ref in want.items():
            np.testing.assert_allclose(np.load(out / f"{name}.npy"), ref, **mod.TOLERANCE, err_msg=f"kir {name}")
        # Several programs with a partial last block, and one program holding every row.
        for block_p in (16, 1024):
            out = run_stage(tessel_bin, mod.KERNEL, "pgpu", shape, inputs, tmp, {"BLOCK_P": block_p})
            for name, ref in want.items():
                np.testing.assert_allclose(np.load(out / f"{name}.npy"), ref, **mod.TOLERANCE,
                                           err_msg=f"pgpu BLOCK_P={block_p} {name}")
    if shape["R"] * shape["P"] > 64 * 64:
        return  # TRITON_INTERPRET at the smaller shapes keeps the default tier cheap
    import torch
    outs = {n: torch.full((shape["R"],), float("nan")) for n in want}
    mod.KERNEL(*(torch.from_numpy(inputs[n]) for n in ("count", "mean", "m2")), outs["out_mean"], outs["out_var"])
    for name, ref in want.items():
        np.testing.assert_allclose(outs[name].numpy(), ref, **mod.TOLERANCE, err_msg=f"triton {name}")


def test_welford_merge_walks_a_block_of_rows(tessel_bin, root):
    """BLOCK_P rows a program (the ordered walk's BLOCK_P domain), the chunk loop carrying [BLOCK_P]
    fragments, no pgpu.if left, the merged chunk's reads masked by the rows whose count is positive."""
    text = compiled_pgpu(tessel_bin, corpus(root, "357_welford_merge").KERNEL)
    assert '#pgpu.param<"BLOCK_P", [16, 32, 64, 128, 256, 512, 1024], 64>' in text, text
    assert "pgpu.if" not in text, text
    loops = [ln for ln in text.splitlines() if "pgpu.for" in ln and "iter_args" in ln]
    assert loops and all(ln.count("!pgpu.fragment<f32, [BLOCK_P]>") >= 3 for ln in loops), loops
    reads = [ln for ln in text.splitlines() if "pgpu.load %mean[" in ln or "pgpu.load %m2[" in ln]
    assert reads and all("-> !pgpu.fragment<f32, [BLOCK_P]>" in ln for ln in reads), reads


SIGN_SHAPES = [dict(N=0), dict(N=1), dict(N=257), dict(N=4099)]


@pytest.mark.parametrize("shape", SIGN_SHAPES, ids=[f"N{s['N']}" for s in SIGN_SHAPES])
def test_elementwise_branch_matches_reference(tessel_bin, shape):
    x = np.random.default_rng(shape["N"]).standard_normal(shape["N"]).astype(np.float32)
    x[x == 0] = 1.0
    want = sign_split_reference(x)
    with tempfile.TemporaryDirectory() as tmp:
        out = run_stage(tessel_bin, sign_split, "kir", shape, dict(x=x), tmp)
        for name, ref in want.items():
            np.testing.assert_allclose(np.load(out / f"{name}.npy"), ref, err_msg=f"kir {name}")
        for block_p in (256, 4096):
            out = run_stage(tessel_bin, sign_split, "pgpu", shape, dict(x=x), tmp, {"BLOCK_P": block_p})
            for name, ref in want.items():
                np.testing.assert_allclose(np.load(out / f"{name}.npy"), ref, err_msg=f"pgpu {block_p} {name}")
    import torch
    pos, neg = torch.full((shape["N"],), float("nan")), torch.full((shape["N"],), float("nan"))
    sign_split(torch.from_numpy(x), pos, neg)
    np.testing.assert_allclose(pos.numpy(), want["pos"], err_msg="triton pos")
    np.testing.assert_allclose(neg.numpy(), want["neg"], err_msg="triton neg")


def test_elementwise_branch_is_blocked(tessel_bin):
    """Was one element a program (the if was control refine-mapping kept whole): now BLOCK_P members a
    program in [BLOCK] fragments, both views' stores masked."""
    text = compiled_pgpu(tessel_bin, sign_split)
    assert '"BLOCK_P", [256, 512, 1024, 2048, 4096], 2048>' in text, text
    assert "pgpu.if" not in text, text
    stores = [ln for ln in text.splitlines() if "pgpu.store" in ln]
    assert stores and all("!pgpu.fragment<f32, [BLOCK]>, !pgpu.view" in ln for ln in stores), stores


GATED_SHAPES = [dict(N=0, P=2, K=3), dict(N=1, P=1, K=1), dict(N=37, P=5, K=7), dict(N=131, P=3, K=2)]


@pytest.mark.parametrize("shape", GATED_SHAPES, ids=[f"N{s['N']}P{s['P']}K{s['K']}" for s in GATED_SHAPES])
def test_branch_with_indexed_read_matches_reference(tessel_bin, shape):
    rng = np.random.default_rng(shape["N"] + 11 * shape["P"])
    inputs = dict(k=rng.integers(0, shape["K"], shape["N"]).astype(np.int32),
                  w=rng.uniform(0.5, 1.5, shape["K"]).astype(np.float32),
                  x=rng.standard_normal((shape["N"], shape["P"])).astype(np.float32))
    want = gated_walk_reference(**inputs)["y"]
    with tempfile.TemporaryDirectory() as tmp:
        got = np.load(run_stage(tessel_bin, gated_walk, "kir", shape, inputs, tmp) / "y.npy")
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg="kir")
        for block_p in (16, 1024):
            got = np.load(run_stage(tessel_bin, gated_walk, "pgpu", shape, inputs, tmp, {"BLOCK_P": block_p})
                          / "y.npy")
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=f"pgpu BLOCK_P={block_p}")
    import torch
    y = torch.full((shape["N"],), float("nan"))
    gated_walk(*(torch.from_numpy(inputs[n]) for n in ("k", "w", "x")), y)
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-5, atol=1e-6, err_msg="triton")


@tessel.kernel
def count_positive(x: T.In[T.f32, ("N",)], cnt: T.InOut[T.i32, ("K",)]):
    N, = x.shape
    for i in T.parallel(T.domain(0, N)):
        if x[i] > 0.0:
            T.atomic_add(cnt, (0,), T.i32(1))


@pytest.mark.parametrize("n", [0, 1, 257, 3001])
def test_guarded_atomic_counts_the_taken_lanes(tessel_bin, n):
    """An atomic under a member's if (was one element a program): blocked, its scatter-reduce masked by
    the lanes whose condition holds, so each counts once."""
    x = np.random.default_rng(n).standard_normal(n).astype(np.float32)
    cnt = np.array([5, 7], np.int32)
    want = np.array([5 + int((x > 0).sum()), 7], np.int32)
    with tempfile.TemporaryDirectory() as tmp:
        got = np.load(run_stage(tessel_bin, count_positive, "kir", dict(N=n, K=2), dict(x=x, cnt=cnt), tmp)
                      / "cnt.npy")
        np.testing.assert_array_equal(got, want, err_msg="kir")
        for block_p in (1024, 4096):  # its domain: the counts are privatized per program (a histogram)
            got = np.load(run_stage(tessel_bin, count_positive, "pgpu", dict(N=n, K=2), dict(x=x, cnt=cnt), tmp,
                                    {"BLOCK_P": block_p}) / "cnt.npy")
            np.testing.assert_array_equal(got, want, err_msg=f"pgpu BLOCK_P={block_p}")
    import torch
    c = torch.from_numpy(cnt.copy())
    count_positive(torch.from_numpy(x), c)
    np.testing.assert_array_equal(c.numpy(), want, err_msg="triton")
