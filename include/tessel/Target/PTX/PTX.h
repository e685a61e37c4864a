//===- PTX.h - the native PTX provider (seed 004) ---------------*- C++ -*-===//
//
// Legalized pgpu is selected into MLIR's upstream device IR (`gpu.module` /
// `gpu.func` with `gpu.block_id`/`gpu.thread_id`, `arith`, `scf`, `llvm`
// pointers and intrinsics, `nvvm` through `gpu.shuffle`/`gpu.barrier`), which
// upstream conversions (convert-gpu-to-nvvm) and LLVM's NVPTX backend turn
// into PTX inside the process: no nvcc, clang, ptxas or libdevice is used.
// A program the selector cannot express is rejected at the op with the exact
// limitation; no artifact is produced then (seed 004).
//
// Execution model: one program instance is one CTA of THREADS threads on a
// one-dimensional grid (the product of the program-space extents, decoded
// row-major from the block index). Scalars are uniform: every thread computes
// them. A fragment of B elements (flattened row-major) is distributed in
// groups of V consecutive elements: slot g V + j of thread t holds element
// g T V + t V + j (T = THREADS), so a thread's group can be one vector access.
// V is the provider parameter VECTOR, halved while the fragment has fewer than
// T V elements, down to 1 (the cyclic layout: thread t holds t, t + T, ...);
// a function of B only, so fragments that meet share a layout. Reductions
// combine a thread's elements, then the warp by butterfly shuffles, then the
// warps through shared memory.
//
// Index arithmetic is 32-bit (kIndexBits): views span fewer than 2^31 elements.
//
// Kernel ABI (what the runtime passes, in order, per pgpu.kernel argument):
//   view      -> pointer to element 0 (global), then one i64 extent per axis,
//                then one i64 element stride per axis;
//   scalar    -> its value (index as i64, unsigned as its signless width).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TARGET_PTX_PTX_H
#define TESSEL_TARGET_PTX_PTX_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "tessel/Dialect/PGPU/IR/PGPU.h"
#include "llvm/ADT/StringMap.h"

#include <string>

namespace tessel::ptx {

/// Threads per CTA, declared by `legalize` as a provider parameter.
inline constexpr llvm::StringLiteral kThreadsParam = "THREADS";
/// Consecutive elements per thread in wide fragments (the vector layout), declared by `legalize`.
inline constexpr llvm::StringLiteral kVectorParam = "VECTOR";
/// The width of `index` in the kernel: coordinates, extents, strides and element offsets are 32-bit
/// (as in the Triton provider), so every view spans fewer than 2^31 elements and index scalars fit
/// in i32; the wrapper and the runtime check both before a launch. The ABI words stay 64-bit.
inline constexpr unsigned kIndexBits = 32;
/// The chip the PTX is generated for (the H200; ptxas validates sm_90a).
inline constexpr llvm::StringLiteral kChip = "sm_90";

/// PTX legalization: declares THREADS on each kernel that lacks it, binds
/// every parameter (declared defaults, then `overrides`, which must be
/// declared and in their domain), and checks that each op has a selection.
/// Returns the bound values per kernel name; errors are emitted at the op.
mlir::FailureOr<llvm::StringMap<llvm::StringMap<int64_t>>>
legalize(mlir::ModuleOp module, const llvm::StringMap<int64_t> &overrides);

/// Registers `-pgpu-ptx-legalize` (legalize with the declared defaults) for tessel-opt.
void registerPTXPasses();

/// Why the selector cannot express `op` (nothing when it can). `legalize`
/// reports this at the op; the selector re-checks while it builds.
std::optional<std::string> selectionIssue(mlir::Operation *op);

/// The PTX atomic that realizes a scatter_reduce's combine (an add of its two arguments, or an
/// integer min/max/and/or/xor), as an `llvm.atomicrmw` operation name; nothing when none does.
std::optional<llvm::StringRef> scatterAtomic(pgpu::ScatterReduceOp op);

/// The selector: every legalized kernel of `module` becomes one `gpu.func`
/// (kernel) in a `gpu.module @tessel_ptx` of a new module.
mlir::FailureOr<mlir::OwningOpRef<mlir::ModuleOp>>
selectDeviceIR(mlir::ModuleOp module, const llvm::StringMap<llvm::StringMap<int64_t>> &params);

/// Lowers the device IR in place to the LLVM/NVVM dialects with the upstream
/// conversions (scf-to-cf, convert-gpu-to-nvvm, reconcile-unrealized-casts).
mlir::LogicalResult lowerDeviceIRToNVVM(mlir::ModuleOp deviceModule);

/// Translates the lowered `gpu.module` to LLVM IR, optimizes it (O3) and
/// emits PTX for `kChip` with LLVM's NVPTX backend, in process. Fails (with
/// a diagnostic) when the module would need an external symbol (libdevice).
/// With `llvmIR`, returns the optimized LLVM IR instead of PTX.
mlir::FailureOr<std::string> emitPTX(mlir::ModuleOp deviceModule, bool llvmIR = false);

/// The Python module of `--emit=wrapper` (PTXWrapper.cpp): the PTX text and, per legalized
/// kernel, a wrapper that checks the ABI on torch tensors, evaluates the grid and launches through
/// tessel's CUDA runtime (tessel._ptx, the C ABI of Runtime/CudaLaunch.h).
mlir::FailureOr<std::string> emitWrapper(mlir::ModuleOp module,
                                         const llvm::StringMap<llvm::StringMap<int64_t>> &params,
                                         llvm::StringRef ptx);

/// The stages `compile` stops at.
enum class Stage { DeviceIR, LLVMIR, PTX, Wrapper };

/// The whole provider on a pgpu module (after the shared pipeline): legalize,
/// select, lower, emit; returns the text of `stage`. Nothing is returned for
/// a rejected program.
mlir::FailureOr<std::string> compile(mlir::ModuleOp module, const llvm::StringMap<int64_t> &overrides,
                                     Stage stage = Stage::PTX);

} // namespace tessel::ptx

#endif // TESSEL_TARGET_PTX_PTX_H
