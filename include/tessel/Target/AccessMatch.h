//===- AccessMatch.h - reading access shapes from coordinate SSA -*- C++ -*-===//
//
// Provider-local spellings of accesses (Triton tensor descriptors, cuTile tile
// indices) are chosen from the access's own coordinate and validity SSA (seed
// 000 §6: pointer tensors, tile indices and descriptors are provider
// representations of one shared access). These predicates are what both
// providers read.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TARGET_ACCESSMATCH_H
#define TESSEL_TARGET_ACCESSMATCH_H

#include "tessel/Dialect/PGPU/IR/PGPU.h"

#include <optional>
#include <utility>

namespace tessel::access {

/// `v` is the constant integer `c`.
bool isConstant(mlir::Value v, int64_t c);

/// `v` is the runtime extent `extent` (a symbol or a static size) of some view: a pgpu.extent of an
/// axis with that name, seen through the domain-size arithmetic construction adds (max(x, 0),
/// ceil_div(x, 1), x - 0), or the constant itself.
bool isExtent(mlir::Value v, mlir::Attribute extent);

/// A coordinate fragment `broadcast(iota(start))` (or, with `allowBare`, the iota itself on a
/// rank-1 fragment): the iota and the fragment dimension it walks.
std::optional<std::pair<pgpu::IotaOp, unsigned>> walkOf(mlir::Value coord, bool allowBare = false);

/// The conjuncts of a validity value (through `and` and broadcasts; splats of true drop out).
void conjuncts(mlir::Value v, llvm::SmallVectorImpl<mlir::Value> &out);

} // namespace tessel::access

#endif // TESSEL_TARGET_ACCESSMATCH_H
