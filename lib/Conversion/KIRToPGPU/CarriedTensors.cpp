//===- CarriedTensors.cpp - a kir.for carrying tensors, position by position ===//
//
// seed 000 §5 (control: "ordered for/while and loop-carried values") and
// seed 002 §3.3 (ownership/blocking: "separate free, ordered, reduction and
// scan axes"). A kir.for whose carries include tensors is an ordered loop
// over its domain (time, a bag's items) around work that is free along the
// carried tensors' axes when its body is elementwise along them: each element
// of the next carry depends only on the same position of the carry and of
// values read at that position. Construction then separates the two: the
// carried axes become the free positions of the element-wise construction
// (a `pgpu.foreach` when the loop has effects, the consumer's positions when
// only its results are used), and at each position the loop is the same
// ordered `pgpu.for`, its bounds unchanged (runtime scalars for a
// data-dependent subregion), carrying the element at that position as a
// scalar. Blocking (pgpu-form-blocking, seed 002 §3.3) later turns the free
// positions into fragments, the carries with them.
//
// A nested kir.for that takes the carry as its own initial carry (and
// passes the same check, without writes) is part of the position's work:
// its tensor results are carried on. What is not elementwise along the
// carried axes (a reduction, scan, broadcast, transpose or extract of a
// carry-dependent value; a carry used otherwise in a nested region; a write that is not a tensor over the carried axes; a read
// of a view the loop writes, whose order across positions would change) is
// rejected at the op with the rule.
//
//===----------------------------------------------------------------------===//

#include "KernelConstructor.h"

#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::construct;

static bool isPointwise(Operation *op) {
  return isa<kir::BinaryOp, kir::UnaryOp, kir::CmpOp, kir::SelectOp, kir::CastOp, kir::BitcastOp>(op);
}

static bool isWrite(Operation *op) {
  return isa<kir::StoreOp, kir::ScatterOp, kir::ScatterReduceOp, kir::AtomicStoreOp, kir::AtomicRMWOp,
             kir::AtomicCASOp, kir::BufferStoreOp>(op);
}

/// A write of a tensor value, one element per position: what a position of the loop may perform.
static bool isTensorWrite(Operation *op) {
  return isa<kir::StoreOp, kir::ScatterOp, kir::ScatterReduceOp, kir::BufferStoreOp>(op) &&
         isa<RankedTensorType>(op->getOperand(0).getType());
}

bool KernelConstructor::carriesTensors(kir::ForOp f) {
  return llvm::any_of(f.getInits().getTypes(), [](Type t) { return isa<RankedTensorType>(t); });
}

bool KernelConstructor::hasWrites(kir::ForOp f) {
  return f->walk([](Operation *op) { return isWrite(op) ? WalkResult::interrupt() : WalkResult::advance(); })
      .wasInterrupted();
}

FailureOr<SmallVector<Value>> KernelConstructor::checkCarriedTensors(kir::ForOp f) {
  Block &body = f.getBody().front();
  // The carried axes: every tensor carry ranges over the same extents.
  SmallVector<Value> extents;
  for (Value init : f.getInits()) {
    if (!isa<RankedTensorType>(init.getType())) {
      if (!init.getType().isIntOrIndexOrFloat())
        return f.emitError() << "kir-to-pgpu: kir.for carries scalars and tensors; a '" << init.getType()
                             << "' carry is not constructed";
      continue;
    }
    FailureOr<SmallVector<Value>> s = sizes(init);
    if (failed(s))
      return failure();
    if (extents.empty())
      extents = *s;
    else if (extents != *s)
      return f.emitError() << "kir-to-pgpu: the tensors this kir.for carries range over different domains; "
                              "a loop carries tensors over one set of axes, constructed position by position";
  }
  unsigned rank = extents.size();
  // Scalar carries are recomputed at every position: their results are not visible after the loop.
  for (Value r : f.getResults())
    if (!isa<RankedTensorType>(r.getType()) && !r.use_empty())
      return f.emitError() << "kir-to-pgpu: a kir.for carrying tensors is constructed position by position; "
                              "its scalar results are not available after the loop (carry them in a loop "
                              "of their own)";
  bool writes = hasWrites(f);
  if (writes && llvm::any_of(f.getResults(), [](Value r) { return !r.use_empty(); }))
    return f.emitError() << "kir-to-pgpu: a kir.for carrying tensors that writes views and whose results are "
                            "used after it is not constructed yet (store the last carry inside the loop)";

  // Carry dependence: which body values' elements depend on a carried tensor.
  auto tensorRank = [](Value v) -> int64_t {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    return t ? t.getRank() : -1;
  };
  DenseSet<Value> carried;
  for (BlockArgument a : body.getArguments().drop_front())
    if (isa<RankedTensorType>(a.getType()))
      carried.insert(a);
  auto notElementwise = [&](Operation *op, StringRef why) {
    return op->emitError() << "kir-to-pgpu: this '" << op->getName() << "' " << why
                           << "; a runtime loop carries a tensor only when its body is elementwise along the "
                              "carried axes (each element of the next carry depends on the same position of "
                              "the carry and of what is read there)";
  };
  for (Operation &op : body.without_terminator()) {
    bool usesCarried = llvm::any_of(op.getOperands(), [&](Value v) { return carried.contains(v); });
    // A nested loop carrying the carried tensor (time steps and their sub-steps) is elementwise along
    // the same axes when it is so itself, reads it only as its initial carry and writes nothing: at each
    // position it is the same ordered loop nest, its results carried on (seed 000 §5).
    if (auto inner = dyn_cast<kir::ForOp>(op); inner && usesCarried && carriesTensors(inner)) {
      bool onlyInits = llvm::all_of(inner->getOpOperands(), [&](OpOperand &use) {
        return !carried.contains(use.get()) || use.getOperandNumber() >= inner->getNumOperands() - inner.getInits().size();
      });
      bool inside = inner.getBody().walk([&](Operation *x) {
                                      return llvm::any_of(x->getOperands(), [&](Value v) { return carried.contains(v); })
                                                 ? WalkResult::interrupt()
                                                 : WalkResult::advance();
                                    })
                        .wasInterrupted();
      if (!onlyInits)
        return notElementwise(&op, "reads the carried tensor other than as its initial carry");
      if (inside)
        return notElementwise(&op, "uses the carried tensor inside its region other than through its own carry");
      if (hasWrites(inner))
        return notElementwise(&op, "is a nested loop carrying the tensor that writes views (it would run once "
                                   "per position)");
      FailureOr<SmallVector<Value>> innerExtents = checkCarriedTensors(inner);
      if (failed(innerExtents))
        return failure();
      if (*innerExtents != extents)
        return notElementwise(&op, "carries tensors over other axes than the loop around it");
      for (Value r : inner.getResults())
        if (isa<RankedTensorType>(r.getType()))
          carried.insert(r);
      continue;
    }
    if (op.getNumRegions()) {
      bool inside = false, writesInside = false;
      op.walk([&](Operation *inner) {
        inside |= llvm::any_of(inner->getOperands(), [&](Value v) { return carried.contains(v); });
        writesInside |= isWrite(inner);
      });
      if (usesCarried)
        return notElementwise(&op, "reads the carried tensor across positions (a reduction, scan or fold of it)");
      if (inside)
        return notElementwise(&op, "uses the carried tensor inside its region");
      if (writesInside)
        return notElementwise(&op, "writes inside a nested region (it would run once per position)");
      continue;
    }
    if (isWrite(&op)) {
      if (!isTensorWrite(&op))
        return notElementwise(&op, "writes something other than a tensor over the carried axes (it would run "
                                   "once per position)");
      FailureOr<SmallVector<Value>> s = sizes(op.getOperand(0));
      if (failed(s))
        return failure();
      if (*s != extents)
        return notElementwise(&op, "writes a tensor that does not range over the carried axes");
      if (llvm::any_of(op.getOperands().drop_front(), [&](Value v) { return carried.contains(v); }))
        return notElementwise(&op, "writes at coordinates (or under a mask) computed from the carried tensor");
      continue;
    }
    if (!usesCarried)
      continue;
    if (isPointwise(&op) && op.getNumResults() == 1 && tensorRank(op.getResult(0)) == int64_t(rank) &&
        llvm::all_of(op.getOperands(), [&](Value v) { return tensorRank(v) < 0 || tensorRank(v) == int64_t(rank); })) {
      carried.insert(op.getResult(0));
      continue;
    }
    return notElementwise(&op, "reads the carried tensor across positions (a reduction, scan, broadcast, "
                               "transpose or extract of it)");
  }
  // Each position runs all its iterations before the next position: a read of a view the loop writes
  // would see another order of the writes than the author's.
  if (writes) {
    DenseSet<Value> reads, written;
    collectViews(f, reads, written);
    f->walk([&](kir::BufferStoreOp s) { written.insert(s.getBuffer()); });
    f->walk([&](kir::BufferLoadOp l) { reads.insert(l.getBuffer()); });
    for (Value v : written)
      if (reads.contains(v))
        return f.emitError() << "kir-to-pgpu: a kir.for carrying tensors is constructed position by position "
                                "(all iterations of one position, then the next); it may not read a view or "
                                "buffer it writes";
  }
  return extents;
}

FailureOr<SmallVector<Value>> KernelConstructor::carriedLoopAt(kir::ForOp f, ArrayRef<Value> positions,
                                                               bool withWrites) {
  Location loc = f.getLoc();
  Block &body = f.getBody().front();
  unsigned rank = positions.size();
  auto atPositions = [&](Value v) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    return t && t.getRank() == rank;
  };
  // Values from outside the loop read at these positions are loop-invariant: realized once, before it.
  for (Operation &op : body.without_terminator()) {
    if (!isPointwise(&op) && !isTensorWrite(&op))
      continue;
    for (Value v : op.getOperands())
      if (atPositions(v) && !f.getBody().isAncestor(v.getParentRegion()))
        if (failed(element(v, positions)))
          return failure();
  }
  SmallVector<Value> inits;
  for (Value init : f.getInits()) {
    FailureOr<Value> v = isa<RankedTensorType>(init.getType()) ? element(init, positions) : scalar(init);
    if (failed(v))
      return failure();
    inits.push_back(*v);
  }
  DomainVals d = domains.lookup(f.getDomain());
  FailureOr<SmallVector<Value>> results =
      loopNest(loc, d.size, inits, [&](ArrayRef<Value> pos, ValueRange carries) -> FailureOr<SmallVector<Value>> {
        map.map(body.getArgument(0), member(loc, d, pos[0]));
        // A carried tensor's element at these positions is the scalar carry.
        for (auto [arg, c] : llvm::zip(body.getArguments().drop_front(), carries))
          map.map(arg, c);
        for (Operation &op : body.without_terminator()) {
          if (isTensorWrite(&op)) {
            if (withWrites && failed(emitElementStore(op, positions)))
              return failure();
            continue;
          }
          if (failed(emitStatement(op)))
            return failure();
        }
        SmallVector<Value> next;
        for (Value y : body.getTerminator()->getOperands()) {
          FailureOr<Value> v = isa<RankedTensorType>(y.getType()) ? element(y, positions) : scalar(y);
          if (failed(v))
            return failure();
          next.push_back(*v);
        }
        return next;
      });
  if (failed(results))
    return failure();
  for (auto [r, v] : llvm::zip(f.getResults(), *results))
    if (isa<RankedTensorType>(r.getType()))
      realized[r].push_back(Realized{SmallVector<Value, 4>(positions.begin(), positions.end()), v});
  return results;
}

LogicalResult KernelConstructor::emitCarriedTensors(kir::ForOp f) {
  FailureOr<SmallVector<Value>> extents = checkCarriedTensors(f);
  if (failed(extents))
    return failure();
  // Without writes the loop is realized where its results are read, at the reader's positions.
  if (!hasWrites(f))
    return success();
  // The positions along the carried axes are independent: a pgpu.foreach each.
  return foreachNest(f.getLoc(), *extents,
                     [&](ArrayRef<Value> positions) { return carriedLoopAt(f, positions, /*withWrites=*/true); });
}
