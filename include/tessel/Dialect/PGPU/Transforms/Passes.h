//===- Passes.h - shared pgpu passes ----------------------------*- C++ -*-===//

#ifndef TESSEL_DIALECT_PGPU_TRANSFORMS_PASSES_H
#define TESSEL_DIALECT_PGPU_TRANSFORMS_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "tessel/Dialect/PGPU/IR/PGPU.h"

namespace tessel::pgpu {
#define GEN_PASS_DECL
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"

/// The block extent pgpu-form-blocking declares for 1-d fragments and loops
/// over blocks; pgpu-stage-rows recognizes the loops it made by their step.
inline constexpr llvm::StringLiteral kBlockParam = "BLOCK";

/// Folds true masks out of `region` after a narrowing pass made them true: and(x, true) = x,
/// select(true, a, b) = a, and an idempotent reduction (or/and/max/min) of lanes all c is c.
void foldTrueMasks(mlir::Region &region);

/// Folds known masks out of `region` after a narrowing pass made a predicate false (or true): what
/// foldTrueMasks folds, and not, and/or with a false side, select(false, a, b) = b, a read under a false
/// validity (its fill); what then has no use is erased.
void foldKnownMasks(mlir::Region &region);

/// An order comparison `a pred b` read from b's side when `flipped` (a < b is b > a, and so on); none for
/// an equality or inequality. Range analyses put the tile coordinate on the left this way.
inline std::optional<kir::CmpPredicate> orderFrom(kir::CmpPredicate pred, bool flipped) {
  switch (pred) {
  case kir::CmpPredicate::LT: return flipped ? kir::CmpPredicate::GT : pred;
  case kir::CmpPredicate::LE: return flipped ? kir::CmpPredicate::GE : pred;
  case kir::CmpPredicate::GT: return flipped ? kir::CmpPredicate::LT : pred;
  case kir::CmpPredicate::GE: return flipped ? kir::CmpPredicate::LE : pred;
  default: return std::nullopt;
  }
}

/// Whether the module's `kir.compile_options` ask for optimization remarks
/// (seed 002 §1: adopted and rejected transformations say why, at the op).
inline bool remarksEnabled(mlir::Operation *op) {
  auto module = op->getParentOfType<mlir::ModuleOp>();
  if (!module && llvm::isa<mlir::ModuleOp>(op))
    module = llvm::cast<mlir::ModuleOp>(op);
  if (!module)
    return false;
  auto options = module->getAttrOfType<kir::CompileOptionsAttr>(kir::KIRDialect::getCompileOptionsAttrName());
  return options && options.getOptimizationRemarks();
}

/// Whether the module's `kir.compile_options` permit `numerics = relaxed_normalization` (seed 002
/// §1): the rounding changes of normalized summaries (online rescaling, base-2 exponentials, one
/// reciprocal a normalizing divisor).
inline bool relaxedNormalization(mlir::ModuleOp module) {
  auto options = module->getAttrOfType<kir::CompileOptionsAttr>(kir::KIRDialect::getCompileOptionsAttrName());
  return options && options.getNumerics() == kir::Numerics::RelaxedNormalization;
}

/// The single execution group that the whole program space dispatches to (one axis, pure code
/// around it), or null; with `finalization` also one under construction's dispatch guard beside a
/// pgpu.last_program (pgpu-refine-mapping).
ExecutionGroupOp soleExecutionGroup(ProgramSpaceOp space, bool finalization);
/// Launches `programs` instances for a refined sole `group` of `space` (its members collapsed into one
/// axis): the program space's count (at least one where a pgpu.last_program needs an instance) and the
/// group's one extent, its roles joined with '*' (pgpu-refine-mapping, pgpu-pack-rows).
void launchPrograms(mlir::OpBuilder &b, ProgramSpaceOp space, ExecutionGroupOp group, mlir::Value programs);
/// The groups of a program space's dispatch, in segment order, with the comparisons and subtractions
/// that route a program to them (construction's chain: pid < S0 ? g0(pid) : (r = pid - S0; r < S1 ?
/// g1(r) : ...)), where every group is its region's only other operation and each S is the product of
/// its group's extents (1 for a group without axes); a sole group has neither.
struct Dispatch {
  llvm::SmallVector<ExecutionGroupOp> groups;
  llvm::SmallVector<CmpOp> bounds;    // bounds[i]: linear < S_i, selecting group i
  llvm::SmallVector<BinaryOp> shifts; // shifts[i]: linear - S_i, the next segment's linear
  /// With `guardedEnd`: the last group's own guard `linear < S_last` (no else: a ticketed space's
  /// last segment, the instance past every segment only arriving), or null.
  CmpOp end;
  /// Makes `programs` segment i's count: its bound and shift, or the ending guard's bound.
  void setCount(unsigned i, mlir::Value programs);
};
/// Fills `out` with the chain that `block` (a program space's body, `linear` its coordinate)
/// dispatches through; false when the block is no such chain (pgpu-refine-mapping, pgpu-split-folds).
/// With `guardedEnd`, a chain of several segments may end in a guard without else (a ticketed
/// space: construction's instance past every segment still arrives), and a segment's guard may wait
/// (result-less pgpu.while loops) before its group (pgpu-refine-mapping).
bool dispatchChain(mlir::Block &block, mlir::Value linear, Dispatch &out, bool guardedEnd = false);

/// Moves the work of `outer`'s element body that does not depend on the member (a nested read-only
/// range_reduce, the pure code over it) before `outer` (pgpu-form-tiles; HoistNestedReductions.cpp).
/// Moves nothing unless a nested reduction moves. Returns each moved op with the op it preceded.
llvm::SmallVector<std::pair<mlir::Operation *, mlir::Operation *>> hoistNestedReductions(RangeReduceOp outer);
/// Puts the ops hoistNestedReductions moved back where they were.
void undoHoist(llvm::ArrayRef<std::pair<mlir::Operation *, mlir::Operation *>> moves);

/// A loop adding a reduction to its carry on every trip, replaced by one reduction over the flattened
/// members (pgpu-form-tiles; FlattenCarriedSums.cpp): the loop, detached and kept for undoing, the ops
/// built in its place (in order) and the value that replaced its result.
struct FlattenedSum {
  ForOp loop;
  llvm::SmallVector<mlir::Operation *> created;
  mlir::Value result;
};
/// Flattens every such loop under `root` whose inner range does not depend on the trip (a BSR row's
/// blocks, each a contraction over the block's k): `for e: acc += sum_k f(e, k)` becomes
/// `acc + sum_{t < n W} f(lo + t / W, klo + t % W)` (seed 000 §8: the sum regrouped).
llvm::SmallVector<FlattenedSum> flattenCarriedSums(mlir::Operation *root);
/// Puts the loops back, erasing what was built in their place.
void undoFlatten(llvm::ArrayRef<FlattenedSum> flattened);
/// Destroys the detached loops once the flattening is kept.
void eraseFlattened(llvm::ArrayRef<FlattenedSum> flattened);

/// Helpers of the loop fusions (pgpu-fuse-contract-loops, pgpu-fuse-sibling-loops; FuseContractLoops.cpp).
/// Whether nothing in `op` (its regions included) writes, allocates or frees memory.
bool readsOnly(mlir::Operation *op);
/// Whether `second` reads something `first` reads: an access of the same kind on the same view at
/// equivalent coordinates (the two induction variables equal), validity and fill.
bool loopsShareRead(ForOp first, ForOp second);
/// Whether loop bounds or steps `a` and `b` are equal: one value, two reads of one parameter, or
/// equal constants.
bool sameLoopIndex(mlir::Value a, mlir::Value b);

/// Helpers of the passes that spread one point's work over several program instances and hand
/// values between them through invocation workspace (pgpu-chain-scans, pgpu-split-folds;
/// InstanceWork.cpp).
/// Whether `a` and `b` compute the same launch-uniform value (the same op over the same operands).
bool sameLaunchValue(mlir::Value a, mlir::Value b);
/// Whether `op` (or an op in its regions) may write memory.
bool writesMemory(mlir::Operation *op);
/// The views `op` (with what it nests) may write, added to `views`: stores and scatters name theirs.
/// False when it has another effect (an atomic, a scatter-reduce, a finalization's wait: another
/// program's writes may be ordered there), which orders every read (ReuseInputReads.cpp).
bool viewsWritten(mlir::Operation *op, llvm::SmallPtrSetImpl<mlir::Value> &views);
/// Appends a workspace argument to `kernel` (`pgpu.private = "workspace"`, filled with `init` when
/// given, else under its first-write obligation) and returns it.
mlir::Value addWorkspace(KernelOp kernel, mlir::Location loc, mlir::Type element,
                         llvm::ArrayRef<mlir::Attribute> extents, mlir::TypedAttr init);
/// Appends i32 invocation workspace of `extents` that the runtime fills with 0 (seed 000 §4.4) and
/// returns it: the tickets a last arrival counts, a chain's published-segment flags, a work counter.
mlir::Value addZeroedCounters(KernelOp kernel, mlir::Location loc, llvm::ArrayRef<mlir::Attribute> extents);
/// Coordinates of every element of a value of type `component` in workspace: the `lead` scalars,
/// then (for a fragment) one broadcast iota per axis.
llvm::SmallVector<mlir::Value> componentCoords(mlir::OpBuilder &b, mlir::Location loc,
                                               llvm::ArrayRef<mlir::Value> lead, mlir::Type component);
/// Moves `op` (an effect without results) under a new `pgpu.if when`.
void guardEffect(mlir::Operation *op, mlir::Value when);
/// `v`, a launch-uniform value computed inside `space`, recomputed at `b` (before the space) from
/// clones of its defining ops (kept in `map`); `v` itself when it is defined outside.
mlir::Value hoistLaunchValue(mlir::OpBuilder &b, ProgramSpaceOp space, mlir::Value v, mlir::IRMapping &map);
/// A walk [lower, upper) by `step` (launch-uniform values inside `space`) cut into parameter `param`'s
/// chunks: the bounds hoisted before the space (in this order), the constants 0 and 1, the steps
/// ceil(max(upper - lower, 0) / step), the parameter and the chunk count max(min(param, steps), 1)
/// (pgpu-split-folds' FOLD_SPLITS, pgpu-split-contractions' SPLIT_KS).
struct LaunchSplits {
  mlir::Value lower, upper, step, zero, one, steps, param, splits;
};
LaunchSplits launchSplits(mlir::OpBuilder &b, ProgramSpaceOp space, mlir::Location loc, mlir::Value lower,
                          mlir::Value upper, mlir::Value step, llvm::StringRef param, mlir::IRMapping &map);
/// Declares parameter `param` on `kernel` unless it is declared already.
void declareParam(KernelOp kernel, ParamAttr param);
/// One-line builders of the index arithmetic these passes (and pgpu-pair-blocks) write.
namespace build {
mlir::Value bin(mlir::OpBuilder &b, mlir::Location loc, kir::BinaryKind kind, mlir::Value l, mlir::Value r);
mlir::Value cmp(mlir::OpBuilder &b, mlir::Location loc, kir::CmpPredicate p, mlir::Value l, mlir::Value r);
mlir::Value index(mlir::OpBuilder &b, mlir::Location loc, int64_t v);
} // namespace build

/// Whether the module permits online rewrites of normalized summaries: numerics
/// `relaxed_normalization` with `online_reduction` (seed 002 §1).
inline bool onlineNormalizationPermitted(mlir::ModuleOp module) {
  auto options = module->getAttrOfType<kir::CompileOptionsAttr>(kir::KIRDialect::getCompileOptionsAttrName());
  return options && options.getNumerics() == kir::Numerics::RelaxedNormalization && options.getOnlineReduction();
}
} // namespace tessel::pgpu

#endif // TESSEL_DIALECT_PGPU_TRANSFORMS_PASSES_H
