//===- Passes.td - kir passes ------------------------------*- tablegen -*-===//

#ifndef TESSEL_KIR_PASSES
#define TESSEL_KIR_PASSES

include "mlir/Pass/PassBase.td"

def KIRAnnotateOrigins : Pass<"kir-annotate-origins", "::mlir::ModuleOp"> {
  let summary = "give every kir op a stable origin id";
  let description = [{
    Reads: the kir ops of every `kir.kernel`, in pre-order.
    Legality: always legal; KIR is immutable after this point, so pre-order
    position within a kernel is a stable identity (seed 002 §2.1: stable KIR
    ids key canonical analyses).
    Rewrites: each op's location becomes `fused<#kir.origin<kernel, id>>[loc]`
    (an op already carrying an origin keeps it, so the pass is idempotent).
    Preserves: every value, type, region and effect; only locations change,
    and later layers copy these locations as the origin of what they lower.
    Verifier after: the KIR verifier.

    ```mlir
    %0 = kir.extent "N" loc(fused<#kir.origin<"k", 1>>["k.mlir":3:8])
    ```
  }];
  let dependentDialects = ["::tessel::kir::KIRDialect"];
}

#endif // TESSEL_KIR_PASSES
