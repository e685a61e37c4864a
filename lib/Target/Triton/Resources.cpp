//===- Resources.cpp - resource estimates of a Triton candidate ------------===//

#include "tessel/Target/Triton/Resources.h"
#include "tessel/Target/Triton/TileAccess.h"
#include "tessel/Target/Triton/Triton.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace tessel;

namespace {
/// pgpu-stage-operands' parameter (StageOperands.cpp): 2 stages a computed operand in a first phase.
constexpr llvm::StringLiteral kOperandPhasesParam = "OPERAND_PHASES";

/// Whether `v` is a loop's result or computed from one (within `depth` producers).
bool madeFromLoop(Value v, int depth = 8) {
  Operation *def = v.getDefiningOp();
  if (!def || depth < 0)
    return false;
  return isa<pgpu::ForOp>(def) ||
         llvm::any_of(def->getOperands(), [&](Value o) { return madeFromLoop(o, depth - 1); });
}

/// Whether integer fragment `v` is a division or remainder of lanes by a fragment, or made from one
/// (within `depth` producers): pgpu-form-blocking's carried lane coordinates (j / P, j / P + 1, j % P
/// of a flattened walk's lanes, FormBlocking.cpp carryLaneDivisions). Unlike an iota or a splat, the
/// backend does not rematerialize such a vector in the loop that reads it: it stays live across the walk.
bool dividedLanes(Value v, int depth = 4) {
  auto f = dyn_cast<pgpu::FragmentType>(v.getType());
  Operation *def = v.getDefiningOp();
  if (!f || !f.getElementType().isIntOrIndex() || f.getElementType().isInteger(1) || !def || depth < 0)
    return false;
  if (auto bin = dyn_cast<pgpu::BinaryOp>(def))
    if ((bin.getKind() == kir::BinaryKind::Div || bin.getKind() == kir::BinaryKind::Rem) &&
        isa<pgpu::FragmentType>(bin.getRhs().getType()))
      return true;
  return isa<pgpu::BinaryOp, pgpu::SelectOp>(def) &&
         llvm::any_of(def->getOperands(), [&](Value o) { return dividedLanes(o, depth - 1); });
}

/// The lane coordinates carried into `loop` (dividedLanes, made before it in its block, read in it).
SmallVector<Value> carriedLaneDivisions(pgpu::ForOp loop) {
  SmallVector<Value> carried;
  for (Operation *before = loop->getPrevNode(); before; before = before->getPrevNode())
    for (Value v : before->getResults())
      if (dividedLanes(v) && llvm::any_of(v.getUsers(), [&](Operation *user) { return loop->isAncestor(user); }))
        carried.push_back(v);
  return carried;
}

/// Bytes of one fragment as a monomial in its extent parameters.
triton::Monomial fragmentBytes(pgpu::FragmentType type) {
  triton::Monomial m;
  Type element = type.getElementType();
  m.coefficient = element.isIndex() ? 4 : std::max<int64_t>(1, element.getIntOrFloatBitWidth() / 8);
  for (Attribute e : type.getExtents()) {
    if (auto size = dyn_cast<IntegerAttr>(e))
      m.coefficient *= size.getInt();
    else
      m.params.push_back(cast<StringAttr>(e).getValue().str());
  }
  return m;
}

/// Elements of one fragment as a monomial in its extent parameters.
triton::Monomial fragmentElements(pgpu::FragmentType type) {
  triton::Monomial m = fragmentBytes(type);
  Type element = type.getElementType();
  m.coefficient /= element.isIndex() ? 4 : std::max<int64_t>(1, element.getIntOrFloatBitWidth() / 8);
  return m;
}

/// Rows of one warpgroup's wgmma (sm_90: m64 per 4 warps), and the elements a thread of a program
/// without contractions should hold of its largest fragment (loads in flight, masks and the math
/// of a streamed row take the rest of the 255 registers; the H200 softmax sweep of 2026-11-30 was
/// fastest at BLOCK 8192 with 8 warps).
constexpr int64_t kWarpgroupRows = 64;
constexpr int64_t kStreamedElementsPerThread = 32;
/// ... and each thread should move two 16-byte vectors of its largest loaded fragment, with 1 to 4
/// warps for that floor: on the H200 bf16 rows of 1024 ran fastest at 2 warps (softmax 7.3 us
/// against 8.2 us at 4), f32 rows of 1024 at 4 (2026-12-01).
constexpr int64_t kStreamedBytesPerThread = 32;
constexpr int64_t kStreamedFloorWarps = 4;
/// A lanewise program (no cross-lane combination, nothing carried) has no reduction tree that
/// fewer threads would shorten, and its registers grow with the math of each element it holds:
/// each thread moves one 16-byte vector of its largest loaded fragment. The bf16 form of
/// examples/fused_pointwise.py (f32 math: accurate tanh, exp, division, sqrt) at BLOCK 512 took 126
/// registers a thread at 1 warp (16 elements a thread; sm_90 ptxas): 16 warps a multiprocessor
/// (1-warp CTAs never more than 32, its CTA limit), 0.252 ms on the H200; 2 warps (8 elements, 64
/// registers) 0.188 ms, 4 warps 0.194, torch.compile 0.204 (2026-12-02).
constexpr int64_t kLanewiseBytesPerThread = 16;
/// A reduction of pairs (an arg-reduction: value and index) is fastest with few threads each folding
/// many elements, since every cross-thread step moves and compares both: on the H200 argmax
/// 16384x8192 ran 124 us at 2 warps (128 elements a thread) against 198 us at 8 and 320 us at 4
/// (2026-12-01).
constexpr int64_t kPairedElementsPerThread = 128;
constexpr int64_t kWarpChoices[] = {1, 2, 4, 8, 16};

/// The fewest warps, and the elements a thread should hold, of a program without contractions.
std::pair<int64_t, int64_t> streamingRule(bool paired) {
  return paired ? std::pair<int64_t, int64_t>{2, kPairedElementsPerThread}
                : std::pair<int64_t, int64_t>{4, kStreamedElementsPerThread};
}

/// Whether `v` holds a contraction's accumulator in the contraction's register layout: a
/// contraction's result, the result of a loop whose body yields one, or an element-wise map of one
/// (a cast, a unary or binary operation keeps the layout).
bool holdsAccumulator(Value v, int depth = 0) {
  Operation *def = v.getDefiningOp();
  if (!def || depth > 8)
    return false;
  if (isa<pgpu::ContractOp, pgpu::ScaledContractOp, pgpu::SparseContractOp>(def))
    return true;
  if (auto loop = dyn_cast<pgpu::ForOp>(def))
    return holdsAccumulator(loop.getBody().front().getTerminator()->getOperand(cast<OpResult>(v).getResultNumber()),
                            depth + 1);
  if (isa<pgpu::CastOp, pgpu::UnaryOp, pgpu::BinaryOp>(def))
    return llvm::any_of(def->getOperands(), [&](Value x) { return holdsAccumulator(x, depth + 1); });
  return false;
}

/// The contraction in `block` whose tile `v` is an element-wise map of (casts, unary and binary
/// operations, selects, within 8 producers in `block`), or null.
pgpu::ContractOp chainedFrom(Value v, Block *block, int depth = 0) {
  Operation *def = v.getDefiningOp();
  if (!def || def->getBlock() != block || depth > 8 || !isa<pgpu::FragmentType>(v.getType()))
    return {};
  if (auto c = dyn_cast<pgpu::ContractOp>(def))
    return c;
  if (!isa<pgpu::CastOp, pgpu::UnaryOp, pgpu::BinaryOp, pgpu::SelectOp>(def))
    return {};
  for (Value x : def->getOperands())
    if (pgpu::ContractOp c = chainedFrom(x, block, depth + 1))
      return c;
  return {};
}

/// Whether two polynomials have the same terms in the same order.
bool sameTerms(const std::vector<triton::Monomial> &a, const std::vector<triton::Monomial> &b) {
  return llvm::equal(a, b, [](const triton::Monomial &x, const triton::Monomial &y) {
    return x.coefficient == y.coefficient && x.params == y.params;
  });
}

/// Shared memory limit of the module's target (sm_90's 227 KiB when absent).
int64_t sharedLimitOf(pgpu::KernelOp kernel) {
  if (auto module = kernel->getParentOfType<ModuleOp>())
    if (auto target = module->getAttrOfType<pgpu::TargetAttr>("pgpu.target"))
      if (target.getSharedMemoryBytes() > 0)
        return target.getSharedMemoryBytes();
  return 232448;
}
} // namespace

int64_t triton::ResourceModel::evaluate(const std::vector<Monomial> &poly, const llvm::StringMap<int64_t> &params) {
  int64_t total = 0;
  for (const Monomial &m : poly) {
    int64_t v = m.coefficient;
    for (const std::string &p : m.params) {
      auto it = params.find(p);
      v *= it == params.end() ? 1 : it->second;
    }
    total += v;
  }
  return total;
}

int64_t triton::ResourceModel::evaluateMax(const std::vector<std::vector<Monomial>> &polys,
                                           const llvm::StringMap<int64_t> &params) {
  int64_t most = 0;
  for (const std::vector<Monomial> &poly : polys)
    most = std::max(most, evaluate(poly, params));
  return most;
}

/// 32-bit registers per thread that `bytes` spread over the program's threads take.
static int64_t registersPerThread(int64_t bytes, const llvm::StringMap<int64_t> &params) {
  auto warps = params.find(triton::kWarpsParam);
  int64_t threads = 32 * (warps == params.end() ? 4 : warps->second);
  return (bytes / 4 + threads - 1) / threads;
}

int64_t triton::ResourceModel::carriedRegistersAt(const llvm::StringMap<int64_t> &params) const {
  return registersPerThread(evaluateMax(carriedBytes, params), params);
}

int64_t triton::ResourceModel::largestRegistersAt(const llvm::StringMap<int64_t> &params) const {
  int64_t largest = 0;
  for (const Monomial &m : fragmentBytes)
    largest = std::max(largest, evaluate({m}, params));
  return registersPerThread(largest, params);
}

int64_t triton::ResourceModel::fmaRegistersAt(const llvm::StringMap<int64_t> &params) const {
  return registersPerThread(evaluateMax(fmaContractBytes, params), params);
}

int64_t triton::ResourceModel::scanRegistersAt(const llvm::StringMap<int64_t> &params) const {
  return registersPerThread(evaluateMax(scanBytes, params), params);
}

int64_t triton::ResourceModel::inFlightRegistersAt(const llvm::StringMap<int64_t> &params) const {
  return registersPerThread(evaluateMax(inFlightLoadBytes, params), params);
}

int64_t triton::ResourceModel::chainedRegistersAt(const llvm::StringMap<int64_t> &params) const {
  return registersPerThread(evaluateMax(chainedProductBytes, params), params);
}

int64_t triton::ResourceModel::warpsAt(const llvm::StringMap<int64_t> &params) const {
  int64_t need = 4;
  if (!accumulatorRows.empty()) {
    for (const Monomial &m : accumulatorRows)
      need = std::max(need, 4 * ((evaluate({m}, params) + kWarpgroupRows - 1) / kWarpgroupRows));
  } else {
    auto [fewest, perThread] = streamingRule(pairedReduction);
    need = fewest;
    if (!pairedReduction && !loadedBytes.empty()) {
      need = 1;
      int64_t perThread = lanewise ? kLanewiseBytesPerThread : kStreamedBytesPerThread;
      for (const Monomial &m : loadedBytes)
        need = std::max(need, std::min(kStreamedFloorWarps, (evaluate({m}, params) + 32 * perThread - 1) /
                                                                (32 * perThread)));
    }
    for (const Monomial &m : fragmentElements)
      need = std::max(need, (evaluate({m}, params) + 32 * perThread - 1) / (32 * perThread));
  }
  for (int64_t w : kWarpChoices)
    if (w >= need)
      return w;
  return kWarpChoices[std::size(kWarpChoices) - 1];
}

std::string triton::ResourceModel::pythonWarps() const {
  auto [fewest, perThread] = streamingRule(pairedReduction);
  std::string floor = std::to_string(fewest);
  if (!pairedReduction && !loadedBytes.empty())
    floor = "max(1, min(" + std::to_string(kStreamedFloorWarps) + ", -(-(" +
            pythonMax(loadedBytes) + ") // " +
            std::to_string(32 * (lanewise ? kLanewiseBytesPerThread : kStreamedBytesPerThread)) + ")))";
  std::string need =
      accumulatorRows.empty()
          ? "max(" + floor + ", -(-(" + pythonMax(fragmentElements) + ") // " +
                std::to_string(32 * perThread) + "))"
          : "4 * -(-(" + pythonMax(accumulatorRows) + ") // " + std::to_string(kWarpgroupRows) + ")";
  std::string choices;
  for (int64_t w : kWarpChoices)
    choices += (choices.empty() ? "" : ", ") + std::to_string(w);
  return "next((w for w in (" + choices + ") if w >= " + need + "), " +
         std::to_string(kWarpChoices[std::size(kWarpChoices) - 1]) + ")";
}

int64_t triton::ResourceModel::loopLoadBytesPerThreadAt(const llvm::StringMap<int64_t> &params) const {
  auto warps = params.find(triton::kWarpsParam);
  int64_t threads = 32 * (warps == params.end() ? 4 : warps->second), most = 0;
  for (const Loop &loop : loops)
    most = std::max(most, (evaluate(loop.loaded, params) + threads - 1) / threads);
  return most;
}

bool triton::ResourceModel::loopsFitAt(const llvm::StringMap<int64_t> &params) const {
  return llvm::all_of(loops, [&](const Loop &loop) {
    return registersPerThread(evaluate(loop.carried, params), params) <= carriedRegisterLimit &&
           evaluate(loop.staged, params) <= sharedLimit;
  });
}

bool triton::ResourceModel::storesStagedAt(const llvm::StringMap<int64_t> &params) const {
  auto tma = params.find(kTmaParam);
  return stagesStores && (tma == params.end() || tma->second == 1) && sharedAt(params) <= sharedLimit;
}

int64_t triton::ResourceModel::sharedNeededAt(const llvm::StringMap<int64_t> &params) const {
  return !stagesStores || storesStagedAt(params) ? sharedAt(params) : evaluateMax(pointerSharedBytes, params);
}

std::string triton::ResourceModel::pythonSharedNeeded() const {
  if (!stagesStores)
    return pythonMax(sharedBytes);
  return "(_staged if p['" + kTmaParam.str() + "'] == 1 and (_staged := " + pythonMax(sharedBytes) +
         ") <= " + std::to_string(sharedLimit) + " else " + pythonMax(pointerSharedBytes) + ")";
}

bool triton::ResourceModel::dominates(const std::vector<Monomial> &b, const std::vector<Monomial> &a) {
  llvm::SmallVector<bool> used(b.size(), false);
  bool all = llvm::all_of(a, [&](const Monomial &m) {
    for (auto [i, o] : llvm::enumerate(b))
      if (!used[i] && o.coefficient == m.coefficient && o.params == m.params)
        return used[i] = true;
    return false;
  });
  return all && llvm::all_of(llvm::enumerate(b), [&](auto o) { return used[o.index()] || o.value().coefficient > 0; });
}

std::optional<std::string> triton::ResourceModel::pruneReason(const llvm::StringMap<int64_t> &params) const {
  if (sharedNeededAt(params) > sharedLimit)
    return std::string("shared memory");
  if (carriedRegistersAt(params) > carriedStateLimit || largestRegistersAt(params) > carriedRegisterLimit ||
      fmaRegistersAt(params) > carriedRegisterLimit || scanRegistersAt(params) > carriedRegisterLimit ||
      inFlightRegistersAt(params) > carriedRegisterLimit ||
      chainedRegistersAt(params) > chainedRegisterLimit)
    return std::string("registers");
  return std::nullopt;
}

std::string triton::ResourceModel::python(const std::vector<Monomial> &poly) {
  if (poly.empty())
    return "0";
  std::string text;
  for (const Monomial &m : poly) {
    if (!text.empty())
      text += " + ";
    text += std::to_string(m.coefficient);
    for (const std::string &p : m.params)
      text += " * p['" + p + "']";
  }
  return text;
}

std::string triton::ResourceModel::pythonMax(const std::vector<Monomial> &monomials) {
  if (monomials.empty())
    return "0";
  if (monomials.size() == 1)
    return python(monomials);
  std::string text = "max(";
  for (auto [i, m] : llvm::enumerate(monomials))
    text += (i ? ", " : "") + python({m});
  return text + ")";
}

std::string triton::ResourceModel::pythonMax(const std::vector<std::vector<Monomial>> &polys) {
  if (polys.empty())
    return "0";
  if (polys.size() == 1)
    return python(polys.front());
  std::string text = "max(";
  for (auto [i, poly] : llvm::enumerate(polys))
    text += (i ? ", " : "") + python(poly);
  return text + ")";
}

/// The fragment loads of `loop`'s body (not nested deeper) that `v` is computed from element-wise in that
/// body: a walk back through operands defined in the body, stopping at loads, contractions (whose own
/// operands they stage) and anything defined outside.
static llvm::SmallVector<Operation *> loadsFeeding(Value v, pgpu::ForOp loop) {
  llvm::SmallVector<Operation *> loads, work;
  llvm::SmallPtrSet<Operation *, 16> seen;
  if (Operation *d = v.getDefiningOp())
    work.push_back(d);
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    if (!seen.insert(op).second || !loop->isProperAncestor(op) || op->getParentOfType<pgpu::ForOp>() != loop)
      continue;
    if (isa<pgpu::LoadOp, pgpu::GatherOp>(op)) {
      if (isa<pgpu::FragmentType>(op->getResult(0).getType()))
        loads.push_back(op);
      continue;
    }
    if (isa<pgpu::ContractOp>(op) || op->getNumRegions())
      continue;
    for (Value operand : op->getOperands())
      if (Operation *d = operand.getDefiningOp(); d && isa<pgpu::FragmentType>(operand.getType()))
        work.push_back(d);
  }
  return loads; // in the walk's order: deterministic for one program
}

triton::ResourceModel triton::estimateResources(pgpu::KernelOp kernel) {
  llvm::StringMap<int64_t> defaults;
  if (auto declared = kernel.getParams())
    for (Attribute a : *declared)
      defaults[cast<pgpu::ParamAttr>(a).getName().getValue()] = cast<pgpu::ParamAttr>(a).getDefaultValue();
  return estimateResources(kernel, defaults);
}

triton::ResourceModel triton::estimateResources(pgpu::KernelOp kernel, const llvm::StringMap<int64_t> &binding) {
  // An alternative the binding does not take is never compiled (untakenAt): it holds no resources.
  auto untaken = [&](Operation *op) { return triton::untakenAt(op, binding); };
  ResourceModel model;
  model.sharedLimit = sharedLimitOf(kernel);
  // sm_90 has 255 registers per thread; carried fragments may take about half, the rest holds
  // addresses, masks, operands in flight and the epilogue.
  model.carriedRegisterLimit = 128;
  // An accumulator of exactly that half (FlashAttention's 64 x 256 f32 accumulator a warpgroup at head
  // size 256, 128 registers a thread) still carries its rows' statistics beside it: a [64] f32 vector
  // counts half a register a thread, and 128.5 rounded up had rejected every 64-row lane block at D = 256,
  // leaving 32-row blocks that warpgroup MMA does not tile (corpus 280: mma.sync at 255 registers).
  model.carriedStateLimit = model.carriedRegisterLimit + 4;
  // A chained product's tiles (chainedProductBytes) are live together only around the second product,
  // when nothing is carried: three quarters of the 255, the rest for addresses, masks, the row's
  // statistics and operands in flight. A flash-attention tile at D 128 (128x128 scores, 8 warps: 64 +
  // 32 + 64) stays within it; a [64, 256] score tile at 4 warps (128 + 64 + 32) does not.
  model.chainedRegisterLimit = 192;
  // Every distinct fragment type, once (index fragments count 4 bytes a lane).
  llvm::SmallPtrSet<Type, 8> seen;
  kernel.walk([&](Operation *op) {
    if (untaken(op))
      return;
    for (Value v : op->getResults())
      if (auto f = dyn_cast<pgpu::FragmentType>(v.getType()); f && seen.insert(f).second) {
        Monomial e = fragmentElements(f);
        if (llvm::none_of(model.fragmentElements, [&](const Monomial &o) {
              return o.coefficient == e.coefficient && o.params == e.params;
            }))
          model.fragmentElements.push_back(e);
        Monomial m = fragmentBytes(f);
        if (llvm::none_of(model.fragmentBytes, [&](const Monomial &o) {
              return o.coefficient == m.coefficient && o.params == m.params;
            }))
          model.fragmentBytes.push_back(m);
      }
  });
  kernel.walk([&](Operation *op) {
    if (untaken(op))
      return;
    if (!isa<pgpu::LoadOp, pgpu::GatherOp>(op))
      return;
    if (auto f = dyn_cast<pgpu::FragmentType>(op->getResult(0).getType())) {
      Monomial m = fragmentBytes(f);
      if (llvm::none_of(model.loadedBytes, [&](const Monomial &o) {
            return o.coefficient == m.coefficient && o.params == m.params;
          }))
        model.loadedBytes.push_back(m);
    }
  });
  kernel.walk([&](pgpu::ReduceOp r) {
    if (!untaken(r))
      model.pairedReduction |= r.getNumResults() > 1;
  });
  kernel.walk([&](Operation *op) {
    if (untaken(op))
      return;
    if (isa<pgpu::ReduceOp, pgpu::RangeReduceOp, pgpu::ScanOp, pgpu::RangeScanOp, pgpu::ArgReduceOp,
            pgpu::ContractOp, pgpu::ScaledContractOp, pgpu::SparseContractOp, pgpu::RegionFoldOp,
            pgpu::RegionScanOp, pgpu::HistogramOp, pgpu::ScatterReduceOp, pgpu::AtomicRMWOp, pgpu::AtomicCASOp>(op))
      model.lanewise = false;
    if (auto loop = dyn_cast<pgpu::ForOp>(op); loop && !loop.getInits().empty())
      model.lanewise = false;
  });
  kernel.walk([&](pgpu::ContractOp c) {
    if (untaken(c))
      return;
    auto acc = cast<pgpu::FragmentType>(c.getResult().getType());
    size_t rank = acc.getExtents().size();
    if (rank < 2)
      return;
    Monomial rows;
    if (auto size = dyn_cast<IntegerAttr>(acc.getExtents()[rank - 2]))
      rows.coefficient = size.getInt();
    else
      rows.params.push_back(cast<StringAttr>(acc.getExtents()[rank - 2]).getValue().str());
    if (llvm::none_of(model.accumulatorRows, [&](const Monomial &o) {
          return o.coefficient == rows.coefficient && o.params == rows.params;
        }))
      model.accumulatorRows.push_back(rows);
  });
  // The tiles of each FMA-spelled contraction, once per distinct set of tile types.
  kernel.walk([&](pgpu::ContractOp c) {
    if (untaken(c))
      return;
    if (!triton::contractsWithFMA(c))
      return;
    std::vector<Monomial> tiles;
    for (Value v : {c.getLhs(), c.getRhs(), c.getAcc()})
      tiles.push_back(fragmentBytes(cast<pgpu::FragmentType>(v.getType())));
    auto same = [](const std::vector<Monomial> &a, const std::vector<Monomial> &b) {
      return llvm::equal(a, b, [](const Monomial &x, const Monomial &y) {
        return x.coefficient == y.coefficient && x.params == y.params;
      });
    };
    if (llvm::none_of(model.fmaContractBytes, [&](const std::vector<Monomial> &o) { return same(o, tiles); }))
      model.fmaContractBytes.push_back(std::move(tiles));
  });
  // Each chained product's tiles: the first product's tile, the operand the second reads made of it
  // element-wise in the same block, and the second's accumulator, once per distinct set.
  kernel.walk([&](pgpu::ContractOp second) {
    if (untaken(second))
      return;
    for (Value operand : {second.getLhs(), second.getRhs()}) {
      pgpu::ContractOp first = chainedFrom(operand, second->getBlock());
      if (!first)
        continue;
      std::vector<Monomial> tiles;
      for (Value v : {first.getResult(), operand, second.getAcc()})
        tiles.push_back(fragmentBytes(cast<pgpu::FragmentType>(v.getType())));
      if (llvm::none_of(model.chainedProductBytes, [&](const std::vector<Monomial> &o) { return sameTerms(o, tiles); }))
        model.chainedProductBytes.push_back(std::move(tiles));
    }
  });
  // The components of each fragment scan and their prefixes, live at once (the scan takes them all).
  kernel.walk([&](pgpu::ScanOp scan) {
    if (untaken(scan))
      return;
    std::vector<Monomial> parts; // like terms merged: 32 components of 4 * BLOCK bytes are 256 * BLOCK
    for (Value v : scan.getInputs())
      if (auto f = dyn_cast<pgpu::FragmentType>(v.getType())) {
        Monomial m = fragmentBytes(f);
        m.coefficient *= 2;
        auto like = llvm::find_if(parts, [&](const Monomial &o) { return o.params == m.params; });
        if (like != parts.end())
          like->coefficient += m.coefficient;
        else
          parts.push_back(m);
      }
    auto same = [](const std::vector<Monomial> &a, const std::vector<Monomial> &b) {
      return llvm::equal(a, b, [](const Monomial &x, const Monomial &y) {
        return x.coefficient == y.coefficient && x.params == y.params;
      });
    };
    if (!parts.empty() && llvm::none_of(model.scanBytes, [&](const std::vector<Monomial> &o) { return same(o, parts); }))
      model.scanBytes.push_back(std::move(parts));
  });
  // The loads of each walk's iteration in a lanewise program, where a lane loads more than 16 bytes
  // (inFlightLoadBytes): the iteration's loaded fragments share their extents, so bytes a lane are
  // the sum of their elements' sizes.
  if (model.lanewise)
    kernel.walk([&](pgpu::ForOp loop) {
      if (untaken(loop))
        return;
      std::vector<Monomial> loaded;
      ArrayRef<Attribute> extents;
      int64_t laneBytes = 0;
      bool alike = true;
      loop.getBody().walk([&](Operation *op) {
        if (untaken(op) || op->getParentOfType<pgpu::ForOp>() != loop || !isa<pgpu::LoadOp, pgpu::GatherOp>(op))
          return;
        auto f = dyn_cast<pgpu::FragmentType>(op->getResult(0).getType());
        if (!f)
          return;
        if (loaded.empty())
          extents = f.getExtents();
        alike &= f.getExtents() == extents;
        Type element = f.getElementType();
        laneBytes += element.isIndex() ? 4 : std::max<int64_t>(1, element.getIntOrFloatBitWidth() / 8);
        Monomial m = fragmentBytes(f); // like terms merged: 291's nine [BLOCK] loads are 28 * BLOCK
        auto like = llvm::find_if(loaded, [&](const Monomial &o) { return o.params == m.params; });
        if (like != loaded.end())
          like->coefficient += m.coefficient;
        else
          loaded.push_back(m);
      });
      if (!alike || laneBytes * kStreamedElementsPerThread <= 4 * model.carriedRegisterLimit ||
          llvm::any_of(model.inFlightLoadBytes, [&](const std::vector<Monomial> &o) { return sameTerms(o, loaded); }))
        return;
      model.inFlightLoadBytes.push_back(std::move(loaded));
    });
  // The loads of each reduction loop's iteration, by the declared parameter that steps it.
  auto addStep = [&](std::string name, std::vector<Monomial> loaded) {
    auto it = llvm::find_if(model.reductionSteps, [&](const auto &s) { return s.first == name; });
    if (it == model.reductionSteps.end())
      it = model.reductionSteps.insert(model.reductionSteps.end(), {name, {}});
    auto same = [](const std::vector<Monomial> &a, const std::vector<Monomial> &b) {
      return llvm::equal(a, b, [](const Monomial &x, const Monomial &y) {
        return x.coefficient == y.coefficient && x.params == y.params;
      });
    };
    if (llvm::none_of(it->second, [&](const std::vector<Monomial> &o) { return same(o, loaded); }))
      it->second.push_back(std::move(loaded));
  };
  kernel.walk([&](pgpu::ForOp loop) {
    if (untaken(loop))
      return;
    // A recurrence's step cannot widen: its pipeline deepens instead (prefetchesRecurrence), holding
    // STAGES iterations' loads, under the same rule.
    if (kernel.getParam(kStagesParam) && prefetchesRecurrence(loop)) {
      std::vector<Monomial> held;
      loop.getBody().walk([&](pgpu::LoadOp load) {
        if (untaken(load))
          return;
        if (auto f = dyn_cast<pgpu::FragmentType>(load.getResult().getType())) {
          held.push_back(fragmentBytes(f));
          held.back().params.push_back(kStagesParam.str());
        }
      });
      addStep(kStagesParam.str(), std::move(held));
      return;
    }
    auto step = loop.getStep().getDefiningOp<pgpu::ParamOp>();
    if (!step || !kernel.getParam(step.getName()) || loop.getInits().empty())
      return;
    // A row walked one block at a time: every fragment the iteration loads is one block of the step,
    // reduced in the iteration. Or a tile fold walked one tile at a time (a column reduction's rows,
    // pgpu-tile-column-reductions: [BLOCK_R, BLOCK_C] tiles summed lane-wise into a carried tile that is
    // reduced along the walked axis after the loop): every fragment the iteration loads and every
    // fragment it carries spans the step's axis. Either way an iteration waits for its loads, so the
    // bytes one iteration loads are what a program has in flight (corpus 83: 256 programs of
    // [16, 128] bf16 tiles, 4 KiB each, held ~1.2 TB/s on the H100).
    std::string name = step.getName().str();
    bool reduces = false, contracts = false, rows = true, tiles = true;
    std::vector<Monomial> loaded;
    auto spansStep = [&](pgpu::FragmentType f) {
      return llvm::any_of(f.getExtents(), [&](Attribute e) {
        auto s = dyn_cast<StringAttr>(e);
        return s && s.getValue() == name;
      });
    };
    loop.getBody().walk([&](Operation *op) {
      if (untaken(op))
        return;
      contracts |= isa<pgpu::ContractOp, pgpu::ScaledContractOp, pgpu::SparseContractOp>(op);
      if (op->getParentOfType<pgpu::ForOp>() != loop)
        return;
      reduces |= isa<pgpu::ReduceOp>(op);
      if (isa<pgpu::LoadOp, pgpu::GatherOp>(op))
        if (auto f = dyn_cast<pgpu::FragmentType>(op->getResult(0).getType())) {
          Monomial m = fragmentBytes(f);
          rows &= m.params == std::vector<std::string>{name} && f.getExtents().size() == 1;
          tiles &= f.getExtents().size() > 1 && spansStep(f);
          loaded.push_back(m);
        }
    });
    tiles &= llvm::all_of(loop.getResults(), [&](Value carried) {
      auto f = dyn_cast<pgpu::FragmentType>(carried.getType());
      return f && spansStep(f);
    });
    if (contracts || loaded.empty() || !((reduces && rows) || tiles))
      return;
    addStep(std::move(name), std::move(loaded));
  });
  // Each loop's own carries and staged operands; a loop's Loop entry then adds its enclosing loops'
  // (their carries and stages stay live across its body).
  llvm::DenseMap<Operation *, ResourceModel::Loop> own;
  SmallVector<pgpu::ForOp> order;
  // Loads whose buffers a loop's stages already count (pipelined tiles, contraction operands and the
  // loads beneath computed operands): never counted again as epilogue tiles below.
  llvm::DenseSet<Operation *> pipelinedLoads;
  llvm::MapVector<Operation *, std::vector<Monomial>> walkBuffers; // per pipelinesWalk loop
  kernel.walk<WalkOrder::PreOrder>([&](pgpu::ForOp loop) {
    order.push_back(loop);
    ResourceModel::Loop &cost = own[loop];
    llvm::SmallPtrSet<Operation *, 8> stagedLoads; // loads beneath computed operands, counted once
    for (Value carried : loop.getResults())
      if (auto f = dyn_cast<pgpu::FragmentType>(carried.getType()))
        cost.carried.push_back(fragmentBytes(f));
    // A pipelined reduction loop (pipelinesLoads) keeps STAGES buffers of each tile it loads; a
    // recurrence spelled tl.range(..., num_stages=STAGES) (prefetchesRecurrence) pipelines its fragment
    // loads through shared memory the same way (counted for every load: Triton decides which it reaches).
    bool pipelined = pipelinesLoads(loop) || prefetchesRecurrence(loop);
    // A walk spelled tl.range(..., num_stages=LOOP_STAGES) (pipelinesWalk) copies each fragment it loads
    // LOOP_STAGES - 1 iterations ahead into as many buffers (sm_90 TTGIR, Triton 3.6: corpus 97's two
    // 512-float loads take 8192 bytes at 3 stages, 12288 at 4; corpus 83's 64x128 bf16 tile 32768 at 3,
    // through pointers or TMA). A box load the TMA switch spells keeps the buffer counted for it below
    // as well: one tile more than Triton allocates there, never less.
    bool walked = kernel.getParam(kLoopStagesParam) && pipelinesWalk(loop);
    bool innermost = !loop.getBody().walk([](pgpu::ForOp) { return WalkResult::interrupt(); }).wasInterrupted();
    llvm::SmallPtrSet<Value, 8> countedOperands;
    loop.getBody().walk([&](Operation *op) {
      if (untaken(op))
        return;
      if (op->getParentOfType<pgpu::ForOp>() != loop)
        return;
      if (isa<pgpu::LoadOp, pgpu::GatherOp>(op))
        if (auto f = dyn_cast<pgpu::FragmentType>(op->getResult(0).getType())) {
          cost.loaded.push_back(fragmentBytes(f));
          if (walked) {
            Monomial staged = fragmentBytes(f), fewer = staged;
            staged.params.push_back(kLoopStagesParam.str());
            fewer.coefficient = -fewer.coefficient;
            cost.staged.push_back(staged);
            cost.staged.push_back(fewer);
            walkBuffers[loop].push_back(staged);
            walkBuffers[loop].push_back(fewer);
          }
          if (pipelined) {
            Monomial staged = fragmentBytes(f);
            staged.params.push_back(kStagesParam.str());
            cost.staged.push_back(staged);
            pipelinedLoads.insert(op);
          }
        }
      if (auto c = dyn_cast<pgpu::ContractOp>(op))
        for (Value operand : {c.getLhs(), c.getRhs()}) {
          // One buffer set per operand, however many contractions read it: LoRA's X tile feeds X W and
          // X A (offline sm_90 compile of corpus 04, Triton 3.6: one 3 x 128x64 buffer, where the model
          // had counted two); an f32 operand's exact bf16 parts (pgpu::splitBF16) are three tl.dot of
          // one loaded value tile.
          if (!countedOperands.insert(operand).second)
            continue;
          // Through a transpose or permutation, and a select that zeroes lanes of a loaded tile (a
          // segment walk's rows past its group), to what produced it: a tile this iteration loads is
          // pipelined STAGES deep (Triton pipelines the load beneath the select: the MoE grouped GEMM's
          // 128x256x64 tiles at 5 stages asked for 245760 bytes of shared memory on the H200, where
          // the model had counted its row tile once); one defined before the loop or computed in its
          // body (a probability tile of attention) takes one buffer, where the provider keeps it.
          Value from = operand;
          while (Operation *def = from.getDefiningOp()) {
            if (auto sel = dyn_cast<pgpu::SelectOp>(def)) {
              Operation *t = sel.getTrueValue().getDefiningOp(), *f = sel.getFalseValue().getDefiningOp();
              auto loadedHere = [&](Operation *d) {
                return d && loop->isProperAncestor(d) && isa<pgpu::LoadOp, pgpu::GatherOp>(d);
              };
              if (loadedHere(t) == loadedHere(f))
                break;
              from = loadedHere(t) ? sel.getTrueValue() : sel.getFalseValue();
              continue;
            }
            if (def->getNumOperands() != 1 || !isa<pgpu::TransposeOp>(def))
              break;
            from = def->getOperand(0);
          }
          Operation *def = from.getDefiningOp();
          Monomial m = fragmentBytes(cast<pgpu::FragmentType>(operand.getType()));
          if (def && loop->isProperAncestor(def) && isa<pgpu::LoadOp, pgpu::GatherOp>(def)) {
            // Triton pipelines innermost loops only: an operand loaded in a loop around another one (a
            // persistent walk's epilogue contraction, LoRA's (X A) B after the K loop) takes one buffer
            // (corpus 04: one 16x128 tile of B, where the model had counted STAGES).
            if (innermost)
              m.params.push_back(kStagesParam.str());
            pipelinedLoads.insert(def);
          }
          else if (def && loop->isProperAncestor(def) && !isa<pgpu::ContractOp>(def))
            // An operand computed element-wise in the body from tiles this iteration loads (SwiGLU's
            // silu(g) * u): Triton pipelines each of those loads STAGES - 1 deep beneath the math (the
            // math takes a stage of its own), and the computed tile takes one buffer more. On the H200
            // the down projection's 128x256x64 tiles at 3 stages asked for 245824 bytes of 232448,
            // where the model had counted the computed tile once. Offline sm_90 compiles of corpus 45
            // (Triton 3.6) allocate exactly this plus the pipeline's barriers (under 128 bytes): g and
            // u 2 x 128x64 each, A 128x64, W 3 x 64x128, C 128x128 = 163904 at the 128x128x64 default
            // with 3 stages; 114728 at 2 stages, 180312 at 4 (C with pointers), 172144 at 64x128x64
            // with 5 (python/tests/test_contraction_defaults.py compiles the default).
            for (Operation *load : loadsFeeding(from, loop))
              if (stagedLoads.insert(load).second) {
                Monomial staged = fragmentBytes(cast<pgpu::FragmentType>(load->getResult(0).getType()));
                Monomial fewer = staged; // STAGES - 1: a negative term beside its STAGES term
                fewer.coefficient = -fewer.coefficient;
                staged.params.push_back(kStagesParam.str());
                cost.staged.push_back(staged);
                cost.staged.push_back(fewer);
                pipelinedLoads.insert(load);
              }
          cost.staged.push_back(m);
        }
    });
  });
  // A box store spelled as a tensor descriptor (TMA = 1) stages its tile through shared memory, in a
  // buffer Triton allocates before the loop that holds the store (the persistent walk over tiles), so
  // it adds to everything the loop's body allocates.
  // A pointer store of an accumulator goes through shared memory once, to leave the contraction's
  // register layout: a scratch of its tile that overlaps no loop's buffers but does overlap the
  // staging. sm_90, Triton 3.6: split-K's f32 128x256 accumulator (pointer store of its partial) and
  // ticketed sum (TMA store of C) at 2 stages take 262144 B, 131072 with C stored with pointers
  // (session 15).
  std::vector<Monomial> stored;
  std::vector<std::vector<Monomial>> converted, convertedStaged;
  // A walk of product tiles split at its last full block (pgpu-narrow-predicates: [lo, mid) then
  // [mid, hi), each recomputing a key tile's scores and storing it: a written softmax of Q K^T) runs its
  // two loops in turn: the partial block's store of the same tile to the same view reuses the full
  // blocks' staging, so it is counted once, as the walk's one store was before the split. (Split walks
  // without a product keep their two counts: the model's pessimism there sizes the tuned GEMM-epilogue
  // tiles, corpus 176, and is left as measured.)
  auto continuesSplitWalk = [](Operation *op) {
    auto loop = dyn_cast_or_null<pgpu::ForOp>(op->getParentOp());
    auto head = loop ? dyn_cast_or_null<pgpu::ForOp>(loop->getPrevNode()) : pgpu::ForOp();
    if (!head || head.getUpper() != loop.getLower() || head.getStep() != loop.getStep() ||
        !loop.getBody().walk([](pgpu::ContractOp) { return WalkResult::interrupt(); }).wasInterrupted())
      return false;
    return head.getBody()
        .walk([&](pgpu::StoreOp s) {
          return s->getParentOp() == head.getOperation() && s.getOperand(1) == op->getOperand(1) &&
                         s.getOperand(0).getType() == op->getOperand(0).getType()
                     ? WalkResult::interrupt()
                     : WalkResult::advance();
        })
        .wasInterrupted();
  };
  kernel.walk([&](Operation *op) {
    if (untaken(op))
      return;
    if (!isa<pgpu::StoreOp, pgpu::BufferStoreOp>(op))
      return;
    Value value = op->getOperand(0);
    auto fragment = dyn_cast<pgpu::FragmentType>(value.getType());
    if (!fragment)
      return;
    bool box = isa<pgpu::StoreOp>(op) && kernel.getParam(kTmaParam) && matchTileAccess(op) && !keepsPointerSpelling(op);
    if (box && isa<pgpu::StoreOp>(op) && continuesSplitWalk(op))
      box = false, value = Value();
    if (box) {
      Monomial m = fragmentBytes(fragment);
      m.params.push_back(kTmaParam.str());
      stored.push_back(m);
    }
    if (value && holdsAccumulator(value)) {
      converted.push_back({fragmentBytes(fragment)});
      if (!box)
        convertedStaged.push_back({fragmentBytes(fragment)});
    }
  });
  // A box load spelled as a tensor descriptor lands in shared memory too: one that feeds no
  // contraction (a GEMM epilogue's residual tile, read after the K loop) takes a buffer of its tile
  // beside the loops' stages (sm_90, Triton 3.6: bf16 GEMM + residual at 128x256x64, 3 stages, asked
  // for 278568 B of 232448 when this buffer was not counted; corpus 03).
  kernel.walk([&](pgpu::LoadOp load) {
    if (untaken(load))
      return;
    auto fragment = dyn_cast<pgpu::FragmentType>(load.getResult().getType());
    if (!fragment || !kernel.getParam(kTmaParam) || !matchTileAccess(load) || keepsPointerSpelling(load) ||
        pipelinedLoads.contains(load))
      return;
    SmallVector<Value> work{load.getResult()};
    DenseSet<Value> seen;
    while (!work.empty()) {
      Value v = work.pop_back_val();
      if (!seen.insert(v).second)
        continue;
      for (Operation *user : v.getUsers()) {
        if (isa<pgpu::ContractOp>(user))
          return; // a contraction operand: counted with the loop that stages it
        if (isa<pgpu::TransposeOp, pgpu::CastOp>(user))
          work.append(user->getResults().begin(), user->getResults().end());
      }
    }
    Monomial m = fragmentBytes(fragment);
    m.params.push_back(kTmaParam.str());
    stored.push_back(m);
  });
  model.stagesStores = !stored.empty();
  // The polynomials of the loops, each kept unless another one dominates it (an outer loop's stages
  // are part of each inner loop's; loops that run in turn often stage the same tiles).
  auto addDistinct = [&](std::vector<std::vector<Monomial>> &polys, std::vector<Monomial> poly) {
    auto dominates = [](const std::vector<Monomial> &b, const std::vector<Monomial> &a) {
      return ResourceModel::dominates(b, a);
    };
    if (poly.empty() || llvm::any_of(polys, [&](const std::vector<Monomial> &o) { return dominates(o, poly); }))
      return;
    llvm::erase_if(polys, [&](const std::vector<Monomial> &o) { return dominates(poly, o); });
    polys.push_back(std::move(poly));
  };
  for (pgpu::ForOp loop : order) {
    ResourceModel::Loop cost = own[loop];
    // A loop's results (an accumulator), or fragments computed from them, made before this loop in
    // its block and read after it stay live across it (SwiGLU's two K loops: the first accumulator,
    // or its activation, beside the second; at 128x256 the pair spilled, 11.1 ms against 2.9 at
    // 128x128 on the H200, corpus 02). Index and mask fragments are rematerialized, not counted.
    for (Operation *before = loop->getPrevNode(); before; before = before->getPrevNode())
      for (Value v : before->getResults()) {
        auto f = dyn_cast<pgpu::FragmentType>(v.getType());
        if (f && isa<FloatType>(f.getElementType()) && madeFromLoop(v) &&
            llvm::any_of(v.getUsers(), [&](Operation *user) {
              Operation *at = loop->getBlock()->findAncestorOpInBlock(*user);
              return at && loop->isBeforeInBlock(at);
            }))
          cost.carried.push_back(fragmentBytes(f));
      }
    // Lane coordinates carried into a flattened walk (dividedLanes: made before the loop in its block,
    // read in it) are live across its body like its carries, and the walk addresses its lanes from
    // them with a 64-bit pointer a lane, for the iteration it reduces and for the one it has in flight
    // (its pointers' contiguity is lost, so Triton pipelines those loads in registers: 16 bytes a lane,
    // counted once). Calls size the step as if the walk were not pipelined (python/tessel/_kernel.py),
    // so the second iteration's pointers are counted here. Corpus 53 (BatchNorm statistics over NCHW,
    // six such i32 vectors; sm_90a ptxas of Triton 3.6's PTX, registers a thread): at BLOCK 8192 and
    // 8 warps 255 registers and 1276 bytes of spill stores (0.568 ms on the H100); at 2048 and 4 warps
    // 255 and 84 bytes of spill at num_stages 2; at 1024 and 4 warps 112 / 165 / 201 at num_stages
    // 1 / 2 / 3, none spilled (0.278 ms at 2).
    std::optional<Monomial> addresses;
    for (Value v : carriedLaneDivisions(loop)) {
      auto f = cast<pgpu::FragmentType>(v.getType());
      cost.carried.push_back(fragmentBytes(f));
      if (!addresses) {
        addresses = fragmentElements(f);
        addresses->coefficient *= 16;
      }
    }
    if (addresses)
      cost.carried.push_back(*addresses);
    for (auto outer = loop->getParentOfType<pgpu::ForOp>(); outer; outer = outer->getParentOfType<pgpu::ForOp>()) {
      llvm::append_range(cost.carried, own[outer].carried);
      llvm::append_range(cost.staged, own[outer].staged);
    }
    addDistinct(model.carriedBytes, cost.carried);
    addDistinct(model.pointerSharedBytes, cost.staged);
    std::vector<Monomial> shared = cost.staged;
    llvm::append_range(shared, stored);
    addDistinct(model.sharedBytes, std::move(shared));
    model.loops.push_back(std::move(cost));
  }
  for (auto &entry : walkBuffers)
    addDistinct(model.loopBuffers, entry.second);
  for (const std::vector<Monomial> &c : converted)
    addDistinct(model.pointerSharedBytes, c);
  for (std::vector<Monomial> c : convertedStaged) {
    llvm::append_range(c, stored);
    addDistinct(model.sharedBytes, std::move(c));
  }
  if (model.sharedBytes.empty())
    addDistinct(model.sharedBytes, stored);
  return model;
}

std::vector<llvm::StringMap<int64_t>> triton::enumerateSpace(pgpu::KernelOp kernel) {
  std::vector<llvm::StringMap<int64_t>> space(1);
  if (auto declared = kernel.getParams()) {
    for (Attribute a : *declared) {
      auto p = cast<pgpu::ParamAttr>(a);
      std::vector<llvm::StringMap<int64_t>> next;
      for (const auto &partial : space)
        for (int64_t c : p.getCandidates()) {
          next.push_back(partial);
          next.back()[p.getName().getValue()] = c;
        }
      space = std::move(next);
    }
  }
  return space;
}

std::optional<int64_t> triton::parameterValue(Value v, const llvm::StringMap<int64_t> &binding) {
  APInt constant;
  if (matchPattern(v, m_ConstantInt(&constant)))
    return v.getType().isInteger(1) ? int64_t(constant.getBoolValue()) : constant.getSExtValue();
  Operation *def = v.getDefiningOp();
  if (!def)
    return std::nullopt;
  if (auto param = dyn_cast<pgpu::ParamOp>(def)) {
    auto it = binding.find(param.getName());
    return it == binding.end() ? std::nullopt : std::optional<int64_t>(it->second);
  }
  auto both = [&](Value a, Value b) -> std::optional<std::pair<int64_t, int64_t>> {
    std::optional<int64_t> x = parameterValue(a, binding), y;
    if (x)
      y = parameterValue(b, binding);
    return x && y ? std::optional(std::pair(*x, *y)) : std::nullopt;
  };
  // A conjunction with a false operand (or a disjunction with a true one) is decided whatever the
  // other operand is: pgpu-stage-operands' first phase runs where OPERAND_PHASES == 2 and a launch
  // value holds, so at OPERAND_PHASES = 1 it is never taken (Triton folds the branch away).
  if (auto bin = dyn_cast<pgpu::BinaryOp>(def); bin && bin.getType().isInteger(1) &&
                                                (bin.getKind() == kir::BinaryKind::And ||
                                                 bin.getKind() == kir::BinaryKind::Or)) {
    int64_t decides = bin.getKind() == kir::BinaryKind::Or;
    std::optional<int64_t> x = parameterValue(bin.getLhs(), binding), y = parameterValue(bin.getRhs(), binding);
    if ((x && *x == decides) || (y && *y == decides))
      return decides;
    if (x && y)
      return int64_t(decides ? (*x || *y) : (*x && *y));
    return std::nullopt;
  }
  if (auto bin = dyn_cast<pgpu::BinaryOp>(def)) {
    auto xy = both(bin.getLhs(), bin.getRhs());
    if (!xy)
      return std::nullopt;
    auto [x, y] = *xy;
    switch (bin.getKind()) {
    case kir::BinaryKind::Add: return x + y;
    case kir::BinaryKind::Sub: return x - y;
    case kir::BinaryKind::Mul: return x * y;
    case kir::BinaryKind::Min: return std::min(x, y);
    case kir::BinaryKind::Max: return std::max(x, y);
    default: return std::nullopt;
    }
  }
  if (auto div = dyn_cast<pgpu::CeilDivOp>(def)) {
    auto xy = both(div.getLhs(), div.getRhs());
    if (!xy || xy->second <= 0)
      return std::nullopt;
    return llvm::divideCeilSigned(xy->first, xy->second);
  }
  if (auto cmp = dyn_cast<pgpu::CmpOp>(def)) {
    auto xy = both(cmp.getLhs(), cmp.getRhs());
    if (!xy)
      return std::nullopt;
    auto [x, y] = *xy;
    switch (cmp.getPredicate()) {
    case kir::CmpPredicate::EQ: return int64_t(x == y);
    case kir::CmpPredicate::NE: return int64_t(x != y);
    case kir::CmpPredicate::LT: return int64_t(x < y);
    case kir::CmpPredicate::LE: return int64_t(x <= y);
    case kir::CmpPredicate::GT: return int64_t(x > y);
    case kir::CmpPredicate::GE: return int64_t(x >= y);
    }
    return std::nullopt;
  }
  if (auto select = dyn_cast<pgpu::SelectOp>(def)) {
    std::optional<int64_t> c = parameterValue(select.getCondition(), binding);
    if (!c)
      return std::nullopt;
    return parameterValue(*c ? select.getTrueValue() : select.getFalseValue(), binding);
  }
  return std::nullopt;
}

bool triton::readsDividedLanes(pgpu::ForOp loop) { return !carriedLaneDivisions(loop).empty(); }

bool triton::isSplitAlternative(pgpu::IfOp branch) {
  if (branch.getNumResults())
    return false;
  // The condition reads parameters and constants alone (no view extent, no argument).
  SmallVector<Value> work{branch.getCondition()};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    Operation *def = v.getDefiningOp();
    if (!def)
      return false;
    if (isa<pgpu::ParamOp>(def) || matchPattern(v, m_Constant()))
      continue;
    if (!isa<pgpu::BinaryOp, pgpu::CeilDivOp, pgpu::CmpOp, pgpu::SelectOp>(def))
      return false;
    llvm::append_range(work, def->getOperands());
  }
  // A K loop whose every carried value is a contraction's accumulator, its results stored to workspace
  // outside a last arrival (the chunk's partial tiles, which the last arrival adds).
  return branch.getThenRegion()
      .walk([](pgpu::BufferStoreOp store) {
        auto loop = store.getValue().getDefiningOp<pgpu::ForOp>();
        if (!loop || store->getParentOfType<pgpu::LastProgramOp>() || loop.getInits().empty())
          return WalkResult::advance();
        Block &body = loop.getBody().front();
        for (auto [k, carried] : llvm::enumerate(body.getArguments().drop_front())) {
          auto contract = dyn_cast<pgpu::ContractOp>(body.getTerminator()->getOperand(k).getDefiningOp());
          if (!contract || contract.getAcc() != carried)
            return WalkResult::advance();
        }
        return WalkResult::interrupt();
      })
      .wasInterrupted();
}

/// Whether `branch` is one of pgpu-stage-operands' alternatives (StageOperands.cpp): the first phase
/// beside the walk, or the K loop reading the staged operand beside the one recomputing it. Each runs
/// where OPERAND_PHASES == 2 (and a launch value holds): a binding of 1 compiles neither.
static bool isPhaseAlternative(pgpu::IfOp branch) {
  SmallVector<Value> work{branch.getCondition()};
  while (!work.empty()) {
    Operation *def = work.pop_back_val().getDefiningOp();
    if (auto param = dyn_cast_or_null<pgpu::ParamOp>(def); param && param.getName() == kOperandPhasesParam)
      return true;
    if (isa_and_nonnull<pgpu::BinaryOp, pgpu::CmpOp>(def) && def->getResult(0).getType().isInteger(1))
      llvm::append_range(work, def->getOperands());
  }
  return false;
}

bool triton::untakenAt(Operation *op, const llvm::StringMap<int64_t> &binding) {
  for (Operation *at = op; at && !isa<pgpu::KernelOp>(at); at = at->getParentOp()) {
    auto branch = dyn_cast_or_null<pgpu::IfOp>(at->getParentOp());
    if (!branch || !(isSplitAlternative(branch) || isPhaseAlternative(branch)))
      continue;
    std::optional<int64_t> taken = parameterValue(branch.getCondition(), binding);
    if (taken && at->getParentRegion() != (*taken ? &branch.getThenRegion() : &branch.getElseRegion()))
      return true;
  }
  return false;
}
