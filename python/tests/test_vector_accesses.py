"""Streaming walks vectorize on the GPU: the Triton serializer spells a scalar index remainder
a - (a // b) * b (serialize-scalar-remainder.mlir). A flattened element-wise walk (pgpu-form-blocking's
product nest) carries its lanes' coordinates from the block's start within the row, b % N; Triton's
alignment analysis gave that scalar `%` no divisibility, so every column read as unaligned and each
access moved one 2-byte element a thread (corpus 142, 158, 127 at 0.3-0.7x torch.compile).

Differential: at extents 0, 1, primes and non-multiples of every block (the walk's full blocks and its
tail, programs of BLOCK_P members), the generated Triton under TRITON_INTERPRET=1 computes what the KIR
interpreter computes. On sm_90 (compiled on this machine, triton_compile.py): 16-byte vector loads and
stores where Triton's specialization proves the extents divisible by 16, and scalar ones where it cannot
(an odd row: nothing is asserted that Triton does not prove). The planes (upsample_add, planes_axpy: three
or more program axes) take [rows, contiguous] tiles instead of the flat walk (pgpu-form-tiles, issue 41);
their accesses vectorize alike."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)

import tessel
import tessel.language as T


@tessel.kernel
def masked_scale_add(x: T.In[T.f16, ("M", "N")], keep: T.In[T.bool_, ("M", "N")], r: T.In[T.f16, ("M", "N")],
                     y: T.Out[T.f16, ("M", "N")], p: T.f32):
    M, N = x.shape
    rows, cols = T.domain(0, M), T.domain(0, N)
    kept = T.cast(x[rows, cols], T.f32) * T.cast(keep[rows, cols], T.f32) / (1.0 - p)
    y[rows, cols] = T.cast(kept + T.cast(r[rows, cols], T.f32), T.f16)


@tessel.kernel
def upsample_add(x: T.In[T.f16, ("N", "H2", "W2", "C")], skip: T.In[T.f16, ("N", "H", "W", "C")],
                 out: T.Out[T.f16, ("N", "H", "W", "C")]):
    N, H, W, C = skip.shape
    ns, hs, ws, cs = T.domain(0, N), T.domain(0, H), T.domain(0, W), T.domain(0, C)
    out[ns, hs, ws, cs] = x[ns, T.indices(hs) // 2, T.indices(ws) // 2, cs] + skip[ns, hs, ws, cs]


@tessel.kernel
def planes_axpy(a: T.In[T.f32, ("B", "R", "K")], b: T.In[T.f32, ("B", "R", "K")], y: T.Out[T.f32, ("B", "R", "K")],
                alpha: T.f32):
    B, R, K = a.shape
    bs, rs, ks = T.domain(0, B), T.domain(0, R), T.domain(0, K)
    y[bs, rs, ks] = a[bs, rs, ks] * alpha + b[bs, rs, ks]


def _up(N, H, W, C):
    return {"N": N, "H2": (H + 1) // 2, "W2": (W + 1) // 2, "H": H, "W": W, "C": C}


CASES = [
    (masked_scale_add, {"M": 0, "N": 5}, {"p": 0.25}),
    (masked_scale_add, {"M": 1, "N": 1}, {"p": 0.25}),
    (masked_scale_add, {"M": 3, "N": 127}, {"p": 0.25}),       # rows shorter than a block
    (masked_scale_add, {"M": 5, "N": 1031}, {"p": 0.1}),       # rows past BLOCK, prime
    (masked_scale_add, {"M": 2, "N": 2053}, {"p": 0.1}),       # a row past BLOCK_P's 2048 members
    (masked_scale_add, {"M": 7, "N": 16}, {"p": 0.5}),         # rows of 16: every block crosses rows
    (upsample_add, _up(1, 1, 1, 1), {}),
    (upsample_add, _up(2, 6, 10, 7), {}),
    (upsample_add, _up(3, 13, 11, 17), {}),                    # odd H and W: x's last row and column
    (upsample_add, _up(1, 4, 6, 0), {}),                       # no channels
    (upsample_add, _up(2, 5, 3, 64), {}),
    (planes_axpy, {"B": 1, "R": 1, "K": 1}, {"alpha": 1.5}),
    (planes_axpy, {"B": 3, "R": 7, "K": 37}, {"alpha": -0.5}),
    (planes_axpy, {"B": 2, "R": 1, "K": 523}, {"alpha": 2.0}),
    (planes_axpy, {"B": 2, "R": 0, "K": 3}, {"alpha": 2.0}),
]
IDS = [f"{k.name}-{'-'.join(f'{a}{v}' for a, v in s.items())}" for k, s, _ in CASES]


# Small bindings: the [M, N] map's flat walk (programs of several blocks, ending mid-row); the planes' row
# tiles (pgpu-form-tiles, three or more axes: [TILE_r, TILE_w] tiles of a few rows, narrower than most rows).
SMALL = {"masked_scale_add": {"BLOCK": 64, "BLOCK_P": 256}, "upsample_add": {"TILE_2": 4, "TILE_3": 16},
         "planes_axpy": {"TILE_1": 4, "TILE_2": 16}}


@pytest.mark.parametrize("small", [False, True], ids=["defaults", "small"])
@pytest.mark.parametrize("kernel,shapes,scalars", CASES, ids=IDS)
def test_triton_matches_kir(kernel, shapes, scalars, small, tmp_path, monkeypatch):
    params = SMALL[kernel.name] if small else {}
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    ref = kernel.run_interp(shapes, scalars=scalars, seed=7)
    views = [p for p in kernel.params() if p.kind == "view"]
    args = [torch.from_numpy(np.array(ref[f"{p.name}.in"])) if f"{p.name}.in" in ref
            else torch.full(ref[p.name].shape, float("nan"), dtype=torch.from_numpy(np.array(ref[p.name])).dtype)
            for p in views]
    kernel._launcher({}, params or None)(*args, **scalars)
    for p, t in zip(views, args):
        if p.name in ref:
            np.testing.assert_allclose(t.numpy().astype(np.float32), np.asarray(ref[p.name], dtype=np.float32),
                                       rtol=1e-3, atol=1e-3, err_msg=p.name)


def test_remainder_spelling():
    """The walk's block start within its row is the scalar spelling; the lanes' own j % N stays `%`."""
    src = masked_scale_add.source("triton")
    body = src[src.index("def _masked_scale_add_kernel"):]
    body = body[:body.index("\n\n\n")]
    loops = body.split("    for ")[1:]
    assert len(loops) == 2, body  # the full blocks and the tail
    for loop in loops:
        b = loop.split(" ", 1)[0]
        assert f"= {b} - ({b} // " in loop, loop
        assert f"= {b} % " not in loop, loop


def _ptx_facts(kernel, views, scalars, tmp_path):
    pytest.importorskip("torch")
    triton = pytest.importorskip("triton")
    try:
        from triton.backends.nvidia.compiler import CUDABackend  # noqa: F401
    except ImportError:
        pytest.skip("no NVIDIA backend in this Triton")
    path = tmp_path / f"{kernel.name}.py"
    path.write_text(kernel.source("triton"))
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["TRITON_CACHE_DIR"] = str(tmp_path / "triton-cache")
    out = subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "triton_compile.py"),
                          str(path), kernel.name, json.dumps({"views": views, "scalars": scalars})],
                         env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-4000:]
    facts = json.loads(out.stdout.strip().splitlines()[-1])
    assert facts["launched"], facts
    return facts


def _views(kernel, shape):
    dt = {"f16": "float16", "f32": "float32", "i1": "bool"}
    return {p.name: [[shape[e] for e in p.spec.extents], dt[p.spec.dtype.name]]
            for p in kernel.params() if p.kind == "view"}


@pytest.mark.parametrize("kernel,shape,scalars", [
    (masked_scale_add, {"M": 8, "N": 256}, {"p": 0.1}),
    (upsample_add, _up(2, 8, 8, 64), {}),
    (planes_axpy, {"B": 2, "R": 4, "K": 64}, {"alpha": 2.0}),
], ids=["masked_scale_add", "upsample_add", "planes_axpy"])
def test_sm90_vector_accesses(kernel, shape, scalars, tmp_path):
    """Rows of a multiple of 16 elements: every global load and store of the walk is a vector."""
    facts = _ptx_facts(kernel, _views(kernel, shape), scalars, tmp_path)
    assert facts.get("ld_vector", 0) > 0 and facts.get("st_vector", 0) > 0, facts
    assert facts.get("ld_scalar", 0) == 0 and facts.get("st_scalar", 0) == 0, facts


def test_sm90_odd_rows_stay_scalar(tmp_path):
    """Must not vectorize: rows of 1031 elements (Triton cannot prove the column aligned)."""
    facts = _ptx_facts(masked_scale_add, _views(masked_scale_add, {"M": 8, "N": 1031}), {"p": 0.1}, tmp_path)
    assert facts.get("ld_vector", 0) == 0 and facts.get("ld_scalar", 0) > 0, facts
