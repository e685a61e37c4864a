//===- ModulePlacementTest.cpp - the drivers' module placement check -------===//

#include "tessel/Dialect/Utils/ModulePlacement.h"

#include <gtest/gtest.h>

using tessel::findMisplacedModule;

namespace {
constexpr size_t npos = llvm::StringRef::npos;

TEST(ModulePlacement, ModuleAfterAnSSANameIsRefusedAtItsKeyword) {
  llvm::StringRef text = "pgpu.program_space(%M) {\n}\nmodule {\n  %M = arith.constant 0 : index\n}\n";
  EXPECT_EQ(findMisplacedModule(text), text.find("module"));
}

TEST(ModulePlacement, NestedOrSecondModulesAreRefused) {
  llvm::StringRef nested = "module {\n  builtin.module {\n  }\n}\n";
  EXPECT_EQ(findMisplacedModule(nested), nested.find("builtin.module"));
  llvm::StringRef inKernel = "kir.kernel @k() {\n  builtin.module @m {\n  }\n}\n";
  EXPECT_EQ(findMisplacedModule(inKernel), inKernel.find("builtin.module"));
  llvm::StringRef second = "module {\n}\nmodule attributes {a} {\n}\n";
  EXPECT_EQ(findMisplacedModule(second), second.rfind("module attributes"));
}

TEST(ModulePlacement, OneLeadingModuleAndLookalikesAreAccepted) {
  EXPECT_EQ(findMisplacedModule("module {\n  kir.kernel @k(%x: f32) {\n  }\n}\n"), npos);
  EXPECT_EQ(findMisplacedModule("#t = #pgpu.target<arch = \"sm_90\">\nmodule attributes {pgpu.target = #t} {\n}\n"),
            npos);
  // No module at all: bare kernels, whatever they use.
  EXPECT_EQ(findMisplacedModule("kir.kernel @k(%module: f32) {\n}\nkir.kernel @module() {\n}\n"), npos);
  // A comment, a string, a dictionary key, a symbol or an SSA name spelled `module`.
  EXPECT_EQ(findMisplacedModule("%a = x\n// module {\nk {note = \"module {\", module = 1} @module %module {\n}\n"),
            npos);
  // The generic form unwinds safely (the parser's own cleanup) and is not checked.
  EXPECT_EQ(findMisplacedModule("%a = x\n\"builtin.module\"() ({\n}) : () -> ()\n"), npos);
  // `module` as an identifier prefix or keyword of something else.
  EXPECT_EQ(findMisplacedModule("%a = x\nmodules {\n}\nfoo.module {\n}\nmodule = 3\n"), npos);
}
} // namespace
