//===- FakeCuda.cpp - a stand-in libcuda for the runtime's CPU tests -------===//
//
// Just enough of the CUDA Driver API for launchPTXKernel: host memory plays
// device memory, a module load checks that the text is PTX with an entry, and
// a launch records its configuration and runs the test's `copy` kernel
// (y[i * sy] = x[i * sx] over f32 views, from the ABI's argument words).
//
//===----------------------------------------------------------------------===//

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {
std::string lastKernel;
unsigned lastGrid[3], lastBlock[3], lastShared, optedShared;
} // namespace

extern "C" {
int cuInit(unsigned) { return 0; }
int cuDeviceGet(int *device, int) {
  *device = 0;
  return 0;
}
int cuDevicePrimaryCtxRetain(void **context, int) {
  *context = reinterpret_cast<void *>(0x1);
  return 0;
}
int cuCtxSetCurrent(void *) { return 0; }
int cuModuleLoadData(void **module, const void *image) {
  if (!std::strstr(static_cast<const char *>(image), ".entry"))
    return 218; // CUDA_ERROR_INVALID_PTX
  *module = reinterpret_cast<void *>(0x2);
  return 0;
}
int cuModuleGetFunction(void **function, void *, const char *name) {
  lastKernel = name;
  *function = reinterpret_cast<void *>(0x3);
  return 0;
}
int cuMemAlloc_v2(unsigned long long *ptr, size_t bytes) {
  *ptr = reinterpret_cast<unsigned long long>(std::malloc(bytes));
  return 0;
}
int cuMemFree_v2(unsigned long long ptr) {
  std::free(reinterpret_cast<void *>(ptr));
  return 0;
}
int cuMemcpyHtoD_v2(unsigned long long dst, const void *src, size_t bytes) {
  std::memcpy(reinterpret_cast<void *>(dst), src, bytes);
  return 0;
}
int cuMemcpyDtoH_v2(void *dst, unsigned long long src, size_t bytes) {
  std::memcpy(dst, reinterpret_cast<const void *>(src), bytes);
  return 0;
}
int cuFuncSetAttribute(void *, int attribute, int value) {
  if (attribute == 8) // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
    optedShared = unsigned(value);
  return 0;
}
int cuLaunchKernel(void *, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                   unsigned shared, void *, void **params, void **) {
  if (shared > optedShared)
    return 1; // CUDA_ERROR_INVALID_VALUE: more dynamic shared memory than the function was opted into
  lastShared = shared;
  lastGrid[0] = gx, lastGrid[1] = gy, lastGrid[2] = gz;
  lastBlock[0] = bx, lastBlock[1] = by, lastBlock[2] = bz;
  if (lastKernel == "copy") {
    auto word = [&](int i) { return *static_cast<int64_t *>(params[i]); };
    auto *x = reinterpret_cast<float *>(word(0));
    int64_t n = word(1), sx = word(2);
    auto *y = reinterpret_cast<float *>(word(3));
    int64_t sy = word(5);
    for (int64_t i = 0; i < n; ++i)
      y[i * sy] = x[i * sx];
  }
  return 0;
}
int cuCtxSynchronize() { return 0; }
int cuGetErrorString(int, const char **text) {
  *text = "fake driver error";
  return 0;
}

// What the tests read back.
const char *fake_last_kernel() { return lastKernel.c_str(); }
unsigned fake_last_grid() { return lastGrid[0]; }
unsigned fake_last_block() { return lastBlock[0]; }
unsigned fake_last_shared() { return lastShared; }
}
