//===- ScanValues.cpp - scans realized where values computed from them are stored ===//
//
// seed 000 §8 (scan: associative combine, member order kept, inclusive or
// exclusive, direction), seed 002 §4 (a structured op keeps its contract so
// blocking may regroup it). A kir.scan has no storage of its own: it is
// realized by each write of a value computed from its results by pointwise
// ops (`y[..] = T.cumsum(x) * w`, the state of a linear recurrence scaled and
// shifted before its store). Such a write becomes loops over the lines (the
// other axes) holding one pgpu.range_scan along the scan axis; its emit region
// receives the prefix at each position and computes the written value there,
// in place, from the prefix and whatever else the value reads, then writes it.
// Blocking turns the range scan into a fragment scan with a carry and clones
// the emit region per block, so the consumers run on each block of prefixes as
// it is formed. Several scans combined in one written value (a running sum
// divided by a running count) are one range scan of all their components when
// they scan the same axis of the same extents in the same mode and direction.
//
// A reduction over another axis of a scan's result on the way to the store
// (a Mamba-style readout `T.sum(C * h, axis=1)` of an [T, N] recurrence)
// needs the N lines of the scan at once: when that axis has a static extent
// (at most kMaxScanComponents components in all), its lines are components of
// the one range scan (the element region yields each line's members, the emit
// region reduces over the lines' prefixes, unrolled), so the readout is
// computed per block of prefixes like any pointwise consumer.
//
// Refused at the user, with a note at the scan: any other use of a scan's
// results (a reduction along the scan axis needs the whole line before its
// first element; control flow, index uses). A loop carry computed from a scan
// is a loop on blocks of lanes (ScanCarries.cpp). Refused at the reduction:
// one over an axis whose extent is not static.
//
//===----------------------------------------------------------------------===//

#include "KernelConstructor.h"

#include "mlir/IR/Matchers.h"

#include <set>

using namespace mlir;
using namespace tessel;
using namespace tessel::construct;

/// What the user wrote for a KIR op, in DSL words (a sum is a kir.contract when it multiplies two
/// values first).
static std::string userConstruct(Operation *op) {
  if (auto r = dyn_cast<kir::ReduceOp>(op))
    return "a reduction (T.sum, T.max, T.reduce, ...)";
  if (auto a = dyn_cast<kir::ArgReduceOp>(op))
    return a.getKind() == kir::ArgReduceKind::ArgMax ? "T.argmax" : "T.argmin";
  if (isa<kir::ContractOp>(op))
    return "a sum of products (T.sum(x * y), T.contract, T.matmul)";
  if (isa<kir::GatherOp>(op))
    return "a gather";
  return "'" + op->getName().getStringRef().str() + "'";
}

static bool isWrite(Operation *op) {
  return isa<kir::StoreOp, kir::ScatterOp, kir::ScatterReduceOp, kir::BufferStoreOp>(op);
}

/// Components one range scan may hold (scan components times lines): each is a fragment of BLOCK
/// lanes live across the block's scan, so their number bounds the registers a block needs.
static constexpr int64_t kMaxScanComponents = 64;

LogicalResult KernelConstructor::checkScanUses(kir::ScanOp scan) {
  // Values computed from the scan's results, with the axis the scan's axis is at in each.
  SmallVector<std::pair<Value, int64_t>> worklist;
  DenseSet<Value> seen;
  for (Value r : scan->getResults()) {
    worklist.push_back({r, scan.getAxis()});
    seen.insert(r);
  }
  while (!worklist.empty()) {
    auto [v, axis] = worklist.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (isWrite(user) && use.getOperandNumber() == 0)
        continue;
      // A write's coordinates and validity (a rank from an exclusive cumsum as a scatter position,
      // corpus 246's counting sort): evaluated at each position of the write like its value, so the
      // write realizes the scan where the value would (scansOfStored walks them too).
      if (isa<kir::StoreOp, kir::ScatterOp, kir::ScatterReduceOp>(user) && use.getOperandNumber() >= 2)
        continue;
      // A gather's coordinate (the image row of each token, an exclusive cumsum of a mask: corpus
      // 264): the gathered value is computed from the scan, the scan's axis at the coordinate's axes.
      if (auto g = dyn_cast<kir::GatherOp>(user); g && isa<RankedTensorType>(v.getType())) {
        unsigned i = use.getOperandNumber() - g.getCoords().getBeginOperandIndex();
        if (use.getOperandNumber() >= g.getCoords().getBeginOperandIndex() && i < g.getCoords().size()) {
          int64_t first = kir::coordinateAxes(g, g.getCoords()).first[i];
          if (first >= 0 && seen.insert(g.getResult()).second)
            worklist.push_back({g.getResult(), first + axis});
          if (first >= 0)
            continue;
        }
      }
      if (pointwiseOp(user) && isa<RankedTensorType>(user->getResult(0).getType())) {
        if (seen.insert(user->getResult(0)).second)
          worklist.push_back({user->getResult(0), axis});
        continue;
      }
      // A reduction along the scan's axis of what the scan's results compute: one ordered walk carries
      // the scan and the reduction together (ScanReductions.cpp).
      if (isa<kir::ReduceOp, kir::ArgReduceOp, kir::ContractOp>(user) &&
          llvm::is_contained(scansWalkedBy(user), scan))
        continue;
      auto r = dyn_cast<kir::ReduceOp>(user);
      auto a = dyn_cast<kir::ArgReduceOp>(user);
      auto c = dyn_cast<kir::ContractOp>(user);
      bool alongScan = (r && llvm::is_contained(r.getAxes(), axis)) || (a && int64_t(a.getAxis()) == axis) ||
                       (c && (use.getOperandNumber() == 0 ? llvm::is_contained(c.getLhsReduce(), axis)
                                                          : llvm::is_contained(c.getRhsReduce(), axis)));
      if (r && !alongScan) {
        // Over other axes (their lines become components of the scan where the result is stored).
        int64_t below = llvm::count_if(r.getAxes(), [&](int64_t a) { return a < axis; });
        for (Value result : r.getResults())
          if (seen.insert(result).second)
            worklist.push_back({result, axis - below});
        continue;
      }
      // A kir.for's tensor carry computed from a scan (`acc = acc + T.cumsum(x[n, i, cols])`, a
      // summed-area table's row loop) is built on blocks of lanes (ScanCarries.cpp), never here.
      if (isa<kir::YieldOp>(user) && isa_and_nonnull<kir::ForOp>(user->getParentOp()))
        continue;
      InFlightDiagnostic diag = user->emitError();
      if (alongScan)
        diag << "kir-to-pgpu constructs a reduction along a scan's axis of its results (" << userConstruct(user)
             << ") as one ordered walk when it reduces that one axis of scans of lines (rank 1) in one "
                "direction, through pointwise ops and broadcasts; reduce what the scan combines instead, or "
                "store the scan";
      else
        diag << "kir-to-pgpu constructs a scan's results where values computed from them by pointwise ops (and "
                "reductions over other axes) are stored; "
             << userConstruct(user) << " uses them";
      diag.attachNote(scan.getLoc()) << "the scan";
      return failure();
    }
  }
  return success();
}

/// Whether `v` is computed from a kir.scan's results by pointwise ops and reductions (a walk over
/// KIR only: most stored values reach none, and nothing is built for them).
bool KernelConstructor::reachesScan(Value v) {
  SmallVector<Value> worklist{v};
  DenseSet<Value> seen;
  while (!worklist.empty()) {
    Value at = resolve(worklist.pop_back_val());
    if (!isa<RankedTensorType>(at.getType()) || !seen.insert(at).second)
      continue;
    Operation *def = at.getDefiningOp();
    if (isa_and_nonnull<kir::ScanOp>(def))
      return true;
    // A reduction along a scan's axis is walked with its scans (ScanReductions.cpp): a value here.
    if (def && (pointwiseOp(def) || (isa<kir::ReduceOp>(def) && scansWalkedBy(def).empty())))
      llvm::append_range(worklist, def->getOperands());
    if (auto g = dyn_cast_or_null<kir::GatherOp>(def))
      llvm::append_range(worklist, g.getCoords());
  }
  return false;
}

/// The tensors a write evaluates at each of its positions besides its value: its tensor coordinates
/// (a scatter's positions), each with the first of the write's axes it spans, and its validity.
static SmallVector<std::pair<Value, int64_t>> writeOperands(Operation &write) {
  SmallVector<std::pair<Value, int64_t>> out;
  ValueRange coords;
  Value valid;
  if (auto s = dyn_cast<kir::StoreOp>(write))
    coords = s.getCoords(), valid = s.getValid();
  else if (auto s = dyn_cast<kir::ScatterOp>(write))
    coords = s.getCoords(), valid = s.getValid();
  else if (auto s = dyn_cast<kir::ScatterReduceOp>(write))
    coords = s.getCoords(), valid = s.getValid();
  else
    return out;
  kir::CoordinateAxes axes = kir::coordinateAxes(&write, coords);
  for (auto [i, c] : llvm::enumerate(coords))
    if (isa<RankedTensorType>(c.getType()) && axes.first[i] >= 0)
      out.push_back({c, axes.first[i]});
  if (valid && isa<RankedTensorType>(valid.getType()))
    out.push_back({valid, 0});
  return out;
}

FailureOr<SmallVector<StoredScan>> KernelConstructor::scansOfStored(Operation &write) {
  SmallVector<StoredScan> scans;
  Value stored = resolve(write.getOperand(0));
  auto tensor = dyn_cast<RankedTensorType>(stored.getType());
  if (!tensor)
    return scans;
  SmallVector<std::pair<Value, int64_t>> operands = writeOperands(write);
  if (!reachesScan(stored) && llvm::none_of(operands, [&](auto &o) { return reachesScan(o.first); }))
    return scans;
  // A walk from the stored value towards the scans through pointwise ops and reductions, each value
  // with what its axes are (a stored axis, or a line of a reduction on the way) and the reductions
  // passed; (value, axes) pairs are visited once.
  struct Item {
    Value v;
    SmallVector<ScanAxis> axes;
    SmallVector<kir::ReduceOp> through;
  };
  SmallVector<Item> worklist(1);
  for (int64_t i = 0; i < tensor.getRank(); ++i)
    worklist[0].axes.push_back(ScanAxis{i, 0, nullptr});
  worklist[0].v = stored;
  for (auto [operand, first] : operands) {
    Item item{resolve(operand), {}, {}};
    for (int64_t i = 0, n = cast<RankedTensorType>(operand.getType()).getRank(); i < n; ++i)
      item.axes.push_back(ScanAxis{first + i, 0, nullptr});
    worklist.push_back(std::move(item));
  }
  std::set<std::pair<void *, SmallVector<int64_t>>> seen;
  SmallVector<kir::ReduceOp> lineReductions;
  while (!worklist.empty()) {
    Item item = worklist.pop_back_val();
    SmallVector<int64_t> key;
    for (ScanAxis a : item.axes)
      key.push_back(a.stored >= 0 ? a.stored : -1 - a.lines);
    if (!isa<RankedTensorType>(item.v.getType()) || !seen.insert({item.v.getAsOpaquePointer(), key}).second)
      continue;
    Operation *def = item.v.getDefiningOp();
    if (auto scan = dyn_cast_or_null<kir::ScanOp>(def)) {
      // Another result of a scan already met with the same axes (`mx + T.log(s)` of one tuple scan): the
      // scan's results are built together, nothing more to record.
      auto sameAxes = [&](const StoredScan &s) {
        return llvm::equal(s.axes, item.axes, [](const ScanAxis &a, const ScanAxis &b) {
          return a.stored == b.stored && a.lines == b.lines && a.reduction == b.reduction;
        });
      };
      if (llvm::any_of(scans, [&](const StoredScan &s) { return s.op == scan && sameAxes(s); }))
        continue;
      if (llvm::any_of(scans, [&](const StoredScan &s) { return s.op == scan; })) {
        InFlightDiagnostic diag = write.emitError() << "kir-to-pgpu constructs a stored value computed from a "
                                                       "scan's results through reductions over different axes";
        diag.attachNote(scan.getLoc()) << "the scan";
        return diag;
      }
      scans.push_back(StoredScan{scan, item.axes});
      llvm::append_range(lineReductions, item.through);
      continue;
    }
    if (def && pointwiseOp(def)) {
      for (Value operand : def->getOperands())
        worklist.push_back(Item{resolve(operand), item.axes, item.through});
      continue;
    }
    if (auto g = dyn_cast_or_null<kir::GatherOp>(def)) {
      // A gathered element's coordinates at its positions: each tensor coordinate sees its slice of
      // the gather's axes.
      kir::CoordinateAxes coordAxes = kir::coordinateAxes(g, g.getCoords());
      for (auto [i, c] : llvm::enumerate(g.getCoords())) {
        auto type = dyn_cast<RankedTensorType>(c.getType());
        if (!type || coordAxes.first[i] < 0)
          continue;
        Item next{resolve(c), {}, item.through};
        for (int64_t a = 0; a < type.getRank(); ++a)
          next.axes.push_back(item.axes[coordAxes.first[i] + a]);
        worklist.push_back(std::move(next));
      }
      continue;
    }
    auto reduce = dyn_cast_or_null<kir::ReduceOp>(def);
    if (!reduce || !scansWalkedBy(reduce).empty())
      continue;
    for (Value input : reduce.getInputs()) {
      FailureOr<SmallVector<Value>> extents = sizes(input);
      if (failed(extents))
        return failure();
      Item next{resolve(input), {}, item.through};
      next.through.push_back(reduce);
      unsigned kept = 0;
      for (auto [i, e] : llvm::enumerate(*extents)) {
        if (!llvm::is_contained(reduce.getAxes(), int64_t(i))) {
          next.axes.push_back(item.axes[kept++]);
          continue;
        }
        // -1 lines: not a static extent (an error if a scan is reached through it).
        std::optional<int64_t> n = pgpu::constantIndex(e);
        next.axes.push_back(ScanAxis{-1, n ? std::max<int64_t>(*n, 0) : -1, reduce});
      }
      worklist.push_back(std::move(next));
    }
  }
  if (scans.empty())
    return scans;
  // Lines of a reduction on the way to a scan must be static, and the components few.
  int64_t components = 0;
  for (const StoredScan &s : scans) {
    int64_t lines = 1;
    for (ScanAxis a : s.axes)
      if (a.stored < 0)
        lines *= std::max<int64_t>(a.lines, 0);
    if (const ScanAxis *dynamic = llvm::find_if(s.axes, [](const ScanAxis &a) { return a.lines < 0; });
        dynamic != s.axes.end()) {
      InFlightDiagnostic diag =
          dynamic->reduction->emitError()
          << "kir-to-pgpu constructs a reduction of a scan's results over another axis when that axis has a "
             "static extent (a constant domain or a static view extent): the scan's lines along it are held as "
             "components of one scan";
      diag.attachNote(s.op.getLoc()) << "the scan";
      return diag;
    }
    components += lines * int64_t(s.op.getInputs().size());
  }
  if (components > kMaxScanComponents) {
    InFlightDiagnostic diag = write.emitError()
                              << "kir-to-pgpu constructs at most " << kMaxScanComponents
                              << " scan components for one stored value (a scan's components times the lines "
                                 "a reduction over its other axes reads); this one needs "
                              << components;
    diag.attachNote(scans.front().op.getLoc()) << "the scan";
    return diag;
  }
  for (kir::ReduceOp r : lineReductions)
    lineReduces.insert(r);
  if (llvm::any_of(scans, [&](const StoredScan &s) { return s.op->getBlock() != scans.front().op->getBlock(); }))
    return write.emitError() << "kir-to-pgpu constructs a value computed from several scans as one scan: they must "
                                "be in one block";
  // Stable order: the scans as they appear in the program.
  llvm::sort(scans, [](const StoredScan &a, const StoredScan &c) { return a.op->isBeforeInBlock(c.op); });
  const StoredScan &first = scans.front();
  for (const StoredScan &other : ArrayRef(scans).drop_front()) {
    if (other.axes[other.op.getAxis()].stored != first.axes[first.op.getAxis()].stored ||
        other.op.getExclusive() != first.op.getExclusive() || other.op.getReverse() != first.op.getReverse()) {
      InFlightDiagnostic diag = write.emitError()
                                << "kir-to-pgpu constructs a value computed from several scans as one scan: they "
                                   "must scan the same axis of the same extents, in the same mode and direction";
      diag.attachNote(first.op.getLoc()) << "one scan";
      diag.attachNote(other.op.getLoc()) << "another scan";
      return diag;
    }
  }
  return scans;
}

/// The positions of `scan`'s result for the stored value's `positions` and line combination `line`
/// (mixed radix over its line axes, innermost last), lines at `lineIndex`.
static SmallVector<Value> scanPositions(const StoredScan &scan, ArrayRef<Value> positions,
                                        int64_t line, ArrayRef<Value> lineIndex) {
  SmallVector<Value> out(scan.axes.size());
  for (int64_t i = scan.axes.size() - 1; i >= 0; --i) {
    const ScanAxis &a = scan.axes[i];
    if (a.stored >= 0) {
      out[i] = positions[a.stored];
      continue;
    }
    out[i] = lineIndex[line % a.lines];
    line /= a.lines;
  }
  return out;
}

static int64_t linesOf(const StoredScan &scan) {
  int64_t lines = 1;
  for (const ScanAxis &a : scan.axes)
    if (a.stored < 0)
      lines *= a.lines;
  return lines;
}

/// Constants 0 .. n-1 (the positions of the lines) where the builder inserts.
static SmallVector<Value> lineConstants(OpBuilder &b, Location loc, ArrayRef<StoredScan> scans) {
  int64_t most = 0;
  for (const StoredScan &s : scans)
    for (const ScanAxis &a : s.axes)
      most = std::max(most, a.stored < 0 ? a.lines : 0);
  SmallVector<Value> out;
  for (int64_t i = 0; i < most; ++i)
    out.push_back(arith::ConstantIndexOp::create(b, loc, i));
  return out;
}

FailureOr<SmallVector<Value>> KernelConstructor::reduceLinesAt(kir::ReduceOp op, ArrayRef<Value> keptPositions) {
  FailureOr<SmallVector<Value>> in = sizes(op.getInputs()[0]);
  if (failed(in))
    return failure();
  SmallVector<int64_t> counts;
  int64_t total = 1;
  for (auto [i, s] : llvm::enumerate(*in))
    if (llvm::is_contained(op.getAxes(), int64_t(i))) {
      counts.push_back(std::max<int64_t>(*pgpu::constantIndex(s), 0));
      total *= counts.back();
    }
  FailureOr<SmallVector<Value>> acc = scalars(op.getIdentities());
  if (failed(acc))
    return failure();
  Block &combine = op.getCombine().front();
  unsigned n = op.getIdentities().size();
  for (int64_t line = 0; line < total; ++line) {
    SmallVector<Value> positions(in->size());
    int64_t rest = line;
    unsigned kept = keptPositions.size(), red = counts.size();
    for (int64_t i = in->size() - 1; i >= 0; --i) {
      if (!llvm::is_contained(op.getAxes(), i)) {
        positions[i] = keptPositions[--kept];
        continue;
      }
      int64_t c = counts[--red];
      positions[i] = lineIndex[rest % c];
      rest /= c;
    }
    SmallVector<Value> xs;
    for (Value input : op.getInputs()) {
      FailureOr<Value> x = element(input, positions);
      if (failed(x))
        return failure();
      xs.push_back(*x);
    }
    if (line == 0) { // the first line starts the sum: no combine with the identity
      *acc = xs;
      continue;
    }
    for (auto [i, arg] : llvm::enumerate(combine.getArguments()))
      map.map(arg, i < n ? (*acc)[i] : xs[i - n]);
    if (failed(emitBlock(combine)))
      return failure();
    for (auto [i, y] : llvm::enumerate(combine.getTerminator()->getOperands()))
      (*acc)[i] = map.lookup(y);
  }
  return acc;
}

/// A written value computed from `scans`' results: loops over the stored value's other axes, then
/// one pgpu.range_scan of all the scans' components (each line's) along the scan axis. KIR declares
/// every scan combine associative, so the scan keeps its structured form (member order, not
/// grouping) for blocking to regroup; an ordered loop would have lost that permission (seed 002 §4).
int64_t KernelConstructor::scannedAxis(ArrayRef<StoredScan> scans) {
  return scans.front().axes[scans.front().op.getAxis()].stored;
}

LogicalResult KernelConstructor::emitScanStore(ArrayRef<StoredScan> scans, Operation &store) {
  FailureOr<SmallVector<Value>> extents = sizes(store.getOperand(0));
  if (failed(extents))
    return failure();
  SmallVector<Value> outer(*extents);
  outer.erase(outer.begin() + scannedAxis(scans));
  // The lines along the other axes are independent (each stores its own prefixes): a foreach nest.
  return foreachNest(scans.front().op.getLoc(), outer,
                     [&](ArrayRef<Value> outerPos) { return emitScanLine(scans, store, outerPos); });
}

LogicalResult KernelConstructor::emitScanLine(ArrayRef<StoredScan> scans, Operation &store,
                                              ArrayRef<Value> outerPos) {
  const StoredScan &first = scans.front();
  kir::ScanOp firstOp = first.op;
  Location loc = firstOp.getLoc();
  FailureOr<SmallVector<Value>> extents = sizes(store.getOperand(0));
  if (failed(extents))
    return failure();
  int64_t axis = scannedAxis(scans);
  SmallVector<Value> identities;
  for (const StoredScan &scan : scans)
    for (int64_t line = 0, lines = linesOf(scan); line < lines; ++line)
      for (Value id : scan.op.getIdentities())
        identities.push_back(map.lookup(id));
  SmallVector<Type> types(ValueRange(identities).getTypes());
  Value length = (*extents)[axis];
  {
    auto rs = pgpu::RangeScanOp::create(b, loc, constIndex(loc, 0), length, identities, firstOp.getExclusive(),
                                        firstOp.getReverse());
    auto positionsAt = [&](Value at) {
      SmallVector<Value> positions(outerPos);
      positions.insert(positions.begin() + axis, at);
      return positions;
    };
    {
      OpBuilder::InsertionGuard guard(b);
      Block *body = b.createBlock(&rs.getElement());
      SmallVector<Value> positions = positionsAt(body->addArgument(b.getIndexType(), loc));
      SmallVector<Value> lines = lineConstants(b, loc, scans);
      SmallVector<Value> xs;
      for (const StoredScan &scan : scans)
        for (int64_t line = 0, n = linesOf(scan); line < n; ++line) {
          SmallVector<Value> at = scanPositions(scan, positions, line, lines);
          for (Value input : scan.op.getInputs()) {
            FailureOr<Value> x = element(input, at);
            if (failed(x))
              return failure();
            xs.push_back(*x);
          }
        }
      pgpu::YieldOp::create(b, loc, xs);
    }
    {
      // combine(earlier..., later...): each scan's combine on each line's components.
      OpBuilder::InsertionGuard guard(b);
      Block *block = b.createBlock(&rs.getCombine());
      SmallVector<Value> earlier, later;
      for (Type t : types)
        earlier.push_back(block->addArgument(t, loc));
      for (Type t : types)
        later.push_back(block->addArgument(t, loc));
      SmallVector<Value> yields;
      unsigned offset = 0;
      for (const StoredScan &scan : scans) {
        Block &kirBlock = scan.op.getCombine().front();
        unsigned n = scan.op.getIdentities().size();
        for (int64_t line = 0, lines = linesOf(scan); line < lines; ++line) {
          for (auto [i, arg] : llvm::enumerate(kirBlock.getArguments()))
            map.map(arg, i < n ? earlier[offset + i] : later[offset + i - n]);
          if (failed(emitBlock(kirBlock)))
            return failure();
          for (Value y : kirBlock.getTerminator()->getOperands())
            yields.push_back(map.lookup(y));
          offset += n;
        }
      }
      pgpu::YieldOp::create(b, firstOp.getCombine().front().getTerminator()->getLoc(), yields);
    }
    {
      // emit(position, prefix...): the written value at the position, computed from the prefixes there
      // (a reduction over lines reads each line's prefix: reduceLinesAt).
      OpBuilder::InsertionGuard guard(b);
      Block *body = b.createBlock(&rs.getEmit());
      SmallVector<Value> positions = positionsAt(body->addArgument(b.getIndexType(), loc));
      SmallVector<Value> lines = lineConstants(b, loc, scans);
      unsigned slot = 0;
      for (const StoredScan &scan : scans)
        for (int64_t line = 0, n = linesOf(scan); line < n; ++line) {
          SmallVector<Value, 4> at(scanPositions(scan, positions, line, lines));
          for (Value r : scan.op->getResults())
            realized[r].push_back(Realized{at, body->addArgument(types[slot++], loc)});
        }
      lineIndex = lines;
      LogicalResult written = emitElementStore(store, positions);
      lineIndex.clear();
      if (failed(written))
        return failure();
      pgpu::YieldOp::create(b, loc);
    }
    return success();
  }
}
