//===- FactorReductions.cpp - a scalar factor out of a max/min reduction ---===//
//
// seed 002 §4 (semantics-preserving rewrites). A maximum (or minimum) over
// lanes of a product with one scalar factor c,
//
//   max_j (x_j * c)
//
// equals max_j (x_j) * c exactly when c is positive and finite: rounding to
// nearest is monotone (x <= y gives round(x * c) <= round(y * c), overflow to
// inf included), so the largest rounded product is the product of the largest
// x; NaN lanes give NaN both ways (a NaN-propagating max) or are skipped both
// ways (maxnum); no x * c is an inf * 0. Lanes a select replaces by the
// combine's identity (-inf for max, a masked score) stay the identity both ways
// (-inf * c = -inf), so the rewrite looks through such selects:
//
//   max_j select(m_j, x_j * c, -inf) = max_j select(m_j, x_j, -inf) * c.
//
// For c = 0, +-inf, NaN or c < 0 the equality fails (inf * 0, a reversed
// order). The factor must therefore be decided before the kernel runs, not by
// a branch in it: with a runtime branch LLVM hoists the other side's product
// above it (shared with the other uses) and nothing is gained (measured on
// the H200, session 19). So the pass fires only where c is a
// launch fact (seed 000 §3.1): a constant, decided here, or a float kernel
// scalar `a` times positive constants, decided by a `pgpu.if` on `a` alone,
// which the providers' wrappers evaluate at launch (wrapper::launchFact):
//
//   %m = pgpu.if (2^-32 <= a <= 2^32) { max_j(x_j) * c } else { max_j(x_j * c) }
//
// The window is conservative and sound on both sides of the launch: the host
// compares the caller's double with bounds that are f32 numbers (so the f32
// the kernel receives lies in the window too), and with every partial product
// of the constants in [2^-32, 2^32] each rounded step of c stays a normal f32
// in [2^-65, 2^65]: positive and finite. A scale outside the window (zero,
// negative, inf, NaN, or extreme) takes the unfactored side, the reduction as
// it was.
//
// The product stays for its other uses (attention's scores: exp2(x * c - m),
// which then fuses the scaling into the subtraction, one multiply-add per
// score instead of a multiplication and a subtraction). Per reduced lane the
// taken side saves one multiplication.
//
// Must not fire: a factor that is a fragment (per-lane scale), computed from
// data, or from more than one kernel scalar; a product with numerical
// attributes (approximate, flush-to-zero); a reduction of several inputs; a
// combine other than one max/min; an identity other than the combine's (the
// factored side would scale it); a select whose other side is not that
// identity; a product used by nothing else (one multiplication either way);
// a constant factor that is not positive and finite (remark).
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"

#include <limits>

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUFACTORREDUCTIONS
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

namespace {

/// The window a launch-time scalar factor must lie in (module comment): 2^-32 .. 2^32.
constexpr double kWindowLo = 0x1p-32, kWindowHi = 0x1p32;

/// The combine's kind when it is one max/min of its two arguments (singleBinaryCombine) without
/// numerical attributes.
std::optional<kir::BinaryKind> orderCombine(ReduceOp r) {
  BinaryOp op = singleBinaryCombine(r.getCombine().front());
  if (!op || op.getApproximate() || op.getFlushToZero())
    return std::nullopt;
  kir::BinaryKind k = op.getKind();
  if (k != kir::BinaryKind::Max && k != kir::BinaryKind::Min && k != kir::BinaryKind::MaxNum &&
      k != kir::BinaryKind::MinNum)
    return std::nullopt;
  return k;
}

/// Whether `v` is the float constant `want`, or a splat of it.
bool isConstant(Value v, double want) {
  if (auto splat = v.getDefiningOp<SplatOp>())
    v = splat.getOperand();
  FloatAttr attr;
  return matchPattern(v, m_Constant(&attr)) && attr.getValueAsDouble() == want;
}

/// The reduced input's shape: selects (outermost first) whose other side is the identity, around
/// x * splat(c).
struct Factored {
  SmallVector<SelectOp> selects; // outermost first; each keeps its value side on its true operand
  BinaryOp product;
  Value x, c;
};

std::optional<Factored> factoredInput(ReduceOp r, double identity) {
  Factored f;
  Value v = r.getInputs()[0];
  while (auto sel = v.getDefiningOp<SelectOp>()) {
    if (!isConstant(sel.getFalseValue(), identity))
      return std::nullopt;
    f.selects.push_back(sel);
    v = sel.getTrueValue();
  }
  auto mul = v.getDefiningOp<BinaryOp>();
  if (!mul || mul.getKind() != kir::BinaryKind::Mul || mul.getApproximate() || mul.getFlushToZero())
    return std::nullopt;
  for (unsigned i = 0; i < 2; ++i)
    if (auto splat = mul->getOperand(i).getDefiningOp<SplatOp>();
        splat && isa<FloatType>(splat.getOperand().getType())) {
      f.product = mul, f.x = mul->getOperand(1 - i), f.c = splat.getOperand();
      return f;
    }
  return std::nullopt;
}

/// How a scalar factor is known before the kernel runs: a constant, or one float kernel scalar times
/// constants each partial product of which lies in the window.
struct LaunchFactor {
  std::optional<double> constant; // the factor's value where it is a constant
  BlockArgument scalar;           // else the kernel scalar it scales
};

FailureOr<LaunchFactor> launchFactor(Value c, std::string &why) {
  SmallVector<Value> work{c};
  SmallVector<double> constants;
  LaunchFactor found;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (!isa<KernelOp>(arg.getOwner()->getParentOp()) || !arg.getType().isF32()) {
        why = "its scalar factor is not an f32 kernel scalar times constants (not known at launch)";
        return failure();
      }
      if (found.scalar && found.scalar != arg) {
        why = "its scalar factor multiplies two kernel scalars";
        return failure();
      }
      found.scalar = arg;
      continue;
    }
    if (FloatAttr attr; matchPattern(v, m_Constant(&attr))) {
      constants.push_back(attr.getValueAsDouble());
      continue;
    }
    auto mul = v.getDefiningOp<BinaryOp>();
    if (!mul || mul.getKind() != kir::BinaryKind::Mul || mul.getApproximate() || mul.getFlushToZero() ||
        !mul.getType().isF32()) {
      why = "its scalar factor is computed in the kernel (not a kernel scalar times constants: not known at launch)";
      return failure();
    }
    work.push_back(mul.getRhs());
    work.push_back(mul.getLhs());
  }
  // One constant is its own value (the caller checks its sign and finiteness). Otherwise every partial
  // product of the constants, in whatever order the tree rounds them, lies between the product of those
  // below 1 and the product of those above: both in the window, every rounded step of c is a positive
  // normal f32 (in [2^-64, 2^64] with the scalar's window).
  if (!found.scalar && constants.size() == 1) {
    found.constant = constants.front();
    return found;
  }
  double small = 1.0, large = 1.0, running = 1.0;
  for (double k : constants) {
    if (!(k > 0))
      small = 0; // also NaN: outside the window
    else
      (k < 1 ? small : large) *= k;
    running *= k;
  }
  if (!(small >= kWindowLo && large <= kWindowHi)) {
    why = "its scalar factor's constants are not in [2^-32, 2^32]";
    return failure();
  }
  if (!found.scalar)
    found.constant = running;
  return found;
}

/// The selects' chain again around `inner`, built at `b` (outermost last created).
Value rebuildSelects(OpBuilder &b, ArrayRef<SelectOp> selects, Value inner) {
  for (SelectOp sel : llvm::reverse(selects)) {
    auto copy = cast<SelectOp>(b.clone(*sel.getOperation()));
    copy->setOperand(1, inner);
    inner = copy.getResult();
  }
  return inner;
}

struct FactorReductions : public tessel::pgpu::impl::PGPUFactorReductionsBase<FactorReductions> {
  void runOnOperation() override {
    SmallVector<ReduceOp> candidates;
    getOperation().walk([&](ReduceOp r) { candidates.push_back(r); });
    for (ReduceOp r : candidates) {
      bool remarks = remarksEnabled(r);
      if (r.getInputs().size() != 1 || r.getResults().size() != 1)
        continue;
      std::optional<kir::BinaryKind> kind = orderCombine(r);
      if (!kind)
        continue;
      bool largest = *kind == kir::BinaryKind::Max || *kind == kir::BinaryKind::MaxNum;
      const double inf = std::numeric_limits<double>::infinity(), identity = largest ? -inf : inf;
      std::optional<Factored> input = factoredInput(r, identity);
      if (!input)
        continue; // not a max/min of a scaled fragment: nothing to say
      const char *what = largest ? "max" : "min";
      auto reject = [&](StringRef why) {
        if (remarks)
          emitRemark(r.getLoc()) << "pgpu-factor-reductions: the scalar factor stays inside this " << what << ": "
                                 << why;
      };
      if (!isConstant(r.getIdentities()[0], identity)) {
        reject("its identity is not the combine's (the factored side would scale it)");
        continue;
      }
      Value mul = input->product.getResult();
      // The product's other uses: besides the selects' chain (or the reduction) that reaches this one.
      Operation *productUser = input->selects.empty() ? r.getOperation() : input->selects.back().getOperation();
      if (llvm::all_of(mul.getUsers(), [&](Operation *u) { return u == productUser; })) {
        reject("the product has no other use (one multiplication a lane either way)");
        continue;
      }
      std::string why;
      FailureOr<LaunchFactor> factor = launchFactor(input->c, why);
      if (failed(factor)) {
        reject(why);
        continue;
      }
      Location loc = r.getLoc();
      OpBuilder b(r);
      // The factored form at `at`: the reduction of the unscaled lanes (through the same selects), times c.
      auto factored = [&](OpBuilder &at) {
        Value lanes = rebuildSelects(at, input->selects, input->x);
        auto raw = cast<ReduceOp>(at.clone(*r.getOperation()));
        raw->setOperand(0, lanes);
        Value c = input->c;
        if (isa<FragmentType>(r.getResult(0).getType()))
          c = SplatOp::create(at, loc, r.getResult(0).getType(), input->c);
        return BinaryOp::create(at, loc, kir::BinaryKind::Mul, raw.getResult(0), c, false, false).getResult();
      };
      auto eraseDeadChain = [&] {
        for (SelectOp sel : input->selects) // outermost first: each becomes dead once its user is gone
          if (sel->use_empty())
            sel.erase();
      };
      if (factor->constant) {
        double c = *factor->constant;
        if (!(c > 0 && c < inf)) {
          reject("its constant factor is not positive and finite");
          continue;
        }
        r.getResult(0).replaceAllUsesWith(factored(b));
        r.erase();
        eraseDeadChain();
        if (remarks)
          emitRemark(loc) << "pgpu-factor-reductions: the " << what << " of a product with a positive finite constant is the "
                          << what << " of the other factor times it (rounding is monotone: exact)";
        continue;
      }
      // The condition on the kernel scalar alone: a launch fact the wrappers decide.
      Value a = factor->scalar;
      Type f32 = a.getType();
      Value lo = arith::ConstantOp::create(b, loc, FloatAttr::get(f32, kWindowLo));
      Value hi = arith::ConstantOp::create(b, loc, FloatAttr::get(f32, kWindowHi));
      Value above = CmpOp::create(b, loc, kir::CmpPredicate::GE, a, lo);
      Value below = CmpOp::create(b, loc, kir::CmpPredicate::LE, a, hi);
      Value ok = BinaryOp::create(b, loc, kir::BinaryKind::And, above, below, false, false);
      Type resultType = r.getResult(0).getType();
      auto choice = IfOp::create(b, loc, TypeRange{resultType}, ok);
      {
        OpBuilder::InsertionGuard guard(b);
        b.createBlock(&choice.getThenRegion());
        YieldOp::create(b, loc, factored(b));
        b.createBlock(&choice.getElseRegion());
        // The product again inside the branch: outside it, the product's only uses are the others (a
        // subtraction then fuses it into a multiply-add), not this reduction.
        Value again = rebuildSelects(b, input->selects, b.clone(*mul.getDefiningOp())->getResult(0));
        auto kept = cast<ReduceOp>(b.clone(*r.getOperation()));
        kept->setOperand(0, again);
        YieldOp::create(b, loc, kept.getResult(0));
      }
      r.getResult(0).replaceAllUsesWith(choice.getResult(0));
      r.erase();
      eraseDeadChain();
      // The product after the branch, beside its other uses where they all follow it (one basic block
      // with the subtraction that fuses it: instruction selection fuses within a block).
      Operation *productOp = mul.getDefiningOp();
      bool after = productOp->getBlock() == choice->getBlock() && llvm::all_of(mul.getUsers(), [&](Operation *user) {
                     Operation *at = choice->getBlock()->findAncestorOpInBlock(*user);
                     return at && choice->isBeforeInBlock(at);
                   });
      if (after)
        productOp->moveAfter(choice);
      if (remarks)
        emitRemark(loc) << "pgpu-factor-reductions: the " << what << " of a product with a scalar factor c is the "
                        << what << " of the other factor times c where the kernel scalar it scales lies in "
                        << "[2^-32, 2^32] (c positive and finite; rounding is monotone: exact), decided at launch; "
                           "the product's other uses keep it";
    }
  }
};

} // namespace
