//===- CudaDriverTest.cpp - the PTX runtime's error paths on a CPU machine -===//
//
// launchPTXKernel checks the ABI before it opens the driver, and a missing
// driver is an error, not a crash. (No GPU is used here.)
//
//===----------------------------------------------------------------------===//

#include "tessel/Runtime/CudaDriver.h"

#include "../../lib/Runtime/Driver.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include <gtest/gtest.h>

#include <cstdlib>
#include <dlfcn.h>

using namespace mlir;
using namespace tessel;

namespace {
constexpr const char *kCopy = R"mlir(
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @copy(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"THREADS", [32, 64, 128, 256, 512, 1024], 128, provider = "ptx">]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  pgpu.program_space (%N) {
  ^bb0(%n: index):
    %t = arith.constant true
    %z = arith.constant 0.0 : f32
    %v = pgpu.load %x[%n] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N], in>[index] -> f32
    pgpu.store %v, %y[%n] valid %t : i1 : f32, !pgpu.view<f32, [N], out>[index]
    pgpu.yield
  }
  pgpu.return
}
}
)mlir";

struct CudaDriver : ::testing::Test {
  CudaDriver() {
    context.loadDialect<pgpu::PGPUDialect, arith::ArithDialect>();
    module = parseSourceString<ModuleOp>(kCopy, ParserConfig(&context));
    kernel = *module->getOps<pgpu::KernelOp>().begin();
    params["THREADS"] = 128;
  }
  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  pgpu::KernelOp kernel;
  llvm::StringMap<int64_t> params;
  Builder b{&context};
};

TEST_F(CudaDriver, WrongArgumentCount) {
  interp::HostArray x = interp::HostArray::contiguous(b.getF32Type(), {5});
  std::string error;
  EXPECT_FALSE(runtime::launchPTXKernel(kernel, params, "", {interp::Argument{&x, {}}}, /*launchGuards=*/0, error));
  EXPECT_EQ(error, "kernel @copy takes 2 arguments, got 1");
}

TEST_F(CudaDriver, ViewWithoutArray) {
  interp::HostArray x = interp::HostArray::contiguous(b.getF32Type(), {5});
  std::string error;
  EXPECT_FALSE(runtime::launchPTXKernel(kernel, params, "", {interp::Argument{&x, {}}, interp::Argument{}}, /*launchGuards=*/0, error));
  EXPECT_EQ(error, "argument 1 of @copy is a view; no array given");
}

TEST_F(CudaDriver, WrongElementTypeOrRank) {
  interp::HostArray x = interp::HostArray::contiguous(b.getF32Type(), {5});
  interp::HostArray y = interp::HostArray::contiguous(b.getF16Type(), {5});
  interp::HostArray z = interp::HostArray::contiguous(b.getF32Type(), {5, 2});
  std::string error;
  EXPECT_FALSE(runtime::launchPTXKernel(kernel, params, "", {interp::Argument{&x, {}}, interp::Argument{&y, {}}}, /*launchGuards=*/0, error));
  EXPECT_EQ(error, "argument 1 of @copy expects a rank-1 array of the view's element type");
  EXPECT_FALSE(runtime::launchPTXKernel(kernel, params, "", {interp::Argument{&z, {}}, interp::Argument{&x, {}}}, /*launchGuards=*/0, error));
  EXPECT_EQ(error, "argument 0 of @copy expects a rank-1 array of the view's element type");
}

TEST_F(CudaDriver, NotLegalized) {
  interp::HostArray x = interp::HostArray::contiguous(b.getF32Type(), {5});
  std::string error;
  EXPECT_FALSE(runtime::launchPTXKernel(kernel, {}, "", {interp::Argument{&x, {}}, interp::Argument{&x, {}}}, /*launchGuards=*/0, error));
  EXPECT_EQ(error, "kernel @copy was not legalized for PTX (no THREADS)");
}

/// The stand-in driver (FakeCuda.cpp): the launch path's marshalling, grid and copies on a CPU.
TEST_F(CudaDriver, LaunchThroughAStandInDriver) {
  setenv("TESSEL_LIBCUDA", TESSEL_FAKE_CUDA, 1);
  interp::HostArray x = interp::HostArray::contiguous(b.getF32Type(), {37});
  interp::HostArray y = interp::HostArray::contiguous(b.getF32Type(), {37});
  for (int i = 0; i < 37; ++i)
    x.storage[i].f = 0.5 * i, y.storage[i].f = -1;
  std::string error;
  params["THREADS"] = 256;
  EXPECT_FALSE(runtime::launchPTXKernel(kernel, params, "not ptx", {interp::Argument{&x, {}}, interp::Argument{&y, {}}},
                                        /*launchGuards=*/0, error));
  EXPECT_EQ(error, "cuModuleLoadData (the driver rejected the PTX) failed with CUresult 218 (fake driver error)");
  ASSERT_TRUE(runtime::launchPTXKernel(kernel, params, ".visible .entry copy()", {interp::Argument{&x, {}},
                                       interp::Argument{&y, {}}}, /*launchGuards=*/0, error))
      << error;
  void *fake = dlopen(TESSEL_FAKE_CUDA, RTLD_NOW | RTLD_NOLOAD);
  ASSERT_TRUE(fake);
  auto grid = reinterpret_cast<unsigned (*)()>(dlsym(fake, "fake_last_grid"));
  auto block = reinterpret_cast<unsigned (*)()>(dlsym(fake, "fake_last_block"));
  EXPECT_EQ(grid(), 37u);  // the program space (N), evaluated on the host
  EXPECT_EQ(block(), 256u); // THREADS
  for (int i = 0; i < 37; ++i)
    EXPECT_EQ(y.storage[i].f, 0.5 * i) << i;
  auto shared = reinterpret_cast<unsigned (*)()>(dlsym(fake, "fake_last_shared"));
  EXPECT_EQ(shared(), 0u); // no extern shared array: no dynamic shared memory
  // An extern shared array named `<kernel>_..._dynamic<bytes>` (the selector's, past the static 48 KiB):
  // the function is opted into that much dynamic shared memory (the stand-in refuses a launch that
  // asks for more than the opt-in) and launched with it. Another kernel's array is not this one's.
  const char *dynamic = ".extern .shared .align 16 .b8 copy_counts32768_dynamic131072[];\n"
                        ".extern .shared .align 16 .b8 copy2_counts8192_dynamic32768[];\n.visible .entry copy()";
  ASSERT_TRUE(runtime::launchPTXKernel(kernel, params, dynamic, {interp::Argument{&x, {}}, interp::Argument{&y, {}}},
                                       /*launchGuards=*/0, error))
      << error;
  EXPECT_EQ(shared(), 131072u);
  unsetenv("TESSEL_LIBCUDA");
}

TEST(DynamicShared, BytesFromTheExternArrayName) {
  using runtime::detail::dynamicSharedBytes;
  std::string ptx = ".extern .shared .align 16 .b8 k$g1_counts16384_dynamic65536[];\n"
                    ".extern .shared .align 16 .b8 kk_counts8_dynamic32[];\n"
                    ".shared .align 16 .b8 k$g0_shared0[4096];\n";
  EXPECT_EQ(dynamicSharedBytes(ptx, "k$g1"), 65536u);
  EXPECT_EQ(dynamicSharedBytes(ptx, "kk"), 32u);
  EXPECT_EQ(dynamicSharedBytes(ptx, "k$g0"), 0u); // static arrays only
  EXPECT_EQ(dynamicSharedBytes(ptx, "k"), 0u);    // `k_...` names none (k$g1 is another function)
  EXPECT_EQ(dynamicSharedBytes(".extern .shared .align 16 .b8 k_x_dynamic[];", "k"), 0u); // no size stated
}

TEST_F(CudaDriver, NoDriverIsAnError) {
  setenv("TESSEL_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
  interp::HostArray x = interp::HostArray::contiguous(b.getF32Type(), {5});
  interp::HostArray y = interp::HostArray::contiguous(b.getF32Type(), {5});
  std::string error;
  EXPECT_FALSE(runtime::launchPTXKernel(kernel, params, ".version 7.8\n", {interp::Argument{&x, {}}, interp::Argument{&y, {}}},
                                        /*launchGuards=*/0, error));
  EXPECT_NE(error.find("cannot load the CUDA driver library '/nonexistent/libcuda.so.1'"), std::string::npos) << error;
  // The failure is remembered: a second call reports it again without retrying.
  std::string again;
  EXPECT_FALSE(runtime::launchPTXKernel(kernel, params, ".version 7.8\n", {interp::Argument{&x, {}}, interp::Argument{&y, {}}},
                                        /*launchGuards=*/0, again));
  EXPECT_EQ(again, error);
}
} // namespace
