//===- RowParallels.cpp - a kernel-level normalized row becomes a parallel ===//
//
// `s = T.matmul(q[bs, rows, dims], k[bs, keys, dims], transpose_rhs=True)`, then
// `p[bs, rows, keys] = e / T.sum(e, axis=2)` with `e = T.exp(s - T.max(s, axis=2))`,
// written at kernel level, and the same kernel written one `T.parallel` member per
// (batch, row) (`s = T.matvec(k[b, keys, dims], q[b, i, dims])`, `T.max(s)`) mean the
// same values (issue 41: canonical forms, not spellings); only the second is
// constructed a block of rows at a time with its reductions as folds. This pass
// rewrites a kernel-level store whose value reads a reduction over an axis the store
// writes (a row read with its own summary) into a kir.parallel over the store's
// other axes, each member computing its row: every axis over those domains becomes
// the member's index (loads read at it, contractions drop it from their batch axes,
// broadcasts and reductions renumber). The axes that become members are those that
// no reduction or contraction reduces and that every value ranges over at most once.
// It runs before kir-online-folds, which then finds the row's maximum in the member.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/KIR/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace tessel::kir {
#define GEN_PASS_DEF_KIRROWPARALLELS
#include "tessel/Dialect/KIR/Transforms/Passes.h.inc"
} // namespace tessel::kir

using namespace mlir;
using namespace tessel::kir;

namespace {

using Axes = SmallVector<Value>; // the domain of each tensor axis

/// The kernel-level computation of one store's value, its axes, and what the rewrite needs.
struct Row {
  StoreOp store;
  SmallVector<Operation *> ops;          // the store's producers at kernel level, block order
  DenseMap<Value, Axes> axes;            // of every tensor the producers define
  llvm::SetVector<Value> members;        // the store's domains that become parallel members
  std::string why;
};

bool refuse(Row &r, const Twine &why) {
  r.why = why.str();
  return false;
}

/// The axes of `op`'s result from its operands' (already known); false when `op` is not one the
/// rewrite renumbers.
bool axesOf(Operation *op, Row &r) {
  Value res = op->getResult(0);
  auto type = dyn_cast<RankedTensorType>(res.getType());
  Axes out;
  auto of = [&](Value v) -> Axes * {
    if (!isa<RankedTensorType>(v.getType()))
      return nullptr;
    auto it = r.axes.find(v);
    return it == r.axes.end() ? nullptr : &it->second;
  };
  if (auto load = dyn_cast<LoadOp>(op)) {
    if (load.getValid())
      return refuse(r, "a masked load");
    for (Value c : load.getCoords()) {
      if (isa<DomainType>(c.getType()))
        out.push_back(c);
      else if (isa<RankedTensorType>(c.getType()))
        return refuse(r, "a load at tensor coordinates");
    }
  } else if (auto bc = dyn_cast<BroadcastOp>(op)) {
    out.assign(bc.getDomains().begin(), bc.getDomains().end());
    Axes *in = of(bc.getOperand());
    if (isa<RankedTensorType>(bc.getOperand().getType()) && !in)
      return refuse(r, "a broadcast of a tensor with unknown axes");
    if (in)
      for (auto [i, d] : llvm::enumerate(bc.getDims()))
        if (d < 0 || d >= (int64_t)out.size() || out[d] != (*in)[i])
          return refuse(r, "a broadcast that moves an axis to another domain");
  } else if (auto ind = dyn_cast<IndicesOp>(op)) {
    out.push_back(ind.getDomain());
  } else if (isa<BinaryOp, UnaryOp, CastOp, SelectOp, CmpOp>(op)) {
    for (Value x : op->getOperands())
      if (Axes *a = of(x)) {
        out = *a;
        break;
      }
    for (Value x : op->getOperands())
      if (isa<RankedTensorType>(x.getType()) && (!of(x) || *of(x) != out))
        return refuse(r, "a pointwise op of tensors over different domains");
  } else if (auto red = dyn_cast<ReduceOp>(op)) {
    if (red.getInputs().size() != 1 || red->getNumResults() != 1)
      return refuse(r, "a reduction of several inputs");
    Axes *in = of(red.getInputs()[0]);
    if (!in)
      return refuse(r, "a reduction of a tensor with unknown axes");
    for (auto [i, d] : llvm::enumerate(*in))
      if (!llvm::is_contained(red.getAxes(), (int64_t)i))
        out.push_back(d);
  } else if (auto ct = dyn_cast<ContractOp>(op)) {
    Axes *l = of(ct.getLhs()), *rr = of(ct.getRhs());
    if (!l || !rr || ct.getInit())
      return refuse(r, "a contraction with unknown axes or an initial value");
    for (int64_t i : ct.getLhsBatch())
      out.push_back((*l)[i]);
    for (auto [i, d] : llvm::enumerate(*l))
      if (!llvm::is_contained(ct.getLhsReduce(), (int64_t)i) && !llvm::is_contained(ct.getLhsBatch(), (int64_t)i))
        out.push_back(d);
    for (auto [i, d] : llvm::enumerate(*rr))
      if (!llvm::is_contained(ct.getRhsReduce(), (int64_t)i) && !llvm::is_contained(ct.getRhsBatch(), (int64_t)i))
        out.push_back(d);
  } else {
    return refuse(r, Twine("'") + op->getName().getStringRef() + "' in the row's computation");
  }
  if (!type)
    return refuse(r, "a scalar result of a tensor computation");
  if ((int64_t)out.size() != type.getRank())
    return refuse(r, Twine("'") + op->getName().getStringRef() + "' with axes of unknown domains");
  r.axes[res] = out;
  return true;
}

/// The domains reduced by `op` (a reduction or contraction), given its operands' axes.
SmallVector<Value> reducedDomains(Operation *op, Row &r) {
  SmallVector<Value> out;
  if (auto red = dyn_cast<ReduceOp>(op)) {
    for (int64_t a : red.getAxes())
      out.push_back(r.axes[red.getInputs()[0]][a]);
  } else if (auto ct = dyn_cast<ContractOp>(op)) {
    for (int64_t a : ct.getLhsReduce())
      out.push_back(r.axes[ct.getLhs()][a]);
    for (int64_t a : ct.getRhsReduce())
      out.push_back(r.axes[ct.getRhs()][a]);
  }
  return out;
}

/// Whether some op of `kernel` (the store itself included: a member reading another's row of the view
/// it writes would race) writes `view`.
bool written(KernelOp kernel, Value view) {
  bool found = false;
  kernel.walk([&](Operation *op) {
    if (!isa<LoadOp, GatherOp, IndexRelationOp>(op) && llvm::is_contained(op->getOperands(), view))
      found = true;
  });
  return found;
}

/// Fills `r` for a kernel-level store; false (with `why` where it says something) when it is not a
/// row normalized by its own reduction.
bool match(StoreOp store, Row &r) {
  r.store = store;
  Block *top = store->getBlock();
  if (store.getValid())
    return refuse(r, "a masked store");
  auto vt = dyn_cast<RankedTensorType>(store.getValue().getType());
  if (!vt)
    return false;
  // The producers: kernel-level ops the value needs that read some tensor (scalars and domains are
  // launch facts, read as they are).
  llvm::SetVector<Operation *> slice;
  SmallVector<Value> work{store.getValue()};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != top || !isa<RankedTensorType>(v.getType()) || slice.contains(def))
      continue;
    slice.insert(def);
    if (isa<LoadOp>(def))
      continue;
    llvm::append_range(work, def->getOperands());
  }
  r.ops.assign(slice.begin(), slice.end());
  llvm::sort(r.ops, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  // Only a row read with its own summary: a reduction over an axis the store writes.
  SmallVector<Value> stored;
  for (Value c : store.getCoords())
    if (isa<DomainType>(c.getType()))
      stored.push_back(c);
    else if (isa<RankedTensorType>(c.getType()))
      return false;
  // Only a row read with its own summary is this pass's business: say why not only where the value
  // reduces something.
  if (llvm::none_of(r.ops, [](Operation *op) { return isa<ReduceOp>(op); }))
    return false;
  bool normalized = false;
  for (Operation *op : r.ops) {
    if (op->getNumResults() != 1 || (op->getNumRegions() && !isa<ReduceOp>(op)))
      return refuse(r, Twine("'") + op->getName().getStringRef() + "' in the row's computation");
    if (!isMemoryEffectFree(op) && !isa<LoadOp>(op))
      return refuse(r, Twine("an effect ('") + op->getName().getStringRef() + "') in the row's computation");
    if (auto load = dyn_cast<LoadOp>(op); load && written(store->getParentOfType<KernelOp>(), load.getView()))
      return refuse(r, "the row reads a view the kernel writes");
    if (!axesOf(op, r))
      return false;
    if (auto red = dyn_cast<ReduceOp>(op))
      for (Value d : reducedDomains(op, r))
        normalized |= llvm::is_contained(stored, d);
  }
  if (!normalized)
    return false;
  if (r.axes.lookup(store.getValue()) != Axes(stored))
    return refuse(r, "the stored value's axes are not the store's domains in order");
  // Members: the store's domains that nothing reduces and that each value ranges over at most once.
  for (Value d : stored) {
    bool ok = llvm::count(stored, d) == 1;
    for (Operation *op : r.ops) {
      ok &= !llvm::is_contained(reducedDomains(op, r), d);
      ok &= llvm::count(r.axes[op->getResult(0)], d) <= 1;
      if (auto ct = dyn_cast<ContractOp>(op)) {
        // Over both operands it must be a batch pair (the member's own product).
        Axes &l = r.axes[ct.getLhs()], &rr = r.axes[ct.getRhs()];
        auto li = llvm::find(l, d), ri = llvm::find(rr, d);
        if (li != l.end() && ri != rr.end())
          ok &= llvm::is_contained(ct.getLhsBatch(), li - l.begin()) &&
                llvm::is_contained(ct.getRhsBatch(), ri - rr.begin()) &&
                llvm::find(ct.getLhsBatch(), li - l.begin()) - ct.getLhsBatch().begin() ==
                    llvm::find(ct.getRhsBatch(), ri - rr.begin()) - ct.getRhsBatch().begin();
      }
    }
    if (ok)
      r.members.insert(d);
  }
  if (r.members.empty())
    return refuse(r, "every axis the store writes is reduced in the row's computation");
  if (r.members.size() == stored.size())
    return refuse(r, "no axis of the store is left for the row");
  return true;
}

/// The positions of `axes` that stay (not members) and the type of the value without the others.
SmallVector<int64_t> kept(const Axes &axes, const llvm::SetVector<Value> &members) {
  SmallVector<int64_t> out;
  for (auto [i, d] : llvm::enumerate(axes))
    if (!members.contains(d))
      out.push_back(i);
  return out;
}

Type without(Type t, ArrayRef<int64_t> keep) {
  auto rt = cast<RankedTensorType>(t);
  if (keep.empty())
    return rt.getElementType();
  SmallVector<int64_t> shape;
  for (int64_t i : keep)
    shape.push_back(rt.getDimSize(i));
  return RankedTensorType::get(shape, rt.getElementType());
}

/// The new position of old axis `a` among `keep`.
int64_t renumber(ArrayRef<int64_t> keep, int64_t a) { return llvm::find(keep, a) - keep.begin(); }

SmallVector<int64_t> renumberAll(ArrayRef<int64_t> keep, ArrayRef<int64_t> axes) {
  SmallVector<int64_t> out;
  for (int64_t a : axes)
    if (llvm::is_contained(keep, a))
      out.push_back(renumber(keep, a));
  return out;
}

/// A contraction every result axis of which became a member is, in the member, the dot product of
/// its operands' rows (each operand keeps only its reduce axes, `lr` and `rr` pairing them). A
/// kir.contract yields a tensor, so it is spelled as the sum of the products in the accumulator
/// type: the member's own row reduction, which construction realizes as a fold (the same value up
/// to summation order, seed 000 §5 reductions; a `precision` permission is not used).
Value memberDot(OpBuilder &b, ContractOp ct, Value lhs, Value rhs, ArrayRef<int64_t> lr, ArrayRef<int64_t> rr,
                RankedTensorType result) {
  Location loc = ct.getLoc();
  Type acc = result.getElementType();
  auto widen = [&](Value v) -> Value {
    auto t = cast<RankedTensorType>(v.getType());
    if (t.getElementType() == acc)
      return v;
    return CastOp::create(b, loc, t.clone(acc), v);
  };
  Value x = widen(lhs), y = widen(rhs);
  auto xt = cast<RankedTensorType>(x.getType());
  if (ArrayRef<int64_t>(lr) != ArrayRef<int64_t>(rr)) {
    // y's axis rr[p] lands where x holds its pair, lr[p].
    SmallVector<int64_t> perm(lr.size());
    for (auto [p, a] : llvm::enumerate(lr))
      perm[a] = rr[p];
    y = TransposeOp::create(b, loc, xt, y, b.getDenseI64ArrayAttr(perm));
  }
  Value prod = BinaryOp::create(b, loc, BinaryKind::Mul, x, y);
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(acc));
  auto sum = ReduceOp::create(b, loc, TypeRange{acc}, ValueRange{prod},
                              llvm::to_vector(llvm::seq<int64_t>(0, xt.getRank())), ValueRange{zero});
  OpBuilder::InsertionGuard g(b);
  Block *blk = b.createBlock(&sum.getCombine(), {}, {acc, acc}, {loc, loc});
  YieldOp::create(b, loc, ValueRange{BinaryOp::create(b, loc, BinaryKind::Add, blk->getArgument(0), blk->getArgument(1))});
  return sum.getResult(0);
}

/// Builds the parallel of a matched row at its store, erasing the store and what only it used.
void rewrite(Row &r) {
  StoreOp store = r.store;
  OpBuilder b(store);
  SmallVector<Value> domains(r.members.begin(), r.members.end());
  auto par = ParallelOp::create(b, store.getLoc(), domains);
  Block *body = b.createBlock(&par.getBody());
  DenseMap<Value, Value> index;
  for (Value d : domains)
    index[d] = body->addArgument(b.getIndexType(), d.getLoc());
  b.setInsertionPointToEnd(body);
  IRMapping map;
  auto keepOf = [&](Value v) { return kept(r.axes[v], r.members); };
  for (Operation *op : r.ops) {
    Value res = op->getResult(0);
    SmallVector<int64_t> keep = keepOf(res);
    Type type = without(res.getType(), keep);
    Value out;
    if (auto ind = dyn_cast<IndicesOp>(op); ind && r.members.contains(ind.getDomain())) {
      out = index[ind.getDomain()];
    } else if (auto ct = dyn_cast<ContractOp>(op); ct && keep.empty()) {
      out = memberDot(b, ct, map.lookupOrDefault(ct.getLhs()), map.lookupOrDefault(ct.getRhs()),
                      renumberAll(keepOf(ct.getLhs()), ct.getLhsReduce()),
                      renumberAll(keepOf(ct.getRhs()), ct.getRhsReduce()), cast<RankedTensorType>(res.getType()));
    } else if (auto bc = dyn_cast<BroadcastOp>(op)) {
      Value operand = map.lookupOrDefault(bc.getOperand());
      SmallVector<Value> doms;
      for (int64_t i : keep)
        doms.push_back(bc.getDomains()[i]);
      if (keep.empty()) {
        out = operand; // every axis is a member: the operand itself
      } else {
        SmallVector<int64_t> dims;
        if (isa<RankedTensorType>(bc.getOperand().getType()))
          for (auto [i, d] : llvm::enumerate(bc.getDims()))
            if (llvm::is_contained(keep, d))
              dims.push_back(renumber(keep, d));
        out = BroadcastOp::create(b, bc.getLoc(), type, operand, doms, dims).getResult();
      }
    } else {
      Operation *clone = b.clone(*op, map);
      if (auto load = dyn_cast<LoadOp>(clone)) {
        for (OpOperand &c : load.getCoordsMutable())
          if (auto it = index.find(c.get()); it != index.end())
            c.set(it->second);
      } else if (auto red = dyn_cast<ReduceOp>(clone)) {
        red.setAxes(renumberAll(keepOf(cast<ReduceOp>(op).getInputs()[0]), red.getAxes()));
      } else if (auto ct = dyn_cast<ContractOp>(clone)) {
        auto orig = cast<ContractOp>(op);
        SmallVector<int64_t> lk = keepOf(orig.getLhs()), rk = keepOf(orig.getRhs());
        ct.setLhsReduce(renumberAll(lk, ct.getLhsReduce()));
        ct.setRhsReduce(renumberAll(rk, ct.getRhsReduce()));
        ct.setLhsBatch(renumberAll(lk, ct.getLhsBatch()));
        ct.setRhsBatch(renumberAll(rk, ct.getRhsBatch()));
      }
      clone->getResult(0).setType(type);
      out = clone->getResult(0);
    }
    map.map(res, out);
  }
  Operation *moved = b.clone(*store, map);
  for (OpOperand &c : cast<StoreOp>(moved).getCoordsMutable())
    if (auto it = index.find(c.get()); it != index.end())
      c.set(it->second);
  YieldOp::create(b, store.getLoc());
  store.erase();
  for (Operation *op : llvm::reverse(r.ops))
    if (op->use_empty())
      op->erase();
}

struct RowParallels : tessel::kir::impl::KIRRowParallelsBase<RowParallels> {
  void runOnOperation() override {
    bool remarks = remarksEnabled(getOperation());
    SmallVector<StoreOp> stores;
    getOperation().walk([&](StoreOp s) {
      if (isa<KernelOp>(s->getParentOp()))
        stores.push_back(s);
    });
    for (StoreOp s : stores) {
      Row r;
      if (!match(s, r)) {
        if (remarks && !r.why.empty())
          s.emitRemark() << "kir-row-parallels: the store stays at kernel level: " << r.why;
        continue;
      }
      if (remarks)
        s.emitRemark() << "kir-row-parallels: the store reads a reduction over an axis it writes: it became a "
                          "parallel over its other "
                       << r.members.size() << " axis(es), each member computing its row";
      rewrite(r);
    }
  }
};

} // namespace
