"""Host time of one call of the row kernels without a GPU (issue 18's host path, profiled on the CPU):
the Triton JIT and the compiled kernel's launcher are replaced by stubs that launch nothing, so what is
timed is tessel's own Python path: the `@tessel.kernel` call, the generated wrapper's planned call, and
the plan's launch alone (the stub launcher's cost included in all three). CPU tensors stand in for CUDA
ones (the wrappers' device check reads TRITON_INTERPRET, set here; their interpreter switch is
stubbed off). Needs the compiler (TESSEL_BIN or build/bin/tessel), or runs in host_path_bundle.py's
bundle (its gen/ modules), which tells how much of a call on the GPU machine is tessel's Python.
    python3 lab/experiments/host_path_cpu.py [--profile KERNEL]"""
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
BUNDLE = (HERE / "gen").is_dir()  # in host_path_bundle.py's bundle: python/ etc. beside this file
ROOT = HERE if BUNDLE else Path(os.environ.get("HOST_PATH_ROOT", HERE.parents[1]))  # another checkout: A/B
sys.path[:0] = [str(ROOT / "python"), str(ROOT / "examples"), str(ROOT / "bench")]
os.environ["TRITON_INTERPRET"] = "1"  # CPU tensors pass the wrappers' device check

import torch  # noqa: E402
import tessel._kernel as K  # noqa: E402

if BUNDLE:  # as host_path_rows.py: no compiler, the bundled sources
    os.environ.setdefault("TESSEL_CACHE", str(HERE / "cache"))
    K._VERSION = "host-path"
    K.Kernel.source = lambda self, target="triton", constexprs=None, params=None: \
        (HERE / "gen" / f"{self.name}.py").read_text()
import layernorm  # noqa: E402
import rmsnorm  # noqa: E402
import row_kernels  # noqa: E402
import softmax  # noqa: E402

M, N, EPS = 4096, 1024, 1e-5


class _Compiled:
    """What the JIT returns for a launch: enough of a CompiledKernel for `_direct`."""
    function, packed_metadata = 0, None

    class run:
        global_scratch_size = profile_scratch_size = 0
        launch_cooperative_grid = launch_pdl = False

        @staticmethod
        def launch(*args):
            return None

    def _init_handles(self):
        pass


class _Jit:
    def __getitem__(self, grid):
        return lambda *args, **kwargs: _Compiled()


def _stub(module: dict, name: str):
    if module.get("_stubbed"):
        return
    module["_stubbed"] = True
    module["_interpreting"] = lambda: False
    module[f"_{name}_kernel"] = _Jit()
    import torch._C as C
    C._cuda_getCurrentRawStream = int  # `_direct` imports the stream lookup from here: a C builtin


_launcher = K.Kernel._launcher


def _patched(self, constexprs, params=None, target="triton"):
    launch = _launcher(self, constexprs, params, target)
    _stub(launch.__globals__, self.name)
    return launch


K.Kernel._launcher = _patched


def host_us(fn, batches=40, calls=1000):
    for _ in range(200):
        fn()
    means = []
    for _ in range(batches):
        started = time.perf_counter()
        for _ in range(calls):
            fn()
        means.append((time.perf_counter() - started) / calls * 1e6)
    return round(min(means), 3)  # the least disturbed batch: other processes share these cores


def cases():
    for dtype, kernels in [(torch.float32, (softmax.softmax, layernorm.layernorm, rmsnorm.rmsnorm)),
                           (torch.bfloat16, (row_kernels.softmax_bf16, row_kernels.layernorm_bf16,
                                             row_kernels.rmsnorm_bf16))]:
        x, w, b = torch.randn(M, N, dtype=dtype), torch.randn(N, dtype=dtype), torch.randn(N, dtype=dtype)
        k_soft, k_ln, k_rms = kernels
        yield k_soft, (x, torch.empty_like(x)), {}
        yield k_ln, (x, w, b, torch.empty_like(x)), {"eps": EPS}
        yield k_rms, (x, w, torch.empty_like(x)), {"eps": EPS}


def calls_of(kernel, args, kw):
    kernel(*args, **kw)
    kernel(*args, **kw)  # the second call is planned
    (plan,) = kernel._plans.values()
    front = plan[0].__globals__[kernel.name]  # its module's wrapper (over the module's own plans)
    go_args = [a for t in args for a in (t, t.data_ptr())] + list(kw.values())
    return {"kernel object": lambda: kernel(*args, **kw), "wrapper": lambda: front(*args, **kw),
            "plan launch alone": lambda: plan[0](*go_args)}


def main():
    if "--profile" in sys.argv:
        import cProfile
        name = sys.argv[sys.argv.index("--profile") + 1]
        for kernel, args, kw in cases():
            if kernel.name == name:
                call = calls_of(kernel, args, kw)["kernel object"]
                cProfile.runctx("for _ in range(200000): call()", {}, {"call": call}, sort="tottime")
        return
    print(f"{'kernel':16} {'object':>8} {'wrapper':>8} {'launch':>8}  "
          "(us per call, stubbed launch, least of 40 batches)")
    for kernel, args, kw in cases():
        t = {what: host_us(call) for what, call in calls_of(kernel, args, kw).items()}
        print(f"{kernel.name:16} {t['kernel object']:8.3f} {t['wrapper']:8.3f} {t['plan launch alone']:8.3f}",
              flush=True)


if __name__ == "__main__":
    main()
