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
    if (auto f = dyn_cast<pgpu::FragmentType>(type))
      return resolve(op, f.getExtents());
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
    if (!inserted && it->second != instance)
      return op.emitError() << "program instances " << it->second << " and " << instance
                            << " write the same element without atomics (invariant 9)";
    return success();
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
  DenseMap<std::pair<const void *, int64_t>, int64_t> writers;
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
      if (failed(shape))
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
      for (int64_t linear : order(numElements(grid))) {
        instance = linear;
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
  if (failed(execAccess(op, handled)) || handled)
    return failure(!handled);
  if (failed(execStructured(op, handled)) || handled)
    return failure(!handled);
  Type resultElem = op.getNumResults() ? pgpu::elementTypeOf(op.getResult(0).getType()) : Type();
  auto setTensor = [&](Value result, FailureOr<TensorPtr> t) -> LogicalResult {
    if (failed(t))
      return failure();
    bind(result, *t);
    return success();
  };
  return llvm::TypeSwitch<Operation *, LogicalResult>(&op)
      .Case<arith::ConstantOp>([&](arith::ConstantOp c) -> LogicalResult {
        Elem e;
        if (auto f = dyn_cast<FloatAttr>(c.getValue()))
          e.f = roundToFloat(f.getValueAsDouble(), f.getType());
        else if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
          e.i = wrapToInteger(i.getValue().getSExtValue(), i.getType());
        else
          return op.emitError() << "the interpreter supports scalar constants only";
        bind(c.getResult(), makeScalar(c.getType(), e));
        return success();
      })
      .Case<pgpu::ParamOp, pgpu::ExtentOp, pgpu::StrideOp, pgpu::CeilDivOp>([&](Operation *leaf) -> LogicalResult {
        FailureOr<int64_t> v = evaluateLaunchExpr(leaf->getResult(0), launchEnv);
        if (failed(v))
          return failure();
        bind(leaf->getResult(0), makeScalar(leaf->getResult(0).getType(), Elem{0, *v}));
        return success();
      })
      .Case<pgpu::BinaryOp>([&](pgpu::BinaryOp b) {
        NumericalOptions opts{b.getApproximate(), b.getFlushToZero()};
        return setTensor(b.getResult(), mapElements(op, {tensor(b.getLhs()), tensor(b.getRhs())}, resultElem,
                                                    [&](ArrayRef<Elem> e) {
                                                      return applyBinary(b.getKind(), e[0], e[1], resultElem, opts);
                                                    }));
      })
      .Case<pgpu::UnaryOp>([&](pgpu::UnaryOp u) {
        NumericalOptions opts{u.getApproximate(), u.getFlushToZero()};
        return setTensor(u.getResult(), mapElements(op, {tensor(u.getOperand())}, resultElem, [&](ArrayRef<Elem> e) {
                           return applyUnary(u.getKind(), e[0], resultElem, opts);
                         }));
      })
      .Case<pgpu::CmpOp>([&](pgpu::CmpOp c) {
        Type type = pgpu::elementTypeOf(c.getLhs().getType());
        return setTensor(c.getResult(), mapElements(op, {tensor(c.getLhs()), tensor(c.getRhs())}, resultElem,
                                                    [&](ArrayRef<Elem> e) {
                                                      return Elem{0, int64_t(applyCmp(c.getPredicate(), e[0], e[1], type))};
                                                    }));
      })
      .Case<pgpu::SelectOp>([&](pgpu::SelectOp s) -> LogicalResult {
        TensorPtr cond = tensor(s.getCondition()), a = tensor(s.getTrueValue()), b = tensor(s.getFalseValue());
        if (cond->shape.empty() && !a->shape.empty()) {
          bind(s.getResult(), cond->data[0].i ? a : b);
          return success();
        }
        return setTensor(s.getResult(), mapElements(op, {cond, a, b}, a->elementType,
                                                    [](ArrayRef<Elem> e) { return e[0].i ? e[1] : e[2]; }));
      })
      .Case<pgpu::CastOp>([&](pgpu::CastOp c) {
        Type from = pgpu::elementTypeOf(c.getOperand().getType());
        return setTensor(c.getResult(), mapElements(op, {tensor(c.getOperand())}, resultElem, [&](ArrayRef<Elem> e) {
                           return castElem(e[0], from, resultElem);
                         }));
      })
      .Case<pgpu::BitcastOp>([&](pgpu::BitcastOp c) {
        Type from = pgpu::elementTypeOf(c.getOperand().getType());
        return setTensor(c.getResult(), mapElements(op, {tensor(c.getOperand())}, resultElem, [&](ArrayRef<Elem> e) {
                           return bitcastElem(e[0], from, resultElem);
                         }));
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
        return setTensor(b.getResult(), broadcastTo(op, tensor(b.getOperand()), *shape, b.getDims()));
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
        TensorPtr t = tensor(tr.getOperand());
        ArrayRef<int64_t> perm = tr.getPermutation();
        SmallVector<int64_t> shape;
        for (int64_t p : perm)
          shape.push_back(t->shape[p]);
        auto out = makeTensor(t->elementType, shape);
        SmallVector<int64_t> idx, src(perm.size());
        for (int64_t i = 0; i < out->size(); ++i) {
          delinearize(i, shape, idx);
          for (auto [k, p] : llvm::enumerate(perm))
            src[p] = idx[k];
          out->data[i] = t->data[linearize(src, t->shape)];
        }
        bind(tr.getResult(), TensorPtr(out));
        return success();
      })
      .Case<pgpu::JoinOp>([&](pgpu::JoinOp j) {
        TensorPtr a = tensor(j.getLhs()), b = tensor(j.getRhs());
        SmallVector<int64_t> shape(a->shape);
        shape.push_back(2);
        auto out = makeTensor(a->elementType, shape);
        for (int64_t i = 0; i < a->size(); ++i) {
          out->data[2 * i] = a->data[i];
          out->data[2 * i + 1] = b->data[i];
        }
        bind(j.getResult(), TensorPtr(out));
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
      .Case<pgpu::WhileOp>([&](pgpu::WhileOp w) -> LogicalResult {
        SmallVector<RValue> carries;
        for (Value v : w.getInits())
          carries.push_back(lookup(v));
        while (true) {
          Block &before = w.getBefore().front();
          if (failed(execBlock(before, carries, nullptr)))
            return failure();
          auto cond = cast<pgpu::ConditionOp>(before.getTerminator());
          SmallVector<RValue> forwarded;
          for (Value v : cond.getArgs())
            forwarded.push_back(lookup(v));
          if (!index(cond.getCondition())) {
            for (auto [r, v] : llvm::zip(w.getResults(), forwarded))
              bind(r, v);
            return success();
          }
          if (failed(callRegion(w.getAfter(), forwarded, carries)))
            return failure();
        }
      })
      .Case<pgpu::IfOp>([&](pgpu::IfOp i) -> LogicalResult {
        Region &region = index(i.getCondition()) ? i.getThenRegion() : i.getElseRegion();
        if (region.empty())
          return success();
        SmallVector<RValue> results;
        if (failed(callRegion(region, {}, results)))
          return failure();
        for (auto [r, v] : llvm::zip(i.getResults(), results))
          bind(r, v);
        return success();
      })
      .Default([&](Operation *other) -> LogicalResult {
        return other->emitError() << "the pgpu interpreter does not execute '" << other->getName() << "'";
      });
}

LogicalResult PGPUInterpreter::execAccess(Operation &op, bool &handled) {
  handled = true;
  auto viewOf = [&](Value v) -> HostArray & { return *std::get<HostArray *>(lookup(v)); };
  auto bufferOf = [&](Value v) -> Buffer & { return *std::get<Buffer *>(lookup(v)); };
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
      if (unique && !seen.insert(addr).second)
        return op.emitError() << "unique scatter writes one destination twice";
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
      .Case<pgpu::ScatterReduceOp>([&](pgpu::ScatterReduceOp s) {
        return writeView(s.getValue(), s.getView(), s.getCoords(), s.getValid(), false, &s.getCombine());
      })
      .Case<pgpu::AtomicLoadOp>([&](pgpu::AtomicLoadOp a) {
        return read(a.getResult(), tensors(a.getCoords()), tensor(a.getValid()), Elem(), viewReader(viewOf(a.getView())));
      })
      .Case<pgpu::AtomicStoreOp, pgpu::AtomicRMWOp, pgpu::AtomicCASOp>([&](auto a) -> LogicalResult {
        using OpT = decltype(a);
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
            kir::BinaryKind kind = kir::BinaryKind::Add;
            switch (a.getKind()) {
            case kir::RMWKind::Exchange: view.storage[addr] = update->data[i]; view.written[addr] = 1; continue;
            case kir::RMWKind::Add: kind = kir::BinaryKind::Add; break;
            case kir::RMWKind::Max: kind = kir::BinaryKind::Max; break;
            case kir::RMWKind::Min: kind = kir::BinaryKind::Min; break;
            case kir::RMWKind::And: kind = kir::BinaryKind::And; break;
            case kir::RMWKind::Or: kind = kir::BinaryKind::Or; break;
            case kir::RMWKind::Xor: kind = kir::BinaryKind::Xor; break;
            }
            view.storage[addr] = applyBinary(kind, current, update->data[i], view.elementType, {});
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
        if (failed(shape))
          return failure();
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
        TensorPtr value = tensor(s.getValue()), valid = tensor(s.getValid());
        SmallVector<TensorPtr> coords = tensors(s.getCoords());
        SmallVector<int64_t> coord;
        for (int64_t i = 0; i < value->size(); ++i) {
          if (!active(valid, i))
            continue;
          coordsAt(coords, i, coord);
          if (failed(checkBounds(op, coord, buffer.value.shape, "buffer write")))
            return failure();
          int64_t at = linearize(coord, buffer.value.shape);
          if (shared && failed(recordWrite(op, &buffer, at)))
            return failure();
          buffer.value.data[at] = value->data[i];
          buffer.initialized[at] = 1;
        }
        return success();
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
        SmallVector<TensorPtr> inputs = tensors(r.getInputs());
        SmallVector<Type> types;
        for (const TensorPtr &t : inputs)
          types.push_back(t->elementType);
        ArrayRef<int64_t> axes = r.getAxes();
        SmallVector<int64_t> outShape;
        for (auto [i, d] : llvm::enumerate(inputs[0]->shape))
          if (!llvm::is_contained(axes, int64_t(i)))
            outShape.push_back(d);
        unsigned n = inputs.size();
        int64_t outSize = numElements(outShape);
        std::vector<Elem> acc(outSize * n);
        for (int64_t o = 0; o < outSize; ++o)
          for (unsigned c = 0; c < n; ++c)
            acc[o * n + c] = tensor(r.getIdentities()[c])->data[0];
        SmallVector<int64_t> idx, outIdx;
        SmallVector<Elem> lhs(n), rhs(n), next;
        for (int64_t i = 0; i < inputs[0]->size(); ++i) {
          delinearize(i, inputs[0]->shape, idx);
          outIdx.clear();
          for (auto [k, v] : llvm::enumerate(idx))
            if (!llvm::is_contained(axes, int64_t(k)))
              outIdx.push_back(v);
          int64_t o = linearize(outIdx, outShape);
          for (unsigned c = 0; c < n; ++c) {
            lhs[c] = acc[o * n + c];
            rhs[c] = inputs[c]->data[i];
          }
          if (failed(combineElems(r.getCombine(), types, lhs, rhs, next)))
            return failure();
          for (unsigned c = 0; c < n; ++c)
            acc[o * n + c] = next[c];
        }
        for (unsigned c = 0; c < n; ++c) {
          auto out = makeTensor(types[c], outShape);
          for (int64_t o = 0; o < outSize; ++o)
            out->data[o] = acc[o * n + c];
          bind(r.getResults()[c], TensorPtr(out));
        }
        return success();
      })
      .Case<pgpu::ScanOp>([&](pgpu::ScanOp s) -> LogicalResult {
        SmallVector<TensorPtr> inputs = tensors(s.getInputs());
        SmallVector<Type> types;
        for (const TensorPtr &t : inputs)
          types.push_back(t->elementType);
        unsigned n = inputs.size(), axis = s.getAxis();
        ArrayRef<int64_t> shape = inputs[0]->shape;
        SmallVector<std::shared_ptr<Tensor>> outs;
        for (unsigned c = 0; c < n; ++c)
          outs.push_back(makeTensor(types[c], shape));
        SmallVector<int64_t> lineShape(shape), idx;
        int64_t length = lineShape[axis];
        lineShape[axis] = 1;
        SmallVector<Elem> acc(n), x(n), next;
        for (int64_t line = 0; line < numElements(lineShape); ++line) {
          delinearize(line, lineShape, idx);
          for (unsigned c = 0; c < n; ++c)
            acc[c] = s.getCarries().empty() ? tensor(s.getIdentities()[c])->data[0] : tensor(s.getCarries()[c])->data[0];
          for (int64_t step = 0; step < length; ++step) {
            idx[axis] = s.getReverse() ? length - 1 - step : step;
            int64_t at = linearize(idx, shape);
            for (unsigned c = 0; c < n; ++c)
              x[c] = inputs[c]->data[at];
            if (s.getExclusive())
              for (unsigned c = 0; c < n; ++c)
                outs[c]->data[at] = acc[c];
            if (failed(combineElems(s.getCombine(), types, acc, x, next)))
              return failure();
            acc.assign(next.begin(), next.end());
            if (!s.getExclusive())
              for (unsigned c = 0; c < n; ++c)
                outs[c]->data[at] = acc[c];
          }
        }
        for (unsigned c = 0; c < n; ++c)
          bind(s.getResults()[c], TensorPtr(outs[c]));
        return success();
      })
      .Case<pgpu::ArgReduceOp>([&](pgpu::ArgReduceOp a) -> LogicalResult {
        TensorPtr x = tensor(a.getInput());
        unsigned axis = a.getAxis();
        int64_t length = x->shape[axis], base = index(a.getBase());
        bool isFloat = isFloatType(x->elementType), wantMax = a.getKind() == kir::ArgReduceKind::ArgMax;
        bool highest = a.getTie() == kir::TieRule::Highest, propagate = a.getNan() == kir::NaNRule::Propagate;
        SmallVector<int64_t> outShape(x->shape), lineShape(x->shape), idx;
        outShape.erase(outShape.begin() + axis);
        lineShape[axis] = 1;
        auto vals = makeTensor(x->elementType, outShape);
        auto idxs = makeTensor(IndexType::get(op.getContext()), outShape);
        for (int64_t o = 0; o < vals->size(); ++o) {
          delinearize(o, lineShape, idx);
          int64_t best = -1;
          Elem bestVal;
          for (int64_t k = 0; k < length; ++k) {
            idx[axis] = k;
            Elem v = x->data[linearize(idx, x->shape)];
            bool vNaN = isFloat && std::isnan(v.f);
            if (vNaN && !propagate)
              continue;
            bool take = best < 0;
            if (!take && isFloat && std::isnan(bestVal.f))
              take = vNaN && highest;
            else if (!take && vNaN)
              take = true;
            else if (!take) {
              bool gt = applyCmp(kir::CmpPredicate::GT, v, bestVal, x->elementType);
              bool lt = applyCmp(kir::CmpPredicate::LT, v, bestVal, x->elementType);
              take = (wantMax ? gt : lt) || (!gt && !lt && highest);
            }
            if (take) {
              best = k;
              bestVal = v;
            }
          }
          vals->data[o] = bestVal;
          idxs->data[o].i = best < 0 ? base : base + best;
        }
        bind(a.getValues(), TensorPtr(vals));
        bind(a.getIndices(), TensorPtr(idxs));
        return success();
      })
      .Case<pgpu::ContractOp>([&](pgpu::ContractOp c) -> LogicalResult {
        TensorPtr lhs = tensor(c.getLhs()), rhs = tensor(c.getRhs()), acc = tensor(c.getAcc());
        ArrayRef<int64_t> lr = c.getLhsReduce(), rr = c.getRhsReduce(), lb = c.getLhsBatch(), rb = c.getRhsBatch();
        SmallVector<int64_t> reduceShape, lhsFree, rhsFree;
        for (int64_t a : lr)
          reduceShape.push_back(lhs->shape[a]);
        for (int64_t a = 0; a < int64_t(lhs->shape.size()); ++a)
          if (!llvm::is_contained(lr, a))
            lhsFree.push_back(a);
        for (int64_t b = 0; b < int64_t(rhs->shape.size()); ++b)
          if (!llvm::is_contained(rr, b) && !llvm::is_contained(rb, b))
            rhsFree.push_back(b);
        Type accType = acc->elementType, operand = lhs->elementType;
        bool isFloat = isFloatType(accType);
        auto out = std::make_shared<Tensor>(*acc);
        SmallVector<int64_t> o, r, li(lhs->shape.size()), ri(rhs->shape.size());
        for (int64_t i = 0; i < out->size(); ++i) {
          delinearize(i, out->shape, o);
          for (auto [k, a] : llvm::enumerate(lhsFree))
            li[a] = o[k];
          for (auto [k, b] : llvm::enumerate(rhsFree))
            ri[b] = o[lhsFree.size() + k];
          for (auto [a, b] : llvm::zip(lb, rb))
            ri[b] = li[a];
          Elem sum = out->data[i];
          for (int64_t j = 0; j < numElements(reduceShape); ++j) {
            delinearize(j, reduceShape, r);
            for (auto [k, a] : llvm::enumerate(lr))
              li[a] = r[k];
            for (auto [k, b] : llvm::enumerate(rr))
              ri[b] = r[k];
            Elem x = castElem(lhs->data[linearize(li, lhs->shape)], operand, accType);
            Elem y = castElem(rhs->data[linearize(ri, rhs->shape)], operand, accType);
            if (isFloat)
              sum.f = roundToFloat(std::fma(x.f, y.f, sum.f), accType);
            else
              sum.i = wrapToInteger(int64_t(uint64_t(sum.i) + uint64_t(x.i) * uint64_t(y.i)), accType);
          }
          out->data[i] = sum;
        }
        bind(c.getResult(), TensorPtr(out));
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
        bool first = true;
        for (int64_t b = lo; b < hi; b += step) {
          SmallVector<RValue> in{makeScalar(IndexType::get(op.getContext()), Elem{0, b}),
                                 makeScalar(IndexType::get(op.getContext()), Elem{0, std::min(b + step, hi)})};
          in.append(captures.begin(), captures.end());
          SmallVector<RValue> summary, merged;
          if (failed(callRegion(f.getSummarize(), in, summary)))
            return failure();
          if (first) {
            acc = summary;
            first = false;
            continue;
          }
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
