//===- KIRVerifyUtils.cpp - shared checks of the KIR verifier --------------===//

#include "KIRVerifyUtils.h"
#include "tessel/Dialect/KIR/IR/DomainPairing.h"
#include "tessel/Dialect/Utils/RegionChecks.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"

#include <map>
#include <optional>

using namespace mlir;
using namespace tessel::kir;

namespace tessel::kir::detail {

KernelOp getEnclosingKernel(Operation *op) { return op->getParentOfType<KernelOp>(); }

bool isConstexprValue(Value value) {
  Operation *def = value.getDefiningOp();
  if (!def)
    return false;
  if (matchPattern(value, m_Constant()) || isa<ConstexprOp>(def))
    return true;
  if (isa<BinaryOp, UnaryOp, CmpOp, SelectOp, CastOp>(def))
    return llvm::all_of(def->getOperands(), isConstexprValue);
  return false;
}

//===----------------------------------------------------------------------===//
// Extent provenance
//===----------------------------------------------------------------------===//

/// Subregions of subregions deeper than this have an unknown key.
static constexpr unsigned kMaxDomainNesting = 1024;

/// A key for an index value: constants and named extents compare by value.
static std::string getIndexKey(Value value) {
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)))
    return "c" + std::to_string(constant.getSExtValue());
  if (auto extent = value.getDefiningOp<ExtentOp>())
    return "x:" + extent.getName().str();
  return "v" + std::to_string(reinterpret_cast<uintptr_t>(value.getAsOpaquePointer()));
}

std::string getDomainKey(Value domain) {
  // Iterative, with a cycle check: a subregion of itself must not recurse.
  std::string suffix;
  llvm::SmallDenseSet<void *, 8> seen;
  while (auto op = domain.getDefiningOp<SubregionOp>()) {
    if (!seen.insert(domain.getAsOpaquePointer()).second || seen.size() > kMaxDomainNesting)
      return {};
    suffix = "[" + getIndexKey(op.getBegin()) + ":" + getIndexKey(op.getEnd()) + "]" + suffix;
    domain = op.getSource();
  }
  if (auto op = domain.getDefiningOp<DomainOp>())
    return "[" + getIndexKey(op.getLower()) + "," + getIndexKey(op.getUpper()) + ")/" +
           std::to_string(op.getStep()) + suffix;
  return {};
}

//===----------------------------------------------------------------------===//
// Domain lengths as affine forms
//===----------------------------------------------------------------------===//

namespace {
/// An index value as a sum of integer multiples of atoms plus a constant (key ""): extents by name,
/// other values by identity, floor quotients and remainders the form cannot expand by their text.
using Form = std::map<std::string, int64_t>;

void addForm(Form &into, const Form &f, int64_t k) {
  for (auto &[atom, c] : f)
    if ((into[atom] += k * c) == 0)
      into.erase(atom);
}

std::string formKey(const Form &f) {
  std::string out;
  for (auto &[atom, c] : f)
    out += std::to_string(c) + "*" + atom + ";";
  return out;
}

constexpr unsigned kMaxFormDepth = 64;

Form indexForm(Value v, unsigned depth = 0) {
  APInt constant;
  if (matchPattern(v, m_ConstantInt(&constant)))
    return constant.isZero() ? Form{} : Form{{"", constant.getSExtValue()}};
  if (auto extent = v.getDefiningOp<ExtentOp>())
    return {{"x:" + extent.getName().str(), 1}};
  Form opaque{{"v" + std::to_string(reinterpret_cast<uintptr_t>(v.getAsOpaquePointer())), 1}};
  auto bin = v.getDefiningOp<BinaryOp>();
  if (!bin || !v.getType().isIndex() || depth >= kMaxFormDepth)
    return opaque;
  Form a = indexForm(bin.getLhs(), depth + 1), b = indexForm(bin.getRhs(), depth + 1);
  auto constantOf = [](const Form &f) -> std::optional<int64_t> {
    if (f.empty())
      return 0;
    if (f.size() == 1 && f.count(""))
      return f.at("");
    return std::nullopt;
  };
  std::optional<int64_t> ca = constantOf(a), cb = constantOf(b);
  switch (bin.getKind()) {
  case BinaryKind::Add:
    addForm(a, b, 1);
    return a;
  case BinaryKind::Sub:
    addForm(a, b, -1);
    return a;
  case BinaryKind::Mul:
    if (ca || cb) {
      Form out;
      addForm(out, cb ? a : b, cb ? *cb : *ca);
      return out;
    }
    return opaque;
  case BinaryKind::Div: // floor division
  case BinaryKind::Rem:
    if (cb && *cb > 0) {
      bool exact = llvm::all_of(a, [&](auto &t) { return t.second % *cb == 0; });
      if (bin.getKind() == BinaryKind::Div && exact) {
        Form out;
        for (auto &[atom, c] : a)
          out[atom] = c / *cb;
        return out;
      }
      return {{"(" + formKey(a) + (bin.getKind() == BinaryKind::Div ? ")//" : ")%") + std::to_string(*cb), 1}};
    }
    return opaque;
  default:
    return opaque;
  }
}

/// The member count of a step-1 domain or subregion as a form key ("" otherwise): upper - lower,
/// end - begin. Subregion bounds are never clamped (KIR), so equal keys are equal extents.
std::string lengthKey(Value domain) {
  Value root = domain;
  llvm::SmallDenseSet<void *, 8> seen;
  while (auto sub = root.getDefiningOp<SubregionOp>()) {
    if (!seen.insert(root.getAsOpaquePointer()).second || seen.size() > kMaxDomainNesting)
      return {};
    root = sub.getSource();
  }
  auto base = root.getDefiningOp<DomainOp>();
  if (!base || base.getStep() != 1)
    return {};
  Form len;
  if (auto sub = domain.getDefiningOp<SubregionOp>()) {
    len = indexForm(sub.getEnd());
    addForm(len, indexForm(sub.getBegin()), -1);
  } else {
    len = indexForm(base.getUpper());
    addForm(len, indexForm(base.getLower()), -1);
  }
  return "len:" + formKey(len);
}

/// One step of the extent walk: either the final key (and the domain it came from, if any), or the
/// next (value, axis) whose extent equals this one.
struct ExtentStep {
  std::optional<std::string> key;
  Value next;
  unsigned axis = 0;
  Value domain = {};
  static ExtentStep done(std::string k) { return {std::move(k), {}, 0}; }
  static ExtentStep of(Value d) { return {getDomainKey(d), {}, 0, d}; }
  static ExtentStep follow(Value v, unsigned a) { return {std::nullopt, v, a}; }
};
} // namespace

/// The coordinate of an access that produces result axis `axis` (a joint pair's axes come from its
/// first index tensor: the pair has equal extents, which the access's verifier checks).
static ExtentStep coordinateStep(Operation *access, ValueRange coords, unsigned axis) {
  CoordinateAxes axes = coordinateAxes(access, coords);
  ArrayRef<int64_t> joint = jointOf(access);
  for (auto [i, coord] : llvm::enumerate(coords)) {
    int64_t first = axes.first[i];
    if (first < 0 || (!joint.empty() && joint[i] >= 0))
      continue;
    if (isa<DomainType>(coord.getType())) {
      if (first == axis)
        return ExtentStep::of(coord);
      continue;
    }
    auto tensor = cast<RankedTensorType>(coord.getType());
    if (axis >= first && axis < first + tensor.getRank())
      return ExtentStep::follow(coord, axis - first);
  }
  return ExtentStep::done({});
}

static ExtentStep extentStep(Value value, unsigned axis) {
  auto tensor = dyn_cast<RankedTensorType>(value.getType());
  if (!tensor || axis >= tensor.getRank())
    return ExtentStep::done({});
  if (!tensor.isDynamicDim(axis))
    return ExtentStep::done("c" + std::to_string(tensor.getDimSize(axis)));
  Operation *def = value.getDefiningOp();
  if (!def)
    return ExtentStep::done({});
  if (auto op = dyn_cast<IndicesOp>(def))
    return ExtentStep::of(op.getDomain());
  if (auto op = dyn_cast<IndexRelationOp>(def))
    return ExtentStep::of(op.getDomain());
  if (auto op = dyn_cast<BroadcastOp>(def))
    return axis < op.getDomains().size() ? ExtentStep::of(op.getDomains()[axis]) : ExtentStep::done({});
  if (auto op = dyn_cast<ReshapeOp>(def))
    return axis < op.getDomains().size() ? ExtentStep::of(op.getDomains()[axis]) : ExtentStep::done({});
  if (auto op = dyn_cast<LoadOp>(def))
    return coordinateStep(op, op.getCoords(), axis);
  if (auto op = dyn_cast<GatherOp>(def))
    return coordinateStep(op, op.getCoords(), axis);
  if (auto op = dyn_cast<BufferLoadOp>(def))
    return coordinateStep(op, op.getCoords(), axis);
  if (auto op = dyn_cast<BroadcastAsOp>(def))
    return ExtentStep::follow(op.getReference(), axis);
  if (auto op = dyn_cast<TransposeOp>(def)) {
    if (axis >= op.getPermutation().size())
      return ExtentStep::done({});
    return ExtentStep::follow(op.getOperand(), op.getPermutation()[axis]);
  }
  if (isa<BinaryOp, UnaryOp, CastOp, BitcastOp, SelectOp, CmpOp>(def))
    return ExtentStep::follow(def->getOperands().back(), axis);
  if (auto op = dyn_cast<JoinOp>(def))
    return ExtentStep::follow(op.getLhs(), axis);
  if (auto op = dyn_cast<ScanOp>(def)) {
    unsigned result = cast<OpResult>(value).getResultNumber();
    if (result >= op.getInputs().size())
      return ExtentStep::done({});
    return ExtentStep::follow(op.getInputs()[result], axis);
  }
  if (auto op = dyn_cast<ReduceOp>(def)) {
    if (op.getInputs().empty())
      return ExtentStep::done({});
    unsigned sourceAxis = 0, kept = 0;
    ArrayRef<int64_t> axes = op.getAxes();
    for (; sourceAxis < cast<RankedTensorType>(op.getInputs()[0].getType()).getRank(); ++sourceAxis) {
      if (llvm::is_contained(axes, sourceAxis))
        continue;
      if (kept++ == axis)
        return ExtentStep::follow(op.getInputs()[0], sourceAxis);
    }
  }
  return ExtentStep::done({});
}

/// The walk is iterative (a chain of 10^5 pointwise ops must not overflow the
/// stack), stops on a cycle (a value defined in terms of itself is reported by
/// the dominance check, not here) and gives up as "unknown" past
/// kMaxExtentWalk steps without reaching a memoized value.
static constexpr unsigned kMaxExtentWalk = 4096;

namespace {
struct ExtentMemo {
  Operation *kernel = nullptr;
  llvm::DenseMap<std::pair<void *, unsigned>, std::string> keys;
};
thread_local ExtentMemo memo;

/// Whether `value` lives in the kernel whose verification opened the memo.
bool inMemoKernel(Value value) {
  if (!memo.kernel)
    return false;
  Region *region = value.getParentRegion();
  Operation *owner = region ? region->getParentOp() : nullptr;
  while (owner && !isa<KernelOp>(owner))
    owner = owner->getParentOp();
  return owner == memo.kernel;
}
} // namespace

void beginExtentMemo(KernelOp kernel) {
  memo.kernel = kernel;
  memo.keys.clear();
}

void endExtentMemo(KernelOp kernel) {
  if (memo.kernel == kernel.getOperation()) {
    memo.kernel = nullptr;
    memo.keys.clear();
  }
}

static std::string walkExtentKey(ExtentStep step) {
  llvm::SmallDenseSet<std::pair<void *, unsigned>, 16> seen;
  SmallVector<std::pair<void *, unsigned>> path;
  bool memoize = step.next && inMemoKernel(step.next);
  for (unsigned steps = 0; !step.key; ++steps) {
    std::pair<void *, unsigned> at{step.next.getAsOpaquePointer(), step.axis};
    if (memoize) {
      auto hit = memo.keys.find(at);
      if (hit != memo.keys.end()) {
        step.key = hit->second;
        break;
      }
    }
    if (steps >= kMaxExtentWalk || !seen.insert(at).second)
      return {}; // too deep, or a cycle: unknown, and not memoized
    path.push_back(at);
    step = extentStep(step.next, step.axis);
  }
  if (memoize)
    for (auto &at : path)
      memo.keys[at] = *step.key;
  return *step.key;
}

/// The domain a walk ends at (null when it ends elsewhere): not memoized, it runs only where two
/// keys differ.
static Value walkExtentDomain(ExtentStep step) {
  llvm::SmallDenseSet<std::pair<void *, unsigned>, 16> seen;
  for (unsigned steps = 0; !step.key; ++steps) {
    if (steps >= kMaxExtentWalk || !seen.insert({step.next.getAsOpaquePointer(), step.axis}).second)
      return {};
    step = extentStep(step.next, step.axis);
  }
  return step.domain;
}

Value getAxisDomain(Value value, unsigned axis) { return walkExtentDomain(ExtentStep::follow(value, axis)); }

Value getCoordinateAxisDomain(Operation *access, ValueRange coords, unsigned axis) {
  return walkExtentDomain(coordinateStep(access, coords, axis));
}

bool haveEqualLengths(Value a, Value b) {
  if (!a || !b)
    return false;
  std::string la = lengthKey(a), lb = lengthKey(b);
  return !la.empty() && la == lb;
}

std::string getCoordinateAxisKey(Operation *access, ValueRange coords, unsigned axis) {
  return walkExtentKey(coordinateStep(access, coords, axis));
}

std::string getAxisExtentKey(Value value, unsigned axis) {
  return walkExtentKey(ExtentStep::follow(value, axis));
}

LogicalResult verifyCompatibleAxes(Operation *op, Value a, unsigned axisA, Value b, unsigned axisB,
                                   Twine what) {
  auto ta = cast<RankedTensorType>(a.getType());
  auto tb = cast<RankedTensorType>(b.getType());
  if (!ta.isDynamicDim(axisA) && !tb.isDynamicDim(axisB)) {
    if (ta.getDimSize(axisA) != tb.getDimSize(axisB))
      return op->emitOpError() << what << " have different extents (" << ta.getDimSize(axisA)
                               << " vs " << tb.getDimSize(axisB) << ")";
    return success();
  }
  std::string ka = getAxisExtentKey(a, axisA), kb = getAxisExtentKey(b, axisB);
  if (ka.empty() || kb.empty() || ka == kb)
    return success();
  // Step-1 domains of one length expression (a slice and its re-based twin) pair by position.
  if (haveEqualLengths(getAxisDomain(a, axisA), getAxisDomain(b, axisB)))
    return success();
  // A static size against a domain whose bounds are both constants.
  return op->emitOpError() << what
                           << " are not provably equal: they come from different domains";
}

LogicalResult verifySameExtents(Operation *op, Value a, Value b, StringRef aName, StringRef bName) {
  auto ta = dyn_cast<RankedTensorType>(a.getType());
  auto tb = dyn_cast<RankedTensorType>(b.getType());
  if (!ta || !tb || ta.getRank() != tb.getRank())
    return success();
  for (int64_t axis = 0; axis < ta.getRank(); ++axis)
    if (failed(verifyCompatibleAxes(op, a, axis, b, axis,
                                    "axis " + Twine(axis) + " of " + aName + " and " + bName)))
      return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// Accesses
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<int64_t>> verifyCoordinates(Operation *op, unsigned rank, ValueRange coords,
                                                  bool allowTensors) {
  if (coords.size() != rank)
    return op->emitOpError() << "has " << coords.size() << " coordinates but the accessed resource has rank "
                             << rank;
  ArrayRef<int64_t> joint = jointOf(op);
  if (!joint.empty() && joint.size() != coords.size())
    return op->emitOpError() << "has " << joint.size() << " 'joint' entries for " << coords.size()
                             << " coordinates";
  SmallVector<int64_t> shape;
  bool sawTensor = false;
  for (auto [i, coord] : llvm::enumerate(coords)) {
    Type type = coord.getType();
    int64_t partner = joint.empty() ? -1 : joint[i];
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (partner != -1) {
      // Paired index tensors (seed 000 §6 gathers): one element of each per access element.
      if (partner < 0 || partner >= int64_t(i))
        return op->emitOpError() << "'joint' entry " << i << " must be -1 or an earlier coordinate, got " << partner;
      auto lead = dyn_cast<RankedTensorType>(coords[partner].getType());
      if (!tensor || !lead || joint[partner] != -1)
        return op->emitOpError() << "'joint' pairs coordinate #" << i << " with #" << partner
                                 << ": both must be index tensors and #" << partner << " must not be paired itself";
      if (tensor.getRank() != lead.getRank())
        return op->emitOpError() << "paired coordinates #" << partner << " and #" << i << " have ranks "
                                 << lead.getRank() << " and " << tensor.getRank();
      if (failed(verifySameExtents(op, coords[partner], coord, "coordinate #" + std::to_string(partner),
                                   "coordinate #" + std::to_string(i))))
        return failure();
      continue;
    }
    if (type.isIndex())
      continue;
    if (isa<DomainType>(type)) {
      shape.push_back(ShapedType::kDynamic);
      continue;
    }
    if (tensor && tensor.getElementType().isIndex()) {
      if (!allowTensors)
        return op->emitOpError() << "coordinate #" << i
                                 << " is an index tensor; use kir.gather/kir.scatter for indexed access";
      sawTensor = true;
      llvm::append_range(shape, tensor.getShape());
      continue;
    }
    return op->emitOpError() << "coordinate #" << i
                             << " must be an index, a !kir.domain or an index tensor, got " << type;
  }
  if (allowTensors && !sawTensor && !isa<AtomicLoadOp, AtomicStoreOp, AtomicRMWOp, AtomicCASOp>(op))
    return op->emitOpError() << "has no index-tensor coordinate; use kir.load/kir.store for direct access";
  return shape;
}

LogicalResult verifyAccessedType(Operation *op, Type type, ArrayRef<int64_t> shape, Type elementType,
                                 StringRef what) {
  if (shape.empty()) {
    if (type != elementType)
      return op->emitOpError() << what << " must be a scalar " << elementType << ", got " << type;
    return success();
  }
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || tensor.getRank() != static_cast<int64_t>(shape.size()) ||
      tensor.getElementType() != elementType)
    return op->emitOpError() << what << " must be a rank-" << shape.size() << " tensor of "
                             << elementType << ", got " << type;
  for (auto [i, expected, got] : llvm::enumerate(shape, tensor.getShape()))
    if (!ShapedType::isDynamic(expected) && !ShapedType::isDynamic(got) && expected != got)
      return op->emitOpError() << what << " axis " << i << " has extent " << got << " but "
                               << expected << " was expected";
  return success();
}

LogicalResult verifyValidityAndFill(Operation *op, Value valid, Value fill, ArrayRef<int64_t> shape,
                                    Type elementType) {
  if (valid) {
    Type type = valid.getType();
    if (getElementTypeOrSelf(type) != IntegerType::get(op->getContext(), 1))
      return op->emitOpError() << "validity mask must have i1 elements, got " << type;
    if (auto tensor = dyn_cast<RankedTensorType>(type))
      if (failed(verifyAccessedType(op, type, shape, tensor.getElementType(), "validity mask")))
        return failure();
  }
  if (fill && fill.getType() != elementType)
    return op->emitOpError() << "fill must be a scalar of the element type " << elementType
                             << ", got " << fill.getType();
  return success();
}

} // namespace tessel::kir::detail

bool tessel::kir::pairByPosition(Value domainA, Value domainB) {
  return detail::haveEqualLengths(domainA, domainB);
}
