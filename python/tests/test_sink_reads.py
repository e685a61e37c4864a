"""An epilogue's read made after the K loop (pgpu-sink-reads).

An in-place GEMM (corpus 360: c = alpha * A B + beta * c, c InOut) read its tile of c before the K loop
and held it live across every step beside the accumulator (a [128, 128] f32 tile: 64 more registers a
thread of 8 warps): construction realizes an in-place update's reads first. The read now stands after
the loop, at its first use, still before the store of c. The Triton spelling also fenced that read with a
CTA barrier inside the persistent tile walk (an earlier trip stored c), which kept Triton from pipelining
the K loop; a walk's trips are program instances of their own and need none. Differential: Triton under TRITON_INTERPRET=1
and the pgpu interpreter (shuffled program order) against the KIR interpreter on random non-zero inputs
at odd shapes (0, 1, primes, extents that are no multiple of any tile), with the unsplit and split-K
paths. The cases where it must not fire (a read the K loop itself uses, a read with a store of its view
before its first use) are lit's (pgpu-sink-reads.mlir)."""
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module
torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402

from conftest import kir_and_pgpu  # noqa: E402


@tessel.kernel
def gemm_inplace(a: T.In[T.f32, ("M", "K")], b: T.In[T.f32, ("K", "N")], c: T.InOut[T.f32, ("M", "N")],
                 alpha: T.f32, beta: T.f32):
    M, K = a.shape
    N = b.shape[1]
    rows, cols, ks = T.domain(0, M), T.domain(0, N), T.domain(0, K)
    c[rows, cols] = alpha * T.matmul(a[rows, ks], b[ks, cols], acc_dtype=T.f32) + beta * c[rows, cols]


@tessel.kernel
def gemm_update(a: T.In[T.f32, ("M", "K")], b: T.In[T.f32, ("K", "N")], c: T.InOut[T.f32, ("M", "N")]):
    # the same update with constant coefficients (the interpreters' runs draw no scalars)
    M, K = a.shape
    N = b.shape[1]
    rows, cols, ks = T.domain(0, M), T.domain(0, N), T.domain(0, K)
    c[rows, cols] = 0.75 * T.matmul(a[rows, ks], b[ks, cols], acc_dtype=T.f32) - 1.25 * c[rows, cols]


def _kernel_body(src, name):
    start = src.index(f"def _{name}_kernel(")
    return src[start:src.index("\n\n\n", start)]


def test_read_of_c_follows_the_k_loop():
    body = _kernel_body(gemm_inplace.source(params={"SPLIT_K": 1}), "gemm_inplace")
    dots = [i for i in range(len(body)) if body.startswith("tl.dot(", i)]
    desc = [ln.split(":")[0].split()[-1] for ln in body.splitlines() if ln.strip().startswith("# _desc") and ": c's" in ln]
    reads = [i for i in range(len(body)) if body.startswith("tl.load(c +", i) or
             any(body.startswith(f"{d}.load(", i) for d in desc)]
    assert dots and reads
    # each branch of the SPLIT_K switch reads c after its K loop's dot; none reads it before the switch
    assert min(reads) > min(dots), body
    assert min(reads) > body.index("if _G0:"), body


def test_persistent_walk_trips_need_no_barrier():
    # the tile walk's trips are program instances of their own: the read of c in one trip reads no
    # element another trip (or this one, before it) stored, so no CTA barrier stops Triton's pipelining
    body = _kernel_body(gemm_inplace.source(params={"SPLIT_K": 1, "PERSIST": 1}), "gemm_inplace")
    assert "flatten=True" in body
    unsplit = body[body.index("\n        else:"):]
    assert "tl.debug_barrier()" not in unsplit, unsplit


def test_remark_says_the_read_moved(tessel_bin, tmp_path):
    from conftest import opt_remarks
    err, _ = opt_remarks(tessel_bin, tmp_path, gemm_inplace, "--tessel-pipeline")
    assert "remark: pgpu-sink-reads: the read moves past the region op(s) before its first use" in err, err


SHAPES = [dict(M=0, N=3, K=5), dict(M=1, N=1, K=1), dict(M=3, N=7, K=0), dict(M=17, N=33, K=67),
          dict(M=37, N=19, K=131)]
BINDINGS = [{"TILE_0": 16, "TILE_1": 16, "TILE_K": 16, "SPLIT_K": 1},
            {"TILE_0": 16, "TILE_1": 32, "TILE_K": 16, "SPLIT_K": 4}]


def _inputs(s, rng):
    return dict(a=rng.standard_normal((s["M"], s["K"])).astype(np.float32),
                b=rng.standard_normal((s["K"], s["N"])).astype(np.float32),
                c=rng.standard_normal((s["M"], s["N"])).astype(np.float32))


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: ",".join(f"{k}={v}" for k, v in s.items()))
def test_inplace_gemm_agrees_with_the_interpreter(shape, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(sum(shape.values()))
    inputs = _inputs(shape, rng)
    alpha, beta = 0.75, -1.25
    want = gemm_inplace.run_interp(shapes={}, scalars=dict(alpha=alpha, beta=beta), inputs=inputs)["c"]
    np.testing.assert_allclose(want, alpha * (inputs["a"].astype(np.float64) @ inputs["b"]) + beta * inputs["c"],
                               rtol=1e-4, atol=1e-4)
    for params in [None, *BINDINGS]:
        c = torch.from_numpy(inputs["c"].copy())
        args = [torch.from_numpy(inputs["a"]), torch.from_numpy(inputs["b"]), c]
        if params is None:
            gemm_inplace(*args, alpha=alpha, beta=beta)
        else:
            gemm_inplace.launch(*args, alpha=alpha, beta=beta, params=params)
        np.testing.assert_allclose(c.numpy(), want, rtol=1e-4, atol=1e-4, err_msg=str(params))


@pytest.mark.parametrize("shape", [dict(M=1, N=1, K=1), dict(M=13, N=29, K=37)], ids=lambda s: str(s["K"]))
def test_pgpu_program_agrees_with_kir(shape, tessel_bin, tmp_path):
    for binding in ["smallest", {"SPLIT_K": 2}]:
        sub = tmp_path / ("smallest" if binding == "smallest" else "split")
        sub.mkdir()
        kir, pgpu, text = kir_and_pgpu(tessel_bin, sub, gemm_update, shape, 11, binding)
        assert "pgpu.contract" in text
        np.testing.assert_allclose(np.load(pgpu / "c.npy"), np.load(kir / "c.npy"), rtol=1e-5, atol=1e-5,
                                   err_msg=str(binding))
