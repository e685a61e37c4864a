//===- Driver.h - the CUDA Driver API entry points tessel uses ---*- C++ -*-===//
//
// Private to lib/Runtime: libcuda.so.1 resolved at run time (dlopen/dlsym),
// the few driver types declared here (no CUDA headers at build time), the
// primary context of each device, and the module cache. MLIR-free, so the C
// ABI library (CudaLaunch.cpp, libtessel_cuda.so for Python) shares it with
// `tessel run --device=cuda`. Callers hold `driverMutex()` (seed 004: the
// loader, module cache and the driver's error state are process-global).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_RUNTIME_DRIVER_H
#define TESSEL_LIB_RUNTIME_DRIVER_H

#include <cstddef>
#include <map>
#include <mutex>
#include <string>
#include <utility>

namespace tessel::runtime {
/// Where the driver library is looked for: $TESSEL_LIBCUDA when set, else "libcuda.so.1"
/// (declared for tessel in tessel/Runtime/CudaDriver.h, which needs MLIR).
std::string driverLibraryPath();
} // namespace tessel::runtime

namespace tessel::runtime::detail {
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = void *;
using CUmodule = void *;
using CUfunction = void *;
using CUstream = void *;

/// The driver entry points tessel uses, resolved once per library path.
struct Driver {
  void *handle = nullptr;
  CUresult (*cuInit)(unsigned) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice *, int) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice) = nullptr;
  CUresult (*cuCtxSetCurrent)(CUcontext) = nullptr;
  CUresult (*cuModuleLoadData)(CUmodule *, const void *) = nullptr;
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *) = nullptr;
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t) = nullptr;
  CUresult (*cuMemFree)(CUdeviceptr) = nullptr;
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t) = nullptr;
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t) = nullptr;
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             CUstream, void **, void **) = nullptr;
  CUresult (*cuCtxSynchronize)() = nullptr;
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int) = nullptr;
  CUresult (*cuGetErrorString)(CUresult, const char **) = nullptr;
  std::map<int, CUcontext> contexts;                     // primary context per device ordinal
  std::map<std::pair<int, std::string>, CUmodule> modules; // by device and PTX text
};

/// The mutex every public runtime operation holds.
std::mutex &driverMutex();

/// The driver library ($TESSEL_LIBCUDA, else libcuda.so.1), opened and initialized on first use
/// and kept for the process (a failed opening is remembered too); null with `error` otherwise.
Driver *openDriver(std::string &error);

/// "call failed with CUresult N (text)".
std::string describe(Driver &d, const char *call, CUresult r);

/// Makes the primary context of device `ordinal` current (retained on first use).
bool useDevice(Driver &d, int ordinal, std::string &error);

/// The kernel `name` of the module loaded from `ptx` on device `ordinal` (loaded once, cached by
/// its text), with the context of that device current.
/// The function `name` of `ptx` on device `ordinal` (the module loaded once per text), and the bytes of
/// dynamic shared memory its launches take: those its extern shared array's name states (the selector's
/// `<name>_..._dynamic<bytes>`, selector::kDynamicSharedSuffix), which the function is opted into.
bool kernelFunction(Driver &d, int ordinal, const std::string &ptx, const char *name, CUfunction &out,
                    unsigned &dynamicShared, std::string &error);

/// The bytes of dynamic shared memory function `name` of `ptx` declares (0 when none).
unsigned dynamicSharedBytes(const std::string &ptx, const std::string &name);
} // namespace tessel::runtime::detail

#endif // TESSEL_LIB_RUNTIME_DRIVER_H
