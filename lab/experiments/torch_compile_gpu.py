"""test_torch_compile.py's GPU script (`_CUDA`: a model of two tessel kernels under torch.compile, in
the default mode and in CUDA graphs) on a GPU machine without the compiler (issue 18's done-when).

    python3 lab/experiments/torch_compile_gpu.py make DEST   # here, with the compiler
    python3 DEST/torch_compile_gpu.py run                      # on the GPU machine

`make` copies python/, the two examples and the test file to DEST, calls the model's kernels eagerly on
the CPU (Triton's interpreter) at the script's shapes and keeps every source they asked the compiler
for in DEST/sources.json (by kernel, target, constexprs and parameters). `run` runs the script with
`Kernel.source` answering from that file and prints PASS when it prints what the test expects."""
import ast
import json
import os
import pathlib
import shutil
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
EXAMPLES = ("rmsnorm", "softmax")


def _key(name, target, constexprs, params) -> str:
    return repr((name, target, sorted((constexprs or {}).items()), sorted((params or {}).items())))


def make(dest: pathlib.Path):
    root = HERE.parents[1]
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(root / "python" / "tessel", dest / "python" / "tessel",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (dest / "examples").mkdir()
    for name in EXAMPLES:
        shutil.copy(root / "examples" / f"{name}.py", dest / "examples")
    shutil.copy(root / "python" / "tests" / "test_torch_compile.py", dest)
    shutil.copy(__file__, dest)
    os.environ["TRITON_INTERPRET"] = "1"
    sys.path[:0] = [str(root / "python"), str(root / "examples")]
    import torch
    import tessel._kernel as K
    seen, source = {}, K.Kernel.source

    def recording(self, target="triton", constexprs=None, params=None):
        seen[_key(self.name, target, constexprs, params)] = text = source(self, target, constexprs, params)
        return text
    K.Kernel.source = recording
    import rmsnorm
    import softmax
    x, w = torch.randn(64, 1000), torch.rand(1000) + 0.5  # the script's shapes
    y, z = torch.empty_like(x), torch.empty_like(x)
    rmsnorm.rmsnorm(x, w, y, eps=1e-5)
    softmax.softmax(torch.tanh(y) * 2.0, z)
    (dest / "sources.json").write_text(json.dumps(seen))
    print(dest, sorted(seen))


def run():
    test = (HERE / "test_torch_compile.py").read_text()
    script = next(n.value.value for n in ast.parse(test).body
                  if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "_CUDA")
    prologue = (f"import json, tessel._kernel as K\n"
                f"K._VERSION = 'bundled'\n"
                f"_SOURCES = json.load(open({str(HERE / 'sources.json')!r}))\n"
                f"K.Kernel.source = lambda self, target='triton', constexprs=None, params=None: _SOURCES[repr(("
                f"self.name, target, sorted((constexprs or {{}}).items()), sorted((params or {{}}).items())))]\n")
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env.update(TESSEL_CACHE="/tmp/tessel-cache",
               PYTHONPATH=os.pathsep.join(str(HERE / d) for d in ("python", "examples")))
    r = subprocess.run([sys.executable, "-c", prologue + script], capture_output=True, text=True, env=env,
                       timeout=400)
    print(r.stdout, r.stderr[-3000:])
    passed = r.returncode == 0 and r.stdout.split() == ["default", "True", "reduce-overhead", "True"]
    print("PASS" if passed else "FAIL")


if __name__ == "__main__":
    make(pathlib.Path(sys.argv[2]).resolve()) if sys.argv[1] == "make" else run()
