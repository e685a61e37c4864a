//===- RefineMapping.cpp - enlarge the ownership of per-element worksets ---===//
//
// seed 002 §3.2: rewrite the logical ownership extent of each physical
// program instance. A workset of independent per-element instances (a
// whole-tensor store, an elementwise kernel) launched one element per program
// wastes the machine; here each program takes BLOCK_P consecutive members of
// the innermost axis through a `pgpu.foreach`, which form-blocking then turns
// into fragments. The program space and the group's extents change together,
// as LaunchExprs, so the wrapper and the kernel still agree on the grid.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUREFINEMAPPING
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

namespace {
constexpr llvm::StringLiteral kBlockP = "BLOCK_P";

/// The single execution group that the whole program space dispatches to, or null.
ExecutionGroupOp soleGroup(ProgramSpaceOp space) {
  Block &body = space.getBody().front();
  ExecutionGroupOp group;
  for (Operation &op : body.without_terminator()) {
    if (auto g = dyn_cast<ExecutionGroupOp>(op)) {
      if (group)
        return {};
      group = g;
      continue;
    }
    if (!op.hasTrait<OpTrait::ConstantLike>() && !isMemoryEffectFree(&op))
      return {};
  }
  if (!group || group.getLinear() != body.getArgument(0) || space.getExtents().size() != 1)
    return {};
  return group;
}

/// Per-element straight-line code: no loops, ifs, reductions or regions, and no
/// fragments (a group that pgpu-form-tiles already blocked owns its tiles). A
/// scatter-reduce's region is its pure combine, not control: its collisions combine
/// under the declared semantics whichever program performs them (seed 000 §6, §9).
bool isPerElement(ExecutionGroupOp group) {
  for (Operation &op : group.getBody().front().without_terminator())
    if ((op.getNumRegions() != 0 && !isa<ScatterReduceOp>(op)) ||
        llvm::any_of(op.getResultTypes(), [](Type t) { return isa<FragmentType>(t); }))
      return false;
  return true;
}

LogicalResult refine(KernelOp kernel, ProgramSpaceOp space, ExecutionGroupOp group) {
  OpBuilder b(space);
  Location loc = group.getLoc();
  // Launch-time values: BLOCK_P, the new innermost extent and the new total.
  Value blockP = ParamOp::create(b, loc, b.getIndexType(), kBlockP);
  SmallVector<Value> extents(group.getExtents());
  Value inner = extents.back();
  extents.back() = CeilDivOp::create(b, loc, inner, blockP);
  Value total = extents.front();
  for (Value e : ArrayRef<Value>(extents).drop_front())
    total = BinaryOp::create(b, loc, kir::BinaryKind::Mul, total, e, false, false);
  space->setOperand(0, total);
  group.getExtentsMutable().assign(extents);

  // The body moves into a foreach over the owned members of the innermost axis.
  Block &body = group.getBody().front();
  BlockArgument coord = body.getArguments().back();
  b.setInsertionPointToStart(&body);
  Value lo = BinaryOp::create(b, loc, kir::BinaryKind::Mul, coord, blockP, false, false);
  Value end = BinaryOp::create(b, loc, kir::BinaryKind::Add, lo, blockP, false, false);
  Value hi = BinaryOp::create(b, loc, kir::BinaryKind::Min, end, inner, false, false);
  auto each = ForeachOp::create(b, loc, lo, hi);
  Block *eachBody = b.createBlock(&each.getBody());
  Value member = eachBody->addArgument(b.getIndexType(), loc);
  // Move everything after the foreach (the old body) into it.
  Operation *terminator = body.getTerminator();
  eachBody->getOperations().splice(eachBody->end(), body.getOperations(), std::next(Block::iterator(each)),
                                   Block::iterator(terminator));
  coord.replaceUsesWithIf(member, [&](OpOperand &use) { return each->isProperAncestor(use.getOwner()); });
  b.setInsertionPointToEnd(eachBody);
  YieldOp::create(b, loc);
  (void)kernel;
  return success();
}

struct RefineMapping : public tessel::pgpu::impl::PGPURefineMappingBase<RefineMapping> {
  void runOnOperation() override {
    for (KernelOp kernel : getOperation().getOps<KernelOp>()) {
      ProgramSpaceOp space;
      kernel.walk([&](ProgramSpaceOp s) { space = s; });
      if (!space)
        continue;
      ExecutionGroupOp group = soleGroup(space);
      bool remarks = remarksEnabled(kernel);
      // A group with no axes (a rank-0 store, a kernel without kir.parallel) is one instance:
      // there is no innermost axis whose members a program could take several of.
      if (group && group.getExtents().empty()) {
        if (remarks)
          space.emitRemark() << "pgpu-refine-mapping: one instance per program kept: the group has no axes";
        continue;
      }
      if (!group || !isPerElement(group) || kernel.getParam(kBlockP)) {
        if (remarks)
          space.emitRemark() << "pgpu-refine-mapping: one instance per program kept: "
                             << (!group ? "the program space has several segments or dispatch code"
                                        : "the group body has loops, control or fragments (it owns more than an "
                                          "element already)");
        continue;
      }
      if (failed(refine(kernel, space, group)))
        return signalPassFailure();
      if (remarks)
        group.emitRemark() << "pgpu-refine-mapping: each program owns BLOCK_P members of the innermost axis";
      SmallVector<Attribute> params;
      if (auto existing = kernel.getParams())
        params.assign(existing->begin(), existing->end());
      params.push_back(ParamAttr::get(kernel.getContext(), StringAttr::get(kernel.getContext(), kBlockP),
                                      {256, 512, 1024, 2048, 4096}, 2048, StringAttr()));
      kernel.setParamsAttr(ArrayAttr::get(kernel.getContext(), params));
    }
  }
};
} // namespace
