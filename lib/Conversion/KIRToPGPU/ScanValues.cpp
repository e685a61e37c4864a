//===- ScanValues.cpp - scans realized where values computed from them are stored ===//
//
// seed 000 §8 (scan: associative combine, member order kept, inclusive or
// exclusive, direction), seed 002 §4 (a structured op keeps its contract so
// blocking may regroup it). A kir.scan has no storage of its own: it is
// realized by each write of a value computed from its results by pointwise
// ops (`y[..] = T.cumsum(x) * w`, the state of a linear recurrence scaled and
// shifted before its store). Such a write becomes loops over the lines (the
// other axes) holding one pgpu.range_scan along the scan axis; its emit region
// receives the prefix at each position and computes the written value there,
// in place, from the prefix and whatever else the value reads, then writes it.
// Blocking turns the range scan into a fragment scan with a carry and clones
// the emit region per block, so the consumers run on each block of prefixes as
// it is formed. Several scans combined in one written value (a running sum
// divided by a running count) are one range scan of all their components when
// they scan the same axis of the same extents in the same mode and direction.
//
// Refused at the user, with a note at the scan: any other use of a scan's
// results (a reduction over the scan axis needs the whole line before its
// first element; a reduction over another axis needs several lines at once;
// control flow, index uses).
//
//===----------------------------------------------------------------------===//

#include "KernelConstructor.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::construct;

static bool isWrite(Operation *op) {
  return isa<kir::StoreOp, kir::ScatterOp, kir::ScatterReduceOp, kir::BufferStoreOp>(op);
}

LogicalResult KernelConstructor::checkScanUses(kir::ScanOp scan) {
  SmallVector<Value> worklist(scan->getResults());
  DenseSet<Value> seen(worklist.begin(), worklist.end());
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (isWrite(user) && use.getOperandNumber() == 0)
        continue;
      if (pointwiseOp(user) && isa<RankedTensorType>(user->getResult(0).getType())) {
        if (seen.insert(user->getResult(0)).second)
          worklist.push_back(user->getResult(0));
        continue;
      }
      InFlightDiagnostic diag = user->emitError();
      if (auto r = dyn_cast<kir::ReduceOp>(user); r && llvm::is_contained(r.getAxes(), int64_t(scan.getAxis())))
        diag << "kir-to-pgpu does not construct a reduction along a scan's axis of its results: it needs the "
                "whole line of prefixes before it can finish; reduce what the scan combines instead, or store "
                "the scan";
      else if (isa<kir::ReduceOp>(user))
        diag << "kir-to-pgpu does not construct a reduction of a scan's results over another axis yet: each "
                "line along that axis is a scan of its own";
      else
        diag << "kir-to-pgpu constructs a scan's results where values computed from them by pointwise ops are "
                "stored; '"
             << user->getName() << "' uses them";
      diag.attachNote(scan.getLoc()) << "the scan";
      return failure();
    }
  }
  return success();
}

FailureOr<SmallVector<kir::ScanOp>> KernelConstructor::scansOfStored(Operation &write) {
  SmallVector<kir::ScanOp> scans;
  SmallVector<Value> worklist{resolve(write.getOperand(0))};
  DenseSet<Value> seen;
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (!isa<RankedTensorType>(v.getType()) || !seen.insert(v).second)
      continue;
    Operation *def = v.getDefiningOp();
    if (auto scan = dyn_cast_or_null<kir::ScanOp>(def)) {
      if (!llvm::is_contained(scans, scan))
        scans.push_back(scan);
    } else if (def && pointwiseOp(def)) {
      for (Value operand : def->getOperands())
        worklist.push_back(resolve(operand));
    }
  }
  if (scans.size() < 2)
    return scans;
  if (llvm::any_of(scans, [&](kir::ScanOp s) { return s->getBlock() != scans.front()->getBlock(); }))
    return write.emitError() << "kir-to-pgpu constructs a value computed from several scans as one scan: they must "
                                "be in one block";
  // Stable order: the scans as they appear in the program.
  llvm::sort(scans, [](kir::ScanOp a, kir::ScanOp c) { return a->isBeforeInBlock(c); });
  for (kir::ScanOp other : ArrayRef(scans).drop_front()) {
    kir::ScanOp first = scans.front();
    FailureOr<SmallVector<Value>> mine = sizes(first.getInputs()[0]), theirs = sizes(other.getInputs()[0]);
    if (failed(mine) || failed(theirs))
      return failure();
    if (other.getAxis() != first.getAxis() ||
        other.getExclusive() != first.getExclusive() || other.getReverse() != first.getReverse() ||
        *mine != *theirs) {
      InFlightDiagnostic diag = write.emitError()
                                << "kir-to-pgpu constructs a value computed from several scans as one scan: they "
                                   "must scan the same axis of the same extents, in the same mode and direction";
      diag.attachNote(first.getLoc()) << "one scan";
      diag.attachNote(other.getLoc()) << "another scan";
      return failure();
    }
  }
  return scans;
}

/// A written value computed from `scans`' results: loops over the other axes,
/// then one pgpu.range_scan of all the scans' components along the scan axis.
/// KIR declares every scan combine associative, so the scan keeps its
/// structured form (member order, not grouping) for blocking to regroup; an
/// ordered loop would have lost that permission (seed 002 §4).
LogicalResult KernelConstructor::emitScanStore(ArrayRef<kir::ScanOp> scans, Operation &store) {
  kir::ScanOp first = scans.front();
  Location loc = first.getLoc();
  FailureOr<SmallVector<Value>> extents = sizes(first.getInputs()[0]);
  if (failed(extents))
    return failure();
  unsigned axis = first.getAxis();
  SmallVector<Value> outer(*extents);
  outer.erase(outer.begin() + axis);
  SmallVector<Value> identities;
  for (kir::ScanOp scan : scans)
    for (Value id : scan.getIdentities())
      identities.push_back(map.lookup(id));
  SmallVector<Type> types(ValueRange(identities).getTypes());
  Value length = (*extents)[axis];
  // The lines along the other axes are independent (each stores its own prefixes): a foreach nest.
  return foreachNest(loc, outer, [&](ArrayRef<Value> outerPos) -> LogicalResult {
    auto rs = pgpu::RangeScanOp::create(b, loc, constIndex(loc, 0), length, identities, first.getExclusive(),
                                        first.getReverse());
    auto positionsAt = [&](Value at) {
      SmallVector<Value> positions(outerPos);
      positions.insert(positions.begin() + axis, at);
      return positions;
    };
    {
      OpBuilder::InsertionGuard guard(b);
      Block *body = b.createBlock(&rs.getElement());
      SmallVector<Value> positions = positionsAt(body->addArgument(b.getIndexType(), loc));
      SmallVector<Value> xs;
      for (kir::ScanOp scan : scans)
        for (Value input : scan.getInputs()) {
          FailureOr<Value> x = element(input, positions);
          if (failed(x))
            return failure();
          xs.push_back(*x);
        }
      pgpu::YieldOp::create(b, loc, xs);
    }
    {
      // combine(earlier..., later...): each scan's combine on its own components.
      OpBuilder::InsertionGuard guard(b);
      Block *block = b.createBlock(&rs.getCombine());
      SmallVector<Value> earlier, later;
      for (Type t : types)
        earlier.push_back(block->addArgument(t, loc));
      for (Type t : types)
        later.push_back(block->addArgument(t, loc));
      SmallVector<Value> yields;
      unsigned offset = 0;
      for (kir::ScanOp scan : scans) {
        Block &kirBlock = scan.getCombine().front();
        unsigned n = scan.getIdentities().size();
        for (auto [i, arg] : llvm::enumerate(kirBlock.getArguments()))
          map.map(arg, i < n ? earlier[offset + i] : later[offset + i - n]);
        if (failed(emitBlock(kirBlock)))
          return failure();
        for (Value y : kirBlock.getTerminator()->getOperands())
          yields.push_back(map.lookup(y));
        offset += n;
      }
      pgpu::YieldOp::create(b, first.getCombine().front().getTerminator()->getLoc(), yields);
    }
    {
      // emit(position, prefix...): the written value at the position, computed from the prefixes there.
      OpBuilder::InsertionGuard guard(b);
      Block *body = b.createBlock(&rs.getEmit());
      SmallVector<Value> positions = positionsAt(body->addArgument(b.getIndexType(), loc));
      unsigned slot = 0;
      for (kir::ScanOp scan : scans)
        for (Value r : scan->getResults())
          realized[r].push_back(Realized{SmallVector<Value, 4>(positions.begin(), positions.end()),
                                         body->addArgument(types[slot++], loc)});
      if (failed(emitElementStore(store, positions)))
        return failure();
      pgpu::YieldOp::create(b, loc);
    }
    return success();
  });
}
