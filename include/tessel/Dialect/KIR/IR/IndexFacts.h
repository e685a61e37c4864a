//===- IndexFacts.h - which view's values index which extent -----*- C++ -*-===//
//
// A gather, scatter or data-dependent load whose coordinate on axis `axis`
// of view `target` is, unmasked and unconditionally, the value read from
// every element of an integer view `index` (an index relation over its whole
// axis, or a load at every member of it): each value of `index` must then lie
// in [0, extent(target, axis)) or the access reads or writes outside the view
// (seed 000 §6: accesses consume a view through explicit coordinates; ABI
// bounds are the caller's contract, seed 004 on bounds). The checked launch
// mode of the wrappers validates exactly these facts before a launch.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DIALECT_KIR_IR_INDEXFACTS_H
#define TESSEL_DIALECT_KIR_IR_INDEXFACTS_H

#include "tessel/Dialect/KIR/IR/KIR.h"

#include "llvm/ADT/SmallVector.h"

namespace tessel::kir {

struct IndexFact {
  unsigned index;  ///< the argument number of the integer view whose values are coordinates
  unsigned target; ///< the argument number of the view they index
  unsigned axis;   ///< the axis of `target` they index
  bool operator==(const IndexFact &o) const { return index == o.index && target == o.target && axis == o.axis; }
};

/// The index facts of `kernel`, deduplicated, in the order their accesses appear. Only accesses the
/// whole index view feeds without a mask or a condition give a fact (a masked gather may legally
/// carry out-of-range values under its mask, so it gives none).
llvm::SmallVector<IndexFact> collectIndexFacts(KernelOp kernel);

} // namespace tessel::kir

#endif // TESSEL_DIALECT_KIR_IR_INDEXFACTS_H
