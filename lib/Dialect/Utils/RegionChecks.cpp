//===- RegionChecks.cpp - region checks shared by kir and pgpu -------------===//

#include "tessel/Dialect/Utils/RegionChecks.h"

#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace tessel {

LogicalResult verifyRegionSignature(Operation *op, Region &region, StringRef name, TypeRange args,
                                    TypeRange results) {
  Block &block = region.front();
  if (block.getNumArguments() != args.size())
    return op->emitOpError() << "'" << name << "' region takes " << block.getNumArguments()
                             << " arguments but " << args.size() << " were expected";
  for (auto [i, arg, expected] : llvm::enumerate(block.getArgumentTypes(), args))
    if (arg != expected)
      return op->emitOpError() << "'" << name << "' region argument #" << i << " has type " << arg
                               << " but " << expected << " was expected";
  Operation *terminator = block.getTerminator();
  if (!terminator->hasTrait<OpTrait::IsTerminator>())
    return op->emitOpError() << "'" << name << "' region must end in a yield";
  if (terminator->getNumOperands() != results.size())
    return op->emitOpError() << "'" << name << "' region yields " << terminator->getNumOperands()
                             << " values but " << results.size() << " were expected";
  for (auto [i, got, expected] : llvm::enumerate(terminator->getOperandTypes(), results))
    if (got != expected)
      return op->emitOpError() << "'" << name << "' region yields " << got << " as component #"
                               << i << " but " << expected << " was expected";
  return success();
}

LogicalResult verifyPureRegion(Operation *op, Region &region, StringRef name, bool allowReads) {
  WalkResult result = region.walk([&](Operation *inner) {
    if (inner->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return WalkResult::advance();
    auto effects = dyn_cast<MemoryEffectOpInterface>(inner);
    if (!effects) {
      inner->emitOpError() << "has unknown effects and may not appear in the '" << name
                           << "' region of '" << op->getName() << "'";
      return WalkResult::interrupt();
    }
    SmallVector<MemoryEffects::EffectInstance> list;
    effects.getEffects(list);
    for (auto &effect : list) {
      if (allowReads && isa<MemoryEffects::Read>(effect.getEffect()))
        continue;
      op->emitOpError() << "'" << name << "' region must be "
                        << (allowReads ? "free of writes" : "pure") << ", but contains '"
                        << inner->getName() << "'";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

LogicalResult verifyRegionClosedOver(Operation *op, Region &region, StringRef name,
                                 function_ref<bool(Value)> isCompileTimeValue) {
  WalkResult result = region.walk([&](Operation *inner) {
    for (Value operand : inner->getOperands()) {
      if (region.isAncestor(operand.getParentRegion()))
        continue;
      if (isCompileTimeValue(operand))
        continue;
      op->emitOpError() << "'" << name << "' region captures a value defined outside it (operand of '"
                        << inner->getName() << "'); pass it through the op's operands";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

} // namespace tessel
