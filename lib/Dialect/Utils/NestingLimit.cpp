//===- NestingLimit.cpp - refuse text nested too deep to parse ------------===//

#include "tessel/Dialect/Utils/NestingLimit.h"

namespace tessel {

size_t findExcessNesting(llvm::StringRef text, unsigned limit) {
  unsigned depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      i = text.find('\n', i);
      if (i == llvm::StringRef::npos)
        return llvm::StringRef::npos;
    } else if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
    } else if (c == '{' || c == '(' || c == '[' || c == '<') {
      if (++depth > limit)
        return i;
    } else if ((c == '}' || c == ')' || c == ']' || (c == '>' && (i == 0 || text[i - 1] != '-'))) && depth) {
      --depth;
    }
  }
  return llvm::StringRef::npos;
}

} // namespace tessel
