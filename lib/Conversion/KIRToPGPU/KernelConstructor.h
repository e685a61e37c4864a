//===- KernelConstructor.h - construction's state, shared by its files -*- C++ -*-===//
//
// Private to kir-to-pgpu: the element-wise constructor (KIRToPGPU.cpp with
// Values.cpp, Statements.cpp, TensorElements.cpp, RegionFolds.cpp and the
// files its sections name) and the fragment construction of region-fold
// worksets (FoldWorkset.cpp) share it.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_CONVERSION_KIRTOPGPU_KERNELCONSTRUCTOR_H
#define TESSEL_LIB_CONVERSION_KIRTOPGPU_KERNELCONSTRUCTOR_H

#include "tessel/Dialect/KIR/IR/KIR.h"
#include "tessel/Dialect/PGPU/IR/PGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/MapVector.h"

#include <memory>

namespace tessel::construct {
using namespace mlir;
/// A domain's runtime description: members lo, lo + step, ... below hi.
struct DomainVals {
  Value lo, hi, step, size;
};

/// The components (other than `wanted`) a region fold's combine (or a scan's apply) `region`, of `n`
/// components a side, reads to compute component `wanted`, transitively, in index order.
SmallVector<unsigned> reachedComponents(Block &region, unsigned n, unsigned wanted);

class FoldWorkset;

/// An axis of a scan's result as a stored value computed from it sees it (ScanValues.cpp): the stored
/// value's axis `stored`, or (stored < 0) one of `lines` lines a reduction on the way reduces (-1: an
/// extent that is not static).
struct ScanAxis {
  int64_t stored;
  int64_t lines;
  Operation *reduction; // the reduction whose lines these are (stored < 0)
};
/// A scan a stored value is computed from, with what its result's axes are to that value.
struct StoredScan {
  mutable kir::ScanOp op; // MLIR op handles are not const-correct
  SmallVector<ScanAxis> axes;
};

/// The stores of a kir.parallel member that construction runs as one element loop, because later
/// ones use what a read of their view held before earlier ones wrote it (InPlaceStores.cpp), and the
/// reads whose old values they keep.
struct InPlaceGroups {
  SmallVector<SmallVector<Operation *>> groups; // kir.store and kir.scatter
  DenseSet<Value> keptReads;
};
InPlaceGroups inPlaceGroups(Block &member);

class KernelConstructor {
  friend class FoldWorksetImpl;

public:
  explicit KernelConstructor(kir::KernelOp kernel) : kernel(kernel), b(kernel) { b.setListener(&built); }
  LogicalResult run();
  /// Whether phaseReplayedReductions may run (the provider spells the wait: kir-to-pgpu's option).
  bool phaseReductions = true;
  /// The most physical ops construction builds for one kernel (kir-to-pgpu's max-ops option): past it,
  /// element() stops with a diagnostic at the op being replayed (see `built`).
  uint64_t maxOps = 0;
  /// The physical ops construction built (the builder's insertions, nested ops of clones included).
  uint64_t builtOps() const { return built.count; }

private:
  /// Counts the builder's insertions. Replay realizes a value's producers again at every position a
  /// consumer's loop reads it at, so a value read at two positions by each of a chain of reductions
  /// (a row sum, then a column sum of the row-normalized matrix, ...) is built 2^chain times: the
  /// bound turns that into a located error instead of a compile that does not end (issue 47).
  struct BuiltOps : OpBuilder::Listener {
    uint64_t count = 0;
    void notifyOperationInserted(Operation *, OpBuilder::InsertPoint) override { ++count; }
  } built;
  /// Set once the bound was reported: every later element() fails without another diagnostic.
  bool overBound = false;
  /// Fails with a diagnostic at `def` (once) when construction has built more than `maxOps` ops.
  LogicalResult checkBound(Operation *def);
  /// Elements built per structured KIR op (reductions, contractions, folds): the bound's note names
  /// the most replayed one.
  llvm::MapVector<Operation *, uint64_t> structuredBuilds;

  // Values and domains.
  Value constIndex(Location loc, int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value binary(Location loc, kir::BinaryKind kind, Value lhs, Value rhs) {
    return pgpu::BinaryOp::create(b, loc, kind, lhs, rhs, /*approximate=*/false, /*flush_to_zero=*/false);
  }
  /// A pgpu.for over [0, trips) in steps of 1 carrying `inits`, its body block made and the insertion point
  /// moved into it (callers keep their own InsertionGuard): the loop, its trip index and its carries.
  struct CountedLoop {
    pgpu::ForOp loop;
    Value trip;
    SmallVector<Value> carries;
  };
  CountedLoop countedLoop(Location loc, Value trips, ValueRange inits) {
    auto loop = pgpu::ForOp::create(b, loc, inits.getTypes(), constIndex(loc, 0), trips, constIndex(loc, 1), inits);
    Block *body = b.createBlock(&loop.getBody());
    CountedLoop made{loop, body->addArgument(b.getIndexType(), loc), {}};
    for (Value init : inits)
      made.carries.push_back(body->addArgument(init.getType(), loc));
    return made;
  }
  Value member(Location loc, const DomainVals &d, Value position) {
    return binary(loc, kir::BinaryKind::Add, d.lo, binary(loc, kir::BinaryKind::Mul, position, d.step));
  }
  Value zeroOf(Location loc, Type type);
  /// tf32(x) of an f32 scalar or fragment (KIR_ContractPrecision) from pointwise ops; with `low`,
  /// tf32x3's lo part tf32(x - tf32(x)) (0 where tf32(x) is inf or NaN).
  Value roundTF32(Location loc, Value x, bool low = false);
  Value trueValue(Location loc) { return arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1); }
  FailureOr<Value> scalar(Value v);
  /// The realized scalars of `values`, in order.
  FailureOr<SmallVector<Value>> scalars(ValueRange values);
  LogicalResult defineDomain(Operation *op);
  /// The members of kir.domain `op` from its realized bounds, or of kir.subregion `op` of `source`
  /// from its realized begin and end: size = max(0, ceil((hi - lo) / step)).
  DomainVals domainVals(Operation *op, Value lower, Value upper, const DomainVals &source);
  /// Whether `v` is a launch-time fact: a constant or a value of the kernel's entry block.
  bool launchUniform(Value v);
  /// ceil(x / step) for x >= 0: a LaunchExpr when both are launch-time facts.
  Value ceilDiv(Location loc, Value x, Value step);

  // Statements.
  LogicalResult emitLaunchFact(Operation &op);
  LogicalResult emitBlock(Block &block);
  LogicalResult emitStatement(Operation &op);
  LogicalResult emitStore(Operation &op);
  /// A scatter whose value reads its own view at destinations from memory, staged: every value of
  /// the member to workspace, then every write (StagedScatters.cpp).
  LogicalResult emitStagedScatter(kir::ScatterOp op);
  /// Stores of one in-place group: every value at a position, then every write (InPlaceStores.cpp).
  LogicalResult emitInPlaceGroup(ArrayRef<Operation *> group);
  LogicalResult emitReduceScalars(kir::ReduceOp op);
  LogicalResult emitElementStore(Operation &op, ArrayRef<Value> positions);
  LogicalResult emitWrite(Operation &op, Value value, Value viewArg, ValueRange coords, Value valid);
  static std::optional<kir::BinaryKind> rmwBinaryKind(kir::RMWKind kind);
  LogicalResult atomicAsScatterReduce(kir::AtomicRMWOp op);

  // Stored histograms merged through invocation workspace (HistogramMerge.cpp).
  /// The histogram `op` stores whole over its bins, or null.
  static kir::HistogramOp mergedHistogram(Operation &op);
  /// An invocation-workspace kernel argument of `element`s, filled with `init` when given (else
  /// uninitialized: a first-write obligation).
  Value addWorkspace(Location loc, Type element, ArrayRef<Attribute> extents, TypedAttr init);
  /// A top-level kir.buffer becomes invocation workspace (seed 000 §4.4).
  LogicalResult emitKernelBuffer(kir::BufferOp op);

  /// The histogram `op` stores at [member coordinates..., bins] inside a kir.parallel, each member
  /// its own row (of a view or a kernel-level buffer), or null.
  kir::HistogramOp memberHistogram(Operation &op);
  /// Counts one member's source into its row of a kept workspace partial, then copies the row out.
  LogicalResult emitMemberHistogram(Operation *store, kir::HistogramOp h);
  /// Whether `store` writes at [the enclosing parallel's members, each once, all of them..., bins]:
  /// each member its own row of bins.
  static bool memberRowStore(Operation *store, Value bins);
  /// The member histograms a store's value reads pointwise at its own bins (`x[b, vocab] - f *
  /// count`): counted into rows of kept workspace first (stagedHistograms), read back per element.
  SmallVector<kir::HistogramOp> pointwiseHistograms(kir::StoreOp store);
  /// Counts `h` into the store's row of a kept workspace partial (built at `loc`); returns the partial.
  FailureOr<Value> countMemberHistogram(Location loc, Operation *store, kir::HistogramOp h, Type countType);
  /// Histograms counted into workspace for the store being emitted: (partial, the store).
  DenseMap<Operation *, std::pair<Value, kir::StoreOp>> stagedHistograms;
  /// The bin (index) of `h`'s source element at `positions` and whether it is counted (built at `loc`).
  FailureOr<std::pair<Value, Value>> histogramBin(Location loc, kir::HistogramOp h, ArrayRef<Value> positions);
  /// Adds one to the partial's bin of the source element at `positions`.
  LogicalResult emitHistogramMerge(Operation &op, Value partial, ArrayRef<Value> positions);
  /// Copies the merged partial into the stored view (in the last program).
  LogicalResult emitHistogramFinalize(Operation &op, Value partial);

  // Tensors, element by element.
  FailureOr<SmallVector<Value>> sizes(Value tensor);
  FailureOr<Value> element(Value tensor, ArrayRef<Value> positions);
  /// The pointwise op defining `tensor` (resolved) when element() would build its element at
  /// `positions` now (not mapped, incoming, a slice, nor realized here), else null.
  Operation *pendingPointwise(Value tensor, ArrayRef<Value> positions);
  /// element() of such a tensor: its chain of pending pointwise producers built by an explicit
  /// post-order walk (operands in order, as the recursion built them), so a chain of any length
  /// neither grows the stack nor is walked twice.
  FailureOr<Value> pointwiseElement(Value tensor, ArrayRef<Value> positions);
  /// sizes(): the value a shape-preserving producer chain (pointwise ops, select, broadcast_as, scan)
  /// starting at `tensor` ends in, path-compressed in `sameSizes`.
  Value sizeSource(Value tensor);
  DenseMap<Value, Value> sameSizes;
  /// The element of `tensor` (defined by `def`) at `positions`, built now.
  FailureOr<Value> elementOf(Operation *def, Value tensor, ArrayRef<Value> positions);
  /// The element of `tensor` already realized at `positions` where the builder inserts now, or null:
  /// seed 002 §3.4, a value with several consumers is kept, not replayed per use (a GEMM epilogue
  /// reading its accumulator several times holds one K loop).
  Value realizedHere(Value tensor, ArrayRef<Value> positions);
  /// Whether `v` is visible (dominates) at the builder's insertion point.
  bool visibleHere(Value v);
  struct Realized {
    SmallVector<Value, 4> positions;
    Value value;
  };
  DenseMap<Value, SmallVector<Realized, 1>> realized;
  /// Structured KIR ops whose realized element was reused, with the number of reuses (remarks).
  llvm::MapVector<Operation *, unsigned> keptForUses;
  FailureOr<SmallVector<Value>> reduceAt(kir::ReduceOp op, ArrayRef<Value> keptPositions);
  FailureOr<SmallVector<Value>> argReduceAt(kir::ArgReduceOp op, ArrayRef<Value> keptPositions);
  // Scans, realized where values computed from them are written (ScanValues.cpp).
  /// Elementwise KIR ops (binary, unary, compare, select, casts).
  static bool pointwiseOp(Operation *op);
  /// At the scan: every use of its results is a pointwise op or the value of a write; an error at
  /// the first other use.
  LogicalResult checkScanUses(kir::ScanOp scan);
  /// The scans the value written by `write` is computed from by pointwise ops and reductions over
  /// their other axes (in program order; empty when none); an error when they cannot be one scan.
  /// Marks those reductions in `lineReduces`.
  FailureOr<SmallVector<StoredScan>> scansOfStored(Operation &write);
  bool reachesScan(Value v);
  LogicalResult emitScanStore(ArrayRef<StoredScan> scans, Operation &store);
  /// One line of such a write: the range scan along the scan axis at the other axes' `outer`
  /// positions (a top-level stored scan's workset instance owns one line).
  LogicalResult emitScanLine(ArrayRef<StoredScan> scans, Operation &store, ArrayRef<Value> outer);
  /// The axis of the stored value that `scans` scan along.
  static int64_t scannedAxis(ArrayRef<StoredScan> scans);
  /// Reductions over a scan's lines on the way to a store: realized unrolled over the lines
  /// (reduceLinesAt), the positions of the lines being `lineIndex` (set while a scan's emit is built).
  DenseSet<Operation *> lineReduces;
  SmallVector<Value> lineIndex;
  FailureOr<SmallVector<Value>> reduceLinesAt(kir::ReduceOp op, ArrayRef<Value> keptPositions);
  LogicalResult emitElementWrite(Operation &op, Value value, ArrayRef<Value> positions);
  LogicalResult convertCombineRegion(Region &kirRegion, Region &physRegion, TypeRange components);
  using ElementFn = function_ref<FailureOr<SmallVector<Value>>(ArrayRef<Value> positions)>;
  using CombineFn = function_ref<LogicalResult(Region &combine, TypeRange components)>;
  FailureOr<SmallVector<Value>> reduceNest(Location loc, ArrayRef<Value> extents, ValueRange identities,
                                           ElementFn element, CombineFn buildCombine);
  LogicalResult addCombine(Region &combine, TypeRange components);
  /// The scans a reduction along their own axis reads through pointwise ops and broadcasts, when
  /// one ordered walk realizes it (ScanReductions.cpp); empty when none or not covered.
  SmallVector<kir::ScanOp> scansWalkedBy(Operation *reduction);
  /// That walk: a pgpu.for over `extent` carrying each scan's prefix and the reduction's
  /// accumulators (from `identities`), `element` reading the prefixes at the visited position.
  FailureOr<SmallVector<Value>> walkNest(Location loc, ArrayRef<kir::ScanOp> scans, Value extent,
                                         ValueRange identities, ElementFn element, CombineFn buildCombine);
  Value boolOp(Location loc, kir::BinaryKind kind, Value a, Value c) { return binary(loc, kind, a, c); }
  Value notOp(Location loc, Value a) { return binary(loc, kir::BinaryKind::Xor, a, trueValue(loc)); }
  FailureOr<Value> convertPointwise(Operation *op, ArrayRef<Value> operands);
  LogicalResult emitScalarPointwise(Operation *op);
  using LoopBody = function_ref<FailureOr<SmallVector<Value>>(ArrayRef<Value> positions, ValueRange carries)>;
  FailureOr<SmallVector<Value>> loopNest(Location loc, ArrayRef<Value> extents, ValueRange inits, LoopBody body);
  /// An independent workset over the product of `extents` (pgpu.foreach per axis), `body` at each point.
  LogicalResult foreachNest(Location loc, ArrayRef<Value> extents, function_ref<LogicalResult(ArrayRef<Value>)> body);
  /// The view coordinates of `access` (its `coords`) at element `positions` of the access; a
  /// coordinate that the access's `joint` pairs with an earlier index tensor reads at that tensor's axes.
  FailureOr<SmallVector<Value>> accessCoords(Location loc, ValueRange coords, ArrayRef<Value> positions,
                                             Operation *access);

  // Region folds (seed 002 §3.1: an executable physical structured op, unblocked here).
  /// What a segment fold needs of a kir.region_fold, or of a kir.region_scan's
  /// transitions (its summarize and combine are a region fold's).
  struct FoldParts {
    Operation *op;
    ValueRange sources;
    unsigned axis;
    ValueRange identities, captures;
    Region *summarize, *combine;
    FoldParts(kir::RegionFoldOp f)
        : op(f), sources(f.getSources()), axis(f.getAxis()), identities(f.getIdentities()),
          captures(f.getCaptures()), summarize(&f.getSummarize()), combine(&f.getCombine()) {}
    FoldParts(kir::RegionScanOp s)
        : op(s), sources(s.getSources()), axis(s.getAxis()), identities(s.getIdentities()),
          captures(s.getCaptures()), summarize(&s.getSummarize()), combine(&s.getCombine()) {}
  };
  /// The fold over segments [0, upper) of the source axis (the whole axis when
  /// `upper` is null).
  FailureOr<SmallVector<Value>> foldAt(const FoldParts &fold, ArrayRef<unsigned> components,
                                       ArrayRef<Value> positions, Value upper = {});
  LogicalResult checkProjection(Operation *op, Block &region, unsigned n, ArrayRef<unsigned> components,
                                StringRef what, StringRef regionName);

  // Region scans, element by element (see scanStateAt).
  FailureOr<SmallVector<Value>> scanStateAt(kir::RegionScanOp op, ArrayRef<unsigned> components,
                                            ArrayRef<Value> positions, Value upper);
  FailureOr<Value> emittedAt(kir::RegionScanOp op, unsigned output, ArrayRef<Value> positions);
  SmallVector<unsigned> scalarComponents(TypeRange types);
  /// A tensor state argument of an emit region: component `component` of the
  /// state before the segment starting at `begin`, realized per element.
  struct IncomingState {
    kir::RegionScanOp op;
    unsigned component;
    Value begin;
  };
  DenseMap<Value, IncomingState> incoming;
  /// A slice block argument of a region_fold summarize: the source restricted
  /// to positions [begin, begin + size) along `axis`.
  struct Slice {
    Value source;
    unsigned axis;
    Value begin, size;
  };
  DenseMap<Value, Slice> slices;
  /// The realized scalar fields of record (and tuple) values.
  DenseMap<Value, SmallVector<Value>> recordFields;
  /// The physical slots of one summary component: its fields (a record), its
  /// element at `positions` (a tensor), or itself (a scalar).
  FailureOr<SmallVector<Value>> slotsOf(Value v, ArrayRef<Value> positions);
  /// Binds a KIR summary or state value to its physical slots (a record or tuple
  /// to its fields, anything else to the first slot); the number of slots used.
  unsigned bindSlots(Value kirValue, ArrayRef<Value> slots);
  /// Binds region arguments to the op's captures: tensors alias the captured
  /// value (realized per element where used), scalars map to its realization.
  LogicalResult bindCaptures(ValueRange args, ValueRange captures);

  // A kir.for carrying tensors, position by position along the carried axes (CarriedTensors.cpp).
  static bool carriesTensors(kir::ForOp f);
  static bool hasWrites(kir::ForOp f);
  /// The carried axes' extents when the body is elementwise along them; an error at the op otherwise.
  FailureOr<SmallVector<Value>> checkCarriedTensors(kir::ForOp f);
  /// The loop at `positions` of the carried axes: an ordered pgpu.for carrying the elements there
  /// (writes of the body performed when `withWrites`); its results, tensor ones also kept as realized.
  FailureOr<SmallVector<Value>> carriedLoopAt(kir::ForOp f, ArrayRef<Value> positions, bool withWrites);
  /// At the statement: checks the loop; with writes, a pgpu.foreach over the carried axes runs it.
  LogicalResult emitCarriedTensors(kir::ForOp f);

  // A kir.for carrying a tensor computed from a scan of its body, on blocks of lanes (ScanCarries.cpp).
  struct LaneBlock;
  bool carriesScan(kir::ForOp f);
  LogicalResult emitScanCarries(kir::ForOp f);
  LaneBlock laneBlock(Location loc, StringAttr param, Value base, const DomainVals &d);
  Value onLanes(Location loc, LaneBlock &blk, Value v);
  FailureOr<SmallVector<Value>> laneCoords(Operation *access, ValueRange coords, LaneBlock &blk);
  FailureOr<Value> laneValidity(Location loc, Value mask, LaneBlock &blk);
  FailureOr<Value> laneValue(Value v, LaneBlock &blk);
  FailureOr<SmallVector<Value>> scanInputs(kir::ScanOp scan, LaneBlock &blk);
  pgpu::ScanOp fragmentScan(kir::ScanOp scan, ValueRange xs, ValueRange identities, ValueRange carry, bool exclusive);
  LogicalResult laneScan(kir::ScanOp scan, LaneBlock &blk);
  LogicalResult scanCarriedLoop(kir::ForOp f, LaneBlock &blk);

  LogicalResult unsupported(Operation *op) {
    return op->emitError() << "kir-to-pgpu does not construct '" << op->getName() << "' here yet";
  }

  kir::KernelOp kernel;
  OpBuilder b;
  pgpu::KernelOp physical;
  IRMapping map;
  DenseMap<Value, DomainVals> domains;
  SmallVector<Operation *> replayed;
  /// Results of resolved constexpr ifs forward to the taken branch's values.
  DenseMap<Value, Value> aliases;
  Value resolve(Value v) {
    while (Value next = aliases.lookup(v))
      v = next;
    return v;
  }
  /// A workset: a kir.parallel, or a top-level whole-tensor store (each
  /// program instance owns one element of the stored value).
  struct Workset {
    Operation *op;
    SmallVector<Value> extents;
    /// Set when the workset is constructed on fragments (FoldWorkset.cpp).
    std::shared_ptr<FoldWorkset> fold;
    /// Set when the workset is a stored histogram merged into this workspace partial.
    Value partial;
    /// Set when the workset reads a kernel-level buffer an earlier workset writes: it runs whole in
    /// the last program instance (no barrier separates worksets of one launch otherwise).
    bool finalize = false;
    /// Set when the workset is an add scatter-reduce into a view earlier worksets touch: its instances
    /// add into this zeroed workspace, and the last program adds it into the view (ScatterMerge.cpp).
    Value merged;
    /// Set on a scatter-add whose view only an earlier zero fill touches, when it is the last segment:
    /// its instances wait until every instance before its segment has arrived at the launch's ticket
    /// (the fill done), then add into the view itself (ScatterMerge.cpp).
    bool waitsForFill = false;
    /// For a store over data-dependent subregions: per axis, the launch-time domain its coordinate
    /// cuts (the workset's instances range over these; elements outside the subregion store nothing).
    SmallVector<Value> roots;
    /// Later top-level stores over the same coordinates, stored by the same instances after `op`:
    /// the values their elements share (a contraction, a reduction) are computed once per element.
    SmallVector<Operation *> joined;
    /// Replayed reads of views this workset writes in place (each instance reads and writes its own
    /// elements): realized before its first store, so every use sees the value read.
    SmallVector<Value> readFirst;
    /// Set on a finalization that updates in place a view whose replayed reads also feed whole-view
    /// scalars (a global norm, then `g[:] = g * coef`): the replayed values it uses are computed
    /// once, before its element loop writes anything (emitFinalization).
    bool hoist = false;
    /// Set on a segment of a phased whole-view sum (PhasedSums.cpp): `op` is the kir.reduce, each
    /// instance adds the sum of one chunk of its elements into this zeroed workspace scalar.
    Value sumWorkspace;
    /// Set on a top-level write of a value (or addresses) computed from these scans: its instances
    /// are the lines along the other axes, each one range scan along the scan axis (ScanValues.cpp).
    SmallVector<StoredScan> scans;
  };
  /// Whether `w` is plain tensor stores over launch-time domains (no histogram merge, data-dependent
  /// subregion or partial): what joinStores joins and alignedInPlace writes in place.
  bool plainStores(const Workset &w);

  // Scatter-adds merged through a zeroed workspace (ScatterMerge.cpp).
  /// The target view of workset `w` when it is a top-level add scatter-reduce that may add into a
  /// workspace in parallel (it reads nothing in `earlierWrites`, writes only its target), else null.
  Value mergeableScatter(Workset &w, const DenseSet<Value> &reads, const DenseSet<Value> &writes,
                         const DenseSet<Value> &earlierWrites);
  /// In the last program: adds workset `w`'s workspace into its target view and zeroes it.
  LogicalResult emitScatterMergeFinalize(Workset &w);
  // In-place updates after whole-view sums, phased (PhasedSums.cpp).
  /// Turns a hoisting finalization whose whole-view scalars are plain sums into segments: the sums'
  /// chunks first, then the worksets that use the sums and the update, each instance waiting for every
  /// earlier instance and reading the sums from workspace. False, with a remark, where it does not apply.
  bool phaseHoistedUpdate(SmallVectorImpl<Workset> &worksets);
  /// Turns every other finalization into a segment after the segments that do not wait, its instances
  /// waiting for every earlier instance. False, with a remark, where it does not apply.
  bool phaseFinalizations(SmallVectorImpl<Workset> &worksets);
  bool readsKernelBuffer(Operation *op);
  /// One instance of a phased sum's segment: the sum of chunk `chunk` added into its workspace.
  LogicalResult emitPhasedSum(Workset &w, Value chunk);
  /// The last program's reset of the phased sums' workspaces to zero.
  void resetPhasedSums(Location loc);
  /// Phased sums by kir.reduce, with their workspace scalars.
  llvm::MapVector<Operation *, Value> phasedSums;
  /// While a waiting segment is emitted: a phased sum's value is read from its workspace.
  bool readPhasedSums = false;
  // Whole-view reductions that element-wise worksets replay, phased (PhasedReductions.cpp).
  /// A phased reduction: `chunks` instances each reduce `rows` rows of its input's first axis into
  /// `partials[chunk]`; the last of them (counted at `ticket`) reduces the partials into `result[0]`.
  struct PhasedReduction {
    Value chunks, rows, partials, result, ticket;
  };
  /// Turns the whole-view scalar reductions that worksets with instances replay into segments of
  /// their own (partials, then one merge by the last of their instances), and those worksets into
  /// segments that wait for them and read the result. False, with a remark, where it does not apply.
  bool phaseReplayedReductions(SmallVectorImpl<Workset> &worksets);
  /// One instance of a phased reduction's segment: chunk `chunk`'s partial, and the merge if last.
  LogicalResult emitPhasedReduction(kir::ReduceOp r, Value chunk);
  /// Phased reductions by kir.reduce.
  llvm::MapVector<Operation *, PhasedReduction> phasedReductions;
  /// Spins until the launch's `ticket` counts `before` arrivals (acquire): every program instance
  /// before the waiting segment has done its work (Workset::waitsForFill).
  void emitFillWait(Location loc, Value ticket, Value before);
  /// Writes redirected from their view to a workspace (a merged scatter's instances).
  DenseMap<Operation *, Value> writeTargets;
  /// Whether workset `w` may write `view`, which replayed values read: `w` is plain stores over
  /// coordinates C, and every replayed read of `view` is a load at C feeding only elementwise ops
  /// into `w`'s stores. Records those loads in `w.readFirst`. With `scalarSinks`, such a chain may
  /// also end in a reduction to scalars (computed whole before any store: Workset::hoist).
  bool alignedInPlace(Workset &w, Value view, bool scalarSinks = false);
  /// The replayed ops `root` uses, directly or through other replayed ops, in replay order.
  SmallVector<Operation *> replayedUses(Operation *root);
  /// The replayed ops workset `w` uses: those its statement and its joined stores use (replayedUses).
  SmallVector<Operation *> worksetUses(const Workset &w);
  /// The views workset `w`'s statement and joined stores read and write (collectViews of each).
  static void worksetViews(const Workset &w, DenseSet<Value> &reads, DenseSet<Value> &writes);
  /// Merges consecutive top-level stores over the same coordinates into one workset where no store
  /// reads what another writes (seed 002 §3.4: one tile computes every output it feeds).
  void joinStores(SmallVectorImpl<Workset> &worksets,
                  function_ref<void(Operation *, DenseSet<Value> &, DenseSet<Value> &)> accesses);
  /// KIR values at the top level that depend on memory reads (not launch-time facts).
  DenseSet<Value> dataDependent;
  /// Kernel-level buffers (workspace arguments), by KIR value.
  DenseSet<Value> kernelBuffers;
  /// Runs the workset `w` whole inside the last program instance (after every instance's writes).
  LogicalResult emitFinalization(Workset &w);
  /// One element of an element-wise workset (not a fold workset) at `positions`.
  LogicalResult emitWorksetElement(Workset &w, ArrayRef<Value> positions);
  LogicalResult classifyTopLevel(Block &block, SmallVectorImpl<Workset> &worksets);
};
/// The views `op` (and what it holds) reads and writes.
void collectViews(Operation *op, DenseSet<Value> &reads, DenseSet<Value> &writes);
/// Whether `root` holds a product (kir.contract, kir.scaled_contract, kir.sparse_contract) (PhasedSums.cpp).
bool computesProduct(Operation *root);
/// Whether `combine` is `^bb(%a, %b): %r = kir.binary <kind> %a, %b (either order); kir.yield %r`.
bool isBinaryCombine(Region &combine, kir::BinaryKind kind);
/// Whether `combine` is an add of its two arguments (isBinaryCombine).
inline bool isAddCombine(Region &combine) { return isBinaryCombine(combine, kir::BinaryKind::Add); }
/// Whether two coordinate lists of one view name disjoint element sets (InPlaceStores.cpp): on some
/// axis, intervals of one domain that do not overlap, or integer coordinates whose linear forms never
/// take one value (`2 * h` and `2 * h + 1`).
bool disjointCoords(ValueRange a, ValueRange b);
/// The read of its own view that a kir.scatter's value is computed from, where its destinations come
/// from memory and that read is not provably disjoint from them (InPlaceStores.cpp): repeats would
/// race on a GPU. Null otherwise.
Operation *scatterSelfRead(kir::ScatterOp scatter);
/// Why such a scatter cannot be staged through workspace (StagedScatters.cpp), or empty.
std::string whyNotStaged(kir::ScatterOp scatter);
/// Refuses such a scatter where it cannot be staged (InPlaceStores.cpp).
LogicalResult checkInPlaceScatters(Operation *root);
/// The workspace extent of a buffer axis over kir domain `domain`: a view extent's name or a
/// constant size (KernelBuffers.cpp); failure for other domains.
FailureOr<Attribute> workspaceExtent(OpBuilder &b, Value domain);
/// Rebuilds `fold` so that summarize reads nothing from outside but constants: what it reads
/// becomes explicit captures. Returns the op to use from now on (`fold` itself when closed).
pgpu::RegionFoldOp closeSummarize(OpBuilder &b, pgpu::RegionFoldOp fold);

} // namespace tessel::construct

#endif // TESSEL_LIB_CONVERSION_KIRTOPGPU_KERNELCONSTRUCTOR_H
