//===- MonotoneReductions.cpp - a maximum of a monotone map is the map of the maximum ===//
//
// max_i f(x_i) = f(max_i x_i) when f is non-decreasing (seed 002 §1: a rewrite is legal when it
// preserves values; these are exact, not a numerics permission). A maximum of `e / sum(e)` (softmax
// probabilities, then `p >= min_p * max(p)`, corpus 178) reads the row once more after the sum;
// max(e) / sum(e) reads nothing new, and max(exp(z - max z)) needs no pass at all. Each step
// rewrites one reduction into a reduction of the map's operand; the new reduction is rewritten in
// turn, and one over a value an earlier reduction already reduces is that reduction.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/KIR/Transforms/Passes.h"

#include "AxisDomains.h"

#include "mlir/IR/Matchers.h"

#include <cmath>

namespace tessel::kir {
#define GEN_PASS_DEF_KIRMONOTONEREDUCTIONS
#include "tessel/Dialect/KIR/Transforms/Passes.h.inc"
} // namespace tessel::kir

using namespace mlir;
using namespace tessel::kir;

namespace {

/// The kind of the combine of a one-input reduction whose region is `kind(a, b)` of its two
/// arguments (either order), else nullopt.
std::optional<BinaryKind> combineKind(ReduceOp red) {
  if (red.getInputs().size() != 1 || red.getNumResults() != 1)
    return std::nullopt;
  Block &body = red.getCombine().front();
  if (body.getNumArguments() != 2 || !llvm::hasNItems(body.getOperations(), 2))
    return std::nullopt;
  auto bin = dyn_cast<BinaryOp>(body.front());
  auto yield = dyn_cast<YieldOp>(body.back());
  if (!bin || !yield || yield->getNumOperands() != 1 || yield->getOperand(0) != bin.getResult())
    return std::nullopt;
  Value a = body.getArgument(0), b = body.getArgument(1);
  if (!((bin.getLhs() == a && bin.getRhs() == b) || (bin.getLhs() == b && bin.getRhs() == a)))
    return std::nullopt;
  return bin.getKind();
}

/// The float constant `v` is (through a scalar kir.broadcast), if it is one.
std::optional<double> floatConstant(Value v) {
  FloatAttr attr;
  if (matchPattern(v, m_Constant(&attr)))
    return attr.getValueAsDouble();
  return std::nullopt;
}

/// The scalar a `kir.broadcast` (or, in a closed region, a `kir.broadcast_as`) of a scalar over all
/// of `v`'s axes spreads (`dims []`), else null.
Value broadcastScalar(Value v) {
  if (auto bc = v.getDefiningOp<BroadcastOp>())
    return isa<ShapedType>(bc.getOperand().getType()) ? nullptr : bc.getOperand();
  if (auto bc = v.getDefiningOp<BroadcastAsOp>())
    return isa<ShapedType>(bc.getOperand().getType()) ? nullptr : bc.getOperand();
  return nullptr;
}

/// Whether every element of `v` is +0, positive or NaN (never negative, never -0): exponentials,
/// squares, and sums, products and selections of such values.
bool nonNegative(Value v, unsigned depth = 0) {
  if (depth > 8)
    return false;
  if (std::optional<double> c = floatConstant(v))
    return *c > 0.0 || (*c == 0.0 && !std::signbit(*c));
  if (Value s = broadcastScalar(v))
    return nonNegative(s, depth + 1);
  if (auto un = v.getDefiningOp<UnaryOp>())
    return (un.getKind() == UnaryKind::Exp || un.getKind() == UnaryKind::Exp2) && !un.getApproximate();
  if (auto sel = v.getDefiningOp<SelectOp>())
    return nonNegative(sel.getTrueValue(), depth + 1) && nonNegative(sel.getFalseValue(), depth + 1);
  if (auto bin = v.getDefiningOp<BinaryOp>()) {
    if (bin.getKind() == BinaryKind::Mul && bin.getLhs() == bin.getRhs())
      return true; // x * x: +0 for ±0, +inf for ±inf
    if (bin.getKind() == BinaryKind::Mul || bin.getKind() == BinaryKind::Add)
      return nonNegative(bin.getLhs(), depth + 1) && nonNegative(bin.getRhs(), depth + 1);
  }
  return false;
}

/// Whether `s` is a constant finite positive float (a scale that maps -inf, +inf and NaN to
/// themselves and keeps order: correctly rounded x * s and x / s are non-decreasing in x).
bool positiveFinite(Value s) {
  std::optional<double> c = floatConstant(s);
  return c && *c > 0.0 && std::isfinite(*c);
}

/// Whether `s` is the result of a reduction other than `red` over `input` and `red`'s axes whose
/// combine is `kind` and whose identity is the constant `identity` (the row's own maximum from
/// -inf, or its own sum from 0).
bool reducesSame(Value s, ReduceOp red, Value input, BinaryKind kind, double identity) {
  auto other = s.getDefiningOp<ReduceOp>();
  return other && other != red && other.getInputs().size() == 1 && other.getInputs()[0] == input &&
         other.getAxes() == red.getAxes() && combineKind(other) == kind &&
         floatConstant(other.getIdentities()[0]) == identity;
}

/// One monotone step under a reduction: its input is f(inner) with f non-decreasing. `guard`: f
/// does not keep the reduction's identity (exp(-inf) = 0), so an empty row must keep the identity.
/// `makeInner`, where set, builds `inner` at the reduction (a value the program does not hold yet);
/// `visible`, where set, is the row's mask: the guard is "some member visible" (any(visible)), not
/// the domain's emptiness.
struct Step {
  Value inner;
  std::function<Value(OpBuilder &, Location, Value)> apply;
  bool guard = false;
  std::function<Value(OpBuilder &, Location)> makeInner = nullptr;
  Value visible = nullptr;
};

std::optional<Step> stepThrough(ReduceOp red, Value x, bool max, std::string &why);

/// The step through `c * tanh(y / c)` (logit soft-capping), c one scalar on both sides: for c > 0
/// the division, tanh and the product are each non-decreasing; for c < 0 the division and the
/// product each reverse the order, so their composition keeps it (correctly rounded x / c and c * t
/// are monotone in x and t; tanh is non-decreasing and keeps NaN). tanh(-inf) = -1, hence the
/// guard. c = +-inf or NaN makes every term NaN on both sides; c = +-0 makes y / c NaN only at
/// y = +-0 (0 / 0) and +-inf elsewhere (c * tanh(+-inf) = +-0, non-decreasing): the inner row
/// takes NaN where c and y are both zero, so such a member still yields NaN through the maximum.
std::optional<Step> softCapStep(BinaryOp mul) {
  if (mul.getKind() != BinaryKind::Mul || mul.getApproximate() || mul.getFlushToZero())
    return std::nullopt;
  for (auto [cSide, tSide] : {std::pair{mul.getLhs(), mul.getRhs()}, std::pair{mul.getRhs(), mul.getLhs()}}) {
    Value c = broadcastScalar(cSide);
    auto tanh = tSide.getDefiningOp<UnaryOp>();
    if (!c || !tanh || tanh.getKind() != UnaryKind::Tanh || tanh.getApproximate())
      continue;
    auto div = tanh.getOperand().getDefiningOp<BinaryOp>();
    if (!div || div.getKind() != BinaryKind::Div || div.getApproximate() || div.getFlushToZero() ||
        broadcastScalar(div.getRhs()) != c || broadcastScalar(div.getLhs()))
      continue;
    Value y = div.getLhs();
    bool lhsScale = cSide == mul.getLhs();
    Step step;
    step.inner = y;
    step.guard = true;
    step.apply = [c, lhsScale](OpBuilder &b, Location loc, Value r) {
      Value t = UnaryOp::create(b, loc, UnaryKind::Tanh, BinaryOp::create(b, loc, BinaryKind::Div, r, c)).getResult();
      return lhsScale ? BinaryOp::create(b, loc, BinaryKind::Mul, c, t).getResult()
                      : BinaryOp::create(b, loc, BinaryKind::Mul, t, c).getResult();
    };
    std::optional<double> known = floatConstant(c);
    if (!known || *known == 0.0 || std::isnan(*known))
      step.makeInner = [c, y](OpBuilder &b, Location loc) -> Value {
        // where(c == 0 & y == 0, NaN, y): the members whose term is 0 / 0 = NaN.
        Type f = getElementTypeOrSelf(y.getType());
        Value zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(f, 0.0));
        Value nan = arith::ConstantOp::create(b, loc, b.getFloatAttr(f, std::nan("")));
        Value cz = BroadcastAsOp::create(b, loc, RankedTensorType::get(cast<ShapedType>(y.getType()).getShape(),
                                                                       b.getI1Type()),
                                         CmpOp::create(b, loc, CmpPredicate::EQ, c, zero), y, ArrayRef<int64_t>{});
        Value yz = CmpOp::create(b, loc, CmpPredicate::EQ, y,
                                 BroadcastAsOp::create(b, loc, y.getType(), zero, y, ArrayRef<int64_t>{}));
        Value both = BinaryOp::create(b, loc, BinaryKind::And, cz, yz);
        return SelectOp::create(b, loc, both, BroadcastAsOp::create(b, loc, y.getType(), nan, y, ArrayRef<int64_t>{}), y);
      };
    return step;
  }
  return std::nullopt;
}

/// The step through a masked row `where(visible, f(y), identity)` (a causal or padded row's scores
/// after the map): the reduction of `where(visible, y', identity)` with f's own step, then f, kept
/// to the identity where no member is visible (f(identity) may not be the identity: tanh(-inf)).
std::optional<Step> maskedStep(ReduceOp red, SelectOp sel, bool max, std::string &why) {
  std::optional<double> id = floatConstant(red.getIdentities()[0]);
  std::optional<double> fill = floatConstant(broadcastScalar(sel.getFalseValue()) ? broadcastScalar(sel.getFalseValue())
                                                                                   : sel.getFalseValue());
  if (!id || !fill || *id != *fill || !isa<ShapedType>(sel.getCondition().getType()))
    return std::nullopt;
  // f's step, as if the reduction read f(y) itself.
  std::optional<Step> inner = stepThrough(red, sel.getTrueValue(), max, why);
  if (!inner)
    return std::nullopt;
  // Only a map that does not keep the identity (a soft cap's tanh, an exponential) moves out of a
  // masked row: a scalar scale or shift there saves one operation a member and would hide the row's
  // maximum of the scores from kir-online-folds (m = max(where(visible, s * c, -inf)) of an attention).
  if (!inner->guard)
    return std::nullopt;
  Value visible = sel.getCondition();
  Step step;
  step.apply = inner->apply;
  step.guard = inner->guard;
  step.visible = inner->guard ? visible : Value();
  Value innerValue = inner->inner;
  auto makeInner = inner->makeInner;
  // The fill spread over the new row (a fill shaped after f(y) would keep f(y) alive).
  Value idScalar = red.getIdentities()[0];
  step.makeInner = [visible, idScalar, innerValue, makeInner](OpBuilder &b, Location loc) -> Value {
    Value y = makeInner ? makeInner(b, loc) : innerValue;
    Value fill = BroadcastAsOp::create(b, loc, y.getType(), idScalar, y, ArrayRef<int64_t>{});
    return SelectOp::create(b, loc, visible, y, fill).getResult();
  };
  return step;
}

/// The step `red` (a maximum or minimum with an infinite identity, `max` says which) takes
/// through the defining op of `x`, its input (or a value it reads through a mask), or nullopt with `why` set where the input is a scalar map it
/// cannot take (a scale of unknown sign).
std::optional<Step> stepThrough(ReduceOp red, Value x, bool max, std::string &why) {
  if (auto sel = x.getDefiningOp<SelectOp>())
    return maskedStep(red, sel, max, why);
  if (auto mul = x.getDefiningOp<BinaryOp>())
    if (std::optional<Step> capped = softCapStep(mul))
      return capped;
  if (auto un = x.getDefiningOp<UnaryOp>()) {
    // exp is non-decreasing, maps NaN to NaN and +inf to +inf; -inf to 0, hence the guard.
    if ((un.getKind() != UnaryKind::Exp && un.getKind() != UnaryKind::Exp2) || un.getApproximate())
      return std::nullopt;
    UnaryKind kind = un.getKind();
    return Step{un.getOperand(),
                [kind](OpBuilder &b, Location loc, Value r) { return UnaryOp::create(b, loc, kind, r).getResult(); },
                /*guard=*/true};
  }
  auto bin = x.getDefiningOp<BinaryOp>();
  if (!bin || bin.getApproximate() || bin.getFlushToZero())
    return std::nullopt;
  BinaryKind kind = bin.getKind();
  // The scalar side (broadcast over the whole row) and the row side.
  Value s = broadcastScalar(bin.getRhs()), e = bin.getLhs();
  if (!s && (kind == BinaryKind::Mul || kind == BinaryKind::Add)) {
    s = broadcastScalar(bin.getLhs());
    e = bin.getRhs();
  }
  if (!s || broadcastScalar(e))
    return std::nullopt;
  auto make = [kind, s](OpBuilder &b, Location loc, Value r) {
    return BinaryOp::create(b, loc, kind, r, s).getResult();
  };
  switch (kind) {
  case BinaryKind::Div:
  case BinaryKind::Mul:
    if (positiveFinite(s))
      return Step{e, make};
    // e / sum(e) with e >= 0: sum >= every e_i, so a zero sum means every e_i is 0 (0 / 0 is NaN
    // on both sides), an infinite sum an infinite e_i (inf / inf is NaN on both sides), else the
    // division is by a finite positive number. Only for a maximum: min(e / inf) would be NaN where
    // min(e) / inf is 0. An empty row: -inf / 0 = -inf, the identity.
    if (kind == BinaryKind::Div && max && reducesSame(s, red, e, BinaryKind::Add, 0.0) && nonNegative(e))
      return Step{e, make};
    why = "the scale's sign is not known (a positive finite constant, or the row's own sum of non-negative "
          "terms, commutes with the maximum)";
    return std::nullopt;
  case BinaryKind::Add:
  case BinaryKind::Sub:
    // x - c for finite c is non-decreasing and keeps ±inf and NaN. x - max(x) (the row's own
    // extremum): where max(x) is ±inf, both sides are NaN (inf - inf); an empty row needs the guard.
    if (floatConstant(s) && std::isfinite(*floatConstant(s)))
      return Step{e, make};
    if (kind == BinaryKind::Sub && reducesSame(s, red, e, max ? BinaryKind::Max : BinaryKind::Min, max ? -INFINITY : INFINITY))
      return Step{e, make, /*guard=*/true};
    why = "the shift is not finite, or is not the row's own extremum";
    return std::nullopt;
  default:
    return std::nullopt;
  }
}

/// Whether the (step-1) domain `d` has a member, as an i1 built at `b`; null where `d` is neither a
/// step-1 `kir.domain` nor a subregion of one.
Value nonEmpty(OpBuilder &b, Location loc, Value d) {
  if (auto dom = d.getDefiningOp<DomainOp>()) {
    if (dom.getStep() != 1)
      return nullptr;
    return CmpOp::create(b, loc, CmpPredicate::LT, dom.getLower(), dom.getUpper());
  }
  auto sub = d.getDefiningOp<SubregionOp>();
  auto dom = sub ? sub.getSource().getDefiningOp<DomainOp>() : DomainOp();
  if (!dom || dom.getStep() != 1)
    return nullptr;
  // The members of the source in [begin, end) (nothing is clamped, kir.subregion).
  Value lo = BinaryOp::create(b, loc, BinaryKind::Max, sub.getBegin(), dom.getLower());
  Value hi = BinaryOp::create(b, loc, BinaryKind::Min, sub.getEnd(), dom.getUpper());
  return CmpOp::create(b, loc, CmpPredicate::LT, lo, hi);
}

/// The reduction of `red`'s kind over `input` and axes: an earlier one in `red`'s block, or a copy
/// of `red` reading `input`, made just before it (`made` says which).
ReduceOp reductionOf(ReduceOp red, Value input, bool &made) {
  made = false;
  for (Operation *user : input.getUsers()) {
    auto other = dyn_cast<ReduceOp>(user);
    if (other && other != red && other->getBlock() == red->getBlock() && other->isBeforeInBlock(red) &&
        reducesSame(other.getResult(0), red, input, *combineKind(red), *floatConstant(red.getIdentities()[0])))
      return other;
  }
  OpBuilder b(red);
  auto copy = cast<ReduceOp>(b.clone(*red));
  copy.getInputsMutable()[0].assign(input);
  made = true;
  return copy;
}

/// Erases `v`'s defining op and then its operands' where nothing uses them (pure kir ops only).
void eraseDeadChain(Value v) {
  // Operations, not values: an op reached twice (a shared operand) must not be read once erased.
  SmallVector<Operation *> work;
  DenseSet<Operation *> erased;
  if (Operation *op = v.getDefiningOp())
    work.push_back(op);
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    if (erased.contains(op) || !op->use_empty() || !isPure(op) || op->getNumRegions() ||
        !isa<KIRDialect>(op->getDialect()))
      continue;
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        work.push_back(def);
    erased.insert(op);
    op->erase();
  }
}

/// Whether `red`'s result shifts its own input row: `x - m` (m broadcast over the row) with m =
/// max(x), the two-pass softmax form that kir-online-folds turns into a fold (seed 002 §1).
/// Moving the maximum inside the map there (max(c * k) -> max(c) * k) saves no pass, since the
/// shift needs the whole row before it either way, and hides the shift from that pass.
bool shiftsOwnRow(ReduceOp red) {
  Value x = red.getInputs()[0], m = red.getResult(0);
  for (Operation *user : m.getUsers()) {
    auto bc = dyn_cast<BroadcastOp>(user);
    auto bca = dyn_cast<BroadcastAsOp>(user);
    Value spread = bc ? bc.getResult() : bca ? bca.getResult() : Value();
    if (!spread)
      continue;
    for (Operation *use : spread.getUsers())
      if (auto sub = dyn_cast<BinaryOp>(use))
        if (sub.getKind() == BinaryKind::Sub && sub.getLhs() == x && sub.getRhs() == spread)
          return true;
  }
  return false;
}

struct MonotoneReductions : tessel::kir::impl::KIRMonotoneReductionsBase<MonotoneReductions> {
  void runOnOperation() override {
    bool remarks = remarksEnabled(getOperation());
    // In block order (popped from the back), so a reduction made for an earlier one is found by
    // the later ones over the same value.
    SmallVector<ReduceOp> work;
    getOperation().walk([&](ReduceOp red) { work.push_back(red); });
    std::reverse(work.begin(), work.end());
    DenseMap<Value, SmallVector<Value>> memo;
    while (!work.empty()) {
      ReduceOp red = work.pop_back_val();
      std::optional<BinaryKind> kind = combineKind(red);
      if (!kind || (*kind != BinaryKind::Max && *kind != BinaryKind::Min))
        continue; // max_num / min_num drop NaN: a map that makes NaN would change the answer
      bool max = *kind == BinaryKind::Max;
      auto input = cast<RankedTensorType>(red.getInputs()[0].getType());
      std::optional<double> id = floatConstant(red.getIdentities()[0]);
      // A whole-tensor reduction to a scalar (the scale is one scalar for all its terms), from the
      // infinite identity that every step keeps.
      if (!isa<FloatType>(input.getElementType()) || red.getAxes().size() != size_t(input.getRank()) ||
          !id || !std::isinf(*id) || (*id < 0) != max)
        continue;
      if (max && shiftsOwnRow(red)) {
        if (remarks)
          red.emitRemark() << "kir-monotone-reductions: the maximum stays: it shifts its own row (x - max x), "
                              "the two-pass softmax form kir-online-folds reads; the map's maximum saves no pass";
        continue;
      }
      std::string why;
      std::optional<Step> step = stepThrough(red, red.getInputs()[0], max, why);
      if (!step) {
        if (remarks && !why.empty())
          red.emitRemark() << "kir-monotone-reductions: the " << (max ? "maximum" : "minimum") << " stays: " << why;
        continue;
      }
      Location loc = red.getLoc();
      OpBuilder b(red);
      Value empty; // the guard's condition, built before anything else changes
      if (step->guard && step->visible) {
        // Some member visible: any(visible), over the reduction's axes.
        Type i1 = b.getI1Type();
        Value no = arith::ConstantOp::create(b, loc, b.getBoolAttr(false));
        auto any = ReduceOp::create(b, loc, TypeRange{i1}, ValueRange{step->visible}, red.getAxes(), ValueRange{no});
        {
          OpBuilder::InsertionGuard g(b);
          Block *blk = b.createBlock(&any.getCombine(), {}, {i1, i1}, {loc, loc});
          YieldOp::create(b, loc, ValueRange{BinaryOp::create(b, loc, BinaryKind::Or, blk->getArgument(0),
                                                              blk->getArgument(1))});
        }
        empty = any.getResult(0);
      } else if (step->guard) {
        std::optional<SmallVector<Value>> doms = domainsOf(red.getInputs()[0], memo);
        if (!doms)
          continue;
        Value all;
        for (Value d : *doms) {
          Value ne = nonEmpty(b, loc, d);
          if (!ne) {
            all = nullptr;
            break;
          }
          all = all ? BinaryOp::create(b, loc, BinaryKind::And, all, ne).getResult() : ne;
        }
        if (!all) {
          if (remarks)
            red.emitRemark() << "kir-monotone-reductions: the " << (max ? "maximum" : "minimum")
                             << " stays: the row's emptiness is not known (a strided domain)";
          continue;
        }
        empty = all;
      }
      bool made = false;
      if (step->makeInner) {
        b.setInsertionPoint(red);
        step->inner = step->makeInner(b, loc);
      }
      ReduceOp inner = reductionOf(red, step->inner, made);
      b.setInsertionPoint(red);
      Value r = step->apply(b, loc, inner.getResult(0));
      if (empty)
        r = SelectOp::create(b, loc, empty, r, red.getIdentities()[0]);
      if (remarks)
        red.emitRemark() << "kir-monotone-reductions: the " << (max ? "maximum" : "minimum")
                         << " of a non-decreasing map of a row is the map of the row's "
                         << (made ? "own new reduction" : "existing reduction");
      Value old = red.getInputs()[0];
      red.getResult(0).replaceAllUsesWith(r);
      red.erase();
      eraseDeadChain(old);
      memo.clear(); // erased values must not stay keys
      if (made)
        work.push_back(inner);
    }
  }
};

} // namespace
