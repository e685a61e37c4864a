//===- GluonLayoutsTest.cpp - what a Gluon spelling must decide -----------===//
//
// The inference of GluonLayouts.h on an online-softmax key loop shaped like
// the one construction and the physical passes leave for attention (the
// scores' contraction, a row maximum, exponentials, a row sum, the values'
// contraction into a rescaled accumulator), and on a loop no contraction
// reaches (its carry takes the blocked default); then on the attention suite
// kernel (examples/kir/attention.mlir) as the whole pipeline leaves it for the
// Triton provider. The fold-source streams and loader slice of GluonStreams.h
// on the same two kernels.
//
//===----------------------------------------------------------------------===//

#include "tessel/Target/Triton/GluonLayouts.h"
#include "tessel/Target/Triton/GluonStreams.h"

#include "tessel/Dialect/KIR/IR/KIR.h"
#include "tessel/Pipeline/Pipeline.h"
#include "tessel/Target/Triton/Triton.h"
#include "mlir/Pass/PassManager.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include <gtest/gtest.h>

#include "KernelFixture.h"

using namespace mlir;
using namespace tessel;

namespace {
constexpr const char *kFoldLoop = R"mlir(
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @fold(%K: !pgpu.view<f16, [T, D], in>, %V: !pgpu.view<f16, [T, D], in>, %Q: !pgpu.view<f16, [S, D], in>,
                    %O: !pgpu.view<f32, [S, D], out>)
      attributes {params = [#pgpu.param<"BS", [64], 64>, #pgpu.param<"BT", [64], 64>, #pgpu.param<"BD", [128], 128>]} {
    %T = pgpu.extent %K[0] : !pgpu.view<f16, [T, D], in>
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      %ninf = arith.constant 0xFF800000 : f32
      %zh = arith.constant 0.0 : f16
      %t = arith.constant true
      %bt = pgpu.param "BT" : index
      %qi = pgpu.splat %c0 : index -> !pgpu.fragment<index, [BS, BD]>
      %q = pgpu.load %Q[%qi, %qi] valid %t : i1 fill %zh : f16 : !pgpu.view<f16, [S, D], in>[!pgpu.fragment<index, [BS, BD]>, !pgpu.fragment<index, [BS, BD]>] -> !pgpu.fragment<f16, [BS, BD]>
      %m0 = pgpu.splat %ninf : f32 -> !pgpu.fragment<f32, [BS]>
      %l0 = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [BS]>
      %a0 = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [BS, BD]>
      %r:3 = pgpu.for %c0 to %T step %bt iter_args(%m0, %l0, %a0 : !pgpu.fragment<f32, [BS]>, !pgpu.fragment<f32, [BS]>, !pgpu.fragment<f32, [BS, BD]>) -> !pgpu.fragment<f32, [BS]>, !pgpu.fragment<f32, [BS]>, !pgpu.fragment<f32, [BS, BD]> {
      ^bb0(%k0: index, %m: !pgpu.fragment<f32, [BS]>, %l: !pgpu.fragment<f32, [BS]>, %acc: !pgpu.fragment<f32, [BS, BD]>):
        %ki = pgpu.splat %k0 : index -> !pgpu.fragment<index, [BT, BD]>
        %k = pgpu.load %K[%ki, %ki] valid %t : i1 fill %zh : f16 : !pgpu.view<f16, [T, D], in>[!pgpu.fragment<index, [BT, BD]>, !pgpu.fragment<index, [BT, BD]>] -> !pgpu.fragment<f16, [BT, BD]>
        %kt = pgpu.transpose %k [1, 0] : !pgpu.fragment<f16, [BT, BD]> -> !pgpu.fragment<f16, [BD, BT]>
        %s0 = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [BS, BT]>
        %s = pgpu.contract %q, %kt, %s0 reduce([1], [0]) batch([], [])
            : !pgpu.fragment<f16, [BS, BD]>, !pgpu.fragment<f16, [BD, BT]>, !pgpu.fragment<f32, [BS, BT]> -> !pgpu.fragment<f32, [BS, BT]>
        %rowmax = pgpu.reduce %s axes [1] identity(%ninf : f32) : (!pgpu.fragment<f32, [BS, BT]>) -> (!pgpu.fragment<f32, [BS]>) {
        ^bb0(%x: f32, %y: f32):
          %mx = pgpu.binary max %x, %y : f32
          pgpu.yield %mx : f32
        }
        %mnew = pgpu.binary max %m, %rowmax : !pgpu.fragment<f32, [BS]>
        %d = pgpu.binary sub %m, %mnew : !pgpu.fragment<f32, [BS]>
        %alpha = pgpu.unary exp2 %d : !pgpu.fragment<f32, [BS]>
        %mb = pgpu.broadcast %mnew dims [0] : !pgpu.fragment<f32, [BS]> -> !pgpu.fragment<f32, [BS, BT]>
        %sd = pgpu.binary sub %s, %mb : !pgpu.fragment<f32, [BS, BT]>
        %pr = pgpu.unary exp2 %sd : !pgpu.fragment<f32, [BS, BT]>
        %rowsum = pgpu.reduce %pr axes [1] identity(%z : f32) : (!pgpu.fragment<f32, [BS, BT]>) -> (!pgpu.fragment<f32, [BS]>) {
        ^bb0(%x: f32, %y: f32):
          %ad = pgpu.binary add %x, %y : f32
          pgpu.yield %ad : f32
        }
        %la = pgpu.binary mul %l, %alpha : !pgpu.fragment<f32, [BS]>
        %lnew = pgpu.binary add %la, %rowsum : !pgpu.fragment<f32, [BS]>
        %ph = pgpu.cast %pr : !pgpu.fragment<f32, [BS, BT]> to !pgpu.fragment<f16, [BS, BT]>
        %ab = pgpu.broadcast %alpha dims [0] : !pgpu.fragment<f32, [BS]> -> !pgpu.fragment<f32, [BS, BD]>
        %scaled = pgpu.binary mul %acc, %ab : !pgpu.fragment<f32, [BS, BD]>
        %v = pgpu.load %V[%ki, %ki] valid %t : i1 fill %zh : f16 : !pgpu.view<f16, [T, D], in>[!pgpu.fragment<index, [BT, BD]>, !pgpu.fragment<index, [BT, BD]>] -> !pgpu.fragment<f16, [BT, BD]>
        %accn = pgpu.contract %ph, %v, %scaled reduce([1], [0]) batch([], [])
            : !pgpu.fragment<f16, [BS, BT]>, !pgpu.fragment<f16, [BT, BD]>, !pgpu.fragment<f32, [BS, BD]> -> !pgpu.fragment<f32, [BS, BD]>
        pgpu.yield %mnew, %lnew, %accn : !pgpu.fragment<f32, [BS]>, !pgpu.fragment<f32, [BS]>, !pgpu.fragment<f32, [BS, BD]>
      }
      %e = pgpu.for %c0 to %T step %bt iter_args(%l0 : !pgpu.fragment<f32, [BS]>) -> !pgpu.fragment<f32, [BS]> {
      ^bb0(%k1: index, %x: !pgpu.fragment<f32, [BS]>):
        %x2 = pgpu.binary add %x, %x : !pgpu.fragment<f32, [BS]>
        pgpu.yield %x2 : !pgpu.fragment<f32, [BS]>
      }
      pgpu.yield
    }
    pgpu.return
  }
}
)mlir";

// A key loop whose trip count is read from data: a box stream in a loop bounded by an element
// of a loaded fragment (a count the consumers compute), which a loader cannot replay.
constexpr const char *kDataBound = R"mlir(
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @bound(%K: !pgpu.view<f16, [T, D], in>, %N: !pgpu.view<i32, [C], in>, %Q: !pgpu.view<f16, [S, D], in>,
                     %O: !pgpu.view<f32, [S, T], out>)
      attributes {params = [#pgpu.param<"BS", [64], 64>, #pgpu.param<"BT", [64], 64>, #pgpu.param<"BD", [128], 128>]} {
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      %zh = arith.constant 0.0 : f16
      %zi = arith.constant 0 : i32
      %t = arith.constant true
      %bt = pgpu.param "BT" : index
      %qi = pgpu.splat %c0 : index -> !pgpu.fragment<index, [BS, BD]>
      %q = pgpu.load %Q[%qi, %qi] valid %t : i1 fill %zh : f16 : !pgpu.view<f16, [S, D], in>[!pgpu.fragment<index, [BS, BD]>, !pgpu.fragment<index, [BS, BD]>] -> !pgpu.fragment<f16, [BS, BD]>
      %ni = pgpu.splat %c0 : index -> !pgpu.fragment<index, [BS]>
      %counts = pgpu.load %N[%ni] valid %t : i1 fill %zi : i32 : !pgpu.view<i32, [C], in>[!pgpu.fragment<index, [BS]>] -> !pgpu.fragment<i32, [BS]>
      %n32 = pgpu.extract %counts[%c0] : !pgpu.fragment<i32, [BS]> -> i32
      %n = pgpu.cast %n32 : i32 to index
      %a0 = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [BS, BT]>
      %r = pgpu.for %c0 to %n step %bt iter_args(%a0 : !pgpu.fragment<f32, [BS, BT]>) -> !pgpu.fragment<f32, [BS, BT]> {
      ^bb0(%k0: index, %acc: !pgpu.fragment<f32, [BS, BT]>):
        %rows = pgpu.iota %k0 : !pgpu.fragment<index, [BT]>
        %cols = pgpu.iota %c0 : !pgpu.fragment<index, [BD]>
        %ri = pgpu.broadcast %rows dims [0] : !pgpu.fragment<index, [BT]> -> !pgpu.fragment<index, [BT, BD]>
        %ci = pgpu.broadcast %cols dims [1] : !pgpu.fragment<index, [BD]> -> !pgpu.fragment<index, [BT, BD]>
        %k = pgpu.load %K[%ri, %ci] valid %t : i1 fill %zh : f16 : !pgpu.view<f16, [T, D], in>[!pgpu.fragment<index, [BT, BD]>, !pgpu.fragment<index, [BT, BD]>] -> !pgpu.fragment<f16, [BT, BD]>
        %kt = pgpu.transpose %k [1, 0] : !pgpu.fragment<f16, [BT, BD]> -> !pgpu.fragment<f16, [BD, BT]>
        %s = pgpu.contract %q, %kt, %acc reduce([1], [0]) batch([], [])
            : !pgpu.fragment<f16, [BS, BD]>, !pgpu.fragment<f16, [BD, BT]>, !pgpu.fragment<f32, [BS, BT]> -> !pgpu.fragment<f32, [BS, BT]>
        pgpu.yield %s : !pgpu.fragment<f32, [BS, BT]>
      }
      pgpu.yield
    }
    pgpu.return
  }
}
)mlir";

struct GluonLayouts : tessel::testing::KernelFixture {};

/// The attention suite kernel as the whole pipeline leaves it for the Triton provider.
OwningOpRef<ModuleOp> attentionForTriton(MLIRContext &context) {
  context.loadDialect<kir::KIRDialect, pgpu::PGPUDialect, arith::ArithDialect>();
  OwningOpRef<ModuleOp> m =
      parseSourceFile<ModuleOp>(TESSEL_SOURCE_DIR "/examples/kir/attention.mlir", ParserConfig(&context));
  if (!m)
    return m;
  PassManager pm(&context);
  buildPipeline(pm, &triton::provider());
  if (failed(pm.run(*m)))
    return {};
  return m;
}

TEST_F(GluonLayouts, FoldLoopAnchorsOnItsContractions) {
  pgpu::KernelOp kernel = parse(kFoldLoop);
  ASSERT_TRUE(kernel);
  triton::gluon::LayoutPlan plan = triton::gluon::LayoutPlan::infer(kernel);
  // The two contractions, in program order: scores #0, values #1.
  SmallVector<pgpu::ContractOp> contracts;
  kernel.walk([&](pgpu::ContractOp c) { contracts.push_back(c); });
  ASSERT_EQ(contracts.size(), 2u);
  auto of = [&](Value v) { return plan.describe(plan.of(v)); };
  pgpu::ContractOp scores = contracts[0], values = contracts[1];
  EXPECT_EQ(of(scores.getResult()), "acc(#0)");
  EXPECT_EQ(of(values.getResult()), "acc(#1)");
  // The key tile and its transpose are shared memory; the query load stays automatic (anchored by
  // its conversion to the first contraction's operand layout).
  EXPECT_EQ(of(scores.getRhs()), "shared");
  EXPECT_EQ(of(scores.getRhs().getDefiningOp()->getOperand(0)), "shared");
  EXPECT_EQ(of(values.getRhs()), "shared");
  EXPECT_EQ(of(scores.getLhs()), "auto");
  // Row statistics are slices of the scores' accumulator; the carries are concrete.
  auto loop = cast<pgpu::ForOp>(scores->getParentOp());
  Block &body = loop.getBody().front();
  EXPECT_EQ(of(body.getArgument(1)), "slice(1, #0)");
  EXPECT_EQ(of(body.getArgument(2)), "slice(1, #0)");
  EXPECT_EQ(of(body.getArgument(3)), "acc(#1)");
  EXPECT_EQ(of(loop.getResult(0)), "slice(1, #0)");
  // The probabilities follow the scores; their f16 cast too.
  EXPECT_EQ(of(values.getLhs()), "acc(#0)");

  // A contraction's accumulator operand takes its layout where it is made (the zero splat).
  EXPECT_EQ(of(scores.getAcc()), "acc(#0)");
  EXPECT_EQ(of(values.getAcc()), "acc(#1)");

  // Conversions: the query to #0's operand layout, the probabilities to #1's, the initial row
  // statistics and output (splats before the loop) to the carries' layouts, and the rescaling
  // factor moved before its broadcast (a row vector, not the [BS, BD] tile).
  std::vector<std::string> seen;
  for (const triton::gluon::Conversion &c : plan.conversions()) {
    std::string text;
    llvm::raw_string_ostream os(text);
    c.use->get().printAsOperand(os, OpPrintingFlags());
    seen.push_back(c.use->getOwner()->getName().getStringRef().str() + ":" + os.str() + "->" + plan.describe(c.to));
  }
  auto has = [&](llvm::StringRef prefix, llvm::StringRef to) {
    return llvm::any_of(seen, [&](const std::string &s) {
      return llvm::StringRef(s).starts_with(prefix) && llvm::StringRef(s).ends_with(("->" + to).str());
    });
  };
  EXPECT_TRUE(has("pgpu.contract:", "op(#0)"));
  EXPECT_TRUE(has("pgpu.contract:", "op(#1)"));
  EXPECT_TRUE(has("pgpu.broadcast:", "slice(1, #1)"));
  EXPECT_TRUE(has("pgpu.for:", "slice(1, #0)"));
  EXPECT_TRUE(has("pgpu.for:", "acc(#1)"));
  // The rescaled accumulator's own multiply needs no conversion: the broadcast now yields #1's layout.
  EXPECT_FALSE(has("pgpu.binary:", "acc(#1)"));
  // Nothing converts to an automatic layout, and only fragments convert.
  for (const triton::gluon::Conversion &c : plan.conversions()) {
    EXPECT_TRUE(c.to.isConcrete());
    EXPECT_TRUE(isa<pgpu::FragmentType>(c.use->get().getType()));
  }
}

TEST_F(GluonLayouts, CarryNoContractionReachesTakesTheBlockedDefault) {
  pgpu::KernelOp kernel = parse(kFoldLoop);
  ASSERT_TRUE(kernel);
  triton::gluon::LayoutPlan plan = triton::gluon::LayoutPlan::infer(kernel);
  SmallVector<pgpu::ForOp> loops;
  kernel.walk([&](pgpu::ForOp f) { loops.push_back(f); });
  ASSERT_EQ(loops.size(), 2u);
  pgpu::ForOp plain = loops[1];
  EXPECT_EQ(plan.describe(plan.of(plain.getResult(0))), "blocked");
  EXPECT_EQ(plan.describe(plan.of(plain.getBody().front().getArgument(1))), "blocked");
  // What the carry feeds follows it.
  Value doubled = plain.getBody().front().getTerminator()->getOperand(0);
  EXPECT_EQ(plan.describe(plan.of(doubled)), "blocked");
}

TEST_F(GluonLayouts, InferenceIsDeterministic) {
  pgpu::KernelOp kernel = parse(kFoldLoop);
  ASSERT_TRUE(kernel);
  triton::gluon::LayoutPlan a = triton::gluon::LayoutPlan::infer(kernel);
  triton::gluon::LayoutPlan b = triton::gluon::LayoutPlan::infer(kernel);
  ASSERT_EQ(a.conversions().size(), b.conversions().size());
  for (auto [x, y] : llvm::zip(a.conversions(), b.conversions())) {
    EXPECT_EQ(x.use, y.use);
    EXPECT_EQ(x.to, y.to);
  }
}

// The suite's attention kernel through the whole pipeline for the Triton provider (as `tessel
// compile --emit=source --target=triton` serializes it): every contraction anchors its accumulator and reads its
// right operand from shared memory; every fragment carry of a loop that holds a contraction is
// concrete and none is the blocked default (the flags, maxima, sums and output all meet the
// contractions); no conversion moves a whole [BLOCK_S, BLOCK_D] or [BLOCK_S, BLOCK_T] tile but the
// contractions' operands in and around the loops that hold contractions (the rescaling factor
// converts as a row vector; the output carried from one key interval's loop into the next is in
// the same layout).
TEST_F(GluonLayouts, AttentionSuiteKernel) {
  module = attentionForTriton(context);
  ASSERT_TRUE(module);
  auto kernels = module->getOps<pgpu::KernelOp>();
  ASSERT_FALSE(kernels.empty());
  pgpu::KernelOp kernel = *kernels.begin();
  triton::gluon::LayoutPlan plan = triton::gluon::LayoutPlan::infer(kernel);
  unsigned contracts = 0, loops = 0;
  kernel.walk([&](pgpu::ContractOp c) {
    ++contracts;
    EXPECT_EQ(plan.of(c.getResult()).kind, triton::gluon::Layout::Kind::Accumulator);
    EXPECT_EQ(plan.of(c.getRhs()).kind, triton::gluon::Layout::Kind::Shared);
  });
  EXPECT_GE(contracts, 2u);
  kernel.walk([&](pgpu::ForOp f) {
    bool holds = false;
    f.getBody().walk([&](pgpu::ContractOp) { holds = true; });
    if (!holds)
      return;
    ++loops;
    for (Value r : f.getResults())
      if (isa<pgpu::FragmentType>(r.getType())) {
        triton::gluon::Layout l = plan.of(r);
        EXPECT_TRUE(l.kind == triton::gluon::Layout::Kind::Accumulator || l.kind == triton::gluon::Layout::Kind::Slice)
            << plan.describe(l);
      }
  });
  EXPECT_GE(loops, 2u);
  for (const triton::gluon::Conversion &c : plan.conversions()) {
    Operation *owner = c.use->getOwner();
    if (isa<pgpu::ContractOp>(owner))
      continue;
    bool inFold = false;
    for (auto f = owner->getParentOfType<pgpu::ForOp>(); f && !inFold; f = f->getParentOfType<pgpu::ForOp>())
      f.getBody().walk([&](pgpu::ContractOp) { inFold = true; });
    if (auto f = dyn_cast<pgpu::ForOp>(owner))
      f.getBody().walk([&](pgpu::ContractOp) { inFold = true; });
    if (!inFold)
      continue;
    // Anchoring an automatic value (a zero splat, a broadcast of constants) moves no data.
    if (!plan.of(c.use->get()).isConcrete())
      continue;
    auto type = cast<pgpu::FragmentType>(c.use->get().getType());
    EXPECT_LE(type.getRank(), 1u) << plan.describe(plan.of(c.use->get())) << " -> " << plan.describe(c.to) << " at "
                                  << owner->getName().getStringRef().str() << " operand " << c.use->getOperandNumber();
  }
}

// Every key loop of attention streams its key tile (read transposed by the scores' contraction)
// and its value tile; the loader slice holds those loops and the control and scalars around them,
// never a fragment, never a contraction, never a store.
TEST_F(GluonLayouts, AttentionStreamsKeysAndValues) {
  module = attentionForTriton(context);
  ASSERT_TRUE(module);
  pgpu::KernelOp kernel = *module->getOps<pgpu::KernelOp>().begin();
  triton::gluon::StreamPlan plan = triton::gluon::StreamPlan::plan(kernel);
  EXPECT_FALSE(plan.refusal) << *plan.refusal;
  unsigned keys = 0, values = 0;
  for (const triton::gluon::Stream &s : plan.streams) {
    EXPECT_TRUE(plan.loader.contains(s.loop));
    (s.transpose ? keys : values)++;
  }
  EXPECT_GE(keys, 2u);
  EXPECT_EQ(keys, values);
  EXPECT_GT(plan.loader.size(), 0u);
  for (Operation *op : plan.loader) {
    EXPECT_FALSE((isa<pgpu::ContractOp, pgpu::StoreOp, pgpu::LoadOp>(op))) << op->getName().getStringRef().str();
    if (op->getNumRegions())
      continue; // a loop or if the loader runs for its control, not its fragment carries
    for (Value r : op->getResults())
      EXPECT_FALSE(isa<pgpu::FragmentType>(r.getType())) << op->getName().getStringRef().str();
  }
  // Every loop holding a stream is in the slice with everything around it.
  for (const triton::gluon::Stream &s : plan.streams)
    for (Operation *p = s.loop; p && !isa<pgpu::KernelOp>(p); p = p->getParentOp())
      EXPECT_TRUE(plan.loader.contains(p)) << p->getName().getStringRef().str();
}

// Must not fire: the fold loop above reads its tiles through splat coordinates (no box), so there
// is nothing to stream and no loader.
TEST_F(GluonLayouts, NoBoxNoStream) {
  pgpu::KernelOp kernel = parse(kFoldLoop);
  ASSERT_TRUE(kernel);
  triton::gluon::StreamPlan plan = triton::gluon::StreamPlan::plan(kernel);
  EXPECT_TRUE(plan.streams.empty());
  EXPECT_TRUE(plan.loader.empty());
  EXPECT_FALSE(plan.refusal);
}

// Refused: the key tile is a stream (a box read transposed by the contraction), but the loop around
// it runs to a bound read from a loaded fragment; the plan names the loop's bound and no loader.
TEST_F(GluonLayouts, DataBoundLoopIsRefused) {
  pgpu::KernelOp kernel = parse(kDataBound);
  ASSERT_TRUE(kernel);
  triton::gluon::StreamPlan plan = triton::gluon::StreamPlan::plan(kernel);
  ASSERT_EQ(plan.streams.size(), 1u);
  EXPECT_TRUE(plan.streams[0].transpose);
  ASSERT_TRUE(plan.refusal);
  EXPECT_NE(plan.refusal->find("fragment"), std::string::npos);
  ASSERT_TRUE(plan.refusedAt);
  EXPECT_TRUE(isa<pgpu::LoadOp>(plan.refusedAt)) << plan.refusedAt->getName().getStringRef().str();
  EXPECT_TRUE(plan.loader.empty());
}
} // namespace
