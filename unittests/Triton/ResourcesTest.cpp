//===- ResourcesTest.cpp - search-space enumeration and resource pruning ---===//
//
// The closed search space is exactly the declared parameter domains; the
// resource model prunes bindings whose contraction staging exceeds the
// target's shared memory or whose accumulators exceed the register budget,
// with a countable reason (issue 8).
//
//===----------------------------------------------------------------------===//

#include "tessel/Target/Triton/Resources.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include <gtest/gtest.h>

#include "KernelFixture.h"

#include <map>

using namespace mlir;
using namespace tessel;

namespace {
// A tiled f16 GEMM as pgpu-form-tiles and legalization leave it (one K loop carrying a
// [TILE_0, TILE_1] f32 accumulator through pgpu.contract).
constexpr const char *kTiledGemm = R"mlir(
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @gemm(%A: !pgpu.view<f16, [M, K], in>, %B: !pgpu.view<f16, [K, N], in>, %C: !pgpu.view<f32, [M, N], out>)
      attributes {params = [#pgpu.param<"TILE_0", [64, 128, 256], 128>, #pgpu.param<"TILE_1", [64, 128, 256], 128>,
                            #pgpu.param<"TILE_K", [32, 64, 128], 64>,
                            #pgpu.param<"WARPS", [4, 8], 8, provider = "triton">,
                            #pgpu.param<"STAGES", [2, 3, 4], 3, provider = "triton">]} {
    %M = pgpu.extent %A[0] : !pgpu.view<f16, [M, K], in>
    %K = pgpu.extent %A[1] : !pgpu.view<f16, [M, K], in>
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      %zh = arith.constant 0.0 : f16
      %t = arith.constant true
      %bk = pgpu.param "TILE_K" : index
      %acc0 = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
      %acc = pgpu.for %c0 to %K step %bk iter_args(%acc0 : !pgpu.fragment<f32, [TILE_0, TILE_1]>) -> !pgpu.fragment<f32, [TILE_0, TILE_1]> {
      ^bb0(%k0: index, %a: !pgpu.fragment<f32, [TILE_0, TILE_1]>):
        %i = pgpu.splat %k0 : index -> !pgpu.fragment<index, [TILE_0, TILE_K]>
        %j = pgpu.splat %k0 : index -> !pgpu.fragment<index, [TILE_K, TILE_1]>
        %lhs = pgpu.load %A[%i, %i] valid %t : i1 fill %zh : f16 : !pgpu.view<f16, [M, K], in>[!pgpu.fragment<index, [TILE_0, TILE_K]>, !pgpu.fragment<index, [TILE_0, TILE_K]>] -> !pgpu.fragment<f16, [TILE_0, TILE_K]>
        %rhs = pgpu.load %B[%j, %j] valid %t : i1 fill %zh : f16 : !pgpu.view<f16, [K, N], in>[!pgpu.fragment<index, [TILE_K, TILE_1]>, !pgpu.fragment<index, [TILE_K, TILE_1]>] -> !pgpu.fragment<f16, [TILE_K, TILE_1]>
        %next = pgpu.contract %lhs, %rhs, %a reduce([1], [0]) batch([], [])
            : !pgpu.fragment<f16, [TILE_0, TILE_K]>, !pgpu.fragment<f16, [TILE_K, TILE_1]>, !pgpu.fragment<f32, [TILE_0, TILE_1]>
            -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
        pgpu.yield %next : !pgpu.fragment<f32, [TILE_0, TILE_1]>
      }
      pgpu.yield
    }
    pgpu.return
  }
}
)mlir";

struct Resources : tessel::testing::KernelFixture {};

TEST_F(Resources, SpaceIsTheProductOfTheDeclaredDomains) {
  pgpu::KernelOp kernel = parse(kTiledGemm);
  ASSERT_TRUE(kernel);
  std::vector<llvm::StringMap<int64_t>> space = triton::enumerateSpace(kernel);
  EXPECT_EQ(space.size(), 3u * 3 * 3 * 2 * 3);
  for (const auto &binding : space)
    EXPECT_EQ(binding.size(), 5u);
}

TEST_F(Resources, EstimatesComeFromTheProgram) {
  pgpu::KernelOp kernel = parse(kTiledGemm);
  ASSERT_TRUE(kernel);
  triton::ResourceModel model = triton::estimateResources(kernel);
  llvm::StringMap<int64_t> p{{"TILE_0", 128}, {"TILE_1", 256}, {"TILE_K", 64}, {"WARPS", 8}, {"STAGES", 3}};
  // Two f16 operand tiles per stage: (128*64 + 64*256) * 2 bytes * 3 stages.
  EXPECT_EQ(model.sharedAt(p), (128 * 64 + 64 * 256) * 2 * 3);
  // A 128x256 f32 accumulator over 256 threads: 128 registers each.
  EXPECT_EQ(model.carriedRegistersAt(p), 128);
  EXPECT_FALSE(model.pruneReason(p));
  p["WARPS"] = 4;
  EXPECT_EQ(model.pruneReason(p), std::optional<std::string>("registers"));
  p = {{"TILE_0", 256}, {"TILE_1", 256}, {"TILE_K", 128}, {"WARPS", 8}, {"STAGES", 4}};
  EXPECT_EQ(model.pruneReason(p), std::optional<std::string>("shared memory"));
  EXPECT_EQ(triton::ResourceModel::pythonMax(model.sharedBytes),
            "2 * p['TILE_0'] * p['TILE_K'] * p['STAGES'] + 2 * p['TILE_K'] * p['TILE_1'] * p['STAGES']");
}

// The K loop of kTiledGemm carrying, beside its accumulator, a per-row f32 vector (a fold's running
// maximum or sum: its rows' statistics).
std::string withRowStatistic() {
  std::string text = kTiledGemm;
  auto replace = [&](const std::string &from, const std::string &to) {
    size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
  };
  replace("%acc = pgpu.for %c0 to %K step %bk iter_args(%acc0 : !pgpu.fragment<f32, [TILE_0, TILE_1]>) -> "
          "!pgpu.fragment<f32, [TILE_0, TILE_1]> {",
          "%row0 = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [TILE_0]>\n"
          "      %acc:2 = pgpu.for %c0 to %K step %bk iter_args(%acc0, %row0 : !pgpu.fragment<f32, [TILE_0, "
          "TILE_1]>, !pgpu.fragment<f32, [TILE_0]>) -> !pgpu.fragment<f32, [TILE_0, TILE_1]>, !pgpu.fragment<f32, "
          "[TILE_0]> {");
  replace("^bb0(%k0: index, %a: !pgpu.fragment<f32, [TILE_0, TILE_1]>):",
          "^bb0(%k0: index, %a: !pgpu.fragment<f32, [TILE_0, TILE_1]>, %r: !pgpu.fragment<f32, [TILE_0]>):");
  replace("pgpu.yield %next : !pgpu.fragment<f32, [TILE_0, TILE_1]>",
          "pgpu.yield %next, %r : !pgpu.fragment<f32, [TILE_0, TILE_1]>, !pgpu.fragment<f32, [TILE_0]>");
  return text;
}

TEST_F(Resources, AnAccumulatorOfHalfTheRegistersKeepsItsRowStatistics) {
  std::string text = withRowStatistic();
  pgpu::KernelOp kernel = parse(text.c_str());
  ASSERT_TRUE(kernel);
  triton::ResourceModel model = triton::estimateResources(kernel);
  // A 64 x 256 f32 accumulator over one warpgroup (FlashAttention's at head size 256) is 128 registers a
  // thread, its [64] statistic half of one more: 129, within the carried state's budget.
  llvm::StringMap<int64_t> p{{"TILE_0", 64}, {"TILE_1", 256}, {"TILE_K", 64}, {"WARPS", 4}, {"STAGES", 3}};
  EXPECT_EQ(model.carriedRegistersAt(p), 129);
  EXPECT_FALSE(model.pruneReason(p));
  // Must not admit more: 128 rows over the same warpgroup carry 257.
  p["TILE_0"] = 128;
  EXPECT_EQ(model.pruneReason(p), std::optional<std::string>("registers"));
}

// An attention-shaped program as the fold passes leave it: a query block loaded once, then a loop
// over full key blocks and a second loop that continues its carries over the partial block, each
// staging a loaded key tile STAGES deep beside the query tile (one copy) and the probability tile
// computed in the body (one copy). The loops run one after another: their buffers and carries are
// the same, so the estimate is one loop's, not the sum (the tuner pruned every attention binding
// but the default when the loops were summed).
constexpr const char *kTwoLoops = R"mlir(
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @fold(%Q: !pgpu.view<f16, [S, D], in>, %K: !pgpu.view<f16, [T, D], in>)
      attributes {params = [#pgpu.param<"BLOCK_S", [64, 128], 64>, #pgpu.param<"BLOCK_T", [32, 64, 128], 64>,
                            #pgpu.param<"WARPS", [4, 8], 4, provider = "triton">,
                            #pgpu.param<"STAGES", [2, 3, 4], 3, provider = "triton">]} {
    %T = pgpu.extent %K[0] : !pgpu.view<f16, [T, D], in>
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      %zh = arith.constant 0.0 : f16
      %t = arith.constant true
      %bt = pgpu.param "BLOCK_T" : index
      %qi = pgpu.splat %c0 : index -> !pgpu.fragment<index, [BLOCK_S, 128]>
      %q = pgpu.load %Q[%qi, %qi] valid %t : i1 fill %zh : f16 : !pgpu.view<f16, [S, D], in>[!pgpu.fragment<index, [BLOCK_S, 128]>, !pgpu.fragment<index, [BLOCK_S, 128]>] -> !pgpu.fragment<f16, [BLOCK_S, 128]>
      %acc0 = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [BLOCK_S, 128]>
      %full = pgpu.for %c0 to %T step %bt iter_args(%acc0 : !pgpu.fragment<f32, [BLOCK_S, 128]>) -> !pgpu.fragment<f32, [BLOCK_S, 128]> {
      ^bb0(%k0: index, %a: !pgpu.fragment<f32, [BLOCK_S, 128]>):
        %ki = pgpu.splat %k0 : index -> !pgpu.fragment<index, [128, BLOCK_T]>
        %kt = pgpu.load %K[%ki, %ki] valid %t : i1 fill %zh : f16 : !pgpu.view<f16, [T, D], in>[!pgpu.fragment<index, [128, BLOCK_T]>, !pgpu.fragment<index, [128, BLOCK_T]>] -> !pgpu.fragment<f16, [128, BLOCK_T]>
        %s0 = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [BLOCK_S, BLOCK_T]>
        %s = pgpu.contract %q, %kt, %s0 reduce([1], [0]) batch([], [])
            : !pgpu.fragment<f16, [BLOCK_S, 128]>, !pgpu.fragment<f16, [128, BLOCK_T]>, !pgpu.fragment<f32, [BLOCK_S, BLOCK_T]>
            -> !pgpu.fragment<f32, [BLOCK_S, BLOCK_T]>
        %pr = pgpu.splat %zh : f16 -> !pgpu.fragment<f16, [BLOCK_S, BLOCK_T]>
        %vi = pgpu.splat %k0 : index -> !pgpu.fragment<index, [BLOCK_T, 128]>
        %v = pgpu.load %K[%vi, %vi] valid %t : i1 fill %zh : f16 : !pgpu.view<f16, [T, D], in>[!pgpu.fragment<index, [BLOCK_T, 128]>, !pgpu.fragment<index, [BLOCK_T, 128]>] -> !pgpu.fragment<f16, [BLOCK_T, 128]>
        %next = pgpu.contract %pr, %v, %a reduce([1], [0]) batch([], [])
            : !pgpu.fragment<f16, [BLOCK_S, BLOCK_T]>, !pgpu.fragment<f16, [BLOCK_T, 128]>, !pgpu.fragment<f32, [BLOCK_S, 128]>
            -> !pgpu.fragment<f32, [BLOCK_S, 128]>
        pgpu.yield %next : !pgpu.fragment<f32, [BLOCK_S, 128]>
      }
      %rest = pgpu.for %c0 to %T step %bt iter_args(%full : !pgpu.fragment<f32, [BLOCK_S, 128]>) -> !pgpu.fragment<f32, [BLOCK_S, 128]> {
      ^bb0(%k0: index, %a: !pgpu.fragment<f32, [BLOCK_S, 128]>):
        %ki = pgpu.splat %k0 : index -> !pgpu.fragment<index, [128, BLOCK_T]>
        %kt = pgpu.load %K[%ki, %ki] valid %t : i1 fill %zh : f16 : !pgpu.view<f16, [T, D], in>[!pgpu.fragment<index, [128, BLOCK_T]>, !pgpu.fragment<index, [128, BLOCK_T]>] -> !pgpu.fragment<f16, [128, BLOCK_T]>
        %s0 = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [BLOCK_S, BLOCK_T]>
        %s = pgpu.contract %q, %kt, %s0 reduce([1], [0]) batch([], [])
            : !pgpu.fragment<f16, [BLOCK_S, 128]>, !pgpu.fragment<f16, [128, BLOCK_T]>, !pgpu.fragment<f32, [BLOCK_S, BLOCK_T]>
            -> !pgpu.fragment<f32, [BLOCK_S, BLOCK_T]>
        %pr = pgpu.splat %zh : f16 -> !pgpu.fragment<f16, [BLOCK_S, BLOCK_T]>
        %vi = pgpu.splat %k0 : index -> !pgpu.fragment<index, [BLOCK_T, 128]>
        %v = pgpu.load %K[%vi, %vi] valid %t : i1 fill %zh : f16 : !pgpu.view<f16, [T, D], in>[!pgpu.fragment<index, [BLOCK_T, 128]>, !pgpu.fragment<index, [BLOCK_T, 128]>] -> !pgpu.fragment<f16, [BLOCK_T, 128]>
        %next = pgpu.contract %pr, %v, %a reduce([1], [0]) batch([], [])
            : !pgpu.fragment<f16, [BLOCK_S, BLOCK_T]>, !pgpu.fragment<f16, [BLOCK_T, 128]>, !pgpu.fragment<f32, [BLOCK_S, 128]>
            -> !pgpu.fragment<f32, [BLOCK_S, 128]>
        pgpu.yield %next : !pgpu.fragment<f32, [BLOCK_S, 128]>
      }
      pgpu.yield
    }
    pgpu.return
  }
}
)mlir";

TEST_F(Resources, LoopsThatRunInTurnShareTheirBuffers) {
  pgpu::KernelOp kernel = parse(kTwoLoops);
  ASSERT_TRUE(kernel);
  triton::ResourceModel model = triton::estimateResources(kernel);
  llvm::StringMap<int64_t> p{{"BLOCK_S", 128}, {"BLOCK_T", 64}, {"WARPS", 8}, {"STAGES", 3}};
  // One loop: the query tile and the probability tile once, the key and value tiles 3 deep.
  int64_t one = 128 * 128 * 2 + 128 * 64 * 2 + 3 * (128 * 64 * 2) * 2;
  EXPECT_EQ(model.sharedAt(p), one);
  ASSERT_EQ(model.sharedBytes.size(), 1u); // the two loops' polynomials are the same, kept once
  // The accumulator once: 128x128 f32 over 256 threads.
  EXPECT_EQ(model.carriedRegistersAt(p), 64);
  EXPECT_FALSE(model.pruneReason(p));
  EXPECT_TRUE(model.loopsFitAt(p));
  // A deeper pipeline of larger key tiles exceeds the shared memory in either loop alone.
  p = {{"BLOCK_S", 128}, {"BLOCK_T", 128}, {"WARPS", 8}, {"STAGES", 4}};
  EXPECT_EQ(model.pruneReason(p), std::optional<std::string>("shared memory"));
}

TEST_F(Resources, PruningCountsEveryReason) {
  pgpu::KernelOp kernel = parse(kTiledGemm);
  ASSERT_TRUE(kernel);
  triton::ResourceModel model = triton::estimateResources(kernel);
  std::map<std::string, int> counted, expected;
  for (const auto &p : triton::enumerateSpace(kernel)) {
    if (auto why = model.pruneReason(p))
      ++counted[*why];
    // The same limits, restated: staging first, then accumulator registers per thread.
    int64_t shared = (p.lookup("TILE_0") + p.lookup("TILE_1")) * p.lookup("TILE_K") * 2 * p.lookup("STAGES");
    // (the largest fragment counts too: here the loads' index tiles, 4 bytes a lane, can exceed the
    // accumulator)
    int64_t registers = std::max({p.lookup("TILE_0") * p.lookup("TILE_1"), p.lookup("TILE_0") * p.lookup("TILE_K"),
                                  p.lookup("TILE_K") * p.lookup("TILE_1")}) /
                        (32 * p.lookup("WARPS"));
    if (shared > 232448)
      ++expected["shared memory"];
    else if (registers > 128)
      ++expected["registers"];
  }
  EXPECT_EQ(counted, expected);
  EXPECT_GT(counted["shared memory"], 0);
  EXPECT_GT(counted["registers"], 0);
}

TEST_F(Resources, APointerStoredAccumulatorIsConvertedThroughSharedMemory) {
  // The tiled GEMM, storing its accumulator with a pointer store (splat coordinates: no box, so no
  // descriptor stages it): Triton converts the tile out of the wgmma layout through shared memory
  // after the k loop (its scratch overlaps no stage), so the program needs the larger of the two.
  std::string text = kTiledGemm;
  std::string yield = "      pgpu.yield\n    }\n    pgpu.return";
  size_t at = text.find(yield);
  ASSERT_NE(at, std::string::npos);
  text.insert(at, "      %ci = pgpu.splat %c0 : index -> !pgpu.fragment<index, [TILE_0, TILE_1]>\n"
                  "      pgpu.store %acc, %C[%ci, %ci] valid %t : i1 : !pgpu.fragment<f32, [TILE_0, TILE_1]>, "
                  "!pgpu.view<f32, [M, N], out>[!pgpu.fragment<index, [TILE_0, TILE_1]>, "
                  "!pgpu.fragment<index, [TILE_0, TILE_1]>]\n");
  pgpu::KernelOp kernel = parse(text.c_str());
  ASSERT_TRUE(kernel);
  triton::ResourceModel model = triton::estimateResources(kernel);
  EXPECT_FALSE(model.stagesStores);
  llvm::StringMap<int64_t> p{{"TILE_0", 128}, {"TILE_1", 256}, {"TILE_K", 64}, {"WARPS", 8}, {"STAGES", 3}};
  EXPECT_EQ(model.sharedAt(p), (128 * 64 + 64 * 256) * 2 * 3); // the stages are the larger
  p["STAGES"] = 2;
  EXPECT_EQ(model.sharedAt(p), 128 * 256 * 4); // the conversion is (sm_90, Triton 3.6: 131072 B)
  EXPECT_EQ(model.sharedNeededAt(p), model.sharedAt(p));
  EXPECT_EQ(triton::ResourceModel::pythonMax(model.sharedBytes),
            "max(2 * p['TILE_0'] * p['TILE_K'] * p['STAGES'] + 2 * p['TILE_K'] * p['TILE_1'] * p['STAGES'], "
            "4 * p['TILE_0'] * p['TILE_1'])");
  EXPECT_EQ(model.pythonSharedNeeded(), triton::ResourceModel::pythonMax(model.sharedBytes));
}

// The tiled GEMM with f32 operands at IEEE precision: tl.dot's FMA path, whose lowering holds the
// operand rows and columns of each thread's accumulator elements in registers. The model counts both
// operand tiles and the accumulator spread over the threads (a lower bound of what the threads hold),
// so a binding whose f16 form fits the register budget is pruned in f32; the f16 form counts nothing.
TEST_F(Resources, FmaContractionsHoldTheirOperandTiles) {
  std::string text = kTiledGemm;
  for (size_t at = text.find("f16"); at != std::string::npos; at = text.find("f16", at))
    text.replace(at, 3, "f32");
  pgpu::KernelOp fma = parse(text.c_str());
  ASSERT_TRUE(fma);
  triton::ResourceModel model = triton::estimateResources(fma);
  ASSERT_EQ(model.fmaContractBytes.size(), 1u);
  llvm::StringMap<int64_t> p{{"TILE_0", 64}, {"TILE_1", 64}, {"TILE_K", 32}, {"WARPS", 4}, {"STAGES", 3}};
  // (64x32 + 32x64 + 64x64) f32 over 128 threads.
  EXPECT_EQ(model.fmaRegistersAt(p), (64 * 32 + 32 * 64 + 64 * 64) / 128);
  EXPECT_FALSE(model.pruneReason(p));
  // 128x128 with K 64 at 4 warps: the accumulator alone takes 128 registers a thread (within the
  // budget), the operand tiles 128 more.
  p = {{"TILE_0", 128}, {"TILE_1", 128}, {"TILE_K", 64}, {"WARPS", 4}, {"STAGES", 3}};
  EXPECT_EQ(model.carriedRegistersAt(p), 128);
  EXPECT_EQ(model.fmaRegistersAt(p), 256);
  EXPECT_EQ(model.pruneReason(p), std::optional<std::string>("registers"));
  pgpu::KernelOp tensorCore = parse(kTiledGemm);
  ASSERT_TRUE(tensorCore);
  triton::ResourceModel f16 = triton::estimateResources(tensorCore);
  EXPECT_TRUE(f16.fmaContractBytes.empty());
  EXPECT_EQ(f16.fmaRegistersAt(p), 0);
  EXPECT_FALSE(f16.pruneReason(p));
}

/// A lanewise walk (no carry, no cross-lane step) over [0, T) in blocks of BLOCK whose iteration loads
/// `loads` f32 blocks of one view and stores their sum.
std::string lanewiseWalk(int loads) {
  std::string body;
  for (int i = 0; i < loads; ++i)
    body += "        %l" + std::to_string(i) +
            " = pgpu.load %X[%i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [T], in>[!pgpu.fragment<index, "
            "[BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>\n";
  std::string sum = "%l0";
  for (int i = 1; i < loads; ++i) {
    body += "        %s" + std::to_string(i) + " = pgpu.binary add " + sum + ", %l" + std::to_string(i) +
            " : !pgpu.fragment<f32, [BLOCK]>\n";
    sum = "%s" + std::to_string(i);
  }
  return R"mlir(
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @walk(%X: !pgpu.view<f32, [T], in>, %Y: !pgpu.view<f32, [T], out>)
      attributes {params = [#pgpu.param<"BLOCK", [1024, 2048, 4096, 8192, 16384], 1024>,
                            #pgpu.param<"WARPS", [1, 2, 4, 8, 16], 4, provider = "triton">]} {
    %T = pgpu.extent %X[0] : !pgpu.view<f32, [T], in>
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      %t = arith.constant true
      %b = pgpu.param "BLOCK" : index
      pgpu.for %c0 to %T step %b {
      ^bb0(%k: index):
        %i = pgpu.iota %k : !pgpu.fragment<index, [BLOCK]>
)mlir" + body + "        pgpu.store " + sum + R"mlir(, %Y[%i] valid %t : i1 : !pgpu.fragment<f32, [BLOCK]>, !pgpu.view<f32, [T], out>[!pgpu.fragment<index, [BLOCK]>]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}
)mlir";
}

// A lanewise walk's loads of one iteration are issued before the math that reads them, so they are
// live together: a walk loading more than 16 bytes a lane (the warps rule's 32 elements a thread then
// exceed 128 registers) is pruned where they do not fit, one loading 16 is left to the other limits.
TEST_F(Resources, ALanewiseWalkHoldsItsIterationsLoads) {
  pgpu::KernelOp five = parse(lanewiseWalk(5).c_str());
  ASSERT_TRUE(five);
  triton::ResourceModel model = triton::estimateResources(five);
  ASSERT_TRUE(model.lanewise);
  ASSERT_EQ(model.inFlightLoadBytes.size(), 1u);
  EXPECT_EQ(triton::ResourceModel::python(model.inFlightLoadBytes.front()), "20 * p['BLOCK']");
  // 16384 lanes at 16 warps: 32 a thread, 160 registers of loads; 2048 at 4 warps: 80.
  llvm::StringMap<int64_t> p{{"BLOCK", 16384}, {"WARPS", 16}};
  EXPECT_EQ(model.inFlightRegistersAt(p), 160);
  EXPECT_EQ(model.largestRegistersAt(p), 32);
  EXPECT_EQ(model.pruneReason(p), std::optional<std::string>("registers"));
  p = {{"BLOCK", 2048}, {"WARPS", 4}};
  EXPECT_EQ(model.inFlightRegistersAt(p), 80);
  EXPECT_FALSE(model.pruneReason(p));
  pgpu::KernelOp four = parse(lanewiseWalk(4).c_str());
  ASSERT_TRUE(four);
  triton::ResourceModel fewer = triton::estimateResources(four);
  EXPECT_TRUE(fewer.inFlightLoadBytes.empty());
  EXPECT_FALSE(fewer.pruneReason({{"BLOCK", 16384}, {"WARPS", 16}}));
}
} // namespace

TEST(ResourcePolynomials, DominanceReadsTheTermsAndRespectsNegativeOnes) {
  using triton::Monomial;
  using triton::ResourceModel;
  Monomial staged{2, {"BLOCK", "STAGES"}}, once{2, {"BLOCK"}}, fewer{-2, {"BLOCK"}}, other{4, {"TILE"}};
  // A polynomial dominates itself and any of its sub-sums of positive terms.
  EXPECT_TRUE(ResourceModel::dominates({staged, other}, {staged, other}));
  EXPECT_TRUE(ResourceModel::dominates({staged, other}, {staged}));
  EXPECT_FALSE(ResourceModel::dominates({staged}, {staged, other}));
  // A term used twice in `a` needs two in `b`.
  EXPECT_FALSE(ResourceModel::dominates({staged, other}, {staged, staged}));
  // A computed operand STAGES - 1 deep: 2*BLOCK*STAGES - 2*BLOCK. It does not dominate the operand
  // held once (2*BLOCK) -- at STAGES 1 it is 0 -- and a polynomial holding the negative term without
  // its positive partner in `a` is not known to be larger: `b`'s unmatched negative term refuses.
  EXPECT_FALSE(ResourceModel::dominates({staged, fewer}, {once}));
  EXPECT_FALSE(ResourceModel::dominates({staged, fewer, other}, {staged}));
  // With the negative term matched in `a`, the rest of `b` is positive: dominated.
  EXPECT_TRUE(ResourceModel::dominates({staged, fewer, other}, {staged, fewer}));
  // Checked against evaluation at a few bindings: wherever dominance is claimed, b >= a.
  std::vector<std::vector<Monomial>> polys = {{staged}, {once}, {staged, fewer}, {staged, fewer, other},
                                              {other}, {staged, other}, {once, other}};
  for (const auto &b : polys)
    for (const auto &a : polys)
      if (ResourceModel::dominates(b, a))
        for (int64_t stages : {1, 2, 4})
          for (int64_t block : {16, 128}) {
            llvm::StringMap<int64_t> p{{"BLOCK", block}, {"STAGES", stages}, {"TILE", 64}};
            EXPECT_GE(ResourceModel::evaluate(b, p), ResourceModel::evaluate(a, p));
          }
}
