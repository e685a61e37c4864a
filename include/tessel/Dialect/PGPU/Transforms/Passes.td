//===- Passes.td - shared pgpu passes ----------------------*- tablegen -*-===//

#ifndef TESSEL_PGPU_PASSES
#define TESSEL_PGPU_PASSES

include "mlir/Pass/PassBase.td"

def PGPUFormBlocking : Pass<"pgpu-form-blocking", "::mlir::ModuleOp"> {
  let summary = "form fragments: block independent element loops and range reductions (seed 002 §3.3)";
  let description = [{
    Reads: `pgpu.foreach` worksets, `pgpu.range_reduce` reductions and
    `pgpu.range_scan` stored scans whose
    bodies are straight-line pointwise code and accesses (no nested loops,
    ifs or reductions), and the def-use dependence of each body value on the
    loop index.
    Legality: foreach iterations are independent by definition; a reduce may
    be regrouped and reordered under its associative/commutative contract
    (seed 000 §8, seed 002 §4). Ordered loops (`pgpu.for`) are never blocked.
    Rewrites: the loop over [lo, hi) becomes a `pgpu.for` over blocks of
    BLOCK members (a declared physical parameter with candidates 64..1024):
    the index becomes `iota(b)`, values that depend on it become
    `!pgpu.fragment<_, [BLOCK]>` (uniform values stay scalars and are splatted
    where they meet fragments), every access gets the lane validity
    `b + lane < hi` conjoined with its own, a reduction neutralizes invalid
    lanes with its identity, reduces the fragment with `pgpu.reduce`, and
    combines the partial with the carried accumulator. A scan visits its
    blocks in member order: lane j of a block holds the j-th member in scan
    order (reversed addresses for a reverse scan; the previous member for an
    exclusive scan, the identity before the first), invalid lanes hold the
    identity, a fragment `pgpu.scan` continues from the carried prefix, the
    emit region writes the lanes, and the block's last prefix (`pgpu.extract`)
    becomes the next carry.
    Preserves: values (a reduction or scan up to the reassociation its
    contract allows; a scan's member order is kept), effects, ABI, origins.
    Must not fire: bodies with nested control or reductions, or with tuples.
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect", "::mlir::arith::ArithDialect"];
}

def PGPURefineMapping : Pass<"pgpu-refine-mapping", "::mlir::ModuleOp"> {
  let summary = "enlarge per-element worksets: a program owns a range of the innermost axis (seed 002 §3.2)";
  let description = [{
    Reads: the program space, its single execution group, and the group body.
    Legality: the group's instances are independent (a KIR workset), and its
    body is per-element straight-line code (no loops, ifs or reductions), so
    any grouping of instances onto programs is legal. The dispatch must be the
    whole program space (one segment, linear coordinate = program coordinate).
    Rewrites: the innermost group extent E becomes ceil(E / BLOCK_P) (a
    declared parameter, candidates 256..4096), the program-space extent is
    recomputed as the product of the new extents (LaunchExpr), and the body
    moves into a `pgpu.foreach` over the owned range
    [c * BLOCK_P, min(c * BLOCK_P + BLOCK_P, E)). Form-blocking then turns the
    foreach into fragments.
    Preserves: every instance's effects and values; ABI; origins.
    Must not fire: several segments, or a body with loops or control.
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect", "::mlir::arith::ArithDialect"];
}

#endif // TESSEL_PGPU_PASSES
