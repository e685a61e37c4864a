//===- SelectorImpl.h - the selector's state, shared by its files -*- C++ -*-===//
//
// Private to lib/Target/Selector: the Selector walks one legalized pgpu kernel
// and builds it in the device dialects for one DeviceTarget (Selector.h
// describes the execution model). Its members live in Selector.cpp (control,
// pointwise, accesses, ordered loops, atomics), Collectives.cpp
// (workgroup-wide reduce, arg-reduce, scan, extract), Staging.cpp (rank >= 2
// data movement and contractions through shared memory) and VectorAccess.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_TARGET_SELECTOR_SELECTORIMPL_H
#define TESSEL_LIB_TARGET_SELECTOR_SELECTORIMPL_H

#include "tessel/Target/Selector/Selector.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"

namespace tessel::selector::detail {
using namespace mlir;
using BinaryKind = kir::BinaryKind;
using UnaryKind = kir::UnaryKind;

/// An external view as the kernel receives it (Selector.h ABI); invocation workspace is addressed the
/// same way, row-major over its extents.
struct ViewABI {
  Value pointer;
  SmallVector<Value> extents, strides; // index
};

/// Unsigned integers (and i1) compare, divide, shift and extend unsigned (Numerics.cpp).
inline bool isUnsigned(Type type) {
  auto integer = dyn_cast<IntegerType>(type);
  return integer && (integer.isUnsigned() || integer.getWidth() == 1);
}

/// The device type of a pgpu scalar type: signless integers; index stays index.
inline Type deviceScalarType(Type type) {
  if (auto integer = dyn_cast<IntegerType>(type); integer && !integer.isSignless())
    return IntegerType::get(type.getContext(), integer.getWidth());
  return type;
}

class Selector {
public:
  /// Selects `kernel` into the device function `name` of `module`, with each launch guard of
  /// `fixed` (pgpu::launchGuards) taking its branch of the value given.
  Selector(pgpu::KernelOp kernel, const DeviceTarget &target, const llvm::StringMap<int64_t> &params,
           gpu::GPUModuleOp module, std::string name, DenseMap<Operation *, bool> fixed)
      : kernel(kernel), target(target), params(params), module(module), name(std::move(name)),
        fixed(std::move(fixed)), b(kernel.getContext()), loc(kernel.getLoc()) {}

  LogicalResult run();

private:
  pgpu::KernelOp kernel;
  const DeviceTarget &target;
  const llvm::StringMap<int64_t> &params;
  gpu::GPUModuleOp module;
  std::string name; // the device function (a guard variant's name, Selector.h)
  DenseMap<Operation *, bool> fixed;
  OpBuilder b;
  Location loc;
  int64_t threads = 0;
  int64_t vector = 1;  // VECTOR: consecutive elements a thread holds in a wide fragment (Selector.h)
  int64_t warpLanes = 32; // lanes of a gpu.shuffle (the target's warp or wavefront)
  Value tid;           // index
  Value laneIsZero;    // i1: thread 0 of the CTA
  unsigned nextShared = 0;
  DenseMap<Value, SmallVector<Value>> values; // scalar -> {v}; fragment -> one value per slot
  DenseMap<Value, ViewABI> views;
  /// Views the kernel both reads and writes: their writes are fenced by workgroup barriers before
  /// and after, since another thread than the writer may read (or have read) the element; the pgpu
  /// program is sequential within an instance (the barrier orders global memory within the group).
  DenseSet<Value> readAndWritten;
  /// Set while a read in a pgpu.last_program of what an op outside it writes (another instance's
  /// stores or merges) is selected: its loads are volatile (strong: PTX ld.volatile, served at the
  /// point of coherence, never by a line the SM's L1 kept), ordered after the ticket's acquire.
  bool strongReads = false;
  void fenceWrite(Value view) {
    if (readAndWritten.contains(view))
      gpu::BarrierOp::create(b, loc);
  }

  // ---- helpers --------------------------------------------------------------
  Value constIndex(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value constInt(Type type, int64_t v) { return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, v)); }
  Value constI32(int32_t v) { return constInt(b.getI32Type(), v); }
  /// The address of i32 element `index` of a shared array.
  Value sharedSlot(Value array, Value index) {
    return LLVM::GEPOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3), b.getI32Type(), array,
                               ValueRange{arith::IndexCastOp::create(b, loc, b.getI64Type(), index)});
  }

  /// The static shape of a fragment at the bound parameters.
  SmallVector<int64_t> shapeOf(pgpu::FragmentType type) {
    SmallVector<int64_t> shape;
    for (Attribute e : type.getExtents())
      shape.push_back(isa<IntegerAttr>(e) ? cast<IntegerAttr>(e).getInt()
                                          : params.lookup(cast<StringAttr>(e).getValue()));
    return shape;
  }
  /// Elements of a fragment (any rank: flattened row-major, Selector.h).
  int64_t elements(pgpu::FragmentType type) {
    int64_t n = 1;
    for (int64_t e : shapeOf(type))
      n *= e;
    return n;
  }
  /// Consecutive elements per thread in `type` (Selector.h layout): the widest of VECTOR, VECTOR / 2, ...
  /// at which the fragment fills the CTA, down to 1 (the cyclic layout). A function of the element
  /// count only, so fragments that meet in pointwise ops and reshapes share their layout.
  int64_t vectorOf(pgpu::FragmentType type) {
    int64_t v = vector, n = elements(type);
    while (v > 1 && n < threads * v)
      v /= 2;
    return v;
  }
  int64_t slots(pgpu::FragmentType type) {
    int64_t v = vectorOf(type);
    return std::max<int64_t>(1, (elements(type) + threads * v - 1) / (threads * v)) * v;
  }
  /// The element (flat, row-major) this thread holds in slot k: slot k = g V + j is element
  /// g T V + tid V + j (V = 1: tid + k T).
  Value slotIndex(pgpu::FragmentType type, int64_t k) {
    int64_t v = vectorOf(type);
    Value mine = v == 1 ? tid : arith::MulIOp::create(b, loc, tid, constIndex(v)).getResult();
    int64_t offset = (k / v) * threads * v + k % v;
    return offset ? arith::AddIOp::create(b, loc, mine, constIndex(offset)).getResult() : mine;
  }
  /// Whether this thread's slot k holds an element (null: always).
  Value slotExists(pgpu::FragmentType type, int64_t k) {
    int64_t n = elements(type), v = vectorOf(type);
    if ((k / v) * threads * v + (threads - 1) * v + k % v < n)
      return {};
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, slotIndex(type, k), constIndex(n));
  }
  Value andMaybe(Value a, Value bOrNull) { return bOrNull ? arith::AndIOp::create(b, loc, a, bOrNull) : a; }

  /// Operand `v` at slot k (a scalar is the same at every slot).
  Value at(Value v, int64_t k) {
    auto &list = values[v];
    return list.size() == 1 ? list[0] : list[k];
  }
  int64_t slotsOf(Value v) {
    auto fragment = dyn_cast<pgpu::FragmentType>(v.getType());
    return fragment ? slots(fragment) : 1;
  }
  /// The device types one pgpu value occupies.
  void deviceTypes(Type type, SmallVectorImpl<Type> &out) {
    if (auto fragment = dyn_cast<pgpu::FragmentType>(type)) {
      out.append(slots(fragment), deviceScalarType(fragment.getElementType()));
      return;
    }
    out.push_back(deviceScalarType(type));
  }
  void flatten(ValueRange range, SmallVectorImpl<Value> &out) {
    for (Value v : range)
      llvm::append_range(out, values[v]);
  }
  /// Binds pgpu values to consecutive device values.
  void bind(ValueRange range, ValueRange device) {
    unsigned i = 0;
    for (Value v : range) {
      unsigned n = slotsOf(v);
      values[v] = SmallVector<Value>(device.slice(i, n).begin(), device.slice(i, n).end());
      i += n;
    }
  }

  // ---- scalar semantics (Numerics.cpp) --------------------------------------
  static std::string suffix(Type type) {
    return type.isF32() ? "f32" : type.isF64() ? "f64" : type.isF16() ? "f16" : "bf16";
  }
  Value intrinsic(const llvm::Twine &name, Type type, ValueRange args) {
    return LLVM::CallIntrinsicOp::create(b, loc, type, b.getStringAttr(name.str()), args).getResult(0);
  }
  FailureOr<Value> binary(Operation *op, BinaryKind kind, Type type, Value x, Value y, bool approximate);
  FailureOr<Value> unary(Operation *op, UnaryKind kind, Type type, Value x, bool approximate);
  Value compare(kir::CmpPredicate predicate, Type type, Value x, Value y);
  Value castValue(Type from, Type to, Value x);

  // ---- memory ---------------------------------------------------------------
  /// The global address of element `coords` (slot k) of a view or workspace buffer.
  Value address(Type elementType, Value resource, ValueRange coords, int64_t k);
  Value sharedArray(Type slotType, int64_t count);

  // ---- cross-thread ---------------------------------------------------------
  Value shuffle(Value v, int32_t offset, gpu::ShuffleMode mode);
  Value shuffleXor(Value v, int32_t offset) { return shuffle(v, offset, gpu::ShuffleMode::XOR); }
  SmallVector<Value> combineAcrossCTA(SmallVector<Value> acc,
                                      llvm::function_ref<SmallVector<Value>(ValueRange, ValueRange)> combine);
  FailureOr<SmallVector<Value>> inlineCombine(Region &region, ValueRange lhs, ValueRange rhs);
  /// `region` as the combine function of a collective: a combine that fails to inline clears `ok`
  /// (the caller reports it once) and keeps `lhs`, so the collective still builds.
  auto combiner(Region &region, bool &ok) {
    return [this, &region, &ok](ValueRange lhs, ValueRange rhs) -> SmallVector<Value> {
      FailureOr<SmallVector<Value>> r = inlineCombine(region, lhs, rhs);
      if (failed(r)) {
        ok = false;
        return SmallVector<Value>(lhs.begin(), lhs.end());
      }
      return *r;
    };
  }

  // ---- ops ------------------------------------------------------------------
  LogicalResult emitBlock(Block &block);
  LogicalResult emitOp(Operation *op);
  LogicalResult emitFor(pgpu::ForOp op);
  LogicalResult emitIf(pgpu::IfOp op);
  LogicalResult emitLoad(Operation *op, Value view, ValueRange coords, Value valid, Value fill);
  LogicalResult emitStore(Value value, Value resource, ValueRange coords, Value valid);

  /// Whether slot k of an access performs it: its validity, and the slot holds an element. A scalar
  /// is read by every thread (scalars are uniform) and written by thread 0 only (`write`).
  Value slotOk(Value valid, pgpu::FragmentType fragmentOrNull, int64_t k, bool write) {
    Value ok = at(valid, k);
    if (fragmentOrNull)
      return andMaybe(ok, slotExists(fragmentOrNull, k));
    return write ? arith::AndIOp::create(b, loc, ok, laneIsZero).getResult() : ok;
  }
  /// Slot k of a read (the fill when the slot is not ok) and of a write, one element each.
  Value loadSlot(Type elementType, Value view, ValueRange coords, Value ok, Value fill, int64_t k);
  void storeSlot(Value element, Type elementType, Value resource, ValueRange coords, Value ok, int64_t k);

  // ---- vector accesses (VectorAccess.cpp) ------------------------------------
  /// The integer `v` when it is known at selection (a constant or a bound parameter, or a splat of one).
  std::optional<int64_t> knownInteger(Value v);
  /// s such that element g*group + j of `v` is element g*group of `v` plus s*j, for every aligned
  /// group of `group` consecutive (flat, row-major) elements; nothing when that is not proved.
  std::optional<int64_t> groupSlope(Value v, int64_t group, unsigned depth = 0);
  /// When the coordinates of an access are affine within aligned groups of `group` elements, the
  /// run-time distance (in elements of the resource) between consecutive elements of a group: the
  /// sum of the coordinates' slopes times the resource's strides; null otherwise, and for an access
  /// that does not move within a group.
  Value groupStep(Value resource, ValueRange coords, int64_t group);
  /// One thread's access of a fragment in groups (VectorAccess.cpp): each group's first address,
  /// each slot's ok, and `fast`: every slot ok, every group aligned to the vector, the step 1.
  struct GroupedAccess {
    Type element;
    int64_t align = 1;
    Value step, fast;
    SmallVector<Value> bases, oks;
  };
  GroupedAccess groupAccess(Type elementType, Value resource, ValueRange coords, Value valid,
                            pgpu::FragmentType fragment, int64_t group, Value step, bool write);
  /// The address of slot k: its group's first address plus (k mod group) element steps.
  Value slotAddress(const GroupedAccess &access, int64_t k, int64_t group);
  /// An access whose coordinates are affine within groups (`step`, from groupStep): every group one
  /// vector access (at most 16 bytes) when the thread's access is fast, else each ok slot alone.
  SmallVector<Value> loadGroups(Type elementType, Value view, ValueRange coords, Value valid, Value fill,
                                pgpu::FragmentType fragment, int64_t group, Value step);
  void storeGroups(Value value, Type elementType, Value resource, ValueRange coords, Value valid,
                   pgpu::FragmentType fragment, int64_t group, Value step);
  LogicalResult emitReduce(pgpu::ReduceOp op);
  LogicalResult emitArgReduce(pgpu::ArgReduceOp op);
  LogicalResult emitExtract(pgpu::ExtractOp op);
  LogicalResult emitScan(pgpu::ScanOp op);
  LogicalResult emitRangeReduce(pgpu::RangeReduceOp op);
  LogicalResult emitScatterReduce(pgpu::ScatterReduceOp op);
  LogicalResult emitRegionFold(pgpu::RegionFoldOp op);
  LogicalResult emitForeach(pgpu::ForeachOp op);
  LogicalResult emitLastProgram(pgpu::LastProgramOp op);
  LogicalResult emitHistogram(pgpu::HistogramOp op);
  /// Histograms whose counts a loop accumulates in a shared array across its iterations (emitFor):
  /// the op adds into the array only. And the carried adds that accumulation replaces (not emitted).
  DenseMap<Operation *, Value> accumulatingHistograms;
  DenseSet<Operation *> accumulated;
  /// The shared array of each count (bins) that loops accumulate in, by symbol: the loops run one
  /// after another (each zeroes it after a barrier and reads it before one), so they share it.
  DenseMap<int64_t, std::string> countArrays;
  /// Loop results whose counts are still in their shared array (a later loop adds to them).
  DenseMap<Value, std::string> countsInShared;
  /// An array too large for the static shared memory is the workgroup's dynamic shared memory: an
  /// extern array whose name ends in `_dynamic<bytes>` (selector::kDynamicSharedSuffix), which the
  /// launcher reads to size the launch; one per kernel.
  Value countArray(int64_t count) {
    int64_t bytes = ((count * 4 + 15) / 16) * 16;
    bool dynamic = bytes > stageLimit() && target.dynamicSharedMemoryBytes() > target.sharedMemoryBytes() &&
                   dynamicSharedBytes == 0;
    std::string symbol = (llvm::Twine(name) + "_counts" + llvm::Twine(count) +
                          (dynamic ? llvm::Twine(kDynamicSharedSuffix) + llvm::Twine(bytes) : llvm::Twine()))
                             .str();
    auto [it, fresh] = countArrays.try_emplace(count, symbol);
    if (fresh) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(module.getBody());
      if (dynamic) {
        dynamicSharedBytes = bytes;
        LLVM::GlobalOp::create(b, loc, LLVM::LLVMArrayType::get(b.getI32Type(), 0), /*isConstant=*/false,
                               LLVM::Linkage::External, it->second, Attribute(), /*alignment=*/16, /*addrSpace=*/3);
      } else {
        sharedBytes += bytes;
        LLVM::GlobalOp::create(b, loc, LLVM::LLVMArrayType::get(b.getI32Type(), count), /*isConstant=*/false,
                               LLVM::Linkage::Internal, it->second, Attribute(), /*alignment=*/16, /*addrSpace=*/3);
      }
    }
    return LLVM::AddressOfOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3), it->second);
  }
  /// The carried counts of `op` that accumulate in shared memory: the carry starts as a splat zero
  /// and each iteration adds one pgpu.histogram of the body (its only use) and yields the sum.
  SmallVector<std::pair<unsigned, pgpu::HistogramOp>> carriedHistograms(pgpu::ForOp op);

  // ---- fragments of rank >= 2: data movement through a shared-memory staging area ----------
  /// Of the static shared memory a workgroup gets, all but 8 KiB (40 KiB of a CTA's 48).
  int64_t stageLimit() const { return target.sharedMemoryBytes() - 8 * 1024; }
  int64_t stageBytes = 0;
  int64_t sharedBytes = 0; // the reductions' and scans' small arrays
  int64_t dynamicSharedBytes = 0; // the extern array of countArray, when one is
  Operation *current = nullptr;
  Type stageType(Type t) { return t.isIndex() ? b.getI64Type() : t.isInteger(1) ? b.getI8Type() : t; }
  Value stagedPointer(Type slotType, int64_t byteOffset, Value linear);
  FailureOr<int64_t> stage(Value fragment, int64_t byteOffset);
  Value readStaged(Type type, int64_t byteOffset, Value linear);
  SmallVector<Value> delinearizeStatic(Value linear, ArrayRef<int64_t> shape);
  Value linearizeStatic(ArrayRef<Value> coords, ArrayRef<int64_t> shape);
  /// This thread's element of slot k (clamped to 0 past the fragment, so reads stay in bounds).
  Value slotElement(pgpu::FragmentType type, int64_t k) {
    Value l = slotIndex(type, k);
    Value exists = slotExists(type, k);
    return exists ? arith::SelectOp::create(b, loc, exists, l, constIndex(0)).getResult() : l;
  }
  /// Whether every element of `fragment` is a pure function of its coordinates (iota, splat,
  /// constants, broadcasts, transposes and pointwise ops of those), so that a move can recompute
  /// it where it is needed instead of exchanging it through shared memory.
  bool recomputable(Value fragment, unsigned depth = 0);
  /// The element of a recomputable fragment at `coords` (index values, one per axis).
  FailureOr<Value> elementAt(Value fragment, ArrayRef<Value> coords);
  LogicalResult emitMove(Operation *op, Value operand, Value result,
                         llvm::function_ref<SmallVector<Value>(ArrayRef<Value>)> sourceCoords);
  LogicalResult emitAxisReduce(pgpu::ReduceOp op);
  LogicalResult emitContract(pgpu::ContractOp op);
};
} // namespace tessel::selector::detail

#endif // TESSEL_LIB_TARGET_SELECTOR_SELECTORIMPL_H
