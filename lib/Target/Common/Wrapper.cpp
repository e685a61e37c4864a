//===- Wrapper.cpp - what every Python launch wrapper shares --------------===//

#include "tessel/Target/Wrapper.h"

#include "tessel/Dialect/PGPU/IR/PGPU.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <cmath>
#include <cstdlib>
#include <limits>

using namespace mlir;
using namespace tessel;

std::string wrapper::torchType(Type t) {
  if (t.isF16()) return "torch.float16";
  if (t.isBF16()) return "torch.bfloat16";
  if (t.isF32()) return "torch.float32";
  if (t.isF64()) return "torch.float64";
  if (isa<Float8E4M3FNType>(t)) return "torch.float8_e4m3fn";
  if (isa<Float8E5M2Type>(t)) return "torch.float8_e5m2";
  if (t.isInteger(1)) return "torch.bool";
  if (t.isInteger(8)) return "torch.int8";
  if (t.isInteger(16)) return "torch.int16";
  if (t.isInteger(32)) return "torch.int32";
  if (t.isInteger(64) || t.isIndex()) return "torch.int64";
  return "";
}

std::string wrapper::indexLaneLiteral(int64_t v) {
  if (v == std::numeric_limits<int64_t>::max())
    return std::to_string(std::numeric_limits<int32_t>::max());
  if (v == std::numeric_limits<int64_t>::min())
    return std::to_string(std::numeric_limits<int32_t>::min());
  return std::to_string(v);
}

std::string wrapper::floatLiteral(double v) {
  if (std::isnan(v)) return "float('nan')";
  if (std::isinf(v)) return v > 0 ? "float('inf')" : "-float('inf')";
  // The shortest spelling (7 to 17 significant digits) that reads back as exactly the constant: a fixed
  // 7-digit spelling is not the same f32 or f64 for every value.
  std::string text;
  for (unsigned digits = 6; digits <= 16; ++digits) {
    text = llvm::formatv(("{0:e" + std::to_string(digits) + "}").c_str(), v).str();
    if (std::strtod(text.c_str(), nullptr) == v)
      break;
  }
  return text;
}

void wrapper::emitCheckView(raw_ostream &os, const Flavor &flavor) {
  os << "def _check_view(name, t, dtype, extents, sizes, device, writes=False):\n"
     << "    if not isinstance(t, torch.Tensor):\n"
     << "        raise TypeError(f\"argument '{name}' must be a torch.Tensor, got {type(t).__name__}\")\n"
     // Kernels address a view by data pointer and strides: a sparse layout has neither (torch's own error
     // would not name the argument).
     << "    if t.layout != torch.strided:\n"
     << "        raise TypeError(f\"argument '{name}' must be a dense (strided) tensor, got layout {t.layout}\")\n"
     // A view with the negative (or conjugate) bit holds its values without the sign in memory; torch
     // applies the sign lazily, a kernel reading the memory would not. Refused rather than materialized:
     // a copy would also silently drop a written view's results (docs/language.md, "Calling a kernel").
     << "    if t.is_neg() or t.is_conj():\n"
     << "        bit = 'negative' if t.is_neg() else 'conjugate'\n"
     << "        raise ValueError(f\"argument '{name}' has the {bit} bit set (a lazy view such as x.conj().imag): its \"\n"
     << "                         f\"memory holds the values without it; \" + (\"write into a tensor without it\" if writes else\n"
     << "                         f\"pass {name}.resolve_{bit[:3]}() (a copy)\"))\n"
     << "    if t.dtype != dtype:\n"
     << "        raise TypeError(f\"argument '{name}' must have dtype {dtype}, got {t.dtype}\")\n"
     << "    if t.dim() != len(extents):\n"
     << "        raise ValueError(f\"argument '{name}' must have rank {len(extents)}, got {t.dim()}\")\n"
     ;
  if (flavor.offsets32)
    os << "    span = sum((size - 1) * abs(stride) for size, stride in zip(t.shape, t.stride())) if t.numel() else 0\n"
       << "    if span >= 2 ** 31:\n"
       << "        raise ValueError(f\"argument '{name}' spans {span + 1} elements of memory; the generated " << flavor.provider << " \"\n"
       << "                         f\"kernels index with 32-bit offsets (at most 2**31 - 1)\")\n";
  os << "    if writes and t.numel() > 1:\n"
     << "        for axis, (size, stride) in enumerate(zip(t.shape, t.stride())):\n"
     << "            if size > 1 and stride == 0:\n"
     << "                raise ValueError(f\"argument '{name}' is written but axis {axis} has stride 0: its {size} \"\n"
     << "                                 f\"elements share one address\")\n"
     << "        reach = 0  # axes by increasing stride: each must step past everything the smaller ones reach\n"
     << "        for stride, size in sorted((abs(st), s) for s, st in zip(t.shape, t.stride()) if s > 1):\n"
     << "            if stride <= reach:\n"
     << "                raise ValueError(f\"argument '{name}' is written but its elements overlap in memory \"\n"
     << "                                 f\"(strides {tuple(t.stride())} for shape {tuple(t.shape)})\")\n"
     << "            reach += (size - 1) * stride\n"
     << "    for axis, (extent, size) in enumerate(zip(extents, t.shape)):\n"
     << "        if isinstance(extent, int):\n"
     << "            if size != extent:\n"
     << "                raise ValueError(f\"argument '{name}' axis {axis} must have extent {extent}, got {size}\")\n"
     << "        elif sizes.setdefault(extent, size) != size:\n"
     << "            raise ValueError(f\"argument '{name}' axis {axis} is extent '{extent}' = {sizes[extent]} \"\n"
     << "                             f\"elsewhere, got {size}\")\n"
     << "    if device and t.device != device[0]:\n"
     << "        raise ValueError(f\"argument '{name}' is on {t.device}, other arguments on {device[0]}\")\n"
     << "    device.append(t.device)\n";
  if (flavor.interpretEnv.empty()) {
    os << "    if t.device.type != 'cuda':\n"
       << "        raise ValueError(f\"argument '{name}' is on {t.device}; tessel kernels run on CUDA tensors\")\n\n\n";
    return;
  }
  os << "    if t.device.type != 'cuda' and os.environ.get('" << flavor.interpretEnv << "') != '1':\n"
     << "        raise ValueError(f\"argument '{name}' is on {t.device}; tessel kernels run on CUDA tensors \"\n"
     << "                         f\"(or set " << flavor.interpretEnv << "=1 for " << flavor.interpretWhat << ")\")\n\n\n";
  // Under the interpreter a view off the GPU passes _check_view, a meta tensor too (shape-only queries and
  // the launch-limit checks take them); the launch itself needs the elements.
  os << "def _check_data(*views):\n"
     << "    \"\"\"Before a launch under " << flavor.interpretEnv << ": each view has its elements in memory.\"\"\"\n"
     << "    for name, t in views:\n"
     << "        if t.is_meta:\n"
     << "            raise ValueError(f\"argument '{name}' is a meta tensor (a shape without data); a launch needs \"\n"
     << "                             f\"its elements in memory\")\n\n\n";
}

std::string wrapper::checkData(ArrayRef<std::pair<std::string, bool>> views) {
  if (views.empty())
    return "";
  std::string text = "_check_data(";
  for (auto &[n, written] : views)
    text += "('" + n + "', " + n + "), ";
  return text + ")";
}

void wrapper::emitCheckScalar(raw_ostream &os) {
  os << "def _check_scalar(name, v, kind, bounds=None):\n"
     << "    if not isinstance(v, (int, float) if kind is float else int) or isinstance(v, bool):\n"
     << "        raise TypeError(f\"scalar '{name}' must be {kind.__name__}, got {type(v).__name__}\")\n"
     << "    if bounds and not (bounds[0] <= v <= bounds[1]) and not (kind is float and (v != v or abs(v) == float('inf'))):\n"
     << "        raise ValueError(f\"scalar '{name}' = {v} is outside the range of its type [{bounds[0]}, {bounds[1]}]\")\n\n\n";
}

void wrapper::emitCheckApart(raw_ostream &os) {
  os << "def _span(t):\n"
     << "    \"\"\"(lo, hi): the bytes `t`'s elements occupy, relative to its data pointer; an empty view occupies\n"
     << "    none (inf, -inf: apart from everything).\"\"\"\n"
     << "    if not t.numel():\n"
     << "        return float('inf'), -float('inf')\n"
     << "    size = t.element_size()\n"
     << "    return (sum((s - 1) * st for s, st in zip(t.shape, t.stride()) if st < 0) * size,\n"
     << "            (sum((s - 1) * st for s, st in zip(t.shape, t.stride()) if st > 0) + 1) * size)\n\n\n"
     << "def _check_apart(*views):\n"
     << "    \"\"\"A written view must not share memory with another view (byte ranges compared, so views that\n"
     << "    interleave without sharing an element are rejected too).\"\"\"\n"
     << "    spans = []\n"
     << "    for name, t, writes in views:\n"
     << "        if isinstance(t, torch.Tensor) and t.numel() and not t.is_meta:  # meta: no memory\n"
     << "            lo, hi = _span(t)\n"
     << "            lo, hi = t.data_ptr() + lo, t.data_ptr() + hi\n"
     << "            for other, olo, ohi, owrites in spans:\n"
     << "                if (writes or owrites) and lo < ohi and olo < hi:\n"
     << "                    raise ValueError(f\"argument '{name}' overlaps argument '{other}' in memory and one of them \"\n"
     << "                                     f\"is written; pass separate tensors (no in-place aliasing)\")\n"
     << "            spans.append((name, lo, hi, writes))\n";
}

std::pair<std::string, std::string> wrapper::scalarCheck(Type type) {
  // The declared type's range: a value outside the kernel's type must be an error in the wrapper,
  // not a wrap inside the provider's launcher.
  std::string lo, hi;
  if (auto f = dyn_cast<FloatType>(type)) {
    double max = APFloat::getLargest(f.getFloatSemantics()).convertToDouble();
    lo = llvm::formatv("{0}", llvm::format("%.17g", -max)).str(), hi = lo.substr(1);
  } else {
    unsigned width = type.isIndex() ? 64 : type.getIntOrFloatBitWidth();
    if (width > 1 && width <= 64)
      lo = std::to_string(APInt::getSignedMinValue(width).getSExtValue()),
      hi = std::to_string(APInt::getSignedMaxValue(width).getSExtValue());
  }
  return {isa<FloatType>(type) ? "float" : "int", lo.empty() ? "" : "(" + lo + ", " + hi + ")"};
}

FailureOr<std::string>
wrapper::hostLaunchExprText(Value v, const std::function<std::string(Value)> &nameOf,
                            const std::function<std::string(StringRef)> &paramText,
                            const std::function<std::string(Value, int64_t)> &shapeText,
                            const std::function<LogicalResult(Operation *, StringRef)> &reject,
                            const std::function<std::optional<std::string>(Value)> &known) {
  if (known)
    if (std::optional<std::string> name = known(v))
      return *name;
  if (isa<BlockArgument>(v))
    return nameOf(v);
  APInt constant;
  if (matchPattern(v, m_ConstantInt(&constant)))
    return std::to_string(constant.getSExtValue());
  // A float constant as the Python float of the same value (a double holds every f32 and f16 exactly).
  FloatAttr real;
  if (matchPattern(v, m_Constant(&real))) {
    double d = real.getValueAsDouble();
    if (std::isnan(d))
      return std::string("float('nan')");
    if (std::isinf(d))
      return std::string(d > 0 ? "float('inf')" : "-float('inf')");
    return llvm::formatv("{0}", llvm::format("%.17g", d)).str();
  }
  Operation *op = v.getDefiningOp();
  auto bin = [&](Value a, Value b, StringRef fmt) -> FailureOr<std::string> {
    FailureOr<std::string> x = hostLaunchExprText(a, nameOf, paramText, shapeText, reject, known),
                           y = hostLaunchExprText(b, nameOf, paramText, shapeText, reject, known);
    if (failed(x) || failed(y))
      return failure();
    return llvm::formatv(fmt.data(), *x, *y).str();
  };
  return llvm::TypeSwitch<Operation *, FailureOr<std::string>>(op)
      .Case<pgpu::ExtentOp>([&](pgpu::ExtentOp e) -> FailureOr<std::string> {
        return shapeText(e.getView(), e.getAxis());
      })
      .Case<pgpu::StrideOp>([&](pgpu::StrideOp e) -> FailureOr<std::string> {
        return llvm::formatv("{0}.stride({1})", nameOf(e.getView()), e.getAxis()).str();
      })
      .Case<pgpu::ParamOp>([&](pgpu::ParamOp p) -> FailureOr<std::string> {
        return paramText(p.getName());
      })
      .Case<pgpu::CeilDivOp>([&](pgpu::CeilDivOp c) { return bin(c.getLhs(), c.getRhs(), "(-((-({0})) // ({1})))"); })
      .Case<pgpu::BinaryOp>([&](pgpu::BinaryOp b) -> FailureOr<std::string> {
        switch (b.getKind()) {
        case kir::BinaryKind::Add: return bin(b.getLhs(), b.getRhs(), "({0} + {1})");
        case kir::BinaryKind::Sub: return bin(b.getLhs(), b.getRhs(), "({0} - {1})");
        case kir::BinaryKind::Mul: return bin(b.getLhs(), b.getRhs(), "({0} * {1})");
        case kir::BinaryKind::Div: return bin(b.getLhs(), b.getRhs(), "({0} // {1})");
        case kir::BinaryKind::Max: return bin(b.getLhs(), b.getRhs(), "max({0}, {1})");
        case kir::BinaryKind::Min: return bin(b.getLhs(), b.getRhs(), "min({0}, {1})");
        case kir::BinaryKind::And: return bin(b.getLhs(), b.getRhs(), "({0} and {1})");
        case kir::BinaryKind::Or: return bin(b.getLhs(), b.getRhs(), "({0} or {1})");
        default: return reject(op, "not a host LaunchExpr operation");
        }
      })
      .Case<pgpu::CmpOp>([&](pgpu::CmpOp c) -> FailureOr<std::string> {
        const char *fmt = "";
        switch (c.getPredicate()) {
        case kir::CmpPredicate::EQ: fmt = "({0} == {1})"; break;
        case kir::CmpPredicate::NE: fmt = "({0} != {1})"; break;
        case kir::CmpPredicate::LT: fmt = "({0} < {1})"; break;
        case kir::CmpPredicate::LE: fmt = "({0} <= {1})"; break;
        case kir::CmpPredicate::GT: fmt = "({0} > {1})"; break;
        case kir::CmpPredicate::GE: fmt = "({0} >= {1})"; break;
        }
        return bin(c.getLhs(), c.getRhs(), fmt);
      })
      .Case<pgpu::CastOp>([&](pgpu::CastOp c) -> FailureOr<std::string> {
        // An integer re-typed: Python's ints are unbounded, so a cast that keeps every value (a bool to
        // an integer, a signed widening, index as 64 bits) is the value; a narrowing wraps as two's
        // complement (kir.cast's integer semantics), a cast to i1 is `!= 0`.
        Type from = c.getOperand().getType(), to = c.getType();
        if (!from.isIntOrIndex() || !to.isIntOrIndex())
          return reject(op, "not a host LaunchExpr operation");
        FailureOr<std::string> x = hostLaunchExprText(c.getOperand(), nameOf, paramText, shapeText, reject, known);
        if (failed(x))
          return failure();
        unsigned fromBits = from.isIndex() ? 64 : from.getIntOrFloatBitWidth(),
                 toBits = to.isIndex() ? 64 : to.getIntOrFloatBitWidth();
        auto pow2 = [](unsigned n) { return llvm::toString(APInt::getOneBitSet(n + 1, n), 10, false); };
        if (toBits == 1)
          return "(" + *x + " != 0)";
        if (fromBits == 1)
          return "int(" + *x + ")";
        if (to.isUnsignedInteger())
          return toBits >= fromBits && !from.isSignedInteger() && !from.isSignlessInteger()
                     ? *x
                     : llvm::formatv("(({0}) % {1})", *x, pow2(toBits)).str();
        if (toBits > fromBits || (toBits == fromBits && !from.isUnsignedInteger()))
          return *x;
        std::string half = pow2(toBits - 1);
        return llvm::formatv("((({0}) + {1}) % (2 * {1}) - {1})", *x, half).str();
      })
      .Case<pgpu::SelectOp>([&](pgpu::SelectOp s) -> FailureOr<std::string> {
        FailureOr<std::string> c = hostLaunchExprText(s.getCondition(), nameOf, paramText, shapeText, reject, known);
        FailureOr<std::string> x = hostLaunchExprText(s.getTrueValue(), nameOf, paramText, shapeText, reject, known);
        FailureOr<std::string> y = hostLaunchExprText(s.getFalseValue(), nameOf, paramText, shapeText, reject, known);
        if (failed(c) || failed(x) || failed(y))
          return failure();
        return "(" + *x + " if " + *c + " else " + *y + ")";
      })
      .Default([&](Operation *other) { return reject(other, "not a host LaunchExpr operation"); });
}

FailureOr<std::string>
wrapper::hostLaunchExpr(Value v, const std::function<std::string(Value)> &nameOf,
                        const std::function<int64_t(StringRef)> &paramOf,
                        const std::function<LogicalResult(Operation *, StringRef)> &reject) {
  return hostLaunchExprText(
      v, nameOf, [&](StringRef n) { return std::to_string(paramOf(n)); },
      [&](Value view, int64_t axis) { return llvm::formatv("{0}.shape[{1}]", nameOf(view), axis).str(); }, reject);
}

std::optional<std::string> wrapper::launchFact(Value v, Block &entry, const std::function<std::string(Value)> &nameOf,
                                               const std::function<int64_t(StringRef)> &paramOf, bool *readsFloat) {
  // Integer values computed from extents, strides, parameters, constants and integer kernel scalars
  // only; hostLaunchExpr then spells them (or fails, silently, on an op it has no spelling for).
  // Where the caller keys its plans on float facts (`readsFloat`), also comparisons of float kernel
  // scalars with float constants: no float arithmetic, which the host would do in double precision
  // and the kernel in its own type.
  SmallVector<Value> work{v};
  DenseSet<Value> seen;
  bool floats = false;
  while (!work.empty()) {
    Value x = work.pop_back_val();
    if (!seen.insert(x).second)
      continue;
    if (isa<FloatType>(x.getType())) {
      auto arg = dyn_cast<BlockArgument>(x);
      if (!readsFloat || !((arg && arg.getOwner() == &entry) || matchPattern(x, m_Constant())))
        return std::nullopt;
      floats = true;
      continue;
    }
    if (!x.getType().isIntOrIndex())
      return std::nullopt;
    if (auto arg = dyn_cast<BlockArgument>(x)) {
      if (arg.getOwner() != &entry)
        return std::nullopt;
      continue;
    }
    Operation *op = x.getDefiningOp();
    if (op->getNumRegions())
      return std::nullopt;
    if (!isa<pgpu::ExtentOp, pgpu::StrideOp>(op)) // their operand is the view
      llvm::append_range(work, op->getOperands());
  }
  FailureOr<std::string> text = hostLaunchExpr(v, nameOf, paramOf, [](Operation *, StringRef) { return failure(); });
  if (failed(text))
    return std::nullopt;
  if (readsFloat)
    *readsFloat = floats;
  return *text;
}

std::optional<std::string> wrapper::sourceLine(Location loc) {
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return (llvm::sys::path::filename(file.getFilename().getValue()) + ":" + Twine(file.getLine())).str();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (auto line = sourceLine(inner))
        return line;
  if (auto named = dyn_cast<NameLoc>(loc))
    return sourceLine(named.getChildLoc());
  return std::nullopt;
}

std::string wrapper::launchSignature(llvm::ArrayRef<std::string> positional, llvm::ArrayRef<std::string> keywords) {
  std::string text = llvm::join(positional, ", ");
  if (!keywords.empty())
    text += (text.empty() ? "*, " : ", *, ") + llvm::join(keywords, ", ");
  return text;
}

void wrapper::emitCheckIndex(raw_ostream &os) {
  os << "_CHECKED = __import__('os').environ.get('TESSEL_CHECKED', '') not in ('', '0')\n\n\n"
     << "def _check_index(name, t, target, view, axis):\n"
     << "    \"\"\"Checked launch mode: the values of `t` are coordinates on axis `axis` of `view` (pgpu.indexes),\n"
     << "    so each must lie in [0, view.shape[axis]); read on the tensors' device.\"\"\"\n"
     << "    bound = view.shape[axis]\n"
     << "    if not t.numel() or t.is_meta:\n"
     << "        return\n"
     << "    bad = (t < 0) | (t >= bound)\n"
     << "    if bool(bad.any()):\n"
     << "        at = tuple(int(i) for i in bad.nonzero()[0])\n"
     << "        raise IndexError(f\"argument '{name}' at {at if len(at) != 1 else at[0]} is {int(t[at])}: it indexes axis \"\n"
     << "                         f\"{axis} of '{target}', so it must lie in [0, {bound}) (checked launch mode)\")\n\n\n";
}

SmallVector<std::string> wrapper::indexChecks(FunctionOpInterface kernel) {
  auto nameOf = [&](unsigned i) {
    auto abiName = kernel.getArgAttrOfType<StringAttr>(i, "kir.name");
    return abiName ? abiName.str() : "arg" + std::to_string(i);
  };
  SmallVector<std::string> lines;
  for (unsigned i = 0; i < kernel.getNumArguments(); ++i)
    if (auto entries = kernel.getArgAttrOfType<ArrayAttr>(i, pgpu::PGPUDialect::getIndexesAttrName()))
      for (Attribute entry : entries) {
        auto pair = cast<ArrayAttr>(entry);
        unsigned target = cast<IntegerAttr>(pair[0]).getInt();
        lines.push_back(llvm::formatv("_check_index('{0}', {0}, '{1}', {1}, {2})", nameOf(i), nameOf(target),
                                      cast<IntegerAttr>(pair[1]).getInt())
                            .str());
      }
  return lines;
}

void wrapper::emitCallChecks(llvm::raw_ostream &os, llvm::ArrayRef<std::string> checks,
                             llvm::ArrayRef<std::pair<std::string, bool>> views,
                             llvm::ArrayRef<std::string> indexChecks) {
  os << "    _extents, _device = {}, []\n";
  for (const std::string &c : checks)
    os << "    " << c << "\n";
  if (views.size() > 1) {
    os << "    _check_apart(";
    for (auto &[n, written] : views)
      os << "('" << n << "', " << n << ", " << (written ? "True" : "False") << "), ";
    os << ")\n";
  }
  if (!indexChecks.empty()) {
    os << "    if _indices:  # checked launch mode: index values against the extents they index\n";
    for (const std::string &c : indexChecks)
      os << "        " << c << "\n";
  }
}

void tessel::wrapper::emitDeclaredParams(llvm::raw_ostream &os, llvm::StringRef kernel, mlir::ArrayAttr declared,
                                         const std::function<int64_t(llvm::StringRef)> &boundValue,
                                         mlir::DictionaryAttr segments) {
  os << "\n\n" << kernel << "_PARAMS = {";
  if (declared)
    for (auto [i, a] : llvm::enumerate(declared)) {
      auto p = mlir::cast<pgpu::ParamAttr>(a);
      os << (i ? ", " : "") << "'" << p.getName().getValue() << "': ([";
      llvm::interleaveComma(p.getCandidates(), os);
      os << "], " << boundValue(p.getName().getValue()) << ")";
    }
  os << "}\n";
  os << kernel << "_COVERS = {";
  bool first = true;
  if (declared)
    for (mlir::Attribute a : declared)
      if (auto covers = mlir::cast<pgpu::ParamAttr>(a).getCovers()) {
        os << (first ? "" : ", ") << "'" << mlir::cast<pgpu::ParamAttr>(a).getName().getValue() << "': '"
           << covers.getValue() << "'";
        first = false;
      }
  os << "}\n";
  // A parameter counted in passes over its ranges (bin-range tiling): the product covers the symbol.
  os << kernel << "_PASSES = {";
  first = true;
  if (declared)
    for (mlir::Attribute a : declared)
      if (auto passes = mlir::cast<pgpu::ParamAttr>(a).getPasses()) {
        os << (first ? "" : ", ") << "'" << mlir::cast<pgpu::ParamAttr>(a).getName().getValue() << "': '"
           << passes.getValue() << "'";
        first = false;
      }
  os << "}\n";
  // Ragged segments' tiles and the extents whose ratio is their average length (call defaults).
  if (!segments)
    return;
  os << kernel << "_SEGMENTS = {";
  first = true;
  for (mlir::NamedAttribute entry : segments)
    if (auto value = mlir::dyn_cast<mlir::StringAttr>(entry.getValue())) {
      os << (first ? "" : ", ") << "'" << entry.getName().getValue() << "': '" << value.getValue() << "'";
      first = false;
    }
  os << "}\n";
}

bool tessel::wrapper::contracts(Region &r) {
  return !r.empty() && r.walk([](pgpu::ContractOp) { return WalkResult::interrupt(); }).wasInterrupted();
}

bool tessel::wrapper::splitsOffContractFreeBranch(Operation *op) {
  auto i = dyn_cast<pgpu::IfOp>(op);
  if (!i)
    return false;
  auto computes = [](Region &r) { return !r.empty() && r.front().getOperations().size() > 1; };
  Region &then = i.getThenRegion(), &other = i.getElseRegion();
  return (contracts(then) && !contracts(other) && computes(other)) ||
         (contracts(other) && !contracts(then) && computes(then));
}
