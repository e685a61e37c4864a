//===- CudaLaunch.cpp - the PTX provider's launch, as a C ABI -------------===//

#include "tessel/Runtime/CudaLaunch.h"

#include "Driver.h"

#include <cstring>
#include <vector>

using namespace tessel::runtime::detail;

namespace {
int fail(const std::string &message, char *error, size_t errorBytes) {
  if (error && errorBytes) {
    size_t n = std::min(errorBytes - 1, message.size());
    std::memcpy(error, message.data(), n);
    error[n] = '\0';
  }
  return 1;
}
} // namespace

extern "C" int tessel_ptx_launch(const char *ptx, const char *name, int device, uint64_t grid, uint32_t threads,
                                 void *stream, const uint64_t *words, size_t count, char *error, size_t errorBytes) {
  std::lock_guard<std::mutex> lock(driverMutex());
  if (!ptx || !name || (count && !words))
    return fail("tessel_ptx_launch: null PTX, kernel name or argument words", error, errorBytes);
  if (grid > 0x7fffffffu)
    return fail("the grid has " + std::to_string(grid) + " CTAs, outside CUDA's 1-d grid limit", error, errorBytes);
  if (threads == 0 || threads > 1024)
    return fail("a CTA of " + std::to_string(threads) + " threads is outside [1, 1024]", error, errorBytes);
  std::string message;
  Driver *d = openDriver(message);
  if (!d)
    return fail(message, error, errorBytes);
  CUfunction function;
  unsigned dynamicShared = 0;
  if (!kernelFunction(*d, device, ptx, name, function, dynamicShared, message))
    return fail(message, error, errorBytes);
  if (grid == 0)
    return 0;
  // cuLaunchKernel reads each parameter's size from the kernel; every word is 8 bytes, so a
  // narrower scalar is read from its low bytes (little-endian).
  std::vector<uint64_t> copy(words, words + count);
  std::vector<void *> pointers;
  for (uint64_t &w : copy)
    pointers.push_back(&w);
  CUresult r = d->cuLaunchKernel(function, unsigned(grid), 1, 1, threads, 1, 1, dynamicShared, stream,
                                 pointers.data(), nullptr);
  if (r != 0)
    return fail(describe(*d, "launching the kernel", r), error, errorBytes);
  return 0;
}
