//===- Provider.h - a provider behind one interface --------------*- C++ -*-===//
//
// A provider turns the shared pipeline's pgpu program into something a GPU
// runs: Triton or cuTile source with its Python launch wrapper, PTX, AMDGCN
// (seed 002 §3.6 legalization, §3.7 serialization). The pipeline and the
// `tessel` driver see every provider through this interface, found by name in
// the registry (Registry.cpp), with no branch on which one it is:
//   - the pipeline asks a provider's `Capabilities` before a pass forms a
//     program that only some providers can spell (a workspace atomic, an
//     acquire/release hand-off, a peeled tile), and appends its legalization;
//   - the driver asks it which stages it prints (`stages`) and has it emit one.
// A capability is a fact about what the provider spells, named after that
// spelling, never after a kernel; a pass gated on it says which it needs.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TARGET_PROVIDER_H
#define TESSEL_TARGET_PROVIDER_H

#include "mlir/IR/BuiltinOps.h"
#include "tessel/Dialect/PGPU/IR/PGPU.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace tessel {
namespace interp {
struct Argument;
} // namespace interp

/// What a provider can spell, beyond the shared pgpu verifier's programs, as the pipeline asks it. Every
/// capability is off unless the provider states it; a pass that forms a program needing one runs only
/// for providers that state it (lib/Pipeline/Pipeline.cpp says which).
struct ProviderCapabilities {
  /// A fragment scatter-add (`pgpu.scatter_reduce` add) into invocation workspace and into an output
  /// view, as atomics on global memory (seed 000 §6): split partials merged into one workspace tile
  /// (pgpu-atomic-partials) or added into the output tile (pgpu-zero-first).
  bool fragmentAtomicAdd = false;
  /// A scalar atomic read-modify-write on a workspace counter (`pgpu.atomic_rmw`): a segment walk's
  /// programs take their tiles from it in the walk's order (pgpu-dynamic-walk, seed 002 §3.2).
  bool scalarWorkspaceAtomics = false;
  /// An acquire/release flag handed from one program instance to another and the wait loop on it
  /// (`pgpu.while` over an acquire load): a region scan's segments chained through workspace
  /// (pgpu-chain-scans), an output tile zeroed by the split-0 instance before the others add into it
  /// (pgpu-zero-first).
  bool acquireReleaseHandOff = false;
  /// Workspace sized by a launch-time expression (`pgpu.workspace_extent`), which the launch wrapper
  /// evaluates on the host: a region fold's segments as program instances, their summaries in
  /// workspace [FOLD_POINTS, FOLD_SPLITS, ...] (pgpu-split-folds, FOLD_SPLIT).
  bool launchSizedWorkspace = false;
  /// The launch wrapper reports a launch's program count at given parameter values
  /// (`<kernel>_PROGRAMS`), from which a call picks a parameter that trades programs for work per
  /// program: PAIR_BLOCKS pays only on launches of a few waves (pgpu-pair-blocks).
  bool programCounts = false;
  /// The launch wrapper keys its plans on a float kernel scalar's range (a launch fact, seed 000 §3.1),
  /// so a branch on it compiles one side: a positive scalar factor leaves a max/min reduction
  /// (pgpu-factor-reductions, seed 002 §4).
  bool floatLaunchFacts = false;
  /// A traversal's first tile peeled off its loop (the body twice): a provider whose compile time
  /// grows with the body (tileiras) leaves it (pgpu-summary-emptiness, seed 002 §3.5).
  bool peeledTiles = false;
  /// A reduction over one axis of a 2-D fragment with the other axis kept ([ROWS, BLOCK] -> [ROWS]),
  /// broadcast back over the reduced axis: several short rows per program instance
  /// (pgpu-pack-rows, seed 002 §3.2, §3.3).
  bool tileAxisReductions = false;
  /// A scan along axis 0 of a 2-d fragment ([BLOCK_R, BLOCK_C] -> [BLOCK_R, BLOCK_C]): a cumulative sum
  /// down the columns walked in 2-d tiles, each column its own scan (pgpu-tile-column-reductions).
  bool tileAxisScans = false;
};

/// One provider: a name, the capabilities it states, its legalization and its emission.
class Provider {
public:
  virtual ~Provider() = default;

  /// The name users pass (`--target=NAME`, `kernel.source(NAME)`).
  virtual llvm::StringRef name() const = 0;
  /// One line for `tessel compile --help`.
  virtual llvm::StringRef summary() const = 0;
  /// What it spells (`ProviderCapabilities`).
  virtual const ProviderCapabilities &capabilities() const = 0;
  /// Appends the legalization the shared pipeline runs last for this provider (seed 002 §3.6), a pass
  /// group named `<name>-legalize` (a stop point). False when the provider legalizes inside `emit`
  /// instead, where the call's parameter bindings are known.
  virtual bool addLegalization(mlir::OpPassManager &pm) const { return false; }
  /// The stages `emit` prints after the pipeline (`tessel compile --emit=STAGE`), `source` among them.
  virtual llvm::ArrayRef<llvm::StringLiteral> stages() const = 0;
  /// Emits `stage` of the pipeline's program at the parameter values `params` (declared defaults for
  /// the others): legalization where `addLegalization` did none, selection, serialization and the
  /// launch wrapper as the stage asks. The whole text (or the bytes of a binary stage); nothing for a
  /// rejected program, whose errors are emitted at the op (seed 004: no partial artifact).
  virtual mlir::FailureOr<std::string> emit(mlir::ModuleOp module, const llvm::StringMap<int64_t> &params,
                                            llvm::StringRef stage) const = 0;

  /// The device kind `launch` runs on in process (`tessel run --device=KIND`), or nothing when the
  /// provider only emits (its code runs through its Python wrapper).
  virtual llvm::StringRef launchDevice() const { return ""; }
  /// What `launch` did.
  enum class Launch { Done, Rejected, Failed };
  /// Legalizes and emits `module` (the pipeline's program, `kernel` its one kernel) at `overrides`,
  /// then runs it on `launchDevice()` with `args` (views copied in and back). Rejected: the program has
  /// no spelling, errors emitted at the op; Failed: the device refused, `error` says why.
  virtual Launch launch(mlir::ModuleOp module, pgpu::KernelOp kernel, const llvm::StringMap<int64_t> &overrides,
                        llvm::ArrayRef<interp::Argument> args, std::string &error) const {
    error = "the " + name().str() + " provider does not launch kernels in process";
    return Launch::Failed;
  }
};

/// Every registered provider, the default (`defaultProvider`) first.
llvm::ArrayRef<const Provider *> providers();
/// The provider a call takes when it names none.
const Provider &defaultProvider();
/// The provider called `name`, or null.
const Provider *lookupProvider(llvm::StringRef name);

} // namespace tessel

#endif // TESSEL_TARGET_PROVIDER_H
