//===- KernelBuffers.cpp - kernel-level buffers as invocation workspace ----===//
//
// seed 000 §4.4 (buffers: invocation workspace the runtime allocates, under a
// first-write obligation or a stated fill), §9 (one artifact, one launch).
// A top-level `kir.buffer` lives for the whole invocation: it becomes a
// workspace argument of the physical kernel, sized from the buffer's domains
// (view extents or constants) and filled only when the buffer states a scalar
// initial value. Worksets write and read it with pgpu.buffer_store/load.
//
// One launch has no barrier between worksets, so a workset that reads what an
// earlier workset wrote into such a buffer cannot share the program space:
// it runs whole in the program instance that arrives last (pgpu.last_program,
// an acq_rel ticket), after every instance's writes, as one independent
// pgpu.foreach over its elements that blocking may spread over lanes. This is
// the one-launch form of a reduction over split partials (split-K).
//
//===----------------------------------------------------------------------===//

#include "KernelConstructor.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::construct;

/// The workspace extent of a buffer axis over `domain`: a view extent's name or a constant size.
FailureOr<Attribute> tessel::construct::workspaceExtent(OpBuilder &b, Value domain) {
  auto d = domain.getDefiningOp<kir::DomainOp>();
  APInt lo, hi;
  if (!d || d.getStep() != 1 || !matchPattern(d.getLower(), m_ConstantInt(&lo)) || !lo.isZero())
    return failure();
  if (auto e = d.getUpper().getDefiningOp<kir::ExtentOp>())
    return Attribute(b.getStringAttr(e.getName()));
  if (matchPattern(d.getUpper(), m_ConstantInt(&hi)))
    return Attribute(b.getI64IntegerAttr(std::max<int64_t>(hi.getSExtValue(), 0)));
  return failure();
}

LogicalResult KernelConstructor::emitKernelBuffer(kir::BufferOp op) {
  Location loc = op.getLoc();
  SmallVector<Attribute> extents;
  for (auto [axis, domain] : llvm::enumerate(op.getDomains())) {
    FailureOr<Attribute> e = workspaceExtent(b, domain);
    if (failed(e)) {
      // [0, n) with step 1, n another launch-time fact (an integer kernel scalar: corpus 306's
      // `T.domain(0, T.cast(groups, T.index))`): a pgpu.workspace_extent symbol bound to its size,
      // which the runtime evaluates as it does the grid (seed 000 §2, §4.4).
      auto d = domain.getDefiningOp<kir::DomainOp>();
      Value size = domains.lookup(domain).size;
      if (!d || d.getStep() != 1 || !matchPattern(d.getLower(), m_Zero()) || !size)
        return op.emitError() << "kir-to-pgpu: axis " << axis
                              << " of a kernel-level buffer must span [0, n) with step 1, n a launch-time fact "
                                 "(a view extent, an integer kernel scalar, a constant, or integer arithmetic on "
                                 "them), to become invocation workspace";
      std::string name = "BUFFER_EXTENT";
      for (unsigned i = 1; pgpu::workspaceExtent(physical, name); ++i)
        name = "BUFFER_EXTENT" + std::to_string(i);
      pgpu::WorkspaceExtentOp::create(b, loc, name, size);
      e = Attribute(b.getStringAttr(name));
    }
    extents.push_back(*e);
  }
  Type element = getElementTypeOrSelf(cast<kir::BufferType>(op.getType()).getValueType());
  TypedAttr init;
  if (Value v = op.getInit()) {
    Attribute constant;
    if (isa<RankedTensorType>(v.getType()) || !matchPattern(v, m_Constant(&constant)) || !isa<TypedAttr>(constant))
      return op.emitError() << "kir-to-pgpu: a kernel-level buffer's initial value must be a constant scalar "
                               "(the workspace fill) or absent (first_write)";
    init = cast<TypedAttr>(constant);
  }
  Value workspace = addWorkspace(loc, element, extents, init);
  map.map(op.getResult(), workspace);
  kernelBuffers.insert(op.getResult());
  return success();
}

LogicalResult KernelConstructor::emitFinalization(Workset &w) {
  Location loc = w.op->getLoc();
  // An in-place update whose replayed values include whole-view scalars of the view it writes: those
  // scalars are computed here, once, before the element loop stores anything (tensor values stay
  // lazy: each element reads its own coordinates before storing them).
  if (w.hoist) {
    SmallVector<Operation *> uses = worksetUses(w);
    DenseSet<Operation *> chosen(uses.begin(), uses.end());
    for (Operation *pure : replayed)
      if (chosen.contains(pure) && failed(emitStatement(*pure)))
        return failure();
  }
  Value total = w.extents.empty() ? constIndex(loc, 1) : w.extents.front();
  for (Value e : ArrayRef<Value>(w.extents).drop_front(w.extents.empty() ? 0 : 1))
    total = binary(loc, kir::BinaryKind::Mul, total, e);
  auto each = pgpu::ForeachOp::create(b, loc, constIndex(loc, 0), total);
  OpBuilder::InsertionGuard guard(b);
  Block *body = b.createBlock(&each.getBody());
  Value linear = body->addArgument(b.getIndexType(), loc);
  SmallVector<Value> positions;
  if (w.extents.size() == 1) {
    positions.push_back(linear);
  } else if (!w.extents.empty()) {
    SmallVector<Type> types(w.extents.size(), b.getIndexType());
    auto decoded = pgpu::DelinearizeOp::create(b, loc, types, linear, w.extents);
    positions.append(decoded.getResults().begin(), decoded.getResults().end());
  }
  if (failed(emitWorksetElement(w, positions)))
    return failure();
  pgpu::YieldOp::create(b, loc);
  return success();
}
