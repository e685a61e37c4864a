//===- InstanceWork.cpp - one point's work spread over program instances ---===//
//
// Helpers of the passes that give one point of an execution group several
// program instances and hand values between them through invocation
// workspace (seed 000 §4.4): pgpu-chain-scans (a region scan's segments),
// pgpu-split-folds (a region fold's segments).
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "ArrivalCounters.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

bool pgpu::sameLaunchValue(Value a, Value b) {
  if (a == b)
    return true;
  Operation *x = a.getDefiningOp(), *y = b.getDefiningOp();
  if (!x || !y || x->getName() != y->getName() || x->getAttrDictionary() != y->getAttrDictionary() ||
      x->getNumOperands() != y->getNumOperands() || x->getNumResults() != 1 || y->getNumResults() != 1 ||
      x->getNumRegions() || y->getNumRegions())
    return false;
  for (auto [p, q] : llvm::zip(x->getOperands(), y->getOperands()))
    if (!sameLaunchValue(p, q))
      return false;
  return true;
}

Value pgpu::buildArrivalTicket(OpBuilder &b, Location loc, Value tickets, ValueRange slot, Value valid,
                               kir::AtomicOrder order) {
  Value one = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 1);
  return AtomicRMWOp::create(b, loc, b.getI32Type(), kir::RMWKind::Add, one, tickets, slot, valid, order,
                             kir::SharingDomain::Invocation);
}

void pgpu::buildArrivalWait(OpBuilder &b, Location loc, Value tickets, ValueRange slot, Value want, Value valid) {
  Value count = CastOp::create(b, loc, b.getI32Type(), want);
  auto wait = WhileOp::create(b, loc, TypeRange{}, ValueRange{});
  OpBuilder::InsertionGuard guard(b);
  b.createBlock(&wait.getBefore());
  Value seen = AtomicLoadOp::create(b, loc, b.getI32Type(), tickets, slot, valid,
                                    kir::AtomicOrder::Acquire, kir::SharingDomain::Invocation);
  ConditionOp::create(b, loc, build::cmp(b, loc, kir::CmpPredicate::LT, seen, count), ValueRange{});
  b.createBlock(&wait.getAfter());
  YieldOp::create(b, loc);
}

bool pgpu::writesMemory(Operation *op) {
  if (isMemoryEffectFree(op))
    return false;
  if (auto iface = dyn_cast<MemoryEffectOpInterface>(op))
    return !iface.onlyHasEffect<MemoryEffects::Read>();
  bool any = false;
  for (Region &r : op->getRegions())
    r.walk([&](Operation *inner) { any |= !isa<YieldOp>(inner) && writesMemory(inner); });
  return any || !op->hasTrait<OpTrait::HasRecursiveMemoryEffects>();
}

Value pgpu::addWorkspace(KernelOp kernel, Location loc, Type element, ArrayRef<Attribute> extents, TypedAttr init) {
  MLIRContext *ctx = element.getContext();
  auto type = BufferType::get(ctx, element, extents, BufferScope::Workspace);
  NamedAttrList attrs;
  attrs.append("pgpu.private", StringAttr::get(ctx, "workspace"));
  if (init)
    attrs.append("pgpu.init", init);
  unsigned at = kernel.getNumArguments();
  kernel.insertArgument(at, type, attrs.getDictionary(ctx), loc);
  return kernel.getBody().getArgument(at);
}

Value pgpu::addZeroedCounters(KernelOp kernel, Location loc, ArrayRef<Attribute> extents) {
  MLIRContext *ctx = kernel.getContext();
  return addWorkspace(kernel, loc, IntegerType::get(ctx, 32), extents, IntegerAttr::get(IntegerType::get(ctx, 32), 0));
}

SmallVector<Value> pgpu::componentCoords(OpBuilder &b, Location loc, ArrayRef<Value> lead, Type component) {
  SmallVector<Value> coords(lead);
  auto f = dyn_cast<FragmentType>(component);
  if (!f)
    return coords;
  auto full = FragmentType::get(b.getContext(), b.getIndexType(), f.getExtents());
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  for (unsigned axis = 0; axis < f.getRank(); ++axis) {
    auto line = FragmentType::get(b.getContext(), b.getIndexType(), {f.getExtents()[axis]});
    Value iota = IotaOp::create(b, loc, line, zero);
    coords.push_back(f.getRank() == 1 ? iota
                                      : BroadcastOp::create(b, loc, full, iota, ArrayRef<int64_t>{int64_t(axis)})
                                            .getResult());
  }
  return coords;
}

void pgpu::guardEffect(Operation *op, Value when) {
  OpBuilder b(op);
  auto g = IfOp::create(b, op->getLoc(), TypeRange{}, when);
  Block *then = b.createBlock(&g.getThenRegion());
  op->moveBefore(then, then->end());
  b.setInsertionPointToEnd(then);
  YieldOp::create(b, op->getLoc());
}

void pgpu::declareParam(KernelOp kernel, ParamAttr param) {
  if (kernel.getParam(param.getName().getValue()))
    return;
  SmallVector<Attribute> params;
  if (ArrayAttr declared = kernel.getParamsAttr())
    params.assign(declared.begin(), declared.end());
  params.push_back(param);
  kernel.setParamsAttr(ArrayAttr::get(kernel.getContext(), params));
}

Value pgpu::hoistLaunchValue(OpBuilder &b, ProgramSpaceOp space, Value v, IRMapping &map) {
  if (map.contains(v))
    return map.lookup(v);
  Operation *def = v.getDefiningOp();
  if (!def || !space->isAncestor(def))
    return v;
  for (Value o : def->getOperands())
    hoistLaunchValue(b, space, o, map);
  return b.clone(*def, map)->getResult(0);
}

Value pgpu::build::bin(OpBuilder &b, Location loc, kir::BinaryKind kind, Value l, Value r) {
  return BinaryOp::create(b, loc, kind, l, r, false, false).getResult();
}

Value pgpu::build::cmp(OpBuilder &b, Location loc, kir::CmpPredicate p, Value l, Value r) {
  return CmpOp::create(b, loc, p, l, r).getResult();
}

Value pgpu::build::index(OpBuilder &b, Location loc, int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }

LaunchSplits pgpu::launchSplits(OpBuilder &b, ProgramSpaceOp space, Location loc, Value lower, Value upper,
                                Value step, StringRef param, IRMapping &map) {
  LaunchSplits s;
  s.lower = hoistLaunchValue(b, space, lower, map);
  s.upper = hoistLaunchValue(b, space, upper, map);
  s.step = hoistLaunchValue(b, space, step, map);
  s.zero = build::index(b, loc, 0);
  s.one = build::index(b, loc, 1);
  Value span = build::bin(b, loc, kir::BinaryKind::Max, build::bin(b, loc, kir::BinaryKind::Sub, s.upper, s.lower),
                          s.zero);
  s.steps = CeilDivOp::create(b, loc, span, s.step).getResult();
  s.param = ParamOp::create(b, loc, b.getIndexType(), param);
  s.splits = build::bin(b, loc, kir::BinaryKind::Max, build::bin(b, loc, kir::BinaryKind::Min, s.param, s.steps),
                        s.one);
  return s;
}
