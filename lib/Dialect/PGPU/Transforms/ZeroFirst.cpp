//===- ZeroFirst.cpp - split partials added into a zeroed output tile ------===//
//
// seed 000 §4.4 (tickets: acq_rel arrivals), §6 (scatter-reduce: collisions
// combine), §9 (atomics with order and sharing domain); seed 002 §4 (an
// ordinary reduce reassociated and permuted under its contract); seed 002
// §3.2 (program instances hand values to each other through memory).
//
// pgpu-atomic-partials leaves a tiled split-K finalization as
//
//   scatter_reduce add %partial, %Sum[m, n]          (every split s, as it ends)
//   last_program %tickets[m0, n0] arrivals S {
//     %sum = buffer_load %Sum[m, n]; buffer_store 0, %Sum[m, n]
//     store %sum, %C[m, n]
//   }
//
// Its last arrival reads, zeroes and writes one tile alone after everyone else
// is done: on the H200 (bf16 512x512x65536, 128x128 tiles, SPLITS 8) that
// serial pass is ~2.5 of the ~3.3 us the merge adds to a 47.5 us main loop,
// which left the kernel at 0.98x cuBLAS. Here the split-0 instance zeroes C's
// tile when it starts (beside its pipeline's first loads) and arrives at the
// tile's ticket then; every other instance, when it ends, waits until the
// ticket is nonzero (only split 0 can make it so: the others arrive after
// waiting; it was set ~a main loop earlier, so one read), adds its partial into
// C with atomics and arrives; split 0 adds its own partial at its end. The last
// arrival has nothing left to do; its reset returns the ticket to 0. No
// serial pass remains: the tail is the adds and a ticket (hand-edited on the
// H200: 48.9 against 50.8 us, cuBLAS 49.4; session 17).
//
// Waiting on split 0 needs it to have started. An instance waits only on the
// split-0 instance of its own tile, whose linear index is smaller (the arrival
// axis must be the group's slowest); with one work item per program instance
// that is a program started earlier, as pgpu-chain-scans relies on (CUDA
// starts thread blocks in linear order; the interpreter runs a space that
// waits so). A persistent walk may give one program several items, so the
// kernel takes the new form only when the walk's items fit its programs (a
// launch-uniform test) and keeps the old one otherwise.
//
// Fires on a ticketed pgpu.last_program at the top level of an execution group
// (directly in the program space, or the only op of a persistent walk
// `pgpu.for %pid to %items step %programs`), whose arrivals are the group's
// first (slowest) axis, whose body is exactly that read of a kept workspace
// Sum, its store of 0 and a store of the read value to a view C of Sum's
// element type at the same coordinates and validity, where Sum is otherwise
// only the target of one add scatter-reduce at the group's top level before
// it at those coordinates, and C is written nowhere else and read nowhere; and
// the group body has a loop (the main loop) before which the tile's
// coordinates can be computed. Must not fire otherwise (another body, a C of
// another element type or used elsewhere, the arrivals along a faster axis,
// any other nesting).
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUZEROFIRST
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;
using namespace tessel::pgpu::build;

namespace {

/// Whether `combine` (singleBinaryCombine's) is an add.
bool isAdd(BinaryOp combine) { return combine && combine.getKind() == kir::BinaryKind::Add; }

struct Candidate {
  LastProgramOp last;
  ExecutionGroupOp group;
  ScatterReduceOp merge;
  BufferLoadOp read;
  BufferStoreOp zero;
  StoreOp out;
  ForOp walk;            // the persistent walk around the group, or null
  Operation *mainLoop = nullptr; // the first loop of the group body: the zeroing goes before it
  BlockArgument split;   // the arrival axis's coordinate
};

FailureOr<Candidate> match(LastProgramOp last, std::string &why) {
  auto fail = [&](const Twine &w) {
    why = w.str();
    return failure();
  };
  Candidate c;
  c.last = last;
  c.group = dyn_cast<ExecutionGroupOp>(last->getParentOp());
  if (!last.isTicketed() || !c.group)
    return fail("not a ticketed finalization at an execution group's top level");
  Block &groupBody = c.group.getBody().front();
  // The arrival axis: the group's first (slowest) axis, not named by the ticket, of extent `arrivals`.
  if (groupBody.getNumArguments() < 1 || c.group.getExtents()[0] != last.getArrivals() ||
      llvm::is_contained(last.getCoords(), Value(groupBody.getArgument(0))))
    return fail("the arrivals are not the instances along the group's slowest axis");
  c.split = groupBody.getArgument(0);
  // The nesting: the group directly in the program space, or the only op of a persistent walk there.
  Operation *parent = c.group->getParentOp();
  if (auto walk = dyn_cast<ForOp>(parent)) {
    auto space = dyn_cast<ProgramSpaceOp>(walk->getParentOp());
    Block &walkBody = walk.getBody().front();
    if (!space || space.getExtents().size() != 1 || walk.getLower() != space.getBody().front().getArgument(0) ||
        walk.getStep() != space.getExtents()[0] || &walkBody.front() != c.group.getOperation() ||
        !isa<YieldOp>(c.group->getNextNode()) || !walk.getResults().empty() ||
        c.group.getLinear() != walkBody.getArgument(0))
      return fail("the group is not the only op of a persistent walk over the program space");
    c.walk = walk;
  } else if (auto space = dyn_cast<ProgramSpaceOp>(parent)) {
    if (space.getExtents().size() != 1 || c.group.getLinear() != space.getBody().front().getArgument(0))
      return fail("the group's items are not the program instances' linear indices");
  } else {
    return fail("the group is neither in the program space nor its persistent walk");
  }
  // The body: read Sum, store 0 back, store the read value to C.
  SmallVector<Operation *> body; // constants aside
  for (Operation &op : last.getBody().front().without_terminator())
    if (!op.hasTrait<OpTrait::ConstantLike>())
      body.push_back(&op);
  if (body.size() != 3)
    return fail("the finalization is not a read of the merged sum, its zeroing and one store");
  c.read = dyn_cast<BufferLoadOp>(body[0]);
  c.zero = dyn_cast<BufferStoreOp>(body[1]);
  c.out = dyn_cast<StoreOp>(body[2]);
  if (!c.read || !c.zero || !c.out)
    return fail("the finalization is not a read of the merged sum, its zeroing and one store");
  Value sum = c.read.getBuffer();
  auto sumArg = dyn_cast<BlockArgument>(sum);
  auto kernel = last->getParentOfType<KernelOp>();
  if (!sumArg || sumArg.getOwner()->getParentOp() != kernel.getOperation() ||
      !kernel.getArgAttr(sumArg.getArgNumber(), "pgpu.kept"))
    return fail("the read is not of a kept workspace sum");
  Type element = cast<BufferType>(sum.getType()).getElementType();
  auto view = cast<ViewType>(c.out.getView().getType());
  if (c.zero.getBuffer() != sum || !isZeroConstant(c.zero.getValue()) || c.out.getValue() != c.read.getResult() ||
      view.getElementType() != element)
    return fail("the store is not of the merged sum, into a view of its element type");
  if (c.zero.getCoords() != c.read.getCoords() || c.out.getCoords() != c.read.getCoords() ||
      c.zero.getValid() != c.read.getValid() || c.out.getValid() != c.read.getValid())
    return fail("the sum is not read, zeroed and stored at the same coordinates and validity");
  if (!c.out.getView().hasOneUse())
    return fail("the output view is accessed elsewhere");
  // Sum's other use: one add scatter-reduce at the group's top level before the finalization.
  for (OpOperand &use : sum.getUses()) {
    Operation *user = use.getOwner();
    if (user == c.read.getOperation() || user == c.zero.getOperation())
      continue;
    auto merge = dyn_cast<ScatterReduceOp>(user);
    if (!merge || c.merge)
      return fail("the merged sum is used elsewhere");
    c.merge = merge;
  }
  if (!c.merge || c.merge->getBlock() != &groupBody || !c.merge->isBeforeInBlock(last) ||
      c.merge.getCoords() != c.read.getCoords() || c.merge.getValid() != c.read.getValid() ||
      !isAdd(singleBinaryCombine(c.merge.getCombine().front())))
    return fail("the partials are not added into the sum at the group's top level, at the same coordinates");
  for (Operation &op : groupBody)
    if (isa<ForOp>(op)) {
      c.mainLoop = &op;
      break;
    }
  if (!c.mainLoop || !c.mainLoop->isBeforeInBlock(c.merge))
    return fail("no loop before the merge to zero the output ahead of");
  return c;
}

/// Whether `v` can be made available before `at` (in `at`'s block): it dominates there, or its defining
/// op is pure, region-free, in that block, over operands that can be.
bool computableAt(Value v, Operation *at, DominanceInfo &dom) {
  if (dom.properlyDominates(v, at))
    return true;
  Operation *def = v.getDefiningOp();
  if (def && def->hasTrait<OpTrait::ConstantLike>())
    return true;
  if (!def || def->getNumRegions() || !isMemoryEffectFree(def) || def->getBlock() != at->getBlock())
    return false;
  return llvm::all_of(def->getOperands(), [&](Value operand) { return computableAt(operand, at, dom); });
}

/// `v` (computableAt `at`) at the builder's point before `at`: itself, or clones of its defining ops.
Value availableAt(OpBuilder &b, Value v, Operation *at, DominanceInfo &dom, IRMapping &map) {
  if (Value known = map.lookupOrNull(v))
    return known;
  if (dom.properlyDominates(v, at))
    return v;
  Operation *def = v.getDefiningOp();
  for (Value operand : def->getOperands())
    (void)availableAt(b, operand, at, dom, map);
  Operation *clone = b.clone(*def, map);
  return clone->getResult(cast<OpResult>(v).getResultNumber());
}

LogicalResult rewrite(Candidate c) {
  Location loc = c.last.getLoc();
  DominanceInfo dom(c.group);
  SmallVector<Value> needed(c.out.getCoords());
  llvm::append_range(needed, c.last.getCoords());
  needed.push_back(c.out.getValid());
  needed.push_back(c.zero.getValue());
  if (!llvm::all_of(needed, [&](Value v) { return computableAt(v, c.mainLoop, dom); }) ||
      !llvm::all_of(c.last.getCoords(), [&](Value v) { return dom.properlyDominates(v, c.merge); }))
    return failure();
  OpBuilder b(c.group);
  // Launch-uniform: one work item per program instance (always, without a persistent walk).
  Value alone;
  if (c.walk) {
    b.setInsertionPoint(c.walk);
    alone = cmp(b, loc, kir::CmpPredicate::LE, c.walk.getUpper(), c.walk.getStep());
  } else {
    b.setInsertionPoint(c.group);
    alone = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
  }
  Value zeroSplit = index(b, loc, 0);
  // Before the main loop: the split-0 instance zeroes C's tile and arrives.
  IRMapping map;
  b.setInsertionPoint(c.mainLoop);
  SmallVector<Value> coords, ticket;
  for (Value v : c.out.getCoords())
    coords.push_back(availableAt(b, v, c.mainLoop, dom, map));
  for (Value v : c.last.getCoords())
    ticket.push_back(availableAt(b, v, c.mainLoop, dom, map));
  Value valid = availableAt(b, c.out.getValid(), c.mainLoop, dom, map);
  Value zeros = availableAt(b, c.zero.getValue(), c.mainLoop, dom, map);
  Value first = bin(b, loc, kir::BinaryKind::And, alone, cmp(b, loc, kir::CmpPredicate::EQ, c.split, zeroSplit));
  auto start = IfOp::create(b, loc, TypeRange{}, first);
  {
    OpBuilder::InsertionGuard guard(b);
    b.createBlock(&start.getThenRegion());
    StoreOp::create(b, loc, zeros, c.out.getView(), coords, valid);
    auto arrive = LastProgramOp::create(b, loc, c.last.getTicket(), ticket, c.last.getArrivals());
    b.createBlock(&arrive.getBody());
    YieldOp::create(b, loc);
    b.setInsertionPointAfter(arrive);
    YieldOp::create(b, loc);
  }
  // At the end: either the partial added into C (after split 0's zeroing), or the merge as it was.
  b.setInsertionPoint(c.merge);
  Value yes = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
  auto end = IfOp::create(b, loc, TypeRange{}, alone);
  {
    OpBuilder::InsertionGuard guard(b);
    b.createBlock(&end.getThenRegion());
    Value later = cmp(b, loc, kir::CmpPredicate::NE, c.split, zeroSplit);
    auto wait = IfOp::create(b, loc, TypeRange{}, later);
    {
      OpBuilder::InsertionGuard inner(b);
      b.createBlock(&wait.getThenRegion());
      auto loop = WhileOp::create(b, loc, TypeRange{}, ValueRange{});
      b.createBlock(&loop.getBefore());
      Value seen = AtomicLoadOp::create(b, loc, b.getI32Type(), c.last.getTicket(), c.last.getCoords(), yes,
                                        kir::AtomicOrder::Acquire, kir::SharingDomain::Invocation);
      Value none = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0);
      ConditionOp::create(b, loc, cmp(b, loc, kir::CmpPredicate::EQ, seen, none), ValueRange{});
      b.createBlock(&loop.getAfter());
      YieldOp::create(b, loc);
      b.setInsertionPointAfter(loop);
      YieldOp::create(b, loc);
    }
    auto add = ScatterReduceOp::create(b, loc, c.merge.getValue(), c.out.getView(), c.merge.getCoords(),
                                       c.merge.getValid());
    {
      OpBuilder::InsertionGuard inner(b);
      IRMapping none;
      c.merge.getCombine().cloneInto(&add.getCombine(), none);
    }
    auto arrive = IfOp::create(b, loc, TypeRange{}, later);
    {
      OpBuilder::InsertionGuard inner(b);
      b.createBlock(&arrive.getThenRegion());
      auto last = LastProgramOp::create(b, loc, c.last.getTicket(), c.last.getCoords(), c.last.getArrivals());
      b.createBlock(&last.getBody());
      YieldOp::create(b, loc);
      b.setInsertionPointAfter(last);
      YieldOp::create(b, loc);
    }
    YieldOp::create(b, loc);
    b.createBlock(&end.getElseRegion());
    YieldOp::create(b, loc);
  }
  Block &otherwise = end.getElseRegion().front();
  c.merge->moveBefore(otherwise.getTerminator());
  c.last->moveBefore(otherwise.getTerminator());
  return success();
}

struct ZeroFirst : public tessel::pgpu::impl::PGPUZeroFirstBase<ZeroFirst> {
  void runOnOperation() override {
    for (KernelOp kernel : getOperation().getOps<KernelOp>()) {
      bool remarks = remarksEnabled(kernel);
      SmallVector<LastProgramOp> lasts;
      kernel.walk([&](LastProgramOp l) {
        if (l.isTicketed())
          lasts.push_back(l);
      });
      for (LastProgramOp last : lasts) {
        std::string why;
        FailureOr<Candidate> c = match(last, why);
        if (failed(c)) {
          if (remarks)
            last.emitRemark() << "pgpu-zero-first: not rewritten: " << why;
          continue;
        }
        if (failed(rewrite(*c))) {
          if (remarks)
            last.emitRemark() << "pgpu-zero-first: not rewritten: the output tile's coordinates are not "
                                 "computable before the main loop";
          continue;
        }
        if (remarks)
          last.emitRemark() << "pgpu-zero-first: the split-0 instance zeroes the output tile as it starts and "
                               "arrives; the others add their partials into it after that arrival (the last "
                               "arrival's serial pass is gone), when the work items fit the program instances";
      }
    }
  }
};

} // namespace
