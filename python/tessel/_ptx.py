"""The PTX provider's Python side: launches through tessel's own CUDA runtime.

`tessel compile ... --target=ptx --emit=wrapper` (or `kernel.source("ptx")`) writes a module that holds the
PTX and, per kernel, a wrapper that checks the ABI and calls `launch` here. `launch` goes through the C ABI
of libtessel_cuda.so (include/tessel/Runtime/CudaLaunch.h: libcuda.so.1 by dlopen, cuModuleLoadData once
per module and device, one process-wide mutex) with ctypes, on the current torch stream.

The library is $TESSEL_CUDA_LIB, else lib/libtessel_cuda.so beside the tessel binary's bin/ directory.
TESSEL_LIBCUDA points the runtime at another driver library (the tests' stand-in, which plays device
memory with host memory; with TESSEL_PTX_HOST=1 the wrappers then accept CPU tensors).
"""
from __future__ import annotations

import ctypes
import os
import pathlib
import struct
import threading

from . import _cli

_LIB = None
_LOCK = threading.Lock()


def library_path() -> pathlib.Path:
    env = os.environ.get("TESSEL_CUDA_LIB")
    if env:
        return pathlib.Path(env)
    return pathlib.Path(_cli.find_tessel()).resolve().parent.parent / "lib" / "libtessel_cuda.so"


def unavailable() -> str | None:
    """Why this process cannot launch PTX wrappers, or None: tessel's CUDA runtime library is not built
    (or not found), or there is no CUDA device to launch on (TESSEL_PTX_HOST=1, the tests' stand-in
    driver, counts as one). `target="auto"` then measures the other providers."""
    try:
        path = library_path()
    except Exception as e:  # no tessel binary to find the library beside
        return f"tessel's CUDA runtime library cannot be located ({e})"
    if not path.exists():
        return f"tessel's CUDA runtime library is not at {path} (build the `tessel_cuda` target, or set TESSEL_CUDA_LIB)"
    if os.environ.get("TESSEL_PTX_HOST") == "1":
        return None
    try:
        import torch
    except ImportError as e:
        return f"torch does not import ({e})"
    return None if torch.cuda.is_available() else "no CUDA device (torch.cuda.is_available() is False)"


def _library():
    global _LIB
    with _LOCK:
        if _LIB is None:
            path = library_path()
            if not path.exists():
                raise RuntimeError(f"tessel's CUDA runtime library is not at {path} (build the `tessel_cuda` "
                                   f"target, or set TESSEL_CUDA_LIB)")
            lib = ctypes.CDLL(str(path))
            lib.tessel_ptx_launch.restype = ctypes.c_int
            lib.tessel_ptx_launch.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_uint64,
                                              ctypes.c_uint32, ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint64),
                                              ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t]
            _LIB = lib
        return _LIB


def view(t) -> list:
    """The ABI words of a view (Target/PTX/PTX.h): the address of element 0, the extents, the strides."""
    return [t.data_ptr(), *t.shape, *t.stride()]


_MASK = (1 << 64) - 1


def scalar(v, kind: str) -> int:
    """The 8-byte ABI word of a by-value scalar: floats by their bits in the low bytes, integers two's
    complement (the kernel reads the low bytes of its width)."""
    if kind == "f32":
        return struct.unpack("<I", struct.pack("<f", v))[0]
    if kind == "f64":
        return struct.unpack("<Q", struct.pack("<d", v))[0]
    if kind == "f16":
        return struct.unpack("<H", struct.pack("<e", v))[0]
    if kind == "bf16":  # round to nearest even from the f32 bits (NaN kept quiet)
        bits = struct.unpack("<I", struct.pack("<f", v))[0]
        if v != v:
            return 0x7FC0
        return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF
    return int(v) & _MASK


# The PTX text of each module as the bytes ctypes passes (kept alive with the module's text).
_TEXTS: dict = {}


def launch(ptx: str, name: str, grid: int, threads: int, device, words) -> None:
    """One asynchronous launch of kernel `name` on `grid` CTAs of `threads` threads, on the current
    torch stream of `device` (a torch.device; None or a CPU device: the null stream of device 0)."""
    text = _TEXTS.get(id(ptx))
    if text is None or text[0] is not ptx:
        text = _TEXTS[id(ptx)] = (ptx, ptx.encode())
    ordinal, stream = 0, None
    if device is not None and device.type == "cuda":
        import torch

        ordinal = device.index if device.index is not None else torch.cuda.current_device()
        stream = torch.cuda.current_stream(device).cuda_stream
    array = (ctypes.c_uint64 * max(1, len(words)))(*[w & _MASK for w in words])
    error = ctypes.create_string_buffer(1024)
    status = _library().tessel_ptx_launch(text[1], name.encode(), ordinal, grid, threads, stream, array,
                                          len(words), error, len(error))
    if status:
        raise RuntimeError(f"tessel PTX launch of '{name}': {error.value.decode(errors='replace')}")
