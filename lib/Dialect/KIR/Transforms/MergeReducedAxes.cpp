//===- MergeReducedAxes.cpp - two axes reduced together through a paged read are one axis ===//
//
// A reduction over [blocks, slots] of a cache read K[table[b, blocks], slots] (a paged KV cache,
// issue 42) is a reduction over one axis t of blocks * slots members with K[table[b, t // S],
// t % S] (seed 002 §2.1: index relations are gathers; the pair is a joint gather). Every value over
// the two axes is rebuilt over t: x[a, j] becomes x'[t] = x[a(t), j(t)], a value over blocks alone
// x[a] becomes x'[t] = x[a(t)] and one over slots alone y[j] becomes y'[t] = y[j(t)]; pointwise
// math commutes with that, and a reduction over both axes is one over t (a bijection). A maximum
// over one axis then folds (kir-online-folds), and construction reads a block's slots as a tile.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/KIR/Transforms/Passes.h"

#include "AxisDomains.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/RegionUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <string>

namespace tessel::kir {
#define GEN_PASS_DEF_KIRMERGEREDUCEDAXES
#include "tessel/Dialect/KIR/Transforms/Passes.h.inc"
} // namespace tessel::kir

using namespace mlir;
using namespace tessel::kir;

namespace {

/// How a value relates to the two axes: over neither, over both (outer at `pos`, inner at `pos+1`),
/// over the outer alone, over the inner alone, or over them some other way (unmergeable).
enum class Kind { None, Pair, Outer, Inner, Bad };

struct Axes {
  Kind kind = Kind::None;
  int64_t pos = -1;
};

bool isConstIndex(Value v, int64_t c) {
  APInt attr;
  return matchPattern(v, m_ConstantInt(&attr)) && attr.getSExtValue() == c;
}

/// The inner axis must be a step-1 `kir.domain` from 0 whose extent is known non-negative (a named
/// extent or a constant): then [0, nA * nB) enumerates the pairs (and is empty when either is).
bool innerDomainOk(Value inner, std::string &why) {
  auto dom = inner.getDefiningOp<DomainOp>();
  if (!dom || dom.getStep() != 1 || !isConstIndex(dom.getLower(), 0)) {
    why = "the inner axis is not a step-1 domain from 0";
    return false;
  }
  APInt c;
  if (dom.getUpper().getDefiningOp<ExtentOp>() ||
      (matchPattern(dom.getUpper(), m_ConstantInt(&c)) && !c.isNegative()))
    return true;
  why = "the inner axis's extent is not known to be non-negative (a named extent or a constant)";
  return false;
}

/// The outer axis: a step-1 domain or a subregion of one (its members [begin, end)).
bool outerDomainOk(Value outer, std::string &why) {
  if (auto dom = outer.getDefiningOp<DomainOp>(); dom && dom.getStep() == 1)
    return true;
  if (auto sub = outer.getDefiningOp<SubregionOp>())
    if (auto dom = sub.getSource().getDefiningOp<DomainOp>(); dom && dom.getStep() == 1)
      return true;
  why = "the outer axis is not a step-1 domain or a subregion of one";
  return false;
}

struct Merger {
  ParallelOp par;
  Value outer, inner;
  DenseMap<Value, SmallVector<Value>> memo;
  std::string why;

  std::optional<SmallVector<Value>> doms(Value v) { return domainsOf(v, memo); }

  Axes axesOf(Value v) {
    if (!isa<RankedTensorType>(v.getType()))
      return {};
    auto d = doms(v);
    if (!d)
      return {Kind::Bad, -1};
    int64_t a = -1, j = -1, na = 0, nj = 0;
    for (auto [i, x] : llvm::enumerate(*d)) {
      if (x == outer)
        a = i, ++na;
      if (x == inner)
        j = i, ++nj;
    }
    if (na == 0 && nj == 0)
      return {};
    if (na == 1 && nj == 1)
      return j == a + 1 ? Axes{Kind::Pair, a} : Axes{Kind::Bad, -1};
    if (na == 1 && nj == 0)
      return {Kind::Outer, a};
    if (na == 0 && nj == 1)
      return {Kind::Inner, j};
    return {Kind::Bad, -1};
  }

  bool touches(Operation *op) {
    for (Value v : op->getOperands())
      if (v == outer || v == inner || axesOf(v).kind != Kind::None)
        return true;
    for (Value v : op->getResults())
      if (axesOf(v).kind != Kind::None)
        return true;
    return false;
  }

  bool refuse(Operation *op, const Twine &reason) {
    why = (reason + " ('" + op->getName().getStringRef() + "')").str();
    return false;
  }

  /// Whether a contraction operand's touched axes are both reduced (paired with the other
  /// operand's outer and inner axes in that order), both batch or both free; a lone axis is free.
  bool contractSideOk(ContractOp c, Axes s, Axes o, ArrayRef<int64_t> red, ArrayRef<int64_t> ored,
                      ArrayRef<int64_t> bat, ArrayRef<int64_t> obat) {
    if (s.kind == Kind::None)
      return true;
    auto at = [](ArrayRef<int64_t> l, int64_t x) { return (int64_t)(llvm::find(l, x) - l.begin()); };
    if (s.kind == Kind::Outer || s.kind == Kind::Inner)
      return !llvm::is_contained(red, s.pos) && !llvm::is_contained(bat, s.pos) ? true
                                                                                 : refuse(c, "a contraction over one of the axes alone");
    for (auto [l, ol] : {std::pair{red, ored}, std::pair{bat, obat}}) {
      bool a = llvm::is_contained(l, s.pos), j = llvm::is_contained(l, s.pos + 1);
      if (a != j)
        return refuse(c, "a contraction over one of the axes alone");
      if (a && (o.kind != Kind::Pair || ol[at(l, s.pos)] != o.pos || ol[at(l, s.pos + 1)] != o.pos + 1))
        return refuse(c, "a contraction pairing the axes with others");
    }
    return true;
  }

  /// Every op reading or computing a value over the axes is one this pass rebuilds, and the axes
  /// are read jointly by at least one gather through an index tensor over the outer axis.
  bool legal() {
    if (!outerDomainOk(outer, why) || !innerDomainOk(inner, why))
      return false;
    bool paged = false;
    Block &body = par.getBody().front();
    // The merged domain goes after the later of the axes' definitions in the body: nothing over the
    // axes may come before it (a value over a kernel-level axis computed in the body first).
    Operation *first = nullptr;
    for (Value d : {outer, inner})
      if (Operation *def = d.getDefiningOp(); def && def->getBlock() == &body)
        if (!first || first->isBeforeInBlock(def))
          first = def;
    WalkResult r = par.getBody().walk([&](Operation *op) {
      if (!touches(op))
        return WalkResult::advance();
      bool ok = op->getBlock() != &body ? refuse(op, "a value over the axes is read inside a nested region")
                : first && op->isBeforeInBlock(first)
                    ? refuse(op, "a value over the axes computed before their domains")
                    : legalOp(op, paged);
      return ok ? WalkResult::advance() : WalkResult::interrupt();
    });
    if (r.wasInterrupted())
      return false;
    if (!paged)
      why = "no read indexes the outer axis through an index tensor and the inner axis directly";
    return paged;
  }

  bool legalOp(Operation *op, bool &paged) {
    for (Value v : op->getResults())
      if (axesOf(v).kind == Kind::Bad)
        return refuse(op, "a value over the axes in another order, or over one of them twice");
    if (isa<IndicesOp>(op))
      return true;
    if (auto load = dyn_cast<LoadOp>(op)) {
      Axes r = axesOf(load.getResult());
      if (load.getValid())
        return refuse(op, "a masked read over the axes");
      if (r.kind == Kind::Pair)
        return refuse(op, "a read of both axes as domains (no index tensor)");
      return true;
    }
    if (auto g = dyn_cast<GatherOp>(op)) {
      if (g.getValid() || g.getJoint())
        return refuse(op, "a masked or joint gather over the axes");
      Axes r = axesOf(g.getResult());
      auto coords = g.getCoords();
      if (r.kind == Kind::Pair && llvm::is_contained(coords, outer))
        return refuse(op, "a gather of the outer axis as a domain");
      for (auto [i, c] : llvm::enumerate(coords)) {
        Axes a = axesOf(c);
        if (a.kind == Kind::None)
          continue;
        if (cast<RankedTensorType>(c.getType()).getRank() != 1)
          return refuse(op, "a gather through a multi-axis index tensor over the axes");
        if (r.kind == Kind::Pair && (a.kind != Kind::Outer || i + 1 >= coords.size() || coords[i + 1] != inner))
          return refuse(op, "a gather of both axes whose index tensor over the outer axis is not followed by the "
                            "inner axis");
        if (r.kind == Kind::Pair)
          paged = true;
      }
      return true;
    }
    if (auto bc = dyn_cast<BroadcastOp>(op)) {
      Axes o = axesOf(bc.getOperand()), r = axesOf(bc.getResult());
      ArrayRef<int64_t> dims = bc.getDims();
      if (o.kind == Kind::Pair && (dims[o.pos] != r.pos || dims[o.pos + 1] != r.pos + 1))
        return refuse(op, "a broadcast that moves the axes apart");
      if (o.kind == Kind::Outer && dims[o.pos] != r.pos)
        return refuse(op, "a broadcast that moves the outer axis");
      if (o.kind == Kind::Inner && dims[o.pos] != (r.kind == Kind::Pair ? r.pos + 1 : r.pos))
        return refuse(op, "a broadcast that moves the inner axis");
      return true;
    }
    if (isa<BinaryOp, UnaryOp, CastOp, CmpOp, SelectOp>(op)) {
      std::optional<SmallVector<Value>> first;
      for (Value v : llvm::concat<Value>(op->getOperands(), op->getResults())) {
        if (!isa<RankedTensorType>(v.getType()))
          continue;
        auto d = doms(v);
        if (!d || (first && *first != *d))
          return refuse(op, "pointwise operands over different domains");
        first = d;
      }
      return true;
    }
    if (auto red = dyn_cast<ReduceOp>(op)) {
      for (Value in : red.getInputs()) {
        Axes a = axesOf(in);
        ArrayRef<int64_t> axes = red.getAxes();
        if (a.kind == Kind::Pair && llvm::is_contained(axes, a.pos) != llvm::is_contained(axes, a.pos + 1))
          return refuse(op, "a reduction over one of the axes alone");
        if ((a.kind == Kind::Outer || a.kind == Kind::Inner) && llvm::is_contained(axes, a.pos))
          return refuse(op, "a reduction over one of the axes alone");
      }
      return true;
    }
    if (auto c = dyn_cast<ContractOp>(op)) {
      if (c.getInit() && axesOf(c.getInit()).kind != Kind::None)
        return refuse(op, "a contraction accumulating into a value over the axes");
      Axes l = axesOf(c.getLhs()), r = axesOf(c.getRhs());
      return contractSideOk(c, l, r, c.getLhsReduce(), c.getRhsReduce(), c.getLhsBatch(), c.getRhsBatch()) &&
             contractSideOk(c, r, l, c.getRhsReduce(), c.getLhsReduce(), c.getRhsBatch(), c.getLhsBatch());
    }
    return refuse(op, "a use of the axes this pass does not rebuild");
  }

  //===--------------------------------------------------------------------===//
  // Rewrite
  //===--------------------------------------------------------------------===//

  Value merged, nB, loA; // the merged domain, the inner extent, the outer axis's first member
  IRMapping map;
  SmallVector<Operation *> made;    // index arithmetic this pass created (erased when dead)
  SmallVector<Operation *> outside; // ops outside the body whose values were rebuilt in it

  /// `d` with the axes replaced by the merged domain (once for an adjacent pair), and where each of
  /// `d`'s positions goes.
  SmallVector<Value> mergeDoms(ArrayRef<Value> d, SmallVectorImpl<int64_t> *pos = nullptr) {
    SmallVector<Value> out;
    for (size_t i = 0; i < d.size(); ++i) {
      if (pos)
        pos->push_back(out.size());
      if (d[i] == outer && i + 1 < d.size() && d[i + 1] == inner) {
        if (pos)
          pos->push_back(out.size());
        ++i;
        out.push_back(merged);
      } else {
        out.push_back(d[i] == outer || d[i] == inner ? merged : d[i]);
      }
    }
    return out;
  }

  SmallVector<int64_t> positions(Value v) {
    SmallVector<int64_t> pos;
    mergeDoms(*doms(v), &pos);
    return pos;
  }

  RankedTensorType newType(Value v) {
    auto t = cast<RankedTensorType>(v.getType());
    SmallVector<Value> d = *doms(v);
    SmallVector<int64_t> shape;
    for (size_t i = 0; i < d.size(); ++i) {
      if (d[i] == outer && i + 1 < d.size() && d[i + 1] == inner) {
        shape.push_back(ShapedType::kDynamic);
        ++i;
      } else {
        shape.push_back(d[i] == outer || d[i] == inner ? ShapedType::kDynamic : t.getDimSize(i));
      }
    }
    return RankedTensorType::get(shape, t.getElementType());
  }

  template <typename OpTy, typename... Args>
  Value make(OpBuilder &b, Location loc, Args &&...args) {
    auto op = OpTy::create(b, loc, std::forward<Args>(args)...);
    made.push_back(op);
    return op->getResult(0);
  }

  /// The outer (`isOuter`) or inner coordinate of each member t of the merged axis: loA + t / nB,
  /// t % nB. A fresh `kir.indices` per use, as the author writes one per expression.
  Value coordinate(OpBuilder &b, Location loc, bool isOuter) {
    auto idx = RankedTensorType::get({ShapedType::kDynamic}, b.getIndexType());
    Value t = make<IndicesOp>(b, loc, idx, merged);
    Value n = make<BroadcastOp>(b, loc, idx, nB, ValueRange{merged}, b.getDenseI64ArrayAttr({}));
    if (!isOuter)
      return make<BinaryOp>(b, loc, BinaryKind::Rem, t, n);
    Value a = make<BinaryOp>(b, loc, BinaryKind::Div, t, n);
    if (isConstIndex(loA, 0))
      return a;
    Value lo = make<BroadcastOp>(b, loc, idx, loA, ValueRange{merged}, b.getDenseI64ArrayAttr({}));
    return make<BinaryOp>(b, loc, BinaryKind::Add, a, lo);
  }

  /// The merged domain, made where both axes' bounds are defined (in the body when either is).
  void makeDomain() {
    Block &body = par.getBody().front();
    Operation *after = nullptr;
    for (Value d : {outer, inner})
      if (Operation *def = d.getDefiningOp(); def && def->getBlock() == &body)
        if (!after || after->isBeforeInBlock(def))
          after = def;
    OpBuilder b(par.getContext());
    if (after)
      b.setInsertionPointAfter(after);
    else
      b.setInsertionPointToStart(&body);
    Location loc = outer.getLoc();
    Value nA;
    if (auto sub = outer.getDefiningOp<SubregionOp>()) {
      loA = sub.getBegin();
      nA = isConstIndex(loA, 0) ? sub.getEnd() : make<BinaryOp>(b, loc, BinaryKind::Sub, sub.getEnd(), loA);
    } else {
      auto dom = outer.getDefiningOp<DomainOp>();
      loA = dom.getLower();
      nA = isConstIndex(loA, 0) ? dom.getUpper()
                                : make<BinaryOp>(b, loc, BinaryKind::Sub, dom.getUpper(), loA);
    }
    nB = inner.getDefiningOp<DomainOp>().getUpper();
    Value n = BinaryOp::create(b, loc, BinaryKind::Mul, nA, nB);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    merged = DomainOp::create(b, loc, zero, n).getResult();
  }

  /// The rebuilt value of `v` (a value defined outside the body over one axis is rebuilt at `b`).
  Value lookup(Value v, OpBuilder &b) {
    if (Value m = map.lookupOrNull(v))
      return m;
    if (!isa<RankedTensorType>(v.getType()) || axesOf(v).kind == Kind::None)
      return v;
    if (!llvm::is_contained(outside, v.getDefiningOp()))
      outside.push_back(v.getDefiningOp());
    rebuild(v.getDefiningOp(), b);
    return map.lookup(v);
  }

  /// Rebuilds `op` (one that touches the axes) over the merged axis at `b`, recording its results.
  void rebuild(Operation *op, OpBuilder &b) {
    Location loc = op->getLoc();
    if (auto ind = dyn_cast<IndicesOp>(op)) {
      if (ind.getDomain() == outer || ind.getDomain() == inner)
        map.map(ind.getResult(), coordinate(b, loc, ind.getDomain() == outer));
      return;
    }
    auto access = [&](Value view, ValueRange coords, Value result) {
      SmallVector<Value> nc;
      SmallVector<int64_t> joint;
      bool anyJoint = false;
      for (Value c : coords) {
        nc.push_back(c == outer || c == inner ? coordinate(b, loc, c == outer) : lookup(c, b));
        joint.push_back(-1);
      }
      // The inner domain after an index tensor over the outer axis: one axis, a joint pair.
      if (axesOf(result).kind == Kind::Pair)
        for (size_t i = 0; i + 1 < coords.size(); ++i)
          if (axesOf(coords[i]).kind == Kind::Outer && coords[i + 1] == inner) {
            joint[i + 1] = i;
            anyJoint = true;
          }
      Value g = GatherOp::create(b, loc, newType(result), view, nc, Value(), Value(),
                                 anyJoint ? b.getDenseI64ArrayAttr(joint) : DenseI64ArrayAttr())
                    .getResult();
      map.map(result, g);
    };
    if (auto load = dyn_cast<LoadOp>(op))
      return access(load.getView(), load.getCoords(), load.getResult());
    if (auto g = dyn_cast<GatherOp>(op))
      return access(g.getView(), g.getCoords(), g.getResult());
    if (auto bc = dyn_cast<BroadcastOp>(op)) {
      SmallVector<int64_t> rpos;
      SmallVector<Value> nd = mergeDoms(SmallVector<Value>(bc.getDomains()), &rpos);
      Value operand = lookup(bc.getOperand(), b);
      SmallVector<int64_t> dims;
      if (isa<RankedTensorType>(bc.getOperand().getType())) {
        SmallVector<int64_t> opos = positions(bc.getOperand());
        for (auto [i, d] : llvm::enumerate(bc.getDims()))
          if (i == 0 || opos[i] != opos[i - 1])
            dims.push_back(rpos[d]);
      }
      bool identity = isa<RankedTensorType>(operand.getType()) &&
                      (int64_t)dims.size() == cast<RankedTensorType>(operand.getType()).getRank() &&
                      dims.size() == nd.size() && llvm::equal(dims, llvm::seq<int64_t>(0, dims.size()));
      map.map(bc.getResult(), identity ? operand
                                       : BroadcastOp::create(b, loc, newType(bc.getResult()), operand, nd,
                                                             b.getDenseI64ArrayAttr(dims))
                                             .getResult());
      return;
    }
    auto mapAxes = [&](Value v, ArrayRef<int64_t> axes) {
      SmallVector<int64_t> pos = positions(v), out;
      for (int64_t a : axes)
        if (!llvm::is_contained(out, pos[a]))
          out.push_back(pos[a]);
      return out;
    };
    if (auto c = dyn_cast<ContractOp>(op)) {
      Value lhs = lookup(c.getLhs(), b), rhs = lookup(c.getRhs(), b);
      auto pairs = [&](ArrayRef<int64_t> l, ArrayRef<int64_t> r, SmallVector<int64_t> &nl, SmallVector<int64_t> &nr) {
        SmallVector<int64_t> lp = positions(c.getLhs()), rp = positions(c.getRhs());
        for (auto [x, y] : llvm::zip(l, r))
          if (!llvm::is_contained(nl, lp[x])) {
            nl.push_back(lp[x]);
            nr.push_back(rp[y]);
          }
      };
      SmallVector<int64_t> lr, rr, lb, rb;
      pairs(c.getLhsReduce(), c.getRhsReduce(), lr, rr);
      pairs(c.getLhsBatch(), c.getRhsBatch(), lb, rb);
      map.map(c.getLhs(), lhs);
      map.map(c.getRhs(), rhs);
      auto nc = cast<ContractOp>(b.clone(*op, map));
      nc.getResult().setType(newType(c.getResult()));
      nc.setLhsReduce(lr);
      nc.setRhsReduce(rr);
      nc.setLhsBatch(lb);
      nc.setRhsBatch(rb);
      return;
    }
    for (Value v : op->getOperands())
      map.map(v, lookup(v, b));
    Operation *copy = b.clone(*op, map);
    for (auto [o, n] : llvm::zip(op->getResults(), copy->getResults()))
      if (isa<RankedTensorType>(o.getType()))
        n.setType(newType(o));
    if (auto red = dyn_cast<ReduceOp>(op))
      cast<ReduceOp>(copy).setAxes(mapAxes(red.getInputs()[0], red.getAxes()));
    // clone() mapped the results; nothing else to record.
  }

  /// (x / n) * n + x % n is x, for any n where both are defined (floor or truncated division alike):
  /// the position of a member rebuilt from its block and slot is the member itself.
  void foldPositions() {
    Block &body = par.getBody().front();
    for (Operation &op : llvm::make_early_inc_range(body)) {
      auto add = dyn_cast<BinaryOp>(op);
      if (!add || add.getKind() != BinaryKind::Add)
        continue;
      for (auto [x, y] : {std::pair{add.getLhs(), add.getRhs()}, std::pair{add.getRhs(), add.getLhs()}}) {
        auto mul = x.getDefiningOp<BinaryOp>();
        auto rem = y.getDefiningOp<BinaryOp>();
        if (!mul || !rem || mul.getKind() != BinaryKind::Mul || rem.getKind() != BinaryKind::Rem)
          continue;
        auto div = mul.getLhs().getDefiningOp<BinaryOp>();
        if (!div || div.getKind() != BinaryKind::Div || !llvm::is_contained(made, div.getOperation()) ||
            !llvm::is_contained(made, rem.getOperation()))
          continue;
        auto spread = [](Value v) -> Value {
          auto bc = v.getDefiningOp<BroadcastOp>();
          return bc && bc.getDims().empty() ? bc.getOperand() : v;
        };
        auto same = [&](Value p, Value q) {
          if (p == q)
            return true;
          auto ip = p.getDefiningOp<IndicesOp>(), iq = q.getDefiningOp<IndicesOp>();
          return ip && iq && ip.getDomain() == iq.getDomain();
        };
        Value n = spread(div.getRhs());
        if (spread(mul.getRhs()) != n || spread(rem.getRhs()) != n || !same(div.getLhs(), rem.getLhs()))
          continue;
        // A fresh kir.indices: the mask reads its own, apart from the reads' block arithmetic.
        OpBuilder b(add);
        Value t = make<IndicesOp>(b, add.getLoc(), add.getType(), merged);
        add.getResult().replaceAllUsesWith(t);
        add.erase();
        break;
      }
    }
  }

  void rewrite() {
    Block &body = par.getBody().front();
    SmallVector<Operation *> old;
    DenseSet<Operation *> before;
    for (Operation &op : body) {
      before.insert(&op);
      if (touches(&op))
        old.push_back(&op);
    }
    makeDomain();
    for (Operation *op : old) {
      OpBuilder b(op);
      rebuild(op, b);
    }
    for (Operation *op : old)
      for (Value r : op->getResults())
        if (axesOf(r).kind == Kind::None)
          r.replaceAllUsesWith(map.lookup(r));
    for (Operation *op : llvm::reverse(old)) {
      op->dropAllUses();
      op->erase();
    }
    // Kernel-level values over an axis that only this body read (the slots' kir.indices) are dead now.
    for (Operation *op : outside) // users before what they read
      if (isOpTriviallyDead(op))
        op->erase();
    memo.clear(); // erased values must not stay keys
    foldPositions();
    // What the fold above left dead (ops this pass made; the author's untouched ops stay).
    for (bool changed = true; changed;) {
      changed = false;
      for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
        if (!before.contains(&op) && isOpTriviallyDead(&op)) {
          op.erase();
          changed = true;
        }
    }
  }
};

/// The (outer, inner) domains of two adjacent axes a reduction or contraction in `body` reduces together.
SmallVector<std::pair<Value, Value>> candidates(Block &body) {
  SmallVector<std::pair<Value, Value>> out;
  DenseMap<Value, SmallVector<Value>> memo;
  auto add = [&](Value in, ArrayRef<int64_t> axes) {
    auto d = domainsOf(in, memo);
    if (!d)
      return;
    for (int64_t a : axes)
      if (a + 1 < (int64_t)d->size() && llvm::is_contained(axes, a + 1) && (*d)[a] != (*d)[a + 1] &&
          !llvm::is_contained(out, std::pair{(*d)[a], (*d)[a + 1]}))
        out.push_back({(*d)[a], (*d)[a + 1]});
  };
  for (Operation &op : body) {
    if (auto red = dyn_cast<ReduceOp>(op))
      add(red.getInputs()[0], red.getAxes());
    else if (auto c = dyn_cast<ContractOp>(op)) {
      add(c.getLhs(), c.getLhsReduce());
      add(c.getRhs(), c.getRhsReduce());
    }
  }
  return out;
}

struct MergeReducedAxes : tessel::kir::impl::KIRMergeReducedAxesBase<MergeReducedAxes> {
  void runOnOperation() override {
    bool remarks = remarksEnabled(getOperation());
    SmallVector<ParallelOp> pars;
    getOperation().walk([&](ParallelOp p) { pars.push_back(p); });
    for (ParallelOp par : pars) {
      Block &body = par.getBody().front();
      DenseSet<std::pair<Value, Value>> refused; // said once, not once per merge in the same body
      for (bool changed = true; changed;) {
        changed = false;
        for (auto [outer, inner] : candidates(body)) {
          if (refused.contains({outer, inner}))
            continue;
          Merger m;
          m.par = par;
          m.outer = outer;
          m.inner = inner;
          Operation *at = outer.getDefiningOp() ? outer.getDefiningOp() : par.getOperation();
          if (!m.legal()) {
            refused.insert({outer, inner});
            if (remarks)
              at->emitRemark() << "kir-merge-reduced-axes: the axes stay two: " << m.why;
            continue;
          }
          m.rewrite();
          if (remarks)
            par.emitRemark() << "kir-merge-reduced-axes: two axes reduced together through an indexed read "
                                "became one axis of their members (t // n, t % n)";
          changed = true;
          break;
        }
      }
    }
  }
};

} // namespace
