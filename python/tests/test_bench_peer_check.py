"""bench/corpus.py's check against the peer at the bench shape: floats within the tolerance, integers
exactly except one-step flips at near-ties of the file's declared value before rounding (TIE_ULPS)."""
import importlib.util
import pathlib
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench" / "corpus"))
import _harness as H  # noqa: E402

_spec = importlib.util.spec_from_file_location("bench_corpus", ROOT / "bench" / "corpus.py")
C = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(C)

EXACT = dict(rtol=0.0, atol=0.0)


def _t(a, dtype=torch.int8):
    return torch.tensor(np.asarray(a)).to(dtype)


def test_a_flip_at_a_near_tie_passes_and_is_counted():
    u = np.array([63.5, -63.5, 63.5 + 2e-6, 2.5, 10.2, -0.5], np.float64)
    ours = _t([63, -63, 63, 2, 10, 0])
    peer = _t([64, -64, 64, 3, 10, -1])
    msg, flips = C._close(ours, peer, EXACT, u)
    assert msg is None and flips == 5


def test_a_flip_away_from_a_tie_fails():
    u = np.array([63.4, 10.0], np.float64)   # 0.1 from the tie: no f32 rounding moves it there
    msg, flips = C._close(_t([63, 10]), _t([64, 10]), EXACT, u)
    assert msg is not None and "1 of 2 differ" in msg and flips == 0


def test_two_steps_or_the_wrong_neighbours_fail():
    u = np.array([63.5, 63.5], np.float64)
    msg, _ = C._close(_t([62, 63]), _t([64, 63]), EXACT, u)      # two steps apart
    assert msg is not None and "first at (0,)" in msg
    msg, _ = C._close(_t([64, 65]), _t([64, 64]), EXACT, u)      # 64 and 65 do not straddle 63.5
    assert msg is not None and "first at (1,)" in msg


def test_the_tie_window_scales_with_the_value():
    # 32 f32 ulps: at |u| ~ 64 an ulp is 2**-17, at |u| ~ 1 it is 2**-23
    at64 = 63.5 + 31 * 2.0 ** -18           # inside: 15.5 ulps of [32, 64)
    at1 = 0.5 + 64 * 2.0 ** -24             # outside: 64 ulps of [0.5, 1) (2**-24 each) > 32
    msg, flips = C._close(_t([63, 0]), _t([64, 1]), EXACT, np.array([at64, at1]))
    assert flips == 1 and msg is not None and "first at (1,)" in msg


def test_without_a_declared_value_integers_stay_exact():
    msg, flips = C._close(_t([63]), _t([64]), EXACT, None)
    assert msg is not None and flips == 0


def test_float_outputs_ignore_the_rule():
    u = np.array([63.5], np.float64)
    g, w = torch.tensor([63.0]), torch.tensor([64.0])
    msg, flips = C._close(g, w, dict(rtol=1e-6, atol=1e-6), u)
    assert msg is not None and flips == 0


@pytest.mark.parametrize("n", [1, 127, 4099])  # at 127 one row's scales differ: 6 ties part
def test_reciprocal_scales_round_apart_only_at_ties(n):
    """torch divides by a CPU scalar as a multiply by its reciprocal (s = amax * (1/127)); the reference
    divides (amax / 127). Rows of random values, a quarter of them placed at ties k + 1/2 of the
    reference's scale: where the two f32 scales differ, the two roundings part at those ties, and the rule
    lets exactly those pass."""
    rng = np.random.default_rng(n)
    x = (rng.standard_normal((64, n)) * np.exp(rng.uniform(-2, 2, (64, 1)))).astype(np.float32)
    amax = np.abs(x).max(axis=1, keepdims=True)
    s_div = (amax / np.float32(127.0)).astype(np.float32)
    s_mul = (amax * (np.float32(1.0) / np.float32(127.0))).astype(np.float32)
    at = rng.random(x.shape) < 0.25
    k = rng.integers(-126, 126, x.shape).astype(np.float32)
    x = np.where(at & (np.abs(x) < amax), ((k + np.float32(0.5)) * s_div).astype(np.float32), x)
    ours = np.rint(x / s_div).astype(np.int8)
    peer = np.rint(x / s_mul).astype(np.int8)
    u = (x / s_div).astype(np.float64)
    msg, flips = C._close(_t(ours), _t(peer), EXACT, u)
    assert msg is None and flips == int((ours != peer).sum())
    if n > 1 and (s_div != s_mul).any():
        assert flips > 0, "the scales differ on some rows: their ties round apart"
    msg, _ = C._close(_t(ours), _t(peer), EXACT, None)
    assert (msg is None) == (flips == 0)


@pytest.mark.parametrize("name", ["66_kv_cache_int8_append", "77_rmsnorm_int8_quant", "103_block_absmax_quant"])
def test_declared_values_round_to_the_reference(name):
    """Each file's UNROUNDED value, rounded to nearest even, is the reference's output (the values lie in
    [-127, 127], so the reference's clamp changes none): the rule looks at the reference's own value."""
    mod = H.load(name)
    for i, shape in enumerate(mod.TEST_SHAPES):
        inputs = H.draw(mod, shape, seed=i)
        want = H.expected(mod, inputs)
        for out, fn in mod.UNROUNDED.items():
            u = np.asarray(fn(**inputs), np.float64)
            assert u.shape == want[out].shape
            got = np.rint(u).astype(want[out].dtype)
            np.testing.assert_array_equal(got, want[out], err_msg=f"{name} at {shape}")
