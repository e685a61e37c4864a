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
// Fires on a whole-space pgpu.last_program beside the program space's sole
// execution group of one axis, whose body (pure code and foreaches) holds
// foreaches whose every range_reduce is over [0, E) (the group's extent) summing
// (add combine, zero identity; f32, i32 or i64) an element that writes nothing and
// reads views the kernel never writes and buffers the group writes only by
// unconditional top-level stores at [m], read at [r]; the sum's only user is an
// unconditional store at the foreach's index (Sum's extent is that view axis'),
// and the element's other operands and the foreach bounds are defined outside
// the finalization. Several sums (a LayerNorm backward's dw and db over one
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

/// One sum of a finalization this pass rewrites.
struct Sum {
  RangeReduceOp reduce;
  Attribute extent; // Sum's extent: the stored view's axis at the foreach's index
};

/// One finalization this pass rewrites: every sum of each of its foreaches (a LayerNorm backward's
/// dw and db, one foreach over the columns).
struct Candidate {
  LastProgramOp last;
  ExecutionGroupOp group;
  SmallVector<std::pair<ForeachOp, SmallVector<Sum>>> eaches;
};

/// Whether `v` is available inside `group` (defined outside `last`, in a region enclosing the group).
bool availableIn(Value v, ExecutionGroupOp group) {
  return v.getParentRegion()->isAncestor(group->getParentRegion());
}

/// The checks of one sum `reduce` in the foreach `each` of a finalization beside `group`: its extent, or why not.
FailureOr<Attribute> matchSum(RangeReduceOp reduce, ForeachOp each, ExecutionGroupOp group, std::string &why) {
  auto fail = [&](const Twine &w) {
    why = w.str();
    return failure();
  };
  Value E = group.getExtents()[0];
  BlockArgument m = group.getBody().front().getArgument(0);
  if (reduce.getNumResults() != 1 || !isZero(reduce.getLower()) ||
      !(reduce.getUpper() == E || sameLaunchValue(reduce.getUpper(), E)))
    return fail("the reduce is not one sum over the group's members [0, E)");
  Type element = reduce.getResult(0).getType();
  if (!(element.isF32() || element.isInteger(32) || element.isInteger(64)))
    return fail("the sum's element type is not f32, i32 or i64 (atomic add)");
  BinaryOp add = singleBinaryCombine(reduce.getCombine().front());
  if (!add || add.getKind() != kir::BinaryKind::Add || !isZero(reduce.getIdentities()[0]))
    return fail("the reduce is not a sum from zero");
  if (!availableIn(each.getLower(), group) || !availableIn(each.getUpper(), group))
    return fail("the foreach's bounds are computed in the finalization");
  BlockArgument n = each.getBody().front().getArgument(0);
  // The sum's one user: an unconditional store at the foreach's index (Sum spans that view axis).
  if (!reduce.getResult(0).hasOneUse())
    return fail("the sum has other users than its store");
  auto store = dyn_cast<StoreOp>(*reduce.getResult(0).getUsers().begin());
  if (!store || store->getBlock() != &each.getBody().front() || !isTrue(store.getValid()))
    return fail("the sum is not stored unconditionally in its foreach");
  auto pos = llvm::find(store.getCoords(), Value(n));
  if (pos == store.getCoords().end())
    return fail("the sum is not stored at the foreach's index");
  Attribute extent = cast<ViewType>(store.getView().getType()).getExtents()[pos - store.getCoords().begin()];
  // The element: no writes; reads of views nothing writes, and of buffers the group writes at [m] only.
  Block &body = reduce.getElement().front();
  BlockArgument r = body.getArgument(0);
  std::string bad;
  body.walk([&](Operation *op) {
    if (!bad.empty())
      return;
    for (Value v : op->getOperands())
      if (v != n && !reduce.getElement().isAncestor(v.getParentRegion()) && !availableIn(v, group))
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
  return extent;
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
  // The finalization: pure code and foreaches; every reduce in a foreach is a sum over [0, E).
  Candidate c{last, group, {}};
  for (Operation &op : last.getBody().front().without_terminator()) {
    if (auto f = dyn_cast<ForeachOp>(op)) {
      SmallVector<Sum> sums;
      for (Operation &inner : f.getBody().front().without_terminator())
        if (auto r = dyn_cast<RangeReduceOp>(inner)) {
          FailureOr<Attribute> extent = matchSum(r, f, group, why);
          if (failed(extent))
            return failure();
          sums.push_back({r, *extent});
        }
      if (!sums.empty())
        c.eaches.push_back({f, std::move(sums)});
      continue;
    }
    if (!isMemoryEffectFree(&op))
      return fail("the finalization has effects outside its foreaches");
  }
  if (c.eaches.empty())
    return fail("no reduce in a foreach of the finalization");
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
  for (auto &[each, sums] : c.eaches) {
    // Each instance m adds f(m, n) of every sum for every n as it finishes: one foreach per
    // finalization foreach, so the sums of one column share the member's reads of it.
    OpBuilder b = OpBuilder::atBlockTerminator(&groupBody);
    auto spread = ForeachOp::create(b, each.getLoc(), each.getLower(), each.getUpper());
    Block *body = b.createBlock(&spread.getBody());
    Value n = body->addArgument(b.getIndexType(), each.getLoc());
    SmallVector<Value> workspaces;
    for (Sum &s : sums) {
      RangeReduceOp reduce = s.reduce;
      Type element = reduce.getResult(0).getType();
      Value sum = addWorkspace(kernel, loc, element, {s.extent}, zeroOf(element));
      kernel.setArgAttr(cast<BlockArgument>(sum).getArgNumber(), "pgpu.kept", UnitAttr::get(ctx));
      workspaces.push_back(sum);
      IRMapping map;
      map.map(each.getBody().front().getArgument(0), n);
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
      auto merge = ScatterReduceOp::create(b, reduce.getLoc(), v, sum, ValueRange{n}, yes);
      OpBuilder::InsertionGuard inner(b);
      Block *combine = b.createBlock(&merge.getCombine());
      Value l = combine->addArgument(element, loc), r = combine->addArgument(element, loc);
      Value a = BinaryOp::create(b, loc, kir::BinaryKind::Add, l, r, false, false);
      YieldOp::create(b, loc, a);
    }
    b.setInsertionPointToEnd(body);
    YieldOp::create(b, loc);
    // The last instance reads each merged sum and returns its workspace to zero.
    for (auto [s, sum] : llvm::zip(sums, workspaces)) {
      RangeReduceOp reduce = s.reduce;
      Type element = reduce.getResult(0).getType();
      b.setInsertionPoint(reduce);
      Value at = each.getBody().front().getArgument(0);
      Value fill = arith::ConstantOp::create(b, loc, zeroOf(element));
      Value ok = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
      Value merged = BufferLoadOp::create(b, loc, element, sum, ValueRange{at}, ok, fill);
      BufferStoreOp::create(b, loc, fill, sum, ValueRange{at}, ok);
      reduce.getResult(0).replaceAllUsesWith(merged);
      reduce.getElement().walk([&](BufferLoadOp l) { read.insert(l.getBuffer()); });
      reduce.erase();
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
          for (auto &[each, sums] : c->eaches)
            for (Sum &s : sums)
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
