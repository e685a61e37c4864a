//===- SliceWidth.cpp - constant widths of clipped slices ------------------===//
//
// SliceWidth.h: a structural match on pgpu index values, bounded in depth.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/IR/SliceWidth.h"
#include "tessel/Dialect/PGPU/IR/PGPU.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

namespace {
/// (x, k) where `e` is x plus the constant k: adds and subtractions of constants peeled off `e`
/// (c + 2 + 1 is (c, 3); c - 2 is (c, -2)); (e, 0) where none is.
std::pair<Value, int64_t> baseAndOffset(Value e) {
  int64_t k = 0;
  for (int depth = 0; depth < 8; ++depth) {
    auto bin = e.getDefiningOp<BinaryOp>();
    if (!bin || (bin.getKind() != kir::BinaryKind::Add && bin.getKind() != kir::BinaryKind::Sub))
      break;
    if (std::optional<int64_t> c = constantIndex(bin.getRhs())) {
      k += bin.getKind() == kir::BinaryKind::Add ? *c : -*c;
      e = bin.getLhs();
    } else if (std::optional<int64_t> c = constantIndex(bin.getLhs()); c && bin.getKind() == kir::BinaryKind::Add) {
      k += *c;
      e = bin.getRhs();
    } else {
      break;
    }
  }
  return {e, k};
}

/// The operands of the `kind` (min, max) nest rooted at `v`, nested ones opened (at most 8): each
/// bounds the nest (min(a, min(b, C)) <= a, b, C); `v` alone where it is no such op.
SmallVector<Value> sidesOf(Value v, kir::BinaryKind kind) {
  SmallVector<Value> sides{v}, out;
  for (size_t i = 0; i < sides.size() && i < 8; ++i) {
    if (auto bin = sides[i].getDefiningOp<BinaryOp>(); bin && bin.getKind() == kind)
      sides.append({bin.getLhs(), bin.getRhs()});
    else
      out.push_back(sides[i]);
  }
  return out;
}
} // namespace

std::optional<int64_t> pgpu::clippedWidth(Value length) {
  if (auto clamp = length.getDefiningOp<BinaryOp>(); clamp && clamp.getKind() == kir::BinaryKind::Max) {
    if (matchPattern(clamp.getRhs(), m_Zero()))
      length = clamp.getLhs();
    else if (matchPattern(clamp.getLhs(), m_Zero()))
      length = clamp.getRhs();
  }
  auto diff = length.getDefiningOp<BinaryOp>();
  if (!diff || diff.getKind() != kir::BinaryKind::Sub)
    return std::nullopt;
  SmallVector<Value> ends = sidesOf(diff.getLhs(), kir::BinaryKind::Min);
  SmallVector<Value> starts = sidesOf(diff.getRhs(), kir::BinaryKind::Max);
  for (Value end : ends) {
    auto [e, a] = baseAndOffset(end);
    for (Value start : starts) {
      if (constantIndex(start))
        continue;
      auto [s, b] = baseAndOffset(start);
      if (s == e)
        return a - b;
    }
  }
  return std::nullopt;
}

StringAttr tessel::pgpu::extentSymbol(Value hi) {
  while (true) {
    if (auto cd = hi.getDefiningOp<CeilDivOp>(); cd && matchPattern(cd.getRhs(), m_One())) {
      hi = cd.getLhs();
      continue;
    }
    if (auto max = hi.getDefiningOp<BinaryOp>();
        max && max.getKind() == kir::BinaryKind::Max && matchPattern(max.getRhs(), m_Zero())) {
      hi = max.getLhs();
      continue;
    }
    break;
  }
  auto extent = hi.getDefiningOp<ExtentOp>();
  if (!extent)
    return {};
  return dyn_cast<StringAttr>(cast<ViewType>(extent.getView().getType()).getExtents()[extent.getAxis()]);
}
