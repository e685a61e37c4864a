//===- BoxAccess.cpp - pgpu accesses with a cuTile tile index -------------===//

#include "BoxAccess.h"

#include "tessel/Target/AccessMatch.h"

#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

SmallVector<int64_t> cutile::boundShape(Type type, const llvm::StringMap<int64_t> &params) {
  SmallVector<int64_t> shape;
  for (Attribute e : cast<FragmentType>(type).getExtents()) {
    if (auto size = dyn_cast<IntegerAttr>(e)) {
      shape.push_back(size.getInt());
      continue;
    }
    auto it = params.find(cast<StringAttr>(e).getValue());
    shape.push_back(it == params.end() ? -1 : it->second);
  }
  return shape;
}

namespace {
/// `v` is provably a multiple of `n` (n > 0): a constant or bound parameter that is one, a product
/// with such a factor, a sum or difference of multiples, or a loop variable whose lower bound and
/// step are multiples. Unknown values are not (seed 002 §3.5: exact proofs or the original form).
bool isMultipleOf(Value v, int64_t n, const llvm::StringMap<int64_t> &params, int depth = 0) {
  if (n == 1)
    return true;
  if (depth > 16)
    return false;
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return c.getSExtValue() % n == 0;
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    auto loop = dyn_cast<ForOp>(arg.getOwner()->getParentOp());
    return loop && arg.getArgNumber() == 0 && isMultipleOf(loop.getLower(), n, params, depth + 1) &&
           isMultipleOf(loop.getStep(), n, params, depth + 1);
  }
  if (auto p = v.getDefiningOp<ParamOp>()) {
    auto it = params.find(p.getName());
    return it != params.end() && it->second % n == 0;
  }
  if (auto b = v.getDefiningOp<BinaryOp>()) {
    switch (b.getKind()) {
    case kir::BinaryKind::Mul:
      return isMultipleOf(b.getLhs(), n, params, depth + 1) || isMultipleOf(b.getRhs(), n, params, depth + 1);
    case kir::BinaryKind::Add:
    case kir::BinaryKind::Sub:
      return isMultipleOf(b.getLhs(), n, params, depth + 1) && isMultipleOf(b.getRhs(), n, params, depth + 1);
    default:
      return false;
    }
  }
  return false;
}

bool isTrue(Value v) {
  if (auto s = v.getDefiningOp<SplatOp>())
    v = s.getOperand();
  return matchPattern(v, m_One());
}

/// cuTile's padding mode for a load fill (PaddingMode: zero, negative zero, NaN, infinities).
std::optional<std::string> paddingOf(Value fill) {
  APFloat f(0.0);
  if (matchPattern(fill, m_ConstantFloat(&f))) {
    if (f.isNaN())
      return "ct.PaddingMode.NAN";
    if (f.isInfinity())
      return f.isNegative() ? "ct.PaddingMode.NEG_INF" : "ct.PaddingMode.POS_INF";
    if (f.isZero())
      return f.isNegative() ? "ct.PaddingMode.NEG_ZERO" : "ct.PaddingMode.ZERO";
    return std::nullopt;
  }
  if (matchPattern(fill, m_Zero()))
    return "ct.PaddingMode.ZERO";
  return std::nullopt;
}
} // namespace

bool cutile::isProgramInvariant(Value v) {
  SmallVector<Value> work{v};
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value x = work.pop_back_val();
    if (!seen.insert(x).second)
      continue;
    if (auto arg = dyn_cast<BlockArgument>(x)) {
      Operation *owner = arg.getOwner()->getParentOp();
      if (isa<KernelOp>(owner))
        continue;
      if (auto loop = dyn_cast<ForOp>(owner); loop && arg.getArgNumber() == 0) {
        work.append({loop.getLower(), loop.getUpper(), loop.getStep()});
        continue;
      }
      if (auto each = dyn_cast<ForeachOp>(owner); each && arg.getArgNumber() == 0) {
        work.append({each.getLower(), each.getUpper()});
        continue;
      }
      return false; // the program coordinate, an execution group's coordinates, a carry
    }
    Operation *op = x.getDefiningOp();
    if (op->getNumRegions() || !isMemoryEffectFree(op))
      return false;
    if (!isa<ExtentOp, StrideOp>(op)) // their operand is the view
      llvm::append_range(work, op->getOperands());
  }
  return true;
}

bool cutile::isSharedBoxCandidate(LoadOp load) {
  auto type = dyn_cast<FragmentType>(load.getResult().getType());
  if (!type || !isa<BlockArgument>(load.getView()))
    return false;
  for (Value c : load.getCoords()) {
    if (!isa<FragmentType>(c.getType())) {
      if (!isProgramInvariant(c))
        return false;
      continue;
    }
    auto walk = access::walkOf(c, /*allowBare=*/type.getRank() == 1);
    if (!walk || !isProgramInvariant(walk->first.getBase()))
      return false;
  }
  return true;
}

std::optional<cutile::BoxAccess> cutile::matchBoxAccess(Operation *op, const llvm::StringMap<int64_t> &params) {
  Value view, valid, fragment, fill;
  ValueRange coords;
  if (auto load = dyn_cast<LoadOp>(op))
    view = load.getView(), valid = load.getValid(), coords = load.getCoords(), fragment = load.getResult(),
    fill = load.getFill();
  else if (auto store = dyn_cast<StoreOp>(op))
    view = store.getView(), valid = store.getValid(), coords = store.getCoords(), fragment = store.getValue();
  else
    return std::nullopt;
  auto type = dyn_cast<FragmentType>(fragment.getType());
  if (!type || !isa<BlockArgument>(view))
    return std::nullopt;
  SmallVector<int64_t> shape = boundShape(type, params);
  BoxAccess box;
  SmallVector<bool> walked(shape.size(), false);
  SmallVector<IotaOp> iotas;
  for (Value c : coords) {
    if (!isa<FragmentType>(c.getType())) {
      box.extent.push_back(1), box.start.push_back(c), box.dim.push_back(-1), iotas.push_back(nullptr);
      continue;
    }
    auto walk = access::walkOf(c, /*allowBare=*/shape.size() == 1);
    if (!walk || walked[walk->second])
      return std::nullopt;
    int64_t extent = shape[walk->second];
    if (extent <= 0 || !isMultipleOf(walk->first.getBase(), extent, params))
      return std::nullopt;
    walked[walk->second] = true;
    box.extent.push_back(extent), box.start.push_back(walk->first.getBase()), box.dim.push_back(walk->second);
    iotas.push_back(walk->first);
  }
  // Every fragment dimension is one view axis's tile axis (a broadcast dimension is a gather).
  if (llvm::is_contained(walked, false))
    return std::nullopt;
  // Validity: only `iota_a < extent_a` on walked axes (what the tile's own bounds check does);
  // an axis whose bound is absent is in bounds by the access contract (seed 000 §6).
  SmallVector<Value> terms;
  access::conjuncts(valid, terms);
  bool bounded = false;
  for (Value term : terms) {
    if (isTrue(term))
      continue;
    auto cmp = term.getDefiningOp<CmpOp>();
    if (!cmp || cmp.getPredicate() != kir::CmpPredicate::LT)
      return std::nullopt;
    auto bound = cmp.getRhs().getDefiningOp<SplatOp>();
    if (!bound)
      return std::nullopt;
    auto axis = llvm::find(iotas, cmp.getLhs().getDefiningOp<IotaOp>());
    if (!cmp.getLhs().getDefiningOp<IotaOp>() || axis == iotas.end())
      return std::nullopt;
    unsigned a = axis - iotas.begin();
    if (!access::isExtent(bound.getOperand(), cast<ViewType>(view.getType()).getExtents()[a]))
      return std::nullopt;
    bounded = true;
  }
  if (fill && bounded) {
    std::optional<std::string> padding = paddingOf(fill);
    if (!padding)
      return std::nullopt;
    box.padding = *padding;
  }
  box.shared = llvm::all_of(box.start, isProgramInvariant);
  return box;
}
