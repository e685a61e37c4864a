//===- NeutralizeBoundaries.cpp - a read's bound becomes the view's own ---===//
//
// seed 002 §3.4: "Boundary neutralization removes or simplifies actual
// validity/fill, rather than merely deleting a padding record."
//
// A blocked read of a sub-range of a view (a ragged group's rows of a grouped
// GEMM operand: rows `start + i` for `i < rows`) masks the lanes past the
// sub-range's end. When every value those lanes produce reaches only lanes that
// a store masks off with the same predicate (row i of an operand feeds row i of
// the accumulator, stored under `i < rows`), what they read is never observed:
// the mask may then admit every lane inside the view instead, `start + i <
// extent` (and `0 <= start + i` unless that is proved). The read is still in
// bounds and its validity is the view's own bound, the form a provider's box
// access (a tensor descriptor, TMA) realizes without a mask.
//
//   %t = cmp lt iota(i0), splat(rows)                    (rank 1, fragment dim d)
//   %x = load %A[.., broadcast(splat(start) + iota(i0)) dims [d], ..] valid broadcast(%t) & ..
//   ... lane-wise along d ... store %y, %C[..] valid broadcast(%t) dims [e] & ..
// ->
//   %x = load %A[..] valid broadcast(cmp lt (splat(start) + iota(i0), splat(extent))) & ..
//
// Lane-wise: pointwise ops, broadcasts, transposes, a contraction where d is a
// free axis of its operand or the accumulator's, a loop carry (init, block
// argument, yield, result; the predicate defined outside that loop). Anything
// else that reads a tainted value (a
// reduction over d, a contraction over d, a coordinate, a condition, another
// effect) keeps the mask. The store may be a unique scatter (rows placed by
// offsets read in the program). Must not fire: a term already the view's
// bound, a value observed outside the masked lanes.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/IR/IndexSign.h"
#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseSet.h"

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUNEUTRALIZEBOUNDARIES
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

namespace {

/// The leaves of an `and` tree (no broadcast is looked through: each leaf has the access's shape).
void andLeaves(Value v, SmallVectorImpl<Value> &out) {
  if (auto b = v.getDefiningOp<BinaryOp>(); b && b.getKind() == kir::BinaryKind::And) {
    andLeaves(b.getLhs(), out);
    andLeaves(b.getRhs(), out);
    return;
  }
  out.push_back(v);
}

/// A leaf `broadcast(t) dims [d]` of a rank-1 predicate t: (t, d).
std::pair<Value, int64_t> lineOf(Value leaf) {
  auto bc = leaf.getDefiningOp<BroadcastOp>();
  if (!bc || bc.getDims().size() != 1)
    return {};
  auto operand = dyn_cast<FragmentType>(bc.getOperand().getType());
  if (!operand || operand.getRank() != 1)
    return {};
  return {bc.getOperand(), bc.getDims()[0]};
}

/// The coordinates of `load` laid along fragment dimension `d`: (view axis, the coordinate before its
/// broadcast).
SmallVector<std::pair<int64_t, Value>> linesAlong(LoadOp load, int64_t d) {
  SmallVector<std::pair<int64_t, Value>> lines;
  for (auto [a, c] : llvm::enumerate(load.getCoords()))
    if (auto bc = c.getDefiningOp<BroadcastOp>(); bc && bc.getDims().size() == 1 && bc.getDims()[0] == d)
      lines.push_back({int64_t(a), bc.getOperand()});
  return lines;
}

/// The lanes a mask term admits are the only ones observed: every value computed from `load`'s
/// result that depends on its lanes along dimension `dim` (lane-wise, see the file comment) reaches
/// memory only through stores whose validity has the leaf `broadcast(pred) dims [e]` on the
/// dimension e those lanes occupy there. On failure `blocker` is the first op that observes them.
bool observedOnlyUnder(Value result, int64_t dim, Value pred, Operation *&blocker) {
  SmallVector<std::pair<Value, int64_t>> work{{result, dim}};
  llvm::DenseSet<std::pair<Value, int64_t>> seen;
  while (!work.empty()) {
    auto [v, d] = work.pop_back_val();
    if (!seen.insert({v, d}).second)
      continue;
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      blocker = user;
      if (isa<BinaryOp, UnaryOp, CastOp, CmpOp, SelectOp>(user)) {
        work.push_back({user->getResult(0), d});
        continue;
      }
      if (auto bc = dyn_cast<BroadcastOp>(user)) {
        work.push_back({bc.getResult(), bc.getDims()[d]});
        continue;
      }
      if (auto t = dyn_cast<TransposeOp>(user)) {
        ArrayRef<int64_t> perm = t.getPermutation();
        auto at = llvm::find(perm, d);
        if (at == perm.end())
          return false;
        work.push_back({t.getResult(), at - perm.begin()});
        continue;
      }
      if (auto c = dyn_cast<ContractOp>(user)) {
        if (!c.getLhsBatch().empty() || !c.getRhsBatch().empty())
          return false;
        if (use.getOperandNumber() == 2) { // the accumulator: lane-wise
          work.push_back({c.getResult(), d});
          continue;
        }
        bool lhs = use.getOperandNumber() == 0;
        ArrayRef<int64_t> reduce = lhs ? c.getLhsReduce() : c.getRhsReduce();
        if (llvm::is_contained(reduce, d))
          return false; // summed over: every result lane sees it
        int64_t position = 0;
        for (int64_t i = 0; i < d; ++i)
          position += !llvm::is_contained(reduce, i);
        if (!lhs)
          position += cast<FragmentType>(c.getLhs().getType()).getRank() - int64_t(c.getLhsReduce().size());
        work.push_back({c.getResult(), position});
        continue;
      }
      // A carry takes the lanes into another iteration: the predicate must be the same value there,
      // so defined outside the loop (one defined in its body masks other lanes in the next iteration).
      auto invariant = [&](ForOp loop) { return pred.getParentRegion()->isProperAncestor(&loop.getBody()); };
      if (auto loop = dyn_cast<ForOp>(user)) {
        if (use.getOperandNumber() < 3 || !invariant(loop))
          return false; // a bound or step
        unsigned i = use.getOperandNumber() - 3;
        work.push_back({loop.getBody().getArgument(i + 1), d});
        work.push_back({loop.getResult(i), d});
        continue;
      }
      if (auto yield = dyn_cast<YieldOp>(user)) {
        auto loop = dyn_cast<ForOp>(yield->getParentOp());
        if (!loop || !invariant(loop))
          return false;
        unsigned i = use.getOperandNumber();
        work.push_back({loop.getBody().getArgument(i + 1), d});
        work.push_back({loop.getResult(i), d});
        continue;
      }
      // A store or a unique scatter (a ragged group's rows placed by offsets read as scalars): its
      // masked lanes write nothing.
      if (isa<StoreOp, ScatterOp>(user)) {
        if (use.getOperandNumber() != 0)
          return false; // a coordinate or the validity
        SmallVector<Value> leaves;
        andLeaves(user->getOperands().back(), leaves);
        bool masked = llvm::any_of(leaves, [&](Value leaf) {
          auto [line, at] = lineOf(leaf);
          return line == pred && at == d;
        });
        if (!masked)
          return false;
        continue;
      }
      return false;
    }
  }
  blocker = nullptr;
  return true;
}

/// `splat(s) + iota` or `iota + splat(s)`: (iota, s).
std::pair<IotaOp, Value> shiftedIota(Value line) {
  if (auto iota = line.getDefiningOp<IotaOp>())
    return {iota, Value()};
  auto add = line.getDefiningOp<BinaryOp>();
  if (!add || add.getKind() != kir::BinaryKind::Add)
    return {};
  for (auto [l, r] : {std::pair(add.getLhs(), add.getRhs()), std::pair(add.getRhs(), add.getLhs())}) {
    auto splat = l.getDefiningOp<SplatOp>();
    auto iota = r.getDefiningOp<IotaOp>();
    if (splat && iota && !isa<FragmentType>(splat.getOperand().getType()))
      return {iota, splat.getOperand()};
  }
  return {};
}

/// Whether `v` is the extent of `view` axis `axis`: a pgpu.extent of an axis of that name (views share
/// extents by name), through construction's max(x, 0) / ceil_div(x, 1); or that static size.
bool isViewExtent(Value v, Value view, int64_t axis) {
  Attribute extent = cast<ViewType>(view.getType()).getExtents()[axis];
  while (Operation *def = v.getDefiningOp()) {
    if (auto e = dyn_cast<ExtentOp>(def))
      return cast<ViewType>(e.getView().getType()).getExtents()[e.getAxis()] == extent;
    APInt c;
    if (auto d = dyn_cast<CeilDivOp>(def); d && matchPattern(d.getRhs(), m_ConstantInt(&c)) && c.isOne()) {
      v = d.getLhs();
      continue;
    }
    if (auto b = dyn_cast<BinaryOp>(def);
        b && (b.getKind() == kir::BinaryKind::Max || b.getKind() == kir::BinaryKind::Sub) &&
        matchPattern(b.getRhs(), m_ConstantInt(&c)) && c.isZero()) {
      v = b.getLhs();
      continue;
    }
    break;
  }
  APInt c;
  auto size = dyn_cast<IntegerAttr>(extent);
  return size && matchPattern(v, m_ConstantInt(&c)) && c.getSExtValue() == size.getInt();
}

/// Whether a validity leaf of `load` bounds a view axis: `line < extent` (or `0 <= line`, or both)
/// broadcast along one dimension, `line` the coordinate of that axis; or a splat of true.
bool isViewBound(Value leaf, LoadOp load) {
  APInt one;
  if (auto s = leaf.getDefiningOp<SplatOp>(); s && matchPattern(s.getOperand(), m_ConstantInt(&one)) && !one.isZero())
    return true;
  auto [pred, d] = lineOf(leaf);
  if (!pred)
    return false;
  SmallVector<Value> terms;
  andLeaves(pred, terms);
  for (Value term : terms) {
    auto cmp = term.getDefiningOp<CmpOp>();
    auto bound = cmp ? cmp.getRhs().getDefiningOp<SplatOp>() : SplatOp();
    if (!bound)
      return false;
    std::optional<int64_t> axis;
    for (auto [a, line] : linesAlong(load, d))
      if (line == cmp.getLhs())
        axis = a;
    if (!axis)
      return false;
    APInt zero;
    bool ok = (cmp.getPredicate() == kir::CmpPredicate::LT && isViewExtent(bound.getOperand(), load.getView(), *axis)) ||
              (cmp.getPredicate() == kir::CmpPredicate::GE && matchPattern(bound.getOperand(), m_ConstantInt(&zero)) &&
               zero.isZero());
    if (!ok)
      return false;
  }
  return true;
}

/// Erases `v`'s defining op if nothing uses it any more, and then its operands' (pure ops only).
void eraseIfDead(Value v) {
  Operation *def = v.getDefiningOp();
  if (!def || !def->use_empty() || !isPure(def))
    return;
  SmallVector<Value> operands(def->getOperands());
  def->erase();
  for (Value o : operands)
    eraseIfDead(o);
}

struct NeutralizeBoundaries : public tessel::pgpu::impl::PGPUNeutralizeBoundariesBase<NeutralizeBoundaries> {
  void runOnOperation() override {
    SmallVector<LoadOp> loads;
    getOperation().walk([&](LoadOp l) { loads.push_back(l); });
    for (LoadOp load : loads)
      neutralize(load);
  }

  /// A validity leaf the pass rewrites: its position among the read's leaves, the fragment dimension
  /// it masks, the view axis walked there and that coordinate (`start + iota`, or the iota).
  struct Rewrite {
    size_t leaf;
    int64_t dim, axis;
    Value line, start;
    IotaOp iota;
  };

  void neutralize(LoadOp load) {
    // A tile (rank 2 and more): a rank-1 read's neutralized tail would only read more, for nothing.
    auto shape = dyn_cast<FragmentType>(load.getResult().getType());
    if (!shape || shape.getRank() < 2)
      return;
    bool remarks = remarksEnabled(load);
    SmallVector<Value> leaves;
    andLeaves(load.getValid(), leaves);
    SmallVector<Rewrite> rewrites;
    for (auto [i, leaf] : llvm::enumerate(leaves)) {
      auto [pred, d] = lineOf(leaf);
      if (!pred)
        continue;
      auto cmp = pred.getDefiningOp<CmpOp>();
      if (!cmp || cmp.getPredicate() != kir::CmpPredicate::LT)
        continue;
      auto iota = cmp.getLhs().getDefiningOp<IotaOp>();
      auto bound = cmp.getRhs().getDefiningOp<SplatOp>();
      if (!iota || !bound)
        continue;
      // The view axis this fragment dimension walks at `start + iota` (or the iota itself).
      std::optional<Rewrite> rewrite;
      for (auto [a, line] : linesAlong(load, d)) {
        auto [it, start] = shiftedIota(line);
        if (it == iota) {
          rewrite = Rewrite{i, d, a, line, start, iota};
          break;
        }
      }
      if (!rewrite || isViewExtent(bound.getOperand(), load.getView(), rewrite->axis))
        continue; // not a walk of a view axis, or already its bound
      Operation *blocker = nullptr;
      if (!observedOnlyUnder(load.getResult(), d, pred, blocker)) {
        if (remarks) {
          InFlightDiagnostic r = emitRemark(load.getLoc())
                                 << "pgpu-neutralize-boundaries: kept the mask on fragment dimension " << d
                                 << ": the lanes it masks are observed";
          if (blocker)
            r.attachNote(blocker->getLoc()) << "by this '" << blocker->getName() << "'";
        }
        continue;
      }
      rewrites.push_back(*rewrite);
    }
    if (rewrites.empty())
      return;
    // Only where the read's validity becomes the view's own bounds (what a box access realizes):
    // elsewhere a neutralized mask only reads more (a pointwise kernel's tail), for nothing.
    for (auto [i, leaf] : llvm::enumerate(leaves)) {
      if (llvm::any_of(rewrites, [&](const Rewrite &r) { return r.leaf == i; }) || isViewBound(leaf, load))
        continue;
      if (remarks)
        emitRemark(load.getLoc()) << "pgpu-neutralize-boundaries: kept the read's masks: another conjunct is not "
                                     "a bound of the view, so the read would not become a box";
      return;
    }
    OpBuilder b(load);
    Location loc = load.getLoc();
    auto i1Frag = FragmentType::get(b.getContext(), b.getI1Type(), shape.getExtents());
    for (Rewrite &r : rewrites) {
      // The view's own bound: `line < extent`, built at the load (its operands dominate it there) ...
      Value extent = ExtentOp::create(b, loc, load.getView(), r.axis);
      auto lineType = cast<FragmentType>(r.line.getType());
      Value splat = SplatOp::create(b, loc, lineType, extent);
      Value inBounds = CmpOp::create(b, loc, kir::CmpPredicate::LT, r.line, splat);
      // ... and `0 <= line` unless the start and the iota's base are provably non-negative: every lane
      // the new mask admits lies inside the view.
      if ((r.start && !provablyNonNegative(r.start)) || !provablyNonNegative(r.iota.getBase())) {
        Value zero = SplatOp::create(b, loc, lineType, arith::ConstantIndexOp::create(b, loc, 0));
        Value above = CmpOp::create(b, loc, kir::CmpPredicate::GE, r.line, zero);
        inBounds = BinaryOp::create(b, loc, kir::BinaryKind::And, above, inBounds, false, false);
      }
      leaves[r.leaf] = BroadcastOp::create(b, loc, i1Frag, inBounds, b.getDenseI64ArrayAttr({r.dim}));
      if (remarks)
        emitRemark(loc) << "pgpu-neutralize-boundaries: the mask on fragment dimension " << r.dim << " became view axis "
                        << r.axis << "'s bound: the lanes it masked reach only lanes every store masks off";
    }
    Value valid = leaves.front();
    for (Value leaf : ArrayRef<Value>(leaves).drop_front())
      valid = BinaryOp::create(b, loc, kir::BinaryKind::And, valid, leaf, false, false);
    Value old = load.getValid();
    load.getValidMutable().assign(valid);
    eraseIfDead(old);
  }
};
} // namespace
