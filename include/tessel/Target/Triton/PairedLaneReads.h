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
// The same holds for any run of c lanes sharing one element: a coordinate (s * k) / G with s dividing G,
// c = G / s (a group-quantized weight's scale index zeros[n, (2 * j) // 128] over the byte axis j of
// corpus 80_b, c = 64; 2-bit values' wq[n, k // 4], c = 4). At a binding where c divides P the read is the
// P / c elements iv / c + [0, P / c), each repeated c times (broadcast-then-reshape); where P divides c,
// one element a trip (pgpu-reuse-input-reads' uniform read, which needs every candidate of P to divide c,
// done here at the one binding). The first lane of a run decides its validity: iv + c * j < b, spelled
// iv / c + j < ceil(b / c).
// Only the view's last axis is read this way: on an outer axis (corpus 57's wq[k // 2, n]) the pair's
// lanes are rows of the tile and the join is a layout conversion a tile (1.65x slower on an H100, session
// 43). The fill's select at the odd lane past a lane bound is left out where every use discards the lanes
// past that bound (pgpu::lanesDiscardedOff, LoopTrips.h: a dequantized weight zeroed past K before the
// contraction).
// Must not fire: P odd at the binding (pairs), c and P neither dividing the other, a trip that may start
// off a multiple of P, s not dividing G, a coordinate or validity that varies along the lanes otherwise,
// any run on an outer view axis.
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
  Halved,  ///< (s * iota(iv)) / G along the lane axis (a coordinate; iota(iv) / 2 for pairs)
  Bound,   ///< iota(iv) < b along the lane axis (validity)
  And,     ///< the conjunction of two validity values that are paired forms
};

struct PairedLaneRead {
  mlir::Value iv;          ///< the loop's index: lanes iv + [0, P)
  llvm::StringRef step;    ///< P, the parameter the loop steps by and the lane axis's extent
  unsigned axis;           ///< the lane axis: the fragment's last
  bool boundedLanes;       ///< whether the validity holds a lane bound (the result then selects)
  int64_t scale = 1;       ///< s of the quotient (s * iota(iv)) / G
  int64_t group = 2;       ///< G of the quotient: c = G / s lanes share an element (pairs: s 1, G 2)
  int64_t run = 2;         ///< lanes one read element covers at the binding: min(c, P) (the spelling's)

  /// Whether this is the packed-pairs form k / 2 (spelled join-then-reshape).
  bool pairs() const { return scale == 1 && group == 2; }
};

/// The paired-read form of a load or gather (`read`), or none. Whether the step's bound value suits the
/// run c = G / s (pairs: P even; else c dividing P or P dividing c) is the caller's check.
std::optional<PairedLaneRead> matchPairedLaneRead(mlir::Operation *read);

/// The form of `v` (a coordinate or validity value of the read `match` was matched on), or none.
std::optional<PairedLane> pairedLaneForm(mlir::Value v, const PairedLaneRead &match);

/// The bound `b` of a Bound form, the quotient's lanes of a Halved form (either unwrapped from the
/// broadcast along the lane axis): the operand a spelling reads.
mlir::Value pairedLaneBound(mlir::Value v, const PairedLaneRead &match);

/// An interleaved read: a load or gather inside a `pgpu.for` whose index is the base of the lanes
/// iv + [0, P) on the fragment's last axis (P the loop's parameter step), whose coordinate on the view's
/// last axis is 2 * iota(iv) + o, o in {0, 1} (the even or odd columns of a row: corpus 80_b's
/// x[rows, 2 * j] and x[rows, 2 * j + 1] beside packed nibbles' bytes j). Each is a stride-2 read, element
/// by element (Triton neither vectorizes nor pipelines it); the Triton serializer spells it as the
/// contiguous run 2 * iv + [0, 2P) of the view's last axis, masked also by that axis's extent (the other
/// parity's column may lie past it), split into even and odd columns in registers. The other coordinates
/// are uniform along the lanes; the validity uniform, the lane bound iota(iv) < b (lane t / 2 of the run:
/// 2 * iv + t < 2 * b) or their conjunction.
/// Must not fire: a stride other than 2, an offset other than 0 or 1, a coordinate on an outer view
/// axis, lanes outside a loop stepped by their extent, a validity varying along the lanes otherwise.
struct InterleavedLaneRead {
  PairedLaneRead lanes; ///< the loop's index and step, the lane axis (scale, group unused)
  int64_t offset;       ///< o: 0 for the even columns, 1 for the odd
};

/// The interleaved form of a load or gather (`read`) of a view argument, or none.
std::optional<InterleavedLaneRead> matchInterleavedLaneRead(mlir::Operation *read);

} // namespace tessel::triton

#endif // TESSEL_TARGET_TRITON_PAIREDLANEREADS_H
