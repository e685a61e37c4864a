//===- InterpStructured.cpp - KIR interpreter: structured ops --------------===//
//
// Documented orders (the oracle's choices among those KIR permits):
//  * reduce: for each result element, start from the identity and combine the
//    reduced members in row-major order, accumulator on the left;
//  * scan: members in axis order (reversed with `reverse`), earlier on the left;
//  * contract: reduce pairs in row-major order, each product added to the
//    accumulator with one rounding to the accumulator dtype (fused multiply-add);
//  * region_fold: cut by the selected segmentation, summaries combined left to
//    right; region_scan: slices emitted from the state before them, the final
//    state computed as apply(combine of all transitions, init) so that the
//    author's combine law is exercised;
//  * arg_reduce: tie and NaN rules as declared.
//
//===----------------------------------------------------------------------===//

#include "InterpreterImpl.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <set>

using namespace mlir;
using namespace tessel;
using namespace tessel::interp;
using namespace tessel::interp::engine;

/// When every yielded component is `kir.binary kind(lhs_i, rhs_i)`, the
/// combine can be applied without interpreting the region.
static std::optional<SmallVector<std::pair<kir::BinaryKind, NumericalOptions>>> matchElementwiseCombine(Region &region,
                                                                                                         unsigned n) {
  Block &block = region.front();
  SmallVector<std::pair<kir::BinaryKind, NumericalOptions>> kinds;
  for (auto [i, v] : llvm::enumerate(block.getTerminator()->getOperands())) {
    // kir.binary and pgpu.binary share kinds and attributes.
    Operation *bin = v.getDefiningOp();
    auto kind = bin ? bin->getAttrOfType<kir::BinaryKindAttr>("kind") : kir::BinaryKindAttr();
    if (!kind || bin->getNumOperands() != 2 || bin->getOperand(0) != block.getArgument(i) ||
        bin->getOperand(1) != block.getArgument(n + i))
      return std::nullopt;
    kinds.push_back({kind.getValue(), {bin->hasAttr("approximate"), bin->hasAttr("flush_to_zero")}});
  }
  if (block.getOperations().size() != kinds.size() + 1)
    return std::nullopt;
  return kinds;
}

LogicalResult Engine::combineElems(Region &region, ArrayRef<Type> types, ArrayRef<Elem> lhs, ArrayRef<Elem> rhs,
                                        SmallVectorImpl<Elem> &out) {
  out.clear();
  if (auto kinds = matchElementwiseCombine(region, types.size())) {
    for (auto [i, k] : llvm::enumerate(*kinds))
      out.push_back(applyBinary(k.first, lhs[i], rhs[i], types[i], k.second));
    return success();
  }
  SmallVector<RValue> args, results;
  for (auto [t, e] : llvm::zip(types, lhs))
    args.push_back(makeScalar(t, e));
  for (auto [t, e] : llvm::zip(types, rhs))
    args.push_back(makeScalar(t, e));
  if (failed(callRegion(region, args, results)))
    return failure();
  for (RValue &r : results)
    out.push_back(std::get<TensorPtr>(r)->data[0]);
  return success();
}

/// Elements [begin, end) of `t` along `axis`.
static TensorPtr sliceAlong(const TensorPtr &t, unsigned axis, int64_t begin, int64_t end) {
  SmallVector<int64_t> shape(t->shape);
  shape[axis] = end - begin;
  auto out = makeTensor(t->elementType, shape);
  SmallVector<int64_t> index;
  for (int64_t i = 0; i < out->size(); ++i) {
    delinearize(i, shape, index);
    index[axis] += begin;
    out->data[i] = t->data[linearize(index, t->shape)];
  }
  return out;
}

/// Concatenates tensors along axis 0.
static TensorPtr concatLeading(Type elementType, ArrayRef<TensorPtr> parts, ArrayRef<int64_t> emptyShape) {
  SmallVector<int64_t> shape(emptyShape);
  shape[0] = 0;
  for (const TensorPtr &p : parts)
    shape[0] += p->shape[0];
  if (!parts.empty())
    for (size_t k = 1; k < shape.size(); ++k)
      shape[k] = parts[0]->shape[k];
  auto out = makeTensor(elementType, shape);
  int64_t at = 0;
  for (const TensorPtr &p : parts)
    for (const Elem &e : p->data)
      out->data[at++] = e;
  return out;
}

/// Cuts [0, length) into ordered, contiguous, non-empty segments.
static SmallVector<std::pair<int64_t, int64_t>> segment(int64_t length, const Segmentation &seg, std::mt19937_64 &rng) {
  SmallVector<std::pair<int64_t, int64_t>> segments;
  if (length <= 0)
    return segments;
  SmallVector<int64_t> cuts{0};
  if (seg.kind == Segmentation::Fixed) {
    int64_t k = std::min(std::max<int64_t>(seg.count, 1), length);
    for (int64_t i = 1; i < k; ++i)
      cuts.push_back(i * length / k);
  } else if (seg.kind == Segmentation::Random) {
    int64_t k = 1 + int64_t(rng() % uint64_t(std::min<int64_t>(length, 8)));
    std::set<int64_t> chosen;
    while (static_cast<int64_t>(chosen.size()) < k - 1)
      chosen.insert(1 + int64_t(rng() % uint64_t(length - 1)));
    cuts.append(chosen.begin(), chosen.end());
  }
  cuts.push_back(length);
  for (size_t i = 0; i + 1 < cuts.size(); ++i)
    segments.push_back({cuts[i], cuts[i + 1]});
  return segments;
}

LogicalResult Interpreter::execStructured(Operation &op, bool &handled) {
  handled = true;
  auto values = [&](ValueRange range) {
    SmallVector<RValue> out;
    for (Value v : range)
      out.push_back(lookup(v));
    return out;
  };

  return llvm::TypeSwitch<Operation *, LogicalResult>(&op)
      .Case<kir::ReduceOp>([&](kir::ReduceOp r) -> LogicalResult {
        SmallVector<TensorPtr> inputs;
        SmallVector<Elem> identity;
        for (Value v : r.getInputs())
          inputs.push_back(tensor(v));
        for (Value v : r.getIdentities())
          identity.push_back(tensor(v)->data[0]);
        FailureOr<SmallVector<TensorPtr>> results = reduceAlong(*this, r.getCombine(), inputs, identity, r.getAxes());
        if (failed(results))
          return failure();
        for (auto [res, t] : llvm::zip(r.getResults(), *results))
          bind(res, t);
        return success();
      })
      .Case<kir::ScanOp>([&](kir::ScanOp s) -> LogicalResult {
        SmallVector<TensorPtr> inputs;
        SmallVector<Elem> identity;
        for (Value v : s.getInputs())
          inputs.push_back(tensor(v));
        for (Value v : s.getIdentities())
          identity.push_back(tensor(v)->data[0]);
        FailureOr<SmallVector<TensorPtr>> results =
            scanAlong(*this, s.getCombine(), inputs, identity, s.getAxis(), s.getExclusive(), s.getReverse());
        if (failed(results))
          return failure();
        for (auto [res, t] : llvm::zip(s.getResults(), *results))
          bind(res, t);
        return success();
      })
      .Case<kir::ArgReduceOp>([&](kir::ArgReduceOp a) -> LogicalResult {
        TensorPtr x = tensor(a.getInput());
        if (x->shape[a.getAxis()] == 0)
          return op.emitError() << "arg_reduce over an empty axis has no position to return";
        auto [values, indices] = argReduceAlong(x, a.getAxis(), a.getKind() == kir::ArgReduceKind::ArgMax,
                                                a.getTie() == kir::TieRule::Highest,
                                                a.getNan() == kir::NaNRule::Propagate, 0, op.getContext());
        bind(a.getValues(), values);
        bind(a.getIndices(), indices);
        return success();
      })
      .Case<kir::ContractOp>([&](kir::ContractOp c) -> LogicalResult {
        FailureOr<TensorPtr> out =
            contractInto(op, tensor(c.getLhs()), tensor(c.getRhs()), c.getInit() ? tensor(c.getInit()) : TensorPtr(),
                         getElementTypeOrSelf(c.getType()), c.getLhsReduce(), c.getRhsReduce(), c.getLhsBatch(),
                         c.getRhsBatch(), kir::precisionOr(c.getPrecision()));
        if (failed(out))
          return failure();
        bind(c.getResult(), *out);
        return success();
      })
      .Case<kir::HistogramOp>([&](kir::HistogramOp h) -> LogicalResult {
        TensorPtr x = tensor(h.getInput());
        TensorPtr valid = h.getValid() ? tensor(h.getValid()) : TensorPtr();
        int64_t bins = domain(h.getBins()).size();
        Type countType = getElementTypeOrSelf(h.getType());
        auto out = makeTensor(countType, {bins});
        for (int64_t i = 0; i < x->size(); ++i) {
          if (valid && !valid->data[i].i)
            continue;
          int64_t v = x->data[i].i;
          if (v < 0 || v >= bins)
            return op.emitError() << "histogram value " << v << " at position " << i << " is outside the bins [0, "
                                  << bins << ")";
          out->data[v].i = wrapToInteger(out->data[v].i + 1, countType);
        }
        bind(h.getResult(), TensorPtr(out));
        return success();
      })
      .Case<kir::RegionFoldOp>([&](kir::RegionFoldOp f) -> LogicalResult {
        SmallVector<TensorPtr> sources;
        for (Value v : f.getSources())
          sources.push_back(tensor(v));
        unsigned axis = f.getAxis();
        int64_t length = sources[0]->shape[axis];
        for (const TensorPtr &s : sources)
          if (s->shape[axis] != length)
            return op.emitError() << "sources have different extents on the folded axis at run time";
        SmallVector<RValue> captures = values(f.getCaptures());
        SmallVector<RValue> acc = values(f.getIdentities());
        bool first = true;
        for (auto [begin, end] : segment(length, options.segmentation, rng)) {
          SmallVector<RValue> args, summary;
          for (const TensorPtr &s : sources)
            args.push_back(sliceAlong(s, axis, begin, end));
          args.append(captures.begin(), captures.end());
          if (failed(callRegion(f.getSummarize(), args, summary)))
            return failure();
          if (first) {
            acc = summary;
            first = false;
            continue;
          }
          SmallVector<RValue> pair(acc), merged;
          pair.append(summary.begin(), summary.end());
          if (failed(callRegion(f.getCombine(), pair, merged)))
            return failure();
          acc = merged;
        }
        for (auto [r, v] : llvm::zip(f.getResults(), acc))
          bind(r, v);
        return success();
      })
      .Case<kir::RegionScanOp>([&](kir::RegionScanOp s) -> LogicalResult {
        SmallVector<TensorPtr> sources;
        for (Value v : s.getSources())
          sources.push_back(tensor(v));
        unsigned axis = s.getAxis();
        int64_t length = sources[0]->shape[axis];
        SmallVector<RValue> captures = values(s.getCaptures());
        SmallVector<RValue> inits = values(s.getInits()), state = inits, total;
        SmallVector<SmallVector<TensorPtr>> parts(s.getOutputs().size());
        bool first = true;
        for (auto [begin, end] : segment(length, options.segmentation, rng)) {
          SmallVector<RValue> slices, args, emitted, transition, next;
          for (const TensorPtr &src : sources)
            slices.push_back(sliceAlong(src, axis, begin, end));
          args.assign(slices.begin(), slices.end());
          args.append(state.begin(), state.end());
          args.append(captures.begin(), captures.end());
          if (failed(callRegion(s.getEmit(), args, emitted)))
            return failure();
          for (auto [k, e] : llvm::enumerate(emitted)) {
            TensorPtr t = std::get<TensorPtr>(e);
            if (t->shape[0] != end - begin)
              return op.emitError() << "emit produced " << t->shape[0] << " rows for a slice of " << end - begin;
            parts[k].push_back(t);
          }
          args.assign(slices.begin(), slices.end());
          args.append(captures.begin(), captures.end());
          if (failed(callRegion(s.getSummarize(), args, transition)))
            return failure();
          args.assign(transition.begin(), transition.end());
          args.append(state.begin(), state.end());
          if (failed(callRegion(s.getApply(), args, next)))
            return failure();
          state = next;
          if (first) {
            total = transition;
            first = false;
          } else {
            SmallVector<RValue> pair(total), merged;
            pair.append(transition.begin(), transition.end());
            if (failed(callRegion(s.getCombine(), pair, merged)))
              return failure();
            total = merged;
          }
        }
        if (first) {
          // No segment: emit over an empty slice gives the outputs' empty shape
          // (emit(A ++ B) = emit(A) ++ emit(B) makes the empty slice neutral).
          SmallVector<RValue> args, emitted;
          for (const TensorPtr &src : sources)
            args.push_back(sliceAlong(src, axis, 0, 0));
          args.append(inits.begin(), inits.end());
          args.append(captures.begin(), captures.end());
          if (failed(callRegion(s.getEmit(), args, emitted)))
            return failure();
          for (auto [k, e] : llvm::enumerate(emitted))
            parts[k].push_back(std::get<TensorPtr>(e));
        }
        SmallVector<RValue> finals = inits;
        if (!first) {
          SmallVector<RValue> args(total);
          args.append(inits.begin(), inits.end());
          if (failed(callRegion(s.getApply(), args, finals)))
            return failure();
        }
        for (auto [k, out] : llvm::enumerate(s.getOutputs())) {
          auto type = cast<RankedTensorType>(out.getType());
          SmallVector<int64_t> emptyShape(type.getShape());
          for (int64_t &d : emptyShape)
            if (ShapedType::isDynamic(d))
              d = 0;
          bind(out, concatLeading(type.getElementType(), parts[k], emptyShape));
        }
        for (auto [r, v] : llvm::zip(s.getFinals(), finals))
          bind(r, v);
        return success();
      })
      .Case<kir::ScaledContractOp, kir::SparseContractOp>([&](Operation *declared) {
        return declared->emitError() << "'" << declared->getName()
                                     << "' is declared in KIR but not executable by the interpreter yet";
      })
      .Default([&](Operation *) {
        handled = false;
        return success();
      });
}
