//===- FuseContractLoops.cpp - sibling K loops of one accumulator share reads ===//
//
// seed 002 §3.4 (co-realization: a value read by several consumers is read
// once) and seed 000 §8 (a contraction's sum may be regrouped): a sum of two
// contractions over the same k range, `x[:, 2j] . a(j) + x[:, 2j+1] . b(j)`
// with a and b computed from one read of w[:, j], is tiled by pgpu-form-tiles
// as two K loops, the second continuing the first's accumulator. Each loop
// reads w: twice the bytes of one pass. When the two loops walk the same
// range with the same step, the carry is only ever a contraction accumulator
// in both, neither loop writes memory, and the second reads something the
// first reads at the same coordinates, they become one loop whose body is the
// first's then the second's: the accumulator takes both blocks' terms per
// iteration (the sum regrouped), and CSE then merges the repeated reads.
//
//   %a = pgpu.for %lo to %hi step %s iter_args(%z) { ^(%k, %c): ... yield contract(l1, r1, %c) }
//   %b = pgpu.for %lo to %hi step %s iter_args(%a) { ^(%k, %c): ... yield contract(l2, r2, %c) }
//   ->
//   %b = pgpu.for %lo to %hi step %s iter_args(%z) {
//        ^(%k, %c): ...; %c1 = contract(l1, r1, %c); ...; yield contract(l2, r2, %c1) }
//
// Must not fire: other bounds or steps; a carry used other than as a
// contraction's accumulator (a maximum, a rescaling: the order matters);
// the first loop's result used elsewhere; a write in either loop or between
// them; no read the two loops share (taps of a convolution over different
// windows: nothing to save).
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUFUSECONTRACTLOOPS
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

namespace {

/// Value equivalence across the two loop bodies: the same value, the two induction variables, or
/// results of equivalent region-free ops computed from equivalent operands.
class Equivalence {
public:
  Equivalence(ForOp first, ForOp second) : first(first), second(second) {}

  bool operator()(Value a, Value b) {
    if (a == b)
      return true;
    if (a == first.getBody().front().getArgument(0) && b == second.getBody().front().getArgument(0))
      return true;
    auto key = std::make_pair(a, b);
    if (auto it = memo.find(key); it != memo.end())
      return it->second;
    memo[key] = false; // no cycles in SSA, but keep recursion finite
    Operation *da = a.getDefiningOp(), *db = b.getDefiningOp();
    bool same = da && db && first->isProperAncestor(da) && second->isProperAncestor(db) &&
                da->getNumRegions() == 0 && db->getNumRegions() == 0 &&
                cast<OpResult>(a).getResultNumber() == cast<OpResult>(b).getResultNumber() &&
                OperationEquivalence::isEquivalentTo(
                    da, db, [&](Value x, Value y) { return success((*this)(x, y)); }, nullptr,
                    OperationEquivalence::IgnoreLocations);
    return memo[key] = same;
  }

private:
  ForOp first, second;
  llvm::DenseMap<std::pair<Value, Value>, bool> memo;
};

} // namespace

/// Whether nothing in `op` (its regions included) writes, allocates or frees memory.
bool pgpu::readsOnly(Operation *op) {
  std::optional<SmallVector<MemoryEffects::EffectInstance>> effects = getEffectsRecursively(op);
  return effects && llvm::all_of(*effects, [](const MemoryEffects::EffectInstance &e) {
           return isa<MemoryEffects::Read>(e.getEffect());
         });
}

/// Whether `second` reads something `first` reads: an access op of the same kind on the same view
/// at equivalent coordinates, validity and fill.
bool pgpu::loopsShareRead(ForOp first, ForOp second) {
  SmallVector<Operation *> reads;
  first.getBody().walk([&](Operation *op) {
    if (isa<LoadOp, GatherOp>(op))
      reads.push_back(op);
  });
  Equivalence eq(first, second);
  bool shared = false;
  second.getBody().walk([&](Operation *op) {
    if (shared || !isa<LoadOp, GatherOp>(op))
      return;
    for (Operation *r : reads)
      if (eq(r->getResult(0), op->getResult(0)))
        shared = true;
  });
  return shared;
}

/// Whether index values `a` and `b` are equal: one value, or two reads of one parameter (each loop
/// pgpu-form-tiles builds reads TILE_K itself), or equal constants.
bool pgpu::sameLoopIndex(Value a, Value b) {
  if (a == b)
    return true;
  if (auto pa = a.getDefiningOp<ParamOp>())
    if (auto pb = b.getDefiningOp<ParamOp>())
      return pa.getName() == pb.getName() && pa.getType() == pb.getType();
  llvm::APInt ca, cb;
  return matchPattern(a, m_ConstantInt(&ca)) && matchPattern(b, m_ConstantInt(&cb)) && ca == cb;
}

namespace {

/// Whether `loop` carries one value that is, inside its body, only a contraction accumulator:
/// the carry feeds a chain of pgpu.contract ops (as their accumulator) whose last result is yielded.
bool accumulatesOnly(ForOp loop) {
  if (loop.getInits().size() != 1)
    return false;
  Block &body = loop.getBody().front();
  Value v = body.getArgument(1);
  while (v.hasOneUse()) {
    Operation *user = *v.getUsers().begin();
    if (isa<YieldOp>(user))
      return user->getParentOp() == loop;
    auto c = dyn_cast<ContractOp>(user);
    if (!c || c.getAcc() != v || c.getType() != v.getType())
      return false;
    v = c.getResult();
  }
  return false;
}

/// The loop whose init is `first`'s only result and that can take `first`'s body, or null.
ForOp fusableSuccessor(ForOp first) {
  if (first.getNumResults() != 1 || !first.getResult(0).hasOneUse() || !accumulatesOnly(first) ||
      !pgpu::readsOnly(first))
    return ForOp();
  auto second = dyn_cast<ForOp>(*first.getResult(0).getUsers().begin());
  if (!second || second->getBlock() != first->getBlock() || second.getInits().size() != 1 ||
      second.getInits()[0] != first.getResult(0) || !sameLoopIndex(second.getLower(), first.getLower()) ||
      !sameLoopIndex(second.getUpper(), first.getUpper()) || !sameLoopIndex(second.getStep(), first.getStep()) ||
      second.getResult(0).getType() != first.getResult(0).getType() || !accumulatesOnly(second) ||
      !pgpu::readsOnly(second))
    return ForOp();
  // What lies between is moved above the first loop: it must be free of effects.
  for (Operation *op = first->getNextNode(); op != second.getOperation(); op = op->getNextNode())
    if (!isMemoryEffectFree(op))
      return ForOp();
  if (!loopsShareRead(first, second))
    return ForOp();
  return second;
}

/// One loop over the shared range: `first`'s body, then `second`'s continuing its accumulator.
void fuse(ForOp first, ForOp second) {
  // Values computed between the loops (pure) move above the first, so they dominate the fused body.
  while (first->getNextNode() != second.getOperation())
    first->getNextNode()->moveBefore(first);
  OpBuilder b(second);
  auto fused = ForOp::create(b, second.getLoc(), second.getResultTypes(), first.getLower(), first.getUpper(),
                             first.getStep(), first.getInits());
  Block &from1 = first.getBody().front(), &from2 = second.getBody().front();
  Block *body = b.createBlock(&fused.getBody());
  Value k = body->addArgument(from1.getArgument(0).getType(), second.getLoc());
  Value acc = body->addArgument(from1.getArgument(1).getType(), second.getLoc());
  IRMapping map;
  map.map(from1.getArgument(0), k);
  map.map(from1.getArgument(1), acc);
  for (Operation &op : from1.without_terminator())
    b.clone(op, map);
  Value partial = map.lookupOrDefault(from1.getTerminator()->getOperand(0));
  map.map(from2.getArgument(0), k);
  map.map(from2.getArgument(1), partial);
  for (Operation &op : from2.without_terminator())
    b.clone(op, map);
  YieldOp::create(b, second.getLoc(), ValueRange{map.lookupOrDefault(from2.getTerminator()->getOperand(0))});
  second.getResult(0).replaceAllUsesWith(fused.getResult(0));
  second.erase();
  first.erase();
  if (remarksEnabled(fused))
    emitRemark(fused.getLoc()) << "pgpu-fuse-contract-loops: two K loops of one accumulator over the same range "
                                  "became one (their shared reads read once)";
}

struct FuseContractLoops : public tessel::pgpu::impl::PGPUFuseContractLoopsBase<FuseContractLoops> {
  void runOnOperation() override {
    // A chain of several loops fuses pairwise, first into second, then the fused loop into the next.
    bool changed = true;
    while (changed) {
      changed = false;
      ForOp first, second;
      getOperation().walk([&](ForOp loop) {
        if (first)
          return;
        if (ForOp next = fusableSuccessor(loop)) {
          first = loop;
          second = next;
        }
      });
      if (first) {
        fuse(first, second);
        changed = true;
      }
    }
  }
};
} // namespace
