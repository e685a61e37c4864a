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

#include "RowParallels.h"
#include "tessel/Dialect/KIR/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/CSE.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallBitVector.h"

namespace tessel::kir {
#define GEN_PASS_DEF_KIRROWPARALLELS
#include "tessel/Dialect/KIR/Transforms/Passes.h.inc"
} // namespace tessel::kir

using namespace mlir;
using namespace tessel::kir;

namespace tessel::kir::rows {

bool refuse(Row &r, const Twine &why) {
  r.why = why.str();
  return false;
}

/// The axes of `op`'s result from its operands' (already known); false when `op` is not one the
/// rewrite renumbers.
bool axesOf(Operation *op, Row &r) {
  if (auto ar = dyn_cast<ArgReduceOp>(op)) {
    // Both results (the values and their indices) range over the input's axes but the reduced one.
    auto it = r.axes.find(ar.getInput());
    if (!r.argReduces || it == r.axes.end())
      return refuse(r, "'kir.arg_reduce' in the row's computation");
    Axes out;
    for (auto [i, d] : llvm::enumerate(it->second))
      if ((int64_t)i != ar.getAxis())
        out.push_back(d);
    for (Value res : op->getResults()) {
      auto t = dyn_cast<RankedTensorType>(res.getType());
      if (!t || t.getRank() != (int64_t)out.size())
        return refuse(r, "a scalar result of a tensor computation");
      r.axes[res] = out;
    }
    return true;
  }
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
    if (!l || !rr)
      return refuse(r, "a contraction with unknown axes");
    for (int64_t i : ct.getLhsBatch())
      out.push_back((*l)[i]);
    for (auto [i, d] : llvm::enumerate(*l))
      if (!llvm::is_contained(ct.getLhsReduce(), (int64_t)i) && !llvm::is_contained(ct.getLhsBatch(), (int64_t)i))
        out.push_back(d);
    for (auto [i, d] : llvm::enumerate(*rr))
      if (!llvm::is_contained(ct.getRhsReduce(), (int64_t)i) && !llvm::is_contained(ct.getRhsBatch(), (int64_t)i))
        out.push_back(d);
    // An initial value (`init=bias`, a GEMM epilogue) ranges over the result's axes: in a member it
    // loses the same axes the result does.
    if (Value init = ct.getInit()) {
      Axes *ia = of(init);
      if (!ia || *ia != out)
        return refuse(r, "a contraction whose initial value is not over the result's domains");
    }
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
  } else if (auto ar = dyn_cast<ArgReduceOp>(op)) {
    out.push_back(r.axes[ar.getInput()][ar.getAxis()]);
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

/// The producers of `roots` into `r.ops`, in block order: the ops of `top` it needs that compute
/// tensors (scalars and domains are launch facts, read as they are).
void collect(ValueRange roots, Block *top, Row &r) {
  llvm::SetVector<Operation *> slice;
  SmallVector<Value> work(roots.begin(), roots.end());
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
}

/// Whether every producer in `r.ops` is one a member can compute (one result, no region but a
/// reduction's combine, no effect but a load of a view `kernel` never writes), recording its axes;
/// false (with `why`) at the first that is not.
bool checkProducers(KernelOp kernel, Row &r) {
  for (Operation *op : r.ops) {
    if ((op->getNumResults() != 1 && !(r.argReduces && isa<ArgReduceOp>(op))) ||
        (op->getNumRegions() && !isa<ReduceOp>(op)))
      return refuse(r, Twine("'") + op->getName().getStringRef() + "' in the row's computation");
    if (!isMemoryEffectFree(op) && !isa<LoadOp>(op))
      return refuse(r, Twine("an effect ('") + op->getName().getStringRef() + "') in the row's computation");
    if (auto load = dyn_cast<LoadOp>(op); load && written(kernel, load.getView()))
      return refuse(r, "the row reads a view the kernel writes");
    if (!axesOf(op, r))
      return false;
  }
  return true;
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
  collect(store.getValue(), top, r);
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
  if (!checkProducers(store->getParentOfType<KernelOp>(), r))
    return false;
  bool normalized = false;
  for (Operation *op : r.ops)
    if (isa<ReduceOp>(op))
      for (Value d : reducedDomains(op, r))
        normalized |= llvm::is_contained(stored, d);
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
Value memberDot(OpBuilder &b, ContractOp ct, Value lhs, Value rhs, Value init, ArrayRef<int64_t> lr,
                ArrayRef<int64_t> rr, RankedTensorType result) {
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
  b.setInsertionPointAfter(sum);
  // An initial value (the member's scalar of it) is added to the sum: the same value up to summation
  // order (seed 000 §5 reductions).
  if (init)
    return BinaryOp::create(b, loc, BinaryKind::Add, init, sum.getResult(0));
  return sum.getResult(0);
}

/// Clones the producers of `r` at `b`, inside a member whose index of each member domain is
/// `index`'s: every axis over a member is removed (`map` maps each producer's result to its clone).
void cloneRowOp(OpBuilder &b, Row &r, Operation *op, const DenseMap<Value, Value> &index, IRMapping &map) {
  auto keepOf = [&](Value v) { return kept(r.axes[v], r.members); };
  {
    Value res = op->getResult(0);
    SmallVector<int64_t> keep = keepOf(res);
    Type type = without(res.getType(), keep);
    Value out;
    if (auto ind = dyn_cast<IndicesOp>(op); ind && r.members.contains(ind.getDomain())) {
      out = index.lookup(ind.getDomain());
    } else if (auto ct = dyn_cast<ContractOp>(op); ct && keep.empty()) {
      out = memberDot(b, ct, map.lookupOrDefault(ct.getLhs()), map.lookupOrDefault(ct.getRhs()),
                      ct.getInit() ? map.lookupOrDefault(ct.getInit()) : Value(),
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
      } else if (auto ar = dyn_cast<ArgReduceOp>(clone)) {
        ar.setAxis(renumber(keepOf(cast<ArgReduceOp>(op).getInput()), ar.getAxis()));
        clone->getResult(1).setType(without(op->getResult(1).getType(), keep));
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
}

void cloneRow(OpBuilder &b, Row &r, const DenseMap<Value, Value> &index, IRMapping &map) {
  for (Operation *op : r.ops)
    cloneRowOp(b, r, op, index, map);
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
  cloneRow(b, r, index, map);
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


/// Whether kernel-level `op` is a sum: an add reduction of one input, or a contraction without an
/// initial value; in f32, i32 or i64 (pgpu-member-partials adds such sums per member).
bool isSum(Operation *op) {
  Type acc = op->getNumResults() == 1 ? getElementTypeOrSelf(op->getResult(0).getType()) : Type();
  if (!acc || !(acc.isF32() || acc.isInteger(32) || acc.isInteger(64)))
    return false;
  if (auto red = dyn_cast<ReduceOp>(op)) {
    if (red.getInputs().size() != 1)
      return false;
    Block &c = red.getCombine().front();
    auto add = dyn_cast<BinaryOp>(c.front());
    return add && add.getKind() == BinaryKind::Add && c.getOperations().size() == 2 &&
           c.getTerminator()->getOperand(0) == add.getResult();
  }
  if (auto ct = dyn_cast<ContractOp>(op))
    return !ct.getInit();
  return false;
}

/// Whether the producers of a summary over the members `r.members` can be computed per member: no
/// contraction, no reduction over a member, no value ranging over a member twice.
bool perMember(Row &r) {
  for (Operation *op : r.ops) {
    if (isa<ContractOp>(op))
      return refuse(r, "a contraction in the summary's computation");
    for (Value d : r.members)
      if (llvm::is_contained(reducedDomains(op, r), d) || llvm::count(r.axes[op->getResult(0)], d) > 1)
        return refuse(r, "the summary reduces or repeats an axis of the parallel");
  }
  return true;
}

} // namespace tessel::kir::rows

namespace {
using namespace tessel::kir::rows;

/// axesOf for a kernel-level sum, which may also reduce every axis to a scalar (a z-loss's mean of
/// each row's squared logsumexp): its reduced domains are then its input's.
bool sumAxes(Operation *sum, Row &s, bool scalars) {
  if (!isa<RankedTensorType>(sum->getResult(0).getType()))
    return scalars && isa<ReduceOp>(sum) && s.axes.count(sum->getOperand(0));
  return axesOf(sum, s);
}

/// Seed 002 §3 (replay versus materialization, a costed decision): a kernel-level sum after the
/// kernel-level parallel `par` that reduces every domain of `par` and whose operands need summaries
/// over exactly those domains computed before `par` (values whose computation reduces: each row's
/// rsqrt of an RMSNorm, the mean and rstd of a LayerNorm, in `dw = T.sum(dy * x * r, axis=0)`).
/// Replayed, every element of the sum recomputes the summary of every row: its extent times the
/// summaries' whole work. Kept, each member of `par` computes its row's values once and stores them
/// to buffers over the domains; the sum's operands are recomputed from the buffers (a workset reading
/// what another wrote: a finalization whose sum pgpu-member-partials spreads over the members).
/// Returns whether `sum` was rewritten.
bool keepRowSummaries(KernelOp kernel, ParallelOp par, Operation *sum, bool remarks, bool scalars) {
  Block &top = kernel.getBody().front();
  if (!isSum(sum))
    return false;
  SmallVector<Value> domains(par.getDomains());
  Row s;
  s.argReduces = true; // each row's argmax (corpus 256's chosen expert) is a summary too
  collect(sum->getOperands(), &top, s);
  if (!checkProducers(kernel, s) || !sumAxes(sum, s, scalars)) {
    // Say why only where the sum reads a reduction computed before the parallel (a summary).
    if (remarks && !s.why.empty() && llvm::any_of(s.ops, [&](Operation *op) {
          return isa<ReduceOp>(op) && op->isBeforeInBlock(par);
        }))
      sum->emitRemark() << "kir-row-parallels: the summary this sum reads stays replayed: " << s.why;
    return false;
  }
  SmallVector<Value> reduced = reducedDomains(sum, s);
  if (llvm::any_of(domains, [&](Value d) { return !llvm::is_contained(reduced, d); }))
    return false;
  // The summaries: values before `par` over exactly its domains that reduce, used by something over
  // other axes (the outermost of a chain: r, not the sum inside it).
  llvm::SmallPtrSet<Operation *, 16> inSlice(s.ops.begin(), s.ops.end());
  llvm::SetVector<Value> kept;
  for (Operation *op : s.ops)
    for (Value v : op->getResults()) {
      if (!op->isBeforeInBlock(par) || s.axes[v] != Axes(domains) || isa<LoadOp>(op))
        continue;
      bool outer = llvm::any_of(v.getUsers(), [&](Operation *u) {
        return u == sum || (inSlice.contains(u) && s.axes[u->getResult(0)] != Axes(domains));
      });
      Row r;
      collect(v, &top, r);
      if (outer && llvm::any_of(r.ops, [](Operation *p) { return isa<ReduceOp, ArgReduceOp>(p); }))
        kept.insert(v);
    }
  // Only the summaries the sum reaches without passing through another kept one are read (a
  // logsumexp kept whole needs no buffer of the maximum inside it).
  {
    llvm::SmallPtrSet<Value, 16> reached;
    SmallVector<Value> work(sum->getOperands());
    DenseSet<Value> seen;
    while (!work.empty()) {
      Value x = work.pop_back_val();
      if (!seen.insert(x).second)
        continue;
      if (kept.contains(x)) {
        reached.insert(x);
        continue;
      }
      if (Operation *def = x.getDefiningOp(); def && inSlice.contains(def))
        llvm::append_range(work, def->getOperands());
    }
    kept.remove_if([&](Value v) { return !reached.contains(v); });
  }
  if (kept.empty())
    return false;
  SmallVector<Row> rows(kept.size());
  for (auto [v, r] : llvm::zip(kept, rows)) {
    r.argReduces = true;
    collect(v, &top, r);
    r.members.insert(domains.begin(), domains.end());
    if (!checkProducers(kernel, r) || !perMember(r)) {
      if (remarks && !r.why.empty())
        sum->emitRemark() << "kir-row-parallels: the summary this sum reads stays replayed: " << r.why;
      return false;
    }
  }
  MLIRContext *ctx = kernel.getContext();
  Block &body = par.getBody().front();
  DenseMap<Value, Value> index;
  for (auto [d, a] : llvm::zip(domains, body.getArguments()))
    index[d] = a;
  IRMapping reads; // each summary -> its buffer's read before the sum
  for (auto [v, r] : llvm::zip(kept, rows)) {
    Location loc = v.getLoc();
    OpBuilder b(par);
    // An index (an argmax's position) is kept as i64: buffers hold integers and floats.
    auto vt = cast<RankedTensorType>(v.getType());
    bool isIndex = vt.getElementType().isIndex();
    auto bt = isIndex ? vt.clone(b.getI64Type()) : vt;
    Value buffer = BufferOp::create(b, loc, BufferType::get(ctx, bt), domains, Value(), true);
    b.setInsertionPointToStart(&body);
    IRMapping map;
    cloneRow(b, r, index, map);
    // Stored last: a write between the clone's reads and the member's own would keep CSE from merging them.
    b.setInsertionPoint(body.getTerminator());
    Value stored = map.lookup(v);
    if (isIndex)
      stored = CastOp::create(b, loc, b.getI64Type(), stored);
    BufferStoreOp::create(b, loc, stored, buffer, SmallVector<Value>(body.getArguments()));
    b.setInsertionPoint(sum);
    Value back = BufferLoadOp::create(b, loc, bt, buffer, domains).getResult();
    if (isIndex)
      back = CastOp::create(b, loc, vt, back);
    reads.map(v, back);
  }
  // The sum's operands, recomputed before it from the reads: the ops it needs (not through a kept
  // summary, which is read) that use a summary.
  llvm::SmallPtrSet<Operation *, 16> needed;
  SmallVector<Value> work(sum->getOperands());
  while (!work.empty()) {
    Value x = work.pop_back_val();
    Operation *def = x.getDefiningOp();
    if (kept.contains(x) || !def || !inSlice.contains(def) || !needed.insert(def).second)
      continue;
    llvm::append_range(work, def->getOperands());
  }
  OpBuilder b(sum);
  for (Operation *op : s.ops)
    if (needed.contains(op) && llvm::any_of(op->getOperands(), [&](Value x) { return reads.contains(x); }))
      b.clone(*op, reads);
  if (remarks)
    sum->emitRemark() << "kir-row-parallels: this sum reads a summary over the " << domains.size()
                      << " domain(s) of a parallel whole (" << kept.size()
                      << " value(s)): replayed, each of its elements would recompute the summary of every row (a "
                         "reduction per row per element); kept instead, each member of the parallel computes its "
                         "row's values once into buffers over those domains, which the sum reads";
  for (OpOperand &x : sum->getOpOperands())
    if (reads.contains(x.get()))
      x.set(reads.lookup(x.get()));
  for (Operation *op : llvm::reverse(s.ops))
    if (op->use_empty())
      op->erase();
  // The members' copies and their own computations of the same rows merge.
  IRRewriter rewriter(ctx);
  DominanceInfo dom(par);
  eliminateCommonSubExpressions(rewriter, dom, par);
  return true;
}


/// A kir.parallel member that reads a view, combines it across one axis into a tensor (a reduction or
/// contraction that keeps another axis) and stores the result back to that view in place (the gated
/// delta rule's S <- S + k (v - S^T k)^T, corpus 243; issue 47): construction realizes the stored tensor
/// element by element, so the combination would read elements already stored, and kir-to-pgpu refuses
/// it. Where another axis of the member, over domain d, is reduced by nothing, ranged over at most once
/// by every value, and indexes every read of a view the kernel writes and every store, the member's
/// values at one position of d depend only on that position (seed 000 §4: the member means its reads
/// before its writes): d becomes a member axis too (the same rule as a kernel-level row, above), and
/// each member reads its own column whole before writing it (reductions to scalars, realized first).
/// Fills `r` (ops: the body's tensor ops, members: {d}); false, with `why` where it says something.
bool matchMemberAxis(ParallelOp par, Row &r) {
  Block &body = par.getBody().front();
  KernelOp kernel = par->getParentOfType<KernelOp>();
  // Only the in-place form construction refuses is this rule's business (silent elsewhere): a tensor
  // load of a view whose value reaches a store of that view through a reduction or contraction with a
  // tensor result (kir-to-pgpu's checkReadsBeforeStores: "combines its elements across positions").
  bool refused = false;
  for (Operation &op : body) {
    auto load = dyn_cast<LoadOp>(op);
    if (!load || !isa<RankedTensorType>(load.getType()))
      continue;
    SmallVector<std::pair<Value, bool>> work{{load.getResult(), false}};
    DenseSet<Operation *> seen[2];
    while (!work.empty() && !refused) {
      auto [v, mixed] = work.pop_back_val();
      for (Operation *user : v.getUsers()) {
        if (!seen[mixed].insert(user).second)
          continue;
        if (auto st = dyn_cast<StoreOp>(user)) {
          refused |= mixed && st.getView() == load.getView() && st.getValue() == v;
          continue;
        }
        bool mixes = isa<ReduceOp, ContractOp>(user);
        for (Value r : user->getResults())
          work.push_back({r, mixed || (mixes && isa<RankedTensorType>(r.getType()))});
      }
    }
  }
  // Also a member whose stored tensor of rank >= 2 feeds a reduction or contraction that keeps an axis
  // (a state update h' = f(h) stored whole, then y = h' C summed over its rows: corpus 244): construction
  // replays h' in the reduction's walk and again in the store's, reading h twice; as a member axis each
  // member computes its row once for both (pgpu-stage-rows reads it once).
  bool replayed = false;
  if (!refused)
    for (Operation &op : body) {
      auto st = dyn_cast<StoreOp>(op);
      auto vt = st ? dyn_cast<RankedTensorType>(st.getValue().getType()) : RankedTensorType();
      if (!vt || vt.getRank() < 2)
        continue;
      SmallVector<Value> work{st.getValue()};
      DenseSet<Value> seen;
      while (!work.empty() && !replayed) {
        Value v = work.pop_back_val();
        if (!seen.insert(v).second)
          continue;
        for (Operation *user : v.getUsers()) {
          if (user->getBlock() != &body || user->getNumResults() != 1)
            continue;
          if (isa<ReduceOp, ContractOp>(user)) {
            replayed |= isa<RankedTensorType>(user->getResult(0).getType());
            continue;
          }
          work.push_back(user->getResult(0));
        }
      }
      if (replayed)
        break;
    }
  if (!refused && !replayed)
    return false;
  r.replayed = !refused;
  SmallVector<StoreOp> stores;
  for (Operation &op : body) {
    if (isa<YieldOp>(op))
      continue;
    if (auto st = dyn_cast<StoreOp>(op)) {
      stores.push_back(st);
      continue;
    }
    if (op.getNumResults() != 1 || (op.getNumRegions() && !isa<ReduceOp>(op)) ||
        (!isMemoryEffectFree(&op) && !isa<LoadOp>(op)))
      return refuse(r, Twine("'") + op.getName().getStringRef() + "' in the member");
    if (!isa<RankedTensorType>(op.getResult(0).getType())) {
      if (llvm::any_of(op.getOperands(), [](Value x) { return isa<RankedTensorType>(x.getType()); }))
        return refuse(r, "a scalar computed from a tensor in the member");
      continue; // index arithmetic and scalar reads: cloned as they are
    }
    r.ops.push_back(&op);
    if (!axesOf(&op, r))
      return false;
  }
  SmallVector<Axes> stored;
  for (StoreOp st : stores) {
    if (st.getValid() || !isa<RankedTensorType>(st.getValue().getType()))
      return refuse(r, "a masked or scalar store in the member");
    Axes doms;
    for (Value c : st.getCoords())
      if (isa<DomainType>(c.getType()))
        doms.push_back(c);
      else if (isa<RankedTensorType>(c.getType()))
        return refuse(r, "a store at tensor coordinates in the member");
    auto it = r.axes.find(st.getValue());
    if (it == r.axes.end() || it->second != doms)
      return refuse(r, "a stored value whose axes are not the store's domains in order");
    stored.push_back(doms);
  }
  // Candidates, in the order the member's values name them: domains stored once by every store.
  llvm::SetVector<Value> candidates;
  for (Operation *op : r.ops)
    for (Value d : r.axes[op->getResult(0)])
      if (!llvm::is_contained(par.getDomains(), d) &&
          llvm::all_of(stored, [&](const Axes &a) { return llvm::count(a, d) == 1; }))
        candidates.insert(d);
  for (Value d : candidates) {
    bool ok = true;
    // Replayed rows only: the member axis must not be a stored tensor's innermost coordinate (a row
    // walks its contiguous end; a column per member would read with a stride).
    if (!refused)
      for (StoreOp st : stores) {
        SmallVector<Value> doms;
        for (Value c : st.getCoords())
          if (isa<DomainType>(c.getType()))
            doms.push_back(c);
        ok &= doms.size() < 2 || doms.back() != d;
      }
    for (Operation *op : r.ops) {
      ok &= !llvm::is_contained(reducedDomains(op, r), d);
      ok &= llvm::count(r.axes[op->getResult(0)], d) <= 1;
      if (auto load = dyn_cast<LoadOp>(op); load && written(kernel, load.getView()))
        ok &= llvm::is_contained(load.getCoords(), d); // each member reads only its own position of d
      if (auto ct = dyn_cast<ContractOp>(op)) {
        Axes &l = r.axes[ct.getLhs()], &rr = r.axes[ct.getRhs()];
        auto li = llvm::find(l, d), ri = llvm::find(rr, d);
        if (li != l.end() && ri != rr.end())
          ok &= llvm::is_contained(ct.getLhsBatch(), li - l.begin()) &&
                llvm::is_contained(ct.getRhsBatch(), ri - rr.begin()) &&
                llvm::find(ct.getLhsBatch(), li - l.begin()) - ct.getLhsBatch().begin() ==
                    llvm::find(ct.getRhsBatch(), ri - rr.begin()) - ct.getRhsBatch().begin();
        else if (li != l.end() || ri != rr.end())
          ok &= !ct.getInit() && r.axes[ct.getResult()] == Axes{d}; // the member's dot product (memberDot)
      }
    }
    if (ok) {
      r.members.insert(d);
      return true;
    }
  }
  return refuse(r, "no axis of the member's stores is free of its reductions and contractions and indexes "
                   "every read of a view the kernel writes");
}

/// Rebuilds matched member `par` as a parallel over its domains and the member axis (innermost), every
/// axis over it removed from the body's values (cloneRowOp); the stores write at the new index.
void rewriteMemberAxis(ParallelOp par, Row &r) {
  OpBuilder b(par);
  Value d = r.members.front();
  SmallVector<Value> domains(par.getDomains());
  domains.push_back(d);
  auto np = ParallelOp::create(b, par.getLoc(), domains);
  np->setDiscardableAttrs(par->getDiscardableAttrDictionary());
  Block &old = par.getBody().front();
  Block *body = b.createBlock(&np.getBody());
  IRMapping map;
  for (BlockArgument a : old.getArguments())
    map.map(a, body->addArgument(a.getType(), a.getLoc()));
  DenseMap<Value, Value> index;
  index[d] = body->addArgument(b.getIndexType(), d.getLoc());
  b.setInsertionPointToEnd(body);
  DenseSet<Operation *> tensorOps(r.ops.begin(), r.ops.end());
  for (Operation &op : old) {
    if (tensorOps.contains(&op)) {
      cloneRowOp(b, r, &op, index, map);
      continue;
    }
    Operation *clone = b.clone(op, map);
    if (auto st = dyn_cast<StoreOp>(clone))
      for (OpOperand &c : st.getCoordsMutable())
        if (auto it = index.find(c.get()); it != index.end())
          c.set(it->second);
  }
  par.erase();
}

/// Each member writes `v` (an op's result, a tensor over the kernel-level domain `d`) once, right after
/// computing it, to a buffer over the parallel's domains and `d` (created before the parallel), and
/// reads it back: every other use reads the copy (keepMemberTensors, keepSharedReductions).
static void keepInBuffer(ParallelOp par, Value v, Value d) {
  Block &body = par.getBody().front();
  OpBuilder b(par);
  Location loc = v.getLoc();
  SmallVector<Value> domains(par.getDomains());
  domains.push_back(d);
  auto vt = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape(domains.size(), ShapedType::kDynamic);
  auto bt = RankedTensorType::get(shape, vt.getElementType());
  Value buffer = BufferOp::create(b, loc, BufferType::get(par.getContext(), bt), domains, Value(), true);
  b.setInsertionPointAfterValue(v);
  SmallVector<Value> coords(body.getArguments());
  coords.push_back(d);
  auto st = BufferStoreOp::create(b, loc, v, buffer, coords);
  Value back = BufferLoadOp::create(b, loc, v.getType(), buffer, coords).getResult();
  v.replaceAllUsesExcept(back, st);
}

/// Records in `r` the axes of the kernel-level tensors before `par` that a member may read as they are:
/// constants spread over domains (the 2.0 of 94_knn_top8_b's |k|^2 - 2 q.k + |q|^2, the eps of
/// 339's `-C / eps`) and index vectors; a row that passes through them keeps known axes.
static void knownOutside(ParallelOp par, Row &r) {
  for (Operation &op : *par->getBlock()) {
    if (&op == par.getOperation())
      break;
    if ((isa<BroadcastOp>(op) && !isa<RankedTensorType>(op.getOperand(0).getType())) || isa<IndicesOp>(op))
      if (!axesOf(&op, r))
        r.why.clear();
  }
}

/// The axes of `op`'s operand `operand` that it combines across positions: a reduction's axes, a
/// contraction's reduce pairs (none for other ops).
static llvm::SmallBitVector combinedAxes(Operation *op, Value operand) {
  auto type = dyn_cast<RankedTensorType>(operand.getType());
  llvm::SmallBitVector axes(type ? type.getRank() : 0);
  auto mark = [&](ArrayRef<int64_t> list) {
    for (int64_t a : list)
      if (a >= 0 && a < (int64_t)axes.size())
        axes.set(a);
  };
  if (auto red = dyn_cast<ReduceOp>(op))
    mark(red.getAxes());
  else if (auto ct = dyn_cast<ContractOp>(op))
    mark(operand == ct.getLhs() ? ct.getLhsReduce() : ct.getRhsReduce());
  return axes;
}

/// Whether the reduction or contraction `op` of the member `body` reads, through the body's ops,
/// another of `mixing` (nested: a replay of `op` recomputes it whole). Without `throughSpread`, read
/// directly: a tensor spread back over more axes stops the walk (attention's row maximum under
/// exp(s - max), which the row's sum then reduces, is a fold's statistic: the fold keeps it). With it,
/// read through such a spread that varies along an axis `op` combines (issue 47: the column sums of
/// Sinkhorn's `p / row_sums` need another row's sum per term, so each replayed normalization doubles
/// the work); one constant along the combined axes is still a fold's statistic. Axes are told apart
/// by position, so one domain may be both.
static bool readsNested(Operation *op, Block &body, const DenseSet<Operation *> &mixing, bool throughSpread) {
  // (value, the axes of it that `op` combines (none: unknown, through a reshaping op), whether a
  // spread along them was crossed).
  struct Item {
    Value value;
    llvm::SmallBitVector combined;
    bool spread;
  };
  SmallVector<Item> work;
  for (Value x : op->getOperands())
    work.push_back({x, combinedAxes(op, x), false});
  DenseMap<std::pair<Value, unsigned>, llvm::SmallBitVector> seen; // the combined axes each was walked with
  while (!work.empty()) {
    Item it = work.pop_back_val();
    Operation *def = it.value.getDefiningOp();
    if (!def || def->getBlock() != &body || isa<LoadOp>(def))
      continue;
    auto [at, first] = seen.try_emplace({it.value, unsigned(it.spread)}, it.combined);
    if (!first) {
      if (!it.combined.test(at->second))
        continue; // nothing new combined along
      at->second |= it.combined;
    }
    if (mixing.contains(def) && it.spread == throughSpread)
      return true;
    if (auto bc = dyn_cast<BroadcastOp>(def)) {
      auto in = dyn_cast<RankedTensorType>(bc.getOperand().getType());
      if (in && in.getRank() >= 1 && (int64_t)bc.getDomains().size() > in.getRank()) {
        llvm::SmallBitVector along(in.getRank());
        for (auto [i, d] : llvm::enumerate(bc.getDims()))
          if (d >= 0 && d < (int64_t)it.combined.size() && it.combined.test(d))
            along.set(i);
        if (throughSpread && along.any())
          work.push_back({bc.getOperand(), along, true});
        continue; // constant along what `op` combines: a fold's statistic
      }
    }
    bool pointwise = isa<BinaryOp, UnaryOp, CmpOp, SelectOp, CastOp, BitcastOp>(def);
    for (Value y : def->getOperands()) {
      auto t = dyn_cast<RankedTensorType>(y.getType());
      bool same = pointwise && t && t.getRank() == (int64_t)it.combined.size();
      work.push_back({y, same ? it.combined : llvm::SmallBitVector(t ? t.getRank() : 0), it.spread});
    }
  }
  return false;
}

/// The reductions and contractions of `body` with rank-1 tensor results whose axes `r` knows (recorded).
static DenseSet<Operation *> mixingOps(Block &body, Row &r) {
  DenseSet<Operation *> mixing;
  for (Operation &op : body) {
    if (op.getNumResults() != 1 || !isa<RankedTensorType>(op.getResult(0).getType()))
      continue;
    if ((op.getNumRegions() && !isa<ReduceOp>(op)) || (!isMemoryEffectFree(&op) && !isa<LoadOp>(op)))
      continue;
    if (!axesOf(&op, r)) {
      r.why.clear();
      continue;
    }
    if (isa<ReduceOp, ContractOp>(op) && r.axes[op.getResult(0)].size() == 1)
      mixing.insert(&op);
  }
  return mixing;
}

/// The ops of `mixing` upstream of `v` through the body's ops.
static llvm::SetVector<Operation *> mixingUpstream(Value v, Block &body, const DenseSet<Operation *> &mixing) {
  llvm::SetVector<Operation *> chain;
  SmallVector<Value> work{v};
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value x = work.pop_back_val();
    Operation *def = x.getDefiningOp();
    if (!def || def->getBlock() != &body || !seen.insert(x).second || isa<LoadOp>(def))
      continue;
    if (mixing.contains(def))
      chain.insert(def);
    llvm::append_range(work, def->getOperands());
  }
  return chain;
}

/// Seed 002 §3 (replay versus materialization, costed): inside a kir.parallel member, a tensor a store
/// reads through a broadcast that adds axes (squeeze-and-excitation's gate a[c] spread over the pixels,
/// corpus 249) is realized per stored element; where it comes from a reduction or contraction of
/// another reduction's or contraction's tensor (a = sigmoid(w2 @ silu(w1 @ mean(x)))), every element
/// recomputes the inner one whole: O(elements x its work). Kept instead: each such reduction and
/// contraction on the chain (rank-1, over a kernel-level domain) is written once per member to a buffer
/// over the parallel's domains and its own (first write), and read back; construction then computes each
/// once per member, in order, before the store. A single level (a row's mean spread over its row) stays.
/// Returns the number of tensors kept.
unsigned keepMemberTensors(ParallelOp par, bool remarks) {
  Block &body = par.getBody().front();
  // The axes as the body alone tells them (`r`: direct nesting keeps the reach it had; past a constant
  // spread at kernel level, 131's linear attention, kir-chained-folds plans the chain), and also
  // through such constants (`wide`: nesting through a spread, issue 47, whose `-C / eps` reads one).
  Row r, wide;
  knownOutside(par, wide);
  DenseSet<Operation *> mixing = mixingOps(body, r), wideMixing = mixingOps(body, wide);
  // Broadcasts that spread a rank-1 tensor over more axes, feeding a store of the body.
  SmallVector<Value> spread;
  for (Operation &op : body)
    if (auto bc = dyn_cast<BroadcastOp>(op)) {
      auto in = dyn_cast<RankedTensorType>(bc.getOperand().getType());
      if (in && in.getRank() == 1 && bc.getDomains().size() > 1)
        spread.push_back(bc.getOperand());
    }
  // The mixing ops upstream of each spread tensor; kept only where one of them reads another (nested).
  llvm::SetVector<Operation *> keep;
  for (Value v : spread) {
    llvm::SetVector<Operation *> chain = mixingUpstream(v, body, mixing);
    if (llvm::any_of(chain, [&](Operation *op) { return readsNested(op, body, mixing, false); }))
      keep.insert(chain.begin(), chain.end());
    chain = mixingUpstream(v, body, wideMixing);
    if (llvm::any_of(chain, [&](Operation *op) { return readsNested(op, body, wideMixing, true); }))
      keep.insert(chain.begin(), chain.end());
  }
  SmallVector<Operation *> order(keep.begin(), keep.end());
  llvm::sort(order, [](Operation *a, Operation *z) { return a->isBeforeInBlock(z); });
  unsigned kept = 0;
  for (Operation *op : order) {
    Value v = op->getResult(0);
    Value d = wide.axes[v][0];
    Operation *ddef = d.getDefiningOp();
    if (!ddef || ddef->getBlock() != par->getBlock() || !ddef->isBeforeInBlock(par))
      continue; // a domain of the member's own: no kernel-level buffer over it
    if (llvm::any_of(par.getDomains(), [&](Value pd) {
          Operation *pdef = pd.getDefiningOp();
          return !pdef || pdef->getBlock() != par->getBlock();
        }))
      return kept;
    keepInBuffer(par, v, d);
    ++kept;
  }
  if (kept && remarks)
    par.emitRemark() << "kir-row-parallels: " << kept
                     << " tensor(s) a store reads spread over more axes are computed from nested reductions or "
                        "contractions: replayed, each stored element would recompute them whole; kept instead, "
                        "each member writes them once to buffers over the parallel's domains and its own, and "
                        "reads them back";
  return kept;
}

/// Whether `op` computes its tensor element by element from its operands' elements at the same
/// position (construction replays such an op inside whichever traversal reads it).
static bool isPointwise(Operation *op) {
  return isa<BinaryOp, UnaryOp, CmpOp, SelectOp, CastOp, BitcastOp>(op) && op->getNumResults() == 1;
}

/// Seed 002 §3 (replay versus materialization, costed), issue 41: inside a kir.parallel member, a
/// rank-1 tensor computed by a reduction (or arg-reduction) is replayed by
/// construction in every traversal that reads it. Where its value (after the pointwise ops it passes
/// through alone) feeds two consumers and one of them is itself a reduction (a first rejection
/// `T.min(where(draft != argmax(logits)))` beside a store of the argmax: corpus 290), the
/// reduction's loop and the other consumer's walk each recompute it whole: its input is read twice.
/// Kept instead, as keepMemberTensors keeps nested chains: written once per member to a buffer over
/// the parallel's domains and its own (first write), read back by both. Returns the number kept.
unsigned keepSharedReductions(ParallelOp par, bool remarks) {
  Block &body = par.getBody().front();
  if (llvm::any_of(par.getDomains(), [&](Value pd) {
        Operation *pdef = pd.getDefiningOp();
        return !pdef || pdef->getBlock() != par->getBlock();
      }))
    return 0;
  Row r;
  SmallVector<Value> forks;
  SmallVector<Operation *> reductions;
  knownOutside(par, r);
  for (Operation &op : body) {
    if (auto ar = dyn_cast<ArgReduceOp>(op)) {
      auto it = r.axes.find(ar.getInput());
      if (it == r.axes.end())
        continue;
      Axes out;
      for (auto [i, d] : llvm::enumerate(it->second))
        if ((int64_t)i != ar.getAxis())
          out.push_back(d);
      for (Value res : op.getResults())
        if (auto t = dyn_cast<RankedTensorType>(res.getType()); t && t.getRank() == (int64_t)out.size())
          r.axes[res] = out;
    } else {
      if (op.getNumResults() != 1 || !isa<RankedTensorType>(op.getResult(0).getType()))
        continue;
      if ((op.getNumRegions() && !isa<ReduceOp>(op)) || (!isMemoryEffectFree(&op) && !isa<LoadOp>(op)))
        continue;
      if (!axesOf(&op, r)) {
        r.why.clear();
        continue;
      }
    }
    // A contraction's row is a tile product that folds and tile walks recompute per tile on purpose
    // (attention's scores under their softmax, kir-online-folds): never kept here.
    if (isa<ReduceOp, ArgReduceOp>(op))
      reductions.push_back(&op);
  }
  // Every axis is known now (a fork's pointwise users come after the reduction).
  for (Operation *op : reductions) {
    for (Value v : op->getResults()) {
      auto it = r.axes.find(v);
      if (v.use_empty() || it == r.axes.end() || it->second.size() != 1)
        continue;
      // Through the pointwise ops it passes alone: the value that forks.
      Value fork = v;
      while (fork.hasOneUse() && isPointwise(*fork.getUsers().begin()) &&
             r.axes.count((*fork.getUsers().begin())->getResult(0)))
        fork = (*fork.getUsers().begin())->getResult(0);
      if (fork.hasOneUse())
        continue;
      // The consumers past pointwise ops: two or more, one a reduction (its own traversal).
      llvm::SetVector<Operation *> sinks;
      SmallVector<Value> work{fork};
      DenseSet<Value> seen;
      while (!work.empty()) {
        Value x = work.pop_back_val();
        if (!seen.insert(x).second)
          continue;
        for (Operation *u : x.getUsers()) {
          if (isPointwise(u) && isa<RankedTensorType>(u->getResult(0).getType()) &&
              cast<RankedTensorType>(u->getResult(0).getType()).getRank() == 1)
            work.push_back(u->getResult(0));
          else
            sinks.insert(u);
        }
      }
      if (sinks.size() >= 2 && llvm::any_of(sinks, [](Operation *u) { return isa<ReduceOp, ArgReduceOp, ContractOp>(u); }))
        if (!llvm::is_contained(forks, fork))
          forks.push_back(fork);
    }
  }
  unsigned kept = 0;
  for (Value v : forks) {
    Value d = r.axes[v][0];
    Operation *ddef = d.getDefiningOp();
    if (!ddef || ddef->getBlock() != par->getBlock() || !ddef->isBeforeInBlock(par))
      continue; // a domain of the member's own: no kernel-level buffer over it
    keepInBuffer(par, v, d);
    ++kept;
  }
  if (kept && remarks)
    par.emitRemark() << "kir-row-parallels: " << kept
                     << " tensor(s) computed by a reduction feed a reduction and another consumer: replayed, "
                        "each would be recomputed whole by both; kept instead, each member writes them once to "
                        "buffers over the parallel's domains and its own, and reads them back";
  return kept;
}

/// Issue 41, a scalar loss over rows (corpus 248's CLIP loss): a kernel-level store of a scalar whose
/// value sums, over one domain d, per-row values computed through a contraction (each row's logsumexp
/// of `scale * img @ txt^T`, over its row and over its column). At kernel level those rows are
/// realized in one program, each dot product element by element. A member per position of d computes
/// its values instead: every tensor loses, per use, the axis at which the row's position is read
/// (a value over (d, d) is read as a row by one sum and as a column by the other, so the member axis is
/// a position, not a domain), and contractions become the member's matrix-vector products, which
/// kir-online-folds and construction tile as they do attention's rows.
struct MemberRows {
  Row &r;
  OpBuilder &b;
  Value index;                                          // the member's position in d
  DenseMap<std::pair<Value, int64_t>, Value> clones;    // (value, member axis or -1) -> the member's value

  /// `v` in the member, without its axis `pos` (-1: whole); null (with `r.why`) where it cannot be.
  Value get(Value v, int64_t pos) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    Operation *par = b.getInsertionBlock()->getParentOp();
    if (!type) {
      // Scalars and domains are read as they are: they must be computed before the parallel (not
      // from a sum it precedes).
      Operation *def = v.getDefiningOp();
      if (def && def->getBlock() == par->getBlock() && !def->isBeforeInBlock(par)) {
        refuse(r, "a row reads a scalar computed after the first sum");
        return Value();
      }
      return v;
    }
    if (auto it = clones.find({v, pos}); it != clones.end())
      return it->second;
    Operation *op = v.getDefiningOp();
    if (!op || !r.axes.count(v)) {
      refuse(r, "a tensor the row's computation does not define");
      return Value();
    }
    Value out = pos < 0 ? whole(op) : row(op, pos);
    if (out)
      clones[{v, pos}] = out;
    return out;
  }

  /// A tensor the member reads whole (a row's other operand): no reduction or contraction, which
  /// every member would repeat (quadratic work).
  Value whole(Operation *op) {
    if (isa<ReduceOp, ContractOp>(op)) {
      refuse(r, "a row reads a reduction or contraction of the whole domain");
      return Value();
    }
    IRMapping map;
    for (Value x : op->getOperands()) {
      Value y = get(x, -1);
      if (!y)
        return Value();
      map.map(x, y);
    }
    return b.clone(*op, map)->getResult(0);
  }

  /// A member's sum of all of `x`, a product of two tensors widened from one 16-bit float type to
  /// f32, is its dot product: a rank-0 kir.contract of the narrow operands (exact products, f32
  /// accumulator, seed 000 §8; the sum regrouped as memberDot's is) and its element, as `T.dot` is
  /// spelled. Its axis is then reduced only by contractions, which construction loops over in blocks
  /// (the other row's K loop), however long. Null where `x` is not such a product.
  Value memberDotOf(ReduceOp red, Value x) {
    auto mul = x.getDefiningOp<BinaryOp>();
    if (!isSum(red) || !mul || mul.getKind() != BinaryKind::Mul || mul.getApproximate() || mul.getFlushToZero())
      return Value();
    auto narrow = [](Value v) -> Value {
      auto c = v.getDefiningOp<CastOp>();
      Type from = c ? getElementTypeOrSelf(c.getOperand().getType()) : Type();
      return from && (from.isBF16() || from.isF16()) && getElementTypeOrSelf(c.getType()).isF32() ? c.getOperand()
                                                                                                    : Value();
    };
    Value lhs = narrow(mul.getLhs()), rhs = narrow(mul.getRhs());
    auto lt = lhs ? dyn_cast<RankedTensorType>(lhs.getType()) : RankedTensorType();
    if (!lhs || !rhs || !lt || lhs.getType() != rhs.getType())
      return Value();
    Location loc = red.getLoc();
    auto all = b.getDenseI64ArrayAttr(llvm::to_vector(llvm::seq<int64_t>(0, lt.getRank())));
    Value dot = ContractOp::create(b, loc, RankedTensorType::get({}, b.getF32Type()), lhs, rhs, Value(), all, all,
                                   b.getDenseI64ArrayAttr({}), b.getDenseI64ArrayAttr({}), ContractPrecisionAttr());
    return ExtractOp::create(b, loc, b.getF32Type(), dot, ValueRange{}).getResult();
  }

  /// The clone of `op` with result axis `pos` read at the member's index.
  Value row(Operation *op, int64_t pos) {
    Value res = op->getResult(0);
    auto type = cast<RankedTensorType>(res.getType());
    SmallVector<int64_t> keep;
    for (int64_t i = 0; i < type.getRank(); ++i)
      if (i != pos)
        keep.push_back(i);
    Type newType = without(type, keep);
    auto drop = [](ArrayRef<int64_t> axes, int64_t p) {
      SmallVector<int64_t> out;
      for (int64_t a : axes)
        if (a != p)
          out.push_back(a - (p >= 0 && a > p));
      return out;
    };
    IRMapping map;
    auto use = [&](Value x, int64_t p) {
      Value y = get(x, p);
      if (y)
        map.map(x, y);
      return y;
    };
    if (auto ind = dyn_cast<IndicesOp>(op))
      return index;
    if (auto load = dyn_cast<LoadOp>(op)) {
      for (Value c : load.getCoords())
        if (!isa<DomainType>(c.getType()) && !get(c, -1))
          return Value();
      auto clone = cast<LoadOp>(b.clone(*op));
      int64_t axis = 0;
      for (OpOperand &c : clone.getCoordsMutable())
        if (isa<DomainType>(c.get().getType()) && axis++ == pos)
          c.set(index);
      clone->getResult(0).setType(newType);
      return clone->getResult(0);
    }
    if (auto bc = dyn_cast<BroadcastOp>(op)) {
      Value operand = bc.getOperand();
      int64_t from = -1;
      SmallVector<int64_t> dims;
      for (auto [k, d] : llvm::enumerate(bc.getDims())) {
        if (d == pos)
          from = k;
        else
          dims.push_back(d - (d > pos));
      }
      operand = get(operand, from); // whole where the member's axis is one the broadcast adds
      if (!operand)
        return Value();
      if (keep.empty())
        return operand; // a broadcast over the member only: its operand, a scalar
      SmallVector<Value> doms;
      for (int64_t i : keep)
        doms.push_back(bc.getDomains()[i]);
      if (!isa<RankedTensorType>(operand.getType()))
        dims.clear();
      return BroadcastOp::create(b, bc.getLoc(), newType, operand, doms, dims).getResult();
    }
    if (isa<BinaryOp, UnaryOp, CastOp, SelectOp, CmpOp>(op)) {
      for (Value x : op->getOperands())
        if (!use(x, isa<RankedTensorType>(x.getType()) ? pos : -1))
          return Value();
      Operation *clone = b.clone(*op, map);
      clone->getResult(0).setType(newType);
      return clone->getResult(0);
    }
    if (auto red = dyn_cast<ReduceOp>(op)) {
      // Result axis `pos` is the input's pos-th axis that is not reduced.
      int64_t in = -1, seen = 0;
      auto inType = cast<RankedTensorType>(red.getInputs()[0].getType());
      for (int64_t i = 0; i < inType.getRank() && in < 0; ++i)
        if (!llvm::is_contained(red.getAxes(), i) && seen++ == pos)
          in = i;
      if (!use(red.getInputs()[0], in))
        return Value();
      if (keep.empty())
        if (Value dot = memberDotOf(red, map.lookup(red.getInputs()[0])))
          return dot;
      auto clone = cast<ReduceOp>(b.clone(*op, map));
      clone.setAxes(drop(red.getAxes(), in));
      clone->getResult(0).setType(newType);
      return clone->getResult(0);
    }
    auto ct = dyn_cast<ContractOp>(op);
    if (!ct) {
      refuse(r, Twine("'") + op->getName().getStringRef() + "' in the row's computation");
      return Value();
    }
    // Result axes: the batch pairs, then the lhs's free axes, then the rhs's.
    auto lt = cast<RankedTensorType>(ct.getLhs().getType()), rt = cast<RankedTensorType>(ct.getRhs().getType());
    auto freeAxes = [](RankedTensorType t, ArrayRef<int64_t> red, ArrayRef<int64_t> bat) {
      SmallVector<int64_t> out;
      for (int64_t i = 0; i < t.getRank(); ++i)
        if (!llvm::is_contained(red, i) && !llvm::is_contained(bat, i))
          out.push_back(i);
      return out;
    };
    SmallVector<int64_t> lf = freeAxes(lt, ct.getLhsReduce(), ct.getLhsBatch()),
                         rf = freeAxes(rt, ct.getRhsReduce(), ct.getRhsBatch());
    int64_t nb = ct.getLhsBatch().size(), lp = -1, rp = -1;
    if (pos < nb)
      lp = ct.getLhsBatch()[pos], rp = ct.getRhsBatch()[pos];
    else if (pos < nb + (int64_t)lf.size())
      lp = lf[pos - nb];
    else
      rp = rf[pos - nb - lf.size()];
    Value lhs = use(ct.getLhs(), lp), rhs = use(ct.getRhs(), rp);
    Value init = ct.getInit() ? use(ct.getInit(), pos) : Value();
    if (!lhs || !rhs || (ct.getInit() && !init))
      return Value();
    if (keep.empty())
      return memberDot(b, ct, lhs, rhs, init, drop(ct.getLhsReduce(), lp), drop(ct.getRhsReduce(), rp), type);
    auto clone = cast<ContractOp>(b.clone(*op, map));
    clone.setLhsReduce(drop(ct.getLhsReduce(), lp));
    clone.setRhsReduce(drop(ct.getRhsReduce(), rp));
    clone.setLhsBatch(drop(ct.getLhsBatch(), lp)); // a batch pair at the member's axis is dropped
    clone.setRhsBatch(drop(ct.getRhsBatch(), rp));
    clone->getResult(0).setType(newType);
    return clone->getResult(0);
  }
};

/// Whether kernel-level `op` is a sum of a vector (an add reduction of one rank-1 input to a scalar)
/// whose computation holds a contraction: a row result of a matrix product.
bool isRowSumOfProducts(Operation *op, Block *top) {
  auto red = dyn_cast<ReduceOp>(op);
  if (!red || !isSum(op) || isa<RankedTensorType>(red->getResult(0).getType()))
    return false;
  auto in = dyn_cast<RankedTensorType>(red.getInputs()[0].getType());
  if (!in || in.getRank() != 1)
    return false;
  Row s;
  collect(red.getInputs(), top, s);
  return llvm::any_of(s.ops, [](Operation *p) { return isa<ContractOp>(p); });
}

/// Rewrites the sums over one domain that `store`'s scalar value reads (isRowSumOfProducts) to read
/// buffers over that domain which a new kir.parallel's members write, one row each. Returns whether
/// it did; `why` says why not where the value holds such a sum.
bool parallelRowSums(KernelOp kernel, StoreOp store, std::string &why) {
  Block *top = store->getBlock();
  if (isa<RankedTensorType>(store.getValue().getType()) || store.getValid())
    return false;
  // The kernel-level ops the scalar needs, through scalars (collect stops at them), block order.
  llvm::SetVector<Operation *> slice;
  SmallVector<Value> work{store.getValue()};
  while (!work.empty()) {
    Operation *def = work.pop_back_val().getDefiningOp();
    if (def && def->getBlock() == top && slice.insert(def))
      llvm::append_range(work, def->getOperands());
  }
  SmallVector<Operation *> all(slice.begin(), slice.end());
  llvm::sort(all, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  SmallVector<ReduceOp> sums;
  for (Operation *op : all)
    if (isRowSumOfProducts(op, top))
      sums.push_back(cast<ReduceOp>(op));
  if (sums.empty())
    return false;
  // The rows: each sum's input, all over one domain (the first sum's).
  SmallVector<Value> rows;
  for (ReduceOp s : sums)
    rows.push_back(s.getInputs()[0]);
  Row r;
  collect(rows, top, r);
  if (!checkProducers(kernel, r)) {
    why = r.why;
    return false;
  }
  Value domain = r.axes[rows[0]][0];
  for (Value v : rows)
    if (r.axes[v][0] != domain) {
      why = "the sums reduce different domains";
      return false;
    }
  // One parallel per sum, before the first sum (every row value and scalar it reads is defined
  // before it): kir-online-folds folds one softmax per member, not two over unrelated rows.
  OpBuilder b(sums.front());
  Location loc = store.getLoc();
  SmallVector<ParallelOp> pars;
  SmallVector<Value> values;
  for (Value v : rows) {
    b.setInsertionPoint(sums.front());
    auto par = ParallelOp::create(b, loc, ValueRange{domain});
    pars.push_back(par);
    Block *body = b.createBlock(&par.getBody());
    Value index = body->addArgument(b.getIndexType(), domain.getLoc());
    b.setInsertionPointToEnd(body);
    MemberRows m{r, b, index, {}};
    Value x = m.get(v, 0);
    if (!x) {
      why = r.why;
      for (ParallelOp p : pars)
        p.erase();
      return false;
    }
    values.push_back(x);
  }
  MLIRContext *ctx = kernel.getContext();
  for (auto [v, x, s, par] : llvm::zip(rows, values, sums, pars)) {
    b.setInsertionPoint(pars.front());
    Value buffer = BufferOp::create(b, v.getLoc(), BufferType::get(ctx, v.getType()), ValueRange{domain}, Value(),
                                    true);
    Block *body = &par.getBody().front();
    b.setInsertionPointToEnd(body);
    BufferStoreOp::create(b, v.getLoc(), x, buffer, ValueRange{body->getArgument(0)});
    YieldOp::create(b, loc);
    b.setInsertionPoint(s);
    s->setOperand(0, BufferLoadOp::create(b, v.getLoc(), v.getType(), buffer, ValueRange{domain}).getResult());
  }
  for (Operation *op : llvm::reverse(r.ops))
    if (op->use_empty())
      op->erase();
  // A member reads each row of its operands once for all its values.
  IRRewriter rewriter(ctx);
  for (ParallelOp par : pars) {
    DominanceInfo dom(par);
    eliminateCommonSubExpressions(rewriter, dom, par);
    // The widenings a member's dot product reads past (memberDotOf) are dead.
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(par.getBody().front())))
      if (isOpTriviallyDead(&op))
        op.erase();
  }
  return true;
}

/// Seed 002 §3, issue 41 (corpus 256's router losses): a kernel-level sum over one domain d (a column
/// sum `T.sum(p, axis=0)` over tokens, or the sum of a vector over d) whose operands read a summary of
/// each position of d (a reduction or arg-reduction over another axis: each token's max, softmax
/// denominator, argmax) written without a `T.parallel` over d. Replayed, every element of the sum
/// recomputes every row's summaries (the extent of the sum's other axes times the rows' whole work).
/// An empty kir.parallel over d placed before the first such sum lets keepRowSummaries keep the
/// summaries there (each member computes its row's once into buffers the sums read); the pure
/// kernel-level ops later such sums read after it (the logsumexp `mx + log(den)` of a z-loss) move
/// before it, where their operands allow, so that its members compute those too. Returns the new
/// parallels (erased by the caller where nothing was kept).
SmallVector<ParallelOp> addSummaryParallels(KernelOp kernel) {
  Block &top = kernel.getBody().front();
  SmallVector<ParallelOp> added;
  DenseMap<Value, ParallelOp> byDomain; // d -> the parallel over exactly (d) before the sums
  for (Operation *op : llvm::to_vector(llvm::map_range(top, [](Operation &o) { return &o; }))) {
    if (auto par = dyn_cast<ParallelOp>(op)) {
      if (par.getDomains().size() == 1)
        byDomain.try_emplace(par.getDomains()[0], par);
      continue;
    }
    if (!isa<ReduceOp>(op) || !isSum(op))
      continue;
    Row s;
    s.argReduces = true;
    collect(op->getOperands(), &top, s);
    // A scalar sum of row values alone (a mean of row logsumexps, corpus 274) stays for
    // pgpu-split-row-reductions; it joins a parallel added for a column sum (below).
    if (!checkProducers(kernel, s) || !sumAxes(op, s, true))
      continue;
    SmallVector<Value> reduced = reducedDomains(op, s);
    if (reduced.size() != 1)
      continue;
    Value d = reduced.front();
    Operation *ddef = d.getDefiningOp();
    if (!ddef || ddef->getBlock() != &top || !ddef->isBeforeInBlock(op))
      continue;
    bool summary = llvm::any_of(s.ops, [&](Operation *p) {
      return isa<ReduceOp, ArgReduceOp>(p) && s.axes[p->getResult(0)] == Axes{d};
    });
    if (!summary)
      continue;
    auto it = byDomain.find(d);
    if (it == byDomain.end()) {
      if (!isa<RankedTensorType>(op->getResult(0).getType()))
        continue;
      OpBuilder b(op);
      auto par = ParallelOp::create(b, op->getLoc(), ValueRange{d});
      Block *body = b.createBlock(&par.getBody());
      body->addArgument(b.getIndexType(), d.getLoc());
      YieldOp::create(b, op->getLoc());
      byDomain[d] = par;
      added.push_back(par);
      continue;
    }
    // A later sum: its pure producers after the parallel move before it where their operands are.
    ParallelOp par = it->second;
    if (!llvm::is_contained(added, par))
      continue;
    for (Operation *p : s.ops) {
      if (p->isBeforeInBlock(par) || isa<LoadOp>(p) || p->getNumRegions() || !isMemoryEffectFree(p))
        continue;
      bool ready = llvm::all_of(p->getOperands(), [&](Value x) {
        Operation *def = x.getDefiningOp();
        return !def || def->getBlock() != &top || def->isBeforeInBlock(par);
      });
      if (ready)
        p->moveBefore(par);
    }
  }
  return added;
}

/// The ops of type OpTy directly in a kernel's body, in walk order: collected before a rewrite changes the IR.
template <typename OpTy>
static SmallVector<OpTy> kernelLevel(Operation *root) {
  SmallVector<OpTy> ops;
  root->walk([&](OpTy op) {
    if (isa<KernelOp>(op->getParentOp()))
      ops.push_back(op);
  });
  return ops;
}

struct RowParallels : tessel::kir::impl::KIRRowParallelsBase<RowParallels> {
  using KIRRowParallelsBase::KIRRowParallelsBase;

  void runOnOperation() override {
    bool remarks = remarksEnabled(getOperation());
    for (StoreOp s : kernelLevel<StoreOp>(getOperation())) {
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
    // A scalar store reading sums over rows of a matrix product's rows: a parallel over the rows.
    if (keepSummaries)
      for (StoreOp s : kernelLevel<StoreOp>(getOperation())) {
        std::string why;
        if (parallelRowSums(s->getParentOfType<KernelOp>(), s, why)) {
          if (remarks)
            s.emitRemark() << "kir-row-parallels: the stored scalar sums rows of a matrix product: a parallel over "
                              "the rows computes them, one member per row, into buffers the sums read";
        } else if (remarks && !why.empty()) {
          s.emitRemark() << "kir-row-parallels: the sums over rows this scalar reads stay at kernel level: " << why;
        }
      }
    // Members that store a view in place with a value combined across another of its axes.
    for (ParallelOp par : kernelLevel<ParallelOp>(getOperation())) {
      Row r;
      if (!matchMemberAxis(par, r)) {
        if (remarks && !r.why.empty())
          par.emitRemark() << (r.replayed ? "kir-row-parallels: the member stores a tensor that a reduction "
                                            "keeping another axis also reads, and keeps its axes: "
                                          : "kir-row-parallels: the member stores a view it reads in place and "
                                            "keeps its axes: ")
                           << r.why;
        continue;
      }
      if (remarks && r.replayed)
        par.emitRemark() << "kir-row-parallels: the member stores a tensor that a reduction keeping another axis "
                            "also reads (construction would replay it in both walks); the axis its stores, reads "
                            "of written views and values share and nothing reduces became a member axis (each "
                            "member computes its row once)";
      else if (remarks)
        par.emitRemark() << "kir-row-parallels: the member stores a view it reads in place with values combined "
                            "across another axis; the axis its stores, reads of written views and values share "
                            "and nothing reduces became a member axis (each member reads its own column before "
                            "writing it)";
      rewriteMemberAxis(par, r);
    }
    // Tensors a member's store spreads over more axes, computed from nested reductions: kept per member.
    for (ParallelOp par : kernelLevel<ParallelOp>(getOperation()))
      keepMemberTensors(par, remarks);
    // Tensors computed by a reduction that a reduction and another consumer both read: kept per member.
    for (ParallelOp par : kernelLevel<ParallelOp>(getOperation()))
      keepSharedReductions(par, remarks);
    // Row summaries a later parallel's scan reads per step: computed once, by a parallel over the rows.
    for (KernelOp kernel : getOperation().getOps<KernelOp>())
      keepScannedSummaries(kernel, remarks);
    // Summaries over a parallel's rows that a later sum reads whole are kept by the parallel.
    if (!keepSummaries)
      return;
    for (KernelOp kernel : getOperation().getOps<KernelOp>()) {
      SmallVector<ParallelOp> added = addSummaryParallels(kernel);
      for (ParallelOp par : llvm::to_vector(kernel.getBody().front().getOps<ParallelOp>()))
        for (bool changed = true; changed;) {
          changed = false; // a rewrite erases and adds ops: look again from the start
          for (Operation *op = par->getNextNode(); op && !changed; op = op->getNextNode())
            changed = keepRowSummaries(kernel, par, op, remarks, llvm::is_contained(added, par));
        }
      // A parallel added for summaries that none of its sums kept: nothing to compute.
      for (ParallelOp par : added)
        if (par.getBody().front().getOperations().size() == 1)
          par.erase();
    }
  }
};

} // namespace
