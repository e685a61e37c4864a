//===- OrderProgramAxes.cpp - programs that read one tile run together -----===//
//
// seed 002 §3.2 (rewrite the program space: which instance owns which coordinates).
//
// An execution group decodes its linear program index row-major by its extents: the last axis
// varies fastest, so the programs a GPU holds at once differ mostly in the innermost coordinates.
// A tile that a loop of the group reads and that depends on every other axis but not on an outer
// axis a (attention's additive bias [H, S, T], the same for every batch member b) is read again by
// each program along a, and those programs are the product of the inner extents apart in launch
// order: never resident together, each fetches the tile from DRAM (corpus 199 at its bench shape:
// 4 programs 256 apart read each 1 MiB bias block, once a pass: 2 GiB of bias reads). Made the
// innermost axis (before a `fold_split` axis, whose segments stay adjacent), a runs those programs
// together and the tile is fetched once for them; what the old innermost axis shared (K and V
// across query blocks) stays shared, extent(a) programs apart.
//
// Legality is the parallel space's: group instances are independent (a kir.parallel's members run in
// any order, in any program), and the body reads its coordinates, not the linear index, so every
// instance still runs exactly once with the same coordinates.
//
// Fires on a program space with one execution group of at least three axes (roles "axisN", an
// optional last "fold_split") where the tiles loops read name one such axis a with two or more axes
// inside it; must not fire when every such tile is shared along the innermost axis already (K and V
// across query blocks) or the next one (programs one extent apart: still L2 reuse), when tiles name
// different axes, or when the program index is read other than by the group's decoding.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "GroupCoordinates.h"

#include "llvm/ADT/SmallBitVector.h"

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUORDERPROGRAMAXES
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

namespace {
constexpr llvm::StringLiteral kFoldSplitRole = "fold_split";

/// The axis to make innermost, or why there is none. `axes` is the number of ordered axes (the
/// group's, less a trailing fold_split).
FailureOr<unsigned> sharedAxis(ProgramSpaceOp space, ExecutionGroupOp group, unsigned &axes, std::string &why) {
  auto linear = dyn_cast<BlockArgument>(group.getLinear());
  if (!linear || linear.getOwner()->getParentOp() != space || !linear.hasOneUse()) {
    why = "the program index is read other than by the group's decoding";
    return failure();
  }
  ArrayRef<Attribute> roles = group.getRoles().getValue();
  axes = roles.size();
  if (axes && cast<StringAttr>(roles.back()).getValue() == kFoldSplitRole)
    --axes;
  for (Attribute role : roles.take_front(axes))
    if (!cast<StringAttr>(role).getValue().starts_with("axis")) {
      why = "an axis of the group is a tiling's or a split's (role '" + cast<StringAttr>(role).getValue().str() + "')";
      return failure();
    }
  if (axes < 3) {
    why = "fewer than three axes: no tile is selected by all but one of them and an outer one";
    return failure();
  }
  Block &body = group.getBody().front();
  llvm::SmallBitVector ordered(body.getNumArguments());
  ordered.set(0, axes);
  std::optional<unsigned> chosen;
  bool conflict = false;
  group.walk([&](LoadOp load) {
    if (!load->getParentOfType<ForOp>() || !isa<FragmentType>(load.getType()))
      return; // a tile of a loop: read again at every trip of every program
    llvm::SmallBitVector free = ordered;
    for (Value c : load.getCoords())
      free.reset(coordinatesOf(c, body));
    if (free.count() != 1)
      return; // shared along several axes, or along none
    unsigned a = free.find_first();
    // Along the innermost axis programs sharing the tile are adjacent; along the next one they are one
    // extent apart (a batched GEMM's B tile across row tiles), which stays L2 reuse: only an axis with
    // two or more axes inside it is moved (which leaves the old innermost one next inside).
    if (a + 2 >= axes)
      return;
    if (chosen && *chosen != a)
      conflict = true;
    chosen = a;
  });
  if (conflict) {
    why = "loop tiles are shared along different outer axes";
    return failure();
  }
  if (!chosen) {
    why = "no loop tile is shared along one axis only, with two or more axes inside it";
    return failure();
  }
  return *chosen;
}

struct OrderProgramAxes : public tessel::pgpu::impl::PGPUOrderProgramAxesBase<OrderProgramAxes> {
  void runOnOperation() override {
    for (KernelOp kernel : getOperation().getOps<KernelOp>()) {
      SmallVector<ProgramSpaceOp> spaces(kernel.getBody().getOps<ProgramSpaceOp>());
      if (spaces.size() != 1 || spaces[0].getExtents().size() != 1)
        continue;
      ExecutionGroupOp group = soleExecutionGroup(spaces[0], /*finalization=*/false);
      if (!group)
        continue;
      bool remarks = remarksEnabled(kernel);
      std::string why;
      unsigned axes = 0;
      FailureOr<unsigned> axis = sharedAxis(spaces[0], group, axes, why);
      if (failed(axis)) {
        if (remarks)
          group.emitRemark() << "pgpu-order-program-axes: order kept: " << why;
        continue;
      }
      if (remarks)
        group.emitRemark() << "pgpu-order-program-axes: axis '"
                           << cast<StringAttr>(group.getRoles()[*axis]).getValue()
                           << "' runs innermost: its programs read the same loop tiles, now adjacent in launch order";
      reorder(group, *axis, axes);
    }
  }

  /// Moves group axis `axis` to position `axes - 1` (the others in their order, a fold_split after).
  static void reorder(ExecutionGroupOp group, unsigned axis, unsigned axes) {
    Block &body = group.getBody().front();
    unsigned n = body.getNumArguments();
    SmallVector<unsigned> order;
    for (unsigned i = 0; i < axes; ++i)
      if (i != axis)
        order.push_back(i);
    order.push_back(axis);
    for (unsigned i = axes; i < n; ++i)
      order.push_back(i);
    SmallVector<Value> extents;
    SmallVector<Attribute> roles;
    for (unsigned i : order) {
      extents.push_back(group.getExtents()[i]);
      roles.push_back(group.getRoles()[i]);
    }
    group.getExtentsMutable().assign(extents);
    group.setRolesAttr(ArrayAttr::get(group.getContext(), roles));
    for (unsigned i : order) {
      BlockArgument old = body.getArgument(i);
      old.replaceAllUsesWith(body.addArgument(old.getType(), old.getLoc()));
    }
    body.eraseArguments(0, n);
  }
};
} // namespace
