//===- KIRTypes.cpp - kir types --------------------------------------------===//

#include "tessel/Dialect/KIR/IR/KIR.h"

#include "mlir/IR/DialectImplementation.h"
#include "tessel/Dialect/Utils/ExtentList.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::kir;

#define GET_TYPEDEF_CLASSES
#include "tessel/Dialect/KIR/IR/KIRTypes.cpp.inc"

void KIRDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "tessel/Dialect/KIR/IR/KIRTypes.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// ViewType: !kir.view<f16, [M, 64], in>
//===----------------------------------------------------------------------===//

Type ViewType::parse(AsmParser &parser) {
  Type elementType;
  SmallVector<Attribute> extents;
  if (parser.parseLess() || parser.parseType(elementType) || parser.parseComma())
    return {};
  if (parseExtentList(parser, extents) || parser.parseComma())
    return {};
  StringRef modeName;
  SMLoc modeLoc = parser.getCurrentLocation();
  if (parser.parseKeyword(&modeName) || parser.parseGreater())
    return {};
  std::optional<ViewMode> mode = symbolizeViewMode(modeName);
  if (!mode) {
    parser.emitError(modeLoc) << "expected view mode 'in', 'out' or 'inout', got '" << modeName << "'";
    return {};
  }
  return parser.getChecked<ViewType>(parser.getContext(), elementType, extents, *mode);
}

void ViewType::print(AsmPrinter &printer) const {
  printer << "<" << getElementType() << ", ";
  printExtentList(printer, getExtents());
  printer << ", " << stringifyViewMode(getMode()) << ">";
}

LogicalResult ViewType::verify(function_ref<InFlightDiagnostic()> emitError, Type elementType,
                               ArrayRef<Attribute> extents, ViewMode mode) {
  if (!elementType.isIntOrIndexOrFloat())
    return emitError() << "view element type must be an integer, index or float type, got "
                       << elementType;
  return verifyExtentList(emitError, extents);
}

StringRef ViewType::getExtentName(unsigned i) const {
  if (auto name = dyn_cast<StringAttr>(getExtents()[i]))
    return name.getValue();
  return {};
}

std::optional<int64_t> ViewType::getStaticExtent(unsigned i) const {
  if (auto size = dyn_cast<IntegerAttr>(getExtents()[i]))
    return size.getInt();
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// RecordType: !kir.record<m: f32, den: f32>
//===----------------------------------------------------------------------===//

Type RecordType::parse(AsmParser &parser) {
  SmallVector<StringAttr> names;
  SmallVector<Type> types;
  auto parseField = [&]() -> ParseResult {
    std::string name;
    Type type;
    if (parser.parseKeywordOrString(&name) || parser.parseColon() || parser.parseType(type))
      return failure();
    names.push_back(parser.getBuilder().getStringAttr(name));
    types.push_back(type);
    return success();
  };
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::LessGreater, parseField))
    return {};
  return parser.getChecked<RecordType>(parser.getContext(), names, types);
}

void RecordType::print(AsmPrinter &printer) const {
  printer << "<";
  for (auto [i, field] : llvm::enumerate(llvm::zip(getNames(), getTypes()))) {
    if (i)
      printer << ", ";
    printer.printKeywordOrString(std::get<0>(field).getValue());
    printer << ": " << std::get<1>(field);
  }
  printer << ">";
}

LogicalResult RecordType::verify(function_ref<InFlightDiagnostic()> emitError,
                                 ArrayRef<StringAttr> names, ArrayRef<Type> types) {
  if (names.size() != types.size())
    return emitError() << "record has " << names.size() << " names but " << types.size()
                       << " types";
  llvm::SmallDenseSet<StringAttr> seen;
  for (StringAttr name : names)
    if (!seen.insert(name).second)
      return emitError() << "record field '" << name.getValue() << "' is declared twice";
  return success();
}

std::optional<unsigned> RecordType::getFieldIndex(StringRef name) const {
  for (auto [i, field] : llvm::enumerate(getNames()))
    if (field.getValue() == name)
      return i;
  return std::nullopt;
}
