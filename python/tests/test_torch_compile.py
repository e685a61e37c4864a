"""`@tessel.kernel` kernels inside `torch.compile` (issue 18): each kernel is a torch custom operator
(`torch.ops.tessel.<name>`, its written views declared mutated, a fake implementation that checks the
declared views), so a model calling two tessel kernels compiles with `fullgraph=True` (no graph
break) and computes what the eager model does. On the CPU the kernels run under Triton's interpreter.
"""
import enum
import os
import sys
from pathlib import Path

import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module
torch = pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples"))

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402
import cumsum  # noqa: E402  (imported after torch: registered when created)
import rmsnorm  # noqa: E402


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path_factory.getbasetemp() / "tessel-cache"))
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    torch._dynamo.reset()


def model(x, w):
    y = torch.empty_like(x)
    rmsnorm.rmsnorm(x, w, y, eps=1e-5)
    h = torch.tanh(y) * 2.0
    z = torch.empty_like(h)
    cumsum.cumsum(h, z, REVERSE=True)
    return z[:, 0] + z.sum(dim=1)


def reference(x, w):
    y = x * torch.rsqrt((x * x).mean(dim=1, keepdim=True) + 1e-5) * w
    z = (torch.tanh(y) * 2.0).flip(1).cumsum(1).flip(1)
    return z[:, 0] + z.sum(dim=1)


def _op(kernel):
    """The kernel's operator overload, as graphs name it (`torch.ops.tessel.<name>.default`; the name
    has a suffix when another kernel object of the session took it first)."""
    kernel.torch_op()
    return getattr(torch.ops.tessel, kernel._op_name).default


def _inputs(m=5, n=37):
    gen = torch.Generator().manual_seed(0)
    return torch.randn(m, n, generator=gen), torch.rand(n, generator=gen) + 0.5


def test_a_compiled_model_keeps_both_kernels_as_operators_in_one_graph():
    graphs = []

    def backend(gm, example_inputs):  # the graph Dynamo hands a backend, run as it is
        graphs.append(gm)
        return gm.forward

    x, w = _inputs()
    got = torch.compile(model, backend=backend, fullgraph=True)(x, w)
    assert len(graphs) == 1
    targets = [n.target for n in graphs[0].graph.nodes if n.op == "call_function"]
    assert _op(rmsnorm.rmsnorm) in targets and _op(cumsum.cumsum) in targets
    call = next(n for n in graphs[0].graph.nodes if n.target is _op(cumsum.cumsum))
    assert call.kwargs.get("REVERSE") is True
    torch.testing.assert_close(got, model(x, w))
    torch.testing.assert_close(got, reference(x, w), rtol=1e-4, atol=1e-4)


def test_a_model_called_eagerly_first_still_compiles_to_one_graph():
    # Eager calls make each kernel object's call the generated planned call (its class's __call__);
    # Dynamo traces that one too, into the operator, without a graph break.
    x, w = _inputs()
    want = model(x, w)
    model(x, w)
    assert type(rmsnorm.rmsnorm).__call__ is rmsnorm.rmsnorm._front is not None
    graphs = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    torch.testing.assert_close(torch.compile(model, backend=backend, fullgraph=True)(x, w), want)
    assert len(graphs) == 1
    targets = [n.target for n in graphs[0].graph.nodes if n.op == "call_function"]
    assert _op(rmsnorm.rmsnorm) in targets and _op(cumsum.cumsum) in targets


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_a_compiled_model_matches_eager(backend):
    # aot_eager functionalizes the writes to the Out views (auto_functionalized); Inductor also
    # generates the CPU code around the two operators.
    x, w = _inputs()
    compiled = torch.compile(model, backend=backend, fullgraph=True)
    torch.testing.assert_close(compiled(x, w), model(x, w))
    x2, w2 = _inputs(3, 37)  # another batch: a recompile or a dynamic shape, never a graph break
    torch.testing.assert_close(compiled(x2, w2), reference(x2, w2), rtol=1e-4, atol=1e-4)


def test_the_fake_implementation_checks_the_declared_views_while_tracing():
    def bad(x, w):
        y = torch.empty_like(x)
        rmsnorm.rmsnorm(x, w, y, eps=1e-5)
        return y
    x, w = _inputs()
    with pytest.raises(Exception, match="argument 'w' axis 0 is extent 'N' = 37 elsewhere, got 36"):
        torch.compile(bad, backend="aot_eager", fullgraph=True)(x, w[:36])
    with pytest.raises(Exception, match="argument 'w' must have dtype torch.float32"):
        torch.compile(bad, backend="aot_eager", fullgraph=True)(x, w.double())


def test_the_operator_runs_eagerly_like_the_kernel():
    x, w = _inputs()
    y1, y2 = torch.empty_like(x), torch.empty_like(x)
    rmsnorm.rmsnorm(x, w, y1, eps=1e-5)
    _op(rmsnorm.rmsnorm)(x, w, y2, eps=1e-5)
    torch.testing.assert_close(y1, y2)
    assert rmsnorm.rmsnorm.torch_op() is rmsnorm.rmsnorm._op
    schema = str(_op(rmsnorm.rmsnorm)._schema)
    assert schema == f"tessel::{rmsnorm.rmsnorm._op_name}(Tensor x, Tensor w, Tensor(a2!) y, *, float eps) -> ()", schema


_LATE = """
import sys, rmsnorm            # the kernel is made before torch is imported
import torch
def f(x, w):
    y = torch.empty_like(x)
    rmsnorm.rmsnorm(x, w, y, eps=1e-5)
    return y
x, w = torch.randn(4, 8), torch.rand(8)
try:
    torch.compile(f, backend="aot_eager", fullgraph=True)(x, w)
except Exception as e:
    print("first:", "call rmsnorm.torch_op() once before compiling" in str(e))
rmsnorm.rmsnorm.torch_op()
torch._dynamo.reset()
print("then:", torch.allclose(torch.compile(f, backend="aot_eager", fullgraph=True)(x, w), f(x, w)))
"""


def test_a_kernel_made_before_torch_was_imported(tmp_path):
    import subprocess
    env = dict(os.environ, TRITON_INTERPRET="1", TESSEL_CACHE=str(tmp_path),
               PYTHONPATH=os.pathsep.join(str(ROOT / d) for d in ("python", "examples")))
    r = subprocess.run([sys.executable, "-c", _LATE], capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.split() == ["first:", "True", "then:", "True"], r.stdout + r.stderr[-2000:]


_CUDA = """
import torch, rmsnorm, softmax
def model(x, w):
    y = torch.empty_like(x)
    rmsnorm.rmsnorm(x, w, y, eps=1e-5)
    z = torch.empty_like(y)
    softmax.softmax(torch.tanh(y) * 2.0, z)
    return z * 3.0
x, w = torch.randn(64, 1000, device="cuda"), torch.rand(1000, device="cuda") + 0.5
want = model(x, w)
for mode in ("default", "reduce-overhead"):   # reduce-overhead records CUDA graphs, then replays them
    torch._dynamo.reset()
    compiled = torch.compile(model, fullgraph=True, mode=mode)
    for _ in range(4):
        got = compiled(x, w).clone()
    torch.cuda.synchronize()
    print(mode, torch.allclose(got, want, rtol=1e-5, atol=1e-6))
"""


def test_on_the_gpu_compiled_and_in_cuda_graphs(tmp_path):
    # Triton compiled for the GPU (not the interpreter): Inductor's generated code calls both
    # operators, and with mode="reduce-overhead" their launches are captured in CUDA graphs.
    import subprocess
    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA device")
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env.update(TESSEL_CACHE=str(tmp_path), PYTHONPATH=os.pathsep.join(str(ROOT / d) for d in ("python", "examples")))
    r = subprocess.run([sys.executable, "-c", _CUDA], capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.split() == ["default", "True", "reduce-overhead", "True"], r.stdout + r.stderr[-2000:]


class Mode(enum.Enum):
    PLAIN = 0
    DOUBLED = 1


def test_schema_of_constexprs_and_a_second_kernel_of_the_same_name():
    @tessel.kernel
    def scaled(x: T.In[T.f32, ("N",)], y: T.InOut[T.f32, ("N",)], k: T.i32,
               MODE: T.Constexpr[Mode] = Mode.PLAIN, BLOCK: T.Constexpr[int] = 64, TAG: T.Constexpr[str] = "a"):
        for i in T.parallel(T.domain(0, x.shape[0])):
            y[i] = y[i] + x[i] * (2.0 if MODE is Mode.DOUBLED else 1.0)

    again = tessel.kernel(scaled.fn)
    first, second = scaled.torch_op(), again.torch_op()
    assert first is not second
    schemas = [str(_op(k)._schema) for k in (scaled, again)]
    assert schemas[0] == (f"tessel::{scaled._op_name}(Tensor x, Tensor(a1!) y, *, SymInt k, str MODE=\"PLAIN\", "
                          "SymInt BLOCK=64, str TAG=\"a\") -> ()"), schemas[0]
    assert again._op_name != scaled._op_name and again._op_name.startswith("scaled_")

    def f(x, y):
        scaled(x, y, k=1, MODE=Mode.DOUBLED)
        return y
    x, y = torch.ones(7), torch.zeros(7)
    got = torch.compile(f, backend="aot_eager", fullgraph=True)(x, y.clone())
    torch.testing.assert_close(got, torch.full((7,), 2.0))
