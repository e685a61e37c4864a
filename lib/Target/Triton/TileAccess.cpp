//===- TileAccess.cpp - accesses with a tensor-descriptor spelling --------===//

#include "tessel/Target/Triton/TileAccess.h"
#include "tessel/Target/AccessMatch.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

namespace {
/// The symbolic name (or the static size) of extent `axis` of a view type.
Attribute extentOf(Value view, unsigned axis) { return cast<ViewType>(view.getType()).getExtents()[axis]; }

/// A coordinate fragment `broadcast(splat(offset) + iota(start))` (either operand order): the walk
/// and the scalar offset its box start adds, or nothing.
std::pair<std::optional<std::pair<IotaOp, unsigned>>, Value> shiftedWalkOf(Value coord) {
  auto bc = coord.getDefiningOp<BroadcastOp>();
  if (!bc || bc.getDims().size() != 1)
    return {std::nullopt, Value()};
  auto add = bc.getOperand().getDefiningOp<BinaryOp>();
  if (!add || add.getKind() != kir::BinaryKind::Add)
    return {std::nullopt, Value()};
  for (auto [lhs, rhs] : {std::pair(add.getLhs(), add.getRhs()), std::pair(add.getRhs(), add.getLhs())}) {
    auto splat = lhs.getDefiningOp<SplatOp>();
    auto iota = rhs.getDefiningOp<IotaOp>();
    if (splat && iota && !isa<ShapedType, FragmentType>(splat.getOperand().getType()))
      return {std::make_pair(iota, unsigned(bc.getDims()[0])), splat.getOperand()};
  }
  return {std::nullopt, Value()};
}
} // namespace
using access::conjuncts;
using access::isExtent;
using access::walkOf;

std::optional<triton::TileAccess> triton::matchTileAccess(Operation *op) {
  Value view, valid, result;
  ValueRange coords;
  if (auto load = dyn_cast<LoadOp>(op)) {
    APFloat zero(0.0);
    if (!matchPattern(load.getFill(), m_ConstantFloat(&zero)) || !zero.isZero())
      return std::nullopt;
    view = load.getView(), valid = load.getValid(), coords = load.getCoords(), result = load.getResult();
  } else if (auto store = dyn_cast<StoreOp>(op)) {
    view = store.getView(), valid = store.getValid(), coords = store.getCoords(), result = store.getValue();
  } else {
    return std::nullopt;
  }
  auto fragment = dyn_cast<FragmentType>(result.getType());
  unsigned rank = coords.size();
  if (!fragment || fragment.getRank() != 2 || rank < 2 || rank > 5)
    return std::nullopt;
  // Descriptors move 2- and 4-byte floats here (what the GEMM, transpose and attention suites use).
  Type element = cast<ViewType>(view.getType()).getElementType();
  if (!isa<FloatType>(element)) // before the width: an index view has none (a fuzzed [BLOCK, BLOCK] index store)
    return std::nullopt;
  unsigned bits = element.getIntOrFloatBitWidth();
  if ((bits != 16 && bits != 32) || !isa<BlockArgument>(view))
    return std::nullopt;
  TileAccess access{view, {}, {}, {}};
  SmallVector<IotaOp, 2> iotas;
  SmallVector<Value, 2> lines; // per walked axis: its coordinate before the broadcast
  SmallVector<unsigned, 2> walkedAxes;
  for (auto [axis, c] : llvm::enumerate(coords)) {
    // A scalar coordinate, or a fragment that splats one (every lane at one coordinate, as a grouped
    // GEMM's group index of its per-group operand): the box is one element wide on this axis (in
    // bounds by the contract).
    Value scalar = c;
    if (auto splat = c.getDefiningOp<SplatOp>())
      if (!isa<FragmentType, ShapedType>(splat.getOperand().getType()))
        scalar = splat.getOperand();
    if (!isa<FragmentType, ShapedType>(scalar.getType())) {
      access.starts.push_back(scalar);
      access.offsets.push_back(Value());
      access.dimOf.push_back(TileAccess::kFixed);
      continue;
    }
    auto walk = walkOf(c);
    Value offset;
    if (!walk)
      std::tie(walk, offset) = shiftedWalkOf(c);
    if (!walk || iotas.size() == 2)
      return std::nullopt;
    iotas.push_back(walk->first);
    lines.push_back(c.getDefiningOp<BroadcastOp>().getOperand());
    walkedAxes.push_back(axis);
    access.starts.push_back(walk->first.getBase());
    access.offsets.push_back(offset);
    access.dimOf.push_back(walk->second);
  }
  if (iotas.size() != 2 || access.dimOf[walkedAxes[0]] == access.dimOf[walkedAxes[1]] ||
      walkedAxes[1] != rank - 1)
    return std::nullopt;
  // Validity: `coordinate < extent_axis` for some walked axes, and `0 <= coordinate` on a shifted
  // one, nothing else. An axis without an upper term has every lane active, so it lies inside the
  // view (an active lane outside it is an out-of-bounds access, which the program must not make: the
  // pgpu interpreter rejects it); the descriptor's zero fill never applies there. The coordinate of
  // a shifted axis (`splat(offset) + iota`) is that sum: a mask on its iota alone bounds the iota,
  // not the coordinate (pgpu-neutralize-boundaries turns a ragged sub-range's mask into this form).
  // Both bounds are what the descriptor's zero fill does outside the view.
  SmallVector<Value> terms;
  conjuncts(valid, terms);
  bool covered[2] = {false, false}, lowered[2] = {false, false};
  for (Value term : terms) {
    auto cmp = term.getDefiningOp<CmpOp>();
    if (!cmp)
      return std::nullopt;
    auto bound = cmp.getRhs().getDefiningOp<SplatOp>();
    if (!bound)
      return std::nullopt;
    unsigned w = 2;
    for (unsigned i = 0; i < 2; ++i)
      if (access.offsets[walkedAxes[i]] ? cmp.getLhs() == lines[i] : cmp.getLhs() == iotas[i].getResult())
        w = i;
    if (w == 2)
      return std::nullopt;
    if (cmp.getPredicate() == kir::CmpPredicate::GE && access::isConstant(bound.getOperand(), 0) && !lowered[w] &&
        access.offsets[walkedAxes[w]]) {
      lowered[w] = true;
      continue;
    }
    if (cmp.getPredicate() != kir::CmpPredicate::LT || covered[w] ||
        !isExtent(bound.getOperand(), extentOf(view, walkedAxes[w])))
      return std::nullopt;
    covered[w] = true;
  }
  return access;
}

namespace {
/// Whether `op` lies in a loop of its kernel that walks a range known only at launch (a while loop,
/// or a for loop with a non-constant bound): a box there is accessed for a number of tiles that
/// grows with the extents. A loop of constant trip count (e.g. a program's two paired query blocks)
/// runs a fixed few tiles.
bool inLoop(Operation *op) {
  for (Operation *parent = op->getParentOp(); parent && !isa<KernelOp>(parent); parent = parent->getParentOp()) {
    if (isa<WhileOp>(parent))
      return true;
    if (auto loop = dyn_cast<ForOp>(parent))
      if (!matchPattern(loop.getLower(), m_Constant()) || !matchPattern(loop.getUpper(), m_Constant()))
        return true;
  }
  return false;
}
} // namespace

bool triton::keepsPointerSpelling(Operation *op) {
  if (inLoop(op) || !matchTileAccess(op))
    return false;
  auto kernel = op->getParentOfType<KernelOp>();
  if (!kernel)
    return false;
  bool walked = false;
  kernel.walk([&](Operation *other) {
    if (!walked && isa<LoadOp, StoreOp>(other) && inLoop(other) && matchTileAccess(other))
      walked = true;
  });
  return walked;
}

bool triton::pipelinesLoads(ForOp loop) {
  auto kernel = loop->getParentOfType<KernelOp>();
  if (!kernel || loop.getInits().empty() || !inLoop(&loop.getBody().front().front()))
    return false;
  bool ownBox = false, ownContract = false;
  loop.getBody().walk([&](Operation *op) {
    if (op->getParentOfType<ForOp>() != loop)
      return;
    ownContract |= isa<ContractOp>(op);
    ownBox |= isa<LoadOp>(op) && matchTileAccess(op) && !keepsPointerSpelling(op);
  });
  if (!ownBox || ownContract)
    return false;
  return kernel
      .walk([](ContractOp c) {
        auto carried = dyn_cast<BlockArgument>(c.getAcc());
        return carried && isa<ForOp>(carried.getOwner()->getParentOp()) ? WalkResult::interrupt()
                                                                          : WalkResult::advance();
      })
      .wasInterrupted();
}
