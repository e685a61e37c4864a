//===- TritonSerializer.cpp - spell legalized pgpu as Triton ---------------===//
//
// A thin renderer in the style of tinygrad's: one linear walk over the
// legalized program with a spelling per op. Every decision (grid, loops,
// masks, fills, accumulators) is already in the IR; an op without a unique
// Triton spelling is a diagnostic at the op (seed 002 §3.7, §5.5).
//
// The module holds, per kernel, an `@triton.jit` function (views become a
// pointer plus per-axis shape and stride arguments) and a Python wrapper that
// checks the ABI, evaluates the LaunchExpr grid with the same expressions the
// kernel uses, and launches once; the serializer collects that ABI and
// LaunchWrapper.cpp spells the wrapper (checked calls and launch plans).
//
// This file holds the module and each kernel's frame: its parameters, the
// launch wrapper's ABI and guards, the preludes. The values' spelling is
// ValueSpelling.cpp's, the ops' OpSpelling.cpp's, the warp-specialized Gluon
// spelling GluonSpelling.cpp's (SerializerImpl.h: the state they share).
//
//===----------------------------------------------------------------------===//

#include "SerializerImpl.h"

#include "tessel/Target/Triton/LaunchWrapper.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <functional>
#include <set>

using namespace mlir;
using namespace tessel;
using namespace tessel::triton::spelling;
namespace gluon = tessel::triton::gluon;

/// `<kernel>_FOLD_TILES(p, _v, _c)`: the tiles the tile walks of the program at group coordinates `_c`
/// step through (outermost `pgpu.for`s of the execution group that carry a fragment, a blocked fold's
/// summary, by a step other than 1), each walk counted under the launch-fact guards around it;
/// `<kernel>_FOLD_AXES`, the coordinates it reads; `<kernel>_GROUP_EXTENTS(p, _v)`, the group's
/// extents. Spelled only where a walk's bounds read a coordinate other than a fold split's segment (a
/// range narrowed per block, seed 002 §3.5; not a split K chunk) and the program space holds one group.
/// `<kernel>_FOLD_TILES = None` where a walk's bounds or guards read anything else than coordinates,
/// launch facts and parameters (an ABI scalar: a runtime window width) or the space holds several
/// groups with walks: the walk's length is then unknown to a call's default. Each value is spelled
/// once, as a local (`_tN`): the narrowed bounds share most of their operands.
static void emitFoldTiles(raw_ostream &os, StringRef kname, pgpu::ProgramSpaceOp space,
                          const std::function<std::string(Value, int64_t)> &shapeText) {
  SmallVector<pgpu::ExecutionGroupOp> groups;
  space.walk([&](pgpu::ExecutionGroupOp g) { groups.push_back(g); });
  auto tileWalk = [](pgpu::ForOp loop) {
    APInt unit; // unit steps: a merge of a split fold's segments, not a blocked walk
    return llvm::any_of(loop.getInits(), [](Value v) { return isa<pgpu::FragmentType>(v.getType()); }) &&
           !(matchPattern(loop.getStep(), m_ConstantInt(&unit)) && unit.isOne());
  };
  auto walks = [&](Operation *op) {
    bool any = false;
    op->walk([&](pgpu::ForOp loop) { any |= tileWalk(loop); });
    return any;
  };
  auto unknown = [&] { os << "\n\n" << kname << "_FOLD_TILES = None  # the walks' length is no fact of the launch here\n"; };
  if (groups.size() != 1) {
    if (walks(space))
      unknown();
    return;
  }
  pgpu::ExecutionGroupOp group = groups.front();
  Block &body = group.getBody().front();
  std::set<unsigned> axes;
  bool foreign = false;
  DenseMap<Value, std::string> locals;
  SmallVector<std::string> lines;
  auto nameOf = [&](Value arg) {
    auto b = dyn_cast<BlockArgument>(arg);
    if (b && b.getOwner() == &body) {
      axes.insert(b.getArgNumber());
      return "_c[" + std::to_string(b.getArgNumber()) + "]";
    }
    foreign = true; // a loop index or an ABI scalar: not a fact of the coordinates
    return std::string("0");
  };
  auto known = [&](Value v) -> std::optional<std::string> {
    auto it = locals.find(v);
    return it == locals.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
  auto paramText = [](StringRef n) { return "p['" + n.str() + "']"; };
  auto reject = [](Operation *, StringRef) { return failure(); };
  // `v` as a local assigned after its operands' (post-order), or failure.
  std::function<FailureOr<std::string>(Value)> spell = [&](Value v) -> FailureOr<std::string> {
    if (std::optional<std::string> name = known(v))
      return *name;
    Operation *op = v.getDefiningOp();
    if (op && !isa<pgpu::ExtentOp, pgpu::StrideOp>(op) && !matchPattern(v, m_Constant()))
      for (Value operand : op->getOperands())
        if (failed(spell(operand)))
          return failure();
    foreign = false;
    FailureOr<std::string> text = wrapper::hostLaunchExprText(v, nameOf, paramText, shapeText, reject, known);
    if (failed(text) || foreign)
      return failure();
    if (!op || matchPattern(v, m_Constant()))
      return text;
    std::string local = "_t" + std::to_string(locals.size());
    lines.push_back("    " + local + " = " + *text);
    locals[v] = local;
    return local;
  };
  SmallVector<std::string> terms;
  bool unspelled = false;
  group.walk([&](pgpu::ForOp loop) {
    if (unspelled || !tileWalk(loop))
      return;
    for (Operation *up = loop->getParentOp(); up != group; up = up->getParentOp())
      if (isa<pgpu::ForOp, pgpu::ForeachOp>(up))
        return; // nested in another loop: counted with it, or under a pair loop's coordinate
    SmallVector<std::string> guards;
    for (Operation *up = loop->getParentOp(); up != group; up = up->getParentOp()) {
      if (auto branch = dyn_cast<pgpu::IfOp>(up)) {
        FailureOr<std::string> c = spell(branch.getCondition());
        if (failed(c)) {
          unspelled = true;
          return;
        }
        bool inThen = branch.getThenRegion().isAncestor(loop->getParentRegion());
        guards.push_back(inThen ? *c : "not " + *c);
      }
    }
    FailureOr<std::string> lo = spell(loop.getLower()), hi = spell(loop.getUpper()), step = spell(loop.getStep());
    if (failed(lo) || failed(hi) || failed(step)) {
      unspelled = true;
      return;
    }
    std::string trips = "max(-(-(" + *hi + " - " + *lo + ") // " + *step + "), 0)";
    std::reverse(guards.begin(), guards.end()); // outermost first: Python's `and` stops at the first false
    terms.push_back(guards.empty() ? trips : "(" + trips + " if " + llvm::join(guards, " and ") + " else 0)");
  });
  if (unspelled)
    return unknown();
  // A split's segment coordinate (pgpu-split-folds' fold segments, pgpu-split-contractions' K chunks)
  // cuts every walk alike: no narrowed range.
  ArrayAttr roles = group.getRoles();
  if (terms.empty() || llvm::all_of(axes, [&](unsigned a) {
        StringRef role = a < roles.size() ? cast<StringAttr>(roles[a]).getValue() : StringRef();
        return role == "fold_split" || role == "split_k";
      }))
    return;
  os << "\n\ndef " << kname << "_FOLD_TILES(p, _v, _c):\n"
     << "    \"\"\"Tiles the tile walks of the program at group coordinates `_c` step through (binding `p`, views `_v`).\"\"\"\n";
  for (const std::string &l : lines)
    os << l << "\n";
  os << "    return " << llvm::join(terms, " + ") << "\n";
  os << "\n\n" << kname << "_FOLD_AXES = (";
  for (unsigned a : axes)
    os << a << ", ";
  os << ")\n";
  SmallVector<std::string> extents;
  for (Value e : group.getExtents()) {
    foreign = false;
    FailureOr<std::string> t = wrapper::hostLaunchExprText(e, nameOf, paramText, shapeText, reject);
    extents.push_back(failed(t) || foreign ? std::string("None") : *t);
  }
  os << "\n\ndef " << kname << "_GROUP_EXTENTS(p, _v):\n"
     << "    \"\"\"The execution group's extents (its coordinates' ranges) at binding `p` on views `_v`.\"\"\"\n"
     << "    return (" << llvm::join(extents, ", ") << ",)\n";
}

LogicalResult Serializer::run() {
  Block &entry = kernel.getBody().front();
  std::string kname = kernel.getSymName().str();
  // The launch configuration is a declared parameter like any other: the
  // wrapper passes its bound value, never a provider default chosen here.
  for (StringRef launchParam : {triton::kWarpsParam, triton::kStagesParam})
    if (!kernel.getParam(launchParam))
      return kernel.emitError() << "declares no launch parameter '" << launchParam
                                << "'; run pgpu-triton-legalize first";
  // Kernel parameters: each view is a pointer plus its shape and strides. `wrapper` collects the
  // host side (LaunchWrapper.h): its checks, and each launch argument with how a planned call gets it.
  SmallVector<std::string> kernelParams, wrapperParams;
  triton::LaunchWrapperSpec wrapper;
  wrapper.kernel = kname;
  auto launchArg = [&](triton::LaunchArg::Kind kind, std::string host, std::string argName = "") {
    wrapper.args.push_back({kind, std::move(argName), std::move(host)});
  };
  // The first `view.shape[axis]` that names each shape symbol: it is passed as the symbol's kernel
  // parameter, and later views naming the symbol are checked equal to it.
  llvm::StringMap<std::string> symbolSource;
  std::string firstView;
  for (auto [i, arg] : llvm::enumerate(entry.getArguments())) {
    auto abiName = kernel.getArgAttrOfType<StringAttr>(i, "kir.name");
    std::string n = abiName ? abiName.str() : "arg" + std::to_string(i);
    names[arg] = n;
    if (auto view = dyn_cast<pgpu::ViewType>(arg.getType())) {
      std::string dtype = torchType(view.getElementType());
      if (dtype.empty())
        return kernel.emitError() << "the Triton wrapper has no torch dtype for " << view.getElementType();
      kernelParams.push_back(n);
      launchArg(triton::LaunchArg::View, n, n);
      wrapperParams.push_back(n);
      std::string extents;
      for (auto [axis, e] : llvm::enumerate(view.getExtents())) {
        std::string here = llvm::formatv("{0}.shape[{1}]", n, axis).str();
        if (axis)
          extents += ", ";
        if (auto s = dyn_cast<StringAttr>(e)) {
          extents += "'" + s.str() + "'";
          std::string symbolParam = "_extent_" + s.str();
          auto [it, first] = symbolSource.try_emplace(s.getValue(), here);
          if (first) {
            kernelParams.push_back(symbolParam);
            launchArg(triton::LaunchArg::Fixed, here);
          }
          extentSpelling[{arg, unsigned(axis)}] = symbolParam;
        } else {
          std::string literal = std::to_string(cast<IntegerAttr>(e).getInt());
          extents += literal;
          extentSpelling[{arg, unsigned(axis)}] = literal;
        }
      }
      wrapper.checks.push_back(llvm::formatv("_check_view('{0}', {0}, {1}, ({2}{3}), _extents, _device{4})", n, dtype,
                                             extents, view.getRank() == 1 ? "," : "",
                                             view.isWritable() ? ", writes=True" : "")
                                   .str());
      wrapper.views.push_back({n, view.isWritable()});
      if (firstView.empty())
        firstView = n;
      for (unsigned axis = 0; axis < view.getRank(); ++axis) {
        kernelParams.push_back(llvm::formatv("{0}_stride{1}", n, axis).str());
        launchArg(triton::LaunchArg::Fixed, llvm::formatv("{0}.stride({1})", n, axis).str());
      }
    } else if (arg.getType().isIntOrIndexOrFloat()) {
      kernelParams.push_back(n);
      launchArg(triton::LaunchArg::Scalar, n, n);
      wrapperParams.push_back("*" + n); // keyword-only in the wrapper
      // The declared type's range (Triton passes a float as fp32 and an int as i32 or i64).
      auto [kind, bounds] = wrapper::scalarCheck(arg.getType());
      wrapper.checks.push_back(
          llvm::formatv("_check_scalar('{0}', {0}, {1}{2})", n, kind, bounds.empty() ? "" : ", " + bounds).str());
      wrapper.scalars.push_back({n, {kind, bounds}});
    } else {
      // Invocation workspace (seed 000 §2): a compiler-private pointer the wrapper allocates per call.
      auto buffer = cast<pgpu::BufferType>(arg.getType());
      if (torchType(buffer.getElementType()).empty())
        return kernel.emitError() << "the Triton wrapper has no torch dtype for " << buffer.getElementType();
      kernelParams.push_back(n);
      launchArg(triton::LaunchArg::Workspace, "_ws_" + n, n);
      workspaces.push_back(arg);
    }
  }
  // Workspace sizes: static extents, bound parameters, or shape symbols (their first view's extent
  // in the wrapper, the symbol's kernel parameter in the kernel).
  for (BlockArgument arg : workspaces) {
    auto buffer = cast<pgpu::BufferType>(arg.getType());
    if (firstView.empty())
      return kernel.emitError() << "the Triton wrapper allocates workspace on the device of a view argument; "
                                   "this kernel has none";
    SmallVector<std::string> host, device;
    for (Attribute e : buffer.getExtents()) {
      if (auto size = dyn_cast<IntegerAttr>(e)) {
        host.push_back(std::to_string(size.getInt()));
      } else if (pgpu::WorkspaceExtentOp sized = pgpu::workspaceExtent(kernel, cast<StringAttr>(e).getValue())) {
        // A named LaunchExpr: the wrapper evaluates it as it evaluates the grid; the kernel reads the
        // same value, computed in its body from its launch-time arguments.
        FailureOr<std::string> size = hostExpr(sized.getSize());
        if (failed(size))
          return failure();
        host.push_back(*size);
        device.push_back(expr(sized.getSize()));
        continue;
      } else if (kernel.getParam(cast<StringAttr>(e).getValue())) {
        host.push_back(std::to_string(param(cast<StringAttr>(e).getValue())));
      } else {
        auto source = symbolSource.find(cast<StringAttr>(e).getValue());
        if (source == symbolSource.end())
          return kernel.emitError() << "workspace extent '" << cast<StringAttr>(e).getValue()
                                    << "' names no view extent";
        host.push_back(source->second);
      }
      device.push_back(isa<StringAttr>(e) && !kernel.getParam(cast<StringAttr>(e).getValue())
                           ? "_extent_" + cast<StringAttr>(e).getValue().str()
                           : host.back());
    }
    workspaceExtents[arg] = device;
    unsigned index = arg.getArgNumber();
    triton::LaunchWorkspace ws;
    ws.name = names[arg];
    ws.dtype = torchType(buffer.getElementType());
    ws.device = firstView + ".device";
    ws.count = host.empty() ? "1" : "(" + llvm::join(host, ") * (") + ")";
    if (auto init = kernel.getArgAttrOfType<TypedAttr>(index, "pgpu.init"))
      ws.init = isa<FloatAttr>(init) ? floatLiteral(cast<FloatAttr>(init).getValueAsDouble())
                                     : std::to_string(cast<IntegerAttr>(init).getInt());
    // Launch-sized workspace may be empty on a call (a path this call does not take): then a
    // zero-element tensor made once per dtype and device, not an allocation per call.
    ws.launchSized = llvm::any_of(buffer.getExtents(), [&](Attribute e) {
      auto n = dyn_cast<StringAttr>(e);
      return n && pgpu::workspaceExtent(kernel, n.getValue());
    });
    // Tickets: every use a pgpu.last_program's ticket, whose last arrival returns it to 0 (below), or an
    // atomic read of it (pgpu-zero-first's wait for the first arrival), so the wrapper keeps one zeroed
    // buffer (LaunchWrapper.h).
    // So is workspace a pass marks `pgpu.kept` (returned to its initial value by the kernel:
    // pgpu-atomic-partials' merged sums).
    auto init = kernel.getArgAttrOfType<IntegerAttr>(index, "pgpu.init");
    ws.ticket = (init && init.getInt() == 0 && buffer.getElementType().isInteger(32) && !arg.use_empty() &&
                 llvm::all_of(arg.getUses(), [](OpOperand &use) {
                   if (isa<pgpu::AtomicLoadOp>(use.getOwner()))
                     return true;
                   auto last = dyn_cast<pgpu::LastProgramOp>(use.getOwner());
                   return last && use.get() == last.getTicket() && use.getOperandNumber() == 0;
                 })) ||
                (kernel.getArgAttr(index, "pgpu.kept") && kernel.getArgAttr(index, "pgpu.init"));
    wrapper.workspaces.push_back(ws);
  }
  // The body: launch-time values, then the program space.
  pgpu::ProgramSpaceOp space;
  int indent = 1;
  SmallVector<Operation *> entryOps; // launch-time values, spelled again by each Gluon partition
  for (Operation &op : entry.without_terminator()) {
    if (auto ps = dyn_cast<pgpu::ProgramSpaceOp>(op)) {
      space = ps;
      continue;
    }
    if (isa<pgpu::WorkspaceExtentOp>(op)) // spelled where workspace is sized (above)
      continue;
    if (failed(emitOp(op, indent)))
      return failure();
    entryOps.push_back(&op);
  }
  if (!space || space.getExtents().size() != 1)
    return kernel.emitError() << "the Triton provider needs a one-dimensional program space (legalization "
                                 "flattens higher ranks; not implemented yet)";
  line(indent, name(space.getBody().getArgument(0)) + " = tl.program_id(0)");
  if (failed(emitBlock(space.getBody().front(), indent)))
    return failure();
  // The warp-specialized Gluon spelling of this binding, beside the Triton one (which runs where the
  // Gluon one cannot: views TMA cannot describe, the interpreter). Where this binding has none, the
  // source says why and the Triton spelling runs.
  bool gluonOn = dryRun || (kernel.getParam(triton::kGluonParam) && param(triton::kGluonParam) == 1);
  std::string gluonRefused;
  if (gluonOn) {
    auto saved = std::make_tuple(descriptors, descriptorText, hostDescriptors, describedViews);
    if (failed(emitGluon(space, entryOps))) {
      if (dryRun)
        return failure();
      std::tie(descriptors, descriptorText, hostDescriptors, describedViews) = saved;
      splitSymbol.clear();
      splitParts = 1;
      gluonText.clear();
      gluonNeeds.clear();
      gluonRefused = gluonWhy ? gluonWhy->second : std::string("unknown");
      if (gluonWhy && pgpu::remarksEnabled(gluonWhy->first))
        emitRemark(gluonWhy->first->getLoc()) << "triton: GLUON=1 has no Gluon spelling here (" << gluonWhy->second
                                              << "); the Triton spelling runs";
    }
    if (dryRun)
      return success();
  }
  // Box accesses spelled both ways: a constexpr picks tensor descriptors when every described view
  // meets TMA's rules (16-byte aligned base and leading stride, unit last stride) on this call.
  if (!descriptors.empty()) {
    kernelParams.push_back("USE_TMA: tl.constexpr");
    std::string ok = "not _interpreting()";
    // The device's architecture: tensor descriptors need sm_90 or later, the Gluon spelling's
    // warpgroup MMAs sm_90 itself (the switch picks both: elsewhere the Triton kernel runs through
    // pointers).
    if (!describedViews.empty())
      ok += llvm::formatv(" and _arch({0}) {1}", name(describedViews.front()), gluonText.empty() ? ">= 9" : "== 9").str();
    for (Value v : describedViews) {
      std::string n = name(v);
      // TMA's rules: a 16-byte aligned base, a unit last stride, every other stride a multiple of
      // 16 bytes (spelled per axis: no generator on the launch path).
      auto type = cast<pgpu::ViewType>(v.getType());
      unsigned rank = type.getExtents().size(), perSixteen = 128 / type.getElementType().getIntOrFloatBitWidth();
      ok += llvm::formatv(" and {0}.data_ptr() % 16 == 0 and {0}.stride({1}) == 1", n, rank - 1).str();
      for (unsigned axis = 0; axis + 1 < rank; ++axis)
        ok += llvm::formatv(" and {0}.stride({1}) % {2} == 0", n, axis, perSixteen).str();
      if (!gluonText.empty()) // Gluon's descriptors describe nonempty views only
        ok += llvm::formatv(" and {0}.numel() > 0", n).str();
    }
    // A Gluon binding's switch also asks for the guard values its kernel spells (gluonNeeds): elsewhere
    // the Triton kernel runs, reading through pointers.
    for (auto &[guard, value] : gluonNeeds)
      for (auto &[name, hostText] : guards)
        if (name == guard)
          ok += std::string(value ? " and " : " and not ") + hostText;
    launchArg(triton::LaunchArg::Fixed, ok);
    wrapper.tmaArg = "_a" + std::to_string(wrapper.args.size() - 1);
    for (auto [i, d] : llvm::enumerate(hostDescriptors)) {
      kernelParams.push_back("_desc" + std::to_string(i));
      launchArg(triton::LaunchArg::Descriptor, d.second, d.first);
    }
  }
  for (auto &[param, host] : guards) {
    kernelParams.push_back(param + ": tl.constexpr");
    launchArg(triton::LaunchArg::Fixed, host);
  }
  wrapper.keyed = keyedFacts;
  FailureOr<std::string> grid = hostExpr(space.getExtents()[0]);
  if (failed(grid))
    return failure();

  // Scalars come after views in the wrapper signature, keyword-only.
  for (const std::string &p : wrapperParams)
    (p[0] == '*' ? wrapper.keywords : wrapper.positional).push_back(p[0] == '*' ? p.substr(1) : p);
  wrapper.grid = *grid;
  wrapper.device = firstView.empty() ? std::string("0") : firstView + ".get_device()";
  wrapper.warps = param(triton::kWarpsParam);
  wrapper.stages = param(triton::kStagesParam);
  // The declared search space and the bound values, for the tuner (seed 003:
  // only declared parameters can be searched; winners live outside the IR).
  wrapper::emitDeclaredParams(os, kname, kernel.getParamsAttr(), [&](StringRef n) { return int64_t(param(n)); },
                              kernel->getAttrOfType<DictionaryAttr>(wrapper::kSegmentsAttr));
  // Resource estimates of a binding, for pruning before compiling (issue 8; Resources.h).
  llvm::StringMap<int64_t> bound;
  if (auto declared = kernel.getParams())
    for (Attribute a : *declared)
      bound[cast<pgpu::ParamAttr>(a).getName().getValue()] = param(cast<pgpu::ParamAttr>(a).getName().getValue());
  triton::ResourceModel resources = triton::estimateResources(kernel, bound);
  os << "\n\ndef " << kname << "_PRUNE(p):\n"
     << "    \"\"\"Why binding `p` would exceed a target limit (estimated from the program), or None.\"\"\"\n"
     << "    if " << resources.pythonSharedNeeded() << " > " << resources.sharedLimit << ":\n"
     << "        return 'shared memory'\n";
  // Registers per thread of the carried fragments, of the largest fragment and, where the program has
  // them, of the tiles an FMA-spelled contraction holds at once, of a fragment scan's components and
  // prefixes, of the loads a lanewise walk's iteration has in flight and of a chained product's tiles
  // (Resources.h).
  std::vector<std::string> registerBytes{triton::ResourceModel::pythonMax(resources.carriedBytes),
                                         triton::ResourceModel::pythonMax(resources.fragmentBytes)};
  if (!resources.fmaContractBytes.empty())
    registerBytes.push_back(triton::ResourceModel::pythonMax(resources.fmaContractBytes));
  if (!resources.scanBytes.empty())
    registerBytes.push_back(triton::ResourceModel::pythonMax(resources.scanBytes));
  if (!resources.inFlightLoadBytes.empty())
    registerBytes.push_back(triton::ResourceModel::pythonMax(resources.inFlightLoadBytes));
  for (auto [i, bytes] : llvm::enumerate(registerBytes))
    os << "    if -(-(" << bytes << ") // 4 // (32 * p.get('" << triton::kWarpsParam << "', 4))) > "
       << (i == 0 ? resources.carriedStateLimit : resources.carriedRegisterLimit) << ":\n"
       << "        return 'registers'\n";
  // A chained product's tiles, live together around the second product, under their own budget.
  if (!resources.chainedProductBytes.empty())
    os << "    if -(-(" << triton::ResourceModel::pythonMax(resources.chainedProductBytes) << ") // 4 // (32 * p.get('"
       << triton::kWarpsParam << "', 4))) > " << resources.chainedRegisterLimit << ":\n"
       << "        return 'chained registers'\n";
  os << "    return None\n";
  // Parameters that size fragments: the tuner's first moves (they change bytes a program moves,
  // registers and shared memory; Resources.h).
  os << "\n\n" << kname << "_SIZES = (";
  if (auto declared = kernel.getParams())
    for (Attribute a : *declared) {
      StringRef name = cast<pgpu::ParamAttr>(a).getName().getValue();
      if (llvm::any_of(resources.fragmentBytes, [&](const triton::Monomial &m) { return llvm::is_contained(m.params, name.str()); }))
        os << "'" << name << "', ";
    }
  os << ")\n";
  // Bytes one iteration of each reduction loop loads, by the parameter that steps it (Resources.h):
  // a call's default grows such a step where few programs run. Spelled only where there is one.
  if (!resources.reductionSteps.empty()) {
    os << "\n\ndef " << kname << "_LOOP_LOADS(p):\n"
       << "    \"\"\"Bytes one iteration of the reduction loops stepped by each parameter loads (Resources.h).\"\"\"\n"
       << "    return {";
    for (auto [i, step] : llvm::enumerate(resources.reductionSteps))
      os << (i ? ", " : "") << "'" << step.first << "': " << triton::ResourceModel::pythonMax(step.second);
    os << "}\n";
  }
  // Bytes of the buffers the pipelined walks hold (LOOP_STAGES - 1 copies of each tile they load): a call's
  // default keeps them within what a multiprocessor should have in flight. Spelled only where declared.
  if (kernel.getParam(triton::kLoopStagesParam) && !resources.loopBuffers.empty())
    os << "\n\ndef " << kname << "_LOOP_BUFFERS(p):\n"
       << "    \"\"\"Bytes of the shared-memory buffers of the walks pipelined LOOP_STAGES deep (Resources.h).\"\"\"\n"
       << "    return " << triton::ResourceModel::pythonMax(resources.loopBuffers) << "\n";
  // The program count of a binding on a call's views (a resource fact: a call's FOLD_SPLIT default
  // compares it with the multiprocessors), or None where it reads an ABI scalar.
  {
    bool scalar = false;
    FailureOr<std::string> programs = wrapper::hostLaunchExprText(
        space.getExtents()[0], [&](Value v) { scalar = true; return std::string("0"); },
        [&](StringRef n) { return "p['" + n.str() + "']"; },
        [&](Value view, int64_t axis) { return llvm::formatv("_v['{0}'].shape[{1}]", names[view], axis).str(); },
        [&](Operation *, StringRef) { return failure(); });
    os << "\n\ndef " << kname << "_PROGRAMS(p, _v):\n"
       << "    \"\"\"The program count of binding `p` on views `_v` ({name: tensor}), or None.\"\"\"\n"
       << "    return " << (succeeded(programs) && !scalar ? *programs : std::string("None")) << "\n";
  }
  // The tiles a program's tile walks step through where that number varies with the program's
  // coordinates (a fold range narrowed per block, pgpu-narrow-fold-ranges, seed 002 §3.5: causal
  // attention's triangle, a sliding window's band): a call's default sizes the fold's tile by the
  // walk's length (python/tessel/_fold_tiles.py). Spelled only where such a walk exists.
  emitFoldTiles(os, kname, space, [&](Value view, int64_t axis) {
    return llvm::formatv("_v['{0}'].shape[{1}]", names[view], axis).str();
  });
  // Whether a binding's launch on a call's views takes an element-wise branch that a launch-fact guard
  // keeps beside a contracting one (attention's head size past BLOCK_D): the tuner leaves such bindings
  // out where others do not take it (python/tessel/_tune.py, candidates). None where a guard reads an
  // ABI scalar.
  {
    bool scalar = false;
    std::vector<std::string> taken;
    for (auto [guard, whenTrue] : elementwiseGuards) {
      FailureOr<std::string> text = wrapper::hostLaunchExprText(
          guard.getCondition(), [&](Value) { scalar = true; return std::string("0"); },
          [&](StringRef n) { return "p['" + n.str() + "']"; },
          [&](Value view, int64_t axis) { return llvm::formatv("_v['{0}'].shape[{1}]", names[view], axis).str(); },
          [&](Operation *, StringRef) { return failure(); });
      if (failed(text))
        scalar = true;
      else
        taken.push_back(std::string(whenTrue ? "" : "not ") + "(" + *text + ")");
    }
    llvm::sort(taken);
    taken.erase(std::unique(taken.begin(), taken.end()), taken.end());
    os << "\n\ndef " << kname << "_ELEMENTWISE(p, _v):\n"
       << "    \"\"\"Whether binding `p` on views `_v` takes an element-wise branch beside a contracting one, or None.\"\"\"\n"
       << "    return " << (scalar ? std::string("None") : taken.empty() ? std::string("False") : llvm::join(taken, " or "))
       << "\n";
    // The declared parameters only those element-wise branches use (a row block of the element-wise
    // realization): a launch that takes none of them does not depend on them, so the tuner keeps them at
    // their defaults there instead of compiling and timing identical kernels.
    llvm::StringSet<> inside, outside;
    auto note = [](Operation *op, llvm::StringSet<> &names) {
      if (auto p = dyn_cast<pgpu::ParamOp>(op))
        names.insert(p.getName());
      for (Type t : llvm::concat<const Type>(op->getResultTypes(), op->getOperandTypes()))
        if (auto f = dyn_cast<pgpu::FragmentType>(t))
          for (Attribute e : f.getExtents())
            if (auto n = dyn_cast<StringAttr>(e))
              names.insert(n.getValue());
    };
    llvm::SmallPtrSet<Region *, 4> elementwise;
    for (auto [guard, whenTrue] : elementwiseGuards)
      elementwise.insert(whenTrue ? &guard.getThenRegion() : &guard.getElseRegion());
    kernel.walk([&](Operation *op) {
      bool within = false;
      for (Region *r = op->getParentRegion(); r && !within; r = r->getParentRegion())
        within = elementwise.contains(r);
      note(op, within ? inside : outside);
    });
    os << "\n\n" << kname << "_ELEMENTWISE_ONLY = (";
    if (auto declared = kernel.getParams())
      for (Attribute a : *declared) {
        StringRef name = cast<pgpu::ParamAttr>(a).getName().getValue();
        if (inside.contains(name) && !outside.contains(name))
          os << "'" << name << "', ";
      }
    os << ")\n";
  }
  // WARPS's heuristic default of a binding: a call that binds covering defaults re-evaluates it.
  os << "\n\ndef " << kname << "_WARPS(p):\n"
     << "    \"\"\"The heuristic WARPS of binding `p` (Resources.h, ResourceModel::warpsAt).\"\"\"\n"
     << "    return " << resources.pythonWarps() << "\n";
  os << helperText;
  os << "\n\n@triton.jit\ndef _" << kname << "_kernel(" << llvm::join(kernelParams, ", ") << "):\n";
  os << descriptorText;
  os << bodyText;
  if (!gluonRefused.empty())
    os << "\n\n# GLUON=1: no warp-specialized Gluon spelling of this binding (" << gluonRefused
       << "); the Triton kernel above runs.\n";
  if (!gluonText.empty()) {
    // Partitions take the kernel's parameters and the rings; constexprs stay constexprs.
    SmallVector<std::string> glParams, args, rings;
    for (const std::string &p : kernelParams) {
      glParams.push_back(StringRef(p).ends_with(": tl.constexpr") ? p.substr(0, p.size() - 14) + ": gl.constexpr" : p);
      args.push_back(p.substr(0, p.find(':')));
    }
    for (unsigned i = 0; i < streamDescriptor.size(); ++i)
      for (StringRef part : {"_ring", "_ready", "_empty"})
        rings.push_back(part.str() + std::to_string(i));
    SmallVector<std::string> partitionParams = glParams, partitionArgs = args;
    partitionParams.append(rings.begin(), rings.end());
    partitionArgs.append(rings.begin(), rings.end());
    const std::string &consumer = gluonText, &loader = gluonLoader;
    os << "\n\n@gluon.jit\ndef _" << kname << "_consumer(" << llvm::join(partitionParams, ", ")
       << ", _PART: gl.constexpr):\n"
       << "    # A consumer partition (" << consumerWarps() << " warps): the whole program";
    if (splitParts > 1)
      os << " on part _PART of its " << splitParts << " parts of " << splitSymbol << " rows";
    os << "; each stream's tile is a\n"
       << "    # ring slot it waits for, reads with wgmma and frees after its last contraction.\n"
       << consumer;
    os << "\n\n@gluon.jit\ndef _" << kname << "_loader(" << llvm::join(partitionParams, ", ") << "):\n"
       << "    # The loader partition (one warp): the program's control and the streams' tile origins only,\n"
       << "    # so it walks the tiles in the consumer's order; each tile a TMA copy into the next free slot.\n"
       << loader;
    os << "\n\n@gluon.jit\ndef _" << kname << "_gluon(" << llvm::join(glParams, ", ") << "):\n";
    os << descriptorText;
    for (const std::string &ring : gluonRings)
      os << ring;
    // The partitions: the consumers (the first is the default partition, the program's num_warps),
    // then the loader, one warp of 24 registers. Split consumers' workers take 240 registers (session
    // 18's hand kernels), the default partition what the program's cap leaves.
    SmallVector<std::string> partitions, workerWarps, workerRegs;
    for (int64_t part = 0; part < splitParts; ++part) {
      partitions.push_back("(_" + kname + "_consumer, (" + llvm::join(partitionArgs, ", ") + ", " +
                           std::to_string(part) + "))");
      if (part > 0) {
        workerWarps.push_back(std::to_string(consumerWarps()));
        workerRegs.push_back("240");
      }
    }
    partitions.push_back("(_" + kname + "_loader, (" + llvm::join(partitionArgs, ", ") + "))");
    workerWarps.push_back("1");
    workerRegs.push_back("24");
    os << "    fence_async_shared()\n"
       << "    gl.warp_specialize([" << llvm::join(partitions, ", ") << "], [" << llvm::join(workerWarps, ", ") << "], ["
       << llvm::join(workerRegs, ", ") << "])\n";
    wrapper.gluon = "_" + kname + "_gluon";
    wrapper.gluonWarps = consumerWarps();
    wrapper.gluonRegs =
        gluonRegisterCap(consumerWarps(), splitParts, gluonRingBytes,
                         std::max(resources.carriedRegistersAt(bound), resources.chainedRegistersAt(bound)));
    splitSymbol.clear();
    splitParts = 1;
  }
  wrapper.indexChecks = wrapper::indexChecks(kernel);
  triton::emitLaunchWrapper(os, wrapper);
  return success();
}

/// The module-level FP8 conversions the spellings of Capabilities.cpp and the casts call, emitted only
/// when some value of the module is FP8 (other modules stay byte-identical). On a GPU the narrowing
/// replaces what cvt.rn.satfinite would saturate (E4M3FN: past 464 and +-inf give NaN; E5M2: from
/// 61440 on and +-inf give inf, built from its bits) so it matches the interpreters and torch's
/// float8 conversion. Triton 3.6's interpreter converts FP8 without ties to even, NaN or infinities
/// (its _convert_float), so under TRITON_INTERPRET=1 the helpers are NumPy, exact.
static std::string float8Prelude(ModuleOp module) {
  bool used = false;
  module.walk([&](Operation *op) {
    auto isF8 = [](Type t) { return triton::isFloat8(pgpu::elementTypeOf(t)); };
    used |= llvm::any_of(op->getResultTypes(), isF8) || llvm::any_of(op->getOperandTypes(), isF8);
    for (Region &r : op->getRegions())
      for (Block &b : r)
        used |= llvm::any_of(b.getArgumentTypes(), isF8);
    return used ? WalkResult::interrupt() : WalkResult::advance();
  });
  if (!used)
    return "";
  return "if _interpreting():\n"
         "    import numpy as np\n"
         "    from triton.runtime.interpreter import TensorHandle\n\n"
         "    _F8 = {'fp8e4nv': (3, 7, 448.0, False), 'fp8e5': (2, 15, 57344.0, True)}  # mantissa, bias, max, inf\n\n"
         "    def _f8_wrap(data, dtype, like):\n"
         "        if not isinstance(like, tl.tensor):\n"
         "            return tl.tensor(TensorHandle(data.reshape(1), dtype), dtype)\n"
         "        return tl.tensor(TensorHandle(data.reshape(like.handle.data.shape), dtype), like.type.with_element_ty(dtype) if like.type.is_block() else dtype)\n\n"
         "    def _f8_encode(v, dtype):\n"
         "        mant, bias, top, has_inf = _F8[dtype.name]\n"
         "        with np.errstate(all='ignore'):\n"
         "            x = np.asarray(v.handle.data if isinstance(v, tl.tensor) else v, dtype=np.float32).astype(np.float64)\n"
         "            a = np.abs(x)\n"
         "            e = np.maximum(np.floor(np.log2(np.where(a > 0, a, 1.0))), 1 - bias)\n"
         "            q = np.rint(a / np.exp2(e - mant)) * np.exp2(e - mant)  # nearest even\n"
         "            e = np.maximum(np.floor(np.log2(np.where(q > 0, q, 1.0))), 1 - bias)\n"
         "            sub = q < 2.0 ** (1 - bias)\n"
         "            m = np.where(sub, q / 2.0 ** (1 - bias - mant), q / np.exp2(e - mant) - 2 ** mant)\n"
         "            bits = np.where(sub, m, (e + bias) * 2 ** mant + m)\n"
         "            over = (q > top) | np.isinf(x)\n"
         "            bits = np.where(over, (31 << 2) if has_inf else 0x7F, bits)\n"
         "            bits = np.where(np.isnan(x) | (over & (not has_inf)), 0x7F, bits)\n"
         "        bits = bits.astype(np.uint8) | np.where(np.signbit(x), 0x80, 0).astype(np.uint8)\n"
         "        return _f8_wrap(bits, dtype, v)\n\n"
         "    def _to_f8e4m3(v):\n"
         "        return _f8_encode(v, tl.float8e4nv)\n\n"
         "    def _to_f8e5m2(v):\n"
         "        return _f8_encode(v, tl.float8e5)\n\n"
         "    def _f8_to_f32(v):\n"
         "        mant, bias, _, has_inf = _F8[v.type.scalar.name]\n"
         "        b = v.handle.data.astype(np.int64)\n"
         "        e, m = (b >> mant) & ((1 << (7 - mant)) - 1), b & ((1 << mant) - 1)\n"
         "        with np.errstate(all='ignore'):\n"
         "            r = np.where(e == 0, m * 2.0 ** (1 - bias - mant), (1 + m / 2.0 ** mant) * np.exp2(e - bias))\n"
         "            top = e == (1 << (7 - mant)) - 1\n"
         "            r = np.where(top & (m == 0) & has_inf, np.inf, r)\n"
         "            r = np.where(top & (m != 0) if has_inf else top & (m == (1 << mant) - 1), np.nan, r)\n"
         "        r = np.where(b & 0x80, -r, r).astype(np.float32)\n"
         "        return _f8_wrap(r, tl.float32, v)\n"
         "else:\n"
         "    @triton.jit\n"
         "    def _to_f8e4m3(v):\n"
         "        \"\"\"f32 -> float8_e4m3fn as torch converts: nearest even; past 464 and +-inf NaN.\"\"\"\n"
         "        return tl.where(tl.abs(v) > 464.0, float('nan'), v).to(tl.float8e4nv)\n\n"
         "    @triton.jit\n"
         "    def _to_f8e5m2(v):\n"
         "        \"\"\"f32 -> float8_e5m2 as torch converts: nearest even; from 61440 on and +-inf inf.\"\"\"\n"
         "        inf = tl.where(v > 0, 124, 252).to(tl.uint8).to(tl.float8e5, bitcast=True)\n"
         "        return tl.where(tl.abs(v) >= 61440.0, inf, v.to(tl.float8e5))\n\n"
         "    @triton.jit\n"
         "    def _f8_to_f32(v):\n"
         "        return v.to(tl.float32)\n\n\n";
}

/// The module-level `libdevice` the spellings of Capabilities.cpp call, emitted only when some op
/// uses it (other modules stay byte-identical). Triton's generic libdevice resolves to the CUDA one
/// when a kernel compiles; TRITON_INTERPRET=1 cannot call extern functions, so there the same
/// functions are evaluated by NumPy in float64 and rounded once to the operand's dtype, which is
/// within every libdevice bound the spellings rely on (types §5).
static std::string libdevicePrelude(ModuleOp module) {
  bool used = false;
  module.walk([&](Operation *op) {
    used |= triton::usesLibdevice(op);
    return used ? WalkResult::interrupt() : WalkResult::advance();
  });
  if (!used)
    return "";
  return "def _libdevice():\n"
         "    \"\"\"Triton's libdevice; under TRITON_INTERPRET=1 NumPy evaluations of the functions used.\"\"\"\n"
         "    if not _interpreting():\n"
         "        from triton.language.extra import libdevice\n"
         "        return libdevice\n"
         "    import math\n"
         "    import types\n"
         "    import numpy as np\n"
         "    from triton.runtime.interpreter import TensorHandle\n\n"
         "    def lift(f):\n"
         "        def apply(*args):\n"
         "            like = next((a for a in args if isinstance(a, tl.tensor)), None)\n"
         "            data = [np.asarray(a.handle.data if isinstance(a, tl.tensor) else a, dtype=np.float64) for a in args]\n"
         "            with np.errstate(all='ignore'):\n"
         "                out = np.asarray(f(*data))\n"
         "            if like is None:  # every operand a Python float: an f32 constant, as Triton types it\n"
         "                return float(out.astype(np.float32))\n"
         "            return tl.tensor(TensorHandle(out.astype(like.handle.data.dtype), like.handle.dtype.scalar), like.type)\n"
         "        return apply\n"
         "    erf = np.vectorize(math.erf, otypes=[np.float64])\n"
         "    return types.SimpleNamespace(tanh=lift(np.tanh), erf=lift(erf), log1p=lift(np.log1p),\n"
         "                                 expm1=lift(np.expm1), exp=lift(np.exp), pow=lift(np.power))\n\n\n"
         "libdevice = _libdevice()\n\n\n"
         "if _interpreting():\n"
         "    _tanh_approx = libdevice.tanh\n"
         "else:\n"
         "    @triton.jit\n"
         "    def _tanh_approx(x):\n"
         "        \"\"\"{approximate} tanh: PTX tanh.approx.f32 (relative error at most 2**-11).\"\"\"\n"
         "        return tl.inline_asm_elementwise(\"tanh.approx.f32 $0, $1;\", \"=f,f\", [x], dtype=tl.float32,\n"
         "                                         is_pure=True, pack=1)\n\n\n";
}

std::optional<std::pair<Operation *, std::string>> Serializer::gluonDryRun() {
  dryRun = true;
  if (succeeded(run()))
    return std::nullopt;
  if (gluonWhy)
    return gluonWhy;
  return std::make_pair(kernel.getOperation(), std::string("the kernel has no Triton spelling"));
}

std::optional<std::pair<Operation *, std::string>> triton::gluonRefusal(pgpu::KernelOp kernel) {
  llvm::StringMap<int64_t> defaults;
  Serializer serializer(kernel, defaults, llvm::nulls());
  return serializer.gluonDryRun();
}

LogicalResult triton::serializeModule(ModuleOp module, const llvm::StringMap<int64_t> &params, raw_ostream &os) {
  // Bindings must name declared parameters and stay inside their domains.
  for (const auto &entry : params) {
    bool declared = false;
    for (pgpu::KernelOp kernel : module.getOps<pgpu::KernelOp>()) {
      pgpu::ParamAttr p = kernel.getParam(entry.getKey());
      if (!p)
        continue;
      declared = true;
      if (!llvm::is_contained(p.getCandidates(), entry.getValue()))
        return kernel.emitError() << "parameter '" << entry.getKey() << "' = " << entry.getValue()
                                  << " is outside its candidate domain ["
                                  << llvm::make_range(p.getCandidates().begin(), p.getCandidates().end())
                                  << "]";
    }
    if (!declared)
      return module.emitError() << "no kernel declares a parameter '" << entry.getKey() << "'";
  }
  os << "# Generated by tessel: Triton source and launch wrappers. Do not edit.\n"
     << "import os\n\nimport torch\nimport triton\nimport triton.language as tl\n"
     << "from triton.runtime import _allocation\n\n\n";
  wrapper::emitCheckView(os, {"Triton", "TRITON_INTERPRET"});
  os << "def _interpreting():\n"
     << "    return os.environ.get('TRITON_INTERPRET') == '1'\n\n\n"
     << "_ARCH = {}  # device -> major compute capability\n\n\n"
     << "def _arch(t):\n"
     << "    \"\"\"The major compute capability of tensor t's CUDA device (0 elsewhere), once per device.\"\"\"\n"
     << "    d = t.device\n"
     << "    if d not in _ARCH:\n"
     << "        _ARCH[d] = torch.cuda.get_device_capability(d)[0] if d.type == 'cuda' else 0\n"
     << "    return _ARCH[d]\n\n\n"
     << libdevicePrelude(module) << float8Prelude(module);
  // Launch-sized workspace (pgpu.workspace_extent) that a call leaves empty takes one shared tensor.
  bool launchSized = false;
  module.walk([&](pgpu::WorkspaceExtentOp) { launchSized = true; });
  if (launchSized)
    os << "_WS_EMPTY = {}\n\n\n"
       << "def _ws_empty(dtype, device):\n"
       << "    \"\"\"A zero-element workspace tensor (made once per dtype and device).\"\"\"\n"
       << "    t = _WS_EMPTY.get((dtype, device))\n"
       << "    if t is None:\n"
       << "        t = _WS_EMPTY[(dtype, device)] = torch.empty(0, dtype=dtype, device=device)\n"
       << "    return t\n\n\n";
  // Gluon (Triton's layout-explicit dialect, in the same wheel) for bindings that ask for it.
  bool gluon = false;
  for (pgpu::KernelOp kernel : module.getOps<pgpu::KernelOp>())
    if (pgpu::ParamAttr p = kernel.getParam(triton::kGluonParam))
      gluon |= params.lookup(triton::kGluonParam) == 1 || (!params.count(triton::kGluonParam) && p.getDefaultValue() == 1);
  if (gluon)
    os << "from triton.experimental import gluon\n"
       << "from triton.experimental.gluon import language as gl\n"
       << "from triton.experimental.gluon.language.nvidia.hopper import (fence_async_shared, mbarrier, tma, warpgroup_mma,\n"
       << "                                                              warpgroup_mma_wait)\n\n\n"
       << "def _gdesc(t, box):\n"
       << "    \"\"\"The Gluon tensor descriptor of all of view `t` with boxes of shape `box` (NVMMA-swizzled in shared\n"
       << "    memory, as the kernel's rings are), made on the host.\"\"\"\n"
       << "    from triton.experimental.gluon.nvidia.hopper import TensorDescriptor\n"
       << "    dtype = {torch.float16: gl.float16, torch.bfloat16: gl.bfloat16, torch.float32: gl.float32}[t.dtype]\n"
       << "    return TensorDescriptor(t, list(t.shape), list(t.stride()), box,\n"
       << "                            gl.NVMMASharedLayout.get_default_for(box, dtype))\n\n\n";
  triton::emitLaunchPrelude(os);
  // Tickets, and workspace the kernel returns to its initial value (pgpu.kept: kir-to-pgpu's per-member
  // histogram rows have no ticket), are kept filled by the wrapper (_zeroed).
  bool tickets = false;
  module.walk([&](pgpu::LastProgramOp) { tickets = true; });
  module.walk([&](pgpu::KernelOp kernel) {
    for (unsigned i = 0, e = kernel.getNumArguments(); i < e; ++i)
      tickets |= kernel.getArgAttr(i, "pgpu.kept") && kernel.getArgAttr(i, "pgpu.init");
  });
  if (tickets)
    triton::emitTicketPrelude(os);
  wrapper::emitCheckScalar(os);
  wrapper::emitCheckApart(os);
  wrapper::emitCheckIndex(os);
  for (pgpu::KernelOp kernel : module.getOps<pgpu::KernelOp>()) {
    Serializer serializer(kernel, params, os);
    if (failed(serializer.run()))
      return failure();
  }
  return success();
}
