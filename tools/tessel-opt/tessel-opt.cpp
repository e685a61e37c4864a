//===- tessel-opt.cpp - MlirOptMain with tessel's dialects and passes ------===//

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

#include "tessel/Dialect/KIR/IR/KIR.h"
#include "tessel/Dialect/KIR/Transforms/Passes.h"
#include "tessel/Dialect/PGPU/IR/PGPU.h"
#include "tessel/Conversion/Passes.h"
#include "tessel/Dialect/PGPU/Transforms/Passes.h"
#include "tessel/Pipeline/Pipeline.h"
#include "tessel/Target/Triton/Triton.h"

int main(int argc, char **argv) {
  mlir::registerTransformsPasses();
  tessel::kir::registerKIRPasses();
  tessel::registerConversionPasses();
  tessel::pgpu::registerPGPUPasses();
  tessel::triton::registerTritonPasses();
  tessel::registerPipeline(); // --tessel-pipeline=stop-after=GROUP
  mlir::DialectRegistry registry;
  registry.insert<tessel::kir::KIRDialect, tessel::pgpu::PGPUDialect, mlir::arith::ArithDialect>();
  return mlir::asMainReturnCode(mlir::MlirOptMain(argc, argv, "tessel optimizer driver\n", registry));
}
