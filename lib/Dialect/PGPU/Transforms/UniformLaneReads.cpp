//===- UniformLaneReads.cpp - a read uniform over a loop's lanes, once -----===//
//
// pgpu-reuse-input-reads' helper (seed 002 §3.4: a value is read once where one read serves its uses).
// A K loop stepping by a parameter P from 0 gives each trip the lanes k = iv + [0, P), iv a multiple of
// P. A coordinate k / G (G a constant every candidate of P divides: a group-quantized weight's scale
// index, corpus 80's scales[n, k // 128]) is the same for every lane of a trip: iv / G. A 2-d read
// [X, P] whose k-lane coordinates are that quotient and whose other coordinates do not depend on k
// reads one value per row X, P times. It becomes a [X] read at iv / G, broadcast along the lanes; the
// k lanes' validity (k < bound: lane iv is the first, so a trip with any valid lane has lane iv valid)
// is kept by a select of the broadcast against the fill, so every lane holds what it held; unless every
// use discards the lanes past the bound (pgpu::lanesDiscardedOff: corpus 57's and 80's dequantized weight
// (nib - zero) * scale is selected against the same bound before the contraction), where the select is
// left out (two of the three selects a weight element took).
//
// Fires on: a load or gather of rank 2 in a pgpu.for whose step is a parameter P (a declared parameter
// takes only its candidates) and whose every trip starts at a multiple of P (its lower bound 0, a
// product with a factor P, a sum of such; or min(m, u) of one and a bound u no less than the loop's
// upper bound, which runs no trip when it is u: pgpu-split-contractions' chunk of the K loop
// [min(c * chunk, U), min(.. + chunk, U)), chunk a multiple of P), with one coordinate the broadcast
// along the lane axis of (s * iota(iv)) / G (s, G positive constants, s * P dividing G for every
// candidate P), the others broadcasts along the other axis or scalars, and validity a scalar, the
// other axis's broadcast, or its conjunction with the broadcast of iota(iv) < bound.
// Must not fire: a quotient some candidate's trip crosses (k / 2 of packed nibbles; corpus 80_b's
// (2 * j) // 128 at TILE_K 128, 256 k a trip: the Triton serializer reads such a quotient once a run of
// lanes at the bound step, PairedLaneReads.h), a coordinate that varies along the lanes otherwise, a
// loop whose trips may start off a multiple of P (a lower bound min(m, u) where u may be below the
// upper bound).
//
//===----------------------------------------------------------------------===//

#include "UniformLaneReads.h"

#include "tessel/Dialect/PGPU/IR/LoopTrips.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

namespace {
std::optional<int64_t> constantIndexOf(Value v) {
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return c.getSExtValue();
  return std::nullopt;
}

/// The source of `v` when it is a broadcast of a rank-1 fragment along result axis `axis` of a rank-2
/// fragment, else null.
Value broadcastAlong(Value v, int64_t axis) {
  auto b = v.getDefiningOp<BroadcastOp>();
  if (!b || b.getDims().size() != 1 || b.getDims()[0] != axis)
    return {};
  auto src = dyn_cast<FragmentType>(b.getOperand().getType());
  auto res = dyn_cast<FragmentType>(b.getType());
  return src && res && src.getRank() == 1 && res.getRank() == 2 ? b.getOperand() : Value();
}

/// Whether `v` is iota(iv).
bool isLanes(Value v, Value iv) {
  auto iota = v.getDefiningOp<IotaOp>();
  return iota && iota.getBase() == iv;
}

/// The scale s of `v` when it is iota(iv) (s = 1) or splat(s) * iota(iv) (either order) with s a
/// positive constant, else none.
std::optional<int64_t> scaledLanes(Value v, Value iv) {
  if (isLanes(v, iv))
    return 1;
  auto mul = v.getDefiningOp<BinaryOp>();
  if (!mul || mul.getKind() != kir::BinaryKind::Mul)
    return std::nullopt;
  for (auto [c, l] : {std::pair(mul.getLhs(), mul.getRhs()), std::pair(mul.getRhs(), mul.getLhs())}) {
    auto splat = c.getDefiningOp<SplatOp>();
    std::optional<int64_t> scale = splat ? constantIndexOf(splat.getOperand()) : std::nullopt;
    if (scale && *scale > 0 && isLanes(l, iv))
      return scale;
  }
  return std::nullopt;
}

/// (s, G) when `v` is (s * iota(iv)) / splat(G) with s and G positive constants, else none.
std::optional<std::pair<int64_t, int64_t>> quotientOfLanes(Value v, Value iv) {
  auto div = v.getDefiningOp<BinaryOp>();
  if (!div || div.getKind() != kir::BinaryKind::Div)
    return std::nullopt;
  std::optional<int64_t> scale = scaledLanes(div.getLhs(), iv);
  auto splat = div.getRhs().getDefiningOp<SplatOp>();
  std::optional<int64_t> g = splat ? constantIndexOf(splat.getOperand()) : std::nullopt;
  if (!scale || !g || *g <= 0)
    return std::nullopt;
  return std::pair(*scale, *g);
}

/// The bound b when `v` is iota(iv) < splat(b), else null.
Value laneBound(Value v, Value iv) {
  auto cmp = v.getDefiningOp<CmpOp>();
  if (!cmp || cmp.getPredicate() != kir::CmpPredicate::LT || !isLanes(cmp.getLhs(), iv))
    return {};
  auto splat = cmp.getRhs().getDefiningOp<SplatOp>();
  return splat ? splat.getOperand() : Value();
}

bool rewrite(Operation *read, ForOp loop) {
  auto type = dyn_cast<FragmentType>(read->getResult(0).getType());
  if (!type || type.getRank() != 2)
    return false;
  Value iv = loop.getBody().getArgument(0);
  auto step = loop.getStep().getDefiningOp<ParamOp>();
  auto kernel = read->getParentOfType<KernelOp>();
  if (!step || !kernel || !tripsStartAtMultiples(loop, step.getName()))
    return false;
  ParamAttr param = kernel.getParam(step.getName());
  if (!param || param.getCandidates().empty())
    return false;
  // The lane axis: the fragment axis the step's parameter names.
  int64_t lane = -1;
  for (auto [i, e] : llvm::enumerate(type.getExtents()))
    if (auto name = dyn_cast<StringAttr>(e); name && name.getValue() == step.getName())
      lane = lane < 0 ? int64_t(i) : -2;
  if (lane < 0)
    return false;
  int64_t other = 1 - lane;
  auto coordsOf = [](Operation *op) -> ValueRange {
    if (auto l = dyn_cast<LoadOp>(op))
      return l.getCoords();
    return cast<GatherOp>(op).getCoords();
  };
  Value valid = isa<LoadOp>(read) ? cast<LoadOp>(read).getValid() : cast<GatherOp>(read).getValid();
  Value fill = isa<LoadOp>(read) ? cast<LoadOp>(read).getFill() : cast<GatherOp>(read).getFill();
  Value view = isa<LoadOp>(read) ? cast<LoadOp>(read).getView() : cast<GatherOp>(read).getView();
  // Coordinates: the quotient along the lanes (at least one), the other axis's values, scalars.
  SmallVector<std::pair<unsigned, std::pair<int64_t, int64_t>>> quotients; // (coordinate, (scale, divisor))
  SmallVector<Value> rowCoords;
  for (auto [i, c] : llvm::enumerate(coordsOf(read))) {
    if (!isa<FragmentType>(c.getType())) {
      rowCoords.push_back(c);
      continue;
    }
    if (Value src = broadcastAlong(c, lane)) {
      std::optional<std::pair<int64_t, int64_t>> q = quotientOfLanes(src, iv);
      if (!q)
        return false;
      // A trip's lanes s * [iv, iv + P) lie in one multiple of G when s * P divides G (iv a multiple of P).
      for (int64_t p : param.getCandidates())
        if (p <= 0 || q->second % (q->first * p) != 0)
          return false;
      quotients.push_back({unsigned(i), *q});
      rowCoords.push_back(Value());
      continue;
    }
    Value src = broadcastAlong(c, other);
    if (!src)
      return false;
    rowCoords.push_back(src);
  }
  if (quotients.empty())
    return false;
  // Validity: scalar, the other axis's, or that and the lanes' bound.
  Value rowValid, laneValid, bound;
  if (!isa<FragmentType>(valid.getType())) {
    rowValid = valid;
  } else if (Value src = broadcastAlong(valid, other)) {
    rowValid = src;
  } else if (auto conj = valid.getDefiningOp<BinaryOp>(); conj && conj.getKind() == kir::BinaryKind::And) {
    for (auto [a, l] : {std::pair(conj.getLhs(), conj.getRhs()), std::pair(conj.getRhs(), conj.getLhs())}) {
      Value rows = broadcastAlong(a, other), lanes = broadcastAlong(l, lane);
      Value b = lanes ? laneBound(lanes, iv) : Value();
      if (rows && b) {
        rowValid = rows;
        laneValid = l;
        bound = b;
        break;
      }
    }
    if (!rowValid)
      return false;
  } else {
    return false;
  }
  // The rows' fragment type: the other axis's extent.
  MLIRContext *ctx = read->getContext();
  Attribute rowsExtent = type.getExtents()[other];
  auto rowType = [&](Type element) { return FragmentType::get(ctx, element, {rowsExtent}); };
  OpBuilder b(read);
  Location loc = read->getLoc();
  SmallVector<Value> coords;
  for (auto [i, c] : llvm::enumerate(rowCoords)) {
    if (c) {
      coords.push_back(c);
      continue;
    }
    auto [scale, g] = llvm::find_if(quotients, [&, i = i](auto q) { return q.first == i; })->second;
    Value at = iv;
    if (scale != 1)
      at = BinaryOp::create(b, loc, kir::BinaryKind::Mul, iv, arith::ConstantIndexOp::create(b, loc, scale), false, false);
    Value gv = arith::ConstantIndexOp::create(b, loc, g);
    coords.push_back(BinaryOp::create(b, loc, kir::BinaryKind::Div, at, gv, false, false));
  }
  // A coordinate fragment must have the read's shape: a scalar coordinate among fragments is splat.
  Value ok = rowValid;
  if (bound) {
    Value first = CmpOp::create(b, loc, kir::CmpPredicate::LT, iv, bound);
    if (isa<FragmentType>(ok.getType()))
      ok = BinaryOp::create(b, loc, kir::BinaryKind::And, ok, SplatOp::create(b, loc, rowType(b.getI1Type()), first),
                            false, false);
    else
      ok = BinaryOp::create(b, loc, kir::BinaryKind::And, ok, first, false, false);
  }
  if (!isa<FragmentType>(ok.getType()))
    ok = SplatOp::create(b, loc, rowType(b.getI1Type()), ok);
  bool anyFragment = llvm::any_of(coords, [](Value c) { return isa<FragmentType>(c.getType()); });
  if (!anyFragment)
    return false; // one value for the whole tile: left to the scalar reads' own forms
  Type element = type.getElementType();
  Value row = isa<LoadOp>(read) ? Value(LoadOp::create(b, loc, rowType(element), view, coords, ok, fill))
                                : Value(GatherOp::create(b, loc, rowType(element), view, coords, ok, fill));
  Value spread = BroadcastOp::create(b, loc, type, row, b.getDenseI64ArrayAttr({other}));
  // The lanes past the bound hold the fill, unless every use discards them (then the row's value stays).
  if (laneValid && !lanesDiscardedOff(read->getResult(0), laneValid))
    spread = SelectOp::create(b, loc, laneValid, spread, SplatOp::create(b, loc, type, fill));
  if (remarksEnabled(read))
    emitRemark(loc) << "pgpu-reuse-input-reads: a read whose lane coordinate is "
                    << (quotients.front().second.first == 1 ? std::string()
                                                            : std::to_string(quotients.front().second.first) + " * ")
                    << "k / " << quotients.front().second.second
                    << " (one value a trip of the loop over " << step.getName()
                    << " lanes) reads its rows once a trip, broadcast along the lanes";
  read->getResult(0).replaceAllUsesWith(spread);
  read->erase();
  return true;
}
} // namespace

unsigned pgpu::readUniformLanesOnce(Operation *root) {
  SmallVector<std::pair<Operation *, ForOp>> reads;
  root->walk([&](Operation *op) {
    if (!isa<LoadOp, GatherOp>(op))
      return;
    if (auto loop = dyn_cast<ForOp>(op->getParentOp()))
      reads.push_back({op, loop});
  });
  unsigned count = 0;
  for (auto [op, loop] : reads)
    count += rewrite(op, loop);
  return count;
}
