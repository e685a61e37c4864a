//===- PTX.h - the native PTX provider (seed 004) ---------------*- C++ -*-===//
//
// Legalized pgpu is selected into MLIR's upstream device IR by the shared
// selector (Target/Selector/Selector.h: execution model and kernel ABI) with
// the PTX target's choices (32-lane warps, PTX's approximate math
// instructions through `nvvm` intrinsics, 48 KiB of static shared memory per
// CTA); upstream conversions (convert-gpu-to-nvvm) and LLVM's NVPTX backend
// turn it into PTX inside the process: no nvcc, clang, ptxas or libdevice is
// used. A program the selector cannot express is rejected at the op with the
// exact limitation; no artifact is produced then (seed 004).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TARGET_PTX_PTX_H
#define TESSEL_TARGET_PTX_PTX_H

#include "tessel/Target/Selector/Selector.h"

#include <string>

namespace tessel {
class Provider;
}

namespace tessel::ptx {

using selector::kIndexBits;
using selector::kThreadsParam;
using selector::kVectorParam;
/// The chip the PTX is generated for (the H200; ptxas validates sm_90a).
inline constexpr llvm::StringLiteral kChip = "sm_90";

/// The PTX target of the shared selector (PTXTarget.cpp).
const selector::DeviceTarget &target();

/// PTX legalization (selector::legalize on the PTX target): declares THREADS ([32 ... 1024]) and
/// VECTOR, binds every parameter and checks that each op has a selection. Returns the bound values
/// per kernel name; errors are emitted at the op.
mlir::FailureOr<llvm::StringMap<llvm::StringMap<int64_t>>>
legalize(mlir::ModuleOp module, const llvm::StringMap<int64_t> &overrides);

/// Registers `-pgpu-ptx-legalize` (legalize with the declared defaults) for tessel-opt.
void registerPTXPasses();

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

/// This provider behind Provider.h (registered in Target/Registry.cpp).
const Provider &provider();

} // namespace tessel::ptx

#endif // TESSEL_TARGET_PTX_PTX_H
