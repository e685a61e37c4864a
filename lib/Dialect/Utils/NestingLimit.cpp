//===- NestingLimit.cpp - refuse text nested too deep to parse ------------===//

#include "tessel/Dialect/Utils/NestingLimit.h"

#include "llvm/ADT/STLExtras.h"

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

size_t findBadDenseArray(llvm::StringRef text) {
  auto isIdent = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
           c == '$' || c == '-';
  };
  auto allDigits = [](llvm::StringRef s) { return !s.empty() && llvm::all_of(s, [](char c) { return c >= '0' && c <= '9'; }); };
  for (size_t i = 0; i < text.size(); ++i) {
    if (size_t skipped = skipCommentOrString(text, i); skipped != i) {
      if (skipped == llvm::StringRef::npos)
        return llvm::StringRef::npos;
      i = skipped;
      continue;
    }
    if (!text.substr(i).starts_with("array<") || (i > 0 && isIdent(text[i - 1])))
      continue;
    size_t j = i + 6;
    while (j < text.size() && (text[j] == ' ' || text[j] == '\t' || text[j] == '\n' || text[j] == '\r'))
      ++j;
    size_t end = j;
    while (end < text.size() && isIdent(text[end]))
      ++end;
    llvm::StringRef type = text.slice(j, end);
    bool integer = (type.consume_front("si") || type.consume_front("ui") || type.consume_front("i")) && allDigits(type);
    type = text.slice(j, end);
    // Builtin floats: f16, bf16, f32, f64, f80, f128, tf32 and the f4/f6/f8 formats (f8E4M3FN, ...).
    bool floating = type == "bf16" || type == "tf32" ||
                    (type.size() >= 2 && type[0] == 'f' && type[1] >= '0' && type[1] <= '9');
    if (!integer && !floating)
      return i;
  }
  return llvm::StringRef::npos;
}

} // namespace tessel
