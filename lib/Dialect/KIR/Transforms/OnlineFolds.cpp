//===- OnlineFolds.cpp - two-pass softmax reductions become region folds ===//
//
// A kir.parallel body that computes a row X over one axis A, its maximum m, then
// P = exp(X - m) and reductions of P (or of plain values) over A is the two-pass
// form of an online summary (seed 002 §1): this pass rewrites it into one
// kir.region_fold over the sources sliced along A whose summary is (m, one
// component per reduction), so that the blocked-fold path (seed 002 §3.4)
// realizes it. The online form rounds differently, so it needs numerics =
// relaxed_normalization; under source numerics a row computed by or reduced into
// a contraction becomes the exact two-pass form as two region folds instead (the
// maximum alone, then the reductions with the final maximum), which the same path
// realizes. A row stored over A with the summary (e / sum(e) written out) is
// recomputed after the folds for the store, a second traversal of A, where
// the row is a contraction's. Everything is decided from facts (the coordinate domains of each
// axis, def-use, op kinds, the module's numerical permissions), never from names
// (seed 002 §7). Refused cases leave the body unchanged and, with
// optimization_remarks, say why at the maximum.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/KIR/Transforms/Passes.h"
#include "AxisDomains.h"
#include "OnlineFoldsPrep.h"
#include "RowSumChains.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace tessel::kir {
#define GEN_PASS_DEF_KIRONLINEFOLDS
#include "tessel/Dialect/KIR/Transforms/Passes.h.inc"
} // namespace tessel::kir

using namespace mlir;
using namespace tessel::kir;

namespace {

/// Whether `v` is a float constant -inf, or one broadcast.
bool isNegInf(Value v) {
  if (auto bc = v.getDefiningOp<BroadcastOp>())
    v = bc.getOperand();
  else if (auto bc = v.getDefiningOp<BroadcastAsOp>())
    v = bc.getOperand();
  FloatAttr f;
  return matchPattern(v, m_Constant(&f)) && f.getValue().isInfinity() && f.getValue().isNegative();
}

/// c when `x` is where(c, s, -inf) with c over the row (the row's mask), else null.
Value maskOf(Value x) {
  auto sel = x.getDefiningOp<SelectOp>();
  if (!sel || !isNegInf(sel.getFalseValue()) || !isa<RankedTensorType>(sel.getCondition().getType()))
    return {};
  return sel.getCondition();
}

/// Whether `v` is a float constant zero (either sign), or one broadcast.
bool isZeroFloat(Value v) {
  if (auto bc = v.getDefiningOp<BroadcastOp>())
    v = bc.getOperand();
  else if (auto bc = v.getDefiningOp<BroadcastAsOp>())
    v = bc.getOperand();
  FloatAttr f;
  return matchPattern(v, m_Constant(&f)) && f.getValue().isZero();
}

/// The side of select `sel` that is not a float zero when the other is one (where(c, x, 0) or
/// where(c, 0, x): a masked term, zero where the mask rejects it), else null.
Value maskedTerm(SelectOp sel) {
  if (isZeroFloat(sel.getFalseValue()) && !isZeroFloat(sel.getTrueValue()))
    return sel.getTrueValue();
  if (isZeroFloat(sel.getTrueValue()) && !isZeroFloat(sel.getFalseValue()))
    return sel.getFalseValue();
  return {};
}

/// Whether every use of exponential `e` is where(c, e, 0) with c the mask of the scores it
/// exponentiates (where(c, s, -inf)): the source zeroes the masked members' terms itself, so a
/// maskedExp rewrite of `e` is exact for any maximum, -inf included (no NaN fix-up).
bool guardedByItsMask(Value e, Value cond) {
  return !e.use_empty() && llvm::all_of(e.getUsers(), [&](Operation *user) {
    auto sel = dyn_cast<SelectOp>(user);
    return sel && sel.getCondition() == cond && sel.getTrueValue() == e && isZeroFloat(sel.getFalseValue());
  });
}

bool remarksOn(ModuleOp module) {
  auto options = module->getAttrOfType<CompileOptionsAttr>(KIRDialect::getCompileOptionsAttrName());
  return options && options.getOptimizationRemarks();
}

/// numerics = relaxed_normalization with online_reduction: the permission pgpu-online-normalize
/// reads (seed 002 §1: the online form rounds differently from the two-pass form).
bool onlinePermitted(ModuleOp module) {
  auto options = module->getAttrOfType<CompileOptionsAttr>(KIRDialect::getCompileOptionsAttrName());
  return options && options.getNumerics() == Numerics::RelaxedNormalization && options.getOnlineReduction();
}

/// How a value of the axis computation depends on the maximum m.
enum class Dep { Free, MaxRow, Shifted, Scaled };

/// One reduction over A that becomes a summary component.
struct Component {
  Operation *op;  // kir.reduce add or kir.contract reducing A
  bool rescaled;  // a reduction of P-scaled terms (else a plain sum)
};

/// The match of one maximum and everything it implies; `why` is set on refusal.
struct Candidate {
  ReduceOp max;
  Value domain;
  /// Per-row summaries: a row [H, A] whose maximum is over its last axis A is H independent folds
  /// over A, i.e. one fold whose summary (ok, m, components) keeps the free leading axis H (this
  /// domain); null for a rank-1 row [A].
  Value free;
  int64_t rowRank() const { return free ? 2 : 1; }
  SmallVector<Operation *> ops;        // the axis computation inside the body, block order
  SmallVector<Operation *> sources;    // loads over A (fold sources), block order
  /// Ops of the axis computation that a source's validity or coordinates also read (a key domain's
  /// positions, `kp >= P` masking a read): they stay before the fold with the sources and are
  /// cloned into its summarizers too.
  DenseSet<Operation *> kept;
  /// Per source whose axis A is not its first: the kir.transpose (after the read) that puts A first,
  /// the value the folds slice; their summarizers transpose the slice back (sourceValue).
  DenseMap<Operation *, Value> views;
  SmallVector<Component> components;
  llvm::SetVector<Value> captures;     // values from outside the axis computation
  /// Tensors over A computed before the loop whose producers are pure functions of A (loads of In
  /// views and pointwise math on them): the ops, which replayHoisted recomputes in the loop body
  /// before the rewrite (seed 002 §3.4). Empty once they are in the body.
  llvm::SetVector<Operation *> hoisted;
  DenseMap<Value, Dep> dep;
  /// The store epilogue: pointwise ops over A computed from a reduction's result (e / sum(e)), and
  /// the stores over A of them or of the axis computation. The row is recomputed for them after
  /// the folds: a second traversal of A (seed 002 §3.4), never kept whole.
  SmallVector<Operation *> epilogue, stores;
  Operation *last = nullptr;           // the last reduction: the fold goes before it
  /// A maximum joined with a value free of A (gpt-oss's attention sinks: m = maximum(max(s), sink)):
  /// the kir.binary max whose result the axis computation subtracts instead of the reduction's; the
  /// reduction's only user. The final maximum is the join of the fold's maximum (seed 002 §1: the
  /// sink is one more member of the maximum, with no term in the sums).
  BinaryOp join;
  /// Pure scalar ops before `last` that read a reduction's result (or the join's) outside the axis
  /// computation (`den = sum(e) + exp(sink - m)` written before the P.V contraction): moved after
  /// `last`, where the fold's results are defined, before the rewrite.
  SmallVector<Operation *> deferred;
  /// The maximum the axis computation reads: the join's result, else the reduction's.
  Value maxValue() { return join ? join.getResult() : max.getResult(0); }
  std::string why;
};

class Matcher {
public:
  Matcher(ParallelOp par, ReduceOp max) : loop(par), body(par.getBody().front()) { c.max = max; }

  /// Fills the candidate; false (with `c.why`) when the body is not the two-pass form.
  bool match();
  Candidate c;

private:
  bool refuse(const Twine &why) {
    c.why = why.str();
    return false;
  }
  bool overA(Value v) {
    auto d = domainsOf(v, memo);
    return d && llvm::is_contained(*d, c.domain);
  }
  /// Whether `v`'s axes are the row's: [A], or [H, A] for per-row summaries.
  bool isRow(Value v) {
    auto d = domainsOf(v, memo);
    if (!d)
      return false;
    if (!c.free)
      return d->size() == 1 && (*d)[0] == c.domain;
    return d->size() == 2 && (*d)[0] == c.free && (*d)[1] == c.domain;
  }
  /// Whether broadcast `bc` spreads a scalar over the row, or (per-row summaries) an [H] value
  /// along A (the maximum, or a per-row value from outside).
  bool broadcastOverRow(BroadcastOp bc) {
    auto t = dyn_cast<RankedTensorType>(bc.getOperand().getType());
    if (!c.free)
      return bc.getDomains().size() == 1 && !t;
    if (bc.getDomains().size() != 2 || bc.getDomains()[0] != c.free || bc.getDomains()[1] != c.domain)
      return false;
    return !t || (t.getRank() == 1 && bc.getDims().size() == 1 && bc.getDims()[0] == 0);
  }
  /// An op of the body (or the body itself) that contains `op`.
  Operation *inBody(Operation *op) { return body.findAncestorOpInBlock(*op); }
  bool outsideValue(Value v);
  bool replayable(Value v, unsigned depth = 0);
  bool classify(Operation *op);
  bool reduction(Operation *user);
  bool storedValue(Operation *user, Value v);
  void findEpilogue();
  void findOwnComputation();

  ParallelOp loop;
  Block &body;
  DenseMap<Value, SmallVector<Value>> memo;
  DenseSet<Operation *> opSet, reductions, epilogueSet;
  /// Where the body holds another maximum over the axis or a region fold over it (two softmaxes
  /// over one key axis, differential attention): the top-level ops of this maximum's own
  /// computation (what its input reads, what reads it or its results, and what those read); the
  /// axis computation is these alone, the other maximum's folded on its own. Empty: every op.
  DenseSet<Operation *> own;
  bool shared = false;
};

/// A value the axis computation reads from outside it: scalars, tensors not over A, and
/// the domain's own coordinates or scalars broadcast over it (re-created on each slice).
bool Matcher::outsideValue(Value v) {
  if (!isa<RankedTensorType>(v.getType()) || !overA(v)) {
    if (!matchPattern(v, m_Constant()))
      c.captures.insert(v);
    return true;
  }
  Operation *def = v.getDefiningOp();
  if (auto ind = dyn_cast_or_null<IndicesOp>(def))
    return ind.getDomain() == c.domain || refuse("indices of another domain over the axis");
  if (auto bc = dyn_cast_or_null<BroadcastOp>(def)) {
    if (!broadcastOverRow(bc))
      return refuse("a broadcast over several axes");
    return outsideValue(bc.getOperand());
  }
  // A tensor over A hoisted out of the loop (`bias = mask[cols]` before `for m in T.parallel`, as
  // examples/rmsnorm.py writes its weights) is recomputed per slice like the body's own reads.
  if (replayable(v)) {
    c.dep[v] = Dep::Free;
    return true;
  }
  return refuse("a tensor over the axis computed outside the loop body that is not a pure function of the axis "
                "(only loads of In views over the axis and pointwise math on them are recomputed in the loop)");
}

/// Whether `v`, a rank-1 tensor over A computed before the loop, can be recomputed in the loop body
/// (seed 002 §3.4: replaying pure producers is legal): an unmasked load of an In view (never written
/// by the kernel, so every read sees the same values), or pointwise math on such loads, scalars
/// broadcast over A and A's indices. Records the ops to replay in `c.hoisted`.
bool Matcher::replayable(Value v, unsigned depth) {
  Operation *def = v.getDefiningOp();
  if (!def || depth > 32 || def->getBlock() != loop->getBlock() || def->getNumResults() != 1)
    return false;
  auto d = domainsOf(v, memo);
  if (!d || d->size() != 1 || (*d)[0] != c.domain)
    return false;
  if (c.hoisted.contains(def))
    return true;
  if (auto load = dyn_cast<LoadOp>(def)) {
    if (load.getValid() || cast<ViewType>(load.getView().getType()).isWritable())
      return false;
  } else if (isa<BinaryOp, UnaryOp, CastOp, SelectOp, CmpOp>(def) && isMemoryEffectFree(def)) {
    for (Value x : def->getOperands()) {
      if (!isa<RankedTensorType>(x.getType()))
        continue;
      Operation *xdef = x.getDefiningOp();
      if (auto ind = dyn_cast_or_null<IndicesOp>(xdef); ind && ind.getDomain() == c.domain)
        continue;
      if (auto bc = dyn_cast_or_null<BroadcastOp>(xdef);
          bc && bc.getDomains().size() == 1 && bc.getDomains()[0] == c.domain &&
          !isa<RankedTensorType>(bc.getOperand().getType()))
        continue;
      if (!replayable(x, depth + 1))
        return false;
    }
  } else {
    return false;
  }
  c.hoisted.insert(def);
  return true;
}

/// Records `op` (inside the body, with a result over A) as part of the axis computation.
bool Matcher::classify(Operation *op) {
  if (op->getNumRegions() || op->getNumResults() != 1)
    return refuse(Twine("'") + op->getName().getStringRef() + "' over the axis");
  Value res = op->getResult(0);
  auto type = cast<RankedTensorType>(res.getType());
  if (isa<LoadOp, GatherOp>(op)) {
    // A read over A is a fold source: the fold slices its result (a gather's index tensors are
    // computed before the fold, like a load's coordinates).
    auto d = domainsOf(res, memo);
    if (!d)
      return refuse("a read over the axis whose axes have no known domains");
    // A masked read (`T.load(m, .., valid=c, fill=f)`) is a source too: its validity and fill are
    // operands computed before the fold like its coordinates, and the fold slices its result
    // (seed 002 §3.4); the construction reads each tile under the mask.
    if (llvm::count(*d, c.domain) != 1 || d->size() != size_t(type.getRank()))
      return refuse("a read over the axis more than once, or with axes of no known domain");
    // A read with the axis elsewhere (a classifier's W [K, C] folded over C) is sliced through a
    // transposed view with the axis first (sourceValue): the fold has one source axis.
    c.sources.push_back(op);
    c.dep[res] = Dep::Free;
    return c.why.empty();
  }
  if (type.getRank() != c.rowRank() || (c.free && !isRow(res))) {
    // Pointwise math on sources over A and other axes (a cast of a value tile before its
    // contraction) is computed on each slice: its tensor operands are free of m, of its shape, with A first.
    auto d = domainsOf(res, memo);
    bool pointwise = isa<BinaryOp, UnaryOp, CastOp, SelectOp, CmpOp>(op) && d && !d->empty() &&
                     (*d)[0] == c.domain && llvm::count(*d, c.domain) == 1;
    for (Value x : op->getOperands()) {
      if (!pointwise)
        break;
      auto xt = dyn_cast<RankedTensorType>(x.getType());
      auto it = c.dep.find(x);
      pointwise = xt && xt.getRank() == type.getRank() && it != c.dep.end() && it->second == Dep::Free;
    }
    if (!pointwise)
      return refuse("a tensor over the axis and another axis");
    c.dep[res] = Dep::Free;
    return true;
  }
  if (!isa<BinaryOp, UnaryOp, SelectOp, CastOp, CmpOp, BroadcastOp, BroadcastAsOp, ContractOp, IndicesOp>(op))
    return refuse(Twine("'") + op->getName().getStringRef() + "' over the axis");
  if (auto ind = dyn_cast<IndicesOp>(op); ind && ind.getDomain() != c.domain)
    return refuse("indices of another domain over the axis");
  if (auto bc = dyn_cast<BroadcastOp>(op); bc && !broadcastOverRow(bc))
    return refuse("a broadcast of a tensor over the axis");
  if (auto bc = dyn_cast<BroadcastAsOp>(op); bc && isa<RankedTensorType>(bc.getOperand().getType()))
    return refuse("a broadcast of a tensor over the axis");
  if (auto ct = dyn_cast<ContractOp>(op)) {
    if (!ct.getLhsBatch().empty() || overA(ct.getLhs()) == overA(ct.getRhs()))
      return refuse("a contraction with both operands over the axis that keeps it");
  }
  // Operands: m itself only through its broadcast; other values from outside are captures.
  Value mval = c.maxValue();
  SmallVector<Dep> deps;
  for (Value x : op->getOperands()) {
    if (isa<DomainType>(x.getType()))
      continue;
    if (x == mval) {
      if (!isa<BroadcastOp, BroadcastAsOp>(op) || x != op->getOperand(0))
        return refuse("the maximum is used other than as x - broadcast(max)");
      deps.push_back(Dep::MaxRow);
      continue;
    }
    if (auto it = c.dep.find(x); it != c.dep.end()) {
      deps.push_back(it->second);
      continue;
    }
    if (isa<RankedTensorType>(x.getType()) && overA(x) && x.getDefiningOp() &&
        inBody(x.getDefiningOp()) == x.getDefiningOp())
      return refuse("an operand over the axis outside the reduction's computation");
    // A pointwise op reads its tensors lane by lane: one not over A (another domain of the same
    // extent) cannot be sliced with the row.
    if (isa<RankedTensorType>(x.getType()) && !isa<ContractOp>(op) && !overA(x))
      return refuse("a pointwise operand over another domain than the axis");
    if (!outsideValue(x))
      return false;
    deps.push_back(Dep::Free);
  }
  if (isa<BroadcastAsOp>(op))
    deps.resize(1); // the reference gives the shape only
  if (!isa<IntegerType, IndexType>(type.getElementType()) && !isa<FloatType>(type.getElementType()))
    return refuse("an element type that is neither float, integer nor index");
  Dep d = Dep::Free;
  auto count = [&](Dep k) { return llvm::count(deps, k); };
  if (count(Dep::MaxRow) && deps.size() == 1) {
    d = Dep::MaxRow; // broadcast(m)
  } else if (auto bin = dyn_cast<BinaryOp>(op); bin && bin.getKind() == BinaryKind::Sub && deps.size() == 2 &&
                                                deps[1] == Dep::MaxRow && bin.getLhs() == c.max.getInputs()[0]) {
    d = Dep::Shifted; // X - broadcast(m)
  } else if (auto un = dyn_cast<UnaryOp>(op); un && un.getKind() == UnaryKind::Exp && deps[0] == Dep::Shifted) {
    d = Dep::Scaled; // P = exp(X - m)
  } else if (isa<CastOp>(op) && deps[0] == Dep::Scaled && isa<FloatType>(type.getElementType())) {
    d = Dep::Scaled;
  } else if (auto sel = dyn_cast<SelectOp>(op); sel && c.free && count(Dep::Scaled)) {
    // Per-row summaries with a mask varying along the free axis too: refused like a masked row there.
    return refuse("a masked exponential with a free axis (per-row masks are not folded)");
  } else if (auto sel = dyn_cast<SelectOp>(op); sel && isa<FloatType>(type.getElementType()) && maskedTerm(sel) &&
                                                c.dep.lookup(maskedTerm(sel)) == Dep::Scaled &&
                                                c.dep.lookup(sel.getCondition()) == Dep::Free &&
                                                isRow(sel.getCondition())) {
    // where(c, P, 0) (either side) with c a mask over the row: a masked term, P-scaled where c admits
    // it and zero elsewhere, so rescaling it by exp(m - m') is rescaling P (the masked members
    // contribute nothing to the sums and products, seed 002 §1).
    d = Dep::Scaled;
  } else if (auto bin = dyn_cast<BinaryOp>(op); bin && bin.getKind() == BinaryKind::Mul && deps.size() == 2 &&
                                                count(Dep::Scaled) == 1 && count(Dep::Free) == 1) {
    d = Dep::Scaled;
  } else if (count(Dep::Free) != (int64_t)deps.size()) {
    if (count(Dep::MaxRow))
      return refuse("the maximum is used other than as x - broadcast(max)");
    if (count(Dep::Shifted))
      return refuse("an exp of something other than x - max, or another use of x - max");
    return refuse(Twine("a use of exp(x - max) by '") + op->getName().getStringRef() +
                  "' that is not a reduction over the axis");
  }
  c.dep[res] = d;
  return true;
}

/// Whether `user` (of a value over A, with a result not over A) is a reduction the fold summarizes.
bool Matcher::reduction(Operation *user) {
  if (reductions.contains(user))
    return true;
  if (user == c.max.getOperation())
    return true;
  if (auto r = dyn_cast<ReduceOp>(user)) {
    if (isPlainReduce(r, BinaryKind::Max, c.rowRank()) && isRow(r.getInputs()[0]))
      return refuse("a second maximum over the axis");
    if (!isPlainReduce(r, BinaryKind::Add, c.rowRank()) || !isRow(r.getInputs()[0]))
      return refuse("a reduction over the axis other than a float sum or the maximum");
    Dep d = c.dep.lookup(r.getInputs()[0]);
    if (d != Dep::Free && d != Dep::Scaled)
      return refuse("a sum of something other than P-scaled or plain terms");
    c.components.push_back({user, d == Dep::Scaled});
  } else if (auto ct = dyn_cast<ContractOp>(user)) {
    auto l = domainsOf(ct.getLhs(), memo), r = domainsOf(ct.getRhs(), memo);
    if (!l || !r || ct.getLhsReduce().size() != 1 || !ct.getLhsBatch().empty() || ct.getInit() ||
        (*l)[ct.getLhsReduce()[0]] != c.domain || (*r)[ct.getRhsReduce()[0]] != c.domain ||
        llvm::count(*l, c.domain) != 1 || llvm::count(*r, c.domain) != 1)
      return refuse("a contraction over the axis that is not one reduction of it");
    auto res = domainsOf(ct.getResult(), memo);
    auto et = getElementTypeOrSelf(ct.getResult().getType());
    if (!res || !isa<FloatType>(et))
      return refuse("a contraction over the axis with an unknown or integer result");
    Dep dl = c.dep.lookup(ct.getLhs()), dr = c.dep.lookup(ct.getRhs());
    bool okL = dl == Dep::Free || dl == Dep::Scaled, okR = dr == Dep::Free || dr == Dep::Scaled;
    if (!okL || !okR || (dl == Dep::Scaled && dr == Dep::Scaled))
      return refuse("a contraction of something other than P-scaled times plain terms");
    c.components.push_back({user, dl == Dep::Scaled || dr == Dep::Scaled});
  } else {
    return refuse(Twine("a use of a tensor over the axis by '") + user->getName().getStringRef() +
                  "' that is not a reduction over the axis");
  }
  reductions.insert(user);
  return true;
}

/// The ops over A that read (through ops of the body) a reduction over A other than the maximum:
/// candidates for the store epilogue, decided before the axis computation is classified.
void Matcher::findEpilogue() {
  DenseSet<Value> after;
  for (Operation &op : body) {
    if (&op == c.max.getOperation() || op.getNumRegions() > (isa<ReduceOp>(op) ? 1u : 0u))
      continue;
    bool reads = llvm::any_of(op.getOperands(), [&](Value x) { return after.contains(x); });
    bool reduces = false;
    if (auto r = dyn_cast<ReduceOp>(op))
      reduces = llvm::any_of(r.getInputs(), [&](Value x) { return overA(x); });
    else if (auto ct = dyn_cast<ContractOp>(op))
      reduces = (overA(ct.getLhs()) || overA(ct.getRhs())) && !overA(ct.getResult());
    if (!reads && !reduces)
      continue;
    for (Value r : op.getResults()) {
      after.insert(r);
      if (reads && overA(r))
        epilogueSet.insert(&op);
    }
  }
}

/// Whether `user` is a top-level store of `v` (its value, not a coordinate) over A: one domain
/// coordinate, A, and scalars for the others; recorded in the candidate's stores.
bool Matcher::storedValue(Operation *user, Value v) {
  auto st = dyn_cast<StoreOp>(user);
  if (!st || st.getValue() != v || user->getBlock() != &body || st.getValid())
    return false;
  unsigned domains = 0;
  for (Value x : st.getCoords()) {
    if (x == v)
      return false;
    if (isa<DomainType>(x.getType()))
      domains += x == c.domain ? 1 : 2;
    else if (isa<RankedTensorType>(x.getType()))
      return false;
  }
  if (domains != 1)
    return false;
  if (!llvm::is_contained(c.stores, user))
    c.stores.push_back(user);
  return true;
}

void Matcher::findOwnComputation() {
  bool other = false;
  for (Operation &op : body) {
    if (auto r = dyn_cast<ReduceOp>(op); r && r != c.max && isPlainReduce(r, BinaryKind::Max, c.rowRank()))
      other |= overA(r.getInputs()[0]);
    else if (auto f = dyn_cast<RegionFoldOp>(op))
      other |= llvm::any_of(f.getSources(), [&](Value x) { return overA(x); });
  }
  if (!other)
    return;
  shared = true;
  // What `op` reads in the body, transitively (sources included: their reads are this fold's too).
  SmallVector<Operation *> back;
  auto addBack = [&](Operation *op) {
    back.push_back(op);
    while (!back.empty()) {
      Operation *x = back.pop_back_val();
      if (!own.insert(x).second)
        continue;
      for (Value v : x->getOperands())
        if (Operation *def = v.getDefiningOp(); def && def->getBlock() == &body)
          back.push_back(def);
    }
  };
  if (Operation *def = c.max.getInputs()[0].getDefiningOp(); def && def->getBlock() == &body)
    addBack(def);
  own.insert(c.max);
  // Forward, in block order: an op reading a result of an own op that is computed (not a read: a
  // source shared with the other maximum's computation does not make its readers ours).
  for (Operation &op : body) {
    if (own.contains(&op) || op.getNumRegions() > (isa<ReduceOp>(op) ? 1u : 0u))
      continue;
    bool reads = llvm::any_of(op.getOperands(), [&](Value v) {
      Operation *def = v.getDefiningOp();
      return def && own.contains(def) && !isa<LoadOp, GatherOp>(def);
    });
    if (!reads)
      continue;
    // What reads the axis (its computation and its reductions) brings what it reads; a scalar or a
    // tensor free of the axis after the reductions (o1 - lam * o2) brings nothing.
    bool axis = llvm::any_of(op.getOperands(), [&](Value v) { return isa<RankedTensorType>(v.getType()) && overA(v); }) ||
                llvm::any_of(op.getResults(), [&](Value v) { return isa<RankedTensorType>(v.getType()) && overA(v); });
    if (axis)
      addBack(&op);
    else
      own.insert(&op);
  }
}

bool Matcher::match() {
  ReduceOp max = c.max;
  if (max.getInputs().size() != 1 || max.getAxes().size() != 1)
    return refuse("a maximum over several axes or of several inputs");
  // A rank-2 row [H, A] reduced over its last axis: H independent online folds over A, one fold
  // whose summary keeps the free leading axis H (seed 002 §1 per row; seed 002 §3.4).
  int64_t rank = cast<RankedTensorType>(max.getInputs()[0].getType()).getRank();
  if (!isPlainReduce(max, BinaryKind::Max, 1) && !isPlainReduce(max, BinaryKind::Max, 2))
    return refuse("not a float maximum of a rank-1 tensor over its only axis or of a rank-2 tensor over its "
                  "last axis");
  if (!isNegInf(max.getIdentities()[0]))
    return refuse("a maximum whose identity is not -inf");
  auto d = domainsOf(max.getInputs()[0], memo);
  if (!d || d->size() != (size_t)rank)
    return refuse("the axis of the maximum has no known domain");
  c.domain = d->back();
  if (rank == 2) {
    c.free = (*d)[0];
    if (c.free == c.domain)
      return refuse("a row over the same domain twice");
    if (maskOf(max.getInputs()[0]))
      return refuse("a masked row with a free axis (per-row masks are not folded)");
    // A free axis over a per-member slice of heads (qheads[kh * G : kh * G + G], defined in the loop
    // body) has no launch-uniform lanes: kir-to-pgpu would build its fold element by element, no
    // better than the two-pass reductions, so it stays as written.
    if (Operation *def = c.free.getDefiningOp(); !def || max->getParentOp()->isAncestor(def))
      return refuse("the free axis's domain is defined inside the loop body (a per-member slice)");
  }
  if (max->getBlock() != &body)
    return refuse("the maximum is nested inside control");
  // Ops that only compute read coordinates (a paged cache's block ids and slots, read through
  // index tensors over A) stay before the fold with the reads they feed: the fold slices the reads'
  // results, not their coordinates.
  DenseSet<Operation *> coordinatesOnly;
  for (Operation &op : llvm::reverse(body)) {
    if (op.getNumRegions() || op.use_empty() || !(isMemoryEffectFree(&op) || isa<LoadOp, GatherOp>(op)))
      continue;
    bool only = llvm::all_of(op.getUsers(), [&](Operation *user) {
      if (coordinatesOnly.contains(user))
        return true;
      if (auto g = dyn_cast<GatherOp>(user))
        return llvm::none_of(op.getResults(), [&](Value r) { return r == g.getValid() || r == g.getFill(); });
      return false;
    });
    if (only)
      coordinatesOnly.insert(&op);
  }
  // m = maximum(max(x), v) with v a scalar from outside the axis computation (a sink logit): the join
  // is the maximum the exponentials subtract; the fold finds max(x) and joins v after it.
  if (!c.free && max.getResult(0).hasOneUse()) {
    auto join = dyn_cast<BinaryOp>(*max.getResult(0).getUsers().begin());
    if (join && join.getKind() == BinaryKind::Max && join->getBlock() == &body) {
      Value other = join.getLhs() == max.getResult(0) ? join.getRhs() : join.getLhs();
      if (other != max.getResult(0) && isa<FloatType>(other.getType()))
        c.join = join;
    }
  }
  findEpilogue();
  findOwnComputation();
  // The axis computation: every top-level op of the body with a result over A (this maximum's own
  // where another softmax shares the axis).
  for (Operation &op : body) {
    if (isa<ReduceOp>(op) && &op == max.getOperation())
      continue;
    if (coordinatesOnly.contains(&op))
      continue;
    bool over = llvm::any_of(op.getResults(), [&](Value r) { return overA(r); });
    if (over && shared && !own.contains(&op))
      continue;
    if (!over) {
      // An op with a region that reads a value over A (a nested loop) is not a reduction we fold.
      bool reads = false;
      op.walk([&](Operation *inner) {
        if (inner != &op)
          for (Value x : inner->getOperands())
            reads |= c.dep.count(x) > 0;
      });
      if (reads)
        return refuse(Twine("a value over the axis used inside '") + op.getName().getStringRef() + "'");
      continue;
    }
    if (!isMemoryEffectFree(&op) && !isa<LoadOp, GatherOp>(op))
      return refuse(Twine("an effect over the axis ('") + op.getName().getStringRef() + "')");
    if (epilogueSet.contains(&op)) {
      // Pointwise math of a reduction's result with the row (e / sum(e)), for a store over A.
      auto t = dyn_cast<RankedTensorType>(op.getResult(0).getType());
      if (!isa<BinaryOp, UnaryOp, SelectOp, CastOp, CmpOp, BroadcastOp, BroadcastAsOp>(op) ||
          op.getNumResults() != 1 || !t || t.getRank() != 1)
        return refuse(Twine("'") + op.getName().getStringRef() +
                      "' over the axis reads a reduction over the axis and is not pointwise");
      c.epilogue.push_back(&op);
      continue;
    }
    if (!classify(&op))
      return false;
    c.ops.push_back(&op);
    opSet.insert(&op);
  }
  if (c.dep.lookup(max.getInputs()[0]) != Dep::Free || !opSet.contains(max.getInputs()[0].getDefiningOp()))
    return refuse("the maximum's input is not computed in the loop body from sources over the axis");
  // Every use of a value over A is the axis computation, a reduction over A, or the store epilogue.
  for (Operation *op : c.epilogue)
    for (Operation *user : op->getResult(0).getUsers())
      if (!epilogueSet.contains(user) && !storedValue(user, op->getResult(0)))
        return refuse(Twine("a value over the axis computed from a reduction is used by '") +
                      user->getName().getStringRef() + "', not stored over the axis");
  for (Operation *op : c.ops)
    for (Operation *user : op->getResult(0).getUsers()) {
      if (opSet.contains(user) || epilogueSet.contains(user) || storedValue(user, op->getResult(0)))
        continue;
      // A read's coordinate computed before the fold (kp - P of a member's key domain).
      if (coordinatesOnly.contains(user))
        continue;
      // A read shared with another softmax's computation: that one reads it on its own.
      if (shared && !own.contains(inBody(user)) && isa<LoadOp, GatherOp>(op))
        continue;
      if (user->getBlock() != &body)
        return refuse(Twine("a value over the axis used inside '") + inBody(user)->getName().getStringRef() +
                      "'");
      if (!reduction(user))
        return false;
    }
  // What the sources and their coordinates read of the axis computation stays before the fold.
  {
    SmallVector<Operation *> work;
    auto readBy = [&](Operation *reader) {
      for (Value x : reader->getOperands())
        if (Operation *def = x.getDefiningOp(); def && def->getBlock() == &body)
          work.push_back(def);
    };
    for (Operation *s : c.sources)
      readBy(s);
    for (Operation *op : coordinatesOnly)
      readBy(op);
    while (!work.empty()) {
      Operation *x = work.pop_back_val();
      if (!opSet.contains(x) || llvm::is_contained(c.sources, x) || !c.kept.insert(x).second)
        continue;
      readBy(x);
    }
  }
  // A maximum alone is a fold of its own where a contraction computes the row (the row maximum of a
  // matrix product: each tile of the row a tile product, rewriteTwoPass's first pass only).
  bool alone = c.components.empty() && llvm::any_of(c.ops, [](Operation *op) { return isa<ContractOp>(op); });
  if (c.components.empty() && !alone)
    return refuse("no reduction of exp(x - max) over the axis");
  if (!alone && !llvm::any_of(c.components, [](const Component &k) { return k.rescaled; }))
    return refuse("no reduction of exp(x - max) over the axis");
  // The fold replaces every reduction at the last of them; the reductions' other users must follow it.
  c.last = max;
  for (Component &k : c.components)
    if (c.last->isBeforeInBlock(k.op))
      c.last = k.op;
  SmallVector<Operation *> all{max};
  for (Component &k : c.components)
    all.push_back(k.op);
  if (c.join)
    all.push_back(c.join);
  // Uses before the last reduction: pure scalar ops not over A, with every user of theirs before it
  // the same, are deferred after it (moved, order kept); anything else is refused.
  SmallVector<Operation *> pending;
  DenseSet<Operation *> deferredSet;
  for (Operation *r : all)
    for (Operation *user : r->getResult(0).getUsers()) {
      if (opSet.contains(user) || user == c.join.getOperation())
        continue; // broadcast(m), the join of the maximum
      Operation *at = inBody(user);
      if (!at || at == c.last)
        return refuse("a result of a reduction over the axis is used before the last of them");
      if (at->isBeforeInBlock(c.last))
        pending.push_back(at);
    }
  while (!pending.empty()) {
    Operation *op = pending.pop_back_val();
    if (!deferredSet.insert(op).second)
      continue;
    if (op == c.join.getOperation() || opSet.contains(op) || op->getNumRegions() || !isMemoryEffectFree(op) ||
        llvm::any_of(op->getResults(), [&](Value r) { return isa<RankedTensorType>(r.getType()) && overA(r); }))
      return refuse("a result of a reduction over the axis is used before the last of them");
    for (Value r : op->getResults())
      for (Operation *user : r.getUsers()) {
        Operation *at = inBody(user);
        if (!at || at == c.last)
          return refuse("a result of a reduction over the axis is used before the last of them");
        if (at->isBeforeInBlock(c.last))
          pending.push_back(at);
      }
  }
  c.deferred.assign(deferredSet.begin(), deferredSet.end());
  llvm::sort(c.deferred, [](Operation *a, Operation *z) { return a->isBeforeInBlock(z); });
  // A value computed from a reduction must not feed the axis computation (that is a second pass).
  DenseSet<Value> after;
  for (Operation *r : all)
    after.insert(r->getResult(0));
  for (Operation &op : body)
    if (!opSet.contains(&op) && llvm::any_of(op.getOperands(), [&](Value x) { return after.contains(x); }))
      for (Value r : op.getResults())
        after.insert(r);
  SmallVector<Value> read(c.captures.begin(), c.captures.end());
  for (Operation *s : c.sources)
    llvm::append_range(read, s->getOperands());
  if (c.join)
    read.push_back(c.join.getLhs() == max.getResult(0) ? c.join.getRhs() : c.join.getLhs());
  for (Value x : read)
    if (after.contains(x))
      return refuse("a value computed from a reduction over the axis feeds the axis computation");
  if (c.join) // the value joined with the maximum is read where the first fold ends
    if (Operation *def = read.back().getDefiningOp(); def && def->getBlock() == &body && !def->isBeforeInBlock(c.last))
      return refuse("the value joined with the maximum is computed after the reductions");
  for (Value cap : c.captures)
    if (Operation *def = cap.getDefiningOp(); def && def->getBlock() == &body && !def->isBeforeInBlock(c.last))
      return refuse("a value the axis computation reads is computed after its reductions");
  for (Operation *op : c.ops)
    if (c.last->isBeforeInBlock(op))
      return refuse("a value over the axis computed after its reductions");
  // The epilogue recomputes the row after the folds, where the last reduction was.
  for (Operation *op : llvm::concat<Operation *>(c.epilogue, c.stores))
    if (!c.last->isBeforeInBlock(op))
      return refuse("a store over the axis before the last reduction over it");
  return true;
}

/// The value the folds slice for source `s` (AxisDomains.h: axisFirstSource).
Value sourceValue(Candidate &c, Operation *s) { return axisFirstSource(s, c.domain, c.views); }

/// Clones a candidate's axis computation onto the slices of a region fold's summarizer: sources and
/// captures are the block's arguments, broadcasts over the axis take their shape from the slice.
struct SliceBuilder {
  SliceBuilder(Candidate &c, OpBuilder &b) : c(c), b(b) {}

  /// Adds the summarizer's arguments: the slices of `sources` (the positions last), then `captures`.
  void addArguments(Block *sum, ArrayRef<Value> sources, ArrayRef<Value> captures, Location loc) {
    for (Value s : sources) {
      auto t = cast<RankedTensorType>(s.getType());
      SmallVector<int64_t> shape(t.getShape());
      shape[0] = ShapedType::kDynamic;
      map.map(s, sum->addArgument(RankedTensorType::get(shape, t.getElementType()), loc));
    }
    slicePos = sum->getArguments()[sources.size() - 1];
    for (Value cap : captures)
      map.map(cap, sum->addArgument(cap.getType(), cap.getLoc()));
  }

  /// A row a broadcast takes its shape from: a sibling operand of the same type already on the slice
  /// (the form the DSL writes, T.where(c, s, -inf) broadcasting against s), else the slice's positions.
  Value shapeOf(Value bcast) {
    for (Operation *user : bcast.getUsers())
      for (Value x : user->getOperands())
        if (x != bcast && x.getType() == bcast.getType() && c.dep.count(x) && map.contains(x))
          return map.lookup(x);
    // A per-row summary's row [H, A]: the slice of the maximum's input has its shape.
    if (c.free)
      if (Value row = map.lookupOrNull(c.max.getInputs()[0]))
        return row;
    return slicePos;
  }

  /// A value the clone reads: mapped, a constant (cloned: regions are closed), or over A from outside.
  Value get(Value v) {
    if (Value m = map.lookupOrNull(v))
      return m;
    Operation *def = v.getDefiningOp();
    Value out;
    if (Value view = c.views.lookup(def); view && map.contains(view)) {
      // A source sliced through its transposed view (sourceValue): the slice in the read's axis order.
      auto t = cast<RankedTensorType>(v.getType());
      auto vt = cast<RankedTensorType>(view.getType());
      int64_t p = cast<TransposeOp>(view.getDefiningOp()).getPermutation()[0];
      SmallVector<int64_t> perm, shape(t.getShape());
      shape[p] = ShapedType::kDynamic;
      for (int64_t j = 0; j < vt.getRank(); ++j)
        perm.push_back(j == p ? 0 : j < p ? j + 1 : j);
      out = TransposeOp::create(b, def->getLoc(), RankedTensorType::get(shape, t.getElementType()), map.lookup(view),
                                b.getDenseI64ArrayAttr(perm));
    } else if (isa<IndicesOp>(def))
      out = slicePos;
    else if (auto bc = dyn_cast<BroadcastOp>(def); bc && c.free)
      out = BroadcastAsOp::create(b, bc.getLoc(), bc.getType(), get(bc.getOperand()), shapeOf(v), bc.getDims());
    else if (auto bc = dyn_cast<BroadcastOp>(def))
      out = BroadcastAsOp::create(b, bc.getLoc(), RankedTensorType::get({ShapedType::kDynamic},
                                                                        getElementTypeOrSelf(bc.getType())),
                                  get(bc.getOperand()), shapeOf(v), ArrayRef<int64_t>{});
    else
      out = b.clone(*def)->getResult(0); // a constant
    map.map(v, out);
    return out;
  }

  Value clone(Operation *op) {
    if (auto bc = dyn_cast<BroadcastOp>(op)) {
      Value x = get(bc.getOperand());
      Value r = BroadcastAsOp::create(b, bc.getLoc(), bc.getType(), x, shapeOf(bc.getResult()), bc.getDims());
      map.map(bc.getResult(), r);
      return r;
    }
    if (auto ind = dyn_cast<IndicesOp>(op)) {
      map.map(ind.getResult(), slicePos);
      return slicePos;
    }
    for (Value x : op->getOperands())
      if (!isa<DomainType>(x.getType()))
        get(x);
    return b.clone(*op, map)->getResult(0); // tensors over A are dynamic there already
  }

  /// exp(where(c, s, -inf) - m) as where(c, exp(s - m), 0), exact when m is finite: the masked form
  /// the downstream passes read as a guard of the exponentials (pgpu-online-rescale, pgpu-exp-base2)
  /// and pgpu-narrow-fold-ranges proves zero on an all-false tile. False when `un` is not that form.
  bool maskedExp(UnaryOp un, FloatType fty, Location loc) {
    if (un.getKind() != UnaryKind::Exp)
      return false;
    auto sub = un.getOperand().getDefiningOp<BinaryOp>();
    Value cond = sub ? maskOf(sub.getLhs()) : Value();
    if (!cond || !map.contains(cond) || !map.contains(sub.getRhs()))
      return false;
    // The source's own guard where(c, exp(...), 0) by the scores' mask: the guard's result is the
    // masked exponential too, exact for any maximum. A guard by another mask stays as written (its
    // terms at a maximum of -inf are NaN or 0 depending on that mask, which the fix-up cannot know).
    bool guarded = guardedByItsMask(un.getResult(), cond);
    if (!guarded && llvm::any_of(un.getResult().getUsers(), [](Operation *u) { return isa<SelectOp>(u); }))
      return false;
    Value s = get(sub.getLhs().getDefiningOp<SelectOp>().getTrueValue());
    Value e = UnaryOp::create(b, un.getLoc(), UnaryKind::Exp,
                              BinaryOp::create(b, sub.getLoc(), BinaryKind::Sub, s, map.lookup(sub.getRhs())));
    Value zero = BroadcastAsOp::create(b, un.getLoc(), un.getType(),
                                       arith::ConstantOp::create(b, loc, b.getFloatAttr(fty, 0.0)).getResult(), e,
                                       ArrayRef<int64_t>{});
    Value p = SelectOp::create(b, un.getLoc(), map.lookup(cond), e, zero);
    map.map(un.getResult(), p);
    for (Operation *guard : un.getResult().getUsers())
      if (guarded)
        map.map(guard->getResult(0), p);
    unguardedExp |= !guarded;
    return true;
  }

  Candidate &c;
  OpBuilder &b;
  IRMapping map;
  Value slicePos;
  /// Whether a maskedExp rewrite replaced an exponential the source does not zero itself at the
  /// masked members (the two-pass fold's NaN fix-up for a maximum of -inf is needed then).
  bool unguardedExp = false;
};

/// The fold's identity for a reduction or contraction over A: the reduce's own, else 0 over the
/// contraction result's domains.
Value componentIdentity(OpBuilder &b, Location loc, Operation *op) {
  Value r = op->getResult(0);
  DenseMap<Value, SmallVector<Value>> memo;
  if (auto red = dyn_cast<ReduceOp>(op)) {
    // A per-row sum [H]: its identity over the free axis.
    if (!isa<RankedTensorType>(r.getType()))
      return red.getIdentities()[0];
    return BroadcastOp::create(b, loc, r.getType(), red.getIdentities()[0], *domainsOf(r, memo), ArrayRef<int64_t>{})
        .getResult();
  }
  auto doms = *domainsOf(r, memo);
  Type et = getElementTypeOrSelf(r.getType());
  Value zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(et, 0.0));
  return doms.empty() ? zero : BroadcastOp::create(b, loc, r.getType(), zero, doms, ArrayRef<int64_t>{}).getResult();
}

/// What the fold replaces: the axis computation, the maximum and the reductions, not the sources.
DenseSet<Operation *> replacedOps(const Candidate &c) {
  DenseSet<Operation *> dead(c.ops.begin(), c.ops.end());
  dead.insert(c.max);
  for (const Component &k : c.components)
    dead.insert(k.op);
  for (Operation *s : c.sources)
    dead.erase(s);
  for (Operation *k : c.kept)
    dead.erase(k);
  return dead;
}

/// Erases the candidate's reductions and axis computation (not its sources) once their results
/// outside it have been replaced.
void eraseAxisComputation(Candidate &c, ArrayRef<Operation *> order, const DenseSet<Operation *> &dead) {
  for (Operation *op : llvm::reverse(order))
    if (dead.contains(op)) {
      op->dropAllUses();
      op->erase();
    }
}

/// The store epilogue's second traversal of A (seed 002 §3.4): the part of the axis computation
/// the epilogue and its stores read is cloned at `b` (after the folds), the maximum read as `m`, the
/// sources where they were; the epilogue then reads the clones. The reductions' results it reads
/// have been replaced by the folds' already.
void recomputeEpilogue(Candidate &c, OpBuilder &b, Value m) {
  if (c.epilogue.empty() && c.stores.empty())
    return;
  DenseSet<Operation *> core(c.ops.begin(), c.ops.end());
  for (Operation *s : c.sources)
    core.erase(s);
  DenseSet<Operation *> need;
  SmallVector<Operation *> work;
  for (Operation *op : llvm::concat<Operation *>(c.epilogue, c.stores))
    for (Value x : op->getOperands())
      if (Operation *def = x.getDefiningOp(); def && core.contains(def))
        work.push_back(def);
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    if (!need.insert(op).second)
      continue;
    for (Value x : op->getOperands())
      if (Operation *def = x.getDefiningOp(); def && core.contains(def))
        work.push_back(def);
  }
  SmallVector<Operation *> order(need.begin(), need.end());
  llvm::sort(order, [](Operation *a, Operation *z) { return a->isBeforeInBlock(z); });
  IRMapping map;
  map.map(c.maxValue(), m);
  for (Operation *op : order)
    b.clone(*op, map);
  for (Operation *op : llvm::concat<Operation *>(c.epilogue, c.stores))
    for (OpOperand &use : op->getOpOperands())
      if (Value v = map.lookupOrNull(use.get()))
        use.set(v);
}

/// Builds the region fold of a matched candidate and replaces the reductions by its results.
void rewrite(Candidate &c, Value indices) {
  ReduceOp max = c.max;
  Location loc = max.getLoc();
  // The value a joined maximum joins (read before the maximum's uses are replaced).
  Value joinOther;
  if (c.join)
    joinOther = c.join.getLhs() == max.getResult(0) ? c.join.getRhs() : c.join.getLhs();
  OpBuilder b(c.last);
  Type mType = max.getResult(0).getType();

  SmallVector<Value> sources;
  for (Operation *s : c.sources)
    sources.push_back(sourceValue(c, s));
  sources.push_back(indices);
  // Summary (ok, m, components...): ok says the slice has a value other than -inf, and m is its
  // maximum then (0 else), so a masked slice sums to 0, not NaN, and weighs nothing in combine.
  // Per-row summaries keep the free axis H: ok and m are [H] (one per row).
  Type i1 = b.getI1Type();
  auto fty = cast<FloatType>(getElementTypeOrSelf(mType));
  Value no = arith::ConstantOp::create(b, loc, b.getBoolAttr(false));
  Value zeroM = arith::ConstantOp::create(b, loc, b.getFloatAttr(fty, 0.0));
  Type okType = i1;
  if (c.free) {
    okType = RankedTensorType::get({ShapedType::kDynamic}, i1);
    no = BroadcastOp::create(b, loc, okType, no, ValueRange{c.free}, ArrayRef<int64_t>{}).getResult();
    zeroM = BroadcastOp::create(b, loc, mType, zeroM, ValueRange{c.free}, ArrayRef<int64_t>{}).getResult();
  }
  SmallVector<Value> identities{no, zeroM};
  SmallVector<Type> types{okType, mType};
  for (Component &k : c.components) {
    types.push_back(k.op->getResult(0).getType());
    identities.push_back(componentIdentity(b, loc, k.op));
  }
  SmallVector<Value> captures(c.captures.begin(), c.captures.end());
  auto fold = RegionFoldOp::create(b, loc, types, sources, /*axis=*/0, identities, captures);

  // summarize(slices..., operands...): the axis computation on the slice (seed 002 §3.4).
  Block *sum = b.createBlock(&fold.getSummarize());
  SliceBuilder sb(c, b);
  sb.addArguments(sum, sources, captures, loc);
  b.setInsertionPointToStart(sum);
  Value mSlice, ok;
  std::vector<Operation *> order(c.ops.begin(), c.ops.end());
  order.push_back(max);
  for (Component &k : c.components)
    order.push_back(k.op);
  llvm::sort(order, [](Operation *a, Operation *z) { return a->isBeforeInBlock(z); });
  DenseMap<Operation *, Value> clonedComponent;
  for (Operation *op : order) {
    if (llvm::is_contained(c.sources, op))
      continue;
    if (op == max.getOperation()) {
      Value top = sb.clone(op);
      Value zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(fty, 0.0));
      // A row masked as where(c, s, -inf): the slice holds a value where any(c) (the mask's own
      // positions, which range narrowing reads); any other row: where its maximum is not -inf.
      if (Value cond = maskOf(max.getInputs()[0]); cond && sb.map.contains(cond)) {
        auto any = ReduceOp::create(b, loc, TypeRange{i1}, ValueRange{sb.map.lookup(cond)}, ArrayRef<int64_t>{0},
                                    ValueRange{sb.get(no)});
        OpBuilder::InsertionGuard g(b);
        Block *blk = b.createBlock(&any.getCombine(), {}, {i1, i1}, {loc, loc});
        YieldOp::create(b, loc, ValueRange{BinaryOp::create(b, loc, BinaryKind::Or, blk->getArgument(0),
                                                            blk->getArgument(1))});
        ok = any.getResult(0);
      } else if (c.free) {
        Value inf = BroadcastAsOp::create(b, loc, mType, sb.get(max.getIdentities()[0]), top, ArrayRef<int64_t>{});
        ok = CmpOp::create(b, loc, CmpPredicate::NE, top, inf);
        zero = BroadcastAsOp::create(b, loc, mType, zero, top, ArrayRef<int64_t>{});
      } else {
        ok = CmpOp::create(b, loc, CmpPredicate::NE, top, sb.get(max.getIdentities()[0]));
      }
      mSlice = SelectOp::create(b, loc, ok, top, zero);
      sb.map.map(max.getResult(0), mSlice);
      if (c.join) // a slice's terms are exp(x - its own maximum); the sink joins after the fold
        sb.map.map(c.join.getResult(), mSlice);
      continue;
    }
    if (auto un = dyn_cast<UnaryOp>(op); un && sb.maskedExp(un, fty, loc))
      continue;
    if (Value done = sb.map.lookupOrNull(op->getResult(0))) { // a guard maskedExp folded in
      clonedComponent[op] = done;
      continue;
    }
    clonedComponent[op] = sb.clone(op);
  }
  SmallVector<Value> yields{ok, mSlice};
  for (Component &k : c.components)
    yields.push_back(clonedComponent[k.op]);
  YieldOp::create(b, loc, yields);
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*sum)))
    if (isOpTriviallyDead(&op))
      op.erase();

  // combine(earlier..., later...): rescale both sides to the larger maximum (seed 002 §1).
  Block *comb = b.createBlock(&fold.getCombine());
  for (int side = 0; side < 2; ++side)
    for (Type t : types)
      comb->addArgument(t, loc);
  unsigned n = types.size();
  // mx = the larger maximum of the nonempty sides; a side weighs where(ok, exp(m - mx), 0).
  Value ok1 = comb->getArgument(0), ok2 = comb->getArgument(n);
  Value m1 = comb->getArgument(1), m2 = comb->getArgument(n + 1);
  Value both = BinaryOp::create(b, loc, BinaryKind::Max, m1, m2);
  Value mx = SelectOp::create(b, loc, ok2, SelectOp::create(b, loc, ok1, both, m2).getResult(), m1);
  Value zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(fty, 0.0));
  if (c.free)
    zero = BroadcastAsOp::create(b, loc, mType, zero, mx, ArrayRef<int64_t>{});
  auto weight = [&](Value okSide, Value m) -> Value {
    Value e = UnaryOp::create(b, loc, UnaryKind::Exp, BinaryOp::create(b, loc, BinaryKind::Sub, m, mx));
    return SelectOp::create(b, loc, okSide, e, zero);
  };
  Value w1 = weight(ok1, m1), w2 = weight(ok2, m2);
  SmallVector<Value> merged{BinaryOp::create(b, loc, BinaryKind::Or, ok1, ok2), mx};
  for (auto [i, k] : llvm::enumerate(c.components)) {
    Value r1 = comb->getArgument(2 + i), r2 = comb->getArgument(n + 2 + i);
    if (!k.rescaled) {
      merged.push_back(BinaryOp::create(b, loc, BinaryKind::Add, r1, r2));
      continue;
    }
    auto scale = [&](Value r, Value w) -> Value {
      // Per-row weights [H] spread along a component's trailing axes ([H, D]: dims [0]).
      if (c.free && r.getType() != w.getType())
        w = BroadcastAsOp::create(b, loc, r.getType(), w, r, ArrayRef<int64_t>{0});
      else if (!c.free && isa<RankedTensorType>(r.getType()))
        w = BroadcastAsOp::create(b, loc, r.getType(), w, r, ArrayRef<int64_t>{});
      return BinaryOp::create(b, loc, BinaryKind::Mul, r, w);
    };
    merged.push_back(BinaryOp::create(b, loc, BinaryKind::Add, scale(r1, w1), scale(r2, w2)));
  }
  YieldOp::create(b, loc, merged);

  // The reductions' results outside the axis computation become the fold's; the rest is dead.
  DenseSet<Operation *> dead = replacedOps(c);
  auto outside = [&](OpOperand &use) { return !dead.contains(use.getOwner()); };
  // The row's maximum is -inf where no value was (the reduction's identity), as before.
  b.setInsertionPointAfter(fold);
  Value rowMax;
  if (llvm::any_of(max.getResult(0).getUses(), outside) || !c.stores.empty()) {
    Value inf = max.getIdentities()[0];
    if (c.free)
      inf = BroadcastOp::create(b, loc, mType, inf, ValueRange{c.free}, ArrayRef<int64_t>{}).getResult();
    rowMax = SelectOp::create(b, loc, fold.getResult(0), fold.getResult(1), inf);
    max.getResult(0).replaceUsesWithIf(rowMax, outside);
  }
  if (!c.join) {
    for (auto [i, k] : llvm::enumerate(c.components))
      k.op->getResult(0).replaceUsesWithIf(fold.getResult(2 + i), outside);
    recomputeEpilogue(c, b, rowMax);
    eraseAxisComputation(c, order, dead);
    return;
  }
  // A joined maximum (attention sinks): the summary is relative to the fold's maximum m_f; the
  // final maximum is maximum(row max, v), and each P-scaled component is rescaled to it by
  // where(ok, exp(m_f - m), 0), the combine's weight for one more side (seed 002 §1).
  Value mFinal = BinaryOp::create(b, c.join.getLoc(), BinaryKind::Max, rowMax, joinOther);
  c.join.getResult().replaceUsesWithIf(mFinal, [&](OpOperand &use) { return !dead.contains(use.getOwner()); });
  dead.insert(c.join);
  order.insert(llvm::upper_bound(order, c.join.getOperation(),
                                 [](Operation *a, Operation *z) { return a->isBeforeInBlock(z); }),
               c.join);
  Value zeroW = arith::ConstantOp::create(b, loc, b.getFloatAttr(fty, 0.0));
  Value wJoin = SelectOp::create(
      b, loc, fold.getResult(0),
      UnaryOp::create(b, loc, UnaryKind::Exp, BinaryOp::create(b, loc, BinaryKind::Sub, fold.getResult(1), mFinal)),
      zeroW);
  for (auto [i, k] : llvm::enumerate(c.components)) {
    Value r = fold.getResult(2 + i);
    if (k.rescaled) {
      Value w = wJoin;
      if (isa<RankedTensorType>(r.getType()))
        w = BroadcastAsOp::create(b, loc, r.getType(), w, r, ArrayRef<int64_t>{});
      r = BinaryOp::create(b, loc, BinaryKind::Mul, r, w);
    }
    k.op->getResult(0).replaceUsesWithIf(r, outside);
  }
  recomputeEpilogue(c, b, mFinal);
  eraseAxisComputation(c, order, dead);
}

/// Whether the exact two-pass folds apply under source numerics: the row is computed by a
/// contraction (a matvec of the scores) or a reduction of it is a contraction (P.V). Then the
/// element-wise construction would run one matrix-vector product per parallel member, where the
/// blocked folds run BLOCK_M members' products as one tl.dot per key tile; a row read from memory
/// and only summed (softmax, log-softmax, logsumexp) keeps its row path (pgpu-stage-rows and, with
/// the permission, pgpu-online-normalize).
bool feedsContraction(const Candidate &c) {
  return llvm::any_of(c.ops, [](Operation *op) { return isa<ContractOp>(op); }) ||
         llvm::any_of(c.components, [](const Component &k) { return isa<ContractOp>(k.op); });
}

/// The exact alternative under source numerics (seed 002 §1: no online rescaling): pass 1 is a
/// region fold whose summary is the maximum alone (exact in any order), the scores recomputed per
/// tile; pass 2 a region fold over the same tiles that captures the final maximum and sums each
/// reduction of exp(x - m) (plain sums: reassociated as any reduction may be). Both construct on
/// fragments like the online fold.
void rewriteTwoPass(Candidate &c, Value indices) {
  ReduceOp max = c.max;
  Location loc = max.getLoc();
  OpBuilder b(c.last);
  Type mType = max.getResult(0).getType();
  auto fty = cast<FloatType>(getElementTypeOrSelf(mType));
  DenseSet<Operation *> opSet(c.ops.begin(), c.ops.end());

  // Pass 1 reads what the maximum's input depends on: its ops, sources and captures.
  DenseSet<Operation *> need;
  SmallVector<Operation *> work{max.getInputs()[0].getDefiningOp()};
  DenseSet<Value> reached; // values read from outside, through broadcasts of captures
  SmallVector<Value> outsideWork;
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    if (!need.insert(op).second)
      continue;
    for (Value x : op->getOperands()) {
      if (Operation *def = x.getDefiningOp(); def && opSet.contains(def))
        work.push_back(def);
      else
        outsideWork.push_back(x);
    }
  }
  while (!outsideWork.empty()) {
    Value x = outsideWork.pop_back_val();
    if (!reached.insert(x).second)
      continue;
    if (auto bc = x.getDefiningOp<BroadcastOp>())
      outsideWork.push_back(bc.getOperand());
  }
  SmallVector<Value> sources1, captures1;
  for (Operation *s : c.sources)
    if (need.contains(s))
      sources1.push_back(sourceValue(c, s));
  sources1.push_back(indices);
  for (Value cap : c.captures)
    if (reached.contains(cap))
      captures1.push_back(cap);
  Value minusInf = max.getIdentities()[0];
  if (c.free) // per-row maxima [H]
    minusInf = BroadcastOp::create(b, loc, mType, minusInf, ValueRange{c.free}, ArrayRef<int64_t>{}).getResult();
  auto fold1 = RegionFoldOp::create(b, loc, TypeRange{mType}, sources1, /*axis=*/0, ValueRange{minusInf}, captures1);
  {
    OpBuilder::InsertionGuard g(b);
    Block *sum = b.createBlock(&fold1.getSummarize());
    SliceBuilder sb(c, b);
    sb.addArguments(sum, sources1, captures1, loc);
    b.setInsertionPointToStart(sum);
    SmallVector<Operation *> order(need.begin(), need.end());
    llvm::sort(order, [](Operation *a, Operation *z) { return a->isBeforeInBlock(z); });
    for (Operation *op : order)
      if (!llvm::is_contained(c.sources, op))
        sb.clone(op);
    YieldOp::create(b, loc, ValueRange{sb.clone(max)});
    Block *comb = b.createBlock(&fold1.getCombine(), {}, {mType, mType}, {loc, loc});
    YieldOp::create(b, loc, ValueRange{BinaryOp::create(b, loc, BinaryKind::Max, comb->getArgument(0),
                                                        comb->getArgument(1))});
  }
  Value m = fold1.getResult(0);
  // The final maximum: the fold's, joined with the sink (Candidate::join) where there is one.
  Value mFinal = m;
  if (c.join) {
    Value other = c.join.getLhs() == max.getResult(0) ? c.join.getRhs() : c.join.getLhs();
    mFinal = BinaryOp::create(b, c.join.getLoc(), BinaryKind::Max, m, other);
  }
  // The join's uses outside the axis computation read the final maximum; the join goes with it.
  auto replaceJoin = [&](DenseSet<Operation *> &dead, std::vector<Operation *> &order) {
    if (!c.join)
      return;
    c.join.getResult().replaceUsesWithIf(mFinal, [&](OpOperand &use) { return !dead.contains(use.getOwner()); });
    dead.insert(c.join);
    order.insert(llvm::upper_bound(order, c.join.getOperation(),
                                   [](Operation *a, Operation *z) { return a->isBeforeInBlock(z); }),
                 c.join);
  };
  if (c.components.empty()) { // a maximum alone: pass 1 is the whole rewrite
    std::vector<Operation *> order(c.ops.begin(), c.ops.end());
    order.push_back(max);
    llvm::sort(order, [](Operation *a, Operation *z) { return a->isBeforeInBlock(z); });
    DenseSet<Operation *> dead = replacedOps(c);
    b.setInsertionPointAfter(mFinal.getDefiningOp());
    replaceJoin(dead, order);
    max.getResult(0).replaceUsesWithIf(m, [&](OpOperand &use) { return !dead.contains(use.getOwner()); });
    recomputeEpilogue(c, b, mFinal);
    eraseAxisComputation(c, order, dead);
    return;
  }

  // Pass 2: the reductions of exp(x - m) with the final m. The masked exponential where(c, exp(s - m),
  // 0) is exact for a finite m; for m = -inf every term of the source is exp(-inf - -inf) = NaN, so a
  // rescaled component is NaN there when the axis is nonempty (a fix-up after the fold). Without a
  // domain whose emptiness is known, the exponential stays as written.
  auto dom = c.domain.getDefiningOp<DomainOp>();
  SmallVector<Value> sources2;
  for (Operation *s : c.sources)
    sources2.push_back(sourceValue(c, s));
  sources2.push_back(indices);
  SmallVector<Value> captures2(c.captures.begin(), c.captures.end());
  captures2.push_back(mFinal);
  SmallVector<Type> types;
  SmallVector<Value> identities;
  for (Component &k : c.components) {
    types.push_back(k.op->getResult(0).getType());
    identities.push_back(componentIdentity(b, loc, k.op));
  }
  auto fold2 = RegionFoldOp::create(b, loc, types, sources2, /*axis=*/0, identities, captures2);
  std::vector<Operation *> order(c.ops.begin(), c.ops.end());
  order.push_back(max);
  for (Component &k : c.components)
    order.push_back(k.op);
  llvm::sort(order, [](Operation *a, Operation *z) { return a->isBeforeInBlock(z); });
  bool masked = false;
  {
    OpBuilder::InsertionGuard g(b);
    Block *sum = b.createBlock(&fold2.getSummarize());
    SliceBuilder sb(c, b);
    sb.addArguments(sum, sources2, ArrayRef<Value>(captures2).drop_back(), loc);
    sb.map.map(c.maxValue(), sum->addArgument(mType, loc));
    b.setInsertionPointToStart(sum);
    DenseMap<Operation *, Value> cloned;
    for (Operation *op : order) {
      if (llvm::is_contained(c.sources, op) || op == max.getOperation())
        continue;
      if (auto un = dyn_cast<UnaryOp>(op); dom && un && sb.maskedExp(un, fty, loc))
        continue;
      if (Value done = sb.map.lookupOrNull(op->getResult(0))) { // a guard maskedExp folded in
        cloned[op] = done;
        continue;
      }
      cloned[op] = sb.clone(op);
    }
    masked = sb.unguardedExp;
    SmallVector<Value> yields;
    for (Component &k : c.components)
      yields.push_back(cloned[k.op]);
    YieldOp::create(b, loc, yields);
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*sum)))
      if (isOpTriviallyDead(&op))
        op.erase();
    Block *comb = b.createBlock(&fold2.getCombine());
    for (int side = 0; side < 2; ++side)
      for (Type t : types)
        comb->addArgument(t, loc);
    SmallVector<Value> merged;
    for (unsigned i = 0; i < types.size(); ++i)
      merged.push_back(BinaryOp::create(b, loc, BinaryKind::Add, comb->getArgument(i),
                                        comb->getArgument(types.size() + i)));
    YieldOp::create(b, loc, merged);
  }

  DenseSet<Operation *> dead = replacedOps(c);
  auto outside = [&](OpOperand &use) { return !dead.contains(use.getOwner()); };
  b.setInsertionPointAfter(fold2);
  replaceJoin(dead, order);
  max.getResult(0).replaceUsesWithIf(m, outside);
  Value nanRow;
  if (masked) {
    Value nonempty = CmpOp::create(b, loc, CmpPredicate::LT, dom.getLower(), dom.getUpper());
    nanRow = BinaryOp::create(b, loc, BinaryKind::And,
                              CmpOp::create(b, loc, CmpPredicate::EQ, mFinal, minusInf).getResult(), nonempty);
  }
  for (auto [i, k] : llvm::enumerate(c.components)) {
    Value r = fold2.getResult(i);
    if (masked && k.rescaled && llvm::any_of(k.op->getResult(0).getUses(), outside)) {
      Type et = getElementTypeOrSelf(r.getType());
      Value nan = arith::ConstantOp::create(
          b, loc, b.getFloatAttr(et, APFloat::getQNaN(cast<FloatType>(et).getFloatSemantics())));
      DenseMap<Value, SmallVector<Value>> memo;
      auto doms = *domainsOf(k.op->getResult(0), memo);
      if (!doms.empty())
        nan = BroadcastOp::create(b, loc, r.getType(), nan, doms, ArrayRef<int64_t>{});
      r = SelectOp::create(b, loc, nanRow, nan, r);
    }
    k.op->getResult(0).replaceUsesWithIf(r, outside);
  }
  recomputeEpilogue(c, b, mFinal);
  eraseAxisComputation(c, order, dead);
}

/// Recomputes a candidate's hoisted producers (Candidate::hoisted) at the start of the loop body, in
/// their order, and points the body's uses at the copies (seed 002 §3.4: replaying pure producers is
/// legal); an original stays for its users outside the loop and goes when none is left.
void replayHoisted(ParallelOp par, const llvm::SetVector<Operation *> &hoisted) {
  SmallVector<Operation *> order(hoisted.begin(), hoisted.end());
  llvm::sort(order, [](Operation *a, Operation *z) { return a->isBeforeInBlock(z); });
  Block &body = par.getBody().front();
  OpBuilder b(&body, body.begin());
  IRMapping map;
  for (Operation *op : order)
    b.clone(*op, map);
  for (Operation *op : order)
    op->getResult(0).replaceUsesWithIf(map.lookup(op->getResult(0)),
                                       [&](OpOperand &use) { return par->isAncestor(use.getOwner()); });
  for (Operation *op : llvm::reverse(order))
    if (op->use_empty())
      op->erase();
}


struct OnlineFolds : public tessel::kir::impl::KIROnlineFoldsBase<OnlineFolds> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool remarks = remarksOn(module), permitted = onlinePermitted(module);
    dropIdentityBroadcasts(module);
    if (permitted)
      divideAfterContractions(module, remarks);
    SmallVector<std::pair<ParallelOp, ReduceOp>> maxima;
    module.walk([&](ReduceOp r) {
      if (auto par = dyn_cast<ParallelOp>(r->getParentOp()); par && r.getInputs().size() == 1 &&
                                                             r.getAxes().size() >= 1 && !r.getCombine().empty()) {
        auto *first = &r.getCombine().front().front();
        if (auto bin = dyn_cast<BinaryOp>(first); bin && bin.getKind() == BinaryKind::Max)
          maxima.push_back({par, r});
      }
    });
    for (auto [par, max] : maxima) {
      auto matcher = std::make_unique<Matcher>(par, max);
      if (!matcher->match()) {
        if (remarks)
          max.emitRemark() << "kir-online-folds: the maximum stays a two-pass reduction: " << matcher->c.why;
        continue;
      }
      Matcher &m = *matcher;
      // A row stored over its axis (softmax written out) is recomputed after the folds, a second
      // traversal; that pays where the row is a contraction (its tiles become tile products). A row
      // read from memory keeps its row path (pgpu-stage-rows, pgpu-online-normalize).
      if (!m.c.stores.empty() && !feedsContraction(m.c)) {
        if (remarks)
          max.emitRemark() << "kir-online-folds: the maximum stays a two-pass reduction: the row is stored over "
                              "the axis and is neither computed by nor reduced into a contraction (the row path "
                              "keeps it whole)";
        continue;
      }
      // A joined maximum folds like any other: online under the permission (its components rescaled
      // to the joined maximum after the fold), else the exact two-pass folds where a contraction pays.
      if (!permitted && !m.c.components.empty() && !feedsContraction(m.c)) {
        if (remarks)
          max.emitRemark() << "kir-online-folds: the maximum stays a two-pass reduction: the online form "
                              "needs numerics = relaxed_normalization with online_reduction (seed 002 §1), and "
                              "the exact two-pass folds need a row computed by or reduced into a contraction";
        continue;
      }
      std::string epilogue;
      if (!m.c.stores.empty())
        epilogue = "; " + std::to_string(m.c.stores.size()) +
                   " store(s) over the axis read the row with the summary, so the row is recomputed after "
                   "the folds (a second traversal of the axis, seed 002 §3.4)";
      // Past every refusal: tensors hoisted before the loop are recomputed in it, and the body matched
      // again with them as its own reads (sources of the folds).
      size_t replayed = m.c.hoisted.size();
      if (replayed) {
        replayHoisted(par, m.c.hoisted);
        matcher = std::make_unique<Matcher>(par, max);
        if (!matcher->match() || !matcher->c.hoisted.empty()) {
          // Not expected (the replayed reads are what the first match took them for); the body is
          // still correct (a replay of pure reads), only not folded.
          if (remarks)
            max.emitRemark() << "kir-online-folds: the maximum stays a two-pass reduction after recomputing "
                                "hoisted tensors in the loop: "
                             << matcher->c.why;
          continue;
        }
      }
      Matcher &r = *matcher;
      // Scalar uses of the results written before the last reduction follow it (Candidate::deferred).
      for (Operation *op : llvm::reverse(r.c.deferred))
        op->moveAfter(r.c.last);
      if (replayed)
        epilogue += "; " + std::to_string(replayed) +
                    " op(s) computing tensors over the axis before the loop are recomputed in its body (pure "
                    "reads of In views, seed 002 §3.4)";
      if (r.c.components.empty()) { // a maximum alone over a contraction's row: exact in any order
        rewriteTwoPass(r.c, indicesOf(r.c.domain));
        if (remarks)
          par.emitRemark() << "kir-online-folds: a maximum over one axis of a row computed by a contraction "
                              "became a region fold (the maximum alone, exact in any order, seed 002 §1)"
                           << epilogue;
        continue;
      }
      if (!permitted) { // the row feeds a contraction (refused above otherwise): exact two-pass folds
        rewriteTwoPass(r.c, indicesOf(r.c.domain));
        if (remarks)
          par.emitRemark() << "kir-online-folds: a maximum and " << r.c.components.size()
                           << " reduction(s) over one axis became two region folds (exact two-pass, source "
                              "numerics: the maximum, then the reductions of exp(x - max), seed 002 §1)"
                           << epilogue;
        continue;
      }
      rewrite(r.c, indicesOf(r.c.domain));
      if (remarks)
        par.emitRemark() << "kir-online-folds: a maximum and " << r.c.components.size()
                         << " reduction(s) over one axis became one region fold (online summary, seed 002 §1)"
                         << epilogue;
    }
    // Then the sums of a product's row without a maximum (a LayerNorm of a matrix product's row).
    foldRowSumChains(module, remarks);
  }
};
} // namespace
