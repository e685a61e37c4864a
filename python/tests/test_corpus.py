"""bench/corpus: kernels written from docs/language.md alone (issue 41). Each one runs on the KIR
interpreter and through the Triton provider under TRITON_INTERPRET=1 at its odd test shapes and must agree
with its NumPy reference. A file's XFAIL names a compiler gap; the mark is strict, so the fix removes it.

By default each kernel runs at one test shape, its second (odd and small; the first when it has one), to keep
CI within its time; TESSEL_CORPUS_ALL=1 runs every test shape (bench/corpus/check.py does too)."""
import os
import pathlib
import sys

import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench" / "corpus"))
import _harness as H  # noqa: E402

sys.path.pop(0)


def _cases():
    every = os.environ.get("TESSEL_CORPUS_ALL") == "1"
    for name in H.names():
        mod = H.load(name)
        shapes = list(mod.TEST_SHAPES)
        picked = range(len(shapes)) if every else (min(1, len(shapes) - 1),)
        for i in picked:
            for path in ("interp", "triton"):
                marks = []
                if H.marked(mod, "XFAIL", path):
                    marks.append(pytest.mark.xfail(reason=H.marked(mod, "XFAIL", path), strict=True))
                if H.marked(mod, "SKIP", path):
                    marks.append(pytest.mark.skip(reason=H.marked(mod, "SKIP", path)))
                yield pytest.param(name, i, path, id=f"{name}-{path}-{i}", marks=marks)


@pytest.mark.parametrize("name,index,path", list(_cases()))
def test_corpus_kernel(name, index, path, tessel_bin):
    mod = H.load(name)
    shape = mod.TEST_SHAPES[index]
    msg = H.check(mod, shape, index, path)
    assert msg is None, f"{name} at {shape} ({path}): {msg}"


def test_corpus_files_follow_the_contract():
    """Every corpus file defines what bench/corpus/README.md asks for."""
    assert len(H.names()) >= 30, "issue 41 asks for at least 30 corpus kernels"
    for name in H.names():
        mod = H.load(name)
        for attr in ("KERNEL", "inputs", "reference", "peer", "TEST_SHAPES", "BENCH_SHAPE", "TOLERANCE", "PEER"):
            assert hasattr(mod, attr), f"bench/corpus/{name}.py defines no {attr}"
        assert mod.TEST_SHAPES, f"bench/corpus/{name}.py has no test shapes"
        assert set(H.symbols(mod)) <= set(mod.BENCH_SHAPE), f"{name}: BENCH_SHAPE misses extents"
