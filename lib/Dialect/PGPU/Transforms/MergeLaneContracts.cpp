//===- MergeLaneContracts.cpp - lane contractions become one over the run ===//
//
// seed 002 §3.4 (contraction realization) and §4: two contractions chained
// into one accumulator in a blocked loop over j, whose lhs reads one view at
// the even and the odd lanes of a run (x[r, 2j] and x[r, 2j + 1]), are one
// contraction over the run's axis k = 2j + p (p = k mod 2):
//
//   for j0 in [0, U) step P:  j = iota(j0)
//     acc = contract(x[r, 2j], A(j), contract... acc)   (A, B: [P, N] fragments of j)
//     acc = contract(x[r, 2j + 1], B(j), acc)
//   ->
//   for k0 in [0, 2U) step P: k = iota(k0), j = k / 2
//     acc = contract(x[r, k], select(k mod 2 == 0, A(j), B(j)), acc)
//
// The run is read once, contiguous (a box read for the providers); the lane
// split moves to the rhs, which a provider stages anyway, and reads of j
// (k / 2) are packed pairs (Triton: one read a pair, joined); a lane bound
// k / 2 < u becomes k < 2u, the bound form those reads match. The select is
// built where A and B part (below their common transpose, cast, zero point and
// scale: selectLanes), so the two nibbles' dequantizations are one. A quotient
// (2 (k / 2)) / G with G even is k / G (floor division of non-negative k), so a
// group index along k stays uniform over a tile as it is in the form that
// spells the K loop directly (corpus 80 and 80_b are one program), and is read
// once a trip (UniformLaneReads.h, applied to the merged loop).
// Must not fire: lanes other than 2j and 2j + 1 of one read (other view,
// other coordinates or validity), a loop whose index is used other than
// through its iota, a loop not starting at 0 or not stepped by a parameter, a
// contraction not in the [M, K] x [K, N] form, a lane read with other uses.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "UniformLaneReads.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUMERGELANECONTRACTS
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

namespace {

/// The constant of splat `v`, else none.
std::optional<int64_t> splatConstant(Value v) {
  auto splat = v.getDefiningOp<SplatOp>();
  APInt value;
  if (splat && matchPattern(splat.getOperand(), m_ConstantInt(&value)))
    return value.getSExtValue();
  return std::nullopt;
}

/// `x` when `v` is binary `kind` of x and splat(c) (either order, for commutative kinds), else null.
Value withSplat(Value v, kir::BinaryKind kind, int64_t c) {
  auto op = v ? v.getDefiningOp<BinaryOp>() : BinaryOp();
  if (!op || op.getKind() != kind || op.getApproximate() || op.getFlushToZero())
    return {};
  if (splatConstant(op.getRhs()) == c)
    return op.getLhs();
  if (splatConstant(op.getLhs()) == c)
    return op.getRhs();
  return {};
}

bool plain(ContractOp c) {
  return c.getLhsBatch().empty() && c.getRhsBatch().empty() && c.getLhsReduce() == ArrayRef<int64_t>{1} &&
         c.getRhsReduce() == ArrayRef<int64_t>{0} && cast<FragmentType>(c.getLhs().getType()).getRank() == 2;
}

/// A matched pair: the two contractions (`even` below `odd`), their lane reads, and the loop's iota.
struct LanePair {
  ContractOp even, odd;
  Operation *evenRead, *oddRead;
  BroadcastOp evenCoord;
};

/// The lane read of contraction `c`: a load or gather of rank 2 whose last coordinate is a broadcast
/// along axis 1 of a rank-1 lane fragment, and its single use `c`.
Operation *laneRead(ContractOp c) {
  Operation *read = c.getLhs().getDefiningOp();
  if (!read || !isa<LoadOp, GatherOp>(read) || !c.getLhs().hasOneUse() || read->getNumOperands() != 5)
    return nullptr;
  auto b = read->getOperand(2).getDefiningOp<BroadcastOp>();
  if (!b || b.getDims() != ArrayRef<int64_t>{1})
    return nullptr;
  return read;
}

/// The pair (even, odd) when `odd` accumulates into `even` and their lhs read lanes 2j and 2j + 1 of
/// one view with equal row coordinates, validity and fill, j = iota(iv); else none.
std::optional<LanePair> matchPair(ContractOp odd, Value iv) {
  auto even = odd.getAcc().getDefiningOp<ContractOp>();
  if (!even || !even->hasOneUse() || !plain(even) || !plain(odd) || even->getBlock() != odd->getBlock() ||
      even.getType() != odd.getType() || even.getLhs().getType() != odd.getLhs().getType() ||
      even.getRhs().getType() != odd.getRhs().getType() || even.getPrecisionAttr() != odd.getPrecisionAttr())
    return std::nullopt;
  Operation *re = laneRead(even), *ro = laneRead(odd);
  if (!re || !ro || re->getName() != ro->getName() || re->getOperand(0) != ro->getOperand(0) ||
      re->getOperand(1) != ro->getOperand(1) || re->getOperand(3) != ro->getOperand(3) ||
      re->getOperand(4) != ro->getOperand(4))
    return std::nullopt;
  auto be = re->getOperand(2).getDefiningOp<BroadcastOp>(), bo = ro->getOperand(2).getDefiningOp<BroadcastOp>();
  Value twoJ = be.getOperand();
  if (withSplat(bo.getOperand(), kir::BinaryKind::Add, 1) != twoJ)
    return std::nullopt;
  Value j = withSplat(twoJ, kir::BinaryKind::Mul, 2);
  auto iota = j ? j.getDefiningOp<IotaOp>() : IotaOp();
  if (!iota || iota.getBase() != iv)
    return std::nullopt;
  return LanePair{even, odd, re, ro, be};
}

/// Whether each operation of `body` computes lane by lane (pointwise over its fragments' positions) or
/// reads, and `odd` is the one value the loop carries: a lane then stands for its j wherever it is, and
/// the only sum over the lanes is the contraction (no reduction elsewhere would count a j twice).
bool lanewiseBody(Block &body, ContractOp odd) {
  auto yield = body.getTerminator();
  if (yield->getNumOperands() != 1 || yield->getOperand(0) != odd.getResult() || !odd->hasOneUse())
    return false;
  int contracts = 0;
  for (Operation &op : body.without_terminator()) {
    if (isa<ContractOp>(op) && ++contracts <= 2)
      continue;
    if (!isa<LoadOp, GatherOp, BinaryOp, UnaryOp, CmpOp, SelectOp, CastOp, BitcastOp, IotaOp, SplatOp, BroadcastOp,
             TransposeOp, arith::ConstantOp>(op))
      return false;
  }
  return contracts == 2;
}

/// Erases the trivially dead operations of `block`, last first.
void eraseDead(Block &block) {
  SmallVector<Operation *> ops;
  for (Operation &op : block.without_terminator())
    ops.push_back(&op);
  for (Operation *op : llvm::reverse(ops)) // users before their operands' definitions
    if (op->use_empty() && isMemoryEffectFree(op) && op->getNumRegions() == 0)
      op->erase();
}

/// (2 (k / 2)) / G with G even is k / G: replaces each such division in `block` (`half`: k / 2).
void foldEvenQuotients(Block &block, Value k, Value half) {
  for (Operation &op : llvm::make_early_inc_range(block.without_terminator())) {
    auto div = dyn_cast<BinaryOp>(op);
    if (!div || div.getKind() != kir::BinaryKind::Div || div.getLhs().getType() != k.getType())
      continue;
    std::optional<int64_t> g = splatConstant(div.getRhs());
    if (!g || *g <= 0 || *g % 2 != 0 || withSplat(div.getLhs(), kir::BinaryKind::Mul, 2) != half)
      continue;
    OpBuilder b(div);
    Value q = BinaryOp::create(b, div.getLoc(), kir::BinaryKind::Div, k, div.getRhs(), false, false);
    div.getResult().replaceAllUsesWith(q);
    div.erase();
  }
}

/// k / 2 < u is k < 2u (non-negative k): replaces each such bound in `block` by one on the lanes k
/// themselves (the lane-bound form the packed-pair and uniform reads match). `two`: the constant 2.
void boundLanes(Block &block, Value k, Value half, Value two) {
  for (Operation &op : llvm::make_early_inc_range(block.without_terminator())) {
    auto cmp = dyn_cast<CmpOp>(op);
    auto splat = cmp ? cmp.getRhs().getDefiningOp<SplatOp>() : SplatOp();
    if (!splat || cmp.getPredicate() != kir::CmpPredicate::LT || cmp.getLhs() != half)
      continue;
    OpBuilder b(cmp);
    Value u = BinaryOp::create(b, cmp.getLoc(), kir::BinaryKind::Mul, two, splat.getOperand(), false, false);
    Value bound = SplatOp::create(b, cmp.getLoc(), k.getType(), u);
    Value lanes = CmpOp::create(b, cmp.getLoc(), cmp.getType(), kir::CmpPredicate::LT, k, bound);
    cmp.getResult().replaceAllUsesWith(lanes);
    cmp.erase();
  }
}

/// select(lanes even, a, b) built below the point where a and b part: an operation of one kind and
/// attributes on both sides with an operand in common (or a transpose, a cast) takes the select of the
/// operands that differ, so the lanes' two dequantizations (nibble & 15 and (nibble >> 4) & 15, then the
/// same zero, scale and bound) are one computation over selected bytes. `even`: the [P] lane flags;
/// `axis`: the lanes' axis in a's type.
Value selectLanes(OpBuilder &b, Location loc, Value even, unsigned axis, Value a, Value b2) {
  if (a == b2)
    return a;
  Operation *x = a.getDefiningOp(), *y = b2.getDefiningOp();
  auto type = cast<FragmentType>(a.getType());
  if (x && y && x->getName() == y->getName() && x->getAttrDictionary() == y->getAttrDictionary() &&
      x->getNumOperands() == y->getNumOperands() && x->getResultTypes() == y->getResultTypes() &&
      x->getNumResults() == 1 && x->getNumRegions() == 0 && isMemoryEffectFree(x)) {
    if (auto t = dyn_cast<TransposeOp>(x)) {
      Value in = selectLanes(b, loc, even, t.getPermutation()[axis], t.getOperand(), y->getOperand(0));
      return TransposeOp::create(b, loc, type, in, t.getPermutationAttr());
    }
    if (isa<CastOp, BinaryOp, SelectOp>(x)) {
      SmallVector<unsigned> differ;
      for (unsigned i = 0; i < x->getNumOperands(); ++i)
        if (x->getOperand(i) != y->getOperand(i))
          differ.push_back(i);
      auto sameShape = [&](unsigned i) {
        auto f = dyn_cast<FragmentType>(x->getOperand(i).getType());
        return f && f.getExtents() == type.getExtents();
      };
      if (differ.size() == 1 && sameShape(differ[0])) {
        Value in = selectLanes(b, loc, even, axis, x->getOperand(differ[0]), y->getOperand(differ[0]));
        Operation *op = b.clone(*x);
        op->setOperand(differ[0], in);
        return op->getResult(0);
      }
    }
  }
  auto flags = FragmentType::get(b.getContext(), b.getI1Type(), type.getExtents());
  Value c = BroadcastOp::create(b, loc, flags, even, b.getDenseI64ArrayAttr({int64_t(axis)}));
  return SelectOp::create(b, loc, type, c, a, b2);
}

/// Rewrites `loop` (see the banner) around `pair`; returns the new loop.
ForOp mergeLanes(ForOp loop, LanePair pair, IotaOp iota) {
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  Value two = arith::ConstantIndexOp::create(b, loc, 2);
  Value upper = BinaryOp::create(b, loc, kir::BinaryKind::Mul, two, loop.getUpper(), false, false);
  auto merged = ForOp::create(b, loc, loop.getResultTypes(), loop.getLower(), upper, loop.getStep(), loop.getInits());
  Block &from = loop.getBody().front();
  Block *body = b.createBlock(&merged.getBody());
  IRMapping map;
  for (BlockArgument a : from.getArguments())
    map.map(a, body->addArgument(a.getType(), a.getLoc()));
  Value k0 = body->getArgument(0);
  auto lanes = cast<FragmentType>(iota.getType());
  Value k = IotaOp::create(b, iota.getLoc(), lanes, k0);
  Value twos = SplatOp::create(b, loc, lanes, two);
  Value half = BinaryOp::create(b, loc, kir::BinaryKind::Div, k, twos, false, false);
  Value parity = BinaryOp::create(b, loc, kir::BinaryKind::Rem, k, twos, false, false);
  for (Operation &op : from.without_terminator()) {
    if (auto i = dyn_cast<IotaOp>(op); i && i.getBase() == from.getArgument(0)) {
      map.map(i.getResult(), half);
      continue;
    }
    if (&op == pair.evenRead || &op == pair.oddRead || &op == pair.even.getOperation())
      continue;
    if (&op != pair.odd.getOperation()) {
      b.clone(op, map);
      continue;
    }
    // The run: the even read's coordinates with k for 2j (its validity bounds j = k / 2).
    Value lanesK = BroadcastOp::create(b, pair.evenCoord.getLoc(), pair.evenCoord.getType(), k,
                                       pair.evenCoord.getDimsAttr());
    Operation *read = b.clone(*pair.evenRead, map);
    read->setOperand(2, lanesK);
    if (auto g = dyn_cast<GatherOp>(read)) { // affine coordinates: a plain load
      OpBuilder at(g);
      auto l = LoadOp::create(at, g.getLoc(), g.getType(), g.getView(), g.getCoords(), g.getValid(), g.getFill());
      g.getResult().replaceAllUsesWith(l.getResult());
      g.erase();
      read = l;
    }
    // Each k takes the even lane's rhs row at even k, the odd lane's at odd k.
    auto rhsType = cast<FragmentType>(pair.even.getRhs().getType());
    auto laneFlags = FragmentType::get(b.getContext(), b.getI1Type(), lanes.getExtents());
    Value zeros = SplatOp::create(b, loc, lanes, arith::ConstantIndexOp::create(b, loc, 0));
    Value evenLane = CmpOp::create(b, loc, laneFlags, kir::CmpPredicate::EQ, parity, zeros);
    (void)rhsType;
    Value rhs = selectLanes(b, loc, evenLane, 0, map.lookup(pair.even.getRhs()), map.lookup(pair.odd.getRhs()));
    Value acc = ContractOp::create(b, pair.odd.getLoc(), pair.odd.getType(), read->getResult(0), rhs,
                                   map.lookup(pair.even.getAcc()), pair.odd.getLhsReduceAttr(),
                                   pair.odd.getRhsReduceAttr(), pair.odd.getLhsBatchAttr(),
                                   pair.odd.getRhsBatchAttr(), pair.odd.getPrecisionAttr());
    map.map(pair.odd.getResult(), acc);
  }
  b.clone(*from.getTerminator(), map);
  foldEvenQuotients(*body, k, half);
  boundLanes(*body, k, half, two);
  eraseDead(*body);
  loop.replaceAllUsesWith(merged.getResults());
  loop.erase();
  return merged;
}

struct MergeLaneContracts : public tessel::pgpu::impl::PGPUMergeLaneContractsBase<MergeLaneContracts> {
  void runOnOperation() override {
    SmallVector<ForOp> loops;
    getOperation().walk([&](ForOp loop) { loops.push_back(loop); });
    for (ForOp loop : loops) {
      Block &body = loop.getBody().front();
      if (body.getNumArguments() == 0 || !matchPattern(loop.getLower(), m_Zero()) ||
          !loop.getStep().getDefiningOp<ParamOp>())
        continue;
      Value iv = body.getArgument(0);
      // The loop index reaches the body only through iotas of the step's extent (so j = k / 2
      // replaces each of them).
      auto step = loop.getStep().getDefiningOp<ParamOp>().getName();
      IotaOp iota;
      bool onlyIotas = llvm::all_of(iv.getUsers(), [&](Operation *u) {
        auto i = dyn_cast<IotaOp>(u);
        auto t = i ? dyn_cast<FragmentType>(i.getType()) : FragmentType();
        if (!t || i->getBlock() != &body || t.getRank() != 1)
          return false;
        auto e = dyn_cast<StringAttr>(t.getExtents()[0]);
        iota = i;
        return e && e.getValue() == step;
      });
      if (!onlyIotas || !iota)
        continue;
      std::optional<LanePair> pair;
      for (auto c : body.getOps<ContractOp>())
        if ((pair = matchPair(c, iv)))
          break;
      if (!pair || !lanewiseBody(body, pair->odd))
        continue;
      bool remarks = remarksEnabled(pair->odd);
      Location at = pair->odd.getLoc();
      ForOp merged = mergeLanes(loop, *pair, iota);
      // A group index k / G is now one value a trip (pgpu-reuse-input-reads ran before the lanes
      // merged): read once a trip, as in the spelling that walks k directly.
      readUniformLanesOnce(merged);
      if (remarks)
        emitRemark(at) << "pgpu-merge-lane-contracts: the even and odd lane contractions are one over the run";
    }
  }
};
} // namespace
