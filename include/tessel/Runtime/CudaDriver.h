//===- CudaDriver.h - the PTX provider's CUDA Driver API adapter -*- C++ -*-===//
//
// tessel's own runtime for the PTX provider (seed 004): libcuda.so.1 is opened
// with dlopen (no CUDA toolkit is needed to build), PTX is loaded with
// cuModuleLoadData (modules are cached by their text) and kernels are
// launched with cuLaunchKernel on the primary context of device 0. Every
// public operation holds one process-wide mutex: the loader, the module cache,
// allocations and the driver's error state are process-global.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_CUDADRIVER_H
#define TESSEL_RUNTIME_CUDADRIVER_H

#include "tessel/Dialect/PGPU/IR/PGPU.h"
#include "tessel/Interp/Interpreter.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"

#include <cstdint>
#include <string>

namespace tessel::runtime {

/// Where the driver library is looked for: $TESSEL_LIBCUDA when set, else "libcuda.so.1".
std::string driverLibraryPath();

/// Launches the PTX provider's kernel `kernelName` (compiled to `ptx` from the legalized pgpu
/// `kernel` with `params` bound) on device 0: views are copied in, the grid is the product of
/// the program-space extents evaluated on the host (the same LaunchExprs as the kernel body),
/// out/inout views are copied back into their host arrays. Arguments follow the ABI of
/// Target/PTX/PTX.h. Returns false with `error` set on any failure (no driver, a PTX the
/// driver rejects, an argument the ABI does not describe, a launch error). The kernel's first
/// `launchGuards` launch guards were compiled as variants (pgpu::launchGuards): their conditions are
/// evaluated here and the variant they name is launched.
bool launchPTXKernel(pgpu::KernelOp kernel, const llvm::StringMap<int64_t> &params, const std::string &ptx,
                     llvm::ArrayRef<interp::Argument> args, unsigned launchGuards, std::string &error);

} // namespace tessel::runtime

#endif // TESSEL_RUNTIME_CUDADRIVER_H
