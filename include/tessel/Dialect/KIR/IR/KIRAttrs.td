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
    Defaults: source / true / false.

    ```mlir
    module attributes {kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>} {}
    ```
  }];
  let parameters = (ins
    DefaultValuedParameter<"::tessel::kir::Numerics", "::tessel::kir::Numerics::Source">:$numerics,
    DefaultValuedParameter<"bool", "true">:$online_reduction,
    DefaultValuedParameter<"bool", "false">:$optimization_remarks);
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
