//===- NestingLimit.cpp - refuse text nested too deep to parse ------------===//

#include "tessel/Dialect/Utils/NestingLimit.h"

#include <algorithm>

namespace tessel {

size_t skipCommentOrString(llvm::StringRef text, size_t i) {
  if (text[i] == '/' && i + 1 < text.size() && text[i + 1] == '/')
    return text.find('\n', i);
  if (text[i] == '"') {
    for (++i; i < text.size() && text[i] != '"'; ++i)
      if (text[i] == '\\')
        ++i;
    return std::min(i, text.size());
  }
  return i;
}

size_t findExcessNesting(llvm::StringRef text, unsigned limit) {
  unsigned depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (size_t skipped = skipCommentOrString(text, i); skipped != i) {
      if (skipped == llvm::StringRef::npos)
        return llvm::StringRef::npos;
      i = skipped;
      continue;
    }
    char c = text[i];
    if (c == '{' || c == '(' || c == '[' || c == '<') {
      if (++depth > limit)
        return i;
    } else if ((c == '}' || c == ')' || c == ']' || (c == '>' && (i == 0 || text[i - 1] != '-'))) && depth) {
      --depth;
    }
  }
  return llvm::StringRef::npos;
}

size_t findExcessResultNumber(llvm::StringRef text, uint64_t limit) {
  auto isNameChar = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$' ||
           c == '.' || c == '-';
  };
  for (size_t i = 0; i < text.size(); ++i) {
    if (size_t skipped = skipCommentOrString(text, i); skipped != i) {
      if (skipped == llvm::StringRef::npos)
        return llvm::StringRef::npos;
      i = skipped;
      continue;
    }
    char c = text[i];
    if (c == '%') {
      size_t at = i;
      for (++i; i < text.size() && isNameChar(text[i]); ++i)
        ;
      if (i < text.size() && text[i] == '#') {
        uint64_t n = 0;
        size_t j = i + 1;
        for (; j < text.size() && text[j] >= '0' && text[j] <= '9'; ++j)
          if ((n = n * 10 + uint64_t(text[j] - '0')) > limit)
            return at;
        i = j;
      }
      --i;
    }
  }
  return llvm::StringRef::npos;
}

} // namespace tessel
