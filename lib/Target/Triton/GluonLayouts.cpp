//===- GluonLayouts.cpp - distributed layouts for a Gluon spelling --------===//
//
// The rules are in GluonLayouts.h. Propagation only ever turns an automatic
// layout into a concrete one, so the fixpoint over loop carries terminates;
// conversions are read off afterwards, from the settled layouts.
//
//===----------------------------------------------------------------------===//

#include "tessel/Target/Triton/GluonLayouts.h"

#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace tessel::triton::gluon {

namespace {

bool isFragment(Value v) { return isa<pgpu::FragmentType>(v.getType()); }

unsigned rankOf(Value v) { return cast<pgpu::FragmentType>(v.getType()).getRank(); }

/// Ops whose fragment result lays out like their fragment operands.
bool isElementwise(Operation *op) {
  return isa<pgpu::BinaryOp, pgpu::UnaryOp, pgpu::CmpOp, pgpu::SelectOp, pgpu::CastOp, pgpu::BitcastOp>(op);
}

struct Inference {
  llvm::DenseMap<Value, Layout> &layouts;
  /// Each contraction's representative: the first in program order with the same accumulator
  /// extents and operand element type, whose wgmma layouts are the same (instruction shape
  /// [16, N, 256 / operand bits] over the same warps), so carries between them need no conversion.
  llvm::DenseMap<Operation *, Operation *> &representative;
  bool changed = false;

  Layout get(Value v) const { return layouts.lookup(v); }
  void set(Value v, Layout l) {
    if (!isFragment(v) || !l.isConcrete() || get(v).isConcrete())
      return;
    layouts[v] = l;
    changed = true;
  }
  /// The first concrete layout among `values` (fragments only).
  Layout firstConcrete(ValueRange values) const {
    for (Value v : values)
      if (isFragment(v) && get(v).isConcrete())
        return get(v);
    return {};
  }

  void visit(Operation *op) {
    llvm::TypeSwitch<Operation *>(op)
        .Case([&](pgpu::ContractOp c) {
          Operation *k = representative.lookup(c);
          set(c.getResult(), Layout::accumulator(k));
          set(c.getAcc(), Layout::accumulator(k));
          // The right operand is read from shared memory; a transpose feeding it is a view of it there.
          Value rhs = c.getRhs();
          set(rhs, Layout::shared());
          if (auto t = rhs.getDefiningOp<pgpu::TransposeOp>())
            set(t.getOperand(), Layout::shared());
        })
        .Case([&](pgpu::ReduceOp r) {
          if (r.getAxes().size() != 1)
            return;
          for (auto [in, out] : llvm::zip(r.getInputs(), r.getResults())) {
            Layout l = get(in);
            if (l.kind == Layout::Kind::Accumulator)
              set(out, Layout::slice(l.contract, r.getAxes()[0]));
          }
        })
        .Case([&](pgpu::BroadcastOp b) {
          // Operand axis i becomes result axis dims[i]: a slice broadcast back along its own axis.
          Layout l = get(b.getOperand());
          ArrayRef<int64_t> dims = b.getDims();
          if (l.kind != Layout::Kind::Slice || rankOf(b.getResult()) != dims.size() + 1)
            return;
          int64_t added = -1;
          for (int64_t d = 0, e = rankOf(b.getResult()); d < e; ++d)
            if (!llvm::is_contained(dims, d))
              added = d;
          if (added == l.dim && llvm::is_sorted(dims))
            set(b.getResult(), Layout::accumulator(l.contract));
        })
        .Case([&](pgpu::ForOp f) {
          Block &body = f.getBody().front();
          Operation *yield = body.getTerminator();
          for (auto [i, init] : llvm::enumerate(f.getInits())) {
            Value arg = body.getArgument(i + 1), result = f.getResult(i);
            Layout l = firstConcrete({arg, result, init, yield->getOperand(i)});
            set(arg, l);
            set(result, l);
          }
        })
        .Case([&](pgpu::IfOp i) {
          for (auto [n, result] : llvm::enumerate(i.getResults())) {
            SmallVector<Value> yields;
            for (Region *region : {&i.getThenRegion(), &i.getElseRegion()})
              if (!region->empty())
                yields.push_back(region->front().getTerminator()->getOperand(n));
            set(result, firstConcrete(yields));
          }
        })
        .Default([&](Operation *o) {
          if (isElementwise(o) && o->getNumResults() == 1)
            set(o->getResult(0), firstConcrete(o->getOperands()));
        });
  }

  void run(Operation *kernel) {
    // Contractions anchor first: an accumulator operand computed before its contraction (the
    // rescaled output) takes the contraction's layout, not that of whichever operand settles first.
    kernel->walk<WalkOrder::PreOrder>([&](pgpu::ContractOp c) { visit(c); });
    do {
      changed = false;
      kernel->walk<WalkOrder::PreOrder>([&](Operation *op) { visit(op); });
    } while (changed);
  }
};

} // namespace

LayoutPlan LayoutPlan::infer(Operation *kernel) {
  LayoutPlan plan;
  llvm::DenseMap<Operation *, Operation *> representative;
  SmallVector<pgpu::ContractOp> seen;
  kernel->walk<WalkOrder::PreOrder>([&](pgpu::ContractOp c) {
    auto same = [&](pgpu::ContractOp o) {
      return cast<pgpu::FragmentType>(o.getResult().getType()).getExtents() ==
                 cast<pgpu::FragmentType>(c.getResult().getType()).getExtents() &&
             pgpu::elementTypeOf(o.getLhs().getType()) == pgpu::elementTypeOf(c.getLhs().getType());
    };
    auto it = llvm::find_if(seen, same);
    representative[c] = it == seen.end() ? c.getOperation() : it->getOperation();
    if (it == seen.end()) {
      seen.push_back(c);
      plan.contractIndex.try_emplace(c, plan.contractIndex.size());
    }
  });
  Inference inference{plan.layouts, representative};
  inference.run(kernel);
  // A carry the forward pass left automatic takes the layout of an element-wise use whose result
  // settled (attention's "some key seen" flags select between row statistics): it then meets
  // them without a conversion each iteration. Forward again from there, until nothing moves.
  for (bool moved = true; moved;) {
    moved = false;
    kernel->walk([&](Operation *op) {
      if (!isElementwise(op) || op->getNumResults() != 1 || !plan.layouts.lookup(op->getResult(0)).isConcrete())
        return;
      for (Value v : op->getOperands()) {
        auto arg = dyn_cast<BlockArgument>(v);
        if (!arg || !isa<pgpu::ForOp>(arg.getOwner()->getParentOp()) || arg.getArgNumber() == 0 ||
            !isFragment(v) || plan.layouts.lookup(v).isConcrete() ||
            cast<pgpu::FragmentType>(v.getType()).getExtents() !=
                cast<pgpu::FragmentType>(op->getResult(0).getType()).getExtents())
          continue;
        plan.layouts[v] = plan.layouts.lookup(op->getResult(0));
        moved = true;
      }
    });
    if (moved)
      inference.run(kernel);
  }
  // Carries no contraction reaches get a blocked default (Gluon's frontend compares carried types
  // before AutoLayout resolution), and what they feed follows.
  bool defaulted = false;
  kernel->walk([&](Operation *op) {
    auto carries = [&](ValueRange values) {
      for (Value v : values)
        if (isFragment(v) && !plan.layouts.lookup(v).isConcrete()) {
          plan.layouts[v] = Layout::blocked();
          defaulted = true;
        }
    };
    if (auto f = dyn_cast<pgpu::ForOp>(op)) {
      carries(f.getResults());
      carries(f.getBody().front().getArguments().drop_front());
    } else if (auto i = dyn_cast<pgpu::IfOp>(op)) {
      carries(i.getResults());
    }
  });
  if (defaulted)
    inference.run(kernel);

  // Conversions, in program order. A value reaches a use in the use's layout.
  auto need = [&](OpOperand &use, Layout to) {
    Value v = use.get();
    if (!isFragment(v) || !to.isConcrete() || plan.layouts.lookup(v) == to)
      return;
    // An element-wise use of an automatic value resolves it: nothing to spell.
    if (!plan.layouts.lookup(v).isConcrete() && isElementwise(use.getOwner()))
      return;
    // A broadcast of a slice, used once: convert the slice before it (a row or column vector,
    // not the tile), and the broadcast follows.
    if (auto b = v.getDefiningOp<pgpu::BroadcastOp>(); b && v.hasOneUse() && to.kind == Layout::Kind::Accumulator) {
      Layout from = plan.layouts.lookup(b.getOperand());
      if (from.kind == Layout::Kind::Slice && plan.layouts.lookup(v) == Layout::accumulator(from.contract)) {
        Layout moved = Layout::slice(to.contract, from.dim);
        plan.converts.push_back({&b->getOpOperand(0), moved});
        plan.layouts[v] = to;
        return;
      }
    }
    plan.converts.push_back({&use, to});
  };
  kernel->walk<WalkOrder::PreOrder>([&](Operation *op) {
    llvm::TypeSwitch<Operation *>(op)
        .Case([&](pgpu::ContractOp c) {
          Operation *k = representative.lookup(c);
          need(c.getLhsMutable(), Layout::operand(k));
          need(c.getRhsMutable(), Layout::shared());
          need(c.getAccMutable(), Layout::accumulator(k));
        })
        .Case([&](pgpu::ForOp f) {
          Block &body = f.getBody().front();
          Operation *yield = body.getTerminator();
          for (auto [i, init] : llvm::enumerate(f.getInitsMutable())) {
            Layout carried = plan.layouts.lookup(body.getArgument(i + 1));
            need(init, carried);
            need(yield->getOpOperand(i), carried);
          }
        })
        .Case([&](pgpu::IfOp i) {
          for (auto [n, result] : llvm::enumerate(i.getResults()))
            for (Region *region : {&i.getThenRegion(), &i.getElseRegion()})
              if (!region->empty())
                need(region->front().getTerminator()->getOpOperand(n), plan.layouts.lookup(result));
        })
        .Default([&](Operation *o) {
          if (!isElementwise(o) || o->getNumResults() != 1)
            return;
          Layout result = plan.layouts.lookup(o->getResult(0));
          for (OpOperand &use : o->getOpOperands())
            need(use, result);
        });
  });
  return plan;
}

std::string LayoutPlan::describe(const Layout &l) const {
  auto k = [&] { return contractIndex.lookup(l.contract); };
  switch (l.kind) {
  case Layout::Kind::Auto:
    return "auto";
  case Layout::Kind::Accumulator:
    return llvm::formatv("acc(#{0})", k()).str();
  case Layout::Kind::Operand:
    return llvm::formatv("op(#{0})", k()).str();
  case Layout::Kind::Slice:
    return llvm::formatv("slice({0}, #{1})", l.dim, k()).str();
  case Layout::Kind::Shared:
    return "shared";
  case Layout::Kind::Blocked:
    return "blocked";
  }
  return "auto";
}

} // namespace tessel::triton::gluon
