//===- StageInnerKLoops.cpp - a chained product's K loop of one block -----===//
//
// seed 002 §3.4 (replay versus materialization; physical loops are the
// pass's to shape). pgpu-form-tiles tiles a product nested in another's element
// (C2 over r contracting f(C1), C1 over k: sigmoid attention's scores q.k over
// the head dimension, their sigmoid, then its product with V over the keys) as
// a loop over r tiles holding C1's K loop:
//
//   for r: { for k < D step TILE_K: acc1 += Q[:, k] . K[r, k]; acc2 += f(acc1) . V[r] }
//
// Two costs follow: Q's tile, which depends on neither r nor the carries, is
// read again every r trip, and the r loop is not innermost, so a provider
// that pipelines innermost loops (Triton) overlaps nothing of the K and V
// reads with the products. When the head dimension fits one K block
// (0 < D <= TILE_K, a launch fact: D a view extent) the K loop runs once at
// k = 0, so the r loop can run that one trip straight-line (carries bound to
// the inits, results to the yielded values: the same program, bit for bit),
// and the reads that depend on neither r nor the carries (Q's tile) move
// before the r loop (the loop writes nothing, so every trip reads the same
// values): one read a program, and the r loop innermost.
//
// The rewrite keeps both forms under a uniform guard (as pgpu-stage-rows):
//
//   pgpu.if (0 < D && D <= TILE_K) { Q read once; for r: { acc1 = Q . K[r]; ... } }
//   else { the original loops }
//
// and TILE_K declares `covers` = D (unless it covers something already), so
// a call's default binds the smallest candidate holding the head dimension.
//
// Fires on a pgpu.for (the r loop) in a block (whose terminator may yield the
// loop's results: the guard then yields them), holding directly a K loop (a pgpu.for from 0 to a view extent defined
// outside, stepping by a declared parameter, with a pgpu.contract in its
// body) whose results reach a pgpu.contract of the r loop's body. Must not
// fire on a K loop alone (a GEMM: its loop is innermost already), a K loop
// whose result is not contracted again in the enclosing loop (pgpu-keep-
// fold-tiles' loop storing tiles), a K range that is no view extent (no
// launch fact).
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/Transforms/Passes.h"
#include "ParamCovers.h"
#include "StagedBranch.h"
#include "tessel/Dialect/PGPU/IR/SliceWidth.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUSTAGEINNERKLOOPS
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

namespace {
/// Whether `loop` is a K loop: from 0 to a named view extent, stepping by a declared parameter, a
/// pgpu.contract in its body.
bool isKLoop(ForOp loop) {
  return loop.getStep().getDefiningOp<ParamOp>() && matchPattern(loop.getLower(), m_Zero()) &&
         extentSymbol(loop.getUpper()) && !loop.getResults().empty() &&
         llvm::any_of(loop.getBody().front(), [](Operation &op) { return isa<ContractOp>(op); });
}

/// The op of `body` that holds `op` (itself when directly in `body`), or null.
Operation *ancestorIn(Block &body, Operation *op) {
  for (; op; op = op->getParentOp())
    if (op->getBlock() == &body)
      return op;
  return nullptr;
}

/// Whether a value `inner` yields reaches a pgpu.contract of `body` (C2 contracting f(C1)).
bool feedsContract(ForOp inner, Block &body) {
  SmallVector<Value> work(inner.getResults().begin(), inner.getResults().end());
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (Operation *user : v.getUsers()) {
      Operation *top = ancestorIn(body, user);
      if (!top || !seen.insert(top).second)
        continue;
      if (isa<ContractOp>(top))
        return true;
      llvm::append_range(work, top->getResults());
    }
  }
  return false;
}

/// The first K loop directly in `outer`'s body whose results are contracted again there and whose
/// range is defined outside `outer` (so the guard can precede it), or null.
ForOp chainedKLoop(ForOp outer) {
  Block &body = outer.getBody().front();
  for (Operation &op : body) {
    auto inner = dyn_cast<ForOp>(op);
    if (inner && isKLoop(inner) && !outer->isAncestor(inner.getUpper().getDefiningOp()) &&
        feedsContract(inner, body))
      return inner;
  }
  return {};
}

/// Whether `v` is defined outside `loop` (or by an op already moved before it).
bool definedOutside(Value v, ForOp loop) {
  Operation *owner = isa<BlockArgument>(v) ? cast<BlockArgument>(v).getOwner()->getParentOp() : v.getDefiningOp();
  if (isa<BlockArgument>(v))
    return owner != loop.getOperation() && !loop->isProperAncestor(owner);
  return !loop->isAncestor(owner);
}

/// Moves the reads of `loop`'s body that depend on neither its index nor its carries (with the pure
/// code computing their coordinates and validity) before it; `loop` writes nothing. Returns how many
/// reads moved.
unsigned hoistInvariantReads(ForOp loop) {
  Block &body = loop.getBody().front();
  unsigned moved = 0;
  for (Operation &op : llvm::make_early_inc_range(body)) {
    if (!isa<LoadOp>(op))
      continue;
    // The read's backward slice inside the body: pure, region-free ops whose leaves are outside.
    SmallVector<Operation *> slice;
    llvm::SmallPtrSet<Operation *, 16> inSlice;
    bool invariant = true;
    std::function<void(Operation *)> visit = [&](Operation *def) {
      if (!invariant || inSlice.contains(def))
        return;
      for (Value operand : def->getOperands()) {
        if (definedOutside(operand, loop))
          continue;
        Operation *producer = operand.getDefiningOp();
        if (!producer || producer->getBlock() != &body || producer->getNumRegions() != 0 ||
            !isMemoryEffectFree(producer)) {
          invariant = false;
          return;
        }
        visit(producer);
      }
      inSlice.insert(def);
      slice.push_back(def);
    };
    visit(&op);
    if (!invariant)
      continue;
    // `slice` is in def-before-use order; its ops keep that order before the loop.
    for (Operation *def : slice)
      def->moveBefore(loop);
    ++moved;
  }
  return moved;
}

/// Clones `op` at `b`; the r loop's K loops over [0, hi) stepping by `name` run their one trip at 0.
void cloneStaged(OpBuilder &b, Operation &op, IRMapping &map, ForOp outer, Value hi, StringRef name,
                 unsigned &hoisted) {
  Operation *copy = b.clone(op, map);
  if (&op != outer.getOperation())
    return;
  auto loop = cast<ForOp>(copy);
  SmallVector<ForOp> inner;
  for (Operation &nested : loop.getBody().front())
    if (auto k = dyn_cast<ForOp>(nested); k && isKLoop(k) && k.getUpper() == map.lookupOrDefault(hi) &&
                                         k.getStep().getDefiningOp<ParamOp>().getName() == name)
      inner.push_back(k);
  for (ForOp k : inner) {
    OpBuilder at(k);
    SmallVector<Value> args{k.getLower()};
    llvm::append_range(args, k.getInits());
    SmallVector<Value> results = inlineBlock(at, k.getBody().front(), args);
    k->replaceAllUsesWith(results);
    k.erase();
  }
  if (readsOnly(loop))
    hoisted = hoistInvariantReads(loop);
}

struct StageInnerKLoops : public tessel::pgpu::impl::PGPUStageInnerKLoopsBase<StageInnerKLoops> {
  void runOnOperation() override {
    for (KernelOp kernel : getOperation().getOps<KernelOp>()) {
      SmallVector<std::pair<ForOp, ForOp>> found;
      kernel.walk([&](ForOp outer) {
        if (!outer.getStep().getDefiningOp<ParamOp>())
          return;
        // One r loop a block: its tail moves under the guard.
        if (llvm::any_of(found, [&](auto &p) { return p.first->getBlock() == outer->getBlock(); }))
          return;
        if (ForOp inner = chainedKLoop(outer))
          found.push_back({outer, inner});
      });
      bool remarks = remarksEnabled(kernel);
      for (auto [outer, inner] : found) {
        // Nested r loops: an earlier staging moved this one under a guard; it stays one K loop there.
        if (!outer->getBlock() || !outer->getParentOp())
          continue;
        Value lo = inner.getLower(), hi = inner.getUpper();
        auto step = inner.getStep().getDefiningOp<ParamOp>();
        std::string name = step.getName().str();
        StringAttr symbol = extentSymbol(hi);
        OpBuilder b(outer);
        // The step read again before the r loop (its read in the r loop does not dominate the guard).
        Value tile = ParamOp::create(b, step.getLoc(), step.getType(), step.getNameAttr());
        unsigned hoisted = 0;
        Location loc = outer.getLoc();
        stageOneSegment(*outer->getBlock(), outer, lo, hi, tile, [&](OpBuilder &cb, Operation &op, IRMapping &map) {
          cloneStaged(cb, op, map, outer, hi, name, hoisted);
        });
        coverParam(kernel, name, symbol); // TILE_K covers the head dimension
        if (remarks)
          emitRemark(loc) << "pgpu-stage-inner-k-loops: the chained product's K loop over " << symbol.getValue()
                          << " runs once when it fits one " << name << " block (guarded path; " << hoisted
                          << " loop-invariant reads before the loop)";
      }
    }
  }
};
} // namespace
