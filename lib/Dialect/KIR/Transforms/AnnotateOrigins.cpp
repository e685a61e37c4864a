//===- AnnotateOrigins.cpp - stable origin ids for kir ops -----------------===//
//
// Gives every op of a kir.kernel a `#kir.origin<kernel, id>` location tag, the
// stable identity later layers use as the origin of what they lower (seed 002
// §2.1). Ids are pre-order positions, deterministic for a given kernel.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/KIR/Transforms/Passes.h"

#include "mlir/IR/Location.h"

namespace tessel::kir {
#define GEN_PASS_DEF_KIRANNOTATEORIGINS
#include "tessel/Dialect/KIR/Transforms/Passes.h.inc"
} // namespace tessel::kir

using namespace mlir;
using namespace tessel::kir;

OriginAttr tessel::kir::getOrigin(Operation *op) {
  if (auto fused = dyn_cast<FusedLoc>(op->getLoc()))
    return dyn_cast_or_null<OriginAttr>(fused.getMetadata());
  return {};
}

namespace {
struct AnnotateOrigins : public tessel::kir::impl::KIRAnnotateOriginsBase<AnnotateOrigins> {
  void runOnOperation() override {
    for (KernelOp kernel : getOperation().getOps<KernelOp>()) {
      int64_t next = 0;
      StringAttr name = kernel.getSymNameAttr();
      kernel.walk<WalkOrder::PreOrder>([&](Operation *op) {
        int64_t id = next++;
        if (getOrigin(op))
          return;
        auto origin = OriginAttr::get(op->getContext(), name, id);
        op->setLoc(FusedLoc::get(op->getContext(), {op->getLoc()}, origin));
      });
    }
  }
};
} // namespace
