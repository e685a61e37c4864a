//===- LLVMBackend.cpp - device IR to a GPU artifact through LLVM ---------===//
//
// The stage after selection that the GPU providers share (LLVMBackend.h):
// upstream lowering, translation to LLVM IR, O3 and the backend's
// TargetMachine, in process. MLIR's gpu-module-to-binary is not used: it
// links the vendor's device library (libdevice, the ROCm device libraries)
// and, for AMDGPU, calls ld.lld, none of which a compiler machine need have.
//
//===----------------------------------------------------------------------===//

#include "tessel/Target/Selector/LLVMBackend.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"

using namespace mlir;
using namespace tessel;

LogicalResult selector::lowerDeviceIR(ModuleOp deviceModule, const LLVMBackend &backend) {
  MLIRContext *ctx = deviceModule.getContext();
  DialectRegistry registry;
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  ctx->appendDialectRegistry(registry);
  PassManager pm(ctx);
  pm.addPass(createSCFToControlFlowPass());
  pm.addNestedPass<gpu::GPUModuleOp>(backend.gpuToLLVM());
  pm.addPass(createReconcileUnrealizedCastsPass());
  return pm.run(deviceModule);
}

std::unique_ptr<llvm::TargetMachine> selector::targetMachine(const LLVMBackend &backend, std::string &error) {
  backend.initialize();
  llvm::Triple triple(backend.triple);
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return nullptr;
  return std::unique_ptr<llvm::TargetMachine>(target->createTargetMachine(
      triple, backend.chip, "", llvm::TargetOptions(), std::nullopt, std::nullopt, llvm::CodeGenOptLevel::Aggressive));
}

FailureOr<std::string> selector::emitWithLLVM(ModuleOp deviceModule, const LLVMBackend &backend, LLVMOutput output) {
  MLIRContext *ctx = deviceModule.getContext();
  DialectRegistry registry;
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  backend.registerTranslation(registry);
  registerGPUDialectTranslation(registry);
  ctx->appendDialectRegistry(registry);
  auto modules = deviceModule.getOps<gpu::GPUModuleOp>();
  if (!llvm::hasSingleElement(modules))
    return deviceModule.emitError() << "the " << backend.provider << " emitter expects one gpu.module";
  gpu::GPUModuleOp gpuModule = *modules.begin();

  std::string error;
  std::unique_ptr<llvm::TargetMachine> machine = targetMachine(backend, error);
  if (!machine)
    return deviceModule.emitError() << "LLVM's " << backend.backend << " backend is not available: " << error;
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule = translateModuleToLLVMIR(gpuModule, llvmContext, backend.moduleName);
  if (!llvmModule)
    return gpuModule.emitError() << "translation of the device IR to LLVM IR failed";
  llvmModule->setTargetTriple(llvm::Triple(backend.triple));
  llvmModule->setDataLayout(machine->createDataLayout());
  if (llvm::Error err = makeOptimizingTransformer(3, 0, machine.get())(llvmModule.get()))
    return gpuModule.emitError() << "LLVM optimization failed: " << llvm::toString(std::move(err));
  // Nothing may stay unresolved: no device library is linked and the driver loads the artifact as
  // it is (seed 004).
  for (llvm::Function &f : llvmModule->functions())
    if (f.isDeclaration() && !f.isIntrinsic())
      return gpuModule.emitError() << "the " << backend.provider << " module would call the external function '"
                                   << f.getName() << "', which the in-process provider does not link";
  std::string text;
  llvm::raw_string_ostream os(text);
  if (output == LLVMOutput::IR) {
    llvmModule->print(os, nullptr);
    return text;
  }
  llvm::SmallString<0> buffer;
  llvm::raw_svector_ostream bufferStream(buffer);
  llvm::legacy::PassManager codegen;
  bool assembly = output == LLVMOutput::Assembly;
  auto fileType = assembly ? llvm::CodeGenFileType::AssemblyFile : llvm::CodeGenFileType::ObjectFile;
  if (machine->addPassesToEmitFile(codegen, bufferStream, nullptr, fileType))
    return gpuModule.emitError() << "LLVM's " << backend.backend << " backend cannot emit "
                                 << (assembly ? "assembly" : "a code object");
  codegen.run(*llvmModule);
  return std::string(buffer.str());
}
