"""Derived backward kernels (`kernel.vjp`, issue 45) on a GPU: correctness against torch autograd first,
then the time of the derived kernel against torch eager's backward of the same forward. One process.

    python3 bench/vjp_check.py [--only NAME,NAME] [--cpu-smoke]

Per example (examples/NAME.py, every float input differentiated): (1) at odd shapes (1, primes, no rows,
an empty contraction; python/tests/test_vjp_check.py runs the same checks on the CPU) the
derived kernel's cotangents against torch autograd in float64 of the same inputs (f16 operands within
1e-2 of the largest cotangent, f32 within 1e-3); (2) at the bench shape, medians of CUDA-event timings
(triton.testing.do_bench) of the derived kernel and of torch's backward (autograd.grad of the eager
forward, graph built outside the timing). Ratios are torch time / tessel time. A kernel's failure is
printed and the run goes on; the exit status is 1 when any check failed.

Then (3) the same kernel through `tessel.autograd` (forward and derived backward as torch operators):
its gradients at one odd shape against torch autograd, and at the bench shape the time of forward plus
backward (`f(*inputs).backward(dy)`) against torch eager's forward plus backward.

--cpu-smoke runs the checks on the CPU under TRITON_INTERPRET=1 at small shapes, without timings (and
without the bf16 kernel: the interpreter's bf16 products are wrong, the forward's too).
"""
import argparse
import os
import pathlib
import sys
import traceback

ROOT = pathlib.Path(__file__).resolve().parent.parent


def forwards(torch):
    """name -> (torch forward over float64-able tensors, {view: (axes, dtype)}, constexprs, scalars)."""
    F = torch.nn.functional
    eps = 2.0 ** -16
    return {
        "softmax": (lambda x: torch.softmax(x, dim=1), {"x": ("MN", "f32")}, {}, {}),
        "layernorm": (lambda x, w, bb: F.layer_norm(x, (x.shape[1],), w, bb, eps=eps),
                      {"x": ("MN", "f32"), "w": ("N", "f32"), "bb": ("N", "f32")}, {}, {"eps": eps}),
        "rmsnorm": (lambda x, w: x * torch.rsqrt((x * x).mean(dim=1, keepdim=True) + eps) * w,
                    {"x": ("MN", "f32"), "w": ("N", "f32")}, {}, {"eps": eps}),
        "gemm": (lambda a, b, bias: torch.sigmoid(a @ b + bias),
                 {"a": ("MK", "f16"), "b": ("KN", "f16"), "bias": ("N", "f32")},
                 {"HAS_BIAS": True, "ACTIVATION": "sigmoid"}, {}),
        "matmul": (lambda a, b: a @ b, {"a": ("MK", "bf16"), "b": ("KN", "bf16")}, {}, {}),
        "vector_add": (lambda x, y: torch.relu(x + y) * 1.5, {"x": ("N", "f32"), "y": ("N", "f32")}, {},
                       {"scale": 1.5}),
    }


CHECK_SHAPES = [dict(M=1, N=1, K=1), dict(M=7, N=13, K=5), dict(M=37, N=131, K=67), dict(M=0, N=5, K=3),
                dict(M=5, N=3, K=0)]
BENCH_SHAPES = {"softmax": dict(M=4096, N=4096), "layernorm": dict(M=4096, N=4096), "rmsnorm": dict(M=4096, N=4096),
                "gemm": dict(M=2048, N=2048, K=2048), "matmul": dict(M=2048, N=2048, K=2048),
                "vector_add": dict(N=1 << 24)}


def load(name):
    import importlib.util
    spec = importlib.util.spec_from_file_location(f"vjp_{name}", ROOT / "examples" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return getattr(mod, name)


def draw(torch, views, shape, device, gen):
    dt = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
    return {v: torch.randn([shape[c] for c in axes], generator=gen, dtype=torch.float32).to(device=device, dtype=dt[d])
            for v, (axes, d) in views.items()}


def output(kernel):
    """The forward's one output view."""
    (out,) = [p for p in kernel.params() if p.kind == "view" and p.spec.mode == "out"]
    return out


def torch_dtype(torch, dtype):
    return {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}[dtype.mlir]


def run_derived(torch, derived, ins, cot, scalars, constexprs):
    tensors, outs = [], {}
    for p in derived.params():
        if p.kind != "view":
            continue
        if p.spec.mode == "out":
            x = ins[p.name[2:]]
            outs[p.name] = torch.empty_like(x)
            tensors.append(outs[p.name])
        else:
            tensors.append(ins[p.name] if p.name in ins else cot[p.name])
    derived(*tensors, **scalars, **constexprs)
    return outs, tensors


def check(torch, name, device, shapes, gen):
    ref, views, constexprs, scalars = forwards(torch)[name]
    kernel = load(name)
    wrt = tuple(views)
    derived = kernel.vjp(wrt)
    for shape in shapes:
        ins = draw(torch, views, shape, device, gen)
        t = {k: v.detach().double().requires_grad_(True) for k, v in ins.items()}
        y = ref(**t)
        out = output(kernel)
        dy = torch.randn(y.shape, generator=gen).to(device, torch_dtype(torch, out.spec.dtype))
        cot = {f"d_{out.name}": dy}
        grads = torch.autograd.grad(y, [t[k] for k in wrt], dy.double())
        got, _ = run_derived(torch, derived, ins, cot, scalars, constexprs)
        for k, g in zip(wrt, grads):
            low = ins[k].dtype in (torch.float16, torch.bfloat16) or any(
                v.dtype in (torch.float16, torch.bfloat16) for v in ins.values())
            tol = 1e-2 if low else 1e-3
            err = (got[f"d_{k}"].double() - g).abs().max().item() if g.numel() else 0.0
            scale = g.abs().max().item() + 1 if g.numel() else 1.0
            if err > tol * scale:
                raise AssertionError(f"{name} d_{k} at {shape}: max error {err:.3g} > {tol} x {scale:.3g}")
    return derived


def bench(torch, name, derived, gen):
    import triton.testing
    ref, views, constexprs, scalars = forwards(torch)[name]
    shape = BENCH_SHAPES[name]
    ins = draw(torch, views, shape, "cuda", gen)
    t = {k: v.detach().clone().requires_grad_(True) for k, v in ins.items()}
    y = ref(**t)
    out = output(load(name))
    dy = torch.randn(y.shape, generator=gen).to("cuda", torch_dtype(torch, out.spec.dtype))
    _, tensors = run_derived(torch, derived, ins, {f"d_{out.name}": dy}, scalars, constexprs)
    dy = dy.to(y.dtype)
    ms_tessel = triton.testing.do_bench(lambda: derived(*tensors, **scalars, **constexprs))
    ms_torch = triton.testing.do_bench(lambda: torch.autograd.grad(y, list(t.values()), dy, retain_graph=True))
    return ms_tessel, ms_torch


def autograd_function(torch, name):
    import tessel
    _, views, constexprs, _ = forwards(torch)[name]
    return tessel.autograd(load(name), wrt=tuple(views), constexprs=constexprs)


def check_autograd(torch, name, f, device, shape, gen):
    """tessel.autograd's gradients (forward kernel, then its vjp through torch autograd) against torch's."""
    ref, views, constexprs, scalars = forwards(torch)[name]
    ins = draw(torch, views, shape, device, gen)
    mine = {k: v.detach().clone().requires_grad_(True) for k, v in ins.items()}
    t = {k: v.detach().double().requires_grad_(True) for k, v in ins.items()}
    y = f(*mine.values(), **scalars)
    want = ref(**t)
    dy = torch.randn(y.shape, generator=gen).to(device, y.dtype)
    y.backward(dy)
    want.backward(dy.double())
    low = any(v.dtype in (torch.float16, torch.bfloat16) for v in ins.values())
    tol = 1e-2 if low else 1e-3
    for k in views:
        g, w = mine[k].grad.double(), t[k].grad
        err = (g - w).abs().max().item() if w.numel() else 0.0
        if err > tol * (w.abs().max().item() + 1 if w.numel() else 1.0):
            raise AssertionError(f"{name} autograd d_{k} at {shape}: max error {err:.3g}")


def bench_autograd(torch, name, f, gen):
    """Forward plus backward: the tessel.autograd function against torch eager."""
    import triton.testing
    ref, views, constexprs, scalars = forwards(torch)[name]
    ins = draw(torch, views, BENCH_SHAPES[name], "cuda", gen)
    mine = {k: v.detach().clone().requires_grad_(True) for k, v in ins.items()}
    theirs = {k: v.detach().clone().requires_grad_(True) for k, v in ins.items()}
    y = f(*mine.values(), **scalars)
    dy = torch.randn(y.shape, generator=gen).to("cuda", y.dtype)

    def step(fn, args, kwargs):
        for a in args:
            a.grad = None
        fn(*args, **kwargs).backward(dy)
    ms_tessel = triton.testing.do_bench(lambda: step(f, list(mine.values()), scalars))
    ms_torch = triton.testing.do_bench(lambda: step(lambda *a: ref(**dict(zip(views, a))), list(theirs.values()), {}))
    return ms_tessel, ms_torch


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default="")
    ap.add_argument("--cpu-smoke", action="store_true")
    args = ap.parse_args(argv)
    if args.cpu_smoke:
        os.environ["TRITON_INTERPRET"] = "1"
    import torch
    names = [n for n in forwards(torch) if not args.only or n in args.only.split(",")]
    device = "cpu" if args.cpu_smoke else "cuda"
    shapes = CHECK_SHAPES[:2] if args.cpu_smoke else CHECK_SHAPES
    failed = False
    gen = torch.Generator().manual_seed(0)
    for name in names:
        if args.cpu_smoke and any(d == "bf16" for _, d in forwards(torch)[name][1].values()):
            print(f"{name:12s} skipped: Triton's CPU interpreter does not compute bf16 products", flush=True)
            continue
        try:
            derived = check(torch, name, device, shapes, gen)
            line = f"{name:12s} correct at {len(shapes)} shapes"
            if not args.cpu_smoke:
                ms_tessel, ms_torch = bench(torch, name, derived, gen)
                line += (f"; backward {ms_tessel * 1e3:9.1f} us, torch eager {ms_torch * 1e3:9.1f} us, "
                         f"ratio {ms_torch / ms_tessel:5.2f}")
            print(line, flush=True)
            f = autograd_function(torch, name)
            check_autograd(torch, name, f, device, shapes[-1], gen)
            line = f"{name:12s} tessel.autograd correct"
            if not args.cpu_smoke:
                ms_tessel, ms_torch = bench_autograd(torch, name, f, gen)
                line += (f"; forward+backward {ms_tessel * 1e3:9.1f} us, torch eager {ms_torch * 1e3:9.1f} us, "
                         f"ratio {ms_torch / ms_tessel:5.2f}")
            print(line, flush=True)
        except Exception as e:  # noqa: BLE001 - recorded, the run goes on
            failed = True
            print(f"{name:12s} FAILED: {type(e).__name__}: {e}", flush=True)
            traceback.print_exc(limit=3)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
