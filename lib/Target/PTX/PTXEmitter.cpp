//===- PTXEmitter.cpp - device IR to PTX in process ------------------------===//
//
// The artifact writer of the PTX provider (seed 004): the selector's device
// IR is lowered by upstream conversions (scf-to-cf, convert-gpu-to-nvvm,
// reconcile-unrealized-casts), translated to LLVM IR, optimized at O3 and
// compiled by LLVM's NVPTX backend through a TargetMachine. No external tool
// runs and no bitcode library is linked: MLIR's gpu-module-to-binary would
// link libdevice from a CUDA toolkit, which a compiler machine need not have.
// A module that still needs an external symbol is rejected.
//
//===----------------------------------------------------------------------===//

#include "tessel/Target/PTX/PTX.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"

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
constexpr llvm::StringLiteral kTriple = "nvptx64-nvidia-cuda";

/// The NVPTX target machine for kChip (the backend is registered once per process).
std::unique_ptr<llvm::TargetMachine> nvptxTargetMachine(std::string &error) {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
  llvm::Triple triple(kTriple);
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return nullptr;
  return std::unique_ptr<llvm::TargetMachine>(target->createTargetMachine(
      triple, ptx::kChip, "", llvm::TargetOptions(), std::nullopt, std::nullopt, llvm::CodeGenOptLevel::Aggressive));
}
} // namespace

LogicalResult ptx::lowerDeviceIRToNVVM(ModuleOp deviceModule) {
  MLIRContext *ctx = deviceModule.getContext();
  DialectRegistry registry;
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  ctx->appendDialectRegistry(registry);
  PassManager pm(ctx);
  pm.addPass(createSCFToControlFlowPass());
  // Index arithmetic in 32 bits (PTX.h, kIndexBits): half the registers of 64-bit coordinates.
  ConvertGpuOpsToNVVMOpsOptions nvvmOptions;
  nvvmOptions.indexBitwidth = ptx::kIndexBits;
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertGpuOpsToNVVMOps(nvvmOptions));
  pm.addPass(createReconcileUnrealizedCastsPass());
  return pm.run(deviceModule);
}

FailureOr<std::string> ptx::emitPTX(ModuleOp deviceModule, bool llvmIR) {
  MLIRContext *ctx = deviceModule.getContext();
  DialectRegistry registry;
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  ctx->appendDialectRegistry(registry);
  auto modules = deviceModule.getOps<gpu::GPUModuleOp>();
  if (!llvm::hasSingleElement(modules))
    return deviceModule.emitError() << "the PTX emitter expects one gpu.module";
  gpu::GPUModuleOp gpuModule = *modules.begin();

  std::string error;
  std::unique_ptr<llvm::TargetMachine> machine = nvptxTargetMachine(error);
  if (!machine)
    return deviceModule.emitError() << "LLVM's NVPTX backend is not available: " << error;
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule = translateModuleToLLVMIR(gpuModule, llvmContext, "tessel_ptx");
  if (!llvmModule)
    return gpuModule.emitError() << "translation of the device IR to LLVM IR failed";
  llvmModule->setTargetTriple(llvm::Triple(kTriple));
  llvmModule->setDataLayout(machine->createDataLayout());
  if (llvm::Error err = makeOptimizingTransformer(3, 0, machine.get())(llvmModule.get()))
    return gpuModule.emitError() << "LLVM optimization failed: " << llvm::toString(std::move(err));
  // Nothing may stay unresolved: the driver loads the PTX as it is (seed 004).
  for (llvm::Function &f : llvmModule->functions())
    if (f.isDeclaration() && !f.isIntrinsic())
      return gpuModule.emitError() << "the PTX module would call the external function '" << f.getName()
                                   << "', which the in-process provider does not link";
  std::string text;
  llvm::raw_string_ostream os(text);
  if (llvmIR) {
    llvmModule->print(os, nullptr);
    return text;
  }
  llvm::SmallString<0> buffer;
  llvm::raw_svector_ostream bufferStream(buffer);
  llvm::legacy::PassManager codegen;
  if (machine->addPassesToEmitFile(codegen, bufferStream, nullptr, llvm::CodeGenFileType::AssemblyFile))
    return gpuModule.emitError() << "LLVM's NVPTX backend cannot emit assembly";
  codegen.run(*llvmModule);
  return std::string(buffer.str());
}

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
  if (failed(verify(**device)) || failed(lowerDeviceIRToNVVM(**device)))
    return failure();
  FailureOr<std::string> text = emitPTX(**device, stage == Stage::LLVMIR);
  if (failed(text) || stage != Stage::Wrapper)
    return text;
  return emitWrapper(module, *params, *text);
}
