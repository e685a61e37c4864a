"""Stand-ins the tuner tests share (test_tune.py, test_tune_check.py, test_tune_pool.py): fake kernels whose
candidates a timer measures, a stand-in compile job for the worker pool, and a CUDA driver for an absent GPU.
Workers and the tests' scripts import them by name (this folder is on their sys.path)."""
import os
import time
from pathlib import Path


class FakeKernel:
    """A kernel whose launcher writes x * 2 into the output, except candidates the test marks wrong
    (fault injection: a miscompiled candidate) or failing (a candidate that does not compile)."""
    name = "fake"

    def __init__(self, wrong=(), failing=(), cost=None):
        self.wrong, self.failing, self.cost = set(wrong), set(failing), cost or {}

    def _space(self, constexprs):
        return {"BLOCK": ([64, 128, 256, 512], 128), "BLOCK_P": ([1, 2], 1)}

    def _launcher(self, constexprs, params):
        key = (params["BLOCK"], params["BLOCK_P"])
        if key in self.failing:
            raise RuntimeError("does not compile")

        def launch(x, y):
            y.copy_(x * (3 if key in self.wrong else 2))
            launch.ms = self.cost.get(key, 1.0)
        launch.key = key
        return launch


def tracked(fake, cost):
    """(timer, visit order) for a fake kernel: the timer returns the cost of the last launcher built."""
    order = []
    orig = fake._launcher

    def timer(fn):
        fn()
        return timer.last

    def tracking(constexprs, params):
        launch = orig(constexprs, params)
        order.append(launch.key)
        timer.last = cost.get(launch.key, 1.0)
        return launch
    fake._launcher = tracking
    return timer, order


def job(kind, arg=None):
    """A stand-in compile: writes its pid to `arg`, raises, hangs (after writing its pid), or kills
    its worker."""
    started = time.time()
    if kind in ("ok", "hang"):  # atomically: the test reads the pid as soon as the file exists
        Path(arg + ".tmp").write_text(str(os.getpid()))
        os.replace(arg + ".tmp", arg)
    if kind == "raise":
        raise RuntimeError("no compiler here")
    if kind == "hang":
        time.sleep(120)
    if kind == "die":
        os._exit(3)
    return started, time.time()


_CANDIDATE = '''
import os, pathlib


def fake_warmup(x, y):
    """What a generated `<kernel>_warmup` sees in the worker."""
    {body}
    pathlib.Path(os.environ["MARKS"], "{name}").write_text(
        f"{{os.getpid()}} {{type(x).__name__}} {{x.shape}} {{x.stride()}} {{y.data_ptr() == {y_ptr}}}")
'''


class WarmedFake:
    """A fake kernel whose candidates each have a generated module with a warmup entry."""
    name = "fake"

    def __init__(self, directory, y, body="pass"):
        self.directory, self.y, self.body = directory, y, body

    def _space(self, constexprs):
        return {"BLOCK": ([64, 128, 256, 512], 128), "BLOCK_P": ([1, 2], 1)}

    def _launcher(self, constexprs, params):
        def launch(x, y):
            y.copy_(x * 2)
        return launch

    def _warmup(self, constexprs, params):
        import importlib.util
        name = f"cand_{params['BLOCK']}_{params['BLOCK_P']}"
        path = self.directory / f"{name}.py"
        path.write_text(_CANDIDATE.format(name=name, body=self.body, y_ptr=self.y.data_ptr()))
        spec = importlib.util.spec_from_file_location(f"_fake_{name}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module.fake_warmup


def fake_cuda_driver():
    """Worker initializer (and the parent script's first step): a CUDA driver for a GPU that is not
    there, enough for Triton to compile for sm_90."""
    from triton.backends.compiler import GPUTarget
    from triton.backends.nvidia.driver import CudaDriver
    from triton.runtime.driver import driver

    class Absent(CudaDriver):
        def __init__(self):
            pass

        def get_current_device(self):
            return 0

        def get_current_stream(self, device=None):
            return 0

        def get_device_capability(self, device=0):
            return (9, 0)

        def get_current_target(self):
            return GPUTarget("cuda", 90, 32)
    driver.set_active(Absent())
