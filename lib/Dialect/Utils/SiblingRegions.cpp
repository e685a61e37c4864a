//===- SiblingRegions.cpp - parsing ops with several regions safely -------===//

#include "tessel/Dialect/Utils/SiblingRegions.h"

using namespace mlir;

namespace tessel {

/// Whether `r` is `ancestor` or nested in it. Region::isAncestor cannot be used
/// here: the regions being parsed are not attached to an op yet, and walking up
/// from one dereferences its null container.
static bool isWithin(Region *ancestor, Region *r) {
  while (r) {
    if (r == ancestor)
      return true;
    Operation *op = r->getParentOp();
    r = op ? op->getParentRegion() : nullptr;
  }
  return false;
}

/// The first use, in one of `regions`, of a value defined in a sibling region.
static OpOperand *findSiblingUse(ArrayRef<KeywordRegion> regions) {
  OpOperand *found = nullptr;
  for (const KeywordRegion &here : regions) {
    here.region->walk([&](Operation *op) {
      for (OpOperand &use : op->getOpOperands()) {
        Region *def = use.get() ? use.get().getParentRegion() : nullptr;
        for (const KeywordRegion &other : regions)
          if (def && other.region != here.region && isWithin(other.region, def)) {
            found = &use;
            return WalkResult::interrupt();
          }
      }
      return WalkResult::advance();
    });
    if (found)
      return found;
  }
  return nullptr;
}

ParseResult parseKeywordRegions(OpAsmParser &parser, ArrayRef<KeywordRegion> regions, NamedAttrList *attrs) {
  auto parsed = [&]() -> ParseResult {
    for (const KeywordRegion &entry : regions) {
      if (entry.optional) {
        if (failed(parser.parseOptionalKeyword(entry.keyword)))
          continue;
      } else if (!entry.keyword.empty() && parser.parseKeyword(entry.keyword)) {
        return failure();
      }
      if (parser.parseRegion(*entry.region))
        return failure();
    }
    if (attrs && parser.parseOptionalAttrDict(*attrs))
      return failure();
    if (OpOperand *use = findSiblingUse(regions)) {
      mlir::emitError(use->getOwner()->getLoc())
          << "operand #" << use->getOperandNumber() << " uses a value defined in a sibling region of the enclosing op";
      return failure();
    }
    return success();
  }();
  if (failed(parsed)) {
    // Nothing may point into a region that is destroyed before the one holding the use.
    for (const KeywordRegion &entry : regions)
      entry.region->dropAllReferences();
    return failure();
  }
  return success();
}

void printKeywordRegions(OpAsmPrinter &printer, ArrayRef<KeywordRegion> regions, DictionaryAttr attrs) {
  bool first = true;
  for (const KeywordRegion &entry : regions) {
    if (entry.optional && entry.region->empty())
      continue;
    if (!first)
      printer << ' ';
    first = false;
    if (!entry.keyword.empty())
      printer << entry.keyword << ' ';
    printer.printRegion(*entry.region);
  }
  if (attrs)
    printer.printOptionalAttrDict(attrs.getValue());
}

} // namespace tessel
