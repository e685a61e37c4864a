//===- KIRToPGPU.cpp - construct the initial physical program --------------===//
//
// seed 002 §3.1: KIR, canonical facts and the target produce the complete
// initial pgpu program. Worksets (top-level kir.parallel ops) become
// one-dimensional segments of the program space with LaunchExpr lengths,
// prefix offsets and explicit dispatch guards; each program instance owns one
// point of its workset. Logical tensors are realized element by element: a
// consumer evaluates the element it needs at explicit positions, replaying
// pure producers (loads, pointwise math, broadcasts) at that point, and
// reductions/contractions become ordered physical loops with carries. Every
// access is emitted with coordinates, validity and fill. Blocking into
// fragments belongs to later pass groups (seed 002 §3.3).
//
// This file holds the pass and the kernel's construction: the top level
// classified into worksets (joined where stores share coordinates), each a
// segment of the program space. The statements of a workset are
// Statements.cpp's, tensors realized element by element TensorElements.cpp's,
// region folds and scans RegionFolds.cpp's, the scalars, domains and loop
// nests they build on Values.cpp's (KernelConstructor.h: the shared state).
//
//===----------------------------------------------------------------------===//

#include "tessel/Conversion/Passes.h"
#include "tessel/Dialect/KIR/IR/IndexFacts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/ScopeExit.h"

namespace tessel {
#define GEN_PASS_DEF_CONVERTKIRTOPGPU
#include "tessel/Conversion/Passes.h.inc"
} // namespace tessel

using namespace mlir;
using namespace tessel;

#include "FoldWorkset.h"
#include "KernelConstructor.h"

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

using namespace tessel::construct;

/// Views a workset reads and writes (for the one-launch independence check).
void tessel::construct::collectViews(Operation *op, DenseSet<Value> &reads, DenseSet<Value> &writes) {
  op->walk([&](Operation *inner) {
    for (Value operand : inner->getOperands()) {
      if (!isa<kir::ViewType>(operand.getType()))
        continue;
      if (isa<kir::StoreOp, kir::ScatterOp, kir::ScatterReduceOp, kir::AtomicStoreOp, kir::AtomicRMWOp,
              kir::AtomicCASOp>(inner))
        writes.insert(operand);
      else
        reads.insert(operand);
    }
  });
}

/// A top-level runtime kir.if with scalar results whose branches only compute and read (the DSL's
/// `a if c else b` on kernel-level scalars) is replayed in the worksets that use it, like the reads
/// and values it selects between (seed 002 §3.4). Found by the DSL fuzzer: it was refused as "neither
/// a launch-time fact nor a pure value read before the worksets".
static bool replayableIf(Operation &op) {
  auto branch = dyn_cast<kir::IfOp>(op);
  if (!branch || branch.getIsConstexpr() ||
      llvm::any_of(branch.getResultTypes(), [](Type t) { return !t.isIntOrIndexOrFloat(); }))
    return false;
  WalkResult walk = branch->walk([&](Operation *nested) {
    if (nested == branch.getOperation() || isa<kir::LoadOp, kir::GatherOp, kir::IfOp, kir::YieldOp>(nested) ||
        isMemoryEffectFree(nested))
      return WalkResult::advance();
    return WalkResult::interrupt();
  });
  return !walk.wasInterrupted();
}

/// A top-level runtime kir.for carrying tensors whose body only computes and reads (no write, at
/// any depth) -- the kernel-level `for kb in T.domain(0, KB): acc = acc + T.matmul(...) * ...` of a
/// block-scaled GEMM -- is a value like the others replayed in the worksets: an element of its result
/// is the same loop run at that element's positions, carrying the element (CarriedTensors.cpp, seed
/// 000 §5 ordered loops and loop-carried values; seed 002 §3.4). Whether its body is elementwise
/// along the carried axes is checked there, at the op. A loop with a write stays refused here: its
/// effects must be inside a workset.
static bool replayableFor(Operation &op) {
  auto loop = dyn_cast<kir::ForOp>(op);
  if (!loop || llvm::none_of(loop.getInits().getTypes(), [](Type t) { return isa<RankedTensorType>(t); }))
    return false;
  WalkResult walk = loop->walk([&](Operation *nested) {
    if (nested == loop.getOperation() ||
        isa<kir::LoadOp, kir::GatherOp, kir::ForOp, kir::IfOp, kir::YieldOp>(nested) || isMemoryEffectFree(nested))
      return WalkResult::advance();
    return WalkResult::interrupt();
  });
  return !walk.wasInterrupted();
}

/// The views that `op` and the ops nested in it read.
static void viewsReadIn(Operation *op, DenseSet<Value> &views) {
  op->walk([&](Operation *nested) {
    for (Value operand : nested->getOperands())
      if (isa<kir::ViewType>(operand.getType()))
        views.insert(operand);
  });
}

/// Whether `op` stores +0 (the identity of an add) into every element of `view`: a store of a
/// broadcast constant over [0, extent) of each of the view's axes, in order, unmasked.
static bool zeroFillOf(Operation *op, Value view) {
  auto store = dyn_cast<kir::StoreOp>(op);
  auto type = dyn_cast<kir::ViewType>(view.getType());
  if (!store || !type || store.getView() != view || store.getValid() || store.getCoords().size() != type.getRank())
    return false;
  auto broadcast = store.getValue().getDefiningOp<kir::BroadcastOp>();
  Attribute c;
  if (!broadcast || !matchPattern(broadcast.getOperand(), m_Constant(&c)))
    return false;
  auto f = dyn_cast<FloatAttr>(c);
  auto i = dyn_cast<IntegerAttr>(c);
  if (!(f && f.getValue().isPosZero()) && !(i && i.getValue().isZero()))
    return false;
  for (auto [axis, coord] : llvm::enumerate(store.getCoords())) {
    auto d = coord.getDefiningOp<kir::DomainOp>();
    auto upper = d ? d.getUpper().getDefiningOp<kir::ExtentOp>() : kir::ExtentOp();
    if (!d || d.getStep() != 1 || !matchPattern(d.getLower(), m_Zero()) || !upper ||
        upper.getName() != type.getExtentName(axis))
      return false;
  }
  return true;
}

LogicalResult KernelConstructor::classifyTopLevel(Block &block, SmallVectorImpl<Workset> &worksets) {
  for (Operation &op : block.without_terminator()) {
    if (auto p = dyn_cast<kir::ParallelOp>(op)) {
      Workset w{p, {}};
      for (Value d : p.getDomains()) {
        // The grid is a LaunchExpr (seed 000 §2): a member domain bounded by a value read from memory or
        // computed from a float is replayed, not a launch-time fact, and sizes no grid.
        Value size = domains.lookup(d).size;
        if (!size)
          return p.emitError() << "kir-to-pgpu: this T.parallel's domain is bounded by a value read from memory "
                                  "or computed from a float; the members of a T.parallel are launched, so its "
                                  "bounds must be launch-time facts (view extents, integer kernel scalars, "
                                  "constants and integer arithmetic on them). Parallelize over a launch-time "
                                  "bound instead and skip the members past the data-dependent one with `if`";
        w.extents.push_back(size);
      }
      worksets.push_back(w);
      continue;
    }
    if (isa<kir::StoreOp, kir::ScatterOp, kir::ScatterReduceOp>(op)) {
      Value value = op.getOperand(0);
      FailureOr<SmallVector<StoredScan>> scans = scansOfStored(op);
      if (failed(scans))
        return failure();
      Workset w{&op, {}};
      if (!scans->empty()) {
        // A top-level write of a value computed from scans (LLaVA's merge by rank, corpus 264): one
        // instance per line along the other axes, each a range scan along the scan axis, as if the
        // kernel had written a kir.parallel over those axes (ScanValues.cpp).
        if (isa<kir::ScatterReduceOp>(op))
          return op.emitError() << "kir-to-pgpu: a top-level scatter-reduce computed from a scan is not "
                                   "constructed yet; scan inside a kir.parallel over the other axes";
        FailureOr<SmallVector<Value>> extents = sizes(value);
        if (failed(extents))
          return failure();
        w.extents = *extents;
        w.extents.erase(w.extents.begin() + scannedAxis(*scans));
        w.scans = *scans;
        worksets.push_back(w);
        continue;
      }
      if (kir::HistogramOp h = mergedHistogram(op)) {
        // One instance per source element; the bins are merged through workspace (HistogramMerge.cpp).
        FailureOr<SmallVector<Value>> extents = sizes(h.getInput());
        if (failed(extents))
          return failure();
        w.extents = *extents;
        worksets.push_back(w);
        continue;
      }
      if (auto store = dyn_cast<kir::StoreOp>(op); store && llvm::any_of(store.getCoords(), [&](Value c) {
            return dataDependent.contains(c);
          })) {
        // A store over a data-dependent subregion: its instances are those of the launch-time domain
        // the subregion cuts (a superset), each inside the subregion's bounds storing one element.
        if (store.getValid() || !isa<RankedTensorType>(value.getType()))
          return op.emitError() << "kir-to-pgpu: a masked or scalar store over a data-dependent domain is not "
                                   "constructed yet";
        for (Value c : store.getCoords()) {
          Value root = c;
          while (auto sub = root.getDefiningOp<kir::SubregionOp>())
            root = sub.getSource();
          if (!isa<kir::DomainType>(c.getType()) || dataDependent.contains(root))
            return op.emitError() << "kir-to-pgpu: a store over a data-dependent domain needs every coordinate "
                                     "to be a subregion of a launch-time domain";
          w.extents.push_back(domains.lookup(root).size);
          w.roots.push_back(root);
        }
        worksets.push_back(w);
        continue;
      }
      if (isa<RankedTensorType>(value.getType())) {
        FailureOr<SmallVector<Value>> extents = sizes(value);
        if (failed(extents))
          return failure();
        w.extents = *extents;
      }
      worksets.push_back(w);
      continue;
    }
    if (auto branch = dyn_cast<kir::IfOp>(op); branch && branch.getIsConstexpr()) {
      APInt taken;
      if (!matchPattern(map.lookup(branch.getCondition()), m_ConstantInt(&taken)))
        return branch.emitError() << "kir-to-pgpu: constexpr condition did not fold";
      Region &region = taken.isZero() ? branch.getElseRegion() : branch.getThenRegion();
      if (region.empty())
        continue;
      if (failed(classifyTopLevel(region.front(), worksets)))
        return failure();
      for (auto [r, y] : llvm::zip(branch.getResults(), region.front().getTerminator()->getOperands())) {
        if (Value mapped = map.lookupOrNull(y))
          map.map(r, mapped);
        else
          aliases[r] = y;
      }
      continue;
    }
    if (auto buffer = dyn_cast<kir::BufferOp>(op)) {
      if (failed(emitKernelBuffer(buffer)))
        return failure();
      continue;
    }
    // Integer arithmetic on integers: a comparison of floats (`s > 0.5` on a kernel scalar) has an i1
    // result but is no LaunchExpr (seed 000 invariant 2; found by the DSL fuzzer: "'pgpu.cmp' op is
    // outside the program space"): it is replayed in the worksets like other float math.
    bool launchFact = isa<arith::ConstantOp, kir::ExtentOp, kir::ConstexprOp, kir::DomainOp, kir::SubregionOp>(op) ||
                      (isa<kir::BinaryOp, kir::CmpOp, kir::SelectOp, kir::CastOp>(op) &&
                       op.getResult(0).getType().isIntOrIndex() &&
                       llvm::all_of(op.getOperandTypes(), [](Type t) { return t.isIntOrIndex(); }));
    // Integer arithmetic and domains over values read from memory are not launch-time facts: they
    // are replayed in each workset like the reads they follow (seed 000 §6: data-dependent bounds).
    if (launchFact && llvm::any_of(op.getOperands(), [&](Value v) { return dataDependent.contains(v); }))
      launchFact = false;
    if (launchFact) {
      if (failed(emitLaunchFact(op)))
        return failure();
      continue;
    }
    bool replayable = isMemoryEffectFree(&op) || isa<kir::LoadOp, kir::GatherOp, kir::IndexRelationOp>(op) ||
                      replayableIf(op) || replayableFor(op) ||
                      (isa<kir::BufferLoadOp>(op) && kernelBuffers.contains(cast<kir::BufferLoadOp>(op).getBuffer()));
    if (!replayable)
      return op.emitError() << "kir-to-pgpu: top-level '" << op.getName()
                            << "' is neither a launch-time fact nor a pure value read before the worksets; "
                               "effects must be inside a kir.parallel workset";
    replayed.push_back(&op);
    dataDependent.insert(op.getResults().begin(), op.getResults().end());
  }
  return success();
}

/// One element of an element-wise workset at `positions`: the replayed pure values, then the
/// parallel body (its domains' members at the positions), the histogram merge, or the element store.
LogicalResult KernelConstructor::emitWorksetElement(Workset &w, ArrayRef<Value> positions) {
  for (Operation *pure : replayed) {
    // Scalars already computed where this element can see them (a hoisting finalization's) are kept.
    if (pure->getNumResults() && llvm::all_of(pure->getResults(), [&](Value r) {
          Value mapped = map.lookupOrNull(r);
          return !isa<RankedTensorType>(r.getType()) && mapped && visibleHere(mapped);
        }))
      continue;
    if (failed(emitStatement(*pure)))
      return failure();
  }
  if (auto p = dyn_cast<kir::ParallelOp>(w.op)) {
    Block &kirBody = p.getBody().front();
    for (auto [i, d] : llvm::enumerate(p.getDomains()))
      map.map(kirBody.getArgument(i), member(w.op->getLoc(), domains.lookup(d), positions[i]));
    return emitBlock(kirBody);
  }
  if (w.partial)
    return emitHistogramMerge(*w.op, w.partial, positions);
  if (!w.scans.empty())
    return emitScanLine(w.scans, *w.op, positions);
  if (!w.roots.empty()) {
    // Positions over the launch-time domains; the store's subregions were just replayed. Each axis:
    // its position in the subregion and whether the element lies inside it.
    Location loc = w.op->getLoc();
    auto store = cast<kir::StoreOp>(w.op);
    SmallVector<Value> inner;
    Value inside = trueValue(loc);
    for (auto [c, root, q] : llvm::zip(store.getCoords(), w.roots, positions)) {
      if (c == root) {
        inner.push_back(q);
        continue;
      }
      DomainVals d = domains.lookup(c), r = domains.lookup(root);
      Value offset = binary(loc, kir::BinaryKind::Div, binary(loc, kir::BinaryKind::Sub, d.lo, r.lo), r.step);
      Value end = binary(loc, kir::BinaryKind::Add, offset, d.size);
      Value from = pgpu::CmpOp::create(b, loc, kir::CmpPredicate::GE, q, offset);
      Value below = pgpu::CmpOp::create(b, loc, kir::CmpPredicate::LT, q, end);
      inside = boolOp(loc, kir::BinaryKind::And, inside, boolOp(loc, kir::BinaryKind::And, from, below));
      inner.push_back(binary(loc, kir::BinaryKind::Sub, q, offset));
    }
    auto guard = pgpu::IfOp::create(b, loc, TypeRange(), inside);
    OpBuilder::InsertionGuard g(b);
    b.createBlock(&guard.getThenRegion());
    if (failed(emitElementStore(*w.op, inner)))
      return failure();
    pgpu::YieldOp::create(b, loc);
    return success();
  }
  for (Value read : w.readFirst)
    if (failed(element(read, positions)))
      return failure();
  if (failed(emitElementStore(*w.op, positions)))
    return failure();
  for (Operation *store : w.joined)
    if (failed(emitElementStore(*store, positions)))
      return failure();
  return success();
}

/// A plain store of a tensor over launch-time domains (no histogram, mask-free coordinates only).
static bool plainTensorStore(Operation *op) {
  auto store = dyn_cast_or_null<kir::StoreOp>(op);
  return store && isa<RankedTensorType>(store.getValue().getType()) &&
         llvm::all_of(store.getCoords(), [](Value c) { return isa<kir::DomainType>(c.getType()); });
}

bool KernelConstructor::plainStores(const Workset &w) {
  return plainTensorStore(w.op) && !mergedHistogram(*w.op) && w.roots.empty() && !w.partial && w.scans.empty();
}

bool KernelConstructor::alignedInPlace(Workset &w, Value view, bool scalarSinks) {
  // A scalar store updates its one element in place like a tensor store its elements: its replayed
  // scalar reads are realized where they stand, before the store, in the one instance that stores
  // (seed 000 §4: a value is what the source computed).
  // An unmasked top-level store of a scalar at index coordinates (`found_inf[0] = T.where(bad, 1.0,
  // found_inf[0])`, corpus 260): a workset of one instance writing one element.
  auto store = dyn_cast<kir::StoreOp>(w.op);
  bool scalar = store && !isa<RankedTensorType>(store.getValue().getType()) && !store.getValid() &&
                w.extents.empty() && w.joined.empty() && w.roots.empty() && !w.partial &&
                llvm::all_of(store.getCoords(), [](Value c) { return c.getType().isIndex(); });
  if (!scalar && !plainStores(w))
    return false;
  ValueRange coords = cast<kir::StoreOp>(w.op).getCoords();
  DenseSet<Operation *> stores{w.op};
  stores.insert(w.joined.begin(), w.joined.end());
  SmallVector<Value> loads;
  for (Operation *pure : replayed) {
    if (isa<kir::IfOp>(pure)) { // a read inside a replayed branch is not at the store's coordinates
      DenseSet<Value> read;
      viewsReadIn(pure, read);
      if (read.contains(view))
        return false;
      continue;
    }
    if (!llvm::is_contained(pure->getOperands(), view))
      continue;
    auto load = dyn_cast<kir::LoadOp>(pure);
    if (!load || load.getCoords() != coords || load.getValid())
      return false;
    // Its element may reach only this workset's stores, through ops that keep positions.
    SmallVector<Operation *> work(load->getUsers().begin(), load->getUsers().end());
    DenseSet<Operation *> seen;
    while (!work.empty()) {
      Operation *user = work.pop_back_val();
      if (!seen.insert(user).second || stores.contains(user))
        continue;
      // A whole-view reduction to scalars: with `scalarSinks` the caller computes it before any store.
      if (scalarSinks && isa<kir::ReduceOp>(user) && user->getBlock() == load->getBlock() &&
          llvm::none_of(user->getResultTypes(), [](Type t) { return isa<RankedTensorType>(t); }))
        continue;
      bool elementwise = isa<kir::BinaryOp, kir::UnaryOp, kir::CmpOp, kir::SelectOp, kir::CastOp, kir::BitcastOp>(user) &&
                         user->getNumResults() == 1 &&
                         (scalar ? !isa<RankedTensorType>(user->getResult(0).getType())
                                 : isa<RankedTensorType>(user->getResult(0).getType()) &&
                                       llvm::all_of(user->getOperands(), [&](Value o) {
                                         return !isa<RankedTensorType>(o.getType()) ||
                                                cast<RankedTensorType>(o.getType()).getRank() ==
                                                    cast<RankedTensorType>(load.getType()).getRank();
                                       }));
      if (!elementwise || user->getBlock() != load->getBlock())
        return false;
      work.append(user->getUsers().begin(), user->getUsers().end());
    }
    // A read after a store of the view reads what that store wrote (the latest such store): forward
    // the stored value; a read before the first one is realized before any store.
    kir::StoreOp latest;
    for (Operation *store : stores) {
      auto st = cast<kir::StoreOp>(store);
      if (st.getView() != view || st->getBlock() != load->getBlock() || !st->isBeforeInBlock(load))
        continue;
      if (!latest || latest->isBeforeInBlock(st))
        latest = st;
    }
    if (latest && latest.getValid())
      return false; // a masked store leaves some elements as they were
    if (latest)
      aliases[load.getResult()] = latest.getValue();
    else if (!scalar) // a scalar read is replayed where it stands, before the store
      loads.push_back(load.getResult());
  }
  w.readFirst.append(loads.begin(), loads.end());
  // In source order, whatever order the views were checked in (the caller walks a set): the same
  // kernel compiles to the same text.
  llvm::stable_sort(w.readFirst, [](Value a, Value b) { return a.getDefiningOp()->isBeforeInBlock(b.getDefiningOp()); });
  return true;
}

SmallVector<Operation *> KernelConstructor::worksetUses(const Workset &w) {
  SmallVector<Operation *> uses = replayedUses(w.op);
  for (Operation *store : w.joined)
    llvm::append_range(uses, replayedUses(store));
  return uses;
}

void KernelConstructor::worksetViews(const Workset &w, DenseSet<Value> &reads, DenseSet<Value> &writes) {
  collectViews(w.op, reads, writes);
  for (Operation *store : w.joined)
    collectViews(store, reads, writes);
}

SmallVector<Operation *> KernelConstructor::replayedUses(Operation *root) {
  DenseSet<Operation *> replayedOps(replayed.begin(), replayed.end()), used;
  SmallVector<Operation *> work{root};
  DenseSet<Operation *> seen;
  while (!work.empty()) {
    Operation *top = work.pop_back_val();
    if (!seen.insert(top).second)
      continue;
    top->walk([&](Operation *inner) {
      for (Value operand : inner->getOperands())
        if (Operation *def = operand.getDefiningOp(); def && replayedOps.contains(def)) {
          used.insert(def);
          work.push_back(def);
        }
    });
  }
  SmallVector<Operation *> ordered;
  for (Operation *pure : replayed)
    if (used.contains(pure))
      ordered.push_back(pure);
  return ordered;
}

void KernelConstructor::joinStores(SmallVectorImpl<Workset> &worksets,
                                   function_ref<void(Operation *, DenseSet<Value> &, DenseSet<Value> &)> accesses) {
  SmallVector<Workset, 4> merged;
  // What the last merged workset's stores read and write, all of them.
  DenseSet<Value> lastReads, lastWrites;
  for (Workset &w : worksets) {
    DenseSet<Value> reads, writes;
    accesses(w.op, reads, writes);
    if (!merged.empty() && plainStores(merged.back()) && plainStores(w) &&
        cast<kir::StoreOp>(merged.back().op).getCoords() == cast<kir::StoreOp>(w.op).getCoords() &&
        // No store of the merged workset may read what another writes: every instance stores its
        // elements after computing them, and other instances' elements are not ordered with it.
        llvm::none_of(writes, [&](Value v) { return lastReads.contains(v) || lastWrites.contains(v); }) &&
        llvm::none_of(lastWrites, [&](Value v) { return reads.contains(v); })) {
      merged.back().joined.push_back(w.op);
      lastReads.insert(reads.begin(), reads.end());
      lastWrites.insert(writes.begin(), writes.end());
      if (pgpu::remarksEnabled(kernel))
        emitRemark(w.op->getLoc()) << "kir-to-pgpu: this store joins the workset of the store before it (same "
                                      "coordinates): values they share are computed once per element";
      continue;
    }
    merged.push_back(w);
    lastReads = std::move(reads);
    lastWrites = std::move(writes);
  }
  worksets.assign(merged.begin(), merged.end());
}

/// A tensor read of a view inside a kir.parallel member whose value is still used after a store to
/// that view in the member. KIR reads the view where the load stands (seed 000 §4: a value is what the
/// source computed), but construction realizes a tensor's elements where they are used, so those uses
/// would read what the store wrote: refused at the read rather than constructed wrong. Scalar reads
/// are realized where they stand and are not affected.
static LogicalResult checkReadsBeforeStores(kir::ParallelOp p) {
  // Reads whose old values an in-place group of stores keeps (InPlaceStores.cpp) are realized before
  // any of its writes.
  InPlaceGroups inPlace = inPlaceGroups(p.getBody().front());
  // Reads in the member's own block; a loop nested in it checks its own reads and writes
  // (CarriedTensors.cpp: a loop may not read a view it writes).
  // Reads through index tensors (kir.gather: `q[b, s, h, 2 * p]`) and stores through them (kir.scatter)
  // alike: corpus 163 stored q's even lanes and then recomputed the odd store from a gather of q that
  // read the new values, with no error.
  WalkResult result = p.getBody().walk([&](Operation *read) {
    Value view;
    if (auto load = dyn_cast<kir::LoadOp>(read))
      view = load.getView();
    else if (auto gather = dyn_cast<kir::GatherOp>(read))
      view = gather.getView();
    if (!view || read->getNumResults() != 1 || !isa<RankedTensorType>(read->getResult(0).getType()) ||
        read->getBlock() != &p.getBody().front() || inPlace.keptReads.contains(read->getResult(0)))
      return WalkResult::advance();
    Block *block = read->getBlock();
    // The first store to the view after the read in its block (or inside an op after it there).
    Operation *store = nullptr;
    for (Operation *op = read->getNextNode(); op && !store; op = op->getNextNode()) {
      op->walk([&](Operation *inner) {
        auto st = dyn_cast<kir::StoreOp>(inner);
        auto sc = dyn_cast<kir::ScatterOp>(inner);
        if (!store && ((st && st.getView() == view) || (sc && sc.getView() == view)))
          store = op;
      });
    }
    if (!store)
      return WalkResult::advance();
    // Every op the read's value reaches, as the op of `block` holding it; `mixed`: through an op whose
    // tensor result combines the read's elements across positions (a reduction or contraction to a
    // tensor, a scan, a transpose, ...), realized lazily like every tensor, element by element where
    // the store uses it.
    SmallVector<std::pair<Value, bool>> work{{read->getResult(0), false}};
    DenseSet<Operation *> seen[2]; // reached unmixed, mixed
    while (!work.empty()) {
      auto [v, mixed] = work.pop_back_val();
      for (Operation *user : v.getUsers()) {
        if (!seen[mixed].insert(user).second)
          continue;
        // A store to the view of a value mixed from the read: the store writes its elements one by one
        // (a row, a block at a time) and realizes each from read elements of other positions, some
        // already overwritten: the stored value would read the stored values (issue 47, corpus 243's
        // S^T k recomputed per stored row). Refused, never constructed wrong.
        auto st = dyn_cast<kir::StoreOp>(user);
        auto sc = dyn_cast<kir::ScatterOp>(user);
        if (mixed && ((st && st.getView() == view && st.getValue() == v) || (sc && sc.getView() == view && sc.getValue() == v))) {
          InFlightDiagnostic d = read->emitError()
                                 << "kir-to-pgpu: this read of the view reaches a store to the same view in the "
                                    "member through an op that combines its elements across positions; "
                                    "construction realizes the stored tensor element by element at the store, so "
                                    "later elements would read what earlier ones stored. Store the updated values "
                                    "to another view, or compute the combined value from a copy";
          d.attachNote(user->getLoc()) << "the store";
          return WalkResult::interrupt();
        }
        Operation *at = block->findAncestorOpInBlock(*user);
        if (at && at != store && store->isBeforeInBlock(at)) {
          InFlightDiagnostic d = read->emitError()
                                 << "kir-to-pgpu: this read of the view is used after a store to the same view "
                                    "in the member; construction realizes a tensor's elements where they are used, "
                                    "so that use would read the stored values. Use the value before the store, or "
                                    "store it to another view first";
          d.attachNote(store->getLoc()) << "the store";
          d.attachNote(user->getLoc()) << "a use after it";
          return WalkResult::interrupt();
        }
        bool mixes = isa<kir::ReduceOp, kir::ArgReduceOp, kir::ScanOp, kir::ContractOp, kir::ScaledContractOp,
                         kir::SparseContractOp, kir::TransposeOp, kir::ReshapeOp, kir::JoinOp, kir::RegionFoldOp,
                         kir::RegionScanOp>(user);
        for (Value r : user->getResults())
          work.push_back({r, mixed || (mixes && isa<RankedTensorType>(r.getType()))});
      }
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

LogicalResult KernelConstructor::run() {
  Location loc = kernel.getLoc();
  MLIRContext *ctx = kernel.getContext();
  // The ABI: views become pgpu views; names and scalars are kept.
  SmallVector<Type> argTypes;
  for (Type type : kernel.getArgumentTypes()) {
    if (auto view = dyn_cast<kir::ViewType>(type))
      argTypes.push_back(pgpu::ViewType::get(ctx, view.getElementType(), view.getExtents(), view.getMode()));
    else
      argTypes.push_back(type);
  }
  physical = pgpu::KernelOp::create(b, loc, kernel.getSymName(), b.getFunctionType(argTypes, {}),
                                    kernel.getArgAttrsAttr(), ArrayAttr(), ArrayAttr());
  // Which integer views' values are coordinates into which extents: ABI facts the wrappers' checked
  // launch mode validates (kir/IndexFacts.h).
  llvm::MapVector<unsigned, SmallVector<Attribute>> indexes;
  for (kir::IndexFact fact : kir::collectIndexFacts(kernel))
    indexes[fact.index].push_back(b.getArrayAttr({b.getI64IntegerAttr(fact.target), b.getI64IntegerAttr(fact.axis)}));
  for (auto &[arg, entries] : indexes)
    physical.setArgAttr(arg, pgpu::PGPUDialect::getIndexesAttrName(), b.getArrayAttr(entries));
  Block *entry = b.createBlock(&physical.getBody());
  for (Type t : argTypes)
    entry->addArgument(t, loc);
  for (auto [kirArg, physArg] : llvm::zip(kernel.getBody().getArguments(), entry->getArguments()))
    map.map(kirArg, physArg);

  // Merged scatter-adds whose view's zero fill was dropped: the last program copies their sums.
  DenseSet<Operation *> copiedMerges;

  // Launch-time facts, then the worksets in order.
  // Pure top-level values that are not launch-time facts (float scalars,
  // logical tensors, reads of views) are realized inside every workset that
  // uses them: replaying pure producers is legal (seed 002 §3.4).
  SmallVector<Workset, 4> worksets;
  SmallVector<Operation *> bufferFinals; // finalizations that write a kernel-level buffer
  if (failed(classifyTopLevel(kernel.getBody().front(), worksets)))
    return failure();
  if (worksets.empty())
    return kernel.emitError() << "kir-to-pgpu: the kernel has no kir.parallel workset; whole-tensor top-level "
                                 "kernels are not constructed yet";
  // One launch has no barrier between worksets. A workset that touches what an earlier one wrote, or
  // writes what an earlier one touched (views and kernel-level buffers alike), runs whole in the last
  // program instance instead, after every instance of the others (KernelBuffers.cpp), in source
  // order with the other such worksets. Views read by pure top-level values (replayed in every
  // workset) must not be written at all.
  {
    DenseSet<Operation *> replayedOps(replayed.begin(), replayed.end());
    DenseSet<Value> replayedReads;
    for (Operation *pure : replayed)
      viewsReadIn(pure, replayedReads); // a replayed kir.if's reads included
    // The views and kernel buffers a workset reads and writes, the buffers read through the replayed
    // values it uses included.
    auto accesses = [&](Operation *root, DenseSet<Value> &reads, DenseSet<Value> &writes) {
      collectViews(root, reads, writes);
      SmallVector<Operation *> work{root};
      DenseSet<Operation *> seen;
      while (!work.empty()) {
        Operation *top = work.pop_back_val();
        if (!seen.insert(top).second)
          continue;
        top->walk([&](Operation *inner) {
          if (auto l = dyn_cast<kir::BufferLoadOp>(inner); l && kernelBuffers.contains(l.getBuffer()))
            reads.insert(l.getBuffer());
          if (auto st = dyn_cast<kir::BufferStoreOp>(inner); st && kernelBuffers.contains(st.getBuffer()))
            writes.insert(st.getBuffer());
          for (Value operand : inner->getOperands())
            if (Operation *def = operand.getDefiningOp(); def && replayedOps.contains(def))
              work.push_back(def);
        });
      }
    };
    joinStores(worksets, accesses);
    DenseSet<Value> earlierWrites, earlierReads;
    DenseMap<Value, SmallVector<Operation *>> earlierStores; // by view; null: a write without coordinates
    // Views updated in place by a hoisting finalization, with its store: replayed values defined
    // before that store read the view's earlier elements, so a later workset using them must run
    // before the last program (as a segment).
    SmallVector<std::pair<Value, Operation *>> pinned;
    for (Workset &w : worksets) {
      DenseSet<Value> reads, writes;
      accesses(w.op, reads, writes);
      for (Operation *store : w.joined)
        accesses(store, reads, writes);
      // A later workset using replayed values that read a pinned view before its update.
      bool early = false;
      // The views this workset reads itself, and the replayed producers it uses (the same for every pinned
      // view: gathered once).
      DenseSet<Value> direct, ignored;
      SmallVector<Operation *> uses;
      if (!pinned.empty()) {
        collectViews(w.op, direct, ignored);
        uses = replayedUses(w.op);
        for (Operation *store : w.joined) {
          collectViews(store, direct, ignored);
          llvm::append_range(uses, replayedUses(store));
        }
      }
      for (auto [view, at] : pinned) {
        if (!reads.contains(view))
          continue;
        bool before = false, after = direct.contains(view);
        for (Operation *pure : uses) {
          DenseSet<Value> read;
          viewsReadIn(pure, read);
          if (!read.contains(view))
            continue;
          Operation *top = at->getBlock()->findAncestorOpInBlock(*pure);
          if (!top)
            after = true; // no order to prove against the update: treated as a later read (refused below)
          else if (top->isBeforeInBlock(at))
            before = true;
          else
            after = true;
        }
        if (before && after)
          return w.op->emitError() << "kir-to-pgpu: this workset uses values read from a view both before and "
                                      "after its in-place update; they cannot run in one order in one launch";
        if (before) {
          reads.erase(view); // read before the update: runs before the last program
          early = true;
        }
      }
      for (Value v : writes) {
        if (!replayedReads.contains(v) || alignedInPlace(w, v))
          continue;
        // seed 000 §8: no barrier across program instances, so the update cannot follow every
        // instance's read of the whole view unless it runs whole in the last program instance, after
        // every other instance, its whole-view scalars computed before its first store (seed 002
        // §3.4: replaying pure producers is legal; here they are computed once).
        if (!earlierWrites.contains(v) && !early && alignedInPlace(w, v, /*scalarSinks=*/true)) {
          w.hoist = true;
          pinned.push_back({v, w.op});
          continue;
        }
        return w.op->emitError() << "kir-to-pgpu: this workset writes a view that values before the worksets "
                                    "read; they are replayed in every workset, so no order would hold (an "
                                    "in-place update is constructed where each element is read at the "
                                    "coordinates it is stored to and used only by elementwise ops of "
                                    "stores over those coordinates, or by reductions of the whole view to "
                                    "scalars; otherwise store the values to another view)";
      }
      // This workset's stores and scatters by view (null coordinates: another kind of write).
      llvm::MapVector<Value, SmallVector<Operation *>> stores;
      auto gatherStores = [&](Operation *root) {
        root->walk([&](Operation *inner) {
          if (auto st = dyn_cast<kir::StoreOp>(inner))
            stores[st.getView()].push_back(inner);
          else if (auto sc = dyn_cast<kir::ScatterOp>(inner))
            stores[sc.getView()].push_back(inner);
          else if (isa<kir::ScatterReduceOp, kir::AtomicStoreOp, kir::AtomicRMWOp, kir::AtomicCASOp>(inner))
            for (Value operand : inner->getOperands())
              if (isa<kir::ViewType>(operand.getType()))
                stores[operand].push_back(nullptr);
        });
      };
      gatherStores(w.op);
      for (Operation *store : w.joined)
        gatherStores(store);
      auto coordsOf = [](Operation *op) {
        return isa<kir::StoreOp>(op) ? cast<kir::StoreOp>(op).getCoords() : cast<kir::ScatterOp>(op).getCoords();
      };
      // Writes of one view by two worksets commute when every pair of their stores names disjoint
      // elements (`out[.., 2 * h + i, ..]` for i = 0, 1; `dx[rows, 0:F]` and `dx[rows, F:2 * F]`): no
      // instance writes what another workset's instance writes, so neither needs the other first.
      auto conflictingWrite = [&](Value v) {
        if (!earlierWrites.contains(v))
          return false;
        auto mine = stores.find(v);
        auto theirs = earlierStores.find(v);
        if (mine == stores.end() || theirs == earlierStores.end())
          return true;
        for (Operation *a : mine->second)
          for (Operation *b : theirs->second)
            if (!a || !b || !disjointCoords(coordsOf(a), coordsOf(b)))
              return true;
        return false;
      };
      w.finalize = w.hoist ||
                   llvm::any_of(writes, [&](Value v) { return conflictingWrite(v) || earlierReads.contains(v); }) ||
                   llvm::any_of(reads, [&](Value v) { return earlierWrites.contains(v); });
      if (early && w.finalize)
        return w.op->emitError() << "kir-to-pgpu: this workset uses values read from a view before an earlier "
                                    "workset's in-place update of it, but must run after that update (it uses "
                                    "what an earlier workset writes): store those values to another view first";
      if (w.finalize && !w.hoist && mergeableScatter(w, reads, writes, earlierWrites)) {
        // Its contributions add into a zeroed workspace in parallel; the last program adds that into
        // the view after everyone's writes (ScatterMerge.cpp).
        w.finalize = false;
        w.merged = cast<kir::ScatterReduceOp>(w.op).getView(); // the view, until its workspace is made
        if (pgpu::remarksEnabled(kernel))
          emitRemark(w.op->getLoc()) << "kir-to-pgpu: this scatter-add touches a view earlier worksets use: its "
                                        "instances add into a zeroed workspace, and the last program instance adds "
                                        "that into the view";
      }
      if (w.finalize) {
        if (mergedHistogram(*w.op))
          return w.op->emitError() << "kir-to-pgpu: this stored histogram depends on an earlier workset: its own "
                                      "merge already takes the last program";
        // Phased (a waiting segment, phaseFinalizations below), its buffer writes are ordered before
        // later segments by their waits (chained GEMMs' phases: A, then Bm from A, then X' from Bm); whole
        // in the last program, a second barrier would be needed: an error after phasing, if it stays.
        if (llvm::any_of(writes, [&](Value v) { return kernelBuffers.contains(v); }))
          bufferFinals.push_back(w.op);
        // How it runs (phased after a wait, or whole in the last program) is remarked by
        // phaseFinalizations or, for a hoisting update, phaseHoistedUpdate.
      }
      earlierWrites.insert(writes.begin(), writes.end());
      earlierReads.insert(reads.begin(), reads.end());
      for (auto &[view, ops] : stores)
        llvm::append_range(earlierStores[view], ops);
    }
    // A merged scatter-add whose view only an earlier zero fill of all of it touches: the fill
    // commutes with the adds (0 is their identity), so the view ends as the workspace's sums. The fill
    // is dropped and the last program copies the workspace into the view instead of adding it there:
    // torch's index_add_ into zeros (101_sorted_segment_sum), one segment left for refine-mapping.
    for (unsigned k = 0; k < worksets.size(); ++k) {
      Value view = worksets[k].merged;
      if (!view)
        continue;
      int fill = -1;
      bool others = false;
      for (unsigned j = 0; j < k; ++j) {
        DenseSet<Value> reads, writes;
        accesses(worksets[j].op, reads, writes);
        for (Operation *store : worksets[j].joined)
          accesses(store, reads, writes);
        if (!reads.contains(view) && !writes.contains(view))
          continue;
        if (fill < 0 && worksets[j].joined.empty() && !worksets[j].finalize && zeroFillOf(worksets[j].op, view))
          fill = j;
        else
          others = true;
      }
      if (fill < 0 || others)
        continue;
      // The last segment (only finalizations after it): its instances wait for every instance before
      // it, the fill's included, and then add into the view in parallel; the fill stays.
      bool last = llvm::all_of(ArrayRef<Workset>(worksets).drop_front(k + 1),
                               [](const Workset &later) { return later.finalize; });
      if (last && worksets[k].roots.empty()) {
        worksets[k].merged = {};
        worksets[k].waitsForFill = true;
        if (pgpu::remarksEnabled(kernel))
          emitRemark(worksets[fill].op->getLoc())
              << "kir-to-pgpu: this zero fill runs first: the scatter-add after it waits until every earlier "
                 "program instance has arrived, then adds into the view in parallel";
        continue;
      }
      copiedMerges.insert(worksets[k].op);
      if (pgpu::remarksEnabled(kernel))
        emitRemark(worksets[fill].op->getLoc()) << "kir-to-pgpu: this zero fill commutes with the scatter-add "
                                                   "after it: the last program copies the sums into the view";
      worksets.erase(worksets.begin() + fill);
      --k;
    }
  }

  // An in-place update after whole-view sums: the sums, then the update, in parallel phases
  // (PhasedSums.cpp); otherwise it stays whole in the last program.
  (void)phaseHoistedUpdate(worksets);
  // Every other finalization: a segment after a wait where it may be (PhasedSums.cpp).
  (void)phaseFinalizations(worksets);
  for (Workset &w : worksets)
    if (w.finalize && llvm::is_contained(bufferFinals, w.op))
      return w.op->emitError() << "kir-to-pgpu: this workset reads or writes what an earlier workset wrote and "
                                  "writes a kernel-level buffer too: a second barrier is not constructed (not phased, "
                                  "it would run in the last program)";
  // Whole-view reductions replayed by worksets with instances: their own segments, waited for.
  if (phaseReductions)
    (void)phaseReplayedReductions(worksets);

  for (Workset &w : worksets)
    if (auto p = dyn_cast<kir::ParallelOp>(w.op); p && failed(checkReadsBeforeStores(p)))
      return failure();
  if (failed(checkInPlaceScatters(kernel.getOperation())))
    return failure();

  // Worksets holding a region fold or scan are constructed on fragments where
  // their values allow it (seed 002 §3.4); a fold's last extent counts lane blocks.
  for (Workset &w : worksets) {
    auto p = dyn_cast<kir::ParallelOp>(w.op);
    if (!p || w.finalize)
      continue;
    auto fold = std::make_shared<FoldWorkset>(*this, p);
    if (fold->plan()) {
      w.extents = fold->groupExtents(p.getLoc());
      fold->declareParams(physical);
      w.fold = fold;
    } else if (pgpu::remarksEnabled(kernel) && fold->whyNot() != "no region fold or scan in the workset") {
      emitRemark(p.getLoc()) << "kir-to-pgpu: " << fold->subject()
                             << " constructed element by element: " << fold->whyNot();
    }
  }

  // Stored histograms count into zero-filled workspace partials, sized like the stored view's axis,
  // and one ticket finds the last program instance, which writes the views.
  Value ticket;
  for (Workset &w : worksets) {
    kir::HistogramOp h = mergedHistogram(*w.op);
    if (!h)
      continue;
    auto view = cast<kir::ViewType>(cast<kir::StoreOp>(w.op).getView().getType());
    Type count = getElementTypeOrSelf(h.getType());
    w.partial = addWorkspace(w.op->getLoc(), count, view.getExtents(), b.getIntegerAttr(count, 0));
    if (!ticket)
      ticket = addWorkspace(loc, b.getI32Type(), {b.getI64IntegerAttr(1)}, b.getI32IntegerAttr(0));
  }

  // Merged scatter-adds add into a workspace shaped like their view, zero at the launch's start and
  // returned to zero by the last program (kept by the wrapper, like tickets).
  bool merges = false;
  for (Workset &w : worksets) {
    if (!w.merged)
      continue;
    auto view = cast<kir::ViewType>(w.merged.getType());
    Type element = view.getElementType();
    TypedAttr zero = isa<FloatType>(element) ? TypedAttr(b.getFloatAttr(element, 0.0)) : b.getIntegerAttr(element, 0);
    w.merged = addWorkspace(w.op->getLoc(), element, view.getExtents(), zero);
    physical.setArgAttr(cast<BlockArgument>(w.merged).getArgNumber(), "pgpu.kept", b.getUnitAttr());
    writeTargets[w.op] = w.merged;
    merges = true;
  }

  SmallVector<Workset *> segments, finalizations;
  for (Workset &w : worksets)
    (w.finalize ? finalizations : segments).push_back(&w);
  bool waits = llvm::any_of(worksets, [](const Workset &w) { return w.waitsForFill; });
  if ((!finalizations.empty() || merges || waits) && !ticket)
    ticket = addWorkspace(loc, b.getI32Type(), {b.getI64IntegerAttr(1)}, b.getI32IntegerAttr(0));

  // An element-by-element workset's axis of constant extent 1 (`found_inf[T.domain(0, 1)] = ...`) is
  // no program axis: its one coordinate is 0, and the group is a kernel-level statement as
  // `found_inf[0] = ...` is (its reductions then split like any kernel-level one's; seed 002 §3.2).
  // A workset that computes a product keeps it: its members are what pgpu-flatten-worksets,
  // pgpu-member-tickets and pgpu-form-tiles tile (split-K at SPLITS = 1 is one split of a tiled GEMM).
  auto unitAxis = [](const Workset &w, Value e) {
    std::optional<int64_t> c = pgpu::constantIndex(e);
    return !w.fold && !w.sumWorkspace && c && *c == 1 && !computesProduct(w.op);
  };
  // Segment lengths (LaunchExpr) and prefix offsets.
  SmallVector<Value> offsets{constIndex(loc, 0)}, lengths;
  for (Workset *segment : segments) {
    Workset &w = *segment;
    Location wloc = w.op->getLoc();
    Value length = constIndex(wloc, 1);
    for (Value e : w.extents)
      if (!unitAxis(w, e)) // its group has no such axis (emitGroup)
        length = binary(wloc, kir::BinaryKind::Mul, length, e);
    lengths.push_back(length);
    offsets.push_back(binary(wloc, kir::BinaryKind::Add, offsets.back(), length));
  }
  // A last-program finalization needs one instance to run it even when every workset is empty.
  Value instances = ticket ? binary(loc, kir::BinaryKind::Max, offsets.back(), constIndex(loc, 1)) : offsets.back();
  auto space = pgpu::ProgramSpaceOp::create(b, loc, ValueRange{instances});
  Block *body = b.createBlock(&space.getBody());
  Value pid = body->addArgument(b.getIndexType(), loc);

  // Dispatch, each segment relative to the previous one's end: with r0 = pid,
  // if r_k < length[k] { group k at r_k } else { r_{k+1} = r_k - length[k]; ... }. Every segment's
  // bound and shift is its own program count, so a pass that changes one segment's count (tiles or
  // several members a program) rewrites that segment's two values only (pgpu::dispatchChain).
  std::function<LogicalResult(unsigned, Value)> dispatch = [&](unsigned k, Value linear) -> LogicalResult {
    Workset &w = *segments[k];
    Location ploc = w.op->getLoc();
    auto emitGroup = [&]() -> LogicalResult {
      if (w.waitsForFill)
        emitFillWait(ploc, ticket, binary(ploc, kir::BinaryKind::Sub, pid, linear));
      // After the wait, phased sums are read from their workspaces (PhasedSums.cpp).
      readPhasedSums = w.waitsForFill && (!phasedSums.empty() || !phasedReductions.empty());
      auto reading = llvm::make_scope_exit([&] { readPhasedSums = false; });
      // A unit axis is no group axis: its coordinate is the constant 0.
      SmallVector<Value> axes;
      SmallVector<Attribute> roles;
      for (unsigned i = 0; i < w.extents.size(); ++i) {
        if (unitAxis(w, w.extents[i]))
          continue;
        roles.push_back(b.getStringAttr("axis" + std::to_string(roles.size())));
        axes.push_back(w.extents[i]);
      }
      auto group = pgpu::ExecutionGroupOp::create(b, ploc, linear, axes, b.getI64IntegerAttr(k),
                                                  b.getArrayAttr(roles));
      OpBuilder::InsertionGuard guard(b);
      Block *gb = b.createBlock(&group.getBody());
      SmallVector<Value> coords;
      for (unsigned i = 0; i < w.extents.size(); ++i)
        coords.push_back(unitAxis(w, w.extents[i]) ? Value() : gb->addArgument(b.getIndexType(), ploc));
      b.setInsertionPointToStart(gb);
      for (Value &c : coords)
        if (!c)
          c = constIndex(ploc, 0);
      if (auto r = dyn_cast<kir::ReduceOp>(w.op); r && phasedReductions.contains(w.op)) {
        if (failed(emitPhasedReduction(r, coords.front())))
          return failure();
        pgpu::YieldOp::create(b, ploc);
        return success();
      }
      if (w.sumWorkspace) {
        if (failed(emitPhasedSum(w, coords.front())))
          return failure();
        pgpu::YieldOp::create(b, ploc);
        return success();
      }
      if (w.fold) {
        if (failed(w.fold->emit(coords)))
          return failure();
        pgpu::YieldOp::create(b, ploc);
        return success();
      }
      if (failed(emitWorksetElement(w, coords)))
        return failure();
      pgpu::YieldOp::create(b, ploc);
      return success();
    };
    if (k + 1 == segments.size() && !ticket) {
      // The last segment still needs its guard when the grid could be larger
      // than the program space's total; the total is exact, so no tail remains.
      return emitGroup();
    }
    Value inside = pgpu::CmpOp::create(b, ploc, kir::CmpPredicate::LT, linear, lengths[k]);
    auto guard = pgpu::IfOp::create(b, ploc, TypeRange(), inside);
    {
      OpBuilder::InsertionGuard g(b);
      b.createBlock(&guard.getThenRegion());
      if (failed(emitGroup()))
        return failure();
      pgpu::YieldOp::create(b, ploc);
      if (k + 1 == segments.size())
        return success(); // the instance that only finalizes (an empty program space)
      b.createBlock(&guard.getElseRegion());
      if (failed(dispatch(k + 1, binary(ploc, kir::BinaryKind::Sub, linear, lengths[k]))))
        return failure();
      pgpu::YieldOp::create(b, ploc);
    }
    return success();
  };
  // Every workset a finalization (an in-place update after a whole-view reduction of its view, alone in
  // its kernel): the one program instance only finalizes.
  if (!segments.empty() && failed(dispatch(0, pid)))
    return failure();
  if (ticket) {
    auto last = pgpu::LastProgramOp::create(b, loc, ticket);
    OpBuilder::InsertionGuard guard(b);
    b.createBlock(&last.getBody());
    for (Workset &w : worksets)
      if (w.partial && failed(emitHistogramFinalize(*w.op, w.partial)))
        return failure();
    resetPhasedSums(loc);
    // Finalizations and merged scatters' adds in source order: a later finalization reads the sums.
    for (Workset &w : worksets) {
      if (w.merged && copiedMerges.contains(w.op)) {
        // out = W (its fill dropped above), W = 0.
        auto sr = cast<kir::ScatterReduceOp>(w.op);
        Location sloc = sr.getLoc();
        Value viewArg = physical.getBody().getArgument(cast<BlockArgument>(sr.getView()).getArgNumber());
        auto view = cast<kir::ViewType>(sr.getView().getType());
        SmallVector<Value> extents;
        for (unsigned axis = 0; axis < view.getRank(); ++axis)
          extents.push_back(pgpu::ExtentOp::create(b, sloc, viewArg, axis));
        if (failed(foreachNest(sloc, extents, [&](ArrayRef<Value> positions) -> LogicalResult {
              Value zero = zeroOf(sloc, view.getElementType()), ok = trueValue(sloc);
              Value sum = pgpu::BufferLoadOp::create(b, sloc, view.getElementType(), w.merged, positions, ok, zero);
              pgpu::BufferStoreOp::create(b, sloc, zero, w.merged, positions, ok);
              pgpu::StoreOp::create(b, sloc, sum, viewArg, positions, ok);
              return success();
            })))
          return failure();
        continue;
      }
      if ((w.merged && failed(emitScatterMergeFinalize(w))) || (w.finalize && failed(emitFinalization(w))))
        return failure();
    }
    pgpu::YieldOp::create(b, loc);
  }
  pgpu::YieldOp::create(b, loc);
  b.setInsertionPointAfter(space);
  pgpu::ReturnOp::create(b, loc);
  if (pgpu::remarksEnabled(kernel))
    for (auto [op, reuses] : keptForUses)
      emitRemark(op->getLoc()) << "kir-to-pgpu: this '" << op->getName() << "' is computed once per element and "
                               << "kept for " << reuses + 1 << " uses (not replayed per use: it holds a loop)";
  return success();
}

namespace {
/// Physical ops construction may build per KIR op of the kernel before `max-ops` is taken over.
constexpr uint64_t kOpsPerKIROp = 16;

struct ConvertKIRToPGPU : public tessel::impl::ConvertKIRToPGPUBase<ConvertKIRToPGPU> {
  using ConvertKIRToPGPUBase::ConvertKIRToPGPUBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<kir::KernelOp> kernels(module.getOps<kir::KernelOp>());
    for (kir::KernelOp kernel : kernels) {
      KernelConstructor constructor(kernel);
      constructor.phaseReductions = phaseReductions;
      // The bound scales with the kernel (issue 47): a long straight chain of KIR ops builds about as
      // many physical ops, a replayed chain of reductions exponentially many.
      uint64_t kirOps = 0;
      kernel->walk([&](Operation *) { ++kirOps; });
      constructor.maxOps = maxOps ? std::max<uint64_t>(maxOps, kOpsPerKIROp * kirOps) : 0;
      if (failed(constructor.run()))
        return signalPassFailure();
      kernel.erase();
    }
    if (!module->hasAttr(pgpu::PGPUDialect::getTargetAttrName()))
      module->setAttr(pgpu::PGPUDialect::getTargetAttrName(),
                      pgpu::TargetAttr::get(&getContext(), StringAttr::get(&getContext(), "sm_90"), 32, 1024,
                                            232448, 65536, /*multiprocessors=*/132));
  }
};
} // namespace
