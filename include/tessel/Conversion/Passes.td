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
    carried accumulators). A `kir.for` carrying tensors whose body is elementwise along the carried
    axes (CarriedTensors.cpp, seed 000 §5, seed 002 §3.3) runs position by position: the carried axes
    are free (a `pgpu.foreach` when the loop writes, else the reader's positions) and each position is
    the same ordered `pgpu.for` carrying its element as a scalar; anything that reads the carry across
    positions is rejected at the op. Every access gets explicit coordinates, validity and fill at once. Blocking
    into fragments is the job of later pass groups, with one exception (FoldWorkset.cpp):
    Fragment construction of region-fold worksets (seed 002 §3.4): a workset whose body holds a
    `kir.region_fold` and whose values all have coordinate provenance (loads at index and domain
    coordinates, gathers whose index tensors have it, pointwise ops, broadcasts, single-axis
    reductions, two-dimensional contractions, constexpr branches, stores, and writes of a
    kernel-level `kir.buffer` at the member's coordinates, stored as a view's are) is constructed with each KIR
    value as one pgpu value: the innermost
    parallel axis becomes BLOCK_<X> lanes per program (X the extent's name) where some fold holds a
    contraction (a block of members shares each source tile in one tile product); a workset whose
    folds hold none has no lanes (each program owns one member, as the row path of the same math
    written as reductions) and, where its values have no free axis, its fold tiles are row blocks
    with form-blocking's BLOCK candidates, default and covering (64 to 16384, 512, the call's
    default covering the row's extent: one tile, the row read once); where the body defines a
    domain of its own (bounds loaded per member, the fold's axis) the fold runs to the member's bound,
    with the lanes kept only if that bound and the fold's values are the same for them (else each
    program owns one member); where a contraction's operands both vary across the lanes (each member
    its own keys: single-query decode), the lanes are gathered by group when the lane h reaches them
    only through `h // G` (G a launch fact: each program owns lanes of one group, BLOCK_<X> default
    16, `h // G` its scalar, the group's key tile shared), else another parallel axis whose members
    share the operand is the lane axis (innermost first: the tokens of `for t, h in
    T.parallel(toks, heads)` reading `k[keys(t), h]`), else each program owns one member. A member
    domain whose bounds vary across the lanes (a subregion of a launch-time domain of step 1, one bound
    the lane's coordinate plus or minus a value of the program: a packed token's causal keys
    `toks[start(t):t + 1]`) is a fold tile walked over the union of the block's valid lanes' ranges
    (reduced before the fold), each lane masking the members outside its own in the [lanes, tile]
    validity of its reductions and contractions (seed 002 §3.4); both bounds data (one sequence per
    lane) may be disjoint ranges and leave no lanes; every
    other tensor axis a
    fragment axis of BLOCK_<D> members under one uniform guard `size <= BLOCK_<D>` (else the program
    walks its lanes element by element; but where the axes past their blocks are only reduced by
    contractions, a GEMM's K, the looped variant instead: each contraction over such an axis is a
    `pgpu.for` over TILE_<D>-wide blocks of it (16..128, default 64) whose body reads the operands'
    blocks and adds their product into the carried accumulator, ContractLoops.cpp); a lane's own dot
    product (both operands per lane, only the paired axis: a gathered row against the lane's row) is a
    product and a reduction per lane, and `kir.extract` of its rank-0 result the same value; and the fold a `pgpu.region_fold` over BLOCK_<T>-wide source
    tiles whose summarizer keeps `pgpu.contract` and `pgpu.reduce` (padded members neutralized by
    selects against the axis validity). A store over a fold's tile domain of a row computed there by
    a contraction (a softmax of scores written out, read with the folds' results) is a traversal of
    that domain of its own after the folds: a `pgpu.for` stepping by BLOCK_<T>, the stored value
    recomputed per tile (the contraction a tile product) and stored under the tile's validity; what it
    reads that does not range over the tile is realized once before the loop. A row read from memory
    keeps the element-wise construction (the row path after it). Widening casts of 16-bit floats into both contraction operands
    are absorbed (exact); under `numerics = relaxed_normalization` an f32 weight is rounded to its
    16-bit value operand's dtype. Other worksets, and these when something has no fragment form, keep
    the element-wise construction (a remark says why).
    Preserves: KIR semantics, the ABI (argument names, modes, extents), compile options, and origins
    (every physical op takes the location of the KIR op it realizes).
    Rejects, with a diagnostic at the KIR op: constructs this construction does not realize yet.
    Bounded (issue 47): replay rebuilds a value's producers at every position a consumer reads it
    at, so a chain of reductions each reading the one before at other positions (a row sum, a
    column sum of the row-normalized matrix, a row sum of that, ...) would build 2^chain copies.
    Past `max-ops` physical ops (or 16 a KIR op of the kernel, where that is more: a long straight
    chain is no replay) built for one kernel construction stops with an error at the KIR
    op being replayed and a note at the most replayed reduction (kir-row-parallels keeps such
    chains in buffers first; the bound catches what it does not), never a compile that does not end.
    Verifier after: the construction verifier (coverage) and the shared pgpu verifier.
  }];
  let options = [
    Option<"phaseReductions", "phase-reductions", "bool", /*default=*/"true",
           "phase whole-view scalar reductions that element-wise worksets replay (PhasedReductions.cpp): "
           "needs a provider that spells the wait (an acquire load in a while loop)">,
    Option<"maxOps", "max-ops", "uint64_t", /*default=*/"20000",
           "the most physical ops construction builds for one kernel, or 16 a KIR op where more (0: no "
           "bound); past it, an error at the op being replayed">
  ];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect", "::mlir::arith::ArithDialect"];
}

#endif // TESSEL_CONVERSION_PASSES
