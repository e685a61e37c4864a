//===- TileColumnReductions.cpp - 2-d tiles for reductions that keep the contiguous axis ---===//
//
// seed 002 §3.3 (blocking and fragments): a `pgpu.foreach` over a kept axis d whose body reduces
// over another axis r with a read whose innermost (contiguous) coordinate walks d, not r --
// `out[b, d] = sum_r x[rows(r), d]`: a column sum, a bag of gathered rows, a masked mean over tokens
// -- is blocked along both axes at once. One-axis blocking (pgpu-form-blocking) keeps d a serial loop
// of scalar outputs and spreads r over the lanes, each lane reading with the stride of d's row: one
// element per row and no coalescing. Here d becomes a loop over blocks of BLOCK_C lanes (a fragment
// axis, contiguous in memory), each range_reduce of the body a loop over blocks of BLOCK_R members,
// the members a [BLOCK_R, BLOCK_C] tile combined lane-wise into a [BLOCK_R, BLOCK_C] accumulator
// that is reduced along r once after the loop (into [BLOCK_C]), and the code after the reductions
// (the store of the kept row) works on [BLOCK_C] fragments. A reduction whose bounds are launch values
// (the same in every program) walks its tiles as the segments of a pgpu.region_fold (seed 002 §3.4; the
// tile accumulator is its summary, the reduction's combine lane-wise its combine), so a few column
// blocks over many rows may have their rows split across programs by pgpu-split-folds (FOLD_SPLIT)
// instead of one program per column block walking every row (issue 41: a bias gradient's 8 blocks).
//
// Legality: the foreach's members are independent (seed 000 §5) and a range_reduce may be
// regrouped and reordered (seed 000 §8), so lanes of d run together and r is taken in blocks; a
// write must depend on d (each lane writes its own element). Invalid lanes: reads are masked by
// the lane validity of every blocked axis they depend on, reduction members on invalid r lanes
// contribute the identity, writes on invalid d lanes are masked.
//
// Ragged segments (issue 42 item 2): a reduction over [lo, n(d)) whose upper bound depends on d
// (CSR SpMV, `y[m] = sum values[indptr[m] + r] * x[indices[...]]` for r < indptr[m+1] - indptr[m], one
// short row per program) fires whatever its reads walk: the members of a block of d run together,
// the loop over r going to the longest range of the block (a max over d's valid lanes, at least lo)
// and each r lane valid below its own member's bound, so every value of r is a [BLOCK_R, BLOCK_C]
// tile and one validity masks its reads and neutralizes its members. The tiles stop at the tile's
// cover (BLOCK_R x BLOCK_C members of a range); a program whose longest range passes it (a branch at
// run time) walks each member's rest with all lanes of the tile, one member after the other
// (walkLongRanges): one long CSR row among short ones no longer holds its program BLOCK_R at a time.
// Each member's lanes walk its own range: the mask of lane r is r < n(d) of its own column, with no
// reduction per trip (issue 42). A walk of the block's positions instead (each nonzero read once, added
// into the rows whose range holds it: a [BLOCK_R, BLOCK_C] membership and a max over BLOCK_C a trip to
// mask the reads) measured 0.407 ms on the H100 for 47_csr_spmv against 0.360 ms for this walk at
// [16, 128] (sessions 30 and 31); with the tile's rows few (a default of 8, below), the walk to the
// block's longest row costs about 4 lanes a nonzero at that kernel's Dirichlet(0.5) rows against 12
// lanes of membership a nonzero there, so the member walk is the one kept.
//
// Column normalizations: a body that walks r again after its reductions (a nested workset writing the
// column, `y[rows, n] = e / T.sum(e)`: a softmax over the first axis, a standardization) walks it in
// [BLOCK_R, BLOCK_C] tiles too (tileForeach), so its reads and writes are rows of BLOCK_C contiguous
// elements; its reductions then stay loops (no fold split: every segment would run the earlier passes
// and the last arrival the write pass alone, where narrower column blocks add independent programs).
//
// Column scans (where the provider spells a scan along an axis of a 2-d tile, the `scans` option): a
// forward scan down the columns (`y[rows, n] = T.cumsum(x[rows, n])`, or exclusive) walks the rows in order,
// BLOCK_R at a time, each tile scanned along BLOCK_R with one running prefix per column carried on
// (tileScan): rows of BLOCK_C contiguous elements instead of one element per row. A scan of several
// components is tiled the same way, one carry per component (issue 42: a gated recurrence's affine maps;
// a selective scan's 16 states of them read out by a sum over the states, x/dt/y[b, t, d] walked along t
// at stride D one channel a program before), its default tile narrowed by the components it keeps live.
//
// Nested reductions (issue 41): a sum over (h, w) spelled as a sum over h of sums over w, reading
// NHWC channels contiguously, is first flattened into one reduction over H * W rows (flattenNested).
//
// Must not fire: a reduction whose reads walk r along their innermost coordinate (a row sum: one
// axis of lanes over r is already contiguous) and whose bounds do not depend on d, a body with
// nested loops or control other than such a walk (one whose bounds depend on d or whose writes do not
// depend on both axes), atomics, tuples or workspace, a lower bound that depends on d, values
// from outside that are fragments already, a write that does not depend on d.
//
// BLOCK_C covers the kept axis's symbol when d spans [0, S) of a named view extent, so a call's
// default binds one block per row where a candidate holds it (seed 003: defaults from facts). Ragged
// segments whose ends are read from memory and clamped to a view extent S, one per member of a kept
// axis spanning [0, E), are stated on the kernel (`pgpu.segments`): a call's default sizes BLOCK_R by
// their average length S / E and BLOCK_C by the rest of the tile.
//
//===----------------------------------------------------------------------===//

#include "TileBodies.h"
#include "tessel/Dialect/PGPU/Transforms/Passes.h"
#include "tessel/Dialect/PGPU/IR/SliceWidth.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/RegionUtils.h"

#include <limits>

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUTILECOLUMNREDUCTIONS
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

namespace {
/// The lanes over the reduced axis (rows of the tile) and over the kept axis (its columns).
constexpr llvm::StringLiteral kRowsParam = "BLOCK_R";
constexpr llvm::StringLiteral kColsParam = "BLOCK_C";

/// Fragment axes of a value: the reduced axis's lanes, the kept axis's lanes, or both ([R, C]).
enum Axes : unsigned { None = 0, Rows = 1, Cols = 2 };

/// The ops of `body` before its terminator.
SmallVector<Operation *> opsOf(Block &body) {
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);
  return ops;
}

/// Whether an access at `coords` is a column access: its contiguous (last) coordinate walks the kept
/// axis (`onD`) and not the walked one (`onR`), another coordinate walks the latter.
bool columnAccess(ValueRange coords, const DenseSet<Value> &onD, const DenseSet<Value> &onR) {
  if (coords.empty())
    return false;
  Value last = coords.back();
  return onD.contains(last) && !onR.contains(last) && llvm::any_of(coords, [&](Value c) { return onR.contains(c); });
}

/// The coordinates of a view write (store or scatter), or none.
std::optional<ValueRange> writeCoords(Operation &op) {
  if (auto store = dyn_cast<StoreOp>(op))
    return store.getCoords();
  if (auto scatter = dyn_cast<ScatterOp>(op))
    return scatter.getCoords();
  return std::nullopt;
}

/// Why the workset `inner` over r, nested in the body of the kept axis (`onD`: the body's values that
/// depend on d), cannot be walked in [BLOCK_R, BLOCK_C] tiles, or empty when it can; `column` is set
/// when one of its accesses is a column access (the write of a normalized column, `y[rows, n] = e / s`).
/// Its members are independent (seed 000 §5), so lanes of r and d run together; each write must depend
/// on both (one element per lane).
std::string whyNotNested(ForeachOp inner, const DenseSet<Value> &onD, bool &column) {
  if (onD.contains(inner.getLower()) || onD.contains(inner.getUpper()))
    return "a nested workset's bounds depend on the kept axis";
  Block &body = inner.getBody().front();
  DenseSet<Value> onR;
  dependents(body.getArgument(0), inner.getBody(), onR);
  for (Operation &op : body.without_terminator()) {
    if (isPointwiseOrRead(op)) {
      if (std::optional<ValueRange> coords = readCoords(op))
        column |= columnAccess(*coords, onD, onR);
      continue;
    }
    std::optional<ValueRange> coords = writeCoords(op);
    if (!coords)
      return "a nested workset's body is not straight-line pointwise code, reads and writes";
    auto on = [&](const DenseSet<Value> &set) { return llvm::any_of(*coords, [&](Value c) { return set.contains(c); }); };
    if (!on(onD) || !on(onR))
      return "a nested workset's write does not depend on both axes (lanes would repeat it)";
    column |= columnAccess(*coords, onD, onR);
  }
  return "";
}

/// Why `each` is not a column-reduction workset, or empty when it is (see the file comment).
/// `body` holds the members of the kept axis `d` (a foreach's body, or an execution group's with d
/// one of its coordinates).
/// Why the scan `scan` over r in the kept axis's body (`onD`) cannot be walked in [BLOCK_R, BLOCK_C]
/// tiles, or empty when it can; `column` is set when one of its accesses is a column access (a cumulative
/// sum down the columns, `y[rows, n] = T.cumsum(x[rows, n])`). Seed 000 §8: a scan may be regrouped,
/// never reordered, so the rows are taken in order, BLOCK_R at a time, each lane of d its own scan.
std::string whyNotScan(RangeScanOp scan, const DenseSet<Value> &onD, bool &column) {
  if (scan.getReverse())
    return "a scan is reverse (only forward scans are tiled yet)";
  // Each component keeps two [BLOCK_R, BLOCK_C] tiles live (its members and their prefixes): a scan of
  // affine maps (two components) or of one per state of a selective scan (32) is tiled with a tile
  // whose default shrinks with the components (scanTileDefaults).
  if (onD.contains(scan.getLower()) || onD.contains(scan.getUpper()) ||
      llvm::any_of(scan.getIdentities(), [&](Value id) { return onD.contains(id); }))
    return "a scan's bounds or identity depend on the kept axis";
  auto straight = [](Region &region) {
    return llvm::all_of(region.front().without_terminator(), [](Operation &op) {
      return op.getNumRegions() == 0 && isPointwiseOrRead(op);
    });
  };
  if (!straight(scan.getElement()) || !straight(scan.getCombine()))
    return "a scan's element or combine is not straight-line pointwise code and reads";
  DenseSet<Value> onR;
  dependents(scan.getElement().front().getArgument(0), scan.getElement(), onR);
  for (Operation &op : scan.getElement().front().without_terminator())
    if (std::optional<ValueRange> coords = readCoords(op))
      column |= columnAccess(*coords, onD, onR);
  Block &emit = scan.getEmit().front();
  DenseSet<Value> onEmit; // the emit's values that depend on its position or its prefix
  for (BlockArgument arg : emit.getArguments())
    dependents(arg, scan.getEmit(), onEmit);
  DenseSet<Value> atR;
  dependents(emit.getArgument(0), scan.getEmit(), atR);
  for (Operation &op : emit.without_terminator()) {
    if (isPointwiseOrRead(op)) {
      if (std::optional<ValueRange> coords = readCoords(op))
        column |= columnAccess(*coords, onD, atR);
      continue;
    }
    std::optional<ValueRange> coords = writeCoords(op);
    if (!coords)
      return "a scan's emit is not straight-line pointwise code, reads and writes";
    auto on = [&](const DenseSet<Value> &set) { return llvm::any_of(*coords, [&](Value c) { return set.contains(c); }); };
    if (!on(onD) || !on(atR))
      return "a scan's write does not depend on both axes (lanes would repeat it)";
    column |= columnAccess(*coords, onD, atR);
  }
  return "";
}

std::string whyNot(Block &body, Value d, bool scans) {
  Region &region = *body.getParent();
  DenseSet<Value> onD;
  dependents(d, region, onD);
  // Everything the body uses from outside is a scalar (nothing was blocked around it yet).
  bool fragmentFromOutside = false;
  region.walk([&](Operation *op) {
    for (Value v : op->getOperands())
      if (isa<FragmentType>(v.getType()) && !region.isAncestor(v.getParentRegion()))
        fragmentFromOutside = true;
  });
  if (fragmentFromOutside)
    return "it uses fragments from outside";
  bool column = false, ragged = false;
  for (Operation &op : body.without_terminator()) {
    if (isPointwiseOrRead(op))
      continue;
    if (isa<StoreOp, ScatterOp>(op)) {
      ValueRange coords = isa<StoreOp>(op) ? cast<StoreOp>(op).getCoords() : cast<ScatterOp>(op).getCoords();
      if (llvm::none_of(coords, [&](Value c) { return onD.contains(c); }))
        return "a write does not depend on the kept axis (lanes would repeat it)";
      continue;
    }
    if (auto inner = dyn_cast<ForeachOp>(op)) {
      if (std::string why = whyNotNested(inner, onD, column); !why.empty())
        return why;
      continue;
    }
    if (auto scan = dyn_cast<RangeScanOp>(op)) {
      if (!scans)
        return "a scan, and the provider spells no scan along an axis of a 2-d fragment";
      if (std::string why = whyNotScan(scan, onD, column); !why.empty())
        return why;
      continue;
    }
    auto reduce = dyn_cast<RangeReduceOp>(op);
    if (!reduce)
      return "its body has nested loops, control, atomics, tuples or workspace accesses";
    if (onD.contains(reduce.getLower()))
      return "a reduction's lower bound depends on the kept axis";
    // Ragged segments (issue 42 item 2): [0, n(d)) with n read per member of d (CSR rows, bags). The
    // members of a block of d run together up to the longest range among them, each lane of r
    // valid below its own member's bound.
    if (onD.contains(reduce.getUpper()))
      ragged = true;
    Block &element = reduce.getElement().front();
    if (!llvm::all_of(element.without_terminator(), isPointwiseOrRead) ||
        llvm::any_of(reduce.getCombine().front().without_terminator(),
                     [](Operation &c) { return c.getNumRegions() > 0 || !isPointwiseOrRead(c); }))
      return "a reduction's element or combine is not straight-line pointwise code and reads";
    DenseSet<Value> onR;
    dependents(element.getArgument(0), reduce.getElement(), onR);
    // The fact this pass acts on: a read over both axes whose contiguous (last) coordinate walks the
    // kept axis and not the reduced one.
    for (Operation &inner : element.without_terminator())
      if (std::optional<ValueRange> coords = readCoords(inner))
        column |= columnAccess(*coords, onD, onR);
  }
  if (!column && !ragged)
    return "no reduction reads along the kept axis contiguously (one axis of lanes serves it) and none "
           "has bounds that depend on it (ragged segments)";
  return "";
}

/// The named view extent S when [lo, hi) is [0, S), else null: BLOCK_C then covers S.
StringAttr spannedExtent(Value lo, Value hi) { return matchPattern(lo, m_Zero()) ? extentSymbol(hi) : StringAttr(); }

/// What a reduced range [lo, hi) is covered by: the named view extent S of [0, S), or the number w
/// ("5") where hi is the length of a slice of constant width w clipped to its axis (SliceWidth.h: a
/// window of neighbours, chans[max(c - 2, 0) : min(c + 3, C)]), so BLOCK_R's call default is the
/// smallest candidate holding w, not a tile of masked rows; else null.
StringAttr reducedSpan(Value lo, Value hi) {
  if (StringAttr symbol = spannedExtent(lo, hi))
    return symbol;
  if (std::optional<int64_t> w = matchPattern(lo, m_Zero()) ? clippedWidth(hi) : std::nullopt; w && *w > 0)
    return StringAttr::get(hi.getContext(), std::to_string(*w));
  return {};
}

/// The view extent S that a ragged range's end `hi`, read from memory per member (offsets such as
/// indptr[m], indptr[m + 1]), is clamped to: the one extent symbol its computation uses (construction
/// clamps a slice of the domain [0, S) to it). Null when the end reads nothing (a position, r < d) or
/// uses no or several extents. The segments then lie in [0, S), partitioning it where they are CSR
/// rows: S / (members) is their average length, which a call's default sizes BLOCK_R by.
StringAttr segmentPool(Value hi) {
  SmallVector<Value> work{hi};
  DenseSet<Operation *> seen;
  StringAttr pool;
  bool read = false;
  while (!work.empty()) {
    Operation *op = work.pop_back_val().getDefiningOp();
    if (!op || !seen.insert(op).second)
      continue;
    if (auto extent = dyn_cast<ExtentOp>(op)) {
      auto symbol = dyn_cast<StringAttr>(cast<ViewType>(extent.getView().getType()).getExtents()[extent.getAxis()]);
      if (!symbol || (pool && pool != symbol))
        return {};
      pool = symbol;
      continue;
    }
    if (isa<LoadOp, GatherOp>(op)) { // an offset read per member: its coordinates are the member's
      read = true;
      continue;
    }
    llvm::append_range(work, op->getOperands());
  }
  return read ? pool : StringAttr();
}

/// Clones a column-reduction workset as a loop over blocks of the kept axis whose reductions are
/// loops over blocks of the reduced axis, values carrying the fragment axes they depend on.
class ColumnTiler {
public:
  /// `rowsSpan` collects the symbol every tiled reduction's range spans (null once two differ or one
  /// spans none): BLOCK_R covers it.
  /// `raggedSeen` is set once a reduction with bounds per member of d (ragged segments) is tiled;
  /// `pool` collects the extent every such reduction's segments lie in (segmentPool; null once two
  /// differ or one has none).
  ColumnTiler(OpBuilder &b, std::optional<StringAttr> &rowsSpan, bool &raggedSeen, std::optional<StringAttr> &pool)
      : b(b), rows(b.getStringAttr(kRowsParam)), cols(b.getStringAttr(kColsParam)), rowsSpan(rowsSpan),
        raggedSeen(raggedSeen), pool(pool) {}

  /// The workset as a loop over blocks of BLOCK_C members of d in this program.
  void tile(ForeachOp each) {
    Location loc = each.getLoc();
    b.setInsertionPoint(each);
    Value step = ParamOp::create(b, loc, b.getIndexType(), kColsParam);
    auto loop = ForOp::create(b, loc, TypeRange(), each.getLower(), each.getUpper(), step, ValueRange());
    OpBuilder::InsertionGuard guard(b);
    Block *body = b.createBlock(&loop.getBody());
    Value d0 = body->addArgument(b.getIndexType(), loc);
    tileBlock(each.getBody().front(), each.getBody().getArgument(0), each.getUpper(), d0);
    YieldOp::create(b, loc, ValueRange());
  }

  /// The members of `d` < `hi` computed by `ops` (a body's, listed before any clone goes into it) as
  /// one block of BLOCK_C lanes starting at `d0`, cloned at the builder's point.
  void tileBlock(ArrayRef<Operation *> ops, Value d, Value hi, Value d0) {
    for (Operation *op : ops)
      dependentsOf(d, op);
    walksAgain = llvm::any_of(ops, [](Operation *op) { return isa<ForeachOp, RangeScanOp>(op); });
    map.map(d, bindLanes(d.getLoc(), cols, d0, hi, colsOk));
    for (Operation *op : ops)
      cloneOp(*op);
  }
  void tileBlock(Block &body, Value d, Value hi, Value d0) { tileBlock(opsOf(body), d, hi, d0); }

private:
  /// `iota(start)` over `param` lanes, with `ok` set to `lanes < hi`.
  Value bindLanes(Location loc, StringAttr param, Value start, Value hi, Value &ok) {
    auto type = FragmentType::get(b.getContext(), b.getIndexType(), {param});
    Value lanes = IotaOp::create(b, loc, type, start);
    ok = CmpOp::create(b, loc, kir::CmpPredicate::LT, lanes, SplatOp::create(b, loc, type, hi));
    return lanes;
  }
  /// The block's bounds `hi` ([BLOCK_C]) on valid lanes of d, `lo` on invalid ones (no members).
  Value validBounds(Location loc, Value lo, Value hi) {
    return SelectOp::create(b, loc, colsOk, hi, expand(loc, lo, Cols));
  }
  /// The largest of `his` (validBounds), at least `lo`: the members of the block's longest range.
  Value longest(Location loc, Value lo, Value his) { return acrossLanes(loc, his, lo, kir::BinaryKind::Max); }
  /// `lanes` ([BLOCK_C] index) reduced to a scalar by `kind` (max, min, add) from `identity`.
  Value acrossLanes(Location loc, Value lanes, Value identity, kir::BinaryKind kind) {
    auto all = ReduceOp::create(b, loc, TypeRange{identity.getType()}, ValueRange{lanes}, b.getDenseI64ArrayAttr({0}),
                                ValueRange{identity});
    OpBuilder::InsertionGuard guard(b);
    Type index = identity.getType();
    Block *combine = b.createBlock(&all.getCombine(), {}, {index, index}, {loc, loc});
    Value both = BinaryOp::create(b, loc, kind, combine->getArgument(0), combine->getArgument(1), false, false);
    YieldOp::create(b, loc, ValueRange{both});
    return all.getResult(0);
  }
  unsigned axesOf(Value v) const {
    auto type = dyn_cast<FragmentType>(v.getType());
    if (!type)
      return None;
    unsigned m = None;
    for (Attribute e : type.getExtents())
      m |= e == rows ? Rows : e == cols ? Cols : None;
    return m;
  }
  Type typeFor(Type element, unsigned m) {
    SmallVector<Attribute> extents;
    if (m & Rows)
      extents.push_back(rows);
    if (m & Cols)
      extents.push_back(cols);
    return extents.empty() ? element : Type(FragmentType::get(b.getContext(), element, extents));
  }
  /// `v` (new IR) over the axes `to`, a superset of its own.
  Value expand(Location loc, Value v, unsigned to) {
    unsigned from = axesOf(v);
    if (from == to)
      return v;
    Type type = typeFor(elementTypeOf(v.getType()), to);
    if (from == None)
      return SplatOp::create(b, loc, type, v);
    // [R] or [C] into [R, C]: the kept position.
    return BroadcastOp::create(b, loc, type, v, b.getDenseI64ArrayAttr({from == Rows ? 0 : 1}));
  }
  Value mapped(Location loc, Value original, unsigned to) { return expand(loc, map.lookupOrDefault(original), to); }
  unsigned axesOfOperands(ValueRange originals) {
    unsigned m = None;
    for (Value v : originals)
      m |= axesOf(map.lookupOrDefault(v));
    return m;
  }
  /// `own` (original IR) conjoined with the lane validity of every axis in `m`.
  Value conjoin(Location loc, Value own, unsigned m) {
    Value ok;
    for (auto [axis, lanes] : {std::pair{unsigned(Rows), rowsOk}, std::pair{unsigned(Cols), colsOk}}) {
      if (!(m & axis) || !lanes)
        continue;
      Value mine = expand(loc, lanes, m);
      ok = ok ? Value(BinaryOp::create(b, loc, kir::BinaryKind::And, ok, mine, false, false)) : mine;
    }
    if (matchPattern(own, m_One()))
      return ok;
    return BinaryOp::create(b, loc, kir::BinaryKind::And, mapped(loc, own, m), ok, false, false);
  }

  /// An access's coordinates over its axes `m`: uniform ones stay scalars (one address term each).
  SmallVector<Value> coordsOver(Location loc, ValueRange coords, unsigned m) {
    SmallVector<Value> out;
    for (Value c : coords) {
      Value now = map.lookupOrDefault(c);
      out.push_back(axesOf(now) == None ? now : expand(loc, now, m));
    }
    return out;
  }

  void cloneOp(Operation &op) {
    Location loc = op.getLoc();
    if (auto reduce = dyn_cast<RangeReduceOp>(op))
      return tileReduce(reduce);
    if (auto inner = dyn_cast<ForeachOp>(op))
      return tileForeach(inner);
    if (auto scan = dyn_cast<RangeScanOp>(op))
      return tileScan(scan);
    if (auto load = dyn_cast<LoadOp>(op))
      return cloneRead(op, load.getView(), load.getCoords(), load.getValid(), load.getFill());
    if (auto gather = dyn_cast<GatherOp>(op))
      return cloneRead(op, gather.getView(), gather.getCoords(), gather.getValid(), gather.getFill());
    if (isa<StoreOp, ScatterOp>(op)) {
      bool store = isa<StoreOp>(op);
      ValueRange coords = store ? cast<StoreOp>(op).getCoords() : cast<ScatterOp>(op).getCoords();
      Value valid = store ? cast<StoreOp>(op).getValid() : cast<ScatterOp>(op).getValid();
      unsigned m = axesOfOperands(coords) | axesOfOperands(op.getOperand(0)) | axesOfOperands(valid);
      SmallVector<Value> newCoords = coordsOver(loc, coords, m);
      Value v = mapped(loc, op.getOperand(0), m), ok = conjoin(loc, valid, m);
      if (store)
        StoreOp::create(b, loc, v, op.getOperand(1), newCoords, ok);
      else
        ScatterOp::create(b, loc, v, op.getOperand(1), newCoords, ok);
      return;
    }
    unsigned m = axesOfOperands(op.getOperands());
    if (m == None) {
      b.clone(op, map);
      return;
    }
    // Pointwise over the union of its operands' axes (a scalar select condition stays scalar).
    SmallVector<Value> operands;
    for (auto [i, v] : llvm::enumerate(op.getOperands()))
      operands.push_back(isa<SelectOp>(op) && i == 0 && axesOf(map.lookupOrDefault(v)) == None
                             ? map.lookupOrDefault(v)
                             : mapped(loc, v, m));
    OperationState state(loc, op.getName(), operands, {typeFor(op.getResult(0).getType(), m)}, op.getAttrs());
    map.map(op.getResult(0), b.create(state)->getResult(0));
  }

  void cloneRead(Operation &op, Value view, ValueRange coords, Value valid, Value fill) {
    Location loc = op.getLoc();
    unsigned m = axesOfOperands(coords) | axesOfOperands(valid);
    if (m == None) {
      b.clone(op, map); // a uniform read: once per block
      return;
    }
    SmallVector<Value> newCoords = coordsOver(loc, coords, m);
    Value ok = conjoin(loc, valid, m);
    Type type = typeFor(op.getResult(0).getType(), m);
    Value result = isa<LoadOp>(op)
                       ? Value(LoadOp::create(b, loc, type, view, newCoords, ok, map.lookupOrDefault(fill)))
                       : Value(GatherOp::create(b, loc, type, view, newCoords, ok, map.lookupOrDefault(fill)));
    map.map(op.getResult(0), result);
  }

  /// A workset over r nested in the kept axis's body (whyNotNested: straight-line reads, pointwise code
  /// and writes over both axes) as `for r0 = lo to hi step BLOCK_R`: each trip one [BLOCK_R, BLOCK_C]
  /// tile of members, its reads and writes valid on the lanes of both axes (the write of a normalized
  /// column: rows of BLOCK_C contiguous elements, coalesced, instead of one element per row).
  void tileForeach(ForeachOp op) {
    Location loc = op.getLoc();
    Value step = ParamOp::create(b, loc, b.getIndexType(), kRowsParam);
    StringAttr spans = reducedSpan(op.getLower(), op.getUpper());
    rowsSpan = !rowsSpan || *rowsSpan == spans ? spans : StringAttr();
    Value lo = map.lookupOrDefault(op.getLower()), hi = map.lookupOrDefault(op.getUpper());
    auto loop = ForOp::create(b, loc, TypeRange(), lo, hi, step, ValueRange());
    OpBuilder::InsertionGuard guard(b);
    Block *body = b.createBlock(&loop.getBody());
    Value r0 = body->addArgument(b.getIndexType(), loc);
    Value saved = rowsOk;
    Block &members = op.getBody().front();
    map.map(members.getArgument(0), bindLanes(loc, rows, r0, hi, rowsOk));
    for (Operation &inner : members.without_terminator())
      cloneOp(inner);
    YieldOp::create(b, loc, ValueRange());
    rowsOk = saved;
  }

  /// A forward scan over r nested in the kept axis's body (whyNotScan) as `for r0 = lo to hi
  /// step BLOCK_R iter_args(carry)`, the carry one prefix per member of d ([BLOCK_C], the identity
  /// first): each trip scans its [BLOCK_R, BLOCK_C] tile of members along BLOCK_R (invalid r lanes the
  /// identity), combines the carry on the left of every prefix (seed 000 §8: regrouped, never
  /// reordered), emits the tile and carries its last row on (exactly the prefix emitted there: a pick
  /// of that row, whatever the combine). A cumulative sum down the columns reads and writes rows of
  /// BLOCK_C contiguous elements instead of one element per row.
  void tileScan(RangeScanOp op) {
    Location loc = op.getLoc();
    const unsigned tile = Rows | Cols;
    Block &element = op.getElement().front(), &emit = op.getEmit().front();
    SmallVector<Value> ids, inits;
    for (Value id : op.getIdentities()) {
      ids.push_back(map.lookupOrDefault(id));
      inits.push_back(expand(loc, ids.back(), Cols));
    }
    Value step = ParamOp::create(b, loc, b.getIndexType(), kRowsParam);
    StringAttr spans = reducedSpan(op.getLower(), op.getUpper());
    rowsSpan = !rowsSpan || *rowsSpan == spans ? spans : StringAttr();
    Value lo = map.lookupOrDefault(op.getLower()), hi = map.lookupOrDefault(op.getUpper());
    auto loop = ForOp::create(b, loc, TypeRange(ValueRange(inits)), lo, hi, step, inits);
    OpBuilder::InsertionGuard guard(b);
    Block *body = b.createBlock(&loop.getBody());
    Value r0 = body->addArgument(b.getIndexType(), loc);
    SmallVector<Value> carry;
    for (Value i : inits)
      carry.push_back(body->addArgument(i.getType(), loc));
    Value saved = rowsOk;
    Value lanes = bindLanes(loc, rows, r0, hi, rowsOk);
    Value lanesOk = rowsOk;
    if (op.getExclusive()) {
      // Lane r holds the member before it (the identity at lo): its inclusive prefix is r's exclusive
      // one, and the tile's last row is still the prefix the next tile continues from (FormBlocking's
      // blocked exclusive scan, one axis up).
      Type index = b.getIndexType();
      Value one = expand(loc, arith::ConstantIndexOp::create(b, loc, 1), Rows);
      map.map(element.getArgument(0), BinaryOp::create(b, loc, kir::BinaryKind::Sub, lanes, one, false, false));
      Value past = CmpOp::create(b, loc, kir::CmpPredicate::GT, lanes,
                                 SplatOp::create(b, loc, FragmentType::get(b.getContext(), index, {rows}), lo));
      rowsOk = BinaryOp::create(b, loc, kir::BinaryKind::And, rowsOk, past, false, false);
    } else {
      map.map(element.getArgument(0), lanes);
    }
    for (Operation &inner : element.without_terminator())
      cloneOp(inner);
    Value ok = expand(loc, rowsOk, tile);
    rowsOk = lanesOk;
    SmallVector<Value> members;
    SmallVector<Type> types;
    for (auto [y, id] : llvm::zip(element.getTerminator()->getOperands(), op.getIdentities())) {
      members.push_back(SelectOp::create(b, loc, ok, mapped(loc, y, tile), mapped(loc, id, tile)));
      types.push_back(members.back().getType());
    }
    auto prefix = ScanOp::create(b, loc, TypeRange(types), ValueRange(members), b.getI64IntegerAttr(0), ids,
                                 ValueRange(), /*exclusive=*/UnitAttr(), /*reverse=*/UnitAttr());
    IRMapping regionMap;
    op.getCombine().cloneInto(&prefix.getCombine(), regionMap);
    SmallVector<Value> args(carry);
    llvm::append_range(args, prefix.getResults());
    SmallVector<Value> full = inlineCombine(op.getCombine(), loc, args, tile);
    map.map(emit.getArgument(0), lanes);
    for (auto [arg, v] : llvm::zip(emit.getArguments().drop_front(), full))
      map.map(arg, v);
    for (Operation &inner : emit.without_terminator())
      cloneOp(inner);
    YieldOp::create(b, loc, lastRow(loc, full, ids));
    rowsOk = saved;
  }

  /// The last row (lane BLOCK_R - 1) of each [BLOCK_R, BLOCK_C] tile of `tiles`, as [BLOCK_C] fragments: a
  /// reduction along BLOCK_R that keeps the flagged lane (exact for every value, NaN and -0.0 included).
  SmallVector<Value> lastRow(Location loc, ArrayRef<Value> tiles, ArrayRef<Value> ids) {
    Type index = b.getIndexType();
    Value zero = arith::ConstantIndexOp::create(b, loc, 0), one = arith::ConstantIndexOp::create(b, loc, 1);
    Value last = BinaryOp::create(b, loc, kir::BinaryKind::Sub, ParamOp::create(b, loc, index, kRowsParam), one,
                                  false, false);
    Value at = IotaOp::create(b, loc, FragmentType::get(b.getContext(), index, {rows}), zero);
    Value isLast = CmpOp::create(b, loc, kir::CmpPredicate::EQ, at, expand(loc, last, Rows));
    Value flag = expand(loc, SelectOp::create(b, loc, isLast, expand(loc, one, Rows), expand(loc, zero, Rows)),
                        Rows | Cols);
    SmallVector<Value> inputs(tiles), identities(ids);
    inputs.push_back(flag);
    identities.push_back(zero);
    SmallVector<Type> results, scalars;
    for (Value v : inputs) {
      results.push_back(typeFor(elementTypeOf(v.getType()), Cols));
      scalars.push_back(elementTypeOf(v.getType()));
    }
    auto pick = ReduceOp::create(b, loc, results, inputs, b.getDenseI64ArrayAttr({0}), identities);
    {
      OpBuilder::InsertionGuard guard(b);
      SmallVector<Type> both(scalars);
      llvm::append_range(both, scalars);
      Block *combine = b.createBlock(&pick.getCombine(), {}, both, SmallVector<Location>(both.size(), loc));
      unsigned n = inputs.size();
      Value fa = combine->getArgument(n - 1), fb = combine->getArgument(2 * n - 1);
      Value takeA = CmpOp::create(b, loc, kir::CmpPredicate::NE, fa, arith::ConstantIndexOp::create(b, loc, 0));
      SmallVector<Value> yields;
      for (unsigned i = 0; i + 1 < n; ++i)
        yields.push_back(SelectOp::create(b, loc, takeA, combine->getArgument(i), combine->getArgument(n + i)));
      yields.push_back(BinaryOp::create(b, loc, kir::BinaryKind::Max, fa, fb, false, false));
      YieldOp::create(b, loc, yields);
    }
    return SmallVector<Value>(pick.getResults().drop_back());
  }

  /// `for r0 = lo to hi step BLOCK_R iter_args(acc)`: one block of members, neutralized on invalid
  /// r lanes, reduced along r and combined lane-wise into the carry (over the kept axis when the
  /// members depend on it).
  void tileReduce(RangeReduceOp op) {
    Location loc = op.getLoc();
    Block &element = op.getElement().front();
    // The carry is over the kept axis when a member or an identity depends on it.
    bool overCols = llvm::any_of(element.getTerminator()->getOperands(), [&](Value y) { return onD.contains(y); }) ||
                    llvm::any_of(op.getIdentities(), [&](Value id) { return onD.contains(id); });
    // Ragged: the upper bound is a [BLOCK_C] fragment, one bound per member of d (whyNot keeps the
    // lower bound uniform); each member's result differs, so the carry is over the kept axis.
    bool ragged = onD.contains(op.getUpper());
    raggedSeen |= ragged;
    if (ragged) {
      StringAttr mine = segmentPool(op.getUpper());
      pool = !pool || *pool == mine ? mine : StringAttr();
    }
    unsigned carry = overCols || ragged ? Cols : None;
    // The loop carries a whole tile (seed 000 §8: the members may be regrouped): each block's members
    // are combined lane-wise into a [BLOCK_R(, BLOCK_C)] accumulator, and the tile is reduced along
    // BLOCK_R once, after the loop, instead of once per block (a cross-lane reduction, through shared
    // memory where BLOCK_R spans warps, on every trip).
    unsigned members = carry | Rows;
    SmallVector<Value> inits;
    for (Value id : op.getIdentities())
      inits.push_back(mapped(loc, id, members));
    Value step = ParamOp::create(b, loc, b.getIndexType(), kRowsParam);
    StringAttr spans = reducedSpan(op.getLower(), op.getUpper());
    rowsSpan = !rowsSpan || *rowsSpan == spans ? spans : StringAttr();
    Value lo = map.lookupOrDefault(op.getLower()), hi = map.lookupOrDefault(op.getUpper());
    Value his = ragged ? validBounds(loc, lo, hi) : Value();
    Value top = ragged ? longest(loc, lo, his) : hi;
    // Ragged: the tile walks every member's range up to `cover`, BLOCK_R x BLOCK_C members past lo
    // (what one trip of the whole tile holds); ranges past it finish in walkLongRanges.
    Value cover = ragged ? tileCover(loc, lo) : Value();
    Value walked = ragged ? Value(BinaryOp::create(b, loc, kir::BinaryKind::Min, top, cover, false, false)) : top;
    SmallVector<Value> ids;
    for (Value id : op.getIdentities())
      ids.push_back(map.lookupOrDefault(id));
    // Bounds the same for every program (launch values): the tiles are the segments of a region fold
    // (seed 002 §3.4), so a few kept columns over many rows may have their rows cut into segments
    // across programs (pgpu-split-folds). Bounds read from memory (a bag's offsets) keep the loop.
    // A body that walks the rows again after its reductions (a column normalization's write pass) keeps
    // loops: split across programs, every segment would run the earlier reductions whole and the last
    // arrival the write pass alone, where narrower column blocks add programs that share nothing.
    if (!ragged && !walksAgain && isLaunchExpr(lo) && isLaunchExpr(hi)) {
      RegionFoldOp fold = foldTiles(op, lo, hi, step, inits, members);
      finishReduce(op, fold.getResults(), ids, carry);
      return;
    }
    auto loop = ForOp::create(b, loc, TypeRange(ValueRange(inits)), lo, walked, step, inits);
    {
      OpBuilder::InsertionGuard guard(b);
      Block *body = b.createBlock(&loop.getBody());
      Value r0 = body->addArgument(b.getIndexType(), loc);
      SmallVector<Value> acc;
      for (Value i : inits)
        acc.push_back(body->addArgument(i.getType(), loc));
      if (ragged) {
        // The lanes of r over the whole tile, valid below their own member's bound: every value that
        // depends on r is [BLOCK_R, BLOCK_C], so one validity serves its reads and its members.
        auto type = FragmentType::get(b.getContext(), b.getIndexType(), {rows});
        Value lanes = expand(loc, IotaOp::create(b, loc, type, r0), Rows | Cols);
        rowsOk = CmpOp::create(b, loc, kir::CmpPredicate::LT, lanes, expand(loc, hi, Rows | Cols));
        map.map(element.getArgument(0), lanes);
      } else {
        map.map(element.getArgument(0), bindLanes(loc, rows, r0, hi, rowsOk));
      }
      for (Operation &inner : element.without_terminator())
        cloneOp(inner);
      Value ok = expand(loc, rowsOk, members);
      SmallVector<Value> lanes;
      for (auto [y, id] : llvm::zip(element.getTerminator()->getOperands(), op.getIdentities()))
        lanes.push_back(SelectOp::create(b, loc, ok, mapped(loc, y, members), mapped(loc, id, members)));
      // acc = combine(acc, members), lane-wise over the tile (invalid lanes add the identity).
      SmallVector<Value> args(acc);
      llvm::append_range(args, lanes);
      YieldOp::create(b, loc, inlineCombine(op, args, members));
    }
    SmallVector<Value> done = reduceTile(op, loop.getResults(), ids, carry);
    if (ragged)
      done = walkLongRanges(op, his, top, cover, done);
    for (auto [r, n] : llvm::zip(op.getResults(), done))
      map.map(r, n);
  }

  /// The accumulated tiles `acc` reduced along BLOCK_R: the carry's axes remain.
  SmallVector<Value> reduceTile(RangeReduceOp op, ValueRange acc, ArrayRef<Value> ids, unsigned carry) {
    SmallVector<Type> results;
    for (Value a : acc)
      results.push_back(typeFor(elementTypeOf(a.getType()), carry));
    auto total = ReduceOp::create(b, op.getLoc(), results, acc, b.getDenseI64ArrayAttr({0}), ids);
    IRMapping regionMap;
    op.getCombine().cloneInto(&total.getCombine(), regionMap);
    return SmallVector<Value>(total.getResults());
  }
  void finishReduce(RangeReduceOp op, ValueRange acc, ArrayRef<Value> ids, unsigned carry) {
    for (auto [r, n] : llvm::zip(op.getResults(), reduceTile(op, acc, ids, carry)))
      map.map(r, n);
  }

  /// `pgpu.region_fold lo to hi step BLOCK_R`: summarize is one tile of members [b, e) (invalid r
  /// lanes neutralized to the identity), combine the reduction's combine lane-wise over the tile;
  /// the fold's summary is the [BLOCK_R(, BLOCK_C)] accumulator, reduced along BLOCK_R after it.
  /// Values from outside the tile become the fold's operands (constants are cloned in).
  RegionFoldOp foldTiles(RangeReduceOp op, Value lo, Value hi, Value step, ArrayRef<Value> inits, unsigned members) {
    Location loc = op.getLoc();
    Block &element = op.getElement().front();
    SmallVector<Type> types;
    for (Value i : inits)
      types.push_back(i.getType());
    auto fold = RegionFoldOp::create(b, loc, types, lo, hi, step, inits, ValueRange{});
    {
      OpBuilder::InsertionGuard guard(b);
      Type index = b.getIndexType();
      Block *body = b.createBlock(&fold.getSummarize(), {}, {index, index}, {loc, loc});
      map.map(element.getArgument(0), bindLanes(loc, rows, body->getArgument(0), body->getArgument(1), rowsOk));
      for (Operation &inner : element.without_terminator())
        cloneOp(inner);
      Value ok = expand(loc, rowsOk, members);
      SmallVector<Value> lanes;
      for (auto [y, id] : llvm::zip(element.getTerminator()->getOperands(), op.getIdentities()))
        lanes.push_back(SelectOp::create(b, loc, ok, mapped(loc, y, members), mapped(loc, id, members)));
      YieldOp::create(b, loc, lanes);
      SmallVector<Type> both(types);
      llvm::append_range(both, types);
      Block *combine = b.createBlock(&fold.getCombine(), {}, both, SmallVector<Location>(both.size(), loc));
      YieldOp::create(b, loc, inlineCombine(op, SmallVector<Value>(combine->getArguments()), members));
    }
    closeOver(fold);
    return fold;
  }

  /// Makes `fold`'s summarize closed: each value it uses from above becomes an operand (a constant
  /// is cloned in).
  void closeOver(RegionFoldOp fold) {
    Region &region = fold.getSummarize();
    llvm::SetVector<Value> above;
    getUsedValuesDefinedAbove(region, above);
    Block &entry = region.front();
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&entry);
    for (Value v : above) {
      Value inner;
      if (Operation *def = v.getDefiningOp(); def && isa<arith::ConstantOp>(def)) {
        inner = b.clone(*def)->getResult(0);
      } else {
        fold.getCapturesMutable().append(v);
        inner = entry.addArgument(v.getType(), v.getLoc());
      }
      replaceAllUsesInRegionWith(v, inner, region);
    }
  }

  /// lo + BLOCK_R * BLOCK_C: how far the tile walks each member's ragged range.
  Value tileCover(Location loc, Value lo) {
    Value tile = BinaryOp::create(b, loc, kir::BinaryKind::Mul, ParamOp::create(b, loc, b.getIndexType(), kRowsParam),
                                  ParamOp::create(b, loc, b.getIndexType(), kColsParam), false, false);
    return BinaryOp::create(b, loc, kir::BinaryKind::Add, lo, tile, false, false);
  }

  /// `combine` of `op` inlined at the builder over fragments of `axes` (operands expanded to them).
  SmallVector<Value> inlineCombine(RangeReduceOp op, ArrayRef<Value> args, unsigned axes) {
    return inlineCombine(op.getCombine(), op.getLoc(), args, axes);
  }
  SmallVector<Value> inlineCombine(Region &region, Location loc, ArrayRef<Value> args, unsigned axes) {
    IRMapping inlineMap;
    Block &combine = region.front();
    inlineMap.map(combine.getArguments(), args);
    for (Operation &inner : combine.without_terminator()) {
      SmallVector<Value> operands;
      for (Value v : inner.getOperands())
        operands.push_back(expand(loc, inlineMap.lookupOrDefault(v), axes));
      SmallVector<Type> types;
      for (Type t : inner.getResultTypes())
        types.push_back(typeFor(t, axes));
      OperationState state(inner.getLoc(), inner.getName(), operands, types, inner.getAttrs());
      inlineMap.map(inner.getResults(), b.create(state)->getResults());
    }
    SmallVector<Value> out;
    for (Value y : combine.getTerminator()->getOperands())
      out.push_back(inlineMap.lookupOrDefault(y));
    return out;
  }

  /// The long-range fallback of a ragged reduction (issue 42): where the block's longest range `top`
  /// passes `cover` (a branch per program at run time), the members in [cover, n(d)) of each member of
  /// d past the cover are walked with all BLOCK_R x BLOCK_C lanes of the tile, one after the other, and combined into
  /// that member's lane of `partial` (its members below `cover`, [BLOCK_C] each). Exact: seed 000 §8
  /// lets a reduction's members be regrouped. The bound: past `cover` the tile would run more than
  /// BLOCK_C trips of BLOCK_R members for one long range, while the walk takes BLOCK_R x BLOCK_C at once.
  SmallVector<Value> walkLongRanges(RangeReduceOp op, Value his, Value top, Value cover, ArrayRef<Value> partial) {
    Location loc = op.getLoc();
    Block &element = op.getElement().front();
    const unsigned tile = Rows | Cols;
    SmallVector<Type> types;
    for (Value v : partial)
      types.push_back(v.getType());
    auto beyond = IfOp::create(b, loc, types, CmpOp::create(b, loc, kir::CmpPredicate::GT, top, cover));
    OpBuilder::InsertionGuard guard(b);
    b.createBlock(&beyond.getElseRegion());
    YieldOp::create(b, loc, partial);
    b.createBlock(&beyond.getThenRegion());
    Value zero = arith::ConstantIndexOp::create(b, loc, 0), one = arith::ConstantIndexOp::create(b, loc, 1);
    Value width = ParamOp::create(b, loc, b.getIndexType(), kColsParam);
    // Only the members past the cover are visited: as many trips as there are, each finding the first
    // such member from the one after the last (one cross-lane reduction), not one trip per member.
    Value own = IotaOp::create(b, loc, FragmentType::get(b.getContext(), b.getIndexType(), {cols}), zero);
    Value past = CmpOp::create(b, loc, kir::CmpPredicate::GT, his, expand(loc, cover, Cols));
    Value count = acrossLanes(loc, SelectOp::create(b, loc, past, expand(loc, one, Cols), expand(loc, zero, Cols)),
                              zero, kir::BinaryKind::Add);
    SmallVector<Value> carried{zero};
    llvm::append_range(carried, partial);
    auto members = ForOp::create(b, loc, TypeRange(ValueRange(carried)), zero, count, one, carried);
    YieldOp::create(b, loc, members.getResults().drop_front());
    b.createBlock(&members.getBody());
    members.getBody().addArgument(b.getIndexType(), loc); // the trip: which long member
    Value from = members.getBody().addArgument(b.getIndexType(), loc);
    SmallVector<Value> acc;
    for (Type t : types)
      acc.push_back(members.getBody().addArgument(t, loc));
    Value ahead = CmpOp::create(b, loc, kir::CmpPredicate::GE, own, expand(loc, from, Cols));
    Value found = SelectOp::create(b, loc, BinaryOp::create(b, loc, kir::BinaryKind::And, past, ahead, false, false),
                                   own, expand(loc, width, Cols));
    // The min's identity a constant past every lane (a provider's reduction may take constants only).
    Value c = acrossLanes(loc, found, arith::ConstantIndexOp::create(b, loc, std::numeric_limits<int32_t>::max()),
                          kir::BinaryKind::Min);
    // Member c's scalars: its range's end and every value of d the element or the identities use.
    Value n = ExtractOp::create(b, loc, b.getIndexType(), his, ValueRange{c});
    IRMapping saved = map;
    Value savedRows = rowsOk, savedCols = colsOk;
    auto scalarOf = [&](Value original) {
      Value now = map.lookupOrDefault(original);
      if (axesOf(now) == None)
        return;
      map.map(original, ExtractOp::create(b, loc, elementTypeOf(now.getType()), now, ValueRange{c}).getResult());
    };
    element.walk([&](Operation *inner) {
      for (Value v : inner->getOperands())
        if (!op.getElement().isAncestor(v.getParentRegion()))
          scalarOf(v);
    });
    for (Value id : op.getIdentities())
      scalarOf(id);
    SmallVector<Value> inits, ids;
    for (Value id : op.getIdentities()) {
      ids.push_back(map.lookupOrDefault(id));
      inits.push_back(mapped(loc, id, tile));
    }
    Value step = BinaryOp::create(b, loc, kir::BinaryKind::Mul, ParamOp::create(b, loc, b.getIndexType(), kRowsParam),
                                  width, false, false);
    auto walk = ForOp::create(b, loc, TypeRange(ValueRange(inits)), cover, n, step, inits);
    {
      OpBuilder::InsertionGuard inner(b);
      Block *body = b.createBlock(&walk.getBody());
      Value r0 = body->addArgument(b.getIndexType(), loc);
      SmallVector<Value> args;
      for (Value i : inits)
        args.push_back(body->addArgument(i.getType(), loc));
      // r = r0 + i * BLOCK_C + j over the tile: consecutive members on consecutive lanes of BLOCK_C.
      Value across = IotaOp::create(b, loc, FragmentType::get(b.getContext(), b.getIndexType(), {cols}), r0);
      Value down = IotaOp::create(b, loc, FragmentType::get(b.getContext(), b.getIndexType(), {rows}), zero);
      Value lanes = BinaryOp::create(b, loc, kir::BinaryKind::Add, expand(loc, across, tile),
                                     BinaryOp::create(b, loc, kir::BinaryKind::Mul, expand(loc, down, tile),
                                                      expand(loc, width, tile), false, false),
                                     false, false);
      rowsOk = CmpOp::create(b, loc, kir::CmpPredicate::LT, lanes, expand(loc, n, tile));
      colsOk = Value(); // one member of d: its lanes are all of the tile's
      map.map(element.getArgument(0), lanes);
      for (Operation &inner : element.without_terminator())
        cloneOp(inner);
      SmallVector<Value> members;
      for (auto [y, id] : llvm::zip(element.getTerminator()->getOperands(), op.getIdentities()))
        members.push_back(SelectOp::create(b, loc, rowsOk, mapped(loc, y, tile), mapped(loc, id, tile)));
      llvm::append_range(args, members);
      YieldOp::create(b, loc, inlineCombine(op, args, tile));
    }
    map = saved;
    rowsOk = savedRows;
    colsOk = savedCols;
    // The tile reduced to member c's scalar, combined into its lane.
    SmallVector<Value> rest(walk.getResults());
    for (unsigned axes : {tile, unsigned(Cols)}) {
      SmallVector<Type> reduced;
      for (Value v : rest)
        reduced.push_back(typeFor(elementTypeOf(v.getType()), axes & ~unsigned(axes == tile ? Rows : Cols)));
      auto fold = ReduceOp::create(b, loc, reduced, rest, b.getDenseI64ArrayAttr({0}), ids);
      IRMapping regionMap;
      op.getCombine().cloneInto(&fold.getCombine(), regionMap);
      rest.assign(fold.getResults().begin(), fold.getResults().end());
    }
    SmallVector<Value> args(acc);
    llvm::append_range(args, rest);
    SmallVector<Value> merged = inlineCombine(op, args, Cols);
    Value mine = CmpOp::create(b, loc, kir::CmpPredicate::EQ, own, expand(loc, c, Cols));
    SmallVector<Value> next{BinaryOp::create(b, loc, kir::BinaryKind::Add, c, one, false, false)};
    for (auto [m, a] : llvm::zip(merged, acc))
      next.push_back(SelectOp::create(b, loc, mine, m, a));
    YieldOp::create(b, loc, next);
    return SmallVector<Value>(beyond.getResults());
  }

  OpBuilder &b;
  StringAttr rows, cols;
  std::optional<StringAttr> &rowsSpan;
  bool &raggedSeen;
  std::optional<StringAttr> &pool;
  IRMapping map;
  DenseSet<Value> onD;  // original values that depend on the kept axis
  /// Adds the values of `op` (and its regions) that depend on `d` to onD, in walk order.
  void dependentsOf(Value d, Operation *op) {
    onD.insert(d);
    op->walk([&](Operation *inner) {
      if (llvm::any_of(inner->getOperands(), [&](Value v) { return onD.contains(v); }))
        onD.insert(inner->result_begin(), inner->result_end());
    });
  }
  Value rowsOk, colsOk; // lane validity of the current blocks
  bool walksAgain = false; // the body holds a workset over the rows (tileForeach): reductions stay loops
};


/// The execution group whose program `each` may be split by (seed 002 §3.2: enlarge or divide what
/// one program instance owns): the sole group of the program space, holding `each` directly, whose
/// bounds are LaunchExprs, and whose other code writes nothing (it then runs once per block of d,
/// which only repeats reads). Null otherwise: the blocks of d are a loop in the program.
ExecutionGroupOp splittableGroup(ForeachOp each) {
  auto group = dyn_cast<ExecutionGroupOp>(each->getParentOp());
  auto space = group ? dyn_cast<ProgramSpaceOp>(group->getParentOp()) : ProgramSpaceOp();
  if (!space || soleExecutionGroup(space, /*finalization=*/false) != group)
    return {};
  if (!isLaunchExpr(each.getLower()) || !isLaunchExpr(each.getUpper()))
    return {};
  for (Operation &op : group.getBody().front().without_terminator())
    if (&op != each.getOperation() && writesMemory(&op))
      return {};
  return group;
}

/// Blocks of BLOCK_C members of d as a trailing program axis of `group` (the program space grows by
/// their count, ceil((hi - lo) / BLOCK_C)); returns the block's first member in the program.
Value splitByBlocks(OpBuilder &b, ExecutionGroupOp group, ForeachOp each) {
  Location loc = each.getLoc();
  auto space = cast<ProgramSpaceOp>(group->getParentOp());
  b.setInsertionPoint(space);
  IRMapping hoisted;
  bool fromZero = matchPattern(each.getLower(), m_Zero());
  Value hi = hoistLaunchValue(b, space, each.getUpper(), hoisted);
  Value lo = fromZero ? Value() : hoistLaunchValue(b, space, each.getLower(), hoisted);
  auto bin = [&](kir::BinaryKind kind, Value l, Value r) {
    return BinaryOp::create(b, loc, kind, l, r, false, false).getResult();
  };
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value members = fromZero ? hi : bin(kir::BinaryKind::Sub, hi, lo);
  Value step = ParamOp::create(b, loc, b.getIndexType(), kColsParam);
  Value blocks = bin(kir::BinaryKind::Max, CeilDivOp::create(b, loc, members, step), zero);
  space->setOperand(0, bin(kir::BinaryKind::Mul, space.getExtents()[0], blocks));
  SmallVector<Value> extents(group.getExtents());
  extents.push_back(blocks);
  group.getExtentsMutable().assign(extents);
  SmallVector<Attribute> roles(group.getRoles().begin(), group.getRoles().end());
  roles.push_back(b.getStringAttr("axis" + std::to_string(roles.size())));
  group.setRolesAttr(b.getArrayAttr(roles));
  BlockArgument coord = group.getBody().front().addArgument(b.getIndexType(), loc);
  b.setInsertionPoint(each);
  Value inner = ParamOp::create(b, loc, b.getIndexType(), kColsParam);
  Value first = bin(kir::BinaryKind::Mul, coord, inner);
  return fromZero ? first : bin(kir::BinaryKind::Add, each.getLower(), first);
}

/// A program axis that is the kept axis (pgpu-flatten-worksets made the whole-body workset a group
/// coordinate, one column per program): the coordinate of the sole execution group whose body is a
/// column-reduction workset over it, with the program space the product of the group's extents.
/// Returns the axis, or -1.
int keptGroupAxis(ExecutionGroupOp group, bool scans) {
  auto space = dyn_cast<ProgramSpaceOp>(group->getParentOp());
  if (!space || soleExecutionGroup(space, /*finalization=*/false) != group ||
      !isProductOf(space.getExtents()[0], SmallVector<Value>(group.getExtents())))
    return -1;
  Block &body = group.getBody().front();
  for (int axis = body.getNumArguments() - 1; axis >= 0; --axis)
    if (whyNot(body, body.getArgument(axis), scans).empty())
      return axis;
  return -1;
}

/// The same for a segment of construction's dispatch chain (a bias gradient's column sums beside the
/// elementwise store of the same kernel: `db[n] = sum_m d[m, n]` after `dx[m, n] = d[m, n]`): the
/// coordinate of `group`, one of the chain's groups, whose body is such a workset over it. Fills
/// `segment` with the group's index in `chain`; returns the axis, or -1.
int keptSegmentAxis(ExecutionGroupOp group, bool scans, Dispatch &chain, unsigned &segment) {
  auto space = dyn_cast_or_null<ProgramSpaceOp>(group->getParentOfType<ProgramSpaceOp>());
  if (!space || space.getExtents().size() != 1 || group.getExtents().empty() ||
      !dispatchChain(space.getBody().front(), space.getBody().getArgument(0), chain, /*guardedEnd=*/true) ||
      chain.groups.size() < 2)
    return -1;
  auto at = llvm::find(chain.groups, group);
  if (at == chain.groups.end())
    return -1;
  segment = unsigned(at - chain.groups.begin());
  // The segment's program count must be its extents' product (the chain's bound, or the rest of the
  // total for the last segment): the blocked count replaces it.
  SmallVector<Value> extents(group.getExtents());
  if (segment < chain.bounds.size() && !isProductOf(chain.bounds[segment].getRhs(), extents))
    return -1;
  if (segment == chain.bounds.size() && chain.end && !isProductOf(chain.end.getRhs(), extents))
    return -1;
  Block &body = group.getBody().front();
  for (int axis = body.getNumArguments() - 1; axis >= 0; --axis)
    if (whyNot(body, body.getArgument(axis), scans).empty())
      return axis;
  return -1;
}

/// Group coordinate `axis` (members [0, E)) becomes blocks of BLOCK_C members: its extent
/// ceil(E / BLOCK_C), the program space the product again (with `chain`, segment `segment` of it:
/// its count in the chain and in the space's total replaced), the body one block of lanes.
void blockGroupAxis(OpBuilder &b, ExecutionGroupOp group, unsigned axis, std::optional<StringAttr> &rowsSpan,
                    bool &ragged, std::optional<StringAttr> &pool, Dispatch *chain = nullptr,
                    unsigned segment = 0) {
  Location loc = group.getLoc();
  auto space = group->getParentOfType<ProgramSpaceOp>();
  b.setInsertionPoint(space);
  SmallVector<Value> extents(group.getExtents());
  Value members = extents[axis];
  auto product = [&](ArrayRef<Value> factors) {
    Value p = factors[0];
    for (Value e : factors.drop_front())
      p = BinaryOp::create(b, loc, kir::BinaryKind::Mul, p, e, false, false);
    return p;
  };
  Value before = chain ? product(extents) : Value();
  Value step = ParamOp::create(b, loc, b.getIndexType(), kColsParam);
  extents[axis] = BinaryOp::create(b, loc, kir::BinaryKind::Max, CeilDivOp::create(b, loc, members, step),
                                   arith::ConstantIndexOp::create(b, loc, 0), false, false);
  Value total = product(extents);
  if (chain) {
    // The segment's programs change from `before` to `total`: its bound and shift, and the space's
    // total (every segment's programs added) by the difference.
    chain->setCount(segment, total);
    Value others = BinaryOp::create(b, loc, kir::BinaryKind::Sub, space.getExtents()[0], before, false, false);
    total = BinaryOp::create(b, loc, kir::BinaryKind::Add, others, total, false, false);
  }
  space->setOperand(0, total);
  group.getExtentsMutable().assign(extents);
  Block &body = group.getBody().front();
  SmallVector<Operation *> old = opsOf(body);
  b.setInsertionPointToStart(&body);
  Value coord = body.getArgument(axis);
  Value d0 = BinaryOp::create(b, loc, kir::BinaryKind::Mul, coord, ParamOp::create(b, loc, b.getIndexType(), kColsParam),
                              false, false);
  ColumnTiler(b, rowsSpan, ragged, pool).tileBlock(old, coord, members, d0);
  for (Operation *op : llvm::reverse(old))
    op->erase();
}

/// A reduction over two axes spelled as one nested in the other's element (`T.sum(x[n, hs, ws, cs],
/// axis=(0, 1))`: the outer over h, its element the inner over w, yielded whole) is one reduction
/// over the flattened rows r in [0, H * W) (h = lo_h + r / W, w = lo_w + r % W) when both have the
/// same combine and identity and the inner bounds do not depend on h: seed 000 §8 lets a reduction's
/// members be regrouped, so the nested association is one of the flattened one's. Done only where the
/// flattened reduction is a column reduction: a read over both axes whose contiguous (last) coordinate
/// depends on neither (the kept channels of an NHWC pool), which this pass then tiles; a row-wise
/// nest (w contiguous) is left to one-axis blocking. Returns whether `outer` was replaced.
bool flattenNested(OpBuilder &b, RangeReduceOp outer) {
  Block &element = outer.getElement().front();
  if (!llvm::hasSingleElement(element.without_terminator()))
    return false;
  auto inner = dyn_cast<RangeReduceOp>(&element.front());
  if (!inner || ValueRange(element.getTerminator()->getOperands()) != ValueRange(inner.getResults()))
    return false;
  Region &outerRegion = outer.getElement();
  auto outside = [&](Value v) { return !outerRegion.isAncestor(v.getParentRegion()); };
  if (!outside(inner.getLower()) || !outside(inner.getUpper()) ||
      inner.getIdentities().size() != outer.getIdentities().size())
    return false;
  for (auto [a, c] : llvm::zip(inner.getIdentities(), outer.getIdentities())) {
    Attribute x, y;
    if (!outside(a) || (a != c && !(matchPattern(a, m_Constant(&x)) && matchPattern(c, m_Constant(&y)) && x == y)))
      return false;
  }
  if (!OperationEquivalence::isRegionEquivalentTo(&inner.getCombine(), &outer.getCombine(),
                                                  OperationEquivalence::IgnoreLocations))
    return false;
  Block &body = inner.getElement().front();
  if (!llvm::all_of(body.without_terminator(), isPointwiseOrRead))
    return false;
  DenseSet<Value> onH, onW;
  dependents(element.getArgument(0), outerRegion, onH);
  dependents(body.getArgument(0), inner.getElement(), onW);
  bool column = llvm::any_of(body.without_terminator(), [&](Operation &op) {
    std::optional<ValueRange> coords = readCoords(op);
    if (!coords || coords->empty())
      return false;
    Value last = coords->back();
    auto on = [&](const DenseSet<Value> &set) { return llvm::any_of(*coords, [&](Value c) { return set.contains(c); }); };
    return !onH.contains(last) && !onW.contains(last) && on(onH) && on(onW);
  });
  if (!column)
    return false;
  Location loc = outer.getLoc();
  b.setInsertionPoint(outer);
  auto bin = [&](kir::BinaryKind kind, Value x, Value y) -> Value {
    return BinaryOp::create(b, loc, kind, x, y, false, false);
  };
  Value zero = arith::ConstantIndexOp::create(b, loc, 0), one = arith::ConstantIndexOp::create(b, loc, 1);
  Value rowsH = bin(kir::BinaryKind::Max, bin(kir::BinaryKind::Sub, outer.getUpper(), outer.getLower()), zero);
  Value rowsW = bin(kir::BinaryKind::Max, bin(kir::BinaryKind::Sub, inner.getUpper(), inner.getLower()), zero);
  Value total = bin(kir::BinaryKind::Mul, rowsH, rowsW);
  Value width = bin(kir::BinaryKind::Max, rowsW, one); // no member divides by it when W is empty
  auto flat = RangeReduceOp::create(b, loc, outer.getResultTypes(), zero, total, outer.getIdentities());
  {
    OpBuilder::InsertionGuard guard(b);
    Block *e = b.createBlock(&flat.getElement(), {}, {b.getIndexType()}, {loc});
    Value r = e->getArgument(0);
    IRMapping map;
    map.map(element.getArgument(0), bin(kir::BinaryKind::Add, outer.getLower(), bin(kir::BinaryKind::Div, r, width)));
    map.map(body.getArgument(0), bin(kir::BinaryKind::Add, inner.getLower(), bin(kir::BinaryKind::Rem, r, width)));
    for (Operation &op : body)
      b.clone(op, map);
  }
  IRMapping regionMap;
  outer.getCombine().cloneInto(&flat.getCombine(), regionMap);
  outer.replaceAllUsesWith(flat.getResults());
  outer.erase();
  return true;
}

/// The most components of a scan this pass tiled in `kernel` (a `pgpu.scan` along BLOCK_R of
/// [BLOCK_R, BLOCK_C] tiles: only tileScan makes them), 0 when none.
unsigned tiledScanComponents(KernelOp kernel) {
  unsigned most = 0;
  kernel.walk([&](ScanOp scan) {
    auto type = scan->getNumResults() ? dyn_cast<FragmentType>(scan->getResult(0).getType()) : FragmentType();
    if (type && type.getRank() == 2 && type.getExtents()[0] == StringAttr::get(kernel.getContext(), kRowsParam) &&
        type.getExtents()[1] == StringAttr::get(kernel.getContext(), kColsParam))
      most = std::max(most, scan->getNumResults());
  });
  return most;
}

struct TileColumnReductions : public tessel::pgpu::impl::PGPUTileColumnReductionsBase<TileColumnReductions> {
  using Base::Base;
  void runOnOperation() override {
    for (KernelOp kernel : getOperation().getOps<KernelOp>()) {
      bool remarks = remarksEnabled(kernel);
      // A kernel whose own parameters already use these names (a fold's BLOCK_<extent>) is left alone.
      if (kernel.getParam(kRowsParam) || kernel.getParam(kColsParam))
        continue;
      SmallVector<RangeReduceOp> nests;
      kernel.walk([&](RangeReduceOp r) {
        if (!r->getParentOfType<RangeReduceOp>())
          nests.push_back(r);
      });
      for (RangeReduceOp r : nests) {
        OpBuilder b(r);
        Location at = r.getLoc();
        if (flattenNested(b, r) && remarks)
          emitRemark(at) << "pgpu-tile-column-reductions: a reduction nested in another's element (the "
                                    "same combine and identity, a read whose contiguous coordinate depends on "
                                    "neither) is one reduction over the flattened rows";
      }
      SmallVector<ForeachOp> candidates;
      kernel.walk([&](ForeachOp each) { candidates.push_back(each); });
      std::optional<StringAttr> covered; // the symbol every tiled kept axis spans, or null
      std::optional<StringAttr> rowsSpan; // the symbol every tiled reduction spans, or null
      bool ragged = false;                 // some tiled reduction has bounds per member of d
      std::optional<StringAttr> pool;      // the extent every ragged reduction's segments lie in, or null
      std::optional<StringAttr> kept;      // the extent every tiled kept axis spans from 0, or null
      auto keep = [&](StringAttr symbol) { kept = !kept || *kept == symbol ? symbol : StringAttr(); };
      for (ForeachOp each : candidates) {
        // The innermost worksets only: one holding another foreach or a loop is not straight-line.
        std::string why = whyNot(each.getBody().front(), each.getBody().getArgument(0), scans);
        if (!why.empty()) {
          if (remarks && llvm::any_of(each.getBody().front(), [](Operation &op) { return isa<RangeReduceOp>(op); }))
            emitRemark(each.getLoc()) << "pgpu-tile-column-reductions: not tiled: " << why;
          continue;
        }
        OpBuilder b(each);
        ExecutionGroupOp group = splittableGroup(each);
        // A loop over the blocks of d in one program covers d's extent (one block when a candidate
        // holds the row); blocks that are programs are sized by the launch instead (a call's default
        // narrows BLOCK_C while the programs would not fill the device).
        StringAttr spans = group ? StringAttr() : spannedExtent(each.getLower(), each.getUpper());
        covered = !covered || *covered == spans ? spans : StringAttr();
        keep(spannedExtent(each.getLower(), each.getUpper()));
        if (group) {
          Value d0 = splitByBlocks(b, group, each);
          ColumnTiler(b, rowsSpan, ragged, pool)
              .tileBlock(each.getBody().front(), each.getBody().getArgument(0), each.getUpper(), d0);
        } else {
          ColumnTiler(b, rowsSpan, ragged, pool).tile(each);
        }
        if (remarks)
          emitRemark(each.getLoc()) << "pgpu-tile-column-reductions: the kept axis became blocks of BLOCK_C lanes"
                                    << (group ? " (a program axis)" : " (a loop in the program)")
                                    << " and each reduction's axis blocks of BLOCK_R: [BLOCK_R, BLOCK_C] tiles "
                                       "reduced along BLOCK_R";
        each.erase();
      }
      // A kept axis that is already a program axis (one column per program): its programs own blocks
      // of BLOCK_C columns instead, sized by the launch.
      SmallVector<ExecutionGroupOp> groups;
      kernel.walk([&](ExecutionGroupOp group) { groups.push_back(group); });
      for (ExecutionGroupOp group : groups) {
        int axis = keptGroupAxis(group, scans);
        Dispatch chain;
        unsigned segment = 0;
        bool segmented = axis < 0 && (axis = keptSegmentAxis(group, scans, chain, segment)) >= 0;
        if (axis < 0)
          continue;
        OpBuilder b(group);
        keep(extentSymbol(group.getExtents()[axis]));
        blockGroupAxis(b, group, unsigned(axis), rowsSpan, ragged, pool, segmented ? &chain : nullptr, segment);
        covered = StringAttr();
        if (remarks)
          emitRemark(group.getLoc()) << "pgpu-tile-column-reductions: program axis " << axis
                                     << " (the kept axis) became blocks of BLOCK_C lanes and each reduction's axis "
                                        "blocks of BLOCK_R: [BLOCK_R, BLOCK_C] tiles reduced along BLOCK_R";
      }
      if (!covered)
        continue;
      // [BLOCK_R, BLOCK_C] f32 at the defaults is 2048 elements: 16 registers a lane at 4 warps.
      // Ragged segments may be few and long (a thousand CSR rows of 16k nonzeros): a call's default
      // narrows BLOCK_C while the programs would not fill the device, down to one member a program
      // (one segment per program again, as before packing), so the candidates reach 1.
      // Ragged segments read from memory (CSR rows) run each member's lanes to the program's longest
      // range: few of them a program keep that longest near the average (Dirichlet(0.5) CSR rows of 16
      // nonzeros on average: about 4 tile lanes a nonzero at [16, 8], 5 at [16, 16], 8.7 at [16, 128]),
      // so the tile is 8 segments of 16 lanes, which a call's default keeps (BLOCK_R by the average
      // length, BLOCK_C the rest). Ranges ragged by position (rows[0:d]) keep 128 contiguous columns.
      bool segmentsRead = ragged && pool && *pool;
      if (ragged)
        declareTileParam(kernel, kColsParam, {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}, segmentsRead ? 8 : 128,
                *covered);
      // A tiled scan keeps two [BLOCK_R, BLOCK_C] tiles per component live (members and prefixes, the
      // resource model's 8 bytes a component lane): with k components the default tile holds at most
      // 4096 / k lanes, 128 f32 registers a thread at the heuristic 2 warps (one component or an EMA's
      // two: [16, 128] as for a reduction; a selective scan's 32, 16 states of affine maps: [8, 16]).
      // BLOCK_C narrows first down to 16 (rows of 64 contiguous f32 bytes: two whole sectors, and
      // more programs for the serial walk), then BLOCK_R (issue 42).
      unsigned components = tiledScanComponents(kernel);
      int64_t colsDefault = 128, rowsDefault = 16;
      while (colsDefault > 16 && components * rowsDefault * colsDefault > 4096)
        colsDefault /= 2;
      while (rowsDefault > 2 && components * rowsDefault * colsDefault > 4096)
        rowsDefault /= 2;
      if (!ragged)
        declareTileParam(kernel, kColsParam, {16, 32, 64, 128, 256, 512, 1024}, colsDefault, *covered);
      // A reduced axis that one candidate holds (C = 64 input channels) takes it: no masked rows.
      // Ragged segments may be long (few CSR rows of many nonzeros): where a call's default narrows
      // BLOCK_C to fill the device it widens BLOCK_R to its largest candidate (_fill_programs, rule 3),
      // so the candidates reach 1024 members of a segment per block, two blocks of one-axis lanes.
      if (ragged)
        declareTileParam(kernel, kRowsParam, {2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}, 16,
                rowsSpan.value_or(StringAttr()));
      else
        declareTileParam(kernel, kRowsParam, {2, 4, 8, 16, 32, 64, 128}, rowsDefault, rowsSpan.value_or(StringAttr()));
      // Ragged segments partitioning a view extent (CSR rows in [0, NNZ), one per member of [0, M)):
      // a call's default sizes the tile by their average length NNZ / M (seed 003: defaults from facts).
      if (ragged && pool && *pool && kept && *kept) {
        MLIRContext *ctx = kernel.getContext();
        SmallVector<NamedAttribute> facts{NamedAttribute(StringAttr::get(ctx, "across"), StringAttr::get(ctx, kColsParam)),
                                          NamedAttribute(StringAttr::get(ctx, "along"), StringAttr::get(ctx, kRowsParam)),
                                          NamedAttribute(StringAttr::get(ctx, "count"), *kept),
                                          NamedAttribute(StringAttr::get(ctx, "pool"), *pool)};
        kernel->setAttr("pgpu.segments", // the wrappers state it (tessel/Target/Wrapper.h, kSegmentsAttr)
                        DictionaryAttr::get(ctx, facts));
      }
    }
  }
};
} // namespace
