//===- PairBlocks.cpp - a group axis's coordinates paired across programs --===//
//
// seed 002 §3.2 (rewrite the program space: the ownership of each program
// instance), §3.5 (predicate range narrowing: per-block effective ranges).
//
// After pgpu-narrow-fold-ranges a blocked region fold may range over an
// interval that depends on a coordinate of its group: with a causal mask,
// query block j folds about j + 1 key tiles, so the programs of one launch
// carry triangular work. On a launch of a few waves the hardware cannot
// balance that: the last wave is the diagonal's longest programs, while the
// short ones idle their multiprocessors (B=1 H=4 S=T=4099 D=96: 260 programs
// on 132 multiprocessors). Construction already walks the blocks longest
// first; pairing goes further: program j of the axis runs coordinate j and
// then N - 1 - j (once when they coincide), so every program carries about
// the same work and the axis has ceil(N / 2) programs. On the H200 a hand
// edit of exactly this form ran that launch in 0.0902 ms against 0.1122 ms
// (session 11, run 2; session 9 measured +12%).
//
// Legality is the parallel space's: a kir.parallel's members may run in any
// order and any program, and each coordinate still runs exactly once. The
// body is cloned under the pair loop with the coordinate remapped, so what
// it derives from its coordinates (the lane base, a split fold's point and
// tickets) follows the remapped coordinate.
//
// The decision is the declared parameter PAIR_BLOCKS, the coordinates a
// program runs ([1, 2], default 1): the axis extent becomes PAIR_BLOCKS = 2 ?
// ceil(N / 2) : N, and the body pgpu.if PAIR_BLOCKS != 1 (a launch fact: one
// variant compiles) over the pair loop, else the original body. A call's default (the wrapper) turns it on
// where the launch is a few waves of programs.
//
// Fires on a program space with one execution group holding blocked region
// folds whose bounds depend on exactly one group coordinate (other than a
// `fold_split` segment), arithmetically; must not fire when no fold range
// depends on a coordinate (full attention), when the ranges depend on it only
// through values read from memory (a per-sequence length: no order along the
// axis for pairing to balance), when several coordinates do, when the body
// reads the linear program index, or when it holds a pgpu.while (a wait on
// another program instance could then wait on the program itself).
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "GroupCoordinates.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUPAIRBLOCKS
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;
using namespace tessel::pgpu::build;

namespace {
constexpr llvm::StringLiteral kPairParam = "PAIR_BLOCKS";


/// The coordinate to pair, or why there is none.
FailureOr<unsigned> pairedAxis(ProgramSpaceOp space, ExecutionGroupOp group, std::string &why) {
  auto linear = dyn_cast<BlockArgument>(group.getLinear());
  if (!linear || linear.getOwner()->getParentOp() != space || !linear.hasOneUse()) {
    why = "the program index is read other than by the group's decoding";
    return failure();
  }
  bool waits = false;
  group.walk([&](WhileOp) { waits = true; });
  if (waits) {
    why = "the group holds a pgpu.while (a wait on another program instance)";
    return failure();
  }
  Block &body = group.getBody().front();
  llvm::SmallBitVector axes(body.getNumArguments()), arithmetic(body.getNumArguments());
  group.walk([&](RegionFoldOp fold) {
    APInt step;
    if (matchPattern(fold.getStep(), m_ConstantInt(&step)) && step.isOne())
      return; // unit segments: not a blocked fold
    for (Value bound : {fold.getLower(), fold.getUpper()}) {
      axes |= coordinatesOf(bound, body);
      arithmetic |= coordinatesOf(bound, body, /*throughReads=*/false);
    }
  });
  ArrayAttr roles = group.getRoles();
  SmallVector<unsigned> candidates;
  for (unsigned a : axes.set_bits())
    if (a < roles.size() && cast<StringAttr>(roles[a]).getValue() != "fold_split")
      candidates.push_back(a);
  if (candidates.size() != 1) {
    why = candidates.empty() ? "no blocked fold's range depends on a coordinate of the group"
                             : "fold ranges depend on several coordinates of the group";
    return failure();
  }
  // Only an arithmetic dependence makes j and N-1-j balance (a causal range grows with j); a range
  // read from memory at the coordinate (a sequence's length, prefix_len[b]) has no order along it,
  // so pairing would only halve the programs.
  if (!arithmetic.test(candidates.front())) {
    why = "fold ranges depend on the coordinate only through values read from memory (no order to balance)";
    return failure();
  }
  return candidates.front();
}

struct PairBlocks : public tessel::pgpu::impl::PGPUPairBlocksBase<PairBlocks> {
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
      FailureOr<unsigned> axis = pairedAxis(spaces[0], group, why);
      if (failed(axis)) {
        if (remarks)
          group.emitRemark() << "pgpu-pair-blocks: not paired: " << why;
        continue;
      }
      if (remarks)
        group.emitRemark() << "pgpu-pair-blocks: fold ranges narrow along axis '"
                           << cast<StringAttr>(group.getRoles()[*axis]).getValue() << "': with " << kPairParam
                           << " = 2 a program runs its coordinates j and N-1-j (ceil(N/2) programs of equal work)";
      pair(kernel, spaces[0], group, *axis);
    }
  }

  void pair(KernelOp kernel, ProgramSpaceOp space, ExecutionGroupOp group, unsigned axis) {
    MLIRContext *ctx = kernel.getContext();
    Location loc = group.getLoc();
    OpBuilder b(space);
    IRMapping hoisted;
    SmallVector<Value> extents;
    for (Value e : group.getExtents())
      extents.push_back(hoistLaunchValue(b, space, e, hoisted));
    Value n = extents[axis];
    Value param = ParamOp::create(b, loc, b.getIndexType(), kPairParam);
    Value on = cmp(b, loc, kir::CmpPredicate::NE, param, index(b, loc, 1));
    Value half = CeilDivOp::create(b, loc, n, index(b, loc, 2)).getResult();
    extents[axis] = SelectOp::create(b, loc, on, half, n).getResult();
    Value total = extents.front();
    for (Value e : ArrayRef<Value>(extents).drop_front())
      total = bin(b, loc, kir::BinaryKind::Mul, total, e);
    space->setOperand(0, total);
    group.getExtentsMutable().assign(extents);
    declareParam(kernel, ParamAttr::get(ctx, StringAttr::get(ctx, kPairParam), {1, 2}, 1, StringAttr()));

    Block &body = group.getBody().front();
    SmallVector<Operation *> ops;
    for (Operation &op : body.without_terminator())
      ops.push_back(&op);
    Value j = body.getArgument(axis);
    OpBuilder at(&body, body.begin());
    auto choice = IfOp::create(at, loc, TypeRange{}, on);
    Block *unpaired = at.createBlock(&choice.getElseRegion());
    YieldOp::create(at, loc);
    at.createBlock(&choice.getThenRegion());
    // for k in [0, 2): coordinate j + k * (N - 1 - 2j), run when k = 0 or it differs from j.
    auto loop = ForOp::create(at, loc, TypeRange{}, index(at, loc, 0), index(at, loc, 2), index(at, loc, 1),
                              ValueRange{});
    YieldOp::create(at, loc);
    Value k = at.createBlock(&loop.getBody())->addArgument(at.getIndexType(), loc);
    Value span = bin(at, loc, kir::BinaryKind::Sub, bin(at, loc, kir::BinaryKind::Sub, n, index(at, loc, 1)),
                     bin(at, loc, kir::BinaryKind::Mul, j, index(at, loc, 2)));
    Value coordinate = bin(at, loc, kir::BinaryKind::Add, j, bin(at, loc, kir::BinaryKind::Mul, k, span));
    Value go = bin(at, loc, kir::BinaryKind::Or, cmp(at, loc, kir::CmpPredicate::EQ, k, index(at, loc, 0)),
                   cmp(at, loc, kir::CmpPredicate::NE, coordinate, j));
    auto run = IfOp::create(at, loc, TypeRange{}, go);
    YieldOp::create(at, loc);
    at.createBlock(&run.getThenRegion());
    IRMapping map;
    map.map(j, coordinate);
    for (Operation *op : ops)
      at.clone(*op, map);
    YieldOp::create(at, loc);
    for (Operation *op : ops)
      op->moveBefore(unpaired->getTerminator());
  }
};
} // namespace
