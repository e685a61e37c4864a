//===- VerifierTest.cpp - the KIR verifier through the C++ API -------------===//
//
// The lit suite covers each rule's message; these tests check the C++ surface
// the rest of the compiler uses: parse + verify, origins, and determinism.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/KIR/IR/KIR.h"
#include "tessel/Dialect/KIR/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include <gtest/gtest.h>

using namespace mlir;
using namespace tessel::kir;

namespace {
constexpr const char *kCopy = R"mlir(
kir.kernel @copy(%x: !kir.view<f32, [N], in>, %y: !kir.view<f32, [N], out>) {
  %c0 = arith.constant 0 : index
  %n = kir.extent "N"
  %d = kir.domain %c0 to %n
  kir.parallel %d {
  ^bb0(%i: index):
    %v = kir.load %x[%i] : !kir.view<f32, [N], in>[index] -> f32
    kir.store %v, %y[%i] : f32, !kir.view<f32, [N], out>[index]
    kir.yield
  }
  kir.return
}
)mlir";

struct KIRVerifier : ::testing::Test {
  KIRVerifier() { context.loadDialect<KIRDialect, arith::ArithDialect>(); }
  OwningOpRef<ModuleOp> parse(const char *text) {
    return parseSourceString<ModuleOp>(text, ParserConfig(&context));
  }
  std::string print(ModuleOp module) {
    std::string out;
    llvm::raw_string_ostream os(out);
    module.print(os, OpPrintingFlags().enableDebugInfo());
    return out;
  }
  MLIRContext context;
};

TEST_F(KIRVerifier, AcceptsLegalKernel) {
  auto module = parse(kCopy);
  ASSERT_TRUE(module);
  EXPECT_TRUE(succeeded(verify(*module)));
}

TEST_F(KIRVerifier, RejectsStoreThatIgnoresParallelIndex) {
  std::string text = kCopy;
  // Every iteration writes element 0: a conflicting non-atomic write.
  size_t at = text.find("%y[%i]");
  text.replace(at, 6, "%y[%c0]");
  context.getDiagEngine().registerHandler([](Diagnostic &) { return success(); });
  auto module = parse(text.c_str());
  EXPECT_FALSE(module);
}

TEST_F(KIRVerifier, OriginsAreStableAndIdempotent) {
  auto first = parse(kCopy);
  auto second = parse(kCopy);
  ASSERT_TRUE(first && second);
  PassManager pm(&context);
  pm.addPass(createKIRAnnotateOrigins());
  ASSERT_TRUE(succeeded(pm.run(*first)));
  PassManager pm2(&context);
  pm2.addPass(createKIRAnnotateOrigins());
  pm2.addPass(createKIRAnnotateOrigins());
  ASSERT_TRUE(succeeded(pm2.run(*second)));
  EXPECT_EQ(print(*first), print(*second));

  int64_t expected = 0;
  bool allTagged = true;
  first->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<ModuleOp>(op))
      return;
    OriginAttr origin = getOrigin(op);
    allTagged &= origin && origin.getId() == expected++ && origin.getKernel() == "copy";
  });
  EXPECT_TRUE(allTagged);
  EXPECT_GT(expected, 5);
}
} // namespace
