//===- tessel.cpp - the tessel command-line driver -------------------------===//
//
// `tessel compile FILE[:KERNEL] --emit=kir|pgpu|source --target=...` and
// `tessel run ...` (ARCHITECTURE.md §6). Like toyc, the driver is a straight
// script: parse, verify, apply compile options, run the pipeline to the
// requested stage, print. Errors are diagnostics with locations and exit 2.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

#include "tessel/Dialect/KIR/IR/KIR.h"
#include "tessel/Dialect/KIR/Transforms/Passes.h"

using namespace mlir;
namespace cl = llvm::cl;
namespace kir = tessel::kir;

namespace {
enum class Emit { KIR, PGPU, Source };
enum class Target { Triton, CuTile, PTX };

cl::opt<std::string> inputSpec(cl::Positional, cl::desc("FILE[:KERNEL]"), cl::Required);
cl::opt<std::string> outputFile("o", cl::desc("output file"), cl::value_desc("path"), cl::init("-"));
cl::opt<Emit> emit("emit", cl::desc("stage to print"), cl::init(Emit::Source),
                   cl::values(clEnumValN(Emit::KIR, "kir", "verified canonical kernel IR"),
                              clEnumValN(Emit::PGPU, "pgpu", "shared physical GPU program IR"),
                              clEnumValN(Emit::Source, "source", "provider source")));
cl::opt<Target> target("target", cl::desc("provider"), cl::init(Target::Triton),
                       cl::values(clEnumValN(Target::Triton, "triton", "Triton Python source"),
                                  clEnumValN(Target::CuTile, "cutile", "cuda.tile Python source"),
                                  clEnumValN(Target::PTX, "ptx", "PTX emitted in-process")));
cl::opt<std::string> numerics("numerics", cl::desc("source | relaxed_normalization (overrides the module)"));
cl::opt<std::string> onlineReduction("online-reduction", cl::desc("true | false (overrides the module)"));
cl::opt<bool> remarks("remarks", cl::desc("print optimization remarks"), cl::init(false));

constexpr int kUsageError = 2;

/// Splits `FILE[:KERNEL]`; a ':' inside a path prefix is kept when no kernel follows.
std::pair<std::string, std::string> splitSpec(llvm::StringRef spec) {
  auto [file, kernel] = spec.rsplit(':');
  if (kernel.empty() || kernel.contains('/'))
    return {spec.str(), ""};
  return {file.str(), kernel.str()};
}

int usage(llvm::StringRef argv0) {
  llvm::errs() << "usage: " << argv0 << " <command> [options]\n"
               << "commands:\n"
               << "  compile FILE[:KERNEL] --emit=kir|pgpu|source --target=triton|cutile|ptx\n"
               << "  run FILE[:KERNEL] --shape M=37,N=129 [--device interp|cuda]\n"
               << "run '" << argv0 << " <command> --help' for the options of a command\n";
  return kUsageError;
}

/// Applies command-line overrides to the module's #kir.compile_options (seed
/// 002 §1: the attribute carries the effective permissions; defaults
/// source/true/false when absent).
LogicalResult applyCompileOptions(ModuleOp module) {
  MLIRContext *ctx = module.getContext();
  auto name = kir::KIRDialect::getCompileOptionsAttrName();
  auto options = module->getAttrOfType<kir::CompileOptionsAttr>(name);
  kir::Numerics num = options ? options.getNumerics() : kir::Numerics::Source;
  bool online = options ? options.getOnlineReduction() : true;
  bool remark = options ? options.getOptimizationRemarks() : false;
  if (!numerics.empty()) {
    std::optional<kir::Numerics> parsed = kir::symbolizeNumerics(numerics);
    if (!parsed)
      return emitError(module.getLoc()) << "--numerics must be 'source' or 'relaxed_normalization', got '"
                                        << numerics << "'";
    num = *parsed;
  }
  if (!onlineReduction.empty()) {
    if (onlineReduction != "true" && onlineReduction != "false")
      return emitError(module.getLoc()) << "--online-reduction must be 'true' or 'false', got '"
                                        << onlineReduction << "'";
    online = onlineReduction == "true";
  }
  remark = remark || remarks;
  module->setAttr(name, kir::CompileOptionsAttr::get(ctx, num, online, remark));
  return success();
}

int compile(MLIRContext &context) {
  auto [file, kernelName] = splitSpec(inputSpec);
  if (llvm::StringRef(file).ends_with(".py")) {
    llvm::errs() << "error: " << file
                 << ": DSL files are traced by the Python package (python -m tessel); pass KIR text (.mlir) here\n";
    return kUsageError;
  }
  std::string error;
  auto input = openInputFile(file, &error);
  if (!input) {
    llvm::errs() << "error: " << error << "\n";
    return kUsageError;
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return kUsageError;
  if (!kernelName.empty()) {
    // Keep only the requested kernel: one kernel = one launch.
    auto kernel = module->lookupSymbol<kir::KernelOp>(kernelName);
    if (!kernel) {
      emitError(module->getLoc()) << "no kir.kernel named '" << kernelName << "' in " << file;
      return kUsageError;
    }
    for (Operation &op : llvm::make_early_inc_range(module->getBody()->getOperations()))
      if (&op != kernel.getOperation())
        op.erase();
  }
  if (failed(applyCompileOptions(*module)))
    return kUsageError;

  PassManager pm(&context);
  if (failed(applyPassManagerCLOptions(pm)))
    return kUsageError;
  pm.addPass(kir::createKIRAnnotateOrigins());
  if (failed(pm.run(*module)))
    return kUsageError;

  if (emit != Emit::KIR) {
    emitError(module->getLoc())
        << "--emit=" << (emit == Emit::PGPU ? "pgpu" : "source")
        << " needs kir-to-pgpu construction, which this build does not have yet; use --emit=kir";
    return kUsageError;
  }
  auto output = openOutputFile(outputFile, &error);
  if (!output) {
    llvm::errs() << "error: " << error << "\n";
    return kUsageError;
  }
  module->print(output->os());
  output->os() << "\n";
  output->keep();
  return 0;
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  if (argc < 2)
    return usage(argv[0]);
  llvm::StringRef command = argv[1];
  if (command == "--version" || command == "version") {
    llvm::outs() << "tessel 0.1.0 (MLIR " << LLVM_VERSION_STRING << ")\n";
    return 0;
  }
  if (command == "--help" || command == "-h" || command == "help")
    return usage(argv[0]) == kUsageError ? 0 : 1;
  if (command != "compile" && command != "run") {
    llvm::errs() << "error: unknown command '" << command << "'\n";
    return usage(argv[0]);
  }
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  // Parse the options after the command name, as if it were argv[0].
  std::string toolName = (llvm::Twine(argv[0]) + " " + command).str();
  argv[1] = toolName.data();
  if (!cl::ParseCommandLineOptions(argc - 1, argv + 1, "tessel GPU kernel compiler\n"))
    return kUsageError;

  DialectRegistry registry;
  registry.insert<kir::KIRDialect, arith::ArithDialect>();
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  if (command == "run") {
    llvm::errs() << "error: 'tessel run' needs the reference interpreter, which this build does not have yet\n";
    return kUsageError;
  }
  return compile(context);
}
