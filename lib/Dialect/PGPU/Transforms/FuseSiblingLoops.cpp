//===- FuseSiblingLoops.cpp - a K loop takes the reductions over its tiles ===//
//
// seed 002 §3.4 (co-realization: a value read by several consumers is read
// once). A contraction's epilogue that uses per-row quantities of its operands,
// |a_i|^2 + |b_j|^2 - 2 a_i . b_j or <a_i, b_j> / (|a_i| |b_j|), is tiled by
// pgpu-form-tiles as one loop per reduction over the same k range: the GEMM's
// K loop and a loop per norm, each reading the operand tiles the K loop reads.
// When two sibling loops walk the same range with the same step, neither writes
// memory, neither uses what the other computes, exactly one of them holds a
// contraction and they read something at the same coordinates, they become one
// loop whose body is the first's then the second's, carrying both loops'
// values; the CSE after blocking reads the shared tiles once. Each carry sees
// the same values in the same order as before (the bodies are pure functions of
// the index and their own carries), so the result is bit-identical.
//
//   %n = pgpu.for %lo to %hi step %s iter_args(%z)  { ^(%k, %c): ... yield rowsum(x(k) * x(k)) + %c }
//   %m = <pure code of %n>
//   %a = pgpu.for %lo to %hi step %s iter_args(%z2) { ^(%k, %c): ... yield contract(x(k), y(k), %c) }
//   ->
//   %n, %a = pgpu.for %lo to %hi step %s iter_args(%z, %z2) { ^(%k, %c, %d): <both bodies> }
//   %m = <pure code of %n>
//
// The fused loop takes the second loop's place; the code between the two that
// depends on the first loop's results (pure, and not used by the second) moves
// after it, the rest stays before it (it must not write memory: the first
// loop's reads move past it).
//
// Must not fire: other bounds or steps; neither loop holding a contraction
// (a row's sum and sum of squares stay the loops pgpu-stage-rows and
// pgpu-pack-rows read); both holding one (SwiGLU's gate and up products of one
// x: one loop would keep two accumulator tiles live, a register budget the
// tile choice does not plan for); a write in either loop or between them; the second
// loop using the first's results (the layer norm's variance after its mean);
// loops that share no read.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUFUSESIBLINGLOOPS
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

namespace {

bool holdsContract(ForOp loop) { return !loop.getBody().front().getOps<ContractOp>().empty(); }

/// Whether `op` or an op in its regions uses a result of an op in `defs`.
bool usesAny(Operation *op, const llvm::SmallPtrSetImpl<Operation *> &defs) {
  bool uses = false;
  op->walk([&](Operation *inner) {
    for (Value v : inner->getOperands())
      if (Operation *def = v.getDefiningOp(); def && defs.contains(def))
        uses = true;
  });
  return uses;
}

/// The ops strictly between `first` and `second` that depend on `first`'s results, in order, when
/// `first` can move down into `second`'s place; std::nullopt when it cannot.
std::optional<SmallVector<Operation *>> dependentsBetween(ForOp first, ForOp second) {
  llvm::SmallPtrSet<Operation *, 16> after{first.getOperation()};
  SmallVector<Operation *> moved;
  for (Operation *op = first->getNextNode(); op != second.getOperation(); op = op->getNextNode()) {
    if (usesAny(op, after)) {
      // Moves after the fused loop: only pure code may change its place among the reads.
      if (!isMemoryEffectFree(op))
        return std::nullopt;
      after.insert(op);
      moved.push_back(op);
    } else if (!readsOnly(op)) {
      return std::nullopt; // the first loop's reads would move past a write
    }
  }
  if (usesAny(second, after))
    return std::nullopt;
  return moved;
}

/// One loop in `second`'s place: `first`'s body, then `second`'s; `moved` goes after it.
void fuse(ForOp first, ForOp second, ArrayRef<Operation *> moved) {
  OpBuilder b(second);
  SmallVector<Type> types(first.getResultTypes());
  llvm::append_range(types, second.getResultTypes());
  SmallVector<Value> inits(first.getInits());
  llvm::append_range(inits, second.getInits());
  auto fused = ForOp::create(b, second.getLoc(), types, first.getLower(), first.getUpper(), first.getStep(), inits);
  Block *body = b.createBlock(&fused.getBody());
  Value k = body->addArgument(b.getIndexType(), second.getLoc());
  IRMapping map;
  SmallVector<Value> yielded;
  for (ForOp loop : {first, second}) {
    Block &from = loop.getBody().front();
    map.map(from.getArgument(0), k);
    for (BlockArgument carry : from.getArguments().drop_front())
      map.map(carry, body->addArgument(carry.getType(), carry.getLoc()));
  }
  for (ForOp loop : {first, second}) {
    Block &from = loop.getBody().front();
    for (Operation &op : from.without_terminator())
      b.clone(op, map);
    for (Value v : from.getTerminator()->getOperands())
      yielded.push_back(map.lookupOrDefault(v));
  }
  YieldOp::create(b, second.getLoc(), yielded);
  unsigned n1 = first.getNumResults();
  for (auto [i, r] : llvm::enumerate(first.getResults()))
    r.replaceAllUsesWith(fused.getResult(i));
  for (auto [i, r] : llvm::enumerate(second.getResults()))
    r.replaceAllUsesWith(fused.getResult(n1 + i));
  Operation *last = fused;
  for (Operation *op : moved) {
    op->moveAfter(last);
    last = op;
  }
  second.erase();
  first.erase();
  if (remarksEnabled(fused))
    emitRemark(fused.getLoc()) << "pgpu-fuse-sibling-loops: a contraction's K loop and a sibling loop over the same "
                                  "range reading the same tiles became one loop (the shared tiles read once)";
}

struct FuseSiblingLoops : public tessel::pgpu::impl::PGPUFuseSiblingLoopsBase<FuseSiblingLoops> {
  void runOnOperation() override {
    // A loop takes its nearest fusable earlier sibling; the fused loop may then take another (the
    // norms of both operands of one GEMM), so repeat until nothing fuses.
    bool changed = true;
    while (changed) {
      changed = false;
      ForOp first, second;
      SmallVector<Operation *> moved;
      getOperation().walk([&](ForOp loop) {
        if (first)
          return;
        for (Operation *op = loop->getPrevNode(); op; op = op->getPrevNode()) {
          auto earlier = dyn_cast<ForOp>(op);
          if (!earlier || !sameLoopIndex(earlier.getLower(), loop.getLower()) ||
              !sameLoopIndex(earlier.getUpper(), loop.getUpper()) ||
              !sameLoopIndex(earlier.getStep(), loop.getStep()) ||
              holdsContract(earlier) == holdsContract(loop) || !readsOnly(earlier) || !readsOnly(loop) ||
              !loopsShareRead(earlier, loop))
            continue;
          if (std::optional<SmallVector<Operation *>> between = dependentsBetween(earlier, loop)) {
            first = earlier;
            second = loop;
            moved = std::move(*between);
            return;
          }
        }
      });
      if (first) {
        fuse(first, second, moved);
        changed = true;
      }
    }
  }
};
} // namespace
