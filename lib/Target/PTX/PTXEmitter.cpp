//===- PTXEmitter.cpp - device IR to PTX in process ------------------------===//
//
// The PTX provider's pipeline (seed 004): legalize, select, then the shared
// LLVM stage (Selector/LLVMBackend.h) with LLVM's NVPTX backend: upstream
// convert-gpu-to-nvvm with 32-bit indices, O3, PTX for kChip in process. No
// external tool runs and no bitcode library (libdevice) is linked.
//
//===----------------------------------------------------------------------===//

#include "tessel/Target/PTX/PTX.h"

#include "tessel/Target/Selector/LLVMBackend.h"

#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"

#include <mutex>

using namespace mlir;
using namespace tessel;

extern "C" {
void LLVMInitializeNVPTXTargetInfo();
void LLVMInitializeNVPTXTarget();
void LLVMInitializeNVPTXTargetMC();
void LLVMInitializeNVPTXAsmPrinter();
}

namespace {
/// LLVM's NVPTX backend for kChip, behind the shared LLVM stage (LLVMBackend.h).
const selector::LLVMBackend &nvptx() {
  static const selector::LLVMBackend backend{
      "PTX",
      "NVPTX",
      "nvptx64-nvidia-cuda",
      ptx::kChip,
      "tessel_ptx",
      [] {
        static std::once_flag once;
        std::call_once(once, [] {
          LLVMInitializeNVPTXTargetInfo();
          LLVMInitializeNVPTXTarget();
          LLVMInitializeNVPTXTargetMC();
          LLVMInitializeNVPTXAsmPrinter();
        });
      },
      [](DialectRegistry &registry) { registerNVVMDialectTranslation(registry); },
      []() -> std::unique_ptr<Pass> {
        // Index arithmetic in 32 bits (PTX.h, kIndexBits): half the registers of 64-bit coordinates.
        ConvertGpuOpsToNVVMOpsOptions options;
        options.indexBitwidth = ptx::kIndexBits;
        return createConvertGpuOpsToNVVMOps(options);
      },
  };
  return backend;
}
} // namespace

FailureOr<std::string> ptx::compile(ModuleOp module, const llvm::StringMap<int64_t> &overrides, Stage stage) {
  FailureOr<llvm::StringMap<llvm::StringMap<int64_t>>> params = legalize(module, overrides);
  if (failed(params))
    return failure();
  FailureOr<OwningOpRef<ModuleOp>> device = selector::selectDeviceIR(module, target(), *params, "tessel_ptx");
  // Fold the selector's constants and per-slot guards (scf.if on true) before printing or lowering.
  if (failed(device) || failed(selector::cleanupDeviceIR(**device)))
    return failure();
  if (stage == Stage::DeviceIR) {
    std::string text;
    llvm::raw_string_ostream os(text);
    (*device)->print(os);
    os << "\n";
    return text;
  }
  if (failed(verify(**device)) || failed(selector::lowerDeviceIR(**device, nvptx())))
    return failure();
  FailureOr<std::string> text = selector::emitWithLLVM(
      **device, nvptx(), stage == Stage::LLVMIR ? selector::LLVMOutput::IR : selector::LLVMOutput::Assembly);
  if (failed(text) || stage != Stage::Wrapper)
    return text;
  return emitWrapper(module, *params, *text);
}
