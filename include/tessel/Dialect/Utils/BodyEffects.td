//===- BodyEffects.td - control ops that report their body's effects -*- tablegen -*-===//
//
// A control op has the effects of its body (RecursiveMemoryEffects) and also
// reports their kinds itself, found from the body's end (BodyEffects.h), so
// that MLIR's dead-op check of a result-less loop stops at its store instead
// of walking every op before it (issue 47).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_UTILS_BODY_EFFECTS
#define TESSEL_UTILS_BODY_EFFECTS

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def SummarizesBodyEffects : NativeOpTrait<"SummarizesBodyEffects", [], [{}], [{
    void $cppClass::getEffects(
        ::llvm::SmallVectorImpl<::mlir::SideEffects::EffectInstance<::mlir::MemoryEffects::Effect>> &effects) {
      ::tessel::summarizeBodyEffects(getOperation(), effects);
    }
  }]> {
  let cppNamespace = "::tessel";
}

defvar BodyEffects = [RecursiveMemoryEffects, SummarizesBodyEffects,
                      DeclareOpInterfaceMethods<MemoryEffectsOpInterface>];

#endif // TESSEL_UTILS_BODY_EFFECTS
