//===- NarrowPredicates.cpp - drop lane masks where they are all true -----===//
//
// seed 002 §3.5 and seed 000 §8 (effective source ranges): a blocked loop
//
//   pgpu.for %k = %lo to %hi step %S { ... iota(%k) : [S] < splat(%hi) ... }
//
// masks its lanes against the loop's own bound, but the mask is all true on
// every iteration with %k + S <= %hi, which are exactly the first
// floor((hi - lo) / S) iterations. The pass splits the loop at
// %mid = lo + floor((hi - lo) / S) * S into the all-true interval [lo, mid),
// whose copy of the body has those masks replaced by true (and folded out of
// the `and`s and `select`s they fed), and the mixed interval [mid, hi), the
// original body, which runs at most once. Carries flow from the first loop into
// the second. Both intervals' loops, accesses and validity are rewritten SSA;
// the proof (lane k + i < k + S <= hi) is recomputed from the loop's own
// bounds, step and the mask's def-use, never recorded.
//
// Fires on a pgpu.for whose step is the extent of the lane iota (the same
// declared parameter, or the same constant) and whose body compares that iota
// with a splat of the loop's own upper bound. Must not fire on other masks
// (another bound, another base), on loops whose step is not the lane count,
// or on a loop over a view's extent that carries a pgpu.contract's sum (a GEMM's
// k loop over all of K is left whole to the provider's software pipeliner and
// its bounds-checked box loads; the GEMM measurements are for that form). A
// loop whose product tiles are fresh each iteration (a row's store walk over
// the keys of a softmax of Q K^T, each key tile's scores recomputed and written:
// corpus 58) is split like any other: its full blocks' stores then carry only
// the row mask, which a provider writes as whole vectors. A
// contraction's loop over a sub-range (split-K's chunk [lo, hi) of K: the mask
// is `k < hi - lo`, no view's bound) is split: its full blocks' accesses then
// need no mask at all, which is what lets a provider spell them as box loads
// over the whole view.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUNARROWPREDICATES
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

namespace {
/// The lane count of a 1-d fragment type equals the loop step: the same parameter or constant.
bool stepIsLaneCount(ForOp loop, FragmentType lanes) {
  if (lanes.getRank() != 1)
    return false;
  Attribute extent = lanes.getExtents()[0];
  if (auto param = loop.getStep().getDefiningOp<ParamOp>())
    return isa<StringAttr>(extent) && cast<StringAttr>(extent).getValue() == param.getName();
  APInt step;
  return matchPattern(loop.getStep(), m_ConstantInt(&step)) && isa<IntegerAttr>(extent) &&
         cast<IntegerAttr>(extent).getInt() == step.getSExtValue();
}

/// The lane masks of `loop` that are all true on every iteration of its full blocks:
/// `iota(iv) < splat(hi)` with the iota as wide as the step.
SmallVector<CmpOp> fullBlockMasks(ForOp loop) {
  SmallVector<CmpOp> masks;
  Value iv = loop.getBody().front().getArgument(0);
  loop.getBody().walk([&](CmpOp cmp) {
    if (cmp.getPredicate() != kir::CmpPredicate::LT)
      return;
    auto iota = cmp.getLhs().getDefiningOp<IotaOp>();
    auto bound = cmp.getRhs().getDefiningOp<SplatOp>();
    if (iota && bound && iota.getBase() == iv && bound.getOperand() == loop.getUpper() &&
        stepIsLaneCount(loop, cast<FragmentType>(iota.getType())))
      masks.push_back(cmp);
  });
  return masks;
}

/// `v` is a view's extent, through the `ceil_div 1` / `max 0` / `sub 0` wrappers construction
/// puts around domain sizes.
bool isViewExtent(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (isa<ExtentOp>(def))
      return true;
    if (auto c = dyn_cast<CeilDivOp>(def); c && matchPattern(c.getRhs(), m_One())) {
      v = c.getLhs();
      continue;
    }
    auto b = dyn_cast<BinaryOp>(def);
    if (b && (b.getKind() == kir::BinaryKind::Max || b.getKind() == kir::BinaryKind::Sub) &&
        matchPattern(b.getRhs(), m_Zero())) {
      v = b.getLhs();
      continue;
    }
    return false;
  }
  return false;
}

/// Whether `loop` carries a contraction's sum across its iterations (a GEMM's k loop): a value it
/// yields is computed in its body from a pgpu.contract (or from an op holding one).
bool carriesContraction(ForOp loop) {
  SmallVector<Value> work(loop.getBody().front().getTerminator()->getOperands());
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!work.empty()) {
    Operation *def = work.pop_back_val().getDefiningOp();
    if (!def || !loop->isProperAncestor(def) || !seen.insert(def).second)
      continue;
    if (def->walk([](ContractOp) { return WalkResult::interrupt(); }).wasInterrupted())
      return true;
    llvm::append_range(work, def->getOperands());
  }
  return false;
}

/// Splits `loop` into its full blocks (masks true) and the remaining partial block.
void split(ForOp loop, ArrayRef<CmpOp> masks) {
  Location loc = loop.getLoc();
  OpBuilder b(loop);
  auto bin = [&](kir::BinaryKind kind, Value x, Value y) -> Value {
    return BinaryOp::create(b, loc, kind, x, y, false, false);
  };
  Value lo = loop.getLower(), hi = loop.getUpper(), step = loop.getStep();
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value span = bin(kir::BinaryKind::Max, bin(kir::BinaryKind::Sub, hi, lo), zero);
  Value mid = bin(kir::BinaryKind::Add, lo, bin(kir::BinaryKind::Mul, bin(kir::BinaryKind::Div, span, step), step));
  // The full blocks: a clone over [lo, mid) whose matched masks are true.
  IRMapping map;
  auto full = cast<ForOp>(b.clone(*loop.getOperation(), map));
  full->setOperand(1, mid); // upper
  for (CmpOp mask : masks) {
    auto cloned = cast<CmpOp>(map.lookup(mask.getOperation()));
    OpBuilder at(cloned);
    Value truth = arith::ConstantIntOp::create(at, loc, at.getI1Type(), 1);
    Value lanes = SplatOp::create(at, loc, cloned.getType(), truth);
    cloned.getResult().replaceAllUsesWith(lanes);
    cloned.erase();
  }
  foldTrueMasks(full.getBody());
  // The partial block: the original loop from mid, carrying on from the full blocks.
  loop->setOperand(0, mid); // lower
  for (auto [i, result] : llvm::enumerate(full.getResults()))
    loop->setOperand(3 + i, result);
}

struct NarrowPredicates : public tessel::pgpu::impl::PGPUNarrowPredicatesBase<NarrowPredicates> {
  void runOnOperation() override {
    SmallVector<ForOp> loops;
    getOperation().walk([&](ForOp loop) { loops.push_back(loop); });
    for (ForOp loop : loops) {
      SmallVector<CmpOp> masks = fullBlockMasks(loop);
      if (masks.empty())
        continue;
      bool remarks = remarksEnabled(loop);
      if (carriesContraction(loop) && isViewExtent(loop.getUpper())) {
        if (remarks)
          emitRemark(loop.getLoc()) << "pgpu-narrow-predicates: not split: a contraction's k loop over a view's "
                                       "extent stays whole for the provider's pipeliner";
        continue;
      }
      split(loop, masks);
      if (remarks)
        emitRemark(loop.getLoc()) << "pgpu-narrow-predicates: " << masks.size()
                                  << " lane mask(s) are true on the loop's full blocks: split into full blocks "
                                     "without them and the partial last block";
    }
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// Shared with pgpu-narrow-fold-ranges
//===----------------------------------------------------------------------===//

static bool isTrue(Value v) { return constantBool(v) == true; }

/// A combine region that is one idempotent binary op (or, and, max, min) of its arguments.
static bool idempotentCombine(ReduceOp r) {
  BinaryOp op = r.getInputs().size() == 1 ? singleBinaryCombine(r.getCombine().front()) : BinaryOp();
  return op &&
         llvm::is_contained({kir::BinaryKind::Or, kir::BinaryKind::And, kir::BinaryKind::Max, kir::BinaryKind::Min},
                            op.getKind());
}

/// Folds true predicates out of `region`: and(x, true) = x, select(true, a, b) = a,
/// and an idempotent reduction of lanes that are all c is c.
void pgpu::foldTrueMasks(Region &region) {
  bool changed = true;
  while (changed) {
    changed = false;
    region.walk([&](Operation *op) {
      if (auto bo = dyn_cast<BinaryOp>(op); bo && bo.getKind() == kir::BinaryKind::And &&
                                            (isTrue(bo.getLhs()) || isTrue(bo.getRhs()))) {
        bo.getResult().replaceAllUsesWith(isTrue(bo.getLhs()) ? bo.getRhs() : bo.getLhs());
        bo.erase();
        changed = true;
      } else if (auto s = dyn_cast<SelectOp>(op); s && isTrue(s.getCondition())) {
        s.getResult().replaceAllUsesWith(s.getTrueValue());
        s.erase();
        changed = true;
      } else if (auto r = dyn_cast<ReduceOp>(op); r && idempotentCombine(r) && isTrue(r.getInputs()[0])) {
        OpBuilder at(r);
        Value truth = arith::ConstantIntOp::create(at, r.getLoc(), at.getI1Type(), 1);
        Value out = isa<FragmentType>(r.getResult(0).getType())
                        ? Value(SplatOp::create(at, r.getLoc(), r.getResult(0).getType(), truth))
                        : truth;
        r.getResult(0).replaceAllUsesWith(out);
        r.erase();
        changed = true;
      }
    });
  }
}


/// A constant i1 shaped like `type` (a scalar, or a splat of one), made at `at`.
static Value boolLike(OpBuilder &at, Location loc, Type type, bool value) {
  Value c = arith::ConstantIntOp::create(at, loc, at.getI1Type(), value);
  return isa<FragmentType>(type) ? Value(SplatOp::create(at, loc, type, c)) : c;
}

/// Folds known masks out of `region` after a narrowing pass made a predicate true or false: what
/// foldTrueMasks folds, and not(c), and(false, x) = false, or(true, x) = true, or(false, x) = x,
/// select(false, a, b) = b, a read whose validity is false is its fill; then what no longer has a use
/// (a read only a false validity's lanes would have made) is erased.
void pgpu::foldKnownMasks(Region &region) {
  bool changed = true;
  while (changed) {
    changed = false;
    region.walk([&](Operation *op) {
      OpBuilder at(op);
      auto replace = [&](Value out) {
        op->getResult(0).replaceAllUsesWith(out);
        op->erase();
        changed = true;
      };
      if (auto u = dyn_cast<UnaryOp>(op); u && u.getKind() == kir::UnaryKind::Not) {
        if (std::optional<bool> c = constantBool(u.getOperand()))
          replace(boolLike(at, u.getLoc(), u.getType(), !*c));
      } else if (auto bo = dyn_cast<BinaryOp>(op); bo && (bo.getKind() == kir::BinaryKind::And ||
                                                          bo.getKind() == kir::BinaryKind::Or) &&
                                                    elementTypeOf(bo.getType()).isInteger(1)) {
        bool isOr = bo.getKind() == kir::BinaryKind::Or;
        for (auto [mine, other] : {std::pair(bo.getLhs(), bo.getRhs()), std::pair(bo.getRhs(), bo.getLhs())}) {
          std::optional<bool> c = constantBool(mine);
          if (!c)
            continue;
          // or(true, x) = true, and(false, x) = false; or(false, x) = and(true, x) = x.
          Value out = *c == isOr ? boolLike(at, bo.getLoc(), bo.getType(), *c) : other;
          if (out.getType() != bo.getType())
            return;
          replace(out);
          return;
        }
      } else if (auto sel = dyn_cast<SelectOp>(op)) {
        if (std::optional<bool> c = constantBool(sel.getCondition()))
          replace(*c ? sel.getTrueValue() : sel.getFalseValue());
      } else if (isa<LoadOp, GatherOp>(op)) {
        Value valid = isa<LoadOp>(op) ? cast<LoadOp>(op).getValid() : cast<GatherOp>(op).getValid();
        Value fill = isa<LoadOp>(op) ? cast<LoadOp>(op).getFill() : cast<GatherOp>(op).getFill();
        Type type = op->getResult(0).getType();
        if (constantBool(valid) == false)
          replace(isa<FragmentType>(type) ? Value(SplatOp::create(at, op->getLoc(), type, fill)) : fill);
      }
    });
  }
  foldTrueMasks(region);
  // Users before what they use: one backward sweep of each block erases a dead chain.
  for (Block &block : region)
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
      if (isOpTriviallyDead(&op))
        op.erase();
}
