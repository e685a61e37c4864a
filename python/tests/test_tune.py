"""CPU checks of the tuner's search space, cache keys and cache file (the timing loop needs CUDA)."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "examples"))

from tessel import _tune  # noqa: E402
from tune_fakes import FakeKernel as _FakeKernel, tracked as _tracked  # noqa: E402


class _T:
    def __init__(self, *shape):
        self.shape = shape


def test_shape_bucket_rounds_up_to_powers_of_two():
    assert _tune.shape_bucket([_T(1000, 3), _T(1)]) == "1024x4|1"
    assert _tune.shape_bucket([_T(0)]) == "1"
    assert _tune.shape_bucket([_T(1024)]) == "1024"
    assert _tune.shape_bucket([_T(1025)]) == "2048"


def test_cache_key_separates_kernel_device_and_version():
    a = _tune.cache_key("kir A", [_T(7)], "H200", "0.1.0")
    assert a == _tune.cache_key("kir A", [_T(8)], "H200", "0.1.0")
    assert a != _tune.cache_key("kir B", [_T(7)], "H200", "0.1.0")
    assert a != _tune.cache_key("kir A", [_T(7)], "H100", "0.1.0")
    assert a != _tune.cache_key("kir A", [_T(7)], "H200", "0.2.0")
    assert a != _tune.cache_key("kir A", [_T(9)], "H200", "0.1.0")


def test_store_and_lookup_round_trip(tmp_path):
    path = tmp_path / "tuning.json"
    assert _tune.lookup(path, "k") is None
    _tune.store(path, "k", {"BLOCK": 256})
    _tune.store(path, "j", {"BLOCK": 1024})
    assert _tune.lookup(path, "k") == {"BLOCK": 256}
    assert json.loads(path.read_text()) == {"j": {"BLOCK": 1024}, "k": {"BLOCK": 256}}
    _tune.store(path, "k", {"BLOCK": 128})  # a rewrite is seen by the next lookup
    os.utime(path, ns=(0, path.stat().st_mtime_ns + 1))
    assert _tune.lookup(path, "k") == {"BLOCK": 128}
    assert not list(tmp_path.glob("*.tmp"))


def test_unreadable_cache_is_ignored_with_a_warning(tmp_path):
    path = tmp_path / "tuning.json"
    path.write_text("{not json")
    with pytest.warns(UserWarning, match="unreadable tuning cache"):
        assert _tune.lookup(path, "k") is None


def test_search_space_is_the_declared_parameters(tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path))
    import vector_add
    space = vector_add.vector_add._space({})
    assert space, "the serializer declares no parameters"
    for name, (candidates, bound) in space.items():
        assert name.isupper()
        assert bound in candidates, (name, candidates, bound)
        assert all(isinstance(c, int) and c > 0 for c in candidates)


def test_search_space_keeps_the_defaults_after_candidates_compile(tmp_path, monkeypatch):
    # Regression: the space used to be overwritten by the last compiled candidate's bound values, so a
    # second tuning started from (and fell back to) that candidate instead of the heuristic default.
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path))
    import vector_add
    kernel = vector_add.vector_add
    before = {name: bound for name, (_, bound) in kernel._space({}).items()}
    other = {name: next(c for c in candidates if c != bound)
             for name, (candidates, bound) in kernel._space({}).items()}
    kernel._launcher({}, other)
    assert {name: bound for name, (_, bound) in kernel._space({}).items()} == before


def test_param_outside_its_domain_is_rejected(tmp_path):
    src = ROOT / "examples" / "vector_add.py"
    tessel = os.environ.get("TESSEL_BIN", str(ROOT / "build" / "bin" / "tessel"))
    r = subprocess.run([tessel, "compile", f"{src}:vector_add", "--emit=source", "--target=triton",
                        "--param", "BLOCK_P=3", "-o", str(tmp_path / "out.py")],
                       capture_output=True, text=True)
    assert r.returncode != 0
    assert "BLOCK_P" in r.stderr
    assert not (tmp_path / "out.py").exists()


def test_tuner_rejects_wrong_and_failing_candidates_and_picks_the_fastest_correct():
    import torch
    x = torch.arange(1.0, 38.0)
    y = torch.full_like(x, -1.0)
    cost = {(512, 2): 0.1, (256, 1): 0.5, (64, 2): 0.3}
    fake = _FakeKernel(wrong={(512, 2)}, failing={(64, 1)}, cost=cost)
    def timer(fn):
        # The launched candidate is the last launcher built; its cost is the measured time.
        fn()
        return timer.last

    orig = fake._launcher

    def tracking(constexprs, params):
        launch = orig(constexprs, params)
        timer.last = cost.get(launch.key, 1.0)
        return launch
    fake._launcher = tracking
    best, report = _tune.tune(fake, [x, y], {}, {}, timer=timer, verbose=False)
    # (512, 2) is fastest but wrong: rejected, never chosen; (64, 1) fails to compile.
    assert best == {"BLOCK": 64, "BLOCK_P": 2}
    rejected = {(p["BLOCK"], p["BLOCK_P"]): why for p, why in report["rejected"]}
    assert set(rejected) == {(512, 2), (64, 1)}
    assert "differs" in rejected[(512, 2)] and "does not compile" in rejected[(64, 1)]
    assert report["candidates"] == 8 and report["timed"] == 6
    assert report["winner_ms"] == 0.3 and report["default_ms"] == 1.0
    assert bool((y == -1.0).all())  # candidates run on copies: the caller's tensors are not written


def test_tuner_visits_nearest_the_default_first_and_respects_the_budget():
    import torch
    x = torch.ones(5)
    order = []
    fake = _FakeKernel()
    orig = fake._launcher

    def tracking(constexprs, params):
        order.append((params["BLOCK"], params["BLOCK_P"]))
        return orig(constexprs, params)
    fake._launcher = tracking
    best, report = _tune.tune(fake, [x, torch.empty(5)], {}, {}, timer=lambda fn: (fn(), 1.0)[1],
                              verbose=False, budget_s=0.0)
    assert order[0] == (128, 1)  # the reference run is the default
    assert report["skipped_for_budget"] == 8 and report["timed"] == 0
    assert best == {"BLOCK": 128, "BLOCK_P": 1}  # nothing measured: the default stands
    order.clear()
    _tune.tune(fake, [x, torch.empty(5)], {}, {}, timer=lambda fn: (fn(), 1.0)[1], verbose=False)
    visited = order[1::2][:4]  # after the reference run: a checking run, then a timing run, per candidate
    assert visited[0] == (128, 1)
    assert set(visited[1:4]) == {(64, 1), (256, 1), (128, 2)}  # one step from the default


def test_tune_cli_without_cuda_is_a_clear_error():
    import torch
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    r = subprocess.run([sys.executable, "-m", "tessel", "tune", str(ROOT / "examples" / "softmax.py") + ":softmax",
                        "--shape", "M=4,N=5"], capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=str(ROOT / "python")))
    assert r.returncode == 2
    assert "measures on a CUDA device" in r.stderr


def test_tuner_prunes_over_limit_candidates_before_compiling_and_counts_why():
    import torch
    fake = _FakeKernel()
    fake._prune = lambda constexprs: (lambda p: "registers" if p["BLOCK"] == 512 else
                                      "shared memory" if p == {"BLOCK": 64, "BLOCK_P": 2} else None)
    timer, order = _tracked(fake, {})
    best, report = _tune.tune(fake, [torch.ones(5), torch.empty(5)], {}, {}, timer=timer, verbose=False)
    assert report["pruned"] == {"registers": 2, "shared memory": 1}
    assert report["timed"] == 5 and report["candidates"] == 8
    assert not any(k[0] == 512 or k == (64, 2) for k in order)  # never compiled or run


def test_a_walked_space_is_searched_as_the_listed_one(monkeypatch):
    # Past _LISTED bindings the search never lists the space (attention's 7.56 million took 75 s before a
    # first timing): it decides bindings as it reaches them. Same visits, same winner, same pruned counts
    # once the budget reaches every binding; with no budget, every undecided binding counts as skipped.
    import torch
    runs = {}
    for listed in (10**9, 0):
        monkeypatch.setattr(_tune, "_LISTED", listed)
        fake = _FakeKernel(cost={(256, 2): 0.2, (64, 1): 0.4})
        fake._prune = lambda constexprs: (lambda p: "registers" if p["BLOCK"] == 512 else None)
        timer, order = _tracked(fake, {(256, 2): 0.2, (64, 1): 0.4})
        best, report = _tune.tune(fake, [torch.ones(5), torch.empty(5)], {}, {}, timer=timer, verbose=False)
        _, skipped = _tune.tune(fake, [torch.ones(5), torch.empty(5)], {}, {}, timer=timer, verbose=False,
                                budget_s=0.0)
        runs[listed] = (best, order, report["pruned"], report["timed"], report["candidates"],
                        skipped["skipped_for_budget"])
    assert runs[0][:5] == runs[10**9][:5]
    assert runs[0][0] == {"BLOCK": 256, "BLOCK_P": 2} and runs[0][2] == {"registers": 2}
    assert runs[10**9][5] == 6 and runs[0][5] == 6  # the viable ones; walked: + none left undecided


def test_nearest_walks_the_viable_bindings_in_sorted_order():
    # _Candidates.nearest generates, one distance at a time, exactly the order of sorting every viable
    # binding by (distance from the centre, declared positions), the listed search's order.
    c = _tune._Candidates.__new__(_tune._Candidates)
    c.space = {"A": ([1, 2, 3, 4, 5], 2), "B": ([10, 20, 30], 10), "C": ([0, 1], 1)}
    c.names, c.default = sorted(c.space), {"A": 2, "B": 10, "C": 1}
    c._prune = lambda p: "registers" if p["A"] >= 4 and p["B"] == 30 else None
    c._elementwise, c._fixed, c._why = None, set(), {}
    viable, pruned = c.all()
    assert len(viable) == 26 and pruned == {"registers": 4}
    for centre in ({"A": 2, "B": 10, "C": 1}, {"A": 5, "B": 30, "C": 0}, {"A": 3, "B": 20, "C": 1}):
        pos = {n: c.space[n][0] for n in c.names}
        want = sorted(viable, key=lambda p: (sum(abs(pos[n].index(p[n]) - pos[n].index(centre[n])) for n in c.names),
                                             [pos[n].index(p[n]) for n in c.names]))
        assert list(c.nearest(centre)) == want


def test_tuner_climbs_from_the_default_to_the_fastest_neighbour():
    import torch
    fake = _FakeKernel()
    cost = {(256, 1): 0.5, (512, 1): 0.2}
    timer, order = _tracked(fake, cost)
    best, report = _tune.tune(fake, [torch.ones(5), torch.empty(5)], {}, {}, timer=timer, verbose=False)
    visited = list(dict.fromkeys(order[1:]))  # first launch of each candidate, after the reference run
    # default, its neighbours; then (256, 1)'s new neighbours; then (512, 1)'s; then the rest.
    assert visited[:7] == [(128, 1), (64, 1), (256, 1), (128, 2), (512, 1), (256, 2), (512, 2)]
    assert best == {"BLOCK": 512, "BLOCK_P": 1} and report["winner_ms"] == 0.2


def test_inputs_that_fit_in_l2_rotate_through_copies():
    class Tensor:
        is_cuda, device = True, 0

        def __init__(self, nbytes):
            self.nbytes = nbytes

        def numel(self):
            return self.nbytes

        def element_size(self):
            return 1

    class Props:
        L2_cache_size = 50 << 20

    class Torch:
        class cuda:
            @staticmethod
            def get_device_properties(device):
                return Props()

    assert _tune._rotation(Torch, [Tensor(1 << 20), Tensor(1 << 20)]) == 8      # 2 MiB: capped at 8 sets
    assert _tune._rotation(Torch, [Tensor(20 << 20)]) == 5                      # 20 MiB: 100 MiB / 20 MiB
    assert _tune._rotation(Torch, [Tensor(60 << 20)]) == 1                      # larger than L2: one set
    assert _tune._rotation(Torch, []) == 1


def test_the_search_starts_from_the_calls_defaults_and_moves_sizes_first():
    # A kernel whose call binds BLOCK = 512 from the arguments' shapes (covers) and whose resource
    # model names BLOCK_P as the parameter that sizes fragments: the reference run and the first
    # visit are the call's default, and its first moves change BLOCK_P before BLOCK.
    import torch

    class Covering(_FakeKernel):
        def _call_defaults(self, constexprs, tensors):
            return {"BLOCK": 512, "BLOCK_P": 1}

        def _first_moves(self, constexprs):
            return ("BLOCK_P", "WARPS")

    fake = Covering()
    timer, order = _tracked(fake, {})
    best, report = _tune.tune(fake, [torch.ones(5), torch.empty(5)], {}, {}, timer=timer, verbose=False)
    visited = list(dict.fromkeys(order))
    assert visited[:3] == [(512, 1), (512, 2), (256, 1)]
    assert report["default_ms"] == 1.0


def test_an_untuned_call_binds_the_covering_block_and_warps_that_follow_it(tmp_path, monkeypatch):
    # softmax's BLOCK covers the row length N (form-blocking); WARPS follows the bound BLOCK at 32
    # elements a thread, at least enough that each thread moves 32 bytes of the loaded row (1 to 4
    # warps; ResourceModel::warpsAt): the defaults an untuned call launches.
    import torch
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path))
    import softmax
    k = softmax.softmax

    def rows(m, n):  # the shape without the memory: defaults read shapes only
        x = torch.empty(1, n).expand(m, n)
        return x, x

    # (LOOP_STAGES: the walks' pipeline depth, pipelined-walks.mlir; 1 where the block covers the row and
    # shared memory is scarce.) Its staged rows run ROWS at a time (pgpu-pack-rows): 4 rows of 1024 (4 warps for the 4096-element
    # tile, 1024 programs), one row where a row fills a block or none covers it. TMA: the staged tiles
    # are boxes (spelled as descriptors only where a side is at most 256).
    assert k.call_defaults(*rows(4096, 1024)) == {"BLOCK": 1024, "ROWS": 4, "WARPS": 4, "STAGES": 3, "TMA": 1,
                                                   "LOOP_STAGES": 3}
    assert k.call_defaults(*rows(16384, 8192)) == {"BLOCK": 8192, "ROWS": 1, "WARPS": 8, "STAGES": 3, "TMA": 1,
                                                   "LOOP_STAGES": 2}
    # (8 rows: 8 programs on 132 multiprocessors, each alone on its own, so a walk's buffers may hold the
    # device's share of the bytes in flight, up to the deepest LOOP_STAGES: Kernel._lone_loop_bytes)
    assert k.call_defaults(*rows(8, 16384)) == {"BLOCK": 16384, "ROWS": 1, "WARPS": 16, "STAGES": 3, "TMA": 1,
                                                   "LOOP_STAGES": 4}
    # a staged f32 row up to 32768 has a covering candidate (TritonLegalize: half the register file)
    assert k.call_defaults(*rows(16384, 20000)) == {"BLOCK": 32768, "ROWS": 1, "WARPS": 16, "STAGES": 3, "TMA": 1,
                                                   "LOOP_STAGES": 1}
    # no candidate covers: many rows are walked in the declared 512-lane blocks; 8 rows (8 programs) in
    # wider ones, 8192 at 8 warps (Kernel._reduction_steps: too few bytes in flight at 512)
    assert k.call_defaults(*rows(16384, 40000)) == {"BLOCK": 512, "ROWS": 1, "WARPS": 2, "STAGES": 3, "TMA": 1,
                                                   "LOOP_STAGES": 3}
    assert k.call_defaults(*rows(8, 40000)) == {"BLOCK": 8192, "ROWS": 1, "WARPS": 8, "STAGES": 3, "TMA": 1,
                                                   "LOOP_STAGES": 4}
    # argmax reduces (value, index) pairs: at most 128 elements a thread, at least 2 warps.
    import argmax
    a = argmax.argmax

    def pairs(m, n):
        x = torch.empty(1, n).expand(m, n)
        return x, torch.empty(m), torch.empty(m, dtype=torch.int64)
    # (pgpu-pack-rows packs rows of 1024: ROWS rows a program; the BLOCK / WARPS / STAGES rule is the same)
    step = lambda d: {k: d[k] for k in ("BLOCK", "WARPS", "STAGES")}
    assert step(a.call_defaults(*pairs(4096, 1024))) == {"BLOCK": 1024, "WARPS": 2, "STAGES": 3}
    assert step(a.call_defaults(*pairs(16384, 8192))) == {"BLOCK": 8192, "WARPS": 2, "STAGES": 3}


def test_a_lanewise_call_moves_one_vector_a_thread(tmp_path, monkeypatch):
    # A pointwise map (no reduction, contraction, atomic or carry) takes enough warps that each thread
    # moves one 16-byte vector of its largest loaded fragment (ResourceModel::warpsAt): bf16 views at
    # BLOCK 512 get 2 warps (8 elements a thread), f32 ones 4; the rows above keep 32 bytes a thread.
    import torch
    import tessel
    import tessel.language as T
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path))

    @tessel.kernel(name="pointwise_bf16")
    def pointwise_bf16(x: T.In[T.bf16, ("N",)], y: T.In[T.bf16, ("N",)], z: T.Out[T.bf16, ("N",)], alpha: T.f32):
        n = T.domain(0, x.shape[0])
        xf, yv = T.cast(x[n], T.f32), T.cast(y[n], T.f32)
        z[n] = T.cast(T.sigmoid(xf) * T.tanh(yv) + alpha * T.where(xf > yv, xf, yv) - T.sqrt(T.abs(yv)), T.bf16)

    @tessel.kernel(name="pointwise_f32")
    def pointwise_f32(x: T.In[T.f32, ("N",)], z: T.Out[T.f32, ("N",)]):
        n = T.domain(0, x.shape[0])
        z[n] = T.tanh(x[n])

    v = torch.empty(1, dtype=torch.bfloat16).expand(1 << 20)
    assert pointwise_bf16.call_defaults(v, v, v, alpha=0.5)["WARPS"] == 2
    f = torch.empty(1).expand(1 << 20)
    assert pointwise_f32.call_defaults(f, f)["WARPS"] == 4
