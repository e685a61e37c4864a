//===- Triton.h - the Triton provider ---------------------------*- C++ -*-===//

#ifndef TESSEL_TARGET_TRITON_TRITON_H
#define TESSEL_TARGET_TRITON_TRITON_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "tessel/Dialect/PGPU/IR/PGPU.h"
#include "llvm/ADT/StringMap.h"

#include <optional>
#include <string>

namespace tessel {
class Provider;
}

namespace tessel::triton {
#define GEN_PASS_DECL
#include "tessel/Target/Triton/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tessel/Target/Triton/Passes.h.inc"

/// The launch configuration `pgpu-triton-legalize` declares on each kernel as
/// Triton provider parameters; the wrapper passes their bound values as
/// `num_warps=` and `num_stages=`.
inline constexpr llvm::StringLiteral kWarpsParam = "WARPS";
inline constexpr llvm::StringLiteral kStagesParam = "STAGES";
/// Declared (0/1) when the legalized kernel has box accesses (TileAccess.h): 1 spells them as tensor
/// descriptors (TMA), used when the call's views meet TMA's alignment rules.
inline constexpr llvm::StringLiteral kTmaParam = "TMA";
/// Declared (0/1) when the kernel walks execution-group instances in a loop (a persistent
/// traversal): 1 spells that loop `tl.range(..., flatten=True)`, so Triton pipelines the next
/// instance's loads across the current one's epilogue.
inline constexpr llvm::StringLiteral kFlattenParam = "FLATTEN";
/// Declared (0/1, on by default) when the kernel has a warp-specialized Gluon spelling at its declared
/// defaults (gluonRefusal finds none missing): 1 launches it where the call's views meet TMA's rules on
/// an sm_90 device, the Triton spelling otherwise (another architecture, under TRITON_INTERPRET=1,
/// which runs no Gluon, and at a binding the Gluon emission refuses). One loader warp issues the
/// fold-source streams' TMA copies into shared-memory rings (GluonStreams.h); the program's own
/// warps consume them with wgmma in the layouts GluonLayouts.h infers.
inline constexpr llvm::StringLiteral kGluonParam = "GLUON";
/// Declared ([1, 2, 3, 4]) when the legalized kernel has a walk whose loads Triton pipelines only when
/// asked (pipelinesWalk): the `num_stages` of those loops' `tl.range`, 1 spelling them `range` (no
/// pipeline). Default 3 (Triton's own launch default, the depth it gives a dot's operand loads), or the
/// deepest that fits the shared memory at the kernel's declared defaults.
inline constexpr llvm::StringLiteral kLoopStagesParam = "LOOP_STAGES";

/// A `pgpu.for` that walks the instances of an execution group (its body holds the group): the
/// persistent traversal of pgpu-form-tiles.
bool isInstanceWalk(tessel::pgpu::ForOp loop);

/// A `pgpu.for` of unit step that carries values (an author's recurrence, `for t in T.domain(...)`
/// updating a state: no step can widen, so each iteration waits for its own loads), whose body holds
/// no loop, contraction or access other than pointer loads and stores, and that loads a fragment
/// from a view it does not write without reading its carries. Triton's pipeliner reaches such loads
/// only under `tl.range(..., num_stages=)` (the launch's `num_stages=` pipelines loads that feed
/// tl.dot), so the serializer spells this loop with `num_stages=STAGES`: the loads of the next
/// STAGES - 1 iterations are issued ahead of the recurrence. The wrapper keeps written views apart
/// from every other view (`_check_apart`), so a load of another view never reads what the body stores.
bool prefetchesRecurrence(tessel::pgpu::ForOp loop);

/// A `pgpu.for` that walks a range in steps, carrying values (a reduction's accumulator: a long row
/// walked a block at a time, a column fold's row tiles, a split fold's segment), whose body holds no
/// loop, contraction or access other than pointer loads and stores of the kernel's views (none both
/// read and written), that loads a fragment without reading its carries, outside a finalization
/// (`pgpu.last_program`), and that neither pipelinesLoads nor prefetchesRecurrence spells with STAGES.
/// Triton's pipeliner reaches loads that feed no tl.dot only under `tl.range(..., num_stages=)`: a plain
/// `range` loads a tile, waits for it, reduces it, then loads the next. The serializer spells such a loop
/// `tl.range(..., num_stages=LOOP_STAGES)` (LOOP_STAGES > 1): each of its fragment loads is copied
/// LOOP_STAGES - 1 iterations ahead into as many shared-memory buffers (sm_90 TTGIR, Triton 3.6), which
/// the resource model counts.
bool pipelinesWalk(tessel::pgpu::ForOp loop);

/// The provider verifier (seed 002 §3.6, §5.4): why `op` has no Triton
/// spelling in the legalized program, or nothing. Legalization runs it on
/// every op as its postcondition; the serializer spells only ops that pass.
std::optional<std::string> spellingIssue(mlir::Operation *op);

/// The Triton atomic that spells a `pgpu.scatter_reduce` whose combine is one binary op of its two
/// arguments, and how its update is prepared: tl.atomic_max/min on f32/f64 order the values as
/// integers by sign (+NaN above every number for max, -NaN below every number for min), so a combine
/// that propagates NaN makes every NaN update that NaN, and one that ignores NaN (max_num, min_num)
/// masks NaN updates off. Nothing when no Triton atomic computes the combine.
struct ScatterAtomic {
  llvm::StringRef function;
  enum Update { AsIs, PositiveNaN, NegativeNaN, DropNaN } update;
};
std::optional<ScatterAtomic> scatterAtomic(tessel::pgpu::ScatterReduceOp op);

/// Whether the contraction's tl.dot runs on FMA units instead of tensor cores: f32 operands at IEEE
/// precision (KIR_ContractPrecision, spelled `input_precision="ieee"`). Triton's FMA lowering takes
/// both operand tiles from shared memory into registers (each thread holds the operand rows and
/// columns its accumulator elements need) where a tensor-core dot reads them in place, so the
/// operand tiles count against a thread's registers (Resources.h, TritonLegalize's tile defaults).
bool contractsWithFMA(tessel::pgpu::ContractOp contract);

/// True for the FP8 element types the Triton provider spells (f8E4M3FN as
/// tl.float8e4nv, f8E5M2 as tl.float8e5).
bool isFloat8(mlir::Type element);
/// `f32Expr` (an f32 value) converted to the FP8 type `element` with the
/// interpreters' (and torch's) rule: nearest even, E4M3FN past 464 (and inf)
/// NaN, E5M2 from 61440 on (and inf) inf. The GPU's cvt.rn.satfinite would
/// saturate instead, so the out-of-range values are selected explicitly.
std::string float8Narrowing(mlir::Type element, const std::string &f32Expr);
/// An FP8 value widened to f32 (exact).
std::string float8Widening(const std::string &x);

/// The Triton spellings of pointwise kinds (nothing when no Triton operation
/// has the kind's semantics: NaN rules, accuracy). FP8 operands compute in
/// f32 and round once (docs/language.md, Math). Integer and index `div`/`rem` floor (KIRDialect.md)
/// where Triton's // and % truncate: an index quotient or remainder keeps Triton's operator only when
/// `truncationExact` (the dividend provably non-negative and the divisor positive:
/// pgpu::provablyNonNegative), where the two agree.
std::optional<std::string> binarySpelling(kir::BinaryKind kind, mlir::Type element, bool approximate,
                                          const std::string &lhs, const std::string &rhs,
                                          bool truncationExact = false);
std::optional<std::string> unarySpelling(kir::UnaryKind kind, mlir::Type element, bool approximate,
                                         const std::string &x);
/// The remainder of two scalar (launch- or loop-uniform) index values, non-negative and positive, as
/// a - (a // b) * b: equal to Triton's a % b there, and Triton's alignment analysis keeps the
/// divisibility the two share (it gives a scalar `%` none), which lane coordinates built on it need
/// for their accesses to vectorize.
std::string scalarRemainderSpelling(const std::string &lhs, const std::string &rhs);
/// Whether `op`'s spelling calls Triton's libdevice (math that tl.* lacks at the required accuracy):
/// the generated module then imports it (and, under TRITON_INTERPRET=1, an evaluator of it).
bool usesLibdevice(mlir::Operation *op);

/// Why `kernel` (legalized) has no warp-specialized Gluon spelling at its declared defaults, and the
/// operation that decides it (the kernel when none does); nothing when it has one. The serializer's own
/// Gluon emission, run without output: legalization declares GLUON exactly where it would succeed.
std::optional<std::pair<mlir::Operation *, std::string>> gluonRefusal(tessel::pgpu::KernelOp kernel);

/// Spells every legalized pgpu kernel of `module` as a Triton JIT function plus
/// a Python launch wrapper (seed 002 §3.7: the serializer only spells; an op
/// without a unique spelling is an error at the op, never a fallback).
/// `params` binds physical parameters (declared defaults otherwise).
mlir::LogicalResult serializeModule(mlir::ModuleOp module, const llvm::StringMap<int64_t> &params,
                                    llvm::raw_ostream &os);

/// This provider behind Provider.h (registered in Target/Registry.cpp).
const Provider &provider();
} // namespace tessel::triton

#endif // TESSEL_TARGET_TRITON_TRITON_H
