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

#include <cstdint>

namespace tessel {

constexpr unsigned kMaxNesting = 256;

/// The pre-parse scanners' shared step (this file, ModulePlacement.h): at a `//` comment, the offset of
/// its newline (StringRef::npos when the comment ends the text); at a string literal's `"`, the offset
/// of its closing quote (or the text's end); anywhere else `i` itself.
size_t skipCommentOrString(llvm::StringRef text, size_t i);

/// The offset of the first bracket ({ ( [ <) nested deeper than `limit`, or
/// StringRef::npos. Comments and string literals are skipped; `->` closes
/// nothing.
size_t findExcessNesting(llvm::StringRef text, unsigned limit = kMaxNesting);

/// MLIR's parser sizes a value name's result slots to the largest `#N` a use
/// names before it resolves the use (OperationParser::resolveSSAUse), so
/// `%r#2147483648` asks for 2^31 slots and aborts with "LLVM ERROR: out of
/// memory" (the in-process fuzzer, session 14). No op has this many results;
/// the drivers refuse such a use before parsing.
constexpr uint64_t kMaxResultNumber = 1 << 16;

/// The offset of the first SSA use `%name#N` with N above `limit`, or
/// StringRef::npos. Comments and string literals are skipped.
size_t findExcessResultNumber(llvm::StringRef text, uint64_t limit = kMaxResultNumber);

/// MLIR's parser reads a dense array attribute `array<T: ...>` by T's bit width, asking every T for
/// it: `array<index: 0>` (or a dialect type) ends in a segfault inside the parser (the in-process
/// fuzzer, session 26, from a `joint = array<i64: ...>` seed). The offset of the first `array<` whose
/// element type is not an integer (`i`, `si`, `ui` and a width) or a builtin float type, or
/// StringRef::npos; the drivers refuse it before parsing. Comments and string literals are skipped.
size_t findBadDenseArray(llvm::StringRef text);
constexpr const char *kBadDenseArrayMessage =
    "a dense array attribute's element type must be an integer (i64, si8, ...) or a float type; tessel refuses "
    "others before parsing (MLIR's parser crashes on them)";

} // namespace tessel

#endif // TESSEL_DIALECT_UTILS_NESTINGLIMIT_H
