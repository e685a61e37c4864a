//===- PGPUStructuredOps.cpp - schemas of physical structured ops ----------===//
//
// Invariant 8 (seed 000 §10): complete physical operands/results and a
// semantic schema for every structured operation, componentwise as in KIR.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/IR/PGPU.h"

#include "PGPUVerifyUtils.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;
using namespace tessel::pgpu::checks;

/// `type` with `axes` removed: a fragment, or its element type when none remain.
static Type dropAxes(FragmentType type, ArrayRef<int64_t> axes) {
  SmallVector<Attribute> extents;
  for (auto [i, e] : llvm::enumerate(type.getExtents()))
    if (!llvm::is_contained(axes, int64_t(i)))
      extents.push_back(e);
  if (extents.empty())
    return type.getElementType();
  return FragmentType::get(type.getContext(), type.getElementType(), extents);
}

/// Inputs share one shape; the schema is their element types.
static FailureOr<SmallVector<Type>> elementSchema(Operation *op, ValueRange inputs) {
  if (inputs.empty())
    return op->emitOpError() << "needs at least one input";
  SmallVector<Type> schema;
  for (Value input : inputs) {
    if (shapeOf(input.getType()) != shapeOf(inputs[0].getType()))
      return op->emitOpError() << "inputs must share one shape";
    schema.push_back(elementTypeOf(input.getType()));
  }
  return schema;
}

static LogicalResult verifyComponents(Operation *op, ValueRange values, TypeRange schema, StringRef what) {
  if (values.size() != schema.size())
    return op->emitOpError() << "has " << values.size() << " " << what << " components but the schema has "
                             << schema.size();
  for (auto [i, v, t] : llvm::enumerate(values.getTypes(), schema))
    if (v != t)
      return op->emitOpError() << what << " component #" << i << " has type " << v << " but " << t
                               << " was expected";
  return success();
}

static LogicalResult verifyCombine(Operation *op, Region &region, TypeRange schema) {
  SmallVector<Type> args(schema.begin(), schema.end());
  llvm::append_range(args, schema);
  if (failed(verifyRegionSignature(op, region, "combine", args, schema)) ||
      failed(verifyPureRegion(op, region, "combine", /*allowReads=*/false)))
    return failure();
  return verifyClosedRegion(op, region, "combine");
}

LogicalResult ReduceOp::verifyRegions() {
  FailureOr<SmallVector<Type>> schema = elementSchema(*this, getInputs());
  if (failed(schema) || failed(verifyComponents(*this, getIdentities(), *schema, "identity")))
    return failure();
  auto type = cast<FragmentType>(getInputs()[0].getType());
  ArrayRef<int64_t> axes = getAxes();
  if (axes.empty())
    return emitOpError() << "must reduce at least one axis";
  for (auto [i, axis] : llvm::enumerate(axes))
    if (axis < 0 || axis >= int64_t(type.getRank()) || llvm::is_contained(axes.take_front(i), axis))
      return emitOpError() << "reduce axes must be distinct axes of the input, got " << axis;
  if (getResults().size() != getInputs().size())
    return emitOpError() << "needs one result per input";
  for (auto [i, input, result] : llvm::enumerate(getInputs(), getResults())) {
    Type expected = dropAxes(cast<FragmentType>(input.getType()), axes);
    if (result.getType() != expected)
      return emitOpError() << "result #" << i << " must be " << expected << ", got " << result.getType();
  }
  return verifyCombine(*this, getCombine(), *schema);
}

LogicalResult RangeReduceOp::verifyRegions() {
  SmallVector<Type> schema(getResults().getTypes());
  if (failed(verifyComponents(*this, getIdentities(), schema, "identity")))
    return failure();
  if (failed(verifyRegionSignature(*this, getElement(), "element", {IndexType::get(getContext())}, schema)) ||
      failed(verifyPureRegion(*this, getElement(), "element", /*allowReads=*/true)))
    return failure();
  return verifyCombine(*this, getCombine(), schema);
}

LogicalResult RangeScanOp::verifyRegions() {
  SmallVector<Type> schema(getIdentities().getTypes());
  if (schema.empty())
    return emitOpError() << "needs at least one component";
  Type index = IndexType::get(getContext());
  SmallVector<Type> emitArgs{index};
  llvm::append_range(emitArgs, schema);
  if (failed(verifyRegionSignature(*this, getElement(), "element", {index}, schema)) ||
      failed(verifyPureRegion(*this, getElement(), "element", /*allowReads=*/true)) ||
      failed(verifyRegionSignature(*this, getEmit(), "emit", emitArgs, {})))
    return failure();
  return verifyCombine(*this, getCombine(), schema);
}

LogicalResult ScanOp::verifyRegions() {
  FailureOr<SmallVector<Type>> schema = elementSchema(*this, getInputs());
  if (failed(schema) || failed(verifyComponents(*this, getIdentities(), *schema, "identity")))
    return failure();
  if (!getCarries().empty() && failed(verifyComponents(*this, getCarries(), *schema, "carry")))
    return failure();
  auto type = cast<FragmentType>(getInputs()[0].getType());
  if (getAxis() >= type.getRank())
    return emitOpError() << "axis " << getAxis() << " is out of range";
  if (getResults().getTypes() != getInputs().getTypes())
    return emitOpError() << "results must have the input types";
  return verifyCombine(*this, getCombine(), *schema);
}

LogicalResult ArgReduceOp::verify() {
  auto type = cast<FragmentType>(getInput().getType());
  if (getAxis() >= type.getRank())
    return emitOpError() << "axis " << getAxis() << " is out of range";
  Type values = dropAxes(type, {int64_t(getAxis())});
  if (getValues().getType() != values)
    return emitOpError() << "values must be " << values;
  if (shapeOf(getIndices().getType()) != shapeOf(values) || !elementTypeOf(getIndices().getType()).isIndex())
    return emitOpError() << "indices must be index values shaped like the values";
  return success();
}

/// Result axes of a contraction: lhs free (batch at lhs position), rhs free.
static LogicalResult verifyContractShape(Operation *op, FragmentType lhs, FragmentType rhs, Type resultType,
                                         ArrayRef<int64_t> lr, ArrayRef<int64_t> rr, ArrayRef<int64_t> lb,
                                         ArrayRef<int64_t> rb) {
  if (lr.empty() || lr.size() != rr.size() || lb.size() != rb.size())
    return op->emitOpError() << "needs matching, non-empty reduce pairs and matching batch pairs";
  auto checkPairs = [&](ArrayRef<int64_t> l, ArrayRef<int64_t> r, StringRef what) -> LogicalResult {
    for (auto [i, a, b] : llvm::enumerate(l, r)) {
      if (a < 0 || a >= int64_t(lhs.getRank()) || b < 0 || b >= int64_t(rhs.getRank()) ||
          llvm::is_contained(l.take_front(i), a) || llvm::is_contained(r.take_front(i), b))
        return op->emitOpError() << what << " pair (" << a << ", " << b << ") is out of range or repeated";
      if (lhs.getExtents()[a] != rhs.getExtents()[b])
        return op->emitOpError() << what << " pair (" << a << ", " << b << ") pairs different extents";
    }
    return success();
  };
  if (failed(checkPairs(lr, rr, "reduce")) || failed(checkPairs(lb, rb, "batch")))
    return failure();
  SmallVector<Attribute> extents;
  for (int64_t i = 0; i < int64_t(lhs.getRank()); ++i)
    if (!llvm::is_contained(lr, i))
      extents.push_back(lhs.getExtents()[i]);
  for (int64_t i = 0; i < int64_t(rhs.getRank()); ++i)
    if (!llvm::is_contained(rr, i) && !llvm::is_contained(rb, i))
      extents.push_back(rhs.getExtents()[i]);
  if (shapeOf(resultType) != ArrayRef<Attribute>(extents))
    return op->emitOpError() << "accumulator " << resultType
                             << " must have the contraction's result axes (lhs free, then rhs free)";
  Type acc = elementTypeOf(resultType), operand = lhs.getElementType();
  bool ok = isa<FloatType>(operand) ? isa<FloatType>(acc) && acc.getIntOrFloatBitWidth() >= operand.getIntOrFloatBitWidth()
                                    : acc.isInteger() && acc.getIntOrFloatBitWidth() >= operand.getIntOrFloatBitWidth();
  if (!ok)
    return op->emitOpError() << "accumulator dtype " << acc << " cannot accumulate " << operand << " operands";
  return success();
}

LogicalResult ContractOp::verify() {
  auto lhs = cast<FragmentType>(getLhs().getType()), rhs = cast<FragmentType>(getRhs().getType());
  if (lhs.getElementType() != rhs.getElementType())
    return emitOpError() << "operands must share one dtype";
  if (getAcc().getType() != getType())
    return emitOpError() << "result must have the accumulator type " << getAcc().getType();
  if (failed(kir::verifyContractPrecision(*this, getPrecision(), lhs.getElementType(), elementTypeOf(getType()))))
    return failure();
  return verifyContractShape(*this, lhs, rhs, getAcc().getType(), getLhsReduce(), getRhsReduce(), getLhsBatch(),
                             getRhsBatch());
}

LogicalResult ScaledContractOp::verify() {
  if (getBlock() <= 0)
    return emitOpError() << "scale block must be positive";
  if (getAcc().getType() != getType())
    return emitOpError() << "result must have the accumulator type";
  return verifyContractShape(*this, cast<FragmentType>(getLhs().getType()), cast<FragmentType>(getRhs().getType()),
                             getAcc().getType(), getLhsReduce(), getRhsReduce(), {}, {});
}

LogicalResult SparseContractOp::verify() {
  if (getN() <= 0 || getM() <= getN())
    return emitOpError() << "pattern " << getN() << ":" << getM() << " must satisfy 0 < n < m";
  if (getAcc().getType() != getType())
    return emitOpError() << "result must have the accumulator type";
  if (getLhsReduce().size() != 1 || getRhsReduce().size() != 1)
    return emitOpError() << "needs exactly one reduce pair (the sparse axis)";
  return success();
}

LogicalResult HistogramOp::verify() {
  auto input = cast<FragmentType>(getInput().getType());
  auto result = cast<FragmentType>(getType());
  if (!input.getElementType().isIntOrIndex())
    return emitOpError() << "counts integer values, got " << input.getElementType();
  if (result.getRank() != 1 || !result.getElementType().isInteger())
    return emitOpError() << "result must be a 1-d integer fragment of counts";
  Type valid = getValid().getType();
  if (!elementTypeOf(valid).isInteger(1) || (isa<FragmentType>(valid) && shapeOf(valid) != input.getExtents()))
    return emitOpError() << "validity must be i1 shaped like the input";
  return success();
}

/// Summarize regions read but never write, and see only their arguments.
static LogicalResult verifySummarize(Operation *op, Region &region, StringRef name, TypeRange args, TypeRange yields) {
  if (failed(verifyRegionSignature(op, region, name, args, yields)) ||
      failed(verifyPureRegion(op, region, name, /*allowReads=*/true)))
    return failure();
  return verifyClosedRegion(op, region, name);
}

LogicalResult RegionFoldOp::verifyRegions() {
  SmallVector<Type> schema(getResults().getTypes());
  if (failed(verifyComponents(*this, getIdentities(), schema, "identity")))
    return failure();
  SmallVector<Type> args(2, IndexType::get(getContext()));
  llvm::append_range(args, getCaptures().getTypes());
  if (failed(verifySummarize(*this, getSummarize(), "summarize", args, schema)))
    return failure();
  return verifyCombine(*this, getCombine(), schema);
}

LogicalResult RegionScanOp::verifyRegions() {
  SmallVector<Type> transition(getIdentities().getTypes()), state(getInits().getTypes());
  if (getFinals().getTypes() != TypeRange(state))
    return emitOpError() << "final state types must equal the initial state types";
  SmallVector<Type> bounds(2, IndexType::get(getContext()));
  SmallVector<Type> summarizeArgs(bounds);
  llvm::append_range(summarizeArgs, getCaptures().getTypes());
  if (failed(verifySummarize(*this, getSummarize(), "summarize", summarizeArgs, transition)) ||
      failed(verifyCombine(*this, getCombine(), transition)))
    return failure();
  SmallVector<Type> applyArgs(transition);
  llvm::append_range(applyArgs, state);
  if (failed(verifyRegionSignature(*this, getApply(), "apply", applyArgs, state)) ||
      failed(verifyPureRegion(*this, getApply(), "apply", /*allowReads=*/false)) ||
      failed(verifyClosedRegion(*this, getApply(), "apply")))
    return failure();
  SmallVector<Type> emitArgs(bounds);
  llvm::append_range(emitArgs, state);
  llvm::append_range(emitArgs, getCaptures().getTypes());
  if (failed(verifyRegionSignature(*this, getEmit(), "emit", emitArgs, {})))
    return failure();
  return verifyClosedRegion(*this, getEmit(), "emit");
}
