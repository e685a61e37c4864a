//===- KernelFixture.h - a test fixture that parses one pgpu kernel -*- C++ -*-===//

#ifndef TESSEL_UNITTESTS_TRITON_KERNELFIXTURE_H
#define TESSEL_UNITTESTS_TRITON_KERNELFIXTURE_H

#include "tessel/Dialect/PGPU/IR/PGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include <gtest/gtest.h>

namespace tessel::testing {

/// Parses a module of pgpu (and arith) text and hands out its first kernel; the module lives as long
/// as the test.
struct KernelFixture : ::testing::Test {
  KernelFixture() { context.loadDialect<pgpu::PGPUDialect, mlir::arith::ArithDialect>(); }
  pgpu::KernelOp parse(const char *text) {
    module = mlir::parseSourceString<mlir::ModuleOp>(text, mlir::ParserConfig(&context));
    return module ? *module->getOps<pgpu::KernelOp>().begin() : pgpu::KernelOp();
  }
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

} // namespace tessel::testing

#endif // TESSEL_UNITTESTS_TRITON_KERNELFIXTURE_H
