// COM: docs/ holds the ODS-generated IR and pass references; they must match the .td sources.
// RUN: mlir-tblgen -gen-dialect-doc -dialect=kir -I %tessel_src/include -I %mlir_include %tessel_src/include/tessel/Dialect/KIR/IR/KIROps.td -o %t.kir.md
// RUN: diff %t.kir.md %tessel_src/docs/KIRDialect.md
// RUN: mlir-tblgen -gen-pass-doc -I %tessel_src/include -I %mlir_include %tessel_src/include/tessel/Dialect/KIR/Transforms/Passes.td -o %t.passes.md
// RUN: diff %t.passes.md %tessel_src/docs/KIRPasses.md
// RUN: mlir-tblgen -gen-dialect-doc -dialect=pgpu -I %tessel_src/include -I %mlir_include %tessel_src/include/tessel/Dialect/PGPU/IR/PGPUOps.td -o %t.pgpu.md
// RUN: diff %t.pgpu.md %tessel_src/docs/PGPUDialect.md
// RUN: mlir-tblgen -gen-pass-doc -I %tessel_src/include -I %mlir_include %tessel_src/include/tessel/Dialect/PGPU/Transforms/Passes.td -o %t.pgpu-passes.md
// RUN: diff %t.pgpu-passes.md %tessel_src/docs/PGPUPasses.md
// RUN: mlir-tblgen -gen-pass-doc -I %tessel_src/include -I %mlir_include %tessel_src/include/tessel/Conversion/Passes.td -o %t.conversion.md
// RUN: diff %t.conversion.md %tessel_src/docs/ConversionPasses.md
// RUN: mlir-tblgen -gen-pass-doc -I %tessel_src/include -I %mlir_include %tessel_src/include/tessel/Target/Triton/Passes.td -o %t.triton.md
// RUN: diff %t.triton.md %tessel_src/docs/TritonPasses.md
