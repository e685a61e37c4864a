//===- Values.cpp - the constructor's scalars, domains and loop nests -----===//
//
// seed 002 §3.1: the building blocks of construction. KIR scalars realized
// in pgpu, a domain's members from its realized bounds (LaunchExprs where
// they are launch-time facts), pointwise ops mapped one to one onto pgpu
// value ops, the ordered loop nests and independent foreach nests elements
// are built in, and the view coordinates of an access at element positions.
//
//===----------------------------------------------------------------------===//

#include "KernelConstructor.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::construct;

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
    auto [loop, position, inner] = countedLoop(loc, extents[depth], carries);
    positions.push_back(position);
    FailureOr<SmallVector<Value>> next =
        depth + 1 == extents.size() ? body(positions, inner) : nest(depth + 1, inner);
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
