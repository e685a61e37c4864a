//===- ExactSplit.h - an f32 fragment as exact bf16 parts ----------*- C++ -*-===//
//
// A contraction's f32 operand against a widened bf16 operand (an exact
// widening) under IEEE precision: three tensor-core products of bf16 parts
// instead of an f32 (FMA) product. Used by kir-to-pgpu (region folds) and
// pgpu-form-tiles (contraction nests).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DIALECT_PGPU_IR_EXACTSPLIT_H
#define TESSEL_DIALECT_PGPU_IR_EXACTSPLIT_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

namespace tessel::pgpu {

/// `x` (an f32 fragment) as three bf16 fragments hi, mid, lo with hi + mid + lo
/// = x exactly: hi = bf16(x), mid = bf16(x - hi), lo = bf16(x - hi - mid), each
/// difference exact in f32 (x's 24 significant bits, 8 a part, each rounding to
/// nearest leaving a remainder of at most the bits below it). The remainder is
/// 0 where a part is inf or NaN (x inf or NaN, or past bf16's largest finite,
/// whose hi is inf). Exact for |x| >= 2^-110 (below, lo is a bf16 subnormal and
/// may drop bits under 2^-133).
/// Used where a contraction's f32 operand meets a widened bf16 one (seed 000 §8: IEEE
/// products of the operands; three exact bf16 x bf16 products summed in f32 instead).
llvm::SmallVector<mlir::Value, 3> splitBF16(mlir::OpBuilder &b, mlir::Location l, mlir::Value x);

} // namespace tessel::pgpu

#endif // TESSEL_DIALECT_PGPU_IR_EXACTSPLIT_H
