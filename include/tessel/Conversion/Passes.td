//===- Passes.td - conversion passes -----------------------*- tablegen -*-===//

#ifndef TESSEL_CONVERSION_PASSES
#define TESSEL_CONVERSION_PASSES

include "mlir/Pass/PassBase.td"

def ConvertKIRToPGPU : Pass<"kir-to-pgpu", "::mlir::ModuleOp"> {
  let summary = "construct the complete initial physical program from KIR (seed 002 §3.1)";
  let description = [{
    Reads: each verified `kir.kernel` and its canonical facts (domains, coordinate provenance of every
    tensor axis, effects).
    Legality: the kernel's top level computes only launch-time facts (constants, extents, constexprs,
    domains) and unordered `kir.parallel` worksets; worksets must not touch a view another workset
    writes (one kernel is one launch with no cross-instance barrier, seed 000 §9).
    Rewrites: replaces the kernel by a `pgpu.kernel` with the same ABI and one `pgpu.program_space`:
    one-dimensional segments per workset in order, with LaunchExpr lengths, prefix offsets, explicit
    dispatch guards and `pgpu.execution_group` bodies. Ownership is scalar: each program instance owns
    one point of its workset, and every logical tensor is realized element by element (pure producers
    are rematerialized at each use; reductions and contractions become ordered physical loops with
    carried accumulators). Every access gets explicit coordinates, validity and fill at once. Blocking
    into fragments is the job of later pass groups.
    Preserves: KIR semantics, the ABI (argument names, modes, extents), compile options, and origins
    (every physical op takes the location of the KIR op it realizes).
    Rejects, with a diagnostic at the KIR op: constructs this construction does not realize yet.
    Verifier after: the construction verifier (coverage) and the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect", "::mlir::arith::ArithDialect"];
}

#endif // TESSEL_CONVERSION_PASSES
