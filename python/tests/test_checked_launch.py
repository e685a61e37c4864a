"""Issue 14, the checked launch mode (`@tessel.kernel(checked=True)` or TESSEL_CHECKED=1): before each
launch the generated wrapper checks the values of every view the compiler found to be gather/scatter
coordinates (`pgpu.indexes`, kir/IndexFacts.h) against the extent they index, reading them with torch
ops on their device; aliasing is refused as in the normal mode. Plans (the repeated-call fast path) are
not taken in this mode. Runs under TRITON_INTERPRET=1 on the CPU."""
import importlib
import importlib.util
import os
import sys
from pathlib import Path

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"
torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def example(name, checked=True):
    """A fresh kernel object of a suite example (fresh: its generated module is imported anew)."""
    if str(EXAMPLES) not in sys.path:
        sys.path.insert(0, str(EXAMPLES))
    mod = importlib.import_module(name)
    if Path(getattr(mod, "__file__", "") or "").resolve().parent != EXAMPLES:
        # another test file of this worker imported a module of that name from elsewhere (bench/histogram.py)
        spec = importlib.util.spec_from_file_location(f"examples_{name}", EXAMPLES / f"{name}.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    fn = getattr(mod, name).fn
    return tessel.kernel(fn, checked=checked)


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("TESSEL_CHECKED", raising=False)


def embedding_args(ids):
    table = torch.randn(5, 3)
    ids = torch.tensor(ids, dtype=torch.int32)
    return table, ids, torch.zeros(len(ids), 3)


def test_an_out_of_range_gather_index_is_named():
    embedding = example("embedding")
    table, ids, out = embedding_args([0, 4, 5, 1])
    with pytest.raises(IndexError, match=r"argument 'ids' at 2 is 5: it indexes axis 0 of 'table', "
                                         r"so it must lie in \[0, 5\) \(checked launch mode\)"):
        embedding(table, ids, out)
    assert not out.any()  # refused before the launch


def test_a_negative_gather_index_is_named():
    embedding = example("embedding")
    table, ids, out = embedding_args([3, -1, 0])
    with pytest.raises(IndexError, match=r"argument 'ids' at 1 is -1: .* \[0, 5\)"):
        embedding(table, ids, out)


def test_an_out_of_range_scatter_index_is_named():
    scatter_add = example("scatter_add")
    grad_out, ids = torch.randn(4, 3), torch.tensor([1, 0, 7, 1], dtype=torch.int32)
    grad_table = torch.zeros(6, 3)
    with pytest.raises(IndexError, match=r"argument 'ids' at 2 is 7: it indexes axis 0 of 'grad_table', "
                                         r"so it must lie in \[0, 6\)"):
        scatter_add(grad_out, ids, grad_table)
    assert not grad_table.any()


def test_a_data_dependent_load_index_is_checked():
    cross_entropy = example("cross_entropy")
    logits, target, loss = torch.randn(3, 4), torch.tensor([0, 3, 4], dtype=torch.int32), torch.empty(3)
    with pytest.raises(IndexError, match=r"argument 'target' at 2 is 4: it indexes axis 1 of 'logits'"):
        cross_entropy(logits, target, loss)


def test_correct_calls_run_and_every_call_is_checked():
    # The second and third calls have the first one's shapes: in the normal mode they take its plan;
    # here each is checked in full, so a bad index after good calls is still refused.
    embedding = example("embedding")
    for _ in range(2):
        table, ids, out = embedding_args([4, 0, 2, 2, 1])
        embedding(table, ids, out)
        np.testing.assert_array_equal(out.numpy(), table[ids.long()].numpy())
    assert not embedding._plans and embedding._front is None
    table, ids, out = embedding_args([4, 0, 2, 9, 1])
    with pytest.raises(IndexError, match="argument 'ids' at 3 is 9"):
        embedding(table, ids, out)
    scatter_add = example("scatter_add")
    grad_out, ids, grad_table = torch.randn(4, 3), torch.tensor([1, 0, 5, 1], dtype=torch.int32), torch.zeros(6, 3)
    scatter_add(grad_out, ids, grad_table)
    want = torch.zeros(6, 3).index_add_(0, ids.long(), grad_out)
    np.testing.assert_allclose(grad_table.numpy(), want.numpy(), rtol=1e-6)


def test_aliasing_is_refused_in_the_checked_mode_too():
    softmax = example("softmax")
    x = torch.randn(3, 7)
    with pytest.raises(ValueError, match="argument 'y' overlaps argument 'x' in memory"):
        softmax(x, x)
    argmax = example("argmax")
    buf = torch.empty(16, dtype=torch.int64)
    idx, v = buf[:4], buf.view(torch.float32)[2:6]  # two outputs in bytes 0-32 and 8-24 of one storage
    with pytest.raises(ValueError, match="argument 'idx' overlaps argument 'v'"):
        argmax(torch.randn(4, 5), v, idx)


def test_the_environment_variable_turns_it_on(monkeypatch):
    monkeypatch.setenv("TESSEL_CHECKED", "1")
    embedding = example("embedding", checked=False)
    table, ids, out = embedding_args([0, 1])
    embedding(table, ids, out)
    table, ids, out = embedding_args([0, 1])  # same shapes: would be a planned call in the normal mode
    ids[1] = 5
    with pytest.raises(IndexError, match="argument 'ids' at 1 is 5"):
        embedding(table, ids, out)
    # The generated module's own entry point honours it too (its front takes no plan).
    module = embedding._launcher({}).__globals__
    assert module["_CHECKED"]
    with pytest.raises(IndexError, match="argument 'ids' at 1 is 5"):
        module["embedding"](table, ids, out)


def test_the_normal_mode_is_unaffected():
    embedding = example("embedding", checked=False)
    table, ids, out = embedding_args([4, 0, 2])
    embedding(table, ids, out)
    embedding(table, ids, out)  # the plan's fast path
    np.testing.assert_array_equal(out.numpy(), table[ids.long()].numpy())
    assert embedding._plans and embedding._front is not None
    module = embedding._launcher({}).__globals__
    assert not module["_CHECKED"]
    # The index checks sit behind the mode's switch only; a kernel with no index facts has none.
    source = embedding.source()
    assert "    if _indices:  # checked launch mode" in source
    assert "_check_index('ids', ids, 'table', table, 0)" in source
    assert "_check_index(" not in example("histogram").source().split("def _check_index")[1].split("\n", 1)[1]


def embedding_signed(table: T.In[T.f32, ("V", "D")], ids: T.In[T.i32, ("T",), T.Range(0, "V")],
                     out: T.Out[T.f32, ("T", "D")], NEGATE: T.Constexpr[bool] = False):
    tokens, dims = T.domain(0, ids.shape[0]), T.domain(0, table.shape[1])
    rows = T.index_relation(ids, tokens)
    if NEGATE:
        out[tokens, dims] = -table[rows, dims]
    else:
        out[tokens, dims] = table[rows, dims]


@pytest.mark.parametrize("mode", ["checked", "environment", "normal"])
def test_constexpr_calls_are_checked_in_full_in_the_checked_mode(mode, monkeypatch):
    # A call with constexpr keywords is planned in the normal mode (test_launch_plans.py); in the
    # checked mode every one is checked in full, so a bad index after good calls is still refused.
    checked = mode != "normal"
    if mode == "environment":
        monkeypatch.setenv("TESSEL_CHECKED", "1")
    embedding = tessel.kernel(embedding_signed, checked=mode == "checked")
    for negate in (True, True, False, False):
        table, ids, out = embedding_args([4, 0, 2, 2, 1])
        embedding(table, ids, out, NEGATE=negate)
        np.testing.assert_array_equal(out.numpy(), (-1 if negate else 1) * table[ids.long()].numpy())
    planned = bool(embedding._special_fronts) and bool(embedding._special_plans)
    assert planned is not checked and not embedding._plans and embedding._front is None
    table, ids, out = embedding_args([4, 0, 2, 9, 1])
    if checked:
        with pytest.raises(IndexError, match="argument 'ids' at 3 is 9"):
            embedding(table, ids, out, NEGATE=True)


@pytest.mark.parametrize("target", ["cutile", "ptx"])
def test_every_provider_wrapper_carries_the_index_checks(target):
    # The checks are emitted by the shared wrapper code (Target/Wrapper.h), so cuTile's and PTX's
    # launch functions take `_indices` and check the same facts.
    source = example("embedding").source(target)
    assert "_check_index('ids', ids, 'table', table, 0)" in source
    assert "*, _indices=_CHECKED):" in source
