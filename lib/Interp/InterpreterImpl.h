//===- InterpreterImpl.h - state of one KIR interpreter run -----*- C++ -*-===//

#ifndef TESSEL_LIB_INTERP_INTERPRETERIMPL_H
#define TESSEL_LIB_INTERP_INTERPRETERIMPL_H

#include "tessel/Interp/Interpreter.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

#include <variant>

namespace tessel::interp::engine {

/// A logical tensor; rank 0 is a scalar. Elements are row-major.
struct Tensor {
  mlir::Type elementType;
  llvm::SmallVector<int64_t> shape;
  std::vector<Elem> data;
  int64_t size() const { return static_cast<int64_t>(data.size()); }
};
using TensorPtr = std::shared_ptr<const Tensor>;

/// The interpreter holds at most this many elements in one tensor and runs at
/// most this many iterations of one loop (2^28): past it, a located error
/// instead of an allocation abort or a run of hours.
constexpr int64_t kMaxElements = HostArray::kMaxElements;

/// Members of a domain: lo, lo + step, ... below hi.
struct Domain {
  int64_t lo = 0, hi = 0, step = 1;
  /// Computed without overflow for any bounds (a non-positive step is empty).
  int64_t size() const {
    if (hi <= lo || step <= 0)
      return 0;
    uint64_t span = uint64_t(hi) - uint64_t(lo);
    uint64_t n = (span - 1) / uint64_t(step) + 1;
    return n > uint64_t(INT64_MAX) ? INT64_MAX : int64_t(n);
  }
  int64_t member(int64_t i) const { return lo + i * step; }
  /// Position of coordinate `c`, or -1 when `c` is not a member.
  int64_t position(int64_t c) const {
    if (c < lo || c >= hi || (c - lo) % step != 0)
      return -1;
    return (c - lo) / step;
  }
};

/// A logical buffer: value, per-element initialization, and the domains that
/// give its coordinates.
struct Buffer {
  Tensor value;
  std::vector<uint8_t> initialized;
  llvm::SmallVector<Domain> domains;
};

struct Aggregate;
using RValue = std::variant<std::monostate, TensorPtr, Domain, HostArray *, Buffer *,
                            std::shared_ptr<const Aggregate>>;
struct Aggregate {
  std::vector<RValue> elements;
};

TensorPtr makeScalar(mlir::Type type, Elem value);
std::shared_ptr<Tensor> makeTensor(mlir::Type elementType, llvm::ArrayRef<int64_t> shape);
int64_t numElements(llvm::ArrayRef<int64_t> shape);
/// Elements of `shape`, or -1 when an extent is negative or the product passes
/// kMaxElements (checked without overflow).
int64_t checkedElements(llvm::ArrayRef<int64_t> shape);
/// hi - lo, at least 0, saturating instead of overflowing.
int64_t spanOf(int64_t lo, int64_t hi);
/// A located error when `count` (elements or iterations; -1 from
/// checkedElements) is negative or over `limit` (InterpreterOptions::maxElements).
mlir::LogicalResult checkCount(mlir::Operation &op, int64_t count, llvm::StringRef what, int64_t limit);
/// Row-major multi-index of linear position `linear`.
void delinearize(int64_t linear, llvm::ArrayRef<int64_t> shape, llvm::SmallVectorImpl<int64_t> &index);
int64_t linearize(llvm::ArrayRef<int64_t> index, llvm::ArrayRef<int64_t> shape);

/// Applies `fn` to aligned elements of same-shaped operands.
template <typename Fn>
mlir::FailureOr<TensorPtr> mapElements(mlir::Operation &op, llvm::ArrayRef<TensorPtr> inputs, mlir::Type resultElement,
                                       Fn fn) {
  for (const TensorPtr &t : inputs)
    if (t->shape != inputs[0]->shape)
      return op.emitError() << "operand shapes differ at run time (" << inputs[0]->size() << " vs " << t->size()
                            << " elements)";
  auto out = makeTensor(resultElement, inputs[0]->shape);
  llvm::SmallVector<Elem, 3> args(inputs.size());
  for (int64_t i = 0; i < out->size(); ++i) {
    for (auto [k, t] : llvm::enumerate(inputs))
      args[k] = t->data[i];
    out->data[i] = fn(llvm::ArrayRef<Elem>(args));
  }
  return TensorPtr(out);
}

/// Broadcast `operand` to `shape`, operand axis i landing on result axis dims[i].
inline mlir::FailureOr<TensorPtr> broadcastTo(mlir::Operation &op, const TensorPtr &operand,
                                             llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<int64_t> dims) {
  for (auto [i, dim] : llvm::enumerate(dims))
    if (operand->shape[i] != shape[dim])
      return op.emitError() << "broadcast operand axis " << i << " has extent " << operand->shape[i]
                            << " but result axis " << dim << " has " << shape[dim];
  auto out = makeTensor(operand->elementType, shape);
  llvm::SmallVector<int64_t> index, source(dims.size());
  for (int64_t i = 0; i < out->size(); ++i) {
    delinearize(i, shape, index);
    for (auto [k, dim] : llvm::enumerate(dims))
      source[k] = index[dim];
    out->data[i] = operand->data[linearize(source, operand->shape)];
  }
  return TensorPtr(out);
}

/// Shared machinery of the KIR and pgpu interpreters: the value environment,
/// region calls and the selectable iteration order.
class Engine {
public:
  explicit Engine(const InterpreterOptions &options) : options(options), rng(options.seed) {}
  virtual ~Engine() = default;

  virtual mlir::LogicalResult execOp(mlir::Operation &op) = 0;
  /// Runs `block`; the values of its terminator land in `yielded`.
  mlir::LogicalResult execBlock(mlir::Block &block, llvm::ArrayRef<RValue> args,
                                llvm::SmallVectorImpl<RValue> *yielded);
  mlir::LogicalResult callRegion(mlir::Region &region, llvm::ArrayRef<RValue> args,
                                 llvm::SmallVectorImpl<RValue> &results);
  /// Combines scalar components with a reduce/scan-style region (lhs then rhs).
  mlir::LogicalResult combineElems(mlir::Region &region, llvm::ArrayRef<mlir::Type> types,
                                   llvm::ArrayRef<Elem> lhs, llvm::ArrayRef<Elem> rhs,
                                   llvm::SmallVectorImpl<Elem> &out);
  RValue &lookup(mlir::Value value) { return env[value]; }
  TensorPtr tensor(mlir::Value value);
  Domain domain(mlir::Value value) { return std::get<Domain>(lookup(value)); }
  int64_t index(mlir::Value value) { return tensor(value)->data[0].i; }
  void bind(mlir::Value value, RValue v) { env[value] = std::move(v); }
  /// Binds a computed tensor, passing failures through.
  mlir::LogicalResult bindResult(mlir::Value value, mlir::FailureOr<TensorPtr> t) {
    if (mlir::failed(t))
      return mlir::failure();
    bind(value, *t);
    return mlir::success();
  }
  /// Binds an arith.constant scalar (rounded/wrapped to its type).
  mlir::LogicalResult bindConstant(mlir::Operation &op);
  /// Iteration order over `count` items, as the options ask for.
  std::vector<int64_t> order(int64_t count);
  /// checkCount against this run's options.maxElements.
  mlir::LogicalResult checkCount(mlir::Operation &op, int64_t count, llvm::StringRef what) const {
    return engine::checkCount(op, count, what, options.maxElements);
  }
  /// Counts `op`'s execution and the elements it produced against options.maxSteps.
  mlir::LogicalResult countStep(mlir::Operation &op);

  InterpreterOptions options;
  std::mt19937_64 rng;
  llvm::DenseMap<mlir::Value, RValue> env;
  std::vector<std::unique_ptr<Buffer>> buffers;
  uint64_t steps = 0;
};

//===----------------------------------------------------------------------===//
// Semantics shared by both interpreters (Semantics.cpp)
//===----------------------------------------------------------------------===//

mlir::FailureOr<TensorPtr> binaryTensors(mlir::Operation &op, kir::BinaryKind kind, NumericalOptions opts,
                                         const TensorPtr &lhs, const TensorPtr &rhs);
mlir::FailureOr<TensorPtr> unaryTensors(mlir::Operation &op, kir::UnaryKind kind, NumericalOptions opts,
                                        const TensorPtr &x);
mlir::FailureOr<TensorPtr> cmpTensors(mlir::Operation &op, kir::CmpPredicate predicate, const TensorPtr &lhs,
                                      const TensorPtr &rhs);
mlir::FailureOr<TensorPtr> selectTensors(mlir::Operation &op, const TensorPtr &cond, const TensorPtr &a,
                                         const TensorPtr &b);
/// kir.cast / pgpu.cast (or bitcast) of every element to `to`.
mlir::FailureOr<TensorPtr> convertTensor(mlir::Operation &op, const TensorPtr &x, mlir::Type to, bool bitcast);
TensorPtr transposeTensor(const TensorPtr &t, llvm::ArrayRef<int64_t> perm);
TensorPtr joinTensors(const TensorPtr &a, const TensorPtr &b);
mlir::FailureOr<llvm::SmallVector<TensorPtr>> reduceAlong(Engine &engine, mlir::Region &combine,
                                                          llvm::ArrayRef<TensorPtr> inputs,
                                                          llvm::ArrayRef<Elem> identity, llvm::ArrayRef<int64_t> axes);
mlir::FailureOr<llvm::SmallVector<TensorPtr>> scanAlong(Engine &engine, mlir::Region &combine,
                                                        llvm::ArrayRef<TensorPtr> inputs,
                                                        llvm::ArrayRef<Elem> initial, unsigned axis, bool exclusive,
                                                        bool reverse);
/// Values and positions (plus `base`) of the selected members along `axis`.
std::pair<TensorPtr, TensorPtr> argReduceAlong(const TensorPtr &x, unsigned axis, bool wantMax, bool highest,
                                               bool propagate, int64_t base, mlir::MLIRContext *ctx);
/// lhs x rhs over paired axes into `init` (zero when null), in dtype `acc`.
mlir::FailureOr<TensorPtr> contractInto(mlir::Operation &op, const TensorPtr &lhs, const TensorPtr &rhs,
                                        const TensorPtr &init, mlir::Type acc, llvm::ArrayRef<int64_t> lr,
                                        llvm::ArrayRef<int64_t> rr, llvm::ArrayRef<int64_t> lb,
                                        llvm::ArrayRef<int64_t> rb,
                                        kir::ContractPrecision precision = kir::ContractPrecision::IEEE);
/// Ordered while: `before` ends in a condition op (test, forwarded values...).
mlir::LogicalResult runWhile(Engine &engine, mlir::Region &before, mlir::Region &after,
                             llvm::SmallVector<RValue> carries, mlir::ResultRange results);
mlir::LogicalResult runIf(Engine &engine, bool condition, mlir::Region &thenRegion, mlir::Region &elseRegion,
                          mlir::ResultRange results);

/// The KIR interpreter.
class Interpreter : public Engine {
public:
  Interpreter(kir::KernelOp kernel, const InterpreterOptions &options) : Engine(options), kernel(kernel) {}

  mlir::LogicalResult run(llvm::ArrayRef<Argument> args);
  mlir::LogicalResult execOp(mlir::Operation &op) override;
  // Effects (InterpEffects.cpp).
  mlir::LogicalResult execEffect(mlir::Operation &op, bool &handled);
  // Structured ops (InterpStructured.cpp).
  mlir::LogicalResult execStructured(mlir::Operation &op, bool &handled);

  kir::KernelOp kernel;
  llvm::StringMap<int64_t> extents;
};

} // namespace tessel::interp::engine

#endif // TESSEL_LIB_INTERP_INTERPRETERIMPL_H
