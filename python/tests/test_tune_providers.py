"""CPU checks of the provider as a declared choice (`target="auto"`, issue 17, seed 003): the selection
over providers with fake providers and a fake timer, the cache entry of a choice, the fallback to Triton
with one warning when cuTile is unavailable or rejects the kernel, and that "auto" with one provider left
behaves exactly like that provider (same search, same cache entry, same launches). The cuTile toolchain
is never needed here: its availability is stubbed where a test needs it one way or the other."""
import json
import os
import sys
import warnings
from pathlib import Path

import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)
torch = pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "examples"))

import tessel  # noqa: E402
from tessel import _cutile, _kernel, _ptx, _tune  # noqa: E402

SPACES = {"triton": {"BLOCK": ([64, 128, 256], 128), "WARPS": ([4, 8], 4)},
          "cutile": {"BLOCK": ([64, 128, 256], 128), "OCCUPANCY": ([0, 2], 0)}}


class _Providers:
    """y = 2 x on two fake providers with their own declared spaces. `cost` maps (provider, BLOCK) to
    the time the fake timer reports; `wrong` lists (provider, BLOCK) candidates that compute 3 x; a
    provider in `failing` raises at launch (a toolchain that crashes on the program)."""
    name = "twice"

    def __init__(self, cost=None, wrong=(), failing=()):
        self.cost, self.wrong, self.failing = cost or {}, set(wrong), set(failing)
        self.timed = []  # (provider, params) in the order the timer saw them

    def _views(self):
        return [("x", "in"), ("y", "out")]

    def _space(self, constexprs, target="triton"):
        return SPACES[target]

    def _launcher(self, constexprs, params, target="triton"):
        key = (target, params["BLOCK"])
        if target in self.failing:
            raise RuntimeError(f"{target} does not compile this program")

        def launch(x, y):
            y.copy_(x * (3 if key in self.wrong else 2))
            _Providers.last = (target, dict(params))
        return launch

    def timer(self, fn):
        fn()
        target, params = _Providers.last
        self.timed.append((target, params))
        return self.cost.get((target, params["BLOCK"]), 1.0)


def _run(fake, **kw):
    x = torch.arange(1.0, 38.0)
    return _tune.tune_providers(fake, [x, torch.empty_like(x)], {}, {}, ["triton", "cutile"], timer=fake.timer,
                                verbose=False, **kw)


# --- selection -------------------------------------------------------------------------------------

def test_the_faster_correct_provider_wins_and_each_provider_searches_its_own_space():
    fake = _Providers(cost={("cutile", 256): 0.4, ("triton", 256): 0.6})
    best, report = _run(fake)
    assert best == {"provider": "cutile", "params": {"BLOCK": 256, "OCCUPANCY": 0}}
    assert report["provider"] == "cutile" and report["winner_ms"] == 0.4
    assert report["head_to_head_ms"] == {"triton": 0.6, "cutile": 0.4}
    assert set(report["providers"]) == {"triton", "cutile"}
    assert report["providers"]["triton"]["candidates"] == 6 and report["providers"]["cutile"]["candidates"] == 6
    assert {tuple(sorted(p)) for t, p in fake.timed if t == "triton"} == {("BLOCK", "WARPS")}
    assert {tuple(sorted(p)) for t, p in fake.timed if t == "cutile"} == {("BLOCK", "OCCUPANCY")}
    assert report["timed"] == 12 and not report["rejected"]


def test_triton_wins_when_faster_and_on_a_tie():
    best, _ = _run(_Providers(cost={("cutile", 256): 0.5, ("triton", 64): 0.3}))
    assert best == {"provider": "triton", "params": {"BLOCK": 64, "WARPS": 4}}
    best, report = _run(_Providers())  # every candidate 1.0 ms: the first provider's default
    assert best == {"provider": "triton", "params": {"BLOCK": 128, "WARPS": 4}}
    assert report["head_to_head_ms"] == {"triton": 1.0, "cutile": 1.0}


def test_the_winners_are_measured_head_to_head_alternately_each_round_starting_with_the_next():
    fake = _Providers(cost={("cutile", 256): 0.4})
    _run(fake, rounds=3)
    tail = [t for t, _ in fake.timed[-6:]]
    assert tail == ["triton", "cutile", "cutile", "triton", "triton", "cutile"]


def test_cutile_candidates_are_checked_against_the_triton_default():
    # The fastest cuTile candidate computes the wrong values: rejected on the fresh inputs, never chosen.
    fake = _Providers(cost={("cutile", 256): 0.1, ("cutile", 64): 0.5, ("triton", 128): 0.7},
                      wrong={("cutile", 256)})
    best, report = _run(fake)
    assert best == {"provider": "cutile", "params": {"BLOCK": 64, "OCCUPANCY": 0}}
    rejected = [(p, why) for p, why in report["rejected"]]
    assert len(rejected) == 2 and all(p["BLOCK"] == 256 for p, _ in rejected)
    assert all(why.startswith("cutile: result 'y' differs from the default candidate on fresh input set")
               for _, why in rejected)


def test_a_provider_with_no_correct_candidate_is_not_chosen_with_one_warning():
    fake = _Providers(cost={("cutile", 128): 0.1}, failing={"cutile"})
    with pytest.warns(UserWarning, match="target='auto' keeps no cutile candidate: every one was rejected "
                                         r"\(first: RuntimeError: cutile does not compile this program\)"):
        best, report = _run(fake)
    assert best["provider"] == "triton"
    assert report["providers"]["cutile"]["timed"] == 0 and report["head_to_head_ms"] == {"triton": 1.0}


def test_a_reference_checks_every_provider_and_nothing_timed_keeps_the_default():
    fake = _Providers(wrong={("triton", b) for b in (64, 128, 256)} | {("cutile", b) for b in (64, 128, 256)})
    with pytest.warns(UserWarning, match="keeps no"):
        best, report = _run(fake, reference=lambda x: x * 2)
    assert report["timed"] == 0 and report["winner_ms"] is None and len(report["rejected"]) == 12
    assert best == {"provider": "triton", "params": {"BLOCK": 128, "WARPS": 4}}


def test_domain_narrows_each_provider_by_name_or_by_provider():
    fake = _Providers()
    _, report = _run(fake, domain={"BLOCK": [64], "OCCUPANCY": [2], "triton": {"WARPS": [8]}})
    assert {(t, tuple(sorted(p.items()))) for t, p in fake.timed} == {
        ("triton", (("BLOCK", 64), ("WARPS", 8))), ("cutile", (("BLOCK", 64), ("OCCUPANCY", 2)))}
    assert report["candidates"] == 2
    with pytest.raises(ValueError, match="domain names 'STAGES', which no provider declares"):
        _run(_Providers(), domain={"STAGES": [2]})
    with pytest.raises(ValueError, match="domain of 'OCCUPANCY' has 3; expected values from its declared domain"):
        _run(_Providers(), domain={"cutile": {"OCCUPANCY": [3]}})


def test_providers_must_be_known_and_distinct():
    for providers in ([], ["triton", "triton"], ["hip"]):
        with pytest.raises(ValueError, match="providers must be distinct names from triton, cutile, ptx"):
            _tune.tune_providers(_Providers(), [], {}, {}, providers)
    with pytest.raises(ValueError, match="tune: target must be one of triton, cutile, ptx"):
        _tune.tune(_Providers(), [], {}, {}, target="auto")


# --- cache entries ---------------------------------------------------------------------------------

def test_cache_keys_carry_the_target_and_triton_keys_are_unchanged():
    class T:
        shape = (7,)
    triton = _tune.cache_key("kir", [T()], "H200 sm_90", "v")
    assert triton == _tune.cache_key("kir", [T()], "H200 sm_90", "v", "triton")
    assert _tune.cache_key("kir", [T()], "H200 sm_90", "v", "auto") == triton + "/auto"
    assert _tune.cache_key("kir", [T()], "H200 sm_90", "v", "cutile") == triton + "/cutile"
    assert _tune.cache_key("kir", [T()], "H200 sm_90", "v", "ptx") == triton + "/ptx"
    with pytest.raises(ValueError, match="target must be one of triton, cutile, ptx, auto; got 'hip'"):
        _tune.cache_key("kir", [T()], "H200", "v", "hip")


@pytest.mark.parametrize("entry, why", [
    ({"BLOCK": 64}, "not a provider choice"),
    ({"provider": "cutile"}, "not a provider choice"),
    ({"provider": "cutile", "params": {"BLOCK": 64}, "ms": 1}, "not a provider choice"),
    ({"provider": "hip", "params": {"BLOCK": 64}}, "provider 'hip' is not one of triton, cutile, ptx"),
    ({"provider": "cutile", "params": {}}, "not a non-empty object of parameter bindings"),
    ({"provider": "cutile", "params": {"BLOCK": "64"}}, "is not a name and an integer"),
])
def test_a_choice_of_the_wrong_schema_is_refused_and_ignored(tmp_path, entry, why):
    assert why in _tune.valid_choice(entry)
    path = tmp_path / "tuning.json"
    path.write_text(json.dumps({"k/auto": entry}))
    with pytest.warns(UserWarning, match="ignoring the cached tuning entry 'k/auto'"):
        assert _tune.lookup_choice(path, "k/auto") is None
    if "provider" in entry:
        with pytest.raises(ValueError, match="refusing to cache an invalid tuning result"):
            _tune.store(path, "k/auto", entry)


def test_a_choice_round_trips_beside_plain_winners_and_is_checked_against_its_providers_space(tmp_path):
    path = tmp_path / "tuning.json"
    _tune.store(path, "k", {"BLOCK": 64, "WARPS": 8})
    _tune.store(path, "k/auto", {"provider": "cutile", "params": {"BLOCK": 256, "OCCUPANCY": 2}})
    assert json.loads(path.read_text()) == {"k": {"BLOCK": 64, "WARPS": 8},
                                            "k/auto": {"params": {"BLOCK": 256, "OCCUPANCY": 2}, "provider": "cutile"}}
    spaces = SPACES.get
    assert _tune.lookup_choice(path, "k/auto", spaces) == {"provider": "cutile",
                                                           "params": {"BLOCK": 256, "OCCUPANCY": 2}}
    assert _tune.lookup(path, "k", SPACES["triton"]) == {"BLOCK": 64, "WARPS": 8}
    # The provider's declared space decides; a provider unavailable here makes the choice unusable.
    _tune.store(path, "j/auto", {"provider": "cutile", "params": {"BLOCK": 256, "WARPS": 8}})
    with pytest.warns(UserWarning, match=r"binds \['BLOCK', 'WARPS'\], the kernel declares \['BLOCK', 'OCCUPANCY'\]"):
        assert _tune.lookup_choice(path, "j/auto", spaces) is None
    with pytest.warns(UserWarning, match=r"its provider 'cutile' is unavailable here \(no tileiras\)"):
        assert _tune.lookup_choice(path, "k/auto", lambda p: "no tileiras") is None
    # A plain lookup of a choice (or the reverse) is a schema mismatch, never a winner.
    with pytest.warns(UserWarning, match="ignoring the cached tuning entry 'k'"):
        assert _tune.lookup_choice(path, "k") is None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 'k/auto' was warned about above: once per entry and file version
        assert _tune.lookup(path, "k/auto") is None


# --- the kernel's target ---------------------------------------------------------------------------

def test_target_is_checked_where_it_is_given():
    def f(x: tessel.language.In[tessel.language.f32, ("N",)]):
        pass
    with pytest.raises(ValueError, match=r"@tessel.kernel: target must be one of 'triton', 'cutile', 'ptx', 'auto'; got 'cuda'"):
        tessel.kernel(f, target="cuda")
    k = tessel.kernel(f, target="auto")
    assert k.target == "auto"
    with pytest.raises(ValueError, match=r"tune: target must be one of 'triton', 'cutile', 'ptx', 'auto'; got 'fast'"):
        k.tune(torch.ones(3), target="fast")
    with pytest.raises(ValueError, match=r"launch: target must be 'triton', 'cutile' or 'ptx'; got 'auto'"):
        k.launch(torch.ones(3), target="auto")


def _softmax(tmp_path, monkeypatch, cutile_missing="cuda.tile does not import (stubbed)",
             ptx_missing="no CUDA device (stubbed)"):
    """A fresh softmax kernel (its own caches) with target="auto", a private cache folder, cuTile's and
    the PTX runtime's availability stubbed, and a fake timer (1 ms each: the search keeps the default)."""
    import softmax
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path))
    monkeypatch.setattr(_cutile, "unavailable", lambda: cutile_missing)
    monkeypatch.setattr(_ptx, "unavailable", lambda: ptx_missing)
    monkeypatch.setattr(_tune, "_median_ms", lambda torch_, fn, reps, inner=10: (fn(), 1.0)[1])
    return _kernel.Kernel(softmax.softmax.fn, name="softmax", target="auto")


def test_auto_without_the_cutile_toolchain_is_triton_with_one_warning(tmp_path, monkeypatch):
    kernel = _softmax(tmp_path / "auto", monkeypatch)
    x = torch.randn(3, 40)
    domain = {"BLOCK": [64, 128], "WARPS": [4], "STAGES": [3], "LOOP_STAGES": [3], "cutile": {"OCCUPANCY": [2]}}
    with pytest.warns(UserWarning, match="kernel 'softmax': target='auto' leaves out the cutile provider: "
                                         r"cuda.tile does not import \(stubbed\)") as seen:
        auto = kernel.tune(x, torch.empty_like(x), domain=domain, verbose=False)
    assert len([w for w in seen if "leaves out the cutile provider" in str(w.message)]) == 1
    assert len([w for w in seen if "leaves out the ptx provider: no CUDA device (stubbed)" in str(w.message)]) == 1
    # BLOCK 64/128 x TMA 0/1 (pgpu-pack-rows' [ROWS, BLOCK] tiles are boxes); ROWS is searched around the
    # call default only, 1 here (3 rows: a program each).
    assert kernel.last_tuning["only_provider"] == "triton" and kernel.last_tuning["timed"] == 4
    auto_cache = json.loads((tmp_path / "auto" / "tuning.json").read_text())
    # Exactly what target="triton" does: the same winner, stored under the same (Triton) key.
    triton = _softmax(tmp_path / "triton", monkeypatch)
    plain = triton.tune(x, torch.empty_like(x), domain={"BLOCK": [64, 128], "WARPS": [4], "STAGES": [3], "LOOP_STAGES": [3]},
                        verbose=False, target="triton")
    assert auto == {"provider": "triton", "params": plain}
    assert auto_cache == json.loads((tmp_path / "triton" / "tuning.json").read_text())
    assert not any(key.endswith("/auto") for key in auto_cache)
    # Said once per kernel: the next search (a cache hit now) warns no more.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert kernel.tune(x, torch.empty_like(x), domain=domain, verbose=False) == auto
    assert kernel.last_tuning == {"cache_hit": True, "only_provider": "triton"}


def test_auto_leaves_out_a_provider_that_rejects_the_kernel_naming_the_located_error(tmp_path, monkeypatch):
    import fused_pointwise
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path))
    monkeypatch.setattr(_cutile, "unavailable", lambda: None)  # as if the toolchain were installed
    kernel = _kernel.Kernel(fused_pointwise.fused_pointwise.fn, name="fused_pointwise", target="auto")
    with pytest.warns(UserWarning, match=r"leaves out the cutile provider: the cutile provider rejects this kernel: "
                                         r".*fused_pointwise\.py:\d+:\d+: error: .*'tanh' has no cuTile function"):
        assert kernel._providers({}) == ["triton"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert kernel._providers({}) == ["triton"]  # once


class _CudaLike:
    """What a call's dispatch reads of a CUDA tensor (the tests here have no GPU)."""
    is_cuda = True

    def __init__(self, *shape):
        self.shape = shape


def test_a_call_launches_the_cached_choice_then_a_triton_winner_then_the_defaults(tmp_path, monkeypatch):
    kernel = _softmax(tmp_path, monkeypatch, cutile_missing=None)
    monkeypatch.setattr(kernel, "_tuning_key", lambda cx, tensors, target="triton":
                        "k" if target == "triton" else f"k/{target}")
    cutile_space = {"BLOCK": ([64, 8192], 64), "OCCUPANCY": ([0, 2], 0)}
    monkeypatch.setattr(kernel, "_space", lambda cx, target="triton": cutile_space if target == "cutile"
                        else {"BLOCK": ([64, 8192], 64), "WARPS": ([4, 8], 4)})
    args = [_CudaLike(3, 8192), _CudaLike(3, 8192)]
    path = tmp_path / "tuning.json"
    _tune.store(path, "k/auto", {"provider": "cutile", "params": {"BLOCK": 8192, "OCCUPANCY": 2}})
    _tune.store(path, "k", {"BLOCK": 8192, "WARPS": 8})
    assert kernel._tuned({}, args) == ("cutile", {"BLOCK": 8192, "OCCUPANCY": 2})
    # cuTile gone (its toolchain is asked at each lookup): its choice is ignored (one warning), and the
    # Triton winner "auto" stores when Triton is alone is used.
    monkeypatch.setattr(_cutile, "unavailable", lambda: "no tileiras")
    with pytest.warns(UserWarning, match="its provider 'cutile' is unavailable here"):
        assert kernel._tuned({}, args) == ("triton", {"BLOCK": 8192, "WARPS": 8})
    path.write_text("{}")
    os.utime(path, ns=(0, path.stat().st_mtime_ns + 10))
    assert kernel._tuned({}, args) == ("triton", None)  # nothing cached: Triton's declared defaults
    assert kernel._tuned({}, [torch.ones(3, 8), torch.ones(3, 8)])[0] == "triton"  # not CUDA: no lookup


def test_auto_stores_the_choice_under_its_own_key_and_a_later_tune_is_a_hit(tmp_path, monkeypatch):
    kernel = _softmax(tmp_path, monkeypatch, cutile_missing=None)
    monkeypatch.setattr(kernel, "_providers", lambda cx: ["triton", "cutile"])
    monkeypatch.setattr(kernel, "_provider_space", lambda cx, p: {"BLOCK": ([64, 128], 64), "OCCUPANCY": ([0, 2], 0)})
    choice = {"provider": "cutile", "params": {"BLOCK": 128, "OCCUPANCY": 2}}
    seen = {}

    def fake(kernel_, tensors, scalars, constexprs, providers, **kw):
        seen.update(providers=providers, **kw)
        return choice, {"timed": 4, "winner_ms": 0.5}
    monkeypatch.setattr(_tune, "tune_providers", fake)
    x = torch.randn(3, 40)
    assert kernel.tune(x, torch.empty_like(x), domain={"cutile": {"OCCUPANCY": [2]}}, budget_s=7,
                       verbose=False) == choice
    assert seen["providers"] == ["triton", "cutile"] and seen["domain"] == {"cutile": {"OCCUPANCY": [2]}}
    assert seen["budget_s"] == 7
    cache = json.loads((tmp_path / "tuning.json").read_text())
    assert list(cache.values()) == [choice] and next(iter(cache)).endswith("/auto")
    assert kernel.tune(x, torch.empty_like(x), verbose=False) == choice
    assert kernel.last_tuning == {"cache_hit": True}


def test_tune_cli_takes_a_target():
    import subprocess
    r = subprocess.run([sys.executable, "-m", "tessel", "tune", str(ROOT / "examples" / "softmax.py") + ":softmax",
                        "--shape", "M=4,N=5", "--target", "fastest"], capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=str(ROOT / "python")))
    assert r.returncode == 2 and "--target: invalid choice: 'fastest'" in r.stderr


def test_ptx_availability_names_what_is_missing(monkeypatch, tmp_path):
    # The PTX provider joins target="auto" where tessel's CUDA runtime library exists and a device does
    # (TESSEL_PTX_HOST=1: the tests' stand-in driver); otherwise the reason is what the warning says.
    monkeypatch.setenv("TESSEL_CUDA_LIB", str(tmp_path / "missing.so"))
    assert "CUDA runtime library is not at" in _ptx.unavailable()
    lib = tmp_path / "libtessel_cuda.so"
    lib.write_bytes(b"")
    monkeypatch.setenv("TESSEL_CUDA_LIB", str(lib))
    monkeypatch.setenv("TESSEL_PTX_HOST", "1")
    assert _ptx.unavailable() is None
    monkeypatch.delenv("TESSEL_PTX_HOST")
    if not torch.cuda.is_available():
        assert "no CUDA device" in _ptx.unavailable()
