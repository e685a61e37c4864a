//===- NarrowFoldRanges.cpp - all-true / mixed / all-false fold tiles ------===//
//
// seed 002 §3.5 (predicate range narrowing) and seed 000 §8 (effective source
// ranges) for a blocked pgpu.region_fold. Its summarizer runs on source tiles
// [b, min(b + S, hi)) with positions pos = iota(b) : [S]. A lane predicate
//
//   cmp(K, Q)   K = broadcast(pos + c)  (the tile coordinate, increasing in b)
//               Q = broadcast(capture)  (a value of the program's lanes)
//
// is, over a tile, all true or all false exactly when the tile's coordinate
// range [b + c, b + S - 1 + c] lies on one side of the lanes' range
// [Qmin, Qmax], which is computed from the capture's def-use outside the fold
// (iota bases and extents, splats of scalars, +/-, and * or floor / by one
// value of every lane: monotone in the lane for that fixed value, so the range
// is the images of the ends, the smaller first; chunked attention's chunk
// start (q // C) * C). An equality of floor quotients by one value C of every
// lane, K // C == Q // C, is the band [m*C + min(C+1, 0), m*C + max(C-1, 0)]
// of K with m = Q // C: two predicates, >= and <=, naming one comparison (the
// reference's chunk test kpos // C == i // C). A blocked reduction loop
// (pgpu-form-blocking's acc = acc op reduce(block), see foldOfReduction) is
// read as the region fold it is, its reduces' identities the combine's for the
// all-false proof and pos < upper its tail mask; it becomes folds only where a
// coordinate predicate narrows it (a masked row sum). A predicate not in that
// form is solved for the tile coordinate: both sides are read as sums of
// terms with coefficients +1/-1 (through broadcasts, splats, index + and -,
// and value-preserving casts), exactly one term the positions pos with
// coefficient s = +1 or -1, every other term a lane value with a range as Q
// has. L pred R is s*pos + rest pred 0, so pos pred Q' (pred mirrored when
// s = -1) with Q' = -s*rest; the sliding window's q - k < w is k > q - w.
// Arithmetic is exact in index (the assumption the boundaries below make too:
// index is 32-bit in every generated kernel, Triton's tl.int32 and PTX's
// offsets, and the launches bound spans and index scalars below 2^31). So a
// cast of a signless i8/i16/i32 to index (sign extension) and of index to
// i32 (the identity in the kernels) keep values; + and - on i32 or other
// integers may wrap (k + w with w = INT32_MAX as "no window") and are not
// terms: such a predicate, one naming the positions twice or times anything
// but +/-1, or one reading a value computed in the summarizer (loaded data)
// is not narrowed. Both are monotone in b, so
// each predicate splits the tiles into a true prefix and a false suffix (<, <=)
// or a false prefix and a true suffix (>, >=); the tail mask pos < e is true
// on every full tile. The pass then folds, in source order:
//
//   [lo, F0)   skipped: some predicate is false on every lane, and
//              substituting false proves the summary is the identity
//              (local typed value propagation: selects, builtin reduction
//              identities, zero contractions, constant folding, also of
//              float comparisons, + and -, and exp(-inf) = 0 / exp(0) = 1,
//              which a masked slice's where(ok, max, 0) and exp(s - m)
//              need; every component must match, else the interval stays);
//   [F0, T0)   mixed: the original summarizer;
//   [T0, T1)   all true: a copy whose predicates and tail mask are true,
//              folded out of the ands, selects and idempotent reductions
//              they fed;
//   [T1, F1)   mixed;
//   [F1, hi)   skipped, as above;
//
// with every boundary aligned to the tiles and clamped, so the intervals
// partition [lo, hi).
//
// A union of predicates of one direction, p1 | p2 | ... (ors of cmps,
// through broadcasts: a prefix-LM's k < prefix | k <= q, keys before a runtime
// prefix visible to all, then causal), is itself monotone in b: for prefix-true
// parts (<, <=) a tile is all true where any part is (b below the largest of
// their true bounds) and all false where every part is (b at or past the
// largest of their false bounds); for suffix-true parts (>, >=) the smallest
// bounds. The union is then one predicate: its or is replaced by true in the
// all-true interval, and its all-false interval is skipped when substituting
// false for the or proves the identity. Parts of opposite directions (k < a |
// k > b is not monotone), a part that is the tail mask, or one whose
// comparison is used outside the union leave the parts as separate predicates,
// narrowed as above on their own (the all-true interval of each is a subset of
// the union's: correct, less narrow).
//
// Any other and/or tree of ranged comparisons with an or in it (streaming
// attention's k <= q & (k < sink | k + w > q), or k < a | k > q) is a union of
// intervals: in disjunctive normal form (ands spread over ors, at most
// kMaxBranches branches) each branch is an intersection of comparisons, true
// only on tiles [F0j, F1j) and all true on [T0j, T1j) (the bounds above,
// intersected). The branches are sorted by F0j (a branch with no suffix-true
// comparison starts at lo and goes first; the others by compare-exchanges of
// selects, since which comes first may be a run-time fact) and visited in that
// order, each on [F0j, F1j) past the ranges before it as mixed, all true
// (the root replaced by true), mixed; a tile in no range is false in every
// branch, so substituting false for the root must prove the identity (seed 002
// §3.5: a union's all-false tiles are not traversed; seed 000 §8: mixed tiles
// keep their validity). Tiles where one branch is mixed and another all true
// stay mixed: correct, less narrow. A leaf that is no comparison (an i1
// read from memory: tree attention's tree mask) anded with comparisons in a
// branch leaves that branch mixed on its whole range, still bounded by them
// (k < P | (k < P + N & tree[k - P]) visits no tile past P + N). Where the
// whole tree is not such a union (a leaf over loaded data alone in a branch
// or in every branch under the outermost and, a comparison over loaded data,
// too many branches), an operand of its outermost ands may be: false for it
// makes the and false, and the other operands stay in every interval's
// summarizer.
// Each interval is its own pgpu.region_fold, the first
// from the identity and each later one from the summary of those before it
// (identity operand = initial summary: combine(combine(r, s1), s2) =
// combine(r, combine(s1, s2)) by the combine's associativity, the region
// fold's contract), so only one summary is live at a time. Nothing here knows the summarizer's meaning:
// it reads coordinates and identities only.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "FoldConstants.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/RegionUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <algorithm>
#include <functional>

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUNARROWFOLDRANGES
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

namespace {

/// A tile coordinate: pos + offset (offset a scalar from outside, or none).
struct TileCoord {
  Value offset; // index scalar valid outside the fold; null for 0
};

/// One lane predicate of a summarizer: a comparison, or a union (or) of comparisons of one direction.
struct Predicate {
  CmpOp cmp;                 // the comparison; null for a union
  Operation *unite = nullptr; // the union's outermost or; null for a comparison
  std::vector<struct Predicate> parts; // a union's comparisons (one direction)
  // A union of intervals (unite its and/or root): each branch an intersection of comparisons, their or the
  // predicate (the and/or tree in disjunctive normal form).
  std::vector<std::vector<struct Predicate>> branches;
  /// Per branch: it also ands a leaf that is no ranged comparison (loaded data, the tree mask of
  /// tree attention): true only within its comparisons' range, never known all true there.
  std::vector<bool> partial;
  bool tail = false;         // pos < e: true on full tiles
  kir::CmpPredicate pred{};  // K pred Q
  TileCoord k;
  Value qmin, qmax;          // scalars before the fold
  bool solved = false;       // read as K pred Q' by solving a linear predicate for K
  int band = 0;              // an equality of floor quotients: 1 its lower bound (>=), 2 its upper (<=)
};

/// One term of a linear form: sign * v.
struct Term {
  Value v;
  int sign;
};

class FoldNarrower {
public:
  FoldNarrower(RegionFoldOp fold) : fold(fold), b(fold) {}
  /// Finds the predicates; false when there is nothing to narrow.
  bool analyze();
  /// Whether a predicate other than the tail mask was found.
  bool hasRangedPredicate() const {
    return llvm::any_of(preds, [](const Predicate &p) { return !p.tail; });
  }
  void rewrite();
  /// Whether some tiles would be skipped (a predicate, false, proves the summary the identity), by a
  /// predicate other than a view's tail (pos against a launch-level scalar: a split K loop's chunk past
  /// K, which skips nothing a launch has).
  bool skips();
  /// For a fold made from a blocked reduction loop (foldOfReduction): the combine's identities (the fold's
  /// identity operands are the loop's initial carries), and pos < upper is its tail mask.
  SmallVector<Value> neutrals;
  bool upperIsTail = false;
  std::string adopted;
  std::string refused; // why the first predicate over the positions was not solved
  /// Whether the summarizer has lanes over the fold's tiles (an iota from the tile start).
  bool hasPositions() const { return !positions.empty(); }

private:
  Value bin(kir::BinaryKind kind, Value x, Value y) {
    return BinaryOp::create(b, fold.getLoc(), kind, x, y, false, false);
  }
  Value cst(int64_t v) { return arith::ConstantIndexOp::create(b, fold.getLoc(), v); }
  /// The value outside the fold that a summarize value stands for (captures).
  Value outside(Value v) {
    auto arg = dyn_cast<BlockArgument>(v);
    if (!arg || arg.getOwner() != &fold.getSummarize().front() || arg.getArgNumber() < 2)
      return {};
    return fold.getCaptures()[arg.getArgNumber() - 2];
  }
  std::optional<TileCoord> tileCoord(Value v);
  bool laneRange(Value v, Value &lo, Value &hi);
  bool reducedRange(Value v, Value &lo, Value &hi);
  bool solve(CmpOp cmp, Predicate &p);
  std::optional<Predicate> predicateOf(CmpOp cmp);
  bool bandOf(CmpOp cmp, SmallVectorImpl<Predicate> &out);
  bool rangedOf(CmpOp cmp, SmallVectorImpl<Predicate> &out);
  std::optional<Predicate> unionOf(BinaryOp orOp, DenseSet<Operation *> &consumed);
  std::optional<Predicate> intervalsOf(BinaryOp root, DenseSet<Operation *> &consumed);
  bool readsPositions(Value v);
  bool provesIdentity(Value truth);

  RegionFoldOp fold;
  OpBuilder b;
  SmallVector<Predicate> preds;
  SmallVector<IotaOp> positions;
};

Value stripBroadcast(Value v) {
  while (true) {
    if (auto br = v.getDefiningOp<BroadcastOp>())
      v = br.getOperand();
    else
      return v;
  }
}

static Value uniformScalar(Value v, function_ref<Value(Value)> outside);

/// The extent of a 1-d fragment's only axis as an index value at `b`.
Value extentValue(OpBuilder &b, Location loc, FragmentType type) {
  Attribute e = type.getExtents()[0];
  if (auto n = dyn_cast<IntegerAttr>(e))
    return arith::ConstantIndexOp::create(b, loc, n.getInt());
  return ParamOp::create(b, loc, b.getIndexType(), cast<StringAttr>(e));
}

/// A signless integer of 8, 16 or 32 bits: sign-extended exactly to index.
bool isNarrowInteger(Type t) {
  auto i = dyn_cast<IntegerType>(t);
  return i && i.isSignless() && i.getWidth() >= 8 && i.getWidth() <= 32;
}

/// Whether `cast` keeps every value: a narrow integer widened to index (sign extension), or index to
/// i32 (the identity where index is 32-bit: every generated kernel; see the header for the assumption).
bool preservesValue(CastOp cast) {
  Type from = elementTypeOf(cast.getOperand().getType()), to = elementTypeOf(cast.getType());
  if (to.isIndex())
    return isNarrowInteger(from);
  auto i = dyn_cast<IntegerType>(to);
  return from.isIndex() && i && i.isSignless() && i.getWidth() == 32;
}

/// Appends the terms of `sign * v`: through broadcasts, splats, index + and -, and value-preserving casts;
/// anything else is one term. Integer + and - may wrap, so they are terms (laneRange refuses them).
void linearTerms(Value v, int sign, SmallVectorImpl<Term> &terms) {
  while (true) {
    Operation *def = v.getDefiningOp();
    if (isa_and_nonnull<BroadcastOp, SplatOp>(def))
      v = def->getOperand(0);
    else if (auto cast = dyn_cast_or_null<CastOp>(def); cast && preservesValue(cast))
      v = cast.getOperand();
    else
      break;
  }
  auto op = v.getDefiningOp<BinaryOp>();
  bool exact = op && elementTypeOf(op.getType()).isIndex();
  if (exact && op.getKind() == kir::BinaryKind::Add) {
    linearTerms(op.getLhs(), sign, terms);
    linearTerms(op.getRhs(), sign, terms);
  } else if (exact && op.getKind() == kir::BinaryKind::Sub) {
    linearTerms(op.getLhs(), sign, terms);
    linearTerms(op.getRhs(), -sign, terms);
  } else {
    terms.push_back(Term{v, sign});
  }
}

std::optional<TileCoord> FoldNarrower::tileCoord(Value v) {
  v = stripBroadcast(v);
  if (auto iota = v.getDefiningOp<IotaOp>())
    return llvm::is_contained(positions, iota) ? std::optional<TileCoord>(TileCoord{}) : std::nullopt;
  if (auto add = v.getDefiningOp<BinaryOp>(); add && add.getKind() == kir::BinaryKind::Add) {
    for (auto [x, y] : {std::pair(add.getLhs(), add.getRhs()), std::pair(add.getRhs(), add.getLhs())}) {
      std::optional<TileCoord> base = tileCoord(x);
      auto splat = y.getDefiningOp<SplatOp>();
      if (!base || !splat)
        continue;
      Value c = splat.getOperand();
      if (Value o = outside(c))
        c = o;
      else if (!matchPattern(c, m_Constant()) && fold.getSummarize().isAncestor(c.getParentRegion()))
        continue;
      b.setInsertionPoint(fold);
      return TileCoord{base->offset ? bin(kir::BinaryKind::Add, base->offset, c) : c};
    }
  }
  return std::nullopt;
}

/// [lo, hi] of every lane of `v`, a value outside the fold (or a capture).
bool FoldNarrower::laneRange(Value v, Value &lo, Value &hi) {
  if (Value o = outside(v))
    v = o;
  b.setInsertionPoint(fold);
  bool inside = fold.getSummarize().isAncestor(v.getParentRegion());
  // A constant computed inside the summarizer is rematerialized before the fold.
  if (Operation *def = v.getDefiningOp(); inside && def && v.getType().isIndex() && matchPattern(v, m_Constant())) {
    lo = hi = b.clone(*def)->getResult(0);
    return true;
  }
  if (v.getType().isIndex()) {
    if (inside)
      return false;
    lo = hi = v;
    return true;
  }
  // A narrow integer scalar (a kernel scalar, a constant) is its value as index.
  if (isNarrowInteger(v.getType())) {
    APInt c;
    if (inside && matchPattern(v, m_ConstantInt(&c)))
      lo = hi = cst(c.getSExtValue());
    else if (!inside)
      lo = hi = CastOp::create(b, fold.getLoc(), b.getIndexType(), v);
    else
      return false;
    return true;
  }
  if (auto cast = v.getDefiningOp<CastOp>(); cast && preservesValue(cast))
    return laneRange(cast.getOperand(), lo, hi);
  if (auto br = v.getDefiningOp<BroadcastOp>())
    return laneRange(br.getOperand(), lo, hi);
  if (auto splat = v.getDefiningOp<SplatOp>())
    return laneRange(splat.getOperand(), lo, hi);
  if (auto iota = v.getDefiningOp<IotaOp>()) {
    if (inside) // inside, an iota is a tile's positions, not the lanes
      return false;
    Value n = extentValue(b, fold.getLoc(), cast<FragmentType>(iota.getType()));
    lo = iota.getBase();
    hi = bin(kir::BinaryKind::Add, lo, bin(kir::BinaryKind::Sub, n, cst(1)));
    return true;
  }
  if (auto op = v.getDefiningOp<BinaryOp>(); op && elementTypeOf(op.getType()).isIndex()) {
    Value l0, l1, r0, r1;
    if (!laneRange(op.getLhs(), l0, l1) || !laneRange(op.getRhs(), r0, r1))
      return false;
    b.setInsertionPoint(fold);
    switch (op.getKind()) {
    case kir::BinaryKind::Add:
      lo = bin(kir::BinaryKind::Add, l0, r0), hi = bin(kir::BinaryKind::Add, l1, r1);
      return true;
    case kir::BinaryKind::Sub:
      lo = bin(kir::BinaryKind::Sub, l0, r1), hi = bin(kir::BinaryKind::Sub, l1, r0);
      return true;
    case kir::BinaryKind::Mul:
    case kir::BinaryKind::Div: {
      // A lane range times or (floor-)divided by one value c for every lane: x * c and floor(x / c) are
      // monotone in x for a fixed c (increasing for c > 0, decreasing for c < 0, constant for c = 0), so
      // they range between the images of the ends, whichever is smaller (a chunk's first key
      // (q // C) * C over the lanes [q0, q1]: [(q0 // C) * C, (q1 // C) * C]). Both ends are values
      // the program's own lanes compute (exact index arithmetic, as for + and -; c = 0 divides by zero
      // in the lanes too). A product of two lane ranges is not narrowed.
      Value c = r0 == r1 ? r0 : Value();
      bool left = !c && l0 == l1 && op.getKind() == kir::BinaryKind::Mul;
      if (left)
        c = l0, l0 = r0, l1 = r1;
      if (!c)
        return false;
      Value x = bin(op.getKind(), l0, c), y = bin(op.getKind(), l1, c);
      lo = bin(kir::BinaryKind::Min, x, y), hi = bin(kir::BinaryKind::Max, x, y);
      return true;
    }
    default:
      break;
    }
  }
  return reducedRange(v, lo, hi);
}

/// The range of a 1-d lane fragment of integers computed before the fold that the def-use above does not
/// bound (a lane's bound loaded or searched from data: a packed token's sequence start), reduced over the
/// lanes at run time: its minimum and maximum, before the fold (every lane's value lies between them).
bool FoldNarrower::reducedRange(Value v, Value &lo, Value &hi) {
  auto type = dyn_cast<FragmentType>(v.getType());
  if (!type || type.getExtents().size() != 1 || fold.getSummarize().isAncestor(v.getParentRegion()))
    return false;
  Type element = type.getElementType();
  if (!element.isIndex() && !isNarrowInteger(element))
    return false;
  if (auto def = v.getDefiningOp(); def && def->getBlock() == fold->getBlock() && fold->isBeforeInBlock(def))
    return false;
  b.setInsertionPoint(fold);
  Location l = fold.getLoc();
  auto extreme = [&](kir::BinaryKind kind) -> Value {
    // The identity: the largest (min) or smallest (max) value of the element type; never reached with a
    // lane, which every fragment has.
    unsigned width = element.isIndex() ? 32 : element.getIntOrFloatBitWidth();
    APInt edge = kind == kir::BinaryKind::Min ? APInt::getSignedMaxValue(width) : APInt::getSignedMinValue(width);
    Value id = element.isIndex() ? Value(arith::ConstantIndexOp::create(b, l, edge.getSExtValue()))
                                 : Value(arith::ConstantIntOp::create(b, l, element, edge.getSExtValue()));
    auto red = ReduceOp::create(b, l, TypeRange{element}, ValueRange{v}, b.getDenseI64ArrayAttr({0}), ValueRange{id});
    {
      OpBuilder::InsertionGuard guard(b);
      Block *block = b.createBlock(&red.getCombine());
      Value x = block->addArgument(element, l), y = block->addArgument(element, l);
      YieldOp::create(b, l, ValueRange{BinaryOp::create(b, l, kind, x, y, false, false)});
    }
    Value r = red.getResult(0);
    return element.isIndex() ? r : Value(CastOp::create(b, l, b.getIndexType(), r));
  };
  lo = extreme(kir::BinaryKind::Min);
  hi = extreme(kir::BinaryKind::Max);
  return true;
}

/// Whether `v` is computed in the summarizer from the tile positions.
bool FoldNarrower::readsPositions(Value v) {
  SmallVector<Value> work{v};
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value x = work.pop_back_val();
    Operation *def = x.getDefiningOp();
    if (!seen.insert(x).second || !def || !fold.getSummarize().isAncestor(def->getParentRegion()))
      continue;
    if (auto iota = dyn_cast<IotaOp>(def); iota && llvm::is_contained(positions, iota))
      return true;
    llvm::append_range(work, def->getOperands());
  }
  return false;
}

/// `cmp` solved for the tile coordinate: K pred Q' with [Qmin, Qmax] the range of Q' (see the header).
bool FoldNarrower::solve(CmpOp cmp, Predicate &p) {
  Type element = elementTypeOf(cmp.getLhs().getType());
  std::optional<kir::CmpPredicate> pred = orderFrom(cmp.getPredicate(), false);
  if (!pred || !(element.isIndex() || isNarrowInteger(element)))
    return false;
  SmallVector<Term> terms, rest;
  linearTerms(cmp.getLhs(), 1, terms);
  linearTerms(cmp.getRhs(), -1, terms);
  auto refuse = [&](StringRef why) {
    if (refused.empty())
      refused = why.str();
    return false;
  };
  int sign = 0; // of the positions in L - R
  for (Term t : terms) {
    auto iota = t.v.getDefiningOp<IotaOp>();
    if (!iota || !llvm::is_contained(positions, iota)) {
      rest.push_back(t);
      continue;
    }
    if (sign)
      return refuse("the tile positions appear twice in one predicate");
    sign = t.sign;
  }
  if (!sign) {
    if (llvm::any_of(rest, [&](Term t) { return readsPositions(t.v); }))
      return refuse("the tile positions appear under arithmetic other than index + and - (a factor, integer "
                    "arithmetic that may wrap, or a cast that may change values)");
    return false; // not a predicate over the positions
  }
  // L - R = sign * K + rest, so L pred R is K pred -rest (sign +1) or -rest pred K, mirrored (sign -1).
  p.pred = sign > 0 ? *pred : *orderFrom(*pred, true);
  Value lo, hi;
  for (Term t : rest) {
    Value l, h;
    if (!laneRange(t.v, l, h))
      return refuse(readsPositions(t.v) ? "the tile positions appear under arithmetic other than index + and - (a "
                                          "factor, integer arithmetic that may wrap, or a cast that may change values)"
                                        : "a term beside the tile positions has no lane range (computed in the "
                                          "summarizer, e.g. from loaded data, integer arithmetic that may wrap, or a "
                                          "product of two lane values)");
    b.setInsertionPoint(fold);
    // Q' gains -sign * t.sign * t.v: [l, h] added, or [-h, -l].
    bool plus = -sign * t.sign > 0;
    kir::BinaryKind kind = plus ? kir::BinaryKind::Add : kir::BinaryKind::Sub;
    if (!lo && plus) {
      lo = l, hi = h;
      continue;
    }
    Value zero = lo ? Value() : cst(0);
    lo = bin(kind, lo ? lo : zero, plus ? l : h);
    hi = bin(kind, hi ? hi : zero, plus ? h : l);
  }
  p.qmin = lo ? lo : cst(0);
  p.qmax = hi ? hi : p.qmin;
  p.solved = true;
  return true;
}

/// `cmp` as a lane predicate of the summarizer: the tail mask, K pred Q (or Q pred K, mirrored), or
/// solved for the positions; none when it is not over the tile positions.
std::optional<Predicate> FoldNarrower::predicateOf(CmpOp cmp) {
  if (!isa<FragmentType>(cmp.getType()))
    return std::nullopt;
  Value end = fold.getSummarize().front().getArgument(1);
  // The tail mask: pos < splat(e).
  if (cmp.getPredicate() == kir::CmpPredicate::LT) {
    auto splat = stripBroadcast(cmp.getRhs()).getDefiningOp<SplatOp>();
    std::optional<TileCoord> k = tileCoord(cmp.getLhs());
    // A loop read as a fold compares with its upper bound, splat inside or captured (upperIsTail).
    bool upper = upperIsTail && uniformScalar(cmp.getRhs(), [&](Value v) { return outside(v); }) == fold.getUpper();
    if (k && !k->offset && ((splat && splat.getOperand() == end) || upper)) {
      Predicate p{cmp};
      p.tail = true;
      return p;
    }
  }
  // K pred Q, or Q pred K (mirrored).
  for (bool flipped : {false, true}) {
    Value kv = flipped ? cmp.getRhs() : cmp.getLhs(), qv = flipped ? cmp.getLhs() : cmp.getRhs();
    std::optional<kir::CmpPredicate> pred = orderFrom(cmp.getPredicate(), flipped);
    if (!pred)
      return std::nullopt;
    std::optional<TileCoord> k = tileCoord(kv);
    Predicate p{cmp};
    p.pred = *pred;
    p.k = k ? *k : TileCoord{};
    if (k && laneRange(stripBroadcast(qv), p.qmin, p.qmax))
      return p;
  }
  // Else the predicate solved for the positions (q - k < w: k > q - w).
  Predicate p{cmp};
  if (solve(cmp, p))
    return p;
  return std::nullopt;
}

/// The scalar every lane of `v` holds (through broadcasts, splats and captures); null when unknown.
static Value uniformScalar(Value v, function_ref<Value(Value)> outside) {
  while (true) {
    if (isa_and_nonnull<BroadcastOp, SplatOp>(v.getDefiningOp()))
      v = v.getDefiningOp()->getOperand(0);
    else if (Value o = outside(v))
      v = o;
    else
      return isa<FragmentType>(v.getType()) ? Value() : v;
  }
}

/// `cmp`, an equality of floor quotients by one value C of every lane, `K // C == Q // C` (either side
/// first; through broadcasts), as the band of K it is: with m = Q // C, floor(K / C) = m exactly when
/// K is in [m*C + min(C+1, 0), m*C + max(C-1, 0)] (C > 0: [m*C, m*C + C - 1]; C < 0: [m*C + C + 1, m*C];
/// floor division, the kir rule). So two predicates, K >= lower and K <= upper, whose lane ranges are
/// those of m*C (the images of m's ends, the smaller first) plus the constants; the chunk test of chunked
/// attention, kpos // C == i // C. The comparison itself stays (mixed tiles keep it); both parts name it.
bool FoldNarrower::bandOf(CmpOp cmp, SmallVectorImpl<Predicate> &out) {
  if (cmp.getPredicate() != kir::CmpPredicate::EQ || !isa<FragmentType>(cmp.getType()) ||
      !elementTypeOf(cmp.getLhs().getType()).isIndex())
    return false;
  auto quotient = [&](Value v) {
    while (true) { // through broadcasts, splats (a quotient of a scalar) and captures
      if (isa_and_nonnull<BroadcastOp, SplatOp>(v.getDefiningOp()))
        v = v.getDefiningOp()->getOperand(0);
      else if (Value o = outside(v))
        v = o;
      else
        break;
    }
    auto d = v.getDefiningOp<BinaryOp>();
    return d && d.getKind() == kir::BinaryKind::Div ? d : BinaryOp();
  };
  BinaryOp l = quotient(cmp.getLhs()), r = quotient(cmp.getRhs());
  if (!l || !r)
    return false;
  auto out_ = [&](Value v) { return outside(v); };
  Value cl = uniformScalar(l.getRhs(), out_), cr = uniformScalar(r.getRhs(), out_);
  APInt a, bc;
  bool shared = cl && cr &&
                (cl == cr || (matchPattern(cl, m_ConstantInt(&a)) && matchPattern(cr, m_ConstantInt(&bc)) &&
                              a.getSExtValue() == bc.getSExtValue()));
  if (!shared)
    return false;
  for (auto [kq, qq] : {std::pair(l, r), std::pair(r, l)}) {
    std::optional<TileCoord> k = tileCoord(kq.getLhs());
    if (!k)
      continue;
    Value m0, m1, c0, c1;
    if (!laneRange(qq.getResult(), m0, m1) || !laneRange(qq.getRhs(), c0, c1))
      return false;
    b.setInsertionPoint(fold);
    Value c = c0; // one value: the divisors are the same scalar
    Value x = bin(kir::BinaryKind::Mul, m0, c), y = bin(kir::BinaryKind::Mul, m1, c);
    Value lo = bin(kir::BinaryKind::Min, x, y), hi = bin(kir::BinaryKind::Max, x, y);
    Value below = bin(kir::BinaryKind::Min, bin(kir::BinaryKind::Add, c, cst(1)), cst(0));
    Value above = bin(kir::BinaryKind::Max, bin(kir::BinaryKind::Sub, c, cst(1)), cst(0));
    for (int part : {1, 2}) {
      Predicate p{cmp};
      p.pred = part == 1 ? kir::CmpPredicate::GE : kir::CmpPredicate::LE;
      p.k = *k;
      p.band = part;
      Value off = part == 1 ? below : above;
      p.qmin = bin(kir::BinaryKind::Add, lo, off);
      p.qmax = bin(kir::BinaryKind::Add, hi, off);
      out.push_back(std::move(p));
    }
    return true;
  }
  return false;
}

/// The ranged predicates of `cmp`: its band (two) or the one predicateOf finds; false when none.
bool FoldNarrower::rangedOf(CmpOp cmp, SmallVectorImpl<Predicate> &out) {
  if (bandOf(cmp, out))
    return true;
  std::optional<Predicate> p = predicateOf(cmp);
  if (p)
    out.push_back(std::move(*p));
  return p.has_value();
}

/// Whether a predicate's tiles are all true on a prefix of the tile starts (<, <=), else on a suffix.
bool prefixTrue(kir::CmpPredicate pred) {
  return pred == kir::CmpPredicate::LT || pred == kir::CmpPredicate::LE;
}

/// The union `orOp` (ors of comparisons, through broadcasts) as one predicate: every leaf a ranged
/// predicate (not the tail mask) of one direction, each comparison read only by the union. On success the
/// comparisons are added to `consumed`.
std::optional<Predicate> FoldNarrower::unionOf(BinaryOp orOp, DenseSet<Operation *> &consumed) {
  SmallVector<Operation *> ors, leaves;
  SmallVector<Value> work{orOp.getResult()};
  DenseSet<Operation *> inUnion; // the ors and broadcasts of the union
  while (!work.empty()) {
    Value v = work.pop_back_val();
    Operation *def = v.getDefiningOp();
    if (!def || !fold.getSummarize().isAncestor(def->getParentRegion()))
      return std::nullopt;
    inUnion.insert(def);
    if (auto br = dyn_cast<BroadcastOp>(def)) {
      work.push_back(br.getOperand());
    } else if (auto o = dyn_cast<BinaryOp>(def); o && o.getKind() == kir::BinaryKind::Or) {
      ors.push_back(o);
      work.push_back(o.getLhs());
      work.push_back(o.getRhs());
    } else if (isa<CmpOp>(def)) {
      leaves.push_back(def);
    } else {
      return std::nullopt;
    }
  }
  // Every value of the union but its result is read only inside it.
  for (Operation *op : inUnion)
    if (op != orOp.getOperation())
      for (Operation *user : op->getUsers())
        if (!inUnion.contains(user))
          return std::nullopt;
  Predicate u;
  u.unite = orOp;
  std::string refusedBefore = refused;
  for (Operation *leaf : leaves) {
    std::optional<Predicate> p = predicateOf(cast<CmpOp>(leaf));
    if (!p || p->tail || (!u.parts.empty() && prefixTrue(p->pred) != prefixTrue(u.parts.front().pred))) {
      refused = refusedBefore; // the leaves are analyzed again on their own
      return std::nullopt;
    }
    u.parts.push_back(std::move(*p));
  }
  u.pred = u.parts.front().pred;
  u.solved = llvm::any_of(u.parts, [](const Predicate &p) { return p.solved; });
  for (Operation *leaf : leaves)
    consumed.insert(leaf);
  return u;
}

/// Whether `op` is an i1 fragment `and` or `or` (a node of a predicate tree).
bool isLogicNode(Operation *op) {
  auto bo = dyn_cast_or_null<BinaryOp>(op);
  return bo && (bo.getKind() == kir::BinaryKind::And || bo.getKind() == kir::BinaryKind::Or) &&
         isa<FragmentType>(bo.getType()) && elementTypeOf(bo.getType()).isInteger(1);
}

/// Branches of more than this many comparisons' intervals are not enumerated (each costs up to three folds).
constexpr size_t kMaxBranches = 4;

/// The and/or tree at `v` (through broadcasts) in disjunctive normal form: a list of branches, each the
/// comparisons whose and it is. A leaf in `opaque` (no comparison: loaded data) is a null entry. False when
/// a node is none of these, or the form has too many branches.
bool disjunctiveForm(Value v, SmallVectorImpl<SmallVector<CmpOp>> &out, const DenseSet<Value> &opaque) {
  v = stripBroadcast(v);
  Operation *def = v.getDefiningOp();
  if (opaque.contains(v)) {
    out.push_back({CmpOp()});
    return true;
  }
  if (auto cmp = dyn_cast_or_null<CmpOp>(def)) {
    out.push_back({cmp});
    return true;
  }
  if (!isLogicNode(def))
    return false;
  auto bo = cast<BinaryOp>(def);
  SmallVector<SmallVector<CmpOp>> l, r;
  if (!disjunctiveForm(bo.getLhs(), l, opaque) || !disjunctiveForm(bo.getRhs(), r, opaque))
    return false;
  if (bo.getKind() == kir::BinaryKind::Or) {
    llvm::append_range(out, l);
    llvm::append_range(out, r);
  } else {
    // (a | b) & (c | d) = a&c | a&d | b&c | b&d.
    for (auto &x : l)
      for (auto &y : r) {
        out.emplace_back(x);
        llvm::append_range(out.back(), y);
      }
  }
  return out.size() <= kMaxBranches;
}

/// The and/or tree at `root` as a union of intervals (see the header): a tree of ands and ors (through
/// broadcasts) over ranged comparisons, with an or that is not a union of one direction, each inner value
/// read only by the tree, and substituting false for the root proving the summary the identity. A leaf that
/// is no comparison (an i1 fragment computed otherwise: a mask read from memory) may be anded in a branch
/// with comparisons: that branch is only ever mixed, but still bounded by them (issue 41/43: tree attention's
/// k < P | (k < P + N & tree[k - P]) visits no tile past P + N). On success the comparisons are added to
/// `consumed`.
std::optional<Predicate> FoldNarrower::intervalsOf(BinaryOp root, DenseSet<Operation *> &consumed) {
  SmallVector<Value> work{root.getResult()};
  DenseSet<Operation *> inTree;
  SmallVector<Operation *> leaves;
  DenseSet<Value> opaque;
  bool anyOr = false;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    Operation *def = v.getDefiningOp();
    if (def && !isa<BroadcastOp, CmpOp>(def) && !isLogicNode(def) && isa<FragmentType>(v.getType()) &&
        elementTypeOf(v.getType()).isInteger(1)) {
      opaque.insert(v);
      continue;
    }
    if (!def || !fold.getSummarize().isAncestor(def->getParentRegion()) || consumed.contains(def))
      return std::nullopt;
    if (!inTree.insert(def).second)
      continue;
    if (isa<BroadcastOp>(def)) {
      work.push_back(def->getOperand(0));
    } else if (isLogicNode(def)) {
      anyOr |= cast<BinaryOp>(def).getKind() == kir::BinaryKind::Or;
      work.push_back(def->getOperand(0));
      work.push_back(def->getOperand(1));
    } else if (isa<CmpOp>(def)) {
      leaves.push_back(def);
    } else {
      return std::nullopt;
    }
  }
  if (!anyOr)
    return std::nullopt;
  for (Operation *op : inTree)
    if (op != root.getOperation())
      for (Operation *user : op->getUsers())
        if (!inTree.contains(user))
          return std::nullopt;
  SmallVector<SmallVector<CmpOp>> form;
  if (!disjunctiveForm(root.getResult(), form, opaque) || form.size() < 2 || !provesIdentity(root.getResult()))
    return std::nullopt;
  // A branch of leaves only (no comparison bounds it) may be true on any tile. A leaf in every branch under
  // an outermost and is a factor of it: the and's other operand, narrowed on its own (tryRoot), keeps its
  // all-true tiles.
  auto isPartial = [](ArrayRef<CmpOp> branch) { return llvm::any_of(branch, [](CmpOp c) { return !c; }); };
  for (auto &branch : form)
    if (llvm::all_of(branch, [](CmpOp c) { return !c; }))
      return std::nullopt;
  if (root.getKind() == kir::BinaryKind::And && llvm::all_of(form, isPartial))
    return std::nullopt;
  std::string refusedBefore = refused;
  DenseMap<Operation *, SmallVector<Predicate, 2>> ranged; // each comparison analyzed once (a band is two)
  for (Operation *leaf : leaves) {
    SmallVector<Predicate, 2> ps;
    if (!rangedOf(cast<CmpOp>(leaf), ps) || ps.front().tail) {
      refused = refusedBefore; // the leaves are analyzed again on their own
      return std::nullopt;
    }
    ranged.try_emplace(leaf, std::move(ps));
  }
  Predicate u;
  u.unite = root;
  for (auto &branch : form) {
    u.branches.emplace_back();
    u.partial.push_back(false);
    for (CmpOp cmp : branch) {
      if (!cmp) {
        u.partial.back() = true;
        continue;
      }
      llvm::append_range(u.branches.back(), ranged.find(cmp.getOperation())->second);
    }
  }
  u.solved = llvm::any_of(ranged, [](auto &kv) { return kv.second.front().solved; });
  for (Operation *leaf : leaves)
    consumed.insert(leaf);
  return u;
}

bool FoldNarrower::analyze() {
  Block &body = fold.getSummarize().front();
  Value begin = body.getArgument(0);
  auto step = fold.getStep().getDefiningOp<ParamOp>();
  APInt stepConst;
  bool constStep = matchPattern(fold.getStep(), m_ConstantInt(&stepConst));
  body.walk([&](IotaOp iota) {
    auto type = cast<FragmentType>(iota.getType());
    if (iota.getBase() != begin || type.getRank() != 1)
      return;
    Attribute e = type.getExtents()[0];
    bool same = step ? (isa<StringAttr>(e) && cast<StringAttr>(e).getValue() == step.getName())
                     : (constStep && isa<IntegerAttr>(e) && cast<IntegerAttr>(e).getInt() == stepConst.getSExtValue());
    if (same)
      positions.push_back(iota);
  });
  if (positions.empty())
    return false;
  // Unions first: the comparisons they consume are not predicates of their own.
  DenseSet<Operation *> consumed;
  body.walk([&](BinaryOp orOp) {
    if (orOp.getKind() != kir::BinaryKind::Or || !isa<FragmentType>(orOp.getType()) ||
        !elementTypeOf(orOp.getType()).isInteger(1))
      return;
    // Only the outermost or of a union (one whose result no other or reads, through broadcasts).
    for (Operation *user : orOp->getUsers()) {
      while (isa<BroadcastOp>(user) && user->hasOneUse())
        user = *user->getUsers().begin();
      if (auto o = dyn_cast<BinaryOp>(user); o && o.getKind() == kir::BinaryKind::Or)
        return;
    }
    if (std::optional<Predicate> u = unionOf(orOp, consumed))
      preds.push_back(std::move(*u));
  });
  // Then one union of intervals: the outermost and/or tree with an or that the above did not take, or, where
  // that tree has a leaf that is not a ranged comparison (loaded data: a padding mask), an operand of its
  // outermost ands (the other operands stay in every interval's summarizer; false for the operand makes the
  // and false, so the identity proof carries over).
  std::function<bool(BinaryOp)> tryRoot = [&](BinaryOp root) {
    if (std::optional<Predicate> u = intervalsOf(root, consumed)) {
      preds.push_back(std::move(*u));
      return true;
    }
    if (root.getKind() != kir::BinaryKind::And)
      return false;
    for (Value operand : {root.getLhs(), root.getRhs()})
      if (Operation *def = stripBroadcast(operand).getDefiningOp(); isLogicNode(def) && tryRoot(cast<BinaryOp>(def)))
        return true;
    return false;
  };
  body.walk([&](BinaryOp root) {
    if (!isLogicNode(root) || llvm::any_of(preds, [](const Predicate &p) { return !p.branches.empty(); }))
      return;
    for (Operation *user : root->getUsers()) {
      while (isa<BroadcastOp>(user) && user->hasOneUse())
        user = *user->getUsers().begin();
      if (isLogicNode(user))
        return;
    }
    tryRoot(root);
  });
  body.walk([&](CmpOp cmp) {
    if (consumed.contains(cmp.getOperation()))
      return;
    SmallVector<Predicate, 2> ps;
    if (rangedOf(cmp, ps))
      llvm::append_range(preds, std::move(ps));
  });
  return !preds.empty();
}

bool FoldNarrower::skips() {
  auto viewTail = [&](Predicate &p) {
    if (p.unite || !p.cmp)
      return false;
    for (Value side : {p.cmp.getLhs(), p.cmp.getRhs()})
      if (Value u = uniformScalar(side, [&](Value v) { return outside(v); }); u && isa<KernelOp>(u.getParentBlock()->getParentOp()))
        return true;
    return false;
  };
  return llvm::any_of(preds, [&](Predicate &p) {
    return !p.branches.empty() ||
           (!p.tail && !viewTail(p) && provesIdentity(p.unite ? p.unite->getResult(0) : p.cmp.getResult()));
  });
}

/// Substituting `truth` := false (a comparison's or a union's result), every summary component is its identity.
bool FoldNarrower::provesIdentity(Value truth) {
  DenseMap<Value, Attribute> env;
  env[truth] = IntegerAttr::get(IntegerType::get(truth.getContext(), 1), 0);
  Operation *yield = fold.getSummarize().front().getTerminator();
  ValueRange ids = neutrals.empty() ? ValueRange(fold.getIdentities()) : ValueRange(neutrals);
  for (auto [y, id] : llvm::zip(yield->getOperands(), ids)) {
    DenseMap<Value, Attribute> outer;
    Attribute want = constantOf(id, outer), got = constantOf(y, env);
    if (!want || want != got)
      return false;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// The rewrite
//===----------------------------------------------------------------------===//

void FoldNarrower::rewrite() {
  Location loc = fold.getLoc();
  b.setInsertionPoint(fold);
  Value lo = fold.getLower(), hi = fold.getUpper(), step = fold.getStep();
  auto mx = [&](Value x, Value y) { return bin(kir::BinaryKind::Max, x, y); };
  auto mn = [&](Value x, Value y) { return bin(kir::BinaryKind::Min, x, y); };
  auto clamp = [&](Value x) { return mn(mx(x, lo), hi); };
  // Tile starts are lo + j * step. alignDown: the last tile start <= x; alignUp: the first >= x.
  auto alignDown = [&](Value x) {
    Value span = bin(kir::BinaryKind::Sub, clamp(x), lo);
    return bin(kir::BinaryKind::Add, lo, bin(kir::BinaryKind::Mul, bin(kir::BinaryKind::Div, span, step), step));
  };
  auto alignUp = [&](Value x) {
    Value span = bin(kir::BinaryKind::Sub, clamp(x), lo);
    // ceil(span / step) as (span + step - 1) / step: span >= 0 here, and pgpu.ceil_div is a LaunchExpr op.
    Value up = bin(kir::BinaryKind::Div, bin(kir::BinaryKind::Add, span, bin(kir::BinaryKind::Sub, step, cst(1))), step);
    return clamp(bin(kir::BinaryKind::Add, lo, bin(kir::BinaryKind::Mul, up, step)));
  };
  Value one = cst(1);
  // True interval [T0, T1) on full tiles; skipped [lo, F0) and [F1, hi).
  Value t0 = lo, t1 = alignDown(hi), f0 = lo, f1 = hi;
  SmallVector<Operation *> trueInMiddle; // comparisons and unions replaced by true in [T0, T1)
  unsigned skipped = 0;
  bool leadingMixed = false; // some predicate is true on a suffix: [F0, T0) may be nonempty
  // A comparison's tile-start bounds: prefix-true, all true for s < trueBound and all false for
  // s >= falseBound; suffix-true, all true for s >= trueBound and all false for s < falseBound.
  DenseMap<const Predicate *, Value> offsets; // each comparison's offset, made once
  auto offsetOf = [&](const Predicate &p) {
    Value &off = offsets[&p];
    if (!off)
      off = p.k.offset ? p.k.offset : cst(0);
    return off;
  };
  auto trueBoundOf = [&](const Predicate &p) {
    Value off = offsetOf(p);
    // K = pos + off over a tile starting at s: [s + off, s + step - 1 + off].
    bool strict = p.pred == kir::CmpPredicate::LT || p.pred == kir::CmpPredicate::GT;
    if (prefixTrue(p.pred)) {
      // All true while s + step - 1 + off (<|<=) qmin: s + step <= qmin - off (+1 unless strict).
      Value x = bin(kir::BinaryKind::Sub, p.qmin, off);
      if (!strict)
        x = bin(kir::BinaryKind::Add, x, one);
      return alignDown(x);
    }
    // All true once s + off (>|>=) qmax: s >= qmax - off (+1 if strict).
    Value x = bin(kir::BinaryKind::Sub, p.qmax, off);
    if (strict)
      x = bin(kir::BinaryKind::Add, x, one);
    return alignUp(x);
  };
  auto falseBoundOf = [&](const Predicate &p) {
    Value off = offsetOf(p);
    bool strict = p.pred == kir::CmpPredicate::LT || p.pred == kir::CmpPredicate::GT;
    if (prefixTrue(p.pred)) {
      // All false once s + off (>|>=) qmax: s >= qmax - off (+1 unless strict).
      Value y = bin(kir::BinaryKind::Sub, p.qmax, off);
      if (!strict)
        y = bin(kir::BinaryKind::Add, y, one);
      return alignUp(y);
    }
    // All false while s + step - 1 + off (<|<=) qmin: s + step <= qmin - off (+1 if strict).
    Value y = bin(kir::BinaryKind::Sub, p.qmin, off);
    if (strict)
      y = bin(kir::BinaryKind::Add, y, one);
    return alignDown(y);
  };
  // A comparison in several branches of a union of intervals has its bounds made once.
  DenseMap<std::pair<Operation *, int>, Value> bounds;
  auto trueBound = [&](const Predicate &p) {
    Value &memo = bounds[{CmpOp(p.cmp).getOperation(), 1 + 2 * p.band}];
    return memo ? memo : memo = trueBoundOf(p);
  };
  auto falseBound = [&](const Predicate &p) {
    Value &memo = bounds[{CmpOp(p.cmp).getOperation(), 2 * p.band}];
    return memo ? memo : memo = falseBoundOf(p);
  };
  // A union of one direction is all true where any part is and all false where every part is (see the
  // header): prefix-true parts take the largest bounds, suffix-true ones the smallest.
  auto unionBound = [&](const Predicate &p, bool forTrue) {
    bool prefix = prefixTrue(p.pred);
    Value bound;
    for (const Predicate &part : p.parts) {
      Value v = forTrue ? trueBound(part) : falseBound(part);
      bound = !bound ? v : prefix ? mx(bound, v) : mn(bound, v);
    }
    return bound;
  };
  auto boundOf = [&](const Predicate &p, bool forTrue) {
    return p.unite ? unionBound(p, forTrue) : forTrue ? trueBound(p) : falseBound(p);
  };
  const Predicate *intervals = nullptr; // a union of intervals: its branches are placed after the others
  SmallVector<const Predicate *> falseAt[2]; // suffix-true (prefix-true) predicates whose false is no identity
  for (Predicate &p : preds) {
    Operation *truth = p.unite ? p.unite : p.cmp.getOperation();
    if (!llvm::is_contained(trueInMiddle, truth)) // a band's two parts name one comparison
      trueInMiddle.push_back(truth);
    if (!p.branches.empty())
      intervals = &p, ++skipped; // its identity is proven (intervalsOf)
    if (p.tail || !p.branches.empty())
      continue;
    bool identity = provesIdentity(p.unite ? p.unite->getResult(0) : p.cmp.getResult());
    if (prefixTrue(p.pred)) {
      t1 = mn(t1, boundOf(p, true));
      if (identity) {
        f1 = mn(f1, boundOf(p, false));
        ++skipped;
      } else if (!p.band) {
        falseAt[1].push_back(&p);
      }
    } else {
      t0 = mx(t0, boundOf(p, true));
      leadingMixed = true;
      if (identity) {
        f0 = mx(f0, boundOf(p, false));
        ++skipped;
      } else if (!p.band) {
        falseAt[0].push_back(&p);
      }
    }
  }
  Value trueBefore = t1, trueFrom = t0; // every prefix-true (suffix-true) predicate's tiles all true
  // Order the boundaries: lo <= F0 <= T0 <= T1 <= F1 <= hi.
  f1 = mx(f1, f0);
  t0 = mn(mx(t0, f0), f1);
  t1 = mn(mx(t1, t0), f1);
  // A lone predicate false on a prefix (suffix) of the tiles whose false is not the identity: where that
  // saves a read (a mask read only under it: tree attention's ~(k >= P) | tree[k - P] valid k >= P), those
  // tiles are visited in their own fold with it false, and every predicate of the other direction true as
  // it is there: [F0, G0) before the leading mixed interval, [G1, F1) after the trailing one.
  auto applyKnown = [&](RegionFoldOp part, IRMapping &map, const Predicate &known) {
    bool prefix = prefixTrue(known.pred);
    auto substitute = [&](const Predicate &p, bool truth) {
      Operation *cloned = map.lookup(p.unite ? p.unite : CmpOp(p.cmp).getOperation());
      OpBuilder at(cloned);
      Value c = arith::ConstantIntOp::create(at, loc, at.getI1Type(), truth);
      cloned->getResult(0).replaceAllUsesWith(SplatOp::create(at, loc, cloned->getResult(0).getType(), c));
      cloned->erase();
    };
    for (Predicate &p : preds)
      if (&p != &known && p.branches.empty() && !p.band && (p.tail || prefixTrue(p.pred)) == !prefix)
        substitute(p, true); // the tail mask is true on a prefix of the tiles
    substitute(known, false);
    foldKnownMasks(part.getSummarize());
  };
  auto reads = [](RegionFoldOp f) {
    unsigned n = 0;
    f.getSummarize().walk([&](Operation *op) { n += isa<LoadOp, GatherOp>(op); });
    return n;
  };
  auto savesRead = [&](const Predicate &known) {
    IRMapping map;
    auto trial = cast<RegionFoldOp>(b.clone(*fold.getOperation(), map));
    applyKnown(trial, map, known);
    bool saves = reads(trial) < reads(fold);
    trial.erase();
    return saves;
  };
  Value g0 = f0, g1 = f1;
  for (auto &side : falseAt)
    if (side.size() != 1 || intervals || !savesRead(*side.front()))
      side.clear();
  if (!falseAt[0].empty())
    g0 = mx(mn(mn(boundOf(*falseAt[0][0], false), t0), trueBefore), f0);
  if (!falseAt[1].empty())
    g1 = mn(mx(mx(boundOf(*falseAt[1][0], false), t1), trueFrom), f1);
  // Folds over [a, z): the mixed ones are clones; the middle one has its predicates true.
  SmallVector<Value> acc;
  // `known`: a lone predicate false on [a, z) (G0, G1 above); the predicates of the other direction are
  // then true there (on a prefix, the tail mask with them), the rest stays mixed.
  auto piece = [&](Value a, Value z, bool allTrue, const Predicate *known = nullptr) {
    IRMapping map;
    auto part = cast<RegionFoldOp>(b.clone(*fold.getOperation(), map));
    part->setOperand(0, a);
    part->setOperand(1, z);
    bool trailing = known && prefixTrue(known->pred);
    if (known && !trailing) {
      applyKnown(part, map, *known); // a leading piece: its tail mask true, nothing to rebound
    } else if (allTrue) {
      for (Operation *op : trueInMiddle) {
        Operation *cloned = map.lookup(op);
        OpBuilder at(cloned);
        Value truth = arith::ConstantIntOp::create(at, loc, at.getI1Type(), 1);
        cloned->getResult(0).replaceAllUsesWith(SplatOp::create(at, loc, cloned->getResult(0).getType(), truth));
        cloned->erase();
      }
      foldTrueMasks(part.getSummarize());
    } else {
      // A mixed interval's tail mask bounds by the whole range: pos < min(s + step, z) <=> pos < hi on each
      // of its tiles. Every boundary is a tile start lo + j * step or hi (aligned and clamped above), and
      // so is z: z = hi trivially; else the tiles [s, s + step) end at or before z <= hi, where both
      // masks hold on every lane. The mask then is the view's bound where the tile reads a view (a box
      // access: seed 002 §3.4 boundary neutralization), not the interval's.
      // (The summarizer sees hi as one more operand: it captures nothing from outside.)
      Value whole;
      for (Predicate &p : preds) {
        if (!p.tail)
          continue;
        if (!whole) {
          part.getCapturesMutable().append(hi);
          whole = part.getSummarize().front().addArgument(hi.getType(), loc);
        }
        auto cloned = cast<CmpOp>(map.lookup(p.cmp.getOperation()));
        OpBuilder at(cloned);
        SmallVector<Operation *> chain; // broadcasts from the compared value to the splat of the end
        Value v = cloned.getRhs();
        while (auto br = v.getDefiningOp<BroadcastOp>()) {
          chain.push_back(br);
          v = br.getOperand();
        }
        Value bound = SplatOp::create(at, loc, v.getType(), whole);
        for (Operation *br : llvm::reverse(chain)) {
          IRMapping m;
          m.map(br->getOperand(0), bound);
          bound = at.clone(*br, m)->getResult(0);
        }
        cloned->setOperand(1, bound);
      }
    }
    if (trailing)
      applyKnown(part, map, *known); // after its tail mask is rebound (the mask may fold away)
    // The ordered fold continues from the summary of the intervals before this one (its initial summary,
    // the identity for the first): one set of carries live at a time, no combine of partial folds after.
    if (!acc.empty())
      part.getIdentitiesMutable().assign(acc);
    acc.assign(part.getResults().begin(), part.getResults().end());
  };
  if (!intervals) {
    if (!falseAt[0].empty())
      piece(f0, g0, false, falseAt[0][0]);
    if (leadingMixed)
      piece(g0, t0, false);
    piece(t0, t1, true);
    piece(t1, g1, false);
    if (!falseAt[1].empty())
      piece(g1, f1, false, falseAt[1][0]);
  } else {
    // A union of intervals (see the header). Branch j, the intersection of its comparisons, may be true only
    // on [F0j, F1j) and is all true on [T0j, T1j): the same bounds as the predicates of a fold, intersected.
    struct Branch {
      Value f0, t0, t1, f1;
      bool fromLo; // no suffix-true comparison: F0 = T0 = lo, the smallest start
      bool partial; // it ands a leaf that is no comparison: never all true
    };
    SmallVector<Branch> branches;
    for (auto [j, parts] : llvm::enumerate(intervals->branches)) {
      // null: unbounded (lo for F0, T0; hi for T1, F1)
      Branch br{Value(), Value(), Value(), Value(), true, bool(intervals->partial[j])};
      auto meet = [&](Value &x, Value y, bool lower) { x = !x ? y : lower ? mx(x, y) : mn(x, y); };
      for (const Predicate &part : parts) {
        bool prefix = prefixTrue(part.pred);
        meet(prefix ? br.t1 : br.t0, trueBound(part), !prefix);
        meet(prefix ? br.f1 : br.f0, falseBound(part), !prefix);
        br.fromLo &= prefix;
      }
      br.f0 = br.f0 ? br.f0 : lo, br.t0 = br.t0 ? br.t0 : lo;
      br.t1 = br.t1 ? br.t1 : hi, br.f1 = br.f1 ? br.f1 : hi;
      branches.push_back(br);
    }
    // Source order: the branches sorted by F0 (the argument below needs it). Those from lo come first as they
    // are; the others by a compare-exchange network of selects on their bounds (at most kMaxBranches).
    std::stable_partition(branches.begin(), branches.end(), [](const Branch &br) { return br.fromLo; });
    auto firstLate = llvm::find_if(branches, [](const Branch &br) { return !br.fromLo; });
    size_t first = firstLate - branches.begin(), n = branches.size();
    for (size_t pass = first; pass + 1 < n; ++pass)
      for (size_t j = first; j + 1 < n - (pass - first); ++j) {
        Branch &x = branches[j], &y = branches[j + 1];
        Value swap = CmpOp::create(b, loc, kir::CmpPredicate::LT, y.f0, x.f0);
        for (auto [u, w] : {std::pair(&x.f0, &y.f0), std::pair(&x.t0, &y.t0), std::pair(&x.t1, &y.t1),
                            std::pair(&x.f1, &y.f1)}) {
          Value nu = SelectOp::create(b, loc, swap, *w, *u), nw = SelectOp::create(b, loc, swap, *u, *w);
          *u = nu, *w = nw;
        }
        // A partial branch's all-true range is empty wherever it lands: both swapped ones stay mixed.
        if (x.partial != y.partial)
          x.partial = y.partial = true;
      }
    // Branch j is visited on [Sj, Zj) = [F0j, F1j) past the ranges before it, within the others' [F0, F1):
    // mixed, all true where its comparisons and the other predicates all are, mixed. A tile outside every
    // range is all false: below F0j it is below every later branch's F0 (sorted), and past Z(j-1) it is past
    // every earlier branch's F1 (or past F1, the other predicates' false bound), so the identity proven for
    // the root (or for those predicates) lets it go. The ranges increase: source order is kept.
    Value end = f0;
    for (const Branch &br : branches) {
      Value start = mn(br.fromLo ? end : mx(br.f0, end), f1);
      Value stop = mx(br.f1 == hi ? f1 : mn(br.f1, f1), start);
      if (br.partial) { // mixed on its whole range
        piece(start, stop, false);
        end = stop;
        continue;
      }
      // From lo (T0j = lo) with no suffix-true predicate (T0 = lo): the leading mixed piece is empty.
      bool leading = leadingMixed || !br.fromLo;
      Value a = mn(mx(br.fromLo ? t0 : mx(br.t0, t0), start), stop);
      Value z = mn(mx(br.t1 == hi ? t1 : mn(br.t1, t1), a), stop);
      if (leading)
        piece(start, a, false);
      piece(a, z, true);
      piece(z, stop, false);
      end = stop;
    }
  }
  fold.replaceAllUsesWith(acc);
  fold.erase();
  unsigned ranged = llvm::count_if(preds, [](const Predicate &p) { return !p.tail; });
  unsigned solved = llvm::count_if(preds, [](const Predicate &p) { return p.solved; });
  unsigned unions = llvm::count_if(preds, [](const Predicate &p) { return p.unite != nullptr; });
  unsigned bands = llvm::count_if(preds, [](const Predicate &p) { return p.band == 1; });
  for (const Predicate &p : preds)
    for (const auto &branch : p.branches)
      bands += llvm::count_if(branch, [](const Predicate &q) { return q.band == 1; });
  adopted = std::to_string(ranged) + " coordinate predicate(s) and " + std::to_string(preds.size() - ranged) +
            " tail mask(s): tiles split into all-true (predicates dropped) and mixed intervals; " +
            std::to_string(skipped) + " all-false interval(s) skipped (identity proven)";
  if (solved)
    adopted += "; " + std::to_string(solved) + " predicate(s) solved for the tile coordinate";
  if (bands)
    adopted += "; " + std::to_string(bands) + " equality(ies) of floor quotients read as their band (two bounds)";
  if (unsigned kept = !falseAt[0].empty() + !falseAt[1].empty())
    adopted += "; " + std::to_string(kept) + " all-false interval(s) kept with the predicate false (a read saved)";
  if (intervals)
    --unions, adopted += "; a union of " + std::to_string(intervals->branches.size()) +
                         " intervals narrowed branch by branch (only its tiles visited)";
  if (unions)
    adopted += "; " + std::to_string(unions) + " union(s) of one direction narrowed as one predicate";
  if (!refused.empty())
    adopted += "; one predicate kept in every interval: " + refused;
}

/// Why a fold was not narrowed, from what its summarizer holds. Several folds may share one source op
/// (pgpu-split-folds leaves the unsplit path's fold, each segment's fold and the last arrival's fold of
/// the segments' summaries; an element-wise fallback beside a blocked fold), each with its own remark
/// there: one with no lanes over tiles says so, so that it does not read as the narrowed fold refused.
std::string whyNotNarrowed(RegionFoldOp f, const FoldNarrower &narrower) {
  if (!narrower.hasPositions()) {
    if (f->getParentOfType<LastProgramOp>())
      return "the last arrival's fold of the segments' summaries (pgpu-split-folds) has no lanes over tiles: "
             "nothing to narrow";
    return "the summarizer has no lanes over the fold's tiles (no iota from the tile start): nothing to narrow";
  }
  return "no tile-coordinate predicate and no tail mask in the summarizer" +
         (narrower.refused.empty() ? std::string() : " (" + narrower.refused + ")");
}

/// Whether `op` and everything nested in it writes nothing (a summarizer's contract).
bool writesNothing(Operation *op) {
  WalkResult r = op->walk([](Operation *inner) {
    if (inner->hasTrait<OpTrait::HasRecursiveMemoryEffects>() || isa<YieldOp>(inner))
      return WalkResult::advance();
    auto effects = dyn_cast<MemoryEffectOpInterface>(inner);
    if (!effects || effects.hasEffect<MemoryEffects::Write>() || effects.hasEffect<MemoryEffects::Free>())
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return !r.wasInterrupted();
}

/// A blocked reduction loop (pgpu-form-blocking's range_reduce: each carry acc_k is folded with one
/// block's reduction p_k = reduce(x_k) by the reduce's own combine, acc_k op p_k, op one of + * max min
/// and or; nothing else reads the carries, the body writes nothing) as the region fold it is: summarize
/// is the body without those combines, yielding the p_k; combine the same ops lane by lane; the identity
/// operands the loop's initial carries (a fold continuing the blocks before it, see RegionFoldOp). The
/// reduces' identities are the combine's (`neutrals`, for the all-false proof). The fold is built before
/// the loop, which is left in place; null when the loop is not of that form.
/// A carry may instead be a tiled product's accumulator (pgpu-form-tiles' key loop: acc_k is only the
/// accumulator of a contraction, or of a chain of contractions each accumulating into the next, whose
/// top is yielded): contract(l, r, acc) = acc + l r, so its summary is the contraction from a zero
/// splat (its neutral; a zero operand proves it) and its combine +; pgpu-merge-contract-add joins the
/// addition to the accumulator again after pgpu-realize-folds. FlashAttention-2 backward's causal key
/// blocks past a query tile's last row are then skipped, the diagonal ones alone masked (`anyProduct`:
/// such a loop is narrowed only where tiles are skipped).
RegionFoldOp foldOfReduction(ForOp loop, SmallVectorImpl<Value> &neutrals, bool &anyProduct) {
  Block &body = loop.getBody().front();
  unsigned n = loop.getInits().size();
  if (n == 0 || body.getNumArguments() != n + 1 || !writesNothing(loop))
    return {};
  auto yield = cast<YieldOp>(body.getTerminator());
  SmallVector<BinaryOp> combines;
  SmallVector<Value> partials;
  SmallVector<bool> products(n, false);
  // Whether carry k is only a contraction chain's accumulator whose top is yielded at k.
  auto productCarry = [&](unsigned k) {
    Value v = body.getArgument(k + 1);
    while (true) {
      if (!v.hasOneUse())
        return false;
      OpOperand &use = *v.getUses().begin();
      if (use.getOwner() == yield)
        return use.getOperandNumber() == k && v != body.getArgument(k + 1);
      auto c = dyn_cast<ContractOp>(use.getOwner());
      if (!c || c->getBlock() != &body || &use != &c.getAccMutable() || c.getType() != v.getType())
        return false;
      v = c.getResult();
    }
  };
  for (unsigned k = 0; k < n; ++k) {
    Value acc = body.getArgument(k + 1);
    if (productCarry(k)) {
      products[k] = anyProduct = true;
      combines.push_back({});
      partials.push_back(yield->getOperand(k));
      neutrals.push_back({}); // the zero splat, made in the summarizer below
      continue;
    }
    auto bo = yield->getOperand(k).getDefiningOp<BinaryOp>();
    if (!bo || bo->getBlock() != &body || !bo->hasOneUse() || !acc.hasOneUse() || *acc.getUsers().begin() != bo)
      return {};
    kir::BinaryKind kind = bo.getKind();
    if (kind != kir::BinaryKind::Add && kind != kir::BinaryKind::Mul && kind != kir::BinaryKind::Max &&
        kind != kir::BinaryKind::Min && kind != kir::BinaryKind::And && kind != kir::BinaryKind::Or)
      return {};
    Value p = bo.getLhs() == acc ? bo.getRhs() : bo.getLhs();
    auto r = p.getDefiningOp<ReduceOp>();
    if (!r || r->getBlock() != &body || r.getInputs().size() != 1 || p.getType() != acc.getType())
      return {};
    // The reduce's combine is the same op on its two arguments: its identity is the fold's neutral.
    Block &rc = r.getCombine().front();
    auto inner = rc.empty() ? BinaryOp() : dyn_cast<BinaryOp>(rc.front());
    if (!inner || inner.getKind() != kind || rc.getNumArguments() != 2 ||
        rc.getTerminator()->getOperand(0) != inner.getResult() ||
        !llvm::is_contained(ArrayRef<Value>{inner.getLhs(), inner.getRhs()}, rc.getArgument(0)) ||
        !llvm::is_contained(ArrayRef<Value>{inner.getLhs(), inner.getRhs()}, rc.getArgument(1)) ||
        !matchPattern(r.getIdentities()[0], m_Constant()))
      return {};
    combines.push_back(bo);
    partials.push_back(p);
    neutrals.push_back(r.getIdentities()[0]);
  }
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  auto fold = RegionFoldOp::create(b, loc, loop.getResultTypes(), loop.getLower(), loop.getUpper(), loop.getStep(),
                                   loop.getInits(), ValueRange{});
  Type index = b.getIndexType();
  Block *sum = b.createBlock(&fold.getSummarize(), {}, {index, index}, {loc, loc});
  IRMapping map;
  map.map(body.getArgument(0), sum->getArgument(0));
  for (unsigned k = 0; k < n; ++k) {
    if (!products[k])
      continue;
    Type acc = body.getArgument(k + 1).getType(), e = elementTypeOf(acc);
    TypedAttr z = isa<FloatType>(e) ? TypedAttr(b.getFloatAttr(e, 0.0)) : TypedAttr(b.getIntegerAttr(e, 0));
    Value zero = SplatOp::create(b, loc, acc, arith::ConstantOp::create(b, loc, z));
    map.map(body.getArgument(k + 1), zero);
    neutrals[k] = zero;
  }
  for (Operation &op : body.without_terminator())
    if (auto bo = dyn_cast<BinaryOp>(&op); !bo || !llvm::is_contained(combines, bo))
      b.clone(op, map);
  SmallVector<Value> yields;
  for (Value p : partials)
    yields.push_back(map.lookup(p));
  YieldOp::create(b, loc, yields);
  SmallVector<Type> both(loop.getResultTypes());
  llvm::append_range(both, loop.getResultTypes());
  Block *comb = b.createBlock(&fold.getCombine(), {}, both, SmallVector<Location>(both.size(), loc));
  SmallVector<Value> merged;
  for (auto [k, bo] : llvm::enumerate(combines)) {
    if (products[k]) { // the summary so far plus the block's products
      merged.push_back(BinaryOp::create(b, loc, kir::BinaryKind::Add, comb->getArgument(k),
                                        comb->getArgument(n + k), false, false));
      continue;
    }
    IRMapping m;
    m.map(body.getArgument(k + 1), comb->getArgument(k)); // the summary so far, then the new one
    m.map(partials[k], comb->getArgument(n + k));
    merged.push_back(b.clone(*bo, m)->getResult(0));
  }
  YieldOp::create(b, loc, merged);
  // The summarizer is closed: each value from above an operand (a constant cloned in), as pgpu-form-blocking
  // builds folds.
  Region &region = fold.getSummarize();
  llvm::SetVector<Value> above;
  getUsedValuesDefinedAbove(region, above);
  b.setInsertionPointToStart(sum);
  for (Value v : above) {
    Value inner;
    if (Operation *def = v.getDefiningOp(); def && isa<arith::ConstantOp>(def)) {
      inner = b.clone(*def)->getResult(0);
    } else {
      fold.getCapturesMutable().append(v);
      inner = sum->addArgument(v.getType(), v.getLoc());
    }
    replaceAllUsesInRegionWith(v, inner, region);
  }
  return fold;
}

struct NarrowFoldRanges : public tessel::pgpu::impl::PGPUNarrowFoldRangesBase<NarrowFoldRanges> {
  void runOnOperation() override {
    SmallVector<RegionFoldOp> folds;
    getOperation().walk([&](RegionFoldOp f) { folds.push_back(f); });
    for (RegionFoldOp f : folds) {
      bool remarks = remarksEnabled(f);
      FoldNarrower narrower(f);
      if (!narrower.analyze()) {
        if (remarks)
          emitRemark(f.getLoc()) << "pgpu-narrow-fold-ranges: not narrowed: " << whyNotNarrowed(f, narrower);
        continue;
      }
      Location loc = f.getLoc();
      narrower.rewrite();
      if (remarks)
        emitRemark(loc) << "pgpu-narrow-fold-ranges: " << narrower.adopted;
    }
    // A blocked reduction loop whose blocks have coordinate predicates (a masked row sum,
    // T.sum(T.where(kpos <= i, x[keys], 0))) is narrowed as the region fold it is; others stay loops.
    SmallVector<ForOp> loops;
    getOperation().walk([&](ForOp loop) {
      if (!loop->getParentOfType<RegionFoldOp>() && !loop->getParentOfType<RegionScanOp>())
        loops.push_back(loop);
    });
    bool converted = false;
    for (ForOp loop : loops) {
      SmallVector<Value> neutrals;
      Operation *before = loop->getPrevNode();
      bool products = false;
      RegionFoldOp f = foldOfReduction(loop, neutrals, products);
      if (!f)
        continue;
      FoldNarrower narrower(f);
      narrower.neutrals = neutrals;
      narrower.upperIsTail = true;
      // A product's K loop is narrowed only where tiles are skipped (causal key blocks): one that would
      // only shed its masks stays whole for the provider's pipeliner (as pgpu-narrow-predicates keeps it).
      if (!narrower.analyze() || !narrower.hasRangedPredicate() || (products && !narrower.skips())) {
        // Not narrowed: the fold and what its analysis made before it go; the loop stays as it was.
        SmallVector<Operation *> made;
        for (Operation *op = before ? before->getNextNode() : &loop->getBlock()->front(); op != loop;
             op = op->getNextNode())
          made.push_back(op);
        for (Operation *op : llvm::reverse(made))
          op->erase();
        continue;
      }
      bool remarks = remarksEnabled(f);
      Location loc = loop.getLoc();
      loop.replaceAllUsesWith(f.getResults());
      narrower.rewrite();
      loop.erase();
      converted = true;
      if (remarks)
        emitRemark(loc) << "pgpu-narrow-fold-ranges: a blocked reduction loop, read as its region fold: "
                        << narrower.adopted;
    }
    // Drop what the analysis and the substitutions left unused (only where folds were).
    if (folds.empty() && !converted)
      return;
    bool erased = true;
    while (erased) {
      erased = false;
      SmallVector<Operation *> dead;
      getOperation().walk([&](Operation *op) {
        if (isOpTriviallyDead(op))
          dead.push_back(op);
      });
      for (Operation *op : dead)
        op->erase();
      erased = !dead.empty();
    }
  }
};
} // namespace
