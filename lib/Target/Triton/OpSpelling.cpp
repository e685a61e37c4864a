//===- OpSpelling.cpp - the Triton spelling of each op --------------------===//
//
// The Triton serializer's walk over a block and its spelling per op: one
// case per pgpu op, an op without a unique Triton spelling a diagnostic at
// the op (seed 002 §3.7, §5.5); combine regions become helper functions.
// In a Gluon partition (GluonSpelling.cpp) the walk hands the ops spelled
// there over before it spells the rest in Gluon's dialect.
//
//===----------------------------------------------------------------------===//

#include "CrossLaneReads.h"
#include "SerializerImpl.h"
#include "tessel/Dialect/PGPU/IR/LoopTrips.h"
#include "tessel/Target/ZeroDivisor.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;
using namespace tessel;
using namespace tessel::triton::spelling;
namespace gluon = tessel::triton::gluon;

namespace {
/// kir.cast float -> integer (truncate toward zero, saturate, NaN gives 0; Numerics.cpp castElem) as
/// Triton source: `tl.cast` alone is LLVM's fptosi, which PTX spells with a saturating cvt only at
/// 16 and 32 bits (an i8 result wraps) and NumPy (TRITON_INTERPRET=1) gives the most negative integer
/// for NaN and values out of range. So the in-range values are converted (the others replaced by 0
/// first, leaving no undefined conversion) and the rest selected: the bounds are powers of two, exact
/// in f32 (an f16/bf16 operand is widened exactly first) and f64. `x` is a name or a literal.
std::string saturatingFloatToInt(const std::string &x, Type from, Type to, const std::string &target) {
  unsigned width = to.isIndex() ? 32 : to.getIntOrFloatBitWidth(); // index is spelled tl.int32
  bool u = to.isUnsignedInteger();
  std::string xf = from.isF32() || from.isF64() ? x : "tl.cast(" + x + ", tl.float32)";
  auto pow2 = [](unsigned e) { return llvm::formatv("{0:F1}", std::ldexp(1.0, e)).str(); };
  std::string lo = u ? "0.0" : "-" + pow2(width - 1), above = pow2(u ? width : width - 1);
  std::string max = u ? (width == 64 ? "18446744073709551615" : std::to_string((uint64_t(1) << width) - 1))
                      : std::to_string((uint64_t(1) << (width - 1)) - 1);
  std::string min = u ? "0" : "-" + std::to_string(uint64_t(1) << (width - 1));
  std::string in = "((" + xf + " >= " + lo + ") & (" + xf + " < " + above + "))";
  return "tl.cast(tl.where(" + in + ", tl.cast(tl.where(" + in + ", " + xf + ", 0.0), " + target + "), tl.where(" +
         xf + " >= " + above + ", " + max + ", tl.where(" + xf + " < " + lo + ", " + min + ", 0))), " + target + ")";
}

/// Whether `op`, in a pgpu.last_program, reads `resource` which an op outside that finalization
/// writes: what other program instances stored or merged before their ticket (seed 000 §4.4, §9).
/// Such a read is made at L2 (the ticket protocol at pgpu.last_program below): `ld.global.cg`, or
/// an atomic where the finalization returns the element to its initial value.
bool readsOtherPrograms(Operation *op, Value resource) {
  auto last = op->getParentOfType<pgpu::LastProgramOp>();
  return last && llvm::any_of(resource.getUsers(), [&](Operation *user) {
           return !last->isAncestor(user) &&
                  isa<pgpu::StoreOp, pgpu::ScatterOp, pgpu::ScatterReduceOp, pgpu::BufferStoreOp, pgpu::AtomicRMWOp,
                      pgpu::AtomicCASOp, pgpu::AtomicStoreOp>(user);
         });
}

/// Whether `a` and `b` lie in different branches of one pgpu.if: no program runs both.
static bool exclusiveBranches(Operation *a, Operation *b) {
  for (auto branch = a->getParentOfType<pgpu::IfOp>(); branch; branch = branch->getParentOfType<pgpu::IfOp>())
    if (branch->isAncestor(b))
      return branch.getThenRegion().isAncestor(a->getParentRegion()) !=
             branch.getThenRegion().isAncestor(b->getParentRegion());
  return false;
}

/// Whether `read`, outside any finalization, reads a buffer that only other programs store: each of its
/// buffer_stores lies in a branch exclusive of the read's (pgpu-stage-operands' first phase, which the
/// reading programs wait for with an acquire). Made at L2 like a finalization's read of other programs'
/// stores, and without a barrier (no store of its own precedes it), so Triton may pipeline it.
static bool readsOtherPhase(pgpu::BufferLoadOp read) {
  // Only a tensor-core operand's tile (what Triton's pipeliner stages; a summary read once keeps the
  // barrier and plain read of the phased folds).
  if (read->getParentOfType<pgpu::LastProgramOp>() ||
      llvm::none_of(read->getUsers(), [](Operation *u) { return isa<pgpu::ContractOp>(u); }))
    return false;
  bool stored = false;
  for (Operation *user : read.getBuffer().getUsers())
    if (isa<pgpu::BufferStoreOp>(user)) {
      if (!exclusiveBranches(read, user))
        return false;
      stored = true;
    }
  return stored;
}

/// Whether the program that runs `read` may itself have stored into its buffer: a buffer_store of it in
/// the same finalization (both in none, or in the same pgpu.last_program). Triton orders a program's
/// global memory only within a thread, and a scalar is stored by one thread and read by all (the
/// selector's fenceWrite is the same rule); another finalization's store is ordered by its ticket.
bool readsOwnStore(pgpu::BufferLoadOp read) {
  auto last = read->getParentOfType<pgpu::LastProgramOp>();
  return llvm::any_of(read.getBuffer().getUsers(), [&](Operation *user) {
    return isa<pgpu::BufferStoreOp>(user) && user->getParentOfType<pgpu::LastProgramOp>() == last;
  });
}

/// Whether `read`, outside any finalization, reads a buffer its program's threads merged into (a
/// scatter-reduce outside any pgpu.last_program: kir-to-pgpu's per-member histogram rows). Those
/// merges are atomics at L2 by any thread of the program: the read follows a CTA barrier and is made at
/// L2, like a finalization's read of other programs' merges.
bool readsOwnMerge(pgpu::BufferLoadOp read) {
  return !read->getParentOfType<pgpu::LastProgramOp>() &&
         llvm::any_of(read.getBuffer().getUsers(), [&](Operation *user) {
           return isa<pgpu::ScatterReduceOp>(user) && !user->getParentOfType<pgpu::LastProgramOp>();
         });
}

/// The store that returns the element `read` reads to a value that does not depend on it, when only
/// pure ops that do not use the read lie between them in the block (pgpu-member-partials' and
/// pgpu-atomic-partials' kept sums: read, then reset for the next launch); null otherwise. The pair is
/// one exchange: 32- and 64-bit elements (Triton's atomic_xchg).
pgpu::BufferStoreOp resetAfter(pgpu::BufferLoadOp read) {
  unsigned width = pgpu::elementTypeOf(read.getType()).getIntOrFloatBitWidth();
  if (width != 32 && width != 64)
    return {};
  for (Operation *op = read->getNextNode(); op && !op->hasTrait<OpTrait::IsTerminator>(); op = op->getNextNode()) {
    if (auto reset = dyn_cast<pgpu::BufferStoreOp>(op)) {
      if (reset.getBuffer() == read.getBuffer() && llvm::equal(reset.getCoords(), read.getCoords()) &&
          reset.getValid() == read.getValid() && reset.getValue() != read.getResult() &&
          reset.getValue().getType() == read.getType())
        return reset;
      return {};
    }
    if (op->getNumRegions() || !isMemoryEffectFree(op) || llvm::is_contained(op->getOperands(), read.getResult()))
      return {};
  }
  return {};
}
} // namespace

/// Whether `r` reduces one fragment of floats or of 32/64-bit integers with a combine that yields the
/// addition of its two arguments (what tl.sum spells without a conversion).
static bool isPlainSum(pgpu::ReduceOp r) {
  if (r.getInputs().size() != 1 || r.getResults().size() != 1 || r.getAxes().size() != 1)
    return false;
  Type element = pgpu::elementTypeOf(r.getInputs()[0].getType());
  auto integer = dyn_cast<IntegerType>(element);
  if (!isa<FloatType>(element) && !(integer && integer.getWidth() >= 32 && integer.getWidth() <= 64))
    return false;
  Block &block = r.getCombine().front();
  if (block.getNumArguments() != 2 || !llvm::hasSingleElement(block.without_terminator()))
    return false;
  auto add = dyn_cast<pgpu::BinaryOp>(block.front());
  if (!add || add.getKind() != kir::BinaryKind::Add || block.getTerminator()->getNumOperands() != 1 ||
      block.getTerminator()->getOperand(0) != add.getResult())
    return false;
  Value a = block.getArgument(0), b = block.getArgument(1);
  return (add.getLhs() == a && add.getRhs() == b) || (add.getLhs() == b && add.getRhs() == a);
}

/// A combine region as a module-level `@triton.jit` function for tl.reduce
/// and tl.associative_scan; the kernel's name keeps helpers of different
/// kernels in one module apart.
FailureOr<std::string> Serializer::combineFunction(Region &combine) {
  std::string fn = "_" + kernel.getSymName().str() + "_combine" + std::to_string(next++);
  Block &block = combine.front();
  SmallVector<std::string> params;
  for (BlockArgument arg : block.getArguments())
    params.push_back(name(arg));
  llvm::raw_string_ostream *saved = out;
  std::string text;
  llvm::raw_string_ostream stream(text);
  out = &stream;
  line(0, mode == Mode::Triton ? "@triton.jit" : "@gluon.jit");
  line(0, "def " + fn + "(" + llvm::join(params, ", ") + "):");
  std::string savedOrigin = lastOrigin;
  LogicalResult ok = emitBlock(block, 1);
  SmallVector<std::string> results;
  for (Value y : block.getTerminator()->getOperands())
    results.push_back(expr(y));
  line(1, "return " + llvm::join(results, ", "));
  out = saved;
  lastOrigin = savedOrigin;
  if (failed(ok))
    return failure();
  helpers << "\n\n" << text;
  return fn;
}

LogicalResult Serializer::emitBlock(Block &block, int indent) {
  for (Operation &op : block.without_terminator())
    if (failed(emitOp(op, indent)))
      return failure();
  return success();
}

LogicalResult Serializer::emitOp(Operation &op, int indent) {
  // Generated source points back at the KIR origin of what follows.
  if (std::optional<std::string> origin = wrapper::sourceLine(op.getLoc()); origin && *origin != lastOrigin &&
                                                                     !isa<arith::ConstantOp>(op)) {
    line(indent, "# " + *origin);
    lastOrigin = *origin;
  }
  // The provider verifier's facts (Capabilities.cpp): the serializer spells only what passes it.
  if (std::optional<std::string> issue = triton::spellingIssue(&op))
    return unsupported(&op, *issue);
  if (mode == Mode::Loader && !gluonStreams->loader.contains(&op) && !streamOf.count(&op))
    return success(); // the consumers' work
  currentOp = &op;
  // A read of what another thread of this program stored follows a CTA barrier (CrossLaneReads.h).
  auto lanes = [&](pgpu::FragmentType t) {
    int64_t n = 1;
    for (int64_t e : shapeOf(t))
      n *= e;
    return n;
  };
  if (mode == Mode::Triton && barrierBefore(&op, 32 * consumerWarps(), lanes, fencedReads))
    line(indent, "tl.debug_barrier()");
  if (mode != Mode::Triton) {
    // A rotated loop waits for the previous iteration's deferred contraction before the carry it
    // yields is read (by this op or one inside it).
    if (rotation && rotation->rotated && !rotation->waited && op.getBlock() == &rotation->loop.getBody().front() &&
        &op != rotation->deferred.getOperation()) {
      Value carry = rotation->loop.getBody().front().getArgument(rotation->carry + 1);
      bool reads = op.walk([&](Operation *inner) {
                       return llvm::is_contained(inner->getOperands(), carry) ? WalkResult::interrupt()
                                                                               : WalkResult::advance();
                     }).wasInterrupted();
      if (reads)
        awaitDeferred(indent);
    }
    if (mode == Mode::Consumer)
      convertOperands(&op, indent);
    LogicalResult done = success();
    bool spelledHere = true;
    if (mode == Mode::Consumer && consumerDead.contains(&op))
      ; // read only by what TMA copies spell as box origins
    else if (auto c = dyn_cast<pgpu::ContractOp>(op))
      done = emitGluonContract(c, indent);
    else if (mode == Mode::Consumer && boxOf.count(&op))
      done = emitBoxAccess(&op, indent);
    else if (auto l = dyn_cast<pgpu::LoadOp>(op); l && streamOf.count(l))
      done = emitStreamLoad(l, indent);
    else if (auto t = dyn_cast<pgpu::TransposeOp>(op); t && sharedView.count(t.getOperand())) {
      Slot slot = slotOf.lookup(t.getOperand());
      slot.suffix += ".permute((1, 0))"; // a view of the slot
      sharedView[t.getResult()] = slot.view(slot.var);
      slotOf[t.getResult()] = slot;
    }
    else if (mode == Mode::Consumer && isa<pgpu::TransposeOp>(op) && deferredTranspose.count(op.getResult(0)))
      ; // spelled by its contractions, as a view of their shared copy
    else if (unspelledInGluon(&op))
      done = unsupported(&op, "not spelled in a warp-specialized Gluon partition yet");
    else
      spelledHere = false;
    if (spelledHere) {
      overrides.clear();
      return failure(failed(done) || gluonWhy);
    }
  }
  LogicalResult spelledOp = emitSpelling(op, indent);
  overrides.clear();
  return failure(failed(spelledOp) || (mode != Mode::Triton && gluonWhy));
}

LogicalResult Serializer::emitSpelling(Operation &op, int indent) {
  auto assign = [&](Value result, const Twine &rhs) { line(indent, name(result) + " = " + rhs); };
  return llvm::TypeSwitch<Operation *, LogicalResult>(&op)
      .Case<arith::ConstantOp>([&](arith::ConstantOp) { return success(); }) // spelled at each use
      .Case<pgpu::ExtentOp>([&](pgpu::ExtentOp e) {
        auto spelled = extentSpelling.find({e.getView(), unsigned(e.getAxis())});
        if (spelled == extentSpelling.end())
          return unsupported(e, "an extent of a view that is not a kernel argument");
        assign(e.getResult(), spelled->second);
        return success();
      })
      .Case<pgpu::StrideOp>([&](pgpu::StrideOp e) {
        assign(e.getResult(), llvm::formatv("{0}_stride{1}", name(e.getView()), e.getAxis()).str());
        return success();
      })
      .Case<pgpu::ParamOp>([&](pgpu::ParamOp p) {
        assign(p.getResult(), std::to_string(param(p.getName())));
        return success();
      })
      .Case<pgpu::CeilDivOp>([&](pgpu::CeilDivOp c) {
        assign(c.getResult(), "tl.cdiv(" + expr(c.getLhs()) + ", " + expr(c.getRhs()) + ")");
        return success();
      })
      .Case<pgpu::BinaryOp>([&](pgpu::BinaryOp b) -> LogicalResult {
        // Floor and truncation agree on a non-negative dividend and a positive divisor (an index divisor
        // of 0 is an empty range's): construction's address arithmetic keeps Triton's // and %.
        bool truncationExact = (b.getKind() == kir::BinaryKind::Div || b.getKind() == kir::BinaryKind::Rem) &&
                               pgpu::provablyNonNegative(b.getLhs()) && pgpu::provablyNonNegative(b.getRhs());
        Type element = pgpu::elementTypeOf(b.getType());
        auto integer = dyn_cast<IntegerType>(element);
        // An integer divisor that may be 0 divides as 1 and the result is 0 there (KIR's rule; ZeroDivisor.h):
        // Triton's // and % are undefined there.
        bool guarded = target::guardsZeroDivisor(b);
        std::string divisor = expr(b.getRhs()), zero, one;
        if (integer) {
          zero = "tl.full([], 0, tl.int" + std::to_string(integer.getWidth()) + ")";
          one = "tl.full([], 1, tl.int" + std::to_string(integer.getWidth()) + ")";
        }
        std::string rhs = guarded ? "tl.where(" + divisor + " == 0, " + one + ", " + divisor + ")" : divisor;
        std::optional<std::string> text = triton::binarySpelling(b.getKind(), element, b.getApproximate(),
                                                                 expr(b.getLhs()), rhs, truncationExact);
        // A scalar index remainder (a blocked walk's start within a row: form-blocking's carried lane
        // coordinates) is spelled a - (a // b) * b, the same value: Triton's alignment analysis gives a
        // scalar `%` divisibility 1, and every lane coordinate built on it then reads as unaligned, so no
        // access of the walk is vectorized; through the subtraction it keeps gcd(a's, b's) divisibility.
        if (truncationExact && b.getKind() == kir::BinaryKind::Rem && !isa<pgpu::FragmentType>(b.getType()))
          text = triton::scalarRemainderSpelling(expr(b.getLhs()), rhs);
        if (!text)
          return unsupported(&op, "no Triton operation with this kind's NaN semantics");
        if (guarded)
          text = "tl.where(" + divisor + " == 0, " + zero + ", " + *text + ")";
        assign(b.getResult(), *text);
        return success();
      })
      .Case<pgpu::UnaryOp>([&](pgpu::UnaryOp u) -> LogicalResult {
        std::optional<std::string> text = triton::unarySpelling(u.getKind(), pgpu::elementTypeOf(u.getType()),
                                                                u.getApproximate(), expr(u.getOperand()));
        if (!text)
          return unsupported(&op, "no Triton math function with the required accuracy");
        assign(u.getResult(), *text);
        return success();
      })
      .Case<pgpu::CmpOp>([&](pgpu::CmpOp c) {
        static const char *spell[] = {"==", "!=", "<", "<=", ">", ">="};
        bool f8 = triton::isFloat8(pgpu::elementTypeOf(c.getLhs().getType())); // compared in f32 (exact)
        auto side = [&](Value v) { return f8 ? triton::float8Widening(expr(v)) : expr(v); };
        assign(c.getResult(), side(c.getLhs()) + " " + spell[static_cast<int>(c.getPredicate())] + " " + side(c.getRhs()));
        return success();
      })
      .Case<pgpu::SelectOp>([&](pgpu::SelectOp s) {
        assign(s.getResult(), "tl.where(" + expr(s.getCondition()) + ", " + expr(s.getTrueValue()) + ", " +
                                  expr(s.getFalseValue()) + ")");
        return success();
      })
      .Case<pgpu::CastOp>([&](pgpu::CastOp c) -> LogicalResult {
        std::string target = tritonType(pgpu::elementTypeOf(c.getType()));
        if (target.empty())
          return unsupported(&op, "no Triton dtype");
        std::string x = expr(c.getOperand());
        if (c.getOperand().getDefiningOp<arith::ConstantOp>() && c.getOperand().getType().isIndex())
          x = "tl.full([], " + x + ", tl.int32)";
        // tl.cast, not `.to`: Triton passes an integer argument equal to 1 as a Python int.
        Type from = pgpu::elementTypeOf(c.getOperand().getType()), to = pgpu::elementTypeOf(c.getType());
        // FP8 converts through f32 both ways (docs/language.md, Conversions): widening is exact, and
        // narrowing follows torch's rule (float8Narrowing), not the GPU's saturating cvt.
        Type f32 = Float32Type::get(c.getContext());
        if (triton::isFloat8(from)) {
          x = triton::float8Widening(x);
          from = f32;
          if (to.isF32()) {
            assign(c.getResult(), x);
            return success();
          }
        }
        if (triton::isFloat8(to)) {
          assign(c.getResult(), triton::float8Narrowing(to, from.isF32() ? x : "tl.cast(" + x + ", tl.float32)"));
          return success();
        }
        if (isa<FloatType>(from) && to.isIntOrIndex() && !to.isInteger(1)) {
          assign(c.getResult(), saturatingFloatToInt(x, from, to, target));
          return success();
        }
        assign(c.getResult(), "tl.cast(" + x + ", " + target + ")");
        return success();
      })
      .Case<pgpu::BitcastOp>([&](pgpu::BitcastOp c) -> LogicalResult {
        std::string target = tritonType(pgpu::elementTypeOf(c.getType()));
        if (target.empty())
          return unsupported(&op, "no Triton dtype");
        assign(c.getResult(), "tl.cast(" + expr(c.getOperand()) + ", " + target + ", bitcast=True)");
        return success();
      })
      .Case<pgpu::LoadOp, pgpu::GatherOp>([&](auto load) -> LogicalResult {
        FailureOr<std::string> addr = address(&op, load.getView(), load.getCoords());
        if (failed(addr))
          return failure();
        // A finalization's read of what other programs wrote is made at L2 (pgpu.last_program below).
        std::string pointer = "tl.load(" + *addr + ", mask=" + expr(load.getValid()) + ", other=" +
                              expr(load.getFill()) +
                              (readsOtherPrograms(&op, load.getView()) ? ", cache_modifier='.cg')" : ")");
        // (A Gluon partition reads what is not a stream through pointers.)
        if (std::optional<std::string> box = mode == Mode::Triton ? descriptorAccess(&op) : std::nullopt) {
          // Both spellings; the wrapper picks (USE_TMA) by TMA's alignment rules at launch.
          line(indent, "if USE_TMA:");
          line(indent + 1, name(load.getResult()) + " = " + *box);
          line(indent, "else:");
          line(indent + 1, name(load.getResult()) + " = " + pointer);
          return success();
        }
        if (mode == Mode::Triton && emitPairedRead(&op, load.getView(), load.getCoords(), load.getValid(),
                                                   load.getFill(), readsOtherPrograms(&op, load.getView()), indent))
          return success();
        if (mode == Mode::Triton &&
            emitInterleavedRead(&op, load.getView(), load.getCoords(), load.getValid(), load.getFill(),
                                readsOtherPrograms(&op, load.getView()), indent))
          return success();
        assign(load.getResult(), pointer);
        return success();
      })
      .Case<pgpu::StoreOp, pgpu::ScatterOp>([&](auto store) -> LogicalResult {
        FailureOr<std::string> addr = address(&op, store.getView(), store.getCoords());
        if (failed(addr))
          return failure();
        std::string pointer = "tl.store(" + *addr + ", " + expr(store.getValue()) + ", mask=" + expr(store.getValid()) + ")";
        // (A Gluon partition reads what is not a stream through pointers.)
        if (std::optional<std::string> box = mode == Mode::Triton ? descriptorAccess(&op) : std::nullopt) {
          line(indent, "if USE_TMA:");
          line(indent + 1, *box);
          line(indent, "else:");
          line(indent + 1, pointer);
          return success();
        }
        line(indent, pointer);
        return success();
      })
      .Case<pgpu::BufferLoadOp, pgpu::BufferStoreOp>([&](auto access) -> LogicalResult {
        FailureOr<std::string> at = workspaceAddress(&op, access.getBuffer(), access.getCoords());
        if (failed(at))
          return failure();
        std::string address = *at;
        if constexpr (std::is_same_v<decltype(access), pgpu::BufferLoadOp>) {
          // A finalization's read of what other programs stored or merged: at L2 (pgpu.last_program
          // below). Followed by the reset of the element, the pair is one exchange, spelled there.
          bool ownMerge = readsOwnMerge(access);
          bool otherPhase = readsOtherPhase(access);
          bool others = readsOtherPrograms(&op, access.getBuffer()) || ownMerge || otherPhase;
          if (ownMerge)
            line(indent, "tl.debug_barrier()");
          if (others)
            if (pgpu::BufferStoreOp reset = resetAfter(access)) {
              resetRead[reset] = &op;
              return success();
            }
          if (readsOwnStore(access) && !ownMerge && !otherPhase)
            line(indent, "tl.debug_barrier()");
          assign(access.getResult(), "tl.load(" + address + ", mask=" + expr(access.getValid()) + ", other=" +
                                         expr(access.getFill()) + (others ? ", cache_modifier='.cg')" : ")"));
        } else if (auto it = resetRead.find(&op); it != resetRead.end()) {
          // Read and reset at once, at L2: every thread's exchange returns the merged element (ordered
          // after the ticket's acquire by the barrier there) and leaves the initial value for the next
          // launch. Lanes the mask leaves out read the fill.
          // A float element is exchanged as its bits (the same ATOMG.EXCH on the GPU; Triton 3.6's
          // interpreter exchanges integers only).
          auto read = cast<pgpu::BufferLoadOp>(it->second);
          Type element = pgpu::elementTypeOf(read.getType());
          std::string pointer = address, value = expr(access.getValue()), back;
          if (isa<FloatType>(element)) {
            std::string bits = element.getIntOrFloatBitWidth() == 64 ? "tl.int64" : "tl.int32";
            pointer = "(" + address + ").to(tl.pointer_type(" + bits + "))";
            value = "(" + value + ").to(" + bits + ", bitcast=True)";
            back = ".to(" + tritonType(element) + ", bitcast=True)";
          }
          std::string exchange = "tl.atomic_xchg(" + pointer + ", " + value + ", mask=" + expr(access.getValid()) +
                                 ", sem='relaxed', scope='gpu')" + back;
          if (matchPattern(access.getValid(), m_One()))
            assign(read.getResult(), exchange);
          else
            assign(read.getResult(), "tl.where(" + expr(access.getValid()) + ", " + exchange + ", " +
                                         expr(read.getFill()) + ")");
        } else {
          line(indent, "tl.store(" + address + ", " + expr(access.getValue()) + ", mask=" + expr(access.getValid()) +
                           ")");
        }
        return success();
      })
      .Case<pgpu::ScatterReduceOp>([&](pgpu::ScatterReduceOp sr) -> LogicalResult {
        // The combine is one Triton atomic (checked: Capabilities' scatterAtomic).
        std::optional<triton::ScatterAtomic> atomic = triton::scatterAtomic(sr);
        if (!atomic)
          return unsupported(&op, "the combine is not one Triton atomic");
        FailureOr<std::string> addr = atomicAddress(&op, sr.getView(), sr.getCoords());
        if (failed(addr))
          return failure();
        std::string value = expr(sr.getValue()), mask = expr(sr.getValid());
        Type element = pgpu::elementTypeOf(sr.getValue().getType());
        if (atomic->update == triton::ScatterAtomic::DropNaN) {
          mask = "(" + mask + ") & (" + value + " == " + value + ")";
        } else if (atomic->update != triton::ScatterAtomic::AsIs) {
          // The NaN the integer order puts past every number (max: sign clear, min: sign set), as bits.
          bool positive = atomic->update == triton::ScatterAtomic::PositiveNaN;
          std::string bits = element.isF64() ? (positive ? "9221120237041090560" : "-2251799813685248")
                                             : (positive ? "2143289344" : "-4194304");
          std::string bitsType = element.isF64() ? "tl.int64" : "tl.int32";
          value = "tl.where(" + value + " != " + value + ", tl.cast(tl.full([], " + bits + ", " + bitsType + "), " +
                  tritonType(element) + ", bitcast=True), " + value + ")";
        }
        line(indent, atomic->function.str() + "(" + *addr + ", " + value + ", mask=" + mask + ", sem='relaxed')");
        return success();
      })
      .Case<pgpu::ExecutionGroupOp>([&](pgpu::ExecutionGroupOp g) -> LogicalResult {
        Block &b = g.getBody().front();
        std::string rest = "_rest" + std::to_string(next++);
        line(indent, rest + " = " + expr(g.getLinear()));
        for (int64_t i = int64_t(b.getNumArguments()) - 1; i >= 0; --i) {
          std::string e = expr(g.getExtents()[i]);
          line(indent, name(b.getArgument(i)) + " = " + rest + " % " + e);
          line(indent, rest + " = " + rest + " // " + e);
        }
        return emitBlock(b, indent);
      })
      .Case<pgpu::DelinearizeOp>([&](pgpu::DelinearizeOp d) {
        std::string rest = "_rest" + std::to_string(next++);
        line(indent, rest + " = " + expr(d.getLinear()));
        for (int64_t i = int64_t(d.getNumResults()) - 1; i >= 0; --i) {
          std::string e = expr(d.getExtents()[i]);
          line(indent, name(d.getResult(i)) + " = " + rest + " % " + e);
          line(indent, rest + " = " + rest + " // " + e);
        }
        return success();
      })
      .Case<pgpu::ForOp>([&](pgpu::ForOp f) -> LogicalResult {
        if (mode == Mode::Consumer && !rotation)
          if (std::optional<Rotation> r = planRotation(f)) {
            rotation = std::move(r);
            LogicalResult done = emitRotated(f, indent);
            rotation.reset();
            return done;
          }
        Block &b = f.getBody().front();
        // Carries are one variable each: the region argument, the yield and the result. The loader
        // partition carries only what its slice computes (the scalars its bounds and origins need).
        auto carried = [&](unsigned i) {
          return mode != Mode::Loader || (!isa<pgpu::FragmentType>(f.getResult(i).getType()) &&
                                          loaderHas(f.getInits()[i]) &&
                                          loaderHas(b.getTerminator()->getOperand(i)));
        };
        for (auto [i, init] : llvm::enumerate(f.getInits())) {
          std::string carry = name(f.getResult(i));
          names[b.getArgument(i + 1)] = carry;
          if (carried(i))
            line(indent, carry + " = " + expr(init));
        }
        bool flatten = mode == Mode::Triton && triton::isInstanceWalk(f) && kernel.getParam(triton::kFlattenParam) &&
                       param(triton::kFlattenParam) == 1;
        // A reduction loop of a tile program that loads boxes (triton::pipelinesLoads) asks Triton to
        // pipeline its loads, which it does by default only for a dot's operands; a recurrence's loads
        // independent of its carries are issued STAGES - 1 iterations ahead the same way (Triton.h,
        // prefetchesRecurrence).
        bool pipelined = mode == Mode::Triton && !flatten && kernel.getParam(triton::kStagesParam) &&
                         param(triton::kStagesParam) > 1 && triton::pipelinesLoads(f);
        bool prefetch = mode == Mode::Triton && !flatten && triton::prefetchesRecurrence(f);
        // Any other walk whose loads Triton pipelines only when asked (triton::pipelinesWalk: a long row's
        // blocks, a column fold's row tiles, a split fold's segment) takes LOOP_STAGES; 1 keeps `range`.
        bool walked = mode == Mode::Triton && !flatten && kernel.getParam(triton::kLoopStagesParam) &&
                      param(triton::kLoopStagesParam) > 1 && triton::pipelinesWalk(f);
        std::string tail = flatten                ? ", flatten=True):"
                           : pipelined || prefetch ? ", num_stages=" + std::to_string(param(triton::kStagesParam)) + "):"
                           : walked                ? ", num_stages=" + std::to_string(param(triton::kLoopStagesParam)) + "):"
                                                   : "):";
        line(indent, "for " + name(b.getArgument(0)) + " in " +
                         (flatten || pipelined || prefetch || walked ? "tl.range(" : "range(") + expr(f.getLower()) +
                         ", " + expr(f.getUpper()) + ", " + expr(f.getStep()) + tail);
        if (failed(emitBlock(b, indent + 1)))
          return failure();
        if (mode == Mode::Consumer)
          convertOperands(b.getTerminator(), indent + 1);
        for (auto [i, y] : llvm::enumerate(b.getTerminator()->getOperands()))
          if (carried(i))
            line(indent + 1, name(f.getResult(i)) + " = " + expr(y));
        overrides.clear();
        // (A partition's loop may spell nothing of its body: Python needs a statement.)
        if ((b.getOperations().size() == 1 && f.getInits().empty()) || mode != Mode::Triton)
          line(indent + 1, "pass");
        return success();
      })
      .Case<pgpu::WhileOp>([&](pgpu::WhileOp w) -> LogicalResult {
        // Carries are one variable each: the before-region's argument (the inits, then the
        // after-region's yields) and the after-region's argument (the condition's operands). The
        // before-region runs first and again at the end of each iteration, as Triton's `while`
        // tests one variable.
        Block &before = w.getBefore().front(), &after = w.getAfter().front();
        auto condition = cast<pgpu::ConditionOp>(before.getTerminator());
        std::string go = "_go" + std::to_string(next++);
        auto test = [&](int at) -> LogicalResult {
          if (failed(emitBlock(before, at)))
            return failure();
          line(at, go + " = " + expr(condition.getCondition()));
          for (auto [arg, v] : llvm::zip(after.getArguments(), condition.getArgs()))
            line(at, name(arg) + " = " + expr(v));
          return success();
        };
        for (auto [arg, init] : llvm::zip(before.getArguments(), w.getInits()))
          line(indent, name(arg) + " = " + expr(init));
        if (failed(test(indent)))
          return failure();
        line(indent, "while " + go + ":");
        if (failed(emitBlock(after, indent + 1)))
          return failure();
        for (auto [arg, y] : llvm::zip(before.getArguments(), after.getTerminator()->getOperands()))
          line(indent + 1, name(arg) + " = " + expr(y));
        if (failed(test(indent + 1)))
          return failure();
        for (auto [r, arg] : llvm::zip(w.getResults(), after.getArguments()))
          line(indent, name(r) + " = " + name(arg));
        return success();
      })
      .Case<pgpu::AtomicLoadOp, pgpu::AtomicStoreOp>([&](auto a) -> LogicalResult {
        FailureOr<std::string> addr = atomicAddress(&op, a.getView(), a.getCoords());
        if (failed(addr))
          return failure();
        std::string ordering = atomicOrdering(a.getOrder(), a.getSharing());
        if constexpr (std::is_same_v<decltype(a), pgpu::AtomicLoadOp>) {
          // An atomic read: adding 0 to an integer leaves it (the spelling is integer-only, checked).
          assign(a.getResult(), "tl.atomic_add(" + *addr + ", 0, mask=" + expr(a.getValid()) + ", " + ordering + ")");
        } else {
          // One thread performs a scalar atomic: the CTA barrier orders every thread's earlier effects
          // before a release (cumulative over what the barrier made visible).
          if (a.getOrder() == kir::AtomicOrder::Release)
            line(indent, "tl.debug_barrier()");
          line(indent, "tl.atomic_xchg(" + *addr + ", " + expr(a.getValue()) + ", mask=" + expr(a.getValid()) + ", " +
                           ordering + ")");
        }
        return success();
      })
      .Case<pgpu::AtomicRMWOp>([&](pgpu::AtomicRMWOp a) -> LogicalResult {
        // A scalar read-modify-write (Capabilities: add, max, min, exchange on scalars): one thread
        // performs it and every thread gets the old value.
        FailureOr<std::string> addr = atomicAddress(&op, a.getView(), a.getCoords());
        if (failed(addr))
          return failure();
        StringRef fn = a.getKind() == kir::RMWKind::Add   ? "tl.atomic_add"
                       : a.getKind() == kir::RMWKind::Max ? "tl.atomic_max"
                       : a.getKind() == kir::RMWKind::Min ? "tl.atomic_min"
                                                          : "tl.atomic_xchg";
        std::string ordering = atomicOrdering(a.getOrder(), a.getSharing());
        if (a.getOrder() == kir::AtomicOrder::Release || a.getOrder() == kir::AtomicOrder::AcqRel)
          line(indent, "tl.debug_barrier()");
        assign(a.getOld(), fn.str() + "(" + *addr + ", " + expr(a.getValue()) + ", mask=" + expr(a.getValid()) + ", " +
                               ordering + ")");
        return success();
      })
      .Case<pgpu::IotaOp>([&](pgpu::IotaOp i) {
        // A consumer partition's rows of split rows: its part of them.
        std::string part = mode == Mode::Consumer && splitDim(i.getType(), 0)
                               ? " + _PART * " + std::to_string(extentOf(i.getType()))
                               : "";
        assign(i.getResult(), "tl.arange(0, " + std::to_string(extentOf(i.getType())) +
                                  (mode == Mode::Consumer ? layoutArg(i.getResult()) : "") + ") + " + expr(i.getBase()) +
                                  part);
        return success();
      })
      .Case<pgpu::SplatOp>([&](pgpu::SplatOp sp) -> LogicalResult {
        Type element = sp.getOperand().getType();
        std::string dtype = tritonType(element), shape = shapeList(sp.getType());
        std::string layout = mode == Mode::Consumer ? layoutArg(sp.getResult()) : "";
        // A scalar float comparison splats through tl.where: Triton 3.6's interpreter keeps a scalar
        // float comparison's result as the operands' float data, which `|` then rejects ("ufunc
        // 'bitwise_or' not supported for the input types"; found by the DSL fuzzer). The same bits on
        // a GPU; integer comparisons keep the `|` spelling. Logic on such a result (a NaN test
        // negated by `^ true`, pgpu-pack-rows' splat of an arg-reduce's tie test) keeps that data too.
        std::function<bool(Value)> floatCompared = [&](Value v) {
          if (auto cmp = v.getDefiningOp<pgpu::CmpOp>())
            return isa<FloatType>(cmp.getLhs().getType());
          auto logic = v.getDefiningOp<pgpu::BinaryOp>();
          return logic && !isa<pgpu::FragmentType>(v.getType()) &&
                 (floatCompared(logic.getLhs()) || floatCompared(logic.getRhs()));
        };
        if (element.isInteger(1) && floatCompared(sp.getOperand()))
          assign(sp.getResult(), "tl.where(" + expr(sp.getOperand()) + ", tl.full(" + shape + ", 1, tl.int1" + layout +
                                     "), tl.full(" + shape + ", 0, tl.int1" + layout + "))");
        else if (element.isInteger(1))
          assign(sp.getResult(), "tl.full(" + shape + ", 0, tl.int1" + layout + ") | " + expr(sp.getOperand()));
        else if (triton::isFloat8(element)) // FP8 has no arithmetic, not even + 0: splat its bits
          assign(sp.getResult(), "tl.cast(tl.full(" + shape + ", 0, tl.uint8" + layout + ") | tl.cast(" +
                                     expr(sp.getOperand()) + ", tl.uint8, bitcast=True), " + dtype + ", bitcast=True)");
        else if (mode == Mode::Triton)
          // tl.full, not tl.zeros (which is `full(shape, 0, dtype)` as a @jit helper: the same IR once
          // inlined, but Triton's CPU interpreter pays a JIT-function call, several ms, per splat).
          assign(sp.getResult(), "tl.full(" + shape + ", 0, " + dtype + ") + " + expr(sp.getOperand()));
        else
          assign(sp.getResult(), "tl.zeros(" + shape + ", " + dtype + layout + ") + " + expr(sp.getOperand()));
        return success();
      })
      .Case<pgpu::BroadcastOp>([&](pgpu::BroadcastOp br) -> LogicalResult {
        // Operand axis i is result axis dims[i]; the other result axes are new (None).
        ArrayRef<int64_t> dims = br.getDims(); // sorted (checked)
        unsigned rank = cast<pgpu::FragmentType>(br.getType()).getRank();
        SmallVector<std::string> index;
        for (unsigned a = 0; a < rank; ++a)
          index.push_back(llvm::is_contained(dims, int64_t(a)) ? ":" : "None");
        if (mode != Mode::Triton && dims.size() + 1 < rank)
          return unsupported(&op, "a Gluon broadcast adds one axis at a time (expand_dims of a slice layout)");
        if (mode != Mode::Triton) {
          // Gluon has no broadcast_to: broadcast against zeros of the result's shape and layout.
          std::string dtype = tritonType(pgpu::elementTypeOf(br.getType()));
          assign(br.getResult(), "gl.broadcast(" + expr(br.getOperand()) + "[" + llvm::join(index, ", ") + "], gl.zeros(" +
                                     shapeList(br.getType()) + ", " + dtype + layoutArg(br.getResult()) + "))[0]");
          return success();
        }
        assign(br.getResult(), "tl.broadcast_to(" + expr(br.getOperand()) + "[" + llvm::join(index, ", ") + "], " +
                                   shapeList(br.getType()) + ")");
        return success();
      })
      .Case<pgpu::TransposeOp>([&](pgpu::TransposeOp t) {
        SmallVector<std::string> perm;
        for (int64_t p : t.getPermutation())
          perm.push_back(std::to_string(p));
        assign(t.getResult(), "tl.permute(" + expr(t.getOperand()) + ", (" + llvm::join(perm, ", ") + "))");
        return success();
      })
      .Case<pgpu::ContractOp>([&](pgpu::ContractOp c) -> LogicalResult {
        // tl.dot: [M, K] x [K, N] + [M, N]; wider forms are legalized into this one first.
        // The form and dtypes are checked by the provider verifier; the bound extents are not.
        for (Type t : {c.getLhs().getType(), c.getRhs().getType()})
          for (int64_t e : shapeOf(t))
            if (e < 16)
              return unsupported(&op, "tl.dot needs every operand extent >= 16, got " + std::to_string(e));
        kir::ContractPrecision precision = kir::precisionOr(c.getPrecision());
        if (pgpu::elementTypeOf(c.getLhs().getType()).isSignlessInteger(8)) {
          // i8 products summed exactly in the i32 accumulator (integer MMA, k 32 like any 8-bit dot);
          // tl.dot checks the accumulator against out_dtype (f32 unless named).
          int64_t k = shapeOf(c.getLhs().getType())[1];
          if (k < 32)
            return unsupported(&op, "tl.dot needs a reduced extent >= 32 for i8 operands, got " + std::to_string(k));
          assign(c.getResult(), "tl.dot(" + expr(c.getLhs()) + ", " + expr(c.getRhs()) + ", " + expr(c.getAcc()) +
                                    ", out_dtype=tl.int32)");
          return success();
        }
        if (triton::isFloat8(pgpu::elementTypeOf(c.getLhs().getType()))) {
          // FP8 products (exact in f32) on the tensor cores, whose own sums of them are narrower than
          // f32 on sm_90: max_num_imprecise_acc = K promotes each tile's sum into the f32 accumulator,
          // so a contraction rounds like f32 sums of K-tile partial sums (the promotion interval is the
          // K tile, TILE_K; docs/language.md, "FP8"). tl.dot takes K >= 32 for 8-bit operands.
          int64_t k = shapeOf(c.getLhs().getType())[1];
          if (k < 32)
            return unsupported(&op, "tl.dot needs a reduced extent >= 32 for FP8 operands, got " + std::to_string(k));
          assign(c.getResult(), "tl.dot(" + expr(c.getLhs()) + ", " + expr(c.getRhs()) + ", " + expr(c.getAcc()) +
                                    ", max_num_imprecise_acc=" + std::to_string(k) + ")");
          return success();
        }
        if (precision == kir::ContractPrecision::IEEE) {
          // f32 operands keep IEEE products (no implicit TF32: that is the author's explicit precision).
          assign(c.getResult(), "tl.dot(" + expr(c.getLhs()) + ", " + expr(c.getRhs()) + ", " + expr(c.getAcc()) +
                                    (triton::contractsWithFMA(c) ? ", input_precision=\"ieee\")" : ")"));
          return success();
        }
        // KIR_ContractPrecision, exactly: the operands are rounded here (to nearest, ties away, as
        // cvt.rna.tf32.f32) so the tensor core, which reads an f32 operand's top 19 bits, sees TF32
        // values and drops nothing; tf32x3 splits them and runs the three TF32 products in the
        // reference order (Triton's own tf32x3 leaves lo to the tensor core's truncation).
        std::string round = tf32Function();
        if (precision == kir::ContractPrecision::TF32) {
          assign(c.getResult(), "tl.dot(" + round + "(" + expr(c.getLhs()) + "), " + round + "(" + expr(c.getRhs()) +
                                    "), " + expr(c.getAcc()) + ", input_precision=\"tf32\")");
          return success();
        }
        std::string fn = "_" + kernel.getSymName().str() + "_dot_tf32x3";
        if (!tf32x3Emitted) {
          tf32x3Emitted = true;
          helpers << "\n\n@triton.jit\ndef " << fn << "(a, b, acc):\n"
                  << "    # precision tf32x3 (KIR_ContractPrecision): a = hi + lo, hi = tf32(a), lo = tf32(a - hi) (0\n"
                  << "    # where hi is inf or NaN); acc + lo_a.hi_b, + hi_a.lo_b, + hi_a.hi_b, each on exact TF32 values\n"
                  << "    a_hi = " << round << "(a)\n"
                  << "    b_hi = " << round << "(b)\n"
                  << "    a_lo = tl.where(a_hi - a_hi == 0, " << round << "(a - a_hi), 0.0)\n"
                  << "    b_lo = tl.where(b_hi - b_hi == 0, " << round << "(b - b_hi), 0.0)\n"
                  << "    acc = tl.dot(a_lo, b_hi, acc, input_precision=\"tf32\")\n"
                  << "    acc = tl.dot(a_hi, b_lo, acc, input_precision=\"tf32\")\n"
                  << "    return tl.dot(a_hi, b_hi, acc, input_precision=\"tf32\")\n";
        }
        assign(c.getResult(), fn + "(" + expr(c.getLhs()) + ", " + expr(c.getRhs()) + ", " + expr(c.getAcc()) + ")");
        return success();
      })
      .Case<pgpu::ReduceOp>([&](pgpu::ReduceOp r) -> LogicalResult {
        // A sum of one float or 32/64-bit integer fragment (the combine yields the addition of its two
        // arguments) is tl.sum, which neither converts nor promotes those types: the same tt.reduce with
        // an add region on the device, and Triton's interpreter sums it with NumPy where it calls a
        // combine function once per lane pair (10_groupnorm: 3 s a 512-lane reduction).
        if (mode == Mode::Triton && isPlainSum(r)) {
          line(indent, name(r.getResult(0)) + " = tl.sum(" + expr(r.getInputs()[0]) + ", " +
                           std::to_string(r.getAxes()[0]) + ")");
          return success();
        }
        FailureOr<std::string> fn = combineFunction(r.getCombine());
        if (failed(fn))
          return failure();
        SmallVector<std::string> inputs, results;
        for (Value v : r.getInputs())
          inputs.push_back(expr(v));
        for (Value v : r.getResults())
          results.push_back(name(v));
        std::string in = inputs.size() == 1 ? inputs[0] : "(" + llvm::join(inputs, ", ") + ")";
        line(indent, llvm::join(results, ", ") + " = tl.reduce(" + in + ", " + std::to_string(r.getAxes()[0]) + ", " +
                         *fn + ")");
        if (mode == Mode::Consumer) // a reduction's result is its input's layout without the axis
          for (Value v : r.getResults())
            assigned[v] = sliceName(r.getAxes()[0], assigned.lookup(r.getInputs()[0]));
        return success();
      })
      .Case<pgpu::HistogramOp>([&](pgpu::HistogramOp h) -> LogicalResult {
        // tl.histogram counts the masked lanes into int32 bins [0, NB) (seed 000 §8: the active
        // values lie in the bins, which the pgpu interpreter checks); other count types wrap from it.
        std::string counts = "tl.histogram(" + expr(h.getInput()) + ", " + std::to_string(extentOf(h.getType())) +
                             ", mask=" + expr(h.getValid()) + ")";
        Type count = pgpu::elementTypeOf(h.getType());
        if (!count.isInteger(32))
          counts = "tl.cast(" + counts + ", " + tritonType(count) + ")";
        assign(h.getResult(), counts);
        return success();
      })
      .Case<pgpu::ScanOp>([&](pgpu::ScanOp sc) -> LogicalResult {
        FailureOr<std::string> fn = combineFunction(sc.getCombine());
        if (failed(fn))
          return failure();
        SmallVector<std::string> inputs, results, carries;
        for (Value v : sc.getInputs())
          inputs.push_back(expr(v));
        for (Value v : sc.getResults())
          results.push_back(name(v));
        std::string in = inputs.size() == 1 ? inputs[0] : "(" + llvm::join(inputs, ", ") + ")";
        std::string lhs = llvm::join(results, ", ");
        line(indent, lhs + " = tl.associative_scan(" + in + ", " + std::to_string(sc.getAxis()) + ", " + *fn +
                         (sc.getReverse() ? ", reverse=True)" : ")"));
        if (mode == Mode::Consumer)
          for (Value v : sc.getResults())
            assigned[v] = assigned.lookup(sc.getInputs()[0]);
        if (sc.getCarries().empty())
          return success();
        // The carry enters before the first member: combine(carry, prefix) lane-wise.
        for (Value v : sc.getCarries())
          carries.push_back(expr(v));
        line(indent, lhs + " = " + *fn + "(" + llvm::join(carries, ", ") + ", " + lhs + ")");
        return success();
      })
      .Case<pgpu::ExtractOp>([&](pgpu::ExtractOp e) -> LogicalResult {
        auto type = cast<pgpu::FragmentType>(e.getFragment().getType()); // one-dimensional (checked)
        // Exact for every value (NaN, -0.0): a reduction that keeps the selected lane.
        if (pickFunction.empty()) {
          pickFunction = "_" + kernel.getSymName().str() + "_pick";
          helpers << "\n\n@triton.jit\ndef " << pickFunction << "(a, fa, b, fb):\n"
                  << "    return tl.where(fa != 0, a, b), fa | fb\n";
        }
        std::string lanes = std::to_string(extentOf(type));
        line(indent, name(e.getResult()) + ", _ = tl.reduce((" + expr(e.getFragment()) + ", (tl.arange(0, " + lanes +
                         ") == (" + expr(e.getIndices()[0]) + ")).to(tl.int32)), 0, " + pickFunction + ")");
        return success();
      })
      .Case<pgpu::ForeachOp>([&](pgpu::ForeachOp f) -> LogicalResult {
        // Independent iterations, spelled in order (any order is legal).
        Block &b = f.getBody().front();
        line(indent, "for " + name(b.getArgument(0)) + " in range(" + expr(f.getLower()) + ", " + expr(f.getUpper()) +
                         "):");
        if (failed(emitBlock(b, indent + 1)))
          return failure();
        if (b.getOperations().size() == 1)
          line(indent + 1, "pass");
        return success();
      })
      .Case<pgpu::LastProgramOp>([&](pgpu::LastProgramOp l) -> LogicalResult {
        // The ticket's acq_rel increment publishes this program's effects; the last arrival sees all.
        std::string arrived = "_arrived" + std::to_string(next++);
        // One thread performs a scalar atomic: the CTA barrier orders every thread's earlier effects
        // before it (the release is cumulative over what the barrier made visible).
        // A ticketed finalization counts the instances that share its ticket.
        std::string ticket = name(l.getTicket()), count = "tl.num_programs(0)";
        if (l.isTicketed()) {
          FailureOr<std::string> at = workspaceAddress(l, l.getTicket(), l.getCoords());
          if (failed(at))
            return failure();
          ticket = *at;
          count = "(" + expr(l.getArrivals()) + ")";
        }
        // The protocol, by the PTX memory model (bar.sync synchronizes the CTA's threads; causality
        // order is transitive): every thread's writes (plain, or relaxed gpu-scope atomics: at L2)
        // precede the barrier, the barrier precedes thread 0's acq_rel ticket (Triton performs a
        // scalar atomic in one thread); the last arrival's ticket acquires every program's release,
        // and a second barrier orders it before every thread of that program reads (explicit here:
        // Triton's broadcast of the ticket's value also passes one, not a rule of its language). The
        // reads of what other programs wrote are made at L2 (ld.global.cg, which sm_90's ptxas makes a
        // strong gpu-scope load, LDG.E.STRONG.GPU; or tl.atomic_xchg, ATOMG.E.EXCH.STRONG.GPU, where the
        // element is reset: the BufferLoadOp spelling above), so no line another launch or program left
        // in this SM's L1 can serve them. (The CUDA grid sync is the same pattern: barrier, one thread's
        // fenced atomic, barrier.) H100 run of corpus 60/60_b, session 30: wrong dw with plain reads.
        line(indent, "tl.debug_barrier()");
        line(indent, arrived + " = tl.atomic_add(" + ticket + ", 1, sem='acq_rel', scope='gpu')");
        line(indent, "if " + arrived + " == " + count + " - 1:");
        line(indent + 1, "tl.debug_barrier()");
        // The last arrival returns its ticket to 0: every instance that counts on it has arrived (the
        // op's arrivals), so a finished launch leaves its tickets as the runtime filled them and the
        // wrapper can keep one zeroed ticket buffer across launches (LaunchWrapper.h).
        line(indent + 1, "tl.atomic_xchg(" + ticket + ", 0, sem='relaxed', scope='gpu')");
        if (failed(emitBlock(l.getBody().front(), indent + 1)))
          return failure();
        return success();
      })
      .Case<pgpu::IfOp>([&](pgpu::IfOp i) -> LogicalResult {
        std::string condition = expr(i.getCondition());
        std::optional<std::string> host;
        bool readsFloat = false;
        if (i.getCondition().getType().isInteger(1) && !matchPattern(i.getCondition(), m_Constant()))
          host = launchFact(i.getCondition(), &readsFloat);
        if (host) {
          // One constexpr per guard, whichever spelling (Triton's, a Gluon partition's) meets it first.
          std::string &known = guardOf[i];
          if (known.empty()) {
            // Guards spelled alike are one constexpr (e.g. one fact on a scalar deciding several ifs).
            std::string text = "bool(" + *host + ")";
            auto same = llvm::find_if(guards, [&](auto &g) { return g.second == text; });
            if (same != guards.end()) {
              known = same->first;
            } else {
              known = "_G" + std::to_string(guards.size());
              guards.push_back({known, text});
              // A fact on a float scalar: the plan key leaves float scalars open, so it holds the fact.
              if (readsFloat)
                keyedFacts.push_back(text);
            }
            if (wrapper::splitsOffContractFreeBranch(i))
              elementwiseGuards.push_back({i, !wrapper::contracts(i.getThenRegion())});
          }
          condition = known;
        }
        // The loader partition yields only what its slice computes.
        auto yielded = [&](Block &block, unsigned k) {
          return mode != Mode::Loader ||
                 (!isa<pgpu::FragmentType>(i.getResult(k).getType()) && loaderHas(block.getTerminator()->getOperand(k)));
        };
        auto branch = [&](Block &block) -> LogicalResult {
          if (failed(emitBlock(block, indent + 1)))
            return failure();
          if (mode == Mode::Consumer)
            convertOperands(block.getTerminator(), indent + 1);
          for (auto [k, y] : llvm::enumerate(block.getTerminator()->getOperands()))
            if (yielded(block, k))
              line(indent + 1, name(i.getResult(k)) + " = " + expr(y));
          overrides.clear();
          if ((block.getOperations().size() == 1 && i.getNumResults() == 0) || mode != Mode::Triton)
            line(indent + 1, "pass");
          return success();
        };
        // A Gluon partition's launch-fact branch it cannot spell is left to the Triton kernel: the
        // branch asserts at compile time (a constexpr guard compiles only the side taken) and the
        // wrapper launches the Gluon kernel only where the guard takes the other side (gluonNeeds).
        std::optional<std::pair<Operation *, std::string>> stubbed;
        auto guarded = [&](Block &block, bool side) -> LogicalResult {
          if (mode == Mode::Triton || !host)
            return branch(block);
          std::string text;
          llvm::raw_string_ostream stream(text);
          llvm::raw_string_ostream *saved = out;
          out = &stream;
          LogicalResult ok = branch(block);
          out = saved;
          if (succeeded(ok) && !gluonWhy) {
            *out << text;
            return success();
          }
          if (!gluonWhy)
            return failure();
          std::string why = gluonWhy->second;
          if (llvm::is_contained(gluonNeeds, std::make_pair(condition, side))) {
            gluonWhy = stubbed; // neither side has a Gluon spelling: the guard's `if` has none (the first reason)
            return failure();
          }
          stubbed = gluonWhy;
          gluonWhy.reset();
          if (!llvm::is_contained(gluonNeeds, std::make_pair(condition, !side)))
            gluonNeeds.push_back({condition, !side});
          std::replace(why.begin(), why.end(), '"', '\'');
          line(indent + 1, "gl.static_assert(False, \"launched only where " + condition + " is " +
                               (side ? "False" : "True") + ": " + why + "\")");
          return success();
        };
        // Two loops on either side of an `if` without results (the segments of a dispatch chain: 111's
        // Q, K and V GEMMs) are two `if`s in turn, the second on the negated condition: Triton 3.6's
        // shared-memory allocator does not reuse the pipelined buffers of a then-region's loop for the
        // else-region's (the Q/K/V chain at 128x256x64, 4 stages: 393,280 bytes for the nested
        // spelling, over sm_90's 232,448; 196,640 for the sequential one -- the resource model's count,
        // which takes loops that run in turn to share their buffers). A condition spelled as an
        // expression is bound once (a branch may reassign a name it reads); an SSA name is not
        // reassigned by a branch of an `if` without results.
        auto holdsLoop = [](Region &r) {
          return r.walk([](pgpu::ForOp) { return WalkResult::interrupt(); }).wasInterrupted();
        };
        bool inTurn = mode == Mode::Triton && !host && i.getNumResults() == 0 && !i.getElseRegion().empty() &&
                      holdsLoop(i.getThenRegion()) && holdsLoop(i.getElseRegion());
        if (inTurn && !llvm::all_of(condition, [](char c) { return llvm::isAlnum(c) || c == '_'; })) {
          std::string bound = "_c" + name(i.getCondition());
          line(indent, bound + " = " + condition);
          condition = bound;
        }
        line(indent, "if " + condition + ":");
        if (failed(guarded(i.getThenRegion().front(), true)))
          return failure();
        if (!i.getElseRegion().empty()) {
          line(indent, inTurn ? "if not " + condition + ":" : std::string("else:"));
          if (failed(guarded(i.getElseRegion().front(), false)))
            return failure();
        }
        return success();
      })
      .Default([&](Operation *other) { return unsupported(other, "not supported by this serializer yet"); });
}

std::string Serializer::halfLanes(Value v, const triton::PairedLaneRead &m, ArrayRef<int64_t> half) {
  if (!isa<pgpu::FragmentType>(v.getType()))
    return expr(v);
  std::string shape = "[" + llvm::join(llvm::map_range(half, [](int64_t e) { return std::to_string(e); }), ", ") + "]";
  unsigned rank = half.size();
  // The lane axis alone, as the rank's tile: the other axes new (None).
  auto alongLanes = [&](const std::string &lanes) {
    if (rank == 1)
      return lanes;
    SmallVector<std::string> index(rank, "None");
    index[m.axis] = ":";
    return "tl.broadcast_to((" + lanes + ")[" + llvm::join(index, ", ") + "], " + shape + ")";
  };
  std::string pairs = "tl.arange(0, " + std::to_string(half[m.axis]) + ")";
  // A run of c = G / s lanes shares (s * k) / G = k / c (s dividing G): the trip's elements start at iv / c.
  std::string first = expr(m.iv) + " // " + std::to_string(m.group / m.scale);
  switch (*triton::pairedLaneForm(v, m)) {
  case triton::PairedLane::Halved: // iv + 2j + {0, 1} over 2: iv / 2 + j, iv even
    return alongLanes(pairs + " + " + first);
  case triton::PairedLane::Bound: { // lane 2j's bound: iv + 2j < b, iv even, is iv / 2 + j < ceil(b / 2)
    // spelled b - b // 2 (b >= 0 where any lane is valid: iv >= 0): a unit-stride run against a bound whose
    // divisibility Triton's axis analysis keeps (half b's), so the read vectorizes and its loop pipelines
    // it; against 2j + iv (stride 2) the analysis proves the mask constant over no run, the load is read
    // a byte at a time and not pipelined (sm_90 TTGIR of corpus 80, Triton 3.6: no cp.async for wq).
    std::string b = "(" + expr(triton::pairedLaneBound(v, m)) + ")";
    if (m.pairs())
      return alongLanes("(" + pairs + " + " + expr(m.iv) + " // 2) < (" + b + " - " + b + " // 2)");
    // A run of r = min(c, P) lanes (iv a multiple of r): its first lane's bound iv + r j < b is
    // iv / r + j < ceil(b / r).
    std::string r = std::to_string(m.run);
    return alongLanes("(" + pairs + " + " + expr(m.iv) + " // " + r + ") < ((" + b + " + " + std::to_string(m.run - 1) +
                      ") // " + r + ")");
  }
  case triton::PairedLane::And: {
    auto conj = v.getDefiningOp<pgpu::BinaryOp>();
    return "(" + halfLanes(conj.getLhs(), m, half) + ") & (" + halfLanes(conj.getRhs(), m, half) + ")";
  }
  case triton::PairedLane::Uniform:
    break;
  }
  if (auto splat = v.getDefiningOp<pgpu::SplatOp>())
    return expr(splat.getOperand());
  // A broadcast that does not place the lane axis: its operand over the half tile.
  auto br = v.getDefiningOp<pgpu::BroadcastOp>();
  SmallVector<std::string> index;
  for (unsigned a = 0; a < rank; ++a)
    index.push_back(llvm::is_contained(br.getDims(), int64_t(a)) ? ":" : "None");
  return "tl.broadcast_to(" + expr(br.getOperand()) + "[" + llvm::join(index, ", ") + "], " + shape + ")";
}

/// Whether every use of the paired read `result` discards the lanes past the lane bound of validity `valid`
/// (its one Bound form, alone or in a conjunction).
static bool lanesPastBoundDiscarded(Value result, Value valid, const triton::PairedLaneRead &m) {
  std::optional<triton::PairedLane> form = triton::pairedLaneForm(valid, m);
  if (form == triton::PairedLane::Bound)
    return pgpu::lanesDiscardedOff(result, valid);
  auto conj = valid.getDefiningOp<pgpu::BinaryOp>();
  if (form != triton::PairedLane::And || !conj)
    return false;
  std::optional<triton::PairedLane> l = triton::pairedLaneForm(conj.getLhs(), m),
                                    r = triton::pairedLaneForm(conj.getRhs(), m);
  if (l == triton::PairedLane::Bound && r == triton::PairedLane::Uniform)
    return pgpu::lanesDiscardedOff(result, conj.getLhs());
  if (r == triton::PairedLane::Bound && l == triton::PairedLane::Uniform)
    return pgpu::lanesDiscardedOff(result, conj.getRhs());
  return false;
}

bool Serializer::emitPairedRead(Operation *op, Value view, ValueRange coords, Value valid, Value fill, bool atL2,
                                int indent) {
  std::optional<triton::PairedLaneRead> m = triton::matchPairedLaneRead(op);
  if (!m)
    return false;
  int64_t step = param(m->step), shared = m->group / m->scale;
  if (m->pairs() ? step % 2 != 0 || step < 2 : step < 1 || (step % shared != 0 && shared % step != 0))
    return false;
  m->run = std::min(shared, step);
  Value result = op->getResult(0);
  SmallVector<int64_t> half = shapeOf(result.getType());
  half[m->axis] /= m->run;
  std::string base = name(view), address = base;
  for (auto [axis, c] : llvm::enumerate(coords)) {
    if (!pgpu::elementTypeOf(c.getType()).isIndex())
      return false;
    address += llvm::formatv(" + ({0}) * {1}_stride{2}", halfLanes(c, *m, half), base, axis).str();
  }
  // The pairs once (contiguous lanes), then each repeated at lanes 2j and 2j + 1; a run's element once,
  // then repeated over its r lanes (a new axis after the lane axis, broadcast, folded back into it).
  std::string pairs = name(result) + (m->pairs() ? "_pairs" : "_runs");
  line(indent, pairs + " = tl.load(" + address + ", mask=" + halfLanes(valid, *m, half) + ", other=" + expr(fill) +
                   (atL2 ? ", cache_modifier='.cg')" : ")"));
  std::string both = "tl.reshape(tl.join(" + pairs + ", " + pairs + "), " + shapeList(result.getType()) + ")";
  if (!m->pairs()) {
    SmallVector<int64_t> runs(half);
    runs.insert(runs.begin() + m->axis + 1, m->run);
    SmallVector<std::string> index(half.size() + 1, ":");
    index[m->axis + 1] = "None";
    std::string shape = "[" + llvm::join(llvm::map_range(runs, [](int64_t e) { return std::to_string(e); }), ", ") + "]";
    both = "tl.reshape(tl.broadcast_to(" + pairs + "[" + llvm::join(index, ", ") + "], " + shape + "), " +
           shapeList(result.getType()) + ")";
  }
  // Lane 2j + 1 past a lane bound holds lane 2j's element: the fill there, unless every use discards the
  // lanes past the bound (corpus 57's bytes: the dequantized weight is zeroed past K before the contraction).
  if (m->boundedLanes && !lanesPastBoundDiscarded(result, valid, *m))
    both = "tl.where(" + expr(valid) + ", " + both + ", " + expr(fill) + ")";
  line(indent, name(result) + " = " + both);
  return true;
}

std::string Serializer::wideLanes(Value v, const triton::PairedLaneRead &m, ArrayRef<int64_t> wide) {
  if (!isa<pgpu::FragmentType>(v.getType()))
    return expr(v);
  switch (*triton::pairedLaneForm(v, m)) {
  case triton::PairedLane::Bound: { // lane t / 2 of the run: iv + t / 2 < b is 2 * iv + t < 2 * b
    std::string b = "(" + expr(triton::pairedLaneBound(v, m)) + ")";
    std::string lanes = "(tl.arange(0, " + std::to_string(wide[m.axis]) + ") + 2 * " + expr(m.iv) + ") < 2 * " + b;
    if (wide.size() == 1)
      return lanes;
    SmallVector<std::string> index(wide.size(), "None");
    index[m.axis] = ":";
    return "tl.broadcast_to((" + lanes + ")[" + llvm::join(index, ", ") + "], " + shapeString(wide) + ")";
  }
  case triton::PairedLane::And: {
    auto conj = v.getDefiningOp<pgpu::BinaryOp>();
    return "(" + wideLanes(conj.getLhs(), m, wide) + ") & (" + wideLanes(conj.getRhs(), m, wide) + ")";
  }
  default: // uniform along the lanes: as a paired read spells it, over the run's tile
    return halfLanes(v, m, wide);
  }
}

bool Serializer::emitInterleavedRead(Operation *op, Value view, ValueRange coords, Value valid, Value fill,
                                     bool atL2, int indent) {
  std::optional<triton::InterleavedLaneRead> m = triton::matchInterleavedLaneRead(op);
  if (!m)
    return false;
  auto arg = cast<BlockArgument>(view);
  auto extent = extentSpelling.find({arg, unsigned(coords.size() - 1)});
  if (extent == extentSpelling.end())
    return false;
  Value result = op->getResult(0);
  unsigned axis = m->lanes.axis;
  SmallVector<int64_t> wide = shapeOf(result.getType());
  wide[axis] *= 2;
  std::string base = name(view), address = base;
  // The run 2 * iv + [0, 2P) along the lane axis (the other axes new).
  std::string run = "(tl.arange(0, " + std::to_string(wide[axis]) + ") + 2 * " + expr(m->lanes.iv) + ")";
  auto alongLanes = [&](const std::string &lanes) {
    if (wide.size() == 1)
      return lanes;
    SmallVector<std::string> index(wide.size(), "None");
    index[axis] = ":";
    return "tl.broadcast_to((" + lanes + ")[" + llvm::join(index, ", ") + "], " + shapeString(wide) + ")";
  };
  for (auto [i, c] : llvm::enumerate(coords)) {
    if (!pgpu::elementTypeOf(c.getType()).isIndex())
      return false;
    std::string at = i + 1 == coords.size() ? alongLanes(run) : wideLanes(c, m->lanes, wide);
    address += llvm::formatv(" + ({0}) * {1}_stride{2}", at, base, i).str();
  }
  // The other parity's column of the last lane may lie past the view's extent: masked by it.
  std::string mask = "(" + wideLanes(valid, m->lanes, wide) + ") & (" + alongLanes(run + " < " + extent->second) + ")";
  std::string wideName = name(result) + "_run";
  line(indent, wideName + " = tl.load(" + address + ", mask=" + mask + ", other=" + expr(fill) +
                   (atL2 ? ", cache_modifier='.cg')" : ")"));
  // Columns 2j and 2j + 1 of the run: a trailing axis of two, split.
  SmallVector<int64_t> pairs(shapeOf(result.getType()));
  pairs.push_back(2);
  line(indent, name(result) + "_even, " + name(result) + "_odd = tl.split(tl.reshape(" + wideName + ", " +
                   shapeString(pairs) + "))");
  line(indent, name(result) + " = " + name(result) + (m->offset == 0 ? "_even" : "_odd"));
  return true;
}
