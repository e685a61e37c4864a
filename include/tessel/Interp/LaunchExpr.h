//===- LaunchExpr.h - the one LaunchExpr evaluator --------------*- C++ -*-===//
//
// seed 000 §3.1: program-space extents are typed LaunchExprs over constants,
// bound parameters, ABI scalars and view shape/stride metadata. This is the
// single evaluator: the interpreter forms its grid with it, and launch
// wrappers evaluate the same expressions before the one launch.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_INTERP_LAUNCHEXPR_H
#define TESSEL_INTERP_LAUNCHEXPR_H

#include "tessel/Dialect/PGPU/IR/PGPU.h"
#include "tessel/Interp/Interpreter.h"

#include "llvm/ADT/StringMap.h"

namespace tessel::interp {

/// What a LaunchExpr may read: parameter bindings and the launch arguments.
struct LaunchEnv {
  llvm::StringMap<int64_t> params;
  /// Kernel arguments by block-argument number.
  llvm::ArrayRef<Argument> args;
};

/// Evaluates `value` (which must satisfy pgpu::isLaunchExpr). Fails with a
/// diagnostic at the offending op.
mlir::FailureOr<int64_t> evaluateLaunchExpr(mlir::Value value, const LaunchEnv &env);

/// Parameter bindings: `overrides`, else each declaration's default. Fails on
/// an unknown name or a value outside the candidate domain.
mlir::FailureOr<llvm::StringMap<int64_t>> bindParams(pgpu::KernelOp kernel,
                                                    const llvm::StringMap<int64_t> &overrides);

/// Runs a pgpu kernel: evaluates the grid, enumerates program instances in
/// the selected order, allocates invocation workspace, and reports
/// conflicting non-atomic writes between instances.
mlir::LogicalResult runPGPUKernel(pgpu::KernelOp kernel, llvm::ArrayRef<Argument> args,
                                  const llvm::StringMap<int64_t> &params, const InterpreterOptions &options);

} // namespace tessel::interp

#endif // TESSEL_INTERP_LAUNCHEXPR_H
