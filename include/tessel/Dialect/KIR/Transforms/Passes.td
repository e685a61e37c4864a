//===- Passes.td - kir passes ------------------------------*- tablegen -*-===//

#ifndef TESSEL_KIR_PASSES
#define TESSEL_KIR_PASSES

include "mlir/Pass/PassBase.td"

def KIROnlineFolds : Pass<"kir-online-folds", "::mlir::ModuleOp"> {
  let summary = "a row maximum and the reductions of exp(x - max) over its axis become one region fold, or two under source numerics (seed 002 §1, §3.4)";
  let description = [{
    Reads: each `kir.reduce` maximum inside a `kir.parallel` body; the domain
    of every tensor axis (loads' and broadcasts' domain operands, `kir.indices`,
    through pointwise ops and contractions); def-use in the body; the module's
    `kir.compile_options`.
    First, where the one-fold rewrite is permitted (below): a contraction in a
    `kir.parallel` body whose operand is a rank-1 float row E divided by a
    broadcast (no kept axis) of E's own plain sum, and which reduces that row
    whole (softmax's weights fed to the product, `T.vecmat(e / T.sum(e), v)`),
    takes E instead and its result is divided by the sum (broadcast over the
    result's axes): sum_k (e_k / s) v_k = (sum_k e_k v_k) / s, one division an
    output instead of one a key; it rounds differently, hence the permission.
    Not where a cast sits between the division and the product (the author's
    rounding), nor under source numerics.
    First of all, a `kir.broadcast` in a `kir.parallel` body of a tensor over its
    own domains in its own axis order (a bias `b[classes]` spread over `classes`)
    is replaced by that tensor (the same values).
    Legality: the maximum m reduces a float rank-1 X over its only axis A (one
    domain D), or a float rank-2 X [H, A] over its last axis (per-row
    summaries: H independent folds over A as one fold whose summary keeps the
    free leading axis H, m and the sums [H], a contraction's result [H, ...];
    multi-query decode's [heads, keys] score tile; not where X is masked or
    H's domain is defined inside the body); every tensor over A in the body is computed from loads with
    one domain coordinate D (the sources; a read whose D is not its first axis, a classifier's W [K, C]
    folded over C, is sliced through a `kir.transpose` with D first, created after the read and
    transposed back in each summarizer), `kir.indices` of D and values
    from outside the axis computation (scalars, tensors not over A, constants,
    scalars broadcast over D) through pointwise ops, selects, casts,
    broadcasts and contractions that keep A; m is used in it only as
    `X - broadcast(m)` under `exp` (P); every other use of a tensor over A is a
    float `sum` (reduce add) or a contraction reducing A, of P-scaled terms (P,
    its float casts, P times values free of m, and `where(c, P, 0)` on either
    side with c a boolean row over A free of m: a masked term, zero where c
    rejects it, not on a per-row [H, A] row) or of plain values, or a
    store over A (the store epilogue below); the reductions' results are
    used after the last of them and feed nothing of the axis computation,
    except scalar pure ops not over A written before the last reduction
    (`den = T.sum(e) + x` before the P.V product), whose users are the same:
    they are moved after it. A joined maximum: m's only user is
    `maximum(m, v)` with v a float scalar from outside the axis computation,
    computed before the last reduction and not from it (gpt-oss's attention
    sinks); the axis computation then subtracts the join. The exact two-pass
    rewrite captures maximum(pass 1, v) in pass 2 (the NaN fix-up tests that
    final maximum); the online fold sums relative to its own maximum m_f and,
    after it, m = maximum(row max, v) and each P-scaled component is rescaled
    by where(ok, exp(m_f - m), 0).
    Several softmaxes over A in one body (another maximum over A, or a region
    fold over A built for one: differential attention's o1 - lam * o2): "the
    body" above is this maximum's own computation, the ops its input reads,
    those reading a computed value of it (not a read: a load shared with the
    other softmax, V, is a source of both folds) and what those read; each
    maximum folds in turn. A value of one shared with the other (s2 = 2 * s1)
    still refuses.
    A rank-1 tensor over D computed before the loop (`bias = b[cols]` at kernel
    level) counts as computed in the body where it is an unmasked load of an
    In view (never written by the kernel) or pointwise math on such loads,
    scalars broadcast over D and `kir.indices` of D: where the rewrite
    happens, those ops are first recomputed at the top of the body (replaying
    pure producers, seed 002 §3.4), the load a source like the body's own;
    the kernel-level copies go when nothing else reads them.
    The store epilogue: pointwise ops over A that read a reduction's result
    (e / sum(e)), used only by each other and by top-level stores whose one
    domain coordinate is D, and stores over D of them or of the axis
    computation, all after the last reduction; it is taken only where X is
    computed by or reduced into a contraction (a row read from memory keeps
    its row path). The online form rounds differently from the two-pass
    form, so the one-fold rewrite needs module numerics `relaxed_normalization`
    with `online_reduction` (the rule of pgpu-online-normalize, seed 002 §1);
    otherwise (numerics `source`, the default, or online_reduction off) the
    exact two-pass rewrite below applies when X is computed by a contraction
    (a matvec of the scores) or a reduction of P is a contraction (P.V): there
    the element-wise construction runs one matrix-vector product per parallel
    member, where blocked folds run a block of members as one tile product.
    Relaxed rewrite: one `kir.region_fold` over the sources and `kir.indices D`
    (axis 0), operands = the outside values, identity (false, 0, the
    reductions' identities / zeros), summary (ok, m, one component per
    reduction): summarize is the axis computation cloned on the slice
    (scalars broadcast over D become `kir.broadcast_as`), with ok = any(c)
    when X is where(c, s, -inf) (else max != -inf), m = where(ok, max, 0),
    and exp(where(c, s, -inf) - m) written where(c, exp(s - m), 0) (exact for
    finite m), so a fully masked slice sums to 0, not NaN; combine is
    mx = the larger m of the nonempty sides, wi = where(oki, exp(mi - mx), 0),
    each rescaled component r1 * w1 + r2 * w2, each plain sum r1 + r2, ok1 |
    ok2 (seed 002 §3.4: the compiler may then cut A into any contiguous
    slices; the form pgpu-online-rescale and pgpu-exp-base2 read). Outside
    uses of the maximum read where(ok, m, -inf), the row's maximum as before.
    The reductions' results become the fold's; the axis computation is erased.
    Source (exact two-pass) rewrite: pass 1 is a `kir.region_fold` whose
    summary is m alone (identity -inf, combine max: exact in any order) over
    the sources the maximum's input reads, the scores recomputed per slice;
    pass 2 a `kir.region_fold` over all sources that captures the final m and
    sums each reduction of P with plain additions (reassociated as any
    reduction may be; no rescaling). Its exp(where(c, s, -inf) - m) is written
    where(c, exp(s - m), 0) when D is a `kir.domain` (exact for finite m; where
    m = -inf on a nonempty D every source term is NaN, so the P-scaled results
    are selected to NaN after the fold), else kept as written. Where the source
    itself guards that exponential by the same c (every use is
    where(c, exp(...), 0), the masked term), the guard is the rewritten
    exponential and no NaN fix-up is made (the source's terms are 0 where c
    rejects them, for any m); a guard by another mask keeps the exponential as
    written (in the online fold too). Outside uses of
    the maximum read pass 1's m.
    A maximum alone (no reduction of P) of an X computed by a contraction (the
    row maximum of a matrix product, x[n, :] . W[v, :] over v) is pass 1 alone,
    under either numerics (the maximum is exact in any order); the element-wise
    construction would again run one matrix-vector product per member.
    Either way, with a store epilogue the part of the axis computation the
    epilogue reads is cloned after the fold(s) from the same sources, the
    maximum read as the row's (pass 1's m, or where(ok, m, -inf)), and the
    epilogue reads the clones and the folds' results: a second traversal of A
    for the stores (seed 002 §3.4), which construction tiles (kir-to-pgpu).
    Preserves: values (up to the permitted rounding; exactly under source,
    reductions reassociated), effects, ABI, loads (they stay where they were,
    as the fold's sources).
    Must not fire: under numerics `source` or online_reduction off, a row that
    is neither computed by nor reduced into a contraction (a row softmax,
    log-softmax or logsumexp read from memory keeps its row path); a maximum
    alone over a row that no contraction computes (a row maximum read from
    memory keeps its row path); a maximum over
    several axes, sources over A at different axis positions or domains, a use
    of P or X that is not a reduction over A or a store epilogue (a second
    maximum, a nested region, a reduction of e / sum(e)), a store epilogue of a
    row that is no contraction's (row softmax), an exp of anything but X - m,
    integer reductions, effects in the axis computation; with
    optimization_remarks each says why at the maximum.
    Then, sums of a product's row without a maximum (issue 41; RowSumChains.cpp;
    a LayerNorm of `x @ W^T + b + residual`, corpus 189): in a `kir.parallel`
    body whose plain float sums (rank 1, over their only axis, combine an add)
    reduce one domain D, and where a contraction computes a rank-1 row over D.
    Legality: every other top-level op with a result over D is an unmasked load
    of a view the kernel does not write, over D once (a source; where D is not
    its first axis, a weight W [K, N] of `x @ W`, the folds slice it through a
    `kir.transpose` with D first, transposed back in the summarizer), or pointwise
    math, a scalar broadcast, `kir.indices` or a contraction with a rank-1
    result over D; each value over D is used only by those, by the sums or by
    top-level unmasked stores; no op with a region but reductions, no effect
    but loads and stores. Rewrite: each sum, in block order, becomes a
    `kir.region_fold` (identity the sum's, combine add) over the sources its
    input reads and `kir.indices D`, capturing every other value it reads
    (operands such as the x row, the earlier sums' results and scalars from them), its
    summarizer the input's ops cloned on the slice (each pass recomputes the
    product's tile: the row is never held whole, seed 002 §3.4); the row's
    remaining ops over D and the stores move to the end of the body (a
    traversal of D of their own, which construction tiles). Exact under source
    numerics: the same values per pass, sums reassociated as any sum may be.
    Must not fire: a row no contraction computes (a LayerNorm or RMSNorm read
    from memory keeps its row path, silently), a row also read by another
    reduction (a maximum: the matcher above decides, and says why), a row over
    D and another axis, masked loads or stores over D, a load of a view the
    kernel writes; with optimization_remarks each says why at the first sum
    where a contraction computes the row and no maximum reads the body.
    Verifier after: the KIR verifier.

    ```mlir
    %m = kir.reduce %s axes [0] identity(%ninf : f32) ...   // max
    %p = kir.unary exp (%s - broadcast %m)
    %l = kir.reduce %p axes [0] identity(%zero : f32) ...   // sum
    // becomes
    %ok, %m, %l = kir.region_fold sources(%k, %pos ...) axis 0 identity(%false, %zero, %zero : i1, f32, f32)
        operands(...) -> (i1, f32, f32) summarize {...} combine {...}
    // or, under source numerics (a contraction in the row)
    %m = kir.region_fold sources(%k, %pos ...) axis 0 identity(%ninf : f32) operands(...) -> (f32) ...
    %l, %acc = kir.region_fold sources(%k, %v, %pos ...) axis 0 identity(%zero, %zeros : f32, tensor<?xf32>)
        operands(..., %m) -> (f32, tensor<?xf32>) summarize {...} combine {...}
    ```
  }];
  let dependentDialects = ["::tessel::kir::KIRDialect", "::mlir::arith::ArithDialect"];
}

def KIRMergeReducedAxes : Pass<"kir-merge-reduced-axes", "::mlir::ModuleOp"> {
  let summary = "two adjacent axes reduced together through a paged read become one axis of their members (issue 42)";
  let description = [{
    Reads: each `kir.reduce` and `kir.contract` at the top of a `kir.parallel`
    body that reduces two adjacent axes together, outer domain A then inner
    domain S; the domain of every tensor axis (AxisDomains); the body's
    def-use.
    Legality: A is a step-1 `kir.domain` or a subregion of one; S a step-1
    `kir.domain` from 0 whose extent is a named extent or a non-negative
    constant (so [0, |A| * |S|) enumerates the pairs, and is empty when either
    axis is); every value over A or S has A immediately before S (or only one
    of them); every op that reads or computes one is, at the top of the body:
    `kir.indices` of A or S, an unmasked load or gather (a gather of both axes
    only as view[.., idx, S, ..] with idx a rank-1 index tensor over A: the
    outer axis read through an index tensor, the inner directly; at least one
    such read), a broadcast keeping the axes' order, pointwise math over
    identical domains, a reduction or contraction over both axes or neither
    (a contraction pairing them with the other operand's A then S).
    Rewrite: a domain T = [0, |A| * |S|) after A and S; a value x[a, s] over
    both becomes x'[t] = x[a0 + t / |S|, t % |S|], one over A alone x'[t] =
    x[a0 + t / |S|], one over S alone x'[t] = x[t % |S|] (a kernel-level one
    rebuilt in the body): `kir.indices` become those coordinates (a fresh
    `kir.indices T` each), loads over A or S gathers at them, the paged read
    a joint gather view[.., idx'(t), t % |S|, ..] (the form of an author's
    token loop, corpus 46_b), broadcasts and pointwise ops retyped, the
    reductions' and contractions' pairs of axes one axis. A position rebuilt
    from its block and slot, (t / n) * n + t % n, is t.
    Preserves: values exactly (each reduction's terms are the same, reassociated
    as any reduction may be), effects, ABI.
    Must not fire: a value over A or S used alone elsewhere (a reduction or a
    contraction over one of them, a store, a nested region), axes in the other
    order, an inner domain with a step, a lower bound or an extent not known
    non-negative, a read of both axes as domains (a dense tile: nothing to
    gain), masked reads; with optimization_remarks each says why at A.
    Verifier after: the KIR verifier.

    ```mlir
    %k = kir.gather %cache[%blk, %slots, %h, %dd] ... -> tensor<?x?x?xf16>   // blk over A
    %m = kir.reduce %s axes [0, 1] ...
    // becomes
    %t = kir.domain %c0 to %n        // %n = |A| * |S|
    %k = kir.gather %cache[%blk2, %slot, %h, %dd] {joint = array<i64: -1, 0, -1, -1>} ... -> tensor<?x?xf16>
    %m = kir.reduce %s axes [0] ...
    ```
  }];
  let dependentDialects = ["::tessel::kir::KIRDialect", "::mlir::arith::ArithDialect"];
}

def KIRMonotoneReductions : Pass<"kir-monotone-reductions", "::mlir::ModuleOp"> {
  let summary = "a maximum or minimum of a non-decreasing map of a row is the map of the row's maximum or minimum";
  let description = [{
    Reads: every `kir.reduce` whose combine is `max` or `min` (NaN-propagating)
    of its two arguments, over all axes of one float input (a scalar result),
    from the infinite identity (-inf for a maximum, +inf for a minimum); the
    op defining its input; the reductions, broadcasts and constants around it.
    Legality: max_i f(x_i) = f(max_i x_i) exactly when f is non-decreasing in
    x (correctly rounded arithmetic is), maps NaN to NaN and the identity to
    itself, or the row is known non-empty (seed 002 §1: value-preserving, no
    numerics permission needed). The maps taken, each with a scalar s
    broadcast over the whole row (`dims []`):
    `x * s`, `s * x`, `x / s` with s a finite positive constant; `x / s` where
    s is the row's own sum (a `kir.reduce` add from 0 over the same tensor and
    axes) and the row is non-negative (exp, exp2, x * x, and sums, products
    and selects of such; +0, positive or NaN terms), for a maximum only: then
    s >= every x_i, so s = 0 means every x_i is 0 (NaN either way), s = +inf
    an infinite x_i (NaN either way), and an empty row gives -inf / 0 = -inf;
    `x + s`, `s + x`, `x - s` with s a finite constant; `x - s` with s the
    row's own maximum (minimum) from the same identity (±inf - ±inf is NaN on
    both sides); `exp` and `exp2` (not `approximate`). The last two do not keep
    the identity (exp(-inf) = 0, -inf - -inf = NaN), so their result is
    `select(row non-empty, f(r), identity)`, the row's emptiness read from its
    step-1 `kir.domain` (lo < hi) or subregion of one (max(b, lo) < min(e, hi)).
    A soft cap `c * tanh(y / c)` (either operand order of the product, c one
    scalar on both sides, tanh and the division not `approximate`) is
    non-decreasing for either sign of c (both the division and the product
    reverse the order for c < 0); c = +-inf or NaN makes every term NaN on both
    sides, and c = +-0 makes only y = +-0 NaN (0 / 0), so unless c is a known
    non-zero constant y takes NaN where c and y are both 0. tanh(-inf) = -1:
    guarded like exp. A masked row `select(visible, f(y), identity)` (the
    fill the reduction's own identity) is the reduction of
    `select(visible, y', identity)` with f's step, guarded, where f needs a
    guard, by any(visible) (an `or` reduction of the mask) instead of the
    domain. The pass runs twice: before kir-online-folds and after it, on the
    folds' summarizers (the exact two-pass form's maximum fold of
    `where(visible, c * tanh(s / c), -inf)`: one tanh a row per key tile).
    Rewrites: the reduction becomes f(r) (guarded where needed), r a
    reduction of the map's operand: an earlier reduction of the same kind,
    axes and identity over that value in the same block (the row's maximum
    already taken) or a copy of the reduction reading it, which is rewritten
    in turn. The map's ops are erased when nothing else reads them. So the
    maximum of softmax probabilities e / sum(e), e = exp(z - max z), becomes
    exp(m - m) / sum(e) with m the row's maximum: no pass over the row of its
    own (corpus 178's `p >= min_p * max(p)`).
    Preserves: values bit for bit (each step is exact); effects; ABI.
    Must not fire: a scale of unknown sign (a runtime scalar, `x / t`: a
    negative t turns the maximum into a minimum) or a sum of terms of unknown
    sign; a minimum of x / sum(x); `max_num`/`min_num` combines; a shift by a
    non-finite constant or by another row's maximum; a maximum whose result
    shifts its own input (`x - max x`, the two-pass softmax form that
    kir-online-folds folds: max(c) * k for max(c * k) reads the row as often
    and hides the shift); partial reductions
    (kept axes); a guarded map over a strided domain; `approximate` or
    `flush_to_zero` arithmetic. With optimization_remarks the reduction says
    why where its input is a scaled or shifted row, and says when it is
    rewritten.
    Verifier after: the KIR verifier.

    ```mlir
    %s = kir.reduce %e axes [0] identity(%zero : f32) ...        // add
    %p = kir.binary div %e, (kir.broadcast %s) : tensor<?xf32>
    %mp = kir.reduce %p axes [0] identity(%ninf : f32) ...        // max
    // becomes
    %me = kir.reduce %e axes [0] identity(%ninf : f32) ...        // max
    %mp = kir.binary div %me, %s : f32
    ```
  }];
  let dependentDialects = ["::tessel::kir::KIRDialect"];
}
def KIRRowParallels : Pass<"kir-row-parallels", "::mlir::ModuleOp"> {
  let summary = "a kernel-level store of a row read with its own reduction becomes a kir.parallel over the other axes";
  let description = [{
    Reads: every `kir.store` at kernel level; the kernel-level ops its value needs (loads,
    broadcasts, indices, pointwise ops, single-input reductions, contractions) and the domain of
    each of their tensor axes.
    Legality: some reduction among them reduces an axis over a domain the store writes (a row read
    with its own summary: `e / T.sum(e, axis=-1)` written out); the stored value's axes are the
    store's domain coordinates in order; no masked load or store, no load at tensor coordinates,
    no effect among the producers, no load of a view the kernel writes. The members are the
    store's domains that no reduction or contraction reduces, that each value ranges over at most
    once, and that a contraction reads on both operands only as a paired batch axis; at least one,
    and not all, of the store's domains. Otherwise nothing changes (with `optimization_remarks` a
    remark at the store says why, where the value reads a tensor computation at all).
    Rewrites: a `kir.parallel` over the members, at the store, whose body clones the producers with
    every axis over a member removed: loads read at the member's index, `kir.indices` of a member
    is its index, broadcasts drop those domains (a broadcast of a scalar over members only is the
    scalar), reductions and contractions renumber their axes (a member batch pair is dropped; a
    contraction all of whose result axes are members is the member's dot product, spelled as the
    sum over its reduce pairs of the products in the accumulator type, since a `kir.contract`
    yields a tensor), and the store writes at the member's index. The kernel-level producers no other op uses are erased.
    Issue 41 (canonical forms, not spellings): `T.matmul(q, k, transpose_rhs=True)` and a softmax over
    its last axis at kernel level is then the kernel written one `T.parallel` member per row (a
    `T.matvec` of the row's keys), which kir-online-folds and construction tile.
    Then, kept summaries (seed 002 §3: replay versus materialization, costed): a kernel-level sum
    after a kernel-level `kir.parallel` (an add reduction of one input or a contraction, in f32,
    i32 or i64) that reduces every domain of the parallel, whose operands need (directly or through
    pointwise ops and broadcasts) summaries computed before the parallel: values over exactly its
    domains whose producers reduce, each the outermost of its chain (each row's rsqrt of an RMSNorm,
    the mean and rstd of a LayerNorm, in the column sum `T.sum(dy * x * r, axis=0)` of a backward).
    Replayed, each element of the sum would recompute every row's summaries (its extent times a
    row reduction per row: quadratic work); kept, they cost one buffer element per row. Legality:
    the sum's producers pass the checks above; each summary's contain no contraction and neither
    reduce nor repeat a parallel domain. Rewrites: a `kir.buffer` over the parallel's domains
    (first write) per summary; the member clones its producers (as above) at the start of its body
    and stores its value at its index at the end; before the sum, `kir.buffer_load`s over the
    domains and clones of the ops the sum needs that use a summary; CSE merges the members' clones
    with their own computations of the same values; a remark at the sum says what was kept and
    why. The sum then reads what another workset wrote (a finalization, which
    pgpu-member-partials spreads over the members). Only with `keep-summaries`,
    which the pipeline sets where the provider has the fragment atomic add that
    spreading needs (elsewhere the replay stays: cuTile spells no finalization).
    Then, member axes (issue 47, corpus 243's gated delta rule): a kernel-level `kir.parallel` whose
    member loads a view as a tensor, combines tensors through a reduction or contraction and stores
    back to that view (construction would realize the stored tensor element by element, reading
    elements already stored: kir-to-pgpu refuses it). Legality: the body holds only loads,
    broadcasts, indices, pointwise ops, single-input reductions, contractions, scalar ops of no tensor
    and unmasked stores of tensors whose axes are the store's domains in order; some domain d, not the
    parallel's, is stored once by every store, reduced by nothing, ranged over at most once by every
    value, a coordinate of every load of a view the kernel writes, and read by a contraction only as
    a paired batch axis or as the only axis of its result. Rewrites: a `kir.parallel` over the old
    domains and d (innermost) whose body clones the member with every axis over d removed (as above);
    each member then reads its own column of the view whole (reductions to scalars) before storing it,
    the source's meaning (seed 000 §4: a read is the value before the member's writes).
    The same rewrite applies to a member that stores a tensor of rank >= 2 which a reduction or
    contraction keeping another axis also reads (Mamba-2's state update, corpus 244: h' stored whole
    and y = sum_n h' C): construction would replay h' in the reduction's walk and again in the
    store's, reading the state twice; as a member axis each member computes its row once for both
    (pgpu-stage-rows then reads it once). Here d must not be the innermost domain of a store of
    several domains (a member per column would walk the view with a stride).
    Preserves: every element's value (the same ops on the same elements, each member's row), the
    stores' effects, the ABI.
    Then, a scalar loss over rows of a matrix product (issue 41, corpus 248's CLIP loss; only with
    `keep-summaries`): a kernel-level store of a scalar whose value reads kernel-level sums (f32 add
    reductions of a rank-1 tensor to a scalar) whose inputs, all over one domain d, are computed
    through a contraction (each row's logsumexp of `scale * img @ txt^T`, over its rows and over its
    columns). Legality: the inputs' producers pass the checks above; a value a row reads whole
    (another row's operand) is no reduction or contraction (each member would repeat it). Rewrites:
    per sum, a `kir.buffer` over d (first write) and a `kir.parallel` over d before the sums whose
    member clones the input's producers with, per use, the axis at which the row's position is read
    removed (a position, not a domain: the logits over (d, d) are read at axis 0 by the rows' sum and
    at axis 1 by the columns'), and `kir.buffer_store`s its value at its index; the sum reads a
    `kir.buffer_load` over d (a finalization). A member's f32 sum of a product of two tensors widened
    from one 16-bit float type is its dot product: a rank-0 `kir.contract` of the narrow operands and
    its `kir.extract` (exact products, f32 accumulator, the sum regrouped; seed 000 §8), so that its
    axis is reduced only by contractions (construction loops over it in blocks). One parallel per sum:
    kir-online-folds folds one softmax per member. Must not fire: the sums' inputs hold no contraction
    (a mean of row logsumexps, corpus 274: split-row-reductions' business), a tensor store, a masked
    store, without `keep-summaries`.
    Then, kept member tensors (seed 002 §3, costed): inside a kernel-level `kir.parallel`, a rank-1
    tensor a broadcast spreads over more axes (squeeze-and-excitation's gate over the pixels, corpus 249)
    whose producers include a reduction or contraction reading another's tensor (nested: each replayed
    element would recompute the inner one whole): each reduction and contraction of that chain over a
    kernel-level domain gets a `kir.buffer` over the parallel's domains and its own (first write), a
    `kir.buffer_store` after it and a `kir.buffer_load` its users read; construction computes each once
    per member, in order, before the store. A single level (a row's sum spread over the row) stays.
    Nested through a broadcast too (issue 47, Sinkhorn's alternating normalizations, corpus 339): a
    reduction of a tensor that spreads another's result along an axis it reduces (the column sums of
    `p / row_sums` spread over the rows) needs a different element of it per term; replayed, each
    normalization doubles the work (2^ITERS). Axes are told apart by position, so one domain may be
    both. One spread along axes it does not reduce (a softmax's row maximum under the row's sum) is a
    fold's statistic and not nested. Constants spread over domains at kernel level keep their axes.
    Then, shared member reductions (issue 41, seed 002 §3): inside such a parallel, a rank-1 tensor
    computed by a reduction or arg-reduction over a kernel-level domain, taken after the pointwise ops
    it passes alone (corpus 290's argmax cast to i32), that feeds two or more consumers past pointwise
    ops, one of them a reduction (the first rejection's min beside the tokens' store; 94's top-k
    rounds, each an argmin of the distances; the pointwise ops may take constants or index vectors
    spread over the domain before the parallel: 94_knn_top8_b's 2.0 of |k|^2 - 2 q.k + |q|^2):
    construction would replay it whole in each consumer's
    traversal, reading its input once per consumer. Kept as above (a buffer over the parallel's domains
    and its own, written once, read by every consumer). Must not fire: a contraction's row (a tile
    product that folds recompute per tile: attention's scores under their softmax), a tensor with one
    consumer, consumers that are all stores (one walk realizes them together).
    Then, scanned summaries (issue 41, corpus 323's top-2 gating; ScannedSummaries.cpp): a kernel-level
    value whose computation reduces (each token's argmax over the experts), over domains none of a
    later kernel-level `kir.parallel`'s, that the parallel's member reads through pointwise ops into a
    scan or reduction (a per-expert `T.cumsum(first == e)`): construction would replay its row's
    reduction at every step of that walk (unblockable). Kept instead: a new `kir.parallel` over its
    domains, before the reader, clones its producers per row (as above) and writes it once to a
    `kir.buffer` over them (first write; an index as i64); the member reads a `kir.buffer_load`.
    Must not fire: a value the member uses only pointwise and in stores, producers that read a view
    the kernel writes (a remark says why), a summary over a domain of the reading parallel.
    Must not fire: a member whose every stored axis is combined (row and column sums of the view it
    stores); a stored tensor summed over its rows only (the axis left is the innermost: a column
    sum of the updated state keeps the member); a stored tensor no reduction reads; a store whose value reduces no axis it writes (GEMM, an elementwise kernel, a row
    sum stored per row), a value computed inside a parallel, control, gathers; for kept summaries,
    a value without a reduction, a summary over other domains than the parallel's, a sum reading
    a view the kernel writes (a remark says why where it reads a summary), a consumer that is not
    such a sum.
    Verifier after: the KIR verifier.
  }];
  let options = [
    Option<"keepSummaries", "keep-summaries", "bool", /*default=*/"true",
           "keep the summaries a later sum reads whole (the pipeline turns it on where the provider "
           "spreads such a sum over the members with a fragment atomic add; elsewhere the sum would "
           "run in one last program, or not at all where the provider spells no finalization)">
  ];
  let dependentDialects = ["::tessel::kir::KIRDialect"];
}

def KIRChainedFolds : Pass<"kir-chained-folds", "::mlir::ModuleOp"> {
  let summary = "sums over an axis that a later contraction over that axis reads become one region fold (seed 002 §3.4)";
  let description = [{
    Reads: the ops at the top of every `kir.parallel` body; the coordinate
    domain of each axis of their values (loads, broadcasts, what pointwise
    ops, contractions and reductions keep).
    Legality: a sum over an axis A is a `kir.contract` with one reduce pair,
    no batch pair and no init, or a `kir.reduce` of one tensor over one axis
    with a zero identity and a combine that is one `add`; its result keeps
    at least one axis, and each input holds A once, at the same position in
    every input. It is chained when some user of its result is a
    `kir.contract` whose result spans A again (non-causal linear attention:
    `kv = contract(phi(k), v)` over the sequence, then `phi(q) @ kv` over the
    sequence). A sum is a list homomorphism whose combine is an addition
    (seed 000 §8: an add-reduction may be regrouped), so the fold is exact up
    to summation order, which a sum leaves free.
    Rewrites: the chained sums of one A and axis, in block order, become one
    `kir.region_fold` over their distinct inputs (sliced along that axis)
    whose summary has one component per sum (summarize: the sum of the
    slices; combine: additions; identity: zeros over the result's domains),
    placed before the group's last sum; a sum joins the group only when no
    op before it reads the group's results. Construction then realizes the
    fold once per member, its summary carried across A's tiles, and the later
    contraction traverses A reading it (seed 002 §3.4), instead of replaying
    the sums inside every element of that contraction.
    Preserves: every other op; values up to summation order.
    Must not fire: a sum whose users do not traverse its axis again (a
    contraction stored as it is, a row sum feeding elementwise code: the row
    paths realize those), a scalar sum, a reduction other than a sum, a
    contraction with a batch pair or an init, inputs holding A at different
    positions, ops nested below the body's top level.
    Verifier after: the KIR verifier.

    ```mlir
    // before: kv = T.contract(pk, v, reduce=((0, 0),)); z = T.sum(pk, axis=0); phi(q) @ kv ...
    %kv = kir.contract %pk, %v reduce([0], [0]) batch([], []) : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
    %z = kir.reduce %pk axes [0] identity(%zero : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) { add }
    %num = kir.contract %pq, %kv reduce([1], [0]) batch([], []) : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
    // after
    %kv, %z = kir.region_fold sources(%pk, %v : tensor<?x?xf32>, tensor<?x?xf32>) axis 0
        identity(%kv0, %z0 : tensor<?x?xf32>, tensor<?xf32>) -> (tensor<?x?xf32>, tensor<?xf32>)
    summarize { (contract, reduce of the slices) } combine { (two adds) }
    ```
  }];
  let dependentDialects = ["::tessel::kir::KIRDialect", "::mlir::arith::ArithDialect"];
}

def KIRAnnotateOrigins : Pass<"kir-annotate-origins", "::mlir::ModuleOp"> {
  let summary = "give every kir op a stable origin id";
  let description = [{
    Reads: the kir ops of every `kir.kernel`, in pre-order.
    Legality: always legal; KIR is immutable after this point, so pre-order
    position within a kernel is a stable identity (seed 002 §2.1: stable KIR
    ids key canonical analyses).
    Rewrites: each op's location becomes `fused<#kir.origin<kernel, id>>[loc]`
    (an op already carrying an origin keeps it, so the pass is idempotent).
    Preserves: every value, type, region and effect; only locations change,
    and later layers copy these locations as the origin of what they lower.
    Verifier after: the KIR verifier.

    ```mlir
    %0 = kir.extent "N" loc(fused<#kir.origin<"k", 1>>["k.mlir":3:8])
    ```
  }];
  let dependentDialects = ["::tessel::kir::KIRDialect"];
}

def KIRFlattenRecords : Pass<"kir-flatten-records", "::mlir::ModuleOp"> {
  let summary = "fold a region fold's record summary as its fields";
  let description = [{
    Reads: every `kir.region_fold` whose results (its summary schema) hold a
    `!kir.record`, innermost first.
    Legality: a record component whose fields are plain values (no record or
    tuple among them, at least one field); a record nested in a record or a
    tuple, or an empty record, leaves the whole fold unchanged (with
    `optimization_remarks`, a remark at the fold says why). A record summary
    and the same summary spelled as one component per field are one
    algorithm and must reach the same pgpu (issue 41: canonical forms, not
    spellings), so that construction blocks the fold into tiles
    (seed 002 §3.4 region-fold realization). `kir.region_scan` keeps its
    records (not flattened yet; a remark says so).
    Rewrites: each record component becomes its fields in declaration order:
    the identities (a defining `kir.record`'s fields, else `kir.record_get`s),
    `summarize`'s and `combine`'s yields likewise, `combine`'s record
    arguments one argument per field (a `kir.record_get` of the argument
    becomes the field argument; any other use reads a `kir.record` rebuilt at
    the top of the block), and each record result a `kir.record` of the new
    field results (its `kir.record_get`s read the fields directly). Records
    left unused are erased. New ops take the location of the op they replace.
    Preserves: the fold's value, the author's segmentation promise, sources,
    captures, the order of components, non-record components.
    Verifier after: the KIR verifier.

    ```mlir
    // before
    %s = kir.region_fold sources(%t : tensor<?xf32>) axis 0
        identity(%id : !kir.record<m: f32, den: f32>) -> (!kir.record<m: f32, den: f32>) ...
    %d = kir.record_get %s["den"] : !kir.record<m: f32, den: f32> -> f32
    // after
    %m, %d = kir.region_fold sources(%t : tensor<?xf32>) axis 0
        identity(%ninf, %zero : f32, f32) -> (f32, f32) ...
    ```
  }];
  let dependentDialects = ["::tessel::kir::KIRDialect"];
}

def KIRContractProducts : Pass<"kir-contract-products", "::mlir::ModuleOp"> {
  let summary = "a float sum of a product with an outer-product axis becomes a kir.contract (issue 41)";
  let description = [{
    Reads: every `kir.reduce` that sums one float tensor (identity +0.0, combine one `add`) whose
    input is a `kir.binary mul` of two tensors; each factor is a `kir.broadcast`/`kir.broadcast_as`
    of a tensor (its axes land where `dims` says) or a full tensor.
    Legality: every summed axis belongs to both factors (a reduce pair), each kept axis to both
    (a batch pair) or to one (an outer-product axis), and at least one kept axis is an
    outer-product axis; the product has no `approximate`/`flush_to_zero`. A product of two full
    tensors summed over an axis (a row's sum of squares, a batched dot) has no outer-product axis
    and stays a reduction (the row paths realize it); a summed axis spread in one factor leaves the
    sum unchanged (with `optimization_remarks`, a remark at the sum says why).
    Rewrites: `kir.contract(source(lhs), source(rhs))` with the reduce and batch pairs, accumulating
    in the product's type, then a `kir.transpose` when the contraction's result axes (lhs axes, then
    rhs-only axes) are not in the sum's order. When both factors are casts of one 16-bit float type
    (f16 or bf16) to f32, the contraction reads the 16-bit operands: each product is exact in f32,
    so only the summation order changes, which a sum leaves free (seed 000 §5 reductions). The
    product and its broadcasts and casts are erased when nothing else reads them.
    Preserves: every other op; the value up to summation order.
    Verifier after: the KIR verifier.

    ```mlir
    // before: s = T.sum(T.cast(q, T.f32) * T.cast(k, T.f32), axis=1), q over (dims), k over (toks, dims)
    %qb = kir.broadcast %qf over(%dt, %dd) dims [1] : tensor<?xf32> -> tensor<?x?xf32>
    %p = kir.binary mul %qb, %kf : tensor<?x?xf32>
    %s = kir.reduce %p axes [1] identity(%zero : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) { add }
    // after
    %s = kir.contract %q, %k reduce([0], [1]) batch([], []) : tensor<?xf16>, tensor<?x?xf16> -> tensor<?xf32>
    ```
  }];
  let dependentDialects = ["::tessel::kir::KIRDialect"];
}

def KIRStageChainedProducts : Pass<"kir-stage-chained-products", "::mlir::ModuleOp"> {
  let summary = "a product a later product reads along its reduction axis is staged in a buffer per batch member";
  let description = [{
    Reads: every `kir.kernel` whose body is kernel-level statements (no `kir.parallel`, loop or
    `kir.buffer`) in which an operand of a `kir.contract` (its `kir.cast`s stripped) is computed
    from another `kir.contract`: a chain of products, as `A = x x^T; Bm = b*A + c*(A A);
    y = a*x + Bm x` (corpus 340). Construction realizes a tensor's elements where they are used,
    so each element of the later product would replay a row of the earlier one. Such an operand
    is staged when it is a column operand (reduced along an axis other than its last: A in A A)
    or its products read products themselves (Bm); a row operand computed from views
    (`cast(x x^T) x`) is left to pgpu-stage-operands, which stages it per row tile.
    Legality: every tensor op of the body is a view read (unmasked), a scalar `kir.broadcast`, a
    pointwise `kir.binary`/`kir.unary`/`kir.cast` or a `kir.contract` without `init`; every tensor
    has the same leading domain (the batch), not repeated among its other axes; every contraction
    is batched over exactly the leading axis of both operands; every view read and (unmasked)
    store reads the batch at its first coordinate. Otherwise the kernel stays (with
    `optimization_remarks`, a remark says why); a kernel without such a chain (a GEMM with an
    epilogue, a product feeding only pointwise math) stays without a remark.
    Rewrites: for each staged value in program order, a `kir.buffer ... first_write` over its
    domains and a `kir.parallel` over the batch whose member computes the value without the batch
    axis (reads at the member, contractions unbatched, earlier staged values read back from their
    buffers) and writes it to the buffer at the member; then one `kir.parallel` over the batch
    computing and storing what the kernel stored. The kernel-level statements are erased. This is
    the hand-phased form (`T.buffer` + `T.parallel` per product) that construction phases into
    waiting segments, each a tiled contraction (issue 41).
    Preserves: every stored value (members of the batch are independent: each statement's
    elements at batch point b read only batch point b of its operands).
    Verifier after: the KIR verifier.
  }];
  let dependentDialects = ["::tessel::kir::KIRDialect"];
}

def KIRSinkStores : Pass<"kir-sink-stores", "::mlir::ModuleOp"> {
  let summary = "a member's store moves after the uses of values read from its view before it";
  let description = [{
    Reads: every `kir.store` at the top of a `kir.parallel` member's block, and the tensor
    `kir.load`s of the same view before it in that block.
    Legality: some op after the store (or holding a use in a nested region) uses a value computed
    from such a load, and no op from the store to the last such use reads or writes the view (any
    operand naming it, nested ops included). Distinct views do not alias (the launch checks it), so
    the store commutes with everything it passes. Otherwise the store stays (with
    `optimization_remarks`, a remark says why) and construction's reads-before-stores check reports
    the use at the author's line.
    Rewrites: the store moves to just after the last op of the block that uses those values. KIR
    reads a view where the read stands (seed 000 §4), but construction realizes a tensor's elements
    where they are used; after the move every use of the old values comes before the store, so an
    in-place update that keeps using the values it read (`r[m] = x[m] + r[m]`, then a norm of that
    sum: the fused add + RMSNorm) constructs as written.
    Preserves: every value and every other op's position; the store's operands (defined before it).
    Verifier after: the KIR verifier.
  }];
  let dependentDialects = ["::tessel::kir::KIRDialect"];
}

def KIRFlattenParallels : Pass<"kir-flatten-parallels", "::mlir::ModuleOp"> {
  let summary = "a perfect nest of kir.parallel becomes one kir.parallel over all its domains";
  let description = [{
    Reads: every `kir.parallel` whose body holds exactly one `kir.parallel`, as its last op
    before the terminator (innermost nests first).
    Legality: the ops before the inner parallel are side-effect free or reads (`kir.load`,
    `kir.gather`, `kir.index_relation`) of views the inner parallel does not write; the inner
    domains can be computed before the outer parallel (defined outside it, or by side-effect-free
    ops of its body that do not read its members: a triangular nest is not a product). Otherwise
    the nest stays (with `optimization_remarks`, a remark says why) and construction reports it.
    Rewrites: one `kir.parallel` over the outer domains then the inner ones (the attributes of the
    outer one); its body is the outer body's ops (recomputed per member: they are pure or reads of
    views nothing in the nest writes), then the inner body. The inner domains' ops are cloned
    before it. Members of a parallel are independent, and so are members of its members: the
    iterations and their effects are the same (issue 41: `for b in T.parallel(dB): for h in
    T.parallel(dH)` and `for b, h in T.parallel(dB, dH)` are one kernel).
    Preserves: every iteration's values and effects.
    Verifier after: the KIR verifier.
  }];
  let dependentDialects = ["::tessel::kir::KIRDialect"];
}

def KIRVjp : Pass<"kir-vjp", "::mlir::ModuleOp"> {
  let summary = "a kernel becomes its vector-Jacobian product: reverse-mode differentiation of KIR (issue 45)";
  let description = [{
    Reads: one `kir.kernel` (the only one, or the one named by `kernel`); the
    inputs named by `wrt` (float `in` views); def-use of the kernel body.
    Rewrites: the kernel into `<name>_vjp`, its reverse-mode derivative. Each
    output view `y` becomes the input `d_y` (the cotangent of y, same dtype and
    extents) in y's place; an output view `d_x` is appended for each input x of
    `wrt`, in argument order. The body recomputes the forward (the forward's
    inputs are inputs of the derivative; nothing is saved), each store to y
    becomes a read of `d_y` at the same coordinates, and each block (the kernel
    body, each `kir.parallel` body) is swept in reverse, adding every op's
    vector-Jacobian product to its operands' cotangents (a value used several
    times sums its uses' contributions). The read of x then writes its
    cotangent to `d_x` at the read's coordinates (an input never read gets
    zeros over its whole view). A kernel-level value used by
    the members of a `kir.parallel` in the kernel body (a weight read once
    for all rows) gets the sum of the members' cotangents. Where the member's
    contribution lifts, it is recomputed at kernel level after the parallel
    with the parallel's axes first and summed over them (the column sum
    `T.sum(dy * xhat, axis=0)` a user writes, which pgpu-member-partials
    spreads over the members): each read that indexes every member directly
    (no mask) is read over the members' domains, pointwise ops, broadcasts,
    transposes and reductions are renumbered, values the same in every member
    are cloned and spread, and each per-member float or integer scalar it
    needs (a row's mean, rstd) is kept: a `first_write` buffer over the
    parallel's domains that each member stores its own to at the end of its
    body, read whole. Otherwise each member writes its contribution to a
    kernel-level `first_write` buffer over (the parallel's domains, the
    value's axes), which the kernel body reads whole after the parallel and
    sums over the parallel's axes.
    Derivatives: pointwise add, sub, mul, div, pow, neg, exp, exp2, expm1, log,
    log2, log1p, sqrt, rsqrt, sigmoid, tanh, sin, cos, erf, abs (sign, 0 at 0),
    floor/ceil/round (zero); max/min of two values (the larger/smaller side
    takes the cotangent, a tie splits it in halves, as torch.maximum); float
    casts (the cotangent is cast back); select; broadcast and broadcast_as (a
    sum over the spread axes); transpose; `kir.reduce` sum (the cotangent
    spread back over the reduced axes) and max/min (split equally among all
    members equal to the result, as torch.amax); `kir.scan` sum from zero of
    one input (a cumsum: the cotangent scanned in the other direction, same
    exclusivity); `kir.contract` (two
    contractions in KIR's own form, dA = dC B^T and dB = A^T dC generalised to
    batch and paired axes, in the operands' dtype with the forward's
    accumulator and precision; the init takes dC; where the other operand
    keeps no free axis, nothing is summed and the cotangent is an outer
    product: both factors spread over the operand's axes with
    kir.broadcast_as and multiplied in the accumulator type).
    Legality (else a located error naming the op, and nothing is rewritten):
    every op that consumes a differentiated value has a rule above; a
    differentiated value enters a `kir.parallel` only from the kernel body
    (not from an enclosing parallel's body) and no other region
    (kir.if/for/while, region_fold, scan), and the domains of its axes are
    known; each differentiated input is read at one coordinate set (reads at
    the same coordinates sum), in one block, unmasked, and inside a
    `kir.parallel` with that parallel's coordinates among its own (disjoint
    cotangent writes); no inout view; at most one store per output. A
    region_fold that reads a differentiated value is refused naming what its
    backward needs and this pass does not build: the fold's final summary
    saved by the forward (an online softmax's row max and denominator, or
    logsumexp), the slices' cotangents through summarize and combine, and a
    second fold for the sources' cotangents (attention's dK, dV).
    Preserves: the forward's ABI order (inputs, then cotangent inputs where
    the outputs were, scalars), its constexprs and compile options.
    Verifier after: the KIR verifier.
  }];
  let options = [
    ListOption<"wrt", "wrt", "std::string", "the input views to differentiate with respect to">,
    Option<"kernelName", "kernel", "std::string", /*default=*/"\"\"",
           "the kernel to differentiate (default: the module's only kernel)">
  ];
  let dependentDialects = ["::tessel::kir::KIRDialect", "::mlir::arith::ArithDialect"];
}

#endif // TESSEL_KIR_PASSES
