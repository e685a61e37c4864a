//===- KIRAttrs.td - kir enums and attributes --------------*- tablegen -*-===//

#ifndef TESSEL_KIR_ATTRS
#define TESSEL_KIR_ATTRS

include "tessel/Dialect/KIR/IR/KIRDialect.td"
include "tessel/Dialect/KIR/IR/KIREnums.td"

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

class KIR_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<KIR_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def KIR_CompileOptionsAttr : KIR_Attr<"CompileOptions", "compile_options"> {
  let summary = "effective compilation permissions of a module (seed 002 §1)";
  let description = [{
    `numerics` is `source` (IEEE nearest-even, only local fusions the DSL
    allows) or `relaxed_normalization` (online rescaling of normalized
    summaries is permitted). `online_reduction` says whether that rewrite is
    considered; `optimization_remarks` prints adopted/rejected remarks.
    `summary_emptiness` asks for the summary-emptiness rewrite of seed 002
    §3.5 (pgpu-summary-emptiness: a traversal whose first tile leaves every
    lane's summary nonempty runs that tile ahead of its loops and drops the
    valid flag from their carries); it is off unless asked for, since on the
    H200 the peeled tile measured slower (causal attention B4 H32 S4096 D128
    bf16 349 against 441 TFLOP/s, full 360 against 495; session 12).
    Defaults: source / true / false / false.

    ```mlir
    module attributes {kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>} {}
    ```
  }];
  let parameters = (ins
    DefaultValuedParameter<"::tessel::kir::Numerics", "::tessel::kir::Numerics::Source">:$numerics,
    DefaultValuedParameter<"bool", "true">:$online_reduction,
    DefaultValuedParameter<"bool", "false">:$optimization_remarks,
    DefaultValuedParameter<"bool", "false">:$summary_emptiness);
  let assemblyFormat = "`<` struct(params) `>`";
}

def KIR_OriginAttr : KIR_Attr<"Origin", "origin"> {
  let summary = "stable identity of a KIR op, used as the origin of everything lowered from it";
  let description = [{
    Attached (as fused-location metadata) by `kir-annotate-origins`:
    `kernel` names the kernel and `id` is the op's pre-order position in it,
    which is stable because KIR is immutable after construction begins.

    ```mlir
    loc(fused<#kir.origin<"softmax", 7>>["softmax.mlir":12:5])
    ```
  }];
  let parameters = (ins "::mlir::StringAttr":$kernel, "int64_t":$id);
  let assemblyFormat = "`<` $kernel `,` $id `>`";
}

#endif // TESSEL_KIR_ATTRS
