//===- ScanReductions.cpp - reductions along a scan's axis of its results --===//
//
// seed 000 §8 (scan: member order kept; reduce: associative and commutative).
// A reduction along a scan's own axis of values computed from the scan's
// results by pointwise ops and broadcasts (NeRF's `T.sum(w * rgb)` of weights
// w = exclusive_scan(1 - alpha) * alpha, a drawdown's `T.argmax(1 - p /
// T.cummax(p))`, a count of the prefixes of a CDF below a bound) needs every
// prefix of the line before it can finish, so it cannot be a range_reduce of
// independent members. It is one ordered walk over the axis instead: a
// pgpu.for whose carries are each scan's running prefix and the reduction's
// accumulator; each step combines the next member into the prefix, computes
// the reduced value from the prefixes there, and combines it into the
// accumulator. Covered: a reduction over that one axis (kir.reduce, its
// arg-reduce, a contraction with one reduced pair) of scans of lines (rank 1)
// in one direction; anything else keeps the error at the reduction.
//
//===----------------------------------------------------------------------===//

#include "KernelConstructor.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::construct;

/// Appends to `scans` the kir.scan ops that `v` (with `axis` the reduced axis in it, -1 where it
/// does not vary along the reduced axis) is computed from along that axis through pointwise ops and
/// broadcasts. Returns false where a scan is reached that the walk does not cover.
static bool collectWalkedScans(Value v, int64_t axis, SmallVectorImpl<kir::ScanOp> &scans,
                               DenseSet<std::pair<void *, int64_t>> &seen) {
  if (axis < 0 || !isa<RankedTensorType>(v.getType()) || !seen.insert({v.getAsOpaquePointer(), axis}).second)
    return true;
  Operation *def = v.getDefiningOp();
  if (!def)
    return true;
  if (auto scan = dyn_cast<kir::ScanOp>(def)) {
    if (scan.getAxis() != axis)
      return true; // along another axis: ScanValues.cpp's, or its error
    if (cast<RankedTensorType>(v.getType()).getRank() != 1)
      return false;
    if (!llvm::is_contained(scans, scan))
      scans.push_back(scan);
    return true;
  }
  if (isa<kir::BinaryOp, kir::UnaryOp, kir::CmpOp, kir::SelectOp, kir::CastOp, kir::BitcastOp>(def)) {
    for (Value operand : def->getOperands())
      if (!collectWalkedScans(operand, axis, scans, seen))
        return false;
    return true;
  }
  if (isa<kir::BroadcastOp, kir::BroadcastAsOp>(def)) {
    ArrayRef<int64_t> dims = isa<kir::BroadcastOp>(def) ? cast<kir::BroadcastOp>(def).getDims()
                                                        : cast<kir::BroadcastAsOp>(def).getDims();
    const int64_t *at = llvm::find(dims, axis);
    return collectWalkedScans(def->getOperand(0), at == dims.end() ? -1 : at - dims.begin(), scans, seen);
  }
  return true;
}

SmallVector<kir::ScanOp> KernelConstructor::scansWalkedBy(Operation *reduction) {
  SmallVector<std::pair<Value, int64_t>> inputs;
  if (auto r = dyn_cast<kir::ReduceOp>(reduction)) {
    if (r.getAxes().size() != 1)
      return {};
    for (Value in : r.getInputs())
      inputs.push_back({in, r.getAxes()[0]});
  } else if (auto a = dyn_cast<kir::ArgReduceOp>(reduction)) {
    inputs.push_back({a.getInput(), int64_t(a.getAxis())});
  } else if (auto c = dyn_cast<kir::ContractOp>(reduction)) {
    if (c.getLhsReduce().size() != 1)
      return {};
    inputs.push_back({c.getLhs(), c.getLhsReduce()[0]});
    inputs.push_back({c.getRhs(), c.getRhsReduce()[0]});
  } else {
    return {};
  }
  SmallVector<kir::ScanOp> scans;
  DenseSet<std::pair<void *, int64_t>> seen;
  for (auto [v, axis] : inputs)
    if (!collectWalkedScans(v, axis, scans, seen))
      return {};
  // One walk visits the members in one order: the scans must agree on it.
  if (llvm::any_of(scans, [&](kir::ScanOp s) { return s.getReverse() != scans.front().getReverse(); }))
    return {};
  return scans;
}

FailureOr<SmallVector<Value>> KernelConstructor::walkNest(Location loc, ArrayRef<kir::ScanOp> scans, Value extent,
                                                          ValueRange identities, ElementFn element,
                                                          CombineFn buildCombine) {
  SmallVector<Value> inits;
  for (kir::ScanOp scan : scans)
    for (Value id : scan.getIdentities()) {
      FailureOr<Value> s = scalar(id);
      if (failed(s))
        return failure();
      inits.push_back(*s);
    }
  unsigned nScan = inits.size();
  llvm::append_range(inits, identities);
  // Members in order, one a trip: a scan's prefix depends on every member before it.
  pgpu::ForOp loop;
  {
    OpBuilder::InsertionGuard guard(b);
    auto [made, trip, carries] = countedLoop(loc, extent, inits);
    loop = made;
    // A reverse scan visits its line from the last member down (its "earlier" members are later ones).
    kir::ScanOp first = scans.front();
    Value at = first.getReverse()
                   ? binary(loc, kir::BinaryKind::Sub, binary(loc, kir::BinaryKind::Sub, extent, constIndex(loc, 1)), trip)
                   : trip;
    SmallVector<Value> yields;
    unsigned slot = 0;
    for (kir::ScanOp scan : scans) {
      unsigned n = scan.getIdentities().size();
      ArrayRef<Value> prefix = ArrayRef<Value>(carries).slice(slot, n);
      Block &combine = scan.getCombine().front();
      for (auto [i, arg] : llvm::enumerate(combine.getArguments())) {
        if (i < n) {
          map.map(arg, prefix[i]);
          continue;
        }
        FailureOr<Value> x = this->element(scan.getInputs()[i - n], {at});
        if (failed(x))
          return failure();
        map.map(arg, *x);
      }
      if (failed(emitBlock(combine)))
        return failure();
      SmallVector<Value> combined;
      for (Value y : combine.getTerminator()->getOperands())
        combined.push_back(map.lookup(y));
      // Inclusive: member t's result holds member t; exclusive: the members before it.
      for (auto [r, result] : llvm::enumerate(scan.getResults()))
        realized[result].push_back(
            Realized{SmallVector<Value, 4>{at}, scan.getExclusive() ? prefix[r] : combined[r]});
      llvm::append_range(yields, combined);
      slot += n;
    }
    FailureOr<SmallVector<Value>> member = element({at});
    if (failed(member))
      return failure();
    // The reduction's combine, built where a range_reduce would hold it (a combine builder may read its
    // parent), then inlined on (accumulator, member) and the holder dropped.
    SmallVector<Type> accTypes(ValueRange(identities).getTypes());
    auto holder = pgpu::RangeReduceOp::create(b, loc, accTypes, constIndex(loc, 0), constIndex(loc, 0), identities);
    if (failed(buildCombine(holder.getCombine(), accTypes))) {
      holder.erase();
      return failure();
    }
    Block &cb = holder.getCombine().front();
    IRMapping inlined;
    for (auto [i, arg] : llvm::enumerate(cb.getArguments()))
      inlined.map(arg, i < identities.size() ? carries[nScan + i] : (*member)[i - identities.size()]);
    for (Operation &op : cb.without_terminator())
      b.clone(op, inlined);
    for (Value y : cb.getTerminator()->getOperands())
      yields.push_back(inlined.lookupOrDefault(y));
    holder.erase();
    pgpu::YieldOp::create(b, loc, yields);
  }
  return SmallVector<Value>(loop.getResults().drop_front(nScan));
}
