//===- Compile.cpp - the compile entry point of the driver and the module -===//
//
// Moved out of tools/tessel/tessel.cpp so that the binary and the Python
// extension module run one copy of it (issue 46 item 2).
//
//===----------------------------------------------------------------------===//

#include "tessel/Driver/Compile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Config/llvm-config.h"

#include "tessel/Dialect/KIR/IR/KIR.h"
#include "tessel/Dialect/PGPU/IR/PGPU.h"
#include "tessel/Dialect/Utils/ModulePlacement.h"
#include "tessel/Dialect/Utils/NestingLimit.h"
#include "tessel/Pipeline/Pipeline.h"
#include "tessel/Target/Provider.h"

using namespace mlir;
namespace kir = tessel::kir;
namespace pgpu = tessel::pgpu;

std::string tessel::versionString() { return "tessel 0.1.0 (MLIR " LLVM_VERSION_STRING ")"; }

void tessel::registerKernelDialects(DialectRegistry &registry) {
  registry.insert<kir::KIRDialect, pgpu::PGPUDialect, arith::ArithDialect>();
}

bool tessel::isEmitStage(llvm::StringRef stage) {
  return llvm::is_contained({"kir", "pgpu", "device", "llvm", "source", "wrapper", "binary"}, stage);
}

OwningOpRef<ModuleOp> tessel::parseKernelModule(llvm::SourceMgr &sourceMgr, MLIRContext &context) {
  const llvm::MemoryBuffer *buffer = sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  auto refused = [&](size_t at, const llvm::Twine &message) {
    if (at == llvm::StringRef::npos)
      return false;
    auto [line, col] = sourceMgr.getLineAndColumn(llvm::SMLoc::getFromPointer(buffer->getBufferStart() + at));
    emitError(FileLineColLoc::get(&context, buffer->getBufferIdentifier(), line, col)) << message.str();
    return true;
  };
  if (refused(findExcessNesting(buffer->getBuffer()),
              "the input nests deeper than " + llvm::Twine(kMaxNesting) +
                  " levels (regions, types, attributes or brackets); tessel refuses it instead of exhausting the stack") ||
      refused(findMisplacedModule(buffer->getBuffer()), kMisplacedModuleMessage) ||
      refused(findExcessResultNumber(buffer->getBuffer()),
              "this use names a result number above " + llvm::Twine(kMaxResultNumber) +
                  "; tessel refuses it before parsing (MLIR's parser would reserve that many result slots)") ||
      refused(findBadDenseArray(buffer->getBuffer()), kBadDenseArrayMessage))
    return nullptr;
  return parseSourceFile<ModuleOp>(sourceMgr, &context);
}

LogicalResult tessel::applyCompileOptions(ModuleOp module, const CompileRequest &request) {
  MLIRContext *ctx = module.getContext();
  auto name = kir::KIRDialect::getCompileOptionsAttrName();
  auto options = module->getAttrOfType<kir::CompileOptionsAttr>(name);
  kir::Numerics num = options ? options.getNumerics() : kir::Numerics::Source;
  bool online = options ? options.getOnlineReduction() : true;
  bool remark = options ? options.getOptimizationRemarks() : false;
  bool emptiness = options ? options.getSummaryEmptiness() : false;
  if (!request.numerics.empty()) {
    std::optional<kir::Numerics> parsed = kir::symbolizeNumerics(request.numerics);
    if (!parsed)
      return emitError(module.getLoc()) << "--numerics must be 'source' or 'relaxed_normalization', got '"
                                        << request.numerics << "'";
    num = *parsed;
  }
  if (!request.onlineReduction.empty()) {
    if (request.onlineReduction != "true" && request.onlineReduction != "false")
      return emitError(module.getLoc()) << "--online-reduction must be 'true' or 'false', got '"
                                        << request.onlineReduction << "'";
    online = request.onlineReduction == "true";
  }
  remark = remark || request.remarks;
  module->setAttr(name, kir::CompileOptionsAttr::get(ctx, num, online, remark, emptiness));
  return success();
}

FailureOr<std::string> tessel::compileKernel(MLIRContext &context, llvm::SourceMgr &sourceMgr,
                                             const CompileRequest &request, llvm::raw_ostream &errors,
                                             llvm::function_ref<LogicalResult(PassManager &)> configure) {
  // The request first (the binary's command line checks these before reading its input).
  const Provider *provider = request.target.empty() ? &defaultProvider() : lookupProvider(request.target);
  if (!provider) {
    errors << "error: --target=" << request.target << ": no such provider; the providers are ";
    llvm::interleave(providers(), errors, [&](const Provider *p) { errors << p->name(); }, ", ");
    errors << "\n";
    return failure();
  }
  if (!isEmitStage(request.emit)) {
    errors << "error: --emit=" << request.emit << ": no such stage; the stages are kir, pgpu, device, llvm, "
           << "source, wrapper, binary\n";
    return failure();
  }
  OwningOpRef<ModuleOp> module = parseKernelModule(sourceMgr, context);
  if (!module)
    return failure();
  if (!request.kernelName.empty()) {
    // Keep only the requested kernel: one kernel = one launch.
    auto kernel = module->lookupSymbol<kir::KernelOp>(request.kernelName);
    if (!kernel) {
      emitError(module->getLoc()) << "no kir.kernel named '" << request.kernelName << "' in " << request.fileName;
      return failure();
    }
    for (Operation &op : llvm::make_early_inc_range(module->getBody()->getOperations()))
      if (&op != kernel.getOperation())
        op.erase();
  }
  if (failed(applyCompileOptions(*module, request)))
    return failure();

  // kir and pgpu are the shared pipeline's; every other stage is a provider's (Provider::stages).
  llvm::StringRef stage = request.emit;
  bool providerStage = stage != "kir" && stage != "pgpu";
  if (providerStage && !llvm::is_contained(provider->stages(), stage)) {
    std::string owners;
    for (const Provider *other : providers())
      if (llvm::is_contained(other->stages(), stage))
        owners += (owners.empty() ? "--target=" : " and --target=") + other->name().str();
    emitError(module->getLoc()) << "--emit=" << stage << " is a stage of " << owners;
    return failure();
  }
  llvm::StringMap<int64_t> paramValues;
  for (const std::string &text : request.params) {
    auto [key, value] = llvm::StringRef(text).split('=');
    int64_t v;
    if (key.empty() || value.getAsInteger(10, v)) {
      errors << "error: --param expects NAME=INTEGER, got '" << text << "'\n";
      return failure();
    }
    paramValues[key] = v;
  }
  PassManager pm(&context);
  if (configure && failed(configure(pm)))
    return failure();
  // --emit=kir stops at canonical KIR and --emit=pgpu prints the provider-neutral program; a provider's
  // stage follows the pipeline built for that provider (its capabilities, its legalization if it has
  // one in the pipeline; the others legalize inside Provider::emit).
  if (stage == "kir")
    buildPipeline(pm, nullptr, StopAfter("annotate-origins"));
  else
    buildPipeline(pm, providerStage ? provider : nullptr);
  if (failed(pm.run(*module)))
    return failure();
  if (providerStage)
    // The provider emits completely before anything is written: a rejected program leaves no artifact
    // (seed 004).
    return provider->emit(*module, paramValues, stage);
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  os << "\n";
  return text;
}
