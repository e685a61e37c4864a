//===- FormTiles.cpp - multi-axis tiles for contraction nests --------------===//
//
// seed 002 §3.2–§3.4: one transformation group that refines the program
// mapping and forms multi-axis fragments together, because for a contraction
// the two decisions are one: which free axes a program owns decides which
// operand tiles it reuses.
//
// Input: a program space with one execution group whose body is a nest of
//   - a chain of `pgpu.foreach` (independent free axes) each preceded only by
//     pure, effect-free code, and
//   - a straight-line program body of pointwise code, reads, writes and
//     `pgpu.range_reduce` ops with straight-line element bodies,
// where some range_reduce is contraction-shaped: an add reduction over k of
// `x * y` where x depends on free axis m (not n), y on free axis n (not m),
// and both on k. Blocking m and n together makes each loaded element of x
// serve BN products and each element of y serve BM (operand reuse), which no
// one-axis blocking gives. An operand free on several program axes (a
// convolution tap's window x[n, oh + kh - 1, ow + kw - 1, c]) is tiled along
// one of them (tiledFree); the others stay one member per program.
//
// Rewrite: every foreach of the chain becomes a program axis; each free axis
// a contraction needs is blocked by a declared parameter TILE_<i> (the other
// program axes stay scalar, one member per program); every range_reduce
// becomes an ordered `pgpu.for` over blocks of TILE_K members. A value's
// fragment axes are exactly the blocked axes it depends on (def-use), in
// program-axis then loop order. Contraction-shaped reductions become
// `pgpu.contract` of the operand fragments into a carried accumulator: the
// products are never materialized. Exact widening casts (f16/bf16 -> f32)
// around the operands are absorbed into the contraction because the products
// of the narrow values are exact in f32 (seed 002 §3.4; seed 000 §8 allows
// the regrouping of the sum); likewise i8 -> i32 around an i32 sum (exact
// products, wrapping sums: any order gives the same bits). A contraction whose sum is added to an earlier
// contraction's accumulator (used only there) continues that accumulator: a sum of contractions (the
// taps of a convolution) is one accumulator over the joined k ranges, an implicit GEMM. Other
// reductions reduce their fragment along the loop axis with `pgpu.reduce` and combine into the carry.
//
// Every access gets the validity of the blocked axes it depends on, conjoined
// with its own; reduction members on invalid loop lanes are neutralized with
// the identity (contraction operands with zero on those lanes), and a write
// must depend on every blocked axis (otherwise lanes would repeat it).
//
// Also: a straight-line nest whose accesses walk two different program axes
// (a transpose) tiles both axes so every access has contiguous runs; one whose
// accesses all walk the innermost of three or more program axes, w (an NCHW pool, a channel copy),
// tiles w and the axis just outside it as [rows, contiguous] tiles, the others
// one scalar a program: coordinates are decoded per program, not per lane. With two program axes the
// row tiles are formed only for a pairwise map (pairwiseReuse: box IoU's a[i, c] read before the walk of
// j and b[j, c] inside it, every read on one axis), where each read then serves a whole tile.
//
// Nests: a contraction nested in the element body of another reduction (its result the
// outer's operand, as construction realizes `sum_r f(sum_k x a) b` per member
// r) is tiled when its free axes are a program axis and r (checkNests). The outer
// one contracts the nested tile, or (any other reduction: a bias gradient's column
// sum of dy * act'(x w + b)) reduces it along r. One whose free axes are two program axes, an operand
// reading r besides (a lightning indexer's q[t, h, d] . k[s, d] inside its sum over h), is tiled over the
// program axes with r walked one member a trip around its K loop (memberWalkedNests). Two deep: a reduction over t of one over s of
// contractions free on t and s (ghost clipping's Gram products; FormTilesGram.cpp).
//
// A reduction nested in a product's element body that does not depend on the member (an RMSNorm's
// row sum of squares) is computed once before the product when the nest is otherwise rejected
// (hoistNestedReductions), then the nest is analyzed again.
//
// Author loops (analyzeLoop, tileLoop; tried last): a pgpu.for in the program body whose carries are
// one member's scalars, whose bounds do not depend on the program axes and whose body is pointwise code,
// reads and reductions (construction's per-element replay of a kernel-level `for` carrying tensors: a
// block-scaled GEMM's loop over K blocks) runs the same trips for every member of a tile, so it runs
// once per tile carrying tiles; each trip is tiled like the program body, in the source's order (a
// contraction over a slice of constant width <= 128 one block of lanes, no K loop in the trip).
//
// Per-row reads (setRowReads; tried last): a chain level's prologue of pointwise code and reads before a
// launch-time foreach (FlashAttention-2 backward's lse[b, h, i] and delta[b, h, i] before the walk of dQ's
// columns, retention's gamma[h]) is an ordinary level, its reads values over the level's axes: a [rows]
// vector read once per tile. Kept only where a contraction tiles and no read is of a view the group writes;
// a row statistic's walk without a contraction stays with pgpu-form-blocking.
//
// Several segments (construction's dispatch chain: one kernel computing several products, stored
// to different outputs): each segment's group is tiled on its own (tileSegments), the chain's
// bound and shift for it become its tile count.
//
// Must not fire: neither of those; dispatch code other than one group or the chain; other nested
// loops (an author loop that writes, nests control or loops, or whose bounds depend on the program
// axes) or control in the program body; ragged (program-dependent) loop
// bounds; a value that would need a fragment of rank > 2.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/IR/ExactSplit.h"
#include "tessel/Dialect/PGPU/Transforms/Passes.h"
#include "tessel/Dialect/PGPU/IR/IndexSign.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/StringSet.h"

#include <map>
#include <memory>
#include <set>

#include "FormTilesImpl.h"

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUFORMTILES
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

namespace tessel::pgpu::formtiles {
LogicalResult Tiler::analyze() {
  Block &body = group.getBody().front();
  if (rowReads)
    group.walk([&](Operation *op) {
      if (auto sr = dyn_cast<ScatterReduceOp>(op))
        written.insert(sr.getView());
      else if (isTiledWrite(op))
        written.insert(op->getOperand(1));
    });
  for (BlockArgument coord : body.getArguments())
    axes[coord] = bit(newAxis());
  // The foreach chain: each level is effect-free code, then one foreach, then the terminator.
  Block *level = &body;
  while (true) {
    Operation *last = level->getTerminator()->getPrevNode();
    auto each = dyn_cast_or_null<ForeachOp>(last);
    if (!each)
      break;
    bool pure = llvm::all_of(llvm::make_range(level->begin(), Block::iterator(each)), [](Operation &op) {
      return op.getNumRegions() == 0 && isMemoryEffectFree(&op);
    });
    // Per-row reads (setRowReads): a level's prologue of pointwise code and reads before a launch-time
    // foreach is an ordinary chain level; its reads are values over the level's axes, read once per tile
    // as vectors over the blocked ones (the query row's lse[b, h, i] before its chain's walk).
    bool rowReadLevel = rowReads && launchTime(each.getLower()) && launchTime(each.getUpper()) &&
                        llvm::all_of(llvm::make_range(level->begin(), Block::iterator(each)), [&](Operation &op) {
                          return op.getNumRegions() == 0 && (isMemoryEffectFree(&op) || isRowRead(op));
                        });
    if (!pure && rowReadLevel)
      readLevels = true;
    else if (!pure || !launchTime(each.getLower()) || !launchTime(each.getUpper())) {
      // seed 000 §3: a segment whose length is read from device data stays inside the program body.
      // The group's first foreach may be such a segment when what precedes it only computes its
      // bounds (pure code and read-only reductions); checked further in checkSegmented.
      if (level != &body || !chain.empty())
        break;
      bool bounds = llvm::all_of(llvm::make_range(level->begin(), Block::iterator(each)), [&](Operation &op) {
        if (op.getNumRegions() == 0 && (isMemoryEffectFree(&op) || isPointwiseOrRead(op)))
          return true;
        auto reduce = dyn_cast<RangeReduceOp>(op);
        bool readOnly = reduce && llvm::all_of(reduce.getElement().front().without_terminator(), isPointwiseOrRead) &&
                        llvm::all_of(reduce.getCombine().front().without_terminator(), [](Operation &c) {
                          return c.getNumRegions() == 0 && isMemoryEffectFree(&c);
                        });
        if (readOnly)
          segmentPrologue.insert(reduce);
        return readOnly;
      });
      if (!bounds) {
        segmentPrologue.clear();
        break;
      }
      segmented = true;
      boundsRead = !launchTime(each.getLower()) || !launchTime(each.getUpper());
    }
    if (numAxes >= kMaxAxes)
      return failure();
    chain.push_back(each);
    axes[each.getBody().getArgument(0)] = bit(newAxis());
    level = &each.getBody().front();
  }
  programBody = level;
  programAxes = bit(numAxes) - 1;
  if (guard && !segmented)
    return failure(); // a guarded group is walked only in segments (no remark: nothing to say)
  auto reject = [&](const Twine &why) {
    whyNot = why.str();
    return failure();
  };
  // Masks of the chain's prologues, then the program body.
  Block *walk = &body;
  for (ForeachOp each : chain) {
    if (failed(analyzeBlock(*walk, /*programBody=*/false)))
      return reject("the code before a foreach has effects or control");
    walk = &each.getBody().front();
  }
  if (failed(analyzeBlock(*programBody, /*programBody=*/true)))
    return reject("the program body has nested loops, control, atomics, or loop bounds that depend on the program");
  // A pairwise map (no reduction, two program axes) whose per-row reads precede the walk of the other
  // axis is no segment: it tiles as [rows, contiguous] tiles below (pairwiseReuse).
  if (segmented && contracts.empty() && !boundsRead && pairwiseReuse()) {
    segmented = false;
    pairwise = true;
  }
  if (segmented && contracts.empty()) {
    if (boundsRead)
      return reject("a segment whose bounds are read in the program is walked only for a contraction");
    // Launch-time bounds behind reads or reductions: a row statistic (a sum, a maximum) or per-row
    // scalars, then a loop over the row, as in a softmax, a row normalization or a per-channel
    // filter. Nothing here is a segment; pgpu-form-blocking walks the row in blocks.
    return reject("no contraction: a loop after per-row reads or reductions (a row statistic, then the row) "
                  "is blocked along the row by pgpu-form-blocking");
  }
  if (readLevels && contracts.empty())
    return reject("no contraction: per-row reads before a walk are kept for pgpu-form-blocking");
  if (!enclosingOf.empty() && failed(checkNests()))
    return failure();
  if (!loops.empty() && (contracts.empty() || segmented))
    return reject(contracts.empty() ? "a loop in the program body is tiled only where the body holds a contraction"
                                    : "a loop in the program body is not tiled in a segment walk");
  if (contracts.empty()) {
    // Coalescing: in a straight-line nest, accesses whose innermost coordinates walk different
    // program axes (a transpose) cannot all be contiguous under a one-axis blocking; blocking
    // both axes gives every access contiguous runs along its own innermost axis.
    // Reductions without a contraction are tiled only in row tiles (below), walking their members one
    // at a time: a channel window's sum of squares x[n, c', h, w] over c' per output plane (issue 41).
    const char *noContraction =
        "no reduction is contraction-shaped (a sum over k of x * y with x and y on different free axes)";
    bool windowed = !loopAxis.empty();
    if (windowed && !enclosingOf.empty())
      return reject(noContraction);
    // The program body's accesses and those of its reductions' element bodies.
    SmallVector<Operation *> accesses;
    for (Operation &op : programBody->without_terminator()) {
      accesses.push_back(&op);
      if (auto reduce = dyn_cast<RangeReduceOp>(op))
        for (Operation &inner : reduce.getElement().front().without_terminator())
          accesses.push_back(&inner);
    }
    Mask walked = 0, walkedAll = 0; // by loads and stores; by every access (gathers and scatters too)
    bool memberWalked = false;      // an access's innermost coordinate walks a reduction's members
    for (Operation *access : accesses) {
      Operation &op = *access;
      ValueRange coords;
      bool direct = isa<LoadOp, StoreOp>(op);
      if (auto load = dyn_cast<LoadOp>(op))
        coords = load.getCoords();
      else if (auto store = dyn_cast<StoreOp>(op))
        coords = store.getCoords();
      else if (auto gather = dyn_cast<GatherOp>(op))
        coords = gather.getCoords();
      else if (auto scatter = dyn_cast<ScatterOp>(op))
        coords = scatter.getCoords();
      if (coords.empty())
        continue;
      memberWalked |= (maskOf(coords.back()) & ~programAxes) != 0;
      Mask m = maskOf(coords.back()) & programAxes;
      if (popcount(m) == 1) {
        walkedAll |= m;
        if (direct)
          walked |= m;
      }
    }
    if (popcount(walked) != 2 && popcount(walkedAll) == 1) {
      walked = walkedAll;
      // Rows x contiguous (issue 41): every access walks the innermost program axis w, which a flat
      // walk over all the program axes would decode per lane (a remainder and a quotient for every
      // axis: a pool's or a channel copy's n, c, h out of its linear member). Blocking w and the axis
      // r just outside it makes [TILE_r, TILE_w] tiles of contiguous runs along w whose coordinates
      // are a program's scalars plus lane offsets: the decoding happens once per program. Kept to
      // straight-line bodies whose writes all depend on both axes (each lane writes its own element).
      unsigned w = llvm::Log2_32(walked);
      unsigned r = w - 1;
      // With reductions, a nest that is no row tile says what it said before row tiles took reductions.
      auto rowReject = [&](const Twine &why) { return windowed ? reject(noContraction) : reject(why); };
      unsigned groupAxes = group.getBody().getNumArguments();
      bool fromZero = w < groupAxes || matchPattern(chain[w - groupAxes].getLower(), m_Zero());
      Value extent = w < groupAxes ? group.getExtents()[w] : chain[w - groupAxes].getUpper();
      std::optional<int64_t> narrow = fromZero ? constantIndex(extent) : std::nullopt;
      bool innermost = walked == bit(llvm::Log2_32(programAxes)) && w >= 1 && (programAxes & bit(r));
      // Two program axes ([M, N] elementwise maps) keep the flat walk: it decodes one row coordinate per
      // lane, and its long rows run vectorized at bandwidth already (corpus 127, 158, 208 at 0.99x of
      // torch.compile on the H100). From three axes on (NCHW planes) it decodes two or more per lane.
      // A pairwise map (every read on one of the two axes: box IoU, an outer product) reuses each read
      // across the other axis: tiles read TILE_r + TILE_w operands for TILE_r x TILE_w results, where
      // the flat walk reads a row's operands again for every block of the other axis.
      if (innermost && popcount(programAxes) < 3 && !pairwise)
        return rowReject("no contraction, and every access walks the same axis (one-axis blocking serves it): two "
                         "program axes, whose flat walk decodes one row coordinate per lane");
      // A constant contiguous extent under the smallest TILE_w (a [M, 3] view) would leave most of each
      // tile's lanes masked: the flat walk packs such rows densely.
      if (innermost && narrow && *narrow < kRowTileMinWidth)
        return rowReject("no contraction, and every access walks the same axis (one-axis blocking serves it): its "
                         "constant extent is narrower than a row tile's smallest run");
      bool placed = innermost && !programBody
                                      ->walk([&](Operation *op) {
                                        if (!isTiledWrite(op))
                                          return WalkResult::advance();
                                        Mask m = 0;
                                        for (Value v : op->getOperands().drop_front(2))
                                          m |= maskOf(v);
                                        return (m & (bit(r) | bit(w))) == (bit(r) | bit(w)) ? WalkResult::advance()
                                                                                            : WalkResult::interrupt();
                                      })
                                      .wasInterrupted();
      if (!placed)
        return rowReject(!innermost ? "no contraction, and every access walks the same axis (one-axis blocking serves "
                                      "it): it is not the innermost of two or more program axes"
                                    : "no contraction, and every access walks the same axis (one-axis blocking serves "
                                      "it): a write does not depend on the row axis outside it");
      // Writes run along w with unit stride (the axis itself plus a program-uniform offset): a strided
      // write (133's pixel shuffle, out[.., 2w + j]) writes half of each sector per tile and measured
      // 1.8x slower as row tiles on the H100 (0.131 -> 0.239 ms) than its flat walk.
      Value axisW = w < groupAxes ? group.getBody().front().getArgument(w)
                                  : chain[w - groupAxes].getBody().front().getArgument(0);
      std::function<bool(Value)> unitAlongW = [&](Value v) -> bool {
        if (v == axisW)
          return true;
        auto add = v.getDefiningOp<BinaryOp>();
        if (!add || (add.getKind() != kir::BinaryKind::Add && add.getKind() != kir::BinaryKind::Sub))
          return false;
        if (maskOf(add.getRhs()) == 0)
          return unitAlongW(add.getLhs());
        return add.getKind() == kir::BinaryKind::Add && maskOf(add.getLhs()) == 0 && unitAlongW(add.getRhs());
      };
      bool unitWrites = !programBody
                             ->walk([&](Operation *op) {
                               if (!isTiledWrite(op))
                                 return WalkResult::advance();
                               ValueRange coords;
                               if (auto store = dyn_cast<StoreOp>(op))
                                 coords = store.getCoords();
                               else if (auto scatter = dyn_cast<ScatterOp>(op))
                                 coords = scatter.getCoords();
                               return !coords.empty() && unitAlongW(coords.back()) ? WalkResult::advance()
                                                                                   : WalkResult::interrupt();
                             })
                             .wasInterrupted();
      if (!unitWrites)
        return rowReject("no contraction, and every access walks the same axis (one-axis blocking serves it): a write "
                         "does not run along it with unit stride");
      // A reduction walks its members one at a time, each trip a [TILE_r, TILE_w] tile, when its reads
      // run along w (not along its members: those would be strided per trip) and its result depends on
      // both r and w (a result over fewer tiled axes would be blocked along its members instead).
      if (windowed && memberWalked)
        return reject("no contraction, and a reduction's read runs along its members, not along the row");
      for (auto &[op, k] : loopAxis) {
        Mask result = 0;
        for (Value v : op->getResults())
          result |= maskOf(v);
        if ((result & (bit(r) | bit(w))) != (bit(r) | bit(w)))
          return reject("no contraction, and a reduction's result does not depend on both row-tile axes");
      }
      walked |= bit(r);
      rowTiles = true;
      if (fromZero)
        rowCovers = extentSymbol(extent);
    }
    if (windowed && !rowTiles)
      return reject(noContraction);
    if (popcount(walked) != 2)
      return reject("no contraction, and every access walks the same axis (one-axis blocking serves it)");
    blocked = walked;
    coalescing = true;
  }
  // Blocked axes: the contractions' free axes and every reduction loop axis.
  Mask batch = 0;
  for (const ContractShape &c : contracts) {
    blocked |= bit(c.lhsFree) | bit(c.rhsFree);
    batch |= maskOf(c.lhs) & maskOf(c.rhs) & programAxes;
  }
  if (blocked & batch)
    return reject("an axis is free in one contraction and shared in another: no consistent tile");
  // A reduction's loop axis forms lanes unless its result already spans two tiled axes (a sum
  // of tiles over a short axis, like split partials): then it walks one member at a time.
  for (auto &[op, k] : loopAxis) {
    bool contraction = llvm::any_of(contracts, [&, op = op](const ContractShape &c) { return c.reduce == op; });
    Mask result = 0;
    for (Value r : op->getResults())
      result |= maskOf(r);
    if (contraction || popcount(result & blocked & programAxes) < 2)
      blocked |= bit(k);
  }
  for (auto &[op, k] : loopAxis) {
    auto reduce = cast<RangeReduceOp>(op);
    if ((maskOf(reduce.getLower()) | maskOf(reduce.getUpper())) & blocked)
      return reject("a reduction's bounds depend on a tiled axis");
  }
  // Fragments stay at rank <= 2 (the contraction products are never built).
  DenseSet<Operation *> products;
  for (const ContractShape &c : contracts)
    products.insert(c.product);
  for (auto &[v, m] : axes) {
    Operation *def = v.getDefiningOp();
    if (def && products.contains(def))
      continue;
    if (popcount(m & blocked) > 2)
      return reject("a value would need a fragment of rank > 2");
  }
  // A write must depend on every blocked program axis, or lanes would repeat it.
  WalkResult unplaced = programBody->walk([&](Operation *op) {
    if (!isTiledWrite(op))
      return WalkResult::advance();
    Mask m = 0;
    for (Value v : op->getOperands().drop_front(2))
      m |= maskOf(v);
    return (m & blocked & programAxes) != (blocked & programAxes) ? WalkResult::interrupt()
                                                                    : WalkResult::advance();
  });
  if (unplaced.wasInterrupted())
    return reject("a write does not depend on every tiled axis (lanes would repeat it)");
  paramOf.resize(numAxes);
  for (unsigned a = 0; a < numAxes; ++a)
    if (blocked & bit(a))
      paramOf[a] = (programAxes & bit(a)) || nestAxes.count(a) || sliceAxes.count(a) ? "TILE_" + std::to_string(a)
                                                                                      : kTileK.str();
  return segmented ? checkSegmented() : success();
}

/// seed 002 §3.3-§3.4 (blocking, then contraction realization with actual fragments, loops and
/// accumulators): a contraction C1 nested in the element body of a reduction C2 over axis r
/// (construction realizes C2's operand, a pointwise function of C1, per member r) is realized as a
/// tile: C1's free axes must be a program axis p and r, so inside C2's loop over blocks of r one
/// K loop accumulates C1's [p, r] tile, its pointwise function is applied to the tile, and C2
/// contracts that tile with its other operand [r, n] (C1's tile is C2's left operand) or, when C2
/// is not a contraction, reduces it along r into its [p] carry. r is blocked
/// by its own parameter TILE_<r>, one block covering a short constant extent (a LoRA rank), so C1
/// is computed once per output tile; a longer r is walked in blocks, C1 recomputed per block.
LogicalResult Tiler::checkNests() {
  auto reject = [&](const Twine &why) {
    whyNot = why.str();
    return failure();
  };
  auto contractOf = [&](Operation *op) -> const ContractShape * {
    for (const ContractShape &c : contracts)
      if (c.reduce == op)
        return &c;
    return nullptr;
  };
  // Nests two deep are tiled only in the Gram form (gramNest); any other keeps the reason it had when
  // the analysis stopped at one level.
  DenseSet<Operation *> nestedOuter;
  for (auto [innerOp, outerOp] : enclosingOf)
    for (auto [other, around] : enclosingOf)
      if (other == outerOp)
        nestedOuter.insert(outerOp);
  if (!nestedOuter.empty()) {
    for (auto [innerOp, outerOp] : enclosingOf) {
      if (nestedOuter.contains(outerOp))
        continue;
      if (segmented || !nestedOuter.contains(innerOp) ||
          !gramNest(cast<RangeReduceOp>(innerOp), cast<RangeReduceOp>(outerOp)))
        return reject("the program body has nested loops, control, atomics, or loop bounds that depend on the "
                      "program");
    }
    return success();
  }
  if (segmented)
    return reject("a contraction nested in another's element body is not tiled in a segment walk");
  for (auto [innerOp, outerOp] : enclosingOf) {
    auto inner = cast<RangeReduceOp>(innerOp), outer = cast<RangeReduceOp>(outerOp);
    unsigned r = loopAxis.lookup(outer);
    const ContractShape *c1 = contractOf(inner);
    // The enclosing reduction is a contraction (C2 contracts C1's tile), or any other reduction of a
    // pointwise function of C1's [p, r] tile (a bias gradient's column sum of dy * act'(x W + b)):
    // each block's tile is then reduced along r into the carry like any reduction of the program body.
    if (!c1)
      return reject(Twine(kNestedReduction) + " is tiled only when the inner one is a contraction or it does not "
                    "depend on the member (computed once before the enclosing one)");
    // Free on two program axes, an operand reading r's member (analyzeReduce): C2 is no contraction (its
    // product would need a third tile axis) and its result spans both, so r walks one member a trip
    // (analyze's blocked axes) around the K loop of C1's [p, q] tile, the pointwise function between them
    // applied to the tile and combined into C2's [p, q] carry.
    if (memberWalkedNests.contains(inner)) {
      Mask pq = bit(c1->lhsFree) | bit(c1->rhsFree), result = 0;
      for (Value v : outer.getResults())
        result |= maskOf(v);
      if (contractOf(outer) || (pq & ~programAxes) || (result & pq) != pq)
        return reject("a contraction nested in another's element body, free on two program axes, is tiled only "
                      "when the enclosing reduction is no contraction and its result spans both axes");
      if ((maskOf(inner.getLower()) | maskOf(inner.getUpper())) & ~programAxes)
        return reject("a nested contraction's bounds depend on the enclosing reduction's member");
      continue;
    }
    bool pr = (c1->lhsFree == r && (programAxes & bit(c1->rhsFree))) ||
              (c1->rhsFree == r && (programAxes & bit(c1->lhsFree)));
    if (!pr)
      return reject("a contraction nested in another's element body is tiled only when its free axes are a "
                    "program axis and the enclosing contraction's reduced axis");
    if ((maskOf(inner.getLower()) | maskOf(inner.getUpper())) & ~programAxes)
      return reject("a nested contraction's bounds depend on the enclosing reduction's member");
    // Short constant extents fit one block: the parameter's candidates stop at the first power of two
    // covering the extent (16 at least: tensor-core operand tiles, sm_80+).
    int64_t extent = -1;
    std::optional<int64_t> lo = constantIndex(outer.getLower()), hi = constantIndex(outer.getUpper());
    if (lo && hi)
      extent = std::max<int64_t>(*hi - *lo, 1);
    nestAxes[r] = extent;
    // The smallest candidate (16) covers it: one block, never a loop (a contraction's; another
    // reduction keeps its one-trip loop, where its tile is reduced like any block's).
    if (extent > 0 && extent <= 16 && contractOf(outer))
      singleBlock.insert(r);
  }
  return success();
}

/// A contraction nested in a later single-block reduction of the program body whose k range is
/// `op`'s (the same bounds, both blocked by TILE_K) and whose element body reads only what is
/// computed before `op` (and r, bound before the loop): it may accumulate in `op`'s loop.
RangeReduceOp Tiler::fusablePartner(RangeReduceOp op) {
  for (auto [innerOp, outerOp] : enclosingOf) {
    auto inner = cast<RangeReduceOp>(innerOp), outer = cast<RangeReduceOp>(outerOp);
    if (!singleBlock.count(loopAxis.lookup(outer)) || outer->getBlock() != op->getBlock() ||
        !op->isBeforeInBlock(outer) || inner.getLower() != op.getLower() || inner.getUpper() != op.getUpper() ||
        map.contains(inner.getResult(0)) || paramOf[loopAxis.lookup(inner)] != paramOf[loopAxis.lookup(op)])
      continue;
    auto ready = [&](Value v) {
      if (auto arg = dyn_cast<BlockArgument>(v))
        return arg.getOwner() == &inner.getElement().front() || arg.getOwner() == &outer.getElement().front() ||
               !op->getBlock()->findAncestorOpInBlock(*arg.getOwner()->getParentOp());
      Operation *def = v.getDefiningOp();
      if (inner->isAncestor(def))
        return true;
      Operation *top = op->getBlock()->findAncestorOpInBlock(*def);
      return !top || top->isBeforeInBlock(op);
    };
    bool readsReady = ready(outer.getLower()) && ready(outer.getUpper());
    inner.getElement().walk([&](Operation *o) {
      for (Value v : o->getOperands())
        readsReady &= ready(v);
    });
    for (Value id : inner.getIdentities())
      readsReady &= ready(id);
    if (readsReady)
      return inner;
  }
  return RangeReduceOp();
}

/// A segment workset (seed 000 §3: a ragged domain whose length requires reading device data
/// remains inside the program body) is tiled in a walk: the grid is launch-uniform (PERSIST
/// programs per multiprocessor), every program walks the group's members in order, reads each
/// member's segment bounds and takes its share of that segment's tiles.
LogicalResult Tiler::checkSegmented() {
  auto reject = [&](const Twine &why) {
    whyNot = why.str();
    return failure();
  };
  unsigned outer = group.getBody().front().getNumArguments();
  Mask outerMask = bit(outer) - 1;
  auto target = kernel->getParentOfType<ModuleOp>()->getAttrOfType<TargetAttr>(PGPUDialect::getTargetAttrName());
  if (!target || target.getMultiprocessors() <= 0)
    return reject("a segment walk needs the target's multiprocessor count (its grid is resident programs)");
  if (!finalizations.empty())
    return reject("a segment walk with a ticketed finalization is not formed");
  if (!(blocked & bit(outer)) || (blocked & outerMask))
    return reject("the segment is not a contraction's free axis, or a group axis is");
  ForeachOp segment = chain.front();
  if ((maskOf(segment.getLower()) | maskOf(segment.getUpper())) & ~outerMask)
    return reject("the segment's bounds depend on more than the group's coordinates");
  return success();
}

/// seed 002 §3.2-§3.3 (operand reuse decides the program's ownership): whether the nest is a pairwise
/// map over its two program axes r (the group's) and w (the foreach's): pointwise code, reads and
/// writes only (no reduction, loop or read-only reduction before the walk), every read depending on
/// at most one of r and w, at least one on r alone and one on w alone (box IoU's a[i, c] and b[j, c],
/// an outer product's x[i] and y[j]), and every write on both. A read of both (an [M, N] map's
/// x[i, j], a bias-and-scale epilogue) keeps the flat walk, whose rows stream at bandwidth already.
bool Tiler::pairwiseReuse() {
  if (guard || popcount(programAxes) != 2 || chain.size() != 1 || group.getBody().getNumArguments() != 1 ||
      !segmentPrologue.empty() || !loopAxis.empty() || !loops.empty() || !finalizations.empty())
    return false;
  Mask r = bit(0), w = bit(1);
  bool rowRead = false, columnRead = false, ok = true;
  // A view the nest writes is not read in it: a row's read before the walk (y[i, 0]) would then race
  // with the program of another column tile writing it, where one program per row read it first.
  DenseSet<Value> written;
  group.walk([&](Operation *op) {
    if (auto sr = dyn_cast<ScatterReduceOp>(op))
      written.insert(sr.getView());
    else if (isTiledWrite(op))
      written.insert(op->getOperand(1));
  });
  auto visit = [&](Operation &op) {
    if (isa<ForeachOp>(op))
      return;
    if (isTiledWrite(&op)) {
      Mask m = 0;
      for (Value v : op.getOperands().drop_front(2))
        m |= maskOf(v);
      ok &= (m & programAxes) == programAxes;
      return;
    }
    if (!isPointwiseOrRead(op)) {
      ok = false;
      return;
    }
    if (!isa<LoadOp, GatherOp, BufferLoadOp>(op))
      return;
    ok &= !written.contains(op.getOperand(0));
    Mask m = 0;
    for (Value v : op.getResults())
      m |= maskOf(v);
    m &= programAxes;
    ok &= m != programAxes;
    rowRead |= m == r;
    columnRead |= m == w;
  };
  for (Operation &op : group.getBody().front().without_terminator())
    visit(op);
  for (Operation &op : programBody->without_terminator())
    visit(op);
  return ok && rowRead && columnRead;
}

LogicalResult Tiler::analyzeBlock(Block &block, bool isProgramBody) {
  for (Operation &op : block.without_terminator()) {
    if (isa<ForeachOp>(op) && !isProgramBody)
      continue; // the next chain level
    if (segmentPrologue.contains(&op)) {
      // A read-only reduction computing a segment bound: scalar, over what it reads with.
      Mask m = 0;
      op.walk([&](Operation *inner) {
        for (Value v : inner->getOperands())
          m |= maskOf(v);
      });
      for (Value r : op.getResults())
        axes[r] = m;
      continue;
    }
    if (auto reduce = dyn_cast<RangeReduceOp>(op)) {
      if (!isProgramBody || failed(analyzeReduce(reduce, /*enclosing=*/-1)))
        return failure();
      continue;
    }
    if (auto loop = dyn_cast<ForOp>(op); loop && tileLoops && &block == programBody) {
      if (failed(analyzeLoop(loop)))
        return failure();
      continue;
    }
    if (auto last = dyn_cast<LastProgramOp>(op); last && last.isTicketed() && isProgramBody) {
      // A ticketed finalization (pgpu-member-tickets) tiles with the program: its members are the
      // tile's, its ticket the tile's first member's. Its coordinates are program axes.
      Block &body = last.getBody().front();
      if (llvm::any_of(last.getCoords(), [&](Value c) {
            auto arg = dyn_cast<BlockArgument>(c);
            return !arg || arg.getOwner() != &group.getBody().front();
          }) ||
          failed(analyzeBlock(body, /*isProgramBody=*/true)))
        return failure();
      finalizations.push_back(last);
      continue;
    }
    if (!isPointwiseOrRead(op) && !isTiledWrite(&op))
      return failure(); // nested control, atomics, tuples: not tiled here
    bool segmentRead = segmented && &block == &group.getBody().front() && isPointwiseOrRead(op);
    if (!isProgramBody && !isMemoryEffectFree(&op) && !segmentRead && !(rowReads && isRowRead(op)))
      return failure();
    propagate(op);
  }
  return success();
}

/// seed 000 §5 (ordered loops with loop-carried values), seed 002 §3.3 (blocking): an author's runtime
/// loop in the program body (construction's per-element replay of a kernel-level `for` carrying tensors,
/// KIRToPGPU.cpp replayableFor: a block-scaled GEMM's loop over K blocks carrying its accumulator
/// element) runs the same trips for every member of a tile when its bounds do not depend on the
/// program's axes, so it runs once per tile: its carries become tiles over the axes they depend on and
/// its trips are tiled like the program body (a trip's contraction a tile product from its zero
/// identity, then the trip's pointwise code on tiles: the source's operations per trip, in loop order).
/// The body may hold pointwise code, reads and reductions, none nested in another; no writes, no
/// control, no loops. Carries are scalars (one member's); a carry's axes are its initial value's and
/// what its trips compute from, to a fixed point.
LogicalResult Tiler::analyzeLoop(ForOp loop) {
  Block &body = loop.getBody().front();
  if (llvm::any_of(loop.getInits().getTypes(), [](Type t) { return !t.isIntOrIndexOrFloat(); }) ||
      ((maskOf(loop.getLower()) | maskOf(loop.getUpper()) | maskOf(loop.getStep())) & programAxes))
    return failure();
  for (Operation &op : body.without_terminator())
    if (!isa<RangeReduceOp>(op) && !isPointwiseOrRead(op))
      return failure();
  // The program axes of each carry: an over-approximation (every value an op reads, at any depth),
  // which bounds the exact masks the analysis below gives the trip's values.
  unsigned n = loop.getInits().size();
  Operation *yield = body.getTerminator();
  SmallVector<Mask> carry;
  for (Value init : loop.getInits())
    carry.push_back(maskOf(init) & programAxes);
  for (bool changed = true; changed;) {
    DenseMap<Value, Mask> local;
    for (unsigned i = 0; i < n; ++i)
      local[body.getArgument(i + 1)] = carry[i];
    auto get = [&](Value v) {
      auto it = local.find(v);
      return it != local.end() ? it->second : maskOf(v) & programAxes;
    };
    for (Operation &op : body.without_terminator()) {
      Mask m = 0;
      op.walk([&](Operation *inner) {
        for (Value v : inner->getOperands())
          m |= get(v);
      });
      for (Value r : op.getResults())
        local[r] = m;
    }
    changed = false;
    for (unsigned i = 0; i < n; ++i) {
      Mask next = carry[i] | get(yield->getOperand(i));
      changed |= next != carry[i];
      carry[i] = next;
    }
  }
  for (unsigned i = 0; i < n; ++i)
    axes[body.getArgument(i + 1)] = carry[i];
  size_t nests = enclosingOf.size();
  for (Operation &op : body.without_terminator()) {
    if (auto reduce = dyn_cast<RangeReduceOp>(op)) {
      if (failed(analyzeReduce(reduce, /*enclosing=*/-1)))
        return failure();
      // A trip's contraction over a slice of constant width w (kk = ks[kb * 128 : kb * 128 + 128],
      // SliceWidth.h) is one block of lanes covering w, no K loop: the author loop is then the innermost
      // loop, whose loads a provider pipelines across trips (seed 002 §3.3: a block covering the range).
      std::optional<int64_t> w = isZeroConstant(reduce.getLower()) ? clippedWidth(reduce.getUpper()) : std::nullopt;
      if (!contracts.empty() && contracts.back().reduce == reduce && w && *w > 0 && *w <= kWidestSliceBlock) {
        unsigned k = loopAxis.lookup(reduce);
        sliceAxes[k] = *w;
        singleBlock.insert(k);
      }
      continue;
    }
    propagate(op);
  }
  if (enclosingOf.size() != nests)
    return failure(); // a reduction nested in another's element body inside a loop: not tiled here
  for (unsigned i = 0; i < n; ++i) {
    if (maskOf(yield->getOperand(i)) & ~carry[i])
      return failure();
    axes[loop.getResult(i)] = carry[i];
  }
  loops.push_back(loop);
  return success();
}

/// A range_reduce of the program body, or (`enclosing` >= 0, one level only) one nested in the
/// element body of the reduction over axis `enclosing`: its axis, the masks of its element body and
/// results, and whether it is contraction-shaped.
LogicalResult Tiler::analyzeReduce(RangeReduceOp reduce, int enclosing, Mask around) {
  // Bounds may depend on program axes that stay scalar (a split's chunk); checked once the
  // blocked axes are known.
  if (numAxes >= kMaxAxes)
    return failure();
  unsigned k = newAxis();
  loopAxis[reduce] = k;
  Block &element = reduce.getElement().front();
  axes[element.getArgument(0)] = bit(k);
  for (Operation &inner : element.without_terminator()) {
    // One level below the program body, or two (a reduction over (t, s) of a function of Gram tiles,
    // checkNests' gramNest): deeper nests are not tiled here.
    bool twoDeep = enclosing >= 0 && !around;
    if (auto nested = dyn_cast<RangeReduceOp>(inner); nested && (enclosing < 0 || twoDeep)) {
      // seed 002 §3.3-§3.4: a contraction whose operand is another contraction's result; the
      // pair is checked in analyze() once every contraction is known.
      if (failed(analyzeReduce(nested, int(k), enclosing >= 0 ? bit(unsigned(enclosing)) : 0)))
        return failure();
      enclosingOf.push_back({nested, reduce});
      continue;
    }
    if (!isPointwiseOrRead(inner))
      return failure();
    propagate(inner);
  }
  Block &combine = reduce.getCombine().front();
  if (llvm::any_of(combine.without_terminator(), [](Operation &o) { return o.getNumRegions() != 0; }))
    return failure();
  Mask result = 0;
  for (Value y : element.getTerminator()->getOperands())
    result |= maskOf(y);
  for (Value id : reduce.getIdentities())
    result |= maskOf(id);
  result &= ~bit(k);
  result |= maskOf(reduce.getLower()) | maskOf(reduce.getUpper());
  for (Value r : reduce.getResults())
    axes[r] = result;
  // Contraction shape: one float add-reduced component that is a product, or an i32 one of two i8
  // operands widened (an integer contraction; any other integer product has no tensor-core form).
  if (reduce.getNumResults() != 1)
    return success();
  bool integer = reduce.getResult(0).getType().isSignlessInteger(32);
  if (!integer && !isa<FloatType>(reduce.getResult(0).getType()))
    return success();
  auto add = dyn_cast_or_null<BinaryOp>(combine.getTerminator()->getOperand(0).getDefiningOp());
  if (!add || add.getKind() != kir::BinaryKind::Add || combine.getOperations().size() != 2)
    return success();
  auto product = element.getTerminator()->getOperand(0).getDefiningOp<BinaryOp>();
  if (!product || product.getKind() != kir::BinaryKind::Mul || !product->hasOneUse())
    return success();
  Value x = product.getLhs(), y = product.getRhs();
  // A segment walk's group axes are walked one member at a time (scalar): never free axes.
  Mask walked = segmented ? bit(group.getBody().front().getNumArguments()) - 1 : 0;
  Mask fx = maskOf(x) & ~bit(k) & ~walked, fy = maskOf(y) & ~bit(k) & ~walked;
  Mask shared = fx & fy;
  fx &= ~shared;
  fy &= ~shared;
  // A nested contraction's operand free on the enclosing reduction's member r and on one program axis
  // (an indexer's q[t, h, d] . k[s, d] inside the sum over h), or both operands reading r (per-head keys
  // k[s, h, d]): r is walked one member a trip (checkNests), a scalar coordinate like a batch axis, and
  // the contraction's tile is [p, q] over two program axes.
  Mask r = enclosing >= 0 && !around ? bit(unsigned(enclosing)) : 0;
  bool memberWalked = false;
  if (shared & r) {
    shared &= ~r;
    memberWalked = true;
  }
  for (Mask *f : {&fx, &fy})
    if ((*f & r) && popcount(*f) == 2 && (*f & ~r & programAxes)) {
      *f &= ~r;
      memberWalked = true;
    }
  Mask several = fx | fy;
  fx = tiledFree(x, fx);
  fy = tiledFree(y, fy);
  scalarFree |= several & ~(fx | fy);
  // A nested contraction's free axis may be the enclosing reduction's axis (its tile's columns).
  Mask freeOk = programAxes | (enclosing >= 0 ? bit(unsigned(enclosing)) : 0) | around;
  if (!(maskOf(x) & bit(k)) || !(maskOf(y) & bit(k)) || popcount(fx) != 1 || popcount(fy) != 1 ||
      ((fx | fy | shared) & ~freeOk) || (shared & ~programAxes))
    return success();
  ContractShape c{reduce, product, x, y, unsigned(llvm::countr_zero(fx)), unsigned(llvm::countr_zero(fy))};
  if (memberWalked)
    memberWalkedNests.insert(reduce);
  if (c.lhsFree > c.rhsFree) { // result axes are lhs free then rhs free; the product commutes
    std::swap(c.lhs, c.rhs);
    std::swap(c.lhsFree, c.rhsFree);
  }
  if (integer) {
    Value il = narrowIntSource(c.lhs), ir = narrowIntSource(c.rhs);
    if (!il || !ir)
      return success();
    c.lhs = il;
    c.rhs = ir;
    contracts.push_back(c);
    return success();
  }
  Value nl = narrowSource(c.lhs), nr = narrowSource(c.rhs);
  Value tl = tf32Source(c.lhs), tr = tf32Source(c.rhs);
  if (nl && nr && nl.getType() == nr.getType()) {
    c.lhs = nl;
    c.rhs = nr;
  } else if (tl && tr) { // seed 000 §8: the rounding is the contraction's precision, kept
    c.lhs = tl;
    c.rhs = tr;
    c.precision = kir::ContractPrecision::TF32;
  } else if ((nl && !nr && c.rhs.getType().isF32() && nl.getType().isBF16()) ||
             (nr && !nl && c.lhs.getType().isF32() && nr.getType().isBF16())) {
    // seed 000 §8 (IEEE products of the operands, the sum's order the implementation's): the f32
    // operand is the exact sum of three bf16 parts, so its products with the widened bf16 operand are
    // three exact bf16 x bf16 products summed in f32, on the tensor cores instead of FMAs. Not where
    // one operand feeds both sides (x * x), whose cast the product would still need.
    if (nl && nl != c.rhs) {
      c.lhs = nl;
      c.split = 1;
    } else if (nr && nr != c.lhs) {
      c.rhs = nr;
      c.split = 0;
    }
  }
  contracts.push_back(c);
  return success();
}

/// The free axis a contraction operand is tiled along, of `free` (its program axes the other operand
/// does not read). An operand free on several program axes (a window x[n, oh + kh - 1, ow + kw - 1, c]
/// against weights w[kh, kw, c, oc] free on oc alone: an implicit GEMM) is tiled along one, the others
/// stay scalar (one member per program, like batch axes): seed 002 §3.3 lets a program own any subset
/// of its axes. The one chosen is the axis of the operand read's innermost coordinate that holds a
/// free axis (iw: consecutive lanes read nearby rows), the innermost program axis when nothing says.
Mask Tiler::tiledFree(Value operand, Mask free) const {
  if (popcount(free) < 2 || (free & ~programAxes))
    return free;
  Value read = operand;
  while (auto cast = read.getDefiningOp<CastOp>())
    read = cast.getOperand();
  ValueRange coords;
  if (auto load = read.getDefiningOp<LoadOp>())
    coords = load.getCoords();
  else if (auto gather = read.getDefiningOp<GatherOp>())
    coords = gather.getCoords();
  else if (auto buffer = read.getDefiningOp<BufferLoadOp>())
    coords = buffer.getCoords();
  for (Value c : llvm::reverse(coords))
    if (Mask m = maskOf(c) & free)
      return bit(kMaxAxes - 1 - llvm::countl_zero(m));
  return bit(kMaxAxes - 1 - llvm::countl_zero(free));
}

/// Maps original axis `axis` (a coordinate in [0, bound)) to its lanes.
void Tiler::bindAxis(unsigned axis, Value start, Value bound, Value scalarCoord) {
  Location loc = group.getLoc();
  if (!(blocked & bit(axis))) {
    if (!(programAxes & bit(axis)))
      map.map(scalarCoord, start); // a loop walked one member at a time
    return;
  }
  auto indexFragment = FragmentType::get(b.getContext(), b.getIndexType(), {b.getStringAttr(paramOf[axis])});
  Value lanes = IotaOp::create(b, loc, indexFragment, start);
  Value hi = SplatOp::create(b, loc, indexFragment, bound);
  laneOk[axis] = CmpOp::create(b, loc, kir::CmpPredicate::LT, lanes, hi);
  map.map(scalarCoord, lanes);
}

void Tiler::cloneRead(Operation &op) {
  Location loc = op.getLoc();
  bool isLoad = isa<LoadOp>(op), isBuffer = isa<BufferLoadOp>(op);
  Value view = op.getOperand(0);
  ValueRange coords = isLoad     ? cast<LoadOp>(op).getCoords()
                      : isBuffer ? cast<BufferLoadOp>(op).getCoords()
                                 : cast<GatherOp>(op).getCoords();
  Value valid = isLoad ? cast<LoadOp>(op).getValid()
                : isBuffer ? cast<BufferLoadOp>(op).getValid()
                           : cast<GatherOp>(op).getValid();
  Value fill = isLoad ? cast<LoadOp>(op).getFill() : isBuffer ? cast<BufferLoadOp>(op).getFill() : cast<GatherOp>(op).getFill();
  Mask m = blockedMask(op.getResult(0));
  if (!m) {
    b.clone(op, map);
    return;
  }
  SmallVector<Value> newCoords;
  for (Value c : coords)
    newCoords.push_back(mapped(loc, c, m));
  Value ok = conjoin(loc, valid, m);
  Type type = typeFor(op.getResult(0).getType(), m);
  // A tile read whose coordinates take data lane by lane (a row index read per row) is an index
  // relation (seed 000 §6): a gather. One placed by scalars read from data (a ragged group's rows
  // `offsets[e] + i`, a tile index decomposed by a data-dependent tile count) is a box at a runtime
  // position: a load, whichever the member read was (construction made the member gather from the
  // scalar offsets, the same read for every member of the group). Issue 41: the ragged grouped GEMM
  // whose bounds are read as scalars then tiles like the one whose bounds come from a reduction.
  if (!isBuffer) {
    bool lanewise = llvm::any_of(newCoords, [](Value c) { return laneReadFeeding(c) != nullptr; });
    bool placed = llvm::any_of(newCoords, [](Value c) { return readFeeding(c) != nullptr; });
    if (lanewise)
      isLoad = false;
    else if (placed && isa<FragmentType>(type))
      isLoad = true;
  }
  Value result = isLoad     ? Value(LoadOp::create(b, loc, type, view, newCoords, ok, map.lookupOrDefault(fill)))
                 : isBuffer ? Value(BufferLoadOp::create(b, loc, type, view, newCoords, ok, map.lookupOrDefault(fill)))
                            : Value(GatherOp::create(b, loc, type, view, newCoords, ok, map.lookupOrDefault(fill)));
  map.map(op.getResult(0), result);
}

void Tiler::cloneWrite(Operation &op) {
  Location loc = op.getLoc();
  Mask m = blocked & programAxes; // analysis checked the write depends on all of them
  // Every write here is (value, target, coords..., valid); a scatter-reduce (pgpu-atomic-partials'
  // merge) keeps its combine region.
  Value value = op.getOperand(0), view = op.getOperand(1);
  ValueRange coords = op.getOperands().drop_front(2).drop_back();
  Value valid = op.getOperands().back();
  SmallVector<Value> newCoords;
  for (Value c : coords)
    newCoords.push_back(mapped(loc, c, m));
  Value v = mapped(loc, value, m);
  Value ok = conjoin(loc, valid, m);
  if (isa<StoreOp>(op))
    StoreOp::create(b, loc, v, view, newCoords, ok);
  else if (isa<BufferStoreOp>(op))
    BufferStoreOp::create(b, loc, v, view, newCoords, ok);
  else if (auto sr = dyn_cast<ScatterReduceOp>(op)) {
    auto merged = ScatterReduceOp::create(b, loc, v, view, newCoords, ok);
    IRMapping regionMap;
    sr.getCombine().cloneInto(&merged.getCombine(), regionMap);
  } else
    ScatterOp::create(b, loc, v, view, newCoords, ok);
}

LogicalResult Tiler::cloneOp(Operation &op) {
  Location loc = op.getLoc();
  if (fused.contains(&op))
    return success(); // merged into a contraction's accumulator
  if (auto reduce = dyn_cast<RangeReduceOp>(op)) {
    if (segmentPrologue.contains(reduce))
      b.clone(op, map); // a segment bound: scalar, read as it is
    else
      tileReduce(reduce);
    return success();
  }
  if (auto loop = dyn_cast<ForOp>(op)) {
    tileLoop(loop); // an author loop analyzeLoop accepted (no other loop reaches here)
    return success();
  }
  if (isa<LoadOp, GatherOp, BufferLoadOp>(op)) {
    cloneRead(op);
    return success();
  }
  if (auto last = dyn_cast<LastProgramOp>(op)) {
    cloneFinalization(last);
    return success();
  }
  if (isTiledWrite(&op)) {
    cloneWrite(op);
    return success();
  }
  Mask m = op.getNumResults() ? blockedMask(op.getResult(0)) : 0;
  if (!m) {
    b.clone(op, map);
    return success();
  }
  // Pointwise: operands over the result's axes (a scalar select condition stays scalar).
  SmallVector<Value> operands;
  for (auto [i, v] : llvm::enumerate(op.getOperands()))
    operands.push_back(isa<SelectOp>(op) && i == 0 && !blockedMask(v) ? map.lookupOrDefault(v)
                                                                       : mapped(loc, v, m));
  OperationState state(loc, op.getName(), operands, {typeFor(op.getResult(0).getType(), m)}, op.getAttrs());
  map.map(op.getResult(0), b.create(state)->getResult(0));
  return success();
}

/// `for k0 = lo to hi step TILE_K iter_args(acc)`: the members of one block
/// of k, neutralized on invalid lanes, reduced along k (or contracted), and
/// combined into the carry.
void Tiler::tileReduce(RangeReduceOp op) {
  if (map.contains(op.getResult(0)))
    return; // a nested contraction already accumulated in a sibling's K loop (fusablePartner)
  Location loc = op.getLoc();
  unsigned k = loopAxis.lookup(op);
  Mask carryMask = blockedMask(op.getResult(0));
  for (Value r : op.getResults())
    carryMask |= blockedMask(r);
  ContractShape *contract = nullptr;
  for (ContractShape &c : contracts)
    if (c.reduce == op)
      contract = &c;
  SmallVector<Value> inits;
  for (Value id : op.getIdentities())
    inits.push_back(expand(loc, map.lookupOrDefault(id), blockedMask(id), carryMask));
  // seed 002 §3.4: a contraction's sole same-dtype addition consumer merges into the accumulator
  // (DSL local-fusion semantics). Legality from the current def-use: the sum's only use is the add,
  // the other addend is already computed here (it dominates the loop), and its axes are the
  // accumulator's or fewer; the accumulator then starts from it and the add disappears.
  BinaryOp fusedAdd;
  if (contract && op->hasOneUse()) {
    auto add = dyn_cast<BinaryOp>(*op->user_begin());
    if (add && add.getKind() == kir::BinaryKind::Add && add.getType() == op.getResult(0).getType() &&
        add->getBlock() == op->getBlock()) {
      Value other = add.getLhs() == op.getResult(0) ? add.getRhs() : add.getLhs();
      Operation *def = other.getDefiningOp();
      bool ready = map.contains(other) || !def || !op->getBlock()->findAncestorOpInBlock(*def) ||
                   def->isBeforeInBlock(op);
      // Only a uniform addend (a splat of a scalar): a fragment addend (a bias row broadcast over the
      // tile) started the accumulator before the K loop, live across it, and ran the H200's persistent
      // GEMM + bias + GELU at 4096x11008x4096 in 1.33 ms against 0.65 ms with the add after the loop
      // (issue 41); the sum's order is the implementation's.
      // An addend that is itself a contraction's accumulator, used only here, continues into this one's
      // loop (the sum of contractions is one contraction over the joined k ranges: a convolution's
      // taps, K = taps * C, accumulate in one f32 tile); it is dead after the add, so nothing more is
      // live across the loop.
      auto accumulator = [&] {
        Operation *from = other.getDefiningOp();
        bool isContraction = from && llvm::any_of(contracts, [&](const ContractShape &c) {
          return RangeReduceOp(c.reduce).getOperation() == from;
        });
        return other.hasOneUse() && blockedMask(other) == carryMask && (isContraction || fused.contains(from));
      };
      // A carry of an author loop (analyzeLoop) that the trip only adds this sum to and yields
      // (`acc = acc + T.matmul(...)`, the carry used nowhere else): each trip's tile products accumulate
      // into the carried tile (seed 000 §8: an add-reduction regrouped), no zero tile and tile add per trip.
      auto carried = [&] {
        auto arg = dyn_cast<BlockArgument>(other);
        auto loop = arg ? dyn_cast<ForOp>(arg.getOwner()->getParentOp()) : ForOp();
        if (!loop || arg.getArgNumber() == 0 || !llvm::is_contained(loops, loop) || !other.hasOneUse() ||
            !add->hasOneUse() || blockedMask(other) != carryMask)
          return false;
        Operation *yield = arg.getOwner()->getTerminator();
        return *add->user_begin() == yield && yield->getOperand(arg.getArgNumber() - 1) == add.getResult();
      };
      bool intoCarry = carried();
      if (other != op.getResult(0) && ready && (blockedMask(other) == 0 || intoCarry || accumulator())) {
        chained += blockedMask(other) != 0 && !intoCarry;
        carriedInto += intoCarry;
        fusedAdd = add;
        inits[0] = expand(loc, map.lookupOrDefault(other), blockedMask(other), carryMask);
      }
    }
  }
  bool lanes = blocked & bit(k);
  Block &element = op.getElement().front();
  // A single block (a short constant r: every candidate of TILE_<r> covers it) is no loop: the
  // nested contraction's tile is computed once, at the program body's level.
  if (singleBlock.count(k)) {
    if (!map.contains(element.getArgument(0)))
      bindAxis(k, map.lookupOrDefault(op.getLower()), map.lookupOrDefault(op.getUpper()), element.getArgument(0));
    for (Operation &inner : element.without_terminator()) {
      if (consumedBy(inner, *contract))
        continue;
      (void)cloneOp(inner);
    }
    Value result = contractStep(*contract, k, inits[0], loc);
    map.map(op.getResult(0), result);
    if (fusedAdd) {
      map.map(fusedAdd.getResult(), result);
      fused.insert(fusedAdd);
    }
    return;
  }
  // seed 002 §3.4 (co-realization, reuse): a later nested contraction over the same k range whose
  // r is one block accumulates in this loop, sharing the operand tiles both read (the X of a LoRA).
  RangeReduceOp partner = contract && lanes && op->getBlock() == programBody ? fusablePartner(op) : RangeReduceOp();
  ContractShape *partnerShape = nullptr;
  if (partner) {
    for (ContractShape &c : contracts)
      if (c.reduce == partner)
        partnerShape = &c;
    auto outer = cast<RangeReduceOp>(partner->getParentOp());
    Value rArg = outer.getElement().front().getArgument(0);
    if (!map.contains(rArg))
      bindAxis(loopAxis.lookup(outer), map.lookupOrDefault(outer.getLower()), map.lookupOrDefault(outer.getUpper()),
               rArg);
    Mask partnerCarry = blockedMask(partner.getResult(0));
    for (Value id : partner.getIdentities())
      inits.push_back(expand(loc, map.lookupOrDefault(id), blockedMask(id), partnerCarry));
  }
  if (lanes && !contract && carryMask == 0 && gramFolds.contains(op) && op->getBlock() == programBody) {
    tileGramFold(op);
    return;
  }
  Value step = lanes ? Value(ParamOp::create(b, loc, b.getIndexType(), paramOf[k]))
                     : Value(arith::ConstantIndexOp::create(b, loc, 1));
  auto loop = ForOp::create(b, loc, TypeRange(ValueRange(inits)), map.lookupOrDefault(op.getLower()),
                            map.lookupOrDefault(op.getUpper()), step, inits);
  OpBuilder::InsertionGuard guard(b);
  Block *body = b.createBlock(&loop.getBody());
  Value k0 = body->addArgument(b.getIndexType(), loc);
  SmallVector<Value> acc;
  for (Value i : inits)
    acc.push_back(body->addArgument(i.getType(), loc));
  bindAxis(k, k0, map.lookupOrDefault(op.getUpper()), element.getArgument(0));
  SmallVector<Operation *> reads; // this loop's reads (original), shared with the partner's equal ones
  for (Operation &inner : element.without_terminator()) {
    if (contract && consumedBy(inner, *contract))
      continue; // never materialized: the contraction consumes its (narrow) operands
    if (isa<LoadOp>(inner))
      reads.push_back(&inner);
    (void)cloneOp(inner);
  }
  Value partnerNext;
  if (partner) {
    unsigned k1 = loopAxis.lookup(partner);
    Block &partnerElement = partner.getElement().front();
    map.map(partnerElement.getArgument(0), map.lookup(element.getArgument(0)));
    laneOk[k1] = laneOk[k];
    for (Operation &inner : partnerElement.without_terminator()) {
      if (consumedBy(inner, *partnerShape))
        continue;
      // A load of the same view at the same lanes (its k the shared lanes) is the one already read.
      Operation *same = nullptr;
      if (auto load = dyn_cast<LoadOp>(inner)) {
        Mask mine = maskOf(load.getResult()) & blocked, theirs = 0;
        for (Operation *r : reads) {
          auto other = cast<LoadOp>(r);
          theirs = maskOf(other.getResult()) & blocked;
          bool sameAxes = (mine & bit(k1)) && (theirs & bit(k)) && (mine & ~bit(k1)) == (theirs & ~bit(k)) &&
                          popcount(mine & (bit(k1) - 1)) == popcount(theirs & (bit(k) - 1));
          bool sameOperands = other.getType() == load.getType() && other->getNumOperands() == load->getNumOperands() &&
                              llvm::all_of(llvm::zip(other->getOperands(), load->getOperands()), [&](auto pair) {
                                return map.lookupOrDefault(std::get<0>(pair)) == map.lookupOrDefault(std::get<1>(pair));
                              });
          if (sameAxes && sameOperands)
            same = r;
        }
      }
      if (same)
        map.map(inner.getResult(0), map.lookup(same->getResult(0)));
      else
        (void)cloneOp(inner);
    }
    partnerNext = contractStep(*partnerShape, k1, acc.back(), loc);
  }
  SmallVector<Value> next;
  if (contract) {
    next.push_back(contractStep(*contract, k, acc[0], loc));
  } else if (!lanes) {
    // One member per iteration: acc = combine(acc, member), lane-wise over the carry's axes.
    SmallVector<Value> args(acc);
    for (Value y : element.getTerminator()->getOperands())
      args.push_back(mapped(loc, y, carryMask));
    next = combineInto(op, args, carryMask);
  } else {
    Mask memberMask = carryMask | bit(k);
    Value ok = expand(loc, laneOk[k], bit(k), memberMask);
    SmallVector<Value> members;
    for (auto [y, id] : llvm::zip(element.getTerminator()->getOperands(), op.getIdentities())) {
      Value lane = mapped(loc, y, memberMask);
      Value neutral = expand(loc, map.lookupOrDefault(id), blockedMask(id), memberMask);
      members.push_back(SelectOp::create(b, loc, ok, lane, neutral));
    }
    unsigned position = popcount(memberMask & (bit(k) - 1));
    SmallVector<Type> partialTypes;
    for (Value a : acc)
      partialTypes.push_back(a.getType());
    SmallVector<Value> ids;
    for (Value id : op.getIdentities())
      ids.push_back(map.lookupOrDefault(id));
    auto partial = ReduceOp::create(b, loc, partialTypes, members, b.getDenseI64ArrayAttr({int64_t(position)}), ids);
    IRMapping regionMap;
    op.getCombine().cloneInto(&partial.getCombine(), regionMap);
    SmallVector<Value> args(acc);
    llvm::append_range(args, partial.getResults());
    next = combineInto(op, args, carryMask);
  }
  if (partnerNext)
    next.push_back(partnerNext);
  YieldOp::create(b, loc, next);
  for (auto [r, n] : llvm::zip(op.getResults(), loop.getResults()))
    map.map(r, n);
  if (partner)
    map.map(partner.getResult(0), loop.getResults().back());
  if (fusedAdd) {
    map.map(fusedAdd.getResult(), loop.getResult(0));
    fused.insert(fusedAdd);
  }
}

/// One block's step of contraction `c` over loop axis k: its operand tiles (zero on invalid k lanes)
/// contracted into `acc`.
Value Tiler::contractStep(const ContractShape &c, unsigned k, Value acc, Location loc) {
  // Operands are zero on invalid k lanes (so every product there is zero):
  // masked loads with a zero fill already are; anything else is selected.
  auto zeroed = [&](Value original) -> Value {
    Mask m = blockedMask(original);
    Value v = map.lookupOrDefault(original);
    Value fillOf;
    if (auto load = original.getDefiningOp<LoadOp>())
      fillOf = load.getFill();
    else if (auto gather = original.getDefiningOp<GatherOp>())
      fillOf = gather.getFill(); // a gathered window (cloneRead conjoined the k lanes' validity)
    auto fill = fillOf ? fillOf.getDefiningOp<arith::ConstantOp>() : arith::ConstantOp();
    auto fillValue = fill ? dyn_cast<FloatAttr>(fill.getValue()) : FloatAttr();
    auto intFill = fill ? dyn_cast<IntegerAttr>(fill.getValue()) : IntegerAttr();
    if ((fillValue && fillValue.getValue().isZero()) || (intFill && intFill.getValue().isZero()))
      return v; // its validity includes the k lanes
    Type element = elementTypeOf(v.getType());
    Value zero = arith::ConstantOp::create(
        b, loc, element, isa<FloatType>(element) ? TypedAttr(b.getFloatAttr(element, 0.0)) : b.getIntegerAttr(element, 0));
    return SelectOp::create(b, loc, expand(loc, laneOk[k], bit(k), m), v, SplatOp::create(b, loc, v.getType(), zero));
  };
  Value lhs = zeroed(c.lhs), rhs = zeroed(c.rhs);
  // lhs is [free, k]; rhs is [free, k] in axis order and becomes [k, free].
  Mask rm = blockedMask(c.rhs);
  auto rhsType = cast<FragmentType>(rhs.getType());
  if (llvm::countr_zero(rm) != int(k)) {
    auto transposed = FragmentType::get(b.getContext(), rhsType.getElementType(),
                                        {rhsType.getExtents()[1], rhsType.getExtents()[0]});
    rhs = TransposeOp::create(b, loc, transposed, rhs, b.getDenseI64ArrayAttr({1, 0}));
  }
  auto precision = c.precision == kir::ContractPrecision::IEEE
                       ? kir::ContractPrecisionAttr()
                       : kir::ContractPrecisionAttr::get(b.getContext(), c.precision);
  auto contract = [&](Value l, Value r, Value into) -> Value {
    return ContractOp::create(b, loc, acc.getType(), l, r, into, b.getDenseI64ArrayAttr({1}),
                              b.getDenseI64ArrayAttr({0}), b.getDenseI64ArrayAttr({}), b.getDenseI64ArrayAttr({}),
                              precision);
  };
  if (c.split < 0)
    return contract(lhs, rhs, acc);
  // The f32 tile as hi + mid + lo (bf16, exact; zero lanes stay zero), the small parts first.
  SmallVector<Value, 3> parts = splitBF16(b, loc, c.split == 0 ? lhs : rhs);
  for (Value part : llvm::reverse(parts))
    acc = c.split == 0 ? contract(part, rhs, acc) : contract(lhs, part, acc);
  return acc;
}

/// combine(acc, x) of `op`'s combine region over `args` (the carries, then the values): inlined as
/// it is for scalar carries, lane-wise over the carry's axes for fragment carries.
SmallVector<Value> Tiler::combineInto(RangeReduceOp op, ArrayRef<Value> args, Mask carryMask) {
  Location loc = op.getLoc();
  Block &combine = op.getCombine().front();
  if (!carryMask)
    return inlineBlock(b, combine, args);
  SmallVector<Value> next;
  IRMapping inlineMap;
  inlineMap.map(combine.getArguments(), args);
  for (Operation &inner : combine.without_terminator()) {
    SmallVector<Value> operands;
    for (Value v : inner.getOperands()) {
      Value m = inlineMap.lookupOrDefault(v);
      operands.push_back(isa<FragmentType>(m.getType()) ? m : expand(loc, m, 0, carryMask));
    }
    SmallVector<Type> types;
    for (Type t : inner.getResultTypes())
      types.push_back(typeFor(t, carryMask));
    OperationState state(inner.getLoc(), inner.getName(), operands, types, inner.getAttrs());
    inlineMap.map(inner.getResults(), b.create(state)->getResults());
  }
  for (Value y : combine.getTerminator()->getOperands())
    next.push_back(inlineMap.lookupOrDefault(y));
  return next;
}

/// A ticketed finalization over the tile: its ticket is the tile's first member's (one ticket per
/// tile, the same arrivals), its body tiled with the program's lanes.
void Tiler::cloneFinalization(LastProgramOp op) {
  Location loc = op.getLoc();
  SmallVector<Value> coords;
  for (Value c : op.getCoords())
    coords.push_back(firstOf[cast<BlockArgument>(c).getArgNumber()]);
  auto tiled = LastProgramOp::create(b, loc, op.getTicket(), coords, map.lookupOrDefault(op.getArrivals()));
  OpBuilder::InsertionGuard guard(b);
  b.createBlock(&tiled.getBody());
  for (Operation &inner : op.getBody().front().without_terminator())
    (void)cloneOp(inner);
  YieldOp::create(b, loc);
}

std::string Tiler::adopted() const {
  std::string text = coalescing ? "tiled for contiguous accesses: " : "tiled a contraction nest: ";
  SmallVector<std::string> names;
  for (unsigned a = 0; a < numAxes; ++a)
    if (blocked & bit(a))
      names.push_back(paramOf[a] + ((programAxes & bit(a)) ? " (program axis " + std::to_string(a) + ")"
                                    : nestAxes.count(a)     ? " (reduction loop over a nested contraction's tile)"
                                    : sliceAxes.count(a)    ? " (one block covering a loop trip's slice of " +
                                                                  std::to_string(sliceAxes.at(a)) + ")"
                                                            : " (reduction loop)"));
  text += llvm::join(names, ", ");
  if (!contracts.empty())
    text += "; " + std::to_string(contracts.size()) + " reduction(s) become pgpu.contract";
  else if (!loopAxis.empty())
    text += "; " + std::to_string(loopAxis.size()) + " reduction(s) walk one member a trip, each a row tile";
  if (unsigned walked = llvm::count_if(contracts, [&](const ContractShape &c) {
        return memberWalkedNests.contains(RangeReduceOp(c.reduce).getOperation());
      }))
    text += "; " + std::to_string(walked) + " reduction(s) walk one member a trip around a nested contraction's tile";
  if (scalarFree & ~blocked) {
    SmallVector<std::string> scalar;
    for (unsigned a = 0; a < numAxes; ++a)
      if (scalarFree & ~blocked & bit(a))
        scalar.push_back(std::to_string(a));
    text += "; an operand free on several program axes is tiled along one (program axes " + llvm::join(scalar, ", ") +
            " one member per program)";
  }
  if (chained)
    text += "; " + std::to_string(chained) + " contraction(s) continue another's accumulator (one K over their sum)";
  if (carriedInto)
    text += "; " + std::to_string(carriedInto) + " contraction(s) accumulate into a loop's carried tile";
  if (pairwise)
    text += "; a pairwise map: each row's and each column's reads serve a whole tile";
  if (!groupParam.empty())
    text += "; grouped traversal " + groupParam;
  if (segmented)
    text += "; segment walk: the group's members in order, each segment's tiles (bounds read in the program) "
            "dealt round-robin to " + kPersist.str() + " programs per multiprocessor" +
            (boundedWalk ? ", at most the tiles the segments' launch-time bounds allow" : "");
  else if (persistent)
    text += "; persistent traversal (" + kPersist.str() + " programs per multiprocessor)";
  return text;
}


/// Several segments (construction's dispatch chain, pgpu::dispatchChain: pid < S0 ? g0(pid) :
/// (r = pid - S0; r < S1 ? g1(r) : ...)): each segment's group is tiled as a sole one would be, on
/// its own (a kernel computing several products, e.g. three projections stored to three outputs),
/// and its count S_i becomes its tiles in the chain's bound and shift and in the space's total. A
/// segment that does not tile keeps its count; a segment walk (segment bounds read in the program)
/// or a grid-stride walk spanning several segments is not formed.
void tileSegments(KernelOp kernel, ProgramSpaceOp space) {
  bool remarks = remarksEnabled(kernel);
  Dispatch dispatch;
  Block &body = space.getBody().front();
  // Waiting segments and the ticketed end are admitted (guardedEnd): a phase that uses what an earlier
  // one wrote waits before its group (construction's Workset::waitsForFill), which tiling leaves as it is;
  // the wait counts the instances before the segment, the shifts' values, which follow the new counts.
  if (!dispatchChain(body, body.getArgument(0), dispatch, /*guardedEnd=*/true) || dispatch.groups.size() < 2) {
    bool reduces = false; // only a space with a reduction may hold a product to say this about
    space.walk([&](RangeReduceOp) { reduces = true; });
    if (remarks && reduces)
      space.emitRemark() << "pgpu-form-tiles: not tiled: the program space has dispatch code other than one "
                            "group or construction's chain of segments (a last-program finalization or a guard)";
    return;
  }
  unsigned n = dispatch.groups.size();
  // A chain that only guardedEnd admits: a segment waits for the ones before it (construction's phased
  // finalizations), the last one ticketed.
  Dispatch plain;
  bool ticketed = !dispatchChain(body, body.getArgument(0), plain);
  SmallVector<Value> counts;
  bool tiled = false;
  // A group's program count, the left-folded product of its extents (1 without axes) built before the
  // space: the form of construction's bounds, which pgpu::dispatchChain matches (refine-mapping then
  // still refines the chain's per-element segments).
  auto countOf = [&](ExecutionGroupOp group) {
    OpBuilder b(space);
    Location loc = group.getLoc();
    if (group.getExtents().empty())
      return Value(arith::ConstantIndexOp::create(b, loc, 1));
    Value count = group.getExtents().front();
    for (Value e : group.getExtents().drop_front())
      count = BinaryOp::create(b, loc, kir::BinaryKind::Mul, count, e, false, false);
    return count;
  };
  for (auto [i, group] : llvm::enumerate(SmallVector<ExecutionGroupOp>(dispatch.groups))) {
    Value count = i < dispatch.bounds.size()                  ? dispatch.bounds[i].getRhs()
                  : dispatch.end && i + 1 == dispatch.groups.size() ? dispatch.end.getRhs()
                                                                    : Value();
    std::string where = "segment " + std::to_string(i) + " of " + std::to_string(n);
    Location loc = group.getLoc();
    Tiler tiler(kernel, space, group, IfOp());
    tiler.setChainSegment();
    LogicalResult analyzed = tiler.analyze();
    // In a ticketed chain (a phase waits for the ones before it: construction's phased finalizations),
    // only a product's nest is tiled here; other segments keep pgpu-refine-mapping's per-segment forms.
    bool keeps = ticketed && succeeded(analyzed) && !tiler.isSegmented() && !tiler.formsContractions();
    if (keeps) {
      if (remarks)
        group.emitRemark() << "pgpu-form-tiles: not tiled (" << where
                           << "): a segment of a ticketed chain is tiled only where it computes a product";
      counts.push_back(count);
      continue;
    }
    if (failed(analyzed) || tiler.isSegmented()) {
      if (remarks && (!tiler.whyNot.empty() || tiler.isSegmented()))
        group.emitRemark() << "pgpu-form-tiles: not tiled (" << where << "): "
                           << (tiler.isSegmented() ? std::string("a segment walk is formed only for a sole group")
                                                   : tiler.whyNot);
      counts.push_back(count); // null for the last segment: its extents' product, built below if needed
      continue;
    }
    tiler.rewrite();
    tiled = true;
    counts.push_back(countOf(tiler.tiledGroup));
    dispatch.setCount(i, counts.back());
    if (remarks)
      emitRemark(loc) << "pgpu-form-tiles: " << where << ": " << tiler.adopted();
  }
  if (!tiled)
    return; // every segment keeps construction's count
  if (!counts.back())
    counts.back() = countOf(dispatch.groups.back()); // untiled: the group is still there
  OpBuilder b(space);
  Value total = counts.front();
  for (Value c : ArrayRef<Value>(counts).drop_front())
    total = BinaryOp::create(b, space.getLoc(), kir::BinaryKind::Add, total, c, false, false);
  // A ticketed chain keeps one instance for an empty launch (it only arrives), as construction's count.
  if (dispatch.end)
    total = BinaryOp::create(b, space.getLoc(), kir::BinaryKind::Max, total,
                             arith::ConstantIndexOp::create(b, space.getLoc(), 1), false, false);
  space->setOperand(0, total);
}

struct FormTiles : public tessel::pgpu::impl::PGPUFormTilesBase<FormTiles> {
  void runOnOperation() override {
    for (KernelOp kernel : getOperation().getOps<KernelOp>()) {
      SmallVector<ProgramSpaceOp> spaces(kernel.getBody().getOps<ProgramSpaceOp>());
      if (spaces.size() != 1 || spaces[0].getExtents().size() != 1)
        continue;
      ProgramSpaceOp space = spaces[0];
      // The whole program space dispatches to one group (one segment).
      Block &body = space.getBody().front();
      ExecutionGroupOp group;
      bool sole = true;
      for (Operation &op : body.without_terminator()) {
        if (auto g = dyn_cast<ExecutionGroupOp>(op)) {
          sole &= !group;
          group = g;
        } else if (!isMemoryEffectFree(&op) || op.getNumRegions()) {
          sole = false;
        }
      }
      // Or the group under construction's dispatch guard beside a last-program finalization (a
      // segment walk keeps the guard and the finalization; nothing else is tiled there).
      IfOp guard;
      if (!group || !sole) {
        group = soleExecutionGroup(space, /*finalization=*/true);
        guard = group ? dyn_cast<IfOp>(group->getParentOp()) : IfOp();
        if (!guard) {
          tileSegments(kernel, space);
          continue;
        }
      }
      if (group.getLinear() != body.getArgument(0))
        continue;
      auto tiler = std::make_unique<Tiler>(kernel, space, group, guard);
      bool remarks = remarksEnabled(kernel);
      LogicalResult analyzed = tiler->analyze();
      std::string hoisted;
      if (failed(analyzed) && StringRef(tiler->whyNot).starts_with(kNestedReduction)) {
        // A nested reduction that does not depend on the member (an RMSNorm's row sum of squares in
        // the product's element body) is computed once before the enclosing one and the nest analyzed
        // again; it goes back where it was when that does not tile either.
        SmallVector<std::pair<Operation *, Operation *>> moves;
        SmallVector<RangeReduceOp> reduces;
        group.walk([&](RangeReduceOp r) { reduces.push_back(r); });
        for (RangeReduceOp r : reduces)
          llvm::append_range(moves, hoistNestedReductions(r));
        if (!moves.empty()) {
          auto again = std::make_unique<Tiler>(kernel, space, group, guard);
          if (succeeded(again->analyze())) {
            tiler = std::move(again);
            analyzed = success();
            hoisted = "; a nested reduction independent of the member is computed once before the enclosing one";
          } else {
            undoHoist(moves);
          }
        }
      }
      if (failed(analyzed)) {
        // A loop adding a reduction to its carry (a BSR row's blocks, a contraction each) is one
        // reduction over the flattened members (FlattenCarriedSums.cpp); kept only where it then tiles.
        SmallVector<FlattenedSum> flat = flattenCarriedSums(group);
        if (!flat.empty()) {
          auto again = std::make_unique<Tiler>(kernel, space, group, guard);
          if (succeeded(again->analyze())) {
            eraseFlattened(flat);
            tiler = std::move(again);
            analyzed = success();
            hoisted = "; a loop adding a reduction to its carry is one reduction over the flattened members";
          } else {
            undoFlatten(flat);
          }
        }
      }
      if (failed(analyzed)) {
        // Last, author loops in the program body carrying per-member values (analyzeLoop): tiled as
        // loops over tiles where nothing above applies (a loop flattened into one reduction keeps that
        // form). Its reason replaces the first one's when it accepted a loop and stopped later.
        auto again = std::make_unique<Tiler>(kernel, space, group, guard);
        again->setTileLoops();
        if (succeeded(again->analyze())) {
          tiler = std::move(again);
          analyzed = success();
          hoisted = "; a loop in the program body runs once per tile, carrying tiles";
        } else if (again->numLoops() && !again->whyNot.empty()) {
          tiler = std::move(again);
        }
      }
      if (failed(analyzed)) {
        // Last, reads before a launch-time walk (a query row's lse[b, h, i] and delta[b, h, i] before
        // its products over the keys): per-row values of the chain, vectors over a row tile (seed 002
        // §3.3: a value's fragment axes are the blocked axes it depends on). Kept only where a
        // contraction then tiles; a row statistic's walk stays with pgpu-form-blocking.
        auto again = std::make_unique<Tiler>(kernel, space, group, guard);
        again->setRowReads();
        if (succeeded(again->analyze()) && !again->isSegmented()) {
          tiler = std::move(again);
          analyzed = success();
          hoisted = "; per-row reads before the walk are read once per tile";
        }
      }
      if (failed(analyzed)) {
        if (remarks && !tiler->whyNot.empty())
          group.emitRemark() << "pgpu-form-tiles: not tiled: " << tiler->whyNot;
        continue;
      }
      Location loc = group.getLoc();
      if (tiler->isSegmented())
        tiler->rewriteSegmented();
      else
        tiler->rewrite();
      if (remarks)
        emitRemark(loc) << "pgpu-form-tiles: " << tiler->adopted() << hoisted;
    }
  }
};
} // namespace
