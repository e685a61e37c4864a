//===- CuTileLegalize.cpp - cuTile legalization and provider verifier -----===//
//
// seed 002 §3.6: after the shared verifier, the selected provider's
// capabilities are checked locally and an inexpressible combination is an
// error at the op, at the earliest layer that knows it, never a fallback in
// the serializer (§5.4, §5.5). cuTile's capabilities differ from Triton's in
// ways only bound parameters show (tile extents must be powers of two), so
// legalization binds every parameter first, with the same binding the
// interpreters and the PTX provider use.
//
//===----------------------------------------------------------------------===//

#include "BoxAccess.h"
#include "tessel/Interp/LaunchExpr.h"
#include "tessel/Target/CuTile/CuTile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tessel;

namespace {
constexpr llvm::StringLiteral kPowerOfTwo = "cuTile tiles have power-of-two extents";

std::string typeText(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

/// Element types a cuTile tile or array holds (index is spelled int32, like Triton's offsets).
bool isTileElement(Type t) {
  return t.isF16() || t.isBF16() || t.isF32() || t.isF64() || t.isIndex() || t.isInteger(1) || t.isInteger(8) ||
         t.isInteger(16) || t.isInteger(32) || t.isInteger(64);
}

/// A constant scalar (cuTile's reduce and scan take their identities as compile-time constants).
bool isConstantScalar(Value v) {
  return matchPattern(v, m_Constant()) && v.getType().isIntOrIndexOrFloat();
}
} // namespace

std::optional<std::string> cutile::spellingIssue(Operation *op, const llvm::StringMap<int64_t> &params) {
  for (Type t : llvm::concat<const Type>(op->getResultTypes(), op->getOperandTypes())) {
    if (isa<TupleType>(t))
      return std::string("tuples are not spelled (construction flattens records; a tuple value has no cuTile "
                         "tile)");
    Type element = pgpu::elementTypeOf(t);
    if ((isa<pgpu::FragmentType>(t) || t.isIntOrIndexOrFloat()) && !isTileElement(element))
      return "cuTile has no tile element type for " + typeText(element);
  }
  // cuTile tiles have static power-of-two extents (ct.arange, ct.full, ct.load shapes).
  for (Type t : op->getResultTypes())
    if (auto f = dyn_cast<pgpu::FragmentType>(t))
      for (auto [i, e] : llvm::enumerate(boundShape(f, params)))
        if (e <= 0 || !llvm::isPowerOf2_64(uint64_t(e)))
          return kPowerOfTwo.str() + "; axis " + std::to_string(i) + " of " + typeText(t) +
                 " is " + std::to_string(e) + " at the bound parameters";
  using K = kir::BinaryKind;
  return llvm::TypeSwitch<Operation *, std::optional<std::string>>(op)
      .Case<pgpu::RangeReduceOp, pgpu::RangeScanOp, pgpu::RegionFoldOp>([](Operation *) {
        return std::string("an unblocked structured op must be expanded by cuTile legalization first");
      })
      .Case<pgpu::RegionScanOp, pgpu::HistogramOp, pgpu::ArgReduceOp, pgpu::ScaledContractOp,
            pgpu::SparseContractOp, pgpu::AtomicRMWOp, pgpu::AtomicCASOp, pgpu::AtomicLoadOp, pgpu::AtomicStoreOp,
            pgpu::AllocOp, pgpu::WhileOp, pgpu::ReshapeOp, pgpu::JoinOp, pgpu::TupleOp, pgpu::TupleGetOp>(
          [](Operation *) -> std::optional<std::string> {
            return std::string("no cuTile spelling for this op yet (spelled: constants, LaunchExprs, program "
                               "space, execution groups, for/foreach/if, pointwise ops, iota/splat/broadcast/"
                               "transpose/extract, load/gather/store/scatter, scatter_reduce add, workspace "
                               "buffer_load/store, reduce, scan, contract)");
          })
      .Case([](pgpu::ProgramSpaceOp space) -> std::optional<std::string> {
        if (space.getExtents().size() != 1)
          return std::string("the cuTile provider launches a one-dimensional program space (ct.bid(0))");
        return std::nullopt;
      })
      .Case<pgpu::BufferLoadOp, pgpu::BufferStoreOp>([](Operation *o) -> std::optional<std::string> {
        Value buffer = o->getOperand(isa<pgpu::BufferLoadOp>(o) ? 0 : 1);
        auto arg = dyn_cast<BlockArgument>(buffer);
        if (!arg || !isa<pgpu::KernelOp>(arg.getOwner()->getParentOp()))
          return std::string("only workspace buffers (kernel arguments) are spelled; program and iteration "
                             "buffers are not yet");
        return std::nullopt;
      })
      .Case([](pgpu::BinaryOp b) -> std::optional<std::string> {
        bool isFloat = isa<FloatType>(pgpu::elementTypeOf(b.getType()));
        if (b.getKind() == K::Pow)
          return std::string("cuTile's pow documents no accuracy; 'pow' is not spelled");
        if (isFloat && b.getKind() == K::Rem)
          return std::string("float 'rem' (fmod) has no exact cuTile operation (ct.mod rounds toward -inf)");
        if (isFloat && (b.getKind() == K::And || b.getKind() == K::Or || b.getKind() == K::Xor ||
                        b.getKind() == K::Shl || b.getKind() == K::Shr))
          return std::string("bitwise operations on floats have no cuTile spelling");
        return std::nullopt;
      })
      .Case([](pgpu::UnaryOp u) -> std::optional<std::string> {
        using U = kir::UnaryKind;
        if (u.getKind() == U::Tanh || u.getKind() == U::Erf)
          return "'" + kir::stringifyUnaryKind(u.getKind()).str() +
                 "' has no cuTile function with a documented accuracy";
        if (u.getKind() == U::Round)
          return std::string("'round' (ties to even) is not spelled by the cuTile provider yet");
        return std::nullopt;
      })
      .Case([](pgpu::BroadcastOp br) -> std::optional<std::string> {
        if (!llvm::is_sorted(br.getDims()))
          return std::string("a broadcast that also permutes axes (transpose first)");
        return std::nullopt;
      })
      .Case([](pgpu::ContractOp c) -> std::optional<std::string> {
        auto lhs = cast<pgpu::FragmentType>(c.getLhs().getType());
        auto rhs = cast<pgpu::FragmentType>(c.getRhs().getType());
        if (lhs.getRank() != 2 || rhs.getRank() != 2 || c.getLhsReduce() != ArrayRef<int64_t>{1} ||
            c.getRhsReduce() != ArrayRef<int64_t>{0} || !c.getLhsBatch().empty())
          return std::string("ct.mma spells only [M, K] x [K, N] + [M, N] with no batch axes");
        Type in = lhs.getElementType(), acc = pgpu::elementTypeOf(c.getAcc().getType());
        if (rhs.getElementType() != in)
          return std::string("ct.mma does not promote operands of different dtypes");
        if (kir::precisionOr(c.getPrecision()) != kir::ContractPrecision::IEEE)
          return "precision " + kir::stringifyContractPrecision(*c.getPrecision()).str() +
                 " (KIR_ContractPrecision) is not spelled by the cuTile provider yet (its tf32 conversion's "
                 "rounding is not a documented cvt.rna); the Triton provider realizes it";
        bool ok = (in.isF16() && (acc.isF16() || acc.isF32())) || (in.isBF16() && acc.isF32()) ||
                  (in.isF32() && acc.isF32()) || (in.isF64() && acc.isF64()) ||
                  (in.isInteger(8) && acc.isInteger(32));
        if (!ok)
          return "ct.mma has no " + typeText(in) + " x " + typeText(in) + " -> " + typeText(acc) + " form";
        return std::nullopt;
      })
      .Case([](pgpu::ReduceOp r) -> std::optional<std::string> {
        if (r.getAxes().size() != 1)
          return std::string("ct.reduce reduces one axis; a reduction over several axes is not spelled yet");
        if (!llvm::all_of(r.getIdentities(), isConstantScalar))
          return std::string("ct.reduce takes constant identities; this identity is computed at run time");
        return std::nullopt;
      })
      .Case([](pgpu::ScanOp sc) -> std::optional<std::string> {
        if (sc.getExclusive())
          return std::string("ct.scan is inclusive; an exclusive fragment scan has no spelling");
        if (!llvm::all_of(sc.getIdentities(), isConstantScalar))
          return std::string("ct.scan takes constant identities; this identity is computed at run time");
        return std::nullopt;
      })
      .Case([](pgpu::ExtractOp e) -> std::optional<std::string> {
        if (cast<pgpu::FragmentType>(e.getFragment().getType()).getRank() != 1)
          return std::string("only an element of a one-dimensional fragment is spelled yet");
        return std::nullopt;
      })
      .Case([](pgpu::ScatterReduceOp sr) -> std::optional<std::string> {
        if (isa<pgpu::BufferType>(sr.getView().getType()))
          return std::string("a scatter-reduce into workspace is not spelled yet (views only)");
        pgpu::BinaryOp add = pgpu::singleBinaryCombine(sr.getCombine().front());
        if (!add || add.getKind() != K::Add)
          return std::string("only an add combine has a cuTile spelling (ct.atomic_add)");
        return std::nullopt;
      })
      .Case<pgpu::LoadOp, pgpu::GatherOp, pgpu::StoreOp, pgpu::ScatterOp>([](Operation *o) -> std::optional<std::string> {
        Value view = isa<pgpu::LoadOp, pgpu::GatherOp>(o) ? o->getOperand(0) : o->getOperand(1);
        auto arg = dyn_cast<BlockArgument>(view);
        if (!arg || !isa<pgpu::KernelOp>(arg.getOwner()->getParentOp()))
          return std::string("only views that are kernel arguments are spelled");
        if (cast<pgpu::ViewType>(view.getType()).getElementType().isIndex())
          return std::string("views of index have no cuTile array dtype");
        return std::nullopt;
      })
      .Case([](arith::ConstantOp c) -> std::optional<std::string> {
        if (!c.getType().isIntOrIndexOrFloat())
          return std::string("only scalar integer and float constants are spelled");
        return std::nullopt;
      })
      .Case<pgpu::KernelOp, pgpu::ParamOp, pgpu::ExtentOp, pgpu::StrideOp, pgpu::CeilDivOp, pgpu::ExecutionGroupOp,
            pgpu::DelinearizeOp, pgpu::ForOp, pgpu::ForeachOp, pgpu::IfOp, pgpu::YieldOp, pgpu::ReturnOp,
            pgpu::CmpOp, pgpu::SelectOp, pgpu::CastOp, pgpu::BitcastOp, pgpu::IotaOp, pgpu::SplatOp,
            pgpu::TransposeOp>([](Operation *) { return std::nullopt; })
      .Default([](Operation *o) -> std::optional<std::string> {
        return "no cuTile spelling for '" + o->getName().getStringRef().str() + "'";
      });
}

namespace {
constexpr int64_t kOccupancies[] = {0, 1, 2, 4, 8};
constexpr int64_t kNumCtas[] = {1, 2};
constexpr int64_t kWorkerWarps[] = {0, 4, 8};
constexpr int64_t kSharedTma[] = {0, 1};

/// Declares cuTile's launch hints on `kernel` (after its own declarations, a name it already declares
/// kept as it is), with cuTile's own defaults: occupancy left to the compiler (0), one CTA per cluster,
/// the worker warps left to the compiler (0); and, where the kernel makes a box load every program
/// makes alike, whether TMA stages it (SHARED_TMA).
void declareLaunchHints(pgpu::KernelOp kernel) {
  MLIRContext *ctx = kernel.getContext();
  SmallVector<Attribute> params;
  if (auto declared = kernel.getParams())
    llvm::append_range(params, *declared);
  auto declare = [&](StringRef name, ArrayRef<int64_t> candidates, int64_t defaultValue) {
    if (!kernel.getParam(name))
      params.push_back(pgpu::ParamAttr::get(ctx, StringAttr::get(ctx, name), candidates, defaultValue,
                                            StringAttr::get(ctx, "cutile")));
  };
  declare(cutile::kOccupancyParam, kOccupancies, 0);
  declare(cutile::kNumCtasParam, kNumCtas, 1);
  declare(cutile::kWorkerWarpsParam, kWorkerWarps, 0);
  // Default 0: a shared tile is read from L2 by every program; staging it costs shared memory the
  // streamed tiles need (CuTile.h).
  bool shared = false;
  kernel.walk([&](pgpu::LoadOp load) { shared |= cutile::isSharedBoxCandidate(load); });
  if (shared)
    declare(cutile::kSharedTmaParam, kSharedTma, 0);
  kernel.setParamsAttr(ArrayAttr::get(ctx, params));
}
} // namespace

FailureOr<cutile::Bindings> cutile::legalize(ModuleOp module, const llvm::StringMap<int64_t> &overrides) {
  for (pgpu::KernelOp kernel : module.getOps<pgpu::KernelOp>())
    declareLaunchHints(kernel);
  // Unblocked structured ops run in their legal order (seed 000 §8), as loops the IR holds, so the
  // serializer never creates loops (seed 002 §3.7). Innermost first.
  SmallVector<pgpu::RangeReduceOp> reduces;
  module.walk<WalkOrder::PostOrder>([&](pgpu::RangeReduceOp op) { reduces.push_back(op); });
  for (pgpu::RangeReduceOp op : reduces)
    pgpu::expandRangeReduce(op);
  SmallVector<pgpu::RangeScanOp> scans;
  module.walk<WalkOrder::PostOrder>([&](pgpu::RangeScanOp op) { scans.push_back(op); });
  for (pgpu::RangeScanOp op : scans)
    pgpu::expandRangeScan(op);
  SmallVector<pgpu::RegionFoldOp> folds;
  module.walk<WalkOrder::PostOrder>([&](pgpu::RegionFoldOp op) { folds.push_back(op); });
  for (pgpu::RegionFoldOp op : folds)
    pgpu::expandRegionFold(op);

  Bindings bound;
  bool ok = true;
  for (pgpu::KernelOp kernel : module.getOps<pgpu::KernelOp>()) {
    FailureOr<llvm::StringMap<int64_t>> values = interp::bindParams(kernel, overrides);
    if (failed(values))
      return failure();
    for (auto sized : kernel.getBody().getOps<pgpu::WorkspaceExtentOp>()) {
      sized.emitError() << "the cuTile provider does not size workspace by a launch-time expression ('"
                        << sized.getName() << "'); its wrapper allocates static, parameter and view-extent sizes";
      ok = false;
    }
    for (auto [i, type] : llvm::enumerate(kernel.getArgumentTypes())) {
      if (auto buffer = dyn_cast<pgpu::BufferType>(type)) {
        if (buffer.getScope() != pgpu::BufferScope::Workspace) {
          kernel.emitError() << "the cuTile provider cannot pass argument " << i
                             << ": only invocation workspace buffers are kernel arguments";
          ok = false;
        }
      } else if (auto view = dyn_cast<pgpu::ViewType>(type); view && !isTileElement(view.getElementType())) {
        kernel.emitError() << "the cuTile provider cannot pass argument " << i << ": no cuTile array dtype for "
                           << view.getElementType();
        ok = false;
      }
    }
    // Provider verifier (seed 002 §5.4): every op has a cuTile spelling at these bindings. A tile
    // extent that is not a power of two is reported once, at the first op that makes such a
    // fragment (every op computing on it follows from that one).
    bool shapeReported = false;
    kernel.walk([&](Operation *op) {
      std::optional<std::string> issue = spellingIssue(op, *values);
      if (!issue)
        return;
      ok = false;
      if (StringRef(*issue).starts_with(kPowerOfTwo)) {
        if (shapeReported)
          return;
        shapeReported = true;
      }
      op->emitError() << "the cuTile provider cannot express '" << op->getName() << "': " << *issue;
    });
    bound[kernel.getSymName()] = std::move(*values);
  }
  if (!ok)
    return failure();
  return bound;
}

FailureOr<std::string> cutile::compile(ModuleOp module, const llvm::StringMap<int64_t> &overrides) {
  FailureOr<Bindings> bound = legalize(module, overrides);
  if (failed(bound))
    return failure();
  std::string text;
  llvm::raw_string_ostream os(text);
  if (failed(serializeModule(module, *bound, os)))
    return failure();
  return text;
}

namespace {
/// `tessel-opt -pgpu-cutile-legalize`: legalization as a pass, for lit (declared defaults).
struct CuTileLegalizePass : public PassWrapper<CuTileLegalizePass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(CuTileLegalizePass)
  StringRef getArgument() const override { return "pgpu-cutile-legalize"; }
  StringRef getDescription() const override {
    return "Expand unblocked structured ops into loops, bind parameters and reject, at the op, what cuTile "
           "cannot express (seed 002 §3.6, §5.4)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect>();
  }
  void runOnOperation() override {
    if (failed(cutile::legalize(getOperation(), {})))
      signalPassFailure();
  }
};
} // namespace

void cutile::registerCuTilePasses() { PassRegistration<CuTileLegalizePass>(); }
