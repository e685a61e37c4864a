//===- Interpreter.h - the KIR reference interpreter ------------*- C++ -*-===//
//
// tessel's oracle (ARCHITECTURE.md §1): executes a verified kir.kernel on host
// buffers. Structured ops follow their declared semantics in a documented order;
// the freedoms KIR grants (parallel iteration order, region_fold/region_scan
// segmentation) are selectable so that order dependence and broken author laws
// show up as different results. Errors (out-of-bounds access, uninitialized
// buffer reads, duplicate unique-scatter destinations, bad bindings) are
// diagnostics at the op's location, never silent reads.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_INTERP_INTERPRETER_H
#define TESSEL_INTERP_INTERPRETER_H

#include "tessel/Dialect/KIR/IR/KIR.h"
#include "tessel/Interp/Numerics.h"

#include <memory>
#include <random>
#include <vector>

namespace tessel::interp {

/// A host array bound to a view argument: element type, logical shape,
/// element strides (any sign) and offset into `storage`.
struct HostArray {
  mlir::Type elementType;
  llvm::SmallVector<int64_t> shape;
  llvm::SmallVector<int64_t> strides;
  int64_t offset = 0;
  std::vector<Elem> storage;
  /// Per storage element: written by the kernel (tracked for out views).
  std::vector<uint8_t> written;

  /// The most elements one array, tensor or buffer of the interpreters holds (2^28): past it, a
  /// located error instead of an allocation abort (LLVM's out of memory, std::length_error).
  static constexpr int64_t kMaxElements = int64_t(1) << 28;
  /// Elements of `shape`, or -1 when an extent is negative or the count passes kMaxElements (checked
  /// without overflow). Every allocation sized by a user's shapes (tessel run's views and --in
  /// files, the interpreters' tensors, buffers and invocation workspace) checks it first.
  static int64_t checkedElements(llvm::ArrayRef<int64_t> shape);
  /// Why checkedElements refuses `shape`, as the end of a sentence ("has ... elements; ...").
  static std::string tooLarge(llvm::ArrayRef<int64_t> shape);
  /// A contiguous row-major array of `shape` (at most kMaxElements elements: checkedElements first).
  static HostArray contiguous(mlir::Type elementType, llvm::ArrayRef<int64_t> shape);
  int64_t numElements() const;
  /// The storage index of logical coordinate `coord`.
  int64_t address(llvm::ArrayRef<int64_t> coord) const;
};

/// One kernel argument: a view binding or a scalar value.
struct Argument {
  HostArray *view = nullptr;
  Elem scalar;
};

enum class IterationOrder { Forward, Reverse, Shuffle };

/// How region_fold / region_scan cut their source axis.
struct Segmentation {
  enum Kind { One, Fixed, Random } kind = One;
  int64_t count = 1; // segments for Fixed
};

struct InterpreterOptions {
  IterationOrder order = IterationOrder::Forward;
  Segmentation segmentation;
  uint64_t seed = 0;
  /// Limits of one run; past either, a located error. `maxElements`: elements in one tensor or
  /// iterations of one loop (at most 2^28, the interpreter's own bound). `maxSteps`: ops executed
  /// plus the tensor elements they produce, over the whole run (0: no limit). `tessel run` keeps the
  /// defaults; the fuzzer (tools/tessel-fuzz) lowers both so that a huge valid program ends quickly.
  int64_t maxElements = int64_t(1) << 28;
  uint64_t maxSteps = 0;
};

/// Runs `kernel` on `args` (one per kernel argument, views bound to arrays
/// whose shapes define the symbolic extents). Emits diagnostics at op
/// locations and fails on any semantic error.
mlir::LogicalResult runKernel(kir::KernelOp kernel, llvm::ArrayRef<Argument> args,
                              const InterpreterOptions &options);

} // namespace tessel::interp

#endif // TESSEL_INTERP_INTERPRETER_H
