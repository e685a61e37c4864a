//===- BodyEffects.h - a control op's effects, summarized from its body -*- C++ -*-===//
//
// kir and pgpu control ops (parallel, for, while, if, program_space, ...) have
// the effects of their bodies (RecursiveMemoryEffects). MLIR's dead-op check
// walks such a body from its first op until it meets an effect that is not a
// read, and the greedy driver re-checks a result-less parent each time a
// nested op changes: a 20,000-step index chain before the body's store cost
// quadratic time in every canonicalizer run (issue 47). These ops also report
// their body's effect kinds themselves, found from the body's end, where the
// store its ops feed sits: the check stops at once, and the answer is the one
// the walk gave.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DIALECT_UTILS_BODYEFFECTS_H
#define TESSEL_DIALECT_UTILS_BODYEFFECTS_H

#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tessel {

/// Marks an op whose MemoryEffectOpInterface reports summarizeBodyEffects():
/// its effects are those of its body, already counted by a walk that visits
/// the body (a walk may skip the op itself).
template <typename ConcreteType>
class SummarizesBodyEffects : public mlir::OpTrait::TraitBase<ConcreteType, SummarizesBodyEffects> {};

/// Whether `op` reports its body's effects (SummarizesBodyEffects).
bool summarizesBodyEffects(mlir::Operation *op);

/// The kinds of effect found in `op`'s regions, one value-less instance per
/// kind, scanning from the last op of each block backwards (nested regions
/// first) and stopping at the first write: a body with a write reports it
/// (with whatever else came after it), a body without one reports every kind
/// it has. An op with unknown effects counts as a write.
void summarizeBodyEffects(mlir::Operation *op,
                          llvm::SmallVectorImpl<mlir::SideEffects::EffectInstance<mlir::MemoryEffects::Effect>> &effects);

} // namespace tessel

#endif // TESSEL_DIALECT_UTILS_BODYEFFECTS_H
