//===- LaunchWrapper.h - the Triton provider's Python launch path -*- C++ -*-===//
//
// The host side of one Triton kernel (seed 000 §4.3, §3.1): a wrapper that
// checks the public ABI, evaluates the LaunchExpr grid and launch facts, and
// launches. The serializer collects what the ABI is (LaunchWrapperSpec); this
// file spells it.
//
// A call is either checked or planned. A checked call runs every check
// (Wrapper.h), launches through Triton's JIT and records a plan under a key
// of everything the checks and Triton's specialization depend on except
// addresses and float scalars: each view's type, dtype, shape, strides,
// device and 16-byte alignment, and each integer scalar. A later call with
// the same key checks only what the key leaves open (aliasing of written
// views from their byte spans, the float scalars' types and ranges) and calls
// the plan's launch, in which the grid, the extents, strides and launch
// facts are bound constants and the views pass as addresses. Workspace sizes
// are functions of the key too: the checked call evaluates them and the plan
// holds them, so a planned call only allocates.
//
// Tickets (i32 workspace zero-filled by the runtime whose only uses are
// pgpu.last_program tickets) are not allocated and filled per planned call:
// the kernel's last arrival at each ticket returns it to 0 (TritonSerializer),
// so one zeroed buffer per (device, stream), grown as needed, serves every
// planned launch on that stream, each running after the one before it there.
// A checked call, CUDA graph capture and tickets past 2**22 elements take
// fresh zeros; an interpreted launch that raises drops the buffer.
//
// Tensor descriptors (TMA boxes) are made on the host and passed as kernel
// arguments, not made by each program on the device (~1.5 us of every
// program's time per descriptor on the H200). A checked call makes Triton's
// TensorDescriptor; a planned launch keeps, per descriptor argument, the
// launcher's expanded form (the encoded CUtensorMap, shape and strides) while
// the view's data pointer stays the same, since the plan key fixes the rest.
//
// A kernel object's call is the same planned call over the object's own plan
// table (`_<kernel>_entry`, which becomes the `__call__` of the object's class
// after its first plain call): views positional-only and scalars keyword-only,
// each defaulting to `_ABSENT`, so that a call it cannot take (a view by name,
// a constexpr, an argument missing or extra) or one under torch.compile's
// tracing goes back to the object with its arguments as given.
//
// In the checked launch mode (`TESSEL_CHECKED=1` at import, or `_indices=True`
// on the checked call, which `@tessel.kernel(checked=True)` passes) no call
// takes a plan: each is checked in full, index values included.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TARGET_TRITON_LAUNCHWRAPPER_H
#define TESSEL_TARGET_TRITON_LAUNCHWRAPPER_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <string>
#include <utility>

namespace tessel::triton {

/// One argument of the `@triton.jit` kernel as the wrapper produces it.
struct LaunchArg {
  enum Kind {
    View,      ///< a view: the tensor (JIT launch) or its address (direct launch)
    Scalar,    ///< a by-value ABI scalar, passed on every call
    Workspace, ///< invocation workspace, allocated on every call (tickets: from a zeroed buffer)
    Fixed,     ///< a function of the plan key (extent, stride, launch fact): bound in the plan
    /// a view's tensor descriptor made on the host (`name` the view, `host` the box shape) when the
    /// TMA switch is on, else None: a planned launch keeps it while the view's address stays
    Descriptor,
  };
  Kind kind;
  /// The view, scalar or workspace name (`_ws_<name>` is the workspace's local).
  std::string name;
  /// Its host expression on a checked call (a descriptor's box shape).
  std::string host;
};

/// One invocation workspace argument (seed 000 §2): its local is `_ws_<name>`, its element count
/// `_n_<name>` (bound in the plan).
struct LaunchWorkspace {
  std::string name;
  /// The element count's host expression (of the views' extents and integer scalars: the plan key).
  std::string count;
  /// The torch dtype, the fill value ("" for none) and the device expression.
  std::string dtype, init, device;
  /// Sized by a launch expression that may be 0 on a call: the shared zero-element tensor then.
  bool launchSized = false;
  /// Zero-filled i32 used only as pgpu.last_program tickets, which the kernel returns to 0.
  bool ticket = false;
};

/// What the serializer found the kernel's ABI and launch to be.
struct LaunchWrapperSpec {
  std::string kernel;
  /// The wrapper's signature: views positionally, scalars keyword-only.
  llvm::SmallVector<std::string> positional, keywords;
  /// The precise checks of a checked call, in order (each raises a clear error).
  llvm::SmallVector<std::string> checks;
  /// The checked launch mode's index-value checks (Wrapper.h: indexChecks), run when `_indices`.
  llvm::SmallVector<std::string> indexChecks;
  /// (name, written) of each view, in order.
  llvm::SmallVector<std::pair<std::string, bool>> views;
  /// (name, Python type, range or "") of each scalar.
  llvm::SmallVector<std::pair<std::string, std::pair<std::string, std::string>>> scalars;
  /// Launch facts on float scalars (guards, as host expressions): the plan key holds their values, since
  /// it leaves float scalars themselves open.
  llvm::SmallVector<std::string> keyed;
  /// Invocation workspace, in argument order.
  llvm::SmallVector<LaunchWorkspace> workspaces;
  llvm::SmallVector<LaunchArg> args;
  /// The grid's host expression, the device index expression and the TMA switch's argument ("" if none).
  std::string grid, device, tmaArg;
  /// The warp-specialized Gluon kernel of this binding ("" if none): launched instead of the Triton one
  /// where the TMA switch holds (its descriptors then Gluon's, `_gdesc`).
  std::string gluon;
  int64_t warps = 4, stages = 3;
  /// The Gluon kernel's per-thread register cap (`maxnreg`, 0: the compiler's own), passed only where
  /// the Gluon kernel launches.
  int64_t gluonRegs = 0;
  /// The Gluon kernel's num_warps (its default partition's warps; 0: `warps`).
  int64_t gluonWarps = 0;
};

/// The per-kernel plan table, checked path, plan binder, wrapper, kernel-object entry and warm-up entry.
void emitLaunchWrapper(llvm::raw_ostream &os, const LaunchWrapperSpec &spec);

/// Module-level helpers the wrappers share: `_direct` (the compiled kernel's own launcher, when a
/// call needs none of Triton's per-call services), `_ABSENT` and `_given` (a kernel object's call as
/// given, for its misses) and `_tma_allocator`.
void emitLaunchPrelude(llvm::raw_ostream &os);

/// `_zeroed` and its buffers (LaunchWrapper.h: tickets), for a module whose kernels have tickets.
void emitTicketPrelude(llvm::raw_ostream &os);

} // namespace tessel::triton

#endif // TESSEL_TARGET_TRITON_LAUNCHWRAPPER_H
