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
tools = ["tessel-opt", "tessel", "mlir-tblgen", ToolSubst("FileCheck", unresolved="fatal"), "not", "count"]
llvm_config.add_tool_substitutions(tools, tool_dirs)
