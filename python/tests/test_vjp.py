"""Backward kernels derived from the forward (issue 45; kir-vjp, docs/language.md "Derived backward
kernels"): `kernel.vjp(wrt=...)` is checked against torch autograd in float64 on the KIR interpreter at
odd shapes (1, primes, 0 rows), with `torch.autograd.gradcheck` (finite differences of the forward on
the interpreter against the derived kernel), and through Triton under TRITON_INTERPRET=1 against the
interpreter running the same derived kernel."""
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module
torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402

EPS = 2.0 ** -16  # exact in f32, so the f32 scalar and torch's f64 agree


def make_kernels(dt):
    """The forward kernels of the suite that this slice differentiates, in element type `dt`."""

    @tessel.kernel
    def softmax(x: T.In[dt, ("M", "N")], y: T.Out[dt, ("M", "N")]):
        M, N = x.shape
        cols = T.domain(0, N)
        for m in T.parallel(T.domain(0, M)):
            row = x[m, cols]
            e = T.exp(row - T.max(row))
            y[m, cols] = e / T.sum(e)

    @tessel.kernel
    def layernorm_rows(x: T.In[dt, ("M", "N")], w: T.In[dt, ("N",)], y: T.Out[dt, ("M", "N")], eps: T.f32):
        # A row per T.parallel member; w is read once at kernel level for all rows, so its cotangent is a
        # sum over the members (through a kernel-level buffer).
        M, N = x.shape
        cols = T.domain(0, N)
        n = T.cast(N, dt)
        weight = w[cols]
        for m in T.parallel(T.domain(0, M)):
            row = x[m, cols]
            mean = T.sum(row) / n
            c = row - mean
            var = T.sum(c * c) / n
            y[m, cols] = c * T.rsqrt(var + T.cast(eps, dt)) * weight

    @tessel.kernel
    def layernorm(x: T.In[dt, ("M", "N")], w: T.In[dt, ("N",)], bb: T.In[dt, ("N",)], y: T.Out[dt, ("M", "N")],
                  eps: T.f32):
        # At kernel level, so that the weight and bias cotangents (sums over rows) derive too.
        M, N = x.shape
        rows, cols = T.domain(0, M), T.domain(0, N)
        n = T.cast(N, dt)
        xx = x[rows, cols]
        mean = T.sum(xx, axis=1) / n
        c = xx - mean
        var = T.sum(c * c, axis=1) / n
        y[rows, cols] = c * T.rsqrt(var + T.cast(eps, dt)) * w[cols] + bb[cols]

    @tessel.kernel
    def rmsnorm(x: T.In[dt, ("M", "N")], w: T.In[dt, ("N",)], y: T.Out[dt, ("M", "N")], eps: T.f32):
        M, N = x.shape
        rows, cols = T.domain(0, M), T.domain(0, N)
        xx = x[rows, cols]
        r = T.rsqrt(T.sum(xx * xx, axis=1) / T.cast(N, dt) + T.cast(eps, dt))
        y[rows, cols] = xx * r * w[cols]

    @tessel.kernel
    def gemm_gelu(a: T.In[dt, ("M", "K")], b: T.In[dt, ("K", "N")], bias: T.In[dt, ("N",)],
                  c: T.Out[dt, ("M", "N")]):
        M, K = a.shape
        N = b.shape[1]
        rows, cols, ks = T.domain(0, M), T.domain(0, N), T.domain(0, K)
        acc = T.matmul(a[rows, ks], b[ks, cols], acc_dtype=dt, init=bias[cols])
        c[rows, cols] = T.gelu(acc)

    @tessel.kernel
    def bmm_nt(a: T.In[dt, ("B", "M", "K")], b: T.In[dt, ("B", "N", "K")], c: T.Out[dt, ("M", "B", "N")]):
        # A batch pair, a reduce pair over both operands' last axes, the result stored permuted.
        nb, M, K = a.shape
        N = b.shape[1]
        bs, rows, cols, ks = T.domain(0, nb), T.domain(0, M), T.domain(0, N), T.domain(0, K)
        prod = T.contract(a[bs, rows, ks], b[bs, cols, ks], reduce=((2, 2),), batch=((0, 0),), acc_dtype=dt)
        c[rows, bs, cols] = T.transpose(prod, [1, 0, 2])

    @tessel.kernel
    def rows_matmul(a: T.In[dt, ("M", "K")], b: T.In[dt, ("K", "N")], c: T.Out[dt, ("M", "N")]):
        # A row of A per member against all of B (read once at kernel level): dB is a sum over the
        # members of outer products.
        M, K = a.shape
        N = b.shape[1]
        cols, ks = T.domain(0, N), T.domain(0, K)
        bmat = b[ks, cols]
        for m in T.parallel(T.domain(0, M)):
            c[m, cols] = T.contract(a[m, ks], bmat, reduce=((0, 0),), acc_dtype=dt)

    @tessel.kernel
    def logsumexp(x: T.In[dt, ("M", "N")], out: T.Out[dt, ("M",)]):
        M, N = x.shape
        cols = T.domain(0, N)
        for m in T.parallel(T.domain(0, M)):
            row = x[m, cols]
            mx = T.max(row)
            out[m] = mx + T.log(T.sum(T.exp(row - mx)))

    @tessel.kernel
    def row_max(x: T.In[dt, ("M", "N")], out: T.Out[dt, ("M",)]):
        M, N = x.shape
        cols = T.domain(0, N)
        for m in T.parallel(T.domain(0, M)):
            out[m] = T.max(x[m, cols])

    @tessel.kernel
    def pointwise(x: T.In[dt, ("M", "N")], z: T.In[dt, ("M", "N")], y: T.Out[dt, ("M", "N")]):
        # Every pointwise rule, x used many times (its cotangent is the sum of the uses').
        M, N = x.shape
        rows, cols = T.domain(0, M), T.domain(0, N)
        a, b = x[rows, cols], z[rows, cols]
        s = T.sigmoid(a) * T.tanh(b) + T.sqrt(a * a + 1.0) - T.exp(-b) / (T.abs(a) + 2.0)
        t = T.where(a > b, T.log(b * b + 1.0), T.rsqrt(T.cast(T.cast(a * a + 0.5, T.f32), dt)))
        y[rows, cols] = s * t + T.maximum(a, b) - T.minimum(a * 2.0, b) + T.sin(a) * T.erf(b)

    @tessel.kernel
    def cumsum_rows(x: T.In[dt, ("M", "N")], y: T.Out[dt, ("M", "N")]):
        # A sum scan: its cotangent is the reverse cumsum of the cotangent.
        M, N = x.shape
        cols = T.domain(0, N)
        for m in T.parallel(T.domain(0, M)):
            y[m, cols] = T.cumsum(T.exp(x[m, cols]) * 2.0)

    @tessel.kernel
    def rcumsum_ex(x: T.In[dt, ("M", "N")], y: T.Out[dt, ("M", "N")]):
        # A reverse exclusive scan: its cotangent is a forward exclusive scan.
        M, N = x.shape
        cols = T.domain(0, N)
        for m in T.parallel(T.domain(0, M)):
            y[m, cols] = T.cumsum(x[m, cols] * x[m, cols], reverse=True, exclusive=True)

    return {k.name: k for k in (softmax, layernorm_rows, layernorm, rmsnorm, gemm_gelu, bmm_nt, rows_matmul, logsumexp,
                                 row_max, pointwise, cumsum_rows, rcumsum_ex)}


K64 = make_kernels(T.f64)
K32 = make_kernels(T.f32)


def t_softmax(x):
    return {"y": torch.softmax(x, dim=1)}


def t_layernorm_rows(x, w, eps):
    return {"y": torch.nn.functional.layer_norm(x, (x.shape[1],), w, None, eps=eps)}


def t_layernorm(x, w, bb, eps):
    return {"y": torch.nn.functional.layer_norm(x, (x.shape[1],), w, bb, eps=eps)}


def t_rmsnorm(x, w, eps):
    return {"y": x * torch.rsqrt((x * x).mean(dim=1, keepdim=True) + eps) * w}


def t_gemm_gelu(a, b, bias):
    return {"c": torch.nn.functional.gelu(a @ b + bias)}


def t_bmm_nt(a, b):
    return {"c": torch.einsum("bmk,bnk->mbn", a, b)}


def t_rows_matmul(a, b):
    return {"c": a @ b}


def t_logsumexp(x):
    return {"out": torch.logsumexp(x, dim=1)}


def t_row_max(x):
    return {"out": torch.amax(x, dim=1)}


def t_pointwise(x, z):
    s = torch.sigmoid(x) * torch.tanh(z) + torch.sqrt(x * x + 1.0) - torch.exp(-z) / (torch.abs(x) + 2.0)
    r = torch.rsqrt((x * x + 0.5).to(torch.float32).to(x.dtype))
    t = torch.where(x > z, torch.log(z * z + 1.0), r)
    return {"y": s * t + torch.maximum(x, z) - torch.minimum(x * 2.0, z) + torch.sin(x) * torch.erf(z)}


def t_cumsum_rows(x):
    return {"y": torch.cumsum(torch.exp(x) * 2.0, dim=1)}


def t_rcumsum_ex(x):
    s = x * x
    return {"y": s.flip(1).cumsum(1).flip(1) - s}


# kernel name -> (torch reference, wrt, {view: extents}, outputs, scalars)
CASES = {
    "softmax": (t_softmax, ("x",), {"x": "MN"}, ("y",), {}),
    "layernorm_rows": (t_layernorm_rows, ("x", "w"), {"x": "MN", "w": "N"}, ("y",), {"eps": EPS}),
    "layernorm": (t_layernorm, ("x", "w", "bb"), {"x": "MN", "w": "N", "bb": "N"}, ("y",), {"eps": EPS}),
    "rmsnorm": (t_rmsnorm, ("x", "w"), {"x": "MN", "w": "N"}, ("y",), {"eps": EPS}),
    "gemm_gelu": (t_gemm_gelu, ("a", "b", "bias"), {"a": "MK", "b": "KN", "bias": "N"}, ("c",), {}),
    "bmm_nt": (t_bmm_nt, ("a", "b"), {"a": "BMK", "b": "BNK"}, ("c",), {}),
    "rows_matmul": (t_rows_matmul, ("a", "b"), {"a": "MK", "b": "KN"}, ("c",), {}),
    "logsumexp": (t_logsumexp, ("x",), {"x": "MN"}, ("out",), {}),
    "row_max": (t_row_max, ("x",), {"x": "MN"}, ("out",), {}),
    "pointwise": (t_pointwise, ("x", "z"), {"x": "MN", "z": "MN"}, ("y",), {}),
    "cumsum_rows": (t_cumsum_rows, ("x",), {"x": "MN"}, ("y",), {}),
    "rcumsum_ex": (t_rcumsum_ex, ("x",), {"x": "MN"}, ("y",), {}),
}
SHAPES = [dict(M=1, N=1, K=1, B=1), dict(M=3, N=5, K=7, B=2), dict(M=2, N=13, K=1, B=3), dict(M=11, N=2, K=3, B=1)]


def draw(name, shape, seed, dtype=np.float64):
    rng = np.random.default_rng(seed)
    _, _, views, outs, _ = CASES[name]
    ins = {v: rng.standard_normal([shape[c] for c in axes]).astype(dtype) for v, axes in views.items()}
    return rng, ins


def reference(name, ins, cot):
    """Torch autograd's cotangents of the reference, in float64."""
    ref, wrt, views, outs, scalars = CASES[name]
    tx = {k: torch.tensor(v, dtype=torch.float64, requires_grad=k in wrt) for k, v in ins.items()}
    got = ref(**tx, **scalars)
    total = sum((got[o] * torch.tensor(cot[f"d_{o}"])).sum() for o in outs)
    grads = torch.autograd.grad(total, [tx[k] for k in wrt], allow_unused=True)
    return {k: (g.numpy() if g is not None else np.zeros_like(ins[k])) for k, g in zip(wrt, grads)}, got


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s.values())))
@pytest.mark.parametrize("name", sorted(CASES))
def test_vjp_matches_torch_autograd_in_f64_on_the_interpreter(name, shape):
    kernel = K64[name]
    _, wrt, _, outs, scalars = CASES[name]
    rng, ins = draw(name, shape, seed=sum(shape.values()))
    fwd = kernel.run_interp(shapes={}, scalars=scalars, inputs=ins)
    cot = {f"d_{o}": rng.standard_normal(fwd[o].shape) for o in outs}
    want, got = reference(name, ins, cot)
    for o in outs:  # the torch reference is the kernel's forward
        np.testing.assert_allclose(fwd[o], got[o].detach().numpy(), rtol=1e-10, atol=1e-12)
    back = kernel.vjp(wrt).run_interp(shapes={}, scalars=scalars, inputs={**ins, **cot})
    assert sorted(k for k in back if not k.endswith(".in")) == sorted(f"d_{x}" for x in wrt)
    for x in wrt:
        np.testing.assert_allclose(back[f"d_{x}"], want[x], rtol=1e-9, atol=1e-11, err_msg=f"{name}: d_{x}")


@pytest.mark.parametrize("name", ["layernorm", "rmsnorm", "softmax"])
def test_vjp_with_no_rows(name):
    """M = 0: the derived kernel writes empty cotangents (and a weight's cotangent of zeros)."""
    kernel = K64[name]
    _, wrt, _, outs, scalars = CASES[name]
    rng, ins = draw(name, dict(M=0, N=3, K=1, B=1), seed=1)
    cot = {f"d_{o}": np.zeros((0, 3)) for o in outs}
    back = kernel.vjp(wrt).run_interp(shapes={}, scalars=scalars, inputs={**ins, **cot})
    for x in wrt:
        assert back[f"d_{x}"].shape == ins[x].shape
        assert not np.any(back[f"d_{x}"])


class _Interp(torch.autograd.Function):
    """A forward kernel on the KIR interpreter whose backward is its derived kernel on the interpreter."""

    @staticmethod
    def forward(ctx, name, *args):
        _, wrt, views, outs, scalars = CASES[name]
        ins = {k: a.detach().numpy() for k, a in zip(views, args)}
        ctx.name, ctx.ins = name, ins
        got = K64[name].run_interp(shapes={}, scalars=scalars, inputs=ins)
        return tuple(torch.from_numpy(np.array(got[o])) for o in outs)

    @staticmethod
    def backward(ctx, *grads):
        _, wrt, views, outs, scalars = CASES[ctx.name]
        cot = {f"d_{o}": g.detach().numpy() for o, g in zip(outs, grads)}
        back = K64[ctx.name].vjp(wrt).run_interp(shapes={}, scalars=scalars, inputs={**ctx.ins, **cot})
        return (None, *(torch.from_numpy(np.array(back[f"d_{k}"])) if k in wrt else None for k in views))


@pytest.mark.parametrize("name", ["softmax", "layernorm", "rmsnorm", "gemm_gelu", "bmm_nt", "logsumexp", "cumsum_rows",
                                  "rcumsum_ex"])
def test_gradcheck_on_the_interpreter(name):
    """torch.autograd.gradcheck: central differences of the forward kernel (f64, interpreter) against the
    derived kernel's vector-Jacobian products (not `pointwise`: its f32 round trip defeats differences)."""
    _, wrt, views, outs, _ = CASES[name]
    _, ins = draw(name, dict(M=2, N=3, K=2, B=2), seed=5)
    args = tuple(torch.tensor(ins[k], requires_grad=k in wrt) for k in views)
    assert torch.autograd.gradcheck(lambda *a: _Interp.apply(name, *a), args, eps=1e-6, atol=1e-7, rtol=1e-5)


def test_reduce_max_ties_split_equally_as_torch_amax():
    """A row maximum's cotangent is shared equally among all members equal to it (torch.amax); two
    values' maximum splits a tie in halves (torch.maximum)."""
    x = np.array([[1.0, 3.0, 3.0, -2.0, 3.0], [0.0, 0.0, 0.0, 0.0, 0.0], [5.0, 4.0, 3.0, 2.0, 1.0]])
    cot = {"d_out": np.array([3.0, 1.0, -2.0])}
    back = K64["row_max"].vjp("x").run_interp(shapes={}, inputs={"x": x, **cot})
    want, _ = reference("row_max", {"x": x}, cot)
    np.testing.assert_array_equal(back["d_x"], want["x"])
    np.testing.assert_array_equal(back["d_x"][0], [0.0, 1.0, 1.0, 0.0, 1.0])
    xz = {"x": np.array([[1.0, 2.0, -1.0]]), "z": np.array([[1.0, -1.0, -1.0]])}
    cot = {"d_y": np.ones((1, 3))}
    back = K64["pointwise"].vjp(("x", "z")).run_interp(shapes={}, inputs={**xz, **cot})
    want, _ = reference("pointwise", xz, cot)
    for k in "xz":
        np.testing.assert_allclose(back[f"d_{k}"], want[k], rtol=1e-12, atol=1e-12)


TRITON_SHAPES = [dict(M=1, N=1, K=1, B=1), dict(M=5, N=7, K=3, B=2), dict(M=3, N=37, K=17, B=1)]


@pytest.mark.parametrize("shape", TRITON_SHAPES, ids=lambda s: "x".join(map(str, s.values())))
@pytest.mark.parametrize("name", sorted(CASES))
def test_vjp_through_triton_matches_the_interpreter(name, shape, tmp_path, monkeypatch):
    """The derived kernel is ordinary KIR: it compiles through the same passes to Triton, and the Triton
    program (TRITON_INTERPRET=1) computes what the KIR interpreter does, in f32."""
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    kernel = K32[name]
    _, wrt, views, outs, scalars = CASES[name]
    rng, ins = draw(name, shape, seed=7, dtype=np.float32)
    fwd = kernel.run_interp(shapes={}, scalars=scalars, inputs=ins)
    cot = {f"d_{o}": rng.standard_normal(fwd[o].shape).astype(np.float32) for o in outs}
    derived = kernel.vjp(wrt)
    want = derived.run_interp(shapes={}, scalars=scalars, inputs={**ins, **cot})
    given = {**ins, **cot}
    tensors = []
    for p in derived.params():
        if p.kind != "view":
            continue
        if p.spec.mode == "out":
            tensors.append(torch.full(ins[p.name[2:]].shape, float("nan"), dtype=torch.float32))
        else:
            tensors.append(torch.from_numpy(given[p.name]))
    derived(*tensors, **scalars)
    outputs = {p.name: t for p, t in zip([p for p in derived.params() if p.kind == "view"], tensors)
               if p.spec.mode == "out"}
    for x in wrt:
        np.testing.assert_allclose(outputs[f"d_{x}"].numpy(), want[f"d_{x}"], rtol=2e-4, atol=2e-5,
                                   err_msg=f"{name}: d_{x}")


def test_refused_op_is_named_at_the_authors_line():
    @tessel.kernel
    def cumulative(x: T.In[T.f32, ("M", "N")], y: T.Out[T.f32, ("M", "N")]):
        M, N = x.shape
        cols = T.domain(0, N)
        for m in T.parallel(T.domain(0, M)):
            y[m, cols] = T.cummax(x[m, cols])

    with pytest.raises(tessel.CompileError) as err:
        cumulative.vjp("x").kir()
    assert "kir-vjp: only a sum scan (cumsum) from zero of one input is differentiated" in str(err.value)
    assert err.value.line == cumulative.__wrapped__.__code__.co_firstlineno + 5


@pytest.mark.parametrize("example", ["layernorm", "rmsnorm", "softmax"])
def test_suite_examples_derive_for_every_input(example):
    """The suite's own kernels (examples/, rows in a T.parallel, weights read at kernel level), f32 on the
    interpreter, against torch autograd in f64 of the same inputs."""
    kernel = _example(example)
    views = [p for p in kernel.params() if p.kind == "view"]
    wrt = tuple(p.name for p in views if p.spec.mode == "in")
    rng = np.random.default_rng(3)
    M, N = 5, 19
    ins = {"x": rng.standard_normal((M, N)).astype(np.float32), "w": rng.standard_normal(N).astype(np.float32),
           "bb": rng.standard_normal(N).astype(np.float32)}
    ins = {k: ins[k] for k in wrt}
    scalars = {"eps": EPS} if any(p.name == "eps" for p in kernel.params()) else {}
    dy = rng.standard_normal((M, N)).astype(np.float32)
    back = kernel.vjp(wrt).run_interp(shapes={}, scalars=scalars, inputs={**ins, "d_y": dy})
    tx = {k: torch.tensor(v, dtype=torch.float64, requires_grad=True) for k, v in ins.items()}
    if example == "softmax":
        y = torch.softmax(tx["x"], dim=1)
    elif example == "layernorm":
        y = torch.nn.functional.layer_norm(tx["x"], (N,), tx["w"], tx["bb"], eps=EPS)
    else:
        y = t_rmsnorm(tx["x"], tx["w"], EPS)["y"]
    y.backward(torch.tensor(dy, dtype=torch.float64))
    for k in wrt:
        np.testing.assert_allclose(back[f"d_{k}"], tx[k].grad.numpy(), rtol=2e-4, atol=2e-5, err_msg=f"d_{k}")


def _example(name):
    import importlib.util
    spec = importlib.util.spec_from_file_location(f"vjp_{name}", os.path.join(
        os.path.dirname(__file__), "..", "..", "examples", f"{name}.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return getattr(mod, name)


@pytest.mark.parametrize("has_bias", [False, True])
@pytest.mark.parametrize("activation", ["none", "relu", "sigmoid"])
def test_suite_gemm_derives_with_and_without_bias(has_bias, activation):
    """examples/gemm.py (f16 operands, f32 accumulator and C) wrt a, b, bias: the two contractions' products
    in f16 as the forward's; bias unread under HAS_BIAS=False gets zeros."""
    gemm = _example("gemm")
    rng = np.random.default_rng(11)
    M, K, N = 7, 13, 5
    ins = {"a": rng.standard_normal((M, K)).astype(np.float16), "b": rng.standard_normal((K, N)).astype(np.float16),
           "bias": rng.standard_normal(N).astype(np.float32)}
    dc = rng.standard_normal((M, N)).astype(np.float32)
    cx = {"HAS_BIAS": has_bias, "ACTIVATION": activation}
    back = gemm.vjp(("a", "b", "bias")).run_interp(shapes={}, constexprs=cx, inputs={**ins, "d_c": dc})
    t = {k: torch.tensor(v.astype(np.float64), requires_grad=True) for k, v in ins.items()}
    acc = t["a"] @ t["b"] + (t["bias"] if has_bias else 0.0)
    out = {"none": acc, "relu": torch.relu(acc), "sigmoid": torch.sigmoid(acc)}[activation]
    out.backward(torch.tensor(dc, dtype=torch.float64))
    for k in ("a", "b", "bias"):
        want = t[k].grad.numpy() if t[k].grad is not None else np.zeros(ins[k].shape)
        got = back[f"d_{k}"].astype(np.float64)
        assert got.shape == want.shape
        assert np.abs(got - want).max() <= 1e-2 * (np.abs(want).max() + 1), f"d_{k}"
    if not has_bias:
        assert not np.any(back["d_bias"])


def test_derived_text_is_deterministic_and_the_kernel_is_kept(tmp_path):
    """`tessel vjp` prints the same bytes twice (generated sources stay deterministic), and one wrt gives
    one derived kernel object (one torch operator)."""
    import subprocess
    from tessel import _cli
    kernel = K64["layernorm_rows"]
    assert kernel.vjp(("x", "w")) is kernel.vjp(["x", "w"])
    path = tmp_path / "f.mlir"
    path.write_text(kernel.kir())
    runs = [subprocess.run([_cli.find_tessel(), "vjp", f"{path}:{kernel.name}", "--wrt=x,w"], capture_output=True,
                           text=True, check=True).stdout for _ in range(2)]
    assert runs[0] == runs[1] and "kir.buffer_store" in runs[0]


def test_wrt_must_name_an_input_view():
    with pytest.raises(ValueError, match="no view argument named 'q'"):
        K64["softmax"].vjp("q")
    with pytest.raises(ValueError, match="only T.In views"):
        K64["softmax"].vjp("y")


def test_bench_vjp_check_cpu_smoke():
    """bench/vjp_check.py (the GPU check of derived kernels against torch autograd) on the CPU."""
    import subprocess
    import sys
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    res = subprocess.run([sys.executable, os.path.join(root, "bench", "vjp_check.py"), "--cpu-smoke",
                          "--only", "softmax,gemm,matmul"], capture_output=True, text=True, timeout=600,
                         env={**os.environ, "PYTHONPATH": os.path.join(root, "python")})
    assert res.returncode == 0, res.stdout + res.stderr
    assert "softmax      correct at 2 shapes" in res.stdout and "gemm         correct at 2 shapes" in res.stdout
    assert "gemm         tessel.autograd correct" in res.stdout
    assert "matmul       skipped" in res.stdout


# The weight cotangents of kernels written one T.parallel member per row (docs/language.md, "Derived
# backward kernels"): each member's contribution is recomputed over the rows at kernel level (its row
# statistics kept per member) and summed there, a column sum the passes spread over the members.
LIFTED = {
    "layernorm_rows": lambda: (K32["layernorm_rows"], ("x", "w"), {"eps": EPS}),
    "examples/layernorm": lambda: (_example("layernorm"), ("x", "w", "bb"), {"eps": EPS}),
    "examples/rmsnorm": lambda: (_example("rmsnorm"), ("x", "w"), {"eps": EPS}),
}


@pytest.mark.parametrize("name", sorted(LIFTED))
def test_weight_cotangents_are_column_sums_spread_over_the_rows(name):
    """No buffer of every member's contribution (a [M, N] buffer the last program walked column by
    column); the generated Triton adds each member's terms with atomics into a kept workspace."""
    kernel, wrt, _ = LIFTED[name]()
    derived = kernel.vjp(wrt)
    kir = derived.kir()
    assert "kir.buffer<tensor<?x?x" not in kir
    assert "kir.buffer<tensor<?xf32>>" in kir  # the kept row statistics
    src = derived.source()
    kernel_src = src[src.index(f"def _{derived.name}_kernel("):]
    weights = [x for x in wrt if x != "x"]
    # One atomic add per weight at each blocking of the columns (a row in one block, or a loop over
    # blocks: its full blocks and its tail), besides the arrival ticket.
    assert kernel_src.count("tl.atomic_add(") >= 1 + 3 * len(weights), kernel_src


@pytest.mark.parametrize("shape", [dict(M=0, N=5), dict(M=1, N=1), dict(M=13, N=600), dict(M=7, N=513),
                                   dict(M=4, N=3)], ids=lambda s: f"{s['M']}x{s['N']}")
@pytest.mark.parametrize("name", sorted(LIFTED))
def test_lifted_weight_cotangents_through_triton_match_the_interpreter(name, shape, tmp_path, monkeypatch):
    """Differential: the derived kernel through Triton (TRITON_INTERPRET=1) against the KIR interpreter,
    f32 random inputs, at no rows, one element, and column counts past one block of 512 (the member's
    column loop and its tail)."""
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    kernel, wrt, scalars = LIFTED[name]()
    derived = kernel.vjp(wrt)
    rng = np.random.default_rng(shape["M"] * 1000 + shape["N"])
    M, N = shape["M"], shape["N"]
    given = {"x": rng.standard_normal((M, N)).astype(np.float32), "w": rng.standard_normal(N).astype(np.float32),
             "bb": rng.standard_normal(N).astype(np.float32), "d_y": rng.standard_normal((M, N)).astype(np.float32)}
    views = [p for p in derived.params() if p.kind == "view"]
    want = derived.run_interp(shapes={}, scalars=scalars, inputs={p.name: given[p.name] for p in views
                                                                  if p.spec.mode == "in"})
    tensors = [torch.full(given[p.name[2:]].shape, float("nan"), dtype=torch.float32) if p.spec.mode == "out"
               else torch.from_numpy(given[p.name]) for p in views]
    derived(*tensors, **scalars)
    for p, t in zip(views, tensors):
        if p.spec.mode == "out":
            np.testing.assert_allclose(t.numpy(), want[p.name], rtol=2e-4, atol=2e-4, err_msg=f"{name}: {p.name}")


@pytest.mark.parametrize("activation", ["none", "relu", "sigmoid"])
def test_suite_gemm_bias_cotangent_is_tiled(activation):
    """examples/gemm.py with a bias: d_bias is the column sum of dc * act'(a @ b + bias). With an activation
    its terms need the forward's product, recomputed in tiles inside the column sum (pgpu-form-tiles'
    nests), not a K-long dot product per element (session 36: 91 ms on the H100 at 2048^3); every
    segment of the derived kernel is tiled."""
    derived = _example("gemm").vjp(("a", "b", "bias"))
    text = derived.pgpu({"HAS_BIAS": True, "ACTIVATION": activation})
    assert "pgpu.range_reduce" not in text and "pgpu.foreach" not in text, text
    assert text.count("pgpu.contract") >= (2 if activation == "none" else 5), text


@pytest.mark.parametrize("shape", [dict(M=1, N=1, K=1), dict(M=7, N=13, K=5), dict(M=37, N=131, K=67),
                                   dict(M=0, N=5, K=3)], ids=lambda s: "x".join(map(str, s.values())))
@pytest.mark.parametrize("activation", ["relu", "sigmoid"])
def test_suite_gemm_bias_backward_through_triton_matches_torch(activation, shape, tmp_path, monkeypatch):
    """The derived kernel of examples/gemm.py with a bias and an activation through Triton (TRITON_INTERPRET=1),
    at odd shapes, against torch autograd in float64 of the same f16 operands."""
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    gemm = _example("gemm")
    cx = {"HAS_BIAS": True, "ACTIVATION": activation}
    derived = gemm.vjp(("a", "b", "bias"))
    rng = np.random.default_rng(shape["M"] * 10000 + shape["N"] * 100 + shape["K"])
    M, N, K = shape["M"], shape["N"], shape["K"]
    ins = {"a": rng.standard_normal((M, K)).astype(np.float16), "b": rng.standard_normal((K, N)).astype(np.float16),
           "bias": rng.standard_normal(N).astype(np.float32), "d_c": rng.standard_normal((M, N)).astype(np.float32)}
    outs = {k: torch.full(ins[k].shape, float("nan"), dtype=torch.float16 if k != "bias" else torch.float32)
            for k in ("a", "b", "bias")}
    derived(*(torch.from_numpy(ins[k]) for k in ("a", "b", "bias", "d_c")), *outs.values(), **cx)
    t = {k: torch.tensor(ins[k].astype(np.float64), requires_grad=True) for k in ("a", "b", "bias")}
    acc = t["a"] @ t["b"] + t["bias"]
    (torch.relu(acc) if activation == "relu" else torch.sigmoid(acc)).backward(torch.tensor(ins["d_c"], dtype=torch.float64))
    for k in ("a", "b", "bias"):
        want, got = t[k].grad.numpy(), outs[k].double().numpy()
        assert got.shape == want.shape
        if want.size:
            assert np.abs(got - want).max() <= 1e-2 * (np.abs(want).max() + 1), f"d_{k}"


def test_suite_attention_is_refused_at_its_fold_naming_what_is_missing():
    """examples/attention.py (a region fold with the online-softmax summary): kir-vjp refuses at the fold,
    at the author's line, naming the saved summary, the slices' cotangents and the second fold it lacks."""
    attention = _example("attention")
    with pytest.raises(tessel.CompileError) as err:
        attention.vjp(("Q", "K", "V")).kir()
    text = str(err.value)
    assert "kir-vjp: cannot differentiate 'kir.region_fold' yet" in text
    assert "the fold's final summary saved by the forward" in text and "logsumexp" in text
    assert "a second fold over the members for the sources' cotangents (attention's dK and dV)" in text
    assert "whole-axis reductions over the fold's axis (T.max, T.sum, T.contract, no T.region_fold) derives" in text
    src = open(os.path.join(os.path.dirname(__file__), "..", "..", "examples", "attention.py")).read().split("\n")
    assert "T.region_fold(" in src[err.value.line - 1]


@tessel.kernel
def attention_whole_axis(Q: T.In[T.f64, ("B", "H", "S", "D")], K: T.In[T.f64, ("B", "H", "T", "D")],
                         V: T.In[T.f64, ("B", "H", "T", "D")], O: T.Out[T.f64, ("B", "H", "S", "D")], scale: T.f32):
    # The same attention as examples/attention.py (full, no mask) with whole-axis reductions over the keys.
    nb, nh, ns, nd = Q.shape
    bs, hs, ss, ds = T.domain(0, nb), T.domain(0, nh), T.domain(0, ns), T.domain(0, nd)
    ts = T.domain(0, K.shape[2])
    q, k, v = Q[bs, hs, ss, ds], K[bs, hs, ts, ds], V[bs, hs, ts, ds]
    scores = T.contract(q, k, reduce=((3, 3),), batch=((0, 0), (1, 1)), acc_dtype=T.f64) * T.cast(scale, T.f64)
    p = T.exp(scores - T.max(scores, axis=3))
    o = T.contract(p, v, reduce=((3, 2),), batch=((0, 0), (1, 1)), acc_dtype=T.f64)
    O[bs, hs, ss, ds] = o / T.sum(p, axis=3)


@pytest.mark.parametrize("shape", [(1, 1, 1, 1, 1), (2, 3, 5, 7, 4), (1, 2, 13, 3, 5)], ids=str)
def test_attention_with_whole_axis_reductions_derives(shape):
    """What the region fold's refusal points to: dQ, dK, dV of the whole-axis form against torch autograd
    in f64 on the interpreter (the scores recomputed: correct, compiled element by element)."""
    B, H, S, Tn, D = shape
    rng = np.random.default_rng(sum(shape))
    ins = {"Q": rng.standard_normal((B, H, S, D)), "K": rng.standard_normal((B, H, Tn, D)),
           "V": rng.standard_normal((B, H, Tn, D))}
    dO = rng.standard_normal((B, H, S, D))
    back = attention_whole_axis.vjp(("Q", "K", "V")).run_interp(shapes={}, scalars={"scale": 0.5},
                                                                 inputs={**ins, "d_O": dO})
    t = {k: torch.tensor(v, requires_grad=True) for k, v in ins.items()}
    (torch.softmax(t["Q"] @ t["K"].transpose(-1, -2) * 0.5, dim=-1) @ t["V"]).backward(torch.tensor(dO))
    for k in "QKV":
        np.testing.assert_allclose(back[f"d_{k}"], t[k].grad.numpy(), rtol=1e-9, atol=1e-11, err_msg=f"d_{k}")
