"""The untuned call's binding of a histogram's bin ranges (issue 16): where no HBINS candidate holds the
B bins, HBINS x HPASSES covers them (`<kernel>_PASSES`, pgpu-privatize-histograms' `passes` link) with
the largest HBINS the provider keeps (its shared-memory fit: the selector targets keep the count
arrays that fit, Triton drops the link) in the fewest passes, and BLOCK_P gives each program 8
elements per bin it merges. The rule (`covering_passes`, `merged_ownership`) at B = 0, 1, primes and
bins that are not a multiple of HBINS; the PTX and Triton providers' call defaults of
examples/histogram.py; and the pgpu interpreter (shuffled program order) against NumPy's bincount at
the bindings the PTX call picks, at odd shapes with values on the ranges' edges and outside [0, B).
"""
import subprocess
import sys

import numpy as np
import pytest

from tessel import _kernel
from tessel._kernel import covering_passes, merged_ownership

from conftest import ROOT

torch = pytest.importorskip("torch")
sys.path.insert(0, str(ROOT / "examples"))

HBINS = [32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768]
HPASSES = [1, 2, 4, 8]
BLOCK_P = [1024, 4096, 16384, 65536, 262144, 524288]


@pytest.mark.parametrize("n,want", [
    (0, None), (1, None), (97, None), (32768, None),  # one candidate holds n (or nothing to count)
    (32769, (32768, 2)), (40009, (32768, 2)), (65521, (32768, 2)), (65536, (32768, 2)),
    (65537, (32768, 4)),  # 3 passes run (ceil(65537 / 32768)); 4 declared
    (98304, (32768, 4)), (131072, (32768, 4)), (262144, (32768, 8)),
    (262145, None),  # past 32768 x 8: the direct atomics
])
def test_covering_passes(n, want):
    assert covering_passes(n, HBINS, HPASSES) == want
    if want:
        tile, passes = want
        assert tile * passes >= n and -(-n // tile) == -(-n // max(HBINS))  # fewest passes that run


def test_covering_passes_takes_the_smallest_tile_for_those_passes():
    # A provider keeping 8192 bins (the AMDGPU target's static shared memory): 40009 bins need 5 passes
    # of 8192 (8 declared), and no smaller tile covers them in 5.
    assert covering_passes(40009, HBINS[:9], HPASSES) == (8192, 8)
    assert covering_passes(16385, HBINS[:9], HPASSES) == (8192, 4)  # 3 passes of 8192 run
    # Ranges of 4096 would cover 12000 bins in 3 passes too, but the largest tile needs only 2.
    assert covering_passes(12000, HBINS[:9], HPASSES) == (8192, 2)
    assert covering_passes(12000, HBINS[:9], [1, 4]) == (8192, 4)
    assert covering_passes(12000, HBINS[:9], [1]) is None


@pytest.mark.parametrize("n,tile,passes,want", [
    (1024, 1024, 1, None),  # 8 x 1024 is below the default 65536
    (32768, 32768, 1, 262144), (65536, 32768, 2, 524288), (40009, 32768, 2, 524288),
    (65537, 32768, 4, 524288),  # 8 x 98304 is past every candidate: the largest
    (65536, 32, 1, None),  # the direct form runs: BLOCK_P keeps its default
    (0, 32, 1, None),
])
def test_merged_ownership(n, tile, passes, want):
    assert merged_ownership(n, tile, passes, BLOCK_P, 65536) == want


def histogram_kernel(target):
    import histogram
    return _kernel.Kernel(histogram.histogram.fn, name="histogram", target=target)


def views(n, bins):
    return [torch.zeros(n, dtype=torch.int32), torch.zeros(bins, dtype=torch.int32)]


@pytest.fixture(scope="module")
def ptx_kernel():
    return histogram_kernel("ptx")


@pytest.mark.parametrize("bins,want", [
    (0, None), (1, None), (32, None), (1024, {"HBINS": 1024}),
    (32768, {"HBINS": 32768, "BLOCK_P": 262144}),
    (65521, {"HBINS": 32768, "HPASSES": 2, "BLOCK_P": 524288}),
    (65536, {"HBINS": 32768, "HPASSES": 2, "BLOCK_P": 524288}),
    (65537, {"HBINS": 32768, "HPASSES": 4, "BLOCK_P": 524288}),
    (262145, None),
])
def test_ptx_call_defaults_cover_the_bins(ptx_kernel, bins, want):
    assert ptx_kernel._fact_params({}, views(1 << 10, bins), "ptx") == want


def test_ptx_call_compiles_the_ranged_form_with_the_measured_binding(ptx_kernel):
    # The binding measured at 3.19x torch.bincount on the H200: THREADS follows HBINS's fragment (1024).
    chosen = ptx_kernel._fact_params({}, views(1 << 10, 65536), "ptx")
    text = ptx_kernel.source("ptx", {}, chosen)
    assert "(h.shape[0] <= (32768 * 2))" in text and "// (524288)" in text
    assert ", _grid, 1024, " in text and "counts32768_dynamic131072" in text


def test_triton_call_defaults_keep_the_direct_atomics_past_its_bins():
    k = histogram_kernel("triton")
    # LOOP_STAGES is a separate fact of the same call (a launch with fewer programs than SMs pipelines
    # its walk deeper: test_pipelined_walks).
    chosen = k._fact_params({}, views(1 << 10, 1024), "triton")
    assert {n: v for n, v in chosen.items() if n != "LOOP_STAGES"} == {"HBINS": 1024}
    for bins in (4099, 65536):
        chosen = k._fact_params({}, views(1 << 10, bins), "triton") or {}
        assert "HBINS" not in chosen and "HPASSES" not in chosen and "BLOCK_P" not in chosen


@pytest.mark.parametrize("n,bins", [(3001, 65521), (5000, 65537), (4099, 40009), (1, 32769), (0, 65536),
                                    (2053, 1), (777, 0)])
@pytest.mark.parametrize("spread", ["call", "programs"])
def test_ptx_default_binding_matches_bincount_in_the_interpreter(tessel_bin, ptx_kernel, tmp_path, n, bins, spread):
    params = dict(ptx_kernel._fact_params({}, views(max(n, 1), bins), "ptx") or {})
    if spread == "programs":  # the same ranges over several programs and blocks: merges from each
        params.update(BLOCK_P=1024, BLOCK=256)
    rng = np.random.default_rng(n + bins)
    edges = np.array([-3, -1, 0, 1, 32767, 32768, 32769, 65535, 65536, bins - 1, bins, bins + 2], dtype=np.int64)
    x = np.where(rng.random(n) < 0.5, rng.integers(-3, bins + 3, n), rng.choice(edges, n)).astype(np.int32)
    np.save(tmp_path / "x.npy", x)
    want = np.bincount(x[(x >= 0) & (x < bins)], minlength=bins).astype(np.int32)
    args = [str(tessel_bin), "run", str(ROOT / "examples" / "kir" / "histogram.mlir"), "--stage", "pgpu", "--in",
            f"x={tmp_path / 'x.npy'}", "--shape", f"B={bins}", "--order", "shuffle", "--out", str(tmp_path / "out")]
    if params:
        args += ["--param", ",".join(f"{k}={v}" for k, v in params.items())]
    res = subprocess.run(args, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "out" / "h.npy"), want)


@pytest.fixture
def fake_driver(monkeypatch, tmp_path):
    import ctypes
    from conftest import BUILD
    fake, lib = BUILD / "unittests" / "libtessel-fake-cuda.so", BUILD / "lib" / "libtessel_cuda.so"
    if not fake.exists() or not lib.exists():
        pytest.skip(f"needs {fake} and {lib} (build the unit tests and the tessel_cuda target)")
    monkeypatch.setenv("TESSEL_LIBCUDA", str(fake))
    monkeypatch.setenv("TESSEL_CUDA_LIB", str(lib))
    monkeypatch.setenv("TESSEL_PTX_HOST", "1")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    driver = ctypes.CDLL(str(fake))
    driver.fake_last_kernel.restype = ctypes.c_char_p
    return driver


@pytest.mark.parametrize("bins,variant,grid,threads,shared", [
    (65536, b"histogram$g1", 3, 1024, 131072),  # 2 passes of 32768 bins in dynamic shared memory
    (1024, b"histogram$g1", 17, 128, 0),  # one range of 1024 (static shared memory), BLOCK_P 65536
    (262145, b"histogram$g0", 17, 128, 0),  # past 32768 x 8: the direct atomics
])
def test_ptx_call_launches_its_default_binding(fake_driver, bins, variant, grid, threads, shared):
    # The plain call (no tuned winner): the launch guard's variant, grid (BLOCK_P), CTA and shared
    # memory reach the driver (the stand-in runs no histogram; only the launch is checked).
    k = histogram_kernel("ptx")
    x = torch.zeros((1 << 20) + 3, dtype=torch.int32)
    k(x, torch.zeros(bins, dtype=torch.int32))
    assert fake_driver.fake_last_kernel() == variant
    assert (fake_driver.fake_last_grid(), fake_driver.fake_last_block()) == (grid, threads)
    assert fake_driver.fake_last_shared() == shared
