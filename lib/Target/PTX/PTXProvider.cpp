//===- PTXProvider.cpp - the PTX provider behind Provider.h ----------------===//
//
// The PTX provider states no capability of Provider.h yet: the shared
// selector (Selector/Legalize.cpp) rejects scalar atomics (pgpu.atomic_rmw),
// the acquire/release wait loop (pgpu.while) and launch-time workspace extents
// at the op, and its wrapper (tessel._ptx) reports no program counts or float
// launch facts. It does select fragment scatter-adds as atomics, but the
// programs pgpu-atomic-partials and pgpu-zero-first form (kept workspace, a
// wait) have not run through it, so `fragmentAtomicAdd` is not stated. It
// legalizes inside `emit` (selector::legalize), where the call's parameter
// bindings are known.
//
//===----------------------------------------------------------------------===//

#include "tessel/Target/PTX/PTX.h"
#include "tessel/Runtime/CudaDriver.h"
#include "tessel/Target/Provider.h"

using namespace mlir;

namespace {
class PTXProvider final : public tessel::Provider {
public:
  llvm::StringRef name() const override { return "ptx"; }
  llvm::StringRef summary() const override { return "PTX emitted in-process"; }
  const tessel::ProviderCapabilities &capabilities() const override {
    static const tessel::ProviderCapabilities none;
    return none;
  }
  llvm::ArrayRef<llvm::StringLiteral> stages() const override {
    // `source` is the PTX itself; `wrapper` the Python module that launches it.
    static const llvm::StringLiteral names[] = {"device", "llvm", "source", "wrapper"};
    return names;
  }
  FailureOr<std::string> emit(ModuleOp module, const llvm::StringMap<int64_t> &params,
                              llvm::StringRef stage) const override {
    using tessel::ptx::Stage;
    Stage which = llvm::StringSwitch<Stage>(stage)
                      .Case("device", Stage::DeviceIR)
                      .Case("llvm", Stage::LLVMIR)
                      .Case("wrapper", Stage::Wrapper)
                      .Default(Stage::PTX);
    return tessel::ptx::compile(module, params, which);
  }
  llvm::StringRef launchDevice() const override { return "cuda"; }
  Launch launch(ModuleOp module, tessel::pgpu::KernelOp kernel, const llvm::StringMap<int64_t> &overrides,
                llvm::ArrayRef<tessel::interp::Argument> args, std::string &error) const override {
    // Through tessel's CUDA runtime (Runtime/CudaDriver.h): the bound parameters size the launch.
    FailureOr<llvm::StringMap<llvm::StringMap<int64_t>>> bound = tessel::ptx::legalize(module, overrides);
    if (failed(bound))
      return Launch::Rejected;
    FailureOr<std::string> ptx = tessel::ptx::compile(module, overrides);
    if (failed(ptx))
      return Launch::Rejected;
    if (!tessel::runtime::launchPTXKernel(kernel, (*bound)[kernel.getSymName()], *ptx, args,
                                          tessel::ptx::target().launchGuards(), error))
      return Launch::Failed;
    return Launch::Done;
  }
};
} // namespace

const tessel::Provider &tessel::ptx::provider() {
  static const PTXProvider instance;
  return instance;
}
