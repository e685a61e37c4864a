//===- FoldWorkset.cpp - fragment construction of region-fold worksets ----===//
//
// seed 002 §3.4 region-fold realization: "Contracts in region summarizers
// remain explicit; attention-shaped algebraic recognition must not recover
// them later". A workset whose body holds a kir.region_fold is constructed
// with each KIR value as ONE pgpu value, never element by element:
//
//   * coordinate provenance (which domain each tensor axis ranges over, and
//     whether a value depends on the innermost parallel index) is computed
//     once over the KIR body (`analyze`), before anything is emitted;
//   * where some fold holds a contraction, the innermost parallel axis
//     becomes a lane axis: each program owns BLOCK_<X> consecutive members
//     of it (X the extent's name), with validity `member < size`; the outer
//     parallel axes stay program coordinates. Folds with no contraction
//     have nothing to share across members: each program owns one member
//     and, where no value has a free axis, the fold's tiles are row blocks
//     (form-blocking's BLOCK candidates), the row path of the same math
//     written as reductions (issue 41: a record-summary logsumexp);
//   * every other tensor axis over a domain D becomes a fragment axis of
//     BLOCK_<D> members, under one uniform guard `size(D) <= BLOCK_<D>` per
//     launch; when the guard fails the program walks its lanes one at a time
//     through the element-wise construction (correct for any extent);
//   * the fold becomes a pgpu.region_fold whose step is BLOCK_<T>: its
//     summarizer runs on a source tile [begin, end) with the tile's
//     coordinates and validity, kir.contract stays a pgpu.contract and
//     kir.reduce a pgpu.reduce (their padded members neutralized by selects
//     against the axis validity), and the combine folds tile summaries in
//     source order;
//   * pure values are emitted once per scope where first used (replayed
//     inside the fold only when they depend on the tile);
//   * a store over a fold's tile domain of a row computed there by a
//     contraction (a softmax of scores written out) is a traversal of the
//     domain of its own after the folds: a pgpu.for stepping by BLOCK_<T>,
//     the row recomputed per tile (its contraction a tile product).
//
// A workset holding a kir.region_scan has no lane axis and its scan becomes a
// pgpu.region_scan (ScanWorkset.cpp).
//
//   * a gather is one pgpu.gather of the value's fragment: each index tensor
//     broadcast onto the axes it gives the access (paired `joint` ones onto
//     their partner's), its padded members invalid;
//   * a domain the body defines (bounds loaded per member: a sequence's
//     tokens) may be a fold's tile, the fold running from 0 to the member's
//     size, computed before it; the lanes are kept where that size is the
//     same for all of them and the fold's values allow (query heads sharing
//     a key/value head), else the workset has no lane axis and each program
//     owns one member.
//   * a contraction whose operands both vary across the lanes (each member
//     its own keys and its own query: single-query decode, k[b, h // G]
//     against q[b, h]) is planned again with grouped lanes where the lane
//     reaches it only through `h // G` (G a launch fact): each program owns
//     lanes of one group, `h // G` its scalar, the group's key tile shared;
//     else with one member per program, its folds still in BLOCK_<T> tiles.
//
// Everything else a KIR body may hold (effects other than stores, masked
// gathers, records, contractions with batch axes, fragments of rank > 2, a member's
// domain as a free axis) keeps the element-wise construction; with
// optimization remarks on, the workset says why.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/IR/ExactSplit.h"
#include "FoldWorksetImpl.h"

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::construct;


//===----------------------------------------------------------------------===//
// Emission
//===----------------------------------------------------------------------===//

FailureOr<Type> FoldWorksetImpl::physType(const Shape &s, Type element) {
  if (s.rank() == 0)
    return element;
  SmallVector<Attribute> extents;
  if (s.lanes)
    extents.push_back(lane.param);
  for (Value d : s.axes) {
    auto it = blocks.find(d);
    if (it == blocks.end())
      return par.emitError() << "kir-to-pgpu: a value ranges over a domain with no current block";
    extents.push_back(it->second.param);
  }
  return Type(pgpu::FragmentType::get(b.getContext(), element, extents));
}

FailureOr<Value> FoldWorksetImpl::broadcastTo(Location l, Value phys, const Shape &from, const Shape &to,
                                              ArrayRef<int64_t> kirDims) {
  if (from == to)
    return phys;
  FailureOr<Type> type = physType(to, pgpu::elementTypeOf(phys.getType()));
  if (failed(type))
    return failure();
  if (from.rank() == 0)
    return Value(pgpu::SplatOp::create(b, l, *type, phys));
  if (from.lanes && !to.lanes)
    return par.emitError() << "kir-to-pgpu: a lane-varying value cannot lose its lanes";
  SmallVector<int64_t> dims;
  unsigned off = to.lanes ? 1 : 0;
  if (from.lanes)
    dims.push_back(0);
  SmallVector<bool> used(to.axes.size(), false);
  for (auto [i, d] : llvm::enumerate(from.axes)) {
    int64_t at = -1;
    if (!kirDims.empty()) {
      at = kirDims[i];
    } else {
      for (auto [j, e] : llvm::enumerate(to.axes))
        if (e == d && !used[j]) {
          at = j;
          break;
        }
    }
    if (at < 0)
      return par.emitError() << "kir-to-pgpu: cannot broadcast across domains";
    used[at] = true;
    dims.push_back(at + off);
  }
  return Value(pgpu::BroadcastOp::create(b, l, *type, phys, b.getDenseI64ArrayAttr(dims)));
}

/// The validity of `domain`'s current block, broadcast to `to`.
FailureOr<Value> FoldWorksetImpl::axisMask(Location l, Value domain, const Shape &to, int64_t axis) {
  AxisBlock &blk = blocks[domain];
  if (blk.allValid) // no member is padding: nothing to mask
    return Value();
  if (blk.laneValid && to.lanes) // each lane's own range of a lane domain
    return broadcastTo(l, blk.laneValid, Shape{true, {domain}}, to, {axis >= 0 ? axis : int64_t(0)});
  if (axis >= 0)
    return broadcastTo(l, blk.valid, Shape{false, {domain}}, to, {axis});
  return broadcastTo(l, blk.valid, Shape{false, {domain}}, to);
}

FoldWorksetImpl::AxisBlock FoldWorksetImpl::makeBlock(Location l, StringRef name, Value base, Value limit,
                                                      const DomainVals &d, bool exact) {
  AxisBlock blk;
  blk.param = b.getStringAttr(name);
  auto type = pgpu::FragmentType::get(b.getContext(), b.getIndexType(), {blk.param});
  blk.pos = pgpu::IotaOp::create(b, l, type, base);
  blk.allValid = exact;
  blk.valid = exact ? Value(pgpu::SplatOp::create(b, l, pgpu::FragmentType::get(b.getContext(), b.getI1Type(),
                                                                                 {blk.param}),
                                                  arith::ConstantIntOp::create(b, l, b.getI1Type(), 1)))
                    : Value(pgpu::CmpOp::create(b, l, kir::CmpPredicate::LT, blk.pos,
                                                pgpu::SplatOp::create(b, l, type, limit)));
  APInt lo, step;
  if (matchPattern(d.lo, m_ConstantInt(&lo)) && lo.isZero() && matchPattern(d.step, m_ConstantInt(&step)) &&
      step.isOne()) {
    blk.member = blk.pos;
  } else {
    Value scaled = pgpu::BinaryOp::create(b, l, kir::BinaryKind::Mul, blk.pos,
                                          pgpu::SplatOp::create(b, l, type, d.step), false, false);
    blk.member = pgpu::BinaryOp::create(b, l, kir::BinaryKind::Add, scaled, pgpu::SplatOp::create(b, l, type, d.lo),
                                        false, false);
  }
  return blk;
}

Value FoldWorksetImpl::membersOf(Location l, Value d) {
  AxisBlock &blk = blocks[axisOf(d)];
  if (axisOf(d) == d)
    return blk.member;
  // Position p of the shared axis is d's member lo + p * step (both step 1 where they pair).
  const DomainVals &dv = kc.domains.find(d)->second;
  auto type = cast<pgpu::FragmentType>(blk.pos.getType());
  Value scaled = pgpu::BinaryOp::create(b, l, kir::BinaryKind::Mul, blk.pos, pgpu::SplatOp::create(b, l, type, dv.step),
                                        false, false);
  return pgpu::BinaryOp::create(b, l, kir::BinaryKind::Add, scaled, pgpu::SplatOp::create(b, l, type, dv.lo), false,
                                false);
}

Value FoldWorksetImpl::pairedSizes(Location l) {
  Value all;
  for (auto &[d, axis] : rebased) {
    Value eq = pgpu::CmpOp::create(b, l, kir::CmpPredicate::EQ, kc.domains.find(d)->second.size,
                                   kc.domains.find(axisOf(d))->second.size);
    all = all ? kc.binary(l, kir::BinaryKind::And, all, eq) : eq;
  }
  return all;
}

FailureOr<Value> FoldWorksetImpl::get(Value v) {
  v = resolve(v);
  for (auto it = scopes.rbegin(); it != scopes.rend(); ++it)
    if (Value found = it->lookup(v))
      return found;
  Operation *def = v.getDefiningOp();
  if (!def) {
    if (Value arg = kc.map.lookupOrNull(v)) // an ABI scalar
      return arg;
    return par.emitError() << "kir-to-pgpu: a region argument was not bound";
  }
  if (!par->isAncestor(def))
    if (Value fact = kc.map.lookupOrNull(v))
      return fact;
  if (failed(emitOp(def)))
    return failure();
  for (auto it = scopes.rbegin(); it != scopes.rend(); ++it)
    if (Value found = it->lookup(v))
      return found;
  return def->emitError() << "kir-to-pgpu: no fragment value was constructed here";
}

FailureOr<DomainVals> FoldWorksetImpl::domainOf(Location l, Value domain) {
  if (auto it = kc.domains.find(domain); it != kc.domains.end())
    return it->second;
  if (auto it = localDomains.find(domain); it != localDomains.end())
    return it->second;
  Operation *op = domain.getDefiningOp();
  if (!op || !memberDomains.contains(domain))
    return par.emitError() << "kir-to-pgpu: a domain with no constructed members";
  FailureOr<Value> lo = failure(), hi = failure();
  DomainVals source;
  if (auto d = dyn_cast<kir::DomainOp>(op)) {
    lo = get(d.getLower()), hi = get(d.getUpper());
  } else {
    auto sub = cast<kir::SubregionOp>(op);
    FailureOr<DomainVals> src = domainOf(l, sub.getSource());
    if (failed(src))
      return failure();
    source = *src;
    lo = get(sub.getBegin()), hi = get(sub.getEnd());
  }
  if (failed(lo) || failed(hi))
    return failure();
  DomainVals vals = kc.domainVals(op, *lo, *hi, source);
  localDomains[domain] = vals;
  return vals;
}

FailureOr<FoldWorksetImpl::LaneRange> FoldWorksetImpl::laneRangeOf(Location l, Value domain) {
  auto sub = cast<kir::SubregionOp>(domain.getDefiningOp());
  const DomainVals &src = kc.domains.find(sub.getSource())->second; // step 1 (analyzeMemberDomain)
  FailureOr<Value> begin = get(sub.getBegin()), end = get(sub.getEnd());
  std::optional<Shape> sb = shapeOf(sub.getBegin()), se = shapeOf(sub.getEnd());
  if (failed(begin) || failed(end) || !sb || !se)
    return failure();
  Shape laneShape{true, {}};
  FailureOr<Value> bl = broadcastTo(l, *begin, *sb, laneShape), el = broadcastTo(l, *end, *se, laneShape);
  if (failed(bl) || failed(el))
    return failure();
  Type laneType = bl->getType();
  auto splat = [&](Value x) { return Value(pgpu::SplatOp::create(b, l, laneType, x)); };
  LaneRange r;
  // Each lane's members: [max(begin, lo), min(end, hi)) of the source (a subregion's clamp, Values.cpp).
  r.lo = kc.binary(l, kir::BinaryKind::Max, *bl, splat(src.lo));
  r.hi = kc.binary(l, kir::BinaryKind::Min, *el, splat(src.hi));
  // The block's range: the union over its valid lanes of non-empty ranges ([hi, hi) when none).
  Value some = pgpu::CmpOp::create(b, l, kir::CmpPredicate::LT, r.lo, r.hi);
  Value counted = lane.allValid ? some : kc.binary(l, kir::BinaryKind::And, lane.valid, some);
  auto extreme = [&](Value x, Value neutral, kir::BinaryKind kind) -> Value {
    Value in = pgpu::SelectOp::create(b, l, counted, x, splat(neutral));
    auto red = pgpu::ReduceOp::create(b, l, TypeRange{b.getIndexType()}, ValueRange{in}, b.getDenseI64ArrayAttr({0}),
                                      ValueRange{neutral});
    OpBuilder::InsertionGuard guard(b);
    Block *block = b.createBlock(&red.getCombine());
    Value x0 = block->addArgument(b.getIndexType(), l), x1 = block->addArgument(b.getIndexType(), l);
    pgpu::YieldOp::create(b, l, ValueRange{kc.binary(l, kind, x0, x1)});
    return red.getResult(0);
  };
  r.upper = extreme(r.hi, src.lo, kir::BinaryKind::Max);
  r.lower = kc.binary(l, kir::BinaryKind::Min, extreme(r.lo, src.hi, kir::BinaryKind::Min), r.upper);
  // A padded lane (its result is never stored) spans the whole block: it bounds no narrowing.
  if (!lane.allValid) {
    r.lo = pgpu::SelectOp::create(b, l, lane.valid, r.lo, splat(r.lower));
    r.hi = pgpu::SelectOp::create(b, l, lane.valid, r.hi, splat(r.upper));
  }
  return r;
}

FailureOr<std::pair<SmallVector<Value>, Value>> FoldWorksetImpl::accessCoords(Location l, ValueRange coords,
                                                                              const Shape &s, Operation *access) {
  SmallVector<Value> out;
  Value valid;
  auto conj = [&](Value m) {
    valid = valid ? Value(pgpu::BinaryOp::create(b, l, kir::BinaryKind::And, valid, m, false, false)) : m;
  };
  if (s.lanes) {
    FailureOr<Value> m = broadcastTo(l, lane.valid, Shape{true, {}}, s);
    if (failed(m))
      return failure();
    conj(*m);
  }
  // Where each coordinate's axes begin among the access's (a gather's; a load's domains come in
  // order, each the first axis over it).
  std::optional<kir::CoordinateAxes> axes;
  if (access)
    axes = kir::coordinateAxes(access, coords);
  llvm::SmallDenseSet<int64_t> masked;
  for (auto [i, c] : llvm::enumerate(coords)) {
    int64_t first = axes ? axes->first[i] : -1;
    if (isa<kir::DomainType>(c.getType())) {
      Value axis = axisOf(c);
      Value members = membersOf(l, c);
      FailureOr<Value> m = first >= 0 ? broadcastTo(l, members, Shape{false, {axis}}, s, {first})
                                      : broadcastTo(l, members, Shape{false, {axis}}, s);
      FailureOr<Value> ok = axisMask(l, axis, s, first);
      if (failed(m) || failed(ok))
        return failure();
      out.push_back(*m);
      if (*ok)
        conj(*ok);
      continue;
    }
    FailureOr<Value> pc = get(c);
    std::optional<Shape> cs = shapeOf(c);
    if (failed(pc) || !cs)
      return failure();
    if (axes && !cs->axes.empty()) {
      // An index tensor: onto its axes in the access; its padded members index nothing.
      SmallVector<int64_t> dims;
      for (auto [j, d] : llvm::enumerate(cs->axes)) {
        dims.push_back(first + int64_t(j));
        if (!masked.insert(first + int64_t(j)).second) // a joint partner's axis: masked once
          continue;
        FailureOr<Value> ok = axisMask(l, d, s, first + int64_t(j));
        if (failed(ok))
          return failure();
        if (*ok)
          conj(*ok);
      }
      FailureOr<Value> m = broadcastTo(l, *pc, *cs, s, dims);
      if (failed(m))
        return failure();
      out.push_back(*m);
    } else if (cs->lanes) {
      FailureOr<Value> m = broadcastTo(l, *pc, *cs, s);
      if (failed(m))
        return failure();
      out.push_back(*m);
    } else {
      out.push_back(*pc);
    }
  }
  if (!valid)
    valid = arith::ConstantIntOp::create(b, l, b.getI1Type(), 1);
  return std::make_pair(out, valid);
}

LogicalResult FoldWorksetImpl::maskedAccess(Location l, Value kirValid, Value kirFill, const Shape &s,
                                            Value &valid, Value &fill) {
  if (!kirValid)
    return success();
  // A masked read (kir-online-folds takes it as a source): read where both its validity and the
  // tile's bounds admit the member, its fill elsewhere (seed 000 §6).
  FailureOr<Value> v = get(kirValid);
  std::optional<Shape> vs = shapeOf(kirValid);
  FailureOr<Value> f = get(kirFill);
  if (failed(v) || !vs || failed(f))
    return failure();
  FailureOr<Value> m = broadcastTo(l, *v, *vs, s);
  if (failed(m))
    return failure();
  if (matchPattern(valid, m_One()))
    valid = *m;
  else
    valid = pgpu::BinaryOp::create(b, l, kir::BinaryKind::And, valid, *m, false, false);
  fill = *f;
  return success();
}

LogicalResult FoldWorksetImpl::emitOp(Operation *op) {
  Location l = op->getLoc();
  auto shapeOfRes = [&](Value r) -> FailureOr<Shape> {
    std::optional<Shape> s = shapeOf(r);
    if (!s)
      return op->emitError() << "kir-to-pgpu: no coordinate provenance for this value";
    return *s;
  };
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case<arith::ConstantOp>([&](arith::ConstantOp c) {
        bind(c.getResult(), b.clone(*op)->getResult(0));
        return success();
      })
      .Case<kir::ConstexprOp, kir::ExtentOp>([&](Operation *fact) -> LogicalResult {
        if (failed(kc.emitLaunchFact(*fact)))
          return failure();
        bind(fact->getResult(0), kc.map.lookup(fact->getResult(0)));
        return success();
      })
      .Case<kir::LoadOp>([&](kir::LoadOp ld) -> LogicalResult {
        FailureOr<Shape> s = shapeOfRes(ld.getResult());
        if (failed(s))
          return failure();
        Type element = getElementTypeOrSelf(ld.getType());
        FailureOr<Type> type = physType(*s, element);
        auto access = accessCoords(l, ld.getCoords(), *s);
        if (failed(type) || failed(access))
          return failure();
        Value fill = kc.zeroOf(l, element), view = kc.map.lookup(ld.getView());
        if (failed(maskedAccess(l, ld.getValid(), ld.getFill(), *s, access->second, fill)))
          return failure();
        // A coordinate computed from loaded data (a target index picked per row) makes the access an
        // index relation (seed 000 §6): a gather, as outside a fold.
        bool dataDependent =
            llvm::any_of(access->first, [](Value c) { return pgpu::readFeeding(c) != nullptr; });
        if (dataDependent)
          bind(ld.getResult(), pgpu::GatherOp::create(b, l, *type, view, access->first, access->second, fill));
        else
          bind(ld.getResult(), pgpu::LoadOp::create(b, l, *type, view, access->first, access->second, fill));
        return success();
      })
      .Case<kir::GatherOp>([&](kir::GatherOp g) -> LogicalResult {
        FailureOr<Shape> s = shapeOfRes(g.getResult());
        if (failed(s))
          return failure();
        Type element = getElementTypeOrSelf(g.getType());
        FailureOr<Type> type = physType(*s, element);
        auto access = accessCoords(l, g.getCoords(), *s, g);
        if (failed(type) || failed(access))
          return failure();
        Value fill = kc.zeroOf(l, element), view = kc.map.lookup(g.getView());
        if (failed(maskedAccess(l, g.getValid(), g.getFill(), *s, access->second, fill)))
          return failure();
        bind(g.getResult(), pgpu::GatherOp::create(b, l, *type, view, access->first, access->second, fill));
        return success();
      })
      .Case<kir::IndicesOp>([&](kir::IndicesOp i) -> LogicalResult {
        if (!blocks.count(axisOf(i.getDomain())))
          return i.emitError() << "kir-to-pgpu: indices of a domain with no current block";
        bind(i.getResult(), membersOf(l, i.getDomain()));
        return success();
      })
      .Case<kir::BroadcastOp, kir::BroadcastAsOp>([&](Operation *br) -> LogicalResult {
        Value operand = br->getOperand(0);
        FailureOr<Value> x = get(operand);
        std::optional<Shape> from = shapeOf(operand);
        FailureOr<Shape> to = shapeOfRes(br->getResult(0));
        if (failed(x) || !from || failed(to))
          return failure();
        ArrayRef<int64_t> dims = isa<kir::BroadcastOp>(br) ? cast<kir::BroadcastOp>(br).getDims()
                                                           : cast<kir::BroadcastAsOp>(br).getDims();
        FailureOr<Value> out = broadcastTo(l, *x, *from, *to, dims);
        if (failed(out))
          return failure();
        bind(br->getResult(0), *out);
        return success();
      })
      .Case<kir::BinaryOp, kir::UnaryOp, kir::CmpOp, kir::SelectOp, kir::CastOp, kir::BitcastOp>(
          [&](Operation *p) -> LogicalResult {
            FailureOr<Shape> s = shapeOfRes(p->getResult(0));
            if (failed(s))
              return failure();
            SmallVector<Value> operands;
            for (Value v : p->getOperands()) {
              FailureOr<Value> x = get(v);
              std::optional<Shape> from = shapeOf(v);
              if (failed(x) || !from)
                return failure();
              FailureOr<Value> y = broadcastTo(l, *x, *from, *s);
              if (failed(y))
                return failure();
              operands.push_back(*y);
            }
            Value result;
            if (isa<kir::CastOp, kir::BitcastOp>(p)) {
              FailureOr<Type> type = physType(*s, getElementTypeOrSelf(p->getResult(0).getType()));
              if (failed(type))
                return failure();
              result = isa<kir::CastOp>(p) ? Value(pgpu::CastOp::create(b, l, *type, operands[0]))
                                           : Value(pgpu::BitcastOp::create(b, l, *type, operands[0]));
            } else {
              FailureOr<Value> r = kc.convertPointwise(p, operands);
              if (failed(r))
                return failure();
              result = *r;
            }
            bind(p->getResult(0), result);
            return success();
          })
      .Case<kir::TransposeOp>([&](kir::TransposeOp t) -> LogicalResult {
        // A transpose of a transpose that undoes it (a source's view, transposed back in the
        // summarizer) is the inner operand itself: no data moves.
        Value operand = t.getOperand();
        if (auto inner = resolve(operand).getDefiningOp<kir::TransposeOp>()) {
          ArrayRef<int64_t> p = t.getPermutation(), q = inner.getPermutation();
          bool identity = true;
          for (auto [i, pi] : llvm::enumerate(p))
            identity &= q[pi] == int64_t(i);
          if (identity) {
            FailureOr<Value> x = get(inner.getOperand());
            if (failed(x))
              return failure();
            bind(t.getResult(), *x);
            return success();
          }
        }
        FailureOr<Value> x = get(operand);
        FailureOr<Shape> s = shapeOfRes(t.getResult());
        if (failed(x) || failed(s))
          return failure();
        FailureOr<Type> type = physType(*s, getElementTypeOrSelf(t.getType()));
        if (failed(type))
          return failure();
        SmallVector<int64_t> perm;
        if (s->lanes)
          perm.push_back(0);
        for (int64_t i : t.getPermutation())
          perm.push_back(i + (s->lanes ? 1 : 0));
        bind(t.getResult(), pgpu::TransposeOp::create(b, l, *type, *x, b.getDenseI64ArrayAttr(perm)));
        return success();
      })
      .Case<kir::ExtractOp>([&](kir::ExtractOp e) -> LogicalResult {
        FailureOr<Value> x = get(e.getTensor());
        if (failed(x))
          return failure();
        bind(e.getResult(), *x);
        return success();
      })
      .Case<kir::ReduceOp>([&](kir::ReduceOp r) { return emitReduce(r); })
      .Case<kir::ContractOp>([&](kir::ContractOp c) -> LogicalResult {
        if (failed(emitContract(c)))
          return failure();
        if (!c.getInit())
          return success();
        // The product (tile products, or the K loop's carried sum) plus the init.
        FailureOr<Value> product = get(c.getResult()), init = get(c.getInit());
        std::optional<Shape> is = shapeOf(c.getInit());
        FailureOr<Shape> s = shapeOfRes(c.getResult());
        if (failed(product) || failed(init) || !is || failed(s))
          return failure();
        FailureOr<Value> spread = broadcastTo(l, *init, *is, *s);
        if (failed(spread))
          return failure();
        bind(c.getResult(), kc.binary(l, kir::BinaryKind::Add, *product, *spread));
        return success();
      })
      .Case<kir::RegionFoldOp>([&](kir::RegionFoldOp f) { return emitFold(f); })
      .Case<kir::RegionScanOp>([&](kir::RegionScanOp sc) { return emitScan(sc); })
      .Default([&](Operation *other) -> LogicalResult {
        return other->emitError() << "kir-to-pgpu: '" << other->getName() << "' has no fragment construction";
      });
}

/// kir.reduce over one axis: the members outside the axis's block (a tile's
/// tail, a free axis's padding) are replaced by the identity, then one
/// pgpu.reduce with the same combine.
LogicalResult FoldWorksetImpl::emitReduce(kir::ReduceOp r) {
  Location l = r.getLoc();
  std::optional<Shape> in = shapeOf(r.getInputs()[0]);
  if (!in)
    return failure();
  Value domain = in->axes[r.getAxes()[0]];
  FailureOr<Value> mask = axisMask(l, domain, *in, r.getAxes()[0]);
  if (failed(mask))
    return failure();
  SmallVector<Value> inputs, identities;
  SmallVector<Type> resultTypes, scalarTypes;
  for (auto [x, id] : llvm::zip(r.getInputs(), r.getIdentities())) {
    FailureOr<Value> px = get(x), pid = get(id);
    if (failed(px) || failed(pid))
      return failure();
    Value neutral = pgpu::SplatOp::create(b, l, px->getType(), *pid);
    inputs.push_back(*mask ? Value(pgpu::SelectOp::create(b, l, *mask, *px, neutral)) : *px);
    identities.push_back(*pid);
    scalarTypes.push_back(pid->getType());
  }
  for (Value res : r.getResults()) {
    std::optional<Shape> s = shapeOf(res);
    FailureOr<Type> t = s ? physType(*s, getElementTypeOrSelf(res.getType())) : FailureOr<Type>(failure());
    if (failed(t))
      return failure();
    resultTypes.push_back(*t);
  }
  int64_t axis = r.getAxes()[0] + (in->lanes ? 1 : 0);
  auto red = pgpu::ReduceOp::create(b, l, resultTypes, inputs, b.getDenseI64ArrayAttr({axis}), identities);
  if (failed(kc.convertCombineRegion(r.getCombine(), red.getCombine(), scalarTypes)))
    return failure();
  for (auto [res, phys] : llvm::zip(r.getResults(), red.getResults()))
    bind(res, phys);
  return success();
}

/// True when `v` is zero on every member outside the valid set of its axes: a
/// load with fill 0 (through casts).
static bool zeroOutsideValid(Value v) {
  while (auto c = v.getDefiningOp<pgpu::CastOp>())
    v = c.getOperand();
  Value fill;
  if (auto load = v.getDefiningOp<pgpu::LoadOp>())
    fill = load.getFill();
  else if (auto gather = v.getDefiningOp<pgpu::GatherOp>()) // valid includes its index tensors' axes
    fill = gather.getFill();
  return fill && (matchPattern(fill, m_AnyZeroFloat()) || matchPattern(fill, m_Zero()));
}

/// kir.contract as one pgpu.contract in the [M, K] x [K, N] form: the operand
/// that varies across the lanes (if any) supplies M, the paired axis is K.
/// Widening casts of 16-bit floats feeding both operands are absorbed (their
/// products are exact in f32); with `numerics = relaxed_normalization`, an f32
/// weight against a widened 16-bit value operand is rounded to that dtype
/// (seed 002 §1: matching f16/bf16 weight/value operand dtypes). Under the
/// default numerics an f32 operand against a widened bf16 one is split exactly
/// into three bf16 parts (`hi + mid + lo`, see `splitBF16` below): three tile
/// products of exact bf16 x bf16 terms summed in f32, the f32 operand's values
/// unchanged (seed 000 §8: IEEE products of the operands, the order of the sum
/// the implementation's).
LogicalResult FoldWorksetImpl::emitContract(kir::ContractOp c) {
  Location l = c.getLoc();
  std::optional<Shape> sl = shapeOf(c.getLhs()), sr = shapeOf(c.getRhs()), so = shapeOf(c.getResult());
  if (!sl || !sr || !so)
    return failure();
  if (Value k = sl->axes[c.getLhsReduce()[0]]; looping && loopAxes.count(k) && !blocks.count(k))
    return emitLoopedContract(c, k);
  bool laneDot = sl->lanes && sr->lanes; // each lane's own dot product (analyzeOp)
  auto narrowSource = [&](Value kirOperand) -> Value {
    auto cast = resolve(kirOperand).getDefiningOp<kir::CastOp>();
    if (!cast)
      return {};
    Type from = getElementTypeOrSelf(cast.getOperand().getType());
    Type to = getElementTypeOrSelf(cast.getType());
    return (from.isF16() || from.isBF16()) && to.isF32() ? cast.getOperand() : Value();
  };
  Value lhsKir = c.getLhs(), rhsKir = c.getRhs();
  Value nl = narrowSource(lhsKir), nr = narrowSource(rhsKir);
  Type narrow;
  bool roundOther = false, splitOther = false;
  kir::ContractPrecision precision = kir::precisionOr(c.getPrecision());
  if (nl && nr && getElementTypeOrSelf(nl.getType()) == getElementTypeOrSelf(nr.getType())) {
    lhsKir = nl, rhsKir = nr;
    // A widened f16/bf16 is a TF32 value (at most 10 explicit mantissa bits, inside f32's exponent
    // range): tf32 rounds it to itself and tf32x3's lo part is 0, so the narrow IEEE products are
    // exactly the requested precision's.
    precision = kir::ContractPrecision::IEEE;
  } else if ((nl || nr) && relaxed && precision == kir::ContractPrecision::IEEE) {
    Value other = nl ? rhsKir : lhsKir;
    if (getElementTypeOrSelf(other.getType()).isF32()) {
      narrow = getElementTypeOrSelf((nl ? nl : nr).getType());
      (nl ? lhsKir : rhsKir) = nl ? nl : nr;
      roundOther = true;
    }
  } else if ((nl || nr) && !relaxed && precision == kir::ContractPrecision::IEEE && sl->rank() == 2 &&
             sr->rank() == 2 && !laneDot) {
    // Without relaxed numerics the f32 operand keeps its value: split exactly, below.
    Value other = nl ? rhsKir : lhsKir;
    if (getElementTypeOrSelf(other.getType()).isF32() && getElementTypeOrSelf((nl ? nl : nr).getType()).isBF16()) {
      (nl ? lhsKir : rhsKir) = nl ? nl : nr;
      splitOther = true;
    }
  }
  FailureOr<Value> pl = get(lhsKir), pr = get(rhsKir);
  if (failed(pl) || failed(pr))
    return failure();
  if (roundOther) {
    Value &other = nl ? *pr : *pl;
    std::optional<Shape> os = nl ? sr : sl;
    FailureOr<Type> t = physType(*os, narrow);
    if (failed(t))
      return failure();
    // Padded members are neutralized before rounding (below the select is on the narrow value).
    other = pgpu::CastOp::create(b, l, *t, other);
    if (remarks)
      emitRemark(l) << "kir-to-pgpu: the f32 operand of this contraction is rounded to " << narrow
                    << " to match its value operand (numerics = relaxed_normalization)";
  }
  // Padded members of the paired axis contribute 0.
  Value domain = sl->axes[c.getLhsReduce()[0]];
  bool perLane = blocks.count(domain) && blocks[domain].laneValid;
  auto neutralize = [&](Value x, const Shape &s, int64_t axis) -> FailureOr<Value> {
    if (zeroOutsideValid(x) && !(perLane && s.lanes)) // a load's fill covers the block's range only
      return x;
    FailureOr<Value> mask = axisMask(l, domain, s, axis);
    if (failed(mask))
      return failure();
    if (!*mask)
      return x;
    Value zero = kc.zeroOf(l, pgpu::elementTypeOf(x.getType()));
    return Value(pgpu::SelectOp::create(b, l, *mask, x, pgpu::SplatOp::create(b, l, x.getType(), zero)));
  };
  FailureOr<Value> ml = neutralize(*pl, *sl, c.getLhsReduce()[0]), mr = neutralize(*pr, *sr, c.getRhsReduce()[0]);
  if (failed(ml) || failed(mr))
    return failure();
  if (sl->rank() != 2 || sr->rank() != 2 || laneDot)
    return emitVectorContract(c, *ml, *mr, *sl, *sr, precision);
  // Physical reduce axes (lanes lead).
  int64_t lk = c.getLhsReduce()[0] + (sl->lanes ? 1 : 0), rk = c.getRhsReduce()[0] + (sr->lanes ? 1 : 0);
  // M comes from the lane-varying operand, or from lhs.
  bool swap = sr->lanes;
  Value a = swap ? *mr : *ml, bb = swap ? *ml : *mr;
  int64_t ak = swap ? rk : lk, bk = swap ? lk : rk;
  auto transposed = [&](Value x) -> Value { // a 2-d fragment with its axes swapped
    auto type = cast<pgpu::FragmentType>(x.getType());
    auto swapped = pgpu::FragmentType::get(b.getContext(), type.getElementType(),
                                           {type.getExtents()[1], type.getExtents()[0]});
    return pgpu::TransposeOp::create(b, l, swapped, x, b.getDenseI64ArrayAttr({1, 0}));
  };
  if (ak != 1)
    a = transposed(a);
  if (bk != 0)
    bb = transposed(bb);
  FailureOr<Type> rt = physType(*so, getElementTypeOrSelf(c.getType()));
  if (failed(rt))
    return failure();
  Value acc = pgpu::SplatOp::create(b, l, *rt, kc.zeroOf(l, getElementTypeOrSelf(c.getType())));
  // The operand precision is KIR's semantics (seed 000 §8): carried, never dropped.
  kir::ContractPrecisionAttr precisionAttr;
  if (precision != kir::ContractPrecision::IEEE)
    precisionAttr = kir::ContractPrecisionAttr::get(b.getContext(), precision);
  if (splitOther) {
    // The f32 operand x (the widened bf16 one is `narrow` again) as three bf16 parts, each product
    // exact in f32; chained lo, mid, hi into one accumulator (pgpu-merge-contract-add moves the
    // fold's running sum to the bottom of the chain).
    bool f32IsA = (nr != Value()) != swap; // kir lhs is the f32 one when rhs is the widened one
    SmallVector<Value, 3> parts = pgpu::splitBF16(b, l, f32IsA ? a : bb);
    Value sum = acc;
    for (Value part : llvm::reverse(parts))
      sum = pgpu::ContractOp::create(b, l, *rt, f32IsA ? part : a, f32IsA ? bb : part, sum,
                                     b.getDenseI64ArrayAttr({1}), b.getDenseI64ArrayAttr({0}),
                                     b.getDenseI64ArrayAttr({}), b.getDenseI64ArrayAttr({}), precisionAttr);
    if (remarks)
      emitRemark(l) << "kir-to-pgpu: the f32 operand of this contraction against a widened bf16 one is split "
                       "exactly into three bf16 parts (three tensor-core products)";
    bind(c.getResult(), sum);
    return success();
  }
  bind(c.getResult(), pgpu::ContractOp::create(b, l, *rt, a, bb, acc, b.getDenseI64ArrayAttr({1}),
                                               b.getDenseI64ArrayAttr({0}), b.getDenseI64ArrayAttr({}),
                                               b.getDenseI64ArrayAttr({}), precisionAttr));
  return success();
}

/// The product of the operands (in the accumulator's dtype) broadcast to the
/// union of their axes, then one pgpu.reduce (add) over the paired axis; the
/// operands' padded paired members are already zero.
LogicalResult FoldWorksetImpl::emitVectorContract(kir::ContractOp c, Value lhs, Value rhs, const Shape &sl,
                                                  const Shape &sr, kir::ContractPrecision precision) {
  Location l = c.getLoc();
  Type acc = getElementTypeOrSelf(c.getType());
  int64_t lk = c.getLhsReduce()[0], rk = c.getRhsReduce()[0];
  // The product's shape: lhs's axes then rhs's free axes (the result's order), with the paired
  // axis kept at lhs's position.
  Shape prod{sl.lanes || sr.lanes, SmallVector<Value>(sl.axes)};
  SmallVector<int64_t> rhsDims;
  for (auto [i, d] : llvm::enumerate(sr.axes)) {
    if (int64_t(i) == rk) {
      rhsDims.push_back(lk);
      continue;
    }
    rhsDims.push_back(prod.axes.size());
    prod.axes.push_back(d);
  }
  if (prod.rank() > 2)
    return c.emitError() << "kir-to-pgpu: the product of this contraction would be a fragment of rank > 2";
  // rhs's paired axis after its free one (q[D] . K[T, D]; lhs then has no other axis, or the product
  // would be of rank 3): the product takes rhs's layout instead, lhs broadcast onto the paired axis,
  // so that no operand is transposed.
  SmallVector<int64_t> lhsDims;
  int64_t reduceAxis = lk;
  if (!llvm::is_sorted(rhsDims)) {
    prod = Shape{sr.lanes || sl.lanes, SmallVector<Value>(sr.axes)};
    lhsDims = {rk};
    rhsDims.clear();
    reduceAxis = rk;
  }
  auto widen = [&](Value x, const Shape &s) -> FailureOr<Value> {
    if (pgpu::elementTypeOf(x.getType()) == acc)
      return x;
    FailureOr<Type> t = physType(s, acc);
    if (failed(t))
      return failure();
    return Value(pgpu::CastOp::create(b, l, *t, x));
  };
  FailureOr<Value> wl = widen(lhs, sl), wr = widen(rhs, sr);
  if (failed(wl) || failed(wr))
    return failure();
  auto product2 = [&](Value x, Value y) -> FailureOr<Value> {
    FailureOr<Value> bl = broadcastTo(l, x, sl, prod, lhsDims), br = broadcastTo(l, y, sr, prod, rhsDims);
    if (failed(bl) || failed(br))
      return failure();
    return kc.binary(l, kir::BinaryKind::Mul, *bl, *br);
  };
  // KIR_ContractPrecision (f32 operands, verified): products of the TF32 parts (exact in f32);
  // tf32x3's three terms of one k summed first, one association of the terms' sum. The padded
  // members are already zero, and tf32(0) = 0.
  FailureOr<Value> product = failure();
  if (precision == kir::ContractPrecision::IEEE) {
    product = product2(*wl, *wr);
  } else {
    Value lh = kc.roundTF32(l, *wl), rh = kc.roundTF32(l, *wr);
    product = product2(lh, rh);
    if (succeeded(product) && precision == kir::ContractPrecision::TF32x3) {
      FailureOr<Value> lohi = product2(kc.roundTF32(l, *wl, true), rh);
      FailureOr<Value> hilo = product2(lh, kc.roundTF32(l, *wr, true));
      if (failed(lohi) || failed(hilo))
        return failure();
      product = kc.binary(l, kir::BinaryKind::Add, kc.binary(l, kir::BinaryKind::Add, *lohi, *hilo), *product);
    }
  }
  if (failed(product))
    return failure();
  std::optional<Shape> so = shapeOf(c.getResult());
  FailureOr<Type> rt = physType(*so, acc);
  if (failed(rt))
    return failure();
  Value zero = kc.zeroOf(l, acc);
  int64_t axis = reduceAxis + (prod.lanes ? 1 : 0);
  auto red = pgpu::ReduceOp::create(b, l, TypeRange{*rt}, ValueRange{*product}, b.getDenseI64ArrayAttr({axis}),
                                    ValueRange{zero});
  if (failed(kc.addCombine(red.getCombine(), TypeRange{acc})))
    return failure();
  bind(c.getResult(), red.getResult(0));
  return success();
}

/// kir.region_fold as a pgpu.region_fold over BLOCK_<T>-wide source tiles.
LogicalResult FoldWorksetImpl::emitFold(kir::RegionFoldOp f) {
  Location l = f.getLoc();
  unsigned n = f.getIdentities().size();
  Value tile = shapeOf(f.getSources()[0])->axes[f.getAxis()];
  // Captures do not depend on the tile: realize them once, before the fold.
  for (Value c : f.getCaptures())
    if (!overLoopAxis(c) && failed(get(c))) // one over a loop axis is read block by block in its loop
      return failure();
  SmallVector<Type> types;
  SmallVector<Shape> summary;
  SmallVector<Value> identities;
  for (unsigned c = 0; c < n; ++c) {
    Shape s = *shapeOf(f.getResult(c));
    FailureOr<Type> t = physType(s, getElementTypeOrSelf(f.getResult(c).getType()));
    FailureOr<Value> id = get(f.getIdentities()[c]);
    if (failed(t) || failed(id))
      return failure();
    FailureOr<Value> idb = broadcastTo(l, *id, *shapeOf(f.getIdentities()[c]), s);
    if (failed(idb))
      return failure();
    summary.push_back(s);
    types.push_back(*t);
    identities.push_back(*idb);
  }
  // A lane domain (bounds per lane) is walked over its source's coordinates, from the first member
  // of some lane's range to the last of some lane's; each lane masks the members outside its own.
  std::optional<LaneRange> laneRange;
  DomainVals dom;
  Value lower = kc.constIndex(l, 0), upper;
  if (laneDomains.contains(tile)) {
    FailureOr<LaneRange> r = laneRangeOf(l, tile);
    if (failed(r))
      return failure();
    laneRange = *r;
    dom = {kc.constIndex(l, 0), r->upper, kc.constIndex(l, 1), r->upper};
    lower = r->lower, upper = r->upper;
  } else {
    FailureOr<DomainVals> tileDomain = domainOf(l, tile);
    if (failed(tileDomain))
      return failure();
    dom = *tileDomain;
    upper = dom.size;
  }
  StringRef tileParam = tileAxes.find(tile)->second;
  Value step = param(l, tileParam);
  auto fold = pgpu::RegionFoldOp::create(b, l, types, lower, upper, step, identities, ValueRange{});
  {
    OpBuilder::InsertionGuard guard(b);
    Block *body = b.createBlock(&fold.getSummarize());
    Value begin = body->addArgument(b.getIndexType(), l), end = body->addArgument(b.getIndexType(), l);
    blocks[tile] = makeBlock(l, tileParam, begin, end, dom);
    if (laneRange) {
      AxisBlock &blk = blocks[tile];
      Shape laneShape{true, {}}, both{true, {tile}};
      auto bcast = [&](Value x, const Shape &from) { return broadcastTo(l, x, from, both).value(); };
      Value pos = bcast(blk.pos, Shape{false, {tile}});
      Value ge = pgpu::CmpOp::create(b, l, kir::CmpPredicate::GE, pos, bcast(laneRange->lo, laneShape));
      Value lt = pgpu::CmpOp::create(b, l, kir::CmpPredicate::LT, pos, bcast(laneRange->hi, laneShape));
      blk.laneValid = kc.binary(l, kir::BinaryKind::And, ge, lt);
    }
    scopes.emplace_back();
    // Yields the KIR block's results, each in its summary component's shape.
    auto yieldSummary = [&](Block &kirBlock) -> LogicalResult {
      SmallVector<Value> yields;
      for (unsigned c = 0; c < n; ++c) {
        Value y = kirBlock.getTerminator()->getOperand(c);
        FailureOr<Value> py = get(y);
        FailureOr<Value> yb = succeeded(py) ? broadcastTo(l, *py, *shapeOf(y), summary[c]) : FailureOr<Value>();
        if (failed(yb))
          return failure();
        yields.push_back(*yb);
      }
      pgpu::YieldOp::create(b, l, yields);
      scopes.pop_back();
      return success();
    };
    if (failed(yieldSummary(f.getSummarize().front())))
      return failure();
    blocks.erase(tile);

    Block *merge = b.createBlock(&fold.getCombine());
    scopes.emplace_back();
    Block &kirMerge = f.getCombine().front();
    for (auto [i, arg] : llvm::enumerate(kirMerge.getArguments()))
      bind(arg, merge->addArgument(types[i % n], l));
    if (failed(yieldSummary(kirMerge)))
      return failure();
  }
  fold = closeSummarize(b, fold);
  if (remarks)
    emitRemark(l) << "kir-to-pgpu: region fold constructed on fragments: "
                  << (hasLanes && groupSize ? laneParam + " lanes of one group (the lanes' `// G` quotient, a "
                                                          "scalar of the program: their keys are one tile)"
                      : hasLanes ? laneParam + " lanes"
                      : rowTiles ? std::string("one member per program (its folds hold no contraction: no tile "
                                               "product to share across members)")
                      : lanesBatched ? std::string("one member per program (a contraction's operands both vary "
                                                   "across the members: no tile product to share)")
                                     : std::string("one member per program (its domain is the member's)"))
                  << ", " << tileParam << "-wide source tiles; its contractions and reductions stay structured ops";
  for (unsigned c = 0; c < n; ++c)
    bind(f.getResult(c), fold.getResult(c));
  return success();
}

LogicalResult FoldWorksetImpl::emitStore(kir::StoreOp s) {
  Location l = s.getLoc();
  // A store over a fold's tile domain writes a row that the folds summarize (softmax written out):
  // it is one more traversal of the domain, after the folds, in the folds' BLOCK_<T>-wide tiles, its
  // value recomputed per tile from the sources (a contraction stays a tile product); the row is never
  // kept whole (seed 002 §3.4: structured realization creates the loops).
  for (Value coord : s.getCoords()) {
    if (!isa<kir::DomainType>(coord.getType()))
      continue;
    Value c = axisOf(coord);
    if (!tileAxes.count(c) || blocks.count(c))
      continue;
    FailureOr<DomainVals> tileDomain = domainOf(l, c);
    if (failed(tileDomain))
      return failure();
    DomainVals dom = *tileDomain;
    StringRef tileParam = tileAxes.find(c)->second;
    // What the value reads that does not range over the tile (the folds' results, the member's
    // own reads) is realized once, before the traversal.
    SmallVector<Value> roots{s.getValue()};
    llvm::append_range(roots, s.getCoords());
    // One over a loop axis is read in its contraction's loop.
    if (failed(realizeBeforeLoop(roots, c, [&](Value v) { return !overLoopAxis(v); })))
      return failure();
    auto loop = pgpu::ForOp::create(b, l, TypeRange(), kc.constIndex(l, 0), dom.size, param(l, tileParam),
                                    ValueRange{});
    OpBuilder::InsertionGuard guard(b);
    Block *body = b.createBlock(&loop.getBody());
    Value begin = body->addArgument(b.getIndexType(), l);
    blocks[c] = makeBlock(l, tileParam, begin, dom.size, dom);
    scopes.emplace_back();
    LogicalResult done = emitStore(s);
    scopes.pop_back();
    blocks.erase(c);
    if (failed(done))
      return failure();
    pgpu::YieldOp::create(b, l);
    if (remarks)
      emitRemark(l) << "kir-to-pgpu: this store over a region fold's domain is a traversal of its own after the "
                       "folds, in "
                    << tileParam << "-wide tiles, its value recomputed per tile (the row is not kept whole)";
    return success();
  }
  auto access = writeAccess(l, s.getValue(), s.getCoords());
  if (failed(access))
    return failure();
  auto &[value, coords, valid] = *access;
  pgpu::StoreOp::create(b, l, value, kc.map.lookup(s.getView()), coords, valid);
  return success();
}

FailureOr<std::tuple<Value, SmallVector<Value>, Value>> FoldWorksetImpl::writeAccess(Location l, Value stored,
                                                                                     ValueRange at) {
  Shape access;
  for (Value c : at) {
    if (isa<kir::DomainType>(c.getType())) {
      access.axes.push_back(axisOf(c));
      continue;
    }
    std::optional<Shape> cs = shapeOf(c);
    if (!cs)
      return failure();
    access.lanes |= cs->lanes;
  }
  std::optional<Shape> vs = shapeOf(stored);
  if (!vs)
    return failure();
  access.lanes |= vs->lanes;
  FailureOr<Value> v = get(stored);
  if (failed(v))
    return failure();
  FailureOr<Value> value = broadcastTo(l, *v, *vs, access);
  auto coords = accessCoords(l, at, access);
  if (failed(value) || failed(coords))
    return failure();
  return std::make_tuple(*value, coords->first, coords->second);
}

/// A member's write of a kernel-level buffer: a store at the member's coordinates (the buffer's
/// coordinates are domains or the member's scalars, never a fold's tile: planBody checks).
LogicalResult FoldWorksetImpl::emitBufferStore(kir::BufferStoreOp s) {
  auto access = writeAccess(s.getLoc(), s.getValue(), s.getCoords());
  if (failed(access))
    return failure();
  auto &[value, coords, valid] = *access;
  pgpu::BufferStoreOp::create(b, s.getLoc(), value, kc.map.lookup(s.getBuffer()), coords, valid);
  return success();
}

LogicalResult FoldWorksetImpl::emitEffects(Block &block) {
  for (Operation &op : block.without_terminator()) {
    if (auto s = dyn_cast<kir::BufferStoreOp>(op)) {
      if (failed(emitBufferStore(s)))
        return failure();
    } else if (auto s = dyn_cast<kir::StoreOp>(op)) {
      // A scan's output is stored tile by tile inside the scan's emit region.
      if (kir::RegionScanOp scan = scanOfOutput(s.getValue())) {
        if (!emittedScans.contains(scan) && failed(emitScan(scan)))
          return failure();
        continue;
      }
      if (failed(emitStore(s)))
        return failure();
    } else if (auto branch = dyn_cast<kir::IfOp>(op)) {
      Region &region = *constCondition(branch.getCondition()) ? branch.getThenRegion() : branch.getElseRegion();
      if (!region.empty() && failed(emitEffects(region.front())))
        return failure();
    }
  }
  return success();
}

/// When a free axis is longer than its block: each lane in turn, element by
/// element (the construction every workset gets without fragments).
LogicalResult FoldWorksetImpl::emitFallback(ArrayRef<Value> coords, Value laneBase) {
  Location l = par.getLoc();
  Block &body = par.getBody().front();
  if (!hasLanes) { // the program's one point of the parallel space
    for (auto [k, dom] : llvm::enumerate(par.getDomains()))
      kc.map.map(body.getArgument(k), kc.member(l, kc.domains.lookup(dom), coords[k]));
    for (Operation *pure : kc.replayed)
      if (failed(kc.emitStatement(*pure)))
        return failure();
    return kc.emitBlock(body);
  }
  Value lanes = param(l, laneParam);
  auto loop = pgpu::ForOp::create(b, l, TypeRange(), kc.constIndex(l, 0), lanes, kc.constIndex(l, 1), ValueRange{});
  OpBuilder::InsertionGuard guard(b);
  Block *lb = b.createBlock(&loop.getBody());
  Value i = lb->addArgument(b.getIndexType(), l);
  Value pos = kc.binary(l, kir::BinaryKind::Add, laneBase, i);
  const DomainVals &d = kc.domains.find(laneDomain)->second;
  Value inside = pgpu::CmpOp::create(b, l, kir::CmpPredicate::LT, pos, laneLimit);
  auto guardIf = pgpu::IfOp::create(b, l, TypeRange(), inside);
  b.createBlock(&guardIf.getThenRegion());
  for (unsigned k = 0, c = 0; k < par.getDomains().size(); ++k)
    if (k != laneIndex)
      kc.map.map(body.getArgument(k), kc.member(l, kc.domains.lookup(par.getDomains()[k]), coords[c++]));
  kc.map.map(laneArg, kc.member(l, d, pos));
  for (Operation *pure : kc.replayed)
    if (failed(kc.emitStatement(*pure)))
      return failure();
  if (failed(kc.emitBlock(body)))
    return failure();
  pgpu::YieldOp::create(b, l);
  b.createBlock(&guardIf.getElseRegion());
  pgpu::YieldOp::create(b, l);
  b.setInsertionPointAfter(guardIf);
  pgpu::YieldOp::create(b, l);
  return success();
}

LogicalResult FoldWorksetImpl::emit(ArrayRef<Value> coords) {
  Location l = par.getLoc();
  Block &body = par.getBody().front();
  scopes.clear();
  blocks.clear();
  scopes.emplace_back();
  for (unsigned k = 0, c = 0; k < par.getDomains().size(); ++k)
    if (!hasLanes || k != laneIndex)
      bind(body.getArgument(k), kc.member(l, kc.domains.lookup(par.getDomains()[k]), coords[c++]));
  Value laneBase;
  if (hasLanes) {
    const DomainVals &ld = kc.domains.find(laneDomain)->second;
    // Lane blocks are walked from the last (any order is legal for a kir.parallel): when predicate
    // narrowing lets later blocks fold longer ranges (a causal mask), the longest start first and
    // the short ones fill the last wave.
    Value lastBlock = kc.binary(l, kir::BinaryKind::Sub, laneBlocks, kc.constIndex(l, 1));
    Value block = kc.binary(l, kir::BinaryKind::Sub, lastBlock, coords.back());
    laneLimit = ld.size;
    if (groupSize) {
      // Block `block` is chunk c of group q: lanes [q*G + c*BLOCK, min(q*G + G, size)), so every
      // valid lane's h // G is q (G >= 1 on this path; the guard below sends G < 1 to the fallback).
      Value g = kc.binary(l, kir::BinaryKind::Max, get(groupSize).value(), kc.constIndex(l, 1));
      Value chunks = pgpu::CeilDivOp::create(b, l, g, param(l, laneParam));
      Value group = kc.binary(l, kir::BinaryKind::Div, block, chunks);
      Value chunk = kc.binary(l, kir::BinaryKind::Rem, block, chunks);
      Value groupBase = kc.binary(l, kir::BinaryKind::Mul, group, g);
      laneBase = kc.binary(l, kir::BinaryKind::Add, groupBase,
                           kc.binary(l, kir::BinaryKind::Mul, chunk, param(l, laneParam)));
      laneLimit = kc.binary(l, kir::BinaryKind::Min, ld.size, kc.binary(l, kir::BinaryKind::Add, groupBase, g));
      for (Operation *q : quotients)
        bind(q->getResult(0), group);
    } else {
      laneBase = kc.binary(l, kir::BinaryKind::Mul, block, param(l, laneParam));
    }
    lane = makeBlock(l, laneParam, laneBase, laneLimit, ld);
    bind(laneArg, lane.member);
  }
  // One uniform guard: every free axis fits its block (and, for grouped lanes, G >= 1: h // 0 is
  // left to the element-wise construction, as written).
  Value fits;
  if (groupSize)
    fits = pgpu::CmpOp::create(b, l, kir::CmpPredicate::GE, get(groupSize).value(), kc.constIndex(l, 1));
  // Slices on one axis with their partners: only where their lengths agree at run time (else the
  // element-wise construction, as written).
  if (Value paired = pairedSizes(l))
    fits = fits ? kc.binary(l, kir::BinaryKind::And, fits, paired) : paired;
  for (auto &[d, name] : freeAxes) {
    const DomainVals &dv = kc.domains.find(d)->second;
    Value ok = pgpu::CmpOp::create(b, l, kir::CmpPredicate::LE, dv.size, param(l, name));
    fits = fits ? kc.binary(l, kir::BinaryKind::And, fits, ok) : ok;
  }
  // Each variant in its own scope: values realized in one branch are not visible in the other.
  auto emitFast = [&](bool exact) -> LogicalResult {
    scopes.emplace_back();
    emittedScans.clear();
    for (auto &[d, name] : freeAxes) {
      const DomainVals &dv = kc.domains.find(d)->second;
      blocks[d] = makeBlock(l, name, kc.constIndex(l, 0), dv.size, dv, exact);
    }
    // The member's own domains first, in the body's order, where every fold of the variant sees them.
    localDomains.clear();
    for (Value d : memberDomains)
      if (!laneDomains.contains(d) && failed(domainOf(d.getLoc(), d))) // a lane domain's range: in its fold
        return failure();
    LogicalResult done = emitEffects(body);
    scopes.pop_back();
    return done;
  };
  if (!fits)
    return emitFast(false);
  auto guard = pgpu::IfOp::create(b, l, TypeRange(), fits);
  OpBuilder::InsertionGuard g(b);
  b.createBlock(&guard.getThenRegion());
  // Boundary neutralization (seed 002 §3.4) of the free axes: when every one is exactly its
  // block, their validity is all true and their masks are not built at all.
  Value exact;
  for (auto &[d, name] : freeAxes) {
    const DomainVals &dv = kc.domains.find(d)->second;
    Value eq = pgpu::CmpOp::create(b, l, kir::CmpPredicate::EQ, dv.size, param(l, name));
    exact = exact ? kc.binary(l, kir::BinaryKind::And, exact, eq) : eq;
  }
  if (!exact) { // only the group's guard: no free axis to neutralize
    if (failed(emitFast(false)))
      return failure();
  } else {
    auto split = pgpu::IfOp::create(b, l, TypeRange(), exact);
    OpBuilder::InsertionGuard inner(b);
    b.createBlock(&split.getThenRegion());
    if (failed(emitFast(true)))
      return failure();
    pgpu::YieldOp::create(b, l);
    b.createBlock(&split.getElseRegion());
    if (failed(emitFast(false)))
      return failure();
    pgpu::YieldOp::create(b, l);
  }
  pgpu::YieldOp::create(b, l);
  b.createBlock(&guard.getElseRegion());
  if (failed(emitPastBlocks(coords, laneBase)))
    return failure();
  pgpu::YieldOp::create(b, l);
  return success();
}

//===----------------------------------------------------------------------===//
// FoldWorkset
//===----------------------------------------------------------------------===//

FoldWorkset::FoldWorkset(KernelConstructor &kc, kir::ParallelOp parallel)
    : impl(std::make_unique<FoldWorksetImpl>(kc, parallel)) {}
FoldWorkset::~FoldWorkset() = default;
FoldWorkset::FoldWorkset(FoldWorkset &&) = default;
bool FoldWorkset::plan() { return impl->plan(); }
const std::string &FoldWorkset::whyNot() const { return impl->why; }
const std::string &FoldWorkset::subject() const { return impl->subject; }
SmallVector<Value> FoldWorkset::groupExtents(Location loc) { return impl->groupExtents(loc); }
void FoldWorkset::declareParams(pgpu::KernelOp kernel) { impl->declareParams(kernel); }
LogicalResult FoldWorkset::emit(ArrayRef<Value> coords) { return impl->emit(coords); }
