"""The Triton provider's warp-specialized Gluon spelling (GLUON=1; issue 13, session 19):

  * on the CPU for sm_90: grouped-query causal attention's GLUON=1 binding, called on CPU tensors of
    odd shapes (S and T primes, not multiples of any block) with its launch intercepted, launches the
    Gluon kernel, whose arguments Triton's own binder and compiler take down to PTX and ptxas: one
    loader warp's TMA copies (cp.async.bulk.tensor), wgmma, register reallocation between the
    partitions (setmaxnreg) and the wrapper's register cap for a one-warpgroup consumer;
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


def test_gluon_binding_compiles_for_sm90(root, tmp_path, monkeypatch):
    pytest.importorskip("torch")
    import tessel.language as T
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    kernel = load_bench("attention_kernels").gqa_attention(T.bf16, name="gluon_gqa")
    src = kernel.source("triton", {}, {"GLUON": 1, "STAGES": 2})
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
    assert facts["num_warps"] == 4 and facts["maxnreg"] == 128, facts  # two programs per SM's registers
    assert facts["wgmma"] > 0 and facts["tma_loads"] > 0 and facts["setmaxnreg"] > 0, facts
    assert 0 < facts["shared"] <= 114 * 1024, facts  # two programs per SM's shared memory


SHAPES = [{"B": 1, "H": 4, "G": 1, "S": 37, "T": 70, "D": 40},
          {"B": 2, "H": 8, "G": 2, "S": 1, "T": 1, "D": 16},
          {"B": 1, "H": 4, "G": 1, "S": 131, "T": 97, "D": 96}]


@pytest.mark.parametrize("shapes", SHAPES, ids=lambda s: ",".join(f"{k}={v}" for k, v in s.items()))
def test_gluon_binding_runs_its_triton_kernel_under_the_interpreter(root, tmp_path, monkeypatch, shapes):
    torch = pytest.importorskip("torch")
    import tessel.language as T
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    kernel = load_bench("attention_kernels").gqa_attention(T.f16, name="gluon_gqa_interp")
    ref = kernel.run_interp(shapes, {"scale": 0.35}, {}, seed=5, segments="random")
    q, k, v = (torch.from_numpy(np.array(ref[f"{n}.in"])) for n in ("Q", "K", "V"))
    o = torch.full((shapes["B"], shapes["H"], shapes["S"], shapes["D"]), float("nan"), dtype=torch.float16)
    kernel._launcher({}, {"GLUON": 1})(q, k, v, o, scale=0.35)
    np.testing.assert_allclose(o.double().numpy(), np.array(ref["O"]).astype(np.float64), rtol=2e-3, atol=2e-3)
