"""The Triton provider's warp-specialized Gluon spelling (GLUON=1; issue 13, session 19):

  * on the CPU for sm_90: grouped-query causal attention's GLUON=1 bindings (one consumer partition;
    two over the halves of 128-row blocks), called on CPU tensors of
    odd shapes (S and T primes, not multiples of any block) with its launch intercepted, launches the
    Gluon kernel, whose arguments Triton's own binder and compiler take down to PTX and ptxas: one
    loader warp's TMA copies (cp.async.bulk.tensor), wgmma, register reallocation between the
    partitions (setmaxnreg) and the wrapper's warps and register cap;
  * where Gluon does not run (TRITON_INTERPRET=1: the TMA switch is off) the same binding launches its
    Triton kernel and matches the KIR interpreter on random nonzero inputs at odd shapes.
"""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from conftest import load_bench

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)

HERE = os.path.dirname(os.path.abspath(__file__))


# (binding, the Gluon launch's num_warps and maxnreg): one 4-warp consumer at two programs per SM; two
# 4-warp consumers over the halves of 128-row blocks (8 warps) at one program per SM.
BINDINGS = [({"GLUON": 1, "STAGES": 2}, 4, 128),
            ({"GLUON": 1, "STAGES": 2, "BLOCK_S": 128, "WARPS": 8, "BLOCK_D": 128}, 4, 168)]


@pytest.mark.parametrize("binding,warps,regs", BINDINGS, ids=["one_consumer", "split_rows"])
def test_gluon_binding_compiles_for_sm90(root, tmp_path, monkeypatch, binding, warps, regs):
    pytest.importorskip("torch")
    import tessel.language as T
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    kernel = load_bench("attention_kernels").gqa_attention(T.bf16, name="gluon_gqa")
    src = kernel.source("triton", {}, binding)
    for part in ("_consumer", "_loader", "_gluon"):
        assert f"def _gluon_gqa{part}(" in src
    path = tmp_path / "gluon_gqa.py"
    path.write_text(src)
    shapes = {"views": {"Q": [1, 8, 67, 128], "K": [1, 2, 131, 128], "V": [1, 2, 131, 128], "O": [1, 8, 67, 128]},
              "scalars": {"scale": 0.088}}
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    out = subprocess.run([sys.executable, os.path.join(HERE, "gluon_compile.py"), str(path), "gluon_gqa",
                          json.dumps(shapes)], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-4000:]
    facts = json.loads(out.stdout.strip().splitlines()[-1])
    assert facts["launched"], facts
    assert facts["num_warps"] == warps and facts["maxnreg"] == regs, facts
    assert facts["wgmma"] > 0 and facts["tma_loads"] > 0 and facts["setmaxnreg"] > 0, facts
    assert 0 < facts["shared"] <= (114 if regs == 128 else 227) * 1024, facts  # programs per SM's shared memory
    if "WARPS" in binding:
        assert "_PART * 64" in src and "count=2)" in src


SHAPES = [{"B": 1, "H": 4, "G": 1, "S": 37, "T": 70, "D": 40},
          {"B": 2, "H": 8, "G": 2, "S": 1, "T": 1, "D": 16},
          {"B": 1, "H": 4, "G": 1, "S": 131, "T": 97, "D": 96}]


@pytest.mark.parametrize("split", [False, True], ids=["one_consumer", "split_rows"])
@pytest.mark.parametrize("shapes", SHAPES, ids=lambda s: ",".join(f"{k}={v}" for k, v in s.items()))
def test_gluon_binding_runs_its_triton_kernel_under_the_interpreter(root, tmp_path, monkeypatch, shapes, split):
    torch = pytest.importorskip("torch")
    import tessel.language as T
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    kernel = load_bench("attention_kernels").gqa_attention(T.f16, name="gluon_gqa_interp")
    ref = kernel.run_interp(shapes, {"scale": 0.35}, {}, seed=5, segments="random")
    q, k, v = (torch.from_numpy(np.array(ref[f"{n}.in"])) for n in ("Q", "K", "V"))
    o = torch.full((shapes["B"], shapes["H"], shapes["S"], shapes["D"]), float("nan"), dtype=torch.float16)
    params = {"GLUON": 1, "BLOCK_S": 128, "WARPS": 8} if split else {"GLUON": 1}
    kernel._launcher({}, params)(q, k, v, o, scale=0.35)
    np.testing.assert_allclose(o.double().numpy(), np.array(ref["O"]).astype(np.float64), rtol=2e-3, atol=2e-3)


def test_gluon_libdevice_compiles_for_sm90(root, tmp_path, monkeypatch):
    """A kernel whose fold calls libdevice (bench/corpus/17: cap * tanh(s / cap) in the scores, accurate
    tanh) has the Gluon spelling too: Gluon 3.6's gl.extra.libdevice is triton.language.extra.libdevice,
    the module-level `libdevice` the spellings call. Its GLUON=1 binding compiles for sm_90 down to
    ptxas with the loader warp's TMA copies and wgmma, at odd shapes (S = 67)."""
    pytest.importorskip("torch")
    import importlib.util
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    spec = importlib.util.spec_from_file_location("_gluon_softcap", root / "bench" / "corpus" / "17_softcap_attention.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    src = module.KERNEL.source("triton")
    assert "'GLUON': ([0, 1], 1)" in src
    consumer = src[src.index("def _softcap_attention_consumer("):src.index("def _softcap_attention_loader(")]
    assert "libdevice.tanh(" in consumer
    path = tmp_path / "gluon_softcap.py"
    path.write_text(src)
    shapes = {"views": {n: [1, 2, 67, 128] for n in ("q", "k", "v", "o")}, "scalars": {"scale": 0.088, "softcap": 10.0}}
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    out = subprocess.run([sys.executable, os.path.join(HERE, "gluon_compile.py"), str(path), "softcap_attention",
                          json.dumps(shapes)], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-4000:]
    facts = json.loads(out.stdout.strip().splitlines()[-1])
    assert facts["launched"] and facts["wgmma"] > 0 and facts["tma_loads"] > 0, facts


@pytest.mark.deep(reason="a ptxas compile of a Gluon binding (a minute on one core); lit gluon-pointer-tiles.mlir "
                         "checks the same spelling's text")
def test_gluon_bias_tile_compiles_for_sm90(root, tmp_path, monkeypatch):
    """Attention with an additive f32 bias tile beside the K and V streams (corpus 199's spelling): GLUON is
    declared, off by default; its GLUON=1 binding reads the bias with pointers in the consumers and compiles
    for sm_90 down to ptxas (TMA copies of K and V, wgmma), at odd shapes (S = 67, T = 131)."""
    pytest.importorskip("torch")
    import importlib.util
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    spec = importlib.util.spec_from_file_location("_gluon_bias", root / "test" / "Target" / "Triton" / "Inputs" /
                                                  "bias_attention.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert "'GLUON': ([0, 1], 0)" in module.bias_rows.source("triton")
    src = module.bias_rows.source("triton", {}, {"GLUON": 1})
    consumer = src[src.index("def _bias_rows_consumer("):src.index("def _bias_rows_loader(")]
    assert "gl.load(bias + " in consumer
    path = tmp_path / "gluon_bias.py"
    path.write_text(src)
    shapes = {"views": {"q": [1, 2, 67, 128], "k": [1, 2, 131, 128], "v": [1, 2, 131, 128], "bias": [2, 67, 131],
                        "o": [1, 2, 67, 128]}, "dtypes": {"bias": "float32"}, "scalars": {"scale": 0.088}}
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    out = subprocess.run([sys.executable, os.path.join(HERE, "gluon_compile.py"), str(path), "bias_rows",
                          json.dumps(shapes)], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-4000:]
    facts = json.loads(out.stdout.strip().splitlines()[-1])
    assert facts["launched"] and facts["wgmma"] > 0 and facts["tma_loads"] > 0, facts
