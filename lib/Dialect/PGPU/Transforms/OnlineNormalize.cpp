//===- OnlineNormalize.cpp - a maximum and its exp-sum read the row once ---===//
//
// seed 002 §3 (shared transformations): "forming online segmented rescaling
// under explicit normalized-summary numerical permissions"; §1 onlineReduction
// (eligibility: f32 score, maximum and mass accumulation).
//
// A normalized summary written as ordinary reductions (m = max(x), then
// s = sum(L(exp(x - m)))) is blocked into two loops over the same range: the
// first carries m, the second needs the final m and so reads the row again.
// With a running maximum the second loop's work can join the first:
//
//   m' = max(m, blockmax)     s' = s * exp(m - m') + sum(L(exp(x - m')))
//
// which equals the two-loop result in real arithmetic (exp(a - m) exp(m - m') =
// exp(a - m'), and L is linear); the rounding differs, which module numerics
// `relaxed_normalization` with `online_reduction` permits. The row is then read
// once for both summaries (a following normalized store still reads it again).
//
// Non-finite references: a running maximum of -inf (nothing but -inf seen yet)
// exponentiates against 0 instead (every term is exp(-inf) = 0, as it is
// against the final maximum), and the rescaling of equal references is 1
// (exp(-inf - -inf) would be NaN). A row whose final maximum is -inf then sums
// to 0 where the two-loop form sums NaN; NaN and +inf propagate as before.
//
// Applicability (else a remark at the sum loop says why):
//   - two sibling `pgpu.for` loops over the same bounds and step; the first
//     carries m (f32) yielding max(m, t); the second uses m's final value;
//   - numerics = relaxed_normalization with online_reduction;
//   - neither loop writes memory (only loads/gathers and pure code);
//   - the second loop uses nothing computed from the first loop on except m,
//     and m only as exp(a - spread(m));
//   - each carry of the second loop is f32, starts at zero, and yields
//     s + T with T linear in those exponentials: add-reductions, selects whose
//     other side is zero, products with values independent of m, sums and
//     differences of linear terms, negation, float casts, spreads.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

#include <limits>

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUONLINENORMALIZE
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

namespace {
bool isF32(Type t) { return elementTypeOf(t).isF32(); }

bool isSpread(Operation *op) { return isa_and_nonnull<SplatOp, BroadcastOp>(op); }

/// The carry index j of `loop` whose yield is max(carry_j, t) with t not using carry_j, else -1.
int maximumCarry(ForOp loop, unsigned j) {
  Block &body = loop.getBody().front();
  Value arg = body.getArgument(1 + j);
  auto max = body.getTerminator()->getOperand(j).getDefiningOp<BinaryOp>();
  if (!max || max.getKind() != kir::BinaryKind::Max || !isF32(arg.getType()))
    return -1;
  Value other = max.getLhs() == arg ? max.getRhs() : max.getRhs() == arg ? max.getLhs() : Value();
  if (!other || other == arg || !arg.hasOneUse())
    return -1;
  return (int)j;
}

/// Whether everything inside `loop` only reads memory.
bool readsOnly(ForOp loop) {
  WalkResult r = loop.getBody().walk([](Operation *op) {
    if (isa<LoadOp, GatherOp>(op) || isMemoryEffectFree(op) || op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return WalkResult::advance();
    return WalkResult::interrupt();
  });
  return !r.wasInterrupted();
}

/// Why the sum loop cannot join the maximum loop, or "" when it can. Fills `leaves` (the
/// exponentials exp(a - spread(m))).
std::string blockers(ForOp first, ForOp second, Value m, llvm::SmallPtrSetImpl<Operation *> &leaves) {
  if (!readsOnly(first) || !readsOnly(second))
    return "a loop writes memory";
  Block *block = first->getBlock();
  // Values the second loop uses from outside must be available before the first loop.
  std::string why;
  auto available = [&](Value v) {
    if (v == m)
      return true;
    Operation *def = v.getDefiningOp();
    if (!def) // a block argument of an enclosing op, or of an op inside the second loop
      return true;
    if (second->isAncestor(def))
      return true;
    Operation *top = block->findAncestorOpInBlock(*def);
    return !top || top->isBeforeInBlock(first);
  };
  for (Value v : second->getOperands())
    if (!available(v))
      return "the second loop's bounds or initial values are computed after the maximum loop";
  WalkResult r = second.getBody().walk([&](Operation *op) {
    for (Value v : op->getOperands())
      if (!available(v)) {
        why = "the second loop uses values computed after the maximum loop other than the maximum";
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  if (r.wasInterrupted())
    return why;
  // m only as exp(a - spread(m)).
  for (OpOperand &use : m.getUses()) {
    if (!second->isAncestor(use.getOwner()))
      continue;
    Operation *spread = use.getOwner();
    if (!isSpread(spread))
      return "the maximum is used other than through exp(x - max)";
    for (Operation *sub : spread->getUsers()) {
      auto s = dyn_cast<BinaryOp>(sub);
      if (!s || s.getKind() != kir::BinaryKind::Sub || s.getRhs() != spread->getResult(0) ||
          s.getLhs() == spread->getResult(0))
        return "the maximum is used other than through exp(x - max)";
      for (Operation *e : s->getUsers()) {
        auto exp = dyn_cast<UnaryOp>(e);
        if (!exp || exp.getKind() != kir::UnaryKind::Exp)
          return "the maximum is used other than through exp(x - max)";
        leaves.insert(exp);
      }
    }
  }
  return "";
}

/// Whether `v` is linear (homogeneous of degree one) in the exponentials `leaves`; `chain`
/// collects the ops on the way. `dependent` holds every value computed from m.
bool linear(Value v, const llvm::SmallPtrSetImpl<Operation *> &leaves, const llvm::DenseSet<Value> &dependent,
            llvm::SetVector<Operation *> &chain) {
  Operation *op = v.getDefiningOp();
  if (!op || !dependent.contains(v))
    return false;
  if (leaves.contains(op)) {
    chain.insert(op);
    return true;
  }
  auto indep = [&](Value x) { return !dependent.contains(x); };
  auto lin = [&](Value x) { return linear(x, leaves, dependent, chain); };
  bool ok = false;
  if (auto r = dyn_cast<ReduceOp>(op)) {
    BinaryOp c = r.getNumResults() == 1 ? singleBinaryCombine(r.getCombine().front()) : BinaryOp();
    ok = c && c.getKind() == kir::BinaryKind::Add && isZeroConstant(r.getIdentities()[0]) && lin(r.getInputs()[0]);
  } else if (auto s = dyn_cast<SelectOp>(op)) {
    ok = indep(s.getCondition()) && ((isZeroConstant(s.getFalseValue()) && lin(s.getTrueValue())) ||
                                     (isZeroConstant(s.getTrueValue()) && lin(s.getFalseValue())));
  } else if (auto b = dyn_cast<BinaryOp>(op)) {
    switch (b.getKind()) {
    case kir::BinaryKind::Mul:
      ok = (indep(b.getLhs()) && lin(b.getRhs())) || (indep(b.getRhs()) && lin(b.getLhs()));
      break;
    case kir::BinaryKind::Div:
      ok = indep(b.getRhs()) && lin(b.getLhs());
      break;
    case kir::BinaryKind::Add:
    case kir::BinaryKind::Sub:
      ok = lin(b.getLhs()) && lin(b.getRhs());
      break;
    default:
      break;
    }
  } else if (auto u = dyn_cast<UnaryOp>(op)) {
    ok = u.getKind() == kir::UnaryKind::Neg && lin(u.getOperand());
  } else if (auto c = dyn_cast<CastOp>(op)) {
    ok = isa<FloatType>(elementTypeOf(c.getType())) && isa<FloatType>(elementTypeOf(c.getOperand().getType())) &&
         lin(c.getOperand());
  } else if (isSpread(op)) {
    ok = lin(op->getOperand(0));
  }
  if (ok)
    chain.insert(op);
  return ok;
}

/// `scalar` (a constant of `type`'s element type, built before the loop) as a value of `type`.
Value spreadLike(OpBuilder &b, Location loc, Type type, Value scalar) {
  return isa<FragmentType>(type) ? Value(SplatOp::create(b, loc, type, scalar)) : scalar;
}

struct Candidate {
  ForOp first, second;
  unsigned maxCarry;
};

/// Fuses `c.second` into `c.first`; returns the fused loop.
ForOp fuse(const Candidate &c) {
  ForOp first = c.first, second = c.second;
  Location loc = second.getLoc();
  OpBuilder b(first);
  Type type = first.getResult(c.maxCarry).getType();
  Type elem = elementTypeOf(type);
  auto constant = [&](double v) { return arith::ConstantOp::create(b, loc, elem, b.getFloatAttr(elem, v)); };
  Value negInfC = constant(-std::numeric_limits<double>::infinity()), zeroC = constant(0.0), oneC = constant(1.0);
  SmallVector<Value> inits(first.getInits());
  llvm::append_range(inits, second.getInits());
  auto fused = ForOp::create(b, loc, TypeRange(ValueRange(inits)), first.getLower(), first.getUpper(),
                             first.getStep(), inits);
  OpBuilder::InsertionGuard guard(b);
  Block *body = b.createBlock(&fused.getBody());
  Value iv = body->addArgument(b.getIndexType(), loc);
  for (Value i : inits)
    body->addArgument(i.getType(), loc);
  unsigned n1 = first.getNumResults();
  ValueRange carries1 = body->getArguments().slice(1, n1), carries2 = body->getArguments().drop_front(1 + n1);
  // The maximum loop's body, then the running references.
  SmallVector<Value> args1{iv};
  llvm::append_range(args1, carries1);
  SmallVector<Value> y1 = inlineBlock(b, first.getBody().front(), args1);
  Value m = carries1[c.maxCarry], m2 = y1[c.maxCarry];
  Value negInf = spreadLike(b, loc, type, negInfC), zero = spreadLike(b, loc, type, zeroC),
        one = spreadLike(b, loc, type, oneC);
  Value nothingYet = CmpOp::create(b, loc, kir::CmpPredicate::EQ, m2, negInf);
  Value reference = SelectOp::create(b, loc, nothingYet, zero, m2);
  Value same = CmpOp::create(b, loc, kir::CmpPredicate::EQ, m, m2);
  Value diff = BinaryOp::create(b, loc, kir::BinaryKind::Sub, m, m2, false, false);
  Value grow = UnaryOp::create(b, loc, kir::UnaryKind::Exp, diff, false, false);
  Value scale = SelectOp::create(b, loc, same, one, grow);
  // The sum loop's body against the running reference; each sum rescaled before its addition.
  Block &sumBody = second.getBody().front();
  SmallVector<Value> scaled;
  for (auto [k, s] : llvm::enumerate(carries2)) {
    Value f = scale;
    if (auto frag = dyn_cast<FragmentType>(s.getType()); frag && !isa<FragmentType>(type))
      f = SplatOp::create(b, loc, frag, scale);
    scaled.push_back(BinaryOp::create(b, loc, kir::BinaryKind::Mul, s, f, false, false));
  }
  IRMapping map;
  map.map(first.getResult(c.maxCarry), reference);
  SmallVector<Value> args2{iv};
  llvm::append_range(args2, scaled);
  SmallVector<Value> y2 = inlineBlock(b, sumBody, args2, map);
  SmallVector<Value> yields(y1);
  llvm::append_range(yields, y2);
  YieldOp::create(b, loc, yields);
  first->replaceAllUsesWith(fused->getResults().take_front(n1));
  second->replaceAllUsesWith(fused->getResults().drop_front(n1));
  second->erase();
  first->erase();
  return fused;
}

struct OnlineNormalize : public tessel::pgpu::impl::PGPUOnlineNormalizeBase<OnlineNormalize> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool permitted = onlineNormalizationPermitted(module);
    bool remarks = remarksEnabled(module);
    SmallVector<Block *> blocks;
    module.walk([&](Operation *op) {
      for (Region &r : op->getRegions())
        for (Block &blk : r)
          if (llvm::count_if(blk, [](Operation &o) { return isa<ForOp>(o); }) >= 2)
            blocks.push_back(&blk);
    });
    for (Block *blk : blocks)
      while (std::optional<Candidate> c = next(*blk, permitted, remarks)) {
        // fuse replaces the maximum loop (c->first): take the remark's location first.
        Location at = c->first.getLoc();
        fuse(*c);
        if (remarks)
          emitRemark(at)
              << "pgpu-online-normalize: the exp-sum loop joins the maximum loop (one read of the range for "
                 "both; each sum rescaled by exp(m - m') as the maximum grows)";
      }
  }

  /// The next fusable pair in `blk`; rejected candidates are remarked once.
  std::optional<Candidate> next(Block &blk, bool permitted, bool remarks) {
    SmallVector<ForOp> loops;
    for (Operation &op : blk)
      if (auto loop = dyn_cast<ForOp>(op))
        loops.push_back(loop);
    for (auto [i, first] : llvm::enumerate(loops))
      for (ForOp second : ArrayRef<ForOp>(loops).drop_front(i + 1)) {
        if (second.getLower() != first.getLower() || second.getUpper() != first.getUpper() ||
            second.getStep() != first.getStep())
          continue;
        for (unsigned j = 0; j < first.getNumResults(); ++j) {
          if (maximumCarry(first, j) < 0)
            continue;
          Value m = first.getResult(j);
          if (llvm::none_of(m.getUsers(), [&](Operation *u) { return second->isAncestor(u); }))
            continue;
          if (rejected.contains(second))
            continue;
          std::string why = check(first, second, m);
          if (why.empty() && !permitted)
            why = "needs numerics = relaxed_normalization with online_reduction (seed 002 §1)";
          if (why.empty())
            return Candidate{first, second, j};
          rejected.insert(second);
          if (remarks)
            emitRemark(second.getLoc()) << "pgpu-online-normalize: not joined to the maximum loop: " << why;
        }
      }
    return std::nullopt;
  }

  std::string check(ForOp first, ForOp second, Value m) {
    llvm::SmallPtrSet<Operation *, 8> leaves;
    std::string why = blockers(first, second, m, leaves);
    if (!why.empty())
      return why;
    // Everything computed from m inside the second loop.
    llvm::DenseSet<Value> dependent;
    second.getBody().walk([&](Operation *op) {
      if (llvm::any_of(op->getOperands(), [&](Value v) { return v == m || dependent.contains(v); }))
        for (Value r : op->getResults())
          dependent.insert(r);
    });
    Block &body = second.getBody().front();
    Operation *yield = body.getTerminator();
    llvm::SetVector<Operation *> chain;
    for (auto [k, s] : llvm::enumerate(body.getArguments().drop_front())) {
      if (!isF32(s.getType()) || !isZeroConstant(second.getInits()[k]))
        return "a sum does not start from zero in f32";
      auto add = yield->getOperand(k).getDefiningOp<BinaryOp>();
      Value t = !add || add.getKind() != kir::BinaryKind::Add ? Value()
                : add.getLhs() == s                            ? add.getRhs()
                : add.getRhs() == s                            ? add.getLhs()
                                                               : Value();
      if (!t || !s.hasOneUse() || dependent.contains(s))
        return "a carry of the second loop is not a sum of new terms";
      if (!linear(t, leaves, dependent, chain))
        return "a sum is not linear in exp(x - max)";
      chain.insert(add);
    }
    // Nothing else in the loop may depend on m (it would see the running maximum).
    for (Value v : dependent) {
      Operation *def = v.getDefiningOp();
      if (!chain.contains(def) && !isSpread(def) && !llvm::any_of(leaves, [&](Operation *l) {
            return l->getOperand(0) == v;
          }))
        return "a value computed from the maximum is not part of a sum";
    }
    return "";
  }

  llvm::SmallPtrSet<Operation *, 4> rejected;
};
} // namespace
