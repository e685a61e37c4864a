//===- LaunchGuards.cpp - launch guards and their variants ---------------===//
//
// LaunchGuards.h: the guards a provider may compile as variants, and their
// device functions' names.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/IR/LaunchGuards.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace tessel;

SmallVector<pgpu::IfOp> pgpu::launchGuards(KernelOp kernel, unsigned max) {
  SmallVector<IfOp> guards;
  kernel.walk<WalkOrder::PreOrder>([&](IfOp op) {
    if (guards.size() >= max)
      return WalkResult::interrupt();
    Value condition = op.getCondition();
    if (condition.getType().isInteger(1) && !matchPattern(condition, m_Constant()) && isLaunchExpr(condition))
      guards.push_back(op);
    return WalkResult::advance();
  });
  return guards;
}

std::string pgpu::guardVariant(StringRef name, unsigned count, unsigned holds) {
  if (count == 0)
    return name.str();
  std::string variant = name.str() + "$g";
  for (unsigned i = 0; i < count; ++i)
    variant += (holds >> i) & 1 ? '1' : '0';
  return variant;
}
