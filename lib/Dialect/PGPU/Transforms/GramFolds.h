//===- GramFolds.h - whether pgpu-form-tiles tiles a Gram nest ---*- C++ -*-===//
//
// Private to the PGPU transforms: pgpu-split-row-reductions asks before it cuts a kernel-level
// reduction's rows whether pgpu-form-tiles would tile that reduction as a Gram nest (FormTilesGram.cpp:
// a reduction over (t, s) of a pointwise function of contractions free on t and s). Cut first, the
// rows' programs end in a last-arrival merge that pgpu-form-tiles does not tile, and each (t, s)
// element runs its contraction as a scalar dot product over k.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_DIALECT_PGPU_TRANSFORMS_GRAMFOLDS_H
#define TESSEL_LIB_DIALECT_PGPU_TRANSFORMS_GRAMFOLDS_H

#include "tessel/Dialect/PGPU/IR/PGPU.h"

namespace tessel::pgpu {
/// Whether pgpu-form-tiles' analysis accepts `group` (the sole group of `space`) with a Gram nest,
/// without touching the IR.
bool formsGramFold(KernelOp kernel, ProgramSpaceOp space, ExecutionGroupOp group);
} // namespace tessel::pgpu

#endif
