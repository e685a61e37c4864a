//===- Driver.cpp - the CUDA Driver API entry points tessel uses ----------===//

#include "Driver.h"

#include <cstdlib>
#include <dlfcn.h>
#include <type_traits>

using namespace tessel::runtime::detail;

std::mutex &tessel::runtime::detail::driverMutex() {
  static std::mutex mutex;
  return mutex;
}

std::string tessel::runtime::driverLibraryPath() {
  const char *env = std::getenv("TESSEL_LIBCUDA");
  return env && *env ? env : "libcuda.so.1";
}

std::string tessel::runtime::detail::describe(Driver &d, const char *call, CUresult r) {
  const char *text = nullptr;
  if (d.cuGetErrorString)
    d.cuGetErrorString(r, &text);
  return std::string(call) + " failed with CUresult " + std::to_string(r) + (text ? std::string(" (") + text + ")" : "");
}

Driver *tessel::runtime::detail::openDriver(std::string &error) {
  struct Opened {
    Driver driver;
    std::string error;
    bool ready = false;
  };
  static std::map<std::string, Opened> opened;
  std::string path = runtime::driverLibraryPath();
  auto [it, fresh] = opened.try_emplace(path);
  Driver &driver = it->second.driver;
  std::string &openError = it->second.error;
  if (!fresh) {
    error = openError;
    return it->second.ready ? &driver : nullptr;
  }
  driver.handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!driver.handle) {
    const char *why = dlerror();
    openError = "cannot load the CUDA driver library '" + path + "' (" + (why ? why : "unknown reason") +
                "); the PTX provider's runtime needs an NVIDIA driver";
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
  resolve(driver.cuFuncSetAttribute, "cuFuncSetAttribute");
  resolve(driver.cuGetErrorString, "cuGetErrorString");
  if (missing) {
    error = openError;
    return nullptr;
  }
  if (CUresult r = driver.cuInit(0); r != 0) {
    openError = describe(driver, "initializing the CUDA driver", r);
    error = openError;
    return nullptr;
  }
  it->second.ready = true;
  return &driver;
}

bool tessel::runtime::detail::useDevice(Driver &d, int ordinal, std::string &error) {
  auto it = d.contexts.find(ordinal);
  if (it == d.contexts.end()) {
    CUdevice device = 0;
    CUcontext context = nullptr;
    CUresult r = d.cuDeviceGet(&device, ordinal);
    if (r == 0)
      r = d.cuDevicePrimaryCtxRetain(&context, device);
    if (r != 0) {
      error = describe(d, ("initializing CUDA device " + std::to_string(ordinal)).c_str(), r);
      return false;
    }
    it = d.contexts.emplace(ordinal, context).first;
  }
  if (CUresult r = d.cuCtxSetCurrent(it->second); r != 0) {
    error = describe(d, "cuCtxSetCurrent", r);
    return false;
  }
  return true;
}

unsigned tessel::runtime::detail::dynamicSharedBytes(const std::string &ptx, const std::string &name) {
  // `.extern .shared .align 16 .b8 <name>_<what>_dynamic<bytes>[];`
  const std::string head = ".extern .shared .align 16 .b8 " + name + "_";
  for (size_t at = ptx.find(head); at != std::string::npos; at = ptx.find(head, at + 1)) {
    size_t end = ptx.find("[]", at);
    size_t line = ptx.find('\n', at);
    if (end == std::string::npos || (line != std::string::npos && end > line))
      continue;
    std::string symbol = ptx.substr(at + head.size(), end - at - head.size());
    size_t suffix = symbol.rfind("_dynamic");
    if (suffix == std::string::npos || suffix + 8 == symbol.size() ||
        symbol.find_first_not_of("0123456789", suffix + 8) != std::string::npos)
      continue;
    return unsigned(std::stoul(symbol.substr(suffix + 8)));
  }
  return 0;
}

bool tessel::runtime::detail::kernelFunction(Driver &d, int ordinal, const std::string &ptx, const char *name,
                                             CUfunction &out, unsigned &dynamicShared, std::string &error) {
  if (!useDevice(d, ordinal, error))
    return false;
  CUresult r;
  auto key = std::make_pair(ordinal, ptx);
  auto cached = d.modules.find(key);
  CUmodule module;
  if (cached != d.modules.end()) {
    module = cached->second;
  } else {
    if ((r = d.cuModuleLoadData(&module, ptx.c_str())) != 0) {
      error = describe(d, "cuModuleLoadData (the driver rejected the PTX)", r);
      return false;
    }
    d.modules.emplace(key, module);
  }
  if ((r = d.cuModuleGetFunction(&out, module, name)) != 0) {
    error = describe(d, "cuModuleGetFunction", r);
    return false;
  }
  // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: beyond 48 KiB a launch needs the opt-in.
  dynamicShared = dynamicSharedBytes(ptx, name);
  if (dynamicShared > 0 && (r = d.cuFuncSetAttribute(out, 8, int(dynamicShared))) != 0) {
    error = describe(d, ("opting the kernel into " + std::to_string(dynamicShared) +
                         " bytes of dynamic shared memory").c_str(), r);
    return false;
  }
  return true;
}
