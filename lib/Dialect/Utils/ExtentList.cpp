//===- ExtentList.cpp - `[M, 64, BN]` extent lists in types ----------------===//

#include "tessel/Dialect/Utils/ExtentList.h"

#include "mlir/IR/Builders.h"

using namespace mlir;

namespace tessel {

ParseResult parseExtentList(AsmParser &parser, SmallVectorImpl<Attribute> &extents) {
  auto parseExtent = [&]() -> ParseResult {
    int64_t size;
    OptionalParseResult intResult = parser.parseOptionalInteger(size);
    if (intResult.has_value()) {
      if (failed(*intResult))
        return failure();
      extents.push_back(parser.getBuilder().getI64IntegerAttr(size));
      return success();
    }
    StringRef name;
    if (parser.parseKeyword(&name))
      return failure();
    extents.push_back(parser.getBuilder().getStringAttr(name));
    return success();
  };
  return parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, parseExtent);
}

void printExtentList(AsmPrinter &printer, ArrayRef<Attribute> extents) {
  printer << "[";
  llvm::interleaveComma(extents, printer, [&](Attribute extent) {
    if (auto name = dyn_cast<StringAttr>(extent))
      printer << name.getValue();
    else
      printer << cast<IntegerAttr>(extent).getInt();
  });
  printer << "]";
}

LogicalResult verifyExtentList(function_ref<InFlightDiagnostic()> emitError, ArrayRef<Attribute> extents) {
  for (Attribute extent : extents) {
    if (auto size = dyn_cast<IntegerAttr>(extent)) {
      if (size.getInt() < 0)
        return emitError() << "extent must be non-negative, got " << size.getInt();
      continue;
    }
    auto name = dyn_cast<StringAttr>(extent);
    if (!name || name.getValue().empty())
      return emitError() << "extent must be a symbol name or a static size";
  }
  return success();
}

} // namespace tessel
