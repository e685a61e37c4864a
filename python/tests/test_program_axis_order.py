"""The programs that read one loop tile run adjacently (pgpu-order-program-axes, issue 41/43): attention with an
additive bias [H, S, T] (bench/corpus/199) reads each query block's bias tiles in every batch member's program,
and the group decodes the batch axis slowest, so those programs were H * S / BLOCK_S apart in launch order and
each fetched the bias from DRAM. The pass makes the batch axis the innermost one (a fold_split axis stays last);
plain attention (K and V shared across query blocks, the innermost axis already) keeps its order.

The permuted program runs on the pgpu interpreter in shuffled order against the KIR interpreter at odd shapes
(B, H, S, T = 1, primes, T past a key tile, S != T) with FOLD_SPLIT 1 and 2, and through Triton under
TRITON_INTERPRET=1 at its call defaults against NumPy. f16 operands: Triton's CPU interpreter contracts bf16
wrongly (triton-lang/triton#11584).
"""
import math
import os
import re

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402
from interp_cli import attention, realize_folds, run_cli, two_pass_bias_attention  # noqa: E402

F16 = T.f16


bias_attention = two_pass_bias_attention("pao_bias")


@tessel.kernel(name="pao_plain")
def plain_attention(q: T.In[F16, ("B", "H", "S", "D")], k: T.In[F16, ("B", "H", "T", "D")],
                    v: T.In[F16, ("B", "H", "T", "D")], o: T.Out[F16, ("B", "H", "S", "D")], scale: T.f32):
    B, H, S, D = q.shape
    keys, dims = k.domain(2), T.domain(0, D)
    for b, h, i in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, S)):
        s = T.matvec(k[b, h, keys, dims], q[b, h, i, dims]) * scale
        p = T.exp(s - T.max(s))
        acc = T.vecmat(T.cast(p, F16), v[b, h, keys, dims])
        o[b, h, i, dims] = T.cast(acc / T.sum(p), F16)


def case(B, H, S, T_, D, seed):
    rng = np.random.default_rng(seed)
    inputs = {"q": rng.standard_normal((B, H, S, D)).astype(np.float16),
              "k": rng.standard_normal((B, H, T_, D)).astype(np.float16),
              "v": rng.standard_normal((B, H, T_, D)).astype(np.float16),
              "bias": rng.standard_normal((H, S, T_)).astype(np.float32)}
    return dict(B=B, H=H, S=S, T=T_, D=D), inputs, {"scale": 1.0 / math.sqrt(D)}


# (B, H, S, T, D): one of each; primes; keys past a 16-wide tile and not a multiple of it; S != T.
SHAPES = [(1, 1, 1, 1, 16), (3, 2, 5, 37, 16), (2, 3, 19, 23, 16), (3, 1, 17, 13, 32)]


def group_roles(program_text):
    return re.findall(r"pgpu\.execution_group %\S+ extents\([^)]*\) segment 0 roles \[([^\]]*)\]", program_text)


def test_batch_axis_runs_innermost(tessel_bin, tmp_path):
    _, program = realize_folds(tessel_bin, tmp_path, bias_attention)
    assert group_roles(program.read_text()) == ['"axis1", "axis2", "axis0", "fold_split"']


def test_plain_attention_keeps_its_order(tessel_bin, tmp_path):
    _, program = realize_folds(tessel_bin, tmp_path, plain_attention)
    assert group_roles(program.read_text()) == ['"axis0", "axis1", "axis2", "fold_split"']


def test_reordered_program_agrees_with_kir(tessel_bin, tmp_path):
    source, program = realize_folds(tessel_bin, tmp_path, bias_attention)
    blocks = set(re.findall(r'"(BLOCK_[A-Z_]+)"', program.read_text()))
    for n, (B, H, S, T_, D) in enumerate(SHAPES):
        shape, inputs, scalars = case(B, H, S, T_, D, seed=n)
        extra = [f"--scalar=scale={scalars['scale']}"]
        kir = run_cli(tessel_bin, tmp_path, source, shape, inputs, ["--stage", "kir", *extra], f"kir{n}")
        np.testing.assert_allclose(kir["o"], attention(inputs["q"], inputs["k"], inputs["v"], scalars["scale"],
                                                      inputs["bias"])[0], rtol=2e-2, atol=2e-2)
        for split in (1, 2):
            params = [f"--param={p}=16" for p in blocks] + [f"--param=FOLD_SPLIT={split}"]
            got = run_cli(tessel_bin, tmp_path, program, shape, inputs, ["--order", "shuffle", *extra, *params],
                          f"pgpu{n}-{split}")
            np.testing.assert_allclose(got["o"], kir["o"], rtol=2e-2, atol=2e-2,
                                       err_msg=f"pgpu interpreter at {shape}, FOLD_SPLIT {split}")


def test_triton_at_call_defaults(tessel_bin):
    import torch
    shape, inputs, scalars = case(3, 2, 19, 37, 16, seed=7)
    args = [torch.from_numpy(inputs[n]) for n in ("q", "k", "v", "bias")]
    o = torch.empty((3, 2, 19, 16), dtype=torch.float16)
    bias_attention(*args, o, scale=scalars["scale"])
    want = attention(inputs["q"], inputs["k"], inputs["v"], scalars["scale"], inputs["bias"])[0]
    np.testing.assert_allclose(o.numpy().astype(np.float64), want, rtol=2e-2, atol=2e-2)
