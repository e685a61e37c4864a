//===- AMDGPU.h - the AMDGPU provider (seed 004) -----------------*- C++ -*-===//
//
// The same legalized pgpu and the same selector as the PTX provider
// (Target/Selector/Selector.h: execution model and kernel ABI) with the
// AMDGPU target's choices: 64-lane wavefronts, THREADS in [64 ... 1024],
// 64 KiB of LDS per workgroup, LLVM's math intrinsics that the AMDGPU backend
// selects natively (v_exp_f32, v_log_f32, v_rsq_f32, v_sin/cos_f32), and the
// workgroup count read from the HSA dispatch packet. Upstream
// convert-gpu-to-rocdl and LLVM's AMDGPU backend (a TargetMachine, in
// process) turn it into AMDGCN for gfx942: the ISA as text, or an ELF
// relocatable code object carrying the amdhsa kernel descriptors and the
// metadata note (ld.lld -shared links it into the loadable HSA code object).
// No device library (ocml, ockl) is linked: a module that would still call an
// external function is rejected, as is every program the selector cannot
// express, at the op (seed 004). Nothing is launched: there is no HIP runtime
// adapter yet.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TARGET_AMDGPU_AMDGPU_H
#define TESSEL_TARGET_AMDGPU_AMDGPU_H

#include "tessel/Target/Selector/Selector.h"

#include <string>

namespace tessel {
class Provider;
}

namespace tessel::amdgpu {

/// The processor the code object is generated for (MI300X).
inline constexpr llvm::StringLiteral kChip = "gfx942";
/// The target triple (an HSA code object).
inline constexpr llvm::StringLiteral kTriple = "amdgcn-amd-amdhsa";

/// The AMDGPU target of the shared selector (AMDGPUTarget.cpp).
const selector::DeviceTarget &target();

/// AMDGPU legalization (selector::legalize on the AMDGPU target). Errors are emitted at the op.
mlir::FailureOr<llvm::StringMap<llvm::StringMap<int64_t>>>
legalize(mlir::ModuleOp module, const llvm::StringMap<int64_t> &overrides);

/// Registers `-pgpu-amdgpu-legalize` (legalize with the declared defaults) for tessel-opt.
void registerAMDGPUPasses();

/// The stages `compile` stops at.
enum class Stage { DeviceIR, LLVMIR, ISA, CodeObject };

/// The whole provider on a pgpu module (after the shared pipeline): legalize, select, lower,
/// emit; returns the text (or the code object's bytes) of `stage`. Nothing is returned for a
/// rejected program.
mlir::FailureOr<std::string> compile(mlir::ModuleOp module, const llvm::StringMap<int64_t> &overrides,
                                     Stage stage = Stage::ISA);

/// This provider behind Provider.h (registered in Target/Registry.cpp).
const Provider &provider();

} // namespace tessel::amdgpu

#endif // TESSEL_TARGET_AMDGPU_AMDGPU_H
