//===- ModulePlacement.cpp - refuse a module MLIR cannot unwind safely ----===//

#include "tessel/Dialect/Utils/ModulePlacement.h"
#include "tessel/Dialect/Utils/NestingLimit.h"

#include "llvm/ADT/StringExtras.h"

namespace tessel {

namespace {
bool isIdentifierChar(char c) { return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.'; }

/// The offset after `i` once whitespace and `//` comments are skipped.
size_t skipBlank(llvm::StringRef text, size_t i) {
  while (i < text.size()) {
    if (llvm::isSpace(text[i])) {
      ++i;
    } else if (text.substr(i).starts_with("//")) {
      i = text.find('\n', i);
    } else {
      break;
    }
  }
  return std::min(i, text.size());
}

/// Whether the bare identifier `word`, followed by `rest`, spells the custom
/// form of builtin.module: `module` then `{`, `@name` or `attributes` (a
/// dictionary key `module = ...` or a keyword of another op is not one).
bool isModuleOp(llvm::StringRef word, llvm::StringRef rest) {
  if (word != "module" && word != "builtin.module")
    return false;
  return rest.starts_with("{") || rest.starts_with("@") ||
         (rest.starts_with("attributes") && (rest.size() == 10 || !isIdentifierChar(rest[10])));
}
} // namespace

size_t findMisplacedModule(llvm::StringRef text) {
  unsigned depth = 0;
  bool sawValue = false, sawModule = false;
  for (size_t i = 0; i < text.size(); ++i) {
    if (size_t skipped = skipCommentOrString(text, i); skipped != i) {
      if (skipped == llvm::StringRef::npos)
        break;
      i = skipped;
      continue;
    }
    char c = text[i];
    if (llvm::isAlpha(c) || c == '_') {
      // A bare identifier; names after % @ ^ # ! are not operation keywords.
      size_t start = i;
      bool sigil = start > 0 && llvm::StringRef("%@^#!").contains(text[start - 1]);
      while (i + 1 < text.size() && isIdentifierChar(text[i + 1]))
        ++i;
      if (!sigil && isModuleOp(text.slice(start, i + 1), text.substr(skipBlank(text, i + 1)))) {
        if (depth || sawModule || sawValue)
          return start;
        sawModule = true;
      }
    } else if (c == '%') {
      sawValue = true;
    } else if (c == '{' || c == '(' || c == '[' || c == '<') {
      ++depth;
    } else if ((c == '}' || c == ')' || c == ']' || (c == '>' && (i == 0 || text[i - 1] != '-'))) && depth) {
      --depth;
    }
  }
  return llvm::StringRef::npos;
}

} // namespace tessel
