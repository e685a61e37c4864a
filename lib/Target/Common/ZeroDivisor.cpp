//===- ZeroDivisor.cpp - KIR's integer division by zero, for providers ----===//

#include "tessel/Target/ZeroDivisor.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace tessel;

bool target::provablyNonZero(Value d) {
  APInt c;
  if (matchPattern(d, m_ConstantInt(&c)))
    return !c.isZero();
  Operation *def = d.getDefiningOp();
  if (!def)
    return false;
  if (isa<pgpu::SplatOp, pgpu::BroadcastOp>(def))
    return provablyNonZero(def->getOperand(0));
  if (auto param = dyn_cast<pgpu::ParamOp>(def)) {
    auto kernel = param->getParentOfType<pgpu::KernelOp>();
    pgpu::ParamAttr declared = kernel ? kernel.getParam(param.getName()) : pgpu::ParamAttr();
    return declared && !declared.getCandidates().empty() &&
           llvm::none_of(declared.getCandidates(), [](int64_t v) { return v == 0; });
  }
  if (auto max = dyn_cast<pgpu::BinaryOp>(def); max && max.getKind() == kir::BinaryKind::Max)
    for (Value side : {max.getLhs(), max.getRhs()})
      if (matchPattern(side, m_ConstantInt(&c)) && c.isStrictlyPositive())
        return true;
  return false;
}

bool target::guardsZeroDivisor(pgpu::BinaryOp b) {
  if (b.getKind() != kir::BinaryKind::Div && b.getKind() != kir::BinaryKind::Rem)
    return false;
  auto integer = dyn_cast<IntegerType>(pgpu::elementTypeOf(b.getType()));
  return integer && integer.getWidth() > 1 && !provablyNonZero(b.getRhs());
}
