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

/// The first use that crosses out of its region: in one of `regions`, of a
/// value defined in a sibling region; or outside all of them, of a value
/// defined inside one (an enclosing forward reference bound to a definition
/// in a nested region). Either kind would dangle once a failed parse destroys
/// the regions, and neither can verify.
static OpOperand *findCrossingUse(ArrayRef<KeywordRegion> regions) {
  auto inAny = [&](Region *r) {
    return llvm::any_of(regions, [&](const KeywordRegion &e) { return isWithin(e.region, r); });
  };
  OpOperand *found = nullptr;
  auto checkUses = [&](Value v) {
    for (OpOperand &use : v.getUses())
      if (!inAny(use.getOwner()->getParentRegion())) {
        found = &use;
        return;
      }
  };
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
      for (Value result : op->getResults())
        checkUses(result);
      for (Region &nested : op->getRegions())
        for (Block &block : nested)
          for (BlockArgument arg : block.getArguments())
            checkUses(arg);
      return found ? WalkResult::interrupt() : WalkResult::advance();
    });
    for (Block &block : *here.region)
      for (BlockArgument arg : block.getArguments())
        if (!found)
          checkUses(arg);
    if (found)
      return found;
  }
  return nullptr;
}

/// Unlinks every reference into and out of `regions`, so that they and the
/// ops around them can be destroyed in any order.
static void unlink(ArrayRef<KeywordRegion> regions) {
  for (const KeywordRegion &entry : regions) {
    entry.region->walk([](Operation *op) {
      for (Value result : op->getResults())
        result.dropAllUses();
      for (Region &nested : op->getRegions())
        for (Block &block : nested)
          for (BlockArgument arg : block.getArguments())
            arg.dropAllUses();
    });
    for (Block &block : *entry.region)
      for (BlockArgument arg : block.getArguments())
        arg.dropAllUses();
    entry.region->dropAllReferences();
  }
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
    if (OpOperand *use = findCrossingUse(regions)) {
      bool inside = llvm::any_of(regions, [&](const KeywordRegion &e) {
        return isWithin(e.region, use->getOwner()->getParentRegion());
      });
      mlir::emitError(use->getOwner()->getLoc())
          << "operand #" << use->getOperandNumber()
          << (inside ? " uses a value defined in a sibling region of the enclosing op"
                     : " uses a value defined inside a later op's region");
      return failure();
    }
    return success();
  }();
  if (failed(parsed)) {
    // Nothing may point into a region that is destroyed before the op holding the use.
    unlink(regions);
    return failure();
  }
  return success();
}

ParseResult parseBodyRegion(OpAsmParser &parser, Region &body) {
  return parseKeywordRegions(parser, {{"", &body}}, nullptr);
}
ParseResult parseBodyRegion(OpAsmParser &parser, Region &body, NamedAttrList &attrs) {
  return parseKeywordRegions(parser, {{"", &body}}, &attrs);
}
void printBodyRegion(OpAsmPrinter &printer, Operation *, Region &body) {
  printKeywordRegions(printer, {{"", &body}}, {});
}
void printBodyRegion(OpAsmPrinter &printer, Operation *, Region &body, DictionaryAttr attrs) {
  // Operand segment sizes follow from the printed operands (the declarative parser sets them).
  if (attrs && attrs.get("operandSegmentSizes")) {
    NamedAttrList kept(attrs);
    kept.erase("operandSegmentSizes");
    attrs = kept.getDictionary(attrs.getContext());
  }
  printKeywordRegions(printer, {{"", &body}}, attrs);
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
