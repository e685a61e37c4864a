//===- ExtentList.h - `[M, 64, BN]` extent lists in types -------*- C++ -*-===//
//
// Views, fragments and buffers spell their extents the same way: a symbol
// name (a view extent or a physical parameter) or a static size.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DIALECT_UTILS_EXTENTLIST_H
#define TESSEL_DIALECT_UTILS_EXTENTLIST_H

#include "mlir/IR/DialectImplementation.h"

namespace tessel {

/// Parses `[e0, e1, ...]`; names become StringAttr, sizes IntegerAttr (i64).
mlir::ParseResult parseExtentList(mlir::AsmParser &parser, llvm::SmallVectorImpl<mlir::Attribute> &extents);
void printExtentList(mlir::AsmPrinter &printer, llvm::ArrayRef<mlir::Attribute> extents);
/// Sizes are non-negative; names are non-empty.
mlir::LogicalResult verifyExtentList(llvm::function_ref<mlir::InFlightDiagnostic()> emitError,
                                     llvm::ArrayRef<mlir::Attribute> extents);

} // namespace tessel

#endif // TESSEL_DIALECT_UTILS_EXTENTLIST_H
