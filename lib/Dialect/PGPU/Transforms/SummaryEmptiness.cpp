//===- SummaryEmptiness.cpp - a traversal's valid flag after its first tile ===//
//
// seed 002 §3.5, last paragraph (summary emptiness, after range narrowing).
// A realized fold is a chain of loops L1 .. Ln over contiguous intervals
// (Lk+1 starts at Lk's upper bound and takes Lk's results as its carries:
// pgpu-narrow-fold-ranges' all-true / mixed intervals after pgpu-realize-folds).
// A summary with an optional/valid component carries a flag f per lane whose
// update in every loop is
//
//   f' = f | t          (t: "this tile's summary is nonempty", per lane)
//
// and the combine selects on f (the carried summary is empty: take the tile's).
// When the traversal's first tile has t true on every lane, f is true on
// every lane after that tile, so every later tile runs with f = true: its
// selects on f are their true values and f need not be carried.
//
// Proof (no summarizer names, no kernel shapes): for each loop Lk, t is
// proven all-true on the loop's first iteration assuming L1 .. Lk-1 ran no
// iteration (so the tile starts at Lk's lower bound, which is then at most
// L1's lower bound) and Lk runs one (iv < Lk's upper bound). t is read by
// local typed value propagation: constants, splats, or/and/select of
// proven parts, an OR reduction along a 1-d fragment (its lane 0), and index
// comparisons decided by lower bounds of linear forms over atoms: loop
// induction variables (their bounds; one of a few constant iterations is
// enumerated where it multiplies), program coordinates (non-negative, inner
// axes below their extents), declared parameters (their candidate domains),
// iota lanes, min/max and selects (both sides, or the side a pgpu.if around
// the loop picks), non-negative products and quotients (ceil(x/y) <= x).
// Symbolic substitutions go first so that terms cancel (n - 1 - j with
// j <= n - 1); the budget is bounded and running out rejects.
//
// Rewrite (exact: NaN, identity, source order and empty input as before):
// the traversal's first tile runs once before the loops, as a copy of the
// body of the first loop that has an iteration, with the carries' initial
// values (its selects on f folded where f's initial value is a constant);
// that loop then starts one step later, and every loop runs with f = true
// (selects on f folded, f no longer carried). f's final value is the first
// tile's f | t, or the initial f when no loop has an iteration (T = 0).
// Rejected (the flag stays, remark at the traversal): a t not proven on the
// first tile of some loop (a row that may see no key there: a sliding window's
// band, a split segment that starts after some row's keys, a loaded flag), a
// loop that writes memory, a body that reads a value defined after the
// traversal starts, an intermediate flag read outside the traversal.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/RegionUtils.h"

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUSUMMARYEMPTINESS
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

namespace {

bool isIndexValued(Value v) { return elementTypeOf(v.getType()).isIndex(); }

/// sum(coefficient * atom) + c over index values (lane-wise for fragments; splats are transparent,
/// a broadcast is an atom: its lanes are another fragment's).
struct Lin {
  SmallVector<std::pair<Value, int64_t>> terms;
  int64_t c = 0;
  bool overflow = false;

  static int64_t mulChecked(int64_t a, int64_t b, bool &of) {
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r))
      of = true;
    return r;
  }
  static int64_t addChecked(int64_t a, int64_t b, bool &of) {
    int64_t r;
    if (__builtin_add_overflow(a, b, &r))
      of = true;
    return r;
  }
  int64_t coeff(Value v) const {
    for (auto &[a, k] : terms)
      if (a == v)
        return k;
    return 0;
  }
  void add(Value v, int64_t k) {
    if (!k)
      return;
    for (auto *it = terms.begin(); it != terms.end(); ++it)
      if (it->first == v) {
        it->second = addChecked(it->second, k, overflow);
        if (!it->second)
          terms.erase(it);
        return;
      }
    terms.push_back({v, k});
  }
  void addLin(const Lin &o, int64_t k) {
    for (auto &[a, ka] : o.terms)
      add(a, mulChecked(ka, k, overflow));
    c = addChecked(c, mulChecked(o.c, k, overflow), overflow);
    overflow |= o.overflow;
  }
};

std::optional<int64_t> constantIndex(Value v) {
  if (auto s = v.getDefiningOp<SplatOp>())
    v = s.getOperand();
  APInt c;
  if (isIndexValued(v) && matchPattern(v, m_ConstantInt(&c)))
    return c.getSExtValue();
  return std::nullopt;
}

Lin linear(Value v) {
  Lin l;
  if (auto c = constantIndex(v)) {
    l.c = *c;
    return l;
  }
  if (auto s = v.getDefiningOp<SplatOp>(); s && isIndexValued(s.getOperand()))
    return linear(s.getOperand());
  if (auto b = v.getDefiningOp<BinaryOp>(); b && isIndexValued(v)) {
    switch (b.getKind()) {
    case kir::BinaryKind::Add:
      l = linear(b.getLhs());
      l.addLin(linear(b.getRhs()), 1);
      return l;
    case kir::BinaryKind::Sub:
      l = linear(b.getLhs());
      l.addLin(linear(b.getRhs()), -1);
      return l;
    case kir::BinaryKind::Mul:
      if (auto k = constantIndex(b.getRhs())) {
        l.addLin(linear(b.getLhs()), *k);
        return l;
      }
      if (auto k = constantIndex(b.getLhs())) {
        l.addLin(linear(b.getRhs()), *k);
        return l;
      }
      break;
    default: break;
    }
  }
  l.add(v, 1);
  return l;
}

/// Lower bounds of linear forms, in the context of one loop's first iteration.
class Bounds {
public:
  Bounds(KernelOp kernel, ForOp loop, Value firstLower) : kernel(kernel), loop(loop), firstLower(firstLower) {}

  /// These bounds at lane 0 of the 1-d fragments of `t`'s extents (an OR reduction's positions):
  /// their iota lanes are their bases.
  Bounds atLaneZero(Type t) const {
    Bounds z = *this;
    z.laneZero = t;
    return z;
  }

  std::optional<int64_t> lower(const Lin &l) { return lo(l, 0); }
  std::optional<int64_t> upper(const Lin &l) {
    Lin n;
    n.addLin(l, -1);
    auto r = lo(n, 0);
    if (!r || *r == INT64_MIN)
      return std::nullopt;
    return -*r;
  }

private:
  KernelOp kernel;
  ForOp loop;       // iv < loop's upper bound; iv is the loop's first
  Value firstLower; // the traversal's first lower bound: iv <= it on this first iteration
  int64_t budget = 1 << 14;
  Type laneZero;    // when set: evaluating lane 0 of the 1-d fragments of this type's extents

  std::optional<std::pair<int64_t, int64_t>> paramDomain(Value v) {
    auto p = v.getDefiningOp<ParamOp>();
    ParamAttr decl = p && kernel ? kernel.getParam(p.getName()) : ParamAttr();
    if (!decl || decl.getCandidates().empty())
      return std::nullopt;
    auto [mn, mx] = std::minmax_element(decl.getCandidates().begin(), decl.getCandidates().end());
    return std::make_pair(*mn, *mx);
  }

  std::optional<int64_t> extentMax(Attribute e) {
    if (auto i = dyn_cast<IntegerAttr>(e))
      return i.getInt();
    ParamAttr decl = kernel ? kernel.getParam(cast<StringAttr>(e).getValue()) : ParamAttr();
    if (!decl || decl.getCandidates().empty())
      return std::nullopt;
    return *std::max_element(decl.getCandidates().begin(), decl.getCandidates().end());
  }

  /// l with `a * atom` replaced by `a * r`.
  static Lin substitute(const Lin &l, Value atom, int64_t a, const Lin &r) {
    Lin out = l;
    out.add(atom, -a);
    out.addLin(r, a);
    return out;
  }
  static Lin constant(int64_t c) {
    Lin l;
    l.c = c;
    return l;
  }

  /// The value of the scalar `cond` wherever the loop runs: a pgpu.if around the loop tests it.
  std::optional<bool> guardedBy(Value cond) {
    Operation *inner = loop;
    for (Operation *op = loop->getParentOp(); op; inner = op, op = op->getParentOp())
      if (auto i = dyn_cast<IfOp>(op); i && i.getCondition() == cond)
        return inner->getParentRegion() == &i.getThenRegion();
    return std::nullopt;
  }

  /// The values of `v` when it is the induction variable of a loop of at most 4 constant iterations.
  static SmallVector<int64_t> fewValues(Value v) {
    if (auto s = v.getDefiningOp<SplatOp>())
      v = s.getOperand();
    auto arg = dyn_cast<BlockArgument>(v);
    auto f = arg && arg.getArgNumber() == 0 ? dyn_cast<ForOp>(arg.getOwner()->getParentOp()) : ForOp();
    SmallVector<int64_t> out;
    if (!f)
      return out;
    std::optional<int64_t> lb = constantIndex(f.getLower()), ub = constantIndex(f.getUpper()),
                           st = constantIndex(f.getStep());
    if (!lb || !ub || !st)
      return out;
    int64_t first = *lb, end = *ub, step = *st;
    if (step < 1 || end - first > 4 * step)
      return out;
    for (int64_t i = first; i < end; i += step)
      out.push_back(i);
    return out;
  }

  /// Whether `lo` has a rule for `a * atom`.
  bool expands(Value atom, int64_t a) {
    if (auto arg = dyn_cast<BlockArgument>(atom)) {
      Operation *owner = arg.getOwner()->getParentOp();
      if (isa<ForOp>(owner))
        return arg.getArgNumber() == 0;
      return isa<ProgramSpaceOp>(owner) || (isa<ExecutionGroupOp>(owner) && (a > 0 || arg.getArgNumber() > 0));
    }
    Operation *def = atom.getDefiningOp();
    if (paramDomain(atom) || isa_and_nonnull<IotaOp, BroadcastOp, SelectOp>(def))
      return true;
    if (isa_and_nonnull<ExtentOp>(def))
      return a > 0;
    if (isa_and_nonnull<CeilDivOp>(def))
      return true;
    auto bin = dyn_cast_or_null<BinaryOp>(def);
    return bin && llvm::is_contained({kir::BinaryKind::Min, kir::BinaryKind::Max, kir::BinaryKind::Mul,
                                      kir::BinaryKind::Div},
                                     bin.getKind());
  }

  std::optional<int64_t> lo(const Lin &l, unsigned depth) {
    if (l.overflow || --budget < 0 || depth > 64)
      return std::nullopt;
    if (l.terms.empty())
      return l.c;
    // Loop fact: iv < upper, i.e. upper - iv >= 1.
    Value iv = loop.getBody().front().getArgument(0);
    std::optional<int64_t> byUpper; // iv <= upper - 1 substituted before anything else is expanded
    if (int64_t a = -l.coeff(iv); a > 0) {
      Lin d = linear(loop.getUpper());
      d.add(iv, -1);
      bool covered = !d.overflow;
      for (auto &[atom, k] : d.terms)
        covered &= l.coeff(atom) == a * k;
      if (!d.overflow) {
        Lin rest = l;
        rest.addLin(d, -a);
        if (auto r = lo(rest, depth + 1)) {
          bool of = false;
          int64_t sum = Lin::addChecked(*r, a, of);
          if (!of)
            byUpper = sum;
        }
      }
      // Covered: l = a * (upper - iv) + rest exactly. Otherwise the substitution still bounds l
      // from below (iv's coefficient is negative), beside what expanding other atoms first gives (a
      // mixed interval's tail mask bounds by the whole range, which the loop's upper bound is below).
      if (covered && byUpper)
        return byUpper;
    }
    if (byUpper) {
      std::optional<int64_t> other = loExpanded(l, depth);
      return other ? std::max(*other, *byUpper) : byUpper;
    }
    return loExpanded(l, depth);
  }

  std::optional<int64_t> loExpanded(const Lin &l, unsigned depth) {
    Value iv = loop.getBody().front().getArgument(0);
    // The first atom a rule expands, symbolic substitutions (block arguments, iota lanes, selects)
    // before min/max and before bounds that are constants, so that terms cancel first (this loop's
    // induction variable last); opaque atoms
    // wait: a later substitution may cancel them.
    auto rank = [&](Value atom, int64_t a) {
      if (atom == iv) // last: the loop fact (upper - iv >= 1) applies once min/max expose the upper bound
        return 4;
      Operation *def = atom.getDefiningOp();
      auto bin = dyn_cast_or_null<BinaryOp>(def);
      if (bin && bin.getKind() == kir::BinaryKind::Mul &&
          (!fewValues(bin.getLhs()).empty() || !fewValues(bin.getRhs()).empty()))
        return 0; // enumerated, the other factor symbolic
      if (!def || isa<IotaOp, SelectOp>(def) || (isa<CeilDivOp>(def) && a < 0))
        return 1;
      return bin && (bin.getKind() == kir::BinaryKind::Min || bin.getKind() == kir::BinaryKind::Max) ? 2 : 3;
    };
    auto pick = l.terms.end();
    for (auto *it = l.terms.begin(); it != l.terms.end(); ++it)
      if (expands(it->first, it->second) &&
          (pick == l.terms.end() || rank(it->first, it->second) < rank(pick->first, pick->second)))
        pick = it;
    if (pick == l.terms.end()) {
      return std::nullopt;
    }
    Value atom = pick->first;
    int64_t a = pick->second;
    auto replaced = [&](const Lin &r) { return lo(substitute(l, atom, a, r), depth + 1); };
    // Either bound suffices (the largest is kept), or both are needed (the smallest).
    auto either = [](std::optional<int64_t> x, std::optional<int64_t> y) -> std::optional<int64_t> {
      if (x && y)
        return std::max(*x, *y);
      return x ? x : y;
    };
    auto both = [](std::optional<int64_t> x, std::optional<int64_t> y) -> std::optional<int64_t> {
      if (x && y)
        return std::min(*x, *y);
      return std::nullopt;
    };
    if (auto arg = dyn_cast<BlockArgument>(atom)) {
      Operation *owner = arg.getOwner()->getParentOp();
      if (auto f = dyn_cast<ForOp>(owner); f && arg.getArgNumber() == 0) {
        if (f == loop) // this loop's first iteration, after loops that ran nothing
          return replaced(linear(a > 0 ? loop.getLower() : firstLower));
        if (a > 0)
          return replaced(linear(f.getLower()));
        Lin r = linear(f.getUpper());
        r.c = Lin::addChecked(r.c, -1, r.overflow);
        return replaced(r);
      }
      if (auto space = dyn_cast<ProgramSpaceOp>(owner)) { // a program coordinate is in [0, extent)
        if (a > 0)
          return replaced(constant(0));
        Lin r = linear(space.getExtents()[arg.getArgNumber()]);
        r.c = Lin::addChecked(r.c, -1, r.overflow);
        return replaced(r);
      }
      if (auto g = dyn_cast<ExecutionGroupOp>(owner)) {
        // Decoded program coordinates are non-negative; an inner axis is below its extent.
        if (a > 0)
          return replaced(constant(0));
        if (arg.getArgNumber() == 0)
          return std::nullopt;
        Lin r = linear(g.getExtents()[arg.getArgNumber()]);
        r.c = Lin::addChecked(r.c, -1, r.overflow);
        return replaced(r);
      }
      return std::nullopt;
    }
    Operation *def = atom.getDefiningOp();
    if (auto dom = paramDomain(atom))
      return replaced(constant(a > 0 ? dom->first : dom->second));
    if (auto iota = dyn_cast_or_null<IotaOp>(def)) {
      auto t = dyn_cast<FragmentType>(iota.getType());
      if (!t || t.getRank() != 1)
        return std::nullopt;
      Lin r = linear(iota.getBase());
      if (laneZero && t.getExtents() != cast<FragmentType>(laneZero).getExtents())
        return std::nullopt;
      if (a < 0 && !laneZero) {
        auto n = extentMax(t.getExtents()[0]);
        if (!n)
          return std::nullopt;
        r.c = Lin::addChecked(r.c, *n - 1, r.overflow);
      }
      return replaced(r);
    }
    if (auto br = dyn_cast_or_null<BroadcastOp>(def); br && !laneZero) {
      auto bound = a > 0 ? lo(linear(br.getOperand()), depth + 1) : upper(linear(br.getOperand()));
      return bound ? replaced(constant(*bound)) : std::nullopt;
    }
    if (auto sel = dyn_cast_or_null<SelectOp>(def)) {
      // A condition the loop is guarded by picks its side; otherwise either side may be taken.
      if (std::optional<bool> c = guardedBy(sel.getCondition()))
        return replaced(linear(*c ? sel.getTrueValue() : sel.getFalseValue()));
      return both(replaced(linear(sel.getTrueValue())), replaced(linear(sel.getFalseValue())));
    }
    if (isa_and_nonnull<ExtentOp>(def) && a > 0) // an extent is non-negative
      return replaced(constant(0));
    if (auto cd = dyn_cast_or_null<CeilDivOp>(def)) {
      // ceil(x / y) for x >= 0, y >= 1: between ceil(lo x / hi y) and ceil(hi x / lo y).
      auto lx = lo(linear(cd.getLhs()), depth + 1), ly = lo(linear(cd.getRhs()), depth + 1);
      if (!lx || !ly || *lx < 0 || *ly < 1)
        return std::nullopt;
      if (a > 0) {
        auto hy = upper(linear(cd.getRhs()));
        return replaced(constant(hy ? (*lx + *hy - 1) / *hy : std::min<int64_t>(*lx, 1)));
      }
      // ceil(x / y) <= ceil(hi x / lo y), and <= x itself (x >= 0, y >= 1): symbolic, so x may cancel.
      auto hx = upper(linear(cd.getLhs()));
      return either(hx ? replaced(constant((*hx + *ly - 1) / *ly)) : std::nullopt, replaced(linear(cd.getLhs())));
    }
    if (auto bin = dyn_cast_or_null<BinaryOp>(def)) {
      kir::BinaryKind k = bin.getKind();
      if (k == kir::BinaryKind::Min || k == kir::BinaryKind::Max) {
        std::optional<int64_t> x = replaced(linear(bin.getLhs()));
        std::optional<int64_t> y = replaced(linear(bin.getRhs()));
        // a * min(x, y) >= the smaller of a*x, a*y when a > 0; a * max when a < 0 likewise.
        return (k == kir::BinaryKind::Min) == (a > 0) ? both(x, y) : either(x, y);
      }
      if (k == kir::BinaryKind::Mul) {
        // A factor that is the induction variable of a loop of a few constant iterations: every
        // value it takes (the other factor stays symbolic, so terms may cancel).
        for (auto [x, y] : {std::pair(bin.getLhs(), bin.getRhs()), std::pair(bin.getRhs(), bin.getLhs())}) {
          auto values = fewValues(x);
          if (values.empty())
            continue;
          std::optional<int64_t> out;
          for (int64_t v : values) {
            Lin r;
            r.addLin(linear(y), v);
            auto b = replaced(r);
            if (!b)
              return std::nullopt;
            out = out ? std::min(*out, *b) : *b;
          }
          return out;
        }
      }
      if (k == kir::BinaryKind::Mul || k == kir::BinaryKind::Div) {
        auto lx = lo(linear(bin.getLhs()), depth + 1), ly = lo(linear(bin.getRhs()), depth + 1);
        if (!lx || !ly || *lx < 0 || *ly < (k == kir::BinaryKind::Div ? 1 : 0))
          return std::nullopt;
        if (k == kir::BinaryKind::Mul) {
          if (a > 0) {
            bool of = false;
            int64_t p = Lin::mulChecked(*lx, *ly, of);
            return of ? std::nullopt : replaced(constant(p));
          }
          auto hx = upper(linear(bin.getLhs())), hy = upper(linear(bin.getRhs()));
          bool of = false;
          int64_t p = hx && hy ? Lin::mulChecked(*hx, *hy, of) : 0;
          return hx && hy && !of ? replaced(constant(p)) : std::nullopt;
        }
        // Non-negative quotients: floor and truncation agree.
        if (a > 0) {
          auto hy = upper(linear(bin.getRhs()));
          return replaced(constant(hy ? *lx / *hy : 0));
        }
        auto hx = upper(linear(bin.getLhs()));
        return hx ? replaced(constant(*hx / *ly)) : std::nullopt;
      }
    }
    return std::nullopt;
  }
};

/// Whether every lane of the i1 value `v` is true on `bounds`' first iteration.
bool allTrue(Value v, Bounds &bounds, unsigned depth = 0) {
  if (depth > 32)
    return false;
  if (constantBool(v) == true)
    return true;
  Operation *def = v.getDefiningOp();
  if (auto s = dyn_cast_or_null<SplatOp>(def))
    return allTrue(s.getOperand(), bounds, depth + 1);
  if (auto br = dyn_cast_or_null<BroadcastOp>(def))
    return allTrue(br.getOperand(), bounds, depth + 1);
  if (auto b = dyn_cast_or_null<BinaryOp>(def)) {
    if (b.getKind() == kir::BinaryKind::Or)
      return allTrue(b.getLhs(), bounds, depth + 1) || allTrue(b.getRhs(), bounds, depth + 1);
    if (b.getKind() == kir::BinaryKind::And)
      return allTrue(b.getLhs(), bounds, depth + 1) && allTrue(b.getRhs(), bounds, depth + 1);
    return false;
  }
  if (auto s = dyn_cast_or_null<SelectOp>(def))
    return allTrue(s.getTrueValue(), bounds, depth + 1) &&
           (allTrue(s.getCondition(), bounds, depth + 1) || allTrue(s.getFalseValue(), bounds, depth + 1));
  if (auto r = dyn_cast_or_null<ReduceOp>(def)) {
    // An OR along the single axis of a 1-d fragment, from false, is true where its lane 0 is.
    auto in = r.getInputs().size() == 1 ? dyn_cast<FragmentType>(r.getInputs()[0].getType()) : FragmentType();
    BinaryOp c = in ? singleBinaryCombine(r.getCombine().front()) : BinaryOp();
    if (!c || c.getKind() != kir::BinaryKind::Or || in.getRank() != 1 || r.getAxes().size() != 1 ||
        constantBool(r.getIdentities()[0]) != false || isa<FragmentType>(r.getResult(0).getType()))
      return false;
    Bounds zero = bounds.atLaneZero(in);
    return allTrue(r.getInputs()[0], zero, depth + 1);
  }
  if (auto c = dyn_cast_or_null<CmpOp>(def); c && isIndexValued(c.getLhs())) {
    Lin d;
    int64_t need = 0;
    switch (c.getPredicate()) {
    case kir::CmpPredicate::LT: need = 1; [[fallthrough]];
    case kir::CmpPredicate::LE:
      d = linear(c.getRhs());
      d.addLin(linear(c.getLhs()), -1);
      break;
    case kir::CmpPredicate::GT: need = 1; [[fallthrough]];
    case kir::CmpPredicate::GE:
      d = linear(c.getLhs());
      d.addLin(linear(c.getRhs()), -1);
      break;
    default: return false;
    }
    auto lo = bounds.lower(d);
    return lo && *lo >= need;
  }
  return false;
}

/// Folds constant masks: select(c, a, b), and/or with a constant side.
void foldConstantMasks(Region &region) {
  bool changed = true;
  while (changed) {
    changed = false;
    region.walk([&](Operation *op) {
      if (auto s = dyn_cast<SelectOp>(op)) {
        if (auto c = constantBool(s.getCondition())) {
          s.getResult().replaceAllUsesWith(*c ? s.getTrueValue() : s.getFalseValue());
          s.erase();
          changed = true;
        }
        return;
      }
      auto b = dyn_cast<BinaryOp>(op);
      if (!b || (b.getKind() != kir::BinaryKind::Or && b.getKind() != kir::BinaryKind::And) ||
          !elementTypeOf(b.getType()).isInteger(1))
        return;
      bool isOr = b.getKind() == kir::BinaryKind::Or;
      for (auto [mine, other] : {std::pair(b.getLhs(), b.getRhs()), std::pair(b.getRhs(), b.getLhs())}) {
        std::optional<bool> c = constantBool(mine);
        if (!c)
          continue;
        // or(true, x) = true, or(false, x) = x; and(false, x) = false, and(true, x) = x.
        Value out = *c == isOr ? mine : other;
        if (out.getType() != b.getType())
          return;
        b.getResult().replaceAllUsesWith(out);
        b.erase();
        changed = true;
        return;
      }
    });
  }
}

void eraseDead(Region &region) {
  bool changed = true;
  while (changed) {
    changed = false;
    SmallVector<Operation *> dead;
    region.walk<WalkOrder::PostOrder>([&](Operation *op) {
      if (isOpTriviallyDead(op))
        dead.push_back(op);
    });
    for (Operation *op : llvm::reverse(dead))
      if (isOpTriviallyDead(op)) {
        op->erase();
        changed = true;
      }
  }
}

struct Traversal {
  SmallVector<ForOp> loops;
  unsigned flag = 0;
  SmallVector<Value> tiles; // t per loop
};

class SummaryEmptiness {
public:
  SummaryEmptiness(ModuleOp module) : module(module) {}

  void run() {
    SmallVector<ForOp> heads;
    module.walk([&](ForOp f) {
      if (!previous(f))
        heads.push_back(f);
    });
    for (ForOp head : heads) {
      Traversal t;
      for (ForOp f = head; f; f = next(f))
        t.loops.push_back(f);
      std::optional<unsigned> flag = findFlag(t);
      if (!flag)
        continue;
      t.flag = *flag;
      bool remarks = remarksEnabled(head);
      // Only where the module asks for it (kir.compile_options summary_emptiness; KIRAttrs.td says why).
      auto options =
          module->getAttrOfType<kir::CompileOptionsAttr>(kir::KIRDialect::getCompileOptionsAttrName());
      if (!options || !options.getSummaryEmptiness()) {
        if (remarks)
          emitRemark(head.getLoc()) << "pgpu-summary-emptiness: the valid flag (carry " << t.flag << ") of this "
                                    << t.loops.size()
                                    << "-loop traversal stays: not asked for (compile option summary_emptiness)";
        continue;
      }
      std::string why = check(t);
      if (!why.empty()) {
        if (remarks)
          emitRemark(head.getLoc()) << "pgpu-summary-emptiness: the valid flag (carry " << t.flag << ") of this "
                                    << t.loops.size() << "-loop traversal stays: " << why;
        continue;
      }
      unsigned selects = rewrite(t);
      if (remarks)
        emitRemark(head.getLoc()) << "pgpu-summary-emptiness: the valid flag (carry " << t.flag << ") of this "
                                  << t.loops.size()
                                  << "-loop traversal is true on every lane after its first tile (proven per loop): "
                                     "the first tile runs once before the loops, the flag is no longer carried and "
                                  << selects << " select(s) on it are folded";
    }
  }

private:
  ModuleOp module;

  static bool continues(ForOp prev, ForOp f) {
    return prev->getBlock() == f->getBlock() && prev.getUpper() == f.getLower() &&
           prev.getNumResults() == f.getInits().size() && prev.getNumResults() > 0 &&
           llvm::equal(prev.getResults(), f.getInits());
  }
  static ForOp previous(ForOp f) {
    if (f.getInits().empty())
      return {};
    auto p = f.getInits()[0].getDefiningOp<ForOp>();
    return p && continues(p, f) ? p : ForOp();
  }
  static ForOp next(ForOp f) {
    if (f.getNumResults() == 0)
      return {};
    for (Operation *user : f.getResult(0).getUsers())
      if (auto n = dyn_cast<ForOp>(user); n && continues(f, n))
        return n;
    return {};
  }

  /// The carry updated as f | t in every loop (the first such), recording each t.
  static std::optional<unsigned> findFlag(Traversal &t) {
    for (unsigned i = 0, e = t.loops.front().getNumResults(); i < e; ++i) {
      if (!elementTypeOf(t.loops.front().getResult(i).getType()).isInteger(1))
        continue;
      SmallVector<Value> tiles;
      for (ForOp f : t.loops) {
        Block &body = f.getBody().front();
        Value arg = body.getArgument(i + 1);
        auto upd = body.getTerminator()->getOperand(i).getDefiningOp<BinaryOp>();
        if (!upd || upd.getKind() != kir::BinaryKind::Or || (upd.getLhs() != arg && upd.getRhs() != arg))
          break;
        Value tile = upd.getLhs() == arg ? upd.getRhs() : upd.getLhs();
        if (tile == arg)
          break;
        tiles.push_back(tile);
      }
      if (tiles.size() == t.loops.size()) {
        t.tiles = tiles;
        return i;
      }
    }
    return std::nullopt;
  }

  std::string check(Traversal &t) {
    ForOp first = t.loops.front();
    DominanceInfo dom(first->getParentOp()); // fresh: earlier rewrites moved and replaced regions
    for (ForOp f : t.loops)
      if (writesMemory(f))
        return "a loop writes memory";
    for (Operation *op = first->getNextNode(); t.loops.size() > 1 && op != t.loops.back().getOperation();
         op = op->getNextNode())
      if (!isa<ForOp>(op) && writesMemory(op))
        return "an operation between its loops writes memory";
    for (unsigned k = 0; k + 1 < t.loops.size(); ++k)
      if (!t.loops[k].getResult(t.flag).hasOneUse())
        return "an intermediate flag is read outside the traversal";
    for (ForOp f : t.loops) {
      bool ok = dom.properlyDominates(f.getLower(), first) && dom.properlyDominates(f.getUpper(), first) &&
                dom.properlyDominates(f.getStep(), first);
      f.getBody().walk([&](Operation *op) {
        for (Value v : op->getOperands())
          if (!f.getBody().isAncestor(v.getParentRegion()) && !dom.properlyDominates(v, first))
            ok = false;
      });
      if (!ok)
        return "a loop reads a value defined after the traversal starts";
    }
    KernelOp kernel = first->getParentOfType<KernelOp>();
    for (auto [k, f] : llvm::enumerate(t.loops)) {
      Bounds bounds(kernel, f, first.getLower());
      if (!allTrue(t.tiles[k], bounds))
        return "the tile flag of loop " + std::to_string(k + 1) +
               " is not proven true on every lane of its first tile (a lane may stay empty there)";
    }
    return "";
  }

  unsigned rewrite(Traversal &t) {
    ForOp first = t.loops.front();
    Location loc = first.getLoc();
    unsigned n = t.loops.size(), flag = t.flag;
    SmallVector<Value> inits(first.getInits());
    SmallVector<Type> types(first.getResultTypes());
    OpBuilder b(first);
    for (unsigned k = 0; k < n; ++k)
      types.push_back(b.getIndexType());
    SmallVector<Value> lowers;
    for (ForOp f : t.loops)
      lowers.push_back(f.getLower());

    // The first tile: in the first loop that has an iteration, from the initial carries.
    SmallVector<Region *> peeled;
    std::function<SmallVector<Value>(unsigned)> peel = [&](unsigned k) -> SmallVector<Value> {
      if (k == n) {
        SmallVector<Value> out(inits);
        llvm::append_range(out, lowers);
        return out;
      }
      ForOp f = t.loops[k];
      Value any = CmpOp::create(b, loc, kir::CmpPredicate::LT, f.getLower(), f.getUpper());
      auto choice = IfOp::create(b, loc, types, any);
      OpBuilder::InsertionGuard guard(b);
      b.createBlock(&choice.getThenRegion());
      IRMapping map;
      Block &body = f.getBody().front();
      map.map(body.getArgument(0), f.getLower());
      for (auto [arg, init] : llvm::zip(body.getArguments().drop_front(), inits))
        map.map(arg, init);
      for (Operation &op : body.without_terminator())
        b.clone(op, map);
      SmallVector<Value> out;
      for (Value y : body.getTerminator()->getOperands())
        out.push_back(map.lookupOrDefault(y));
      for (unsigned j = 0; j < n; ++j)
        out.push_back(j == k ? Value(BinaryOp::create(b, loc, kir::BinaryKind::Add, f.getLower(), f.getStep(),
                                                      false, false))
                             : lowers[j]);
      YieldOp::create(b, loc, out);
      peeled.push_back(&choice.getThenRegion());
      b.createBlock(&choice.getElseRegion());
      YieldOp::create(b, loc, peel(k + 1));
      return SmallVector<Value>(choice.getResults());
    };
    SmallVector<Value> firstTile = peel(0);

    // The loops, each one step later where it ran the first tile, with f = true.
    unsigned selects = 0;
    SmallVector<Value> carries;
    for (unsigned j = 0; j < inits.size(); ++j)
      if (j != flag)
        carries.push_back(firstTile[j]);
    SmallVector<ForOp> rebuilt;
    for (unsigned k = 0; k < n; ++k) {
      ForOp old = t.loops[k];
      b.setInsertionPoint(old);
      auto loop = ForOp::create(b, old.getLoc(), TypeRange(ValueRange(carries)), firstTile[inits.size() + k],
                                old.getUpper(), old.getStep(), carries);
      loop.getBody().takeBody(old.getBody());
      Block &body = loop.getBody().front();
      Value f = body.getArgument(flag + 1);
      for (Operation *user : f.getUsers())
        if (auto s = dyn_cast<SelectOp>(user); s && s.getCondition() == f)
          ++selects;
      b.setInsertionPointToStart(&body);
      Value yes = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
      if (isa<FragmentType>(f.getType()))
        yes = SplatOp::create(b, loc, f.getType(), yes);
      f.replaceAllUsesWith(yes);
      body.eraseArgument(flag + 1);
      body.getTerminator()->eraseOperand(flag);
      carries.assign(loop.getResults().begin(), loop.getResults().end());
      rebuilt.push_back(loop);
    }
    ForOp last = t.loops.back();
    for (unsigned j = 0, r = 0; j < inits.size(); ++j)
      last.getResult(j).replaceAllUsesWith(j == flag ? firstTile[flag] : rebuilt.back().getResult(r++));
    for (ForOp old : llvm::reverse(t.loops))
      old.erase();
    for (Region *r : peeled) {
      foldConstantMasks(*r);
      eraseDead(*r);
    }
    for (ForOp loop : rebuilt) {
      foldConstantMasks(loop.getBody());
      eraseDead(loop.getBody());
    }
    return selects;
  }
};

struct SummaryEmptinessPass : public tessel::pgpu::impl::PGPUSummaryEmptinessBase<SummaryEmptinessPass> {
  void runOnOperation() override {
    SummaryEmptiness(getOperation()).run();
  }
};
} // namespace
