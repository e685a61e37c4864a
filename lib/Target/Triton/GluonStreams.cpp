//===- GluonStreams.cpp - fold-source streams and the loader slice --------===//
//
// The rules are in GluonStreams.h.
//
//===----------------------------------------------------------------------===//

#include "tessel/Target/Triton/GluonStreams.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace tessel::triton::gluon {

namespace {

bool isFragment(Value v) { return isa<pgpu::FragmentType>(v.getType()); }

/// Whether every use of `v` is the right operand of a contraction.
bool onlyRightOperand(Value v) {
  return !v.use_empty() && llvm::all_of(v.getUses(), [](OpOperand &use) {
    auto c = dyn_cast<pgpu::ContractOp>(use.getOwner());
    return c && use.get() == c.getRhs() && c.getLhs() != c.getRhs();
  });
}

struct Slicer {
  StreamPlan &plan;
  Operation *kernel;
  llvm::SetVector<Operation *> ops;
  llvm::DenseSet<Value> values;

  void refuse(Operation *at, const Twine &why) {
    if (!plan.refusal) {
      plan.refusal = why.str();
      plan.refusedAt = at;
    }
  }

  /// Everything value `v` needs, and the control around its definition.
  void need(Value v) {
    if (!values.insert(v).second)
      return;
    if (isFragment(v)) {
      Operation *at = v.getDefiningOp() ? v.getDefiningOp() : v.getParentBlock()->getParentOp();
      refuse(at, "the loader would need a fragment (a bound, condition or tile origin read from data the "
                 "consumers compute)");
      return;
    }
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      Operation *owner = arg.getOwner()->getParentOp();
      control(owner);
      // A loop's scalar carry: the loader carries it too (its init and yield).
      if (auto f = dyn_cast<pgpu::ForOp>(owner); f && arg.getArgNumber() > 0) {
        unsigned i = arg.getArgNumber() - 1;
        need(f.getInits()[i]);
        need(f.getBody().front().getTerminator()->getOperand(i));
      }
      return;
    }
    Operation *def = v.getDefiningOp();
    operation(def);
    // A branch's scalar result (a later loop's bound where the first tile ran in the branch): what each
    // side yields for it.
    if (auto i = dyn_cast<pgpu::IfOp>(def)) {
      unsigned k = cast<OpResult>(v).getResultNumber();
      for (Region *region : {&i.getThenRegion(), &i.getElseRegion()})
        if (!region->empty())
          need(region->front().getTerminator()->getOperand(k));
    }
  }

  /// `op` and what it needs.
  void operation(Operation *op) {
    if (op == kernel || ops.contains(op))
      return;
    ops.insert(op);
    for (Value operand : op->getOperands())
      need(operand);
    control(op->getParentOp());
  }

  /// A region-holding op around something the loader runs: it runs it too, with what decides how
  /// often (bounds, conditions, extents), not its fragment carries.
  void control(Operation *op) {
    if (!op || op == kernel || ops.contains(op))
      return;
    ops.insert(op);
    llvm::TypeSwitch<Operation *>(op)
        .Case([&](pgpu::ForOp f) {
          need(f.getLower());
          need(f.getUpper());
          need(f.getStep());
        })
        .Case([&](pgpu::IfOp i) { need(i.getCondition()); })
        .Case([&](pgpu::WhileOp w) {
          refuse(w, "a while loop around a stream: the loader cannot replay its condition");
        })
        .Default([&](Operation *o) {
          // Execution groups, the program space: their scalar operands.
          for (Value operand : o->getOperands())
            need(operand);
        });
    control(op->getParentOp());
  }
};

} // namespace

StreamPlan StreamPlan::plan(Operation *kernel) {
  StreamPlan plan;
  kernel->walk<WalkOrder::PreOrder>([&](pgpu::LoadOp load) {
    auto loop = load->getParentOfType<pgpu::ForOp>();
    std::optional<TileAccess> box = matchTileAccess(load);
    if (!loop || !box)
      return;
    Value v = load.getResult();
    Operation *transpose = nullptr;
    if (v.hasOneUse())
      if (auto t = dyn_cast<pgpu::TransposeOp>(*v.getUsers().begin()); t && onlyRightOperand(t.getResult()))
        transpose = t;
    if (!transpose && !onlyRightOperand(v))
      return;
    plan.streams.push_back({load, *box, loop, transpose});
  });
  if (plan.streams.empty())
    return plan;
  Slicer slicer{plan, kernel};
  for (const Stream &s : plan.streams) {
    for (auto [axis, start] : llvm::enumerate(s.box.starts)) {
      if (start)
        slicer.need(start);
      if (s.box.offsets[axis])
        slicer.need(s.box.offsets[axis]);
    }
    slicer.control(s.load->getParentOp());
  }
  // Program order, and no operation of a refused plan.
  if (!plan.refusal)
    kernel->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (slicer.ops.contains(op))
        plan.loader.insert(op);
    });
  return plan;
}

} // namespace tessel::triton::gluon
