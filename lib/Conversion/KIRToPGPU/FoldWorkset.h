//===- FoldWorkset.h - fragment construction of region-fold worksets -*- C++ -*-===//
//
// Private to kir-to-pgpu. A workset (kir.parallel) whose body holds a
// kir.region_fold is constructed with each KIR value as one pgpu value: its
// tensor axes become fragment axes, the innermost parallel axis becomes a
// lane axis of BLOCK_<extent> members per program, and the fold becomes a
// pgpu.region_fold over source tiles whose summarizer keeps its contracts and
// reductions as pgpu.contract / pgpu.reduce (seed 002 §3.4: "Contracts in
// region summarizers remain explicit"). See FoldWorkset.cpp. A workset
// holding a kir.region_scan is built the same way without a lane axis, the
// scan a pgpu.region_scan carrying its state as fragments (ScanWorkset.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_CONVERSION_KIRTOPGPU_FOLDWORKSET_H
#define TESSEL_LIB_CONVERSION_KIRTOPGPU_FOLDWORKSET_H

#include "KernelConstructor.h"

#include <memory>
#include <string>

namespace tessel::construct {

class FoldWorksetImpl;

/// The fragment form of one workset, planned before the program space is
/// formed (its last extent is blocked) and emitted inside its execution group.
class FoldWorkset {
public:
  FoldWorkset(KernelConstructor &kc, kir::ParallelOp parallel);
  ~FoldWorkset();
  FoldWorkset(FoldWorkset &&);

  /// Whether the fragment form applies; otherwise `whyNot` says why.
  bool plan();
  const std::string &whyNot() const;
  /// "region fold" or "region scan": what the workset holds.
  const std::string &subject() const;
  /// The execution group's extents: the outer parallel extents, then the
  /// number of lane blocks of the innermost one.
  SmallVector<Value> groupExtents(Location loc);
  /// Declares the block parameters on the physical kernel.
  void declareParams(pgpu::KernelOp kernel);
  /// Emits the workset at the group's coordinates (current insertion point); after groupExtents.
  LogicalResult emit(ArrayRef<Value> coords);

private:
  std::unique_ptr<FoldWorksetImpl> impl;
};

} // namespace tessel::construct

#endif // TESSEL_LIB_CONVERSION_KIRTOPGPU_FOLDWORKSET_H
