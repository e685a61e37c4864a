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

def KIRFlattenRecords : Pass<"kir-flatten-records", "::mlir::ModuleOp"> {
  let summary = "fold a region fold's record summary as its fields";
  let description = [{
    Reads: every `kir.region_fold` whose results (its summary schema) hold a
    `!kir.record`, innermost first.
    Legality: a record component whose fields are plain values (no record or
    tuple among them, at least one field); a record nested in a record or a
    tuple, or an empty record, leaves the whole fold unchanged (with
    `optimization_remarks`, a remark at the fold says why). A record summary
    and the same summary spelled as one component per field are one
    algorithm and must reach the same pgpu (issue 41: canonical forms, not
    spellings), so that construction blocks the fold into tiles
    (seed 002 §3.4 region-fold realization). `kir.region_scan` keeps its
    records (not flattened yet; a remark says so).
    Rewrites: each record component becomes its fields in declaration order:
    the identities (a defining `kir.record`'s fields, else `kir.record_get`s),
    `summarize`'s and `combine`'s yields likewise, `combine`'s record
    arguments one argument per field (a `kir.record_get` of the argument
    becomes the field argument; any other use reads a `kir.record` rebuilt at
    the top of the block), and each record result a `kir.record` of the new
    field results (its `kir.record_get`s read the fields directly). Records
    left unused are erased. New ops take the location of the op they replace.
    Preserves: the fold's value, the author's segmentation promise, sources,
    captures, the order of components, non-record components.
    Verifier after: the KIR verifier.

    ```mlir
    // before
    %s = kir.region_fold sources(%t : tensor<?xf32>) axis 0
        identity(%id : !kir.record<m: f32, den: f32>) -> (!kir.record<m: f32, den: f32>) ...
    %d = kir.record_get %s["den"] : !kir.record<m: f32, den: f32> -> f32
    // after
    %m, %d = kir.region_fold sources(%t : tensor<?xf32>) axis 0
        identity(%ninf, %zero : f32, f32) -> (f32, f32) ...
    ```
  }];
  let dependentDialects = ["::tessel::kir::KIRDialect"];
}

#endif // TESSEL_KIR_PASSES
