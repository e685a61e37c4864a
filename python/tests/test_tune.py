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


def test_param_outside_its_domain_is_rejected(tmp_path):
    src = ROOT / "examples" / "vector_add.py"
    tessel = os.environ.get("TESSEL_BIN", str(ROOT / "build" / "bin" / "tessel"))
    r = subprocess.run([tessel, "compile", f"{src}:vector_add", "--emit=source", "--target=triton",
                        "--param", "BLOCK_P=3", "-o", str(tmp_path / "out.py")],
                       capture_output=True, text=True)
    assert r.returncode != 0
    assert "BLOCK_P" in r.stderr
    assert not (tmp_path / "out.py").exists()
