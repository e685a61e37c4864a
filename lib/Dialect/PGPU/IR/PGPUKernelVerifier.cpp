//===- PGPUKernelVerifier.cpp - the shared pgpu verifier (seed 000 §10) ----===//
//
// Kernel-wide completeness invariants, checked on the current program after
// every pass group and never repaired (seed 002 §5.3):
//   1  exactly one program body (one pgpu.program_space) per kernel;
//   2  everything executable lives in the program space;
//   3  every SSA value has a legal scalar/fragment/resource type;
//   4  fragment extents are constants or declared shared parameters;
//   9  no conflicting non-atomic writes between program instances;
//  12  no KIR ops and no side records (discardable attributes) drive execution.
// Invariants 5-8 and 10 are checked by the ops themselves (accesses, control,
// buffers, structured schemas, program-space extents).
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/IR/PGPU.h"

#include "PGPUVerifyUtils.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

namespace {
/// Invariant 3: scalars, fragments, views, buffers and tuples of those.
bool isLegalType(Type type) {
  if (type.isIntOrIndexOrFloat() || isa<FragmentType, ViewType, BufferType>(type))
    return true;
  if (auto tuple = dyn_cast<TupleType>(type))
    return llvm::all_of(tuple.getTypes(), isLegalType);
  return false;
}

/// Invariant 4: extents are static or name a declared shared parameter.
LogicalResult verifyExtents(Operation *op, KernelOp kernel, Type type) {
  ArrayRef<Attribute> extents;
  bool allowViewExtents = false;
  if (auto fragment = dyn_cast<FragmentType>(type)) {
    extents = fragment.getExtents();
  } else if (auto buffer = dyn_cast<BufferType>(type)) {
    extents = buffer.getExtents();
    allowViewExtents = buffer.getScope() == BufferScope::Workspace;
  } else if (auto tuple = dyn_cast<TupleType>(type)) {
    for (Type element : tuple.getTypes())
      if (failed(verifyExtents(op, kernel, element)))
        return failure();
    return success();
  }
  for (Attribute extent : extents) {
    auto name = dyn_cast<StringAttr>(extent);
    if (!name || allowViewExtents)
      continue;
    ParamAttr param = kernel.getParam(name.getValue());
    if (!param)
      return op->emitOpError() << "has type " << type << " whose extent '" << name.getValue()
                               << "' is not a declared physical parameter (invariant 4)";
    if (param.getProvider())
      return op->emitOpError() << "has type " << type << " whose extent '" << name.getValue()
                               << "' is a provider parameter; fragment extents are shared parameters (invariant 4)";
  }
  return success();
}

/// True when `value` is computed from `target` (a program coordinate). Region
/// arguments of execution groups depend on the group's linear coordinate;
/// other region arguments (loop ivs and carries, segment bounds, captures)
/// depend on the operands of the op that owns the region.
bool dependsOn(Value value, Value target, DenseSet<Value> &visited) {
  if (value == target)
    return true;
  if (!visited.insert(value).second)
    return false;
  // A ticket: the old value of an atomic add of a positive constant is distinct for every take, so
  // what it places is placed per taking instance, as by a program coordinate (a dynamic walk's tiles).
  if (auto rmw = value.getDefiningOp<AtomicRMWOp>()) {
    APInt step;
    if (rmw.getKind() == kir::RMWKind::Add && matchPattern(rmw.getValue(), m_ConstantInt(&step)) &&
        step.isStrictlyPositive())
      return true;
  }
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    Operation *owner = arg.getOwner()->getParentOp();
    if (auto group = dyn_cast<ExecutionGroupOp>(owner))
      return dependsOn(group.getLinear(), target, visited);
    if (isa<ProgramSpaceOp, KernelOp>(owner))
      return false;
    return llvm::any_of(owner->getOperands(), [&](Value v) { return dependsOn(v, target, visited); });
  }
  return llvm::any_of(value.getDefiningOp()->getOperands(),
                      [&](Value operand) { return dependsOn(operand, target, visited); });
}

/// Invariant 9: a non-atomic write to memory shared by program instances must
/// be placed (coordinates, validity or guards) by every program coordinate.
LogicalResult verifyInstanceIndependence(ProgramSpaceOp space) {
  Block &body = space.getBody().front();
  WalkResult result = space.getBody().walk([&](Operation *op) {
    Value target;
    SmallVector<Value> deciders;
    if (auto store = dyn_cast<StoreOp>(op)) {
      target = store.getView();
      llvm::append_range(deciders, store.getCoords());
      deciders.push_back(store.getValid());
    } else if (auto store = dyn_cast<BufferStoreOp>(op)) {
      target = store.getBuffer();
      if (cast<BufferType>(target.getType()).getScope() != BufferScope::Workspace)
        return WalkResult::advance(); // program/iteration-private: one owner
      llvm::append_range(deciders, store.getCoords());
      deciders.push_back(store.getValid());
    } else {
      return WalkResult::advance(); // atomics and scatter-reduce may share; unique scatters promise distinctness
    }
    // A finalization runs in one instance: of the program space, or of the instances that share
    // its ticket (those differ only along axes the ticket's coordinates do not depend on).
    auto last = op->getParentOfType<LastProgramOp>();
    if (last && !last.isTicketed())
      return WalkResult::advance();
    for (Operation *parent = op->getParentOp(); parent && parent != space.getOperation();
         parent = parent->getParentOp()) {
      if (auto guard = dyn_cast<IfOp>(parent))
        deciders.push_back(guard.getCondition());
      else if (auto loop = dyn_cast<ForOp>(parent))
        llvm::append_range(deciders, ValueRange{loop.getLower(), loop.getUpper()});
    }
    // The coordinates that enumerate instances: the decoded coordinates of
    // the innermost execution group, else the program-space coordinates.
    auto group = op->getParentOfType<ExecutionGroupOp>();
    Block &owners = group ? group.getBody().front() : body;
    ValueRange extents = group ? group.getExtents() : space.getExtents();
    for (auto [axis, coord] : llvm::enumerate(owners.getArguments())) {
      APInt extent;
      if (matchPattern(extents[axis], m_ConstantInt(&extent)) && extent.isOne())
        continue;
      if (last && llvm::none_of(last.getCoords(), [&, coord = coord](Value v) {
            DenseSet<Value> visited;
            return dependsOn(v, coord, visited);
          }))
        continue; // the ticket's arrivals along this axis: one of them runs the body
      // A decoded coordinate is reached directly; its siblings lead back to
      // the linear coordinate, which does not determine it.
      bool placed = llvm::any_of(deciders, [&, coord = coord](Value v) {
        DenseSet<Value> visited;
        return dependsOn(v, coord, visited);
      });
      if (placed)
        continue;
      op->emitOpError() << "writes the same elements from every program instance along "
                        << (group ? "execution-group axis " : "program axis ") << axis
                        << ": a conflicting non-atomic write (invariant 9); use an atomic or scatter_reduce";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}
} // namespace

LogicalResult checks::verifyKernelInvariants(KernelOp kernel) {
  Block &entry = kernel.getBody().front();
  for (BlockArgument arg : entry.getArguments())
    if (failed(verifyExtents(kernel, kernel, arg.getType())))
      return failure();

  // Invariants 1 and 2: launch-time facts, one program space, the return.
  ProgramSpaceOp space;
  for (Operation &op : entry) {
    if (auto ps = dyn_cast<ProgramSpaceOp>(op)) {
      if (space)
        return ps.emitOpError() << "is a second program body; a kernel has exactly one (invariant 1)";
      space = ps;
      continue;
    }
    if (isa<ReturnOp, WorkspaceExtentOp>(op) || op.hasTrait<LaunchExprOp>() || matchPattern(&op, m_Constant()))
      continue;
    bool launchArith = op.getNumResults() == 1 && isLaunchExpr(op.getResult(0));
    if (!launchArith)
      return op.emitOpError() << "is outside the program space; only LaunchExpr values may be computed there "
                                 "(invariant 2)";
  }
  if (!space)
    return kernel.emitOpError() << "has no pgpu.program_space: every kernel needs one program body (invariant 1)";

  WalkResult result = kernel.getBody().walk([&](Operation *op) {
    if (op == kernel.getOperation())
      return WalkResult::advance();
    if (op->getDialect() && op->getDialect()->getNamespace() == "kir") {
      op->emitOpError() << "is a KIR op inside a physical kernel (invariant 12)";
      return WalkResult::interrupt();
    }
    for (NamedAttribute attr : op->getDiscardableAttrs()) {
      op->emitOpError() << "carries side record '" << attr.getName().getValue()
                        << "'; execution facts must be ops, operands and types (invariant 12)";
      return WalkResult::interrupt();
    }
    for (Type type : op->getResultTypes()) {
      if (!isLegalType(type)) {
        op->emitOpError() << "produces a value of type " << type
                          << ", which is not a scalar, fragment, view, buffer or tuple (invariant 3)";
        return WalkResult::interrupt();
      }
      if (failed(verifyExtents(op, kernel, type)))
        return WalkResult::interrupt();
    }
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (!isLegalType(arg.getType()) || failed(verifyExtents(op, kernel, arg.getType()))) {
            if (!isLegalType(arg.getType()))
              op->emitOpError() << "has a region argument of illegal type " << arg.getType() << " (invariant 3)";
            return WalkResult::interrupt();
          }
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  return verifyInstanceIndependence(space);
}
