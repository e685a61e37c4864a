"""A long row's blocked statistics across programs in two phases (pgpu-split-row-walks; seed 002 §4, seed
000 §4.4): after the row plans (pgpu-stage-rows / pgpu-pack-rows), a row longer than BLOCK has its blocked
walks cut into MEMBER_SPLITS slices of blocks; the first phase sums the slices of the mean, the second
waits for them, merges them in slice order and sums its slice of the squares about the mean; the row's
last arrival merges and stores. A row that fits a block keeps its staged (packed) path. Checked at odd
shapes (empty rows, one element, primes, non-multiples of every block) on random inputs against NumPy,
the KIR interpreter, the pgpu interpreter in forward, reverse and shuffled order at several MEMBER_SPLIT
and BLOCK bindings, and Triton under TRITON_INTERPRET=1 called twice (the second call starts from the
counts the first returned to zero).
"""
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module
torch = pytest.importorskip("torch")

from conftest import call_twice_against  # noqa: E402
from interp_cli import provider_program, row_variance_want, run_seeded  # noqa: E402
import interp_cli  # noqa: E402

row_variance = interp_cli.row_variance()
row_sum_max = interp_cli.row_sum_max()  # must not be split: no walk reads another (one phase)


def _want(ins):
    return row_variance_want(ins["x.in"])


def _run(tessel_bin, tmp_path, file, shape, order, params=(), stage=()):
    return run_seeded(tessel_bin, tmp_path, file, row_variance, shape, order, params, stage)


# rows of 0 or 1 element (staged), a prime past a 64-lane block, one just past 3 blocks of 512
SHAPES = [dict(R=3, N=0), dict(R=1, N=1), dict(R=5, N=257), dict(R=2, N=1543)]
BINDINGS = [("shuffle", ("BLOCK=64",)), ("forward", ("BLOCK=64", "MEMBER_SPLIT=2")),
            ("reverse", ("BLOCK=64", "MEMBER_SPLIT=4", "ROWS=2")), ("shuffle", ("BLOCK=512", "MEMBER_SPLIT=64")),
            ("shuffle", ("BLOCK=64", "MEMBER_SPLIT=1"))]


@pytest.mark.parametrize("shape", SHAPES, ids=lambda c: "-".join(f"{k}{v}" for k, v in c.items()))
def test_matches_numpy_and_interpreters(tessel_bin, tmp_path, shape):
    source, program = provider_program(tessel_bin, tmp_path, row_variance)
    assert '"MEMBER_SPLIT"' in program.read_text()
    kir = _run(tessel_bin, tmp_path, source, shape, "forward", stage=("--stage", "kir"))
    for name, want in _want(kir).items():
        np.testing.assert_allclose(kir[name], want, rtol=1e-5, atol=1e-5, err_msg=name)
    for order, params in BINDINGS:
        got = _run(tessel_bin, tmp_path, program, shape, order, params)
        for name in ("mean", "var"):
            np.testing.assert_allclose(got[name], kir[name], rtol=1e-5, atol=1e-5, err_msg=f"{name} {order} {params}")


def test_the_second_phase_waits_and_the_last_arrival_stores(tessel_bin, tmp_path):
    text = provider_program(tessel_bin, tmp_path, row_variance)[1].read_text()
    head, last = text.split("pgpu.last_program", 1)
    assert 'roles ["axis0", "member_split"]' in head
    assert "order acquire" in head and "order release" in head
    assert "pgpu.store" in last


def test_one_phase_is_not_split(tessel_bin, tmp_path):
    assert "MEMBER_SPLIT" not in provider_program(tessel_bin, tmp_path, row_sum_max)[1].read_text()


def test_triton_twice_matches_numpy(tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("TESSEL_PARAMS", "BLOCK=64,MEMBER_SPLIT=4")
    rng = np.random.default_rng(7)

    def args():
        x = rng.standard_normal((3, 331)) * 3.0 + 5.0
        return [torch.from_numpy(x.astype(np.float32)), torch.zeros(3), torch.zeros(3)]
    call_twice_against(row_variance, args, ["x.in", "mean", "var"], _want, rtol=1e-5, atol=1e-5)


_COUNTS = {}


def _programs(binding, shape):
    """The launch's program count at `binding` on an [R, N] f32 view (meta: no memory), read off the generated
    module's `<kernel>_PROGRAMS` (one module: the count is a function of the binding)."""
    if not _COUNTS:
        scope = {}
        exec(compile(row_variance.source("triton", None, binding), "row_variance_module", "exec"), scope)
        _COUNTS["f"] = next(f for name, f in scope.items() if name.endswith("_PROGRAMS"))
    return _COUNTS["f"](binding, {"x": torch.empty(shape, dtype=torch.float32, device="meta")})


def test_many_long_rows_split_into_slices_l2_holds():
    # 64 rows of 4M f32 in 8192-lane blocks (corpus 137): FILL alone allows ceil(1056 / 64) = 17 slices a
    # row (1 MiB each, re-read from DRAM); the slice cap ceil(512 / 8) = 64 gives 8 blocks a slice.
    binding = dict(BLOCK=8192, ROWS=1, MEMBER_SPLIT=64)
    assert _programs(binding, (64, 4194304)) == 64 * 2 * 64
    # few rows: FILL decides as before (ceil(1056 / 4) = 264 >= MEMBER_SPLIT); a row that fits one block
    # keeps its one program; MEMBER_SPLIT still bounds the slices
    assert _programs(binding, (4, 1 << 20)) == 4 * 2 * 64
    assert _programs(binding, (64, 8192)) == 64
    assert _programs(dict(binding, MEMBER_SPLIT=16), (64, 4194304)) == 64 * 2 * 16
    # many rows of few blocks: the slice cap ceil(3 / 8) = 1 under FILL's ceil(1056 / 4096) = 1: unsplit
    assert _programs(binding, (4096, 3 * 8192)) == 4096
