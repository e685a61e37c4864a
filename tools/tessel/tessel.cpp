//===- tessel.cpp - the tessel command-line driver -------------------------===//
//
// `tessel compile FILE[:KERNEL] --emit=kir|pgpu|source --target=...` and
// `tessel run ...` (ARCHITECTURE.md §6); `tessel tune FILE.py:KERNEL ...`
// forwards to the Python package, which measures on a CUDA device. Like
// toyc, the driver is a straight script: parse, verify, apply compile
// options, run the pipeline to the requested stage, print. Errors are
// diagnostics with locations and exit 2.
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
#include "tessel/Driver/Compile.h"
#include "tessel/Dialect/KIR/Transforms/Passes.h"
#include "tessel/Interp/HostData.h"
#include "tessel/Interp/Interpreter.h"
#include "tessel/Pipeline/Pipeline.h"
#include "tessel/Target/Provider.h"
#include "tessel/Interp/LaunchExpr.h"
#include "tessel/Dialect/PGPU/IR/PGPU.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

extern char **environ;

using namespace mlir;
namespace cl = llvm::cl;
namespace kir = tessel::kir;
namespace interp = tessel::interp;
namespace pgpu = tessel::pgpu;

namespace {
enum class Emit { KIR, PGPU, Device, LLVM, Source, Wrapper, Binary };

/// `--target`'s description: the registered providers (Target/Provider.h), each with its summary.
std::string targetDescription() {
  std::string text = "provider:";
  for (const tessel::Provider *provider : tessel::providers())
    text += " " + provider->name().str() + " (" + provider->summary().str() + ")";
  return text;
}

// Each command's help lists its own options and those both share; LLVM's and MLIR's options are
// still accepted but not listed.
cl::OptionCategory commonOptions("Options of compile and run");
cl::OptionCategory compileOptions("Options of compile");
cl::OptionCategory runOptions("Options of run");
cl::OptionCategory vjpOptions("Options of vjp");

cl::opt<std::string> inputSpec(cl::Positional, cl::desc("FILE[:KERNEL]"), cl::Required, cl::cat(commonOptions));
cl::opt<std::string> outputFile("o", cl::desc("output file"), cl::value_desc("path"), cl::init("-"),
                                cl::cat(compileOptions), cl::cat(vjpOptions));
// `tessel vjp` options.
cl::list<std::string> wrtOpt("wrt", cl::desc("the input views to differentiate with respect to, e.g. x,w"),
                             cl::CommaSeparated, cl::cat(vjpOptions));
cl::opt<Emit> emit("emit", cl::desc("stage to print"), cl::init(Emit::Source), cl::cat(compileOptions),
                   cl::values(clEnumValN(Emit::KIR, "kir", "verified canonical kernel IR"),
                              clEnumValN(Emit::PGPU, "pgpu", "shared physical GPU program IR"),
                              clEnumValN(Emit::Device, "device", "PTX/AMDGPU target: the selected gpu device IR"),
                              clEnumValN(Emit::LLVM, "llvm", "PTX/AMDGPU target: the optimized LLVM IR"),
                               clEnumValN(Emit::Source, "source", "provider source"),
                               clEnumValN(Emit::Wrapper, "wrapper",
                                          "PTX target: the Python module that launches it (tessel._ptx)"),
                              clEnumValN(Emit::Binary, "binary",
                                         "AMDGPU target: the ELF code object (amdhsa, relocatable)")));
// Looked up by name in the registry of providers (`lookupProvider`, checked before any work).
const std::string targetHelp = targetDescription();
cl::opt<std::string> target("target", cl::desc(targetHelp), cl::init(tessel::defaultProvider().name().str()),
                            cl::value_desc("provider"), cl::cat(commonOptions));
cl::opt<std::string> numerics("numerics", cl::desc("source | relaxed_normalization (overrides the module)"),
                              cl::cat(commonOptions));
cl::opt<std::string> onlineReduction("online-reduction", cl::desc("true | false (overrides the module)"),
                                     cl::cat(commonOptions));
cl::opt<bool> remarks("remarks", cl::desc("print optimization remarks"), cl::init(false), cl::cat(commonOptions));

// `tessel run` options.
cl::list<std::string> shapes("shape", cl::desc("symbolic extents, e.g. M=37,N=129"), cl::CommaSeparated,
                             cl::cat(runOptions));
cl::list<std::string> scalars("scalar", cl::desc("runtime scalar NAME=VALUE"), cl::CommaSeparated,
                              cl::cat(runOptions));
cl::list<std::string> constexprs("constexpr", cl::desc("constexpr NAME=VALUE (overrides the kernel's)"),
                                 cl::CommaSeparated, cl::cat(runOptions));
cl::list<std::string> ranges("range", cl::desc("integer input range NAME=LO:HI (bounds may name extents)"),
                             cl::CommaSeparated, cl::cat(runOptions));
cl::list<std::string> inputFiles("in", cl::desc("input view NAME=FILE.npy (instead of random values)"),
                                 cl::CommaSeparated, cl::cat(runOptions));
cl::opt<uint64_t> seed("seed", cl::desc("seed of the random inputs and of shuffled orders"), cl::init(0),
                       cl::cat(runOptions));
cl::opt<std::string> device("device", cl::desc("interp | cuda"), cl::init("interp"), cl::cat(runOptions));
cl::opt<std::string> outDir("out", cl::desc("directory for the outputs as .npy"), cl::value_desc("dir"),
                            cl::cat(runOptions));
cl::opt<std::string> orderOpt("order", cl::desc("parallel iteration order: forward | reverse | shuffle"),
                              cl::init("forward"), cl::cat(runOptions));
cl::list<std::string> paramsOpt("param", cl::desc("physical parameter NAME=VALUE (pgpu kernels)"),
                                cl::CommaSeparated, cl::cat(commonOptions));
cl::opt<std::string> stageOpt("stage", cl::desc("run KIR kernels as kir (interpreter) or after construction as pgpu"),
                              cl::init("kir"), cl::cat(runOptions));
cl::opt<std::string> segmentsOpt("segments", cl::desc("region_fold/region_scan segmentation: one | random | K"),
                                 cl::init("one"), cl::cat(runOptions));

using tessel::kUsageError;

/// Splits `FILE[:KERNEL]`; a ':' inside a path prefix is kept when no kernel follows.
std::pair<std::string, std::string> splitSpec(llvm::StringRef spec) {
  auto [file, kernel] = spec.rsplit(':');
  if (kernel.empty() || kernel.contains('/'))
    return {spec.str(), ""};
  return {file.str(), kernel.str()};
}

/// The registered providers' names joined by `separator` ("triton|cutile|ptx|amdgpu").
std::string providerNames(llvm::StringRef separator) {
  std::string text;
  for (const tessel::Provider *provider : tessel::providers())
    text += (text.empty() ? "" : separator.str()) + provider->name().str();
  return text;
}

int usage(llvm::StringRef argv0) {
  llvm::errs() << "usage: " << argv0 << " <command> [options]\n"
               << "commands:\n"
               << "  compile FILE[:KERNEL] --emit=kir|pgpu|device|llvm|source|wrapper|binary --target="
               << providerNames("|") << "\n"
               << "  run FILE[:KERNEL] --shape M=37,N=129 [--scalar s=0.5] [--constexpr C=true] [--seed 7]\n"
               << "      [--device interp|cuda --target ptx] [--out DIR] [--order forward|reverse|shuffle] [--segments one|random|K]\n"
               << "      [--in NAME=FILE.npy]   (a view's values from a NumPy file instead of random ones)\n"
               << "  tune FILE.py:KERNEL --shape M=1024,N=512 [--scalar s=0.5] [--constexpr C=true] [--seed 7]\n"
               << "      [--budget-s 60] [--retune] [--target auto]  (measures on a CUDA device, through python3 -m tessel tune)\n"
               << "  vjp FILE[:KERNEL] --wrt=x,w         the kernel's vector-Jacobian product as KIR (kir-vjp)\n"
               << "  groups                              the pipeline's pass groups, in order (tessel-opt\n"
               << "                                      --tessel-pipeline=stop-after=GROUP stops after one)\n"
               << "run '" << argv0 << " <command> --help' for the options of a command\n";
  return kUsageError;
}

/// The environment for `python3 -m tessel`: this one, with the Python package
/// that lives beside this binary's build tree (<root>/build/bin/tessel ->
/// <root>/python) first on PYTHONPATH.
std::vector<std::string> pythonEnvironment() {
  std::string exe = llvm::sys::fs::getMainExecutable("tessel", reinterpret_cast<void *>(&pythonEnvironment));
  llvm::SmallString<256> pythonDir(llvm::sys::path::parent_path(llvm::sys::path::parent_path(
      llvm::sys::path::parent_path(exe))));
  llvm::sys::path::append(pythonDir, "python");
  std::vector<std::string> envStrings;
  std::string pythonPath = "PYTHONPATH=" + std::string(pythonDir);
  for (char **e = environ; *e; ++e) {
    llvm::StringRef entry(*e);
    if (entry.starts_with("PYTHONPATH="))
      pythonPath += ":" + entry.drop_front(11).str();
    else
      envStrings.push_back(entry.str());
  }
  envStrings.push_back(pythonPath);
  return envStrings;
}

/// KIR text for FILE: read a .mlir file, or trace a DSL kernel (FILE.py with
/// KERNEL) through the Python package, `python3 -m tessel emit`.
std::unique_ptr<llvm::MemoryBuffer> loadKernelSource(llvm::StringRef file, llvm::StringRef kernelName,
                                                     llvm::ArrayRef<std::string> constexprArgs, std::string &error) {
  if (!file.ends_with(".py"))
    return openInputFile(file, &error);
  if (kernelName.empty()) {
    error = (file + ": name the DSL kernel as FILE.py:KERNEL").str();
    return nullptr;
  }
  llvm::ErrorOr<std::string> python = llvm::sys::findProgramByName("python3");
  if (!python) {
    error = "python3 is needed to trace DSL kernels and was not found on PATH";
    return nullptr;
  }
  llvm::SmallString<128> output;
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile("tessel-trace", "mlir", output)) {
    error = "cannot create a temporary file: " + ec.message();
    return nullptr;
  }
  std::vector<std::string> envStrings = pythonEnvironment();
  std::vector<llvm::StringRef> env(envStrings.begin(), envStrings.end());
  std::string spec = (file + ":" + kernelName).str();
  // The KIR comes back through a file, not stdout: the author's module runs while it traces, and its
  // print()s (which `emit --output` sends to stderr) must not be parsed as KIR.
  std::vector<std::string> argStrings{*python, "-m", "tessel", "emit", spec, "--output", std::string(output)};
  for (const std::string &c : constexprArgs) {
    argStrings.push_back("--constexpr");
    argStrings.push_back(c);
  }
  std::vector<llvm::StringRef> args(argStrings.begin(), argStrings.end());
  int rc = llvm::sys::ExecuteAndWait(*python, args, env, /*Redirects=*/{}, /*SecondsToWait=*/0, /*MemoryLimit=*/0,
                                     &error);
  if (rc != 0) {
    if (error.empty())
      error = "tracing " + spec + " failed (see the Python error above)";
    llvm::sys::fs::remove(output);
    return nullptr;
  }
  auto buffer = openInputFile(output, &error);
  llvm::sys::fs::remove(output);
  if (!buffer)
    return nullptr;
  // Named after the kernel, not the temporary file (removed by now): a diagnostic located in the KIR
  // text itself (the traced ops carry the author's lines) names what was traced.
  return llvm::MemoryBuffer::getMemBufferCopy(buffer->getBuffer(), spec + " (traced KIR)");
}

/// `tessel tune FILE.py:KERNEL [args...]`: tuning measures a DSL kernel on a
/// CUDA device, which the Python package does (`python3 -m tessel tune`); the
/// driver forwards every argument and returns its exit code.
int tune(int argc, char **argv) {
  if (argc < 3) {
    llvm::errs() << "usage: " << argv[0] << " tune FILE.py:KERNEL --shape M=1024,N=512 [--scalar s=0.5]"
                 << " [--constexpr C=true] [--seed 7] [--budget-s 60] [--retune]\n";
    return kUsageError;
  }
  llvm::StringRef spec = argv[2];
  if (spec != "--help" && spec != "-h") {
    auto [file, kernelName] = splitSpec(spec);
    if (!llvm::StringRef(file).ends_with(".py") || kernelName.empty()) {
      llvm::errs() << "error: " << spec << ": tessel tune needs a DSL kernel, FILE.py:KERNEL"
                   << " (the tuner compiles and times it on a CUDA device)\n";
      return kUsageError;
    }
  }
  llvm::ErrorOr<std::string> python = llvm::sys::findProgramByName("python3");
  if (!python) {
    llvm::errs() << "error: python3 is needed to tune DSL kernels and was not found on PATH\n";
    return kUsageError;
  }
  std::vector<std::string> envStrings = pythonEnvironment();
  std::vector<llvm::StringRef> env(envStrings.begin(), envStrings.end());
  std::vector<llvm::StringRef> args{*python, "-m", "tessel", "tune"};
  for (int i = 2; i < argc; ++i)
    args.push_back(argv[i]);
  std::string error;
  int rc = llvm::sys::ExecuteAndWait(*python, args, env, /*Redirects=*/{}, /*SecondsToWait=*/0, /*MemoryLimit=*/0,
                                     &error);
  if (rc < 0) {
    llvm::errs() << "error: running python3 -m tessel tune failed: " << error << "\n";
    return kUsageError;
  }
  return rc;
}

/// The name of `--emit`'s value, as Provider::stages lists it.
llvm::StringRef emitName(Emit stage) {
  switch (stage) {
  case Emit::KIR: return "kir";
  case Emit::PGPU: return "pgpu";
  case Emit::Device: return "device";
  case Emit::LLVM: return "llvm";
  case Emit::Source: return "source";
  case Emit::Wrapper: return "wrapper";
  case Emit::Binary: return "binary";
  }
  llvm_unreachable("every --emit value has a name");
}

/// FILE (traced when it is a DSL kernel) loaded and parsed, with a diagnostic handler that points at its
/// lines for as long as the module is used: what compile, run and vjp each start with.
struct KernelInput {
  llvm::SourceMgr sourceMgr;
  std::optional<SourceMgrDiagnosticHandler> diagnostics;
  OwningOpRef<ModuleOp> module;

  /// Loads FILE into the source manager, with the diagnostic handler over it; false (the error
  /// already reported) when it cannot be read or traced.
  bool read(MLIRContext &context, llvm::StringRef file, llvm::StringRef kernelName,
            llvm::ArrayRef<std::string> constexprArgs) {
    std::string error;
    auto input = loadKernelSource(file, kernelName, constexprArgs, error);
    if (!input) {
      llvm::errs() << "error: " << error << "\n";
      return false;
    }
    sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
    diagnostics.emplace(sourceMgr, &context);
    return true;
  }

  /// Loads and parses; false (the error already reported) when either fails.
  bool load(MLIRContext &context, llvm::StringRef file, llvm::StringRef kernelName,
            llvm::ArrayRef<std::string> constexprArgs) {
    if (!read(context, file, kernelName, constexprArgs))
      return false;
    module = tessel::parseKernelModule(sourceMgr, context);
    return static_cast<bool>(module);
  }
};

/// `tessel compile`: the request from the command line, compiled by tessel::compileKernel (the
/// Python extension module calls the same function, tools/tessel-python).
int compile(MLIRContext &context) {
  auto [file, kernelName] = splitSpec(inputSpec);
  KernelInput input;
  if (!input.read(context, file, kernelName, {}))
    return kUsageError;
  tessel::CompileRequest request;
  request.emit = emitName(emit).str();
  request.target = target;
  request.kernelName = kernelName;
  request.fileName = file;
  request.numerics = numerics;
  request.onlineReduction = onlineReduction;
  request.remarks = remarks;
  request.params.assign(paramsOpt.begin(), paramsOpt.end());
  FailureOr<std::string> text =
      tessel::compileKernel(context, input.sourceMgr, request, llvm::errs(), [](PassManager &pm) -> LogicalResult {
        if (failed(applyPassManagerCLOptions(pm)))
          return failure();
        applyDefaultTimingPassManagerCLOptions(pm);
        return success();
      });
  if (failed(text))
    return kUsageError;
  std::string error;
  auto output = openOutputFile(outputFile, &error);
  if (!output) {
    llvm::errs() << "error: " << error << "\n";
    return kUsageError;
  }
  output->os() << *text;
  output->keep();
  return 0;
}

/// The ABI name of argument `i`: its `kir.name` attribute, else `argI`.
/// A view argument of either dialect: element type, extents, access mode.
struct ViewInfo {
  Type elementType;
  ArrayRef<Attribute> extents;
  kir::ViewMode mode;
};

std::optional<ViewInfo> viewInfo(Type type) {
  if (auto view = dyn_cast<kir::ViewType>(type))
    return ViewInfo{view.getElementType(), view.getExtents(), view.getMode()};
  if (auto view = dyn_cast<pgpu::ViewType>(type))
    return ViewInfo{view.getElementType(), view.getExtents(), view.getMode()};
  return std::nullopt;
}

bool declaresExtent(FunctionOpInterface kernel, StringRef name) {
  for (Type type : kernel.getArgumentTypes())
    if (auto view = viewInfo(type))
      for (Attribute e : view->extents)
        if (auto s = dyn_cast<StringAttr>(e); s && s.getValue() == name)
          return true;
  return false;
}

std::string argumentName(FunctionOpInterface kernel, unsigned i) {
  if (auto name = kernel.getArgAttrOfType<StringAttr>(i, "kir.name"))
    return name.str();
  return "arg" + std::to_string(i);
}

/// Splits NAME=VALUE; reports a usage error otherwise.
std::optional<std::pair<std::string, std::string>> splitAssignment(llvm::StringRef text, llvm::StringRef flag) {
  auto [name, value] = text.split('=');
  if (name.empty() || value.empty() || !text.contains('=')) {
    llvm::errs() << "error: --" << flag << " expects NAME=VALUE, got '" << text << "'\n";
    return std::nullopt;
  }
  return std::make_pair(name.str(), value.str());
}

/// Parses an integer bound that is a literal or the name of an extent.
std::optional<int64_t> parseBound(llvm::StringRef text, const llvm::StringMap<int64_t> &extentValues) {
  int64_t value;
  if (!text.getAsInteger(10, value))
    return value;
  auto it = extentValues.find(text);
  if (it == extentValues.end())
    return std::nullopt;
  return it->second;
}

int runCommand(MLIRContext &context) {
  auto [file, kernelName] = splitSpec(inputSpec);
  // --device=interp is the reference interpreters; another device is the one a provider launches on
  // in process (Provider::launchDevice), with --target naming that provider.
  const tessel::Provider &provider = *tessel::lookupProvider(target);
  std::string devices = "interp";
  const tessel::Provider *launcher = nullptr;
  for (const tessel::Provider *p : tessel::providers())
    if (!p->launchDevice().empty()) {
      devices += " or " + p->launchDevice().str();
      if (p->launchDevice() == device && !launcher)
        launcher = p;
    }
  bool onDevice = device != "interp";
  if (onDevice && !launcher) {
    llvm::errs() << "error: --device must be " << devices << ", got '" << device << "'\n";
    return kUsageError;
  }
  if (onDevice && provider.launchDevice() != device) {
    llvm::errs() << "error: --device=" << device << " runs the " << launcher->name().upper()
                 << " provider's code; add --target=" << launcher->name() << "\n";
    return kUsageError;
  }
  interp::InterpreterOptions options;
  options.seed = seed;
  if (orderOpt == "forward") options.order = interp::IterationOrder::Forward;
  else if (orderOpt == "reverse") options.order = interp::IterationOrder::Reverse;
  else if (orderOpt == "shuffle") options.order = interp::IterationOrder::Shuffle;
  else {
    llvm::errs() << "error: --order must be forward, reverse or shuffle, got '" << orderOpt << "'\n";
    return kUsageError;
  }
  if (segmentsOpt == "one") {
    options.segmentation.kind = interp::Segmentation::One;
  } else if (segmentsOpt == "random") {
    options.segmentation.kind = interp::Segmentation::Random;
  } else if (int64_t k; !llvm::StringRef(segmentsOpt).getAsInteger(10, k) && k > 0) {
    options.segmentation = {interp::Segmentation::Fixed, k};
  } else {
    llvm::errs() << "error: --segments must be one, random or a positive count, got '" << segmentsOpt << "'\n";
    return kUsageError;
  }

  std::string error;
  // A DSL kernel is traced once per specialization: its constexprs go to the tracer.
  bool traced = llvm::StringRef(file).ends_with(".py");
  std::vector<std::string> traceConstexprs;
  if (traced)
    traceConstexprs.assign(constexprs.begin(), constexprs.end());
  KernelInput input;
  if (!input.load(context, file, kernelName, traceConstexprs))
    return kUsageError;
  OwningOpRef<ModuleOp> &module = input.module;
  // --numerics and --online-reduction are options of run as of compile (checked the same way; they
  // decide the pipeline of --stage=pgpu and --device=cuda).
  tessel::CompileRequest request;
  request.numerics = numerics;
  request.onlineReduction = onlineReduction;
  request.remarks = remarks;
  if (failed(tessel::applyCompileOptions(*module, request)))
    return kUsageError;
  if (traced)
    constexprs.clear();
  SmallVector<FunctionOpInterface> kernels;
  for (Operation &op : module->getBody()->getOperations())
    if (isa<kir::KernelOp, pgpu::KernelOp>(op))
      kernels.push_back(cast<FunctionOpInterface>(op));
  FunctionOpInterface kernel;
  for (FunctionOpInterface k : kernels)
    if (kernelName.empty() ? kernels.size() == 1 : k.getName() == kernelName)
      kernel = k;
  if (!kernel) {
    llvm::errs() << "error: " << (kernelName.empty() ? "name the kernel to run as FILE:KERNEL ("
                                                      : "no kernel named '" + kernelName + "' (");
    llvm::interleaveComma(kernels, llvm::errs(), [](FunctionOpInterface k) { llvm::errs() << k.getName(); });
    llvm::errs() << " in " << file << ")\n";
    return kUsageError;
  }
  if (stageOpt != "kir" && stageOpt != "pgpu") {
    llvm::errs() << "error: --stage must be kir or pgpu, got '" << stageOpt << "'\n";
    return kUsageError;
  }
  if ((stageOpt == "pgpu" || onDevice) && isa<kir::KernelOp>(kernel.getOperation())) {
    // The same launch after the shared pipeline: differential mode runs it on the pgpu interpreter
    // (the provider-neutral program), --device=cuda compiles it with the provider that launches there
    // (the pipeline built for it).
    std::string name = kernel.getName().str();
    for (Operation &op : llvm::make_early_inc_range(module->getBody()->getOperations()))
      if (&op != kernel.getOperation())
        op.erase();
    if (!constexprs.empty()) {
      llvm::errs() << "error: --stage=pgpu takes the kernel's own constexprs; edit them in the file\n";
      return kUsageError;
    }
    PassManager pm(&context);
    tessel::buildPipeline(pm, onDevice ? &provider : nullptr);
    if (failed(pm.run(*module)))
      return kUsageError;
    kernel = cast<FunctionOpInterface>(module->lookupSymbol(name));
  }
  auto kirKernel = dyn_cast<kir::KernelOp>(kernel.getOperation());
  auto pgpuKernel = dyn_cast<pgpu::KernelOp>(kernel.getOperation());
  if (!constexprs.empty() && !kirKernel) {
    llvm::errs() << "error: --constexpr applies to kir kernels; pgpu kernels take --param\n";
    return kUsageError;
  }
  if (!paramsOpt.empty() && !pgpuKernel) {
    llvm::errs() << "error: --param applies to pgpu kernels\n";
    return kUsageError;
  }

  // Constexpr overrides: only declared constexprs, re-verified afterwards.
  if (!constexprs.empty()) {
    kir::KernelOp kernel = kirKernel;
    NamedAttrList values(kernel.getConstexprs() ? *kernel.getConstexprs() : DictionaryAttr::get(&context));
    for (const std::string &text : constexprs) {
      auto kv = splitAssignment(text, "constexpr");
      if (!kv)
        return kUsageError;
      Attribute old = values.get(kv->first);
      if (!old) {
        llvm::errs() << "error: kernel @" << kernel.getSymName() << " declares no constexpr '" << kv->first << "'\n";
        return kUsageError;
      }
      Attribute value;
      int64_t number;
      if (isa<BoolAttr>(old) && (kv->second == "true" || kv->second == "false"))
        value = BoolAttr::get(&context, kv->second == "true");
      else if (auto integer = dyn_cast<IntegerAttr>(old); integer && !llvm::StringRef(kv->second).getAsInteger(10, number))
        value = IntegerAttr::get(integer.getType(), number);
      else if (isa<StringAttr>(old))
        value = StringAttr::get(&context, kv->second);
      if (!value) {
        llvm::errs() << "error: constexpr '" << kv->first << "' expects a value like " << old << ", got '"
                     << kv->second << "'\n";
        return kUsageError;
      }
      values.set(kv->first, value);
    }
    kernel.setConstexprsAttr(values.getDictionary(&context));
  }
  if (failed(verify(*module)))
    return kUsageError;

  llvm::StringMap<int64_t> extentValues;
  for (const std::string &text : shapes) {
    auto kv = splitAssignment(text, "shape");
    int64_t size;
    if (!kv || llvm::StringRef(kv->second).getAsInteger(10, size) || size < 0) {
      if (kv)
        llvm::errs() << "error: --shape " << kv->first << " must be a non-negative integer, got '" << kv->second << "'\n";
      return kUsageError;
    }
    if (!declaresExtent(kernel, kv->first)) {
      llvm::errs() << "error: unknown shape symbol '" << kv->first << "': no view of kernel @" << kernel.getName()
                   << " declares it\n";
      return kUsageError;
    }
    extentValues[kv->first] = size;
  }
  // User-supplied inputs: their shapes bind the extents they name (a --shape must agree).
  llvm::StringMap<std::unique_ptr<interp::HostArray>> supplied;
  for (const std::string &text : inputFiles) {
    auto kv = splitAssignment(text, "in");
    if (!kv)
      return kUsageError;
    std::optional<unsigned> index;
    for (unsigned i = 0; i < kernel.getNumArguments(); ++i)
      if (argumentName(kernel, i) == kv->first)
        index = i;
    std::optional<ViewInfo> view = index ? viewInfo(kernel.getArgumentTypes()[*index]) : std::nullopt;
    if (!view) {
      llvm::errs() << "error: --in " << kv->first << ": kernel @" << kernel.getName() << " has no view argument '"
                   << kv->first << "'\n";
      return kUsageError;
    }
    if (view->mode == kir::ViewMode::Out) {
      llvm::errs() << "error: --in " << kv->first << ": '" << kv->first
                   << "' is an 'out' view; the kernel writes it before reading it\n";
      return kUsageError;
    }
    std::optional<interp::HostArray> array = interp::readNpy(kv->second, view->elementType, error);
    if (!array) {
      llvm::errs() << "error: --in " << kv->first << ": " << error << "\n";
      return kUsageError;
    }
    if (array->shape.size() != view->extents.size()) {
      llvm::errs() << "error: --in " << kv->first << ": " << kv->second << " has rank " << array->shape.size()
                   << ", view '" << kv->first << "' has rank " << view->extents.size() << "\n";
      return kUsageError;
    }
    for (auto [axis, extent] : llvm::enumerate(view->extents)) {
      int64_t size = array->shape[axis];
      if (auto fixed = dyn_cast<IntegerAttr>(extent)) {
        if (fixed.getInt() != size) {
          llvm::errs() << "error: --in " << kv->first << ": axis " << axis << " must have extent " << fixed.getInt()
                       << ", " << kv->second << " has " << size << "\n";
          return kUsageError;
        }
        continue;
      }
      StringRef symbol = cast<StringAttr>(extent).getValue();
      auto [it, inserted] = extentValues.try_emplace(symbol, size);
      if (!inserted && it->second != size) {
        llvm::errs() << "error: --in " << kv->first << ": axis " << axis << " is extent '" << symbol << "' = "
                     << it->second << " elsewhere, " << kv->second << " has " << size << "\n";
        return kUsageError;
      }
    }
    supplied[kv->first] = std::make_unique<interp::HostArray>(std::move(*array));
  }
  llvm::StringMap<std::string> scalarValues, rangeValues;
  for (const std::string &text : scalars) {
    auto kv = splitAssignment(text, "scalar");
    if (!kv)
      return kUsageError;
    scalarValues[kv->first] = kv->second;
  }
  for (const std::string &text : ranges) {
    auto kv = splitAssignment(text, "range");
    if (!kv)
      return kUsageError;
    rangeValues[kv->first] = kv->second;
  }

  std::mt19937_64 rng(seed);
  std::vector<std::unique_ptr<interp::HostArray>> arrays;
  SmallVector<interp::Argument> args;
  SmallVector<std::pair<std::string, interp::HostArray *>> outputs;
  for (auto [i, type] : llvm::enumerate(kernel.getArgumentTypes())) {
    std::string name = argumentName(kernel, i);
    interp::Argument arg;
    if (isa<pgpu::BufferType>(type)) {
      args.push_back(arg); // invocation workspace: the runtime allocates it
      continue;
    }
    if (std::optional<ViewInfo> view = viewInfo(type)) {
      SmallVector<int64_t> shape;
      for (Attribute extent : view->extents) {
        if (auto fixed = dyn_cast<IntegerAttr>(extent)) {
          shape.push_back(fixed.getInt());
          continue;
        }
        StringRef symbol = cast<StringAttr>(extent).getValue();
        auto it = extentValues.find(symbol);
        if (it == extentValues.end()) {
          llvm::errs() << "error: missing extent for '" << symbol << "' (view '" << name << "'); pass --shape "
                       << symbol << "=N\n";
          return kUsageError;
        }
        shape.push_back(it->second);
      }
      if (auto given = supplied.find(name); given != supplied.end()) {
        if (view->mode != kir::ViewMode::In)
          outputs.push_back({name, given->second.get()});
        arg.view = given->second.get();
        arrays.push_back(std::move(given->second));
        args.push_back(arg);
        continue;
      }
      // The interpreters' element cap, checked before allocating (an extent of 2^31 ended in LLVM's out
      // of memory, 2^63 - 1 in an uncaught std::length_error): located at the view's argument.
      if (interp::HostArray::checkedElements(shape) < 0) {
        emitError(kernel.getArgument(i).getLoc())
            << "view '" << name << "' " << interp::HostArray::tooLarge(shape) << " (from --shape)";
        return kUsageError;
      }
      auto array = std::make_unique<interp::HostArray>(interp::HostArray::contiguous(view->elementType, shape));
      std::optional<std::pair<int64_t, int64_t>> range;
      std::string rangeText;
      if (auto it = rangeValues.find(name); it != rangeValues.end()) {
        rangeText = it->second;
      } else if (auto attr = kernel.getArgAttrOfType<ArrayAttr>(i, "kir.range"); attr && attr.size() == 2) {
        auto bound = [](Attribute a) {
          if (auto s = dyn_cast<StringAttr>(a)) return s.str();
          return std::to_string(cast<IntegerAttr>(a).getInt());
        };
        rangeText = bound(attr[0]) + ":" + bound(attr[1]);
      }
      if (!rangeText.empty()) {
        auto [lo, hi] = llvm::StringRef(rangeText).split(':');
        std::optional<int64_t> l = parseBound(lo, extentValues), h = parseBound(hi, extentValues);
        if (!l || !h || *h <= *l) {
          llvm::errs() << "error: range of '" << name << "' must be LO:HI with LO < HI, got '" << rangeText << "'\n";
          return kUsageError;
        }
        range = std::make_pair(*l, *h);
      }
      if (view->mode == kir::ViewMode::Out)
        interp::fillPoison(*array);
      else
        interp::fillRandom(*array, rng, range);
      if (view->mode != kir::ViewMode::In)
        outputs.push_back({name, array.get()});
      arg.view = array.get();
      arrays.push_back(std::move(array));
    } else {
      auto it = scalarValues.find(name);
      if (it == scalarValues.end()) {
        llvm::errs() << "error: missing scalar '" << name << "' of type " << type << "; pass --scalar " << name
                     << "=VALUE\n";
        return kUsageError;
      }
      llvm::StringRef text = it->second;
      double f;
      int64_t integer;
      if (isa<FloatType>(type) && !text.getAsDouble(f)) {
        arg.scalar.f = interp::roundToFloat(f, type);
      } else if (type.isIntOrIndex() && !text.getAsInteger(10, integer)) {
        arg.scalar.i = interp::wrapToInteger(integer, type);
      } else {
        llvm::errs() << "error: scalar '" << name << "' expects a " << type << " value, got '" << text << "'\n";
        return kUsageError;
      }
    }
    args.push_back(arg);
  }
  for (const auto &entry : scalarValues) {
    bool known = false;
    for (unsigned i = 0; i < kernel.getNumArguments(); ++i)
      known |= argumentName(kernel, i) == entry.getKey() && kernel.getArgumentTypes()[i].isIntOrIndexOrFloat();
    if (!known) {
      llvm::errs() << "error: kernel @" << kernel.getName() << " has no scalar argument '" << entry.getKey() << "'\n";
      return kUsageError;
    }
  }

  // With --out, the inputs are written too (NAME.in.npy) so that a reference
  // can be computed from exactly what the kernel saw.
  auto writeArray = [&](const interp::HostArray &array, const std::string &fileName) {
    llvm::SmallString<256> path(outDir.getValue());
    llvm::sys::path::append(path, fileName);
    if (interp::writeNpy(array, std::string(path), error))
      return true;
    llvm::errs() << "error: " << error << "\n";
    return false;
  };
  if (!outDir.empty()) {
    if (std::error_code ec = llvm::sys::fs::create_directories(outDir)) {
      llvm::errs() << "error: cannot create " << outDir << ": " << ec.message() << "\n";
      return kUsageError;
    }
    for (auto [i, type] : llvm::enumerate(kernel.getArgumentTypes())) {
      std::optional<ViewInfo> view = viewInfo(type);
      if (view && view->mode != kir::ViewMode::Out &&
          !writeArray(*args[i].view, argumentName(kernel, i) + ".in.npy"))
        return kUsageError;
    }
  }
  if (onDevice) {
    // The provider compiles the pgpu kernel in process and launches it (Provider::launch).
    llvm::StringMap<int64_t> overrides;
    for (const std::string &text : paramsOpt) {
      auto kv = splitAssignment(text, "param");
      int64_t value;
      if (!kv || llvm::StringRef(kv->second).getAsInteger(10, value))
        return kUsageError;
      overrides[kv->first] = value;
    }
    // An untuned call's covering defaults, as the Python call binds them (seed 003 heuristic
    // defaults from facts of the call; python/tessel/_kernel.py `_fact_params`): a parameter declared
    // to cover a shape symbol takes the smallest candidate at least that symbol's extent here, unless
    // --param names it; where none holds it and the parameter counts in passes over its ranges
    // (`passes`), the largest candidate in the fewest passes that cover it (`covering_passes`), and
    // BLOCK_P then gives each program 8 elements per bin it merges (`merged_ownership`).
    if (auto declared = pgpuKernel.getParams())
      for (Attribute a : *declared) {
        auto p = cast<pgpu::ParamAttr>(a);
        auto extent = p.getCovers() ? extentValues.find(p.getCovers().getValue()) : extentValues.end();
        if (extent == extentValues.end() || overrides.count(p.getName().getValue()))
          continue;
        int64_t n = extent->second;
        std::optional<int64_t> fit;
        for (int64_t c : p.getCandidates())
          if (n > 0 && c >= n && (!fit || c < *fit))
            fit = c;
        if (fit && *fit != p.getDefaultValue())
          overrides[p.getName().getValue()] = *fit;
        pgpu::ParamAttr passes = p.getPasses() ? pgpuKernel.getParam(p.getPasses().getValue()) : pgpu::ParamAttr();
        if (!passes || n <= 0 || overrides.count(passes.getName().getValue()))
          continue;
        int64_t tile = fit ? *fit : p.getDefaultValue(), count = passes.getDefaultValue();
        if (!fit && !p.getCandidates().empty()) {
          int64_t top = *llvm::max_element(p.getCandidates()), need = (n + top - 1) / top;
          std::optional<int64_t> fewest, smallest;
          for (int64_t c : passes.getCandidates())
            if (c >= need && (!fewest || c < *fewest))
              fewest = c;
          for (int64_t c : p.getCandidates())
            if (c * need >= n && (!smallest || c < *smallest))
              smallest = c;
          if (fewest && smallest) {
            tile = *smallest, count = *fewest;
            overrides[p.getName().getValue()] = tile;
            overrides[passes.getName().getValue()] = count;
          }
        }
        pgpu::ParamAttr own = pgpuKernel.getParam("BLOCK_P");
        if (!own || overrides.count("BLOCK_P") || n > tile * count)
          continue;
        int64_t want = 8 * std::min(n, (n + tile - 1) / tile * tile);
        if (want <= own.getDefaultValue())
          continue;
        std::optional<int64_t> block;
        for (int64_t c : own.getCandidates())
          if (c >= want && (!block || c < *block))
            block = c;
        overrides["BLOCK_P"] = block ? *block : *llvm::max_element(own.getCandidates());
      }
    for (Operation &op : llvm::make_early_inc_range(module->getBody()->getOperations()))
      if (&op != pgpuKernel.getOperation())
        op.erase();
    switch (provider.launch(*module, pgpuKernel, overrides, args, error)) {
    case tessel::Provider::Launch::Done:
      break;
    case tessel::Provider::Launch::Rejected:
      return kUsageError;
    case tessel::Provider::Launch::Failed:
      llvm::errs() << "error: " << error << "\n";
      return 1;
    }
  } else if (kirKernel) {
    if (failed(interp::runKernel(kirKernel, args, options)))
      return 1;
  } else {
    llvm::StringMap<int64_t> overrides;
    for (const std::string &text : paramsOpt) {
      auto kv = splitAssignment(text, "param");
      int64_t value;
      if (!kv || llvm::StringRef(kv->second).getAsInteger(10, value)) {
        if (kv)
          llvm::errs() << "error: --param " << kv->first << " must be an integer, got '" << kv->second << "'\n";
        return kUsageError;
      }
      overrides[kv->first] = value;
    }
    FailureOr<llvm::StringMap<int64_t>> params = interp::bindParams(pgpuKernel, overrides);
    if (failed(params))
      return kUsageError;
    if (failed(interp::runPGPUKernel(pgpuKernel, args, *params, options)))
      return 1;
  }
  for (auto &[name, array] : outputs) {
    llvm::outs() << name << ": " << interp::describe(*array) << "\n";
    if (!outDir.empty() && !writeArray(*array, name + ".npy"))
      return kUsageError;
  }
  return 0;
}

/// `tessel vjp`: the kernel's reverse-mode derivative (kir-vjp) as KIR text, before any canonical pass,
/// so that it compiles like any kernel written by hand.
int vjpCommand(MLIRContext &context) {
  auto [file, kernelName] = splitSpec(inputSpec);
  KernelInput input;
  if (!input.load(context, file, kernelName, {}))
    return kUsageError;
  OwningOpRef<ModuleOp> &module = input.module;
  PassManager pm(&context);
  if (failed(applyPassManagerCLOptions(pm)))
    return kUsageError;
  kir::KIRVjpOptions options;
  options.wrt.assign(wrtOpt.begin(), wrtOpt.end());
  options.kernelName = kernelName;
  pm.addPass(kir::createKIRVjp(options));
  if (failed(pm.run(*module)))
    return 1;
  std::string error;
  auto output = openOutputFile(outputFile, &error);
  if (!output) {
    llvm::errs() << "error: " << error << "\n";
    return kUsageError;
  }
  // With locations: a later diagnostic about the derived kernel points at the author's line.
  module->print(output->os(), OpPrintingFlags().enableDebugInfo());
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
    llvm::outs() << tessel::versionString() << "\n";
    return 0;
  }
  if (command == "--help" || command == "-h" || command == "help")
    return usage(argv[0]) == kUsageError ? 0 : 1;
  if (command == "tune")
    return tune(argc, argv);
  if (command == "groups") {
    for (const std::string &group : tessel::pipelineGroups())
      llvm::outs() << group << "\n";
    return 0;
  }
  if (command != "compile" && command != "run" && command != "vjp") {
    llvm::errs() << "error: unknown command '" << command << "'\n";
    return usage(argv[0]);
  }
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  cl::HideUnrelatedOptions({&commonOptions, command == "run"   ? &runOptions
                                            : command == "vjp" ? &vjpOptions
                                                               : &compileOptions});
  // Parse the options after the command name, as if it were argv[0].
  std::string toolName = (llvm::Twine(argv[0]) + " " + command).str();
  argv[1] = toolName.data();
  if (!cl::ParseCommandLineOptions(argc - 1, argv + 1, "tessel GPU kernel compiler\n"))
    return kUsageError;
  if (!tessel::lookupProvider(target)) {
    llvm::errs() << "error: --target=" << target << ": no such provider; the providers are "
                 << providerNames(", ") << "\n";
    return kUsageError;
  }

  DialectRegistry registry;
  tessel::registerKernelDialects(registry);
  MLIRContext context(registry);
  // Diagnostics point at the author's source location; a dump of the whole op would bury them.
  context.printOpOnDiagnostic(false);
  context.loadAllAvailableDialects();
  if (command == "run")
    return runCommand(context);
  if (command == "vjp")
    return vjpCommand(context);
  return compile(context);
}
