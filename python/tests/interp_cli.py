"""What the interpreter-comparison tests share (test_contract_loops.py, test_init_rows.py, test_fold_views.py,
test_kept_fold_tiles.py, test_staged_folds.py, ...): a kernel's pgpu program after realize-folds, one
`tessel run` of a KIR or pgpu program on given inputs, the comparison of its outputs, and the loop that
holds the KIR interpreter to a reference and the pgpu interpreter to the KIR one over shapes and bindings."""
import subprocess

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
