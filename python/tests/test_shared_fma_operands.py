"""An elementwise operand of FMA-spelled contractions (f32 at IEEE precision) computed before several
loops that contract it is computed again in each loop (TritonLegalize.cpp, copySharedFmaOperands):
Triton 3.6's TritonGPURemoveLayoutConversions otherwise rematerializes it in one loop and reuses that copy
in a sibling loop it does not dominate, and the sm_90 compile fails ("operand #0 does not dominate this
use"; corpus 305_rope_on_read_decode at its bench binding, issue 47).

Corpus 305 (a decode that rotates the query once per program and the keys as they are read) runs against
its NumPy reference on the KIR interpreter and through Triton under TRITON_INTERPRET=1 at odd shapes (one
key, primes, no multiple of any block; groups of 1 and 3 query heads); its source at its bench binding
compiles for sm_90 on this machine (deep tier: a Triton compile of about 10 s).
"""
import json
import os
import re
import subprocess
import sys

import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module

torch = pytest.importorskip("torch")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench", "corpus"))
import _harness as H  # noqa: E402

ROPE = H.load("305_rope_on_read_decode")

SHAPES = [  # odd shapes beside the file's own: one key, primes, no multiple of any block
    dict(B=1, HQ=1, HKV=1, S=1, D=2, P=1, D2=1),
    dict(B=2, HQ=3, HKV=1, S=37, D=10, P=41, D2=5),      # one kv head shared by 3 query heads
    dict(B=1, HQ=2, HKV=2, S=131, D=6, P=131, D2=3),     # plain multi-head, S past two key tiles
]


def _source_loops_copy(src):
    """The FMA-spelled tl.dot lines, and whether each one's lhs is assigned in the loop body the dot is
    in (at the dot's indentation) rather than once before the loops."""
    lines = src.splitlines()
    defs = {}
    for line in lines:
        m = re.match(r"^(\s*)(v\d+) = ", line)
        if m:
            defs.setdefault(m.group(2), []).append(len(m.group(1)))
    dots = [(len(m.group(1)), m.group(2)) for line in lines
            if (m := re.match(r'^(\s*)v\d+ = tl\.dot\((v\d+), .*input_precision="ieee"\)', line))]
    return dots, all(ind in defs.get(lhs, []) for ind, lhs in dots)


def test_each_key_loop_rotates_the_query(tessel_bin):
    """Corpus 305 at its bench binding: the rotated query halves (computed once a program) are computed
    again in each of the 4 key loops that contract them, and a remark says so."""
    kernel = os.path.join(ROOT, "bench", "corpus", "305_rope_on_read_decode.py") + ":rope_on_read_decode"
    res = subprocess.run([str(tessel_bin), "compile", kernel, "--target=triton", "--emit=source", "--remarks",
                          "--param=BLOCK_D=128", "--param=BLOCK_D2=64"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert res.stderr.count("this contraction operand is computed again in each of the 4 loops") == 2, res.stderr
    dots, copied = _source_loops_copy(res.stdout)
    assert len(dots) >= 8 and copied, dots


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "B{B}HQ{HQ}HKV{HKV}S{S}D{D}".format(**s))
def test_rope_on_read_decode_odd_shapes(shape, tmp_path, monkeypatch):
    """The rewritten source against the NumPy reference on random inputs: the KIR interpreter and Triton
    under TRITON_INTERPRET=1 (the file's tolerance: bf16 inputs and output)."""
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    for path in ("interp", "triton"):
        msg = H.check(ROPE, shape, 3, path)
        assert msg is None, f"{path}: {msg}"


def test_no_copy_without_a_computed_operand(tessel_bin, tmp_path):
    """Must not fire: corpus-style decode with an unrotated query (a load is no elementwise op)."""
    from test_paired_slice_folds import rotated_decode
    source = rotated_decode._write(tmp_path, None)
    res = subprocess.run([str(tessel_bin), "compile", str(source), "--target=triton", "--emit=source", "--remarks"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert "computed again in each of the" not in res.stderr, res.stderr


@pytest.mark.deep(reason="a Triton compile for sm_90 of corpus 305's source (about 10 s)")
def test_corpus_305_bench_binding_compiles_for_sm90(tmp_path):
    """Corpus 305 at its bench binding (BLOCK_D 128, BLOCK_D2 64: what the bench shape's call takes) failed
    Triton's make_ttgir on the H100 (s47); views of B1 HQ4 HKV1 S64 reproduce it. Compiled here for sm_90."""
    pytest.importorskip("triton")
    try:
        from triton.backends.nvidia.compiler import CUDABackend  # noqa: F401
    except ImportError:
        pytest.skip("no NVIDIA backend in this Triton")
    path = tmp_path / "rope.py"
    path.write_text(ROPE.KERNEL.source("triton", None, {"BLOCK_D": 128, "BLOCK_D2": 64}))
    views = {"q": [[1, 4, 128], "bfloat16"], "k_cache": [[1, 1, 64, 128], "bfloat16"],
             "v_cache": [[1, 1, 64, 128], "bfloat16"], "seq_lens": [[1], "int32"], "cos": [[64, 64], "float32"],
             "sin": [[64, 64], "float32"], "out": [[1, 4, 128], "bfloat16"]}
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["TRITON_CACHE_DIR"] = str(tmp_path / "triton-cache")
    for tma in (False, True):
        out = subprocess.run([sys.executable, os.path.join(HERE, "triton_compile.py"), str(path),
                              "rope_on_read_decode", json.dumps({"views": views, "scalars": {"scale": 0.125},
                                                                 "tma": tma})],
                             env=env, capture_output=True, text=True, timeout=600)
        assert out.returncode == 0, out.stderr[-4000:]
        assert json.loads(out.stdout.strip().splitlines()[-1])["launched"], out.stdout
