//===- PGPUAttrs.td - pgpu enums and attributes ------------*- tablegen -*-===//

#ifndef TESSEL_PGPU_ATTRS
#define TESSEL_PGPU_ATTRS

include "tessel/Dialect/PGPU/IR/PGPUDialect.td"
include "mlir/IR/EnumAttr.td"

def PGPU_BufferScope : I32EnumAttr<"BufferScope", "allocation scope of a physical buffer (seed 000 §4.4)", [
    I32EnumAttrCase<"Program", 0, "program">,
    I32EnumAttrCase<"Iteration", 1, "iteration">,
    I32EnumAttrCase<"Workspace", 2, "workspace">]> {
  let cppNamespace = "::tessel::pgpu";
}

def PGPU_PrivateKind : I32EnumAttr<"PrivateKind", "compiler-private kernel parameter kind", [
    I32EnumAttrCase<"Workspace", 0, "workspace">,
    I32EnumAttrCase<"WrapperScalar", 1, "wrapper_scalar">]> {
  let cppNamespace = "::tessel::pgpu";
}

class PGPU_Attr<string name, string attrMnemonic> : AttrDef<PGPU_Dialect, name> {
  let mnemonic = attrMnemonic;
}

def PGPU_TargetAttr : PGPU_Attr<"Target", "target"> {
  let summary = "external target capabilities (seed 000 §2)";
  let description = [{
    Facts about the device that legalization and resource estimates read. It
    names no provider API. `multiprocessors` = 0: not known (no traversal is
    sized by it).

    ```mlir
    module attributes {pgpu.target = #pgpu.target<arch = "sm_90", warp_size = 32, max_threads = 1024,
                                                  shared_memory_bytes = 232448, registers = 65536,
                                                  multiprocessors = 132>} {}
    ```
  }];
  let parameters = (ins
    "::mlir::StringAttr":$arch,
    DefaultValuedParameter<"int64_t", "32">:$warp_size,
    DefaultValuedParameter<"int64_t", "1024">:$max_threads,
    DefaultValuedParameter<"int64_t", "49152">:$shared_memory_bytes,
    DefaultValuedParameter<"int64_t", "65536">:$registers,
    DefaultValuedParameter<"int64_t", "0">:$multiprocessors);
  let assemblyFormat = "`<` struct(params) `>`";
}

def PGPU_ParamAttr : PGPU_Attr<"Param", "param"> {
  let summary = "a physical parameter with its candidate domain";
  let description = [{
    The closed search space of the autotuner (seed 003 search test): a name,
    the candidate values and the heuristic default. `provider` is empty for
    shared parameters (tile extents, grouping) and names the provider for
    provider knobs (`num_warps`). `covers` names a shape symbol the parameter's
    extent should cover (a fragment axis under a uniform `size <= BLOCK` guard):
    when the symbol's size is known at the call, the heuristic default is the
    smallest candidate at least that size (a fact, seed 003), else
    `default_value`. `passes` names a parameter that counts passes over
    ranges of this parameter's extent (bin-range tiling): the product of the
    two covers the symbol, so where no candidate holds the symbol alone the
    call's default binds the largest candidate the provider keeps (its
    resource fit) and the fewest passes that cover the rest. A provider
    whose ranged form costs more than the direct one drops the link.

    ```mlir
    #pgpu.param<"BM", [32, 64, 128], 64>
    #pgpu.param<"num_warps", [4, 8], 4, provider = "triton">
    #pgpu.param<"BLOCK_D", [16, 32, 64, 128, 256], 128, covers = "D">
    #pgpu.param<"HBINS", [32, 1024, 32768], 32, covers = "B", passes = "HPASSES">
    ```
  }];
  let parameters = (ins
    "::mlir::StringAttr":$name,
    ArrayRefParameter<"int64_t">:$candidates,
    "int64_t":$default_value,
    OptionalParameter<"::mlir::StringAttr">:$provider,
    OptionalParameter<"::mlir::StringAttr">:$covers,
    OptionalParameter<"::mlir::StringAttr">:$passes);
  let builders = [
    AttrBuilder<(ins "::mlir::StringAttr":$name, "::llvm::ArrayRef<int64_t>":$candidates, "int64_t":$default_value,
                     "::mlir::StringAttr":$provider), [{
      return $_get($_ctxt, name, candidates, default_value, provider, ::mlir::StringAttr(), ::mlir::StringAttr());
    }]>,
    AttrBuilder<(ins "::mlir::StringAttr":$name, "::llvm::ArrayRef<int64_t>":$candidates, "int64_t":$default_value,
                     "::mlir::StringAttr":$provider, "::mlir::StringAttr":$covers), [{
      return $_get($_ctxt, name, candidates, default_value, provider, covers, ::mlir::StringAttr());
    }]>
  ];
  let assemblyFormat = [{
    `<` $name `,` `[` $candidates `]` `,` $default_value (`,` struct($provider, $covers, $passes)^)? `>`
  }];
}

#endif // TESSEL_PGPU_ATTRS
