//===- LaunchGuards.h - launch guards and their variants -------*- C++ -*-===//
//
// A launch guard is a `pgpu.if` whose condition is a LaunchExpr (seed 000
// §3.1): a fact of the launch, the same for every program. A provider may
// compile one device function per assignment of a kernel's guards, so the
// backend allocates the registers and shared memory of the branch a launch
// takes, not the most over all branches (the Triton provider's constexpr
// guards do the same); its launcher evaluates the conditions on the host and
// launches that variant. The selector, the PTX wrapper and the CUDA runtime
// agree on the guards and the names through these two functions.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DIALECT_PGPU_IR_LAUNCHGUARDS_H
#define TESSEL_DIALECT_PGPU_IR_LAUNCHGUARDS_H

#include "tessel/Dialect/PGPU/IR/PGPU.h"

#include <string>

namespace tessel::pgpu {

/// The launch guards of `kernel`, at most `max`, in pre-order: `pgpu.if` ops whose i1 condition is a
/// LaunchExpr that is not a constant.
llvm::SmallVector<IfOp> launchGuards(KernelOp kernel, unsigned max);

/// The device function of kernel `name` with `count` launch guards where guard i holds iff bit i of
/// `holds` is set: `name` itself without guards, else `name$g` and one digit per guard (guard 0
/// first), a name no DSL or KIR kernel can take.
std::string guardVariant(llvm::StringRef name, unsigned count, unsigned holds);

} // namespace tessel::pgpu

#endif // TESSEL_DIALECT_PGPU_IR_LAUNCHGUARDS_H
