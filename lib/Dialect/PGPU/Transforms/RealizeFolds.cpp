//===- RealizeFolds.cpp - region folds become their ordered loops -----------===//
//
// seed 002 §3.4: "region-fold realization creates actual fragments, loops,
// carries and accumulator graphs". After blocking and range narrowing, each
// pgpu.region_fold becomes the pgpu.for over its segments: the summary is the
// loop's carries (from the identities), summarize is inlined on
// [b, min(b + step, upper)) and combine folds it into the carries, in source
// order. Later shared rewrites (contraction epilogues, summary emptiness) see
// the summarizer and the combine in one block.
//
// Each pgpu.region_scan likewise becomes the pgpu.for over its segments with
// the state as the loop's carries (from the inits): emit from the state
// before the segment, the transition from summarize, apply. The segment's
// accesses that emit and summarize both make are merged (CSE of the loop).
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/CSE.h"

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUREALIZEFOLDS
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

namespace {
struct RealizeFolds : public tessel::pgpu::impl::PGPURealizeFoldsBase<RealizeFolds> {
  void runOnOperation() override {
    // Innermost first, so a fold nested in a summarizer is realized before its parent.
    SmallVector<RegionFoldOp> folds;
    getOperation().walk<WalkOrder::PostOrder>([&](RegionFoldOp op) { folds.push_back(op); });
    for (RegionFoldOp op : folds) {
      bool remarks = remarksEnabled(op);
      Location loc = op.getLoc();
      expandRegionFold(op);
      if (remarks)
        emitRemark(loc) << "pgpu-realize-folds: the region fold is its ordered loop over segments, the summary "
                           "carried";
    }
    SmallVector<RegionScanOp> scans;
    getOperation().walk<WalkOrder::PostOrder>([&](RegionScanOp op) { scans.push_back(op); });
    for (RegionScanOp op : scans) {
      bool remarks = remarksEnabled(op);
      Location loc = op.getLoc();
      ForOp loop = expandRegionScan(op);
      IRRewriter rewriter(loop.getContext());
      DominanceInfo dominance(loop);
      eliminateCommonSubExpressions(rewriter, dominance, loop);
      if (remarks)
        emitRemark(loc) << "pgpu-realize-folds: the region scan is its ordered loop over segments, the state "
                           "carried";
    }
  }
};
} // namespace
