//===- DynamicWalk.cpp - a segment walk's tiles taken from a counter -------===//
//
// seed 002 §3.2 (rewrite the program space: which instance owns which
// work), seed 000 §4.4 (invocation workspace), §9 (atomics with order and
// sharing domain).
//
// pgpu-form-tiles' segment walk (a ragged grouped GEMM's groups) deals tile
// base + t of each segment to program (base + t) mod programs: program p
// runs tiles p, p + P, p + 2P, ... of the global order. The tiles of one
// segment that share an operand strip (the row tiles of one column strip:
// consecutive in the grouped traversal) run on consecutive programs, so they
// share that strip in L2 only while those programs stay in step. With ragged
// segments they do not: a small segment's tiles read their strips alone (from
// HBM), a large one's from L2, the programs drift apart, and strips are read
// again. On the H200 (bf16, 64 groups summing to 32768 rows, N = K = 4096)
// the generated walk read 5.5 GB from HBM against 2.4 GB for 64 equal groups
// of the same rows (2.89 against 1.84 ms under ncu); rounding the ragged
// sizes to whole tiles did not help, so the sizes' spread, not the partial
// tiles, is the cause (measured in session 15).
//
// Here each program instead takes the next tile of the global order when it
// finishes one, from a counter in invocation workspace:
//
//   T = atomic_rmw add 1, counter[0]                 (relaxed: only a ticket)
//   for o in [0, members) iter_args(base = 0, T):
//     ...the segment's bounds and tile count, as before...
//     T = while T < base + count:  the tile (base + t = T), T = atomic add 1
//     yield base + count, T
//
// so tiles start in the global order whatever each one cost, and the tiles
// that share a strip start together. The set of tiles and each tile's work
// are unchanged: every tile runs exactly once (the counter hands out each
// value once), in one program, with the same body, so results are the same
// bit for bit. The counter is workspace the runtime fills with 0 (one i32).
// Hand-edited on the H200 this took the ragged case from 2.62 to 1.99 ms
// (0.69x -> 0.91x torch._grouped_mm) and left 64 equal groups alone (1.87 /
// 1.83 ms).
//
// Fires on a `segment walk` execution group whose body holds the members loop
// (one index carry) and, directly in it, the tiles loop (stepping by the
// group's extent, the program count, without carries). Must not fire
// otherwise (no segment walk, or a walk already taken from a counter).
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUDYNAMICWALK
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;
using namespace tessel::pgpu::build;

namespace {

/// The walk's members loop and tiles loop, or nulls.
std::pair<ForOp, ForOp> walkLoops(ExecutionGroupOp group) {
  if (group.getExtents().size() != 1)
    return {};
  Value programs = group.getExtents()[0];
  for (auto members : group.getBody().front().getOps<ForOp>()) {
    if (members.getInits().size() != 1 || !members.getInits()[0].getType().isIndex())
      continue;
    for (auto tiles : members.getBody().front().getOps<ForOp>())
      if (tiles.getInits().empty() && tiles.getStep() == programs)
        return {members, tiles};
  }
  return {};
}

struct DynamicWalk : public tessel::pgpu::impl::PGPUDynamicWalkBase<DynamicWalk> {
  void runOnOperation() override {
    for (KernelOp kernel : getOperation().getOps<KernelOp>()) {
      bool remarks = remarksEnabled(kernel);
      SmallVector<ExecutionGroupOp> walks;
      kernel.walk([&](ExecutionGroupOp g) {
        if (g.isSegmentWalk())
          walks.push_back(g);
      });
      for (ExecutionGroupOp g : walks) {
        auto [members, tiles] = walkLoops(g);
        if (!members) {
          if (remarks)
            g.emitRemark() << "pgpu-dynamic-walk: not rewritten: no members loop holding a tiles loop that "
                              "steps by the program count (a walk already taken from a counter, or another shape)";
          continue;
        }
        rewrite(kernel, members, tiles);
        if (remarks)
          g.emitRemark() << "pgpu-dynamic-walk: each program takes the next tile of the walk from a workspace "
                            "counter when it finishes one (tiles that share an operand strip start together)";
      }
    }
  }

  void rewrite(KernelOp kernel, ForOp members, ForOp tiles) {
    Location loc = tiles.getLoc();
    MLIRContext *ctx = kernel.getContext();
    OpBuilder b(members);
    Type idx = b.getIndexType(), i32 = b.getI32Type();
    Value counter = addZeroedCounters(kernel, loc, {IntegerAttr::get(IntegerType::get(ctx, 64), 1)});
    Value yes = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
    auto take = [&](OpBuilder &at) -> Value {
      Value one = arith::ConstantIntOp::create(at, loc, i32, 1);
      Value zero = index(at, loc, 0);
      Value old = AtomicRMWOp::create(at, loc, i32, kir::RMWKind::Add, one, counter, ValueRange{zero}, yes,
                                      kir::AtomicOrder::Relaxed, kir::SharingDomain::Invocation);
      return CastOp::create(at, loc, idx, old);
    };
    Value first = take(b);

    // The members loop gains the next tile as a second carry.
    SmallVector<Value> inits{members.getInits()[0], first};
    auto walk = ForOp::create(b, loc, TypeRange{idx, idx}, members.getLower(), members.getUpper(),
                              members.getStep(), inits);
    Block *body = b.createBlock(&walk.getBody());
    Block &old = members.getBody().front();
    IRMapping map;
    map.map(old.getArgument(0), body->addArgument(idx, loc));
    map.map(old.getArgument(1), body->addArgument(idx, loc));
    Value next = body->addArgument(idx, loc);
    for (Operation &op : old.without_terminator()) {
      if (&op != tiles.getOperation()) {
        b.clone(op, map);
        continue;
      }
      // while T < base + count: the tile base + t = T, then the next one.
      Value base = map.lookup(old.getArgument(1));
      Value end = bin(b, loc, kir::BinaryKind::Add, base, map.lookupOrDefault(tiles.getUpper()));
      auto loop = WhileOp::create(b, loc, TypeRange{idx}, ValueRange{next});
      {
        OpBuilder::InsertionGuard guard(b);
        Block *before = b.createBlock(&loop.getBefore());
        Value t = before->addArgument(idx, loc);
        ConditionOp::create(b, loc, cmp(b, loc, kir::CmpPredicate::LT, t, end), ValueRange{t});
        Block *after = b.createBlock(&loop.getAfter());
        Value mine = after->addArgument(idx, loc);
        Block &tileBody = tiles.getBody().front();
        map.map(tileBody.getArgument(0), bin(b, loc, kir::BinaryKind::Sub, mine, base));
        for (Operation &inner : tileBody.without_terminator())
          b.clone(inner, map);
        YieldOp::create(b, loc, ValueRange{take(b)});
      }
      next = loop.getResult(0);
    }
    auto yield = cast<YieldOp>(old.getTerminator());
    YieldOp::create(b, loc, ValueRange{map.lookupOrDefault(yield.getOperand(0)), next});
    members.getResult(0).replaceAllUsesWith(walk.getResult(0));
    members.erase();
    // The static walk's first tile (the old loop's lower bound) is used by nothing now.
    SmallVector<Operation *> ops;
    body->walk([&](Operation *op) { ops.push_back(op); });
    for (Operation *op : llvm::reverse(ops))
      if (op->getBlock() == body && isOpTriviallyDead(op))
        op->erase();
  }
};
} // namespace
