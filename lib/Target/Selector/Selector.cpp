//===- Selector.cpp - legalized pgpu to the upstream device IR -------------===//
//
// The instruction selector shared by the GPU providers (seed 004 §"Provider
// selector boundaries"): it walks one legalized pgpu kernel and builds the
// same program in MLIR's upstream device dialects (gpu, arith, scf, llvm).
// The mapping of program instances to workgroups and of fragments to threads
// is described in Selector.h; the few target choices come from the
// DeviceTarget. Everything the selector cannot express was rejected by
// `legalize` (`selectionIssue`); reaching an unexpected op here is a selector
// bug and is reported at the op, never spelled approximately.
//
//===----------------------------------------------------------------------===//

#include "SelectorImpl.h"
#include "tessel/Target/ZeroDivisor.h"
#include "llvm/Support/SaveAndRestore.h"

#include "tessel/Dialect/PGPU/IR/LaunchGuards.h"

#include "mlir/IR/Matchers.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace tessel;
using namespace tessel::selector::detail;
using BinaryKind = kir::BinaryKind;
using UnaryKind = kir::UnaryKind;

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
    return op->emitError() << "the " << target.name() << " selector has no instruction for float '" << kir::stringifyBinaryKind(kind)
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
    // Floor division and modulo; a zero divisor gives 0 (KIR's rule, ZeroDivisor.h: guarded unless the
    // divisor is provably nonzero), and -1 never divides (no overflow trap).
    auto division = dyn_cast_or_null<pgpu::BinaryOp>(op);
    Value yZero = division && target::provablyNonZero(division.getRhs()) ? Value() : eq(y, zero);
    auto orZero = [&](Value c) { return yZero ? arith::OrIOp::create(b, loc, yZero, c).getResult() : c; };
    auto unlessZero = [&](Value r) { return yZero ? arith::SelectOp::create(b, loc, yZero, zero, r).getResult() : r; };
    if (u) {
      Value safe = yZero ? arith::SelectOp::create(b, loc, yZero, one, y).getResult() : y;
      Value r = kind == BinaryKind::Div ? arith::DivUIOp::create(b, loc, x, safe).getResult()
                                        : arith::RemUIOp::create(b, loc, x, safe).getResult();
      return unlessZero(r);
    }
    Value minusOne = type.isIndex() ? constIndex(-1) : constInt(type, -1);
    Value yMinusOne = eq(y, minusOne);
    Value safe = arith::SelectOp::create(b, loc, orZero(yMinusOne), one, y);
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
    return unlessZero(r);
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
  return op->emitError() << "the " << target.name() << " selector has no instruction for integer '" << kir::stringifyBinaryKind(kind)
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
    return op->emitError() << "the " << target.name() << " selector has no instruction for integer '" << kir::stringifyUnaryKind(kind)
                           << "'";
  }
  switch (kind) {
  case UnaryKind::Neg: return arith::NegFOp::create(b, loc, x).getResult();
  // Named intrinsics: convert-gpu-to-nvvm would turn llvm.intr.fabs/floor/ceil/sqrt into libdevice calls.
  case UnaryKind::Abs: return intrinsic("llvm.fabs." + suffix(type), type, x);
  case UnaryKind::Floor: return intrinsic("llvm.floor." + suffix(type), type, x);
  case UnaryKind::Ceil: return intrinsic("llvm.ceil." + suffix(type), type, x);
  case UnaryKind::Round: return intrinsic("llvm.roundeven." + suffix(type), type, x); // cvt.rni, v_rndne
  case UnaryKind::Sqrt: return intrinsic("llvm.sqrt." + suffix(type), type, x);
  default: break;
  }
  // Transcendentals: the target's approximate instructions on f32 (as the Triton provider's
  // spelling); f16/bf16 compute in f32 and round once, like the interpreter. No device library
  // is linked (libdevice, ocml), so f64 and the accurate kinds are rejected by legalization.
  Type f32 = b.getF32Type();
  if (!type.isF32() && !type.isF16() && !type.isBF16())
    return op->emitError() << "the " << target.name() << " selector computes '" << kir::stringifyUnaryKind(kind)
                           << "' in f32 only (no " << target.library() << "); got " << type;
  Value v = type.isF32() ? x : arith::ExtFOp::create(b, loc, f32, x).getResult();
  auto f = [&](double c) { return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(float(c))).getResult(); };
  auto ex2 = [&](Value a) { return target.approximate(b, loc, UnaryKind::Exp2, a); };
  auto lg2 = [&](Value a) { return target.approximate(b, loc, UnaryKind::Log2, a); };
  Value r;
  switch (kind) {
  case UnaryKind::Exp: r = ex2(arith::MulFOp::create(b, loc, v, f(M_LOG2E))); break;
  case UnaryKind::Exp2: r = ex2(v); break;
  case UnaryKind::Log: r = arith::MulFOp::create(b, loc, lg2(v), f(M_LN2)); break;
  case UnaryKind::Log2: r = lg2(v); break;
  case UnaryKind::Rsqrt:
    r = approximate ? target.approximate(b, loc, UnaryKind::Rsqrt, v)
                    : arith::DivFOp::create(b, loc, f(1.0), intrinsic("llvm.sqrt.f32", f32, v)).getResult();
    break;
  case UnaryKind::Sigmoid: {
    Value e = ex2(arith::MulFOp::create(b, loc, v, f(-M_LOG2E)));
    r = arith::DivFOp::create(b, loc, f(1.0), arith::AddFOp::create(b, loc, f(1.0), e));
    break;
  }
  case UnaryKind::Tanh:
  case UnaryKind::Sin:
  case UnaryKind::Cos:
    if (!approximate)
      return op->emitError() << "the " << target.name() << " selector has '" << kir::stringifyUnaryKind(kind)
                             << "' only with {approximate}; without it needs " << target.library()
                             << ", which the in-process provider does not use";
    r = target.approximate(b, loc, kind, v);
    break;
  default:
    return op->emitError() << "the " << target.name() << " selector has no instruction sequence for '"
                           << kir::stringifyUnaryKind(kind) << "' (erf, log1p, expm1, pow and accurate tanh need "
                           << target.library() << ", which the in-process provider does not use)";
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
/// saturates, NaN giving 0 (llvm.fptosi.sat; PTX cvt.rzi at 16/32/64 bits); to i1 tests != 0.
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
    // llvm.fpto[su]i.sat: LLVM's fptosi is poison out of range, and NVPTX widens an i8 result to a
    // 16-bit cvt, which then wraps; the saturating intrinsic is exactly kir.cast's rule.
    Type target = to.isIndex() ? b.getI64Type() : dto;
    Value r = intrinsic(llvm::Twine(isUnsigned(to) ? "llvm.fptoui.sat.i" : "llvm.fptosi.sat.i") +
                            llvm::Twine(target.getIntOrFloatBitWidth()) + "." + suffix(from),
                        target, x);
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
Value Selector::address(Type elementType, Value resource, ValueRange coords, int64_t k) {
  const ViewABI &abi = views[resource];
  Value offset = constIndex(0);
  for (auto [axis, c] : llvm::enumerate(coords))
    offset = arith::AddIOp::create(b, loc, offset, arith::MulIOp::create(b, loc, at(c, k), abi.strides[axis]));
  Value offset64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), offset);
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext(), 1);
  return LLVM::GEPOp::create(b, loc, ptrType, deviceScalarType(elementType), abi.pointer, ValueRange{offset64});
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
    if (!accumulated.contains(&op) && failed(emitOp(&op)))
      return failure();
  return success();
}

SmallVector<std::pair<unsigned, pgpu::HistogramOp>> Selector::carriedHistograms(pgpu::ForOp op) {
  SmallVector<std::pair<unsigned, pgpu::HistogramOp>> found;
  Block &body = op.getBody().front();
  Operation *yield = body.getTerminator();
  for (auto [i, init] : llvm::enumerate(op.getInits())) {
    auto splat = init.getDefiningOp<pgpu::SplatOp>();
    bool zero = splat && matchPattern(splat.getOperand(), m_Zero()) && isa<pgpu::FragmentType>(init.getType());
    if (!zero && !countsInShared.contains(init))
      continue;
    Value carried = body.getArgument(i + 1);
    if (!carried.hasOneUse())
      continue;
    auto add = dyn_cast<pgpu::BinaryOp>(*carried.getUsers().begin());
    if (!add || add.getKind() != kir::BinaryKind::Add || add->getBlock() != &body || !add->hasOneUse() ||
        *add->getUsers().begin() != yield || yield->getOperand(i) != add.getResult())
      continue;
    Value other = add.getLhs() == carried ? add.getRhs() : add.getLhs();
    auto histogram = other.getDefiningOp<pgpu::HistogramOp>();
    if (!histogram || histogram->getBlock() != &body || !histogram->hasOneUse() || other == carried ||
        histogram.getType() != init.getType())
      continue;
    found.push_back({unsigned(i), histogram});
  }
  return found;
}

/// A loop whose carried counts accumulate histograms (carriedHistograms) keeps them in a shared array
/// for the whole loop: zeroed once before it, every iteration's elements added by shared-memory
/// atomics, read into the result's slots once after it, so an iteration costs its elements only
/// and not the bins (each bin zeroed, read and added per iteration, and held in registers).
LogicalResult Selector::emitFor(pgpu::ForOp op) {
  SmallVector<std::pair<unsigned, pgpu::HistogramOp>> histograms = carriedHistograms(op);
  DenseMap<unsigned, Value> arrays;
  Block &body = op.getBody().front();
  for (auto [i, histogram] : histograms) {
    auto counts = cast<pgpu::FragmentType>(histogram.getType());
    Value array;
    // Counts a previous loop left in shared memory (its partial last block, split off by
    // narrow-predicates): this loop adds to them.
    if (auto it = countsInShared.find(op.getInits()[i]); it != countsInShared.end()) {
      array = LLVM::AddressOfOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3), it->second);
    } else {
      array = countArray(elements(counts));
      for (int64_t k = 0, n = slots(counts); k < n; ++k)
        LLVM::StoreOp::create(b, loc, constI32(0), sharedSlot(array, slotElement(counts, k)));
      gpu::BarrierOp::create(b, loc);
    }
    arrays[i] = array;
    accumulatingHistograms[histogram] = array;
    accumulated.insert(*body.getArgument(i + 1).getUsers().begin());
  }
  auto kept = [&](ValueRange range) {
    SmallVector<Value> out;
    for (auto [i, v] : llvm::enumerate(range))
      if (!arrays.contains(i))
        out.push_back(v);
    return out;
  };
  SmallVector<Value> inits;
  flatten(kept(op.getInits()), inits);
  bool ok = true;
  auto loop = scf::ForOp::create(b, loc, values[op.getLower()][0], values[op.getUpper()][0],
                                 values[op.getStep()][0], inits,
                                 [&](OpBuilder &, Location, Value iv, ValueRange carried) {
                                   values[body.getArgument(0)] = {iv};
                                   bind(kept(body.getArguments().drop_front()), carried);
                                   ok = succeeded(emitBlock(body));
                                   SmallVector<Value> yields;
                                   if (ok)
                                     flatten(kept(body.getTerminator()->getOperands()), yields);
                                   else
                                     yields.assign(carried.begin(), carried.end());
                                   scf::YieldOp::create(b, loc, yields);
                                 });
  bind(kept(op.getResults()), loop.getResults());
  // A result only a later loop of this block accumulates into stays in shared memory.
  auto continued = [&](unsigned i) {
    Value result = op.getResult(i);
    if (!result.hasOneUse())
      return false;
    auto next = dyn_cast<pgpu::ForOp>(*result.getUsers().begin());
    if (!next || next->getBlock() != op->getBlock())
      return false;
    countsInShared[result] = countArrays.lookup(elements(cast<pgpu::FragmentType>(result.getType())));
    bool accumulates = llvm::any_of(carriedHistograms(next), [&](auto h) { return next.getInits()[h.first] == result; });
    if (!accumulates)
      countsInShared.erase(result);
    return accumulates;
  };
  SmallVector<unsigned> read;
  for (auto [i, array] : arrays)
    if (!continued(i))
      read.push_back(i);
  if (!read.empty())
    gpu::BarrierOp::create(b, loc);
  for (unsigned i : read) {
    Value array = arrays[i];
    auto counts = cast<pgpu::FragmentType>(op.getResult(i).getType());
    SmallVector<Value> out;
    for (int64_t k = 0, n = slots(counts); k < n; ++k)
      out.push_back(LLVM::LoadOp::create(b, loc, b.getI32Type(), sharedSlot(array, slotElement(counts, k))));
    values[op.getResult(i)] = out;
  }
  // The next loop to count into the array (an enclosing loop's next iteration) zeroes it again.
  if (!read.empty())
    gpu::BarrierOp::create(b, loc);
  return success(ok);
}

LogicalResult Selector::emitIf(pgpu::IfOp op) {
  // A launch guard of this variant: only the branch it takes.
  if (auto it = fixed.find(op); it != fixed.end()) {
    Region &region = it->second ? op.getThenRegion() : op.getElseRegion();
    if (region.empty())
      return success();
    Block &block = region.front();
    if (failed(emitBlock(block)))
      return failure();
    SmallVector<Value> yields;
    flatten(block.getTerminator()->getOperands(), yields);
    bind(op.getResults(), yields);
    return success();
  }
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

Value Selector::loadSlot(Type elementType, Value view, ValueRange coords, Value ok, Value fill, int64_t k) {
  Type element = deviceScalarType(elementType);
  auto ifOp = scf::IfOp::create(
      b, loc, ok,
      [&](OpBuilder &, Location) {
        Value p = address(elementType, view, coords, k);
        scf::YieldOp::create(b, loc, LLVM::LoadOp::create(b, loc, element, p, 0, strongReads).getResult());
      },
      [&](OpBuilder &, Location) { scf::YieldOp::create(b, loc, values[fill][0]); });
  return ifOp.getResult(0);
}

void Selector::storeSlot(Value element, Type elementType, Value resource, ValueRange coords, Value ok, int64_t k) {
  scf::IfOp::create(b, loc, ok, [&](OpBuilder &, Location) {
    LLVM::StoreOp::create(b, loc, element, address(elementType, resource, coords, k));
    scf::YieldOp::create(b, loc);
  });
}

/// A read with validity and fill: invalid slots (and slots past the fragment) perform no access.
/// A fragment in the vector layout whose groups are contiguous is read a group at a time.
LogicalResult Selector::emitLoad(Operation *op, Value view, ValueRange coords, Value valid, Value fill) {
  // In a finalization, what other instances wrote is read strongly (emitLastProgram).
  auto last = op->getParentOfType<pgpu::LastProgramOp>();
  llvm::SaveAndRestore strong(strongReads, last && llvm::any_of(view.getUsers(), [&](Operation *user) {
                                             return !last->isAncestor(user) &&
                                                    isa<pgpu::StoreOp, pgpu::ScatterOp, pgpu::ScatterReduceOp,
                                                        pgpu::BufferStoreOp, pgpu::AtomicRMWOp, pgpu::AtomicCASOp,
                                                        pgpu::AtomicStoreOp>(user);
                                           }));
  Value result = op->getResult(0);
  Type elementType = pgpu::elementTypeOf(result.getType());
  auto fragment = dyn_cast<pgpu::FragmentType>(result.getType());
  int64_t group = fragment ? vectorOf(fragment) : 1;
  if (Value step = group > 1 ? groupStep(view, coords, group) : Value()) {
    values[result] = loadGroups(elementType, view, coords, valid, fill, fragment, group, step);
    return success();
  }
  SmallVector<Value> out;
  for (int64_t k = 0, n = slotsOf(result); k < n; ++k)
    out.push_back(loadSlot(elementType, view, coords, slotOk(valid, fragment, k, /*write=*/false), fill, k));
  values[result] = out;
  return success();
}

/// A write with validity. A scalar store is made by thread 0 only (scalars are uniform).
LogicalResult Selector::emitStore(Value value, Value resource, ValueRange coords, Value valid) {
  auto fragment = dyn_cast<pgpu::FragmentType>(value.getType());
  Type elementType = pgpu::elementTypeOf(value.getType());
  int64_t group = fragment ? vectorOf(fragment) : 1;
  fenceWrite(resource);
  if (Value step = group > 1 ? groupStep(resource, coords, group) : Value())
    storeGroups(value, elementType, resource, coords, valid, fragment, group, step);
  else
    for (int64_t k = 0, n = slotsOf(value); k < n; ++k)
      storeSlot(at(value, k), elementType, resource, coords, slotOk(valid, fragment, k, /*write=*/true), k);
  fenceWrite(resource);
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
  std::optional<StringRef> name = selector::scatterAtomic(op);
  std::optional<LLVM::AtomicBinOp> kind = name ? LLVM::symbolizeAtomicBinOp(*name) : std::nullopt;
  if (!kind)
    return op.emitError() << "the " << target.name() << " selector has no atomic for this scatter_reduce combine";
  Type elementType = pgpu::elementTypeOf(op.getValue().getType());
  auto fragment = dyn_cast<pgpu::FragmentType>(op.getValue().getType());
  fenceWrite(op.getView());
  for (int64_t k = 0, n = slotsOf(op.getValue()); k < n; ++k) {
    Value ok = at(op.getValid(), k);
    ok = fragment ? andMaybe(ok, slotExists(fragment, k)) : arith::AndIOp::create(b, loc, ok, laneIsZero);
    scf::IfOp::create(b, loc, ok, [&](OpBuilder &, Location) {
      Value p = address(elementType, op.getView(), op.getCoords(), k);
      LLVM::AtomicRMWOp::create(b, loc, *kind, p, at(op.getValue(), k), LLVM::AtomicOrdering::monotonic);
      scf::YieldOp::create(b, loc);
    });
  }
  fenceWrite(op.getView());
  return success();
}

/// pgpu.last_program: after a workgroup barrier (every thread's earlier effects precede thread 0's
/// release; a target whose barrier orders only within the workgroup releases to the device
/// first), thread 0 increments the ticket with acq_rel order and publishes whether it was the
/// last of the grid's CTAs through shared memory; that CTA runs the body. Its reads of what other
/// instances wrote are volatile (emitLoad): strong loads at the point of coherence, so no line this
/// SM's L1 kept from before the acquire can serve one (the Triton provider reads them with
/// ld.global.cg or an atomic exchange, OpSpelling.cpp).
LogicalResult Selector::emitLastProgram(pgpu::LastProgramOp op) {
  Type i32 = b.getI32Type();
  Value flag = sharedArray(i32, 1);
  // A ticketed finalization counts the instances that share ticket[coords].
  Value ticket = op.isTicketed() ? address(i32, op.getTicket(), op.getCoords(), 0) : Value();
  Value count = op.isTicketed() ? at(op.getArrivals(), 0) : Value();
  target.releaseToDevice(b, loc);
  gpu::BarrierOp::create(b, loc);
  scf::IfOp::create(b, loc, laneIsZero, [&](OpBuilder &, Location) {
    auto globalPtr = LLVM::LLVMPointerType::get(b.getContext(), 1);
    if (!ticket)
      ticket = LLVM::GEPOp::create(b, loc, globalPtr, i32, views[op.getTicket()].pointer,
                                   ValueRange{constInt(b.getI64Type(), 0)});
    target.fenceTicket(b, loc, /*acquire=*/false);
    Value arrived = LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::add, ticket, constI32(1),
                                              LLVM::AtomicOrdering::acq_rel);
    target.fenceTicket(b, loc, /*acquire=*/true);
    Value grid = arith::IndexCastOp::create(b, loc, i32, count ? count : target.programCount(b, loc));
    Value last = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, arrived,
                                       arith::SubIOp::create(b, loc, grid, constI32(1)));
    LLVM::StoreOp::create(b, loc, arith::ExtUIOp::create(b, loc, i32, last), flag);
    scf::YieldOp::create(b, loc);
  });
  gpu::BarrierOp::create(b, loc);
  Value last = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, LLVM::LoadOp::create(b, loc, i32, flag),
                                     constI32(0));
  bool ok = true;
  scf::IfOp::create(b, loc, last, [&](OpBuilder &, Location) {
    target.acquireFromDevice(b, loc);
    ok = succeeded(emitBlock(op.getBody().front()));
    scf::YieldOp::create(b, loc);
  });
  return success(ok);
}

/// pgpu.histogram: the CTA counts into a shared array of the bins (zeroed, one shared-memory atomic
/// add per active element, read back into the result's slots), seed 000 §8. The active values lie
/// in the bins (the op's contract); the barriers keep a loop's next histogram from zeroing early.
LogicalResult Selector::emitHistogram(pgpu::HistogramOp op) {
  auto input = cast<pgpu::FragmentType>(op.getInput().getType());
  auto result = cast<pgpu::FragmentType>(op.getType());
  Type i32 = b.getI32Type();
  auto slot = [&](Value array, Value index) { return sharedSlot(array, index); };
  Type valueType = deviceScalarType(input.getElementType());
  auto count = [&](Value array) {
    for (int64_t k = 0, n = slots(input); k < n; ++k) {
      Value ok = andMaybe(at(op.getValid(), k), slotExists(input, k));
      scf::IfOp::create(b, loc, ok, [&](OpBuilder &, Location) {
        Value v = at(op.getInput(), k);
        Value bin = valueType.isIndex() ? v : arith::IndexCastOp::create(b, loc, b.getIndexType(), v).getResult();
        LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::add, slot(array, bin), constI32(1),
                                  LLVM::AtomicOrdering::monotonic);
        scf::YieldOp::create(b, loc);
      });
    }
  };
  // Accumulated by its loop (emitFor): the loop zeroes and reads the array.
  if (auto it = accumulatingHistograms.find(op); it != accumulatingHistograms.end()) {
    count(it->second);
    return success();
  }
  Value array = sharedArray(i32, elements(result));
  for (int64_t k = 0, n = slots(result); k < n; ++k) {
    Value element = slotElement(result, k);
    LLVM::StoreOp::create(b, loc, constI32(0), slot(array, element));
  }
  gpu::BarrierOp::create(b, loc);
  count(array);
  gpu::BarrierOp::create(b, loc);
  Type countType = deviceScalarType(result.getElementType());
  SmallVector<Value> out;
  for (int64_t k = 0, n = slots(result); k < n; ++k) {
    Value c = LLVM::LoadOp::create(b, loc, i32, slot(array, slotElement(result, k)));
    out.push_back(castValue(b.getI32Type(), countType, c));
  }
  gpu::BarrierOp::create(b, loc);
  values[op.getResult()] = out;
  return success();
}

LogicalResult Selector::emitOp(Operation *op) {
  loc = op->getLoc();
  current = op;
  if (std::optional<std::string> issue = selector::selectionIssue(op, target))
    return op->emitError() << "the " << target.name() << " selector cannot express '" << op->getName() << "': " << *issue;
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
        if (auto integer = dyn_cast<IntegerAttr>(value)) {
          APInt v = integer.getValue();
          // An index constant at the i64 limits stands for "no value" (a min / max reduction's identity
          // over index values): in the kIndexBits-wide index lanes it is the lanes' limit, not its
          // truncation (INT64_MAX would wrap to -1, a wrong identity); every other index value fits.
          if (c.getType().isIndex() && kIndexBits < v.getBitWidth() && (v.isMaxSignedValue() || v.isMinSignedValue()))
            v = (v.isMaxSignedValue() ? APInt::getSignedMaxValue(kIndexBits) : APInt::getSignedMinValue(kIndexBits))
                    .sext(v.getBitWidth());
          value = b.getIntegerAttr(type, v);
        }
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
        auto type = cast<pgpu::FragmentType>(o.getType());
        return perSlot([&](int64_t k) -> FailureOr<Value> {
          return arith::AddIOp::create(b, loc, values[o.getBase()][0], slotIndex(type, k)).getResult();
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
      .Case([&](pgpu::StoreOp o) { return emitStore(o.getValue(), o.getView(), o.getCoords(), o.getValid()); })
      .Case([&](pgpu::BufferLoadOp o) {
        return emitLoad(o, o.getBuffer(), o.getCoords(), o.getValid(), o.getFill());
      })
      .Case([&](pgpu::BufferStoreOp o) {
        return emitStore(o.getValue(), o.getBuffer(), o.getCoords(), o.getValid());
      })
      .Case([&](pgpu::ReduceOp o) { return emitReduce(o); })
      .Case([&](pgpu::ArgReduceOp o) { return emitArgReduce(o); })
      .Case([&](pgpu::ExtractOp o) { return emitExtract(o); })
      .Case([&](pgpu::ScanOp o) { return emitScan(o); })
      .Case([&](pgpu::RangeReduceOp o) { return emitRangeReduce(o); })
      .Case([&](pgpu::ScatterReduceOp o) { return emitScatterReduce(o); })
      .Case([&](pgpu::LastProgramOp o) { return emitLastProgram(o); })
      .Case([&](pgpu::HistogramOp o) { return emitHistogram(o); })
      .Case([&](pgpu::RegionFoldOp o) { return emitRegionFold(o); })
      .Case([&](pgpu::ForeachOp o) { return emitForeach(o); })
      .Default([&](Operation *o) {
        return o->emitError() << "the " << target.name() << " selector cannot express '" << o->getName() << "'";
      });
}

LogicalResult Selector::run() {
  MLIRContext *ctx = kernel.getContext();
  threads = params.lookup(selector::kThreadsParam);
  vector = std::max<int64_t>(1, params.lookup(selector::kVectorParam));
  warpLanes = target.warpSize();
  // The kernel signature (Selector.h ABI).
  SmallVector<Type> argTypes;
  Type i64 = b.getI64Type();
  auto globalPtr = LLVM::LLVMPointerType::get(ctx, 1);
  for (Type type : kernel.getArgumentTypes()) {
    if (auto view = dyn_cast<pgpu::ViewType>(type)) {
      argTypes.push_back(globalPtr);
      argTypes.append(2 * view.getRank(), i64);
    } else if (isa<pgpu::BufferType>(type)) {
      argTypes.push_back(globalPtr); // invocation workspace, allocated by the runtime
    } else {
      Type t = deviceScalarType(type);
      argTypes.push_back(t.isIndex() ? i64 : t);
    }
  }
  b.setInsertionPointToEnd(module.getBody());
  auto func = gpu::GPUFuncOp::create(b, kernel.getLoc(), name, FunctionType::get(ctx, argTypes, {}));
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
    } else if (isa<pgpu::BufferType>(type)) {
      views[arg].pointer = entry.getArgument(next++); // extents below, once every view is bound
    } else {
      Value v = entry.getArgument(next++);
      values[arg] = {type.isIndex() ? asIndex(v) : v};
    }
  }
  // Workspace extents: sizes, parameters, or a view's extent of the same name; row-major strides.
  for (auto [i, type] : llvm::enumerate(kernel.getArgumentTypes())) {
    auto buffer = dyn_cast<pgpu::BufferType>(type);
    if (!buffer)
      continue;
    ViewABI &abi = views[kernel.getBody().getArgument(i)];
    for (Attribute e : buffer.getExtents()) {
      if (auto size = dyn_cast<IntegerAttr>(e)) {
        abi.extents.push_back(constIndex(size.getInt()));
        continue;
      }
      StringRef name = cast<StringAttr>(e).getValue();
      Value extent;
      if (auto it = params.find(name); it != params.end())
        extent = constIndex(it->second);
      for (auto [j, other] : llvm::enumerate(kernel.getArgumentTypes()))
        if (auto view = dyn_cast<pgpu::ViewType>(other); view && !extent)
          for (auto [axis, ve] : llvm::enumerate(view.getExtents()))
            if (auto vname = dyn_cast<StringAttr>(ve); vname && vname.getValue() == name && !extent)
              extent = views[kernel.getBody().getArgument(j)].extents[axis];
      if (!extent)
        return kernel.emitError() << "the " << target.name() << " selector cannot size workspace argument " << i << ": no view or "
                                  << "parameter names its extent '" << name << "'";
      abi.extents.push_back(extent);
    }
    abi.strides.assign(abi.extents.size(), Value());
    Value stride = constIndex(1);
    for (int64_t a = abi.extents.size() - 1; a >= 0; --a) {
      abi.strides[a] = stride;
      stride = arith::MulIOp::create(b, loc, stride, abi.extents[a]);
    }
  }
  DenseSet<Value> read, written;
  kernel.walk([&](Operation *op) {
    if (isa<pgpu::LoadOp, pgpu::GatherOp, pgpu::BufferLoadOp>(op))
      read.insert(op->getOperand(0));
    else if (auto store = dyn_cast<pgpu::StoreOp>(op))
      written.insert(store.getView());
    else if (auto store = dyn_cast<pgpu::BufferStoreOp>(op))
      written.insert(store.getBuffer());
    else if (auto scatter = dyn_cast<pgpu::ScatterReduceOp>(op))
      written.insert(scatter.getView());
  });
  for (Value v : written)
    if (read.contains(v))
      readAndWritten.insert(v);
  tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  laneIsZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, constIndex(0));
  // LaunchExprs, then the program space: this workgroup is the instance block_id.x, decoded row-major.
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
  // A workgroup gets a fixed amount of static shared memory; the assembler would reject more, so
  // the program is.
  if (stageBytes + sharedBytes > target.sharedMemoryBytes())
    return kernel.emitError() << "the " << target.name() << " selector needs " << stageBytes + sharedBytes
                              << " bytes of static shared memory for @" << kernel.getSymName() << ", more than the "
                              << target.sharedMemoryBytes() / 1024 << " KiB a " << target.groupWord()
                              << " gets (smaller tiles or fewer THREADS fit)";
  if (dynamicSharedBytes > 0 && stageBytes + sharedBytes + dynamicSharedBytes > target.dynamicSharedMemoryBytes())
    return kernel.emitError() << "the " << target.name() << " selector needs " << stageBytes + sharedBytes
                              << " bytes of static and " << dynamicSharedBytes << " of dynamic shared memory for @"
                              << kernel.getSymName() << ", more than the " << target.dynamicSharedMemoryBytes() / 1024
                              << " KiB a " << target.groupWord() << " may get (fewer HBINS fit)";
  if (stageBytes > 0) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    LLVM::GlobalOp::create(b, loc, LLVM::LLVMArrayType::get(b.getI8Type(), stageBytes), /*isConstant=*/false,
                           LLVM::Linkage::Internal, name + "_stage", Attribute(),
                           /*alignment=*/16, /*addrSpace=*/3);
  }
  return success();
}

FailureOr<OwningOpRef<ModuleOp>>
selector::selectDeviceIR(ModuleOp module, const DeviceTarget &target,
                         const llvm::StringMap<llvm::StringMap<int64_t>> &params, StringRef moduleName) {
  MLIRContext *ctx = module.getContext();
  ctx->loadDialect<gpu::GPUDialect, arith::ArithDialect, scf::SCFDialect, LLVM::LLVMDialect>();
  OpBuilder b(ctx);
  OwningOpRef<ModuleOp> device = ModuleOp::create(module.getLoc());
  (*device)->setAttr(gpu::GPUDialect::getContainerModuleAttrName(), b.getUnitAttr());
  b.setInsertionPointToStart(device->getBody());
  auto gpuModule = gpu::GPUModuleOp::create(b, module.getLoc(), moduleName);
  for (pgpu::KernelOp kernel : module.getOps<pgpu::KernelOp>()) {
    auto it = params.find(kernel.getSymName());
    if (it == params.end())
      return kernel.emitError() << "kernel @" << kernel.getSymName() << " was not legalized for " << target.name();
    // One device function per assignment of the kernel's launch guards (pgpu::launchGuards).
    SmallVector<pgpu::IfOp> guards = pgpu::launchGuards(kernel, target.launchGuards());
    for (unsigned holds = 0; holds < (1u << guards.size()); ++holds) {
      DenseMap<Operation *, bool> fixed;
      for (auto [i, guard] : llvm::enumerate(guards))
        fixed[guard] = (holds >> i) & 1;
      Selector selector(kernel, target, it->second, gpuModule,
                        pgpu::guardVariant(kernel.getSymName(), guards.size(), holds), std::move(fixed));
      if (failed(selector.run()))
        return failure();
    }
  }
  return device;
}


Value selector::DeviceTarget::programCount(OpBuilder &b, Location loc) const {
  return gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
}

LogicalResult selector::cleanupDeviceIR(ModuleOp deviceModule) {
  PassManager cleanup(deviceModule.getContext());
  cleanup.addPass(createCanonicalizerPass());
  cleanup.addPass(createCSEPass());
  return cleanup.run(deviceModule);
}
