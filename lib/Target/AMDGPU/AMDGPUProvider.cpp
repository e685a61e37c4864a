//===- AMDGPUProvider.cpp - the AMDGPU provider behind Provider.h ----------===//
//
// The AMDGPU provider states no capability of Provider.h yet: it shares the
// PTX provider's selector (Selector/Legalize.cpp), which rejects scalar
// atomics, the acquire/release wait loop and launch-time workspace extents at
// the op, and it has no launch wrapper (so no program counts or float launch
// facts). It legalizes inside `emit` (selector::legalize).
//
//===----------------------------------------------------------------------===//

#include "tessel/Target/AMDGPU/AMDGPU.h"
#include "tessel/Target/Provider.h"

using namespace mlir;

namespace {
class AMDGPUProvider final : public tessel::Provider {
public:
  llvm::StringRef name() const override { return "amdgpu"; }
  llvm::StringRef summary() const override { return "AMDGCN for gfx942 emitted in-process"; }
  const tessel::ProviderCapabilities &capabilities() const override {
    static const tessel::ProviderCapabilities none;
    return none;
  }
  llvm::ArrayRef<llvm::StringLiteral> stages() const override {
    // `source` is the ISA as text; `binary` the ELF code object (amdhsa, relocatable).
    static const llvm::StringLiteral names[] = {"device", "llvm", "source", "binary"};
    return names;
  }
  FailureOr<std::string> emit(ModuleOp module, const llvm::StringMap<int64_t> &params,
                              llvm::StringRef stage) const override {
    using tessel::amdgpu::Stage;
    Stage which = llvm::StringSwitch<Stage>(stage)
                      .Case("device", Stage::DeviceIR)
                      .Case("llvm", Stage::LLVMIR)
                      .Case("binary", Stage::CodeObject)
                      .Default(Stage::ISA);
    return tessel::amdgpu::compile(module, params, which);
  }
};
} // namespace

const tessel::Provider &tessel::amdgpu::provider() {
  static const AMDGPUProvider instance;
  return instance;
}
