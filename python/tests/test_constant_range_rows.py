"""A row whose loops walk constant ranges of different lengths (corpus 120's int4 group quantizer: the absmax
over a group's columns, then its packed pairs, read at 2p and 2p + 1 and scattered at g * pairs + p):
pgpu-form-blocking's BLOCK covers the widest range, pgpu-stage-rows runs every loop once when it fits a
block, and pgpu-pack-rows packs ROWS groups a program (the pairs' scatter is at unit-stride lanes).
Differential: Triton under TRITON_INTERPRET=1 against the KIR interpreter at odd shapes (0 and 1 rows, primes,
a group count that no ROWS divides) and bindings (BLOCK below the group: the loops' path; ROWS 1, 4, 32)."""
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module
torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402

GROUP = 96  # not a BLOCK candidate: the staged path masks the group's last 32 lanes at BLOCK 128


@tessel.kernel
def group_quant(x: T.In[T.f32, ("M", "N")], packed: T.Out[T.i8, ("M", "NH")], scales: T.Out[T.f32, ("M", "G")]):
    M = x.shape[0]
    G = scales.shape[1]
    group, pairs = T.domain(0, GROUP), T.domain(0, GROUP // 2)
    gi, pi = T.indices(group), T.indices(pairs)
    for m, g in T.parallel(T.domain(0, M), T.domain(0, G)):
        scale = T.max(T.abs(x[m, g * GROUP + gi])) / 7.0
        scales[m, g] = scale
        lo = T.minimum(T.maximum(T.round(x[m, g * GROUP + 2 * pi] / scale), -8.0), 7.0)
        hi = T.minimum(T.maximum(T.round(x[m, g * GROUP + 2 * pi + 1] / scale), -8.0), 7.0)
        byte = (T.cast(lo, T.i32) & 15) | ((T.cast(hi, T.i32) & 15) << 4)
        packed[m, g * (GROUP // 2) + pi] = T.cast(byte, T.i8)


def _body(src):
    start = src.index("def _group_quant_kernel(")
    return src[start:src.index("\n\n\n", start)]


def test_groups_pack_on_the_staged_path():
    body = _body(group_quant.source(params={"BLOCK": 128, "ROWS": 4}))
    assert "tl.store(packed + " in body and "[4, 128]" in body, body  # [ROWS, BLOCK] tiles
    assert "for " not in body.split("else:")[0], body  # the staged path runs no loop


@pytest.mark.parametrize("m,g", [(0, 2), (1, 1), (5, 3),
                                 pytest.param(13, 7, marks=pytest.mark.skipif(not os.environ.get("TESSEL_DEEP"),
                                                                              reason="TESSEL_DEEP"))])
def test_group_quant_agrees_with_the_interpreter(m, g, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(m * 100 + g)
    inputs = dict(x=rng.standard_normal((m, g * GROUP)).astype(np.float32))
    want = group_quant.run_interp(shapes={"NH": g * GROUP // 2, "G": g}, inputs=inputs)
    for params in (None, {"BLOCK": 64, "ROWS": 4}, {"BLOCK": 128, "ROWS": 4}):
        packed = torch.full((m, g * GROUP // 2), 0x5E, dtype=torch.int8)
        scales = torch.full((m, g), float("nan"))
        args = [torch.from_numpy(inputs["x"]), packed, scales]
        if params is None:
            group_quant(*args)
        else:
            group_quant.launch(*args, params=params)
        np.testing.assert_array_equal(packed.numpy(), want["packed"], err_msg=str(params))
        np.testing.assert_allclose(scales.numpy(), want["scales"], rtol=1e-6, err_msg=str(params))
