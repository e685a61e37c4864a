//===- PGPUOps.cpp - pgpu kernel, program space, control and value ops -----===//

#include "tessel/Dialect/PGPU/IR/PGPU.h"
#include "tessel/Dialect/PGPU/IR/ExactSplit.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"

#include "PGPUVerifyUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "tessel/Dialect/Utils/KernelSyntax.h"
#include "tessel/Dialect/Utils/SiblingRegions.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/InterleavedRange.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;
using namespace tessel::pgpu::checks;

ArrayRef<Attribute> checks::shapeOf(Type type) {
  if (auto fragment = dyn_cast<FragmentType>(type))
    return fragment.getExtents();
  return {};
}

/// A value every program computes alike before it runs: a constant, a declared
/// parameter, or a splat/broadcast of one. Such values may be used from inside
/// closed regions (CSE merges a region's copy with an identical one outside).
static bool isCompileTimeValue(Value v) {
  // A chain of splats and broadcasts down to a constant or parameter; each value once, since op
  // verifiers run before dominance is checked and a malformed chain may close on itself.
  llvm::SmallPtrSet<Value, 4> seen;
  while (seen.insert(v).second) {
    if (matchPattern(v, m_Constant()) || v.getDefiningOp<ParamOp>())
      return true;
    Operation *def = v.getDefiningOp();
    if (!def || !isa<SplatOp, BroadcastOp>(def))
      return false;
    v = def->getOperand(0);
  }
  return false;
}

LogicalResult checks::verifyClosedRegion(Operation *op, Region &region, StringRef name) {
  return verifyRegionClosedOver(op, region, name, isCompileTimeValue);
}

SmallVector<Value> pgpu::inlineBlock(OpBuilder &b, Block &block, ValueRange args) {
  IRMapping map;
  return inlineBlock(b, block, args, map);
}

SmallVector<Value> pgpu::inlineBlock(OpBuilder &b, Block &block, ValueRange args, IRMapping &map) {
  for (auto [arg, v] : llvm::zip(block.getArguments(), args))
    map.map(arg, v);
  for (Operation &op : block.without_terminator())
    b.clone(op, map);
  SmallVector<Value> yields;
  for (Value y : block.getTerminator()->getOperands())
    yields.push_back(map.lookupOrDefault(y));
  return yields;
}

BinaryOp pgpu::singleBinaryCombine(Block &combine) {
  if (combine.getNumArguments() != 2 || combine.getOperations().size() != 2)
    return {};
  auto op = dyn_cast<BinaryOp>(combine.front());
  Value a = combine.getArgument(0), b = combine.getArgument(1);
  if (!op || combine.getTerminator()->getNumOperands() != 1 || combine.getTerminator()->getOperand(0) != op.getResult() ||
      !((op.getLhs() == a && op.getRhs() == b) || (op.getLhs() == b && op.getRhs() == a)))
    return {};
  return op;
}

/// Whether every element of `x` is finite or NaN, never +-inf: a sigmoid or tanh (values in [-1, 1]), a finite
/// constant, or a select of such values (masked weights). Their bf16 parts are then never inf, so the
/// remainders need no guard (a NaN's parts are NaN and its products NaN either way).
static bool neverInfinite(Value x, unsigned depth = 0) {
  if (depth > 4)
    return false;
  if (auto s = x.getDefiningOp<SplatOp>())
    x = s.getOperand();
  FloatAttr constant;
  if (matchPattern(x, m_Constant(&constant)))
    return !constant.getValue().isInfinity();
  if (auto u = x.getDefiningOp<UnaryOp>())
    return u.getKind() == kir::UnaryKind::Sigmoid || u.getKind() == kir::UnaryKind::Tanh;
  if (auto sel = x.getDefiningOp<SelectOp>())
    return neverInfinite(sel.getTrueValue(), depth + 1) && neverInfinite(sel.getFalseValue(), depth + 1);
  return false;
}

SmallVector<Value, 3> pgpu::splitBF16(OpBuilder &b, Location l, Value x) {
  auto type = cast<FragmentType>(x.getType());
  bool guarded = !neverInfinite(x);
  auto narrow = FragmentType::get(b.getContext(), b.getBF16Type(), type.getExtents());
  Value zero = guarded ? SplatOp::create(b, l, type, arith::ConstantOp::create(b, l, b.getF32FloatAttr(0.0f)))
                       : Value();
  auto sub = [&](Value p, Value q) -> Value { return BinaryOp::create(b, l, kir::BinaryKind::Sub, p, q, false, false); };
  SmallVector<Value, 3> parts;
  Value rest = x;
  for (int i = 0; i < 3; ++i) {
    Value part = CastOp::create(b, l, narrow, rest);
    parts.push_back(part);
    if (i == 2)
      break;
    Value back = CastOp::create(b, l, type, part);
    if (!guarded) { // sigmoid attention's weights: no part is inf, the remainder is exact as it is
      rest = sub(rest, back);
      continue;
    }
    Value finite = CmpOp::create(b, l, kir::CmpPredicate::EQ, sub(back, back), zero);
    rest = SelectOp::create(b, l, finite, sub(rest, back), zero);
  }
  return parts;
}

bool pgpu::isZeroConstant(Value v) {
  if (auto s = v.getDefiningOp<SplatOp>())
    v = s.getOperand();
  return matchPattern(v, m_AnyZeroFloat()) || matchPattern(v, m_Zero());
}

static std::optional<int64_t> constantIndexAt(Value v, unsigned depth) {
  APInt value;
  if (matchPattern(v, m_ConstantInt(&value)))
    return value.getSExtValue();
  if (depth > 8)
    return std::nullopt;
  if (auto c = v.getDefiningOp<pgpu::CeilDivOp>()) {
    auto l = constantIndexAt(c.getLhs(), depth + 1), r = constantIndexAt(c.getRhs(), depth + 1);
    if (l && r && *r > 0 && *l >= 0)
      return (*l + *r - 1) / *r;
    return std::nullopt;
  }
  auto bin = v.getDefiningOp<pgpu::BinaryOp>();
  if (!bin || !bin.getType().isIndex())
    return std::nullopt;
  auto l = constantIndexAt(bin.getLhs(), depth + 1), r = constantIndexAt(bin.getRhs(), depth + 1);
  if (!l || !r)
    return std::nullopt;
  switch (bin.getKind()) {
  case kir::BinaryKind::Add: return *l + *r;
  case kir::BinaryKind::Sub: return *l - *r;
  case kir::BinaryKind::Mul: return *l * *r;
  case kir::BinaryKind::Div: return *r > 0 && *l >= 0 ? std::optional<int64_t>(*l / *r) : std::nullopt;
  case kir::BinaryKind::Max: return std::max(*l, *r);
  case kir::BinaryKind::Min: return std::min(*l, *r);
  default: return std::nullopt;
  }
}

std::optional<int64_t> pgpu::constantIndex(Value v) { return constantIndexAt(v, 0); }

std::optional<bool> pgpu::constantBool(Value v) {
  while (auto br = v.getDefiningOp<BroadcastOp>())
    v = br.getOperand();
  if (auto s = v.getDefiningOp<SplatOp>())
    v = s.getOperand();
  APInt bit;
  if (matchPattern(v, m_ConstantInt(&bit)) && bit.getBitWidth() == 1)
    return bit.isOne();
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Kernel
//===----------------------------------------------------------------------===//

ParseResult KernelOp::parse(OpAsmParser &parser, OperationState &result) {
  return parseKernelSignature(parser, result, getFunctionTypeAttrName(result.name), getArgAttrsAttrName(result.name));
}

void KernelOp::print(OpAsmPrinter &p) {
  printKernelSignature(p, *this, {getSymNameAttrName(), getFunctionTypeAttrName(), getArgAttrsAttrName(),
                                  getResAttrsAttrName()});
}

void KernelOp::getAsmBlockArgumentNames(Region &region, OpAsmSetValueNameFn setNameFn) {
  setKernelArgumentNames(*this, region, setNameFn);
}

ParamAttr KernelOp::getParam(StringRef name) {
  if (auto params = getParams())
    for (Attribute a : *params)
      if (auto p = cast<ParamAttr>(a); p.getName() == name)
        return p;
  return {};
}

/// seed 002 §5.3: declared physical parameters have legal domains.
LogicalResult KernelOp::verify() {
  if (!getResultTypes().empty())
    return emitOpError() << "must not return values; results are writes to views";
  if (failed(verifyKernelArgumentNames(*this)))
    return failure();
  llvm::StringSet<> seen;
  if (auto params = getParams()) {
    for (Attribute a : *params) {
      auto p = cast<ParamAttr>(a);
      if (!seen.insert(p.getName().getValue()).second)
        return emitOpError() << "declares parameter '" << p.getName().getValue() << "' twice";
      if (p.getCandidates().empty())
        return emitOpError() << "parameter '" << p.getName().getValue() << "' has an empty candidate domain";
      // Shared parameters are extents, counts and strides: positive. A provider knob may be a switch (0/1).
      for (int64_t c : p.getCandidates())
        if (c < 0 || (c == 0 && !p.getProvider()))
          return emitOpError() << "parameter '" << p.getName().getValue() << "' has a non-positive candidate " << c;
      if (!llvm::is_contained(p.getCandidates(), p.getDefaultValue()))
        return emitOpError() << "parameter '" << p.getName().getValue() << "' default " << p.getDefaultValue()
                             << " is not one of its candidates " << llvm::interleaved_array(p.getCandidates());
    }
  }
  // seed 000 §2: the module carries the external target capabilities.
  if (auto module = (*this)->getParentOfType<ModuleOp>(); module && !module->hasAttr(PGPUDialect::getTargetAttrName()))
    return emitOpError() << "is in a module without a #pgpu.target capability attribute (seed 000 §2)";
  // Argument attributes are ABI facts only: no side records (invariant 12).
  for (unsigned i = 0; i < getNumArguments(); ++i) {
    if (DictionaryAttr attrs = getArgAttrDict(i))
      for (NamedAttribute attr : attrs) {
        StringRef name = attr.getName().getValue();
        if (name != kArgNameAttr && name != PGPUDialect::getPrivateAttrName() && name != "pgpu.init" &&
            name != "pgpu.kept" && name != "kir.range" && name != PGPUDialect::getIndexesAttrName())
          return emitOpError() << "argument #" << i << " carries side record '" << name
                               << "'; arguments hold only ABI facts (invariant 12)";
      }
    // `pgpu.kept`: the kernel returns every element of this workspace it changes to its initial
    // value, so the runtime may keep one filled buffer for the launches of a stream (seed 000 §4.4).
    if (getArgAttr(i, "pgpu.kept")) {
      auto buffer = dyn_cast<BufferType>(getArgumentTypes()[i]);
      if (!buffer || buffer.getScope() != BufferScope::Workspace || !getArgAttr(i, "pgpu.init"))
        return emitOpError() << "argument #" << i
                             << " is marked 'pgpu.kept' but is not invocation workspace with a 'pgpu.init' value";
    }
    if (Attribute indexes = getArgAttr(i, PGPUDialect::getIndexesAttrName())) {
      auto isIntView = [](Type t) { auto v = dyn_cast<ViewType>(t); return v && v.getElementType().isIntOrIndex(); };
      if (!isIntView(getArgumentTypes()[i]))
        return emitOpError() << "argument #" << i << " carries 'pgpu.indexes' but is not an integer view";
      auto entries = dyn_cast<ArrayAttr>(indexes);
      for (Attribute entry : entries ? entries.getValue() : ArrayRef<Attribute>()) {
        auto pair = dyn_cast<ArrayAttr>(entry);
        auto target = pair && pair.size() == 2 ? dyn_cast<IntegerAttr>(pair[0]) : IntegerAttr();
        auto axis = pair && pair.size() == 2 ? dyn_cast<IntegerAttr>(pair[1]) : IntegerAttr();
        auto view = target && target.getInt() >= 0 && target.getInt() < int64_t(getNumArguments())
                        ? dyn_cast<ViewType>(getArgumentTypes()[target.getInt()]) : ViewType();
        if (!view || !axis || axis.getInt() < 0 || axis.getInt() >= int64_t(view.getRank()))
          return emitOpError() << "argument #" << i << " has a 'pgpu.indexes' entry " << entry
                               << " that is not [view argument, axis of it]";
      }
      if (!entries)
        return emitOpError() << "argument #" << i << " has a non-array 'pgpu.indexes'";
    }
    Attribute privateAttr = getArgAttr(i, PGPUDialect::getPrivateAttrName());
    if (privateAttr && !isa<StringAttr>(privateAttr))
      return emitOpError() << "argument #" << i << " has a non-string 'pgpu.private' marker";
  }
  for (auto [i, type] : llvm::enumerate(getArgumentTypes())) {
    auto privateKind = getArgAttrOfType<StringAttr>(i, PGPUDialect::getPrivateAttrName());
    if (isa<ViewType>(type) || type.isIntOrIndexOrFloat()) {
      if (privateKind && isa<ViewType>(type))
        return emitOpError() << "argument #" << i << " is a view marked '" << privateKind.getValue()
                             << "'; views are public ABI and cannot be compiler-private";
      if (privateKind && privateKind.getValue() != "wrapper_scalar")
        return emitOpError() << "scalar argument #" << i << " is marked '" << privateKind.getValue()
                             << "'; a private scalar is a 'wrapper_scalar'";
      continue;
    }
    auto buffer = dyn_cast<BufferType>(type);
    if (buffer && buffer.getScope() == BufferScope::Workspace) {
      if (!privateKind || privateKind.getValue() != "workspace")
        return emitOpError() << "argument #" << i
                             << " is a workspace buffer and must be marked {pgpu.private = \"workspace\"}";
      // The runtime sizes workspace before the launch: every extent must be
      // static, a declared parameter, a view extent or a named LaunchExpr (pgpu.workspace_extent).
      for (Attribute extent : buffer.getExtents()) {
        auto name = dyn_cast<StringAttr>(extent);
        if (!name || getParam(name.getValue()) || workspaceExtent(*this, name.getValue()))
          continue;
        bool viewExtent = llvm::any_of(getArgumentTypes(), [&](Type t) {
          auto view = dyn_cast<ViewType>(t);
          return view && llvm::is_contained(view.getExtents(), Attribute(name));
        });
        if (!viewExtent)
          return emitOpError() << "workspace argument #" << i << " has extent '" << name.getValue()
                               << "', which is neither a declared parameter, a view extent nor a pgpu.workspace_extent; the "
                                  "runtime cannot size it";
      }
      continue;
    }
    return emitOpError() << "argument #" << i << " has type " << type
                         << "; kernel arguments are views, scalars and workspace buffers";
  }
  return success();
}

LogicalResult KernelOp::verifyRegions() { return verifyKernelInvariants(*this); }

//===----------------------------------------------------------------------===//
// ABI metadata and LaunchExpr leaves
//===----------------------------------------------------------------------===//

LogicalResult ParamOp::verify() {
  auto kernel = (*this)->getParentOfType<KernelOp>();
  ParamAttr param = kernel ? kernel.getParam(getName()) : ParamAttr();
  if (!param)
    return emitOpError() << "reads parameter '" << getName() << "', which the kernel does not declare";
  if (param.getProvider())
    return emitOpError() << "reads provider parameter '" << getName() << "' ("
                         << param.getProvider().getValue() << "); provider knobs are not shared program facts";
  return success();
}

static LogicalResult verifyAxisOfView(Operation *op, Value view, int64_t axis) {
  auto type = cast<ViewType>(view.getType());
  if (axis < 0 || axis >= int64_t(type.getRank()))
    return op->emitOpError() << "axis " << axis << " is out of range for " << type;
  return success();
}

WorkspaceExtentOp pgpu::workspaceExtent(KernelOp kernel, StringRef name) {
  for (auto op : kernel.getBody().getOps<WorkspaceExtentOp>())
    if (op.getName() == name)
      return op;
  return {};
}

LogicalResult WorkspaceExtentOp::verify() {
  auto kernel = cast<KernelOp>((*this)->getParentOp());
  Operation *offender = nullptr;
  if (!isLaunchExpr(getSize(), &offender)) {
    InFlightDiagnostic diag = emitOpError() << "sizes workspace with a value that is not a LaunchExpr";
    if (offender)
      diag << ": it depends on '" << offender->getName() << "'";
    return diag << " (seed 000 §3.1: the runtime evaluates it before the launch)";
  }
  if (kernel.getParam(getName()))
    return emitOpError() << "names '" << getName() << "', a declared parameter; a workspace extent symbol is new";
  for (Type t : kernel.getArgumentTypes())
    if (auto view = dyn_cast<ViewType>(t); view && llvm::is_contained(view.getExtents(), getNameAttr()))
      return emitOpError() << "names '" << getName() << "', a view extent; a workspace extent symbol is new";
  if (workspaceExtent(kernel, getName()) != *this)
    return emitOpError() << "binds '" << getName() << "' a second time; each workspace extent symbol is bound once";
  return success();
}

LogicalResult ExtentOp::verify() { return verifyAxisOfView(*this, getView(), getAxis()); }
LogicalResult StrideOp::verify() { return verifyAxisOfView(*this, getView(), getAxis()); }

//===----------------------------------------------------------------------===//
// Program space
//===----------------------------------------------------------------------===//

LogicalResult ProgramSpaceOp::verifyRegions() {
  if (getExtents().empty())
    return emitOpError() << "needs at least one program-space axis";
  // Invariant 10: runtime grid extents never depend on data read after launch.
  for (auto [i, extent] : llvm::enumerate(getExtents())) {
    Operation *offender = nullptr;
    if (!isLaunchExpr(extent, &offender)) {
      InFlightDiagnostic diag = emitOpError() << "extent #" << i << " is not a LaunchExpr";
      if (offender)
        diag << ": it depends on '" << offender->getName() << "'";
      return diag << " (seed 000 §3.1: constants, parameters, ABI scalars and view metadata only)";
    }
  }
  for (auto [i, extent] : llvm::enumerate(getExtents())) {
    APInt constant;
    if (matchPattern(extent, m_ConstantInt(&constant)) && constant.isNegative())
      return emitOpError() << "extent #" << i << " is the negative constant " << constant.getSExtValue();
  }
  // Each segment of the program space is dispatched by exactly one execution group.
  llvm::SmallDenseMap<int64_t, ExecutionGroupOp> segments;
  ExecutionGroupOp duplicate;
  getBody().walk([&](ExecutionGroupOp group) {
    auto [it, inserted] = segments.try_emplace(group.getSegment(), group);
    if (!inserted && !duplicate)
      duplicate = group;
  });
  if (duplicate)
    return duplicate.emitOpError() << "dispatches segment " << duplicate.getSegment()
                                   << ", which another execution group of this program space already dispatches";
  SmallVector<Type> coords(getExtents().size(), IndexType::get(getContext()));
  return verifyRegionSignature(*this, getBody(), "body", coords, {});
}

LogicalResult ExecutionGroupOp::verifyRegions() {
  if (!(*this)->getParentOfType<ProgramSpaceOp>())
    return emitOpError() << "must be inside a pgpu.program_space";
  if (getRoles().size() != getExtents().size())
    return emitOpError() << "names " << getRoles().size() << " roles for " << getExtents().size() << " extents";
  for (auto [i, extent] : llvm::enumerate(getExtents()))
    if (!isLaunchExpr(extent))
      return emitOpError() << "segment extent #" << i << " is not a LaunchExpr";
  SmallVector<Type> coords(getExtents().size(), IndexType::get(getContext()));
  return verifyRegionSignature(*this, getBody(), "body", coords, {});
}

/// The ticket is runtime-zeroed i32 invocation workspace: the count of arrived instances starts at 0
/// on every launch (seed 000 §4.4: a full initial value, set once). The program space's ticket is
/// one element; a ticketed finalization indexes one ticket per coordinate tuple.
LogicalResult LastProgramOp::verifyRegions() {
  auto ticket = cast<BufferType>(getTicket().getType());
  auto arg = dyn_cast<BlockArgument>(getTicket());
  auto kernel = arg ? dyn_cast<KernelOp>(arg.getOwner()->getParentOp()) : KernelOp();
  if (isTicketed()) {
    if (!(*this)->getParentOfType<ExecutionGroupOp>())
      return emitOpError() << "with ticket coordinates must be inside a pgpu.execution_group";
    if (!kernel || ticket.getScope() != BufferScope::Workspace || !ticket.getElementType().isInteger(32) ||
        ticket.getRank() != getCoords().size())
      return emitOpError() << "needs a ticket of i32 invocation workspace of rank " << getCoords().size()
                           << " passed as a kernel argument, got " << ticket;
  } else {
    if (!getCoords().empty())
      return emitOpError() << "with ticket coordinates needs an arrival count";
    if (!isa<ProgramSpaceOp>((*this)->getParentOp()))
      return emitOpError() << "without ticket coordinates must be a child of the pgpu.program_space";
    auto one = ticket.getRank() == 1 ? dyn_cast<IntegerAttr>(ticket.getExtents()[0]) : IntegerAttr();
    if (!kernel || ticket.getScope() != BufferScope::Workspace || !ticket.getElementType().isInteger(32) || !one ||
        one.getInt() != 1)
      return emitOpError() << "needs a ticket of i32 invocation workspace [1] passed as a kernel argument, got "
                           << ticket;
  }
  auto init = kernel.getArgAttrOfType<IntegerAttr>(arg.getArgNumber(), "pgpu.init");
  if (!init || init.getInt() != 0)
    return emitOpError() << "needs its ticket filled with 0 by the runtime ({pgpu.init = 0 : i32})";
  return verifyRegionSignature(*this, getBody(), "body", {}, {});
}

LogicalResult DelinearizeOp::verify() {
  if (getResults().size() != getExtents().size())
    return emitOpError() << "decodes " << getResults().size() << " coordinates with " << getExtents().size()
                         << " extents";
  return success();
}

//===----------------------------------------------------------------------===//
// Control
//===----------------------------------------------------------------------===//

LogicalResult ForOp::verifyRegions() {
  APInt step;
  if (matchPattern(getStep(), m_ConstantInt(&step)) && !step.isStrictlyPositive())
    return emitOpError() << "step must be positive, got the constant " << step.getSExtValue();
  if (getInits().getTypes() != getResults().getTypes())
    return emitOpError() << "initial carries must have the result types";
  SmallVector<Type> args{IndexType::get(getContext())};
  llvm::append_range(args, getInits().getTypes());
  return verifyRegionSignature(*this, getBody(), "body", args, getResults().getTypes());
}

LogicalResult ForeachOp::verifyRegions() {
  return verifyRegionSignature(*this, getBody(), "body", {IndexType::get(getContext())}, {});
}

LogicalResult WhileOp::verifyRegions() {
  Block &before = getBefore().front();
  if (before.getArgumentTypes() != getInits().getTypes())
    return emitOpError() << "'before' region arguments must match the initial carries";
  auto condition = dyn_cast<ConditionOp>(before.getTerminator());
  if (!condition)
    return emitOpError() << "'before' region must end in pgpu.condition";
  if (condition.getArgs().getTypes() != getResults().getTypes())
    return emitOpError() << "pgpu.condition must forward values of the result types";
  return verifyRegionSignature(*this, getAfter(), "do", condition.getArgs().getTypes(), getInits().getTypes());
}

LogicalResult IfOp::verifyRegions() {
  if (failed(verifyRegionSignature(*this, getThenRegion(), "then", {}, getResults().getTypes())))
    return failure();
  if (getElseRegion().empty()) {
    if (!getResults().empty())
      return emitOpError() << "has results and therefore needs an 'else' region";
    return success();
  }
  return verifyRegionSignature(*this, getElseRegion(), "else", {}, getResults().getTypes());
}

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

LogicalResult BinaryOp::verify() {
  return kir::verifyBinarySemantics(*this, getKind(), elementTypeOf(getType()), getApproximate(),
                                    getFlushToZero());
}

/// Integer/index identities and constant arithmetic, so constructed address
/// arithmetic (lo + p * 1, ...) prints as what it means. Floats are never
/// folded here: their numerics belong to the program.
OpFoldResult BinaryOp::fold(FoldAdaptor adaptor) {
  if (!getType().isIntOrIndex())
    return {};
  auto lhs = dyn_cast_or_null<IntegerAttr>(adaptor.getLhs());
  auto rhs = dyn_cast_or_null<IntegerAttr>(adaptor.getRhs());
  kir::BinaryKind kind = getKind();
  auto isValue = [](IntegerAttr a, int64_t v) { return a && a.getValue().getSExtValue() == v; };
  if ((kind == kir::BinaryKind::Add || kind == kir::BinaryKind::Sub) && isValue(rhs, 0))
    return getLhs();
  if (kind == kir::BinaryKind::Add && isValue(lhs, 0))
    return getRhs();
  if ((kind == kir::BinaryKind::Mul || kind == kir::BinaryKind::Div) && isValue(rhs, 1))
    return getLhs();
  if (kind == kir::BinaryKind::Mul && isValue(lhs, 1))
    return getRhs();
  if (!lhs || !rhs || getType().isInteger(1))
    return {};
  APInt a = lhs.getValue(), c = rhs.getValue();
  switch (kind) {
  case kir::BinaryKind::Add: return IntegerAttr::get(getType(), a + c);
  case kir::BinaryKind::Sub: return IntegerAttr::get(getType(), a - c);
  case kir::BinaryKind::Mul: return IntegerAttr::get(getType(), a * c);
  case kir::BinaryKind::Max: return IntegerAttr::get(getType(), a.sgt(c) ? a : c);
  case kir::BinaryKind::Min: return IntegerAttr::get(getType(), a.slt(c) ? a : c);
  default: return {};
  }
}

LogicalResult UnaryOp::verify() {
  return kir::verifyUnarySemantics(*this, getKind(), elementTypeOf(getType()), getApproximate(),
                                   getFlushToZero());
}

LogicalResult SelectOp::verify() {
  Type cond = getCondition().getType();
  if (!elementTypeOf(cond).isInteger(1))
    return emitOpError() << "condition must have i1 elements, got " << cond;
  if (isa<FragmentType>(cond) && shapeOf(cond) != shapeOf(getType()))
    return emitOpError() << "fragment condition " << cond << " must have the shape of " << getType();
  return success();
}

static LogicalResult verifyShapePreserved(Operation *op, Type from, Type to) {
  if (isa<FragmentType>(from) != isa<FragmentType>(to) || shapeOf(from) != shapeOf(to))
    return op->emitOpError() << "must preserve the shape: " << from << " to " << to;
  return success();
}

LogicalResult CastOp::verify() {
  if (getOperand().getType() == getType())
    return emitOpError() << "casts " << getType() << " to itself";
  return verifyShapePreserved(*this, getOperand().getType(), getType());
}

LogicalResult BitcastOp::verify() {
  if (failed(verifyShapePreserved(*this, getOperand().getType(), getType())))
    return failure();
  Type from = elementTypeOf(getOperand().getType()), to = elementTypeOf(getType());
  if (from.isIndex() || to.isIndex() || from.getIntOrFloatBitWidth() != to.getIntOrFloatBitWidth())
    return emitOpError() << "needs element types of equal bit width, got " << from << " and " << to;
  return success();
}

LogicalResult IotaOp::verify() {
  auto type = cast<FragmentType>(getType());
  if (type.getRank() != 1 || !type.getElementType().isIndex())
    return emitOpError() << "result must be a 1-d index fragment, got " << type;
  return success();
}

LogicalResult SplatOp::verify() {
  if (elementTypeOf(getType()) != getOperand().getType())
    return emitOpError() << "result elements must have the operand type " << getOperand().getType();
  return success();
}

LogicalResult BroadcastOp::verify() {
  auto from = cast<FragmentType>(getOperand().getType()), to = cast<FragmentType>(getType());
  ArrayRef<int64_t> dims = getDims();
  if (from.getElementType() != to.getElementType())
    return emitOpError() << "must keep the element type";
  if (dims.size() != from.getRank())
    return emitOpError() << "needs one entry in 'dims' per operand axis (" << from.getRank() << ")";
  for (auto [i, dim] : llvm::enumerate(dims)) {
    if (dim < 0 || dim >= int64_t(to.getRank()) || (i > 0 && dim <= dims[i - 1]))
      return emitOpError() << "'dims' must be strictly increasing result axes, got entry " << dim;
    if (from.getExtents()[i] != to.getExtents()[dim])
      return emitOpError() << "operand axis " << i << " and result axis " << dim << " have different extents";
  }
  return success();
}

LogicalResult ExtractOp::verify() {
  auto type = cast<FragmentType>(getFragment().getType());
  if (getIndices().size() != type.getRank())
    return emitOpError() << "needs one index per fragment axis (" << type.getRank() << ")";
  if (type.getElementType() != getType())
    return emitOpError() << "result must be the element type " << type.getElementType();
  return success();
}

/// The static element count of a fragment type, if every extent is static.
static std::optional<int64_t> staticCount(FragmentType type) {
  int64_t n = 1;
  for (Attribute e : type.getExtents()) {
    auto size = dyn_cast<IntegerAttr>(e);
    if (!size)
      return std::nullopt;
    n *= size.getInt();
  }
  return n;
}

LogicalResult ReshapeOp::verify() {
  auto from = cast<FragmentType>(getOperand().getType()), to = cast<FragmentType>(getType());
  if (from.getElementType() != to.getElementType())
    return emitOpError() << "must keep the element type";
  std::optional<int64_t> a = staticCount(from), b = staticCount(to);
  if (a && b && *a != *b)
    return emitOpError() << "changes the element count from " << *a << " to " << *b;
  if ((!a || !b) && from != to)
    return emitOpError() << "reshapes parameterized extents, which cannot be proven to keep the element count";
  return success();
}

LogicalResult TransposeOp::verify() {
  auto from = cast<FragmentType>(getOperand().getType()), to = cast<FragmentType>(getType());
  ArrayRef<int64_t> perm = getPermutation();
  if (perm.size() != from.getRank() || to.getRank() != from.getRank())
    return emitOpError() << "permutation must have one entry per axis (" << from.getRank() << ")";
  SmallVector<bool> seen(perm.size(), false);
  for (auto [i, p] : llvm::enumerate(perm)) {
    if (p < 0 || p >= int64_t(from.getRank()) || seen[p])
      return emitOpError() << "permutation " << llvm::interleaved_array(perm) << " is not a permutation";
    seen[p] = true;
    if (to.getExtents()[i] != from.getExtents()[p])
      return emitOpError() << "result type " << to << " is not the permuted operand type";
  }
  if (to.getElementType() != from.getElementType())
    return emitOpError() << "must keep the element type";
  return success();
}

LogicalResult JoinOp::verify() {
  auto from = cast<FragmentType>(getLhs().getType());
  SmallVector<Attribute> extents(from.getExtents());
  extents.push_back(IntegerAttr::get(IntegerType::get(getContext(), 64), 2));
  auto expected = FragmentType::get(getContext(), from.getElementType(), extents);
  if (getType() != expected)
    return emitOpError() << "result must be " << expected;
  return success();
}

LogicalResult TupleOp::verify() {
  if (TypeRange(cast<TupleType>(getType()).getTypes()) != getElements().getTypes())
    return emitOpError() << "element types must match " << getType();
  return success();
}

LogicalResult TupleGetOp::verify() {
  auto tuple = cast<TupleType>(getTuple().getType());
  if (getIndex() >= tuple.size())
    return emitOpError() << "index " << getIndex() << " is out of range for " << tuple;
  if (tuple.getType(getIndex()) != getType())
    return emitOpError() << "result type must be " << tuple.getType(getIndex());
  return success();
}

// Ops with several regions parse them through tessel's sibling-region directives
// (SiblingRegions.h): a use in one region of a value defined in a sibling is an
// error, and a failed parse leaves no reference between the regions.
static ParseResult parseWhileRegions(OpAsmParser &parser, Region &before, Region &after, NamedAttrList &attrs) {
  return parseKeywordRegions(parser, {{"", &before}, {"do", &after}}, &attrs);
}
static void printWhileRegions(OpAsmPrinter &printer, Operation *, Region &before, Region &after,
                              DictionaryAttr attrs) {
  printKeywordRegions(printer, {{"", &before}, {"do", &after}}, attrs);
}
static ParseResult parseIfRegions(OpAsmParser &parser, Region &thenRegion, Region &elseRegion,
                                  NamedAttrList &attrs) {
  return parseKeywordRegions(parser, {{"", &thenRegion}, {"else", &elseRegion, /*optional=*/true}}, &attrs);
}
static void printIfRegions(OpAsmPrinter &printer, Operation *, Region &thenRegion, Region &elseRegion,
                           DictionaryAttr attrs) {
  printKeywordRegions(printer, {{"", &thenRegion}, {"else", &elseRegion, /*optional=*/true}}, attrs);
}
static ParseResult parseElementCombineRegions(OpAsmParser &parser, Region &element, Region &combine) {
  return parseKeywordRegions(parser, {{"element", &element}, {"combine", &combine}}, nullptr);
}
static void printElementCombineRegions(OpAsmPrinter &printer, Operation *, Region &element, Region &combine) {
  printKeywordRegions(printer, {{"element", &element}, {"combine", &combine}}, {});
}
static ParseResult parseElementCombineEmitRegions(OpAsmParser &parser, Region &element, Region &combine,
                                                  Region &emit) {
  return parseKeywordRegions(parser, {{"element", &element}, {"combine", &combine}, {"emit", &emit}}, nullptr);
}
static void printElementCombineEmitRegions(OpAsmPrinter &printer, Operation *, Region &element, Region &combine,
                                           Region &emit) {
  printKeywordRegions(printer, {{"element", &element}, {"combine", &combine}, {"emit", &emit}}, {});
}
static ParseResult parseFoldRegions(OpAsmParser &parser, Region &summarize, Region &combine) {
  return parseKeywordRegions(parser, {{"summarize", &summarize}, {"combine", &combine}}, nullptr);
}
static void printFoldRegions(OpAsmPrinter &printer, Operation *, Region &summarize, Region &combine) {
  printKeywordRegions(printer, {{"summarize", &summarize}, {"combine", &combine}}, {});
}
static ParseResult parseScanRegions(OpAsmParser &parser, Region &summarize, Region &combine, Region &apply,
                                    Region &emit) {
  return parseKeywordRegions(
      parser, {{"summarize", &summarize}, {"combine", &combine}, {"apply", &apply}, {"emit", &emit}}, nullptr);
}
static void printScanRegions(OpAsmPrinter &printer, Operation *, Region &summarize, Region &combine, Region &apply,
                             Region &emit) {
  printKeywordRegions(printer,
                      {{"summarize", &summarize}, {"combine", &combine}, {"apply", &apply}, {"emit", &emit}}, {});
}

#define GET_OP_CLASSES
#include "tessel/Dialect/PGPU/IR/PGPUOps.cpp.inc"

pgpu::ForOp pgpu::expandRegionFold(pgpu::RegionFoldOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto loop = pgpu::ForOp::create(b, loc, op.getResultTypes(), op.getLower(), op.getUpper(), op.getStep(),
                                  op.getIdentities());
  Block *body = b.createBlock(&loop.getBody());
  Value begin = body->addArgument(b.getIndexType(), loc);
  SmallVector<Value> acc;
  for (Type t : op.getResultTypes())
    acc.push_back(body->addArgument(t, loc));
  Value next = pgpu::BinaryOp::create(b, loc, kir::BinaryKind::Add, begin, op.getStep(), false, false);
  Value end = pgpu::BinaryOp::create(b, loc, kir::BinaryKind::Min, next, op.getUpper(), false, false);
  SmallVector<Value> summarizeArgs{begin, end};
  llvm::append_range(summarizeArgs, op.getCaptures());
  SmallVector<Value> args(acc);
  llvm::append_range(args, pgpu::inlineBlock(b, op.getSummarize().front(), summarizeArgs));
  SmallVector<Value> merged = pgpu::inlineBlock(b, op.getCombine().front(), args);
  pgpu::YieldOp::create(b, loc, merged);
  op.replaceAllUsesWith(loop.getResults());
  op.erase();
  return loop;
}

/// The captures (by index) that `region`'s accesses read (or write, with
/// `writes`): an effect's value, else the view and buffer operands of the op
/// that has it; null when a target is not one of the captures.
static std::optional<llvm::SmallDenseSet<unsigned>> capturesAccessed(Region &region, unsigned firstCapture,
                                                                     bool writes) {
  llvm::SmallDenseSet<unsigned> out;
  bool known = true;
  auto target = [&](Value v) {
    auto arg = dyn_cast_or_null<BlockArgument>(v);
    if (!arg || arg.getOwner() != &region.front() || arg.getArgNumber() < firstCapture)
      known = false;
    else
      out.insert(arg.getArgNumber() - firstCapture);
  };
  region.walk([&](Operation *op) {
    if (tessel::summarizesBodyEffects(op))
      return; // its effects are its body's, which the walk visits with their ops
    auto iface = dyn_cast<MemoryEffectOpInterface>(op);
    if (!iface) {
      known &= op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() || isMemoryEffectFree(op);
      return;
    }
    SmallVector<MemoryEffects::EffectInstance> effects;
    iface.getEffects(effects);
    for (auto &e : effects) {
      if (writes ? !isa<MemoryEffects::Write>(e.getEffect()) : !isa<MemoryEffects::Read>(e.getEffect()))
        continue;
      if (e.getValue()) {
        target(e.getValue());
        continue;
      }
      bool any = false;
      for (Value v : op->getOperands())
        if (isa<pgpu::ViewType, pgpu::BufferType>(v.getType())) {
          target(v);
          any = true;
        }
      known &= any;
    }
  });
  if (!known)
    return std::nullopt;
  return out;
}

pgpu::ForOp pgpu::expandRegionScan(pgpu::RegionScanOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  unsigned nState = op.getInits().size();
  auto loop = pgpu::ForOp::create(b, loc, op.getFinals().getTypes(), op.getLower(), op.getUpper(), op.getStep(),
                                  op.getInits());
  Block *body = b.createBlock(&loop.getBody());
  Value begin = body->addArgument(b.getIndexType(), loc);
  SmallVector<Value> state;
  for (Type t : op.getFinals().getTypes())
    state.push_back(body->addArgument(t, loc));
  Value next = pgpu::BinaryOp::create(b, loc, kir::BinaryKind::Add, begin, op.getStep(), false, false);
  Value end = pgpu::BinaryOp::create(b, loc, kir::BinaryKind::Min, next, op.getUpper(), false, false);
  SmallVector<Value> summarizeArgs{begin, end}, emitArgs{begin, end};
  llvm::append_range(summarizeArgs, op.getCaptures());
  llvm::append_range(emitArgs, state);
  llvm::append_range(emitArgs, op.getCaptures());
  // Summarize reads only; when emit writes none of what it reads, the segment's transition may be
  // computed first, so that the accesses both make of the segment are adjacent (CSE merges them).
  auto reads = capturesAccessed(op.getSummarize(), 2, /*writes=*/false);
  auto written = capturesAccessed(op.getEmit(), 2 + nState, /*writes=*/true);
  bool summarizeFirst = reads && written && llvm::none_of(*reads, [&](unsigned i) { return written->contains(i); });
  SmallVector<Value> transition;
  if (summarizeFirst)
    transition = pgpu::inlineBlock(b, op.getSummarize().front(), summarizeArgs);
  pgpu::inlineBlock(b, op.getEmit().front(), emitArgs);
  if (!summarizeFirst)
    transition = pgpu::inlineBlock(b, op.getSummarize().front(), summarizeArgs);
  SmallVector<Value> applyArgs(transition);
  llvm::append_range(applyArgs, state);
  SmallVector<Value> advanced = pgpu::inlineBlock(b, op.getApply().front(), applyArgs);
  pgpu::YieldOp::create(b, loc, advanced);
  op.replaceAllUsesWith(loop.getResults());
  op.erase();
  return loop;
}

/// range_reduce -> for %i = lo to hi step 1 iter_args(acc = identity):
///   members = element(i); acc = combine(acc, members)
pgpu::ForOp pgpu::expandRangeReduce(pgpu::RangeReduceOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto loop = pgpu::ForOp::create(b, loc, op.getResultTypes(), op.getLower(), op.getUpper(), one,
                                  op.getIdentities());
  Block *body = b.createBlock(&loop.getBody());
  Value iv = body->addArgument(b.getIndexType(), loc);
  SmallVector<Value> acc;
  for (Type t : op.getResultTypes())
    acc.push_back(body->addArgument(t, loc));
  SmallVector<Value> members = pgpu::inlineBlock(b, op.getElement().front(), {iv});
  SmallVector<Value> args(acc);
  llvm::append_range(args, members);
  SmallVector<Value> next = pgpu::inlineBlock(b, op.getCombine().front(), args);
  pgpu::YieldOp::create(b, loc, next);
  op.replaceAllUsesWith(loop.getResults());
  op.erase();
  return loop;
}

/// range_scan -> for %k = 0 to hi - lo step 1 iter_args(acc = identity):
///   at = lo + k (or hi - 1 - k); next = combine(acc, element(at));
///   emit(at, exclusive ? acc : next); acc = next
pgpu::ForOp pgpu::expandRangeScan(pgpu::RangeScanOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value lo = op.getLower(), hi = op.getUpper();
  Value count = pgpu::BinaryOp::create(b, loc, kir::BinaryKind::Sub, hi, lo, false, false);
  auto loop = pgpu::ForOp::create(b, loc, op.getIdentities().getTypes(), zero, count, one, op.getIdentities());
  Block *body = b.createBlock(&loop.getBody());
  Value k = body->addArgument(b.getIndexType(), loc);
  SmallVector<Value> acc;
  for (Type t : op.getIdentities().getTypes())
    acc.push_back(body->addArgument(t, loc));
  Value at;
  if (op.getReverse()) {
    Value last = pgpu::BinaryOp::create(b, loc, kir::BinaryKind::Sub, hi, one, false, false);
    at = pgpu::BinaryOp::create(b, loc, kir::BinaryKind::Sub, last, k, false, false);
  } else {
    at = pgpu::BinaryOp::create(b, loc, kir::BinaryKind::Add, lo, k, false, false);
  }
  SmallVector<Value> args(acc);
  llvm::append_range(args, pgpu::inlineBlock(b, op.getElement().front(), {at}));
  SmallVector<Value> next = pgpu::inlineBlock(b, op.getCombine().front(), args);
  SmallVector<Value> emitArgs{at};
  llvm::append_range(emitArgs, op.getExclusive() ? acc : next);
  pgpu::inlineBlock(b, op.getEmit().front(), emitArgs);
  pgpu::YieldOp::create(b, loc, next);
  op.erase();
  return loop;
}

void pgpu::narrowParams(KernelOp kernel, ArrayRef<StringRef> names, llvm::function_ref<bool(int64_t)> fits,
                        llvm::function_ref<int64_t(ParamAttr, ArrayRef<int64_t>)> defaultOf, bool keepPasses) {
  std::optional<ArrayAttr> declared = kernel.getParams();
  if (names.empty() || !declared)
    return;
  SmallVector<Attribute> params;
  for (Attribute a : *declared) {
    auto p = cast<ParamAttr>(a);
    SmallVector<int64_t> kept;
    for (int64_t c : p.getCandidates())
      if (fits(c))
        kept.push_back(c);
    if (llvm::is_contained(names, p.getName().getValue()) && !kept.empty() && kept.size() < p.getCandidates().size())
      p = ParamAttr::get(kernel.getContext(), p.getName(), kept, defaultOf(p, kept), p.getProvider(), p.getCovers(),
                         keepPasses ? p.getPasses() : StringAttr());
    params.push_back(p);
  }
  kernel.setParamsAttr(ArrayAttr::get(kernel.getContext(), params));
}

void pgpu::narrowHistogramBins(KernelOp kernel, llvm::function_ref<bool(int64_t)> fits, bool keepPasses) {
  llvm::SetVector<StringRef> bins;
  kernel.walk([&](HistogramOp h) {
    for (Attribute e : cast<FragmentType>(h.getType()).getExtents())
      if (auto name = dyn_cast<StringAttr>(e))
        bins.insert(name.getValue());
  });
  narrowParams(
      kernel, bins.getArrayRef(), fits,
      [](ParamAttr p, ArrayRef<int64_t> kept) { return std::min(p.getDefaultValue(), kept.back()); }, keepPasses);
}
