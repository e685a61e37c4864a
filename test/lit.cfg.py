# -*- Python -*-
import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "TESSEL"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tessel_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.substitutions.append(("%tessel_src", config.tessel_src_root))
config.substitutions.append(("%mlir_include", config.mlir_include_dir))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tool_dirs = [config.tessel_tools_dir, config.llvm_tools_dir]
tools = ["tessel-opt", "tessel", "mlir-tblgen", ToolSubst("FileCheck", unresolved="fatal"), "not", "count", "split-file"]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# ptxas validates the PTX provider's output in tests only (tessel never runs it, seed 004).
import shutil
_ptxas = shutil.which("ptxas") or shutil.which("ptxas", path="/usr/local/cuda/bin")
if _ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", _ptxas))
# LLVM 22's AMDGPU tools validate the AMDGPU provider's output in tests only (tessel emits the ISA
# and the code object itself, seed 004): llvm-mc assembles the ISA, ld.lld links the code object,
# llvm-readobj reads its metadata note.
_amdgpu_tools = {t: shutil.which(t, path=config.llvm_tools_dir) or shutil.which(t + "-22")
                 for t in ("llvm-mc", "ld.lld", "llvm-readobj", "llvm-objdump")}
if all(_amdgpu_tools.values()):
    config.available_features.add("amdgpu-tools")
    for _t, _path in _amdgpu_tools.items():
        config.substitutions.append(("%" + _t.replace("-", "_").replace(".", "_"), _path))
# The toolkit's stub libcuda (cuInit fails) exercises the CUDA runtime's error path on CPU machines.
_stub = "/usr/local/cuda/lib64/stubs/libcuda.so"
if os.path.exists(_stub):
    config.available_features.add("cuda-stub-driver")
    config.substitutions.append(("%cuda_stub_driver", _stub))
# The unit tests' stand-in libcuda (records launches, runs nothing but its `copy` kernel) lets
# `tessel run --device=cuda` go through compile, ABI and copies on CPU machines.
_fake = os.path.join(config.tessel_obj_root, "unittests", "libtessel-fake-cuda.so")
if os.path.exists(_fake):
    config.available_features.add("fake-cuda-driver")
    config.substitutions.append(("%fake_cuda_driver", _fake))
