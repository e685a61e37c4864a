//===- SplitContractions.cpp - a tiled contraction's K loop across programs -===//
//
// seed 002 §3.2 (rewrite the program space: the ownership of each program
// instance), §3.4 (realizing a reduction), §7 (decisions from facts), seed 000
// §4.4 (invocation workspace; acq_rel tickets).
//
// pgpu-form-tiles gives each output tile of a contraction one program (or one
// step of the persistent tile walk) that walks the whole reduced axis in
// TILE_K steps. When the output has few tiles and the reduced axis is long (a
// Gram matrix X^T X of a tall X, a weight gradient dW = X^T dY, a small GEMM
// with a huge K) most multiprocessors idle while a few programs walk
// millions of rows. The K loop is a sum: each step adds its products to the
// accumulator (acc_{i+1} = acc_i + A_i B_i from a zero tile), so its steps can
// be cut into SPLIT_KS contiguous chunks, each summed from zero by its own
// program, and the chunks' partial tiles added afterwards:
//
//   * the group gains a trailing (fastest) axis `split_k` of SPLIT_KS =
//     max(min(SPLIT_K, steps), 1) members (steps = ceil(max(U - L, 0) / step));
//   * chunk c's program runs the K loop over [L + c * chunk, L + (c + 1) *
//     chunk) ∩ [L, U) (chunk = ceil(steps / SPLIT_KS) steps: the loop's own
//     step boundaries, so every step's masks and loads are the unsplit
//     loop's; an empty chunk yields the zero tile) and stores its partial
//     tiles at [point, c] of workspace [SPLIT_K_POINTS, SPLIT_K_SPLITS, ...]
//     (SPLIT_K > 1 over fewer steps: as many chunks as steps, one at least);
//   * the point's last arrival (`pgpu.last_program %tickets[point] arrivals
//     SPLIT_KS`, acq_rel: every chunk's partial is visible there) adds the
//     partials in chunk order from the zero tile and runs the loop's uses
//     (the epilogue and its stores) on the sums.
//
// The last-arrival merge in chunk order, not atomic adds into the output: the
// result is the same bits on every run at one binding (seed 002 §4: a
// reduction may be regrouped, as any tiled contraction's K order already is,
// but an order that changes between runs is not the kernel's contract; the
// atomic form is the explicit one of examples/splitk_gemm.py). SPLIT_K = 1
// keeps the original loop and epilogue (a pgpu.if on the parameter) and an
// empty workspace, and SPLIT_KS is spelled `SPLIT_K != 1 ? max(min(SPLIT_K,
// steps), 1) : 1`, a constant 1 there that the provider's compiler folds (the
// axis coordinate, the chunk-0 guard, the program count). Effects before the
// loop run in chunk 0 only.
//
// The decision is the declared parameter SPLIT_K ([1, 2, ..., 64], default
// 1); a call's default splits where the output tiles are fewer than the
// multiprocessors and the reduced axis has many steps (python/tessel/_kernel.py,
// `_split_k`).
//
// Fires on a program space whose one execution group (the space's body, or
// the body of its persistent tile walk `pgpu.for %pid to TOTAL step
// PROGRAMS`) has in its body block one pgpu.for with launch-uniform bounds
// whose every carried value is a numeric fragment starting at a zero splat,
// used once, as the accumulator of a pgpu.contract whose result the loop
// yields in its place (a Gram matrix X^T X or a GEMM of two views: the
// Triton provider's staged-store, pipeline-depth and precision analyses read
// the branch SPLIT_K's binding takes, triton::untakenAt), with a body that
// writes no memory; the ops before the
// loop in the group hold no regions, the ops after it no loop over its range
// (the last arrival would walk the reduced axis alone), and the loop's results
// are used only by the ops after it in the group's block. Must not fire otherwise, nor when
// the group's point count is a constant that fills the target's
// multiprocessors.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUSPLITCONTRACTIONS
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;
using namespace tessel::pgpu::build;

namespace {
constexpr llvm::StringLiteral kParam = "SPLIT_K";
constexpr llvm::StringLiteral kPointsSymbol = "SPLIT_K_POINTS", kSplitsSymbol = "SPLIT_K_SPLITS";

struct Plan {
  ProgramSpaceOp space;
  ForOp walk; // the persistent tile walk around the group, or null
  ExecutionGroupOp group;
  ForOp loop; // the K loop
  SmallVector<Operation *> tail;    // the ops after the loop in the group's block
  SmallVector<Operation *> effects; // ops before the loop that write memory
};

/// Whether `v` is a splat of a constant zero.
bool zeroSplat(Value v) {
  auto splat = v.getDefiningOp<SplatOp>();
  if (!splat)
    return false;
  FloatAttr f;
  IntegerAttr i;
  return (matchPattern(splat.getOperand(), m_Constant(&f)) && f.getValue().isZero()) ||
         (matchPattern(splat.getOperand(), m_Constant(&i)) && i.getValue().isZero());
}

/// Why `loop` is not a K loop whose steps sum into its carried values, or nullopt.
std::optional<std::string> loopIssue(ForOp loop) {
  for (Value v : {loop.getLower(), loop.getUpper(), loop.getStep()})
    if (!isLaunchExpr(v))
      return std::string("its bounds are not launch-uniform");
  if (loop.getInits().empty())
    return std::string("it carries no accumulator");
  Block &body = loop.getBody().front();
  auto yield = cast<YieldOp>(body.getTerminator());
  for (auto [k, init] : llvm::enumerate(loop.getInits())) {
    auto type = dyn_cast<FragmentType>(init.getType());
    if (!type || type.getElementType().isIndex() || type.getElementType().isInteger(1))
      return std::string("a carried value is not a numeric fragment");
    if (!zeroSplat(init))
      return std::string("a carried value does not start at a zero tile");
    Value arg = body.getArgument(1 + k);
    if (!arg.hasOneUse())
      return std::string("a carried value is read other than as a contraction's accumulator");
    auto contract = dyn_cast<ContractOp>(*arg.getUsers().begin());
    if (!contract || contract.getAcc() != arg || yield.getOperand(k) != contract.getResult() ||
        !contract.getResult().hasOneUse())
      return std::string("a carried value is not the accumulator of a contraction the loop yields");
  }
  if (writesMemory(loop))
    return std::string("its body writes memory");
  return std::nullopt;
}

/// Why `space` has no K loop to split, or nullopt with `plan` filled.
std::optional<std::string> analyze(KernelOp kernel, ProgramSpaceOp space, Plan &plan) {
  if (space.getExtents().size() != 1)
    return std::string("the program space is not one-dimensional");
  Block &body = space.getBody().front();
  ExecutionGroupOp group;
  ForOp walk;
  for (Operation &op : body.without_terminator()) {
    if (auto g = dyn_cast<ExecutionGroupOp>(op)) {
      if (group || walk)
        return std::string("the program space has several execution groups");
      group = g;
      continue;
    }
    if (auto f = dyn_cast<ForOp>(op); f && !f.getNumResults() && f.getLower() == body.getArgument(0) &&
                                      f.getStep() == space.getExtents()[0]) {
      if (group || walk)
        return std::string("the program space has several execution groups");
      walk = f;
      continue;
    }
    if (!op.hasTrait<OpTrait::ConstantLike>() && !isMemoryEffectFree(&op))
      return std::string("the program space does more than dispatch one execution group");
  }
  if (walk) {
    Block &inner = walk.getBody().front();
    for (Operation &op : inner.without_terminator())
      if (auto g = dyn_cast<ExecutionGroupOp>(op); g && !group)
        group = g;
      else if (!op.hasTrait<OpTrait::ConstantLike>() && !isMemoryEffectFree(&op))
        return std::string("the tile walk does more than dispatch one execution group");
    if (!group || group.getLinear() != inner.getArgument(0) || group.getExtents().size() != 1 ||
        !sameLaunchValue(walk.getUpper(), group.getExtents()[0]) || !isLaunchExpr(walk.getUpper()))
      return std::string("the tile walk is not over one execution group's points");
  } else if (!group || group.getLinear() != body.getArgument(0) || group.getExtents().size() != 1 ||
             group.getExtents()[0] != space.getExtents()[0]) {
    return std::string("the program space is not one execution group's points");
  }
  plan.space = space;
  plan.walk = walk;
  plan.group = group;
  Block &block = group.getBody().front();
  if (block.getTerminator()->getNumOperands())
    return std::string("the group yields values");
  std::optional<std::string> why;
  for (Operation &op : block.without_terminator()) {
    auto loop = dyn_cast<ForOp>(op);
    if (!loop) {
      if (op.getNumRegions())
        return std::string("the group runs a region op ('") + op.getName().getStringRef().str() +
               "') before its K loop: every chunk's program would repeat it";
      if (writesMemory(&op))
        plan.effects.push_back(&op);
      continue;
    }
    if ((why = loopIssue(loop)))
      return std::string("its loop is not a K loop summing into its accumulators: ") + *why;
    plan.loop = loop;
    break;
  }
  if (!plan.loop)
    return std::string("the group has no K loop");
  for (Operation *op = plan.loop->getNextNode(); op && !op->hasTrait<OpTrait::IsTerminator>(); op = op->getNextNode())
    plan.tail.push_back(op);
  // A loop after the K loop over the same range (an operand's row norms beside the product, which
  // pgpu-fuse-sibling-loops carries in the K loop) would run in the last arrival alone: a walk of the
  // whole reduced axis left in one program, reading the operands again (seed 002 §7: decided from
  // facts; the split's gain is the K walk spread over programs).
  for (Operation *op : plan.tail) {
    bool walksAgain = false;
    op->walk([&](ForOp f) {
      walksAgain |= sameLaunchValue(f.getLower(), plan.loop.getLower()) &&
                    sameLaunchValue(f.getUpper(), plan.loop.getUpper()) &&
                    sameLaunchValue(f.getStep(), plan.loop.getStep());
    });
    if (walksAgain)
      return std::string("a loop after the K loop walks its range again: the tile's last arrival would walk "
                         "the whole reduced axis alone");
  }
  for (Value r : plan.loop.getResults())
    for (Operation *user : r.getUsers()) {
      Operation *at = block.findAncestorOpInBlock(*user);
      if (!at || at->hasTrait<OpTrait::IsTerminator>())
        return std::string("an accumulator is used outside the ops after the loop");
    }
  for (Operation *op : plan.effects)
    if (op->getNumResults())
      return std::string("an effect before the loop has results: it cannot run in one chunk only");
  for (StringRef symbol : {kPointsSymbol, kSplitsSymbol})
    if (workspaceExtent(kernel, symbol))
      return std::string("the kernel already binds workspace extent '") + symbol.str() + "'";
  if (kernel.getParam(kParam))
    return std::string("the kernel already declares ") + kParam.str();
  APInt points;
  if (auto target = kernel->getParentOfType<ModuleOp>()->getAttrOfType<TargetAttr>(PGPUDialect::getTargetAttrName()))
    if (matchPattern(group.getExtents()[0], m_ConstantInt(&points)) && target.getMultiprocessors() > 0 &&
        points.getSExtValue() >= target.getMultiprocessors())
      return std::string("the group has ") + std::to_string(points.getSExtValue()) +
             " programs, at least the target's multiprocessors: it fills the machine already";
  return std::nullopt;
}

void split(KernelOp kernel, Plan &plan) {
  MLIRContext *ctx = kernel.getContext();
  ForOp loop = plan.loop;
  Location loc = loop.getLoc();
  ProgramSpaceOp space = plan.space;
  ExecutionGroupOp group = plan.group;
  OpBuilder b(space);
  IRMapping map;
  // steps = ceil(max(U - L, 0) / step); SPLIT_KS = max(min(SPLIT_K, steps), 1).
  LaunchSplits cut = launchSplits(b, space, loc, loop.getLower(), loop.getUpper(), loop.getStep(), kParam, map);
  Value lower = cut.lower, upper = cut.upper, step = cut.step, zero = cut.zero, one = cut.one;
  Value steps = cut.steps, param = cut.param;
  // The branch follows the parameter alone (a constant where the call binds it): SPLIT_K = 1 leaves
  // the original loop, and the split branch is dead code a provider drops (Triton: a constexpr if).
  // SPLIT_K > 1 over one step splits into one chunk (correct, through the workspace).
  Value on = cmp(b, loc, kir::CmpPredicate::NE, param, one);
  // SPLIT_KS, spelled as a choice on the parameter alone: 1 where SPLIT_K = 1 (as max(min(1, steps), 1)
  // is), a constant a provider's compiler folds there (Triton: `tl.where(False, ..., 1)`), so the
  // trailing axis's coordinate, the chunk-0 guard and the grown program count fold to the unsplit
  // program's.
  Value splits = SelectOp::create(b, loc, on, cut.splits, one).getResult();
  Value points = hoistLaunchValue(b, space, group.getExtents()[0], map);
  // The partials' workspace is empty when the loop is not split.
  WorkspaceExtentOp::create(b, loc, kPointsSymbol, SelectOp::create(b, loc, on, points, zero).getResult());
  WorkspaceExtentOp::create(b, loc, kSplitsSymbol, splits);
  Value grown = bin(b, loc, kir::BinaryKind::Mul, points, splits);
  if (plan.walk) {
    // The persistent walk covers points * SPLIT_KS; its program count min(TOTAL, P) becomes
    // min(TOTAL * SPLIT_KS, P) where it is that minimum, else TOTAL * SPLIT_KS programs.
    Value programs = space.getExtents()[0];
    auto min = programs.getDefiningOp<BinaryOp>();
    Value count = grown;
    Value total = plan.walk.getUpper();
    if (min && min.getKind() == kir::BinaryKind::Min &&
        (sameLaunchValue(min.getLhs(), total) || sameLaunchValue(min.getRhs(), total))) {
      Value other = sameLaunchValue(min.getLhs(), total) ? min.getRhs() : min.getLhs();
      count = bin(b, loc, kir::BinaryKind::Min, grown, hoistLaunchValue(b, space, other, map));
    }
    space->setOperand(0, count);
    plan.walk->setOperand(1, grown);
    plan.walk->setOperand(2, count);
  } else {
    space->setOperand(0, grown);
  }
  SmallVector<Value> extents(group.getExtents());
  extents.push_back(splits);
  group.getExtentsMutable().assign(extents);
  SmallVector<Attribute> roles(group.getRoles().begin(), group.getRoles().end());
  roles.push_back(StringAttr::get(ctx, "split_k"));
  group.setRolesAttr(ArrayAttr::get(ctx, roles));
  Block &body = group.getBody().front();
  Value point = body.getArgument(0);
  Value seg = body.addArgument(b.getIndexType(), loc);
  declareParam(kernel, ParamAttr::get(ctx, StringAttr::get(ctx, kParam), {1, 2, 4, 8, 16, 32, 64}, 1, StringAttr()));
  Attribute pointsAttr = StringAttr::get(ctx, kPointsSymbol), splitsAttr = StringAttr::get(ctx, kSplitsSymbol);
  Value tickets = addWorkspace(kernel, loc, b.getI32Type(), {pointsAttr}, b.getI32IntegerAttr(0));
  if (!plan.effects.empty()) {
    OpBuilder at(&body, body.begin());
    Value firstSeg = cmp(at, loc, kir::CmpPredicate::EQ, seg, index(at, loc, 0));
    for (Operation *op : plan.effects)
      guardEffect(op, firstSeg);
  }

  b.setInsertionPoint(loop);
  auto choice = IfOp::create(b, loc, TypeRange{}, on);
  // Not split: the original loop and its uses, in the axis's one program (chunk 0: the split axis
  // then has one member, which the shared verifier's write-conflict check sees through the guard).
  b.createBlock(&choice.getElseRegion());
  auto only = IfOp::create(b, loc, TypeRange{}, cmp(b, loc, kir::CmpPredicate::EQ, seg, index(b, loc, 0)));
  YieldOp::create(b, loc);
  Block *original = b.createBlock(&only.getThenRegion());
  YieldOp::create(b, loc);
  // Split: this chunk's steps, its partials to workspace, the last arrival's sums and uses.
  b.createBlock(&choice.getThenRegion());
  Value chunk = bin(b, loc, kir::BinaryKind::Mul, CeilDivOp::create(b, loc, steps, splits).getResult(), step);
  Value begin = bin(b, loc, kir::BinaryKind::Min,
                    bin(b, loc, kir::BinaryKind::Add, lower, bin(b, loc, kir::BinaryKind::Mul, seg, chunk)), upper);
  Value end = bin(b, loc, kir::BinaryKind::Min, bin(b, loc, kir::BinaryKind::Add, begin, chunk), upper);
  auto part = cast<ForOp>(b.clone(*loop.getOperation()));
  part->setOperand(0, begin);
  part->setOperand(1, end);
  Value yes = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
  SmallVector<Value> buffers;
  for (Value v : part.getResults()) {
    SmallVector<Attribute> shape{pointsAttr, splitsAttr};
    llvm::append_range(shape, cast<FragmentType>(v.getType()).getExtents());
    buffers.push_back(addWorkspace(kernel, loc, elementTypeOf(v.getType()), shape, TypedAttr()));
    BufferStoreOp::create(b, loc, v, buffers.back(), componentCoords(b, loc, {point, seg}, v.getType()), yes);
  }
  auto last = LastProgramOp::create(b, loc, tickets, ValueRange{point}, splits);
  YieldOp::create(b, loc);
  b.createBlock(&last.getBody());
  // The chunks' partials added in chunk order, from the zero tiles the loop starts at.
  SmallVector<Value> inits;
  for (Value init : loop.getInits())
    inits.push_back(b.clone(*init.getDefiningOp())->getResult(0));
  auto sum = ForOp::create(b, loc, TypeRange(ValueRange(inits)), index(b, loc, 0), splits, index(b, loc, 1), inits);
  {
    OpBuilder::InsertionGuard guard(b);
    Block *each = b.createBlock(&sum.getBody());
    Value c = each->addArgument(b.getIndexType(), loc);
    SmallVector<Value> next;
    for (auto [k, init] : llvm::enumerate(inits)) {
      Value acc = each->addArgument(init.getType(), loc);
      Type element = elementTypeOf(init.getType());
      Value fill = isa<FloatType>(element) ? Value(arith::ConstantOp::create(b, loc, FloatAttr::get(element, 0.0)))
                                           : Value(arith::ConstantOp::create(b, loc, IntegerAttr::get(element, 0)));
      Value loaded = BufferLoadOp::create(b, loc, init.getType(), buffers[k],
                                          componentCoords(b, loc, {point, c}, init.getType()), yes, fill);
      next.push_back(bin(b, loc, kir::BinaryKind::Add, acc, loaded));
    }
    YieldOp::create(b, loc, next);
  }
  IRMapping uses;
  for (auto [r, s] : llvm::zip(loop.getResults(), sum.getResults()))
    uses.map(r, s);
  for (Operation *op : plan.tail)
    b.clone(*op, uses);
  YieldOp::create(b, loc);
  loop->moveBefore(original->getTerminator());
  for (Operation *op : plan.tail)
    op->moveBefore(original->getTerminator());
}

struct SplitContractions : public tessel::pgpu::impl::PGPUSplitContractionsBase<SplitContractions> {
  void runOnOperation() override {
    for (KernelOp kernel : getOperation().getOps<KernelOp>()) {
      SmallVector<ProgramSpaceOp> spaces(kernel.getBody().getOps<ProgramSpaceOp>());
      if (spaces.size() != 1)
        continue;
      bool contracts = false;
      spaces[0].walk([&](ContractOp) { contracts = true; });
      if (!contracts)
        continue;
      Plan plan;
      std::optional<std::string> why = analyze(kernel, spaces[0], plan);
      if (remarksEnabled(kernel)) {
        Operation *at = plan.loop ? plan.loop.getOperation() : spaces[0].getOperation();
        if (why)
          at->emitRemark() << "pgpu-split-contractions: not split: " << *why;
        else
          at->emitRemark() << "pgpu-split-contractions: the K loop's steps are cut into " << kParam
                           << " contiguous chunks, one program each (a trailing program axis); each stores its "
                              "partial tiles to workspace ["
                           << kPointsSymbol << ", " << kSplitsSymbol
                           << ", ...] and the tile's last arrival adds them in chunk order, then runs the "
                              "epilogue";
      }
      if (!why)
        split(kernel, plan);
    }
  }
};
} // namespace
