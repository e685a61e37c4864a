//===- FoldWorksetImpl.h - state of fragment construction of worksets -*- C++ -*-===//
//
// Private to kir-to-pgpu: the fragment construction of worksets holding region
// folds (FoldWorkset.cpp) and region scans (ScanWorkset.cpp) share this class.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_CONVERSION_KIRTOPGPU_FOLDWORKSETIMPL_H
#define TESSEL_LIB_CONVERSION_KIRTOPGPU_FOLDWORKSETIMPL_H

#include "FoldWorkset.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

#include <optional>
#include <string>

namespace tessel::construct {

/// What coordinate provenance says of a KIR value: whether it varies across
/// the lanes (depends on the innermost parallel index) and the domain each
/// of its tensor axes ranges over.
struct Shape {
  bool lanes = false;
  SmallVector<Value> axes;
  bool operator==(const Shape &o) const { return lanes == o.lanes && axes == o.axes; }
  unsigned rank() const { return axes.size() + (lanes ? 1 : 0); }
};

class FoldWorksetImpl {
public:
  FoldWorksetImpl(KernelConstructor &kc, kir::ParallelOp par) : kc(kc), b(kc.b), par(par) {}

  bool plan();
  /// plan() with the lane choice made (`hasLanes`).
  bool planBody();
  SmallVector<Value> groupExtents(Location loc);
  void declareParams(pgpu::KernelOp kernel);
  LogicalResult emit(ArrayRef<Value> coords);

  std::string why;
  /// "region fold" or "region scan": what the workset's remarks speak of.
  std::string subject = "region fold";

private:
  // --- Coordinate provenance (KIR only) ---
  bool fail(Operation *op, const Twine &reason) {
    why = (reason + " ('" + op->getName().getStringRef() + "')").str();
    return false;
  }
  Value resolve(Value v) const {
    while (Value next = alias.lookup(v))
      v = next;
    return v;
  }
  /// The shape of a KIR value, analyzing top-level producers on demand.
  std::optional<Shape> shapeOf(Value v);
  bool analyzeBlock(Block &block);
  /// Conjoins a masked read's validity `kirValid` (none: unmasked) into the tile access's `valid`
  /// and takes its `kirFill` as `fill`.
  LogicalResult maskedAccess(Location l, Value kirValid, Value kirFill, const Shape &s, Value &valid, Value &fill);
  bool analyzeOp(Operation *op);
  /// The tile axis domain `d` is realized on: `d` itself, or the one it pairs with by position.
  Value axisOf(Value d) const {
    while (Value next = rebased.lookup(d))
      d = next;
    return d;
  }
  /// Whether axes `a` and `c` are the same; where they differ only in launch-time step-1 domains that
  /// pair by position (kir::pairByPosition), records them as one axis and asks for `replan`.
  bool sameAxes(ArrayRef<Value> a, ArrayRef<Value> c);
  /// planBody(), planned again (from a clean state) while it finds more domains to pair.
  bool planPaired();
  /// Clears what planBody() recorded (not `rebased`).
  void resetPlan();
  /// The members of domain `d` at the positions of its axis's current block (`d` re-based onto it).
  Value membersOf(Location l, Value d);
  /// Each re-based domain has its axis's member count at run time (the pairing's condition; a slice
  /// out of its source's bounds is clamped and does not pair): null when nothing is re-based.
  Value pairedSizes(Location l);
  bool analyzeFold(kir::RegionFoldOp f);
  bool analyzeScan(kir::RegionScanOp s); // ScanWorkset.cpp
  std::optional<bool> constCondition(Value kirCond);
  std::string paramName(Value domain);
  /// Whether `v` is computed in the workset body from a contraction whose result ranges over `d`.
  bool contractedOver(Value v, Value d);
  /// A kir.domain or kir.subregion of the workset body whose bounds are scalars of the member (a
  /// length loaded per member): recorded in `memberDomains`.
  bool analyzeMemberDomain(Operation *op);
  /// Whether `v` is the lane's coordinate plus or minus values uniform across the lanes, or a min/max of
  /// such a value with a uniform one (a clamped window start).
  bool laneAffine(Value v);
  /// Whether `d` is a domain construction can realize: a launch-time one or a member's own.
  bool knownDomain(Value d) const { return kc.domains.count(d) || memberDomains.contains(d); }
  /// Records in `loopAxes` each free axis that only contractions reduce (ContractLoops.cpp).
  void planLoopAxes();
  /// In the looped variant: whether some tensor axis of `v` is a loop axis (its value exists only
  /// inside a contraction's loop).
  bool overLoopAxis(Value v);
  /// The variant for free axes longer than their blocks where the too-long ones are loop axes:
  /// their contractions loop over blocks (ContractLoops.cpp).
  LogicalResult emitLooped();
  /// The guard's other side (some free axis longer than its block): the looped variant where the
  /// axes past their blocks can be loop axes, else the element-wise fallback (ContractLoops.cpp).
  LogicalResult emitPastBlocks(ArrayRef<Value> coords, Value laneBase);

  // --- Emission ---
  struct AxisBlock {
    StringAttr param;
    Value pos, valid, member; // 1-d fragments over `param`
    bool allValid = false;    // the block is exactly the domain: `valid` is all true
    /// A lane domain's tile (`laneDomains`): [lanes, param] validity, each lane's own range; `valid`
    /// is then the block's range, the union of the lanes' (what a value without lanes may read).
    Value laneValid;
  };
  Value param(Location l, StringRef name) {
    return pgpu::ParamOp::create(b, l, b.getIndexType(), b.getStringAttr(name));
  }
  FailureOr<Type> physType(const Shape &s, Type element);
  FailureOr<Value> get(Value kirValue);
  /// Before a loop over `axis`: walks what `roots` read through the values that range over `axis` and
  /// realizes, once, each value that does not and that `realizeHere` accepts (ContractLoops.cpp).
  LogicalResult realizeBeforeLoop(ArrayRef<Value> roots, Value axis, function_ref<bool(Value)> realizeHere);
  /// The members of `domain`: a launch-time domain's, or a member domain's computed (once per
  /// variant, where first asked for) from its realized bounds.
  FailureOr<DomainVals> domainOf(Location l, Value domain);
  FailureOr<Value> broadcastTo(Location l, Value phys, const Shape &from, const Shape &to,
                               ArrayRef<int64_t> kirDims = {});
  /// The validity of `domain`'s current block broadcast to `to`, on `to`'s
  /// tensor axis `axis` (the first axis over `domain` when negative); null
  /// when the block has no padding.
  FailureOr<Value> axisMask(Location l, Value domain, const Shape &to, int64_t axis = -1);
  AxisBlock makeBlock(Location l, StringRef name, Value base, Value limit, const DomainVals &d,
                      bool exact = false);
  LogicalResult emitOp(Operation *op);
  LogicalResult emitStore(kir::StoreOp op);
  LogicalResult emitBufferStore(kir::BufferStoreOp op);
  /// The value, coordinates and validity of a write of `stored` at `at` (a view's or a buffer's).
  FailureOr<std::tuple<Value, SmallVector<Value>, Value>> writeAccess(Location l, Value stored, ValueRange at);
  LogicalResult emitFold(kir::RegionFoldOp f);
  LogicalResult emitReduce(kir::ReduceOp r);
  LogicalResult emitContract(kir::ContractOp c);
  /// A contraction over a loop axis `d`: a pgpu.for over BLOCK_<d> blocks of it carrying the
  /// accumulator, the operands read per block (ContractLoops.cpp).
  LogicalResult emitLoopedContract(kir::ContractOp c, Value d);
  /// A contraction with a one-dimensional operand (no tl.dot shape): the
  /// product broadcast over the other operand, summed over the paired axis.
  LogicalResult emitVectorContract(kir::ContractOp c, Value lhs, Value rhs, const Shape &sl, const Shape &sr,
                                   kir::ContractPrecision precision);
  LogicalResult emitScan(kir::RegionScanOp s); // ScanWorkset.cpp
  /// The scan whose output `v` is, or is computed from by pointwise ops.
  static kir::RegionScanOp scanOfOutput(Value v);
  /// The coordinates of a read or write of shape `s` and its validity. With `access` (a gather), an
  /// index tensor coordinate is broadcast onto the axes kir::coordinateAxes gives it and its members
  /// outside their domains' blocks are invalid (their index values are padding).
  FailureOr<std::pair<SmallVector<Value>, Value>> accessCoords(Location l, ValueRange coords, const Shape &s,
                                                                Operation *access = nullptr);
  LogicalResult emitEffects(Block &block);
  LogicalResult emitFallback(ArrayRef<Value> coords, Value laneBase);
  void bind(Value kirValue, Value phys) { scopes.back()[kirValue] = phys; }

  KernelConstructor &kc;
  OpBuilder &b;
  kir::ParallelOp par;
  Value laneArg, laneDomain;
  DenseMap<Value, Shape> shapes;
  DenseMap<Value, Value> alias;
  /// Domains the workset body defines per member (their bounds are the member's scalars), each a
  /// fold's tile. With a lane axis their bounds must not vary across the lanes (one fold range per
  /// program); where that or the fold's operands rule lanes out (a key tile per lane would make a
  /// batched contraction), the workset is planned again with no lane axis: each program owns one
  /// point of the parallel space and its fold runs to that member's own bound.
  llvm::SetVector<Value> memberDomains;
  /// Their realized members in the current variant.
  DenseMap<Value, DomainVals> localDomains;
  /// Member domains whose bounds vary across the lanes (a token's keys [start(seq(t)), t] over the
  /// packed tokens): subregions of a launch-time domain of step 1, each a fold's tile only. The fold
  /// walks the union of the block's lanes' ranges and every lane masks the members outside its own
  /// (emitFold, `AxisBlock::laneValid`).
  llvm::SetVector<Value> laneDomains;
  /// A lane domain's per-lane range [lo, hi) (lane fragments, clamped to its source) and the block's
  /// union [lower, upper) (scalars), in the current variant.
  struct LaneRange {
    Value lo, hi, lower, upper;
  };
  FailureOr<LaneRange> laneRangeOf(Location l, Value domain);
  /// Launch-time step-1 domains that pair by position with another of one length (a slice
  /// `dims[H:2 * H]` with `T.domain(0, H)`: KIR_SubregionOp), each mapped to the domain whose tile
  /// axis it shares; its accesses read that block's positions re-based at its own first member.
  /// Kept across re-plans (in insertion order: the guard's conjuncts are emitted in it).
  llvm::MapVector<Value, Value> rebased;
  /// Set by sameAxes when it paired more domains: planBody failed only for that and runs again.
  bool replan = false;
  /// Domains of free fragment axes and of fold tiles, with their parameters.
  llvm::MapVector<Value, std::string> freeAxes, tileAxes;
  /// Free axes that only contractions reduce (a GEMM's K: h[n, ks] . w[v, ks]), with the
  /// parameter of their loop's step: where such an axis is longer than its block, the looped
  /// variant (`looping`) has no fragment over it; each contraction over it loops over its blocks.
  llvm::MapVector<Value, std::string> loopAxes;
  bool looping = false;
  std::string laneParam;
  /// Whether the innermost parallel axis is a lane axis. A workset holding a
  /// region scan has none: every program owns one point of the parallel
  /// space and the scan's contractions are its fragment work (a lane-varying
  /// state would make them batched contractions).
  bool hasLanes = true;
  /// The parallel axis whose members are the lanes: the innermost, or (where its lanes would make a
  /// batched contraction) another axis whose members share the contraction's other operand.
  unsigned laneIndex = 0;
  /// Whether the workset's folds hold no contraction: no lanes, and its fold tiles are row blocks.
  bool rowTiles = false;
  /// Whether a lane plan failed because a contraction's operands both vary across the lanes (each
  /// member reads its own matrix: single-query decode attention, whose key/value rows depend on the
  /// member's head). Such a workset is retried with one member per program and its fold still tiled.
  bool lanesBatched = false;
  /// Grouped lanes (tried after `lanesBatched`): the lane argument h reaches the batched operands
  /// only through `h // G`, G a launch-time scalar (a query head's key/value head). Each program owns
  /// lanes of one group, [g*G + c*BLOCK, min(g*G + G, (c+1)*BLOCK)), so `h // G` is the program's
  /// group g, a scalar, and the group's keys are one tile shared by its lanes (seed 000 §6 index
  /// relations: the quotient is a coordinate fact of the member).
  Value groupSize;                             // G (KIR), defined outside the workset
  llvm::SmallVector<Operation *, 2> quotients; // the body's `kir.binary div %h, G`
  /// Emission: the limit of the current lane block (the domain's size, or the end of the group).
  Value laneLimit;
  /// Finds G and the quotients for grouped lanes; false when the lane axis has none.
  bool findGroup();
  /// Region scans emitted in the current variant (their outputs' stores are
  /// emitted inside the scan's emit region).
  llvm::DenseSet<Operation *> emittedScans;
  bool relaxed = false, remarks = false;

  SmallVector<DenseMap<Value, Value>> scopes;
  DenseMap<Value, AxisBlock> blocks;
  AxisBlock lane;
  /// The number of lane blocks (the group's last extent, a LaunchExpr made by groupExtents).
  Value laneBlocks;
};

} // namespace tessel::construct

#endif // TESSEL_LIB_CONVERSION_KIRTOPGPU_FOLDWORKSETIMPL_H
