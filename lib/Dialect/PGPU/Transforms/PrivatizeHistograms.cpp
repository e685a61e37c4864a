//===- PrivatizeHistograms.cpp - privatized counts of constant scatter-adds -===//
//
// seed 000 §8 (histogram), §9 (conflicts across instances resolved only by
// atomic/scatter-reduction semantics), seed 002 §3.4. A blocked loop that
// scatter-adds a constant at data-dependent coordinates sends one atomic per
// lane to memory every program shares; when the target is small, the same
// sum is the per-coordinate count of the loop's active lanes, carried in the
// program as a `pgpu.histogram` fragment and added once per coordinate after
// the loop. The choice is a launch fact (the target's extent against the
// declared HBINS times HPASSES): the original loop stays as the other branch.
// A target of more than HBINS bins is counted in passes over bin ranges of
// HBINS (bin-range tiling): each pass reads the program's elements again and
// counts those in its range, so a partial that fits the provider's fast
// memory (a Triton fragment, PTX shared memory) covers more bins than it holds.
// A target of higher rank is counted along its last axis where the other
// coordinates are scalars fixed for the whole loop (a member's row of bins,
// kir-to-pgpu's per-row histograms): the merge adds into that row.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUPRIVATIZEHISTOGRAMS
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

namespace {
constexpr llvm::StringLiteral kBinsParam = "HBINS";
constexpr llvm::StringLiteral kPassesParam = "HPASSES";
constexpr llvm::StringLiteral kBlockP = "BLOCK_P";

/// A constant scatter-add the pass can count instead: its loop, the constant and the target's extent.
struct Candidate {
  ScatterReduceOp write;
  ForOp loop;
  IntegerAttr constant;
  Attribute extent;              // the target's last extent: a static size or a shape symbol
  SmallVector<Value> uniform;    // the coordinates before the last: scalars defined before the loop
};

/// The scalar `coord` is across the loop's lanes and iterations (itself, or what it splats), defined
/// before `loop`; null otherwise.
Value loopUniform(Value coord, ForOp loop) {
  if (auto splat = coord.getDefiningOp<SplatOp>())
    coord = splat.getOperand();
  if (isa<FragmentType>(coord.getType()) || loop->isAncestor(coord.getParentRegion()->getParentOp()))
    return {};
  return coord;
}

/// The integer constant `v` splats (or is), else null.
IntegerAttr splatConstant(Value v) {
  if (auto splat = v.getDefiningOp<SplatOp>())
    v = splat.getOperand();
  IntegerAttr value;
  if (!matchPattern(v, m_Constant(&value)))
    return {};
  return value;
}

std::optional<Candidate> match(ScatterReduceOp write, std::string &why) {
  BinaryOp add = singleBinaryCombine(write.getCombine().front());
  Type element = elementTypeOf(write.getValue().getType());
  if (!add || add.getKind() != kir::BinaryKind::Add || !element.isInteger() || element.isInteger(1)) {
    why = "the combine is not an integer add";
    return std::nullopt;
  }
  IntegerAttr constant = splatConstant(write.getValue());
  if (!constant) {
    why = "the added value is not a constant";
    return std::nullopt;
  }
  ArrayRef<Attribute> extents = isa<BufferType>(write.getView().getType())
                                    ? cast<BufferType>(write.getView().getType()).getExtents()
                                    : cast<ViewType>(write.getView().getType()).getExtents();
  auto coords = dyn_cast<FragmentType>(write.getCoords().back().getType());
  if (!coords || coords.getRank() != 1) {
    why = "the last coordinate is not lane-wide";
    return std::nullopt;
  }
  auto loop = dyn_cast<ForOp>(write->getParentOp());
  if (!loop || !loop.getInits().empty()) {
    why = "the write is not directly in a loop without carries";
    return std::nullopt;
  }
  // A target of higher rank is counted along its last axis when every other coordinate is one
  // scalar for the whole loop (a member's row of bins: pgpu.histogram counts one row).
  SmallVector<Value> uniform;
  for (Value c : write.getCoords().drop_back()) {
    uniform.push_back(loopUniform(c, loop));
    if (!uniform.back()) {
      why = "a coordinate before the last varies in the loop";
      return std::nullopt;
    }
  }
  // The loop's only write is this one: every other effect stays in its order.
  bool alone = true;
  loop.getBody().walk([&](Operation *op) {
    if (op != write && !isMemoryEffectFree(op) && !isa<LoadOp, GatherOp, BufferLoadOp>(op) &&
        !op->getParentOfType<ScatterReduceOp>())
      alone = false;
  });
  if (!alone) {
    why = "the loop has other writes";
    return std::nullopt;
  }
  return Candidate{write, loop, constant, extents.back(), uniform};
}

/// The target's extent as a launch-time value: a constant, or a view argument's extent of that symbol.
Value extentValue(OpBuilder &b, Location loc, KernelOp kernel, Attribute extent) {
  if (auto size = dyn_cast<IntegerAttr>(extent))
    return arith::ConstantIndexOp::create(b, loc, size.getInt());
  for (BlockArgument arg : kernel.getBody().getArguments())
    if (auto view = dyn_cast<ViewType>(arg.getType()))
      for (auto [axis, e] : llvm::enumerate(view.getExtents()))
        if (e == extent)
          return ExtentOp::create(b, loc, arg, axis);
  return {};
}

LogicalResult privatize(KernelOp kernel, Candidate c) {
  ForOp loop = c.loop;
  Location loc = c.write.getLoc();
  OpBuilder b(loop);
  Value extent = extentValue(b, loc, kernel, c.extent);
  if (!extent)
    return failure();
  MLIRContext *ctx = kernel.getContext();
  auto bin = [&](kir::BinaryKind kind, Value l, Value r) {
    return BinaryOp::create(b, loc, kind, l, r, false, false).getResult();
  };
  Value bins = ParamOp::create(b, loc, b.getIndexType(), kBinsParam);
  Value passes = ParamOp::create(b, loc, b.getIndexType(), kPassesParam);
  Value fits = CmpOp::create(b, loc, kir::CmpPredicate::LE, extent, bin(kir::BinaryKind::Mul, bins, passes));
  auto guard = IfOp::create(b, loc, TypeRange(), fits);
  auto counts = FragmentType::get(ctx, b.getI32Type(), {StringAttr::get(ctx, kBinsParam)});

  // Privatized: one pass per range of HBINS bins [first, first + HBINS); the loop carries the
  // range's counts, each block adds the histogram of its coordinates in the range.
  b.createBlock(&guard.getThenRegion());
  auto ranges = ForOp::create(b, loc, TypeRange(), arith::ConstantIndexOp::create(b, loc, 0), extent, bins,
                              ValueRange{});
  Value first = b.createBlock(&ranges.getBody())->addArgument(b.getIndexType(), loc);
  Value zero = SplatOp::create(b, loc, counts, arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0));
  auto counting = ForOp::create(b, loc, TypeRange{counts}, loop.getLower(), loop.getUpper(), loop.getStep(),
                                ValueRange{zero});
  {
    OpBuilder::InsertionGuard inner(b);
    Block &old = loop.getBody().front();
    Block *body = b.createBlock(&counting.getBody());
    IRMapping map;
    map.map(old.getArgument(0), body->addArgument(b.getIndexType(), loc));
    Value carried = body->addArgument(counts, loc);
    for (Operation &op : old.without_terminator())
      if (&op != c.write.getOperation())
        b.clone(op, map);
    Value coords = map.lookupOrDefault(c.write.getCoords().back());
    Value ok = map.lookupOrDefault(c.write.getValid());
    if (!isa<FragmentType>(ok.getType()))
      ok = SplatOp::create(b, loc, FragmentType::get(ctx, b.getI1Type(), cast<FragmentType>(coords.getType()).getExtents()),
                           ok);
    auto lanes = cast<FragmentType>(coords.getType());
    auto laneIndex = FragmentType::get(ctx, b.getIndexType(), lanes.getExtents());
    if (!lanes.getElementType().isIndex())
      coords = CastOp::create(b, loc, laneIndex, coords);
    // The coordinate relative to the range, and whether it lies in the range.
    Value local = bin(kir::BinaryKind::Sub, coords, SplatOp::create(b, loc, laneIndex, first));
    Value above = CmpOp::create(b, loc, kir::CmpPredicate::GE, local,
                                SplatOp::create(b, loc, laneIndex, arith::ConstantIndexOp::create(b, loc, 0)));
    Value below = CmpOp::create(b, loc, kir::CmpPredicate::LT, local, SplatOp::create(b, loc, laneIndex, bins));
    ok = bin(kir::BinaryKind::And, ok, bin(kir::BinaryKind::And, above, below));
    Value part = HistogramOp::create(b, loc, counts, local, ok);
    YieldOp::create(b, loc, ValueRange{bin(kir::BinaryKind::Add, carried, part)});
  }
  // One merge per bin with a nonzero count, scaled by the constant, in the target's type.
  Type element = c.constant.getType();
  auto binIndex = FragmentType::get(ctx, b.getIndexType(), {StringAttr::get(ctx, kBinsParam)});
  Value at = IotaOp::create(b, loc, binIndex, first);
  Value inside = CmpOp::create(b, loc, kir::CmpPredicate::LT, at, SplatOp::create(b, loc, binIndex, extent));
  Value total = counting.getResult(0);
  Value some = CmpOp::create(b, loc, kir::CmpPredicate::NE, total, zero);
  Value valid = bin(kir::BinaryKind::And, inside, some);
  auto values = FragmentType::get(ctx, element, {StringAttr::get(ctx, kBinsParam)});
  Value merged = element.isInteger(32) ? total : Value(CastOp::create(b, loc, values, total));
  if (c.constant.getInt() != 1)
    merged = bin(kir::BinaryKind::Mul, merged,
                 SplatOp::create(b, loc, values, arith::ConstantOp::create(b, loc, element, c.constant)));
  SmallVector<Value> mergeCoords(c.uniform);
  mergeCoords.push_back(at);
  auto merge = ScatterReduceOp::create(b, loc, merged, c.write.getView(), mergeCoords, valid);
  IRMapping regionMap;
  c.write.getCombine().cloneInto(&merge.getCombine(), regionMap);
  YieldOp::create(b, loc);
  b.setInsertionPointAfter(ranges);
  YieldOp::create(b, loc);

  // Direct: the original loop, one atomic per active lane.
  Block *direct = b.createBlock(&guard.getElseRegion());
  loop->moveBefore(direct, direct->end());
  b.setInsertionPointToEnd(direct);
  YieldOp::create(b, loc);
  return success();
}

/// Declares HBINS (covering the target's symbol) and widens BLOCK_P so a program counts many elements.
void declare(KernelOp kernel, Attribute extent) {
  MLIRContext *ctx = kernel.getContext();
  SmallVector<Attribute> params;
  if (auto existing = kernel.getParams())
    for (Attribute a : *existing) {
      auto p = cast<ParamAttr>(a);
      if (p.getName() == kBlockP)
        p = ParamAttr::get(ctx, p.getName(), {1024, 4096, 16384, 65536, 262144, 524288}, 65536, p.getProvider(),
                           p.getCovers(), p.getPasses());
      // Each block's histogram merges its warps' counts (HBINS each): blocks of 4096 amortize that.
      if (p.getName() == kBlockParam)
        p = ParamAttr::get(ctx, p.getName(), p.getCandidates(), 4096, p.getProvider(), p.getCovers(),
                           p.getPasses());
      params.push_back(p);
    }
  // HBINS x HPASSES covers the extent (`passes`): where no HBINS holds every bin, the call's default
  // counts in the fewest passes of the largest HBINS the provider keeps (its shared-memory fit).
  // A static extent (a constant number of bins) has its covering default here: the fewest bins of
  // one candidate that hold them all, else the largest in the fewest passes (the provider narrows
  // the candidates to what it keeps, the default with them).
  SmallVector<int64_t> binCandidates{32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768};
  SmallVector<int64_t> passCandidates{1, 2, 4, 8};
  int64_t binsDefault = 32, passesDefault = 1;
  if (auto size = dyn_cast<IntegerAttr>(extent)) {
    auto holds = llvm::find_if(binCandidates, [&](int64_t c) { return c >= size.getInt(); });
    binsDefault = holds != binCandidates.end() ? *holds : binCandidates.back();
    auto passes = llvm::find_if(passCandidates, [&](int64_t p) { return binsDefault * p >= size.getInt(); });
    passesDefault = passes != passCandidates.end() ? *passes : 1;
  }
  if (!kernel.getParam(kBinsParam))
    params.push_back(ParamAttr::get(ctx, StringAttr::get(ctx, kBinsParam), binCandidates, binsDefault, StringAttr(),
                                    dyn_cast<StringAttr>(extent), StringAttr::get(ctx, kPassesParam)));
  // Passes over bin ranges: each reads the program's elements once more (1: one range of HBINS).
  if (!kernel.getParam(kPassesParam))
    params.push_back(ParamAttr::get(ctx, StringAttr::get(ctx, kPassesParam), passCandidates, passesDefault,
                                    StringAttr(), StringAttr()));
  kernel.setParamsAttr(ArrayAttr::get(ctx, params));
}

struct PrivatizeHistograms : public tessel::pgpu::impl::PGPUPrivatizeHistogramsBase<PrivatizeHistograms> {
  void runOnOperation() override {
    for (KernelOp kernel : getOperation().getOps<KernelOp>()) {
      SmallVector<ScatterReduceOp> writes;
      kernel.walk([&](ScatterReduceOp w) { writes.push_back(w); });
      bool remarks = remarksEnabled(kernel);
      for (ScatterReduceOp w : writes) {
        std::string why;
        std::optional<Candidate> c = match(w, why);
        if (c && failed(privatize(kernel, *c))) {
          c.reset();
          why = "the target's extent is not a launch-time value";
        }
        if (!c) {
          if (remarks)
            w.emitRemark() << "pgpu-privatize-histograms: not privatized: " << why;
          continue;
        }
        declare(kernel, c->extent);
        if (remarks)
          w.emitRemark() << "pgpu-privatize-histograms: counted into a privatized HBINS fragment when the target "
                            "fits, merged once per bin";
      }
    }
  }
};
} // namespace
