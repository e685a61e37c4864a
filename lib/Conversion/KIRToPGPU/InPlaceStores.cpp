//===- InPlaceStores.cpp - a member's stores that update its view in place ===//
//
// Construction realizes a tensor's elements where they are used (seed 002
// §3.4), so a member that reads a view, stores one slice of it and then uses
// the old values in a later store of another slice (rotate-half in place:
// `q[t, lo] = x1 * c - x2 * s; q[t, hi] = x2 * c + x1 * s`) would read the
// stored values at that later use. KIR reads the view where the load stands
// (seed 000 §4): the later store means the old values. Such stores run as one
// element loop instead: each element position realizes every store's value
// (and so every read) first, then writes them all. That is the member's
// meaning when each element of the view is touched by one position only:
//   - every read of the view whose value reaches a later store stands before
//     the first of the stores to its view, reaches them only through
//     element-wise ops of its rank (position p of the value reads position p
//     of the read), and
//     reads at the coordinates of one of the stores (then its position p is
//     the element that store writes at p, and no other position writes it);
//   - the stores' coordinate lists to one view are pairwise identical or
//     provably disjoint (an axis whose two intervals of one source do not
//     overlap), so no position writes what another reads or writes;
//   - the stores are linked through such reads (so their values have the
//     extents of the reads they share, which the KIR verifier checked) and
//     consecutive in the member (only lazily realized tensor ops between).
// Reads and stores through index tensors (kir.gather, kir.scatter) join too
// where the coordinates are computed from the position alone and one of them
// is a nonzero multiple of its domain's indices (each position its own
// element: corpus 163's q[..., 2p], q[..., 2p + 1]).
// Anything else keeps separate stores, and checkReadsBeforeStores refuses a
// use after a store as before. A scatter through index tensors read from memory
// whose value reads its own view (corpus 128) is staged (StagedScatters.cpp) or
// refused by checkInPlaceScatters.
//
//===----------------------------------------------------------------------===//

#include "KernelConstructor.h"

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/EquivalenceClasses.h"

#include <map>
#include <numeric>

using namespace mlir;
using namespace tessel;
using namespace tessel::construct;

namespace {

/// An index value as integer multiples of atoms plus a constant (atom null).
using Linear = std::map<const void *, int64_t>;

void addLinear(Linear &into, const Linear &f, int64_t k) {
  for (auto &[atom, c] : f)
    if ((into[atom] += k * c) == 0)
      into.erase(atom);
}

/// Whether every value of the KIR index `v` is provably >= 0: a non-negative constant, an extent, a
/// broadcast of one; sums, products and floor quotients (KIR's div) of such values, the divisor a positive
/// constant; max with one such operand, min of two.
bool nonNegative(Value v, unsigned depth = 0) {
  APInt constant;
  if (matchPattern(v, m_ConstantInt(&constant)))
    return !constant.isNegative();
  if (v.getDefiningOp<kir::ExtentOp>())
    return true;
  if (depth > 16)
    return false;
  if (auto broadcast = v.getDefiningOp<kir::BroadcastOp>())
    return nonNegative(broadcast.getOperand(), depth + 1);
  auto bin = v.getDefiningOp<kir::BinaryOp>();
  if (!bin)
    return false;
  bool l = nonNegative(bin.getLhs(), depth + 1), r = nonNegative(bin.getRhs(), depth + 1);
  switch (bin.getKind()) {
  case kir::BinaryKind::Add:
  case kir::BinaryKind::Mul:
  case kir::BinaryKind::Min:
    return l && r;
  case kir::BinaryKind::Max:
    return l || r;
  case kir::BinaryKind::Div:
    return l && matchPattern(bin.getRhs(), m_ConstantInt(&constant)) && constant.isStrictlyPositive();
  default:
    return false;
  }
}

/// The linear form of `v`; `nonNeg`, when given, collects its atoms that are provably >= 0 (nonNegative).
Linear linearOf(Value v, unsigned depth = 0, DenseSet<const void *> *nonNeg = nullptr) {
  APInt constant;
  if (matchPattern(v, m_ConstantInt(&constant)))
    return constant.isZero() ? Linear{} : Linear{{nullptr, constant.getSExtValue()}};
  Linear atom{{v.getAsOpaquePointer(), 1}};
  if (auto extent = v.getDefiningOp<kir::ExtentOp>()) { // one extent, whichever op names it
    if (nonNeg)
      nonNeg->insert(extent.getNameAttr().getAsOpaquePointer());
    return {{extent.getNameAttr().getAsOpaquePointer(), 1}};
  }
  // A tensor of indices holds, element by element, the values of its linear form; a broadcast holds
  // its operand's values.
  auto tensor = dyn_cast<RankedTensorType>(v.getType());
  if (auto broadcast = v.getDefiningOp<kir::BroadcastOp>(); broadcast && depth <= 16)
    return linearOf(broadcast.getOperand(), depth + 1, nonNeg);
  auto bin = v.getDefiningOp<kir::BinaryOp>();
  if (nonNeg && nonNegative(v))
    nonNeg->insert(v.getAsOpaquePointer()); // a fact about the atom, where `v` stays one
  if (!bin || !(v.getType().isIndex() || (tensor && tensor.getElementType().isIndex())) || depth > 16)
    return atom;
  Linear a = linearOf(bin.getLhs(), depth + 1, nonNeg), b = linearOf(bin.getRhs(), depth + 1, nonNeg);
  auto constantOf = [](const Linear &f) -> std::optional<int64_t> {
    if (f.empty())
      return 0;
    if (f.size() == 1 && f.count(nullptr))
      return f.at(nullptr);
    return std::nullopt;
  };
  switch (bin.getKind()) {
  case kir::BinaryKind::Add:
    addLinear(a, b, 1);
    return a;
  case kir::BinaryKind::Sub:
    addLinear(a, b, -1);
    return a;
  case kir::BinaryKind::Mul:
    if (std::optional<int64_t> cb = constantOf(b)) {
      Linear out;
      addLinear(out, a, *cb);
      return out;
    }
    if (std::optional<int64_t> ca = constantOf(a)) {
      Linear out;
      addLinear(out, b, *ca);
      return out;
    }
    return atom;
  default:
    return atom;
  }
}

/// Whether `hi - lo` is provably <= 0: as a linear form, a constant <= 0 plus negative multiples of
/// atoms that are provably >= 0 (`C // 8 - 2 * (C // 8)`: a channel slice [0, F) before [2F, C) with
/// F = C // 8).
bool provablyAtMost(Value hi, Value lo) {
  DenseSet<const void *> nonNeg;
  Linear d = linearOf(hi, 0, &nonNeg);
  addLinear(d, linearOf(lo, 0, &nonNeg), -1);
  for (auto &[atom, c] : d)
    if (atom ? c > 0 || !nonNeg.contains(atom) : c > 0)
      return false;
  return true;
}

/// The [begin, end) member interval of a step-1 domain or of a subregion of one, with its root.
struct Interval {
  Value root, begin, end;
};

std::optional<Interval> intervalOf(Value domain) {
  if (auto sub = domain.getDefiningOp<kir::SubregionOp>()) {
    std::optional<Interval> parent = intervalOf(sub.getSource());
    if (!parent)
      return std::nullopt;
    return Interval{parent->root, sub.getBegin(), sub.getEnd()}; // members of the source in [b, e)
  }
  auto d = domain.getDefiningOp<kir::DomainOp>();
  if (!d || d.getStep() != 1)
    return std::nullopt;
  return Interval{domain, d.getLower(), d.getUpper()};
}

/// Whether two integer coordinates never take one value: as linear forms over integer atoms, x = y
/// needs sum(a_i u_i) - sum(b_j v_j) = c_y - c_x, so the gcd of every atom's coefficient must divide
/// the constants' difference (`2 * h` and `2 * h + 1`: never equal, whatever h is; two different
/// constants: never equal).
bool neverEqual(Value x, Value y) {
  auto integral = [](Type t) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    return (tensor ? tensor.getElementType() : t).isIndex();
  };
  if (!integral(x.getType()) || !integral(y.getType()))
    return false;
  Linear lx = linearOf(x), ly = linearOf(y);
  int64_t cx = lx.count(nullptr) ? lx.at(nullptr) : 0, cy = ly.count(nullptr) ? ly.at(nullptr) : 0;
  int64_t g = 0;
  for (const Linear *f : {&lx, &ly})
    for (auto &[atom, c] : *f)
      if (atom)
        g = std::gcd(g, c < 0 ? -c : c);
  int64_t d = cy - cx;
  return g == 0 ? d != 0 : d % g != 0;
}

/// Whether two coordinate lists name one element at every position: identical values, or integer
/// coordinates of one linear form (`ev + 1` traced twice is two ops of one value).
bool sameCoords(ValueRange a, ValueRange b) {
  if (a.size() != b.size())
    return false;
  for (auto [x, y] : llvm::zip(a, b)) {
    if (x == y)
      continue;
    auto integral = [](Type t) {
      auto tensor = dyn_cast<RankedTensorType>(t);
      return (tensor ? tensor.getElementType() : t).isIndex();
    };
    if (x.getType() != y.getType() || !integral(x.getType()) || linearOf(x) != linearOf(y))
      return false;
  }
  return true;
}

} // namespace

/// Whether two coordinate lists of one view name disjoint element sets: some axis holds intervals
/// of one root that do not overlap, or integer coordinates that never take one value.
bool tessel::construct::disjointCoords(ValueRange a, ValueRange b) {
  for (auto [x, y] : llvm::zip(a, b)) {
    if (neverEqual(x, y))
      return true;
    if (!isa<kir::DomainType>(x.getType()) || !isa<kir::DomainType>(y.getType()))
      continue;
    std::optional<Interval> ix = intervalOf(x), iy = intervalOf(y);
    if (ix && iy && ix->root == iy->root &&
        (provablyAtMost(ix->end, iy->begin) || provablyAtMost(iy->end, ix->begin)))
      return true;
  }
  return false;
}

namespace {

/// Whether a coordinate's values come from memory (a read, an index relation, a carried tensor): two
/// positions of it may name one element, and nothing here can prove otherwise.
bool dataDependent(Value coord) {
  SmallVector<Value> work{coord};
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    Operation *def = v.getDefiningOp();
    if (!def) {
      if (isa<RankedTensorType>(v.getType()))
        return true;
      continue; // a member's scalar index
    }
    if (isa<kir::LoadOp, kir::GatherOp, kir::IndexRelationOp>(def) || !isMemoryEffectFree(def) ||
        def->getNumRegions())
      return true;
    llvm::append_range(work, def->getOperands());
  }
  return false;
}

/// Whether a rank-1 coordinate names a different element at each position: its domain's indices,
/// times a nonzero constant, plus or minus what does not vary with the position.
bool injectiveCoord(Value coord, unsigned depth = 0) {
  if (coord.getDefiningOp<kir::IndicesOp>())
    return true;
  auto bin = coord.getDefiningOp<kir::BinaryOp>();
  if (!bin || depth > 16)
    return false;
  Value l = bin.getLhs(), r = bin.getRhs();
  auto uniform = [](Value v) {
    auto b = v.getDefiningOp<kir::BroadcastOp>();
    return !isa<RankedTensorType>(v.getType()) || (b && !isa<RankedTensorType>(b.getOperand().getType()));
  };
  auto nonzeroConstant = [&](Value v) {
    if (auto b = v.getDefiningOp<kir::BroadcastOp>())
      v = b.getOperand();
    APInt c;
    return matchPattern(v, m_ConstantInt(&c)) && !c.isZero();
  };
  switch (bin.getKind()) {
  case kir::BinaryKind::Add:
    return (injectiveCoord(l, depth + 1) && uniform(r)) || (injectiveCoord(r, depth + 1) && uniform(l));
  case kir::BinaryKind::Sub:
    return injectiveCoord(l, depth + 1) && uniform(r);
  case kir::BinaryKind::Mul:
    return (injectiveCoord(l, depth + 1) && nonzeroConstant(r)) || (injectiveCoord(r, depth + 1) && nonzeroConstant(l));
  default:
    return false;
  }
}

} // namespace

/// A scatter whose destinations come from memory and whose value reads the view it writes (corpus
/// 128: `v = logits[b, toks]; logits[b, toks] = f(v)` with a token twice in `toks`). KIR reads every
/// element before any write (seed 000 §4), so a repeated destination writes f(old) twice; constructed
/// element by element, each position would read and write on its own, in any order (seed 000 §9),
/// so a repeat may read the other's write (the H100 penalized such a logit twice). Returns that read
/// unless every such read is provably disjoint from its destinations, or the destinations are
/// provably pairwise distinct.
Operation *tessel::construct::scatterSelfRead(kir::ScatterOp scatter) {
  auto value = dyn_cast<RankedTensorType>(scatter.getValue().getType());
  if (!value || llvm::none_of(scatter.getCoords(), [](Value c) {
        return isa<RankedTensorType>(c.getType()) && dataDependent(c);
      }))
    return nullptr;
  if (value.getRank() == 1 && llvm::any_of(scatter.getCoords(), [](Value c) { return injectiveCoord(c); }))
    return nullptr; // one coordinate alone tells the positions apart
  // Tensor reads of the view that the value is computed from, position by position (a read reaching
  // it only through a scalar, such as a reduction, is realized before the scatter's element loop).
  SmallVector<Value> work{scatter.getValue()};
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    Operation *def = v.getDefiningOp();
    if (!seen.insert(v).second || !def || !isa<RankedTensorType>(v.getType()))
      continue;
    Value view;
    ValueRange coords;
    if (auto g = dyn_cast<kir::GatherOp>(def))
      view = g.getView(), coords = g.getCoords();
    else if (auto l = dyn_cast<kir::LoadOp>(def))
      view = l.getView(), coords = l.getCoords();
    if (view == scatter.getView() && !disjointCoords(coords, scatter.getCoords()))
      return def;
    if (!view)
      llvm::append_range(work, def->getOperands());
  }
  return nullptr;
}

/// Such a scatter is staged (StagedScatters.cpp) where it can be; refused at the scatter otherwise.
LogicalResult tessel::construct::checkInPlaceScatters(Operation *root) {
  WalkResult result = root->walk([&](kir::ScatterOp scatter) {
    Operation *read = scatterSelfRead(scatter);
    if (!read)
      return WalkResult::advance();
    std::string why = whyNotStaged(scatter);
    if (why.empty())
      return WalkResult::advance();
    InFlightDiagnostic d =
        scatter.emitError()
        << "kir-to-pgpu: this scatter's destinations come from memory and may repeat, and its value is "
           "computed from a read of the view it writes: on a GPU the positions run in any order, so a "
           "repeated destination could read another position's write, and the member's values cannot be "
           "staged before its writes here ("
        << why << "). Deduplicate the indices first, or write the result to another view";
    d.attachNote(read->getLoc()) << "the read of the view";
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

namespace {

/// The view and coordinates of a member's tensor read (kir.load, or kir.gather through index tensors).
std::optional<std::pair<Value, ValueRange>> tensorRead(Operation &op) {
  if (op.getNumResults() != 1 || !isa<RankedTensorType>(op.getResult(0).getType()))
    return std::nullopt;
  if (auto load = dyn_cast<kir::LoadOp>(op))
    return std::make_pair(load.getView(), ValueRange(load.getCoords()));
  if (auto gather = dyn_cast<kir::GatherOp>(op))
    return std::make_pair(gather.getView(), ValueRange(gather.getCoords()));
  return std::nullopt;
}

Value writtenView(Operation *write) { return write->getOperand(1); } // kir.store and kir.scatter alike
ValueRange writtenCoords(Operation *write) {
  if (auto store = dyn_cast<kir::StoreOp>(write))
    return store.getCoords();
  return cast<kir::ScatterOp>(write).getCoords();
}

/// A write this rule may join: a tensor value, no mask, and each position its own element (coordinates
/// that are domains or scalars; or a rank-1 scatter through index tensors computed from the position
/// alone, one of them a nonzero multiple of its indices: corpus 163's `q[b, s, h, 2 * p + 1]`).
bool plainMemberStore(Operation *op) {
  if (auto store = dyn_cast<kir::StoreOp>(op))
    return !store.getValid() && isa<RankedTensorType>(store.getValue().getType()) &&
           llvm::none_of(store.getCoords(), [](Value c) { return isa<RankedTensorType>(c.getType()); });
  auto scatter = dyn_cast<kir::ScatterOp>(op);
  if (!scatter || scatter.getValid() || scatter.getJoint())
    return false;
  auto value = dyn_cast<RankedTensorType>(scatter.getValue().getType());
  return value && value.getRank() == 1 &&
         llvm::none_of(scatter.getCoords(), [](Value c) { return isa<RankedTensorType>(c.getType()) && dataDependent(c); }) &&
         llvm::any_of(scatter.getCoords(), [](Value c) { return injectiveCoord(c); });
}

/// Whether `op` is realized lazily, one element per position (emitStatement emits nothing for it).
bool lazyTensorOp(Operation &op) {
  return op.getNumResults() == 1 && isa<RankedTensorType>(op.getResult(0).getType()) &&
         isa<kir::LoadOp, kir::GatherOp, kir::BroadcastOp, kir::BroadcastAsOp, kir::BinaryOp, kir::UnaryOp, kir::CmpOp, kir::SelectOp,
             kir::CastOp, kir::BitcastOp, kir::IndicesOp>(op);
}

bool elementwiseOfRank(Operation *op, int64_t rank) {
  if (!isa<kir::BinaryOp, kir::UnaryOp, kir::CmpOp, kir::SelectOp, kir::CastOp, kir::BitcastOp>(op) ||
      op->getNumResults() != 1)
    return false;
  auto t = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  return t && t.getRank() == rank && llvm::all_of(op->getOperandTypes(), [&](Type o) {
           return !isa<RankedTensorType>(o) || cast<RankedTensorType>(o).getRank() == rank;
         });
}

/// One run of consecutive stores (lazily realized tensor ops between them), checked; appends its
/// groups and the reads they keep.
void checkRun(ArrayRef<Operation *> run, Block &block, InPlaceGroups &out) {
  DenseMap<Operation *, unsigned> at; // a store's place in the run
  for (unsigned i = 0; i < run.size(); ++i)
    at[run[i]] = i;
  llvm::EquivalenceClasses<unsigned> linked;
  for (unsigned i = 0; i < run.size(); ++i)
    linked.insert(i);
  SmallVector<Value> kept;
  bool hazard = false;
  for (Operation &op : block) {
    std::optional<std::pair<Value, ValueRange>> read = tensorRead(op);
    if (!read)
      continue;
    Operation *load = &op;
    auto [view, readCoords] = *read;
    SmallVector<Operation *> writers;
    for (Operation *s : run)
      if (writtenView(s) == view)
        writers.push_back(s);
    if (writers.empty())
      continue;
    // A read among the run's stores before the first that writes its view (k's rotate-half reads after
    // q's stores, corpus 245) reads the old values like one before the run; a read after such a store
    // ends the run (inPlaceGroups), so none is seen here.
    Operation *firstWriter = writers.front();
    if (!load->isBeforeInBlock(firstWriter))
      return; // a read of the view among the stores reads what they wrote: not this rule
    // Its value's uses: element-wise ops of its rank (anywhere), the run's stores, scalar results
    // realized where they stand before the stores of its view.
    int64_t rank = cast<RankedTensorType>(load->getResult(0).getType()).getRank();
    SmallVector<Value> work{load->getResult(0)};
    DenseSet<Operation *> seen;
    SmallVector<unsigned> users; // the stores it reaches
    bool usedAfter = false;
    while (!work.empty()) {
      Value v = work.pop_back_val();
      for (OpOperand &use : v.getUses()) {
        Operation *user = use.getOwner();
        if (!seen.insert(user).second)
          continue;
        Operation *in = block.findAncestorOpInBlock(*user);
        if (!in)
          return;
        if (auto it = at.find(user); it != at.end() && use.getOperandNumber() == 0) {
          users.push_back(it->second);
          usedAfter |= writers.front()->isBeforeInBlock(user);
          continue;
        }
        if (elementwiseOfRank(user, rank)) {
          work.push_back(user->getResult(0));
          continue;
        }
        if (in->isBeforeInBlock(firstWriter) && llvm::none_of(user->getResultTypes(), llvm::IsaPred<RankedTensorType>))
          continue;
        return; // any other use of the old values: not this rule
      }
    }
    if (users.empty())
      continue; // it reaches no store of the run
    // It reads at the coordinates of one of the stores (its home): its position p is the element that
    // store writes at p.
    auto home = llvm::find_if(writers, [&](Operation *s) { return sameCoords(writtenCoords(s), readCoords); });
    if (home == writers.end())
      return;
    for (unsigned u : users)
      linked.unionSets(u, at[*home]);
    kept.push_back(load->getResult(0));
    hazard |= usedAfter; // a use after a store of its view: what checkReadsBeforeStores refuses
  }
  if (!hazard)
    return;
  // Stores of one view: identical or disjoint coordinates.
  for (unsigned i = 0; i < run.size(); ++i)
    for (unsigned j = i + 1; j < run.size(); ++j) {
      Operation *s = run[i], *t = run[j];
      if (writtenView(s) == writtenView(t) && !sameCoords(writtenCoords(s), writtenCoords(t)) &&
          !disjointCoords(writtenCoords(s), writtenCoords(t)))
        return;
    }
  // Each class consecutive in the run; classes of two or more stores are the groups.
  SmallVector<SmallVector<Operation *>> groups;
  unsigned previous = ~0u;
  DenseSet<unsigned> closed;
  for (unsigned i = 0; i < run.size(); ++i) {
    Operation *s = run[i];
    unsigned leader = linked.getLeaderValue(i);
    if (leader != previous) {
      if (closed.contains(leader))
        return;
      if (previous != ~0u)
        closed.insert(previous);
      groups.emplace_back();
      previous = leader;
    }
    groups.back().push_back(s);
  }
  for (SmallVector<Operation *> &g : groups)
    if (g.size() > 1)
      out.groups.push_back(std::move(g));
  for (Value v : kept)
    out.keptReads.insert(v);
}

} // namespace

InPlaceGroups construct::inPlaceGroups(Block &member) {
  InPlaceGroups out;
  SmallVector<Operation *> run;
  auto flush = [&] {
    if (run.size() > 1)
      checkRun(run, member, out);
    run.clear();
  };
  for (Operation &op : member.without_terminator()) {
    if (plainMemberStore(&op)) {
      run.push_back(&op);
      continue;
    }
    if (lazyTensorOp(op)) {
      // A read of a view the run writes, between its stores, reads what they wrote: it ends the run.
      std::optional<std::pair<Value, ValueRange>> read = tensorRead(op);
      if (read && llvm::any_of(run, [&](Operation *s) { return writtenView(s) == read->first; }))
        flush();
      continue;
    }
    flush();
  }
  flush();
  return out;
}

LogicalResult KernelConstructor::emitInPlaceGroup(ArrayRef<Operation *> group) {
  for (Operation *s : group) {
    FailureOr<SmallVector<StoredScan>> scans = scansOfStored(*s);
    if (failed(scans))
      return failure();
    if (!scans->empty())
      return s->emitError() << "kir-to-pgpu: a store of a scan's values among stores that update their view in place "
                              "(each reading what another overwrites) is not constructed yet";
  }
  Operation *first = group.front();
  if (pgpu::remarksEnabled(kernel))
    emitRemark(first->getLoc()) << "kir-to-pgpu: " << group.size()
                               << " stores update their view in place from values read before them: one "
                                  "element loop computes every stored value, then writes them all";
  FailureOr<SmallVector<Value>> extents = sizes(first->getOperand(0));
  if (failed(extents))
    return failure();
  // Every value (and so every read of the view) at the position first, then the writes.
  return foreachNest(first->getLoc(), *extents, [&](ArrayRef<Value> positions) -> LogicalResult {
    SmallVector<Value> values;
    for (Operation *s : group) {
      FailureOr<Value> v = element(s->getOperand(0), positions);
      if (failed(v))
        return failure();
      values.push_back(*v);
    }
    for (auto [i, v] : llvm::enumerate(values))
      if (failed(emitElementWrite(*group[i], v, positions)))
        return failure();
    return success();
  });
}
