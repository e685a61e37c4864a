//===- SinkStores.cpp - a member's store moves after the uses of its old values -===//
//
// `s = x[m, cols] + r[m, cols]; r[m, cols] = s; y[m, cols] = f(s)` updates r in
// place and keeps using the sum: KIR reads r where the read stands (seed 000 §4),
// but construction realizes a tensor's elements where they are used, so a use of
// `s` after the store would read the stored values. The store commutes with every
// op that neither reads nor writes its view (distinct views do not alias: the
// launch checks it), so this pass moves it after the last use of a value computed
// from a read of that view before it, when nothing in between touches the view.
// Then construction sees the reads before the store, as written (the vLLM
// fused_add_rms_norm spelling, corpus 50). It runs before kir-annotate-origins:
// KIR is immutable once origins are assigned (seed 002 §2.1).
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/KIR/Transforms/Passes.h"

#include "llvm/ADT/SetVector.h"

namespace tessel::kir {
#define GEN_PASS_DEF_KIRSINKSTORES
#include "tessel/Dialect/KIR/Transforms/Passes.h.inc"
} // namespace tessel::kir

using namespace mlir;
using namespace tessel::kir;

namespace {

/// Whether `op` or an op nested in it names `view` as an operand (a read, write or atomic of it).
bool touches(Operation *op, Value view) {
  bool found = false;
  op->walk([&](Operation *inner) {
    if (llvm::is_contained(inner->getOperands(), view))
      found = true;
  });
  return found;
}

/// The last op of `block` after `store` that uses (through any chain of values) a tensor read of the
/// store's view made before it in the block; null when there is none.
Operation *lastUseOfOldValues(Block &block, StoreOp store) {
  Value view = store.getView();
  Operation *last = nullptr;
  for (Operation &op : block) {
    if (&op == store.getOperation())
      break;
    auto load = dyn_cast<LoadOp>(op);
    if (!load || load.getView() != view || !isa<RankedTensorType>(load.getType()))
      continue;
    SmallVector<Value> work{load.getResult()};
    DenseSet<Operation *> seen;
    while (!work.empty()) {
      Value v = work.pop_back_val();
      for (Operation *user : v.getUsers()) {
        if (!seen.insert(user).second)
          continue;
        Operation *at = block.findAncestorOpInBlock(*user);
        if (at && at != store.getOperation() && store->isBeforeInBlock(at) && (!last || last->isBeforeInBlock(at)))
          last = at;
        for (Value r : user->getResults())
          work.push_back(r);
      }
    }
  }
  return last;
}

struct SinkStores : tessel::kir::impl::KIRSinkStoresBase<SinkStores> {
  void runOnOperation() override {
    bool remarks = remarksEnabled(getOperation());
    getOperation().walk([&](ParallelOp par) {
      Block &block = par.getBody().front();
      // Stores in block order; a moved store is visited once more at its new place (it moves only
      // forward, past ops that do not touch its view, so this ends).
      SmallVector<StoreOp> stores;
      for (Operation &op : block)
        if (auto st = dyn_cast<StoreOp>(op))
          stores.push_back(st);
      for (StoreOp st : stores) {
        Operation *last = lastUseOfOldValues(block, st);
        if (!last)
          continue;
        bool clear = true;
        for (Operation *op = st->getNextNode(); op && clear; op = op->getNextNode()) {
          if (touches(op, st.getView()))
            clear = false;
          if (op == last)
            break;
        }
        if (!clear) {
          if (remarks)
            st.emitRemark() << "kir-sink-stores: the store stays: an op between it and the last use of the "
                               "view's old values reads or writes the view";
          continue;
        }
        st->moveAfter(last);
        if (remarks)
          st.emitRemark() << "kir-sink-stores: the store moves after the last use of values read from its view "
                             "before it (construction realizes a read where its value is used)";
      }
    });
  }
};

} // namespace
