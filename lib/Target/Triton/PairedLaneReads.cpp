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

bool isSplatOf(Value v, int64_t c) {
  auto splat = v.getDefiningOp<SplatOp>();
  APInt value;
  return splat && matchPattern(splat.getOperand(), m_ConstantInt(&value)) && value.getSExtValue() == c;
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
    if (auto div = lanes.getDefiningOp<BinaryOp>();
        div && div.getKind() == kir::BinaryKind::Div && isLanes(div.getLhs(), m.iv) && isSplatOf(div.getRhs(), 2))
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

std::optional<triton::PairedLaneRead> triton::matchPairedLaneRead(Operation *read) {
  ValueRange coords;
  Value valid;
  if (auto l = dyn_cast<LoadOp>(read))
    coords = l.getCoords(), valid = l.getValid();
  else if (auto g = dyn_cast<GatherOp>(read))
    coords = g.getCoords(), valid = g.getValid();
  else
    return std::nullopt;
  auto type = dyn_cast<FragmentType>(read->getResult(0).getType());
  if (!type)
    return std::nullopt;
  unsigned axis = type.getRank() - 1;
  auto step = dyn_cast<StringAttr>(type.getExtents()[axis]);
  if (!step)
    return std::nullopt;
  // The loop whose lanes the axis holds: found from the halved coordinate's iota, which must address the
  // view's last axis (the one row-major strides keep contiguous: where the repetition costs vectorized
  // reads; on an outer axis each repeated row is a vector read already).
  if (coords.empty())
    return std::nullopt;
  for (Value c : coords.take_back()) {
    PairedLaneRead m{Value(), step.getValue(), axis, false};
    auto b = c.getDefiningOp<BroadcastOp>();
    Value lanes = type.getRank() == 1 ? c : (b && b.getDims().size() == 1 ? b.getOperand() : Value());
    auto div = lanes ? lanes.getDefiningOp<BinaryOp>() : BinaryOp();
    auto iota = div ? div.getLhs().getDefiningOp<IotaOp>() : IotaOp();
    auto iv = iota ? dyn_cast<BlockArgument>(iota.getBase()) : BlockArgument();
    auto loop = iv ? dyn_cast<ForOp>(iv.getOwner()->getParentOp()) : ForOp();
    if (!loop || iv.getArgNumber() != 0 || !read->getParentRegion() || !loop->isProperAncestor(read))
      continue;
    auto p = loop.getStep().getDefiningOp<ParamOp>();
    if (!p || p.getName() != step.getValue() || !tripsStartAtMultiples(loop, p.getName()))
      continue;
    m.iv = iv;
    if (pairedLaneForm(c, m) != PairedLane::Halved)
      continue;
    bool ok = true;
    for (Value other : coords) {
      std::optional<PairedLane> form = pairedLaneForm(other, m);
      ok &= form == PairedLane::Uniform || form == PairedLane::Halved;
    }
    std::optional<PairedLane> v = pairedLaneForm(valid, m);
    ok &= v && *v != PairedLane::Halved;
    if (!ok)
      return std::nullopt;
    m.boundedLanes = boundsLanes(valid, m);
    return m;
  }
  return std::nullopt;
}
