//===- Interpreter.cpp - KIR interpreter: bindings, control, values --------===//
//
// Executes a kir.kernel op by op. Control: kir.parallel runs its iterations
// in the order the options select (forward, reverse or seeded shuffle) to
// expose order dependence; kir.for visits members in increasing order.
//
//===----------------------------------------------------------------------===//

#include "InterpreterImpl.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <numeric>

using namespace mlir;
using namespace tessel;
using namespace tessel::interp;
using namespace tessel::interp::engine;

//===----------------------------------------------------------------------===//
// Host arrays and tensors
//===----------------------------------------------------------------------===//

HostArray HostArray::contiguous(Type elementType, ArrayRef<int64_t> shape) {
  HostArray array;
  array.elementType = elementType;
  array.shape.assign(shape.begin(), shape.end());
  array.strides.resize(shape.size());
  int64_t stride = 1;
  for (int64_t i = static_cast<int64_t>(shape.size()) - 1; i >= 0; --i) {
    array.strides[i] = stride;
    stride *= std::max<int64_t>(shape[i], 1);
  }
  array.storage.resize(array.numElements());
  array.written.assign(array.storage.size(), 0);
  return array;
}

int64_t HostArray::numElements() const { return engine::numElements(shape); }

int64_t HostArray::address(ArrayRef<int64_t> coord) const {
  int64_t addr = offset;
  for (auto [c, s] : llvm::zip(coord, strides))
    addr += c * s;
  return addr;
}

TensorPtr engine::makeScalar(Type type, Elem value) {
  auto t = std::make_shared<Tensor>();
  t->elementType = type;
  t->data.push_back(value);
  return t;
}

std::shared_ptr<Tensor> engine::makeTensor(Type elementType, ArrayRef<int64_t> shape) {
  // The ops that size tensors from run-time values check first (checkCount); this is the backstop
  // for any that does not: a clean exit with the reason, never a std::bad_alloc abort.
  if (checkedElements(shape) < 0) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "tessel interpreter: a tensor of shape [";
    llvm::interleaveComma(shape, os);
    os << "] has more than 2^28 elements (or a negative extent); the interpreter does not hold it";
    llvm::reportFatalUsageError(llvm::StringRef(text));
  }
  auto t = std::make_shared<Tensor>();
  t->elementType = elementType;
  t->shape.assign(shape.begin(), shape.end());
  t->data.resize(numElements(shape));
  return t;
}

int64_t engine::numElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

int64_t engine::checkedElements(ArrayRef<int64_t> shape) { return HostArray::checkedElements(shape); }

std::string HostArray::tooLarge(ArrayRef<int64_t> shape) {
  std::string dims;
  llvm::raw_string_ostream os(dims);
  os << "[";
  llvm::interleaveComma(shape, os);
  os << "]";
  if (llvm::any_of(shape, [](int64_t d) { return d < 0; }))
    return "has the negative extents " + dims;
  return "of shape " + dims + " has more than 2^28 (" + std::to_string(kMaxElements) +
         ") elements, the most the interpreters hold";
}

int64_t HostArray::checkedElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0)
      return -1;
    if (d == 0)
      return 0;
  }
  for (int64_t d : shape) {
    if (n > kMaxElements / d)
      return -1;
    n *= d;
  }
  return n;
}

int64_t engine::spanOf(int64_t lo, int64_t hi) {
  if (hi <= lo)
    return 0;
  uint64_t span = uint64_t(hi) - uint64_t(lo);
  return span > uint64_t(INT64_MAX) ? INT64_MAX : int64_t(span);
}

LogicalResult engine::checkCount(Operation &op, int64_t count, StringRef what, int64_t limit) {
  limit = std::min(limit, kMaxElements);
  if (count >= 0 && count <= limit)
    return success();
  return op.emitError() << what << (count < 0 ? " is too large or negative" : " has " + std::to_string(count) +
                                                                                    " members")
                        << "; the interpreter handles at most "
                        << (limit == kMaxElements ? "2^28 (" + std::to_string(limit) + ")" : std::to_string(limit));
}

void engine::delinearize(int64_t linear, ArrayRef<int64_t> shape, SmallVectorImpl<int64_t> &index) {
  index.resize(shape.size());
  for (int64_t i = static_cast<int64_t>(shape.size()) - 1; i >= 0; --i) {
    index[i] = shape[i] ? linear % shape[i] : 0;
    linear = shape[i] ? linear / shape[i] : 0;
  }
}

int64_t engine::linearize(ArrayRef<int64_t> index, ArrayRef<int64_t> shape) {
  int64_t linear = 0;
  for (auto [i, d] : llvm::zip(index, shape))
    linear = linear * d + i;
  return linear;
}

//===----------------------------------------------------------------------===//
// Running a kernel
//===----------------------------------------------------------------------===//

LogicalResult Interpreter::run(ArrayRef<Argument> args) {
  Block &entry = kernel.getBody().front();
  if (args.size() != entry.getNumArguments())
    return kernel.emitError() << "kernel @" << kernel.getSymName() << " takes " << entry.getNumArguments()
                              << " arguments, got " << args.size();
  // Symbolic extents come from the bound arrays; one name has one size.
  for (auto [i, blockArg] : llvm::enumerate(entry.getArguments())) {
    auto view = dyn_cast<kir::ViewType>(blockArg.getType());
    if (!view) {
      bind(blockArg, makeScalar(blockArg.getType(), args[i].scalar));
      continue;
    }
    HostArray *array = args[i].view;
    if (!array || array->shape.size() != view.getRank() || array->elementType != view.getElementType())
      return kernel.emitError() << "argument #" << i << " must be bound to a " << view.getRank()
                                << "-d array of " << view.getElementType();
    for (unsigned axis = 0; axis < view.getRank(); ++axis) {
      int64_t size = array->shape[axis];
      if (std::optional<int64_t> fixed = view.getStaticExtent(axis)) {
        if (*fixed != size)
          return kernel.emitError() << "argument #" << i << " axis " << axis << " must have extent " << *fixed
                                    << ", got " << size;
        continue;
      }
      auto [it, inserted] = extents.try_emplace(view.getExtentName(axis), size);
      if (!inserted && it->second != size)
        return kernel.emitError() << "inconsistent extents for '" << view.getExtentName(axis) << "': " << it->second
                                  << " and " << size << " (argument #" << i << " axis " << axis << ")";
    }
    bind(blockArg, array);
  }
  return execBlock(entry, {}, nullptr);
}

LogicalResult Engine::execBlock(Block &block, ArrayRef<RValue> args, SmallVectorImpl<RValue> *yielded) {
  for (auto [arg, value] : llvm::zip(block.getArguments(), args))
    bind(arg, value);
  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>()) {
      if (yielded)
        for (Value v : op.getOperands())
          yielded->push_back(lookup(v));
      return success();
    }
    if (failed(execOp(op)) || failed(countStep(op)))
      return failure();
  }
  return success();
}

LogicalResult Engine::countStep(Operation &op) {
  if (options.maxSteps == 0)
    return success();
  steps += 1;
  for (Value result : op.getResults())
    if (auto *t = std::get_if<TensorPtr>(&lookup(result)); t && *t)
      steps += uint64_t((*t)->size());
  if (steps <= options.maxSteps)
    return success();
  return op.emitError() << "the run passes its limit of " << options.maxSteps
                        << " steps (ops executed plus the elements they produce)";
}

LogicalResult Engine::callRegion(Region &region, ArrayRef<RValue> args, SmallVectorImpl<RValue> &results) {
  results.clear();
  return execBlock(region.front(), args, &results);
}

TensorPtr Engine::tensor(Value value) { return std::get<TensorPtr>(lookup(value)); }

LogicalResult Engine::bindConstant(Operation &op) {
  auto constant = cast<arith::ConstantOp>(op);
  Elem e;
  if (auto f = dyn_cast<FloatAttr>(constant.getValue()))
    e.f = roundToFloat(f.getValueAsDouble(), f.getType());
  else if (auto i = dyn_cast<IntegerAttr>(constant.getValue()); i && i.getValue().getBitWidth() > 64)
    return op.emitError() << "the interpreter holds integers of at most 64 bits, got " << i.getType();
  else if (i)
    e.i = wrapToInteger(i.getValue().getSExtValue(), i.getType());
  else
    return op.emitError() << "the interpreter supports scalar constants only";
  bind(constant.getResult(), makeScalar(constant.getType(), e));
  return success();
}

std::vector<int64_t> Engine::order(int64_t count) {
  std::vector<int64_t> items(count);
  std::iota(items.begin(), items.end(), 0);
  if (options.order == IterationOrder::Reverse)
    std::reverse(items.begin(), items.end());
  else if (options.order == IterationOrder::Shuffle)
    std::shuffle(items.begin(), items.end(), rng);
  return items;
}

//===----------------------------------------------------------------------===//
// Elementwise helpers
//===----------------------------------------------------------------------===//

static Type elementOf(Type type) { return getElementTypeOrSelf(type); }

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

LogicalResult Interpreter::execOp(Operation &op) {
  bool handled = false;
  if (failed(execEffect(op, handled)))
    return failure();
  if (handled)
    return success();
  if (failed(execStructured(op, handled)))
    return failure();
  if (handled)
    return success();


  return llvm::TypeSwitch<Operation *, LogicalResult>(&op)
      .Case<arith::ConstantOp>([&](arith::ConstantOp) { return bindConstant(op); })
      .Case<kir::ExtentOp>([&](kir::ExtentOp e) {
        Elem v;
        v.i = extents.lookup(e.getName());
        bind(e.getResult(), makeScalar(e.getType(), v));
        return success();
      })
      .Case<kir::ConstexprOp>([&](kir::ConstexprOp c) -> LogicalResult {
        Attribute value = kernel.getConstexprs() ? kernel.getConstexprs()->get(c.getName()) : Attribute();
        Elem v;
        if (auto b = dyn_cast_or_null<BoolAttr>(value))
          v.i = b.getValue();
        else if (auto i = dyn_cast_or_null<IntegerAttr>(value))
          v.i = i.getInt();
        else
          return op.emitError() << "constexpr '" << c.getName() << "' has no integer value";
        bind(c.getResult(), makeScalar(c.getType(), v));
        return success();
      })
      .Case<kir::DomainOp>([&](kir::DomainOp d) {
        bind(d.getResult(), Domain{index(d.getLower()), index(d.getUpper()), static_cast<int64_t>(d.getStep())});
        return success();
      })
      .Case<kir::SubregionOp>([&](kir::SubregionOp s) {
        // Members of the source in [begin, end): nothing is clamped, the result may be empty.
        Domain src = domain(s.getSource());
        // In 128 bits: bounds near the int64 limits must not wrap into a non-empty domain.
        int64_t begin = std::max(index(s.getBegin()), src.lo);
        __int128 step = std::max<int64_t>(src.step, 1);
        __int128 first = src.lo + ((__int128(begin) - src.lo + step - 1) / step) * step;
        int64_t hi = std::min(index(s.getEnd()), src.hi);
        bind(s.getResult(), Domain{first >= hi ? hi : int64_t(first), hi, src.step});
        return success();
      })
      .Case<kir::IndicesOp>([&](kir::IndicesOp i) -> LogicalResult {
        Domain d = domain(i.getDomain());
        if (failed(checkCount(op, d.size(), "the domain")))
          return failure();
        auto t = makeTensor(IndexType::get(op.getContext()), {d.size()});
        for (int64_t k = 0; k < d.size(); ++k)
          t->data[k].i = d.member(k);
        bind(i.getResult(), TensorPtr(t));
        return success();
      })
      .Case<kir::ParallelOp>([&](kir::ParallelOp p) -> LogicalResult {
        SmallVector<Domain> doms;
        SmallVector<int64_t> shape;
        for (Value d : p.getDomains()) {
          doms.push_back(domain(d));
          shape.push_back(doms.back().size());
        }
        SmallVector<int64_t> pos;
        SmallVector<RValue> ivs(doms.size());
        int64_t count = checkedElements(shape);
        if (failed(checkCount(op, count, "the parallel iteration space")))
          return failure();
        for (int64_t linear : order(count)) {
          delinearize(linear, shape, pos);
          for (auto [k, d] : llvm::enumerate(doms)) {
            Elem e;
            e.i = d.member(pos[k]);
            ivs[k] = makeScalar(IndexType::get(op.getContext()), e);
          }
          if (failed(execBlock(p.getBody().front(), ivs, nullptr)))
            return failure();
        }
        return success();
      })
      .Case<kir::ForOp>([&](kir::ForOp f) -> LogicalResult {
        Domain d = domain(f.getDomain());
        SmallVector<RValue> carries;
        for (Value init : f.getInits())
          carries.push_back(lookup(init));
        if (failed(checkCount(op, d.size(), "the loop's domain")))
          return failure();
        for (int64_t k = 0; k < d.size(); ++k) {
          Elem e;
          e.i = d.member(k);
          SmallVector<RValue> args{makeScalar(IndexType::get(op.getContext()), e)};
          args.append(carries.begin(), carries.end());
          SmallVector<RValue> next;
          if (failed(callRegion(f.getBody(), args, next)))
            return failure();
          carries = std::move(next);
        }
        for (auto [r, v] : llvm::zip(f.getResults(), carries))
          bind(r, v);
        return success();
      })
      .Case<kir::WhileOp>([&](kir::WhileOp w) {
        SmallVector<RValue> carries;
        for (Value init : w.getInits())
          carries.push_back(lookup(init));
        return runWhile(*this, w.getBefore(), w.getAfter(), carries, w.getResults());
      })
      .Case<kir::IfOp>([&](kir::IfOp i) {
        return runIf(*this, index(i.getCondition()), i.getThenRegion(), i.getElseRegion(), i.getResults());
      })
      .Case<kir::BinaryOp>([&](kir::BinaryOp b) {
        return bindResult(b.getResult(), binaryTensors(op, b.getKind(), {b.getApproximate(), b.getFlushToZero()},
                                                      tensor(b.getLhs()), tensor(b.getRhs())));
      })
      .Case<kir::UnaryOp>([&](kir::UnaryOp u) {
        return bindResult(u.getResult(), unaryTensors(op, u.getKind(), {u.getApproximate(), u.getFlushToZero()},
                                                     tensor(u.getOperand())));
      })
      .Case<kir::CmpOp>([&](kir::CmpOp c) {
        return bindResult(c.getResult(), cmpTensors(op, c.getPredicate(), tensor(c.getLhs()), tensor(c.getRhs())));
      })
      .Case<kir::SelectOp>([&](kir::SelectOp s) {
        return bindResult(s.getResult(), selectTensors(op, tensor(s.getCondition()), tensor(s.getTrueValue()),
                                                      tensor(s.getFalseValue())));
      })
      .Case<kir::CastOp, kir::BitcastOp>([&](auto c) {
        bool bitcast = std::is_same_v<decltype(c), kir::BitcastOp>;
        return bindResult(c.getResult(), convertTensor(op, tensor(c.getOperand()), elementOf(c.getType()), bitcast));
      })
      .Case<kir::BroadcastOp>([&](kir::BroadcastOp b) {
        SmallVector<int64_t> shape;
        for (Value d : b.getDomains())
          shape.push_back(domain(d).size());
        if (failed(checkCount(op, checkedElements(shape), "the broadcast")))
          return failure();
        return bindResult(b.getResult(), broadcastTo(op, tensor(b.getOperand()), shape, b.getDims()));
      })
      .Case<kir::BroadcastAsOp>([&](kir::BroadcastAsOp b) {
        return bindResult(b.getResult(), broadcastTo(op, tensor(b.getOperand()), tensor(b.getReference())->shape,
                                                    b.getDims()));
      })
      .Case<kir::ExtractOp>([&](kir::ExtractOp e) -> LogicalResult {
        TensorPtr t = tensor(e.getTensor());
        SmallVector<int64_t> idx;
        for (auto [axis, v] : llvm::enumerate(e.getIndices())) {
          idx.push_back(index(v));
          if (idx.back() < 0 || idx.back() >= t->shape[axis])
            return op.emitError() << "extracts position " << idx.back() << " of axis " << axis << " with extent "
                                  << t->shape[axis];
        }
        bind(e.getResult(), makeScalar(e.getType(), t->data[linearize(idx, t->shape)]));
        return success();
      })
      .Case<kir::ReshapeOp>([&](kir::ReshapeOp r) -> LogicalResult {
        TensorPtr t = tensor(r.getOperand());
        SmallVector<int64_t> shape;
        for (Value d : r.getDomains())
          shape.push_back(domain(d).size());
        if (numElements(shape) != t->size())
          return op.emitError() << "reshapes " << t->size() << " elements onto domains holding " << numElements(shape);
        auto out = std::make_shared<Tensor>(*t);
        out->shape = shape;
        bind(r.getResult(), TensorPtr(out));
        return success();
      })
      .Case<kir::TransposeOp>([&](kir::TransposeOp tr) {
        bind(tr.getResult(), transposeTensor(tensor(tr.getOperand()), tr.getPermutation()));
        return success();
      })
      .Case<kir::JoinOp>([&](kir::JoinOp j) -> LogicalResult {
        TensorPtr a = tensor(j.getLhs()), b = tensor(j.getRhs());
        if (a->shape != b->shape)
          return op.emitError() << "joins operands of different run-time shapes";
        bind(j.getResult(), joinTensors(a, b));
        return success();
      })
      .Case<kir::TupleOp, kir::RecordOp>([&](auto t) {
        auto agg = std::make_shared<Aggregate>();
        for (Value v : t->getOperands())
          agg->elements.push_back(lookup(v));
        bind(t.getResult(), std::shared_ptr<const Aggregate>(agg));
        return success();
      })
      .Case<kir::TupleGetOp>([&](kir::TupleGetOp g) {
        bind(g.getResult(), std::get<std::shared_ptr<const Aggregate>>(lookup(g.getTuple()))->elements[g.getIndex()]);
        return success();
      })
      .Case<kir::RecordGetOp>([&](kir::RecordGetOp g) {
        auto type = cast<kir::RecordType>(g.getRecord().getType());
        unsigned field = *type.getFieldIndex(g.getField());
        bind(g.getResult(), std::get<std::shared_ptr<const Aggregate>>(lookup(g.getRecord()))->elements[field]);
        return success();
      })
      .Default([&](Operation *other) -> LogicalResult {
        return other->emitError() << "the reference interpreter does not execute '" << other->getName() << "'";
      });
}

LogicalResult interp::runKernel(kir::KernelOp kernel, ArrayRef<Argument> args, const InterpreterOptions &options) {
  Interpreter interpreter(kernel, options);
  return interpreter.run(args);
}
