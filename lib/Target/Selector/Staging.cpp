//===- Staging.cpp - rank >= 2 data movement through shared memory ---------===//

#include "SelectorImpl.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::selector::detail;

//===----------------------------------------------------------------------===//
// Fragments of rank >= 2. The flattened layout makes pointwise ops, accesses, full reductions and
// row-major reshapes free; an op that moves elements between threads (broadcast to another
// shape, transpose, reduction along some axes, contraction) stages its operands in shared memory,
// synchronizes, and every thread reads the elements its slots need. One staging area per kernel,
// sized by the largest use, is reused: each use ends with a barrier.
//===----------------------------------------------------------------------===//

Value Selector::stagedPointer(Type slotType, int64_t byteOffset, Value linear) {
  auto ptr = LLVM::LLVMPointerType::get(b.getContext(), 3);
  Value base = LLVM::AddressOfOp::create(b, loc, ptr, name + "_stage");
  if (byteOffset)
    base = LLVM::GEPOp::create(b, loc, ptr, b.getI8Type(), base, ValueRange{constInt(b.getI64Type(), byteOffset)});
  Value at = arith::IndexCastOp::create(b, loc, b.getI64Type(), linear);
  return LLVM::GEPOp::create(b, loc, ptr, slotType, base, ValueRange{at});
}

FailureOr<int64_t> Selector::stage(Value fragment, int64_t byteOffset) {
  auto type = cast<pgpu::FragmentType>(fragment.getType());
  Type slotType = stageType(deviceScalarType(type.getElementType()));
  int64_t bytes = elements(type) * std::max<int64_t>(1, slotType.getIntOrFloatBitWidth() / 8);
  int64_t end = byteOffset + ((bytes + 15) / 16) * 16;
  if (end > stageLimit())
    return current->emitError() << "the " << target.name() << " selector would stage " << end
                                << " bytes of fragments in shared memory here, more than its " << stageLimit()
                                << "-byte budget (smaller tile parameters fit)";
  stageBytes = std::max(stageBytes, end);
  for (int64_t k = 0, n = slots(type); k < n; ++k) {
    Value v = values[fragment][k];
    Value word = v.getType().isIndex()      ? arith::IndexCastOp::create(b, loc, slotType, v).getResult()
                 : v.getType().isInteger(1) ? arith::ExtUIOp::create(b, loc, slotType, v).getResult()
                                            : v;
    Value linear = slotIndex(type, k);
    auto store = [&] { LLVM::StoreOp::create(b, loc, word, stagedPointer(slotType, byteOffset, linear)); };
    if (Value exists = slotExists(type, k)) {
      scf::IfOp::create(b, loc, exists, [&](OpBuilder &, Location) {
        store();
        scf::YieldOp::create(b, loc);
      });
    } else {
      store();
    }
  }
  return end;
}

Value Selector::readStaged(Type type, int64_t byteOffset, Value linear) {
  Type slotType = stageType(type);
  Value word = LLVM::LoadOp::create(b, loc, slotType, stagedPointer(slotType, byteOffset, linear));
  if (type.isIndex())
    return arith::IndexCastOp::create(b, loc, type, word);
  if (type.isInteger(1))
    return arith::TruncIOp::create(b, loc, type, word);
  return word;
}

SmallVector<Value> Selector::delinearizeStatic(Value linear, ArrayRef<int64_t> shape) {
  SmallVector<Value> coords(shape.size());
  for (int64_t i = shape.size() - 1; i >= 0; --i) {
    coords[i] = i == 0 ? linear : arith::RemUIOp::create(b, loc, linear, constIndex(shape[i])).getResult();
    if (i > 0)
      linear = arith::DivUIOp::create(b, loc, linear, constIndex(shape[i]));
  }
  return coords;
}

Value Selector::linearizeStatic(ArrayRef<Value> coords, ArrayRef<int64_t> shape) {
  Value linear = constIndex(0);
  for (auto [c, e] : llvm::zip(coords, shape))
    linear = arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, linear, constIndex(e)), c);
  return linear;
}

/// A pure data movement: result element `index` is operand element `sourceCoords(index)`.
bool Selector::recomputable(Value fragment, unsigned depth) {
  if (!isa<pgpu::FragmentType>(fragment.getType()))
    return true; // a scalar operand is uniform
  Operation *def = fragment.getDefiningOp();
  if (!def || depth > 8)
    return false;
  if (isa<pgpu::IotaOp, pgpu::SplatOp>(def))
    return true;
  if (auto unary = dyn_cast<pgpu::UnaryOp>(def); unary && isa<FloatType>(pgpu::elementTypeOf(unary.getType())))
    return false; // keep transcendental work where it was computed
  if (!isa<pgpu::BroadcastOp, pgpu::TransposeOp, pgpu::BinaryOp, pgpu::UnaryOp, pgpu::CmpOp, pgpu::SelectOp,
           pgpu::CastOp>(def))
    return false;
  return llvm::all_of(def->getOperands(), [&](Value v) { return recomputable(v, depth + 1); });
}

FailureOr<Value> Selector::elementAt(Value fragment, ArrayRef<Value> coords) {
  if (!isa<pgpu::FragmentType>(fragment.getType()))
    return values[fragment][0];
  Operation *def = fragment.getDefiningOp();
  auto operand = [&](unsigned i) { return elementAt(def->getOperand(i), coords); };
  return llvm::TypeSwitch<Operation *, FailureOr<Value>>(def)
      .Case([&](pgpu::IotaOp o) -> FailureOr<Value> {
        return arith::AddIOp::create(b, loc, values[o.getBase()][0], coords[0]).getResult();
      })
      .Case([&](pgpu::SplatOp o) -> FailureOr<Value> { return values[o.getOperand()][0]; })
      .Case([&](pgpu::BroadcastOp o) {
        SmallVector<Value> source;
        for (int64_t d : o.getDims())
          source.push_back(coords[d]);
        return elementAt(o.getOperand(), source);
      })
      .Case([&](pgpu::TransposeOp o) {
        SmallVector<Value> source(coords.size());
        for (auto [k, p] : llvm::enumerate(o.getPermutation()))
          source[p] = coords[k];
        return elementAt(o.getOperand(), source);
      })
      .Case([&](pgpu::BinaryOp o) -> FailureOr<Value> {
        FailureOr<Value> x = operand(0), y = operand(1);
        if (failed(x) || failed(y))
          return failure();
        return binary(o, o.getKind(), pgpu::elementTypeOf(o.getType()), *x, *y, o.getApproximate());
      })
      .Case([&](pgpu::UnaryOp o) -> FailureOr<Value> {
        FailureOr<Value> x = operand(0);
        if (failed(x))
          return failure();
        return unary(o, o.getKind(), pgpu::elementTypeOf(o.getType()), *x, o.getApproximate());
      })
      .Case([&](pgpu::CmpOp o) -> FailureOr<Value> {
        FailureOr<Value> x = operand(0), y = operand(1);
        if (failed(x) || failed(y))
          return failure();
        return compare(o.getPredicate(), pgpu::elementTypeOf(o.getLhs().getType()), *x, *y);
      })
      .Case([&](pgpu::SelectOp o) -> FailureOr<Value> {
        FailureOr<Value> c = operand(0), t = operand(1), f = operand(2);
        if (failed(c) || failed(t) || failed(f))
          return failure();
        return arith::SelectOp::create(b, loc, *c, *t, *f).getResult();
      })
      .Case([&](pgpu::CastOp o) -> FailureOr<Value> {
        FailureOr<Value> x = operand(0);
        if (failed(x))
          return failure();
        return castValue(pgpu::elementTypeOf(o.getOperand().getType()), pgpu::elementTypeOf(o.getType()), *x);
      })
      .Default([&](Operation *o) -> FailureOr<Value> {
        return o->emitError() << "the " << target.name() << " selector cannot recompute this element (a selector bug)";
      });
}

LogicalResult Selector::emitMove(Operation *op, Value operand, Value result,
                                 llvm::function_ref<SmallVector<Value>(ArrayRef<Value>)> sourceCoords) {
  auto from = cast<pgpu::FragmentType>(operand.getType());
  auto to = cast<pgpu::FragmentType>(result.getType());
  SmallVector<int64_t> toShape0 = shapeOf(to);
  if (recomputable(operand)) {
    // Coordinates and other pure functions of them: recompute each element where it is needed.
    SmallVector<Value> out;
    for (int64_t k = 0, n = slots(to); k < n; ++k) {
      SmallVector<Value> index = delinearizeStatic(slotElement(to, k), toShape0);
      FailureOr<Value> v = elementAt(operand, sourceCoords(index));
      if (failed(v))
        return failure();
      out.push_back(*v);
    }
    values[result] = out;
    return success();
  }
  if (failed(stage(operand, 0)))
    return failure();
  gpu::BarrierOp::create(b, loc);
  SmallVector<int64_t> fromShape = shapeOf(from), toShape = shapeOf(to);
  Type type = deviceScalarType(from.getElementType());
  SmallVector<Value> out;
  for (int64_t k = 0, n = slots(to); k < n; ++k) {
    SmallVector<Value> index = delinearizeStatic(slotElement(to, k), toShape);
    out.push_back(readStaged(type, 0, linearizeStatic(sourceCoords(index), fromShape)));
  }
  gpu::BarrierOp::create(b, loc);
  values[result] = out;
  return success();
}

/// pgpu.reduce along some axes: every result element folds its line of staged inputs in order.
LogicalResult Selector::emitAxisReduce(pgpu::ReduceOp op) {
  auto input = cast<pgpu::FragmentType>(op.getInputs()[0].getType());
  SmallVector<int64_t> shape = shapeOf(input), reduced, kept;
  ArrayRef<int64_t> axes = op.getAxes();
  for (int64_t a = 0; a < int64_t(shape.size()); ++a)
    (llvm::is_contained(axes, a) ? reduced : kept).push_back(a);
  SmallVector<int64_t> reducedShape, offsets;
  for (int64_t a : reduced)
    reducedShape.push_back(shape[a]);
  int64_t offset = 0;
  for (Value in : op.getInputs()) {
    offsets.push_back(offset);
    FailureOr<int64_t> end = stage(in, offset);
    if (failed(end))
      return failure();
    offset = *end;
  }
  gpu::BarrierOp::create(b, loc);
  auto resultType = cast<pgpu::FragmentType>(op.getResults()[0].getType());
  SmallVector<int64_t> resultShape = shapeOf(resultType);
  int64_t length = 1;
  for (int64_t e : reducedShape)
    length *= e;
  SmallVector<Value> identity;
  flatten(op.getIdentities(), identity);
  SmallVector<SmallVector<Value>> results(op.getNumResults());
  bool ok = true;
  for (int64_t k = 0, n = slots(resultType); k < n; ++k) {
    SmallVector<Value> keptCoords = delinearizeStatic(slotElement(resultType, k), resultShape);
    auto loop = scf::ForOp::create(
        b, loc, constIndex(0), constIndex(length), constIndex(1), identity,
        [&](OpBuilder &, Location, Value j, ValueRange acc) {
          SmallVector<Value> r = delinearizeStatic(j, reducedShape), coords(shape.size());
          for (auto [i, a] : llvm::enumerate(kept))
            coords[a] = keptCoords[i];
          for (auto [i, a] : llvm::enumerate(reduced))
            coords[a] = r[i];
          Value linear = linearizeStatic(coords, shape);
          SmallVector<Value> member;
          for (auto [in, off] : llvm::zip(op.getInputs(), offsets))
            member.push_back(readStaged(deviceScalarType(cast<pgpu::FragmentType>(in.getType()).getElementType()),
                                        off, linear));
          FailureOr<SmallVector<Value>> next = inlineCombine(op.getCombine(), acc, member);
          ok = ok && succeeded(next);
          scf::YieldOp::create(b, loc, ok ? ValueRange(*next) : acc);
        });
    for (auto [c, r] : llvm::enumerate(loop.getResults()))
      results[c].push_back(r);
  }
  gpu::BarrierOp::create(b, loc);
  if (!ok)
    return failure();
  for (auto [r, list] : llvm::zip(op.getResults(), results))
    values[r] = list;
  return success();
}

/// pgpu.contract as plain FMA tiles (Semantics.cpp contractInto): lhs and rhs staged in shared
/// memory; each accumulator element adds its products in reduction order, widened to the
/// accumulator type and fused (fma) like the interpreter.
LogicalResult Selector::emitContract(pgpu::ContractOp op) {
  auto lhsType = cast<pgpu::FragmentType>(op.getLhs().getType());
  auto rhsType = cast<pgpu::FragmentType>(op.getRhs().getType());
  auto accType = cast<pgpu::FragmentType>(op.getType());
  SmallVector<int64_t> ls = shapeOf(lhsType), rs = shapeOf(rhsType), as = shapeOf(accType);
  ArrayRef<int64_t> lr = op.getLhsReduce(), rr = op.getRhsReduce(), lb = op.getLhsBatch(), rb = op.getRhsBatch();
  SmallVector<int64_t> lhsFree, rhsFree, reduceShape;
  for (int64_t a : lr)
    reduceShape.push_back(ls[a]);
  for (int64_t a = 0; a < int64_t(ls.size()); ++a)
    if (!llvm::is_contained(lr, a))
      lhsFree.push_back(a);
  for (int64_t a = 0; a < int64_t(rs.size()); ++a)
    if (!llvm::is_contained(rr, a) && !llvm::is_contained(rb, a))
      rhsFree.push_back(a);
  FailureOr<int64_t> rhsOffset = stage(op.getLhs(), 0);
  if (failed(rhsOffset) || failed(stage(op.getRhs(), *rhsOffset)))
    return failure();
  gpu::BarrierOp::create(b, loc);
  Type operand = lhsType.getElementType(), acc = accType.getElementType();
  Type dacc = deviceScalarType(acc);
  int64_t length = 1;
  for (int64_t e : reduceShape)
    length *= e;
  SmallVector<Value> out;
  for (int64_t k = 0, n = slots(accType); k < n; ++k) {
    SmallVector<Value> o = delinearizeStatic(slotElement(accType, k), as);
    SmallVector<Value> li(ls.size()), ri(rs.size());
    for (auto [i, a] : llvm::enumerate(lhsFree))
      li[a] = o[i];
    for (auto [i, a] : llvm::enumerate(rhsFree))
      ri[a] = o[lhsFree.size() + i];
    for (auto [a, c] : llvm::zip(lb, rb))
      ri[c] = li[a];
    auto loop = scf::ForOp::create(
        b, loc, constIndex(0), constIndex(length), constIndex(1), ValueRange{values[op.getAcc()][k]},
        [&](OpBuilder &, Location, Value j, ValueRange sum) {
          SmallVector<Value> r = delinearizeStatic(j, reduceShape), lc(li), rc(ri);
          for (auto [i, a] : llvm::enumerate(lr))
            lc[a] = r[i];
          for (auto [i, a] : llvm::enumerate(rr))
            rc[a] = r[i];
          Value x = castValue(operand, acc, readStaged(deviceScalarType(operand), 0, linearizeStatic(lc, ls)));
          Value y = castValue(operand, acc,
                              readStaged(deviceScalarType(operand), *rhsOffset, linearizeStatic(rc, rs)));
          Value next = isa<FloatType>(acc)
                           ? intrinsic("llvm.fma." + suffix(dacc), dacc, ValueRange{x, y, sum[0]})
                           : arith::AddIOp::create(b, loc, sum[0], arith::MulIOp::create(b, loc, x, y)).getResult();
          scf::YieldOp::create(b, loc, next);
        });
    out.push_back(loop.getResult(0));
  }
  gpu::BarrierOp::create(b, loc);
  values[op.getResult()] = out;
  return success();
}

