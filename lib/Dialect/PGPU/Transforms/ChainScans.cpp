//===- ChainScans.cpp - region scans chained across program instances ------===//
//
// seed 002 §3.4 (region-scan realization creates actual fragments, loops,
// carries), §3.2 (rewrite the program space: logical ownership of each
// program instance), seed 000 §4.4 (invocation workspace), §8 (region scan:
// summarizer, incoming-state application, slice emitter, final-state flow).
//
// The ordered realization (pgpu-realize-folds) walks a region scan's segments
// in one program: the state is a chain of `apply`s, but so is every segment's
// `emit`, the bulk of the work, so one program per point of the parallel
// space does it all (64 programs for linear attention's B*H on 132
// multiprocessors). The chained realization gives each segment its own
// program instance: the program space gains a leading (slowest) axis over
// the segments, and segment c's program
//
//   * summarizes its segment first (in parallel with every other segment: its
//     reads and contractions overlap the wait below),
//   * takes the state before it from segment c - 1's program: waits (acquire)
//     until the per-point flag in workspace counts c, reads the state from
//     a two-slot ring of workspace fragments,
//   * applies its transition and, unless it is the last segment, publishes
//     the state after it in the other slot and releases the flag (c + 1),
//   * emits its segment from the state before it (in parallel again).
//
// Only `apply` runs in order and in source order (no reassociation: seed 002
// §4 keeps the scan's member order), so the results are the ordered loop's.
// A ring of two slots suffices: segment c + 1 overwrites slot (c - 1) % 2
// only after it has acquired segment c's release, which follows segment c's
// read of that slot. Waiting needs the predecessor to have started: the
// segment axis is the slowest of the program space, and a program space
// that waits (an acquire atomic read in a pgpu.while) starts its instances
// in linear order (CUDA starts thread blocks so, as single-pass scans rely
// on; the interpreter runs such a space so).
//
// The decision is the declared parameter SCAN_CHAIN ([1, 2]; a shared parameter is positive; default 1:
// on the H200 the chained kernel is correct and the faster realization at tuned tiles, bf16 linear
// attention 2.9x fla, but at BLOCK_T = 64 an f32 state with IEEE products spills, 10 ms against the ordered
// loop's 4 ms (session 10); a call's default is 2 where
// the ordered programs are fewer than the multiprocessors, python/tessel/_kernel.py `_scan_chain`, and
// the Triton provider defaults such an FMA-spelled scan's tile to 16): the number of program instances that share
// a point's segments is 1 + (SCAN_CHAIN - 1) * (segments - 1), so under 1 the
// segment axis has one member and the ordered realization runs, under 2 each
// segment has its program (the tuner measures both, seed 003 search test). Everything else with
// effects in the program runs once per point: under the first segment, or
// the last when it uses the scan's final state.
//
// Fires on a program space with one execution group whose region scans (one
// or more, in pgpu.if branches only) share launch-uniform bounds, whose
// group extents and state fragment extents can size workspace (view extents,
// constants, parameters), and whose other effects have no results. Must not
// fire otherwise (a scan inside a loop, data-dependent bounds, a state of
// another shape, an effect whose result is used).
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "ArrivalCounters.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUCHAINSCANS
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;
using namespace tessel::pgpu::build;

namespace {
constexpr llvm::StringLiteral kChainParam = "SCAN_CHAIN";

/// The workspace extent of a launch-uniform group extent: a view extent's symbol (through
/// max(x, 0) and ceil_div(x, 1), which leave an extent unchanged) or a constant.
std::optional<Attribute> extentSymbol(Value v) {
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return Attribute(IntegerAttr::get(IntegerType::get(v.getContext(), 64), c.getSExtValue()));
  if (auto e = v.getDefiningOp<ExtentOp>())
    return cast<ViewType>(e.getView().getType()).getExtents()[e.getAxis()];
  if (auto m = v.getDefiningOp<BinaryOp>(); m && m.getKind() == kir::BinaryKind::Max) {
    if (isZeroConstant(m.getRhs()))
      return extentSymbol(m.getLhs());
    if (isZeroConstant(m.getLhs()))
      return extentSymbol(m.getRhs());
  }
  if (auto d = v.getDefiningOp<CeilDivOp>(); d && matchPattern(d.getRhs(), m_One()))
    return extentSymbol(d.getLhs());
  return std::nullopt;
}

/// The outermost ops of `block` (and of the regions of ops holding a region scan) that write memory
/// and hold no region scan: what must run once per point of the parallel space.
SmallVector<Operation *> effectsOutsideScans(Block &block) {
  SmallVector<Operation *> out;
  for (Operation &op : block) {
    if (isa<RegionScanOp>(op) || !writesMemory(&op))
      continue;
    bool holdsScan = false;
    op.walk([&](RegionScanOp) { holdsScan = true; });
    if (!holdsScan) {
      out.push_back(&op);
      continue;
    }
    for (Region &r : op.getRegions())
      for (Block &inner : r)
        llvm::append_range(out, effectsOutsideScans(inner));
  }
  return out;
}

struct Plan {
  ProgramSpaceOp space;
  ExecutionGroupOp group;
  SmallVector<RegionScanOp> scans;
  SmallVector<Attribute> groupExtents; // workspace extents of the group's axes
};

/// Why `space` cannot be chained, or nullopt with `plan` filled.
std::optional<std::string> analyze(KernelOp kernel, ProgramSpaceOp space, Plan &plan) {
  if (space.getExtents().size() != 1)
    return std::string("the program space is not one-dimensional");
  ExecutionGroupOp group = soleExecutionGroup(space, /*finalization=*/false);
  if (!group)
    return std::string("the program space has several execution groups");
  plan.space = space;
  plan.group = group;
  group.walk([&](RegionScanOp s) { plan.scans.push_back(s); });
  if (plan.scans.empty())
    return std::string("no region scan");
  for (RegionScanOp s : plan.scans) {
    for (Operation *p = s->getParentOp(); p != group; p = p->getParentOp())
      if (!isa<IfOp>(p))
        return std::string("a region scan runs inside a loop or structured op ('") +
               p->getName().getStringRef().str() + "'): its segments are not the program's";
    for (Value v : {s.getLower(), s.getUpper(), s.getStep()})
      if (!isLaunchExpr(v))
        return std::string("a region scan's bounds are not launch-uniform");
    RegionScanOp first = plan.scans.front();
    if (!sameLaunchValue(s.getLower(), first.getLower()) || !sameLaunchValue(s.getUpper(), first.getUpper()) ||
        !sameLaunchValue(s.getStep(), first.getStep()))
      return std::string("the region scans have different segments");
    for (Type t : s.getFinals().getTypes()) {
      if (t.isIntOrIndexOrFloat() && !t.isIndex())
        continue;
      auto f = dyn_cast<FragmentType>(t);
      if (!f || f.getElementType().isIndex())
        return std::string("a state component is not a numeric scalar or fragment");
      for (Attribute e : f.getExtents())
        if (auto name = dyn_cast<StringAttr>(e); name && !kernel.getParam(name.getValue()))
          return std::string("a state fragment's extent is neither static nor a parameter");
    }
  }
  for (Value e : group.getExtents()) {
    std::optional<Attribute> symbol = extentSymbol(e);
    if (!symbol)
      return std::string("a program axis is not a view extent or a constant (it cannot size workspace)");
    plan.groupExtents.push_back(*symbol);
  }
  for (Operation *op : effectsOutsideScans(group.getBody().front()))
    if (op->getNumResults())
      return std::string("an effect ('") + op->getName().getStringRef().str() +
             "') has results: it cannot run under one segment only";
  return std::nullopt;
}


/// A zero of scalar or fragment type `t` (a stand-in that is never used).
Value zeroOf(OpBuilder &b, Location loc, Type t) {
  Type element = elementTypeOf(t);
  Value zero = isa<FloatType>(element) ? Value(arith::ConstantOp::create(b, loc, FloatAttr::get(element, 0.0)))
                                       : Value(arith::ConstantOp::create(b, loc, IntegerAttr::get(element, 0)));
  return isa<FragmentType>(t) ? Value(SplatOp::create(b, loc, t, zero)) : zero;
}

struct Chain {
  KernelOp kernel;
  Plan &plan;
  Value chunk, count;     // this program's segment, the segment count (1 under SCAN_CHAIN = 1)
  SmallVector<Value> point; // the group's original coordinates
  Value flags;

  /// Replaces `s` by `if SCAN_CHAIN != 1 { chained } else { s }` and returns that if.
  IfOp rewrite(RegionScanOp s) {
    OpBuilder b(s);
    Location loc = s.getLoc();
    MLIRContext *ctx = b.getContext();
    TypeRange types = s.getFinals().getTypes();
    // The state ring: [group axes..., 2, component axes...] per component.
    SmallVector<Value> rings;
    for (Type t : types) {
      SmallVector<Attribute> extents(plan.groupExtents);
      extents.push_back(IntegerAttr::get(IntegerType::get(ctx, 64), 2));
      if (auto f = dyn_cast<FragmentType>(t))
        llvm::append_range(extents, f.getExtents());
      rings.push_back(addWorkspace(kernel, loc, elementTypeOf(t), extents, TypedAttr()));
    }
    Value chained = cmp(b, loc, kir::CmpPredicate::NE, ParamOp::create(b, loc, b.getIndexType(), kChainParam),
                        index(b, loc, 1));
    auto choice = IfOp::create(b, loc, types, chained);
    {
      OpBuilder::InsertionGuard guard(b);
      // The ordered loop, in the segment axis's one program (its writes are that program's).
      b.createBlock(&choice.getElseRegion());
      auto only = IfOp::create(b, loc, types, cmp(b, loc, kir::CmpPredicate::EQ, chunk, index(b, loc, 0)));
      YieldOp::create(b, loc, only.getResults());
      b.createBlock(&only.getThenRegion());
      RegionScanOp ordered = cast<RegionScanOp>(b.clone(*s.getOperation()));
      YieldOp::create(b, loc, ordered.getFinals());
      b.createBlock(&only.getElseRegion());
      YieldOp::create(b, loc, s.getInits());
      b.createBlock(&choice.getThenRegion());
      YieldOp::create(b, loc, chainedBody(b, loc, s, rings));
    }
    s.replaceAllUsesWith(choice.getResults());
    s.erase();
    return choice;
  }

  SmallVector<Value> chainedBody(OpBuilder &b, Location loc, RegionScanOp s, ArrayRef<Value> rings) {
    TypeRange types = s.getFinals().getTypes();
    Value zero = index(b, loc, 0), one = index(b, loc, 1), two = index(b, loc, 2);
    Value begin = bin(b, loc, kir::BinaryKind::Add, s.getLower(), bin(b, loc, kir::BinaryKind::Mul, chunk, s.getStep()));
    Value end = bin(b, loc, kir::BinaryKind::Min, bin(b, loc, kir::BinaryKind::Add, begin, s.getStep()), s.getUpper());
    Value nonEmpty = cmp(b, loc, kir::CmpPredicate::LT, begin, end);
    Value yes = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
    auto slot = [&](Value at) {
      SmallVector<Value> lead(point);
      lead.push_back(bin(b, loc, kir::BinaryKind::Rem, at, two));
      return lead;
    };
    // The segment's summary first, before waiting: it needs nothing from segment c - 1, so its reads
    // and contractions overlap the wait instead of lengthening the chain (every link of which is
    // then acquire, read the state, apply, publish). An empty segment's summary is never applied:
    // zeros stand in for it.
    SmallVector<Value> summarizeArgs{begin, end};
    llvm::append_range(summarizeArgs, s.getCaptures());
    Block &summarizer = s.getSummarize().front();
    TypeRange summaryTypes = summarizer.getTerminator()->getOperandTypes();
    auto summary = IfOp::create(b, loc, summaryTypes, nonEmpty);
    {
      OpBuilder::InsertionGuard guard(b);
      b.createBlock(&summary.getThenRegion());
      YieldOp::create(b, loc, inlineBlock(b, summarizer, summarizeArgs));
      b.createBlock(&summary.getElseRegion());
      SmallVector<Value> unused;
      for (Type t : summaryTypes)
        unused.push_back(zeroOf(b, loc, t));
      YieldOp::create(b, loc, unused);
    }
    // The state before this segment: the inits, or what segment c - 1 published.
    auto before = IfOp::create(b, loc, types, cmp(b, loc, kir::CmpPredicate::EQ, chunk, zero));
    {
      OpBuilder::InsertionGuard guard(b);
      b.createBlock(&before.getThenRegion());
      YieldOp::create(b, loc, s.getInits());
      b.createBlock(&before.getElseRegion());
      buildArrivalWait(b, loc, flags, point, chunk, yes);
      SmallVector<Value> lead = slot(bin(b, loc, kir::BinaryKind::Add, chunk, one));
      SmallVector<Value> state;
      for (auto [t, ring] : llvm::zip(types, rings)) {
        Value fill = zeroOf(b, loc, elementTypeOf(t));
        state.push_back(BufferLoadOp::create(b, loc, t, ring, componentCoords(b, loc, lead, t), yes, fill));
      }
      YieldOp::create(b, loc, state);
    }
    // The state after it: the summary applied (an empty segment leaves it).
    auto after = IfOp::create(b, loc, types, nonEmpty);
    {
      OpBuilder::InsertionGuard guard(b);
      b.createBlock(&after.getThenRegion());
      SmallVector<Value> applyArgs(summary.getResults());
      llvm::append_range(applyArgs, before.getResults());
      YieldOp::create(b, loc, inlineBlock(b, s.getApply().front(), applyArgs));
      b.createBlock(&after.getElseRegion());
      YieldOp::create(b, loc, before.getResults());
    }
    // Publish it for segment c + 1 (not after the last segment).
    Value next = bin(b, loc, kir::BinaryKind::Add, chunk, one);
    auto publish = IfOp::create(b, loc, TypeRange{}, cmp(b, loc, kir::CmpPredicate::LT, next, count));
    {
      OpBuilder::InsertionGuard guard(b);
      b.createBlock(&publish.getThenRegion());
      SmallVector<Value> lead = slot(chunk);
      for (auto [v, ring] : llvm::zip(after.getResults(), rings))
        BufferStoreOp::create(b, loc, v, ring, componentCoords(b, loc, lead, v.getType()), yes);
      AtomicStoreOp::create(b, loc, CastOp::create(b, loc, b.getI32Type(), next), flags, point, yes,
                            kir::AtomicOrder::Release, kir::SharingDomain::Invocation);
      YieldOp::create(b, loc);
    }
    // Emit the segment from the state before it.
    auto emit = IfOp::create(b, loc, TypeRange{}, nonEmpty);
    {
      OpBuilder::InsertionGuard guard(b);
      b.createBlock(&emit.getThenRegion());
      SmallVector<Value> emitArgs{begin, end};
      llvm::append_range(emitArgs, before.getResults());
      llvm::append_range(emitArgs, s.getCaptures());
      inlineBlock(b, s.getEmit().front(), emitArgs);
      YieldOp::create(b, loc);
    }
    return after.getResults();
  }
};

/// Values computed from the scans' results inside the group.
DenseSet<Value> stateSlice(ArrayRef<Operation *> roots) {
  DenseSet<Value> out;
  SmallVector<Value> work;
  for (Operation *r : roots)
    llvm::append_range(work, r->getResults());
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!out.insert(v).second)
      continue;
    for (Operation *user : v.getUsers())
      llvm::append_range(work, user->getResults());
  }
  return out;
}

struct ChainScans : public tessel::pgpu::impl::PGPUChainScansBase<ChainScans> {
  void runOnOperation() override {
    for (KernelOp kernel : getOperation().getOps<KernelOp>()) {
      SmallVector<ProgramSpaceOp> spaces(kernel.getBody().getOps<ProgramSpaceOp>());
      if (spaces.size() != 1)
        continue;
      bool remarks = remarksEnabled(kernel);
      Plan plan;
      if (std::optional<std::string> why = analyze(kernel, spaces[0], plan)) {
        if (remarks && !plan.scans.empty())
          plan.scans.front().emitRemark() << "pgpu-chain-scans: not chained: " << *why;
        continue;
      }
      chain(kernel, plan);
      if (remarks)
        plan.space.emitRemark() << "pgpu-chain-scans: " << plan.scans.size()
                                << " region scan(s) chained across program instances, one per segment (a leading "
                                   "program axis; the state handed on through workspace under "
                                << kChainParam << ")";
    }
  }

  void chain(KernelOp kernel, Plan &plan) {
    MLIRContext *ctx = kernel.getContext();
    RegionScanOp first = plan.scans.front();
    Location loc = first.getLoc();
    ProgramSpaceOp space = plan.space;
    ExecutionGroupOp group = plan.group;
    // The segment count, before the program space: 1 + (SCAN_CHAIN - 1) * (max(ceil_div(U - L, S), 1) - 1).
    OpBuilder b(space);
    IRMapping map;
    auto hoist = [&](Value v) { return hoistLaunchValue(b, space, v, map); };
    Value lower = hoist(first.getLower()), upper = hoist(first.getUpper()), step = hoist(first.getStep());
    Value span = isZeroConstant(lower) ? upper : bin(b, loc, kir::BinaryKind::Sub, upper, lower);
    Value segments = bin(b, loc, kir::BinaryKind::Max, CeilDivOp::create(b, loc, span, step).getResult(),
                         index(b, loc, 1));
    Value chainParam = ParamOp::create(b, loc, b.getIndexType(), kChainParam);
    Value count = bin(b, loc, kir::BinaryKind::Add, index(b, loc, 1),
                      bin(b, loc, kir::BinaryKind::Mul, bin(b, loc, kir::BinaryKind::Sub, chainParam, index(b, loc, 1)),
                          bin(b, loc, kir::BinaryKind::Sub, segments, index(b, loc, 1))));
    space->setOperand(0, bin(b, loc, kir::BinaryKind::Mul, space.getExtents()[0], count));
    // The segment axis leads the group (slowest: every point's segment c starts before any c + 1).
    SmallVector<Value> extents{count};
    llvm::append_range(extents, group.getExtents());
    group.getExtentsMutable().assign(extents);
    SmallVector<Attribute> roles{StringAttr::get(ctx, "segments")};
    llvm::append_range(roles, group.getRoles());
    group.setRolesAttr(ArrayAttr::get(ctx, roles));
    Block &body = group.getBody().front();
    SmallVector<Value> point(body.getArguments());
    Value chunk = body.insertArgument(0u, b.getIndexType(), loc);
    // Per point: how many segments have published their state (the runtime fills 0).
    Value flags = addZeroedCounters(kernel, loc, plan.groupExtents);
    // Declare the decision.
    declareParam(kernel, ParamAttr::get(ctx, StringAttr::get(ctx, kChainParam), {1, 2}, 1, StringAttr()));

    // Effects outside the scans run once per point: the last segment's program when they use a
    // final state, the first's otherwise.
    SmallVector<Operation *> guarded = effectsOutsideScans(body);
    Chain c{kernel, plan, chunk, count, point, flags};
    SmallVector<Operation *> roots;
    for (RegionScanOp s : plan.scans)
      roots.push_back(c.rewrite(s));
    DenseSet<Value> slice = stateSlice(roots);
    OpBuilder at(&body, body.begin());
    Value firstSeg = cmp(at, loc, kir::CmpPredicate::EQ, chunk, index(at, loc, 0));
    Value lastSeg = cmp(at, loc, kir::CmpPredicate::EQ, bin(at, loc, kir::BinaryKind::Add, chunk, index(at, loc, 1)),
                        count);
    for (Operation *op : guarded) {
      bool usesState = false;
      op->walk([&](Operation *inner) {
        for (Value v : inner->getOperands())
          usesState |= slice.contains(v);
      });
      guardEffect(op, usesState ? lastSeg : firstSeg);
    }
  }
};
} // namespace
