"""Summary emptiness (issue 13 item 4, seed 002 §3.5 last paragraph; pgpu-summary-emptiness): after
range narrowing, a realized fold whose first tile leaves every query row's summary nonempty runs that
tile once before its interval loops and the loops without the carried "some key visible" flag and
its selects. Against the KIR interpreter on random nonzero inputs (random KIR segmentations):

  * the pgpu interpreter after the Triton pipeline (shuffled program order) at S != T, S = 1, T = 1,
    T = 0, T not a multiple of any block, D = 40, BLOCK_T below, equal to and above BLOCK_S (a mixed
    tile past the first may be empty for some rows), causal, full, a sliding window (refused: a row
    far from key 0 sees nothing in the first tile) and a causal-from-the-end predicate whose first
    rows see no key at all (refused: those rows keep validity and are 0);
  * the generated Triton under TRITON_INTERPRET=1 (f16: the CPU interpreter's bf16 is broken);
  * the remarks (adopted on causal and full attention's unsplit paths, single and paired query
    blocks; rejected with the reason on split segments, the window and shifted folds) and the
    generated source (those paths' loops carry no flag; compiling is deterministic).
"""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from conftest import load_bench

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)

PIPELINE = ["--tessel-pipeline=stop-after=realize-folds"]


def kernels(root):
    """bench/attention_kernels.py (conftest.load_bench)."""
    return load_bench("attention_kernels")


def shifted_attention(root, name):
    """Key t visible to query s iff t <= s - 3: rows 0..2 see no key (their output is 0)."""
    import tessel
    import tessel.language as T
    AK = kernels(root)

    @tessel.kernel(name=name, numerics="relaxed_normalization", summary_emptiness=True)
    def kernel(Q: T.In[T.f16, ("B", "H", "S", "D")], K: T.In[T.f16, ("B", "H", "T", "D")],
               V: T.In[T.f16, ("B", "H", "T", "D")], O: T.Out[T.f16, ("B", "H", "S", "D")], scale: T.f32):
        nb, nh, ns, nd = Q.shape

        @tessel.fn
        def summarize(k, v, kpos, q, s, sc):
            scores = T.contract(q, k, reduce=((0, 1),), acc_dtype=T.f32) * sc
            return AK._summary(scores, kpos <= s - 3, v)

        for b, h, s in T.parallel(T.domain(0, nb), T.domain(0, nh), T.domain(0, ns)):
            AK._attend(Q, K, V, O, T.f16, b, h, h, s, summarize, (s, scale))
    return kernel


def make(root, name):
    import tessel.language as T
    AK = kernels(root)
    if name == "shifted":
        return shifted_attention(root, "se_shifted")
    factory = {"attention": AK.attention, "window": AK.window_attention}[name]
    return factory(T.f16, name="se_" + name, summary_emptiness=True)  # the rewrite is asked for


def remarks(tessel_bin, source):
    res = subprocess.run([str(tessel_bin), "compile", str(source), "--target=triton", "--emit=source", "--remarks"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return res.stdout, [l for l in res.stderr.splitlines() if "pgpu-summary-emptiness" in l]


@pytest.mark.parametrize("name,constexprs,adopted", [
    ("attention", {"CAUSAL": True}, True),
    ("attention", {"CAUSAL": False}, True),
    ("window", {"W": 5}, False),
    ("shifted", {}, False),
])
def test_remarks(tessel_bin, root, tmp_path, name, constexprs, adopted):
    src, lines = remarks(tessel_bin, make(root, name)._write(tmp_path, constexprs))
    assert lines
    fired = [l for l in lines if "is true on every lane after its first tile" in l]
    # Adopted on the unsplit traversals (single and paired query blocks, exact and padded head dim);
    # split segments keep their flag (a segment may start after a row's last key).
    assert len(fired) == (4 if adopted else 0), lines
    if not adopted:
        assert any("is not proven true on every lane of its first tile" in l for l in lines), lines


def test_not_asked_for_by_default(tessel_bin, root, tmp_path):
    """Off unless the kernel asks (compile option summary_emptiness; measured slower on the H200): every
    traversal keeps its flag, each says why in a remark."""
    import tessel.language as T
    kernel = kernels(root).attention(T.f16, name="se_default", optimization_remarks=True)
    src, lines = remarks(tessel_bin, kernel._write(tmp_path, {"CAUSAL": True}))
    assert lines and all("not asked for (compile option summary_emptiness)" in l for l in lines), lines


def test_causal_source_loses_the_flag(tessel_bin, root, tmp_path):
    """The default path (PAIR_BLOCKS = FOLD_SPLIT = 1): no loop of the traversal carries an i1 flag;
    its all-true loop has no tl.where at all; compiling twice gives the same source."""
    source = make(root, "attention")._write(tmp_path, {"CAUSAL": True})
    src, _ = remarks(tessel_bin, source)
    again, _ = remarks(tessel_bin, source)
    assert src == again
    # The peeled first tile: `if lo < hi:` before the loops, the flag the first tile's.
    loops = re.findall(r"\n( +)for (v\d+) in range\((v\d+), (v\d+), (v\d+)\):\n((?:\1 .*\n)+)", src)
    assert loops
    flagless = [body for _, _, _, _, _, body in loops
                if "tl.dot" in body and " | " not in body and "tl.int1) | " not in body]
    assert flagless, "no flag-free tile loop"
    assert any("tl.where" not in body for body in flagless), "the all-true loop keeps selects"


# BLOCK_S / BLOCK_T: below, equal, above (a mixed tile past the first may leave rows empty).
BLOCKS = [(16, 16), (32, 16), (16, 32)]
CASES = [
    ("attention", {"CAUSAL": True}, {"B": 1, "H": 2, "S": 37, "T": 70, "D": 40}),
    ("attention", {"CAUSAL": True}, {"B": 2, "H": 1, "S": 1, "T": 1, "D": 16}),
    ("attention", {"CAUSAL": True}, {"B": 1, "H": 1, "S": 53, "T": 41, "D": 16}),
    ("attention", {"CAUSAL": True}, {"B": 1, "H": 1, "S": 5, "T": 0, "D": 8}),
    ("attention", {"CAUSAL": False}, {"B": 1, "H": 1, "S": 19, "T": 33, "D": 40}),
    ("attention", {"CAUSAL": False}, {"B": 1, "H": 1, "S": 3, "T": 0, "D": 8}),
    ("window", {"W": 5}, {"B": 1, "H": 1, "S": 37, "T": 37, "D": 16}),
    ("shifted", {}, {"B": 1, "H": 1, "S": 21, "T": 9, "D": 16}),
]


@pytest.mark.parametrize("pair", [1, 2], ids=["single", "paired"])
@pytest.mark.parametrize("blocks", BLOCKS, ids=lambda b: f"S{b[0]}T{b[1]}")
@pytest.mark.parametrize("name,constexprs,shapes", CASES,
                         ids=[f"{c[0]}-{'-'.join(f'{k}{v}' for k, v in {**c[1], **c[2]}.items())}" for c in CASES])
def test_pgpu_matches_kir(tessel_bin, root, tmp_path, name, constexprs, shapes, blocks, pair):
    source = make(root, name)._write(tmp_path, constexprs)
    shape = ",".join(f"{k}={v}" for k, v in shapes.items())
    scalars = ["--scalar", "scale=0.35"]
    kir = tmp_path / "kir"
    subprocess.run([str(tessel_bin), "run", str(source), "--stage", "kir", "--shape", shape, "--seed", "7",
                    "--segments=random", "--out", str(kir), *scalars], check=True, capture_output=True)
    program = tmp_path / "program.mlir"
    opt = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(source), *PIPELINE, "-o", str(program)],
                         capture_output=True, text=True)
    assert opt.returncode == 0, opt.stderr
    binding = {"BLOCK_S": blocks[0], "BLOCK_T": blocks[1], "BLOCK_D": 64 if shapes["D"] > 16 else 16}
    if 'pgpu.param "PAIR_BLOCKS"' in program.read_text():
        binding["PAIR_BLOCKS"] = pair
    elif pair == 2:
        pytest.skip("no paired blocks for this fold")
    out = tmp_path / "pgpu"
    res = subprocess.run([str(tessel_bin), "run", str(program), "--shape", shape, "--seed", "7", "--order",
                          "shuffle", "--out", str(out), *scalars,
                          *[f"--param={k}={v}" for k, v in binding.items()]], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    want, got = np.load(kir / "O.npy"), np.load(out / "O.npy")
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("name,constexprs,shapes,blocks", [
    ("attention", {"CAUSAL": True}, {"B": 1, "H": 2, "S": 37, "T": 70, "D": 40}, (32, 16)),
    ("attention", {"CAUSAL": True}, {"B": 2, "H": 1, "S": 1, "T": 1, "D": 16}, (16, 16)),
    ("attention", {"CAUSAL": False}, {"B": 1, "H": 1, "S": 19, "T": 0, "D": 16}, (16, 32)),
    ("shifted", {}, {"B": 1, "H": 1, "S": 21, "T": 9, "D": 16}, (16, 16)),
    ("attention", {"CAUSAL": True}, {"B": 1, "H": 1, "S": 53, "T": 41, "D": 16}, (16, 32, 2)),
], ids=["causal-S37-T70-D40", "causal-S1-T1", "full-T0", "shifted", "causal-paired"])
def test_triton_matches_kir(root, tmp_path, monkeypatch, name, constexprs, shapes, blocks):
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    kernel = make(root, name)
    params = {"BLOCK_S": blocks[0], "BLOCK_T": blocks[1], "BLOCK_D": 64 if shapes["D"] > 16 else 16}
    if len(blocks) > 2:
        params["PAIR_BLOCKS"] = blocks[2]
    ref = kernel.run_interp(shapes, {"scale": 0.35}, constexprs, seed=8, segments="random")
    q, k, v = (torch.from_numpy(np.array(ref[f"{n}.in"])) for n in ("Q", "K", "V"))
    o = torch.full((shapes["B"], shapes["H"], shapes["S"], shapes["D"]), float("nan"), dtype=torch.float16)
    kernel._launcher(constexprs, params)(q, k, v, o, scale=0.35)
    np.testing.assert_allclose(o.double().numpy(), np.array(ref["O"]).astype(np.float64), rtol=2e-3, atol=2e-3)


COMPILE = """
import inspect, sys
sys.path.insert(0, sys.argv[1])
import triton, gen
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
jit = gen._se_attention_kernel
ptr = {"Q": "*fp16", "K": "*fp16", "V": "*fp16", "O": "*fp16", "arg5": "*i32", "arg6": "*i1"}
signature, constexprs = {}, {}
for p in inspect.signature(jit.fn).parameters.values():
    if p.name.startswith("_G"):
        # the unsplit paths: every guard true but the first (PAIR_BLOCKS != 1, as argv[2] says) and
        # the fold split's (FOLD_SPLIT != 1)
        signature[p.name] = "constexpr"
        constexprs[p.name] = p.name == "_G0" and sys.argv[2] == "1" or p.name in ("_G1", "_G2", "_G5", "_G6")
    else:
        signature[p.name] = ptr.get(p.name, "fp32" if p.name == "scale" else "*fp32" if p.name.startswith("arg") else "i32")
out = triton.compile(ASTSource(fn=jit, signature=signature, constexprs=constexprs), target=GPUTarget("cuda", 90, 32),
                     options={"num_warps": 4, "num_stages": 3})
print("compiled", "ptx" in out.asm)
"""


@pytest.mark.parametrize("pair", ["0", "1"], ids=["single", "paired"])
def test_triton_compiles_for_sm90(root, tmp_path, monkeypatch, pair):
    """The peeled tile's `if` yields the same types from both branches (Triton's code generator checks
    what its interpreter does not): the causal kernel compiles to PTX for sm_90 without a GPU."""
    pytest.importorskip("triton.backends.nvidia")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    src = make(root, "attention").source("triton", {"CAUSAL": True}, {})
    assert "def _se_attention_kernel(" in src and "if _G1:" in src  # launch-fact guards (alike ones shared)
    (tmp_path / "gen.py").write_text(src)
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    r = subprocess.run([sys.executable, "-c", COMPILE, str(tmp_path), pair], capture_output=True, text=True, env=env,
                       timeout=300)
    if r.returncode and "ptxas" in r.stderr and "not found" in r.stderr:
        pytest.skip("no ptxas for the CUDA backend here")
    assert r.returncode == 0 and "compiled True" in r.stdout, r.stderr[-3000:]
