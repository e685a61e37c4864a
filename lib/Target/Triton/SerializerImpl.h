//===- SerializerImpl.h - the Triton serializer's state ---------*- C++ -*-===//
//
// Private to the Triton serializer, whose spelling is split by concern:
// TritonSerializer.cpp (the module, the kernel's parameters and its launch
// wrapper's ABI), ValueSpelling.cpp (types, values, addresses, tensor
// descriptors), OpSpelling.cpp (the walk and each op's Triton spelling) and
// GluonSpelling.cpp (the warp-specialized Gluon spelling, GLUON=1). They
// share this class.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_TARGET_TRITON_SERIALIZERIMPL_H
#define TESSEL_LIB_TARGET_TRITON_SERIALIZERIMPL_H

#include "tessel/Dialect/PGPU/IR/IndexSign.h"
#include "tessel/Dialect/PGPU/Transforms/Passes.h"
#include "tessel/Target/Triton/Triton.h"
#include "tessel/Target/Triton/GluonLayouts.h"
#include "tessel/Target/Triton/GluonStreams.h"
#include "tessel/Target/Triton/PairedLaneReads.h"
#include "tessel/Target/Triton/Resources.h"
#include "tessel/Target/Triton/TileAccess.h"
#include "tessel/Target/Wrapper.h"

#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace tessel::triton::spelling {
using namespace mlir;

/// The `tl.` dtype of a scalar or element type ("" where Triton has none; index is tl.int32).
std::string tritonType(Type t);

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
/// consumers stay one program per SM, uncapped (at 168 one measured 351 against 357), and so does a
/// consumer whose fragments need more registers a thread than the cap (`neededRegs`).
int64_t gluonRegisterCap(int64_t warps, int64_t parts, int64_t ringBytes, int64_t neededRegs);

/// An operation no warp-specialized Gluon partition spells (yet): a partition that reaches one refuses.
bool unspelledInGluon(Operation *op);

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
  /// A Triton shape list of extents, e.g. `[64, 32]`.
  static std::string shapeString(ArrayRef<int64_t> shape) {
    std::string text = "[";
    for (auto [i, e] : llvm::enumerate(shape))
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
  /// A load or gather of packed pairs (PairedLaneReads.h) spelled at this binding: its elements read
  /// once, repeated in registers. False (nothing spelled) where the read is no such read here.
  bool emitPairedRead(Operation *op, Value view, ValueRange coords, Value valid, Value fill, bool atL2, int indent);
  /// A paired read's coordinate or validity `v` at the half tile `half` (one lane a pair).
  std::string halfLanes(Value v, const triton::PairedLaneRead &m, ArrayRef<int64_t> half);
  /// A read of the even or odd columns (PairedLaneReads.h, InterleavedLaneRead) spelled as one contiguous
  /// run split in registers. False (nothing spelled) where the read is no such read.
  bool emitInterleavedRead(Operation *op, Value view, ValueRange coords, Value valid, Value fill, bool atL2,
                           int indent);
  /// An interleaved read's other coordinate or validity `v` over the run's tile `wide` (two columns a lane).
  std::string wideLanes(Value v, const triton::PairedLaneRead &m, ArrayRef<int64_t> wide);
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
  /// Tile loads beside a stream in its loop that are no stream themselves (an additive bias tile): read
  /// with pointers into the consumer's registers, never a TMA copy waited for every iteration.
  llvm::DenseSet<Operation *> pointerTiles;
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
  DenseMap<Operation *, Operation *> resetRead; // a finalization's reset store -> the read it exchanges with
  llvm::DenseSet<std::pair<Operation *, Value>> fencedReads; // (op, view) ordered by a barrier (CrossLaneReads.h)
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
  // session 17). `hostDescriptors`: (view, box shape) of each, in order.
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

} // namespace tessel::triton::spelling

#endif // TESSEL_LIB_TARGET_TRITON_SERIALIZERIMPL_H
