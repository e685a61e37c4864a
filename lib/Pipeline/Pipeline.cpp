//===- Pipeline.cpp - the compilation pipeline, in order -------------------===//
//
// Like Halide's Lower.cpp, the order of the pipeline is visible in one short
// function. Groups whose passes have not landed yet are listed as comments in
// place, so the next pass has an obvious home (seed 002 §3). Each group ends
// at a named stop point (`stopAfter`): tessel-opt's `tessel-pipeline` and the
// differential tests stop there, so no one copies the pass list.
//
//===----------------------------------------------------------------------===//

#include "tessel/Pipeline/Pipeline.h"

#include "tessel/Conversion/Passes.h"
#include "tessel/Dialect/KIR/Transforms/Passes.h"
#include "tessel/Dialect/PGPU/Transforms/Passes.h"
#include "tessel/Target/Provider.h"

#include "mlir/Transforms/Passes.h"

using namespace mlir;

void tessel::buildPipeline(OpPassManager &pm, const Provider *provider, const StopAfter &stopAfter) {
  // What the provider spells beyond the shared verifier's programs (Provider.h); none without one.
  const ProviderCapabilities none, &can = provider ? provider->capabilities() : none;
  // KIR canonical forms first: KIR is immutable once origins are assigned (seed 002 §2.1).
  pm.addPass(kir::createKIRFlattenParallels());
  pm.addPass(kir::createKIRFlattenRecords());
  // KIR canonical forms: a member's store after the uses of the old values of its view.
  pm.addPass(kir::createKIRSinkStores());
  // KIR canonical forms: a sum of products with an outer-product axis is a contraction (issue 41).
  pm.addPass(kir::createKIRContractProducts());
  // KIR canonical forms: a contraction read along a later contraction's reduction axis is written
  // per batch member to a kernel-level buffer first, one phase per product (issue 41, corpus 340).
  pm.addPass(kir::createKIRStageChainedProducts());
  // KIR canonical forms: a maximum of a non-decreasing map of a row (e / sum(e), exp, shifts) is the
  // map of the row's maximum, one pass over the row fewer (seed 002 §1: exact).
  pm.addPass(kir::createKIRMonotoneReductions());
  // KIR canonical forms: two axes reduced together through a paged read are one axis (issue 42).
  pm.addPass(kir::createKIRMergeReducedAxes());
  // KIR canonical forms: a kernel-level row read with its own reduction is a parallel over rows.
  // Row summaries a later sum reads whole are kept by the parallel over the rows where the provider
  // spreads that sum over the members (pgpu-member-partials' fragment atomic add).
  kir::KIRRowParallelsOptions rowParallels;
  rowParallels.keepSummaries = can.fragmentAtomicAdd;
  pm.addPass(kir::createKIRRowParallels(rowParallels));
  // KIR canonical forms: a row maximum and its exp-weighted reductions become an online region
  // fold (seed 002 §1, §3.4; relaxed_normalization with online_reduction only).
  pm.addPass(kir::createKIROnlineFolds());
  // Again on the folds' summarizers: the exact two-pass form's first fold takes the maximum of the
  // mapped scores, where(visible, cap * tanh(s / cap), -inf); the map moves after the tile's maximum.
  pm.addPass(kir::createKIRMonotoneReductions());
  // KIR canonical forms: sums over an axis that a later contraction over that axis reads become a
  // region fold, realized once per member (seed 002 §3.4).
  pm.addPass(kir::createKIRChainedFolds());
  // KIR: stable origins for everything lowered from each op (seed 002 §2.1).
  pm.addPass(kir::createKIRAnnotateOrigins());
  if (stopAfter("annotate-origins"))
    return;
  // §3.1 construct the complete initial program.
  // A whole-view reduction that element-wise worksets replay is phased where the provider spells
  // the wait for it (PhasedReductions.cpp); elsewhere it is replayed.
  ConvertKIRToPGPUOptions construct;
  construct.phaseReductions = can.acquireReleaseHandOff;
  pm.addPass(createConvertKIRToPGPU(construct));
  pm.addPass(createCanonicalizerPass()); // fold constructed address arithmetic
  pm.addPass(createCSEPass());           // construction replays producers; merge what it repeated
  if (stopAfter("construct"))
    return;
  // §3.2 refine program mapping; for contraction nests mapping and multi-axis
  // fragments are one decision (§3.2-§3.4), made first.
  // A workset that is a program's whole body becomes program axes first, so a batched loop
  // around a structured op and the batched structured op reach tiling alike.
  // A workset whose members store only inside a guarded row interval (a store over a data-dependent
  // subregion) walks that interval only, its bounds computed once.
  //      Kernel-level reductions over rows (several, or one whose element is itself a row reduction)
  //      run their rows in FOLD_SPLIT programs, each storing its partials, the last arrival merging
  //      them in program order and computing the scalar expression (one launch).
  // Construction's segments over the same members (kernel-level statements over one domain) run as
  // one group: each member's coordinates decoded once, its statements' writes from one program.
  pm.addPass(pgpu::createPGPUMergeSegments());
  if (can.launchSizedWorkspace)
    pm.addPass(pgpu::createPGPUSplitRowReductions());
  //      A parallel member's statistics (a mean, then the squares about it) over several axes (a
  //      channel's N x H x W; a row of one axis keeps the covering / staged / packed plans), with
  //      few members: each member's range in MEMBER_SPLIT slices, one program each, in two phases
  //      (the second waits for the first's partials), the member's last arrival merging them.
  if (can.launchSizedWorkspace && can.acquireReleaseHandOff)
    pm.addPass(pgpu::createPGPUSplitMemberReductions());
  //      A parallel member's tensors kept in workspace, each computed from the ones before (a
  //      squeeze-excitation's means, hidden vector, gate, then the scaled writes), with few members:
  //      each workset's range in MEMBER_SPLIT slices, one program each, a phase per dependence, each
  //      phase waiting for the point's count of the ones before.
  if (can.launchSizedWorkspace && can.acquireReleaseHandOff)
    pm.addPass(pgpu::createPGPUSplitMemberWorksets());
  pm.addPass(pgpu::createPGPUNarrowGuardedWorksets());
  pm.addPass(pgpu::createPGPUFlattenWorksets());
  // A finalization whose members each read what a subset of the instances wrote runs per member
  // in the last of those (tickets), so it tiles with the group instead of running in one program.
  pm.addPass(pgpu::createPGPUMemberTickets());
  // A whole-space finalization summing over the group's members (a column sum reading what each row
  // kept) is added by the members as they finish, not walked by the last program alone.
  if (can.fragmentAtomicAdd)
    pm.addPass(pgpu::createPGPUMemberPartials());
  //      (§4, seed 000 §6) split partials summed by the last arrival are merged by atomics instead
  //      (a fragment scatter-add into workspace).
  if (can.fragmentAtomicAdd)
    pm.addPass(pgpu::createPGPUAtomicPartials());
  // A view read used only after a region op (an in-place update's read of its view, before the
  // contraction that the stored value also holds) is made at its first use, so its tile is not held
  // live across the K loop.
  pm.addPass(pgpu::createPGPUSinkReads());
  pm.addPass(pgpu::createPGPUFormTiles());
  //      a contraction's row operand computed in its K loop (an activation, a normalized row) is
  //      computed once by first-phase programs into workspace, not once per tile of the other axis.
  if (can.launchSizedWorkspace && can.acquireReleaseHandOff)
    pm.addPass(pgpu::createPGPUStageOperands());
  //      A tiled contraction's K loop may run as SPLIT_K chunks across programs (few output tiles,
  //      a long reduced axis): each stores its partial tiles to workspace sized at launch, the
  //      tile's last arrival adds them in chunk order and runs the epilogue.
  if (can.launchSizedWorkspace)
    pm.addPass(pgpu::createPGPUSplitContractions());
  if (stopAfter("form-tiles"))
    return;
  pm.addPass(pgpu::createPGPURefineMapping());
  if (stopAfter("refine-mapping"))
    return;
  // §3.3 form blocking and fragments: a reduction whose reads walk a kept axis contiguously blocks
  //      both axes ([BLOCK_R, BLOCK_C] tiles), the rest one axis of BLOCK lanes.
  //      A cumulative sum down the columns too, where the provider spells a scan along an axis of a 2-d tile.
  //      A 2-d write over rows-outer-columns-inner whose value holds column statistics over the rows'
  //      own range (a per-segment normalization) walks the columns outside: the statistics once per
  //      column, then the rows, which the tiling below takes as a column normalization (seed 000 §5).
  pm.addPass(pgpu::createPGPUInterchangeInvariantWalks());
  pm.addPass(pgpu::createPGPUTileColumnReductions(pgpu::PGPUTileColumnReductionsOptions{can.tileAxisScans}));
  //      a reduction whose walked reads are a row every member of the outer axis shares (a bucketize's
  //      cut points) walks it serially over [TILE_M, TILE_N] tiles of members, the row read once a tile.
  pm.addPass(pgpu::createPGPUTileSharedReductions());
  //      a row statistic nested in an enclosing reduction's element (a log-sum-exp inside a per-row
  //      sum), independent of its member, is computed once before it: the body blocks (§3.3).
  pm.addPass(pgpu::createPGPUHoistInvariantReductions());
  pm.addPass(pgpu::createPGPUFormBlocking());
  //      two K loops continuing one accumulator over the same range, reading something both read
  //      (a sum of contractions over one k), run as one loop; the CSE below reads it once (§3.4).
  pm.addPass(pgpu::createPGPUFuseContractLoops());
  //      a contraction's K loop and sibling loops over the same range reading its tiles (the
  //      operands' row norms of a distance or cosine epilogue) run as one loop (§3.4).
  pm.addPass(pgpu::createPGPUFuseSiblingLoops());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  //      a blocked constant scatter-add into a small target counts into a privatized fragment
  //      (a histogram) when the target's extent fits HBINS, merged once per bin.
  pm.addPass(pgpu::createPGPUPrivatizeHistograms());
  if (stopAfter("form-blocking"))
    return;
  // §3.4 co-realize values, accesses and structured ops: a row that fits one block is read once
  //      (the staged path; CSE merges the repeated reads and pointwise work).
  pm.addPass(pgpu::createPGPUStageRows());
  pm.addPass(createCSEPass());
  //      a matrix product's row whose folds (and the store after them) fit one segment computes its
  //      tile once (the staged path; its K loops merge) instead of once per fold.
  pm.addPass(pgpu::createPGPUStageFolds());
  pm.addPass(createCSEPass());
  //      a product nested in another's element (sigmoid attention's scores, then their product with V)
  //      whose K loop fits one block runs it once, the query tile read once before the key loop.
  pm.addPass(pgpu::createPGPUStageInnerKLoops());
  pm.addPass(createCSEPass());
  //      past one segment, the row's product tiles are computed once by a loop before its folds and
  //      kept in workspace, each fold and the store loading them (materialization, seed 002 §3.4).
  if (can.launchSizedWorkspace) {
    pm.addPass(pgpu::createPGPUKeepFoldTiles());
    pm.addPass(createCSEPass());
  }
  //      a read of an input view repeated in its block after writes to other views (a staged row
  //      reduced, stored and reduced again) takes the first read; CSE merges what follows from it.
  pm.addPass(pgpu::createPGPUReuseInputReads());
  pm.addPass(createCSEPass());
  if (stopAfter("stage-rows"))
    return;
  //      online summaries (seed 002 §1, §3): a maximum loop and the exp-sum loop over the same
  //      range become one pass with a running maximum (relaxed_normalization only).
  pm.addPass(pgpu::createPGPUOnlineNormalize());
  pm.addPass(createCSEPass());
  //      (§3.2, §3.3) a staged row path that reduces its row runs ROWS rows per program as [ROWS, BLOCK]
  //      tiles, where the provider spells a reduction over one axis of a 2-d tile.
  if (can.tileAxisReductions) {
    pm.addPass(pgpu::createPGPUPackRows());
    pm.addPass(createCSEPass());
  }
  if (stopAfter("online-normalize"))
    return;
  //      (§3.2, §4) a long row's blocked statistics (a mean, then the squares about it) with few rows:
  //      each row's walk in MEMBER_SPLIT slices of blocks, one program each, in two phases (the
  //      second waits for the first's partials), the row's last arrival merging them; the staged
  //      path (a row that fits one block) runs as before.
  if (can.launchSizedWorkspace && can.acquireReleaseHandOff)
    pm.addPass(pgpu::createPGPUSplitRowWalks());
  //      A kernel-level fold beside an elementwise walk of its range is folded by the walk's
  //      programs (one scalar a program to workspace, combined by the last arrival): the inputs both
  //      read cross memory once (CSE shares the loads).
  if (can.launchSizedWorkspace) {
    pm.addPass(pgpu::createPGPUFoldInWalks());
    pm.addPass(createCSEPass());
  }
  // §3.5 predicate range narrowing: a blocked loop's full blocks run without their lane masks.
  pm.addPass(pgpu::createPGPUNarrowPredicates());
  //      a walk's full blocks, their lane bounds now true, read an input once where two reads differed
  //      only in those bounds and their fills (a causal tap t + 0 beside the row's own t).
  //      (no CSE here: the later ones merge what follows from a read taken; nothing else moves.)
  pm.addPass(pgpu::createPGPUReuseInputReads());
  if (stopAfter("narrow-predicates"))
    return;
  //      A blocked region fold's segments may run as program instances (FOLD_SPLIT: each stores its
  //      summary to workspace sized at launch, the point's last arrival combines them), before its
  //      tiles are narrowed: all-true / mixed / all-false intervals.
  if (can.launchSizedWorkspace)
    pm.addPass(pgpu::createPGPUSplitFolds());
  pm.addPass(pgpu::createPGPUNarrowFoldRanges());
  //      A group axis along which fold ranges narrow (causal query blocks) may run its coordinates
  //      j and N-1-j in one program (PAIR_BLOCKS): equal work per program on small launches, which a
  //      call tells from the launch's program count.
  if (can.programCounts)
    pm.addPass(pgpu::createPGPUPairBlocks());
  if (stopAfter("narrow-fold-ranges"))
    return;
  // §3.4 realization, after narrowing: a region scan's segments may run as program instances,
  //      the state handed on through workspace (SCAN_CHAIN: an acquire/release flag and a wait loop;
  //      a provider without them keeps the ordered loop), folds become their loops, and a
  //      contraction's sole addition joins its accumulator.
  if (can.acquireReleaseHandOff)
    pm.addPass(pgpu::createPGPUChainScans());
  pm.addPass(pgpu::createPGPURealizeFolds());
  //      online segmented rescaling (§4): a summary's rescaling moves into its exponentials.
  pm.addPass(pgpu::createPGPUOnlineRescale());
  //      and its exponentials in base 2, the reference domain scaled by log2(e) at its scalar factors (§4).
  pm.addPass(pgpu::createPGPUExpBase2());
  //      (§4) a max of scores times their scalar factor is the max of the scores times it (exact for a
  //      positive finite factor, decided at launch by a wrapper that keys its plans on the float launch
  //      fact), so each score's scaling fuses into its exponential's subtraction.
  if (can.floatLaunchFacts)
    pm.addPass(pgpu::createPGPUFactorReductions());
  pm.addPass(pgpu::createPGPUMergeContractAdd());
  //      (§4, relaxed_normalization) a division by a broadcast divisor (a tile by its rows' mass) is a
  //      product with the divisor's reciprocal: one division per row, not per lane.
  pm.addPass(pgpu::createPGPUReciprocalDivisors());
  //      (§3.5) a mixed tile's "any position admitted" from the coordinate ranges, after the
  //      rescaling's proofs have read its conjunction.
  pm.addPass(pgpu::createPGPUAnyOfRanges());
  //      (§3.4, boundary neutralization) a read's sub-range mask whose masked lanes no store observes
  //      becomes the view's bound (a ragged group's rows: a box access for the providers).
  pm.addPass(pgpu::createPGPUNeutralizeBoundaries());
  //      (§3.5) a read whose lanes a select discards (keys past a row's length) reads only the lanes
  //      the select keeps.
  pm.addPass(pgpu::createPGPUNarrowSelectedReads());
  //      (§3.5, summary emptiness) a narrowed traversal whose first tile leaves every lane's summary
  //      nonempty runs that tile first and the rest without the valid flag (the peeled tile doubles
  //      the body: a provider whose compile time grows with it, tileiras, leaves it).
  if (can.peeledTiles)
    pm.addPass(pgpu::createPGPUSummaryEmptiness());
  //      (§3.2) a segment walk's programs take their tiles from a workspace counter in the walk's order
  //      (a scalar atomic read-modify-write on workspace).
  if (can.scalarWorkspaceAtomics)
    pm.addPass(pgpu::createPGPUDynamicWalk());
  //      (§4, seed 000 §6) tiled split partials are added into an output tile the split-0 instance
  //      zeroed as it started, not merged by the last arrival alone (a fragment scatter-add into the
  //      output; the other instances wait on the split-0 instance's release).
  if (can.fragmentAtomicAdd && can.acquireReleaseHandOff)
    pm.addPass(pgpu::createPGPUZeroFirst());
  //      (§3.2) the group axis that loop tiles are shared along runs innermost: the programs reading
  //      one tile (a bias shared across the batch) are adjacent in launch order.
  pm.addPass(pgpu::createPGPUOrderProgramAxes());
  //      (§3.4) a select that keeps what its masked lanes' reads give (a row sum's zeroed tail lanes,
  //      (0 - 0)^2 of reads with fill 0) is dropped, one operation per lane and block less.
  pm.addPass(pgpu::createPGPUDropFillSelects());
  //      (§4) a loop's count of true predicates (a bucketize's cut points <= x) accumulates in f32 (two
  //      instructions a lane and step, exact in chunks of 2^24 steps), a disjunct invariant in the
  //      loop (x is NaN) decided once after it.
  pm.addPass(pgpu::createPGPUCountLoops());
  if (stopAfter("realize-folds") || !provider)
    return;
  // §3.6 target-capability legalization, then §3.7 serialization (by the caller: Provider::emit).
  if (provider->addLegalization(pm))
    stopAfter((provider->name() + "-legalize").str());
}
