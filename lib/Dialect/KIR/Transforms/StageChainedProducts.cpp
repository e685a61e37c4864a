//===- StageChainedProducts.cpp - chained contractions become phases ------===//
//
// `A = x x^T; Bm = b*A + c*(A A); y = a*x + Bm x`, written as one kernel-level statement per
// batch member, is a chain of contractions: a later product reads an earlier product's result
// along its reduction axis. Construction realizes a tensor's elements where they are used, so
// every element of the later product replays a whole row of the earlier one (and its operands):
// the chain is built element by element (corpus 340). The same chain written as phases through
// kernel-level buffers (one `kir.parallel` over the batch per product, each writing a
// `kir.buffer` the next one reads) is constructed as waiting segments, each a tiled GEMM
// (issue 41; python/tests/test_phased_products.py). This pass writes the chain in that form.
// It runs before kir-annotate-origins: KIR is immutable once origins are assigned (seed 002 §2.1).
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/KIR/Transforms/Passes.h"

#include "AxisDomains.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

namespace tessel::kir {
#define GEN_PASS_DEF_KIRSTAGECHAINEDPRODUCTS
#include "tessel/Dialect/KIR/Transforms/Passes.h.inc"
} // namespace tessel::kir

using namespace mlir;
using namespace tessel::kir;

namespace {

using DomainMemo = DenseMap<Value, SmallVector<Value>>;

/// `t` without its leading (batch) axis.
RankedTensorType dropLeading(Type t) {
  auto rt = cast<RankedTensorType>(t);
  return RankedTensorType::get(rt.getShape().drop_front(), rt.getElementType());
}

/// The value a contraction operand is cast from (kir.cast chains stripped).
Value uncast(Value v) {
  while (auto c = v.getDefiningOp<CastOp>())
    v = c.getOperand();
  return v;
}

/// Whether `op` is one this pass rewrites per batch member: a view read, a scalar broadcast, a
/// pointwise op or a contraction (no init, no precision change needed).
bool isSliceable(Operation *op) {
  if (auto bc = dyn_cast<BroadcastOp>(op))
    return !isa<RankedTensorType>(bc.getOperand().getType()) && bc.getDims().empty();
  if (auto c = dyn_cast<ContractOp>(op))
    return !c.getInit();
  return isa<LoadOp, BinaryOp, UnaryOp, CastOp>(op);
}

/// The top-level ops of a kernel whose tensor values this pass can slice by a leading batch
/// domain, with that domain; nullopt (and `why`) when the kernel is not in that form.
struct Chain {
  Value batch;                         // the batch domain: every tensor's leading axis
  SmallVector<Operation *> tensorOps;  // in block order
  SmallVector<StoreOp> stores;
  SetVector<Value> staged;             // contraction operands (before casts) computed by a product
};

std::optional<Chain> analyze(KernelOp kernel, std::string &why) {
  Chain chain;
  Block &body = kernel.getBody().front();
  DomainMemo memo;
  // The staged values: an operand of a contraction (its casts stripped) computed from another
  // contraction, read along the outer product's reduction axis (so every element of the outer product
  // would replay a row of it), where pgpu-stage-operands does not stage it already: that pass stages a
  // row operand (reduced along its last axis) computed from views, once per row tile. A column operand
  // (reduced along another axis: A in A A) or an operand whose products themselves read a product
  // (Bm = b*A + c*(A A) in Bm x) is staged here.
  auto productsIn = [](Value v) {
    SmallVector<ContractOp> found;
    SmallVector<Value> work{v};
    DenseSet<Value> seen;
    while (!work.empty()) {
      Value w = work.pop_back_val();
      Operation *def = w.getDefiningOp();
      if (!def || !seen.insert(w).second || !isa<RankedTensorType>(w.getType()))
        continue;
      if (auto c = dyn_cast<ContractOp>(def))
        found.push_back(c);
      for (Value o : def->getOperands())
        work.push_back(o);
    }
    return found;
  };
  for (Operation &op : body) {
    auto outer = dyn_cast<ContractOp>(op);
    if (!outer)
      continue;
    for (auto [operand, reduce] : {std::pair(outer.getLhs(), outer.getLhsReduce()),
                                   std::pair(outer.getRhs(), outer.getRhsReduce())}) {
      Value v = uncast(operand);
      SmallVector<ContractOp> inner = productsIn(v);
      if (inner.empty())
        continue;
      int64_t rank = cast<RankedTensorType>(v.getType()).getRank();
      bool column = llvm::any_of(reduce, [&](int64_t a) { return a != rank - 1; });
      bool nested = llvm::any_of(inner, [&](ContractOp c) {
        return !productsIn(c.getLhs()).empty() || !productsIn(c.getRhs()).empty();
      });
      if (column || nested)
        chain.staged.insert(v);
    }
  }
  if (chain.staged.empty())
    return std::nullopt; // nothing to stage: no remark (every product kernel would carry one)
  for (Operation &op : body) {
    if (op.getNumRegions() || isa<BufferOp, ParallelOp>(op)) {
      why = "the kernel has nested regions or buffers (it is phased by hand or not kernel-level)";
      return std::nullopt;
    }
    if (auto st = dyn_cast<StoreOp>(op)) {
      if (!isa<RankedTensorType>(st.getValue().getType())) {
        why = "a store of a scalar";
        return std::nullopt;
      }
      chain.stores.push_back(st);
      continue;
    }
    bool tensor = llvm::any_of(op.getResultTypes(), [](Type t) { return isa<RankedTensorType>(t); });
    if (!tensor) {
      if (!isPure(&op) && !isa<ExtentOp, DomainOp, ReturnOp>(op)) {
        why = "an op with effects other than tensor reads and stores";
        return std::nullopt;
      }
      continue;
    }
    if (!isSliceable(&op)) {
      why = (Twine("'") + op.getName().getStringRef() + "' is not sliced per batch member").str();
      return std::nullopt;
    }
    chain.tensorOps.push_back(&op);
  }
  // Every tensor has the same leading domain, read nowhere else in its axes; every contraction is
  // batched over exactly that axis; every view access reads the batch at its first coordinate.
  auto leading = [&](Value v) -> bool {
    auto d = domainsOf(v, memo);
    if (!d || d->empty())
      return false;
    if (!chain.batch)
      chain.batch = d->front();
    return d->front() == chain.batch && !llvm::is_contained(ArrayRef<Value>(*d).drop_front(), chain.batch);
  };
  for (Operation *op : chain.tensorOps) {
    if (!leading(op->getResult(0))) {
      why = "a tensor whose leading axis is not the batch (a product's batch axis first in every tensor)";
      return std::nullopt;
    }
    for (Value o : op->getOperands())
      if (isa<RankedTensorType>(o.getType()) && !llvm::is_contained(chain.tensorOps, o.getDefiningOp())) {
        why = "a tensor operand defined outside the kernel's statements";
        return std::nullopt;
      }
    if (auto c = dyn_cast<ContractOp>(op)) {
      if (c.getLhsBatch() != ArrayRef<int64_t>{0} || c.getRhsBatch() != ArrayRef<int64_t>{0}) {
        why = "a contraction not batched over the leading axis of both operands";
        return std::nullopt;
      }
    }
    if (auto ld = dyn_cast<LoadOp>(op)) {
      auto coords = ld.getCoords();
      if (coords.empty() || coords.front() != chain.batch || ld.getValid()) {
        why = "a view read whose first coordinate is not the batch, or a masked read";
        return std::nullopt;
      }
    }
  }
  for (StoreOp st : chain.stores) {
    for (Operation *op : chain.tensorOps)
      if (auto ld = dyn_cast<LoadOp>(op); ld && ld.getView() == st.getView()) {
        why = "a view both read and written (the stores move after every read)";
        return std::nullopt;
      }
    auto coords = st.getCoords();
    if (coords.empty() || coords.front() != chain.batch || st.getValid() ||
        !llvm::is_contained(chain.tensorOps, st.getValue().getDefiningOp())) {
      why = "a store whose first coordinate is not the batch, or a masked store";
      return std::nullopt;
    }
  }
  return chain;
}

/// Clones the ops computing `roots` into the current block of `b` for batch member `member`:
/// view reads at the member, broadcasts and results without the batch axis, contractions unbatched.
/// A staged value already written (in `buffers`) is read back from its buffer.
void cloneSliced(OpBuilder &b, const Chain &chain, ArrayRef<Value> roots, Value member,
                 const DenseMap<Value, Value> &buffers, DomainMemo &memo, IRMapping &map) {
  SetVector<Operation *> need;
  SmallVector<Value> work(roots.begin(), roots.end());
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (map.contains(v))
      continue;
    Operation *def = v.getDefiningOp();
    if (!def || !llvm::is_contained(chain.tensorOps, def) || need.contains(def))
      continue;
    if (buffers.count(v)) {
      SmallVector<Value> coords{member};
      auto d = *domainsOf(v, memo);
      coords.append(d.begin() + 1, d.end());
      map.map(v, BufferLoadOp::create(b, v.getLoc(), dropLeading(v.getType()), buffers.lookup(v), coords).getResult());
      continue;
    }
    need.insert(def);
    for (Value o : def->getOperands())
      work.push_back(o);
  }
  SmallVector<Operation *> ordered(need.begin(), need.end());
  llvm::sort(ordered, [](Operation *x, Operation *y) { return x->isBeforeInBlock(y); });
  for (Operation *op : ordered) {
    Operation *c = b.clone(*op, map);
    c->getResult(0).setType(dropLeading(op->getResult(0).getType()));
    if (auto ld = dyn_cast<LoadOp>(c)) {
      ld->setOperand(1, member); // operand 0 is the view, 1 the first coordinate
    } else if (auto bc = dyn_cast<BroadcastOp>(c)) {
      bc->eraseOperand(1); // the batch domain
    } else if (auto ct = dyn_cast<ContractOp>(c)) {
      auto lower = [](ArrayRef<int64_t> axes) {
        SmallVector<int64_t> out;
        for (int64_t a : axes)
          out.push_back(a - 1);
        return out;
      };
      ct.setLhsReduce(lower(ct.getLhsReduce()));
      ct.setRhsReduce(lower(ct.getRhsReduce()));
      ct.setLhsBatch(ArrayRef<int64_t>{});
      ct.setRhsBatch(ArrayRef<int64_t>{});
    }
  }
}

struct StageChainedProducts : tessel::kir::impl::KIRStageChainedProductsBase<StageChainedProducts> {
  void runOnOperation() override {
    bool remarks = remarksEnabled(getOperation());
    getOperation().walk([&](KernelOp kernel) {
      bool anyContract = false;
      kernel.getBody().front().walk([&](ContractOp) { anyContract = true; });
      if (!anyContract)
        return;
      std::string why;
      std::optional<Chain> chain = analyze(kernel, why);
      if (!chain) {
        if (remarks && !why.empty())
          kernel.emitRemark() << "kir-stage-chained-products: not staged: " << why;
        return;
      }
      Block &body = kernel.getBody().front();
      OpBuilder b(kernel.getContext());
      b.setInsertionPoint(body.getTerminator());
      DomainMemo memo;
      DenseMap<Value, Value> buffers;
      Location loc = kernel.getLoc();
      // One phase per staged value (in program order: a later one reads the earlier ones' buffers),
      // then the stores.
      SmallVector<Value> staged(chain->staged.begin(), chain->staged.end());
      llvm::sort(staged, [](Value x, Value y) { return x.getDefiningOp()->isBeforeInBlock(y.getDefiningOp()); });
      auto phase = [&](Location at, function_ref<void(Value)> fill) {
        auto par = ParallelOp::create(b, at, ValueRange{chain->batch});
        Block *block = b.createBlock(&par.getBody());
        Value member = block->addArgument(b.getIndexType(), chain->batch.getLoc());
        fill(member);
        YieldOp::create(b, at, ValueRange{});
        b.setInsertionPointAfter(par);
      };
      for (Value v : staged) {
        SmallVector<Value> domains = *domainsOf(v, memo);
        b.setInsertionPoint(body.getTerminator());
        Value buffer = BufferOp::create(b, v.getLoc(), BufferType::get(kernel.getContext(), v.getType()), domains,
                                        Value(), true);
        phase(v.getLoc(), [&](Value member) {
          IRMapping map;
          cloneSliced(b, *chain, {v}, member, buffers, memo, map);
          SmallVector<Value> coords{member};
          coords.append(domains.begin() + 1, domains.end());
          BufferStoreOp::create(b, v.getLoc(), map.lookup(v), buffer, coords);
        });
        buffers[v] = buffer;
        if (remarks)
          v.getDefiningOp()->emitRemark()
              << "kir-stage-chained-products: a later contraction reads this product along its reduction axis: "
                 "it is written to a kernel-level buffer per batch member (phase "
              << buffers.size() << " of " << staged.size() + 1 << "), not replayed per element of the reader";
      }
      phase(loc, [&](Value member) {
        IRMapping map;
        SmallVector<Value> roots;
        for (StoreOp st : chain->stores)
          roots.push_back(st.getValue());
        cloneSliced(b, *chain, roots, member, buffers, memo, map);
        for (StoreOp st : chain->stores) {
          Operation *c = b.clone(*st, map);
          c->setOperand(2, member); // value, view, then the first coordinate
        }
      });
      // The kernel-level statements are now the phases' bodies.
      for (StoreOp st : llvm::reverse(chain->stores))
        st->erase();
      for (Operation *op : llvm::reverse(chain->tensorOps)) {
        if (op->use_empty())
          op->erase();
      }
    });
  }
};

} // namespace
