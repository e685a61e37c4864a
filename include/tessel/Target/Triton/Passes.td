//===- Passes.td - Triton provider passes ------------------*- tablegen -*-===//

#ifndef TESSEL_TARGET_TRITON_PASSES
#define TESSEL_TARGET_TRITON_PASSES

include "mlir/Pass/PassBase.td"

def TritonLegalize : Pass<"pgpu-triton-legalize", "::mlir::ModuleOp"> {
  let summary = "Triton capability legalization (seed 002 §3.6)";
  let description = [{
    Reads: the current pgpu program after the shared pass groups.
    Legality: the program is shared-verifier clean.
    Rewrites: each `pgpu.range_reduce` (a reduce over a runtime extent that
    blocking left unblocked) into its legal ordered expansion, a `pgpu.for`
    carrying the accumulator, because Triton has no reduction over a runtime
    range of scalars. This is a provider expansion the reduce contract allows
    (any order is legal); it creates the loop here so that the serializer
    never creates loops (seed 002 §3.7). Likewise each unblocked
    `pgpu.range_scan` becomes a `pgpu.for` over its members in scan order
    (forward or reverse) carrying the prefix and emitting the inclusive or
    exclusive prefix at each member.
    An elementwise operand (`pgpu.binary`, `unary`, `select`, `cast`) of
    contractions spelled with FMAs (f32 operands at IEEE precision), computed
    outside the loops that contract it, every use such a contraction, in two
    loops or more (a decode fold's rotated query, read by each key loop of
    both passes), is computed again right before each contraction and the
    original erased: Triton 3.6's TritonGPURemoveLayoutConversions
    rematerializes it in one loop and reuses that copy in a sibling loop it
    does not dominate, and the compile fails (corpus 305 at its bench
    shape). Triton's LICM, after layout assignment, hoists the copies again.
    A remark says where this fired.
    Declares: Triton's launch configuration as provider parameters on each
    kernel, `#pgpu.param<"WARPS", [1, 2, 4, 8, 16], 4, provider = "triton">`
    and `#pgpu.param<"STAGES", [1, 2, 3, 4, 5, 6], 3, provider = "triton">`
    (Triton's launch defaults; contraction defaults deepen to at most 4
    stages, deeper ones are the tuner's), appended after the kernel's own declarations
    in that order; a name the kernel already declares is kept as it is. The
    tuner searches them like any declared parameter (seed 003), and the
    serializer passes their bound values as `num_warps=` and `num_stages=`
    (STAGES also as the `num_stages` of a tile program's reduction loops
    that load boxes, which Triton would not pipeline: TileAccess.h,
    pipelinesLoads).
    When the legalized kernel has a box access (a 2-d load or store whose
    coordinates are start + arange (or offset + start + arange) along
    distinct fragment axes, the view's last axis among them, any other
    coordinate a scalar or a splat of one, validity exactly the view's bounds,
    zero fill), also
    `#pgpu.param<"TMA", [0, 1], 1, provider = "triton">` (default 0 when a box
    has scalar axes, measured slower for attention's tiles; a kernel whose
    contraction accumulates a free output tile (a batched GEMM) takes 1
    nonetheless, since its pointer loads along a tile axis lose their
    vector width in Triton's flattened walk): with 1 the
    serializer spells box accesses as tensor descriptors beside the pointer
    spelling, and the wrapper picks one per call by TMA's alignment rules.
    A box outside every loop over a launch-time range, in a kernel that
    also has a box in such a loop, keeps the pointer spelling and does not
    count here (one tile per program does not pay for a descriptor made on
    the device; TileAccess.h).
    When a `pgpu.for` walks execution-group instances (a persistent
    traversal), also `#pgpu.param<"FLATTEN", [0, 1], 0, provider = "triton">`:
    with 1 that loop is spelled `tl.range(..., flatten=True)`.
    A `pgpu.for` of unit step that carries values (an author's recurrence:
    its step cannot widen, so each iteration waits for its own loads), with
    no loop, contraction or access but pointer loads and stores in its body,
    that loads a fragment from a view it does not write without reading its
    carries (Triton.h, prefetchesRecurrence), is spelled
    `tl.range(..., num_stages=STAGES)`: Triton pipelines loads that feed no
    tl.dot only so, issuing those of the next STAGES - 1 iterations ahead of
    the recurrence; the resource model counts STAGES buffers of each of its
    loads in shared memory.
    A `pgpu.for` that walks a range in steps carrying values (a reduction's
    accumulator: a long row's blocks, a column fold's row tiles, a split fold's
    segment, a blocked scan's prefix), innermost, with no contraction or
    access but pointer loads and stores of the kernel's views (none both read
    and written) in its body, loading a fragment without reading its carries,
    outside a finalization, and spelled by neither rule above (Triton.h,
    pipelinesWalk), makes the kernel declare
    `#pgpu.param<"LOOP_STAGES", [1, 2, 3, 4], 3, provider = "triton">` (the
    default lowered to the deepest candidate whose buffers fit the shared
    memory and hold at most 32 KiB at the declared defaults; 1 where such a
    loop addresses its lanes through carried lane divisions, a flattened walk
    over several axes: its pointers are not contiguous, so a pipeline would
    hold each stage's lane pointers in registers, said by a remark; 1 too
    where a walk loads sliding windows, a coordinate summing two lane-to-lane
    unit steps along different axes, x[s, lo[c] + r], whose overlapping reads
    hit L1 and gain nothing from cp.async copies): such a loop is spelled
    `tl.range(..., num_stages=LOOP_STAGES)` where LOOP_STAGES > 1, `range`
    at 1. Triton copies each fragment it loads LOOP_STAGES - 1 iterations
    ahead into as many shared-memory buffers (sm_90 TTGIR, Triton 3.6), which
    the resource model counts.
    Defaults: a fold or scan tile (a `pgpu.for` step that is a declared
    parameter covering no shape symbol) that sizes an operand of a contraction
    spelled with FMAs (f32 operands at IEEE precision: Triton's FMA lowering
    holds each thread's operand rows and columns in registers) defaults to its
    smallest candidate tl.dot takes (16); WARPS follows. Tensor-core
    contractions keep their declared tiles. A free accumulator tile (a GEMM's)
    contracted with FMAs shrinks, columns first, until each thread's share e of
    it and the operand rows and columns of that share for the K tile k,
    e + 2 k sqrt(e) registers, fit 255 (fewer past 8 warps), and grows only
    while they do. A fold's program (a contraction in a loop that starts from
    zero and whose tile is reduced: the scores of a region fold) whose reduced
    tile feeds another contraction (attention's P.V) has no free accumulator
    tile: the K loops of kir-to-pgpu's looped variant share the fold tiles'
    parameters, which keep the fold's declared defaults. A fold whose product
    is only reduced (a logsumexp or softmax over the rows of x @ W^T) grows
    its accumulator tile like a GEMM's.
    A kernel with a staged row path of pgpu-stage-rows (`pgpu.if` without
    results on `lo < hi && hi - lo <= BLOCK` whose else-branch loops step by
    BLOCK) gains BLOCK candidates, doublings of its largest, while the row
    block at the widest element of a BLOCK fragment on that path takes at
    most half the register file (128 KiB: 32768 f32 values at 16 warps), so
    that a row longer than 16384 is still read once from memory.
    Preserves: values, effects, ABI; origins (the loop takes the reduce's or scan's location).
    Verifier after: the shared pgpu verifier; the serializer then proves every
    remaining op has a unique Triton spelling or rejects it.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect", "::mlir::arith::ArithDialect"];
}

#endif // TESSEL_TARGET_TRITON_PASSES
