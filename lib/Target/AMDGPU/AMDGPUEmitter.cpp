//===- AMDGPUEmitter.cpp - device IR to AMDGCN in process -----------------===//
//
// The AMDGPU provider's pipeline (seed 004): legalize, select, then the shared
// LLVM stage (Selector/LLVMBackend.h) with LLVM's AMDGPU backend: upstream
// convert-gpu-to-rocdl for gfx942 with 32-bit indices, O3, and the ISA as
// assembly text or the ELF relocatable code object with the amdhsa kernel
// descriptors and metadata note. No external tool runs and no device library
// (ocml, ockl) is linked.
//
//===----------------------------------------------------------------------===//

#include "tessel/Target/AMDGPU/AMDGPU.h"

#include "tessel/Target/Selector/LLVMBackend.h"

#include "mlir/Conversion/GPUToROCDL/GPUToROCDLPass.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Target/LLVMIR/Dialect/ROCDL/ROCDLToLLVMIRTranslation.h"

#include <mutex>

using namespace mlir;
using namespace tessel;

extern "C" {
void LLVMInitializeAMDGPUTargetInfo();
void LLVMInitializeAMDGPUTarget();
void LLVMInitializeAMDGPUTargetMC();
void LLVMInitializeAMDGPUAsmPrinter();
}

namespace {
/// LLVM's AMDGPU backend for kChip, behind the shared LLVM stage (LLVMBackend.h).
const selector::LLVMBackend &amdgcn() {
  static const selector::LLVMBackend backend{
      "AMDGPU",
      "AMDGPU",
      tessel::amdgpu::kTriple,
      tessel::amdgpu::kChip,
      "tessel_amdgpu",
      [] {
        static std::once_flag once;
        std::call_once(once, [] {
          LLVMInitializeAMDGPUTargetInfo();
          LLVMInitializeAMDGPUTarget();
          LLVMInitializeAMDGPUTargetMC();
          LLVMInitializeAMDGPUAsmPrinter();
        });
      },
      [](DialectRegistry &registry) { registerROCDLDialectTranslation(registry); },
      []() -> std::unique_ptr<Pass> {
        // Index arithmetic in 32 bits (Selector.h, kIndexBits), as on the PTX target.
        ConvertGpuOpsToROCDLOpsOptions options;
        options.chipset = tessel::amdgpu::kChip.str();
        options.indexBitwidth = selector::kIndexBits;
        return createConvertGpuOpsToROCDLOps(options);
      },
  };
  return backend;
}
} // namespace

FailureOr<std::string> tessel::amdgpu::compile(ModuleOp module, const llvm::StringMap<int64_t> &overrides,
                                               Stage stage) {
  FailureOr<llvm::StringMap<llvm::StringMap<int64_t>>> params = legalize(module, overrides);
  if (failed(params))
    return failure();
  FailureOr<OwningOpRef<ModuleOp>> device = selector::selectDeviceIR(module, target(), *params, "tessel_amdgpu");
  if (failed(device) || failed(selector::cleanupDeviceIR(**device)))
    return failure();
  if (stage == Stage::DeviceIR) {
    std::string text;
    llvm::raw_string_ostream os(text);
    (*device)->print(os);
    os << "\n";
    return text;
  }
  if (failed(verify(**device)) || failed(selector::lowerDeviceIR(**device, amdgcn())))
    return failure();
  return selector::emitWithLLVM(**device, amdgcn(),
                                stage == Stage::LLVMIR ? selector::LLVMOutput::IR
                                : stage == Stage::ISA  ? selector::LLVMOutput::Assembly
                                                       : selector::LLVMOutput::Object);
}
