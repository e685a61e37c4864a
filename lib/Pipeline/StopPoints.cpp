//===- StopPoints.cpp - named stop points of the pipeline ------------------===//
//
// The groups of `buildPipeline` are read from the pipeline itself (it is built
// once with a recording stop point), so tools and tests that stop after a group
// share the one definition instead of copying its pass list.
//
//===----------------------------------------------------------------------===//

#include "tessel/Pipeline/Pipeline.h"

#include "tessel/Target/Provider.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;

bool tessel::StopAfter::operator()(llvm::StringRef name) const {
  if (seen)
    seen->push_back(name.str());
  return !group.empty() && name == group;
}

std::vector<std::string> tessel::pipelineGroups(const Provider *provider) {
  std::vector<std::string> names;
  StopAfter recorder;
  recorder.seen = &names;
  OpPassManager pm(ModuleOp::getOperationName());
  buildPipeline(pm, provider ? provider : &defaultProvider(), recorder);
  return names;
}

namespace {
struct PipelineOptions : public PassPipelineOptions<PipelineOptions> {
  Option<std::string> stopAfter{*this, "stop-after",
                                llvm::cl::desc("stop after this pass group (see `tessel groups`); "
                                               "default: the whole pipeline")};
  Option<std::string> provider{*this, "provider",
                               llvm::cl::desc("the provider whose capabilities and legalization the pipeline "
                                              "takes (Target/Provider.h); default: the default provider")};
};
} // namespace

void tessel::registerPipeline() {
  registerPassPipeline(
      "tessel-pipeline", "tessel's pipeline (seed 002 §3), to a provider's legal program or a group's end",
      [](OpPassManager &pm, llvm::StringRef text, llvm::function_ref<LogicalResult(const llvm::Twine &)> error) {
        PipelineOptions options;
        if (failed(options.parseFromString(text)))
          return failure();
        const Provider *provider = &defaultProvider();
        if (!options.provider.empty() && !(provider = lookupProvider(options.provider))) {
          std::vector<std::string> names;
          for (const Provider *p : providers())
            names.push_back(p->name().str());
          return error("tessel-pipeline: no provider '" + options.provider + "'; the providers are " +
                       llvm::join(names, ", "));
        }
        std::vector<std::string> groups = pipelineGroups(provider);
        if (!options.stopAfter.empty() && !llvm::is_contained(groups, options.stopAfter.getValue()))
          return error("tessel-pipeline: no pass group '" + options.stopAfter + "'; the groups are " +
                       llvm::join(groups, ", "));
        buildPipeline(pm, provider, StopAfter(options.stopAfter));
        return success();
      },
      [](llvm::function_ref<void(const detail::PassOptions &)> handler) { handler(PipelineOptions()); });
}
