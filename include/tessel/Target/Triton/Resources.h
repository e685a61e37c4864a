//===- Resources.h - resource estimates of a Triton candidate ----*- C++ -*-===//
//
// seed 003 / issue 8: the tuner prunes candidates that would exceed target
// resource limits before compiling them, and counts why. The estimates are
// read from the legalized program (fragments, loops, contractions), never
// from a kernel name, and are polynomials in the declared parameters so the
// same model prunes in C++ (tests) and in the generated Python (the tuner).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TARGET_TRITON_RESOURCES_H
#define TESSEL_TARGET_TRITON_RESOURCES_H

#include "tessel/Dialect/PGPU/IR/PGPU.h"
#include "llvm/ADT/StringMap.h"

#include <optional>
#include <string>
#include <vector>

namespace tessel::triton {

/// coefficient * product of parameters.
struct Monomial {
  int64_t coefficient = 1;
  std::vector<std::string> params;
};

struct ResourceModel {
  /// Bytes of shared memory, one polynomial per loop (the program needs the largest): the operand
  /// tiles its contractions and its enclosing loops' contractions stage (Loop::staged), plus the
  /// tiles of TMA stores. Loops that run one after another (a narrowed loop's full blocks, then its
  /// partial block; the phases of a paired or split fold) reuse the same buffers, since the
  /// provider's allocator reuses buffers whose lifetimes do not overlap, so their stages are never
  /// summed.
  /// A pointer store of a contraction's accumulator adds a polynomial of its own: the tile's bytes,
  /// through which the provider converts it out of the contraction's register layout (a scratch live
  /// for the conversion alone, after the loops' buffers), plus the TMA stores' tiles.
  /// This is the program with its box stores staged (TMA = 1); sharedNeededAt says which spelling a
  /// binding gets.
  std::vector<std::vector<Monomial>> sharedBytes;
  /// Bytes of shared memory with every box store spelled with pointers (TMA = 0, or a binding whose
  /// staged stores do not fit): each loop's staged operands, and each stored accumulator's conversion.
  std::vector<std::vector<Monomial>> pointerSharedBytes;
  /// Whether the program has box stores a tensor descriptor spells under TMA = 1 (tiles staged).
  bool stagesStores = false;
  /// Bytes of loop-carried fragments (accumulators), one polynomial per loop (the largest counts):
  /// its carries and its enclosing loops', live in registers across its body, spread over
  /// 32 * WARPS threads. Carries of loops that run one after another are the same registers.
  std::vector<std::vector<Monomial>> carriedBytes;
  /// Bytes of each distinct fragment type of the program: the largest one is
  /// live in registers at once (a staged row, an accumulator).
  std::vector<Monomial> fragmentBytes;
  /// Bytes each FMA-spelled contraction (triton::contractsWithFMA) holds in registers at once, one
  /// polynomial per distinct contraction: its two operand tiles and its accumulator. Triton's FMA
  /// lowering gives each thread the operand rows and columns its accumulator elements need, so the
  /// tiles spread evenly over the threads are a lower bound of it (rows and columns shared by
  /// threads are held by each): a binding over the register budget even so spills for certain.
  std::vector<std::vector<Monomial>> fmaContractBytes;
  /// Bytes of the buffers each walk spelled with LOOP_STAGES (pipelinesWalk) holds, one polynomial per
  /// such loop (the largest counts): LOOP_STAGES - 1 copies of each tile it loads. A call's default keeps
  /// them within what a multiprocessor should have in flight (python/tessel/_kernel.py).
  std::vector<std::vector<Monomial>> loopBuffers;
  /// Bytes each fragment scan (pgpu.scan, Triton's tl.associative_scan) holds in registers at once,
  /// one polynomial per distinct scan: its components and their prefixes (a pair-state recurrence
  /// over 16 state lines scans 32 components of BLOCK lanes).
  std::vector<std::vector<Monomial>> scanBytes;
  /// Bytes each chained product holds in registers at once, one polynomial per distinct chain: a
  /// contraction whose operand is an element-wise map (casts, unary and binary operations, selects)
  /// of another contraction's tile in the same block (attention's scores, their exponentials cast to
  /// the operand of the product with V): the first product's tile, the operand made of it and the
  /// second product's accumulator. A [64, 256] f32 score tile, its f16 operand and a [64, 64]
  /// accumulator are 224 registers a thread at 4 warps (the one-tile attention of pgpu-stage-folds).
  std::vector<std::vector<Monomial>> chainedProductBytes;
  /// Bytes of the fragments one iteration of a walk loads, in a lanewise program (`lanewise`), one
  /// polynomial per distinct set (the largest counts), kept for a walk whose lanes each load more than
  /// the registers a thread has for them at the warps rule's 32 elements (16 bytes a lane: 291's four
  /// bf16 taps and five i32 sequence ids load 28). Nothing orders the loads after a cross-lane step, so
  /// the provider issues every load of the iteration before the math that reads them: they are live
  /// together, over the carried-register budget a spill (corpus 291 at BLOCK 16384, 16 warps: 128
  /// registers and 744 bytes of spill stores a thread, sm_90 ptxas; 141 registers, none spilled, at
  /// BLOCK 2048, 4 warps).
  std::vector<std::vector<Monomial>> inFlightLoadBytes;
  /// Elements of each distinct fragment type (a streamed row's lanes).
  std::vector<Monomial> fragmentElements;
  /// Bytes of each distinct fragment a program loads from memory (what its threads move).
  std::vector<Monomial> loadedBytes;
  /// Rows of each contraction's accumulator (its second-to-last extent).
  std::vector<Monomial> accumulatorRows;
  /// Whether a fragment reduction combines several values at once (an index beside its value).
  bool pairedReduction = false;
  /// Whether every lane's value depends on its own lanes only: no reduction, scan, fold, histogram,
  /// contraction or atomic, and no fragment carried by a loop (a pointwise map over blocks).
  bool lanewise = true;
  /// Per pgpu.for loop: the fragments one iteration of its body loads (not its nested loops'), its
  /// carried fragments and its enclosing loops', and the contraction operands it and its enclosing
  /// loops stage in shared memory (an operand the iteration loads, STAGES copies; one defined before
  /// the loop or computed in its body, one copy).
  struct Loop {
    std::vector<Monomial> loaded, carried, staged;
  };
  std::vector<Loop> loops;
  /// Per declared parameter that steps a reduction loop (a pgpu.for stepping by the parameter, carrying
  /// values, whose body reduces a fragment and loads only one-axis blocks of the step, with no
  /// contraction in it: a row walked a block at a time; or whose loaded and carried fragments all span
  /// the step's axis beside others: a tile fold, a column reduction's rows summed lane-wise into a
  /// carried tile): the bytes one iteration of each
  /// such loop loads (the largest counts). Such a loop's iterations run one after another, each waiting
  /// for its loads, so a call's default grows the step where few programs run
  /// (python/tessel/_kernel.py, Kernel._reduction_steps). Likewise STAGES for a recurrence spelled
  /// with num_stages (prefetchesRecurrence, Triton.h): its step cannot widen, its pipeline holds STAGES
  /// iterations' loads (the bytes counted: each fragment it loads, STAGES times), and the same rule
  /// deepens it.
  std::vector<std::pair<std::string, std::vector<std::vector<Monomial>>>> reductionSteps;
  int64_t sharedLimit = 0;          // from #pgpu.target
  int64_t carriedRegisterLimit = 0; // 32-bit registers per thread for carried values
  /// The carried fragments' own budget in pruning: carriedRegisterLimit for an accumulator plus a few
  /// registers for the per-row vectors carried beside it (a fold's maximum and sum).
  int64_t carriedStateLimit = 0;
  int64_t chainedRegisterLimit = 0; // 32-bit registers per thread for a chained product's tiles

  static int64_t evaluate(const std::vector<Monomial> &poly, const llvm::StringMap<int64_t> &params);
  /// Whether `b` is at least `a` at every binding of positive parameters, seen from the terms alone:
  /// each monomial of `a` is one of `b`'s (each used once) and `b`'s other monomials are positive. A
  /// negative term of `b` (a computed operand's loads STAGES - 1 deep: -1 * tile beside STAGES * tile)
  /// must then be one of `a`'s too. Used to drop a loop's polynomial that another one dominates.
  static bool dominates(const std::vector<Monomial> &b, const std::vector<Monomial> &a);
  /// The largest of several polynomials (0 for none).
  static int64_t evaluateMax(const std::vector<std::vector<Monomial>> &polys,
                             const llvm::StringMap<int64_t> &params);
  /// Shared memory of the binding with its box stores staged (what the sm_90 defaults choose by: a
  /// default keeps its TMA store).
  int64_t sharedAt(const llvm::StringMap<int64_t> &params) const { return evaluateMax(sharedBytes, params); }
  /// Whether the binding's box stores are spelled as tensor descriptors: TMA = 1 and the program fits
  /// the shared memory with their tiles staged. Otherwise they keep the pointer spelling, so a wide
  /// tile whose staging would not fit keeps its pipeline depth (TritonSerializer: descriptorAccess).
  bool storesStagedAt(const llvm::StringMap<int64_t> &params) const;
  /// Shared memory of the binding as it is spelled (storesStagedAt): what pruning compares.
  int64_t sharedNeededAt(const llvm::StringMap<int64_t> &params) const;
  /// The same, spelled in Python over a parameter dict `p`.
  std::string pythonSharedNeeded() const;
  /// 32-bit registers per thread that the carried fragments need.
  int64_t carriedRegistersAt(const llvm::StringMap<int64_t> &params) const;
  /// 32-bit registers per thread of the largest fragment.
  int64_t largestRegistersAt(const llvm::StringMap<int64_t> &params) const;
  /// 32-bit registers per thread of the largest FMA-spelled contraction's tiles (0 without one).
  int64_t fmaRegistersAt(const llvm::StringMap<int64_t> &params) const;
  /// 32-bit registers per thread of the largest fragment scan's components and prefixes (0 without one).
  int64_t scanRegistersAt(const llvm::StringMap<int64_t> &params) const;
  /// 32-bit registers per thread of the loads a lanewise walk's iteration has in flight (0 without one).
  int64_t inFlightRegistersAt(const llvm::StringMap<int64_t> &params) const;
  /// 32-bit registers per thread of the largest chained product's tiles (0 without one).
  int64_t chainedRegistersAt(const llvm::StringMap<int64_t> &params) const;
  /// The heuristic WARPS of a binding (sm_90): one warpgroup (4 warps) per 64 accumulator rows
  /// where the program contracts (wgmma issues m64 per warpgroup); else enough warps that the
  /// largest fragment holds at most 32 elements a thread, and at least enough that each thread
  /// moves 32 bytes of the largest loaded fragment (two 16-byte vectors; between 1 and 4 warps
  /// for that floor; one 16-byte vector in a lanewise program); or at most 128
  /// elements a thread (at least 2 warps) where a reduction combines pairs; at most 16 warps.
  int64_t warpsAt(const llvm::StringMap<int64_t> &params) const;
  /// The same rule spelled in Python over a parameter dict `p` (the wrapper's `<kernel>_WARPS`).
  std::string pythonWarps() const;
  /// The most bytes a thread of the binding's WARPS loads in one iteration of any one loop (its share of
  /// the iteration's tiles: a register for each 16-byte vector's address and the vector in flight).
  int64_t loopLoadBytesPerThreadAt(const llvm::StringMap<int64_t> &params) const;
  /// Whether every loop's carried fragments fit the carried-register budget and its staged operands
  /// the shared memory, one loop at a time.
  bool loopsFitAt(const llvm::StringMap<int64_t> &params) const;
  /// Why this binding exceeds a limit ("shared memory" / "registers"), or nothing.
  std::optional<std::string> pruneReason(const llvm::StringMap<int64_t> &params) const;
  /// The Python spelling of a polynomial over a parameter dict `p`.
  static std::string python(const std::vector<Monomial> &poly);
  /// The Python spelling of the largest of several monomials.
  static std::string pythonMax(const std::vector<Monomial> &monomials);
  /// The Python spelling of the largest of several polynomials.
  static std::string pythonMax(const std::vector<std::vector<Monomial>> &polys);
};

/// Reads the estimates of one legalized kernel at `binding` (its declared defaults where absent): ops
/// in an alternative the binding does not take (untakenAt) hold no resources.
ResourceModel estimateResources(pgpu::KernelOp kernel);
ResourceModel estimateResources(pgpu::KernelOp kernel, const llvm::StringMap<int64_t> &binding);

/// The value of `v` at `binding` where it is a launch expression of constants and declared parameters
/// alone (pgpu.param, binary add/sub/mul/min/max, ceil_div, cmp, select; an i1 and/or one known operand
/// decides), else nothing.
std::optional<int64_t> parameterValue(mlir::Value v, const llvm::StringMap<int64_t> &binding);

/// Whether `branch` chooses between alternative programs of one result on parameters alone: its
/// condition a launch expression of parameters and constants, its then-region a K loop summing
/// contractions whose results it stores to workspace for a last arrival to add (pgpu-split-contractions'
/// split chunks; the else-region is the unsplit loop). A binding compiles the branch it takes (Triton: a
/// constexpr `if`); the call's rules re-derive what the split binding needs (SPLIT_K's STAGES,
/// python/tessel/_kernel.py). The alternatives of pgpu-split-folds and pgpu-pair-blocks are not these:
/// their defaults must fit whichever branch a call binds.
bool isSplitAlternative(pgpu::IfOp branch);

/// Whether `op` lies in the region of a split alternative (isSplitAlternative) or of one of
/// pgpu-stage-operands' phases (a condition reading OPERAND_PHASES) that `binding` does not take:
/// Analyses that choose a binding's defaults or resources read the branch it takes (seed 002 §7:
/// decisions from facts of the program).
bool untakenAt(mlir::Operation *op, const llvm::StringMap<int64_t> &binding);

/// Whether `loop` reads lane coordinates carried into it as divisions of its lanes (pgpu-form-blocking's
/// j / P, j / P + 1, j % P of a flattened walk over several axes, made before the loop in its block):
/// the pointers of its loads are not contiguous, each lane addressed on its own.
bool readsDividedLanes(pgpu::ForOp loop);

/// Every binding of the kernel's declared parameters (the closed search space).
std::vector<llvm::StringMap<int64_t>> enumerateSpace(pgpu::KernelOp kernel);

} // namespace tessel::triton

#endif // TESSEL_TARGET_TRITON_RESOURCES_H
