//===- PairedLaneReads.h - a read of packed pairs, once a pair -----*- C++ -*-===//
//
// Provider-local (seed 002 §3.7: the serializer spells a legal access; seed 002 §3.4: a value is read
// once where one read serves its uses). A load or gather inside a `pgpu.for` stepped by a parameter P
// whose every trip starts at a multiple of P (LoopTrips.h), whose last fragment axis holds the trip's
// lanes k = iv + [0, P), and whose coordinate on the view's last axis is k / 2 (two 4-bit values
// packed in a byte: corpus 80's wq[n, k // 2]; a RoPE table's cos[s, d // 2]) reads every element twice,
// at neighbouring lanes 2j and 2j + 1. With P
// even, iv is even and k / 2 = iv / 2 + j exactly (floor division), so the read is the P / 2 elements
// iv / 2 + [0, P / 2), each repeated: the Triton serializer loads them once (contiguous lanes, which
// Triton vectorizes and pipelines; the repeated ones it reads one byte at a time and does not) and
// spells the repetition as join-then-reshape, in registers.
//
// The other coordinates and the validity must say which half-tile element to read without the lanes:
// scalars, broadcasts that do not place the lane axis, and (validity only) the lane bound
// iota(iv) < b, whose half is iv + 2j < b (lane 2j; lane 2j + 1 is valid only where 2j is). A lane bound
// leaves the odd lane past it holding its byte: the result then selects the fill there.
// Must not fire: P odd at the binding, a trip that may start off a multiple of P, a quotient by
// anything but 2, a coordinate or validity that varies along the lanes otherwise, k / 2 on an outer
// view axis (corpus 57's wq[k // 2, n]: each repeated row is one vector read already).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TARGET_TRITON_PAIREDLANEREADS_H
#define TESSEL_TARGET_TRITON_PAIREDLANEREADS_H

#include "tessel/Dialect/PGPU/IR/PGPU.h"

#include <optional>

namespace tessel::triton {

/// How one coordinate or validity value of a paired read depends on the lanes.
enum class PairedLane {
  Uniform, ///< a scalar, a splat, or a broadcast that does not place the lane axis
  Halved,  ///< iota(iv) / 2 along the lane axis (a coordinate)
  Bound,   ///< iota(iv) < b along the lane axis (validity)
  And,     ///< the conjunction of two validity values that are paired forms
};

struct PairedLaneRead {
  mlir::Value iv;          ///< the loop's index: lanes iv + [0, P)
  llvm::StringRef step;    ///< P, the parameter the loop steps by and the lane axis's extent
  unsigned axis;           ///< the lane axis: the fragment's last
  bool boundedLanes;       ///< whether the validity holds a lane bound (the result then selects)
};

/// The paired-read form of a load or gather (`read`), or none. The step's evenness at a binding is
/// the caller's check (the bound value of `step`).
std::optional<PairedLaneRead> matchPairedLaneRead(mlir::Operation *read);

/// The form of `v` (a coordinate or validity value of the read `match` was matched on), or none.
std::optional<PairedLane> pairedLaneForm(mlir::Value v, const PairedLaneRead &match);

/// The bound `b` of a Bound form, the quotient's lanes of a Halved form (either unwrapped from the
/// broadcast along the lane axis): the operand a spelling reads.
mlir::Value pairedLaneBound(mlir::Value v, const PairedLaneRead &match);

} // namespace tessel::triton

#endif // TESSEL_TARGET_TRITON_PAIREDLANEREADS_H
