//===- LoopTrips.h - where a parameter-stepped loop's trips start -*- C++ -*-===//
//
// One fact on pgpu IR, shared by the passes and the providers: whether every trip of a `pgpu.for`
// stepped by a declared parameter P starts at a multiple of P (seed 000 §5: a blocking loop's lanes
// iv + [0, P)). pgpu-reuse-input-reads reads a group-quantized weight's scale once a trip from it
// (UniformLaneReads.cpp); the Triton serializer reads packed pairs once from it (PairedLaneReads.h).
// And whether a value's lanes past such a loop's bound are discarded by every use (both use it to leave
// out a select of the fill there).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DIALECT_PGPU_IR_LOOPTRIPS_H
#define TESSEL_DIALECT_PGPU_IR_LOOPTRIPS_H

#include "tessel/Dialect/PGPU/IR/PGPU.h"

namespace tessel::pgpu {
/// Whether `v` is a multiple of parameter `name` at every binding: 0, the parameter, a product with a
/// factor that is one, a sum of two that are.
bool multipleOfParam(mlir::Value v, llvm::StringRef name);

/// Whether every trip of `loop` (step parameter `name`) starts at a multiple of it: its lower bound is
/// one, or min(m, u) with m one and u no less than the upper bound (the upper bound u, or min(.., u)),
/// where a lower bound of u runs no trip (pgpu-split-contractions' chunk of a K loop).
bool tripsStartAtMultiples(ForOp loop, llvm::StringRef name);

/// Whether every lane of fragment `v` where `mask` is false is discarded: each use is the chosen value of a
/// select on `mask` (the same value, or a broadcast of one operand along the same axes) or a lane-wise
/// operation of the same shape (a binary operation other than division and remainder, a cast other than
/// float to integer: none traps or warns at a lane holding an arbitrary value) whose result is discarded
/// there too. A read's lanes past a K loop's bound then need not hold its fill (corpus 57's zero points,
/// scales and packed bytes: the dequantized weight is zeroed past K before the contraction).
bool lanesDiscardedOff(mlir::Value v, mlir::Value mask);
} // namespace tessel::pgpu

#endif // TESSEL_DIALECT_PGPU_IR_LOOPTRIPS_H
