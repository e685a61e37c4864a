//===- HistogramMerge.cpp - stored histograms merged through workspace -----===//
//
// seed 000 §4.4, §8, §9; seed 002 §3.1. A top-level `h[bins] = histogram(x,
// bins, valid)` counts every source element into one bin. Realized per bin
// (the default element-wise construction) each bin re-reads the whole source:
// O(N * B). Here the workset is the source instead: each element adds one to
// its bin of an invocation-workspace partial (i32 workspace the runtime fills
// with 0), a scatter-reduce whose collisions combine under the histogram's
// sum, so no element has a unique owner and none is needed. The last program
// instance to arrive (pgpu.last_program: an acq_rel ticket, no barrier, no
// second launch) copies the partial into `h`, the store's first write.
// Blocking then gives each program a block of source elements (refine-mapping,
// form-blocking), and pgpu-privatize-histograms may count a block into a
// privatized fragment first.
//
// A histogram stored inside a kir.parallel at [member coordinates..., bins]
// (each member its own row of bins: a per-row histogram) is counted by its
// member alone: the member adds one per source element into its row of an
// invocation-workspace partial (zero, kept zero between launches), then
// copies the row out and returns it to zero. No member re-reads its source
// per bin, and no row is shared, so no ticket is needed; pgpu-privatize-
// histograms counts each member's blocks into a fragment first. A row of a
// kernel-level buffer (invocation workspace) is counted the same way.
//
//===----------------------------------------------------------------------===//

#include "KernelConstructor.h"

#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::construct;

kir::HistogramOp KernelConstructor::mergedHistogram(Operation &op) {
  auto store = dyn_cast<kir::StoreOp>(op);
  if (!store || store.getValid() || store.getCoords().size() != 1)
    return {};
  auto histogram = store.getValue().getDefiningOp<kir::HistogramOp>();
  // The store writes exactly the histogram's bins, in bin order.
  if (!histogram || store.getCoords()[0] != histogram.getBins())
    return {};
  return histogram;
}

/// The coordinates of a store to a view or to a kernel-level buffer (null for other ops).
static std::optional<ValueRange> rowStoreCoords(Operation *op) {
  if (auto store = dyn_cast_or_null<kir::StoreOp>(op))
    return store.getValid() ? std::nullopt : std::optional<ValueRange>(store.getCoords());
  if (auto store = dyn_cast_or_null<kir::BufferStoreOp>(op))
    return store.getCoords();
  return std::nullopt;
}

bool KernelConstructor::memberRowStore(Operation *store, Value bins) {
  std::optional<ValueRange> coords = rowStoreCoords(store);
  if (!coords || coords->size() < 2 || coords->back() != bins)
    return false;
  // The other coordinates are the enclosing parallel's members, each once and all of them: every
  // member owns one row of bins and no two members share one (the store's unique owner).
  auto parallel = dyn_cast_or_null<kir::ParallelOp>(store->getParentOp());
  if (!parallel)
    return false;
  Block &body = parallel.getBody().front();
  ValueRange members = coords->drop_back();
  if (members.size() != body.getNumArguments())
    return false;
  llvm::SmallPtrSet<Value, 4> seen;
  for (Value c : members) {
    auto arg = dyn_cast<BlockArgument>(c);
    if (!arg || arg.getOwner() != &body || !seen.insert(c).second)
      return false;
  }
  return true;
}

kir::HistogramOp KernelConstructor::memberHistogram(Operation &op) {
  Value value;
  if (auto store = dyn_cast<kir::StoreOp>(op))
    value = store.getValue();
  // A kernel-level buffer's row (the per-image counts a later statement of the member reads) is
  // counted the same way: only the copy-out differs.
  else if (auto store = dyn_cast<kir::BufferStoreOp>(op); store && kernelBuffers.contains(store.getBuffer()))
    value = store.getValue();
  else
    return {};
  auto histogram = value.getDefiningOp<kir::HistogramOp>();
  if (!histogram || !memberRowStore(&op, histogram.getBins()))
    return {};
  return histogram;
}

SmallVector<kir::HistogramOp> KernelConstructor::pointwiseHistograms(kir::StoreOp store) {
  SmallVector<kir::HistogramOp> out;
  auto vt = dyn_cast<RankedTensorType>(store.getValue().getType());
  if (!vt || vt.getRank() != 1 || store.getValue().getDefiningOp<kir::HistogramOp>())
    return out;
  // The value's producers through rank-1 pointwise ops of the member's body: each reads its operands
  // at the stored bin's own position; a histogram reached so is read at its bin only.
  SmallVector<Value> work{store.getValue()};
  DenseSet<Value> seen;
  bool pointwise = true;
  while (!work.empty() && pointwise) {
    Value v = work.pop_back_val();
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t || !seen.insert(v).second)
      continue;
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != store->getBlock())
      continue;
    if (auto h = dyn_cast<kir::HistogramOp>(def)) {
      if (memberRowStore(store, h.getBins()))
        out.push_back(h);
      continue;
    }
    if (!isa<kir::BinaryOp, kir::UnaryOp, kir::CastOp, kir::SelectOp, kir::CmpOp>(def)) {
      continue; // read as it is (a load, a broadcast of a scalar): no histogram behind it counts here
    }
    if (t.getRank() != 1)
      pointwise = false;
    llvm::append_range(work, def->getOperands());
  }
  if (!pointwise)
    out.clear();
  return out;
}

FailureOr<Value> KernelConstructor::countMemberHistogram(Location loc, Operation *store, kir::HistogramOp h,
                                                         Type countType) {
  // The partial has the target's extents: a view's, or the kernel-level buffer's workspace's.
  ArrayRef<Attribute> targetExtents;
  if (auto st = dyn_cast<kir::StoreOp>(store))
    targetExtents = cast<kir::ViewType>(st.getView().getType()).getExtents();
  else if (Value buffer = map.lookupOrNull(cast<kir::BufferStoreOp>(store).getBuffer()))
    targetExtents = cast<pgpu::BufferType>(buffer.getType()).getExtents();
  else
    return unsupported(store);
  ValueRange storeCoords = *rowStoreCoords(store);
  // Zero at the first launch and returned to zero after the member's store (pgpu.kept).
  Value partial = addWorkspace(loc, countType, targetExtents, b.getIntegerAttr(countType, 0));
  physical.setArgAttr(cast<BlockArgument>(partial).getArgNumber(), "pgpu.kept", b.getUnitAttr());
  FailureOr<SmallVector<Value>> extents = sizes(h.getInput());
  if (failed(extents))
    return failure();
  LogicalResult counted = foreachNest(loc, *extents, [&](ArrayRef<Value> positions) -> LogicalResult {
    FailureOr<std::pair<Value, Value>> bin = histogramBin(loc, h, positions);
    if (failed(bin))
      return failure();
    FailureOr<SmallVector<Value>> coords = accessCoords(loc, storeCoords, {bin->first}, store);
    if (failed(coords))
      return failure();
    Value one = arith::ConstantOp::create(b, loc, b.getIntegerAttr(countType, 1));
    auto merge = pgpu::ScatterReduceOp::create(b, loc, one, partial, *coords, bin->second);
    return addCombine(merge.getCombine(), TypeRange{countType});
  });
  if (failed(counted))
    return failure();
  return partial;
}

Value KernelConstructor::addWorkspace(Location loc, Type element, ArrayRef<Attribute> extents, TypedAttr init) {
  MLIRContext *ctx = element.getContext();
  auto type = pgpu::BufferType::get(ctx, element, extents, pgpu::BufferScope::Workspace);
  NamedAttrList attrs;
  attrs.append("pgpu.private", b.getStringAttr("workspace"));
  if (init)
    attrs.append("pgpu.init", init);
  unsigned index = physical.getNumArguments();
  physical.insertArgument(index, type, attrs.getDictionary(ctx), loc);
  return physical.getBody().getArgument(index);
}

FailureOr<std::pair<Value, Value>> KernelConstructor::histogramBin(Location loc, kir::HistogramOp h, ArrayRef<Value> positions) {
  FailureOr<Value> x = element(h.getInput(), positions);
  if (failed(x))
    return failure();
  Value ok = trueValue(loc);
  if (h.getValid()) {
    FailureOr<Value> v = element(h.getValid(), positions);
    if (failed(v))
      return failure();
    ok = *v;
  }
  // Values outside [0, bins) are counted nowhere (compared in the value's type, as KIR does).
  Type valueType = x->getType();
  Value bins = domains.lookup(h.getBins()).size;
  Value binsAsValue = valueType.isIndex() ? bins : Value(pgpu::CastOp::create(b, loc, valueType, bins));
  Value low = pgpu::CmpOp::create(b, loc, kir::CmpPredicate::GE, *x, zeroOf(loc, valueType));
  Value high = pgpu::CmpOp::create(b, loc, kir::CmpPredicate::LT, *x, binsAsValue);
  ok = boolOp(loc, kir::BinaryKind::And, ok, boolOp(loc, kir::BinaryKind::And, low, high));
  Value bin = valueType.isIndex() ? *x : Value(pgpu::CastOp::create(b, loc, b.getIndexType(), *x));
  return std::make_pair(bin, ok);
}

LogicalResult KernelConstructor::emitHistogramMerge(Operation &op, Value partial, ArrayRef<Value> positions) {
  Location loc = op.getLoc();
  kir::HistogramOp h = mergedHistogram(op);
  FailureOr<std::pair<Value, Value>> counted = histogramBin(loc, h, positions);
  if (failed(counted))
    return failure();
  Type countType = getElementTypeOrSelf(h.getType());
  Value one = arith::ConstantOp::create(b, loc, b.getIntegerAttr(countType, 1));
  auto merge = pgpu::ScatterReduceOp::create(b, loc, one, partial, ValueRange{counted->first}, counted->second);
  return addCombine(merge.getCombine(), TypeRange{countType});
}

LogicalResult KernelConstructor::emitHistogramFinalize(Operation &op, Value partial) {
  Location loc = op.getLoc();
  auto store = cast<kir::StoreOp>(op);
  kir::HistogramOp h = mergedHistogram(op);
  Type countType = getElementTypeOrSelf(h.getType());
  Value viewArg = physical.getBody().getArgument(cast<BlockArgument>(store.getView()).getArgNumber());
  auto each = pgpu::ForeachOp::create(b, loc, constIndex(loc, 0), domains.lookup(h.getBins()).size);
  OpBuilder::InsertionGuard guard(b);
  Block *body = b.createBlock(&each.getBody());
  Value position = body->addArgument(b.getIndexType(), loc);
  Value count = pgpu::BufferLoadOp::create(b, loc, countType, partial, ValueRange{position}, trueValue(loc),
                                           zeroOf(loc, countType));
  FailureOr<SmallVector<Value>> coords = accessCoords(loc, store.getCoords(), {position}, store);
  if (failed(coords))
    return failure();
  pgpu::StoreOp::create(b, loc, count, viewArg, *coords, trueValue(loc));
  pgpu::YieldOp::create(b, loc);
  return success();
}

LogicalResult KernelConstructor::emitMemberHistogram(Operation *store, kir::HistogramOp h) {
  Location loc = store->getLoc();
  Type countType = getElementTypeOrSelf(h.getType());
  // Each source element of the member adds one to its bin of the member's row, in kept workspace
  // (zero at the first launch and returned to zero by each member's copy-out, like tickets).
  FailureOr<Value> partial = countMemberHistogram(loc, store, h, countType);
  if (failed(partial))
    return failure();
  // The row out, each element returned to zero as it is read (the store's first write): to the view,
  // or to the kernel-level buffer's workspace.
  Value target;
  if (auto st = dyn_cast<kir::StoreOp>(store))
    target = physical.getBody().getArgument(cast<BlockArgument>(st.getView()).getArgNumber());
  else
    target = map.lookup(cast<kir::BufferStoreOp>(store).getBuffer());
  ValueRange storeCoords = *rowStoreCoords(store);
  return foreachNest(loc, {domains.lookup(h.getBins()).size}, [&](ArrayRef<Value> positions) -> LogicalResult {
    FailureOr<SmallVector<Value>> coords = accessCoords(loc, storeCoords, positions, store);
    if (failed(coords))
      return failure();
    Value count = pgpu::BufferLoadOp::create(b, loc, countType, *partial, *coords, trueValue(loc), zeroOf(loc, countType));
    pgpu::BufferStoreOp::create(b, loc, zeroOf(loc, countType), *partial, *coords, trueValue(loc));
    if (isa<kir::StoreOp>(store))
      pgpu::StoreOp::create(b, loc, count, target, *coords, trueValue(loc));
    else
      pgpu::BufferStoreOp::create(b, loc, count, target, *coords, trueValue(loc));
    return success();
  });
}
