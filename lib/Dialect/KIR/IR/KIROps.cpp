//===- KIROps.cpp - kir kernel, control and value ops ----------------------===//

#include "tessel/Dialect/KIR/IR/KIR.h"

#include "KIRVerifyUtils.h"
#include "tessel/Dialect/Utils/SiblingRegions.h"
#include "tessel/Dialect/Utils/KernelSyntax.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/InterleavedRange.h"

using namespace mlir;
using namespace tessel::kir;
using namespace tessel::kir::detail;

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

ParseResult KernelOp::parse(OpAsmParser &parser, OperationState &result) {
  return parseKernelSignature(parser, result, getFunctionTypeAttrName(result.name),
                              getArgAttrsAttrName(result.name));
}

void KernelOp::print(OpAsmPrinter &p) {
  printKernelSignature(p, *this, {getSymNameAttrName(), getFunctionTypeAttrName(), getArgAttrsAttrName(),
                                  getResAttrsAttrName()});
}

void KernelOp::getAsmBlockArgumentNames(Region &region, OpAsmSetValueNameFn setNameFn) {
  setKernelArgumentNames(*this, region, setNameFn);
}

bool KernelOp::declaresExtent(StringRef name) {
  for (Type type : getArgumentTypes())
    if (auto view = dyn_cast<ViewType>(type))
      for (unsigned i = 0; i < view.getRank(); ++i)
        if (view.getExtentName(i) == name)
          return true;
  return false;
}

TypedAttr KernelOp::getConstexprValue(StringRef name) {
  if (!getConstexprs())
    return {};
  return dyn_cast_or_null<TypedAttr>(getConstexprs()->get(name));
}

/// The public ABI (ARCHITECTURE.md §2.1): views and by-value scalars only; no
/// products, domains, tensors or buffers; a kernel returns nothing.
LogicalResult KernelOp::verify() {
  // MLIR verifies this op, then the ops inside it (on this thread), then verifyRegions.
  beginExtentMemo(*this);
  for (auto [i, type] : llvm::enumerate(getArgumentTypes())) {
    if (isa<ViewType>(type) || type.isIntOrIndexOrFloat())
      continue;
    return emitOpError() << "argument #" << i << " has type " << type
                         << "; kernel arguments must be !kir.view or scalars passed by value";
  }
  if (!getResultTypes().empty())
    return emitOpError() << "must not return values; results are writes to out/inout views";
  if (failed(verifyKernelArgumentNames(*this)))
    return failure();
  if (auto constexprs = getConstexprs()) {
    for (NamedAttribute entry : *constexprs) {
      Attribute value = entry.getValue();
      if (isa<BoolAttr>(value) || isa<StringAttr>(value))
        continue;
      if (auto integer = dyn_cast<IntegerAttr>(value); integer && !integer.getType().isIndex())
        continue;
      return emitOpError() << "constexpr '" << entry.getName().getValue()
                           << "' must be a bool, integer or enum string, got " << value;
    }
  }
  return success();
}

LogicalResult KernelOp::verifyRegions() {
  LogicalResult result = verifyKernelBody(*this);
  endExtentMemo(*this);
  return result;
}

//===----------------------------------------------------------------------===//
// ABI access
//===----------------------------------------------------------------------===//

LogicalResult ExtentOp::verify() {
  KernelOp kernel = getEnclosingKernel(*this);
  if (!kernel)
    return emitOpError() << "must be inside a kir.kernel";
  if (!kernel.declaresExtent(getName()))
    return emitOpError() << "refers to extent '" << getName() << "', which no view of kernel @"
                         << kernel.getSymName() << " declares";
  return success();
}

LogicalResult ConstexprOp::verify() {
  KernelOp kernel = getEnclosingKernel(*this);
  if (!kernel)
    return emitOpError() << "must be inside a kir.kernel";
  Attribute value = kernel.getConstexprs() ? kernel.getConstexprs()->get(getName()) : Attribute();
  if (!value)
    return emitOpError() << "refers to constexpr '" << getName() << "', which kernel @"
                         << kernel.getSymName() << " does not declare";
  Type expected;
  if (isa<BoolAttr>(value))
    expected = IntegerType::get(getContext(), 1);
  else if (auto integer = dyn_cast<IntegerAttr>(value))
    expected = integer.getType();
  else
    return emitOpError() << "constexpr '" << getName()
                         << "' is an enum string; compare it with kir.if constexpr at trace time";
  if (getType() != expected)
    return emitOpError() << "has type " << getType() << " but constexpr '" << getName()
                         << "' is declared as " << expected;
  return success();
}

OpFoldResult ConstexprOp::fold(FoldAdaptor) {
  KernelOp kernel = getEnclosingKernel(*this);
  if (!kernel || !kernel.getConstexprs())
    return {};
  Attribute value = kernel.getConstexprs()->get(getName());
  if (auto b = dyn_cast_or_null<BoolAttr>(value))
    return IntegerAttr::get(getType(), b.getValue() ? 1 : 0);
  if (auto i = dyn_cast_or_null<IntegerAttr>(value); i && i.getType() == getType())
    return i;
  return {};
}

//===----------------------------------------------------------------------===//
// Domains
//===----------------------------------------------------------------------===//

LogicalResult DomainOp::verify() {
  // I64Attr's getter is unsigned: compare the signed value, or -1 passes.
  int64_t step = getStepAttr().getInt();
  if (step <= 0)
    return emitOpError() << "step must be positive, got " << step
                         << "; iterate forward and compute a reversed coordinate instead";
  return success();
}

LogicalResult IndexRelationOp::verify() {
  auto map = cast<ViewType>(getMap().getType());
  if (map.getRank() != 1 || !map.getElementType().isInteger())
    return emitOpError() << "index map must be a rank-1 integer view, got " << map;
  if (!map.isReadable())
    return emitOpError() << "index map view is 'out' and cannot be read";
  return success();
}

//===----------------------------------------------------------------------===//
// Control
//===----------------------------------------------------------------------===//

LogicalResult ParallelOp::verifyRegions() {
  SmallVector<Type> ivs(getDomains().size(), IndexType::get(getContext()));
  if (getDomains().empty())
    return emitOpError() << "needs at least one domain";
  // No carries: the body takes one index per domain and yields nothing.
  if (failed(verifyRegionSignature(*this, getBody(), "body", ivs, {})))
    return failure();
  return verifyParallelIndependence(*this);
}

LogicalResult ForOp::verifyRegions() {
  if (getInits().getTypes() != getResults().getTypes())
    return emitOpError() << "carries " << getInits().size()
                         << " initial values whose types must equal the result types";
  SmallVector<Type> args{IndexType::get(getContext())};
  llvm::append_range(args, getInits().getTypes());
  return verifyRegionSignature(*this, getBody(), "body", args, getResults().getTypes());
}

LogicalResult WhileOp::verifyRegions() {
  Block &before = getBefore().front();
  if (before.getArgumentTypes() != getInits().getTypes())
    return emitOpError() << "'before' region arguments must match the initial carries";
  auto condition = dyn_cast<ConditionOp>(before.getTerminator());
  if (!condition)
    return emitOpError() << "'before' region must end in kir.condition";
  if (condition.getArgs().getTypes() != getResults().getTypes())
    return emitOpError() << "kir.condition forwards " << condition.getArgs().size()
                         << " values whose types must equal the result types";
  return verifyRegionSignature(*this, getAfter(), "do", condition.getArgs().getTypes(),
                               getInits().getTypes());
}

LogicalResult IfOp::verifyRegions() {
  if (getIsConstexpr() && !isConstexprValue(getCondition()))
    return emitOpError() << "is 'constexpr' but its condition is a runtime value";
  if (failed(verifyRegionSignature(*this, getThenRegion(), "then", {}, getResults().getTypes())))
    return failure();
  if (getElseRegion().empty()) {
    if (!getResults().empty())
      return emitOpError() << "has results and therefore needs an 'else' region";
    return success();
  }
  return verifyRegionSignature(*this, getElseRegion(), "else", {}, getResults().getTypes());
}

//===----------------------------------------------------------------------===//
// Pointwise ops
//===----------------------------------------------------------------------===//

/// seed 000 §7 and the DSL numerics: numerical options are per-op attributes,
/// legal only where the DSL defines an approximate form, and only on f32.
static LogicalResult verifyNumericalOptions(Operation *op, Type element, bool approximate, bool flushToZero,
                                            bool allowsApproximate, bool allowsFlush) {
  if (!approximate && !flushToZero)
    return success();
  if (!element.isF32())
    return op->emitOpError() << "numerical options 'approximate'/'flush_to_zero' require f32, got " << element;
  if (approximate && !allowsApproximate)
    return op->emitOpError() << "has no approximate form; 'approximate' is defined for f32 div, exp2 and tanh";
  if (flushToZero && !allowsFlush)
    return op->emitOpError() << "does not accept 'flush_to_zero'; it is defined for f32 div and exp2";
  if (flushToZero && !approximate)
    return op->emitOpError() << "'flush_to_zero' requires 'approximate'";
  return success();
}

LogicalResult tessel::kir::verifyBinarySemantics(Operation *op, BinaryKind kind, Type element, bool approximate,
                                                 bool flushToZero) {
  bool bitwise = kind == BinaryKind::And || kind == BinaryKind::Or || kind == BinaryKind::Xor ||
                 kind == BinaryKind::Shl || kind == BinaryKind::Shr;
  if (bitwise && !element.isIntOrIndex())
    return op->emitOpError() << "'" << stringifyBinaryKind(kind) << "' needs integer operands, got " << element;
  if ((kind == BinaryKind::MaxNum || kind == BinaryKind::MinNum || kind == BinaryKind::Pow) &&
      !isa<FloatType>(element))
    return op->emitOpError() << "'" << stringifyBinaryKind(kind) << "' needs float operands, got " << element;
  bool isDiv = kind == BinaryKind::Div;
  return verifyNumericalOptions(op, element, approximate, flushToZero, isDiv, isDiv);
}

LogicalResult tessel::kir::verifyUnarySemantics(Operation *op, UnaryKind kind, Type element, bool approximate,
                                                bool flushToZero) {
  if (kind == UnaryKind::Not) {
    if (!element.isIntOrIndex())
      return op->emitOpError() << "'not' needs integer or i1 operands, got " << element;
  } else if (kind != UnaryKind::Neg && kind != UnaryKind::Abs && !isa<FloatType>(element)) {
    return op->emitOpError() << "'" << stringifyUnaryKind(kind) << "' needs float operands, got " << element;
  }
  bool approx = kind == UnaryKind::Exp2 || kind == UnaryKind::Tanh;
  return verifyNumericalOptions(op, element, approximate, flushToZero, approx, kind == UnaryKind::Exp2);
}

LogicalResult BinaryOp::verify() {
  if (failed(verifySameExtents(*this, getLhs(), getRhs(), "lhs", "rhs")))
    return failure();
  return verifyBinarySemantics(*this, getKind(), getElementTypeOrSelf(getType()), getApproximate(),
                               getFlushToZero());
}

LogicalResult UnaryOp::verify() {
  return verifyUnarySemantics(*this, getKind(), getElementTypeOrSelf(getType()), getApproximate(),
                              getFlushToZero());
}

LogicalResult SelectOp::verify() {
  Type cond = getCondition().getType();
  if (getElementTypeOrSelf(cond) != IntegerType::get(getContext(), 1))
    return emitOpError() << "condition must have i1 elements, got " << cond;
  if (auto condTensor = dyn_cast<RankedTensorType>(cond)) {
    auto valueTensor = dyn_cast<RankedTensorType>(getType());
    if (!valueTensor || valueTensor.getShape() != condTensor.getShape())
      return emitOpError() << "tensor condition " << cond << " must have the shape of the values "
                           << getType() << "; broadcast explicitly";
    return verifySameExtents(*this, getCondition(), getTrueValue(), "condition", "values");
  }
  return success();
}

/// Casts change element types only; the shape must be preserved.
static LogicalResult verifySameShape(Operation *op, Type from, Type to) {
  auto fromTensor = dyn_cast<RankedTensorType>(from);
  auto toTensor = dyn_cast<RankedTensorType>(to);
  if (static_cast<bool>(fromTensor) != static_cast<bool>(toTensor) ||
      (fromTensor && fromTensor.getShape() != toTensor.getShape()))
    return op->emitOpError() << "must preserve the shape: " << from << " to " << to;
  return success();
}

LogicalResult CastOp::verify() {
  if (getOperand().getType() == getType())
    return emitOpError() << "casts " << getType() << " to itself";
  return verifySameShape(*this, getOperand().getType(), getType());
}

LogicalResult BitcastOp::verify() {
  if (failed(verifySameShape(*this, getOperand().getType(), getType())))
    return failure();
  Type from = getElementTypeOrSelf(getOperand().getType());
  Type to = getElementTypeOrSelf(getType());
  if (from.isIndex() || to.isIndex() || from.getIntOrFloatBitWidth() != to.getIntOrFloatBitWidth())
    return emitOpError() << "needs element types of equal bit width, got " << from << " and " << to;
  return success();
}

//===----------------------------------------------------------------------===//
// Shape and product ops
//===----------------------------------------------------------------------===//

LogicalResult BroadcastOp::verify() {
  auto result = getType();
  if (result.getRank() != static_cast<int64_t>(getDomains().size()))
    return emitOpError() << "result rank " << result.getRank() << " must equal the number of domains ("
                         << getDomains().size() << ")";
  Type operand = getOperand().getType();
  auto operandTensor = dyn_cast<RankedTensorType>(operand);
  int64_t operandRank = operandTensor ? operandTensor.getRank() : 0;
  ArrayRef<int64_t> dims = getDims();
  if (static_cast<int64_t>(dims.size()) != operandRank)
    return emitOpError() << "needs one entry in 'dims' per operand axis (" << operandRank << "), got "
                         << dims.size();
  if (getElementTypeOrSelf(operand) != result.getElementType())
    return emitOpError() << "must keep the element type " << getElementTypeOrSelf(operand);
  for (auto [i, dim] : llvm::enumerate(dims)) {
    if (dim < 0 || dim >= result.getRank() || (i > 0 && dim <= dims[i - 1]))
      return emitOpError() << "'dims' must be strictly increasing result axes, got entry " << dim;
    if (!operandTensor.isDynamicDim(i) && !result.isDynamicDim(dim) &&
        operandTensor.getDimSize(i) != result.getDimSize(dim))
      return emitOpError() << "operand axis " << i << " has extent " << operandTensor.getDimSize(i)
                           << " but result axis " << dim << " has " << result.getDimSize(dim);
  }
  // The operand's axes must come from the domains they are broadcast onto.
  for (auto [i, dim] : llvm::enumerate(dims)) {
    std::string operandKey = getAxisExtentKey(getOperand(), i);
    std::string domainKey = getDomainKey(getDomains()[dim]);
    if (!operandKey.empty() && !domainKey.empty() && operandKey != domainKey &&
        operandKey[0] != 'c' && !haveEqualLengths(getAxisDomain(getOperand(), i), getDomains()[dim]))
      return emitOpError() << "operand axis " << i << " does not come from domain #" << dim
                           << "; its extent is not provably equal";
  }
  return success();
}

LogicalResult BroadcastAsOp::verify() {
  auto result = getType();
  auto reference = getReference().getType();
  if (result.getShape() != reference.getShape())
    return emitOpError() << "result shape must be the reference shape " << reference;
  Type operand = getOperand().getType();
  auto operandTensor = dyn_cast<RankedTensorType>(operand);
  int64_t operandRank = operandTensor ? operandTensor.getRank() : 0;
  ArrayRef<int64_t> dims = getDims();
  if (static_cast<int64_t>(dims.size()) != operandRank)
    return emitOpError() << "needs one entry in 'dims' per operand axis (" << operandRank << "), got "
                         << dims.size();
  if (getElementTypeOrSelf(operand) != result.getElementType())
    return emitOpError() << "must keep the element type " << getElementTypeOrSelf(operand);
  for (auto [i, dim] : llvm::enumerate(dims)) {
    if (dim < 0 || dim >= result.getRank() || (i > 0 && dim <= dims[i - 1]))
      return emitOpError() << "'dims' must be strictly increasing result axes, got entry " << dim;
    if (failed(verifyCompatibleAxes(*this, getOperand(), i, getReference(), dim,
                                    "operand axis " + Twine(i) + " and reference axis " + Twine(dim))))
      return failure();
  }
  return success();
}

LogicalResult CmpOp::verify() { return verifySameExtents(*this, getLhs(), getRhs(), "lhs", "rhs"); }

LogicalResult ExtractOp::verify() {
  if (getIndices().size() != static_cast<size_t>(getTensor().getType().getRank()))
    return emitOpError() << "needs one index per tensor axis (" << getTensor().getType().getRank()
                         << "), got " << getIndices().size();
  return success();
}

LogicalResult ReshapeOp::verify() {
  auto from = getOperand().getType(), to = getType();
  if (to.getRank() != static_cast<int64_t>(getDomains().size()))
    return emitOpError() << "result rank " << to.getRank() << " must equal the number of domains ("
                         << getDomains().size() << ")";
  if (from.getElementType() != to.getElementType())
    return emitOpError() << "must keep the element type";
  if (from.hasStaticShape() && to.hasStaticShape() && from.getNumElements() != to.getNumElements())
    return emitOpError() << "changes the element count from " << from.getNumElements() << " to "
                         << to.getNumElements();
  return success();
}

LogicalResult TransposeOp::verify() {
  auto from = getOperand().getType(), to = getType();
  ArrayRef<int64_t> perm = getPermutation();
  if (static_cast<int64_t>(perm.size()) != from.getRank() || to.getRank() != from.getRank())
    return emitOpError() << "permutation must have one entry per axis (" << from.getRank() << ")";
  SmallVector<bool> seen(perm.size(), false);
  for (int64_t p : perm) {
    if (p < 0 || p >= from.getRank() || seen[p])
      return emitOpError() << "permutation " << llvm::interleaved_array(perm)
                           << " is not a permutation of the operand axes";
    seen[p] = true;
  }
  for (auto [i, p] : llvm::enumerate(perm))
    if (to.getDimSize(i) != from.getDimSize(p) || to.getElementType() != from.getElementType())
      return emitOpError() << "result type " << to << " is not the permuted operand type";
  return success();
}

LogicalResult JoinOp::verify() {
  SmallVector<int64_t> shape;
  if (auto tensor = dyn_cast<RankedTensorType>(getLhs().getType()))
    llvm::append_range(shape, tensor.getShape());
  shape.push_back(2);
  auto expected = RankedTensorType::get(shape, getElementTypeOrSelf(getLhs().getType()));
  if (getType() != expected)
    return emitOpError() << "result must be " << expected << ", got " << getType();
  return verifySameExtents(*this, getLhs(), getRhs(), "lhs", "rhs");
}

LogicalResult TupleOp::verify() {
  if (TypeRange(getType().getTypes()) != getElements().getTypes())
    return emitOpError() << "element types must match " << getType();
  return success();
}

LogicalResult TupleGetOp::verify() {
  TupleType tuple = getTuple().getType();
  if (getIndex() >= tuple.size())
    return emitOpError() << "index " << getIndex() << " is out of range for " << tuple;
  if (tuple.getType(getIndex()) != getType())
    return emitOpError() << "result type must be " << tuple.getType(getIndex());
  return success();
}

LogicalResult RecordOp::verify() {
  auto record = cast<RecordType>(getType());
  if (TypeRange(record.getTypes()) != getFields().getTypes())
    return emitOpError() << "field values must match the field types of " << record;
  return success();
}

OpFoldResult RecordGetOp::fold(FoldAdaptor) {
  auto record = getRecord().getDefiningOp<RecordOp>();
  if (!record)
    return {};
  std::optional<unsigned> index = cast<RecordType>(record.getType()).getFieldIndex(getField());
  return index ? OpFoldResult(record.getFields()[*index]) : OpFoldResult();
}

LogicalResult RecordGetOp::verify() {
  auto record = cast<RecordType>(getRecord().getType());
  std::optional<unsigned> index = record.getFieldIndex(getField());
  if (!index)
    return emitOpError() << "record " << record << " has no field '" << getField() << "'";
  if (record.getTypes()[*index] != getType())
    return emitOpError() << "field '" << getField() << "' has type " << record.getTypes()[*index];
  return success();
}

// The coordinate types of an access, `[` type-list `]`. The list may be empty: a rank-0 view or a
// scalar buffer is accessed as `%x[]` (ODS's `[` type($coords) `]` cannot read an empty list).
static ParseResult parseCoordTypes(OpAsmParser &parser, SmallVectorImpl<Type> &types) {
  return parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Square,
                                        [&]() -> ParseResult { return parser.parseType(types.emplace_back()); });
}

static void printCoordTypes(OpAsmPrinter &printer, Operation *, TypeRange types) {
  printer << '[';
  llvm::interleaveComma(types, printer);
  printer << ']';
}

// Ops with several regions parse them through tessel's sibling-region directives
// (SiblingRegions.h): a use in one region of a value defined in a sibling is an
// error, and a failed parse leaves no reference between the regions.
static ParseResult parseFoldRegions(OpAsmParser &parser, Region &summarize, Region &combine) {
  return tessel::parseKeywordRegions(parser, {{"summarize", &summarize}, {"combine", &combine}}, nullptr);
}
static void printFoldRegions(OpAsmPrinter &printer, Operation *, Region &summarize, Region &combine) {
  tessel::printKeywordRegions(printer, {{"summarize", &summarize}, {"combine", &combine}}, {});
}
static ParseResult parseScanRegions(OpAsmParser &parser, Region &summarize, Region &combine, Region &apply,
                                    Region &emit) {
  return tessel::parseKeywordRegions(
      parser, {{"summarize", &summarize}, {"combine", &combine}, {"apply", &apply}, {"emit", &emit}}, nullptr);
}
static void printScanRegions(OpAsmPrinter &printer, Operation *, Region &summarize, Region &combine, Region &apply,
                             Region &emit) {
  tessel::printKeywordRegions(printer,
                      {{"summarize", &summarize}, {"combine", &combine}, {"apply", &apply}, {"emit", &emit}}, {});
}
static ParseResult parseWhileRegions(OpAsmParser &parser, Region &before, Region &after, NamedAttrList &attrs) {
  return tessel::parseKeywordRegions(parser, {{"", &before}, {"do", &after}}, &attrs);
}
static void printWhileRegions(OpAsmPrinter &printer, Operation *, Region &before, Region &after,
                              DictionaryAttr attrs) {
  tessel::printKeywordRegions(printer, {{"", &before}, {"do", &after}}, attrs);
}
static ParseResult parseIfRegions(OpAsmParser &parser, Region &thenRegion, Region &elseRegion,
                                  NamedAttrList &attrs) {
  return tessel::parseKeywordRegions(parser, {{"", &thenRegion}, {"else", &elseRegion, /*optional=*/true}}, &attrs);
}
static void printIfRegions(OpAsmPrinter &printer, Operation *, Region &thenRegion, Region &elseRegion,
                           DictionaryAttr attrs) {
  tessel::printKeywordRegions(printer, {{"", &thenRegion}, {"else", &elseRegion, /*optional=*/true}}, attrs);
}

#define GET_OP_CLASSES
#include "tessel/Dialect/KIR/IR/KIROps.cpp.inc"
