"""`@tessel.kernel` through the PTX provider: `kernel.launch(..., target="ptx")` compiles the kernel to PTX
in the compiler, imports the generated wrapper and launches through tessel's own CUDA runtime (the C ABI
of libtessel_cuda.so, tessel._ptx). On a CPU machine everything up to the driver runs against the unit
tests' stand-in driver (unittests/Runtime/FakeCuda.cpp: host memory plays device memory, and its `copy`
kernel really copies from the ABI words), so the argument words, grid and CTA size are checked; the GPU
tests run only where CUDA is.
"""
import ctypes
import struct

import numpy as np
import pytest
import torch

import tessel
import tessel.language as T
from tessel import _ptx

from conftest import BUILD

FAKE = BUILD / "unittests" / "libtessel-fake-cuda.so"
LIB = BUILD / "lib" / "libtessel_cuda.so"


@tessel.kernel
def copy(x: T.In[T.f32, ("N",)], y: T.Out[T.f32, ("N",)]):
    n = T.domain(0, x.shape[0])
    y[n] = x[n]


@tessel.kernel
def scaled_rows(x: T.In[T.f32, ("M", "N")], y: T.Out[T.f32, ("M", "N")], scale: T.f32):
    cols = T.domain(0, x.shape[1])
    for m in T.parallel(T.domain(0, x.shape[0])):
        row = x[m, cols]
        y[m, cols] = row / T.sum(row) * scale


@pytest.fixture
def fake_driver(monkeypatch):
    if not FAKE.exists() or not LIB.exists():
        pytest.skip(f"needs {FAKE} and {LIB} (build the unit tests and the tessel_cuda target)")
    monkeypatch.setenv("TESSEL_LIBCUDA", str(FAKE))
    monkeypatch.setenv("TESSEL_CUDA_LIB", str(LIB))
    monkeypatch.setenv("TESSEL_PTX_HOST", "1")
    fake = ctypes.CDLL(str(FAKE))
    fake.fake_last_kernel.restype = ctypes.c_char_p
    return fake


def nonzero(*shape):
    x = torch.rand(*shape) * 0.75 + 0.25
    return torch.where(torch.rand(*shape) < 0.5, -x, x)


def test_wrapper_module_holds_the_ptx_and_launches_through_the_runtime():
    text = copy.source("ptx")
    assert '_PTX = """' in text and ".visible .entry copy(" in text
    assert "from tessel import _ptx" in text
    assert "_ptx.launch(_PTX, 'copy', _grid, " in text
    assert "_check_view('x', x, torch.float32, ('N',), _extents, _device)" in text
    # 32-bit index arithmetic in the kernel: the wrapper bounds each view's span
    assert "the generated PTX \"" in text and "32-bit offsets" in text


@pytest.mark.parametrize("n", [1, 7, 1029])
def test_launch_passes_the_abi_words_to_the_driver(fake_driver, n):
    x, y = nonzero(n), torch.zeros(n)
    copy.launch(x, y, target="ptx")
    assert fake_driver.fake_last_kernel() == b"copy"
    assert torch.equal(y, x)  # the stand-in's copy kernel read pointer, extent and stride words
    params = copy._launcher({}, None, "ptx").__globals__["copy_PARAMS"]
    assert fake_driver.fake_last_block() == params["THREADS"][1]
    assert fake_driver.fake_last_grid() >= 1


def test_strided_views_pass_their_strides(fake_driver):
    x, y = nonzero(2 * 37), torch.zeros(3 * 37)
    copy.launch(x[::2], y[::3], target="ptx")
    assert torch.equal(y[::3], x[::2])
    assert torch.count_nonzero(y) == 37


def copy_flagged(x: T.In[T.f32, ("N",)], y: T.Out[T.f32, ("N",)], FLAG: T.Constexpr[bool] = False):
    n = T.domain(0, x.shape[0])
    y[n] = x[n]


def test_a_ptx_kernel_objects_constexpr_calls_launch_through_its_wrapper(fake_driver):
    # Only Triton modules have launch plans: a PTX kernel object's calls with constexprs (as its plain
    # calls) launch through its wrapper every time, which checks the ABI, and record no planned call.
    k = tessel.kernel(copy_flagged, name="copy", target="ptx")
    for _ in range(3):
        x, y = nonzero(37), torch.zeros(37)
        k(x, y, FLAG=True)
        np.testing.assert_array_equal(y.numpy(), x.numpy())  # the stand-in's `copy` copies
    assert not k._special_fronts and not k._special_plans and not k._plans
    with pytest.raises(ValueError, match="extent 'N'"):
        k(torch.zeros(4), torch.zeros(5), FLAG=True)


def test_empty_launch_is_no_launch(fake_driver):
    x, y = torch.zeros(0), torch.zeros(0)
    copy.launch(x, y, target="ptx")  # grid 0: nothing reaches cuLaunchKernel, no error


def test_grid_follows_the_launch_exprs(fake_driver):
    x, y = nonzero(5, 33), torch.zeros(5, 33)
    scaled_rows.launch(x, y, scale=0.5, target="ptx")  # the stand-in runs only `copy`; y stays zero
    # The row fits the row block: the single-pass variant of the kernel's launch guard (LaunchGuards.h).
    assert fake_driver.fake_last_kernel() == b"scaled_rows$g1"
    assert fake_driver.fake_last_grid() == 5  # one CTA per row
    # A row past the block (BLOCK=64 bound here): the wrapper picks the multi-pass variant.
    x, y = nonzero(3, 65), torch.zeros(3, 65)
    scaled_rows.launch(x, y, scale=0.5, target="ptx", params={"BLOCK": 64})
    assert fake_driver.fake_last_kernel() == b"scaled_rows$g0"
    assert fake_driver.fake_last_grid() == 3


def test_abi_errors_are_raised_before_the_driver(fake_driver, monkeypatch):
    with pytest.raises(TypeError, match="must have dtype torch.float32"):
        copy.launch(torch.zeros(4, dtype=torch.float64), torch.zeros(4), target="ptx")
    with pytest.raises(ValueError, match="extent 'N'"):
        copy.launch(torch.zeros(4), torch.zeros(5), target="ptx")
    with pytest.raises(TypeError, match="scalar 'scale' must be float"):
        scaled_rows.launch(torch.zeros(2, 3), torch.zeros(2, 3), scale="x", target="ptx")
    monkeypatch.delenv("TESSEL_PTX_HOST")
    with pytest.raises(ValueError, match="tessel kernels run on CUDA tensors"):
        copy.launch(torch.zeros(4), torch.zeros(4), target="ptx")


def test_missing_driver_is_a_clear_error(fake_driver, monkeypatch):
    monkeypatch.setenv("TESSEL_LIBCUDA", "/nonexistent/libcuda.so.1")
    with pytest.raises(RuntimeError, match="cannot load the CUDA driver library '/nonexistent/libcuda.so.1'"):
        copy.launch(torch.zeros(4), torch.zeros(4), target="ptx")


def test_missing_runtime_library_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(_ptx, "_LIB", None)
    monkeypatch.setenv("TESSEL_CUDA_LIB", "/nonexistent/libtessel_cuda.so")
    with pytest.raises(RuntimeError, match="tessel's CUDA runtime library is not at /nonexistent"):
        _ptx.launch("", "k", 1, 32, None, [])


def test_scalar_words():
    assert _ptx.scalar(1.5, "f32") == struct.unpack("<I", struct.pack("<f", 1.5))[0]
    assert _ptx.scalar(-2.25, "f64") == struct.unpack("<Q", struct.pack("<d", -2.25))[0]
    assert _ptx.scalar(-3, "int") == (1 << 64) - 3
    for v in [1.0, -0.1, 3.14159, 1e-30, 65504.0, float("inf")]:
        want = torch.tensor([v], dtype=torch.bfloat16).view(torch.int16).item() & 0xFFFF
        assert _ptx.scalar(v, "bf16") == want, v
    assert _ptx.scalar(0.1, "f16") == int(np.float16(0.1).view(np.uint16))


cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")


@cuda
@pytest.mark.parametrize("shape", [(1, 1), (37, 1029), (5, 4099)])
def test_rows_on_the_gpu_match_torch(shape):
    x = (torch.rand(*shape) + 0.25).cuda()  # positive rows: the sums are far from zero
    y = torch.empty_like(x)
    scaled_rows.launch(x, y, scale=0.5, target="ptx")
    torch.cuda.synchronize()
    want = x.double() / x.double().sum(1, keepdim=True) * 0.5
    assert torch.allclose(y.double(), want, rtol=1e-3, atol=1e-4)
