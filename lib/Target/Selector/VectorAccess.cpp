//===- VectorAccess.cpp - vector accesses of fragments in the vector layout ===//
//
// In the vector layout (Selector.h) a thread holds groups of V consecutive
// elements of a wide fragment. An access whose coordinates are affine within
// every aligned group of V elements (proved here on the pgpu values) reads or
// writes a group with one vector instruction (ld.global.v4 / st.global.v4, or
// global_load_dwordx4 / global_store_dwordx4, for 16 bytes). The vector form
// is never assumed, only checked, once per access and thread: when every
// group of the thread is wholly valid, each group's first address is aligned
// to the vector and consecutive elements are adjacent in memory (the view's
// strides make the step 1), all its groups are vector accesses, in straight
// line; otherwise every slot is made one element at a time (a misaligned row,
// a tail, a strided view), its address the group's first plus the element
// step. One check per access keeps the fast path free of branches (the
// backend schedules its loads together) and the fallback's addresses cheap,
// so neither holds registers for the other. An access the analysis cannot
// prove affine (gathers, strided tiles) is made element by element.
//
//===----------------------------------------------------------------------===//

#include "SelectorImpl.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::selector::detail;

std::optional<int64_t> Selector::knownInteger(Value v) {
  if (auto splat = v.getDefiningOp<pgpu::SplatOp>())
    v = splat.getOperand();
  if (auto c = v.getDefiningOp<arith::ConstantOp>())
    if (auto integer = dyn_cast<IntegerAttr>(c.getValue()))
      return integer.getInt();
  if (auto p = v.getDefiningOp<pgpu::ParamOp>())
    if (auto it = params.find(p.getName()); it != params.end())
      return it->second;
  return std::nullopt;
}

std::optional<int64_t> Selector::groupSlope(Value v, int64_t group, unsigned depth) {
  auto fragment = dyn_cast<pgpu::FragmentType>(v.getType());
  if (!fragment)
    return 0; // a scalar is uniform
  Operation *def = v.getDefiningOp();
  if (!def || depth > 16)
    return std::nullopt; // loop-carried and region arguments: not analyzed
  SmallVector<int64_t> shape = shapeOf(fragment);
  auto slope = [&](Value operand) { return groupSlope(operand, group, depth + 1); };
  // An elementwise op of operands constant within groups is constant within groups.
  auto constantOperands = [&]() -> std::optional<int64_t> {
    for (Value operand : def->getOperands())
      if (slope(operand) != std::optional<int64_t>(0))
        return std::nullopt;
    return 0;
  };
  if (isa<pgpu::SplatOp>(def))
    return 0;
  if (isa<pgpu::IotaOp>(def))
    return 1;
  if (auto reshape = dyn_cast<pgpu::ReshapeOp>(def)) // row-major: the flat order is unchanged
    return slope(reshape.getOperand());
  // A group stays inside one innermost row when the row is a whole number of groups; the
  // operand's innermost axis, when it is the result's, then walks with it (aligned the same way).
  if (auto broadcast = dyn_cast<pgpu::BroadcastOp>(def)) {
    int64_t last = shape.size() - 1;
    if (shape.back() % group)
      return std::nullopt;
    ArrayRef<int64_t> dims = broadcast.getDims();
    if (!llvm::is_contained(dims, last))
      return 0;
    SmallVector<int64_t> from = shapeOf(cast<pgpu::FragmentType>(broadcast.getOperand().getType()));
    if (dims.back() != last)
      return std::nullopt;
    if (from.back() == 1)
      return 0;
    return from.back() == shape.back() ? slope(broadcast.getOperand()) : std::nullopt;
  }
  if (auto transpose = dyn_cast<pgpu::TransposeOp>(def)) {
    ArrayRef<int64_t> perm = transpose.getPermutation();
    if (perm.back() != int64_t(perm.size()) - 1 || shape.back() % group)
      return std::nullopt;
    return slope(transpose.getOperand());
  }
  if (auto binary = dyn_cast<pgpu::BinaryOp>(def)) {
    if (!pgpu::elementTypeOf(binary.getType()).isIntOrIndex())
      return constantOperands();
    std::optional<int64_t> x = slope(binary.getLhs()), y = slope(binary.getRhs());
    if (!x || !y)
      return std::nullopt;
    switch (binary.getKind()) {
    case kir::BinaryKind::Add: return *x + *y;
    case kir::BinaryKind::Sub: return *x - *y;
    case kir::BinaryKind::Mul:
      if (*x == 0 && *y == 0)
        return 0;
      if (*y == 0)
        if (std::optional<int64_t> c = knownInteger(binary.getRhs()))
          return *x * *c;
      if (*x == 0)
        if (std::optional<int64_t> c = knownInteger(binary.getLhs()))
          return *y * *c;
      return std::nullopt;
    default: return *x == 0 && *y == 0 ? std::optional<int64_t>(0) : std::nullopt;
    }
  }
  if (auto cast = dyn_cast<pgpu::CastOp>(def)) {
    Type from = pgpu::elementTypeOf(cast.getOperand().getType()), to = pgpu::elementTypeOf(cast.getType());
    // index <-> integer casts that do not narrow keep the steps (coordinates are far from wrapping)
    bool widening = from.isIndex() || to.isIndex() ||
                    (from.isInteger() && to.isInteger() && to.getIntOrFloatBitWidth() >= from.getIntOrFloatBitWidth());
    if (from.isIntOrIndex() && to.isIntOrIndex() && !from.isInteger(1) && widening)
      return slope(cast.getOperand());
    return constantOperands();
  }
  if (auto select = dyn_cast<pgpu::SelectOp>(def)) {
    std::optional<int64_t> c = slope(select.getCondition()), t = slope(select.getTrueValue()),
                           f = slope(select.getFalseValue());
    if (c == std::optional<int64_t>(0) && t && t == f)
      return t;
    return std::nullopt;
  }
  if (isa<pgpu::CmpOp, pgpu::UnaryOp>(def))
    return constantOperands();
  return std::nullopt;
}

Value Selector::groupStep(Value resource, ValueRange coords, int64_t group) {
  SmallVector<int64_t> slopes;
  for (Value c : coords) {
    std::optional<int64_t> s = groupSlope(c, group);
    if (!s)
      return {};
    slopes.push_back(*s);
  }
  if (llvm::all_of(slopes, [](int64_t s) { return s == 0; }))
    return {}; // every element of a group is the same element
  // One moving coordinate: its step is slope x stride, 1 only when the slope is 1 (strides are
  // not negative in the ABI), so a strided access (x[2 i]) stays element by element.
  if (llvm::count_if(slopes, [](int64_t s) { return s != 0; }) == 1 &&
      llvm::none_of(slopes, [](int64_t s) { return s == 1; }))
    return {};
  const ViewABI &abi = views[resource];
  Value step = constIndex(0);
  for (auto [axis, s] : llvm::enumerate(slopes))
    if (s)
      step = arith::AddIOp::create(b, loc, step, arith::MulIOp::create(b, loc, constIndex(s), abi.strides[axis]));
  return step;
}

namespace {
/// The vector access's alignment: its size, at most 16 bytes (a larger vector is split by the backend).
int64_t vectorAlignment(Type element, int64_t group) {
  return std::min<int64_t>(16, group * std::max<int64_t>(1, element.getIntOrFloatBitWidth() / 8));
}
} // namespace

Selector::GroupedAccess Selector::groupAccess(Type elementType, Value resource, ValueRange coords, Value valid,
                                              pgpu::FragmentType fragment, int64_t group, Value step, bool write) {
  GroupedAccess access;
  access.element = deviceScalarType(elementType);
  access.align = vectorAlignment(access.element, group);
  Type i64 = b.getI64Type();
  access.step = arith::IndexCastOp::create(b, loc, i64, step);
  Value lowMask = arith::ConstantOp::create(b, loc, b.getIntegerAttr(i64, access.align - 1));
  Value zero = arith::ConstantOp::create(b, loc, b.getIntegerAttr(i64, 0));
  access.fast = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, step, constIndex(1));
  for (int64_t k0 = 0, n = slots(fragment); k0 < n; k0 += group) {
    Value p = address(elementType, resource, coords, k0);
    Value bits = LLVM::PtrToIntOp::create(b, loc, i64, p);
    Value aligned = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                          arith::AndIOp::create(b, loc, bits, lowMask), zero);
    access.fast = arith::AndIOp::create(b, loc, access.fast, aligned);
    access.bases.push_back(p);
    for (int64_t j = 0; j < group; ++j) {
      access.oks.push_back(slotOk(valid, fragment, k0 + j, write));
      access.fast = arith::AndIOp::create(b, loc, access.fast, access.oks.back());
    }
  }
  return access;
}

Value Selector::slotAddress(const GroupedAccess &access, int64_t k, int64_t group) {
  Value p = access.bases[k / group];
  if (k % group == 0)
    return p;
  Value offset = arith::MulIOp::create(
      b, loc, access.step, arith::ConstantOp::create(b, loc, b.getIntegerAttr(b.getI64Type(), k % group)));
  return LLVM::GEPOp::create(b, loc, p.getType(), access.element, p, ValueRange{offset});
}

SmallVector<Value> Selector::loadGroups(Type elementType, Value view, ValueRange coords, Value valid, Value fill,
                                        pgpu::FragmentType fragment, int64_t group, Value step) {
  GroupedAccess access = groupAccess(elementType, view, coords, valid, fragment, group, step, /*write=*/false);
  int64_t n = slots(fragment);
  auto ifOp = scf::IfOp::create(
      b, loc, access.fast,
      [&](OpBuilder &, Location) {
        auto vectorType = VectorType::get({group}, access.element);
        SmallVector<Value> parts;
        for (Value p : access.bases) {
          Value vec = LLVM::LoadOp::create(b, loc, vectorType, p, access.align, strongReads);
          for (int64_t j = 0; j < group; ++j)
            parts.push_back(LLVM::ExtractElementOp::create(b, loc, vec, constI32(j)));
        }
        scf::YieldOp::create(b, loc, parts);
      },
      [&](OpBuilder &, Location) {
        SmallVector<Value> parts;
        for (int64_t k = 0; k < n; ++k) {
          auto slot = scf::IfOp::create(
              b, loc, access.oks[k],
              [&](OpBuilder &, Location) {
                Value p = slotAddress(access, k, group);
                scf::YieldOp::create(b, loc, LLVM::LoadOp::create(b, loc, access.element, p, 0, strongReads).getResult());
              },
              [&](OpBuilder &, Location) { scf::YieldOp::create(b, loc, values[fill][0]); });
          parts.push_back(slot.getResult(0));
        }
        scf::YieldOp::create(b, loc, parts);
      });
  return SmallVector<Value>(ifOp.getResults().begin(), ifOp.getResults().end());
}

void Selector::storeGroups(Value value, Type elementType, Value resource, ValueRange coords, Value valid,
                           pgpu::FragmentType fragment, int64_t group, Value step) {
  GroupedAccess access = groupAccess(elementType, resource, coords, valid, fragment, group, step, /*write=*/true);
  int64_t n = slots(fragment);
  scf::IfOp::create(
      b, loc, access.fast,
      [&](OpBuilder &, Location) {
        auto vectorType = VectorType::get({group}, access.element);
        for (auto [g, p] : llvm::enumerate(access.bases)) {
          Value vec = LLVM::PoisonOp::create(b, loc, vectorType);
          for (int64_t j = 0; j < group; ++j)
            vec = LLVM::InsertElementOp::create(b, loc, vec, at(value, g * group + j), constI32(j));
          LLVM::StoreOp::create(b, loc, vec, p, access.align);
        }
        scf::YieldOp::create(b, loc);
      },
      [&](OpBuilder &, Location) {
        for (int64_t k = 0; k < n; ++k)
          scf::IfOp::create(b, loc, access.oks[k], [&](OpBuilder &, Location) {
            LLVM::StoreOp::create(b, loc, at(value, k), slotAddress(access, k, group));
            scf::YieldOp::create(b, loc);
          });
        scf::YieldOp::create(b, loc);
      });
}
