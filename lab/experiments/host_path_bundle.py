"""Makes the bundle host_path_rows.py runs from on a GPU machine without the compiler:
    python3 lab/experiments/host_path_bundle.py DEST [OLD_TESSEL_BIN]
DEST gets python/, examples/, bench/row_kernels.py, host_path_rows.py, host_path_cpu.py, gen/<kernel>.py
(each row kernel's generated module at its declared defaults) and, with OLD_TESSEL_BIN (a compiler from
before launch plans), old/<kernel>.py: that compiler's module for the same kernel. HOST_PATH_ROOT=CHECKOUT
takes python/, examples/ and bench/ from another checkout (with TESSEL_BIN its compiler: a bundle of
an earlier commit, measured by this host_path_rows.py beside the current one)."""
import os
import shutil
import sys
from pathlib import Path

ROOT = Path(os.environ.get("HOST_PATH_ROOT", Path(__file__).resolve().parents[2]))
dest = Path(sys.argv[1]).resolve()
if dest.exists():
    shutil.rmtree(dest)
(dest / "bench").mkdir(parents=True)
shutil.copytree(ROOT / "python" / "tessel", dest / "python" / "tessel", ignore=shutil.ignore_patterns("__pycache__"))
shutil.copytree(ROOT / "examples", dest / "examples", ignore=shutil.ignore_patterns("__pycache__", "kir", "pgpu"))
shutil.copy(ROOT / "bench" / "row_kernels.py", dest / "bench")
shutil.copy(Path(__file__).with_name("host_path_rows.py"), dest)
shutil.copy(Path(__file__).with_name("host_path_cpu.py"), dest)

sys.path[:0] = [str(ROOT / "python"), str(ROOT / "examples"), str(ROOT / "bench")]
import layernorm  # noqa: E402
import rmsnorm  # noqa: E402
import row_kernels as R  # noqa: E402
import softmax  # noqa: E402

kernels = [softmax.softmax, layernorm.layernorm, rmsnorm.rmsnorm, R.softmax_bf16, R.layernorm_bf16, R.rmsnorm_bf16]
(dest / "gen").mkdir()
for k in kernels:
    (dest / "gen" / f"{k.name}.py").write_text(k.compile("source"))
if len(sys.argv) > 2:
    os.environ["TESSEL_BIN"] = sys.argv[2]
    (dest / "old").mkdir()
    for k in kernels:
        (dest / "old" / f"{k.name}.py").write_text(k.compile("source"))
print(dest)
