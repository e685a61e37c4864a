//===- OnlineFoldsPrep.cpp - kir-online-folds' preliminary rewrites ===//
//
// The module-wide rewrites kir-online-folds runs before its matcher (OnlineFolds.cpp): a contraction
// of a row divided by its own sum takes the division after it (under the normalized-summary
// permission), and a broadcast of a tensor over its own domains is dropped, so that the matcher sees
// the flash form and a bias as a source over the axis.
//
//===----------------------------------------------------------------------===//

#include "OnlineFoldsPrep.h"
#include "AxisDomains.h"

using namespace mlir;

namespace tessel::kir {

/// Whether `r` reduces one float input of rank `rank` (1, or 2 for per-row summaries) over its
/// last axis with a combine that is one `kir.binary kind` of its two arguments.
bool isPlainReduce(ReduceOp r, BinaryKind kind, int64_t rank) {
  if (r.getInputs().size() != 1 || r.getAxes().size() != 1 || r.getAxes()[0] != rank - 1)
    return false;
  auto t = dyn_cast<RankedTensorType>(r.getInputs()[0].getType());
  if (!t || t.getRank() != rank || !isa<FloatType>(t.getElementType()))
    return false;
  Block &body = r.getCombine().front();
  auto bin = dyn_cast<BinaryOp>(&body.front());
  if (!bin || bin.getKind() != kind || body.getNumArguments() != 2)
    return false;
  bool args = (bin.getLhs() == body.getArgument(0) && bin.getRhs() == body.getArgument(1)) ||
              (bin.getLhs() == body.getArgument(1) && bin.getRhs() == body.getArgument(0));
  auto yield = dyn_cast<YieldOp>(bin->getNextNode());
  return args && yield && yield.getValues().size() == 1 && yield.getValues()[0] == bin.getResult();
}

/// A contraction of a row divided by its own sum (softmax's weights p = e / sum(e) fed to a tile product,
/// `T.vecmat(p, v)`) becomes the contraction of the row, divided by the sum after it:
/// sum_k (e_k / s) v_k = (sum_k e_k v_k) / s. The two round differently (one division an output instead of
/// one a key), so this is part of forming a normalized summary and needs its permission (numerics =
/// relaxed_normalization with online_reduction, seed 002 §1; seed 002 §4: online rescaling under explicit
/// normalized-summary permissions). The division by the broadcast sum stays for the row's other users; the
/// matcher below then sees the flash form `vecmat(e, v) / sum(e)`. Only a rank-1 float row that the
/// contraction reduces whole, the divisor a plain sum of that same row broadcast with no kept axis, and no
/// cast between: a cast to a narrower type before the product is the author's rounding and stays.
void divideAfterContractions(ModuleOp module, bool remarks) {
  SmallVector<ContractOp> work;
  module.walk([&](ContractOp c) {
    if (isa<ParallelOp>(c->getParentOp()))
      work.push_back(c);
  });
  for (ContractOp c : work) {
    // Per contraction: a rewrite erases ops, whose values must not linger as memo keys.
    DenseMap<Value, SmallVector<Value>> memo;
    for (unsigned i = 0; i < 2; ++i) {
      Value operand = c->getOperand(i);
      auto div = operand.getDefiningOp<BinaryOp>();
      if (!div || div.getKind() != BinaryKind::Div || div->getBlock() != c->getBlock())
        continue;
      auto row = dyn_cast<RankedTensorType>(div.getLhs().getType());
      ArrayRef<int64_t> reduced = i == 0 ? c.getLhsReduce() : c.getRhsReduce();
      if (!row || row.getRank() != 1 || reduced.size() != 1 || reduced[0] != 0)
        continue;
      auto bc = div.getRhs().getDefiningOp<BroadcastOp>();
      if (!bc || !bc.getDims().empty() || isa<RankedTensorType>(bc.getOperand().getType()))
        continue;
      auto sum = bc.getOperand().getDefiningOp<ReduceOp>();
      if (!sum || !isPlainReduce(sum, BinaryKind::Add) || sum.getInputs()[0] != div.getLhs())
        continue;
      Type result = c.getResult().getType();
      Type element = isa<RankedTensorType>(result) ? cast<RankedTensorType>(result).getElementType() : result;
      if (element != row.getElementType() || sum.getResult(0).getType() != element)
        continue;
      std::optional<SmallVector<Value>> doms = domainsOf(c.getResult(), memo);
      if (!doms)
        continue;
      OpBuilder b(c);
      b.setInsertionPointAfter(c);
      Location loc = c.getLoc();
      Value denom = sum.getResult(0);
      if (!doms->empty())
        denom = BroadcastOp::create(b, loc, result, denom, *doms, ArrayRef<int64_t>{}).getResult();
      Value quotient = BinaryOp::create(b, loc, BinaryKind::Div, c.getResult(), denom);
      c.getResult().replaceAllUsesExcept(quotient, quotient.getDefiningOp());
      c->setOperand(i, div.getLhs());
      if (div.getResult().use_empty())
        div.erase();
      if (bc.getResult().use_empty())
        bc.erase();
      if (remarks)
        c.emitRemark() << "kir-online-folds: the contraction's operand " << i
                       << " was a row divided by its own sum; the sum now divides the contraction's result "
                          "(one division an output, numerics = relaxed_normalization, seed 002 §1)";
      break;
    }
  }
}

/// A broadcast of a tensor over its own domains in its own axis order (`b[classes]` spread over
/// `classes`, as kir-row-parallels leaves a bias) is that tensor: its uses read the operand, so the
/// matcher sees the bias as a source over the axis rather than a broadcast of one.
void dropIdentityBroadcasts(ModuleOp module) {
  SmallVector<BroadcastOp> work;
  module.walk([&](BroadcastOp bc) {
    if (isa<ParallelOp>(bc->getParentOp()))
      work.push_back(bc);
  });
  DenseMap<Value, SmallVector<Value>> memo;
  for (BroadcastOp bc : work) {
    if (bc.getOperand().getType() != bc.getType())
      continue;
    std::optional<SmallVector<Value>> doms = domainsOf(bc.getOperand(), memo);
    ArrayRef<int64_t> dims = bc.getDims();
    if (!doms || doms->size() != bc.getDomains().size() || dims.size() != doms->size() ||
        !llvm::equal(*doms, bc.getDomains()))
      continue;
    bool iota = true;
    for (auto [i, d] : llvm::enumerate(dims))
      iota &= d == int64_t(i);
    if (!iota)
      continue;
    bc.getResult().replaceAllUsesWith(bc.getOperand());
    bc.erase();
  }
}

} // namespace tessel::kir
