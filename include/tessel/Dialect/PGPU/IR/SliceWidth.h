//===- SliceWidth.h - constant widths of clipped slices --------*- C++ -*-===//
//
// One bound fact on pgpu IR, shared by the blocking passes: the constant w
// that bounds the length of a slice [s, e) of a view's axis clipped to it,
// whose length construction spells max(min(e, C) - max(s, 0), 0) (seed 000 §5:
// a subregion of a domain). Where e and s differ by the constant w whatever
// the member (a row's blocks of 128 columns, cols[j * 128 : j * 128 + 128]; a
// window of neighbours, chans[max(c - 2, 0) : min(c + 3, C)]), one block of w
// lanes holds every member's slice, at any call. Beside it, the named view
// extent S a range's bound stands for (the symbol a block parameter declares it
// covers).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DIALECT_PGPU_IR_SLICEWIDTH_H
#define TESSEL_DIALECT_PGPU_IR_SLICEWIDTH_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Value.h"

#include <optional>

namespace tessel::pgpu {

/// The constant w when the index `length` is max(min(e1, e2, ...) - max(s1, s2, ...), 0) (the mins and
/// maxes nested in any order, the outer clamp optional) and some end ei and start sj are one value
/// plus constants (ei = x + a, sj = x + b, w = a - b; sj not a constant): min(...) <= ei and
/// max(...) >= sj, so the length is at most w for every member. None for any other value.
std::optional<int64_t> clippedWidth(mlir::Value length);

/// The named view extent S when `hi` is `pgpu.extent` of an axis declared S (through the identities
/// ceil_div(x, 1) and max(x, 0) construction wraps extents in), else null.
mlir::StringAttr extentSymbol(mlir::Value hi);

} // namespace tessel::pgpu

#endif // TESSEL_DIALECT_PGPU_IR_SLICEWIDTH_H
