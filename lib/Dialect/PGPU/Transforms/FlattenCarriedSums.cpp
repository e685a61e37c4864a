//===- FlattenCarriedSums.cpp - a loop adding a reduction to its carry -----===//
//
// pgpu-form-tiles' helper (seed 002 §3.3: blocking works on loops). Construction realizes a loop
// that adds a sum to its carry on every trip, per member, as a pgpu.for around a range_reduce: a
// block-sparse (BSR) product `acc = acc + T.matmul(values[e, blk, blk], b[col[e] * 64 + blk, cols])`
// over a CSR row's blocks e becomes, for each output element (i, j),
//
//   for e in [lo, hi): acc = acc + sum_{k in [klo, khi)} values[e, i, k] * b[col[e] * 64 + k, j]
//
// which form-tiles cannot block (a loop in the program body). When the inner range does not depend on
// e, this is one add-reduction over the members (e, k) of a rectangle, flattened to t in [0, n * W)
// with n = max(hi - lo, 0), W = max(khi - klo, 0), e = lo + t / W and k = klo + t % W (the divisor
// max(W, 1): no member divides by it when W is empty). Seed 000 §8 lets an add-reduction's members be
// regrouped: the loop's sum ((acc + s_0) + s_1) + ... is acc + (s_0 + s_1 + ...), and the one sum is
// the nested sums' association of the flattened members. The trip's code before the sum (the read of
// col[e], its address arithmetic) moves into the flattened element body, recomputed per member: it is
// pure or a read, so running it for members of non-empty trips only changes nothing observable. The
// result is a contraction over t (values on i and t, b on j and t), which form-tiles then tiles: one K
// loop over the row's blocks in TILE_K steps, a tl.dot of the value block and the gathered rows of b.
//
// Fires on: a pgpu.for with constant step 1 and one carry whose body is pure code and reads
// (no regions), one range_reduce with one result whose combine is an add of its two arguments and
// whose element body is pure code and reads, its bounds and identity defined outside the loop, then
// `carry + sum` (either order) yielded; the carry used only there, the sum only there.
// Must not fire: another carry or a carry used elsewhere (a running maximum, a rescaling), a combine
// other than add, a write or nested control in the body, inner bounds that depend on the trip (ragged
// in e: no rectangle), a step other than 1.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

namespace {
/// Straight-line code a flattened body may hold: pure ops without regions and reads.
bool pointwiseOrRead(Operation &op) {
  return isa<BinaryOp, UnaryOp, CmpOp, SelectOp, CastOp, BitcastOp, LoadOp, GatherOp, BufferLoadOp,
             arith::ConstantOp, ParamOp, ExtentOp, StrideOp, CeilDivOp>(op);
}

/// The constant value of an index computation of constants (construction's `max(ceil_div(64, 1), 0)`
/// extent of a constant domain), or none.
std::optional<int64_t> constantOf(Value v, unsigned depth = 0) {
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return c.getSExtValue();
  if (depth > 8)
    return std::nullopt;
  if (auto div = v.getDefiningOp<CeilDivOp>()) {
    std::optional<int64_t> a = constantOf(div.getLhs(), depth + 1), d = constantOf(div.getRhs(), depth + 1);
    if (a && d && *a >= 0 && *d > 0)
      return (*a + *d - 1) / *d;
    return std::nullopt;
  }
  auto bin = v.getDefiningOp<BinaryOp>();
  if (!bin || !bin.getType().isIndex())
    return std::nullopt;
  std::optional<int64_t> a = constantOf(bin.getLhs(), depth + 1), b = constantOf(bin.getRhs(), depth + 1);
  if (!a || !b)
    return std::nullopt;
  switch (bin.getKind()) {
  case kir::BinaryKind::Add: return *a + *b;
  case kir::BinaryKind::Sub: return *a - *b;
  case kir::BinaryKind::Mul: return *a * *b;
  case kir::BinaryKind::Max: return std::max(*a, *b);
  case kir::BinaryKind::Min: return std::min(*a, *b);
  default: return std::nullopt;
  }
}

/// Whether `v` is the additive zero: a float or integer constant 0 (+0.0 for floats).
bool isZero(Value v) {
  Attribute a;
  if (!matchPattern(v, m_Constant(&a)))
    return false;
  if (auto f = dyn_cast<FloatAttr>(a))
    return f.getValue().isPosZero();
  if (auto i = dyn_cast<IntegerAttr>(a))
    return i.getValue().isZero();
  return false;
}

/// The range_reduce of `loop`'s body when `loop` is a flattenable carried sum (see the file comment).
RangeReduceOp carriedSum(ForOp loop) {
  if (loop.getInits().size() != 1 || loop.getNumResults() != 1)
    return {};
  std::optional<int64_t> step = constantOf(loop.getStep());
  if (!step || *step != 1)
    return {};
  Block &body = loop.getBody().front();
  Value carry = body.getArgument(1);
  auto yield = body.getTerminator();
  if (yield->getNumOperands() != 1)
    return {};
  auto add = yield->getOperand(0).getDefiningOp<BinaryOp>();
  if (!add || add.getKind() != kir::BinaryKind::Add || add->getBlock() != &body || !carry.hasOneUse() ||
      !add->hasOneUse())
    return {};
  Value other = add.getLhs() == carry ? add.getRhs() : add.getRhs() == carry ? add.getLhs() : Value();
  auto reduce = other ? other.getDefiningOp<RangeReduceOp>() : RangeReduceOp();
  if (!reduce || reduce->getBlock() != &body || reduce.getNumResults() != 1 || !other.hasOneUse() ||
      reduce.getResult(0).getType() != carry.getType())
    return {};
  Type type = carry.getType();
  if (!isa<FloatType>(type) && !type.isSignlessInteger())
    return {};
  // The sum: an add of the combine's two arguments, identity zero.
  Block &combine = reduce.getCombine().front();
  auto sum = dyn_cast_or_null<BinaryOp>(combine.getTerminator()->getOperand(0).getDefiningOp());
  if (!sum || sum.getKind() != kir::BinaryKind::Add || combine.getOperations().size() != 2 ||
      !((sum.getLhs() == combine.getArgument(0) && sum.getRhs() == combine.getArgument(1)) ||
        (sum.getLhs() == combine.getArgument(1) && sum.getRhs() == combine.getArgument(0))) ||
      !isZero(reduce.getIdentities()[0]))
    return {};
  // A rectangle: the inner range and identity are the same on every trip.
  Region &region = loop.getBody();
  auto outside = [&](Value v) { return !region.isAncestor(v.getParentRegion()); };
  if (!outside(reduce.getLower()) || !outside(reduce.getUpper()) || !outside(reduce.getIdentities()[0]))
    return {};
  for (Operation &op : body.without_terminator())
    if (&op != reduce.getOperation() && &op != add.getOperation() && !pointwiseOrRead(op))
      return {};
  if (!llvm::all_of(reduce.getElement().front().without_terminator(), pointwiseOrRead))
    return {};
  // The trip's code feeds the sum only: nothing of it but the sum leaves the loop's body (the yield
  // takes the add alone), and the carry enters only the add.
  return reduce;
}
} // namespace

SmallVector<FlattenedSum> pgpu::flattenCarriedSums(Operation *root) {
  SmallVector<ForOp> loops;
  root->walk([&](ForOp loop) {
    if (carriedSum(loop))
      loops.push_back(loop);
  });
  SmallVector<FlattenedSum> done;
  for (ForOp loop : loops) {
    RangeReduceOp reduce = carriedSum(loop);
    if (!reduce)
      continue;
    Location loc = loop.getLoc();
    OpBuilder b(loop);
    FlattenedSum record;
    record.loop = loop;
    auto bin = [&](kir::BinaryKind kind, Value x, Value y) -> Value {
      Value r = BinaryOp::create(b, loc, kind, x, y, false, false);
      if (r.getDefiningOp()) // folded ones are not created
        record.created.push_back(r.getDefiningOp());
      return r;
    };
    auto constant = [&](int64_t v) -> Value {
      auto c = arith::ConstantIndexOp::create(b, loc, v);
      record.created.push_back(c);
      return c;
    };
    Value zero = constant(0), one = constant(1);
    Value trips = bin(kir::BinaryKind::Max, bin(kir::BinaryKind::Sub, loop.getUpper(), loop.getLower()), zero);
    // The inner width: a constant where construction's extent arithmetic is one (t / 64 is a shift
    // and keeps the contiguity of k for the provider), else max(W, 0), divided by as max(W, 1).
    Value members, width;
    std::optional<int64_t> lo = constantOf(reduce.getLower()), hi = constantOf(reduce.getUpper());
    if (lo && hi) {
      int64_t w = std::max<int64_t>(*hi - *lo, 0);
      members = constant(w);
      width = constant(std::max<int64_t>(w, 1));
    } else {
      members = bin(kir::BinaryKind::Max, bin(kir::BinaryKind::Sub, reduce.getUpper(), reduce.getLower()), zero);
      width = bin(kir::BinaryKind::Max, members, one);
    }
    Value total = bin(kir::BinaryKind::Mul, trips, members);
    auto flat = RangeReduceOp::create(b, loc, reduce.getResultTypes(), zero, total, reduce.getIdentities());
    record.created.push_back(flat);
    {
      OpBuilder::InsertionGuard guard(b);
      Block *element = b.createBlock(&flat.getElement(), {}, {b.getIndexType()}, {loc});
      Value t = element->getArgument(0);
      IRMapping map;
      auto local = [&](kir::BinaryKind kind, Value x, Value y) -> Value {
        return BinaryOp::create(b, loc, kind, x, y, false, false);
      };
      Value lower = loop.getLower(), klower = reduce.getLower();
      map.map(loop.getBody().getArgument(0), local(kir::BinaryKind::Add, lower, local(kir::BinaryKind::Div, t, width)));
      map.map(reduce.getElement().getArgument(0),
              local(kir::BinaryKind::Add, klower, local(kir::BinaryKind::Rem, t, width)));
      Operation *add = loop.getBody().front().getTerminator()->getOperand(0).getDefiningOp();
      for (Operation &op : loop.getBody().front().without_terminator())
        if (&op != reduce.getOperation() && &op != add)
          b.clone(op, map);
      for (Operation &op : reduce.getElement().front())
        b.clone(op, map);
    }
    IRMapping combineMap;
    reduce.getCombine().cloneInto(&flat.getCombine(), combineMap);
    Value result = flat.getResult(0);
    Value init = loop.getInits()[0];
    if (!isZero(init)) // the loop's sum starts from its init: init + (the flattened sum)
      result = bin(kir::BinaryKind::Add, init, result);
    record.result = result;
    loop.getResult(0).replaceAllUsesWith(result);
    loop->remove(); // kept for undoFlatten
    done.push_back(record);
  }
  return done;
}

void pgpu::undoFlatten(ArrayRef<FlattenedSum> flattened) {
  for (FlattenedSum f : llvm::reverse(flattened)) {
    Operation *first = f.created.front();
    first->getBlock()->getOperations().insert(Block::iterator(first), f.loop.getOperation());
    f.result.replaceAllUsesWith(f.loop.getResult(0));
    for (Operation *op : llvm::reverse(f.created))
      op->erase();
  }
}

void pgpu::eraseFlattened(ArrayRef<FlattenedSum> flattened) {
  for (FlattenedSum f : flattened) {
    f.loop->dropAllReferences();
    f.loop->destroy();
  }
}
