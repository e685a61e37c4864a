//===- CuTileSerializer.cpp - spell legalized pgpu as cuTile --------------===//
//
// A thin renderer (tinygrad style, STYLE.md): one linear walk over the
// legalized program with one spelling per op. Every decision (grid, loops,
// validity, fills, accumulators, bound parameters) is already in the IR; the
// provider verifier (CuTileLegalize.cpp) has proven each op spellable, and an
// op it missed is an error at the op, never a fallback (seed 002 §3.7, §5.5).
//
// The module holds, per kernel, a `@ct.kernel` function (views are cuTile
// arrays, which carry their shape and strides) and a Python wrapper that
// checks the ABI with the helpers shared with the Triton wrapper
// (Target/Wrapper.h), evaluates the LaunchExpr grid with the same expressions
// the kernel uses, and launches once with ct.launch.
//
//===----------------------------------------------------------------------===//

#include "BoxAccess.h"
#include "tessel/Target/CuTile/CuTile.h"
#include "tessel/Target/Wrapper.h"
#include "tessel/Target/ZeroDivisor.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace tessel;

namespace {
/// The cuTile dtype of an element type; index is int32 (the wrapper bounds every view's span and
/// index scalar to 32 bits, as the Triton wrapper does).
std::string tileType(Type t) {
  if (t.isF16()) return "ct.float16";
  if (t.isBF16()) return "ct.bfloat16";
  if (t.isF32()) return "ct.float32";
  if (t.isF64()) return "ct.float64";
  if (t.isInteger(1)) return "ct.bool_";
  if (t.isIndex()) return "ct.int32";
  if (auto i = dyn_cast<IntegerType>(t))
    return (i.isUnsigned() ? "ct.uint" : "ct.int") + std::to_string(i.getWidth());
  return "";
}

/// The name cuTile's ArrayConstraint / ScalarConstraint use for a dtype (`<kernel>_ABI`).
std::string dtypeName(Type t) {
  std::string s = tileType(t);
  return s.empty() ? s : s.substr(3);
}

/// A Python literal of a constant attribute (an int, True/False, or a float).
std::string literal(Attribute a) {
  if (auto i = dyn_cast<IntegerAttr>(a)) {
    if (i.getType().isInteger(1))
      return i.getValue().isZero() ? "False" : "True";
    if (i.getType().isIndex())
      return wrapper::indexLaneLiteral(i.getValue().getSExtValue());
    if (auto it = dyn_cast<IntegerType>(i.getType()); it && it.isUnsigned())
      return std::to_string(i.getValue().getZExtValue());
    return std::to_string(i.getValue().getSExtValue());
  }
  return wrapper::floatLiteral(cast<FloatAttr>(a).getValueAsDouble());
}

bool isTrue(Value v) {
  if (auto s = v.getDefiningOp<pgpu::SplatOp>())
    v = s.getOperand();
  return matchPattern(v, m_One());
}

std::string tuple(ArrayRef<std::string> items) {
  return "(" + llvm::join(items, ", ") + (items.size() == 1 ? ",)" : ")");
}

/// `text` as a Python string literal.
std::string pyString(StringRef text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '\\' || c == '"')
      out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string shapeTuple(ArrayRef<int64_t> shape) {
  SmallVector<std::string> items;
  for (int64_t e : shape)
    items.push_back(std::to_string(e));
  return tuple(items);
}

class Serializer {
public:
  Serializer(pgpu::KernelOp kernel, const llvm::StringMap<int64_t> &params, llvm::raw_ostream &os,
             llvm::raw_ostream &helpers)
      : kernel(kernel), params(params), os(os), helpers(helpers) {}
  LogicalResult run();

private:
  std::string name(Value v) {
    auto it = names.find(v);
    if (it != names.end())
      return it->second;
    std::string n = "v" + std::to_string(next++);
    names[v] = n;
    return n;
  }
  void line(int indent, const Twine &text) { *out << std::string(4 * indent, ' ') << text << "\n"; }
  SmallVector<int64_t> shapeOf(Type type) { return cutile::boundShape(type, params); }
  /// The spelling of a value at a use: a name, or a literal for constants (index and i1 constants
  /// stay Python literals, which cuTile types from their use; other constants are typed 0-d tiles).
  std::string expr(Value v);
  /// Like expr, but a constant is always a typed 0-d tile: loop carries and branch results must keep
  /// one dtype through the loop or the join.
  std::string typedExpr(Value v);
  LogicalResult emitBlock(Block &block, int indent);
  LogicalResult emitOp(Operation &op, int indent);
  /// Assigns the values a region yields to `results` (one tuple assignment, so a yield that swaps
  /// carries reads the old values).
  void assignYields(int indent, ValueRange results, ValueRange yields);
  FailureOr<std::string> combineFunction(Region &combine);
  LogicalResult unsupported(Operation *op, StringRef why) {
    return op->emitError() << "the cuTile serializer has no spelling for '" << op->getName() << "': " << why;
  }
  int64_t param(StringRef n) {
    auto it = params.find(n);
    return it != params.end() ? it->second : kernel.getParam(n).getDefaultValue();
  }
  std::optional<std::string> binary(pgpu::BinaryOp b);
  std::optional<std::string> unary(pgpu::UnaryOp u);
  LogicalResult emitBoxLoad(pgpu::LoadOp load, const cutile::BoxAccess &box, int indent);
  LogicalResult emitBoxStore(pgpu::StoreOp store, const cutile::BoxAccess &box, int indent);
  /// The in-kernel spelling of a view extent (a literal for a static axis).
  std::string extentText(Value view, unsigned axis);
  /// `ct.gather(array, coords, mask=valid, padding_value=fill)`; a scalar one (`scalar`: every
  /// coordinate a scalar, a 0-d result) as a one-lane gather reshaped to 0-d.
  std::string gather(StringRef array, ArrayRef<std::string> coords, Value valid, Value fill, bool scalar);

  pgpu::KernelOp kernel;
  const llvm::StringMap<int64_t> &params;
  llvm::raw_ostream &os;
  llvm::raw_ostream &helpers;
  std::string bodyText;
  llvm::raw_string_ostream body{bodyText};
  llvm::raw_string_ostream *out = &body;
  DenseMap<Value, std::string> names;
  unsigned next = 0;
  std::string lastOrigin;
  std::string pickFunction;
  DenseMap<Value, SmallVector<std::string>> workspaceExtents;
  // Uniform guards the wrapper evaluates (launch facts, seed 000 §3.1): each `pgpu.if` whose condition is
  // one becomes a `ct.Constant[bool]` kernel parameter, so cuTile compiles only the branch taken: one
  // variant's shared memory, registers and pipelined loops, not the sum over the variants (the row
  // kernels' single-pass branch beside its multi-pass loops took 220 KB of shared memory). Guard k is
  // kernel parameter `_Gk`. A guard inside another guard's branch is reached only there: the wrapper
  // passes it as False elsewhere (the conjunction of the branches' conditions), and the ABI states the
  // branches, so ahead-of-time compilation enumerates only the combinations a launch can pass.
  struct Guard {
    std::string condition;                  // the host spelling of the pgpu.if's condition
    SmallVector<std::pair<unsigned, bool>> path; // enclosing guards and the branch taken in each
  };
  SmallVector<Guard> guards;
  SmallVector<std::pair<unsigned, bool>> guardPath; // while emitting: the guarded branches around the op
  // Launch facts whose contract-free branch is not compiled (`wrapper::splitsOffContractFreeBranch`): the wrapper
  // refuses a launch that would take it, before launching, with the fact and the author's line.
  struct Refusal {
    std::string condition; // host spelling: true when the launch takes the branch not compiled
    std::string origin;    // the author's line of the `pgpu.if`
  };
  SmallVector<Refusal> refusals;
};
} // namespace

/// Whether `v` has one value through every iteration of `loop` as cuda-tile's code motion sees it:
/// defined outside the loop, or computed inside it by effect-free ops from such values (code motion
/// moves those out of the loop, ahead of their uses; literals such as bound parameters among them).
static bool invariantIn(Value v, Operation *loop) {
  if (!loop->isAncestor(v.getParentBlock()->getParentOp()))
    return true;
  Operation *def = v.getDefiningOp();
  if (!def || def->getNumRegions() || !isMemoryEffectFree(def)) // an induction variable, a carry, a read
    return false;
  return llvm::all_of(def->getOperands(), [&](Value operand) { return invariantIn(operand, loop); });
}

/// Whether `f` is a carrying loop with a bound that varies in a loop enclosing it. cuda-tile 1.7.0's
/// loop-invariant code motion (run before its bytecode is written) decides whether a loop may leave
/// an enclosing loop's body from its carries' initial values and its body alone, not from its
/// start/stop/step: such a loop with an effect-free body and inits from outside is moved ahead of its
/// own bound, and the front end fails (InternalError, KeyError on the bound's name;
/// tileiras 13.4). Code motion never moves an op out of an `if` branch, so
/// the serializer spells these loops under `if lower < upper:`. A loop without carries is dead or has
/// effects (never moved); an invariant bound is moved out ahead of the loop.
static bool boundsVaryInEnclosingLoop(pgpu::ForOp f) {
  if (f.getInits().empty())
    return false;
  for (Operation *up = f->getParentOp(); up && !isa<pgpu::KernelOp>(up); up = up->getParentOp())
    if (isa<pgpu::ForOp, pgpu::ForeachOp>(up))
      for (Value bound : {f.getLower(), f.getUpper(), f.getStep()})
        if (!invariantIn(bound, up))
          return true;
  return false;
}

std::string Serializer::expr(Value v) {
  if (auto c = v.getDefiningOp<arith::ConstantOp>()) {
    if (c.getType().isIndex() || c.getType().isInteger(1))
      return literal(c.getValue());
    return "ct.full((), " + literal(c.getValue()) + ", " + tileType(c.getType()) + ")";
  }
  return name(v);
}

std::string Serializer::typedExpr(Value v) {
  if (auto c = v.getDefiningOp<arith::ConstantOp>())
    return "ct.full((), " + literal(c.getValue()) + ", " + tileType(c.getType()) + ")";
  return expr(v);
}

std::string Serializer::extentText(Value view, unsigned axis) {
  Attribute e = cast<pgpu::ViewType>(view.getType()).getExtents()[axis];
  if (auto size = dyn_cast<IntegerAttr>(e))
    return std::to_string(size.getInt());
  return llvm::formatv("ct.astype({0}.shape[{1}], ct.int32)", name(view), axis).str();
}

// tileiras 13.4 crashes (signal 11) on a 0-d gather whose dtype is that of a 0-d value carried
// through two loops that read memory, the second continuing the first's result (cross_entropy's label
// logit after its blocked row max and sum; linear attention's element-wise branch). The same gather of
// a one-lane tile, reshaped to 0-d, compiles and reads the same element under the same mask and fill,
// so every 0-d gather is spelled so (tileiras 13.4).
std::string Serializer::gather(StringRef array, ArrayRef<std::string> coords, Value valid, Value fill, bool scalar) {
  auto lane = [&](const std::string &x, StringRef dtype) {
    return scalar ? "ct.full((1,), " + x + ", " + dtype.str() + ")" : x;
  };
  SmallVector<std::string> index;
  for (const std::string &c : coords)
    index.push_back(lane(c, "ct.int32"));
  std::string mask = isTrue(valid) ? "" : ", mask=" + lane(expr(valid), "ct.bool_");
  std::string text = "ct.gather(" + array.str() + ", " + tuple(index) + mask + ", padding_value=" + typedExpr(fill) + ")";
  return scalar ? "ct.reshape(" + text + ", ())" : text;
}

void Serializer::assignYields(int indent, ValueRange results, ValueRange yields) {
  if (results.empty())
    return;
  SmallVector<std::string> lhs, rhs;
  for (auto [r, y] : llvm::zip(results, yields))
    lhs.push_back(name(r)), rhs.push_back(typedExpr(y));
  line(indent, llvm::join(lhs, ", ") + " = " + llvm::join(rhs, ", "));
}

/// A combine region as a module-level tile function for ct.reduce and ct.scan: its arguments are
/// the accumulators then the members (cuTile's order), it returns the combined components.
FailureOr<std::string> Serializer::combineFunction(Region &combine) {
  std::string fn = "_" + kernel.getSymName().str() + "_combine" + std::to_string(next++);
  Block &block = combine.front();
  SmallVector<std::string> args;
  for (BlockArgument arg : block.getArguments())
    args.push_back(name(arg));
  llvm::raw_string_ostream *saved = out;
  std::string text;
  llvm::raw_string_ostream stream(text);
  out = &stream;
  line(0, "def " + fn + "(" + llvm::join(args, ", ") + "):");
  std::string savedOrigin = lastOrigin;
  LogicalResult ok = emitBlock(block, 1);
  SmallVector<std::string> results;
  for (Value y : block.getTerminator()->getOperands())
    results.push_back(typedExpr(y));
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

std::optional<std::string> Serializer::binary(pgpu::BinaryOp b) {
  using K = kir::BinaryKind;
  Type type = pgpu::elementTypeOf(b.getType());
  bool isFloat = isa<FloatType>(type);
  std::string l = expr(b.getLhs()), r = expr(b.getRhs());
  switch (b.getKind()) {
  case K::Add: return "(" + l + " + " + r + ")";
  case K::Sub: return "(" + l + " - " + r + ")";
  case K::Mul: return "(" + l + " * " + r + ")";
  case K::Div:
  case K::Rem: {
    if (isFloat && b.getKind() == K::Div) // truediv rounds to nearest by default; APPROX only where KIR allows it (f32)
      return b.getApproximate() && type.isF32() ? "ct.truediv(" + l + ", " + r + ", rounding_mode=ct.RoundingMode.APPROX)"
                                                : "(" + l + " / " + r + ")";
    // Integer and index div/rem floor (KIRDialect.md), as cuTile's // and % do (ct.floordiv, ct.mod:
    // toward -inf, docs/cutile.md); unsigned operands are non-negative, where all rules agree.
    const char *op = b.getKind() == K::Div ? " // " : " % ";
    if (!target::guardsZeroDivisor(b))
      return "(" + l + op + r + ")";
    // A divisor that may be 0 divides as 1 and the result is 0 there (KIR's rule; ZeroDivisor.h): cuTile's
    // // and % are undefined there.
    auto constant = [&](int v) { return "ct.full((), " + std::to_string(v) + ", " + tileType(type) + ")"; };
    std::string isZero = "(" + r + " == " + constant(0) + ")";
    return "ct.where(" + isZero + ", " + constant(0) + ", (" + l + op + "ct.where(" + isZero + ", " + constant(1) +
           ", " + r + ")))";
  }
  // KIR's max/min propagate NaN; max_num/min_num return the other operand (cuTile's default).
  case K::Max: return "ct.maximum(" + l + ", " + r + (isFloat ? ", propagate_nan=True)" : ")");
  case K::Min: return "ct.minimum(" + l + ", " + r + (isFloat ? ", propagate_nan=True)" : ")");
  case K::MaxNum: return "ct.maximum(" + l + ", " + r + ")";
  case K::MinNum: return "ct.minimum(" + l + ", " + r + ")";
  case K::And: return "(" + l + " & " + r + ")";
  case K::Or: return "(" + l + " | " + r + ")";
  case K::Xor: return "(" + l + " ^ " + r + ")";
  case K::Shl: return "(" + l + " << " + r + ")";
  case K::Shr: return "(" + l + " >> " + r + ")";
  default: return std::nullopt;
  }
}

std::optional<std::string> Serializer::unary(pgpu::UnaryOp u) {
  using K = kir::UnaryKind;
  Type type = pgpu::elementTypeOf(u.getType());
  std::string x = expr(u.getOperand());
  bool approx = u.getApproximate() && type.isF32();
  switch (u.getKind()) {
  case K::Neg: return "(-" + x + ")";
  case K::Abs: return "ct.abs(" + x + ")";
  case K::Exp: return "ct.exp(" + x + (approx ? ", rounding_mode=ct.RoundingMode.APPROX)" : ")");
  case K::Exp2: return "ct.exp2(" + x + ")";
  case K::Log: return "ct.log(" + x + ")";
  case K::Log2: return "ct.log2(" + x + ")";
  case K::Sqrt: return "ct.sqrt(" + x + ")";
  // Without {approximate}: the correctly rounded quotient of the correctly rounded root.
  case K::Rsqrt: return approx ? "ct.rsqrt(" + x + ")" : "(1.0 / ct.sqrt(" + x + "))";
  case K::Sigmoid: return "(1.0 / (1.0 + ct.exp(-" + x + ")))";
  case K::Sin: return "ct.sin(" + x + ")";
  case K::Cos: return "ct.cos(" + x + ")";
  case K::Floor: return "ct.floor(" + x + ")";
  case K::Ceil: return "ct.ceil(" + x + ")";
  case K::Not: return type.isInteger(1) ? "ct.where(" + x + ", False, True)" : "ct.bitwise_not(" + x + ")";
  default: return std::nullopt;
  }
}

LogicalResult Serializer::emitBoxLoad(pgpu::LoadOp load, const cutile::BoxAccess &box, int indent) {
  SmallVector<std::string> index;
  SmallVector<int64_t> tileShape, walkedShape;
  SmallVector<int> dims;
  for (auto [extent, start, dim] : llvm::zip(box.extent, box.start, box.dim)) {
    index.push_back(extent == 1 ? expr(start) : "(" + expr(start) + ") // " + std::to_string(extent));
    tileShape.push_back(extent);
    if (dim >= 0)
      walkedShape.push_back(extent), dims.push_back(dim);
  }
  // A box every program reads alike is staged through TMA only where SHARED_TMA says so (CuTile.h).
  bool noTma = box.shared && kernel.getParam(cutile::kSharedTmaParam) && param(cutile::kSharedTmaParam) == 0;
  std::string text = "ct.load(" + name(load.getView()) + ", index=" + tuple(index) + ", shape=" +
                     shapeTuple(tileShape) + (box.padding.empty() ? "" : ", padding_mode=" + box.padding) +
                     (noTma ? ", allow_tma=False" : "") + ")";
  if (walkedShape.size() != tileShape.size())
    text = "ct.reshape(" + text + ", " + shapeTuple(walkedShape) + ")";
  // Tile axis j walks fragment dimension dims[j]: fragment axis i is tile axis perm[i].
  SmallVector<std::string> perm(dims.size());
  bool identity = true;
  for (auto [j, d] : llvm::enumerate(dims))
    perm[d] = std::to_string(j), identity &= int(j) == d;
  if (!identity)
    text = "ct.permute(" + text + ", " + tuple(perm) + ")";
  line(indent, name(load.getResult()) + " = " + text);
  return success();
}

LogicalResult Serializer::emitBoxStore(pgpu::StoreOp store, const cutile::BoxAccess &box, int indent) {
  SmallVector<std::string> index, axes;
  SmallVector<int64_t> tileShape;
  bool identity = true;
  unsigned walked = 0;
  for (auto [extent, start, dim] : llvm::zip(box.extent, box.start, box.dim)) {
    index.push_back(extent == 1 ? expr(start) : "(" + expr(start) + ") // " + std::to_string(extent));
    tileShape.push_back(extent);
    if (dim >= 0)
      identity &= int(walked) == dim, axes.push_back(std::to_string(dim)), ++walked;
  }
  std::string tile = expr(store.getValue());
  if (!identity)
    tile = "ct.permute(" + tile + ", " + tuple(axes) + ")";
  if (walked != tileShape.size())
    tile = "ct.reshape(" + tile + ", " + shapeTuple(tileShape) + ")";
  line(indent, "ct.store(" + name(store.getView()) + ", index=" + tuple(index) + ", tile=" + tile + ")");
  return success();
}

LogicalResult Serializer::emitOp(Operation &op, int indent) {
  // Generated source points back at the KIR origin of what follows.
  if (std::optional<std::string> origin = wrapper::sourceLine(op.getLoc());
      origin && *origin != lastOrigin && !isa<arith::ConstantOp>(op)) {
    line(indent, "# " + *origin);
    lastOrigin = *origin;
  }
  if (std::optional<std::string> issue = cutile::spellingIssue(&op, params))
    return unsupported(&op, *issue);
  auto assign = [&](Value result, const Twine &rhs) { line(indent, name(result) + " = " + rhs); };
  return llvm::TypeSwitch<Operation *, LogicalResult>(&op)
      .Case<arith::ConstantOp>([&](arith::ConstantOp) { return success(); }) // spelled at each use
      .Case<pgpu::ExtentOp>([&](pgpu::ExtentOp e) {
        assign(e.getResult(), extentText(e.getView(), e.getAxis()));
        return success();
      })
      .Case<pgpu::StrideOp>([&](pgpu::StrideOp s) {
        assign(s.getResult(), llvm::formatv("ct.astype({0}.strides[{1}], ct.int32)", name(s.getView()), s.getAxis()).str());
        return success();
      })
      .Case<pgpu::ParamOp>([&](pgpu::ParamOp p) {
        assign(p.getResult(), std::to_string(param(p.getName())));
        return success();
      })
      .Case<pgpu::CeilDivOp>([&](pgpu::CeilDivOp c) {
        assign(c.getResult(), "ct.cdiv(" + expr(c.getLhs()) + ", " + expr(c.getRhs()) + ")");
        return success();
      })
      .Case<pgpu::BinaryOp>([&](pgpu::BinaryOp b) -> LogicalResult {
        std::optional<std::string> text = binary(b);
        if (!text)
          return unsupported(&op, "no cuTile operation with this kind's semantics");
        assign(b.getResult(), *text);
        return success();
      })
      .Case<pgpu::UnaryOp>([&](pgpu::UnaryOp u) -> LogicalResult {
        std::optional<std::string> text = unary(u);
        if (!text)
          return unsupported(&op, "no cuTile function with the required accuracy");
        assign(u.getResult(), *text);
        return success();
      })
      .Case<pgpu::CmpOp>([&](pgpu::CmpOp c) {
        static const char *spell[] = {"==", "!=", "<", "<=", ">", ">="};
        assign(c.getResult(), "(" + expr(c.getLhs()) + " " + spell[static_cast<int>(c.getPredicate())] + " " +
                                  expr(c.getRhs()) + ")");
        return success();
      })
      .Case<pgpu::SelectOp>([&](pgpu::SelectOp s) {
        assign(s.getResult(), "ct.where(" + expr(s.getCondition()) + ", " + typedExpr(s.getTrueValue()) + ", " +
                                  typedExpr(s.getFalseValue()) + ")");
        return success();
      })
      .Case<pgpu::CastOp>([&](pgpu::CastOp c) {
        assign(c.getResult(),
               "ct.astype(" + typedExpr(c.getOperand()) + ", " + tileType(pgpu::elementTypeOf(c.getType())) + ")");
        return success();
      })
      .Case<pgpu::BitcastOp>([&](pgpu::BitcastOp c) {
        assign(c.getResult(),
               "ct.bitcast(" + typedExpr(c.getOperand()) + ", " + tileType(pgpu::elementTypeOf(c.getType())) + ")");
        return success();
      })
      .Case<pgpu::LoadOp, pgpu::GatherOp>([&](auto load) -> LogicalResult {
        if constexpr (std::is_same_v<decltype(load), pgpu::LoadOp>)
          if (std::optional<cutile::BoxAccess> box = cutile::matchBoxAccess(&op, params))
            return emitBoxLoad(load, *box, indent);
        SmallVector<std::string> coords;
        for (Value c : load.getCoords())
          coords.push_back(expr(c));
        assign(load.getResult(), gather(name(load.getView()), coords, load.getValid(), load.getFill(),
                                        !isa<pgpu::FragmentType>(load.getType())));
        return success();
      })
      .Case<pgpu::StoreOp, pgpu::ScatterOp>([&](auto store) -> LogicalResult {
        if constexpr (std::is_same_v<decltype(store), pgpu::StoreOp>)
          if (std::optional<cutile::BoxAccess> box = cutile::matchBoxAccess(&op, params))
            return emitBoxStore(store, *box, indent);
        SmallVector<std::string> coords;
        for (Value c : store.getCoords())
          coords.push_back(expr(c));
        std::string mask = isTrue(store.getValid()) ? "" : ", mask=" + expr(store.getValid());
        line(indent, "ct.scatter(" + name(store.getView()) + ", " + tuple(coords) + ", " + typedExpr(store.getValue()) +
                         mask + ")");
        return success();
      })
      .Case<pgpu::ScatterReduceOp>([&](pgpu::ScatterReduceOp sr) -> LogicalResult {
        // ct.atomic_add has no mask: an invalid member gets a negative (out-of-bounds) first coordinate,
        // which the bounds check skips (no effect, seed 000 §6).
        SmallVector<std::string> coords;
        for (Value c : sr.getCoords())
          coords.push_back(expr(c));
        if (!isTrue(sr.getValid()))
          coords[0] = "ct.where(" + expr(sr.getValid()) + ", " + coords[0] + ", -1)";
        line(indent, "ct.atomic_add(" + name(sr.getView()) + ", " + tuple(coords) + ", " + typedExpr(sr.getValue()) +
                         ", memory_order=ct.MemoryOrder.RELAXED)");
        return success();
      })
      .Case<pgpu::BufferLoadOp, pgpu::BufferStoreOp>([&](auto access) -> LogicalResult {
        // Workspace is a row-major contiguous 1-d array: offset = sum_i c_i * prod_{j > i} extent_j.
        auto extents = workspaceExtents.find(access.getBuffer());
        if (extents == workspaceExtents.end())
          return unsupported(&op, "only workspace buffers (kernel arguments) are spelled");
        std::string offset;
        for (auto [i, c] : llvm::enumerate(access.getCoords())) {
          std::string term = "(" + expr(c) + ")";
          for (const std::string &e : ArrayRef<std::string>(extents->second).drop_front(i + 1))
            term += " * (" + e + ")";
          offset += (i ? " + " : "") + term;
        }
        if (offset.empty())
          offset = "0";
        if constexpr (std::is_same_v<decltype(access), pgpu::BufferLoadOp>) {
          assign(access.getResult(), gather(name(access.getBuffer()), {offset}, access.getValid(), access.getFill(),
                                            !isa<pgpu::FragmentType>(access.getType())));
        } else {
          std::string mask = isTrue(access.getValid()) ? "" : ", mask=" + expr(access.getValid());
          line(indent, "ct.scatter(" + name(access.getBuffer()) + ", (" + offset + ",), " +
                           typedExpr(access.getValue()) + mask + ")");
        }
        return success();
      })
      .Case<pgpu::ExecutionGroupOp>([&](pgpu::ExecutionGroupOp g) -> LogicalResult {
        // Row-major decoding of a non-negative coordinate: floor division is exact here.
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
        Block &b = f.getBody().front();
        // Carries are one variable each: the region argument, the yield and the result.
        for (auto [i, init] : llvm::enumerate(f.getInits()))
          names[b.getArgument(i + 1)] = name(f.getResult(i));
        assignYields(indent, f.getResults(), f.getInits());
        int inner = indent;
        if (boundsVaryInEnclosingLoop(f)) {
          // Exact: the step is positive (the op's contract), so a loop that runs no iteration
          // yields its inits, which the results already hold.
          line(indent, "if " + expr(f.getLower()) + " < " + expr(f.getUpper()) + ":");
          ++inner;
        }
        line(inner, "for " + name(b.getArgument(0)) + " in range(" + expr(f.getLower()) + ", " + expr(f.getUpper()) +
                        ", " + expr(f.getStep()) + "):");
        if (failed(emitBlock(b, inner + 1)))
          return failure();
        assignYields(inner + 1, f.getResults(), b.getTerminator()->getOperands());
        if (b.getOperations().size() == 1 && f.getInits().empty())
          line(inner + 1, "pass");
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
      .Case<pgpu::IfOp>([&](pgpu::IfOp i) -> LogicalResult {
        std::string condition = expr(i.getCondition());
        std::optional<unsigned> guard;
        // In the kernel body only: a combine region is a module-level function without the parameter.
        std::optional<std::string> host;
        if (out == &body && i.getCondition().getType().isInteger(1) && !matchPattern(i.getCondition(), m_Constant()))
          host = wrapper::launchFact(
              i.getCondition(), kernel.getBody().front(), [&](Value x) { return name(x); },
              [&](StringRef n) { return param(n); });
        if (host && wrapper::splitsOffContractFreeBranch(i)) {
          // Only the contracting branch, in line; the wrapper refuses launches taking the other one
          // (under the guards around this `if`: elsewhere the branch is not reached).
          bool keepThen = wrapper::contracts(i.getThenRegion());
          SmallVector<std::string> terms;
          for (auto [outer, taken] : guardPath)
            terms.push_back((taken ? "(" : "not (") + guards[outer].condition + ")");
          terms.push_back((keepThen ? "not (" : "(") + *host + ")");
          refusals.push_back({llvm::join(terms, " and "), wrapper::sourceLine(i.getLoc()).value_or("")});
          Block &kept = keepThen ? i.getThenRegion().front() : i.getElseRegion().front();
          if (failed(emitBlock(kept, indent)))
            return failure();
          assignYields(indent, i.getResults(), kept.getTerminator()->getOperands());
          return success();
        }
        if (host) {
          guard = guards.size();
          condition = "_G" + std::to_string(*guard);
          guards.push_back({*host, guardPath});
        }
        // Emits a branch, inside the guard's path when the condition is one.
        auto branch = [&](Block &block, bool taken) {
          if (guard)
            guardPath.push_back({*guard, taken});
          LogicalResult ok = emitBlock(block, indent + 1);
          if (guard)
            guardPath.pop_back();
          return ok;
        };
        line(indent, "if " + condition + ":");
        Block &thenBlock = i.getThenRegion().front();
        if (failed(branch(thenBlock, true)))
          return failure();
        assignYields(indent + 1, i.getResults(), thenBlock.getTerminator()->getOperands());
        if (thenBlock.getOperations().size() == 1 && i.getNumResults() == 0)
          line(indent + 1, "pass");
        if (!i.getElseRegion().empty()) {
          Block &elseBlock = i.getElseRegion().front();
          if (elseBlock.getOperations().size() == 1 && i.getNumResults() == 0)
            return success();
          line(indent, "else:");
          if (failed(branch(elseBlock, false)))
            return failure();
          assignYields(indent + 1, i.getResults(), elseBlock.getTerminator()->getOperands());
        }
        return success();
      })
      .Case<pgpu::IotaOp>([&](pgpu::IotaOp i) {
        std::string base = expr(i.getBase());
        assign(i.getResult(), "ct.arange(" + std::to_string(shapeOf(i.getType())[0]) + ", dtype=ct.int32)" +
                                  (base == "0" ? "" : " + " + base));
        return success();
      })
      .Case<pgpu::SplatOp>([&](pgpu::SplatOp sp) {
        assign(sp.getResult(), "ct.full(" + shapeTuple(shapeOf(sp.getType())) + ", " + expr(sp.getOperand()) + ", " +
                                   tileType(sp.getOperand().getType()) + ")");
        return success();
      })
      .Case<pgpu::BroadcastOp>([&](pgpu::BroadcastOp br) {
        // Operand axis i is result axis dims[i] (sorted); the other result axes are new (extent 1, then
        // broadcast).
        SmallVector<int64_t> shape = shapeOf(br.getType()), operand = shapeOf(br.getOperand().getType());
        SmallVector<int64_t> expanded(shape.size(), 1);
        for (auto [i, d] : llvm::enumerate(br.getDims()))
          expanded[d] = operand[i];
        std::string x = expr(br.getOperand());
        if (expanded.size() != operand.size())
          x = "ct.reshape(" + x + ", " + shapeTuple(expanded) + ")";
        assign(br.getResult(), "ct.broadcast_to(" + x + ", " + shapeTuple(shape) + ")");
        return success();
      })
      .Case<pgpu::TransposeOp>([&](pgpu::TransposeOp t) {
        SmallVector<std::string> perm;
        for (int64_t p : t.getPermutation())
          perm.push_back(std::to_string(p));
        assign(t.getResult(), "ct.permute(" + expr(t.getOperand()) + ", " + tuple(perm) + ")");
        return success();
      })
      .Case<pgpu::ContractOp>([&](pgpu::ContractOp c) {
        // [M, K] x [K, N] + [M, N], the form and dtypes checked by the provider verifier.
        assign(c.getResult(), "ct.mma(" + expr(c.getLhs()) + ", " + expr(c.getRhs()) + ", " + expr(c.getAcc()) + ")");
        return success();
      })
      .Case<pgpu::ReduceOp>([&](pgpu::ReduceOp r) -> LogicalResult {
        FailureOr<std::string> fn = combineFunction(r.getCombine());
        if (failed(fn))
          return failure();
        SmallVector<std::string> inputs, results, identities;
        for (Value v : r.getInputs())
          inputs.push_back(expr(v));
        for (Value v : r.getResults())
          results.push_back(name(v));
        for (Value v : r.getIdentities())
          identities.push_back(literal(v.getDefiningOp<arith::ConstantOp>().getValue()));
        bool one = inputs.size() == 1;
        line(indent, llvm::join(results, ", ") + " = ct.reduce(" + (one ? inputs[0] : tuple(inputs)) + ", " +
                         std::to_string(r.getAxes()[0]) + ", " + *fn + ", " +
                         (one ? identities[0] : tuple(identities)) + ")");
        return success();
      })
      .Case<pgpu::ScanOp>([&](pgpu::ScanOp sc) -> LogicalResult {
        FailureOr<std::string> fn = combineFunction(sc.getCombine());
        if (failed(fn))
          return failure();
        SmallVector<std::string> inputs, results, identities, carries;
        for (Value v : sc.getInputs())
          inputs.push_back(expr(v));
        for (Value v : sc.getResults())
          results.push_back(name(v));
        for (Value v : sc.getIdentities())
          identities.push_back(literal(v.getDefiningOp<arith::ConstantOp>().getValue()));
        bool one = inputs.size() == 1;
        std::string lhs = llvm::join(results, ", ");
        line(indent, lhs + " = ct.scan(" + (one ? inputs[0] : tuple(inputs)) + ", " + std::to_string(sc.getAxis()) +
                         ", " + *fn + ", " + (one ? identities[0] : tuple(identities)) +
                         (sc.getReverse() ? ", reverse=True)" : ")"));
        if (sc.getCarries().empty())
          return success();
        // The carry enters before the first member: combine(carry, prefix) lane-wise.
        for (Value v : sc.getCarries())
          carries.push_back(expr(v));
        line(indent, lhs + " = " + *fn + "(" + llvm::join(carries, ", ") + ", " + lhs + ")");
        return success();
      })
      .Case<pgpu::ExtractOp>([&](pgpu::ExtractOp e) -> LogicalResult {
        // Exact for every value (NaN, -0.0): a reduction that keeps the selected lane.
        Type element = pgpu::elementTypeOf(e.getType());
        if (pickFunction.empty()) {
          pickFunction = "_" + kernel.getSymName().str() + "_pick";
          helpers << "\n\ndef " << pickFunction << "(a, fa, b, fb):\n"
                  << "    return ct.where(fa != 0, a, b), fa | fb\n";
        }
        std::string zero = element.isInteger(1) ? "False" : isa<FloatType>(element) ? "0.0" : "0";
        std::string lanes = std::to_string(shapeOf(e.getFragment().getType())[0]);
        line(indent, name(e.getResult()) + ", _ = ct.reduce((" + expr(e.getFragment()) + ", ct.astype(ct.arange(" +
                         lanes + ", dtype=ct.int32) == " + expr(e.getIndices()[0]) + ", ct.int32)), 0, " +
                         pickFunction + ", (" + zero + ", 0))");
        return success();
      })
      .Default([&](Operation *other) { return unsupported(other, "not supported by this serializer yet"); });
}

LogicalResult Serializer::run() {
  Block &entry = kernel.getBody().front();
  std::string kname = kernel.getSymName().str();
  SmallVector<std::string> kernelParams, launchArgs, positional, keywords, checks, casts, abi, allocations;
  SmallVector<std::pair<std::string, bool>> viewNames; // (name, written)
  SmallVector<BlockArgument> workspaces;
  std::string firstView;
  for (auto [i, arg] : llvm::enumerate(entry.getArguments())) {
    auto abiName = kernel.getArgAttrOfType<StringAttr>(i, "kir.name");
    std::string n = abiName ? abiName.str() : "arg" + std::to_string(i);
    names[arg] = n;
    kernelParams.push_back(n);
    if (auto view = dyn_cast<pgpu::ViewType>(arg.getType())) {
      std::string dtype = wrapper::torchType(view.getElementType());
      if (dtype.empty())
        return kernel.emitError() << "the cuTile wrapper has no torch dtype for " << view.getElementType();
      launchArgs.push_back(n);
      positional.push_back(n);
      SmallVector<std::string> extents;
      for (Attribute e : view.getExtents())
        extents.push_back(isa<StringAttr>(e) ? "'" + cast<StringAttr>(e).str() + "'"
                                             : std::to_string(cast<IntegerAttr>(e).getInt()));
      checks.push_back(llvm::formatv("_check_view('{0}', {0}, {1}, {2}, _extents, _device{3})", n, dtype,
                                     tuple(extents), view.isWritable() ? ", writes=True" : "")
                           .str());
      viewNames.push_back({n, view.isWritable()});
      if (firstView.empty())
        firstView = n;
      abi.push_back(llvm::formatv("('view', '{0}', {1})", dtypeName(view.getElementType()), view.getRank()).str());
    } else if (arg.getType().isIntOrIndexOrFloat()) {
      launchArgs.push_back(n);
      keywords.push_back(n);
      // Index scalars are int32 in the kernel (like every coordinate), so the wrapper bounds them so.
      Type checked = arg.getType().isIndex() ? IntegerType::get(kernel.getContext(), 32) : arg.getType();
      auto [kind, bounds] = wrapper::scalarCheck(checked);
      checks.push_back(
          llvm::formatv("_check_scalar('{0}', {0}, {1}{2})", n, kind, bounds.empty() ? "" : ", " + bounds).str());
      // cuTile types a Python scalar from its value: the kernel converts it to the declared type.
      casts.push_back(n + " = ct.astype(" + n + ", " + tileType(arg.getType()) + ")");
      abi.push_back(llvm::formatv("('scalar', '{0}')", dtypeName(arg.getType())).str());
    } else {
      // Invocation workspace (seed 000 §2): a compiler-private 1-d array the wrapper allocates per call.
      auto buffer = cast<pgpu::BufferType>(arg.getType());
      if (wrapper::torchType(buffer.getElementType()).empty())
        return kernel.emitError() << "the cuTile wrapper has no torch dtype for " << buffer.getElementType();
      launchArgs.push_back("_ws_" + n);
      workspaces.push_back(arg);
      abi.push_back(llvm::formatv("('workspace', '{0}', 1)", dtypeName(buffer.getElementType())).str());
    }
  }
  // Workspace sizes: static extents, bound parameters, or shape symbols (their first view's extent).
  for (BlockArgument arg : workspaces) {
    auto buffer = cast<pgpu::BufferType>(arg.getType());
    if (firstView.empty())
      return kernel.emitError() << "the cuTile wrapper allocates workspace on the device of a view argument; "
                                   "this kernel has none";
    SmallVector<std::string> host, device;
    for (Attribute e : buffer.getExtents()) {
      if (auto size = dyn_cast<IntegerAttr>(e)) {
        host.push_back(std::to_string(size.getInt()));
        device.push_back(host.back());
        continue;
      }
      StringRef symbol = cast<StringAttr>(e).getValue();
      if (kernel.getParam(symbol)) {
        host.push_back(std::to_string(param(symbol)));
        device.push_back(host.back());
        continue;
      }
      bool found = false;
      for (BlockArgument view : entry.getArguments())
        if (auto type = dyn_cast<pgpu::ViewType>(view.getType()))
          for (auto [axis, ve] : llvm::enumerate(type.getExtents()))
            if (!found && ve == e) {
              host.push_back(llvm::formatv("{0}.shape[{1}]", names[view], axis).str());
              device.push_back(extentText(view, axis));
              found = true;
            }
      if (!found)
        return kernel.emitError() << "workspace extent '" << symbol << "' names no view extent";
    }
    workspaceExtents[arg] = device;
    std::string dtype = wrapper::torchType(buffer.getElementType());
    std::string count = host.empty() ? "1" : "(" + llvm::join(host, ") * (") + ")";
    std::string fill = "torch.empty(" + count + ", dtype=" + dtype + ", device=" + firstView + ".device)";
    if (auto init = kernel.getArgAttrOfType<TypedAttr>(arg.getArgNumber(), "pgpu.init"))
      fill = "torch.full((" + count + ",), " + literal(init) + ", dtype=" + dtype + ", device=" + firstView +
             ".device)";
    allocations.push_back("_ws_" + names[arg] + " = " + fill);
  }
  // The body: launch-time values, then the program space.
  for (const std::string &c : casts)
    line(1, c);
  pgpu::ProgramSpaceOp space;
  for (Operation &op : entry.without_terminator()) {
    if (auto ps = dyn_cast<pgpu::ProgramSpaceOp>(op)) {
      space = ps;
      continue;
    }
    if (failed(emitOp(op, 1)))
      return failure();
  }
  if (!space)
    return kernel.emitError() << "the cuTile serializer found no program space";
  if (std::optional<std::string> issue = cutile::spellingIssue(space, params))
    return unsupported(space, *issue);
  line(1, name(space.getBody().getArgument(0)) + " = ct.bid(0)");
  if (failed(emitBlock(space.getBody().front(), 1)))
    return failure();
  FailureOr<std::string> grid = wrapper::hostLaunchExpr(
      space.getExtents()[0], [&](Value x) { return name(x); }, [&](StringRef n) { return param(n); },
      [&](Operation *o, StringRef why) { return unsupported(o, why); });
  if (failed(grid))
    return failure();

  for (auto [k, g] : llvm::enumerate(guards)) {
    kernelParams.push_back("_G" + std::to_string(k) + ": ct.Constant[bool]");
    SmallVector<std::string> terms, path;
    for (auto [outer, taken] : g.path) {
      terms.push_back((taken ? "(" : "not (") + guards[outer].condition + ")");
      path.push_back(tuple({std::to_string(outer), taken ? "True" : "False"}));
    }
    terms.push_back("(" + g.condition + ")");
    launchArgs.push_back("bool(" + llvm::join(terms, " and ") + ")");
    abi.push_back("('guard', 'bool', " + tuple(path) + ")");
  }

  // The declared search space and the bound values, for the tuner (seed 003).
  wrapper::emitDeclaredParams(os, kname, kernel.getParamsAttr(), [&](StringRef n) { return int64_t(param(n)); },
                              kernel->getAttrOfType<DictionaryAttr>(wrapper::kSegmentsAttr));
  // The kernel's arguments as ahead-of-time compilation describes them (tessel._cutile.export_cubin).
  os << "\n" << kname << "_ABI = [" << llvm::join(abi, ", ") << "]\n";
  // The launch hints are declared parameters (CuTile.h); their bound values are spelled, never chosen here.
  SmallVector<std::string> hints;
  if (kernel.getParam(cutile::kOccupancyParam) && param(cutile::kOccupancyParam) > 0)
    hints.push_back("occupancy=" + std::to_string(param(cutile::kOccupancyParam)));
  if (kernel.getParam(cutile::kNumCtasParam) && param(cutile::kNumCtasParam) > 1)
    hints.push_back("num_ctas=" + std::to_string(param(cutile::kNumCtasParam)));
  if (kernel.getParam(cutile::kWorkerWarpsParam) && param(cutile::kWorkerWarpsParam) > 0)
    hints.push_back("num_worker_warps=" + std::to_string(param(cutile::kWorkerWarpsParam)));
  os << "\n\n@ct.kernel" << (hints.empty() ? "" : "(" + llvm::join(hints, ", ") + ")") << "\ndef _" << kname
     << "_kernel(" << llvm::join(kernelParams, ", ") << "):\n" << bodyText;
  // The checked launch mode's switch is the last keyword (Wrapper.h: kIndicesKeyword).
  SmallVector<std::string> withIndices(keywords.begin(), keywords.end());
  withIndices.push_back(wrapper::kIndicesKeyword.str());
  os << "\n\ndef " << kname << "(" << wrapper::launchSignature(positional, withIndices) << "):\n";
  os << "    \"\"\"Launch " << kname << " (one launch with ct.launch; checks the ABI first).\"\"\"\n";
  wrapper::emitCallChecks(os, checks, viewNames, wrapper::indexChecks(kernel));
  // Launch facts whose element-wise branch is not compiled: refused here, naming the fact (its views'
  // extents against the bound tiles) and the author's line, before anything is allocated or launched.
  if (!refusals.empty()) {
    SmallVector<std::string> bound;
    if (ArrayAttr declared = kernel.getParamsAttr())
      for (Attribute a : declared) {
        StringRef n = cast<pgpu::ParamAttr>(a).getName().getValue();
        bound.push_back(n.str() + "=" + std::to_string(param(n)));
      }
    for (const Refusal &r : refusals) {
      std::string where = r.origin.empty() ? "" : " at " + r.origin;
      std::string why = kname + ": the cuTile provider compiles only the tiled branch of the launch fact" + where +
                        "; these arguments take its element-wise branch (" + r.condition + ") under the bound " +
                        "parameters " + llvm::join(bound, ", ") + ": bind tiles that cover the extents, or use " +
                        "target='triton'";
      os << "    if " << r.condition << ":\n";
      os << "        raise ValueError(" << pyString(why) << ")\n";
    }
  }
  for (const std::string &a : allocations)
    os << "    " << a << "\n";
  os << "    _grid = (" << *grid << ", 1, 1)\n";
  os << "    if _grid[0] > 2147483647:\n";
  os << "        raise ValueError(f\"{_grid[0]} programs exceed the launch limit of 2**31 - 1 on grid axis 0\")\n";
  os << "    if _grid[0] > 0:\n";
  os << "        ct.launch(torch.cuda.current_stream(" << (firstView.empty() ? "" : firstView + ".device")
     << "), _grid, _" << kname << "_kernel, " << tuple(launchArgs) << ")\n";
  return success();
}

LogicalResult cutile::serializeModule(ModuleOp module, const Bindings &params, raw_ostream &os) {
  std::string helperText, kernelText;
  llvm::raw_string_ostream helpers(helperText), kernels(kernelText);
  static const llvm::StringMap<int64_t> none;
  for (pgpu::KernelOp kernel : module.getOps<pgpu::KernelOp>()) {
    auto bound = params.find(kernel.getSymName());
    Serializer serializer(kernel, bound == params.end() ? none : bound->second, kernels, helpers);
    if (failed(serializer.run()))
      return failure();
  }
  os << "# Generated by tessel: cuTile source and launch wrappers. Do not edit.\n"
     << "import torch\nimport cuda.tile as ct\n\n\n";
  wrapper::emitCheckView(os, {"cuTile", ""});
  wrapper::emitCheckScalar(os);
  wrapper::emitCheckApart(os);
  wrapper::emitCheckIndex(os);
  os << helperText << kernelText;
  return success();
}
