"""kir-online-folds with a tensor over the axis read before the loop: `bias = b[cols]` at kernel level,
the way examples/rmsnorm.py and layernorm.py read their weights, then `for m in T.parallel(...)`. The
read is a pure read of an In view, so where the fold rewrite happens it is recomputed in the loop body
(seed 002 §3.4: replaying pure producers is legal) and becomes a fold source like a read written in
the loop. Before, the maximum stayed a two-pass reduction ("a tensor over the axis computed outside
the loop body").

Each kernel runs against a NumPy reference on the KIR interpreter (as traced, and as rewritten with
its folds cut into random slices) and through Triton under TRITON_INTERPRET=1, at odd shapes (0, 1,
primes, non-multiples of the block sizes). Where the rewrite does not happen (a row softmax stored
over the axis, bench/corpus/144's spelling) the hoisted and in-loop spellings compile to the same
source and get the same remark.
"""
import math
import os
import re
import subprocess

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402


def make_lse(numerics="relaxed_normalization", remarks=None):
    """logsumexp(x[m] + bias) per row, the bias read once before the loop."""
    @tessel.kernel(name="lse_hoisted_bias", numerics=numerics, optimization_remarks=remarks)
    def lse_bias(x: T.In[T.f32, ("M", "N")], bias: T.In[T.f16, ("N",)], out: T.Out[T.f32, ("M",)],
                 scale: T.f32):
        M, N = x.shape
        cols = T.domain(0, N)
        b = T.cast(bias[cols], T.f32) * scale
        for m in T.parallel(T.domain(0, M)):
            z = x[m, cols] + b
            top = T.max(z)
            out[m] = top + T.log(T.sum(T.exp(z - top)))
    return lse_bias


def make_attention(numerics=None):
    """Causal attention whose scores get a per-key bias read before the loop (ALiBi-like)."""
    @tessel.kernel(name="attn_hoisted_key_bias", numerics=numerics)
    def attention(q: T.In[T.f32, ("S", "D")], k: T.In[T.f32, ("S", "D")], v: T.In[T.f32, ("S", "D")],
                  kb: T.In[T.f32, ("S",)], o: T.Out[T.f32, ("S", "D")], scale: T.f32):
        S, D = q.shape
        keys = T.domain(0, S)
        dims = T.domain(0, D)
        kpos = T.indices(keys)
        key_bias = kb[keys]
        for i in T.parallel(T.domain(0, S)):
            s = T.matvec(k[keys, dims], q[i, dims]) * scale + key_bias
            s = T.where(kpos <= i, s, -math.inf)
            p = T.exp(s - T.max(s))
            o[i, dims] = T.vecmat(p, v[keys, dims]) / T.sum(p)
    return attention


def lse_reference(x, bias, scale):
    z = x.astype(np.float64) + bias.astype(np.float64) * np.float64(np.float32(scale))
    if z.shape[1] == 0:
        return np.full(z.shape[0], -np.inf)
    top = z.max(axis=1)
    return top + np.log(np.exp(z - top[:, None]).sum(axis=1))


def attention_reference(q, k, v, kb, scale):
    S = q.shape[0]
    s = q.astype(np.float64) @ k.astype(np.float64).T * scale + kb.astype(np.float64)[None, :]
    s = np.where(np.arange(S)[None, :] <= np.arange(S)[:, None], s, -np.inf)
    if S == 0:
        return np.zeros((0, q.shape[1]))
    p = np.exp(s - s.max(axis=1, keepdims=True))
    return (p / p.sum(axis=1, keepdims=True)) @ v.astype(np.float64)


def rewritten(tessel_bin, tmp_path, kernel):
    """The traced KIR and the KIR after kir-online-folds."""
    src = kernel._write(tmp_path, None)
    res = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(src), "-kir-online-folds"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return src.read_text(), res.stdout


def run_kir(tessel_bin, tmp_path, text, name, shape, inputs, scalars, segments, result):
    src = tmp_path / f"{name}-{segments}.mlir"
    src.write_text(text)
    out = tmp_path / f"out-{segments}"
    args = [str(tessel_bin), "run", f"{src}:{name}", "--stage", "kir", "--segments", segments, "--out", str(out),
            "--shape", ",".join(f"{k}={v}" for k, v in shape.items())]
    for n, x in inputs.items():
        np.save(tmp_path / f"{n}.npy", x)
        args += ["--in", f"{n}={tmp_path / f'{n}.npy'}"]
    for n, x in scalars.items():
        args += ["--scalar", f"{n}={x}"]
    res = subprocess.run(args, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return np.load(out / f"{result}.npy").astype(np.float64)


def kernel_level_part(text):
    """The KIR before its first kir.parallel (the kernel-level ops)."""
    return text.split("kir.parallel", 1)[0]


LSE_SHAPES = [(0, 5), (1, 1), (3, 0), (7, 13), (5, 131), (2, 1031)]


@pytest.mark.parametrize("M,N", LSE_SHAPES, ids=[f"M{M}-N{N}" for M, N in LSE_SHAPES])
def test_lse_with_hoisted_bias_becomes_one_fold(tessel_bin, tmp_path, M, N):
    import torch
    kernel = make_lse()
    traced, folded = rewritten(tessel_bin, tmp_path, kernel)
    # Traced: the bias read (and its cast and scale) before the loop; rewritten: one online fold whose
    # sources include the bias read, now in the loop body, and nothing of it left at kernel level.
    assert "kir.load %bias" in kernel_level_part(traced) and "kir.region_fold" not in traced
    assert "kir.load %bias" not in kernel_level_part(folded)
    fold = re.search(r"kir\.region_fold sources\(([^:]*):", folded)
    assert fold and len(fold.group(1).split(",")) == 3, folded  # bias, x row, positions
    rng = np.random.default_rng(M * 131 + N)
    inputs = {"x": (3 * rng.standard_normal((M, N))).astype(np.float32),
              "bias": rng.standard_normal(N).astype(np.float16)}
    scale = 0.75
    want = lse_reference(inputs["x"], inputs["bias"], scale)
    for text, segments in ((traced, "one"), (folded, "one"), (folded, "random"), (folded, "3")):
        got = run_kir(tessel_bin, tmp_path, text, kernel.name, {"M": M, "N": N}, inputs, {"scale": scale},
                      segments, "out")
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, err_msg=f"KIR interpreter, {segments}")
    out = torch.full((M,), float("nan"))
    kernel(torch.from_numpy(inputs["x"]), torch.from_numpy(inputs["bias"]), out, scale=scale)
    np.testing.assert_allclose(out.double().numpy(), want, rtol=1e-5, atol=1e-5, err_msg="Triton (interpreter)")


ATTN_SHAPES = [(1, 16), (5, 16), (67, 24)]


@pytest.mark.parametrize("numerics", [None, "relaxed_normalization"], ids=["source", "relaxed"])
@pytest.mark.parametrize("S,D", ATTN_SHAPES, ids=[f"S{S}-D{D}" for S, D in ATTN_SHAPES])
def test_attention_with_hoisted_key_bias_folds(tessel_bin, tmp_path, S, D, numerics):
    """Source numerics: the exact two-pass folds (the row is a contraction's); relaxed: one online fold.
    Either way the key bias is read in the loop body, a source of every fold."""
    import torch
    kernel = make_attention(numerics)
    traced, folded = rewritten(tessel_bin, tmp_path, kernel)
    assert "kir.load %kb" in kernel_level_part(traced) and "kir.region_fold" not in traced
    assert "kir.load %kb" not in kernel_level_part(folded)
    folds = re.findall(r"kir\.region_fold sources\(([^:]*):", folded)
    assert len(folds) == (2 if numerics is None else 1), folded
    body = folded.split("kir.parallel", 1)[1]
    kb = re.search(r"(%\w+) = kir\.load %kb", body).group(1)
    assert all(kb in f.split(", ") for f in folds), folds
    rng = np.random.default_rng(S * 7 + D)
    inputs = {n: rng.standard_normal((S, D)).astype(np.float32) for n in "qkv"}
    inputs["kb"] = rng.standard_normal(S).astype(np.float32)
    scale = 1.0 / math.sqrt(D)
    want = attention_reference(inputs["q"], inputs["k"], inputs["v"], inputs["kb"], scale)
    for text, segments in ((traced, "one"), (folded, "one"), (folded, "random"), (folded, "3")):
        got = run_kir(tessel_bin, tmp_path, text, kernel.name, {"S": S, "D": D}, inputs, {"scale": scale},
                      segments, "o")
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4, err_msg=f"KIR interpreter, {segments}")
    o = torch.full((S, D), float("nan"))
    kernel(*(torch.from_numpy(inputs[n]) for n in ("q", "k", "v", "kb")), o, scale=scale)
    np.testing.assert_allclose(o.double().numpy(), want, rtol=1e-4, atol=1e-4, err_msg="Triton (interpreter)")


def softmax_source_and_remarks(tessel_bin, tmp_path, fn, tag):
    kernel = tessel.kernel(name="softmax_bias", optimization_remarks=True)(fn)
    (tmp_path / tag).mkdir()
    src = kernel._write(tmp_path / tag, None)
    res = subprocess.run([str(tessel_bin), "compile", str(src), "--emit=source"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    remarks = [ln.split("remark: ", 1)[1] for ln in res.stderr.splitlines() if "remark: kir-online-folds" in ln]
    source = "\n".join(ln for ln in res.stdout.splitlines() if not ln.strip().startswith("# "))  # no line notes
    return source, remarks


def test_stored_softmax_same_either_spelling(tessel_bin, tmp_path):
    """Must not rewrite (a row softmax stored over the axis keeps its row path): the hoisted and the
    in-loop spellings give the same Triton source and the same remark, which names that reason and
    not where the bias was read (bench/corpus/144's complaint)."""
    def hoisted(x: T.In[T.f16, ("M", "N")], mask: T.In[T.f32, ("N",)], p: T.Out[T.f16, ("M", "N")]):
        M, N = x.shape
        cols = T.domain(0, N)
        bias = mask[cols]
        for m in T.parallel(T.domain(0, M)):
            z = T.cast(x[m, cols], T.f32) + bias
            e = T.exp(z - T.max(z))
            p[m, cols] = T.cast(e / T.sum(e), T.f16)

    def in_loop(x: T.In[T.f16, ("M", "N")], mask: T.In[T.f32, ("N",)], p: T.Out[T.f16, ("M", "N")]):
        M, N = x.shape
        cols = T.domain(0, N)
        for m in T.parallel(T.domain(0, M)):
            z = T.cast(x[m, cols], T.f32) + mask[cols]
            e = T.exp(z - T.max(z))
            p[m, cols] = T.cast(e / T.sum(e), T.f16)

    a, ra = softmax_source_and_remarks(tessel_bin, tmp_path, hoisted, "hoisted")
    b, rb = softmax_source_and_remarks(tessel_bin, tmp_path, in_loop, "in_loop")
    assert a == b
    assert ra == rb == ["kir-online-folds: the maximum stays a two-pass reduction: the row is stored over the axis "
                        "and is neither computed by nor reduced into a contraction (the row path keeps it whole)"]


def test_inout_read_is_not_replayed(tessel_bin, tmp_path):
    """Must not fire: a read of an InOut view before the loop is not a pure function of the axis (the
    kernel may write the view); the remark says what would be recomputed."""
    @tessel.kernel(name="lse_inout_bias", numerics="relaxed_normalization", optimization_remarks=True)
    def lse_inout(x: T.In[T.f32, ("M", "N")], bias: T.InOut[T.f32, ("N",)], out: T.Out[T.f32, ("M",)]):
        M, N = x.shape
        cols = T.domain(0, N)
        b = bias[cols]
        for m in T.parallel(T.domain(0, M)):
            z = x[m, cols] + b
            top = T.max(z)
            out[m] = top + T.log(T.sum(T.exp(z - top)))

    traced, folded = rewritten(tessel_bin, tmp_path, lse_inout)
    assert "kir.region_fold" not in folded
    src = lse_inout._write(tmp_path, None)
    res = subprocess.run([str(tessel_bin), "compile", str(src), "--emit=kir"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert ("a tensor over the axis computed outside the loop body that is not a pure function of the axis "
            "(only loads of In views over the axis and pointwise math on them are recomputed in the loop)") in res.stderr
