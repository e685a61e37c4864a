//===- KIR.h - the kir dialect ----------------------------------*- C++ -*-===//
//
// Canonical kernel IR: types, attributes and ops (ARCHITECTURE.md §2.1).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DIALECT_KIR_IR_KIR_H
#define TESSEL_DIALECT_KIR_IR_KIR_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "tessel/Dialect/Utils/BodyEffects.h"

#include "tessel/Dialect/KIR/IR/KIREnums.h.inc"
#include "tessel/Dialect/KIR/IR/KIRDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tessel/Dialect/KIR/IR/KIRAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "tessel/Dialect/KIR/IR/KIRTypes.h.inc"

namespace tessel::kir {
/// The `i1` type shaped like `type` (a scalar or a ranked tensor).
mlir::Type getI1Like(mlir::Type type);
/// Operand-type and numerical-option rules of pointwise ops (seed 000 §7),
/// shared by kir and pgpu: they keep KIR's semantic schema.
mlir::LogicalResult verifyBinarySemantics(mlir::Operation *op, BinaryKind kind, mlir::Type element,
                                          bool approximate, bool flushToZero);
mlir::LogicalResult verifyUnarySemantics(mlir::Operation *op, UnaryKind kind, mlir::Type element,
                                         bool approximate, bool flushToZero);
/// A contraction's operand precision (KIR_ContractPrecision; absent = ieee).
inline ContractPrecision precisionOr(std::optional<ContractPrecision> p) {
  return p.value_or(ContractPrecision::IEEE);
}
/// tf32/tf32x3 take f32 operands and an f32 accumulator (shared by kir and pgpu).
mlir::LogicalResult verifyContractPrecision(mlir::Operation *op, std::optional<ContractPrecision> precision,
                                            mlir::Type operand, mlir::Type acc);
/// An f32 rounded to TF32 (KIR_ContractPrecision: to nearest, ties away from zero; NaN stays NaN).
float roundToTF32(float x);
/// The axes of an access (load, gather, store, scatter, ...) and where each coordinate's axes begin
/// among them (seed 000 §6, gathers): a domain contributes one axis, an index tensor its rank, an
/// index scalar none (`first` is -1); a coordinate that the access's `joint` attribute pairs with an
/// earlier index tensor reads at that tensor's axes and contributes none.
struct CoordinateAxes {
  llvm::SmallVector<int64_t> first;
  unsigned rank = 0;
};
CoordinateAxes coordinateAxes(mlir::Operation *access, mlir::ValueRange coords);
/// The `joint` pairing of a gather/scatter/scatter_reduce (empty when absent or another op).
llvm::ArrayRef<int64_t> jointOf(mlir::Operation *access);
} // namespace tessel::kir

#define GET_OP_CLASSES
#include "tessel/Dialect/KIR/IR/KIROps.h.inc"

#endif // TESSEL_DIALECT_KIR_IR_KIR_H
