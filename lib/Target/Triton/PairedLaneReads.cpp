//===- PairedLaneReads.cpp - a read of packed pairs, once a pair ----------===//

#include "tessel/Target/Triton/PairedLaneReads.h"
#include "tessel/Dialect/PGPU/IR/LoopTrips.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

namespace {
/// The rank-1 lane value `v` stands for: itself at rank 1, the operand of its broadcast along the lane
/// axis alone at higher ranks; else null.
Value lanesOf(Value v, const triton::PairedLaneRead &m) {
  auto type = dyn_cast<FragmentType>(v.getType());
  if (!type)
    return {};
  if (type.getRank() == 1)
    return m.axis == 0 ? v : Value();
  auto b = v.getDefiningOp<BroadcastOp>();
  if (!b || b.getDims().size() != 1 || b.getDims()[0] != int64_t(m.axis))
    return {};
  return b.getOperand();
}

bool isLanes(Value v, Value iv) {
  auto iota = v.getDefiningOp<IotaOp>();
  return iota && iota.getBase() == iv;
}

std::optional<int64_t> splatConstant(Value v) {
  auto splat = v.getDefiningOp<SplatOp>();
  APInt value;
  if (splat && matchPattern(splat.getOperand(), m_ConstantInt(&value)))
    return value.getSExtValue();
  return std::nullopt;
}

/// The iota and s of `v` when it is iota(iv) (s 1) or splat(s) * iota(iv) in either order (s a positive
/// constant), else none.
std::optional<std::pair<IotaOp, int64_t>> scaledIota(Value v) {
  if (auto iota = v.getDefiningOp<IotaOp>())
    return std::pair(iota, int64_t(1));
  auto mul = v.getDefiningOp<BinaryOp>();
  if (!mul || mul.getKind() != kir::BinaryKind::Mul)
    return std::nullopt;
  for (auto [c, l] : {std::pair(mul.getLhs(), mul.getRhs()), std::pair(mul.getRhs(), mul.getLhs())}) {
    std::optional<int64_t> s = splatConstant(c);
    if (auto iota = l.getDefiningOp<IotaOp>(); iota && s && *s > 0)
      return std::pair(iota, *s);
  }
  return std::nullopt;
}

/// The iota, s and G of `lanes` when it is (s * iota(..)) / G with G a constant multiple of s, G / s at
/// least 2 (c = G / s lanes share a quotient), else none.
struct Quotient {
  IotaOp iota;
  int64_t scale, group;
};
std::optional<Quotient> lanesQuotient(Value lanes) {
  auto div = lanes ? lanes.getDefiningOp<BinaryOp>() : BinaryOp();
  if (!div || div.getKind() != kir::BinaryKind::Div)
    return std::nullopt;
  std::optional<std::pair<IotaOp, int64_t>> scaled = scaledIota(div.getLhs());
  std::optional<int64_t> g = splatConstant(div.getRhs());
  if (!scaled || !g || *g % scaled->second != 0 || *g / scaled->second < 2)
    return std::nullopt;
  return Quotient{scaled->first, scaled->second, *g};
}
} // namespace

Value triton::pairedLaneBound(Value v, const PairedLaneRead &m) {
  Value lanes = lanesOf(v, m);
  if (!lanes)
    return {};
  if (auto cmp = lanes.getDefiningOp<CmpOp>())
    return cmp.getRhs().getDefiningOp<SplatOp>().getOperand();
  return lanes;
}

std::optional<triton::PairedLane> triton::pairedLaneForm(Value v, const PairedLaneRead &m) {
  auto type = dyn_cast<FragmentType>(v.getType());
  if (!type)
    return PairedLane::Uniform;
  if (v.getDefiningOp<SplatOp>())
    return PairedLane::Uniform;
  if (Value lanes = lanesOf(v, m)) {
    if (std::optional<Quotient> q = lanesQuotient(lanes);
        q && q->iota.getBase() == m.iv && q->scale == m.scale && q->group == m.group)
      return PairedLane::Halved;
    if (auto cmp = lanes.getDefiningOp<CmpOp>();
        cmp && cmp.getPredicate() == kir::CmpPredicate::LT && isLanes(cmp.getLhs(), m.iv) &&
        cmp.getRhs().getDefiningOp<SplatOp>())
      return PairedLane::Bound;
    return std::nullopt;
  }
  if (auto b = v.getDefiningOp<BroadcastOp>()) {
    if (llvm::is_contained(b.getDims(), int64_t(m.axis)))
      return std::nullopt;
    return PairedLane::Uniform;
  }
  if (auto conj = v.getDefiningOp<BinaryOp>(); conj && conj.getKind() == kir::BinaryKind::And &&
                                                 elementTypeOf(type).isInteger(1)) {
    std::optional<PairedLane> l = pairedLaneForm(conj.getLhs(), m), r = pairedLaneForm(conj.getRhs(), m);
    if (!l || !r || *l == PairedLane::Halved || *r == PairedLane::Halved)
      return std::nullopt;
    return PairedLane::And;
  }
  return std::nullopt;
}

/// Whether validity `v` holds a lane bound (its forms are checked).
static bool boundsLanes(Value v, const triton::PairedLaneRead &m) {
  std::optional<triton::PairedLane> form = triton::pairedLaneForm(v, m);
  if (form == triton::PairedLane::Bound)
    return true;
  if (form != triton::PairedLane::And)
    return false;
  auto conj = v.getDefiningOp<BinaryOp>();
  return boundsLanes(conj.getLhs(), m) || boundsLanes(conj.getRhs(), m);
}

namespace {
/// What both lane rules match of a read (a load or a gather of a fragment with coordinates): its
/// coordinates and validity, its type, and its last axis with that axis's extent symbol (a loop's step).
struct LaneRead {
  ValueRange coords;
  Value valid;
  FragmentType type;
  unsigned axis;
  StringAttr step;
};
} // namespace

static std::optional<LaneRead> laneReadOf(Operation *read) {
  LaneRead r;
  if (auto l = dyn_cast<LoadOp>(read))
    r.coords = l.getCoords(), r.valid = l.getValid();
  else if (auto g = dyn_cast<GatherOp>(read))
    r.coords = g.getCoords(), r.valid = g.getValid();
  else
    return std::nullopt;
  r.type = dyn_cast<FragmentType>(read->getResult(0).getType());
  if (!r.type || r.coords.empty())
    return std::nullopt;
  r.axis = r.type.getRank() - 1;
  r.step = dyn_cast<StringAttr>(r.type.getExtents()[r.axis]);
  if (!r.step)
    return std::nullopt;
  return r;
}

std::optional<triton::PairedLaneRead> triton::matchPairedLaneRead(Operation *read) {
  std::optional<LaneRead> r = laneReadOf(read);
  if (!r)
    return std::nullopt;
  auto [coords, valid, type, axis, step] = *r;
  // The loop whose lanes the axis holds: found from the halved coordinate's iota. Only the view's last
  // axis (the one row-major strides keep contiguous) is read as pairs: there the repetition costs
  // vectorized reads. On an outer axis the lanes of a pair are rows of the tile, and joining them back
  // (tl.join + tl.reshape across the tile's slow axis) is a layout conversion per tile: corpus 57's
  // wq[k // 2, n] read as pairs ran 1.138 ms against 0.687 ms read per lane (H100, session 43, the same
  // binding), so a repeated byte row stays a repeated (cached) vector read.
  Value c = coords.back();
  PairedLaneRead m{Value(), step.getValue(), axis, false};
  auto b = c.getDefiningOp<BroadcastOp>();
  Value lanes = type.getRank() == 1 ? c : (b && b.getDims().size() == 1 ? b.getOperand() : Value());
  std::optional<Quotient> q = lanesQuotient(lanes);
  auto iv = q ? dyn_cast<BlockArgument>(q->iota.getBase()) : BlockArgument();
  auto loop = iv ? dyn_cast<ForOp>(iv.getOwner()->getParentOp()) : ForOp();
  if (!loop || iv.getArgNumber() != 0 || !read->getParentRegion() || !loop->isProperAncestor(read))
    return std::nullopt;
  auto p = loop.getStep().getDefiningOp<ParamOp>();
  if (!p || p.getName() != step.getValue() || !tripsStartAtMultiples(loop, p.getName()))
    return std::nullopt;
  m.iv = iv;
  m.scale = q->scale, m.group = q->group;
  if (pairedLaneForm(c, m) != PairedLane::Halved)
    return std::nullopt;
  for (Value other : coords) {
    std::optional<PairedLane> form = pairedLaneForm(other, m);
    if (form != PairedLane::Uniform && form != PairedLane::Halved)
      return std::nullopt;
  }
  std::optional<PairedLane> v = pairedLaneForm(valid, m);
  if (!v || *v == PairedLane::Halved)
    return std::nullopt;
  m.boundedLanes = boundsLanes(valid, m);
  return m;
}

std::optional<triton::InterleavedLaneRead> triton::matchInterleavedLaneRead(Operation *read) {
  std::optional<LaneRead> r = laneReadOf(read);
  if (!r || !isa<BlockArgument>(read->getOperand(0)))
    return std::nullopt;
  auto [coords, valid, type, axis, step] = *r;
  Value last = coords.back();
  auto b = last.getDefiningOp<BroadcastOp>();
  Value lanes = type.getRank() == 1 ? last
                                    : (b && b.getDims().size() == 1 && b.getDims()[0] == int64_t(axis) ? b.getOperand()
                                                                                                       : Value());
  // 2 * iota(iv) + o (either order of each operation), or 2 * iota(iv) (o = 0).
  int64_t offset = 0;
  if (auto add = lanes ? lanes.getDefiningOp<BinaryOp>() : BinaryOp(); add && add.getKind() == kir::BinaryKind::Add) {
    std::optional<int64_t> o = splatConstant(add.getRhs());
    lanes = add.getLhs();
    if (!o) {
      o = splatConstant(add.getLhs());
      lanes = add.getRhs();
    }
    if (!o || *o < 0 || *o > 1)
      return std::nullopt;
    offset = *o;
  }
  std::optional<std::pair<IotaOp, int64_t>> scaled = lanes ? scaledIota(lanes) : std::nullopt;
  if (!scaled || scaled->second != 2)
    return std::nullopt;
  auto iv = dyn_cast<BlockArgument>(scaled->first.getBase());
  auto loop = iv ? dyn_cast<ForOp>(iv.getOwner()->getParentOp()) : ForOp();
  if (!loop || iv.getArgNumber() != 0 || !loop->isProperAncestor(read))
    return std::nullopt;
  auto p = loop.getStep().getDefiningOp<ParamOp>();
  if (!p || p.getName() != step.getValue())
    return std::nullopt;
  PairedLaneRead m{iv, step.getValue(), axis, false};
  for (Value other : coords.drop_back())
    if (pairedLaneForm(other, m) != PairedLane::Uniform)
      return std::nullopt;
  std::optional<PairedLane> v = pairedLaneForm(valid, m);
  if (!v || *v == PairedLane::Halved)
    return std::nullopt;
  m.boundedLanes = boundsLanes(valid, m);
  return InterleavedLaneRead{m, offset};
}
