//===- KIRIndexFacts.cpp - which view's values index which extent ---------===//
//
// See IndexFacts.h. A fact is derived only where it holds for every element
// of the index view: the read covering it is unmasked, runs unconditionally
// (no enclosing if, loop or fold: only parallel worksets), and walks each of
// its axes over a domain [0, extent) with step 1.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/KIR/IR/IndexFacts.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::kir;

namespace {

/// Whether `op` runs once for every point of the worksets around it: its ancestors up to the kernel
/// are parallel worksets only.
bool unconditional(Operation *op, KernelOp kernel) {
  for (Operation *p = op->getParentOp(); p && p != kernel.getOperation(); p = p->getParentOp())
    if (!isa<ParallelOp>(p))
      return false;
  return true;
}

/// Whether the domain `d` is [0, extent of axis `axis` of `view`) with step 1.
bool coversAxis(Value d, Value view, unsigned axis) {
  auto domain = d.getDefiningOp<DomainOp>();
  if (!domain || domain.getStep() != 1 || !matchPattern(domain.getLower(), m_Zero()))
    return false;
  auto type = cast<ViewType>(view.getType());
  if (std::optional<int64_t> size = type.getStaticExtent(axis)) {
    APInt upper;
    return matchPattern(domain.getUpper(), m_ConstantInt(&upper)) && upper.getSExtValue() == *size;
  }
  auto extent = domain.getUpper().getDefiningOp<ExtentOp>();
  return extent && extent.getName() == type.getExtentName(axis);
}

/// Whether the coordinate `c` takes every member of axis `axis` of `view`: a domain covering it, or
/// the block argument of an enclosing parallel workset over such a domain.
bool coversAxisAt(Value c, Value view, unsigned axis) {
  if (isa<DomainType>(c.getType()))
    return coversAxis(c, view, axis);
  auto arg = dyn_cast<BlockArgument>(c);
  if (!arg)
    return false;
  auto parallel = dyn_cast<ParallelOp>(arg.getOwner()->getParentOp());
  return parallel && arg.getArgNumber() < parallel.getDomains().size() &&
         coversAxis(parallel.getDomains()[arg.getArgNumber()], view, axis);
}

/// The kernel argument of an integer view whose every element the coordinate `c` is (through an
/// integer cast), or null.
BlockArgument indexSource(Value c, KernelOp kernel) {
  if (auto cast = c.getDefiningOp<CastOp>())
    c = cast.getOperand();
  auto viewArg = [&](Value v) -> BlockArgument {
    auto arg = dyn_cast<BlockArgument>(v);
    if (!arg || arg.getOwner() != &kernel.getBody().front())
      return {};
    auto type = dyn_cast<ViewType>(arg.getType());
    return type && type.getElementType().isIntOrIndex() ? arg : BlockArgument();
  };
  if (auto relation = c.getDefiningOp<IndexRelationOp>()) {
    BlockArgument map = viewArg(relation.getMap());
    if (map && unconditional(relation, kernel) && coversAxisAt(relation.getDomain(), map, 0))
      return map;
    return {};
  }
  if (auto load = c.getDefiningOp<LoadOp>()) {
    BlockArgument map = viewArg(load.getView());
    if (!map || load.getValid() || !unconditional(load, kernel) ||
        load.getCoords().size() != cast<ViewType>(map.getType()).getRank())
      return {};
    for (auto [axis, coord] : llvm::enumerate(load.getCoords()))
      if (!coversAxisAt(coord, map, axis))
        return {};
    return map;
  }
  return {};
}

} // namespace

SmallVector<IndexFact> kir::collectIndexFacts(KernelOp kernel) {
  SmallVector<IndexFact> facts;
  auto record = [&](Operation *access, Value view, OperandRange coords, Value valid) {
    auto target = dyn_cast<BlockArgument>(view);
    if (valid || !target || target.getOwner() != &kernel.getBody().front() || !unconditional(access, kernel))
      return;
    for (auto [axis, coord] : llvm::enumerate(coords)) {
      BlockArgument index = indexSource(coord, kernel);
      if (!index || index == target)
        continue;
      IndexFact fact{index.getArgNumber(), target.getArgNumber(), unsigned(axis)};
      if (!llvm::is_contained(facts, fact))
        facts.push_back(fact);
    }
  };
  kernel.walk([&](Operation *op) {
    llvm::TypeSwitch<Operation *>(op)
        .Case<LoadOp, GatherOp>([&](auto a) { record(a, a.getView(), a.getCoords(), a.getValid()); })
        .Case<StoreOp, ScatterOp, ScatterReduceOp>(
            [&](auto a) { record(a, a.getView(), a.getCoords(), a.getValid()); })
        .Case<AtomicRMWOp>([&](AtomicRMWOp a) { record(a, a.getView(), a.getCoords(), Value()); });
  });
  return facts;
}
