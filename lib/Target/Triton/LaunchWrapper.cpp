//===- LaunchWrapper.cpp - the Triton provider's Python launch path -------===//
//
// Spells LaunchWrapper.h's checked and planned calls. A planned call costs a
// handful of tensor attribute reads, one dictionary lookup and the compiled
// kernel's own launcher (issue 18: one call of a small kernel should cost no
// more host time than the equivalent torch op).
//
//===----------------------------------------------------------------------===//

#include "tessel/Target/Triton/LaunchWrapper.h"
#include "tessel/Target/Wrapper.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace tessel;
using namespace tessel::triton;
using llvm::SmallVector;

namespace {

std::string signature(const LaunchWrapperSpec &spec) {
  return wrapper::launchSignature(spec.positional, spec.keywords);
}

/// The call re-passing the wrapper's own arguments (views positionally, scalars by keyword).
std::string forward(const LaunchWrapperSpec &spec) {
  SmallVector<std::string> parts(spec.positional.begin(), spec.positional.end());
  for (const std::string &k : spec.keywords)
    parts.push_back(k + "=" + k);
  return llvm::join(parts, ", ");
}

/// The plan key: everything the checks and Triton's specialization read except addresses and float
/// scalars (`_p_<view>` holds each view's address), with the launch facts read on float scalars. The
/// negative bit is keyed: _check_view refuses such a view, so a plan made for a view without it must not
/// take one with it.
std::string planKey(const LaunchWrapperSpec &spec) {
  SmallVector<std::string> parts;
  for (auto &[n, written] : spec.views)
    parts.push_back(
        llvm::formatv("type({0}), {0}.dtype, {0}.shape, {0}.stride(), {0}.get_device(), _p_{0} & 15, {0}.is_neg()", n));
  for (auto &[n, check] : spec.scalars)
    if (check.first == "int")
      parts.push_back(n);
  // Float scalars stay open, but not the facts a guard decides on them (the plan binds the guard).
  llvm::append_range(parts, spec.keyed);
  return llvm::formatv(parts.size() == 1 && spec.views.empty() ? "({0},)" : "({0})", llvm::join(parts, ", ")).str();
}

/// `_p_a, _p_b = a.data_ptr(), b.data_ptr()` (empty without views).
std::string addresses(const LaunchWrapperSpec &spec) {
  SmallVector<std::string> lhs, rhs;
  for (auto &[n, written] : spec.views)
    lhs.push_back("_p_" + n), rhs.push_back(n + ".data_ptr()");
  if (lhs.empty())
    return "";
  return llvm::join(lhs, ", ") + " = " + llvm::join(rhs, ", ");
}

/// Whether views are compared for aliasing (a written view among two or more).
bool comparesSpans(const LaunchWrapperSpec &spec) {
  return spec.views.size() > 1 && llvm::any_of(spec.views, [](auto &v) { return v.second; });
}

/// What a planned call still checks: written views apart from the others (from their byte spans
/// relative to their addresses, `_lo_<view>` and `_hi_<view>`, which the plan holds), then the
/// scalars the key leaves open.
SmallVector<std::string> planGuards(const LaunchWrapperSpec &spec) {
  SmallVector<std::string> guards;
  if (comparesSpans(spec)) {
    for (unsigned j = 0; j < spec.views.size(); ++j)
      for (unsigned i = 0; i < j; ++i) {
        if (!spec.views[i].second && !spec.views[j].second)
          continue;
        const std::string &a = spec.views[i].first, &b = spec.views[j].first;
        guards.push_back(llvm::formatv("(_p_{0} + _hi_{0} <= _p_{1} + _lo_{1} or _p_{1} + _hi_{1} <= _p_{0} + _lo_{0})",
                                       b, a));
      }
  }
  for (auto &[n, check] : spec.scalars) {
    auto [kind, range] = check;
    if (kind == "int") {
      guards.push_back("type(" + n + ") is int");
      continue;
    }
    std::string guard = "type(" + n + ") is float";
    if (!range.empty()) {
      auto [lo, hi] = llvm::StringRef(range).drop_front().drop_back().split(", ");
      guard += " and " + lo.str() + " <= " + n + " <= " + hi.str();
    }
    guards.push_back(guard);
  }
  return guards;
}

/// The arguments of a plan's launch: each view as tensor and address, then the scalars.
std::string goParams(const LaunchWrapperSpec &spec) {
  SmallVector<std::string> parts;
  for (auto &[n, written] : spec.views)
    parts.push_back(n), parts.push_back("_p_" + n);
  for (auto &[n, check] : spec.scalars)
    parts.push_back(n);
  return llvm::join(parts, ", ");
}

/// The prelude's function making a view's host descriptor for this binding's kernels: Gluon's where the
/// binding has a Gluon kernel (the one its TMA switch launches), else Triton's.
llvm::StringRef descriptorMaker(const LaunchWrapperSpec &spec) { return spec.gluon.empty() ? "_tdesc" : "_gdesc"; }

/// A descriptor argument made on the host when `on` (the TMA switch's value) holds, else None.
std::string descriptor(const LaunchWrapperSpec &spec, const LaunchArg &a, llvm::StringRef on) {
  return llvm::formatv("({0}({1}, {2}) if {3} else None)", descriptorMaker(spec), a.name, a.host, on).str();
}

/// The JIT function a launch calls: the Gluon kernel where the binding has one and `on` (the TMA
/// switch's value) holds, else the Triton kernel.
std::string kernelFunction(const LaunchWrapperSpec &spec, llvm::StringRef on) {
  std::string triton = "_" + spec.kernel + "_kernel";
  if (spec.gluon.empty())
    return triton;
  return llvm::formatv("({0} if {1} else {2})", spec.gluon, on, triton).str();
}

/// The launch's configuration keywords; the Gluon kernel's register cap where it launches (`on`).
std::string launchConfig(const LaunchWrapperSpec &spec, llvm::StringRef on) {
  std::string warps = std::to_string(spec.warps);
  if (!spec.gluon.empty() && spec.gluonWarps > 0 && spec.gluonWarps != spec.warps)
    warps = llvm::formatv("({0} if {1} else {2})", spec.gluonWarps, on, spec.warps).str();
  std::string config = llvm::formatv("num_warps={0}, num_stages={1}", warps, spec.stages);
  if (!spec.gluon.empty() && spec.gluonRegs > 0)
    config += llvm::formatv(", maxnreg=({0} if {1} else None)", spec.gluonRegs, on).str();
  return config;
}

/// The kernel arguments inside a plan's launch: fixed ones are the binder's `_a<i>`; views are
/// addresses (`direct`) or tensors.
std::string goArgs(const LaunchWrapperSpec &spec, bool direct) {
  SmallVector<std::string> parts;
  for (auto [i, a] : llvm::enumerate(spec.args)) {
    switch (a.kind) {
    case LaunchArg::View: parts.push_back(direct ? "_p_" + a.name : a.name); break;
    case LaunchArg::Scalar: parts.push_back(a.name); break;
    case LaunchArg::Workspace: parts.push_back(direct ? "_ws_" + a.name + ".data_ptr()" : "_ws_" + a.name); break;
    case LaunchArg::Fixed: parts.push_back("_a" + std::to_string(i)); break;
    case LaunchArg::Descriptor:
      // Direct: the launcher's expanded form, kept by `_x<i>` while the view's address stays.
      parts.push_back(direct ? llvm::formatv("*_x{0}({1}, _p_{1})", i, a.name).str()
                             : descriptor(spec, a, spec.tmaArg));
      break;
    }
  }
  return llvm::join(parts, ", ");
}

/// `_ws_<name> = ...`: `ws` of `_n_<name>` elements. A planned launch (`stream` given) takes a ticket from
/// the zeroed buffer of its stream (LaunchWrapper.h) and an empty launch-sized workspace from its plan
/// (`_e_<name>`); a checked call and a warm-up (`stream` empty) allocate fresh tensors.
std::string allocation(const LaunchWorkspace &ws, llvm::StringRef stream, llvm::StringRef kernel,
                       llvm::StringRef capturing = "") {
  std::string local = "_ws_" + ws.name, count = "_n_" + ws.name;
  std::string fill =
      ws.init.empty()
          ? llvm::formatv("torch.empty({0}, dtype={1}, device={2})", count, ws.dtype, ws.device).str()
          : llvm::formatv("torch.full(({0},), {1}, dtype={2}, device={3})", count, ws.init, ws.dtype, ws.device).str();
  if (stream.empty())
    return ws.launchSized
               ? llvm::formatv("{0} = _ws_empty({1}, {2}) if {3} == 0 else {4}", local, ws.dtype, ws.device, count, fill)
                     .str()
               : local + " = " + fill;
  if (ws.ticket) // one buffer per ticket argument: two in one launch must not share
    fill = llvm::formatv("_zeroed({0}, {1}, {2}, {3}, '{4}.{5}'{6})", count, ws.dtype, ws.device, stream, kernel,
                         ws.name, capturing.empty() ? "" : ", " + capturing.str());
  return ws.launchSized ? llvm::formatv("{0} = {1} if {2} else _e_{3}", local, fill, count, ws.name).str()
                        : local + " = " + fill;
}

/// What a plan holds of each workspace: its element count (`_n_<name>`) and, launch-sized, the
/// checked call's tensor when that is empty, else None (`_e_<name>`); `args`: as the checked call
/// passes them, else as the binder's parameters.
SmallVector<std::string> workspaceBindings(const LaunchWrapperSpec &spec, bool args) {
  SmallVector<std::string> bound;
  for (const LaunchWorkspace &ws : spec.workspaces)
    bound.push_back("_n_" + ws.name);
  for (const LaunchWorkspace &ws : spec.workspaces)
    if (ws.launchSized)
      bound.push_back(args ? llvm::formatv("_ws_{0} if _n_{0} == 0 else None", ws.name).str() : "_e_" + ws.name);
  return bound;
}

/// A checked call's or a warm-up's workspace: each count evaluated from the views, then fresh tensors.
void emitFreshWorkspace(llvm::raw_ostream &os, const LaunchWrapperSpec &spec) {
  for (const LaunchWorkspace &ws : spec.workspaces)
    os << "    _n_" << ws.name << " = " << ws.count << "\n"
       << "    " << allocation(ws, "", spec.kernel) << "\n";
}

bool hasTickets(const LaunchWrapperSpec &spec) {
  return llvm::any_of(spec.workspaces, [](const LaunchWorkspace &ws) { return ws.ticket; });
}

void emitChecked(llvm::raw_ostream &os, const LaunchWrapperSpec &spec) {
  const std::string &k = spec.kernel;
  SmallVector<std::string> locals;
  for (unsigned i = 0; i < spec.args.size(); ++i)
    locals.push_back("_a" + std::to_string(i));
  SmallVector<std::string> hosts;
  for (const LaunchArg &a : spec.args)
    hosts.push_back(a.kind == LaunchArg::Descriptor ? "None" : a.host);
  SmallVector<std::string> fixed;
  for (auto [i, a] : llvm::enumerate(spec.args))
    if (a.kind == LaunchArg::Fixed)
      fixed.push_back(locals[i]);
  std::string config = launchConfig(spec, spec.tmaArg);

  os << "\n\n_" << k << "_plans = {}  # plan key -> (launch, byte span of each view): see " << k << "\n";
  SmallVector<std::string> keywords(spec.keywords.begin(), spec.keywords.end());
  keywords.push_back(wrapper::kIndicesKeyword.str());
  os << "\n\ndef _" << k << "_checked(" << wrapper::launchSignature(spec.positional, keywords) << "):\n"
     << "    \"\"\"A call checked in full, launched through Triton's JIT. Records the call's plan (the\n"
     << "    launch with every argument its key fixes bound) and returns (key, plan), or None. `_indices`:\n"
     << "    the checked launch mode (index values checked against the extents they index).\"\"\"\n";
  wrapper::emitCallChecks(os, spec.checks, spec.views, spec.indexChecks);
  os << "    _grid = (" << spec.grid << ", 1, 1)\n"
     << "    if _grid[0] > 2147483647:\n"
     << "        raise ValueError(f\"{_grid[0]} programs exceed the launch limit of 2**31 - 1 on grid axis 0\")\n"
     << "    if _grid[0] <= 0:\n"
     << "        return None\n";
  if (std::string data = wrapper::checkData(spec.views); !data.empty())
    os << "    " << data << "\n";
  emitFreshWorkspace(os, spec);
  if (!locals.empty())
    os << "    " << llvm::join(locals, ", ") << (locals.size() == 1 ? "," : "") << " = " << llvm::join(hosts, ", ")
       << "\n";
  if (!spec.tmaArg.empty()) {
    os << "    if " << spec.tmaArg << ":\n        _tma_allocator()\n";
    for (auto [i, a] : llvm::enumerate(spec.args))
      if (a.kind == LaunchArg::Descriptor)
        os << "        " << locals[i] << " = " << descriptorMaker(spec) << "(" << a.name << ", " << a.host << ")\n";
  }
  os << "    _compiled = " << kernelFunction(spec, spec.tmaArg) << "[_grid](" << llvm::join(locals, ", ") << (locals.empty() ? "" : ", ")
     << config << ")\n"
     << "    if _compiled is None and not _interpreting():\n"
     << "        return None\n"
     << "    try:\n";
  std::string addr = addresses(spec);
  if (!addr.empty())
    os << "        " << addr << "\n";
  os << "        _key = " << planKey(spec) << "\n"
     << "    except Exception:  # a view without an address (meta): nothing to plan\n"
     << "        return None\n";
  SmallVector<std::string> bindArgs = {"_compiled", "_grid[0]", spec.device};
  bindArgs.append(fixed.begin(), fixed.end());
  bindArgs.append(workspaceBindings(spec, /*args=*/true));
  os << "    _plan = (_" << k << "_bind(" << llvm::join(bindArgs, ", ") << "),";
  if (comparesSpans(spec))
    for (auto &[n, written] : spec.views)
      os << " *_span(" << n << "),";
  os << ")\n"
     << "    if len(_" << k << "_plans) >= 1024:\n"
     << "        _" << k << "_plans.clear()\n"
     << "    _" << k << "_plans[_key] = _plan\n"
     << "    return _key, _plan\n";

  // The binder: one launch function per plan, its fixed arguments and workspace bindings closed over.
  SmallVector<std::string> binderParams = {"_compiled", "_grid", "_dev"};
  binderParams.append(fixed.begin(), fixed.end());
  binderParams.append(workspaceBindings(spec, /*args=*/false));
  std::string params = goParams(spec);
  bool tickets = hasTickets(spec);
  // `scratchHere`: the launch passes its own global scratch (the direct launch), so Triton's allocator
  // need not be set.
  // Kept buffers ask whether the stream is capturing a CUDA graph (a driver call, ~1.7 us on the H200):
  // once per launch where there are several (split-K's tickets and merged sums), and not on the default
  // stream (raw handle 0), on which torch.cuda.graph refuses to capture.
  unsigned kept = llvm::count_if(spec.workspaces, [](const LaunchWorkspace &ws) { return ws.ticket; });
  auto prologue = [&](llvm::StringRef indent, llvm::StringRef stream, bool scratchHere = false) {
    bool once = kept > 1 && stream != "None";
    if (once)
      os << indent << "_cap = " << stream << " != 0 and torch.cuda.is_current_stream_capturing()\n";
    for (const LaunchWorkspace &ws : spec.workspaces)
      os << indent << allocation(ws, stream, k, once ? "_cap" : "") << "\n";
    if (!spec.tmaArg.empty() && !scratchHere)
      os << indent << "if " << spec.tmaArg << ":\n" << indent << "    _tma_allocator()\n";
  };
  os << "\n\ndef _" << k << "_bind(" << llvm::join(binderParams, ", ") << "):\n"
     << "    \"\"\"The launch of one plan: the compiled kernel's own launcher when it needs none of Triton's\n"
     << "    per-call services, else Triton's launch of it, else (interpreter) the JIT.\"\"\"\n"
     << "    _d = None if _compiled is None or _interpreting() else _direct(_compiled)\n"
     << "    if _d is not None:\n"
     << "        _launch, _stream, _function, _coop, _pdl, _meta, _scratch, _descs = _d\n"
     << "        _scratch *= _grid  # bytes of global scratch the launch needs\n";
  unsigned described = 0;
  for (auto [i, a] : llvm::enumerate(spec.args))
    if (a.kind == LaunchArg::Descriptor)
      os << "        _x" << i << " = _HostDesc(_descs[" << described++ << "] if " << spec.tmaArg << " else None, "
         << a.host << ", " << spec.tmaArg << (spec.gluon.empty() ? "" : ", _gdesc") << ")\n";
  os << "\n"
     << "        def _go(" << params << "):\n"
     << "            _s = _stream(_dev)\n";
  prologue("            ", "_s", /*scratchHere=*/true);
  os << "            _launch(_grid, 1, 1, _s, _function, _coop, _pdl, _SCRATCH.take(_dev, _s, _scratch) if _scratch "
     << "else None, None, _meta, None, None, None" << (spec.args.empty() ? "" : ", ") << goArgs(spec, true)
     << ")\n"
     << "    elif _compiled is not None and not _interpreting():\n"
     << "        def _go(" << params << "):\n";
  prologue("            ", "torch.cuda.current_stream(_dev).cuda_stream");
  os << "            _compiled[(_grid, 1, 1)](" << goArgs(spec, false) << ")\n"
     << "    else:\n"
     << "        def _go(" << params << "):\n"
     << "            if not _interpreting():  # switched off since: the checks decide again\n"
     << "                _" << k << "_checked(" << forward(spec) << ")\n"
     << "                return\n";
  prologue("            ", "None");
  std::string launch = kernelFunction(spec, spec.tmaArg) + "[(_grid, 1, 1)](" + goArgs(spec, false) + (spec.args.empty() ? "" : ", ") +
                       config + ")";
  if (tickets)
    os << "            try:\n"
       << "                " << launch << "\n"
       << "            except BaseException:  # stopped midway: tickets may stay counted\n"
       << "                _ZEROED.clear()\n"
       << "                raise\n";
  else
    os << "            " << launch << "\n";
  os << "    return _go\n";
}

/// The names a planned call unpacks its plan into: the launch `_go`, then the byte spans it compares
/// for aliasing.
std::string planTargets(const LaunchWrapperSpec &spec) {
  SmallVector<std::string> names = {"_go"};
  if (comparesSpans(spec))
    for (auto &[n, written] : spec.views)
      names.push_back("_lo_" + n), names.push_back("_hi_" + n);
  return names.size() == 1 ? llvm::formatv("({0},)", names[0]).str() : llvm::join(names, ", ");
}

/// The planned call (LaunchWrapper.h): the plan under the call's key, if its guards hold; `miss` are
/// the statements that hand the call to the full checks and return.
void emitPlanned(llvm::raw_ostream &os, const LaunchWrapperSpec &spec, llvm::StringRef indent,
                 llvm::ArrayRef<std::string> miss) {
  std::string addr = addresses(spec);
  os << indent << "try:\n";
  if (!addr.empty())
    os << indent << "    " << addr << "\n";
  os << indent << "    " << planTargets(spec) << " = _plans[" << planKey(spec) << "]\n"
     << indent << "except Exception:  # not planned yet, or not tensors: the full checks say why\n";
  for (const std::string &statement : miss)
    os << indent << "    " << statement << "\n";
  SmallVector<std::string> guards = planGuards(spec);
  std::string go = "_go(" + goParams(spec) + ")";
  if (guards.empty()) {
    os << indent << go << "\n";
    return;
  }
  std::string separator = llvm::formatv("\n{0}        and ", indent).str();
  os << indent << "if (" << llvm::join(guards, separator) << "):\n"
     << indent << "    " << go << "\n"
     << indent << "else:\n";
  for (const std::string &statement : miss)
    if (statement != "return") // the function's end
      os << indent << "    " << statement << "\n";
}

void emitFront(llvm::raw_ostream &os, const LaunchWrapperSpec &spec) {
  const std::string &k = spec.kernel;
  std::string sig = signature(spec), fwd = forward(spec);
  os << "\n\ndef _" << k << "_front(_plans, _miss):\n"
     << "    \"\"\"The wrapper over a plan table and the call that fills it (`_" << k << "_checked`).\"\"\"\n"
     << "    def " << k << "(" << sig << "):\n"
     << "        \"\"\"Launch " << k << " (one launch; checks the ABI first).\"\"\"\n";
  emitPlanned(os, spec, "        ", {"_miss(" + fwd + ")", "return"});
  os << "    if _CHECKED:  # the checked launch mode: every call is checked in full, no plan is taken\n"
     << "        def " << k << "(" << sig << "):  # noqa: F811\n"
     << "            \"\"\"Launch " << k << " (checked launch mode: ABI and index values checked on every call).\"\"\"\n"
     << "            _" << k << "_checked(" << fwd << (fwd.empty() ? "" : ", ") << "_indices=True)\n"
     << "    return " << k << "\n\n\n"
     << k << " = _" << k << "_front(_" << k << "_plans, _" << k << "_checked)\n";

  // A kernel object's call: the same planned call as its class's `__call__`, taking any arguments.
  // Views are positional-only there (a view by name, a constexpr or a missing argument goes to the
  // kernel object's binding), scalars keyword-only with `_ABSENT` for one not given.
  SmallVector<std::string> params = {"_k"}, views;
  for (const std::string &p : spec.positional)
    params.push_back(p + "=_ABSENT"), views.push_back(p);
  params.push_back("/");
  params.push_back("*_more");
  SmallVector<std::string> scalars;
  for (const std::string &kw : spec.keywords)
    params.push_back(kw + "=_ABSENT"), scalars.push_back("('" + kw + "', " + kw + ")");
  params.push_back("**_rest");
  auto tuple = [](llvm::ArrayRef<std::string> items) {
    return llvm::formatv(items.size() == 1 ? "({0},)" : "({0})", llvm::join(items, ", ")).str();
  };
  std::string miss = "return _miss(_k, *_given(" + tuple(views) + ", _more, _rest, " + tuple(scalars) + "))";
  os << "\n\ndef _" << k << "_entry(_plans, _miss, _traced):\n"
     << "    \"\"\"A kernel object's call over its plan table (the `__call__` of its class; `_k` is the object): the\n"
     << "    planned call of `" << k << "` when the views come positionally and the scalars by keyword and\n"
     << "    torch.compile is not tracing (`_traced()`). Any other call, and one no plan covers, is\n"
     << "    `_miss(_k, args, kwargs)` with the arguments as the caller gave them.\"\"\"\n"
     << "    def __call__(" << llvm::join(params, ", ") << "):\n"
     << "        if _more or _rest or _traced():\n"
     << "            " << miss << "\n";
  emitPlanned(os, spec, "        ", {miss});
  os << "    return __call__\n";
}

void emitWarmup(llvm::raw_ostream &os, const LaunchWrapperSpec &spec) {
  const std::string &k = spec.kernel;
  // The TMA switch's value, evaluated once (`_tma`): its descriptors, the kernel and its launch
  // configuration follow it.
  SmallVector<std::string> hosts;
  std::string tma;
  for (const LaunchArg &a : spec.args) {
    if (!spec.tmaArg.empty() && "_a" + std::to_string(hosts.size()) == spec.tmaArg) {
      tma = a.host;
      hosts.push_back("_tma");
      continue;
    }
    hosts.push_back(a.kind == LaunchArg::Descriptor ? descriptor(spec, a, "_tma") : a.host);
  }
  os << "\n\ndef " << k << "_warmup(" << signature(spec) << "):\n"
     << "    \"\"\"Compile (do not launch) this binding's kernel for these arguments.\"\"\"\n";
  emitFreshWorkspace(os, spec);
  if (!tma.empty())
    os << "    _tma = " << tma << "\n";
  os << "    " << kernelFunction(spec, "_tma") << ".warmup(" << llvm::join(hosts, ", ") << (hosts.empty() ? "" : ", ")
     << "grid=(1,), " << launchConfig(spec, "_tma") << ")\n";
}

} // namespace

void triton::emitLaunchWrapper(llvm::raw_ostream &os, const LaunchWrapperSpec &spec) {
  emitChecked(os, spec);
  emitFront(os, spec);
  emitWarmup(os, spec);
}

void triton::emitTicketPrelude(llvm::raw_ostream &os) {
  os << "_ZEROED = {}  # (device, stream, dtype, ticket argument) -> zeros its launches leave zero\n\n\n"
     << "def _zeroed(n, dtype, device, stream, slot, capturing=None):\n"
     << "    \"\"\"At least `n` zeros for the tickets `slot` (kernel.argument), which the kernel's last arrival\n"
     << "    returns to 0: one buffer per (device, stream, dtype, slot), grown when a launch needs more, not\n"
     << "    an allocation and a fill launch per call (a launch on a stream runs after the one before it\n"
     << "    there, which left the buffer zero). Fresh zeros under CUDA graph capture (a captured fill does\n"
     << "    not run now, and a graph may replay on another stream) and past 2**22 elements (not kept).\n"
     << "    `capturing`: the launch's answer to torch.cuda.is_current_stream_capturing(), asked once, and not\n"
     << "    on the default stream (raw handle 0), where torch does not capture (a driver call saved).\"\"\"\n"
     << "    if capturing is None:\n"
     << "        capturing = stream is not None and stream != 0 and torch.cuda.is_current_stream_capturing()\n"
     << "    if n > 1 << 22 or capturing:\n"
     << "        return torch.zeros(n, dtype=dtype, device=device)\n"
     << "    key = (device, stream, dtype, slot)\n"
     << "    buf = _ZEROED.get(key)\n"
     << "    if buf is None or buf.numel() < n:\n"
     << "        buf = _ZEROED[key] = torch.zeros(max(n, 1024), dtype=dtype, device=device)\n"
     << "    return buf\n\n\n";
}

void triton::emitLaunchPrelude(llvm::raw_ostream &os) {
  os << "def _direct(compiled):\n"
     << "    \"\"\"(launcher, stream lookup, function, cooperative, pdl, metadata, global scratch bytes per program)\n"
     << "    of `compiled` when its launches need none of Triton's per-call services (hooks, profile scratch)\n"
     << "    but global scratch, which the launch takes from _SCRATCH, else None.\"\"\"\n"
     << "    try:\n"
     << "        from torch._C import _cuda_getCurrentRawStream as stream\n"
     << "        from triton import knobs\n"
     << "        compiled._init_handles()\n"
     << "        run = compiled.run\n"
     << "        if (run.profile_scratch_size or knobs.runtime.launch_enter_hook.calls\n"
     << "                or knobs.runtime.launch_exit_hook.calls or run.global_scratch_align > 256):\n"
     << "            return None\n"
     << "        launch, descs = run.launch, ()\n"
     << "        free = getattr(getattr(launch, '__code__', None), 'co_freevars', ())\n"
     << "        if 'launcher' in free and 'tensordesc_meta' in free:  # Triton's expansion of descriptors\n"
     << "            cells = dict(zip(free, (c.cell_contents for c in launch.__closure__)))\n"
     << "            launch, descs = cells['launcher'], cells['tensordesc_meta']\n"
     << "        return (launch, stream, compiled.function, run.launch_cooperative_grid, run.launch_pdl,\n"
     << "                compiled.packed_metadata, run.global_scratch_size * run.num_ctas, descs)\n"
     << "    except (ImportError, AttributeError, TypeError, KeyError):\n"
     << "        return None\n\n\n"
     << "_TensorDescriptor = None\n\n\n"
     << "def _tdesc(t, box):\n"
     << "    \"\"\"The tensor descriptor of all of view `t` with boxes of shape `box`, made on the host.\"\"\"\n"
     << "    global _TensorDescriptor\n"
     << "    if _TensorDescriptor is None:\n"
     << "        from triton.tools.tensor_descriptor import TensorDescriptor as _TensorDescriptor\n"
     << "    return _TensorDescriptor(t, list(t.shape), list(t.stride()), box)\n\n\n"
     << "class _HostDesc:\n"
     << "    \"\"\"A view's tensor descriptor in the form the compiled kernel's own launcher takes (Triton's\n"
     << "    make_tensordesc_arg of `meta`, the kernel's lowering of it), kept while the view's address stays\n"
     << "    (the plan fixes its dtype, shape and strides); (None,) where the TMA switch is off.\"\"\"\n"
     << "    __slots__ = ('meta', 'box', 'on', 'at', 'args', 'make')\n\n"
     << "    def __init__(self, meta, box, on, make=None):\n"
     << "        self.meta, self.box, self.on, self.at, self.args = meta, box, on, None, (None,)\n"
     << "        self.make = make or _tdesc  # _gdesc: a Gluon kernel's descriptor\n\n"
     << "    def __call__(self, t, p):\n"
     << "        if self.on and p != self.at:\n"
     << "            from triton.backends.nvidia.driver import make_tensordesc_arg\n"
     << "            args = make_tensordesc_arg(self.make(t, self.box), self.meta)\n"
     << "            if self.meta is None:  # the base tensor itself is passed: not kept\n"
     << "                return args\n"
     << "            self.at, self.args = p, args\n"
     << "        return self.args\n\n\n"
     << "_ABSENT = object()  # an argument a kernel object's call was not given\n\n\n"
     << "def _given(views, more, rest, scalars):\n"
     << "    \"\"\"(args, kwargs) of a kernel object's call as the caller gave them, from its planned call's\n"
     << "    parameters: the views (positional only, so those given come first), further positional\n"
     << "    arguments, other keywords and (name, value) of each scalar.\"\"\"\n"
     << "    return (tuple(v for v in views if v is not _ABSENT) + more,\n"
     << "            {**rest, **{n: v for n, v in scalars if v is not _ABSENT}})\n\n\n"
     << "class _Scratch:\n"
     << "    \"\"\"Global scratch a compiled kernel asks for (device-side allocations): one buffer per (device, stream),\n"
     << "    grown when a launch needs more, not allocated per launch (a launch on a stream runs after the one\n"
     << "    before it there; an outgrown buffer stays alive for launches already enqueued or captured).\"\"\"\n"
     << "    def __init__(self):\n"
     << "        self.buffers, self.outgrown = {}, []\n\n"
     << "    def __call__(self, size, align, stream):\n"
     << "        key = (torch.cuda.current_device(), stream)\n"
     << "        buf = self.buffers.get(key)\n"
     << "        if buf is None or buf.numel() < size:\n"
     << "            if buf is not None:\n"
     << "                self.outgrown.append(buf)\n"
     << "            buf = self.buffers[key] = torch.empty(max(size, 1 << 16), dtype=torch.int8, device='cuda')\n"
     << "        return buf\n\n"
     << "    def take(self, device, stream, size):\n"
     << "        \"\"\"The direct launch's scratch: the buffer Triton's allocator call would return (torch's\n"
     << "        allocations are 256-byte aligned), without asking for the current device.\"\"\"\n"
     << "        buf = self.buffers.get((device, stream))\n"
     << "        if buf is None or buf.numel() < size:\n"
     << "            with torch.cuda.device(device):\n"
     << "                buf = self(size, 256, stream)\n"
     << "        return buf\n\n\n"
     << "_SCRATCH = _Scratch()\n\n\n"
     << "def _tma_allocator():\n"
     << "    \"\"\"A launch through Triton's JIT whose kernel asks for global scratch takes tessel's, unless this\n"
     << "    thread has an allocator.\"\"\"\n"
     << "    if isinstance(_allocation._allocator.get(), _allocation.NullAllocator):\n"
     << "        triton.set_allocator(_SCRATCH)\n\n\n";
}
