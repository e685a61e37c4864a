//===- Pipeline.h - the compilation pipeline, in order ----------*- C++ -*-===//

#ifndef TESSEL_PIPELINE_PIPELINE_H
#define TESSEL_PIPELINE_PIPELINE_H

#include "mlir/Pass/PassManager.h"

#include <string>
#include <vector>

namespace tessel {

/// How far `buildPipeline` goes.
enum class Stage { KIR, PGPU, Triton };

/// A stop point inside `buildPipeline`: each pass group ends with
/// `if (stopAfter("group")) return;`, which is true for the group this names.
/// The default never stops. `pipelineGroups()` lists the names by building the
/// pipeline once and recording every question.
class StopAfter {
public:
  StopAfter() = default;
  explicit StopAfter(llvm::StringRef group) : group(group.str()) {}
  bool operator()(llvm::StringRef name) const;

private:
  friend std::vector<std::string> pipelineGroups();
  std::string group;
  std::vector<std::string> *seen = nullptr;
};

/// The canonical pipeline of seed 002 §3 as one straight list. The pass
/// manager verifies the module after every pass, so the shared pgpu verifier
/// runs after each group.
void buildPipeline(mlir::OpPassManager &pm, Stage stage, const StopAfter &stopAfter = StopAfter());

/// The pass groups of `buildPipeline` in order: the names `StopAfter` takes.
std::vector<std::string> pipelineGroups();

/// Registers the pipeline as `tessel-pipeline{stop-after=GROUP}` (tessel-opt).
void registerPipeline();

} // namespace tessel

#endif // TESSEL_PIPELINE_PIPELINE_H
