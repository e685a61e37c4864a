//===- RowParallels.h - kir-row-parallels' row machinery, shared with its parts ===//
#ifndef TESSEL_KIR_TRANSFORMS_ROWPARALLELS_H
#define TESSEL_KIR_TRANSFORMS_ROWPARALLELS_H

#include "tessel/Dialect/KIR/IR/KIR.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"
#include <string>

namespace tessel::kir::rows {

using Axes = llvm::SmallVector<mlir::Value>; // the domain of each tensor axis

/// The kernel-level computation of one store's value, its axes, and what the rewrite needs.
struct Row {
  StoreOp store;
  llvm::SmallVector<mlir::Operation *> ops; // the store's producers at kernel level, block order
  llvm::DenseMap<mlir::Value, Axes> axes;   // of every tensor the producers define
  llvm::SetVector<mlir::Value> members;     // the store's domains that become parallel members
  bool replayed = false;                    // matchMemberAxis: a stored tensor also reduced (not in place)
  bool argReduces = false;                  // keepRowSummaries: an arg-reduction may be computed per member
  std::string why;
};

bool refuse(Row &r, const llvm::Twine &why);
/// The producers of `roots` into `r.ops`, in block order: the ops of `top` it needs that compute tensors.
void collect(mlir::ValueRange roots, mlir::Block *top, Row &r);
/// Whether every producer in `r.ops` is one a member can compute, recording its axes.
bool checkProducers(KernelOp kernel, Row &r);
/// Whether the producers of a summary over the members `r.members` can be computed per member.
bool perMember(Row &r);
/// Clones the producers of `r` at `b`, every axis over a member removed (read at `index`'s).
void cloneRow(mlir::OpBuilder &b, Row &r, const llvm::DenseMap<mlir::Value, mlir::Value> &index,
              mlir::IRMapping &map);

/// ScannedSummaries.cpp: kernel-level row summaries that a later parallel's scan or reduction
/// reads per step are computed once, by a parallel over their rows, into buffers. Returns how many.
unsigned keepScannedSummaries(KernelOp kernel, bool remarks);

} // namespace tessel::kir::rows

#endif // TESSEL_KIR_TRANSFORMS_ROWPARALLELS_H
