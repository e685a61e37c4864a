//===- AMDGPUEmitter.cpp - device IR to AMDGCN in process -----------------===//
//
// The artifact writer of the AMDGPU provider (seed 004): the selector's device
// IR is lowered by upstream conversions (scf-to-cf, convert-gpu-to-rocdl,
// reconcile-unrealized-casts), translated to LLVM IR, optimized at O3 and
// compiled for gfx942 by LLVM's AMDGPU backend through a TargetMachine: the
// ISA as assembly text, or the ELF relocatable code object with the amdhsa
// kernel descriptors and metadata note. No external tool runs and no bitcode
// library is linked (MLIR's gpu-module-to-binary would link the ROCm device
// libraries and call ld.lld); a module that still needs an external symbol
// is rejected.
//
//===----------------------------------------------------------------------===//

#include "tessel/Target/AMDGPU/AMDGPU.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/GPUToROCDL/GPUToROCDLPass.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/ROCDL/ROCDLToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"

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
/// The AMDGPU target machine for kChip (the backend is registered once per process).
std::unique_ptr<llvm::TargetMachine> amdgpuTargetMachine(std::string &error) {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTarget();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUAsmPrinter();
  });
  llvm::Triple triple(tessel::amdgpu::kTriple);
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return nullptr;
  return std::unique_ptr<llvm::TargetMachine>(
      target->createTargetMachine(triple, tessel::amdgpu::kChip, "", llvm::TargetOptions(), std::nullopt,
                                  std::nullopt, llvm::CodeGenOptLevel::Aggressive));
}
} // namespace

LogicalResult tessel::amdgpu::lowerDeviceIRToROCDL(ModuleOp deviceModule) {
  MLIRContext *ctx = deviceModule.getContext();
  DialectRegistry registry;
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  ctx->appendDialectRegistry(registry);
  PassManager pm(ctx);
  pm.addPass(createSCFToControlFlowPass());
  // Index arithmetic in 32 bits (Selector.h, kIndexBits), as on the PTX target.
  ConvertGpuOpsToROCDLOpsOptions rocdlOptions;
  rocdlOptions.chipset = kChip.str();
  rocdlOptions.indexBitwidth = selector::kIndexBits;
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertGpuOpsToROCDLOps(rocdlOptions));
  pm.addPass(createReconcileUnrealizedCastsPass());
  return pm.run(deviceModule);
}

FailureOr<std::string> tessel::amdgpu::emitAMDGCN(ModuleOp deviceModule, Stage stage) {
  MLIRContext *ctx = deviceModule.getContext();
  DialectRegistry registry;
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerROCDLDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  ctx->appendDialectRegistry(registry);
  auto modules = deviceModule.getOps<gpu::GPUModuleOp>();
  if (!llvm::hasSingleElement(modules))
    return deviceModule.emitError() << "the AMDGPU emitter expects one gpu.module";
  gpu::GPUModuleOp gpuModule = *modules.begin();

  std::string error;
  std::unique_ptr<llvm::TargetMachine> machine = amdgpuTargetMachine(error);
  if (!machine)
    return deviceModule.emitError() << "LLVM's AMDGPU backend is not available: " << error;
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule = translateModuleToLLVMIR(gpuModule, llvmContext, "tessel_amdgpu");
  if (!llvmModule)
    return gpuModule.emitError() << "translation of the device IR to LLVM IR failed";
  llvmModule->setTargetTriple(llvm::Triple(kTriple));
  llvmModule->setDataLayout(machine->createDataLayout());
  if (llvm::Error err = makeOptimizingTransformer(3, 0, machine.get())(llvmModule.get()))
    return gpuModule.emitError() << "LLVM optimization failed: " << llvm::toString(std::move(err));
  // Nothing may stay unresolved: no device library is linked (seed 004).
  for (llvm::Function &f : llvmModule->functions())
    if (f.isDeclaration() && !f.isIntrinsic())
      return gpuModule.emitError() << "the AMDGPU module would call the external function '" << f.getName()
                                   << "', which the in-process provider does not link";
  std::string text;
  llvm::raw_string_ostream os(text);
  if (stage == Stage::LLVMIR) {
    llvmModule->print(os, nullptr);
    return text;
  }
  llvm::SmallString<0> buffer;
  llvm::raw_svector_ostream bufferStream(buffer);
  llvm::legacy::PassManager codegen;
  auto fileType = stage == Stage::ISA ? llvm::CodeGenFileType::AssemblyFile : llvm::CodeGenFileType::ObjectFile;
  if (machine->addPassesToEmitFile(codegen, bufferStream, nullptr, fileType))
    return gpuModule.emitError() << "LLVM's AMDGPU backend cannot emit "
                                 << (stage == Stage::ISA ? "assembly" : "a code object");
  codegen.run(*llvmModule);
  return std::string(buffer.str());
}

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
  if (failed(verify(**device)) || failed(lowerDeviceIRToROCDL(**device)))
    return failure();
  return emitAMDGCN(**device, stage);
}
