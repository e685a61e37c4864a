"""What the interpreter-comparison tests share (test_contract_loops.py, test_init_rows.py, test_fold_views.py,
test_kept_fold_tiles.py, test_staged_folds.py, test_split_row_walks.py, ...): a kernel's pgpu program after
realize-folds, one `tessel run` of a KIR or pgpu program on given inputs, the comparison of its outputs, and the
loop that holds the KIR interpreter to a reference and the pgpu interpreter to the KIR one over shapes and
bindings."""
import hashlib
import os
import pathlib
import re
import subprocess
import tempfile

import numpy as np

import tessel
import tessel.language as T


def realize_folds(tessel_bin, tmp_path, kernel):
    """(KIR source, pgpu program after realize-folds) of `kernel`, written under tmp_path."""
    source = kernel._write(tmp_path, None)
    program = tmp_path / f"{kernel.name}-pgpu.mlir"
    res = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(source),
                          "--tessel-pipeline=stop-after=realize-folds", "-o", str(program)],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return source, program


def tessel_opt(tessel_bin, source, *args):
    """stdout of `tessel-opt SOURCE ARGS` (which must succeed)."""
    res = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(source), *args], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return res.stdout


def run_cli(tessel_bin, tmp_path, source, shape, inputs, extra, tag):
    """The outputs (name -> float64 array) of `tessel run SOURCE` at `shape` on `inputs` (name -> array),
    with `extra` arguments (`--stage kir`, `--order shuffle`, `--param=...`), written under tmp_path/out-TAG."""
    out = tmp_path / f"out-{tag}"
    args = [str(tessel_bin), "run", str(source), "--shape", ",".join(f"{k}={v}" for k, v in shape.items()),
            "--out", str(out), *extra]
    for n, x in inputs.items():
        np.save(tmp_path / f"{n}.npy", x)
        args += ["--in", f"{n}={tmp_path / f'{n}.npy'}"]
    res = subprocess.run(args, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return {p.stem: np.load(p).astype(np.float64) for p in out.glob("*.npy")}


def close(got, want, what, atol=2e-3):
    """Every output of `want` in `got`: the same infinities, the rest within rtol 2e-3 and `atol`."""
    for n, w in want.items():
        np.testing.assert_array_equal(np.isinf(got[n]), np.isinf(w), err_msg=f"{what}: {n} infinities")
        np.testing.assert_allclose(got[n], w, rtol=2e-3, atol=atol, err_msg=f"{what}: {n}")


def interpreters_agree(tessel_bin, tmp_path, source, program, shapes, draw, reference, bindings, extra=()):
    """At each shape of `shapes` (the i-th on inputs `draw(shape, i)`), the KIR interpreter on `source` agrees
    with `reference(inputs)` and the pgpu interpreter on `program` (shuffled program order, `extra` arguments
    too) with the KIR interpreter under each binding of `bindings` ({name: value} each)."""
    for i, shape in enumerate(shapes):
        inputs = draw(shape, i)
        kir = run_cli(tessel_bin, tmp_path, source, shape, inputs, ["--stage", "kir", *extra], f"kir{i}")
        close(kir, reference(inputs), f"KIR interpreter at {shape}")
        for params in bindings:
            what = ",".join(f"{k}={v}" for k, v in params.items())
            got = run_cli(tessel_bin, tmp_path, program, shape, inputs,
                          ["--order", "shuffle", *extra, *[f"--param={k}={v}" for k, v in params.items()]], f"pgpu{i}")
            close(got, kir, f"pgpu interpreter ({what}) at {shape}")


def attention(q, k, v, scale, bias=None, visible=None, softcap=None):
    """(o, lse) of attention in NumPy f64, the DSL sources' order of operations: scores q.k * scale, plus
    `bias` ([H, S, T], broadcast over the batch), capped `softcap * tanh(s / softcap)`, -inf where not
    `visible`; k and v heads repeated for grouped queries. NaN rows where nothing is visible (and where no
    key exists). test_staged_attention.py and test_two_pass_folds.py."""
    q, k, v = (np.asarray(x, np.float64) for x in (q, k, v))
    group = q.shape[1] // k.shape[1]
    k, v = np.repeat(k, group, axis=1), np.repeat(v, group, axis=1)
    s = np.einsum("bhqd,bhkd->bhqk", q, k) * scale
    if bias is not None:
        s = s + bias[None].astype(np.float64)
    if softcap is not None:
        s = softcap * np.tanh(s / softcap)
    if visible is not None:
        s = np.where(visible, s, -np.inf)
    with np.errstate(invalid="ignore", divide="ignore"):
        m = s.max(-1, keepdims=True) if s.shape[-1] else np.full(s.shape[:-1] + (1,), -np.inf)
        p = np.exp(s - m)
        l = p.sum(-1)
        return np.einsum("bhqk,bhkd->bhqd", p, v) / l[..., None], m[..., 0] + np.log(l)


def two_pass_bias_attention(name):
    """Attention with an additive bias [H, S, T] (broadcast over the batch) in the corpus's two-pass spelling
    (bench/corpus/199): f16 q, k, v, o, an f32 bias, scores q.k * scale + bias, a maximum, then the sums and
    the product with V at it. A new kernel named `name`. test_staged_attention.py, test_program_axis_order.py."""
    F16 = T.f16

    @tessel.kernel(name=name)
    def kernel(q: T.In[F16, ("B", "H", "S", "D")], k: T.In[F16, ("B", "H", "T", "D")],
               v: T.In[F16, ("B", "H", "T", "D")], bias: T.In[T.f32, ("H", "S", "T")],
               o: T.Out[F16, ("B", "H", "S", "D")], scale: T.f32):
        B, H, S, D = q.shape
        keys, dims = k.domain(2), T.domain(0, D)
        for b, h, i in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, S)):
            s = T.matvec(k[b, h, keys, dims], q[b, h, i, dims]) * scale + bias[h, i, keys]
            p = T.exp(s - T.max(s))
            acc = T.vecmat(T.cast(p, F16), v[b, h, keys, dims])
            o[b, h, i, dims] = T.cast(acc / T.sum(p), F16)
    return kernel


def attention_backward_dq(name, dtype):
    """FlashAttention-2 backward dQ (bench/corpus/279) over views of `dtype`: causal probabilities
    where(k <= i, exp(s - lse[i]), 0), ds = p * (dp - delta[i]) cast to `dtype`, dq = ds . k * scale. A new
    kernel named `name`. test_row_read_chains.py, test_causal_product_skip.py."""

    @tessel.kernel(name=name)
    def kernel(q: T.In[dtype, ("H", "S", "D")], k: T.In[dtype, ("H", "S", "D")], v: T.In[dtype, ("H", "S", "D")],
               do: T.In[dtype, ("H", "S", "D")], lse: T.In[T.f32, ("H", "S")], delta: T.In[T.f32, ("H", "S")],
               dq: T.Out[T.f32, ("H", "S", "D")], scale: T.f32):
        H, S, D = q.shape
        keys, dims = T.domain(0, S), T.domain(0, D)
        kpos = T.indices(keys)
        for h, i in T.parallel(T.domain(0, H), T.domain(0, S)):
            s = T.matvec(k[h, keys, dims], q[h, i, dims]) * scale
            p = T.where(kpos <= i, T.exp(s - lse[h, i]), 0.0)
            dp = T.matvec(v[h, keys, dims], do[h, i, dims])
            ds = T.cast(p * (dp - delta[h, i]), dtype)
            dq[h, i, dims] = T.vecmat(ds, k[h, keys, dims]) * scale
    return kernel


def row_variance(name="row_variance"):
    """A row's mean and variance over its one axis (bench/corpus/137's statistics): mean[r] = sum(row) / N,
    then var[r] = sum((row - mean)^2) / N, the second walk reading the first's result. A new kernel named
    `name`. test_split_row_walks.py, test_split_member_reductions.py."""

    @tessel.kernel(name=name)
    def kernel(x: T.In[T.f32, ("R", "N")], mean: T.Out[T.f32, ("R",)], var: T.Out[T.f32, ("R",)]):
        R, N = x.shape
        cols = T.domain(0, N)
        nf = T.cast(N, T.f32)
        for r in T.parallel(T.domain(0, R)):
            row = x[r, cols]
            mu = T.sum(row) / nf
            mean[r] = mu
            d = row - mu
            var[r] = T.sum(d * d) / nf
    return kernel


def row_sum_max(name="row_sum_max"):
    """A row's sum plus its maximum: two statistics, neither reading the other (one phase: nothing to split in
    two). A new kernel named `name`. test_split_row_walks.py, test_split_member_reductions.py."""

    @tessel.kernel(name=name)
    def kernel(x: T.In[T.f32, ("R", "N")], s: T.Out[T.f32, ("R",)]):
        R, N = x.shape
        cols = T.domain(0, N)
        for r in T.parallel(T.domain(0, R)):
            s[r] = T.sum(x[r, cols]) + T.max(x[r, cols])
    return kernel


def row_variance_want(x):
    """{mean, var} of each row of `x` in NumPy f64 (NaN for empty rows), as row_variance computes them."""
    x = x.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mu = x.sum(axis=1) / x.shape[1]
        return {"mean": mu, "var": ((x - mu[:, None]) ** 2).sum(axis=1) / x.shape[1]}


def provider_program(tessel_bin, tmp_path, kernel, stop="realize-folds"):
    """(KIR source, pgpu program) of `kernel` after the Triton provider's passes up to `stop` (its waits and
    workspace), written under tmp_path."""
    source = tmp_path / f"{kernel.name}.mlir"
    source.write_text(kernel.kir())
    program = tmp_path / f"{kernel.name}.pgpu.mlir"
    res = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(source),
                          f"--tessel-pipeline=provider=triton stop-after={stop}", "-o", str(program)],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return source, program


def run_seeded(tessel_bin, tmp_path, file, kernel, shape, order, params=(), extra=()):
    """The outputs (name -> array) of `tessel run FILE:KERNEL` at `shape` on inputs drawn from seed 5, programs
    run in `order` (forward, reverse, shuffle), with `--param P` for each of `params` and `extra` arguments
    (`--stage kir`, `--scalar ...`), written under tmp_path."""
    out = tmp_path / re.sub(r"[^\w.=+-]", "_", "-".join(["run", kernel.name, order, *params, *extra]))
    cmd = [str(tessel_bin), "run", f"{file}:{kernel.name}", *extra, "--order", order, "--seed", "5",
           "--shape", ",".join(f"{k}={v}" for k, v in shape.items()), "--out", str(out)]
    for p in params:
        cmd += ["--param", p]
    res = subprocess.run(cmd, capture_output=True, text=True)
    assert res.returncode == 0, f"{' '.join(cmd)}\n{res.stderr}"
    return {p.name[:-4]: np.load(p) for p in out.glob("*.npy")}


def views_of(kernel):
    """(inputs, outputs): the kernel's view parameters as (name, extents) in order."""
    ins, outs = [], []
    for p in kernel.params():
        if p.kind == "view":
            (outs if p.spec.mode == "out" else ins).append((p.name, p.spec.extents))
    return ins, outs


def run_kir(tessel_bin, tmp_path, text, kernel, shape, inputs, scalars, segments):
    """The outputs (in order, float64) of the KIR interpreter on `text` (the KIR of `kernel`) at `shape`, with
    `--segments SEGMENTS`."""
    src = tmp_path / f"{kernel.name}-{segments}.mlir"
    src.write_text(text)
    out = tmp_path / f"out-{segments}"
    args = [str(tessel_bin), "run", f"{src}:{kernel.name}", "--stage", "kir", "--segments", segments,
            "--out", str(out), "--shape", ",".join(f"{n}={x}" for n, x in shape.items())]
    for n, x in inputs.items():
        np.save(tmp_path / f"{n}.npy", x)
        args += ["--in", f"{n}={tmp_path / f'{n}.npy'}"]
    for n, x in scalars.items():
        args += ["--scalar", f"{n}={x}"]
    res = subprocess.run(args, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return [np.load(out / f"{n}.npy").astype(np.float64) for n, _ in views_of(kernel)[1]]


def rewritten(tessel_bin, tmp_path, kernel):
    """(KIR source, KIR after -kir-online-folds) of `kernel`."""
    src = kernel._write(tmp_path, None)
    res = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(src), "-kir-online-folds"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return src.read_text(), res.stdout


_KIR_RUNS = {}


def run_stage(tessel_bin, kernel, shapes, stage, params, inputs):
    """The outputs (name -> array) of `tessel run` of `kernel` at `stage` (kir or pgpu), seed 5, with `params`
    bound and `inputs` (name -> array) given; the rest drawn (test_column_reductions.py,
    test_column_normalizations.py, test_constant_rows.py). A KIR run (the reference every tile binding of a
    case compares with) runs once per kernel, shapes, parameters and inputs in a process."""
    if stage != "kir":
        return _run_stage(tessel_bin, kernel, shapes, stage, params, inputs)
    digest = hashlib.sha256()
    for name in sorted(inputs):
        value = np.ascontiguousarray(inputs[name])
        digest.update(f"{name}:{value.dtype}:{value.shape}:".encode())
        digest.update(value.tobytes())
    key = (str(tessel_bin), kernel, tuple(sorted(shapes.items())), tuple(sorted(params.items())), digest.hexdigest())
    if key not in _KIR_RUNS:
        _KIR_RUNS[key] = _run_stage(tessel_bin, kernel, shapes, stage, params, inputs)
    return dict(_KIR_RUNS[key])


def _run_stage(tessel_bin, kernel, shapes, stage, params, inputs):
    with tempfile.TemporaryDirectory() as tmp:
        path = kernel._write(pathlib.Path(tmp), {})
        out = os.path.join(tmp, "out")
        cmd = [str(tessel_bin), "run", f"{path}:{kernel.name}", "--stage", stage, "--seed", "5", "--out", out,
               "--shape", ",".join(f"{k}={v}" for k, v in shapes.items())]
        for name, value in inputs.items():
            np.save(os.path.join(tmp, f"{name}.npy"), value)
            cmd += [f"--in={name}={os.path.join(tmp, name + '.npy')}"]
        cmd += [f"--param={k}={v}" for k, v in params.items()]
        res = subprocess.run(cmd, capture_output=True, text=True)
        assert res.returncode == 0, f"{' '.join(cmd)}\n{res.stderr}"
        return {p[:-4]: np.load(os.path.join(out, p)) for p in os.listdir(out)}


def masked_attention(q, k, v, scale, visible):
    """Attention in NumPy f64, -inf scores where not `visible` (NaN rows where nothing is visible).
    test_union_ranges.py, test_interval_unions.py."""
    q, k, v = (np.asarray(x, np.float64) for x in (q, k, v))
    s = np.where(visible, np.einsum("bhqd,bhkd->bhqk", q, k) * scale, -np.inf)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.exp(s - s.max(-1, keepdims=True))
        return np.einsum("bhqk,bhkd->bhqd", p, v) / p.sum(-1)[..., None]


def draw_f16_qkv(shape, seed):
    """q, k, v: f16 standard normal of [B, H, S, D] of `shape`."""
    rng = np.random.default_rng(seed)
    B, H, S, D = (shape[n] for n in "BHSD")
    return {n: rng.standard_normal((B, H, S, D)).astype(np.float16) for n in "qkv"}


def close_with_nans(got, want, what):
    """The same NaN positions, the rest within 2e-2 (f16 attention)."""
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=f"{what}: NaN positions")
    np.testing.assert_allclose(got, want, rtol=2e-2, atol=2e-2, err_msg=what)


def run_o(tessel_bin, source, stage_args, shape, inputs, scalars, out, params=()):
    """The output `o` (float64) of `tessel run SOURCE` with `stage_args`, written to `out`."""
    args = [str(tessel_bin), "run", str(source), *stage_args, "--out", str(out),
            "--shape", ",".join(f"{n}={x}" for n, x in shape.items())]
    for n, x in inputs.items():
        np.save(out.parent / f"{n}.npy", x)
        args += ["--in", f"{n}={out.parent / f'{n}.npy'}"]
    for n, x in scalars.items():
        args += ["--scalar", f"{n}={x}"]
    args += [f"--param={k}={v}" for k, v in params]
    res = subprocess.run(args, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return np.load(out / "o.npy").astype(np.float64)


def assert_tiled(kernel, tessel_bin, tmp_path, how="one member per program"):
    """Construction took the fragment path (`how`: one member per program, or lanes) and left no fold
    element-wise; returns the constructed program."""
    source = kernel._write(tmp_path, None)
    res = subprocess.run([str(tessel_bin), "compile", str(source), "--emit=pgpu", "--remarks"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert f"region fold constructed on fragments: {how}" in res.stderr, res.stderr
    assert "constructed element by element" not in res.stderr, res.stderr
    return res.stdout


def run_three_ways(kernel, tessel_bin, tmp_path, shapes, inputs, scalars, name, want, tol,
                   how="one member per program"):
    """The KIR interpreter, the pgpu interpreter after the shared pipeline with 16-wide blocks, and
    the generated Triton under TRITON_INTERPRET=1, each against `want` (test_member_domain_folds.py,
    test_lane_domain_folds.py)."""
    import torch
    assert_tiled(kernel, tessel_bin, tmp_path, how)
    args = []
    for n, v in inputs.items():
        np.save(tmp_path / f"{n}.npy", v)
        args += ["--in", f"{n}={tmp_path / f'{n}.npy'}"]
    args += [a for k, v in scalars.items() for a in ("--scalar", f"{k}={v}")]
    shape = ",".join(f"{k}={v}" for k, v in shapes.items())
    got = kernel.run_interp(shapes=shapes, scalars=scalars, inputs=inputs)
    np.testing.assert_allclose(got[name], want, **tol, err_msg="KIR interpreter")

    source = kernel._write(tmp_path, None)
    program = tmp_path / "program.mlir"
    opt = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(source), "--tessel-pipeline=stop-after=realize-folds", "-o", str(program)],
                         capture_output=True, text=True)
    assert opt.returncode == 0, opt.stderr
    # Fold tiles 16 wide (several per member, a masked tail), paired members where pgpu-pair-blocks
    # declares it; free axes 64 wide (every test shape's D fits: the tiled variant), then 16 wide (a
    # D > 16 takes the element-wise fallback); other parameters at their defaults.
    declared = sorted(set(w.split('"')[1] for w in program.read_text().split("#pgpu.param<")[1:]))
    tiles = {"BLOCK_A0"}
    for free in (64, 16):
        params = [f"--param={p}={16 if p in tiles else free}" for p in declared if p.startswith("BLOCK_")]
        params += [f"--param={p}=2" for p in declared if p == "PAIR_BLOCKS"]
        out = tmp_path / f"pgpu{free}"
        res = subprocess.run([str(tessel_bin), "run", str(program), "--shape", shape, "--order", "shuffle",
                              "--out", str(out), *args, *params], capture_output=True, text=True)
        assert res.returncode == 0, res.stderr
        np.testing.assert_allclose(np.load(out / f"{name}.npy"), want, **tol, err_msg=f"pgpu, free axes {free}")

    targs = {n: torch.tensor(v) for n, v in inputs.items()}
    targs[name] = torch.full(want.shape, float("nan"), dtype=torch.float32)
    kernel(**targs, **scalars)
    np.testing.assert_allclose(targs[name].numpy(), want, **tol, err_msg="triton")


def make_mqa(numerics):
    """Multi-query attention decode rows: one query row per head against one shared key/value head
    (test_decode_rows.py, test_two_pass_split.py)."""
    @tessel.kernel(name=f"mqa_rows_{numerics}", numerics=numerics)
    def mqa(q: T.In[T.f32, ("B", "H", "D")], k: T.In[T.f32, ("B", "T", "D")], v: T.In[T.f32, ("B", "T", "D")],
            o: T.Out[T.f32, ("B", "H", "D")], scale: T.f32):
        B, H, D = q.shape
        heads, keys, dims = T.domain(0, H), k.domain(1), T.domain(0, D)
        for b in T.parallel(T.domain(0, B)):
            s = T.matmul(q[b, heads, dims], k[b, keys, dims], transpose_rhs=True) * scale   # [H, T]
            p = T.exp(s - T.max(s, axis=1))
            o[b, heads, dims] = T.matmul(p, v[b, keys, dims]) / T.sum(p, axis=1)
    return mqa


def make_mla(numerics):
    """Scores as the sum of two products over different feature axes (MLA's latent and rotary parts); the
    latent cache is both a key and the value."""
    @tessel.kernel(name=f"mla_rows_{numerics}", numerics=numerics)
    def mla(qn: T.In[T.f32, ("B", "H", "DC")], qr: T.In[T.f32, ("B", "H", "DR")], c: T.In[T.f32, ("B", "T", "DC")],
            kr: T.In[T.f32, ("B", "T", "DR")], o: T.Out[T.f32, ("B", "H", "DC")]):
        B, H, DC = qn.shape
        heads, keys = T.domain(0, H), c.domain(1)
        lat, rot = T.domain(0, DC), T.domain(0, qr.shape[2])
        for b in T.parallel(T.domain(0, B)):
            cb = c[b, keys, lat]
            s = (T.matmul(qn[b, heads, lat], cb, transpose_rhs=True)
                 + T.matmul(qr[b, heads, rot], kr[b, keys, rot], transpose_rhs=True))
            p = T.exp(s - T.max(s, axis=1))
            o[b, heads, lat] = T.matmul(p, cb) / T.sum(p, axis=1)
    return mla
