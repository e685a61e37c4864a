//===- TritonLegalize.cpp - Triton capability legalization -----------------===//

#include "tessel/Dialect/PGPU/Transforms/Passes.h"
#include "tessel/Target/Triton/Triton.h"
#include "tessel/Target/Triton/GluonStreams.h"
#include "tessel/Target/Triton/Resources.h"
#include "tessel/Target/Triton/TileAccess.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"

#include <cmath>
#include <limits>
#include <optional>
#include <set>

namespace tessel::triton {
#define GEN_PASS_DEF_TRITONLEGALIZE
#include "tessel/Target/Triton/Passes.h.inc"
} // namespace tessel::triton

using namespace mlir;
using namespace tessel;

bool triton::isInstanceWalk(pgpu::ForOp loop) {
  return llvm::any_of(loop.getBody().front(), [](Operation &op) { return isa<pgpu::ExecutionGroupOp>(op); });
}

namespace {
/// What a loop's body lets a software pipeline issue ahead: its ops are pure, or pointer loads and
/// stores (no loop, contraction, atomic or buffer access: `legal`); some fragment load reads no value
/// computed from the carries (`independentLoad`: a load on the carries' chain waits for the previous
/// iteration whatever the pipeline does); and every view it reads or writes is an argument of the
/// kernel, none both read and written (`apart`: the wrapper keeps a written view apart from every other
/// view, `_check_apart`, so a load issued ahead never reads what the body stores; a view of any other
/// origin may alias).
struct PipelinedBody {
  bool legal = true, independentLoad = false, apart = false;
};

PipelinedBody pipelinedBody(pgpu::ForOp loop) {
  PipelinedBody facts;
  Block &body = loop.getBody().front();
  DenseSet<Value> chained(body.getArguments().begin() + 1, body.getArguments().end());
  llvm::SmallPtrSet<Value, 4> read, written;
  body.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op == body.getTerminator())
      return WalkResult::advance();
    bool fromChain = llvm::any_of(op->getOperands(), [&](Value v) { return chained.contains(v); });
    if (fromChain)
      chained.insert(op->result_begin(), op->result_end());
    if (auto load = dyn_cast<pgpu::LoadOp>(op)) {
      read.insert(load.getView());
      facts.independentLoad |= !fromChain && isa<pgpu::FragmentType>(load.getResult().getType());
    } else if (auto store = dyn_cast<pgpu::StoreOp>(op)) {
      written.insert(store.getView());
    } else if (isa<pgpu::ForOp, pgpu::ContractOp, pgpu::ScaledContractOp, pgpu::SparseContractOp>(op) ||
               !isMemoryEffectFree(op)) {
      facts.legal = false;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  auto argument = [](Value v) {
    auto arg = dyn_cast<BlockArgument>(v);
    return arg && isa<pgpu::KernelOp>(arg.getOwner()->getParentOp());
  };
  facts.apart = llvm::all_of(read, argument) && llvm::all_of(written, argument) &&
                llvm::none_of(read, [&](Value v) { return written.contains(v); });
  return facts;
}
} // namespace

bool triton::prefetchesRecurrence(pgpu::ForOp loop) {
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (loop.getInits().empty() || !step || *step != 1)
    return false;
  PipelinedBody body = pipelinedBody(loop);
  return body.legal && body.independentLoad && body.apart;
}

bool triton::pipelinesWalk(pgpu::ForOp loop) {
  if (loop.getInits().empty() || loop->getParentOfType<pgpu::LastProgramOp>() || prefetchesRecurrence(loop) ||
      pipelinesLoads(loop) || isInstanceWalk(loop))
    return false;
  // A loop of constant bounds and step that runs at most once has nothing to issue ahead.
  std::optional<int64_t> lower = getConstantIntValue(loop.getLower()), upper = getConstantIntValue(loop.getUpper()),
                         step = getConstantIntValue(loop.getStep());
  if (lower && upper && step && *step > 0 && *upper - *lower <= *step)
    return false;
  PipelinedBody body = pipelinedBody(loop);
  return body.legal && body.independentLoad && body.apart;
}

namespace {
/// An unblocked region fold runs its segments in order: `for b = lo to hi
/// step s`, summarize [b, min(b + s, hi)) with the captures, combine into the
/// carried summary (seed 000 §8: segments in order; the fold starts from the
/// identity, so an empty range yields it).

/// Triton's launch configuration, declared as provider parameters so that the
/// tuner can search it (seed 003: only declared parameters are searched). The
/// defaults are Triton's own launch defaults.
struct LaunchParam {
  llvm::StringLiteral name;
  ArrayRef<int64_t> candidates;
  int64_t defaultValue;
};
constexpr int64_t kWarps[] = {1, 2, 4, 8, 16};
// Pipelines deeper than 4 are candidates the tuner searches (where the resource model fits them): the
// ragged grouped GEMM, whose per-group operand streams from HBM, ran fastest at 5 stages of 128x128x64
// TMA tiles (2.57 against 2.75 ms at 4, session 14).
constexpr int64_t kStages[] = {1, 2, 3, 4, 5, 6};
// The deepest pipeline a default takes: the GEMM defaults were measured up to 4 stages.
constexpr int64_t kDeepestDefaultStages = 4;
const LaunchParam kLaunchParams[] = {{triton::kWarpsParam, kWarps, 4}, {triton::kStagesParam, kStages, 3}};

/// The declared defaults of a kernel's parameters.
llvm::StringMap<int64_t> declaredDefaults(pgpu::KernelOp kernel) {
  llvm::StringMap<int64_t> defaults;
  if (auto declared = kernel.getParams())
    for (Attribute a : *declared)
      defaults[cast<pgpu::ParamAttr>(a).getName().getValue()] = cast<pgpu::ParamAttr>(a).getDefaultValue();
  return defaults;
}

/// Replaces the default of the declared parameter `name`.
void setDefault(pgpu::KernelOp kernel, StringRef name, int64_t value) {
  SmallVector<Attribute> params(kernel.getParams()->begin(), kernel.getParams()->end());
  for (Attribute &a : params)
    if (auto p = cast<pgpu::ParamAttr>(a); p.getName().getValue() == name)
      a = pgpu::ParamAttr::get(kernel.getContext(), p.getName(), p.getCandidates(), value, p.getProvider(),
                               p.getCovers(), p.getPasses());
  kernel.setParamsAttr(ArrayAttr::get(kernel.getContext(), params));
}

/// Appends the launch parameters a kernel does not already declare, in a fixed order. WARPS's
/// default follows the resource model at the declared defaults (ResourceModel::warpsAt); the
/// wrapper re-evaluates the same rule when a call binds covering defaults (`<kernel>_WARPS`).
void declareLaunchParams(pgpu::KernelOp kernel) {
  MLIRContext *ctx = kernel.getContext();
  SmallVector<Attribute> params;
  if (auto declared = kernel.getParams())
    llvm::append_range(params, *declared);
  int64_t warps = triton::estimateResources(kernel).warpsAt(declaredDefaults(kernel));
  for (const LaunchParam &lp : kLaunchParams)
    if (!kernel.getParam(lp.name))
      params.push_back(pgpu::ParamAttr::get(ctx, StringAttr::get(ctx, lp.name), lp.candidates,
                                            lp.name == triton::kWarpsParam ? warps : lp.defaultValue,
                                            StringAttr::get(ctx, "triton")));
  kernel.setParamsAttr(ArrayAttr::get(ctx, params));
}

/// Whether a contraction in a loop starts from zero and its tile is reduced along an axis (through
/// pointwise ops): the scores tile of a region fold over key or vocabulary tiles (kir-to-pgpu), whose
/// row maximum or sum the fold carries.
static bool reducedFreshProduct(pgpu::ContractOp c) {
  if (!c.getAcc().getDefiningOp<pgpu::SplatOp>() || !c->getParentOfType<pgpu::ForOp>())
    return false;
  SmallVector<Value> work{c.getResult()};
  llvm::SmallPtrSet<Operation *, 8> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (isa<pgpu::ReduceOp>(user))
        return true;
      if (isa<pgpu::BinaryOp, pgpu::UnaryOp, pgpu::SelectOp, pgpu::CastOp>(user) && seen.insert(user).second)
        work.push_back(user->getResult(0));
    }
  }
  return false;
}

/// Whether `param` steps a loop whose body stores a tile of its columns: the row pgpu-stage-folds
/// staged (its folds realized as loops over the same bounds beside the store's), where `param` covers the
/// row's extent.
static bool coversFoldedRow(pgpu::KernelOp kernel, pgpu::ParamAttr param) {
  return kernel
      .walk([&](pgpu::IfOp guard) {
        // The staged guard: lo < hi && hi - lo <= step, the step this parameter.
        auto both = guard.getCondition().getDefiningOp<pgpu::BinaryOp>();
        if (!both || both.getKind() != kir::BinaryKind::And)
          return WalkResult::advance();
        auto fits = both.getRhs().getDefiningOp<pgpu::CmpOp>();
        auto step = fits ? fits.getRhs().getDefiningOp<pgpu::ParamOp>() : pgpu::ParamOp();
        return step && step.getName() == param.getName().getValue() &&
                       fits.getPredicate() == kir::CmpPredicate::LE
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

/// Whether a contraction's tile reaches another contraction through pointwise ops (attention's scores
/// exponentiated into P of P.V, whose tile and registers the fold's parameters also size).
static bool feedsContraction(pgpu::ContractOp c) {
  SmallVector<Value> work{c.getResult()};
  llvm::SmallPtrSet<Operation *, 8> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (isa<pgpu::ContractOp>(user))
        return true;
      if (isa<pgpu::BinaryOp, pgpu::UnaryOp, pgpu::SelectOp, pgpu::CastOp, pgpu::BroadcastOp>(user) &&
          seen.insert(user).second)
        work.push_back(user->getResult(0));
    }
  }
  return false;
}

/// The accumulator tile of a contraction that accumulates into a loop-carried value, whose extents are both declared parameters
/// that cover no shape symbol (free tile sizes), as (rows, columns); nothing otherwise. Nothing either in a
/// fold's program whose reduced fresh product (above) feeds another contraction (attention): a K loop
/// there (kir-to-pgpu's looped variant, a paired axis past its block) shares the fold tiles' parameters,
/// whose defaults stay the fold's. A fold whose product is only reduced (a logsumexp or softmax over the
/// rows of x @ W^T: corpus 116, 138) is a GEMM with a row epilogue, and its tile grows like one: at
/// 64x64 and 4 warps each K step of 116's vocabulary walk moves 16 KiB for 0.5 MFLOP (32 FLOP a byte
/// from L2), at 128x256 48 KiB for 4.2 MFLOP (85).
std::optional<std::pair<pgpu::ParamAttr, pgpu::ParamAttr>> freeAccumulatorTile(pgpu::KernelOp kernel) {
  std::optional<std::pair<pgpu::ParamAttr, pgpu::ParamAttr>> tile;
  if (kernel.walk([](pgpu::ContractOp c) {
              return reducedFreshProduct(c) && feedsContraction(c) ? WalkResult::interrupt() : WalkResult::advance();
            })
          .wasInterrupted())
    return tile;
  kernel.walk([&](pgpu::ContractOp c) {
    auto acc = cast<pgpu::FragmentType>(c.getResult().getType());
    auto carried = dyn_cast<BlockArgument>(c.getAcc());
    if (tile || !carried || !isa<pgpu::ForOp>(carried.getOwner()->getParentOp()) || acc.getExtents().size() != 2)
      return;
    auto rows = dyn_cast<StringAttr>(acc.getExtents()[0]), cols = dyn_cast<StringAttr>(acc.getExtents()[1]);
    pgpu::ParamAttr r = rows ? kernel.getParam(rows.getValue()) : pgpu::ParamAttr();
    pgpu::ParamAttr k = cols ? kernel.getParam(cols.getValue()) : pgpu::ParamAttr();
    // Columns that cover the row (pgpu-stage-folds: a product's row held in one tile) grow too: a call
    // whose row a candidate holds binds them to it, the declared default serves the rows none holds.
    if (r && k && r != k && !r.getCovers() && (!k.getCovers() || coversFoldedRow(kernel, k)))
      tile = {r, k};
  });
  return tile;
}

/// Whether the kernel's contraction is tiled in a segment walk (pgpu-form-tiles: resident programs walk
/// each data-dependent segment's tiles in turn, a ragged grouped GEMM's groups).
bool contractsInSegmentWalk(pgpu::KernelOp kernel) {
  bool found = false;
  kernel.walk([&](pgpu::ExecutionGroupOp group) {
    if (group.isSegmentWalk() &&
        group.walk([](pgpu::ContractOp) { return WalkResult::interrupt(); }).wasInterrupted())
      found = true;
  });
  return found;
}

/// Whether the kernel contracts into partials that the last arriving program combines: a workspace
/// buffer stored (or merged into by a scatter-reduce: pgpu-atomic-partials) outside a
/// pgpu.last_program and read inside it, in a kernel with a pgpu.contract
/// (split-K: each program runs its K chunk as one long pipelined loop per output tile, then stores
/// its partial once). A last arrival that reads no stored partials (a grouped GEMM's tail fill) is
/// not one.
bool contractsIntoSplitPartials(pgpu::KernelOp kernel) {
  if (!kernel.walk([](pgpu::ContractOp) { return WalkResult::interrupt(); }).wasInterrupted())
    return false;
  llvm::SmallPtrSet<Value, 4> stored;
  kernel.walk([&](pgpu::BufferStoreOp s) {
    if (!s->getParentOfType<pgpu::LastProgramOp>())
      stored.insert(s.getBuffer());
  });
  kernel.walk([&](pgpu::ScatterReduceOp s) {
    if (!s->getParentOfType<pgpu::LastProgramOp>())
      stored.insert(s.getView());
  });
  return kernel
      .walk([&](pgpu::BufferLoadOp l) {
        return l->getParentOfType<pgpu::LastProgramOp>() && stored.contains(l.getBuffer()) ? WalkResult::interrupt()
                                                                                            : WalkResult::advance();
      })
      .wasInterrupted();
}

/// tl.dot's smallest operand extent (the serializer rejects a contraction with a smaller one).
constexpr int64_t kSmallestDotExtent = 16;

/// Elements of fragment type `t` at binding `p` (a parameter extent at its bound value).
double fragmentElementsAt(Type t, const llvm::StringMap<int64_t> &p) {
  double n = 1;
  for (Attribute e : cast<pgpu::FragmentType>(t).getExtents()) {
    if (auto size = dyn_cast<IntegerAttr>(e))
      n *= size.getInt();
    else if (auto name = dyn_cast<StringAttr>(e))
      n *= p.lookup(name.getValue());
  }
  return n;
}

/// Whether every FMA-spelled contraction (triton::contractsWithFMA: f32 operands at IEEE precision)
/// of the kernel fits a thread's registers at binding `p` with `warps` warps. Triton's FMA lowering
/// gives each thread an r x c block of the accumulator (e = r c of its elements) and holds the operand
/// rows and columns of that block for the whole reduced extent k of the dot before its FMAs: k (r + c)
/// >= 2 k sqrt(e) registers beside the e of the accumulator, where k = (|lhs| |rhs| / |acc|)^(1/2).
/// A thread has at most 255 registers, and 65536 / (32 warps) where that is fewer. Offline sm_90 ptxas
/// (Triton 3.6) of corpus 65_pairwise_sqdist, k = 16: 128x128 at 8 warps (bound 320) used 255 and
/// spilled 1052 bytes; 128x64 at 8 (213) 255, no spill; 64x64 at 8 (144) 178; 64x64 at 4 (213) 255.
bool fmaContractionsFit(pgpu::KernelOp kernel, const llvm::StringMap<int64_t> &p, int64_t warps) {
  double limit = std::min<double>(255, 65536.0 / (32 * warps));
  return !kernel
              .walk([&](pgpu::ContractOp c) {
                if (!triton::contractsWithFMA(c))
                  return WalkResult::advance();
                double acc = fragmentElementsAt(c.getResult().getType(), p);
                double k = std::sqrt(fragmentElementsAt(c.getLhs().getType(), p) *
                                     fragmentElementsAt(c.getRhs().getType(), p) / std::max(acc, 1.0));
                double e = acc / (32 * warps);
                return e + 2 * k * std::sqrt(e) > limit ? WalkResult::interrupt() : WalkResult::advance();
              })
              .wasInterrupted();
}

/// Whether a loop of the kernel reduces tiles it loads as boxes, without a product, beside a product's
/// K loop (triton::pipelinesLoads: a norm hoisted out of a GEMM's operand, corpus 113's RMSNorm then
/// linear). Such kernels take their boxes through pointers by default: on the H100 (Triton 3.6), 113
/// with tensor descriptors differed from the peer in 1288 of 8192 rows (blocks of 8 rows: 16-23, 32-35,
/// ...), at FLATTEN 0 and 1 alike, and matched at TMA 0 and at STAGES 1 (0.81 against 0.78 ms; .carry
/// probe, session 33). TMA stays a candidate for the tuner, which checks each binding's results.
static bool reducesBoxesBesideProducts(pgpu::KernelOp kernel) {
  return kernel
      .walk([](pgpu::ForOp loop) {
        return triton::pipelinesLoads(loop) ? WalkResult::interrupt() : WalkResult::advance();
      })
      .wasInterrupted();
}

/// Special-function-unit operations (MUFU: ex2, lg2, rcp, rsqrt, sqrt, sin, cos, tanh) one element of
/// `op`'s result costs on sm_90, as Triton spells it (a sigmoid is an exponential and a reciprocal, a
/// float division a reciprocal, a power a logarithm and an exponential; erf is polynomial), 0 for
/// everything else.
static int64_t mufuPerElement(Operation *op) {
  if (auto u = dyn_cast<pgpu::UnaryOp>(op)) {
    switch (u.getKind()) {
    case kir::UnaryKind::Sigmoid:
      return 2;
    case kir::UnaryKind::Exp:
    case kir::UnaryKind::Exp2:
    case kir::UnaryKind::Log:
    case kir::UnaryKind::Log2:
    case kir::UnaryKind::Sqrt:
    case kir::UnaryKind::Rsqrt:
    case kir::UnaryKind::Tanh:
    case kir::UnaryKind::Sin:
    case kir::UnaryKind::Cos:
    case kir::UnaryKind::Log1p:
    case kir::UnaryKind::Expm1:
      return 1;
    default:
      return 0;
    }
  }
  if (auto bin = dyn_cast<pgpu::BinaryOp>(op); bin && isa<FloatType>(pgpu::elementTypeOf(bin.getType())))
    return bin.getKind() == kir::BinaryKind::Div ? 1 : bin.getKind() == kir::BinaryKind::Pow ? 2 : 0;
  return 0;
}

/// The MUFU operations per element of `operand`'s tile that the loop around contraction `c` computes
/// anew each iteration: the ops of its producer chain inside the loop whose result is a fragment of the
/// operand's elements (its extents in any order; per-row or per-column values such as a norm's scale
/// are computed once per row, not per element, and do not count). 0 where the chain holds a product
/// (corpus 99's sigmoid attention: p = sigmoid(q k^T) feeding p v, whose other free axis is the head
/// dimension, 64 at its bench shape, a single tile there: growing it only masks columns).
static int64_t operandMufuPerElement(pgpu::ContractOp c, Value operand) {
  auto loop = c->getParentOfType<pgpu::ForOp>();
  auto type = dyn_cast<pgpu::FragmentType>(operand.getType());
  if (!loop || !type)
    return 0;
  auto sorted = [](ArrayRef<Attribute> extents) {
    SmallVector<std::string> names;
    for (Attribute e : extents)
      names.push_back(isa<StringAttr>(e) ? cast<StringAttr>(e).getValue().str() : "?");
    llvm::sort(names);
    return names;
  };
  SmallVector<std::string> tile = sorted(type.getExtents());
  int64_t mufu = 0;
  llvm::SmallPtrSet<Operation *, 32> seen;
  SmallVector<Value> work{operand};
  while (!work.empty()) {
    Operation *def = work.pop_back_val().getDefiningOp();
    if (!def || !loop->isAncestor(def) || !seen.insert(def).second)
      continue;
    auto result = def->getNumResults() == 1 ? dyn_cast<pgpu::FragmentType>(def->getResult(0).getType())
                                            : pgpu::FragmentType();
    if (!result || sorted(result.getExtents()) != tile)
      continue; // a per-row or per-column value, a scalar, or a load's coordinates
    if (isa<pgpu::ContractOp, pgpu::ForOp>(def))
      return 0; // a fold's weights from its scores (attention's p @ v), not a prologue of loaded tiles
    mufu += mufuPerElement(def);
    llvm::append_range(work, def->getOperands());
  }
  return mufu;
}

/// Whether an operand computed in a product's K loop (its producers there hold arithmetic: a dequantized
/// weight, corpus 57's (nibble - zero) * scale, 152's cast of int8) reads a tile through pointers (no
/// tensor descriptor spans it: an integer view, a packed row k / 2) whose contiguous view axis is walked
/// by a tile axis: its coordinate there a lane vector made outside the K loop. In the flattened
/// persistent walk Triton carries those vectors as loop values, its axis analysis loses their
/// contiguity, and the read is a byte a lane, not pipelined: sm_90 TTGIR of corpus 57 (Triton 3.6,
/// SPLIT_K 1) has wq's [256, 64] i8 tile a plain tt.load under FLATTEN 1 and a 16-byte cp.async at
/// STAGES depth under FLATTEN 0; 152 at SPLIT_K 1 likewise. A read along the K lanes (corpus 80's
/// wq[n, k // 2], a GEMM's A) keeps its contiguity either way.
static bool computedOperandReadsAlongTiles(pgpu::KernelOp kernel) {
  bool found = false;
  kernel.walk([&](pgpu::ContractOp c) {
    auto loop = c->getParentOfType<pgpu::ForOp>();
    if (found || !loop)
      return;
    for (Value operand : {c.getLhs(), c.getRhs()}) {
      bool arithmetic = false;
      SmallVector<Operation *> reads;
      llvm::SmallPtrSet<Operation *, 32> seen;
      SmallVector<Value> work{operand};
      while (!work.empty()) {
        Operation *def = work.pop_back_val().getDefiningOp();
        if (!def || !loop->isAncestor(def) || !seen.insert(def).second)
          continue;
        if (isa<pgpu::LoadOp, pgpu::GatherOp>(def)) {
          reads.push_back(def); // its coordinates are not the operand's values
          continue;
        }
        arithmetic |= isa<pgpu::CastOp, pgpu::UnaryOp, pgpu::BinaryOp>(def);
        llvm::append_range(work, def->getOperands());
      }
      if (!arithmetic)
        continue;
      for (Operation *read : reads) {
        auto type = dyn_cast<pgpu::FragmentType>(read->getResult(0).getType());
        ValueRange coords = isa<pgpu::LoadOp>(read) ? cast<pgpu::LoadOp>(read).getCoords()
                                                    : cast<pgpu::GatherOp>(read).getCoords();
        if (!type || type.getRank() != 2 || coords.empty())
          continue;
        if (isa<pgpu::LoadOp>(read) && !triton::keepsPointerSpelling(read) && triton::matchTileAccess(read))
          continue; // a box: its descriptor walks the tile
        Value last = coords.back();
        while (auto b = last.getDefiningOp<pgpu::BroadcastOp>())
          last = b.getOperand();
        Operation *lanes = last.getDefiningOp();
        if (isa<pgpu::FragmentType>(last.getType()) && (!lanes || !loop->isAncestor(lanes)))
          found = true;
      }
    }
  });
  return found;
}

/// An operand computed in the K loop with special-function work (corpus 45's silu(g) * u: an
/// exponential and a reciprocal per element) is recomputed for every tile of the other operand's free
/// axis, and on sm_90 its MUFU work per K step (16 operations a cycle a multiprocessor) is
/// m * TILE_rows * TILE_K / 16 cycles against TILE_rows * TILE_cols * TILE_K / 2048 for the 16-bit
/// MMAs: the prologue bounds the loop while 128 * m >= TILE_cols. Corpus 45 (m = 2, 128x128x64): 1024
/// MUFU cycles a step against 512 of MMA, and Triton 3.6 spells the dot with the computed operand in
/// registers, waiting on each wgmma (an offline sm_90 compile: WARPGROUP.DEPBAR 0 after every HGMMA), so
/// the two add up. The other operand's free axis, the param returned, is the one whose growth cuts the
/// recomputation; none (a null ParamAttr) where no operand is bound so at the tile `at`.
static pgpu::ParamAttr prologueBoundAxis(pgpu::KernelOp kernel, std::pair<pgpu::ParamAttr, pgpu::ParamAttr> tile,
                                          const llvm::StringMap<int64_t> &at, int64_t &mufu,
                                          Operation *&contraction) {
  constexpr int64_t kMmaPerMufu = 2048 / 16; // sm_90: 16-bit MMA FMAs a cycle over MUFU operations a cycle
  pgpu::ParamAttr grow;
  kernel.walk([&](pgpu::ContractOp c) {
    if (grow || !c->getParentOfType<pgpu::ForOp>())
      return;
    Type in = pgpu::elementTypeOf(c.getLhs().getType());
    auto acc = cast<pgpu::FragmentType>(c.getResult().getType()).getExtents();
    if ((!in.isBF16() && !in.isF16()) || acc.size() != 2 || acc[0] != tile.first.getName() ||
        acc[1] != tile.second.getName())
      return; // only the products into the free accumulator tile, whose axes the params are
    for (auto [operand, other] : {std::pair{c.getLhs(), tile.second}, std::pair{c.getRhs(), tile.first}}) {
      int64_t m = operandMufuPerElement(c, operand);
      if (m > 0 && kMmaPerMufu * m >= at.lookup(other.getName().getValue())) {
        grow = other;
        mufu = m;
        contraction = c;
        return;
      }
    }
  });
  return grow;
}

/// sm_90 contraction defaults: the accumulator tile grows, columns first (the output's contiguous
/// axis), then rows, to the largest declared candidate whose accumulator takes at most half the
/// register file (128 registers a thread at the warps the model gives it) and whose operand stages
/// (and TMA store tile) fit in shared memory; STAGES then becomes the deepest pipeline that fits,
/// WARPS follows the tile and the persistent walk is flattened. A tile contracted with FMAs first
/// shrinks until each thread's operand rows and columns fit its registers (fmaContractionsFit).
/// A default keeps its box stores staged (ResourceModel::sharedAt), though a binding past that stores
/// them with pointers (storesStagedAt): split-K's 128x256 tile so (SPLITS 16, 4 stages) ran 74 us on
/// the H200 against 63 at the 128x128 default (session 11, run 2). Split
/// partials are the exception: their pipeline deepens with the stores through pointers (below).
/// On the H200 the bf16 GEMM sweep was fastest at 128x256x64 with 8 warps and 3 stages, against
/// 0.80x at the former 128x128 default (the sweep of 2026-11-30).
/// The accumulator rows an 8-bit contraction's default takes (chooseContractionDefaults).
constexpr int64_t kEightBitRows = 256;

void chooseContractionDefaults(pgpu::KernelOp kernel) {
  auto tile = freeAccumulatorTile(kernel);
  if (!tile)
    return;
  triton::ResourceModel model = triton::estimateResources(kernel);
  llvm::StringMap<int64_t> at = declaredDefaults(kernel);
  // The model counts the tiles' buffers; Triton adds the pipelines' mbarriers (8 bytes a stage), and
  // a swizzled tile allocated after them starts at a multiple of 1024 bytes: offline sm_90 compiles
  // (Triton 3.6) asked for 40 to 112 bytes more than the model at corpus 45's bindings, 1024 more for
  // corpus 02's two K loops. A default keeps 2 KiB free for them.
  const int64_t sharedBudget = model.sharedLimit - 2048;
  // At most two warpgroups: 256x256 tiles with 16 warps failed ptxas on the H200 for want of
  // registers (rejected candidates of the 2026-11-30 GEMM runs).
  auto fits = [&](const llvm::StringMap<int64_t> &p) {
    llvm::StringMap<int64_t> bound = p;
    bound[triton::kWarpsParam] = model.warpsAt(p);
    return bound[triton::kWarpsParam] <= 8 && model.carriedRegistersAt(bound) <= model.carriedRegisterLimit &&
           model.sharedAt(bound) <= sharedBudget &&
           fmaContractionsFit(kernel, bound, bound[triton::kWarpsParam]);
  };
  // An FMA-spelled contraction whose operand rows and columns would not fit a thread's registers at the
  // declared tile shrinks it, columns first (rows set WARPS: ResourceModel::warpsAt), to the first
  // smaller candidate tl.dot takes at which they fit; rows next. At 8 warps corpus 65's 128x128 f32
  // tile spilled (fmaContractionsFit); its 128x64 does not.
  bool shrunk = false;
  for (pgpu::ParamAttr axis : {tile->second, tile->first}) {
    StringRef name = axis.getName().getValue();
    auto smaller = [&] {
      std::optional<int64_t> next;
      for (int64_t c : axis.getCandidates())
        if (c >= kSmallestDotExtent && c < at[name] && (!next || c > *next))
          next = c;
      return next;
    };
    while (!fmaContractionsFit(kernel, at, model.warpsAt(at)))
      if (std::optional<int64_t> next = smaller()) {
        at[name] = *next;
        shrunk = true;
      } else {
        break;
      }
  }
  // A program the model already finds too large at its declared defaults is left as declared.
  if (!fits(at) && !shrunk)
    return;
  // A segment walk takes its boxes as tensor descriptors and one more stage: on the H200 the ragged
  // grouped GEMM (bf16, 64 groups summing to 32768 rows, N = K = 4096, its per-group operand streamed
  // from HBM) ran 2.48 ms at 5 stages against 2.68 at 4, 2.53 at 6 (session 14). Its programs are
  // resident (PERSIST x multiprocessors), so each makes its descriptors once for all its tiles (fixed-axis boxes are declared off because attention's
  // one-tile-row programs paid that per program). Its tile grows like any other since its programs take
  // tiles in the walk's order (pgpu-dynamic-walk): 128x256 ran 1.76 ms against 1.87 at 128x128 on the
  // H200, 1.73 (4 stages) against 2.23 on an H100 (2026-12-02-*-grouped-gemm-session16.json); before
  // the dynamic walk, with programs drifting apart, the wider tile was slower (3.14 against 2.68).
  bool segmentWalk = contractsInSegmentWalk(kernel);
  // A free accumulator tile takes its boxes as tensor descriptors even where they have fixed axes (a
  // batch coordinate: rank-3 descriptors), declared off for attention's programs, which have none.
  // With pointer loads, Triton's flattened walk carries each tile's coordinate vectors as loop values
  // whose contiguity its axis analysis loses: a batched GEMM's operand whose contiguous axis is a tile
  // axis (B's columns, or A's rows where A is stored [B, K, M]) loads 2-byte scalars with no cp.async
  // pipeline (sm_90 PTX of 61_bmm_at, Triton 3.6: 96 ld.global.b16 a thread per K step, 48 KiB of
  // shared memory, against TMA loads at 4 stages); its H100 time was 0.221 ms against torch.bmm's
  // 0.055 (session 29).
  if (kernel.getParam(triton::kTmaParam) && !reducesBoxesBesideProducts(kernel))
    at[triton::kTmaParam] = 1;
  int64_t deepest = segmentWalk ? kDeepestDefaultStages + 1 : kDeepestDefaultStages;
  // 8-bit operands do not widen the columns: on the H200 the e4m3 GEMM (row/column-scaled, bf16 out) ran
  // 786-791 TFLOP/s at 128x128x128 (4 stages) and 442-470 at 128x256x128 from 4096^3 to 8192x8192x16384
  // (session 27). They take 256 rows instead, held by two warpgroups of 128 rows (8 warps, past
  // warpsAt's one warpgroup per 64 rows) at 3 stages: 816-838 TFLOP/s on the H200 (session 27), and on
  // the H100 824 / 864 TFLOP/s at 4096^3 / 8192^3 against 755 / 740 at 128x128x128 with 4 stages, the
  // [K, N] weight layout 0.503 / 3.89 ms against 0.876 / 6.85 (session 37, bench/fp8_gemm.py --bindings;
  // lab/results/2026-12-06-h100-fp8-gemm-bindings.json). cuBLASLt's _scaled_mm: 1184 / 1238.
  bool eightBit = false;
  kernel.walk([&](pgpu::ContractOp c) {
    Type in = pgpu::elementTypeOf(c.getLhs().getType());
    eightBit |= triton::isFloat8(in) || in.isSignlessInteger(8); // i8 by analogy (same bytes, same MMA k)
  });
  bool twoWarpgroupRows = false;
  if (eightBit) {
    StringRef rows = tile->first.getName().getValue();
    llvm::StringMap<int64_t> grown = at;
    grown[rows] = kEightBitRows;
    grown[triton::kWarpsParam] = 8;
    if (kernel.getParam(triton::kStagesParam)) // the measured pipeline (STAGES deepens below where it fits)
      grown[triton::kStagesParam] = std::min<int64_t>(grown[triton::kStagesParam], 3);
    if (at[rows] < kEightBitRows && llvm::is_contained(tile->first.getCandidates(), kEightBitRows) &&
        model.carriedRegistersAt(grown) <= model.carriedRegisterLimit && model.sharedAt(grown) <= sharedBudget &&
        fmaContractionsFit(kernel, grown, 8)) {
      at = grown;
      twoWarpgroupRows = true;
    }
  }
  for (pgpu::ParamAttr axis : {tile->second, tile->first}) {
    if (eightBit)
      break;
    StringRef name = axis.getName().getValue();
    for (int64_t c : axis.getCandidates()) {
      if (c <= at[name])
        continue;
      llvm::StringMap<int64_t> grown = at;
      grown[name] = c;
      if (!fits(grown))
        break;
      at = grown;
    }
  }
  // A prologue-bound operand (prologueBoundAxis): the other operand's free axis grows to its largest
  // candidate that fits with the pipeline shortened to kPrologueStages, its recomputation falling with
  // it (corpus 45: 32 recomputations of silu(g) * u at 128x128 tiles, 16 at 128x256 with 2 stages;
  // offline sm_90 compile 250 registers, no spills, 180264 bytes of shared memory). Deep pipelines buy
  // little there: the loop waits on its math, not on its loads. The pipeline deepens again below where
  // shared memory allows.
  constexpr int64_t kPrologueStages = 2;
  int64_t mufu = 0;
  Operation *prologueContraction = nullptr;
  pgpu::ParamAttr prologueAxis =
      eightBit ? pgpu::ParamAttr() : prologueBoundAxis(kernel, *tile, at, mufu, prologueContraction);
  if (prologueAxis) {
    StringRef name = prologueAxis.getName().getValue();
    int64_t before = at[name];
    pgpu::ParamAttr stages = kernel.getParam(triton::kStagesParam);
    for (int64_t c : prologueAxis.getCandidates()) {
      if (c <= at[name])
        continue;
      llvm::StringMap<int64_t> grown = at;
      grown[name] = c;
      if (stages && llvm::is_contained(stages.getCandidates(), kPrologueStages))
        while (model.sharedAt(grown) > sharedBudget && grown[triton::kStagesParam] > kPrologueStages)
          grown[triton::kStagesParam] = *std::prev(llvm::find(stages.getCandidates(), grown[triton::kStagesParam]));
      if (!fits(grown))
        break;
      at = grown;
    }
    if (pgpu::remarksEnabled(kernel))
      emitRemark(prologueContraction->getLoc()) << "triton: a contraction operand computed in the K loop costs " << mufu
                                  << " special-function operation(s) an element, recomputed for every " << name
                                  << " tile: " << name << " " << before << " -> " << at[name]
                                  << (at[name] == before ? " (no larger candidate fits)" : "")
                                  << ", pipeline depth " << at[triton::kStagesParam] << " before deepening";
  }
  // Split partials take the deepest declared pipeline that fits with their stores through pointers
  // where the staged stores would not (ResourceModel::sharedNeededAt): a program stores its partial
  // tile once and runs its whole K chunk through the pipeline. On the H200 split-K bf16 512x512x65536
  // (SPLITS 8, 128x128x64 tiles, 8 warps, TMA loads) ran 55.7 us of kernel time at 6 stages with a
  // pointer store, 58.8 at 5 and 63.3 at 4 with the store staged; its call 0.0721 ms against cuBLAS's
  // 0.0732 (session 15).
  bool splitPartials = contractsIntoSplitPartials(kernel);
  if (splitPartials)
    deepest = std::numeric_limits<int64_t>::max();
  auto sharedFor = [&](const llvm::StringMap<int64_t> &p) {
    return splitPartials ? model.sharedNeededAt(p) : model.sharedAt(p);
  };
  if (pgpu::ParamAttr stages = kernel.getParam(triton::kStagesParam)) {
    ArrayRef<int64_t> depths = stages.getCandidates();
    while (sharedFor(at) > sharedBudget && at[triton::kStagesParam] > depths.front())
      at[triton::kStagesParam] = *std::prev(llvm::find(depths, at[triton::kStagesParam]));
    // ... and deepens to the deepest declared pipeline that fits: on the H200 128x128x64 bf16 tiles
    // ran 12% faster at 4 stages than at 3 in the 8192^3 GEMM sweep (2026-11-30),
    // split-K's 128x128 chunk loops 18% (session 11); a 128x256 tile
    // with its store staged does not fit a fourth stage and keeps 3.
    for (auto next = std::next(llvm::find(depths, at[triton::kStagesParam]));
         next != depths.end() && *next <= deepest; ++next) {
      llvm::StringMap<int64_t> deeper = at;
      deeper[triton::kStagesParam] = *next;
      if (sharedFor(deeper) > sharedBudget)
        break;
      at = deeper;
    }
  }
  at[triton::kWarpsParam] = twoWarpgroupRows ? 8 : model.warpsAt(at);
  if (pgpu::remarksEnabled(kernel))
    kernel.walk([&](pgpu::ContractOp c) {
      if (!reducedFreshProduct(c))
        return WalkResult::advance();
      StringRef rows = tile->first.getName().getValue(), cols = tile->second.getName().getValue();
      emitRemark(c.getLoc()) << "triton: this product is only reduced (no contraction reads it): its fold takes a "
                                "GEMM's accumulator tile, "
                             << rows << " " << at[rows] << " x " << cols << " " << at[cols] << " at "
                             << at[triton::kWarpsParam] << " warps";
      return WalkResult::interrupt();
    });
  // The flattened persistent walk: at or within 1.5% of the best of the H200 bf16 GEMM sweep at
  // 4096^3, 8192^3 and 4097x4095x1000 (15% ahead there, where the views miss TMA's alignment and
  // loads are pointer loads; 2026-12-01); not where a computed operand reads along a tile axis
  // (computedOperandReadsAlongTiles: its read would go unpipelined; untimed, session 39).
  if (kernel.getParam(triton::kFlattenParam))
    at[triton::kFlattenParam] = computedOperandReadsAlongTiles(kernel) ? 0 : 1;
  ArrayAttr declared = *kernel.getParams();
  for (Attribute a : declared) {
    auto p = cast<pgpu::ParamAttr>(a);
    if (at.lookup(p.getName().getValue()) != p.getDefaultValue() && llvm::is_contained(p.getCandidates(), at[p.getName().getValue()]))
      setDefault(kernel, p.getName().getValue(), at[p.getName().getValue()]);
  }
}

/// A thread's share of the tiles one loop iteration loads, in bytes, beyond which a free lane block
/// grows (with one warpgroup per 64 rows, so its rows' registers stay where they were) to spread the
/// tiles every row shares over more threads. On the H200 (bf16, 4x32x4096x128;
/// sessions 8 and 11) attention with 64 query lanes and 4 warps loads 256 bytes a
/// thread an iteration (a 64x128 key tile and a value tile) and runs fastest there (453 TFLOP/s causal
/// against 396 at 128 lanes); with an additive bias tile it loads 320, takes 255 registers and spills:
/// 246 TFLOP/s against 375 at 128 lanes and 8 warps (192 bytes a thread).
constexpr int64_t kLoopLoadBytesPerThread = 256;

/// The rows of the contractions inside loops: one declared parameter that covers no shape symbol (a
/// free lane block, e.g. attention's query rows), or none.
pgpu::ParamAttr loopContractionRows(pgpu::KernelOp kernel) {
  pgpu::ParamAttr rows;
  bool one = true;
  kernel.walk([&](pgpu::ContractOp c) {
    auto acc = cast<pgpu::FragmentType>(c.getResult().getType());
    if (!c->getParentOfType<pgpu::ForOp>() || acc.getExtents().size() < 2)
      return;
    auto name = dyn_cast<StringAttr>(acc.getExtents()[acc.getExtents().size() - 2]);
    pgpu::ParamAttr p = name ? kernel.getParam(name.getValue()) : pgpu::ParamAttr();
    if (!p || p.getCovers() || (rows && rows != p))
      one = false;
    else
      rows = p;
  });
  return one ? rows : pgpu::ParamAttr();
}

/// sm_90 lane-block default of a program whose loops contract (attention-shaped: no free
/// accumulator tile for chooseContractionDefaults): while a thread's share of the tiles a loop
/// iteration loads exceeds kLoopLoadBytesPerThread at the declared defaults, the contractions' free
/// row block grows to its next candidate, WARPS following it (ResourceModel::warpsAt), as long as
/// that lowers the share, keeps at most two warpgroups and each loop's carried fragments and staged
/// operands fit. Nothing changes where the share is within the bound.
void chooseLaneDefaults(pgpu::KernelOp kernel) {
  if (freeAccumulatorTile(kernel))
    return;
  pgpu::ParamAttr rows = loopContractionRows(kernel);
  if (!rows)
    return;
  triton::ResourceModel model = triton::estimateResources(kernel);
  llvm::StringMap<int64_t> at = declaredDefaults(kernel);
  StringRef name = rows.getName().getValue();
  at[triton::kWarpsParam] = model.warpsAt(at);
  for (int64_t c : rows.getCandidates()) {
    int64_t share = model.loopLoadBytesPerThreadAt(at);
    if (c <= at[name] || share <= kLoopLoadBytesPerThread)
      continue;
    llvm::StringMap<int64_t> grown = at;
    grown[name] = c;
    grown[triton::kWarpsParam] = model.warpsAt(grown);
    if (grown[triton::kWarpsParam] > 8 || model.loopLoadBytesPerThreadAt(grown) >= share || !model.loopsFitAt(grown))
      break;
    at = grown;
  }
  for (StringRef p : {name, StringRef(triton::kWarpsParam)})
    if (pgpu::ParamAttr declared = kernel.getParam(p);
        declared && at[p] != declared.getDefaultValue() && llvm::is_contained(declared.getCandidates(), at[p]))
      setDefault(kernel, p, at[p]);
}

/// The tile default of a fold or scan whose contractions are spelled with FMAs (f32 operands at IEEE
/// precision, triton::contractsWithFMA): Triton's FMA lowering holds in each thread the operand rows
/// and columns its accumulator elements need, so the registers grow with every operand extent, and
/// the tile a loop walks its segments by (a `pgpu.for` step that is a declared parameter covering no
/// shape symbol) is the one extent free to shrink: it defaults to its smallest candidate tl.dot takes;
/// WARPS then follows the model (ResourceModel::warpsAt). Tensor-core contractions (f16, bf16, TF32
/// operands) read their operands from shared memory and keep their declared tiles.
/// On the H200 (sm_90 ptxas, Triton 3.6), linear attention in f32 with IEEE products
/// (B=4 H=16 T=4096 D=E=64, 4 warps) spills at every scan tile, the more the larger: 1.3 KB a thread
/// at BLOCK_T 16, 4.2 at 32, 11 at 64; chained across programs it ran 0.562 ms at 16, 0.629 at 32 and
/// 7.419 at 64, in one program per (b, h) 2.097 at 16 against 4.129 at 64 with 8 warps (torch.compile
/// 3.9; bf16 and TF32 products were fastest at 64: 0.210 and 0.278 ms chained).
void chooseFmaTileDefaults(pgpu::KernelOp kernel) {
  llvm::StringSet<> shrunk;
  kernel.walk([&](pgpu::ForOp loop) {
    auto step = loop.getStep().getDefiningOp<pgpu::ParamOp>();
    pgpu::ParamAttr tile = step ? kernel.getParam(step.getName()) : pgpu::ParamAttr();
    if (!tile || tile.getCovers() || tile.getProvider() || shrunk.contains(tile.getName().getValue()))
      return;
    StringRef name = tile.getName().getValue();
    // An FMA-spelled contraction of the loop whose operand the tile sizes.
    bool sized = loop.getBody()
                     .walk([&](pgpu::ContractOp c) {
                       for (Value operand : {c.getLhs(), c.getRhs()})
                         if (triton::contractsWithFMA(c) &&
                             llvm::any_of(cast<pgpu::FragmentType>(operand.getType()).getExtents(), [&](Attribute e) {
                               auto symbol = dyn_cast<StringAttr>(e);
                               return symbol && symbol.getValue() == name;
                             }))
                           return WalkResult::interrupt();
                       return WalkResult::advance();
                     })
                     .wasInterrupted();
    if (!sized)
      return;
    auto fits = llvm::make_filter_range(tile.getCandidates(), [](int64_t c) { return c >= kSmallestDotExtent; });
    if (fits.empty())
      return;
    int64_t smallest = *llvm::min_element(fits);
    shrunk.insert(name);
    if (smallest < tile.getDefaultValue())
      setDefault(kernel, name, smallest);
  });
  if (shrunk.empty())
    return;
  if (pgpu::ParamAttr warps = kernel.getParam(triton::kWarpsParam)) {
    int64_t w = triton::estimateResources(kernel).warpsAt(declaredDefaults(kernel));
    if (w != warps.getDefaultValue() && llvm::is_contained(warps.getCandidates(), w))
      setDefault(kernel, triton::kWarpsParam, w);
  }
}

/// tl.histogram costs about bins/32 ALU operations per element (ballots and popcounts per owned bin):
/// on the H200 2^26 values into 1024 bins took 0.89 ms against 0.79 ms of direct atomics into 65536
/// (2026-12-01), so a declared bin count a histogram's fragment takes
/// keeps the candidates up to 2048 (beyond, the direct atomics are the faster form); a call's
/// covering default then stays there too.
constexpr int64_t kHistogramBins = 2048;

void narrowHistogramBins(pgpu::KernelOp kernel) {
  // The call's default does not count in passes over bin ranges here (the bins parameter loses its
  // `passes` link; the tuner still searches HPASSES): tl.histogram costs about bins/32 ALU operations
  // per element (ballots and popcounts per owned bin), so P passes of B/P bins cost what one pass of
  // B bins would plus P reads of the elements. 2^26 values into 1024 bins took 0.89 ms on the H200
  // (0.61x torch.bincount): 65536 bins as 32
  // passes of 2048 would cost ~64x that ALU work, against 0.79 ms for the direct atomics.
  pgpu::narrowHistogramBins(kernel, [](int64_t c) { return c <= kHistogramBins; }, /*keepPasses=*/false);
}

/// GLUON (Triton.h kGluonParam): declared, on by default, where the kernel has fold-source streams
/// (GluonStreams.h) and the serializer's Gluon emission succeeds at the declared defaults. A remark
/// says which, and why not where streams stand but no Gluon spelling does. On by default: on the H200
/// the Gluon spelling ran every attention form and shape at least as fast as the Triton spelling at
/// the same tiles, 64 x 64 (session 23:
/// causal 518 against 471 TFLOP/s, full 581 / 520, the sliding window 232 / 161, D = 96 158 / 137,
/// D = 64 216 / 214 and 302 / 300).
void declareGluon(pgpu::KernelOp kernel) {
  if (kernel.getParam(triton::kGluonParam))
    return;
  triton::gluon::StreamPlan plan = triton::gluon::StreamPlan::plan(kernel);
  if (plan.streams.empty())
    return;
  bool remarks = pgpu::remarksEnabled(kernel);
  if (plan.refusal) {
    if (remarks)
      emitRemark(plan.refusedAt->getLoc()) << "triton: no warp-specialized Gluon spelling: " << *plan.refusal;
    return;
  }
  // The Gluon spelling's rings two tiles deep by default: the loader warp runs its copies ahead at any
  // depth, and at 64 x 64 tiles depth 2 keeps a program within half the multiprocessor's shared memory
  // (96 KB: two programs, one's prologue and epilogue under the other's loop) where depth 3 needs 128 KB
  // (one program). On the H200, causal B4 H32 S4096 D128 bf16: 518 TFLOP/s at depth 2 against 363 at 3
  // (session 23). The Triton kernel, where it runs instead
  // (another architecture, the interpreter), takes the same depth.
  pgpu::ParamAttr stages = kernel.getParam(triton::kStagesParam);
  int64_t tritonDepth = stages ? stages.getDefaultValue() : 0;
  if (stages && tritonDepth > 2 && llvm::is_contained(stages.getCandidates(), 2))
    setDefault(kernel, triton::kStagesParam, 2);
  if (std::optional<std::pair<Operation *, std::string>> why = triton::gluonRefusal(kernel)) {
    if (stages)
      setDefault(kernel, triton::kStagesParam, tritonDepth);
    if (remarks)
      emitRemark(why->first->getLoc()) << "triton: no warp-specialized Gluon spelling: " << why->second;
    return;
  }
  // A tile load beside the streams in their loop that is no stream (an additive bias tile on the scores)
  // is read with pointers in the consumers, unpipelined, where Triton's spelling pipelines it: declared,
  // but off by default until measured against the Triton spelling (which keeps its own depth).
  Operation *unstreamed = nullptr;
  for (const triton::gluon::Stream &s : plan.streams)
    for (Operation &other : *s.load->getBlock())
      if (auto load = dyn_cast<pgpu::LoadOp>(other); !unstreamed && load && isa<pgpu::FragmentType>(load.getType()) &&
                                                     llvm::none_of(plan.streams, [&](const triton::gluon::Stream &x) {
                                                       return x.load == load;
                                                     }))
        unstreamed = load;
  if (unstreamed && stages)
    setDefault(kernel, triton::kStagesParam, tritonDepth);
  MLIRContext *ctx = kernel.getContext();
  SmallVector<Attribute> params(kernel.getParams()->begin(), kernel.getParams()->end());
  params.push_back(pgpu::ParamAttr::get(ctx, StringAttr::get(ctx, triton::kGluonParam), {0, 1}, unstreamed ? 0 : 1,
                                        StringAttr::get(ctx, "triton")));
  kernel.setParamsAttr(ArrayAttr::get(ctx, params));
  if (remarks && unstreamed)
    emitRemark(unstreamed->getLoc())
        << "triton: declares GLUON (off by default): a warp-specialized Gluon spelling streams "
        << plan.streams.size() << " tile load(s) through TMA rings from a loader warp and reads this tile with "
        << "pointers in the consumers, unpipelined (unmeasured against the Triton spelling's pipelined load)";
  else if (remarks)
    emitRemark(plan.streams.front().load->getLoc())
        << "triton: declares GLUON (on by default): a warp-specialized Gluon spelling streams "
        << plan.streams.size() << " tile load(s) through TMA rings from a loader warp";
}

/// tl.dot reduces at least 32 members of 8-bit operands (an FP8 or i8 MMA's k, Triton's min_dot_size): a
/// declared parameter that sizes the reduced extent of an 8-bit contraction keeps its candidates from 32,
/// and defaults to its largest (128 bytes of a row: at 64 the H200's e4m3 GEMM ran 350-373 TFLOP/s
/// against 786-791 at 128 with 128x128 tiles, session 27).
void narrowEightBitDots(pgpu::KernelOp kernel) {
  constexpr int64_t kSmallestEightBitK = 32;
  llvm::SetVector<StringRef> reduced;
  kernel.walk([&](pgpu::ContractOp c) {
    auto lhs = cast<pgpu::FragmentType>(c.getLhs().getType());
    if ((triton::isFloat8(lhs.getElementType()) || lhs.getElementType().isSignlessInteger(8)) && lhs.getRank() == 2)
      if (auto name = dyn_cast<StringAttr>(lhs.getExtents()[1]))
        reduced.insert(name.getValue());
  });
  pgpu::narrowParams(
      kernel, reduced.getArrayRef(), [](int64_t c) { return c >= kSmallestEightBitK; },
      [](pgpu::ParamAttr, ArrayRef<int64_t> kept) { return kept.back(); }, /*keepPasses=*/true);
}

/// Whether `guard` is the staged row path of pgpu-stage-rows: a `pgpu.if` without results on
/// `lo < hi && hi - lo <= BLOCK` whose else-branch walks the row in loops stepping by BLOCK.
bool isStagedRowGuard(pgpu::IfOp guard) {
  auto both = guard.getCondition().getDefiningOp<pgpu::BinaryOp>();
  if (guard.getNumResults() != 0 || guard.getElseRegion().empty() || !both ||
      both.getKind() != kir::BinaryKind::And)
    return false;
  auto fits = both.getRhs().getDefiningOp<pgpu::CmpOp>();
  auto step = fits ? fits.getRhs().getDefiningOp<pgpu::ParamOp>() : pgpu::ParamOp();
  if (!fits || fits.getPredicate() != kir::CmpPredicate::LE || !step || step.getName() != pgpu::kBlockParam)
    return false;
  return guard.getElseRegion()
      .walk([&](pgpu::ForOp loop) {
        auto s = loop.getStep().getDefiningOp<pgpu::ParamOp>();
        return s && s.getName() == pgpu::kBlockParam ? WalkResult::interrupt() : WalkResult::advance();
      })
      .wasInterrupted();
}

/// A row reduction staged by pgpu-stage-rows holds its row in registers on the guarded path and walks
/// it several times from memory otherwise (seed 002 §3.4). A row longer than BLOCK's largest declared
/// candidate (16384) always takes the multi-pass path: corpus 13_log_softmax's 32000-float rows made
/// three passes over HBM (2.86 ms on the H100 against torch.compile's 1.81). Such a kernel's BLOCK
/// gains the doublings of its largest candidate whose row block, at the widest element of a fragment
/// of BLOCK members on the staged path, takes at most half the register file of the widest program
/// (65536 registers of 4 bytes: 128 KiB, 64 registers a thread at 16 warps; seed 004: resources are
/// the provider's facts): f32 rows up to 32768, f64 rows none. The call default then covers such a row
/// in one block (Kernel._fact_params); the tuner may still pick the blocked passes.
void widenStagedRows(pgpu::KernelOp kernel) {
  constexpr int64_t kRegisterFileBytes = 65536 * 4;
  pgpu::ParamAttr block = kernel.getParam(pgpu::kBlockParam);
  // A constant bound (`covers = "128"`, a row's clipped blocks) never needs a wider block.
  if (!block || !block.getCovers() || block.getCandidates().empty() ||
      llvm::all_of(block.getCovers().getValue(), llvm::isDigit))
    return;
  int64_t widest = 0;
  kernel.walk([&](pgpu::IfOp guard) {
    if (!isStagedRowGuard(guard))
      return;
    guard.getThenRegion().walk([&](Operation *op) {
      for (Value v : op->getResults()) {
        auto fragment = dyn_cast<pgpu::FragmentType>(v.getType());
        if (!fragment || !llvm::is_contained(fragment.getExtents(), block.getName()))
          continue;
        Type element = fragment.getElementType();
        // Indices are 32-bit in the generated Triton; i1 masks take a byte at least.
        int64_t bytes = element.isIndex() ? 4 : element.isIntOrFloat()
                                                    ? std::max<int64_t>(1, element.getIntOrFloatBitWidth() / 8)
                                                    : 8;
        widest = std::max(widest, bytes);
      }
    });
  });
  if (!widest)
    return;
  SmallVector<int64_t> candidates(block.getCandidates());
  while (2 * candidates.back() * widest <= kRegisterFileBytes / 2)
    candidates.push_back(2 * candidates.back());
  if (candidates.size() == block.getCandidates().size())
    return;
  SmallVector<Attribute> params(kernel.getParams()->begin(), kernel.getParams()->end());
  for (Attribute &a : params)
    if (cast<pgpu::ParamAttr>(a).getName() == block.getName())
      a = pgpu::ParamAttr::get(kernel.getContext(), block.getName(), candidates, block.getDefaultValue(),
                               block.getProvider(), block.getCovers(), block.getPasses());
  kernel.setParamsAttr(ArrayAttr::get(kernel.getContext(), params));
}

/// LOOP_STAGES (Triton.h kLoopStagesParam): declared where a loop is spelled by pipelinesWalk. Its default is
/// Triton's own pipeline depth (3, the launch default every dot's operand loads get), lowered to the
/// deepest candidate whose buffers (LOOP_STAGES - 1 of each load the walks pipeline, ResourceModel) fit
/// the shared memory at the kernel's other declared defaults and hold at most kLoopBytesInFlight: a walk
/// whose one iteration already loads that much has what a multiprocessor needs in flight, and deeper
/// buffers would only cut the programs it holds (corpus 24's 8192-lane blocks: 131584 bytes of shared
/// memory a program at 3 stages, 512 at 1; sm_90, Triton 3.6); 1 (no pipeline) where none does. A call's
/// defaults lower it the same way where they widen a step (python/tessel/_kernel.py, LOOP_BYTES_PER_SM).
/// A walk addressed lane by lane through carried lane divisions (readsDividedLanes: a flattened walk
/// over several axes, a channel's N x H x W) defaults to 1: its pointers are not contiguous, so Triton's
/// pipeline copies its loads a lane at a time and holds each stage's lane pointers in registers (corpus
/// 53's 1024-lane walk at 4 warps: 112 / 165 / 201 registers a thread at 1 / 2 / 3 stages, sm_90a
/// ptxas of Triton 3.6; 4 / 3 / 2 programs a multiprocessor), and the programs it costs are what would
/// have had their loads in flight (H100: 0.160 ms at 1 against 0.223 at 3, session 34; 0.276 at 2
/// against 0.295 at 3, session 45).
constexpr int64_t kLoopStages[] = {1, 2, 3, 4};
constexpr int64_t kDefaultLoopStages = 3;
constexpr int64_t kLoopBytesInFlight = 32 * 1024;

/// The fragment axis along which the index fragment `v` steps by zero or one from lane to lane, never
/// down, or nothing: an iota, broadcast into one axis of a wider fragment, shifted by a value uniform
/// across lanes (a splat) or clamped by one (max, min). Window starts `max(t + 1 - w, 0)` over a tile of
/// consecutive times step so; `t * stride` does not.
static std::optional<int64_t> unitStepAxis(Value v, unsigned depth = 0) {
  auto uniform = [](Value u) { return isa_and_nonnull<pgpu::SplatOp>(u.getDefiningOp()); };
  if (depth > 16 || !isa<pgpu::FragmentType>(v.getType()))
    return std::nullopt;
  Operation *def = v.getDefiningOp();
  if (isa_and_nonnull<pgpu::IotaOp>(def))
    return 0;
  if (auto bcast = dyn_cast_or_null<pgpu::BroadcastOp>(def)) {
    std::optional<int64_t> inner = unitStepAxis(bcast.getOperand(), depth + 1);
    ArrayRef<int64_t> dims = bcast.getDims();
    if (!inner || *inner >= int64_t(dims.size()))
      return std::nullopt;
    return dims[*inner];
  }
  auto bin = dyn_cast_or_null<pgpu::BinaryOp>(def);
  if (!bin)
    return std::nullopt;
  kir::BinaryKind kind = bin.getKind();
  bool shifts = kind == kir::BinaryKind::Add || kind == kir::BinaryKind::Max || kind == kir::BinaryKind::Min;
  if (uniform(bin.getRhs()) && (shifts || kind == kir::BinaryKind::Sub))
    return unitStepAxis(bin.getLhs(), depth + 1);
  if (uniform(bin.getLhs()) && shifts)
    return unitStepAxis(bin.getRhs(), depth + 1);
  return std::nullopt;
}

/// Whether `loop` loads a sliding window: a coordinate that is the sum of two unit-step terms along
/// different fragment axes (x[s, lo[c] + r]: each lane c walks its own window, the windows of
/// neighbouring lanes overlap). Such a tile reads, at each step, elements the program read a step or a
/// lane before: its loads hit the L1 cache, and each pipelined stage only adds work.
static bool loadsSlidingWindow(pgpu::ForOp loop) {
  return loop.getBody()
      .walk([](pgpu::LoadOp load) {
        for (Value c : load.getCoords()) {
          auto add = c.getDefiningOp<pgpu::BinaryOp>();
          if (!add || add.getKind() != kir::BinaryKind::Add)
            continue;
          std::optional<int64_t> a = unitStepAxis(add.getLhs()), b = unitStepAxis(add.getRhs());
          if (a && b && *a != *b)
            return WalkResult::interrupt();
        }
        return WalkResult::advance();
      })
      .wasInterrupted();
}

void declareLoopStages(pgpu::KernelOp kernel) {
  if (kernel.getParam(triton::kLoopStagesParam) ||
      !kernel.walk([](pgpu::ForOp loop) { return triton::pipelinesWalk(loop) ? WalkResult::interrupt() : WalkResult::advance(); })
           .wasInterrupted())
    return;
  MLIRContext *ctx = kernel.getContext();
  SmallVector<Attribute> params(kernel.getParams()->begin(), kernel.getParams()->end());
  params.push_back(pgpu::ParamAttr::get(ctx, StringAttr::get(ctx, triton::kLoopStagesParam), kLoopStages,
                                        kDefaultLoopStages, StringAttr::get(ctx, "triton")));
  kernel.setParamsAttr(ArrayAttr::get(ctx, params));
  // A walk over sliding windows (loadsSlidingWindow) is not pipelined by default: Triton copies each
  // element of its gathered tile ahead with its own 4-byte cp.async, then reads it back from shared
  // memory, twice the memory instructions of plain loads that hit L1, and holds each stage's addresses
  // in registers (sm_90 ptxas, Triton 3.6: corpus 282's [16, 128] window tiles at 4 warps use 255
  // registers at 3 stages, 128 at 1: twice the programs a multiprocessor). Nor is a walk that addresses
  // its lanes through carried lane divisions (readsDividedLanes: each stage's lane pointers live in
  // registers; corpus 53 at 1024 lanes / 4 warps: 200 registers at 3 stages, 111 at 1).
  pgpu::ForOp laneWalk, sliding;
  kernel.walk([&](pgpu::ForOp loop) {
    if (!triton::pipelinesWalk(loop))
      return WalkResult::advance();
    if (triton::readsDividedLanes(loop))
      laneWalk = loop;
    else if (loadsSlidingWindow(loop))
      sliding = loop;
    else
      return WalkResult::advance();
    return WalkResult::interrupt();
  });
  if (laneWalk) {
    if (pgpu::remarksEnabled(kernel))
      emitRemark(laneWalk.getLoc()) << "triton: LOOP_STAGES defaults to 1: this walk addresses its lanes "
                                       "through carried lane divisions (no contiguous pointers), so a pipeline "
                                       "would hold each stage's lane pointers in registers and cut the "
                                       "programs a multiprocessor holds";
    setDefault(kernel, triton::kLoopStagesParam, kLoopStages[0]);
    return;
  }
  if (sliding) {
    setDefault(kernel, triton::kLoopStagesParam, kLoopStages[0]);
    if (pgpu::remarksEnabled(kernel))
      emitRemark(sliding.getLoc()) << "triton: the walk loads sliding windows (neighbouring lanes' reads overlap, "
                                      "served by L1): LOOP_STAGES defaults to 1, no pipelined copies";
    return;
  }
  triton::ResourceModel model = triton::estimateResources(kernel);
  llvm::StringMap<int64_t> at = declaredDefaults(kernel);
  int64_t depth = kDefaultLoopStages;
  for (; depth > kLoopStages[0]; --depth) {
    at[triton::kLoopStagesParam] = depth;
    if (model.sharedNeededAt(at) <= model.sharedLimit &&
        triton::ResourceModel::evaluateMax(model.loopBuffers, at) <= kLoopBytesInFlight)
      break;
  }
  if (depth != kDefaultLoopStages)
    setDefault(kernel, triton::kLoopStagesParam, depth);
}

/// Declares the provider switches (TMA, FLATTEN) and chooses the tile, lane, loop-stage and Gluon
/// defaults of `kernel` (TritonLegalize's decisions after the expansions).
void declareDefaults(pgpu::KernelOp kernel) {
  bool boxes = false, walks = false, fixedAxes = false;
  kernel.walk([&](Operation *op) {
    std::optional<triton::TileAccess> box;
    if (isa<pgpu::LoadOp, pgpu::StoreOp>(op) && !triton::keepsPointerSpelling(op))
      box = triton::matchTileAccess(op);
    boxes |= box.has_value();
    fixedAxes |= box && box->dimOf.size() > 2;
    if (auto loop = dyn_cast<pgpu::ForOp>(op))
      walks |= triton::isInstanceWalk(loop);
  });
  MLIRContext *ctx = kernel.getContext();
  SmallVector<Attribute> params(kernel.getParams()->begin(), kernel.getParams()->end());
  auto declareSwitch = [&](StringRef name, int64_t defaultValue) {
    if (!kernel.getParam(name))
      params.push_back(pgpu::ParamAttr::get(ctx, StringAttr::get(ctx, name), {0, 1}, defaultValue,
                                            StringAttr::get(ctx, "triton")));
  };
  // Boxes with fixed axes (a scalar batch or head coordinate: descriptors of rank 3-5) are
  // declared off: measured slower on the H200 for attention's key and value tiles (causal bf16
  // 4x32x4096x128 1.390 against 1.239 ms, bias 3.30 against 2.85; D=96 device time 0.062 against
  // 0.070 ms but 17 us more on the host; session 13).
  if (boxes)
    declareSwitch(triton::kTmaParam, fixedAxes || reducesBoxesBesideProducts(kernel) ? 0 : 1);
  if (walks)
    declareSwitch(triton::kFlattenParam, 0);
  kernel.setParamsAttr(ArrayAttr::get(ctx, params));
  chooseFmaTileDefaults(kernel);
  chooseContractionDefaults(kernel);
  chooseLaneDefaults(kernel);
  declareLoopStages(kernel);
  declareGluon(kernel);
}

/// Runs `decide` (which declares parameters and sets their defaults, and changes nothing else) on the
/// program the declared defaults compile, then gives `kernel` the parameters it chose: where `kernel`
/// has split alternatives (triton::isSplitAlternative), on a copy without the branches the declared
/// defaults do not take (pgpu-split-contractions' split branch at SPLIT_K = 1, so a GEMM's defaults, its
/// staged store, pipeline depth and tiles, are those of its unsplit loop).
void decideOnTaken(pgpu::KernelOp kernel, llvm::function_ref<void(pgpu::KernelOp)> decide) {
  if (!kernel.walk([&](pgpu::IfOp i) {
               return triton::isSplitAlternative(i) ? WalkResult::interrupt() : WalkResult::advance();
             }).wasInterrupted()) {
    decide(kernel);
    return;
  }
  OpBuilder b(kernel);
  auto copy = cast<pgpu::KernelOp>(b.clone(*kernel.getOperation()));
  llvm::StringMap<int64_t> defaults = declaredDefaults(copy);
  SmallVector<pgpu::IfOp> untaken;
  copy.walk<WalkOrder::PostOrder>([&](pgpu::IfOp i) {
    if (triton::isSplitAlternative(i) && triton::parameterValue(i.getCondition(), defaults))
      untaken.push_back(i);
  });
  for (pgpu::IfOp i : untaken) {
    Region &taken = *triton::parameterValue(i.getCondition(), defaults) ? i.getThenRegion() : i.getElseRegion();
    if (!taken.empty()) {
      Block &block = taken.front();
      block.getTerminator()->erase();
      i->getBlock()->getOperations().splice(Block::iterator(i), block.getOperations());
    }
    i.erase();
  }
  decide(copy);
  kernel.setParamsAttr(copy.getParamsAttr());
  copy.erase();
}

/// Each loop gets its own copy of an elementwise operand of FMA-spelled contractions computed before
/// several loops (corpus 305 at its bench shape: the rotated query halves, computed once per program, are
/// the lhs of the score products in all four key loops of the two-pass fold). Triton 3.6's
/// TritonGPURemoveLayoutConversions (the run after AccelerateMatmul) rematerializes such an operand in the
/// dot-operand layout of the blocked FMA layout inside the first loop it converts for and reuses that copy
/// for the conversion in a sibling loop, which it does not dominate ("operand #0 does not dominate this
/// use": the compile fails, PassManager::run failed). With a copy of the producing op before each
/// contraction the original has no use left and is erased; Triton's CSE does not merge copies in sibling
/// loops, and its LICM, which runs after layout assignment, hoists them out again, so the loops compute
/// what they did. Recomputing a pure value is a rewrite seed 002 §4 allows. It fires only where every use
/// of the operand is such a contraction in a loop not containing its definition, and there are two loops
/// or more; the producing op is elementwise (pgpu.binary, unary, select, cast) over values defined outside
/// those loops, as Triton's rematerialization walks them.
void copySharedFmaOperands(pgpu::KernelOp kernel) {
  auto enclosingLoop = [](Operation *op) { return op->getParentOfType<pgpu::ForOp>(); };
  llvm::SetVector<Value> operands;
  kernel.walk([&](pgpu::ContractOp c) {
    if (triton::contractsWithFMA(c))
      for (Value v : {c.getLhs(), c.getRhs()})
        operands.insert(v);
  });
  bool remarks = pgpu::remarksEnabled(kernel);
  for (Value v : operands) {
    Operation *def = v.getDefiningOp();
    if (!def || !isa<pgpu::BinaryOp, pgpu::UnaryOp, pgpu::SelectOp, pgpu::CastOp>(def) || def->getNumResults() != 1)
      continue;
    llvm::SmallPtrSet<Operation *, 4> loops;
    bool onlyLoopContractions = llvm::all_of(v.getUses(), [&](OpOperand &use) {
      auto c = dyn_cast<pgpu::ContractOp>(use.getOwner());
      if (!c || !triton::contractsWithFMA(c) || use.getOperandNumber() > 1)
        return false;
      pgpu::ForOp loop = enclosingLoop(c);
      if (!loop || loop->isAncestor(def))
        return false;
      loops.insert(loop);
      return true;
    });
    if (!onlyLoopContractions || loops.size() < 2)
      continue;
    SmallVector<OpOperand *> uses(llvm::make_pointer_range(v.getUses()));
    for (OpOperand *use : uses) {
      OpBuilder b(use->getOwner());
      use->set(b.clone(*def)->getResult(0));
    }
    if (remarks)
      emitRemark(def->getLoc()) << "triton: this contraction operand is computed again in each of the "
                                << loops.size()
                                << " loops that read it (Triton 3.6 reuses one loop's copy in another and "
                                   "fails; its LICM hoists the copies out again)";
    def->erase();
  }
}

struct TritonLegalize : public tessel::triton::impl::TritonLegalizeBase<TritonLegalize> {
  void runOnOperation() override {
    SmallVector<pgpu::KernelOp> kernels(getOperation().getOps<pgpu::KernelOp>());
    for (pgpu::KernelOp kernel : kernels) {
      narrowHistogramBins(kernel);
      narrowEightBitDots(kernel);
      widenStagedRows(kernel);
      decideOnTaken(kernel, declareLaunchParams);
    }
    // Innermost first: nested reductions expand from the inside out.
    SmallVector<pgpu::RangeReduceOp> reduces;
    getOperation().walk<WalkOrder::PostOrder>([&](pgpu::RangeReduceOp op) { reduces.push_back(op); });
    for (pgpu::RangeReduceOp op : reduces)
      pgpu::expandRangeReduce(op);
    // Scans left unblocked run in member order, one member at a time.
    SmallVector<pgpu::RangeScanOp> scans;
    getOperation().walk<WalkOrder::PostOrder>([&](pgpu::RangeScanOp op) { scans.push_back(op); });
    for (pgpu::RangeScanOp op : scans)
      pgpu::expandRangeScan(op);
    // Region folds left unblocked run their segments in order.
    SmallVector<pgpu::RegionFoldOp> folds;
    getOperation().walk<WalkOrder::PostOrder>([&](pgpu::RegionFoldOp op) { folds.push_back(op); });
    for (pgpu::RegionFoldOp op : folds)
      pgpu::expandRegionFold(op);
    SmallVector<pgpu::RegionScanOp> regionScans;
    getOperation().walk<WalkOrder::PostOrder>([&](pgpu::RegionScanOp op) { regionScans.push_back(op); });
    for (pgpu::RegionScanOp op : regionScans)
      pgpu::expandRegionScan(op);
    for (pgpu::KernelOp kernel : kernels)
      copySharedFmaOperands(kernel);
    // Box accesses may be spelled as tensor descriptors (TMA): a provider switch the tuner searches,
    // on by default (measured on the H200 with persistent GEMM tiles: 0.93-1.01x cuBLAS, against
    // 0.88-1.0x with pointer loads, 2026-11-30).
    // A persistent walk of instances may be flattened (FLATTEN, declared off; the sm_90 contraction
    // defaults below turn it on where they apply, as measured with bf16 GEMM tiles).
    for (pgpu::KernelOp kernel : kernels)
      decideOnTaken(kernel, declareDefaults);
    // Provider verifier (seed 002 §5.4): everything left must have a Triton spelling.
    // Construction may hold several copies of one KIR op (a guarded fast path and its fallback);
    // each issue is reported once per source location.
    bool spellable = true;
    std::set<std::pair<const void *, std::string>> reported;
    getOperation().walk([&](Operation *op) {
      // A scatter-reduce spelled as one atomic never spells its combine (a max_num has no
      // elementwise spelling but is tl.atomic_max of the non-NaN updates).
      if (auto sr = op->getParentOfType<pgpu::ScatterReduceOp>(); sr && triton::scatterAtomic(sr))
        return;
      if (std::optional<std::string> issue = triton::spellingIssue(op)) {
        spellable = false;
        std::string message = "the Triton provider cannot express '" + op->getName().getStringRef().str() +
                              "': " + *issue;
        if (reported.emplace(op->getLoc().getAsOpaquePointer(), message).second)
          op->emitError() << message;
      }
    });
    if (!spellable)
      signalPassFailure();
  }
};
} // namespace
