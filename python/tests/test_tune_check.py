"""CPU checks of how the tuner checks candidates (fresh random inputs, a reference function) and of
narrowing its search domain. Fake kernels stand in for compiled candidates; a timer stands in for CUDA
events."""
import os
import sys
from pathlib import Path

import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)
torch = pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "examples"))

from tessel import _tune  # noqa: E402
from tune_fakes import FakeKernel as _FakeKernel, tracked as _tracked  # noqa: E402


class _Twice(_FakeKernel):
    """y = 2 x, with declared view modes; `faults` maps a candidate to a wrong way of computing it."""
    name = "twice"

    def __init__(self, faults=None):
        super().__init__()
        self.faults = faults or {}

    def _views(self):
        return [("x", "in"), ("y", "out")]

    def _launcher(self, constexprs, params):
        key = (params["BLOCK"], params["BLOCK_P"])
        fault = self.faults.get(key)

        def launch(x, y):
            if fault is None:
                y.copy_(x * 2)
            else:
                fault(x, y)
        launch.key = key
        return launch


def _unit_timer(fn):
    fn()
    return 1.0


def _rejected(report):
    return {(p["BLOCK"], p["BLOCK_P"]): why for p, why in report["rejected"]}


def test_fresh_inputs_are_nonzero_random_floats_nan_outputs_and_the_callers_integers():
    x = torch.full((6, 40), -3.0)[:, 3:]            # a strided view with a storage offset
    idx = torch.arange(35, dtype=torch.int64)
    y = torch.full((6, 37), 7.0)
    counts = torch.zeros(4, dtype=torch.int32)
    fresh = _tune.fresh_inputs(torch, [x, idx, y, counts], ["in", "in", "out", "out"], seed=1)
    fx, fidx, fy, fcounts = fresh
    for got, want in zip(fresh, [x, idx, y, counts]):
        assert (got.dtype, got.shape, got.stride()) == (want.dtype, want.shape, want.stride())
        assert got.storage_offset() % 16 == want.storage_offset() % 16
        assert got.data_ptr() != want.data_ptr()
    # Never zero, magnitude in [0.25, 1] of the caller's typical one (3), both signs.
    assert bool(((fx.abs() >= 0.75) & (fx.abs() <= 3.0)).all())
    assert bool((fx > 0).any()) and bool((fx < 0).any())
    assert torch.equal(fidx, idx)                    # indices keep the caller's values
    assert bool(fy.isnan().all())                    # written-only floats: NaN
    assert bool((fcounts == torch.iinfo(torch.int32).min).all())
    again = _tune.fresh_inputs(torch, [x, idx, y, counts], ["in", "in", "out", "out"], seed=1)
    other = _tune.fresh_inputs(torch, [x, idx, y, counts], ["in", "in", "out", "out"], seed=2)
    assert torch.equal(again[0], fx) and not torch.equal(other[0], fx)


def test_fresh_inputs_keep_overlapping_strides():
    row = torch.randn(8)
    wide = row.expand(5, 8)                          # stride 0: every row is the same memory
    fresh = _tune.fresh_inputs(torch, [wide], ["in"], seed=1)[0]
    assert fresh.stride() == (0, 1)
    assert bool((fresh == fresh[0]).all()) and bool((fresh != 0).all())


def test_a_candidate_wrong_only_on_fresh_inputs_is_rejected():
    # The caller's x holds whole numbers; a candidate that rounds is right on them and wrong on
    # anything else. Checking on copies of the caller's tensors would have accepted it.
    x = torch.arange(1.0, 38.0)
    y = torch.empty_like(x)
    rounds = lambda x, y: y.copy_((x * 2).round())  # noqa: E731
    fake = _Twice(faults={(256, 1): rounds})
    best, report = _tune.tune(fake, [x, y], {}, {}, timer=_unit_timer, verbose=False)
    assert torch.equal((x * 2).round(), x * 2)       # the fault is invisible on the caller's data
    rejected = _rejected(report)
    assert set(rejected) == {(256, 1)}
    assert "result 'y' differs from the default candidate on fresh input set 1" == rejected[(256, 1)]
    assert report["timed"] == 7 and best != {"BLOCK": 256, "BLOCK_P": 1}
    assert report["checked_on"] == "2 fresh random input sets against the default candidate"


def test_a_candidate_that_skips_an_element_is_caught_by_the_nan_fill():
    # The caller's y already holds the right answer, so a copy of it would hide the skipped element.
    x = torch.arange(1.0, 38.0)
    y = x * 2
    skips = lambda x, y: y[:-1].copy_(x[:-1] * 2)  # noqa: E731
    fake = _Twice(faults={(64, 2): skips})
    best, report = _tune.tune(fake, [x, y], {}, {}, timer=_unit_timer, verbose=False)
    assert set(_rejected(report)) == {(64, 2)}


def test_the_second_fresh_set_is_checked_too():
    # A fault that is right on the first fresh set (made with seed 1) and wrong on anything else.
    x = torch.ones(37)
    first = _tune.fresh_inputs(torch, [x, torch.empty(37)], ["in", "out"], seed=1)[0]
    right_on_first = lambda x, y: y.copy_(x * (2 if torch.equal(x, first) else 3))  # noqa: E731
    fake = _Twice(faults={(128, 2): right_on_first})
    best, report = _tune.tune(fake, [x, torch.empty(37)], {}, {}, timer=_unit_timer, verbose=False)
    assert _rejected(report) == {(128, 2): "result 'y' differs from the default candidate on fresh input set 2"}


def test_a_reference_function_checks_the_default_as_well():
    x = torch.arange(1.0, 38.0)
    triples = lambda x, y: y.copy_(x * 3)  # noqa: E731
    fake = _Twice(faults={(128, 1): triples})   # the default itself is wrong
    best, report = _tune.tune(fake, [x, torch.empty_like(x)], {}, {}, timer=_unit_timer, verbose=False,
                              reference=lambda x: x * 2)
    assert _rejected(report) == {(128, 1): "result 'y' differs from the reference on fresh input set 1"}
    assert report["timed"] == 7 and best != {"BLOCK": 128, "BLOCK_P": 1}
    assert report["checked_on"] == "2 fresh random input sets against the reference"


def test_a_reference_of_the_wrong_shape_is_a_clear_error():
    x = torch.ones(5)
    with pytest.raises(ValueError, match=r"the reference returned shapes \[\(4,\)\]; the kernel writes y of shapes"):
        _tune.tune(_Twice(), [x, torch.empty(5)], {}, {}, timer=_unit_timer, verbose=False,
                   reference=lambda x: x[:4])


def test_integer_views_keep_the_callers_values():
    class Gather(_Twice):
        def _views(self):
            return [("idx", "in"), ("x", "in"), ("y", "out")]

        def _launcher(self, constexprs, params):
            return lambda idx, x, y: y.copy_(x[idx])  # random indices would be out of range
    idx = torch.tensor([4, 0, 2, 2])
    best, report = _tune.tune(Gather(), [idx, torch.ones(5), torch.empty(4)], {}, {}, timer=_unit_timer,
                              verbose=False)
    assert report["timed"] == 8 and not report["rejected"]


def test_domain_narrows_the_search_and_moves_the_default_inside_it():
    fake = _FakeKernel()
    timer, order = _tracked(fake, {})
    best, report = _tune.tune(fake, [torch.ones(5), torch.empty(5)], {}, {}, timer=timer, verbose=False,
                              domain={"BLOCK": [512, 256]})
    assert report["candidates"] == 4 and report["timed"] == 4
    assert report["domain"] == {"BLOCK": [256, 512], "BLOCK_P": [1, 2]}
    assert {k[0] for k in order} == {256, 512}
    assert order[0] == (256, 1)  # the default 128 moved to its nearest allowed value


def test_domain_default_moves_to_the_nearest_declared_position_smaller_on_a_tie():
    space = {"BLOCK": ([64, 128, 256, 512], 128), "WARPS": ([1, 2, 4, 8], 4)}
    narrowed = _tune.restrict(space, {"BLOCK": [64, 256], "WARPS": (8,)})
    assert narrowed == {"BLOCK": ([64, 256], 64), "WARPS": ([8], 8)}
    assert _tune.restrict(space, {"BLOCK": [128]}) == {"BLOCK": ([128], 128), "WARPS": ([1, 2, 4, 8], 4)}
    assert _tune.restrict(space, None) == space


@pytest.mark.parametrize("domain,message", [
    ({"TILE": [64]}, "domain names 'TILE', which is not a declared parameter; expected one of BLOCK, WARPS"),
    ({"BLOCK": [64, 96]}, r"domain of 'BLOCK' has 96; expected values from its declared domain \[64, 128, 256, 512\]"),
    ({"WARPS": []}, r"domain of 'WARPS' is empty; expected values from its declared domain \[1, 2, 4, 8\]"),
])
def test_domain_outside_the_declaration_is_an_error(domain, message):
    space = {"BLOCK": ([64, 128, 256, 512], 128), "WARPS": ([1, 2, 4, 8], 4)}
    with pytest.raises(ValueError, match=message):
        _tune.restrict(space, domain)


def test_kernel_tune_passes_domain_and_reference_through(tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path))
    import vector_add
    seen = {}

    def fake_tune(kernel, tensors, scalars, constexprs, **kw):
        seen.update(kw)
        return {"BLOCK_P": 1}, {}
    monkeypatch.setattr(_tune, "tune", fake_tune)
    ref = lambda x, y: torch.relu(x + y) * 1.5  # noqa: E731
    x = torch.ones(8)
    vector_add.vector_add.tune(x, x, torch.empty(8), scale=1.5, domain={"BLOCK_P": [1]}, reference=ref,
                               compile_workers=4, verbose=False)
    assert seen["domain"] == {"BLOCK_P": [1]} and seen["reference"] is ref
    assert seen["compile_workers"] == 4 and seen["compile_pool"] == "process"


def test_a_generated_kernel_is_checked_on_fresh_inputs_under_the_interpreter(tmp_path, monkeypatch):
    # The real path: view modes from the kernel's ABI, the generated wrapper launching on fresh sets.
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path))
    import softmax
    kernel = softmax.softmax
    assert kernel._views() == [("x", "in"), ("y", "out")]
    x = torch.randn(3, 40)
    y = torch.empty_like(x)
    best, report = _tune.tune(kernel, [x, y], {}, {}, timer=_unit_timer, verbose=False,
                              domain={"BLOCK": [64, 128], "WARPS": [4], "STAGES": [3], "LOOP_STAGES": [3]},
                              reference=lambda x: torch.softmax(x, 1))
    # BLOCK 64/128 x TMA 0/1 (the staged rows' [ROWS, BLOCK] tiles are boxes, pgpu-pack-rows); ROWS only
    # its call default 1: 3 rows leave no multiprocessor a second row (`Kernel._rows_searched`).
    assert report["candidates"] == 4 and report["timed"] == 4 and not report["rejected"], report
    assert report["domain"]["ROWS"] == [1] and report["domain"]["TMA"] == [0, 1]
    assert "compile_ahead" not in report


def test_a_candidate_orders_of_magnitude_slower_is_rejected_before_timing(monkeypatch):
    # The launch on the second set (compiled by then) of (512, 2) takes far longer than the fastest one
    # checked: rejected without running the timer's repetitions (session 12: an element-wise branch's
    # launches outlasted a whole search's budget).
    x = torch.arange(1.0, 38.0)
    clock = [0.0]
    monkeypatch.setattr(_tune.time, "monotonic", lambda: clock[0])

    def slow(x, y):
        clock[0] += 5.0
        y.copy_(x * 2)
    fake = _Twice(faults={(512, 2): slow})
    best, report = _tune.tune(fake, [x, torch.empty_like(x)], {}, {}, timer=_unit_timer, verbose=False,
                              budget_s=1e9)
    rejected = _rejected(report)
    assert set(rejected) == {(512, 2)}
    assert rejected[(512, 2)].startswith("_TooSlow: its launch took 5.000 s against 0.0000 s")
    assert report["timed"] == 7


def test_bindings_that_take_an_element_wise_branch_are_left_out(tmp_path, monkeypatch):
    # Attention's head size D past BLOCK_D takes the element-wise branch its launch-fact guard keeps beside
    # the tiled one (`<kernel>_ELEMENTWISE`): on a call whose default covers D, the search leaves out every
    # binding with a BLOCK_D below D; where no candidate covers D, nothing is left out.
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path))
    monkeypatch.syspath_prepend(str(ROOT / "bench"))  # undone after the test (bench/attention.py shadows examples')
    import tessel.language as T
    import attention_kernels as AK
    kernel = AK.attention(T.f16, name="attention_elementwise")
    # Listed whole (candidates): the parameters the branch does not read are narrowed to one value each,
    # else the 7.56 million bindings take a minute to decide.
    one = {"FOLD_SPLIT": [1], "PAIR_BLOCKS": [1], "WARPS": [4], "STAGES": [2], "TMA": [0], "LOOP_STAGES": [3]}
    for d, kept in ((96, {128, 256}), (128, {128, 256}), (300, {16, 32, 64, 128, 256})):
        q = torch.ones(1, 2, 5, d, dtype=torch.float16)
        space, default, viable, pruned = _tune.candidates(kernel, {"CAUSAL": True}, one, "triton",
                                                          [q, q, q, torch.empty_like(q)])
        assert {p["BLOCK_D"] for p in viable} == kept
        assert ("element-wise branch" in pruned) == (d <= 256)
        assert default in viable
        # BLOCK sizes only the element-wise branch's rows (`<kernel>_ELEMENTWISE_ONLY`): kept at its default
        # where no candidate takes that branch.
        assert len({p["BLOCK"] for p in viable}) == (1 if d <= 256 else len(space["BLOCK"][0]))
