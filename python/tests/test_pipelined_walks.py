"""LOOP_STAGES (Triton.h, pipelinesWalk): a loop that walks a range in steps carrying a reduction's value
(a long row a block at a time, a column fold's row tiles, a split fold's segment, a blocked scan's
prefix), whose loads do not read the carries, is spelled `tl.range(..., num_stages=LOOP_STAGES)`, so
Triton's pipeliner copies its tiles LOOP_STAGES - 1 iterations ahead into shared memory; 1 spells it
`range` as before.

Differential: at extents 0, 1, primes and non-multiples of every block (walks of several full blocks
and a masked tail), the generated Triton under TRITON_INTERPRET=1 computes what the KIR interpreter
computes at LOOP_STAGES 1, 2 and 4 (and the declared default, 3). The tuner searches the parameter and
prunes bindings whose buffers overflow shared memory; a call's defaults lower it where a widened step
would; TESSEL_PARAMS pins it. Offline sm_90 compile (Triton 3.6): the walk's loads become async copies
into LOOP_STAGES - 1 buffers, the shared memory the resource model counts.
"""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)

import tessel
import tessel.language as T
from tessel import _tune
from tessel._kernel import pinned_params


@tessel.kernel
def col_sums(x: T.In[T.f32, ("R", "D")], out: T.Out[T.f32, ("D",)]):
    R, D = x.shape
    rows, dims = T.domain(0, R), T.domain(0, D)
    out[dims] = T.sum(x[rows, dims], axis=0)


@tessel.kernel
def row_lse(x: T.In[T.f32, ("M", "N")], lse: T.Out[T.f32, ("M",)]):
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        mx = T.max(x[m, cols])
        lse[m] = mx + T.log(T.sum(T.exp(x[m, cols] - mx)))


@tessel.kernel
def mse(p: T.In[T.f32, ("N",)], t: T.In[T.f32, ("N",)], loss: T.Out[T.f32, (1,)]):
    N = p.shape[0]
    i = T.domain(0, N)
    d = p[i] - t[i]
    loss[0] = T.sum(d * d) / T.cast(N, T.f32)


@tessel.kernel
def row_cumsum(x: T.In[T.f32, ("M", "N")], y: T.Out[T.f32, ("M", "N")]):
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        y[m, cols] = T.cumsum(x[m, cols])


@tessel.kernel
def channel_stats(x: T.In[T.f32, ("N", "C", "H", "W")], mean: T.Out[T.f32, ("C",)], var: T.Out[T.f32, ("C",)]):
    N, C, H, W = x.shape
    ns, hs, ws = T.domain(0, N), T.domain(0, H), T.domain(0, W)
    count = T.cast(N * H * W, T.f32)
    for c in T.parallel(T.domain(0, C)):
        t = x[ns, c, hs, ws]
        mu = T.sum(t) / count
        d = t - mu
        mean[c] = mu
        var[c] = T.sum(d * d) / count


# (kernel, shapes, the blocks that make each walk several iterations long)
CASES = [
    (col_sums, dict(R=0, D=5), dict(BLOCK_R=4, BLOCK_C=16)),
    (col_sums, dict(R=37, D=13), dict(BLOCK_R=4, BLOCK_C=16)),
    (col_sums, dict(R=131, D=33), dict(BLOCK_R=2, BLOCK_C=16, FOLD_SPLIT=4)),
    (row_lse, dict(M=1, N=1), dict(BLOCK=64)),
    (row_lse, dict(M=3, N=131), dict(BLOCK=64)),
    (row_lse, dict(M=2, N=257), dict(BLOCK=64, ROWS=1)),
    (mse, dict(N=0), dict(BLOCK=64)),
    (mse, dict(N=127), dict(BLOCK=64)),
    (mse, dict(N=1031), dict(BLOCK=64, FOLD_SPLIT=4)),
    (row_cumsum, dict(M=0, N=7), dict(BLOCK=64)),
    (row_cumsum, dict(M=3, N=131), dict(BLOCK=64)),
    (row_cumsum, dict(M=1, N=64), dict(BLOCK=64)),
]
IDS = [f"{k.name}-{'x'.join(map(str, s.values()))}" for k, s, _ in CASES]


def _walks(source: str, stages: int) -> list:
    return re.findall(rf"for v\d+ in tl\.range\([^\n]*, num_stages={stages}\):", source)


@pytest.mark.parametrize("kernel", [col_sums, row_lse, mse, row_cumsum], ids=lambda k: k.name)
def test_walks_take_loop_stages(kernel, tmp_path, monkeypatch):
    """Every such kernel declares LOOP_STAGES ([1, 2, 3, 4], default 3); its walks are spelled with it, and
    with 1 no loop asks Triton for a pipeline (the launch's own num_stages stays)."""
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    assert kernel._space({})["LOOP_STAGES"] == ([1, 2, 3, 4], 3)
    assert _walks(kernel.source(), 3) and _walks(kernel.source(params={"LOOP_STAGES": 4}), 4)
    one = kernel.source(params={"LOOP_STAGES": 1})
    assert not re.search(r"num_stages=\d+\):", one) and "num_stages=3)" in one


def test_walks_through_divided_lanes_default_to_one_stage(tmp_path, monkeypatch):
    """A flattened walk over several axes (a channel's N x H x W) addresses each lane through carried
    lane divisions (Resources.h readsDividedLanes): no contiguous pointers, so a pipeline would hold
    each stage's lane pointers in registers (112 / 165 / 201 a thread at 1 / 2 / 3 stages for 1024
    lanes at 4 warps, sm_90a ptxas). LOOP_STAGES keeps its candidates with default 1, and the call at
    corpus 53's shape keeps it; the walks are spelled `range`, and 3 still pipelines them."""
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("TESSEL_PARAMS", raising=False)
    assert channel_stats._space({})["LOOP_STAGES"] == ([1, 2, 3, 4], 1)
    assert not re.search(r"num_stages=\d+\):", channel_stats.source())
    assert _walks(channel_stats.source(params={"LOOP_STAGES": 3}), 3)
    meta = lambda *s: torch.empty(*s, device="meta")  # noqa: E731
    got = channel_stats.call_defaults(meta(32, 256, 56, 56), meta(256), meta(256))
    assert (got["BLOCK"], got["WARPS"], got["LOOP_STAGES"]) == (1024, 4, 1), got


@pytest.mark.parametrize("stages", [None, 3], ids=lambda s: f"stages{s}")
@pytest.mark.parametrize("shape", [(0, 2, 3, 5), (1, 1, 1, 1), (3, 5, 7, 11), (2, 3, 13, 17), (1, 2, 1, 4099)],
                         ids=lambda s: "x".join(map(str, s)))
def test_channel_stats_match_kir(shape, stages, tmp_path, monkeypatch):
    """Differential at odd extents (several 64-lane blocks and a masked tail; a split member at 4099):
    the unpipelined default and LOOP_STAGES = 3 compute what the KIR interpreter computes."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    n, c, h, w = shape
    rng = np.random.default_rng(n * 100 + c + h * w)
    x = (rng.uniform(-3, 3, (1, c, 1, 1)) + rng.uniform(0.5, 2, (1, c, 1, 1)) *
         rng.standard_normal(shape)).astype(np.float32)
    want = channel_stats.run_interp(shapes={}, inputs=dict(x=x))
    mean, var = torch.full((c,), float("nan")), torch.full((c,), float("nan"))
    params = dict(BLOCK=64, **({} if stages is None else {"LOOP_STAGES": stages}))
    channel_stats.launch(torch.from_numpy(x), mean, var, params=params)
    np.testing.assert_allclose(mean.numpy(), want["mean"], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(var.numpy(), want["var"], rtol=1e-5, atol=1e-5)


def test_not_declared_without_a_walk(tmp_path, monkeypatch):
    """Must not fire: an element-wise kernel (no loop) and a GEMM (its K loop feeds tl.dot, which the
    launch's num_stages pipelines) declare no LOOP_STAGES."""
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))

    @tessel.kernel
    def scaled(x: T.In[T.f32, ("N",)], y: T.Out[T.f32, ("N",)]):
        i = T.domain(0, x.shape[0])
        y[i] = 2.0 * x[i]

    @tessel.kernel
    def mm(a: T.In[T.f16, ("M", "K")], b: T.In[T.f16, ("K", "N")], c: T.Out[T.f32, ("M", "N")]):
        M, K = a.shape
        N = b.shape[1]
        rows, cols, ks = T.domain(0, M), T.domain(0, N), T.domain(0, K)
        c[rows, cols] = T.matmul(a[rows, ks], b[ks, cols])

    for k in (scaled, mm):
        assert "LOOP_STAGES" not in k._space({}) and "LOOP_STAGES" not in k.source()


@pytest.mark.parametrize("stages", [None, 1, 2, 4], ids=lambda s: f"stages{s}")
@pytest.mark.parametrize("kernel,shapes,blocks", CASES, ids=IDS)
def test_triton_matches_kir(kernel, shapes, blocks, stages, tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    ref = kernel.run_interp(shapes, seed=11)
    views = [p for p in kernel.params() if p.kind == "view"]
    args = [torch.from_numpy(np.array(ref[f"{p.name}.in"])) if f"{p.name}.in" in ref
            else torch.from_numpy(np.full_like(np.asarray(ref[p.name]), 7.0)) for p in views]
    params = dict(blocks, **({} if stages is None else {"LOOP_STAGES": stages}))
    kernel._launcher({}, params)(*args)
    for p, t in zip(views, args):
        if p.name in ref:
            np.testing.assert_allclose(t.numpy(), ref[p.name], rtol=1e-5, atol=1e-5, err_msg=p.name)


def test_tuner_searches_and_prunes_loop_stages():
    """The tuner's candidates carry LOOP_STAGES; a binding whose LOOP_STAGES - 1 row buffers overflow shared
    memory (32768 f32 lanes: 128 KiB a buffer of 232448 bytes) is pruned for it, one stage less is not."""
    space, default, viable, pruned = _tune.candidates(
        row_lse, {}, domain={"BLOCK": [32768], "ROWS": [1], "WARPS": [16], "STAGES": [3], "TMA": [0],
                             "MEMBER_SPLIT": [1]})
    assert space["LOOP_STAGES"] == ([1, 2, 3, 4], 3) and default["LOOP_STAGES"] == 3
    assert sorted(p["LOOP_STAGES"] for p in viable) == [1, 2, 3]  # the default is never pruned
    assert pruned == {"shared memory": 1}
    prune = row_lse._prune({})
    binding = {"BLOCK": 32768, "ROWS": 1, "WARPS": 16, "STAGES": 3, "TMA": 0}
    assert prune({**binding, "LOOP_STAGES": 3}) == "shared memory"
    assert prune({**binding, "LOOP_STAGES": 2}) is None
    assert prune({**binding, "BLOCK": 16384, "LOOP_STAGES": 4}) is None  # 3 x 64 KiB


def test_call_defaults_fit_the_widened_step(monkeypatch):
    """The call's blocks (covering the row: 4096, 8192 and 32768 f32 lanes) are chosen as if unpipelined;
    LOOP_STAGES then takes the deepest candidate whose buffers hold at most LOOP_BYTES_PER_SM (32 KiB)
    at 1024 rows (more programs than multiprocessors): 3 for 16 KiB blocks, 2 for 32 KiB, 1 for 128 KiB
    (one block already that much in flight, and two 128 KiB buffers would not even fit the shared
    memory). At 64 rows (64 programs on 132 multiprocessors, each alone on its own) each program holds
    the device's share, 32 KiB x 132 / 64 = 66 KiB, up to the deepest candidate: 4 for 16 KiB blocks
    (48 KiB), 3 for 32 KiB (64 KiB), still 1 for 128 KiB. TESSEL_PARAMS pins it."""
    torch = pytest.importorskip("torch")
    monkeypatch.delenv("TESSEL_PARAMS", raising=False)

    def defaults(n, m=1024):
        return row_lse.call_defaults(torch.empty(m, n, device="meta"), torch.empty(m, device="meta"))
    assert [(d["BLOCK"], d["LOOP_STAGES"]) for d in map(defaults, (3000, 6000, 30000))] == \
        [(4096, 3), (8192, 2), (32768, 1)]
    assert [(d["BLOCK"], d["LOOP_STAGES"]) for d in (defaults(n, 64) for n in (3000, 6000, 30000))] == \
        [(4096, 4), (8192, 3), (32768, 1)]
    monkeypatch.setenv("TESSEL_PARAMS", "LOOP_STAGES=4, UNDECLARED_ELSEWHERE=8")
    assert defaults(3000)["LOOP_STAGES"] == 4


def test_pins_are_checked(monkeypatch):
    space = {"LOOP_STAGES": ([1, 2, 3, 4], 3)}
    monkeypatch.setenv("TESSEL_PARAMS", "LOOP_STAGES=5")
    with pytest.raises(ValueError, match=r"TESSEL_PARAMS: LOOP_STAGES=5 is not one of its candidates"):
        pinned_params(space)
    monkeypatch.setenv("TESSEL_PARAMS", "LOOP_STAGES")
    with pytest.raises(ValueError, match=r"is not NAME=INTEGER"):
        pinned_params(space)
    monkeypatch.setenv("TESSEL_PARAMS", "")
    assert pinned_params(space) == {}


COMPILE = """
import inspect, sys
sys.path.insert(0, sys.argv[1])
import triton, gen
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
jit = gen._mse_kernel
signature, constexprs, attrs = {}, {}, {}
for i, p in enumerate(inspect.signature(jit.fn).parameters.values()):
    if p.name.startswith("_G"):
        signature[p.name], constexprs[p.name] = "constexpr", True  # the split fold's path
    elif p.name.endswith("stride0"):
        signature[p.name], constexprs[p.name] = "constexpr", 1  # contiguous views (Triton specializes 1)
    elif p.name in ("p", "t", "loss") or p.name.startswith("arg"):
        signature[p.name] = "*i32" if p.name == "arg4" else "*fp32"
        attrs[(i,)] = [["tt.divisibility", 16]]
    else:
        signature[p.name] = "i32"
out = triton.compile(ASTSource(fn=jit, signature=signature, constexprs=constexprs, attrs=attrs),
                     target=GPUTarget("cuda", 90, 32), options={"num_warps": 2, "num_stages": 3})
print("copies", out.asm["ttgir"].count("ttg.async_copy_global_to_local"), "shared", out.metadata.shared)
"""


@pytest.mark.parametrize("stages", [1, 3, 4])
def test_sm90_pipelines_the_walk(tmp_path, monkeypatch, stages):
    """Offline sm_90 compile (no GPU): at LOOP_STAGES > 1 the split fold's two 512-float loads become
    cp.async copies into LOOP_STAGES - 1 buffers each, the shared memory `mse_PRUNE` counts; at 1 none."""
    pytest.importorskip("triton.backends.nvidia")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    params = {"BLOCK": 512, "FOLD_SPLIT": 64, "WARPS": 2, "LOOP_STAGES": stages}
    (tmp_path / "gen.py").write_text(mse.source(params=params))
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    r = subprocess.run([sys.executable, "-c", COMPILE, str(tmp_path)], capture_output=True, text=True, env=env,
                       timeout=300)
    if r.returncode and "ptxas" in r.stderr and "not found" in r.stderr:
        pytest.skip("no ptxas for the CUDA backend here")
    assert r.returncode == 0, r.stderr[-3000:]
    copies, shared = map(int, re.fullmatch(r"copies (\d+) shared (\d+)\s*", r.stdout).groups())
    model = 2 * 4 * 512 * (stages - 1)
    if stages == 1:
        assert copies == 0 and shared < 64
    else:
        assert copies > 0 and shared == model
