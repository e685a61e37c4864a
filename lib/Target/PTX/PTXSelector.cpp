//===- PTXSelector.cpp - legalized pgpu to the gpu/nvvm device IR ---------===//
//
// The instruction selector of the PTX provider (seed 004 §"Provider selector
// boundaries"): it walks one legalized pgpu kernel and builds the same program
// in MLIR's upstream device dialects (gpu, arith, scf, llvm). The mapping of
// program instances to CTAs and of fragments to threads is described in
// PTX.h. Everything the selector cannot express was rejected by `legalize`
// (`selectionIssue`); reaching an unexpected op here is a selector bug and is
// reported at the op, never spelled approximately.
//
//===----------------------------------------------------------------------===//

#include "tessel/Target/PTX/PTX.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace tessel;
namespace kir = tessel::kir;

namespace {
using BinaryKind = kir::BinaryKind;
using UnaryKind = kir::UnaryKind;

/// An external view as the kernel receives it (PTX.h ABI).
struct ViewABI {
  Value pointer;
  SmallVector<Value> extents, strides; // index
};

/// Unsigned integers (and i1) compare, divide, shift and extend unsigned (Numerics.cpp).
bool isUnsigned(Type type) {
  auto integer = dyn_cast<IntegerType>(type);
  return integer && (integer.isUnsigned() || integer.getWidth() == 1);
}

/// The device type of a pgpu scalar type: signless integers; index stays index.
Type deviceScalarType(Type type) {
  if (auto integer = dyn_cast<IntegerType>(type); integer && !integer.isSignless())
    return IntegerType::get(type.getContext(), integer.getWidth());
  return type;
}

class Selector {
public:
  Selector(pgpu::KernelOp kernel, const llvm::StringMap<int64_t> &params, gpu::GPUModuleOp module)
      : kernel(kernel), params(params), module(module), b(kernel.getContext()), loc(kernel.getLoc()) {}

  LogicalResult run();

private:
  pgpu::KernelOp kernel;
  const llvm::StringMap<int64_t> &params;
  gpu::GPUModuleOp module;
  OpBuilder b;
  Location loc;
  int64_t threads = 0;
  Value tid;           // index
  Value laneIsZero;    // i1: thread 0 of the CTA
  unsigned nextShared = 0;
  DenseMap<Value, SmallVector<Value>> values; // scalar -> {v}; fragment -> one value per slot
  DenseMap<Value, ViewABI> views;
  /// Views the kernel both reads and writes: their writes are fenced by CTA barriers before and
  /// after, since another thread than the writer may read (or have read) the element; the pgpu
  /// program is sequential within an instance (bar.sync orders global memory within the CTA).
  DenseSet<Value> readAndWritten;
  void fenceWrite(Value view) {
    if (readAndWritten.contains(view))
      gpu::BarrierOp::create(b, loc);
  }

  // ---- helpers --------------------------------------------------------------
  Value constIndex(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value constInt(Type type, int64_t v) { return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, v)); }
  Value constI32(int32_t v) { return constInt(b.getI32Type(), v); }

  /// The static shape of a fragment at the bound parameters.
  SmallVector<int64_t> shapeOf(pgpu::FragmentType type) {
    SmallVector<int64_t> shape;
    for (Attribute e : type.getExtents())
      shape.push_back(isa<IntegerAttr>(e) ? cast<IntegerAttr>(e).getInt()
                                          : params.lookup(cast<StringAttr>(e).getValue()));
    return shape;
  }
  /// Elements of a fragment (any rank: flattened row-major, PTX.h).
  int64_t elements(pgpu::FragmentType type) {
    int64_t n = 1;
    for (int64_t e : shapeOf(type))
      n *= e;
    return n;
  }
  int64_t slots(pgpu::FragmentType type) { return std::max<int64_t>(1, (elements(type) + threads - 1) / threads); }
  /// Whether this thread's slot k holds an element (null: always).
  Value slotExists(pgpu::FragmentType type, int64_t k) {
    int64_t n = elements(type);
    if ((k + 1) * threads <= n)
      return {};
    Value element = arith::AddIOp::create(b, loc, tid, constIndex(k * threads));
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, element, constIndex(n));
  }
  Value andMaybe(Value a, Value bOrNull) { return bOrNull ? arith::AndIOp::create(b, loc, a, bOrNull) : a; }

  /// Operand `v` at slot k (a scalar is the same at every slot).
  Value at(Value v, int64_t k) {
    auto &list = values[v];
    return list.size() == 1 ? list[0] : list[k];
  }
  int64_t slotsOf(Value v) {
    auto fragment = dyn_cast<pgpu::FragmentType>(v.getType());
    return fragment ? slots(fragment) : 1;
  }
  /// The device types one pgpu value occupies.
  void deviceTypes(Type type, SmallVectorImpl<Type> &out) {
    if (auto fragment = dyn_cast<pgpu::FragmentType>(type)) {
      out.append(slots(fragment), deviceScalarType(fragment.getElementType()));
      return;
    }
    out.push_back(deviceScalarType(type));
  }
  void flatten(ValueRange range, SmallVectorImpl<Value> &out) {
    for (Value v : range)
      llvm::append_range(out, values[v]);
  }
  /// Binds pgpu values to consecutive device values.
  void bind(ValueRange range, ValueRange device) {
    unsigned i = 0;
    for (Value v : range) {
      unsigned n = slotsOf(v);
      values[v] = SmallVector<Value>(device.slice(i, n).begin(), device.slice(i, n).end());
      i += n;
    }
  }

  // ---- scalar semantics (Numerics.cpp) --------------------------------------
  static std::string suffix(Type type) {
    return type.isF32() ? "f32" : type.isF64() ? "f64" : type.isF16() ? "f16" : "bf16";
  }
  Value intrinsic(const llvm::Twine &name, Type type, ValueRange args) {
    return LLVM::CallIntrinsicOp::create(b, loc, type, b.getStringAttr(name.str()), args).getResult(0);
  }
  FailureOr<Value> binary(Operation *op, BinaryKind kind, Type type, Value x, Value y, bool approximate);
  FailureOr<Value> unary(Operation *op, UnaryKind kind, Type type, Value x, bool approximate);
  Value compare(kir::CmpPredicate predicate, Type type, Value x, Value y);
  Value castValue(Type from, Type to, Value x);

  // ---- memory ---------------------------------------------------------------
  Value address(pgpu::ViewType type, Value view, ValueRange coords, int64_t k);
  Value sharedArray(Type slotType, int64_t count);

  // ---- cross-thread ---------------------------------------------------------
  Value shuffle(Value v, int32_t offset, gpu::ShuffleMode mode);
  Value shuffleXor(Value v, int32_t offset) { return shuffle(v, offset, gpu::ShuffleMode::XOR); }
  SmallVector<Value> combineAcrossCTA(SmallVector<Value> acc,
                                      llvm::function_ref<SmallVector<Value>(ValueRange, ValueRange)> combine);
  FailureOr<SmallVector<Value>> inlineCombine(Region &region, ValueRange lhs, ValueRange rhs);

  // ---- ops ------------------------------------------------------------------
  LogicalResult emitBlock(Block &block);
  LogicalResult emitOp(Operation *op);
  LogicalResult emitFor(pgpu::ForOp op);
  LogicalResult emitIf(pgpu::IfOp op);
  LogicalResult emitLoad(Operation *op, Value view, ValueRange coords, Value valid, Value fill);
  LogicalResult emitStore(pgpu::StoreOp op);
  LogicalResult emitReduce(pgpu::ReduceOp op);
  LogicalResult emitArgReduce(pgpu::ArgReduceOp op);
  LogicalResult emitExtract(pgpu::ExtractOp op);
  LogicalResult emitScan(pgpu::ScanOp op);
  LogicalResult emitRangeReduce(pgpu::RangeReduceOp op);
  LogicalResult emitScatterReduce(pgpu::ScatterReduceOp op);
  LogicalResult emitRegionFold(pgpu::RegionFoldOp op);
  LogicalResult emitForeach(pgpu::ForeachOp op);

  // ---- fragments of rank >= 2: data movement through a shared-memory staging area ----------
  static constexpr int64_t kStageLimit = 40 * 1024; // of the 48 KiB a CTA gets statically
  int64_t stageBytes = 0;
  int64_t sharedBytes = 0; // the reductions' and scans' small arrays
  Operation *current = nullptr;
  Type stageType(Type t) { return t.isIndex() ? b.getI64Type() : t.isInteger(1) ? b.getI8Type() : t; }
  Value stagedPointer(Type slotType, int64_t byteOffset, Value linear);
  FailureOr<int64_t> stage(Value fragment, int64_t byteOffset);
  Value readStaged(Type type, int64_t byteOffset, Value linear);
  SmallVector<Value> delinearizeStatic(Value linear, ArrayRef<int64_t> shape);
  Value linearizeStatic(ArrayRef<Value> coords, ArrayRef<int64_t> shape);
  /// This thread's element of slot k (clamped to 0 past the fragment, so reads stay in bounds).
  Value slotElement(pgpu::FragmentType type, int64_t k) {
    Value l = arith::AddIOp::create(b, loc, tid, constIndex(k * threads));
    Value exists = slotExists(type, k);
    return exists ? arith::SelectOp::create(b, loc, exists, l, constIndex(0)).getResult() : l;
  }
  LogicalResult emitMove(Operation *op, Value operand, Value result,
                         llvm::function_ref<SmallVector<Value>(ArrayRef<Value>)> sourceCoords);
  LogicalResult emitAxisReduce(pgpu::ReduceOp op);
  LogicalResult emitContract(pgpu::ContractOp op);
};

FailureOr<Value> Selector::binary(Operation *op, BinaryKind kind, Type type, Value x, Value y, bool approximate) {
  if (isa<FloatType>(type)) {
    switch (kind) {
    case BinaryKind::Add: return arith::AddFOp::create(b, loc, x, y).getResult();
    case BinaryKind::Sub: return arith::SubFOp::create(b, loc, x, y).getResult();
    case BinaryKind::Mul: return arith::MulFOp::create(b, loc, x, y).getResult();
    case BinaryKind::Div:
      if (approximate) { // x * (1 / y), the reciprocal rounded to the type (Numerics.cpp)
        Value one = arith::ConstantOp::create(b, loc, b.getFloatAttr(type, 1.0));
        return arith::MulFOp::create(b, loc, x, arith::DivFOp::create(b, loc, one, y)).getResult();
      }
      return arith::DivFOp::create(b, loc, x, y).getResult();
    case BinaryKind::Max: return LLVM::MaximumOp::create(b, loc, x, y).getResult();
    case BinaryKind::Min: return LLVM::MinimumOp::create(b, loc, x, y).getResult();
    case BinaryKind::MaxNum: return LLVM::MaxNumOp::create(b, loc, x, y).getResult();
    case BinaryKind::MinNum: return LLVM::MinNumOp::create(b, loc, x, y).getResult();
    default: break;
    }
    return op->emitError() << "the PTX selector has no instruction for float '" << kir::stringifyBinaryKind(kind)
                           << "'";
  }
  bool u = isUnsigned(type);
  unsigned width = type.isIndex() ? 64 : type.getIntOrFloatBitWidth();
  Value zero = type.isIndex() ? constIndex(0) : constInt(type, 0);
  Value one = type.isIndex() ? constIndex(1) : constInt(type, 1);
  auto eq = [&](Value a, Value c) { return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, a, c).getResult(); };
  switch (kind) {
  case BinaryKind::Add: return arith::AddIOp::create(b, loc, x, y).getResult();
  case BinaryKind::Sub: return arith::SubIOp::create(b, loc, x, y).getResult();
  case BinaryKind::Mul: return arith::MulIOp::create(b, loc, x, y).getResult();
  case BinaryKind::And: return arith::AndIOp::create(b, loc, x, y).getResult();
  case BinaryKind::Or: return arith::OrIOp::create(b, loc, x, y).getResult();
  case BinaryKind::Xor: return arith::XOrIOp::create(b, loc, x, y).getResult();
  case BinaryKind::Max: case BinaryKind::MaxNum:
    return u ? arith::MaxUIOp::create(b, loc, x, y).getResult() : arith::MaxSIOp::create(b, loc, x, y).getResult();
  case BinaryKind::Min: case BinaryKind::MinNum:
    return u ? arith::MinUIOp::create(b, loc, x, y).getResult() : arith::MinSIOp::create(b, loc, x, y).getResult();
  case BinaryKind::Div:
  case BinaryKind::Rem: {
    // Floor division and modulo; a zero divisor gives 0, and -1 never divides (no overflow trap).
    Value yZero = eq(y, zero);
    if (u) {
      Value safe = arith::SelectOp::create(b, loc, yZero, one, y);
      Value r = kind == BinaryKind::Div ? arith::DivUIOp::create(b, loc, x, safe).getResult()
                                        : arith::RemUIOp::create(b, loc, x, safe).getResult();
      return arith::SelectOp::create(b, loc, yZero, zero, r).getResult();
    }
    Value minusOne = type.isIndex() ? constIndex(-1) : constInt(type, -1);
    Value yMinusOne = eq(y, minusOne);
    Value safe = arith::SelectOp::create(b, loc, arith::OrIOp::create(b, loc, yZero, yMinusOne), one, y);
    Value r;
    if (kind == BinaryKind::Div) {
      r = arith::FloorDivSIOp::create(b, loc, x, safe);
      r = arith::SelectOp::create(b, loc, yMinusOne, arith::SubIOp::create(b, loc, zero, x), r);
    } else {
      Value rem = arith::RemSIOp::create(b, loc, x, safe);
      Value remNeg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, rem, zero);
      Value yNeg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, y, zero);
      Value fix = arith::AndIOp::create(b, loc, arith::XOrIOp::create(b, loc, remNeg, yNeg),
                                        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, rem, zero));
      r = arith::SelectOp::create(b, loc, fix, arith::AddIOp::create(b, loc, rem, safe), rem);
      r = arith::SelectOp::create(b, loc, yMinusOne, zero, r);
    }
    return arith::SelectOp::create(b, loc, yZero, zero, r).getResult();
  }
  case BinaryKind::Shl:
  case BinaryKind::Shr: {
    Value widthV = type.isIndex() ? constIndex(width) : constInt(type, width);
    Value big = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, y, widthV);
    if (kind == BinaryKind::Shr && !u) { // arithmetic shift saturates at width - 1
      Value last = type.isIndex() ? constIndex(width - 1) : constInt(type, width - 1);
      return arith::ShRSIOp::create(b, loc, x, arith::SelectOp::create(b, loc, big, last, y)).getResult();
    }
    Value shifted = kind == BinaryKind::Shl ? arith::ShLIOp::create(b, loc, x, y).getResult()
                                            : arith::ShRUIOp::create(b, loc, x, y).getResult();
    return arith::SelectOp::create(b, loc, big, zero, shifted).getResult();
  }
  default: break;
  }
  return op->emitError() << "the PTX selector has no instruction for integer '" << kir::stringifyBinaryKind(kind)
                         << "'";
}

FailureOr<Value> Selector::unary(Operation *op, UnaryKind kind, Type type, Value x, bool approximate) {
  if (!isa<FloatType>(type)) {
    Value zero = type.isIndex() ? constIndex(0) : constInt(type, 0);
    switch (kind) {
    case UnaryKind::Neg: return arith::SubIOp::create(b, loc, zero, x).getResult();
    case UnaryKind::Abs: {
      Value neg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, zero);
      if (isUnsigned(type))
        return x;
      return arith::SelectOp::create(b, loc, neg, arith::SubIOp::create(b, loc, zero, x), x).getResult();
    }
    case UnaryKind::Not: {
      Value ones = type.isIndex() ? constIndex(-1) : constInt(type, -1);
      return arith::XOrIOp::create(b, loc, x, ones).getResult();
    }
    default: break;
    }
    return op->emitError() << "the PTX selector has no instruction for integer '" << kir::stringifyUnaryKind(kind)
                           << "'";
  }
  switch (kind) {
  case UnaryKind::Neg: return arith::NegFOp::create(b, loc, x).getResult();
  // Named intrinsics: convert-gpu-to-nvvm would turn llvm.intr.fabs/floor/ceil/sqrt into libdevice calls.
  case UnaryKind::Abs: return intrinsic("llvm.fabs." + suffix(type), type, x);
  case UnaryKind::Floor: return intrinsic("llvm.floor." + suffix(type), type, x);
  case UnaryKind::Ceil: return intrinsic("llvm.ceil." + suffix(type), type, x);
  case UnaryKind::Sqrt: return intrinsic("llvm.sqrt." + suffix(type), type, x);
  default: break;
  }
  // Transcendentals: the PTX approximate instructions on f32 (as the Triton provider's spelling);
  // f16/bf16 compute in f32 and round once, like the interpreter.
  Type f32 = b.getF32Type();
  if (!type.isF32() && !type.isF16() && !type.isBF16())
    return op->emitError() << "the PTX selector computes '" << kir::stringifyUnaryKind(kind)
                           << "' in f32 only (no libdevice); got " << type;
  Value v = type.isF32() ? x : arith::ExtFOp::create(b, loc, f32, x).getResult();
  auto f = [&](double c) { return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(float(c))).getResult(); };
  auto ex2 = [&](Value a) { return intrinsic("llvm.nvvm.ex2.approx.f32", f32, a); };
  auto lg2 = [&](Value a) { return intrinsic("llvm.nvvm.lg2.approx.f", f32, a); };
  Value r;
  switch (kind) {
  case UnaryKind::Exp: r = ex2(arith::MulFOp::create(b, loc, v, f(M_LOG2E))); break;
  case UnaryKind::Exp2: r = ex2(v); break;
  case UnaryKind::Log: r = arith::MulFOp::create(b, loc, lg2(v), f(M_LN2)); break;
  case UnaryKind::Log2: r = lg2(v); break;
  case UnaryKind::Rsqrt:
    r = approximate ? intrinsic("llvm.nvvm.rsqrt.approx.f", f32, v)
                    : arith::DivFOp::create(b, loc, f(1.0), intrinsic("llvm.sqrt.f32", f32, v)).getResult();
    break;
  case UnaryKind::Sigmoid: {
    Value e = ex2(arith::MulFOp::create(b, loc, v, f(-M_LOG2E)));
    r = arith::DivFOp::create(b, loc, f(1.0), arith::AddFOp::create(b, loc, f(1.0), e));
    break;
  }
  case UnaryKind::Sin:
  case UnaryKind::Cos:
    if (!approximate)
      return op->emitError() << "the PTX selector has only sin.approx/cos.approx (accurate to about 2^-21 on "
                                "[-pi, pi], worse beyond); '"
                             << kir::stringifyUnaryKind(kind) << "' without {approximate} is rejected";
    r = intrinsic(kind == UnaryKind::Sin ? "llvm.nvvm.sin.approx.f" : "llvm.nvvm.cos.approx.f", f32, v);
    break;
  default:
    return op->emitError() << "the PTX selector has no instruction sequence for '" << kir::stringifyUnaryKind(kind)
                           << "' (tanh, erf and pow need libdevice, which the in-process provider does not use)";
  }
  return type.isF32() ? r : arith::TruncFOp::create(b, loc, type, r).getResult();
}

Value Selector::compare(kir::CmpPredicate predicate, Type type, Value x, Value y) {
  using P = kir::CmpPredicate;
  if (isa<FloatType>(type)) {
    arith::CmpFPredicate p = predicate == P::EQ   ? arith::CmpFPredicate::OEQ
                             : predicate == P::NE ? arith::CmpFPredicate::UNE
                             : predicate == P::LT ? arith::CmpFPredicate::OLT
                             : predicate == P::LE ? arith::CmpFPredicate::OLE
                             : predicate == P::GT ? arith::CmpFPredicate::OGT
                                                  : arith::CmpFPredicate::OGE;
    return arith::CmpFOp::create(b, loc, p, x, y);
  }
  bool u = isUnsigned(type);
  arith::CmpIPredicate p = predicate == P::EQ   ? arith::CmpIPredicate::eq
                           : predicate == P::NE ? arith::CmpIPredicate::ne
                           : predicate == P::LT ? (u ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt)
                           : predicate == P::LE ? (u ? arith::CmpIPredicate::ule : arith::CmpIPredicate::sle)
                           : predicate == P::GT ? (u ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt)
                                                : (u ? arith::CmpIPredicate::uge : arith::CmpIPredicate::sge);
  return arith::CmpIOp::create(b, loc, p, x, y);
}

/// kir.cast semantics (Numerics.cpp castElem): float to integer truncates toward zero and
/// saturates (PTX cvt.rzi saturates and maps NaN to 0); to i1 tests != 0.
Value Selector::castValue(Type from, Type to, Value x) {
  Type dto = deviceScalarType(to);
  bool fromFloat = isa<FloatType>(from), toFloat = isa<FloatType>(to);
  if (fromFloat && toFloat) {
    unsigned wf = from.getIntOrFloatBitWidth(), wt = to.getIntOrFloatBitWidth();
    if (wf == wt && from != to) // f16 <-> bf16 through f32
      x = arith::ExtFOp::create(b, loc, b.getF32Type(), x), wf = 32;
    if (wf < wt)
      return arith::ExtFOp::create(b, loc, dto, x);
    if (wf > wt)
      return arith::TruncFOp::create(b, loc, dto, x);
    return x;
  }
  if (!fromFloat && toFloat) {
    if (from.isIndex())
      x = arith::IndexCastOp::create(b, loc, b.getI64Type(), x);
    return isUnsigned(from) ? arith::UIToFPOp::create(b, loc, dto, x).getResult()
                            : arith::SIToFPOp::create(b, loc, dto, x).getResult();
  }
  if (fromFloat) {
    if (to.isInteger(1)) {
      Value zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(from, 0.0));
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x, zero);
    }
    Type target = to.isIndex() ? b.getI64Type() : dto;
    Value r = isUnsigned(to) ? arith::FPToUIOp::create(b, loc, target, x).getResult()
                             : arith::FPToSIOp::create(b, loc, target, x).getResult();
    return to.isIndex() ? arith::IndexCastOp::create(b, loc, dto, r).getResult() : r;
  }
  // integer -> integer: wrap, or compare with zero for i1
  if (to.isInteger(1)) {
    Value zero = from.isIndex() ? constIndex(0) : constInt(deviceScalarType(from), 0);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x, zero);
  }
  if (from.isIndex() || to.isIndex())
    return isUnsigned(from) ? arith::IndexCastUIOp::create(b, loc, dto, x).getResult()
                            : arith::IndexCastOp::create(b, loc, dto, x).getResult();
  unsigned wf = from.getIntOrFloatBitWidth(), wt = to.getIntOrFloatBitWidth();
  if (wf < wt)
    return isUnsigned(from) ? arith::ExtUIOp::create(b, loc, dto, x).getResult()
                            : arith::ExtSIOp::create(b, loc, dto, x).getResult();
  if (wf > wt)
    return arith::TruncIOp::create(b, loc, dto, x);
  return x;
}

/// The global address of element `coords` (slot k) of `view`: pointer + sum(coord * stride).
Value Selector::address(pgpu::ViewType type, Value view, ValueRange coords, int64_t k) {
  const ViewABI &abi = views[view];
  Value offset = constIndex(0);
  for (auto [axis, c] : llvm::enumerate(coords))
    offset = arith::AddIOp::create(b, loc, offset, arith::MulIOp::create(b, loc, at(c, k), abi.strides[axis]));
  Value offset64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), offset);
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext(), 1);
  return LLVM::GEPOp::create(b, loc, ptrType, deviceScalarType(type.getElementType()), abi.pointer,
                             ValueRange{offset64});
}

/// A fresh shared-memory array (address space 3) of `count` elements, named after the kernel;
/// returns its address.
Value Selector::sharedArray(Type slotType, int64_t count) {
  std::string name = (kernel.getSymName() + "_shared" + llvm::Twine(nextShared++)).str();
  sharedBytes += ((count * std::max<int64_t>(1, slotType.getIntOrFloatBitWidth() / 8) + 15) / 16) * 16;
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    LLVM::GlobalOp::create(b, loc, LLVM::LLVMArrayType::get(slotType, count), /*isConstant=*/false,
                           LLVM::Linkage::Internal, name, Attribute(), /*alignment=*/16, /*addrSpace=*/3);
  }
  return LLVM::AddressOfOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3), name);
}

/// An exchange within the warp; 64-bit and narrow values travel as 32-bit words.
Value Selector::shuffle(Value v, int32_t offset, gpu::ShuffleMode mode) {
  Type type = v.getType();
  auto shuffle32 = [&](Value w) { return gpu::ShuffleOp::create(b, loc, w, offset, 32, mode).getResult(0); };
  if (type.isF32() || type.isInteger(32))
    return shuffle32(v);
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  if (type.isIndex() || type.isInteger(64) || type.isF64()) {
    Value bits = type.isIndex() ? arith::IndexCastOp::create(b, loc, i64, v).getResult()
                 : type.isF64() ? arith::BitcastOp::create(b, loc, i64, v).getResult()
                                : v;
    Value lo = arith::TruncIOp::create(b, loc, i32, bits);
    Value hi = arith::TruncIOp::create(b, loc, i32, arith::ShRUIOp::create(b, loc, bits, constInt(i64, 32)));
    lo = arith::ExtUIOp::create(b, loc, i64, shuffle32(lo));
    hi = arith::ExtUIOp::create(b, loc, i64, shuffle32(hi));
    Value joined = arith::OrIOp::create(b, loc, lo, arith::ShLIOp::create(b, loc, hi, constInt(i64, 32)));
    return type.isIndex()  ? arith::IndexCastOp::create(b, loc, type, joined).getResult()
           : type.isF64() ? arith::BitcastOp::create(b, loc, type, joined).getResult()
                          : joined;
  }
  // i1, i8, i16, f16, bf16
  unsigned width = type.getIntOrFloatBitWidth();
  Type narrow = b.getIntegerType(width);
  Value bits = isa<FloatType>(type) ? arith::BitcastOp::create(b, loc, narrow, v).getResult() : v;
  Value word = shuffle32(arith::ExtUIOp::create(b, loc, i32, bits));
  Value back = arith::TruncIOp::create(b, loc, narrow, word);
  return isa<FloatType>(type) ? arith::BitcastOp::create(b, loc, type, back).getResult() : back;
}

/// Combines one partial per thread into the CTA's total, known to every thread: butterfly
/// shuffles inside each warp, then the warps' totals through shared memory, folded in warp
/// order by every thread (so every thread holds the same value: scalars stay uniform).
SmallVector<Value>
Selector::combineAcrossCTA(SmallVector<Value> acc,
                           llvm::function_ref<SmallVector<Value>(ValueRange, ValueRange)> combine) {
  for (int32_t offset = 16; offset >= 1; offset /= 2) {
    SmallVector<Value> other;
    for (Value v : acc)
      other.push_back(shuffleXor(v, offset));
    acc = combine(acc, other);
  }
  int64_t warps = threads / 32;
  if (warps == 1)
    return acc;
  Value warp = arith::DivUIOp::create(b, loc, tid, constIndex(32));
  Value lane0 = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                      arith::RemUIOp::create(b, loc, tid, constIndex(32)), constIndex(0));
  auto sharedPtr = LLVM::LLVMPointerType::get(b.getContext(), 3);
  SmallVector<Value> arrays;
  SmallVector<Type> slotTypes;
  for (Value v : acc) {
    // index travels as i64, i1 as i8 (LLVM-compatible element types)
    Type t = v.getType().isIndex() ? b.getI64Type() : v.getType().isInteger(1) ? b.getI8Type() : v.getType();
    slotTypes.push_back(t);
    arrays.push_back(sharedArray(t, warps));
  }
  auto toSlot = [&](Value v, Type t) -> Value {
    if (v.getType().isIndex())
      return arith::IndexCastOp::create(b, loc, t, v);
    if (v.getType().isInteger(1))
      return arith::ExtUIOp::create(b, loc, t, v);
    return v;
  };
  auto fromSlot = [&](Value v, Type original) -> Value {
    if (original.isIndex())
      return arith::IndexCastOp::create(b, loc, original, v);
    if (original.isInteger(1))
      return arith::TruncIOp::create(b, loc, original, v);
    return v;
  };
  Value warp64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), warp);
  scf::IfOp::create(b, loc, lane0, [&](OpBuilder &, Location) {
    for (auto [i, v] : llvm::enumerate(acc)) {
      Value p = LLVM::GEPOp::create(b, loc, sharedPtr, slotTypes[i], arrays[i], ValueRange{warp64});
      LLVM::StoreOp::create(b, loc, toSlot(v, slotTypes[i]), p);
    }
    scf::YieldOp::create(b, loc);
  });
  gpu::BarrierOp::create(b, loc);
  SmallVector<Value> total;
  for (int64_t w = 0; w < warps; ++w) {
    SmallVector<Value> part;
    for (auto [i, v] : llvm::enumerate(acc)) {
      Value p = LLVM::GEPOp::create(b, loc, sharedPtr, slotTypes[i], arrays[i],
                                    ValueRange{constInt(b.getI64Type(), w)});
      part.push_back(fromSlot(LLVM::LoadOp::create(b, loc, slotTypes[i], p), v.getType()));
    }
    total = w == 0 ? part : combine(total, part);
  }
  gpu::BarrierOp::create(b, loc); // the arrays may be written again (a reduction in a loop)
  return total;
}

FailureOr<SmallVector<Value>> Selector::inlineCombine(Region &region, ValueRange lhs, ValueRange rhs) {
  Block &block = region.front();
  unsigned n = lhs.size();
  for (unsigned i = 0; i < n; ++i) {
    values[block.getArgument(i)] = {lhs[i]};
    values[block.getArgument(n + i)] = {rhs[i]};
  }
  if (failed(emitBlock(block)))
    return failure();
  SmallVector<Value> out;
  flatten(block.getTerminator()->getOperands(), out);
  return out;
}

LogicalResult Selector::emitBlock(Block &block) {
  for (Operation &op : block.without_terminator())
    if (failed(emitOp(&op)))
      return failure();
  return success();
}

LogicalResult Selector::emitFor(pgpu::ForOp op) {
  SmallVector<Value> inits;
  flatten(op.getInits(), inits);
  bool ok = true;
  auto loop = scf::ForOp::create(b, loc, values[op.getLower()][0], values[op.getUpper()][0],
                                 values[op.getStep()][0], inits,
                                 [&](OpBuilder &, Location, Value iv, ValueRange carried) {
                                   Block &body = op.getBody().front();
                                   values[body.getArgument(0)] = {iv};
                                   bind(body.getArguments().drop_front(), carried);
                                   ok = succeeded(emitBlock(body));
                                   SmallVector<Value> yields;
                                   if (ok)
                                     flatten(body.getTerminator()->getOperands(), yields);
                                   else
                                     yields.assign(carried.begin(), carried.end());
                                   scf::YieldOp::create(b, loc, yields);
                                 });
  bind(op.getResults(), loop.getResults());
  return success(ok);
}

LogicalResult Selector::emitIf(pgpu::IfOp op) {
  SmallVector<Type> types;
  for (Type t : op.getResultTypes())
    deviceTypes(t, types);
  bool ok = true;
  auto branch = [&](Region &region) {
    return [&](OpBuilder &, Location) {
      SmallVector<Value> yields;
      if (!region.empty()) {
        Block &block = region.front();
        ok = ok && succeeded(emitBlock(block));
        if (ok)
          flatten(block.getTerminator()->getOperands(), yields);
      }
      if (!ok) // keep the IR well-formed while the error propagates
        for (Type t : types)
          yields.push_back(LLVM::PoisonOp::create(b, loc, t));
      scf::YieldOp::create(b, loc, yields);
    };
  };
  auto ifOp = scf::IfOp::create(b, loc, values[op.getCondition()][0], branch(op.getThenRegion()),
                                branch(op.getElseRegion()));
  bind(op.getResults(), ifOp.getResults());
  return success(ok);
}

/// A read with validity and fill: invalid slots (and slots past the fragment) perform no access.
LogicalResult Selector::emitLoad(Operation *op, Value view, ValueRange coords, Value valid, Value fill) {
  auto viewType = cast<pgpu::ViewType>(view.getType());
  Type element = deviceScalarType(viewType.getElementType());
  Value result = op->getResult(0);
  auto fragment = dyn_cast<pgpu::FragmentType>(result.getType());
  int64_t n = slotsOf(result);
  SmallVector<Value> out;
  for (int64_t k = 0; k < n; ++k) {
    Value ok = at(valid, k);
    if (fragment)
      ok = andMaybe(ok, slotExists(fragment, k));
    auto ifOp = scf::IfOp::create(
        b, loc, ok,
        [&](OpBuilder &, Location) {
          Value p = address(viewType, view, coords, k);
          scf::YieldOp::create(b, loc, LLVM::LoadOp::create(b, loc, element, p).getResult());
        },
        [&](OpBuilder &, Location) { scf::YieldOp::create(b, loc, values[fill][0]); });
    out.push_back(ifOp.getResult(0));
  }
  values[result] = out;
  return success();
}

/// A write with validity. A scalar store is made by thread 0 only (scalars are uniform).
LogicalResult Selector::emitStore(pgpu::StoreOp op) {
  auto viewType = cast<pgpu::ViewType>(op.getView().getType());
  auto fragment = dyn_cast<pgpu::FragmentType>(op.getValue().getType());
  int64_t n = slotsOf(op.getValue());
  fenceWrite(op.getView());
  for (int64_t k = 0; k < n; ++k) {
    Value ok = at(op.getValid(), k);
    ok = fragment ? andMaybe(ok, slotExists(fragment, k)) : arith::AndIOp::create(b, loc, ok, laneIsZero);
    scf::IfOp::create(b, loc, ok, [&](OpBuilder &, Location) {
      Value p = address(viewType, op.getView(), op.getCoords(), k);
      LLVM::StoreOp::create(b, loc, at(op.getValue(), k), p);
      scf::YieldOp::create(b, loc);
    });
  }
  fenceWrite(op.getView());
  return success();
}

/// pgpu.reduce of rank-1 fragments to scalars.
LogicalResult Selector::emitReduce(pgpu::ReduceOp op) {
  auto fragment = cast<pgpu::FragmentType>(op.getInputs()[0].getType());
  if (op.getAxes().size() != fragment.getRank())
    return emitAxisReduce(op);
  SmallVector<Value> acc;
  flatten(op.getIdentities(), acc);
  bool ok = true;
  auto combine = [&](ValueRange lhs, ValueRange rhs) -> SmallVector<Value> {
    FailureOr<SmallVector<Value>> r = inlineCombine(op.getCombine(), lhs, rhs);
    if (failed(r)) {
      ok = false;
      return SmallVector<Value>(lhs.begin(), lhs.end());
    }
    return *r;
  };
  for (int64_t k = 0, n = slots(fragment); k < n; ++k) {
    SmallVector<Value> member;
    for (Value input : op.getInputs())
      member.push_back(values[input][k]);
    SmallVector<Value> next = combine(acc, member);
    if (Value exists = slotExists(fragment, k))
      for (auto [a, c] : llvm::zip(acc, next))
        a = arith::SelectOp::create(b, loc, exists, c, a);
    else
      acc = next;
  }
  acc = combineAcrossCTA(acc, combine);
  if (!ok)
    return failure();
  for (auto [r, v] : llvm::zip(op.getResults(), acc))
    values[r] = {v};
  return success();
}

/// pgpu.arg_reduce of a rank-1 fragment (Semantics.cpp argReduceAlong). Each candidate is
/// (value, position) with position -1 for none; the winner is decided by an order on
/// candidates (NaN first when it propagates, then the larger/smaller value, then the tie
/// rule on positions), so combining in any order gives the interpreter's answer.
LogicalResult Selector::emitArgReduce(pgpu::ArgReduceOp op) {
  auto fragment = cast<pgpu::FragmentType>(op.getInput().getType());
  Type type = fragment.getElementType();
  bool isFloat = isa<FloatType>(type);
  bool wantMax = op.getKind() == kir::ArgReduceKind::ArgMax;
  bool highest = op.getTie() == kir::TieRule::Highest;
  bool propagate = op.getNan() == kir::NaNRule::Propagate;
  Type i64 = b.getI64Type();
  Value none = constInt(i64, -1);
  auto isNaN = [&](Value v) { return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, v, v).getResult(); };
  // Whether candidate (bv, bi) beats (av, ai); both present.
  auto beats = [&](Value av, Value ai, Value bv, Value bi) -> Value {
    Value posWins = arith::CmpIOp::create(b, loc, highest ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::slt,
                                          bi, ai);
    Value gt = compare(kir::CmpPredicate::GT, type, bv, av);
    Value lt = compare(kir::CmpPredicate::LT, type, bv, av);
    Value better = wantMax ? gt : lt;
    Value equal = arith::AndIOp::create(b, loc, arith::XOrIOp::create(b, loc, gt, constInt(b.getI1Type(), 1)),
                                        arith::XOrIOp::create(b, loc, lt, constInt(b.getI1Type(), 1)));
    Value r = arith::OrIOp::create(b, loc, better, arith::AndIOp::create(b, loc, equal, posWins));
    if (isFloat && propagate) {
      Value an = isNaN(av), bn = isNaN(bv);
      Value bothNaN = arith::AndIOp::create(b, loc, an, bn);
      Value eitherNaN = arith::OrIOp::create(b, loc, an, bn);
      // one NaN: it wins; two: the tie rule; none: the value order
      Value nanRule = arith::SelectOp::create(b, loc, bothNaN, posWins, bn);
      r = arith::SelectOp::create(b, loc, eitherNaN, nanRule, r);
    }
    return r;
  };
  auto combine = [&](ValueRange lhs, ValueRange rhs) -> SmallVector<Value> {
    Value aNone = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lhs[1], none);
    Value bNone = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rhs[1], none);
    Value takeB = arith::AndIOp::create(b, loc, arith::XOrIOp::create(b, loc, bNone, constInt(b.getI1Type(), 1)),
                                        arith::OrIOp::create(b, loc, aNone, beats(lhs[0], lhs[1], rhs[0], rhs[1])));
    return {arith::SelectOp::create(b, loc, takeB, rhs[0], lhs[0]),
            arith::SelectOp::create(b, loc, takeB, rhs[1], lhs[1])};
  };
  Type dtype = deviceScalarType(type);
  Value fill = isFloat ? arith::ConstantOp::create(b, loc, b.getFloatAttr(dtype, APFloat::getNaN(
                                                                             cast<FloatType>(dtype).getFloatSemantics())))
                             .getResult()
                       : constInt(dtype, 0);
  SmallVector<Value> acc{fill, none};
  for (int64_t k = 0, n = slots(fragment); k < n; ++k) {
    Value v = values[op.getInput()][k];
    Value pos = arith::IndexCastOp::create(b, loc, i64, arith::AddIOp::create(b, loc, tid, constIndex(k * threads)));
    // absent: past the fragment, or a NaN that is ignored
    Value absent = slotExists(fragment, k);
    absent = absent ? arith::XOrIOp::create(b, loc, absent, constInt(b.getI1Type(), 1)).getResult() : Value();
    if (isFloat && !propagate)
      absent = absent ? arith::OrIOp::create(b, loc, absent, isNaN(v)).getResult() : isNaN(v);
    if (absent)
      pos = arith::SelectOp::create(b, loc, absent, none, pos);
    acc = combine(acc, ValueRange{v, pos});
  }
  acc = combineAcrossCTA(acc, combine);
  // Nothing present (every member an ignored NaN): position 0 with NaN (fill) as the value.
  Value nothing = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, acc[1], none);
  Value pos = arith::SelectOp::create(b, loc, nothing, constInt(i64, 0), acc[1]);
  Value value = arith::SelectOp::create(b, loc, nothing, fill, acc[0]);
  Value index = arith::AddIOp::create(b, loc, values[op.getBase()][0],
                                      arith::IndexCastOp::create(b, loc, b.getIndexType(), pos));
  values[op.getValues()] = {value};
  values[op.getIndices()] = {index};
  return success();
}

/// pgpu.extract of one element of a rank-1 fragment: the owning thread publishes it through
/// shared memory and every thread reads it (scalars are uniform).
LogicalResult Selector::emitExtract(pgpu::ExtractOp op) {
  auto fragment = cast<pgpu::FragmentType>(op.getFragment().getType());
  Type type = deviceScalarType(fragment.getElementType());
  Type slotType = type.isIndex() ? b.getI64Type() : type.isInteger(1) ? b.getI8Type() : type;
  Value array = sharedArray(slotType, 1);
  SmallVector<Value> indices;
  for (Value i : op.getIndices())
    indices.push_back(values[i][0]);
  Value index = linearizeStatic(indices, shapeOf(fragment));
  Value owner = arith::RemUIOp::create(b, loc, index, constIndex(threads));
  Value slot = arith::DivUIOp::create(b, loc, index, constIndex(threads));
  Value mine = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, owner, tid);
  scf::IfOp::create(b, loc, mine, [&](OpBuilder &, Location) {
    // select the slot dynamically among this thread's registers
    Value v = values[op.getFragment()][0];
    for (int64_t k = 1, n = slots(fragment); k < n; ++k) {
      Value isK = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, slot, constIndex(k));
      v = arith::SelectOp::create(b, loc, isK, values[op.getFragment()][k], v);
    }
    if (type.isIndex())
      v = arith::IndexCastOp::create(b, loc, slotType, v);
    else if (type.isInteger(1))
      v = arith::ExtUIOp::create(b, loc, slotType, v);
    LLVM::StoreOp::create(b, loc, v, array);
    scf::YieldOp::create(b, loc);
  });
  gpu::BarrierOp::create(b, loc);
  Value v = LLVM::LoadOp::create(b, loc, slotType, array);
  if (type.isIndex())
    v = arith::IndexCastOp::create(b, loc, type, v);
  else if (type.isInteger(1))
    v = arith::TruncIOp::create(b, loc, type, v);
  gpu::BarrierOp::create(b, loc);
  values[op.getResult()] = {v};
  return success();
}

/// pgpu.scan of rank-1 fragments (Semantics.cpp scanAlong): the running prefix starts at the carry
/// (or the identity) and combines on the left. Slot k of every thread holds the consecutive
/// elements kT .. kT + T - 1, so each slot is one CTA-wide scan in element order: a shuffle scan
/// inside each warp, the warps' totals through shared memory, and the prefix carried from the
/// slots before. `reverse` walks elements from the end (slots, warps and lanes backwards).
LogicalResult Selector::emitScan(pgpu::ScanOp op) {
  auto fragment = cast<pgpu::FragmentType>(op.getInputs()[0].getType());
  bool reverse = op.getReverse(), exclusive = op.getExclusive();
  unsigned n = op.getInputs().size();
  bool ok = true;
  auto combine = [&](ValueRange lhs, ValueRange rhs) -> SmallVector<Value> {
    FailureOr<SmallVector<Value>> r = inlineCombine(op.getCombine(), lhs, rhs);
    if (failed(r)) {
      ok = false;
      return SmallVector<Value>(lhs.begin(), lhs.end());
    }
    return *r;
  };
  auto select = [&](Value c, ValueRange t, ValueRange f) {
    SmallVector<Value> out;
    for (auto [x, y] : llvm::zip(t, f))
      out.push_back(arith::SelectOp::create(b, loc, c, x, y));
    return out;
  };
  SmallVector<Value> identity, carry;
  flatten(op.getIdentities(), identity);
  if (op.getCarries().empty())
    carry = identity;
  else
    flatten(op.getCarries(), carry);
  Value lane = arith::RemUIOp::create(b, loc, tid, constIndex(32));
  Value warp = arith::DivUIOp::create(b, loc, tid, constIndex(32));
  int64_t warps = threads / 32;
  gpu::ShuffleMode towardLater = reverse ? gpu::ShuffleMode::DOWN : gpu::ShuffleMode::UP;
  int64_t slotCount = slots(fragment);
  SmallVector<SmallVector<Value>> results(n, SmallVector<Value>(slotCount));
  for (int64_t step = 0; step < slotCount; ++step) {
    int64_t k = reverse ? slotCount - 1 - step : step;
    SmallVector<Value> v;
    for (Value input : op.getInputs())
      v.push_back(values[input][k]);
    if (Value exists = slotExists(fragment, k))
      v = select(exists, v, identity);
    // inclusive scan inside the warp, in element order
    for (int32_t offset = 1; offset < 32; offset *= 2) {
      SmallVector<Value> earlier;
      for (Value x : v)
        earlier.push_back(shuffle(x, offset, towardLater));
      Value has = reverse ? arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                                  arith::AddIOp::create(b, loc, lane, constIndex(offset)),
                                                  constIndex(32)).getResult()
                          : arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, lane, constIndex(offset))
                                .getResult();
      v = select(has, combine(earlier, v), v);
    }
    SmallVector<Value> within = v; // inclusive within the warp
    if (exclusive) {
      SmallVector<Value> before;
      for (Value x : v)
        before.push_back(shuffle(x, 1, towardLater));
      Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, constIndex(reverse ? 31 : 0));
      within = select(first, identity, before);
    }
    // the prefix of the warps before this one, and the slot's total
    // (through shared memory even for one warp: every lane needs the total)
    SmallVector<Value> prefix = carry, total;
    {
      SmallVector<Value> arrays;
      SmallVector<Type> slotTypes;
      for (Value x : v) {
        Type t = x.getType().isIndex() ? b.getI64Type() : x.getType().isInteger(1) ? b.getI8Type() : x.getType();
        slotTypes.push_back(t);
        arrays.push_back(sharedArray(t, warps));
      }
      Value last = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, constIndex(reverse ? 0 : 31));
      Value warp64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), warp);
      scf::IfOp::create(b, loc, last, [&](OpBuilder &, Location) {
        for (auto [i, x] : llvm::enumerate(v)) {
          Value word = x.getType().isIndex() ? arith::IndexCastOp::create(b, loc, slotTypes[i], x).getResult()
                       : x.getType().isInteger(1) ? arith::ExtUIOp::create(b, loc, slotTypes[i], x).getResult()
                                                  : x;
          Value p = LLVM::GEPOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3), slotTypes[i], arrays[i],
                                        ValueRange{warp64});
          LLVM::StoreOp::create(b, loc, word, p);
        }
        scf::YieldOp::create(b, loc);
      });
      gpu::BarrierOp::create(b, loc);
      SmallVector<Value> running = identity;
      for (int64_t s = 0; s < warps; ++s) {
        int64_t w = reverse ? warps - 1 - s : s;
        SmallVector<Value> part;
        for (auto [i, x] : llvm::enumerate(v)) {
          Value p = LLVM::GEPOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3), slotTypes[i], arrays[i],
                                        ValueRange{constInt(b.getI64Type(), w)});
          Value word = LLVM::LoadOp::create(b, loc, slotTypes[i], p);
          part.push_back(x.getType().isIndex()      ? arith::IndexCastOp::create(b, loc, x.getType(), word).getResult()
                         : x.getType().isInteger(1) ? arith::TruncIOp::create(b, loc, x.getType(), word).getResult()
                                                    : word);
        }
        // warps before mine in element order contribute to my prefix
        Value before = arith::CmpIOp::create(b, loc, reverse ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::ult,
                                             constIndex(w), warp);
        prefix = select(before, combine(prefix, part), prefix);
        running = combine(running, part);
      }
      total = running;
      gpu::BarrierOp::create(b, loc);
    }
    SmallVector<Value> out = combine(prefix, within);
    for (unsigned c = 0; c < n; ++c)
      results[c][k] = out[c];
    carry = combine(carry, total);
  }
  if (!ok)
    return failure();
  for (auto [r, list] : llvm::zip(op.getResults(), results))
    values[r] = list;
  return success();
}

//===----------------------------------------------------------------------===//
// Fragments of rank >= 2. The flattened layout makes pointwise ops, accesses, full reductions and
// row-major reshapes free; an op that moves elements between threads (broadcast to another
// shape, transpose, reduction along some axes, contraction) stages its operands in shared memory,
// synchronizes, and every thread reads the elements its slots need. One staging area per kernel,
// sized by the largest use, is reused: each use ends with a barrier.
//===----------------------------------------------------------------------===//

Value Selector::stagedPointer(Type slotType, int64_t byteOffset, Value linear) {
  auto ptr = LLVM::LLVMPointerType::get(b.getContext(), 3);
  Value base = LLVM::AddressOfOp::create(b, loc, ptr, (kernel.getSymName() + "_stage").str());
  if (byteOffset)
    base = LLVM::GEPOp::create(b, loc, ptr, b.getI8Type(), base, ValueRange{constInt(b.getI64Type(), byteOffset)});
  Value at = arith::IndexCastOp::create(b, loc, b.getI64Type(), linear);
  return LLVM::GEPOp::create(b, loc, ptr, slotType, base, ValueRange{at});
}

FailureOr<int64_t> Selector::stage(Value fragment, int64_t byteOffset) {
  auto type = cast<pgpu::FragmentType>(fragment.getType());
  Type slotType = stageType(deviceScalarType(type.getElementType()));
  int64_t bytes = elements(type) * std::max<int64_t>(1, slotType.getIntOrFloatBitWidth() / 8);
  int64_t end = byteOffset + ((bytes + 15) / 16) * 16;
  if (end > kStageLimit)
    return current->emitError() << "the PTX selector would stage " << end
                                << " bytes of fragments in shared memory here, more than its " << kStageLimit
                                << "-byte budget (smaller tile parameters fit)";
  stageBytes = std::max(stageBytes, end);
  for (int64_t k = 0, n = slots(type); k < n; ++k) {
    Value v = values[fragment][k];
    Value word = v.getType().isIndex()      ? arith::IndexCastOp::create(b, loc, slotType, v).getResult()
                 : v.getType().isInteger(1) ? arith::ExtUIOp::create(b, loc, slotType, v).getResult()
                                            : v;
    Value linear = arith::AddIOp::create(b, loc, tid, constIndex(k * threads));
    auto store = [&] { LLVM::StoreOp::create(b, loc, word, stagedPointer(slotType, byteOffset, linear)); };
    if (Value exists = slotExists(type, k)) {
      scf::IfOp::create(b, loc, exists, [&](OpBuilder &, Location) {
        store();
        scf::YieldOp::create(b, loc);
      });
    } else {
      store();
    }
  }
  return end;
}

Value Selector::readStaged(Type type, int64_t byteOffset, Value linear) {
  Type slotType = stageType(type);
  Value word = LLVM::LoadOp::create(b, loc, slotType, stagedPointer(slotType, byteOffset, linear));
  if (type.isIndex())
    return arith::IndexCastOp::create(b, loc, type, word);
  if (type.isInteger(1))
    return arith::TruncIOp::create(b, loc, type, word);
  return word;
}

SmallVector<Value> Selector::delinearizeStatic(Value linear, ArrayRef<int64_t> shape) {
  SmallVector<Value> coords(shape.size());
  for (int64_t i = shape.size() - 1; i >= 0; --i) {
    coords[i] = i == 0 ? linear : arith::RemUIOp::create(b, loc, linear, constIndex(shape[i])).getResult();
    if (i > 0)
      linear = arith::DivUIOp::create(b, loc, linear, constIndex(shape[i]));
  }
  return coords;
}

Value Selector::linearizeStatic(ArrayRef<Value> coords, ArrayRef<int64_t> shape) {
  Value linear = constIndex(0);
  for (auto [c, e] : llvm::zip(coords, shape))
    linear = arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, linear, constIndex(e)), c);
  return linear;
}

/// A pure data movement: result element `index` is operand element `sourceCoords(index)`.
LogicalResult Selector::emitMove(Operation *op, Value operand, Value result,
                                 llvm::function_ref<SmallVector<Value>(ArrayRef<Value>)> sourceCoords) {
  auto from = cast<pgpu::FragmentType>(operand.getType());
  auto to = cast<pgpu::FragmentType>(result.getType());
  if (failed(stage(operand, 0)))
    return failure();
  gpu::BarrierOp::create(b, loc);
  SmallVector<int64_t> fromShape = shapeOf(from), toShape = shapeOf(to);
  Type type = deviceScalarType(from.getElementType());
  SmallVector<Value> out;
  for (int64_t k = 0, n = slots(to); k < n; ++k) {
    SmallVector<Value> index = delinearizeStatic(slotElement(to, k), toShape);
    out.push_back(readStaged(type, 0, linearizeStatic(sourceCoords(index), fromShape)));
  }
  gpu::BarrierOp::create(b, loc);
  values[result] = out;
  return success();
}

/// pgpu.reduce along some axes: every result element folds its line of staged inputs in order.
LogicalResult Selector::emitAxisReduce(pgpu::ReduceOp op) {
  auto input = cast<pgpu::FragmentType>(op.getInputs()[0].getType());
  SmallVector<int64_t> shape = shapeOf(input), reduced, kept;
  ArrayRef<int64_t> axes = op.getAxes();
  for (int64_t a = 0; a < int64_t(shape.size()); ++a)
    (llvm::is_contained(axes, a) ? reduced : kept).push_back(a);
  SmallVector<int64_t> reducedShape, offsets;
  for (int64_t a : reduced)
    reducedShape.push_back(shape[a]);
  int64_t offset = 0;
  for (Value in : op.getInputs()) {
    offsets.push_back(offset);
    FailureOr<int64_t> end = stage(in, offset);
    if (failed(end))
      return failure();
    offset = *end;
  }
  gpu::BarrierOp::create(b, loc);
  auto resultType = cast<pgpu::FragmentType>(op.getResults()[0].getType());
  SmallVector<int64_t> resultShape = shapeOf(resultType);
  int64_t length = 1;
  for (int64_t e : reducedShape)
    length *= e;
  SmallVector<Value> identity;
  flatten(op.getIdentities(), identity);
  SmallVector<SmallVector<Value>> results(op.getNumResults());
  bool ok = true;
  for (int64_t k = 0, n = slots(resultType); k < n; ++k) {
    SmallVector<Value> keptCoords = delinearizeStatic(slotElement(resultType, k), resultShape);
    auto loop = scf::ForOp::create(
        b, loc, constIndex(0), constIndex(length), constIndex(1), identity,
        [&](OpBuilder &, Location, Value j, ValueRange acc) {
          SmallVector<Value> r = delinearizeStatic(j, reducedShape), coords(shape.size());
          for (auto [i, a] : llvm::enumerate(kept))
            coords[a] = keptCoords[i];
          for (auto [i, a] : llvm::enumerate(reduced))
            coords[a] = r[i];
          Value linear = linearizeStatic(coords, shape);
          SmallVector<Value> member;
          for (auto [in, off] : llvm::zip(op.getInputs(), offsets))
            member.push_back(readStaged(deviceScalarType(cast<pgpu::FragmentType>(in.getType()).getElementType()),
                                        off, linear));
          FailureOr<SmallVector<Value>> next = inlineCombine(op.getCombine(), acc, member);
          ok = ok && succeeded(next);
          scf::YieldOp::create(b, loc, ok ? ValueRange(*next) : acc);
        });
    for (auto [c, r] : llvm::enumerate(loop.getResults()))
      results[c].push_back(r);
  }
  gpu::BarrierOp::create(b, loc);
  if (!ok)
    return failure();
  for (auto [r, list] : llvm::zip(op.getResults(), results))
    values[r] = list;
  return success();
}

/// pgpu.contract as plain FMA tiles (Semantics.cpp contractInto): lhs and rhs staged in shared
/// memory; each accumulator element adds its products in reduction order, widened to the
/// accumulator type and fused (fma) like the interpreter.
LogicalResult Selector::emitContract(pgpu::ContractOp op) {
  auto lhsType = cast<pgpu::FragmentType>(op.getLhs().getType());
  auto rhsType = cast<pgpu::FragmentType>(op.getRhs().getType());
  auto accType = cast<pgpu::FragmentType>(op.getType());
  SmallVector<int64_t> ls = shapeOf(lhsType), rs = shapeOf(rhsType), as = shapeOf(accType);
  ArrayRef<int64_t> lr = op.getLhsReduce(), rr = op.getRhsReduce(), lb = op.getLhsBatch(), rb = op.getRhsBatch();
  SmallVector<int64_t> lhsFree, rhsFree, reduceShape;
  for (int64_t a : lr)
    reduceShape.push_back(ls[a]);
  for (int64_t a = 0; a < int64_t(ls.size()); ++a)
    if (!llvm::is_contained(lr, a))
      lhsFree.push_back(a);
  for (int64_t a = 0; a < int64_t(rs.size()); ++a)
    if (!llvm::is_contained(rr, a) && !llvm::is_contained(rb, a))
      rhsFree.push_back(a);
  FailureOr<int64_t> rhsOffset = stage(op.getLhs(), 0);
  if (failed(rhsOffset) || failed(stage(op.getRhs(), *rhsOffset)))
    return failure();
  gpu::BarrierOp::create(b, loc);
  Type operand = lhsType.getElementType(), acc = accType.getElementType();
  Type dacc = deviceScalarType(acc);
  int64_t length = 1;
  for (int64_t e : reduceShape)
    length *= e;
  SmallVector<Value> out;
  for (int64_t k = 0, n = slots(accType); k < n; ++k) {
    SmallVector<Value> o = delinearizeStatic(slotElement(accType, k), as);
    SmallVector<Value> li(ls.size()), ri(rs.size());
    for (auto [i, a] : llvm::enumerate(lhsFree))
      li[a] = o[i];
    for (auto [i, a] : llvm::enumerate(rhsFree))
      ri[a] = o[lhsFree.size() + i];
    for (auto [a, c] : llvm::zip(lb, rb))
      ri[c] = li[a];
    auto loop = scf::ForOp::create(
        b, loc, constIndex(0), constIndex(length), constIndex(1), ValueRange{values[op.getAcc()][k]},
        [&](OpBuilder &, Location, Value j, ValueRange sum) {
          SmallVector<Value> r = delinearizeStatic(j, reduceShape), lc(li), rc(ri);
          for (auto [i, a] : llvm::enumerate(lr))
            lc[a] = r[i];
          for (auto [i, a] : llvm::enumerate(rr))
            rc[a] = r[i];
          Value x = castValue(operand, acc, readStaged(deviceScalarType(operand), 0, linearizeStatic(lc, ls)));
          Value y = castValue(operand, acc,
                              readStaged(deviceScalarType(operand), *rhsOffset, linearizeStatic(rc, rs)));
          Value next = isa<FloatType>(acc)
                           ? intrinsic("llvm.fma." + suffix(dacc), dacc, ValueRange{x, y, sum[0]})
                           : arith::AddIOp::create(b, loc, sum[0], arith::MulIOp::create(b, loc, x, y)).getResult();
          scf::YieldOp::create(b, loc, next);
        });
    out.push_back(loop.getResult(0));
  }
  gpu::BarrierOp::create(b, loc);
  values[op.getResult()] = out;
  return success();
}

//===----------------------------------------------------------------------===//
// Unblocked structured ops run as ordered loops of the CTA (the order is one of those their
// contracts allow; Triton legalization expands them the same way). Their bodies are uniform
// control, so the fragments and reductions inside stay CTA-wide.
//===----------------------------------------------------------------------===//

LogicalResult Selector::emitRangeReduce(pgpu::RangeReduceOp op) {
  SmallVector<Value> identity;
  flatten(op.getIdentities(), identity);
  bool ok = true;
  auto loop = scf::ForOp::create(b, loc, values[op.getLower()][0], values[op.getUpper()][0], constIndex(1), identity,
                                 [&](OpBuilder &, Location, Value i, ValueRange acc) {
                                   Block &element = op.getElement().front();
                                   values[element.getArgument(0)] = {i};
                                   ok = succeeded(emitBlock(element));
                                   SmallVector<Value> member;
                                   if (ok)
                                     flatten(element.getTerminator()->getOperands(), member);
                                   FailureOr<SmallVector<Value>> next =
                                       ok ? inlineCombine(op.getCombine(), acc, member) : FailureOr<SmallVector<Value>>(failure());
                                   ok = ok && succeeded(next);
                                   scf::YieldOp::create(b, loc, ok ? ValueRange(*next) : acc);
                                 });
  if (!ok)
    return failure();
  bind(op.getResults(), loop.getResults());
  return success();
}

/// Semantics of the pgpu interpreter: the first segment's summary is the state, each later
/// summary is combined into it; an empty range leaves the identities.
LogicalResult Selector::emitRegionFold(pgpu::RegionFoldOp op) {
  SmallVector<Value> init;
  flatten(op.getIdentities(), init);
  init.push_back(arith::ConstantOp::create(b, loc, b.getBoolAttr(true))); // first segment
  Value upper = values[op.getUpper()][0], step = values[op.getStep()][0];
  bool ok = true;
  auto loop = scf::ForOp::create(
      b, loc, values[op.getLower()][0], upper, step, init, [&](OpBuilder &, Location, Value begin, ValueRange carried) {
        ValueRange state = carried.drop_back();
        Value first = carried.back();
        Block &summarize = op.getSummarize().front();
        Value end = arith::MinSIOp::create(b, loc, arith::AddIOp::create(b, loc, begin, step), upper);
        values[summarize.getArgument(0)] = {begin};
        values[summarize.getArgument(1)] = {end};
        SmallVector<Value> captures(op.getCaptures().begin(), op.getCaptures().end());
        for (auto [i, v] : llvm::enumerate(captures)) {
          BlockArgument arg = summarize.getArgument(2 + i);
          if (isa<pgpu::ViewType>(v.getType()))
            views[arg] = views[v];
          else
            values[arg] = values[v];
        }
        ok = succeeded(emitBlock(summarize));
        SmallVector<Value> summary, yields;
        if (ok)
          flatten(summarize.getTerminator()->getOperands(), summary);
        FailureOr<SmallVector<Value>> merged = ok ? inlineCombine(op.getCombine(), state, summary) : FailureOr<SmallVector<Value>>(failure());
        ok = ok && succeeded(merged);
        if (ok)
          for (auto [s, m] : llvm::zip(summary, *merged))
            yields.push_back(arith::SelectOp::create(b, loc, first, s, m));
        else
          yields.assign(state.begin(), state.end());
        yields.push_back(arith::ConstantOp::create(b, loc, b.getBoolAttr(false)));
        scf::YieldOp::create(b, loc, yields);
      });
  if (!ok)
    return failure();
  bind(op.getResults(), loop.getResults().drop_back());
  return success();
}

LogicalResult Selector::emitForeach(pgpu::ForeachOp op) {
  bool ok = true;
  scf::ForOp::create(b, loc, values[op.getLower()][0], values[op.getUpper()][0], constIndex(1), ValueRange{},
                     [&](OpBuilder &, Location, Value i, ValueRange) {
                       Block &body = op.getBody().front();
                       values[body.getArgument(0)] = {i};
                       ok = succeeded(emitBlock(body));
                       scf::YieldOp::create(b, loc);
                     });
  return success(ok);
}

/// pgpu.scatter_reduce as relaxed atomics (the invocation-wide sharing domain: device scope, the
/// PTX default). A scalar value is added once, by thread 0 (scalars are uniform).
LogicalResult Selector::emitScatterReduce(pgpu::ScatterReduceOp op) {
  std::optional<StringRef> name = ptx::scatterAtomic(op);
  std::optional<LLVM::AtomicBinOp> kind = name ? LLVM::symbolizeAtomicBinOp(*name) : std::nullopt;
  if (!kind)
    return op.emitError() << "the PTX selector has no atomic for this scatter_reduce combine";
  auto viewType = cast<pgpu::ViewType>(op.getView().getType());
  auto fragment = dyn_cast<pgpu::FragmentType>(op.getValue().getType());
  fenceWrite(op.getView());
  for (int64_t k = 0, n = slotsOf(op.getValue()); k < n; ++k) {
    Value ok = at(op.getValid(), k);
    ok = fragment ? andMaybe(ok, slotExists(fragment, k)) : arith::AndIOp::create(b, loc, ok, laneIsZero);
    scf::IfOp::create(b, loc, ok, [&](OpBuilder &, Location) {
      Value p = address(viewType, op.getView(), op.getCoords(), k);
      LLVM::AtomicRMWOp::create(b, loc, *kind, p, at(op.getValue(), k), LLVM::AtomicOrdering::monotonic);
      scf::YieldOp::create(b, loc);
    });
  }
  fenceWrite(op.getView());
  return success();
}

LogicalResult Selector::emitOp(Operation *op) {
  loc = op->getLoc();
  current = op;
  if (std::optional<std::string> issue = ptx::selectionIssue(op))
    return op->emitError() << "the PTX selector cannot express '" << op->getName() << "': " << *issue;
  // Elementwise ops: one device op per slot.
  auto perSlot = [&](auto fn) -> LogicalResult {
    Value result = op->getResult(0);
    SmallVector<Value> out;
    for (int64_t k = 0, n = slotsOf(result); k < n; ++k) {
      FailureOr<Value> v = fn(k);
      if (failed(v))
        return failure();
      out.push_back(*v);
    }
    values[result] = out;
    return success();
  };
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](arith::ConstantOp c) {
        Attribute value = c.getValue();
        Type type = deviceScalarType(c.getType());
        if (auto integer = dyn_cast<IntegerAttr>(value))
          value = b.getIntegerAttr(type, integer.getValue());
        values[c.getResult()] = {arith::ConstantOp::create(b, loc, cast<TypedAttr>(value)).getResult()};
        return success();
      })
      .Case([&](pgpu::ParamOp p) {
        int64_t v = params.lookup(p.getName());
        values[p.getResult()] = {p.getType().isIndex() ? constIndex(v) : constInt(p.getType(), v)};
        return success();
      })
      .Case([&](pgpu::ExtentOp e) {
        values[e.getResult()] = {views[e.getView()].extents[e.getAxis()]};
        return success();
      })
      .Case([&](pgpu::StrideOp s) {
        values[s.getResult()] = {views[s.getView()].strides[s.getAxis()]};
        return success();
      })
      .Case([&](pgpu::CeilDivOp c) {
        Value x = values[c.getLhs()][0], y = values[c.getRhs()][0];
        values[c.getResult()] = {arith::CeilDivSIOp::create(b, loc, x, y)};
        return success();
      })
      .Case([&](pgpu::DelinearizeOp d) {
        Value linear = values[d.getLinear()][0];
        auto extents = d.getExtents();
        SmallVector<Value> coords(extents.size());
        for (int64_t i = extents.size() - 1; i >= 0; --i) {
          Value e = values[extents[i]][0];
          coords[i] = i == 0 ? linear : arith::RemUIOp::create(b, loc, linear, e).getResult();
          if (i > 0)
            linear = arith::DivUIOp::create(b, loc, linear, e);
        }
        for (auto [r, c] : llvm::zip(d.getResults(), coords))
          values[r] = {c};
        return success();
      })
      .Case([&](pgpu::ExecutionGroupOp g) {
        Block &body = g.getBody().front();
        Value linear = values[g.getLinear()][0];
        auto extents = g.getExtents();
        for (int64_t i = extents.size() - 1; i >= 0; --i) {
          Value e = values[extents[i]][0];
          values[body.getArgument(i)] = {i == 0 ? linear : arith::RemUIOp::create(b, loc, linear, e).getResult()};
          if (i > 0)
            linear = arith::DivUIOp::create(b, loc, linear, e);
        }
        return emitBlock(body);
      })
      .Case([&](pgpu::ForOp f) { return emitFor(f); })
      .Case([&](pgpu::IfOp i) { return emitIf(i); })
      .Case([&](pgpu::BinaryOp o) {
        Type type = pgpu::elementTypeOf(o.getType());
        return perSlot([&](int64_t k) {
          return binary(o, o.getKind(), type, at(o.getLhs(), k), at(o.getRhs(), k), o.getApproximate());
        });
      })
      .Case([&](pgpu::UnaryOp o) {
        Type type = pgpu::elementTypeOf(o.getType());
        return perSlot([&](int64_t k) { return unary(o, o.getKind(), type, at(o.getOperand(), k), o.getApproximate()); });
      })
      .Case([&](pgpu::CmpOp o) {
        Type type = pgpu::elementTypeOf(o.getLhs().getType());
        return perSlot([&](int64_t k) -> FailureOr<Value> {
          return compare(o.getPredicate(), type, at(o.getLhs(), k), at(o.getRhs(), k));
        });
      })
      .Case([&](pgpu::SelectOp o) {
        return perSlot([&](int64_t k) -> FailureOr<Value> {
          return arith::SelectOp::create(b, loc, at(o.getCondition(), k), at(o.getTrueValue(), k),
                                         at(o.getFalseValue(), k))
              .getResult();
        });
      })
      .Case([&](pgpu::CastOp o) {
        Type from = pgpu::elementTypeOf(o.getOperand().getType()), to = pgpu::elementTypeOf(o.getType());
        return perSlot([&](int64_t k) -> FailureOr<Value> { return castValue(from, to, at(o.getOperand(), k)); });
      })
      .Case([&](pgpu::BitcastOp o) {
        Type to = deviceScalarType(pgpu::elementTypeOf(o.getType()));
        return perSlot([&](int64_t k) -> FailureOr<Value> {
          Value x = at(o.getOperand(), k);
          return x.getType() == to ? x : arith::BitcastOp::create(b, loc, to, x).getResult();
        });
      })
      .Case([&](pgpu::IotaOp o) {
        Value base = arith::AddIOp::create(b, loc, values[o.getBase()][0], tid);
        return perSlot([&](int64_t k) -> FailureOr<Value> {
          return k == 0 ? base : arith::AddIOp::create(b, loc, base, constIndex(k * threads)).getResult();
        });
      })
      .Case([&](pgpu::SplatOp o) {
        return perSlot([&](int64_t) -> FailureOr<Value> { return values[o.getOperand()][0]; });
      })
      .Case([&](pgpu::BroadcastOp o) {
        if (o.getOperand().getType() == o.getType()) {
          values[o.getResult()] = values[o.getOperand()];
          return success();
        }
        ArrayRef<int64_t> dims = o.getDims();
        return emitMove(o, o.getOperand(), o.getResult(), [&](ArrayRef<Value> index) {
          SmallVector<Value> source;
          for (int64_t d : dims)
            source.push_back(index[d]);
          return source;
        });
      })
      .Case([&](pgpu::TransposeOp o) {
        ArrayRef<int64_t> perm = o.getPermutation();
        return emitMove(o, o.getOperand(), o.getResult(), [&](ArrayRef<Value> index) {
          SmallVector<Value> source(perm.size());
          for (auto [k, p] : llvm::enumerate(perm))
            source[p] = index[k];
          return source;
        });
      })
      .Case([&](pgpu::ReshapeOp o) { // row-major: the flattened layout is unchanged
        values[o.getResult()] = values[o.getOperand()];
        return success();
      })
      .Case([&](pgpu::ContractOp o) { return emitContract(o); })
      .Case([&](pgpu::LoadOp o) { return emitLoad(o, o.getView(), o.getCoords(), o.getValid(), o.getFill()); })
      .Case([&](pgpu::GatherOp o) { return emitLoad(o, o.getView(), o.getCoords(), o.getValid(), o.getFill()); })
      .Case([&](pgpu::StoreOp o) { return emitStore(o); })
      .Case([&](pgpu::ReduceOp o) { return emitReduce(o); })
      .Case([&](pgpu::ArgReduceOp o) { return emitArgReduce(o); })
      .Case([&](pgpu::ExtractOp o) { return emitExtract(o); })
      .Case([&](pgpu::ScanOp o) { return emitScan(o); })
      .Case([&](pgpu::RangeReduceOp o) { return emitRangeReduce(o); })
      .Case([&](pgpu::ScatterReduceOp o) { return emitScatterReduce(o); })
      .Case([&](pgpu::RegionFoldOp o) { return emitRegionFold(o); })
      .Case([&](pgpu::ForeachOp o) { return emitForeach(o); })
      .Default([&](Operation *o) {
        return o->emitError() << "the PTX selector cannot express '" << o->getName() << "'";
      });
}

LogicalResult Selector::run() {
  MLIRContext *ctx = kernel.getContext();
  threads = params.lookup(ptx::kThreadsParam);
  // The kernel signature (PTX.h ABI).
  SmallVector<Type> argTypes;
  Type i64 = b.getI64Type();
  auto globalPtr = LLVM::LLVMPointerType::get(ctx, 1);
  for (Type type : kernel.getArgumentTypes()) {
    if (auto view = dyn_cast<pgpu::ViewType>(type)) {
      argTypes.push_back(globalPtr);
      argTypes.append(2 * view.getRank(), i64);
    } else {
      Type t = deviceScalarType(type);
      argTypes.push_back(t.isIndex() ? i64 : t);
    }
  }
  b.setInsertionPointToEnd(module.getBody());
  auto func = gpu::GPUFuncOp::create(b, kernel.getLoc(), kernel.getSymName(), FunctionType::get(ctx, argTypes, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr({int32_t(threads), 1, 1}));
  Block &entry = func.getBody().front();
  b.setInsertionPointToStart(&entry);
  loc = kernel.getLoc();
  unsigned next = 0;
  auto asIndex = [&](Value v) { return arith::IndexCastOp::create(b, loc, b.getIndexType(), v).getResult(); };
  for (auto [i, type] : llvm::enumerate(kernel.getArgumentTypes())) {
    Value arg = kernel.getBody().getArgument(i);
    if (auto view = dyn_cast<pgpu::ViewType>(type)) {
      ViewABI abi;
      abi.pointer = entry.getArgument(next++);
      for (unsigned a = 0; a < view.getRank(); ++a)
        abi.extents.push_back(asIndex(entry.getArgument(next++)));
      for (unsigned a = 0; a < view.getRank(); ++a)
        abi.strides.push_back(asIndex(entry.getArgument(next++)));
      views[arg] = abi;
    } else {
      Value v = entry.getArgument(next++);
      values[arg] = {type.isIndex() ? asIndex(v) : v};
    }
  }
  DenseSet<Value> read, written;
  kernel.walk([&](Operation *op) {
    if (isa<pgpu::LoadOp, pgpu::GatherOp>(op))
      read.insert(op->getOperand(0));
    else if (auto store = dyn_cast<pgpu::StoreOp>(op))
      written.insert(store.getView());
    else if (auto scatter = dyn_cast<pgpu::ScatterReduceOp>(op))
      written.insert(scatter.getView());
  });
  for (Value v : written)
    if (read.contains(v))
      readAndWritten.insert(v);
  tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  laneIsZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, constIndex(0));
  // LaunchExprs, then the program space: this CTA is the instance block_id.x, decoded row-major.
  for (Operation &op : kernel.getBody().front().without_terminator()) {
    auto space = dyn_cast<pgpu::ProgramSpaceOp>(op);
    if (!space) {
      if (failed(emitOp(&op)))
        return failure();
      continue;
    }
    loc = space.getLoc();
    Value linear = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
    Block &body = space.getBody().front();
    auto extents = space.getExtents();
    for (int64_t i = extents.size() - 1; i >= 0; --i) {
      Value e = values[extents[i]][0];
      values[body.getArgument(i)] = {i == 0 ? linear : arith::RemUIOp::create(b, loc, linear, e).getResult()};
      if (i > 0)
        linear = arith::DivUIOp::create(b, loc, linear, e);
    }
    if (failed(emitBlock(body)))
      return failure();
  }
  gpu::ReturnOp::create(b, loc);
  // A CTA gets 48 KiB of static shared memory; ptxas would reject more, so the program is.
  if (stageBytes + sharedBytes > 48 * 1024)
    return kernel.emitError() << "the PTX selector needs " << stageBytes + sharedBytes
                              << " bytes of static shared memory for @" << kernel.getSymName()
                              << ", more than the 48 KiB a CTA gets (smaller tiles or fewer THREADS fit)";
  if (stageBytes > 0) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    LLVM::GlobalOp::create(b, loc, LLVM::LLVMArrayType::get(b.getI8Type(), stageBytes), /*isConstant=*/false,
                           LLVM::Linkage::Internal, (kernel.getSymName() + "_stage").str(), Attribute(),
                           /*alignment=*/16, /*addrSpace=*/3);
  }
  return success();
}
} // namespace

FailureOr<OwningOpRef<ModuleOp>>
ptx::selectDeviceIR(ModuleOp module, const llvm::StringMap<llvm::StringMap<int64_t>> &params) {
  MLIRContext *ctx = module.getContext();
  ctx->loadDialect<gpu::GPUDialect, arith::ArithDialect, scf::SCFDialect, LLVM::LLVMDialect>();
  OpBuilder b(ctx);
  OwningOpRef<ModuleOp> device = ModuleOp::create(module.getLoc());
  (*device)->setAttr(gpu::GPUDialect::getContainerModuleAttrName(), b.getUnitAttr());
  b.setInsertionPointToStart(device->getBody());
  auto gpuModule = gpu::GPUModuleOp::create(b, module.getLoc(), "tessel_ptx");
  for (pgpu::KernelOp kernel : module.getOps<pgpu::KernelOp>()) {
    auto it = params.find(kernel.getSymName());
    if (it == params.end())
      return kernel.emitError() << "kernel @" << kernel.getSymName() << " was not legalized for PTX";
    Selector selector(kernel, it->second, gpuModule);
    if (failed(selector.run()))
      return failure();
  }
  return device;
}
