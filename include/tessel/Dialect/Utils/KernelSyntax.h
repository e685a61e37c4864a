//===- KernelSyntax.h - kernel signatures with ABI names --------*- C++ -*-===//
//
// `kir.kernel` and `pgpu.kernel` print `@name(%x: type {attrs}, ...)`. Each
// argument's SSA name is its ABI name (`kir.name`), so names survive round
// trips, reach the launch wrapper, and make IR dumps readable.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DIALECT_UTILS_KERNELSYNTAX_H
#define TESSEL_DIALECT_UTILS_KERNELSYNTAX_H

#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace tessel {

/// The argument attribute holding an argument's ABI name.
inline constexpr llvm::StringLiteral kArgNameAttr("kir.name");

mlir::ParseResult parseKernelSignature(mlir::OpAsmParser &parser, mlir::OperationState &result,
                                       mlir::StringAttr functionTypeName, mlir::StringAttr argAttrsName);

void printKernelSignature(mlir::OpAsmPrinter &p, mlir::FunctionOpInterface op,
                          llvm::ArrayRef<llvm::StringRef> elidedAttrs);

/// Names the entry block arguments after their ABI names.
void setKernelArgumentNames(mlir::FunctionOpInterface op, mlir::Region &region,
                            mlir::OpAsmSetValueNameFn setNameFn);

/// Checks that ABI names are unique.
mlir::LogicalResult verifyKernelArgumentNames(mlir::FunctionOpInterface op);

} // namespace tessel

#endif // TESSEL_DIALECT_UTILS_KERNELSYNTAX_H
