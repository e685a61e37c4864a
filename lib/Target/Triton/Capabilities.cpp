//===- Capabilities.cpp - what the Triton provider can spell ---------------===//
//
// seed 002 §3.6 and §5.4: after the shared verifier, the selected provider's
// capabilities are checked locally and an inexpressible combination is an
// error at the op, at the earliest layer that knows it (legalization), never
// a fallback in the serializer. The serializer spells exactly what passes.
//
//===----------------------------------------------------------------------===//

#include "tessel/Target/Triton/Triton.h"

using namespace mlir;
using namespace tessel;

/// IEEE division and square root, correctly rounded (seed 000 §7: ordinary float operations round
/// to nearest even). tl.div_rn and tl.sqrt_rn take f32 only; Triton's f64 `/` and tl.sqrt are
/// div.rn.f64 and sqrt.rn.f64; f16/bf16 compute in f32 and round once, which is exact for these
/// operations (f32 carries more than twice their significand bits plus two).
static std::string narrowed(Type element, const std::string &f32Expr) {
  return "tl.cast(" + f32Expr + ", " + (element.isF16() ? "tl.float16)" : "tl.bfloat16)");
}
static std::string toF32(const std::string &x) { return "tl.cast(" + x + ", tl.float32)"; }
static std::string f8ToF32(const std::string &x) { return "_f8_to_f32(" + x + ")"; }
static std::string roundedDiv(Type element, const std::string &l, const std::string &r) {
  if (element.isF64())
    return "(" + l + ") / (" + r + ")";
  if (element.isF16() || element.isBF16())
    return narrowed(element, "tl.div_rn(" + toF32(l) + ", " + toF32(r) + ")");
  return "tl.div_rn(" + l + ", " + r + ")";
}
static std::string roundedSqrt(Type element, const std::string &x) {
  if (element.isF64())
    return "tl.sqrt(" + x + ")";
  if (element.isF16() || element.isBF16())
    return narrowed(element, "tl.sqrt_rn(" + toF32(x) + ")");
  return "tl.sqrt_rn(" + x + ")";
}

bool triton::isFloat8(Type element) { return isa<Float8E4M3FNType, Float8E5M2Type>(element); }

std::string triton::float8Narrowing(Type element, const std::string &f32Expr) {
  // The module's helpers (TritonSerializer.cpp, float8Prelude).
  return (isa<Float8E4M3FNType>(element) ? "_to_f8e4m3(" : "_to_f8e5m2(") + f32Expr + ")";
}

std::string triton::float8Widening(const std::string &x) { return "_f8_to_f32(" + x + ")"; }

/// Round half to even (kir.unary round; Triton has no tl function for it): below 2^(p-1), p the
/// significand bits, adding and subtracting 2^(p-1) rounds the magnitude to an integer in the current
/// (nearest-even) mode, exactly; the sign is put back, and zeros, larger magnitudes (integers
/// already), infinities and NaN are kept. f16/bf16 compute in f32, where their values round to
/// integers they can hold (the cuTile provider rejects the kind; PTX and AMDGPU select llvm.roundeven).
static std::string roundHalfEven(Type element, const std::string &x) {
  bool narrow = element.isF16() || element.isBF16();
  std::string v = narrow ? toF32(x) : x;
  std::string c = element.isF64() ? "4503599627370496.0" : "8388608.0";
  std::string mag = "((tl.abs(" + v + ") + " + c + ") - " + c + ")";
  std::string r = "tl.where((tl.abs(" + v + ") < " + c + ") & (" + v + " != 0), tl.where(" + v + " < 0, " + mag +
                  " * -1.0, " + mag + "), " + v + ")"; // * -1.0: Triton's `-x` is 0 - x, which loses -0.0
  return narrow ? narrowed(element, r) : r;
}

/// Integer `div`/`rem` follow floor semantics (KIRDialect.md; `//` and `%` in the DSL), Triton's `//`
/// and `%` on integer tensors C's (arith.divsi/remsi: toward zero, the remainder takes the dividend's
/// sign), on a GPU and under TRITON_INTERPRET=1 alike: -1 // 7 gave 0, not -1 (found by the DSL fuzzer).
/// The truncated result is adjusted where the remainder is nonzero and the operands' signs differ:
/// quotient - 1, remainder + divisor. `index` values (tl.int32, or Python ints for constants and
/// parameters) compare with and subtract plain literals; they keep Triton's operators where the
/// dividend is provably non-negative and the divisor positive (`truncationExact`, pgpu's IndexSign.h:
/// construction's address arithmetic), where truncation and floor agree (issue 47: (0 - 3) // 2 gave
/// -1, not -2).
static std::string floorAdjusted(Type type, const std::string &l, const std::string &r, bool quotient) {
  auto i = dyn_cast<IntegerType>(type);
  std::string ty = i ? "tl.int" + std::to_string(i.getWidth()) : "";
  std::string zero = i ? "tl.full([], 0, " + ty + ")" : "0";
  std::string one = i ? "tl.full([], 1, " + ty + ")" : "1";
  std::string truncated = l + (quotient ? " // " : " % ") + r;
  std::string fix = "((" + l + " % " + r + ") != 0) & ((" + l + " < " + zero + ") != (" + r + " < " + zero + "))";
  std::string adjusted = quotient ? "(" + truncated + ") - " + one : "(" + truncated + ") + " + r;
  return "tl.where(" + fix + ", " + adjusted + ", " + truncated + ")";
}

/// `x` as an operand of a binary operator: itself when a name or a literal, else parenthesized.
static std::string operand(const std::string &x) {
  bool atom = !x.empty() && llvm::all_of(x, [](char c) { return llvm::isAlnum(c) || c == '_' || c == '.'; });
  return atom ? x : "(" + x + ")";
}

std::string triton::scalarRemainderSpelling(const std::string &lhs, const std::string &rhs) {
  std::string l = operand(lhs), r = operand(rhs);
  return l + " - (" + l + " // " + r + ") * " + r;
}

std::optional<std::string> triton::binarySpelling(kir::BinaryKind kind, Type element, bool approximate,
                                                  const std::string &l, const std::string &r, bool truncationExact) {
  if (isFloat8(element)) { // in f32 (exact widening), rounded once
    std::optional<std::string> wide =
        binarySpelling(kind, Float32Type::get(element.getContext()), approximate, f8ToF32(l), f8ToF32(r));
    return wide ? std::optional<std::string>(float8Narrowing(element, *wide)) : std::nullopt;
  }
  bool isFloat = isa<FloatType>(element);
  switch (kind) {
  case kir::BinaryKind::Add: return l + " + " + r;
  case kir::BinaryKind::Sub: return l + " - " + r;
  case kir::BinaryKind::Mul: return l + " * " + r;
  case kir::BinaryKind::Div:
    if (auto i = dyn_cast<IntegerType>(element); i && i.getWidth() > 1)
      return floorAdjusted(i, l, r, /*quotient=*/true);
    if (element.isIndex() && !truncationExact)
      return floorAdjusted(element, l, r, /*quotient=*/true);
    if (!isFloat)
      return l + " // " + r;
    return approximate ? l + " / " + r : roundedDiv(element, l, r);
  case kir::BinaryKind::Rem:
    if (auto i = dyn_cast<IntegerType>(element); i && i.getWidth() > 1)
      return floorAdjusted(i, l, r, /*quotient=*/false);
    if (element.isIndex() && !truncationExact)
      return floorAdjusted(element, l, r, /*quotient=*/false);
    return l + " % " + r;
  // NaN-propagating max/min computes 16-bit floats in f32 (Triton 3.6 returns f32 there); the
  // result is one of the operands, so narrowing it back is exact.
  case kir::BinaryKind::Max:
    if (element.isF16() || element.isBF16())
      return narrowed(element, "tl.maximum(" + l + ", " + r + ", propagate_nan=tl.PropagateNan.ALL)");
    return isFloat ? "tl.maximum(" + l + ", " + r + ", propagate_nan=tl.PropagateNan.ALL)"
                   : "tl.maximum(" + l + ", " + r + ")";
  case kir::BinaryKind::Min:
    if (element.isF16() || element.isBF16())
      return narrowed(element, "tl.minimum(" + l + ", " + r + ", propagate_nan=tl.PropagateNan.ALL)");
    return isFloat ? "tl.minimum(" + l + ", " + r + ", propagate_nan=tl.PropagateNan.ALL)"
                   : "tl.minimum(" + l + ", " + r + ")";
  case kir::BinaryKind::And: return l + " & " + r;
  case kir::BinaryKind::Or: return l + " | " + r;
  case kir::BinaryKind::Xor: return l + " ^ " + r;
  case kir::BinaryKind::Shl: return l + " << " + r;
  case kir::BinaryKind::Shr: return l + " >> " + r;
  case kir::BinaryKind::Pow:
    // tl.* has no pow; libdevice's __nv_powf is within the CUDA math bound (types §5, seed 000 §7).
    if (element.isF32() || element.isF64())
      return "libdevice.pow(" + l + ", " + r + ")";
    if (element.isF16() || element.isBF16())
      return "tl.cast(libdevice.pow(tl.cast(" + l + ", tl.float32), tl.cast(" + r + ", tl.float32)), " +
             (element.isF16() ? "tl.float16)" : "tl.bfloat16)");
    return std::nullopt;
  default: return std::nullopt;
  }
}

/// Kinds whose required accuracy (seed 000 §7: approximate=false is library precision, the CUDA math
/// bounds) no `tl.*` function has: tl.exp and tl.sigmoid run ex2.approx on x * log2(e), whose error
/// grows with |x|; tanh, log1p and expm1 are not in tl.* at all; tl.erf's lowering is not documented.
/// These spell through libdevice, which computes f32 and f64 only, so f16/bf16 evaluate in f32 and
/// round once (types §5: "lower precision evaluates in f32 then casts").
static bool isLibdeviceKind(kir::UnaryKind kind) {
  using K = kir::UnaryKind;
  return kind == K::Tanh || kind == K::Erf || kind == K::Sigmoid || kind == K::Log1p || kind == K::Expm1;
}

bool triton::usesLibdevice(Operation *op) {
  if (auto u = dyn_cast<pgpu::UnaryOp>(op))
    return isLibdeviceKind(u.getKind()) && isa<FloatType>(pgpu::elementTypeOf(u.getType()));
  if (auto b = dyn_cast<pgpu::BinaryOp>(op))
    return b.getKind() == kir::BinaryKind::Pow && isa<FloatType>(pgpu::elementTypeOf(b.getType()));
  return false;
}

std::optional<std::string> triton::unarySpelling(kir::UnaryKind kind, Type element, bool approximate,
                                                 const std::string &x) {
  using K = kir::UnaryKind;
  if (isFloat8(element)) { // in f32 (exact widening), rounded once
    std::optional<std::string> wide = unarySpelling(kind, Float32Type::get(element.getContext()), approximate, f8ToF32(x));
    return wide ? std::optional<std::string>(float8Narrowing(element, *wide)) : std::nullopt;
  }
  if (isLibdeviceKind(kind)) {
    if (!isa<FloatType>(element))
      return std::nullopt;
    bool narrow = !element.isF32() && !element.isF64();
    std::string a = narrow ? "tl.cast(" + x + ", tl.float32)" : x;
    std::string r;
    switch (kind) {
    // approximate tanh: relative error <= 2^-11 (types §5.1), PTX tanh.approx.f32 (the module's
    // _tanh_approx: inline PTX, or NumPy under TRITON_INTERPRET=1).
    case K::Tanh: r = (approximate ? "_tanh_approx(" : "libdevice.tanh(") + a + ")"; break;
    case K::Erf: r = "libdevice.erf(" + a + ")"; break;
    case K::Log1p: r = "libdevice.log1p(" + a + ")"; break;
    case K::Expm1: r = "libdevice.expm1(" + a + ")"; break;
    // 1 / (1 + e^-x), each step within its bound: an underflowing e^-x gives 1, an overflowing one 0.
    case K::Sigmoid:
      r = roundedDiv(element.isF64() ? element : Float32Type::get(element.getContext()), "1.0",
                     "1.0 + libdevice.exp(-(" + a + "))");
      break;
    default: return std::nullopt;
    }
    if (!narrow)
      return r;
    return element.isF16() ? "tl.cast(" + r + ", tl.float16)"
                           : element.isBF16() ? "tl.cast(" + r + ", tl.bfloat16)" : std::optional<std::string>();
  }
  switch (kind) {
  // Triton's unary minus on floats is 0 - x, which gives +0.0 for +0.0; multiplying by -1.0 flips
  // the sign bit of every value, zeros included (IEEE negate), at the same cost. f16/bf16 negate in
  // f32 (exact both ways; the CPU interpreter has no bf16 scalar constants).
  case K::Neg:
    if (element.isF16() || element.isBF16())
      return narrowed(element, "(" + toF32(x) + " * -1.0)");
    return isa<FloatType>(element) ? "(" + x + " * -1.0)" : "-" + x;
  case K::Abs: return "tl.abs(" + x + ")";
  default: break;
  }
  // tl.exp, exp2, log, log2, sin, cos, floor and ceil accept fp32 and fp64 only (Triton 3.6 raises
  // "Expected dtype ['fp32', 'fp64'] but got fp16" at compile time, on a GPU and in the interpreter):
  // f16 and bf16 evaluate in f32 and round once (types §5), as the libdevice kinds above. Found by
  // the DSL fuzzer (test/fuzz/dsl_fuzz.py).
  if (element.isF16() || element.isBF16()) {
    const char *fn = nullptr;
    switch (kind) {
    case K::Exp: fn = "tl.exp("; break;
    case K::Exp2: fn = "tl.exp2("; break;
    case K::Log: fn = "tl.log("; break;
    case K::Log2: fn = "tl.log2("; break;
    case K::Sin: fn = "tl.sin("; break;
    case K::Cos: fn = "tl.cos("; break;
    case K::Floor: fn = "tl.floor("; break;
    case K::Ceil: fn = "tl.ceil("; break;
    default: break;
    }
    if (fn)
      return narrowed(element, fn + toF32(x) + ")");
  }
  switch (kind) {
  case K::Exp: return "tl.exp(" + x + ")";
  case K::Exp2: return "tl.exp2(" + x + ")";
  case K::Log: return "tl.log(" + x + ")";
  case K::Log2: return "tl.log2(" + x + ")";
  case K::Sqrt: return roundedSqrt(element, x);
  case K::Rsqrt:
    if (element.isF16() || element.isBF16()) // 1 / sqrt in f32, rounded once to the narrow type
      return narrowed(element, "tl.div_rn(1.0, tl.sqrt_rn(" + toF32(x) + "))");
    return roundedDiv(element, "1.0", roundedSqrt(element, x));
  case K::Sin: return "tl.sin(" + x + ")";
  case K::Cos: return "tl.cos(" + x + ")";
  case K::Floor: return "tl.floor(" + x + ")";
  case K::Ceil: return "tl.ceil(" + x + ")";
  case K::Round: return roundHalfEven(element, x);
  // Logical not of an i1 is a comparison with 0, an i1: `x ^ 1` promoted to int32 in Triton (the
  // literal is an int32), which tl.store and tl.load reject as a mask ("Mask must have boolean scalar
  // type", on a GPU too; found by the DSL fuzzer).
  case K::Not: return element.isInteger(1) ? "(" + x + " == 0)" : "~" + x;
  default: return std::nullopt;
  }
}

bool triton::contractsWithFMA(pgpu::ContractOp contract) {
  return cast<pgpu::FragmentType>(contract.getLhs().getType()).getElementType().isF32() &&
         kir::precisionOr(contract.getPrecision()) == kir::ContractPrecision::IEEE;
}

std::optional<triton::ScatterAtomic> triton::scatterAtomic(pgpu::ScatterReduceOp op) {
  pgpu::BinaryOp binary = pgpu::singleBinaryCombine(op.getCombine().front());
  if (!binary)
    return std::nullopt;
  Type type = binary.getType();
  bool isFloat = isa<FloatType>(type);
  // tl.atomic_max/min take floats as f32/f64 only (an integer max of the bits, by sign).
  bool wideFloat = type.isF32() || type.isF64();
  using K = kir::BinaryKind;
  if (binary.getKind() == K::Add)
    return ScatterAtomic{"tl.atomic_add", ScatterAtomic::AsIs};
  // Triton's other atomics take 32- and 64-bit elements only (atom_red_typechecking_impl).
  if (!isFloat && type.getIntOrFloatBitWidth() < 32)
    return std::nullopt;
  switch (binary.getKind()) {
  case K::Max: case K::MaxNum: case K::Min: case K::MinNum: {
    bool max = binary.getKind() == K::Max || binary.getKind() == K::MaxNum;
    StringRef fn = max ? "tl.atomic_max" : "tl.atomic_min";
    if (!isFloat)
      return ScatterAtomic{fn, ScatterAtomic::AsIs};
    if (!wideFloat)
      return std::nullopt;
    bool propagate = binary.getKind() == K::Max || binary.getKind() == K::Min;
    if (!propagate)
      return ScatterAtomic{fn, ScatterAtomic::DropNaN};
    return ScatterAtomic{fn, max ? ScatterAtomic::PositiveNaN : ScatterAtomic::NegativeNaN};
  }
  case K::And: return ScatterAtomic{"tl.atomic_and", ScatterAtomic::AsIs};
  case K::Or: return ScatterAtomic{"tl.atomic_or", ScatterAtomic::AsIs};
  case K::Xor: return ScatterAtomic{"tl.atomic_xor", ScatterAtomic::AsIs};
  default: return std::nullopt;
  }
}

std::optional<std::string> triton::spellingIssue(Operation *op) {
  for (Type t : op->getResultTypes()) {
    if (isa<TupleType>(t))
      return std::string("tuples are not spelled yet");
    if (auto f = dyn_cast<pgpu::FragmentType>(t); f && f.getRank() > 2)
      return std::string("fragments of rank > 2 are not spelled yet");
  }
  // FP8 values load, store, convert and compute pointwise (through f32); what combines them in
  // Triton's own reductions, scans and atomics would run on FP8 registers, which have no arithmetic.
  if (isa<pgpu::ReduceOp, pgpu::ScanOp, pgpu::ScatterReduceOp, pgpu::AtomicRMWOp, pgpu::AtomicStoreOp,
          pgpu::AtomicLoadOp, pgpu::HistogramOp>(op) &&
      (llvm::any_of(op->getOperandTypes(), [](Type t) { return isFloat8(pgpu::elementTypeOf(t)); }) ||
       llvm::any_of(op->getResultTypes(), [](Type t) { return isFloat8(pgpu::elementTypeOf(t)); })))
    return std::string("FP8 reductions, scans and atomics are not spelled by the triton provider; combine the "
                       "values in f32 (T.cast(x, T.f32)) and convert the result");
  if (isa<pgpu::RangeReduceOp, pgpu::RangeScanOp, pgpu::RegionFoldOp>(op))
    return std::string("an unblocked structured op must be expanded by pgpu-triton-legalize first");
  if (auto h = dyn_cast<pgpu::HistogramOp>(op); h && cast<pgpu::FragmentType>(h.getInput().getType()).getRank() != 1)
    return std::string("tl.histogram counts a one-dimensional fragment");
  if (auto r = dyn_cast<pgpu::AtomicRMWOp>(op)) {
    // A scalar read-modify-write (one thread performs it; every thread gets the old value).
    if (!r.getValue().getType().isIntOrFloat())
      return std::string("an atomic read-modify-write is spelled for scalars only");
    if (!llvm::is_contained({kir::RMWKind::Add, kir::RMWKind::Max, kir::RMWKind::Min, kir::RMWKind::Exchange},
                            r.getKind()))
      return "no Triton spelling for an atomic '" + kir::stringifyRMWKind(r.getKind()).str() + "'";
    return std::nullopt;
  }
  if (isa<pgpu::RegionScanOp, pgpu::ArgReduceOp, pgpu::ScaledContractOp, pgpu::SparseContractOp,
          pgpu::AtomicCASOp, pgpu::AllocOp, pgpu::ReshapeOp, pgpu::JoinOp, pgpu::TupleOp,
          pgpu::TupleGetOp>(op))
    return std::string("no Triton spelling for this op yet");
  if (auto l = dyn_cast<pgpu::AtomicLoadOp>(op)) {
    // Spelled as an atomic add of 0, which leaves integers (only) unchanged.
    if (!isa<IntegerType>(l.getType()))
      return std::string("an atomic read is spelled for integer scalars only");
  }
  if (auto s = dyn_cast<pgpu::AtomicStoreOp>(op); s && !s.getValue().getType().isIntOrFloat())
    return std::string("an atomic write is spelled for scalars only");
  if (isa<pgpu::BufferLoadOp, pgpu::BufferStoreOp>(op)) {
    Value buffer = isa<pgpu::BufferLoadOp>(op) ? cast<pgpu::BufferLoadOp>(op).getBuffer()
                                               : cast<pgpu::BufferStoreOp>(op).getBuffer();
    if (!isa<BlockArgument>(buffer) || !isa<pgpu::KernelOp>(cast<BlockArgument>(buffer).getOwner()->getParentOp()))
      return std::string("only workspace buffers (kernel arguments) are spelled; program and iteration buffers "
                         "are not yet");
  }
  if (auto b = dyn_cast<pgpu::BinaryOp>(op))
    if (!binarySpelling(b.getKind(), pgpu::elementTypeOf(b.getType()), b.getApproximate(), "", ""))
      return std::string("no Triton operation with this kind's NaN semantics");
  if (auto u = dyn_cast<pgpu::UnaryOp>(op))
    if (!unarySpelling(u.getKind(), pgpu::elementTypeOf(u.getType()), u.getApproximate(), ""))
      return "no Triton math function computes '" + kir::stringifyUnaryKind(u.getKind()).str() + "' on " +
             [&] {
               std::string s;
               llvm::raw_string_ostream os(s);
               os << pgpu::elementTypeOf(u.getType());
               return s;
             }() + " with the required accuracy";
  if (auto sr = dyn_cast<pgpu::ScatterReduceOp>(op)) {
    if (isa<pgpu::BufferType>(sr.getView().getType()) &&
        (!isa<BlockArgument>(sr.getView()) ||
         !isa<pgpu::KernelOp>(cast<BlockArgument>(sr.getView()).getOwner()->getParentOp())))
      return std::string("only workspace buffers (kernel arguments) are spelled");
    if (!triton::scatterAtomic(sr))
      return std::string("the combine is not one Triton atomic: an add, a max or min (integers, f32, f64), or an "
                         "integer and/or/xor of its two arguments (tl.atomic_add/max/min/and/or/xor)");
  }
  if (auto br = dyn_cast<pgpu::BroadcastOp>(op); br && !llvm::is_sorted(br.getDims()))
    return std::string("a broadcast that also permutes axes (transpose first)");
  if (auto c = dyn_cast<pgpu::ContractOp>(op)) {
    auto lhs = cast<pgpu::FragmentType>(c.getLhs().getType());
    auto rhs = cast<pgpu::FragmentType>(c.getRhs().getType());
    if (lhs.getRank() != 2 || rhs.getRank() != 2 || c.getLhsReduce() != ArrayRef<int64_t>{1} ||
        c.getRhsReduce() != ArrayRef<int64_t>{0} || !c.getLhsBatch().empty())
      return std::string("tl.dot spells only [M, K] x [K, N] with no batch axes");
    Type in = lhs.getElementType(), acc = pgpu::elementTypeOf(c.getAcc().getType());
    // FP8 operands of one format (e4m3 x e4m3, e5m2 x e5m2): the sm_89+ tensor cores' FP8 products;
    // i8 x i8 into i32: the integer MMA (Triton's dot takes int8 operands only, an int32 accumulator).
    bool integer = in.isSignlessInteger(8) && acc.isSignlessInteger(32);
    if (!integer && (!acc.isF32() || !(in.isF16() || in.isBF16() || in.isF32() || isFloat8(in)) ||
                     (isFloat8(in) && in != rhs.getElementType())))
      return std::string("tl.dot spells f16, bf16, f32 and FP8 operands (of one format) with an f32 accumulator, "
                         "and i8 operands with an i32 accumulator");
  }
  if (auto r = dyn_cast<pgpu::ReduceOp>(op); r && r.getAxes().size() != 1)
    return std::string("only a reduction over one axis is spelled yet");
  if (auto sc = dyn_cast<pgpu::ScanOp>(op)) {
    // tl.associative_scan along axis 0: a one-dimensional fragment, or the rows of a 2-d tile (each
    // column its own scan: a cumulative sum down the columns, pgpu-tile-column-reductions).
    if (sc.getAxis() != 0 || cast<pgpu::FragmentType>(sc->getResult(0).getType()).getRank() > 2)
      return std::string("only a scan along axis 0 of a one- or two-dimensional fragment is spelled yet");
    if (sc.getExclusive())
      return std::string("tl.associative_scan is inclusive; an exclusive fragment scan has no spelling");
  }
  if (auto e = dyn_cast<pgpu::ExtractOp>(op); e && cast<pgpu::FragmentType>(e.getFragment().getType()).getRank() != 1)
    return std::string("only an element of a one-dimensional fragment is spelled yet");
  if (auto space = dyn_cast<pgpu::ProgramSpaceOp>(op); space && space.getExtents().size() != 1)
    return std::string("the Triton provider needs a one-dimensional program space");
  return std::nullopt;
}
