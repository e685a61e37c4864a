//===- KIREnums.td - enums shared by kir and pgpu ----------*- tablegen -*-===//
//
// Operator kinds, predicates, view modes and atomic facts. pgpu keeps KIR's
// semantic schema (seed 000 §7, §8), so it uses these same enums.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_KIR_ENUMS
#define TESSEL_KIR_ENUMS

include "mlir/IR/EnumAttr.td"

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def KIR_ViewMode : I32EnumAttr<"ViewMode", "access mode of an external view", [
    I32EnumAttrCase<"In", 0, "in">,
    I32EnumAttrCase<"Out", 1, "out">,
    I32EnumAttrCase<"InOut", 2, "inout">]> {
  let cppNamespace = "::tessel::kir";
}

def KIR_Numerics : I32EnumAttr<"Numerics", "numerical permission (seed 002 §1)", [
    I32EnumAttrCase<"Source", 0, "source">,
    I32EnumAttrCase<"RelaxedNormalization", 1, "relaxed_normalization">]> {
  let cppNamespace = "::tessel::kir";
}

// The operand precision of a contraction: a semantic part of kir.contract / pgpu.contract (seed 000
// §8: a provider maps, expands or rejects it, never changes it), written explicitly by the author.
// Absent means ieee. tf32(x) rounds an f32 to 10 explicit mantissa bits, to nearest with ties away
// from zero (PTX cvt.rna.tf32.f32): the magnitude's bits + 0x1000, low 13 bits cleared; NaN stays
// NaN, a value past TF32's largest finite becomes inf; the exponent range is f32's.
//   ieee:   products of the f32 operands, summed in the accumulator dtype.
//   tf32:   products of tf32(a) and tf32(b) (exact in f32), summed in f32.
//   tf32x3: a = hi + lo with hi = tf32(a), lo = tf32(a - hi) (lo = 0 where hi is inf or NaN);
//           the terms lo_a*hi_b, hi_a*lo_b and hi_a*hi_b (each exact in f32; lo*lo is dropped) of
//           every k summed into the accumulator in f32. The reference order (the interpreters,
//           Triton's tf32x3): acc += sum lo_a*hi_b; then += sum hi_a*lo_b; then += sum hi_a*hi_b.
def KIR_ContractPrecision : I32EnumAttr<"ContractPrecision", "operand precision of a contraction", [
    I32EnumAttrCase<"IEEE", 0, "ieee">,
    I32EnumAttrCase<"TF32", 1, "tf32">,
    I32EnumAttrCase<"TF32x3", 2, "tf32x3">]> {
  let cppNamespace = "::tessel::kir";
}

def KIR_BinaryKind : I32EnumAttr<"BinaryKind", "pointwise binary operator", [
    I32EnumAttrCase<"Add", 0, "add">,
    I32EnumAttrCase<"Sub", 1, "sub">,
    I32EnumAttrCase<"Mul", 2, "mul">,
    I32EnumAttrCase<"Div", 3, "div">,
    I32EnumAttrCase<"Rem", 4, "rem">,
    I32EnumAttrCase<"Max", 5, "max">,
    I32EnumAttrCase<"Min", 6, "min">,
    I32EnumAttrCase<"MaxNum", 7, "max_num">,
    I32EnumAttrCase<"MinNum", 8, "min_num">,
    I32EnumAttrCase<"Pow", 9, "pow">,
    I32EnumAttrCase<"And", 10, "and">,
    I32EnumAttrCase<"Or", 11, "or">,
    I32EnumAttrCase<"Xor", 12, "xor">,
    I32EnumAttrCase<"Shl", 13, "shl">,
    I32EnumAttrCase<"Shr", 14, "shr">]> {
  let cppNamespace = "::tessel::kir";
}

def KIR_UnaryKind : I32EnumAttr<"UnaryKind", "pointwise unary operator", [
    I32EnumAttrCase<"Neg", 0, "neg">,
    I32EnumAttrCase<"Abs", 1, "abs">,
    I32EnumAttrCase<"Exp", 2, "exp">,
    I32EnumAttrCase<"Exp2", 3, "exp2">,
    I32EnumAttrCase<"Log", 4, "log">,
    I32EnumAttrCase<"Log2", 5, "log2">,
    I32EnumAttrCase<"Sqrt", 6, "sqrt">,
    I32EnumAttrCase<"Rsqrt", 7, "rsqrt">,
    I32EnumAttrCase<"Sigmoid", 8, "sigmoid">,
    I32EnumAttrCase<"Tanh", 9, "tanh">,
    I32EnumAttrCase<"Sin", 10, "sin">,
    I32EnumAttrCase<"Cos", 11, "cos">,
    I32EnumAttrCase<"Erf", 12, "erf">,
    I32EnumAttrCase<"Floor", 13, "floor">,
    I32EnumAttrCase<"Ceil", 14, "ceil">,
    I32EnumAttrCase<"Not", 15, "not">,
    I32EnumAttrCase<"Log1p", 16, "log1p">,
    I32EnumAttrCase<"Expm1", 17, "expm1">,
    I32EnumAttrCase<"Round", 18, "round">]> {
  let cppNamespace = "::tessel::kir";
}

def KIR_CmpPredicate : I32EnumAttr<"CmpPredicate", "comparison predicate", [
    I32EnumAttrCase<"EQ", 0, "eq">,
    I32EnumAttrCase<"NE", 1, "ne">,
    I32EnumAttrCase<"LT", 2, "lt">,
    I32EnumAttrCase<"LE", 3, "le">,
    I32EnumAttrCase<"GT", 4, "gt">,
    I32EnumAttrCase<"GE", 5, "ge">]> {
  let cppNamespace = "::tessel::kir";
}

def KIR_ArgReduceKind : I32EnumAttr<"ArgReduceKind", "arg-reduce selection", [
    I32EnumAttrCase<"ArgMax", 0, "argmax">,
    I32EnumAttrCase<"ArgMin", 1, "argmin">]> {
  let cppNamespace = "::tessel::kir";
}

def KIR_TieRule : I32EnumAttr<"TieRule", "which index wins among equal values", [
    I32EnumAttrCase<"Lowest", 0, "lowest">,
    I32EnumAttrCase<"Highest", 1, "highest">]> {
  let cppNamespace = "::tessel::kir";
}

def KIR_NaNRule : I32EnumAttr<"NaNRule", "how NaN takes part in an arg-reduce", [
    I32EnumAttrCase<"Propagate", 0, "propagate">,
    I32EnumAttrCase<"Ignore", 1, "ignore">]> {
  let cppNamespace = "::tessel::kir";
}

def KIR_AtomicOrder : I32EnumAttr<"AtomicOrder", "memory order of an atomic", [
    I32EnumAttrCase<"Relaxed", 0, "relaxed">,
    I32EnumAttrCase<"Acquire", 1, "acquire">,
    I32EnumAttrCase<"Release", 2, "release">,
    I32EnumAttrCase<"AcqRel", 3, "acq_rel">]> {
  let cppNamespace = "::tessel::kir";
}

// Who may touch the same location concurrently: every logical iteration of
// this invocation, or only iterations of the innermost enclosing parallel.
def KIR_SharingDomain : I32EnumAttr<"SharingDomain", "logical sharing domain of an atomic", [
    I32EnumAttrCase<"Invocation", 0, "invocation">,
    I32EnumAttrCase<"Parallel", 1, "parallel">]> {
  let cppNamespace = "::tessel::kir";
}

def KIR_RMWKind : I32EnumAttr<"RMWKind", "atomic read-modify-write kind", [
    I32EnumAttrCase<"Exchange", 0, "exchange">,
    I32EnumAttrCase<"Add", 1, "add">,
    I32EnumAttrCase<"Max", 2, "max">,
    I32EnumAttrCase<"Min", 3, "min">,
    I32EnumAttrCase<"And", 4, "and">,
    I32EnumAttrCase<"Or", 5, "or">,
    I32EnumAttrCase<"Xor", 6, "xor">]> {
  let cppNamespace = "::tessel::kir";
}

#endif // TESSEL_KIR_ENUMS
