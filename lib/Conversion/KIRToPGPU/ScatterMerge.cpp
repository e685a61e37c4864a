//===- ScatterMerge.cpp - scatter-adds merged through a zeroed workspace ---===//
//
// seed 000 §2 (one launch: no hidden second launch, no grid-wide barrier),
// §4.4 (invocation workspace; tickets: acq_rel arrivals), §6 (scatter-reduce:
// collisions combine, in no specified order); seed 002 §4 (a reduce
// reassociated and permuted under its contract).
//
// `out[...] = 0.0; scatter_reduce(out, (seg, dims), x, combine="add")` (torch's
// index_add_ after a zero fill, 101_sorted_segment_sum): the scatter-add writes
// what the fill wrote, so with no barrier between worksets it ran whole in the
// last program instance, one element at a time (N*D atomics from one program:
// 10 s at N=1M, D=64 on the H200). An add scatter-reduce only needs the target's
// value when its contributions land, and addition reassociates under its
// contract: out_final = out_before + sum(contributions). So the worksets'
// instances add their contributions into a workspace W shaped like the target,
// zero when the launch starts, in parallel with the earlier worksets; the last
// program, after every instance has arrived, adds W into the target element by
// element (out = out + W, in source order with the other finalizations) and
// returns W to zero, so the wrapper keeps one zeroed W per stream (`pgpu.kept`,
// as pgpu-atomic-partials' sums). The serial tail is the target's S*D
// elements, not the N*D contributions.
//
// When the target's only earlier toucher is a zero fill of all of it and the
// scatter is the last segment (KIRToPGPU.cpp), not even that tail remains: the
// fill keeps its own segment (S*D elements over its programs), and each
// scatter instance first waits until the launch's ticket counts every instance
// before its segment (the fill's instances arrive when they end; no scatter
// instance arrives before it has waited), then adds into the view itself, as
// torch's zeros + index_add_ do in two launches. The last arrival's reset
// returns the ticket to 0. No workspace, no serial pass.
//
// Fires on a top-level kir.scatter_reduce workset whose combine is exactly an
// add of its two arguments, that would otherwise finalize in the last program
// only because earlier worksets read or write its target view, and that reads
// nothing an earlier workset writes (nor its target). Must not fire otherwise
// (another combine, a read of something written earlier, a scatter in a
// kir.parallel body, a workset with other writes).
//
//===----------------------------------------------------------------------===//

#include "KernelConstructor.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::construct;

/// Whether `combine` is `^bb(%a, %b): %r = kir.binary add %a, %b (either order); kir.yield %r`.
bool tessel::construct::isBinaryCombine(Region &combine, kir::BinaryKind kind) {
  if (!combine.hasOneBlock())
    return false;
  Block &block = combine.front();
  if (block.getNumArguments() != 2 || !llvm::hasNItems(block.getOperations(), 2))
    return false;
  auto op = dyn_cast<kir::BinaryOp>(block.front());
  auto yield = dyn_cast<kir::YieldOp>(block.back());
  if (!op || !yield || op.getKind() != kind || yield->getNumOperands() != 1 || yield->getOperand(0) != op.getResult())
    return false;
  Value a = block.getArgument(0), c = block.getArgument(1);
  return (op.getLhs() == a && op.getRhs() == c) || (op.getLhs() == c && op.getRhs() == a);
}

Value KernelConstructor::mergeableScatter(Workset &w, const DenseSet<Value> &reads, const DenseSet<Value> &writes,
                                          const DenseSet<Value> &earlierWrites) {
  auto sr = dyn_cast<kir::ScatterReduceOp>(w.op);
  if (!sr || sr.getJoint() || !w.joined.empty() || !w.roots.empty() || !isAddCombine(sr.getCombine()))
    return {};
  Value target = sr.getView();
  if (writes.size() != 1 || !writes.contains(target) || reads.contains(target) || kernelBuffers.contains(target))
    return {};
  auto view = dyn_cast<kir::ViewType>(target.getType());
  if (!view || !view.getElementType().isIntOrFloat())
    return {};
  if (llvm::any_of(reads, [&](Value v) { return earlierWrites.contains(v); }))
    return {};
  return target;
}

LogicalResult KernelConstructor::emitScatterMergeFinalize(Workset &w) {
  auto sr = cast<kir::ScatterReduceOp>(w.op);
  Location loc = sr.getLoc();
  Value viewArg = physical.getBody().getArgument(cast<BlockArgument>(sr.getView()).getArgNumber());
  auto view = cast<kir::ViewType>(sr.getView().getType());
  Type element = view.getElementType();
  SmallVector<Value> extents;
  for (unsigned axis = 0; axis < view.getRank(); ++axis)
    extents.push_back(pgpu::ExtentOp::create(b, loc, viewArg, axis));
  return foreachNest(loc, extents, [&](ArrayRef<Value> positions) -> LogicalResult {
    Value zero = zeroOf(loc, element), ok = trueValue(loc);
    Value sum = pgpu::BufferLoadOp::create(b, loc, element, w.merged, positions, ok, zero);
    pgpu::BufferStoreOp::create(b, loc, zero, w.merged, positions, ok);
    Value before = pgpu::LoadOp::create(b, loc, element, viewArg, positions, ok, zero);
    pgpu::StoreOp::create(b, loc, binary(loc, kir::BinaryKind::Add, before, sum), viewArg, positions, ok);
    return success();
  });
}

void KernelConstructor::emitFillWait(Location loc, Value ticket, Value before) {
  // seed 000 §4.4: the arrivals are acq_rel, so the acquire read that sees `before` of them orders
  // this instance's adds after the fill's stores. Only instances before the waiting segment are
  // waited for: CUDA starts thread blocks in linear order and the interpreter runs a space that
  // waits so (as pgpu-chain-scans and pgpu-zero-first rely on); the waiting segment is the last, so
  // the first instance to pass saw only earlier instances' arrivals.
  Value want = pgpu::CastOp::create(b, loc, b.getI32Type(), before);
  Value zero = constIndex(loc, 0), ok = trueValue(loc);
  auto wait = pgpu::WhileOp::create(b, loc, TypeRange{}, ValueRange{});
  OpBuilder::InsertionGuard guard(b);
  b.createBlock(&wait.getBefore());
  Value seen = pgpu::AtomicLoadOp::create(b, loc, b.getI32Type(), ticket, ValueRange{zero}, ok,
                                          kir::AtomicOrder::Acquire, kir::SharingDomain::Invocation);
  pgpu::ConditionOp::create(b, loc, pgpu::CmpOp::create(b, loc, kir::CmpPredicate::LT, seen, want), ValueRange{});
  b.createBlock(&wait.getAfter());
  pgpu::YieldOp::create(b, loc);
}
