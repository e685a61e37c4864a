//===- TritonProvider.cpp - the Triton provider behind Provider.h ----------===//
//
// Triton states every capability of Provider.h: its wrapper evaluates launch
// expressions and float launch facts on the host and reports program counts,
// and Triton spells atomics on global memory, acquire/release hand-offs and
// their wait loops. Its legalization is the pipeline's last group
// (`pgpu-triton-legalize`); the serializer spells the legalized program.
//
//===----------------------------------------------------------------------===//

#include "tessel/Target/Provider.h"
#include "tessel/Target/Triton/Triton.h"

using namespace mlir;

namespace {
class TritonProvider final : public tessel::Provider {
public:
  llvm::StringRef name() const override { return "triton"; }
  llvm::StringRef summary() const override { return "Triton Python source"; }
  const tessel::ProviderCapabilities &capabilities() const override {
    static const tessel::ProviderCapabilities caps = [] {
      tessel::ProviderCapabilities c;
      c.fragmentAtomicAdd = true;      // tl.atomic_add on a pointer tile
      c.scalarWorkspaceAtomics = true; // tl.atomic_add on one pointer
      c.acquireReleaseHandOff = true;  // tl.atomic_* with sem="acquire"/"release", a while loop
      c.launchSizedWorkspace = true;   // the wrapper evaluates pgpu.workspace_extent (hostLaunchExprText)
      c.programCounts = true;          // the wrapper's <kernel>_PROGRAMS
      c.floatLaunchFacts = true;       // the wrapper keys its plans on the float launch fact
      c.peeledTiles = true;            // Triton's compile time bears the doubled body
      c.tileAxisReductions = true;     // tl.sum/tl.max(x, axis=1) of a [ROWS, BLOCK] tile
      c.tileAxisScans = true;          // tl.associative_scan(x, 0, fn) of a [BLOCK_R, BLOCK_C] tile
      return c;
    }();
    return caps;
  }
  bool addLegalization(OpPassManager &pm) const override {
    pm.addPass(tessel::triton::createTritonLegalize());
    return true;
  }
  llvm::ArrayRef<llvm::StringLiteral> stages() const override {
    static const llvm::StringLiteral names[] = {"source"};
    return names;
  }
  FailureOr<std::string> emit(ModuleOp module, const llvm::StringMap<int64_t> &params,
                              llvm::StringRef stage) const override {
    assert(stage == "source" && "the driver asks only for the stages it lists");
    (void)stage;
    // Serialize completely before returning: a rejected program leaves no partial artifact.
    std::string source;
    llvm::raw_string_ostream os(source);
    if (failed(tessel::triton::serializeModule(module, params, os)))
      return failure();
    return source;
  }
};
} // namespace

const tessel::Provider &tessel::triton::provider() {
  static const TritonProvider instance;
  return instance;
}
