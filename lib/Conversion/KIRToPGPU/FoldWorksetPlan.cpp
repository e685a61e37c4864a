//===- FoldWorksetPlan.cpp - planning region-fold worksets ----------------===//
//
// The planning half of FoldWorkset.cpp (whose header comment describes the
// construction as a whole): coordinate provenance over the KIR body, the
// lane/fragment/tile plan (`plan`, `planBody`, grouped lanes) and the launch
// parameters a planned workset declares. Nothing is emitted here; emission
// (FoldWorkset.cpp) reads only what the plan recorded.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/IR/ExactSplit.h"
#include "FoldWorksetImpl.h"

#include "tessel/Dialect/KIR/IR/DomainPairing.h"
#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::construct;


//===----------------------------------------------------------------------===//
// Coordinate provenance
//===----------------------------------------------------------------------===//

std::optional<bool> FoldWorksetImpl::constCondition(Value kirCond) {
  kirCond = resolve(kirCond);
  if (auto c = kirCond.getDefiningOp<kir::ConstexprOp>()) {
    Attribute value = kc.kernel.getConstexprValue(c.getName());
    if (auto flag = dyn_cast_or_null<BoolAttr>(value))
      return flag.getValue();
    if (auto i = dyn_cast_or_null<IntegerAttr>(value))
      return i.getInt() != 0;
    return std::nullopt;
  }
  APInt v;
  if (matchPattern(kirCond, m_ConstantInt(&v)))
    return !v.isZero();
  if (Value mapped = kc.map.lookupOrNull(kirCond); mapped && matchPattern(mapped, m_ConstantInt(&v)))
    return !v.isZero();
  return std::nullopt;
}

std::optional<Shape> FoldWorksetImpl::shapeOf(Value v) {
  v = resolve(v);
  if (auto it = shapes.find(v); it != shapes.end())
    return it->second;
  if (isa<kir::DomainType, kir::ViewType>(v.getType()))
    return std::nullopt;
  Operation *def = v.getDefiningOp();
  if (!def) // runtime scalars of the ABI
    return kc.map.contains(v) ? std::optional<Shape>(Shape{}) : std::nullopt;
  // A top-level value: launch facts are scalars; pure producers are analyzed here.
  if (!par->isAncestor(def) && kc.map.contains(v))
    return Shape{};
  if (!analyzeOp(def))
    return std::nullopt;
  auto it = shapes.find(v);
  if (it == shapes.end())
    return std::nullopt;
  return it->second;
}

bool FoldWorksetImpl::analyzeBlock(Block &block) {
  for (Operation &op : block.without_terminator())
    if (!analyzeOp(&op))
      return false;
  return true;
}

/// `kir.domain %c0 to %x` over `kir.extent "X"` names its block BLOCK_X.
std::string FoldWorksetImpl::paramName(Value domain) {
  std::string name;
  if (auto d = domain.getDefiningOp<kir::DomainOp>())
    if (auto e = d.getUpper().getDefiningOp<kir::ExtentOp>())
      name = "BLOCK_" + e.getName().str();
  if (name.empty())
    name = "BLOCK_A" + std::to_string(freeAxes.size() + tileAxes.size());
  // Names the other passes declare, and names already taken here.
  auto taken = [&](StringRef n) {
    if (n == pgpu::kBlockParam || n == "BLOCK_P" || n == laneParam)
      return true;
    for (auto &[d, p] : freeAxes)
      if (p == n && d != domain)
        return true;
    for (auto &[d, p] : tileAxes)
      if (p == n && d != domain)
        return true;
    for (auto &[d, p] : loopAxes)
      if (p == n && d != domain)
        return true;
    return false;
  };
  while (taken(name))
    name += "_";
  return name;
}

bool FoldWorksetImpl::analyzeOp(Operation *op) {
  if (llvm::all_of(op->getResults(), [&](Value r) { return shapes.contains(r); }) && op->getNumResults())
    return true;
  if (llvm::is_contained(quotients, op)) { // grouped lanes: the program's group, the same for its lanes
    shapes[op->getResult(0)] = Shape{};
    return true;
  }
  auto shapeOfOperand = [&](Value v, Shape &out) -> bool {
    std::optional<Shape> s = shapeOf(v);
    if (!s)
      return false;
    out = *s;
    return true;
  };
  auto tensorAxesOk = [&](Operation *o, ArrayRef<Value> operands, Shape &out) -> bool {
    out = Shape{};
    bool first = true;
    for (Value v : operands) {
      Shape s;
      if (!shapeOfOperand(v, s))
        return fail(o, "an operand has no coordinate provenance");
      out.lanes |= s.lanes;
      if (s.axes.empty())
        continue;
      if (first) {
        out.axes = s.axes;
        first = false;
      } else if (!sameAxes(out.axes, s.axes)) {
        return fail(o, "operands range over different domains");
      }
    }
    return true;
  };
  // A masked read's validity ranges over the read's own axes (or fewer, broadcast over them); its
  // fill is a scalar. Tiles then read under validity and the access's own bounds (FoldWorkset.cpp).
  auto maskedRead = [&](Operation *o, Value valid, Shape &s) -> bool {
    if (!valid)
      return true;
    Shape vs;
    if (!shapeOfOperand(valid, vs))
      return fail(o, "a read's validity has no coordinate provenance");
    if (!vs.axes.empty() && !sameAxes(vs.axes, s.axes))
      return fail(o, "a read's validity ranges over other axes than the read");
    s.lanes |= vs.lanes;
    return true;
  };
  return llvm::TypeSwitch<Operation *, bool>(op)
      .Case<arith::ConstantOp, kir::ConstexprOp, kir::ExtentOp>([&](Operation *c) {
        if (!c->getResult(0).getType().isIntOrIndexOrFloat())
          return fail(c, "a tensor constant");
        shapes[c->getResult(0)] = Shape{};
        return true;
      })
      .Case<kir::LoadOp>([&](kir::LoadOp l) {
        Shape s;
        for (Value c : l.getCoords()) {
          if (isa<kir::DomainType>(c.getType())) {
            s.axes.push_back(axisOf(c));
            continue;
          }
          Shape cs;
          if (isa<RankedTensorType>(c.getType()) || !shapeOfOperand(c, cs) || !cs.axes.empty())
            return fail(l, "a load at data-dependent coordinates");
          s.lanes |= cs.lanes;
        }
        if (!maskedRead(l, l.getValid(), s))
          return false;
        shapes[l.getResult()] = s;
        return true;
      })
      .Case<kir::GatherOp>([&](kir::GatherOp g) {
        // seed 000 §6 index relations: a domain coordinate contributes its axis, an index tensor
        // its own axes, a coordinate paired (`joint`) with an earlier index tensor none; it must
        // range over its partner's domains.
        ArrayRef<int64_t> joint = kir::jointOf(g);
        SmallVector<Shape> coordShapes;
        Shape s;
        for (auto [i, c] : llvm::enumerate(g.getCoords())) {
          bool paired = i < joint.size() && joint[i] >= 0 && size_t(joint[i]) < i;
          if (isa<kir::DomainType>(c.getType())) {
            if (paired)
              return fail(g, "a domain coordinate paired with an index tensor");
            coordShapes.push_back(Shape{false, {axisOf(c)}});
            s.axes.push_back(axisOf(c));
            continue;
          }
          Shape cs;
          if (!shapeOfOperand(c, cs))
            return fail(g, "a coordinate has no coordinate provenance");
          auto tensor = dyn_cast<RankedTensorType>(c.getType());
          if (tensor ? cs.axes.size() != size_t(tensor.getRank()) : !cs.axes.empty())
            return fail(g, "a coordinate whose axes have no coordinate provenance");
          if (paired && cs.axes != coordShapes[joint[i]].axes)
            return fail(g, "paired index tensors range over different domains");
          s.lanes |= cs.lanes;
          if (!paired)
            llvm::append_range(s.axes, cs.axes);
          coordShapes.push_back(cs);
        }
        if (!maskedRead(g, g.getValid(), s))
          return false;
        shapes[g.getResult()] = s;
        return true;
      })
      .Case<kir::TransposeOp>([&](kir::TransposeOp t) {
        // A permuted view (a fold source with its axis first, kir-online-folds): its axes permuted.
        Shape in;
        if (!shapeOfOperand(t.getOperand(), in))
          return fail(t, "an operand has no coordinate provenance");
        if (in.axes.size() != t.getPermutation().size())
          return fail(t, "a transpose of a value whose axes have no coordinate provenance");
        Shape out{in.lanes, {}};
        for (int64_t i : t.getPermutation())
          out.axes.push_back(in.axes[i]);
        shapes[t.getResult()] = out;
        return true;
      })
      .Case<kir::ExtractOp>([&](kir::ExtractOp e) {
        // A rank-0 tensor's one element (a dot product's result): the same value.
        Shape s;
        if (!e.getIndices().empty() || !shapeOfOperand(e.getTensor(), s) || !s.axes.empty())
          return fail(e, "an element picked from a tensor with axes");
        shapes[e.getResult()] = s;
        return true;
      })
      .Case<kir::DomainOp, kir::SubregionOp>([&](Operation *d) { return analyzeMemberDomain(d); })
      .Case<kir::IndicesOp>([&](kir::IndicesOp i) {
        shapes[i.getResult()] = Shape{false, {axisOf(i.getDomain())}};
        return true;
      })
      .Case<kir::BroadcastOp>([&](kir::BroadcastOp br) {
        Shape in;
        if (!shapeOfOperand(br.getOperand(), in))
          return fail(br, "an operand has no coordinate provenance");
        Shape out{in.lanes, {}};
        for (Value d : br.getDomains())
          out.axes.push_back(axisOf(d));
        shapes[br.getResult()] = out;
        return true;
      })
      .Case<kir::BroadcastAsOp>([&](kir::BroadcastAsOp br) {
        Shape in, ref;
        if (!shapeOfOperand(br.getOperand(), in) || !shapeOfOperand(br.getReference(), ref))
          return fail(br, "an operand has no coordinate provenance");
        shapes[br.getResult()] = Shape{in.lanes || ref.lanes, ref.axes};
        return true;
      })
      .Case<kir::BinaryOp, kir::UnaryOp, kir::CmpOp, kir::SelectOp, kir::CastOp, kir::BitcastOp>([&](Operation *p) {
        Shape s;
        if (!tensorAxesOk(p, SmallVector<Value>(p->getOperands()), s))
          return false;
        shapes[p->getResult(0)] = s;
        return true;
      })
      .Case<kir::ReduceOp>([&](kir::ReduceOp r) {
        if (r.getAxes().size() != 1)
          return fail(r, "a reduction over several axes");
        Shape in;
        if (!tensorAxesOk(r, SmallVector<Value>(r.getInputs()), in))
          return false;
        Shape out{in.lanes, {}};
        for (auto [i, d] : llvm::enumerate(in.axes))
          if (!llvm::is_contained(r.getAxes(), int64_t(i)))
            out.axes.push_back(d);
        for (Value res : r.getResults())
          shapes[res] = out;
        return true;
      })
      .Case<kir::ContractOp>([&](kir::ContractOp c) {
        if (!c.getLhsBatch().empty())
          return fail(c, "a contraction with batch axes");
        Shape l, r;
        if (!shapeOfOperand(c.getLhs(), l) || !shapeOfOperand(c.getRhs(), r))
          return fail(c, "an operand has no coordinate provenance");
        // Both operands per lane and only the paired axis (each lane's own dot product: a gathered
        // row against the lane's row) is a product and a row reduction per lane (emitVectorContract).
        bool laneDot = l.axes.size() == 1 && r.axes.size() == 1 && c.getLhsReduce().size() == 1;
        if (l.lanes && r.lanes && !laneDot) {
          lanesBatched = true;
          return fail(c, "both operands vary across the lanes (a batched contraction)");
        }
        if (c.getLhsReduce().size() != 1)
          return fail(c, "a contraction over several axes");
        if (!sameAxes(l.axes[c.getLhsReduce()[0]], r.axes[c.getRhsReduce()[0]]))
          return fail(c, "paired axes range over different domains");
        Shape out{l.lanes || r.lanes, {}};
        for (auto [i, d] : llvm::enumerate(l.axes))
          if (!llvm::is_contained(c.getLhsReduce(), int64_t(i)))
            out.axes.push_back(d);
        for (auto [i, d] : llvm::enumerate(r.axes))
          if (!llvm::is_contained(c.getRhsReduce(), int64_t(i)))
            out.axes.push_back(d);
        // tl.dot-shaped (each operand one free axis, or the lanes, and the paired one), or with a
        // one-dimensional operand (a matrix-vector or dot product, emitVectorContract).
        if (l.rank() == 0 || r.rank() == 0 || l.rank() > 2 || r.rank() > 2)
          return fail(c, "a contraction whose operands are not one- or two-dimensional fragments");
        // An init (a classifier's bias, `init=b[classes]`) over the result's axes or fewer: added to
        // the product (emitOp), the sum's order being the implementation's (seed 000 §8).
        if (Value init = c.getInit()) {
          Shape is;
          if (!shapeOfOperand(init, is))
            return fail(c, "an init has no coordinate provenance");
          if (llvm::any_of(is.axes, [&](Value d) { return !llvm::is_contained(out.axes, d); }) ||
              (is.lanes && !out.lanes))
            return fail(c, "an init over axes the result does not have");
        }
        shapes[c.getResult()] = out;
        return true;
      })
      .Case<kir::RegionFoldOp>([&](kir::RegionFoldOp f) { return analyzeFold(f); })
      .Case<kir::RegionScanOp>([&](kir::RegionScanOp sc) { return analyzeScan(sc); })
      .Case<kir::IfOp>([&](kir::IfOp branch) {
        std::optional<bool> taken = branch.getIsConstexpr() ? constCondition(branch.getCondition()) : std::nullopt;
        if (!taken)
          return fail(branch, "control flow on a runtime value");
        Region &region = *taken ? branch.getThenRegion() : branch.getElseRegion();
        if (region.empty())
          return branch.getNumResults() == 0;
        if (!analyzeBlock(region.front()))
          return false;
        for (auto [r, y] : llvm::zip(branch.getResults(), region.front().getTerminator()->getOperands()))
          alias[r] = y;
        return true;
      })
      .Case<kir::StoreOp, kir::BufferStoreOp>([&](Operation *s) {
        // A member's write of a kernel-level buffer (a row's value a later sum reads) is a store like
        // a view's, at the member's coordinates.
        Value value = s->getOperand(0);
        ValueRange coords = isa<kir::StoreOp>(s) ? cast<kir::StoreOp>(s).getCoords()
                                                 : cast<kir::BufferStoreOp>(s).getCoords();
        if (auto bs = dyn_cast<kir::BufferStoreOp>(s); bs && !kc.map.contains(bs.getBuffer()))
          return fail(s, "a store of a buffer the kernel does not declare");
        Shape v;
        if (!shapeOfOperand(value, v))
          return fail(s, "the stored value has no coordinate provenance");
        for (Value c : coords) {
          Shape cs;
          if (!isa<kir::DomainType>(c.getType()) &&
              (isa<RankedTensorType>(c.getType()) || !shapeOfOperand(c, cs) || !cs.axes.empty()))
            return fail(s, "a store at data-dependent coordinates");
        }
        return true;
      })
      .Default([&](Operation *other) { return fail(other, "not constructed on fragments yet"); });
}

bool FoldWorksetImpl::analyzeMemberDomain(Operation *op) {
  if (op->getBlock() != &par.getBody().front())
    return fail(op, "a domain defined inside a fold or a branch");
  SmallVector<Value, 2> bounds;
  if (auto d = dyn_cast<kir::DomainOp>(op)) {
    bounds = {d.getLower(), d.getUpper()};
  } else {
    auto sub = cast<kir::SubregionOp>(op);
    if (!knownDomain(sub.getSource()))
      return fail(op, "a subregion of a domain construction does not realize");
    bounds = {sub.getBegin(), sub.getEnd()};
  }
  bool varies = false;
  for (Value v : bounds) {
    std::optional<Shape> s = shapeOf(v);
    if (!s || !s->axes.empty())
      return fail(op, "a domain whose bounds are not scalars of the member");
    varies |= s->lanes;
  }
  if (varies) {
    // Bounds per lane (a packed token's keys [start(seq(t)), t + 1)): a subregion of a launch-time
    // domain of step 1 is walked over the union of the block's lanes' ranges, each lane masking the
    // members outside its own (seed 002 §3.4 boundary neutralization; emitFold).
    // One bound must be the lane's own coordinate plus a lane-uniform offset (a causal end t + 1): the
    // lanes' ranges then overlap in all but a block's width. Bounds that are both data (a sequence per
    // lane, cu[b]:cu[b + 1]) may be disjoint ranges whose union is BLOCK times each lane's work.
    auto sub = dyn_cast<kir::SubregionOp>(op);
    APInt one;
    if (!sub || !kc.domains.count(sub.getSource()) ||
        !matchPattern(kc.domains.lookup(sub.getSource()).step, m_ConstantInt(&one)) || !one.isOne())
      return fail(op, "a domain whose bounds vary across the lanes (not a subregion of a launch-time domain "
                      "of step 1)");
    if (!laneAffine(sub.getBegin()) && !laneAffine(sub.getEnd()))
      return fail(op, "a domain whose bounds vary across the lanes, neither of them the lane's coordinate plus "
                      "an offset of the program (the lanes' ranges may be disjoint)");
    laneDomains.insert(op->getResult(0));
  }
  memberDomains.insert(op->getResult(0));
  return true;
}

bool FoldWorksetImpl::laneAffine(Value v) {
  v = resolve(v);
  if (v == laneArg)
    return true;
  auto uniform = [&](Value x) {
    std::optional<Shape> s = shapeOf(x);
    return s && !s->lanes && s->axes.empty();
  };
  if (auto c = v.getDefiningOp<kir::CastOp>()) // index <-> i32 (exact for coordinates)
    return c.getType().isIntOrIndex() && c.getOperand().getType().isIntOrIndex() && laneAffine(c.getOperand());
  auto bin = v.getDefiningOp<kir::BinaryOp>();
  if (!bin)
    return false;
  if (bin.getKind() == kir::BinaryKind::Add)
    return (laneAffine(bin.getLhs()) && uniform(bin.getRhs())) || (laneAffine(bin.getRhs()) && uniform(bin.getLhs()));
  if (bin.getKind() == kir::BinaryKind::Sub)
    return laneAffine(bin.getLhs()) && uniform(bin.getRhs());
  // A clamp of such a bound to program-uniform limits (a neighbourhood window that slides inward at the
  // ends, start = min(max(i - 3, 0), L - 7)) stays nondecreasing with slope at most one along the lanes:
  // the block's ranges still overlap in all but a block's width (seed 002 §3.4).
  if (bin.getKind() == kir::BinaryKind::Min || bin.getKind() == kir::BinaryKind::Max)
    return (laneAffine(bin.getLhs()) && uniform(bin.getRhs())) || (laneAffine(bin.getRhs()) && uniform(bin.getLhs()));
  return false;
}

bool FoldWorksetImpl::analyzeFold(kir::RegionFoldOp f) {
  unsigned n = f.getIdentities().size();
  unsigned axis = f.getAxis();
  Value tile;
  bool varies = false;
  for (Value s : f.getSources()) {
    std::optional<Shape> ss = shapeOf(s);
    if (!ss)
      return fail(f, "a source has no coordinate provenance");
    if (tile && ss->axes[axis] != tile)
      return fail(f, "sources sliced along different domains");
    tile = ss->axes[axis];
    varies |= ss->lanes;
  }
  varies |= laneDomains.contains(tile); // each lane folds its own range of the tile
  if (!knownDomain(tile))
    return fail(f, "the fold's domain is defined inside the workset");
  if (freeAxes.count(tile))
    return fail(f, "the fold's domain is also a free axis");
  if (!tileAxes.count(tile))
    tileAxes[tile] = paramName(tile);
  Block &sum = f.getSummarize().front();
  unsigned nSources = f.getSources().size();
  for (auto [i, arg] : llvm::enumerate(sum.getArguments()))
    alias[arg] = i < nSources ? f.getSources()[i] : f.getCaptures()[i - nSources];
  for (Value c : f.getCaptures()) {
    std::optional<Shape> cs = shapeOf(c);
    if (!cs)
      return fail(f, "a captured operand has no coordinate provenance");
    varies |= cs->lanes;
  }
  if (!analyzeBlock(sum))
    return false;
  SmallVector<Shape> summary;
  for (unsigned c = 0; c < n; ++c) {
    std::optional<Shape> id = shapeOf(f.getIdentities()[c]);
    std::optional<Shape> y = shapeOf(sum.getTerminator()->getOperand(c));
    if (!id || !y)
      return fail(f, "a summary component has no coordinate provenance");
    if (!y->axes.empty() && !sameAxes(y->axes, id->axes))
      return fail(f, "a summary component and its identity range over different domains");
    varies |= y->lanes || id->lanes;
    summary.push_back(Shape{false, id->axes});
  }
  for (Shape &s : summary)
    s.lanes = varies;
  Block &merge = f.getCombine().front();
  for (auto [i, arg] : llvm::enumerate(merge.getArguments()))
    shapes[arg] = summary[i % n];
  if (!analyzeBlock(merge))
    return false;
  for (unsigned c = 0; c < n; ++c) {
    std::optional<Shape> y = shapeOf(merge.getTerminator()->getOperand(c));
    if (!y || (!y->axes.empty() && y->axes != summary[c].axes) || (y->lanes && !varies))
      return fail(f, "combine changes a component's shape");
    shapes[f.getResult(c)] = summary[c];
  }
  return true;
}

bool FoldWorksetImpl::plan() {
  relaxed = false;
  if (auto module = par->getParentOfType<ModuleOp>())
    if (auto options =
            module->getAttrOfType<kir::CompileOptionsAttr>(kir::KIRDialect::getCompileOptionsAttrName())) {
      relaxed = options.getNumerics() == kir::Numerics::RelaxedNormalization;
      remarks = options.getOptimizationRemarks();
    }
  Block &body = par.getBody().front();
  if (llvm::none_of(body, [](Operation &op) { return isa<kir::RegionFoldOp, kir::RegionScanOp>(op); })) {
    why = "no region fold or scan in the workset";
    return false;
  }
  bool scans = llvm::any_of(body, [](Operation &op) { return isa<kir::RegionScanOp>(op); });
  if (scans)
    subject = "region scan";
  // Lanes make a block of members one tile product (a key tile shared by BLOCK_<X> queries in one
  // tl.dot). A workset whose folds hold no contraction has nothing to share across members: each
  // program owns one member and walks its source axis in row tiles (the row path of the same math
  // written as reductions; seed 002 §3.4 structured realization, issue 41 canonical forms).
  rowTiles = !scans && llvm::none_of(body, [](Operation &op) { return computesProduct(&op); });
  hasLanes = !scans && !rowTiles;
  unsigned nAxes = par.getDomains().size();
  laneIndex = nAxes - 1;
  if (planPaired())
    return true;
  // Each lane reads its own keys, but only through its group `h // G` (query heads of one key/value
  // head): lanes are gathered by group, one key tile per step shared by the group's lanes in a tile
  // product (FlashDecoding's [G, D] query tile), before giving each program one member.
  if (hasLanes && lanesBatched && findGroup()) {
    resetPlan();
    if (planPaired())
      return true;
    groupSize = Value();
    quotients.clear();
  }
  // The innermost axis's lanes would each read their own operand rows (a packed token's keys indexed
  // by its head, `k[keys(t), h]`): another parallel axis, innermost first, whose members share them
  // (the tokens: one key tile for BLOCK tokens of one head) is the lane axis instead. kir.parallel is
  // unordered (seed 000 §4): which axis the lanes run along is the construction's choice.
  if (hasLanes && lanesBatched) {
    for (unsigned k = nAxes - 1; k-- > 0;) {
      resetPlan();
      lanesBatched = false;
      laneIndex = k;
      if (planPaired())
        return true;
    }
    lanesBatched = true;
    laneIndex = nAxes - 1;
  }
  // A domain defined per member (its bound loaded or computed in the member) is one fold range for
  // a block of lanes only where its bounds and the fold's operands allow (the lanes' members share
  // it, e.g. query heads of one key/value head); else each program owns one member. Likewise a
  // contraction whose operands both vary across the lanes (each member's own key rows and query: a
  // single-query decode, its keys indexed by the member's head) has no tile product to share across
  // members: each program owns one member and its fold still walks BLOCK_<T>-wide source tiles, the
  // contraction a matrix-vector product per tile (seed 002 §3.4 region-fold realization).
  if (!hasLanes || (!lanesBatched && llvm::none_of(body, [](Operation &op) {
                      return isa<kir::DomainOp, kir::SubregionOp>(op);
                    })))
    return false;
  resetPlan();
  hasLanes = false;
  return planPaired();
}

void FoldWorksetImpl::resetPlan() {
  shapes.clear();
  alias.clear();
  freeAxes.clear();
  tileAxes.clear();
  loopAxes.clear();
  memberDomains.clear();
  laneDomains.clear();
  laneArg = laneDomain = Value();
  laneParam.clear();
}

bool FoldWorksetImpl::planPaired() {
  // Each pass that fails only for a new pairing has recorded it: at most one pass per domain.
  for (;;) {
    replan = false;
    if (planBody())
      return true;
    if (!replan)
      return false;
    resetPlan();
  }
}

bool FoldWorksetImpl::sameAxes(ArrayRef<Value> a, ArrayRef<Value> c) {
  if (a.size() != c.size())
    return false;
  // A slice pairs by position with a domain of its own length (KIR_SubregionOp; rotate-half RoPE's
  // `dims[0:H]`, `dims[H:2 * H]` with the tables' `T.domain(0, H)`): one tile axis, each domain's
  // accesses at its own members. Launch-time domains only: their sizes are the guard's (emit).
  SmallVector<std::pair<Value, Value>> pairs;
  for (auto [x, y] : llvm::zip_equal(a, c)) {
    Value ax = axisOf(x), ay = axisOf(y);
    if (ax == ay)
      continue;
    if (!kc.domains.count(ax) || !kc.domains.count(ay) || !kir::pairByPosition(ax, ay))
      return false;
    pairs.push_back({ax, ay});
  }
  if (pairs.empty())
    return true;
  // The axis is a whole domain where one pairs (its block is BLOCK_<extent>, covering the extent),
  // else the one defined first.
  auto keepsFirst = [](Value x, Value y) {
    bool wx = x.getDefiningOp<kir::DomainOp>() != nullptr, wy = y.getDefiningOp<kir::DomainOp>() != nullptr;
    if (wx != wy)
      return wx;
    Operation *ox = x.getDefiningOp(), *oy = y.getDefiningOp();
    return !(ox && oy && ox->getBlock() == oy->getBlock() && oy->isBeforeInBlock(ox));
  };
  for (auto [x, y] : pairs) {
    Value ax = axisOf(x), ay = axisOf(y);
    if (ax == ay)
      continue;
    if (keepsFirst(ax, ay))
      rebased[ay] = ax;
    else
      rebased[ax] = ay;
  }
  replan = true;
  return false;
}

bool FoldWorksetImpl::findGroup() {
  Block &body = par.getBody().front();
  Value lane = body.getArgument(par.getDomains().size() - 1);
  auto domain = par.getDomains().back().getDefiningOp<kir::DomainOp>();
  if (!domain || !matchPattern(domain.getLower(), m_Zero()) || domain.getStep() != 1)
    return false; // the member is the lane's position: h // G is the program's group
  for (Operation *user : lane.getUsers()) {
    auto div = dyn_cast<kir::BinaryOp>(user);
    if (!div || div.getKind() != kir::BinaryKind::Div || div.getLhs() != lane || div->getBlock() != &body)
      continue;
    Value g = div.getRhs();
    Operation *def = g.getDefiningOp();
    // A launch-time scalar the construction already realized (a LaunchExpr: extents, ABI scalars).
    if (!g.getType().isIndex() || (def && par->isAncestor(def)) || !kc.map.contains(g))
      continue;
    if (groupSize && groupSize != g) { // two groupings: no one group per program
      groupSize = Value();
      quotients.clear();
      return false;
    }
    groupSize = g;
    quotients.push_back(div);
  }
  return bool(groupSize);
}

/// Whether `v` is computed in the workset body from a kir.contract whose result ranges over `d`.
bool FoldWorksetImpl::contractedOver(Value v, Value d) {
  SmallVector<Value> work{v};
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value x = resolve(work.pop_back_val());
    Operation *def = x.getDefiningOp();
    if (!def || !seen.insert(x).second || !par->isAncestor(def) || def->getNumRegions())
      continue;
    if (isa<kir::ContractOp>(def))
      if (auto s = shapes.find(x); s != shapes.end() && llvm::is_contained(s->second.axes, d))
        return true;
    llvm::append_range(work, def->getOperands());
  }
  return false;
}

bool FoldWorksetImpl::planBody() {
  Block &body = par.getBody().front();
  if (hasLanes) {
    laneArg = body.getArgument(laneIndex);
    laneDomain = par.getDomains()[laneIndex];
    laneParam = paramName(laneDomain);
  }
  for (Value arg : body.getArguments())
    shapes[arg] = Shape{arg == laneArg, {}};
  for (Operation &op : body.without_terminator()) {
    if (!isa<kir::StoreOp, kir::BufferStoreOp, kir::RegionFoldOp, kir::RegionScanOp, kir::IfOp>(op) &&
        !isMemoryEffectFree(&op) &&
        !isa<kir::LoadOp, kir::GatherOp>(op))
      return fail(&op, "an effect other than a store");
    if (!analyzeOp(&op))
      return false;
  }
  // Free axes: every domain a value ranges over that is not a fold's tile, in the order the kernel
  // defines them (`shapes` iterates in pointer order: two free axes would be declared, and their
  // parameters spelled, in a different order from run to run).
  llvm::SetVector<Value> found;
  for (auto &[v, s] : shapes) {
    if (s.rank() > 2) {
      why = "a value would be a fragment of rank > 2";
      return false;
    }
    for (Value d : s.axes)
      if (!tileAxes.count(d)) {
        if (!kc.domains.count(d)) {
          why = "a tensor axis over a domain defined inside the workset";
          return false;
        }
        found.insert(d);
      }
  }
  DenseMap<Operation *, unsigned> position;
  par->getParentOfType<kir::KernelOp>()->walk([&](Operation *op) { position.try_emplace(op, position.size()); });
  SmallVector<Value> ordered(found.begin(), found.end());
  llvm::stable_sort(ordered, [&](Value a, Value c) {
    return position.lookup(a.getDefiningOp()) < position.lookup(c.getDefiningOp());
  });
  for (Value d : ordered)
    freeAxes[d] = "";
  for (auto &[d, name] : freeAxes)
    name = paramName(d);
  planLoopAxes();
  // A tile domain must not be needed whole outside its fold: values over it are fold or scan
  // sources, or pure operands of such values (replayed per tile).
  for (Operation &op : body.without_terminator())
    for (Value r : op.getResults())
      if (auto s = shapes.find(r); s != shapes.end())
        for (Value d : s->second.axes)
          if (tileAxes.count(d))
            for (Operation *user : r.getUsers()) {
              if (auto f = dyn_cast<kir::RegionFoldOp>(user); f && llvm::is_contained(f.getSources(), r))
                continue;
              if (auto sc = dyn_cast<kir::RegionScanOp>(user); sc && llvm::is_contained(sc.getSources(), r))
                continue;
              if (scanOfOutput(r) && isa<kir::StoreOp>(user)) // emitted in the scan's emit region
                continue;
              // A store of a row over the tile computed by a contraction (softmax of scores written
              // out, read with a fold's summary): a traversal of the tile's domain of its own, after
              // the folds, its scores tile products (emitStore). A row read from memory keeps the
              // element-wise construction and the row path after it (pgpu-stage-rows).
              if (auto st = dyn_cast<kir::StoreOp>(user); st && st.getValue() == r && !st.getValid() &&
                                                          llvm::count_if(st.getCoords(), [&](Value c) {
                                                            return axisOf(c) == d;
                                                          }) == 1 &&
                                                          !memberDomains.contains(d) && contractedOver(r, d))
                continue;
              // A pure producer or a read of a value over the same tile (checked in turn): replayed
              // per tile.
              if ((isMemoryEffectFree(user) || isa<kir::LoadOp, kir::GatherOp>(user)) && user->getNumResults() == 1 &&
                  user->getBlock() == &body)
                if (auto us = shapes.find(user->getResult(0)); us != shapes.end() && llvm::is_contained(us->second.axes, d))
                  continue;
              return fail(user, "a value over a fold's domain is used outside the fold");
            }
  return true;
}

SmallVector<Value> FoldWorksetImpl::groupExtents(Location l) {
  SmallVector<Value> extents;
  for (auto [k, d] : llvm::enumerate(par.getDomains()))
    if (!hasLanes || k != laneIndex)
      extents.push_back(kc.domains.lookup(d).size);
  if (!hasLanes)
    return extents;
  Value size = kc.domains.lookup(laneDomain).size;
  if (groupSize) { // ceil(size / G) groups of ceil(G / BLOCK) lane blocks each (G >= 1 in the count)
    Value g = pgpu::BinaryOp::create(b, l, kir::BinaryKind::Max, kc.map.lookup(groupSize), kc.constIndex(l, 1),
                                     false, false);
    Value groups = pgpu::CeilDivOp::create(b, l, size, g);
    Value chunks = pgpu::CeilDivOp::create(b, l, g, param(l, laneParam));
    laneBlocks = pgpu::BinaryOp::create(b, l, kir::BinaryKind::Mul, groups, chunks, false, false);
  } else {
    laneBlocks = pgpu::CeilDivOp::create(b, l, size, param(l, laneParam));
  }
  extents.push_back(laneBlocks);
  return extents;
}

void FoldWorksetImpl::declareParams(pgpu::KernelOp kernel) {
  MLIRContext *ctx = kernel.getContext();
  SmallVector<Attribute> params;
  if (auto existing = kernel.getParams())
    params.assign(existing->begin(), existing->end());
  // tl.dot and friends need extents of at least 16. Defaults: 64 lanes and 64-wide source tiles (on
  // the H200 the FlashAttention-2-form fold measured fastest at 64x64 with 4 warps on 9 of the 12
  // attention cases of bench/attention.py, 2026-12-01), a 128-wide free axis
  // unless the call covers its extent (covers, below).
  auto declare = [&](StringRef name, int64_t dflt, StringAttr covers) {
    if (kernel.getParam(name))
      return;
    params.push_back(pgpu::ParamAttr::get(ctx, StringAttr::get(ctx, name), {16, 32, 64, 128, 256}, dflt,
                                          StringAttr(), covers));
  };
  // A group of query heads is small (4 to 8 per key/value head): the smallest tile-product block.
  if (hasLanes)
    declare(laneParam, groupSize ? 16 : 64, StringAttr());
  // The extent a domain [0, X) spans: a block of it runs mask-free (and a fold over it in one tile)
  // when the call's default covers X's size.
  auto spanned = [&](Value d) {
    StringAttr symbol;
    if (auto domain = d.getDefiningOp<kir::DomainOp>())
      if (auto e = domain.getUpper().getDefiningOp<kir::ExtentOp>())
        if (matchPattern(domain.getLower(), m_Zero()))
          symbol = StringAttr::get(ctx, e.getName());
    return symbol;
  };
  // A row tile (no contraction, one member per program, no free axis: its values are 1-d, over a
  // launch-time domain) is a row block: the candidates, default and covering of form-blocking's BLOCK
  // for the same row written as reductions (a row that fits one block is read once, in one tile). A
  // member's own domain (a ragged row's length) keeps the fold tiles' candidates.
  for (auto &[d, name] : tileAxes) {
    if (!rowTiles || !freeAxes.empty() || memberDomains.contains(d)) {
      declare(name, 64, StringAttr());
    } else if (!kernel.getParam(name)) {
      params.push_back(pgpu::ParamAttr::get(ctx, StringAttr::get(ctx, name),
                                            {64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384}, 512, StringAttr(),
                                            spanned(d)));
    }
  }
  // A free axis runs its fast (mask-free) variant when its extent is exactly the block: the default
  // covers the extent's size where the call knows it.
  for (auto &[d, name] : freeAxes)
    declare(name, 128, spanned(d));
  // A contraction's K loop steps by 64 (a GEMM's K tile) unless tuned: 16..128 (form-tiles' TILE_K).
  for (auto &[d, name] : loopAxes)
    if (!kernel.getParam(name))
      params.push_back(pgpu::ParamAttr::get(ctx, StringAttr::get(ctx, name), {16, 32, 64, 128}, 64, StringAttr(),
                                            StringAttr()));
  kernel.setParamsAttr(ArrayAttr::get(ctx, params));
}
