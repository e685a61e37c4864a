//===- ContractProducts.cpp - sums of products become contractions ---------===//
//
// `T.sum(q * k, axis=1)` with q over (dims) spread over (toks, dims) and k over
// (toks, dims) is the contraction k . q written element by element: one
// algorithm, two spellings, and construction realizes only the contraction on
// tensor cores and in the blocked-fold path (issue 41: canonical forms, not
// spellings; seed 002 §7: decided from facts, never from names). This pass
// rewrites a float sum over axes R of a product of two tensors into a
// kir.contract when every summed axis belongs to both factors and at least one
// kept axis belongs to one factor only (an outer-product axis); a product of
// two full tensors summed over one axis (a row's sum of squares, a batched dot)
// stays a reduction, which the row paths realize. It runs before
// kir-online-folds (which summarizes contractions over a row) and before
// kir-annotate-origins: KIR is immutable once origins are assigned (seed 002 §2.1).
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/KIR/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"

namespace tessel::kir {
#define GEN_PASS_DEF_KIRCONTRACTPRODUCTS
#include "tessel/Dialect/KIR/Transforms/Passes.h.inc"
} // namespace tessel::kir

using namespace mlir;
using namespace tessel::kir;

namespace {

/// A factor of the product: the tensor it spreads (itself when it is not a broadcast) and the
/// product axis each of that tensor's axes becomes.
struct Factor {
  Value source;
  SmallVector<int64_t> axes;
};

Factor factorOf(Value x) {
  if (auto bc = x.getDefiningOp<BroadcastOp>(); bc && isa<RankedTensorType>(bc.getOperand().getType()))
    return {bc.getOperand(), SmallVector<int64_t>(bc.getDims())};
  if (auto bc = x.getDefiningOp<BroadcastAsOp>(); bc && isa<RankedTensorType>(bc.getOperand().getType()))
    return {bc.getOperand(), SmallVector<int64_t>(bc.getDims())};
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
  return {x, llvm::to_vector(llvm::seq<int64_t>(0, rank))};
}

/// Whether `r` sums one float tensor with identity +0.0 (`combine` is one add of its arguments).
bool isFloatSum(ReduceOp r) {
  if (r.getInputs().size() != 1 || r.getIdentities().size() != 1)
    return false;
  auto t = cast<RankedTensorType>(r.getInputs()[0].getType());
  if (!isa<FloatType>(t.getElementType()))
    return false;
  FloatAttr zero;
  if (!matchPattern(r.getIdentities()[0], m_Constant(&zero)) || !zero.getValue().isPosZero())
    return false;
  Block &body = r.getCombine().front();
  auto bin = dyn_cast<BinaryOp>(&body.front());
  if (!bin || bin.getKind() != BinaryKind::Add || bin.getApproximate() || bin.getFlushToZero() ||
      body.getNumArguments() != 2)
    return false;
  bool args = (bin.getLhs() == body.getArgument(0) && bin.getRhs() == body.getArgument(1)) ||
              (bin.getLhs() == body.getArgument(1) && bin.getRhs() == body.getArgument(0));
  auto yield = dyn_cast<YieldOp>(bin->getNextNode());
  return args && yield && yield.getValues().size() == 1 && yield.getValues()[0] == bin.getResult();
}

/// The narrow operand a factor was widened from, when both factors widen one 16-bit float type to
/// the product's type: their products are exact in f32 (11 + 11 or 8 + 8 significand bits), so the
/// contraction may read the narrow values with an f32 accumulator (tensor-core operands).
std::pair<Value, Value> narrowSources(Value a, Value b, Type acc) {
  auto ca = a.getDefiningOp<CastOp>(), cb = b.getDefiningOp<CastOp>();
  if (!ca || !cb || !acc.isF32())
    return {a, b};
  Type ta = getElementTypeOrSelf(ca.getOperand().getType()), tb = getElementTypeOrSelf(cb.getOperand().getType());
  if (ta != tb || !(ta.isF16() || ta.isBF16()))
    return {a, b};
  return {ca.getOperand(), cb.getOperand()};
}

struct ContractProducts : tessel::kir::impl::KIRContractProductsBase<ContractProducts> {
  void runOnOperation() override {
    SmallVector<ReduceOp> sums;
    getOperation().walk([&](ReduceOp r) { sums.push_back(r); });
    remarks = remarksEnabled(getOperation());
    for (ReduceOp r : sums) {
      std::string why;
      if (!isFloatSum(r))
        continue;
      auto mul = r.getInputs()[0].getDefiningOp<BinaryOp>();
      if (!mul || mul.getKind() != BinaryKind::Mul || !isa<RankedTensorType>(mul.getLhs().getType()) ||
          !isa<RankedTensorType>(mul.getRhs().getType()))
        continue;
      if (failed(rewrite(r, mul, why)) && remarks && !why.empty())
        r.emitRemark() << "kir-contract-products: the sum of products stays a reduction: " << why;
    }
  }

  LogicalResult rewrite(ReduceOp r, BinaryOp mul, std::string &why) {
    if (mul.getApproximate() || mul.getFlushToZero())
      return failure();
    Factor x = factorOf(mul.getLhs()), y = factorOf(mul.getRhs());
    auto product = cast<RankedTensorType>(mul.getType());
    int64_t n = product.getRank();
    ArrayRef<int64_t> summed = r.getAxes();
    auto position = [](const Factor &f, int64_t axis) -> int64_t {
      auto it = llvm::find(f.axes, axis);
      return it == f.axes.end() ? -1 : int64_t(it - f.axes.begin());
    };
    SmallVector<int64_t> lhsReduce, rhsReduce, lhsBatch, rhsBatch;
    bool outer = false;
    for (int64_t a = 0; a < n; ++a) {
      int64_t px = position(x, a), py = position(y, a);
      if (llvm::is_contained(summed, a)) {
        if (px < 0 || py < 0) {
          why = "a summed axis is spread (broadcast) in one factor";
          return failure();
        }
        lhsReduce.push_back(px);
        rhsReduce.push_back(py);
      } else if (px >= 0 && py >= 0) {
        lhsBatch.push_back(px);
        rhsBatch.push_back(py);
      } else if (px >= 0 || py >= 0) {
        outer = true;
      } else {
        why = "a kept axis is spread in both factors";
        return failure();
      }
    }
    if (!outer)
      return failure(); // a row reduction of a product (no outer-product axis): the row paths realize it
    // Result axes of the contraction (KIR_ContractOp): x's axes not summed, then y's neither summed nor batch.
    SmallVector<int64_t> order;
    for (int64_t a : x.axes)
      if (!llvm::is_contained(summed, a))
        order.push_back(a);
    for (int64_t a : y.axes)
      if (!llvm::is_contained(summed, a) && position(x, a) < 0)
        order.push_back(a);
    SmallVector<int64_t> kept;
    for (int64_t a = 0; a < n; ++a)
      if (!llvm::is_contained(summed, a))
        kept.push_back(a);
    OpBuilder b(r);
    Location loc = r.getLoc();
    Type acc = product.getElementType();
    auto [lhs, rhs] = narrowSources(x.source, y.source, acc);
    SmallVector<int64_t> shape;
    for (int64_t a : order)
      shape.push_back(product.getDimSize(a));
    auto contractType = RankedTensorType::get(shape, acc);
    Value result = ContractOp::create(b, loc, contractType, lhs, rhs, Value(), b.getDenseI64ArrayAttr(lhsReduce),
                                      b.getDenseI64ArrayAttr(rhsReduce), b.getDenseI64ArrayAttr(lhsBatch),
                                      b.getDenseI64ArrayAttr(rhsBatch), ContractPrecisionAttr());
    if (order != kept) {
      // Result axis i of the sum is contraction axis perm[i].
      SmallVector<int64_t> perm;
      for (int64_t a : kept)
        perm.push_back(llvm::find(order, a) - order.begin());
      result = TransposeOp::create(b, loc, r.getResult(0).getType(), result, b.getDenseI64ArrayAttr(perm));
    }
    if (remarks)
      r.emitRemark() << "kir-contract-products: the sum of products over " << summed.size()
                     << " axis(es) became a contraction"
                     << (lhs != x.source ? " of the 16-bit operands (exact products, f32 accumulator)" : "");
    r.getResult(0).replaceAllUsesWith(result);
    r.erase();
    // The product and its broadcasts, when nothing else reads them.
    SmallVector<Operation *> dead{mul};
    while (!dead.empty()) {
      Operation *op = dead.pop_back_val();
      if (!op->use_empty())
        continue;
      SmallVector<Operation *> defs;
      for (Value v : op->getOperands())
        if (Operation *d = v.getDefiningOp(); d && isa<BroadcastOp, BroadcastAsOp, CastOp, BinaryOp>(d))
          defs.push_back(d);
      op->erase();
      llvm::append_range(dead, defs);
    }
    return success();
  }

  bool remarks = false; // optimization remarks asked for (the module's compile options), read once a run
};

} // namespace
