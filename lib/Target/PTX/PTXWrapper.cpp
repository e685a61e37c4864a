//===- PTXWrapper.cpp - the PTX provider's Python launch wrapper ----------===//
//
// `--target=ptx --emit=wrapper`: a Python module that holds the PTX and, per
// kernel, a wrapper `<name>(views..., *, scalars...)` which checks the ABI on
// torch tensors with the checks every wrapper shares (Wrapper.h), allocates
// invocation workspace, evaluates the LaunchExpr grid on the host (seed 000
// §3.1) and launches once through tessel's CUDA runtime (tessel._ptx, the C
// ABI of libtessel_cuda.so) on the current torch stream. The argument words
// follow the kernel ABI of PTX.h.
//
//===----------------------------------------------------------------------===//

#include "tessel/Target/PTX/PTX.h"
#include "tessel/Dialect/PGPU/IR/LaunchGuards.h"
#include "tessel/Target/Wrapper.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace tessel;

namespace {
/// The `tessel._ptx.scalar` kind of a by-value scalar: how its word is packed.
std::string scalarKind(Type t) {
  if (t.isF32()) return "f32";
  if (t.isF64()) return "f64";
  if (t.isF16()) return "f16";
  if (t.isBF16()) return "bf16";
  return "int";
}

LogicalResult wrapKernel(pgpu::KernelOp kernel, const llvm::StringMap<int64_t> &params, raw_ostream &os) {
  std::string kname = kernel.getSymName().str();
  Block &entry = kernel.getBody().front();
  DenseMap<Value, std::string> names;
  SmallVector<std::string> positional, keywords, checks, words, allocations;
  SmallVector<std::pair<std::string, bool>> viewNames; // (name, written)
  std::string firstView;
  for (auto [i, arg] : llvm::enumerate(entry.getArguments())) {
    auto abiName = kernel.getArgAttrOfType<StringAttr>(i, "kir.name");
    names[arg] = abiName ? abiName.str() : "arg" + std::to_string(i);
  }
  auto paramOf = [&](StringRef name) { return params.lookup(name); };
  for (auto [i, arg] : llvm::enumerate(entry.getArguments())) {
    const std::string &n = names[arg];
    if (auto view = dyn_cast<pgpu::ViewType>(arg.getType())) {
      std::string dtype = wrapper::torchType(view.getElementType());
      if (dtype.empty())
        return kernel.emitError() << "the PTX wrapper has no torch dtype for " << view.getElementType();
      positional.push_back(n);
      SmallVector<std::string> extents;
      for (Attribute e : view.getExtents())
        extents.push_back(isa<StringAttr>(e) ? "'" + cast<StringAttr>(e).str() + "'"
                                             : std::to_string(cast<IntegerAttr>(e).getInt()));
      checks.push_back(llvm::formatv("_check_view('{0}', {0}, {1}, ({2}{3}), _extents, _device{4})", n, dtype,
                                     llvm::join(extents, ", "), extents.size() == 1 ? "," : "",
                                     view.isWritable() ? ", writes=True" : "")
                           .str());
      viewNames.push_back({n, view.isWritable()});
      if (firstView.empty())
        firstView = n;
      words.push_back("*_ptx.view(" + n + ")");
    } else if (arg.getType().isIntOrIndexOrFloat()) {
      keywords.push_back(n);
      // Index scalars are 32-bit in the kernel (kIndexBits), so the wrapper bounds them so.
      Type checked = arg.getType().isIndex() ? IntegerType::get(kernel.getContext(), ptx::kIndexBits) : arg.getType();
      auto [kind, bounds] = wrapper::scalarCheck(checked);
      checks.push_back(
          llvm::formatv("_check_scalar('{0}', {0}, {1}{2})", n, kind, bounds.empty() ? "" : ", " + bounds).str());
      words.push_back("_ptx.scalar(" + n + ", '" + scalarKind(arg.getType()) + "')");
    } else {
      // Invocation workspace (seed 000 §2): allocated per call on the views' device, filled when the
      // ABI states pgpu.init; sized from literals, bound parameters or a view's extent of that name.
      auto buffer = cast<pgpu::BufferType>(arg.getType());
      std::string dtype = wrapper::torchType(buffer.getElementType());
      if (dtype.empty())
        return kernel.emitError() << "the PTX wrapper has no torch dtype for " << buffer.getElementType();
      SmallVector<std::string> sizes;
      for (Attribute e : buffer.getExtents()) {
        if (auto size = dyn_cast<IntegerAttr>(e)) {
          sizes.push_back(std::to_string(size.getInt()));
          continue;
        }
        StringRef symbol = cast<StringAttr>(e).getValue();
        if (auto it = params.find(symbol); it != params.end()) {
          sizes.push_back(std::to_string(it->second));
          continue;
        }
        std::string found;
        for (BlockArgument view : entry.getArguments())
          if (auto type = dyn_cast<pgpu::ViewType>(view.getType()))
            for (auto [axis, ve] : llvm::enumerate(type.getExtents()))
              if (found.empty() && ve == e)
                found = llvm::formatv("{0}.shape[{1}]", names[view], axis).str();
        if (found.empty())
          return kernel.emitError() << "the PTX wrapper cannot size workspace argument " << i << ": no view or "
                                    << "parameter names its extent '" << symbol << "'";
        sizes.push_back(found);
      }
      if (firstView.empty())
        return kernel.emitError() << "the PTX wrapper allocates workspace on the device of a view argument; "
                                     "this kernel has none";
      std::string count = sizes.empty() ? "1" : "(" + llvm::join(sizes, ") * (") + ")";
      std::string alloc = "torch.empty(" + count + ", dtype=" + dtype + ", device=" + firstView + ".device)";
      if (auto init = kernel.getArgAttrOfType<TypedAttr>(i, "pgpu.init")) {
        std::string value = isa<FloatAttr>(init) ? wrapper::floatLiteral(cast<FloatAttr>(init).getValueAsDouble())
                                                 : std::to_string(cast<IntegerAttr>(init).getInt());
        alloc = "torch.full((" + count + ",), " + value + ", dtype=" + dtype + ", device=" + firstView + ".device)";
      }
      allocations.push_back("_ws_" + n + " = " + alloc);
      words.push_back("_ws_" + n + ".data_ptr()");
    }
  }
  // The grid: the product of the program-space extents, spelled on the host.
  std::string grid = "1";
  for (auto space : kernel.getBody().getOps<pgpu::ProgramSpaceOp>())
    for (Value extent : space.getExtents()) {
      FailureOr<std::string> text = wrapper::hostLaunchExpr(
          extent, [&](Value v) { return names.lookup(v); }, paramOf,
          [&](Operation *op, StringRef why) { return op->emitError() << "the PTX wrapper cannot spell the grid: " << why; });
      if (failed(text))
        return failure();
      grid = grid == "1" ? *text : grid + " * " + *text;
    }

  // The variant of the launch guards (pgpu::launchGuards; PTXEmitter compiled one per assignment):
  // guard i's condition, spelled on the host, picks digit i of the name.
  std::string function = "'" + kname + "'";
  SmallVector<pgpu::IfOp> guards = pgpu::launchGuards(kernel, ptx::target().launchGuards());
  if (!guards.empty()) {
    function = "'" + kname + "$g'";
    for (pgpu::IfOp guard : guards) {
      FailureOr<std::string> text = wrapper::hostLaunchExpr(
          guard.getCondition(), [&](Value v) { return names.lookup(v); }, paramOf, [&](Operation *op, StringRef why) {
            return op->emitError() << "the PTX wrapper cannot spell a launch guard: " << why;
          });
      if (failed(text))
        return failure();
      function += " + ('1' if " + *text + " else '0')";
    }
  }

  wrapper::emitDeclaredParams(os, kname, kernel.getParamsAttr(), paramOf,
                              kernel->getAttrOfType<DictionaryAttr>(wrapper::kSegmentsAttr));
  // The checked launch mode's switch is the last keyword (Wrapper.h: kIndicesKeyword).
  SmallVector<std::string> withIndices(keywords.begin(), keywords.end());
  withIndices.push_back(wrapper::kIndicesKeyword.str());
  os << "\n\ndef " << kname << "(" << wrapper::launchSignature(positional, withIndices) << "):\n";
  os << "    \"\"\"Launch " << kname << " (one launch through tessel's CUDA runtime; checks the ABI first).\"\"\"\n";
  wrapper::emitCallChecks(os, checks, viewNames, wrapper::indexChecks(kernel));
  for (const std::string &a : allocations)
    os << "    " << a << "\n";
  os << "    _grid = " << grid << "\n";
  os << "    if _grid > 2147483647:\n";
  os << "        raise ValueError(f\"{_grid} programs exceed the launch limit of 2**31 - 1 on grid axis 0\")\n";
  if (std::string data = wrapper::checkData(viewNames); !data.empty())
    os << "    " << data << "\n";
  os << "    _ptx.launch(_PTX, " << function << ", _grid, " << paramOf(ptx::kThreadsParam) << ", "
     << (firstView.empty() ? "None" : "_device[0]") << ", [" << llvm::join(words, ", ") << "])\n";
  return success();
}
} // namespace

FailureOr<std::string> ptx::emitWrapper(ModuleOp module, const llvm::StringMap<llvm::StringMap<int64_t>> &params,
                                        llvm::StringRef ptxText) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (ptxText.contains("\"\"\"") || ptxText.contains('\\'))
    return module.emitError() << "the PTX text cannot be held in a Python string literal";
  os << "# Generated by tessel: PTX and its launch wrappers (tessel's CUDA runtime). Do not edit.\n"
     << "import os\n\nimport torch\n\nfrom tessel import _ptx\n\n\n";
  wrapper::emitCheckView(os, {"PTX", "TESSEL_PTX_HOST", "a stand-in driver on host memory (TESSEL_LIBCUDA)"});
  wrapper::emitCheckScalar(os);
  wrapper::emitCheckApart(os);
  wrapper::emitCheckIndex(os);
  os << "\n_PTX = \"\"\"" << ptxText << "\"\"\"\n";
  for (pgpu::KernelOp kernel : module.getOps<pgpu::KernelOp>()) {
    auto it = params.find(kernel.getSymName());
    if (it == params.end())
      return kernel.emitError() << "kernel @" << kernel.getSymName() << " was not legalized for PTX";
    if (failed(wrapKernel(kernel, it->second, os)))
      return failure();
  }
  return text;
}
