//===- GluonStreams.h - fold-source streams and the loader slice -*- C++ -*-===//
//
// Provider-local (seed 000 §11: pipeline stages, warp specialization and
// barrier protocols belong to the provider). The second fact a
// warp-specialized Gluon spelling of a blocked fold needs, beside its layouts
// (GluonLayouts.h): which loads a loader partition can issue ahead of the
// consumers, and which part of the program the loader must run to issue them
// in the consumers' order.
//
//   - A stream is a box load (TileAccess.h: a tensor-descriptor tile) inside a
//     pgpu.for whose value only feeds contractions as their right operand,
//     directly or through one transpose (the key tile of attention's scores,
//     the value tile of its output). Its tiles go through a shared-memory ring;
//     the contraction reads the slot (the transpose is a view of it).
//   - The loader slice is every operation the streams' box origins and the
//     control around them need: the enclosing loops (their bounds, and the
//     scalar carries those need), ifs (their conditions), execution groups and
//     the program space, and the scalar arithmetic under them. The loader runs
//     exactly these, so it walks the same tiles in the same order as the
//     consumers, who run the whole program.
//   - A plan is refused, with the operation and the reason, where the slice
//     would need a fragment (a bound or condition read from data a consumer
//     computes): the loader could not know how many tiles to issue.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TARGET_TRITON_GLUONSTREAMS_H
#define TESSEL_TARGET_TRITON_GLUONSTREAMS_H

#include "tessel/Target/Triton/TileAccess.h"

#include "llvm/ADT/SetVector.h"

#include <optional>
#include <string>

namespace tessel::triton::gluon {

struct Stream {
  mlir::Operation *load;    // the box load (pgpu.load)
  TileAccess box;           // its box
  mlir::Operation *loop;    // the innermost pgpu.for holding it
  mlir::Operation *transpose; // the transpose its contractions read, or null
};

struct StreamPlan {
  llvm::SmallVector<Stream> streams;
  /// The loader partition's operations, in program order.
  llvm::SetVector<mlir::Operation *> loader;
  /// Why no loader can be formed, and where; unset when the plan stands (or there is no stream).
  std::optional<std::string> refusal;
  mlir::Operation *refusedAt = nullptr;

  static StreamPlan plan(mlir::Operation *kernel);
};

} // namespace tessel::triton::gluon

#endif // TESSEL_TARGET_TRITON_GLUONSTREAMS_H
