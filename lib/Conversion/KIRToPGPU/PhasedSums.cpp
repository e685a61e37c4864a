//===- PhasedSums.cpp - an in-place update after whole-view sums, phased ---===//
//
// seed 000 §2 (one launch: no hidden second launch, no grid-wide barrier),
// §4.4 (invocation workspace; tickets: acq_rel arrivals), §8 (no barrier
// across program instances); seed 002 §4 (a reduce reassociated and permuted
// under its contract), §3.4 (replaying pure producers).
//
// Gradient clipping (`g = grad[:]; norm = T.sqrt(T.sum(g * g)); grad[:] = g *
// T.minimum(max_norm / (norm + 1e-6), 1.0)`, corpus 39) updates a view in place
// with scalars that read all of it. Without a barrier the update was a
// finalization: the last program instance computed the sums and walked the
// view alone (10^8 elements: 34 ms on the H100, torch 0.31 ms). Here the
// kernel runs in phases, each a segment of parallel instances, as the
// scatter-add after a zero fill does (ScatterMerge.cpp):
//
//   1. each whole-view sum is a segment of its own: instance c sums the
//      elements [c * C, min((c + 1) * C, n)) (C = kSumChunk) and adds that
//      partial into a workspace scalar W, zero when the launch starts, with
//      one atomic add (as pgpu-member-partials' members do);
//   2. the other worksets, as they were (independent of the update);
//   3. the worksets that use the sums (`total_norm[0] = norm`), then the
//      update itself: each instance first waits until the launch's ticket
//      counts every program instance before its segment (instances arrive
//      when they end; a waiting instance arrives only after its wait, and
//      every waiting segment follows every segment that does not wait, so
//      the count reaches that prefix only once the prefix is done), then
//      reads the sums from W and works in parallel.
//
// Programs start in linear order (CUDA's thread blocks; the interpreters run
// a space that waits in order), so an instance only ever waits for instances
// started before it: no deadlock, and under TRITON_INTERPRET=1 the count is
// already there when a waiting program starts. The last arrival returns W to
// zero (the wrapper keeps one zeroed W per stream, `pgpu.kept`) and the ticket
// to 0. The sum is the reduce reassociated over chunks and atomic adds in
// arrival order, as its contract permits (seed 002 §4): the last bits may
// differ between runs.
//
// An update that uses no whole-view value itself, only ordered after other
// worksets' reductions of its view (mixed-precision unscaling: `grads[:] = g *
// inv_scale[0]` beside `found_inf[..] = T.where(T.any(~isfinite(g)), ..)`,
// corpus 260_b), has no sums: the worksets reading the view keep their
// segments (a kernel-level reduction among them is split by pgpu-split-folds)
// and the update waits for them, then runs in parallel (one program walked
// the 2^27 gradients twice: 23 ms on the H100, torch 0.42 ms).
//
// Fires on the one finalization of a kernel when it is a hoisting in-place
// update (Workset::hoist) whose replayed values hold whole-view reductions
// (or whose view other worksets reduce before it: corpus 260's T.any of the
// gradients it scales) only of this kind: kir.reduce of one rank-1 tensor to
// one f32, i32 or i64 scalar, combine an add, identity zero (or an i1 or,
// identity false, held in an i32 workspace and or-ed in with one atomic or
// a chunk), its element reading views no other
// workset writes (the update's own writes come after the wait) and no
// kernel-level buffer, with no other reduction, fold, loop or branch among
// the values it uses; and no other finalization, merged scatter, waiting
// scatter or histogram merge in the kernel (they take the ticket's last
// arrival). Must not fire otherwise: the update stays whole in the last
// program, with a remark saying why.
//
// The same waits phase every other finalization (phaseFinalizations): a
// workset that reads what an earlier workset writes (or writes what one
// reads) becomes its own segment after every segment that does not wait, in
// source order among the waiting ones, its instances waiting for every
// earlier instance and then running in parallel, instead of running whole in
// the last program. It must not fire where the last program holds other work
// a finalization may follow (a merged scatter's add, a stored histogram's
// copy, a hoisting in-place update that was not phased), where the kernel
// computes a product (pgpu-form-tiles tiles construction's chain of
// segments, not one with waits: the ragged grouped GEMM's zero tail stays in
// the last program, its groups tiled), where a finalization reduces what it
// reads from a kernel-level buffer (a sum over a parallel's members:
// pgpu-member-partials adds its terms as the members finish, which beats one
// segment walking the members per element) unless it scans one (a running
// count per member over rows another workset kept, corpus 323: no sum to
// spread, and one program would walk the buffer once per member), or where its instances read a
// view they write (one program runs them in order; in parallel they would
// race).
//
//===----------------------------------------------------------------------===//

#include "KernelConstructor.h"

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::construct;

/// Elements a phased sum's instance adds up before its one atomic add: 10^8 f32 elements are 3052
/// instances, each one atomic (the add's contention is negligible) and 32 blocks of 1024 lanes.
static constexpr int64_t kSumChunk = 32768;

/// The views `op` and the ops nested in it read or write.
static void viewsReadIn(Operation *op, DenseSet<Value> &views) { collectViews(op, views, views); }

bool tessel::construct::computesProduct(Operation *root) {
  return root
      ->walk([](Operation *op) {
        return isa<kir::ContractOp, kir::ScaledContractOp, kir::SparseContractOp>(op) ? WalkResult::interrupt()
                                                                                       : WalkResult::advance();
      })
      .wasInterrupted();
}

/// Why kir.reduce `r` (a scalar result) cannot be a phased sum, or "" when it can. A T.any (an or of i1,
/// identity false) is one too: its chunks or into an i32 workspace (0 or 1) with one atomic or each.
static std::string whyNotPhased(kir::ReduceOp r) {
  if (r.getInputs().size() != 1 || r->getNumResults() != 1)
    return "a reduction of several values";
  auto input = dyn_cast<RankedTensorType>(r.getInputs()[0].getType());
  if (!input || input.getRank() != 1)
    return "a reduction of a tensor of rank other than 1";
  Type element = r.getResult(0).getType();
  if (element.isInteger(1)) {
    if (!isBinaryCombine(r.getCombine(), kir::BinaryKind::Or))
      return "a reduction of i1 whose combine is not an or";
  } else {
    if (!element.isF32() && !element.isInteger(32) && !element.isInteger(64))
      return "a reduction to a type other than f32, i32 or i64 (no atomic add)";
    if (!isAddCombine(r.getCombine()))
      return "a reduction whose combine is not an add";
  }
  Attribute c;
  if (!matchPattern(r.getIdentities()[0], m_Constant(&c)))
    return "a reduction whose identity is not a constant";
  auto f = dyn_cast<FloatAttr>(c);
  auto i = dyn_cast<IntegerAttr>(c);
  if (!(f && f.getValue().isZero()) && !(i && i.getValue().isZero()))
    return "a reduction whose identity is not zero";
  return "";
}

bool KernelConstructor::phaseHoistedUpdate(SmallVectorImpl<Workset> &worksets) {
  Workset *update = nullptr;
  for (Workset &w : worksets)
    if (w.hoist)
      update = &w;
  if (!update)
    return false;
  bool remarks = pgpu::remarksEnabled(kernel);
  auto keep = [&](const Twine &why) {
    if (remarks)
      emitRemark(update->op->getLoc())
          << "kir-to-pgpu: this in-place update needs whole-view values read before it: it runs whole in the last "
             "program instance, after every other instance (one program does its elements; not phased: "
          << why << ")";
    return false;
  };
  for (Workset &w : worksets)
    if ((w.finalize && &w != update) || w.merged || w.partial || w.waitsForFill)
      return keep("another workset also takes the last arrival or waits");
  DenseSet<Value> otherWrites;
  for (Workset &w : worksets) {
    if (&w == update)
      continue;
    DenseSet<Value> reads;
    worksetViews(w, reads, otherWrites);
  }
  // The reductions the update uses, then those other worksets use that read the view it updates (a
  // T.any of the old gradients stored elsewhere before `grads[:] = g * s`, corpus 260): each must be
  // complete before the update's first write, so it is a phased sum too.
  SmallVector<Operation *> candidates = worksetUses(*update);
  size_t own = candidates.size(); // past these, a reduction that cannot be phased is left as it was
  {
    DenseSet<Value> updated, ignored;
    worksetViews(*update, ignored, updated);
    for (Workset &w : worksets) {
      if (&w == update)
        continue;
      for (Operation *pure : worksetUses(w)) {
        if (!isa<kir::ReduceOp>(pure) || llvm::is_contained(candidates, pure))
          continue;
        DenseSet<Value> read;
        viewsReadIn(pure, read);
        for (Operation *producer : replayedUses(pure))
          viewsReadIn(producer, read);
        if (llvm::any_of(updated, [&](Value v) { return read.contains(v); }))
          candidates.push_back(pure);
      }
    }
  }
  SmallVector<kir::ReduceOp> sums;
  for (auto [i, pure] : llvm::enumerate(candidates)) {
    // Another workset's reduction that cannot be phased runs in that workset, before the update's
    // segment as before (the update waits for every earlier instance).
    bool mine = i < own;
    if (isa<kir::RegionFoldOp, kir::RegionScanOp, kir::ScanOp, kir::ArgReduceOp, kir::ForOp, kir::IfOp>(pure))
      return keep("it uses a fold, scan, arg-reduction, loop or branch");
    auto r = dyn_cast<kir::ReduceOp>(pure);
    if (!r || llvm::any_of(r->getResultTypes(), [](Type t) { return isa<RankedTensorType>(t); }))
      continue;
    if (std::string why = whyNotPhased(r); !why.empty()) {
      if (!mine)
        continue;
      return keep("it uses " + why);
    }
    DenseSet<Value> read;
    viewsReadIn(r, read);
    bool plain = true;
    for (Operation *producer : replayedUses(r)) {
      plain &= !isa<kir::ReduceOp, kir::RegionFoldOp, kir::RegionScanOp, kir::ScanOp, kir::ArgReduceOp, kir::ForOp,
                    kir::IfOp, kir::BufferLoadOp>(producer);
      viewsReadIn(producer, read);
    }
    if (!plain && !mine)
      continue;
    if (!plain)
      return keep("a sum's terms use another reduction, a loop, a branch or a kernel-level buffer");
    if (llvm::any_of(read, [&](Value v) { return otherWrites.contains(v) || kernelBuffers.contains(v); })) {
      if (!mine)
        continue;
      return keep("a sum reads a view another workset writes");
    }
    sums.push_back(r);
  }

  // The sums' segments first, then the worksets that neither use the sums nor update, then those
  // that use them (waiting), then the update (waiting).
  SmallVector<Workset, 4> phased, users;
  Location loc = kernel.getLoc();
  for (kir::ReduceOp r : sums) {
    Location rloc = r.getLoc();
    FailureOr<SmallVector<Value>> n = sizes(r.getInputs()[0]);
    if (failed(n))
      return keep("a sum's extent is not known at launch");
    Type element = r.getResult(0).getType();
    if (element.isInteger(1))
      element = b.getI32Type(); // an or of i1 in i32 (no atomic on i1)
    TypedAttr zero = isa<FloatType>(element) ? TypedAttr(b.getFloatAttr(element, 0.0)) : b.getIntegerAttr(element, 0);
    Value ws = addWorkspace(rloc, element, {b.getI64IntegerAttr(1)}, zero);
    physical.setArgAttr(cast<BlockArgument>(ws).getArgNumber(), "pgpu.kept", b.getUnitAttr());
    phasedSums[r.getOperation()] = ws;
    Workset sum{r.getOperation(), {ceilDiv(rloc, (*n)[0], constIndex(rloc, kSumChunk))}};
    sum.sumWorkspace = ws;
    phased.push_back(sum);
    if (remarks)
      emitRemark(rloc) << "kir-to-pgpu: this whole-view sum is phased: its own segment, each instance adding the "
                          "sum of "
                       << kSumChunk
                       << " elements into a zeroed workspace with one atomic add (numerics: the reduce is "
                          "reassociated over chunks and summed in arrival order, as its contract permits; the "
                          "last bits may differ between runs)";
  }
  (void)loc;
  Workset last = *update;
  last.finalize = false;
  last.hoist = false;
  last.waitsForFill = true;
  for (Workset &w : worksets) {
    if (&w == update)
      continue;
    SmallVector<Operation *> uses = worksetUses(w);
    if (llvm::any_of(sums, [&](kir::ReduceOp r) { return llvm::is_contained(uses, r.getOperation()); })) {
      w.waitsForFill = true;
      users.push_back(w);
      if (remarks)
        emitRemark(w.op->getLoc()) << "kir-to-pgpu: this workset uses a phased sum: its instances wait until "
                                      "every earlier program instance has arrived, then read the sum";
    } else {
      phased.push_back(w);
    }
  }
  phased.append(users.begin(), users.end());
  phased.push_back(last);
  if (remarks && sums.empty())
    emitRemark(update->op->getLoc()) << "kir-to-pgpu: this in-place update runs in parallel after the worksets "
                                        "whose whole-view values read its view: its instances wait until every "
                                        "earlier program instance has arrived";
  else if (remarks)
    emitRemark(update->op->getLoc()) << "kir-to-pgpu: this in-place update after whole-view sums runs in parallel: "
                                        "its instances wait until every earlier program instance has arrived "
                                        "(the sums' chunks and the other worksets), then read the sums";
  worksets.assign(phased.begin(), phased.end());
  return true;
}

LogicalResult KernelConstructor::emitPhasedSum(Workset &w, Value chunk) {
  auto r = cast<kir::ReduceOp>(w.op);
  Location loc = r.getLoc();
  // The scalars its terms use (tensors stay lazy: each term reads its own element).
  for (Operation *pure : replayedUses(r))
    if (failed(emitStatement(*pure)))
      return failure();
  FailureOr<SmallVector<Value>> n = sizes(r.getInputs()[0]);
  FailureOr<SmallVector<Value>> identities = scalars(r.getIdentities());
  if (failed(n) || failed(identities))
    return failure();
  Value lo = binary(loc, kir::BinaryKind::Mul, chunk, constIndex(loc, kSumChunk));
  Value hi = binary(loc, kir::BinaryKind::Min, binary(loc, kir::BinaryKind::Add, lo, constIndex(loc, kSumChunk)),
                    (*n)[0]);
  Type element = r.getResult(0).getType();
  auto reduce = pgpu::RangeReduceOp::create(b, loc, TypeRange{element}, lo, hi, *identities);
  {
    OpBuilder::InsertionGuard guard(b);
    Block *body = b.createBlock(&reduce.getElement());
    Value at = body->addArgument(b.getIndexType(), loc);
    FailureOr<Value> term = this->element(r.getInputs()[0], {at});
    if (failed(term))
      return failure();
    pgpu::YieldOp::create(b, loc, ValueRange{*term});
  }
  if (failed(convertCombineRegion(r.getCombine(), reduce.getCombine(), TypeRange{element})))
    return failure();
  Value zero = constIndex(loc, 0);
  Type held = cast<pgpu::BufferType>(w.sumWorkspace.getType()).getElementType();
  if (held != element) {
    // An or of i1 held in i32: the chunk's 0 or 1, or-ed in with one atomic or.
    Value one = arith::ConstantOp::create(b, loc, b.getIntegerAttr(held, 1));
    Value partial = pgpu::SelectOp::create(b, loc, reduce.getResult(0), one, zeroOf(loc, held));
    auto merge = pgpu::ScatterReduceOp::create(b, loc, partial, w.sumWorkspace, ValueRange{zero}, trueValue(loc));
    OpBuilder::InsertionGuard guard(b);
    Block *block = b.createBlock(&merge.getCombine());
    Value lhs = block->addArgument(held, loc), rhs = block->addArgument(held, loc);
    pgpu::YieldOp::create(b, loc, ValueRange{binary(loc, kir::BinaryKind::Or, lhs, rhs)});
    return success();
  }
  auto add = pgpu::ScatterReduceOp::create(b, loc, reduce.getResult(0), w.sumWorkspace, ValueRange{zero},
                                           trueValue(loc));
  return convertCombineRegion(r.getCombine(), add.getCombine(), TypeRange{element});
}

void KernelConstructor::resetPhasedSums(Location loc) {
  for (auto [op, ws] : phasedSums) {
    Type element = cast<pgpu::BufferType>(ws.getType()).getElementType();
    pgpu::BufferStoreOp::create(b, loc, zeroOf(loc, element), ws, ValueRange{constIndex(loc, 0)}, trueValue(loc));
  }
}

/// Whether `op`'s operands are computed (through ops of its region, not through loops) from a load of
/// a kernel-level buffer.
bool KernelConstructor::readsKernelBuffer(Operation *op) {
  SmallVector<Value> work(op->getOperands());
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    Operation *def = v.getDefiningOp();
    if (!seen.insert(v).second || !def)
      continue;
    if (auto l = dyn_cast<kir::BufferLoadOp>(def); l && kernelBuffers.contains(l.getBuffer()))
      return true;
    if (def->getNumRegions() == 0)
      llvm::append_range(work, def->getOperands());
  }
  return false;
}

bool KernelConstructor::phaseFinalizations(SmallVectorImpl<Workset> &worksets) {
  SmallVector<Workset *> finals;
  for (Workset &w : worksets)
    if (w.finalize && !w.hoist)
      finals.push_back(&w);
  if (finals.empty())
    return false;
  bool remarks = pgpu::remarksEnabled(kernel);
  auto keep = [&](ArrayRef<Workset *> which, const Twine &why) {
    if (remarks)
      for (Workset *w : which)
        emitRemark(w->op->getLoc()) << "kir-to-pgpu: this workset uses what an earlier workset writes (or writes "
                                       "what it uses): it runs whole in the last program instance (not phased: "
                                    << why << ")";
    return false;
  };
  // In a kernel that computes a product, a finalization stays in the last program (a grouped GEMM's
  // zero tail): the producing group keeps what pgpu-form-tiles forms for a sole group (a segment walk,
  // a persistent traversal), which a segment of a chain does not take. Unless the finalization is
  // itself a phase of chained products: it computes a product from a kernel-level buffer an earlier
  // workset wrote (T.buffer W = X X^T, then Y = cast(W) X: issue 41), which in the last program would
  // run whole in one program instance; phased, it is a waiting segment that pgpu-flatten-worksets and
  // pgpu-form-tiles tile like the others.
  auto bufferProduct = [&](Operation *root) {
    bool buffer = false;
    root->walk([&](kir::BufferLoadOp l) { buffer |= kernelBuffers.contains(l.getBuffer()); });
    return buffer && computesProduct(root);
  };
  bool products = computesProduct(kernel);
  if (products && llvm::none_of(finals, [&](Workset *w) { return bufferProduct(w->op); }))
    return keep(finals, "the kernel computes a product, and no finalization is a product of a kernel-level "
                        "buffer: the product's group keeps pgpu-form-tiles' sole-group forms, the "
                        "finalization the last program");
  for (Workset &w : worksets) {
    if (w.hoist)
      return keep(finals, "an in-place update after whole-view values runs in the last program too");
    if (w.merged || w.partial)
      return keep(finals, "a merged scatter or stored histogram takes the last program too");
  }
  // pgpu-member-partials spreads a finalization's sum over a parallel's members only where the program
  // space dispatches to one execution group of one axis (60_rmsnorm_backward_b's rows); elsewhere (corpus
  // 306's (n, g) members writing the group statistics its per-channel sums read) a finalization that
  // reads a kernel-level buffer is phased like any other.
  SmallVector<Workset *> groups;
  for (Workset &w : worksets)
    if (!w.finalize)
      groups.push_back(&w);
  bool memberPartials = groups.size() == 1 && groups.front()->extents.size() == 1;
  for (Workset *w : finals) {
    DenseSet<Value> reads, writes;
    worksetViews(*w, reads, writes);
    SmallVector<Operation *> uses = worksetUses(*w);
    for (Operation *pure : uses)
      viewsReadIn(pure, reads);
    // A buffer read matters only where the finalization also reduces: a sum over a parallel's members
    // (pgpu-member-partials' pattern). A finalization without reductions that looks its elements up in a
    // buffer (a per-image table built by an earlier workset, corpus 233) waits and runs in parallel.
    bool buffers = false, reduces = false;
    auto noteBuffers = [&](Operation *root) {
      root->walk([&](Operation *op) {
        if (auto l = dyn_cast<kir::BufferLoadOp>(op))
          buffers |= kernelBuffers.contains(l.getBuffer());
        reduces |= isa<kir::ReduceOp>(op);
      });
    };
    noteBuffers(w->op);
    for (Operation *store : w->joined)
      noteBuffers(store);
    for (Operation *pure : uses)
      noteBuffers(pure);
    // A scan of a buffer (each member's running count over rows another workset computed once, as
    // kir-row-parallels keeps scanned summaries) is no sum pgpu-member-partials spreads: in the last
    // program one instance would walk the buffer for every member in turn.
    bool scans = false;
    auto noteScans = [&](Operation *root) {
      root->walk([&](Operation *op) {
        if (isa<kir::ScanOp, kir::RegionScanOp>(op) && readsKernelBuffer(op))
          scans = true;
      });
    };
    noteScans(w->op);
    for (Operation *pure : uses)
      noteScans(pure);
    if (buffers && reduces && memberPartials && !scans)
      return keep(finals, "a finalization reduces what it reads from a kernel-level buffer; a sum over a "
                          "parallel's members is left to pgpu-member-partials");
    if (llvm::any_of(writes, [&](Value v) { return reads.contains(v); }))
      return keep(finals, "a finalization's instances read a view they write: in parallel they would race");
  }
  // The segments that do not wait, then the waiting ones in source order (a scatter-add after a
  // zero fill, the finalizations): each waits for every program instance before its segment.
  SmallVector<Workset, 4> order, waiting;
  for (Workset &w : worksets) {
    if (w.finalize) {
      w.finalize = false;
      w.waitsForFill = true;
      if (remarks)
        emitRemark(w.op->getLoc()) << "kir-to-pgpu: this workset uses what an earlier workset writes (or writes "
                                      "what it uses): it is a segment after them, its instances waiting until "
                                      "every earlier program instance has arrived, then running in parallel";
    }
    (w.waitsForFill ? waiting : order).push_back(w);
  }
  order.append(waiting.begin(), waiting.end());
  worksets.assign(order.begin(), order.end());
  return true;
}
