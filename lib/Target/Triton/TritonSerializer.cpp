//===- TritonSerializer.cpp - spell legalized pgpu as Triton ---------------===//
//
// A thin renderer in the style of tinygrad's: one linear walk over the
// legalized program with a spelling per op. Every decision (grid, loops,
// masks, fills, accumulators) is already in the IR; an op without a unique
// Triton spelling is a diagnostic at the op (seed 002 §3.7, §5.5).
//
// The module holds, per kernel, an `@triton.jit` function (views become a
// pointer plus per-axis shape and stride arguments) and a Python wrapper that
// checks the ABI, evaluates the LaunchExpr grid with the same expressions the
// kernel uses, and launches once; the serializer collects that ABI and
// LaunchWrapper.cpp spells the wrapper (checked calls and launch plans).
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/IR/IndexSign.h"
#include "tessel/Dialect/PGPU/Transforms/Passes.h"
#include "tessel/Target/Triton/Triton.h"
#include "tessel/Target/Triton/GluonLayouts.h"
#include "tessel/Target/Triton/GluonStreams.h"
#include "tessel/Target/Triton/LaunchWrapper.h"
#include "tessel/Target/Triton/Resources.h"
#include "tessel/Target/Triton/TileAccess.h"
#include "tessel/Target/Wrapper.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <cstdlib>

using namespace mlir;
using namespace tessel;
namespace gluon = tessel::triton::gluon;

namespace {
std::string tritonType(Type t) {
  if (t.isF16()) return "tl.float16";
  if (t.isBF16()) return "tl.bfloat16";
  if (t.isF32()) return "tl.float32";
  if (t.isF64()) return "tl.float64";
  if (isa<Float8E4M3FNType>(t)) return "tl.float8e4nv";
  if (isa<Float8E5M2Type>(t)) return "tl.float8e5";
  if (t.isInteger(1)) return "tl.int1";
  if (t.isIndex()) return "tl.int32";
  if (auto i = dyn_cast<IntegerType>(t))
    return (i.isUnsigned() ? "tl.uint" : "tl.int") + std::to_string(i.getWidth());
  return "";
}

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

/// The per-thread register cap (`maxnreg`) of a warp-specialized Gluon program whose `parts` consumers
/// are `warps` warps each and whose rings take `ringBytes` of shared memory; 0 leaves the compiler's own.
/// Triton pads the program's warps (the consumer's plus the loader's one) to whole warpgroups, and
/// ptxas, uncapped, gives every thread up to 255 registers: a one-warpgroup consumer's program
/// (8 warps with the padding) then holds an SM's 65536 registers alone. Capped to share them with a
/// second program, where the rings of two programs fit the SM's 228 KB of shared memory with room
/// for the rest (a left operand's tile kept in shared memory, a box's staging, the layout conversions'
/// scratch: 32 KB of the generated attention's 96 at STAGES = 2, Triton's count): measured on the H200, the
/// generated grouped-query attention at 64 x 64 tiles reached 431 TFLOP/s capped at 128, 292 at the
/// compiler's 255 and 297 at 160 (one program per SM either way; attention_session19). Larger
/// consumers stay one program per SM, uncapped (at 168 one measured 351 against 357).
int64_t gluonRegisterCap(int64_t warps, int64_t parts, int64_t ringBytes) {
  constexpr int64_t kRegisters = 65536, kSharedBytes = 228 * 1024, kOtherBytes = 32 * 1024;
  int64_t threads = llvm::alignTo(warps * parts + 1, 4) * 32;
  if (parts > 1) // split consumers: one program per SM, its registers within the file
    return std::min<int64_t>(kRegisters / threads / 8 * 8, 255);
  if (warps > 4 || 2 * (ringBytes + kOtherBytes) > kSharedBytes)
    return 0;
  int64_t cap = kRegisters / (2 * threads) / 8 * 8;
  return cap < 255 ? cap : 0;
}

/// An operation no warp-specialized Gluon partition spells (yet): a partition that reaches one refuses.
bool unspelledInGluon(Operation *op) {
  return isa<pgpu::ExtractOp, pgpu::AtomicLoadOp, pgpu::AtomicStoreOp, pgpu::AtomicRMWOp, pgpu::ScatterReduceOp,
             pgpu::LastProgramOp, pgpu::WhileOp, pgpu::ForeachOp, pgpu::BufferLoadOp, pgpu::BufferStoreOp,
             pgpu::HistogramOp>(op);
}

using wrapper::floatLiteral;
using wrapper::torchType;

class Serializer {
public:
  Serializer(pgpu::KernelOp kernel, const llvm::StringMap<int64_t> &params, llvm::raw_ostream &os)
      : kernel(kernel), params(params), os(os) {}
  LogicalResult run();
  /// Gluon emission without output (gluonRefusal): why it fails, where.
  std::optional<std::pair<Operation *, std::string>> gluonDryRun();

private:
  std::string name(Value v) {
    auto it = names.find(v);
    if (it != names.end())
      return it->second;
    std::string n = "v" + std::to_string(next++);
    names[v] = n;
    return n;
  }
  void line(int indent, const Twine &text) {
    if (mode == Mode::Triton) {
      *out << std::string(4 * indent, ' ') << text << "\n";
      return;
    }
    // A partition of the Gluon spelling: the same text in Gluon's dialect.
    std::optional<std::string> g = glSpelling(text.str());
    if (!g) {
      (void)unsupported(currentOp ? currentOp : kernel.getOperation(), "no Gluon spelling of `" + text.str() + "`");
      return;
    }
    *out << std::string(4 * indent, ' ') << *g << "\n";
  }
  Operation *currentOp = nullptr;
  /// The static extents of a fragment (parameters are bound at serialization).
  SmallVector<int64_t> shapeOf(Type type) {
    SmallVector<int64_t> shape;
    for (Attribute e : cast<pgpu::FragmentType>(type).getExtents()) {
      if (isa<IntegerAttr>(e)) {
        shape.push_back(cast<IntegerAttr>(e).getInt());
        continue;
      }
      StringRef symbol = cast<StringAttr>(e).getValue();
      // Split across consumer partitions (planSplit): each holds its part of the rows.
      shape.push_back(param(symbol) / (symbol == splitSymbol ? splitParts : 1));
    }
    return shape;
  }
  /// Whether dimension `dim` of fragment type `type` is the rows split across consumer partitions.
  bool splitDim(Type type, unsigned dim) {
    auto symbol = dyn_cast<StringAttr>(cast<pgpu::FragmentType>(type).getExtents()[dim]);
    return splitParts > 1 && symbol && symbol.getValue() == splitSymbol;
  }
  /// The warps of one consumer partition (the program's own in the Triton spelling).
  int64_t consumerWarps() { return param(triton::kWarpsParam) / splitParts; }
  /// The lane count of a one-dimensional fragment.
  int64_t extentOf(Type type) { return shapeOf(type)[0]; }
  /// A Triton shape list, e.g. `[64, 32]`.
  std::string shapeList(Type type) {
    std::string text = "[";
    for (auto [i, e] : llvm::enumerate(shapeOf(type)))
      text += (i ? ", " : "") + std::to_string(e);
    return text + "]";
  }
  FailureOr<std::string> combineFunction(Region &combine);
  LogicalResult emitBlock(Block &block, int indent);
  LogicalResult emitOp(Operation &op, int indent);
  /// `op`'s spelling (emitOp's, after the checks and the Gluon partitions' own cases).
  LogicalResult emitSpelling(Operation &op, int indent);
  /// The device expression of a value (a name, or a literal for constants).
  std::string expr(Value v);
  /// The host (wrapper) spelling of a LaunchExpr value.
  FailureOr<std::string> hostExpr(Value v);
  /// The wrapper's spelling of `v` when it is computed from launch facts only (extents, strides,
  /// parameters, integer constants and integer kernel scalars, through LaunchExpr arithmetic and
  /// comparisons; float kernel scalars compared with constants, `*readsFloat` then set), else none.
  std::optional<std::string> launchFact(Value v, bool *readsFloat = nullptr);
  FailureOr<std::string> address(Operation *op, Value view, ValueRange coords);
  FailureOr<std::string> workspaceAddress(Operation *op, Value buffer, ValueRange coords);
  /// The address of an atomic's target: a view's element or invocation workspace's.
  FailureOr<std::string> atomicAddress(Operation *op, Value target, ValueRange coords) {
    return isa<pgpu::BufferType>(target.getType()) ? workspaceAddress(op, target, coords)
                                                   : address(op, target, coords);
  }
  /// `sem=..., scope=...` of an atomic's memory order and sharing domain.
  static std::string atomicOrdering(kir::AtomicOrder order, kir::SharingDomain sharing) {
    return "sem='" + kir::stringifyAtomicOrder(order).str() + "'" +
           (sharing == kir::SharingDomain::Invocation ? ", scope='gpu'" : ", scope='cta'");
  }
  /// The tensor-descriptor spelling of a box access (TileAccess.h), given the pointer spelling's
  /// value text for stores; none when the access is not a box or its block is not one TMA moves.
  std::optional<std::string> descriptorAccess(Operation *op);
  LogicalResult unsupported(Operation *op, StringRef why) {
    if (mode != Mode::Triton || dryRun) { // the Gluon spelling is a choice: its refusal is not an error
      if (!gluonWhy)
        gluonWhy = {op, "'" + op->getName().getStringRef().str() + "': " + why.str()};
      return failure();
    }
    return op->emitError() << "the Triton serializer has no spelling for '" << op->getName() << "': " << why;
  }

  // --- the warp-specialized Gluon spelling (GLUON=1; Triton.h kGluonParam) ---------------------
  // The program is spelled twice more, as the two partitions of one Gluon kernel: the loader (the
  // stream plan's slice, GluonStreams.h) issues each stream's TMA copies into a STAGES-deep ring and
  // the consumer (the whole program, in the layouts of GluonLayouts.h) waits for each slot, reads it
  // with wgmma and releases it after its last contraction.
  enum class Mode { Triton, Consumer, Loader };
  Mode mode = Mode::Triton;
  /// A `tl.` spelling as Gluon's `gl.` one (tl.PropagateNan stays), or none where it calls what gl
  /// does not have (libdevice, Triton-only helpers).
  std::optional<std::string> glSpelling(const std::string &text);
  /// `text` in the mode's dialect, failing (unsupported) at `op` where Gluon has no spelling.
  FailureOr<std::string> spelled(Operation *op, const std::string &text) {
    if (mode == Mode::Triton)
      return text;
    std::optional<std::string> g = glSpelling(text);
    if (!g)
      return unsupported(op, "no Gluon spelling of `" + text + "`");
    return *g;
  }
  /// The constexpr name of a distributed layout in the partition being spelled (declared at its top).
  std::string layoutName(const gluon::Layout &l, Value v);
  /// `, layout=<name>` where the plan fixes `v`'s layout, else "" (Gluon's AutoLayout).
  std::string layoutArg(Value v) {
    std::string l = assigned.lookup(v);
    return l.empty() ? "" : ", layout=" + l;
  }
  /// Spells the plan's conversions of `op`'s operands into locals its spelling then reads.
  void convertOperands(Operation *op, int indent);
  /// Whether the loader partition defines `v` (a value its slice computes, a constant, an argument).
  bool loaderHas(Value v);
  LogicalResult emitGluon(pgpu::ProgramSpaceOp space, ArrayRef<Operation *> entry);
  LogicalResult emitPartition(Mode m, pgpu::ProgramSpaceOp space, ArrayRef<Operation *> entry, std::string &text);
  /// The Gluon spelling of a contraction and of a stream's load (either partition).
  LogicalResult emitGluonContract(pgpu::ContractOp c, int indent);
  LogicalResult emitStreamLoad(pgpu::LoadOp load, int indent);
  /// The Gluon descriptor parameter of a box access (registered once per view and box; boxOf), or a
  /// refusal at `op`.
  FailureOr<std::string> gluonDescriptor(Operation *op, const triton::TileAccess &tile);
  /// A shared-memory `view` of a box as `fragment` reads it: unit axes dropped, transposed where the
  /// fragment walks the view's axes the other way round.
  std::string planeView(const triton::TileAccess &tile, Value fragment, std::string view);
  /// The box's first element, per view axis.
  std::string boxOrigin(const triton::TileAccess &tile, Value fragment = {});
  /// A consumer's box load or store that is no stream: one TMA copy through shared memory.
  LogicalResult emitBoxAccess(Operation *op, int indent);
  /// Every fragment of the consumer in a named layout (no AutoLayout: Gluon resolves an automatic
  /// value used in two layouts as a conflict). The plan's (GluonLayouts.h: contractions, their
  /// reductions, carries) where it fixes one; else, walking the program backwards, the layout its
  /// first user demands of it (demand); else a blocked layout. Reductions and scans take their
  /// input's (sliced), set as they are spelled. A use whose demand differs converts.
  void assignLayouts();
  /// The layout `use`'s user needs its operand in ("" for any), from the user's assigned layouts.
  std::string demand(OpOperand &use);
  std::string blockedName(unsigned rank);
  /// The constexpr name of a layout spelled `text` in this partition (declared once, at its top).
  std::string declareLayout(const std::string &text);
  std::string sliceName(int64_t dim, const std::string &parent);
  /// A transpose read only as contractions' right operands: a view of the shared copy of its operand.
  DenseMap<Value, Value> deferredTranspose;
  DenseMap<Value, std::string> assigned;
  DenseMap<Operation *, unsigned> programOrder;

  std::optional<gluon::LayoutPlan> gluonLayouts;
  std::optional<gluon::StreamPlan> gluonStreams;
  DenseMap<Value, std::string> overrides;            // the current op's converted operands
  DenseMap<Operation *, unsigned> streamOf;          // a stream's load -> its ring
  SmallVector<std::string> streamDescriptor;         // each ring's descriptor parameter
  DenseMap<Value, std::string> sharedView;           // a stream's tile (or its transpose) -> the slot's view
  DenseMap<Operation *, SmallVector<std::string>> releases; // a contraction -> the slots it frees
  /// A stream's tile (or its transpose) as a ring slot: the ring, the slot's variable, and how the
  /// fragment reads the slot (unit axes dropped, transposed).
  struct Slot {
    std::string ring, var, suffix;
    std::string view(StringRef at) const { return "_ring" + ring + ".index(" + at.str() + ")" + suffix; }
    std::string release(StringRef at) const { return "mbarrier.arrive(_empty" + ring + ".index(" + at.str() + "), count=1)"; }
  };
  DenseMap<Value, Slot> slotOf;
  /// A loop's last contraction deferred to the next iteration, so that it runs on the tensor cores while
  /// the next iteration's first contraction is waited for and the elementwise work between them runs
  /// (FA3's intra-warpgroup overlap; planRotation says where). The loop is spelled rotated: its first
  /// iteration peeled with the deferred contraction's operands captured, the loop from the second on
  /// issuing the previous iteration's contraction right after its first one and waiting for it before
  /// the carry it yields is read, and the last iteration's contraction after the loop.
  struct Rotation {
    pgpu::ForOp loop;
    pgpu::ContractOp first, deferred;
    unsigned carry = 0;             // the carry the deferred contraction's result is yielded to
    bool rotated = false;           // spelling the loop (a previous iteration's contraction pending)
    bool issued = false, waited = false;
    std::string lhs, acc, slot, result; // the captured operands' locals, the result's
    std::string view, release;          // the captured slot's view and its release
  };
  std::optional<Rotation> rotation;
  std::optional<Rotation> planRotation(pgpu::ForOp f);
  LogicalResult emitRotated(pgpu::ForOp f, int indent);
  void issueDeferred(int indent);
  void awaitDeferred(int indent);
  SmallVector<std::pair<std::string, std::string>> partitionLayouts; // (name, spelling) of this partition
  std::optional<std::pair<Operation *, std::string>> gluonWhy;
  DenseMap<Operation *, std::pair<std::string, std::string>> boxOf; // a TMA access -> (descriptor, box shape)
  llvm::DenseSet<Operation *> consumerDead;  // what only TMA accesses' element coordinates needed
  bool dryRun = false;
  DenseMap<Operation *, std::string> guardOf; // a launch-fact `if` -> its constexpr (spelled once per kernel)
  std::string gluonText, gluonLoader;        // the consumer's and the loader's bodies, when this binding has them
  SmallVector<std::string> gluonRings;       // per ring: its allocation lines in the Gluon kernel
  int64_t gluonRingBytes = 0;                 // the rings' shared memory, all slots
  /// The rows split across consumer partitions (planSplit): the fragment extent's symbol and the
  /// number of partitions (1: one consumer partition runs the whole program).
  std::string splitSymbol;
  int64_t splitParts = 1;
  void planSplit();
  /// (guard constexpr, value): launch-fact guards whose other side the Gluon spelling leaves out.
  SmallVector<std::pair<std::string, bool>> gluonNeeds;
  int64_t param(StringRef n) {
    auto it = params.find(n);
    if (it != params.end())
      return it->second;
    return kernel.getParam(n).getDefaultValue();
  }

  pgpu::KernelOp kernel;
  const llvm::StringMap<int64_t> &params;
  llvm::raw_ostream &os;
  std::string bodyText, helperText;
  llvm::raw_string_ostream body{bodyText}, helpers{helperText};
  llvm::raw_string_ostream *out = &body;
  DenseMap<Value, std::string> names;
  // Tensor descriptors (one per view and box shape, keyed by their spelling: a view of rank > 2 may
  // be walked along different axes with the same two block sizes), and the views they describe (the
  // wrapper checks TMA's alignment rules on them). The wrapper makes them on the host and passes them
  // as kernel parameters (`_desc<i>`, None when USE_TMA is off): made on the device, each program
  // spent ~1.5 us on each before its first load (H200, split-K 512x512x65536: 54.6 against 51.5 us;
  // bench/experiments/splitk_session17). `hostDescriptors`: (view, box shape) of each, in order.
  llvm::StringMap<std::string> descriptors;
  // The program's resource model (box stores' staging; computed at the first box store) and the
  // stores already remarked on.
  std::optional<triton::ResourceModel> staging;
  llvm::DenseSet<const void *> remarked;
  std::string descriptorText;
  SmallVector<std::pair<std::string, std::string>> hostDescriptors;
  SmallVector<Value> describedViews;
  // What the kernel body spells for (view argument, axis) extents: one kernel parameter per shape
  // symbol (the wrapper checks that every view naming it agrees), a literal for a static extent. Fewer
  // launch arguments is less work in Triton's launcher on every call.
  DenseMap<std::pair<Value, unsigned>, std::string> extentSpelling;
  unsigned next = 0;
  std::string lastOrigin;
  std::string pickFunction; // the helper of pgpu.extract, emitted once
  std::string tf32Name;     // TF32 rounding of contraction operands (KIR_ContractPrecision), emitted once
  bool tf32x3Emitted = false;
  std::string tf32Function() {
    if (tf32Name.empty()) {
      tf32Name = "_" + kernel.getSymName().str() + "_tf32";
      helpers << "\n\n@triton.jit\ndef " << tf32Name << "(x):\n"
              << "    # f32 to TF32, to nearest with ties away from zero (PTX cvt.rna.tf32.f32): the magnitude's\n"
              << "    # bits + 0x1000, the low 13 bits cleared (an overflow carries to inf); NaN stays NaN\n"
              << "    r = ((x.to(tl.uint32, bitcast=True) + 0x1000) & 0xFFFFE000).to(tl.float32, bitcast=True)\n"
              << "    return tl.where(x != x, x, r)\n";
    }
    return tf32Name;
  }
  // Uniform guards the wrapper evaluates (LaunchExpr facts, seed 000 §3.1): each `pgpu.if` whose condition is
  // a launch fact becomes a constexpr kernel parameter, so Triton compiles only the branch taken (one
  // variant's shared buffers and registers, not the sum over variants).
  SmallVector<std::pair<std::string, std::string>> guards; // (kernel parameter, wrapper expression)
  // The guards' wrapper expressions that read float scalars: the plan key holds them (LaunchWrapper.h).
  SmallVector<std::string> keyedFacts;
  // Launch-fact guards with a contracting and an element-wise branch (wrapper::splitsOffContractFreeBranch):
  // the condition, and whether its true side is the element-wise one (`<kernel>_ELEMENTWISE`).
  SmallVector<std::pair<pgpu::IfOp, bool>> elementwiseGuards;
  SmallVector<BlockArgument> workspaces;
  DenseMap<Value, SmallVector<std::string>> workspaceExtents; // in-kernel spelling of each extent
};
} // namespace

std::string Serializer::expr(Value v) {
  if (auto it = overrides.find(v); it != overrides.end())
    return it->second;
  if (mode == Mode::Loader && !loaderHas(v) && !gluonWhy)
    gluonWhy = {v.getDefiningOp() ? v.getDefiningOp() : kernel.getOperation(),
                "the loader partition would need a value its slice does not compute"};
  if (auto c = v.getDefiningOp<arith::ConstantOp>()) {
    if (auto i = dyn_cast<IntegerAttr>(c.getValue())) {
      if (c.getType().isIndex())
        return std::to_string(i.getInt());
      return llvm::formatv("tl.full([], {0}, {1})", i.getType().isInteger(1) ? int64_t(i.getValue().getZExtValue())
                                                                           : i.getInt(),
                           tritonType(c.getType()))
          .str();
    }
    if (auto f = dyn_cast<FloatAttr>(c.getValue())) {
      if (triton::isFloat8(c.getType())) // Triton makes no FP8 constant of its own: an exact narrowing
        return triton::float8Narrowing(c.getType(), "tl.full([], " + floatLiteral(f.getValueAsDouble()) +
                                                        ", tl.float32)");
      // Triton 3.6's interpreter makes no nonzero bf16 scalar constant (tl.full calls the builder's
      // get_bf16, which its InterpreterBuilder lacks; a zero takes get_null_value, which it has; found
      // by the DSL fuzzer): an f32 constant narrowed, exact (the value is a bf16 value), the same value
      // on a GPU.
      if (c.getType().isBF16() && !f.getValue().isZero())
        return "tl.cast(tl.full([], " + floatLiteral(f.getValueAsDouble()) + ", tl.float32), tl.bfloat16)";
      return llvm::formatv("tl.full([], {0}, {1})", floatLiteral(f.getValueAsDouble()), tritonType(c.getType())).str();
    }
  }
  return name(v);
}

FailureOr<std::string> Serializer::hostExpr(Value v) {
  return wrapper::hostLaunchExpr(
      v, [&](Value x) { return name(x); }, [&](StringRef n) { return param(n); },
      [&](Operation *op, StringRef why) { return unsupported(op, why); });
}

std::optional<std::string> Serializer::launchFact(Value v, bool *readsFloat) {
  return wrapper::launchFact(
      v, kernel.getBody().front(), [&](Value x) { return name(x); }, [&](StringRef n) { return param(n); },
      readsFloat);
}

FailureOr<std::string> Serializer::address(Operation *op, Value view, ValueRange coords) {
  std::string base = name(view), text = base;
  for (auto [axis, c] : llvm::enumerate(coords)) {
    if (!pgpu::elementTypeOf(c.getType()).isIndex())
      return unsupported(op, "coordinates must be index values");
    text += llvm::formatv(" + ({0}) * {1}_stride{2}", expr(c), base, axis).str();
  }
  return text;
}

FailureOr<std::string> Serializer::workspaceAddress(Operation *op, Value buffer, ValueRange coords) {
  // Workspace is row-major and contiguous: offset = sum_i c_i * prod_{j > i} extent_j.
  auto extents = workspaceExtents.find(buffer);
  if (extents == workspaceExtents.end())
    return unsupported(op, "only workspace buffers (kernel arguments) are spelled");
  std::string offset;
  for (auto [i, c] : llvm::enumerate(coords)) {
    std::string term = "(" + expr(c) + ")";
    for (const std::string &e : ArrayRef<std::string>(extents->second).drop_front(i + 1))
      term += " * (" + e + ")";
    offset += (i ? " + " : "") + term;
  }
  return name(buffer) + " + " + (offset.empty() ? "0" : offset);
}

std::optional<std::string> Serializer::descriptorAccess(Operation *op) {
  if (!kernel.getParam(triton::kTmaParam) || param(triton::kTmaParam) != 1)
    return std::nullopt;
  std::optional<triton::TileAccess> tile = triton::matchTileAccess(op);
  if (!tile || triton::keepsPointerSpelling(op))
    return std::nullopt;
  // A box store stages its tile in shared memory for the copy engine; a binding whose program would
  // not fit the target's shared memory with its stores staged spells them with pointers (Resources.h:
  // storesStagedAt), so a wide tile keeps its pipeline depth: split-K's f32 128x256 tile at 4 stages
  // needs 196640 B so, 327712 B staged (sm_90, Triton 3.6; bench/experiments/splitk_session15).
  if (isa<pgpu::StoreOp>(op)) {
    if (!staging)
      staging = triton::estimateResources(kernel);
    llvm::StringMap<int64_t> binding;
    ArrayAttr declared = *kernel.getParams();
    for (Attribute a : declared)
      binding[cast<pgpu::ParamAttr>(a).getName().getValue()] = param(cast<pgpu::ParamAttr>(a).getName().getValue());
    if (!staging->storesStagedAt(binding)) {
      if (!dryRun && pgpu::remarksEnabled(op) && remarked.insert(op->getLoc().getAsOpaquePointer()).second)
        emitRemark(op->getLoc()) << "triton: the tile store keeps the pointer spelling: staged for TMA the program "
                                    "would need "
                                 << staging->sharedAt(binding) << " bytes of shared memory (the target has "
                                 << staging->sharedLimit << "), " << staging->sharedNeededAt(binding) << " without";
      return std::nullopt;
    }
  }
  unsigned bytes = cast<pgpu::ViewType>(tile->view.getType()).getElementType().getIntOrFloatBitWidth() / 8;
  Value fragment = isa<pgpu::LoadOp>(op) ? op->getResult(0) : cast<pgpu::StoreOp>(op).getValue();
  SmallVector<int64_t> shape = shapeOf(fragment.getType());
  SmallVector<unsigned, 2> walked = tile->walked();
  int64_t block0 = shape[tile->dimOf[walked[0]]], block1 = shape[tile->dimOf[walked[1]]];
  // A TMA box: at most 256 per side, the contiguous side at least 16 bytes.
  if (block0 > 256 || block1 > 256 || block1 * bytes < 16)
    return std::nullopt;
  unsigned rank = tile->dimOf.size();
  SmallVector<std::string> extents, strides, box, at;
  std::string v = name(tile->view);
  for (unsigned axis = 0; axis < rank; ++axis) {
    auto extent = extentSpelling.find({tile->view, axis});
    if (extent == extentSpelling.end())
      return std::nullopt;
    extents.push_back(extent->second);
    strides.push_back(v + "_stride" + std::to_string(axis));
    unsigned dim = tile->dimOf[axis];
    box.push_back(dim == triton::TileAccess::kFixed ? "1" : std::to_string(shape[dim]));
    Value offset = tile->offsets[axis];
    at.push_back(offset ? expr(offset) + " + " + expr(tile->starts[axis]) : expr(tile->starts[axis]));
  }
  std::string boxShape = "[" + llvm::join(box, ", ") + "]";
  std::string &desc = descriptors[v + boxShape];
  if (desc.empty()) {
    desc = "_desc" + std::to_string(descriptors.size() - 1);
    // What the host descriptor describes, for the reader of the source: the view's shape and strides.
    descriptorText += llvm::formatv("    # {0}: {1}'s {2} boxes of shape [{3}], strides [{4}] (made on the host)\n", desc, v,
                                    boxShape, llvm::join(extents, ", "), llvm::join(strides, ", "))
                          .str();
    hostDescriptors.push_back({v, boxShape});
    if (!llvm::is_contained(describedViews, tile->view))
      describedViews.push_back(tile->view);
  }
  // The box in view-axis order; a fragment that walks the axes the other way round is its transpose.
  // A box with fixed axes is the fragment's shape with unit axes inserted (a reshape either way).
  bool transposed = tile->dimOf[walked[0]] == 1;
  std::string planeShape = "[" + std::to_string(block0) + ", " + std::to_string(block1) + "]";
  bool fixed = rank > 2;
  std::string where = "[" + llvm::join(at, ", ") + "]";
  if (isa<pgpu::LoadOp>(op)) {
    std::string load = desc + ".load(" + where + ")";
    if (fixed)
      load = "tl.reshape(" + load + ", " + planeShape + ")";
    return transposed ? "tl.permute(" + load + ", (1, 0))" : load;
  }
  std::string value = expr(fragment);
  if (transposed)
    value = "tl.permute(" + value + ", (1, 0))";
  if (fixed)
    value = "tl.reshape(" + value + ", " + boxShape + ")";
  return desc + ".store(" + where + ", " + value + ")";
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
        // Floor and truncation agree on a non-negative dividend and a positive divisor (a zero divisor
        // is the user's error): construction's address arithmetic keeps Triton's // and %.
        bool truncationExact = (b.getKind() == kir::BinaryKind::Div || b.getKind() == kir::BinaryKind::Rem) &&
                               pgpu::provablyNonNegative(b.getLhs()) && pgpu::provablyNonNegative(b.getRhs());
        std::optional<std::string> text =
            triton::binarySpelling(b.getKind(), pgpu::elementTypeOf(b.getType()), b.getApproximate(),
                                   expr(b.getLhs()), expr(b.getRhs()), truncationExact);
        if (!text)
          return unsupported(&op, "no Triton operation with this kind's NaN semantics");
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
        std::string pointer = "tl.load(" + *addr + ", mask=" + expr(load.getValid()) + ", other=" +
                              expr(load.getFill()) + ")";
        // (A Gluon partition reads what is not a stream through pointers.)
        if (std::optional<std::string> box = mode == Mode::Triton ? descriptorAccess(&op) : std::nullopt) {
          // Both spellings; the wrapper picks (USE_TMA) by TMA's alignment rules at launch.
          line(indent, "if USE_TMA:");
          line(indent + 1, name(load.getResult()) + " = " + *box);
          line(indent, "else:");
          line(indent + 1, name(load.getResult()) + " = " + pointer);
          return success();
        }
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
        if constexpr (std::is_same_v<decltype(access), pgpu::BufferLoadOp>)
          assign(access.getResult(), "tl.load(" + address + ", mask=" + expr(access.getValid()) + ", other=" +
                                         expr(access.getFill()) + ")");
        else
          line(indent, "tl.store(" + address + ", " + expr(access.getValue()) + ", mask=" + expr(access.getValid()) +
                           ")");
        return success();
      })
      .Case<pgpu::ScatterReduceOp>([&](pgpu::ScatterReduceOp sr) -> LogicalResult {
        // Unique spelling only for a single-add combine (checked): tl.atomic_add.
        FailureOr<std::string> addr = atomicAddress(&op, sr.getView(), sr.getCoords());
        if (failed(addr))
          return failure();
        line(indent, "tl.atomic_add(" + *addr + ", " + expr(sr.getValue()) + ", mask=" + expr(sr.getValid()) +
                         ", sem='relaxed')");
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
        line(indent, "for " + name(b.getArgument(0)) + " in " + (flatten ? "tl.range(" : "range(") +
                         expr(f.getLower()) + ", " + expr(f.getUpper()) + ", " + expr(f.getStep()) +
                         (flatten ? ", flatten=True):" : "):"));
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
        line(indent, lhs + " = tl.associative_scan(" + in + ", 0, " + *fn +
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
        line(indent, "tl.debug_barrier()");
        line(indent, arrived + " = tl.atomic_add(" + ticket + ", 1, sem='acq_rel', scope='gpu')");
        line(indent, "if " + arrived + " == " + count + " - 1:");
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
        line(indent, "if " + condition + ":");
        if (failed(guarded(i.getThenRegion().front(), true)))
          return failure();
        if (!i.getElseRegion().empty()) {
          line(indent, "else:");
          if (failed(guarded(i.getElseRegion().front(), false)))
            return failure();
        }
        return success();
      })
      .Default([&](Operation *other) { return unsupported(other, "not supported by this serializer yet"); });
}

//===----------------------------------------------------------------------===//
// The warp-specialized Gluon spelling (GLUON=1)
//===----------------------------------------------------------------------===//

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
  if (t.contains("libdevice") || t.contains("_tanh_approx") || t.contains("_f8"))
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
    // Only right operands stream: another tile load beside a stream (a GEMM's left operand) would be a
    // copy the consumer waits for every iteration, unpipelined, where Triton's spelling pipelines both.
    for (Operation &other : *s.load->getBlock())
      if (auto load = dyn_cast<pgpu::LoadOp>(other);
          load && isa<pgpu::FragmentType>(load.getType()) &&
          llvm::none_of(gluonStreams->streams, [&](const gluon::Stream &x) { return x.load == load; }))
        return refuse(load, "a tile load in a streamed loop is not a stream itself (only contractions' right "
                            "operands stream): the consumer would wait for its copy every iteration");
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
    if (!isa<pgpu::LoadOp, pgpu::StoreOp>(op) || streamOf.count(op))
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
  for (bool changed = true; changed;) {
    changed = false;
    kernel.walk<WalkOrder::PostOrder>([&](Operation *op) {
      if (consumerDead.contains(op) ||
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

LogicalResult Serializer::run() {
  Block &entry = kernel.getBody().front();
  std::string kname = kernel.getSymName().str();
  // The launch configuration is a declared parameter like any other: the
  // wrapper passes its bound value, never a provider default chosen here.
  for (StringRef launchParam : {triton::kWarpsParam, triton::kStagesParam})
    if (!kernel.getParam(launchParam))
      return kernel.emitError() << "declares no launch parameter '" << launchParam
                                << "'; run pgpu-triton-legalize first";
  // Kernel parameters: each view is a pointer plus its shape and strides. `wrapper` collects the
  // host side (LaunchWrapper.h): its checks, and each launch argument with how a planned call gets it.
  SmallVector<std::string> kernelParams, wrapperParams;
  triton::LaunchWrapperSpec wrapper;
  wrapper.kernel = kname;
  auto launchArg = [&](triton::LaunchArg::Kind kind, std::string host, std::string argName = "") {
    wrapper.args.push_back({kind, std::move(argName), std::move(host)});
  };
  // The first `view.shape[axis]` that names each shape symbol: it is passed as the symbol's kernel
  // parameter, and later views naming the symbol are checked equal to it.
  llvm::StringMap<std::string> symbolSource;
  std::string firstView;
  for (auto [i, arg] : llvm::enumerate(entry.getArguments())) {
    auto abiName = kernel.getArgAttrOfType<StringAttr>(i, "kir.name");
    std::string n = abiName ? abiName.str() : "arg" + std::to_string(i);
    names[arg] = n;
    if (auto view = dyn_cast<pgpu::ViewType>(arg.getType())) {
      std::string dtype = torchType(view.getElementType());
      if (dtype.empty())
        return kernel.emitError() << "the Triton wrapper has no torch dtype for " << view.getElementType();
      kernelParams.push_back(n);
      launchArg(triton::LaunchArg::View, n, n);
      wrapperParams.push_back(n);
      std::string extents;
      for (auto [axis, e] : llvm::enumerate(view.getExtents())) {
        std::string here = llvm::formatv("{0}.shape[{1}]", n, axis).str();
        if (axis)
          extents += ", ";
        if (auto s = dyn_cast<StringAttr>(e)) {
          extents += "'" + s.str() + "'";
          std::string symbolParam = "_extent_" + s.str();
          auto [it, first] = symbolSource.try_emplace(s.getValue(), here);
          if (first) {
            kernelParams.push_back(symbolParam);
            launchArg(triton::LaunchArg::Fixed, here);
          }
          extentSpelling[{arg, unsigned(axis)}] = symbolParam;
        } else {
          std::string literal = std::to_string(cast<IntegerAttr>(e).getInt());
          extents += literal;
          extentSpelling[{arg, unsigned(axis)}] = literal;
        }
      }
      wrapper.checks.push_back(llvm::formatv("_check_view('{0}', {0}, {1}, ({2}{3}), _extents, _device{4})", n, dtype,
                                             extents, view.getRank() == 1 ? "," : "",
                                             view.isWritable() ? ", writes=True" : "")
                                   .str());
      wrapper.views.push_back({n, view.isWritable()});
      if (firstView.empty())
        firstView = n;
      for (unsigned axis = 0; axis < view.getRank(); ++axis) {
        kernelParams.push_back(llvm::formatv("{0}_stride{1}", n, axis).str());
        launchArg(triton::LaunchArg::Fixed, llvm::formatv("{0}.stride({1})", n, axis).str());
      }
    } else if (arg.getType().isIntOrIndexOrFloat()) {
      kernelParams.push_back(n);
      launchArg(triton::LaunchArg::Scalar, n, n);
      wrapperParams.push_back("*" + n); // keyword-only in the wrapper
      // The declared type's range (Triton passes a float as fp32 and an int as i32 or i64).
      auto [kind, bounds] = wrapper::scalarCheck(arg.getType());
      wrapper.checks.push_back(
          llvm::formatv("_check_scalar('{0}', {0}, {1}{2})", n, kind, bounds.empty() ? "" : ", " + bounds).str());
      wrapper.scalars.push_back({n, {kind, bounds}});
    } else {
      // Invocation workspace (seed 000 §2): a compiler-private pointer the wrapper allocates per call.
      auto buffer = cast<pgpu::BufferType>(arg.getType());
      if (torchType(buffer.getElementType()).empty())
        return kernel.emitError() << "the Triton wrapper has no torch dtype for " << buffer.getElementType();
      kernelParams.push_back(n);
      launchArg(triton::LaunchArg::Workspace, "_ws_" + n, n);
      workspaces.push_back(arg);
    }
  }
  // Workspace sizes: static extents, bound parameters, or shape symbols (their first view's extent
  // in the wrapper, the symbol's kernel parameter in the kernel).
  for (BlockArgument arg : workspaces) {
    auto buffer = cast<pgpu::BufferType>(arg.getType());
    if (firstView.empty())
      return kernel.emitError() << "the Triton wrapper allocates workspace on the device of a view argument; "
                                   "this kernel has none";
    SmallVector<std::string> host, device;
    for (Attribute e : buffer.getExtents()) {
      if (auto size = dyn_cast<IntegerAttr>(e)) {
        host.push_back(std::to_string(size.getInt()));
      } else if (pgpu::WorkspaceExtentOp sized = pgpu::workspaceExtent(kernel, cast<StringAttr>(e).getValue())) {
        // A named LaunchExpr: the wrapper evaluates it as it evaluates the grid; the kernel reads the
        // same value, computed in its body from its launch-time arguments.
        FailureOr<std::string> size = hostExpr(sized.getSize());
        if (failed(size))
          return failure();
        host.push_back(*size);
        device.push_back(expr(sized.getSize()));
        continue;
      } else if (kernel.getParam(cast<StringAttr>(e).getValue())) {
        host.push_back(std::to_string(param(cast<StringAttr>(e).getValue())));
      } else {
        auto source = symbolSource.find(cast<StringAttr>(e).getValue());
        if (source == symbolSource.end())
          return kernel.emitError() << "workspace extent '" << cast<StringAttr>(e).getValue()
                                    << "' names no view extent";
        host.push_back(source->second);
      }
      device.push_back(isa<StringAttr>(e) && !kernel.getParam(cast<StringAttr>(e).getValue())
                           ? "_extent_" + cast<StringAttr>(e).getValue().str()
                           : host.back());
    }
    workspaceExtents[arg] = device;
    unsigned index = arg.getArgNumber();
    triton::LaunchWorkspace ws;
    ws.name = names[arg];
    ws.dtype = torchType(buffer.getElementType());
    ws.device = firstView + ".device";
    ws.count = host.empty() ? "1" : "(" + llvm::join(host, ") * (") + ")";
    if (auto init = kernel.getArgAttrOfType<TypedAttr>(index, "pgpu.init"))
      ws.init = isa<FloatAttr>(init) ? floatLiteral(cast<FloatAttr>(init).getValueAsDouble())
                                     : std::to_string(cast<IntegerAttr>(init).getInt());
    // Launch-sized workspace may be empty on a call (a path this call does not take): then a
    // zero-element tensor made once per dtype and device, not an allocation per call.
    ws.launchSized = llvm::any_of(buffer.getExtents(), [&](Attribute e) {
      auto n = dyn_cast<StringAttr>(e);
      return n && pgpu::workspaceExtent(kernel, n.getValue());
    });
    // Tickets: every use a pgpu.last_program's ticket, whose last arrival returns it to 0 (below), or an
    // atomic read of it (pgpu-zero-first's wait for the first arrival), so the wrapper keeps one zeroed
    // buffer (LaunchWrapper.h).
    // So is workspace a pass marks `pgpu.kept` (returned to its initial value by the kernel:
    // pgpu-atomic-partials' merged sums).
    auto init = kernel.getArgAttrOfType<IntegerAttr>(index, "pgpu.init");
    ws.ticket = (init && init.getInt() == 0 && buffer.getElementType().isInteger(32) && !arg.use_empty() &&
                 llvm::all_of(arg.getUses(), [](OpOperand &use) {
                   if (isa<pgpu::AtomicLoadOp>(use.getOwner()))
                     return true;
                   auto last = dyn_cast<pgpu::LastProgramOp>(use.getOwner());
                   return last && use.get() == last.getTicket() && use.getOperandNumber() == 0;
                 })) ||
                (kernel.getArgAttr(index, "pgpu.kept") && kernel.getArgAttr(index, "pgpu.init"));
    wrapper.workspaces.push_back(ws);
  }
  // The body: launch-time values, then the program space.
  pgpu::ProgramSpaceOp space;
  int indent = 1;
  SmallVector<Operation *> entryOps; // launch-time values, spelled again by each Gluon partition
  for (Operation &op : entry.without_terminator()) {
    if (auto ps = dyn_cast<pgpu::ProgramSpaceOp>(op)) {
      space = ps;
      continue;
    }
    if (isa<pgpu::WorkspaceExtentOp>(op)) // spelled where workspace is sized (above)
      continue;
    if (failed(emitOp(op, indent)))
      return failure();
    entryOps.push_back(&op);
  }
  if (!space || space.getExtents().size() != 1)
    return kernel.emitError() << "the Triton provider needs a one-dimensional program space (legalization "
                                 "flattens higher ranks; not implemented yet)";
  line(indent, name(space.getBody().getArgument(0)) + " = tl.program_id(0)");
  if (failed(emitBlock(space.getBody().front(), indent)))
    return failure();
  // The warp-specialized Gluon spelling of this binding, beside the Triton one (which runs where the
  // Gluon one cannot: views TMA cannot describe, the interpreter). Where this binding has none, the
  // source says why and the Triton spelling runs.
  bool gluonOn = dryRun || (kernel.getParam(triton::kGluonParam) && param(triton::kGluonParam) == 1);
  std::string gluonRefused;
  if (gluonOn) {
    auto saved = std::make_tuple(descriptors, descriptorText, hostDescriptors, describedViews);
    if (failed(emitGluon(space, entryOps))) {
      if (dryRun)
        return failure();
      std::tie(descriptors, descriptorText, hostDescriptors, describedViews) = saved;
      splitSymbol.clear();
      splitParts = 1;
      gluonText.clear();
      gluonNeeds.clear();
      gluonRefused = gluonWhy ? gluonWhy->second : std::string("unknown");
      if (gluonWhy && pgpu::remarksEnabled(gluonWhy->first))
        emitRemark(gluonWhy->first->getLoc()) << "triton: GLUON=1 has no Gluon spelling here (" << gluonWhy->second
                                              << "); the Triton spelling runs";
    }
    if (dryRun)
      return success();
  }
  // Box accesses spelled both ways: a constexpr picks tensor descriptors when every described view
  // meets TMA's rules (16-byte aligned base and leading stride, unit last stride) on this call.
  if (!descriptors.empty()) {
    kernelParams.push_back("USE_TMA: tl.constexpr");
    std::string ok = "not _interpreting()";
    // The device's architecture: tensor descriptors need sm_90 or later, the Gluon spelling's
    // warpgroup MMAs sm_90 itself (the switch picks both: elsewhere the Triton kernel runs through
    // pointers).
    if (!describedViews.empty())
      ok += llvm::formatv(" and _arch({0}) {1}", name(describedViews.front()), gluonText.empty() ? ">= 9" : "== 9").str();
    for (Value v : describedViews) {
      std::string n = name(v);
      // TMA's rules: a 16-byte aligned base, a unit last stride, every other stride a multiple of
      // 16 bytes (spelled per axis: no generator on the launch path).
      auto type = cast<pgpu::ViewType>(v.getType());
      unsigned rank = type.getExtents().size(), perSixteen = 128 / type.getElementType().getIntOrFloatBitWidth();
      ok += llvm::formatv(" and {0}.data_ptr() % 16 == 0 and {0}.stride({1}) == 1", n, rank - 1).str();
      for (unsigned axis = 0; axis + 1 < rank; ++axis)
        ok += llvm::formatv(" and {0}.stride({1}) % {2} == 0", n, axis, perSixteen).str();
      if (!gluonText.empty()) // Gluon's descriptors describe nonempty views only
        ok += llvm::formatv(" and {0}.numel() > 0", n).str();
    }
    // A Gluon binding's switch also asks for the guard values its kernel spells (gluonNeeds): elsewhere
    // the Triton kernel runs, reading through pointers.
    for (auto &[guard, value] : gluonNeeds)
      for (auto &[name, hostText] : guards)
        if (name == guard)
          ok += std::string(value ? " and " : " and not ") + hostText;
    launchArg(triton::LaunchArg::Fixed, ok);
    wrapper.tmaArg = "_a" + std::to_string(wrapper.args.size() - 1);
    for (auto [i, d] : llvm::enumerate(hostDescriptors)) {
      kernelParams.push_back("_desc" + std::to_string(i));
      launchArg(triton::LaunchArg::Descriptor, d.second, d.first);
    }
  }
  for (auto &[param, host] : guards) {
    kernelParams.push_back(param + ": tl.constexpr");
    launchArg(triton::LaunchArg::Fixed, host);
  }
  wrapper.keyed = keyedFacts;
  FailureOr<std::string> grid = hostExpr(space.getExtents()[0]);
  if (failed(grid))
    return failure();

  // Scalars come after views in the wrapper signature, keyword-only.
  for (const std::string &p : wrapperParams)
    (p[0] == '*' ? wrapper.keywords : wrapper.positional).push_back(p[0] == '*' ? p.substr(1) : p);
  wrapper.grid = *grid;
  wrapper.device = firstView.empty() ? std::string("0") : firstView + ".get_device()";
  wrapper.warps = param(triton::kWarpsParam);
  wrapper.stages = param(triton::kStagesParam);
  // The declared search space and the bound values, for the tuner (seed 003:
  // only declared parameters can be searched; winners live outside the IR).
  wrapper::emitDeclaredParams(os, kname, kernel.getParamsAttr(),
                              [&](StringRef n) { return int64_t(param(n)); });
  // Resource estimates of a binding, for pruning before compiling (issue 8; Resources.h).
  triton::ResourceModel resources = triton::estimateResources(kernel);
  os << "\n\ndef " << kname << "_PRUNE(p):\n"
     << "    \"\"\"Why binding `p` would exceed a target limit (estimated from the program), or None.\"\"\"\n"
     << "    if " << resources.pythonSharedNeeded() << " > " << resources.sharedLimit << ":\n"
     << "        return 'shared memory'\n";
  // Registers per thread of the carried fragments, of the largest fragment and, where the program has
  // them, of the tiles an FMA-spelled contraction holds at once and of a fragment scan's components
  // and prefixes (Resources.h).
  std::vector<std::string> registerBytes{triton::ResourceModel::pythonMax(resources.carriedBytes),
                                         triton::ResourceModel::pythonMax(resources.fragmentBytes)};
  if (!resources.fmaContractBytes.empty())
    registerBytes.push_back(triton::ResourceModel::pythonMax(resources.fmaContractBytes));
  if (!resources.scanBytes.empty())
    registerBytes.push_back(triton::ResourceModel::pythonMax(resources.scanBytes));
  for (const std::string &bytes : registerBytes)
    os << "    if -(-(" << bytes << ") // 4 // (32 * p.get('" << triton::kWarpsParam << "', 4))) > "
       << resources.carriedRegisterLimit << ":\n"
       << "        return 'registers'\n";
  os << "    return None\n";
  // Parameters that size fragments: the tuner's first moves (they change bytes a program moves,
  // registers and shared memory; Resources.h).
  os << "\n\n" << kname << "_SIZES = (";
  if (auto declared = kernel.getParams())
    for (Attribute a : *declared) {
      StringRef name = cast<pgpu::ParamAttr>(a).getName().getValue();
      if (llvm::any_of(resources.fragmentBytes, [&](const triton::Monomial &m) { return llvm::is_contained(m.params, name.str()); }))
        os << "'" << name << "', ";
    }
  os << ")\n";
  // The program count of a binding on a call's views (a resource fact: a call's FOLD_SPLIT default
  // compares it with the multiprocessors), or None where it reads an ABI scalar.
  {
    bool scalar = false;
    FailureOr<std::string> programs = wrapper::hostLaunchExprText(
        space.getExtents()[0], [&](Value v) { scalar = true; return std::string("0"); },
        [&](StringRef n) { return "p['" + n.str() + "']"; },
        [&](Value view, int64_t axis) { return llvm::formatv("_v['{0}'].shape[{1}]", names[view], axis).str(); },
        [&](Operation *, StringRef) { return failure(); });
    os << "\n\ndef " << kname << "_PROGRAMS(p, _v):\n"
       << "    \"\"\"The program count of binding `p` on views `_v` ({name: tensor}), or None.\"\"\"\n"
       << "    return " << (succeeded(programs) && !scalar ? *programs : std::string("None")) << "\n";
  }
  // Whether a binding's launch on a call's views takes an element-wise branch that a launch-fact guard
  // keeps beside a contracting one (attention's head size past BLOCK_D): the tuner leaves such bindings
  // out where others do not take it (python/tessel/_tune.py, candidates). None where a guard reads an
  // ABI scalar.
  {
    bool scalar = false;
    std::vector<std::string> taken;
    for (auto [guard, whenTrue] : elementwiseGuards) {
      FailureOr<std::string> text = wrapper::hostLaunchExprText(
          guard.getCondition(), [&](Value) { scalar = true; return std::string("0"); },
          [&](StringRef n) { return "p['" + n.str() + "']"; },
          [&](Value view, int64_t axis) { return llvm::formatv("_v['{0}'].shape[{1}]", names[view], axis).str(); },
          [&](Operation *, StringRef) { return failure(); });
      if (failed(text))
        scalar = true;
      else
        taken.push_back(std::string(whenTrue ? "" : "not ") + "(" + *text + ")");
    }
    llvm::sort(taken);
    taken.erase(std::unique(taken.begin(), taken.end()), taken.end());
    os << "\n\ndef " << kname << "_ELEMENTWISE(p, _v):\n"
       << "    \"\"\"Whether binding `p` on views `_v` takes an element-wise branch beside a contracting one, or None.\"\"\"\n"
       << "    return " << (scalar ? std::string("None") : taken.empty() ? std::string("False") : llvm::join(taken, " or "))
       << "\n";
    // The declared parameters only those element-wise branches use (a row block of the element-wise
    // realization): a launch that takes none of them does not depend on them, so the tuner keeps them at
    // their defaults there instead of compiling and timing identical kernels.
    llvm::StringSet<> inside, outside;
    auto note = [](Operation *op, llvm::StringSet<> &names) {
      if (auto p = dyn_cast<pgpu::ParamOp>(op))
        names.insert(p.getName());
      for (Type t : llvm::concat<const Type>(op->getResultTypes(), op->getOperandTypes()))
        if (auto f = dyn_cast<pgpu::FragmentType>(t))
          for (Attribute e : f.getExtents())
            if (auto n = dyn_cast<StringAttr>(e))
              names.insert(n.getValue());
    };
    llvm::SmallPtrSet<Region *, 4> elementwise;
    for (auto [guard, whenTrue] : elementwiseGuards)
      elementwise.insert(whenTrue ? &guard.getThenRegion() : &guard.getElseRegion());
    kernel.walk([&](Operation *op) {
      bool within = false;
      for (Region *r = op->getParentRegion(); r && !within; r = r->getParentRegion())
        within = elementwise.contains(r);
      note(op, within ? inside : outside);
    });
    os << "\n\n" << kname << "_ELEMENTWISE_ONLY = (";
    if (auto declared = kernel.getParams())
      for (Attribute a : *declared) {
        StringRef name = cast<pgpu::ParamAttr>(a).getName().getValue();
        if (inside.contains(name) && !outside.contains(name))
          os << "'" << name << "', ";
      }
    os << ")\n";
  }
  // WARPS's heuristic default of a binding: a call that binds covering defaults re-evaluates it.
  os << "\n\ndef " << kname << "_WARPS(p):\n"
     << "    \"\"\"The heuristic WARPS of binding `p` (Resources.h, ResourceModel::warpsAt).\"\"\"\n"
     << "    return " << resources.pythonWarps() << "\n";
  os << helperText;
  os << "\n\n@triton.jit\ndef _" << kname << "_kernel(" << llvm::join(kernelParams, ", ") << "):\n";
  os << descriptorText;
  os << bodyText;
  if (!gluonRefused.empty())
    os << "\n\n# GLUON=1: no warp-specialized Gluon spelling of this binding (" << gluonRefused
       << "); the Triton kernel above runs.\n";
  if (!gluonText.empty()) {
    // Partitions take the kernel's parameters and the rings; constexprs stay constexprs.
    SmallVector<std::string> glParams, args, rings;
    for (const std::string &p : kernelParams) {
      glParams.push_back(StringRef(p).ends_with(": tl.constexpr") ? p.substr(0, p.size() - 14) + ": gl.constexpr" : p);
      args.push_back(p.substr(0, p.find(':')));
    }
    for (unsigned i = 0; i < streamDescriptor.size(); ++i)
      for (StringRef part : {"_ring", "_ready", "_empty"})
        rings.push_back(part.str() + std::to_string(i));
    SmallVector<std::string> partitionParams = glParams, partitionArgs = args;
    partitionParams.append(rings.begin(), rings.end());
    partitionArgs.append(rings.begin(), rings.end());
    const std::string &consumer = gluonText, &loader = gluonLoader;
    os << "\n\n@gluon.jit\ndef _" << kname << "_consumer(" << llvm::join(partitionParams, ", ")
       << ", _PART: gl.constexpr):\n"
       << "    # A consumer partition (" << consumerWarps() << " warps): the whole program";
    if (splitParts > 1)
      os << " on part _PART of its " << splitParts << " parts of " << splitSymbol << " rows";
    os << "; each stream's tile is a\n"
       << "    # ring slot it waits for, reads with wgmma and frees after its last contraction.\n"
       << consumer;
    os << "\n\n@gluon.jit\ndef _" << kname << "_loader(" << llvm::join(partitionParams, ", ") << "):\n"
       << "    # The loader partition (one warp): the program's control and the streams' tile origins only,\n"
       << "    # so it walks the tiles in the consumer's order; each tile a TMA copy into the next free slot.\n"
       << loader;
    os << "\n\n@gluon.jit\ndef _" << kname << "_gluon(" << llvm::join(glParams, ", ") << "):\n";
    os << descriptorText;
    for (const std::string &ring : gluonRings)
      os << ring;
    // The partitions: the consumers (the first is the default partition, the program's num_warps),
    // then the loader, one warp of 24 registers. Split consumers' workers take 240 registers (session
    // 18's hand kernels), the default partition what the program's cap leaves.
    SmallVector<std::string> partitions, workerWarps, workerRegs;
    for (int64_t part = 0; part < splitParts; ++part) {
      partitions.push_back("(_" + kname + "_consumer, (" + llvm::join(partitionArgs, ", ") + ", " +
                           std::to_string(part) + "))");
      if (part > 0) {
        workerWarps.push_back(std::to_string(consumerWarps()));
        workerRegs.push_back("240");
      }
    }
    partitions.push_back("(_" + kname + "_loader, (" + llvm::join(partitionArgs, ", ") + "))");
    workerWarps.push_back("1");
    workerRegs.push_back("24");
    os << "    fence_async_shared()\n"
       << "    gl.warp_specialize([" << llvm::join(partitions, ", ") << "], [" << llvm::join(workerWarps, ", ") << "], ["
       << llvm::join(workerRegs, ", ") << "])\n";
    wrapper.gluon = "_" + kname + "_gluon";
    wrapper.gluonWarps = consumerWarps();
    wrapper.gluonRegs = gluonRegisterCap(consumerWarps(), splitParts, gluonRingBytes);
    splitSymbol.clear();
    splitParts = 1;
  }
  wrapper.indexChecks = wrapper::indexChecks(kernel);
  triton::emitLaunchWrapper(os, wrapper);
  return success();
}

/// The module-level FP8 conversions the spellings of Capabilities.cpp and the casts call, emitted only
/// when some value of the module is FP8 (other modules stay byte-identical). On a GPU the narrowing
/// replaces what cvt.rn.satfinite would saturate (E4M3FN: past 464 and +-inf give NaN; E5M2: from
/// 61440 on and +-inf give inf, built from its bits) so it matches the interpreters and torch's
/// float8 conversion. Triton 3.6's interpreter converts FP8 without ties to even, NaN or infinities
/// (its _convert_float), so under TRITON_INTERPRET=1 the helpers are NumPy, exact.
static std::string float8Prelude(ModuleOp module) {
  bool used = false;
  module.walk([&](Operation *op) {
    auto isF8 = [](Type t) { return triton::isFloat8(pgpu::elementTypeOf(t)); };
    used |= llvm::any_of(op->getResultTypes(), isF8) || llvm::any_of(op->getOperandTypes(), isF8);
    for (Region &r : op->getRegions())
      for (Block &b : r)
        used |= llvm::any_of(b.getArgumentTypes(), isF8);
    return used ? WalkResult::interrupt() : WalkResult::advance();
  });
  if (!used)
    return "";
  return "if _interpreting():\n"
         "    import numpy as np\n"
         "    from triton.runtime.interpreter import TensorHandle\n\n"
         "    _F8 = {'fp8e4nv': (3, 7, 448.0, False), 'fp8e5': (2, 15, 57344.0, True)}  # mantissa, bias, max, inf\n\n"
         "    def _f8_wrap(data, dtype, like):\n"
         "        if not isinstance(like, tl.tensor):\n"
         "            return tl.tensor(TensorHandle(data.reshape(1), dtype), dtype)\n"
         "        return tl.tensor(TensorHandle(data.reshape(like.handle.data.shape), dtype), like.type.with_element_ty(dtype) if like.type.is_block() else dtype)\n\n"
         "    def _f8_encode(v, dtype):\n"
         "        mant, bias, top, has_inf = _F8[dtype.name]\n"
         "        with np.errstate(all='ignore'):\n"
         "            x = np.asarray(v.handle.data if isinstance(v, tl.tensor) else v, dtype=np.float32).astype(np.float64)\n"
         "            a = np.abs(x)\n"
         "            e = np.maximum(np.floor(np.log2(np.where(a > 0, a, 1.0))), 1 - bias)\n"
         "            q = np.rint(a / np.exp2(e - mant)) * np.exp2(e - mant)  # nearest even\n"
         "            e = np.maximum(np.floor(np.log2(np.where(q > 0, q, 1.0))), 1 - bias)\n"
         "            sub = q < 2.0 ** (1 - bias)\n"
         "            m = np.where(sub, q / 2.0 ** (1 - bias - mant), q / np.exp2(e - mant) - 2 ** mant)\n"
         "            bits = np.where(sub, m, (e + bias) * 2 ** mant + m)\n"
         "            over = (q > top) | np.isinf(x)\n"
         "            bits = np.where(over, (31 << 2) if has_inf else 0x7F, bits)\n"
         "            bits = np.where(np.isnan(x) | (over & (not has_inf)), 0x7F, bits)\n"
         "        bits = bits.astype(np.uint8) | np.where(np.signbit(x), 0x80, 0).astype(np.uint8)\n"
         "        return _f8_wrap(bits, dtype, v)\n\n"
         "    def _to_f8e4m3(v):\n"
         "        return _f8_encode(v, tl.float8e4nv)\n\n"
         "    def _to_f8e5m2(v):\n"
         "        return _f8_encode(v, tl.float8e5)\n\n"
         "    def _f8_to_f32(v):\n"
         "        mant, bias, _, has_inf = _F8[v.type.scalar.name]\n"
         "        b = v.handle.data.astype(np.int64)\n"
         "        e, m = (b >> mant) & ((1 << (7 - mant)) - 1), b & ((1 << mant) - 1)\n"
         "        with np.errstate(all='ignore'):\n"
         "            r = np.where(e == 0, m * 2.0 ** (1 - bias - mant), (1 + m / 2.0 ** mant) * np.exp2(e - bias))\n"
         "            top = e == (1 << (7 - mant)) - 1\n"
         "            r = np.where(top & (m == 0) & has_inf, np.inf, r)\n"
         "            r = np.where(top & (m != 0) if has_inf else top & (m == (1 << mant) - 1), np.nan, r)\n"
         "        r = np.where(b & 0x80, -r, r).astype(np.float32)\n"
         "        return _f8_wrap(r, tl.float32, v)\n"
         "else:\n"
         "    @triton.jit\n"
         "    def _to_f8e4m3(v):\n"
         "        \"\"\"f32 -> float8_e4m3fn as torch converts: nearest even; past 464 and +-inf NaN.\"\"\"\n"
         "        return tl.where(tl.abs(v) > 464.0, float('nan'), v).to(tl.float8e4nv)\n\n"
         "    @triton.jit\n"
         "    def _to_f8e5m2(v):\n"
         "        \"\"\"f32 -> float8_e5m2 as torch converts: nearest even; from 61440 on and +-inf inf.\"\"\"\n"
         "        inf = tl.where(v > 0, 124, 252).to(tl.uint8).to(tl.float8e5, bitcast=True)\n"
         "        return tl.where(tl.abs(v) >= 61440.0, inf, v.to(tl.float8e5))\n\n"
         "    @triton.jit\n"
         "    def _f8_to_f32(v):\n"
         "        return v.to(tl.float32)\n\n\n";
}

/// The module-level `libdevice` the spellings of Capabilities.cpp call, emitted only when some op
/// uses it (other modules stay byte-identical). Triton's generic libdevice resolves to the CUDA one
/// when a kernel compiles; TRITON_INTERPRET=1 cannot call extern functions, so there the same
/// functions are evaluated by NumPy in float64 and rounded once to the operand's dtype, which is
/// within every libdevice bound the spellings rely on (types §5).
static std::string libdevicePrelude(ModuleOp module) {
  bool used = false;
  module.walk([&](Operation *op) {
    used |= triton::usesLibdevice(op);
    return used ? WalkResult::interrupt() : WalkResult::advance();
  });
  if (!used)
    return "";
  return "def _libdevice():\n"
         "    \"\"\"Triton's libdevice; under TRITON_INTERPRET=1 NumPy evaluations of the functions used.\"\"\"\n"
         "    if not _interpreting():\n"
         "        from triton.language.extra import libdevice\n"
         "        return libdevice\n"
         "    import math\n"
         "    import types\n"
         "    import numpy as np\n"
         "    from triton.runtime.interpreter import TensorHandle\n\n"
         "    def lift(f):\n"
         "        def apply(*args):\n"
         "            like = next((a for a in args if isinstance(a, tl.tensor)), None)\n"
         "            data = [np.asarray(a.handle.data if isinstance(a, tl.tensor) else a, dtype=np.float64) for a in args]\n"
         "            with np.errstate(all='ignore'):\n"
         "                out = np.asarray(f(*data))\n"
         "            if like is None:  # every operand a Python float: an f32 constant, as Triton types it\n"
         "                return float(out.astype(np.float32))\n"
         "            return tl.tensor(TensorHandle(out.astype(like.handle.data.dtype), like.handle.dtype.scalar), like.type)\n"
         "        return apply\n"
         "    erf = np.vectorize(math.erf, otypes=[np.float64])\n"
         "    return types.SimpleNamespace(tanh=lift(np.tanh), erf=lift(erf), log1p=lift(np.log1p),\n"
         "                                 expm1=lift(np.expm1), exp=lift(np.exp), pow=lift(np.power))\n\n\n"
         "libdevice = _libdevice()\n\n\n"
         "if _interpreting():\n"
         "    _tanh_approx = libdevice.tanh\n"
         "else:\n"
         "    @triton.jit\n"
         "    def _tanh_approx(x):\n"
         "        \"\"\"{approximate} tanh: PTX tanh.approx.f32 (relative error at most 2**-11).\"\"\"\n"
         "        return tl.inline_asm_elementwise(\"tanh.approx.f32 $0, $1;\", \"=f,f\", [x], dtype=tl.float32,\n"
         "                                         is_pure=True, pack=1)\n\n\n";
}

std::optional<std::pair<Operation *, std::string>> Serializer::gluonDryRun() {
  dryRun = true;
  if (succeeded(run()))
    return std::nullopt;
  if (gluonWhy)
    return gluonWhy;
  return std::make_pair(kernel.getOperation(), std::string("the kernel has no Triton spelling"));
}

std::optional<std::pair<Operation *, std::string>> triton::gluonRefusal(pgpu::KernelOp kernel) {
  llvm::StringMap<int64_t> defaults;
  Serializer serializer(kernel, defaults, llvm::nulls());
  return serializer.gluonDryRun();
}

LogicalResult triton::serializeModule(ModuleOp module, const llvm::StringMap<int64_t> &params, raw_ostream &os) {
  // Bindings must name declared parameters and stay inside their domains.
  for (const auto &entry : params) {
    bool declared = false;
    for (pgpu::KernelOp kernel : module.getOps<pgpu::KernelOp>()) {
      pgpu::ParamAttr p = kernel.getParam(entry.getKey());
      if (!p)
        continue;
      declared = true;
      if (!llvm::is_contained(p.getCandidates(), entry.getValue()))
        return kernel.emitError() << "parameter '" << entry.getKey() << "' = " << entry.getValue()
                                  << " is outside its candidate domain ["
                                  << llvm::make_range(p.getCandidates().begin(), p.getCandidates().end())
                                  << "]";
    }
    if (!declared)
      return module.emitError() << "no kernel declares a parameter '" << entry.getKey() << "'";
  }
  os << "# Generated by tessel: Triton source and launch wrappers. Do not edit.\n"
     << "import os\n\nimport torch\nimport triton\nimport triton.language as tl\n"
     << "from triton.runtime import _allocation\n\n\n";
  wrapper::emitCheckView(os, {"Triton", "TRITON_INTERPRET"});
  os << "def _interpreting():\n"
     << "    return os.environ.get('TRITON_INTERPRET') == '1'\n\n\n"
     << "_ARCH = {}  # device -> major compute capability\n\n\n"
     << "def _arch(t):\n"
     << "    \"\"\"The major compute capability of tensor t's CUDA device (0 elsewhere), once per device.\"\"\"\n"
     << "    d = t.device\n"
     << "    if d not in _ARCH:\n"
     << "        _ARCH[d] = torch.cuda.get_device_capability(d)[0] if d.type == 'cuda' else 0\n"
     << "    return _ARCH[d]\n\n\n"
     << libdevicePrelude(module) << float8Prelude(module);
  // Launch-sized workspace (pgpu.workspace_extent) that a call leaves empty takes one shared tensor.
  bool launchSized = false;
  module.walk([&](pgpu::WorkspaceExtentOp) { launchSized = true; });
  if (launchSized)
    os << "_WS_EMPTY = {}\n\n\n"
       << "def _ws_empty(dtype, device):\n"
       << "    \"\"\"A zero-element workspace tensor (made once per dtype and device).\"\"\"\n"
       << "    t = _WS_EMPTY.get((dtype, device))\n"
       << "    if t is None:\n"
       << "        t = _WS_EMPTY[(dtype, device)] = torch.empty(0, dtype=dtype, device=device)\n"
       << "    return t\n\n\n";
  // Gluon (Triton's layout-explicit dialect, in the same wheel) for bindings that ask for it.
  bool gluon = false;
  for (pgpu::KernelOp kernel : module.getOps<pgpu::KernelOp>())
    if (pgpu::ParamAttr p = kernel.getParam(triton::kGluonParam))
      gluon |= params.lookup(triton::kGluonParam) == 1 || (!params.count(triton::kGluonParam) && p.getDefaultValue() == 1);
  if (gluon)
    os << "from triton.experimental import gluon\n"
       << "from triton.experimental.gluon import language as gl\n"
       << "from triton.experimental.gluon.language.nvidia.hopper import (fence_async_shared, mbarrier, tma, warpgroup_mma,\n"
       << "                                                              warpgroup_mma_wait)\n\n\n"
       << "def _gdesc(t, box):\n"
       << "    \"\"\"The Gluon tensor descriptor of all of view `t` with boxes of shape `box` (NVMMA-swizzled in shared\n"
       << "    memory, as the kernel's rings are), made on the host.\"\"\"\n"
       << "    from triton.experimental.gluon.nvidia.hopper import TensorDescriptor\n"
       << "    dtype = {torch.float16: gl.float16, torch.bfloat16: gl.bfloat16}[t.dtype]\n"
       << "    return TensorDescriptor(t, list(t.shape), list(t.stride()), box,\n"
       << "                            gl.NVMMASharedLayout.get_default_for(box, dtype))\n\n\n";
  triton::emitLaunchPrelude(os);
  bool tickets = false;
  module.walk([&](pgpu::LastProgramOp) { tickets = true; });
  if (tickets)
    triton::emitTicketPrelude(os);
  wrapper::emitCheckScalar(os);
  wrapper::emitCheckApart(os);
  wrapper::emitCheckIndex(os);
  for (pgpu::KernelOp kernel : module.getOps<pgpu::KernelOp>()) {
    Serializer serializer(kernel, params, os);
    if (failed(serializer.run()))
      return failure();
  }
  return success();
}
