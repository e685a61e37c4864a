//===- FormTilesRewrite.cpp - pgpu-form-tiles' rewrite of a tiled group ---===//
//
// The rewrite half of pgpu-form-tiles (FormTiles.cpp's header comment
// describes the pass): a group the Tiler analyzed becomes program axes,
// blocked K loops and tile products (rewrite, the grouped traversal, the
// segmented walk), and declares its tile parameters.
//
//===----------------------------------------------------------------------===//

#include "FormTilesImpl.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

namespace tessel::pgpu::formtiles {

void Tiler::rewrite() {
  Location loc = group.getLoc();
  // Launch-time extents of every program axis, and of the new grid.
  b.setInsertionPoint(space);
  SmallVector<Value> bounds(group.getExtents()), starts;
  for (unsigned i = 0; i < bounds.size(); ++i)
    starts.push_back(Value());
  for (ForeachOp each : chain) {
    bounds.push_back(BinaryOp::create(b, loc, kir::BinaryKind::Sub, each.getUpper(), each.getLower(), false, false));
    starts.push_back(each.getLower());
  }
  SmallVector<Value> tiles; // per program axis: its number of tiles (or members, for a scalar axis)
  Value total;
  for (auto [a, bound] : llvm::enumerate(bounds)) {
    Value e = bound;
    if (blocked & bit(a))
      e = CeilDivOp::create(b, loc, bound, ParamOp::create(b, loc, b.getIndexType(), paramOf[a]));
    tiles.push_back(e);
    total = total ? Value(BinaryOp::create(b, loc, kir::BinaryKind::Mul, total, e, false, false)) : e;
  }
  // A group without axes (a kernel-level Gram fold, tileGramFold) stays one program; pgpu-split-folds
  // spreads its fold.
  if (!total)
    total = arith::ConstantIndexOp::create(b, loc, 1);
  // Persistent traversal (seed 002 §3.2, refine-mapping's grid-stride form) for contraction tiles:
  // min(tiles, PERSIST * multiprocessors) programs each walk the tiles t = pid, pid + programs, ...,
  // so the grid is resident waves and no partial last wave idles the device (measured by hand on the
  // H200: 5-7% on bf16 GEMM at 4096^3, 8192^3 and 8192x8192x1024). With fewer tiles than programs
  // each program owns one tile, as without the walk.
  Value programs = total;
  auto target = kernel->getParentOfType<ModuleOp>()->getAttrOfType<TargetAttr>(PGPUDialect::getTargetAttrName());
  // One segment of several owns the programs its tiles need, not the space's (a grid-stride walk
  // over the tiles of several segments is not formed).
  // A Gram nest's fold (tileGramFold) keeps one program per point: pgpu-split-folds spreads its blocks.
  persistent = !contracts.empty() && target && target.getMultiprocessors() > 0 && !chainSegment && gramFolds.empty();
  if (persistent) {
    Value perSM = ParamOp::create(b, loc, b.getIndexType(), kPersist);
    Value sms = arith::ConstantIndexOp::create(b, loc, target.getMultiprocessors());
    programs = BinaryOp::create(b, loc, kir::BinaryKind::Min, total,
                                BinaryOp::create(b, loc, kir::BinaryKind::Mul, perSM, sms, false, false), false,
                                false);
  }
  if (!chainSegment)
    space->setOperand(0, programs);
  // Grouped traversal (seed 002 §3.2): when the two blocked axes are the innermost program axes,
  // they become one linear axis that visits GROUP row tiles down a column of tiles before moving
  // right, so concurrently running programs share operand tiles in L2.
  unsigned n = tiles.size();
  // Row tiles share no operand tile between programs: they walk in row-major order, ungrouped.
  bool grouped = n >= 2 && (blocked & bit(n - 1)) && (blocked & bit(n - 2)) &&
                 popcount(blocked & programAxes) == 2 && !rowTiles;
  SmallVector<Value> extents(tiles);
  if (grouped) {
    extents.pop_back();
    extents.back() = BinaryOp::create(b, loc, kir::BinaryKind::Mul, tiles[n - 2], tiles[n - 1], false, false);
  }

  // The new group, with the same segment and one role per program axis.
  b.setInsertionPoint(group);
  Value linear = group.getLinear();
  ForOp walk;
  if (persistent) {
    walk = ForOp::create(b, loc, TypeRange{}, linear, total, programs, ValueRange{});
    b.createBlock(&walk.getBody());
    linear = walk.getBody().addArgument(b.getIndexType(), loc);
  }
  SmallVector<Attribute> roles(group.getRoles().begin(), group.getRoles().end());
  while (roles.size() < extents.size())
    roles.push_back(b.getStringAttr("axis" + std::to_string(roles.size())));
  roles.resize(extents.size());
  if (grouped)
    roles.back() = b.getStringAttr("grouped tiles");
  auto tiled = ExecutionGroupOp::create(b, loc, linear, extents, group.getSegmentAttr(), b.getArrayAttr(roles));
  tiledGroup = tiled;
  Block *body = b.createBlock(&tiled.getBody());
  laneOk.assign(numAxes, Value());
  Block &old = group.getBody().front();
  SmallVector<Value> coords;
  for (unsigned a = 0; a < extents.size(); ++a)
    coords.push_back(body->addArgument(b.getIndexType(), loc));
  if (grouped) {
    groupParam = "GROUP_" + std::to_string(n - 2);
    SmallVector<Value> pair = groupedCoords(loc, coords.back(), tiles[n - 2], tiles[n - 1]);
    coords.back() = pair[0];
    coords.push_back(pair[1]);
  }
  for (unsigned a = 0; a < n; ++a) {
    Value coord = coords[a];
    Value original = a < old.getNumArguments() ? Value(old.getArgument(a))
                                               : Value(chain[a - old.getNumArguments()].getBody().getArgument(0));
    // Member = start + coord (scalar axis) or start + coord * TILE + lane.
    Value first = coord;
    if (blocked & bit(a))
      first = BinaryOp::create(b, loc, kir::BinaryKind::Mul, coord,
                               ParamOp::create(b, loc, b.getIndexType(), paramOf[a]), false, false);
    if (starts[a])
      first = BinaryOp::create(b, loc, kir::BinaryKind::Add, first, starts[a], false, false);
    firstOf.push_back(first);
    if (blocked & bit(a))
      bindAxis(a, first, starts[a] ? Value(chain[a - old.getNumArguments()].getUpper()) : bounds[a], original);
    else
      map.map(original, first);
  }
  // The chain's prologues, then the program body.
  Block *level = &old;
  for (ForeachOp each : chain) {
    for (Operation &op : llvm::make_range(level->begin(), Block::iterator(each)))
      (void)cloneOp(op);
    level = &each.getBody().front();
  }
  for (Operation &op : programBody->without_terminator())
    (void)cloneOp(op);
  YieldOp::create(b, loc);
  if (walk) {
    b.setInsertionPointAfter(tiled);
    YieldOp::create(b, loc);
  }
  group.erase();

  declareParams();
}

/// Grouped traversal (seed 002 §3.2) of a `tm x tn` tile grid: the linear tile index visits GROUP
/// row tiles down a column of tiles before moving right, so concurrently running programs share
/// operand tiles in L2. Returns the row and column tile.
SmallVector<Value> Tiler::groupedCoords(Location loc, Value linear, Value tm, Value tn) {
  auto bin = [&](kir::BinaryKind kind, Value x, Value y) -> Value {
    return BinaryOp::create(b, loc, kind, x, y, false, false);
  };
  Value g = ParamOp::create(b, loc, b.getIndexType(), groupParam);
  Value perGroup = bin(kir::BinaryKind::Mul, g, tn);
  Value gid = bin(kir::BinaryKind::Div, linear, perGroup);
  Value first = bin(kir::BinaryKind::Mul, gid, g);
  // Every tile of the grid (linear < tm * tn) has first = gid * GROUP <= tm - 1, so at least one row;
  // the clamp states it in the IR (a no-op on every tile), so the sign analysis (IndexSign.h) proves
  // the divisor below positive and providers keep their truncating // and % on `local`.
  Value rows = bin(kir::BinaryKind::Max, bin(kir::BinaryKind::Min, bin(kir::BinaryKind::Sub, tm, first), g),
                   arith::ConstantIndexOp::create(b, loc, 1));
  Value local = bin(kir::BinaryKind::Sub, linear, bin(kir::BinaryKind::Mul, gid, perGroup));
  return {bin(kir::BinaryKind::Add, first, bin(kir::BinaryKind::Rem, local, rows)),
          bin(kir::BinaryKind::Div, local, rows)};
}

/// The segmented walk (checkSegmented): `programs = PERSIST * multiprocessors` programs each run
///   for o in [0, members) iter_args(base = 0):       (the group's members, in order)
///     bounds of o's segment                          (read in the program: the prologue)
///     count = ceil(extent / TILE) * tiles of the later axes
///     for t = first of mine to count step programs:  (tiles base + t dealt round-robin)
///       the tile (grouped traversal over the segment and the next axis), its lanes valid
///       below the segment's read upper bound
///     base += count
/// The grid depends only on launch values (seed 000 §3.1, invariant 10); the data-dependent
/// bounds are loop bounds and lane validity in the program (seed 000 §5: physical loops may use
/// runtime bounds). The members of one segment are the foreach's, each exactly once.
void Tiler::rewriteSegmented() {
  Location loc = group.getLoc();
  Type index = b.getIndexType();
  auto bin = [&](kir::BinaryKind kind, Value x, Value y) -> Value {
    return BinaryOp::create(b, loc, kind, x, y, false, false);
  };
  auto target = kernel->getParentOfType<ModuleOp>()->getAttrOfType<TargetAttr>(PGPUDialect::getTargetAttrName());
  Block &old = group.getBody().front();
  unsigned outer = old.getNumArguments();
  // Launch-time values: the programs, the group's members, the tiles of the axes after the segment.
  b.setInsertionPoint(space);
  persistent = true;
  Value programs = bin(kir::BinaryKind::Mul, ParamOp::create(b, loc, index, kPersist),
                       arith::ConstantIndexOp::create(b, loc, target.getMultiprocessors()));
  Value members;
  for (Value e : group.getExtents())
    members = members ? bin(kir::BinaryKind::Mul, members, e) : e;
  SmallVector<Value> later;
  for (unsigned i = 1; i < chain.size(); ++i) {
    unsigned a = outer + i;
    Value extent = bin(kir::BinaryKind::Sub, chain[i].getUpper(), chain[i].getLower());
    later.push_back((blocked & bit(a)) ? Value(CeilDivOp::create(b, loc, extent, ParamOp::create(b, loc, index, paramOf[a])))
                                       : extent);
  }
  // No more programs than the walk can have tiles (seed 002 §3.2: the grid is the instances that own
  // work): where the segment's bounds are clamped to launch-time values lo >= L and hi <= U, each
  // member has at most ceil(max(U - L, 0) / TILE) x (later tiles) tiles, so the grid is
  // max(1, min(programs, members x that)). At small shapes (5 groups of 37 rows) a handful of programs
  // start instead of PERSIST x multiprocessors; at large ones the product passes the resident count and
  // nothing changes. Any count of at least one program is correct: tiles are dealt modulo the count or
  // taken from a counter (pgpu-dynamic-walk), and one program remains for a last-program finalization.
  {
    ForeachOp segment = chain.front();
    Value upper = launchBound(segment.getUpper(), /*above=*/true);
    Value lower = upper ? launchBound(segment.getLower(), /*above=*/false) : Value();
    if (upper && lower) {
      Value c0 = arith::ConstantIndexOp::create(b, loc, 0), c1 = arith::ConstantIndexOp::create(b, loc, 1);
      Value rows = isZeroConstant(lower) ? upper : bin(kir::BinaryKind::Sub, upper, lower);
      if (!provablyNonNegative(rows))
        rows = bin(kir::BinaryKind::Max, rows, c0);
      Value most = bin(kir::BinaryKind::Mul, members,
                       CeilDivOp::create(b, loc, rows, ParamOp::create(b, loc, index, paramOf[outer])));
      for (Value t : later)
        most = bin(kir::BinaryKind::Mul, most, t);
      programs = bin(kir::BinaryKind::Max, bin(kir::BinaryKind::Min, most, programs), c1);
      boundedWalk = true;
    }
  }
  // Every program walks (a last-program finalization counts the space's instances, so it follows).
  space->setOperand(0, programs);
  if (guard)
    guard.getCondition().getDefiningOp()->setOperand(1, programs);

  b.setInsertionPoint(group);
  auto walker = ExecutionGroupOp::create(b, loc, group.getLinear(), ValueRange{programs}, group.getSegmentAttr(),
                                         b.getArrayAttr({b.getStringAttr(ExecutionGroupOp::kSegmentWalkRole)}));
  Block *body = b.createBlock(&walker.getBody());
  Value self = body->addArgument(index, loc);
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0), c1 = arith::ConstantIndexOp::create(b, loc, 1);
  auto members_ = ForOp::create(b, loc, TypeRange{index}, c0, members, c1, ValueRange{c0});
  Block *memberBody = b.createBlock(&members_.getBody());
  Value member = memberBody->addArgument(index, loc), base = memberBody->addArgument(index, loc);
  if (outer == 1) {
    map.map(old.getArgument(0), member);
  } else {
    auto decoded = DelinearizeOp::create(b, loc, SmallVector<Type>(outer, index), member, group.getExtents());
    map.map(old.getArguments(), decoded.getResults());
  }
  laneOk.assign(numAxes, Value());
  ForeachOp segment = chain.front();
  for (Operation &op : llvm::make_range(old.begin(), Block::iterator(segment)))
    (void)cloneOp(op);
  Value lo = map.lookupOrDefault(segment.getLower()), hi = map.lookupOrDefault(segment.getUpper());
  Value extent = bin(kir::BinaryKind::Max, isZeroConstant(lo) ? hi : bin(kir::BinaryKind::Sub, hi, lo), c0);
  // ceil(extent / TILE) as body arithmetic (pgpu.ceil_div is LaunchExpr language; this is data).
  Value tile = ParamOp::create(b, loc, index, paramOf[outer]);
  Value tm = bin(kir::BinaryKind::Div, bin(kir::BinaryKind::Sub, bin(kir::BinaryKind::Add, extent, tile), c1), tile);
  Value count = tm;
  for (Value t : later)
    count = bin(kir::BinaryKind::Mul, count, t);
  // Tile base + t belongs to program (base + t) mod programs: this program's first t.
  Value start = bin(kir::BinaryKind::Rem,
                    bin(kir::BinaryKind::Sub, bin(kir::BinaryKind::Add, self, programs),
                        bin(kir::BinaryKind::Rem, base, programs)),
                    programs);
  auto tilesLoop = ForOp::create(b, loc, TypeRange{}, start, count, programs, ValueRange{});
  Block *tileBody = b.createBlock(&tilesLoop.getBody());
  Value linear = tileBody->addArgument(index, loc);
  SmallVector<Value> coords;
  if (later.size() == 1 && (blocked & bit(outer + 1))) {
    groupParam = "GROUP_" + std::to_string(outer);
    coords = groupedCoords(loc, linear, tm, later[0]);
  } else if (later.empty()) {
    coords.push_back(linear);
  } else {
    SmallVector<Value> extents{tm};
    llvm::append_range(extents, later);
    auto decoded = DelinearizeOp::create(b, loc, SmallVector<Type>(extents.size(), index), linear, extents);
    llvm::append_range(coords, decoded.getResults());
  }
  for (auto [i, each] : llvm::enumerate(chain)) {
    unsigned a = outer + i;
    Value first = coords[i];
    if (blocked & bit(a))
      first = bin(kir::BinaryKind::Mul, first, ParamOp::create(b, loc, index, paramOf[a]));
    Value lower = map.lookupOrDefault(each.getLower());
    if (!isZeroConstant(lower))
      first = bin(kir::BinaryKind::Add, first, lower);
    if (blocked & bit(a))
      bindAxis(a, first, map.lookupOrDefault(each.getUpper()), each.getBody().getArgument(0));
    else
      map.map(each.getBody().getArgument(0), first);
  }
  for (unsigned i = 1; i < chain.size(); ++i)
    for (Operation &op : llvm::make_range(chain[i - 1].getBody().front().begin(), Block::iterator(chain[i])))
      (void)cloneOp(op);
  for (Operation &op : programBody->without_terminator())
    (void)cloneOp(op);
  YieldOp::create(b, loc);
  b.setInsertionPointAfter(tilesLoop);
  YieldOp::create(b, loc, ValueRange{bin(kir::BinaryKind::Add, base, count)});
  b.setInsertionPointAfter(members_);
  YieldOp::create(b, loc);
  group.erase();
  declareParams();
}

Value Tiler::launchBound(Value v, bool above, unsigned depth) {
  if (!v.getType().isIndex() || depth > 8)
    return {};
  if (launchTime(v))
    return v;
  auto op = v.getDefiningOp<BinaryOp>();
  if (!op)
    return {};
  Location loc = op.getLoc();
  auto bin = [&](kir::BinaryKind kind, Value x, Value y) -> Value {
    return BinaryOp::create(b, loc, kind, x, y, false, false);
  };
  Value x = op.getLhs(), y = op.getRhs();
  switch (op.getKind()) {
  case kir::BinaryKind::Min:
  case kir::BinaryKind::Max: {
    // An upper bound of min (a lower bound of max) needs one operand's; the other direction both.
    bool either = (op.getKind() == kir::BinaryKind::Min) == above;
    Value bx = launchBound(x, above, depth + 1), by = launchBound(y, above, depth + 1);
    if (bx && by)
      return bin(op.getKind(), bx, by);
    return either ? (bx ? bx : by) : Value();
  }
  case kir::BinaryKind::Add:
  case kir::BinaryKind::Sub: {
    bool add = op.getKind() == kir::BinaryKind::Add;
    Value bx = launchBound(x, above, depth + 1);
    Value by = bx ? launchBound(y, add ? above : !above, depth + 1) : Value();
    return by ? bin(op.getKind(), bx, by) : Value();
  }
  default:
    return {};
  }
}

/// An author loop of the program body (analyzeLoop) over tiles: the same trips, each carry a tile over
/// the blocked axes it depends on (its initial value broadcast there), each trip's ops tiled in order
/// (a contraction a K loop of tile products from its identity, its pointwise uses on the tiles).
void Tiler::tileLoop(ForOp op) {
  Location loc = op.getLoc();
  SmallVector<Value> inits;
  for (auto [init, result] : llvm::zip(op.getInits(), op.getResults()))
    inits.push_back(mapped(loc, init, blockedMask(result)));
  auto loop = ForOp::create(b, loc, TypeRange(ValueRange(inits)), map.lookupOrDefault(op.getLower()),
                            map.lookupOrDefault(op.getUpper()), map.lookupOrDefault(op.getStep()), inits);
  {
    OpBuilder::InsertionGuard guard(b);
    Block &old = op.getBody().front();
    Block *body = b.createBlock(&loop.getBody());
    map.map(old.getArgument(0), body->addArgument(b.getIndexType(), loc));
    for (auto [arg, init] : llvm::zip(old.getArguments().drop_front(), inits))
      map.map(arg, body->addArgument(init.getType(), loc));
    for (Operation &inner : old.without_terminator())
      (void)cloneOp(inner);
    SmallVector<Value> next;
    for (auto [y, result] : llvm::zip(old.getTerminator()->getOperands(), op.getResults()))
      next.push_back(mapped(loc, y, blockedMask(result)));
    YieldOp::create(b, loc, next);
  }
  map.map(op.getResults(), loop.getResults());
}

/// Declares the parameters (seed 002 §3.3: fragment extents are declared physical parameters).
void Tiler::declareParams() {
  MLIRContext *ctx = kernel.getContext();
  SmallVector<Attribute> params;
  if (auto existing = kernel.getParams())
    params.assign(existing->begin(), existing->end());
  llvm::StringSet<> declared;
  for (unsigned a = 0; a < numAxes; ++a) {
    if (!(blocked & bit(a)) || !declared.insert(paramOf[a]).second || kernel.getParam(paramOf[a]))
      continue;
    // Tensor-core operand tiles are at least 16 on each side (target capability, sm_80+).
    bool loop = paramOf[a] == kTileK;
    SmallVector<int64_t> candidates = loop || coalescing ? SmallVector<int64_t>{16, 32, 64, 128}
                                                         : SmallVector<int64_t>{16, 32, 64, 128, 256};
    int64_t preferred = loop || coalescing ? 64 : 128;
    if (rowTiles) {
      // [TILE_r, TILE_w] row tiles: TILE_w covers the contiguous axis's extent where it is a named view
      // extent [0, S) (a call's default then holds a short row, W = 56, in one 64-lane run); 8 rows by
      // default, fewer where the row axis is shorter (the call's tile-fill rule, `<kernel>_SIZES`): 8
      // divides the planes of 7 * 2^k rows (56, 112) a network's feature maps have, where 16 left an
      // eighth of a 56-row plane's tile rows masked.
      bool contiguous = a == llvm::Log2_32(programAxes); // the innermost program axis (reductions add axes)
      StringAttr covers = contiguous ? rowCovers : StringAttr();
      params.push_back(contiguous ? ParamAttr::get(ctx, StringAttr::get(ctx, paramOf[a]),
                                                   {kRowTileMinWidth, 32, 64, 128, 256}, 64,
                                                   StringAttr(), covers)
                                  : ParamAttr::get(ctx, StringAttr::get(ctx, paramOf[a]), {1, 2, 4, 8, 16, 32}, 8,
                                                   StringAttr()));
      continue;
    }
    if (auto slice = sliceAxes.find(a); slice != sliceAxes.end()) {
      // One block covering an author loop trip's slice of constant width w (analyzeLoop): the one
      // candidate is the power of two covering w (32 at least: tl.dot's K for 8-bit operands), which
      // `covers` states so no provider narrows it below w.
      int64_t block = std::max<int64_t>(32, int64_t(llvm::PowerOf2Ceil(uint64_t(slice->second))));
      params.push_back(ParamAttr::get(ctx, StringAttr::get(ctx, paramOf[a]), {block}, block, StringAttr(),
                                      StringAttr::get(ctx, std::to_string(slice->second))));
      continue;
    }
    if (auto nest = nestAxes.find(a); nest != nestAxes.end()) {
      // The reduced axis of a contraction over a nested one's tile (checkNests): blocks up to the
      // first power of two covering a constant extent, 64 by default otherwise.
      candidates.clear();
      for (int64_t t = 16; t <= 128; t *= 2)
        if (nest->second < 0 || t / 2 < nest->second || t == 16)
          candidates.push_back(t);
      preferred = nest->second < 0 ? 64 : candidates.back() > 64 ? 64 : candidates.back();
    }
    params.push_back(ParamAttr::get(ctx, StringAttr::get(ctx, paramOf[a]), candidates, preferred, StringAttr()));
  }
  if (!groupParam.empty() && !kernel.getParam(groupParam))
    params.push_back(ParamAttr::get(ctx, StringAttr::get(ctx, groupParam), {1, 2, 4, 8, 16}, 8, StringAttr()));
  if (persistent && !kernel.getParam(kPersist))
    params.push_back(ParamAttr::get(ctx, StringAttr::get(ctx, kPersist), {1, 2, 4}, 1, StringAttr()));
  kernel.setParamsAttr(ArrayAttr::get(ctx, params));
}

} // namespace tessel::pgpu::formtiles
