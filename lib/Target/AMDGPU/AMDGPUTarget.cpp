//===- AMDGPUTarget.cpp - the AMDGPU target of the shared selector --------===//
//
// What gfx942 decides for the selector (Selector.h): 64-lane wavefronts,
// THREADS in [64 ... 1024], 64 KiB of LDS per workgroup, and math through
// LLVM intrinsics the AMDGPU backend selects itself (convert-gpu-to-rocdl
// would turn `math` ops into ocml calls, which are not linked): exp2 and log2
// are v_exp_f32/v_log_f32 with the backend's denormal scaling, rsqrt is
// v_rsq_f32, sin/cos are v_sin_f32/v_cos_f32 on the argument in revolutions.
// tanh has no instruction: {approximate} tanh is a short exp2 sequence.
//
//===----------------------------------------------------------------------===//

#include "tessel/Target/AMDGPU/AMDGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Pass/Pass.h"

#include <cmath>

using namespace mlir;
using namespace tessel;

namespace {
constexpr int64_t kThreadCandidates[] = {64, 128, 256, 512, 1024};

class AMDGPUTarget final : public selector::DeviceTarget {
public:
  StringRef name() const override { return "AMDGPU"; }
  StringRef provider() const override { return "amdgpu"; }
  StringRef library() const override { return "the ROCm device libraries (ocml)"; }
  StringRef groupWord() const override { return "workgroup"; }
  int64_t warpSize() const override { return 64; }
  ArrayRef<int64_t> threadCandidates() const override { return kThreadCandidates; }
  int64_t sharedMemoryBytes() const override { return 64 * 1024; }

  Value approximate(OpBuilder &b, Location loc, kir::UnaryKind kind, Value x) const override {
    Type f32 = b.getF32Type();
    auto call = [&](StringRef name, ValueRange args) {
      return LLVM::CallIntrinsicOp::create(b, loc, f32, b.getStringAttr(name), args).getResult(0);
    };
    auto f = [&](double c) { return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(float(c))).getResult(); };
    switch (kind) {
    case kir::UnaryKind::Exp2: return call("llvm.exp2.f32", x);
    case kir::UnaryKind::Log2: return call("llvm.log2.f32", x);
    case kir::UnaryKind::Rsqrt: return call("llvm.amdgcn.rsq.f32", x);
    case kir::UnaryKind::Sin: return call("llvm.sin.f32", x);
    case kir::UnaryKind::Cos: return call("llvm.cos.f32", x);
    case kir::UnaryKind::Tanh: {
      // tanh |x| = (1 - e) / (1 + e), e = 2^(-2 log2(e) |x|), with the sign of x; below 2^-12 the
      // cancellation in 1 - e costs more than tanh x = x (relative error x^2 / 3 < 2^-25), so x.
      Value a = call("llvm.fabs.f32", x);
      Value e = call("llvm.exp2.f32", arith::MulFOp::create(b, loc, a, f(-2.0 * M_LOG2E)).getResult());
      Value t = arith::DivFOp::create(b, loc, arith::SubFOp::create(b, loc, f(1.0), e),
                                      arith::AddFOp::create(b, loc, f(1.0), e));
      Value withSign = call("llvm.copysign.f32", ValueRange{t, x});
      Value tiny = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, a, f(std::ldexp(1.0, -12)));
      return arith::SelectOp::create(b, loc, tiny, x, withSign);
    }
    default: llvm_unreachable("no approximate AMDGPU instruction for this kind");
    }
  }

  /// The workgroups of the launch, from the HSA kernel dispatch packet (ockl's
  /// __ockl_get_num_groups, which convert-gpu-to-rocdl would call, is not linked): grid_size_x
  /// (work-items, offset 12) over workgroup_size_x (offset 4), rounded up.
  Value programCount(OpBuilder &b, Location loc) const override {
    MLIRContext *ctx = b.getContext();
    auto constant = LLVM::LLVMPointerType::get(ctx, 4);
    Type i8 = b.getI8Type(), i16 = b.getI16Type(), i32 = b.getI32Type();
    Value packet = LLVM::CallIntrinsicOp::create(b, loc, constant, b.getStringAttr("llvm.amdgcn.dispatch.ptr"),
                                                 ValueRange{})
                       .getResult(0);
    auto field = [&](int32_t offset, Type type) -> Value {
      Value p = LLVM::GEPOp::create(b, loc, constant, i8, packet, ArrayRef<LLVM::GEPArg>{offset});
      return LLVM::LoadOp::create(b, loc, type, p, /*alignment=*/type.getIntOrFloatBitWidth() / 8);
    };
    Value group = arith::ExtUIOp::create(b, loc, i32, field(4, i16));
    Value grid = field(12, i32);
    Value count = arith::CeilDivUIOp::create(b, loc, grid, group);
    return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), count);
  }

  /// s_barrier with workgroup-scope fences orders global memory only within the workgroup: the
  /// threads release their writes to the agent before it, and the last workgroup acquires after
  /// its ticket (the HIP memory model's __threadfence()).
  void releaseToDevice(OpBuilder &b, Location loc) const override {
    LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::release, "agent");
  }
  void acquireFromDevice(OpBuilder &b, Location loc) const override {
    LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::acquire, "agent");
  }
};

/// `tessel-opt -pgpu-amdgpu-legalize`: legalization as a pass, for lit (bound defaults, no overrides).
struct AMDGPULegalizePass : public PassWrapper<AMDGPULegalizePass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(AMDGPULegalizePass)
  StringRef getArgument() const override { return "pgpu-amdgpu-legalize"; }
  StringRef getDescription() const override {
    return "Declare the AMDGPU provider's THREADS and VECTOR parameters and reject, at the op, what the AMDGPU "
           "selector cannot express (seed 004)";
  }
  void runOnOperation() override {
    if (failed(tessel::amdgpu::legalize(getOperation(), {})))
      signalPassFailure();
  }
};
} // namespace

const selector::DeviceTarget &tessel::amdgpu::target() {
  static const AMDGPUTarget instance;
  return instance;
}

FailureOr<llvm::StringMap<llvm::StringMap<int64_t>>>
tessel::amdgpu::legalize(ModuleOp module, const llvm::StringMap<int64_t> &overrides) {
  return selector::legalize(module, target(), overrides);
}

void tessel::amdgpu::registerAMDGPUPasses() { PassRegistration<AMDGPULegalizePass>(); }
