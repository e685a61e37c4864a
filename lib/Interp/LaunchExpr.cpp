//===- LaunchExpr.cpp - the one LaunchExpr evaluator -----------------------===//

#include "tessel/Interp/LaunchExpr.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::interp;

FailureOr<int64_t> interp::evaluateLaunchExpr(Value value, const LaunchEnv &env) {
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    if (!isa<pgpu::KernelOp>(arg.getOwner()->getParentOp()) || arg.getArgNumber() >= env.args.size())
      return emitError(value.getLoc()) << "LaunchExpr reads a value that is not a kernel argument";
    return env.args[arg.getArgNumber()].scalar.i;
  }
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)))
    return constant.getSExtValue();
  Operation *op = value.getDefiningOp();
  auto eval = [&](Value v) { return evaluateLaunchExpr(v, env); };
  auto viewOf = [&](Value v) -> HostArray * {
    return env.args[cast<BlockArgument>(v).getArgNumber()].view;
  };
  return llvm::TypeSwitch<Operation *, FailureOr<int64_t>>(op)
      .Case<pgpu::ParamOp>([&](pgpu::ParamOp p) -> FailureOr<int64_t> {
        auto it = env.params.find(p.getName());
        if (it == env.params.end())
          return p.emitError() << "parameter '" << p.getName() << "' is not bound";
        return it->second;
      })
      .Case<pgpu::ExtentOp>([&](pgpu::ExtentOp e) -> FailureOr<int64_t> {
        return viewOf(e.getView())->shape[e.getAxis()];
      })
      .Case<pgpu::StrideOp>([&](pgpu::StrideOp s) -> FailureOr<int64_t> {
        return viewOf(s.getView())->strides[s.getAxis()];
      })
      .Case<pgpu::CeilDivOp>([&](pgpu::CeilDivOp c) -> FailureOr<int64_t> {
        FailureOr<int64_t> a = eval(c.getLhs()), b = eval(c.getRhs());
        if (failed(a) || failed(b))
          return failure();
        if (*b <= 0)
          return c.emitError() << "LaunchExpr divides by " << *b;
        return *a >= 0 ? (*a + *b - 1) / *b : -((-*a) / *b);
      })
      .Case<pgpu::BinaryOp>([&](pgpu::BinaryOp b) -> FailureOr<int64_t> {
        FailureOr<int64_t> x = eval(b.getLhs()), y = eval(b.getRhs());
        if (failed(x) || failed(y))
          return failure();
        if (b.getKind() == kir::BinaryKind::Div && *y == 0)
          return b.emitError() << "LaunchExpr divides by zero";
        return applyBinary(b.getKind(), Elem{0, *x}, Elem{0, *y}, b.getType(), {}).i;
      })
      .Case<pgpu::CmpOp>([&](pgpu::CmpOp c) -> FailureOr<int64_t> {
        FailureOr<int64_t> x = eval(c.getLhs()), y = eval(c.getRhs());
        if (failed(x) || failed(y))
          return failure();
        return int64_t(applyCmp(c.getPredicate(), Elem{0, *x}, Elem{0, *y}, c.getLhs().getType()));
      })
      .Case<pgpu::SelectOp>([&](pgpu::SelectOp s) -> FailureOr<int64_t> {
        FailureOr<int64_t> c = eval(s.getCondition());
        if (failed(c))
          return failure();
        return eval(*c ? s.getTrueValue() : s.getFalseValue());
      })
      .Case<pgpu::CastOp>([&](pgpu::CastOp c) -> FailureOr<int64_t> {
        // An integer scalar argument as an extent (a group count G: N x G members): integers and
        // indices only, wrapped to the target's width.
        Type from = c.getOperand().getType(), to = c.getType();
        if (!from.isIntOrIndex() || !to.isIntOrIndex())
          return c.emitError() << "LaunchExpr casts only between integers and indices";
        FailureOr<int64_t> v = eval(c.getOperand());
        if (failed(v))
          return failure();
        unsigned width = to.isIndex() ? 64 : to.getIntOrFloatBitWidth();
        return width >= 64 ? *v : llvm::SignExtend64(uint64_t(*v), width);
      })
      .Default([&](Operation *other) -> FailureOr<int64_t> {
        return other->emitError() << "'" << other->getName() << "' is not part of the LaunchExpr language";
      });
}

FailureOr<llvm::StringMap<int64_t>> interp::bindParams(pgpu::KernelOp kernel,
                                                      const llvm::StringMap<int64_t> &overrides) {
  llvm::StringMap<int64_t> bound;
  if (auto params = kernel.getParams())
    for (Attribute a : *params) {
      auto p = cast<pgpu::ParamAttr>(a);
      bound[p.getName()] = p.getDefaultValue();
    }
  for (const auto &entry : overrides) {
    pgpu::ParamAttr p = kernel.getParam(entry.getKey());
    if (!p)
      return kernel.emitError() << "kernel @" << kernel.getSymName() << " declares no parameter '"
                                << entry.getKey() << "'";
    if (!llvm::is_contained(p.getCandidates(), entry.getValue()))
      return kernel.emitError() << "parameter '" << entry.getKey() << "' = " << entry.getValue()
                                << " is outside its candidate domain";
    bound[entry.getKey()] = entry.getValue();
  }
  return bound;
}
