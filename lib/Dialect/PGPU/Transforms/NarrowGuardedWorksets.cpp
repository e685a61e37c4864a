//===- NarrowGuardedWorksets.cpp - a guarded workset walks only its guarded rows ===//
//
// seed 002 §3.5 (an all-false interval may be removed from the physical loop
// when its members have no effect; the rewrite changes the actual loop
// bounds), seed 000 §8 (effective source ranges), §5 (physical loops may use
// runtime bounds). Construction spells a store over a data-dependent
// subregion of a launch-time domain (the ragged grouped GEMM's zero tail
// rows[end:M]) as a workset over the whole domain, each member storing only
// inside the subregion:
//
//   pgpu.foreach %c0 to E0 * S {
//     %i0, ... = pgpu.delinearize %iv by(E0, E1, ...)    (S = E1 * ...)
//     A = ..., B = ...          (computed without %iv: e.g. max(OFFS) read)
//     pgpu.if (... && %i0 >= A && %i0 < B && ...) { effects }
//   }
//
// Members outside A <= i0 < B have no effect, and i0 = iv div S is
// non-decreasing in iv, so those members are exactly iv outside
// [clamp(A) * S, clamp(B) * S): the loop walks that interval only (A and B
// computed once before it, clamped to [0, E0]). The guard stays (still true
// on every walked member). When the reads computing A and B are of views no
// program writes (`in` views), the members' own copies are the same values
// and are replaced by the hoisted ones, so no member recomputes them.
//
// Must not fire: bounds that depend on the member (or on anything written in
// the loop), a guard that does not bound the leading coordinate from both
// sides, effects outside the guard, a workset whose extent is not the
// delinearized domain (a wrapped leading coordinate).
//
//===----------------------------------------------------------------------===//

#include "TileBodies.h"
#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUNARROWGUARDEDWORKSETS
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

namespace {
/// Reads, pure code and read-only reductions: what a member may compute outside its guard.
bool readsOnly(Operation *op) {
  WalkResult r = op->walk([](Operation *inner) {
    if (isMemoryEffectFree(inner) || isa<LoadOp, GatherOp, BufferLoadOp, RangeReduceOp, YieldOp>(inner))
      return WalkResult::advance();
    return WalkResult::interrupt();
  });
  return !r.wasInterrupted();
}

/// Whether `v` (used inside `op`) is defined inside `op`: by an op nested in it, or as an argument of
/// one of its blocks.
bool definedInside(Value v, Operation *op) {
  if (Operation *d = v.getDefiningOp())
    return d != op && op->isAncestor(d);
  return op->isAncestor(cast<BlockArgument>(v).getOwner()->getParentOp());
}

/// Values of one foreach body computed without its member: defined outside it, or by reading code
/// in its body whose every input (operands, values its regions capture) is such a value.
class Invariance {
public:
  explicit Invariance(ForeachOp each) : each(each) {}
  bool invariant(Value v) {
    Operation *def = v.getDefiningOp();
    if (!def)
      return !each->isAncestor(cast<BlockArgument>(v).getOwner()->getParentOp());
    if (!each->isAncestor(def))
      return true;
    auto it = known.find(v);
    if (it != known.end())
      return it->second;
    known[v] = false; // cycles (none in SSA bodies) stay variant
    bool ok = def->getBlock() == &each.getBody().front() && readsOnly(def);
    if (ok)
      def->walk([&](Operation *inner) {
        for (Value operand : inner->getOperands())
          if (!definedInside(operand, def) && !invariant(operand))
            ok = false;
      });
    return known[v] = ok;
  }
  /// Whether every read in `v`'s in-body def chain is of a view no program writes.
  bool readsInputsOnly(Value v) {
    Operation *def = v.getDefiningOp();
    if (!def || !each->isAncestor(def))
      return true;
    bool ok = true;
    def->walk([&](Operation *inner) {
      if (isa<BufferLoadOp>(inner))
        ok = false;
      if (isa<LoadOp, GatherOp>(inner)) {
        auto view = dyn_cast<ViewType>(inner->getOperand(0).getType());
        ok &= view && !view.isWritable();
      }
      for (Value operand : inner->getOperands())
        if (!definedInside(operand, def))
          ok &= readsInputsOnly(operand);
    });
    return ok;
  }
  /// `v` computed before the foreach (its in-body def chain cloned there, in order).
  Value hoist(OpBuilder &b, Value v, IRMapping &map) {
    if (map.contains(v))
      return map.lookup(v);
    Operation *def = v.getDefiningOp();
    if (!def || !each->isAncestor(def))
      return v;
    def->walk([&](Operation *inner) {
      for (Value operand : inner->getOperands())
        if (!definedInside(operand, def))
          hoist(b, operand, map);
    });
    Operation *copy = b.clone(*def, map);
    return copy->getResult(cast<OpResult>(v).getResultNumber());
  }

private:
  ForeachOp each;
  DenseMap<Value, bool> known;
};

/// The leaves of a conjunction (`binary and` of i1 scalars).
void conjuncts(Value v, SmallVectorImpl<Value> &out) {
  auto a = v.getDefiningOp<BinaryOp>();
  if (a && a.getKind() == kir::BinaryKind::And && a.getType().isInteger(1)) {
    conjuncts(a.getLhs(), out);
    conjuncts(a.getRhs(), out);
    return;
  }
  out.push_back(v);
}

struct Guarded {
  DelinearizeOp decode;
  IfOp guard;
  Value lower, upper; // A <= i0 < B
};

/// The foreach's guarded form, or failure with the reason.
FailureOr<Guarded> match(ForeachOp each, Invariance &inv, std::string &why) {
  Block &body = each.getBody().front();
  Guarded g;
  bool effectsOutside = false;
  for (Operation &op : body.without_terminator()) {
    if (auto d = dyn_cast<DelinearizeOp>(op); d && d.getLinear() == body.getArgument(0) && !g.decode) {
      g.decode = d;
      continue;
    }
    if (auto f = dyn_cast<IfOp>(op); f && &op == body.getTerminator()->getPrevNode() && f.getNumResults() == 0 &&
                                       f.getElseRegion().empty()) {
      g.guard = f;
      continue;
    }
    effectsOutside |= !readsOnly(&op);
  }
  if (!g.decode || !g.guard)
    return failure(); // not this form at all: nothing to say
  if (effectsOutside) {
    why = "a member has effects outside its guard";
    return failure();
  }
  if (!isZeroConstant(each.getLower()) || !isProductOf(each.getUpper(), llvm::to_vector(g.decode.getExtents()))) {
    why = "the workset is not exactly the delinearized domain (its leading coordinate could wrap)";
    return failure();
  }
  Value lead = g.decode.getResult(0);
  SmallVector<Value> leaves;
  conjuncts(g.guard.getCondition(), leaves);
  for (Value leaf : leaves) {
    auto cmp = leaf.getDefiningOp<CmpOp>();
    if (!cmp || !cmp.getLhs().getType().isIndex())
      continue;
    bool left = cmp.getLhs() == lead, right = cmp.getRhs() == lead;
    if (left == right)
      continue;
    Value other = left ? cmp.getRhs() : cmp.getLhs();
    if (!inv.invariant(other))
      continue;
    kir::CmpPredicate p = cmp.getPredicate();
    if ((left && p == kir::CmpPredicate::GE) || (right && p == kir::CmpPredicate::LE))
      g.lower = other;
    else if ((left && p == kir::CmpPredicate::LT) || (right && p == kir::CmpPredicate::GT))
      g.upper = other;
  }
  if (!g.lower || !g.upper) {
    why = "the guard does not bound the leading coordinate from both sides by values computed without the member";
    return failure();
  }
  return g;
}

void narrow(ForeachOp each, Guarded &g, Invariance &inv) {
  Location loc = each.getLoc();
  OpBuilder b(each);
  auto bin = [&](kir::BinaryKind kind, Value x, Value y) -> Value {
    return BinaryOp::create(b, loc, kind, x, y, false, false);
  };
  IRMapping map;
  Value lo = inv.hoist(b, g.lower, map), hi = inv.hoist(b, g.upper, map);
  bool reuse = inv.readsInputsOnly(g.lower) && inv.readsInputsOnly(g.upper);
  auto extents = g.decode.getExtents();
  Value e0 = extents[0];
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value first = bin(kir::BinaryKind::Min, bin(kir::BinaryKind::Max, lo, zero), e0);
  Value end = bin(kir::BinaryKind::Max, bin(kir::BinaryKind::Min, hi, e0), first);
  for (Value s : extents.drop_front()) {
    first = bin(kir::BinaryKind::Mul, first, s);
    end = bin(kir::BinaryKind::Mul, end, s);
  }
  each->setOperand(0, first);
  each->setOperand(1, end);
  if (!reuse)
    return;
  SmallVector<std::pair<Value, Value>> pairs;
  for (auto &[original, hoisted] : map.getValueMap())
    pairs.push_back({original, hoisted});
  for (auto [original, hoisted] : pairs)
    if (Operation *def = original.getDefiningOp(); def && def->getBlock() == &each.getBody().front())
      original.replaceAllUsesWith(hoisted);
  // The members' copies are dead now (reads only).
  Block &body = each.getBody().front();
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);
  for (Operation *op : llvm::reverse(ops))
    if (isOpTriviallyDead(op))
      op->erase();
}

struct NarrowGuardedWorksets : public tessel::pgpu::impl::PGPUNarrowGuardedWorksetsBase<NarrowGuardedWorksets> {
  void runOnOperation() override {
    SmallVector<ForeachOp> worksets;
    getOperation().walk([&](ForeachOp each) { worksets.push_back(each); });
    for (ForeachOp each : worksets) {
      Invariance inv(each);
      std::string why;
      FailureOr<Guarded> g = match(each, inv, why);
      bool remarks = remarksEnabled(each);
      if (failed(g)) {
        if (remarks && !why.empty())
          each.emitRemark() << "pgpu-narrow-guarded-worksets: not narrowed: " << why;
        continue;
      }
      narrow(each, *g, inv);
      if (remarks)
        each.emitRemark() << "pgpu-narrow-guarded-worksets: the workset walks only the members its guard "
                             "admits (leading coordinate bounds computed once before it)";
    }
  }
};
} // namespace
