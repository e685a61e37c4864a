//===- PGPUInterpreter.cpp - executes pgpu programs on the CPU -------------===//
//
// The physical half of the oracle (ARCHITECTURE.md §1): a pass is correct
// when the pgpu program after it computes what the KIR program computes. The
// grid is formed by the LaunchExpr evaluator, exactly as a launch wrapper
// would; program instances run one at a time in the selected order; fragments
// are dense arrays; an invalid load performs no access; invocation workspace
// is allocated before the launch; and two program instances writing one
// element without atomics is reported (invariant 9 at run time).
//
//===----------------------------------------------------------------------===//

#include "InterpreterImpl.h"
#include "tessel/Interp/LaunchExpr.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace tessel;
using namespace tessel::interp;
using namespace tessel::interp::engine;

namespace {
class PGPUInterpreter : public Engine {
public:
  PGPUInterpreter(pgpu::KernelOp kernel, ArrayRef<Argument> args, const llvm::StringMap<int64_t> &params,
                  const InterpreterOptions &options)
      : Engine(options), kernel(kernel), args(args) {
    launchEnv.params = params;
    launchEnv.args = args;
  }

  LogicalResult run();
  LogicalResult execOp(Operation &op) override;

private:
  /// Static shape of a fragment/buffer type under the parameter bindings.
  FailureOr<SmallVector<int64_t>> resolve(Operation &op, ArrayRef<Attribute> extents);
  FailureOr<SmallVector<int64_t>> shapeOf(Operation &op, Type type) {
    if (auto f = dyn_cast<pgpu::FragmentType>(type)) {
      FailureOr<SmallVector<int64_t>> shape = resolve(op, f.getExtents());
      if (succeeded(shape) && failed(checkCount(op, checkedElements(*shape), "the fragment")))
        return failure();
      return shape;
    }
    return SmallVector<int64_t>();
  }
  LogicalResult execAccess(Operation &op, bool &handled);
  LogicalResult execStructured(Operation &op, bool &handled);

  /// Source coordinates of position `i` of an access.
  void coordsAt(ArrayRef<TensorPtr> coords, int64_t i, SmallVectorImpl<int64_t> &out) {
    out.clear();
    for (const TensorPtr &c : coords)
      out.push_back(c->shape.empty() ? c->data[0].i : c->data[i].i);
  }
  static bool active(const TensorPtr &valid, int64_t i) {
    return valid->shape.empty() ? valid->data[0].i != 0 : valid->data[i].i != 0;
  }
  LogicalResult checkBounds(Operation &op, ArrayRef<int64_t> coord, ArrayRef<int64_t> shape, StringRef what) {
    for (auto [axis, c] : llvm::enumerate(coord))
      if (c < 0 || c >= shape[axis])
        return op.emitError() << "out-of-bounds " << what << " by program instance " << instance << ": coordinate "
                              << c << " on axis " << axis << " of extent " << shape[axis];
    return success();
  }
  /// Records a non-atomic write; two instances writing one element conflict.
  LogicalResult recordWrite(Operation &op, const void *resource, int64_t addr) {
    auto [it, inserted] = writers.try_emplace({resource, addr}, instance);
    if (inserted || it->second == instance)
      return success();
    // An instance that acquired what the earlier writer released writes after it (a hand-off).
    auto seen = synced.find(instance);
    if (seen == synced.end() || !seen->second.contains(it->second))
      return op.emitError() << "program instances " << it->second << " and " << instance
                            << " write the same element without atomics (invariant 9)";
    it->second = instance;
    return success();
  }
  /// A release store of an atomic element: what this instance did is published there.
  void recordRelease(const void *resource, int64_t addr) { releasers[{resource, addr}] = instance; }
  /// An acquire load: this instance now follows the releasing instance and what it followed.
  void recordAcquire(const void *resource, int64_t addr) {
    auto it = releasers.find({resource, addr});
    if (it == releasers.end() || it->second == instance)
      return;
    DenseSet<int64_t> theirs;
    if (auto t = synced.find(it->second); t != synced.end())
      theirs = t->second;
    DenseSet<int64_t> &mine = synced[instance];
    mine.insert(it->second);
    for (int64_t i : theirs)
      mine.insert(i);
  }
  SmallVector<TensorPtr> tensors(ValueRange values) {
    SmallVector<TensorPtr> out;
    for (Value v : values)
      out.push_back(tensor(v));
    return out;
  }

  pgpu::KernelOp kernel;
  ArrayRef<Argument> args;
  LaunchEnv launchEnv;
  llvm::StringMap<int64_t> viewExtents;
  int64_t instance = -1;
  int64_t programCount = 0; // instances of the program space being run
  DenseMap<std::pair<const void *, int64_t>, int64_t> writers;
  // Happens-before through release/acquire atomics: the instances each instance follows, and the
  // instance that last released each atomic element.
  DenseMap<int64_t, DenseSet<int64_t>> synced;
  DenseMap<std::pair<const void *, int64_t>, int64_t> releasers;
  // The instances that arrived at each ticket element (pgpu.last_program) since its last arrival.
  DenseMap<std::pair<const void *, int64_t>, SmallVector<int64_t>> arrivals;
};
} // namespace

FailureOr<SmallVector<int64_t>> PGPUInterpreter::resolve(Operation &op, ArrayRef<Attribute> extents) {
  SmallVector<int64_t> shape;
  for (Attribute e : extents) {
    if (auto size = dyn_cast<IntegerAttr>(e)) {
      shape.push_back(size.getInt());
      continue;
    }
    StringRef name = cast<StringAttr>(e).getValue();
    auto it = launchEnv.params.find(name);
    if (it != launchEnv.params.end()) {
      shape.push_back(it->second);
      continue;
    }
    if (pgpu::WorkspaceExtentOp sized = pgpu::workspaceExtent(kernel, name)) {
      // A named LaunchExpr: the runtime evaluates it as it evaluates the grid.
      FailureOr<int64_t> size = evaluateLaunchExpr(sized.getSize(), launchEnv);
      if (failed(size))
        return failure();
      if (*size < 0)
        return sized.emitError() << "workspace extent '" << name << "' evaluates to " << *size;
      shape.push_back(*size);
      continue;
    }
    auto view = viewExtents.find(name);
    if (view == viewExtents.end())
      return op.emitError() << "extent '" << name << "' is neither a bound parameter nor a view extent";
    shape.push_back(view->second);
  }
  return shape;
}

LogicalResult PGPUInterpreter::run() {
  Block &entry = kernel.getBody().front();
  if (args.size() != entry.getNumArguments())
    return kernel.emitError() << "kernel @" << kernel.getSymName() << " takes " << entry.getNumArguments()
                              << " arguments, got " << args.size();
  for (auto [i, arg] : llvm::enumerate(entry.getArguments())) {
    if (auto view = dyn_cast<pgpu::ViewType>(arg.getType())) {
      HostArray *array = args[i].view;
      if (!array || array->shape.size() != view.getRank() || array->elementType != view.getElementType())
        return kernel.emitError() << "argument #" << i << " must be bound to a " << view.getRank() << "-d array of "
                                  << view.getElementType();
      for (auto [axis, e] : llvm::enumerate(view.getExtents())) {
        int64_t size = array->shape[axis];
        if (auto fixed = dyn_cast<IntegerAttr>(e)) {
          if (fixed.getInt() != size)
            return kernel.emitError() << "argument #" << i << " axis " << axis << " must have extent " << fixed.getInt();
          continue;
        }
        auto [it, inserted] = viewExtents.try_emplace(cast<StringAttr>(e).getValue(), size);
        if (!inserted && it->second != size)
          return kernel.emitError() << "inconsistent extents for '" << it->getKey() << "': " << it->second << " and "
                                    << size;
      }
      bind(arg, array);
    } else if (auto buffer = dyn_cast<pgpu::BufferType>(arg.getType())) {
      // Invocation workspace: allocated by the runtime before the launch,
      // uninitialized (first-write obligation) unless the ABI states a fill.
      FailureOr<SmallVector<int64_t>> shape = resolve(*kernel, buffer.getExtents());
      if (failed(shape) || failed(checkCount(*kernel, checkedElements(*shape), "invocation workspace #" +
                                                                                 std::to_string(i))))
        return failure();
      auto storage = std::make_unique<Buffer>();
      storage->value = *makeTensor(buffer.getElementType(), *shape);
      storage->initialized.assign(storage->value.data.size(), 0);
      if (auto init = kernel.getArgAttrOfType<TypedAttr>(i, "pgpu.init")) {
        Elem e;
        if (auto f = dyn_cast<FloatAttr>(init))
          e.f = f.getValueAsDouble();
        else
          e.i = cast<IntegerAttr>(init).getInt();
        std::fill(storage->value.data.begin(), storage->value.data.end(), e);
        storage->initialized.assign(storage->value.data.size(), 1);
      }
      bind(arg, storage.get());
      buffers.push_back(std::move(storage));
    } else {
      bind(arg, makeScalar(arg.getType(), args[i].scalar));
    }
  }
  for (Operation &op : entry) {
    if (auto space = dyn_cast<pgpu::ProgramSpaceOp>(op)) {
      // The wrapper's view: evaluate the grid from the LaunchExprs.
      SmallVector<int64_t> grid;
      for (Value extent : space.getExtents()) {
        FailureOr<int64_t> size = evaluateLaunchExpr(extent, launchEnv);
        if (failed(size))
          return failure();
        if (*size < 0)
          return space.emitError() << "grid extent evaluates to " << *size;
        grid.push_back(*size);
      }
      SmallVector<int64_t> coord;
      SmallVector<RValue> coords(grid.size());
      if (failed(checkCount(*space.getOperation(), checkedElements(grid), "the program space")))
        return failure();
      // A program space whose instances wait for earlier ones (an acquire atomic read in a
      // pgpu.while: a chained region scan) runs them in linear order, as providers start them; any
      // other order may be selected.
      std::vector<int64_t> instances = order(numElements(grid));
      bool waits = false;
      space.walk([&](pgpu::WhileOp w) {
        w.getBefore().walk([&](pgpu::AtomicLoadOp l) { waits |= l.getOrder() == kir::AtomicOrder::Acquire; });
      });
      if (waits)
        std::sort(instances.begin(), instances.end());
      for (int64_t linear : instances) {
        instance = linear;
        programCount = numElements(grid);
        delinearize(linear, grid, coord);
        for (auto [k, c] : llvm::enumerate(coord))
          coords[k] = makeScalar(IndexType::get(op.getContext()), Elem{0, c});
        if (failed(execBlock(space.getBody().front(), coords, nullptr)))
          return failure();
      }
      continue;
    }
    if (isa<pgpu::ReturnOp>(op))
      break;
    if (failed(execOp(op)))
      return failure();
  }
  return success();
}

LogicalResult PGPUInterpreter::execOp(Operation &op) {
  bool handled = false;
  if (failed(execAccess(op, handled)))
    return failure();
  if (handled)
    return success();
  if (failed(execStructured(op, handled)))
    return failure();
  if (handled)
    return success();
  Type resultElem = op.getNumResults() ? pgpu::elementTypeOf(op.getResult(0).getType()) : Type();
  return llvm::TypeSwitch<Operation *, LogicalResult>(&op)
      .Case<arith::ConstantOp>([&](arith::ConstantOp) { return bindConstant(op); })
      .Case<pgpu::WorkspaceExtentOp>([&](auto) { return success(); }) // read when workspace is sized
      .Case<pgpu::ParamOp, pgpu::ExtentOp, pgpu::StrideOp, pgpu::CeilDivOp>([&](Operation *leaf) -> LogicalResult {
        FailureOr<int64_t> v = evaluateLaunchExpr(leaf->getResult(0), launchEnv);
        if (failed(v))
          return failure();
        bind(leaf->getResult(0), makeScalar(leaf->getResult(0).getType(), Elem{0, *v}));
        return success();
      })
      .Case<pgpu::BinaryOp>([&](pgpu::BinaryOp b) {
        return bindResult(b.getResult(), binaryTensors(op, b.getKind(), {b.getApproximate(), b.getFlushToZero()},
                                                      tensor(b.getLhs()), tensor(b.getRhs())));
      })
      .Case<pgpu::UnaryOp>([&](pgpu::UnaryOp u) {
        return bindResult(u.getResult(), unaryTensors(op, u.getKind(), {u.getApproximate(), u.getFlushToZero()},
                                                     tensor(u.getOperand())));
      })
      .Case<pgpu::CmpOp>([&](pgpu::CmpOp c) {
        return bindResult(c.getResult(), cmpTensors(op, c.getPredicate(), tensor(c.getLhs()), tensor(c.getRhs())));
      })
      .Case<pgpu::SelectOp>([&](pgpu::SelectOp s) {
        return bindResult(s.getResult(), selectTensors(op, tensor(s.getCondition()), tensor(s.getTrueValue()),
                                                      tensor(s.getFalseValue())));
      })
      .Case<pgpu::CastOp, pgpu::BitcastOp>([&](auto c) {
        bool bitcast = std::is_same_v<decltype(c), pgpu::BitcastOp>;
        return bindResult(c.getResult(), convertTensor(op, tensor(c.getOperand()), resultElem, bitcast));
      })
      .Case<pgpu::IotaOp>([&](pgpu::IotaOp i) -> LogicalResult {
        FailureOr<SmallVector<int64_t>> shape = shapeOf(op, i.getType());
        if (failed(shape))
          return failure();
        auto t = makeTensor(resultElem, *shape);
        int64_t base = index(i.getBase());
        for (int64_t k = 0; k < t->size(); ++k)
          t->data[k].i = base + k;
        bind(i.getResult(), TensorPtr(t));
        return success();
      })
      .Case<pgpu::SplatOp>([&](pgpu::SplatOp s) -> LogicalResult {
        FailureOr<SmallVector<int64_t>> shape = shapeOf(op, s.getType());
        if (failed(shape))
          return failure();
        auto t = makeTensor(resultElem, *shape);
        std::fill(t->data.begin(), t->data.end(), tensor(s.getOperand())->data[0]);
        bind(s.getResult(), TensorPtr(t));
        return success();
      })
      .Case<pgpu::BroadcastOp>([&](pgpu::BroadcastOp b) -> LogicalResult {
        FailureOr<SmallVector<int64_t>> shape = shapeOf(op, b.getType());
        if (failed(shape))
          return failure();
        return bindResult(b.getResult(), broadcastTo(op, tensor(b.getOperand()), *shape, b.getDims()));
      })
      .Case<pgpu::ExtractOp>([&](pgpu::ExtractOp e) -> LogicalResult {
        TensorPtr t = tensor(e.getFragment());
        SmallVector<int64_t> idx;
        for (auto [axis, v] : llvm::enumerate(e.getIndices())) {
          idx.push_back(index(v));
          if (idx.back() < 0 || idx.back() >= t->shape[axis])
            return op.emitError() << "extracts position " << idx.back() << " of a fragment axis of extent "
                                  << t->shape[axis];
        }
        bind(e.getResult(), makeScalar(e.getType(), t->data[linearize(idx, t->shape)]));
        return success();
      })
      .Case<pgpu::ReshapeOp>([&](pgpu::ReshapeOp r) -> LogicalResult {
        FailureOr<SmallVector<int64_t>> shape = shapeOf(op, r.getType());
        if (failed(shape))
          return failure();
        auto out = std::make_shared<Tensor>(*tensor(r.getOperand()));
        if (numElements(*shape) != out->size())
          return op.emitError() << "reshape changes the element count at run time";
        out->shape = *shape;
        bind(r.getResult(), TensorPtr(out));
        return success();
      })
      .Case<pgpu::TransposeOp>([&](pgpu::TransposeOp tr) {
        bind(tr.getResult(), transposeTensor(tensor(tr.getOperand()), tr.getPermutation()));
        return success();
      })
      .Case<pgpu::JoinOp>([&](pgpu::JoinOp j) {
        bind(j.getResult(), joinTensors(tensor(j.getLhs()), tensor(j.getRhs())));
        return success();
      })
      .Case<pgpu::TupleOp>([&](pgpu::TupleOp t) {
        auto agg = std::make_shared<Aggregate>();
        for (Value v : t.getElements())
          agg->elements.push_back(lookup(v));
        bind(t.getResult(), std::shared_ptr<const Aggregate>(agg));
        return success();
      })
      .Case<pgpu::TupleGetOp>([&](pgpu::TupleGetOp g) {
        bind(g.getResult(), std::get<std::shared_ptr<const Aggregate>>(lookup(g.getTuple()))->elements[g.getIndex()]);
        return success();
      })
      .Case<pgpu::ExecutionGroupOp>([&](pgpu::ExecutionGroupOp g) -> LogicalResult {
        SmallVector<int64_t> extents, coord;
        for (Value e : g.getExtents())
          extents.push_back(index(e));
        int64_t linear = index(g.getLinear());
        if (linear < 0 || linear >= numElements(extents))
          return op.emitError() << "program coordinate " << linear << " is outside segment " << g.getSegment()
                                << " of " << numElements(extents) << " programs; the dispatch guard is missing";
        delinearize(linear, extents, coord);
        SmallVector<RValue> coords;
        for (int64_t c : coord)
          coords.push_back(makeScalar(IndexType::get(op.getContext()), Elem{0, c}));
        return execBlock(g.getBody().front(), coords, nullptr);
      })
      .Case<pgpu::DelinearizeOp>([&](pgpu::DelinearizeOp d) {
        SmallVector<int64_t> extents, coord;
        for (Value e : d.getExtents())
          extents.push_back(index(e));
        delinearize(index(d.getLinear()), extents, coord);
        for (auto [r, c] : llvm::zip(d.getResults(), coord))
          bind(r, makeScalar(r.getType(), Elem{0, c}));
        return success();
      })
      .Case<pgpu::ForOp>([&](pgpu::ForOp f) -> LogicalResult {
        int64_t lb = index(f.getLower()), ub = index(f.getUpper()), step = index(f.getStep());
        if (step <= 0)
          return op.emitError() << "loop step must be positive, got " << step;
        SmallVector<RValue> carries;
        for (Value v : f.getInits())
          carries.push_back(lookup(v));
        for (int64_t iv = lb; iv < ub; iv += step) {
          SmallVector<RValue> in{makeScalar(IndexType::get(op.getContext()), Elem{0, iv})}, next;
          in.append(carries.begin(), carries.end());
          if (failed(callRegion(f.getBody(), in, next)))
            return failure();
          carries = std::move(next);
        }
        for (auto [r, v] : llvm::zip(f.getResults(), carries))
          bind(r, v);
        return success();
      })
      .Case<pgpu::WhileOp>([&](pgpu::WhileOp w) {
        SmallVector<RValue> carries;
        for (Value v : w.getInits())
          carries.push_back(lookup(v));
        return runWhile(*this, w.getBefore(), w.getAfter(), carries, w.getResults());
      })
      .Case<pgpu::ForeachOp>([&](pgpu::ForeachOp f) -> LogicalResult {
        // Independent iterations: the selected order exposes any dependence.
        int64_t lb = index(f.getLower()), ub = index(f.getUpper());
        if (failed(checkCount(op, spanOf(lb, ub), "the foreach range")))
          return failure();
        for (int64_t k : order(spanOf(lb, ub)))
          if (failed(execBlock(f.getBody().front(), {makeScalar(IndexType::get(op.getContext()), Elem{0, lb + k})},
                               nullptr)))
            return failure();
        return success();
      })
      .Case<pgpu::IfOp>([&](pgpu::IfOp i) {
        return runIf(*this, index(i.getCondition()), i.getThenRegion(), i.getElseRegion(), i.getResults());
      })
      .Case<pgpu::LastProgramOp>([&](pgpu::LastProgramOp l) -> LogicalResult {
        // The ticket counts arrivals; instances run one after another here, so the last to arrive
        // sees every other instance's effects, as the acq_rel increment guarantees on a device.
        // A ticketed finalization counts the `arrivals` instances that share ticket[coords].
        Buffer &ticket = *std::get<Buffer *>(lookup(l.getTicket()));
        int64_t at = 0, count = programCount;
        if (l.isTicketed()) {
          SmallVector<int64_t> coord;
          for (Value c : l.getCoords())
            coord.push_back(index(c));
          if (failed(checkBounds(op, coord, ticket.value.shape, "ticket")))
            return failure();
          at = linearize(coord, ticket.value.shape);
          count = index(l.getArrivals());
        }
        int64_t arrived = ticket.value.data[at].i++;
        // The acq_rel arrival releases what this instance did; the last arrival acquires every
        // arrival's, so its writes follow theirs (a finalization may rewrite what they wrote).
        SmallVector<int64_t> &before = arrivals[{&ticket, at}];
        before.push_back(instance);
        if (arrived != count - 1)
          return success();
        DenseSet<int64_t> followed;
        for (int64_t i : before) {
          followed.insert(i);
          if (auto t = synced.find(i); t != synced.end())
            followed.insert(t->second.begin(), t->second.end());
        }
        before.clear();
        synced[instance].insert(followed.begin(), followed.end());
        return execBlock(l.getBody().front(), {}, nullptr);
      })
      .Default([&](Operation *other) -> LogicalResult {
        return other->emitError() << "the pgpu interpreter does not execute '" << other->getName() << "'";
      });
}

LogicalResult PGPUInterpreter::execAccess(Operation &op, bool &handled) {
  handled = true;
  auto viewOf = [&](Value v) -> HostArray & { return *std::get<HostArray *>(lookup(v)); };
  auto bufferOf = [&](Value v) -> Buffer & { return *std::get<Buffer *>(lookup(v)); };
  // Visits each active lane of a write into `buffer` through explicit coordinates: the lane, its
  // element's linear position (bounds checked, `what` naming the access) and the lane's value.
  auto eachBufferElement = [&](Buffer &buffer, const TensorPtr &value, Value validV, ValueRange coordVs,
                               StringRef what,
                               function_ref<LogicalResult(int64_t, int64_t, Elem)> visit) -> LogicalResult {
    TensorPtr valid = tensor(validV);
    SmallVector<TensorPtr> coords = tensors(coordVs);
    SmallVector<int64_t> coord;
    for (int64_t i = 0; i < value->size(); ++i) {
      if (!active(valid, i))
        continue;
      coordsAt(coords, i, coord);
      if (failed(checkBounds(op, coord, buffer.value.shape, what)) ||
          failed(visit(i, linearize(coord, buffer.value.shape), value->data[i])))
        return failure();
    }
    return success();
  };
  // Reads a view or buffer through explicit coordinates; invalid positions
  // perform no access.
  auto read = [&](Value result, ArrayRef<TensorPtr> coords, TensorPtr valid, Elem fill,
                  auto addressOf) -> LogicalResult {
    FailureOr<SmallVector<int64_t>> shape = shapeOf(op, result.getType());
    if (failed(shape))
      return failure();
    auto out = makeTensor(pgpu::elementTypeOf(result.getType()), *shape);
    SmallVector<int64_t> coord;
    for (int64_t i = 0; i < std::max<int64_t>(out->size(), 1) && i < out->size(); ++i) {
      if (!active(valid, i)) {
        out->data[i] = fill;
        continue;
      }
      coordsAt(coords, i, coord);
      FailureOr<Elem> e = addressOf(coord);
      if (failed(e))
        return failure();
      out->data[i] = *e;
    }
    bind(result, TensorPtr(out));
    return success();
  };
  auto viewReader = [&](HostArray &view) {
    return [&](ArrayRef<int64_t> coord) -> FailureOr<Elem> {
      if (failed(checkBounds(op, coord, view.shape, "read")))
        return failure();
      return view.storage[view.address(coord)];
    };
  };
  // Writes `value` through coordinates; `combine` merges into the old value.
  auto writeView = [&](Value valueV, Value viewV, ValueRange coordVs, Value validV, bool unique,
                       Region *combine) -> LogicalResult {
    HostArray &view = viewOf(viewV);
    TensorPtr value = tensor(valueV), valid = tensor(validV);
    SmallVector<TensorPtr> coords = tensors(coordVs);
    llvm::DenseSet<int64_t> seen;
    SmallVector<int64_t> coord;
    for (int64_t i = 0; i < value->size(); ++i) {
      if (!active(valid, i))
        continue;
      coordsAt(coords, i, coord);
      if (failed(checkBounds(op, coord, view.shape, "write")))
        return failure();
      int64_t addr = view.address(coord);
      // A repeat with the same bits leaves one value in any order (the KIR interpreter's rule).
      if (unique && !seen.insert(addr).second) {
        if (sameBits(view.storage[addr], value->data[i]))
          continue;
        return op.emitError() << "unique scatter writes one destination twice with different values";
      }
      if (combine) {
        SmallVector<Elem, 1> merged;
        if (failed(combineElems(*combine, {view.elementType}, {view.storage[addr]}, {value->data[i]}, merged)))
          return failure();
        view.storage[addr] = merged[0];
      } else {
        if (failed(recordWrite(op, &view, addr)))
          return failure();
        view.storage[addr] = value->data[i];
      }
      view.written[addr] = 1;
    }
    return success();
  };

  return llvm::TypeSwitch<Operation *, LogicalResult>(&op)
      .Case<pgpu::LoadOp, pgpu::GatherOp>([&](auto load) {
        return read(load.getResult(), tensors(load.getCoords()), tensor(load.getValid()),
                    tensor(load.getFill())->data[0], viewReader(viewOf(load.getView())));
      })
      .Case<pgpu::StoreOp>([&](pgpu::StoreOp s) {
        return writeView(s.getValue(), s.getView(), s.getCoords(), s.getValid(), false, nullptr);
      })
      .Case<pgpu::ScatterOp>([&](pgpu::ScatterOp s) {
        return writeView(s.getValue(), s.getView(), s.getCoords(), s.getValid(), true, nullptr);
      })
      .Case<pgpu::ScatterReduceOp>([&](pgpu::ScatterReduceOp s) -> LogicalResult {
        if (!isa<pgpu::BufferType>(s.getView().getType()))
          return writeView(s.getValue(), s.getView(), s.getCoords(), s.getValid(), false, &s.getCombine());
        // Into invocation workspace: collisions combine with what is there (its runtime fill, or earlier
        // merges); an element never written before is the first-write case and takes the value.
        Buffer &buffer = bufferOf(s.getView());
        Type element = buffer.value.elementType;
        return eachBufferElement(buffer, tensor(s.getValue()), s.getValid(), s.getCoords(), "scatter-reduce",
                                 [&](int64_t, int64_t at, Elem update) -> LogicalResult {
                                   if (!buffer.initialized[at]) {
                                     buffer.value.data[at] = update;
                                     buffer.initialized[at] = 1;
                                     return success();
                                   }
                                   SmallVector<Elem, 1> merged;
                                   if (failed(combineElems(s.getCombine(), {element}, {buffer.value.data[at]},
                                                           {update}, merged)))
                                     return failure();
                                   buffer.value.data[at] = merged[0];
                                   return success();
                                 });
      })
      .Case<pgpu::AtomicLoadOp>([&](pgpu::AtomicLoadOp a) -> LogicalResult {
        if (isa<pgpu::BufferType>(a.getView().getType())) {
          Buffer &buffer = bufferOf(a.getView());
          bool acquire = a.getOrder() == kir::AtomicOrder::Acquire;
          return read(a.getResult(), tensors(a.getCoords()), tensor(a.getValid()), Elem(),
                      [&](ArrayRef<int64_t> coord) -> FailureOr<Elem> {
                        if (failed(checkBounds(op, coord, buffer.value.shape, "atomic read")))
                          return failure();
                        int64_t at = linearize(coord, buffer.value.shape);
                        if (!buffer.initialized[at])
                          return op.emitError() << "reads an uninitialized buffer element (first-write obligation)";
                        if (acquire)
                          recordAcquire(&buffer, at);
                        return buffer.value.data[at];
                      });
        }
        return read(a.getResult(), tensors(a.getCoords()), tensor(a.getValid()), Elem(), viewReader(viewOf(a.getView())));
      })
      .Case<pgpu::AtomicStoreOp, pgpu::AtomicRMWOp, pgpu::AtomicCASOp>([&](auto a) -> LogicalResult {
        using OpT = decltype(a);
        if constexpr (std::is_same_v<OpT, pgpu::AtomicStoreOp>) {
          if (isa<pgpu::BufferType>(a.getView().getType())) {
            // Into invocation workspace (a flag handed between instances).
            Buffer &buffer = bufferOf(a.getView());
            return eachBufferElement(buffer, tensor(a.getValue()), a.getValid(), a.getCoords(), "atomic write",
                                     [&](int64_t, int64_t at, Elem value) {
                                       buffer.value.data[at] = value;
                                       buffer.initialized[at] = 1;
                                       if (a.getOrder() == kir::AtomicOrder::Release)
                                         recordRelease(&buffer, at);
                                       return success();
                                     });
          }
        }
        if constexpr (std::is_same_v<OpT, pgpu::AtomicRMWOp>) {
          if (isa<pgpu::BufferType>(a.getView().getType())) {
            // On invocation workspace (a counter the instances take work from): read, combine, write.
            Buffer &buffer = bufferOf(a.getView());
            TensorPtr value = tensor(a.getValue());
            auto old = makeTensor(buffer.value.elementType, value->shape);
            if (failed(eachBufferElement(buffer, value, a.getValid(), a.getCoords(), "atomic access",
                                         [&](int64_t i, int64_t at, Elem update) -> LogicalResult {
                                           if (!buffer.initialized[at])
                                             return op.emitError() << "reads an uninitialized buffer element "
                                                                      "(first-write obligation)";
                                           old->data[i] = buffer.value.data[at];
                                           buffer.value.data[at] = applyRMW(a.getKind(), old->data[i], update,
                                                                            buffer.value.elementType);
                                           return success();
                                         })))
              return failure();
            bind(a.getOld(), TensorPtr(old));
            return success();
          }
        }
        HostArray &view = viewOf(a.getView());
        TensorPtr valid = tensor(a.getValid());
        SmallVector<TensorPtr> coords = tensors(a.getCoords());
        TensorPtr update;
        if constexpr (std::is_same_v<OpT, pgpu::AtomicCASOp>)
          update = tensor(a.getDesired());
        else
          update = tensor(a.getValue());
        auto old = makeTensor(view.elementType, update->shape);
        auto ok = makeTensor(IntegerType::get(op.getContext(), 1), update->shape);
        SmallVector<int64_t> coord;
        for (int64_t i = 0; i < update->size(); ++i) {
          if (!active(valid, i))
            continue;
          coordsAt(coords, i, coord);
          if (failed(checkBounds(op, coord, view.shape, "atomic access")))
            return failure();
          int64_t addr = view.address(coord);
          Elem current = view.storage[addr];
          old->data[i] = current;
          if constexpr (std::is_same_v<OpT, pgpu::AtomicCASOp>) {
            Elem expected = tensor(a.getExpected())->data[update->shape.empty() ? 0 : i];
            bool equal = isFloatType(view.elementType) ? current.f == expected.f : current.i == expected.i;
            ok->data[i].i = equal;
            if (equal)
              view.storage[addr] = update->data[i];
          } else if constexpr (std::is_same_v<OpT, pgpu::AtomicRMWOp>) {
            view.storage[addr] = applyRMW(a.getKind(), current, update->data[i], view.elementType);
          } else {
            view.storage[addr] = update->data[i];
          }
          view.written[addr] = 1;
        }
        if constexpr (std::is_same_v<OpT, pgpu::AtomicRMWOp>)
          bind(a.getOld(), TensorPtr(old));
        if constexpr (std::is_same_v<OpT, pgpu::AtomicCASOp>) {
          bind(a.getOld(), TensorPtr(old));
          bind(a.getSuccess(), TensorPtr(ok));
        }
        return success();
      })
      .Case<pgpu::AllocOp>([&](pgpu::AllocOp a) -> LogicalResult {
        auto type = cast<pgpu::BufferType>(a.getType());
        FailureOr<SmallVector<int64_t>> shape = resolve(op, type.getExtents());
        if (failed(shape) || failed(checkCount(op, checkedElements(*shape), "the buffer")))
          return failure(); // a located error, not makeTensor's abort (fuzz seed 14)
        auto storage = std::make_unique<Buffer>();
        storage->value = *makeTensor(type.getElementType(), *shape);
        storage->initialized.assign(storage->value.data.size(), a.getInit() ? 1 : 0);
        if (Value init = a.getInit()) {
          TensorPtr v = tensor(init);
          if (v->shape.empty())
            std::fill(storage->value.data.begin(), storage->value.data.end(), v->data[0]);
          else
            storage->value.data = v->data;
        }
        bind(a.getResult(), storage.get());
        buffers.push_back(std::move(storage));
        return success();
      })
      .Case<pgpu::BufferLoadOp>([&](pgpu::BufferLoadOp l) {
        Buffer &buffer = bufferOf(l.getBuffer());
        return read(l.getResult(), tensors(l.getCoords()), tensor(l.getValid()), tensor(l.getFill())->data[0],
                    [&](ArrayRef<int64_t> coord) -> FailureOr<Elem> {
                      if (failed(checkBounds(op, coord, buffer.value.shape, "buffer read")))
                        return failure();
                      int64_t at = linearize(coord, buffer.value.shape);
                      if (!buffer.initialized[at])
                        return op.emitError() << "reads an uninitialized buffer element (first-write obligation)";
                      return buffer.value.data[at];
                    });
      })
      .Case<pgpu::BufferStoreOp>([&](pgpu::BufferStoreOp s) -> LogicalResult {
        Buffer &buffer = bufferOf(s.getBuffer());
        bool shared = cast<pgpu::BufferType>(s.getBuffer().getType()).getScope() == pgpu::BufferScope::Workspace;
        return eachBufferElement(buffer, tensor(s.getValue()), s.getValid(), s.getCoords(), "buffer write",
                                 [&](int64_t, int64_t at, Elem value) -> LogicalResult {
                                   if (shared && failed(recordWrite(op, &buffer, at)))
                                     return failure();
                                   buffer.value.data[at] = value;
                                   buffer.initialized[at] = 1;
                                   return success();
                                 });
      })
      .Default([&](Operation *) {
        handled = false;
        return success();
      });
}

LogicalResult PGPUInterpreter::execStructured(Operation &op, bool &handled) {
  handled = true;
  return llvm::TypeSwitch<Operation *, LogicalResult>(&op)
      .Case<pgpu::ReduceOp>([&](pgpu::ReduceOp r) -> LogicalResult {
        SmallVector<Elem> identity;
        for (Value v : r.getIdentities())
          identity.push_back(tensor(v)->data[0]);
        FailureOr<SmallVector<TensorPtr>> results =
            reduceAlong(*this, r.getCombine(), tensors(r.getInputs()), identity, r.getAxes());
        if (failed(results))
          return failure();
        for (auto [res, t] : llvm::zip(r.getResults(), *results))
          bind(res, t);
        return success();
      })
      .Case<pgpu::RangeReduceOp>([&](pgpu::RangeReduceOp r) -> LogicalResult {
        // The reduce contract allows any member order: use the selected one
        // so order dependence in a combine shows up.
        int64_t lo = index(r.getLower()), hi = index(r.getUpper());
        SmallVector<Type> types(r.getResultTypes());
        SmallVector<Elem> acc, next;
        for (Value id : r.getIdentities())
          acc.push_back(tensor(id)->data[0]);
        if (failed(checkCount(op, spanOf(lo, hi), "the reduced range")))
          return failure();
        for (int64_t k : order(spanOf(lo, hi))) {
          SmallVector<RValue> member;
          if (failed(callRegion(r.getElement(), {makeScalar(IndexType::get(op.getContext()), Elem{0, lo + k})},
                                member)))
            return failure();
          SmallVector<Elem> x;
          for (RValue &v : member)
            x.push_back(std::get<TensorPtr>(v)->data[0]);
          if (failed(combineElems(r.getCombine(), types, acc, x, next)))
            return failure();
          acc = next;
        }
        for (auto [res, e] : llvm::zip(r.getResults(), acc))
          bind(res, makeScalar(res.getType(), e));
        return success();
      })
      .Case<pgpu::RangeScanOp>([&](pgpu::RangeScanOp r) -> LogicalResult {
        // The scan contract keeps member order: visit the members in it.
        int64_t lo = index(r.getLower()), hi = index(r.getUpper());
        Type indexType = IndexType::get(op.getContext());
        SmallVector<Type> types(r.getIdentities().getTypes());
        SmallVector<Elem> acc, next;
        for (Value id : r.getIdentities())
          acc.push_back(tensor(id)->data[0]);
        for (int64_t k = 0; k < hi - lo; ++k) {
          int64_t at = r.getReverse() ? hi - 1 - k : lo + k;
          SmallVector<RValue> member, none;
          if (failed(callRegion(r.getElement(), {makeScalar(indexType, Elem{0, at})}, member)))
            return failure();
          SmallVector<Elem> x;
          for (RValue &v : member)
            x.push_back(std::get<TensorPtr>(v)->data[0]);
          if (failed(combineElems(r.getCombine(), types, acc, x, next)))
            return failure();
          SmallVector<RValue> emitArgs{makeScalar(indexType, Elem{0, at})};
          for (auto [t, e] : llvm::zip(types, r.getExclusive() ? acc : next))
            emitArgs.push_back(makeScalar(t, e));
          if (failed(callRegion(r.getEmit(), emitArgs, none)))
            return failure();
          acc = next;
        }
        return success();
      })
      .Case<pgpu::ScanOp>([&](pgpu::ScanOp s) -> LogicalResult {
        // A blocked scan continues from its incoming carry instead of the identity.
        SmallVector<Elem> initial;
        for (Value v : s.getCarries().empty() ? s.getIdentities() : s.getCarries())
          initial.push_back(tensor(v)->data[0]);
        FailureOr<SmallVector<TensorPtr>> results = scanAlong(*this, s.getCombine(), tensors(s.getInputs()), initial,
                                                              s.getAxis(), s.getExclusive(), s.getReverse());
        if (failed(results))
          return failure();
        for (auto [res, t] : llvm::zip(s.getResults(), *results))
          bind(res, t);
        return success();
      })
      .Case<pgpu::ArgReduceOp>([&](pgpu::ArgReduceOp a) {
        auto [values, indices] = argReduceAlong(tensor(a.getInput()), a.getAxis(),
                                                a.getKind() == kir::ArgReduceKind::ArgMax,
                                                a.getTie() == kir::TieRule::Highest,
                                                a.getNan() == kir::NaNRule::Propagate, index(a.getBase()),
                                                op.getContext());
        bind(a.getValues(), values);
        bind(a.getIndices(), indices);
        return success();
      })
      .Case<pgpu::ContractOp>([&](pgpu::ContractOp c) -> LogicalResult {
        TensorPtr acc = tensor(c.getAcc());
        FailureOr<TensorPtr> out = contractInto(op, tensor(c.getLhs()), tensor(c.getRhs()), acc, acc->elementType,
                                                c.getLhsReduce(), c.getRhsReduce(), c.getLhsBatch(), c.getRhsBatch(),
                                                kir::precisionOr(c.getPrecision()));
        if (failed(out))
          return failure();
        bind(c.getResult(), *out);
        return success();
      })
      .Case<pgpu::HistogramOp>([&](pgpu::HistogramOp h) -> LogicalResult {
        TensorPtr x = tensor(h.getInput()), valid = tensor(h.getValid());
        FailureOr<SmallVector<int64_t>> shape = shapeOf(op, h.getType());
        if (failed(shape))
          return failure();
        Type countType = pgpu::elementTypeOf(h.getType());
        auto out = makeTensor(countType, *shape);
        for (int64_t i = 0; i < x->size(); ++i) {
          if (!active(valid, i))
            continue;
          int64_t v = x->data[i].i;
          if (v < 0 || v >= (*shape)[0])
            return op.emitError() << "histogram value " << v << " is outside the bins [0, " << (*shape)[0] << ")";
          out->data[v].i = wrapToInteger(out->data[v].i + 1, countType);
        }
        bind(h.getResult(), TensorPtr(out));
        return success();
      })
      .Case<pgpu::RegionFoldOp>([&](pgpu::RegionFoldOp f) -> LogicalResult {
        int64_t lo = index(f.getLower()), hi = index(f.getUpper()), step = index(f.getStep());
        if (step <= 0)
          return op.emitError() << "segment step must be positive, got " << step;
        SmallVector<RValue> acc, captures;
        for (Value v : f.getIdentities())
          acc.push_back(lookup(v));
        for (Value v : f.getCaptures())
          captures.push_back(lookup(v));
        // From the initial summary (the identity, or the summary of the segments before `lower` when this
        // fold continues another), each segment's summary combined in order: what the realized loop does.
        for (int64_t b = lo; b < hi; b += step) {
          SmallVector<RValue> in{makeScalar(IndexType::get(op.getContext()), Elem{0, b}),
                                 makeScalar(IndexType::get(op.getContext()), Elem{0, std::min(b + step, hi)})};
          in.append(captures.begin(), captures.end());
          SmallVector<RValue> summary, merged;
          if (failed(callRegion(f.getSummarize(), in, summary)))
            return failure();
          SmallVector<RValue> pair(acc);
          pair.append(summary.begin(), summary.end());
          if (failed(callRegion(f.getCombine(), pair, merged)))
            return failure();
          acc = merged;
        }
        for (auto [r, v] : llvm::zip(f.getResults(), acc))
          bind(r, v);
        return success();
      })
      .Case<pgpu::RegionScanOp>([&](pgpu::RegionScanOp s) -> LogicalResult {
        int64_t lo = index(s.getLower()), hi = index(s.getUpper()), step = index(s.getStep());
        if (step <= 0)
          return op.emitError() << "segment step must be positive, got " << step;
        SmallVector<RValue> state, captures;
        for (Value v : s.getInits())
          state.push_back(lookup(v));
        for (Value v : s.getCaptures())
          captures.push_back(lookup(v));
        for (int64_t b = lo; b < hi; b += step) {
          SmallVector<RValue> bounds{makeScalar(IndexType::get(op.getContext()), Elem{0, b}),
                                     makeScalar(IndexType::get(op.getContext()), Elem{0, std::min(b + step, hi)})};
          SmallVector<RValue> in(bounds), none, transition, next;
          in.append(state.begin(), state.end());
          in.append(captures.begin(), captures.end());
          if (failed(callRegion(s.getEmit(), in, none)))
            return failure();
          in.assign(bounds.begin(), bounds.end());
          in.append(captures.begin(), captures.end());
          if (failed(callRegion(s.getSummarize(), in, transition)))
            return failure();
          in.assign(transition.begin(), transition.end());
          in.append(state.begin(), state.end());
          if (failed(callRegion(s.getApply(), in, next)))
            return failure();
          state = next;
        }
        for (auto [r, v] : llvm::zip(s.getFinals(), state))
          bind(r, v);
        return success();
      })
      .Case<pgpu::ScaledContractOp, pgpu::SparseContractOp>([&](Operation *declared) {
        return declared->emitError() << "'" << declared->getName() << "' is not executable by the interpreter yet";
      })
      .Default([&](Operation *) {
        handled = false;
        return success();
      });
}

LogicalResult interp::runPGPUKernel(pgpu::KernelOp kernel, ArrayRef<Argument> args,
                                    const llvm::StringMap<int64_t> &params, const InterpreterOptions &options) {
  PGPUInterpreter interpreter(kernel, args, params, options);
  return interpreter.run();
}
