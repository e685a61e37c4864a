//===- Selector.h - the instruction selector shared by GPU targets -*- C++ -*-===//
//
// Legalized pgpu is selected into MLIR's upstream device IR (`gpu.module` /
// `gpu.func` with `gpu.block_id`/`gpu.thread_id`, `gpu.shuffle`,
// `gpu.barrier`, `arith`, `scf`, `llvm` pointers and intrinsics) by one
// selector for every GPU target (seed 004 §"Target independence": selection
// semantics, legality and diagnostics are shared). A `DeviceTarget` supplies
// the handful of choices that differ: the approximate f32 math instructions,
// the warp (wavefront) width, the thread-count domain, the shared-memory
// budget, and how a program counts the grid. Upstream conversions
// (convert-gpu-to-nvvm, convert-gpu-to-rocdl) and LLVM's backends turn the
// device IR into PTX or AMDGCN in process (PTX.h, AMDGPU.h). A program the
// selector cannot express is rejected at the op with the exact limitation; no
// artifact is produced then (seed 004).
//
// Execution model: one program instance is one workgroup (CTA) of THREADS
// threads on a one-dimensional grid (the product of the program-space
// extents, decoded row-major from the block index). Scalars are uniform:
// every thread computes them. A fragment of B elements (flattened row-major)
// is distributed in groups of V consecutive elements: slot g V + j of thread
// t holds element g T V + t V + j (T = THREADS), so a thread's group can be
// one vector access. V is the provider parameter VECTOR, halved while the
// fragment has fewer than T V elements, down to 1 (the cyclic layout: thread
// t holds t, t + T, ...); a function of B only, so fragments that meet share
// a layout. Reductions combine a thread's elements, then the warp by
// butterfly shuffles, then the warps through shared memory.
//
// Index arithmetic is 32-bit (kIndexBits): views span fewer than 2^31 elements.
//
// Kernel ABI (what the runtime passes, in order, per pgpu.kernel argument):
//   view      -> pointer to element 0 (global), then one i64 extent per axis,
//                then one i64 element stride per axis;
//   workspace -> pointer to a row-major buffer the runtime allocates;
//   scalar    -> its value (index as i64, unsigned as its signless width).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TARGET_SELECTOR_SELECTOR_H
#define TESSEL_TARGET_SELECTOR_SELECTOR_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "tessel/Dialect/PGPU/IR/PGPU.h"
#include "llvm/ADT/StringMap.h"

#include <string>

namespace tessel::selector {

/// Threads per workgroup, declared by `legalize` as a provider parameter.
inline constexpr llvm::StringLiteral kThreadsParam = "THREADS";
/// Consecutive elements per thread in wide fragments (the vector layout), declared by `legalize`.
inline constexpr llvm::StringLiteral kVectorParam = "VECTOR";
/// The width of `index` in the kernel: coordinates, extents, strides and element offsets are 32-bit
/// (as in the Triton provider), so every view spans fewer than 2^31 elements and index scalars fit
/// in i32; the wrapper and the runtime check both before a launch. The ABI words stay 64-bit.
inline constexpr unsigned kIndexBits = 32;

/// The suffix of a kernel's dynamic shared array, followed by its bytes (`<kernel>_counts65536_dynamic262144`):
/// the launcher opts the function into that much dynamic shared memory and launches with it.
inline constexpr llvm::StringLiteral kDynamicSharedSuffix = "_dynamic";

/// What a GPU target decides for the shared selector (seed 004 §"Target independence": instruction
/// choices and processor limits belong to the target).
class DeviceTarget {
public:
  virtual ~DeviceTarget() = default;
  /// The provider's name in diagnostics ("the PTX selector ...").
  virtual llvm::StringRef name() const = 0;
  /// The provider tag of the parameters it declares (THREADS, VECTOR).
  virtual llvm::StringRef provider() const = 0;
  /// The device library the in-process provider does not link, named in rejections.
  virtual llvm::StringRef library() const = 0;
  /// What the target calls a workgroup in diagnostics ("CTA").
  virtual llvm::StringRef groupWord() const = 0;
  /// Lanes that exchange values with `gpu.shuffle` (a warp or wavefront).
  virtual int64_t warpSize() const = 0;
  /// The THREADS domain (multiples of the warp size).
  virtual llvm::ArrayRef<int64_t> threadCandidates() const = 0;
  /// Static shared memory a workgroup gets, in bytes; the staging area may use all but 8 KiB.
  virtual int64_t sharedMemoryBytes() const = 0;
  /// Shared memory a workgroup may get beyond the static part, sized at launch (dynamic shared
  /// memory the launcher opts into), in bytes: static and dynamic together. None by default.
  virtual int64_t dynamicSharedMemoryBytes() const { return 0; }
  /// Launch guards (pgpu::launchGuards) compiled as variants: each kernel becomes one device function
  /// per assignment of its first `launchGuards()` guards (pgpu::guardVariant names them), which the
  /// target's launcher chooses among. None by default (a target without a launcher).
  virtual unsigned launchGuards() const { return 0; }

  /// The f32 approximate instruction for exp2, log2, rsqrt ({approximate}), sin, cos and tanh
  /// ({approximate} both), on an f32 value.
  virtual mlir::Value approximate(mlir::OpBuilder &b, mlir::Location loc, kir::UnaryKind kind,
                                  mlir::Value x) const = 0;
  /// The number of workgroups of the launch (an index); `gpu.grid_dim x` by default.
  virtual mlir::Value programCount(mlir::OpBuilder &b, mlir::Location loc) const;
  /// Orders this thread's earlier global writes before a device-scope release by another thread of
  /// the workgroup (after a workgroup barrier), and the matching acquire; nothing by default.
  virtual void releaseToDevice(mlir::OpBuilder &, mlir::Location) const {}
  virtual void acquireFromDevice(mlir::OpBuilder &, mlir::Location) const {}
  /// Beside the ticket's increment (thread 0, after the workgroup barrier): a release fence before
  /// it (`acquire` false) and an acquire fence after it, where the backend does not honor the
  /// atomicrmw's own acq_rel order; nothing by default.
  virtual void fenceTicket(mlir::OpBuilder &, mlir::Location, bool acquire) const {}
};

/// Legalization: declares THREADS and VECTOR on each kernel that lacks them, binds every parameter
/// (declared defaults, then `overrides`, which must be declared and in their domain), and checks
/// that each op has a selection on `target`. Returns the bound values per kernel name; errors are
/// emitted at the op.
mlir::FailureOr<llvm::StringMap<llvm::StringMap<int64_t>>>
legalize(mlir::ModuleOp module, const DeviceTarget &target, const llvm::StringMap<int64_t> &overrides);

/// Why the selector cannot express `op` on `target` (nothing when it can). `legalize` reports this
/// at the op; the selector re-checks while it builds.
std::optional<std::string> selectionIssue(mlir::Operation *op, const DeviceTarget &target);

/// The atomic that realizes a scatter_reduce's combine (an add of its two arguments, or an integer
/// min/max/and/or/xor), as an `llvm.atomicrmw` operation name; nothing when none does.
std::optional<llvm::StringRef> scatterAtomic(pgpu::ScatterReduceOp op);

/// The selector: every legalized kernel of `module` becomes one `gpu.func` (kernel) in a
/// `gpu.module @<moduleName>` of a new module.
mlir::FailureOr<mlir::OwningOpRef<mlir::ModuleOp>>
selectDeviceIR(mlir::ModuleOp module, const DeviceTarget &target,
               const llvm::StringMap<llvm::StringMap<int64_t>> &params, llvm::StringRef moduleName);

/// Folds the selector's constants and per-slot guards (scf.if on true) in place.
mlir::LogicalResult cleanupDeviceIR(mlir::ModuleOp deviceModule);

} // namespace tessel::selector

#endif // TESSEL_TARGET_SELECTOR_SELECTOR_H
