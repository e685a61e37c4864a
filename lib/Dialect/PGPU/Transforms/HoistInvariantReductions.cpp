//===- HoistInvariantReductions.cpp - row statistics computed once --------===//
//
// seed 002 §3.3 (blocking works on loops, not on what construction replays per member). A row
// statistic used inside an elementwise expression of an enclosing reduction (a JSD's log-sum-exp
// inside its per-row sum over the vocabulary: sum_v p(v) * (lp(v) - lm(v)), lp(v) = a[v] - lse(a))
// is realized by construction inside the enclosing element body: the statistic's walk over the row
// runs once per member, O(V^2) a row, and the enclosing reduction is a scalar walk that
// pgpu-form-blocking cannot block (its body holds loops). When the nested reduction does not depend
// on the member it has one value for every member: computing it once before the enclosing reduction,
// with the pure code over it, is the same program (seed 000 §8: the same reductions over the same
// members in the same order; pure code computes the same values), the way a row kernel keeps its
// max and sum. Then the enclosing body is straight-line and one-axis blocking walks it in blocks.
//
// What moves is pgpu::hoistNestedReductions' rule (HoistNestedReductions.cpp, which
// pgpu-form-tiles applies to a contraction's nest): read-only range_reduces and pure ops, never
// loads alone. Added here: the enclosing reduction's bounds must not depend on a read (a CSR row's
// offsets): only then does an empty enclosing range leave the moved reads' coordinates valid.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUHOISTINVARIANTREDUCTIONS
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

namespace {

/// Whether `v` is computed from a memory read (a load, a reduction over reads, ...): its def chain
/// holds an op with memory effects. Block arguments (program coordinates, members) read nothing.
bool readFromMemory(Value v, llvm::SmallPtrSetImpl<Operation *> &seen) {
  Operation *def = v.getDefiningOp();
  if (!def || !seen.insert(def).second)
    return false;
  if (!isMemoryEffectFree(def) || def->getNumRegions())
    return true;
  return llvm::any_of(def->getOperands(), [&](Value o) { return readFromMemory(o, seen); });
}

bool boundsRead(RangeReduceOp r) {
  llvm::SmallPtrSet<Operation *, 16> seen;
  return readFromMemory(r.getLower(), seen) || readFromMemory(r.getUpper(), seen);
}

struct HoistInvariantReductions
    : public tessel::pgpu::impl::PGPUHoistInvariantReductionsBase<HoistInvariantReductions> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool remarks = remarksEnabled(module);
    // Post-order: an inner nest first, so a statistic moved out of it may leave its parent too.
    SmallVector<RangeReduceOp> reductions;
    module.walk([&](RangeReduceOp r) { reductions.push_back(r); });
    for (RangeReduceOp outer : reductions) {
      Block &body = outer.getElement().front();
      if (llvm::none_of(body.without_terminator(), [](Operation &op) { return isa<RangeReduceOp>(op); }))
        continue;
      if (boundsRead(outer)) {
        if (remarks)
          emitRemark(outer.getLoc()) << "pgpu-hoist-invariant-reductions: nested reductions kept per member: "
                                        "the bounds are read from memory (an empty range must read nothing)";
        continue;
      }
      auto moves = hoistNestedReductions(outer);
      if (moves.empty() || !remarks)
        continue;
      unsigned n = llvm::count_if(moves, [](auto &m) { return isa<RangeReduceOp>(m.first); });
      emitRemark(outer.getLoc()) << "pgpu-hoist-invariant-reductions: " << n
                                 << " nested reduction(s) independent of the member computed once before "
                                    "this one (not once per member)";
    }
  }
};

} // namespace
