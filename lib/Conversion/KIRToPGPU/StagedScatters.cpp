//===- StagedScatters.cpp - a member's values staged before its scatter ---===//
//
// seed 000 §4 (a read reads the view where it stands: every element before
// any write of a later statement), §4.4 (invocation workspace), §9 (no
// barrier across program instances, but one within an instance).
//
// `v = logits[b, toks]; logits[b, toks] = f(v)` with `toks` read from memory
// (corpus 128, a token id twice in a row): KIR means every gather of the row
// before any of its writes, so a repeated id writes f(old) twice. Built as one
// element loop, each position gathers and writes on its own, and a repeat
// gathers another position's write (the H100 penalized such a logit twice).
// Here the member's values are staged instead, in two worksets of the member:
//
//   foreach i: W[member, i] = f(v)[i]          (every gather, into workspace)
//   foreach i: logits[b, toks[i]] = W[member, i]
//
// W is invocation workspace with one row per member of the parallel (its
// domains [0, n)) and one slot per element of the value (a rank-1 value over
// one domain [0, n)): members write disjoint rows, so programs never share
// an element of W, and the second loop reads only what its own member wrote.
// Both loops stay in the member's program instance (blocking spreads each
// over lanes; provider spelling puts a CTA barrier before a read of the
// instance's own workspace writes), so all of the member's gathers complete
// before any of its writes: the member's meaning, whatever the repeats.
//
// Fires on a kir.scatter directly in a kir.parallel body whose destinations
// come from memory and whose value reads its own view at coordinates not
// provably disjoint from them (scatterSelfRead). Must not fire on a scatter
// whose coordinates tell the positions apart or whose value does not read
// the written view (those run as one element loop, as before); a scatter
// that cannot be staged (not in a parallel body, a member domain or value
// not over [0, n) domains, a value of rank other than 1) is refused by
// checkInPlaceScatters with the reason.
//
//===----------------------------------------------------------------------===//

#include "KernelConstructor.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::construct;

/// The one kir domain the elements of rank-1 `value` range over: the domain operands of the ops it is
/// computed from (reads over a domain, broadcasts over one), or null when there are none or several.
static Value valueDomain(Value value) {
  SmallVector<Value> work{value};
  DenseSet<Value> seen;
  Value found;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    if (isa<kir::DomainType>(v.getType())) {
      if (found && found != v)
        return {};
      found = v;
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (!def || !isa<RankedTensorType>(v.getType()))
      continue;
    llvm::append_range(work, def->getOperands());
  }
  return found;
}

std::string tessel::construct::whyNotStaged(kir::ScatterOp scatter) {
  auto parallel = dyn_cast<kir::ParallelOp>(scatter->getParentOp());
  if (!parallel)
    return "the scatter is not directly in a kir.parallel body";
  OpBuilder b(scatter->getContext());
  for (Value d : parallel.getDomains())
    if (failed(workspaceExtent(b, d)))
      return "a domain of the parallel does not span [0, n) with step 1, n a view extent or a constant";
  if (cast<RankedTensorType>(scatter.getValue().getType()).getRank() != 1)
    return "the written value has rank other than 1";
  Value domain = valueDomain(scatter.getValue());
  if (!domain || failed(workspaceExtent(b, domain)))
    return "the written value does not range over one domain [0, n), n a view extent or a constant";
  return {};
}

LogicalResult KernelConstructor::emitStagedScatter(kir::ScatterOp op) {
  Location loc = op.getLoc();
  auto parallel = cast<kir::ParallelOp>(op->getParentOp());
  SmallVector<Attribute> extents;
  SmallVector<Value> members;
  for (auto [i, d] : llvm::enumerate(parallel.getDomains())) {
    extents.push_back(*workspaceExtent(b, d));
    members.push_back(map.lookup(parallel.getBody().getArgument(i))); // the member: lo 0, step 1
  }
  extents.push_back(*workspaceExtent(b, valueDomain(op.getValue())));
  Type element = cast<RankedTensorType>(op.getValue().getType()).getElementType();
  Value staged = addWorkspace(loc, element, extents, /*init=*/{});
  FailureOr<SmallVector<Value>> s = sizes(op.getValue());
  if (failed(s))
    return failure();
  auto slot = [&](ArrayRef<Value> positions) {
    SmallVector<Value> coords(members);
    llvm::append_range(coords, positions);
    return coords;
  };
  // Every value of the member first (its gathers of the view it writes, before any write)...
  if (failed(foreachNest(loc, *s, [&](ArrayRef<Value> positions) -> LogicalResult {
        FailureOr<Value> v = this->element(op.getValue(), positions);
        if (failed(v))
          return failure();
        pgpu::BufferStoreOp::create(b, loc, *v, staged, slot(positions), trueValue(loc));
        return success();
      })))
    return failure();
  // ...then every write, of the staged values.
  return foreachNest(loc, *s, [&](ArrayRef<Value> positions) -> LogicalResult {
    Value v = pgpu::BufferLoadOp::create(b, loc, element, staged, slot(positions), trueValue(loc), zeroOf(loc, element));
    return emitElementWrite(*op.getOperation(), v, positions);
  });
}
