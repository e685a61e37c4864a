//===- ReciprocalDivisors.cpp - one division per broadcast divisor --------===//
//
// seed 002 §4 (implementations permitted by the call's explicit numerical
// permissions) under module numerics `relaxed_normalization` (seed 002 §1). A
// division whose divisor is broadcast over lanes,
//
//   x / broadcast(d)        (a [BLOCK_S, BLOCK_D] tile by its rows' mass)
//   x / splat(s)            (a block by one scalar sum)
//
// divides each divisor value once per broadcast lane: the same IEEE division
// (a reciprocal, its refinement and a range check each) for every lane of a
// row. The pass computes the divisor's reciprocal once, where the divisor is
// defined, and multiplies:
//
//   r = 1 / d               (one division per element of d)
//   x * broadcast(r)
//
// This is the normalization step of a normalized summary (attention's
// acc / den, a softmax's e / sum), which relaxed_normalization relaxes: the
// result is rounded twice (the reciprocal, then the product: within 1.5 ulp
// of the quotient instead of 0.5) and it differs at the f32 range's ends: for
// |d| > 2^126 the reciprocal is subnormal (fewer bits), for |d| < 2^-126 it
// may overflow to inf where x / d is finite. Zeros, infinities and NaNs give
// the quotient's special values (x * inf for x / 0, 0 * inf = NaN for 0 / 0,
// x * 0 for x / inf). Measured on the H200 (session 23): the epilogue of the generated Gluon
// attention divided 64 values a thread; one division a row instead ran the
// grouped-query causal case 9% faster.
//
// Must not fire: numerics `source` (remark at the division); a divisor that
// is not a splat or a broadcast adding axes (one division per lane either
// way); a division with numerical attributes (approximate, flush-to-zero:
// already the provider's fast form); an element type other than f32; a
// scalar division.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPURECIPROCALDIVISORS
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

namespace {

/// The divisor's value before its broadcast when it is repeated over lanes: a splat's scalar or the
/// operand of a broadcast that adds axes; else null.
Value repeatedDivisor(Value divisor) {
  if (auto s = divisor.getDefiningOp<SplatOp>())
    return s.getOperand();
  if (auto bc = divisor.getDefiningOp<BroadcastOp>()) {
    // An added axis of more than one lane (a static extent 1 repeats nothing).
    auto to = cast<FragmentType>(bc.getType());
    ArrayRef<int64_t> kept = bc.getDims();
    for (unsigned axis = 0; axis < to.getRank(); ++axis) {
      auto size = dyn_cast<IntegerAttr>(to.getExtents()[axis]);
      if (!llvm::is_contained(kept, int64_t(axis)) && !(size && size.getInt() == 1))
        return bc.getOperand();
    }
  }
  return {};
}

struct ReciprocalDivisors : public tessel::pgpu::impl::PGPUReciprocalDivisorsBase<ReciprocalDivisors> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool permitted = relaxedNormalization(module);
    bool remarks = remarksEnabled(module);

    SmallVector<BinaryOp> divisions;
    module.walk([&](BinaryOp op) {
      if (op.getKind() == kir::BinaryKind::Div && isa<FragmentType>(op.getType()) &&
          elementTypeOf(op.getType()).isF32() && !op.getApproximate() && !op.getFlushToZero() &&
          repeatedDivisor(op.getRhs()))
        divisions.push_back(op);
    });
    // One reciprocal per divisor value and program space, shared by every division by its repetitions.
    DenseMap<std::pair<Value, Operation *>, Value> reciprocals;
    OpBuilder b(module.getContext());
    for (BinaryOp div : divisions) {
      if (!permitted) {
        if (remarks)
          emitRemark(div.getLoc()) << "pgpu-reciprocal-divisors: a division by a broadcast divisor stays one division "
                                      "per lane: needs numerics = relaxed_normalization (seed 002 §1)";
        continue;
      }
      Value d = repeatedDivisor(div.getRhs());
      auto space = div->getParentOfType<ProgramSpaceOp>();
      Value &r = reciprocals[{d, space}];
      if (!r) {
        // After the divisor's definition; a kernel scalar's at the program body's start (only launch
        // arithmetic lives outside it, seed 000 invariant 2).
        b.setInsertionPointAfterValue(d);
        if (space && !space->isAncestor(b.getInsertionBlock()->getParentOp()))
          b.setInsertionPointToStart(&space.getBody().front());
        Location loc = d.getLoc();
        Type f32 = elementTypeOf(d.getType());
        Value one = arith::ConstantOp::create(b, loc, FloatAttr::get(f32, 1.0));
        if (isa<FragmentType>(d.getType()))
          one = SplatOp::create(b, loc, d.getType(), one);
        r = BinaryOp::create(b, loc, d.getType(), kir::BinaryKind::Div, one, d);
      }
      // The divisor's own repetition (splat or broadcast, its operand the repeated value) of r.
      Operation *divisor = div.getRhs().getDefiningOp();
      b.setInsertionPoint(div);
      Operation *repeated = b.clone(*divisor);
      repeated->setOperand(0, r);
      Value product = BinaryOp::create(b, div.getLoc(), div.getType(), kir::BinaryKind::Mul, div.getLhs(),
                                       repeated->getResult(0));
      div.getResult().replaceAllUsesWith(product);
      div.erase();
      if (divisor->use_empty())
        divisor->erase();
      if (remarks)
        emitRemark(product.getLoc()) << "pgpu-reciprocal-divisors: a division by a broadcast divisor is a product with "
                                        "its reciprocal, one division per divisor element (relaxed_normalization: "
                                        "within 1.5 ulp)";
    }
  }
};

} // namespace
