//===- PhasedReductions.cpp - whole-view reductions an element-wise workset replays, phased -===//
//
// seed 000 §2 (one launch: no hidden second launch, no grid-wide barrier),
// §4.4 (invocation workspace; tickets: acq_rel arrivals); seed 002 §3.4
// (replaying pure producers), §4 (a reduce regrouped under its contract).
//
// A kernel-level store over a domain that reads a scalar reduction of a whole
// view (an FP8 per-tensor quantizer: `s = T.max(abs(xf)) / 448` feeding
// `q[rows, cols] = T.cast(xf / s, T.f8e4m3)`, corpus 315) replayed the
// reduction in every instance of the store: each program walked the whole
// view again, O(n^2) work (8192 x 8192: no call finished in minutes). Here
// the kernel runs in phases, as PhasedSums.cpp's sums do, but for any combine
// (a max, a min, a product: no atomic needed) and any rank:
//
//   1. each such reduction is a segment of its own: instance c reduces the
//      rows [c * R, min((c + 1) * R, rows)) of its input's first axis (every
//      other axis whole; R = ceil(kChunk / row size), at least rows /
//      kMaxChunks) and stores its partial to workspace P[c]; the last of the
//      segment's instances (a ticketed pgpu.last_program) reduces P[0, C) in
//      chunk order with the reduction's combine into workspace S[0];
//   2. the worksets that do not use the reductions, as they were;
//   3. the worksets that use them: each instance waits until the launch's
//      ticket counts every instance before its segment (the merge happens
//      before the last chunk's arrival), then reads S[0] and works in
//      parallel.
//
// The reduce is regrouped over chunks, each in its order, the partials in
// chunk order (seed 002 §4): deterministic, no atomic combine.
//
// Fires when no workset is a finalization, merged scatter, stored histogram,
// waiting segment or phased sum (they own the last arrival or the order), the
// kernel computes no product (pgpu-form-tiles tiles only a chain of segments
// without waits), and some workset with instances (a store over domains, a
// parallel) replays a kir.reduce of one tensor over all its axes to one
// scalar whose terms use no other reduction, fold, scan, loop, branch or
// kernel-level buffer and read no view a workset writes, over an axis (a
// domain's extent) the workset's instances also range over (replayed there,
// the work is quadratic). Must not fire otherwise (a reduction that keeps
// axes, a row of a parallel, a reduction only scalar stores use, a sum over
// other axes than the instances': corpus 307's counts per channel): the
// replay stays.
//
//===----------------------------------------------------------------------===//

#include "KernelConstructor.h"

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::construct;

/// Elements an instance of a phased reduction's segment reduces (at least a row): as a phased sum's chunk.
static constexpr int64_t kChunk = 32768;
/// At most this many instances (and partials) per phased reduction: rows are taken several a chunk past it.
static constexpr int64_t kMaxChunks = 4096;

/// Why kir.reduce `r`, replayed, cannot be phased here, or "" when it can.
static std::string whyNotReplayedPhase(kir::ReduceOp r) {
  if (r.getInputs().size() != 1 || r->getNumResults() != 1)
    return "a reduction of several values";
  auto input = dyn_cast<RankedTensorType>(r.getInputs()[0].getType());
  if (!input || input.getRank() == 0 || int64_t(r.getAxes().size()) != input.getRank())
    return "a reduction that keeps axes";
  if (!r.getResult(0).getType().isIntOrFloat())
    return "a reduction to a value other than an integer or float scalar";
  return "";
}

bool KernelConstructor::phaseReplayedReductions(SmallVectorImpl<Workset> &worksets) {
  bool remarks = pgpu::remarksEnabled(kernel);
  for (Workset &w : worksets)
    if (w.finalize || w.hoist || w.merged || w.partial || w.waitsForFill || w.sumWorkspace)
      return false;
  bool products = computesProduct(kernel);
  if (products)
    return false;
  DenseSet<Value> written;
  for (Workset &w : worksets) {
    DenseSet<Value> reads;
    worksetViews(w, reads, written);
  }
  // The reductions replayed by worksets with instances, in first-use order.
  SmallVector<kir::ReduceOp> phased;
  for (Workset &w : worksets) {
    if (w.extents.empty())
      continue;
    for (Operation *pure : worksetUses(w)) {
      auto r = dyn_cast<kir::ReduceOp>(pure);
      if (!r || llvm::is_contained(phased, r) || isa<RankedTensorType>(r.getResult(0).getType()))
        continue;
      auto skip = [&](const Twine &why) {
        if (remarks)
          emitRemark(r.getLoc()) << "kir-to-pgpu: this whole-view reduction is replayed by every instance of a "
                                    "workset that uses it (not phased: "
                                 << why << ")";
      };
      if (std::string why = whyNotReplayedPhase(r); !why.empty()) {
        skip(why);
        continue;
      }
      DenseSet<Value> read, ignored;
      collectViews(r, read, ignored);
      bool plain = true;
      for (Operation *producer : replayedUses(r)) {
        if (isa<kir::ReduceOp, kir::RegionFoldOp, kir::RegionScanOp, kir::ScanOp, kir::ArgReduceOp, kir::ForOp,
                kir::IfOp, kir::BufferLoadOp>(producer))
          plain = false;
        collectViews(producer, read, ignored);
      }
      if (!plain) {
        skip("its terms use another reduction, a loop, a branch or a kernel-level buffer");
        continue;
      }
      if (llvm::any_of(read, [&](Value v) { return written.contains(v) || kernelBuffers.contains(v); })) {
        skip("it reads a view a workset writes");
        continue;
      }
      // Replayed over an axis the workset's instances also range over, every instance walks as many
      // elements as there are instances: quadratic. Over other axes (a few ranks' counts summed per
      // channel, corpus 307) the replay adds a walk like the instance's own, and stays.
      FailureOr<SmallVector<Value>> n = sizes(r.getInputs()[0]);
      if (failed(n) || llvm::none_of(*n, [&](Value e) { return llvm::is_contained(w.extents, e); })) {
        skip("it walks none of the axes the workset's instances range over");
        continue;
      }
      phased.push_back(r);
    }
  }
  if (phased.empty())
    return false;

  // The reductions' segments first, then the worksets that do not use them, then those that do (waiting).
  SmallVector<Workset, 4> order, users;
  for (kir::ReduceOp r : phased) {
    Location loc = r.getLoc();
    FailureOr<SmallVector<Value>> n = sizes(r.getInputs()[0]);
    if (failed(n))
      return false;
    Value rows = (*n)[0], inner = constIndex(loc, 1);
    for (Value e : ArrayRef<Value>(*n).drop_front())
      inner = binary(loc, kir::BinaryKind::Mul, inner, e);
    // R = max(ceil(kChunk / max(inner, 1)), ceil(rows / kMaxChunks), 1); C = max(ceil(rows / R), 1).
    Value one = constIndex(loc, 1);
    Value per = ceilDiv(loc, constIndex(loc, kChunk), binary(loc, kir::BinaryKind::Max, inner, one));
    per = binary(loc, kir::BinaryKind::Max, per, ceilDiv(loc, rows, constIndex(loc, kMaxChunks)));
    per = binary(loc, kir::BinaryKind::Max, per, one);
    Value chunks = binary(loc, kir::BinaryKind::Max, ceilDiv(loc, rows, per), one);
    Type t = r.getResult(0).getType();
    PhasedReduction p;
    p.chunks = chunks;
    p.rows = per;
    p.partials = addWorkspace(loc, t, {b.getI64IntegerAttr(kMaxChunks)}, TypedAttr());
    p.result = addWorkspace(loc, t, {b.getI64IntegerAttr(1)}, TypedAttr());
    p.ticket = addWorkspace(loc, b.getI32Type(), {b.getI64IntegerAttr(1)}, b.getI32IntegerAttr(0));
    phasedReductions[r.getOperation()] = p;
    order.push_back(Workset{r.getOperation(), {chunks}});
    if (remarks)
      emitRemark(loc) << "kir-to-pgpu: this whole-view reduction is phased: its own segment, each instance "
                         "reducing a chunk of at least "
                      << kChunk
                      << " elements (whole rows of its first axis) into a workspace partial, the last of them "
                         "merging the partials in chunk order (the reduce regrouped, as its contract permits)";
  }
  for (Workset &w : worksets) {
    SmallVector<Operation *> uses = worksetUses(w);
    if (llvm::any_of(phased, [&](kir::ReduceOp r) { return llvm::is_contained(uses, r.getOperation()); })) {
      w.waitsForFill = true;
      users.push_back(w);
      if (remarks)
        emitRemark(w.op->getLoc()) << "kir-to-pgpu: this workset uses a phased whole-view reduction (not replayed "
                                      "per instance): its instances wait until every earlier program instance "
                                      "has arrived, then read the result";
    } else {
      order.push_back(w);
    }
  }
  order.append(users.begin(), users.end());
  worksets.assign(order.begin(), order.end());
  return true;
}

LogicalResult KernelConstructor::emitPhasedReduction(kir::ReduceOp r, Value chunk) {
  Location loc = r.getLoc();
  PhasedReduction p = phasedReductions.lookup(r.getOperation());
  // The scalars its terms use (tensors stay lazy: each term reads its own element).
  for (Operation *pure : replayedUses(r))
    if (failed(emitStatement(*pure)))
      return failure();
  Value input = r.getInputs()[0];
  FailureOr<SmallVector<Value>> n = sizes(input);
  FailureOr<SmallVector<Value>> identities = scalars(r.getIdentities());
  if (failed(n) || failed(identities))
    return failure();
  // This instance's rows [lo, hi) of the first axis, every other axis whole.
  Value lo = binary(loc, kir::BinaryKind::Min, binary(loc, kir::BinaryKind::Mul, chunk, p.rows), (*n)[0]);
  Value hi = binary(loc, kir::BinaryKind::Min, binary(loc, kir::BinaryKind::Add, lo, p.rows), (*n)[0]);
  SmallVector<Value> extents(*n);
  extents[0] = binary(loc, kir::BinaryKind::Sub, hi, lo);
  FailureOr<SmallVector<Value>> partial = reduceNest(
      loc, extents, *identities,
      [&](ArrayRef<Value> at) -> FailureOr<SmallVector<Value>> {
        SmallVector<Value> positions(at);
        positions[0] = binary(loc, kir::BinaryKind::Add, lo, at[0]);
        FailureOr<Value> x = element(input, positions);
        if (failed(x))
          return failure();
        return SmallVector<Value>{*x};
      },
      [&](Region &combine, TypeRange types) { return convertCombineRegion(r.getCombine(), combine, types); });
  if (failed(partial))
    return failure();
  Type t = r.getResult(0).getType();
  pgpu::BufferStoreOp::create(b, loc, partial->front(), p.partials, ValueRange{chunk}, trueValue(loc));
  // The last of the segment's instances merges the partials in chunk order into the result.
  auto last = pgpu::LastProgramOp::create(b, loc, p.ticket, ValueRange{constIndex(loc, 0)}, p.chunks);
  OpBuilder::InsertionGuard guard(b);
  b.createBlock(&last.getBody());
  auto merge = pgpu::RangeReduceOp::create(b, loc, TypeRange{t}, constIndex(loc, 0), p.chunks, *identities);
  {
    OpBuilder::InsertionGuard inner(b);
    Block *body = b.createBlock(&merge.getElement());
    Value at = body->addArgument(b.getIndexType(), loc);
    Value v = pgpu::BufferLoadOp::create(b, loc, t, p.partials, ValueRange{at}, trueValue(loc), zeroOf(loc, t));
    pgpu::YieldOp::create(b, loc, ValueRange{v});
  }
  if (failed(convertCombineRegion(r.getCombine(), merge.getCombine(), TypeRange{t})))
    return failure();
  pgpu::BufferStoreOp::create(b, loc, merge.getResult(0), p.result, ValueRange{constIndex(loc, 0)}, trueValue(loc));
  pgpu::YieldOp::create(b, loc);
  return success();
}
