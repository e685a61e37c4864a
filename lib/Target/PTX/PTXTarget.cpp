//===- PTXTarget.cpp - the PTX target of the shared selector --------------===//
//
// What the NVIDIA target decides for the selector (Selector.h): 32-lane
// warps, THREADS in [32 ... 1024], 48 KiB of static shared memory per CTA,
// and PTX's approximate math instructions (ex2.approx, lg2.approx,
// rsqrt.approx, sin/cos.approx, tanh.approx) through `nvvm` intrinsics:
// convert-gpu-to-nvvm would turn the generic ones into libdevice calls.
//
//===----------------------------------------------------------------------===//

#include "tessel/Target/PTX/PTX.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace tessel;

namespace {
constexpr int64_t kThreadCandidates[] = {32, 64, 128, 256, 512, 1024};

class PTXTarget final : public selector::DeviceTarget {
public:
  StringRef name() const override { return "PTX"; }
  StringRef provider() const override { return "ptx"; }
  StringRef library() const override { return "libdevice"; }
  StringRef groupWord() const override { return "CTA"; }
  int64_t warpSize() const override { return 32; }
  ArrayRef<int64_t> threadCandidates() const override { return kThreadCandidates; }
  int64_t sharedMemoryBytes() const override { return 48 * 1024; }
  // sm_90's opt-in limit (227 KiB a CTA): the launcher sets the kernel's dynamic size from the
  // bytes its extern array's name states (Selector.h, kDynamicSharedSuffix).
  int64_t dynamicSharedMemoryBytes() const override { return 232448; }
  // One guard: a row kernel's single-pass and multi-pass bodies become two kernels, so ptxas sizes
  // registers for the one a launch runs (the multi-pass loop's hoisted addresses cost 30 and more
  // per thread). Each further guard would double the compile time of the largest kernels again.
  unsigned launchGuards() const override { return 1; }
  /// LLVM 22's NVPTX backend spells an atomicrmw as a relaxed `atom` whatever its order (cmpxchg and
  /// atomic loads and stores keep theirs: llc -mcpu=sm_90 gives `atom.global.add.u32` for
  /// `atomicrmw add ... acq_rel`), so the ticket's acq_rel is spelled as fences: fence.acq_rel.gpu
  /// before the increment (a release pattern covering what the barrier ordered before it) and after
  /// it (the acquire the last CTA's reads follow, through the barrier that publishes the flag). The
  /// Triton provider's tl.atomic_add(sem='acq_rel') is the same sequence (MEMBAR.GPU, ATOMG, CCTL.IVALL).
  void fenceTicket(OpBuilder &b, Location loc, bool acquire) const override {
    LLVM::FenceOp::create(b, loc, acquire ? LLVM::AtomicOrdering::acquire : LLVM::AtomicOrdering::release, "device");
  }

  Value approximate(OpBuilder &b, Location loc, kir::UnaryKind kind, Value x) const override {
    Type f32 = b.getF32Type();
    auto call = [&](StringRef name, LLVM::FastmathFlags flags = LLVM::FastmathFlags::none) {
      if (flags == LLVM::FastmathFlags::none)
        return LLVM::CallIntrinsicOp::create(b, loc, f32, b.getStringAttr(name), x).getResult(0);
      return LLVM::CallIntrinsicOp::create(b, loc, TypeRange{f32}, b.getStringAttr(name), ValueRange{x},
                                           LLVM::FastmathFlagsAttr::get(b.getContext(), flags))
          .getResult(0);
    };
    switch (kind) {
    case kir::UnaryKind::Exp2: return call("llvm.nvvm.ex2.approx.f32");
    case kir::UnaryKind::Log2: return call("llvm.nvvm.lg2.approx.f");
    case kir::UnaryKind::Rsqrt: return call("llvm.nvvm.rsqrt.approx.f");
    case kir::UnaryKind::Sin: return call("llvm.nvvm.sin.approx.f");
    case kir::UnaryKind::Cos: return call("llvm.nvvm.cos.approx.f");
    // llvm.tanh with `afn` (approximate functions allowed) is NVPTX's tanh.approx.f32 (sm_75+).
    case kir::UnaryKind::Tanh: return call("llvm.tanh.f32", LLVM::FastmathFlags::afn);
    default: llvm_unreachable("no approximate PTX instruction for this kind");
    }
  }
};

/// `tessel-opt -pgpu-ptx-legalize`: legalization as a pass, for lit (bound defaults, no overrides).
struct PTXLegalizePass : public PassWrapper<PTXLegalizePass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PTXLegalizePass)
  StringRef getArgument() const override { return "pgpu-ptx-legalize"; }
  StringRef getDescription() const override {
    return "Declare the PTX provider's THREADS parameter and reject, at the op, what the PTX selector cannot "
           "express (seed 004)";
  }
  void runOnOperation() override {
    if (failed(ptx::legalize(getOperation(), {})))
      signalPassFailure();
  }
};
} // namespace

const selector::DeviceTarget &ptx::target() {
  static const PTXTarget instance;
  return instance;
}

FailureOr<llvm::StringMap<llvm::StringMap<int64_t>>> ptx::legalize(ModuleOp module,
                                                                     const llvm::StringMap<int64_t> &overrides) {
  return selector::legalize(module, target(), overrides);
}

void ptx::registerPTXPasses() { PassRegistration<PTXLegalizePass>(); }
