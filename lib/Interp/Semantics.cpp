//===- Semantics.cpp - value semantics shared by the KIR and pgpu interpreters ===//
//
// pgpu keeps KIR's semantic schema (seed 000 §7, §8), so both interpreters
// execute pointwise ops, structured ops and ordered control through these
// functions: one definition of each semantics, in the documented order (see
// InterpStructured.cpp).
//
//===----------------------------------------------------------------------===//

#include "InterpreterImpl.h"

#include <cmath>

using namespace mlir;
using namespace tessel;
using namespace tessel::interp;
using namespace tessel::interp::engine;

FailureOr<TensorPtr> engine::binaryTensors(Operation &op, kir::BinaryKind kind, NumericalOptions opts,
                                           const TensorPtr &lhs, const TensorPtr &rhs) {
  Type type = lhs->elementType;
  return mapElements(op, {lhs, rhs}, type,
                     [&](ArrayRef<Elem> e) { return applyBinary(kind, e[0], e[1], type, opts); });
}

FailureOr<TensorPtr> engine::unaryTensors(Operation &op, kir::UnaryKind kind, NumericalOptions opts,
                                          const TensorPtr &x) {
  Type type = x->elementType;
  return mapElements(op, {x}, type, [&](ArrayRef<Elem> e) { return applyUnary(kind, e[0], type, opts); });
}

FailureOr<TensorPtr> engine::cmpTensors(Operation &op, kir::CmpPredicate predicate, const TensorPtr &lhs,
                                        const TensorPtr &rhs) {
  Type type = lhs->elementType;
  return mapElements(op, {lhs, rhs}, IntegerType::get(op.getContext(), 1), [&](ArrayRef<Elem> e) {
    return Elem{0, int64_t(applyCmp(predicate, e[0], e[1], type))};
  });
}

FailureOr<TensorPtr> engine::selectTensors(Operation &op, const TensorPtr &cond, const TensorPtr &a,
                                           const TensorPtr &b) {
  if (cond->shape.empty() && !a->shape.empty())
    return cond->data[0].i ? a : b;
  return mapElements(op, {cond, a, b}, a->elementType, [](ArrayRef<Elem> e) { return e[0].i ? e[1] : e[2]; });
}

FailureOr<TensorPtr> engine::convertTensor(Operation &op, const TensorPtr &x, Type to, bool bitcast) {
  Type from = x->elementType;
  return mapElements(op, {x}, to, [&](ArrayRef<Elem> e) {
    return bitcast ? bitcastElem(e[0], from, to) : castElem(e[0], from, to);
  });
}

TensorPtr engine::transposeTensor(const TensorPtr &t, ArrayRef<int64_t> perm) {
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(t->shape[p]);
  auto out = makeTensor(t->elementType, shape);
  SmallVector<int64_t> index, source(perm.size());
  for (int64_t i = 0; i < out->size(); ++i) {
    delinearize(i, shape, index);
    for (auto [k, p] : llvm::enumerate(perm))
      source[p] = index[k];
    out->data[i] = t->data[linearize(source, t->shape)];
  }
  return out;
}

TensorPtr engine::joinTensors(const TensorPtr &a, const TensorPtr &b) {
  SmallVector<int64_t> shape(a->shape);
  shape.push_back(2);
  auto out = makeTensor(a->elementType, shape);
  for (int64_t i = 0; i < a->size(); ++i) {
    out->data[2 * i] = a->data[i];
    out->data[2 * i + 1] = b->data[i];
  }
  return out;
}

FailureOr<SmallVector<TensorPtr>> engine::reduceAlong(Engine &engine, Region &combine, ArrayRef<TensorPtr> inputs,
                                                      ArrayRef<Elem> identity, ArrayRef<int64_t> axes) {
  SmallVector<Type> types;
  for (const TensorPtr &t : inputs)
    types.push_back(t->elementType);
  SmallVector<int64_t> outShape;
  for (auto [i, d] : llvm::enumerate(inputs[0]->shape))
    if (!llvm::is_contained(axes, int64_t(i)))
      outShape.push_back(d);
  unsigned n = inputs.size();
  int64_t outSize = numElements(outShape);
  std::vector<Elem> acc(outSize * n);
  for (int64_t o = 0; o < outSize; ++o)
    for (unsigned c = 0; c < n; ++c)
      acc[o * n + c] = identity[c];
  SmallVector<int64_t> index, outIndex;
  SmallVector<Elem> lhs(n), rhs(n), next;
  for (int64_t i = 0; i < inputs[0]->size(); ++i) {
    delinearize(i, inputs[0]->shape, index);
    outIndex.clear();
    for (auto [k, v] : llvm::enumerate(index))
      if (!llvm::is_contained(axes, int64_t(k)))
        outIndex.push_back(v);
    int64_t o = linearize(outIndex, outShape);
    for (unsigned c = 0; c < n; ++c) {
      lhs[c] = acc[o * n + c];
      rhs[c] = inputs[c]->data[i];
    }
    if (failed(engine.combineElems(combine, types, lhs, rhs, next)))
      return failure();
    for (unsigned c = 0; c < n; ++c)
      acc[o * n + c] = next[c];
  }
  SmallVector<TensorPtr> results;
  for (unsigned c = 0; c < n; ++c) {
    auto out = makeTensor(types[c], outShape);
    for (int64_t o = 0; o < outSize; ++o)
      out->data[o] = acc[o * n + c];
    results.push_back(out);
  }
  return results;
}

FailureOr<SmallVector<TensorPtr>> engine::scanAlong(Engine &engine, Region &combine, ArrayRef<TensorPtr> inputs,
                                                    ArrayRef<Elem> initial, unsigned axis, bool exclusive,
                                                    bool reverse) {
  SmallVector<Type> types;
  for (const TensorPtr &t : inputs)
    types.push_back(t->elementType);
  unsigned n = inputs.size();
  ArrayRef<int64_t> shape = inputs[0]->shape;
  SmallVector<std::shared_ptr<Tensor>> outs;
  for (unsigned c = 0; c < n; ++c)
    outs.push_back(makeTensor(types[c], shape));
  SmallVector<int64_t> lineShape(shape), index;
  int64_t length = lineShape[axis];
  lineShape[axis] = 1;
  SmallVector<Elem> acc(n), x(n), next;
  for (int64_t line = 0; line < numElements(lineShape); ++line) {
    delinearize(line, lineShape, index);
    acc.assign(initial.begin(), initial.end());
    for (int64_t step = 0; step < length; ++step) {
      index[axis] = reverse ? length - 1 - step : step;
      int64_t at = linearize(index, shape);
      for (unsigned c = 0; c < n; ++c)
        x[c] = inputs[c]->data[at];
      if (exclusive)
        for (unsigned c = 0; c < n; ++c)
          outs[c]->data[at] = acc[c];
      if (failed(engine.combineElems(combine, types, acc, x, next)))
        return failure();
      acc.assign(next.begin(), next.end());
      if (!exclusive)
        for (unsigned c = 0; c < n; ++c)
          outs[c]->data[at] = acc[c];
    }
  }
  return SmallVector<TensorPtr>(outs.begin(), outs.end());
}

std::pair<TensorPtr, TensorPtr> engine::argReduceAlong(const TensorPtr &x, unsigned axis, bool wantMax, bool highest,
                                                       bool propagate, int64_t base, MLIRContext *ctx) {
  int64_t length = x->shape[axis];
  bool isFloat = isFloatType(x->elementType);
  SmallVector<int64_t> outShape(x->shape), lineShape(x->shape), index;
  outShape.erase(outShape.begin() + axis);
  lineShape[axis] = 1;
  auto vals = makeTensor(x->elementType, outShape);
  auto idxs = makeTensor(IndexType::get(ctx), outShape);
  for (int64_t o = 0; o < vals->size(); ++o) {
    delinearize(o, lineShape, index);
    int64_t best = -1;
    Elem bestVal;
    for (int64_t k = 0; k < length; ++k) {
      index[axis] = k;
      Elem v = x->data[linearize(index, x->shape)];
      bool vNaN = isFloat && std::isnan(v.f);
      if (vNaN && !propagate)
        continue;
      bool take = best < 0;
      if (!take && isFloat && std::isnan(bestVal.f)) {
        take = vNaN && highest; // a NaN is already selected
      } else if (!take && vNaN) {
        take = true;
      } else if (!take) {
        bool gt = applyCmp(kir::CmpPredicate::GT, v, bestVal, x->elementType);
        bool lt = applyCmp(kir::CmpPredicate::LT, v, bestVal, x->elementType);
        take = (wantMax ? gt : lt) || (!gt && !lt && highest);
      }
      if (take) {
        best = k;
        bestVal = v;
      }
    }
    if (best < 0) { // every member was NaN and ignored
      best = 0;
      bestVal.f = std::nan("");
    }
    vals->data[o] = bestVal;
    idxs->data[o].i = base + best;
  }
  return {vals, idxs};
}

FailureOr<TensorPtr> engine::contractInto(Operation &op, const TensorPtr &lhs, const TensorPtr &rhs,
                                          const TensorPtr &init, Type acc, ArrayRef<int64_t> lr,
                                          ArrayRef<int64_t> rr, ArrayRef<int64_t> lb, ArrayRef<int64_t> rb,
                                          kir::ContractPrecision precision) {
  if (precision != kir::ContractPrecision::IEEE) {
    // KIR_ContractPrecision: f32 operands (the verifier's rule) split into TF32 parts.
    auto part = [&](const TensorPtr &x, bool low) {
      auto out = std::make_shared<Tensor>(*x);
      for (Elem &e : out->data) {
        float v = float(e.f), hi = kir::roundToTF32(v);
        e.f = low ? (std::isfinite(hi) ? double(kir::roundToTF32(v - hi)) : 0.0) : double(hi);
      }
      return TensorPtr(out);
    };
    TensorPtr lhi = part(lhs, false), rhi = part(rhs, false);
    if (precision == kir::ContractPrecision::TF32)
      return contractInto(op, lhi, rhi, init, acc, lr, rr, lb, rb);
    // tf32x3, the reference order: acc += lo_a.hi_b; += hi_a.lo_b; += hi_a.hi_b (each term exact).
    FailureOr<TensorPtr> t = contractInto(op, part(lhs, true), rhi, init, acc, lr, rr, lb, rb);
    if (succeeded(t))
      t = contractInto(op, lhi, part(rhs, true), *t, acc, lr, rr, lb, rb);
    if (succeeded(t))
      t = contractInto(op, lhi, rhi, *t, acc, lr, rr, lb, rb);
    return t;
  }
  SmallVector<int64_t> reduceShape, lhsFree, rhsFree, outShape;
  for (auto [a, b] : llvm::zip(lr, rr)) {
    if (lhs->shape[a] != rhs->shape[b])
      return op.emitError() << "reduce pair (" << a << ", " << b << ") has extents " << lhs->shape[a] << " and "
                            << rhs->shape[b] << " at run time";
    reduceShape.push_back(lhs->shape[a]);
  }
  for (auto [a, b] : llvm::zip(lb, rb))
    if (lhs->shape[a] != rhs->shape[b])
      return op.emitError() << "batch pair (" << a << ", " << b << ") has extents " << lhs->shape[a] << " and "
                            << rhs->shape[b] << " at run time";
  for (int64_t a = 0; a < int64_t(lhs->shape.size()); ++a)
    if (!llvm::is_contained(lr, a)) {
      lhsFree.push_back(a);
      outShape.push_back(lhs->shape[a]);
    }
  for (int64_t b = 0; b < int64_t(rhs->shape.size()); ++b)
    if (!llvm::is_contained(rr, b) && !llvm::is_contained(rb, b)) {
      rhsFree.push_back(b);
      outShape.push_back(rhs->shape[b]);
    }
  auto out = makeTensor(acc, outShape);
  bool isFloat = isFloatType(acc);
  Type operand = lhs->elementType;
  SmallVector<int64_t> o, r, li(lhs->shape.size()), ri(rhs->shape.size());
  int64_t reduceSize = numElements(reduceShape);
  for (int64_t i = 0; i < out->size(); ++i) {
    delinearize(i, outShape, o);
    for (auto [k, a] : llvm::enumerate(lhsFree))
      li[a] = o[k];
    for (auto [k, b] : llvm::enumerate(rhsFree))
      ri[b] = o[lhsFree.size() + k];
    for (auto [a, b] : llvm::zip(lb, rb))
      ri[b] = li[a];
    Elem sum = init ? init->data[i] : Elem();
    for (int64_t j = 0; j < reduceSize; ++j) {
      delinearize(j, reduceShape, r);
      for (auto [k, a] : llvm::enumerate(lr))
        li[a] = r[k];
      for (auto [k, b] : llvm::enumerate(rr))
        ri[b] = r[k];
      Elem x = castElem(lhs->data[linearize(li, lhs->shape)], operand, acc);
      Elem y = castElem(rhs->data[linearize(ri, rhs->shape)], operand, acc);
      if (isFloat)
        sum.f = roundToFloat(std::fma(x.f, y.f, sum.f), acc);
      else
        sum.i = wrapToInteger(int64_t(uint64_t(sum.i) + uint64_t(x.i) * uint64_t(y.i)), acc);
    }
    out->data[i] = sum;
  }
  return TensorPtr(out);
}

LogicalResult engine::runWhile(Engine &engine, Region &before, Region &after, SmallVector<RValue> carries,
                               ResultRange results) {
  while (true) {
    Block &block = before.front();
    SmallVector<RValue> terminatorValues;
    if (failed(engine.execBlock(block, carries, &terminatorValues)))
      return failure();
    // The condition op's operands: the continuation test, then the forwarded values.
    bool keepGoing = std::get<TensorPtr>(terminatorValues.front())->data[0].i != 0;
    SmallVector<RValue> forwarded(terminatorValues.begin() + 1, terminatorValues.end());
    if (!keepGoing) {
      for (auto [r, v] : llvm::zip(results, forwarded))
        engine.bind(r, v);
      return success();
    }
    if (failed(engine.callRegion(after, forwarded, carries)))
      return failure();
  }
}

LogicalResult engine::runIf(Engine &engine, bool condition, Region &thenRegion, Region &elseRegion,
                            ResultRange results) {
  Region &region = condition ? thenRegion : elseRegion;
  if (region.empty())
    return success();
  SmallVector<RValue> values;
  if (failed(engine.callRegion(region, {}, values)))
    return failure();
  for (auto [r, v] : llvm::zip(results, values))
    engine.bind(r, v);
  return success();
}
