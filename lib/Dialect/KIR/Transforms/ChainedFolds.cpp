//===- ChainedFolds.cpp - sums a later contraction reads become a region fold ===//
//
// A kir.parallel member that sums over an axis A (`kv = T.contract(phi(k), v,
// reduce=((0, 0),))`, `z = T.sum(phi(k), axis=0)`) and then contracts those sums
// against a value over A again (`phi(q) @ kv`, `phi(q) . z`: non-causal linear
// attention) computes the sums once per member: they do not depend on A's
// coordinates. Construction realizes a value where it is used, so the sums
// would be replayed inside every element of the later contraction; a region
// fold over A is realized once per member, its summary carried across A's
// tiles, and the later traversal of A reads it (seed 002 §3.4). A sum is a list
// homomorphism whose combine is an addition (seed 000 §8: an add-reduction may
// be regrouped), so the rewrite is exact up to summation order, which a sum
// leaves free. Decided from facts (domains, def-use, op kinds), never from
// names (seed 002 §7). It runs after kir-online-folds and before
// kir-annotate-origins (KIR is immutable once origins are assigned).
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/KIR/Transforms/Passes.h"
#include "AxisDomains.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SetVector.h"

namespace tessel::kir {
#define GEN_PASS_DEF_KIRCHAINEDFOLDS
#include "tessel/Dialect/KIR/Transforms/Passes.h.inc"
} // namespace tessel::kir

using namespace mlir;
using namespace tessel::kir;

namespace {

using DomainMemo = DenseMap<Value, SmallVector<Value>>;

/// One sum over A of the member's body: the operands it reads over A and the axis of A in each.
struct Sum {
  Operation *op;             // kir.contract or kir.reduce
  SmallVector<Value> inputs; // its tensor operands over A
  int64_t axis;              // A's position in every input
};

/// Whether `v` is a constant zero of an int or float type.
bool isZero(Value v) {
  FloatAttr f;
  if (matchPattern(v, m_Constant(&f)))
    return f.getValue().isZero();
  IntegerAttr i;
  return matchPattern(v, m_Constant(&i)) && i.getValue().isZero();
}

/// Whether `r` sums one tensor over one axis (identity a constant zero, combine one add of its
/// two arguments).
bool isSum(ReduceOp r) {
  if (r.getInputs().size() != 1 || r.getAxes().size() != 1 || r.getIdentities().size() != 1 ||
      !isZero(r.getIdentities()[0]) || r.getCombine().empty())
    return false;
  Block &body = r.getCombine().front();
  auto bin = dyn_cast<BinaryOp>(&body.front());
  if (!bin || bin.getKind() != BinaryKind::Add || body.getNumArguments() != 2)
    return false;
  bool args = (bin.getLhs() == body.getArgument(0) && bin.getRhs() == body.getArgument(1)) ||
              (bin.getLhs() == body.getArgument(1) && bin.getRhs() == body.getArgument(0));
  auto yield = dyn_cast<YieldOp>(bin->getNextNode());
  return args && yield && yield.getValues().size() == 1 && yield.getValues()[0] == bin.getResult();
}

/// The sum `op` over one domain of its inputs, when it is one: a contraction with one reduce pair
/// and no batch pair or init, or a plain sum over one axis; its result keeps at least one axis
/// (a scalar summary has its row paths). `domain` receives A.
std::optional<Sum> sumOf(Operation *op, Value &domain, DomainMemo &memo) {
  Sum s{op, {}, -1};
  SmallVector<std::pair<Value, int64_t>> over; // (input, axis of A)
  if (auto c = dyn_cast<ContractOp>(op)) {
    if (c.getInit() || c.getLhsReduce().size() != 1 || !c.getLhsBatch().empty() ||
        c.getResult().getType().getRank() < 1)
      return std::nullopt;
    over = {{c.getLhs(), c.getLhsReduce()[0]}, {c.getRhs(), c.getRhsReduce()[0]}};
  } else if (auto r = dyn_cast<ReduceOp>(op)) {
    if (!isSum(r) || cast<RankedTensorType>(r.getInputs()[0].getType()).getRank() < 2)
      return std::nullopt;
    over = {{r.getInputs()[0], r.getAxes()[0]}};
  } else {
    return std::nullopt;
  }
  domain = Value();
  for (auto [x, axis] : over) {
    auto d = domainsOf(x, memo);
    if (!d || axis >= (int64_t)d->size() || (domain && (*d)[axis] != domain) || (s.axis >= 0 && s.axis != axis))
      return std::nullopt;
    domain = (*d)[axis];
    s.axis = axis;
    // A is the reduced axis only: an input over A twice would be a diagonal, not a sum's slice.
    if (llvm::count(*d, domain) != 1)
      return std::nullopt;
    s.inputs.push_back(x);
  }
  return s;
}

/// The op of `block` that holds `op` (itself, or an ancestor).
Operation *inBlock(Operation *op, Block &block) { return block.findAncestorOpInBlock(*op); }

/// Whether a user of `v` is a contraction whose result spans `domain` again: a later traversal of
/// the axis the sum reduced, which would replay the sum per element.
bool readByLaterTraversal(Value v, Value domain, DomainMemo &memo) {
  for (Operation *user : v.getUsers()) {
    auto c = dyn_cast<ContractOp>(user);
    if (!c)
      continue;
    auto d = domainsOf(c.getResult(), memo);
    if (d && llvm::is_contained(*d, domain))
      return true;
  }
  return false;
}

/// Replaces the sums of `group` (one domain, one axis, block order) by one region fold over their
/// inputs, built before the last of them.
void rewrite(ArrayRef<Sum> group, DomainMemo &memo) {
  Operation *last = group.back().op;
  Location loc = group.front().op->getLoc();
  OpBuilder b(last);
  llvm::SetVector<Value> sources;
  for (const Sum &s : group)
    sources.insert(s.inputs.begin(), s.inputs.end());
  int64_t axis = group.front().axis;

  SmallVector<Type> types;
  SmallVector<Value> identities;
  for (const Sum &s : group) {
    Value r = s.op->getResult(0);
    auto t = cast<RankedTensorType>(r.getType());
    Type e = t.getElementType();
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(e));
    auto doms = domainsOf(r, memo);
    identities.push_back(BroadcastOp::create(b, loc, t, zero, *doms, ArrayRef<int64_t>{}).getResult());
    types.push_back(t);
  }
  auto fold = RegionFoldOp::create(b, loc, types, sources.getArrayRef(), axis, identities, ValueRange{});

  // summarize(slices...): each sum of the slices; its constants (a reduce's identity) cloned in,
  // so the region is closed over its arguments.
  Block *sum = b.createBlock(&fold.getSummarize());
  IRMapping map;
  for (Value src : sources) {
    auto t = cast<RankedTensorType>(src.getType());
    SmallVector<int64_t> shape(t.getShape());
    shape[axis] = ShapedType::kDynamic;
    map.map(src, sum->addArgument(RankedTensorType::get(shape, t.getElementType()), loc));
  }
  b.setInsertionPointToStart(sum);
  SmallVector<Value> yields;
  for (const Sum &s : group) {
    for (Value x : s.op->getOperands())
      if (!map.contains(x))
        map.map(x, b.clone(*x.getDefiningOp())->getResult(0)); // a constant identity (isSum)
    yields.push_back(b.clone(*s.op, map)->getResult(0));
  }
  YieldOp::create(b, loc, yields);

  // combine(earlier..., later...): the sums add.
  Block *comb = b.createBlock(&fold.getCombine());
  for (int side = 0; side < 2; ++side)
    for (Type t : types)
      comb->addArgument(t, loc);
  SmallVector<Value> added;
  for (unsigned i = 0; i < types.size(); ++i)
    added.push_back(BinaryOp::create(b, loc, BinaryKind::Add, comb->getArgument(i),
                                     comb->getArgument(i + types.size())));
  YieldOp::create(b, loc, added);

  for (auto [i, s] : llvm::enumerate(group)) {
    s.op->getResult(0).replaceAllUsesWith(fold.getResult(i));
    s.op->erase();
  }
}

bool remarksOn(ModuleOp module) {
  auto options = module->getAttrOfType<CompileOptionsAttr>(KIRDialect::getCompileOptionsAttrName());
  return options && options.getOptimizationRemarks();
}

struct ChainedFolds : public tessel::kir::impl::KIRChainedFoldsBase<ChainedFolds> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool remarks = remarksOn(module);
    SmallVector<ParallelOp> parallels;
    module.walk([&](ParallelOp par) { parallels.push_back(par); });
    for (ParallelOp par : parallels) {
      Block &body = par.getBody().front();
      DomainMemo memo;
      // Sums at the top of the body whose results a later traversal of their axis reads.
      SmallVector<std::pair<Value, Sum>> found;
      for (Operation &op : body) {
        Value domain;
        auto s = sumOf(&op, domain, memo);
        if (s && readByLaterTraversal(op.getResult(0), domain, memo))
          found.push_back({domain, *s});
      }
      // Groups in block order: a sum joins the open group of its domain and axis when nothing
      // before it reads that group's results (the fold stands at the group's last sum).
      SmallVector<std::pair<Value, SmallVector<Sum>>> groups;
      for (auto &[domain, s] : found) {
        auto open = llvm::find_if(groups, [&](auto &g) {
          if (g.first != domain || g.second.front().axis != s.axis)
            return false;
          for (const Sum &m : g.second)
            for (Operation *user : m.op->getResult(0).getUsers())
              if (Operation *at = inBlock(user, body); at && at->isBeforeInBlock(s.op))
                return false;
          return true;
        });
        if (open != groups.end())
          open->second.push_back(s);
        else
          groups.push_back({domain, {s}});
      }
      // Last group first: a later group may read an earlier one's sums, which the earlier rewrite then
      // replaces in the later fold's sources too (the recorded inputs stay live until then).
      for (auto &[domain, group] : llvm::reverse(groups)) {
        rewrite(group, memo);
        memo.clear(); // the erased sums' results must not linger as keys
        if (remarks)
          par.emitRemark() << "kir-chained-folds: " << group.size()
                           << " sum(s) over one axis that a later contraction over that axis reads became one "
                              "region fold, computed once per member instead of per element of that "
                              "contraction (seed 002 §3.4)";
      }
    }
  }
};
} // namespace
