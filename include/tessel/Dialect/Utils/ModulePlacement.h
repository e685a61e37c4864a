//===- ModulePlacement.h - refuse a module MLIR cannot unwind safely -*- C++ -*-===//
//
// MLIR's parser binds a forward reference to the next definition of its name
// in any region that does not start an isolated name scope, and a custom
// parser's regions never do. builtin.module's generated parser keeps its body
// in a local region and, when parsing fails after the body's first block,
// destroys it without dropping the uses of the values defined there (the
// parser's own cleanup, and SiblingRegions.h for tessel's ops, unlink such
// uses; this path does neither). A use outside the module that was bound to
// such a definition then points into freed memory, and destroying its op
// writes there: glibc aborts at a later allocation, e.g. while the next input
// of the same process is parsed (issue 14, test/fuzz/known).
//
// builtin.module is the one op with regions whose parser tessel does not own,
// and a tessel input holds at most one module, wrapping everything. So the
// drivers refuse, before parsing, a `module` that is nested in brackets,
// follows another `module`, or is preceded by an SSA name (`%...`): exactly
// the texts where a use can lie outside a module and before its definition.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DIALECT_UTILS_MODULEPLACEMENT_H
#define TESSEL_DIALECT_UTILS_MODULEPLACEMENT_H

#include "llvm/ADT/StringRef.h"

namespace tessel {

/// What the drivers print at the offset findMisplacedModule returns.
constexpr llvm::StringLiteral kMisplacedModuleMessage =
    "a 'module' must be the input's only top-level module and come before every SSA value (%name); "
    "tessel refuses this one before parsing (MLIR's parser cannot unwind a failed module whose values are "
    "used outside it)";

/// The offset of the first `module` (or `builtin.module`) operation keyword
/// that is nested in brackets, follows another one, or follows an SSA name;
/// StringRef::npos when there is none. Comments and string literals are
/// skipped (the generic form "builtin.module"() parses safely). Each part of
/// a split input is checked on its own by the caller.
size_t findMisplacedModule(llvm::StringRef text);

} // namespace tessel

#endif // TESSEL_DIALECT_UTILS_MODULEPLACEMENT_H
