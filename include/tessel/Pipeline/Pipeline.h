//===- Pipeline.h - the compilation pipeline, in order ----------*- C++ -*-===//

#ifndef TESSEL_PIPELINE_PIPELINE_H
#define TESSEL_PIPELINE_PIPELINE_H

#include "mlir/Pass/PassManager.h"

namespace tessel {

/// How far `buildPipeline` goes.
enum class Stage { KIR, PGPU, Triton };

/// The canonical pipeline of seed 002 §3 as one straight list. The pass
/// manager verifies the module after every pass, so the shared pgpu verifier
/// runs after each group.
void buildPipeline(mlir::OpPassManager &pm, Stage stage);

} // namespace tessel

#endif // TESSEL_PIPELINE_PIPELINE_H
