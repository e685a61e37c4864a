//===- TesselCompiler.cpp - the compiler as a CPython extension module ----===//
//
// `_tessel_compiler.compile(kir, emit=..., target=..., params=[...])` runs
// tessel::compileKernel (lib/Driver, the function `tessel compile` runs) on KIR
// text in this process and returns the printed stage with the diagnostics, as
// text (what the binary would write to stderr, byte for byte) and as data
// (severity, file, line, column, message, notes). No temporary file, no
// subprocess (issue 46 item 2; python/tessel/_in_process.py uses it).
//
// One MLIRContext per call, created and destroyed inside it: MLIRContext is
// not safe to mutate from two threads, and the tracer may compile from
// several (the tuner's threads), so no context is ever shared. A call
// releases the GIL while it compiles, so calls on different threads run in
// parallel; the context's own thread pool is off (a compile is one module of
// one kernel: nothing to run in parallel inside it, and no pool to start).
// A fresh context per call also keeps every compile independent of the ones
// before it, as each run of the binary is. Creating one costs little beside
// the pipeline (docs/launching.md "The compiler in process").
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include "tessel/Driver/Compile.h"
#include "tessel/Pipeline/Pipeline.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <vector>

namespace nb = nanobind;
using namespace mlir;

namespace {

/// One diagnostic as data: its severity ("error", "warning", "remark", "note"), the first file
/// location inside its location (file "" and line 0 when it has none) and its message.
struct DiagnosticRecord {
  std::string severity, file;
  unsigned line = 0, col = 0;
  std::string message;
  std::vector<DiagnosticRecord> notes;
};

struct CompileResult {
  /// What the binary would exit with: 0, or tessel::kUsageError.
  int exitCode = 0;
  /// The printed stage (empty on failure); bytes for --emit=binary.
  std::string output;
  bool binary = false;
  /// What the binary would write to stderr: the diagnostics as SourceMgrDiagnosticHandler prints them
  /// (source line and caret included) and the request's own `error: ...` lines, in order.
  std::string stderrText;
  std::vector<DiagnosticRecord> diagnostics;
};

llvm::StringRef severityName(DiagnosticSeverity severity) {
  switch (severity) {
  case DiagnosticSeverity::Error: return "error";
  case DiagnosticSeverity::Warning: return "warning";
  case DiagnosticSeverity::Remark: return "remark";
  case DiagnosticSeverity::Note: return "note";
  }
  llvm_unreachable("every severity has a name");
}

DiagnosticRecord record(mlir::Diagnostic &diag) {
  DiagnosticRecord d;
  d.severity = severityName(diag.getSeverity()).str();
  d.message = diag.str();
  // The first file position inside the location (a fused, call-site or named location wraps the
  // author's file:line:col), as the printed diagnostic shows it.
  diag.getLocation()->walk([&](Location loc) {
    if (auto file = dyn_cast<FileLineColLoc>(loc)) {
      d.file = file.getFilename().str();
      d.line = file.getLine();
      d.col = file.getColumn();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  for (mlir::Diagnostic &note : diag.getNotes())
    d.notes.push_back(record(note));
  return d;
}

CompileResult compile(const std::string &kir, const tessel::CompileRequest &request, const std::string &bufferName) {
  DialectRegistry registry;
  tessel::registerKernelDialects(registry);
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  // As the binary: diagnostics point at the author's source location; a dump of the op would bury them.
  context.printOpOnDiagnostic(false);
  context.loadAllAvailableDialects();

  CompileResult result;
  llvm::raw_string_ostream errors(result.stderrText);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(kir, bufferName), llvm::SMLoc());
  SourceMgrDiagnosticHandler printer(sourceMgr, &context, errors);
  // Handlers run newest first: this one records each diagnostic and passes it on to the printer.
  context.getDiagEngine().registerHandler([&](mlir::Diagnostic &diag) {
    result.diagnostics.push_back(record(diag));
    return failure();
  });
  FailureOr<std::string> text = tessel::compileKernel(context, sourceMgr, request, errors);
  if (failed(text)) {
    result.exitCode = tessel::kUsageError;
  } else {
    result.output = std::move(*text);
    result.binary = request.emit == "binary";
  }
  return result;
}

} // namespace

NB_MODULE(_tessel_compiler, m) {
  m.doc() = "The tessel compiler in process: tessel::compileKernel on KIR text (python/tessel/_in_process.py).";

  nb::class_<DiagnosticRecord>(m, "Diagnostic")
      .def_ro("severity", &DiagnosticRecord::severity)
      .def_ro("file", &DiagnosticRecord::file)
      .def_ro("line", &DiagnosticRecord::line)
      .def_ro("col", &DiagnosticRecord::col)
      .def_ro("message", &DiagnosticRecord::message)
      .def_ro("notes", &DiagnosticRecord::notes)
      .def("__repr__", [](const DiagnosticRecord &d) {
        return d.file + ":" + std::to_string(d.line) + ":" + std::to_string(d.col) + ": " + d.severity + ": " +
               d.message;
      });

  nb::class_<CompileResult>(m, "CompileResult")
      .def_ro("exit_code", &CompileResult::exitCode)
      .def_prop_ro("output",
                   [](const CompileResult &r) -> nb::object {
                     if (r.binary)
                       return nb::bytes(r.output.data(), r.output.size());
                     return nb::str(r.output.data(), r.output.size());
                   })
      .def_ro("stderr", &CompileResult::stderrText)
      .def_ro("diagnostics", &CompileResult::diagnostics);

  m.def(
      "compile",
      [](const std::string &kir, const std::string &emit, const std::string &target,
         const std::vector<std::string> &params, const std::string &numerics, const std::string &onlineReduction,
         bool remarks, const std::string &kernel, const std::string &bufferName) {
        tessel::CompileRequest request;
        request.emit = emit;
        request.target = target;
        request.params = params;
        request.numerics = numerics;
        request.onlineReduction = onlineReduction;
        request.remarks = remarks;
        request.kernelName = kernel;
        request.fileName = bufferName;
        nb::gil_scoped_release release; // the compile touches no Python object
        return compile(kir, request, bufferName);
      },
      nb::arg("kir"), nb::arg("emit") = "source", nb::arg("target") = "",
      nb::arg("params") = std::vector<std::string>(), nb::arg("numerics") = "", nb::arg("online_reduction") = "",
      nb::arg("remarks") = false, nb::arg("kernel") = "",
      nb::arg("buffer_name") = "<kir>",
      "Compiles KIR text as `tessel compile --emit=EMIT --target=TARGET --param=P...` would: a CompileResult "
      "(exit_code, output, stderr, diagnostics).");

  m.def("version", &tessel::versionString, "`tessel --version`'s line.");
  m.def("groups", [] { return tessel::pipelineGroups(); }, "The pipeline's pass groups, as `tessel groups`.");
}
