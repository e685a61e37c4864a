//===- TensorElements.cpp - tensors realized element by element -----------===//
//
// seed 002 §3.1, §3.4: a logical tensor is realized element by element where
// a consumer needs it, at explicit positions: pure producers (loads,
// pointwise math, broadcasts, slices) are replayed at that point, a value
// with several consumers is kept rather than replayed per use, and
// reductions, arg-reductions and contractions become ordered physical
// pgpu.range_reduce nests that keep the reduce contract for blocking.
//
//===----------------------------------------------------------------------===//

#include "KernelConstructor.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace tessel;
using namespace tessel::construct;

/// The operand a shape-preserving producer has its result's sizes from, or null (sizes() below).
static Value sameSizesOperand(Operation *def) {
  if (!def)
    return {};
  return llvm::TypeSwitch<Operation *, Value>(def)
      .Case<kir::BinaryOp, kir::UnaryOp, kir::CmpOp, kir::CastOp, kir::BitcastOp>(
          [](Operation *op) { return op->getOperand(0); })
      .Case<kir::SelectOp>([](kir::SelectOp op) { return op.getTrueValue(); })
      .Case<kir::BroadcastAsOp>([](kir::BroadcastAsOp op) { return op.getReference(); })
      .Case<kir::ScanOp>([](kir::ScanOp op) { return op.getInputs()[0]; })
      .Default([](Operation *) { return Value(); });
}

Value KernelConstructor::sizeSource(Value tensor) {
  // Walk to the chain's end, then point every value passed at it: each value is walked once.
  SmallVector<Value> path;
  Value at = tensor;
  while (Value next = sameSizesOperand(at.getDefiningOp())) {
    if (Value known = sameSizes.lookup(at)) {
      at = known;
      break;
    }
    path.push_back(at);
    at = next;
  }
  for (Value v : path)
    sameSizes[v] = at;
  return at;
}

FailureOr<SmallVector<Value>> KernelConstructor::sizes(Value tensor) {
  // A shape-preserving producer has its operand's sizes: followed iteratively (and remembered), not
  // by recursion, so a long pointwise chain neither grows the stack nor is walked per query. Only op
  // results are followed (aliases, incoming states and slices are block arguments, looked up below).
  tensor = resolve(sizeSource(resolve(tensor)));
  if (auto state = incoming.find(tensor); state != incoming.end())
    return sizes(state->second.op.getInits()[state->second.component]);
  if (auto slice = slices.find(tensor); slice != slices.end()) {
    Slice sl = slice->second;
    FailureOr<SmallVector<Value>> whole = sizes(sl.source);
    if (failed(whole))
      return failure();
    (*whole)[sl.axis] = sl.size;
    return whole;
  }
  Operation *def = tensor.getDefiningOp();
  if (auto arg = dyn_cast<BlockArgument>(tensor))
    if (auto loop = dyn_cast_or_null<kir::ForOp>(arg.getOwner()->getParentOp()); loop && arg.getArgNumber() > 0)
      return sizes(loop.getInits()[arg.getArgNumber() - 1]); // a carry has its init's shape
  if (!def)
    return kernel.emitError() << "kir-to-pgpu: a tensor region argument is not constructed yet";
  auto fromCoords = [&](ValueRange coords) -> FailureOr<SmallVector<Value>> {
    SmallVector<Value> out;
    ArrayRef<int64_t> joint = kir::jointOf(def);
    for (auto [i, c] : llvm::enumerate(coords)) {
      if (!joint.empty() && joint[i] >= 0)
        continue; // paired: its partner's axes are already there
      if (isa<kir::DomainType>(c.getType())) {
        out.push_back(domains.lookup(c).size);
      } else if (isa<RankedTensorType>(c.getType())) {
        FailureOr<SmallVector<Value>> inner = sizes(c);
        if (failed(inner))
          return failure();
        llvm::append_range(out, *inner);
      }
    }
    return out;
  };
  return llvm::TypeSwitch<Operation *, FailureOr<SmallVector<Value>>>(def)
      .Case<kir::LoadOp, kir::GatherOp, kir::BufferLoadOp>([&](auto load) { return fromCoords(load.getCoords()); })
      .Case<kir::IndicesOp>([&](kir::IndicesOp i) -> FailureOr<SmallVector<Value>> {
        return SmallVector<Value>{domains.lookup(i.getDomain()).size};
      })
      .Case<kir::IndexRelationOp>([&](kir::IndexRelationOp i) -> FailureOr<SmallVector<Value>> {
        return SmallVector<Value>{domains.lookup(i.getDomain()).size};
      })
      .Case<kir::HistogramOp>([&](kir::HistogramOp h) -> FailureOr<SmallVector<Value>> {
        return SmallVector<Value>{domains.lookup(h.getBins()).size};
      })
      .Case<kir::ScanOp>([&](kir::ScanOp op) { return sizes(op.getInputs()[0]); })
      .Case<kir::ForOp>([&](kir::ForOp op) { return sizes(op.getInits()[cast<OpResult>(tensor).getResultNumber()]); })
      .Case<kir::RegionFoldOp>([&](kir::RegionFoldOp op) {
        // A summary component has its identity's shape.
        return sizes(op.getIdentities()[cast<OpResult>(tensor).getResultNumber()]);
      })
      .Case<kir::RegionScanOp>([&](kir::RegionScanOp op) -> FailureOr<SmallVector<Value>> {
        unsigned r = cast<OpResult>(tensor).getResultNumber(), nOut = op.getOutputs().size();
        if (r >= nOut)
          return sizes(op.getInits()[r - nOut]);
        // An output: the emitted slice's shape with the source axis's length leading.
        FailureOr<SmallVector<Value>> source = sizes(op.getSources()[0]);
        if (failed(source))
          return failure();
        Block &emit = op.getEmit().front();
        unsigned nSources = op.getSources().size();
        Location loc = op.getLoc();
        for (unsigned i = 0; i < nSources; ++i)
          slices[emit.getArgument(i)] = {op.getSources()[i], unsigned(op.getAxis()), constIndex(loc, 0),
                                         constIndex(loc, 1)};
        for (unsigned c = 0; c < op.getInits().size(); ++c)
          incoming[emit.getArgument(nSources + c)] = {op, c, constIndex(loc, 0)};
        for (auto [arg, capture] : llvm::zip(emit.getArguments().drop_front(nSources + op.getInits().size()),
                                             op.getCaptures()))
          if (isa<RankedTensorType>(capture.getType()))
            aliases[arg] = capture;
        FailureOr<SmallVector<Value>> slice = sizes(emit.getTerminator()->getOperand(r));
        if (failed(slice))
          return failure();
        (*slice)[0] = (*source)[op.getAxis()];
        return slice;
      })
      .Case<kir::ArgReduceOp>([&](kir::ArgReduceOp op) -> FailureOr<SmallVector<Value>> {
        FailureOr<SmallVector<Value>> in = sizes(op.getInput());
        if (failed(in))
          return failure();
        in->erase(in->begin() + op.getAxis());
        return in;
      })
      .Case<kir::BroadcastOp>([&](kir::BroadcastOp op) -> FailureOr<SmallVector<Value>> {
        SmallVector<Value> out;
        for (Value d : op.getDomains())
          out.push_back(domains.lookup(d).size);
        return out;
      })
      .Case<kir::BroadcastAsOp>([&](kir::BroadcastAsOp op) { return sizes(op.getReference()); })
      .Case<kir::BinaryOp, kir::UnaryOp, kir::CmpOp, kir::CastOp, kir::BitcastOp>(
          [&](Operation *op) { return sizes(op->getOperand(0)); })
      .Case<kir::SelectOp>([&](kir::SelectOp op) { return sizes(op.getTrueValue()); })
      .Case<kir::TransposeOp>([&](kir::TransposeOp op) -> FailureOr<SmallVector<Value>> {
        FailureOr<SmallVector<Value>> in = sizes(op.getOperand());
        if (failed(in))
          return failure();
        SmallVector<Value> out;
        for (int64_t p : op.getPermutation())
          out.push_back((*in)[p]);
        return out;
      })
      .Case<kir::ReshapeOp>([&](kir::ReshapeOp op) -> FailureOr<SmallVector<Value>> {
        SmallVector<Value> out;
        for (Value d : op.getDomains())
          out.push_back(domains.lookup(d).size);
        return out;
      })
      .Case<kir::JoinOp>([&](kir::JoinOp op) -> FailureOr<SmallVector<Value>> {
        FailureOr<SmallVector<Value>> in = sizes(op.getLhs());
        if (failed(in))
          return failure();
        in->push_back(constIndex(op.getLoc(), 2));
        return in;
      })
      .Case<kir::ReduceOp>([&](kir::ReduceOp op) -> FailureOr<SmallVector<Value>> {
        FailureOr<SmallVector<Value>> in = sizes(op.getInputs()[0]);
        if (failed(in))
          return failure();
        SmallVector<Value> out;
        for (auto [i, s] : llvm::enumerate(*in))
          if (!llvm::is_contained(op.getAxes(), int64_t(i)))
            out.push_back(s);
        return out;
      })
      .Case<kir::ContractOp>([&](kir::ContractOp op) -> FailureOr<SmallVector<Value>> {
        FailureOr<SmallVector<Value>> l = sizes(op.getLhs()), r = sizes(op.getRhs());
        if (failed(l) || failed(r))
          return failure();
        SmallVector<Value> out;
        for (auto [i, s] : llvm::enumerate(*l))
          if (!llvm::is_contained(op.getLhsReduce(), int64_t(i)))
            out.push_back(s);
        for (auto [i, s] : llvm::enumerate(*r))
          if (!llvm::is_contained(op.getRhsReduce(), int64_t(i)) && !llvm::is_contained(op.getRhsBatch(), int64_t(i)))
            out.push_back(s);
        return out;
      })
      .Default([&](Operation *op) -> FailureOr<SmallVector<Value>> { return unsupported(op); });
}

/// The components of a reduce at `keptPositions` of its result: an ordered
/// loop over the reduced axes, accumulators carried, combine inlined.
FailureOr<SmallVector<Value>> KernelConstructor::reduceAt(kir::ReduceOp op, ArrayRef<Value> keptPositions) {
  Location loc = op.getLoc();
  FailureOr<SmallVector<Value>> in = sizes(op.getInputs()[0]);
  if (failed(in))
    return failure();
  SmallVector<Value> reducedExtents;
  for (auto [i, s] : llvm::enumerate(*in))
    if (llvm::is_contained(op.getAxes(), int64_t(i)))
      reducedExtents.push_back(s);
  FailureOr<SmallVector<Value>> identities = scalars(op.getIdentities());
  if (failed(identities))
    return failure();
  unsigned rank = in->size();
  SmallVector<kir::ScanOp> walked = scansWalkedBy(op);
  auto nest = [&](ElementFn member, CombineFn combine) {
    return walked.empty() ? reduceNest(loc, reducedExtents, *identities, member, combine)
                          : walkNest(loc, walked, reducedExtents[0], *identities, member, combine);
  };
  return nest(
      [&](ArrayRef<Value> reduced) -> FailureOr<SmallVector<Value>> {
        SmallVector<Value> positions;
        unsigned kept = 0, red = 0;
        for (unsigned i = 0; i < rank; ++i)
          positions.push_back(llvm::is_contained(op.getAxes(), int64_t(i)) ? reduced[red++] : keptPositions[kept++]);
        SmallVector<Value> xs;
        for (Value input : op.getInputs()) {
          FailureOr<Value> x = element(input, positions);
          if (failed(x))
            return failure();
          xs.push_back(*x);
        }
        return xs;
      },
      [&](Region &combine, TypeRange types) { return convertCombineRegion(op.getCombine(), combine, types); });
}

bool KernelConstructor::pointwiseOp(Operation *op) {
  return isa<kir::BinaryOp, kir::UnaryOp, kir::CmpOp, kir::SelectOp, kir::CastOp, kir::BitcastOp>(op);
}

Operation *KernelConstructor::pendingPointwise(Value tensor, ArrayRef<Value> positions) {
  Operation *def = tensor.getDefiningOp();
  if (!def || !pointwiseOp(def) || map.lookupOrNull(tensor) || incoming.count(tensor) || slices.count(tensor) ||
      realizedHere(tensor, positions))
    return nullptr;
  return def;
}

FailureOr<Value> KernelConstructor::pointwiseElement(Value tensor, ArrayRef<Value> positions) {
  // What element() -> elementOf() -> element(operand)... did recursively, on an explicit stack: each
  // frame is a pending pointwise op and the elements of its operands so far. Operands are taken in
  // order; a pending pointwise operand is a new frame, any other tensor operand is element() (its
  // own construction, at the same point of the walk as before), a scalar operand its realization.
  struct Frame {
    Value tensor;
    Operation *op;
    SmallVector<Value, 3> operands;
  };
  SmallVector<Frame> stack;
  stack.push_back({tensor, tensor.getDefiningOp(), {}});
  while (true) {
    Frame &top = stack.back();
    if (top.operands.size() < top.op->getNumOperands()) {
      Value v = top.op->getOperand(top.operands.size());
      FailureOr<Value> e;
      if (!isa<RankedTensorType>(v.getType())) {
        e = scalar(v);
      } else if (Value r = resolve(v); Operation *def = pendingPointwise(r, positions)) {
        stack.push_back({r, def, {}});
        continue;
      } else {
        e = element(v, positions);
      }
      if (failed(e))
        return failure();
      top.operands.push_back(*e);
      continue;
    }
    FailureOr<Value> result = convertPointwise(top.op, top.operands);
    if (failed(result))
      return failure();
    realized[top.tensor].push_back(Realized{SmallVector<Value, 4>(positions.begin(), positions.end()), *result});
    stack.pop_back();
    if (stack.empty())
      return result;
    stack.back().operands.push_back(*result);
  }
}

FailureOr<Value> KernelConstructor::element(Value tensor, ArrayRef<Value> positions) {
  tensor = resolve(tensor);
  if (pendingPointwise(tensor, positions))
    return pointwiseElement(tensor, positions);
  if (Value mapped = map.lookupOrNull(tensor))
    return mapped;
  if (auto state = incoming.find(tensor); state != incoming.end()) {
    IncomingState in = state->second;
    SmallVector<unsigned> components = scalarComponents(in.op.getInits().getTypes());
    components.push_back(in.component);
    FailureOr<SmallVector<Value>> s = scanStateAt(in.op, components, positions, in.begin);
    if (failed(s))
      return failure();
    return s->back();
  }
  if (auto slice = slices.find(tensor); slice != slices.end()) {
    Slice sl = slice->second;
    SmallVector<Value> inSource(positions);
    inSource[sl.axis] = binary(sl.begin.getLoc(), kir::BinaryKind::Add, sl.begin, positions[sl.axis]);
    return element(sl.source, inSource);
  }
  Operation *def = tensor.getDefiningOp();
  if (!def)
    return kernel.emitError() << "kir-to-pgpu: a tensor region argument is not constructed yet";
  // A KIR value has one element per position: realized once where it is first needed and reused
  // wherever that realization is visible (a read keeps the value it read, even after a store of the
  // same workset writes the view).
  if (Value v = realizedHere(tensor, positions)) {
    if (isa<kir::ContractOp, kir::ReduceOp, kir::ArgReduceOp, kir::RegionFoldOp, kir::RegionScanOp,
            kir::HistogramOp>(def) &&
        !stagedHistograms.count(def)) // a staged histogram's element is a read of its counted row
      ++keptForUses[def];
    return v;
  }
  if (failed(checkBound(def)))
    return failure();
  if (isa<kir::ContractOp, kir::ReduceOp, kir::ArgReduceOp, kir::RegionFoldOp, kir::RegionScanOp>(def))
    ++structuredBuilds[def];
  FailureOr<Value> result = elementOf(def, tensor, positions);
  if (succeeded(result))
    realized[tensor].push_back(Realized{SmallVector<Value, 4>(positions.begin(), positions.end()), *result});
  return result;
}

LogicalResult KernelConstructor::checkBound(Operation *def) {
  if (overBound)
    return failure();
  if (!maxOps || builtOps() <= maxOps)
    return success();
  overBound = true;
  // At the most rebuilt reduction (the innermost of the chain that multiplies), else at the value.
  Operation *most = nullptr;
  uint64_t times = 0;
  for (auto [op, n] : structuredBuilds)
    if (n > times)
      most = op, times = n;
  InFlightDiagnostic diag = (most ? most : def)->emitError();
  diag << "kir-to-pgpu: constructing the kernel built more than " << maxOps << " ops: ";
  if (most)
    diag << "this '" << most->getName() << "' was built " << times << " times, ";
  diag << "replayed element by element inside the loops of the reductions that read its result at other "
          "positions than their own (each such reduction rebuilds it, so a chain of them multiplies the work); "
          "keep the reduced values in a kernel-level T.buffer over the T.parallel's domains and their own, "
          "written once by each member and read back, or split the kernel";
  if (most && most != def)
    diag.attachNote(def->getLoc()) << "construction was replaying this value";
  return failure();
}

bool KernelConstructor::visibleHere(Value v) {
  Operation *def = v.getDefiningOp();
  Block *home = def ? def->getBlock() : cast<BlockArgument>(v).getOwner();
  Block *block = b.getInsertionBlock();
  Block::iterator at = b.getInsertionPoint();
  // Climb from the insertion point to the block `v` lives in.
  while (block && block != home) {
    Operation *parent = block->getParentOp();
    if (!parent)
      return false;
    block = parent->getBlock();
    at = Block::iterator(parent);
  }
  if (!block)
    return false;
  return !def || at == block->end() || (def != &*at && def->isBeforeInBlock(&*at));
}

Value KernelConstructor::realizedHere(Value tensor, ArrayRef<Value> positions) {
  auto it = realized.find(tensor);
  if (it == realized.end())
    return {};
  for (const Realized &r : it->second)
    if (ArrayRef<Value>(r.positions) == positions && visibleHere(r.value))
      return r.value;
  return {};
}

FailureOr<Value> KernelConstructor::elementOf(Operation *def, Value tensor, ArrayRef<Value> positions) {
  Location loc = def->getLoc();
  auto operandElement = [&](Value v) -> FailureOr<Value> {
    return isa<RankedTensorType>(v.getType()) ? element(v, positions) : scalar(v);
  };
  return llvm::TypeSwitch<Operation *, FailureOr<Value>>(def)
      .Case<kir::LoadOp, kir::GatherOp>([&](auto load) -> FailureOr<Value> {
        FailureOr<SmallVector<Value>> coords = accessCoords(loc, load.getCoords(), positions, load);
        if (failed(coords))
          return failure();
        Type elemType = getElementTypeOrSelf(load.getType());
        Value valid = trueValue(loc), fill = zeroOf(loc, elemType);
        if (load.getValid()) {
          FailureOr<Value> v = operandElement(load.getValid()), f = scalar(load.getFill());
          if (failed(v) || failed(f))
            return failure();
          valid = *v;
          fill = *f;
        }
        auto viewArg = physical.getBody().getArgument(cast<BlockArgument>(load.getView()).getArgNumber());
        // A coordinate computed from loaded data makes the access an index relation (seed 000 §6).
        bool dataDependent = llvm::any_of(*coords, [](Value c) { return pgpu::readFeeding(c) != nullptr; });
        if (std::is_same_v<decltype(load), kir::GatherOp> || dataDependent)
          return Value(pgpu::GatherOp::create(b, loc, elemType, viewArg, *coords, valid, fill));
        return Value(pgpu::LoadOp::create(b, loc, elemType, viewArg, *coords, valid, fill));
      })
      .Case<kir::BufferLoadOp>([&](kir::BufferLoadOp load) -> FailureOr<Value> {
        // A kernel-level buffer is invocation workspace (its argument); reads follow its first writes
        // (seed 000 §4.4: the first-write obligation, checked by the pgpu interpreter).
        Value buffer = map.lookupOrNull(load.getBuffer());
        if (!buffer)
          return unsupported(load);
        FailureOr<SmallVector<Value>> coords = accessCoords(loc, load.getCoords(), positions, load);
        if (failed(coords))
          return failure();
        Type elemType = getElementTypeOrSelf(load.getType());
        return Value(pgpu::BufferLoadOp::create(b, loc, elemType, buffer, *coords, trueValue(loc), zeroOf(loc, elemType)));
      })
      .Case<kir::IndicesOp>([&](kir::IndicesOp i) -> FailureOr<Value> {
        return member(loc, domains.lookup(i.getDomain()), positions[0]);
      })
      .Case<kir::IndexRelationOp>([&](kir::IndexRelationOp r) -> FailureOr<Value> {
        // map[member(p)], as an index: the relation's members.
        auto mapArg = physical.getBody().getArgument(cast<BlockArgument>(r.getMap()).getArgNumber());
        Type elem = cast<kir::ViewType>(r.getMap().getType()).getElementType();
        Value at = member(loc, domains.lookup(r.getDomain()), positions[0]);
        Value raw = pgpu::LoadOp::create(b, loc, elem, mapArg, ValueRange{at}, trueValue(loc), zeroOf(loc, elem));
        return Value(pgpu::CastOp::create(b, loc, b.getIndexType(), raw));
      })
      .Case<kir::ForOp>([&](kir::ForOp f) -> FailureOr<Value> {
        // A loop carrying tensors, without writes: run at these positions (CarriedTensors.cpp).
        FailureOr<SmallVector<Value>> results = carriedLoopAt(f, positions, /*withWrites=*/false);
        if (failed(results))
          return failure();
        return (*results)[cast<OpResult>(tensor).getResultNumber()];
      })
      .Case<kir::HistogramOp>([&](kir::HistogramOp h) -> FailureOr<Value> {
        // Counted into workspace before the store that reads it (Statements.cpp): the bin's count.
        if (auto it = stagedHistograms.find(h); it != stagedHistograms.end()) {
          auto [partial, store] = it->second;
          FailureOr<SmallVector<Value>> coords = accessCoords(loc, store.getCoords(), {positions[0]}, store);
          if (failed(coords))
            return failure();
          Type countType = getElementTypeOrSelf(h.getType());
          return Value(pgpu::BufferLoadOp::create(b, loc, countType, partial, *coords, trueValue(loc),
                                                  zeroOf(loc, countType)));
        }
        // count[bin] = number of active inputs equal to bin (pure; realized per bin).
        FailureOr<SmallVector<Value>> in = sizes(h.getInput());
        if (failed(in))
          return failure();
        Type countType = getElementTypeOrSelf(h.getType());
        Type valueType = getElementTypeOrSelf(h.getInput().getType());
        Value bin = positions[0];
        Value binAsValue = valueType.isIndex() ? bin : Value(pgpu::CastOp::create(b, loc, valueType, bin));
        Value one = arith::ConstantOp::create(b, loc, b.getIntegerAttr(countType, 1));
        Value none = zeroOf(loc, countType);
        FailureOr<SmallVector<Value>> count = reduceNest(
            loc, *in, none, [&](ArrayRef<Value> p) -> FailureOr<SmallVector<Value>> {
              FailureOr<Value> x = element(h.getInput(), p);
              if (failed(x))
                return failure();
              Value hit = pgpu::CmpOp::create(b, loc, kir::CmpPredicate::EQ, *x, binAsValue);
              if (h.getValid()) {
                FailureOr<Value> ok = element(h.getValid(), p);
                if (failed(ok))
                  return failure();
                hit = boolOp(loc, kir::BinaryKind::And, hit, *ok);
              }
              return SmallVector<Value>{pgpu::SelectOp::create(b, loc, hit, one, none)};
            },
            [&](Region &combine, TypeRange types) { return addCombine(combine, types); });
        if (failed(count))
          return failure();
        return (*count)[0];
      })
      .Case<kir::RegionFoldOp>([&](kir::RegionFoldOp f) -> FailureOr<Value> {
        // A tensor component at `positions`, folded with every scalar component and the tensor
        // components of at most its rank that its combine reads (a per-row summary's [H] maxima and
        // sums beside an [H, D] accumulator: projected on the leading positions, checkProjection).
        unsigned wanted = cast<OpResult>(tensor).getResultNumber();
        int64_t rank = cast<RankedTensorType>(tensor.getType()).getRank();
        SmallVector<unsigned> components;
        for (auto [i, r] : llvm::enumerate(f.getResults()))
          if (!isa<RankedTensorType>(r.getType()))
            components.push_back(i);
        for (unsigned i : reachedComponents(f.getCombine().front(), f.getNumResults(), wanted))
          if (auto t = dyn_cast<RankedTensorType>(f.getResult(i).getType()); t && t.getRank() <= rank)
            components.push_back(i);
        components.push_back(wanted);
        FailureOr<SmallVector<Value>> folded = foldAt(f, components, positions);
        if (failed(folded))
          return failure();
        return folded->back();
      })
      .Case<kir::RegionScanOp>([&](kir::RegionScanOp s) -> FailureOr<Value> {
        unsigned r = cast<OpResult>(tensor).getResultNumber(), nOut = s.getOutputs().size();
        if (r < nOut)
          return emittedAt(s, r, positions);
        // A final state tensor component: the whole source's transitions applied to init.
        SmallVector<unsigned> components = scalarComponents(s.getInits().getTypes());
        components.push_back(r - nOut);
        FailureOr<SmallVector<Value>> state = scanStateAt(s, components, positions, Value());
        if (failed(state))
          return failure();
        return state->back();
      })
      .Case<kir::ArgReduceOp>([&](kir::ArgReduceOp a) -> FailureOr<Value> {
        FailureOr<SmallVector<Value>> pair = argReduceAt(a, positions);
        if (failed(pair))
          return failure();
        return (*pair)[cast<OpResult>(tensor).getResultNumber()];
      })
      .Case<kir::BroadcastOp, kir::BroadcastAsOp>([&](auto bc) -> FailureOr<Value> {
        SmallVector<Value> inner;
        for (int64_t d : bc.getDims())
          inner.push_back(positions[d]);
        return isa<RankedTensorType>(bc.getOperand().getType()) ? element(bc.getOperand(), inner)
                                                                 : scalar(bc.getOperand());
      })
      .Case<kir::BinaryOp, kir::UnaryOp, kir::CmpOp, kir::SelectOp, kir::CastOp, kir::BitcastOp>(
          [&](Operation *op) -> FailureOr<Value> {
            SmallVector<Value> operands;
            for (Value v : op->getOperands()) {
              FailureOr<Value> e = operandElement(v);
              if (failed(e))
                return failure();
              operands.push_back(*e);
            }
            return convertPointwise(op, operands);
          })
      .Case<kir::TransposeOp>([&](kir::TransposeOp t) -> FailureOr<Value> {
        SmallVector<Value> inner(positions.size());
        for (auto [i, p] : llvm::enumerate(t.getPermutation()))
          inner[p] = positions[i];
        return element(t.getOperand(), inner);
      })
      .Case<kir::ReshapeOp>([&](kir::ReshapeOp r) -> FailureOr<Value> {
        // Row-major (seed 000 §7: a reshape composes coordinate provenance): the result position's
        // linear index over the result domains, decoded over the operand's extents.
        FailureOr<SmallVector<Value>> in = sizes(r.getOperand());
        if (failed(in))
          return failure();
        Value linear = positions.empty() ? constIndex(loc, 0) : positions[0];
        for (auto [p, d] : llvm::drop_begin(llvm::zip(positions, r.getDomains())))
          linear = binary(loc, kir::BinaryKind::Add, binary(loc, kir::BinaryKind::Mul, linear, domains.lookup(d).size), p);
        SmallVector<Value> inner(in->size());
        for (size_t i = in->size(); i-- > 1;) {
          inner[i] = binary(loc, kir::BinaryKind::Rem, linear, (*in)[i]);
          linear = binary(loc, kir::BinaryKind::Div, linear, (*in)[i]);
        }
        if (!inner.empty())
          inner[0] = linear;
        return element(r.getOperand(), inner);
      })
      .Case<kir::JoinOp>([&](kir::JoinOp j) -> FailureOr<Value> {
        FailureOr<Value> a = element(j.getLhs(), positions.drop_back()), c = element(j.getRhs(), positions.drop_back());
        if (failed(a) || failed(c))
          return failure();
        Value first = pgpu::CmpOp::create(b, loc, kir::CmpPredicate::EQ, positions.back(), constIndex(loc, 0));
        return Value(pgpu::SelectOp::create(b, loc, first, *a, *c));
      })
      .Case<kir::ReduceOp>([&](kir::ReduceOp r) -> FailureOr<Value> {
        FailureOr<SmallVector<Value>> components =
            lineReduces.contains(r) && !lineIndex.empty() ? reduceLinesAt(r, positions) : reduceAt(r, positions);
        if (failed(components))
          return failure();
        return (*components)[cast<OpResult>(tensor).getResultNumber()];
      })
      .Case<kir::ContractOp>([&](kir::ContractOp c) -> FailureOr<Value> {
        // acc + sum over paired axes of lhs * rhs, in the accumulator dtype.
        kir::ContractPrecision precision = kir::precisionOr(c.getPrecision());
        FailureOr<SmallVector<Value>> lsz = sizes(c.getLhs());
        if (failed(lsz))
          return failure();
        Type acc = getElementTypeOrSelf(c.getType());
        auto lhsType = cast<RankedTensorType>(c.getLhs().getType());
        auto rhsType = cast<RankedTensorType>(c.getRhs().getType());
        SmallVector<Value> reduceExtents;
        for (int64_t a : c.getLhsReduce())
          reduceExtents.push_back((*lsz)[a]);
        SmallVector<kir::ScanOp> walked = scansWalkedBy(c);
        auto nest = [&](ElementFn member, CombineFn combine) {
          Value zero = zeroOf(loc, acc);
          return walked.empty() ? reduceNest(loc, reduceExtents, zero, member, combine)
                                : walkNest(loc, walked, reduceExtents[0], zero, member, combine);
        };
        FailureOr<SmallVector<Value>> products = nest(
            [&](ArrayRef<Value> red) -> FailureOr<SmallVector<Value>> {
              SmallVector<Value> lp(lhsType.getRank()), rp(rhsType.getRank());
              unsigned next = 0;
              for (int64_t a = 0; a < lhsType.getRank(); ++a)
                if (!llvm::is_contained(c.getLhsReduce(), a))
                  lp[a] = positions[next++];
              for (int64_t r = 0; r < rhsType.getRank(); ++r)
                if (!llvm::is_contained(c.getRhsReduce(), r) && !llvm::is_contained(c.getRhsBatch(), r))
                  rp[r] = positions[next++];
              for (auto [a, r] : llvm::zip(c.getLhsBatch(), c.getRhsBatch()))
                rp[r] = lp[a];
              for (auto [k, pair] : llvm::enumerate(llvm::zip(c.getLhsReduce(), c.getRhsReduce()))) {
                lp[std::get<0>(pair)] = red[k];
                rp[std::get<1>(pair)] = red[k];
              }
              FailureOr<Value> x = element(c.getLhs(), lp), y = element(c.getRhs(), rp);
              if (failed(x) || failed(y))
                return failure();
              Value xa = x->getType() == acc ? *x : Value(pgpu::CastOp::create(b, loc, acc, *x));
              Value ya = y->getType() == acc ? *y : Value(pgpu::CastOp::create(b, loc, acc, *y));
              if (precision == kir::ContractPrecision::IEEE)
                return SmallVector<Value>{binary(loc, kir::BinaryKind::Mul, xa, ya)};
              // KIR_ContractPrecision on f32 (verified): exact products of the TF32 parts; tf32x3's
              // three terms of this k are summed first (one association of the terms' sum).
              Value xh = roundTF32(loc, xa), yh = roundTF32(loc, ya);
              Value hh = binary(loc, kir::BinaryKind::Mul, xh, yh);
              if (precision == kir::ContractPrecision::TF32)
                return SmallVector<Value>{hh};
              Value lh = binary(loc, kir::BinaryKind::Mul, roundTF32(loc, xa, true), yh);
              Value hl = binary(loc, kir::BinaryKind::Mul, xh, roundTF32(loc, ya, true));
              return SmallVector<Value>{
                  binary(loc, kir::BinaryKind::Add, binary(loc, kir::BinaryKind::Add, lh, hl), hh)};
            },
            [&](Region &combine, TypeRange types) { return addCombine(combine, types); });
        if (failed(products))
          return failure();
        // The contraction's sole addition: its init (zero-K gives init), realized after the sum so that
        // a tiled K loop does not keep it live (a bias row held across the loop took 64 registers a
        // thread of a 128x256 tile: GEMM + bias + GELU 2.46 ms against 0.65 ms on the H200).
        if (!c.getInit())
          return (*products)[0];
        FailureOr<Value> init = element(c.getInit(), positions);
        if (failed(init))
          return failure();
        return binary(loc, kir::BinaryKind::Add, *init, (*products)[0]);
      })
      .Default([&](Operation *op) -> FailureOr<Value> { return unsupported(op); });
}

/// A kir combine region on scalars becomes the same region in pgpu ops.
LogicalResult KernelConstructor::convertCombineRegion(Region &kirRegion, Region &physRegion, TypeRange components) {
  OpBuilder::InsertionGuard guard(b);
  Block *block = b.createBlock(&physRegion);
  Block &kirBlock = kirRegion.front();
  for (auto [i, arg] : llvm::enumerate(kirBlock.getArguments()))
    map.map(arg, block->addArgument(components[i % components.size()], arg.getLoc()));
  if (failed(emitBlock(kirBlock)))
    return failure();
  SmallVector<Value> yields;
  for (Value y : kirBlock.getTerminator()->getOperands())
    yields.push_back(map.lookup(y));
  pgpu::YieldOp::create(b, kirBlock.getTerminator()->getLoc(), yields);
  return success();
}

/// The sum combine of contractions and counts.
LogicalResult KernelConstructor::addCombine(Region &combine, TypeRange components) {
  OpBuilder::InsertionGuard guard(b);
  Block *block = b.createBlock(&combine);
  Location loc = combine.getParentOp()->getLoc();
  Value lhs = block->addArgument(components[0], loc), rhs = block->addArgument(components[0], loc);
  pgpu::YieldOp::create(b, loc, ValueRange{binary(loc, kir::BinaryKind::Add, lhs, rhs)});
  return success();
}

/// A reduction over the product of `extents` keeps the reduce contract in
/// the physical program: nested pgpu.range_reduce ops, the innermost element
/// region computing one member. Blocking may reorder and regroup them.
FailureOr<SmallVector<Value>> KernelConstructor::reduceNest(Location loc, ArrayRef<Value> extents,
                                                            ValueRange identities, ElementFn element,
                                                            CombineFn buildCombine) {
  SmallVector<Value> positions;
  SmallVector<Type> types(identities.getTypes());
  std::function<FailureOr<SmallVector<Value>>(unsigned)> nest = [&](unsigned depth) -> FailureOr<SmallVector<Value>> {
    auto reduce = pgpu::RangeReduceOp::create(b, loc, types, constIndex(loc, 0), extents[depth], identities);
    {
      OpBuilder::InsertionGuard guard(b);
      Block *body = b.createBlock(&reduce.getElement());
      positions.push_back(body->addArgument(b.getIndexType(), loc));
      FailureOr<SmallVector<Value>> member = depth + 1 == extents.size() ? element(positions) : nest(depth + 1);
      positions.pop_back();
      if (failed(member))
        return failure();
      pgpu::YieldOp::create(b, loc, *member);
    }
    if (failed(buildCombine(reduce.getCombine(), types)))
      return failure();
    return SmallVector<Value>(reduce.getResults());
  };
  return nest(0);
}

/// Value and position along the arg-reduce axis at `kept` positions. An
/// arg-reduce is a reduction of (value, position) pairs whose combine decides
/// by value and breaks ties (and orders NaNs) by position, which makes it
/// associative and commutative: it stays a pgpu.range_reduce that blocking may
/// regroup. Identity: (-inf or the minimum, largest position) for argmax.
FailureOr<SmallVector<Value>> KernelConstructor::argReduceAt(kir::ArgReduceOp op, ArrayRef<Value> kept) {
  Location loc = op.getLoc();
  FailureOr<SmallVector<Value>> in = sizes(op.getInput());
  if (failed(in))
    return failure();
  Type elem = getElementTypeOrSelf(op.getInput().getType());
  bool isFloat = isa<FloatType>(elem), wantMax = op.getKind() == kir::ArgReduceKind::ArgMax;
  bool highest = op.getTie() == kir::TieRule::Highest, propagate = op.getNan() == kir::NaNRule::Propagate;
  Value worst;
  if (isFloat) {
    worst = arith::ConstantOp::create(b, loc, b.getFloatAttr(elem, wantMax ? -INFINITY : INFINITY));
  } else {
    unsigned width = elem.getIntOrFloatBitWidth();
    APInt bound = wantMax ? APInt::getSignedMinValue(width) : APInt::getSignedMaxValue(width);
    worst = arith::ConstantOp::create(b, loc, b.getIntegerAttr(elem, bound));
  }
  // The identity's position loses every tie: past the end (lowest wins) or -1 (highest wins).
  Value noPosition = constIndex(loc, highest ? -1 : std::numeric_limits<int32_t>::max());
  unsigned axis = op.getAxis();
  auto buildCombine = [&](Region &combine, TypeRange types) -> LogicalResult {
    OpBuilder::InsertionGuard guard(b);
    Block *block = b.createBlock(&combine);
    Value v1 = block->addArgument(types[0], loc), i1 = block->addArgument(types[1], loc);
    Value v2 = block->addArgument(types[0], loc), i2 = block->addArgument(types[1], loc);
    auto cmp = [&](kir::CmpPredicate p, Value l, Value r) { return Value(pgpu::CmpOp::create(b, loc, p, l, r)); };
    auto andOp = [&](Value l, Value r) { return boolOp(loc, kir::BinaryKind::And, l, r); };
    auto orOp = [&](Value l, Value r) { return boolOp(loc, kir::BinaryKind::Or, l, r); };
    Value earlier = cmp(highest ? kir::CmpPredicate::GT : kir::CmpPredicate::LT, i2, i1);
    Value better = cmp(wantMax ? kir::CmpPredicate::GT : kir::CmpPredicate::LT, v2, v1);
    Value tie = andOp(cmp(kir::CmpPredicate::EQ, v2, v1), earlier);
    Value second = orOp(better, tie);
    if (isFloat) {
      Value nan1 = cmp(kir::CmpPredicate::NE, v1, v1), nan2 = cmp(kir::CmpPredicate::NE, v2, v2);
      Value bothNumbers = andOp(notOp(loc, nan1), notOp(loc, nan2));
      second = andOp(bothNumbers, second);
      if (propagate) {
        // A NaN beats every number; between NaNs the tie rule decides.
        Value nanWins = andOp(nan2, orOp(notOp(loc, nan1), earlier));
        second = orOp(second, nanWins);
      } else {
        // NaNs are ignored: a number beats a NaN.
        second = orOp(second, andOp(nan1, notOp(loc, nan2)));
      }
    }
    pgpu::YieldOp::create(b, loc, ValueRange{pgpu::SelectOp::create(b, loc, second, v2, v1),
                                             pgpu::SelectOp::create(b, loc, second, i2, i1)});
    return success();
  };
  SmallVector<kir::ScanOp> walked = scansWalkedBy(op);
  auto nest = [&](ElementFn member, CombineFn combine) {
    return walked.empty() ? reduceNest(loc, (*in)[axis], ValueRange{worst, noPosition}, member, combine)
                          : walkNest(loc, walked, (*in)[axis], ValueRange{worst, noPosition}, member, combine);
  };
  return nest(
      [&](ArrayRef<Value> step) -> FailureOr<SmallVector<Value>> {
        SmallVector<Value> positions(kept);
        positions.insert(positions.begin() + axis, step[0]);
        FailureOr<Value> x = element(op.getInput(), positions);
        if (failed(x))
          return failure();
        return SmallVector<Value>{*x, step[0]};
      },
      buildCombine);
}
