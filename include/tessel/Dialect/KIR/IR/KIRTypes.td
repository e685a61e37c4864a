//===- KIRTypes.td - kir types -----------------------------*- tablegen -*-===//

#ifndef TESSEL_KIR_TYPES
#define TESSEL_KIR_TYPES

include "tessel/Dialect/KIR/IR/KIRAttrs.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

class KIR_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<KIR_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def KIR_ViewType : KIR_Type<"View", "view"> {
  let summary = "an external view of the public ABI";
  let description = [{
    An external tensor passed to a kernel: element type, one extent per axis
    (a named symbolic extent such as `M`, or a static size), and the access
    mode `in` (read only), `out` (not readable before written) or `inout`.
    Strides are host metadata and not part of the type. Views with the same
    extent name have equal extents at every launch.

    ```mlir
    !kir.view<f16, [M, K], in>
    !kir.view<f32, [B, 64], out>
    ```
  }];
  let parameters = (ins
    "::mlir::Type":$elementType,
    ArrayRefParameter<"::mlir::Attribute", "extents: StringAttr names or IntegerAttr sizes">:$extents,
    "::tessel::kir::ViewMode":$mode);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    unsigned getRank() const { return getExtents().size(); }
    /// The symbol name of axis `i`, or empty when that extent is static.
    ::llvm::StringRef getExtentName(unsigned i) const;
    /// The static size of axis `i`, or std::nullopt when it is symbolic.
    std::optional<int64_t> getStaticExtent(unsigned i) const;
    bool isReadable() const { return getMode() != ::tessel::kir::ViewMode::Out; }
    bool isWritable() const { return getMode() != ::tessel::kir::ViewMode::In; }
  }];
}

def KIR_DomainType : KIR_Type<"Domain", "domain"> {
  let summary = "a one-dimensional half-open logical domain with a positive step";
  let description = [{
    The set `{lo, lo + step, ...} ∩ [lo, hi)`. Domains and their subregions
    give every logical tensor axis its coordinate provenance.

    ```mlir
    %d = kir.domain %c0 to %n : !kir.domain
    ```
  }];
}

def KIR_BufferType : KIR_Type<"Buffer", "buffer"> {
  let summary = "a kernel-local logical buffer";
  let description = [{
    A mutable, lexically scoped resource holding a value of `valueType` (a
    scalar or a ranked tensor). It starts from a full initial value or under a
    first-write obligation (see `kir.buffer`).

    ```mlir
    !kir.buffer<tensor<?xf32>>
    ```
  }];
  let parameters = (ins "::mlir::Type":$valueType);
  let assemblyFormat = "`<` $valueType `>`";
}

def KIR_RecordType : KIR_Type<"Record", "record"> {
  let summary = "a record: named, typed fields";
  let description = [{
    A product value with named fields, used for summaries such as the
    `{max, den}` of an online softmax.

    ```mlir
    !kir.record<m: f32, den: f32>
    ```
  }];
  let parameters = (ins
    ArrayRefParameter<"::mlir::StringAttr", "field names">:$names,
    ArrayRefParameter<"::mlir::Type", "field types">:$types);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Index of field `name`, or std::nullopt.
    std::optional<unsigned> getFieldIndex(::llvm::StringRef name) const;
  }];
}

#endif // TESSEL_KIR_TYPES
