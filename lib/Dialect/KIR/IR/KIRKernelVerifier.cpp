//===- KIRKernelVerifier.cpp - whole-kernel KIR legality -------------------===//
//
// Rules that need more than one op (seed 002 §5.1): `out` views are not read
// before they are written, and iterations of a kir.parallel do not make
// conflicting non-atomic writes.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/KIR/IR/KIR.h"

#include "KIRVerifyUtils.h"
#include "mlir/IR/Dominance.h"

using namespace mlir;
using namespace tessel::kir;

namespace tessel::kir::detail {

/// The view an access op reads, when it reads one.
static Value getReadView(Operation *op) {
  if (isa<LoadOp, GatherOp, AtomicLoadOp, AtomicRMWOp, AtomicCASOp, ScatterReduceOp>(op))
    for (Value operand : op->getOperands())
      if (isa<ViewType>(operand.getType()))
        return operand;
  if (auto relation = dyn_cast<IndexRelationOp>(op))
    return relation.getMap();
  return {};
}

/// The view an access op writes, when it writes one.
static Value getWrittenView(Operation *op) {
  if (isa<StoreOp, ScatterOp, ScatterReduceOp, AtomicStoreOp, AtomicRMWOp, AtomicCASOp>(op))
    for (Value operand : op->getOperands())
      if (isa<ViewType>(operand.getType()))
        return operand;
  return {};
}

LogicalResult verifyKernelBody(KernelOp kernel) {
  // Out views: every read needs a write of the same view that dominates it.
  DenseMap<Value, SmallVector<Operation *>> writers;
  SmallVector<std::pair<Operation *, Value>> reads;
  kernel.walk([&](Operation *op) {
    if (Value view = getWrittenView(op))
      writers[view].push_back(op);
    if (Value view = getReadView(op))
      if (cast<ViewType>(view.getType()).getMode() == ViewMode::Out)
        reads.push_back({op, view});
  });
  if (reads.empty())
    return success();
  DominanceInfo dominance(kernel);
  for (auto [op, view] : reads) {
    bool written = llvm::any_of(writers[view], [&, op = op](Operation *writer) {
      return writer != op && dominance.properlyDominates(writer, op);
    });
    if (!written)
      return op->emitOpError() << "reads 'out' view argument #" << cast<BlockArgument>(view).getArgNumber()
                               << " before any write to it; declare the view 'inout' to read its initial contents";
  }
  return success();
}

/// True when `value` is computed from `iv` through the def-use graph.
static bool dependsOn(Value value, Value iv, DenseSet<Value> &visited) {
  if (value == iv)
    return true;
  if (!visited.insert(value).second)
    return false;
  Operation *def = value.getDefiningOp();
  if (!def)
    return false;
  return llvm::any_of(def->getOperands(), [&](Value operand) { return dependsOn(operand, iv, visited); });
}

/// Values that decide where (or whether) `write` writes, up to `parallel`.
static SmallVector<Value> getWriteDeciders(Operation *write, ParallelOp parallel) {
  SmallVector<Value> deciders;
  for (Value operand : write->getOperands())
    if (!isa<ViewType, BufferType>(operand.getType()))
      deciders.push_back(operand);
  // The stored value itself does not select the destination.
  if (!deciders.empty())
    deciders.erase(deciders.begin());
  for (Operation *parent = write->getParentOp(); parent && parent != parallel.getOperation();
       parent = parent->getParentOp()) {
    if (auto ifOp = dyn_cast<IfOp>(parent))
      deciders.push_back(ifOp.getCondition());
    else if (auto forOp = dyn_cast<ForOp>(parent))
      deciders.push_back(forOp.getDomain());
  }
  return deciders;
}

LogicalResult verifyParallelIndependence(ParallelOp op) {
  Block &body = op.getBody().front();
  WalkResult result = op.getBody().walk([&](Operation *write) {
    Value target;
    if (auto store = dyn_cast<StoreOp>(write))
      target = store.getView();
    else if (auto store = dyn_cast<BufferStoreOp>(write))
      target = store.getBuffer();
    else
      return WalkResult::advance(); // atomics, scatter_reduce and unique scatters may share
    // A buffer allocated inside the body is private to one iteration.
    if (op.getBody().isAncestor(target.getParentRegion()))
      return WalkResult::advance();
    SmallVector<Value> deciders = getWriteDeciders(write, op);
    for (auto [axis, iv] : llvm::enumerate(body.getArguments())) {
      DenseSet<Value> visited;
      if (llvm::any_of(deciders, [&](Value v) { return dependsOn(v, iv, visited); }))
        continue;
      write->emitOpError() << "writes the same elements in every iteration of the enclosing kir.parallel "
                              "(its coordinates do not depend on parallel index #"
                           << axis << "); use an atomic or kir.scatter_reduce, or index by the iteration";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

} // namespace tessel::kir::detail
