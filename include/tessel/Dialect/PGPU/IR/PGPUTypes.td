//===- PGPUTypes.td - pgpu types ---------------------------*- tablegen -*-===//

#ifndef TESSEL_PGPU_TYPES
#define TESSEL_PGPU_TYPES

include "tessel/Dialect/PGPU/IR/PGPUAttrs.td"

class PGPU_Type<string name, string typeMnemonic> : TypeDef<PGPU_Dialect, name> {
  let mnemonic = typeMnemonic;
}

def PGPU_FragmentType : PGPU_Type<"Fragment", "fragment"> {
  let summary = "a shaped SSA value owned by one program instance (seed 000 §4.2)";
  let description = [{
    Element type and one extent per axis: a static size or the name of a
    declared physical parameter. Coordinates are not part of the type: they
    are the def-use graph from program coordinates (`pgpu.iota`, index
    arithmetic, broadcasts) that every access consumes explicitly. No
    register/lane/warp distribution or layout is implied.

    ```mlir
    !pgpu.fragment<f32, [BM, BN]>
    !pgpu.fragment<index, [64]>
    ```
  }];
  let parameters = (ins "::mlir::Type":$elementType,
                        ArrayRefParameter<"::mlir::Attribute", "extents: StringAttr params or IntegerAttr sizes">:$extents);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    unsigned getRank() const { return getExtents().size(); }
  }];
}

def PGPU_ViewType : PGPU_Type<"View", "view"> {
  let summary = "an external view of the public ABI (seed 000 §4.3)";
  let description = [{
    ```mlir
    !pgpu.view<f16, [M, K], in>
    ```
  }];
  let parameters = (ins "::mlir::Type":$elementType,
                        ArrayRefParameter<"::mlir::Attribute", "extents: StringAttr names or IntegerAttr sizes">:$extents,
                        "::tessel::kir::ViewMode":$mode);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    unsigned getRank() const { return getExtents().size(); }
    bool isWritable() const { return getMode() != ::tessel::kir::ViewMode::In; }
  }];
}

def PGPU_BufferType : PGPU_Type<"Buffer", "buffer"> {
  let summary = "a mutable physical buffer with an allocation scope (seed 000 §4.4)";
  let description = [{
    `program`: private to one program instance; `iteration`: private to one
    iteration of the enclosing loop; `workspace`: invocation workspace, a
    compiler-private kernel argument allocated by the runtime before the one
    launch. Extents are static sizes, parameters or (for workspace) view extent
    names.

    ```mlir
    !pgpu.buffer<f32, [BM, BN], program>
    !pgpu.buffer<f32, [SPLIT, M, N], workspace>
    ```
  }];
  let parameters = (ins "::mlir::Type":$elementType,
                        ArrayRefParameter<"::mlir::Attribute", "extents">:$extents,
                        "::tessel::pgpu::BufferScope":$scope);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    unsigned getRank() const { return getExtents().size(); }
  }];
}

#endif // TESSEL_PGPU_TYPES
