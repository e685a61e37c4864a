//===- CuTileProvider.cpp - the cuTile provider behind Provider.h ----------===//
//
// cuTile states no capability of Provider.h yet: its legalization
// (CuTileLegalize.cpp) rejects scalar atomics, the acquire/release wait loop
// (pgpu.while) and launch-time workspace extents at the op, its wrapper
// reports no program counts or float launch facts, and tileiras' compile time
// grows with a peeled tile's doubled body. It legalizes inside `emit`, where
// the call's parameter bindings are known.
//
//===----------------------------------------------------------------------===//

#include "tessel/Target/CuTile/CuTile.h"
#include "tessel/Target/Provider.h"

using namespace mlir;

namespace {
class CuTileProvider final : public tessel::Provider {
public:
  llvm::StringRef name() const override { return "cutile"; }
  llvm::StringRef summary() const override { return "cuda.tile Python source"; }
  const tessel::ProviderCapabilities &capabilities() const override {
    static const tessel::ProviderCapabilities none;
    return none;
  }
  llvm::ArrayRef<llvm::StringLiteral> stages() const override {
    static const llvm::StringLiteral names[] = {"source"};
    return names;
  }
  FailureOr<std::string> emit(ModuleOp module, const llvm::StringMap<int64_t> &params,
                              llvm::StringRef stage) const override {
    assert(stage == "source" && "the driver asks only for the stages it lists");
    (void)stage;
    return tessel::cutile::compile(module, params);
  }
};
} // namespace

const tessel::Provider &tessel::cutile::provider() {
  static const CuTileProvider instance;
  return instance;
}
