//===- KIRStructuredOps.cpp - schemas of kir structured ops ----------------===//
//
// seed 002 §5.1 and seed 000 §8: combine/summarize/apply/emit signatures match
// the identity and accumulator schemas componentwise; combine regions are pure
// and summarize regions write nothing; regions are closed over their operands.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/KIR/IR/KIR.h"

#include "KIRVerifyUtils.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/bit.h"

#include <cmath>

using namespace mlir;
using namespace tessel::kir;
using namespace tessel::kir::detail;

/// `type` with axes `axes` removed; a scalar when no axis remains.
static Type dropAxes(RankedTensorType type, ArrayRef<int64_t> axes) {
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < type.getRank(); ++i)
    if (!llvm::is_contained(axes, i))
      shape.push_back(type.getDimSize(i));
  if (shape.empty())
    return type.getElementType();
  return RankedTensorType::get(shape, type.getElementType());
}

/// Every input has the first input's shape, axis by axis.
static LogicalResult verifySameShapes(Operation *op, ValueRange inputs, StringRef what) {
  auto first = cast<RankedTensorType>(inputs[0].getType());
  for (auto [i, input] : llvm::enumerate(inputs.drop_front())) {
    auto type = cast<RankedTensorType>(input.getType());
    if (type.getShape() != first.getShape())
      return op->emitOpError() << what << " #" << i + 1 << " has shape " << type
                               << " but all " << what << "s must have the shape of " << first;
    if (failed(verifySameExtents(op, inputs[0], input, what.str() + " #0", what.str() + " #" + std::to_string(i + 1))))
      return failure();
  }
  return success();
}

/// `identities` must equal `schema` componentwise.
static LogicalResult verifyIdentities(Operation *op, ValueRange identities, TypeRange schema) {
  if (identities.size() != schema.size())
    return op->emitOpError() << "has " << identities.size() << " identity components but the schema has "
                             << schema.size();
  for (auto [i, identity, expected] : llvm::enumerate(identities.getTypes(), schema))
    if (identity != expected)
      return op->emitOpError() << "identity component #" << i << " has type " << identity << " but "
                               << expected << " was expected";
  return success();
}

/// combine(lhs..., rhs...) -> schema, pure and closed.
static LogicalResult verifyCombine(Operation *op, Region &region, TypeRange schema,
                                   StringRef name = "combine") {
  SmallVector<Type> args(schema.begin(), schema.end());
  llvm::append_range(args, schema);
  if (failed(verifyRegionSignature(op, region, name, args, schema)) ||
      failed(verifyPureRegion(op, region, name, /*allowReads=*/false)) ||
      failed(verifyClosedRegion(op, region, name)))
    return failure();
  return success();
}

static LogicalResult verifyAxis(Operation *op, int64_t axis, int64_t rank) {
  if (axis < 0 || axis >= rank)
    return op->emitOpError() << "axis " << axis << " is out of range for rank " << rank;
  return success();
}

LogicalResult ReduceOp::verifyRegions() {
  if (getInputs().empty())
    return emitOpError() << "needs at least one input";
  if (failed(verifySameShapes(*this, getInputs(), "input")))
    return failure();
  auto type = cast<RankedTensorType>(getInputs()[0].getType());
  ArrayRef<int64_t> axes = getAxes();
  if (axes.empty())
    return emitOpError() << "must reduce at least one axis";
  for (auto [i, axis] : llvm::enumerate(axes)) {
    if (failed(verifyAxis(*this, axis, type.getRank())))
      return failure();
    if (llvm::is_contained(axes.take_front(i), axis))
      return emitOpError() << "reduces axis " << axis << " twice";
  }
  SmallVector<Type> schema;
  for (Value input : getInputs())
    schema.push_back(cast<RankedTensorType>(input.getType()).getElementType());
  if (failed(verifyIdentities(*this, getIdentities(), schema)))
    return failure();
  if (getResults().size() != getInputs().size())
    return emitOpError() << "has " << getResults().size() << " results for " << getInputs().size()
                         << " inputs";
  for (auto [i, input, result] : llvm::enumerate(getInputs(), getResults())) {
    Type expected = dropAxes(cast<RankedTensorType>(input.getType()), axes);
    if (result.getType() != expected)
      return emitOpError() << "result #" << i << " must be " << expected << " (input with the reduced axes removed), got "
                           << result.getType();
  }
  return verifyCombine(*this, getCombine(), schema);
}

LogicalResult ArgReduceOp::verify() {
  RankedTensorType type = getInput().getType();
  if (failed(verifyAxis(*this, getAxis(), type.getRank())))
    return failure();
  if (!type.getElementType().isIntOrFloat())
    return emitOpError() << "needs integer or float elements, got " << type.getElementType();
  Type values = dropAxes(type, {static_cast<int64_t>(getAxis())});
  if (getValues().getType() != values)
    return emitOpError() << "values must be " << values << ", got " << getValues().getType();
  Type indices = isa<RankedTensorType>(values)
                     ? Type(RankedTensorType::get(cast<RankedTensorType>(values).getShape(),
                                                  IndexType::get(getContext())))
                     : Type(IndexType::get(getContext()));
  if (getIndices().getType() != indices)
    return emitOpError() << "indices must be " << indices << " (positions along the input axis), got "
                         << getIndices().getType();
  if (getNan() == NaNRule::Ignore && !isa<FloatType>(type.getElementType()))
    return emitOpError() << "'nan ignore' applies only to float inputs";
  return success();
}

LogicalResult ScanOp::verifyRegions() {
  if (getInputs().empty())
    return emitOpError() << "needs at least one input";
  if (failed(verifySameShapes(*this, getInputs(), "input")))
    return failure();
  auto type = cast<RankedTensorType>(getInputs()[0].getType());
  if (failed(verifyAxis(*this, getAxis(), type.getRank())))
    return failure();
  SmallVector<Type> schema;
  for (Value input : getInputs())
    schema.push_back(cast<RankedTensorType>(input.getType()).getElementType());
  if (failed(verifyIdentities(*this, getIdentities(), schema)))
    return failure();
  if (getResults().getTypes() != getInputs().getTypes())
    return emitOpError() << "results must have the input types (a scan keeps the shape)";
  return verifyCombine(*this, getCombine(), schema);
}

/// The slice types a segmented op passes to its regions: each source with the
/// folded axis dynamic.
static FailureOr<SmallVector<Type>> getSliceTypes(Operation *op, ValueRange sources, int64_t axis) {
  if (sources.empty())
    return op->emitOpError() << "needs at least one source";
  SmallVector<Type> slices;
  for (auto [i, source] : llvm::enumerate(sources)) {
    auto type = cast<RankedTensorType>(source.getType());
    if (failed(verifyAxis(op, axis, type.getRank())))
      return failure();
    if (i > 0 && failed(verifyCompatibleAxes(op, sources[0], axis, source, axis,
                                             "source #0 and source #" + Twine(i) + " on the folded axis")))
      return failure();
    SmallVector<int64_t> shape(type.getShape());
    shape[axis] = ShapedType::kDynamic;
    slices.push_back(RankedTensorType::get(shape, type.getElementType()));
  }
  return slices;
}

/// Slices never see the whole folded axis: a captured domain with the folded
/// axis's provenance would let a region observe it (DSL region_fold rules).
static LogicalResult verifyNoFoldedAxisCapture(Operation *op, ValueRange sources, int64_t axis,
                                               ValueRange captures) {
  std::string folded = getAxisExtentKey(sources[0], axis);
  for (auto [i, capture] : llvm::enumerate(captures))
    if (isa<DomainType>(capture.getType()) && !folded.empty() && getDomainKey(capture) == folded)
      return op->emitOpError() << "operand #" << i
                               << " is the folded axis's domain; regions see only their slice of it "
                                  "(use kir.broadcast_as on a slice instead)";
  return success();
}

/// A summarize region reads (but never writes) and is closed over its args.
static LogicalResult verifySummarizeBody(Operation *op, Region &region, StringRef name) {
  if (failed(verifyClosedRegion(op, region, name)) ||
      failed(verifyPureRegion(op, region, name, /*allowReads=*/true)))
    return failure();
  return success();
}

LogicalResult RegionFoldOp::verifyRegions() {
  FailureOr<SmallVector<Type>> slices = getSliceTypes(*this, getSources(), getAxis());
  if (failed(slices))
    return failure();
  SmallVector<Type> schema(getResults().getTypes());
  if (failed(verifyIdentities(*this, getIdentities(), schema)) ||
      failed(verifyNoFoldedAxisCapture(*this, getSources(), getAxis(), getCaptures())))
    return failure();
  SmallVector<Type> summarizeArgs(*slices);
  llvm::append_range(summarizeArgs, getCaptures().getTypes());
  if (failed(verifyRegionSignature(*this, getSummarize(), "summarize", summarizeArgs, schema)) ||
      failed(verifySummarizeBody(*this, getSummarize(), "summarize")))
    return failure();
  return verifyCombine(*this, getCombine(), schema);
}

LogicalResult RegionScanOp::verifyRegions() {
  FailureOr<SmallVector<Type>> slices = getSliceTypes(*this, getSources(), getAxis());
  if (failed(slices))
    return failure();
  if (failed(verifyNoFoldedAxisCapture(*this, getSources(), getAxis(), getCaptures())))
    return failure();
  SmallVector<Type> transition(getIdentities().getTypes());
  SmallVector<Type> state(getInits().getTypes());
  if (getFinals().getTypes() != TypeRange(state))
    return emitOpError() << "final state types must equal the initial state types";
  if (getOutputs().empty())
    return emitOpError() << "emits no outputs; an outputless region_scan is a region_fold";
  for (Value output : getOutputs())
    if (cast<RankedTensorType>(output.getType()).getRank() == 0)
      return emitOpError() << "outputs must keep the scanned axis as their leading axis";

  SmallVector<Type> summarizeArgs(*slices);
  llvm::append_range(summarizeArgs, getCaptures().getTypes());
  if (failed(verifyRegionSignature(*this, getSummarize(), "summarize", summarizeArgs, transition)) ||
      failed(verifySummarizeBody(*this, getSummarize(), "summarize")))
    return failure();
  if (failed(verifyCombine(*this, getCombine(), transition)))
    return failure();
  SmallVector<Type> applyArgs(transition);
  llvm::append_range(applyArgs, state);
  if (failed(verifyRegionSignature(*this, getApply(), "apply", applyArgs, state)) ||
      failed(verifyClosedRegion(*this, getApply(), "apply")) ||
      failed(verifyPureRegion(*this, getApply(), "apply", /*allowReads=*/false)))
    return failure();
  SmallVector<Type> emitArgs(*slices);
  llvm::append_range(emitArgs, state);
  llvm::append_range(emitArgs, getCaptures().getTypes());
  SmallVector<Type> emitted;
  for (Value output : getOutputs()) {
    auto type = cast<RankedTensorType>(output.getType());
    SmallVector<int64_t> shape(type.getShape());
    shape[0] = ShapedType::kDynamic;
    emitted.push_back(RankedTensorType::get(shape, type.getElementType()));
  }
  if (failed(verifyRegionSignature(*this, getEmit(), "emit", emitArgs, emitted)))
    return failure();
  return verifySummarizeBody(*this, getEmit(), "emit");
}

/// Checks contract axis pairs: unique, in range, and extent-compatible.
static LogicalResult verifyAxisPairs(Operation *op, Value lhs, Value rhs, ArrayRef<int64_t> l,
                                     ArrayRef<int64_t> r, StringRef what) {
  auto lt = cast<RankedTensorType>(lhs.getType()), rt = cast<RankedTensorType>(rhs.getType());
  if (l.size() != r.size())
    return op->emitOpError() << what << " axes must pair up: " << l.size() << " lhs axes vs " << r.size()
                             << " rhs axes";
  for (auto [i, a, b] : llvm::enumerate(l, r)) {
    if (a < 0 || a >= lt.getRank() || b < 0 || b >= rt.getRank())
      return op->emitOpError() << what << " pair (" << a << ", " << b << ") is out of range";
    if (llvm::is_contained(l.take_front(i), a) || llvm::is_contained(r.take_front(i), b))
      return op->emitOpError() << what << " pair (" << a << ", " << b << ") repeats an axis";
    if (failed(verifyCompatibleAxes(op, lhs, a, rhs, b,
                                    what + " pair (" + Twine(a) + ", " + Twine(b) + ") axes")))
      return failure();
  }
  return success();
}

/// The accumulator dtype is explicit and never narrower than the operands.
static LogicalResult verifyAccumulator(Operation *op, Type operand, Type acc) {
  bool ok = isa<FloatType>(operand)
                ? isa<FloatType>(acc) && acc.getIntOrFloatBitWidth() >= operand.getIntOrFloatBitWidth()
                : acc.isInteger() && acc.getIntOrFloatBitWidth() >= operand.getIntOrFloatBitWidth();
  if (!ok)
    return op->emitOpError() << "accumulator dtype " << acc << " cannot accumulate " << operand
                             << " operands; use a float (or integer) type at least as wide";
  return success();
}

LogicalResult tessel::kir::verifyContractPrecision(Operation *op, std::optional<ContractPrecision> precision, Type operand,
                                           Type acc) {
  if (precisionOr(precision) == ContractPrecision::IEEE)
    return success();
  if (!operand.isF32() || !acc.isF32())
    return op->emitOpError() << "precision " << stringifyContractPrecision(*precision)
                             << " rounds f32 operands to TF32 and accumulates in f32; got " << operand
                             << " operands and a " << acc << " accumulator (use the default ieee precision)";
  return success();
}

float tessel::kir::roundToTF32(float x) {
  if (std::isnan(x))
    return x;
  uint32_t bits = llvm::bit_cast<uint32_t>(x);
  // The magnitude's bits plus half of TF32's last place, then truncated: to nearest, ties away from
  // zero (an overflow carries into the exponent: inf).
  bits = (bits + 0x1000u) & 0xFFFFE000u;
  return llvm::bit_cast<float>(bits);
}

LogicalResult ContractOp::verify() {
  auto lt = getLhs().getType(), rt = getRhs().getType();
  if (lt.getElementType() != rt.getElementType())
    return emitOpError() << "operands must share one dtype, got " << lt.getElementType() << " and "
                         << rt.getElementType() << "; cast explicitly";
  if (getLhsReduce().empty())
    return emitOpError() << "needs at least one reduce pair";
  for (int64_t a : getLhsBatch())
    if (llvm::is_contained(getLhsReduce(), a))
      return emitOpError() << "lhs axis " << a << " is both a batch and a reduce axis";
  for (int64_t b : getRhsBatch())
    if (llvm::is_contained(getRhsReduce(), b))
      return emitOpError() << "rhs axis " << b << " is both a batch and a reduce axis";
  if (failed(verifyAxisPairs(*this, getLhs(), getRhs(), getLhsReduce(), getRhsReduce(), "reduce")) ||
      failed(verifyAxisPairs(*this, getLhs(), getRhs(), getLhsBatch(), getRhsBatch(), "batch")))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < lt.getRank(); ++i)
    if (!llvm::is_contained(getLhsReduce(), i))
      shape.push_back(lt.getDimSize(i));
  for (int64_t i = 0; i < rt.getRank(); ++i)
    if (!llvm::is_contained(getRhsReduce(), i) && !llvm::is_contained(getRhsBatch(), i))
      shape.push_back(rt.getDimSize(i));
  auto result = getType();
  if (result.getRank() != static_cast<int64_t>(shape.size()))
    return emitOpError() << "result must have rank " << shape.size()
                         << " (lhs free and batch axes, then rhs free axes), got " << result;
  for (auto [i, expected, got] : llvm::enumerate(shape, result.getShape()))
    if (!ShapedType::isDynamic(expected) && !ShapedType::isDynamic(got) && expected != got)
      return emitOpError() << "result axis " << i << " has extent " << got << " but " << expected
                           << " was expected";
  if (getInit() && getInit().getType() != result)
    return emitOpError() << "init must have the result type " << result;
  if (failed(verifyContractPrecision(*this, getPrecision(), lt.getElementType(), result.getElementType())))
    return failure();
  return verifyAccumulator(*this, lt.getElementType(), result.getElementType());
}

LogicalResult ScaledContractOp::verify() {
  if (getBlock() <= 0)
    return emitOpError() << "scale block must be positive, got " << getBlock();
  if (getLhsReduce().size() != 1 || getRhsReduce().size() != 1)
    return emitOpError() << "needs exactly one reduce pair (the scaled axis)";
  if (getLhsScale().getType().getRank() != getLhs().getType().getRank() ||
      getRhsScale().getType().getRank() != getRhs().getType().getRank())
    return emitOpError() << "each scale tensor must have its operand's rank";
  if (!isa<FloatType>(getType().getElementType()))
    return emitOpError() << "accumulates in a float type, got " << getType().getElementType();
  return verifyAxisPairs(*this, getLhs(), getRhs(), getLhsReduce(), getRhsReduce(), "reduce");
}

LogicalResult SparseContractOp::verify() {
  if (getN() <= 0 || getM() <= getN())
    return emitOpError() << "pattern " << getN() << ":" << getM() << " must satisfy 0 < n < m";
  if (!getMeta().getType().getElementType().isInteger())
    return emitOpError() << "metadata must have integer elements";
  if (getLhsReduce().size() != 1 || getRhsReduce().size() != 1)
    return emitOpError() << "needs exactly one reduce pair (the sparse axis)";
  return verifyAccumulator(*this, getLhs().getType().getElementType(), getType().getElementType());
}

LogicalResult HistogramOp::verify() {
  auto input = getInput().getType();
  if (!input.getElementType().isIntOrIndex())
    return emitOpError() << "counts integer values, got " << input.getElementType();
  if (auto domain = getBins().getDefiningOp<DomainOp>()) {
    APInt lower;
    if (!matchPattern(domain.getLower(), m_ConstantInt(&lower)) || !lower.isZero() ||
        domain.getStep() != 1)
      return emitOpError() << "bins must be a unit-step domain starting at 0";
  }
  if (getValid()) {
    auto valid = cast<RankedTensorType>(getValid().getType());
    if (!valid.getElementType().isInteger(1) || valid.getShape() != input.getShape())
      return emitOpError() << "validity must be an i1 tensor of the input's shape, got " << valid;
    if (failed(verifySameExtents(*this, getInput(), getValid(), "input", "validity")))
      return failure();
  }
  return success();
}
