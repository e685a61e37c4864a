//===- StageOperands.cpp - a GEMM's computed operand staged once in a first phase --===//
//
// seed 002 §3.2 (rewrite the program space: the ownership of each program
// instance), §3.4 (co-realization: a value computed once and kept in
// workspace instead of recomputed per use), seed 000 §4.4 (invocation
// workspace; acq_rel tickets).
//
// A tiled contraction whose row operand is computed in its K loop from loaded
// inputs (a gated activation silu(g) * u, a row-normalized x * rstd * g)
// recomputes that operand for every tile of the other operand's free axis:
// ceil(N / TILE_1) times, with its special functions and the row statistics
// it reads. Here the operand is computed once, in a first phase, and the
// contraction reads it back:
//
//   * the program space gains STAGE_PROGRAMS = MT * KC programs before the
//     persistent walk's (MT = ceil(M / TILE_0) row tiles, KC chunks of the K
//     loop per row tile: 1 where the operand reads row statistics computed by
//     loops before the K loop, so they are computed once per row tile; else
//     enough chunks for two programs a multiprocessor);
//   * program q < STAGE_PROGRAMS computes the operand's tiles of row tile
//     q / KC over its chunk of K (the row tile's statistics first), stores
//     them to workspace [STAGED_ROWS, STAGED_COLS] and counts itself (release);
//   * the walk's programs wait until the count is STAGE_PROGRAMS (acquire;
//     every program waited for precedes them in linear order, and a program
//     space that waits starts its instances in linear order, as pgpu-chain-
//     scans and pgpu-split-folds rely on), then run the tiled contraction with
//     the operand loaded from workspace (a plain GEMM; the recomputing K loop
//     stays beside it under the launch-uniform choice, its row statistics
//     moved into that branch); the last of them to pass returns the counts to 0.
//
// Cost rule (launch-uniform): staged when OPERAND_PHASES = 2 (the declared
// parameter) and the reuse factor T / MT = ceil(N / TILE_1) is at least 2:
// the extra bytes are one write and one read of the operand (4 bytes an
// element in 16 bits) against N / TILE_1 - 1 recomputations, each reading the
// operand's inputs and computing its arithmetic. Otherwise the original walk
// runs (its program count unchanged, the workspace empty). The declared
// default is 2 where the operand's in-loop arithmetic has a special function
// or a division (silu(g) * u: 0.27x -> 0.62x torch.compile, H100), else 1: a
// few multiplies of a loaded tile by row and column vectors recompute for
// less than the staging phase, its wait and the workspace round trip cost
// (x * rstd * g: 0.86 ms recomputed, 1.09 ms staged, H100, session 40); the
// tuner may still choose either.
//
// A chained product's operand (gelu(x @ W1 + b1) feeding @ W2: an inner K
// loop with its contraction in the outer K loop) recomputes a whole GEMM tile
// per tile of N: 2 K FLOPs an element each time. It is staged (default 2)
// where (reuse - 1) * 2 K FLOPs reach kFlopsPerByte times the workspace round
// trip, (reuse + 1) element bytes, and not at all where K is a constant too
// short for any reuse to pay (seed 002 §3.4: materialize when recomputation
// costs more than the buffer).
//
// The operand's values are the same bits (the same ops on the same inputs),
// so this needs no numerical permission.
//
// A batched product (`x[b, rows, k]`: a group coordinate the operand reads
// besides its row iota, one the iota's start does not read) stages each batch
// point's operand on its own: the first phase runs over P * MT row tiles (P
// the points), point-major, and a point's rows are a block of the workspace
// (rows b * M + r), which the walk reads at its own coordinate's block (the
// Gram product X X^T that a Muon Newton-Schulz step multiplies by X again).
//
// Fires on a kernel whose one program space is a persistent walk over one
// execution group holding one K loop with one contraction, whose lhs is a 2-d
// [rows, k] fragment reduced on axis 1 and computed in the loop by pure ops,
// view loads and contractions' K loops, with arithmetic beyond loads, casts,
// selects and broadcasts; whose dependence on the group's coordinate passes through one
// row iota compared against a launch-uniform row count (and batch coordinates of
// launch-uniform extent); with launch-uniform loop bounds. Must not fire on a plain GEMM (the lhs a masked load), on an
// operand depending on the other axis's tile, nor without a persistent walk.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "ArrivalCounters.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/RegionUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUSTAGEOPERANDS
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;
using namespace tessel::pgpu::build;

namespace {
constexpr llvm::StringLiteral kStageParam = "OPERAND_PHASES";
constexpr llvm::StringLiteral kRowsSymbol = "STAGED_ROWS", kColsSymbol = "STAGED_COLS";
/// The cost rule's exchange rate between a chained contraction's recomputed FLOPs and the staged
/// operand's workspace bytes: a quarter of a Hopper GPU's dense 16-bit tensor rate over its DRAM
/// bandwidth (989 TFLOP/s / 3.35 TB/s = 295 on an H100 SXM), as the recompute also rereads its own
/// operand tiles and the staged reads mostly hit L2.
constexpr int64_t kFlopsPerByte = 64;

struct Match {
  ProgramSpaceOp space;
  ForOp walk;
  ExecutionGroupOp group;
  ForOp kloop;
  ContractOp contract;
  IotaOp rowIota;
  Value rows; // the launch-uniform row count the row iota is compared against
  SmallVector<Operation *> loopSlice, bodySlice; // in block order
  bool rowLoops = false;                         // the body slice holds loops (row statistics)
  SmallVector<ForOp> chained; // K loops of contractions in the loop slice (the operand a product's tile)
  // The group coordinates the operand reads besides its row iota (a batched GEMM's batch: `x[b, rows, k]`),
  // in group order, with their launch-uniform extents: the operand is staged per batch point too.
  SmallVector<BlockArgument> batch;
  SmallVector<Value> batchExtents;
};

/// The block arguments of `block` that `values`, or the operands of `ops` (and the values their regions
/// use from above), are.
SmallVector<BlockArgument> argumentsUsed(Block &block, ArrayRef<Value> values, ArrayRef<Operation *> ops) {
  llvm::SmallSetVector<Value, 8> used(values.begin(), values.end());
  for (Operation *op : ops) {
    used.insert(op->getOperands().begin(), op->getOperands().end());
    SetVector<Value> above;
    for (Region &r : op->getRegions())
      getUsedValuesDefinedAbove(r, above);
    used.insert(above.begin(), above.end());
  }
  SmallVector<BlockArgument> args;
  for (BlockArgument a : block.getArguments())
    if (used.contains(a))
      args.push_back(a);
  return args;
}

/// Whether `v` is defined outside `space` (a launch value).
bool outside(Value v, ProgramSpaceOp space) {
  Region *r = v.getParentRegion();
  return !space->isAncestor(r->getParentOp()) && r->getParentOp() != space.getOperation();
}

/// The ops of `block` (top level) that `roots` depend on, in block order, through operands and the
/// values their regions use from above; stops at `stop`. False when a dependence leaves `block`
/// inside `space` other than through `allowed`.
bool sliceIn(Block &block, ArrayRef<Value> roots, Value stop, ArrayRef<Value> allowed, ProgramSpaceOp space,
             SmallVectorImpl<Operation *> &out, SmallVectorImpl<Value> &external) {
  llvm::SmallPtrSet<Operation *, 32> seen;
  bool closed = true;
  SmallVector<Value> work(roots);
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (v == stop || llvm::is_contained(allowed, v))
      continue;
    Operation *def = v.getDefiningOp();
    Block *owner = def ? def->getBlock() : cast<BlockArgument>(v).getOwner();
    if (owner != &block) {
      if (!outside(v, space) && !llvm::is_contained(external, v))
        external.push_back(v);
      continue;
    }
    if (!def) {
      closed = false; // a block argument of the block itself
      continue;
    }
    if (!seen.insert(def).second)
      continue;
    for (Value o : def->getOperands())
      work.push_back(o);
    SetVector<Value> above;
    for (Region &r : def->getRegions())
      getUsedValuesDefinedAbove(r, above);
    for (Value o : above)
      work.push_back(o);
  }
  for (Operation &op : block)
    if (seen.contains(&op))
      out.push_back(&op);
  return closed;
}

/// Whether `op` may be cloned into the first phase: no writes (loads and pure ops).
bool readsOrPure(Operation *op) {
  bool ok = true;
  op->walk([&](Operation *inner) {
    if (isa<LoadOp>(inner) || isMemoryEffectFree(inner) || inner->hasTrait<OpTrait::IsTerminator>())
      return;
    if (auto effects = dyn_cast<MemoryEffectOpInterface>(inner)) {
      SmallVector<MemoryEffects::EffectInstance> list;
      effects.getEffects(list);
      if (llvm::all_of(list, [](auto &e) { return isa<MemoryEffects::Read>(e.getEffect()); }))
        return;
    }
    if (inner->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return;
    ok = false;
  });
  return ok;
}

/// Whether `op` is a K loop of a contraction whose tiles feed the operand: a `pgpu.for` with launch
/// bounds holding a `pgpu.contract` directly, reading memory and writing none (x @ W1's K loop when the
/// operand is gelu(x @ W1 + b1)).
bool chainedKLoop(Operation *op, ProgramSpaceOp space) {
  auto loop = dyn_cast<ForOp>(op);
  if (!loop || !readsOrPure(op) || !outside(loop.getLower(), space) || !outside(loop.getUpper(), space))
    return false;
  return !loop.getBody().front().getOps<ContractOp>().empty();
}

/// Whether the slice computes more than its loads: float arithmetic beyond casts, selects, splats,
/// broadcasts and transposes (a plain GEMM's masked operand is not a prologue), or a contraction.
bool computes(ArrayRef<Operation *> slice, ArrayRef<ForOp> chained) {
  if (!chained.empty())
    return true;
  for (Operation *op : slice) {
    if (isa<LoadOp, CastOp, SelectOp, SplatOp, BroadcastOp, TransposeOp, IotaOp, CmpOp>(op) ||
        isa<arith::ConstantOp>(op) || !isMemoryEffectFree(op)) // reads (a gather of rows) compute nothing
      continue;
    for (Type t : op->getResultTypes())
      if (isa<FloatType>(elementTypeOf(t)))
        return true;
  }
  return false;
}

/// Whether the slice's arithmetic has a special function or a float division (its recomputation per
/// tile of the other axis costs more than a load): the OPERAND_PHASES default.
bool special(ArrayRef<Operation *> slice) {
  for (Operation *op : slice) {
    if (auto u = dyn_cast<UnaryOp>(op))
      switch (u.getKind()) {
      case kir::UnaryKind::Exp: case kir::UnaryKind::Exp2: case kir::UnaryKind::Log: case kir::UnaryKind::Log2:
      case kir::UnaryKind::Sqrt: case kir::UnaryKind::Rsqrt: case kir::UnaryKind::Sigmoid: case kir::UnaryKind::Tanh:
      case kir::UnaryKind::Sin: case kir::UnaryKind::Cos: case kir::UnaryKind::Erf: case kir::UnaryKind::Log1p:
      case kir::UnaryKind::Expm1:
        return true;
      default:
        break;
      }
    if (auto bop = dyn_cast<BinaryOp>(op))
      if ((bop.getKind() == kir::BinaryKind::Div || bop.getKind() == kir::BinaryKind::Pow) &&
          isa<FloatType>(elementTypeOf(bop.getType())))
        return true;
  }
  return false;
}

std::optional<std::string> analyze(KernelOp kernel, Match &m) {
  SmallVector<ProgramSpaceOp> spaces(kernel.getBody().getOps<ProgramSpaceOp>());
  if (spaces.size() != 1)
    return "not one program space";
  m.space = spaces[0];
  Block &top = m.space.getBody().front();
  if (m.space.getExtents().size() != 1 || top.getNumArguments() != 1 || top.getOperations().size() != 2)
    return "the program space is not one persistent walk";
  m.walk = dyn_cast<ForOp>(top.front());
  if (!m.walk || m.walk.getLower() != top.getArgument(0) || !m.walk.getInits().empty() ||
      !outside(m.walk.getUpper(), m.space) || m.walk.getStep() != m.space.getExtents()[0])
    return "the program space is not one persistent walk";
  Block &walkBody = m.walk.getBody().front();
  if (walkBody.getOperations().size() != 2 || !(m.group = dyn_cast<ExecutionGroupOp>(walkBody.front())))
    return "the walk is not over one execution group";
  Block &body = m.group.getBody().front();
  for (Operation &op : body)
    if (auto f = dyn_cast<ForOp>(op))
      for (Operation &inner : f.getBody().front())
        if (auto c = dyn_cast<ContractOp>(inner)) {
          if (m.contract)
            return "more than one contraction";
          m.kloop = f;
          m.contract = c;
        }
  if (!m.contract)
    return "no contraction in a K loop of the group";
  Block &kbody = m.kloop.getBody().front();
  if (m.kloop.getInits().size() != 1 || m.contract.getAcc() != kbody.getArgument(1))
    return "the K loop carries more than the contraction's accumulator";
  auto lhsType = dyn_cast<FragmentType>(m.contract.getLhs().getType());
  if (!lhsType || lhsType.getRank() != 2 || m.contract.getLhsReduce() != ArrayRef<int64_t>{1} ||
      !m.contract.getLhsBatch().empty())
    return "the row operand is not a [rows, k] tile reduced on k";
  for (Value v : {m.kloop.getLower(), m.kloop.getUpper()})
    if (!outside(v, m.space))
      return "the K loop's bounds are not launch values";
  Value step = m.kloop.getStep();
  if (!outside(step, m.space) &&
      (!step.getDefiningOp() || step.getDefiningOp()->getNumOperands() || !isa<ParamOp, arith::ConstantOp>(step.getDefiningOp())))
    return "the K loop's step is not a launch value";
  // The operand's ops in the loop body.
  SmallVector<Value> fromBody;
  if (!sliceIn(kbody, {m.contract.getLhs()}, Value(), {kbody.getArgument(0)}, m.space, m.loopSlice, fromBody))
    return "the row operand reads the loop's carry";
  for (Operation *op : m.loopSlice) {
    if (op->getNumRegions() && chainedKLoop(op, m.space)) {
      m.chained.push_back(cast<ForOp>(op));
      continue;
    }
    if (op->getNumRegions() || !readsOrPure(op))
      return "the row operand's computation in the loop has regions or effects";
  }
  // A contraction's tile recomputed per tile of the other axis costs 2 K FLOPs an element; staged, an
  // element is written once and read once per such tile. Where K is a constant too short for any reuse
  // to pay (see stagingPays), the operand stays in the loop.
  if (!m.chained.empty()) {
    int64_t k = 0;
    for (ForOp loop : m.chained) {
      std::optional<int64_t> lo = constantIndex(loop.getLower()), hi = constantIndex(loop.getUpper());
      if (!lo || !hi) {
        k = -1;
        break;
      }
      k += std::max<int64_t>(*hi - *lo, 0);
    }
    unsigned bytes = std::max<unsigned>(elementTypeOf(lhsType).getIntOrFloatBitWidth() / 8, 1);
    if (k >= 0 && 2 * k < kFlopsPerByte * int64_t(bytes))
      return "the chained contraction's K (" + std::to_string(k) +
             ") is too short: recomputing the operand costs less than its workspace round trip";
  }
  if (!computes(m.loopSlice, m.chained))
    return "the row operand is loaded, not computed: nothing to stage";
  for (Value v : fromBody)
    if (v.getParentBlock() != &body)
      return "the row operand reads values of the walk";
  // Its dependences before the loop: through one row iota of the operand's row extent.
  SmallVector<Operation *> all;
  SmallVector<Value> leaks;
  (void)sliceIn(body, fromBody, Value(), {}, m.space, all, leaks); // reaches the coordinate: finds the row iota
  for (Operation *op : all)
    if (auto iota = dyn_cast<IotaOp>(op))
      if (cast<FragmentType>(iota.getType()).getExtents() == ArrayRef<Attribute>{lhsType.getExtents()[0]}) {
        if (m.rowIota)
          return "the row operand reads two row iotas";
        m.rowIota = iota;
      }
  if (!m.rowIota)
    return "no row iota in the row operand's dependences";
  // The group coordinates the row iota's start is computed from (the tile's): the operand may read
  // the group's other coordinates (a batch), each a point the first phase stages on its own.
  SmallVector<Operation *> rowStart;
  leaks.clear();
  SmallVector<Value> groupArgs(body.getArguments().begin(), body.getArguments().end());
  (void)sliceIn(body, {m.rowIota.getBase()}, Value(), groupArgs, m.space, rowStart, leaks);
  SmallVector<BlockArgument> tileArgs = argumentsUsed(body, {m.rowIota.getBase()}, rowStart);
  leaks.clear();
  if (!sliceIn(body, fromBody, m.rowIota.getBase(), groupArgs, m.space, m.bodySlice, leaks) || !leaks.empty())
    return "the row operand depends on the group's coordinate other than through its row iota";
  for (BlockArgument a : argumentsUsed(body, fromBody, m.bodySlice)) {
    Value extent = m.group.getExtents()[a.getArgNumber()];
    if (llvm::is_contained(tileArgs, a) || !outside(extent, m.space))
      return "the row operand depends on the group's coordinate other than through its row iota";
    m.batch.push_back(a);
    m.batchExtents.push_back(extent);
  }
  for (Operation *op : m.bodySlice) {
    if (!readsOrPure(op))
      return "the row operand's dependences write memory";
    if (op->getNumRegions())
      m.rowLoops = true;
  }
  for (Operation *user : m.rowIota->getUsers())
    if (auto c = dyn_cast<CmpOp>(user))
      if (c.getPredicate() == kir::CmpPredicate::LT && c.getLhs() == m.rowIota.getResult())
        if (auto s = c.getRhs().getDefiningOp<SplatOp>())
          if (outside(s.getOperand(), m.space))
            m.rows = s.getOperand();
  if (!m.rows)
    return "the row iota is not compared against a launch-uniform row count";
  return std::nullopt;
}

/// The index value of a fragment extent: a parameter's read or a constant.
Value extentValue(OpBuilder &b, Location loc, Attribute extent) {
  if (auto s = dyn_cast<StringAttr>(extent))
    return ParamOp::create(b, loc, b.getIndexType(), s);
  return index(b, loc, cast<IntegerAttr>(extent).getInt());
}

/// The workspace coordinates and validity of the operand's tile at row iota `rowIota` and K step `k`:
/// rows below `rows`, and (unless null) columns below `cols`; the workspace rows start at `base` (the
/// batch point's first row; 0 without batch coordinates).
std::tuple<Value, Value, Value> tileCoords(OpBuilder &b, Location loc, FragmentType tile, Value rowIota, Value k,
                                           Value rows, Value cols, Value base) {
  MLIRContext *ctx = b.getContext();
  auto ext = tile.getExtents();
  Type idx = b.getIndexType(), i1 = b.getI1Type();
  auto kType = FragmentType::get(ctx, idx, {ext[1]});
  auto rowType = cast<FragmentType>(rowIota.getType());
  auto idx2 = FragmentType::get(ctx, idx, ext), bool2 = FragmentType::get(ctx, i1, ext);
  Value ks = IotaOp::create(b, loc, kType, k);
  Value rowOk = CmpOp::create(b, loc, kir::CmpPredicate::LT, rowIota, SplatOp::create(b, loc, rowType, rows));
  Value rowPos = rowIota;
  if (base)
    rowPos = bin(b, loc, kir::BinaryKind::Add, rowIota, SplatOp::create(b, loc, rowType, base));
  Value r2 = BroadcastOp::create(b, loc, idx2, rowPos, b.getDenseI64ArrayAttr({0}));
  Value k2 = BroadcastOp::create(b, loc, idx2, ks, b.getDenseI64ArrayAttr({1}));
  Value ok = BroadcastOp::create(b, loc, bool2, rowOk, b.getDenseI64ArrayAttr({0}));
  if (cols) {
    Value kOk = CmpOp::create(b, loc, kir::CmpPredicate::LT, ks, SplatOp::create(b, loc, kType, cols));
    ok = bin(b, loc, kir::BinaryKind::And, ok, BroadcastOp::create(b, loc, bool2, kOk, b.getDenseI64ArrayAttr({1})));
  }
  return {r2, k2, ok};
}

/// Erases the unused read-only ops of `block` and of the loops in it, last first.
void eraseDead(Block &block) {
  bool changed = true;
  while (changed) {
    changed = false;
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block))) {
      for (Region &r : op.getRegions())
        for (Block &inner : r)
          eraseDead(inner);
      if (!op.hasTrait<OpTrait::IsTerminator>() && op.use_empty() && readsOrPure(&op) &&
          !isa<LastProgramOp>(op) && (op.getNumResults() || isMemoryEffectFree(&op))) {
        op.erase();
        changed = true;
      }
    }
  }
}

void stage(KernelOp kernel, Match &m) {
  MLIRContext *ctx = kernel.getContext();
  Location loc = m.contract.getLoc();
  auto tile = cast<FragmentType>(m.contract.getLhs().getType());
  Type element = elementTypeOf(tile);
  OpBuilder b(m.space);
  Value zero = index(b, loc, 0), one = index(b, loc, 1);
  Value step = m.kloop.getStep();
  if (!outside(step, m.space))
    step = b.clone(*step.getDefiningOp())->getResult(0);
  Value lower = m.kloop.getLower(), cols = m.kloop.getUpper(), rows = m.rows;
  Value programs = m.space.getExtents()[0], tiles = m.walk.getUpper();
  Value rowExtent = extentValue(b, loc, tile.getExtents()[0]);
  Value rowTiles = CeilDivOp::create(b, loc, bin(b, loc, kir::BinaryKind::Max, rows, zero), rowExtent);
  // Batch points (the group's other coordinates the operand reads): each has its own rows of the
  // operand, stored one batch point after another; the first phase's row tiles are over all of them.
  Value points = one;
  for (Value e : m.batchExtents)
    points = bin(b, loc, kir::BinaryKind::Mul, points, bin(b, loc, kir::BinaryKind::Max, e, zero));
  Value pointTiles = bin(b, loc, kir::BinaryKind::Mul, points, rowTiles);
  Value kSteps = CeilDivOp::create(b, loc, bin(b, loc, kir::BinaryKind::Max,
                                               bin(b, loc, kir::BinaryKind::Sub, cols, lower), zero), step);
  // The reuse factor: the tiles of the other free axis each row tile has.
  Value reuse = bin(b, loc, kir::BinaryKind::Div, tiles, bin(b, loc, kir::BinaryKind::Max, pointTiles, one));
  declareParam(kernel, ParamAttr::get(ctx, StringAttr::get(ctx, kStageParam), {1, 2},
                                      special(m.loopSlice) || !m.chained.empty() ? 2 : 1, StringAttr()));
  Value on = bin(b, loc, kir::BinaryKind::And,
                 cmp(b, loc, kir::CmpPredicate::EQ, ParamOp::create(b, loc, b.getIndexType(), kStageParam), index(b, loc, 2)),
                 cmp(b, loc, kir::CmpPredicate::GE, reuse, index(b, loc, 2)));
  if (!m.chained.empty()) {
    // A chained contraction's tile: staged where its recomputation, (reuse - 1) * 2 K FLOPs an element,
    // costs more than the workspace traffic, (1 + reuse) element bytes (written once, read per tile of the
    // other axis), at kFlopsPerByte: at M=8192 D=1024 F=4096 in 128-wide D tiles, 7 * 2048 FLOPs against
    // 9 * 2 bytes; one D tile (reuse 1) or a short K recomputes.
    Value k = zero;
    for (ForOp loop : m.chained)
      k = bin(b, loc, kir::BinaryKind::Add, k,
              bin(b, loc, kir::BinaryKind::Max, bin(b, loc, kir::BinaryKind::Sub, loop.getUpper(), loop.getLower()), zero));
    int64_t bytes = std::max<int64_t>(element.getIntOrFloatBitWidth() / 8, 1);
    Value flops = bin(b, loc, kir::BinaryKind::Mul, bin(b, loc, kir::BinaryKind::Sub, reuse, one),
                      bin(b, loc, kir::BinaryKind::Mul, index(b, loc, 2), k));
    Value traffic = bin(b, loc, kir::BinaryKind::Mul, bin(b, loc, kir::BinaryKind::Add, reuse, one),
                        index(b, loc, kFlopsPerByte * bytes));
    on = bin(b, loc, kir::BinaryKind::And, on, cmp(b, loc, kir::CmpPredicate::GE, flops, traffic));
  }
  if (!m.batch.empty()) {
    // A batched operand is staged only where its workspace, one block of rows a batch point, holds no
    // more elements than the largest view the kernel reads or writes: a Gram product [B, M, M] of
    // x [B, M, N] with M <= N, not a head's [S, S] scores against its [S, D] rows (the staged launch
    // would allocate and move more than the kernel's own data; the scores stay recomputed per tile).
    Value largest = zero;
    for (BlockArgument a : kernel.getBody().front().getArguments())
      if (auto view = dyn_cast<ViewType>(a.getType())) {
        Value size = one;
        for (unsigned i = 0; i < view.getRank(); ++i)
          size = bin(b, loc, kir::BinaryKind::Mul, size, ExtentOp::create(b, loc, a, b.getI64IntegerAttr(i)));
        largest = bin(b, loc, kir::BinaryKind::Max, largest, size);
      }
    Value cells = bin(b, loc, kir::BinaryKind::Mul, bin(b, loc, kir::BinaryKind::Mul, points, rows),
                      bin(b, loc, kir::BinaryKind::Max, bin(b, loc, kir::BinaryKind::Sub, cols, lower), zero));
    on = bin(b, loc, kir::BinaryKind::And, on, cmp(b, loc, kir::CmpPredicate::LE, cells, largest));
  }
  // K chunks a row tile: one where row statistics are computed before the loop (once a row tile),
  // else enough for two programs a multiprocessor.
  int64_t sms = 132;
  if (auto target = kernel->getParentOfType<ModuleOp>()->getAttrOfType<TargetAttr>(PGPUDialect::getTargetAttrName()))
    if (target.getMultiprocessors() > 0)
      sms = target.getMultiprocessors();
  Value chunks = one;
  if (!m.rowLoops)
    chunks = bin(b, loc, kir::BinaryKind::Max,
                 bin(b, loc, kir::BinaryKind::Min,
                     CeilDivOp::create(b, loc, index(b, loc, 2 * sms), bin(b, loc, kir::BinaryKind::Max, pointTiles, one)),
                     kSteps),
                 one);
  Value first = bin(b, loc, kir::BinaryKind::Mul, pointTiles, chunks);
  Value chunk = bin(b, loc, kir::BinaryKind::Mul, CeilDivOp::create(b, loc, kSteps, chunks), step);
  Value stagedRows = m.batch.empty() ? rows : bin(b, loc, kir::BinaryKind::Mul, points, rows);
  WorkspaceExtentOp::create(b, loc, kRowsSymbol, SelectOp::create(b, loc, on, stagedRows, zero).getResult());
  // Rows padded to a multiple of the largest K tile (and of 64 elements): the first phase stores every
  // lane of its tiles (past K the operand's own values, which the other operand's zero fill cancels, as
  // in the loop it replaces), so the contraction's loads need no K mask and their rows start aligned (a
  // provider then copies them asynchronously: Triton's cp.async wants a mask constant along the row).
  int64_t align = 64;
  Attribute kExtent = tile.getExtents()[1];
  if (auto name = dyn_cast<StringAttr>(kExtent)) {
    if (ParamAttr p = kernel.getParam(name.getValue()))
      for (int64_t c : p.getCandidates())
        align = std::max(align, c);
  } else {
    align = std::max(align, cast<IntegerAttr>(kExtent).getInt());
  }
  Value pad = index(b, loc, align);
  Value padded = bin(b, loc, kir::BinaryKind::Mul, CeilDivOp::create(b, loc, cols, pad), pad);
  WorkspaceExtentOp::create(b, loc, kColsSymbol, padded);
  Value staged = addWorkspace(kernel, loc, element, {StringAttr::get(ctx, kRowsSymbol), StringAttr::get(ctx, kColsSymbol)},
                              TypedAttr());
  Value tickets = addZeroedCounters(kernel, loc, {IntegerAttr::get(IntegerType::get(ctx, 64), 2)});
  m.space->setOperand(0, SelectOp::create(b, loc, on, bin(b, loc, kir::BinaryKind::Add, first, programs), programs)
                             .getResult());

  Block &top = m.space.getBody().front();
  Value pid = top.getArgument(0);
  b.setInsertionPointToStart(&top);
  Value yes = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
  auto phases = IfOp::create(b, loc, TypeRange{},
                             bin(b, loc, kir::BinaryKind::And, on, cmp(b, loc, kir::CmpPredicate::LT, pid, first)));
  {
    // The first phase: program q computes the operand on row tile q / KC (of the batch points' row
    // tiles, point-major), chunk q % KC of K.
    b.createBlock(&phases.getThenRegion());
    IRMapping map;
    Value pointTile = bin(b, loc, kir::BinaryKind::Div, pid, chunks);
    Value part = bin(b, loc, kir::BinaryKind::Rem, pid, chunks);
    Value rowTile = pointTile, base;
    if (!m.batch.empty()) {
      Value point = bin(b, loc, kir::BinaryKind::Div, pointTile, rowTiles);
      rowTile = bin(b, loc, kir::BinaryKind::Rem, pointTile, rowTiles);
      base = bin(b, loc, kir::BinaryKind::Mul, point, rows);
      // The point's coordinates, row-major over the batch extents (as the group decodes its own).
      for (unsigned i = m.batch.size(); i-- > 1;) {
        Value e = bin(b, loc, kir::BinaryKind::Max, m.batchExtents[i], one);
        map.map(m.batch[i], bin(b, loc, kir::BinaryKind::Rem, point, e));
        point = bin(b, loc, kir::BinaryKind::Div, point, e);
      }
      map.map(m.batch.front(), point);
    }
    map.map(m.rowIota.getBase(), bin(b, loc, kir::BinaryKind::Mul, rowTile, rowExtent));
    for (Operation *op : m.bodySlice)
      b.clone(*op, map);
    Value begin = bin(b, loc, kir::BinaryKind::Min,
                      bin(b, loc, kir::BinaryKind::Add, lower, bin(b, loc, kir::BinaryKind::Mul, part, chunk)), cols);
    Value end = bin(b, loc, kir::BinaryKind::Min, bin(b, loc, kir::BinaryKind::Add, begin, chunk), cols);
    auto loop = ForOp::create(b, loc, TypeRange{}, begin, end, step, ValueRange{});
    {
      OpBuilder::InsertionGuard guard(b);
      Block *lb = b.createBlock(&loop.getBody());
      Value k = lb->addArgument(b.getIndexType(), loc);
      map.map(m.kloop.getBody().front().getArgument(0), k);
      for (Operation *op : m.loopSlice)
        b.clone(*op, map);
      auto [r2, k2, ok] = tileCoords(b, loc, tile, map.lookup(m.rowIota.getResult()), k, rows, padded, base);
      BufferStoreOp::create(b, loc, map.lookup(m.contract.getLhs()), staged, ValueRange{r2, k2}, ok);
      YieldOp::create(b, loc);
    }
    buildArrivalTicket(b, loc, tickets, zero, yes);
    YieldOp::create(b, loc);
  }
  // The walk's programs: staged, they wait for the first phase and the last to pass returns the counts
  // to 0 (every first-phase program has counted); the walk starts past the first phase's programs.
  Block *rest = b.createBlock(&phases.getElseRegion());
  auto handOff = IfOp::create(b, loc, TypeRange{}, on);
  {
    OpBuilder::InsertionGuard outer(b);
    b.createBlock(&handOff.getThenRegion());
    buildArrivalWait(b, loc, tickets, zero, first, yes);
    Value passed = buildArrivalTicket(b, loc, tickets, one, yes, kir::AtomicOrder::AcqRel);
    Value last = cmp(b, loc, kir::CmpPredicate::EQ, passed,
                     CastOp::create(b, loc, b.getI32Type(), bin(b, loc, kir::BinaryKind::Sub, programs, one)));
    auto reset = IfOp::create(b, loc, TypeRange{}, last);
    YieldOp::create(b, loc);
    b.createBlock(&reset.getThenRegion());
    Value i32zero = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0);
    for (int64_t i : {0, 1})
      AtomicStoreOp::create(b, loc, i32zero, tickets, ValueRange{index(b, loc, i)}, yes, kir::AtomicOrder::Release,
                            kir::SharingDomain::Invocation);
    YieldOp::create(b, loc);
  }
  Value shift = SelectOp::create(b, loc, on, first, zero);
  Operation *y = YieldOp::create(b, loc);
  m.walk->moveBefore(y);
  b.setInsertionPoint(m.walk);
  m.walk->setOperand(0, bin(b, loc, kir::BinaryKind::Sub, pid, shift));
  (void)rest;
  // In the group: staged, a copy of the K loop reading the operand from workspace; else the loop.
  b.setInsertionPoint(m.kloop);
  auto choice = IfOp::create(b, loc, m.kloop.getResultTypes(), on);
  Block *orig = b.createBlock(&choice.getElseRegion());
  auto origYield = YieldOp::create(b, loc, m.kloop.getResults());
  b.createBlock(&choice.getThenRegion());
  IRMapping map;
  auto copy = cast<ForOp>(b.clone(*m.kloop.getOperation(), map));
  YieldOp::create(b, loc, copy.getResults());
  for (auto [r, c] : llvm::zip(m.kloop.getResults(), choice.getResults()))
    r.replaceUsesWithIf(c, [&](OpOperand &use) { return use.getOwner() != origYield; });
  m.kloop->moveBefore(origYield);
  auto contract = cast<ContractOp>(map.lookup(m.contract.getResult()).getDefiningOp());
  b.setInsertionPoint(contract);
  // The batch point's first workspace row, from the group's own coordinates.
  Value base;
  if (!m.batch.empty()) {
    Value point = m.batch.front();
    for (auto [a, e] : llvm::drop_begin(llvm::zip(m.batch, m.batchExtents)))
      point = bin(b, loc, kir::BinaryKind::Add, bin(b, loc, kir::BinaryKind::Mul, point, e), a);
    base = bin(b, loc, kir::BinaryKind::Mul, point, rows);
  }
  auto [r2, k2, ok] = tileCoords(b, loc, tile, m.rowIota.getResult(), copy.getBody().front().getArgument(0), rows,
                                 Value(), base);
  Value fill = arith::ConstantOp::create(b, loc, element, b.getZeroAttr(element));
  Value loaded = BufferLoadOp::create(b, loc, tile, staged, ValueRange{r2, k2}, ok, fill);
  contract->setOperand(0, loaded);
  eraseDead(copy.getBody().front());
  // What only the recomputing loop reads (row statistics) moves into its branch.
  for (Operation *op : llvm::reverse(m.bodySlice))
    if (op != m.rowIota.getOperation() && !op->use_empty() &&
        llvm::all_of(op->getUsers(), [&](Operation *u) { return choice.getElseRegion().isAncestor(u->getParentRegion()); }))
      op->moveBefore(orig, orig->begin());
}

struct StageOperands : public tessel::pgpu::impl::PGPUStageOperandsBase<StageOperands> {
  void runOnOperation() override {
    for (KernelOp kernel : getOperation().getOps<KernelOp>()) {
      Match m;
      std::optional<std::string> why = analyze(kernel, m);
      bool remarks = remarksEnabled(kernel);
      if (why) {
        if (remarks && m.contract)
          m.contract.emitRemark() << "pgpu-stage-operands: not staged: " << *why;
        continue;
      }
      if (remarks)
        m.contract.emitRemark() << "pgpu-stage-operands: the row operand is computed once in a first phase ("
                                << "the first programs store it to workspace [" << kRowsSymbol << ", "
                                << kColsSymbol << "]) and the contraction's programs load it after waiting for them";
      stage(kernel, m);
    }
  }
};
} // namespace
