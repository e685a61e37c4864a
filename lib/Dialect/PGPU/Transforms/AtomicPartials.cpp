//===- AtomicPartials.cpp - split partials merged by atomics, not summed last -===//
//
// seed 000 §4.4 (invocation workspace, an initial value set once), §6
// (scatter-reduce: collisions combine), §9 (atomics with order and sharing
// domain; acq_rel tickets); seed 002 §4 (reassociating and permuting an
// ordinary reduce under its associative/commutative contract).
//
// pgpu-member-tickets leaves split-K's finalization as: every instance (s, m, n)
// stores its partial to workspace W[s, m, n]; the last of the instances of
// (m, n) to arrive sums W[0..S, m, n] in a range_reduce and uses the sum. That
// last arrival reads S partials alone, after the others are done: on the H200
// (bf16 512x512x65536, 128x256 tiles, SPLITS 16) the kernel took 71.9 us
// against 54 us with the partials added into one tile by atomics (an H100:
// 85.8 against 62.2 us, and 62.1 us with no sum at all; session 16).
//
// Here the reduce becomes that merge:
//
//   scatter_reduce add %partial, %Sum[m, n]       (each instance, as it finishes)
//   last_program %tickets[m, n] arrivals S {
//     %sum = buffer_load %Sum[m, n]               (every partial merged: acq_rel ticket)
//     buffer_store %identity, %Sum[m, n]          (returned to its initial value)
//     ...the uses of the sum...
//   }
//
// Sum is invocation workspace of the partials' element type over the member
// axes, filled with the reduce's identity (0) and returned to it by the kernel
// (`pgpu.kept`: the wrapper keeps one buffer per stream, like the tickets).
// The partials are added in the order the instances finish: the sum is the
// same reduce reassociated and permuted, which its contract permits (an f32
// result may differ in the last bits between runs, as with any atomic merge).
//
// Fires on a ticketed pgpu.last_program inside an execution group whose body
// holds one range_reduce from 0 to the arrival count with an add combine and
// a zero identity (f32, i32 or i64), whose element is one buffer_load of a
// workspace W at (the reduced index, the ticket's coordinates), W being
// written only by one unconditional buffer_store at the group body's top level
// at (the arrival axis's coordinate, the same coordinates), which the load
// alone reads. Must not fire otherwise: another combine or identity, another
// element type, a read of W elsewhere, a store of W elsewhere or under control
// flow, a reduce that is not over all arrivals.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUATOMICPARTIALS
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

namespace {

/// Whether `v` is a constant +0 (float) or 0 (integer).
bool isZero(Value v) {
  Attribute a;
  if (!matchPattern(v, m_Constant(&a)))
    return false;
  if (auto f = dyn_cast<FloatAttr>(a))
    return f.getValue().isPosZero();
  if (auto i = dyn_cast<IntegerAttr>(a))
    return i.getValue().isZero();
  return false;
}

/// Whether `v` is the constant `true`.
bool isTrue(Value v) {
  APInt c;
  return matchPattern(v, m_ConstantInt(&c)) && c.getBitWidth() == 1 && c.isAllOnes();
}

/// One split-partial finalization this pass rewrites.
struct Candidate {
  LastProgramOp last;
  RangeReduceOp reduce;
  BufferLoadOp read;
  BufferStoreOp write;
  unsigned splitPosition; // the position of the arrival axis among W's coordinates
};

/// The candidate of `last`, or why not.
FailureOr<Candidate> match(LastProgramOp last, std::string &why) {
  auto fail = [&](const Twine &w) {
    why = w.str();
    return failure();
  };
  auto group = dyn_cast<ExecutionGroupOp>(last->getParentOp());
  if (!last.isTicketed() || !group || last->getBlock() != &group.getBody().front())
    return fail("not a ticketed finalization at an execution group's top level");
  Block &groupBody = group.getBody().front();
  // The arrival axis: the one group axis the ticket does not name, whose extent is the arrival count.
  SmallVector<unsigned> others;
  for (BlockArgument a : groupBody.getArguments())
    if (!llvm::is_contained(last.getCoords(), Value(a)))
      others.push_back(a.getArgNumber());
  if (others.size() != 1 || group.getExtents()[others.front()] != last.getArrivals())
    return fail("the arrivals are not the instances along one group axis");
  BlockArgument split = groupBody.getArgument(others.front());
  RangeReduceOp reduce;
  for (Operation &op : last.getBody().front().without_terminator())
    if (auto r = dyn_cast<RangeReduceOp>(op)) {
      if (reduce)
        return fail("more than one reduce in the finalization");
      reduce = r;
    }
  if (!reduce || reduce.getNumResults() != 1 || !isZero(reduce.getLower()) ||
      reduce.getUpper() != last.getArrivals())
    return fail("no single-result reduce over the arrivals [0, arrivals)");
  Type element = reduce.getResult(0).getType();
  if (!(element.isF32() || element.isInteger(32) || element.isInteger(64)))
    return fail("the partials' element type is not f32, i32 or i64 (atomic add)");
  BinaryOp add = singleBinaryCombine(reduce.getCombine().front());
  if (!add || add.getKind() != kir::BinaryKind::Add || !isZero(reduce.getIdentities()[0]))
    return fail("the reduce is not a sum from zero");
  Block &each = reduce.getElement().front();
  auto yield = cast<YieldOp>(each.getTerminator());
  auto read = yield.getNumOperands() == 1 ? yield.getOperand(0).getDefiningOp<BufferLoadOp>() : BufferLoadOp();
  if (!read || &each.front() != read.getOperation() || !isTrue(read.getValid()) || !isZero(read.getFill()))
    return fail("the reduce's element is not one unmasked read of workspace");
  auto W = dyn_cast<BlockArgument>(read.getBuffer());
  if (!W || !isa<KernelOp>(W.getOwner()->getParentOp()) ||
      cast<BufferType>(W.getType()).getScope() != BufferScope::Workspace)
    return fail("the partials are not invocation workspace");
  // read at (reduced index, ticket coordinates), in some order; the write at (split, the same).
  ValueRange rc = read.getCoords();
  unsigned position = rc.size();
  SmallVector<Value> rest;
  for (auto [i, c] : llvm::enumerate(rc)) {
    if (c == each.getArgument(0)) {
      position = i;
      continue;
    }
    rest.push_back(c);
  }
  if (position == rc.size() || rest != SmallVector<Value>(last.getCoords()))
    return fail("the read is not at (the reduced index, the ticket's coordinates)");
  BufferStoreOp write;
  for (OpOperand &use : W.getUses()) {
    if (use.getOwner() == read.getOperation())
      continue;
    auto st = dyn_cast<BufferStoreOp>(use.getOwner());
    if (!st || write || use.getOperandNumber() != 1)
      return fail("the partials are used elsewhere");
    write = st;
  }
  if (!write || write->getBlock() != &groupBody || !write->isBeforeInBlock(last) || !isTrue(write.getValid()) ||
      write.getValue().getType() != element)
    return fail("the partials are not stored unconditionally at the group's top level before the finalization");
  ValueRange wc = write.getCoords();
  for (auto [i, c] : llvm::enumerate(wc))
    if (c != (i == position ? Value(split) : rc[i]))
      return fail("the partial is not stored at (the arrival axis, the ticket's coordinates)");
  return Candidate{last, reduce, read, write, position};
}

void rewrite(KernelOp kernel, Candidate c) {
  MLIRContext *ctx = kernel.getContext();
  Location loc = c.last.getLoc();
  auto W = cast<BlockArgument>(c.read.getBuffer());
  auto wType = cast<BufferType>(W.getType());
  Type element = c.reduce.getResult(0).getType();
  SmallVector<Attribute> extents(wType.getExtents());
  extents.erase(extents.begin() + c.splitPosition);
  TypedAttr zero = isa<FloatType>(element) ? TypedAttr(FloatAttr::get(element, 0.0))
                                            : TypedAttr(IntegerAttr::get(element, 0));
  Value sum = addWorkspace(kernel, loc, element, extents, zero);
  kernel.setArgAttr(cast<BlockArgument>(sum).getArgNumber(), "pgpu.kept", UnitAttr::get(ctx));
  SmallVector<Value> coords(c.last.getCoords());
  // Each instance merges its partial as it finishes.
  OpBuilder b(c.write);
  Value yes = c.write.getValid();
  auto merge = ScatterReduceOp::create(b, c.write.getLoc(), c.write.getValue(), sum, coords, yes);
  {
    OpBuilder::InsertionGuard guard(b);
    Block *combine = b.createBlock(&merge.getCombine());
    Value l = combine->addArgument(element, loc), r = combine->addArgument(element, loc);
    Value s = BinaryOp::create(b, loc, kir::BinaryKind::Add, l, r, false, false);
    YieldOp::create(b, loc, s);
  }
  c.write.erase();
  // The last arrival reads the merged sum and returns the tile to its initial value.
  b.setInsertionPoint(c.reduce);
  Value fill = c.read.getFill();
  if (!fill.getParentRegion()->isAncestor(c.last->getParentRegion()))
    fill = arith::ConstantOp::create(b, loc, zero);
  Value ok = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
  Value merged = BufferLoadOp::create(b, loc, element, sum, coords, ok, fill);
  BufferStoreOp::create(b, loc, fill, sum, coords, ok);
  c.reduce.getResult(0).replaceAllUsesWith(merged);
  c.reduce.erase();
  if (W.use_empty())
    kernel.eraseArgument(W.getArgNumber());
}

struct AtomicPartials : public tessel::pgpu::impl::PGPUAtomicPartialsBase<AtomicPartials> {
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
            last.emitRemark() << "pgpu-atomic-partials: not rewritten: " << why;
          continue;
        }
        rewrite(kernel, *c);
        if (remarks)
          last.emitRemark() << "pgpu-atomic-partials: each instance adds its partial into one workspace tile "
                               "with atomics as it finishes; the last arrival reads the merged sum and zeroes "
                               "the tile (the reduce reassociated in arrival order)";
      }
    }
  }
};

} // namespace
