//===- CountLoops.cpp - a loop's counts of true predicates, cheap per step -===//
//
// seed 002 §4 (semantics-preserving rewrites; every value stays bitwise the
// same). A loop carry that counts where a predicate holds,
//
//   acc' = acc + cast<int>(p)           (p: i1, one step of a pgpu.for)
//
// costs the provider a compare into a predicate, an add and a select per lane
// and step (the select: acc + 1 or acc, then a copy back into the carried
// register; 5-6 SASS instructions a lane and step for a bucketize count over
// its cut points, sm_90). Two exact rewrites make it cheaper:
//
//   - a disjunct invariant in the loop (p = c | q, q defined above the loop: a
//     bucketize's "x is NaN") leaves it: the loop counts c, and after it
//     acc = q ? init + trips : acc (where q holds every step adds one);
//   - the count accumulates in f32 (a compare straight into 0.0 / 1.0 and a
//     float add: FSET + FADD, two instructions), exact while it stays below
//     2^24: the loop runs in chunks of at most 2^24 steps, each chunk's f32
//     count converted and added to the integer carry after it (one chunk, one
//     conversion per lane, for any range shorter than 2^24 steps).
//
// Must not fire: a carry whose running value is used inside the loop or whose
// step adds anything but a cast of an i1 (a sum of values, a count of an i8),
// a disjunct defined inside the loop (it varies per step).
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUCOUNTLOOPS
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

namespace {

/// Steps a float count holds exactly (f32 has 24 significant bits).
constexpr int64_t kExactF32Count = int64_t(1) << 24;

Type elementOf(Type t) {
  if (auto f = dyn_cast<FragmentType>(t))
    return f.getElementType();
  return t;
}

/// `t` with element type `e` (a fragment keeps its extents).
Type withElement(Type t, Type e) {
  if (auto f = dyn_cast<FragmentType>(t))
    return FragmentType::get(f.getContext(), e, f.getExtents());
  return e;
}

/// A count step of carry `i`: the yield is `add(arg, cast(p))` with p of i1 elements and an integer
/// carry, `arg` used only there and the sum only by the yield. Returns the cast, or null.
CastOp countStep(ForOp loop, unsigned i) {
  Block &body = loop.getBody().front();
  BlockArgument arg = body.getArgument(i + 1);
  auto add = body.getTerminator()->getOperand(i).getDefiningOp<BinaryOp>();
  if (!add || add.getKind() != kir::BinaryKind::Add || !add->hasOneUse() || !arg.hasOneUse() ||
      add->getParentRegion() != &loop.getBody())
    return {};
  Type elem = elementOf(arg.getType());
  if (!isa<IntegerType>(elem) || cast<IntegerType>(elem).getWidth() < 32)
    return {};
  Value other = add.getLhs() == arg ? add.getRhs() : add.getRhs() == arg ? add.getLhs() : Value();
  auto c = other ? other.getDefiningOp<CastOp>() : CastOp();
  if (!c || !c->hasOneUse() || !elementOf(c.getOperand().getType()).isInteger(1) ||
      c.getOperand().getType() != withElement(arg.getType(), elementOf(c.getOperand().getType())))
    return {};
  return c;
}

/// Whether `v` is defined above `loop` (the same value every step).
bool aboveLoop(Value v, ForOp loop) {
  Region *r = v.getParentRegion();
  return !loop.getBody().isAncestor(r);
}

/// max(ceil((hi - lo) / step), 0) steps of `loop`, as an index.
Value tripCount(OpBuilder &b, Location loc, ForOp loop) {
  Value span = BinaryOp::create(b, loc, b.getIndexType(), kir::BinaryKind::Sub, loop.getUpper(), loop.getLower());
  Value trips = CeilDivOp::create(b, loc, span, loop.getStep());
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  return BinaryOp::create(b, loc, b.getIndexType(), kir::BinaryKind::Max, trips, zero);
}

/// `s` (a scalar) as a value of type `t`'s element, splat to `t`'s extents.
Value asType(OpBuilder &b, Location loc, Value s, Type t) {
  Type elem = elementOf(t);
  if (s.getType() != elem)
    s = CastOp::create(b, loc, elem, s);
  if (isa<FragmentType>(t))
    s = SplatOp::create(b, loc, t, s);
  return s;
}

/// The constant trip count of `loop`, if its bounds are constants.
std::optional<int64_t> constantTrips(ForOp loop) {
  APInt lo, hi, st;
  if (!matchPattern(loop.getLower(), m_ConstantInt(&lo)) || !matchPattern(loop.getUpper(), m_ConstantInt(&hi)) ||
      !matchPattern(loop.getStep(), m_ConstantInt(&st)) || st.getSExtValue() <= 0)
    return std::nullopt;
  int64_t span = hi.getSExtValue() - lo.getSExtValue();
  return span <= 0 ? 0 : (span + st.getSExtValue() - 1) / st.getSExtValue();
}

struct CountLoops : public tessel::pgpu::impl::PGPUCountLoopsBase<CountLoops> {
  void runOnOperation() override {
    bool remarks = remarksEnabled(getOperation());
    SmallVector<ForOp> loops;
    getOperation().walk([&](ForOp loop) { loops.push_back(loop); });
    for (ForOp loop : loops) {
      SmallVector<unsigned> counts;
      for (unsigned i = 0; i < loop.getInits().size(); ++i)
        if (countStep(loop, i))
          counts.push_back(i);
      if (counts.empty())
        continue;
      unsigned hoisted = 0;
      for (unsigned i : counts)
        hoisted += hoistInvariantDisjunct(loop, i) ? 1 : 0;
      bool chunked = countInFloat(loop, counts);
      if (remarks)
        emitRemark(loop.getLoc()) << "pgpu-count-loops: " << counts.size() << " count carr"
                                  << (counts.size() == 1 ? "y" : "ies") << " accumulate in f32"
                                  << (chunked ? " (chunks of 2^24 steps)" : "") << "; " << hoisted
                                  << " loop-invariant disjunct(s) moved after the loop";
    }
  }

  /// p = c | q with q above the loop: the loop counts c; after it, q's lanes take init + trips.
  static bool hoistInvariantDisjunct(ForOp loop, unsigned i) {
    CastOp c = countStep(loop, i);
    auto orOp = c.getOperand().getDefiningOp<BinaryOp>();
    if (!orOp || orOp.getKind() != kir::BinaryKind::Or || !orOp->hasOneUse())
      return false;
    Value q = aboveLoop(orOp.getRhs(), loop) ? orOp.getRhs() : aboveLoop(orOp.getLhs(), loop) ? orOp.getLhs() : Value();
    if (!q || q.getType() != orOp.getType())
      return false;
    Value kept = q == orOp.getRhs() ? orOp.getLhs() : orOp.getRhs();
    Location loc = orOp.getLoc();
    c->setOperand(0, kept);
    orOp.erase();
    OpBuilder b(loop.getContext());
    b.setInsertionPointAfter(loop);
    Value result = loop.getResult(i);
    Type t = result.getType();
    Value all = BinaryOp::create(b, loc, t, kir::BinaryKind::Add, loop.getInits()[i],
                                 asType(b, loc, tripCount(b, loc, loop), t));
    Value chosen = SelectOp::create(b, loc, t, q, all, result);
    result.replaceAllUsesExcept(chosen, chosen.getDefiningOp());
    return true;
  }

  /// The count carries `counts` of `loop` accumulate in f32 from zero, added to their integer carries
  /// after the loop; a loop not known to run at most 2^24 steps runs in chunks of 2^24 steps (true).
  static bool countInFloat(ForOp loop, ArrayRef<unsigned> counts) {
    Location loc = loop.getLoc();
    OpBuilder b(loop);
    Type f32 = b.getF32Type();
    std::optional<int64_t> trips = constantTrips(loop);
    bool chunk = !trips || *trips > kExactF32Count;
    Value lo = loop.getLower(), hi = loop.getUpper(), step = loop.getStep();
    ForOp outer;
    Block *outerBody = nullptr;
    SmallVector<Value> carried(loop.getInits()); // the integer carries as the (chunk) loop sees them
    if (chunk) {
      Value scale = arith::ConstantIndexOp::create(b, loc, kExactF32Count);
      Value chunkStep = BinaryOp::create(b, loc, b.getIndexType(), kir::BinaryKind::Mul, step, scale);
      outer = ForOp::create(b, loc, TypeRange(ValueRange(carried)), lo, hi, chunkStep, carried);
      outerBody = b.createBlock(&outer.getBody());
      Value start = outerBody->addArgument(b.getIndexType(), loc);
      for (Value v : loop.getInits())
        outerBody->addArgument(v.getType(), loc);
      carried.assign(outerBody->args_begin() + 1, outerBody->args_end());
      Value end = BinaryOp::create(b, loc, b.getIndexType(), kir::BinaryKind::Add, start, chunkStep);
      end = BinaryOp::create(b, loc, b.getIndexType(), kir::BinaryKind::Min, end, hi);
      lo = start;
      hi = end;
    }
    // The inner loop: the counts' carries start at 0.0 and add cast<f32>(p).
    SmallVector<Value> inits(carried);
    Value zero = arith::ConstantOp::create(b, loc, FloatAttr::get(f32, 0.0));
    for (unsigned i : counts)
      inits[i] = asType(b, loc, zero, withElement(carried[i].getType(), f32));
    auto inner = ForOp::create(b, loc, TypeRange(ValueRange(inits)), lo, hi, step, inits);
    {
      OpBuilder::InsertionGuard guard(b);
      Block *nb = b.createBlock(&inner.getBody());
      Block &old = loop.getBody().front();
      old.getArgument(0).replaceAllUsesWith(nb->addArgument(b.getIndexType(), loc));
      for (auto [k, v] : llvm::enumerate(inits))
        old.getArgument(k + 1).replaceAllUsesWith(nb->addArgument(v.getType(), loc));
      nb->getOperations().splice(nb->end(), old.getOperations());
      Operation *yield = nb->getTerminator();
      for (unsigned i : counts) {
        auto add = yield->getOperand(i).getDefiningOp<BinaryOp>();
        Value acc = nb->getArgument(i + 1);
        auto c = (add.getLhs() == acc ? add.getRhs() : add.getLhs()).getDefiningOp<CastOp>();
        c.getResult().setType(acc.getType());
        add.getResult().setType(acc.getType());
      }
    }
    inner->setDiscardableAttrs(loop->getDiscardableAttrDictionary());
    // After the inner loop: each f32 count converted and added to its integer carry.
    SmallVector<Value> results(inner.getResults());
    for (unsigned i : counts) {
      Value n = CastOp::create(b, loc, carried[i].getType(), inner.getResult(i));
      results[i] = BinaryOp::create(b, loc, carried[i].getType(), kir::BinaryKind::Add, carried[i], n);
    }
    if (chunk) {
      YieldOp::create(b, loc, results);
      results.assign(outer.getResults().begin(), outer.getResults().end());
    }
    for (auto [r, v] : llvm::zip(loop.getResults(), results))
      r.replaceAllUsesWith(v);
    loop.erase();
    return chunk;
  }
};
} // namespace
