//===- VjpRules.cpp - derivative rules of the kir-vjp pass ------------------===//
//
// One rule per differentiable KIR op: given the cotangents of an op's results,
// emit KIR that adds each operand's contribution (the vector-Jacobian
// product). Every rule emits ordinary KIR ops (pointwise math, broadcast_as,
// reduce, contract, transpose, select), so the derived kernel compiles through
// the same pipeline as any other. Tie rules follow torch: `max`/`min` of two
// values split the cotangent equally on a tie (torch.maximum), a `reduce`
// maximum or minimum splits it equally among all tied members (torch.amax).
//
//===----------------------------------------------------------------------===//

#include "Vjp.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/STLExtras.h"

#include <cmath>

using namespace mlir;
using namespace tessel::kir;

namespace tessel::kir::vjp {

Value castTo(OpBuilder &b, Location loc, Value value, Type type) {
  if (value.getType() == type)
    return value;
  // A float widened and narrowed back is the same value (a bf16 cotangent cast up to an f32
  // accumulator's and back down for a bf16 product): skip both casts.
  if (auto up = value.getDefiningOp<CastOp>(); up && up.getOperand().getType() == type) {
    auto from = dyn_cast<FloatType>(getElementTypeOrSelf(type));
    auto via = dyn_cast<FloatType>(getElementTypeOrSelf(value.getType()));
    if (from && via && via.getWidth() > from.getWidth() && via.getFPMantissaWidth() >= from.getFPMantissaWidth())
      return up.getOperand();
  }
  return CastOp::create(b, loc, type, value);
}

void Adjoints::add(Value v, Value g) {
  if (!g || !active.contains(v))
    return;
  g = castTo(b, v.getLoc(), g, v.getType());
  auto [it, inserted] = grads.try_emplace(v, g);
  if (!inserted)
    it->second = BinaryOp::create(b, v.getLoc(), BinaryKind::Add, it->second, g);
}

Value constantLike(OpBuilder &b, Location loc, double value, Value like) {
  Type element = getElementTypeOrSelf(like.getType());
  Value scalar = arith::ConstantOp::create(b, loc, b.getFloatAttr(element, value));
  if (!isa<RankedTensorType>(like.getType()))
    return scalar;
  return BroadcastAsOp::create(b, loc, like.getType(), scalar, like, ArrayRef<int64_t>{});
}

namespace {
/// Small emitters at one location.
struct Emit {
  OpBuilder &b;
  Location loc;
  Value bin(BinaryKind k, Value x, Value y) { return BinaryOp::create(b, loc, k, x, y); }
  Value add(Value x, Value y) { return bin(BinaryKind::Add, x, y); }
  Value sub(Value x, Value y) { return bin(BinaryKind::Sub, x, y); }
  Value mul(Value x, Value y) { return bin(BinaryKind::Mul, x, y); }
  Value div(Value x, Value y) { return bin(BinaryKind::Div, x, y); }
  Value un(UnaryKind k, Value x) { return UnaryOp::create(b, loc, k, x); }
  Value neg(Value x) { return un(UnaryKind::Neg, x); }
  Value c(double v, Value like) { return constantLike(b, loc, v, like); }
  Value cmp(CmpPredicate p, Value x, Value y) { return CmpOp::create(b, loc, p, x, y); }
  Value sel(Value cond, Value t, Value f) { return SelectOp::create(b, loc, cond, t, f); }
};

/// The result axes of an op that reduces `axes` out of a rank-`rank` value.
SmallVector<int64_t> keptAxes(int64_t rank, ArrayRef<int64_t> axes) {
  SmallVector<int64_t> kept;
  for (int64_t i = 0; i < rank; ++i)
    if (!llvm::is_contained(axes, i))
      kept.push_back(i);
  return kept;
}

/// The combine kind of a one-input reduce or scan whose region is one binary op of
/// its two arguments, or nothing.
std::optional<BinaryKind> combineKind(Region &combine, size_t inputs) {
  Block &body = combine.front();
  if (inputs != 1 || body.getOperations().size() != 2)
    return std::nullopt;
  auto bin = dyn_cast<BinaryOp>(body.front());
  auto yield = dyn_cast<YieldOp>(body.back());
  if (!bin || !yield || yield.getValues().size() != 1 || yield.getValues()[0] != bin.getResult())
    return std::nullopt;
  Value a = body.getArgument(0), c = body.getArgument(1);
  if (!((bin.getLhs() == a && bin.getRhs() == c) || (bin.getLhs() == c && bin.getRhs() == a)))
    return std::nullopt;
  return bin.getKind();
}

LogicalResult binaryAdjoint(BinaryOp op, Value g, Adjoints &adj) {
  Emit e{adj.b, op.getLoc()};
  Value x = op.getLhs(), y = op.getRhs(), r = op.getResult();
  switch (op.getKind()) {
  case BinaryKind::Add:
    adj.add(x, g);
    adj.add(y, g);
    return success();
  case BinaryKind::Sub:
    adj.add(x, g);
    if (adj.active.contains(y))
      adj.add(y, e.neg(g));
    return success();
  case BinaryKind::Mul:
    if (adj.active.contains(x))
      adj.add(x, e.mul(g, y));
    if (adj.active.contains(y))
      adj.add(y, e.mul(g, x));
    return success();
  case BinaryKind::Div:
    if (adj.active.contains(x))
      adj.add(x, e.div(g, y));
    if (adj.active.contains(y)) // d(x/y)/dy = -(x/y)/y
      adj.add(y, e.neg(e.div(e.mul(g, r), y)));
    return success();
  case BinaryKind::Pow:
    if (adj.active.contains(x)) // y * x^(y-1)
      adj.add(x, e.mul(g, e.mul(y, e.bin(BinaryKind::Pow, x, e.sub(y, e.c(1.0, y))))));
    if (adj.active.contains(y))
      adj.add(y, e.mul(g, e.mul(r, e.un(UnaryKind::Log, x))));
    return success();
  case BinaryKind::Max:
  case BinaryKind::Min:
  case BinaryKind::MaxNum:
  case BinaryKind::MinNum: {
    // torch.maximum/minimum: the chosen side takes the cotangent; a tie splits it in halves.
    bool isMax = op.getKind() == BinaryKind::Max || op.getKind() == BinaryKind::MaxNum;
    Value wins = e.cmp(isMax ? CmpPredicate::GT : CmpPredicate::LT, x, y);
    Value loses = e.cmp(isMax ? CmpPredicate::LT : CmpPredicate::GT, x, y);
    Value tie = e.cmp(CmpPredicate::EQ, x, y);
    Value zero = e.c(0.0, g), half = e.mul(g, e.c(0.5, g));
    Value shared = e.sel(tie, half, zero);
    if (adj.active.contains(x))
      adj.add(x, e.sel(wins, g, shared));
    if (adj.active.contains(y))
      adj.add(y, e.sel(loses, g, shared));
    return success();
  }
  default:
    return op.emitOpError() << "kir-vjp: no derivative for binary '" << stringifyBinaryKind(op.getKind())
                            << "' of a differentiated value";
  }
}

LogicalResult unaryAdjoint(UnaryOp op, Value g, Adjoints &adj) {
  Emit e{adj.b, op.getLoc()};
  Value x = op.getOperand(), r = op.getResult();
  Value d;
  switch (op.getKind()) {
  case UnaryKind::Neg: d = e.neg(g); break;
  case UnaryKind::Exp: d = e.mul(g, r); break;
  case UnaryKind::Exp2: d = e.mul(g, e.mul(r, e.c(std::log(2.0), r))); break;
  case UnaryKind::Expm1: d = e.mul(g, e.add(r, e.c(1.0, r))); break;
  case UnaryKind::Log: d = e.div(g, x); break;
  case UnaryKind::Log2: d = e.div(g, e.mul(x, e.c(std::log(2.0), x))); break;
  case UnaryKind::Log1p: d = e.div(g, e.add(x, e.c(1.0, x))); break;
  case UnaryKind::Sqrt: d = e.div(e.mul(g, e.c(0.5, g)), r); break;
  case UnaryKind::Rsqrt: // d x^-1/2 = -1/2 x^-3/2 = -1/2 r^3
    d = e.mul(g, e.mul(e.c(-0.5, r), e.mul(r, e.mul(r, r))));
    break;
  case UnaryKind::Sigmoid: d = e.mul(g, e.mul(r, e.sub(e.c(1.0, r), r))); break;
  case UnaryKind::Tanh: d = e.mul(g, e.sub(e.c(1.0, r), e.mul(r, r))); break;
  case UnaryKind::Sin: d = e.mul(g, e.un(UnaryKind::Cos, x)); break;
  case UnaryKind::Cos: d = e.neg(e.mul(g, e.un(UnaryKind::Sin, x))); break;
  case UnaryKind::Erf: // 2/sqrt(pi) exp(-x^2)
    d = e.mul(g, e.mul(e.c(2.0 / std::sqrt(M_PI), x), e.un(UnaryKind::Exp, e.neg(e.mul(x, x)))));
    break;
  case UnaryKind::Abs: { // torch: sign(x), 0 at 0
    Value zero = e.c(0.0, x);
    d = e.sel(e.cmp(CmpPredicate::GT, x, zero), g,
              e.sel(e.cmp(CmpPredicate::LT, x, zero), e.neg(g), e.c(0.0, g)));
    break;
  }
  case UnaryKind::Floor:
  case UnaryKind::Ceil:
  case UnaryKind::Round:
    return success(); // piecewise constant: zero almost everywhere (torch's rule)
  default:
    return op.emitOpError() << "kir-vjp: no derivative for unary '" << stringifyUnaryKind(op.getKind()) << "'";
  }
  adj.add(x, d);
  return success();
}

/// `operand` with result axis `dims[i]` of `g` as its axis i and every other axis of `g` summed.
Value unbroadcast(OpBuilder &b, Location loc, Value g, ArrayRef<int64_t> dims) {
  auto type = cast<RankedTensorType>(g.getType());
  SmallVector<int64_t> summed = keptAxes(type.getRank(), dims);
  Value reduced = summed.empty() ? g : sumOver(b, loc, g, summed);
  SmallVector<int64_t> sorted(dims);
  llvm::sort(sorted);
  if (ArrayRef<int64_t>(sorted) == dims)
    return reduced;
  // The reduced axes are `dims` in increasing order; operand axis i is where dims[i] sits among them.
  SmallVector<int64_t> perm;
  SmallVector<int64_t> shape;
  auto rt = cast<RankedTensorType>(reduced.getType());
  for (int64_t d : dims) {
    int64_t at = llvm::find(sorted, d) - sorted.begin();
    perm.push_back(at);
    shape.push_back(rt.getDimSize(at));
  }
  return TransposeOp::create(b, loc, RankedTensorType::get(shape, rt.getElementType()), reduced, perm);
}

LogicalResult reduceAdjoint(ReduceOp op, Value g, Adjoints &adj) {
  Emit e{adj.b, op.getLoc()};
  std::optional<BinaryKind> kind = combineKind(op.getCombine(), op.getInputs().size());
  Value x = op.getInputs()[0];
  auto xt = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> kept = keptAxes(xt.getRank(), op.getAxes());
  auto spread = [&](Value v) { return BroadcastAsOp::create(adj.b, op.getLoc(), x.getType(), v, x, kept).getResult(); };
  if (kind == BinaryKind::Add) {
    adj.add(x, spread(g));
    return success();
  }
  if (kind == BinaryKind::Max || kind == BinaryKind::Min || kind == BinaryKind::MaxNum ||
      kind == BinaryKind::MinNum) {
    // torch.amax/amin: every member equal to the result shares the cotangent equally.
    Value hit = e.cmp(CmpPredicate::EQ, x, spread(op.getResult(0)));
    Value zero = e.c(0.0, x);
    Value count = sumOver(adj.b, op.getLoc(), e.sel(hit, e.c(1.0, x), zero), op.getAxes());
    adj.add(x, e.sel(hit, spread(e.div(g, count)), zero));
    return success();
  }
  return op.emitOpError() << "kir-vjp: only sum, max and min reductions of one input are differentiated";
}

/// A sum scan (cumsum) along an axis: member j reaches the results at and after it (inclusive) or
/// after it (exclusive), so its cotangent is the scan of the cotangent in the other direction, with
/// the same exclusivity (the reverse cumsum of a cumsum; a reverse scan's is a forward one).
LogicalResult scanAdjoint(ScanOp op, Value g, Adjoints &adj) {
  std::optional<BinaryKind> kind = combineKind(op.getCombine(), op.getInputs().size());
  Value x = op.getInputs()[0];
  Attribute identity;
  if (kind != BinaryKind::Add || !matchPattern(op.getIdentities()[0], m_Constant(&identity)) ||
      !isa<FloatAttr>(identity) || !cast<FloatAttr>(identity).getValue().isZero())
    return op.emitOpError() << "kir-vjp: only a sum scan (cumsum) from zero of one input is differentiated";
  Location loc = op.getLoc();
  Type element = getElementTypeOrSelf(x.getType());
  Value zero = arith::ConstantOp::create(adj.b, loc, adj.b.getZeroAttr(element));
  auto back = ScanOp::create(adj.b, loc, TypeRange{x.getType()}, ValueRange{castTo(adj.b, loc, g, x.getType())},
                             op.getAxis(), ValueRange{zero}, op.getExclusive(), !op.getReverse());
  OpBuilder::InsertionGuard guard(adj.b);
  Block *body = adj.b.createBlock(&back.getCombine(), {}, {element, element}, {loc, loc});
  YieldOp::create(adj.b, loc, ValueRange{BinaryOp::create(adj.b, loc, BinaryKind::Add, body->getArgument(0),
                                                             body->getArgument(1))});
  adj.add(x, back.getResult(0));
  return success();
}

/// `value`, cast to `element` when its element type differs.
Value castElements(OpBuilder &b, Location loc, Value value, Type element) {
  auto t = cast<RankedTensorType>(value.getType());
  return castTo(b, loc, value, RankedTensorType::get(t.getShape(), element));
}

/// `value` spread over the axes of `reference` with element type `element`: value axis i becomes
/// axis to[i] (transposed first when `to` is not increasing, as kir.broadcast_as keeps operand order).
Value spreadTo(OpBuilder &b, Location loc, Value value, ArrayRef<int64_t> to, Value reference, Type element) {
  auto vt = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> order = llvm::to_vector(llvm::seq<int64_t>(0, vt.getRank()));
  llvm::sort(order, [&](int64_t x, int64_t y) { return to[x] < to[y]; });
  SmallVector<int64_t> dims, shape;
  for (int64_t i : order) {
    dims.push_back(to[i]);
    shape.push_back(vt.getDimSize(i));
  }
  if (!llvm::equal(order, llvm::seq<int64_t>(0, vt.getRank())))
    value = TransposeOp::create(b, loc, RankedTensorType::get(shape, vt.getElementType()), value, order);
  auto rt = cast<RankedTensorType>(reference.getType());
  return BroadcastAsOp::create(b, loc, RankedTensorType::get(rt.getShape(), element), value, reference, dims);
}

LogicalResult contractAdjoint(ContractOp op, Value g, Adjoints &adj) {
  OpBuilder &b = adj.b;
  Location loc = op.getLoc();
  Value lhs = op.getLhs(), rhs = op.getRhs();
  auto lt = cast<RankedTensorType>(lhs.getType()), rt = cast<RankedTensorType>(rhs.getType());
  Type element = lt.getElementType();
  Type acc = op.getType().getElementType();
  ArrayRef<int64_t> lr = op.getLhsReduce(), rr = op.getRhsReduce(), lb = op.getLhsBatch(), rb = op.getRhsBatch();
  // Result axes: lhs non-reduced axes (lhs order), then rhs free axes (rhs order).
  SmallVector<int64_t> lhsKept = keptAxes(lt.getRank(), lr);
  SmallVector<int64_t> rhsFree;
  for (int64_t i = 0; i < rt.getRank(); ++i)
    if (!llvm::is_contained(rr, i) && !llvm::is_contained(rb, i))
      rhsFree.push_back(i);
  auto posIn = [](ArrayRef<int64_t> list, int64_t v) { return int64_t(llvm::find(list, v) - list.begin()); };
  // The products run in the operands' dtype, as the forward's did (an f16 GEMM's cotangent products are
  // f16 x f16 with the forward's accumulator).
  Value gc = castElements(b, loc, g, element);
  auto contract = [&](Value x, Value y, SmallVector<int64_t> xr, SmallVector<int64_t> yr, SmallVector<int64_t> xb,
                      SmallVector<int64_t> yb, SmallVector<int64_t> shape) -> Value {
    return ContractOp::create(b, loc, RankedTensorType::get(shape, acc), x, y, Value(), xr, yr, xb, yb,
                              op.getPrecisionAttr());
  };
  if (adj.active.contains(lhs) && rhsFree.empty()) {
    // Nothing of R is summed: dL = G * R, each spread over L's axes (an outer product, in the accumulator).
    SmallVector<int64_t> rTo(rt.getRank());
    for (auto [a, c] : llvm::zip(lr, rr))
      rTo[c] = a;
    for (auto [a, c] : llvm::zip(lb, rb))
      rTo[c] = a;
    Value d = BinaryOp::create(b, loc, BinaryKind::Mul, spreadTo(b, loc, g, lhsKept, lhs, acc),
                               spreadTo(b, loc, castElements(b, loc, rhs, acc), rTo, lhs, acc));
    adj.add(lhs, castElements(b, loc, d, element));
  } else if (adj.active.contains(lhs)) {
    // dL = contract(G, R): G's rhs-free positions with R's free axes; G's batch positions with R's batch.
    SmallVector<int64_t> gr, yr, gb, yb;
    for (auto [j, a] : llvm::enumerate(rhsFree)) {
      gr.push_back(int64_t(lhsKept.size() + j));
      yr.push_back(a);
    }
    for (auto [a, c] : llvm::zip(lb, rb)) {
      gb.push_back(posIn(lhsKept, a));
      yb.push_back(c);
    }
    // Result: G's kept axes (= lhsKept, lhs order), then R's reduce axes in R order.
    SmallVector<int64_t> rReduced = llvm::to_vector(rr);
    llvm::sort(rReduced);
    SmallVector<int64_t> order(lhsKept); // lhs axis at each result position
    SmallVector<int64_t> shape;
    for (int64_t a : lhsKept)
      shape.push_back(lt.getDimSize(a));
    for (int64_t c : rReduced) {
      int64_t a = lr[posIn(rr, c)];
      order.push_back(a);
      shape.push_back(lt.getDimSize(a));
    }
    Value d = contract(gc, rhs, gr, yr, gb, yb, shape);
    SmallVector<int64_t> perm;
    for (int64_t a = 0; a < lt.getRank(); ++a)
      perm.push_back(posIn(order, a));
    if (!llvm::equal(perm, llvm::seq<int64_t>(0, lt.getRank())))
      d = TransposeOp::create(b, loc, RankedTensorType::get(lt.getShape(), acc), d, perm);
    adj.add(lhs, castElements(b, loc, d, element));
  }
  if (adj.active.contains(rhs)) {
    SmallVector<int64_t> lhsFree;
    for (int64_t a : lhsKept)
      if (!llvm::is_contained(lb, a))
        lhsFree.push_back(a);
    if (lhsFree.empty()) {
      // dR = L * G, each spread over R's axes (an outer product, in the accumulator).
      SmallVector<int64_t> lTo(lt.getRank()), gTo;
      for (auto [a, c] : llvm::zip(lr, rr))
        lTo[a] = c;
      for (auto [a, c] : llvm::zip(lb, rb))
        lTo[a] = c;
      for (int64_t a : lhsKept) // only batch axes: L has no free axis
        gTo.push_back(lTo[a]);
      llvm::append_range(gTo, rhsFree);
      Value d = BinaryOp::create(b, loc, BinaryKind::Mul, spreadTo(b, loc, castElements(b, loc, lhs, acc), lTo, rhs, acc),
                                 spreadTo(b, loc, g, gTo, rhs, acc));
      adj.add(rhs, castElements(b, loc, d, element));
    } else {
      // dR = contract(L, G): L's free axes with G's positions of them; L's batch with G's batch positions.
      SmallVector<int64_t> xr, gr, xb, gb;
      for (int64_t a : lhsFree) {
        xr.push_back(a);
        gr.push_back(posIn(lhsKept, a));
      }
      for (int64_t a : lb) {
        xb.push_back(a);
        gb.push_back(posIn(lhsKept, a));
      }
      // Result: L's non-reduced axes (batch and forward-reduce axes, L order), then G's rhs-free positions.
      SmallVector<int64_t> order; // rhs axis at each result position
      SmallVector<int64_t> shape;
      for (int64_t a = 0; a < lt.getRank(); ++a) {
        if (llvm::is_contained(lhsFree, a))
          continue;
        int64_t c = llvm::is_contained(lb, a) ? rb[posIn(lb, a)] : rr[posIn(lr, a)];
        order.push_back(c);
        shape.push_back(rt.getDimSize(c));
      }
      for (int64_t c : rhsFree) {
        order.push_back(c);
        shape.push_back(rt.getDimSize(c));
      }
      Value d = contract(lhs, gc, xr, gr, xb, gb, shape);
      SmallVector<int64_t> perm;
      for (int64_t c = 0; c < rt.getRank(); ++c)
        perm.push_back(posIn(order, c));
      if (!llvm::equal(perm, llvm::seq<int64_t>(0, rt.getRank())))
        d = TransposeOp::create(b, loc, RankedTensorType::get(rt.getShape(), acc), d, perm);
      adj.add(rhs, castElements(b, loc, d, element));
    }
  }
  if (op.getInit())
    adj.add(op.getInit(), g);
  return success();
}
} // namespace

LogicalResult emitAdjoint(Operation *op, Adjoints &adj) {
  Value g = op->getNumResults() == 1 ? adj.get(op->getResult(0)) : Value();
  if (auto bin = dyn_cast<BinaryOp>(op))
    return binaryAdjoint(bin, g, adj);
  if (auto un = dyn_cast<UnaryOp>(op))
    return unaryAdjoint(un, g, adj);
  if (auto cast = dyn_cast<CastOp>(op)) {
    // Float to float only: integer results are never active, integer operands never are.
    if (isa<FloatType>(getElementTypeOrSelf(cast.getOperand().getType())))
      adj.add(cast.getOperand(), CastOp::create(adj.b, op->getLoc(), cast.getOperand().getType(), g));
    return success();
  }
  if (auto sel = dyn_cast<SelectOp>(op)) {
    Emit e{adj.b, op->getLoc()};
    Value zero = e.c(0.0, g);
    if (adj.active.contains(sel.getTrueValue()))
      adj.add(sel.getTrueValue(), e.sel(sel.getCondition(), g, zero));
    if (adj.active.contains(sel.getFalseValue()))
      adj.add(sel.getFalseValue(), e.sel(sel.getCondition(), zero, g));
    return success();
  }
  if (auto bc = dyn_cast<BroadcastOp>(op)) {
    adj.add(bc.getOperand(), unbroadcast(adj.b, op->getLoc(), g, bc.getDims()));
    return success();
  }
  if (auto bc = dyn_cast<BroadcastAsOp>(op)) {
    adj.add(bc.getOperand(), unbroadcast(adj.b, op->getLoc(), g, bc.getDims()));
    return success();
  }
  if (auto tr = dyn_cast<TransposeOp>(op)) {
    ArrayRef<int64_t> perm = tr.getPermutation();
    SmallVector<int64_t> inverse(perm.size());
    for (auto [i, p] : llvm::enumerate(perm))
      inverse[p] = int64_t(i);
    adj.add(tr.getOperand(), TransposeOp::create(adj.b, op->getLoc(), tr.getOperand().getType(), g, inverse));
    return success();
  }
  if (auto red = dyn_cast<ReduceOp>(op))
    return reduceAdjoint(red, g, adj);
  if (auto con = dyn_cast<ContractOp>(op))
    return contractAdjoint(con, g, adj);
  if (auto scan = dyn_cast<ScanOp>(op))
    return scanAdjoint(scan, g, adj);
  return op->emitOpError() << "kir-vjp: cannot differentiate '" << op->getName() << "' yet";
}

Value sumOver(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> axes) {
  auto type = cast<RankedTensorType>(x.getType());
  Type element = type.getElementType();
  SmallVector<int64_t> shape;
  for (int64_t i : keptAxes(type.getRank(), axes))
    shape.push_back(type.getDimSize(i));
  Type result = shape.empty() ? element : Type(RankedTensorType::get(shape, element));
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
  auto sum = ReduceOp::create(b, loc, TypeRange{result}, ValueRange{x}, axes, ValueRange{zero});
  OpBuilder::InsertionGuard guard(b);
  Block *body = b.createBlock(&sum.getCombine(), {}, {element, element}, {loc, loc});
  YieldOp::create(b, loc, ValueRange{BinaryOp::create(b, loc, BinaryKind::Add, body->getArgument(0),
                                                      body->getArgument(1))});
  return sum.getResult(0);
}


} // namespace tessel::kir::vjp
