//===- Statements.cpp - statements inside a workset -----------------------===//
//
// seed 002 §3.1: the statements of a workset's body. Launch-time facts at
// the kernel's top level become LaunchExprs; inside a workset scalars are
// computed eagerly and tensors realized lazily by the consumers that need
// them; a write (store, scatter, scatter-reduce) of a tensor is a foreach
// over its elements, each element's value built where it is written, with
// the coordinates, validity and fill of the op.
//
//===----------------------------------------------------------------------===//

#include "KernelConstructor.h"

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::construct;

/// Launch-time facts at the kernel's top level: constants, extents,
/// constexprs, domains and integer arithmetic, all LaunchExprs in pgpu.
LogicalResult KernelConstructor::emitLaunchFact(Operation &op) {
  Location loc = op.getLoc();
  return llvm::TypeSwitch<Operation *, LogicalResult>(&op)
      .Case<arith::ConstantOp>([&](arith::ConstantOp c) {
        map.map(c.getResult(), b.clone(op)->getResult(0));
        return success();
      })
      .Case<kir::ExtentOp>([&](kir::ExtentOp e) -> LogicalResult {
        for (auto [i, type] : llvm::enumerate(kernel.getArgumentTypes()))
          if (auto view = dyn_cast<kir::ViewType>(type))
            for (unsigned axis = 0; axis < view.getRank(); ++axis)
              if (view.getExtentName(axis) == e.getName()) {
                map.map(e.getResult(), pgpu::ExtentOp::create(b, loc, physical.getBody().getArgument(i), axis));
                return success();
              }
        return e.emitError() << "no view declares extent '" << e.getName() << "'";
      })
      .Case<kir::ConstexprOp>([&](kir::ConstexprOp c) -> LogicalResult {
        Attribute value = kernel.getConstexprValue(c.getName());
        int64_t v = isa<BoolAttr>(value) ? cast<BoolAttr>(value).getValue() : cast<IntegerAttr>(value).getInt();
        map.map(c.getResult(), arith::ConstantOp::create(b, loc, b.getIntegerAttr(c.getType(), v)));
        return success();
      })
      .Case<kir::DomainOp, kir::SubregionOp>([&](Operation *d) { return defineDomain(d); })
      .Case<kir::BinaryOp, kir::CmpOp, kir::SelectOp, kir::CastOp>([&](Operation *arith) -> LogicalResult {
        if (!arith->getResult(0).getType().isIntOrIndex())
          return arith->emitError() << "kir-to-pgpu: top-level float arithmetic is not a launch-time fact; "
                                       "compute it inside a kir.parallel";
        return emitScalarPointwise(arith);
      })
      .Default([&](Operation *other) -> LogicalResult {
        return other->emitError() << "kir-to-pgpu: top-level '" << other->getName()
                                  << "' is not a launch-time fact; effects must be inside a kir.parallel workset";
      });
}

/// A scalar pointwise op on realized scalars.
LogicalResult KernelConstructor::emitScalarPointwise(Operation *op) {
  FailureOr<SmallVector<Value>> operands = scalars(op->getOperands());
  if (failed(operands))
    return failure();
  FailureOr<Value> result = convertPointwise(op, *operands);
  if (failed(result))
    return failure();
  map.map(op->getResult(0), *result);
  return success();
}

LogicalResult KernelConstructor::emitStore(Operation &op) {
  if (auto scatter = dyn_cast<kir::ScatterOp>(op); scatter && scatterSelfRead(scatter))
    return emitStagedScatter(scatter);
  Value value = op.getOperand(0);
  FailureOr<SmallVector<StoredScan>> scans = scansOfStored(op);
  if (failed(scans))
    return failure();
  if (!scans->empty())
    return emitScanStore(*scans, op); // ScanValues.cpp
  if (kir::HistogramOp h = memberHistogram(op))
    return emitMemberHistogram(&op, h); // HistogramMerge.cpp
  // A member's histogram read pointwise by its store at the store's own bins (logits minus penalties of
  // the generated tokens' counts): counted once into the member's row of kept workspace, O(source),
  // instead of once per bin, O(source * bins) (seed 002 §3: replay versus materialization); the row
  // returns to zero after the store.
  SmallVector<kir::HistogramOp> staged;
  if (auto st = dyn_cast<kir::StoreOp>(op))
    staged = pointwiseHistograms(st);
  for (kir::HistogramOp h : staged) {
    FailureOr<Value> partial = countMemberHistogram(h.getLoc(), cast<kir::StoreOp>(op), h,
                                                      getElementTypeOrSelf(h.getType()));
    if (failed(partial))
      return failure();
    stagedHistograms[h] = {*partial, cast<kir::StoreOp>(op)};
    if (pgpu::remarksEnabled(kernel))
      emitRemark(h.getLoc()) << "kir-to-pgpu: this member histogram is counted once into a row of kept "
                                "workspace and read per bin by the store (not recounted per bin)";
  }
  SmallVector<Value> extents;
  if (isa<RankedTensorType>(value.getType())) {
    FailureOr<SmallVector<Value>> s = sizes(value);
    if (failed(s))
      return failure();
    extents = *s;
  }
  // The elements of a stored tensor are an independent workset: pgpu.foreach.
  if (failed(foreachNest(op.getLoc(), extents,
                         [&](ArrayRef<Value> positions) { return emitElementStore(op, positions); })))
    return failure();
  // The staged rows back to zero (pgpu.kept), after every element read them.
  for (kir::HistogramOp h : staged) {
    auto [partial, store] = stagedHistograms.lookup(h);
    stagedHistograms.erase(h);
    Type countType = getElementTypeOrSelf(h.getType());
    LogicalResult zeroed = foreachNest(h.getLoc(), {domains.lookup(h.getBins()).size},
                                       [&](ArrayRef<Value> positions) -> LogicalResult {
      FailureOr<SmallVector<Value>> coords = accessCoords(h.getLoc(), store.getCoords(), positions, store);
      if (failed(coords))
        return failure();
      pgpu::BufferStoreOp::create(b, h.getLoc(), zeroOf(h.getLoc(), countType), partial, *coords,
                                  trueValue(h.getLoc()));
      return success();
    });
    if (failed(zeroed))
      return failure();
  }
  return success();
}

/// The physical write of one element: store, unique scatter or scatter-reduce.
LogicalResult KernelConstructor::emitWrite(Operation &op, Value value, Value viewArg, ValueRange coords, Value valid) {
  Location loc = op.getLoc();
  if (isa<kir::ScatterOp>(op)) {
    pgpu::ScatterOp::create(b, loc, value, viewArg, coords, valid);
  } else if (auto sr = dyn_cast<kir::ScatterReduceOp>(op)) {
    auto phys = pgpu::ScatterReduceOp::create(b, loc, value, viewArg, coords, valid);
    return convertCombineRegion(sr.getCombine(), phys.getCombine(), TypeRange{value.getType()});
  } else if (auto rmw = dyn_cast<kir::AtomicRMWOp>(op)) {
    // A relaxed read-modify-write whose old value is unused is a scatter-reduce whose combine is the
    // kind's binary op (checked by atomicAsScatterReduce).
    auto phys = pgpu::ScatterReduceOp::create(b, loc, value, viewArg, coords, valid);
    OpBuilder::InsertionGuard guard(b);
    Block *block = b.createBlock(&phys.getCombine());
    Value old = block->addArgument(value.getType(), loc), update = block->addArgument(value.getType(), loc);
    pgpu::YieldOp::create(b, loc, ValueRange{binary(loc, *rmwBinaryKind(rmw.getKind()), old, update)});
  } else if (llvm::any_of(coords, [](Value c) { return pgpu::readFeeding(c) != nullptr; })) {
    pgpu::ScatterOp::create(b, loc, value, viewArg, coords, valid); // unique writes at data-dependent places
  } else {
    pgpu::StoreOp::create(b, loc, value, viewArg, coords, valid);
  }
  return success();
}

/// The element of a store/scatter/scatter-reduce's value at `positions`.
LogicalResult KernelConstructor::emitElementStore(Operation &op, ArrayRef<Value> positions) {
  FailureOr<Value> v = element(op.getOperand(0), positions);
  if (failed(v))
    return failure();
  return emitElementWrite(op, *v, positions);
}

/// Writes `value` where the write op `op` puts the element at `positions`:
/// coordinates and validity come from the op, evaluated at those positions.
/// The binary op an atomic read-modify-write kind combines with (the KIR interpreter's applyRMW:
/// max and min propagate NaN); nothing for an exchange, which combines nothing.
std::optional<kir::BinaryKind> KernelConstructor::rmwBinaryKind(kir::RMWKind kind) {
  switch (kind) {
  case kir::RMWKind::Add: return kir::BinaryKind::Add;
  case kir::RMWKind::Max: return kir::BinaryKind::Max;
  case kir::RMWKind::Min: return kir::BinaryKind::Min;
  case kir::RMWKind::And: return kir::BinaryKind::And;
  case kir::RMWKind::Or: return kir::BinaryKind::Or;
  case kir::RMWKind::Xor: return kir::BinaryKind::Xor;
  case kir::RMWKind::Exchange: return std::nullopt;
  }
  return std::nullopt;
}

/// A kir.atomic_rmw is constructed as a pgpu.scatter_reduce when nothing observes it but the
/// combined result: its old value is unused and its order is relaxed (seed 002 §3.4: a relaxed
/// atomic orders nothing else, and an unordered combine of an associative, commutative op is what a
/// scatter-reduce is), so each element combines into its destination exactly once, in any order.
LogicalResult KernelConstructor::atomicAsScatterReduce(kir::AtomicRMWOp op) {
  StringRef kind = kir::stringifyRMWKind(op.getKind());
  if (!rmwBinaryKind(op.getKind()))
    return op.emitError() << "kir-to-pgpu does not construct an atomic '" << kind
                          << "' yet (it combines nothing; a store of distinct destinations is T.scatter)";
  if (!op.getOld().use_empty())
    return op.emitError() << "kir-to-pgpu does not construct an atomic '" << kind
                          << "' whose old value is used yet (only its combined result: the returned value is "
                             "unused, as in T.scatter_reduce)";
  if (op.getOrder() && *op.getOrder() != kir::AtomicOrder::Relaxed)
    return op.emitError() << "kir-to-pgpu does not construct an atomic '" << kind << "' with order "
                          << kir::stringifyAtomicOrder(*op.getOrder()) << " yet (only order=\"relaxed\")";
  return success();
}

LogicalResult KernelConstructor::emitElementWrite(Operation &op, Value value, ArrayRef<Value> positions) {
  Location loc = op.getLoc();
  ValueRange coords;
  Value valid;
  if (auto s = dyn_cast<kir::BufferStoreOp>(op)) {
    Value buffer = map.lookupOrNull(s.getBuffer());
    if (!buffer)
      return unsupported(&op);
    FailureOr<SmallVector<Value>> c = accessCoords(loc, s.getCoords(), positions, s);
    if (failed(c))
      return failure();
    pgpu::BufferStoreOp::create(b, loc, value, buffer, *c, trueValue(loc));
    return success();
  }
  if (auto s = dyn_cast<kir::StoreOp>(op)) {
    coords = s.getCoords();
    valid = s.getValid();
  } else if (auto s = dyn_cast<kir::ScatterOp>(op)) {
    coords = s.getCoords();
    valid = s.getValid();
  } else if (auto rmw = dyn_cast<kir::AtomicRMWOp>(op)) {
    coords = rmw.getCoords();
  } else {
    auto sr = cast<kir::ScatterReduceOp>(op);
    coords = sr.getCoords();
    valid = sr.getValid();
  }
  Value viewArg = physical.getBody().getArgument(cast<BlockArgument>(op.getOperand(1)).getArgNumber());
  if (Value workspace = writeTargets.lookup(&op)) // a merged scatter adds into its workspace (ScatterMerge.cpp)
    viewArg = workspace;
  FailureOr<SmallVector<Value>> c = accessCoords(loc, coords, positions, &op);
  if (failed(c))
    return failure();
  Value ok = trueValue(loc);
  if (valid) {
    FailureOr<Value> m = element(valid, positions);
    if (failed(m))
      return failure();
    ok = *m;
  }
  return emitWrite(op, value, viewArg, *c, ok);
}

LogicalResult KernelConstructor::emitReduceScalars(kir::ReduceOp op) {
  FailureOr<SmallVector<Value>> components = reduceAt(op, {});
  if (failed(components))
    return failure();
  for (auto [r, v] : llvm::zip(op.getResults(), *components))
    map.map(r, v);
  return success();
}

LogicalResult KernelConstructor::emitBlock(Block &block) {
  // A member's stores that update their view in place run as one element loop, at the first of them.
  DenseMap<Operation *, unsigned> groupAt;
  DenseSet<Operation *> grouped;
  InPlaceGroups inPlace;
  if (isa_and_nonnull<kir::ParallelOp>(block.getParentOp())) {
    inPlace = inPlaceGroups(block);
    for (auto [i, g] : llvm::enumerate(inPlace.groups)) {
      groupAt[g.front()] = i;
      for (Operation *s : g)
        grouped.insert(s);
    }
  }
  for (Operation &op : block.without_terminator()) {
    if (auto it = groupAt.find(&op); it != groupAt.end()) {
      if (failed(emitInPlaceGroup(inPlace.groups[it->second])))
        return failure();
      continue;
    }
    if (grouped.contains(&op))
      continue;
    if (failed(emitStatement(op)))
      return failure();
  }
  return success();
}

/// Statements inside a workset: scalars are computed eagerly; tensors are
/// realized lazily, element by element, by the consumers that need them.
LogicalResult KernelConstructor::emitStatement(Operation &op) {
  Location loc = op.getLoc();
  if (op.getNumResults() == 1 && isa<RankedTensorType>(op.getResult(0).getType()) &&
      isa<kir::LoadOp, kir::GatherOp, kir::IndicesOp, kir::BroadcastOp, kir::BroadcastAsOp, kir::BinaryOp,
          kir::UnaryOp, kir::CmpOp, kir::SelectOp, kir::CastOp, kir::BitcastOp, kir::TransposeOp, kir::ReshapeOp,
          kir::JoinOp, kir::ContractOp, kir::BufferLoadOp>(op))
    return success();
  return llvm::TypeSwitch<Operation *, LogicalResult>(&op)
      .Case<arith::ConstantOp, kir::ExtentOp, kir::ConstexprOp, kir::DomainOp, kir::SubregionOp>(
          [&](Operation *fact) { return emitLaunchFact(*fact); })
      .Case<kir::BinaryOp, kir::UnaryOp, kir::CmpOp, kir::SelectOp, kir::CastOp, kir::BitcastOp>(
          [&](Operation *scalarOp) { return emitScalarPointwise(scalarOp); })
      .Case<kir::LoadOp, kir::GatherOp, kir::ContractOp, kir::BufferLoadOp>([&](Operation *scalarRead) -> LogicalResult {
        // A top-level read is replayed in every workset that uses it (seed 002 §3.4): the value an
        // earlier workset read lies in that workset's region, so it is read again here. (Found by
        // the DSL fuzzer: `y[rows, cols] = ...; z[cols] = x[0, 0] + ...` used the first workset's
        // load in the second, "operand #0 does not dominate this use".)
        if (Value old = map.lookupOrNull(scalarRead->getResult(0)); old && !visibleHere(old))
          map.erase(scalarRead->getResult(0));
        FailureOr<Value> v = element(scalarRead->getResult(0), {});
        if (failed(v))
          return failure();
        map.map(scalarRead->getResult(0), *v);
        return success();
      })
      .Case<kir::ExtractOp>([&](kir::ExtractOp e) -> LogicalResult {
        FailureOr<SmallVector<Value>> positions = scalars(e.getIndices());
        if (failed(positions))
          return failure();
        FailureOr<Value> v = element(e.getTensor(), *positions);
        if (failed(v))
          return failure();
        map.map(e.getResult(), *v);
        return success();
      })
      .Case<kir::StoreOp, kir::ScatterOp, kir::BufferStoreOp>([&](Operation *) { return emitStore(op); })
      .Case<kir::ReduceOp>([&](kir::ReduceOp r) -> LogicalResult {
        if (isa<RankedTensorType>(r.getResult(0).getType()))
          return success(); // partial reductions are realized per element
        if (Value ws = phasedSums.lookup(r.getOperation()); ws && readPhasedSums) {
          // A phased sum, complete in its workspace once this instance has waited (PhasedSums.cpp).
          Location at = r.getLoc();
          Type t = r.getResult(0).getType();
          Type held = cast<pgpu::BufferType>(ws.getType()).getElementType();
          Value sum = pgpu::BufferLoadOp::create(b, at, held, ws, ValueRange{constIndex(at, 0)}, trueValue(at),
                                                 zeroOf(at, held));
          if (held != t) // an or of i1 held in i32
            sum = pgpu::CmpOp::create(b, at, kir::CmpPredicate::NE, sum, zeroOf(at, held));
          map.map(r.getResult(0), sum);
          return success();
        }
        if (auto it = phasedReductions.find(r.getOperation()); it != phasedReductions.end() && readPhasedSums) {
          // A phased reduction, merged into its result once this instance has waited (PhasedReductions.cpp).
          Location at = r.getLoc();
          Type t = r.getResult(0).getType();
          map.map(r.getResult(0), pgpu::BufferLoadOp::create(b, at, t, it->second.result,
                                                             ValueRange{constIndex(at, 0)}, trueValue(at), zeroOf(at, t)));
          return success();
        }
        return emitReduceScalars(r);
      })
      .Case<kir::RegionFoldOp>([&](kir::RegionFoldOp f) -> LogicalResult {
        // Scalar components now (one fold of just them); tensor components per element, lazily.
        SmallVector<unsigned> scalars;
        bool used = false;
        for (auto [i, r] : llvm::enumerate(f.getResults()))
          if (!isa<RankedTensorType>(r.getType())) {
            scalars.push_back(i);
            used |= !r.use_empty();
          }
        if (!used)
          return success();
        FailureOr<SmallVector<Value>> folded = foldAt(f, scalars, {});
        if (failed(folded))
          return failure();
        unsigned slot = 0;
        for (unsigned i : scalars)
          slot += bindSlots(f.getResult(i), ArrayRef<Value>(*folded).drop_front(slot));
        return success();
      })
      .Case<kir::RegionScanOp>([&](kir::RegionScanOp scan) -> LogicalResult {
        // Outputs and tensor state components are realized per element by their consumers; used
        // scalar final states now, from one fold of the scalar components.
        SmallVector<unsigned> scalarState = scalarComponents(scan.getInits().getTypes());
        unsigned nOut = scan.getOutputs().size();
        if (llvm::none_of(scalarState, [&](unsigned c) { return !scan->getResult(nOut + c).use_empty(); }))
          return success();
        FailureOr<SmallVector<Value>> state = scanStateAt(scan, scalarState, {}, Value());
        if (failed(state))
          return failure();
        unsigned slot = 0;
        for (unsigned c : scalarState)
          slot += bindSlots(scan->getResult(nOut + c), ArrayRef<Value>(*state).drop_front(slot));
        return success();
      })
      .Case<kir::ArgReduceOp>([&](kir::ArgReduceOp a) -> LogicalResult {
        if (isa<RankedTensorType>(a.getValues().getType()))
          return success();
        FailureOr<SmallVector<Value>> pair = argReduceAt(a, {});
        if (failed(pair))
          return failure();
        map.map(a.getValues(), (*pair)[0]);
        map.map(a.getIndices(), (*pair)[1]);
        return success();
      })
      .Case<kir::HistogramOp, kir::IndexRelationOp>([&](Operation *) { return success(); })
      .Case<kir::ScanOp>([&](kir::ScanOp scan) -> LogicalResult {
        // Realized by the writes of values computed from it, each prefix as it is formed (ScanValues.cpp).
        return checkScanUses(scan);
      })
      .Case<kir::ScatterReduceOp>([&](Operation *) { return emitStore(op); })
      .Case<kir::AtomicRMWOp>([&](kir::AtomicRMWOp rmw) -> LogicalResult {
        if (failed(atomicAsScatterReduce(rmw)))
          return failure();
        return emitStore(op);
      })
      .Case<kir::TupleOp, kir::RecordOp, kir::TupleGetOp, kir::RecordGetOp>([&](Operation *product) -> LogicalResult {
        // Products of scalars are flattened: a get forwards the component.
        if (auto get = dyn_cast<kir::TupleGetOp>(product)) {
          map.map(get.getResult(), map.lookup(get.getTuple().getDefiningOp()->getOperand(get.getIndex())));
        } else if (auto get = dyn_cast<kir::RecordGetOp>(product)) {
          auto type = cast<kir::RecordType>(get.getRecord().getType());
          unsigned field = *type.getFieldIndex(get.getField());
          if (auto fields = recordFields.find(get.getRecord()); fields != recordFields.end()) {
            map.map(get.getResult(), fields->second[field]);
            return success();
          }
          Operation *def = get.getRecord().getDefiningOp();
          if (!isa_and_nonnull<kir::RecordOp>(def))
            return unsupported(product);
          map.map(get.getResult(), map.lookup(def->getOperand(field)));
        } else {
          SmallVector<Value> fields;
          for (Value v : product->getOperands()) {
            if (isa<RankedTensorType>(v.getType()) || !map.contains(v))
              return unsupported(product);
            fields.push_back(map.lookup(v));
          }
          recordFields[product->getResult(0)] = fields;
        }
        return success();
      })
      .Case<kir::ForOp>([&](kir::ForOp f) -> LogicalResult {
        if (carriesTensors(f) && carriesScan(f))
          return emitScanCarries(f); // ScanCarries.cpp
        if (carriesTensors(f))
          return emitCarriedTensors(f); // CarriedTensors.cpp
        DomainVals d = domains.lookup(f.getDomain());
        SmallVector<Value> inits;
        for (Value v : f.getInits()) {
          if (!v.getType().isIntOrIndexOrFloat())
            return f.emitError() << "kir-to-pgpu: kir.for carries scalars and tensors; a '" << v.getType()
                                 << "' carry is not constructed";
          inits.push_back(map.lookup(v));
        }
        FailureOr<SmallVector<Value>> results =
            loopNest(loc, d.size, inits, [&](ArrayRef<Value> pos, ValueRange carries) -> FailureOr<SmallVector<Value>> {
              Block &body = f.getBody().front();
              map.map(body.getArgument(0), member(loc, d, pos[0]));
              for (auto [arg, c] : llvm::zip(body.getArguments().drop_front(), carries))
                map.map(arg, c);
              if (failed(emitBlock(body)))
                return failure();
              SmallVector<Value> next;
              for (Value y : body.getTerminator()->getOperands())
                next.push_back(map.lookup(y));
              return next;
            });
        if (failed(results))
          return failure();
        for (auto [r, v] : llvm::zip(f.getResults(), *results))
          map.map(r, v);
        return success();
      })
      .Case<kir::IfOp>([&](kir::IfOp i) -> LogicalResult {
        if (i.getIsConstexpr()) {
          // Resolved at specialization: inline the taken branch.
          APInt taken;
          if (!matchPattern(map.lookup(i.getCondition()), m_ConstantInt(&taken)))
            return i.emitError() << "kir-to-pgpu: constexpr condition did not fold";
          Region &region = taken.isZero() ? i.getElseRegion() : i.getThenRegion();
          if (region.empty())
            return success();
          if (failed(emitBlock(region.front())))
            return failure();
          for (auto [r, y] : llvm::zip(i.getResults(), region.front().getTerminator()->getOperands())) {
            if (isa<RankedTensorType>(r.getType()))
              aliases[r] = y; // realized per element through the taken branch's value
            else
              map.map(r, map.lookup(y));
          }
          return success();
        }
        for (Type t : i.getResultTypes())
          if (!t.isIntOrIndexOrFloat())
            return i.emitError() << "kir-to-pgpu: kir.if results must be scalars for now";
        auto phys = pgpu::IfOp::create(b, loc, i.getResultTypes(), map.lookup(i.getCondition()));
        for (auto [region, physRegion] : {std::pair{&i.getThenRegion(), &phys.getThenRegion()},
                                          std::pair{&i.getElseRegion(), &phys.getElseRegion()}}) {
          if (region->empty())
            continue;
          OpBuilder::InsertionGuard guard(b);
          b.createBlock(physRegion);
          if (failed(emitBlock(region->front())))
            return failure();
          SmallVector<Value> yields;
          for (Value y : region->front().getTerminator()->getOperands())
            yields.push_back(map.lookup(y));
          pgpu::YieldOp::create(b, loc, yields);
        }
        for (auto [r, v] : llvm::zip(i.getResults(), phys.getResults()))
          map.map(r, v);
        return success();
      })
      .Default([&](Operation *other) { return unsupported(other); });
}
