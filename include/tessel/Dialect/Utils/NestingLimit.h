//===- NestingLimit.h - refuse text nested too deep to parse ----*- C++ -*-===//
//
// MLIR's parser, verifier, passes and printer recurse once per nesting level
// (regions, types, attributes), so deeply nested text overflows the stack long
// before memory runs out. Real kernels nest a few dozen levels; the drivers
// (tessel, tessel-opt) refuse text past kMaxNesting with an error at the first
// bracket beyond it, before parsing.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DIALECT_UTILS_NESTINGLIMIT_H
#define TESSEL_DIALECT_UTILS_NESTINGLIMIT_H

#include "llvm/ADT/StringRef.h"

namespace tessel {

constexpr unsigned kMaxNesting = 256;

/// The offset of the first bracket ({ ( [ <) nested deeper than `limit`, or
/// StringRef::npos. Comments and string literals are skipped; `->` closes
/// nothing.
size_t findExcessNesting(llvm::StringRef text, unsigned limit = kMaxNesting);

} // namespace tessel

#endif // TESSEL_DIALECT_UTILS_NESTINGLIMIT_H
