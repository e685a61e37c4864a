//===- PackRows.cpp - several short rows per program for row reductions ----===//
//
// seed 002 §3.2 (refine the ownership extent of a program) and §3.3 (fragments):
// a parallel space of rows whose body reduces each row (an RMSNorm, a
// layernorm) runs one row per program. When the row fits one block (the staged
// path of pgpu-stage-rows, `pgpu.if (0 < n && n <= BLOCK)`), a row of 128
// elements leaves a program with 128 lanes of work, and a launch of 500k such
// programs is bound by their scheduling, not by memory. Here each program takes
// ROWS consecutive rows (row-major over the group's axes):
//
//   * the staged path runs them at once as [ROWS, BLOCK] tiles: every value that
//     depends on the row gets a leading ROWS axis (a per-row scalar becomes a
//     [ROWS] fragment, a [BLOCK] fragment a [ROWS, BLOCK] one), a row reduction
//     reduces axis 1, values that do not depend on the row (the column iota, a
//     weight row shared by all rows) stay as they are and broadcast where used;
//     reads and writes of rows past the last one are masked off;
//   * the blocked path (rows longer than BLOCK) runs the ROWS rows one after
//     the other in a loop, each as before.
//
// Gathered rows (vals[e] = dot(A[rows[e], ks], B[cols[e], ks]), 100_sddmm_coo) take the same rule:
// the member's index read (rows[e], a scalar read before the row loop) moves into the staged path and
// becomes a [ROWS] read of the program's members' indices, and the row's gather through it a
// [ROWS, BLOCK] gather A[idx[:, None], ks[None, :]] (duplicate or unordered indices are only reads).
// A scattered row (cache[slot[t], h, dims] = q, 66_kv_cache_int8_append) likewise becomes a [ROWS, BLOCK]
// unique scatter through the [ROWS] destinations: one repeated across rows was one repeated across
// members before, which only equal values may do (docs/language.md, unique scatters).
// A row whose reduction is one blocking loop (nothing for pgpu-stage-rows to share: a row sum, such a
// dot) is staged here first (pgpu-stage-rows' rewrite, `stageRowLoops`), on a copy of the kernel that
// is kept only where the packing then fires.
//
// An ordered loop in the staged path over row-independent bounds (241's bisection on a threshold: 40
// trips, each summing the row) runs once for the program's rows, its scalar carries [ROWS] fragments.
// A row reduced over members that each walk it (171_kmeans_assign: argmin_j sum_d (c[j, d] - x[n, d])^2,
// a range_reduce over 16 centroids whose element is a blocking loop over D) becomes such a loop here
// (`memberWalks`: the reduction in member order, seed 000 §8), each walk its one block when the row fits:
// the program reads its [ROWS, BLOCK] row tile once, before the loop, and each centroid row once.
//
// A staged test that depends on the row (the length n of a block of a wider row, a slice of constant
// width clipped to the row: 0 < n(m) <= BLOCK, 103_block_absmax_quant's 128-column blocks), where BLOCK
// covers that constant width (pgpu-form-blocking's `covers = "128"`: short rows at any call), is computed
// for the program's ROWS rows at once from the row code before the path (pure scalar code, widened to
// [ROWS]); the program takes the packed path when every row it owns passes (an OR reduction of the
// failing rows below the row count), and otherwise runs each row's own test and either path in a loop:
// a row that fails keeps exactly its unpacked behaviour (an empty block, n = 0, its blocked path).
//
// Rows along one axis (`sharedAxis`): consecutive members of a group of several axes differ in the
// innermost coordinate, so a read that depends on it but not on an outer axis k (278_quantile_bin_features'
// cut points cuts[f, :] of a member (n, f), 1 KiB a row) is read again for every packed row. Where that
// shares more bytes a row than per-row scalar accesses lose by leaving adjacent elements (x[n, f] along n:
// a 32-byte sector each), a program owns ROWS consecutive values of k at one value of the others (its
// first coordinates, scalars; programs of adjacent f next to each other): the read stays a [BLOCK] fragment.
// A kernel-level reduction whose members each reduce a row (issue 42, 222_bpr_loss: the sum over triples
// of f(<U[u], I[p] - I[n]>), the rows gathered through an index read per member; a group without axes or
// pgpu-split-row-reductions' fold_split programs) walked its members one after the other, each a
// [BLOCK] vector of one row (64 of 512 lanes busy at D = 64, three dependent reads a member). Where the
// row fits one block, its members run ROWS a step instead (`packReductions`): the [ROWS] index vectors
// read once, the rows gathered as [ROWS, BLOCK] tiles (each row contiguous), reduced over axis 1, the
// scalar code after the walk on [ROWS], and the members' values reduced over axis 0 into the carry
// (members past the range the identity; seed 000 §8 regroups them). That rule runs where the first did
// not declare ROWS; there ROWS is members a step and leaves the program count alone.
//
// A foreach whose members each reduce a row of a table every program walks and write it (94_knn_top8's
// squared distances to N keys, kept in a workspace for the 8 selections after them: one key a trip, a
// [BLOCK] walk of D = 64 of 512 lanes) runs ROWS members a step where the row fits one block (`packWrites`):
// [ROWS, BLOCK] tiles of the table, reduced over axis 1 and written as [ROWS]; the foreach as it was
// otherwise. A row read at the program's coordinates (290's vocabulary row) is the program's own, of no
// bounded length: not packed.
//
// A group beside a whole-space last-program finalization packs too (the finalization counts the
// space's instances, whatever their number). A scatter-add of a row value at coordinates the row does not
// change (pgpu-member-partials' column terms Sum[n] += f(m, n), a scalar Sum[0] += g(m)) sums the program's
// rows over the ROWS axis first and scatters once (`mergeRows`; rows past the last add 0): corpus 256's
// 65,536 one-token programs of one [E] atomic add each become 1,024 of [64, 64] tiles.
//
// The program count becomes ceil(rows / ROWS); ROWS is a declared parameter
// (seed 003), so the wrapper and the kernel agree and the tuner searches it.
//
// Fires on the sole execution group of a program space whose body is pure code
// that does not depend on the row (or row-dependent scalar reads and pure ops
// used only by the row path, moved into it, or pure scalar code computing its test),
// then such a staged `pgpu.if` (no results) whose then-branch is straight-line code
// (pointwise ops, splats, iotas, loads, gathers, stores, unique scatters, reductions of 1-d
// fragments) with at least one reduction of a row-dependent fragment. Must not
// fire on a then-branch without a row reduction (per-element rows are
// pgpu-refine-mapping's row loops), with other ops on row values (loops,
// atomics, 2-d fragments), or after row-dependent effects or regions before the
// row path (a member that writes before its row loop).
//
//===----------------------------------------------------------------------===//

#include "TileBodies.h"
#include "tessel/Dialect/PGPU/Transforms/Passes.h"
#include "StagedBranch.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUPACKROWS
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

namespace tessel::pgpu {
/// pgpu-stage-rows' rewrite (StageRows.cpp): everything of `block` from the blocking loop `anchor` to
/// its terminator (which has no operands) runs under `pgpu.if (lo < hi && hi - lo <= BLOCK)` as one
/// straight-line iteration of every blocking loop over the anchor's bounds, and as before otherwise.
/// Returns the guard, or null (nothing changed) where the terminator has operands.
IfOp stageRowLoops(mlir::Block &block, ForOp anchor);
/// pgpu-form-blocking's covering symbol (FormBlocking.cpp): the shape symbol, or constant width, one
/// block of which holds [lo, hi); empty for any other range.
mlir::StringAttr spannedSymbol(mlir::Value lo, mlir::Value hi);
} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

namespace {
constexpr llvm::StringLiteral kRows = "ROWS";

bool isFragment(Value v) { return isa<FragmentType>(v.getType()); }

/// BLOCK (pgpu-form-blocking's row block, covering the row's width) with the packed tile's narrower
/// widths 16 and 32 among its candidates; any other parameter as it is. Packed, a short row's
/// [ROWS, BLOCK] tile keeps all of its lanes busy at BLOCK = its width: a 32-wide row (171's D = 32)
/// in 64-wide blocks computed every masked lane too (seed 003: the call's default covers the row with
/// the smallest candidate, so a row of at most 32 takes the narrow tile; longer rows keep theirs).
ParamAttr narrowerRowBlocks(ParamAttr p) {
  if (p.getName().getValue() != "BLOCK" || !p.getCovers() || p.getProvider() || p.getPasses())
    return p;
  SmallVector<int64_t> candidates;
  for (int64_t narrow : {16, 32})
    if (!llvm::is_contained(p.getCandidates(), narrow) && narrow < p.getCandidates().front())
      candidates.push_back(narrow);
  if (candidates.empty())
    return p;
  llvm::append_range(candidates, p.getCandidates());
  return ParamAttr::get(p.getContext(), p.getName(), candidates, p.getDefaultValue(), p.getProvider(),
                        p.getCovers(), p.getPasses());
}

/// Whether `t` is a scalar or a 1-d fragment: the shapes a row's straight-line code holds.
bool isRowShaped(Type t) {
  auto f = dyn_cast<FragmentType>(t);
  return !f || f.getRank() == 1;
}

/// Whether `op` is pure scalar pointwise code (a row's index arithmetic), which the packing widens to
/// [ROWS] fragments as it widens the staged path's.
bool isScalarArithmetic(Operation &op) {
  return isa<BinaryOp, UnaryOp, CmpOp, SelectOp, CastOp, BitcastOp>(op) && isMemoryEffectFree(&op) &&
         llvm::none_of(op.getResultTypes(), [](Type t) { return isa<FragmentType>(t); });
}

/// The staged row path of `group` when the group qualifies (see the file comment): its `pgpu.if`.
/// `guardSlice` receives the row-dependent scalar code before it that computes its test, in order
/// (a row's clipped length: the test `0 < n(m) <= BLOCK` then depends on the row).
/// `along`: the one coordinate the rows run along (sharedAxis), or every coordinate (row-major members).
IfOp stagedRows(ExecutionGroupOp group, DenseSet<Value> &rowValues, SmallVectorImpl<Operation *> &guardSlice,
                std::string &why, std::optional<unsigned> along = std::nullopt) {
  Block &body = group.getBody().front();
  for (BlockArgument arg : body.getArguments())
    if (!along || arg.getArgNumber() == *along)
      rowValues.insert(arg);
  auto dependsOnRow = [&](Operation &op) {
    return llvm::any_of(op.getOperands(), [&](Value v) { return rowValues.contains(v); });
  };
  IfOp staged;
  for (Operation &op : body.without_terminator()) {
    if (auto guard = dyn_cast<IfOp>(op); guard && !staged && &op == body.getTerminator()->getPrevNode()) {
      staged = guard;
      break;
    }
    if (dependsOnRow(op) && isScalarArithmetic(op)) {
      guardSlice.push_back(&op);
      for (Value r : op.getResults())
        rowValues.insert(r);
      continue;
    }
    if (op.getNumRegions() != 0 || !isMemoryEffectFree(&op) || dependsOnRow(op)) {
      why = "the group body holds row-dependent code or effects outside a staged row path";
      return {};
    }
  }
  if (!staged || staged.getNumResults() != 0 || staged.getElseRegion().empty() ||
      llvm::is_contained(body.getArguments(), staged.getCondition()) ||
      body.getTerminator()->getNumOperands() != 0) {
    why = "the group body does not end in a staged row path (pgpu.if without results on a launch-uniform test)";
    return {};
  }
  // Row-dependent code before the path computes its test and nothing else: the packed program tests
  // all its rows at once, and each branch holds the row code it needs.
  DenseSet<Operation *> inSlice(guardSlice.begin(), guardSlice.end());
  for (Operation *op : guardSlice)
    for (Operation *user : op->getUsers())
      if (!inSlice.contains(user) && user != staged.getOperation()) {
        why = "the group body holds row-dependent code outside a staged row path";
        return {};
      }
  // Whether coordinate `v` is a scalar, iota(b) or splat(s) + iota(b) (either order): lanes at unit stride.
  auto unitStrideLanes = [](Value v) {
    if (!isa<FragmentType>(v.getType()) || v.getDefiningOp<IotaOp>())
      return true;
    auto add = v.getDefiningOp<BinaryOp>();
    return add && add.getKind() == kir::BinaryKind::Add &&
           ((add.getLhs().getDefiningOp<SplatOp>() && add.getRhs().getDefiningOp<IotaOp>()) ||
            (add.getRhs().getDefiningOp<SplatOp>() && add.getLhs().getDefiningOp<IotaOp>()));
  };
  // Whether scalar `v` is computed from a value read from memory (a destination slot, slot[t]).
  auto readFromMemory = [](Value v) {
    SmallVector<Value> work{v};
    DenseSet<Value> seen;
    while (!work.empty()) {
      Value x = work.pop_back_val();
      Operation *def = x.getDefiningOp();
      if (!def || !seen.insert(x).second || isa<FragmentType>(x.getType()))
        continue;
      if (isa<LoadOp, GatherOp>(def))
        return true;
      if (def->getNumRegions() == 0)
        llvm::append_range(work, def->getOperands());
    }
    return false;
  };
  bool reducesRows = false;
  // Straight-line code, and ordered loops over row-independent bounds (a reduction over members that
  // each walk the row, in member order: memberWalks) whose scalar carries become [ROWS] carries.
  std::function<bool(Block &)> widens = [&](Block &block) -> bool {
  for (Operation &op : block.without_terminator()) {
    if (auto loop = dyn_cast<ForOp>(op)) {
      if (llvm::any_of(ValueRange{loop.getLower(), loop.getUpper(), loop.getStep()},
                       [&](Value v) { return rowValues.contains(v); })) {
        why = "a loop over row-dependent bounds";
        return false;
      }
      if (!llvm::all_of(loop.getResultTypes(), [](Type t) { return !isa<FragmentType>(t); })) {
        why = "a loop carrying fragments";
        return false;
      }
      for (Value r : loop.getResults())
        rowValues.insert(r);
      for (Value a : loop.getBody().front().getArguments().drop_front())
        rowValues.insert(a);
      if (!widens(loop.getBody().front()))
        return false;
      continue;
    }
    // Only a row scattered through a destination read from memory packs (66's cache[slot[t], h, dims]), or
    // one written at unit-stride lanes (base + iota: 120's packed[m, g * 64 + pairs], a store of a row
    // slice at a computed offset) on the straight-line path (not in an ordered loop there); a scatter at other computed lane coordinates (163's in-place
    // rotate-half pairs 2p, 2p + 1) packed as [ROWS, BLOCK] measured 3.6x slower on the H100
    // (0.321 -> 1.157 ms): it stays one row per program.
    if (auto scatter = dyn_cast<ScatterOp>(op);
        scatter && llvm::none_of(scatter.getCoords(), [&](Value c) { return readFromMemory(c); }) &&
        !(&block == &staged.getThenRegion().front() && llvm::all_of(scatter.getCoords(), unitStrideLanes))) {
      why = "a scatter at computed coordinates (not a row scattered through destinations read from memory or "
            "at unit-stride lanes)";
      return {};
    }
    // A scatter-add of a row value at coordinates and a validity the row does not change
    // (pgpu-member-partials' column terms into Sum[n], a kernel-level scalar into Sum[0]): the
    // program's rows are summed first, one scatter of the sum (Widener::mergeRows).
    if (auto sr = dyn_cast<ScatterReduceOp>(op); sr && dependsOnRow(op)) {
      BinaryOp add = singleBinaryCombine(sr.getCombine().front());
      if (!add || add.getKind() != kir::BinaryKind::Add || &block != &staged.getThenRegion().front() ||
          !rowValues.contains(sr.getValue()) || rowValues.contains(sr.getValid()) ||
          llvm::any_of(sr.getCoords(), [&](Value c) { return rowValues.contains(c); }) ||
          !isRowShaped(sr.getValue().getType())) {
        why = "a scatter-reduce other than an add of a row value at coordinates the row does not change";
        return {};
      }
      continue;
    }
    bool row = dependsOnRow(op) || isa<StoreOp, ScatterOp>(op);
    if (!llvm::all_of(op.getOperandTypes(), isRowShaped) || !llvm::all_of(op.getResultTypes(), isRowShaped)) {
      if (row) {
        why = "a row value has more than one axis";
        return {};
      }
      continue;
    }
    if (!row) {
      if (op.getNumRegions() != 0 && !isa<ReduceOp>(op)) {
        why = "the staged path holds control flow";
        return {};
      }
      if (!isMemoryEffectFree(&op) && !isa<LoadOp, GatherOp, ReduceOp>(op)) {
        why = "the staged path holds an effect other than loads and stores";
        return {};
      }
      continue;
    }
    if (auto r = dyn_cast<ReduceOp>(op)) {
      if (r.getAxes().size() != 1 || r.getAxes()[0] != 0 || !isMemoryEffectFree(&op) ||
          llvm::any_of(r.getCombine().front(), [](Operation &inner) { return inner.getNumRegions() != 0; })) {
        why = "a row reduction with effects or regions in its combine";
        return {};
      }
      reducesRows = true;
    } else if (auto iota = dyn_cast<IotaOp>(op)) {
      why = "a fragment starts at a row-dependent base";
      return {};
    } else if (!isa<BinaryOp, UnaryOp, CmpOp, SelectOp, CastOp, BitcastOp, SplatOp, LoadOp, GatherOp, StoreOp,
                     ScatterOp>(op)) {
      why = "the staged path holds an op the row packing does not widen: " + op.getName().getStringRef().str();
      return {};
    }
    for (Value r : op.getResults())
      rowValues.insert(r);
  }
  return true;
  };
  if (!widens(staged.getThenRegion().front()))
    return {};
  if (!reducesRows) {
    why = "the staged path reduces no row";
    return {};
  }
  return staged;
}

/// The lanes a value of type `t` holds at its narrowest: a fragment's extents, a parameter's at its
/// smallest declared candidate (BLOCK 64 of 64..16384), a scalar one.
int64_t narrowestLanes(KernelOp kernel, Type t) {
  auto f = dyn_cast<FragmentType>(t);
  if (!f)
    return 1;
  int64_t lanes = 1;
  for (Attribute e : f.getExtents()) {
    if (auto size = dyn_cast<IntegerAttr>(e))
      lanes *= std::max<int64_t>(size.getInt(), 1);
    else if (auto name = dyn_cast<StringAttr>(e); name && kernel.getParam(name.getValue()))
      lanes *= std::max<int64_t>(1, *llvm::min_element(kernel.getParam(name.getValue()).getCandidates()));
  }
  return lanes;
}

/// Bytes of one element of type `t` (a fragment's element), 4 where it has no width.
int64_t elementBytes(Type t) {
  if (auto f = dyn_cast<FragmentType>(t))
    t = f.getElementType();
  return t.isIntOrFloat() ? std::max<int64_t>(1, t.getIntOrFloatBitWidth() / 8) : 4;
}

/// The axis of the group's coordinates that a program's rows should run along instead of the
/// row-major order (seed 002 §3.2: the ownership extent is a choice), or none. The row-major order
/// packs consecutive members, which differ in the innermost coordinate: a read of the staged path
/// that depends on the innermost coordinate but not on an outer one k (278's cut points cuts[f, :] of
/// a member (n, f)) is then read again for every row, where rows along k (many n of one f) read it
/// once a program. Along k, a per-row scalar access whose last coordinate follows the innermost one
/// (x[n, f], bins[n, f]: consecutive members' adjacent elements) takes a 32-byte sector per row
/// instead of sharing it. Cost rule, per row: bytes shared (each such read's elements, a row tile at
/// BLOCK's narrowest candidate) against sector bytes lost (32 less an element, each such access);
/// the axis whose rows share the most, where that exceeds what they lose. Straight-line paths only.
/// `shared` and `lost` receive the chosen axis' bytes (for the remark).
std::optional<unsigned> sharedAxis(KernelOp kernel, ExecutionGroupOp group, IfOp staged, int64_t &shared,
                                   int64_t &lost) {
  Block &body = group.getBody().front();
  unsigned rank = body.getNumArguments();
  if (rank < 2 || rank > 32)
    return std::nullopt;
  // The coordinates each value depends on (bit i: coordinate i), from the group's arguments through
  // the staged path's straight-line code; values defined before it depend on none (stagedRows).
  DenseMap<Value, uint32_t> deps;
  for (BlockArgument arg : body.getArguments())
    deps[arg] = 1u << arg.getArgNumber();
  auto depsOf = [&](ValueRange values) {
    uint32_t m = 0;
    for (Value v : values)
      m |= deps.lookup(v);
    return m;
  };
  Block &path = staged.getThenRegion().front();
  for (Operation &op : path.without_terminator()) {
    if (op.getNumRegions() != 0 && !isa<ReduceOp>(op))
      return std::nullopt;
    uint32_t m = depsOf(op.getOperands());
    for (Value r : op.getResults())
      deps[r] = m;
  }
  uint32_t inner = 1u << (rank - 1);
  std::optional<unsigned> best;
  int64_t bestGain = 0;
  for (unsigned k = 0; k + 1 < rank; ++k) {
    uint32_t along = 1u << k;
    int64_t saves = 0, loses = 0;
    for (Operation &op : path.without_terminator()) {
      Value data;
      ValueRange coords;
      if (auto load = dyn_cast<LoadOp>(op))
        data = load.getResult(), coords = load.getCoords();
      else if (auto gather = dyn_cast<GatherOp>(op))
        data = gather.getResult(), coords = gather.getCoords();
      else if (auto store = dyn_cast<StoreOp>(op))
        data = store.getValue(), coords = store.getCoords();
      else if (auto scatter = dyn_cast<ScatterOp>(op))
        data = scatter.getValue(), coords = scatter.getCoords();
      else
        continue;
      uint32_t m = depsOf(coords);
      if (isa<LoadOp, GatherOp>(op) && (m & inner) && !(m & along))
        saves += narrowestLanes(kernel, data.getType()) * elementBytes(data.getType());
      else if ((m & along) && !isFragment(data) && !coords.empty() && (deps.lookup(coords.back()) & inner))
        loses += 32 - std::min<int64_t>(32, elementBytes(data.getType()));
    }
    // Ties go to the inner axis: its rows lie closer in memory.
    if (saves - loses > 0 && saves - loses >= bestGain) {
      best = k;
      bestGain = saves - loses;
      shared = saves;
      lost = loses;
    }
  }
  return best;
}

/// Whether `loop` steps by the BLOCK parameter (pgpu-form-blocking's walk of a row).
bool isBlockingLoop(ForOp loop) {
  auto step = loop.getStep().getDefiningOp<ParamOp>();
  return step && step.getName() == kBlockParam;
}

/// A row reduction over a short row-independent range whose every member walks the row (171's argmin
/// over 16 centroids of sum_d (c[j, d] - x[n, d])^2: a `pgpu.range_reduce` whose element holds blocking
/// loops over one row-independent [lo, hi)): the range_reduce of `body` that qualifies, its walks'
/// blocking loop (the first), or null. Element: blocking loops over those bounds with straight-line
/// bodies, and pure code or reads without regions.
std::pair<RangeReduceOp, ForOp> memberWalks(Block &body) {
  Operation *group = body.getParentOp();
  auto outside = [&](Value v) { return !group->isAncestor(v.getParentBlock()->getParentOp()); };
  for (Operation &op : body.without_terminator()) {
    auto reduce = dyn_cast<RangeReduceOp>(op);
    if (!reduce || !outside(reduce.getLower()) || !outside(reduce.getUpper()) ||
        llvm::any_of(reduce.getCombine().front(), [](Operation &inner) {
          return inner.getNumRegions() != 0 || !isMemoryEffectFree(&inner);
        }))
      continue;
    ForOp walk;
    bool ok = true;
    for (Operation &inner : reduce.getElement().front().without_terminator()) {
      if (auto loop = dyn_cast<ForOp>(inner); loop && isBlockingLoop(loop) && outside(loop.getLower()) &&
                                              outside(loop.getUpper())) {
        if (walk && (loop.getLower() != walk.getLower() || loop.getUpper() != walk.getUpper()))
          ok = false;
        walk = walk ? walk : loop;
        ok &= !loop->walk([&](Operation *nested) {
                     if (nested == loop.getOperation() || isa<ReduceOp>(nested) || nested->getNumRegions() == 0)
                       return WalkResult::advance();
                     return WalkResult::interrupt();
                   }).wasInterrupted();
        continue;
      }
      ok &= inner.getNumRegions() == 0 && (isMemoryEffectFree(&inner) || isa<LoadOp, GatherOp>(inner));
    }
    if (ok && walk)
      return {reduce, walk};
  }
  return {};
}

/// The row path of `group`'s body made stageable, or null (see the file comment): a body whose row is
/// one blocking loop (a row sum, a dot of two gathered rows: nothing for pgpu-stage-rows to share) is
/// staged here, and the row-dependent scalar code before the staged path (the row's index read per
/// member, rows[e], and its casts) moves into both of its branches, where the packing widens it to
/// [ROWS] fragments (the staged path) or runs it per row (the blocked path). Runs on a copy of the
/// kernel: the caller keeps it only when the packing then fires.
IfOp stageableRows(ExecutionGroupOp group) {
  Block &body = group.getBody().front();
  Operation *last = body.getTerminator()->getPrevNode();
  IfOp staged = dyn_cast_or_null<IfOp>(last);
  if (!staged) {
    ForOp anchor;
    for (Operation &op : body.without_terminator())
      if (auto loop = dyn_cast<ForOp>(op)) {
        auto step = loop.getStep().getDefiningOp<ParamOp>();
        if (step && step.getName() == kBlockParam) {
          anchor = loop;
          break;
        }
      }
    if (anchor) {
      staged = stageRowLoops(body, anchor);
    } else if (auto [reduce, walk] = memberWalks(body); reduce && body.getTerminator()->getNumOperands() == 0) {
      // Members that each walk the row: the reduction over them runs in member order (any order is
      // legal, seed 000 §8), and where the row fits one block (a launch-uniform test: the walks' bounds
      // are row-independent) each walk is its one iteration inside that ordered loop.
      Value lo = walk.getLower(), hi = walk.getUpper();
      OpBuilder before(reduce);
      Value step = ParamOp::create(before, reduce.getLoc(), walk.getStep().getType(), kBlockParam);
      ForOp members = expandRangeReduce(reduce);
      staged = stageOneSegment(body, members, lo, hi, step, [&](OpBuilder &b, Operation &op, IRMapping &map) {
        Operation *copy = b.clone(op, map);
        SmallVector<ForOp> walks;
        copy->walk([&](ForOp loop) {
          if (loop != copy && isBlockingLoop(loop) && loop.getLower() == lo && loop.getUpper() == hi)
            walks.push_back(loop);
        });
        for (ForOp loop : walks) {
          OpBuilder at(loop);
          IRMapping once;
          SmallVector<Value> args{lo};
          llvm::append_range(args, loop.getInits());
          loop.replaceAllUsesWith(inlineBlock(at, loop.getBody().front(), args, once));
          loop.erase();
        }
      });
    }
    if (!staged)
      return {};
  }
  // The row-dependent prefix: scalar code without regions, pure or reading, used only by itself and
  // the staged path.
  DenseSet<Value> row(body.getArguments().begin(), body.getArguments().end());
  SmallVector<Operation *> prefix;
  DenseSet<Operation *> inPrefix;
  for (Operation &op : body) {
    if (&op == staged.getOperation())
      break;
    if (llvm::none_of(op.getOperands(), [&](Value v) { return row.contains(v); }))
      continue;
    if (op.getNumRegions() != 0 || !(isMemoryEffectFree(&op) || isa<LoadOp, GatherOp>(op)) ||
        llvm::any_of(op.getResultTypes(), [](Type t) { return isa<FragmentType>(t); }))
      return {};
    prefix.push_back(&op);
    inPrefix.insert(&op);
    for (Value r : op.getResults())
      row.insert(r);
  }
  // Used by itself, inside the path, or by the path's test (a row's clipped length, kept before the
  // path for the test and cloned into it for the rest).
  for (Operation *op : prefix)
    for (Operation *user : op->getUsers())
      if (!inPrefix.contains(user) && !staged->isProperAncestor(user) && user != staged.getOperation())
        return {};
  for (Region *branch : {&staged.getThenRegion(), &staged.getElseRegion()}) {
    if (branch->empty())
      return {};
    OpBuilder b = OpBuilder::atBlockBegin(&branch->front());
    IRMapping map;
    for (Operation *op : prefix)
      b.clone(*op, map);
    for (Operation *op : prefix)
      for (Value r : op->getResults())
        r.replaceUsesWithIf(map.lookup(r), [&](OpOperand &use) {
          return branch->isAncestor(use.getOwner()->getParentRegion());
        });
  }
  for (Operation *op : llvm::reverse(prefix))
    if (op->use_empty())
      op->erase();
  return staged;
}

/// Rewrites the then-branch of `staged` for ROWS rows at once (see the file comment).
class Widener {
public:
  Widener(OpBuilder &b, const DenseSet<Value> &rowValues, Value rowsValid)
      : b(b), rowValues(rowValues), rowsValid(rowsValid) {}

  /// Maps a coordinate argument of the group to its [ROWS] fragment of coordinates.
  void mapRow(Value arg, Value rows) { map.map(arg, rows); }

  /// The widened form of an original value cloned so far.
  Value lookup(Value v) { return map.lookupOrDefault(v); }

  /// The widened type of a row value of type `t`: a leading ROWS axis.
  Type widen(Type t) {
    auto rows = b.getStringAttr(kRows);
    if (auto f = dyn_cast<FragmentType>(t)) {
      SmallVector<Attribute> extents{rows};
      extents.append(f.getExtents().begin(), f.getExtents().end());
      return FragmentType::get(b.getContext(), f.getElementType(), extents);
    }
    return FragmentType::get(b.getContext(), t, {rows});
  }

  /// `v` (an original value) as a value of the widened type `target` (its element type swapped to v's).
  Value as(Value v, Type target) {
    Location loc = v.getLoc();
    Value w = map.lookupOrDefault(v);
    auto goal = cast<FragmentType>(target);
    Type element = isFragment(w) ? cast<FragmentType>(w.getType()).getElementType() : w.getType();
    auto want = FragmentType::get(b.getContext(), element, goal.getExtents());
    if (w.getType() == want)
      return w;
    // One conversion of a value to a shape serves every use after it (same block, straight-line).
    Value &made = converted[{w, want}];
    if (made)
      return made;
    if (!isFragment(w))
      return made = SplatOp::create(b, loc, want, w);
    // A splat stays a splat (of the wider shape): later passes read scalar factors and identities
    // through splats (pgpu-factor-reductions, pgpu-reciprocal-divisors).
    if (auto splat = w.getDefiningOp<SplatOp>())
      return made = SplatOp::create(b, loc, want, splat.getOperand());
    auto have = cast<FragmentType>(w.getType());
    // A row value of a scalar ([ROWS]) spreads along the columns; a row-independent [X] along the rows.
    int64_t dim = rowValues.contains(v) ? 0 : 1;
    assert(have.getRank() == 1 && goal.getRank() == 2 && "row values are [ROWS] or [ROWS, X]");
    (void)have;
    return made = BroadcastOp::create(b, loc, want, w, ArrayRef<int64_t>{dim});
  }

  void clone(Operation &op) {
    if (auto sr = dyn_cast<ScatterReduceOp>(op); sr && rowValues.contains(sr.getValue())) {
      mergeRows(sr);
      return;
    }
    bool row =
        llvm::any_of(op.getResults(), [&](Value r) { return rowValues.contains(r); }) ||
        isa<StoreOp, ScatterOp, BufferStoreOp>(op);
    if (!row) {
      b.clone(op, map);
      return;
    }
    if (auto splat = dyn_cast<SplatOp>(op)) {
      Type t = widen(splat.getType());
      map.map(splat.getResult(), as(splat.getOperand(), t));
      return;
    }
    if (auto loop = dyn_cast<ForOp>(op)) {
      cloneLoop(loop);
      return;
    }
    Operation *copy = b.clone(op, map);
    // The operands' conversions go before the copy.
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPoint(copy);
    Type shape; // the widened shape of the op's lanes
    if (auto store = dyn_cast<StoreOp>(op))
      shape = widen(store.getValue().getType());
    else if (auto store = dyn_cast<BufferStoreOp>(op))
      shape = widen(store.getValue().getType());
    else if (auto scatter = dyn_cast<ScatterOp>(op))
      shape = widen(scatter.getValue().getType());
    else if (auto r = dyn_cast<ReduceOp>(op))
      shape = widen(r.getInputs().front().getType());
    else
      shape = widen(op.getResult(0).getType());
    for (OpOperand &use : copy->getOpOperands()) {
      Value original = op.getOperand(use.getOperandNumber());
      // A read's fill and a reduction's identities stay scalars; everything else takes the lanes' shape.
      if (isa<ViewType, BufferType>(original.getType()) ||
          (isa<LoadOp, GatherOp>(op) && use.getOperandNumber() + 1 == op.getNumOperands()) ||
          (isa<ReduceOp>(op) && use.getOperandNumber() >= cast<ReduceOp>(op).getInputs().size()))
        continue;
      use.set(as(original, shape));
    }
    // Rows past the last one neither read nor write.
    if (auto load = dyn_cast<LoadOp>(copy))
      load.getValidMutable().assign(and_(load.getValid(), shape));
    // A gathered row (A[idx[e], ks]: the row's index read per member) reads [ROWS, BLOCK] through the
    // program's [ROWS] indices, masked alike.
    if (auto gather = dyn_cast<GatherOp>(copy))
      gather.getValidMutable().assign(and_(gather.getValid(), shape));
    if (auto store = dyn_cast<StoreOp>(copy))
      store.getValidMutable().assign(and_(store.getValid(), shape));
    // A member's element of a workspace (a row's reduction kept for later walks) is written [ROWS] at once.
    if (auto store = dyn_cast<BufferStoreOp>(copy))
      store.getValidMutable().assign(and_(store.getValid(), shape));
    // A scattered row (cache[slot[t], h, dims]: the row's destination read per member) writes [ROWS, BLOCK]
    // through the program's [ROWS] destinations, masked alike. Its destinations stay pairwise distinct
    // where equal values do not repeat them: a repeat across rows was one across members before.
    if (auto scatter = dyn_cast<ScatterOp>(copy))
      scatter.getValidMutable().assign(and_(scatter.getValid(), shape));
    if (auto r = dyn_cast<ReduceOp>(copy))
      r.setAxes(ArrayRef<int64_t>{1});
    for (auto [orig, now] : llvm::zip(op.getResults(), copy->getResults())) {
      now.setType(widen(orig.getType()));
      map.map(orig, now);
    }
  }

private:
  /// An ordered loop over row-independent bounds: its carries (row values) take the [ROWS] shape, its
  /// body is widened like the path (conversions made inside it stay inside it).
  void cloneLoop(ForOp loop) {
    Location loc = loop.getLoc();
    SmallVector<Value> inits;
    SmallVector<Type> types;
    for (Value init : loop.getInits()) {
      types.push_back(widen(init.getType()));
      inits.push_back(as(init, types.back()));
    }
    auto copy = ForOp::create(b, loc, types, map.lookupOrDefault(loop.getLower()),
                              map.lookupOrDefault(loop.getUpper()), map.lookupOrDefault(loop.getStep()), inits);
    Block &from = loop.getBody().front();
    Block *body;
    {
      OpBuilder::InsertionGuard g(b);
      body = b.createBlock(&copy.getBody());
    }
    map.map(from.getArgument(0), body->addArgument(b.getIndexType(), loc));
    for (auto [arg, t] : llvm::zip(from.getArguments().drop_front(), types))
      map.map(arg, body->addArgument(t, loc));
    auto savedConverted = converted;
    auto savedMasked = masked;
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(body);
      for (Operation &inner : from.without_terminator())
        clone(inner);
      SmallVector<Value> yields;
      for (auto [v, t] : llvm::zip(from.getTerminator()->getOperands(), types))
        yields.push_back(as(v, t));
      YieldOp::create(b, loc, yields);
    }
    converted = std::move(savedConverted);
    masked = std::move(savedMasked);
    for (auto [orig, now] : llvm::zip(loop.getResults(), copy.getResults()))
      map.map(orig, now);
    hoistInvariants(copy);
  }

  /// Moves the code of `loop`'s body that does not change across its trips before it: pure ops and
  /// reads of operands defined outside, when the body writes nothing (a row tile read once for all the
  /// members that walk it). A moved read is valid only where the loop runs a trip (lo < hi).
  static void hoistInvariants(ForOp loop) {
    Block &body = loop.getBody().front();
    if (llvm::any_of(body, [](Operation &op) {
          return op.getNumRegions() == 0 && !isMemoryEffectFree(&op) && !isa<LoadOp, GatherOp>(op);
        }))
      return;
    Value runs;
    for (Operation &op : llvm::make_early_inc_range(body.without_terminator())) {
      if (op.getNumRegions() != 0 || !(isMemoryEffectFree(&op) || isa<LoadOp, GatherOp>(op)) ||
          llvm::any_of(op.getOperands(), [&](Value v) { return v.getParentBlock() == &body; }))
        continue;
      op.moveBefore(loop);
      OpOperand *valid = nullptr;
      if (auto load = dyn_cast<LoadOp>(op))
        valid = &load.getValidMutable();
      else if (auto gather = dyn_cast<GatherOp>(op))
        valid = &gather.getValidMutable();
      if (!valid)
        continue;
      OpBuilder b(&op);
      Location loc = op.getLoc();
      if (!runs)
        runs = CmpOp::create(b, loc, kir::CmpPredicate::LT, loop.getLower(), loop.getUpper());
      Value trip = runs;
      if (valid->get().getType() != runs.getType())
        trip = SplatOp::create(b, loc, valid->get().getType(), runs);
      valid->set(BinaryOp::create(b, loc, kir::BinaryKind::And, valid->get(), trip, false, false));
    }
  }

  /// A scatter-add of a row value at row-independent coordinates: the program's rows summed over the
  /// ROWS axis with its combine (rows past the last one add 0; seed 002 §4 regroups the sum), then one
  /// scatter of the [X] (or scalar) sum where each row scattered its own.
  void mergeRows(ScatterReduceOp scatter) {
    Location loc = scatter.getLoc();
    Type type = scatter.getValue().getType();
    auto wide = cast<FragmentType>(widen(type));
    Value v = as(scatter.getValue(), wide);
    Type element = wide.getElementType();
    Value zero = isa<FloatType>(element) ? Value(arith::ConstantOp::create(b, loc, FloatAttr::get(element, 0.0)))
                                         : Value(arith::ConstantOp::create(b, loc, IntegerAttr::get(element, 0)));
    Value kept = SelectOp::create(b, loc, rowsIn(wide, loc), v, SplatOp::create(b, loc, wide, zero));
    auto sum = ReduceOp::create(b, loc, TypeRange{type}, ValueRange{kept}, b.getDenseI64ArrayAttr({0}),
                                ValueRange{zero});
    IRMapping same;
    scatter.getCombine().cloneInto(&sum.getCombine(), same);
    auto copy = cast<ScatterReduceOp>(b.clone(*scatter, map));
    copy.getValueMutable().assign(sum.getResult(0));
  }

  /// The rows' liveness ([ROWS] i1) spread to the extents of `shape`.
  Value rowsIn(Type shape, Location loc) {
    auto i1 = FragmentType::get(b.getContext(), b.getI1Type(), cast<FragmentType>(shape).getExtents());
    Value rows = rowsValid;
    if (rows.getType() != i1) {
      Value &made = converted[{rows, i1}];
      if (!made)
        made = BroadcastOp::create(b, loc, i1, rows, ArrayRef<int64_t>{0});
      rows = made;
    }
    return rows;
  }

  Value and_(Value valid, Type shape) {
    Value rows = rowsIn(shape, valid.getLoc());
    Value &both = masked[valid];
    if (!both)
      both = BinaryOp::create(b, valid.getLoc(), kir::BinaryKind::And, valid, rows, false, false);
    return both;
  }

  OpBuilder &b;
  const DenseSet<Value> &rowValues;
  Value rowsValid;
  IRMapping map;
  DenseMap<std::pair<Value, Type>, Value> converted;
  DenseMap<Value, Value> masked; // a validity and the rows' liveness
};

/// The coordinates of the group's members `member` (row-major over `extents`), by `bin`: each coordinate
/// of `coords` mapped to its own (scalars, or [ROWS] fragments with `splat` the extents' splat).
template <typename Bin, typename Splat>
void decodeRows(ArrayRef<BlockArgument> coords, ArrayRef<Value> extents, Value member, Bin bin, Splat splat,
                llvm::function_ref<void(Value, Value)> map) {
  Value rest = member;
  for (size_t i = coords.size(); i-- > 0;) {
    Value at = rest;
    if (i > 0) {
      Value e = splat(extents[i]);
      at = bin(kir::BinaryKind::Rem, rest, e);
      rest = bin(kir::BinaryKind::Div, rest, e);
    }
    map(coords[i], at);
  }
}

/// Packs ROWS rows into each program of `group` (the sole group of `space`; `staged` its row path,
/// `guardSlice` the row code computing its test where that test depends on the row).
/// `along`: the one coordinate the rows run along (sharedAxis): a program then owns ROWS consecutive
/// values of it at one value of every other coordinate, programs ordered with those others innermost
/// (row-major over them, then the blocks of ROWS), so consecutive programs read adjacent elements of a
/// per-row access (x[n, f] of f and f + 1) while they are in the cache.
void packRows(ProgramSpaceOp space, ExecutionGroupOp group, IfOp staged, const DenseSet<Value> &rowValues,
              ArrayRef<Operation *> guardSlice, std::optional<unsigned> along = std::nullopt) {
  OpBuilder b(space);
  Location loc = group.getLoc();
  auto bin = [&](kir::BinaryKind kind, Value l, Value r) {
    return BinaryOp::create(b, loc, kind, l, r, false, false).getResult();
  };
  Value rowsParam = ParamOp::create(b, loc, b.getIndexType(), kRows);
  SmallVector<Value> allExtents(group.getExtents());
  Block &body = group.getBody().front();
  SmallVector<BlockArgument> allCoords(body.getArguments());
  // The coordinates the rows run along (all of them, row-major, or `along`) and the others, fixed in
  // a program (`others`, their count `outer`).
  SmallVector<Value> extents;
  SmallVector<BlockArgument> coords, others;
  SmallVector<Value> otherExtents;
  for (auto [i, arg] : llvm::enumerate(allCoords)) {
    bool packed = !along || i == *along;
    (packed ? extents : otherExtents).push_back(allExtents[i]);
    if (packed)
      coords.push_back(arg);
    else
      others.push_back(arg);
  }
  Value rows = extents.front();
  for (Value e : ArrayRef<Value>(extents).drop_front())
    rows = bin(kir::BinaryKind::Mul, rows, e);
  Value blocks = CeilDivOp::create(b, loc, rows, rowsParam);
  Value outer;
  if (!others.empty()) {
    outer = otherExtents.front();
    for (Value e : ArrayRef<Value>(otherExtents).drop_front())
      outer = bin(kir::BinaryKind::Mul, outer, e);
    blocks = bin(kir::BinaryKind::Mul, blocks, outer);
  }
  launchPrograms(b, space, group, blocks);

  BlockArgument owner = body.addArgument(b.getIndexType(), loc);
  Value block = owner;
  if (!others.empty()) {
    // The other coordinates, row-major in the program's position among `outer`: scalars of the program.
    b.setInsertionPointToStart(&body);
    block = bin(kir::BinaryKind::Div, owner, outer);
    decodeRows(others, otherExtents, bin(kir::BinaryKind::Rem, owner, outer), bin, [](Value e) { return e; },
               [&](Value c, Value at) { c.replaceAllUsesWith(at); });
  }
  b.setInsertionPoint(staged);
  Value first = bin(kir::BinaryKind::Mul, block, rowsParam);
  auto rowsType = FragmentType::get(b.getContext(), b.getIndexType(), {b.getStringAttr(kRows)});

  // A test that depends on the row (its length, a clipped slice's: 0 < n(m) <= BLOCK): the program
  // takes the packed path when every row it owns passes, and runs each row's own test otherwise.
  Operation *perRow = nullptr;
  if (!guardSlice.empty()) {
    perRow = staged->clone();
    Value member = IotaOp::create(b, loc, rowsType, first);
    Value valid = CmpOp::create(b, loc, kir::CmpPredicate::LT, member, SplatOp::create(b, loc, rowsType, rows));
    Widener widener(b, rowValues, valid);
    decodeRows(coords, extents, member, bin, [&](Value e) { return SplatOp::create(b, loc, rowsType, e).getResult(); },
               [&](Value c, Value at) { widener.mapRow(c, at); });
    for (Operation *op : guardSlice)
      widener.clone(*op);
    Value passes = widener.lookup(staged.getCondition());
    auto flags = FragmentType::get(b.getContext(), b.getI1Type(), {b.getStringAttr(kRows)});
    Value no = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 0);
    Value yes = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
    // A row of the program (below the row count) that fails its test.
    Value fails = SelectOp::create(b, loc, passes, SplatOp::create(b, loc, flags, no), valid);
    auto any = ReduceOp::create(b, loc, TypeRange{b.getI1Type()}, ValueRange{fails}, b.getDenseI64ArrayAttr({0}),
                                ValueRange{no});
    {
      OpBuilder::InsertionGuard g(b);
      Block *combine = b.createBlock(&any.getCombine(), {}, {b.getI1Type(), b.getI1Type()}, {loc, loc});
      YieldOp::create(b, loc, ValueRange{bin(kir::BinaryKind::Or, combine->getArgument(0), combine->getArgument(1))});
    }
    Value all = SelectOp::create(b, loc, any.getResult(0), no, yes);
    staged.getConditionMutable().assign(all);
  }

  // The staged path: the program's rows as [ROWS] fragments of coordinates.
  {
    Block &then = staged.getThenRegion().front();
    Block *wide = new Block();
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(wide);
    Value member = IotaOp::create(b, loc, rowsType, first);
    Value valid = CmpOp::create(b, loc, kir::CmpPredicate::LT, member, SplatOp::create(b, loc, rowsType, rows));
    Widener widener(b, rowValues, valid);
    Value rest = member;
    for (size_t i = coords.size(); i-- > 0;) {
      Value at = rest;
      if (i > 0) {
        Value e = SplatOp::create(b, loc, rowsType, extents[i]);
        at = bin(kir::BinaryKind::Rem, rest, e);
        rest = bin(kir::BinaryKind::Div, rest, e);
      }
      widener.mapRow(coords[i], at);
    }
    for (Operation &op : then.without_terminator())
      widener.clone(op);
    YieldOp::create(b, loc);
    then.dropAllDefinedValueUses();
    then.erase();
    staged.getThenRegion().push_back(wide);
  }

  // Under a row-dependent test, the program's rows one after the other, each through its own test and
  // either path as before.
  if (perRow) {
    Block &otherwise = staged.getElseRegion().front();
    SmallVector<Operation *> old;
    for (Operation &op : otherwise.without_terminator())
      old.push_back(&op);
    for (Operation *op : llvm::reverse(old))
      op->erase();
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&otherwise);
    Value last = bin(kir::BinaryKind::Min, bin(kir::BinaryKind::Add, first, rowsParam), rows);
    auto loop = ForOp::create(b, loc, TypeRange(), first, last, arith::ConstantIndexOp::create(b, loc, 1), ValueRange());
    Block *each = b.createBlock(&loop.getBody());
    Value member = each->addArgument(b.getIndexType(), loc);
    IRMapping map;
    decodeRows(coords, extents, member, bin, [](Value e) { return e; }, [&](Value c, Value at) { map.map(c, at); });
    for (Operation *op : guardSlice)
      b.clone(*op, map);
    b.clone(*perRow, map);
    YieldOp::create(b, loc);
    perRow->erase();
    for (Operation *op : llvm::reverse(guardSlice))
      op->erase();
    body.eraseArguments(0, allCoords.size());
    return;
  }

  // The blocked path: the program's rows one after the other.
  {
    Block &otherwise = staged.getElseRegion().front();
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&otherwise);
    Value last = bin(kir::BinaryKind::Min, bin(kir::BinaryKind::Add, first, rowsParam), rows);
    auto loop = ForOp::create(b, loc, TypeRange(), first, last, arith::ConstantIndexOp::create(b, loc, 1), ValueRange());
    Block *each = b.createBlock(&loop.getBody());
    Value member = each->addArgument(b.getIndexType(), loc);
    each->getOperations().splice(each->end(), otherwise.getOperations(), std::next(Block::iterator(loop)),
                                 Block::iterator(otherwise.getTerminator()));
    b.setInsertionPointToStart(each);
    Value rest = member;
    for (size_t i = coords.size(); i-- > 0;) {
      Value at = rest;
      if (i > 0) {
        at = bin(kir::BinaryKind::Rem, rest, extents[i]);
        rest = bin(kir::BinaryKind::Div, rest, extents[i]);
      }
      coords[i].replaceUsesWithIf(at, [&](OpOperand &use) { return loop->isAncestor(use.getOwner()); });
    }
    b.setInsertionPointToEnd(each);
    YieldOp::create(b, loc);
  }
  body.eraseArguments(0, allCoords.size());
}

/// Whether `op` may sit in a packed reduction's member: straight-line pure code and reads (no regions
/// but a reduction's combine, no writes).
bool isMemberCode(Operation &op) {
  return isa<arith::ConstantOp, ParamOp, BinaryOp, UnaryOp, CmpOp, SelectOp, CastOp, BitcastOp, SplatOp, IotaOp,
             LoadOp, GatherOp, ReduceOp>(op);
}

/// What reducedRowWalks and writtenRowWalks read of a member's body, op by op: straight-line member code
/// the packing widens, and blocking walks all over one range defined outside `region` whose bodies are
/// such code reducing rank-1 rows over axis 0. `rowValues` gains every value that depends on the member;
/// `inWalk` sees each of a walk's member-dependent ops (false refuses, `why` set by it).
struct RowWalkScan {
  Region &region;
  DenseSet<Value> &rowValues;
  std::string &why;
  SmallVector<ForOp> walks;
  bool reduces = false;

  bool dependent(Operation &op) const {
    return llvm::any_of(op.getOperands(), [&](Value v) { return rowValues.contains(v); });
  }
  static bool shaped(Operation &op) { return llvm::all_of(op.getResultTypes(), isRowShaped); }

  /// Takes `op` into the member; false (and `why`) where the packing does not widen it.
  bool add(Operation &op, llvm::function_ref<bool(Operation &)> inWalk) {
    auto outside = [&](Value v) { return !region.isAncestor(v.getParentRegion()); };
    auto loop = dyn_cast<ForOp>(op);
    if (!loop) {
      if (!isMemberCode(op) || isa<ReduceOp>(op) || !shaped(op)) {
        why = "the member holds an op the row packing does not widen: " + op.getName().getStringRef().str();
        return false;
      }
      if (dependent(op))
        rowValues.insert(op.result_begin(), op.result_end());
      return true;
    }
    if (!isBlockingLoop(loop) || !outside(loop.getLower()) || !outside(loop.getUpper()) ||
        (!walks.empty() && (loop.getLower() != walks.front().getLower() ||
                            loop.getUpper() != walks.front().getUpper())) ||
        llvm::any_of(loop.getInits(), [&](Value v) { return isFragment(v) || rowValues.contains(v); })) {
      why = "a loop of the member is no blocking walk of one row-independent range";
      return false;
    }
    Block &inner = loop.getBody().front();
    for (Operation &in : inner.without_terminator()) {
      auto r = dyn_cast<ReduceOp>(in);
      if (!isMemberCode(in) || !shaped(in) ||
          (r && (r.getAxes().size() != 1 || r.getAxes()[0] != 0 ||
                 llvm::any_of(r.getInputs(), [](Value v) {
                   auto f = dyn_cast<FragmentType>(v.getType());
                   return !f || f.getRank() != 1;
                 })))) {
        why = "a walk holds an op the row packing does not widen: " + in.getName().getStringRef().str();
        return false;
      }
      if (dependent(in)) {
        rowValues.insert(in.result_begin(), in.result_end());
        reduces |= bool(r);
        if (!inWalk(in))
          return false;
      }
    }
    for (auto [result, yielded] : llvm::zip(loop.getResults(), inner.getTerminator()->getOperands()))
      if (rowValues.contains(yielded))
        rowValues.insert(result);
    walks.push_back(loop);
    return true;
  }
};

/// A reduction over rows whose member reduces its row (222's BPR loss: the sum over triples t of
/// f(<U[u[t]], I[p[t]] - I[n[t]]>), the dot one blocking loop over D through the gathered rows): the
/// blocking loops of `rr`'s element, all over one range [lo, hi) defined outside `rr`, their bodies
/// straight-line code reducing a row gathered through the member's index; `rowValues` gains every value
/// that depends on the member.
/// Empty (and `why` set) where the element holds anything else.
SmallVector<ForOp> reducedRowWalks(RangeReduceOp rr, DenseSet<Value> &rowValues, std::string &why) {
  Region &element = rr.getElement();
  // A kernel-level reduction: its group has no axes but pgpu-split-row-reductions' fold_split (its
  // members are the launch's work); a group with axes of its own has rows (the first rule's).
  auto group = dyn_cast<ExecutionGroupOp>(rr->getParentOp());
  if (rr.getNumResults() != 1 || !group || llvm::any_of(group.getRoles(), [](Attribute r) {
        return cast<StringAttr>(r).getValue() != "fold_split";
      })) {
    why = "not the one result of a kernel-level reduction";
    return {};
  }
  if (llvm::any_of(rr.getCombine().front(),
                   [](Operation &op) { return op.getNumRegions() > 0 || !isMemoryEffectFree(&op); })) {
    why = "the combine is no pure straight-line code";
    return {};
  }
  Block &body = element.front();
  rowValues.insert(body.getArgument(0));
  RowWalkScan scan{element, rowValues, why};
  bool gathers = false;
  for (Operation &op : body.without_terminator())
    if (!scan.add(op, [&](Operation &in) {
          gathers |= isa<GatherOp>(in) && isFragment(in.getResult(0));
          return true;
        }))
      return {};
  if (scan.walks.empty() || !scan.reduces || isFragment(body.getTerminator()->getOperand(0))) {
    why = "the member reduces no row";
    return {};
  }
  // The rows are gathered through indices read per member (embedding rows of the triples): a member's
  // own row of a view (a row of logits, thousands of columns wide) is walked in blocks as it was.
  if (!gathers) {
    why = "the member's row is no gathered row";
    return {};
  }
  return scan.walks;
}

/// The guard a packed member runs under, `lo < hi && hi - lo <= BLOCK` of `walk`'s range, and the ROWS
/// parameter its packed loop steps by (pgpu-pack-rows' second and third rules).
std::pair<Value, Value> oneBlockGuard(OpBuilder &b, Location loc, ForOp walk) {
  auto bin = [&](kir::BinaryKind kind, Value l, Value r) {
    return BinaryOp::create(b, loc, kind, l, r, false, false).getResult();
  };
  Value block = ParamOp::create(b, loc, b.getIndexType(), kBlockParam);
  Value width = bin(kir::BinaryKind::Sub, walk.getUpper(), walk.getLower());
  Value guard = bin(kir::BinaryKind::And, CmpOp::create(b, loc, kir::CmpPredicate::LT, walk.getLower(), walk.getUpper()),
                    CmpOp::create(b, loc, kir::CmpPredicate::LE, width, block));
  return {guard, ParamOp::create(b, loc, b.getIndexType(), kRows)};
}

/// Clones a member's `body` (its row argument already mapped) as [ROWS] fragments through `widener`,
/// each walk its one block: the walk's index the range's start, its carries their initial values.
void widenMember(Widener &widener, Block &body) {
  for (Operation &op : body.without_terminator()) {
    auto walkLoop = dyn_cast<ForOp>(op);
    if (!walkLoop) {
      widener.clone(op);
      continue;
    }
    Block &inner = walkLoop.getBody().front();
    widener.mapRow(inner.getArgument(0), walkLoop.getLower());
    for (auto [arg, init] : llvm::zip(inner.getArguments().drop_front(), walkLoop.getInits()))
      widener.mapRow(arg, widener.lookup(init));
    for (Operation &in : inner.without_terminator())
      widener.clone(in);
    for (auto [result, yielded] : llvm::zip(walkLoop.getResults(), inner.getTerminator()->getOperands()))
      widener.mapRow(result, widener.lookup(yielded));
  }
}

/// Runs `rr`'s members ROWS at a time (see the file comment): under `pgpu.if (lo < hi && hi - lo <=
/// BLOCK)` of its walks' range, a loop over [lower, upper) of `rr` stepped by ROWS whose trip computes
/// its members' elements as [ROWS] fragments (each walk its one block, [ROWS, BLOCK] tiles), keeps the
/// members below `upper`, reduces them over axis 0 with `rr`'s combine and combines that into the
/// carry; `rr` as it was otherwise.
void packReducedRows(RangeReduceOp rr, ArrayRef<ForOp> walks, const DenseSet<Value> &rowValues) {
  OpBuilder b(rr);
  Location loc = rr.getLoc();
  auto [guard, rowsParam] = oneBlockGuard(b, loc, walks.front());
  Value identity = rr.getIdentities().front();
  Type type = rr.getResult(0).getType();
  auto ifOp = IfOp::create(b, loc, TypeRange{type}, guard);
  Block &combine = rr.getCombine().front();
  {
    OpBuilder::InsertionGuard g(b);
    b.createBlock(&ifOp.getThenRegion());
    auto loop = ForOp::create(b, loc, TypeRange{type}, rr.getLower(), rr.getUpper(), rowsParam, ValueRange{identity});
    Block *trip = b.createBlock(&loop.getBody());
    Value first = trip->addArgument(b.getIndexType(), loc);
    Value carry = trip->addArgument(type, loc);
    auto rowsType = FragmentType::get(b.getContext(), b.getIndexType(), {b.getStringAttr(kRows)});
    Value member = IotaOp::create(b, loc, rowsType, first);
    Value valid = CmpOp::create(b, loc, kir::CmpPredicate::LT, member, SplatOp::create(b, loc, rowsType, rr.getUpper()));
    Widener widener(b, rowValues, valid);
    Block &body = rr.getElement().front();
    widener.mapRow(body.getArgument(0), member);
    widenMember(widener, body);
    auto values = FragmentType::get(b.getContext(), type, {b.getStringAttr(kRows)});
    Value value = widener.lookup(body.getTerminator()->getOperand(0));
    if (!isFragment(value))
      value = SplatOp::create(b, loc, values, value);
    // Members past `upper` add the identity.
    Value kept = SelectOp::create(b, loc, valid, value, SplatOp::create(b, loc, values, identity));
    auto part = ReduceOp::create(b, loc, TypeRange{type}, ValueRange{kept}, b.getDenseI64ArrayAttr({0}),
                                 ValueRange{identity});
    IRMapping same;
    rr.getCombine().cloneInto(&part.getCombine(), same);
    IRMapping join;
    join.map(combine.getArgument(0), carry);
    join.map(combine.getArgument(1), part.getResult(0));
    for (Operation &op : combine.without_terminator())
      b.clone(op, join);
    YieldOp::create(b, loc, ValueRange{join.lookupOrDefault(combine.getTerminator()->getOperand(0))});
    b.setInsertionPointAfter(loop);
    YieldOp::create(b, loc, loop.getResults());
  }
  rr.getResult(0).replaceAllUsesWith(ifOp.getResult(0));
  Block *otherwise = b.createBlock(&ifOp.getElseRegion());
  rr->moveBefore(otherwise, otherwise->end());
  b.setInsertionPointToEnd(otherwise);
  YieldOp::create(b, loc, rr.getResults());
}

/// pgpu-pack-rows' second rule: a kernel's reductions over rows whose members reduce their rows.
/// Returns whether one was packed; `spans` the shape symbol every packed walk's range spans (empty
/// where none, or two differ).
bool packReductions(KernelOp kernel, bool remarks, StringAttr &spans) {
  SmallVector<std::pair<RangeReduceOp, DenseSet<Value>>> packed;
  SmallVector<SmallVector<ForOp>> walks;
  kernel.walk([&](RangeReduceOp rr) {
    DenseSet<Value> rowValues;
    std::string why;
    SmallVector<ForOp> found = reducedRowWalks(rr, rowValues, why);
    if (found.empty())
      return;
    packed.emplace_back(rr, std::move(rowValues));
    walks.push_back(std::move(found));
  });
  for (auto [entry, found] : llvm::zip(packed, walks)) {
    StringAttr symbol = spannedSymbol(found.front().getLower(), found.front().getUpper());
    spans = &entry == &packed.front() || spans == symbol ? symbol : StringAttr();
    packReducedRows(entry.first, found, entry.second);
    if (remarks)
      entry.first.emitRemark() << "pgpu-pack-rows: the reduction takes ROWS members a step ([ROWS, BLOCK] tiles "
                                  "when its rows fit one block)";
  }
  return !packed.empty();
}

/// A foreach whose members each reduce a short row and write the result (94's squared distances
/// d[m, n] = sum_d (k[n, d] - q[m, d])^2 kept in a workspace for the selections after it: one key a trip,
/// its [BLOCK] walk 64 of 512 lanes busy at D = 64): the blocking walks of `each`'s body, all over one
/// range [lo, hi) defined outside `each`, their bodies straight-line code reducing the member's row; the
/// body's other code member code and, last, writes (store, buffer_store) of scalars at coordinates that
/// depend on the member (each member writes its own element). `rowValues` gains every value that depends
/// on the member. Empty (and `why` set) where the body holds anything else.
SmallVector<ForOp> writtenRowWalks(ForeachOp each, DenseSet<Value> &rowValues, std::string &why) {
  Region &region = each.getBody();
  // Rows every program walks (a table: keys, centroids, a codebook, read at the member's coordinates
  // alone) are a feature axis each; a row read at the program's coordinates (290's vocabulary row of
  // logits[b, k, :]) is the program's own data, thousands of elements wide: walked in blocks as it was.
  auto fromProgram = [](Value v) {
    SmallVector<Value> work{v};
    DenseSet<Value> seen;
    while (!work.empty()) {
      Value x = work.pop_back_val();
      if (!seen.insert(x).second)
        continue;
      if (auto arg = dyn_cast<BlockArgument>(x)) {
        if (isa_and_nonnull<ExecutionGroupOp, ProgramSpaceOp>(arg.getOwner()->getParentOp()))
          return true;
        continue;
      }
      if (Operation *def = x.getDefiningOp(); def && def->getNumRegions() == 0)
        llvm::append_range(work, def->getOperands());
    }
    return false;
  };
  Block &body = region.front();
  if (body.getNumArguments() != 1) {
    why = "not a foreach over one axis";
    return {};
  }
  rowValues.insert(body.getArgument(0));
  RowWalkScan scan{region, rowValues, why};
  bool writes = false;
  for (Operation &op : body.without_terminator()) {
    if (isa<StoreOp, BufferStoreOp>(op)) {
      Value value = op.getOperand(0);
      ValueRange coords = isa<StoreOp>(op) ? cast<StoreOp>(op).getCoords() : cast<BufferStoreOp>(op).getCoords();
      if (isFragment(value) || llvm::none_of(coords, [&](Value c) { return rowValues.contains(c); }) ||
          llvm::any_of(coords, isFragment)) {
        why = "a write of the member is no scalar at its own coordinates";
        return {};
      }
      writes = true;
      continue;
    }
    if (writes) {
      why = "the member computes after its writes";
      return {};
    }
    if (!scan.add(op, [&](Operation &in) {
          if (auto coords = readCoords(in); coords && llvm::any_of(*coords, fromProgram)) {
            why = "the member's row is the program's own (a read at the program's coordinates), whose length "
                  "nothing bounds";
            return false;
          }
          return true;
        }))
      return {};
  }
  if (scan.walks.empty() || !scan.reduces || !writes) {
    why = "the member reduces no row it writes";
    return {};
  }
  return scan.walks;
}

/// Runs `each`'s members ROWS at a time: under `pgpu.if (lo < hi && hi - lo <= BLOCK)` of its walks'
/// range, a loop over the foreach's range stepped by ROWS whose trip computes its members as [ROWS]
/// fragments (each walk its one block, [ROWS, BLOCK] tiles) and writes them masked to the members below
/// the range's end; `each` as it was otherwise (a row longer than BLOCK, or empty).
void packWrittenRows(ForeachOp each, ArrayRef<ForOp> walks, const DenseSet<Value> &rowValues) {
  OpBuilder b(each);
  Location loc = each.getLoc();
  auto [guard, rowsParam] = oneBlockGuard(b, loc, walks.front());
  auto ifOp = IfOp::create(b, loc, TypeRange{}, guard);
  {
    OpBuilder::InsertionGuard g(b);
    b.createBlock(&ifOp.getThenRegion());
    auto loop = ForOp::create(b, loc, TypeRange{}, each.getLower(), each.getUpper(), rowsParam, ValueRange{});
    Block *trip = b.createBlock(&loop.getBody());
    Value first = trip->addArgument(b.getIndexType(), loc);
    auto rowsType = FragmentType::get(b.getContext(), b.getIndexType(), {b.getStringAttr(kRows)});
    Value member = IotaOp::create(b, loc, rowsType, first);
    Value valid =
        CmpOp::create(b, loc, kir::CmpPredicate::LT, member, SplatOp::create(b, loc, rowsType, each.getUpper()));
    Widener widener(b, rowValues, valid);
    Block &body = each.getBody().front();
    widener.mapRow(body.getArgument(0), member);
    widenMember(widener, body);
    YieldOp::create(b, loc);
    b.setInsertionPointAfter(loop);
    YieldOp::create(b, loc);
  }
  Block *otherwise = b.createBlock(&ifOp.getElseRegion());
  each->moveBefore(otherwise, otherwise->end());
  b.setInsertionPointToEnd(otherwise);
  YieldOp::create(b, loc);
}

/// pgpu-pack-rows' third rule: a kernel's foreach ops whose members reduce their rows and write them.
/// Returns whether one was packed; `spans` as packReductions'.
bool packWrites(KernelOp kernel, bool remarks, StringAttr &spans) {
  SmallVector<std::pair<ForeachOp, DenseSet<Value>>> packed;
  SmallVector<SmallVector<ForOp>> walks;
  kernel.walk([&](ForeachOp each) {
    DenseSet<Value> rowValues;
    std::string why;
    SmallVector<ForOp> found = writtenRowWalks(each, rowValues, why);
    if (found.empty())
      return;
    packed.emplace_back(each, std::move(rowValues));
    walks.push_back(std::move(found));
  });
  for (auto [entry, found] : llvm::zip(packed, walks)) {
    StringAttr symbol = spannedSymbol(found.front().getLower(), found.front().getUpper());
    spans = &entry == &packed.front() || spans == symbol ? symbol : StringAttr();
    if (remarks)
      entry.first.emitRemark() << "pgpu-pack-rows: the foreach takes ROWS members a step ([ROWS, BLOCK] tiles "
                                  "when its rows fit one block)";
    packWrittenRows(entry.first, found, entry.second);
  }
  return !packed.empty();
}

struct PackRows : public tessel::pgpu::impl::PGPUPackRowsBase<PackRows> {
  void runOnOperation() override {
    for (KernelOp kernel : llvm::to_vector(getOperation().getOps<KernelOp>())) {
      ProgramSpaceOp space;
      kernel.walk([&](ProgramSpaceOp s) { space = s; });
      if (!space)
        continue;
      bool remarks = remarksEnabled(kernel);
      ExecutionGroupOp group = soleExecutionGroup(space, /*finalization=*/true);
      if (!group || group.getExtents().empty() || kernel.getParam(kRows)) {
        if (remarks && group)
          group.emitRemark() << "pgpu-pack-rows: one row per program kept: the group has no axes";
        continue;
      }
      // A test that depends on the row packs only where the rows are short at any call: BLOCK covers a
      // constant width (pgpu-form-blocking's `covers = "128"`, blocks of a wider row). A row of a runtime
      // length (a GroupNorm's group, cpg * H * W) would take the per-row loop at every call that runs it
      // long, for nothing.
      ParamAttr block = kernel.getParam(kBlockParam);
      bool boundedRows = block && block.getCovers() && !block.getCovers().getValue().empty() &&
                         llvm::all_of(block.getCovers().getValue(), llvm::isDigit);
      const char *unbounded = "the staged test depends on the row, whose length has no constant bound (BLOCK "
                              "covers no width)";
      DenseSet<Value> rowValues;
      SmallVector<Operation *> guardSlice;
      std::string why;
      IfOp staged = stagedRows(group, rowValues, guardSlice, why);
      if (staged && !guardSlice.empty() && !boundedRows) {
        why = unbounded;
        staged = {};
      }
      if (!staged) {
        // A single row loop or a row-dependent prefix (a gathered row's index): made stageable on a
        // copy, kept where the packing then fires.
        OpBuilder b(kernel);
        auto copy = cast<KernelOp>(b.clone(*kernel));
        ProgramSpaceOp copySpace;
        copy.walk([&](ProgramSpaceOp s) { copySpace = s; });
        ExecutionGroupOp copyGroup = soleExecutionGroup(copySpace, /*finalization=*/true);
        DenseSet<Value> copyRows;
        SmallVector<Operation *> copySlice;
        std::string unused;
        if (copyGroup && stageableRows(copyGroup) && (staged = stagedRows(copyGroup, copyRows, copySlice, unused)) &&
            !copySlice.empty() && !boundedRows) {
          why = unbounded;
          staged = {};
        }
        if (staged) {
          kernel.erase();
          kernel = copy;
          space = copySpace;
          group = copyGroup;
          rowValues = std::move(copyRows);
          guardSlice = std::move(copySlice);
        } else {
          copy.erase();
        }
      }
      // A test that depends on the row packs only where the rows are short at any call: BLOCK covers a
      // constant width (pgpu-form-blocking's `covers = "128"`, blocks of a wider row). A row of a runtime
      // length (a GroupNorm's group, cpg * H * W) would take the per-row loop at every call that runs it
      // long, for nothing.
      if (!staged) {
        if (remarks)
          group.emitRemark() << "pgpu-pack-rows: one row per program kept: " << why;
        continue;
      }
      // Rows along one coordinate where reads of the others are then shared (sharedAxis' cost rule).
      int64_t shared = 0, lost = 0;
      std::optional<unsigned> along;
      if (guardSlice.empty())
        along = sharedAxis(kernel, group, staged, shared, lost);
      if (along) {
        DenseSet<Value> alongRows;
        SmallVector<Operation *> alongSlice;
        std::string unused;
        if (stagedRows(group, alongRows, alongSlice, unused, along) == staged && alongSlice.empty())
          rowValues = std::move(alongRows);
        else
          along.reset();
      }
      packRows(space, group, staged, rowValues, guardSlice, along);
      if (remarks && along)
        group.emitRemark() << "pgpu-pack-rows: each program owns ROWS consecutive rows along axis " << *along
                           << " at one value of the other axes (reads of those, " << shared
                           << " bytes a row at the narrowest tile, are shared; " << lost
                           << " bytes a row of per-row accesses lose their adjacency)";
      else if (remarks)
        group.emitRemark() << "pgpu-pack-rows: each program owns ROWS consecutive rows ([ROWS, BLOCK] tiles "
                              "on the staged path)";
      SmallVector<Attribute> params;
      if (auto existing = kernel.getParams())
        for (Attribute a : *existing)
          params.push_back(narrowerRowBlocks(cast<ParamAttr>(a)));
      // ROWS x BLOCK is the staged tile. The declared default is 1, one row per program as before the
      // packing: a binding that knows no row length (`kernel.launch` without params, `tessel compile`'s
      // wrapper defaults, a direct launch) must not run 8 long rows (a softmax over 8192 columns, the
      // blocked path) one after the other in a program. A call's default follows its row length
      // (python/tessel/_kernel.py, `_rows`) and packs short rows; the search measures the candidates.
      params.push_back(ParamAttr::get(kernel.getContext(), StringAttr::get(kernel.getContext(), kRows),
                                      {1, 2, 4, 8, 16, 32, 64, 128}, 1, StringAttr()));
      kernel.setParamsAttr(ArrayAttr::get(kernel.getContext(), params));
    }
    // Reductions over rows whose members reduce their rows (a kernel without packed rows).
    for (KernelOp kernel : llvm::to_vector(getOperation().getOps<KernelOp>())) {
      StringAttr spans;
      if (kernel.getParam(kRows) || !packReductions(kernel, remarksEnabled(kernel), spans))
        continue;
      SmallVector<Attribute> params;
      if (auto existing = kernel.getParams())
        for (Attribute a : *existing) {
          auto p = cast<ParamAttr>(a);
          // BLOCK covers the packed rows (a call's default: the smallest block holding a row, then ROWS
          // rows of it a tile), where pgpu-form-blocking found no one symbol because another of its
          // loops (the partials' merge over FOLD_SPLITS) spans none: that loop takes any BLOCK.
          if (p.getName().getValue() == kBlockParam && !p.getCovers() && spans && !p.getProvider() &&
              !p.getPasses())
            p = ParamAttr::get(p.getContext(), p.getName(), p.getCandidates(), p.getDefaultValue(), p.getProvider(),
                               spans, p.getPasses());
          params.push_back(narrowerRowBlocks(p));
        }
      params.push_back(ParamAttr::get(kernel.getContext(), StringAttr::get(kernel.getContext(), kRows),
                                      {1, 2, 4, 8, 16, 32, 64, 128}, 1, StringAttr()));
      kernel.setParamsAttr(ArrayAttr::get(kernel.getContext(), params));
    }
    // Foreach ops whose members reduce their rows and write them (a kernel without ROWS yet).
    for (KernelOp kernel : llvm::to_vector(getOperation().getOps<KernelOp>())) {
      StringAttr spans;
      if (kernel.getParam(kRows) || !packWrites(kernel, remarksEnabled(kernel), spans))
        continue;
      SmallVector<Attribute> params;
      if (auto existing = kernel.getParams())
        for (Attribute a : *existing) {
          auto p = cast<ParamAttr>(a);
          // BLOCK covers the packed rows (as the second rule's): a call's default takes the smallest block
          // holding a row, so the [ROWS, BLOCK] tile has no idle lanes; other walks with BLOCK take any.
          if (p.getName().getValue() == kBlockParam && !p.getCovers() && spans && !p.getProvider() &&
              !p.getPasses())
            p = ParamAttr::get(p.getContext(), p.getName(), p.getCandidates(), p.getDefaultValue(), p.getProvider(),
                               spans, p.getPasses());
          params.push_back(narrowerRowBlocks(p));
        }
      // Default 32 members a step: the packed path runs only where a row fits BLOCK (a longer row takes the
      // foreach as it was), so the default cannot serialize long rows; [32, 64] at D = 64 is 8 KiB of f32
      // rows a trip. The call's default keeps it (ROWS leaves the program count alone: `_rows`).
      params.push_back(ParamAttr::get(kernel.getContext(), StringAttr::get(kernel.getContext(), kRows),
                                      {1, 2, 4, 8, 16, 32, 64, 128}, 32, StringAttr()));
      kernel.setParamsAttr(ArrayAttr::get(kernel.getContext(), params));
    }
  }
};
} // namespace
