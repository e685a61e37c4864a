//===- FormTilesImpl.h - the tiler shared by FormTiles*.cpp ------*- C++ -*-===//
//
// Private to pgpu-form-tiles: the Tiler (FormTiles.cpp: analysis and the
// segment chain; FormTilesRewrite.cpp: the rewrite and declared parameters)
// and the small facts both halves read. FormTiles.cpp's header comment
// describes the pass.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_DIALECT_PGPU_TRANSFORMS_FORMTILESIMPL_H
#define TESSEL_LIB_DIALECT_PGPU_TRANSFORMS_FORMTILESIMPL_H

#include "tessel/Dialect/PGPU/IR/ExactSplit.h"
#include "tessel/Dialect/PGPU/Transforms/Passes.h"
#include "tessel/Dialect/PGPU/IR/IndexSign.h"
#include "tessel/Dialect/PGPU/IR/SliceWidth.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/StringSet.h"

#include <map>
#include <memory>
#include <set>

namespace tessel::pgpu::formtiles {
using namespace mlir;

using Mask = uint32_t;
constexpr unsigned kMaxAxes = 32;
constexpr llvm::StringLiteral kTileK = "TILE_K";
/// The widest constant-width slice of an author loop's trip that one block of lanes covers (TILE_K's
/// largest candidate): its contraction is then no K loop (analyzeLoop).
constexpr int64_t kWidestSliceBlock = 128;
/// The start of checkNests' reason for a nest that is not two contractions.
constexpr llvm::StringLiteral kNestedReduction = "a reduction nested in another's element body";
/// The smallest run of a [rows, contiguous] tile (TILE_w's first candidate).
constexpr int64_t kRowTileMinWidth = 16;
/// Resident programs per multiprocessor of a persistent tile traversal.
constexpr llvm::StringLiteral kPersist = "PERSIST";

/// The writes a tile carries: stores, unique scatters, workspace stores and the scatter-add of a
/// partial into workspace the kernel keeps at its initial value (pgpu-atomic-partials' merge; other
/// scatter-reduces are blocked by pgpu-refine-mapping and pgpu-form-blocking).
inline bool isTiledWrite(Operation *op) {
  if (isa<StoreOp, ScatterOp, BufferStoreOp>(op))
    return true;
  auto sr = dyn_cast<ScatterReduceOp>(op);
  auto arg = sr ? dyn_cast<BlockArgument>(sr.getView()) : BlockArgument();
  auto kernel = arg ? dyn_cast<KernelOp>(arg.getOwner()->getParentOp()) : KernelOp();
  return kernel && kernel.getArgAttr(arg.getArgNumber(), "pgpu.kept");
}

inline Mask bit(unsigned axis) { return Mask(1) << axis; }
inline unsigned popcount(Mask m) { return llvm::popcount(m); }

/// A contraction-shaped range_reduce: `sum_k x * y` (after the analysis).
struct ContractShape {
  RangeReduceOp reduce;
  BinaryOp product;
  Value lhs, rhs;       // the operands, exact widening casts stripped where both allow
  unsigned lhsFree = 0; // the free axis of each operand
  unsigned rhsFree = 0;
  kir::ContractPrecision precision = kir::ContractPrecision::IEEE;
  // An f32 operand (0 lhs, 1 rhs) against a widened bf16 one (stripped): its tile is split exactly
  // into bf16 parts, one tensor-core product each (pgpu::splitBF16); -1 when none.
  int split = -1;
};

/// Whether `op` of a contraction's element body is consumed by the contraction and never materialized:
/// its product, or a widening cast the contraction reads through (an operand is the cast's narrow
/// source). A cast it does not read through (i8 to f32, f8E4M3FN times f8E5M2) is an operand's value.
inline bool consumedBy(Operation &op, const ContractShape &c) {
  Operation *product = BinaryOp(c.product).getOperation();
  if (&op == product)
    return true;
  auto cast = dyn_cast<CastOp>(op);
  return cast && cast->hasOneUse() && *cast->user_begin() == product &&
         (cast.getOperand() == c.lhs || cast.getOperand() == c.rhs);
}

/// X when `v` is the element-wise construction's TF32 rounding of X (KIRToPGPU roundTF32, the
/// precision tf32 of a kir.contract): select(X != X, X, bitcast<f32>((bitcast<i32>(X) + 4096) &
/// -8192)); otherwise null. A contraction of two such operands is the tf32 contraction of the X's.
inline Value tf32Source(Value v) {
  auto sel = v.getDefiningOp<SelectOp>();
  if (!sel || !v.getType().isF32())
    return {};
  Value x = sel.getTrueValue();
  auto cmp = sel.getCondition().getDefiningOp<CmpOp>();
  auto back = sel.getFalseValue().getDefiningOp<BitcastOp>();
  if (!cmp || cmp.getPredicate() != kir::CmpPredicate::NE || cmp.getLhs() != x || cmp.getRhs() != x || !back)
    return {};
  auto constantIs = [](Value c, int64_t want) {
    APInt value;
    return matchPattern(c, m_ConstantInt(&value)) && value.getSExtValue() == want;
  };
  auto mask = back.getOperand().getDefiningOp<BinaryOp>();
  if (!mask || mask.getKind() != kir::BinaryKind::And || !constantIs(mask.getRhs(), -8192))
    return {};
  auto add = mask.getLhs().getDefiningOp<BinaryOp>();
  if (!add || add.getKind() != kir::BinaryKind::Add || !constantIs(add.getRhs(), 4096))
    return {};
  auto to = add.getLhs().getDefiningOp<BitcastOp>();
  return to && to.getOperand() == x ? x : Value();
}

/// An exact widening to f32 of a 16-bit or an 8-bit float (f16, bf16, f8E4M3FN, f8E5M2: every value
/// is an f32 and every product of two is exact in f32), or null.
inline Value narrowSource(Value v) {
  auto cast = v.getDefiningOp<CastOp>();
  if (!cast || !cast.getType().isF32())
    return {};
  Type from = cast.getOperand().getType();
  return (from.isF16() || from.isBF16() || isa<Float8E4M3FNType, Float8E5M2Type>(from)) ? cast.getOperand()
                                                                                        : Value();
}

/// An exact widening to i32 of a signless i8 (sign-extended): every product of two is exact in i32 and
/// i32 sums wrap alike in any order, so an i32 sum of such products is the contraction of the i8
/// operands with an i32 accumulator (tl.dot's integer form); or null.
inline Value narrowIntSource(Value v) {
  auto cast = v.getDefiningOp<CastOp>();
  if (!cast || !cast.getType().isSignlessInteger(32))
    return {};
  return cast.getOperand().getType().isSignlessInteger(8) ? cast.getOperand() : Value();
}

class Tiler {
public:
  Tiler(KernelOp kernel, ProgramSpaceOp space, ExecutionGroupOp group, IfOp guard)
      : kernel(kernel), space(space), group(group), guard(guard), b(kernel.getContext()) {}

  /// Checks the nest and finds the contractions; fails (without touching the
  /// IR) when this group is not for this pass, with the reason in `whyNot`.
  LogicalResult analyze();
  /// What was adopted, for the remark.
  std::string adopted() const;
  std::string whyNot;
  void rewrite();
  /// The segmented walk (a segment workset whose bounds are read in the program), instead of rewrite().
  void rewriteSegmented();
  bool isSegmented() const { return segmented; }
  /// The group is one segment of construction's dispatch chain (pgpu::dispatchChain): rewrite()
  /// leaves the program space's count to the caller (the product of `tiledGroup`'s extents).
  void setChainSegment() { chainSegment = true; }
  /// Also accept author loops in the program body (analyzeLoop): tried after every other form, so a
  /// loop that flattens (FlattenCarriedSums.cpp) keeps that form.
  void setTileLoops() { tileLoops = true; }
  /// Also accept reads in a chain level's prologue (rowReads): tried last, where the group's reads before
  /// a launch-time walk otherwise make it a segment (one member a program).
  void setRowReads() { rowReads = true; }
  /// The author loops the analysis accepted (tileLoops).
  unsigned numLoops() const { return loops.size(); }
  /// Whether the analysis accepted a Gram nest (gramNest): its outer reduction becomes a region fold.
  bool formsGramFold() const { return !gramFolds.empty(); }
  /// Whether the analysis accepted contractions (the nest is a product's).
  bool formsContractions() const { return !contracts.empty(); }
  ExecutionGroupOp tiledGroup; // rewrite()'s group

private:
  // ---- analysis over the original IR ----
  LogicalResult analyzeBlock(Block &block, bool programBody);
  /// `around`: the axis of the reduction enclosing `enclosing`'s, for a reduction nested two deep.
  LogicalResult analyzeReduce(RangeReduceOp reduce, int enclosing, Mask around = 0);
  bool gramNest(RangeReduceOp inner, RangeReduceOp outer);
  LogicalResult analyzeLoop(ForOp loop);
  LogicalResult checkNests();
  bool pairwiseReuse();
  Mask maskOf(Value v) const {
    auto it = axes.find(v);
    return it == axes.end() ? 0 : it->second;
  }
  unsigned newAxis() { return numAxes++; }
  Mask tiledFree(Value operand, Mask free) const;
  /// An op's results depend on every axis its operands depend on.
  void propagate(Operation &op) {
    Mask m = 0;
    for (Value v : op.getOperands())
      m |= maskOf(v);
    for (Value r : op.getResults())
      axes[r] = m;
  }
  /// Straight-line pointwise code, launch-time values and reads: what a tiled body may hold.
  static bool isPointwiseOrRead(Operation &op) {
    return isa<BinaryOp, UnaryOp, CmpOp, SelectOp, CastOp, BitcastOp, LoadOp, GatherOp, BufferLoadOp,
               arith::ConstantOp, ParamOp, ExtentOp, StrideOp, CeilDivOp>(op);
  }
  /// A read of a view the group does not write (rowReads: a chain level's per-row value).
  bool isRowRead(Operation &op) const {
    return isa<LoadOp, GatherOp, BufferLoadOp>(op) && !written.contains(op.getOperand(0));
  }
  /// Whether `v` is available before the program space (a launch-time value).
  bool launchTime(Value v) const {
    if (auto arg = dyn_cast<BlockArgument>(v))
      return !space->isAncestor(arg.getOwner()->getParentOp());
    return !space->isAncestor(v.getDefiningOp());
  }
  /// A launch-time index value `>= v` (`above`) or `<= v`, built at `b`'s insertion point (before the
  /// space), from the min/max clamps, sums and differences that compute `v` (a segment bound clamped to
  /// a view's extent: the DSL's `rows[lo:hi]` of `T.domain(0, M)`); null where `v` is not bounded so.
  Value launchBound(Value v, bool above, unsigned depth = 0);

  // ---- rewriting ----
  Mask blockedMask(Value original) const { return maskOf(original) & blocked; }
  Type typeFor(Type element, Mask m) {
    if (!m)
      return element;
    SmallVector<Attribute> extents;
    for (unsigned a = 0; a < numAxes; ++a)
      if (m & bit(a))
        extents.push_back(b.getStringAttr(paramOf[a]));
    return FragmentType::get(b.getContext(), element, extents);
  }
  /// `v` (new IR, axes `from`) as a value over axes `to` (a superset).
  Value expand(Location loc, Value v, Mask from, Mask to) {
    if (from == to)
      return v;
    Type type = typeFor(elementTypeOf(v.getType()), to);
    if (!from)
      return SplatOp::create(b, loc, type, v);
    SmallVector<int64_t> dims;
    unsigned position = 0;
    for (unsigned a = 0; a < numAxes; ++a) {
      if (!(to & bit(a)))
        continue;
      if (from & bit(a))
        dims.push_back(position);
      ++position;
    }
    return BroadcastOp::create(b, loc, type, v, b.getDenseI64ArrayAttr(dims));
  }
  Value mapped(Location loc, Value original, Mask to) {
    return expand(loc, map.lookupOrDefault(original), blockedMask(original), to);
  }
  /// The lane validity of every blocked axis in `m`, over `m`.
  Value lanesValid(Location loc, Mask m) {
    Value ok;
    for (unsigned a = 0; a < numAxes; ++a) {
      if (!(m & bit(a)))
        continue;
      Value mine = expand(loc, laneOk[a], bit(a), m);
      ok = ok ? Value(BinaryOp::create(b, loc, kir::BinaryKind::And, ok, mine, false, false)) : mine;
    }
    return ok;
  }
  /// The access validity `own` (original IR) over `m`, conjoined with the
  /// lane validity of `m`; an always-true `own` adds nothing.
  Value conjoin(Location loc, Value own, Mask m) {
    Value ok = lanesValid(loc, m);
    if (ok && matchPattern(own, m_One()))
      return ok;
    Value mine = mapped(loc, own, m);
    return ok ? Value(BinaryOp::create(b, loc, kir::BinaryKind::And, mine, ok, false, false)) : mine;
  }
  LogicalResult cloneOp(Operation &op);
  void cloneRead(Operation &op);
  void cloneWrite(Operation &op);
  void tileReduce(RangeReduceOp op);
  void tileLoop(ForOp op);
  void tileGramFold(RangeReduceOp op);
  Value contractStep(const ContractShape &c, unsigned k, Value acc, Location loc);
  RangeReduceOp fusablePartner(RangeReduceOp op);
  void cloneFinalization(LastProgramOp op);
  SmallVector<Value> combineInto(RangeReduceOp op, ArrayRef<Value> args, Mask carryMask);
  void bindAxis(unsigned axis, Value start, Value bound, Value scalarCoord);
  SmallVector<Value> groupedCoords(Location loc, Value linear, Value tm, Value tn);
  void cloneNest();
  void declareParams();
  LogicalResult checkSegmented();

  KernelOp kernel;
  ProgramSpaceOp space;
  ExecutionGroupOp group;
  IfOp guard; // construction's dispatch guard around the group (beside a last-program finalization), or null
  OpBuilder b;

  DenseMap<Value, Mask> axes;
  unsigned numAxes = 0;
  SmallVector<ForeachOp> chain;   // promoted foreach ops, outermost first
  Block *programBody = nullptr;   // the innermost body of the chain
  DenseMap<Operation *, unsigned> loopAxis; // range_reduce -> its axis
  // Each nested range_reduce and the one whose element body holds it, in program order.
  SmallVector<std::pair<Operation *, Operation *>> enclosingOf;
  DenseSet<Operation *> gramFolds; // a Gram nest's outer reduction (gramNest): a region fold over t blocks
  // A nested contraction free on two program axes whose operand reads the enclosing reduction's member
  // (analyzeReduce): the enclosing reduction walks one member a trip around its [p, q] tile.
  DenseSet<Operation *> memberWalkedNests;
  std::set<unsigned> singleBlock; // nest axes whose every TILE candidate covers the constant extent
  std::map<unsigned, int64_t> nestAxes; // the axis of a contraction holding a nested one -> its constant extent or -1
  std::map<unsigned, int64_t> sliceAxes; // an author loop's trip contraction over a slice of constant width -> it
  SmallVector<LastProgramOp> finalizations; // ticketed finalizations in the program body
  SmallVector<Value> firstOf;               // per program axis (rewrite): its first member in this program
  SmallVector<ContractShape> contracts;
  Mask blocked = 0;               // axes that form fragments
  Mask programAxes = 0;
  SmallVector<std::string> paramOf; // per axis: its extent parameter (blocked axes)
  std::string groupParam;           // the grouped traversal's group size, when there is one
  bool persistent = false;          // programs walk the tiles with a stride (PERSIST)
  bool chainSegment = false;        // one segment of several (setChainSegment)
  bool coalescing = false;          // tiled for contiguous accesses (no contraction)
  bool pairwise = false;            // rowTiles of a pairwise map over two program axes (pairwiseReuse)
  bool rowTiles = false;            // coalescing: [rows, contiguous] tiles of the two innermost axes
  StringAttr rowCovers;             // rowTiles: the named extent of the contiguous axis, or null
  bool segmented = false;           // the first foreach is a segment whose bounds are read in the program
                                    // or one behind read-only reductions (its prologue)
  bool boundsRead = false;          // segmented, with a bound that is not launch-time (read from data)
  bool boundedWalk = false;         // the segment walk's programs are capped by its launch-time tile bound
  DenseSet<Operation *> segmentPrologue; // read-only reductions computing the segment's bounds
  DenseSet<Operation *> fused;      // additions merged into a contraction's accumulator
  Mask scalarFree = 0;              // free axes of an operand free on several, kept one member per program
  bool tileLoops = false;           // author loops in the program body are analyzed (setTileLoops)
  bool rowReads = false;            // reads in a chain level's prologue are accepted (setRowReads)
  bool readLevels = false;          // rowReads: some chain level's prologue reads
  DenseSet<Value> written;          // rowReads: the views the group writes
  SmallVector<ForOp> loops;         // the author loops of the program body, carrying tiles (analyzeLoop)
  unsigned chained = 0;             // contractions whose accumulator starts from another's
  unsigned carriedInto = 0;         // contractions accumulating into an author loop's carried tile

  IRMapping map;
  SmallVector<Value> laneOk;      // per blocked axis: i1 fragment over that axis
};


} // namespace tessel::pgpu::formtiles

#endif // TESSEL_LIB_DIALECT_PGPU_TRANSFORMS_FORMTILESIMPL_H
