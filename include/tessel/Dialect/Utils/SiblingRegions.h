//===- SiblingRegions.h - parsing ops with several regions safely -*- C++ -*-===//
//
// MLIR's parser resolves a forward reference made in one region with a
// definition in a sibling region of the same op (e.g. `summarize` uses %v,
// `combine` defines %v). The op never verifies, but when parsing fails after
// that, ODS's generated parser destroys the regions in reverse order and the
// earlier region's use is unlinked from a freed op: a heap use-after-free.
// Likewise a forward reference in the enclosing region can be bound to a
// definition inside a nested op's region, which the failed parse of that op
// frees. Ops with regions parse them through these custom directives, which
// reject such uses with a located error and, on any failure, unlink every use
// into and out of the regions first so that everything can be destroyed in any
// order.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DIALECT_UTILS_SIBLINGREGIONS_H
#define TESSEL_DIALECT_UTILS_SIBLINGREGIONS_H

#include "mlir/IR/OpImplementation.h"

namespace tessel {

/// One region of a directive: the keyword printed before it ("" for none)
/// and the region; `optional` regions are parsed only after their keyword and
/// printed only when non-empty.
struct KeywordRegion {
  llvm::StringRef keyword;
  mlir::Region *region;
  bool optional = false;
};

/// Parses `keyword region` for each entry (in order), then an optional
/// attribute dictionary into `attrs` when it is non-null.
mlir::ParseResult parseKeywordRegions(mlir::OpAsmParser &parser, llvm::ArrayRef<KeywordRegion> regions,
                                      mlir::NamedAttrList *attrs);

/// Prints what parseKeywordRegions reads (`attrs` when non-null).
void printKeywordRegions(mlir::OpAsmPrinter &printer, llvm::ArrayRef<KeywordRegion> regions,
                         mlir::DictionaryAttr attrs);

/// The `custom<BodyRegion>($region[, attr-dict])` directive of ops with one
/// region: the same checks and cleanup for a region alone.
mlir::ParseResult parseBodyRegion(mlir::OpAsmParser &parser, mlir::Region &body);
mlir::ParseResult parseBodyRegion(mlir::OpAsmParser &parser, mlir::Region &body, mlir::NamedAttrList &attrs);
void printBodyRegion(mlir::OpAsmPrinter &printer, mlir::Operation *, mlir::Region &body);
void printBodyRegion(mlir::OpAsmPrinter &printer, mlir::Operation *, mlir::Region &body, mlir::DictionaryAttr attrs);

} // namespace tessel

#endif // TESSEL_DIALECT_UTILS_SIBLINGREGIONS_H
