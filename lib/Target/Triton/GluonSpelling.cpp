//===- GluonSpelling.cpp - the warp-specialized Gluon spelling ------------===//
//
// The Triton serializer's second spelling of a program (GLUON=1; Triton.h
// kGluonParam): the two partitions of one warp-specialized Gluon kernel, a
// loader issuing each stream's TMA copies into a ring and consumers in the
// layouts of GluonLayouts.h reading the slots with wgmma, with the layouts'
// assignment, the rotation of a loop's last contraction and the split of
// rows across consumer partitions. What no partition spells is a refusal,
// and the Triton spelling runs.
//
//===----------------------------------------------------------------------===//

#include "SerializerImpl.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::triton::spelling;
namespace gluon = tessel::triton::gluon;

namespace tessel::triton::spelling {
/// The per-thread register cap (`maxnreg`) of a warp-specialized Gluon program whose `parts` consumers
/// are `warps` warps each and whose rings take `ringBytes` of shared memory; 0 leaves the compiler's own.
/// Triton pads the program's warps (the consumer's plus the loader's one) to whole warpgroups, and
/// ptxas, uncapped, gives every thread up to 255 registers: a one-warpgroup consumer's program
/// (8 warps with the padding) then holds an SM's 65536 registers alone. Capped to share them with a
/// second program, where the rings of two programs fit the SM's 228 KB of shared memory with room
/// for the rest (a left operand's tile kept in shared memory, a box's staging, the layout conversions'
/// scratch: 32 KB of the generated attention's 96 at STAGES = 2, Triton's count): measured on the H200, the
/// generated grouped-query attention at 64 x 64 tiles reached 431 TFLOP/s capped at 128, 292 at the
/// compiler's 255 and 297 at 160 (one program per SM either way; session 19). Larger
/// consumers stay one program per SM, uncapped (at 168 one measured 351 against 357).
/// A consumer whose fragments need more than the shared cap a thread (`neededRegs`: its carried
/// accumulator, or a chained product's tiles live together, Resources.h) stays uncapped too: a 64-row
/// accumulator over a head size of 256 is 128 registers a thread alone, and ptxas refuses the program
/// at 128 ("insufficient registers", 158 needed at 64 x 32 tiles).
int64_t gluonRegisterCap(int64_t warps, int64_t parts, int64_t ringBytes, int64_t neededRegs) {
  constexpr int64_t kRegisters = 65536, kSharedBytes = 228 * 1024, kOtherBytes = 32 * 1024;
  int64_t threads = llvm::alignTo(warps * parts + 1, 4) * 32;
  if (parts > 1) // split consumers: one program per SM, its registers within the file
    return std::min<int64_t>(kRegisters / threads / 8 * 8, 255);
  if (warps > 4 || 2 * (ringBytes + kOtherBytes) > kSharedBytes)
    return 0;
  int64_t cap = kRegisters / (2 * threads) / 8 * 8;
  return cap < 255 && neededRegs <= cap ? cap : 0;
}

/// An operation no warp-specialized Gluon partition spells (yet): a partition that reaches one refuses.
bool unspelledInGluon(Operation *op) {
  return isa<pgpu::ExtractOp, pgpu::AtomicLoadOp, pgpu::AtomicStoreOp, pgpu::AtomicRMWOp, pgpu::ScatterReduceOp,
             pgpu::LastProgramOp, pgpu::WhileOp, pgpu::ForeachOp, pgpu::BufferLoadOp, pgpu::BufferStoreOp,
             pgpu::HistogramOp>(op);
}
} // namespace tessel::triton::spelling

std::optional<std::string> Serializer::glSpelling(const std::string &text) {
  // What Gluon 3.6's `gl` namespace holds of the `tl.` functions and dtypes the spellings use.
  static const llvm::StringSet<> known = {
      "abs",     "arange",  "associative_scan", "broadcast", "cast",    "cdiv",    "ceil",    "cos",
      "div_rn",  "erf",     "exp",              "exp2",      "fdiv",    "floor",   "fma",     "full",
      "load",    "log",     "log2",             "maximum",   "minimum", "permute", "program_id",
      "num_programs", "reduce", "reshape",      "rsqrt",     "sin",     "sqrt",    "sqrt_rn", "store",
      "where",   "zeros",   "umulhi",           "float16",   "bfloat16", "float32", "float64", "int1",
      "int8",    "int16",   "int32",            "int64",     "uint8",   "uint16",  "uint32",  "uint64"};
  StringRef t(text);
  // libdevice's functions are Gluon's too (gl.extra.libdevice is triton.language.extra.libdevice, the
  // module-level `libdevice` the spellings call); the jit helpers _tanh_approx and _f8_* are Triton's.
  if (t.contains("_tanh_approx") || t.contains("_f8"))
    return std::nullopt;
  auto identChar = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  std::string result;
  for (size_t i = 0; i < text.size();) {
    bool boundary = i == 0 || !(identChar(text[i - 1]) || text[i - 1] == '.');
    if (boundary && t.substr(i).starts_with("tl.")) {
      size_t j = i + 3;
      while (j < text.size() && identChar(text[j]))
        ++j;
      std::string ident = text.substr(i + 3, j - i - 3);
      if (ident == "PropagateNan") // not re-exported by gl; the enum is Triton's
        result += "tl." + ident;
      else if (known.contains(ident))
        result += "gl." + ident;
      else
        return std::nullopt;
      i = j;
      continue;
    }
    result += text[i++];
  }
  return result;
}

std::string Serializer::layoutName(const gluon::Layout &l, Value v) {
  using K = gluon::Layout::Kind;
  int64_t warps = consumerWarps();
  std::string text;
  auto bits = [](Operation *c) {
    return pgpu::elementTypeOf(cast<pgpu::ContractOp>(c).getLhs().getType()).getIntOrFloatBitWidth();
  };
  switch (l.kind) {
  case K::Accumulator: {
    // wgmma: each warp 16 rows of the [M, N] accumulator, instruction K = 256 bits of operand.
    int64_t n = shapeOf(cast<pgpu::ContractOp>(l.contract).getResult().getType())[1];
    text = llvm::formatv("gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[{0}, 1], instr_shape=[16, {1}, {2}])",
                         warps, n, 256 / bits(l.contract))
               .str();
    break;
  }
  case K::Operand:
    text = llvm::formatv("gl.DotOperandLayout(operand_index=0, parent={0}, k_width={1})",
                         layoutName(gluon::Layout::accumulator(l.contract), v), 32 / bits(l.contract))
               .str();
    break;
  case K::Slice:
    return sliceName(l.dim, layoutName(gluon::Layout::accumulator(l.contract), v));
  case K::Blocked:
  case K::Shared:
  case K::Auto:
    return blockedName(cast<pgpu::FragmentType>(v.getType()).getRank());
  }
  return declareLayout(text);
}

std::string Serializer::declareLayout(const std::string &text) {
  for (auto &[n, spelled] : partitionLayouts)
    if (spelled == text)
      return n;
  std::string n = "_L" + std::to_string(partitionLayouts.size());
  partitionLayouts.push_back({n, text});
  return n;
}

void Serializer::convertOperands(Operation *op, int indent) {
  for (OpOperand &use : op->getOpOperands()) {
    Value v = use.get();
    if (!isa<pgpu::FragmentType>(v.getType()) || overrides.count(v) || sharedView.count(v))
      continue;
    std::string want = demand(use), have = assigned.lookup(v);
    if (want.empty() || have.empty() || want == have)
      continue;
    std::string local = "_c" + std::to_string(next++);
    line(indent, local + " = gl.convert_layout(" + expr(v) + ", " + want + ")");
    overrides[v] = local;
  }
}

std::string Serializer::blockedName(unsigned rank) {
  // A blocked layout: a warp along the last axis, the warps along the first.
  SmallVector<std::string> size, threads, warpsPer, order;
  for (unsigned d = 0; d < rank; ++d) {
    size.push_back("1");
    threads.push_back(d + 1 == rank ? "32" : "1");
    warpsPer.push_back(d == 0 ? std::to_string(consumerWarps()) : "1");
    order.push_back(std::to_string(rank - 1 - d));
  }
  return declareLayout("gl.BlockedLayout([" + llvm::join(size, ", ") + "], [" + llvm::join(threads, ", ") + "], [" +
                       llvm::join(warpsPer, ", ") + "], [" + llvm::join(order, ", ") + "])");
}

std::string Serializer::sliceName(int64_t dim, const std::string &parent) {
  return declareLayout("gl.SliceLayout(" + std::to_string(dim) + ", " + parent + ")");
}

std::string Serializer::demand(OpOperand &use) {
  Operation *user = use.getOwner();
  Value v = use.get();
  return llvm::TypeSwitch<Operation *, std::string>(user)
      .Case<pgpu::BinaryOp, pgpu::UnaryOp, pgpu::CmpOp, pgpu::SelectOp, pgpu::CastOp, pgpu::BitcastOp>(
          [&](Operation *) { return assigned.lookup(user->getResult(0)); })
      .Case([&](pgpu::BroadcastOp b) -> std::string {
        std::string r = assigned.lookup(b.getResult());
        ArrayRef<int64_t> dims = b.getDims();
        unsigned rank = cast<pgpu::FragmentType>(b.getType()).getRank();
        if (r.empty() || dims.size() == rank)
          return r;
        for (int64_t d = 0; d < int64_t(rank); ++d)
          if (!llvm::is_contained(dims, d))
            return sliceName(d, r); // one added axis (checked where spelled)
        return "";
      })
      .Case<pgpu::LoadOp, pgpu::GatherOp>([&](Operation *) { return assigned.lookup(user->getResult(0)); })
      .Case<pgpu::StoreOp, pgpu::ScatterOp>([&](Operation *) -> std::string {
        if (boxOf.count(user))
          return ""; // shared memory takes any layout
        return blockedName(cast<pgpu::FragmentType>(v.getType()).getRank());
      })
      .Case([&](pgpu::ContractOp c) -> std::string {
        if (use.get() == c.getRhs())
          return "";
        gluon::Layout l = gluonLayouts->of(use.get() == c.getLhs() ? c.getLhs() : c.getAcc());
        if (use.get() == c.getLhs())
          return layoutName(gluon::Layout::operand(gluonLayouts->of(c.getResult()).contract), c.getLhs());
        return l.isConcrete() ? layoutName(l, c.getAcc()) : assigned.lookup(c.getResult());
      })
      .Case([&](pgpu::ReduceOp r) -> std::string {
        // Every input in the first's layout.
        return use.getOperandNumber() == 0 ? "" : assigned.lookup(r.getInputs()[0]);
      })
      .Case([&](pgpu::ForOp f) -> std::string {
        unsigned n = use.getOperandNumber(), inits = f->getNumOperands() - f.getInits().size();
        return n < inits ? "" : assigned.lookup(f.getResult(n - inits));
      })
      .Case([&](pgpu::YieldOp y) -> std::string {
        Operation *parent = y->getParentOp();
        if (isa<pgpu::ForOp, pgpu::IfOp>(parent))
          return assigned.lookup(parent->getResult(use.getOperandNumber()));
        return "";
      })
      .Default([&](Operation *) { return std::string(); });
}

void Serializer::assignLayouts() {
  assigned.clear();
  programOrder.clear();
  deferredTranspose.clear();
  kernel.walk([&](pgpu::TransposeOp t) {
    Value r = t.getResult();
    if (!r.use_empty() && cast<pgpu::FragmentType>(r.getType()).getRank() == 2 &&
        llvm::all_of(r.getUses(), [&](OpOperand &u) {
          auto c = dyn_cast<pgpu::ContractOp>(u.getOwner());
          return c && u.get() == c.getRhs() && c.getLhs() != r;
        }))
      deferredTranspose[r] = t.getOperand();
  });
  SmallVector<Operation *> ops;
  kernel.walk<WalkOrder::PreOrder>([&](Operation *op) {
    programOrder[op] = ops.size();
    ops.push_back(op);
  });
  auto fromPlan = [&](Value v) -> std::string {
    gluon::Layout l = gluonLayouts->of(v);
    if (!l.isConcrete() || l.kind == gluon::Layout::Kind::Shared)
      return "";
    return l.kind == gluon::Layout::Kind::Blocked ? blockedName(cast<pgpu::FragmentType>(v.getType()).getRank())
                                                 : layoutName(l, v);
  };
  auto choose = [&](Value v) {
    Operation *def = v.getDefiningOp();
    if (!isa<pgpu::FragmentType>(v.getType()) || (def && (streamOf.count(def) || deferredTranspose.count(v))))
      return; // in shared memory
    if (auto t = dyn_cast_or_null<pgpu::TransposeOp>(def); t && t.getOperand().getDefiningOp() &&
                                                          streamOf.count(t.getOperand().getDefiningOp()))
      return;
    std::string l = fromPlan(v);
    if (l.empty()) {
      // The first user's demand, in program order (deterministic).
      SmallVector<OpOperand *> uses;
      for (OpOperand &u : v.getUses())
        if (!consumerDead.contains(u.getOwner()))
          uses.push_back(&u);
      llvm::sort(uses, [&](OpOperand *a, OpOperand *b) {
        unsigned x = programOrder.lookup(a->getOwner()), y = programOrder.lookup(b->getOwner());
        return x != y ? x < y : a->getOperandNumber() < b->getOperandNumber();
      });
      // The demand most uses make (the first in program order among equals): a mask built once and
      // read by several selects of accumulator-laid scores is built in their layout, not converted
      // at each of them from the layout of one other use (through shared memory, for a tile).
      SmallVector<std::pair<std::string, unsigned>> votes;
      for (OpOperand *u : uses) {
        std::string d = demand(*u);
        if (d.empty())
          continue;
        auto it = llvm::find_if(votes, [&](const auto &vote) { return vote.first == d; });
        if (it == votes.end())
          votes.push_back({d, 1});
        else
          ++it->second;
      }
      unsigned best = 0;
      for (const auto &[d, n] : votes)
        if (n > best)
          l = d, best = n;
    }
    if (l.empty())
      l = blockedName(cast<pgpu::FragmentType>(v.getType()).getRank());
    assigned[v] = l;
  };
  for (Operation *op : llvm::reverse(ops)) {
    if (consumerDead.contains(op) || isa<pgpu::ReduceOp, pgpu::ScanOp>(op))
      continue; // reductions and scans: from their inputs, as spelled
    for (Region &r : op->getRegions())
      for (Block &b : r)
        for (BlockArgument arg : b.getArguments())
          if (isa<pgpu::ForOp>(op))
            choose(arg); // carries (plan) and nothing else: an induction variable is a scalar
    for (Value r : op->getResults())
      choose(r);
  }
  // A loop's carry takes its result's layout (the region argument, the yield and the result are one
  // variable).
  kernel.walk([&](pgpu::ForOp f) {
    for (unsigned i = 0; i < f.getInits().size(); ++i)
      if (assigned.count(f.getResult(i)))
        assigned[f.getBody().front().getArgument(i + 1)] = assigned.lookup(f.getResult(i));
  });
}

bool Serializer::loaderHas(Value v) {
  if (v.getDefiningOp<arith::ConstantOp>())
    return true;
  auto scalarCarry = [&](Value init) { return !isa<pgpu::FragmentType>(v.getType()) && loaderHas(init); };
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    Operation *owner = arg.getOwner()->getParentOp();
    if (owner == kernel.getOperation() || isa<pgpu::ProgramSpaceOp>(owner))
      return true;
    if (!gluonStreams->loader.contains(owner))
      return false;
    if (auto f = dyn_cast<pgpu::ForOp>(owner); f && arg.getArgNumber() > 0)
      return scalarCarry(f.getInits()[arg.getArgNumber() - 1]);
    return true; // an induction variable, an execution group's coordinate
  }
  Operation *def = v.getDefiningOp();
  if (!gluonStreams->loader.contains(def))
    return false;
  if (auto f = dyn_cast<pgpu::ForOp>(def))
    return scalarCarry(f.getInits()[cast<OpResult>(v).getResultNumber()]);
  if (auto i = dyn_cast<pgpu::IfOp>(def)) {
    unsigned k = cast<OpResult>(v).getResultNumber();
    for (Region *r : {&i.getThenRegion(), &i.getElseRegion()})
      if (!r->empty() && !loaderHas(r->front().getTerminator()->getOperand(k)))
        return false;
    return !isa<pgpu::FragmentType>(v.getType());
  }
  return true;
}

namespace {
/// The contractions reading a stream's tile (directly or through its transpose), all in its block
/// (checked by emitGluon), and the last of them in program order: it frees the slot.
Operation *lastReader(const gluon::Stream &s) {
  Value read = s.transpose ? s.transpose->getResult(0) : s.load->getResult(0);
  Operation *last = nullptr;
  for (Operation *user : read.getUsers())
    if (!last || last->isBeforeInBlock(user))
      last = user;
  return last;
}
} // namespace

LogicalResult Serializer::emitStreamLoad(pgpu::LoadOp load, int indent) {
  unsigned i = streamOf.lookup(load);
  const gluon::Stream &s = *llvm::find_if(gluonStreams->streams, [&](const gluon::Stream &x) { return x.load == load; });
  std::string r = std::to_string(i), n = "_n" + r, slot = "_s" + std::to_string(next++);
  std::string stages = std::to_string(std::max<int64_t>(param(triton::kStagesParam), 2));
  line(indent, slot + " = " + n + " % " + stages);
  if (mode == Mode::Loader) {
    const std::string &desc = streamDescriptor[i];
    line(indent, "mbarrier.wait(_empty" + r + ".index(" + slot + "), ((" + n + " // " + stages + ") & 1) ^ 1)");
    line(indent, "mbarrier.expect(_ready" + r + ".index(" + slot + "), " + desc + ".block_type.nbytes)");
    line(indent, "tma.async_copy_global_to_shared(" + desc + ", " + boxOrigin(s.box) + ", _ready" + r + ".index(" +
                     slot + "), _ring" + r + ".index(" + slot + "))");
  } else {
    line(indent, "mbarrier.wait(_ready" + r + ".index(" + slot + "), (" + n + " // " + stages + ") & 1)");
    // The slot as the fragment reads it: the box's unit axes dropped, transposed where the fragment
    // walks the view's axes the other way round.
    Slot read{r, slot, planeView(s.box, load.getResult(), "")};
    sharedView[load.getResult()] = read.view(slot);
    slotOf[load.getResult()] = read;
    releases[lastReader(s)].push_back(read.release(slot));
  }
  line(indent, n + " = " + n + " + 1");
  return success();
}

LogicalResult Serializer::emitGluonContract(pgpu::ContractOp c, int indent) {
  Type lhsType = pgpu::elementTypeOf(c.getLhs().getType()), rhsType = pgpu::elementTypeOf(c.getRhs().getType());
  if (!(lhsType.isF16() || lhsType.isBF16()) || rhsType != lhsType || !pgpu::elementTypeOf(c.getType()).isF32())
    return unsupported(c, "warpgroup_mma is spelled for f16 and bf16 operands with an f32 accumulator");
  SmallVector<int64_t> lhs = shapeOf(c.getLhs().getType()), rhs = shapeOf(c.getRhs().getType());
  int64_t warps = consumerWarps();
  // wgmma: a warpgroup takes 64 rows (16 per warp), N a multiple of 8 up to 256, K a multiple of 16.
  if (warps % 4 != 0 || lhs[0] % (16 * warps) != 0 || rhs[1] % 8 != 0 || rhs[1] > 256 || lhs[1] % 16 != 0)
    return unsupported(c, llvm::formatv("warpgroup_mma over {0} warps does not tile [{1}, {2}] x [{2}, {3}] (rows a "
                                        "multiple of 16 per warp, N a multiple of 8 up to 256, K of 16)",
                                        warps, lhs[0], lhs[1], rhs[1])
                              .str());
  std::string b = sharedView.lookup(c.getRhs());
  if (b.empty()) {
    // A right operand computed in registers is staged in shared memory first (a transpose: its
    // operand, read through a transposed view).
    Value staged = deferredTranspose.lookup(c.getRhs());
    bool transposed = bool(staged);
    if (!staged)
      staged = c.getRhs();
    std::string dtype = tritonType(rhsType), shape = shapeList(staged.getType());
    b = "_sm" + std::to_string(next++);
    line(indent, b + " = gl.allocate_shared_memory(" + dtype + ", " + shape + ", gl.NVMMASharedLayout.get_default_for(" +
                     shape + ", " + dtype + "), " + expr(staged) + ")");
    line(indent, "fence_async_shared()");
    if (transposed)
      b += ".permute((1, 0))";
  }
  std::string result = name(c.getResult());
  SmallVector<std::string> frees = releases.lookup(c);
  releases.erase(c); // (a rotated loop spells its body twice: each spelling's loads push their own)
  if (rotation && c == rotation->deferred) {
    // Deferred: the previous iteration's first (one contraction in flight at a time), then the
    // operands captured; issued in the next iteration or after the loop.
    if (rotation->rotated && !rotation->waited)
      awaitDeferred(indent);
    // (Its right operand is a stream's slot whose last reader it is (planRotation): `frees` is that
    // slot's release, spelled on the captured slot.)
    const Slot &slot = slotOf.find(c.getRhs())->second;
    line(indent, rotation->lhs + " = " + expr(c.getLhs()));
    line(indent, rotation->acc + " = " + expr(c.getAcc()));
    line(indent, rotation->slot + " = " + slot.var);
    rotation->view = slot.view(rotation->slot);
    rotation->release = slot.release(rotation->slot);
    rotation->issued = rotation->waited = false;
    return success();
  }
  std::string a = sharedView.lookup(c.getLhs());
  if (a.empty())
    a = expr(c.getLhs());
  line(indent, result + " = warpgroup_mma(" + a + ", " + b + ", " + expr(c.getAcc()) + ", is_async=True)");
  int outstanding = 0;
  if (rotation && rotation->rotated && c == rotation->first && !rotation->waited) {
    issueDeferred(indent); // behind this one: waited for after it
    outstanding = 1;
  }
  line(indent, result + " = warpgroup_mma_wait(num_outstanding=" + std::to_string(outstanding) + ", deps=(" + result +
                   ", ))");
  for (const std::string &release : frees)
    line(indent, release);
  return success();
}

std::optional<Serializer::Rotation> Serializer::planRotation(pgpu::ForOp f) {
  Block &b = f.getBody().front();
  // The first iteration exists iff lower < upper: a positive step (a constant, or a block size).
  APInt step;
  auto block = f.getStep().getDefiningOp<pgpu::ParamOp>();
  if (!(matchPattern(f.getStep(), m_ConstantInt(&step)) && step.isStrictlyPositive()) &&
      !(block && param(block.getName()) > 0))
    return std::nullopt;
  SmallVector<pgpu::ContractOp> contracts;
  for (Operation &op : b) {
    if (auto c = dyn_cast<pgpu::ContractOp>(op))
      contracts.push_back(c);
    else if (op.getNumRegions() && op.walk([](pgpu::ContractOp) { return WalkResult::interrupt(); }).wasInterrupted())
      return std::nullopt; // contractions under control flow: the count of groups in flight would vary
  }
  if (contracts.size() < 2)
    return std::nullopt; // nothing to overlap the last contraction with
  Rotation r;
  r.loop = f;
  r.first = contracts.front();
  r.deferred = contracts.back();
  // The deferred result is only yielded (nothing after it in its iteration reads it), in the carry's
  // layout; its right operand is a stream's slot (held until the contraction is waited for, one
  // iteration later: the loader's next copy into it waits for the release), its left operand in
  // registers.
  Value result = r.deferred.getResult();
  if (!result.hasOneUse() || result.getUses().begin()->getOwner() != b.getTerminator())
    return std::nullopt;
  r.carry = result.getUses().begin()->getOperandNumber();
  if (assigned.lookup(result).empty() || assigned.lookup(result) != assigned.lookup(b.getArgument(r.carry + 1)))
    return std::nullopt;
  Value rhs = r.deferred.getRhs();
  if (auto t = rhs.getDefiningOp<pgpu::TransposeOp>())
    rhs = t.getOperand();
  auto load = rhs.getDefiningOp<pgpu::LoadOp>();
  if (!load || !streamOf.count(load) || load->getBlock() != &b || deferredTranspose.count(r.deferred.getRhs()) ||
      sharedView.count(r.deferred.getLhs()))
    return std::nullopt;
  std::string n = std::to_string(next++);
  r.lhs = "_dl" + n;
  r.acc = "_da" + n;
  r.slot = "_ds" + n;
  r.result = "_dr" + n;
  return r;
}

void Serializer::issueDeferred(int indent) {
  if (rotation->issued)
    return;
  line(indent, rotation->result + " = warpgroup_mma(" + rotation->lhs + ", " + rotation->view + ", " + rotation->acc +
                   ", is_async=True)");
  rotation->issued = true;
}

void Serializer::awaitDeferred(int indent) {
  issueDeferred(indent);
  std::string carry = name(rotation->loop.getResult(rotation->carry));
  line(indent, carry + ", " + rotation->lhs + " = warpgroup_mma_wait(num_outstanding=0, deps=(" + rotation->result +
                   ", " + rotation->lhs + "))");
  line(indent, rotation->release);
  rotation->waited = true;
}

LogicalResult Serializer::emitRotated(pgpu::ForOp f, int indent) {
  Block &b = f.getBody().front();
  auto yield = [&](int at) {
    convertOperands(b.getTerminator(), at);
    for (auto [i, y] : llvm::enumerate(b.getTerminator()->getOperands()))
      if (i != rotation->carry)
        line(at, name(f.getResult(i)) + " = " + expr(y));
    overrides.clear();
  };
  for (auto [i, init] : llvm::enumerate(f.getInits())) {
    std::string carry = name(f.getResult(i));
    names[b.getArgument(i + 1)] = carry;
    line(indent, carry + " = " + expr(init));
  }
  std::string lower = expr(f.getLower()), upper = expr(f.getUpper()), step = expr(f.getStep());
  std::string iv = name(b.getArgument(0));
  line(indent, "# rotated: each iteration's last contraction runs behind the next one's first");
  line(indent, "if " + lower + " < " + upper + ":");
  line(indent + 1, iv + " = " + lower);
  rotation->rotated = false;
  if (failed(emitBlock(b, indent + 1)))
    return failure();
  yield(indent + 1);
  line(indent + 1, "for " + iv + " in range(" + lower + " + " + step + ", " + upper + ", " + step + "):");
  rotation->rotated = true;
  if (failed(emitBlock(b, indent + 2)))
    return failure();
  yield(indent + 2);
  line(indent + 2, "pass");
  rotation->issued = rotation->waited = false;
  awaitDeferred(indent + 1);
  return success();
}

LogicalResult Serializer::emitPartition(Mode m, pgpu::ProgramSpaceOp space, ArrayRef<Operation *> entry,
                                        std::string &text) {
  mode = m;
  partitionLayouts.clear();
  sharedView.clear();
  slotOf.clear();
  releases.clear();
  lastOrigin.clear();
  if (m == Mode::Consumer)
    assignLayouts();
  std::string bodyOf;
  llvm::raw_string_ostream stream(bodyOf);
  llvm::raw_string_ostream *saved = out;
  out = &stream;
  LogicalResult ok = success();
  for (Operation *op : entry)
    if (failed(ok = emitOp(*op, 1)))
      break;
  if (succeeded(ok)) {
    currentOp = space;
    line(1, name(space.getBody().getArgument(0)) + " = tl.program_id(0)");
    for (unsigned i = 0; i < streamDescriptor.size(); ++i)
      line(1, "_n" + std::to_string(i) + " = 0  # the ring's tiles so far: its slot and phase");
    ok = emitBlock(space.getBody().front(), 1);
  }
  out = saved;
  mode = Mode::Triton;
  if (failed(ok) || gluonWhy)
    return failure();
  for (auto &[n, spelled] : partitionLayouts)
    text += "    " + n + ": gl.constexpr = " + spelled + "\n";
  text += bodyOf;
  return success();
}

FailureOr<std::string> Serializer::gluonDescriptor(Operation *op, const triton::TileAccess &tile) {
  Type element = cast<pgpu::ViewType>(tile.view.getType()).getElementType();
  if (!(element.isF16() || element.isBF16()))
    return unsupported(op, "a Gluon box access is spelled for f16 and bf16 tiles");
  Value fragment = isa<pgpu::LoadOp>(op) ? op->getResult(0) : cast<pgpu::StoreOp>(op).getValue();
  SmallVector<int64_t> shape = shapeOf(fragment.getType());
  SmallVector<std::string> box, extents, strides;
  std::string v = name(tile.view);
  for (unsigned axis = 0; axis < tile.dimOf.size(); ++axis) {
    unsigned dim = tile.dimOf[axis];
    int64_t side = dim == triton::TileAccess::kFixed ? 1 : shape[dim];
    if (side > 256)
      return unsupported(op, "a TMA box side is at most 256");
    box.push_back(std::to_string(side));
    auto extent = extentSpelling.find({tile.view, axis});
    if (extent == extentSpelling.end())
      return unsupported(op, "the box's view is not a kernel argument");
    extents.push_back(extent->second);
    strides.push_back(v + "_stride" + std::to_string(axis));
  }
  if (std::stoll(box.back()) * element.getIntOrFloatBitWidth() / 8 < 16)
    return unsupported(op, "a TMA box's contiguous side is at least 16 bytes");
  std::string boxShape = "[" + llvm::join(box, ", ") + "]";
  std::string &desc = descriptors[v + boxShape];
  if (desc.empty()) {
    desc = "_desc" + std::to_string(descriptors.size() - 1);
    descriptorText += llvm::formatv("    # {0}: {1}'s {2} boxes of shape [{3}], strides [{4}] (made on the host)\n", desc,
                                    v, boxShape, llvm::join(extents, ", "), llvm::join(strides, ", "))
                          .str();
    hostDescriptors.push_back({v, boxShape});
    if (!llvm::is_contained(describedViews, tile.view))
      describedViews.push_back(tile.view);
  }
  boxOf[op] = {desc, boxShape};
  return desc;
}

std::string Serializer::planeView(const triton::TileAccess &tile, Value fragment, std::string view) {
  SmallVector<int64_t> shape = shapeOf(fragment.getType());
  SmallVector<unsigned, 2> walked = tile.walked();
  if (tile.dimOf.size() > 2)
    view += llvm::formatv(".reshape([{0}, {1}])", shape[tile.dimOf[walked[0]]], shape[tile.dimOf[walked[1]]]).str();
  if (tile.dimOf[walked[0]] == 1) // the fragment walks the view's axes the other way round
    view += ".permute((1, 0))";
  return view;
}

std::string Serializer::boxOrigin(const triton::TileAccess &tile, Value fragment) {
  SmallVector<std::string> at;
  for (unsigned axis = 0; axis < tile.dimOf.size(); ++axis) {
    Value offset = tile.offsets[axis];
    at.push_back(offset ? expr(offset) + " + " + expr(tile.starts[axis]) : expr(tile.starts[axis]));
    unsigned dim = tile.dimOf[axis];
    if (fragment && dim != triton::TileAccess::kFixed && splitDim(fragment.getType(), dim))
      at.back() += " + _PART * " + std::to_string(shapeOf(fragment.getType())[dim]);
  }
  return "[" + llvm::join(at, ", ") + "]";
}

LogicalResult Serializer::emitBoxAccess(Operation *op, int indent) {
  triton::TileAccess tile = *triton::matchTileAccess(op);
  auto [desc, box] = boxOf.lookup(op);
  std::string dtype = *glSpelling(tritonType(cast<pgpu::ViewType>(tile.view.getType()).getElementType()));
  std::string smem = "_sm" + std::to_string(next++);
  line(indent, smem + " = gl.allocate_shared_memory(" + dtype + ", " + box + ", " + desc + ".layout)");
  if (auto load = dyn_cast<pgpu::LoadOp>(op)) {
    // One TMA copy (rows past the view's bounds read zero, as the box's validity says), then the tile
    // in the layout its uses take.
    std::string bar = "_bar" + std::to_string(next++);
    line(indent, bar + " = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())");
    line(indent, "mbarrier.init(" + bar + ", count=1)");
    line(indent, "fence_async_shared()"); // the barrier's initialization visible to the copy (async proxy)
    line(indent, "mbarrier.expect(" + bar + ", " + desc + ".block_type.nbytes)");
    line(indent, "tma.async_copy_global_to_shared(" + desc + ", " + boxOrigin(tile, load.getResult()) + ", " + bar + ", " + smem + ")");
    line(indent, "mbarrier.wait(" + bar + ", 0)");
    // Its memory is reused (a later buffer's): the barrier object ends here (PTX: invalidated first).
    line(indent, "mbarrier.invalidate(" + bar + ")");
    // A tile read only as contractions' left operands stays where wgmma reads it from: shared memory
    // (no registers held for it through the loops that read it).
    Value tileValue = load.getResult();
    bool leftOnly = !tileValue.use_empty() && llvm::all_of(tileValue.getUses(), [](OpOperand &use) {
      return isa<pgpu::ContractOp>(use.getOwner()) && use.getOperandNumber() == 0 &&
             use.getOwner()->getOperand(1) != use.get();
    });
    if (leftOnly) {
      sharedView[tileValue] = planeView(tile, tileValue, smem);
      return success();
    }
    line(indent, name(tileValue) + " = " + planeView(tile, tileValue, smem) + ".load(" + assigned.lookup(tileValue) +
                     ")");
    return success();
  }
  auto store = cast<pgpu::StoreOp>(op);
  std::string value = expr(store.getValue());
  line(indent, planeView(tile, store.getValue(), smem) + ".store(" + value + ")");
  line(indent, "fence_async_shared()");
  line(indent, "tma.async_copy_shared_to_global(" + desc + ", " + boxOrigin(tile, store.getValue()) + ", " + smem + ")");
  line(indent, "tma.store_wait(pendings=0)");
  return success();
}

void Serializer::planSplit() {
  // Session 18's hand kernels: two one-warpgroup consumer partitions over the two halves of a 128-row
  // block, sharing the loader's tiles, reach 537-571 TFLOP/s where one 8-warp partition over the same
  // rows stays at 414 (the warps in lockstep through the partition's barriers). The rows split where
  // every contraction's left operand has them first and nothing combines across them: the halves then
  // run the same loops over the same tiles (the loops' bounds are the block's), each on its rows.
  splitSymbol.clear();
  splitParts = 1;
  if (param(triton::kWarpsParam) != 8)
    return;
  std::string symbol;
  bool rowsAlike = true;
  kernel.walk([&](pgpu::ContractOp c) {
    auto lhs = cast<pgpu::FragmentType>(c.getLhs().getType());
    auto rows = lhs.getRank() == 2 ? dyn_cast<StringAttr>(lhs.getExtents()[0]) : StringAttr();
    if (!rows || (!symbol.empty() && symbol != rows.getValue()))
      rowsAlike = false;
    else
      symbol = rows.getValue().str();
  });
  if (!rowsAlike || symbol.empty() || param(symbol) % (2 * 64) != 0)
    return;
  auto count = [&](Type t) {
    auto f = dyn_cast<pgpu::FragmentType>(t);
    return f ? llvm::count_if(f.getExtents(), [&](Attribute e) {
      auto n = dyn_cast<StringAttr>(e);
      return n && n.getValue() == symbol;
    })
             : 0;
  };
  auto rowsFirst = [&](Value v) {
    auto f = cast<pgpu::FragmentType>(v.getType());
    auto n = dyn_cast<StringAttr>(f.getExtents()[0]);
    return count(v.getType()) == 1 && n && n.getValue() == symbol;
  };
  WalkResult across = kernel.walk([&](Operation *op) {
    SmallVector<Type> types(op->getOperandTypes());
    types.append(op->getResultTypes().begin(), op->getResultTypes().end());
    if (llvm::none_of(types, [&](Type t) { return count(t) > 0; }))
      return WalkResult::advance();
    if (llvm::any_of(types, [&](Type t) { return count(t) > 1; }))
      return WalkResult::interrupt();
    if (isa<pgpu::BinaryOp, pgpu::UnaryOp, pgpu::CmpOp, pgpu::SelectOp, pgpu::CastOp, pgpu::BitcastOp, pgpu::SplatOp,
            pgpu::BroadcastOp, pgpu::IotaOp, pgpu::ForOp, pgpu::IfOp, pgpu::YieldOp, pgpu::LoadOp, pgpu::StoreOp>(op))
      return WalkResult::advance(); // lane-wise in the rows (a row's coordinates from its iota)
    if (unspelledInGluon(op))
      return WalkResult::advance(); // never spelled in a Gluon partition (emitOp): no split spelling either
    if (auto c = dyn_cast<pgpu::ContractOp>(op))
      return rowsFirst(c.getLhs()) && rowsFirst(c.getAcc()) && count(c.getRhs().getType()) == 0
                 ? WalkResult::advance()
                 : WalkResult::interrupt();
    if (auto r = dyn_cast<pgpu::ReduceOp>(op)) {
      for (Value in : r.getInputs()) {
        auto f = dyn_cast<pgpu::FragmentType>(in.getType());
        if (!f)
          continue;
        for (auto [d, e] : llvm::enumerate(f.getExtents()))
          if (auto n = dyn_cast<StringAttr>(e); n && n.getValue() == symbol && llvm::is_contained(r.getAxes(), d))
            return WalkResult::interrupt();
      }
      return WalkResult::advance();
    }
    return WalkResult::interrupt();
  });
  if (across.wasInterrupted())
    return;
  splitSymbol = symbol;
  splitParts = 2;
}

LogicalResult Serializer::emitGluon(pgpu::ProgramSpaceOp space, ArrayRef<Operation *> entry) {
  gluonLayouts = gluon::LayoutPlan::infer(kernel);
  gluonStreams = gluon::StreamPlan::plan(kernel);
  planSplit();
  mode = Mode::Consumer; // refusals below are the Gluon spelling's, not errors
  auto refuse = [&](Operation *at, const Twine &why) {
    (void)unsupported(at, why.str());
    mode = Mode::Triton;
    return failure();
  };
  if (gluonStreams->refusal)
    return refuse(gluonStreams->refusedAt, *gluonStreams->refusal);
  if (gluonStreams->streams.empty())
    return refuse(kernel, "no fold-source stream (a box load in a loop that only feeds contractions' right operands)");
  int64_t stages = std::max<int64_t>(param(triton::kStagesParam), 2);
  for (const gluon::Stream &s : gluonStreams->streams) {
    Value read = s.transpose ? s.transpose->getResult(0) : s.load->getResult(0);
    for (Operation *user : read.getUsers())
      if (user->getBlock() != s.load->getBlock())
        return refuse(user, "a contraction reads a stream's tile in another block than its load (the slot's "
                            "release point would be ambiguous)");
    // Only right operands stream: another tile load beside a stream would be a TMA copy the consumer
    // waits for every iteration, unpipelined, where Triton's spelling pipelines both. A contraction's
    // left operand (a GEMM's) is refused; a tile the consumers compute with (an additive bias on the
    // scores) is read with pointers straight into their registers, its latency under the other
    // partition's products (declared off by default: TritonLegalize.cpp declareGluon).
    for (Operation &other : *s.load->getBlock())
      if (auto load = dyn_cast<pgpu::LoadOp>(other);
          load && isa<pgpu::FragmentType>(load.getType()) &&
          llvm::none_of(gluonStreams->streams, [&](const gluon::Stream &x) { return x.load == load; })) {
        if (llvm::any_of(load->getUsers(), [](Operation *u) { return isa<pgpu::ContractOp>(u); }))
          return refuse(load, "a tile load in a streamed loop is not a stream itself (only contractions' right "
                              "operands stream): the consumer would wait for its copy every iteration");
        pointerTiles.insert(load);
      }
    // The ring: the box's tiles, each a TMA copy of the stream's descriptor.
    Type element = cast<pgpu::ViewType>(s.box.view.getType()).getElementType();
    FailureOr<std::string> described = gluonDescriptor(s.load, s.box);
    if (failed(described))
      return failure();
    std::string desc = *described, box = boxOf.lookup(s.load).second;
    boxOf.erase(s.load); // a stream's load is the rings', not a box access of its own
    // One ring per descriptor: the streams of one view and box (the key loop's copies under different
    // guards and intervals) run one after another, in the same order in both partitions, so they share
    // its slots and its count.
    auto known = llvm::find(streamDescriptor, desc);
    if (known != streamDescriptor.end()) {
      streamOf[s.load] = known - streamDescriptor.begin();
      continue;
    }
    streamOf[s.load] = streamDescriptor.size();
    std::string r = std::to_string(streamDescriptor.size()), dtype = tritonType(element);
    streamDescriptor.push_back(desc);
    int64_t slot = element.getIntOrFloatBitWidth() / 8; // a slot holds the box: the tile's elements
    for (int64_t extent : shapeOf(s.load->getResult(0).getType()))
      slot *= extent;
    gluonRingBytes += stages * slot;
    gluonRings.push_back(llvm::formatv("    _ring{0} = gl.allocate_shared_memory({1}, [{2}, {3}], {4}.layout)\n", r,
                                       *glSpelling(dtype), stages, box.substr(1, box.size() - 2), desc)
                             .str() +
                         llvm::formatv("    _ready{0} = gl.allocate_shared_memory(gl.int64, [{1}, 1], "
                                       "mbarrier.MBarrierLayout())\n",
                                       r, stages)
                             .str() +
                         llvm::formatv("    _empty{0} = gl.allocate_shared_memory(gl.int64, [{1}, 1], "
                                       "mbarrier.MBarrierLayout())\n",
                                       r, stages)
                             .str() +
                         llvm::formatv("    for _i in gl.static_range({0}):\n"
                                       "        mbarrier.init(_ready{1}.index(_i), count=1)\n"
                                       "        mbarrier.init(_empty{1}.index(_i), count={2})\n",
                                       stages, r, splitParts)
                             .str());
  }
  // The consumer's other box loads and stores are TMA copies through shared memory: their element
  // coordinates, masks and fills are then spelled by no one (and an automatic chain that Gluon cannot
  // anchor, or anchors two ways, is never written). Boxes Gluon cannot describe keep their pointers.
  kernel.walk([&](Operation *op) {
    // (Triton's reason to keep a loop-free box on pointers, keepsPointerSpelling, is Triton's own.)
    if (!isa<pgpu::LoadOp, pgpu::StoreOp>(op) || streamOf.count(op) || pointerTiles.contains(op))
      return;
    if (std::optional<triton::TileAccess> tile = triton::matchTileAccess(op))
      if (failed(gluonDescriptor(op, *tile)))
        gluonWhy.reset();
  });
  auto unspelledUse = [&](OpOperand &use) {
    Operation *user = use.getOwner();
    if (consumerDead.contains(user) || streamOf.count(user))
      return true;
    if (!boxOf.count(user))
      return false;
    triton::TileAccess tile = *triton::matchTileAccess(user);
    if (auto store = dyn_cast<pgpu::StoreOp>(user); store && use.get() == store.getValue())
      return false;
    return !llvm::is_contained(tile.starts, use.get()) && !llvm::is_contained(tile.offsets, use.get());
  };
  // A TMA copy's box origin (boxOrigin) spells its tile's starts and offsets themselves: they stay
  // even where every use of theirs is unspelled (a column tile's origin whose lanes only a streamed
  // load and a TMA store's element coordinates read: a convolution's [pixels, OC] output tile).
  DenseSet<Value> origins;
  for (auto &entry : boxOf) {
    triton::TileAccess tile = *triton::matchTileAccess(entry.first);
    for (Value v : llvm::concat<Value>(tile.starts, tile.offsets))
      if (v)
        origins.insert(v);
  }
  for (bool changed = true; changed;) {
    changed = false;
    kernel.walk<WalkOrder::PostOrder>([&](Operation *op) {
      if (consumerDead.contains(op) || llvm::any_of(op->getResults(), [&](Value r) { return origins.contains(r); }) ||
          !isa<pgpu::IotaOp, pgpu::SplatOp, pgpu::BroadcastOp, pgpu::BinaryOp, pgpu::UnaryOp, pgpu::CmpOp,
               pgpu::SelectOp, pgpu::CastOp, pgpu::BitcastOp, pgpu::TransposeOp, arith::ConstantOp, pgpu::CeilDivOp,
               pgpu::ParamOp>(op))
        return;
      bool dead = llvm::all_of(op->getResults(), [&](Value r) {
        return !r.use_empty() && llvm::all_of(r.getUses(), [&](OpOperand &u) { return unspelledUse(u); });
      });
      if (dead) {
        consumerDead.insert(op);
        changed = true;
      }
    });
  }
  mode = Mode::Triton;
  std::string consumer, loader;
  if (failed(emitPartition(Mode::Consumer, space, entry, consumer)) ||
      failed(emitPartition(Mode::Loader, space, entry, loader)))
    return failure();
  gluonText = consumer; // the partitions' bodies: run() heads them, knowing the parameters
  gluonLoader = loader;
  return success();
}
