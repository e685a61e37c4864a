//===- MemberPartials.cpp - a last-program sum over the members, added by them -===//
//
// seed 000 §4.4 (invocation workspace with an initial value), §6 (scatter-
// reduce: collisions combine), §9 (the acq_rel arrival publishes every merge);
// seed 002 §3 (replay versus materialization is a costed decision with a
// remark), §4 (a sum may be reassociated and permuted under its contract).
//
// A workset that reads what the execution group wrote (a column sum over the
// rows that uses each row's rsqrt kept in a buffer: the dw of an RMSNorm
// backward) is constructed as a whole-space finalization: the last program
// instance runs
//
//   last_program %ticket {
//     foreach n in [lo, hi) {
//       %s = range_reduce r in [0, E) element { f(r, n) } combine add
//       store %s, %out[.., n, ..]
//     }
//   }
//
// alone, after every instance of the group `execution_group extents(E) (m)`:
// E * (hi - lo) elements in one program (a column read walks the rows, one
// element of each). Every element f(r, n) reads only inputs nothing writes and
// what instance r of the group itself stored (a buffer at [r]); so instance m
// can compute f(m, n) for every n as it finishes and add it into a kept
// workspace Sum[n] (zero, returned to zero), and the last instance reads Sum:
//
//   execution_group extents(E) (m) {
//     ...
//     foreach n in [lo, hi) { scatter_reduce add f(m, n), %Sum[n] }
//   }
//   last_program %ticket {
//     foreach n in [lo, hi) { %s = buffer_load %Sum[n]; buffer_store 0, %Sum[n]; store %s, %out[.., n, ..] }
//   }
//
// The same E * (hi - lo) elements, spread over the E instances, each reading the
// row it has just read (cached) instead of the last program walking every
// column; the cost is one atomic add per element. The sum is the reduce
// reassociated and permuted, as its contract permits. A buffer element the
// member itself stored at [m] is not read back: the spread uses the value of
// its last store there (one program's store and later load of an address are
// ordered only within a thread, and a scalar is stored by one thread and read
// by all), and a buffer left without readers is no longer written or passed.
//
// A sum over the members may also sit in a reduction over the columns (corpus
// 256's load-balance loss: E * sum_e frac[e] * pmean[e], frac and pmean sums
// over the tokens of each expert), its element reading the reduction's index,
// or be a kernel-level statement's scalar (a foreach over [0, 1): the z-loss's
// sum of what each token kept). Its workspace then spans each enclosing loop
// that runs more than once (its bound from 0 a constant, else a
// `pgpu.workspace_extent` MEMBER_COLUMNS), [1] where none does; the member
// spreads through one foreach per such loop (a scalar: one atomic add); the
// finalization reads Sum in the sum's place and, a reduction's element being
// pure, zeroes it by a foreach after the outermost reduction. 256's last
// program walked 64 experts x 65,536 tokens (strided column reads): now 2 x 64
// sums and one scalar.
//
// Fires on a whole-space pgpu.last_program beside the program space's sole
// execution group of one axis, whose body (pure code and foreaches) holds
// foreaches (or reductions over the columns in them) whose every range_reduce
// over [0, E) (the group's extent) sums
// (add combine, zero identity; f32, i32 or i64) an element that writes nothing and
// reads views the kernel never writes and buffers the group writes only by
// unconditional top-level stores at [m], read at [r]; where the sum's only user is
// an unconditional store at the foreach's index, Sum's extent is that view axis'
// (else the loops' bounds, above); the element's other operands (but the loops'
// indices) and the loops' bounds are defined outside the finalization. Several sums (a LayerNorm backward's dw and db over one
// foreach of the columns) each get a workspace; the sums of one foreach are
// spread by one foreach in the group, sharing the member's reads of a column.
// Must not fire otherwise (the remark says why).
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SetVector.h"

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUMEMBERPARTIALS
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

namespace {

/// Whether `v` is a constant +0 (float) or 0 (integer).
bool isZero(Value v) {
  Attribute a;
  if (!matchPattern(v, m_Constant(&a)))
    return false;
  if (auto f = dyn_cast<FloatAttr>(a))
    return f.getValue().isPosZero();
  if (auto i = dyn_cast<IntegerAttr>(a))
    return i.getValue().isZero();
  return false;
}

/// Whether `v` is the constant `true`.
bool isTrue(Value v) {
  APInt c;
  return matchPattern(v, m_ConstantInt(&c)) && c.getBitWidth() == 1 && c.isAllOnes();
}

/// A loop of the finalization around a sum (a foreach, or a range_reduce's element): a coordinate of
/// the sum's workspace, or none where it runs once ([0, 1): a kernel-level statement's foreach).
struct Column {
  Operation *loop;
  Value index, lower, upper;
  bool once;
};

/// One sum of a finalization this pass rewrites.
struct Sum {
  RangeReduceOp reduce;
  SmallVector<Attribute> extents; // Sum's extents: one per column that is not `once` ([1] where none)
};

/// The sums of one nest of loops of the finalization (one foreach of the columns, or a reduction over
/// them): spread by one nest in the group, so they share the member's reads of a column.
struct Nest {
  SmallVector<Column> columns; // outermost first
  SmallVector<Sum> sums;
  bool stored = false; // every sum stored at its one foreach's index: Sum spans that view axis

  /// Whether `c`'s index is a coordinate of the nest's workspaces (a column running once is not).
  bool coordinate(const Column &c) const { return stored || !c.once; }
};

/// One finalization this pass rewrites: every sum of each of its nests (a LayerNorm backward's dw and
/// db, one foreach over the columns; a load-balance loss's per-expert counts and mean probabilities,
/// read by a sum over the experts).
struct Candidate {
  LastProgramOp last;
  ExecutionGroupOp group;
  SmallVector<Nest> nests;
};

/// Whether `v` is available inside `group` (defined outside `last`, in a region enclosing the group).
bool availableIn(Value v, ExecutionGroupOp group) {
  return v.getParentRegion()->isAncestor(group->getParentRegion());
}

/// Whether `v` is the constant index `c`.
bool isIndex(Value v, int64_t c) {
  APInt i;
  return matchPattern(v, m_ConstantInt(&i)) && i.getSExtValue() == c;
}

/// Whether `reduce` is over the group's members [0, E) (a candidate sum; the checks say whether it
/// is one this pass spreads).
bool overMembers(RangeReduceOp reduce, ExecutionGroupOp group) {
  Value E = group.getExtents()[0];
  return isZero(reduce.getLower()) && (reduce.getUpper() == E || sameLaunchValue(reduce.getUpper(), E));
}

/// The checks of one sum `reduce` inside `columns` of a finalization beside `group`, or why not.
LogicalResult matchSum(RangeReduceOp reduce, ArrayRef<Column> columns, ExecutionGroupOp group, std::string &why) {
  auto fail = [&](const Twine &w) {
    why = w.str();
    return failure();
  };
  BlockArgument m = group.getBody().front().getArgument(0);
  if (reduce.getNumResults() != 1 || !overMembers(reduce, group))
    return fail("the reduce is not one sum over the group's members [0, E)");
  Type element = reduce.getResult(0).getType();
  if (!(element.isF32() || element.isInteger(32) || element.isInteger(64)))
    return fail("the sum's element type is not f32, i32 or i64 (atomic add)");
  BinaryOp add = singleBinaryCombine(reduce.getCombine().front());
  if (!add || add.getKind() != kir::BinaryKind::Add || !isZero(reduce.getIdentities()[0]))
    return fail("the reduce is not a sum from zero");
  for (const Column &c : columns)
    if (!availableIn(c.lower, group) || !availableIn(c.upper, group))
      return fail("the foreach's bounds are computed in the finalization");
  // The element: no writes; reads of views nothing writes, and of buffers the group writes at [m] only.
  Block &body = reduce.getElement().front();
  BlockArgument r = body.getArgument(0);
  auto isColumn = [&](Value v) { return llvm::any_of(columns, [&](const Column &c) { return c.index == v; }); };
  std::string bad;
  body.walk([&](Operation *op) {
    if (!bad.empty())
      return;
    for (Value v : op->getOperands())
      if (!isColumn(v) && !reduce.getElement().isAncestor(v.getParentRegion()) && !availableIn(v, group))
        bad = "the element uses a value the finalization computes";
    if (auto load = dyn_cast<LoadOp>(op)) {
      for (Operation *user : load.getView().getUsers())
        if (!isa<LoadOp>(user) && (isa<StoreOp, ScatterOp, ScatterReduceOp, AtomicRMWOp, AtomicCASOp,
                                       AtomicStoreOp, AtomicLoadOp>(user)))
          bad = "the element reads a view the kernel writes";
      return;
    }
    if (auto read = dyn_cast<BufferLoadOp>(op)) {
      auto buf = dyn_cast<BlockArgument>(read.getBuffer());
      if (!buf || !isa<KernelOp>(buf.getOwner()->getParentOp()) || read.getCoords().size() != 1 ||
          read.getCoords()[0] != r || !isTrue(read.getValid())) {
        bad = "the element reads a buffer other than at [the reduced index]";
        return;
      }
      for (Operation *user : buf.getUsers()) {
        if (isa<BufferLoadOp>(user))
          continue;
        auto w = dyn_cast<BufferStoreOp>(user);
        if (!w || w->getBlock() != &group.getBody().front() || w.getCoords().size() != 1 ||
            w.getCoords()[0] != m || !isTrue(w.getValid()) || w.getBuffer() != read.getBuffer())
          bad = "the buffer it reads is not written by unconditional group stores at [the member]";
      }
      return;
    }
    if (!isMemoryEffectFree(op) && !isa<RangeReduceOp, ReduceOp>(op) && op->getNumRegions() == 0)
      bad = "the element has effects other than reads";
  });
  if (!bad.empty())
    return fail(bad);
  return success();
}

/// Where the sum `reduce` in the foreach of `columns` is the only user of one unconditional store
/// at the foreach's index: the stored view's axis there (its workspace's extent; the foreach a
/// coordinate even where it runs once).
std::optional<Attribute> storedExtent(RangeReduceOp reduce, ArrayRef<Column> columns) {
  Value sum = reduce.getResult(0);
  if (columns.size() != 1 || !isa<ForeachOp>(columns[0].loop) || !sum.hasOneUse())
    return std::nullopt;
  auto store = dyn_cast<StoreOp>(*sum.getUsers().begin());
  if (!store || store->getBlock() != reduce->getBlock() || !isTrue(store.getValid()))
    return std::nullopt;
  auto pos = llvm::find(store.getCoords(), columns[0].index);
  if (pos == store.getCoords().end())
    return std::nullopt;
  return cast<ViewType>(store.getView().getType()).getExtents()[pos - store.getCoords().begin()];
}

/// The extents of the workspace of the sums inside `columns` (not stored at a foreach's index): one
/// per column that runs more than once, its upper bound (columns from 0: a constant, else a
/// `pgpu.workspace_extent` of it bound before the program space, one per bound: `symbols`), [1]
/// where none does; or why not. Builds nothing without `symbols` (the check of the match).
FailureOr<SmallVector<Attribute>> columnExtents(ArrayRef<Column> columns, ProgramSpaceOp space, std::string &why,
                                                DenseMap<Value, Attribute> *symbols) {
  MLIRContext *ctx = space.getContext();
  auto kernel = space->getParentOfType<KernelOp>();
  SmallVector<Attribute> extents;
  for (const Column &c : columns) {
    if (c.once)
      continue;
    if (!isZero(c.lower)) {
      why = "a loop around the sum does not start at 0";
      return failure();
    }
    APInt upper;
    if (matchPattern(c.upper, m_ConstantInt(&upper))) {
      extents.push_back(IntegerAttr::get(IntegerType::get(ctx, 64), std::max<int64_t>(upper.getSExtValue(), 0)));
      continue;
    }
    // A symbol bound to max(upper, 0) before the space (the runtime sizes the workspace from it).
    if (!symbols) {
      extents.push_back(Attribute());
      continue;
    }
    if (Attribute known = symbols->lookup(c.upper)) {
      extents.push_back(known);
      continue;
    }
    OpBuilder k(space);
    IRMapping hoisted;
    Value hi = hoistLaunchValue(k, space, c.upper, hoisted);
    Value size = build::bin(k, c.loop->getLoc(), kir::BinaryKind::Max, hi, build::index(k, c.loop->getLoc(), 0));
    std::string name = "MEMBER_COLUMNS";
    for (unsigned i = 1; workspaceExtent(kernel, name); ++i)
      name = "MEMBER_COLUMNS" + std::to_string(i);
    WorkspaceExtentOp::create(k, c.loop->getLoc(), name, size);
    extents.push_back(StringAttr::get(ctx, name));
    (*symbols)[c.upper] = extents.back();
  }
  if (extents.empty())
    extents.push_back(IntegerAttr::get(IntegerType::get(ctx, 64), 1));
  return extents;
}

/// Collects into `found` the sums over the group's members in `block` (a foreach's body, or a
/// reduction's element, inside `columns`) and in the reductions around them; fails on a reduce over
/// the members that is not one this pass spreads.
LogicalResult collect(Block &block, SmallVector<Column> &columns, ExecutionGroupOp group,
                      SmallVector<std::pair<SmallVector<Column>, RangeReduceOp>> &found, std::string &why) {
  for (Operation &op : block.without_terminator()) {
    auto reduce = dyn_cast<RangeReduceOp>(op);
    if (!reduce)
      continue;
    if (overMembers(reduce, group)) {
      if (failed(matchSum(reduce, columns, group, why)))
        return failure();
      found.push_back({columns, reduce});
      continue;
    }
    // A reduction over another range (the columns: a sum over the experts of per-expert sums over
    // the rows) whose element may hold sums over the members at its index.
    Block &elem = reduce.getElement().front();
    columns.push_back({reduce, elem.getArgument(0), reduce.getLower(), reduce.getUpper(),
                       isZero(reduce.getLower()) && isIndex(reduce.getUpper(), 1)});
    LogicalResult inner = collect(elem, columns, group, found, why);
    columns.pop_back();
    if (failed(inner))
      return failure();
  }
  return success();
}

/// The candidate of `last`, or why not.
FailureOr<Candidate> match(KernelOp kernel, LastProgramOp last, std::string &why) {
  auto fail = [&](const Twine &w) {
    why = w.str();
    return failure();
  };
  auto space = dyn_cast<ProgramSpaceOp>(last->getParentOp());
  if (last.isTicketed() || !space)
    return fail("not a whole-space finalization");
  ExecutionGroupOp group = soleExecutionGroup(space, /*finalization=*/true);
  if (!group || group.getExtents().size() != 1)
    return fail("the program space does not dispatch to one execution group of one axis");
  // The finalization: pure code and foreaches; every reduce over [0, E) in a foreach (or in a
  // reduction there) is a sum this pass spreads.
  Candidate c{last, group, {}};
  SmallVector<std::pair<SmallVector<Column>, RangeReduceOp>> found;
  for (Operation &op : last.getBody().front().without_terminator()) {
    if (auto f = dyn_cast<ForeachOp>(op)) {
      Block &body = f.getBody().front();
      SmallVector<Column> columns{
          {f, body.getArgument(0), f.getLower(), f.getUpper(), isZero(f.getLower()) && isIndex(f.getUpper(), 1)}};
      if (failed(collect(body, columns, group, found, why)))
        return failure();
      continue;
    }
    if (!isMemoryEffectFree(&op))
      return fail("the finalization has effects outside its foreaches");
  }
  if (found.empty())
    return fail("no reduce in a foreach of the finalization");
  // One nest per chain of loops, in the order the sums come.
  for (auto &[columns, reduce] : found) {
    auto same = [&](const Nest &n) {
      return n.columns.size() == columns.size() &&
             llvm::all_of(llvm::zip(n.columns, columns),
                          [](auto p) { return std::get<0>(p).loop == std::get<1>(p).loop; });
    };
    auto *nest = llvm::find_if(c.nests, same);
    if (nest == c.nests.end()) {
      c.nests.push_back({columns, {}});
      nest = c.nests.end() - 1;
    }
    nest->sums.push_back({reduce, {}});
  }
  for (Nest &nest : c.nests) {
    nest.stored = llvm::all_of(nest.sums, [&](Sum &s) { return storedExtent(s.reduce, nest.columns).has_value(); });
    if (!nest.stored && failed(columnExtents(nest.columns, space, why, nullptr)))
      return failure();
  }
  return c;
}

/// The zero of a sum's element type.
TypedAttr zeroOf(Type element) {
  return isa<FloatType>(element) ? TypedAttr(FloatAttr::get(element, 0.0)) : TypedAttr(IntegerAttr::get(element, 0));
}

void rewrite(KernelOp kernel, Candidate c) {
  MLIRContext *ctx = kernel.getContext();
  Location loc = c.last.getLoc();
  Block &groupBody = c.group.getBody().front();
  llvm::SetVector<Value> read;
  auto space = cast<ProgramSpaceOp>(c.last->getParentOp());
  DenseMap<Value, Attribute> symbols;
  std::string why;
  for (Nest &nest : c.nests) {
    for (Sum &s : nest.sums)
      s.extents = nest.stored ? SmallVector<Attribute>{*storedExtent(s.reduce, nest.columns)}
                              : *columnExtents(nest.columns, space, why, &symbols);
    // Each instance m adds f(m, n) of every sum for every column n as it finishes: one nest of
    // foreaches per finalization nest, so the sums of one column share the member's reads of it.
    OpBuilder b = OpBuilder::atBlockTerminator(&groupBody);
    IRMapping columnMap; // a finalization column's index -> the spread's (0 where it runs once)
    SmallVector<Value> coords;
    for (const Column &col : nest.columns) {
      if (!nest.coordinate(col)) {
        columnMap.map(col.index, col.lower);
        continue;
      }
      auto spread = ForeachOp::create(b, col.loop->getLoc(), col.lower, col.upper);
      Block *body = b.createBlock(&spread.getBody());
      Value n = body->addArgument(b.getIndexType(), col.loop->getLoc());
      columnMap.map(col.index, n);
      coords.push_back(n);
      YieldOp::create(b, loc);
      b.setInsertionPoint(body->getTerminator());
    }
    SmallVector<Value> workspaces;
    for (Sum &s : nest.sums) {
      RangeReduceOp reduce = s.reduce;
      Type element = reduce.getResult(0).getType();
      Value sum = addWorkspace(kernel, loc, element, s.extents, zeroOf(element));
      kernel.setArgAttr(cast<BlockArgument>(sum).getArgNumber(), "pgpu.kept", UnitAttr::get(ctx));
      workspaces.push_back(sum);
      IRMapping map = columnMap;
      Block &elem = reduce.getElement().front();
      map.map(elem.getArgument(0), groupBody.getArgument(0));
      for (Operation &op : elem.without_terminator()) {
        // A read of what this member stored at [m] (match: the buffer's only writes are unconditional
        // top-level group stores at [m]) is the value of its last such store, not a reload: a store and
        // a later load of one address by one program are ordered only within a thread, and a scalar is
        // stored by one thread but read by all (Triton: no barrier between them; the H100 run of corpus
        // 60/60_b read stale rows). The stored value dominates the group's end, where the spread sits.
        if (auto load = dyn_cast<BufferLoadOp>(op)) {
          BufferStoreOp last;
          for (Operation *user : load.getBuffer().getUsers())
            if (auto w = dyn_cast<BufferStoreOp>(user); w && (!last || last->isBeforeInBlock(w)))
              last = w;
          map.map(load.getResult(), last.getValue());
          continue;
        }
        b.clone(op, map);
      }
      Value v = map.lookup(cast<YieldOp>(elem.getTerminator()).getOperand(0));
      Value yes = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
      SmallVector<Value> at(coords);
      if (at.empty())
        at.push_back(arith::ConstantIndexOp::create(b, loc, 0));
      auto merge = ScatterReduceOp::create(b, reduce.getLoc(), v, sum, at, yes);
      OpBuilder::InsertionGuard inner(b);
      Block *combine = b.createBlock(&merge.getCombine());
      Value l = combine->addArgument(element, loc), r = combine->addArgument(element, loc);
      Value a = BinaryOp::create(b, loc, kir::BinaryKind::Add, l, r, false, false);
      YieldOp::create(b, loc, a);
    }
    // The last instance reads each merged sum and returns its workspace to zero: beside the read
    // where the sum sits in a foreach, else (a reduction's element is pure) by a nest of foreaches
    // after the outermost reduction around it.
    auto outer = llvm::find_if(nest.columns, [](const Column &col) { return isa<RangeReduceOp>(col.loop); });
    for (auto [s, sum] : llvm::zip(nest.sums, workspaces)) {
      RangeReduceOp reduce = s.reduce;
      Type element = reduce.getResult(0).getType();
      b.setInsertionPoint(reduce);
      SmallVector<Value> at;
      for (const Column &col : nest.columns)
        if (nest.coordinate(col))
          at.push_back(col.index);
      Value fill = arith::ConstantOp::create(b, loc, zeroOf(element));
      Value ok = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
      if (at.empty())
        at.push_back(arith::ConstantIndexOp::create(b, loc, 0));
      Value merged = BufferLoadOp::create(b, loc, element, sum, at, ok, fill);
      if (outer == nest.columns.end())
        BufferStoreOp::create(b, loc, fill, sum, at, ok);
      reduce.getResult(0).replaceAllUsesWith(merged);
      reduce.getElement().walk([&](BufferLoadOp l) { read.insert(l.getBuffer()); });
      reduce.erase();
    }
    if (outer != nest.columns.end()) {
      b.setInsertionPointAfter(outer->loop);
      IRMapping zeroMap;
      for (const Column *col = outer; col != nest.columns.end(); ++col) {
        if (!nest.coordinate(*col))
          continue;
        auto zero = ForeachOp::create(b, col->loop->getLoc(), col->lower, col->upper);
        Block *body = b.createBlock(&zero.getBody());
        zeroMap.map(col->index, body->addArgument(b.getIndexType(), col->loop->getLoc()));
        YieldOp::create(b, loc);
        b.setInsertionPoint(body->getTerminator());
      }
      for (Value sum : workspaces) {
        Type element = cast<BufferType>(sum.getType()).getElementType();
        SmallVector<Value> at;
        for (const Column &col : nest.columns)
          if (nest.coordinate(col))
            at.push_back(zeroMap.lookupOrDefault(col.index));
        if (at.empty())
          at.push_back(arith::ConstantIndexOp::create(b, loc, 0));
        Value fill = arith::ConstantOp::create(b, loc, zeroOf(element));
        Value ok = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
        BufferStoreOp::create(b, loc, fill, sum, at, ok);
      }
    }
  }
  // A buffer no one reads any more (its rows were forwarded above) is not written or passed.
  for (Value buf : read) {
    if (llvm::any_of(buf.getUsers(), [](Operation *u) { return !isa<BufferStoreOp>(u); }))
      continue;
    for (Operation *u : llvm::make_early_inc_range(buf.getUsers()))
      u->erase();
    if (auto arg = dyn_cast<BlockArgument>(buf); arg && arg.use_empty())
      (void)kernel.eraseArgument(arg.getArgNumber());
  }
}

struct MemberPartials : public tessel::pgpu::impl::PGPUMemberPartialsBase<MemberPartials> {
  void runOnOperation() override {
    for (KernelOp kernel : getOperation().getOps<KernelOp>()) {
      bool remarks = remarksEnabled(kernel);
      SmallVector<LastProgramOp> lasts;
      kernel.walk([&](LastProgramOp l) { lasts.push_back(l); });
      for (LastProgramOp last : lasts) {
        std::string why;
        FailureOr<Candidate> c = match(kernel, last, why);
        if (failed(c)) {
          if (remarks && !last.isTicketed())
            last.emitRemark() << "pgpu-member-partials: not rewritten: " << why;
          continue;
        }
        if (remarks)
          for (Nest &nest : c->nests)
            for (Sum &s : nest.sums)
              emitRemark(s.reduce.getLoc())
                  << "pgpu-member-partials: this sum over the execution group's members is added by "
                     "each member as it finishes (one atomic add per element into a kept workspace "
                     "over the stored axis), not walked by the last program alone; each member's "
                     "terms read only what it wrote and inputs nothing writes";
        rewrite(kernel, *c);
      }
    }
  }
};

} // namespace
