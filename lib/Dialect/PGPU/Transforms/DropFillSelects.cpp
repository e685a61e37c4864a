//===- DropFillSelects.cpp - selects that keep what masked reads give -----===//
//
// seed 002 §3.4 (boundary neutralization removes or simplifies actual
// validity/fill). A blocked row's masked lanes are zeroed before its sum:
//
//   c = load %c[...] valid %m fill 0         x = load %x[...] valid %m & %r fill 0
//   d = c - x;  s = d * d
//   select %m, s, splat(0)                   (then a reduction over the lanes)
//
// Where %m is false both reads are invalid and return their fill (seed 000 §6:
// an invalid read performs no access and returns the fill), so s there is
// (0 - 0) * (0 - 0) = 0: exactly the select's false value. The select changes
// no lane and is dropped: one operation per lane less in every block of the
// row (171's nearest-centroid walk: a subtraction, a product and the sum's
// addition per lane and centroid, the select was the fourth).
//
// The value at the masked lanes is evaluated on constants: a read whose
// validity implies the mask (the mask itself, a conjunction holding it, or the
// same broadcast of such a validity) gives its fill; a splat of a constant
// gives it; a broadcast gives its operand's value under the same broadcast of
// the mask; an exact IEEE operation (add, sub, mul, min, max, neg, abs; no
// approximate or flush-to-zero) of such values gives its folded result
// (round to nearest even, as the providers compute it). The select goes only
// where that value is bitwise the false value's constant and not a NaN.
//
// Must not fire: a false value that is no constant splat, a value whose masked
// lanes are not one constant (a read whose validity does not imply the mask, a
// kernel scalar, a loop carry), a different constant (a max fold's -inf beside
// a read's 0 fill), a NaN.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "mlir/IR/Matchers.h"

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUDROPFILLSELECTS
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

namespace {

/// The constant float `v` is (a scalar constant or a splat of one).
std::optional<APFloat> constantOf(Value v) {
  if (auto s = v.getDefiningOp<SplatOp>())
    v = s.getOperand();
  FloatAttr attr;
  if (matchPattern(v, m_Constant(&attr)))
    return attr.getValue();
  return std::nullopt;
}

/// Whether `a` and `b` are broadcasts of one shape along the same dims; their operands in `fa`, `fb`.
bool sameBroadcast(Value a, Value b, Value &fa, Value &fb) {
  auto ba = a.getDefiningOp<BroadcastOp>(), bb = b.getDefiningOp<BroadcastOp>();
  // One shape (the element types differ: a value and its mask) and one placement of the operand's axes.
  if (!ba || !bb || ba.getDims() != bb.getDims() ||
      cast<FragmentType>(ba.getType()).getExtents() != cast<FragmentType>(bb.getType()).getExtents() ||
      cast<FragmentType>(ba.getOperand().getType()).getExtents() !=
          cast<FragmentType>(bb.getOperand().getType()).getExtents())
    return false;
  fa = ba.getOperand();
  fb = bb.getOperand();
  return true;
}

/// Whether `valid` is false wherever `mask` is: the mask, a conjunction with a conjunct that implies it, or
/// the same broadcast of a validity that implies the mask's operand.
bool implies(Value valid, Value mask, unsigned depth = 0) {
  if (valid == mask)
    return true;
  if (depth > 16)
    return false;
  if (auto a = valid.getDefiningOp<BinaryOp>())
    if (a.getKind() == kir::BinaryKind::And)
      return implies(a.getLhs(), mask, depth + 1) || implies(a.getRhs(), mask, depth + 1);
  Value fv, fm;
  return sameBroadcast(valid, mask, fv, fm) && implies(fv, fm, depth + 1);
}

/// The one constant `v` holds wherever `mask` is false, if it is one (see the file comment).
std::optional<APFloat> maskedValue(Value v, Value mask, unsigned depth = 0) {
  if (depth > 16)
    return std::nullopt;
  if (auto c = constantOf(v))
    return c;
  Operation *def = v.getDefiningOp();
  if (!def)
    return std::nullopt;
  if (auto load = dyn_cast<LoadOp>(def))
    return load.getFill() && implies(load.getValid(), mask) ? constantOf(load.getFill()) : std::nullopt;
  if (auto gather = dyn_cast<GatherOp>(def))
    return gather.getFill() && implies(gather.getValid(), mask) ? constantOf(gather.getFill()) : std::nullopt;
  if (isa<BroadcastOp>(def)) {
    Value fv, fm;
    if (!sameBroadcast(v, mask, fv, fm))
      return std::nullopt;
    return maskedValue(fv, fm, depth + 1);
  }
  if (auto u = dyn_cast<UnaryOp>(def)) {
    if (u.getApproximate() || u.getFlushToZero())
      return std::nullopt;
    std::optional<APFloat> x = maskedValue(u.getOperand(), mask, depth + 1);
    if (!x)
      return std::nullopt;
    if (u.getKind() == kir::UnaryKind::Neg)
      return neg(*x);
    if (u.getKind() == kir::UnaryKind::Abs)
      return abs(*x);
    return std::nullopt;
  }
  auto b = dyn_cast<BinaryOp>(def);
  if (!b || b.getApproximate() || b.getFlushToZero() || !isa<FloatType>(elementTypeOf(b.getType())))
    return std::nullopt;
  std::optional<APFloat> l = maskedValue(b.getLhs(), mask, depth + 1);
  std::optional<APFloat> r = l ? maskedValue(b.getRhs(), mask, depth + 1) : std::nullopt;
  if (!l || !r || l->isNaN() || r->isNaN())
    return std::nullopt;
  APFloat out = *l;
  auto rm = APFloat::rmNearestTiesToEven;
  switch (b.getKind()) {
  case kir::BinaryKind::Add:
    out.add(*r, rm);
    return out;
  case kir::BinaryKind::Sub:
    out.subtract(*r, rm);
    return out;
  case kir::BinaryKind::Mul:
    out.multiply(*r, rm);
    return out;
  case kir::BinaryKind::Max:
  case kir::BinaryKind::MaxNum:
    // Signed zeros: the providers may pick either of +0 and -0; only a strict order is folded.
    if (l->isZero() && r->isZero() && l->isNegative() != r->isNegative())
      return std::nullopt;
    return maximum(*l, *r);
  case kir::BinaryKind::Min:
  case kir::BinaryKind::MinNum:
    if (l->isZero() && r->isZero() && l->isNegative() != r->isNegative())
      return std::nullopt;
    return minimum(*l, *r);
  default:
    return std::nullopt;
  }
}

struct DropFillSelects : public tessel::pgpu::impl::PGPUDropFillSelectsBase<DropFillSelects> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool remarks = remarksEnabled(module);
    SmallVector<SelectOp> dropped;
    module.walk([&](SelectOp select) {
      if (!isa<FragmentType>(select.getType()) || !isa<FloatType>(elementTypeOf(select.getType())))
        return;
      std::optional<APFloat> otherwise = constantOf(select.getFalseValue());
      if (!otherwise || otherwise->isNaN())
        return;
      std::optional<APFloat> masked = maskedValue(select.getTrueValue(), select.getCondition());
      if (masked && !masked->isNaN() && masked->bitwiseIsEqual(*otherwise))
        dropped.push_back(select);
    });
    for (SelectOp select : dropped) {
      if (remarks)
        emitRemark(select.getLoc()) << "pgpu-drop-fill-selects: the select keeps what the masked lanes' reads give "
                                       "(their fill): dropped";
      select.getResult().replaceAllUsesWith(select.getTrueValue());
      Value otherwise = select.getFalseValue();
      select.erase();
      if (Operation *def = otherwise.getDefiningOp(); def && def->use_empty() && isa<SplatOp>(def))
        def->erase();
    }
  }
};

} // namespace
