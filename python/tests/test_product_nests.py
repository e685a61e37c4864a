"""pgpu-form-blocking over perfect nests: a reduction (or a stored tile) over several axes is one loop
over their product space, its members' coordinates recovered with div/rem, so a block fills BLOCK
lanes however short each axis is (GroupNorm's channels x rows x columns: before, nested scalar loops
with a 512-wide tile over the 64 columns).

Differential: at extents 1, primes and non-multiples of every block (products below, at and above
BLOCK, so both the staged single-block path and the loops run), the pgpu interpreter and the generated
Triton under TRITON_INTERPRET=1 compute what the KIR interpreter computes.
"""
import os
import subprocess
import tempfile

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)

import tessel
import tessel.language as T


@tessel.kernel
def group_stats(x: T.In[T.f32, ("N", "C", "H", "W")], w: T.In[T.f32, ("C",)],
                y: T.Out[T.f32, ("N", "C", "H", "W")], eps: T.f32, G: T.Constexpr[int] = 2):
    N, C, H, W = x.shape
    cpg = C // G
    chans = T.domain(0, C)
    hs = T.domain(0, H)
    ws = T.domain(0, W)
    for n, g in T.parallel(T.domain(0, N), T.domain(0, G)):
        cs = chans[g * cpg:(g + 1) * cpg]
        t = x[n, cs, hs, ws]
        count = T.cast(cpg * H * W, T.f32)
        mean = T.sum(t) / count
        d = t - mean
        rstd = T.rsqrt(T.sum(d * d) / count + eps)
        scale = T.broadcast(w[cs], over=(cs, hs, ws), dims=[0])
        y[n, cs, hs, ws] = d * rstd * scale


@tessel.kernel
def plane_max(x: T.In[T.f32, ("N", "H", "W")], m: T.Out[T.f32, ("N",)], z: T.Out[T.f32, ("N", "H", "W")]):
    N, H, W = x.shape
    hs = T.domain(0, H)
    ws = T.domain(0, W)
    for n in T.parallel(T.domain(0, N)):
        t = x[n, hs, ws]
        top = T.max(t)
        m[n] = top
        z[n, hs, ws] = t - top


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


CASES = [
    (group_stats, {"N": 1, "C": 2, "H": 1, "W": 1}, {"eps": 1e-5}, {"G": 2}),
    (group_stats, {"N": 2, "C": 6, "H": 5, "W": 7}, {"eps": 1e-5}, {"G": 2}),     # 3*5*7 = 105 > 64
    (group_stats, {"N": 3, "C": 9, "H": 7, "W": 13}, {"eps": 1e-5}, {"G": 3}),    # 273, W prime
    (group_stats, {"N": 1, "C": 2, "H": 2, "W": 31}, {"eps": 1e-5}, {"G": 2}),    # 62 <= 64: one block
    (group_stats, {"N": 2, "C": 4, "H": 0, "W": 3}, {"eps": 1e-5}, {"G": 2}),     # empty planes
    # a channel's (n, h, w) over NCHW: the lanes' coordinates carried across blocks of 64 and 128
    (channel_stats, {"N": 1, "C": 1, "H": 1, "W": 1}, {}, {}),
    (channel_stats, {"N": 3, "C": 2, "H": 7, "W": 11}, {}, {}),     # 231: W and H prime, W < 64
    (channel_stats, {"N": 5, "C": 3, "H": 1, "W": 131}, {}, {}),    # W prime and past both blocks
    (channel_stats, {"N": 7, "C": 1, "H": 3, "W": 1}, {}, {}),      # W = 1: every lane carries
    (channel_stats, {"N": 2, "C": 2, "H": 67, "W": 2}, {}, {}),     # H * W = 134 past both blocks
    (plane_max, {"N": 1, "H": 1, "W": 1}, {}, {}),
    (plane_max, {"N": 3, "H": 11, "W": 13}, {}, {}),
    (plane_max, {"N": 2, "H": 67, "W": 3}, {}, {}),
    (plane_max, {"N": 2, "H": 1, "W": 129}, {}, {}),
]
IDS = [f"{k.name}-{'-'.join(f'{a}{v}' for a, v in s.items())}" for k, s, _, _ in CASES]


def run_cli(tessel_bin, kernel, constexprs, shapes, scalars, stage, params):
    with tempfile.TemporaryDirectory() as tmp:
        path = kernel._write(__import__("pathlib").Path(tmp), constexprs)
        out = os.path.join(tmp, "out")
        cmd = [str(tessel_bin), "run", f"{path}:{kernel.name}", "--stage", stage, "--seed", "5", "--out", out,
               "--shape", ",".join(f"{k}={v}" for k, v in shapes.items())]
        cmd += [f"--scalar={k}={v}" for k, v in scalars.items()]
        cmd += [f"--param={k}={v}" for k, v in params.items()]
        res = subprocess.run(cmd, capture_output=True, text=True)
        assert res.returncode == 0, f"{' '.join(cmd)}\n{res.stderr}"
        return {p[:-4]: np.load(os.path.join(out, p)) for p in os.listdir(out)}


@pytest.mark.parametrize("block", [64, 128])
@pytest.mark.parametrize("kernel,shapes,scalars,constexprs", CASES, ids=IDS)
def test_pgpu_matches_kir(tessel_bin, kernel, shapes, scalars, constexprs, block):
    ref = run_cli(tessel_bin, kernel, constexprs, shapes, scalars, "kir", {})
    got = run_cli(tessel_bin, kernel, constexprs, shapes, scalars, "pgpu", {"BLOCK": block})
    assert ref.keys() == got.keys()
    for name in ref:
        np.testing.assert_allclose(got[name], ref[name], rtol=1e-5, atol=1e-5, err_msg=name)


@pytest.mark.parametrize("kernel,shapes,scalars,constexprs", CASES, ids=IDS)
def test_triton_matches_kir(kernel, shapes, scalars, constexprs, tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    ref = kernel.run_interp(shapes, scalars=scalars, constexprs=constexprs, seed=5)
    views = [p for p in kernel.params() if p.kind == "view"]
    args = [torch.from_numpy(np.array(ref[f"{p.name}.in"])) if f"{p.name}.in" in ref
            else torch.empty(ref[p.name].shape, dtype=torch.float32) for p in views]
    kernel._launcher(constexprs, {"BLOCK": 64})(*args, **scalars)
    for p, t in zip(views, args):
        if p.name in ref:
            np.testing.assert_allclose(t.numpy(), ref[p.name], rtol=1e-5, atol=1e-5, err_msg=p.name)


def test_one_loop_over_the_product(tessel_bin):
    """The generated Triton reduces a group with one loop over its members (div/rem coordinates), not
    nested loops over channels and rows around a tile of columns."""
    src = group_stats.source("triton", constexprs={"G": 2})
    body = src[src.index("def _group_stats_kernel"):]
    body = body[:body.index("\n\n\n")]
    loops = [ln.strip() for ln in body.splitlines() if ln.strip().startswith("for ")]
    # the staged path (one block) and, past it, each of the three passes' full and tail loops
    assert len(loops) == 6, loops
    assert all("range(0, 1, 1)" not in ln for ln in loops)
    assert " % " in body and " // " in body


def test_lane_coordinates_carried():
    """In the blocked loop over a flattened (n, h, w) the lanes' coordinates are carried from one
    scalar division a block (b / P, b % P) and the lanes' own quotients computed once before the loop:
    no division of an index fragment inside a loop (two per lane and block before, which dominated the
    per-channel statistics of NCHW, corpus 53)."""
    text = channel_stats.pgpu()
    regions, inside = [], []  # whether each open region is a pgpu.for's
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("}"):
            regions.pop()
        if any(regions) and ("pgpu.binary div" in s or "pgpu.binary rem" in s):
            inside.append(s)
        if s.endswith("{"):
            regions.append("pgpu.for " in s)
    assert inside and all(s.endswith(": index") for s in inside), inside


def test_lane_coordinates_bound_the_step():
    """The carried lane coordinates (six i32 vectors of BLOCK lanes in channel_stats' walk, live across
    each loop) count against a thread's registers (Resources.cpp, dividedLanes): the call no longer grows
    BLOCK to 8192 at 8 warps (255 registers, 1276 bytes of spill stores a thread in sm_90a ptxas, corpus
    53 at its bench shape) but stops at 8 lanes a thread; the binding it takes computes what the KIR
    interpreter computes (Triton under TRITON_INTERPRET=1, both loops and the tail block)."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    x = torch.empty((32, 256, 56, 56), device="meta")
    got = channel_stats.call_defaults(x, torch.empty(256, device="meta"), torch.empty(256, device="meta"))
    assert got["BLOCK"] // (32 * got["WARPS"]) <= 8, got
    assert (got["BLOCK"], got["WARPS"]) == (1024, 4), got
    shapes = {"N": 3, "C": 2, "H": 37, "W": 29}  # 3219 members: three full blocks of 1024 and a tail
    ref = channel_stats.run_interp(shapes, seed=5)
    args = [torch.from_numpy(np.array(ref["x.in"])), torch.empty(2), torch.empty(2)]
    channel_stats._launcher({}, {"BLOCK": got["BLOCK"]})(*args)
    np.testing.assert_allclose(args[1].numpy(), ref["mean"], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(args[2].numpy(), ref["var"], rtol=1e-5, atol=1e-5)
