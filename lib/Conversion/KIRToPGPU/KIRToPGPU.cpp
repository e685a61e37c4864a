//===- KIRToPGPU.cpp - construct the initial physical program --------------===//
//
// seed 002 §3.1: KIR, canonical facts and the target produce the complete
// initial pgpu program. Worksets (top-level kir.parallel ops) become
// one-dimensional segments of the program space with LaunchExpr lengths,
// prefix offsets and explicit dispatch guards; each program instance owns one
// point of its workset. Logical tensors are realized element by element: a
// consumer evaluates the element it needs at explicit positions, replaying
// pure producers (loads, pointwise math, broadcasts) at that point, and
// reductions/contractions become ordered physical loops with carries. Every
// access is emitted with coordinates, validity and fill. Blocking into
// fragments belongs to later pass groups (seed 002 §3.3).
//
//===----------------------------------------------------------------------===//

#include "tessel/Conversion/Passes.h"
#include "tessel/Dialect/KIR/IR/IndexFacts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <limits>

namespace tessel {
#define GEN_PASS_DEF_CONVERTKIRTOPGPU
#include "tessel/Conversion/Passes.h.inc"
} // namespace tessel

using namespace mlir;
using namespace tessel;

#include "FoldWorkset.h"
#include "KernelConstructor.h"

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

using namespace tessel::construct;


/// Physical slots of a scalar-like value: a record or tuple has one per field.
static unsigned slotWidth(Type type) {
  if (auto record = dyn_cast<kir::RecordType>(type))
    return record.getTypes().size();
  if (auto tuple = dyn_cast<TupleType>(type))
    return tuple.size();
  return 1;
}

Value KernelConstructor::roundTF32(Location loc, Value x, bool low) {
  Type f32 = b.getF32Type(), i32 = b.getI32Type();
  auto like = [&](Type element) -> Type {
    if (auto f = dyn_cast<pgpu::FragmentType>(x.getType()))
      return pgpu::FragmentType::get(b.getContext(), element, f.getExtents());
    return element;
  };
  auto constant = [&](Type element, Attribute value) -> Value {
    Value c = arith::ConstantOp::create(b, loc, element, cast<TypedAttr>(value));
    return isa<pgpu::FragmentType>(x.getType()) ? Value(pgpu::SplatOp::create(b, loc, like(element), c)) : c;
  };
  auto round = [&](Value v) -> Value {
    // The magnitude's bits + 0x1000, the low 13 bits cleared: to nearest, ties away from zero.
    Value bits = pgpu::BitcastOp::create(b, loc, like(i32), v);
    Value sum = binary(loc, kir::BinaryKind::Add, bits, constant(i32, b.getI32IntegerAttr(0x1000)));
    Value kept = binary(loc, kir::BinaryKind::And, sum, constant(i32, b.getI32IntegerAttr(int32_t(0xFFFFE000u))));
    Value r = pgpu::BitcastOp::create(b, loc, like(f32), kept);
    Value nan = pgpu::CmpOp::create(b, loc, kir::CmpPredicate::NE, v, v);
    return pgpu::SelectOp::create(b, loc, nan, v, r);
  };
  Value hi = round(x);
  if (!low)
    return hi;
  Value zero = constant(f32, b.getF32FloatAttr(0.0f));
  Value finite = pgpu::CmpOp::create(b, loc, kir::CmpPredicate::EQ, binary(loc, kir::BinaryKind::Sub, hi, hi), zero);
  return pgpu::SelectOp::create(b, loc, finite, round(binary(loc, kir::BinaryKind::Sub, x, hi)), zero);
}

Value KernelConstructor::zeroOf(Location loc, Type type) {
  if (isa<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, 0.0));
  if (type.isIndex())
    return constIndex(loc, 0);
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, 0));
}

FailureOr<Value> KernelConstructor::scalar(Value v) {
  if (Value mapped = map.lookupOrNull(v))
    return mapped;
  Operation *def = v.getDefiningOp();
  return (def ? def : kernel.getOperation())->emitError()
         << "kir-to-pgpu needs a scalar here that construction has not realized";
}

FailureOr<SmallVector<Value>> KernelConstructor::scalars(ValueRange values) {
  SmallVector<Value> out;
  for (Value v : values) {
    FailureOr<Value> s = scalar(v);
    if (failed(s))
      return failure();
    out.push_back(*s);
  }
  return out;
}

/// Domains and subregions: lo/hi/step and size = max(0, ceil((hi - lo) / step)).
bool KernelConstructor::launchUniform(Value v) {
  if (matchPattern(v, m_Constant()))
    return true;
  Block *entry = &physical.getBody().front();
  if (auto arg = dyn_cast<BlockArgument>(v))
    return arg.getOwner() == entry;
  return v.getDefiningOp()->getBlock() == entry;
}

Value KernelConstructor::ceilDiv(Location loc, Value x, Value step) {
  // A LaunchExpr where both are launch-time facts; else (a domain inside a workset, e.g. a
  // subregion at a program coordinate) the same rounding in value arithmetic, for x >= 0 (the
  // callers clamp a negative span's quotient to 0).
  if (launchUniform(x) && launchUniform(step))
    return pgpu::CeilDivOp::create(b, loc, x, step);
  APInt s;
  if (matchPattern(step, m_ConstantInt(&s)) && s.isOne())
    return x;
  Value biased = binary(loc, kir::BinaryKind::Add, x, binary(loc, kir::BinaryKind::Sub, step, constIndex(loc, 1)));
  return binary(loc, kir::BinaryKind::Div, biased, step);
}

DomainVals KernelConstructor::domainVals(Operation *op, Value lower, Value upper, const DomainVals &source) {
  Location loc = op->getLoc();
  DomainVals d;
  if (auto dom = dyn_cast<kir::DomainOp>(op)) {
    d = {lower, upper, constIndex(loc, dom.getStep()), Value()};
  } else {
    // A subregion [lower, upper) of `source`: its first member at or after lower; members below
    // min(upper, hi).
    Value from = binary(loc, kir::BinaryKind::Max, lower, source.lo);
    Value offset = ceilDiv(loc, binary(loc, kir::BinaryKind::Sub, from, source.lo), source.step);
    Value first = binary(loc, kir::BinaryKind::Add, source.lo, binary(loc, kir::BinaryKind::Mul, offset, source.step));
    d = {first, binary(loc, kir::BinaryKind::Min, upper, source.hi), source.step, Value()};
  }
  Value span = binary(loc, kir::BinaryKind::Sub, d.hi, d.lo);
  d.size = binary(loc, kir::BinaryKind::Max, ceilDiv(loc, span, d.step), constIndex(loc, 0));
  return d;
}

LogicalResult KernelConstructor::defineDomain(Operation *op) {
  FailureOr<Value> lo = failure(), hi = failure();
  DomainVals source;
  if (auto dom = dyn_cast<kir::DomainOp>(op)) {
    lo = scalar(dom.getLower()), hi = scalar(dom.getUpper());
  } else {
    auto sub = cast<kir::SubregionOp>(op);
    source = domains.lookup(sub.getSource());
    lo = scalar(sub.getBegin()), hi = scalar(sub.getEnd());
  }
  if (failed(lo) || failed(hi))
    return failure();
  domains[op->getResult(0)] = domainVals(op, *lo, *hi, source);
  return success();
}

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
      .Case<kir::BinaryOp, kir::CmpOp, kir::SelectOp>([&](Operation *arith) -> LogicalResult {
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

/// Scalar pointwise ops map one-to-one onto pgpu value ops.
FailureOr<Value> KernelConstructor::convertPointwise(Operation *op, ArrayRef<Value> operands) {
  Location loc = op->getLoc();
  return llvm::TypeSwitch<Operation *, FailureOr<Value>>(op)
      .Case<kir::BinaryOp>([&](kir::BinaryOp o) -> FailureOr<Value> {
        return Value(pgpu::BinaryOp::create(b, loc, o.getKind(), operands[0], operands[1], o.getApproximate(),
                                            o.getFlushToZero()));
      })
      .Case<kir::UnaryOp>([&](kir::UnaryOp o) -> FailureOr<Value> {
        return Value(pgpu::UnaryOp::create(b, loc, o.getKind(), operands[0], o.getApproximate(), o.getFlushToZero()));
      })
      .Case<kir::CmpOp>([&](kir::CmpOp o) -> FailureOr<Value> {
        return Value(pgpu::CmpOp::create(b, loc, o.getPredicate(), operands[0], operands[1]));
      })
      .Case<kir::SelectOp>([&](kir::SelectOp) -> FailureOr<Value> {
        return Value(pgpu::SelectOp::create(b, loc, operands[0], operands[1], operands[2]));
      })
      .Case<kir::CastOp>([&](kir::CastOp o) -> FailureOr<Value> {
        return Value(pgpu::CastOp::create(b, loc, getElementTypeOrSelf(o.getType()), operands[0]));
      })
      .Case<kir::BitcastOp>([&](kir::BitcastOp o) -> FailureOr<Value> {
        return Value(pgpu::BitcastOp::create(b, loc, getElementTypeOrSelf(o.getType()), operands[0]));
      })
      .Default([&](Operation *other) -> FailureOr<Value> { return unsupported(other); });
}

FailureOr<SmallVector<Value>> KernelConstructor::loopNest(Location loc, ArrayRef<Value> extents, ValueRange inits,
                                                          LoopBody body) {
  if (extents.empty())
    return body({}, inits);
  SmallVector<Value> positions;
  std::function<FailureOr<SmallVector<Value>>(unsigned, ValueRange)> nest =
      [&](unsigned depth, ValueRange carries) -> FailureOr<SmallVector<Value>> {
    auto loop = pgpu::ForOp::create(b, loc, TypeRange(carries), constIndex(loc, 0), extents[depth],
                                    constIndex(loc, 1), carries);
    Block *block = b.createBlock(&loop.getBody());
    block->addArgument(b.getIndexType(), loc);
    for (Value c : carries)
      block->addArgument(c.getType(), loc);
    positions.push_back(block->getArgument(0));
    FailureOr<SmallVector<Value>> next = depth + 1 == extents.size()
                                             ? body(positions, block->getArguments().drop_front())
                                             : nest(depth + 1, block->getArguments().drop_front());
    positions.pop_back();
    if (failed(next))
      return failure();
    pgpu::YieldOp::create(b, loc, *next);
    b.setInsertionPointAfter(loop);
    return SmallVector<Value>(loop.getResults());
  };
  return nest(0, inits);
}

LogicalResult KernelConstructor::foreachNest(Location loc, ArrayRef<Value> extents,
                                             function_ref<LogicalResult(ArrayRef<Value>)> body) {
  SmallVector<Value> positions;
  std::function<LogicalResult(unsigned)> nest = [&](unsigned depth) -> LogicalResult {
    if (depth == extents.size())
      return body(positions);
    auto loop = pgpu::ForeachOp::create(b, loc, constIndex(loc, 0), extents[depth]);
    OpBuilder::InsertionGuard guard(b);
    Block *block = b.createBlock(&loop.getBody());
    positions.push_back(block->addArgument(b.getIndexType(), loc));
    if (failed(nest(depth + 1)))
      return failure();
    positions.pop_back();
    pgpu::YieldOp::create(b, loc);
    return success();
  };
  return nest(0);
}

/// Source coordinates of an access at `positions` of the accessed value.
FailureOr<SmallVector<Value>> KernelConstructor::accessCoords(Location loc, ValueRange coords,
                                                              ArrayRef<Value> positions, Operation *access) {
  SmallVector<Value> out;
  kir::CoordinateAxes axes = kir::coordinateAxes(access, coords);
  for (auto [i, c] : llvm::enumerate(coords)) {
    // A coordinate's axes begin at axes.first[i] among the access's (a joint pair shares its partner's).
    if (isa<kir::DomainType>(c.getType())) {
      out.push_back(member(loc, domains.lookup(c), positions[axes.first[i]]));
      continue;
    }
    if (auto tensor = dyn_cast<RankedTensorType>(c.getType())) {
      FailureOr<Value> index = element(c, positions.slice(axes.first[i], tensor.getRank()));
      if (failed(index))
        return failure();
      out.push_back(*index);
      continue;
    }
    FailureOr<Value> s = scalar(c);
    if (failed(s))
      return failure();
    out.push_back(*s);
  }
  return out;
}

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
  return reduceNest(
      loc, reducedExtents, *identities,
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
            kir::HistogramOp>(def))
      ++keptForUses[def];
    return v;
  }
  FailureOr<Value> result = elementOf(def, tensor, positions);
  if (succeeded(result))
    realized[tensor].push_back(Realized{SmallVector<Value, 4>(positions.begin(), positions.end()), *result});
  return result;
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
        // A tensor component at `positions`, folded with every scalar component.
        unsigned wanted = cast<OpResult>(tensor).getResultNumber();
        SmallVector<unsigned> components;
        for (auto [i, r] : llvm::enumerate(f.getResults()))
          if (!isa<RankedTensorType>(r.getType()))
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
        FailureOr<SmallVector<Value>> products = reduceNest(
            loc, reduceExtents, zeroOf(loc, acc), [&](ArrayRef<Value> red) -> FailureOr<SmallVector<Value>> {
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

LogicalResult KernelConstructor::emitStore(Operation &op) {
  Value value = op.getOperand(0);
  FailureOr<SmallVector<StoredScan>> scans = scansOfStored(op);
  if (failed(scans))
    return failure();
  if (!scans->empty())
    return emitScanStore(*scans, op); // ScanValues.cpp
  SmallVector<Value> extents;
  if (isa<RankedTensorType>(value.getType())) {
    FailureOr<SmallVector<Value>> s = sizes(value);
    if (failed(s))
      return failure();
    extents = *s;
  }
  // The elements of a stored tensor are an independent workset: pgpu.foreach.
  return foreachNest(op.getLoc(), extents,
                     [&](ArrayRef<Value> positions) { return emitElementStore(op, positions); });
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
  return reduceNest(
      loc, (*in)[axis], ValueRange{worst, noPosition},
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

/// The element of a store/scatter/scatter-reduce's value at `positions`.
LogicalResult KernelConstructor::emitElementStore(Operation &op, ArrayRef<Value> positions) {
  FailureOr<Value> v = element(op.getOperand(0), positions);
  if (failed(v))
    return failure();
  return emitElementWrite(op, *v, positions);
}

/// Writes `value` where the write op `op` puts the element at `positions`:
/// coordinates and validity come from the op, evaluated at those positions.
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

/// Components of a region fold fold apart from the others when `region`
/// (a combine, or a region scan's apply: two groups of `n` arguments, the i-th
/// of each being component i) computes each of them from those components
/// only; a tensor component is projected to one element, which needs the
/// region to be elementwise (pointwise ops and scalar broadcasts).
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
    if (auto bc = dyn_cast<kir::BroadcastAsOp>(inner); bc && isa<RankedTensorType>(bc.getOperand().getType()))
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
  if (isa<RankedTensorType>(v.getType())) {
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

LogicalResult KernelConstructor::emitBlock(Block &block) {
  for (Operation &op : block.without_terminator())
    if (failed(emitStatement(op)))
      return failure();
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

/// Views a workset reads and writes (for the one-launch independence check).
void tessel::construct::collectViews(Operation *op, DenseSet<Value> &reads, DenseSet<Value> &writes) {
  op->walk([&](Operation *inner) {
    for (Value operand : inner->getOperands()) {
      if (!isa<kir::ViewType>(operand.getType()))
        continue;
      if (isa<kir::StoreOp, kir::ScatterOp, kir::ScatterReduceOp, kir::AtomicStoreOp, kir::AtomicRMWOp,
              kir::AtomicCASOp>(inner))
        writes.insert(operand);
      else
        reads.insert(operand);
    }
  });
}

/// A top-level runtime kir.if with scalar results whose branches only compute and read (the DSL's
/// `a if c else b` on kernel-level scalars) is replayed in the worksets that use it, like the reads
/// and values it selects between (seed 002 §3.4). Found by the DSL fuzzer: it was refused as "neither
/// a launch-time fact nor a pure value read before the worksets".
static bool replayableIf(Operation &op) {
  auto branch = dyn_cast<kir::IfOp>(op);
  if (!branch || branch.getIsConstexpr() ||
      llvm::any_of(branch.getResultTypes(), [](Type t) { return !t.isIntOrIndexOrFloat(); }))
    return false;
  WalkResult walk = branch->walk([&](Operation *nested) {
    if (nested == branch.getOperation() || isa<kir::LoadOp, kir::GatherOp, kir::IfOp, kir::YieldOp>(nested) ||
        isMemoryEffectFree(nested))
      return WalkResult::advance();
    return WalkResult::interrupt();
  });
  return !walk.wasInterrupted();
}

/// The views that `op` and the ops nested in it read.
static void viewsReadIn(Operation *op, DenseSet<Value> &views) {
  op->walk([&](Operation *nested) {
    for (Value operand : nested->getOperands())
      if (isa<kir::ViewType>(operand.getType()))
        views.insert(operand);
  });
}

LogicalResult KernelConstructor::classifyTopLevel(Block &block, SmallVectorImpl<Workset> &worksets) {
  for (Operation &op : block.without_terminator()) {
    if (auto p = dyn_cast<kir::ParallelOp>(op)) {
      Workset w{p, {}};
      for (Value d : p.getDomains())
        w.extents.push_back(domains.lookup(d).size);
      worksets.push_back(w);
      continue;
    }
    if (isa<kir::StoreOp, kir::ScatterOp, kir::ScatterReduceOp>(op)) {
      Value value = op.getOperand(0);
      FailureOr<SmallVector<StoredScan>> scans = scansOfStored(op);
      if (failed(scans))
        return failure();
      if (!scans->empty())
        return op.emitError() << "kir-to-pgpu: a top-level stored scan is not constructed yet; scan inside a "
                                 "kir.parallel over the other axes";
      Workset w{&op, {}};
      if (kir::HistogramOp h = mergedHistogram(op)) {
        // One instance per source element; the bins are merged through workspace (HistogramMerge.cpp).
        FailureOr<SmallVector<Value>> extents = sizes(h.getInput());
        if (failed(extents))
          return failure();
        w.extents = *extents;
        worksets.push_back(w);
        continue;
      }
      if (auto store = dyn_cast<kir::StoreOp>(op); store && llvm::any_of(store.getCoords(), [&](Value c) {
            return dataDependent.contains(c);
          })) {
        // A store over a data-dependent subregion: its instances are those of the launch-time domain
        // the subregion cuts (a superset), each inside the subregion's bounds storing one element.
        if (store.getValid() || !isa<RankedTensorType>(value.getType()))
          return op.emitError() << "kir-to-pgpu: a masked or scalar store over a data-dependent domain is not "
                                   "constructed yet";
        for (Value c : store.getCoords()) {
          Value root = c;
          while (auto sub = root.getDefiningOp<kir::SubregionOp>())
            root = sub.getSource();
          if (!isa<kir::DomainType>(c.getType()) || dataDependent.contains(root))
            return op.emitError() << "kir-to-pgpu: a store over a data-dependent domain needs every coordinate "
                                     "to be a subregion of a launch-time domain";
          w.extents.push_back(domains.lookup(root).size);
          w.roots.push_back(root);
        }
        worksets.push_back(w);
        continue;
      }
      if (isa<RankedTensorType>(value.getType())) {
        FailureOr<SmallVector<Value>> extents = sizes(value);
        if (failed(extents))
          return failure();
        w.extents = *extents;
      }
      worksets.push_back(w);
      continue;
    }
    if (auto branch = dyn_cast<kir::IfOp>(op); branch && branch.getIsConstexpr()) {
      APInt taken;
      if (!matchPattern(map.lookup(branch.getCondition()), m_ConstantInt(&taken)))
        return branch.emitError() << "kir-to-pgpu: constexpr condition did not fold";
      Region &region = taken.isZero() ? branch.getElseRegion() : branch.getThenRegion();
      if (region.empty())
        continue;
      if (failed(classifyTopLevel(region.front(), worksets)))
        return failure();
      for (auto [r, y] : llvm::zip(branch.getResults(), region.front().getTerminator()->getOperands())) {
        if (Value mapped = map.lookupOrNull(y))
          map.map(r, mapped);
        else
          aliases[r] = y;
      }
      continue;
    }
    if (auto buffer = dyn_cast<kir::BufferOp>(op)) {
      if (failed(emitKernelBuffer(buffer)))
        return failure();
      continue;
    }
    // Integer arithmetic on integers: a comparison of floats (`s > 0.5` on a kernel scalar) has an i1
    // result but is no LaunchExpr (seed 000 invariant 2; found by the DSL fuzzer: "'pgpu.cmp' op is
    // outside the program space"): it is replayed in the worksets like other float math.
    bool launchFact = isa<arith::ConstantOp, kir::ExtentOp, kir::ConstexprOp, kir::DomainOp, kir::SubregionOp>(op) ||
                      (isa<kir::BinaryOp, kir::CmpOp, kir::SelectOp>(op) && op.getResult(0).getType().isIntOrIndex() &&
                       llvm::all_of(op.getOperandTypes(), [](Type t) { return t.isIntOrIndex(); }));
    // Integer arithmetic and domains over values read from memory are not launch-time facts: they
    // are replayed in each workset like the reads they follow (seed 000 §6: data-dependent bounds).
    if (launchFact && llvm::any_of(op.getOperands(), [&](Value v) { return dataDependent.contains(v); }))
      launchFact = false;
    if (launchFact) {
      if (failed(emitLaunchFact(op)))
        return failure();
      continue;
    }
    bool replayable = isMemoryEffectFree(&op) || isa<kir::LoadOp, kir::GatherOp, kir::IndexRelationOp>(op) ||
                      replayableIf(op) ||
                      (isa<kir::BufferLoadOp>(op) && kernelBuffers.contains(cast<kir::BufferLoadOp>(op).getBuffer()));
    if (!replayable)
      return op.emitError() << "kir-to-pgpu: top-level '" << op.getName()
                            << "' is neither a launch-time fact nor a pure value read before the worksets; "
                               "effects must be inside a kir.parallel workset";
    replayed.push_back(&op);
    dataDependent.insert(op.getResults().begin(), op.getResults().end());
  }
  return success();
}

/// One element of an element-wise workset at `positions`: the replayed pure values, then the
/// parallel body (its domains' members at the positions), the histogram merge, or the element store.
LogicalResult KernelConstructor::emitWorksetElement(Workset &w, ArrayRef<Value> positions) {
  for (Operation *pure : replayed)
    if (failed(emitStatement(*pure)))
      return failure();
  if (auto p = dyn_cast<kir::ParallelOp>(w.op)) {
    Block &kirBody = p.getBody().front();
    for (auto [i, d] : llvm::enumerate(p.getDomains()))
      map.map(kirBody.getArgument(i), member(w.op->getLoc(), domains.lookup(d), positions[i]));
    return emitBlock(kirBody);
  }
  if (w.partial)
    return emitHistogramMerge(*w.op, w.partial, positions);
  if (!w.roots.empty()) {
    // Positions over the launch-time domains; the store's subregions were just replayed. Each axis:
    // its position in the subregion and whether the element lies inside it.
    Location loc = w.op->getLoc();
    auto store = cast<kir::StoreOp>(w.op);
    SmallVector<Value> inner;
    Value inside = trueValue(loc);
    for (auto [c, root, q] : llvm::zip(store.getCoords(), w.roots, positions)) {
      if (c == root) {
        inner.push_back(q);
        continue;
      }
      DomainVals d = domains.lookup(c), r = domains.lookup(root);
      Value offset = binary(loc, kir::BinaryKind::Div, binary(loc, kir::BinaryKind::Sub, d.lo, r.lo), r.step);
      Value end = binary(loc, kir::BinaryKind::Add, offset, d.size);
      Value from = pgpu::CmpOp::create(b, loc, kir::CmpPredicate::GE, q, offset);
      Value below = pgpu::CmpOp::create(b, loc, kir::CmpPredicate::LT, q, end);
      inside = boolOp(loc, kir::BinaryKind::And, inside, boolOp(loc, kir::BinaryKind::And, from, below));
      inner.push_back(binary(loc, kir::BinaryKind::Sub, q, offset));
    }
    auto guard = pgpu::IfOp::create(b, loc, TypeRange(), inside);
    OpBuilder::InsertionGuard g(b);
    b.createBlock(&guard.getThenRegion());
    if (failed(emitElementStore(*w.op, inner)))
      return failure();
    pgpu::YieldOp::create(b, loc);
    return success();
  }
  for (Value read : w.readFirst)
    if (failed(element(read, positions)))
      return failure();
  if (failed(emitElementStore(*w.op, positions)))
    return failure();
  for (Operation *store : w.joined)
    if (failed(emitElementStore(*store, positions)))
      return failure();
  return success();
}

/// A plain store of a tensor over launch-time domains (no histogram, mask-free coordinates only).
static bool plainTensorStore(Operation *op) {
  auto store = dyn_cast_or_null<kir::StoreOp>(op);
  return store && isa<RankedTensorType>(store.getValue().getType()) &&
         llvm::all_of(store.getCoords(), [](Value c) { return isa<kir::DomainType>(c.getType()); });
}

bool KernelConstructor::plainStores(const Workset &w) {
  return plainTensorStore(w.op) && !mergedHistogram(*w.op) && w.roots.empty() && !w.partial;
}

bool KernelConstructor::alignedInPlace(Workset &w, Value view) {
  if (!plainStores(w))
    return false;
  ValueRange coords = cast<kir::StoreOp>(w.op).getCoords();
  DenseSet<Operation *> stores{w.op};
  stores.insert(w.joined.begin(), w.joined.end());
  SmallVector<Value> loads;
  for (Operation *pure : replayed) {
    if (isa<kir::IfOp>(pure)) { // a read inside a replayed branch is not at the store's coordinates
      DenseSet<Value> read;
      viewsReadIn(pure, read);
      if (read.contains(view))
        return false;
      continue;
    }
    if (!llvm::is_contained(pure->getOperands(), view))
      continue;
    auto load = dyn_cast<kir::LoadOp>(pure);
    if (!load || load.getCoords() != coords || load.getValid())
      return false;
    // Its element may reach only this workset's stores, through ops that keep positions.
    SmallVector<Operation *> work(load->getUsers().begin(), load->getUsers().end());
    DenseSet<Operation *> seen;
    while (!work.empty()) {
      Operation *user = work.pop_back_val();
      if (!seen.insert(user).second || stores.contains(user))
        continue;
      bool elementwise = isa<kir::BinaryOp, kir::UnaryOp, kir::CmpOp, kir::SelectOp, kir::CastOp, kir::BitcastOp>(user) &&
                         user->getNumResults() == 1 && isa<RankedTensorType>(user->getResult(0).getType()) &&
                         llvm::all_of(user->getOperands(), [&](Value o) {
                           return !isa<RankedTensorType>(o.getType()) ||
                                  cast<RankedTensorType>(o.getType()).getRank() == cast<RankedTensorType>(load.getType()).getRank();
                         });
      if (!elementwise || user->getBlock() != load->getBlock())
        return false;
      work.append(user->getUsers().begin(), user->getUsers().end());
    }
    // A read after a store of the view reads what that store wrote (the latest such store): forward
    // the stored value; a read before the first one is realized before any store.
    kir::StoreOp latest;
    for (Operation *store : stores) {
      auto st = cast<kir::StoreOp>(store);
      if (st.getView() != view || st->getBlock() != load->getBlock() || !st->isBeforeInBlock(load))
        continue;
      if (!latest || latest->isBeforeInBlock(st))
        latest = st;
    }
    if (latest && latest.getValid())
      return false; // a masked store leaves some elements as they were
    if (latest)
      aliases[load.getResult()] = latest.getValue();
    else
      loads.push_back(load.getResult());
  }
  w.readFirst.append(loads.begin(), loads.end());
  // In source order, whatever order the views were checked in (the caller walks a set): the same
  // kernel compiles to the same text.
  llvm::stable_sort(w.readFirst, [](Value a, Value b) { return a.getDefiningOp()->isBeforeInBlock(b.getDefiningOp()); });
  return true;
}

void KernelConstructor::joinStores(SmallVectorImpl<Workset> &worksets,
                                   function_ref<void(Operation *, DenseSet<Value> &, DenseSet<Value> &)> accesses) {
  SmallVector<Workset, 4> merged;
  // What the last merged workset's stores read and write, all of them.
  DenseSet<Value> lastReads, lastWrites;
  for (Workset &w : worksets) {
    DenseSet<Value> reads, writes;
    accesses(w.op, reads, writes);
    if (!merged.empty() && plainStores(merged.back()) && plainStores(w) &&
        cast<kir::StoreOp>(merged.back().op).getCoords() == cast<kir::StoreOp>(w.op).getCoords() &&
        // No store of the merged workset may read what another writes: every instance stores its
        // elements after computing them, and other instances' elements are not ordered with it.
        llvm::none_of(writes, [&](Value v) { return lastReads.contains(v) || lastWrites.contains(v); }) &&
        llvm::none_of(lastWrites, [&](Value v) { return reads.contains(v); })) {
      merged.back().joined.push_back(w.op);
      lastReads.insert(reads.begin(), reads.end());
      lastWrites.insert(writes.begin(), writes.end());
      if (pgpu::remarksEnabled(kernel))
        emitRemark(w.op->getLoc()) << "kir-to-pgpu: this store joins the workset of the store before it (same "
                                      "coordinates): values they share are computed once per element";
      continue;
    }
    merged.push_back(w);
    lastReads = std::move(reads);
    lastWrites = std::move(writes);
  }
  worksets.assign(merged.begin(), merged.end());
}

/// A tensor read of a view inside a kir.parallel member whose value is still used after a store to
/// that view in the member. KIR reads the view where the load stands (seed 000 §4: a value is what the
/// source computed), but construction realizes a tensor's elements where they are used, so those uses
/// would read what the store wrote: refused at the read rather than constructed wrong. Scalar reads
/// are realized where they stand and are not affected.
static LogicalResult checkReadsBeforeStores(kir::ParallelOp p) {
  // Reads in the member's own block; a loop nested in it checks its own reads and writes
  // (CarriedTensors.cpp: a loop may not read a view it writes).
  WalkResult result = p.getBody().walk([&](kir::LoadOp load) {
    if (!isa<RankedTensorType>(load.getType()) || load->getBlock() != &p.getBody().front())
      return WalkResult::advance();
    Block *block = load->getBlock();
    Value view = load.getView();
    // The first store to the view after the read in its block (or inside an op after it there).
    Operation *store = nullptr;
    for (Operation *op = load->getNextNode(); op && !store; op = op->getNextNode()) {
      op->walk([&](kir::StoreOp st) {
        if (!store && st.getView() == view)
          store = op;
      });
    }
    if (!store)
      return WalkResult::advance();
    // Every op the read's value reaches, as the op of `block` holding it.
    SmallVector<Value> work{load.getResult()};
    DenseSet<Operation *> seen;
    while (!work.empty()) {
      Value v = work.pop_back_val();
      for (Operation *user : v.getUsers()) {
        if (!seen.insert(user).second)
          continue;
        Operation *at = block->findAncestorOpInBlock(*user);
        if (at && at != store && store->isBeforeInBlock(at)) {
          InFlightDiagnostic d = load.emitError()
                                 << "kir-to-pgpu: this read of the view is used after a store to the same view "
                                    "in the member; construction realizes a tensor's elements where they are used, "
                                    "so that use would read the stored values. Use the value before the store, or "
                                    "store it to another view first";
          d.attachNote(store->getLoc()) << "the store";
          d.attachNote(user->getLoc()) << "a use after it";
          return WalkResult::interrupt();
        }
        for (Value r : user->getResults())
          work.push_back(r);
      }
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

LogicalResult KernelConstructor::run() {
  Location loc = kernel.getLoc();
  MLIRContext *ctx = kernel.getContext();
  // The ABI: views become pgpu views; names and scalars are kept.
  SmallVector<Type> argTypes;
  for (Type type : kernel.getArgumentTypes()) {
    if (auto view = dyn_cast<kir::ViewType>(type))
      argTypes.push_back(pgpu::ViewType::get(ctx, view.getElementType(), view.getExtents(), view.getMode()));
    else
      argTypes.push_back(type);
  }
  physical = pgpu::KernelOp::create(b, loc, kernel.getSymName(), b.getFunctionType(argTypes, {}),
                                    kernel.getArgAttrsAttr(), ArrayAttr(), ArrayAttr());
  // Which integer views' values are coordinates into which extents: ABI facts the wrappers' checked
  // launch mode validates (kir/IndexFacts.h).
  llvm::MapVector<unsigned, SmallVector<Attribute>> indexes;
  for (kir::IndexFact fact : kir::collectIndexFacts(kernel))
    indexes[fact.index].push_back(b.getArrayAttr({b.getI64IntegerAttr(fact.target), b.getI64IntegerAttr(fact.axis)}));
  for (auto &[arg, entries] : indexes)
    physical.setArgAttr(arg, pgpu::PGPUDialect::getIndexesAttrName(), b.getArrayAttr(entries));
  Block *entry = b.createBlock(&physical.getBody());
  for (Type t : argTypes)
    entry->addArgument(t, loc);
  for (auto [kirArg, physArg] : llvm::zip(kernel.getBody().getArguments(), entry->getArguments()))
    map.map(kirArg, physArg);

  // Launch-time facts, then the worksets in order.
  // Pure top-level values that are not launch-time facts (float scalars,
  // logical tensors, reads of views) are realized inside every workset that
  // uses them: replaying pure producers is legal (seed 002 §3.4).
  SmallVector<Workset, 4> worksets;
  if (failed(classifyTopLevel(kernel.getBody().front(), worksets)))
    return failure();
  if (worksets.empty())
    return kernel.emitError() << "kir-to-pgpu: the kernel has no kir.parallel workset; whole-tensor top-level "
                                 "kernels are not constructed yet";
  // One launch has no barrier between worksets. A workset that touches what an earlier one wrote, or
  // writes what an earlier one touched (views and kernel-level buffers alike), runs whole in the last
  // program instance instead, after every instance of the others (KernelBuffers.cpp), in source
  // order with the other such worksets. Views read by pure top-level values (replayed in every
  // workset) must not be written at all.
  {
    DenseSet<Operation *> replayedOps(replayed.begin(), replayed.end());
    DenseSet<Value> replayedReads;
    for (Operation *pure : replayed)
      viewsReadIn(pure, replayedReads); // a replayed kir.if's reads included
    // The views and kernel buffers a workset reads and writes, the buffers read through the replayed
    // values it uses included.
    auto accesses = [&](Operation *root, DenseSet<Value> &reads, DenseSet<Value> &writes) {
      collectViews(root, reads, writes);
      SmallVector<Operation *> work{root};
      DenseSet<Operation *> seen;
      while (!work.empty()) {
        Operation *top = work.pop_back_val();
        if (!seen.insert(top).second)
          continue;
        top->walk([&](Operation *inner) {
          if (auto l = dyn_cast<kir::BufferLoadOp>(inner); l && kernelBuffers.contains(l.getBuffer()))
            reads.insert(l.getBuffer());
          if (auto st = dyn_cast<kir::BufferStoreOp>(inner); st && kernelBuffers.contains(st.getBuffer()))
            writes.insert(st.getBuffer());
          for (Value operand : inner->getOperands())
            if (Operation *def = operand.getDefiningOp(); def && replayedOps.contains(def))
              work.push_back(def);
        });
      }
    };
    joinStores(worksets, accesses);
    DenseSet<Value> earlierWrites, earlierReads;
    for (Workset &w : worksets) {
      DenseSet<Value> reads, writes;
      accesses(w.op, reads, writes);
      for (Operation *store : w.joined)
        accesses(store, reads, writes);
      for (Value v : writes)
        if (replayedReads.contains(v) && !alignedInPlace(w, v))
          return w.op->emitError() << "kir-to-pgpu: this workset writes a view that values before the worksets "
                                      "read; they are replayed in every workset, so no order would hold (an "
                                      "in-place update is constructed where each element is read at the "
                                      "coordinates it is stored to and used only by elementwise ops of "
                                      "stores over those coordinates)";
      w.finalize = llvm::any_of(writes, [&](Value v) { return earlierWrites.contains(v) || earlierReads.contains(v); }) ||
                   llvm::any_of(reads, [&](Value v) { return earlierWrites.contains(v); });
      if (w.finalize) {
        if (mergedHistogram(*w.op))
          return w.op->emitError() << "kir-to-pgpu: this stored histogram depends on an earlier workset: its own "
                                      "merge already takes the last program";
        if (llvm::any_of(writes, [&](Value v) { return kernelBuffers.contains(v); }))
          return w.op->emitError() << "kir-to-pgpu: this workset reads or writes what an earlier workset wrote and "
                                      "writes a kernel-level buffer too: a second barrier is not constructed";
        if (pgpu::remarksEnabled(kernel))
          emitRemark(w.op->getLoc()) << "kir-to-pgpu: this workset uses what an earlier workset writes (or writes "
                                        "what it uses): it runs whole in the last program instance";
      }
      earlierWrites.insert(writes.begin(), writes.end());
      earlierReads.insert(reads.begin(), reads.end());
    }
  }

  for (Workset &w : worksets)
    if (auto p = dyn_cast<kir::ParallelOp>(w.op); p && failed(checkReadsBeforeStores(p)))
      return failure();

  // Worksets holding a region fold or scan are constructed on fragments where
  // their values allow it (seed 002 §3.4); a fold's last extent counts lane blocks.
  for (Workset &w : worksets) {
    auto p = dyn_cast<kir::ParallelOp>(w.op);
    if (!p || w.finalize)
      continue;
    auto fold = std::make_shared<FoldWorkset>(*this, p);
    if (fold->plan()) {
      w.extents = fold->groupExtents(p.getLoc());
      fold->declareParams(physical);
      w.fold = fold;
    } else if (pgpu::remarksEnabled(kernel) && fold->whyNot() != "no region fold or scan in the workset") {
      emitRemark(p.getLoc()) << "kir-to-pgpu: " << fold->subject()
                             << " constructed element by element: " << fold->whyNot();
    }
  }

  // Stored histograms count into zero-filled workspace partials, sized like the stored view's axis,
  // and one ticket finds the last program instance, which writes the views.
  Value ticket;
  for (Workset &w : worksets) {
    kir::HistogramOp h = mergedHistogram(*w.op);
    if (!h)
      continue;
    auto view = cast<kir::ViewType>(cast<kir::StoreOp>(w.op).getView().getType());
    Type count = getElementTypeOrSelf(h.getType());
    w.partial = addWorkspace(w.op->getLoc(), count, view.getExtents(), b.getIntegerAttr(count, 0));
    if (!ticket)
      ticket = addWorkspace(loc, b.getI32Type(), {b.getI64IntegerAttr(1)}, b.getI32IntegerAttr(0));
  }

  SmallVector<Workset *> segments, finalizations;
  for (Workset &w : worksets)
    (w.finalize ? finalizations : segments).push_back(&w);
  if (!finalizations.empty() && !ticket)
    ticket = addWorkspace(loc, b.getI32Type(), {b.getI64IntegerAttr(1)}, b.getI32IntegerAttr(0));

  // Segment lengths (LaunchExpr) and prefix offsets.
  SmallVector<Value> offsets{constIndex(loc, 0)};
  for (Workset *segment : segments) {
    Workset &w = *segment;
    Location wloc = w.op->getLoc();
    Value length = constIndex(wloc, 1);
    for (Value e : w.extents)
      length = binary(wloc, kir::BinaryKind::Mul, length, e);
    offsets.push_back(binary(wloc, kir::BinaryKind::Add, offsets.back(), length));
  }
  // A last-program finalization needs one instance to run it even when every workset is empty.
  Value instances = ticket ? binary(loc, kir::BinaryKind::Max, offsets.back(), constIndex(loc, 1)) : offsets.back();
  auto space = pgpu::ProgramSpaceOp::create(b, loc, ValueRange{instances});
  Block *body = b.createBlock(&space.getBody());
  Value pid = body->addArgument(b.getIndexType(), loc);

  // Dispatch: if pid < offset[k+1] { group k at pid - offset[k] } else { ... }.
  std::function<LogicalResult(unsigned)> dispatch = [&](unsigned k) -> LogicalResult {
    Workset &w = *segments[k];
    Location ploc = w.op->getLoc();
    auto emitGroup = [&]() -> LogicalResult {
      Value linear = binary(ploc, kir::BinaryKind::Sub, pid, offsets[k]);
      SmallVector<Attribute> roles;
      for (unsigned i = 0; i < w.extents.size(); ++i)
        roles.push_back(b.getStringAttr("axis" + std::to_string(i)));
      auto group = pgpu::ExecutionGroupOp::create(b, ploc, linear, w.extents, b.getI64IntegerAttr(k),
                                                  b.getArrayAttr(roles));
      OpBuilder::InsertionGuard guard(b);
      Block *gb = b.createBlock(&group.getBody());
      SmallVector<Value> coords;
      for (unsigned i = 0; i < w.extents.size(); ++i)
        coords.push_back(gb->addArgument(b.getIndexType(), ploc));
      if (w.fold) {
        if (failed(w.fold->emit(coords)))
          return failure();
        pgpu::YieldOp::create(b, ploc);
        return success();
      }
      if (failed(emitWorksetElement(w, coords)))
        return failure();
      pgpu::YieldOp::create(b, ploc);
      return success();
    };
    if (k + 1 == segments.size() && !ticket) {
      // The last segment still needs its guard when the grid could be larger
      // than the program space's total; the total is exact, so no tail remains.
      return emitGroup();
    }
    Value inside = pgpu::CmpOp::create(b, ploc, kir::CmpPredicate::LT, pid, offsets[k + 1]);
    auto guard = pgpu::IfOp::create(b, ploc, TypeRange(), inside);
    {
      OpBuilder::InsertionGuard g(b);
      b.createBlock(&guard.getThenRegion());
      if (failed(emitGroup()))
        return failure();
      pgpu::YieldOp::create(b, ploc);
      if (k + 1 == segments.size())
        return success(); // the instance that only finalizes (an empty program space)
      b.createBlock(&guard.getElseRegion());
      if (failed(dispatch(k + 1)))
        return failure();
      pgpu::YieldOp::create(b, ploc);
    }
    return success();
  };
  if (failed(dispatch(0)))
    return failure();
  if (ticket) {
    auto last = pgpu::LastProgramOp::create(b, loc, ticket);
    OpBuilder::InsertionGuard guard(b);
    b.createBlock(&last.getBody());
    for (Workset &w : worksets)
      if (w.partial && failed(emitHistogramFinalize(*w.op, w.partial)))
        return failure();
    for (Workset *w : finalizations)
      if (failed(emitFinalization(*w)))
        return failure();
    pgpu::YieldOp::create(b, loc);
  }
  pgpu::YieldOp::create(b, loc);
  b.setInsertionPointAfter(space);
  pgpu::ReturnOp::create(b, loc);
  if (pgpu::remarksEnabled(kernel))
    for (auto [op, reuses] : keptForUses)
      emitRemark(op->getLoc()) << "kir-to-pgpu: this '" << op->getName() << "' is computed once per element and "
                               << "kept for " << reuses + 1 << " uses (not replayed per use: it holds a loop)";
  return success();
}

namespace {
struct ConvertKIRToPGPU : public tessel::impl::ConvertKIRToPGPUBase<ConvertKIRToPGPU> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<kir::KernelOp> kernels(module.getOps<kir::KernelOp>());
    for (kir::KernelOp kernel : kernels) {
      KernelConstructor constructor(kernel);
      if (failed(constructor.run()))
        return signalPassFailure();
      kernel.erase();
    }
    if (!module->hasAttr(pgpu::PGPUDialect::getTargetAttrName()))
      module->setAttr(pgpu::PGPUDialect::getTargetAttrName(),
                      pgpu::TargetAttr::get(&getContext(), StringAttr::get(&getContext(), "sm_90"), 32, 1024,
                                            232448, 65536, /*multiprocessors=*/132));
  }
};
} // namespace

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
