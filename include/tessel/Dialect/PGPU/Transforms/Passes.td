//===- Passes.td - shared pgpu passes ----------------------*- tablegen -*-===//

#ifndef TESSEL_PGPU_PASSES
#define TESSEL_PGPU_PASSES

include "mlir/Pass/PassBase.td"

def PGPUFormBlocking : Pass<"pgpu-form-blocking", "::mlir::ModuleOp"> {
  let summary = "form fragments: block independent element loops and range reductions (seed 002 §3.3)";
  let description = [{
    Reads: `pgpu.foreach` worksets, `pgpu.range_reduce` reductions and
    `pgpu.range_scan` stored scans whose
    bodies are straight-line pointwise code and accesses (no nested
    reductions; ordered loops and ifs as below), and the def-use dependence
    of each body value on the loop index.
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
    becomes the next carry. A scatter-reduce in a foreach becomes a fragment
    scatter-reduce with lane validity and the same combine (lanes that hit
    one element combine, seed 000 §6; uniform coordinates are splatted).
    Workspace is read and written at explicit coordinates like a view: a
    buffer_store to workspace at coordinates that depend on the index is a
    fragment store with lane validity (a kept sum the last program returns
    to zero, pgpu-member-partials); other buffer scopes are not blocked.
    First, range_reduce siblings in one block over the same [lo, hi), with
    straight-line elements, the later using nothing defined from the earlier
    on (so not its results) and nothing between them reading or writing a
    view or buffer the later one reads (a store to another view, pure ops
    and reads are fine), are one range_reduce at the earlier: its element
    both elements on the same member, its combine both combines side by
    side (seed 000 §8: each component's members and combine are unchanged),
    so one walk reads a block once for all of them (a layer norm backward's
    sum(g * xhat) and sum(g) per row; its dw and db over the rows per column).
    Likewise sibling foreach loops over the same range (the bounds the same
    value, or the same pure computation: refine-mapping's row loops each
    compute their own), with straight-line bodies, the later's body using
    nothing defined from the earlier on, only pure ops between them, neither
    writing a view or buffer the other accesses, and both reading a common
    one, are one foreach at the earlier whose body is both bodies on the same
    member (seed 000 §5: their members run in any order, and neither loop's
    effects touch the other's), so a block reads what they share once (a
    2x2 max-pool's windows, read by its value loop and its argmax loop).
    A perfect nest (each outer loop's body is only the next loop and the
    yield of its results) of foreach loops, or of range_reduce loops with the
    same identities and combine, whose inner bounds do not depend on the outer
    members, is first one loop over the product of their member counts:
    member f stands for `lo_j + (f / (n_{j+1} * ... * n_k)) % n_j` of loop j
    (div/rem of index fragments), so blocking fills BLOCK lanes however short
    each axis is (a group's channels x rows x columns); kept only when that
    loop blocks and, for a foreach nest, when every store's coordinates
    depend on every loop's member. BLOCK then covers no symbol.
    Where every blocked loop spans [0, S) of a named view axis S (or a
    slice of a row bounded by S), BLOCK declares `covers = "S"`; where every
    one walks a slice of one constant width w clipped to its row
    (construction's max(min(s + w, C) - max(s, 0), 0), its end and start one
    value plus constants: a row's blocks of 128 columns, a window of 5
    neighbours) or a constant range [0, w) (a 64x64 matrix's row),
    `covers = "w"`, the number: a call's default is then the smallest
    candidate holding the row (seed 003: a fact of the program). Ranges of
    different constant widths (a quantizer's group of 128 columns, then its
    64 packed pairs: corpus 120) cover the widest.
    A `pgpu.if` in a blocked body (an author's `if` per member, seed 000 §5)
    is if-converted: both branches run on every lane, each branch's reads and
    writes masked by its lanes (the lanes valid so far whose condition holds,
    or fails; a read at one address for every lane is spread over the lanes
    so that mask applies: its address may be out of range for the others),
    each result a lane-wise `pgpu.select` of the branches' values. A branch
    holding what cannot be blocked (a reduction) leaves the loop unblocked.
    An ordered `pgpu.for` inside a foreach body whose bounds are the same
    for every lane (an author's loop per member: a recurrence over time per
    channel, an accumulator over a bag's items per column) is kept ordered
    and run by all lanes together: a carry that depends on the lane becomes
    a fragment (found by cloning until the yields agree), the others stay
    scalars (seed 002 §3.3: the free axis blocked, the ordered one kept).
    An inner range_reduce directly in a range_reduce's element, with
    straight-line regions, bounds defined outside the outer element, and a
    read whose last (contiguous) coordinate depends on the outer member and
    not on the inner one while another coordinate depends on the inner one
    (the classes c of NCHW logits[n, c, h, w] inside a sum over the pixels
    w), becomes its ordered loop (a `pgpu.for` step 1 carrying the
    accumulator, combined member by member: one order of its associative,
    commutative contract), when every nested region of the outer element is
    such a reduction: the outer reduction is then the one blocked, its lanes
    consecutive elements, the ordered loops run by all lanes together (as
    above), and a nest of alike reductions whose innermost element holds
    such loops (their bounds constants or defined outside the nest) is
    flattened first as a straight-line one is. Blocking the inner one
    instead left the pixels a scalar loop (corpus 270). Must not fire where
    the inner read walks its own axis contiguously (a sum of row maxima).
    Likewise inner reductions in a foreach's body (workspace reads count as
    reads) whose range spans at most a constant number of members whatever
    the outer one (constant bounds, or a slice of constant width clipped to
    its axis, SliceWidth.h: a separable blur's window of rows
    [max(i - R, 0), min(i + R + 1, H)), corpus 348): the columns are the
    lanes, each trip of the window one read of consecutive columns (before:
    each column a trip of a scalar loop, its block holding at most 2R + 1
    rows). An inner range of unknown length keeps its blocking.
    A foreach over the members one program owns ([lo, min(lo + P, n)) with
    P a declared parameter, pgpu-refine-mapping's) that holds such a loop
    is one block of P lanes, so the ordered loop runs once per program.
    A kernel-level reduction (the only range_reduce of an execution group
    without axes, construction's one instance for `loss[0] = T.sum(...)`,
    with launch-uniform bounds) becomes a `pgpu.region_fold lo to hi step
    BLOCK` instead of a loop (seed 002 §3.4): summarize is one block of
    members (invalid lanes the identity) as a [BLOCK] fragment, combine the
    reduction's combine lane-wise, the summarize region closed over what it
    uses (operands; constants cloned in), and the [BLOCK] summary is reduced
    to the scalar once after the fold, so pgpu-split-folds may cut the
    blocks across programs (one program would otherwise walk the whole
    range: 97_mse_loss_grad's 64M elements).
    Last, the lanes of a block loop (iota(b), b the loop's index) divided by
    index scalars defined outside the loop and provably non-negative (a
    flattened nest's coordinates, div/rem chains of them), not all
    constants, are carried instead of divided per lane: with floor division
    and P > 0, (b + j) / P = b / P + j / P + c and (b + j) % P = b % P +
    j % P - c P, c = (b % P + j % P >= P), so j / P, j / P + 1 and j % P are
    computed once before the loop and each block does one scalar b / P and
    b % P and a compare and selects per lane; (x / a) / d is x / (a d) and
    (x / a) % d is x / a - (x / (a d)) d. A divisor that may be 0 (an empty
    extent; KIR's x / 0 = x % 0 = 0) clears the carry and selects 0 for a
    nested remainder: the values are exactly the divisions'. Per-lane
    integer divisions by a runtime value cost tens of instructions each on
    the GPU and bound the walk of a reduction over (n, h, w) of NCHW.
    Preserves: values (a reduction or scan up to the reassociation its
    contract allows; a scan's member order is kept), effects, ABI, origins.
    Must not fire: bodies with other nested control or reductions, with
    tuples, or with an ordered loop whose bounds depend on the lane;
    fusing foreachs: other ranges, a loop reading or writing what the other
    writes, an effect between them, or no view both read;
    flattening: triangular or imperfect nests, nests of unlike reductions,
    stores that repeat an element across an outer loop; merging: a
    reduction that uses another's result (a variance about the mean: its
    walk needs the mean first), other ranges, a view written between them
    that the later one reads, elements holding loops; carrying: a
    constant divisor (a shift or a multiply already), a divisor computed in
    the loop or not provably non-negative, lanes that are no loop's block.
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect", "::mlir::arith::ArithDialect"];
}

def PGPUSinkReads : Pass<"pgpu-sink-reads", "::mlir::ModuleOp"> {
  let summary = "a view read used only after a loop or other region op is made just before its first use (seed 002 §3.4)";
  let description = [{
    Reads: every `pgpu.load` and `pgpu.gather` of a writable view
    (`inout`, `out`; construction places an `in` view's read where it is
    first needed, or before a reduction on purpose), the ops after it
    in its block up to the first one that uses its result (that op itself
    or an op nested in it).
    Construction realizes an in-place update's reads of its view before the
    stored value (KIR reads the view where the load stands, seed 000 §4):
    `c[rows, cols] = alpha * T.matmul(a, b) + beta * c[rows, cols]` reads
    its tile of c before the contraction's K loop, so the tile is held live
    across the loop beside the accumulator (a [128, 128] f32 tile is 64
    more registers a thread: spills, or fewer pipeline stages). An epilogue
    read belongs after the loop, where it is first used.
    Rewrites: the read moves to just before the op of its block that first
    uses it, when a region op (a loop, a reduction, a branch) lies between
    them; between pure ops it stays (nothing is gained).
    Legality: the read reads the same elements at its new place: it moves
    only past pure code, reads, and stores or scatters of other views, at
    any depth (every wrapper rejects a written view whose memory overlaps
    another view's).
    Preserves: values, the effects on written views (a read of a view still
    precedes every write of it that followed it), ABI, origins.
    Must not fire: a read of an `in` view; a read whose first use is its
    next region op (the contraction's own operand: it stays before the
    loop, never moves into it); a read with a store or scatter of its view
    between it and its first use (it would read the stored values), or any
    other effect between them (an atomic, a scatter-reduce, a last-program
    finalization, a wait: another program's writes may be ordered there).
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect"];
}

def PGPUFormTiles : Pass<"pgpu-form-tiles", "::mlir::ModuleOp"> {
  let summary = "multi-axis tiles for contraction nests: program mapping and fragments together (seed 002 §3.2-§3.4)";
  let description = [{
    Reads: the program space, its single execution group, the chain of
    `pgpu.foreach` at the top of the group (each preceded only by
    effect-free code) and the straight-line program body inside it with its
    `pgpu.range_reduce` ops; the def-use dependence of every value on each
    program and loop axis.
    Legality: foreach iterations and group instances are independent, so any
    grouping of them onto programs is legal; an add-reduction may be regrouped
    (seed 000 §8); the products of f16/bf16 values are exact in f32, so the
    widening casts of a contraction's operands may move into the contraction;
    so are those of i8 values in i32, whose sums wrap alike in any order (an
    i32 sum of two sign-extended i8 operands is the i8 contraction with an i32
    accumulator; no other integer product is contraction-shaped). An f32
    operand against a widened bf16 one is split exactly into three bf16 parts
    (`pgpu::splitBF16`: hi + mid + lo = x), one bf16 contraction each into the
    same accumulator: the products stay exact, only the sum is regrouped.
    Fires when some reduction is contraction-shaped (`sum_k x * y`, x
    depending on one free axis and k, y on another free axis and k): blocking
    both free axes reuses each loaded operand element across the other axis.
    An operand free on several program axes (a convolution tap's window
    x[n, oh + kh - 1, ow + kw - 1, c], free on n, oh and ow, against weights
    free on oc) is tiled along one of them, the axis of its read's innermost
    coordinate that holds one (else the innermost program axis); the others
    stay one member per program, like batch axes (seed 002 §3.3).
    Also fires on a straight-line nest whose accesses' innermost coordinates
    walk two different program axes (a transpose): blocking both gives every
    access contiguous runs (tiles of 16..128, default 64). And on a
    straight-line nest whose accesses (reads, gathers, writes, scatters) all
    walk the innermost of three or more program axes, w, with every write also
    depending on the axis r just outside it (a pool's window, a channel
    copy, an NCHW elementwise plane): r and w are blocked as [TILE_r, TILE_w]
    row tiles (TILE_r 1..32, default 8; TILE_w 16..256, default 64,
    covering w's extent where it is a named view extent), the other axes one
    scalar a program, so coordinates are decoded once per program where the
    flat walk of pgpu-refine-mapping decodes two or more row coordinates for
    every lane (issue 41). Not with two program axes (an [M, N] map's flat
    walk decodes one, its long rows vectorized), unless the map is pairwise:
    no reduction, every read on one of the two axes (none of a view it
    writes), at least one on each
    (box IoU's a[i, c] and b[j, c], read before and inside the walk of j),
    so each read serves a whole tile instead of b being read again per row;
    nor where w's extent is a
    constant under 16 (the flat walk packs such narrow rows densely).
    Such a nest may hold reductions (a local response norm's sum of squares
    over a clipped window of channels, x[n, c', h, w] for c' in [c - 2,
    c + 3), per output element) when their reads walk w too (never their
    members) and each result depends on both r and w: each reduction walks
    its members one a trip (`pgpu.for` step 1), each trip a [TILE_r, TILE_w]
    tile combined into the carried tile, so every trip reads contiguous rows
    of one channel's plane.
    Rewrites: the foreach chain becomes program axes; each contraction free
    axis is blocked by a declared parameter TILE_<axis> (candidates 16..256),
    other program axes stay scalar; every range_reduce becomes a `pgpu.for`
    over blocks of TILE_K (16..128) members. Values become fragments over the
    blocked axes they depend on; accesses conjoin the validity of those axes;
    contraction-shaped reductions become `pgpu.contract` of the operand tiles
    into a carried accumulator (operands zero on invalid k lanes; a sole
    same-dtype addition consumer whose other addend is already computed and
    uniform, a splat of a scalar, merges into the accumulator's initial
    value; so does an addend that is an earlier contraction's accumulator of
    the same tile used only by this addition, so a sum of contractions (a
    convolution's taps) is one accumulator over their joined k ranges, an
    implicit GEMM; any other fragment addend stays an addition after the
    loop), other
    reductions `pgpu.reduce` along k and combine into the carry. The grid is
    the product of the new extents (LaunchExprs). When the target states its
    multiprocessor count, contraction tiles are walked persistently:
    min(tiles, PERSIST * multiprocessors) programs (PERSIST in 1, 2, 4;
    default 1) each run a `pgpu.for` from their program coordinate over the
    tiles with that stride, the execution group inside it.
    Nests (seed 002 §3.3-§3.4): a contraction C1 in the element body of a
    contraction C2 over r (construction realizes C2's operand, a pointwise
    function of C1, per member r: a LoRA delta `sum_r f(sum_k x a) b`) is
    tiled when C1's free axes are a program axis and r and C1's bounds do
    not depend on r: r is blocked by its own TILE_<axis> (one block covers a
    constant extent: candidates up to its power of two, at least 16; else
    16..128, default 64); inside the loop over r blocks C1 accumulates its
    [TILE_<program axis>, TILE_<r>] tile over TILE_K blocks, f applies to the
    tile, and C2 contracts it as its left operand (C1 recomputed per r block).
    C2 may be any other reduction over r of f(C1) (a bias gradient's column
    sum of dy * act'(x w + b), a row maximum of a product): the tile is then
    reduced along r (`pgpu.reduce`, invalid r lanes at the identity) into
    C2's carry, as any reduction of the program body.
    Member-walked nests: when C1's free axes are two program axes p and q and
    an operand reads r besides (a lightning indexer's `sum_h w[t, h]
    relu(sum_d q[t, h, d] k[s, d])`; per-head keys k[s, h, d] alike), C2 is no
    contraction, its result spans p and q, and C1's bounds do not depend on
    r, r is walked one member a trip (`pgpu.for` of step 1, no parameter): C1's
    [TILE_p, TILE_q] tile is accumulated by its K loop per trip, f applies to
    the tile, and C2 combines it into its [TILE_p, TILE_q] carry.
    Gram nests (issue 41): a reduction R over t in the program body whose
    element is a reduction S over s whose element holds contractions
    C_i(t, s) = sum_k x_i(t, k) y_i(s, k) and pointwise code (ghost
    clipping's sum_{t,s} (A A^T)[t, s] (G G^T)[t, s] per sample), every
    reduction in S's element such a contraction, S's bounds free of t and
    the contractions' free of t and s, in a group with or without axes (a
    kernel-level sum: SigLIP's pairwise loss, its fold spread by
    pgpu-split-folds): t and s are blocked by their own
    TILE_<axis> (16..128, default 64), each C_i is a [TILE_t, TILE_s] tile
    accumulated by a K loop of `pgpu.contract`, S reduces the function's
    tile along s into a [TILE_t] carry, and R becomes a `pgpu.region_fold`
    over t blocks (summary the block's [TILE_t] members, invalid lanes at
    R's identity; combine R's, lane-wise) reduced to the scalar after it,
    so pgpu-split-folds may cut a sample's t blocks across programs (the
    group is not walked persistently). Launch-time values are cloned into
    the summarize region, the rest captured. Other nests two deep keep the
    reason they had: "the program body has nested loops, ...".
    When r is one block of a contraction C2 (a constant extent of at most 16) there is no r loop,
    and C1 accumulates in the K loop of an earlier contraction of the program
    body with the same k range when its element body reads only values
    computed before that loop: one loop, two carries, and a load of the same
    view at the same lanes (the X tile of a LoRA) read once for both.
    Segments (seed 000 §3: a ragged domain whose length requires reading
    device data stays in the program body): when the group's first foreach
    has bounds read in the program (pure code, reads and read-only reductions
    over the group's coordinates before it; the ragged grouped GEMM's rows
    from OFFS), also under construction's dispatch guard beside a
    last-program finalization, and it is a contraction's free axis, the grid
    is PERSIST * multiprocessors programs, capped where the segment's bounds
    are clamped to launch-time values (lo >= L, hi <= U: the DSL's rows[lo:hi]
    of T.domain(0, M)) by the walk's most tiles, max(1, members x
    ceil(max(U - L, 0) / TILE) x later tiles); each walks the group's members in
    order (`pgpu.for`, carrying the count of tiles before), reads the
    member's bounds, and takes every programs-th of that segment's
    ceil(extent / TILE) x (later tiles) tiles (grouped traversal), its lanes
    valid below the read upper bound.
    A non-contraction reduction nested in a product's element body that does
    not depend on the member (an RMSNorm's row sum of squares, replayed per k
    by construction: its bounds and reads are defined outside the element
    body) is moved before the enclosing reduction with the pure code over it
    (not integer division) when the nest is otherwise rejected, and the nest
    analyzed again (put back if it still does not tile): a loop over the row
    tile's TILE_K blocks reduces it to a [TILE_<row>] fragment before the
    contraction's K loop (HoistNestedReductions.cpp).
    A loop that adds a reduction to its one carry on every trip (a
    block-sparse product's loop over a CSR row's blocks e, each block's
    contraction over k added to the accumulator: `for e: acc += sum_k
    x(e, k) y(e, k)`, as construction realizes it per output element), whose
    inner range does not depend on the trip, whose trip code is pure or
    reads, and whose combine is an add with identity zero, is one
    add-reduction over the flattened members t in [0, n W) (e = lo + t / W,
    k = klo + t % W; seed 000 §8 lets the sum be regrouped; the loop's init,
    unless zero, is added to it) when the nest is otherwise rejected; kept
    only where the nest then tiles (FlattenCarriedSums.cpp). The BSR product
    becomes a segment walk of [TILE, TILE] output tiles whose K loop runs over
    the row's blocks, a contraction of the value block with the gathered rows
    of the dense operand.
    Author loops (seed 000 §5 ordered loops with carries; tried last, when
    nothing above tiles the group): a `pgpu.for` in the program body with
    scalar carries, bounds and step that do not depend on the program axes,
    and a body of pointwise code, reads and reductions (none nested in
    another; no writes, control or loops) -- construction's per-element
    replay of a kernel-level `for` carrying tensors, as a block-scaled FP8
    GEMM's loop over K blocks: acc += (sum_k a b) * sa[m, kb] * sb[n / 128,
    kb] -- runs the same trips for every member of a tile, so it runs once
    per tile: each carry becomes a fragment over the blocked axes it depends
    on (its init's and its trips', to a fixed point), each trip is tiled like
    the program body (a contraction a TILE_K loop of `pgpu.contract` from its
    zero identity, then the trip's pointwise code on the tiles, per-row and
    per-column values as broadcast fragments), in the source's order. A
    trip's contraction over a slice of constant width w <= 128 (`ks[kb * 128
    : kb * 128 + 128]`, clamped: pgpu::clippedWidth) is one block of lanes
    covering it, its own parameter TILE_<axis> with the one candidate
    max(32, the power of two covering w) and `covers = "w"`: no K loop in the
    trip, so the author loop is the innermost loop (a provider pipelines its
    loads across trips). A
    contraction whose only use is `carry + sum`, yielded as that carry, the
    carry used nowhere else, accumulates into the carried tile (seed 000 §8:
    the add-reduction regrouped). Requires a contraction in the group; not
    in a segment walk. Remark: "a loop in the program body runs once per
    tile, carrying tiles".
    Several segments (construction's dispatch chain, pgpu::dispatchChain:
    one kernel computing several products stored to different outputs, as
    a QKV projection's three): each segment's group is analyzed and tiled on
    its own, as a sole group would be but without a grid-stride walk across
    segments; its count in the chain's bound and shift becomes the product of
    its tiled extents and the grid is the sum of the segments' counts. A
    segment that does not tile keeps its count and says why (remark "not
    tiled (segment i of n)"); a segment walk is formed only for a sole group.
    A ticketed chain (a segment waits, result-less `pgpu.while` loops before
    its group, for every instance before it to arrive: construction's phased
    finalizations, chained GEMMs written through kernel-level buffers) is
    tiled the same way, the waits kept (they count the instances before the
    segment: the shifts' values, which follow the new counts), workspace
    accesses tiled as view accesses, the grid at least 1; there only a
    segment that computes a product is tiled (remark "a segment of a ticketed
    chain is tiled only where it computes a product"): the others keep
    pgpu-refine-mapping's per-segment forms.
    Tile reads (seed 000 §6): a tile whose coordinates take data lane by lane
    (a row index read per row) is a `pgpu.gather`; one placed only by scalars
    read from data (a segment's rows `offsets[e] + i`, a tile index decomposed
    by a data-dependent tile count: one runtime position for every lane) is a
    `pgpu.load`, a box, whether the member read was a load or a gather. A
    contraction operand read with a zero fill (load or gather) is zero on its
    invalid k lanes already: no select.
    Preserves: values (up to the reassociation of the sums), effects, ABI,
    origins.
    Must not fire: neither a contraction-shaped reduction nor accesses that
    walk different axes (a segment without a contraction, or a target
    without a multiprocessor count, keeps its foreach), dispatch code other
    than one group or construction's chain of segments (a last-program
    finalization beside several segments), nested
    loops or control in the program body (a reduction nested in another's
    element body unless the inner one is a contraction as in Nests, C1's free axes
    the program axis and r, its bounds free of r; an author loop only as in
    Author loops), program-dependent loop bounds,
    atomics or scatter-reduce, a write that does not depend on every blocked
    axis, or a value that would need a fragment of rank > 2.
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect", "::mlir::arith::ArithDialect"];
}

def PGPUFuseContractLoops : Pass<"pgpu-fuse-contract-loops", "::mlir::ModuleOp"> {
  let summary = "two K loops of one accumulator over the same range become one loop (seed 002 §3.4)";
  let description = [{
    Reads: pairs of `pgpu.for` loops in one block where the second's only
    carry starts from the first's only result (its sole use), as
    pgpu-form-tiles builds a sum of two contractions (the second continues
    the first's accumulator).
    Legality: the same lower bound, upper bound and step; in each body the
    carry is only the accumulator of a chain of `pgpu.contract` ops whose last
    result is yielded, so the loop adds terms to it and the fused loop
    regroups the sum (seed 000 §8); neither loop writes memory and what lies
    between them is free of effects (it moves above the first loop); the
    second loop reads something the first reads (the same kind of access on
    the same view at equivalent coordinates, validity and fill), so fusing
    saves a read (seed 002 §3.4: co-realization of a shared value).
    Rewrites: one loop over the range whose body is the first's, then the
    second's continuing the first's step of the accumulator; the CSE after
    blocking merges the repeated reads.
    Preserves: values (the contraction's sum regrouped), effects, ABI, origins.
    Must not fire: different bounds or steps, a carry with another use (a
    running maximum, a rescaling), a first result with other uses, a write in
    either loop or between them, loops that share no read (a convolution's
    taps over different windows).
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect"];
}

def PGPUFuseSiblingLoops : Pass<"pgpu-fuse-sibling-loops", "::mlir::ModuleOp"> {
  let summary = "a contraction's K loop takes the sibling loops over the same range that read its tiles (seed 002 §3.4)";
  let description = [{
    Reads: pairs of `pgpu.for` loops in one block, exactly one of which holds
    a `pgpu.contract` in its body, as pgpu-form-tiles builds a contraction beside
    reductions over the same k range (per-row norms of the operands used in the
    epilogue: pairwise squared distances, cosine similarities).
    Legality: the same lower bound, upper bound and step; neither loop writes
    memory; the second loop uses neither the first's results nor code computed
    from them; what lies between the two does not write memory, and the part of
    it that depends on the first loop is free of effects (it moves after the
    fused loop); the second loop reads something the first reads (the same kind
    of access on the same view at equivalent coordinates, validity and fill),
    so fusing saves a read (seed 002 §3.4: co-realization of a shared value).
    Rewrites: one loop in the second's place carrying both loops' values, whose
    body is the first's then the second's; the CSE after blocking merges the
    repeated reads. Repeats while a pair fuses (both operands' norms join one
    GEMM's K loop).
    Preserves: values bit for bit (every carry takes the same terms in the same
    order), effects, ABI, origins.
    Must not fire: different bounds or steps; no contraction in either loop (a
    row's sum and sum of squares stay separate loops for pgpu-stage-rows); a
    contraction in both (SwiGLU's gate and up products of one x: one loop
    would keep two accumulator tiles live, which the tile choice does not
    plan for); a
    write in either loop or between them; a second loop that uses the first's
    result (a variance after its mean); loops that share no read.
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect"];
}

def PGPUStageInnerKLoops : Pass<"pgpu-stage-inner-k-loops", "::mlir::ModuleOp"> {
  let summary = "a chained product's K loop that fits one block runs once, its invariant reads before the enclosing loop (seed 002 §3.4)";
  let description = [{
    Reads: a `pgpu.for` (the r loop of a product nested in another's
    element, as pgpu-form-tiles tiles sigmoid attention: scores over the
    head dimension, f(scores), their product with V over the keys) in a
    block (whose terminator may yield the loop's results: a branch of
    pgpu-stage-operands' choice), holding directly a K loop: a
    `pgpu.for` from 0 to a named view extent D defined outside it, stepping
    by a declared parameter, a `pgpu.contract` in its body, whose results
    reach a `pgpu.contract` of the r loop's body.
    Legality: when 0 < D <= step the K loop runs exactly one trip at 0, so
    its body inlined once (carries bound to the inits, results to the
    yielded values) is the same program; a read of the r loop's body whose
    coordinates and validity depend on neither the r index nor the carries
    reads the same values every trip when the loop writes nothing, so it
    may run once before the loop (its masks keep it in bounds).
    Rewrites: the r loop and everything after it up to the terminator move
    under `pgpu.if (0 < D && D <= step)` (a launch fact; it yields what
    the terminator yielded, and the terminator its results): the then-branch
    holds the r loop with its K loops inlined and its invariant reads (the
    query tile) moved before it, so the r loop is innermost (a provider
    pipelines its K and V reads); the else-branch the original loops. The
    step's parameter declares `covers` = D unless it covers something
    already.
    Preserves: values bit for bit, effects and their order, ABI, origins.
    Must not fire: a K loop alone (a GEMM), a K loop whose results are not
    contracted again in the enclosing loop (a loop storing product tiles),
    a K range that is no view extent.
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect"];
}

def PGPUStageOperands : Pass<"pgpu-stage-operands", "::mlir::ModuleOp"> {
  let summary = "a tiled contraction's computed row operand staged once in a first phase (seed 002 §3.2, §3.4)";
  let description = [{
    Reads: a kernel whose one program space is a persistent walk over one
    execution group holding one K loop with one `pgpu.contract`, whose lhs
    ([rows, k], reduced on k) is computed in the loop from view loads by pure
    ops (a gated activation silu(g) * u, a normalized row x * rstd * g), or
    by a contraction's own K loop with launch bounds and pure ops after it
    (a two-layer MLP's gelu(x @ W1 + b1)), and depends on the group's
    coordinate only through one row iota compared against a launch-uniform
    row count and through group coordinates that the row iota's start does
    not read, of launch-uniform extent (a batch: `x[b, rows, k]`).
    Legality: the operand's values do not depend on the other free axis's
    tile, so every tile of a row block recomputes the same values (the reuse
    factor ceil(N / TILE_1)); computed once and stored they are the same bits.
    Rewrites: the program space gains P * MT * KC first-phase programs (P
    batch points, the product of those coordinates' extents, 1 without; MT
    row tiles, KC chunks of K: 1 where row statistics are computed before the K
    loop, else enough for two programs a multiprocessor), placed first in
    linear order: each computes its rows' statistics and its chunk of the
    operand, stores it to workspace [STAGED_ROWS, STAGED_COLS] (a batch
    point's rows in a block of their own) and counts itself (release). The walk's programs wait for the count (acquire), the
    last to pass returns the counts to 0, and run the walk with the operand
    loaded from workspace (the recomputing K loop stays beside it under the
    launch-uniform choice, the row statistics moved into its branch). The
    workspace rows are padded to the largest K tile, so that read needs no
    K mask.
    Chosen at launch: the parameter OPERAND_PHASES ([1, 2]; 2 stages the operand) and a
    reuse factor of at least 2; otherwise the original walk runs unchanged. OPERAND_PHASES
    defaults to 2 where the operand's arithmetic in the loop has a special function or a
    float division (silu(g) * u), else to 1 (a few multiplies of a loaded tile, as an RMSNorm's
    x * rstd * g, recompute for less than the staging phase and its wait cost, measured).
    A contraction's tile is staged by default and only where its recompute, (reuse - 1) * 2 K
    FLOPs an element, reaches 64 FLOPs a byte of the workspace round trip, (reuse + 1)
    element bytes: not where K is a constant below 64 (16-bit), not for one tile of N.
    Preserves: values bit for bit, effects, ABI views, origins.
    Must not fire: a plain GEMM (the operand a masked load), an operand that
    depends on the other axis's tile or on the accumulator, a K loop with
    other carries, several contractions, no persistent walk, a chained
    contraction whose constant K is too short to pay for staging.
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect", "::mlir::arith::ArithDialect"];
}

def PGPUStageRows : Pass<"pgpu-stage-rows", "::mlir::ModuleOp"> {
  let summary = "read a row once when it fits one block: single-iteration form of sibling blocked loops under a guard (seed 002 §3.4)";
  let description = [{
    Reads: a program body (execution group or program space, or a branch of
    a `pgpu.if` directly in one: an author's test of the row) with two or
    more sibling blocking loops (`pgpu.for` stepping by the BLOCK parameter)
    over the same bounds that read the same view, or with an author loop
    (another step) running a blocking loop that reads a view every trip
    (nested through author loops only, its range defined outside them: a
    bisection or fixed-point iteration reducing the row each trip).
    Legality: when 0 < hi - lo <= BLOCK each such loop runs exactly one
    iteration, so running every body once in order at iv = lo (carries bound
    to their inits, results to the yielded values) is the same program. A
    read of an `in` view (never written during the launch) whose
    coordinates, validity and fill do not change from trip to trip of an
    author loop returns the same tile every trip.
    Rewrites: the loops and everything after them up to the terminator move
    under `pgpu.if (lo < hi && hi - lo <= BLOCK)`: the then-branch holds the
    bodies inlined once (the repeated reads and pointwise work become one
    computation after CSE), also those nested in author loops, whose
    invariant reads of `in` views (with the pure ops computing their lanes
    and masks) then move before the author loops: the row is read once, not
    once a trip. The else-branch holds the original loops. BLOCK's
    domain (declared by form-blocking) reaches 16384 so that rows of that
    length can take the staged path.
    Preserves: values, effects and their order, ABI, origins.
    Where no two loops share their bounds, loops over constant non-empty
    ranges of different lengths that read a common view (corpus 120's
    absmax over a group's 128 columns, then its 64 packed pairs) are staged
    alike under `pgpu.if (0 < L && L <= BLOCK)`, L the longest: every
    blocking loop over a constant range of 1 to L lanes runs once.
    Must not fire: a single loop, loops with other steps (author loops)
    reading a view themselves, loops over different runtime bounds, loops
    that read no common view, a block whose terminator yields values, or the
    branches of an if nested deeper (inside a loop); a blocking loop in an
    author loop over another range than the staged one keeps its read every
    trip, as does a read of a view the kernel writes.
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect", "::mlir::arith::ArithDialect"];
}

def PGPUStageFolds : Pass<"pgpu-stage-folds", "::mlir::ModuleOp"> {
  let summary = "compute a row's tile once when it fits one fold segment: single-segment form of sibling region folds and loops under a guard (seed 002 §3.4)";
  let description = [{
    Reads: a block (outside region fold and scan regions) holding a
    `pgpu.region_fold` and at least one more sibling fold or `pgpu.for` over
    the same bounds whose step is a declared parameter, reading a common view,
    one of them a `pgpu.for` that stores the row (the row is the output's free
    axis: the passes kir-online-folds makes over a matrix product's row: a
    softmax's maximum and sum, a LayerNorm's mean and variance, then the
    blocked store of the normalized row) or a fold that reads an earlier
    member fold's result (a chain of passes: attention's exact two-pass
    softmax over the keys under source numerics, whose second pass scores
    the keys again at the first's maximum; a row of at most one key tile,
    ViT's 197 keys, is then scored once), the chain only over a view's
    whole extent [0, S), where the guard is a launch fact (a launch whose
    rows outrun the tile compiles the folds alone).
    Legality: when 0 < hi - lo <= step each such fold and loop runs exactly
    one segment [lo, min(lo + step, hi)) = [lo, hi), so computing each fold's
    summary of that segment combined into its identities, and each loop's
    body at iv = lo, in order, is the same program, bit for bit.
    Rewrites: the members and everything after them up to the terminator move
    under `pgpu.if (lo < hi && hi - lo <= step)`: the then-branch holds the
    single segments inlined, after which CSE merges the repeated pure work and
    reads, and identical read-only loops with no write between them (one tile
    product's K loop per pass) merge, so the row's tile is computed once; the
    else-branch keeps the folds. The step's parameter declares `covers` = S
    where the range is [0, S) of a view extent S (unless it covers something
    already), so a call's default binds the smallest candidate holding the
    row that the resource model keeps in registers.
    Preserves: values, effects and their order, ABI, origins.
    Must not fire: a lone fold (attention's online one-fold walk over the
    keys: no pass recomputes it), sibling folds that neither chain nor meet a
    loop storing the row, a chain over a range other than a view's extent
    (a member's own keys: varlen, paged), folds or loops over other bounds or steps, blocked
    loops without a fold (pgpu-stage-rows' rows), members that share no read,
    a block whose terminator yields values.
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect"];
}

def PGPUKeepFoldTiles : Pass<"pgpu-keep-fold-tiles", "::mlir::ModuleOp"> {
  let summary = "a matrix product's row tiles that several folds and the row's store recompute are computed once and kept in workspace (seed 002 §3.4 materialization)";
  let description = [{
    Reads: the members pgpu-stage-folds stages (a block outside region fold
    and scan regions holding a `pgpu.region_fold` and siblings over the same
    bounds with a parameter step sharing a read, one a `pgpu.for` storing
    the row: a softmax's maximum and sum folds, a LayerNorm's mean and
    variance folds, then the store), left as folds where the row spans
    several segments; in each member's body its product loop (one
    read-only `pgpu.for` with one fragment result of static or parameter
    extents holding a `pgpu.contract`: a K loop); the program space.
    Legality: each fold's product loop is the storing loop's computation:
    the same ops over the same values, the fold's segment start for the
    loop's induction variable, its captures for the values they capture,
    and its segment end for the range's end where that end only bounds the
    lanes of an iota of the segment start of the step's extent (b + i <
    min(b + step, hi) is b + i < hi for i < step). A tile computed once and
    stored whole (every lane) then loaded is the recomputed tile, bit for
    bit. The workspace slice of a program instance is written and read by
    that instance only (seed 000 §4.4: a unique owner), in program order.
    Rewrites: a loop over the same segments before the members runs the
    storing loop's product loop (and what it reads there) once per segment
    and stores the tile to workspace [KEEP_PROGRAMS, KEEP_TILES, tile...]
    at (program instance, (b - lo) / step); each member's product loop
    becomes a load of that tile (a fold captures the buffer, the program
    instance and lo). Where the first member is a fold whose summary
    components are numbers or fragments of static or parameter extents (a
    softmax's maximum, a LayerNorm's mean: it reads nothing the members
    compute), the kept loop also runs that fold's summarize on the tile it
    just computed (over [b, min(b + step, hi))) and stores each component to
    workspace [KEEP_PROGRAMS, KEEP_TILES, component...]; the fold's
    summarize becomes a load of its segment's summary, combined in segment
    order from the identity as before (the same bits): one pass over the
    tiles (and what the fold reads beside them, a residual) fewer. Adds the
    workspace extents KEEP_PROGRAMS (the
    program space's instances; 0 where the members are the else-branch of
    pgpu-stage-folds' guard and the range spans at most one segment: the
    staged path runs) and KEEP_TILES (ceil(max(hi - lo, 0) / step)) and
    first-write buffers. One product per row instead of one per
    pass: three K loops become one for a source-numerics softmax or
    LayerNorm over a row wider than its tile, and two passes over the kept
    tiles follow it instead of three.
    Preserves: values (bit for bit), effects and their order, ABI views,
    origins.
    Must not fire: members without a product loop (K in one tile: the
    short product is recomputed), a fold whose product differs from the
    storing loop's (other operands, masks or uses of its segment end),
    folds without a storing loop (a fused linear cross-entropy's vocabulary
    walk: its tiles are the logits it exists not to write), several loops
    among the members, bounds that are not launch-uniform, a program space
    of several extents; a first member that is the storing loop, or a fold
    whose summary has a component of other extents or of i1 or index
    elements, keeps loading the tiles. Where it fires pgpu-split-folds leaves
    the folds whole (their segments read the program's own kept tiles) and
    splits no launch that takes their branch.
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect", "::mlir::arith::ArithDialect"];
}

def PGPUReuseInputReads : Pass<"pgpu-reuse-input-reads", "::mlir::ModuleOp"> {
  let summary = "a read of a view takes an identical earlier read in its block when nothing between writes the view (seed 002 §3.4)";
  let description = [{
    Reads: `pgpu.load` and `pgpu.gather` ops of views declared `in`.
    Legality: an `in` view is never written during the launch (the
    verifiers reject a write to it and every wrapper rejects a written view
    whose memory overlaps another view), so two reads of it with the same
    operands (coordinates, validity, fill) and attributes return the same
    values even with writes to other views between them, where CSE keeps
    both (a staged row reduced, stored and reduced again: the rounds of a
    top-k).
    Rewrites: the later read's uses take the earlier read's result (same
    block only); the read is erased. The CSE after it merges what was
    computed from the two.
    Reads of an input at the same coordinates, a load and a gather alike,
    are one read where their validities differ only in conjuncts true in
    every lane (the constant true, `x >= 0` of a provably non-negative x:
    a causal tap t + 0 >= 0, t counting up from 0) and their fills agree
    unless neither masks a lane (corpus 291: the row's own sequence ids
    and the last tap's, one load of five fewer).
    A read of a writable view (`inout`, `out`) takes an identical earlier
    read in its block the same way when nothing between them writes that
    view: only pure code, reads, and stores or scatters of other views lie
    between them, at any depth (views never overlap; a member's state row
    reduced into y, y stored, the row updated and stored back: corpus 244).
    Preserves: values, the effects on written views, ABI, origins.
    Must not fire: a writable view stored or scattered between the reads,
    or any other effect between them (an atomic, a scatter-reduce, a
    last-program finalization: another program's writes may be ordered
    there), reads that differ in an operand or attribute, reads in different
    blocks (a read before a loop is not carried into its body).
    First, a read uniform over a K loop's lanes is made once a trip
    (UniformLaneReads.cpp): in a `pgpu.for` from 0 stepped by a parameter P
    (iv a multiple of P, a declared parameter taking only its candidates), a
    rank-2 load or gather whose lane-axis coordinate is the broadcast of
    (s * iota(iv)) / G, s and G positive constants with s * P dividing G for
    every candidate P (a group-quantized weight's scales[n, k // 128]), has
    one value a row per trip: its other coordinates are broadcasts along the
    other axis or scalars, so it becomes a read of the other axis at
    (s * iv) / G broadcast along the lanes; validity the other axis's, or
    that and the lanes' bound iota(iv) < b: the row read is valid where
    iv < b (lane iv is a trip's first) and the broadcast is selected against
    the fill on the lanes past b, so every lane holds what it held, unless
    every use discards those lanes (pgpu::lanesDiscardedOff: lane-wise
    arithmetic ending in a select on the same bound, corpus 57's and 80's
    (nib - zero) * scale zeroed past K before the contraction). Must not
    fire: a quotient some candidate's trip crosses (k / 2 of packed
    nibbles), another coordinate varying along the lanes, a loop that does
    not start at 0.
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect"];
}

def PGPUPackRows : Pass<"pgpu-pack-rows", "::mlir::ModuleOp"> {
  let summary = "several short rows per program for row reductions: [ROWS, BLOCK] tiles on the staged path (seed 002 §3.2, §3.3)";
  let description = [{
    Reads: the sole execution group of a program space whose body is
    row-independent pure code, then a staged row path of pgpu-stage-rows
    (`pgpu.if` without results on a launch-uniform test) whose then-branch
    is straight-line code on scalars and 1-d fragments (pointwise ops,
    splats, iotas, loads, gathers, stores, unique scatters, reductions) that
    reduces a row-dependent fragment. A body whose row is one blocking loop (a row
    sum, a dot of two gathered rows: nothing for pgpu-stage-rows to share)
    is staged here the same way, and row-dependent scalar code before the
    staged path (pure ops and reads without regions: a gathered row's index
    read per member, rows[e]) moves into both branches; both only on a copy
    of the kernel, kept where the rest qualifies. The group may sit under
    construction's dispatch guard beside a whole-space pgpu.last_program
    (the finalization counts the space's instances, whatever their number;
    one instance stays where there are no rows), and the staged path may
    scatter-add (add combine) a row value at coordinates and a validity the
    row does not change (pgpu-member-partials' column terms Sum[n] and
    kernel-level scalars Sum[0]): the program's rows are summed over the
    ROWS axis first (rows past the last add 0; seed 002 §4 regroups the
    sum) and scattered once (corpus 256: 65,536 one-token programs, one
    [E] atomic add each, become 1,024 programs of [64, 64] tiles).
    Legality: the group's members (rows) are independent instances (seed 000
    §5: unordered parallel), so a program may run several; the staged path's
    ops are pointwise in the rows, so adding a leading axis over rows runs
    each row's computation unchanged, a row reduction over axis 0 becoming
    one over axis 1.
    Rewrites: the group takes ROWS consecutive rows per program (a declared
    parameter, candidates 1..128): the program count becomes ceil(rows /
    ROWS). BLOCK, where it covers the row's width, gains the candidates 16
    and 32 (default kept): a packed row of at most 32 lanes then takes a
    [ROWS, 32] tile at its call's default, not a half-masked [ROWS, 64] one
    (171's D = 32). On the staged path every row-dependent value gains a leading ROWS
    axis (scalar to [ROWS], [X] to [ROWS, X]; a per-member index read
    becomes a [ROWS] read, a gathered row a [ROWS, BLOCK] gather through
    those indices, a scattered row a [ROWS, BLOCK] unique scatter through
    them: corpus 66's cache[slot[t], h, dims], a destination repeated
    across rows having been one repeated across members, which only equal
    values may do; a row scattered at unit-stride lanes base + iota on the
    straight-line path likewise: corpus 120's packed[m, g * 64 + p]),
    row-independent values stay
    and broadcast where a row value uses them, reductions reduce axis 1,
    and reads and writes are masked to rows below the row count. The blocked
    path (else-branch: rows longer than BLOCK) runs the program's rows in a
    loop, one after the other, as before.
    A staged test that depends on the row through pure scalar code (the
    length n of a row's block, a slice of constant width clipped to the
    row: 0 < n(m) <= BLOCK), where BLOCK covers a constant width
    (pgpu-form-blocking's `covers = "128"`: the rows are short at any
    call), is computed for the program's ROWS rows at once
    ([ROWS] fragments, an OR reduction of the rows below the row count that
    fail it): the program takes the packed path when none fails, and
    otherwise runs each row's own test and either path in its loop (an
    empty block keeps its blocked path's values).
    An ordered loop in the staged path over row-independent bounds (an
    author's loop, 241's bisection on a threshold) runs once for the
    program's rows: its scalar carries become [ROWS] fragments, its body is
    widened like the path, and reads in it of values defined before it (the
    row tile) move before it, valid where it runs a trip. A row reduced over
    members that each walk the row (a `pgpu.range_reduce` over a
    row-independent range whose element holds blocking loops over one
    row-independent [lo, hi): 171's argmin over 16 centroids of a distance
    summed over the row) is staged here too: the reduction runs in member
    order (seed 000 §8: any order is legal) as such a loop, each member's
    walk its one block when 0 < hi - lo <= BLOCK, so a program reads its
    [ROWS, BLOCK] row tile once and each member's [BLOCK] row once.
    A group of several axes whose straight-line staged path (its test
    row-independent) reads, per row, values that depend on the innermost
    coordinate but not on an outer one k (278's cut points cuts[f, :] of a
    member (n, f)) takes its rows along k instead: a program owns ROWS
    consecutive values of k at one value of the other axes (programs
    ceil(extent k / ROWS) times the others' extents, those innermost), so
    those reads stay [BLOCK] fragments read once a program. Cost rule, per
    row: the bytes such reads share (a row tile at BLOCK's narrowest
    declared candidate) against the sector bytes per-row scalar accesses
    at the innermost coordinate lose (32 less an element each: x[n, f]
    strided along n); the axis that shares most where that exceeds its
    loss, else the row-major order.
    A kernel-level reduction over members (a `pgpu.range_reduce` in a
    group without axes, or pgpu-split-row-reductions' fold_split programs)
    whose element reduces a row (issue 42, 222's BPR loss: the sum over
    triples of f(<U[u], I[p] - I[n]>), each row gathered through an index
    read per member): blocking loops over one range [lo, hi) defined
    outside it with straight-line bodies (pointwise ops, loads, gathers,
    1-d reductions), pure scalar code around them, one scalar result.
    Where 0 < hi - lo <= BLOCK (a `pgpu.if` with a result) its members run
    ROWS a step (a loop over the range stepped by ROWS): the member's
    values gain a leading ROWS axis as on the staged path (the index
    reads [ROWS] vectors, the rows [ROWS, BLOCK] gathers, the row
    reductions over axis 1), members past the range take the identity, and
    the [ROWS] values are reduced over axis 0 with the reduction's combine
    into the loop's carry (seed 000 §8: the combine is associative and
    commutative); the reduction as it was otherwise. BLOCK, where it covers
    no one symbol (the partials' merge over FOLD_SPLITS spans none), covers
    the walks' range; ROWS is declared as above (a call's default follows
    the split launch: python/tessel/_kernel.py, `_rows_in_split`).
    A `pgpu.foreach` whose members each reduce a row of a table every
    program walks (a read at the member's coordinates, not the program's)
    and write the result (94's squared distances d[m, n] = sum_d (k[n, d] -
    q[m, d])^2 kept in a workspace for the selections after them): blocking
    loops over one range [lo, hi) defined outside it with straight-line
    bodies, pure code, then stores or buffer stores of scalars at the
    member's own coordinates. Where 0 < hi - lo <= BLOCK (a `pgpu.if`) its
    members run ROWS a step (a loop over the foreach's range stepped by
    ROWS): the rows read as [ROWS, BLOCK] tiles, reduced over axis 1, the
    program's own values ([BLOCK] rows such as q[m, :]) broadcast, the
    writes [ROWS] masked to members below the range's end (seed 000 §5: the
    members are independent); the foreach as it was otherwise. BLOCK, where
    it covers no one symbol, covers the walks' range; ROWS defaults to 32
    (the program count stays; a call's default keeps it within ROW_TILE
    elements, one member a step for a row longer than BLOCK).
    Preserves: values, effects (each row's in its order), ABI, origins.
    Must not fire: a group without the staged path (a kernel whose rows are
    never short enough to stage), a staged path that reduces no row (a
    per-element row: pgpu-refine-mapping's row loops), one with loops over
    row-dependent bounds or carrying fragments, ifs, atomics, scatter-reduces
    other than such adds (a coordinate the row computes: a histogram's bucket),
    or 2-d fragments on row values, a scatter at
    other computed lane coordinates (163's rotate-half pairs at 2p and
    2p + 1, measured slower packed), a group whose body has
    row-dependent effects, regions or fragments before the staged path (a
    test on a row length read from memory), a test that depends on the row
    where BLOCK covers no constant width (a GroupNorm's group of runtime
    length), or a kernel that declares ROWS already.
    For the kernel-level rule: a reduction in a group with axes of its own
    (the rows are the first rule's), a member with an ordered (not
    blocking) loop, loops over member-dependent or differing ranges, or
    writes, or whose walks reduce nothing that depends on the member.
    For the foreach rule: a row read at the program's coordinates (290's
    vocabulary row logits[b, k, :], of no bounded length), a write of a
    fragment or at coordinates that do not depend on the member, code
    after the writes, members that reduce no row.
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect", "::mlir::arith::ArithDialect"];
}

def PGPUNarrowGuardedWorksets : Pass<"pgpu-narrow-guarded-worksets", "::mlir::ModuleOp"> {
  let summary = "a workset whose members store only inside a guarded row interval walks that interval (seed 002 §3.5)";
  let description = [{
    Reads: every `pgpu.foreach` from 0 to E0 * E1 * ... whose body decodes its
    member with `pgpu.delinearize` by (E0, E1, ...), computes without effects,
    and ends in a `pgpu.if` holding every effect, whose condition conjoins
    `i0 >= A` and `i0 < B` with A and B computed without the member (pure code,
    reads, read-only reductions): construction's store over a data-dependent
    subregion of a launch-time domain (the ragged grouped GEMM's zero tail).
    Legality: members outside A <= i0 < B have no effect (seed 002 §3.5: an
    all-false interval with no effects may leave the physical loop), and
    i0 = iv div (E1 * ...) is non-decreasing in iv, so they are exactly the iv
    outside [clamp(A, 0, E0) * S, clamp(B, A', E0) * S).
    Rewrites: A and B are computed once before the loop (their def chains
    cloned), the loop's bounds become that interval; the guard stays. When
    every read in those chains is of an `in` view (no program writes it) the
    members' copies are replaced by the hoisted values.
    Preserves: values, effects, ABI, origins.
    Must not fire: bounds depending on the member, a guard that does not
    bound i0 from both sides, effects outside the guard, a workset whose extent
    is not the decoded domain.
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect", "::mlir::arith::ArithDialect"];
}

def PGPUNarrowPredicates : Pass<"pgpu-narrow-predicates", "::mlir::ModuleOp"> {
  let summary = "drop lane masks on a blocked loop's full blocks: split it at its last full block (seed 002 §3.5)";
  let description = [{
    Reads: every `pgpu.for` and, inside it, lane masks `iota(iv) < splat(hi)`
    whose iota is the loop's induction variable, as wide as the step (the
    same declared parameter or constant), compared with the loop's own upper
    bound.
    Legality: on iterations with iv + step <= hi, i.e. the first
    floor((hi - lo) / step) of them, every lane iv + i (i < step) is below hi:
    the mask is all true there (seed 000 §8: predicates may be removed in
    all-true intervals; mixed intervals keep their validity). The proof is
    read from the loop's bounds and the mask's def-use each time.
    Rewrites: the loop becomes two: [lo, mid) with mid = lo + floor(max(hi -
    lo, 0) / step) * step, whose body copy has those masks replaced by true
    and folded out of the `and`s and `select`s they fed, then [mid, hi) with
    the original body (at most one iteration), its carries initialized from
    the first loop's results.
    Preserves: values, effects and their order, ABI, origins.
    Must not fire: masks against another bound or another base, loops whose
    step is not the lane count, and loops over a view's extent that carry a
    `pgpu.contract`'s sum (a GEMM's k loop over all of K stays whole for
    the provider's pipeliner and its bounds-checked box loads). A walk whose
    product tiles are fresh each iteration (a row's store pass over the keys
    of a written softmax of Q K^T) splits: its full blocks store with the
    row mask only. A
    contraction's loop over a sub-range (split-K's chunk: lanes k < hi - lo)
    splits, so its full blocks' accesses carry no chunk mask.
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect", "::mlir::arith::ArithDialect"];
}

def PGPUNarrowFoldRanges : Pass<"pgpu-narrow-fold-ranges", "::mlir::ModuleOp"> {
  let summary = "split a blocked region fold's tiles into all-true, mixed and all-false intervals (seed 002 §3.5)";
  let description = [{
    Reads: every `pgpu.region_fold` whose summarizer has tile positions
    `iota(begin)` as wide as its step, and inside it lane predicates
    `cmp(K, Q)` where K is a tile coordinate (positions plus a value from
    outside the fold) and Q a value of the program's lanes captured from
    outside (iota bases and extents, splats, + and -, and * or floor / by
    one value of every lane: a chunk's first key (q // C) * C; else a 1-d
    integer fragment computed before the fold, loaded or searched from data
    (a packed token's sequence start), by its minimum and maximum over the
    lanes, two `pgpu.reduce` before the fold), or the tail mask
    `positions < end`. An equality of floor quotients by one value C of every
    lane, `K // C == Q // C`, is the band K in [m*C + min(C+1, 0),
    m*C + max(C-1, 0)], m = Q // C: two predicates (chunked attention's
    `kpos // C == i // C`). A blocked reduction loop (each carry folded
    with one block's reduce by that reduce's own +, *, max, min, and or or;
    nothing else reads the carries; the body writes nothing: a masked row sum
    `T.sum(T.where(kpos <= i, x[keys], 0))`) is read as the region fold it is
    and narrowed the same way when its blocks have such a predicate (the
    reduces' identities prove the skipped blocks); otherwise it stays. A carry
    may also be a tiled product's accumulator (pgpu-form-tiles' key loop:
    `dq += ds k`, the carry only a contraction's accumulator): the fold's
    summary is the block's contraction from a zero splat, its combine +
    (pgpu-merge-contract-add joins it to the accumulator again); such a loop
    is narrowed only where blocks are skipped by a predicate other than a
    view's tail (a launch-level bound: a split-K chunk stays one pipelined
    loop). The all-false proof reads `where(m, x, 0) * y` as 0 where m is
    false (a where's literal zero; a 0/1 mask multiplied proves nothing, as
    0 * inf is NaN): FlashAttention-2 backward's causal key blocks past a
    query tile are skipped, those below its first row run unmasked. Any other order comparison is solved for the
    positions: both sides are sums of terms with coefficients +1/-1
    (broadcasts, splats, index + and -, value-preserving casts: narrow
    integers to index, index to i32), the positions exactly once, the other
    terms lane values as above or kernel scalars (a runtime width w makes
    `q - k < w` the predicate `k > q - w`). A union (ors, through
    broadcasts) of such comparisons of one direction, each read only by the
    union, is one predicate: `k < prefix | k <= q` (prefix-LM). Any other
    and/or tree of such comparisons (ors with parts of both directions,
    ands of ors; each inner value read only by the tree) is a union of
    intervals: in disjunctive normal form (at most four branches) each
    branch, an intersection of bounds, has its own all-true and mixed tiles
    (`k <= q & (k < sink | k + w > q)`: the sink and the window). A mask read
    from memory anded with comparisons in a branch leaves that branch mixed,
    still bounded by them (tree attention's `k < P | (k < P + N & tree[k - P])`
    visits no tile past P + N). Where the whole tree is not one (such a leaf
    alone in a branch or in every branch, a comparison of loaded data: a
    padding mask; too many branches), an operand of its outermost ands may be.
    Legality: K is increasing in the tile start, so over each tile the
    predicate is all true or all false exactly when the tile's coordinate
    range and the lanes' range [Qmin, Qmax] do not overlap; these are prefix
    and suffix intervals of the tiles (seed 000 §8: predicates may be removed
    in all-true intervals, mixed intervals keep their validity). A union of
    prefix-true parts (<, <=) is all true below the largest of their true
    bounds and all false from the largest of their false bounds (suffix-true
    parts: the smallest), so it too splits the tiles into a prefix and a
    suffix. The branches of a union of intervals, sorted by their first
    possible tile (selects where that order is a run-time fact), are
    visited in source order, each past the ranges before it; a tile in no
    branch's range is all false in every branch. An
    all-false interval is skipped only when substituting false into the
    summarizer proves every summary component equal to its identity (local
    typed value propagation: selects, builtin reduction identities, zero
    contractions, constant folding; no summarizer names).
    Rewrites: the fold becomes up to three folds over [F0, T0) (mixed),
    [T0, T1) (all true: predicates and the tail mask replaced by true and
    folded out of ands, selects and idempotent reductions) and [T1, F1)
    (mixed) (for a union of intervals, such three per branch, within
    [F0, F1)), their results combined in source order with the fold's combine
    (its associativity is the fold's contract); [lo, F0) and [F1, hi) are not
    traversed. A lone predicate false on a prefix (suffix) of the tiles whose false is
    not proven the identity keeps those tiles as a fold of their own with it
    false and the predicates of the other direction true (the tail mask with
    them), where that saves a read: tree attention's prefix keys, vis =
    ~(k >= P) | tree[k - P] read under k >= P, lose the comparisons and the
    tree read (a read under a false validity is its fill; and/or/not/select
    fold); where no read is saved they stay mixed.
    Boundaries are computed from the program's coordinates in IR;
    each is a tile start or hi, so a mixed interval's tail mask compares the
    positions with hi (one more operand of its fold), which on its tiles is
    the same mask and, where the tile reads a view to its end, the view's
    own bound (a box access).
    Preserves: values, source order, effects, ABI, origins.
    Must not fire: folds with no tile-position iota, predicates over values
    computed inside the summarizer (loaded data), a product or quotient of
    two lane ranges (q * q), the positions twice or
    times a factor, integer + and - that may wrap (index arithmetic is
    exact: index is 32-bit in the generated kernels and launches bound it),
    a false interval whose summary is not provably the identity (it stays,
    as mixed); as one union: parts of both directions (`k < a | k > q` is
    not monotone), the tail mask, or a part read outside the union (the
    parts are then narrowed as separate predicates, as before); as a union
    of intervals: more than four branches, a leaf that is the tail mask or
    not a ranged comparison, a value of the tree read outside it, or a root
    whose false is not proven the identity (the comparisons are then
    narrowed on their own).
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect", "::mlir::arith::ArithDialect"];
}

def PGPURealizeFolds : Pass<"pgpu-realize-folds", "::mlir::ModuleOp"> {
  let summary = "region folds and scans become their ordered loops over segments, the summary or state carried (seed 002 §3.4)";
  let description = [{
    Reads: every `pgpu.region_fold` (after blocking and range narrowing) and
    every `pgpu.region_scan`.
    Legality: the loop visits the segments [b, min(b + step, upper)) in
    source order and combines each summary into the carries, which start at
    the identities: exactly the fold's definition. A scan's loop carries the
    state from the inits, emits each segment from the state before it and
    applies the segment's transition: the scan's definition. Summarize (which
    only reads) runs before emit when emit writes no view summarize reads.
    Rewrites: `pgpu.for lower to upper step step iter_args(identities)` with
    summarize and combine inlined in its body; innermost folds first. A
    scan's loop with summarize, emit and apply inlined, then CSE inside it
    (the segment's accesses both regions make are one).
    Preserves: values, source order, effects, ABI, origins.
    Must not fire: nothing else (no region fold or scan, no change).
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect"];
}

def PGPUOnlineNormalize : Pass<"pgpu-online-normalize", "::mlir::ModuleOp"> {
  let summary = "a maximum loop and the exp-sum loop that needs its result become one pass (seed 002 §3 online segmented rescaling)";
  let description = [{
    Reads: two sibling `pgpu.for` loops over the same bounds and step (a
    blocked row read twice): the first carries an f32 maximum m (yield
    max(m, t)); the second uses the final m only as exp(x - spread(m)) and
    carries f32 sums from zero of terms linear in those exponentials.
    Legality: with a running maximum m', s * exp(m - m') + sum(L(exp(x - m')))
    is the two-loop sum in real arithmetic; the rounding differs, which needs
    module numerics `relaxed_normalization` with `online_reduction` (seed 002
    §1). A running maximum of -inf exponentiates against 0 and equal references
    rescale by 1, so rows are exact where the two-loop form is finite.
    Rewrites: one loop carrying both loops' carries: the first body, the
    running reference, the second body on it with each sum rescaled first.
    Preserves: values up to the permitted rounding, effects, ABI, origins.
    Must not fire: numerics `source` or online_reduction off (remark), either
    loop writing memory, the maximum used other than inside exp(x - m), a sum
    not linear in those exponentials or not starting at zero, the second loop
    using other values computed after the first.
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect", "::mlir::arith::ArithDialect"];
}

def PGPUOnlineRescale : Pass<"pgpu-online-rescale", "::mlir::ModuleOp"> {
  let summary = "a summary's rescaling moves into its exponentials (seed 002 §4 online segmented rescaling)";
  let description = [{
    Reads: multiplications `L(exp(A - r)) * spread(select(ok, exp(r - r2), 0))`
    in one block (a realized region fold's combine applied to a tile's summary),
    L built of sums from zero, selects with zero, float casts and the lhs rows of
    a zero-accumulator contraction.
    Legality: exp(A - r) * exp(r - r2) = exp(A - r2) and L is linear, so the
    product is L(exp(A - r2)); the rounding differs, which needs module numerics
    `relaxed_normalization` with `online_reduction` (seed 002 §1, §4). The select
    on ok stays (exact: the component is zero where ok is false either way),
    dropped when ok is constant true.
    Rewrites: the tile is exponentiated against r2, L recomputed on it, each
    multiplication replaced by the new component; the old chain is removed.
    Preserves: values up to the permitted rounding, effects, ABI, origins.
    Must not fire: numerics `source` or online_reduction off (remark), a factor
    whose reference differs from the exponentials', a nonlinear op in L, values
    of L used elsewhere (the tile would be exponentiated twice).
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect", "::mlir::arith::ArithDialect"];
}

def PGPUExpBase2 : Pass<"pgpu-exp-base2", "::mlir::ModuleOp"> {
  let summary = "normalized exponentials in base 2, their reference domain scaled by log2(e) (seed 002 §4)";
  let description = [{
    Reads: f32 `exp(a - b)` whose difference feeds only exponentials, and the
    reference domain of a and b: values reached through max/min, sums and
    differences, selects, broadcasts, splats, max/min reductions, loop carries,
    constants, up to multiplications by a scalar factor (scores = q.k * scale)
    or leaves (any other f32 value entering it: a converted bias, unscaled
    scores).
    Legality: exp(a - b) = exp2(a L - b L) with L = log2(e); every domain op
    commutes with a positive scaling (sums: L(a + b) = La + Lb), constants are
    scaled with it (0 and +-inf are fixed points), and the domain is closed (no
    value of it is used any other way), so scaling its entries by L scales all
    of it. The rounding differs: module numerics `relaxed_normalization` (seed
    002 §1).
    Rewrites: each entry's factor f becomes f * L (one scalar multiplication),
    each leaf x is multiplied by L once where it is defined for its uses in the
    domain (one multiplication per element, where every exponential saves one),
    constants inside the domain c * L, each exp of a difference exp2. A
    fragment leaf in as many loops as the deepest exponential (a bias loaded
    per key tile) would cost a multiplication per score: then the domain stays
    unscaled and L joins each exponentiated difference instead; a fragment
    leaf in fewer loops (a row's log(den) after the key loop, for a stored
    logsumexp) is scaled once per row and keeps the scaled form.
    Preserves: values up to the permitted rounding, effects, ABI, origins.
    Must not fire: numerics `source` (remark), a domain value used outside the
    domain (stored, multiplied by a non-factor, compared).
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect", "::mlir::arith::ArithDialect"];
}

def PGPUFactorReductions : Pass<"pgpu-factor-reductions", "::mlir::ModuleOp"> {
  let summary = "a launch-time scalar factor out of a max/min reduction of a product (seed 002 §4)";
  let description = [{
    Reads: `pgpu.reduce` of one input `x * splat(c)`, possibly under selects
    whose other side is the combine's identity, where the combine is one
    max/min (NaN-propagating or not), the identity the combine's (-inf / +inf),
    the product has other uses, and c is known at launch: a constant, or one
    f32 kernel scalar `a` times constants (each partial product of them in
    [2^-32, 2^32]).
    Legality: for 0 < c < inf, max_j(x_j * c) = max_j(x_j) * c exactly
    (rounding is monotone; no inf * 0; NaN lanes alike; -inf * c = -inf for
    the selected-away lanes); otherwise it may differ.
    Rewrites: a constant factor in (0, inf): the factored form alone; a scalar
    factor: `pgpu.if (2^-32 <= a <= 2^32)` the reduction of x times c, else
    the reduction as it was. The condition is a launch fact (seed 000 §3.1):
    the wrapper decides it and the provider compiles one side, so the product
    outside serves its other uses alone (attention's exp2(x * c - m): one
    multiply-add a score). A runtime branch would gain nothing (the other
    side's product is hoisted above it), so the pass fires only at launch facts.
    Preserves: values exactly, effects, ABI, origins.
    Must not fire: a fragment factor, a factor computed from data or from two
    kernel scalars, a product with numerical attributes, a product with no other
    use, another combine or identity, a select whose other side is not the
    identity, a constant factor outside (0, inf) (remark).
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect", "::mlir::arith::ArithDialect"];
}

def PGPUDropFillSelects : Pass<"pgpu-drop-fill-selects", "::mlir::ModuleOp"> {
  let summary = "a select whose false value is what its masked lanes' reads give is dropped (seed 002 §3.4)";
  let description = [{
    Reads: float fragment `pgpu.select %m, v, splat(c)` with a constant c.
    Legality: seed 002 §3.4 (boundary neutralization removes or simplifies
    validity/fill); an invalid read returns its fill (seed 000 §6). v's value
    where %m is false is evaluated on constants: a `pgpu.load` or
    `pgpu.gather` whose validity implies %m (is %m, a conjunction holding it,
    or the same broadcast of such a validity) gives its fill; a constant
    splat its constant; a broadcast its operand's value under the same
    broadcast of %m; an exact IEEE add, sub, mul, min, max, neg or abs
    (no approximate or flush-to-zero) the folded result, rounded to nearest
    even as the providers compute it (a min or max of +0 and -0 is not
    folded). When that value is bitwise c and not a NaN, the select changes
    no lane.
    Rewrites: the select's uses take v; the select (and its false splat,
    when unused) is erased. A row sum's masked lanes, (0 - 0) * (0 - 0) of
    two reads with fill 0, lose one select per lane and block (171's
    nearest-centroid walk: sub, mul and the sum's add per lane and
    centroid remain).
    Preserves: every value bitwise, effects, ABI, origins.
    Must not fire: a false value that is no constant splat, a value whose
    masked lanes are not one constant (a read whose validity does not imply
    %m, a kernel scalar, a loop carry), another constant (a max fold's -inf
    beside a read's 0 fill), a NaN.
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect"];
}

def PGPUCountLoops : Pass<"pgpu-count-loops", "::mlir::ModuleOp"> {
  let summary = "a loop's count of true predicates accumulates in f32, an invariant disjunct after the loop (seed 002 §4)";
  let description = [{
    Reads: `pgpu.for` carries of 32- or 64-bit integers whose step is
    `acc + cast(p)` with p of i1 elements, the running value used by nothing
    else (a bucketize's count of cut points <= x).
    Legality: seed 002 §4 (exact rewrites). A disjunct q of p = c | q defined
    above the loop holds on every step where it holds, so the count is then
    init + trips; an f32 count is exact below 2^24.
    Rewrites: the loop counts c and, after it, `select(q, init + trips, acc)`;
    each count carry accumulates `cast<f32>(p)` from 0.0 (a compare into 0.0 /
    1.0 and a float add per lane and step, where the integer count costs a
    compare, an add, a select and a copy) and is converted and added to its
    integer carry after the loop; a loop not known to run at most 2^24 steps
    runs in chunks of 2^24 steps (an outer loop, one trip for shorter ranges).
    Preserves: every value bitwise, effects, ABI, origins.
    Must not fire: a running count used inside the loop, a step adding
    anything but a cast of an i1 (a sum, a count of an i8 cast), a disjunct
    that varies per step.
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect", "::mlir::arith::ArithDialect"];
}

def PGPUReciprocalDivisors : Pass<"pgpu-reciprocal-divisors", "::mlir::ModuleOp"> {
  let summary = "a division by a broadcast divisor is a product with its reciprocal (relaxed_normalization, seed 002 §4)";
  let description = [{
    Reads: f32 fragment `pgpu.binary div x, y` without numerical attributes
    whose divisor y is a `pgpu.splat` of a scalar d or a `pgpu.broadcast` of a
    fragment d that adds axes (each value of d divides many lanes).
    Legality: module numerics `relaxed_normalization` (seed 002 §1) relaxes
    the normalization of a normalized summary: x * (1 / d) is rounded twice
    (within 1.5 ulp of x / d) and differs at the f32 range's ends (a subnormal
    reciprocal for |d| > 2^126, an infinite one for |d| < 2^-126); zeros,
    infinities and NaNs give the quotient's special values.
    Rewrites: `r = 1 / d` once, after d's definition (shared by every division
    by a repetition of d), and each division `x * splat(r)` / `x *
    broadcast(r)` with the divisor's own repetition.
    Preserves: values up to the permitted rounding, effects, ABI, origins.
    Must not fire: numerics `source` (remark), a divisor that is not repeated
    (a fragment of the quotient's shape, a broadcast adding no axis), a
    division with numerical attributes, an element type other than f32, a
    scalar division.
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect", "::mlir::arith::ArithDialect"];
}

def PGPUMergeContractAdd : Pass<"pgpu-merge-contract-add", "::mlir::ModuleOp"> {
  let summary = "a zero-initialized contraction's sole addition joins its accumulator (seed 002 §3.4)";
  let description = [{
    Reads: `pgpu.contract` ops in the [M, K] x [K, N] form with a zero-splat
    accumulator and their result's single use.
    Legality: seed 002 §3.4 allows an ordinary contraction and its sole
    same-dtype addition consumer to merge (def-use and zero initialization
    are checked here; the merged op is built at the addition, where the
    addend dominates).
    Rewrites: `add(contract(l, r, 0), z)` becomes `contract(l, r, z)`; a
    chain of contractions each accumulating into the next down to a zero
    splat (the exact bf16 parts of an f32 operand, kir-to-pgpu) takes `z` at
    its bottom: `add(contract(a, r, contract(b, r, 0)), z)` becomes
    `contract(a, r, contract(b, r, z))`.
    Preserves: values (the sum is reassociated under the contraction's
    contract), effects, ABI, origins.
    Must not fire: a non-zero accumulator (other than such a chain), other
    uses of the result or of a chain link's (a
    scaling between the two included: moving a row scaling into the lhs was
    measured slower on the H200), an addend of another type.
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect"];
}

def PGPUNeutralizeBoundaries : Pass<"pgpu-neutralize-boundaries", "::mlir::ModuleOp"> {
  let summary = "a read's sub-range mask becomes the view's bound where the lanes it masks go unobserved (seed 002 §3.4)";
  let description = [{
    Reads: `pgpu.load` ops whose validity has a conjunct `iota(i0) < splat(b)`
    (broadcast along one fragment dimension d) on a dimension whose view
    coordinate is `splat(start) + iota(i0)` (or the iota), b not the view's
    extent: a ragged sub-range's rows, such as a grouped GEMM's group.
    Legality: seed 002 §3.4 "boundary neutralization removes or simplifies
    actual validity/fill". Every value computed from the read that depends on
    its lanes along d (through pointwise ops, broadcasts, transposes, a
    contraction where d is a free axis or the accumulator's, loop carries)
    reaches memory only through stores or unique scatters (a ragged group's
    rows placed by offsets read in the program) whose validity has the same
    predicate on the dimension those lanes occupy: what the masked lanes read
    is never observed.
    Rewrites: the conjunct becomes `splat(start) + iota(i0) < splat(extent)`,
    the view's own bound on that axis, with `0 <= splat(start) + iota(i0)`
    unless the start and the iota's base are provably non-negative (the shared
    sign analysis pgpu::provablyNonNegative, IndexSign.h; the read stays in bounds; a provider may realize it as a box access, a tensor
    descriptor, which zero-fills outside the view).
    Preserves: every observed value, effects, ABI, origins.
    Must not fire: a conjunct that is already the view's bound, masked lanes
    that reach a reduction or a
    contraction over d, a coordinate, a condition, or a store without that
    predicate. Remarks say which and where.
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect"];
}

def PGPUNarrowSelectedReads : Pass<"pgpu-narrow-selected-reads", "::mlir::ModuleOp"> {
  let summary = "a read whose lanes a select discards reads only the lanes it keeps (seed 002 §3.5)";
  let description = [{
    Reads: every `pgpu.load` with a fragment result; its uses through
    lane-wise ops (`pgpu.cast`, `pgpu.unary`, `pgpu.binary` whose fragment
    operands have the result's shape), each read only along that chain; the
    `pgpu.select` ops where the chains end.
    Legality: every chain ends as the true side of a select by one i1
    fragment C of the read's shape, defined before the read (dominating it),
    and C is an interval of lane positions: an order comparison (or an `and`
    of them) of positions (an iota, its broadcasts, plus or minus a splat or
    broadcast offset) with a splat or broadcast bound (a row's length, a
    query's position), so the lanes it drops are contiguous runs whose
    memory is then not touched.
    A lane where C is false computes a value that no select keeps, so what
    the read returns there is never observed; a lane-wise op computes lane i
    from lane i only (seed 000 §8: validity says which lanes touch memory,
    fill what masked lanes hold). A masked softmax's keys past a row's length
    (`T.where(t < lengths[b], x[.., keys], -inf)`, corpus 187) are no longer
    read.
    Rewrites: the read's validity V becomes `V & C` (a scalar V splat over
    the lanes first).
    Preserves: every observed value, effects, ABI, origins.
    Must not fire: a read also observed elsewhere (a reduction, a store, a
    coordinate, a broadcast or any op that is not lane-wise), a read that is
    a select's condition or false side, selects with different conditions,
    a condition on data (a dropout's hashed keep mask: scattered lanes save
    no traffic and would cost the read its vector width), an equality,
    a scalar condition, a condition computed after the read, a validity
    that already implies C (each conjunct of C is one of the validity's, or
    computed alike: the tail mask of a blocked walk). Remarks say which.
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect"];
}
def PGPUAnyOfRanges : Pass<"pgpu-any-of-ranges", "::mlir::ModuleOp"> {
  let summary = "an OR over positions of coordinate comparisons is an interval's nonemptiness (seed 002 §3.5)";
  let description = [{
    Reads: i1 OR reductions along one axis r, from false, of a conjunction
    (ands, selects with a false alternative) of comparisons `K pred Q` where K
    is the positions laid along r (`iota(base)`, plus a splat offset) and Q
    is constant along r (a broadcast along the other axes, a splat, a scalar),
    every comparison over the same positions.
    Legality: K's lane j holds k0 + j for j in [0, S), so each comparison
    admits a half-line of j (K < Q: j < Q - k0; <=: j < Q - k0 + 1; >:
    j >= Q - k0 + 1; >=: j >= Q - k0; mirrored when written Q pred K) and the
    conjunction an interval; the OR is its nonemptiness, exactly
    (predicate range analysis from coordinate expressions, seed 002 §3.5).
    Rewrites: the reduction becomes max(0, lower bounds) < min(S, upper
    bounds) on the result's lanes (index operations per lane in place of a
    predicate per lane and position and a cross-lane reduction). Runs after
    the online rescaling, whose row-guard proof reads the conjunction.
    Preserves: values, effects, ABI, origins.
    Must not fire: a conjunct that is not such a comparison (a loaded flag),
    a Q that varies along r, comparisons over different positions, other
    reductions.
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect", "::mlir::arith::ArithDialect"];
}

def PGPUSummaryEmptiness : Pass<"pgpu-summary-emptiness", "::mlir::ModuleOp"> {
  let summary = "a traversal's valid flag is true after its first tile: peel it, drop the flag (seed 002 §3.5)";
  let description = [{
    Reads: chains of `pgpu.for` loops over contiguous intervals (each starts
    at the previous one's upper bound from its results: a realized, narrowed
    fold) with an i1 carry f updated as `f | t` in every loop.
    Legality (seed 002 §3.5, summary emptiness): for each loop, t is proven
    true on every lane of the loop's first tile, assuming the loops before it
    ran nothing (so the tile starts at its lower bound, at most the first
    loop's) and it runs one (iv < upper). Local typed value propagation:
    constants, splats, or/and/select, an OR reduction's lane 0, index
    comparisons decided by lower bounds of linear forms over loop induction
    variables (a few-iteration one enumerated in products), program
    coordinates, declared parameter domains, iota lanes, min/max, selects
    (a guarding pgpu.if picks the side), non-negative products and
    quotients (ceil(x / y) <= x). Then f is true on every lane after the
    traversal's first tile. Triton pipeline only for now (the peeled tile
    doubles the body; tileiras' compile time grows with it), and only where
    the module's `kir.compile_options` ask for it (`summary_emptiness`,
    off by default: on the H200 the peeled tile ran slower, causal attention
    B4 H32 S4096 D128 bf16 349 against 441 TFLOP/s; a remark says so
    otherwise).
    Rewrites: the first tile runs once before the loops (a copy of the body
    of the first loop with an iteration, from the initial carries, selects on
    a constant initial f folded); that loop starts one step later; in every
    loop f is true (its selects and update folded) and no longer carried; f's
    final value is the first tile's, or the initial f when no loop runs.
    Preserves: values exactly (NaN, identity, source order and empty input:
    every tile computes what it computed), effects, ABI, origins.
    Must not fire: a t not proven on some loop's first tile (a lane may see
    no position there: a window band, a split segment, a loaded flag), a
    loop that writes memory, a body reading a value defined after the first
    loop, an intermediate flag read outside the chain.
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect", "::mlir::arith::ArithDialect"];
}

def PGPUMergeSegments : Pass<"pgpu-merge-segments", "::mlir::ModuleOp"> {
  let summary = "sibling segments over the same members run as one execution group (seed 000 §3, seed 002 §3.2)";
  let description = [{
    Reads: construction's dispatch chain of segments (pgpu::dispatchChain: pid
    < S ? g0(pid) : (r = pid - S; r < S ? g1(r) : ...)), one per kernel-level
    statement over a domain (a pixel shuffle's four `out[n, c, 2h + i, 2w + j]
    = x[n, 4c + 2i + j, h, w]`), each group's extents and body.
    Legality: the segments are disjoint program instances with no order
    between them (seed 000 §3: a group adds neither a launch nor a barrier),
    so any interleaving of their members is an execution the chain admits;
    running member m of every segment in one program, in segment order, is
    one of them. The bodies read only `In` views, which no instance writes
    (seed 000 §4.3).
    Fires when every segment of the chain has the same extents (the same
    values) and a straight-line body of pointwise code, reads of `In` views
    and plain writes (store, scatter).
    Rewrites: the first group takes the later groups' bodies in segment
    order over its own coordinates and becomes the space's sole group; the
    space launches one segment's count. The later passes then block one
    workset: each member's coordinates are decoded once for every statement
    (CSE merges the repeated index arithmetic) and one program writes the
    statements' neighbouring addresses (2w and 2w + 1) together, where the
    chain wrote them from programs a segment apart.
    Preserves: values, effects, ABI, origins.
    Must not fire: a sole group, extents that differ, a body with regions
    (loops, control, structured ops), atomics, scatter-reduce or buffers, a
    read of a writable view, a value of the routing used in a body, a
    ticketed chain (remark when a chain is kept).
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect"];
}

def PGPUFlattenWorksets : Pass<"pgpu-flatten-worksets", "::mlir::ModuleOp"> {
  let summary = "a workset that is a program's whole body becomes program axes (seed 000 §5, seed 002 §3.2)";
  let description = [{
    Reads: the program space's sole execution group whose body is pure scalar
    code and one `pgpu.foreach` (an explicit independent workset) with
    LaunchExpr bounds, last before the terminator. Reads of `In` views may
    come before the foreach (a sequence's length) when it is a nest of
    foreaches around straight-line code (elementwise members over several
    axes) and their values, through casts and index arithmetic, are only
    compared or used as coordinates of accesses (they bound, mask or offset
    the members: a packed sequence's start row, corpus 250; values entering
    the arithmetic, a channel's weights, keep the row form); the nest then
    flattens whole.
    Legality: foreach members are independent (seed 000 §5), so running each
    as its own program computes the same; the grid stays a LaunchExpr. No
    instance writes an `In` view (seed 000 §4.3), so a read before the
    foreach, repeated by every new program, reads what the one program read.
    Sibling foreaches of the body over the same bounds (one per stored
    output: a pool's values and its argmax indices), with only pure code
    between them, no view both read and written in the group and no view
    written by two of them (unless their writes of it differ modulo a
    constant on some axis for any two members: a rotary embedding's
    out[.., 2i] and out[.., 2i + 1], each pair then read once), first become one foreach whose member runs their
    bodies in order (their members are independent across the worksets too).
    Rewrites: the trip count max(hi - lo, 0) joins the group's extents as a
    trailing axis and multiplies the program space's extent; the member is
    lo + the new coordinate; the body is inlined. Repeats while the new body
    is again such a foreach. Natural spellings then map alike: `T.parallel(b)`
    around `T.matvec` reaches the later passes as the batched contraction does.
    In construction's chain of segments (pgpu::dispatchChain, waiting
    segments and the ticketed end included: phases that use what an earlier
    one wrote to a kernel-level buffer), each segment whose members compute a
    product (a range_reduce multiplying two reads: chained GEMMs' phases)
    flattens the same way on its own group; its count, the product of its new
    extents, replaces its bound and shift in the chain's routing (so later
    segments' waits, which count the instances before them, follow), and the
    space's extent becomes the segments' sum (at least 1 with a ticketed end).
    Preserves: values, effects, ABI, origins.
    Must not fire: other effects or regions in the body (they would run once
    per new program), sibling foreaches over different bounds or one
    reading a view another writes, reads of a view the kernel writes, reads before a
    foreach whose members loop (their row form is blocked by
    pgpu-tile-column-reductions and the tile walks) or before a foreach of
    one axis (a row, which form-blocking walks in blocks),
    bounds that depend on the
    program or on data, several segments or dispatch code (remark when a
    foreach is present), other than a chain's segments that compute a
    product (a segment of elementwise or windowed members keeps its rows).
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect", "::mlir::arith::ArithDialect"];
}

def PGPUMemberTickets : Pass<"pgpu-member-tickets", "::mlir::ModuleOp"> {
  let summary = "a last-program finalization runs per member in the last instance that wrote its slice (seed 000 §3, §4.4, §9)";
  let description = [{
    Reads: the program space's sole execution group (under construction's
    dispatch guard) and its `pgpu.last_program` finalization: pure code and
    one `pgpu.foreach` over linearized members decoded by extents that are
    group axes.
    Legality: the group writes only by unconditional plain stores at its top
    level, naming each member axis as a coordinate at a fixed position; the
    finalization reads those resources only at its member's coordinates, and
    writes only untouched resources at coordinates naming its member; the
    other group axes provably have a member (some instance arrives).
    Rewrites: a new runtime-zeroed i32 workspace argument of one ticket per
    member; the finalization's body moves to the end of the group body under
    `pgpu.last_program %tickets[member axes] arrivals (product of the other
    extents)`; the whole-space finalization, the dispatch guard and the extra
    instance go.
    Preserves: values and effects (each member's finalization runs after
    every write it reads, published by the acq_rel ticket), the public ABI.
    Must not fire: finalization extents that are not group axes, reads of a
    written resource beyond the member's slice, conditional, scattered or
    atomic writes, effects besides loads and stores (remark says which).
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect", "::mlir::arith::ArithDialect"];
}

def PGPUFoldInWalks : Pass<"pgpu-fold-in-walks", "::mlir::ModuleOp"> {
  let summary = "a kernel-level fold beside an elementwise walk of its range is folded by the walk's programs (seed 002 §3.2, §3.4)";
  let description = [{
    Reads: a program space dispatching to exactly two groups (construction's
    chain): one without axes holding effect-free code, one blocked
    pgpu.region_fold over [0, hi) with constant identities (pgpu-form-blocking's
    kernel-level fold, `loss[0] = T.sum(...)`) and the fold's uses; and one with
    one axis (pgpu-refine-mapping's BLOCK_P members a program) holding
    effect-free code and one blocking pgpu.for without carries over
    [p * BP, min(p * BP + BP, hi)) that steps by the fold's step, its extent
    ceil(hi / BP) (the gradient beside the loss).
    Legality: the region fold's contract (any cut into ordered contiguous
    slices, summaries combined in order); the programs' chunks cut [0, hi)
    so; every summary component combines lane-wise by one associative,
    commutative binary, a fragment's only use its finishing reduction with
    it (pgpu-split-folds' scalar lanes), so each program's summary may be one
    scalar a component and the programs' scalars reduced in program order.
    The summarize's segment end bounds only its lanes (`iota(b) <
    splat(end)`, the iota one step wide), so the walk's own bound selects the
    same lanes. Neither group writes a view the other accesses.
    Rewrites: the walk's loop carries the fold's summary: each block b also
    inlines summarize(b, hi_p) and the combine (so CSE shares the loads both
    read: the inputs cross memory once); after the loop each program stores
    one scalar a component (fragments reduced by the finishing reduction) at
    [p] of a first-write workspace [WALK_PARTIALS]; `pgpu.last_program
    %tickets[0] arrivals P` (P = max(ceil(hi / BP), 1), a zero-filled i32
    ticket) loads the P scalars 1024 at a time as a fragment (the identity
    past P), reduces them with the combine and runs the fold's uses (a
    finishing reduction is the combined scalar). The fold's group leaves
    the chain: the space is the walk's group over P programs (one on an
    empty range, which still runs the uses). Adds the workspace extent
    WALK_PARTIALS (pgpu.workspace_extent).
    Preserves: values up to the association of the fold's combine, effects
    (each output element written once), ABI views, origins.
    Must not fire: other chains (one group, three or more, two with axes), a
    fold not starting at 0, several folds or loops, a combine that is not
    lane-wise or a fragment used past its finishing reduction, a summarize
    that uses its segment end otherwise, a walk with carries, an offset, a
    step or bound that is not the fold's, effects or control outside the
    walk's loop or before the fold, a view one group writes and the other
    accesses, a kernel that binds WALK_PARTIALS already.
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect", "::mlir::arith::ArithDialect"];
}

def PGPUSplitContractions : Pass<"pgpu-split-contractions", "::mlir::ModuleOp"> {
  let summary = "a tiled contraction's K loop split across program instances, partial tiles added by the last arrival (seed 002 §3.2, §3.4, §4)";
  let description = [{
    Reads: the program space's one execution group (its body, or the body of
    pgpu-form-tiles' persistent tile walk `pgpu.for %pid to TOTAL step
    PROGRAMS`) with one extent; the first pgpu.for in the group's block (the
    K loop) and the ops after it (its epilogue).
    Legality: every value the loop carries is a numeric fragment that starts
    at a zero splat and is used once, as the accumulator of a pgpu.contract
    whose result the loop yields in its place: the loop is a sum of its
    steps' products, so its steps may be cut into contiguous chunks summed
    from zero and the chunks' sums added (the association of the sum
    changes, as any K order of a tiled contraction; the order is fixed, so
    the result is the same bits on every run at one binding). The loop body
    writes no memory; effects before the loop run in chunk 0 only. A Gram
    matrix X^T X and a GEMM of two views split alike: the Triton provider's
    staged-store, pipeline-depth and resource analyses read the branch
    SPLIT_K's binding takes (the unsplit loop at SPLIT_K = 1), and each copy
    of the loop keeps its contraction's precision.
    Rewrites: the group gains a trailing axis `split_k` of SPLIT_KS =
    max(min(SPLIT_K, steps), 1) members (steps = ceil(max(U - L, 0) / step);
    spelled `select(SPLIT_K != 1, that, 1)`, a constant 1 at SPLIT_K = 1);
    the program space (and the persistent walk's bound and program count)
    grows by that factor. The loop and its epilogue become `pgpu.if SPLIT_K
    != 1` (the parameter: SPLIT_K = 1 leaves a constant branch) over (the loop on this chunk's steps [L + c * chunk, L + (c + 1) *
    chunk) clamped to U, chunk = ceil(steps / SPLIT_KS) * step, its results
    stored to workspace [SPLIT_K_POINTS, SPLIT_K_SPLITS, ...],
    `pgpu.last_program %tickets[point] arrivals SPLIT_KS` holding a loop
    that adds the chunks' partials in chunk order from the zero tile, then
    the epilogue on the sums) and, otherwise, the original loop and
    epilogue. Adds the workspace extents SPLIT_K_POINTS (0 when not split)
    and SPLIT_K_SPLITS, a zero-filled i32 ticket per point, one first-write
    partial buffer per carried value, and the parameter SPLIT_K ([1, 2, 4,
    8, 16, 32, 64], default 1: a call's default splits where the output tiles
    are fewer than the multiprocessors and the reduced axis has many steps).
    Preserves: values up to the association of the K sum, effects (each
    output element written once), ABI views, origins.
    Must not fire: a K loop with a carried value
    that is not a zero-started contraction accumulator (a running maximum, a product read in the loop),
    a loop body that writes memory, a region op before the loop, a loop
    after it over the same range (an operand's row norms in the epilogue:
    the tile's last arrival would walk the whole reduced axis alone), bounds that
    are not launch-uniform, accumulators used past the group's block, several
    execution groups, a constant point count that fills the target's
    multiprocessors, a kernel that declares SPLIT_K already.
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect", "::mlir::arith::ArithDialect"];
}

def PGPUSplitFolds : Pass<"pgpu-split-folds", "::mlir::ModuleOp"> {
  let summary = "a region fold's segments across program instances, combined by the last arrival (seed 002 §3.2, §3.4, §4)";
  let description = [{
    Reads: the program space's sole execution group, or the one segment of
    construction's dispatch chain whose group holds region folds (a chain
    whose later segments wait before their groups and whose last guard has no
    else, an in-place update after another workset's reduction of its view:
    a waiting segment's target is its linear start, which follows the grown
    count); its blocked pgpu.region_fold ops (in pgpu.if branches only, mutually exclusive) with
    launch-uniform, equal bounds and constant identities; their summary
    components (numeric scalars, fragments of static or parameter extents)
    and the ops after each fold in its block (its uses).
    Legality: the region fold's contract (any cut into ordered contiguous
    slices, the combine merging an earlier and a later summary, the identity
    neutral): segments are folded from the identity and their summaries
    combined in segment order; effects outside the folds run once per point.
    Folds in sequence in one block (source numerics' two-pass softmax: the
    row maximum's fold, then the fold of exp(s - max) sums and products that
    reads it): the last is split. Where each earlier fold is alone before a
    split fold in its block, over the same segments, in the space's sole
    group, it is split in a first phase: the point's programs are 2 *
    FOLD_SPLITS, the first FOLD_SPLITS fold one segment of it each, store its
    summary to workspace of their own and count themselves (an atomic add,
    release) and stop; the next FOLD_SPLITS wait until the count is
    FOLD_SPLITS (an acquire read in a pgpu.while; every program waited for
    precedes the waiter in linear order, and a space that waits starts its
    instances so, as for pgpu-chain-scans), fold the stored summaries in
    segment order with the fold's combine and run the rest of the block, the
    split fold's segment among it; the split fold's last arrival returns the
    count to 0. Where that first-phase fold and the split fold after it hold
    the same product loop (a read-only pgpu.for of a pgpu.contract, cut or
    not by pgpu-narrow-predicates: a fused linear cross-entropy's maximum and
    exp-sum over h @ W^T's tiles, same ops on the same values and segment
    bounds), the first phase computes each tile of its segment once, in a
    loop before its fold, storing it to workspace [FOLD_POINTS, FOLD_TILES,
    tile] at [point, segment]; both phases' folds load the tile instead of
    running the K loop (the product once, not twice; seed 002 §3.4). Must not
    fire on products that differ. Otherwise the earlier folds run whole in every segment's
    program. Either way every segment folds its slice with the same complete
    earlier summaries (for a maximum the same bits; other combines regrouped
    as any fold's); no partial summary is rescaled, so this needs no
    numerical permission beyond the folds' own contracts (seed 002 §4).
    Rewrites: the group gains a trailing axis `fold_split` of FOLD_SPLITS =
    max(min(FOLD_SPLIT, tiles), 1) members (the program space grows by that
    factor), 1 where the launch takes no branch holding a split fold (the
    split folds each under pgpu.if ops with launch-uniform conditions: the
    disjunction of their branches' conjunctions, hoisted before the space;
    elsewhere, folds left whole on kept tiles or a staged row run in the
    first segment's program only, so a split there would add programs
    without work); each fold becomes `pgpu.if FOLD_SPLITS != 1` over (the fold on
    this segment's tiles, its summary stored to workspace [FOLD_POINTS,
    FOLD_SPLITS, ...], `pgpu.last_program %tickets[point] arrivals
    FOLD_SPLITS` holding a region fold over the segments' summaries with the
    fold's combine and the fold's uses) and, in segment 0 only, the original
    fold and uses. Where every summary component combines lane-wise by one
    associative, commutative binary (add, mul, max, min, and, or, xor) and
    each fragment component's only use is its finishing pgpu.reduce of all
    lanes with that combine (a scalar component: a constant identity), each
    segment reduces its fragments and stores one scalar per component at
    [point, segment]; the last arrival then loads the point's FOLD_SPLITS
    scalars CAP at a time (CAP = FOLD_SPLIT's largest candidate: one block)
    as a fragment, the identity past FOLD_SPLITS, reduces it with the
    combine and runs the uses with the finishing reductions replaced (no
    walk of the segments one summary at a time). Adds the workspace extents FOLD_POINTS (0 when not split)
    and FOLD_SPLITS (pgpu.workspace_extent), a zero-filled i32 ticket per
    point, one first-write summary buffer per component, and the parameter
    FOLD_SPLIT ([1, 2, 4, 8, 16, 32, 64], default 1; up to 256 for a group
    without axes, one point, which fills the device only with as many
    segments as multiprocessors, and up to 1024 where its folds combine
    segment scalars in one block). A group without axes (a kernel-level fold)
    is one point (index 0). In a chain, the segment's count S (the product
    of its extents, 1 without axes) becomes S * FOLD_SPLITS in its bound and
    shift, and the space's total grows by the same; the other segments keep
    their programs.
    Preserves: values up to the association of the fold's combines, effects
    (each output element written once), ABI views, origins.
    Must not fire: a fold inside a loop or another structured op, unit
    segments (not blocked), a fold continuing another (non-constant
    identity), bounds that are not launch-uniform or differ between folds,
    two folds in one program that are not in sequence in one block, an
    earlier fold that writes memory, summaries used past their block, a constant
    point count that fills the target's multiprocessors, several groups
    outside a dispatch chain, several segments of one holding folds, or a
    fold capturing workspace (pgpu-keep-fold-tiles' kept tiles, which only
    the program that kept them holds).
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect", "::mlir::arith::ArithDialect"];
}

def PGPUSplitMemberReductions : Pass<"pgpu-split-member-reductions", "::mlir::ModuleOp"> {
  let summary = "a parallel member's statistics across program instances, in two phases (seed 002 §3.2, §4)";
  let description = [{
    Reads: a kernel whose sole program space holds one execution group with
    axes (one member a point: a channel, a row); the group's top-level
    pgpu.range_reduce ops (bounds, identities, element and combine regions)
    and the other top-level ops.
    Legality: an ordinary reduce is associative and commutative (seed 002
    §4): a member's reduced range may be cut into contiguous slices, each
    reduced from the identity, the partials combined in slice order. A
    reduction reading another's result (a variance's squares about the mean)
    needs the first's merged value: its slices run after a wait on the
    first's arrivals (acquire / release, seed 000 §4.4); programs start in
    linear order and the waited-for ones precede the waiter.
    Requires equal launch-uniform bounds, each reduction a perfect nest over
    the member's several axes (its element nothing but an inner range_reduce
    it yields, down to an element without regions; a channel's N x H x W;
    inner bounds may be computed in the program from no reduction, a group's
    clipped channels),
    constant identities, reductions that write no memory, at least one reading another (two phases), no
    reduction reading a second-phase one, no other op with regions at the
    top level but that workset, writes without results to views the group
    does not read.
    Rewrites: MEMBER_SPLITS = max(min(MEMBER_SPLIT, rows, ceil(8 * SMs /
    points)), 1) (rows: the outer reduced range; points: the group's
    members), 1 where a member has at most 16384 elements (one block of the
    walk's largest candidate; where every nest bound is launch-uniform);
    where it is 1 the body runs as it was (in an if directly in the group:
    pgpu-stage-rows still stages a member that fits one block). A trailing
    workset (pgpu.foreach over the outer range from 0, reading a
    second-phase result: a normalization's writes, corpus 235 and 130) makes
    three phases: 3 * MEMBER_SPLITS members, the second phase counting
    itself (release) instead of arriving, members 2 * MEMBER_SPLITS + m
    waiting for that count (acquire), merging both phases and writing slice
    m of the workset, the point's last arrival returning both counts to 0;
    the workset is then the member's only write. Otherwise the group gains the
    trailing axis `member_split` of 2 * MEMBER_SPLITS: member m <
    MEMBER_SPLITS reduces slice m of the first-phase reductions, stores each
    partial at [point, m] of first-write workspace [MEMBER_POINTS,
    MEMBER_SPLITS] and counts itself (atomic add, release); member
    MEMBER_SPLITS + m waits for that count (acquire), merges the first
    phase's partials (a range_reduce over [0, MEMBER_SPLITS) with the
    reduction's combine), runs the pure ops and slice m of the second-phase
    reductions, stores their partials, and arrives at `pgpu.last_program
    %tickets[point] arrivals MEMBER_SPLITS`, whose body merges every
    reduction and runs the member's ops with their writes, then returns the
    first phase's count to 0. Declares MEMBER_SPLIT ([1, 2, ..., 64],
    default 16).
    Preserves: values up to the association of the reductions' combines;
    the merge is in slice order (no atomics): the same bits on every run at
    one binding; effects (each written once, by the last arrival); ABI
    views; origins.
    Must not fire: a member reduced over one axis (a row [0, S) or [0, w):
    the covering rule's whole-row block and pgpu-stage-rows / pgpu-pack-rows'
    staged and packed paths, chosen by the row's length at each call), an
    element computing beyond its inner reduction (a contraction nest:
    pgpu-form-tiles' tiles), several program spaces or groups, a group
    without axes (pgpu-split-row-reductions' case), one phase (no reduction reads
    another), a reduction reading a second-phase one, a loop or structured op
    beside the reductions other than one trailing workset over the outer range
    reading a second-phase result, a write beside that workset,
    differing or program-computed bounds, a
    non-constant identity, a read of a view the group writes, a kernel that
    declares MEMBER_SPLIT.
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect", "::mlir::arith::ArithDialect"];
}

def PGPUSplitMemberWorksets : Pass<"pgpu-split-member-worksets", "::mlir::ModuleOp"> {
  let summary = "a parallel member's chain of worksets across program instances, one phase each (seed 000 §5, seed 002 §3.2)";
  let description = [{
    Reads: a kernel whose sole program space holds one execution group with
    axes; the group's top-level pgpu.foreach worksets (their bounds, the
    buffers their bodies store and load) and the other top-level ops.
    Legality: a workset's iterations carry nothing and do not conflict (seed
    000 §5): its range may be cut into contiguous slices, each run by another
    program. A workset reading a buffer an earlier one wrote (kir-row-parallels'
    kept tensors: a squeeze-excitation's channel means, then the hidden
    vector from all of them, then the gate, then the scaled writes) needs all
    of that one's slices stored: its slices run after a wait on the point's
    count (acquire / release, seed 000 §4.4); programs start in linear order
    and the waited-for ones precede the waiter.
    Requires launch-uniform workset bounds; writes in the worksets by stores
    and buffer stores only, each buffer written by one workset, in invocation
    workspace, and read by no workset of its phase or before; no other op
    with regions at the top level, and those without regions writing no
    memory and reading no workset's buffer; two phases at least (a workset's
    phase: one more than the latest phase whose buffers it reads, 0 where it
    reads none); no read of a view the group writes.
    Rewrites: MEMBER_SPLITS = max(min(MEMBER_SPLIT, steps, ceil(8 * SMs /
    points)), 1) (steps: the first workset's range; points: the group's
    members), 1 where the first phase's worksets walk at most 16384 elements
    a member (their perfect nests' launch-uniform extents); where it is 1 the
    body runs as it was (in an if directly in the group). Otherwise the group
    gains the trailing axis `member_split` of PHASES * MEMBER_SPLITS: member k
    runs phase p = k / MEMBER_SPLITS: it waits (p > 0) until the point's
    count in zero-filled workspace [MEMBER_POINTS] is p * MEMBER_SPLITS,
    runs slice k % MEMBER_SPLITS (ceil(range / MEMBER_SPLITS) iterations,
    clipped) of each workset of phase p, then counts itself (release), or in
    the last phase arrives at `pgpu.last_program %tickets[point] arrivals
    MEMBER_SPLITS`, whose body returns the count to 0. The ops without
    regions run once before the phases. Declares MEMBER_SPLIT ([1, 2, ...,
    64], default 16).
    Preserves: values (each iteration runs once, as written: the same bits
    as one program's chain); effects (each element written once); ABI views;
    origins.
    Must not fire: one phase (no workset reads another's buffer), a
    top-level reduction or other structured op beside the worksets
    (pgpu-split-member-reductions' statistics), a top-level write, a workset
    writing by atomics or a scatter, a workset reading its own buffer, a
    buffer outside invocation workspace, bounds computed in the program,
    several program spaces or groups, a group without axes, a read of a view
    the group writes, a kernel that declares MEMBER_SPLIT.
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect", "::mlir::arith::ArithDialect"];
}

def PGPUSplitRowWalks : Pass<"pgpu-split-row-walks", "::mlir::ModuleOp"> {
  let summary = "a long row's blocked statistics across program instances, in two phases (seed 002 §3.2, §4)";
  let description = [{
    Reads: a kernel whose sole program space holds one execution group ending
    in a staged row path (pgpu-stage-rows' `pgpu.if`, after pgpu-pack-rows)
    whose blocked branch is a loop over the program's rows; the row body's
    blocking walks (pgpu.for stepping by a declared block parameter, carrying
    one scalar that each iteration combines with a pgpu.reduce of its block)
    and its other ops.
    Legality: the walks come from ordinary reduces (associative and
    commutative, seed 002 §4): a row's blocks may be cut into contiguous
    slices, each walked from the identity, the partials combined in slice
    order. A walk reading another's result (a variance's squares about the
    mean) needs the first's merged value: its slices run after a wait on the
    row's first-phase count (acquire / release, seed 000 §4.4); programs start
    in linear order and the waited-for ones precede the waiter.
    Requires a launch-uniform staged test, a row loop of step 1 bounded by
    min(.., R) with R launch-uniform, walks over equal launch-uniform bounds
    and step whose carry starts at the block reduce's constant identity and
    combines with the reduce's kind, no writes in the walks, at least one walk
    reading another and none reading a second-phase one, other row ops pure,
    reads or writes without results to views the row does not read.
    Rewrites: MEMBER_SPLITS = max(min(MEMBER_SPLIT, blocks, max(ceil(8 * SMs
    / R), ceil(blocks / 8))), 1) where the staged test fails, else 1 (slices
    of at most 8 blocks where rows are many and long: the second phase
    re-reads its slice while what the resident first-phase programs stream
    still fits L2; corpus 137's 64 rows of 4M f32: 64 slices of 256 KiB a
    row, not 16 of 1 MiB); where it is 1 the program
    space and the row run as before. Otherwise the group gains the trailing
    axis `member_split` of 2 * MEMBER_SPLITS: member m < MEMBER_SPLITS walks
    slice m (ceil(blocks / MEMBER_SPLITS) blocks) of each first-phase walk of
    each of its rows, stores each partial at [row, m] of workspace
    [MEMBER_POINTS, MEMBER_SPLITS] and counts itself at the row (release);
    member MEMBER_SPLITS + m waits for the row's count (acquire), merges the
    first phase's partials (a pgpu.for over [0, MEMBER_SPLITS) with the walk's
    combine), walks slice m of the second-phase walks, stores their partials
    and arrives at `pgpu.last_program %tickets[row] arrivals MEMBER_SPLITS`,
    whose body merges every walk and runs the row's ops with their writes,
    then returns the count to 0. Declares MEMBER_SPLIT ([1, 2, ..., 64],
    default 64).
    Preserves: values up to the association of the walks' combines; the
    merge is in slice order (no atomics): the same bits on every run at one
    binding; effects (each written once, by the last arrival); the staged
    path; ABI views; origins.
    Must not fire: an author's ordered loop in the row (its step is not a
    block parameter), one phase, a walk reading a second-phase one, a
    structured op in the row besides the walks, a staged test computed from
    the row, several program spaces or groups, a read of a view the row
    writes, a kernel that declares MEMBER_SPLIT (pgpu-split-member-reductions
    split it already).
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect", "::mlir::arith::ArithDialect"];
}

def PGPUSplitRowReductions : Pass<"pgpu-split-row-reductions", "::mlir::ModuleOp"> {
  let summary = "kernel-level reductions' rows across program instances, merged by the last arrival (seed 002 §3.2, §4)";
  let description = [{
    Reads: a kernel whose sole program space has one program and one
    execution group without axes (kernel-level statements), or the segments
    without axes of construction's dispatch chain (corpus 274's `loss[0]`
    and `clip_frac[0]`, two one-program segments of one launch); the group's
    top-level pgpu.range_reduce ops (their bounds, identities, element and
    combine regions) and the ops after the last of them.
    Legality: an ordinary reduce is associative and commutative (seed 002
    §4): its rows may be cut into contiguous slices, each reduced from the
    identity, and the slices' results combined. Requires equal bounds defined
    outside the program space (launch-uniform), constant identities,
    reductions that write no memory and whose results only the ops after the
    last reduction read, no memory write before the last reduction, and after
    it no loop or structured op that writes memory (a workset reading the
    scalars: it stays whole in the one program). In a chain each
    qualifying segment is split on its own, its FOLD_SPLITS from its own
    rows (one FOLD_SPLIT for all; the workspace extent FOLD_SPLITS for the
    first split segment, FOLD_SPLITS_<segment> for later ones); each
    segment's count 1 becomes its FOLD_SPLITS in the chain's bound and
    shift and in the space's total, and each split segment has its own
    ticket. Fires only where
    pgpu-split-folds would not split the work: two or more reductions, or one
    whose element holds a loop or nested reduction (a row reduction per
    member, corpus 183's logsumexp per row). Not on a sole group that
    pgpu-form-tiles tiles as a Gram nest (a sum over (t, s) of a function of
    contractions free on t and s): its fold over t blocks of tile products
    is split by pgpu-split-folds; cut here, every (t, s) is a scalar dot.
    Rewrites: the space's one program becomes FOLD_SPLITS = max(min(
    FOLD_SPLIT, rows), 1), the group gains the axis `fold_split`; member c
    reduces rows [lo + c * chunk, lo + (c + 1) * chunk) ∩ [lo, hi) (chunk =
    ceil(rows / FOLD_SPLITS)) of every reduction and stores each result at
    [c] of first-write workspace [FOLD_SPLITS] (pgpu.workspace_extent);
    `pgpu.last_program %tickets[0] arrivals FOLD_SPLITS` (a zero-filled i32
    ticket, acq_rel) holds, per reduction, a pgpu.range_reduce over [0,
    FOLD_SPLITS) of the stored partials with the reduction's identity and
    combine, and the ops after the reductions (moved there: `sum / count`
    after the merge). Reductions whose elements hold loops first become one
    range_reduce with all their components (each combine on its own), in
    place of the last of them, so CSE shares their rows' walks (corpus 183's
    two sums of one row's logsumexp read the row once). Declares FOLD_SPLIT ([1, 2, ..., 1024], default 1; the
    call default of pgpu-split-folds' parameter, which then leaves the kernel).
    Where that one (fused) reduction's element holds nothing with regions but
    perfect nests over two or more axes with launch-uniform bounds (a
    sample's statistics over C x H x W, corpus 247's Dice sums; constant
    identities, float or 8-bit-or-wider results; the innermost element may
    hold reductions per member with launch-uniform bounds and straight-line
    regions, corpus 270's classes per pixel; the row's own reduction may
    reduce alike, its rows still split), a row's walks are sliced
    too: each nest becomes one walk over its flattened members [0, walk)
    (pgpu-form-blocking's flattening, PerfectNests.h), S = max(min(FOLD_SPLIT,
    walk), 1) (walk: the first nest's), the space max(rows, 1) * S programs
    (FOLD_SPLITS); program c runs the element up to its last nest on row lo +
    c / S, each nest on members [s * chunk, s * chunk + chunk) ∩ [0, walk)
    (s = c % S, chunk = ceil(walk / S); empty without rows) and stores each
    nest's result at [c]; the last arrival reduces the rows, each row's nests
    the merge of its S partials in slice order with the nest's combine, the
    rest of the element as written, then runs the ops after the reduction.
    Sibling walks over one slice are then one walk (pgpu-form-blocking).
    Preserves: values up to the association of the reductions' combines; the
    merge is in member order (no atomics), so the output bits are the same on
    every run at one binding; effects (each written once); ABI views; origins.
    Must not fire: several program spaces or groups (outside a dispatch
    chain), a group with axes, bounds computed in the program or differing between reductions, a
    non-constant identity, a reduction read by a later reduction, a write
    before the last reduction, a writing loop after the reductions, or a lone
    reduction without nested loops (pgpu-split-folds' case).
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect", "::mlir::arith::ArithDialect"];
}

def PGPUPairBlocks : Pass<"pgpu-pair-blocks", "::mlir::ModuleOp"> {
  let summary = "pairs a group axis's coordinates j and N-1-j in one program where fold ranges narrow along it (seed 002 §3.2)";
  let description = [{
    Reads: the program space's sole execution group; the blocked
    pgpu.region_fold ops in it whose bounds depend on a group coordinate
    (after pgpu-narrow-fold-ranges: a causal mask's key range grows with the
    query block).
    Legality: a kir.parallel's members may run in any order and in any
    program; every coordinate still runs exactly once (a program runs j, then
    N-1-j when they differ).
    Rewrites: that axis's extent N becomes PAIR_BLOCKS = 2 ? ceil(N/2) : N
    (the program space with it); the group body becomes pgpu.if
    PAIR_BLOCKS != 1 (a launch fact) over a two-trip pgpu.for running the body at coordinate
    j + k * (N - 1 - 2j) when k = 0 or that differs from j, else the original
    body. Declares PAIR_BLOCKS (the coordinates a program runs: [1, 2],
    default 1; a call's default takes 2 for launches of a few waves, which
    the hardware cannot balance).
    Preserves: values, effects (each coordinate's once), ABI views, origins.
    Must not fire: several groups, no fold range depending on exactly one
    (non-fold_split) coordinate, ranges depending on it only through values
    read from memory (tree attention's prefix_len[b]: lengths in no order
    along the axis, so pairing would only halve the programs), a body using
    the linear program index, or a pgpu.while (a wait on another program
    would then wait on itself).
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect", "::mlir::arith::ArithDialect"];
}

def PGPUOrderProgramAxes : Pass<"pgpu-order-program-axes", "::mlir::ModuleOp"> {
  let summary = "runs the programs that read one loop tile adjacently: the group axis it is shared along made innermost (seed 002 §3.2)";
  let description = [{
    Reads: the program space's sole execution group (at least three axes of
    role "axisN", an optional last "fold_split"); the pgpu.load ops of
    fragments inside its loops and the group coordinates their coordinates
    are computed from (a loop's own arguments, a key tile's position, are no
    coordinate).
    Legality: group instances are independent (a kir.parallel's members run
    in any order, in any program) and the body reads its coordinates, not the
    linear index: a permutation of the decoded axes runs every instance once
    with the same coordinates.
    Rewrites: where loop tiles depend on every ordered axis but one axis a
    with two or more axes inside it (attention's bias [H, S, T], the same for
    every batch member: its programs H * S / BLOCK_S apart), a becomes
    the innermost ordered axis (the others in their order; a fold_split axis
    stays last): its extent, role and block argument move, so the programs
    reading one tile are adjacent in launch order and fetch it once from DRAM
    (corpus 199 at B=4: 2 GiB of bias reads become about 0.5 GiB).
    Preserves: values, effects, ABI, origins (only the launch order moves).
    Must not fire: fewer than three ordered axes, an axis of another role
    (a tiling's, a split's), every such tile shared along the innermost axis
    (K and V across query blocks) or the next one (one extent apart: still
    L2 reuse), tiles shared along different outer axes, or a program index
    read other than by the group's decoding.
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect"];
}

def PGPUChainScans : Pass<"pgpu-chain-scans", "::mlir::ModuleOp"> {
  let summary = "region scans chained across program instances, one per segment (seed 002 §3.2, §3.4)";
  let description = [{
    Reads: the program space's sole execution group; its pgpu.region_scan ops
    (in pgpu.if branches only) with launch-uniform, equal bounds; the group's
    extents (view extents or constants) and the state components (numeric
    scalars, fragments of static or parameter extents).
    Legality: only `apply` runs in order, in source order (no reassociation,
    seed 002 §4); summarize and emit of one segment read the source and the
    state before it, as the ordered loop does; effects outside the scans run
    once per point (under the first segment, or the last when they use the
    final state).
    Rewrites: the program space gains a leading axis over the segments
    (1 + (SCAN_CHAIN - 1) * (max(ceil_div(U - L, S), 1) - 1) members) (its instances start in
    linear order: it waits); each scan becomes `pgpu.if SCAN_CHAIN != 1` over the
    chained body (state before the segment: the inits, or a two-slot
    workspace ring read after an acquire wait on a per-point i32 flag;
    summarize and apply on a non-empty segment; publish to the ring and
    release the flag unless last; emit) and the original scan (the ordered
    realization). Adds workspace arguments (the flags, filled with 0; one
    ring per state component, first-write) and the parameter SCAN_CHAIN
    ([1, 2], default 1: 1 is the ordered loop in one program; a call's default
    is 2 where the ordered programs are fewer than the multiprocessors).
    Preserves: values, effects (each output element written once), ABI views,
    origins.
    Must not fire: a scan inside a loop or another structured op, bounds that
    are not launch-uniform or differ between scans, group extents that cannot
    size workspace, state components of other types, effects outside the scans
    that have results, several groups.
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect", "::mlir::arith::ArithDialect"];
}

def PGPUMemberPartials : Pass<"pgpu-member-partials", "::mlir::ModuleOp"> {
  let summary = "a last-program sum over the execution group's members is added by each member as it finishes (seed 000 §6, §9; seed 002 §3, §4)";
  let description = [{
    Reads: a whole-space pgpu.last_program beside the program space's sole
    execution group of one axis m with extent E, and in its body (pure code
    and foreaches) foreaches over n whose every range_reduce is over [0, E)
    summing (add combine, zero identity; f32, i32 or i64) an element f(r, n)
    whose sum is stored unconditionally at n (a column sum over the rows
    that uses each row's value the group kept in a buffer: the dw of an
    RMSNorm backward written with a row buffer; a LayerNorm backward's dw
    and db, two sums in one foreach).
    Legality: the element writes nothing; it reads views no op of the kernel
    writes and buffers that the group writes only by unconditional stores at
    its top level at [m], read at [r]; its other operands and the foreach's
    bounds are defined outside the finalization. So instance m computes
    f(m, n) exactly as the last program would, after its own stores (the
    last program's acq_rel arrival publishes every merge), and the sum is the
    reduce reassociated and permuted in arrival order (its contract permits).
    Rewrites: per sum, a new workspace Sum over the stored view's axis at n,
    filled with 0 and kept so (`pgpu.kept`); at the end of the group body one
    foreach over n per finalization foreach scatter-adds each of its sums'
    f(m, n) into its Sum[n] (the member reads a column once for all of them), where a read of a buffer at [m]
    is the value of the group's last store there (not a reload: a program's
    store and later load of one address are ordered only within a thread,
    and a scalar is stored by one thread and read by all; a buffer left
    unread is no longer stored or passed); the reduce becomes a buffer_load
    of Sum[n] followed by a store of 0 back (the Triton provider spells the
    pair as one tl.atomic_xchg at L2). The E x (hi - lo)
    elements run spread over the E instances (each re-reading the row it
    just read) instead of in one program walking every column, at one
    atomic add per element: the costed choice of seed 002 §3, said by a
    remark at the reduce.
    Preserves: values up to the sum's association, effects, ABI views.
    A sum over [0, E) may also sit in a reduction over the columns in a
    foreach (corpus 256's load-balance loss: E * sum_e frac[e] * pmean[e],
    frac and pmean per-expert sums over the tokens), its element reading
    that reduction's index, or be a kernel-level statement's scalar (a
    foreach over [0, 1): the z-loss's sum of what each token kept): its
    workspace then spans each enclosing loop that runs more than once (from
    0; its bound a constant or a `pgpu.workspace_extent` MEMBER_COLUMNS
    bound before the space), [1] where none does; the member scatter-adds
    through one foreach per such loop (none for a scalar: one atomic add),
    the finalization reads Sum where the sum was, and (a reduction's element
    is pure) returns it to 0 by a foreach after the outermost reduction.
    Must not fire (any sum of the finalization failing a check leaves all of
    them): a ticketed finalization, several execution groups or a
    group of several axes, another combine, identity or element type, a
    reduce over [0, E) that is not such a sum, an element that reads a view
    the kernel writes, a buffer at other coordinates or written elsewhere,
    a value the finalization computes besides the enclosing loops' indices,
    or an enclosing loop from another start than 0 (a remark says which).
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect", "::mlir::arith::ArithDialect"];
}

def PGPUAtomicPartials : Pass<"pgpu-atomic-partials", "::mlir::ModuleOp"> {
  let summary = "split partials merged into one workspace tile by atomics, not summed by the last arrival (seed 000 §6, §9; seed 002 §4)";
  let description = [{
    Reads: ticketed pgpu.last_program finalizations (pgpu-member-tickets) at
    an execution group's top level whose body holds one range_reduce over
    [0, arrivals) summing (add combine, zero identity; f32, i32 or i64) one
    unmasked buffer_load of a workspace W at (the reduced index, the ticket's
    coordinates).
    Legality: W is written only by one unconditional buffer_store at the
    group body's top level, before the finalization, at (the arrival axis's
    coordinate, the ticket's coordinates), and read only there; the ticket's
    acq_rel arrival publishes every merge before the last arrival reads. The
    sum is the reduce reassociated in arrival order (its contract permits it).
    Rewrites: a new workspace Sum over W's other axes, filled with 0 and
    kept so (`pgpu.kept`: the last arrival stores 0 back after reading);
    the partial's store becomes `pgpu.scatter_reduce` add into Sum; the
    reduce becomes a buffer_load of Sum followed by that store of 0; W goes.
    Split-K's last arrival then reads one tile instead of SPLITS (H200, bf16
    512x512x65536, 128x256 tiles, SPLITS 16: 71.9 -> 54 us hand-edited).
    Preserves: values up to the sum's association, effects, ABI views.
    Must not fire: another combine, identity or element type; W read or
    written elsewhere or under control flow; a reduce not over all arrivals.
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect", "::mlir::arith::ArithDialect"];
}

def PGPUZeroFirst : Pass<"pgpu-zero-first", "::mlir::ModuleOp"> {
  let summary = "split partials added into an output tile the split-0 instance zeroed first, not merged by the last arrival (seed 000 §4.4, §6, §9)";
  let description = [{
    Reads: ticketed pgpu.last_program finalizations left by
    pgpu-atomic-partials and pgpu-form-tiles: at an execution group's top
    level, arrivals along the group's slowest axis, body = read of a kept
    workspace Sum, its store of 0, a store of the read value to a view C.
    Legality: C has Sum's element type and no other access; Sum is otherwise
    only the target of one add scatter-reduce before the finalization at the
    same coordinates and validity; the group is in the program space or the
    only op of its persistent walk, and the tile's coordinates can be computed
    before the group's main loop.
    Rewrites: when the walk's items fit the program instances (launch-uniform;
    always without a walk), the split-0 instance stores zeros to C's tile and
    arrives at the ticket before the main loop; every other instance waits
    (acquire) until the ticket is nonzero, scatter-adds its partial into C and
    arrives; split 0 scatter-adds its own at its end; the last arrival's body
    is empty. Otherwise the merge runs as before (in the else branch).
    Waiting relies on the split-0 instance having started: its linear index is
    smaller and there is one item per instance (as pgpu-chain-scans relies on).
    Split-K on the H200 hand-edited so: 48.9 against 50.8 us (cuBLAS 49.4).
    Preserves: values up to the sum's association (as pgpu-atomic-partials),
    ABI views, the kept buffers' zero state.
    Must not fire: another finalization body, C of another element type or
    accessed elsewhere, arrivals along a faster axis, other nesting.
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect", "::mlir::arith::ArithDialect"];
}

def PGPUDynamicWalk : Pass<"pgpu-dynamic-walk", "::mlir::ModuleOp"> {
  let summary = "a segment walk's tiles taken from a workspace counter, in the walk's order (seed 002 §3.2)";
  let description = [{
    Reads: execution groups with the role `segment walk` (pgpu-form-tiles):
    the members loop (one index carry: the tiles before the member) and, in
    it, the tiles loop stepping by the program count.
    Legality: every tile of the walk runs exactly once and whole in one
    program whichever program takes it (the counter hands out each value
    once); the tiles' bodies are unchanged, so values and effects are too.
    Rewrites: a one-element i32 workspace counter (filled with 0); each
    program takes its first tile index with a relaxed `pgpu.atomic_rmw add`
    before the members loop, which carries it; the tiles loop becomes a
    `pgpu.while` over the taken index (below the member's base + count, the
    tile base + t = index), taking the next index after each tile. Tiles
    then start in the walk's order whatever each one cost: the row tiles of
    one column strip (consecutive) start together and share the strip in L2
    (H200, ragged grouped GEMM: 0.69x -> 0.91x torch._grouped_mm hand-edited).
    Preserves: values, effects, ABI views, origins.
    Must not fire: no segment walk; a walk without that loop shape.
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect", "::mlir::arith::ArithDialect"];
}

def PGPURefineMapping : Pass<"pgpu-refine-mapping", "::mlir::ModuleOp"> {
  let summary = "enlarge per-element worksets: a program owns a range of the workset's members (seed 002 §3.2)";
  let description = [{
    Reads: the program space, its execution groups (one, or construction's
    chain of segments), and the group bodies.
    Legality: the group's instances are independent (a KIR workset), and its
    body is per-element straight-line code (no reductions; a
    scatter-reduce's region is its pure combine, whose collisions combine
    whichever program performs them, seed 000 §6; ordered loops as below; a
    `pgpu.if` whose branches are per-element code, which form-blocking
    if-converts: a merge that skips empty chunks, corpus 357), so any
    grouping of instances onto programs is legal. The dispatch must be the whole program
    space (one segment, linear coordinate = program coordinate), or a
    segment of construction's chain (below).
    Rewrites: the group's extents E_0..E_n become one extent
    ceil(E_0 * ... * E_n / BLOCK_P) (a declared parameter, candidates
    256..4096), which is also the program-space extent (LaunchExpr), and the
    body moves into a `pgpu.foreach` over the owned members
    [c * BLOCK_P, min(c * BLOCK_P + BLOCK_P, E_0 * ... * E_n)) of the row-major
    order; with several axes each member's coordinates are decoded from it
    (remainders and quotients by the extents), so a block spans rows when the
    innermost extent is small. Form-blocking then turns the foreach into
    fragments.
    Preserves: every instance's effects and values; ABI; origins.
    An ordered `pgpu.for` whose bounds are defined outside the group (the
    same for every member) with a per-element body counts as per-element
    work (each member walks the same loop; form-blocking runs a block of
    members through it together); each program's members become one block
    of lanes. Where such a loop reads a view at coordinates that vary with the
    member (a recurrence reading its channel's x[t, c] each step) the group
    declares BLOCK_P over 16..1024 (default 64): fewer per program keep more
    programs walking their loops at once. A loop that reads only values every
    member shares (Horner's rule over runtime coefficients c[j]) is sized as
    elementwise work (256..4096, default 2048): each shared read then serves
    a wide block of lanes.
    Row loops: a body of `pgpu.foreach` loops (a row's columns or slices
    of them, rotate-half's two halves) beside pure index code (a pool's or
    stencil's input rows 2 * i + dy, recomputed per lane from the decoded row)
    and loads (only where some loop's range depends on the member: that code
    computes it, or where its value only indexes reads in the loops: a
    position id pos[t] selecting the table rows cos[pos[t], d] they gather,
    read again per lane; a row's bias read beside loops of one range keeps
    one row a program), each
    loop over a range defined outside the program space, or over [0, n(m))
    with n(m) the length of a slice whose start depends on the member clipped
    to the view's axis (construction's max(min(e, C) - max(s, 0), 0) with
    e - s = w a launch value: a head's columns in a packed row, seed 000 §5),
    with a per-element body, and no buffer, nor view outside one loop, both
    read and written in the group (the loops' members are independent of
    each other's; a member's workspace row counted, then copied out, is not;
    a view read and written in one loop only, construction's in-place update
    x[t, h, lo], x[t, h, hi] = f(x[t, h, lo], x[t, h, hi]), is: that loop's
    members and the rows are independent, seed 000 §5): each loop becomes
    a foreach over [c * BLOCK_P, min(c * BLOCK_P + BLOCK_P, E * n)) of its
    members over all rows (E the group's members, n the loop's range or the
    bound max(w, 0); the column is the member's remainder by n, the row its
    quotient, the group's index code and loads recomputed from them, and
    under a bound every load and store also requires column < n(m)), and the
    programs cover the longest loop, so short rows fill a program's blocks
    instead of one row per program (issue 41). Several segments (separate
    `T.parallel` loops: construction's chain pid < S0 ? g0 : g1(pid - S0))
    are refined together when every group is row loops: each segment's
    program count replaces its S in the chain and the space's total.
    Otherwise, in a chain of several segments (a group without axes counts
    one instance, S = 1: a kernel-level statement such as a scalar loss),
    each per-element group is refined as a sole one would be (its members
    in foreachs of BLOCK_P), its program count replacing its S in the
    chain's bound and shift, and the space's total becomes the sum of every
    segment's count; the other segments keep their programs (an elementwise
    gradient beside its loss's reduction: 97_mse_loss_grad).
    Declares BLOCK_P 256..4096.
    Must not fire: a body with other loops or control, or with an ordered
    loop whose bounds depend on the member, a member-dependent range that is
    no clipped slice (or a masked loop with accesses other than loads and
    stores), row loops one of which reads a view another writes (or a view
    read before the loops and written in one), a row's read whose value
    enters the arithmetic or places a write, or several
    segments none of which is per-element (nor all row loops).
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect", "::mlir::arith::ArithDialect"];
}

def PGPUPrivatizeHistograms : Pass<"pgpu-privatize-histograms", "::mlir::ModuleOp"> {
  let summary = "count a blocked loop's constant scatter-adds into a privatized fragment, merged once (seed 000 §8, §9)";
  let description = [{
    Reads: a blocked loop (`pgpu.for`, no carries) whose only write is a
    `pgpu.scatter_reduce` with an integer add combine of a constant `c` (a
    splat) into a target (workspace buffer or view) whose last coordinate is
    lane-wide and whose other coordinates, if any, are scalars fixed for the
    loop (defined before it, or splats of such: a member's row of bins, as
    kir-to-pgpu constructs per-row histograms); the target's last extent E (a
    static size or a shape symbol a view argument declares, so a LaunchExpr).
    Legality: an add combine is associative and commutative, so the loop's
    updates may be regrouped: the count of active lanes per coordinate, times
    c, added once per coordinate after the loop, is the same sum. Every
    in-bounds coordinate is below E, so under the uniform guard E <= HBINS a
    `pgpu.histogram` into HBINS bins counts every active lane.
    Rewrites: `pgpu.if (E <= HBINS * HPASSES)` (a launch fact): a loop over
    bin ranges [r, r + HBINS) of [0, E) (bin-range tiling: each pass reads the
    loop's elements again); in each, the loop carries a
    `!pgpu.fragment<i32, [HBINS]>` of counts, each block adds the histogram
    of its coordinates minus r under the write's validity and the range's,
    and after the loop one scatter_reduce adds c * count to the target at
    bins r + i < E with a nonzero count (at the fixed coordinates before the
    last); else the original loop (direct
    atomics). HPASSES is declared (1, 2, 4, 8; default 1). HBINS is declared
    (candidates 32..32768; Triton keeps them to 2048, the selector targets
    those whose shared count array fits; `covers` E when E is a symbol, with
    `passes = "HPASSES"`: the call's default is the smallest candidate holding
    every bin, else the largest kept candidate in the fewest HPASSES that
    cover E, else the direct atomics; Triton drops the link; a static E has
    that default declared here, HPASSES's with it), and
    a BLOCK_P ownership of the enclosing mapping gets larger candidates
    (up to 524288, default 65536) so that each program merges its counts once for many
    elements instead of once per few.
    Preserves: the target's final contents (integer sums are exact in any
    grouping), other effects, ABI, origins.
    Must not fire: float or non-add combines, a non-constant value, a
    coordinate before the last that varies in the loop, loops with carries
    or other writes, a uniform last coordinate.
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect", "::mlir::arith::ArithDialect"];
}

def PGPUHoistInvariantReductions : Pass<"pgpu-hoist-invariant-reductions", "::mlir::ModuleOp"> {
  let summary = "a reduction nested in another's element that does not depend on the member is computed once before it (seed 000 §8, seed 002 §3.3)";
  let description = [{
    Reads: `pgpu.range_reduce` ops whose element body holds another
    `pgpu.range_reduce` (construction keeps a row statistic used inside an
    elementwise expression of an enclosing reduction per element: a JSD's
    per-row log-sum-exp inside the per-row sum over the vocabulary, O(V^2)
    a row), and the def-use dependence of the nested ops on the member.
    Legality: a nested reduction that writes nothing and whose bounds,
    identities and every value it uses are defined outside the enclosing
    element body (or by ops moved with it) has one value for every member;
    computing it once before the enclosing reduction, with the pure code
    over it (not integer division or remainder), computes the same values
    (seed 000 §8: the same members in the same order). The enclosing
    reduction's bounds must not depend on a memory read: with launch-value
    bounds an empty enclosing range does not make the moved reads'
    coordinates invalid (a CSR row's offsets could).
    Rewrites: moves those ops before the enclosing reduction, innermost
    nests first (a statistic invariant in two enclosing reductions leaves
    both); the enclosing element body is then straight-line code that
    pgpu-form-blocking blocks (BLOCK lanes a trip) instead of a scalar walk
    whose every member walks the row again.
    Preserves: values, effects, ABI, origins.
    Must not fire: a nested reduction that depends on the member (a prefix
    up to it), one that writes, an enclosing reduction whose bounds are
    read from memory (remark), reads and other effects (never moved alone).
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect"];
}

def PGPUInterchangeInvariantWalks : Pass<"pgpu-interchange-invariant-walks", "::mlir::ModuleOp"> {
  let summary = "a rows-outer nest whose body holds column statistics over the rows walks the columns outside, the statistics once per column (seed 000 §5, §8)";
  let description = [{
    Reads: a `pgpu.foreach` over rows r whose body is exactly a
    `pgpu.foreach` over columns d with bounds defined outside it (a 2-d
    write `out[lo:hi, feats] = f(x, stats)`, construction's rows-outer
    nest), and the def-use dependence of the inner body's ops on r.
    Fires when the inner body holds a read-only `pgpu.range_reduce` over
    the rows walk's own range [lo, hi) that does not depend on r: a
    per-segment statistic (mean, variance over a CSR segment's rows
    ptr[g] .. ptr[g + 1]) that construction computes again for every row
    of the segment, O(rows^2) a segment.
    Legality: the members of a foreach are independent (seed 000 §5), so
    the nest runs in either order; a reduction, a pure op and a read that
    do not depend on r have one value for every r (seed 000 §8).
    Rewrites: the outer loop walks d and the inner one r; those
    reductions, the pure ops (not integer division or remainder) and the
    scalar reads that do not depend on r move before the row walk, in
    order. A moved read's validity is conjoined with lo < hi: an empty
    row walk (an empty segment) reads nothing, and its moved values are
    used by nothing that runs; a moved reduction's element runs only on
    the walk's members. pgpu-tile-column-reductions then tiles the
    column walk as a column normalization: [BLOCK_R, BLOCK_C] tiles for
    each statistic, then for the write; one program per (segment,
    column block).
    Preserves: values, effects, ABI, origins.
    Must not fire: a nest without such a reduction (an elementwise 2-d
    write keeps its contiguous axis inner), a reduction over another
    range or one depending on r, columns whose range depends on r, a
    rows body holding more than the column walk.
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect"];
}

def PGPUTileColumnReductions : Pass<"pgpu-tile-column-reductions", "::mlir::ModuleOp"> {
  let summary = "2-d tiles for reductions that keep the contiguous axis: [BLOCK_R, BLOCK_C] blocks reduced along BLOCK_R (seed 002 §3.3)";
  let description = [{
    Reads: a `pgpu.foreach` over a kept axis d whose body is straight-line
    pointwise code, reads, writes and `pgpu.range_reduce` ops with
    straight-line element bodies; the def-use dependence of each value on d
    and on each reduction's member r.
    Fires when some reduction's element reads a view at coordinates that
    depend on r and whose last (contiguous) coordinate depends on d and not
    on r: `out[b, d] = sum_r x[rows(r), d]` over a plain slice, a runtime
    subregion or rows gathered through an index tensor. One-axis blocking
    would keep d a serial loop of scalar outputs, its lanes over r reading
    one element per row.
    Also fires on ragged segments (issue 42): a reduction over [lo, n(d))
    whose upper bound depends on d (read per member, as a CSR row's
    nonzeros from indptr[m], indptr[m + 1], or a position such as r < d)
    and whose lower bound does not, whatever its reads walk: one member of
    d per program or per loop step leaves a short segment's lanes idle.
    The members of a block of d then run together up to the block's
    longest range (a `pgpu.reduce` max of n over d's valid lanes, at least
    lo) but no further than lo + BLOCK_R * BLOCK_C (the tile's cover); every
    value of r is a [BLOCK_R, BLOCK_C] tile, valid where r < n(d) of its own
    member. Where the block's longest range passes the cover (a `pgpu.if`
    per program at run time), each member's members in [cover, n(d)) are
    walked one member of d after the other with all lanes of the tile
    (only the members past the cover: a loop over their count, each the
    first past the cover after the last, a min over d's lanes;
    r = r0 + i * BLOCK_C + j; the member's n and every value of d the
    element uses taken by `pgpu.extract`), reduced to a scalar and
    combined into that member's lane: one long segment among short ones
    costs its program (n - cover) / (BLOCK_R * BLOCK_C) trips instead of
    (n - cover) / BLOCK_R. Exact (seed 000 §8 regroups members). The
    bound: past it the tiles would spend more than BLOCK_C trips on one
    segment, as many lanes as one trip of the walk takes at once.
    Each member's lanes walk its own range, masked by r < n(d) of their
    own column: no cross-lane reduction in the loop builds the mask (a
    walk of the block's positions instead, each added into the segments
    holding it, cost a [BLOCK_R, BLOCK_C] membership and a max over
    BLOCK_C a trip, and measured slower on 47_csr_spmv).
    Legality: foreach members are independent (seed 000 §5) and a
    reduction may be regrouped and reordered (seed 000 §8).
    First, a reduction whose element is exactly another reduction yielded
    whole (`T.sum(x[n, hs, ws, cs], axis=(0, 1))`: the sum over h of sums
    over w), with the same combine and identity, inner bounds that do not
    depend on the outer member, and a read over both axes whose last
    (contiguous) coordinate depends on neither (NHWC channels), becomes
    one reduction over the flattened rows r in [0, H * W) (h = lo + r / W,
    w = lo + r % W, the divisor max(W, 1)): seed 000 §8 regroups its
    members. A nest whose contiguous coordinate walks w (NCHW) or whose
    combines differ is left alone.
    Rewrites: the foreach becomes a `pgpu.for` over blocks of BLOCK_C lanes
    of d; each reduction whose bounds are launch values (the same in every
    program) a `pgpu.region_fold` over segments of BLOCK_R lanes of r (summarize: one
    tile's members, valid below the segment's end, the identity elsewhere;
    combine: the reduction's combine lane-wise; the values it uses from
    outside are its operands, constants cloned in), so pgpu-split-folds may
    cut the rows into FOLD_SPLIT segments across programs where few column
    blocks would leave the device idle (a bias gradient's 8 blocks of 128
    columns over 65,536 rows), each other reduction (ragged, or bounds read
    from memory) a `pgpu.for` over blocks of BLOCK_R lanes of r; a
    value's fragment axes are the blocked axes it depends on, in the order
    [BLOCK_R, BLOCK_C] (d contiguous in lanes); reads and writes get the lane
    validity of their axes conjoined with their own; members on invalid r
    lanes are the identity; each block's tile is combined lane-wise into
    a [BLOCK_R, BLOCK_C] accumulator the fold or loop carries, reduced along
    BLOCK_R by one `pgpu.reduce` after it (not one per block). When the foreach is in the sole
    execution group, its bounds are LaunchExprs and the group's other code
    writes nothing, the blocks of d are a trailing program axis instead
    (seed 002 §3.2: the program space grows by ceil((hi - lo) / BLOCK_C),
    the group's reads run once per block): the kept axis is split across
    programs, and a call's default narrows BLOCK_C while the launch would
    not fill the device. Otherwise they are a loop in the program and
    BLOCK_C covers d's extent when d spans [0, S) of a named view axis.
    BLOCK_R covers what every reduced range spans: a named extent S of
    [0, S), or the constant width w (`covers = "5"`) of a slice clipped to
    its axis (a window of neighbouring channels, chans[max(c - 2, 0) :
    min(c + 3, C)]; SliceWidth.h), so a call's default takes the smallest
    candidate holding w instead of a tile of masked rows.
    The body may also walk r again in a nested `pgpu.foreach` (a column
    normalization's write pass: `y[rows, n] = e / T.sum(e)`) whose bounds
    do not depend on d and whose body is straight-line reads, pointwise
    code and writes, each write depending on both r and d; a read or write
    of it over both axes whose last coordinate walks d and not r is the
    fact the pass acts on too. It becomes a `pgpu.for` over blocks of
    BLOCK_R lanes of r, each trip one [BLOCK_R, BLOCK_C] tile whose reads
    and writes are valid on the lanes of both axes. Where the body holds
    such a walk, its reductions stay `pgpu.for` loops even with launch
    bounds (no region fold: split across programs, every segment would
    run the earlier reductions whole and the last arrival the write pass
    alone, while narrower column blocks add programs that share nothing).
    With the option `scans` (the provider spells a scan along axis 0 of
    a 2-d fragment: Triton), the body may also hold a forward
    `pgpu.range_scan` over r (a cumulative sum down the columns,
    `y[rows, n] = T.cumsum(x[rows, n])`; an EMA's affine maps; a selective
    scan's 16 states of them read out by a sum over the states) whose bounds and identity do not
    depend on d, whose element and combine are straight-line and whose
    emit is straight-line reads, pointwise code and writes over both axes.
    It becomes a `pgpu.for` over blocks of BLOCK_R lanes of r carrying one
    prefix per lane of d ([BLOCK_C], the identity first): each trip scans
    its [BLOCK_R, BLOCK_C] tile of members along BLOCK_R (`pgpu.scan` axis
    0, invalid r lanes the identity), combines the carry on the left of
    every prefix (seed 000 §8: regrouped, never reordered), emits the tile
    and carries its last row on (a `pgpu.reduce` along BLOCK_R keeping
    lane BLOCK_R - 1: exactly the prefix emitted there, whatever the
    combine), one carry and tile per component. An exclusive scan's lane r
    holds the member before it (the identity at the first): its prefix is
    r's exclusive one (a merge by an exclusive cumsum of flags down the
    tokens, corpus 264). Reverse scans are left alone. Each component keeps two tiles live (members and
    prefixes): with k components BLOCK_C's default halves down to 16 and
    then BLOCK_R's down to 2 until k * BLOCK_R * BLOCK_C <= 4096 (one or
    two components: [16, 128]; 32: [8, 16]).
    Also fires on a kept axis that is already a coordinate of the sole
    execution group (pgpu-flatten-worksets' whole-body workset: one column
    per program), the group body being such a body over it and the program
    space the product of the group's extents: the coordinate counts blocks
    of BLOCK_C columns (its extent ceil(E / BLOCK_C)) and the body is one
    block of lanes.
    The same on one segment of construction's dispatch chain (a bias
    gradient's column sums `db[n] = sum_m d[m, n]` beside the elementwise
    store of `dx = d`, one column per program reading one strided element
    a row): the segment's count in the chain's bound and shift and in the
    space's total (total - E + ceil(E / BLOCK_C)) is replaced; the other
    segments keep theirs.
    BLOCK_C: 16..1024, default 128; BLOCK_R: 2..128, default 16. Where a
    ragged reduction is tiled, BLOCK_C: 1..1024 and BLOCK_R: 2..1024. Where
    every ragged reduction's end is read from memory and clamped to one
    view extent S (offsets into [0, S): CSR rows' nonzeros) and the kept
    axis spans [0, E) of a view extent, the kernel states `pgpu.segments =
    {along = "BLOCK_R", across = "BLOCK_C", pool = S, count = E}`: a call's
    default takes BLOCK_R from the average segment S / E and BLOCK_C from
    the rest of the declared tile's lanes, narrowed to fill the device;
    BLOCK_C then defaults to 8 (each segment's lanes run to the program's
    longest segment: few a program keep it near the average). Each lane
    of a ragged tile is masked by its own member's end (r < n(d)), with no
    cross-lane reduction in the loop.
    A fact for call defaults only: nothing in the program reads it.
    Without it, a call that narrows BLOCK_C to fill the device (few long
    segments, down to one a program) widens BLOCK_R to its largest
    candidate.
    Preserves: values up to the reassociation the reductions allow, effects,
    ABI, origins.
    Must not fire: reductions that read along r contiguously (a row sum),
    nested loops or control other than such a walk (a nested workset whose
    bounds depend on d, or whose write does not depend on both axes), atomics, tuples or workspace in the body,
    a reduction lower bound that depends on d, a write that does not
    depend on d,
    fragments from outside, kernels that already declare BLOCK_R or BLOCK_C.
    Verifier after: the shared pgpu verifier.
  }];
  let options = [
    Option<"scans", "scans", "bool", /*default=*/"false",
           "also tile inclusive forward range scans (the provider spells a scan along an axis of a 2-d fragment)">
  ];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect", "::mlir::arith::ArithDialect"];
}

def PGPUTileSharedReductions : Pass<"pgpu-tile-shared-reductions", "::mlir::ModuleOp"> {
  let summary = "[TILE_M, TILE_N] tiles of members over a reduction whose walked reads every member of the outer axis shares (seed 002 §3.2, §3.3)";
  let description = [{
    Reads: the sole execution group of a program space whose last two axes
    are (a, b), the space the product of its extents (pgpu-flatten-worksets'
    members of a `T.parallel` and its inner vector axis; leading axes stay
    members of the program), whose body is straight-line
    pointwise code, reads, stores and `pgpu.range_reduce` ops with
    straight-line elements and combines; the def-use dependence of each value
    on a, b and each reduction's member r.
    Fires when a reduction over launch-uniform bounds reads, at coordinates
    that walk r, only views at coordinates free of a (a table row t[b, r]
    every member of a shares: 278's cut points cuts[f, c] of a member
    (n, f)), and its terms depend on a (the per-member x[n, f]): one member
    per program (or ROWS, pgpu-pack-rows) re-reads the row for every member
    of a and reduces it across lanes.
    Legality: the group's members are independent (seed 000 §5), so a program
    may own any tile of them; a reduction's terms may be regrouped and
    reordered (seed 000 §8), here combined in r order.
    Rewrites: the group's last two axes become blocks of TILE_M members of a and
    TILE_N of b (extents ceil(E / TILE), the program space their product);
    every value takes the fragment axes of the members it depends on
    ([TILE_M], [TILE_N] or [TILE_M, TILE_N], b contiguous in lanes), reads
    and writes valid on their lanes; each reduction becomes a `pgpu.for` from
    lo to hi step 1 carrying one [TILE_M, TILE_N] accumulator per result (the
    identity first): the element's values that do not depend on r are
    computed once before it, each trip reads the shared row's [TILE_N]
    elements once for the tile's TILE_M members of a and combines each
    member's term lane-wise. No cross-lane reduction remains.
    Declares TILE_M (1..256, default 128) and TILE_N (16..256, default 32:
    each lane's table reads serve its rows of TILE_M).
    Preserves: values (the reduction in r order), effects, ABI, origins.
    Must not fire: a group of fewer than two axes or not the whole program space;
    loops, control, scatters or atomics in the body; a write whose last
    coordinate does not walk b alone or that does not depend on a; a
    reduction whose bounds are computed in the group, whose element or
    combine holds regions, whose walked reads depend on a (a dot product's
    x[n, r]: no row is shared), or whose terms do not depend on a; fragments
    from outside; kernels that declare TILE_M or TILE_N already.
    Verifier after: the shared pgpu verifier.
  }];
  let dependentDialects = ["::tessel::pgpu::PGPUDialect", "::mlir::arith::ArithDialect"];
}

#endif // TESSEL_PGPU_PASSES
