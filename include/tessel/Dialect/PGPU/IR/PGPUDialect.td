//===- PGPUDialect.td - the shared physical GPU program IR -*- tablegen -*-===//
//
// `pgpu` implements seed 000 (shared executable GPU program IR): a
// provider-neutral, launchable block program. It holds program space,
// execution groups, LaunchExpr, fragments, views, buffers, accesses with
// validity and fill, structured ops and structured control — and nothing of
// seed 000 §11 (no provider spelling, layouts, address spaces, TMA/WGMMA,
// pipeline stages, autotune winners).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_PGPU_DIALECT
#define TESSEL_PGPU_DIALECT

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def PGPU_Dialect : Dialect {
  let name = "pgpu";
  let cppNamespace = "::tessel::pgpu";
  let summary = "tessel's shared executable GPU program IR";
  let description = [{
    A module carries a `pgpu.target` capability attribute and one or more
    `pgpu.kernel`s, each one artifact and one launch. A kernel's arguments are
    the public ABI (views, scalars) plus compiler-private parameters
    (invocation workspace buffers, wrapper-computed scalars). Physical
    parameters (tile extents, grouping, provider knobs) are declared with
    their candidate domains in `params` and read with `pgpu.param`.

    The body holds exactly one `pgpu.program_space`: its extents are LaunchExpr
    values (computed only from constants, parameters, ABI scalars and view
    shape/stride metadata) that the launch wrapper evaluates to form the grid;
    its region runs once per program instance, with the program coordinates as
    arguments. Inside, `pgpu.execution_group` regions hold the worksets,
    fragments are statically shaped SSA values whose coordinates are explicit
    def-use from program coordinates, and every access carries its
    coordinates, validity and fill (or effect).
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let hasConstantMaterializer = 1;
  let extraClassDeclaration = [{
    /// Name of the module attribute holding `#pgpu.target`.
    static constexpr ::llvm::StringLiteral getTargetAttrName() { return ::llvm::StringLiteral("pgpu.target"); }
    /// Argument attribute marking a compiler-private kernel parameter.
    static constexpr ::llvm::StringLiteral getPrivateAttrName() { return ::llvm::StringLiteral("pgpu.private"); }
    /// Argument attribute of an integer view whose values are coordinates: `[[target, axis], ...]`,
    /// each value must lie in [0, extent of axis `axis` of argument `target`) (kir/IndexFacts.h).
    /// An ABI fact: the wrappers' checked launch mode validates it before a launch.
    static constexpr ::llvm::StringLiteral getIndexesAttrName() { return ::llvm::StringLiteral("pgpu.indexes"); }
  private:
    void registerTypes();
    void registerAttributes();
  public:
  }];
}

class PGPU_Op<string mnemonic, list<Trait> traits = []> : Op<PGPU_Dialect, mnemonic, traits>;

#endif // TESSEL_PGPU_DIALECT
