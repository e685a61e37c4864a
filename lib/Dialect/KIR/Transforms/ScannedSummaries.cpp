//===- ScannedSummaries.cpp - row summaries a later scan reads, computed once ===//
//
// Part of kir-row-parallels (issue 41, corpus 323's top-2 gating with capacity). A kernel-level row
// summary (each token's argmax over the experts, `_, first = T.argmax(lg, axis=1)`) read inside a
// later kernel-level `kir.parallel` (one member per expert) by a scan or reduction over its rows
// (`T.cumsum(T.where(first == e, 1, 0))`) is replayed by construction at every step of that walk:
// each step recomputes the row's reduction (pgpu-form-blocking refuses to block a scan whose body
// holds nested loops), so every member walks the rows one at a time, a row reduction per step.
//
// Seed 002 §3 (replay versus materialization, costed): kept instead, a new kir.parallel over the
// summary's domains, placed before the reading parallel, computes each row's summary once
// (cloneRow, as keepRowSummaries' members do) into a kir.buffer over those domains (first write);
// the reading parallel's member reads the buffer (a load per step, which construction blocks). The
// buffer costs one element per row written once and read once per member, against a row reduction
// per element per member replayed. Summaries read by the same parallel over the same domains share
// one new parallel (their common loads merge by CSE).
//
// Must not fire: a summary the reading member uses only pointwise and in stores (one walk realizes
// it once per element: a buffer would only add traffic); a value without a reduction; a summary
// over a domain of the reading parallel; producers that read a view the kernel writes or hold an
// effect (checkProducers); a summary that reduces one of its own axes twice (perMember).
//
//===----------------------------------------------------------------------===//

#include "RowParallels.h"

#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/CSE.h"

using namespace mlir;
using namespace tessel::kir;

namespace tessel::kir::rows {

namespace {

/// Whether a use of `v` inside `par`'s body reaches, through pointwise ops and broadcasts only, a
/// scan or reduction (a walk whose every step would replay `v`'s row).
bool scannedIn(ParallelOp par, Value v) {
  SmallVector<Value> work{v};
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value x = work.pop_back_val();
    if (!seen.insert(x).second)
      continue;
    for (Operation *u : x.getUsers()) {
      if (!par->isProperAncestor(u))
        continue;
      if (isa<ScanOp, ReduceOp, ArgReduceOp>(u))
        return true;
      if (isa<BinaryOp, UnaryOp, CastOp, SelectOp, CmpOp, BroadcastOp>(u))
        llvm::append_range(work, u->getResults());
    }
  }
  return false;
}

} // namespace

unsigned keepScannedSummaries(KernelOp kernel, bool remarks) {
  Block &top = kernel.getBody().front();
  MLIRContext *ctx = kernel.getContext();
  unsigned count = 0;
  for (ParallelOp par : llvm::to_vector(top.getOps<ParallelOp>())) {
    // The kernel-level tensors the member reads, in a deterministic (walk) order.
    llvm::SetVector<Value> read;
    par.getBody().walk([&](Operation *op) {
      for (Value x : op->getOperands())
        if (Operation *def = x.getDefiningOp(); def && def->getBlock() == &top && isa<RankedTensorType>(x.getType()))
          read.insert(x);
    });
    // Summaries: values whose computation reduces, over domains none of the parallel's, that a scan or
    // reduction of the member reads per step; grouped by their domains.
    SmallVector<std::pair<Axes, SmallVector<std::pair<Value, Row>, 2>>, 2> groups;
    for (Value v : read) {
      Row r;
      r.argReduces = true;
      collect(v, &top, r);
      if (llvm::none_of(r.ops, [](Operation *p) { return isa<ReduceOp, ArgReduceOp>(p); }) || !scannedIn(par, v))
        continue;
      if (!checkProducers(kernel, r)) {
        if (remarks && !r.why.empty())
          par.emitRemark() << "kir-row-parallels: a row summary this parallel scans stays replayed: " << r.why;
        continue;
      }
      Axes axes = r.axes[v];
      if (axes.empty() || llvm::any_of(axes, [&](Value d) {
            return llvm::is_contained(par.getDomains(), d) || llvm::count(axes, d) > 1;
          }))
        continue;
      r.members.insert(axes.begin(), axes.end());
      if (!perMember(r)) {
        if (remarks)
          par.emitRemark() << "kir-row-parallels: a row summary this parallel scans stays replayed: " << r.why;
        continue;
      }
      auto g = llvm::find_if(groups, [&](auto &e) { return e.first == axes; });
      if (g == groups.end()) {
        groups.push_back({axes, {}});
        g = std::prev(groups.end());
      }
      g->second.push_back({v, std::move(r)});
    }
    for (auto &[axes, kept] : groups) {
      Location loc = par.getLoc();
      OpBuilder b(par);
      auto rows = ParallelOp::create(b, loc, axes);
      Block *body = b.createBlock(&rows.getBody());
      DenseMap<Value, Value> index;
      for (Value d : axes)
        index[d] = body->addArgument(b.getIndexType(), d.getLoc());
      Block &member = par.getBody().front();
      // Every row is computed before the first store: a write between two clones' reads would keep
      // CSE from merging them.
      b.setInsertionPointToEnd(body);
      SmallVector<Value> values;
      for (auto &[v, r] : kept) {
        IRMapping map;
        cloneRow(b, r, index, map);
        values.push_back(map.lookup(v));
      }
      for (auto [k, x] : llvm::zip(kept, values)) {
        Value v = k.first, stored = x;
        // An index (an argmax's position) is kept as i64: buffers hold integers and floats.
        auto vt = cast<RankedTensorType>(v.getType());
        bool isIndex = vt.getElementType().isIndex();
        auto bt = isIndex ? vt.clone(b.getI64Type()) : vt;
        b.setInsertionPoint(rows);
        Value buffer = BufferOp::create(b, v.getLoc(), BufferType::get(ctx, bt), axes, Value(), true);
        b.setInsertionPointToEnd(body);
        if (isIndex)
          stored = CastOp::create(b, v.getLoc(), b.getI64Type(), stored);
        BufferStoreOp::create(b, v.getLoc(), stored, buffer, SmallVector<Value>(body->getArguments()));
        b.setInsertionPointToStart(&member);
        Value back = BufferLoadOp::create(b, v.getLoc(), bt, buffer, axes).getResult();
        if (isIndex)
          back = CastOp::create(b, v.getLoc(), vt, back);
        v.replaceUsesWithIf(back, [&](OpOperand &u) { return par->isProperAncestor(u.getOwner()); });
        ++count;
      }
      b.setInsertionPointToEnd(body);
      YieldOp::create(b, loc);
      if (remarks)
        par.emitRemark() << "kir-row-parallels: " << kept.size()
                         << " row summary(ies) this parallel's member scans or reduces per step (replayed, each "
                            "step would recompute its row's reduction) are kept: a parallel over their "
                         << axes.size() << " domain(s) before it computes each row once into buffers the member reads";
      llvm::SetVector<Operation *> dead;
      for (auto &[v, r] : kept)
        dead.insert(r.ops.begin(), r.ops.end());
      SmallVector<Operation *> order(dead.begin(), dead.end());
      llvm::sort(order, [](Operation *x, Operation *y) { return x->isBeforeInBlock(y); });
      for (Operation *op : llvm::reverse(order))
        if (op->use_empty())
          op->erase();
      // The summaries' common reads (the row's loads) merge.
      IRRewriter rewriter(ctx);
      DominanceInfo dom(rows);
      eliminateCommonSubExpressions(rewriter, dom, rows);
    }
  }
  return count;
}

} // namespace tessel::kir::rows
