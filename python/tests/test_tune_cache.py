"""The tuning and source caches under hostile conditions (issue 14): entries of the wrong schema,
concurrent writers, truncated files, a folder that cannot be written, a search that timed nothing."""
import json
import multiprocessing
import os
import sys
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "examples"))

from tessel import _kernel, _tune  # noqa: E402

SPACE = {"BLOCK": ([64, 128, 256], 128), "num_warps": ([4, 8], 4)}


@pytest.mark.parametrize("entry", [[1, 2], "BLOCK=128", {}, {"BLOCK": "128"}, {"BLOCK": 1.5},
                                   {"BLOCK": True}, {"BLOCK": None}, 7])
def test_an_entry_of_the_wrong_schema_is_ignored_with_one_warning(tmp_path, entry):
    path = tmp_path / "tuning.json"
    path.write_text(json.dumps({"k": entry, "ok": {"BLOCK": 64, "num_warps": 8}}))
    with pytest.warns(UserWarning, match="ignoring the cached tuning entry 'k'"):
        assert _tune.lookup(path, "k") is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _tune.lookup(path, "k") is None  # warned once per entry
        assert _tune.lookup(path, "ok", SPACE) == {"BLOCK": 64, "num_warps": 8}


@pytest.mark.parametrize("entry", [{"BLOCK": 100, "num_warps": 4}, {"BLOCK": 64}, {"BLOCK": 64, "num_warps": 4,
                                                                                    "EXTRA": 1}])
def test_an_entry_outside_the_declared_space_is_not_returned_as_the_winner(tmp_path, entry):
    path = tmp_path / "tuning.json"
    path.write_text(json.dumps({"k": entry}))
    with pytest.warns(UserWarning, match="re-tuned"):
        assert _tune.lookup(path, "k", SPACE) is None


@pytest.mark.parametrize("text", ["[1, 2]", "\"x\"", "null", "{\"k\": {\"BLOCK\": 6", ""])
def test_a_file_of_the_wrong_shape_counts_as_empty_and_is_rewritten(tmp_path, text):
    path = tmp_path / "tuning.json"
    path.write_text(text)
    with pytest.warns(UserWarning, match="tuning cache"):
        assert _tune.lookup(path, "k") is None
    with pytest.warns(UserWarning):
        assert _tune.store(path, "k", {"BLOCK": 64})
    assert json.loads(path.read_text()) == {"k": {"BLOCK": 64}}


def test_store_drops_invalid_entries_and_refuses_an_invalid_winner(tmp_path):
    path = tmp_path / "tuning.json"
    path.write_text(json.dumps({"bad": "x", "good": {"BLOCK": 64}}))
    _tune.store(path, "new", {"BLOCK": 128})
    assert json.loads(path.read_text()) == {"good": {"BLOCK": 64}, "new": {"BLOCK": 128}}
    with pytest.raises(ValueError, match="invalid tuning result"):
        _tune.store(path, "k", {"BLOCK": "big"})


def _store_many(args):
    path, worker, count = args
    for i in range(count):
        _tune.store(Path(path), f"w{worker}-{i}", {"BLOCK": i + 1})


def test_concurrent_writers_lose_no_entry(tmp_path):
    path = tmp_path / "tuning.json"
    workers, count = 4, 25
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(workers) as pool:
        pool.map(_store_many, [(str(path), w, count) for w in range(workers)])
    cache = json.loads(path.read_text())
    assert len(cache) == workers * count
    assert not [p for p in tmp_path.iterdir() if p.suffix == ".tmp"]


def test_a_failed_write_leaves_the_old_file_whole(tmp_path, monkeypatch):
    path = tmp_path / "tuning.json"
    _tune.store(path, "k", {"BLOCK": 64})

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.warns(UserWarning, match="could not write the tuning cache"):
        assert not _tune.store(path, "j", {"BLOCK": 128})
    monkeypatch.undo()
    assert json.loads(path.read_text()) == {"k": {"BLOCK": 64}}
    assert not [p for p in tmp_path.iterdir() if p.suffix == ".tmp"]


def test_an_unusable_cache_folder_degrades_to_a_private_one_with_one_warning(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("TESSEL_CACHE", str(blocker / "cache"))  # cannot be created
    monkeypatch.setattr(_kernel, "_PRIVATE_DIRS", {})
    with pytest.warns(UserWarning, match="cannot be used"):
        first = _kernel._cache_dir()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _kernel._cache_dir() == first
    assert first.is_dir() and os.access(first, os.W_OK)


def test_a_read_only_cache_folder_degrades_too(tmp_path, monkeypatch):
    folder = tmp_path / "ro"
    folder.mkdir()
    monkeypatch.setenv("TESSEL_CACHE", str(folder))
    monkeypatch.setattr(_kernel, "_PRIVATE_DIRS", {})
    real_access = os.access
    # The tests may run as root, for whom chmod does not stop writes: the check is what matters.
    monkeypatch.setattr(os, "access", lambda p, mode: False if str(p) == str(folder) else real_access(p, mode))
    with pytest.warns(UserWarning, match="not writable"):
        assert _kernel._cache_dir() != folder


def test_the_source_seal_detects_truncation():
    text = "import triton\n\ndef f():\n    return 1\n"
    sealed = _kernel._sealed(text)
    assert _kernel._unseal(sealed) == text
    for cut in (1, len(sealed) // 2, len(sealed) - 2):
        assert _kernel._unseal(sealed[:cut]) is None
    assert _kernel._unseal(sealed.replace("return 1", "return 2")) is None
    assert _kernel._unseal(text) is None


def test_a_truncated_cached_source_is_recompiled(tmp_path, monkeypatch, tessel_bin):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path))
    import vector_add
    kernel = vector_add.vector_add
    text = kernel.source("triton")
    [cached] = tmp_path.glob("vector_add-*.py")
    cached.write_text(cached.read_text()[:200])
    with pytest.warns(UserWarning, match="damaged"):
        assert kernel.source("triton") == text
    assert _kernel._unseal(cached.read_text()) == text


def test_a_search_that_timed_nothing_caches_nothing(tmp_path, monkeypatch, tessel_bin):
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path))
    import vector_add
    kernel = vector_add.vector_add
    default = {n: d for n, (_, d) in kernel._space({}).items()}
    monkeypatch.setattr(_tune, "tune", lambda *a, **k: (dict(default), {"timed": 0, "winner_ms": None}))
    x = torch.ones(8)
    assert kernel.tune(x, x.clone(), torch.empty(8), scale=1.0, verbose=False) == default
    assert not (tmp_path / "tuning.json").exists()
    monkeypatch.setattr(_tune, "tune", lambda *a, **k: (dict(default), {"timed": 3, "winner_ms": 1.0}))
    kernel.tune(x, x.clone(), torch.empty(8), scale=1.0, verbose=False)
    assert list(json.loads((tmp_path / "tuning.json").read_text()).values()) == [default]


def _returns_within(fn, seconds=60):
    """fn()'s result, run on a daemon thread: a read that blocks (a FIFO) fails the test instead of
    hanging the suite."""
    import threading
    result = {}
    thread = threading.Thread(target=lambda: result.setdefault("value", fn()), daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "the cache read blocked"
    return result.get("value")


def _hostile(path, kind):
    """Puts a FIFO, a link to /dev/zero, or a folder in place of the cache file `path`."""
    if path.exists() or path.is_symlink():
        path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        path.symlink_to("/dev/zero")


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_cached_source_that_is_not_a_regular_file_is_replaced(tmp_path, monkeypatch, tessel_bin, kind):
    """Issue 47: a FIFO in place of a cached source blocked the call forever, a link to /dev/zero gave
    MemoryError. Cache reads open regular files only (bounded): it is damage, recompiled and replaced."""
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path))
    import vector_add
    kernel = vector_add.vector_add
    text = kernel.source("triton")
    [cached] = tmp_path.glob("vector_add-*.py")
    _hostile(cached, kind)
    with pytest.warns(UserWarning, match="damaged"):
        assert _returns_within(lambda: kernel.source("triton")) == text
    assert cached.is_file() and not cached.is_symlink() and _kernel._unseal(cached.read_text()) == text


def test_a_cached_source_past_the_size_limit_is_not_read(tmp_path, monkeypatch, tessel_bin):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path))
    import vector_add
    kernel = vector_add.vector_add
    text = kernel.source("triton")
    monkeypatch.setattr(_tune, "SOURCE_LIMIT", 100)
    with pytest.raises(_tune.NotCached, match="more than the 100"):
        _tune.read_cached(next(tmp_path.glob("vector_add-*.py")), 100)
    with pytest.warns(UserWarning, match="damaged"):
        assert kernel.source("triton") == text


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_tuning_cache_that_is_not_a_regular_file_counts_as_empty(tmp_path, kind):
    path = tmp_path / "tuning.json"
    _hostile(path, kind)
    with pytest.warns(UserWarning, match=r"ignoring the tuning cache .*tuning.json: not a regular file"):
        assert _returns_within(lambda: _tune.lookup(path, "k")) is None
    with pytest.warns(UserWarning):
        assert _returns_within(lambda: _tune.store(path, "k", {"BLOCK": 64}))
    assert json.loads(path.read_text()) == {"k": {"BLOCK": 64}}


@pytest.mark.parametrize("text", ["[" * 100000 + "]" * 100000, '{"k": ' + "[" * 100000 + "]" * 100000 + "}",
                                  '{"k": {"BLOCK": ' + "[" * 900 + "]" * 900 + "}}"])
def test_a_nested_tuning_cache_is_named_not_a_recursion_error(tmp_path, text):
    """Issue 47: a deeply nested tuning.json escaped as RecursionError (from every CUDA call reading it);
    it is a warning naming the file, the file counts as empty (or the entry as unusable) and is rewritten."""
    path = tmp_path / "tuning.json"
    path.write_text(text)
    with pytest.warns(UserWarning, match=r"tuning.json|tuning entry 'k'"):
        assert _tune.lookup(path, "k") is None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _tune.store(path, "k", {"BLOCK": 64})
    assert json.loads(path.read_text()) == {"k": {"BLOCK": 64}}


def test_a_tuning_cache_past_the_size_limit_counts_as_empty(tmp_path, monkeypatch):
    path = tmp_path / "tuning.json"
    path.write_text(json.dumps({"k": {"BLOCK": 64}, "pad": "x" * 200}))
    monkeypatch.setattr(_tune, "TUNING_LIMIT", 100)
    with pytest.warns(UserWarning, match="more than the 100 a cache file may"):
        assert _tune.lookup(path, "k") is None
