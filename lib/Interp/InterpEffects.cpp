//===- InterpEffects.cpp - KIR interpreter: accesses, atomics, buffers -----===//
//
// Every active access is bounds-checked and reported at the op's location;
// invalid (masked-off) reads return their fill and invalid writes do nothing.
// Reads of `out` elements the kernel has not written, reads of uninitialized
// buffer elements and repeated unique-scatter destinations are errors.
// Atomics and scatter-reduce updates are applied one at a time in row-major
// order of the update.
//
//===----------------------------------------------------------------------===//

#include "InterpreterImpl.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::interp;
using namespace tessel::interp::engine;

namespace {
/// The source coordinates an access touches for each position of its value.
struct AccessPlan {
  struct Coord {
    enum Kind { Scalar, Dom, Tens } kind;
    int64_t value = 0;
    Domain dom;
    TensorPtr indices;
    unsigned firstAxis = 0;
  };
  SmallVector<int64_t> shape;
  SmallVector<Coord> coords;

  void at(ArrayRef<int64_t> position, SmallVectorImpl<int64_t> &out) const {
    out.clear();
    for (const Coord &c : coords) {
      if (c.kind == Coord::Scalar) {
        out.push_back(c.value);
      } else if (c.kind == Coord::Dom) {
        out.push_back(c.dom.member(position[c.firstAxis]));
      } else {
        ArrayRef<int64_t> sub = position.slice(c.firstAxis, c.indices->shape.size());
        out.push_back(c.indices->data[linearize(sub, c.indices->shape)].i);
      }
    }
  }
};

AccessPlan planAccess(Interpreter &in, Operation *access, ValueRange coords) {
  AccessPlan plan;
  ArrayRef<int64_t> joint = kir::jointOf(access);
  for (auto [i, v] : llvm::enumerate(coords)) {
    AccessPlan::Coord c;
    if (!joint.empty() && joint[i] >= 0) {
      // Paired with an earlier index tensor: read at its axes (checkJointShapes ran first).
      c.kind = AccessPlan::Coord::Tens;
      c.indices = in.tensor(v);
      c.firstAxis = plan.coords[joint[i]].firstAxis;
    } else if (isa<kir::DomainType>(v.getType())) {
      c.kind = AccessPlan::Coord::Dom;
      c.dom = in.domain(v);
      c.firstAxis = plan.shape.size();
      plan.shape.push_back(c.dom.size());
    } else {
      TensorPtr t = in.tensor(v);
      if (t->shape.empty()) {
        c.kind = AccessPlan::Coord::Scalar;
        c.value = t->data[0].i;
      } else {
        c.kind = AccessPlan::Coord::Tens;
        c.indices = t;
        c.firstAxis = plan.shape.size();
        plan.shape.append(t->shape.begin(), t->shape.end());
      }
    }
    plan.coords.push_back(c);
  }
  return plan;
}

/// Element `i` of an optional mask (scalar or shaped like the access).
bool isActive(const TensorPtr &mask, int64_t i) {
  if (!mask)
    return true;
  return mask->shape.empty() ? mask->data[0].i != 0 : mask->data[i].i != 0;
}

/// Checks that an access's validity is a scalar or has the access's elements (a mask over other axes than
/// the read, which the verifier cannot see in dynamic tensor types: a fuzzed gather).
LogicalResult checkValidShape(Operation &op, const TensorPtr &valid, ArrayRef<int64_t> shape) {
  if (!valid || valid->shape.empty() || valid->size() == numElements(shape))
    return success();
  InFlightDiagnostic diag = op.emitError() << "has a validity of shape [";
  llvm::interleaveComma(valid->shape, diag);
  diag << "] for an access of shape [";
  llvm::interleaveComma(shape, diag);
  return diag << "]";
}

LogicalResult checkBounds(Operation &op, ArrayRef<int64_t> coord, ArrayRef<int64_t> shape, StringRef what) {
  for (auto [axis, c] : llvm::enumerate(coord))
    if (c < 0 || c >= shape[axis]) {
      InFlightDiagnostic diag = op.emitError() << "out-of-bounds " << what << ": coordinate " << c << " on axis "
                                               << axis << " of extent " << shape[axis];
      return diag;
    }
  return success();
}

/// Checks that a written value has the access's shape (or is a scalar for a
/// scalar access).
LogicalResult checkValueShape(Operation &op, const TensorPtr &value, ArrayRef<int64_t> shape) {
  if (value->shape != SmallVector<int64_t>(shape)) {
    InFlightDiagnostic diag = op.emitError() << "writes a value of shape [";
    llvm::interleaveComma(value->shape, diag);
    diag << "] through coordinates selecting shape [";
    llvm::interleaveComma(shape, diag);
    return diag << "]";
  }
  return success();
}
} // namespace

/// Reads `view` through `plan`, with optional validity and fill.
static FailureOr<TensorPtr> readView(const Engine &engine, Operation &op, HostArray &view, bool outView,
                                     const AccessPlan &plan, const TensorPtr &valid, const TensorPtr &fill) {
  if (failed(engine.checkCount(op, checkedElements(plan.shape), "the read")) ||
      failed(checkValidShape(op, valid, plan.shape)))
    return failure();
  auto out = makeTensor(view.elementType, plan.shape);
  SmallVector<int64_t> pos, coord;
  for (int64_t i = 0; i < out->size(); ++i) {
    if (!isActive(valid, i)) {
      out->data[i] = fill->data[0];
      continue;
    }
    delinearize(i, plan.shape, pos);
    plan.at(pos, coord);
    if (failed(checkBounds(op, coord, view.shape, "read")))
      return failure();
    int64_t addr = view.address(coord);
    if (outView && !view.written[addr])
      return op.emitError() << "reads an element of an 'out' view that the kernel has not written";
    out->data[i] = view.storage[addr];
  }
  return TensorPtr(out);
}

/// A coordinate as the user writes it: (3, 17).
static std::string formatCoord(ArrayRef<int64_t> coord) {
  std::string text = "(";
  for (auto [k, c] : llvm::enumerate(coord))
    text += (k ? ", " : "") + std::to_string(c);
  return text + ")";
}

/// Combines for scatter_reduce: one component of the view's element type.
static LogicalResult writeView(Interpreter &in, Operation &op, HostArray &view, const AccessPlan &plan,
                               const TensorPtr &value, const TensorPtr &valid, bool unique, Region *combine) {
  if (failed(checkValueShape(op, value, plan.shape)) || failed(checkValidShape(op, valid, plan.shape)))
    return failure();
  llvm::DenseMap<int64_t, int64_t> first; // a unique scatter's destination -> the member that wrote it
  SmallVector<int64_t> pos, coord;
  for (int64_t i = 0; i < value->size(); ++i) {
    if (!isActive(valid, i))
      continue;
    delinearize(i, plan.shape, pos);
    plan.at(pos, coord);
    if (failed(checkBounds(op, coord, view.shape, "write")))
      return failure();
    int64_t addr = view.address(coord);
    if (unique) {
      // A destination written twice with the same bits leaves one value whichever write lands last
      // (torch's scatter_ of repeated ids with equal values; corpus 128's in-place penalty of repeated
      // token ids): accepted. Different values would make the result depend on the order.
      auto [at, inserted] = first.try_emplace(addr, i);
      if (!inserted) {
        if (sameBits(view.storage[addr], value->data[i]))
          continue;
        return op.emitError() << "unique scatter writes destination " << formatCoord(coord)
                              << " twice with different values (members #" << at->second << " and #" << i
                              << " of the stored value, in row-major order); a destination may repeat only "
                                 "with equal values: combine repeats with a scatter-reduce (T.scatter_reduce)";
      }
    }
    if (combine) {
      SmallVector<Elem, 1> out;
      if (failed(in.combineElems(*combine, {view.elementType}, {view.storage[addr]}, {value->data[i]}, out)))
        return failure();
      view.storage[addr] = out[0];
    } else {
      view.storage[addr] = value->data[i];
    }
    view.written[addr] = 1;
  }
  return success();
}

/// Buffer positions of coordinates given in the buffer's domain members.
static LogicalResult bufferPosition(Operation &op, const Buffer &buffer, ArrayRef<int64_t> coord,
                                    SmallVectorImpl<int64_t> &position) {
  position.clear();
  for (auto [axis, c] : llvm::enumerate(coord)) {
    int64_t p = buffer.domains[axis].position(c);
    if (p < 0)
      return op.emitError() << "out-of-bounds buffer access: coordinate " << c << " is not a member of axis "
                            << axis << " [" << buffer.domains[axis].lo << ", " << buffer.domains[axis].hi << ")";
    position.push_back(p);
  }
  return success();
}

/// Paired index tensors (a gather's or scatter's `joint`) must have one shape at run time.
static LogicalResult checkJointShapes(Interpreter &in, Operation &op) {
  ArrayRef<int64_t> joint = kir::jointOf(&op);
  if (joint.empty())
    return success();
  ValueRange coords = llvm::TypeSwitch<Operation *, ValueRange>(&op)
                          .Case<kir::GatherOp, kir::ScatterOp, kir::ScatterReduceOp>(
                              [](auto access) { return ValueRange(access.getCoords()); })
                          .Default([](Operation *) { return ValueRange(); });
  for (auto [i, partner] : llvm::enumerate(joint)) {
    if (partner < 0)
      continue;
    ArrayRef<int64_t> a = in.tensor(coords[partner])->shape, b = in.tensor(coords[i])->shape;
    if (a != b) {
      InFlightDiagnostic diag = op.emitError() << "paired index coordinates #" << partner << " and #" << i
                                               << " have different shapes: [";
      llvm::interleaveComma(a, diag);
      diag << "] and [";
      llvm::interleaveComma(b, diag);
      return diag << "]";
    }
  }
  return success();
}

LogicalResult Interpreter::execEffect(Operation &op, bool &handled) {
  handled = true;
  if (failed(checkJointShapes(*this, op)))
    return failure();
  auto viewOf = [&](Value v) -> HostArray & { return *std::get<HostArray *>(lookup(v)); };
  auto isOut = [](Value v) { return cast<kir::ViewType>(v.getType()).getMode() == kir::ViewMode::Out; };
  auto optTensor = [&](Value v) { return v ? tensor(v) : TensorPtr(); };
  auto bindRead = [&](Value result, FailureOr<TensorPtr> t) -> LogicalResult {
    if (failed(t))
      return failure();
    bind(result, *t);
    return success();
  };

  return llvm::TypeSwitch<Operation *, LogicalResult>(&op)
      .Case<kir::LoadOp, kir::GatherOp>([&](auto load) {
        return bindRead(load.getResult(), readView(*this, op, viewOf(load.getView()), isOut(load.getView()),
                                                   planAccess(*this, &op, load.getCoords()), optTensor(load.getValid()),
                                                   optTensor(load.getFill())));
      })
      .Case<kir::IndexRelationOp>([&](kir::IndexRelationOp rel) -> LogicalResult {
        HostArray &map = viewOf(rel.getMap());
        Domain d = domain(rel.getDomain());
        if (failed(checkCount(op, d.size(), "the domain")))
          return failure();
        auto out = makeTensor(IndexType::get(op.getContext()), {d.size()});
        for (int64_t k = 0; k < d.size(); ++k) {
          int64_t c = d.member(k);
          if (failed(checkBounds(op, {c}, map.shape, "read")))
            return failure();
          out->data[k].i = map.storage[map.address({c})].i;
        }
        bind(rel.getResult(), TensorPtr(out));
        return success();
      })
      .Case<kir::StoreOp>([&](kir::StoreOp s) {
        return writeView(*this, op, viewOf(s.getView()), planAccess(*this, &op, s.getCoords()), tensor(s.getValue()),
                         optTensor(s.getValid()), false, nullptr);
      })
      .Case<kir::ScatterOp>([&](kir::ScatterOp s) {
        return writeView(*this, op, viewOf(s.getView()), planAccess(*this, &op, s.getCoords()), tensor(s.getValue()),
                         optTensor(s.getValid()), true, nullptr);
      })
      .Case<kir::ScatterReduceOp>([&](kir::ScatterReduceOp s) -> LogicalResult {
        HostArray &view = viewOf(s.getView());
        AccessPlan plan = planAccess(*this, &op, s.getCoords());
        if (isOut(s.getView())) {
          // The destination is read: every touched element must have been written.
          SmallVector<int64_t> pos, coord;
          TensorPtr valid = optTensor(s.getValid());
          if (failed(checkValidShape(op, valid, plan.shape)))
            return failure();
          for (int64_t i = 0; i < numElements(plan.shape); ++i) {
            if (!isActive(valid, i))
              continue;
            delinearize(i, plan.shape, pos);
            plan.at(pos, coord);
            if (failed(checkBounds(op, coord, view.shape, "write")))
              return failure();
            if (!view.written[view.address(coord)])
              return op.emitError() << "combines into an element of an 'out' view that the kernel has not written";
          }
        }
        return writeView(*this, op, view, plan, tensor(s.getValue()), optTensor(s.getValid()), false,
                         &s.getCombine());
      })
      .Case<kir::AtomicLoadOp>([&](kir::AtomicLoadOp a) {
        return bindRead(a.getResult(), readView(*this, op, viewOf(a.getView()), isOut(a.getView()),
                                                planAccess(*this, &op, a.getCoords()), nullptr, nullptr));
      })
      .Case<kir::AtomicStoreOp>([&](kir::AtomicStoreOp a) {
        return writeView(*this, op, viewOf(a.getView()), planAccess(*this, &op, a.getCoords()), tensor(a.getValue()),
                         nullptr, false, nullptr);
      })
      .Case<kir::AtomicRMWOp, kir::AtomicCASOp>([&](auto a) -> LogicalResult {
        constexpr bool isCAS = std::is_same_v<decltype(a), kir::AtomicCASOp>;
        HostArray &view = viewOf(a.getView());
        AccessPlan plan = planAccess(*this, &op, a.getCoords());
        TensorPtr update;
        if constexpr (isCAS)
          update = tensor(a.getDesired());
        else
          update = tensor(a.getValue());
        if (failed(checkValueShape(op, update, plan.shape)))
          return failure();
        auto old = makeTensor(view.elementType, plan.shape);
        auto success = makeTensor(IntegerType::get(op.getContext(), 1), plan.shape);
        SmallVector<int64_t> pos, coord;
        for (int64_t i = 0; i < update->size(); ++i) {
          delinearize(i, plan.shape, pos);
          plan.at(pos, coord);
          if (failed(checkBounds(op, coord, view.shape, "atomic access")))
            return failure();
          int64_t addr = view.address(coord);
          if (isOut(a.getView()) && !view.written[addr])
            return op.emitError() << "atomically updates an element of an 'out' view that the kernel has not written";
          Elem current = view.storage[addr];
          old->data[i] = current;
          if constexpr (isCAS) {
            Elem expected = tensor(a.getExpected())->data[i];
            bool equal = isFloatType(view.elementType) ? current.f == expected.f : current.i == expected.i;
            success->data[i].i = equal;
            if (equal)
              view.storage[addr] = update->data[i];
          } else {
            view.storage[addr] = applyRMW(a.getKind(), current, update->data[i], view.elementType);
          }
          view.written[addr] = 1;
        }
        bind(a.getOld(), TensorPtr(old));
        if constexpr (isCAS)
          bind(a.getSuccess(), TensorPtr(success));
        return mlir::success();
      })
      .Case<kir::BufferOp>([&](kir::BufferOp b) -> LogicalResult {
        auto buffer = std::make_unique<Buffer>();
        SmallVector<int64_t> shape;
        for (Value d : b.getDomains()) {
          buffer->domains.push_back(domain(d));
          shape.push_back(buffer->domains.back().size());
        }
        // Sized from run-time domains: a located error before the allocation's backstop (a fuzz finding).
        if (failed(checkCount(op, checkedElements(shape), "the buffer")))
          return failure();
        buffer->value = *makeTensor(getElementTypeOrSelf(cast<kir::BufferType>(b.getType()).getValueType()), shape);
        buffer->initialized.assign(buffer->value.data.size(), b.getInit() ? 1 : 0);
        if (Value initValue = b.getInit()) {
          TensorPtr init = tensor(initValue);
          if (init->shape.empty()) {
            std::fill(buffer->value.data.begin(), buffer->value.data.end(), init->data[0]);
          } else if (init->shape != buffer->value.shape) {
            return op.emitError() << "initial value has " << init->size() << " elements, buffer has "
                                  << buffer->value.size();
          } else {
            buffer->value.data = init->data;
          }
        }
        bind(b.getResult(), buffer.get());
        buffers.push_back(std::move(buffer));
        return success();
      })
      .Case<kir::BufferLoadOp>([&](kir::BufferLoadOp l) -> LogicalResult {
        Buffer &buffer = *std::get<Buffer *>(lookup(l.getBuffer()));
        AccessPlan plan = planAccess(*this, &op, l.getCoords());
        auto out = makeTensor(buffer.value.elementType, plan.shape);
        SmallVector<int64_t> pos, coord, position;
        for (int64_t i = 0; i < out->size(); ++i) {
          delinearize(i, plan.shape, pos);
          plan.at(pos, coord);
          if (failed(bufferPosition(op, buffer, coord, position)))
            return failure();
          int64_t at = linearize(position, buffer.value.shape);
          if (!buffer.initialized[at])
            return op.emitError() << "reads an uninitialized buffer element (first-write obligation broken)";
          out->data[i] = buffer.value.data[at];
        }
        bind(l.getResult(), TensorPtr(out));
        return success();
      })
      .Case<kir::BufferStoreOp>([&](kir::BufferStoreOp s) -> LogicalResult {
        Buffer &buffer = *std::get<Buffer *>(lookup(s.getBuffer()));
        AccessPlan plan = planAccess(*this, &op, s.getCoords());
        TensorPtr value = tensor(s.getValue());
        if (failed(checkValueShape(op, value, plan.shape)))
          return failure();
        SmallVector<int64_t> pos, coord, position;
        for (int64_t i = 0; i < value->size(); ++i) {
          delinearize(i, plan.shape, pos);
          plan.at(pos, coord);
          if (failed(bufferPosition(op, buffer, coord, position)))
            return failure();
          int64_t at = linearize(position, buffer.value.shape);
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
