//===- LLVMBackend.h - device IR to a GPU artifact through LLVM -*- C++ -*-===//
//
// The last stage every GPU provider of the shared selector runs (seed 004:
// the artifact is made in process, no external tool): the selected device IR
// is lowered by upstream conversions (scf-to-cf, the target's gpu-to-X
// conversion, reconcile-unrealized-casts), its one `gpu.module` translated to
// LLVM IR, optimized at O3 and compiled by the target's LLVM backend through
// a TargetMachine into assembly text or an object. No bitcode library is
// linked: a module that would still call an external function is rejected.
// An `LLVMBackend` names what differs per target (PTX.h, AMDGPU.h).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TARGET_SELECTOR_LLVMBACKEND_H
#define TESSEL_TARGET_SELECTOR_LLVMBACKEND_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <memory>
#include <string>

namespace llvm {
class TargetMachine;
} // namespace llvm

namespace tessel::selector {

/// What differs between the LLVM backends that finish a GPU provider.
struct LLVMBackend {
  /// The provider's name in diagnostics ("PTX", "AMDGPU").
  llvm::StringRef provider;
  /// LLVM's name of the backend in diagnostics ("NVPTX", "AMDGPU").
  llvm::StringRef backend;
  /// The target triple and processor the code is generated for.
  llvm::StringRef triple, chip;
  /// The name of the translated LLVM module.
  llvm::StringRef moduleName;
  /// Registers the backend with LLVM's TargetRegistry (idempotent; called before every lookup).
  void (*initialize)();
  /// Registers the LLVM IR translation of the target's device dialect (nvvm, rocdl).
  void (*registerTranslation)(mlir::DialectRegistry &);
  /// The upstream conversion of the `gpu.module` to the LLVM and target dialects, with its options.
  std::unique_ptr<mlir::Pass> (*gpuToLLVM)();
};

/// What `emitWithLLVM` returns.
enum class LLVMOutput { IR, Assembly, Object };

/// Lowers the device IR in place: scf-to-cf, `backend.gpuToLLVM` on the `gpu.module`,
/// reconcile-unrealized-casts.
mlir::LogicalResult lowerDeviceIR(mlir::ModuleOp deviceModule, const LLVMBackend &backend);

/// The backend's TargetMachine for its chip at the aggressive optimization level; null (with `error`)
/// when LLVM was built without the backend.
std::unique_ptr<llvm::TargetMachine> targetMachine(const LLVMBackend &backend, std::string &error);

/// Translates the lowered module's one `gpu.module` to LLVM IR, optimizes it (O3) and returns, per
/// `output`, the optimized LLVM IR, the backend's assembly or its object file. Fails at the module
/// (with a diagnostic naming the provider) when it would need an external symbol.
mlir::FailureOr<std::string> emitWithLLVM(mlir::ModuleOp deviceModule, const LLVMBackend &backend,
                                          LLVMOutput output);

} // namespace tessel::selector

#endif // TESSEL_TARGET_SELECTOR_LLVMBACKEND_H
