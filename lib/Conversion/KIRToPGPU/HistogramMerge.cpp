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
//===----------------------------------------------------------------------===//

#include "KernelConstructor.h"

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

LogicalResult KernelConstructor::emitHistogramMerge(Operation &op, Value partial, ArrayRef<Value> positions) {
  Location loc = op.getLoc();
  kir::HistogramOp h = mergedHistogram(op);
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
  Type countType = getElementTypeOrSelf(h.getType());
  Value one = arith::ConstantOp::create(b, loc, b.getIntegerAttr(countType, 1));
  auto merge = pgpu::ScatterReduceOp::create(b, loc, one, partial, ValueRange{bin}, ok);
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
