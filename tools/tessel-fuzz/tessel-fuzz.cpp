//===- tessel-fuzz.cpp - libFuzzer harness over tessel's libraries --------===//
//
// Issue 14's deep run (docs/fuzzing.md): each input is the text of a .mlir
// file, taken through what `tessel compile` and `tessel run` do with one, by
// the same library calls:
//
//   nesting and module placement checks -> parse + verify
//   -> KIR interpreter on small shapes          (tessel run FILE:K)
//   -> pipeline to pgpu                          (tessel compile --emit=pgpu)
//   -> pgpu interpreter on small shapes          (tessel run --stage=pgpu)
//   -> cuTile legalize + serialize               (tessel compile --target=cutile)
//   -> Triton legalize + serialize               (tessel compile --emit=source)
//
// A diagnostic is the expected answer to a malformed input: the harness
// formats and drops it. A crash, a sanitizer report, a leak or a timeout is
// a finding; the input reproduces it with `tessel compile`/`tessel run`.
// Interpretation is bounded (small symbolic extents, InterpreterOptions'
// element and step limits) so that a valid but huge program ends in a
// located error instead of a timeout.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/Support/SourceMgr.h"

#include "tessel/Dialect/KIR/IR/KIR.h"
#include "tessel/Dialect/PGPU/IR/PGPU.h"
#include "tessel/Dialect/Utils/ModulePlacement.h"
#include "tessel/Dialect/Utils/NestingLimit.h"
#include "tessel/Interp/HostData.h"
#include "tessel/Interp/Interpreter.h"
#include "tessel/Interp/LaunchExpr.h"
#include "tessel/Pipeline/Pipeline.h"
#include "tessel/Target/CuTile/CuTile.h"
#include "tessel/Target/Triton/Triton.h"

#include "Reach.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <random>

using namespace mlir;
namespace kir = tessel::kir;
namespace pgpu = tessel::pgpu;
namespace interp = tessel::interp;

TesselFuzzReach tesselFuzzReach;

namespace {

/// Symbolic extents take one of these (seed-chosen per input and name): the
/// odd shapes of the differential tests (empty, one, primes).
constexpr int64_t kExtents[] = {0, 1, 2, 3, 5, 7};
/// A view whose constant extents hold more elements than this is not interpreted.
constexpr int64_t kMaxViewElements = 1 << 12;
/// Interpreter limits per run: small enough to stay well inside -timeout.
constexpr int64_t kMaxTensorElements = 1 << 16;
constexpr int64_t kMaxSteps = 1 << 17;

struct ViewShape {
  Type elementType;
  ArrayRef<Attribute> extents;
  bool isOut;
};

std::optional<ViewShape> viewShape(Type type) {
  if (auto view = dyn_cast<kir::ViewType>(type))
    return ViewShape{view.getElementType(), view.getExtents(), view.getMode() == kir::ViewMode::Out};
  if (auto view = dyn_cast<pgpu::ViewType>(type))
    return ViewShape{view.getElementType(), view.getExtents(), view.getMode() == kir::ViewMode::Out};
  return std::nullopt;
}

/// Arguments for one interpreter run of `kernel`, as `tessel run` binds them
/// (random nonzero inputs, poisoned outputs, `kir.range` on integer views), or
/// nothing when a view is too large to interpret cheaply.
struct Arguments {
  std::vector<std::unique_ptr<interp::HostArray>> arrays;
  SmallVector<interp::Argument> args;
};

std::optional<Arguments> bindArguments(FunctionOpInterface kernel, uint64_t seed) {
  Arguments bound;
  std::mt19937_64 rng(seed);
  llvm::StringMap<int64_t> extents;
  auto extentOf = [&](StringRef symbol) {
    auto [it, inserted] = extents.try_emplace(symbol, 0);
    if (inserted)
      it->second = kExtents[llvm::hash_combine(seed, symbol) % std::size(kExtents)];
    return it->second;
  };
  for (auto [i, type] : llvm::enumerate(kernel.getArgumentTypes())) {
    interp::Argument arg;
    std::optional<ViewShape> view = viewShape(type);
    if (!view) {
      // Scalars: a small nonzero value of the argument's type; buffers: the runtime's workspace.
      if (isa<FloatType>(type))
        arg.scalar.f = 0.5;
      else if (type.isIntOrIndex())
        arg.scalar.i = 1;
      bound.args.push_back(arg);
      continue;
    }
    SmallVector<int64_t> shape;
    int64_t elements = 1;
    for (Attribute extent : view->extents) {
      int64_t size = isa<IntegerAttr>(extent) ? cast<IntegerAttr>(extent).getInt()
                                              : extentOf(cast<StringAttr>(extent).getValue());
      if (size < 0 || size > kMaxViewElements || elements * std::max<int64_t>(size, 1) > kMaxViewElements)
        return std::nullopt;
      elements *= std::max<int64_t>(size, 1);
      shape.push_back(size);
    }
    auto array = std::make_unique<interp::HostArray>(interp::HostArray::contiguous(view->elementType, shape));
    std::optional<std::pair<int64_t, int64_t>> range;
    if (auto attr = kernel.getArgAttrOfType<ArrayAttr>(i, "kir.range"); attr && attr.size() == 2) {
      auto boundOf = [&](Attribute a) -> std::optional<int64_t> {
        if (auto s = dyn_cast<StringAttr>(a))
          return extentOf(s.getValue());
        if (auto n = dyn_cast<IntegerAttr>(a))
          return n.getInt();
        return std::nullopt;
      };
      std::optional<int64_t> lo = boundOf(attr[0]), hi = boundOf(attr[1]);
      if (lo && hi && *lo < *hi)
        range = std::make_pair(*lo, *hi);
    }
    if (view->isOut)
      interp::fillPoison(*array);
    else
      interp::fillRandom(*array, rng, range);
    arg.view = array.get();
    bound.arrays.push_back(std::move(array));
    bound.args.push_back(arg);
  }
  return bound;
}

interp::InterpreterOptions interpreterOptions(uint64_t seed) {
  interp::InterpreterOptions options;
  options.seed = seed;
  options.order = seed & 1 ? interp::IterationOrder::Shuffle : interp::IterationOrder::Forward;
  options.segmentation.kind = seed & 2 ? interp::Segmentation::Random : interp::Segmentation::One;
  options.maxElements = kMaxTensorElements;
  options.maxSteps = kMaxSteps;
  return options;
}

void runKIRKernels(ModuleOp module, uint64_t seed) {
  for (auto kernel : module.getOps<kir::KernelOp>())
    if (std::optional<Arguments> bound = bindArguments(kernel, seed))
      (void)interp::runKernel(kernel, bound->args, interpreterOptions(seed));
}

/// Each parameter at its smallest candidate: the interpreter's answer must hold at every candidate,
/// and the smallest tiles cost the least (a GEMM's contractions at its default tiles took most of
/// the harness's time: `tessel-fuzz --profile`).
llvm::StringMap<int64_t> smallestParams(pgpu::KernelOp kernel) {
  llvm::StringMap<int64_t> smallest;
  if (auto params = kernel.getParams())
    for (Attribute a : *params)
      if (auto p = dyn_cast<pgpu::ParamAttr>(a); p && !p.getCandidates().empty())
        smallest[p.getName()] = *llvm::min_element(p.getCandidates());
  return smallest;
}

void runPGPUKernels(ModuleOp module, uint64_t seed) {
  for (auto kernel : module.getOps<pgpu::KernelOp>()) {
    FailureOr<llvm::StringMap<int64_t>> params = interp::bindParams(kernel, smallestParams(kernel));
    if (failed(params))
      continue;
    if (std::optional<Arguments> bound = bindArguments(kernel, seed))
      (void)interp::runPGPUKernel(kernel, bound->args, *params, interpreterOptions(seed));
  }
}

/// Adds the time from each stage() call to the next (or to its destruction)
/// to that stage's seconds in tesselFuzzReach (`tessel-fuzz --profile`).
class StageClock {
public:
  using Stage = TesselFuzzReach::Stage;
  explicit StageClock(Stage first) : current(first), start(std::chrono::steady_clock::now()) {}
  ~StageClock() { stage(current); }
  void stage(Stage next) {
    auto now = std::chrono::steady_clock::now();
    tesselFuzzReach.seconds[current] += std::chrono::duration<double>(now - start).count();
    current = next;
    start = now;
  }

private:
  Stage current;
  std::chrono::steady_clock::time_point start;
};

/// The stages after parsing, as `tessel compile` and `tessel run` take them.
void runStages(ModuleOp module, MLIRContext &context, uint64_t seed, StageClock &clock) {
  clock.stage(TesselFuzzReach::KIRInterp);
  runKIRKernels(module, seed);

  clock.stage(TesselFuzzReach::Pipeline);
  PassManager toPGPU(&context);
  tessel::buildPipeline(toPGPU, nullptr); // the provider-neutral program
  if (failed(toPGPU.run(module)))
    return;
  ++tesselFuzzReach.pgpu;
  clock.stage(TesselFuzzReach::PGPUInterp);
  runPGPUKernels(module, seed);
  clock.stage(TesselFuzzReach::CuTile);
  {
    OwningOpRef<ModuleOp> copy = module.clone();
    (void)tessel::cutile::compile(*copy, {});
  }
  // What the Triton provider's legalization adds after the neutral program (Pipeline.cpp: §3.6).
  clock.stage(TesselFuzzReach::Triton);
  PassManager legalize(&context);
  legalize.addPass(tessel::triton::createTritonLegalize());
  if (failed(legalize.run(module)))
    return;
  std::string source;
  llvm::raw_string_ostream os(source);
  if (succeeded(tessel::triton::serializeModule(module, {}, os)))
    ++tesselFuzzReach.serialized;
}

/// One input, start to end, in a fresh context (nothing carries over between inputs).
void fuzzOne(StringRef text, const DialectRegistry &registry) {
  if (tessel::findExcessNesting(text) != StringRef::npos || tessel::findMisplacedModule(text) != StringRef::npos ||
      tessel::findExcessResultNumber(text) != StringRef::npos || tessel::findBadDenseArray(text) != StringRef::npos)
    return; // the drivers refuse it with a located error before parsing
  StageClock clock(TesselFuzzReach::Setup);
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  context.printOpOnDiagnostic(false);
  context.loadAllAvailableDialects();
  // Diagnostics are formatted (their printing is tessel code too) and dropped.
  ScopedDiagnosticHandler drop(&context, [](Diagnostic &diag) {
    (void)diag.str();
    return success();
  });
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, "fuzz.mlir"), llvm::SMLoc());
  clock.stage(TesselFuzzReach::Parse);
  {
    OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
    if (module) {
      ++tesselFuzzReach.parsed;
      runStages(*module, context, llvm::hash_value(text), clock);
    }
  }
  clock.stage(TesselFuzzReach::Teardown); // the context's destruction, after the clock's
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const DialectRegistry *registry = [] {
    auto *r = new DialectRegistry();
    r->insert<kir::KIRDialect, pgpu::PGPUDialect, arith::ArithDialect>();
    return r;
  }();
  ++tesselFuzzReach.inputs;
  fuzzOne(StringRef(reinterpret_cast<const char *>(data), size), *registry);
  return 0;
}
