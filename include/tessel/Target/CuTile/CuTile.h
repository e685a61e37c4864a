//===- CuTile.h - the cuTile provider ---------------------------*- C++ -*-===//
//
// Legalized pgpu spelled as NVIDIA cuTile (`cuda.tile`) source: one
// `@ct.kernel` per pgpu kernel plus a Python wrapper that checks the ABI with
// the same helpers as the Triton wrapper (Target/Wrapper.h), evaluates the
// LaunchExpr grid and launches once with `ct.launch` (seed 000 §12: "cuTile
// maps them to ct.bid, tile indices, and ct.load/mma/store").
//
// Spelling model (every decision is already in the IR, seed 002 §3.7):
//   program coordinate        -> ct.bid(0) (one-dimensional program space)
//   fragment<T, [e0, e1]>     -> a tile of shape (e0, e1); every extent, at the
//                                bound parameters, must be a power of two
//   load/store of a box       -> ct.load/ct.store at a tile index (BoxAccess.h):
//                                coordinates start + iota with start a proven
//                                multiple of the extent, validity exactly the
//                                view's bounds, fill a cuTile padding mode
//   other load/store/gather   -> ct.gather/ct.scatter of element coordinates with
//                                mask = validity and padding_value = fill
//   contract [M,K]x[K,N]+acc  -> ct.mma
//   reduce / scan             -> ct.reduce / ct.scan with the combine as a tile
//                                function and constant identities
//   for / if / foreach        -> Python for / if over tiles and 0-d tiles
// An op outside this table is rejected at the op by the provider verifier
// (`spellingIssue`), never spelled approximately (seed 002 §5.4-§5.5).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TARGET_CUTILE_CUTILE_H
#define TESSEL_TARGET_CUTILE_CUTILE_H

#include "mlir/IR/BuiltinOps.h"
#include "tessel/Dialect/PGPU/IR/PGPU.h"
#include "llvm/ADT/StringMap.h"

#include <optional>
#include <string>

namespace tessel {
class Provider;
}

namespace tessel::cutile {

/// cuTile's launch hints, declared by `legalize` as provider parameters (seed 003: a backend-specific
/// dimension enters the search as a declared parameter): the expected CTAs per multiprocessor
/// (`@ct.kernel(occupancy=...)`, 0 leaves it to cuTile) and the CTAs per cluster (`num_ctas=`).
inline constexpr llvm::StringLiteral kOccupancyParam = "OCCUPANCY";
inline constexpr llvm::StringLiteral kNumCtasParam = "NUM_CTAS";
/// The warps of the CUDA-core warp groups of a warp-specialized kernel (`num_worker_warps=`, 0 leaves it
/// to cuTile, which takes 4; its producer warps come on top): row kernels with large tiles need 8 to
/// hold a row without the 255-register ceiling, and so do 128x256 contraction tiles (tileiras 13.4
/// takes 4 or 8; cuda.tile documents larger counts from 13.5).
inline constexpr llvm::StringLiteral kWorkerWarpsParam = "WORKER_WARPS";
/// Whether a box load that every program instance makes alike (its tile index independent of the
/// program coordinate: layernorm's weight and bias rows) is staged through TMA (1) or read without it
/// (0, `allow_tma=False`). cuTile stages every box load through TMA in shared memory, which pays off
/// for the tiles a program streams once; a tile all programs share is read from L2 and its staging
/// only takes shared memory from the streamed ones (layernorm f32 at 8192 columns: 132 KB a program
/// with its weight and bias staged, 66 KB without). Declared only on kernels that make such a load.
inline constexpr llvm::StringLiteral kSharedTmaParam = "SHARED_TMA";

/// Bound physical parameters of each kernel, by kernel name.
using Bindings = llvm::StringMap<llvm::StringMap<int64_t>>;

/// cuTile legalization (seed 002 §3.6) of the shared pipeline's program, in place: the launch
/// hints are declared on each kernel that lacks them; unblocked range_reduce / range_scan / region_fold become their ordered loops (the shared
/// expansions the Triton provider uses), every parameter is bound (declared defaults, then
/// `overrides`, checked by interp::bindParams as the interpreters and the PTX provider do), and the
/// provider verifier runs on every op. Errors are emitted at the op; nothing is returned then.
mlir::FailureOr<Bindings> legalize(mlir::ModuleOp module, const llvm::StringMap<int64_t> &overrides);

/// The provider verifier (seed 002 §5.4): why `op` has no cuTile spelling in the legalized program
/// at the bound parameters `params`, or nothing.
std::optional<std::string> spellingIssue(mlir::Operation *op, const llvm::StringMap<int64_t> &params);

/// Spells every legalized kernel of `module` as cuTile source plus its launch wrapper.
mlir::LogicalResult serializeModule(mlir::ModuleOp module, const Bindings &params, llvm::raw_ostream &os);

/// legalize + serializeModule; nothing is returned for a rejected program.
mlir::FailureOr<std::string> compile(mlir::ModuleOp module, const llvm::StringMap<int64_t> &overrides);

/// Registers `-pgpu-cutile-legalize` (legalize with the declared defaults) for tessel-opt.
void registerCuTilePasses();

/// This provider behind Provider.h (registered in Target/Registry.cpp).
const Provider &provider();

} // namespace tessel::cutile

#endif // TESSEL_TARGET_CUTILE_CUTILE_H
