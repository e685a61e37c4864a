//===- InterpreterTest.cpp - the KIR interpreter through its C++ API -------===//

#include "tessel/Interp/HostData.h"
#include "tessel/Interp/Interpreter.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include <gtest/gtest.h>

#include <cmath>

using namespace mlir;
using namespace tessel;
using namespace tessel::interp;

namespace {
struct KIRInterpreter : ::testing::Test {
  KIRInterpreter() {
    context.loadDialect<kir::KIRDialect, arith::ArithDialect>();
    context.getDiagEngine().registerHandler([this](Diagnostic &d) {
      diagnostics.push_back(d.str());
      return success();
    });
  }
  kir::KernelOp parse(const char *text) {
    module = parseSourceString<ModuleOp>(text, ParserConfig(&context));
    return module ? *module->getOps<kir::KernelOp>().begin() : kir::KernelOp();
  }
  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  std::vector<std::string> diagnostics;
  Builder b{&context};
};

constexpr const char *kLastWriter = R"mlir(
kir.kernel @last(%flag: !kir.view<i32, [1], inout>) {
  %c0 = arith.constant 0 : index
  %c5 = arith.constant 5 : index
  %d = kir.domain %c0 to %c5
  kir.parallel %d {
  ^bb0(%i: index):
    %v = kir.cast %i : index to i32
    %old = kir.atomic_rmw exchange %v, %flag[%c0] order relaxed sharing invocation : i32, !kir.view<i32, [1], inout>[index] -> i32
    kir.yield
  }
  kir.return
}
)mlir";

TEST_F(KIRInterpreter, IterationOrderExposesOrderDependence) {
  kir::KernelOp kernel = parse(kLastWriter);
  ASSERT_TRUE(kernel);
  auto runWith = [&](IterationOrder order) {
    HostArray flag = HostArray::contiguous(b.getI32Type(), {1});
    InterpreterOptions options;
    options.order = order;
    EXPECT_TRUE(succeeded(runKernel(kernel, {Argument{&flag, {}}}, options)));
    return flag.storage[0].i;
  };
  EXPECT_EQ(runWith(IterationOrder::Forward), 4);
  EXPECT_EQ(runWith(IterationOrder::Reverse), 0);
}

TEST_F(KIRInterpreter, OutOfBoundsReadIsAnErrorAtTheOp) {
  kir::KernelOp kernel = parse(R"mlir(
kir.kernel @oob(%x: !kir.view<f32, [N], in>, %y: !kir.view<f32, [N], out>) {
  %c1 = arith.constant 1 : index
  %n = kir.extent "N"
  %n1 = kir.extent "N"
  %d = kir.domain %c1 to %n
  %p = kir.domain %c1 to %n1
  kir.parallel %d {
  ^bb0(%i: index):
    %ip = kir.binary add %i, %c1 : index
    %v = kir.load %x[%ip] : !kir.view<f32, [N], in>[index] -> f32
    kir.store %v, %y[%i] : f32, !kir.view<f32, [N], out>[index]
    kir.yield
  }
  kir.return
}
)mlir");
  ASSERT_TRUE(kernel);
  HostArray x = HostArray::contiguous(b.getF32Type(), {4}), y = HostArray::contiguous(b.getF32Type(), {4});
  std::mt19937_64 rng(1);
  fillRandom(x, rng);
  EXPECT_TRUE(failed(runKernel(kernel, {Argument{&x, {}}, Argument{&y, {}}}, {})));
  ASSERT_FALSE(diagnostics.empty());
  EXPECT_NE(diagnostics.back().find("out-of-bounds read: coordinate 4 on axis 0 of extent 4"), std::string::npos)
      << diagnostics.back();
}

TEST_F(KIRInterpreter, UninitializedBufferReadIsAnError) {
  kir::KernelOp kernel = parse(R"mlir(
kir.kernel @uninit(%y: !kir.view<f32, [4], out>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c2 = arith.constant 2 : index
  %one = arith.constant 1.0 : f32
  %d = kir.domain %c0 to %c4
  %b = kir.buffer over(%d) first_write : !kir.buffer<tensor<?xf32>>
  kir.buffer_store %one, %b[%c2] : f32, !kir.buffer<tensor<?xf32>>[index]
  %v = kir.buffer_load %b[%d] : !kir.buffer<tensor<?xf32>>[!kir.domain] -> tensor<?xf32>
  kir.store %v, %y[%d] : tensor<?xf32>, !kir.view<f32, [4], out>[!kir.domain]
  kir.return
}
)mlir");
  ASSERT_TRUE(kernel);
  HostArray y = HostArray::contiguous(b.getF32Type(), {4});
  EXPECT_TRUE(failed(runKernel(kernel, {Argument{&y, {}}}, {})));
  ASSERT_FALSE(diagnostics.empty());
  EXPECT_NE(diagnostics.back().find("uninitialized buffer element"), std::string::npos);
}

TEST_F(KIRInterpreter, InconsistentExtentsAreRejected) {
  kir::KernelOp kernel = parse(R"mlir(
kir.kernel @copy(%x: !kir.view<f32, [N], in>, %y: !kir.view<f32, [N], out>) {
  kir.return
}
)mlir");
  ASSERT_TRUE(kernel);
  HostArray x = HostArray::contiguous(b.getF32Type(), {4}), y = HostArray::contiguous(b.getF32Type(), {5});
  EXPECT_TRUE(failed(runKernel(kernel, {Argument{&x, {}}, Argument{&y, {}}}, {})));
  ASSERT_FALSE(diagnostics.empty());
  EXPECT_NE(diagnostics.back().find("inconsistent extents for 'N': 4 and 5"), std::string::npos);
}

// A nest of 64 x 64 iterations with two ops each: 8,192 op executions plus their scalar results.
constexpr const char *kNest = R"mlir(
kir.kernel @nest(%flag: !kir.view<i32, [1], inout>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %d = kir.domain %c0 to %c64
  kir.for %d {
  ^bb0(%i: index):
    kir.for %d {
    ^bb0(%j: index):
      %v = kir.cast %j : index to i32
      kir.store %v, %flag[%c0] : i32, !kir.view<i32, [1], inout>[index]
      kir.yield
    }
    kir.yield
  }
  kir.return
}
)mlir";

TEST_F(KIRInterpreter, StepLimitEndsALongRunAtAnOp) {
  kir::KernelOp kernel = parse(kNest);
  ASSERT_TRUE(kernel);
  HostArray flag = HostArray::contiguous(b.getI32Type(), {1});
  InterpreterOptions options; // no step limit: the nest runs to the end
  ASSERT_TRUE(succeeded(runKernel(kernel, {Argument{&flag, {}}}, options)));
  EXPECT_EQ(flag.storage[0].i, 63);
  options.maxSteps = 1000;
  EXPECT_TRUE(failed(runKernel(kernel, {Argument{&flag, {}}}, options)));
  ASSERT_FALSE(diagnostics.empty());
  EXPECT_NE(diagnostics.back().find("the run passes its limit of 1000 steps"), std::string::npos)
      << diagnostics.back();
}

TEST_F(KIRInterpreter, ElementLimitBoundsEachLoop) {
  kir::KernelOp kernel = parse(kNest);
  ASSERT_TRUE(kernel);
  HostArray flag = HostArray::contiguous(b.getI32Type(), {1});
  InterpreterOptions options;
  options.maxElements = 64; // the loops' 64 members fit
  EXPECT_TRUE(succeeded(runKernel(kernel, {Argument{&flag, {}}}, options)));
  options.maxElements = 63;
  EXPECT_TRUE(failed(runKernel(kernel, {Argument{&flag, {}}}, options)));
  ASSERT_FALSE(diagnostics.empty());
  EXPECT_NE(diagnostics.back().find("has 64 members; the interpreter handles at most 63"), std::string::npos)
      << diagnostics.back();
}

TEST_F(KIRInterpreter, StridedViewsAreAddressedByStride) {
  kir::KernelOp kernel = parse(R"mlir(
kir.kernel @copy(%x: !kir.view<f32, [M, N], in>, %y: !kir.view<f32, [M, N], out>) {
  %c0 = arith.constant 0 : index
  %m = kir.extent "M"
  %n = kir.extent "N"
  %dm = kir.domain %c0 to %m
  %dn = kir.domain %c0 to %n
  %t = kir.load %x[%dm, %dn] : !kir.view<f32, [M, N], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
  kir.store %t, %y[%dm, %dn] : tensor<?x?xf32>, !kir.view<f32, [M, N], out>[!kir.domain, !kir.domain]
  kir.return
}
)mlir");
  ASSERT_TRUE(kernel);
  // x is the transpose of a 3x2 row-major array: strides (1, 2).
  HostArray x = HostArray::contiguous(b.getF32Type(), {2, 3});
  x.strides = {1, 2};
  for (int i = 0; i < 6; ++i)
    x.storage[i].f = i;
  HostArray y = HostArray::contiguous(b.getF32Type(), {2, 3});
  ASSERT_TRUE(succeeded(runKernel(kernel, {Argument{&x, {}}, Argument{&y, {}}}, {})));
  double expected[] = {0, 2, 4, 1, 3, 5};
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(y.storage[i].f, expected[i]);
}
} // namespace

namespace {
constexpr const char *kArgmax = R"mlir(
kir.kernel @argmax(%x: !kir.view<f32, [M, N], in>, %v: !kir.view<f32, [M], out>, %i: !kir.view<i64, [M], out>)
    attributes {constexprs = {HIGHEST = false}} {
  %c0 = arith.constant 0 : index
  %m = kir.extent "M"
  %n = kir.extent "N"
  %dm = kir.domain %c0 to %m
  %dn = kir.domain %c0 to %n
  %t = kir.load %x[%dm, %dn] : !kir.view<f32, [M, N], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
  %vals, %idx = kir.arg_reduce argmax %t axis 1 tie lowest nan propagate : tensor<?x?xf32> -> tensor<?xf32>, tensor<?xindex>
  %idx64 = kir.cast %idx : tensor<?xindex> to tensor<?xi64>
  kir.store %vals, %v[%dm] : tensor<?xf32>, !kir.view<f32, [M], out>[!kir.domain]
  kir.store %idx64, %i[%dm] : tensor<?xi64>, !kir.view<i64, [M], out>[!kir.domain]
  kir.return
}
)mlir";

TEST_F(KIRInterpreter, ArgmaxTiesAndNaN) {
  std::string text = kArgmax;
  kir::KernelOp lowest = parse(text.c_str());
  ASSERT_TRUE(lowest);
  double nan = std::nan("");
  // Row 0: a tie between positions 1 and 3. Row 1: NaN at 2 and 4 beats every number.
  double rows[2][5] = {{1, 3, 2, 3, 0}, {5, 1, nan, 7, nan}};
  auto runWith = [&](kir::KernelOp kernel, std::vector<int64_t> &indices, std::vector<double> &values) {
    HostArray x = HostArray::contiguous(b.getF32Type(), {2, 5});
    for (int r = 0; r < 2; ++r)
      for (int c = 0; c < 5; ++c)
        x.storage[r * 5 + c].f = rows[r][c];
    HostArray v = HostArray::contiguous(b.getF32Type(), {2});
    HostArray i = HostArray::contiguous(b.getI64Type(), {2});
    ASSERT_TRUE(succeeded(runKernel(kernel, {Argument{&x, {}}, Argument{&v, {}}, Argument{&i, {}}}, {})));
    indices = {i.storage[0].i, i.storage[1].i};
    values = {v.storage[0].f, v.storage[1].f};
  };
  std::vector<int64_t> idx;
  std::vector<double> val;
  runWith(lowest, idx, val);
  EXPECT_EQ(idx[0], 1);
  EXPECT_EQ(val[0], 3);
  EXPECT_EQ(idx[1], 2);
  EXPECT_TRUE(std::isnan(val[1]));

  size_t at = text.find("tie lowest nan propagate");
  text.replace(at, 24, "tie highest nan ignore  ");
  kir::KernelOp highest = parse(text.c_str());
  ASSERT_TRUE(highest);
  runWith(highest, idx, val);
  EXPECT_EQ(idx[0], 3);
  EXPECT_EQ(idx[1], 3); // NaNs ignored: 7 at position 3
  EXPECT_EQ(val[1], 7);
}
} // namespace
