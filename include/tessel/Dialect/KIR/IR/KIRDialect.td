//===- KIRDialect.td - the canonical kernel IR dialect -----*- tablegen -*-===//
//
// `kir` holds what a kernel author means and nothing physical: no grid, tile,
// mask or layout (ARCHITECTURE.md §2.1). It is immutable once construction of
// the physical program starts; canonical analyses key on its stable origins.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_KIR_DIALECT
#define TESSEL_KIR_DIALECT

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def KIR_Dialect : Dialect {
  let name = "kir";
  let cppNamespace = "::tessel::kir";
  let summary = "tessel's canonical kernel IR: logical domains, values, structured ops and effects";
  let description = [{
    A `kir.kernel` is one launch with a public ABI: external views with an
    access mode, element type and named symbolic extents, runtime scalars, and
    constexpr specialization values. Its body is logical: domains and
    subregions, unordered `kir.parallel`, ordered `kir.for`/`kir.while`/`kir.if`
    with carries, pointwise math on scalars and logical tensors, structured ops
    (reduce, arg_reduce, scan, region_fold, region_scan, contract, histogram)
    with typed pure regions, and effects (load/store, gather, scatter,
    scatter_reduce, atomics, logical buffers).

    Every tensor axis in KIR originates from a domain (through `kir.indices`,
    `kir.load`, `kir.broadcast`, ...), so coordinate provenance is a def-use
    fact, not a side record. The module attribute `kir.compile_options`
    carries the numerical permissions of seed 002 §1.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let extraClassDeclaration = [{
    /// Name of the module attribute holding `#kir.compile_options`.
    static constexpr ::llvm::StringLiteral getCompileOptionsAttrName() {
      return ::llvm::StringLiteral("kir.compile_options");
    }
  private:
    void registerTypes();
    void registerAttributes();
  public:
  }];
}

/// Base class: every kir op is in the dialect and carries a location, which the
/// annotate-origins pass turns into a stable origin id (see Passes.td).
class KIR_Op<string mnemonic, list<Trait> traits = []>
    : Op<KIR_Dialect, mnemonic, traits>;

#endif // TESSEL_KIR_DIALECT
