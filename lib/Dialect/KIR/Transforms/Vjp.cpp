//===- Vjp.cpp - reverse-mode differentiation of a kir kernel ---------------===//
//
// kir-vjp rewrites a kernel into its vector-Jacobian product (issue 45): the
// derived kernel reads the forward's inputs and one cotangent view per output
// (`d_<out>`, in the output's place), recomputes the forward (nothing is
// saved), and writes the cotangent `d_<x>` of each chosen input. The
// derivative rules are in VjpRules.cpp; this file rewrites the signature,
// finds the active values, and sweeps each block in reverse.
//
//===----------------------------------------------------------------------===//

#include "Vjp.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "AxisDomains.h"
#include "tessel/Dialect/KIR/Transforms/Passes.h"
#include "tessel/Dialect/Utils/KernelSyntax.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringSet.h"

namespace tessel::kir {
#define GEN_PASS_DEF_KIRVJP
#include "tessel/Dialect/KIR/Transforms/Passes.h.inc"
} // namespace tessel::kir

using namespace mlir;
using namespace tessel::kir;
using tessel::kir::vjp::Adjoints;

namespace {
bool isFloatValue(Value v) { return isa<FloatType>(getElementTypeOrSelf(v.getType())); }

/// A region fold's backward needs three things kir-vjp does not build (issue 45): the fold's final
/// summary saved by the forward (the derivation recomputes, it saves nothing), each slice's cotangent
/// through summarize and combine against that summary (the FlashAttention-2 backward recomputes each
/// slice's probabilities from the saved logsumexp), and a second fold for the sources' cotangents (a
/// source slice is summed over every fold member that read it: attention's dK and dV, a fold over the
/// queries). The refusal names them, and the form that derives today.
LogicalResult refuseRegionFold(Operation *fold) {
  return fold->emitOpError()
         << "kir-vjp: cannot differentiate 'kir.region_fold' yet: its backward needs (1) the fold's final "
            "summary saved by the forward (for an online softmax, each row's maximum and denominator, or its "
            "logsumexp; kir-vjp recomputes and saves nothing), (2) each slice's cotangent through summarize "
            "and combine against that summary, and (3) a second fold over the members for the sources' "
            "cotangents (attention's dK and dV); the same computation written with whole-axis reductions over "
            "the fold's axis (T.max, T.sum, T.contract, no T.region_fold) derives";
}

/// The ABI name of argument `i`.
std::string argName(KernelOp kernel, unsigned i) {
  if (auto name = kernel.getArgAttrOfType<StringAttr>(i, tessel::kArgNameAttr))
    return name.str();
  return "arg" + std::to_string(i);
}

class Derivation {
public:
  Derivation(KernelOp kernel, ArrayRef<std::string> wrt) : kernel(kernel), wrt(wrt.begin(), wrt.end()) {}

  LogicalResult run() {
    if (failed(rewriteSignature()) || failed(findActive()) || failed(seedAndSweep()))
      return failure();
    removeDeadForward();
    return success();
  }

private:
  KernelOp kernel;
  SmallVector<std::string> wrt;
  /// Forward input view argument -> its cotangent output view argument.
  llvm::MapVector<Value, Value> cotangentOf;
  /// The output views, now the cotangents read at each store.
  llvm::DenseSet<Value> outputs;
  llvm::DenseSet<Value> active;

  /// In place: outputs become `d_<out>` inputs, `d_<x>` outputs are appended.
  LogicalResult rewriteSignature() {
    Block &body = kernel.getBody().front();
    SmallVector<Type> types(kernel.getArgumentTypes());
    SmallVector<Attribute> attrs;
    llvm::StringSet<> names;
    for (unsigned i = 0; i < types.size(); ++i) {
      names.insert(argName(kernel, i));
      attrs.push_back(kernel.getArgAttrDict(i) ? Attribute(kernel.getArgAttrDict(i))
                                               : DictionaryAttr::get(kernel.getContext()));
    }
    Builder b(kernel.getContext());
    auto named = [&](unsigned i, StringRef name) {
      NamedAttrList list(cast<DictionaryAttr>(attrs[i]));
      list.set(tessel::kArgNameAttr, b.getStringAttr(name));
      attrs[i] = list.getDictionary(kernel.getContext());
    };
    for (const std::string &x : wrt) {
      // An empty name comes from a stray comma (--wrt=x,w, or --wrt=): said as such, not as a
      // duplicate or a missing argument named ''.
      if (x.empty())
        return kernel.emitOpError() << "kir-vjp: wrt holds an empty name (a stray comma?); name the float "
                                       "input views to differentiate, e.g. wrt=x,w";
      if (llvm::count(wrt, x) > 1)
        return kernel.emitOpError() << "kir-vjp: '" << x << "' is named twice in wrt";
      bool found = false;
      for (unsigned i = 0; i < types.size() && !found; ++i) {
        if (argName(kernel, i) != x)
          continue;
        found = true;
        auto view = dyn_cast<ViewType>(types[i]);
        if (!view || view.getMode() != ViewMode::In || !isa<FloatType>(view.getElementType()))
          return kernel.emitOpError() << "kir-vjp: '" << x
                                      << "' is not a float input view; only those are differentiated";
      }
      if (!found)
        return kernel.emitOpError() << "kir-vjp: no argument named '" << x << "'";
    }
    unsigned forwardArgs = types.size();
    for (unsigned i = 0; i < forwardArgs; ++i) {
      auto view = dyn_cast<ViewType>(types[i]);
      if (!view || view.getMode() == ViewMode::In)
        continue;
      if (view.getMode() == ViewMode::InOut)
        return kernel.emitOpError() << "kir-vjp: inout view '" << argName(kernel, i)
                                    << "' is both read and written; its cotangent is not derived yet";
      std::string name = "d_" + argName(kernel, i);
      if (names.contains(name))
        return kernel.emitOpError() << "kir-vjp: the cotangent name '" << name << "' is already an argument";
      types[i] = ViewType::get(kernel.getContext(), view.getElementType(), view.getExtents(), ViewMode::In);
      body.getArgument(i).setType(types[i]);
      named(i, name);
      outputs.insert(body.getArgument(i));
    }
    for (unsigned i = 0; i < forwardArgs; ++i) {
      if (!llvm::is_contained(wrt, argName(kernel, i)))
        continue;
      std::string name = "d_" + argName(kernel, i);
      if (names.contains(name))
        return kernel.emitOpError() << "kir-vjp: the cotangent name '" << name << "' is already an argument";
      auto view = cast<ViewType>(types[i]);
      types.push_back(ViewType::get(kernel.getContext(), view.getElementType(), view.getExtents(), ViewMode::Out));
      attrs.push_back(DictionaryAttr::get(kernel.getContext()));
      cotangentOf[body.getArgument(i)] = body.addArgument(types.back(), kernel.getLoc());
      named(types.size() - 1, name);
    }
    kernel.setFunctionType(FunctionType::get(kernel.getContext(), types, {}));
    kernel.setArgAttrsAttr(b.getArrayAttr(attrs));
    kernel.setSymName((kernel.getSymName() + "_vjp").str());
    return success();
  }

  /// Active values: floats computed from a read of a differentiated input. An op that
  /// would carry activity through a construct without a rule here is refused at the op.
  LogicalResult findActive() {
    WalkResult walk = kernel.getBody().walk<WalkOrder::PreOrder>([&](Operation *op) -> WalkResult {
      if (auto load = dyn_cast<LoadOp>(op)) {
        if (cotangentOf.contains(load.getView())) {
          active.insert(load.getResult());
          return WalkResult::advance();
        }
      }
      if (isa<GatherOp>(op) && cotangentOf.contains(op->getOperand(0)))
        return op->emitOpError() << "kir-vjp: the cotangent of a gather (a scatter-add) is not derived yet";
      bool activeUse = llvm::any_of(op->getOperands(), [&](Value v) { return active.contains(v); });
      // A value from outside a kir.parallel that feeds its body gets one contribution per iteration.
      // Its cotangent is summed over the members through a kernel-level buffer (sumOverMembers):
      // for a kernel-level value and a kir.parallel in the kernel body; deeper nests are not derived.
      if (auto parallel = op->getParentOfType<ParallelOp>()) {
        for (Value v : op->getOperands())
          if (active.contains(v) && !parallel.getBody().isAncestor(v.getParentRegion()) &&
              (parallel->getParentOp() != kernel.getOperation() ||
               v.getParentBlock() != &kernel.getBody().front()))
            return op->emitOpError()
                   << "kir-vjp: uses a differentiated value defined outside its kir.parallel but inside another "
                      "one; summing its cotangent over the inner parallel's members is not derived yet";
      }
      if (!activeUse)
        return WalkResult::advance();
      // Only kernel and kir.parallel bodies are swept; a differentiated value inside any other region
      // (kir.if, kir.for, region_fold, scan) is refused at that region's op.
      if (Operation *parent = op->getParentOp(); !isa<KernelOp, ParallelOp>(parent))
        return isa<RegionFoldOp>(parent)
                   ? refuseRegionFold(parent)
                   : parent->emitOpError() << "kir-vjp: cannot differentiate '" << parent->getName() << "' yet";
      if (isa<ReduceOp, ScanOp>(op) || op->getNumRegions() == 0) {
        for (Value r : op->getResults())
          if (isFloatValue(r))
            active.insert(r);
        // A reduce's or scan's combine region is closed; its block arguments are not program values.
        return isa<ReduceOp, ScanOp>(op) ? WalkResult::skip() : WalkResult::advance();
      }
      if (isa<RegionFoldOp>(op))
        return refuseRegionFold(op);
      return op->emitOpError() << "kir-vjp: cannot differentiate '" << op->getName() << "' yet";
    });
    return failure(walk.wasInterrupted());
  }

  /// Each store to an output reads that output's cotangent at the same coordinates instead;
  /// then every block is swept in reverse, and each differentiated read writes its cotangent.
  LogicalResult seedAndSweep() {
    // Inner bodies first: a parallel's members sum the cotangents of kernel-level values before the
    // kernel body's sweep reaches those values.
    SmallVector<Block *> blocks;
    kernel.getBody().walk<WalkOrder::PostOrder>([&](Block *block) {
      Operation *parent = block->getParentOp();
      if (isa<KernelOp, ParallelOp>(parent))
        blocks.push_back(block);
    });
    llvm::DenseSet<Value> stored;
    llvm::MapVector<Value, SmallVector<LoadOp>> readsOf;
    for (Block *block : blocks) {
      OpBuilder b(kernel.getContext());
      Adjoints adj{b, active, {}};
      for (Operation &op : llvm::make_early_inc_range(block->without_terminator())) {
        auto store = dyn_cast<StoreOp>(&op);
        if (!store)
          continue;
        if (!outputs.contains(store.getView()))
          return store.emitOpError() << "kir-vjp: writes a view that is not an output";
        if (!stored.insert(store.getView()).second)
          return store.emitOpError() << "kir-vjp: a second store to one output; which write survives is "
                                        "not derived yet";
        b.setInsertionPoint(store);
        Value g = store.getValue();
        if (active.contains(g)) {
          Value fill;
          if (store.getValid())
            fill = arith::ConstantOp::create(b, store.getLoc(), b.getZeroAttr(getElementTypeOrSelf(g.getType())));
          Value read = LoadOp::create(b, store.getLoc(), g.getType(), store.getView(), store.getCoords(),
                                      store.getValid(), fill);
          adj.add(g, read);
        }
        store.erase();
      }
      b.setInsertionPoint(block->getTerminator());
      SmallVector<Operation *> ops;
      for (Operation &op : block->without_terminator())
        ops.push_back(&op);
      for (Operation *op : llvm::reverse(ops)) {
        if (auto load = dyn_cast<LoadOp>(op); load && cotangentOf.contains(load.getView())) {
          readsOf[load.getView()].push_back(load);
          continue;
        }
        if (auto parallel = dyn_cast<ParallelOp>(op)) {
          for (const MemberSum &sum : memberSums.lookup(op)) {
            Value all = sum.buffer ? BufferLoadOp::create(b, parallel.getLoc(), sum.type, sum.buffer, sum.domains)
                                   : lifts[op]->emit(b, sum.g);
            adj.add(sum.value, vjp::sumOver(b, parallel.getLoc(), all,
                                            llvm::to_vector(llvm::seq<int64_t>(0, parallel.getDomains().size()))));
          }
          continue;
        }
        if (llvm::none_of(op->getResults(), [&](Value r) { return adj.get(r); }))
          continue;
        if (failed(vjp::emitAdjoint(op, adj)))
          return failure();
      }
      if (auto parallel = dyn_cast<ParallelOp>(block->getParentOp()); parallel && failed(sumOverMembers(b, parallel, adj)))
        return failure();
      // Reads of one input at the same coordinates (the same SSA operands) write one sum.
      for (auto &[view, loads] : readsOf) {
        LoadOp first;
        Value sum;
        for (LoadOp load : llvm::reverse(loads)) {
          if (load->getBlock() != block)
            continue;
          if (first && !llvm::equal(load.getCoords(), first.getCoords()))
            return load.emitOpError() << "kir-vjp: this input is read at two different coordinate sets; summing "
                                         "their cotangents is a scatter-add, not derived yet";
          if (!first)
            first = load;
          if (Value g = adj.get(load.getResult()))
            sum = sum ? BinaryOp::create(b, load.getLoc(), BinaryKind::Add, sum, g).getResult() : g;
        }
        if (first && failed(writeCotangent(b, first, sum)))
          return failure();
      }
    }
    for (auto &[input, cotangent] : cotangentOf) {
      auto loads = readsOf.lookup(input);
      if (loads.empty()) {
        writeZeros(cotangent);
        continue;
      }
      for (LoadOp load : loads)
        if (load->getBlock() != loads.front()->getBlock())
          return load.emitOpError() << "kir-vjp: this input is read in two blocks (inside and outside a "
                                       "kir.parallel); summing their cotangents is not derived yet";
    }
    return success();
  }

  /// The cotangent of a kernel-level value from one kir.parallel, summed over its members by the kernel
  /// body's sweep. Lifted where it can be (vjp::MemberLift: `g` recomputed at kernel level with the
  /// parallel's axes first, a column sum); else each member writes its contribution to a kernel-level
  /// buffer over (the parallel's domains, the value's axes), which the sweep reads whole (the
  /// first-write buffer of examples/splitk_gemm.py).
  struct MemberSum {
    Value value, g, buffer;
    Type type;
    SmallVector<Value> domains;
  };
  llvm::DenseMap<Operation *, SmallVector<MemberSum>> memberSums;
  llvm::DenseMap<Operation *, std::unique_ptr<vjp::MemberLift>> lifts;
  llvm::DenseMap<Value, SmallVector<Value>> domainMemo;

  LogicalResult sumOverMembers(OpBuilder &b, ParallelOp parallel, Adjoints &adj) {
    SmallVector<std::pair<Value, Value>> outside;
    for (auto &[v, g] : adj.grads)
      if (!parallel.getBody().isAncestor(v.getParentRegion()))
        outside.push_back({v, g});
    // Program order of the values, for a deterministic text.
    llvm::sort(outside, [](const auto &x, const auto &y) {
      Operation *a = x.first.getDefiningOp(), *c = y.first.getDefiningOp();
      if (a == c)
        return cast<OpResult>(x.first).getResultNumber() < cast<OpResult>(y.first).getResultNumber();
      return a->isBeforeInBlock(c);
    });
    auto &lift = lifts[parallel.getOperation()];
    lift = std::make_unique<vjp::MemberLift>(parallel);
    for (auto &[v, g] : outside) {
      if (lift->lifts(g)) {
        lift->keep(g);
        memberSums[parallel.getOperation()].push_back(MemberSum{v, g, Value(), Type(), {}});
        continue;
      }
      std::optional<SmallVector<Value>> axes = domainsOf(v, domainMemo);
      if (!axes)
        return v.getDefiningOp()->emitOpError()
               << "kir-vjp: the axes of this value have no known domains, so its cotangent cannot be summed over "
                  "the members of the kir.parallel that uses it";
      MemberSum sum{v, g, Value(), Type(), SmallVector<Value>(parallel.getDomains())};
      llvm::append_range(sum.domains, *axes);
      SmallVector<int64_t> shape(parallel.getDomains().size(), ShapedType::kDynamic);
      if (auto t = dyn_cast<RankedTensorType>(v.getType()))
        llvm::append_range(shape, t.getShape());
      sum.type = RankedTensorType::get(shape, getElementTypeOrSelf(v.getType()));
      OpBuilder before(parallel);
      sum.buffer = BufferOp::create(before, parallel.getLoc(), BufferType::get(kernel.getContext(), sum.type),
                                    sum.domains, Value(), /*first_write=*/true);
      SmallVector<Value> coords(parallel.getBody().getArguments());
      llvm::append_range(coords, *axes);
      BufferStoreOp::create(b, parallel.getLoc(), g, sum.buffer, coords);
      memberSums[parallel.getOperation()].push_back(sum);
    }
    return success();
  }

  /// An input the kernel never reads (a bias under HAS_BIAS = false) has a zero cotangent: zeros
  /// over the whole view, at kernel level.
  void writeZeros(Value cotangent) {
    auto view = cast<ViewType>(cotangent.getType());
    Location loc = kernel.getLoc();
    OpBuilder b(kernel.getBody().front().getTerminator());
    Value c0 = arith::ConstantOp::create(b, loc, b.getIndexAttr(0));
    SmallVector<Value> domains;
    for (unsigned i = 0; i < view.getRank(); ++i) {
      Value extent = view.getExtentName(i).empty()
                         ? Value(arith::ConstantOp::create(b, loc, b.getIndexAttr(*view.getStaticExtent(i))))
                         : Value(ExtentOp::create(b, loc, b.getIndexType(), view.getExtentName(i)));
      domains.push_back(DomainOp::create(b, loc, c0, extent, b.getI64IntegerAttr(1)));
    }
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(view.getElementType()));
    SmallVector<int64_t> shape(view.getRank(), ShapedType::kDynamic);
    Value zeros = BroadcastOp::create(b, loc, RankedTensorType::get(shape, view.getElementType()), zero, domains,
                                      ArrayRef<int64_t>{});
    StoreOp::create(b, loc, zeros, cotangent, domains, Value());
  }

  /// Stores the cotangent `g` of `load` (zero when nothing reached it) at the read's coordinates.
  LogicalResult writeCotangent(OpBuilder &b, LoadOp load, Value g) {
    if (load.getValid())
      return load.emitOpError() << "kir-vjp: the cotangent of a masked read is not derived yet";
    // Iterations of a kir.parallel must write disjoint cotangents: each read names every
    // enclosing parallel's coordinates directly.
    for (auto parallel = load->getParentOfType<ParallelOp>(); parallel;
         parallel = parallel->getParentOfType<ParallelOp>())
      for (BlockArgument iv : parallel.getBody().getArguments())
        if (!llvm::is_contained(load.getCoords(), iv))
          return load.emitOpError() << "kir-vjp: this read does not index with its kir.parallel's coordinate "
                                       "directly, so iterations would write overlapping cotangents";
    if (!g)
      g = vjp::constantLike(b, load.getLoc(), 0.0, load.getResult());
    StoreOp::create(b, load.getLoc(), g, cotangentOf.lookup(load.getView()), load.getCoords(), Value());
    return success();
  }

  /// The forward values nothing reads any more, and parallels left empty.
  void removeDeadForward() {
    bool changed = true;
    while (changed) {
      changed = false;
      SmallVector<Operation *> dead;
      kernel.getBody().walk<WalkOrder::PostOrder>([&](Operation *op) {
        if (op == kernel.getOperation() || op->hasTrait<OpTrait::IsTerminator>())
          return;
        bool unused = op->getNumResults() > 0 && op->use_empty();
        if ((unused && (isMemoryEffectFree(op) || isa<LoadOp>(op))) ||
            (isa<ParallelOp>(op) && op->getRegion(0).front().getOperations().size() == 1))
          dead.push_back(op);
      });
      for (Operation *op : dead) {
        op->dropAllUses();
        op->erase();
        changed = true;
      }
    }
  }
};

struct KIRVjp : public tessel::kir::impl::KIRVjpBase<KIRVjp> {
  using KIRVjpBase::KIRVjpBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<KernelOp> kernels;
    for (auto kernel : module.getOps<KernelOp>())
      if (kernelName.empty() || kernel.getSymName() == kernelName)
        kernels.push_back(kernel);
    if (kernels.size() != 1) {
      module.emitError() << "kir-vjp: expected one kernel"
                         << (kernelName.empty() ? std::string() : " named '" + kernelName + "'") << ", found "
                         << kernels.size();
      return signalPassFailure();
    }
    if (wrt.empty()) {
      kernels.front().emitOpError() << "kir-vjp: wrt names no input to differentiate with respect to";
      return signalPassFailure();
    }
    if (failed(Derivation(kernels.front(), wrt).run()))
      return signalPassFailure();
  }
};
} // namespace
