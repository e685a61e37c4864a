//===- Pipeline.h - the compilation pipeline, in order ----------*- C++ -*-===//

#ifndef TESSEL_PIPELINE_PIPELINE_H
#define TESSEL_PIPELINE_PIPELINE_H

#include "mlir/Pass/PassManager.h"

#include <string>
#include <vector>

namespace tessel {

class Provider;

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
  friend std::vector<std::string> pipelineGroups(const Provider *provider);
  std::string group;
  std::vector<std::string> *seen = nullptr;
};

/// The canonical pipeline of seed 002 §3 as one straight list, for `provider`:
/// a pass that forms a program only some providers spell runs when the
/// provider states the capability it needs (Target/Provider.h), and the
/// provider's legalization, if it has one in the pipeline, ends it (the group
/// `<name>-legalize`). Without a provider it ends at the provider-neutral
/// program (`realize-folds`: what the interpreters run and `--emit=pgpu`
/// prints). The pass manager verifies the module after every pass, so the
/// shared pgpu verifier runs after each group.
void buildPipeline(mlir::OpPassManager &pm, const Provider *provider, const StopAfter &stopAfter = StopAfter());

/// The pass groups of `buildPipeline` for `provider` (the default provider when null) in order: the
/// names `StopAfter` takes.
std::vector<std::string> pipelineGroups(const Provider *provider = nullptr);

/// Registers the pipeline as `tessel-pipeline{stop-after=GROUP provider=NAME}` (tessel-opt; the
/// default provider when no name is given).
void registerPipeline();

} // namespace tessel

#endif // TESSEL_PIPELINE_PIPELINE_H
