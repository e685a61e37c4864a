//===- Capabilities.cpp - what the Triton provider can spell ---------------===//
//
// seed 002 §3.6 and §5.4: after the shared verifier, the selected provider's
// capabilities are checked locally and an inexpressible combination is an
// error at the op, at the earliest layer that knows it (legalization), never
// a fallback in the serializer. The serializer spells exactly what passes.
//
//===----------------------------------------------------------------------===//

#include "tessel/Target/Triton/Triton.h"

using namespace mlir;
using namespace tessel;

std::optional<std::string> triton::binarySpelling(kir::BinaryKind kind, bool isFloat, bool approximate,
                                                  const std::string &l, const std::string &r) {
  switch (kind) {
  case kir::BinaryKind::Add: return l + " + " + r;
  case kir::BinaryKind::Sub: return l + " - " + r;
  case kir::BinaryKind::Mul: return l + " * " + r;
  case kir::BinaryKind::Div:
    if (!isFloat)
      return l + " // " + r;
    return approximate ? l + " / " + r : "tl.div_rn(" + l + ", " + r + ")";
  case kir::BinaryKind::Rem: return l + " % " + r;
  case kir::BinaryKind::Max:
    return isFloat ? "tl.maximum(" + l + ", " + r + ", propagate_nan=tl.PropagateNan.ALL)"
                   : "tl.maximum(" + l + ", " + r + ")";
  case kir::BinaryKind::Min:
    return isFloat ? "tl.minimum(" + l + ", " + r + ", propagate_nan=tl.PropagateNan.ALL)"
                   : "tl.minimum(" + l + ", " + r + ")";
  case kir::BinaryKind::And: return l + " & " + r;
  case kir::BinaryKind::Or: return l + " | " + r;
  case kir::BinaryKind::Xor: return l + " ^ " + r;
  case kir::BinaryKind::Shl: return l + " << " + r;
  case kir::BinaryKind::Shr: return l + " >> " + r;
  default: return std::nullopt;
  }
}

std::optional<std::string> triton::unarySpelling(kir::UnaryKind kind, bool isBool, const std::string &x) {
  switch (kind) {
  case kir::UnaryKind::Neg: return "-" + x;
  case kir::UnaryKind::Abs: return "tl.abs(" + x + ")";
  case kir::UnaryKind::Exp: return "tl.exp(" + x + ")";
  case kir::UnaryKind::Exp2: return "tl.exp2(" + x + ")";
  case kir::UnaryKind::Log: return "tl.log(" + x + ")";
  case kir::UnaryKind::Log2: return "tl.log2(" + x + ")";
  case kir::UnaryKind::Sqrt: return "tl.sqrt_rn(" + x + ")";
  case kir::UnaryKind::Rsqrt: return "tl.div_rn(1.0, tl.sqrt_rn(" + x + "))";
  case kir::UnaryKind::Sigmoid: return "tl.sigmoid(" + x + ")";
  case kir::UnaryKind::Sin: return "tl.sin(" + x + ")";
  case kir::UnaryKind::Cos: return "tl.cos(" + x + ")";
  case kir::UnaryKind::Floor: return "tl.floor(" + x + ")";
  case kir::UnaryKind::Ceil: return "tl.ceil(" + x + ")";
  case kir::UnaryKind::Not: return isBool ? x + " ^ 1" : "~" + x;
  default: return std::nullopt;
  }
}

std::optional<std::string> triton::spellingIssue(Operation *op) {
  for (Type t : op->getResultTypes()) {
    if (isa<TupleType>(t))
      return std::string("tuples are not spelled yet");
    if (auto f = dyn_cast<pgpu::FragmentType>(t); f && f.getRank() > 2)
      return std::string("fragments of rank > 2 are not spelled yet");
  }
  if (isa<pgpu::RangeReduceOp, pgpu::RangeScanOp, pgpu::RegionFoldOp>(op))
    return std::string("an unblocked structured op must be expanded by pgpu-triton-legalize first");
  if (isa<pgpu::RegionScanOp, pgpu::HistogramOp, pgpu::ArgReduceOp, pgpu::ScaledContractOp, pgpu::SparseContractOp,
          pgpu::AtomicRMWOp, pgpu::AtomicCASOp, pgpu::AtomicLoadOp, pgpu::AtomicStoreOp, pgpu::AllocOp,
          pgpu::WhileOp, pgpu::ReshapeOp, pgpu::JoinOp, pgpu::TupleOp, pgpu::TupleGetOp>(op))
    return std::string("no Triton spelling for this op yet");
  if (isa<pgpu::BufferLoadOp, pgpu::BufferStoreOp>(op)) {
    Value buffer = isa<pgpu::BufferLoadOp>(op) ? cast<pgpu::BufferLoadOp>(op).getBuffer()
                                               : cast<pgpu::BufferStoreOp>(op).getBuffer();
    if (!isa<BlockArgument>(buffer) || !isa<pgpu::KernelOp>(cast<BlockArgument>(buffer).getOwner()->getParentOp()))
      return std::string("only workspace buffers (kernel arguments) are spelled; program and iteration buffers "
                         "are not yet");
  }
  if (auto b = dyn_cast<pgpu::BinaryOp>(op))
    if (!binarySpelling(b.getKind(), isa<FloatType>(pgpu::elementTypeOf(b.getType())), b.getApproximate(), "", ""))
      return std::string("no Triton operation with this kind's NaN semantics");
  if (auto u = dyn_cast<pgpu::UnaryOp>(op))
    if (!unarySpelling(u.getKind(), false, ""))
      return std::string("no Triton math function with the required accuracy");
  if (auto sr = dyn_cast<pgpu::ScatterReduceOp>(op)) {
    Block &combine = sr.getCombine().front();
    auto add = dyn_cast_or_null<pgpu::BinaryOp>(combine.getTerminator()->getOperand(0).getDefiningOp());
    if (!add || add.getKind() != kir::BinaryKind::Add || combine.getOperations().size() != 2)
      return std::string("only an add combine has a Triton spelling (tl.atomic_add)");
  }
  if (auto br = dyn_cast<pgpu::BroadcastOp>(op); br && !llvm::is_sorted(br.getDims()))
    return std::string("a broadcast that also permutes axes (transpose first)");
  if (auto c = dyn_cast<pgpu::ContractOp>(op)) {
    auto lhs = cast<pgpu::FragmentType>(c.getLhs().getType());
    auto rhs = cast<pgpu::FragmentType>(c.getRhs().getType());
    if (lhs.getRank() != 2 || rhs.getRank() != 2 || c.getLhsReduce() != ArrayRef<int64_t>{1} ||
        c.getRhsReduce() != ArrayRef<int64_t>{0} || !c.getLhsBatch().empty())
      return std::string("tl.dot spells only [M, K] x [K, N] with no batch axes");
    Type in = lhs.getElementType(), acc = pgpu::elementTypeOf(c.getAcc().getType());
    if (!acc.isF32() || !(in.isF16() || in.isBF16() || in.isF32()))
      return std::string("tl.dot spells f16, bf16 and f32 operands with an f32 accumulator");
  }
  if (auto r = dyn_cast<pgpu::ReduceOp>(op); r && r.getAxes().size() != 1)
    return std::string("only a reduction over one axis is spelled yet");
  if (auto sc = dyn_cast<pgpu::ScanOp>(op)) {
    if (sc.getAxis() != 0 || cast<pgpu::FragmentType>(sc->getResult(0).getType()).getRank() != 1)
      return std::string("only a scan along axis 0 of a one-dimensional fragment is spelled yet");
    if (sc.getExclusive())
      return std::string("tl.associative_scan is inclusive; an exclusive fragment scan has no spelling");
  }
  if (auto e = dyn_cast<pgpu::ExtractOp>(op); e && cast<pgpu::FragmentType>(e.getFragment().getType()).getRank() != 1)
    return std::string("only an element of a one-dimensional fragment is spelled yet");
  if (auto space = dyn_cast<pgpu::ProgramSpaceOp>(op); space && space.getExtents().size() != 1)
    return std::string("the Triton provider needs a one-dimensional program space");
  return std::nullopt;
}
