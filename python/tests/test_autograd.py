"""`tessel.autograd(kernel, wrt=...)` (issue 45; docs/language.md, "tessel.autograd"): a kernel as a torch
function whose backward is its derived kernel, both torch custom operators with a registered autograd
formula. On the CPU the kernels run through Triton's interpreter (TRITON_INTERPRET=1), in float64 for
`torch.autograd.gradcheck` (central differences of the forward kernel against the derived kernel's
vector-Jacobian products), in eager mode and inside `torch.compile(fullgraph=True)`."""
import os

import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module
torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402

EPS = 2.0 ** -16


def make(dt):
    @tessel.kernel
    def softmax(x: T.In[dt, ("M", "N")], y: T.Out[dt, ("M", "N")]):
        M, N = x.shape
        cols = T.domain(0, N)
        for m in T.parallel(T.domain(0, M)):
            row = x[m, cols]
            e = T.exp(row - T.max(row))
            y[m, cols] = e / T.sum(e)

    @tessel.kernel
    def rmsnorm(x: T.In[dt, ("M", "N")], w: T.In[dt, ("N",)], y: T.Out[dt, ("M", "N")], eps: T.f32):
        M, N = x.shape
        cols = T.domain(0, N)
        weight = w[cols]
        for m in T.parallel(T.domain(0, M)):
            row = x[m, cols]
            y[m, cols] = row * T.rsqrt(T.sum(row * row) / T.cast(N, dt) + T.cast(eps, dt)) * weight

    @tessel.kernel
    def layernorm(x: T.In[dt, ("M", "N")], w: T.In[dt, ("N",)], bb: T.In[dt, ("N",)], y: T.Out[dt, ("M", "N")],
                  eps: T.f32):
        M, N = x.shape
        cols = T.domain(0, N)
        n = T.cast(N, dt)
        weight, bias = w[cols], bb[cols]
        for m in T.parallel(T.domain(0, M)):
            row = x[m, cols]
            c = row - T.sum(row) / n
            y[m, cols] = c * T.rsqrt(T.sum(c * c) / n + T.cast(eps, dt)) * weight + bias

    @tessel.kernel
    def gemm(a: T.In[dt, ("M", "K")], b: T.In[dt, ("K", "N")], bias: T.In[dt, ("N",)], c: T.Out[dt, ("M", "N")]):
        M, K = a.shape
        N = b.shape[1]
        rows, cols, ks = T.domain(0, M), T.domain(0, N), T.domain(0, K)
        c[rows, cols] = T.matmul(a[rows, ks], b[ks, cols], acc_dtype=dt, init=bias[cols])

    @tessel.kernel
    def stats(x: T.In[dt, ("M", "N")], idx: T.In[T.i32, ("M",)], mean: T.Out[dt, ("M",)],
              top: T.Out[dt, ("M",)]):
        # Two outputs, and an integer input (never differentiated).
        M, N = x.shape
        cols = T.domain(0, N)
        for m in T.parallel(T.domain(0, M)):
            row = x[m, cols] * T.cast(idx[m], dt)
            mean[m] = T.sum(row) / T.cast(N, dt)
            top[m] = T.max(row)

    return {k.name: k for k in (softmax, rmsnorm, layernorm, gemm, stats)}


K64 = make(T.f64)
K32 = make(T.f32)

# name -> (inputs as shapes from (M, N, K), scalars, torch reference)
F = torch.nn.functional
CASES = {
    "softmax": ((("M", "N"),), {}, lambda x: torch.softmax(x, dim=1)),
    "rmsnorm": ((("M", "N"), ("N",)), {"eps": EPS},
                lambda x, w, eps: x * torch.rsqrt((x * x).mean(dim=1, keepdim=True) + eps) * w),
    "layernorm": ((("M", "N"), ("N",), ("N",)), {"eps": EPS},
                  lambda x, w, bb, eps: F.layer_norm(x, (x.shape[1],), w, bb, eps=eps)),
    "gemm": ((("M", "K"), ("K", "N"), ("N",)), {}, lambda a, b, bias: a @ b + bias),
}


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path_factory.getbasetemp() / "tessel-cache"))
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    torch._dynamo.reset()


def inputs(name, dims, dtype, seed=0, grad=True):
    gen = torch.Generator().manual_seed(seed)
    shapes, _, _ = CASES[name]
    return tuple(torch.randn([dims[a] for a in s], generator=gen, dtype=dtype).requires_grad_(grad) for s in shapes)


FUNCS = {}


def function(name, dt=64, interpreter=False):
    """One autograd function per kernel and launch path (each registers two torch operators)."""
    key = (name, dt, interpreter)
    if key not in FUNCS:
        FUNCS[key] = tessel.autograd((K64 if dt == 64 else K32)[name], interpreter=interpreter)
    return FUNCS[key]


# Triton spells no f64 product (tl.dot): the f64 GEMM runs on the KIR interpreter.
TRITON = sorted(set(CASES) - {"gemm"})


@pytest.mark.parametrize("name", TRITON)
def test_gradcheck_in_float64_through_triton_on_the_cpu(name):
    _, scalars, _ = CASES[name]
    f = function(name)
    args = inputs(name, dict(M=2, N=3, K=2), torch.float64, seed=1)
    assert torch.autograd.gradcheck(lambda *a: f(*a, **scalars), args, eps=1e-6, atol=1e-7, rtol=1e-5)


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck_in_float64_on_the_kir_interpreter(name):
    _, scalars, _ = CASES[name]
    f = function(name, interpreter=True)
    args = inputs(name, dict(M=2, N=3, K=2), torch.float64, seed=1)
    assert torch.autograd.gradcheck(lambda *a: f(*a, **scalars), args, eps=1e-6, atol=1e-7, rtol=1e-5)


def test_a_gemm_through_triton_in_float32():
    """The GEMM's two contractions through Triton (f32) against torch autograd."""
    f = function("gemm", 32)
    args = inputs("gemm", dict(M=7, N=13, K=5), torch.float32, seed=8)
    twins = tuple(a.detach().clone().requires_grad_(True) for a in args)
    y = f(*args)
    want = twins[0] @ twins[1] + twins[2]
    torch.testing.assert_close(y, want, rtol=1e-4, atol=1e-4)
    y.backward(torch.ones_like(y))
    want.backward(torch.ones_like(want))
    for a, t in zip(args, twins):
        torch.testing.assert_close(a.grad, t.grad, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dims", [dict(M=1, N=1, K=1), dict(M=7, N=13, K=5), dict(M=3, N=37, K=2)],
                         ids=lambda d: "x".join(map(str, d.values())))
@pytest.mark.parametrize("name", TRITON)
def test_eager_forward_and_backward_match_torch_autograd(name, dims):
    """Odd shapes (one element, primes): the function's outputs and the gradients its backward gives
    against torch's own forward and autograd, float64. (Columns past one block: test_vjp's lifted
    differential tests, f32; an f64 weight sum is walked by the last program, the atomic spread being
    f32/i32/i64 only, which the Triton interpreter runs slowly.)"""
    _, scalars, ref = CASES[name]
    f = function(name)
    args = inputs(name, dims, torch.float64, seed=2)
    twins = tuple(a.detach().clone().requires_grad_(True) for a in args)
    y, want = f(*args, **scalars), ref(*twins, **scalars)
    torch.testing.assert_close(y, want, rtol=1e-10, atol=1e-12)
    dy = torch.randn(y.shape, generator=torch.Generator().manual_seed(3), dtype=torch.float64)
    y.backward(dy)
    want.backward(dy)
    for a, t in zip(args, twins):
        torch.testing.assert_close(a.grad, t.grad, rtol=1e-9, atol=1e-10)


def test_no_rows():
    """M = 0: empty outputs, empty input gradients and zero weight gradients."""
    f = function("layernorm")
    x, w, bb = inputs("layernorm", dict(M=0, N=4), torch.float64)
    y = f(x, w, bb, eps=EPS)
    assert y.shape == (0, 4)
    y.sum().backward()
    assert x.grad.shape == (0, 4) and not w.grad.any() and not bb.grad.any()


def test_several_outputs_and_an_integer_input():
    """A tuple of outputs; the integer input gets no gradient, the float one the sum of both outputs'."""
    f = tessel.autograd(K64["stats"])
    gen = torch.Generator().manual_seed(4)
    x = torch.randn(4, 6, generator=gen, dtype=torch.float64, requires_grad=True)
    idx = torch.tensor([1, -2, 3, 0], dtype=torch.int32)
    mean, top = f(x, idx)
    xt = x.detach().clone().requires_grad_(True)
    row = xt * idx[:, None].double()
    torch.testing.assert_close(mean, row.mean(dim=1))
    torch.testing.assert_close(top, row.amax(dim=1))
    (mean * 2.0 + top).sum().backward()
    (row.mean(dim=1) * 2.0 + row.amax(dim=1)).sum().backward()
    torch.testing.assert_close(x.grad, xt.grad)
    assert torch.autograd.gradcheck(lambda a: f(a, idx), (x.detach().requires_grad_(True),), eps=1e-6, atol=1e-7)


def test_compiled_fullgraph_keeps_both_operators_and_matches_eager():
    """torch.compile(fullgraph=True): the forward graph calls the forward operator, the backward graph
    the derived kernel's operator (AOT autograd, the backend's compilers run the graphs as given)."""
    from functorch.compile import make_boxed_func
    from torch._dynamo.backends.common import aot_autograd

    graphs = {"fw": [], "bw": []}

    def keep(kind):
        def compiler(gm, example_inputs):
            graphs[kind].append(gm)
            return make_boxed_func(gm.forward)
        return compiler

    f = function("rmsnorm", 32)
    x, w = inputs("rmsnorm", dict(M=5, N=37), torch.float32, seed=6)

    def model(x, w):
        return (torch.tanh(f(x, w, eps=1e-5)) * 2.0).sum()

    compiled = torch.compile(model, backend=aot_autograd(fw_compiler=keep("fw"), bw_compiler=keep("bw")),
                             fullgraph=True)
    loss = compiled(x, w)
    loss.backward()
    targets = {k: [str(n.target) for g in gs for n in g.graph.nodes if n.op == "call_function"]
               for k, gs in graphs.items()}
    fwd, bwd = (name.replace("::", ".") + ".default" for name in f.op_names)
    assert fwd in targets["fw"] and bwd not in targets["fw"], targets
    assert bwd in targets["bw"], targets
    xt, wt = (a.detach().clone().requires_grad_(True) for a in (x, w))
    want = model(xt, wt)
    want.backward()
    torch.testing.assert_close(loss, want)
    torch.testing.assert_close(x.grad, xt.grad)
    torch.testing.assert_close(w.grad, wt.grad)


def test_compiled_with_inductor():
    """The default backend (Inductor generates the graph's own code around the two operators)."""
    f = function("softmax", 32)
    (x,) = inputs("softmax", dict(M=3, N=17), torch.float32, seed=7)
    compiled = torch.compile(lambda x: (f(x) * torch.arange(17.0)).sum(), fullgraph=True)
    compiled(x).backward()
    xt = x.detach().clone().requires_grad_(True)
    (torch.softmax(xt, dim=1) * torch.arange(17.0)).sum().backward()
    torch.testing.assert_close(x.grad, xt.grad)


def test_a_kernel_without_a_derivative_is_refused_at_tessel_autograd():
    @tessel.kernel
    def cumulative(x: T.In[T.f32, ("M", "N")], y: T.Out[T.f32, ("M", "N")]):
        M, N = x.shape
        cols = T.domain(0, N)
        for m in T.parallel(T.domain(0, M)):
            y[m, cols] = T.cummax(x[m, cols])

    with pytest.raises(tessel.CompileError) as err:
        tessel.autograd(cumulative)
    assert "kir-vjp: " in str(err.value) and "'kir.scan'" in str(err.value)
    assert err.value.line == cumulative.__wrapped__.__code__.co_firstlineno + 5


def test_outputs_that_cannot_be_allocated_and_inout_views_are_refused():
    @tessel.kernel
    def spread(x: T.In[T.f32, ("N",)], y: T.Out[T.f32, ("P", "N")]):
        cols = T.domain(0, x.shape[0])
        y[T.domain(0, y.shape[0]), cols] = x[cols]

    with pytest.raises(ValueError, match="output 'y' has extent 'P', which no input view names"):
        tessel.autograd(spread)

    @tessel.kernel
    def scale(x: T.InOut[T.f32, ("N",)]):
        cols = T.domain(0, x.shape[0])
        x[cols] = x[cols] * 2.0

    with pytest.raises(ValueError, match="'x' is a T.InOut view"):
        tessel.autograd(scale)
    with pytest.raises(ValueError, match="no view argument named 'q'"):
        tessel.autograd(K64["softmax"], wrt=("q",))
