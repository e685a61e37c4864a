//===- CrossLaneReads.cpp - reads of what other lanes of the program stored ===//
//
// The pgpu program is sequential within a program instance, but Triton orders
// a program's global accesses only within one thread: a fragment's elements
// are spread over the CTA's threads and a scalar is stored by one thread and
// read by all. A read of a view the program itself wrote (a sequential sweep
// that reads the decisions of earlier trips: corpus NMS, CTC's alpha rows)
// follows a CTA barrier, the provider-local expansion of the shared IR's
// memory effects (seed 000 §9); the selector's fenceWrite is the PTX rule.
//
//===----------------------------------------------------------------------===//

#include "CrossLaneReads.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace tessel;

namespace tessel::triton::spelling {
namespace {
/// Whether `op` is a persistent walk over an execution group's points (`pgpu.for %pid to TOTAL step
/// PROGRAMS` whose body dispatches a group at its induction variable): each trip is another program
/// instance of the unpersisted launch, whose threads read what another instance wrote only through a
/// ticket's acquire (barriers of their own, OpSpelling.cpp); the walk orders nothing between them.
bool programWalk(Operation *op) {
  auto loop = dyn_cast<pgpu::ForOp>(op);
  if (!loop || loop.getNumResults())
    return false;
  Value iv = loop.getBody().front().getArgument(0);
  return llvm::any_of(loop.getBody().front(), [&](Operation &inner) {
    auto group = dyn_cast<pgpu::ExecutionGroupOp>(inner);
    return group && group.getLinear() == iv;
  });
}

/// Ops whose region may run more than once per program: everything but branches, the groupings that
/// run their body once (conservative: a structured op's combine region stores nothing) and a
/// persistent walk's trips (one program instance each).
bool mayRepeat(Operation *op) {
  return isa<pgpu::PGPUDialect>(op->getDialect()) &&
         !isa<pgpu::IfOp, pgpu::ExecutionGroupOp, pgpu::LastProgramOp, pgpu::ProgramSpaceOp, pgpu::KernelOp>(op) &&
         !programWalk(op);
}

/// Whether `a` and `b` lie in different branches of one pgpu.if: no program runs both.
bool exclusive(Operation *a, Operation *b) {
  for (auto branch = a->getParentOfType<pgpu::IfOp>(); branch; branch = branch->getParentOfType<pgpu::IfOp>())
    if (branch->isAncestor(b))
      return branch.getThenRegion().isAncestor(a->getParentRegion()) !=
             branch.getThenRegion().isAncestor(b->getParentRegion());
  return false;
}

/// The loops (ops that may repeat) enclosing both `a` and `b`.
SmallVector<Operation *> sharedLoops(Operation *a, Operation *b) {
  SmallVector<Operation *> loops;
  for (Operation *p = b->getParentOp(); p; p = p->getParentOp())
    if (mayRepeat(p) && p->isAncestor(a))
      loops.push_back(p);
  return loops;
}

/// Whether `write` comes before `read` in program order within one trip of their shared loops.
bool before(Operation *write, Operation *read) {
  for (Operation *w = write; w; w = w->getParentOp())
    if (Operation *r = w->getBlock() ? w->getBlock()->findAncestorOpInBlock(*read) : nullptr)
      return w != r && w->isBeforeInBlock(r);
  return false;
}

/// Whether `loop` is a blocking loop (seed 000 §5): stepped by a declared parameter P, its lanes
/// iv + [0, P) (an iota of its induction variable), a block of an independent workset per trip, so a
/// trip's accesses through coordinates computed in it touch no element another trip touches.
bool blockingLoop(Operation *loop) {
  auto f = dyn_cast<pgpu::ForOp>(loop);
  if (!f || !f.getStep().getDefiningOp<pgpu::ParamOp>())
    return false;
  Value iv = f.getBody().front().getArgument(0);
  return llvm::any_of(iv.getUsers(), [&](Operation *u) { return isa<pgpu::IotaOp>(u); });
}

/// Whether `v` takes the same values in every trip of `loop`: defined outside it, the induction variable
/// of a loop inside it whose bounds and step are such, or a pure op's result of such operands.
bool invariant(Value v, Operation *loop, int depth = 0) {
  if (!loop->isAncestor(v.getParentBlock()->getParentOp()))
    return true;
  if (depth > 32)
    return false;
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    auto inner = dyn_cast<pgpu::ForOp>(arg.getOwner()->getParentOp());
    return inner && inner != loop && arg.getArgNumber() == 0 && invariant(inner.getLower(), loop, depth + 1) &&
           invariant(inner.getUpper(), loop, depth + 1) && invariant(inner.getStep(), loop, depth + 1);
  }
  Operation *def = v.getDefiningOp();
  return def->getNumRegions() == 0 && isMemoryEffectFree(def) &&
         llvm::all_of(def->getOperands(), [&](Value o) { return invariant(o, loop, depth + 1); });
}

/// Whether the program's `write` and `read` touch one element only through one thread: the same
/// coordinate values (computed outside each shared loop, or in a blocking loop's trip) into the same
/// 1-d fragment type of at least `threads` lanes (no replicated lanes, which read what their one
/// owner stored), so Triton gives both accesses the same layout.
bool sameLanes(Operation *write, Operation *read, ArrayRef<Operation *> loops, int64_t threads,
               llvm::function_ref<int64_t(pgpu::FragmentType)> lanes) {
  auto store = dyn_cast<pgpu::StoreOp>(write);
  auto load = dyn_cast<pgpu::LoadOp>(read);
  if (!store || !load || !llvm::equal(store.getCoords(), load.getCoords()))
    return false;
  auto type = dyn_cast<pgpu::FragmentType>(load.getType());
  if (!type || store.getValue().getType() != type || type.getExtents().size() != 1 || lanes(type) < threads)
    return false;
  return llvm::all_of(loops, [&](Operation *loop) {
    return blockingLoop(loop) || llvm::all_of(store.getCoords(), [&](Value c) { return invariant(c, loop); });
  });
}

/// Whether `a` (in a loop with induction variable `ivA`) and `b` (`ivB`) are computed alike: the same
/// value, the two induction variables, or the same op of operands computed alike.
bool alike(Value a, Value b, Value ivA, Value ivB, int depth = 0) {
  if (a == b)
    return true;
  if (a == ivA || b == ivB)
    return a == ivA && b == ivB;
  Operation *x = a.getDefiningOp(), *y = b.getDefiningOp();
  if (!x || !y || depth > 32 || x->getName() != y->getName() || x->getAttrDictionary() != y->getAttrDictionary() ||
      x->getNumRegions() || y->getNumRegions() || a.getType() != b.getType() || x->getNumOperands() != y->getNumOperands() ||
      cast<OpResult>(a).getResultNumber() != cast<OpResult>(b).getResultNumber() || !isMemoryEffectFree(x))
    return false;
  return llvm::all_of(llvm::zip(x->getOperands(), y->getOperands()),
                      [&](auto p) { return alike(std::get<0>(p), std::get<1>(p), ivA, ivB, depth + 1); });
}

/// Whether `write` and `read` lie in two sibling blocking loops over adjacent ranges of one workset
/// (its full blocks and its tail: one starts where the other ends, both stepped by one parameter)
/// and compute their coordinates alike from their lanes, the same in every trip of the `loops` around
/// both: they touch different elements.
bool adjacentBlocks(Operation *write, Operation *read, ArrayRef<Operation *> loops) {
  auto w = write->getParentOfType<pgpu::ForOp>(), r = read->getParentOfType<pgpu::ForOp>();
  if (!w || !r || w == r || w->getBlock() != r->getBlock() || !blockingLoop(w) || !blockingLoop(r) ||
      w.getStep() != r.getStep() || (w.getUpper() != r.getLower() && r.getUpper() != w.getLower()))
    return false;
  auto store = dyn_cast<pgpu::StoreOp>(write);
  auto load = dyn_cast<pgpu::LoadOp>(read);
  Value ivW = w.getBody().front().getArgument(0), ivR = r.getBody().front().getArgument(0);
  auto same = [&](Value c) { return llvm::all_of(loops, [&](Operation *loop) { return invariant(c, loop); }); };
  return store && load && store.getCoords().size() == load.getCoords().size() &&
         llvm::all_of(llvm::zip(store.getCoords(), load.getCoords()), [&](auto p) {
           return alike(std::get<0>(p), std::get<1>(p), ivW, ivR) && same(std::get<0>(p)) && same(std::get<1>(p));
         });
}

/// Whether `op` writes `view` (itself, or an op in its regions).
bool writes(Operation *op, Value view) {
  bool found = false;
  op->walk([&](Operation *w) {
    if (isa<pgpu::StoreOp, pgpu::ScatterOp, pgpu::ScatterReduceOp>(w) && w->getOperand(1) == view)
      found = true;
  });
  return found;
}

/// Whether `read` (a load or gather of a view) may read an element another thread of its program
/// wrote before it: a write of the view in the same finalization scope, not in an exclusive branch,
/// which precedes it or shares a loop with it, unless both touch each element from one thread.
bool readsOtherLanes(Operation *read, int64_t threads, llvm::function_ref<int64_t(pgpu::FragmentType)> lanes) {
  Value view = read->getOperand(0);
  auto last = read->getParentOfType<pgpu::LastProgramOp>();
  return llvm::any_of(view.getUsers(), [&](Operation *write) {
    if (!isa<pgpu::StoreOp, pgpu::ScatterOp, pgpu::ScatterReduceOp>(write) || write->getOperand(1) != view ||
        write->getParentOfType<pgpu::LastProgramOp>() != last || exclusive(write, read))
      return false;
    SmallVector<Operation *> loops = sharedLoops(write, read);
    // Only a later trip could read what the write stored: none does where every shared loop is a walk's
    // blocks, whose trips carry nothing and touch no element another touches (seed 000 §5).
    if (!before(write, read) && (loops.empty() || llvm::all_of(loops, [](Operation *l) {
                                   return blockingLoop(l) && cast<pgpu::ForOp>(l).getInits().empty();
                                 })))
      return false;
    return !sameLanes(write, read, loops, threads, lanes) && !adjacentBlocks(write, read, loops);
  });
}

/// Whether a barrier may stand before `op` for a read inside it: a loop or branch that writes `view`
/// nowhere (its reads depend only on writes before it), never out of a program grouping.
bool hoistable(Operation *op, Value view) {
  return op->getNumRegions() && !isa<pgpu::ExecutionGroupOp, pgpu::LastProgramOp, pgpu::ProgramSpaceOp, pgpu::KernelOp>(op) &&
         !writes(op, view);
}

/// Where the barrier for `read` of `view` stands: before the outermost enclosing op that writes the
/// view nowhere (one barrier before a loop of reads, not one a trip).
Operation *fencePoint(Operation *read, Value view) {
  Operation *at = read;
  while (Operation *parent = at->getParentOp()) {
    if (!hoistable(parent, view))
      break;
    at = parent;
  }
  return at;
}
} // namespace

bool barrierBefore(Operation *op, int64_t threads, llvm::function_ref<int64_t(pgpu::FragmentType)> lanes,
                   llvm::DenseSet<std::pair<Operation *, Value>> &fenced) {
  if (!isa<pgpu::LoadOp, pgpu::GatherOp>(op) && !op->getNumRegions())
    return false;
  SmallVector<Value> views;
  op->walk([&](Operation *read) {
    if (!isa<pgpu::LoadOp, pgpu::GatherOp>(read))
      return;
    Value view = read->getOperand(0);
    if (!llvm::is_contained(views, view) && fencePoint(read, view) == op && readsOtherLanes(read, threads, lanes))
      views.push_back(view);
  });
  bool barrier = false;
  for (Value view : views) {
    fenced.insert({op, view});
    // A barrier before an earlier op of the same straight-line code (through enclosing branches, not
    // out of a loop whose later trips follow its writes) orders this read too, unless a write between.
    bool ordered = false, done = false;
    for (Operation *at = op; at && !done; at = at->getParentOp()) {
      if (at != op && !isa<pgpu::IfOp>(at))
        break;
      for (Operation *prev = at->getPrevNode(); prev && !done; prev = prev->getPrevNode()) {
        if (fenced.contains({prev, view}))
          ordered = done = true;
        else if (writes(prev, view))
          done = true;
      }
    }
    barrier |= !ordered;
  }
  return barrier;
}

} // namespace tessel::triton::spelling
