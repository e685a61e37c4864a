//===- tessel-opt.cpp - MlirOptMain with tessel's dialects and passes ------===//

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include "tessel/Dialect/KIR/IR/KIR.h"
#include "tessel/Dialect/KIR/Transforms/Passes.h"
#include "tessel/Dialect/PGPU/IR/PGPU.h"
#include "tessel/Conversion/Passes.h"
#include "tessel/Dialect/PGPU/Transforms/Passes.h"
#include "tessel/Target/CuTile/CuTile.h"
#include "tessel/Target/AMDGPU/AMDGPU.h"
#include "tessel/Target/PTX/PTX.h"
#include "tessel/Pipeline/Pipeline.h"
#include "tessel/Target/Triton/Triton.h"
#include "tessel/Dialect/Utils/ModulePlacement.h"
#include "tessel/Dialect/Utils/NestingLimit.h"

int main(int argc, char **argv) {
  mlir::registerTransformsPasses();
  tessel::kir::registerKIRPasses();
  tessel::registerConversionPasses();
  tessel::pgpu::registerPGPUPasses();
  tessel::triton::registerTritonPasses();
  tessel::ptx::registerPTXPasses();
  tessel::amdgpu::registerAMDGPUPasses();
  tessel::cutile::registerCuTilePasses();
  tessel::registerPipeline(); // --tessel-pipeline=stop-after=GROUP
  mlir::DialectRegistry registry;
  registry.insert<tessel::kir::KIRDialect, tessel::pgpu::PGPUDialect, mlir::arith::ArithDialect>();
  auto [input, output] = mlir::registerAndParseCLIOptions(argc, argv, "tessel optimizer driver\n", registry);
  // The nesting limit and module placement checks of the tessel driver (NestingLimit.h,
  // ModulePlacement.h), made before MLIR parses; the buffer read here (stdin too) is the one MLIR parses.
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file = mlir::openInputFile(input, &error);
  if (!file) {
    llvm::errs() << error << "\n";
    return 1;
  }
  mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();
  auto refuse = [&](size_t at, const llvm::Twine &message) {
    llvm::SourceMgr sourceMgr;
    const char *start = file->getBufferStart();
    sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
    sourceMgr.PrintMessage(llvm::errs(), llvm::SMLoc::getFromPointer(start + at), llvm::SourceMgr::DK_Error, message);
    return 1;
  };
  size_t at = tessel::findExcessNesting(file->getBuffer());
  if (at != llvm::StringRef::npos)
    return refuse(at, "the input nests deeper than " + std::to_string(tessel::kMaxNesting) +
                          " levels (regions, types, attributes or brackets); tessel refuses it instead of "
                          "exhausting the stack");
  at = tessel::findExcessResultNumber(file->getBuffer());
  if (at != llvm::StringRef::npos)
    return refuse(at, "this use names a result number above " + std::to_string(tessel::kMaxResultNumber) +
                          "; tessel refuses it before parsing (MLIR's parser would reserve that many result slots)");
  at = tessel::findBadDenseArray(file->getBuffer());
  if (at != llvm::StringRef::npos)
    return refuse(at, tessel::kBadDenseArrayMessage);
  // The module placement check (ModulePlacement.h) holds per part of a split input.
  llvm::StringRef marker = config.inputSplitMarker();
  llvm::StringRef rest = file->getBuffer();
  for (size_t offset = 0;;) {
    size_t end = marker.empty() ? llvm::StringRef::npos : rest.find(marker);
    at = tessel::findMisplacedModule(rest.substr(0, end));
    if (at != llvm::StringRef::npos)
      return refuse(offset + at, tessel::kMisplacedModuleMessage);
    if (end == llvm::StringRef::npos)
      break;
    offset += end + marker.size();
    rest = rest.drop_front(end + marker.size());
  }
  std::unique_ptr<llvm::ToolOutputFile> out = mlir::openOutputFile(output, &error);
  if (!out) {
    llvm::errs() << error << "\n";
    return 1;
  }
  if (mlir::failed(mlir::MlirOptMain(out->os(), std::move(file), registry, config)))
    return 1;
  out->keep();
  return 0;
}
