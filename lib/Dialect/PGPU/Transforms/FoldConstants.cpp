//===- FoldConstants.cpp - the constant a value holds, by local propagation ===//
//
// Local typed value propagation (pgpu-narrow-fold-ranges' all-false proof, seed 002 §3.5): selects,
// builtin reduction identities, zero contractions, constant folding; no summarizer names.
//
//===----------------------------------------------------------------------===//

#include "FoldConstants.h"

#include "tessel/Dialect/PGPU/IR/PGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

/// `v` through broadcasts.
static Value throughBroadcasts(Value v) {
  while (auto br = v.getDefiningOp<BroadcastOp>())
    v = br.getOperand();
  return v;
}

/// The constant every lane of `v` holds, given `env`; null when unknown.
Attribute pgpu::constantOf(Value v, DenseMap<Value, Attribute> &env) {
  if (Attribute a = env.lookup(v))
    return a;
  Operation *def = v.getDefiningOp();
  if (!def)
    return {};
  Attribute out;
  if (auto c = dyn_cast<arith::ConstantOp>(def)) {
    out = c.getValue();
  } else if (isa<SplatOp, BroadcastOp, TransposeOp>(def)) {
    out = constantOf(def->getOperand(0), env);
  } else if (auto s = dyn_cast<SelectOp>(def)) {
    if (auto c = dyn_cast_or_null<IntegerAttr>(constantOf(s.getCondition(), env)))
      out = constantOf(c.getValue().isZero() ? s.getFalseValue() : s.getTrueValue(), env);
    else if (Attribute t = constantOf(s.getTrueValue(), env); t && t == constantOf(s.getFalseValue(), env))
      out = t;
  } else if (auto bo = dyn_cast<BinaryOp>(def)) {
    auto l = dyn_cast_or_null<IntegerAttr>(constantOf(bo.getLhs(), env));
    auto r = dyn_cast_or_null<IntegerAttr>(constantOf(bo.getRhs(), env));
    bool i1 = elementTypeOf(bo.getType()).isInteger(1);
    if (i1 && bo.getKind() == kir::BinaryKind::And && ((l && l.getValue().isZero()) || (r && r.getValue().isZero())))
      out = IntegerAttr::get(IntegerType::get(v.getContext(), 1), 0);
    else if (i1 && bo.getKind() == kir::BinaryKind::Or && ((l && l.getValue().isOne()) || (r && r.getValue().isOne())))
      out = IntegerAttr::get(IntegerType::get(v.getContext(), 1), 1);
    else if (auto fl = dyn_cast_or_null<FloatAttr>(constantOf(bo.getLhs(), env));
             fl && (bo.getKind() == kir::BinaryKind::Sub || bo.getKind() == kir::BinaryKind::Add)) {
      // IEEE sum or difference of known float lanes (-inf - 0 = -inf), rounded to the lanes' type.
      if (auto fr = dyn_cast_or_null<FloatAttr>(constantOf(bo.getRhs(), env))) {
        APFloat x = fl.getValue();
        APFloat::opStatus st = bo.getKind() == kir::BinaryKind::Sub
                                   ? x.subtract(fr.getValue(), APFloat::rmNearestTiesToEven)
                                   : x.add(fr.getValue(), APFloat::rmNearestTiesToEven);
        if (!x.isNaN() && !(st & APFloat::opInvalidOp))
          out = FloatAttr::get(fl.getType(), x);
      }
    } else if (bo.getKind() == kir::BinaryKind::Mul && isa<FloatType>(elementTypeOf(bo.getType()))) {
      // A product with the kernel's own masked value where(m, x, 0) on lanes where it selects its
      // literal zero is zero (the masked product FA2's backward forms, p * (dp - delta)); exact for a
      // finite other factor, which the mask's author states. A zero that is not a where's (a mask
      // converted to 0/1 and multiplied) proves nothing: 0 * inf is NaN.
      auto maskedZero = [&](Value x) {
        if (!isa_and_nonnull<SelectOp>(throughBroadcasts(x).getDefiningOp()))
          return false;
        auto f = dyn_cast_or_null<FloatAttr>(constantOf(x, env));
        return f && f.getValue().isZero();
      };
      if (maskedZero(bo.getLhs()) || maskedZero(bo.getRhs()))
        out = FloatAttr::get(elementTypeOf(bo.getType()), 0.0);
    } else if (i1 && l && r && (bo.getKind() == kir::BinaryKind::And || bo.getKind() == kir::BinaryKind::Or))
      out = IntegerAttr::get(IntegerType::get(v.getContext(), 1),
                             bo.getKind() == kir::BinaryKind::And ? (l.getValue() & r.getValue())
                                                                  : (l.getValue() | r.getValue()));
  } else if (auto cmp = dyn_cast<CmpOp>(def)) {
    // Float comparisons of known lanes (a slice maximum tested against -inf: kir-online-folds).
    auto l = dyn_cast_or_null<FloatAttr>(constantOf(cmp.getLhs(), env));
    auto r = dyn_cast_or_null<FloatAttr>(constantOf(cmp.getRhs(), env));
    if (l && r) {
      APFloat::cmpResult o = l.getValue().compare(r.getValue());
      bool t = false;
      switch (cmp.getPredicate()) {
      case kir::CmpPredicate::EQ: t = o == APFloat::cmpEqual; break;
      case kir::CmpPredicate::NE: t = o != APFloat::cmpEqual; break;
      case kir::CmpPredicate::LT: t = o == APFloat::cmpLessThan; break;
      case kir::CmpPredicate::LE: t = o == APFloat::cmpLessThan || o == APFloat::cmpEqual; break;
      case kir::CmpPredicate::GT: t = o == APFloat::cmpGreaterThan; break;
      case kir::CmpPredicate::GE: t = o == APFloat::cmpGreaterThan || o == APFloat::cmpEqual; break;
      }
      out = IntegerAttr::get(IntegerType::get(v.getContext(), 1), t);
    }
  } else if (auto un = dyn_cast<UnaryOp>(def); un && un.getKind() == kir::UnaryKind::Exp) {
    // exp(-inf) = 0 and exp(0) = 1 exactly; nothing else is folded.
    if (auto f = dyn_cast_or_null<FloatAttr>(constantOf(un.getOperand(), env))) {
      const APFloat &x = f.getValue();
      if ((x.isInfinity() && x.isNegative()) || x.isZero())
        out = FloatAttr::get(f.getType(), x.isZero() ? 1.0 : 0.0);
    }
  } else if (auto c = dyn_cast<CastOp>(def)) {
    if (auto f = dyn_cast_or_null<FloatAttr>(constantOf(c.getOperand(), env)))
      if (auto to = dyn_cast<FloatType>(elementTypeOf(c.getType()))) {
        APFloat x = f.getValue();
        bool lost;
        x.convert(to.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
        if (!lost)
          out = FloatAttr::get(to, x);
      }
  } else if (auto r = dyn_cast<ReduceOp>(def)) {
    // A reduction of lanes that all hold the identity is the identity.
    unsigned k = cast<OpResult>(v).getResultNumber();
    Attribute in = constantOf(r.getInputs()[k], env), id = constantOf(r.getIdentities()[k], env);
    if (in && in == id && r.getInputs().size() == 1)
      out = id;
  } else if (auto c = dyn_cast<ContractOp>(def)) {
    // A zero operand contributes nothing: the result is the accumulator.
    auto zero = [&](Value x) {
      Attribute a = constantOf(x, env);
      if (auto f = dyn_cast_or_null<FloatAttr>(a))
        return f.getValue().isZero();
      if (auto i = dyn_cast_or_null<IntegerAttr>(a))
        return i.getValue().isZero();
      return false;
    };
    if (zero(c.getLhs()) || zero(c.getRhs()))
      out = constantOf(c.getAcc(), env);
  }
  if (out)
    env[v] = out;
  return out;
}
