//===- ExpBase2.cpp - normalized exponentials in base 2 --------------------===//
//
// seed 002 §4 (semantics-preserving rewrites under the compilation call's
// explicit numerical permissions) and §1 (`numerics = relaxed_normalization`).
//
// A normalized summary exponentiates differences of values of one "reference
// domain": scores, their running maxima, the carried maximum,
//
//   exp(a - b)  =  exp2(a * L - b * L),   L = log2(e).
//
// Scaling every value of the domain by L changes nothing between the points
// where the domain is entered and where it is exponentiated: maxima, minima,
// selects, broadcasts, max/min reductions and loop carries commute with a
// positive scaling, and the constants they meet are scaled with them (0 and
// +-inf are fixed points). The domain is entered where a value is multiplied
// by a scalar factor (scores = q.k * scale): the factor becomes scale * L, one
// scalar multiplication, and each exp of a difference becomes exp2 of it
// (the hardware's exponential). Per element that removes the multiplication by
// L the provider would otherwise put in front of every exponential, and lets
// the score scaling and the subtraction fuse into one multiply-add. The
// rounding differs (the domain is rounded once more at its entry), which the
// relaxed numerics permit; under `source` numerics the pass does nothing and
// says so in a remark.
//
// Sums and differences are linear: L * (a + b) = L * a + L * b, so an addition
// or subtraction of two values that are scaled with the domain joins it (scores
// = q.k * scale + bias). A value that enters the domain any other way (a loaded
// bias, unscaled scores, a kernel scalar) is a "leaf": it is multiplied by L
// once where it is defined, for its uses inside the domain only. That costs one
// multiplication per element where the exponentials save at least one each
// (exp lowers to a multiplication by L and the hardware's ex2 with its
// denormal handling; exp2 to ex2 alone), and next to a sum the multiplication
// fuses into a multiply-add.
//
// A leaf that is a fragment costs that multiplication on every element, and
// a sum with it (scores = q.k * scale + bias) then costs a multiplication, a
// multiply-add and the subtraction of the maximum per score. Such a domain is
// scaled at its exponentials instead (the "difference form"): its values stay
// unscaled (scale * q.k + bias is one multiply-add, maxima and stores are
// unchanged) and each exponentiated difference exp(a - b) becomes
// exp2(a * L - b * L), where an operand that is a broadcast is scaled before
// it (once per row: b = broadcast(m) gives broadcast(m * L)), so a * L - b'
// is one multiply-add per score; a difference of two unbroadcast values is
// multiplied by L after it. Per score that is two multiply-adds where the
// leaf form spends three operations (the exponential's subtraction absorbs
// the multiplication by L). On the H200 (session 11, hand edits)
// the bias kernel ran 2.934 -> 2.868 ms at 128 query lanes, 4.475 -> 4.238 ms
// at 64. A domain without fragment leaves keeps the scaled form (the factor
// scaled once, the subtraction of the maximum fused into its multiplication).
// So does a domain whose fragment leaves all lie in fewer loops than its
// deepest exponential: such a leaf is scaled once per row where the
// exponentials run once per tile (an attention's logsumexp m + log(den) after
// the key loop: the row's log(den) is the leaf, the sum is stored unscaled).
//
// Applicability (checked; else nothing changes and a remark says why):
//   - the domain is closed: every use of one of its values is a domain op
//     (max/min, sum or difference, select value, broadcast, splat, max/min
//     reduction, carry), a difference whose only uses are exponentials, or
//     the value a store writes (an exit: the value is multiplied by ln 2
//     = 1 / L before the store, so memory holds it unscaled: a fold's
//     partial summary handed to another program, pgpu-split-folds); a value
//     that leaves the domain any other way (multiplied, compared) rejects
//     the rewrite;
//   - every entry is a multiplication by a scalar factor (a splat, or a kernel
//     scalar), a float constant, a carry whose initial value is in the domain,
//     or an f32 leaf.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SetVector.h"

#include <cmath>

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUEXPBASE2
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

namespace {

constexpr double kLog2E = 1.4426950408889634;

bool isF32(Type t) {
  if (auto f = dyn_cast<FragmentType>(t))
    t = f.getElementType();
  return t.isF32();
}

bool isMaxMin(kir::BinaryKind k) {
  return k == kir::BinaryKind::Max || k == kir::BinaryKind::Min || k == kir::BinaryKind::MaxNum ||
         k == kir::BinaryKind::MinNum;
}

/// An exact sum or difference (commutes with a scaling of both operands).
bool isLinear(BinaryOp b) {
  return (b.getKind() == kir::BinaryKind::Add || b.getKind() == kir::BinaryKind::Sub) && !b.getApproximate() &&
         !b.getFlushToZero();
}

/// exp(sub(a, b)) of f32 with no numerical attributes, whose difference feeds only exponentials.
bool isRoot(UnaryOp e) {
  if (e.getKind() != kir::UnaryKind::Exp || e.getApproximate() || e.getFlushToZero() || !isF32(e.getType()))
    return false;
  auto d = e.getOperand().getDefiningOp<BinaryOp>();
  return d && d.getKind() == kir::BinaryKind::Sub && !d.getApproximate() && !d.getFlushToZero() &&
         llvm::all_of(d->getUsers(), [](Operation *u) {
           auto x = dyn_cast<UnaryOp>(u);
           return x && x.getKind() == kir::UnaryKind::Exp && !x.getApproximate() && !x.getFlushToZero();
         });
}

/// The scalar factor operand of a domain entry `mul`, given the operand in the domain's direction.
std::optional<unsigned> factorOperand(BinaryOp mul) {
  if (mul.getKind() != kir::BinaryKind::Mul || mul.getApproximate() || mul.getFlushToZero())
    return std::nullopt;
  for (unsigned i = 0; i < 2; ++i) {
    Value f = mul->getOperand(i);
    if (f.getDefiningOp<SplatOp>())
      return i;
    // A kernel scalar (an argument of the kernel body, not a loop carry) times a scalar.
    if (auto arg = dyn_cast<BlockArgument>(f))
      if (!isa<FragmentType>(f.getType()) && !isa<ForOp>(arg.getOwner()->getParentOp()) &&
          !isa<FragmentType>(mul.getType()))
        return i;
  }
  return std::nullopt;
}

/// Constant float (or splat of one) value, if `v` is one.
std::optional<double> constantFloat(Value v) {
  if (auto s = v.getDefiningOp<SplatOp>())
    v = s.getOperand();
  FloatAttr attr;
  if (matchPattern(v, m_Constant(&attr)))
    return attr.getValueAsDouble();
  return std::nullopt;
}

/// How many loops (`pgpu.for`, `pgpu.foreach`) enclose the definition of `v`.
unsigned loopDepth(Value v) {
  Operation *at = isa<BlockArgument>(v) ? cast<BlockArgument>(v).getOwner()->getParentOp() : v.getDefiningOp();
  unsigned n = isa<ForOp, ForeachOp>(at) && isa<BlockArgument>(v) ? 1 : 0;
  for (Operation *p = at->getParentOp(); p; p = p->getParentOp())
    n += isa<ForOp, ForeachOp>(p) ? 1 : 0;
  return n;
}

/// A root's difference: a subtraction whose only uses are exponentials the pass rewrites.
bool isRootDifference(Operation *op) {
  return isa<BinaryOp>(op) && cast<BinaryOp>(op).getKind() == kir::BinaryKind::Sub && !op->use_empty() &&
         llvm::all_of(op->getUsers(), [](Operation *e) { return isa<UnaryOp>(e) && isRoot(cast<UnaryOp>(e)); });
}

struct Domain {
  llvm::SetVector<Value> values;
  llvm::SetVector<Operation *> entries; // multiplications by a factor
  llvm::SetVector<Value> leaves;        // f32 values scaled by an inserted multiplication (not domain values)
  SmallVector<OpOperand *> exits;       // stores of domain values: unscaled before the store
  std::string why;                      // why it is not closed, if it is not

  bool fail(const std::string &w) {
    if (why.empty())
      why = w;
    return false;
  }

  /// Adds `v` and what it is computed from; false if an entry is not one the rewrite can scale.
  bool grow(Value start) {
    SmallVector<Value> work{start};
    while (!work.empty()) {
      Value v = work.pop_back_val();
      if (!values.insert(v))
        continue;
      if (!isF32(v.getType()))
        return fail("a domain value is not f32");
      if (constantFloat(v))
        continue; // scaled at its use
      if (auto arg = dyn_cast<BlockArgument>(v)) {
        auto loop = dyn_cast<ForOp>(arg.getOwner()->getParentOp());
        if (!loop || arg.getArgNumber() == 0) {
          makeLeaf(v); // a kernel scalar or another region's argument
          continue;
        }
        unsigned i = arg.getArgNumber() - 1;
        work.push_back(loop.getInits()[i]);
        work.push_back(loop.getBody().front().getTerminator()->getOperand(i));
        work.push_back(loop.getResult(i));
        continue;
      }
      Operation *def = v.getDefiningOp();
      if (auto loop = dyn_cast<ForOp>(def)) {
        unsigned i = cast<OpResult>(v).getResultNumber();
        work.push_back(loop.getBody().front().getArgument(i + 1));
        continue;
      }
      if (auto b = dyn_cast<BroadcastOp>(def)) {
        work.push_back(b.getOperand());
        continue;
      }
      if (auto s = dyn_cast<SplatOp>(def)) {
        work.push_back(s.getOperand());
        continue;
      }
      if (auto s = dyn_cast<SelectOp>(def)) {
        work.push_back(s.getTrueValue());
        work.push_back(s.getFalseValue());
        continue;
      }
      if (auto r = dyn_cast<ReduceOp>(def)) {
        BinaryOp m = r.getInputs().size() == 1 ? singleBinaryCombine(r.getCombine().front()) : BinaryOp();
        if (!m || !isMaxMin(m.getKind()) || !constantFloat(r.getIdentities()[0]))
          return fail("a reduction in the domain is not a max/min reduction with a constant identity");
        work.push_back(r.getInputs()[0]);
        continue;
      }
      if (auto bin = dyn_cast<BinaryOp>(def)) {
        if (isMaxMin(bin.getKind())) {
          work.push_back(bin.getLhs());
          work.push_back(bin.getRhs());
          continue;
        }
        if (isLinear(bin)) {
          work.push_back(bin.getLhs());
          work.push_back(bin.getRhs());
          continue;
        }
        if (factorOperand(bin)) {
          entries.insert(def);
          continue;
        }
      }
      makeLeaf(v);
    }
    return true;
  }

  bool inDomain(Value v) const { return values.contains(v) || leaves.contains(v); }

  /// `v` enters the domain as it is: it leaves the domain's values (its other uses stay unscaled).
  void makeLeaf(Value v) {
    values.remove(v);
    leaves.insert(v);
  }

  /// Grows the domain forward through the ops that carry a domain value to their result unchanged in kind
  /// (max/min, select values, broadcasts, splats, max/min reductions, initial carries); true if it grew.
  bool growForward() {
    bool grew = false;
    for (size_t i = 0; i < values.size(); ++i) {
      Value v = values[i];
      if (constantFloat(v))
        continue;
      for (OpOperand &use : v.getUses()) {
        Operation *u = use.getOwner();
        Value next;
        if (auto bin = dyn_cast<BinaryOp>(u)) {
          if (isMaxMin(bin.getKind()) || (isLinear(bin) && !isRootDifference(bin)))
            next = bin.getResult();
        } else if (auto sel = dyn_cast<SelectOp>(u)) {
          if (use.getOperandNumber() != 0)
            next = sel.getResult();
        } else if (isa<BroadcastOp, SplatOp>(u)) {
          next = u->getResult(0);
        } else if (auto r = dyn_cast<ReduceOp>(u)) {
          next = r.getResult(0);
        } else if (auto loop = dyn_cast<ForOp>(u)) {
          if (use.getOperandNumber() >= 3)
            next = loop.getBody().front().getArgument(use.getOperandNumber() - 2);
        }
        if (next && !values.contains(next)) {
          if (!grow(next))
            return false;
          grew = true;
        }
      }
    }
    return grew;
  }

  /// Every use of a domain value stays in the domain, is an exponentiated difference or is stored.
  bool closed() {
    exits.clear();
    for (Value v : values) {
      if (constantFloat(v))
        continue; // constants are scaled per use, wherever else they are used
      for (OpOperand &use : v.getUses()) {
        Operation *u = use.getOwner();
        if (auto bin = dyn_cast<BinaryOp>(u)) {
          if ((isMaxMin(bin.getKind()) || isLinear(bin)) && values.contains(bin.getResult()))
            continue;
          if (bin.getKind() == kir::BinaryKind::Sub && inDomain(bin.getLhs()) && inDomain(bin.getRhs()) &&
              llvm::all_of(bin->getUsers(), [](Operation *e) {
                return isa<UnaryOp>(e) && isRoot(cast<UnaryOp>(e));
              }))
            continue;
          return fail("a domain value is used by a '" + std::string(kir::stringifyBinaryKind(bin.getKind())) +
                      "' outside the domain");
        }
        if (auto s = dyn_cast<SelectOp>(u)) {
          if (use.getOperandNumber() != 0 && values.contains(s.getResult()))
            continue;
          return fail("a domain value selects");
        }
        if (isa<BroadcastOp, SplatOp, ReduceOp>(u) && values.contains(u->getResult(0)))
          continue;
        if (isa<YieldOp>(u) && isa<ForOp>(u->getParentOp()))
          continue; // the carry's block argument and result are in the domain with it
        if ((isa<StoreOp>(u) && cast<StoreOp>(u).getValue() == v) ||
            (isa<BufferStoreOp>(u) && cast<BufferStoreOp>(u).getValue() == v)) {
          exits.push_back(&use); // stored unscaled
          continue;
        }
        if (auto loop = dyn_cast<ForOp>(u))
          if (use.getOperandNumber() >= 3 && values.contains(loop.getBody().front().getArgument(use.getOperandNumber() - 2)))
            continue; // an initial carry of a carry in the domain
        return fail("a domain value is used by '" + u->getName().getStringRef().str() + "'");
      }
    }
    return true;
  }
};

struct ExpBase2 : public tessel::pgpu::impl::PGPUExpBase2Base<ExpBase2> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool permitted = relaxedNormalization(module);
    bool remarks = remarksEnabled(module);

    SmallVector<UnaryOp> roots;
    module.walk([&](UnaryOp e) {
      if (isRoot(e))
        roots.push_back(e);
    });
    llvm::SmallPtrSet<Operation *, 16> done;
    for (UnaryOp root : roots) {
      if (done.contains(root))
        continue;
      if (!permitted) {
        if (remarks)
          emitRemark(root.getLoc()) << "pgpu-exp-base2: exp stays base e: needs numerics = relaxed_normalization "
                                       "(seed 002 §1)";
        continue;
      }
      Domain dom;
      auto d = root.getOperand().getDefiningOp<BinaryOp>();
      bool ok = dom.grow(d.getLhs()) && dom.grow(d.getRhs());
      // Every exponentiated difference of domain values is rewritten with it.
      llvm::SetVector<Operation *> members;
      for (bool grew = true; ok && grew;) {
        grew = dom.growForward();
        ok = dom.why.empty();
        for (UnaryOp other : roots) {
          auto od = other.getOperand().getDefiningOp<BinaryOp>();
          if (members.contains(other) ||
              !(dom.values.contains(od.getLhs()) || dom.values.contains(od.getRhs())))
            continue;
          ok = ok && dom.grow(od.getLhs()) && dom.grow(od.getRhs());
          members.insert(other);
          grew = true;
        }
      }
      SmallVector<UnaryOp> group;
      for (Operation *op : members)
        group.push_back(cast<UnaryOp>(op));
      ok = ok && dom.closed();
      if (!ok || (dom.entries.empty() && dom.leaves.empty())) {
        if (remarks)
          emitRemark(root.getLoc()) << "pgpu-exp-base2: exp stays base e: "
                                    << (ok ? std::string("nothing enters its domain") : dom.why);
        done.insert(root);
        for (Operation *op : members)
          done.insert(op);
        continue;
      }
      // A fragment leaf costs a multiplication per element where it runs as often as the exponentials;
      // one outside a loop that holds an exponential is scaled once per row, not per tile.
      unsigned expDepth = 0;
      for (UnaryOp e : group)
        expDepth = std::max(expDepth, loopDepth(e.getResult()));
      bool differenceForm = llvm::any_of(dom.leaves, [&](Value l) {
        return isa<FragmentType>(l.getType()) && loopDepth(l) >= expDepth;
      });
      if (differenceForm)
        rewriteDifferences(group);
      else
        rewrite(dom, group);
      for (UnaryOp e : group)
        done.insert(e);
      if (remarks && differenceForm)
        emitRemark(root.getLoc()) << "pgpu-exp-base2: " << group.size() << " exponential(s) of a " << dom.values.size()
                                  << "-value reference domain in base 2; log2(e) joins each exponentiated difference "
                                     "(a fragment leaf would cost a multiplication per element; "
                                  << dom.leaves.size() << " leaf value(s) and the domain stay unscaled)";
      else if (remarks)
        emitRemark(root.getLoc()) << "pgpu-exp-base2: " << group.size() << " exponential(s) of a " << dom.values.size()
                                  << "-value reference domain in base 2; the domain scaled by log2(e) at "
                                  << dom.entries.size() << " scalar factor(s) and " << dom.leaves.size()
                                  << " leaf value(s)";
    }
  }

  /// `v * L` before `at`: a broadcast is scaled at its operand (once per broadcast element).
  static Value timesLog2E(OpBuilder &b, Location loc, Value v) {
    if (auto bc = v.getDefiningOp<BroadcastOp>()) {
      Value scaled = timesLog2E(b, loc, bc.getOperand());
      return BroadcastOp::create(b, bc.getLoc(), bc.getType(), scaled, bc.getDimsAttr());
    }
    Type f32 = b.getF32Type();
    Value l = arith::ConstantOp::create(b, loc, f32, b.getFloatAttr(f32, kLog2E));
    if (isa<FragmentType>(v.getType()))
      l = SplatOp::create(b, loc, v.getType(), l);
    return BinaryOp::create(b, loc, v.getType(), kir::BinaryKind::Mul, v, l);
  }

  /// The difference form: exp(a - b) = exp2(a * L - b * L) with a broadcast operand scaled before it
  /// (the other multiplication fuses with the subtraction), or exp2((a - b) * L) when neither is one.
  void rewriteDifferences(ArrayRef<UnaryOp> group) {
    llvm::SmallPtrSet<Operation *, 8> seen;
    for (UnaryOp e : group) {
      auto d = e.getOperand().getDefiningOp<BinaryOp>();
      if (!seen.insert(d).second)
        continue;
      OpBuilder b(d);
      Location loc = d.getLoc();
      Value lhs = d.getLhs(), rhs = d.getRhs();
      if (lhs.getDefiningOp<BroadcastOp>() || rhs.getDefiningOp<BroadcastOp>()) {
        d->setOperand(0, timesLog2E(b, loc, lhs));
        d->setOperand(1, timesLog2E(b, loc, rhs));
        continue;
      }
      b.setInsertionPointAfter(d);
      Value scaled = timesLog2E(b, loc, d.getResult());
      d.getResult().replaceAllUsesExcept(scaled, scaled.getDefiningOp());
    }
    for (UnaryOp e : group)
      e.setKind(kir::UnaryKind::Exp2);
  }

  void rewrite(Domain &dom, ArrayRef<UnaryOp> group) {
    // Entries: the factor f becomes f * L.
    for (Operation *op : dom.entries) {
      auto mul = cast<BinaryOp>(op);
      unsigned i = *factorOperand(mul);
      Value f = mul->getOperand(i);
      OpBuilder b(mul);
      Value scalar = f;
      if (auto s = f.getDefiningOp<SplatOp>())
        scalar = s.getOperand();
      Value l = arith::ConstantOp::create(b, mul.getLoc(), scalar.getType(), b.getFloatAttr(scalar.getType(), kLog2E));
      Value scaled = BinaryOp::create(b, mul.getLoc(), scalar.getType(), kir::BinaryKind::Mul, scalar, l);
      if (auto s = f.getDefiningOp<SplatOp>())
        scaled = SplatOp::create(b, s.getLoc(), s.getType(), scaled);
      mul->setOperand(i, scaled);
    }
    // Constants met inside the domain (other than 0 and +-inf) are scaled at their uses.
    for (Value v : dom.values) {
      std::optional<double> c = constantFloat(v);
      if (!c || *c == 0.0 || std::isinf(*c) || std::isnan(*c))
        continue;
      for (OpOperand &use : llvm::make_early_inc_range(v.getUses())) {
        Operation *u = use.getOwner();
        bool domainUse = u->getNumResults() == 1 && dom.values.contains(u->getResult(0));
        if (auto r = dyn_cast<ReduceOp>(u))
          domainUse = dom.values.contains(r.getResult(0));
        if (!domainUse)
          continue;
        OpBuilder b(u);
        Value scaled;
        Type elem = v.getType();
        if (auto s = v.getDefiningOp<SplatOp>()) {
          elem = s.getOperand().getType();
          Value k = arith::ConstantOp::create(b, s.getLoc(), elem, b.getFloatAttr(elem, *c * kLog2E));
          scaled = SplatOp::create(b, s.getLoc(), s.getType(), k);
        } else {
          scaled = arith::ConstantOp::create(b, u->getLoc(), elem, b.getFloatAttr(elem, *c * kLog2E));
        }
        use.set(scaled);
      }
    }
    // Leaves: one multiplication by L where the leaf is defined, for its uses inside the domain.
    llvm::SmallPtrSet<Operation *, 8> differences;
    for (UnaryOp e : group)
      differences.insert(e.getOperand().getDefiningOp());
    for (Value leaf : dom.leaves) {
      OpBuilder b(leaf.getContext());
      b.setInsertionPointAfterValue(leaf);
      Location loc = leaf.getLoc();
      Type f32 = b.getF32Type();
      Value l = arith::ConstantOp::create(b, loc, f32, b.getFloatAttr(f32, kLog2E));
      if (isa<FragmentType>(leaf.getType()))
        l = SplatOp::create(b, loc, leaf.getType(), l);
      Value scaled = BinaryOp::create(b, loc, leaf.getType(), kir::BinaryKind::Mul, leaf, l);
      leaf.replaceUsesWithIf(scaled, [&](OpOperand &use) { return flowsIntoDomain(dom, differences, use); });
    }
    // Exits: a stored domain value is multiplied by 1 / L first (memory holds it unscaled).
    for (OpOperand *use : dom.exits) {
      Value v = use->get();
      OpBuilder b(use->getOwner());
      Location loc = use->getOwner()->getLoc();
      Type f32 = b.getF32Type();
      Value l = arith::ConstantOp::create(b, loc, f32, b.getFloatAttr(f32, 1.0 / kLog2E));
      if (isa<FragmentType>(v.getType()))
        l = SplatOp::create(b, loc, v.getType(), l);
      use->set(BinaryOp::create(b, loc, v.getType(), kir::BinaryKind::Mul, v, l));
    }
    for (UnaryOp e : group)
      e.setKind(kir::UnaryKind::Exp2);
  }

  /// Whether `use` carries its value into a domain value (or one of the group's differences).
  static bool flowsIntoDomain(Domain &dom, const llvm::SmallPtrSetImpl<Operation *> &differences, OpOperand &use) {
    Operation *u = use.getOwner();
    if (differences.contains(u))
      return true;
    if (auto loop = dyn_cast<ForOp>(u))
      return use.getOperandNumber() >= 3 &&
             dom.values.contains(loop.getBody().front().getArgument(use.getOperandNumber() - 2));
    if (isa<YieldOp>(u))
      if (auto loop = dyn_cast<ForOp>(u->getParentOp()))
        return dom.values.contains(loop.getResult(use.getOperandNumber()));
    if (auto s = dyn_cast<SelectOp>(u))
      return use.getOperandNumber() != 0 && dom.values.contains(s.getResult());
    if (dom.entries.contains(u))
      return false; // an entry's factor is scaled as a factor, its other operand stays outside
    return u->getNumResults() == 1 && dom.values.contains(u->getResult(0));
  }
};
} // namespace
