//===- OnlineRescale.cpp - a summary's rescaling moves into its exponentials ===//
//
// seed 002 §4: "Forming online segmented rescaling under explicit
// normalized-summary numerical permissions and applicability conditions."
//
// A realized region fold combines the tile's summary into the carries. When a
// summary component is normalized to a tile-local reference r (it is a linear
// image L of exp(A - r): sums, selects with zero, float casts, and the lhs rows
// of a contraction), and the combine rescales it to the combined reference r2
// by the factor exp(r - r2), then
//
//   L(exp(A - r)) * exp(r - r2)  =  L(exp(A - r) * exp(r - r2))  =  L(exp(A - r2))
//
// (exactly in real arithmetic; in floating point the rounding differs, which
// `numerics = relaxed_normalization` permits, seed 002 §1). The tile is then
// exponentiated once against the combined reference, the component's [rows, N]
// multiplication disappears, and the remaining `carry * alpha + contract(...)`
// joins the contraction's accumulator in pgpu-merge-contract-add: the
// FlashAttention-2 form, reached from the summarizer and combine the user wrote
// (no kernel names, no attention pattern: only the algebra above).
//
// Applicability (checked, else a remark says why not):
//   - module numerics = relaxed_normalization and online_reduction = true;
//   - the factor is exp(r - r2) (or exp2), optionally select(ok, factor, 0),
//     broadcast onto the component's row axes;
//   - the component is L(exp(A - broadcast(r))) with the same exp kind, L made
//     of add-reductions over non-row axes, selects whose other side is zero,
//     float casts, and the lhs of a zero-accumulator [M,K]x[K,N] contraction
//     whose M axis is the row axis;
//   - every value of L is used only by L or by the rescaling multiplications
//     (so the tile is exponentiated once, not twice).
// A select(ok, ., 0) around the factor stays around the new component (it is
// exact: when ok is false the component is zero either way); a constant-true
// ok drops it.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUONLINERESCALE
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

namespace {

BinaryOp binaryOf(Value v, kir::BinaryKind kind) {
  auto op = v.getDefiningOp<BinaryOp>();
  if (!op || op.getKind() != kind || op.getApproximate() || op.getFlushToZero())
    return {};
  return op;
}

bool isExpKind(kir::UnaryKind k) { return k == kir::UnaryKind::Exp || k == kir::UnaryKind::Exp2; }

Type elementOf(Type t) {
  if (auto f = dyn_cast<FragmentType>(t))
    return f.getElementType();
  return t;
}

int64_t rankOf(Value v) {
  if (auto f = dyn_cast<FragmentType>(v.getType()))
    return f.getRank();
  return 0;
}

/// The operand axes a reduction keeps, in order: they map onto its result's axes.
SmallVector<int64_t> keptAxes(ReduceOp r) {
  SmallVector<int64_t> kept;
  for (int64_t a = 0, n = rankOf(r.getInputs()[0]); a < n; ++a)
    if (!llvm::is_contained(r.getAxes(), a))
      kept.push_back(a);
  return kept;
}

bool isIdentity(ArrayRef<int64_t> rows, int64_t rank) {
  if ((int64_t)rows.size() != rank)
    return false;
  for (int64_t i = 0; i < rank; ++i)
    if (rows[i] != i)
      return false;
  return true;
}

/// `spread` spreads the rank-|rows| value `base` over a value's axes `rows`:
/// base itself (identity rows, same type), broadcast(base) dims rows, or a splat of
/// a scalar base (no rows).
bool spreads(Value spread, Value base, ArrayRef<int64_t> rows) {
  if (rows.empty())
    if (auto s = spread.getDefiningOp<SplatOp>())
      return s.getOperand() == base;
  if (spread == base)
    return isIdentity(rows, rankOf(base));
  if (auto b = spread.getDefiningOp<BroadcastOp>())
    return b.getOperand() == base && b.getDims() == rows;
  return false;
}

/// The rescaling factor exp(r - r2) (optionally select(ok, ., 0)) that one operand of a multiplication spreads
/// over the other's rows.
struct Factor {
  Value r, r2, ok;
  kir::UnaryKind kind;
  SmallVector<int64_t> rows; // the component's axes the factor's axes map onto
  Value spread;              // the multiplication's factor operand
};

std::optional<Factor> matchFactor(Value spread) {
  Factor f;
  f.spread = spread;
  Value w;
  if (auto s = spread.getDefiningOp<SplatOp>()) {
    w = s.getOperand();
  } else if (auto b = spread.getDefiningOp<BroadcastOp>()) {
    w = b.getOperand();
    f.rows.assign(b.getDims().begin(), b.getDims().end());
  } else {
    w = spread; // the component's own shape
    for (int64_t i = 0, n = rankOf(spread); i < n; ++i)
      f.rows.push_back(i);
  }
  if (auto sel = w.getDefiningOp<SelectOp>()) {
    if (!isZeroConstant(sel.getFalseValue()))
      return std::nullopt;
    f.ok = sel.getCondition();
    w = sel.getTrueValue();
  }
  auto e = w.getDefiningOp<UnaryOp>();
  if (!e || !isExpKind(e.getKind()) || e.getFlushToZero())
    return std::nullopt;
  BinaryOp d = binaryOf(e.getOperand(), kir::BinaryKind::Sub);
  if (!d)
    return std::nullopt;
  f.kind = e.getKind();
  f.r = d.getLhs();
  f.r2 = d.getRhs();
  return f;
}

/// One rescaled summary component: `mul` computes component * factor.
struct Term {
  BinaryOp mul;
  Value component;
  Factor factor;
  SmallVector<Operation *> chain; // L and the exponential leaf, any order
  SmallVector<UnaryOp> leaves;
  SmallVector<Value> guards; // conditions of L's selects with zero: a nonzero component needs all true
  SmallVector<int64_t> leafRows; // the rows' axes in the exponentials
};

/// Whether `x` is L(exp(A - spread(r))) over `rows`; collects L's ops and the leaves.
bool linearInExp(Value x, ArrayRef<int64_t> rows, const Factor &f, Term &t, std::string &why) {
  Operation *def = x.getDefiningOp();
  if (!def) {
    why = "a component is a block argument, not the image of exponentials";
    return false;
  }
  if (auto e = dyn_cast<UnaryOp>(def)) {
    BinaryOp d = binaryOf(e.getOperand(), kir::BinaryKind::Sub);
    if (e.getKind() != f.kind || e.getFlushToZero() || !d || !spreads(d.getRhs(), f.r, rows)) {
      why = "the component's exponential is not taken against the factor's reference";
      return false;
    }
    t.chain.push_back(def);
    t.leaves.push_back(e);
    t.leafRows.assign(rows.begin(), rows.end());
    return true;
  }
  if (auto s = dyn_cast<SelectOp>(def)) {
    if (!isZeroConstant(s.getFalseValue())) {
      why = "a select's other side is not zero";
      return false;
    }
    t.chain.push_back(def);
    t.guards.push_back(s.getCondition());
    return linearInExp(s.getTrueValue(), rows, f, t, why);
  }
  if (auto c = dyn_cast<CastOp>(def)) {
    if (!isa<FloatType>(elementOf(c.getOperand().getType())) || !isa<FloatType>(elementOf(c.getType()))) {
      why = "a cast is not between floating types";
      return false;
    }
    t.chain.push_back(def);
    return linearInExp(c.getOperand(), rows, f, t, why);
  }
  if (auto r = dyn_cast<ReduceOp>(def)) {
    BinaryOp add = r.getInputs().size() == 1 ? singleBinaryCombine(r.getCombine().front()) : BinaryOp();
    if (!add || add.getKind() != kir::BinaryKind::Add || !isZeroConstant(r.getIdentities()[0])) {
      why = "a reduction is not a sum from zero";
      return false;
    }
    SmallVector<int64_t> kept = keptAxes(r);
    SmallVector<int64_t> inner;
    for (int64_t row : rows)
      inner.push_back(kept[row]);
    t.chain.push_back(def);
    return linearInExp(r.getInputs()[0], inner, f, t, why);
  }
  if (auto c = dyn_cast<ContractOp>(def)) {
    if (!isZeroConstant(c.getAcc()) || !c.getLhsBatch().empty() || c.getLhsReduce() != ArrayRef<int64_t>{1} ||
        c.getRhsReduce() != ArrayRef<int64_t>{0} || rows != ArrayRef<int64_t>{0}) {
      why = "a contraction does not keep the rows as its lhs M axis from a zero accumulator";
      return false;
    }
    t.chain.push_back(def);
    return linearInExp(c.getLhs(), rows, f, t, why);
  }
  why = "'" + def->getName().getStringRef().str() + "' is not linear in the exponentials";
  return false;
}

/// The conjuncts of a predicate: and(a, b) and select(a, b, false) split, anything else is one.
void conjuncts(Value p, SmallVectorImpl<Value> &out) {
  if (auto b = p.getDefiningOp<BinaryOp>(); b && b.getKind() == kir::BinaryKind::And) {
    conjuncts(b.getLhs(), out);
    conjuncts(b.getRhs(), out);
    return;
  }
  if (auto s = p.getDefiningOp<SelectOp>(); s && constantBool(s.getFalseValue()) == false) {
    conjuncts(s.getCondition(), out);
    conjuncts(s.getTrueValue(), out);
    return;
  }
  out.push_back(p);
}

/// Where `ok` (a row flag) is false the component is zero anyway: ok = or-reduction over the tile of a
/// conjunction whose every conjunct is a conjunct of a guard of a select-with-zero of the component's
/// chain, so a nonzero
/// member of a row makes that row's ok true. Then select(ok, component, 0) is the component.
bool zeroWhereNotOk(Value ok, const Term &t) {
  auto r = ok.getDefiningOp<ReduceOp>();
  if (!r || r.getInputs().size() != 1 || constantBool(r.getIdentities()[0]) != false)
    return false;
  BinaryOp o = singleBinaryCombine(r.getCombine().front());
  if (!o || o.getKind() != kir::BinaryKind::Or)
    return false;
  // The reduction keeps exactly the rows of the exponentials (in order): ok's axes are the factor's.
  if (keptAxes(r) != t.leafRows || rankOf(ok) != (int64_t)t.factor.rows.size() || t.leaves.size() != 1)
    return false;
  // Every conjunct of ok's predicate must be implied by the guards' conjunction: it is one of the
  // conjuncts of some guard (a guard `a & b` zeroes the component wherever `a` or `b` is false).
  SmallVector<Value> parts, guarded;
  conjuncts(r.getInputs()[0], parts);
  for (Value g : t.guards)
    conjuncts(g, guarded);
  return llvm::all_of(parts, [&](Value c) { return llvm::is_contained(guarded, c); });
}

struct OnlineRescale : public tessel::pgpu::impl::PGPUOnlineRescaleBase<OnlineRescale> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool permitted = onlineNormalizationPermitted(module);
    bool remarks = remarksEnabled(module);

    // Candidate terms, grouped by block and factor (reference, combined reference, kind).
    llvm::MapVector<std::tuple<Block *, Value, Value, unsigned>, std::vector<Term>> groups;
    module.walk([&](BinaryOp mul) {
      if (mul.getKind() != kir::BinaryKind::Mul || mul.getApproximate() || mul.getFlushToZero() ||
          !isa<FragmentType>(mul.getType()))
        return;
      for (unsigned side = 0; side < 2; ++side) {
        Value spread = mul->getOperand(side), x = mul->getOperand(1 - side);
        std::optional<Factor> f = matchFactor(spread);
        if (!f)
          continue;
        Term t{mul, x, *f, {}, {}};
        std::string why;
        if (!linearInExp(x, f->rows, *f, t, why)) {
          if (remarks && x.getDefiningOp() && !isa<BlockArgument>(x))
            emitRemark(mul.getLoc()) << "pgpu-online-rescale: not rescaled in its exponentials: " << why;
          continue;
        }
        if (!permitted) {
          if (remarks)
            emitRemark(mul.getLoc()) << "pgpu-online-rescale: not rescaled in its exponentials: needs numerics = "
                                        "relaxed_normalization with online_reduction (seed 002 §1)";
          return;
        }
        auto key = std::make_tuple(mul->getBlock(), f->r, f->r2, (unsigned)f->kind);
        groups[key].push_back(std::move(t));
        return;
      }
    });

    for (auto &[key, terms] : groups) {
      llvm::SetVector<Operation *> chain;
      llvm::SmallPtrSet<Operation *, 8> muls;
      for (Term &t : terms) {
        chain.insert(t.chain.begin(), t.chain.end());
        muls.insert(t.mul);
      }
      // Every value of L feeds only L or the rescalings: else the tile would be exponentiated twice.
      bool shared = llvm::any_of(chain, [&](Operation *op) {
        return llvm::any_of(op->getUsers(), [&](Operation *u) { return !chain.contains(u) && !muls.contains(u); });
      });
      bool sameBlock = llvm::all_of(chain, [&](Operation *op) { return op->getBlock() == std::get<0>(key); });
      if (shared || !sameBlock) {
        if (remarks)
          emitRemark(terms.front().mul.getLoc())
              << "pgpu-online-rescale: not rescaled in its exponentials: "
              << (shared ? "the tile's exponentials have other uses" : "the component is computed in another block");
        continue;
      }
      // rewrite erases the rescalings (terms[i].mul): take the remark's location first.
      Location at = terms.front().mul.getLoc();
      rewrite(terms, chain);
      if (remarks)
        emitRemark(at)
            << "pgpu-online-rescale: " << terms.size()
            << " summary component(s) exponentiated against the combined reference; their rescaling removed";
    }
  }

  void rewrite(MutableArrayRef<Term> terms, llvm::SetVector<Operation *> &chainSet) {
    // Built before the first rescaling: the factor (so r2 and ok) and every operand of L dominate it.
    BinaryOp first = terms.front().mul;
    for (Term &t : terms)
      if (t.mul->isBeforeInBlock(first))
        first = t.mul;
    OpBuilder b(first);
    Block *block = first->getBlock();
    const Factor &f = terms.front().factor;
    IRMapping map;
    // The leaves, against r2: exp(A - spread(r2)) with the spread the leaf used.
    for (Term &t : terms)
      for (UnaryOp leaf : t.leaves) {
        if (map.contains(leaf.getResult()))
          continue;
        auto sub = leaf.getOperand().getDefiningOp<BinaryOp>();
        Value spread = sub.getRhs(), spread2 = f.r2;
        if (auto s = spread.getDefiningOp<SplatOp>())
          spread2 = SplatOp::create(b, s.getLoc(), s.getType(), f.r2);
        else if (auto bc = spread.getDefiningOp<BroadcastOp>())
          spread2 = BroadcastOp::create(b, bc.getLoc(), bc.getType(), f.r2, bc.getDimsAttr());
        auto sub2 = BinaryOp::create(b, sub.getLoc(), sub.getType(), sub.getKindAttr(), sub.getLhs(), spread2,
                                     sub.getApproximateAttr(), sub.getFlushToZeroAttr());
        Operation *leaf2 = b.clone(*leaf, map);
        leaf2->setOperand(0, sub2.getResult());
        map.map(leaf.getResult(), leaf2->getResult(0));
      }
    // L, in block order, on the new leaves.
    SmallVector<Operation *> chain(chainSet.begin(), chainSet.end());
    llvm::sort(chain, [](Operation *a, Operation *c) { return a->isBeforeInBlock(c); });
    for (Operation *op : chain)
      if (!isa<UnaryOp>(op) || !map.contains(op->getResult(0)))
        b.clone(*op, map);
    for (Term &t : terms) {
      OpBuilder at(t.mul);
      Value scaled = map.lookup(t.component);
      if (Value ok = t.factor.ok) {
        std::optional<bool> known = constantBool(ok);
        if ((!known || !*known) && !zeroWhereNotOk(ok, t)) {
          auto type = cast<FragmentType>(scaled.getType());
          Value okSpread = ok;
          if (ok.getType() != getI1Like(type))
            okSpread = isa<FragmentType>(ok.getType())
                           ? Value(BroadcastOp::create(at, t.mul.getLoc(), getI1Like(type), ok,
                                                       at.getDenseI64ArrayAttr(t.factor.rows)))
                           : Value(SplatOp::create(at, t.mul.getLoc(), getI1Like(type), ok));
          Type elem = type.getElementType();
          Value zero = arith::ConstantOp::create(at, t.mul.getLoc(), elem, at.getZeroAttr(elem));
          Value zeros = SplatOp::create(at, t.mul.getLoc(), type, zero);
          scaled = SelectOp::create(at, t.mul.getLoc(), okSpread, scaled, zeros);
        }
      }
      t.mul.getResult().replaceAllUsesWith(scaled);
    }
    // The old component chains, rescalings and factors are dead now.
    SmallVector<Operation *> dead;
    for (Term &t : terms)
      dead.push_back(t.mul);
    dead.append(chain.rbegin(), chain.rend());
    for (Operation *op : dead)
      if (op->use_empty())
        op->erase();
    // And what only they used (the old leaves' differences and spreads, the factors).
    for (bool changed = true; changed;) {
      changed = false;
      for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*block)))
        if (op.use_empty() && !op.hasTrait<OpTrait::IsTerminator>() && isMemoryEffectFree(&op)) {
          op.erase();
          changed = true;
        }
    }
  }
};
} // namespace
