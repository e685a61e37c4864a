//===- RowSumChains.cpp - row sums of a matrix product's row become region folds ===//
//
// Part of kir-online-folds (issue 41). A kir.parallel body (one member per row, as kir-row-parallels
// leaves a kernel-level LayerNorm of a product) that computes a row X over one axis A with a
// contraction (the row of a matrix product, `T.matmul(x[rows, ks], w[cols, ks], init=b[cols])`), then
// a chain of plain sums over A of functions of X and of the earlier sums' results (a mean, then the
// sum of squares about it), then stores a function of X and the sums over A. No maximum is involved,
// so OnlineFolds.cpp's matcher does not see it, and construction would recompute the product per
// element of every reduction and of the store.
//
// Rewrite (seed 002 §3.4, replay versus materialization: the row is recomputed per pass, never held
// whole): each sum becomes a kir.region_fold over the sources sliced along A (the row's tiles; a
// source whose A is not its first axis through a kir.transpose with A first),
// capturing the earlier sums' results, in their order, so each pass is one tile product of the row's
// tiles over K; the stored row is computed after the last fold (one more traversal of A). Under
// source numerics this is exact: each pass computes the same row values, and a sum may be
// reassociated as any reduction may be (seed 002 §1). Decided from facts (domains, def-use, op
// kinds), never from names (seed 002 §7); refused bodies stay as written, with a remark saying why.
//
//===----------------------------------------------------------------------===//

#include "RowSumChains.h"
#include "AxisDomains.h"

#include "tessel/Dialect/KIR/IR/KIR.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace tessel::kir;

namespace {

/// Whether `r` is a float sum of one rank-1 input over its only axis (combine: one add of its two
/// arguments).
bool isRowSum(ReduceOp r) {
  if (r.getInputs().size() != 1 || r.getAxes().size() != 1 || r.getAxes()[0] != 0 || r.getCombine().empty())
    return false;
  auto t = dyn_cast<RankedTensorType>(r.getInputs()[0].getType());
  if (!t || t.getRank() != 1 || !isa<FloatType>(t.getElementType()))
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

/// The match of one body: the row's axis, its ops, the sums and the stores over A.
struct Chain {
  Value domain;
  SmallVector<Operation *> sources;    // unmasked loads over A (fold sources), block order
  /// Per source whose axis A is not its first (a weight W [K, N] of `x @ W`): the kir.transpose after
  /// the read with A first, which the folds slice (a region fold has one source axis, seed 000 §8).
  DenseMap<Operation *, Value> views;
  DenseSet<Operation *> rowOps;        // the non-source ops with a result over A
  SmallVector<ReduceOp> sums;          // block order
  SmallVector<Operation *> stores;     // stores of a value over A
  std::string why;
};

class Matcher {
public:
  explicit Matcher(ParallelOp par) : body(par.getBody().front()) {}
  /// Fills `c`; false with `c.why` when the body is not the chain form (`c.sums` empty: not a
  /// candidate at all, nothing to say).
  bool match();
  Chain c;

private:
  bool refuse(const Twine &why) {
    c.why = why.str();
    return false;
  }
  std::optional<SmallVector<Value>> doms(Value v) { return domainsOf(v, memo); }
  bool overA(Value v) {
    auto d = doms(v);
    return d && llvm::is_contained(*d, c.domain);
  }
  Block &body;
  DenseMap<Value, SmallVector<Value>> memo;
};

bool Matcher::match() {
  for (Operation &op : body)
    if (auto r = dyn_cast<ReduceOp>(op); r && isRowSum(r)) {
      auto d = doms(r.getInputs()[0]);
      if (!d || d->size() != 1)
        continue;
      if (!c.domain)
        c.domain = (*d)[0];
      if ((*d)[0] == c.domain)
        c.sums.push_back(r);
    }
  if (c.sums.empty())
    return false;
  bool product = false;
  DenseSet<Operation *> sumSet;
  for (ReduceOp r : c.sums)
    sumSet.insert(r);
  DenseSet<Value> written;
  body.getParentOp()->getParentOfType<KernelOp>().walk([&](StoreOp s) { written.insert(s.getView()); });
  for (Operation &op : body) {
    if (sumSet.contains(&op) || isa<YieldOp>(op))
      continue;
    if (op.getNumRegions() && !isa<ReduceOp>(op))
      return refuse(Twine("the body holds '") + op.getName().getStringRef() + "' with a region");
    if (auto st = dyn_cast<StoreOp>(op)) {
      if (overA(st.getValue())) {
        if (st.getValid())
          return refuse("a masked store over the axis");
        c.stores.push_back(st);
      }
      continue;
    }
    bool over = llvm::any_of(op.getResults(), [&](Value r) { return overA(r); });
    if (auto ld = dyn_cast<LoadOp>(op)) {
      if (written.contains(ld.getView()))
        return refuse("a load of a view the kernel writes");
      if (!over)
        continue;
      if (ld.getValid())
        return refuse("a masked load over the axis");
      if (llvm::count(*doms(ld.getResult()), c.domain) != 1)
        return refuse("a load over the axis twice");
      c.sources.push_back(&op);
      continue;
    }
    if (!isMemoryEffectFree(&op))
      return refuse(Twine("an effect in the body ('") + op.getName().getStringRef() + "')");
    if (!over)
      continue;
    if (op.getNumResults() != 1 || !isa<BinaryOp, UnaryOp, CastOp, SelectOp, CmpOp, BroadcastOp, ContractOp,
                                        IndicesOp>(op))
      return refuse(Twine("'") + op.getName().getStringRef() + "' over the axis is not pointwise math, a scalar "
                                                               "broadcast or a contraction");
    auto d = doms(op.getResult(0));
    if (!d || d->size() != 1)
      return refuse(Twine("'") + op.getName().getStringRef() + "' has a result over the axis and other axes");
    if (auto bc = dyn_cast<BroadcastOp>(op); bc && isa<RankedTensorType>(bc.getOperand().getType()))
      return refuse("a broadcast of a tensor over the axis");
    product |= isa<ContractOp>(op);
    c.rowOps.insert(&op);
  }
  // A row read from memory and summed keeps its row path (pgpu-stage-rows): only a product's row is
  // recomputed per tile here (its tiles become tile products).
  if (!product)
    return refuse("the row is not computed by a contraction");
  for (Operation &op : body)
    if (c.rowOps.contains(&op) || llvm::is_contained(c.sources, &op))
      for (Operation *user : op.getResult(0).getUsers())
        if (!c.rowOps.contains(user) && !sumSet.contains(user) && !llvm::is_contained(c.stores, user))
          return refuse(Twine("a value over the axis is used by '") + user->getName().getStringRef() +
                        "', not a sum over the axis or a store");
  for (Operation *st : c.stores)
    if (cast<StoreOp>(st).getValue().getDefiningOp() == nullptr)
      return refuse("a store of a value from outside the body");
  return true;
}

/// The value the folds slice for source `s` (AxisDomains.h: axisFirstSource).
Value sourceValue(Chain &c, Operation *s) { return axisFirstSource(s, c.domain, c.views); }

/// Builds the fold of sum `r`: the cone of its input (row ops) cloned on the slices.
Operation *foldSum(Chain &c, ReduceOp r, Value indices) {
  DenseSet<Operation *> cone;
  SmallVector<Operation *> work{r.getInputs()[0].getDefiningOp()};
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    if (!op || !c.rowOps.contains(op) || !cone.insert(op).second)
      continue;
    for (Value x : op->getOperands())
      work.push_back(x.getDefiningOp());
  }
  SmallVector<Operation *> order(cone.begin(), cone.end());
  llvm::sort(order, [](Operation *a, Operation *z) { return a->isBeforeInBlock(z); });
  // Sources the cone reads, then the positions; captures: every other value it reads from outside.
  llvm::SetVector<Value> sources, captures;
  SmallVector<Operation *> read; // the sources, in the order of `sources`
  for (Operation *s : c.sources)
    for (Operation *op : order)
      if (llvm::is_contained(op->getOperands(), s->getResult(0)) && sources.insert(sourceValue(c, s)))
        read.push_back(s);
  for (Operation *op : order)
    for (Value x : op->getOperands()) {
      Operation *def = x.getDefiningOp();
      if (isa<DomainType>(x.getType()) || (def && (cone.contains(def) || llvm::is_contained(c.sources, def))))
        continue;
      if (def && matchPattern(def, m_Constant()))
        continue;
      captures.insert(x);
    }
  OpBuilder b(r);
  Location loc = r.getLoc();
  SmallVector<Value> srcs(sources.begin(), sources.end());
  srcs.push_back(indices);
  Type type = r.getResult(0).getType();
  auto fold = RegionFoldOp::create(b, loc, TypeRange{type}, srcs, /*axis=*/0, ValueRange{r.getIdentities()[0]},
                                   captures.getArrayRef());
  {
    OpBuilder::InsertionGuard g(b);
    Block *sum = b.createBlock(&fold.getSummarize());
    IRMapping map;
    for (Value s : srcs) {
      auto t = cast<RankedTensorType>(s.getType());
      SmallVector<int64_t> shape(t.getShape());
      shape[0] = ShapedType::kDynamic;
      map.map(s, sum->addArgument(RankedTensorType::get(shape, t.getElementType()), loc));
    }
    Value pos = sum->getArguments().back();
    for (Value cap : captures)
      map.map(cap, sum->addArgument(cap.getType(), cap.getLoc()));
    b.setInsertionPointToStart(sum);
    // A source sliced through its transposed view: the slice back in the read's axis order.
    for (Operation *s : read)
      if (Value view = c.views.lookup(s)) {
        auto t = cast<RankedTensorType>(s->getResult(0).getType());
        auto vt = cast<RankedTensorType>(view.getType());
        int64_t p = cast<TransposeOp>(view.getDefiningOp()).getPermutation()[0];
        SmallVector<int64_t> perm, shape(t.getShape());
        shape[p] = ShapedType::kDynamic;
        for (int64_t j = 0; j < vt.getRank(); ++j)
          perm.push_back(j == p ? 0 : j < p ? j + 1 : j);
        map.map(s->getResult(0), TransposeOp::create(b, s->getLoc(), RankedTensorType::get(shape, t.getElementType()),
                                                     map.lookup(view), b.getDenseI64ArrayAttr(perm))
                                     .getResult());
      }
    for (Operation *op : order) {
      for (Value x : op->getOperands())
        if (Operation *def = x.getDefiningOp(); def && !map.contains(x) && matchPattern(def, m_Constant()))
          map.map(x, b.clone(*def)->getResult(0));
      if (isa<IndicesOp>(op)) {
        map.map(op->getResult(0), pos);
      } else if (auto bc = dyn_cast<BroadcastOp>(op)) {
        auto t = RankedTensorType::get({ShapedType::kDynamic}, getElementTypeOrSelf(bc.getType()));
        map.map(bc.getResult(), BroadcastAsOp::create(b, bc.getLoc(), t, map.lookup(bc.getOperand()), pos,
                                                      ArrayRef<int64_t>{})
                                    .getResult());
      } else {
        b.clone(*op, map);
      }
    }
    for (Value x : r->getOperands()) // the identity: a constant, cloned (the regions are closed)
      if (Operation *def = x.getDefiningOp(); def && !map.contains(x) && matchPattern(def, m_Constant()))
        map.map(x, b.clone(*def)->getResult(0));
    Operation *red = b.clone(*r, map);
    YieldOp::create(b, loc, red->getResults());
    Block *comb = b.createBlock(&fold.getCombine(), {}, {type, type}, {loc, loc});
    YieldOp::create(b, loc, ValueRange{BinaryOp::create(b, loc, BinaryKind::Add, comb->getArgument(0),
                                                        comb->getArgument(1))});
  }
  r.getResult(0).replaceAllUsesWith(fold.getResult(0));
  r->erase();
  return fold;
}

} // namespace

void tessel::kir::foldRowSumChains(ModuleOp module, bool remarks) {
  SmallVector<ParallelOp> loops;
  module.walk([&](ParallelOp par) { loops.push_back(par); });
  for (ParallelOp par : loops) {
    Matcher m(par);
    if (!m.match()) {
      // Said only where a contraction computes a row over the axis (the form this is for): a row read
      // from memory and summed is the row path's, and a remark there would be noise.
      bool product = false;
      DenseMap<Value, SmallVector<Value>> memo;
      par.getBody().front().walk([&](ContractOp k) {
        auto d = domainsOf(k.getResult(), memo);
        product |= m.c.domain && d && llvm::is_contained(*d, m.c.domain);
      });
      // Nor where another reduction (a maximum) reads the body: kir-online-folds' maximum matcher has
      // said why already.
      for (Operation &op : par.getBody().front())
        if (auto r = dyn_cast<ReduceOp>(op); r && !llvm::is_contained(m.c.sums, r))
          product = false;
      if (remarks && !m.c.sums.empty() && product)
        m.c.sums.front().emitRemark() << "kir-online-folds: the sums over the axis stay as written: " << m.c.why;
      continue;
    }
    Chain &c = m.c;
    Value indices = indicesOf(c.domain);
    size_t n = c.sums.size();
    for (ReduceOp r : c.sums)
      foldSum(c, r, indices);
    // The stored row is computed after the last fold: its ops over A (not the loads) and the stores
    // move to the end of the body, in block order (every scalar they read is defined by then; the
    // folds read none of them, only the sources and captures).
    Block &body = par.getBody().front();
    Operation *term = body.getTerminator();
    SmallVector<Operation *> moved;
    for (Operation &op : body)
      if (c.rowOps.contains(&op) || llvm::is_contained(c.stores, &op))
        moved.push_back(&op);
    for (Operation *op : moved)
      op->moveBefore(term);
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
      if (isOpTriviallyDead(&op))
        op.erase();
    if (remarks)
      par.emitRemark() << "kir-online-folds: " << n
                       << " sum(s) over one axis of a row computed by a contraction became region folds in "
                          "order (each pass recomputes the row's tiles, exact under source numerics, seed 002 "
                          "§3.4); "
                       << c.stores.size() << " store(s) over the axis recompute the row after them";
  }
}
