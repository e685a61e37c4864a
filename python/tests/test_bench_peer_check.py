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


def _quant_120_inputs(M, G, seed):
    """120_int4_group_quant's inputs at [M, 128 G] (bf16 values: exact ties k + 1/2 are common)."""
    mod = H.load("120_int4_group_quant")
    shape = dict(M=M, N=128 * G, NH=64 * G, G=G)
    return mod, H.draw(mod, shape, seed=seed)


def test_packed_fields_let_a_tie_flip_pass_in_either_nibble():
    """120's bytes hold two rounded values: a peer whose quotient lands an ulp off an exact tie (Inductor's
    div.full.f32) rounds one nibble the other way; compared field by field the flip is a one-step tie flip,
    compared as bytes it is not."""
    mod, inputs = _quant_120_inputs(8, 4, seed=3)
    ours = torch.tensor(mod.reference(**inputs)["packed"])
    u = mod.unrounded_q(**inputs)
    ties = np.abs(u - np.floor(u) - 0.5) == 0
    assert ties[..., 0].any() and ties[..., 1].any(), "bf16 data with scale absmax / 7: ties in both nibbles"
    # the peer: each tie's quotient one f32 ulp away from zero, then the same rounding and packing
    q = np.where(ties, np.nextafter(u.astype(np.float32), np.float32(np.copysign(np.inf, 1.0)) * np.sign(u)), u)
    qi = np.clip(np.rint(q), -8, 7).astype(np.int32)
    peer = torch.tensor(((qi[..., 0] & 15) | ((qi[..., 1] & 15) << 4)).astype(np.uint8).view(np.int8))
    assert int((peer != ours).sum()) > 0
    msg, flips = C._close(ours, peer, EXACT, u, mod.FIELDS["packed"])
    assert msg is None and flips == int(ties.sum() - (np.rint(u[ties]) == np.rint(q[ties])).sum())
    msg, _ = C._close(ours, peer, EXACT, None, None)       # as bytes: the flips stay errors
    assert msg is not None
    peer2 = peer.clone()
    peer2[0, 0] = peer2[0, 0] ^ 0x30                          # a high nibble off by more than a tie
    msg, _ = C._close(ours, peer2, EXACT, u, mod.FIELDS["packed"])
    assert msg is not None and "first at (0, 0, 1)" in msg


def test_120_declared_value_rounds_to_the_reference():
    mod, inputs = _quant_120_inputs(3, 5, seed=0)
    want = mod.reference(**inputs)["packed"]
    u = mod.unrounded_q(**inputs)
    got = mod.nibbles(torch.tensor(want)).numpy()
    np.testing.assert_array_equal(got, np.clip(np.rint(u), -8, 7).astype(np.int64))


class _Refereed:
    """A file whose peer is less exact than its reference (152_w8a16_gemm's shape, in miniature)."""
    TOLERANCE = dict(rtol=1e-2, atol=1e-2)
    REFEREE = {"out": "the peer rounds an operand"}

    @staticmethod
    def reference(a):
        return {"out": a * 1.0}


def test_the_reference_settles_a_less_exact_peer():
    a = np.array([0.0, 1.0, -0.3, 5.0], np.float64)
    peer = torch.tensor([0.05, 1.0, -0.3, 5.0])              # 0.05 off at zero: past the bench tolerance
    ours = torch.tensor([0.001, 1.0, -0.3, 5.0])             # within TOLERANCE of the reference
    tol = dict(rtol=2e-2, atol=2e-2)
    assert C._close(ours, peer, tol)[0] is not None
    msg, flips, settled = C._against_peer(_Refereed, "out", ours, peer, tol, {"a": a}, {})
    assert msg is None and flips == 0 and settled == 1
    bad = torch.tensor([-0.03, 1.0, -0.3, 5.0])              # off the peer and off the reference
    msg, _, settled = C._against_peer(_Refereed, "out", bad, peer, tol, {"a": a}, {})
    assert msg is not None and "1 of 4 differ from the peer and from the reference" in msg and settled == 0


def test_without_referee_the_peer_check_stands():
    class Plain(_Refereed):
        REFEREE = {}
    a = np.array([0.0], np.float64)
    msg, _, settled = C._against_peer(Plain, "out", torch.tensor([0.001]), torch.tensor([0.05]),
                                      dict(rtol=2e-2, atol=2e-2), {"a": a}, {})
    assert msg is not None and settled == 0


def test_353_reference_settles_the_peer_unrounded_scale():
    """353_int4_kv_cache_append: the compiled peer quantizes with the unrounded f32 scale (Inductor elides
    sc.to(f16).float() in its fused kernel), so bytes where that moves a quotient across a rounding boundary
    differ from tessel's, which divides by the stored f16 scale as the file says; the reference (REFEREE)
    settles them, and a byte off both still fails."""
    mod = H.load("353_int4_kv_cache_append")
    assert "cache" in mod.REFEREE
    shape = dict(B=256, H=32, SLOTS=300)
    inputs = H.draw(mod, shape, 2)
    ours = torch.tensor(mod.reference(**inputs)["cache"])
    k = torch.tensor(inputs["k"]).float().view(256, 32, 4, 32)
    amax = k.abs().amax(dim=3)
    unrounded = torch.where(amax > 0, amax / 7.0, torch.ones_like(amax))
    q = torch.round(k / unrounded[..., None]).clamp(-8, 7).to(torch.int32).view(256, 32, 128)
    peer = torch.tensor(inputs["cache"]).clone()
    peer[torch.tensor(inputs["slot"]).long()] = ((q[..., 0::2] & 15) | ((q[..., 1::2] & 15) << 4)).to(torch.uint8) \
        .view(torch.int8)
    assert C._close(ours, peer, EXACT)[0] is not None           # the peer differs (a few bytes of 524288)
    msg, flips, settled = C._against_peer(mod, "cache", ours, peer, EXACT, inputs, {})
    assert msg is None and settled > 0, msg
    bad = ours.clone()
    at = tuple(int(i) for i in (ours != peer).nonzero()[0])
    bad[at] = bad[at] ^ 0x70                                    # off the peer and off the reference
    msg, _, _ = C._against_peer(mod, "cache", bad, peer, EXACT, inputs, {})
    assert msg is not None and "differ from the peer and from the reference" in msg
