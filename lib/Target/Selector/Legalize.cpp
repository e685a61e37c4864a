//===- Legalize.cpp - selector legalization and limits, for every target --===//
//
// Before selection every parameter is bound (declared defaults, then the
// caller's values), so the selector sees a program whose fragment extents and
// launch configuration are numbers. The provider's own knobs, THREADS
// (threads per workgroup, in the target's domain) and VECTOR, are declared
// here like the Triton provider's WARPS. Every op is then checked against the
// selector's limits; a program with an op outside them is rejected at that op
// with the exact limitation (seed 004), and no artifact is produced.
//
//===----------------------------------------------------------------------===//

#include "tessel/Target/Selector/Selector.h"
#include "tessel/Interp/LaunchExpr.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <set>

using namespace mlir;
using namespace tessel;

namespace {
constexpr int64_t kVectorCandidates[] = {1, 2, 4, 8};
constexpr llvm::StringLiteral kRankIssueTag = "fragments are not selected yet";

/// The largest fragment of the kernel, in elements, at the bound values (`overrides`, else the
/// declared defaults).
int64_t largestFragment(pgpu::KernelOp kernel, const llvm::StringMap<int64_t> &overrides) {
  int64_t largest = 1;
  kernel.walk([&](Operation *op) {
    for (Value v : op->getResults())
      if (auto fragment = dyn_cast<pgpu::FragmentType>(v.getType())) {
        int64_t elements = 1;
        for (Attribute e : fragment.getExtents()) {
          if (auto size = dyn_cast<IntegerAttr>(e))
            elements *= size.getInt();
          else if (auto it = overrides.find(cast<StringAttr>(e).getValue()); it != overrides.end())
            elements *= it->second;
          else if (pgpu::ParamAttr p = kernel.getParam(cast<StringAttr>(e).getValue()))
            elements *= p.getDefaultValue();
        }
        largest = std::max(largest, elements);
      }
  });
  return largest;
}

/// Declares THREADS when absent. Default: 128 (four warps, the Triton provider's default),
/// doubled while the largest fragment at the bound parameters would need more than 32 registers
/// per thread (a 128x128 accumulator gets 512 threads; a row block of 16384 gets 512).
void declareThreads(pgpu::KernelOp kernel, const selector::DeviceTarget &target,
                    const llvm::StringMap<int64_t> &overrides) {
  if (kernel.getParam(selector::kThreadsParam))
    return;
  int64_t threads = 128;
  int64_t largest = largestFragment(kernel, overrides);
  while (threads < 1024 && largest > 32 * threads)
    threads *= 2;
  MLIRContext *ctx = kernel.getContext();
  SmallVector<Attribute> params;
  if (auto declared = kernel.getParams())
    llvm::append_range(params, *declared);
  params.push_back(pgpu::ParamAttr::get(ctx, StringAttr::get(ctx, selector::kThreadsParam), target.threadCandidates(),
                                        threads, StringAttr::get(ctx, target.provider())));
  kernel.setParamsAttr(ArrayAttr::get(ctx, params));
}

/// Declares VECTOR when absent. Default: as many elements as make 16 bytes (one ld.global.v4.b32)
/// of the narrowest element type the kernel reads or writes as a fragment of a view or workspace,
/// at most 8; 1 when it accesses no fragment of memory.
void declareVector(pgpu::KernelOp kernel, const selector::DeviceTarget &target) {
  if (kernel.getParam(selector::kVectorParam))
    return;
  int64_t narrowest = 0;
  kernel.walk([&](Operation *op) {
    Value fragment;
    if (isa<pgpu::LoadOp, pgpu::GatherOp, pgpu::BufferLoadOp>(op))
      fragment = op->getResult(0);
    else if (auto store = dyn_cast<pgpu::StoreOp>(op))
      fragment = store.getValue();
    else if (auto store = dyn_cast<pgpu::BufferStoreOp>(op))
      fragment = store.getValue();
    if (!fragment || !isa<pgpu::FragmentType>(fragment.getType()))
      return;
    Type element = pgpu::elementTypeOf(fragment.getType());
    if (!element.isIntOrFloat())
      return;
    int64_t bytes = std::max<int64_t>(1, element.getIntOrFloatBitWidth() / 8);
    narrowest = narrowest ? std::min(narrowest, bytes) : bytes;
  });
  int64_t vector = narrowest ? std::min<int64_t>(8, std::max<int64_t>(1, 16 / narrowest)) : 1;
  MLIRContext *ctx = kernel.getContext();
  SmallVector<Attribute> params;
  if (auto declared = kernel.getParams())
    llvm::append_range(params, *declared);
  params.push_back(pgpu::ParamAttr::get(ctx, StringAttr::get(ctx, selector::kVectorParam), kVectorCandidates, vector,
                                        StringAttr::get(ctx, target.provider())));
  kernel.setParamsAttr(ArrayAttr::get(ctx, params));
}

/// Keeps the candidates of a histogram's bins parameter (a symbol extent of a `pgpu.histogram`) whose
/// shared count array fits (seed 004: resources are the provider's facts). The selector keeps a loop's
/// counts in one shared array of 4-byte counts (Selector::countArray, rounded to 16 bytes); one too
/// large for the static part goes to dynamic shared memory where the target has it. The rest of the
/// program may take all of the static part (staging and the reductions' arrays), so the array gets
/// what dynamic shared memory adds beyond it, else the static part less the 8 KiB staging reserve:
/// on the PTX target 179 KiB (every candidate up to 32768 bins, 128 KiB), on the AMDGPU target
/// 56 KiB (up to 8192 bins). The call's covering default of HBINS (x HPASSES) picks among these.
void narrowHistogramBins(pgpu::KernelOp kernel, const selector::DeviceTarget &target) {
  int64_t room = target.dynamicSharedMemoryBytes() > target.sharedMemoryBytes()
                     ? target.dynamicSharedMemoryBytes() - target.sharedMemoryBytes()
                     : target.sharedMemoryBytes() - 8 * 1024;
  pgpu::narrowHistogramBins(kernel, [&](int64_t c) { return (c * 4 + 15) / 16 * 16 <= room; },
                            /*keepPasses=*/true);
}

/// View element types the selector loads and stores: LLVM integers and floats
/// (i1 has no memory layout fixed by the ABI; index is not a storage type).
std::optional<std::string> storageIssue(Type element, const selector::DeviceTarget &target) {
  if (element.isInteger(1) || element.isIndex())
    return "views of " + [&] {
      std::string s;
      llvm::raw_string_ostream os(s);
      os << element;
      return s;
    }() + " are not selected (no storage layout in the " + target.name().str() + " ABI)";
  return std::nullopt;
}

bool isTranscendental(kir::UnaryKind kind) {
  using K = kir::UnaryKind;
  return kind == K::Exp || kind == K::Exp2 || kind == K::Log || kind == K::Log2 || kind == K::Rsqrt ||
         kind == K::Sigmoid || kind == K::Sin || kind == K::Cos || kind == K::Tanh || kind == K::Erf ||
         kind == K::Log1p || kind == K::Expm1;
}
} // namespace

std::optional<llvm::StringRef> selector::scatterAtomic(pgpu::ScatterReduceOp op) {
  pgpu::BinaryOp binary = pgpu::singleBinaryCombine(op.getCombine().front());
  if (!binary)
    return std::nullopt;
  Type type = binary.getType();
  bool isFloat = isa<FloatType>(type);
  bool isUnsigned = isa<IntegerType>(type) && cast<IntegerType>(type).isUnsigned();
  using K = kir::BinaryKind;
  switch (binary.getKind()) {
  case K::Add: return isFloat ? llvm::StringRef("fadd") : llvm::StringRef("add");
  case K::Max: case K::MaxNum: if (!isFloat) return isUnsigned ? llvm::StringRef("umax") : llvm::StringRef("max"); break;
  case K::Min: case K::MinNum: if (!isFloat) return isUnsigned ? llvm::StringRef("umin") : llvm::StringRef("min"); break;
  case K::And: return llvm::StringRef("_and");
  case K::Or: return llvm::StringRef("_or");
  case K::Xor: return llvm::StringRef("_xor");
  default: break;
  }
  return std::nullopt;
}

std::optional<std::string> selector::selectionIssue(Operation *op, const DeviceTarget &target) {
  std::string name = target.name().str(), library = target.library().str();
  // 8-bit floats have no LLVM type: the selector would need explicit conversions (not yet).
  auto narrowFloat = [](Type t) {
    Type e = pgpu::elementTypeOf(t);
    return isa<FloatType>(e) && e.getIntOrFloatBitWidth() < 16;
  };
  if (llvm::any_of(op->getResultTypes(), narrowFloat) || llvm::any_of(op->getOperandTypes(), narrowFloat))
    return std::string("8-bit float values are not selected yet (no LLVM type; conversions through i8 are "
                       "the next step)");
  // Fragments of any rank are flattened row-major over the workgroup (Selector.h); arg-reductions and
  // scans run along rank-1 fragments only.
  if (isa<pgpu::ArgReduceOp, pgpu::ScanOp>(op))
    if (auto fragment = dyn_cast<pgpu::FragmentType>(op->getOperand(0).getType()); fragment && fragment.getRank() != 1)
      return "rank-" + std::to_string(fragment.getRank()) + " " + kRankIssueTag.str() +
             " for this op (it runs along rank-1 fragments)";
  return llvm::TypeSwitch<Operation *, std::optional<std::string>>(op)
      .Case([](arith::ConstantOp c) -> std::optional<std::string> {
        if (!c.getType().isIntOrIndexOrFloat())
          return std::string("only scalar integer and float constants are selected");
        return std::nullopt;
      })
      .Case<pgpu::KernelOp, pgpu::ParamOp, pgpu::ExtentOp, pgpu::StrideOp, pgpu::CeilDivOp, pgpu::ProgramSpaceOp,
            pgpu::ExecutionGroupOp, pgpu::DelinearizeOp, pgpu::ForOp, pgpu::IfOp, pgpu::YieldOp, pgpu::ReturnOp,
            pgpu::CmpOp, pgpu::SelectOp, pgpu::IotaOp, pgpu::SplatOp, pgpu::ExtractOp, pgpu::ReduceOp,
            pgpu::ArgReduceOp, pgpu::ScanOp, pgpu::BroadcastOp, pgpu::RangeReduceOp, pgpu::ForeachOp,
            pgpu::BufferLoadOp, pgpu::BufferStoreOp>([](Operation *) { return std::nullopt; })
      .Case([&](pgpu::ScatterReduceOp o) -> std::optional<std::string> {
        if (!selector::scatterAtomic(o))
          return "the combine is not one " + name +
                 " atomic (an add, or an integer min/max/and/or/xor, of its two arguments)";
        return storageIssue(pgpu::elementTypeOf(o.getValue().getType()), target);
      })
      .Case<pgpu::LastProgramOp>([](Operation *) { return std::nullopt; })
      .Case([](pgpu::HistogramOp h) -> std::optional<std::string> {
        if (cast<pgpu::FragmentType>(h.getInput().getType()).getRank() != 1)
          return std::string("a histogram of a rank-1 fragment only");
        return std::nullopt;
      })
      .Case([](pgpu::RegionFoldOp f) -> std::optional<std::string> {
        for (Value v : f.getIdentities())
          if (!v.getType().isIntOrIndexOrFloat())
            return std::string("a region_fold state of fragments is not selected yet (scalar states only)");
        return std::nullopt;
      })
      .Case([](pgpu::CastOp c) -> std::optional<std::string> {
        Type from = pgpu::elementTypeOf(c.getOperand().getType()), to = pgpu::elementTypeOf(c.getType());
        for (Type t : {from, to})
          if (isa<FloatType>(t) && !t.isF16() && !t.isBF16() && !t.isF32() && !t.isF64())
            return std::string("casts of 8-bit floats are not selected yet");
        return std::nullopt;
      })
      .Case([](pgpu::BitcastOp c) -> std::optional<std::string> {
        Type from = pgpu::elementTypeOf(c.getOperand().getType()), to = pgpu::elementTypeOf(c.getType());
        if (from.isIndex() || to.isIndex())
          return std::string("bitcasts of index are not selected");
        return std::nullopt;
      })
      .Case([&](pgpu::BinaryOp o) -> std::optional<std::string> {
        Type type = pgpu::elementTypeOf(o.getType());
        using K = kir::BinaryKind;
        if (o.getKind() == K::Pow)
          return "'pow' needs " + library + ", which the in-process " + name + " provider does not link";
        if (isa<FloatType>(type) && o.getKind() == K::Rem)
          return "float 'rem' (fmod) has no exact " + name + " sequence in the selector yet";
        return std::nullopt;
      })
      .Case([&](pgpu::UnaryOp o) -> std::optional<std::string> {
        Type type = pgpu::elementTypeOf(o.getType());
        using K = kir::UnaryKind;
        if (!isa<FloatType>(type) || !isTranscendental(o.getKind()))
          return std::nullopt;
        // {approximate} tanh is the target's approximate sequence (relative error 2^-11, types
        // §5.1; PTX's tanh.approx.f32); the library-precision kinds need the device library.
        if (o.getKind() == K::Tanh && o.getApproximate())
          return std::nullopt;
        if (o.getKind() == K::Tanh || o.getKind() == K::Erf || o.getKind() == K::Log1p || o.getKind() == K::Expm1)
          return "'" + kir::stringifyUnaryKind(o.getKind()).str() + "' needs " + library +
                 ", which the in-process " + name + " provider does not link";
        if ((o.getKind() == K::Sin || o.getKind() == K::Cos) && !o.getApproximate())
          return "'" + kir::stringifyUnaryKind(o.getKind()).str() + "' is selected only with {approximate} (the " + name +
                 " approximate instructions)";
        if (!type.isF32() && !type.isF16() && !type.isBF16())
          return "'" + kir::stringifyUnaryKind(o.getKind()).str() + "' is computed in f32 only (the " + name +
                 " approximate instructions); f64 needs " + library;
        return std::nullopt;
      })
      .Case<pgpu::LoadOp, pgpu::GatherOp>([&](Operation *o) {
        return storageIssue(cast<pgpu::ViewType>(o->getOperand(0).getType()).getElementType(), target);
      })
      .Case([&](pgpu::StoreOp o) {
        return storageIssue(cast<pgpu::ViewType>(o.getView().getType()).getElementType(), target);
      })
      .Case([&](pgpu::ContractOp c) -> std::optional<std::string> {
        // Staging.cpp's FMA tiles compute IEEE products; never silently IEEE for a TF32 precision.
        if (kir::precisionOr(c.getPrecision()) != kir::ContractPrecision::IEEE)
          return "precision " + kir::stringifyContractPrecision(*c.getPrecision()).str() +
                 " (KIR_ContractPrecision) is not selected by the " + name +
                 " provider yet (its contraction is FMA tiles with IEEE products); the Triton provider realizes it";
        return std::nullopt;
      })
      .Case<pgpu::TransposeOp, pgpu::ReshapeOp>([](Operation *) { return std::nullopt; })
      .Default([&](Operation *o) -> std::optional<std::string> {
        return "no " + name + " selection for this op yet (selected: constants, LaunchExprs, program space, execution "
               "groups, for/if, pointwise ops, iota/splat/broadcast/transpose/reshape, load/gather/store, reduce, arg_reduce, scan, contract, extract, "
               "range_reduce, region_fold, foreach, scatter_reduce as atomics, workspace buffer_load/store)";
      });
}

FailureOr<llvm::StringMap<llvm::StringMap<int64_t>>>
selector::legalize(ModuleOp module, const DeviceTarget &target, const llvm::StringMap<int64_t> &overrides) {
  llvm::StringMap<llvm::StringMap<int64_t>> bound;
  bool ok = true;
  for (pgpu::KernelOp kernel : module.getOps<pgpu::KernelOp>()) {
    narrowHistogramBins(kernel, target);
    declareThreads(kernel, target, overrides);
    declareVector(kernel, target);
    // The same binding the interpreters and the runtime use (declared defaults, then checked overrides).
    FailureOr<llvm::StringMap<int64_t>> bindings = interp::bindParams(kernel, overrides);
    if (failed(bindings))
      return failure();
    llvm::StringMap<int64_t> values = std::move(*bindings);
    for (auto sized : kernel.getBody().getOps<pgpu::WorkspaceExtentOp>()) {
      sized.emitError() << "the " << target.name() << " selector does not size workspace by a launch-time expression ('"
                        << sized.getName() << "'); its wrapper allocates static, parameter and view-extent sizes";
      ok = false;
    }
    for (auto [i, type] : llvm::enumerate(kernel.getArgumentTypes()))
      if (auto buffer = dyn_cast<pgpu::BufferType>(type)) {
        if (buffer.getScope() != pgpu::BufferScope::Workspace) {
          kernel.emitError() << "the " << target.name() << " selector cannot pass argument " << i
                             << ": only invocation workspace "
                             << "buffers are kernel arguments";
          ok = false;
        } else if (auto issue = storageIssue(buffer.getElementType(), target)) {
          kernel.emitError() << "the " << target.name() << " selector cannot pass argument " << i << ": " << *issue;
          ok = false;
        }
      }
    // Ops without a selection are reported each; a fragment shape the selector does not distribute
    // only at its first op, and only when nothing else is missing (it then follows from the op).
    Operation *firstShape = nullptr;
    std::string shapeIssue;
    bool missing = false;
    std::set<std::pair<const void *, std::string>> reported;
    kernel.walk([&](Operation *op) {
      std::optional<std::string> issue = selectionIssue(op, target);
      if (!issue)
        return;
      if (StringRef(*issue).contains(kRankIssueTag)) {
        if (!firstShape)
          firstShape = op, shapeIssue = *issue;
        return;
      }
      // Copies of one KIR op (a guarded fast path and its fallback) are reported once per location.
      std::string message =
          "the " + target.name().str() + " selector cannot express '" + op->getName().getStringRef().str() + "': " + *issue;
      if (reported.emplace(op->getLoc().getAsOpaquePointer(), message).second)
        op->emitError() << message;
      missing = true;
    });
    if (!missing && firstShape)
      firstShape->emitError() << "the " << target.name() << " selector cannot express '" << firstShape->getName() << "': " << shapeIssue;
    ok = ok && !missing && !firstShape;
    bound[kernel.getSymName()] = std::move(values);
  }
  if (!ok)
    return failure();
  return bound;
}
