//===- RegionFolds.cpp - region folds and scans, element by element -------===//
//
// seed 002 §3.1: a kir.region_fold at the element positions a consumer needs
// is an executable physical structured op, unblocked: a pgpu.region_fold over
// unit segments of the source axis whose summarize realizes its slices and
// captures explicitly what it reads from outside. A kir.region_scan's state
// before a segment is the region fold of its transitions, its outputs the
// emit of the segment on that state. Region-fold worksets constructed on
// fragments are FoldWorkset.cpp's.
//
//===----------------------------------------------------------------------===//

#include "KernelConstructor.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::construct;

/// Physical slots of a scalar-like value: a record or tuple has one per field.
static unsigned slotWidth(Type type) {
  if (auto record = dyn_cast<kir::RecordType>(type))
    return record.getTypes().size();
  if (auto tuple = dyn_cast<TupleType>(type))
    return tuple.size();
  return 1;
}

/// Whether `bc` spreads a tensor along trailing axes only: operand axis i is result axis i.
static bool leadingBroadcast(kir::BroadcastAsOp bc) {
  auto t = dyn_cast<RankedTensorType>(bc.getOperand().getType());
  ArrayRef<int64_t> dims = bc.getDims();
  if (!t || (int64_t)dims.size() != t.getRank() || t.getRank() >= bc.getType().getRank())
    return false;
  for (auto [i, d] : llvm::enumerate(dims))
    if (d != (int64_t)i)
      return false;
  return true;
}

SmallVector<unsigned> tessel::construct::reachedComponents(Block &region, unsigned n, unsigned wanted) {
  // What each value of the region reads of the components (both sides), closed over the components
  // a reached component's own result reads.
  DenseMap<Value, uint64_t> reaches;
  for (unsigned i = 0; i < n && i < 64; ++i) {
    reaches[region.getArgument(i)] = uint64_t(1) << i;
    reaches[region.getArgument(n + i)] = uint64_t(1) << i;
  }
  for (Operation &inner : region.without_terminator()) {
    uint64_t m = 0;
    for (Value v : inner.getOperands())
      m |= reaches.lookup(v);
    for (Value r : inner.getResults())
      reaches[r] = m;
  }
  uint64_t seen = uint64_t(1) << wanted, grown = seen;
  do {
    seen = grown;
    for (unsigned i = 0; i < n && i < 64; ++i)
      if (seen & (uint64_t(1) << i))
        grown |= reaches.lookup(region.getTerminator()->getOperand(i));
  } while (grown != seen);
  SmallVector<unsigned> out;
  for (unsigned i = 0; i < n && i < 64; ++i)
    if (i != wanted && (seen & (uint64_t(1) << i)))
      out.push_back(i);
  return out;
}

/// Components of a region fold fold apart from the others when `region`
/// (a combine, or a region scan's apply: two groups of `n` arguments, the i-th
/// of each being component i) computes each of them from those components
/// only; a tensor component is projected to one element, which needs the
/// region to be elementwise (pointwise ops and scalar broadcasts). A per-row
/// summary (kir-online-folds: [H] maxima and sums beside an [H, D]
/// accumulator) spreads a lower-rank component along the trailing axes of a
/// higher-rank one (broadcast_as with dims [0 .. r-1]): the lower-rank
/// component is projected on the leading positions (slotsOf), so the
/// broadcast reads the element at the same leading positions.
LogicalResult KernelConstructor::checkProjection(Operation *op, Block &region, unsigned n,
                                                 ArrayRef<unsigned> components, StringRef what,
                                                 StringRef regionName) {
  if (n > 64)
    return op->emitError() << "kir-to-pgpu: a " << what << " of more than 64 components";
  uint64_t wanted = 0;
  for (unsigned c : components)
    wanted |= uint64_t(1) << c;
  DenseMap<Value, uint64_t> reaches;
  for (unsigned i = 0; i < n; ++i) {
    reaches[region.getArgument(i)] = uint64_t(1) << i;
    reaches[region.getArgument(n + i)] = uint64_t(1) << i;
  }
  for (Operation &inner : region.without_terminator()) {
    bool tensor = llvm::any_of(inner.getResultTypes(), [](Type t) { return isa<RankedTensorType>(t); }) ||
                  llvm::any_of(inner.getOperandTypes(), [](Type t) { return isa<RankedTensorType>(t); });
    if (tensor && !isa<kir::BinaryOp, kir::UnaryOp, kir::CmpOp, kir::SelectOp, kir::CastOp, kir::BitcastOp,
                       kir::BroadcastAsOp>(inner))
      return inner.emitError() << "kir-to-pgpu constructs a " << what
                               << " one element at a time; its " << regionName << " must be elementwise, not '"
                               << inner.getName() << "'";
    if (auto bc = dyn_cast<kir::BroadcastAsOp>(inner); bc && isa<RankedTensorType>(bc.getOperand().getType()) &&
                                                        !leadingBroadcast(bc))
      return inner.emitError() << "kir-to-pgpu: a " << what << " " << regionName
                               << " that broadcasts a tensor is not elementwise";
    uint64_t m = 0;
    for (Value v : inner.getOperands())
      m |= reaches.lookup(v);
    for (Value r : inner.getResults())
      reaches[r] = m;
  }
  for (unsigned c : components)
    if (reaches.lookup(region.getTerminator()->getOperand(c)) & ~wanted)
      return op->emitError() << "kir-to-pgpu: " << what << " component #" << c
                             << " combines with a tensor component; it cannot be folded element by element";
  return success();
}

/// A pgpu.region_fold of `components` of `op` (tensor components at
/// `positions`), over unit segments of the source axis. Summarize realizes
/// its slices from the sources at [begin, end) and reads whatever it needs;
/// everything it uses from outside becomes an explicit capture.
FailureOr<SmallVector<Value>> KernelConstructor::slotsOf(Value v, ArrayRef<Value> positions) {
  if (auto t = dyn_cast<RankedTensorType>(v.getType())) {
    // A lower-rank component of a per-row summary: its element at the leading positions.
    if (t.getRank() < (int64_t)positions.size())
      positions = positions.take_front(t.getRank());
    FailureOr<Value> e = element(v, positions);
    if (failed(e))
      return failure();
    return SmallVector<Value>{*e};
  }
  if (isa<kir::RecordType, TupleType>(v.getType())) {
    if (auto fields = recordFields.find(v); fields != recordFields.end())
      return fields->second;
    Operation *def = v.getDefiningOp();
    if (!isa_and_nonnull<kir::RecordOp, kir::TupleOp>(def))
      return (def ? def : kernel.getOperation())->emitError() << "kir-to-pgpu: a summary record must be built here";
    return scalars(def->getOperands());
  }
  FailureOr<Value> x = scalar(v);
  if (failed(x))
    return failure();
  return SmallVector<Value>{*x};
}

unsigned KernelConstructor::bindSlots(Value kirValue, ArrayRef<Value> slots) {
  unsigned width = slotWidth(kirValue.getType());
  if (isa<kir::RecordType, TupleType>(kirValue.getType()))
    recordFields[kirValue] = SmallVector<Value>(slots.take_front(width));
  else
    map.map(kirValue, slots[0]);
  return width;
}

LogicalResult KernelConstructor::bindCaptures(ValueRange args, ValueRange captures) {
  for (auto [arg, capture] : llvm::zip(args, captures)) {
    if (isa<RankedTensorType>(capture.getType())) {
      aliases[arg] = capture;
      continue;
    }
    FailureOr<Value> v = scalar(capture);
    if (failed(v))
      return failure();
    map.map(arg, *v);
  }
  return success();
}

/// A pgpu.region_fold of `components` of `op` (tensor components at
/// `positions`, records as their fields), over unit segments of the source
/// axis. Summarize realizes its slices from the sources at [begin, end) and
/// reads whatever it needs; everything it uses from outside becomes an
/// explicit capture. Returns one value per physical slot, in component order.
FailureOr<SmallVector<Value>> KernelConstructor::foldAt(const FoldParts &parts, ArrayRef<unsigned> components,
                                                       ArrayRef<Value> positions, Value upper) {
  Operation *op = parts.op;
  unsigned n = parts.identities.size();
  if (failed(checkProjection(op, parts.combine->front(), n, components,
                             isa<kir::RegionScanOp>(op) ? "region scan's transition" : "region fold's summary", "combine")))
    return failure();
  Location loc = op->getLoc();
  unsigned axis = parts.axis;
  FailureOr<SmallVector<Value>> sourceSizes = sizes(parts.sources[0]);
  if (failed(sourceSizes))
    return failure();
  SmallVector<Value> identities;
  SmallVector<Type> types;
  SmallVector<unsigned> width; // slots per component
  for (unsigned c : components) {
    FailureOr<SmallVector<Value>> id = slotsOf(parts.identities[c], positions);
    if (failed(id))
      return failure();
    width.push_back(id->size());
    for (Value v : *id) {
      if (!v.getType().isIntOrIndexOrFloat())
        return op->emitError() << "kir-to-pgpu: a region fold summary field must be a scalar";
      identities.push_back(v);
      types.push_back(v.getType());
    }
  }
  auto yieldSlots = [&](Block &kirBlock, ArrayRef<Value> at) -> FailureOr<SmallVector<Value>> {
    SmallVector<Value> out;
    for (unsigned c : components) {
      FailureOr<SmallVector<Value>> slots = slotsOf(kirBlock.getTerminator()->getOperand(c), at);
      if (failed(slots))
        return failure();
      llvm::append_range(out, *slots);
    }
    return out;
  };
  Value lower = constIndex(loc, 0), step = constIndex(loc, 1);
  if (!upper)
    upper = (*sourceSizes)[axis];
  auto fold = pgpu::RegionFoldOp::create(b, loc, types, lower, upper, step, identities, ValueRange{});
  {
    OpBuilder::InsertionGuard guard(b);
    Block *body = b.createBlock(&fold.getSummarize());
    Value begin = body->addArgument(b.getIndexType(), loc), end = body->addArgument(b.getIndexType(), loc);
    Block &kirBody = parts.summarize->front();
    unsigned nSources = parts.sources.size();
    Value size = binary(loc, kir::BinaryKind::Sub, end, begin);
    for (unsigned i = 0; i < nSources; ++i)
      slices[kirBody.getArgument(i)] = {parts.sources[i], axis, begin, size};
    if (failed(bindCaptures(kirBody.getArguments().drop_front(nSources), parts.captures)) ||
        failed(emitBlock(kirBody)))
      return failure();
    FailureOr<SmallVector<Value>> yields = yieldSlots(kirBody, positions);
    if (failed(yields))
      return failure();
    pgpu::YieldOp::create(b, loc, *yields);

    // combine(earlier, later) on the projected components.
    Block *merge = b.createBlock(&fold.getCombine());
    Block &kirMerge = parts.combine->front();
    for (unsigned side = 0; side < 2; ++side) {
      unsigned slot = 0;
      for (auto [j, c] : llvm::enumerate(components)) {
        SmallVector<Value> args;
        for (unsigned k = 0; k < width[j]; ++k)
          args.push_back(merge->addArgument(types[slot++], loc));
        bindSlots(kirMerge.getArgument(side * n + c), args);
      }
    }
    if (failed(emitBlock(kirMerge)))
      return failure();
    // Elementwise (checked): any position reads the projected element of a tensor component.
    SmallVector<Value> anywhere(positions.size(), constIndex(loc, 0));
    FailureOr<SmallVector<Value>> merged = yieldSlots(kirMerge, anywhere);
    if (failed(merged))
      return failure();
    pgpu::YieldOp::create(b, loc, *merged);
  }
  fold = closeSummarize(b, fold);
  return SmallVector<Value>(fold.getResults());
}

SmallVector<unsigned> KernelConstructor::scalarComponents(TypeRange types) {
  SmallVector<unsigned> out;
  for (auto [i, t] : llvm::enumerate(types))
    if (!isa<RankedTensorType>(t))
      out.push_back(i);
  return out;
}

/// The state of a region scan before segment `upper` (unit segments: after
/// members [0, upper) of the source axis), for `components` (tensor ones at
/// `positions`): the region fold of the transitions of those segments,
/// applied to `init`. Construction carries no tensor state (seed 002 §3.1:
/// unblocked), so an emit that reads a state tensor rematerializes the
/// elements it reads this way; the scan's combine composes transitions
/// (kir.region_scan's contract), so the fold equals applying them in order.
/// Needs transitions and states of the same components, and combine and
/// apply elementwise on tensor components (checked, errors at the op).
FailureOr<SmallVector<Value>> KernelConstructor::scanStateAt(kir::RegionScanOp op, ArrayRef<unsigned> components,
                                                            ArrayRef<Value> positions, Value upper) {
  Location loc = op.getLoc();
  unsigned n = op.getInits().size();
  if (op.getIdentities().getTypes() != op.getInits().getTypes())
    return op.emitError() << "kir-to-pgpu constructs a region scan whose transitions and states have the same "
                             "components (it folds transitions element by element and applies them once)";
  if (failed(checkProjection(op, op.getApply().front(), n, components, "region scan's state", "apply")))
    return failure();
  FailureOr<SmallVector<Value>> folded = foldAt(op, components, positions, upper);
  if (failed(folded))
    return failure();
  // apply(transition, init) on the projected components.
  Block &apply = op.getApply().front();
  ArrayRef<Value> transition(*folded);
  for (auto [side, values] : llvm::enumerate(std::array<ValueRange, 2>{op.getIdentities(), op.getInits()})) {
    unsigned slot = 0;
    for (unsigned c : components) {
      Value arg = apply.getArgument(side * n + c);
      if (side == 0) {
        slot += bindSlots(arg, transition.drop_front(slot));
        continue;
      }
      FailureOr<SmallVector<Value>> init = slotsOf(values[c], positions);
      if (failed(init))
        return failure();
      bindSlots(arg, *init);
    }
  }
  if (failed(emitBlock(apply)))
    return failure();
  SmallVector<Value> out, anywhere(positions.size(), constIndex(loc, 0));
  for (unsigned c : components) {
    FailureOr<SmallVector<Value>> slots = slotsOf(apply.getTerminator()->getOperand(c), anywhere);
    if (failed(slots))
      return failure();
    llvm::append_range(out, *slots);
  }
  return out;
}

/// Output `output` of a region scan at `positions` (the leading one along the
/// source axis): the emit of the unit segment holding that member, on the
/// state before it. Scalar state components are folded once for the segment;
/// tensor ones are realized per element where emit reads them.
FailureOr<Value> KernelConstructor::emittedAt(kir::RegionScanOp op, unsigned output, ArrayRef<Value> positions) {
  Location loc = op.getLoc();
  Value begin = positions[0];
  Block &emit = op.getEmit().front();
  unsigned nSources = op.getSources().size(), n = op.getInits().size();
  for (unsigned i = 0; i < nSources; ++i)
    slices[emit.getArgument(i)] = {op.getSources()[i], unsigned(op.getAxis()), begin, constIndex(loc, 1)};
  SmallVector<unsigned> scalarState = scalarComponents(op.getInits().getTypes());
  SmallVector<Value> folded;
  if (!scalarState.empty()) {
    FailureOr<SmallVector<Value>> s = scanStateAt(op, scalarState, {}, begin);
    if (failed(s))
      return failure();
    folded = *s;
  }
  unsigned slot = 0;
  for (unsigned c = 0; c < n; ++c) {
    Value arg = emit.getArgument(nSources + c);
    if (isa<RankedTensorType>(arg.getType()))
      incoming[arg] = {op, c, begin};
    else
      slot += bindSlots(arg, ArrayRef<Value>(folded).drop_front(slot));
  }
  if (failed(bindCaptures(emit.getArguments().drop_front(nSources + n), op.getCaptures())) ||
      failed(emitBlock(emit)))
    return failure();
  SmallVector<Value> local(positions);
  local[0] = constIndex(loc, 0);
  return element(emit.getTerminator()->getOperand(output), local);
}

/// Close summarize over its inputs: program coordinates, views and scalars it reads from outside
/// become explicit captures (block arguments of a rebuilt op); constants stay shared.
pgpu::RegionFoldOp tessel::construct::closeSummarize(OpBuilder &b, pgpu::RegionFoldOp fold) {
  llvm::SetVector<Value> outside;
  Region &summarize = fold.getSummarize();
  summarize.walk([&](Operation *inner) {
    for (Value v : inner->getOperands())
      if (!summarize.isAncestor(v.getParentRegion()) && !matchPattern(v, m_Constant()))
        outside.insert(v);
  });
  if (outside.empty())
    return fold;
  Location loc = fold.getLoc();
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(fold);
  auto closed = pgpu::RegionFoldOp::create(b, loc, fold.getResultTypes(), fold.getLower(), fold.getUpper(),
                                           fold.getStep(), fold.getIdentities(), outside.getArrayRef());
  closed.getSummarize().takeBody(fold.getSummarize());
  closed.getCombine().takeBody(fold.getCombine());
  Block &entry = closed.getSummarize().front();
  for (Value v : outside) {
    BlockArgument arg = entry.addArgument(v.getType(), loc);
    v.replaceUsesWithIf(arg, [&](OpOperand &use) {
      return closed.getSummarize().isAncestor(use.getOwner()->getParentRegion());
    });
  }
  fold.erase();
  return closed;
}
