//===- FlattenParallels.cpp - a parallel nest becomes one parallel ---------===//
//
// `for b in T.parallel(dB): for h in T.parallel(dH): ...` and
// `for b, h in T.parallel(dB, dH): ...` mean the same independent iterations
// (kir.parallel: members independent, so members of members are too); only the
// second is constructed. This pass rewrites a perfect nest (the outer body is
// some side-effect-free computation or reads, then the inner parallel) into one
// kir.parallel over the outer domains then the inner ones, the outer body's ops
// recomputed per member (issue 41: canonical forms, not spellings). Reads in the
// outer body move into every member, so they must read views the inner body does
// not write; the inner domains must not depend on the outer members (a triangular
// nest is not a product). It runs first among the KIR passes, before
// kir-annotate-origins: KIR is immutable once origins are assigned (seed 002 §2.1).
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/KIR/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace tessel::kir {
#define GEN_PASS_DEF_KIRFLATTENPARALLELS
#include "tessel/Dialect/KIR/Transforms/Passes.h.inc"
} // namespace tessel::kir

using namespace mlir;
using namespace tessel::kir;

namespace {

/// Whether some op in `region` writes `view` (names it as an operand without being a plain read).
bool writes(Region &region, Value view) {
  bool found = false;
  region.walk([&](Operation *op) {
    if (!isa<LoadOp, GatherOp, IndexRelationOp>(op) && llvm::is_contained(op->getOperands(), view))
      found = true;
  });
  return found;
}

/// Collects into `hoist` (in def order) the ops of `outer`'s body that `v` needs, when `v` can be
/// computed before `outer`: defined outside it, or by side-effect-free ops of its body that do not
/// read its members. False otherwise.
bool hoistable(Value v, ParallelOp outer, llvm::SetVector<Operation *> &hoist) {
  Operation *def = v.getDefiningOp();
  if (!def) {
    auto arg = cast<BlockArgument>(v);
    return arg.getOwner()->getParentOp() != outer.getOperation() && !outer->isAncestor(arg.getOwner()->getParentOp());
  }
  if (!outer->isAncestor(def))
    return true;
  if (def->getBlock() != &outer.getBody().front() || def->getNumRegions() || !isMemoryEffectFree(def))
    return false;
  for (Value x : def->getOperands())
    if (!hoistable(x, outer, hoist))
      return false;
  hoist.insert(def);
  return true;
}

struct FlattenParallels : tessel::kir::impl::KIRFlattenParallelsBase<FlattenParallels> {
  void runOnOperation() override {
    bool remarks = remarksEnabled(getOperation());
    // Innermost nests first: a three-level nest flattens its inner pair, then the outer one.
    SmallVector<ParallelOp> all;
    getOperation().walk([&](ParallelOp p) { all.push_back(p); });
    for (ParallelOp outer : all) {
      std::string why;
      ParallelOp inner = perfectInner(outer, why);
      if (!inner) {
        if (remarks && !why.empty())
          outer.emitRemark() << "kir-flatten-parallels: the nest stays: " << why;
        continue;
      }
      if (remarks)
        inner.emitRemark() << "kir-flatten-parallels: this parallel and the one around it became one "
                              "parallel over both domains";
      flatten(outer, inner); // erases both
    }
  }

  /// The inner parallel of a perfect nest, or null with `why` set when the nest is not one.
  ParallelOp perfectInner(ParallelOp outer, std::string &why) {
    Block &body = outer.getBody().front();
    ParallelOp inner;
    for (Operation &op : body)
      if (auto p = dyn_cast<ParallelOp>(op)) {
        if (inner) {
          why = "its body holds two parallels";
          return {};
        }
        inner = p;
      }
    if (!inner)
      return {};
    if (inner->getNextNode() != body.getTerminator()) {
      why = "ops follow the inner parallel in the outer body";
      return {};
    }
    for (Operation *op = &body.front(); op != inner.getOperation(); op = op->getNextNode()) {
      if (isMemoryEffectFree(op))
        continue;
      if (!isa<LoadOp, GatherOp, IndexRelationOp>(op)) {
        why = (Twine("'") + op->getName().getStringRef() + "' in the outer body has effects").str();
        return {};
      }
      if (writes(inner.getBody(), op->getOperand(0))) {
        why = "the outer body reads a view the inner parallel writes";
        return {};
      }
    }
    llvm::SetVector<Operation *> hoist;
    for (Value d : inner.getDomains())
      if (!hoistable(d, outer, hoist)) {
        why = "an inner domain depends on the outer members (not a product of domains)";
        return {};
      }
    return inner;
  }

  void flatten(ParallelOp outer, ParallelOp inner) {
    OpBuilder b(outer);
    IRMapping map;
    llvm::SetVector<Operation *> hoist;
    for (Value d : inner.getDomains())
      (void)hoistable(d, outer, hoist);
    // Hoisted ops in body order (operands before users).
    SmallVector<Operation *> ordered(hoist.begin(), hoist.end());
    llvm::sort(ordered, [](Operation *a, Operation *c) { return a->isBeforeInBlock(c); });
    for (Operation *op : ordered)
      b.clone(*op, map);
    SmallVector<Value> domains(outer.getDomains());
    for (Value d : inner.getDomains())
      domains.push_back(map.lookupOrDefault(d));
    auto merged = ParallelOp::create(b, outer.getLoc(), domains);
    merged->setAttrs(outer->getAttrs());
    Block *block = b.createBlock(&merged.getBody());
    SmallVector<Location> locs;
    for (Value d : domains)
      locs.push_back(d.getLoc());
    for (Location l : locs)
      block->addArgument(b.getIndexType(), l);
    IRMapping body;
    Block &ob = outer.getBody().front(), &ib = inner.getBody().front();
    for (auto [i, arg] : llvm::enumerate(ob.getArguments()))
      body.map(arg, block->getArgument(i));
    for (auto [i, arg] : llvm::enumerate(ib.getArguments()))
      body.map(arg, block->getArgument(ob.getNumArguments() + i));
    b.setInsertionPointToEnd(block);
    for (Operation &op : ob) {
      if (&op == inner.getOperation())
        break;
      if (hoist.contains(&op)) { // computed once, before the merged parallel
        for (Value r : op.getResults())
          body.map(r, map.lookup(r));
        continue;
      }
      b.clone(op, body);
    }
    for (Operation &op : ib)
      b.clone(op, body);
    outer.erase();
  }
};

} // namespace
