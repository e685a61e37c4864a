//===- ScanCarries.cpp - a loop carry computed from a scan, on blocks of lanes ===//
//
// seed 000 §5 (ordered loops with carries), §8 (scan: associative combine,
// member order kept), seed 002 §3.3 (blocking keeps the ordered axis and
// blocks the free one). A kir.for carrying a tensor computed from a kir.scan
// of its body (a summed-area table's row loop, `acc = acc + T.cumsum(x[n, i,
// cols])`) is not elementwise along the carried axis: each trip's next carry
// needs the whole line of the scan. Position by position (CarriedTensors.cpp)
// cannot build it, and the stored-scan form (ScanValues.cpp) keeps only the
// running prefix between its blocks. Here the carried axis D is a block of
// BLOCK_<D> lanes (one fragment each carried tensor), the loop an ordered
// pgpu.for around the body's values as fragments, each kir.scan a fragment
// pgpu.scan of the lanes (a scan before the loop is scanned again where the
// body reads it, once per trip):
//
//   * under one uniform guard `size(D) <= BLOCK_<D>` per launch (the
//     precedent of FoldWorkset.cpp) the line is one block: the loop runs once,
//     the scans start from their identities;
//   * otherwise the program walks D's blocks one after the other, the whole
//     loop per block, and each trip's scan of a block starts from the combine
//     of the same trip's scan inputs before the block (after it, reversed):
//     those blocks scanned again in order, their last prefix carried (the
//     blocked scan's carry, recomputed per trip). Correct for any extent, at
//     (blocks before)/2 more scan work a block.
//
// Lanes past size(D) read nothing, write nothing, and enter the scans as the
// identity (neutral on both sides, seed 000 §8), so they never reach a valid
// lane's prefix whichever the direction.
//
// What a block of lanes holds: loads and stores over D (other coordinates
// scalars), broadcasts of scalars over D, pointwise ops, scans along D, and
// scalar statements (computed as usual, once per trip). A scan's inputs may
// not depend on the loop's carries (the walk over the blocks before would need
// their carries too); anything else is refused at the op.
//
//===----------------------------------------------------------------------===//

#include "KernelConstructor.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::construct;

/// BLOCK_<D>'s candidates: form-blocking's row blocks (a row held in registers up to 16384 lanes).
static constexpr int64_t kLaneCandidates[] = {64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384};
static constexpr int64_t kLaneDefault = 512;

/// A block of lanes of the carried domain and the KIR values built on it.
struct KernelConstructor::LaneBlock {
  StringAttr param;
  Value domain;    // the carried kir domain
  DomainVals line; // its members
  Value base;      // the block's first position
  Value lanes;     // positions base + [0, BLOCK)
  Value valid;   // lanes < size(D)
  Value members; // lo + lanes * step: the domain's members at the lanes
  DenseMap<Value, Value> values;
  /// The carry entering each scan's scan of this block (none: the identities).
  DenseMap<Operation *, SmallVector<Value>> scanCarries;
  bool whole = false; // the block is the whole line
};

bool KernelConstructor::carriesScan(kir::ForOp f) {
  return llvm::any_of(f.getBody().front().getTerminator()->getOperands(),
                      [&](Value y) { return isa<RankedTensorType>(y.getType()) && reachesScan(y); });
}

/// The one domain the loop's tensors range over (its loads', stores' and broadcasts' domain
/// coordinates), or an error at the first op over another.
static FailureOr<Value> carriedDomain(kir::ForOp f) {
  Value domain;
  Operation *bad = nullptr;
  auto note = [&](Value d, Operation *op) {
    if (!domain)
      domain = d;
    else if (d != domain && !bad)
      bad = op;
  };
  f->walk([&](Operation *op) {
    if (auto l = dyn_cast<kir::LoadOp>(op)) {
      for (Value c : l.getCoords())
        if (isa<kir::DomainType>(c.getType()))
          note(c, op);
    } else if (auto s = dyn_cast<kir::StoreOp>(op)) {
      for (Value c : s.getCoords())
        if (isa<kir::DomainType>(c.getType()))
          note(c, op);
    } else if (auto br = dyn_cast<kir::BroadcastOp>(op)) {
      for (Value d : br.getDomains())
        note(d, op);
    }
  });
  for (Value init : f.getInits())
    if (auto br = init.getDefiningOp<kir::BroadcastOp>())
      for (Value d : br.getDomains())
        note(d, br);
  if (bad)
    return bad->emitError() << "kir-to-pgpu: a loop carrying a scan's results is constructed on blocks of one "
                               "domain's lanes; this op ranges over another domain";
  if (!domain)
    return f.emitError() << "kir-to-pgpu: a loop carrying a scan's results needs the domain its tensors range over "
                            "(a load, store or broadcast over it)";
  return domain;
}

LogicalResult KernelConstructor::emitScanCarries(kir::ForOp f) {
  Location loc = f.getLoc();
  Block &body = f.getBody().front();
  if (llvm::any_of(f.getResults(), [](Value r) { return !r.use_empty(); }))
    return f.emitError() << "kir-to-pgpu: a loop carrying a scan's results is constructed when its results are not "
                            "used after it (store the last carry inside the loop)";
  for (Value init : f.getInits())
    if (auto t = dyn_cast<RankedTensorType>(init.getType()); t && t.getRank() != 1)
      return f.emitError() << "kir-to-pgpu: a loop carrying a scan's results is constructed for carries over one "
                              "axis (the scan's)";
  // Scan inputs independent of the loop's carries: a block's scan then starts from the scan of the
  // blocks before it in the same trip, which the carries of those blocks would otherwise feed.
  // (Scalar carries are the same on every block: they never read a tensor, the body has no reductions.)
  DenseSet<Value> carried;
  for (BlockArgument a : body.getArguments().drop_front())
    if (isa<RankedTensorType>(a.getType()))
      carried.insert(a);
  for (Operation &op : body.without_terminator()) {
    if (llvm::any_of(op.getOperands(), [&](Value v) { return carried.contains(v); }))
      for (Value r : op.getResults())
        carried.insert(r);
    if (auto scan = dyn_cast<kir::ScanOp>(op)) {
      if (llvm::any_of(scan.getInputs(), [&](Value v) { return carried.contains(v); }))
        return scan.emitError() << "kir-to-pgpu: a loop carrying a scan's results is constructed when the scan's "
                                   "inputs do not depend on the loop's carries (a scan of the carried line is "
                                   "not constructed)";
      if (cast<RankedTensorType>(scan.getResult(0).getType()).getRank() != 1)
        return scan.emitError() << "kir-to-pgpu: a loop carrying a scan's results is constructed for scans of "
                                   "one axis";
    } else if (op.getNumRegions()) {
      return op.emitError() << "kir-to-pgpu: a loop carrying a scan's results is constructed without nested "
                               "regions in its body (other than the scans')";
    }
  }
  FailureOr<Value> domain = carriedDomain(f);
  if (failed(domain))
    return failure();
  auto dv = domains.find(*domain);
  if (dv == domains.end())
    return f.emitError() << "kir-to-pgpu: the carried domain is not defined here";
  const DomainVals d = dv->second;

  // BLOCK_<X> for a domain [0, X): the call's default covers X's size (a line in one block).
  std::string name = "BLOCK_SCAN";
  StringAttr covers;
  if (auto dom = domain->getDefiningOp<kir::DomainOp>())
    if (auto e = dom.getUpper().getDefiningOp<kir::ExtentOp>()) {
      name = "BLOCK_" + e.getName().str();
      if (matchPattern(dom.getLower(), m_Zero()))
        covers = b.getStringAttr(e.getName());
    }
  while (name == "BLOCK" || name == "BLOCK_P" || (physical.getParam(name) && !physical.getParam(name).getCovers()))
    name += "_";
  if (!physical.getParam(name)) {
    SmallVector<Attribute> params;
    if (auto existing = physical.getParams())
      params.assign(existing->begin(), existing->end());
    params.push_back(pgpu::ParamAttr::get(b.getContext(), b.getStringAttr(name), kLaneCandidates, kLaneDefault,
                                          StringAttr(), covers));
    physical.setParamsAttr(b.getArrayAttr(params));
  }
  StringAttr param = b.getStringAttr(name);
  Value width = pgpu::ParamOp::create(b, loc, b.getIndexType(), param);

  Value fits = pgpu::CmpOp::create(b, loc, kir::CmpPredicate::LE, d.size, width);
  auto guard = pgpu::IfOp::create(b, loc, TypeRange(), fits);
  OpBuilder::InsertionGuard g(b);
  b.createBlock(&guard.getThenRegion());
  {
    LaneBlock line = laneBlock(loc, param, constIndex(loc, 0), d);
    line.domain = *domain;
    line.whole = true;
    if (failed(scanCarriedLoop(f, line)))
      return failure();
  }
  pgpu::YieldOp::create(b, loc);
  b.createBlock(&guard.getElseRegion());
  {
    // The line's blocks in order, the whole loop per block.
    Value blocks = pgpu::CeilDivOp::create(b, loc, d.size, width);
    CountedLoop walk = countedLoop(loc, blocks, ValueRange());
    Value k = walk.trip;
    LaneBlock part = laneBlock(loc, param, binary(loc, kir::BinaryKind::Mul, k, width), d);
    part.domain = *domain;
    if (failed(scanCarriedLoop(f, part)))
      return failure();
    pgpu::YieldOp::create(b, loc);
    b.setInsertionPointAfter(walk.loop);
  }
  pgpu::YieldOp::create(b, loc);
  return success();
}

KernelConstructor::LaneBlock KernelConstructor::laneBlock(Location loc, StringAttr param, Value base,
                                                          const DomainVals &d) {
  LaneBlock blk;
  blk.param = param;
  blk.line = d;
  blk.base = base;
  auto type = pgpu::FragmentType::get(b.getContext(), b.getIndexType(), {param});
  blk.lanes = pgpu::IotaOp::create(b, loc, type, base);
  blk.valid = pgpu::CmpOp::create(b, loc, kir::CmpPredicate::LT, blk.lanes, pgpu::SplatOp::create(b, loc, type, d.size));
  Value scaled = binary(loc, kir::BinaryKind::Mul, blk.lanes, pgpu::SplatOp::create(b, loc, type, d.step));
  blk.members = binary(loc, kir::BinaryKind::Add, scaled, pgpu::SplatOp::create(b, loc, type, d.lo));
  return blk;
}

/// `v` (a realized scalar or a fragment of the block) as a fragment of the block.
Value KernelConstructor::onLanes(Location loc, LaneBlock &blk, Value v) {
  if (isa<pgpu::FragmentType>(v.getType()))
    return v;
  return pgpu::SplatOp::create(b, loc, pgpu::FragmentType::get(b.getContext(), v.getType(), {blk.param}), v);
}

/// The view coordinates of a load or store on the block: the carried domain at its members, scalars
/// splat over the lanes.
FailureOr<SmallVector<Value>> KernelConstructor::laneCoords(Operation *access, ValueRange coords, LaneBlock &blk) {
  SmallVector<Value> out;
  for (Value c : coords) {
    if (isa<kir::DomainType>(c.getType())) {
      if (c != blk.domain)
        return access->emitError() << "kir-to-pgpu: a loop carrying a scan's results is constructed on blocks of "
                                      "one domain's lanes; this access ranges over another domain";
      out.push_back(blk.members);
      continue;
    }
    if (isa<RankedTensorType>(c.getType()))
      return access->emitError() << "kir-to-pgpu: a loop carrying a scan's results reads and writes at the carried "
                                    "domain's members and scalar coordinates; an index tensor coordinate is not "
                                    "constructed there";
    FailureOr<Value> s = scalar(c);
    if (failed(s))
      return failure();
    out.push_back(onLanes(access->getLoc(), blk, *s));
  }
  return out;
}

/// The validity of an access on the block: the lane's, and the access's own mask where it has one.
FailureOr<Value> KernelConstructor::laneValidity(Location loc, Value mask, LaneBlock &blk) {
  if (!mask)
    return blk.valid;
  FailureOr<Value> m = laneValue(mask, blk);
  if (failed(m))
    return failure();
  return binary(loc, kir::BinaryKind::And, blk.valid, onLanes(loc, blk, *m));
}

FailureOr<Value> KernelConstructor::laneValue(Value v, LaneBlock &blk) {
  v = resolve(v);
  if (!isa<RankedTensorType>(v.getType()))
    return scalar(v);
  if (Value known = blk.values.lookup(v))
    return known;
  Operation *def = v.getDefiningOp();
  if (!def)
    return emitError(v.getLoc()) << "kir-to-pgpu: a loop carrying a scan's results reads this tensor on a block of "
                                    "lanes, where it is not bound";
  Location loc = def->getLoc();
  auto fragment = [&](Type element) { return pgpu::FragmentType::get(b.getContext(), element, {blk.param}); };
  Value out;
  if (auto l = dyn_cast<kir::LoadOp>(def)) {
    FailureOr<SmallVector<Value>> coords = laneCoords(def, l.getCoords(), blk);
    if (failed(coords))
      return failure();
    FailureOr<Value> ok = laneValidity(loc, l.getValid(), blk);
    if (failed(ok))
      return failure();
    Type element = getElementTypeOrSelf(v.getType());
    Value fill = zeroOf(loc, element);
    if (l.getFill()) {
      FailureOr<Value> f = scalar(l.getFill());
      if (failed(f))
        return failure();
      fill = *f;
    }
    Value view = physical.getBody().getArgument(cast<BlockArgument>(l.getView()).getArgNumber());
    out = pgpu::LoadOp::create(b, loc, fragment(element), view, *coords, *ok, fill);
  } else if (auto br = dyn_cast<kir::BroadcastOp>(def);
             br && !isa<RankedTensorType>(br.getOperand().getType()) &&
             llvm::equal(br.getDomains(), ArrayRef<Value>{blk.domain})) {
    FailureOr<Value> s = scalar(br.getOperand());
    if (failed(s))
      return failure();
    out = onLanes(loc, blk, *s);
  } else if (pointwiseOp(def)) {
    SmallVector<Value> operands;
    for (Value o : def->getOperands()) {
      FailureOr<Value> x = laneValue(o, blk);
      if (failed(x))
        return failure();
      operands.push_back(onLanes(loc, blk, *x));
    }
    FailureOr<Value> r = convertPointwise(def, operands);
    if (failed(r))
      return failure();
    out = *r;
  } else if (auto scan = dyn_cast<kir::ScanOp>(def)) {
    if (failed(laneScan(scan, blk)))
      return failure();
    return blk.values.lookup(v);
  } else {
    return def->emitError() << "kir-to-pgpu: a loop carrying a scan's results is constructed on blocks of lanes "
                               "from loads, stores, broadcasts of scalars, pointwise ops and scans; '"
                            << def->getName() << "' is not constructed there";
  }
  blk.values[v] = out;
  return out;
}

/// The scan's inputs on the block, lanes past the line the identity.
FailureOr<SmallVector<Value>> KernelConstructor::scanInputs(kir::ScanOp scan, LaneBlock &blk) {
  Location loc = scan.getLoc();
  SmallVector<Value> xs;
  for (auto [input, id] : llvm::zip(scan.getInputs(), scan.getIdentities())) {
    FailureOr<Value> x = laneValue(input, blk);
    FailureOr<Value> identity = scalar(id);
    if (failed(x) || failed(identity))
      return failure();
    xs.push_back(pgpu::SelectOp::create(b, loc, blk.valid, onLanes(loc, blk, *x), onLanes(loc, blk, *identity)));
  }
  return xs;
}

pgpu::ScanOp KernelConstructor::fragmentScan(kir::ScanOp scan, ValueRange xs, ValueRange identities, ValueRange carry,
                                             bool exclusive) {
  Location loc = scan.getLoc();
  auto phys = pgpu::ScanOp::create(b, loc, ValueRange(xs).getTypes(), xs, b.getI64IntegerAttr(0), identities, carry,
                                   exclusive ? b.getUnitAttr() : UnitAttr(),
                                   scan.getReverse() ? b.getUnitAttr() : UnitAttr());
  if (failed(convertCombineRegion(scan.getCombine(), phys.getCombine(), ValueRange(identities).getTypes())))
    return {};
  return phys;
}

LogicalResult KernelConstructor::laneScan(kir::ScanOp scan, LaneBlock &blk) {
  Location loc = scan.getLoc();
  FailureOr<SmallVector<Value>> identities = scalars(scan.getIdentities());
  if (failed(identities))
    return failure();
  SmallVector<Value> carry(*identities);
  if (!blk.whole) {
    // The combine of this trip's scan inputs on the blocks before this one (after it, reversed): each
    // scanned in order from the running carry, its last prefix (its first, reversed) carried on.
    bool reverse = scan.getReverse();
    Value width = pgpu::ParamOp::create(b, loc, b.getIndexType(), blk.param);
    Value own = binary(loc, kir::BinaryKind::Div, blk.base, width);
    Value blocks = pgpu::CeilDivOp::create(b, loc, blk.line.size, width);
    Value lastBlock = binary(loc, kir::BinaryKind::Sub, blocks, constIndex(loc, 1));
    Value count = reverse ? binary(loc, kir::BinaryKind::Sub, lastBlock, own) : own;
    Value lastLane = reverse ? constIndex(loc, 0) : binary(loc, kir::BinaryKind::Sub, width, constIndex(loc, 1));
    pgpu::ForOp walk;
    {
      OpBuilder::InsertionGuard g(b);
      auto [made, j, running] = countedLoop(loc, count, carry);
      walk = made;
      Value index = reverse ? binary(loc, kir::BinaryKind::Sub, lastBlock, j) : j;
      LaneBlock other = laneBlock(loc, blk.param, binary(loc, kir::BinaryKind::Mul, index, width), blk.line);
      other.domain = blk.domain;
      FailureOr<SmallVector<Value>> xs = scanInputs(scan, other);
      if (failed(xs))
        return failure();
      pgpu::ScanOp prefix = fragmentScan(scan, *xs, *identities, running, /*exclusive=*/false);
      if (!prefix)
        return failure();
      SmallVector<Value> next;
      for (auto [p, id] : llvm::zip(prefix.getResults(), *identities))
        next.push_back(pgpu::ExtractOp::create(b, loc, id.getType(), p, ValueRange{lastLane}));
      pgpu::YieldOp::create(b, loc, next);
    }
    carry.assign(walk.getResults().begin(), walk.getResults().end());
  }
  // An exclusive scan is the inclusive scan of the members shifted by one in scan order, the block's
  // first lane (its last, reversed) the identity: the carry already holds everything before the block
  // (a fragment scan is spelled inclusive, as form-blocking's blocked scans are).
  LaneBlock shifted;
  LaneBlock *at = &blk;
  if (scan.getExclusive()) {
    bool reverse = scan.getReverse();
    Value one = constIndex(loc, 1);
    shifted = laneBlock(loc, blk.param,
                        binary(loc, reverse ? kir::BinaryKind::Add : kir::BinaryKind::Sub, blk.base, one), blk.line);
    shifted.domain = blk.domain;
    auto type = cast<pgpu::FragmentType>(blk.lanes.getType());
    Value inBlock;
    if (reverse) {
      Value last = binary(loc, kir::BinaryKind::Sub,
                          binary(loc, kir::BinaryKind::Add, blk.base,
                                 pgpu::ParamOp::create(b, loc, b.getIndexType(), blk.param)),
                          one);
      inBlock = pgpu::CmpOp::create(b, loc, kir::CmpPredicate::LT, blk.lanes, pgpu::SplatOp::create(b, loc, type, last));
      Value below = binary(loc, kir::BinaryKind::Sub, blk.line.size, one);
      inBlock = binary(loc, kir::BinaryKind::And, inBlock,
                       pgpu::CmpOp::create(b, loc, kir::CmpPredicate::LT, blk.lanes,
                                           pgpu::SplatOp::create(b, loc, type, below)));
    } else {
      inBlock = binary(loc, kir::BinaryKind::And, blk.valid,
                       pgpu::CmpOp::create(b, loc, kir::CmpPredicate::GT, blk.lanes,
                                           pgpu::SplatOp::create(b, loc, type, blk.base)));
    }
    shifted.valid = inBlock;
    at = &shifted;
  }
  FailureOr<SmallVector<Value>> xs = scanInputs(scan, *at);
  if (failed(xs))
    return failure();
  pgpu::ScanOp phys = fragmentScan(scan, *xs, *identities, carry, /*exclusive=*/false);
  if (!phys)
    return failure();
  for (auto [r, p] : llvm::zip(scan.getResults(), phys.getResults()))
    blk.values[r] = p;
  return success();
}

/// The loop on block `blk`: an ordered pgpu.for over the loop's domain carrying the block's fragments
/// (and the scalar carries), the body's scalar statements as usual, its tensors on the block.
LogicalResult KernelConstructor::scanCarriedLoop(kir::ForOp f, LaneBlock &blk) {
  Location loc = f.getLoc();
  Block &body = f.getBody().front();
  SmallVector<Value> inits;
  for (Value init : f.getInits()) {
    FailureOr<Value> v = laneValue(init, blk);
    if (failed(v))
      return failure();
    inits.push_back(isa<RankedTensorType>(init.getType()) ? onLanes(loc, blk, *v) : *v);
  }
  DomainVals trips = domains.lookup(f.getDomain());
  OpBuilder::InsertionGuard g(b);
  auto [loop, i, carries] = countedLoop(loc, trips.size, inits);
  map.map(body.getArgument(0), member(loc, trips, i));
  for (auto [arg, c] : llvm::zip(body.getArguments().drop_front(), carries)) {
    if (isa<RankedTensorType>(arg.getType()))
      blk.values[arg] = c;
    else
      map.map(arg, c);
  }
  for (Operation &op : body.without_terminator()) {
    if (auto s = dyn_cast<kir::StoreOp>(op); s && isa<RankedTensorType>(s.getValue().getType())) {
      FailureOr<Value> value = laneValue(s.getValue(), blk);
      if (failed(value))
        return failure();
      FailureOr<SmallVector<Value>> coords = laneCoords(&op, s.getCoords(), blk);
      if (failed(coords))
        return failure();
      FailureOr<Value> ok = laneValidity(s.getLoc(), s.getValid(), blk);
      if (failed(ok))
        return failure();
      Value view = physical.getBody().getArgument(cast<BlockArgument>(s.getView()).getArgNumber());
      if (failed(emitWrite(op, onLanes(s.getLoc(), blk, *value), view, *coords, *ok)))
        return failure();
      continue;
    }
    if (!isMemoryEffectFree(&op) && !isa<kir::LoadOp, kir::ScanOp>(op))
      return op.emitError() << "kir-to-pgpu: a loop carrying a scan's results writes tensors over the carried domain "
                               "(kir.store); this write is not constructed there";
    if (llvm::any_of(op.getResultTypes(), [](Type t) { return isa<RankedTensorType>(t); }))
      continue; // built on the block where used
    if (failed(emitStatement(op)))
      return failure();
  }
  SmallVector<Value> next;
  for (Value y : body.getTerminator()->getOperands()) {
    FailureOr<Value> v = laneValue(y, blk);
    if (failed(v))
      return failure();
    next.push_back(isa<RankedTensorType>(y.getType()) ? onLanes(loc, blk, *v) : *v);
  }
  pgpu::YieldOp::create(b, loc, next);
  return success();
}
