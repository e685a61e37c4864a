"""A parallel member's statistics across programs in two phases (pgpu-split-member-reductions; seed 002 §4,
seed 000 §4.4): a member reduced over several axes (a channel's N x H) has its outer reduced range cut
into MEMBER_SPLITS slices (members past 16384 elements, where the device would be underfilled); the first phase sums the
slices of the mean, the second waits for them, merges them in slice order and sums its slice of the
squares about the mean; the member's last arrival merges and stores. Checked at odd shapes (empty, one
element, primes, non-multiples of every block) on random inputs against NumPy, the KIR interpreter, the
pgpu interpreter in forward and shuffled order at several MEMBER_SPLIT bindings, and Triton under
TRITON_INTERPRET=1 called twice (the second call starts from the counts the first returned to zero).
"""
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module
torch = pytest.importorskip("torch")

import tessel  # noqa: E402
from conftest import call_twice_against  # noqa: E402
from interp_cli import provider_program, row_variance_want, run_seeded  # noqa: E402
import interp_cli  # noqa: E402
import tessel.language as T  # noqa: E402

# must not be split: one reduced axis (the covering rule and the staged / packed row paths)
row_variance = interp_cli.row_variance()


@tessel.kernel
def channel_stats(x: T.In[T.f32, ("N", "C", "H")], var: T.Out[T.f32, ("C",)]):
    # reduced over a strided outer axis and an inner one (a batch norm's statistics)
    N, C, H = x.shape
    ns, hs = T.domain(0, N), T.domain(0, H)
    count = T.cast(N * H, T.f32)
    for c in T.parallel(T.domain(0, C)):
        t = x[ns, c, hs]
        mu = T.sum(t) / count
        var[c] = T.sum((t - mu) * (t - mu)) / count


row_sum_max = interp_cli.row_sum_max()  # must not be split: no reduction reads another (one phase)


def _want(kernel, ins):
    if kernel is row_variance:
        return row_variance_want(ins["x.in"])
    x = ins["x.in"].astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        n = x.shape[0] * x.shape[2]
        mu = x.sum(axis=(0, 2)) / n
        return {"var": ((x - mu[None, :, None]) ** 2).sum(axis=(0, 2)) / n}


# members of at most 16384 elements run unsplit (MEMBER_SPLITS = 1); the rest are split
CHANNELS = [dict(N=0, C=3, H=5), dict(N=1, C=1, H=1), dict(N=7, C=3, H=13), dict(N=7, C=3, H=2411),
            dict(N=2, C=1, H=8209), dict(N=3, C=2, H=5581)]
CASES = [(channel_stats, s) for s in CHANNELS]


def _run(tessel_bin, tmp_path, file, kernel, shape, order, split, stage=()):
    params = (f"MEMBER_SPLIT={split}",) if split else ()
    return run_seeded(tessel_bin, tmp_path, file, kernel, shape, order, params, stage)


@pytest.mark.parametrize("kernel,shape", CASES, ids=lambda c: getattr(c, "name", None) or
                         "-".join(f"{k}{v}" for k, v in c.items()))
def test_matches_numpy_and_interpreters(tessel_bin, tmp_path, kernel, shape):
    source, program = provider_program(tessel_bin, tmp_path, kernel)
    assert '"MEMBER_SPLIT"' in program.read_text()
    kir = _run(tessel_bin, tmp_path, source, kernel, shape, "forward", None, ("--stage", "kir"))
    for name, want in _want(kernel, kir).items():
        np.testing.assert_allclose(kir[name], want, rtol=1e-5, atol=1e-5, err_msg=name)
    for order, split in (("shuffle", None), ("forward", 2), ("shuffle", 1)):
        got = _run(tessel_bin, tmp_path, program, kernel, shape, order, split)
        for name in _want(kernel, kir):
            np.testing.assert_allclose(got[name], kir[name], rtol=1e-5, atol=1e-5, err_msg=f"{name} {order} {split}")


@pytest.mark.parametrize("kernel", [channel_stats], ids=lambda k: k.name)
def test_the_second_phase_waits_and_the_last_arrival_stores(tessel_bin, tmp_path, kernel):
    text = provider_program(tessel_bin, tmp_path, kernel)[1].read_text()
    head, last = text.split("pgpu.last_program", 1)
    assert "order acquire" in head and "order release" in head
    assert "pgpu.store" not in head.split("pgpu.execution_group", 1)[1]
    assert "pgpu.store" in last.split("} else {", 1)[0]


@pytest.mark.parametrize("kernel", [row_sum_max, row_variance], ids=lambda k: k.name)
def test_one_phase_or_one_axis_is_not_split(tessel_bin, tmp_path, kernel):
    # up to the row plans: a one-axis row's blocked path is split later (pgpu-split-row-walks)
    assert "MEMBER_SPLIT" not in provider_program(tessel_bin, tmp_path, kernel, "online-normalize")[1].read_text()


def _torch_inputs(kernel, shape, rng):
    if kernel is row_variance:
        x = rng.standard_normal((shape["R"], shape["N"])) * 3.0 + 5.0
        return [torch.from_numpy(x.astype(np.float32)), torch.zeros(shape["R"]), torch.zeros(shape["R"])]
    x = rng.standard_normal((shape["N"], shape["C"], shape["H"])) * 2.0 - 1.0
    return [torch.from_numpy(x.astype(np.float32)), torch.zeros(shape["C"])]


NAMES = {row_variance: ["x.in", "mean", "var"], channel_stats: ["x.in", "var"]}


@pytest.mark.parametrize("kernel,shape", [(channel_stats, dict(N=1, C=1, H=1)), (channel_stats, dict(N=5, C=3, H=3301))],
                         ids=lambda c: getattr(c, "name", None) or "-".join(f"{k}{v}" for k, v in c.items()))
def test_triton_twice_matches_numpy(kernel, shape, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(7)
    call_twice_against(kernel, lambda: _torch_inputs(kernel, shape, rng), NAMES[kernel],
                       lambda ins: _want(kernel, ins), rtol=1e-5, atol=1e-5)


@tessel.kernel
def group_norm_nhwc(x: T.In[T.f32, ("N", "H", "W", "C")], out: T.Out[T.f32, ("N", "H", "W", "C")], G: T.i32,
                    eps: T.f32):
    # three phases: the group's mean, its squares about the mean, then the normalized writes (the
    # workset) over the same nest, each phase's programs a slice of H; the group's channels clipped
    N, H, W, C = x.shape
    hs, ws, chans = T.domain(0, H), T.domain(0, W), T.domain(0, C)
    CG = C // T.cast(G, T.index)
    count = T.cast(H * W * CG, T.f32)
    for n, g in T.parallel(T.domain(0, N), T.domain(0, G)):
        mine = chans[g * CG:g * CG + CG]
        v = x[n, hs, ws, mine]
        mean = T.sum(v) / count
        d = v - mean
        out[n, hs, ws, mine] = d * T.rsqrt(T.sum(d * d) / count + eps)


def _group_norm_want(x, G, eps=1e-5):
    N, H, W, C = x.shape
    v = x.astype(np.float64).reshape(N, H, W, G, C // G)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = v.mean(axis=(1, 2, 4), keepdims=True)
        var = ((v - mean) ** 2).mean(axis=(1, 2, 4), keepdims=True)
        return ((v - mean) / np.sqrt(var + eps)).reshape(N, H, W, C)


GROUPS = [(dict(N=1, H=1, W=1, C=2), 2), (dict(N=2, H=7, W=5, C=12), 4), (dict(N=1, H=13, W=3, C=6), 3),
          (dict(N=3, H=0, W=2, C=4), 2)]


@pytest.mark.parametrize("shape,G", GROUPS, ids=lambda c: "-".join(f"{k}{v}" for k, v in c.items())
                         if isinstance(c, dict) else f"G{c}")
def test_three_phases_match_numpy_and_interpreters(tessel_bin, tmp_path, shape, G):
    source, program = provider_program(tessel_bin, tmp_path, group_norm_nhwc)
    text = program.read_text()
    assert '"MEMBER_SPLIT"' in text and text.count("pgpu.last_program") >= 1
    scalars = ("--scalar", f"G={G}", "--scalar", "eps=1e-5")
    kir = _run(tessel_bin, tmp_path, source, group_norm_nhwc, shape, "forward", None, ("--stage", "kir", *scalars))
    np.testing.assert_allclose(kir["out"], _group_norm_want(kir["x.in"], G), rtol=1e-4, atol=1e-4)
    for order, split in (("shuffle", None), ("forward", 2), ("reverse", 4), ("shuffle", 1)):
        got = _run(tessel_bin, tmp_path, program, group_norm_nhwc, shape, order, split, scalars)
        np.testing.assert_allclose(got["out"], kir["out"], rtol=1e-5, atol=1e-5, err_msg=f"{order} {split}")


@pytest.mark.skipif(not os.environ.get("TESSEL_DEEP"), reason="TESSEL_DEEP: the three phases under TRITON_INTERPRET "
                    "(about 20 s; corpus 235's CPU check covers them too)")
def test_three_phases_triton_twice_match_numpy(tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(11)
    x = (rng.standard_normal((1, 5, 3, 4)) * 2.0 + 0.5).astype(np.float32)  # 2 groups of 5 slices of H
    want = _group_norm_want(x, 2)
    for _ in range(2):  # the second call starts from the counts the first returned to 0
        out = torch.full(x.shape, float("nan"))
        group_norm_nhwc(torch.from_numpy(x), out, G=2, eps=1e-5)
        np.testing.assert_allclose(out.numpy(), want, rtol=1e-4, atol=1e-4)
