//===- MergeContractAdd.cpp - a contraction's epilogue joins its accumulator ===//
//
// seed 002 §3.4 and §4: "Ordinary contraction and its sole same-dtype addition
// consumer may merge under DSL local-fusion semantics. Current def-use, zero
// initialization, result-coordinate correspondence and dominance prove
// legality. The other addition operand connects directly to the physical
// accumulator."
//
//   %c = pgpu.contract %l, %r, splat(0)         (sole use below)
//   %s = pgpu.binary add %c, %z                 ->  %s = pgpu.contract %l, %r, %z
//
// A scaling of the result before the addition is left alone: moving a row
// scaling into the lhs (legal under relaxed_normalization) was measured slower
// on the H200 for attention (312 against 368 TFLOP/s, 2026-12-01), so it is
// not done.
// A chain of contractions accumulating into one another down to a zero splat
// (kir-to-pgpu's exact bf16 parts of an f32 operand) takes the addend at its
// bottom: add(contract(l1, r1, contract(l2, r2, 0)), z) becomes
// contract(l1, r1, contract(l2, r2, z)).
// Must not fire: an accumulator that is not a zero splat or such a chain, a
// result with other uses (a scaling included), an addition of another type.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseSet.h"

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUMERGECONTRACTADD
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

namespace {

/// The single user of `v` if it is a binary op of `kind`, with the other operand.
std::pair<BinaryOp, Value> soleBinaryUse(Value v, kir::BinaryKind kind) {
  if (!v.hasOneUse())
    return {};
  auto op = dyn_cast<BinaryOp>(*v.getUsers().begin());
  if (!op || op.getKind() != kind || op.getApproximate() || op.getFlushToZero())
    return {};
  return {op, op.getLhs() == v ? op.getRhs() : op.getLhs()};
}

struct MergeContractAdd : public tessel::pgpu::impl::PGPUMergeContractAddBase<MergeContractAdd> {
  void runOnOperation() override {
    SmallVector<ContractOp> contracts;
    getOperation().walk([&](ContractOp c) { contracts.push_back(c); });
    auto plain = [](ContractOp c) {
      return c.getLhsBatch().empty() && c.getLhsReduce() == ArrayRef<int64_t>{1};
    };
    DenseSet<Operation *> erased;
    for (ContractOp c : contracts) {
      if (erased.contains(c) || !plain(c))
        continue;
      // c, or a chain of contractions each accumulating into the next (c's accumulator the sole
      // result of the one below, down to a zero-initialized one: kir-to-pgpu's exact bf16 parts of
      // an f32 operand); the addend then joins the bottom's accumulator.
      SmallVector<ContractOp> chain{c};
      while (!isZeroConstant(chain.back().getAcc())) {
        auto below = chain.back().getAcc().getDefiningOp<ContractOp>();
        if (!below || !below->hasOneUse() || below.getType() != c.getType() || !plain(below)) {
          chain.clear();
          break;
        }
        chain.push_back(below);
      }
      if (chain.empty())
        continue;
      bool remarks = remarksEnabled(c);
      auto [add, z] = soleBinaryUse(c.getResult(), kir::BinaryKind::Add);
      if (!add || z.getType() != c.getType())
        continue;
      // Built at the addition: the addend and the operands all dominate it there.
      OpBuilder b(add);
      Value acc = z; // z joins the terms' sum (any order)
      for (ContractOp link : llvm::reverse(chain))
        acc = ContractOp::create(b, link.getLoc(), link.getType(), link.getLhs(), link.getRhs(), acc,
                                 link.getLhsReduceAttr(), link.getRhsReduceAttr(), link.getLhsBatchAttr(),
                                 link.getRhsBatchAttr(), link.getPrecisionAttr());
      add.getResult().replaceAllUsesWith(acc);
      add.erase();
      for (ContractOp link : chain) { // top first: each is the sole user of the one below
        erased.insert(link);
        link.erase();
      }
      if (remarks)
        emitRemark(acc.getLoc()) << "pgpu-merge-contract-add: the addition joined the accumulator";
    }
  }
};
} // namespace
