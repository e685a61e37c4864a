//===- PGPU.h - the pgpu dialect --------------------------------*- C++ -*-===//
//
// The shared executable GPU program IR (seed 000; ARCHITECTURE.md §2.2).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DIALECT_PGPU_IR_PGPU_H
#define TESSEL_DIALECT_PGPU_IR_PGPU_H

#include "tessel/Dialect/KIR/IR/KIR.h"
#include "mlir/IR/IRMapping.h"

#include <optional>

#include "tessel/Dialect/PGPU/IR/PGPUEnums.h.inc"
#include "tessel/Dialect/PGPU/IR/PGPUDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tessel/Dialect/PGPU/IR/PGPUAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "tessel/Dialect/PGPU/IR/PGPUTypes.h.inc"

namespace tessel::pgpu {
/// Marks ops that may appear in a LaunchExpr (seed 000 §3.1).
template <typename ConcreteType>
class LaunchExprOp : public mlir::OpTrait::TraitBase<ConcreteType, LaunchExprOp> {};

/// The i1 type shaped like `type` (a scalar or a fragment).
mlir::Type getI1Like(mlir::Type type);
/// The element type of a fragment, or `type` itself.
mlir::Type elementTypeOf(mlir::Type type);

/// The memory read that `v` is computed from through pointwise def-use, or
/// null (block arguments and structured-op results end the search). Accesses
/// whose coordinates have one are index relations: gather / scatter.
mlir::Operation *readFeeding(mlir::Value v);
/// The memory read that `v` is computed from lane by lane: like `readFeeding`, but a read of one
/// scalar (one value for every lane of a fragment computed from it) neither counts nor is looked
/// through. A fragment coordinate with none is an affine box at a runtime position (a ragged
/// group's rows `offsets[e] + i`, a tile index decomposed by a data-dependent tile count: seed 000
/// §6, coordinates depend on runtime indices and source subregions): a load, not a gather.
mlir::Operation *laneReadFeeding(mlir::Value v);
/// True when `value` is a LaunchExpr: computed only from constants, declared
/// parameters, ABI scalars and view shape/stride metadata through effect-free
/// integer/bool arithmetic (seed 000 §3.1). On failure `offender` is the first
/// op (or null for a non-ABI block argument) outside the language.
bool isLaunchExpr(mlir::Value value, mlir::Operation **offender = nullptr);

/// Clones `block`'s operations at `b`'s insertion point with its arguments
/// bound to `args` (in order) and returns the values its terminator yields
/// there. Inlines element, combine, emit and loop-body regions when a
/// structured op is expanded. `map` also remaps values the block uses from
/// outside (when the code around it is being cloned too) and keeps the clones.
llvm::SmallVector<mlir::Value> inlineBlock(mlir::OpBuilder &b, mlir::Block &block, mlir::ValueRange args,
                                           mlir::IRMapping &map);
llvm::SmallVector<mlir::Value> inlineBlock(mlir::OpBuilder &b, mlir::Block &block, mlir::ValueRange args);
} // namespace tessel::pgpu

#define GET_OP_CLASSES
#include "tessel/Dialect/PGPU/IR/PGPUOps.h.inc"

namespace tessel::pgpu {
/// Realizes a region fold as its ordered loop (seed 002 §3.4): for b = lower, lower + step, ...
/// the carries (from the identities) are combined with summarize on [b, min(b + step, upper)).
/// Returns the loop; `op` is replaced and erased.
ForOp expandRegionFold(RegionFoldOp op);
/// Realizes a region scan as its ordered loop over segments (seed 002 §3.4), the state carried
/// (from the inits): each segment emits from the state before it, then its transition (summarize)
/// is applied. Summarize is inlined before emit when emit writes nothing summarize reads.
/// Returns the loop; `op` is replaced and erased.
ForOp expandRegionScan(RegionScanOp op);
/// Expands a range_reduce left unblocked into its legal ordered loop (any order is legal under the
/// reduce contract, seed 000 §8): for i = lo to hi carrying the accumulator from the identities.
/// Providers without a reduction over a runtime range of scalars (Triton, cuTile) call it in
/// legalization, so their serializers never create loops (seed 002 §3.7).
ForOp expandRangeReduce(RangeReduceOp op);
/// Expands an unblocked range_scan into a loop over its members in scan order (forward or reverse),
/// carrying the prefix and emitting the inclusive or exclusive prefix at each member.
ForOp expandRangeScan(RangeScanOp op);

/// The op binding workspace extent symbol `name` to a LaunchExpr in `kernel`'s body, or null.
WorkspaceExtentOp workspaceExtent(KernelOp kernel, llvm::StringRef name);

/// The combine of a one-component reduction whose body is exactly `yield binary(a, b)` of its two
/// arguments (either order); null otherwise. Passes read the combine's kind from it.
BinaryOp singleBinaryCombine(mlir::Block &combine);
/// Whether `v` is the constant zero (integer or float), directly or splat.
bool isZeroConstant(mlir::Value v);
/// The constant i1 `v` holds, directly or through splats and broadcasts.
std::optional<bool> constantBool(mlir::Value v);
/// The value of a launch-time index computed from constants through ceil_div and index add, sub, mul,
/// div (non-negative operands), max and min (construction spells a constant domain extent as
/// max(ceil_div(hi - lo, step), 0)), or none.
std::optional<int64_t> constantIndex(mlir::Value v);

/// Narrows the declared parameters named in `names` to the candidates `fits` keeps, with the default
/// `defaultOf(param, kept)`; the `passes` link stays where `keepPasses`. A parameter none of whose
/// candidates fit, or all of them, is left as declared.
void narrowParams(KernelOp kernel, llvm::ArrayRef<llvm::StringRef> names, llvm::function_ref<bool(int64_t)> fits,
                  llvm::function_ref<int64_t(ParamAttr, llvm::ArrayRef<int64_t>)> defaultOf, bool keepPasses);

/// Narrows the declared parameters that size a `pgpu.histogram` fragment's bins to the candidates
/// `fits` keeps (a provider's limit on the bin count it counts privately); the default moves to the
/// largest kept one where it is past them, and the `passes` link stays where `keepPasses`. A parameter
/// none of whose candidates fit, or all of them, is left as declared.
void narrowHistogramBins(KernelOp kernel, llvm::function_ref<bool(int64_t)> fits, bool keepPasses);
} // namespace tessel::pgpu

#endif // TESSEL_DIALECT_PGPU_IR_PGPU_H
