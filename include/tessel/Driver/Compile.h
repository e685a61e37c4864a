//===- Compile.h - the compile entry point of the driver and the module ---===//
//
// `tessel compile` (tools/tessel) and the Python extension module
// (tools/tessel-python, issue 46 item 2) call this one function: parse the
// KIR text, keep the requested kernel, apply the compile options, run the
// pipeline to the requested stage and print it. The binary adds its command
// line (files, MLIR's pass-manager options); the module adds nothing, so the
// two compile one way.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DRIVER_COMPILE_H
#define TESSEL_DRIVER_COMPILE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace mlir {
class DialectRegistry;
class MLIRContext;
class PassManager;
} // namespace mlir

namespace tessel {

/// What `tessel compile` takes besides its input: each field is the command-line option of the same
/// name (`tessel compile --help`).
struct CompileRequest {
  /// --emit: kir | pgpu | device | llvm | source | wrapper | binary.
  std::string emit = "source";
  /// --target: a registered provider's name (Target/Provider.h); empty is the default provider.
  std::string target;
  /// FILE:KERNEL's KERNEL: only that kernel is compiled (one kernel = one launch); empty keeps all.
  std::string kernelName;
  /// The file the kernel came from, for the message about a missing kernel.
  std::string fileName;
  /// --numerics and --online-reduction: override the module's #kir.compile_options when not empty.
  std::string numerics, onlineReduction;
  /// --remarks: print optimization remarks (as diagnostics of remark severity).
  bool remarks = false;
  /// --param NAME=INTEGER, in order (a later one wins).
  std::vector<std::string> params;
};

/// The exit status of a usage error or a rejected program, as `tessel` returns it.
constexpr int kUsageError = 2;

/// `tessel --version`'s line: "tessel 0.1.0 (MLIR 22.x.y)".
std::string versionString();

/// Registers the dialects a kernel module may hold (kir, pgpu, arith).
void registerKernelDialects(mlir::DialectRegistry &registry);

/// Whether `stage` is a value of --emit.
bool isEmitStage(llvm::StringRef stage);

/// Parses the main buffer of `sourceMgr` after the nesting and module-placement checks (their
/// refusals are diagnostics located in the buffer); null when either fails.
mlir::OwningOpRef<mlir::ModuleOp> parseKernelModule(llvm::SourceMgr &sourceMgr, mlir::MLIRContext &context);

/// Applies the request's numerics, onlineReduction and remarks to the module's #kir.compile_options
/// (seed 002 §1: the attribute carries the effective permissions; defaults source/true/false when
/// absent); a bad value is a diagnostic at the module.
mlir::LogicalResult applyCompileOptions(mlir::ModuleOp module, const CompileRequest &request);

/// Compiles the module in the main buffer of `sourceMgr`: parse, keep `request.kernelName`, apply the
/// compile options, run the pipeline to `request.emit` (tessel::buildPipeline for the provider named
/// `request.target`) and print that stage. Diagnostics go to the context's handlers (the caller
/// installs one over `sourceMgr`); errors about the request itself, which have no location, are
/// written to `errors` as `error: ...` lines. `configure` adds the caller's options to the pass
/// manager before the pipeline is built (the binary's --mlir-timing and the like). Returns the
/// printed stage, or failure with the reasons reported (the binary exits with kUsageError).
mlir::FailureOr<std::string> compileKernel(mlir::MLIRContext &context, llvm::SourceMgr &sourceMgr,
                                           const CompileRequest &request, llvm::raw_ostream &errors,
                                           llvm::function_ref<mlir::LogicalResult(mlir::PassManager &)> configure = {});

} // namespace tessel

#endif // TESSEL_DRIVER_COMPILE_H
