//===- CudaDriver.cpp - the PTX provider's CUDA Driver API adapter ---------===//
//
// libcuda.so.1 is resolved at run time (dlopen/dlsym); the few driver types
// are declared here, so building needs no CUDA headers. One mutex serializes
// every public operation (seed 004: the loader, module cache, allocations and
// error state are process-global).
//
//===----------------------------------------------------------------------===//

#include "tessel/Runtime/CudaDriver.h"

#include "tessel/Interp/LaunchExpr.h"
#include "tessel/Interp/Numerics.h"

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <map>
#include <mutex>

using namespace mlir;
using namespace tessel;

namespace {
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = void *;
using CUmodule = void *;
using CUfunction = void *;
using CUstream = void *;

/// The driver entry points tessel uses, resolved once.
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
  CUresult (*cuGetErrorString)(CUresult, const char **) = nullptr;
  CUcontext context = nullptr;
  std::map<std::string, CUmodule> modules; // by PTX text
};

std::mutex driverMutex;

/// "name: CUDA_ERROR_... (text)" for a failed driver call.
std::string describe(Driver &d, const char *call, CUresult r) {
  const char *text = nullptr;
  if (d.cuGetErrorString)
    d.cuGetErrorString(r, &text);
  return std::string(call) + " failed with CUresult " + std::to_string(r) + (text ? std::string(" (") + text + ")" : "");
}

/// The driver library at `path`, opened on first use and kept for the process (an opening that
/// failed is remembered too); null with `error` when it cannot be used.
Driver *openDriver(std::string &error) {
  struct Opened {
    Driver driver;
    std::string error;
  };
  static std::map<std::string, Opened> opened;
  std::string path = runtime::driverLibraryPath();
  auto [it, fresh] = opened.try_emplace(path);
  Driver &driver = it->second.driver;
  std::string &openError = it->second.error;
  if (!fresh) {
    error = openError;
    return driver.context ? &driver : nullptr;
  }
  driver.handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!driver.handle) {
    const char *why = dlerror();
    openError = "cannot load the CUDA driver library '" + path + "' (" + (why ? why : "unknown reason") +
                "); --device cuda needs an NVIDIA driver";
    error = openError;
    return nullptr;
  }
  bool missing = false;
  auto resolve = [&](auto &fn, const char *name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(driver.handle, name));
    if (!fn && !missing) {
      missing = true;
      openError = std::string("the CUDA driver library '") + path + "' has no symbol " + name;
    }
  };
  resolve(driver.cuInit, "cuInit");
  resolve(driver.cuDeviceGet, "cuDeviceGet");
  resolve(driver.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  resolve(driver.cuCtxSetCurrent, "cuCtxSetCurrent");
  resolve(driver.cuModuleLoadData, "cuModuleLoadData");
  resolve(driver.cuModuleGetFunction, "cuModuleGetFunction");
  resolve(driver.cuMemAlloc, "cuMemAlloc_v2");
  resolve(driver.cuMemFree, "cuMemFree_v2");
  resolve(driver.cuMemcpyHtoD, "cuMemcpyHtoD_v2");
  resolve(driver.cuMemcpyDtoH, "cuMemcpyDtoH_v2");
  resolve(driver.cuLaunchKernel, "cuLaunchKernel");
  resolve(driver.cuCtxSynchronize, "cuCtxSynchronize");
  resolve(driver.cuGetErrorString, "cuGetErrorString");
  if (missing) {
    error = openError;
    return nullptr;
  }
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUresult r = driver.cuInit(0);
  if (r == 0)
    r = driver.cuDeviceGet(&device, 0);
  if (r == 0)
    r = driver.cuDevicePrimaryCtxRetain(&context, device);
  if (r != 0) {
    openError = describe(driver, "initializing CUDA device 0", r);
    error = openError;
    return nullptr;
  }
  driver.context = context;
  return &driver;
}

/// Bytes of one element of a view or scalar in the PTX ABI.
size_t abiBytes(Type type) {
  if (type.isIndex())
    return 8;
  return std::max<size_t>(1, type.getIntOrFloatBitWidth() / 8);
}

/// Packs one interpreter element into its ABI bytes.
void pack(interp::Elem e, Type type, uint8_t *out) {
  if (type.isF64()) {
    std::memcpy(out, &e.f, 8);
  } else if (type.isF32()) {
    float f = float(e.f);
    std::memcpy(out, &f, 4);
  } else if (type.isF16() || type.isBF16()) {
    uint16_t bits = type.isF16() ? interp::toHalfBits(e.f) : interp::toBFloat16Bits(e.f);
    std::memcpy(out, &bits, 2);
  } else {
    std::memcpy(out, &e.i, abiBytes(type)); // little-endian: the low bytes
  }
}

interp::Elem unpack(const uint8_t *in, Type type) {
  interp::Elem e;
  if (type.isF64()) {
    std::memcpy(&e.f, in, 8);
  } else if (type.isF32()) {
    float f;
    std::memcpy(&f, in, 4);
    e.f = f;
  } else if (type.isF16() || type.isBF16()) {
    uint16_t bits;
    std::memcpy(&bits, in, 2);
    e.f = type.isF16() ? interp::fromHalfBits(bits) : interp::fromBFloat16Bits(bits);
  } else {
    int64_t raw = 0;
    std::memcpy(&raw, in, abiBytes(type));
    e.i = interp::wrapToInteger(raw, type);
  }
  return e;
}
} // namespace

std::string runtime::driverLibraryPath() {
  const char *env = std::getenv("TESSEL_LIBCUDA");
  return env && *env ? env : "libcuda.so.1";
}

bool runtime::launchPTXKernel(pgpu::KernelOp kernel, const llvm::StringMap<int64_t> &params, const std::string &ptx,
                              ArrayRef<interp::Argument> args, std::string &error) {
  std::lock_guard<std::mutex> lock(driverMutex);
  if (args.size() != kernel.getNumArguments()) {
    error = "kernel @" + kernel.getSymName().str() + " takes " + std::to_string(kernel.getNumArguments()) +
            " arguments, got " + std::to_string(args.size());
    return false;
  }
  // The grid, from the same LaunchExprs the kernel body decodes (seed 000 §3.1).
  interp::LaunchEnv env{params, args};
  int64_t grid = 1;
  for (auto space : kernel.getBody().getOps<pgpu::ProgramSpaceOp>())
    for (Value extent : space.getExtents()) {
      FailureOr<int64_t> e = interp::evaluateLaunchExpr(extent, env);
      if (failed(e)) {
        error = "cannot evaluate the program-space extents of @" + kernel.getSymName().str();
        return false;
      }
      grid *= *e;
    }
  if (grid < 0 || grid > 0x7fffffff) {
    error = "the grid of @" + kernel.getSymName().str() + " has " + std::to_string(grid) +
            " programs, outside CUDA's 1-d grid limit";
    return false;
  }
  auto threads = params.find("THREADS");
  if (threads == params.end()) {
    error = "kernel @" + kernel.getSymName().str() + " was not legalized for PTX (no THREADS)";
    return false;
  }
  // The ABI is checked before the driver is touched, so a wrong call fails alike everywhere.
  for (auto [i, type] : llvm::enumerate(kernel.getArgumentTypes())) {
    const interp::Argument &arg = args[i];
    std::string which = "argument " + std::to_string(i) + " of @" + kernel.getSymName().str();
    if (auto view = dyn_cast<pgpu::ViewType>(type)) {
      if (!arg.view) {
        error = which + " is a view; no array given";
        return false;
      }
      if (arg.view->shape.size() != view.getRank() || arg.view->elementType != view.getElementType()) {
        error = which + " expects a rank-" + std::to_string(view.getRank()) + " array of the view's element type";
        return false;
      }
    } else if (!type.isIntOrIndexOrFloat() && !isa<pgpu::BufferType>(type)) {
      error = which + " has no place in the PTX ABI";
      return false;
    }
  }
  // Workspace sizes: a literal, a parameter, or the extent of a view axis of the same name.
  auto workspaceShape = [&](pgpu::BufferType buffer, std::string &why) -> std::optional<SmallVector<int64_t>> {
    SmallVector<int64_t> shape;
    for (Attribute e : buffer.getExtents()) {
      if (auto size = dyn_cast<IntegerAttr>(e)) {
        shape.push_back(size.getInt());
        continue;
      }
      StringRef name = cast<StringAttr>(e).getValue();
      std::optional<int64_t> found;
      if (auto it = params.find(name); it != params.end())
        found = it->second;
      for (auto [j, other] : llvm::enumerate(kernel.getArgumentTypes()))
        if (auto view = dyn_cast<pgpu::ViewType>(other); view && !found)
          for (auto [axis, ve] : llvm::enumerate(view.getExtents()))
            if (auto vname = dyn_cast<StringAttr>(ve); vname && vname.getValue() == name && !found)
              found = args[j].view->shape[axis];
      if (!found) {
        why = "no view or parameter names the workspace extent '" + name.str() + "'";
        return std::nullopt;
      }
      shape.push_back(*found);
    }
    return shape;
  };
  Driver *d = openDriver(error);
  if (!d)
    return false;
  CUresult r = d->cuCtxSetCurrent(d->context);
  if (r != 0) {
    error = describe(*d, "cuCtxSetCurrent", r);
    return false;
  }
  CUmodule module;
  auto cached = d->modules.find(ptx);
  if (cached != d->modules.end()) {
    module = cached->second;
  } else {
    if ((r = d->cuModuleLoadData(&module, ptx.c_str())) != 0) {
      error = describe(*d, "cuModuleLoadData (the driver rejected the PTX)", r);
      return false;
    }
    d->modules[ptx] = module;
  }
  CUfunction function;
  if ((r = d->cuModuleGetFunction(&function, module, kernel.getSymName().str().c_str())) != 0) {
    error = describe(*d, "cuModuleGetFunction", r);
    return false;
  }
  // Device copies of the views, and the argument words (PTX.h ABI).
  std::vector<std::pair<CUdeviceptr, const interp::Argument *>> buffers;
  std::vector<std::array<uint8_t, 8>> words;
  auto cleanup = [&] {
    for (auto &[ptr, arg] : buffers)
      d->cuMemFree(ptr);
  };
  auto word = [&](const void *data, size_t bytes) {
    std::array<uint8_t, 8> w{};
    std::memcpy(w.data(), data, bytes);
    words.push_back(w);
  };
  for (auto [i, type] : llvm::enumerate(kernel.getArgumentTypes())) {
    const interp::Argument &arg = args[i];
    if (auto view = dyn_cast<pgpu::ViewType>(type)) {
      const interp::HostArray &a = *arg.view;
      size_t bytes = abiBytes(view.getElementType());
      std::vector<uint8_t> host(std::max<size_t>(1, a.storage.size()) * bytes);
      for (size_t e = 0; e < a.storage.size(); ++e)
        pack(a.storage[e], view.getElementType(), host.data() + e * bytes);
      CUdeviceptr ptr = 0;
      if ((r = d->cuMemAlloc(&ptr, host.size())) != 0 || (r = d->cuMemcpyHtoD(ptr, host.data(), host.size())) != 0) {
        error = describe(*d, "copying a view to the device", r);
        if (ptr)
          d->cuMemFree(ptr);
        cleanup();
        return false;
      }
      buffers.push_back({ptr, &arg});
      CUdeviceptr base = ptr + CUdeviceptr(a.offset) * bytes;
      word(&base, 8);
      for (int64_t e : a.shape)
        word(&e, 8);
      for (int64_t s : a.strides)
        word(&s, 8);
    } else if (auto buffer = dyn_cast<pgpu::BufferType>(type)) {
      // Invocation workspace: allocated before the one launch, filled when the ABI states pgpu.init.
      std::string why;
      std::optional<SmallVector<int64_t>> shape = workspaceShape(buffer, why);
      if (!shape) {
        error = "argument " + std::to_string(i) + " of @" + kernel.getSymName().str() + ": " + why;
        cleanup();
        return false;
      }
      int64_t count = 1;
      for (int64_t e : *shape)
        count *= e;
      size_t bytes = abiBytes(buffer.getElementType());
      std::vector<uint8_t> host(std::max<int64_t>(1, count) * bytes);
      if (auto init = kernel.getArgAttrOfType<TypedAttr>(i, "pgpu.init")) {
        interp::Elem e;
        if (auto f = dyn_cast<FloatAttr>(init))
          e.f = f.getValueAsDouble();
        else
          e.i = cast<IntegerAttr>(init).getInt();
        for (int64_t k = 0; k < count; ++k)
          pack(e, buffer.getElementType(), host.data() + k * bytes);
      }
      CUdeviceptr ptr = 0;
      if ((r = d->cuMemAlloc(&ptr, host.size())) != 0 || (r = d->cuMemcpyHtoD(ptr, host.data(), host.size())) != 0) {
        error = describe(*d, "allocating invocation workspace", r);
        if (ptr)
          d->cuMemFree(ptr);
        cleanup();
        return false;
      }
      buffers.push_back({ptr, nullptr});
      word(&ptr, 8);
    } else {
      std::array<uint8_t, 8> w{};
      pack(arg.scalar, type, w.data());
      words.push_back(w);
    }
  }
  std::vector<void *> pointers;
  for (auto &w : words)
    pointers.push_back(w.data());
  if (grid > 0) {
    r = d->cuLaunchKernel(function, unsigned(grid), 1, 1, unsigned(threads->second), 1, 1, 0, nullptr,
                          pointers.data(), nullptr);
    if (r == 0)
      r = d->cuCtxSynchronize();
    if (r != 0) {
      error = describe(*d, "launching the kernel", r);
      cleanup();
      return false;
    }
  }
  // Copy every written view back into its host array.
  for (auto &[ptr, arg] : buffers) {
    if (!arg)
      continue; // workspace: freed below, never copied back
    interp::HostArray &a = *arg->view;
    auto view = cast<pgpu::ViewType>(kernel.getArgumentTypes()[&*arg - args.data()]);
    if (view.getMode() == kir::ViewMode::In)
      continue;
    size_t bytes = abiBytes(view.getElementType());
    std::vector<uint8_t> host(std::max<size_t>(1, a.storage.size()) * bytes);
    if ((r = d->cuMemcpyDtoH(host.data(), ptr, host.size())) != 0) {
      error = describe(*d, "copying a view back", r);
      cleanup();
      return false;
    }
    for (size_t e = 0; e < a.storage.size(); ++e)
      a.storage[e] = unpack(host.data() + e * bytes, view.getElementType());
    a.written.assign(a.storage.size(), 1);
  }
  cleanup();
  return true;
}
