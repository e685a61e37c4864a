//===- GluonLayouts.h - distributed layouts for a Gluon spelling -*- C++ -*-===//
//
// Provider-local (seed 000 §11: layouts belong to the provider, never to pgpu).
// Triton 3.6's Gluon dialect places every tensor in an explicit layout; its
// AutoLayout resolves a creation op's layout only from a concrete anchor, and
// its frontend compares loop-carried and `if` types before that resolution
// (session 18: tessel's own grouped-query key loop,
// respelled op for op, compiles with concrete layouts only where this
// inference puts them). What a Gluon spelling must therefore decide itself:
//
//   - a contraction's accumulator and result: the wgmma accumulator layout of
//     that contraction (instruction N = its result's last extent); contractions
//     with equal accumulator extents and operand types share it (the first in
//     program order represents them), so the output carried from one key
//     interval's loop into the next converts nothing;
//   - its left operand: that accumulator's dot-operand layout (a conversion, or
//     the anchor of an automatic chain such as the load it comes from);
//   - its right operand: shared memory (a ring slot or a staged tile);
//   - element-wise results: the first operand's concrete layout, the others
//     converted to it; a one-axis reduction of an accumulator-laid fragment:
//     the slice of that layout; a broadcast of such a slice back along the
//     sliced axis: the accumulator layout again;
//   - loop carries and `if` results: concrete, the first concrete of their
//     inits / yields (a blocked default where none is), the others converted.
//
// Everything else stays automatic (Gluon resolves it from these anchors). A
// conversion of a broadcast's result is moved before the broadcast (onto the
// row or column vector) when the broadcast has no other use.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TARGET_TRITON_GLUONLAYOUTS_H
#define TESSEL_TARGET_TRITON_GLUONLAYOUTS_H

#include "tessel/Dialect/PGPU/IR/PGPU.h"

#include "llvm/ADT/DenseMap.h"

#include <string>

namespace tessel::triton::gluon {

struct Layout {
  enum class Kind {
    Auto,        // left to Gluon's AutoLayout resolution
    Accumulator, // the wgmma accumulator layout of `contract`
    Operand,     // the dot-operand layout (left operand) of `contract`'s accumulator
    Slice,       // `contract`'s accumulator layout without dimension `dim`
    Shared,      // shared memory (a contraction's right operand and its transposes)
    Blocked,     // a default blocked layout of the value's rank (a carry no contract reaches)
  };
  Kind kind = Kind::Auto;
  /// Accumulator/Operand/Slice: the representative contraction of the layout.
  mlir::Operation *contract = nullptr;
  int64_t dim = -1;

  bool isConcrete() const { return kind != Kind::Auto; }
  bool operator==(const Layout &o) const { return kind == o.kind && contract == o.contract && dim == o.dim; }
  bool operator!=(const Layout &o) const { return !(*this == o); }
  static Layout accumulator(mlir::Operation *c) { return {Kind::Accumulator, c, -1}; }
  static Layout operand(mlir::Operation *c) { return {Kind::Operand, c, 0}; }
  static Layout slice(mlir::Operation *c, int64_t d) { return {Kind::Slice, c, d}; }
  static Layout shared() { return {Kind::Shared, nullptr, -1}; }
  static Layout blocked() { return {Kind::Blocked, nullptr, -1}; }
};

/// A use whose value must reach its user in another layout: `gl.convert_layout`
/// of a concrete value, `gl.set_auto_layout` of an automatic one.
struct Conversion {
  mlir::OpOperand *use;
  Layout to;
};

class LayoutPlan {
public:
  /// The layouts of every fragment value of `kernel` (pgpu.kernel) and the
  /// conversions they need. Deterministic: ops in program order, a fixpoint
  /// over loop carries.
  static LayoutPlan infer(mlir::Operation *kernel);

  Layout of(mlir::Value v) const { return layouts.lookup(v); }
  llvm::ArrayRef<Conversion> conversions() const { return converts; }
  /// "acc(#k)", "op(#k)", "slice(d, #k)", "shared", "blocked" or "auto", where k
  /// numbers the kernel's distinct accumulator layouts (representative
  /// contractions) in program order: the spelling tests read.
  std::string describe(const Layout &l) const;

private:
  llvm::DenseMap<mlir::Value, Layout> layouts;
  llvm::SmallVector<Conversion> converts;
  llvm::DenseMap<mlir::Operation *, unsigned> contractIndex;
};

} // namespace tessel::triton::gluon

#endif // TESSEL_TARGET_TRITON_GLUONLAYOUTS_H
