//===- MergeSegments.cpp - sibling segments over the same members run as one group ===//
//
// seed 000 §3 (execution groups: segments of a program space), seed 002 §3.2
// (execution-group placement, the logical ownership of each program instance).
// Construction realizes several kernel-level statements over the same domain
// (a pixel shuffle's four `out[n, c, 2h + i, 2w + j] = x[n, 4c + 2i + j, h, w]`)
// as a dispatch chain of segments: pid < S ? g0(pid) : (pid - S < S ? g1(...) : ...).
// Each member's coordinates are then decoded once per segment, and the
// statements' writes to neighbouring addresses (the interleaved columns 2w and
// 2w + 1) come from programs a whole segment apart: a segment's writes have left
// the cache before its sibling fills the other half of each sector.
//
// When every segment of the chain has the same extents and a straight-line
// body of pointwise code, reads of `In` views and plain writes, one group over
// those extents runs the segments' bodies in order: the later passes block
// the one workset, its coordinates are decoded once for all statements (CSE
// merges the repeated index arithmetic) and one program writes the
// neighbouring addresses together.
//
// Legality: the segments are disjoint program instances with no order between
// them (seed 000 §3: a group adds neither a launch nor a barrier), so any
// interleaving of their members is an execution the chain admits; running
// member m of every segment in one program, in segment order, is one of them.
// Reads only of `In` views (no instance writes one, seed 000 §4.3): no
// statement reads what another writes.
//
// Must not fire: a sole group, segments whose extents differ (in value or in
// number), a body with regions (loops, control, structured ops), atomics,
// scatter-reduce or buffers, a read of a writable view, a ticketed chain
// (pgpu::dispatchChain without a guarded end), a chain whose routing holds
// anything but the guards and shifts.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUMERGESEGMENTS
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"

} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

namespace {
/// Whether `view` is an `In` view (seed 000 §4.3: no instance of the launch writes it).
bool isInputView(Value view) {
  auto type = dyn_cast<ViewType>(view.getType());
  return type && !type.isWritable();
}

/// Why `group`'s body cannot run beside its siblings in one program, or "" when it can: pointwise
/// code, reads of `In` views and plain writes, nothing with regions, and every value it uses from
/// outside defined before `space` (the chain's routing values stay behind).
std::string whyNotMergeable(ExecutionGroupOp group, ProgramSpaceOp space) {
  Block &body = group.getBody().front();
  for (Operation &op : body.without_terminator()) {
    if (op.getNumRegions())
      return "a segment's body has loops, control or structured ops";
    if (auto load = dyn_cast<LoadOp>(op); load && !isInputView(load.getView()))
      return "a segment reads a view the kernel writes";
    if (auto gather = dyn_cast<GatherOp>(op); gather && !isInputView(gather.getView()))
      return "a segment reads a view the kernel writes";
    if (!isa<LoadOp, GatherOp, StoreOp, ScatterOp>(op) && !isMemoryEffectFree(&op))
      return "a segment's body has effects other than reads and plain writes (atomics, buffers)";
  }
  SetVector<Value> used;
  getUsedValuesDefinedAbove(group.getBody(), used);
  for (Value v : used) {
    Operation *def = v.getDefiningOp();
    Region *home = def ? def->getParentRegion() : cast<BlockArgument>(v).getOwner()->getParent();
    if (space->getParentRegion()->isAncestor(home) && !space.getBody().isAncestor(home))
      continue; // defined at (or above) the space's level
    if (v == group.getLinear())
      continue;
    return "a segment's body uses a value of the dispatch routing";
  }
  return "";
}

/// Erases `v`'s defining op and then its operands' while they are left without uses and pure (the
/// chain's old total, a sum of the segments' counts).
void eraseDead(Value v) {
  SmallVector<Operation *> work;
  if (Operation *def = v.getDefiningOp())
    work.push_back(def);
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    if (!op->use_empty() || !isMemoryEffectFree(op) || op->getNumRegions())
      continue;
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        work.push_back(def);
    op->erase();
  }
}

struct MergeSegments : public tessel::pgpu::impl::PGPUMergeSegmentsBase<MergeSegments> {
  void runOnOperation() override {
    for (KernelOp kernel : getOperation().getOps<KernelOp>()) {
      ProgramSpaceOp space;
      kernel.walk([&](ProgramSpaceOp s) { space = s; });
      if (!space || space.getExtents().size() != 1)
        continue;
      Dispatch dispatch;
      Block &routing = space.getBody().front();
      if (!dispatchChain(routing, space.getBody().getArgument(0), dispatch) || dispatch.groups.size() < 2)
        continue;
      bool remarks = remarksEnabled(kernel);
      std::string why = whyNot(space, dispatch);
      if (!why.empty()) {
        if (remarks)
          space.emitRemark() << "pgpu-merge-segments: segments kept apart: " << why;
        continue;
      }
      merge(space, dispatch);
      if (remarks)
        dispatch.groups.front().emitRemark()
            << "pgpu-merge-segments: " << dispatch.groups.size()
            << " segments over the same members run as one group (each member's statements in one program)";
    }
  }

  static std::string whyNot(ProgramSpaceOp space, const Dispatch &dispatch) {
    ExecutionGroupOp first = dispatch.groups.front();
    for (ExecutionGroupOp g : dispatch.groups) {
      if (g.getExtents().empty() || g.getExtents() != first.getExtents())
        return "their extents differ";
      if (std::string why = whyNotMergeable(g, space); !why.empty())
        return why;
    }
    // The routing is the guards, the shifts and the groups (pgpu::dispatchChain admits pure ops
    // beside them; a group's body must not need them, whyNotMergeable says).
    return "";
  }

  /// The first group takes every later group's body, in segment order, over its own coordinates, and
  /// becomes the space's sole group; the space launches the first segment's count.
  static void merge(ProgramSpaceOp space, Dispatch &dispatch) {
    ExecutionGroupOp first = dispatch.groups.front();
    Block &into = first.getBody().front();
    for (ExecutionGroupOp g : llvm::drop_begin(dispatch.groups)) {
      Block &from = g.getBody().front();
      IRMapping map;
      for (auto [a, b] : llvm::zip(from.getArguments(), into.getArguments()))
        map.map(a, b);
      OpBuilder b(into.getTerminator());
      for (Operation &op : from.without_terminator())
        b.clone(op, map);
    }
    Block &routing = space.getBody().front();
    Value linear = space.getBody().getArgument(0);
    // The chain's first guard (or the routing op holding it) is the block's only op with regions.
    Operation *guard = nullptr;
    for (Operation &op : routing.without_terminator())
      if (op.getNumRegions())
        guard = &op;
    first->moveBefore(guard);
    first.getLinearMutable().assign(linear);
    guard->erase();
    Value total = space.getExtents().front();
    space->setOperand(0, dispatch.bounds.front().getRhs());
    eraseDead(total);
    // The routing's pure ops (the first bound's comparison) are left without uses.
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(routing.without_terminator())))
      if (&op != first.getOperation() && op.use_empty() && isMemoryEffectFree(&op) && !op.getNumRegions())
        op.erase();
  }
};
} // namespace
