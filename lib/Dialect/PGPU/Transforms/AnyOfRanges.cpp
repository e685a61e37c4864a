//===- AnyOfRanges.cpp - an "any" of coordinate predicates as an interval ---===//
//
// seed 002 §3.5 (predicate range analysis: exact proofs from coordinate
// expressions, monotone in the positions) applied to a reduction: an OR
// reduction along one axis r of a conjunction (ands, selects with a false
// alternative) of comparisons
//
//   K pred Q      K = positions laid along r: iota(base) (+ a splat), so the
//                 lane j of r holds k0 + j, k0 = base (+ c), j in [0, S)
//                 Q = a value constant along r (broadcast along the other
//                 axes, a splat, a scalar)
//
// is, for each lane of the result, whether the lanes j admitted by every
// conjunct form a nonempty interval: K < Q admits j < Q - k0, K <= Q
// j < Q - k0 + 1, K > Q j >= Q - k0 + 1, K >= Q j >= Q - k0 (Q pred K is
// mirrored). So
//
//   or_j conj(j)  =  max(0, lower bounds) < min(S, upper bounds),
//
// exactly, computed on the result's lanes: O(lanes) index operations in place
// of S predicate lanes each and a cross-lane reduction. In a blocked fold's
// mixed tiles this is the "some key visible" flag of a masked summary (the
// sliding window's two band edges, the causal diagonal). It runs after the
// online rescaling, whose proofs read the reduction's conjunction.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUANYOFRANGES
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

namespace {

bool isFalse(Value v) {
  if (auto s = v.getDefiningOp<SplatOp>())
    v = s.getOperand();
  APInt c;
  return matchPattern(v, m_ConstantInt(&c)) && c.getBitWidth() == 1 && c.isZero();
}

/// Positions along `axis`: broadcast(iota(base) [+ splat(c)]) with the 1-d value laid along `axis` (or the
/// 1-d value itself when the compared fragments have rank 1). Sets `k0`, the first lane's value (index,
/// built at `b` when an offset is added), and `extent`, the iota's extent.
bool positions(Value v, int64_t axis, int64_t rank, Value &base, Value &offset, Attribute &extent) {
  if (auto br = v.getDefiningOp<BroadcastOp>()) {
    if (br.getDims().size() != 1 || br.getDims()[0] != axis)
      return false;
    v = br.getOperand();
  } else if (rank != 1) {
    return false;
  }
  if (auto add = v.getDefiningOp<BinaryOp>(); add && add.getKind() == kir::BinaryKind::Add) {
    for (auto [x, y] : {std::pair(add.getLhs(), add.getRhs()), std::pair(add.getRhs(), add.getLhs())}) {
      auto iota = x.getDefiningOp<IotaOp>();
      auto splat = y.getDefiningOp<SplatOp>();
      if (iota && splat) {
        base = iota.getBase(), offset = splat.getOperand();
        extent = cast<FragmentType>(iota.getType()).getExtents()[0];
        return true;
      }
    }
    return false;
  }
  auto iota = v.getDefiningOp<IotaOp>();
  if (!iota)
    return false;
  base = iota.getBase(), offset = {};
  extent = cast<FragmentType>(iota.getType()).getExtents()[0];
  return true;
}

/// The value of `q` per result lane when it is constant along `axis`: the operand of a broadcast along the
/// kept axes with the lanes' type, a splat's scalar, or a scalar.
Value laneSource(Value q, Type indexLanes, ArrayRef<int64_t> kept) {
  if (auto br = q.getDefiningOp<BroadcastOp>()) {
    if (br.getOperand().getType() == indexLanes && br.getDims() == kept)
      return br.getOperand();
    q = br.getOperand();
    if (isa<FragmentType>(q.getType()) && !q.getDefiningOp<SplatOp>())
      return {};
  }
  if (auto sp = q.getDefiningOp<SplatOp>())
    return sp.getOperand();
  return q.getType().isIndex() ? q : Value();
}

struct Conjunct {
  kir::CmpPredicate pred; // K pred Q
  Value q;                // per lane (index lanes or a scalar)
  Value offset;           // K = base + offset + j (null: no offset)
};

/// The conjunction under an OR reduction along `axis`, each conjunct a K pred Q over the same positions;
/// `why` says what else was met.
bool conjunction(ReduceOp r, Type indexLanes, SmallVectorImpl<Conjunct> &out, Value &base, Attribute &extent,
                 std::string &why) {
  int64_t axis = r.getAxes()[0];
  auto in = cast<FragmentType>(r.getInputs()[0].getType());
  SmallVector<int64_t> kept;
  for (int64_t d = 0; d < in.getRank(); ++d)
    if (d != axis)
      kept.push_back(d);
  SmallVector<Value> work{r.getInputs()[0]};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (auto a = v.getDefiningOp<BinaryOp>(); a && a.getKind() == kir::BinaryKind::And) {
      work.append({a.getLhs(), a.getRhs()});
      continue;
    }
    if (auto s = v.getDefiningOp<SelectOp>(); s && isFalse(s.getFalseValue())) {
      work.append({s.getCondition(), s.getTrueValue()});
      continue;
    }
    // A 1-d conjunct broadcast along the reduced axis compares the positions alone.
    Value c = v;
    int64_t rank = in.getRank();
    if (auto br = v.getDefiningOp<BroadcastOp>(); br && br.getDims().size() == 1 && br.getDims()[0] == axis &&
                                                   br.getOperand().getDefiningOp<CmpOp>())
      c = br.getOperand(), rank = 1;
    auto cmp = c.getDefiningOp<CmpOp>();
    if (!cmp) {
      why = "a conjunct is not a comparison";
      return false;
    }
    bool found = false;
    for (bool flipped : {false, true}) {
      Value kv = flipped ? cmp.getRhs() : cmp.getLhs(), qv = flipped ? cmp.getLhs() : cmp.getRhs();
      std::optional<kir::CmpPredicate> pred = orderFrom(cmp.getPredicate(), flipped);
      Value b, off;
      Attribute e;
      if (!pred || !positions(kv, rank == 1 ? 0 : axis, rank, b, off, e))
        continue;
      if ((base && (b != base || e != extent))) {
        why = "the comparisons read different positions";
        return false;
      }
      // A rank-1 conjunct's other side is a scalar (it cannot vary along the result's lanes).
      Value q = rank == 1 && in.getRank() != 1 ? laneSource(qv, IndexType::get(r.getContext()), {})
                                               : laneSource(qv, indexLanes, kept);
      if (!q)
        continue;
      base = b, extent = e;
      out.push_back(Conjunct{*pred, q, off});
      found = true;
      break;
    }
    if (!found) {
      why = "a comparison is not between the reduced positions and a value constant along them";
      return false;
    }
  }
  return true;
}

struct AnyOfRanges : public tessel::pgpu::impl::PGPUAnyOfRangesBase<AnyOfRanges> {
  void runOnOperation() override {
    SmallVector<ReduceOp> ors;
    getOperation().walk([&](ReduceOp r) {
      if (r.getInputs().size() != 1 || r.getAxes().size() != 1 || !isFalse(r.getIdentities()[0]) ||
          !elementTypeOf(r.getInputs()[0].getType()).isInteger(1))
        return;
      BinaryOp c = singleBinaryCombine(r.getCombine().front());
      if (c && c.getKind() == kir::BinaryKind::Or)
        ors.push_back(r);
    });
    for (ReduceOp r : ors) {
      bool remarks = remarksEnabled(r);
      auto lanes = dyn_cast<FragmentType>(r.getResult(0).getType());
      OpBuilder b(r);
      Location loc = r.getLoc();
      Type indexLanes =
          lanes ? Type(FragmentType::get(r.getContext(), b.getIndexType(), lanes.getExtents())) : b.getIndexType();
      SmallVector<Conjunct> conj;
      Value base;
      Attribute extent;
      std::string why;
      if (!conjunction(r, indexLanes, conj, base, extent, why)) {
        if (remarks)
          emitRemark(loc) << "pgpu-any-of-ranges: the reduction stays: " << why;
        continue;
      }
      auto overLanes = [&](Value x) -> Value {
        return lanes && x.getType() != indexLanes ? Value(SplatOp::create(b, loc, indexLanes, x)) : x;
      };
      auto bin = [&](kir::BinaryKind k, Value x, Value y) -> Value {
        if (!isa<FragmentType>(x.getType()) && !isa<FragmentType>(y.getType()))
          return BinaryOp::create(b, loc, k, x, y, false, false);
        return BinaryOp::create(b, loc, k, overLanes(x), overLanes(y), false, false);
      };
      Value size = isa<IntegerAttr>(extent)
                       ? Value(arith::ConstantIndexOp::create(b, loc, cast<IntegerAttr>(extent).getInt()))
                       : Value(ParamOp::create(b, loc, b.getIndexType(), cast<StringAttr>(extent)));
      Value zero = arith::ConstantIndexOp::create(b, loc, 0), one = arith::ConstantIndexOp::create(b, loc, 1);
      // Lanes j in [lo, hi) of [0, S) satisfy every conjunct; with k0 = base + offset, Q - k0 bounds j.
      Value lo = overLanes(zero), hi = overLanes(size);
      for (Conjunct &c : conj) {
        Value k0 = c.offset ? bin(kir::BinaryKind::Add, base, c.offset) : base;
        Value d = bin(kir::BinaryKind::Sub, c.q, k0);
        switch (c.pred) {
        case kir::CmpPredicate::LT: hi = bin(kir::BinaryKind::Min, hi, d); break;
        case kir::CmpPredicate::LE: hi = bin(kir::BinaryKind::Min, hi, bin(kir::BinaryKind::Add, d, one)); break;
        case kir::CmpPredicate::GT: lo = bin(kir::BinaryKind::Max, lo, bin(kir::BinaryKind::Add, d, one)); break;
        default: lo = bin(kir::BinaryKind::Max, lo, d); break; // GE
        }
      }
      Value any = CmpOp::create(b, loc, kir::CmpPredicate::LT, overLanes(lo), overLanes(hi));
      r.getResult(0).replaceAllUsesWith(any);
      r.erase();
      if (remarks)
        emitRemark(loc) << "pgpu-any-of-ranges: an OR over " << conj.size()
                        << " coordinate comparison(s) of the reduced positions is an interval's nonemptiness per lane";
    }
  }
};
} // namespace
