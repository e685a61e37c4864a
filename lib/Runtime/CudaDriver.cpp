//===- CudaDriver.cpp - the PTX provider's CUDA Driver API adapter ---------===//
//
// `tessel run --device=cuda`: host arrays are copied to device 0, the kernel
// is launched once and written views are copied back. The driver itself
// (dlopen, contexts, module cache, the one mutex) is Driver.h's.
//
//===----------------------------------------------------------------------===//

#include "tessel/Runtime/CudaDriver.h"

#include "tessel/Dialect/PGPU/IR/LaunchGuards.h"
#include "tessel/Interp/LaunchExpr.h"
#include "tessel/Interp/Numerics.h"
#include "tessel/Target/PTX/PTX.h"

#include "Driver.h"

#include <array>
#include <cstring>
#include <vector>

using namespace mlir;
using namespace tessel;

using namespace tessel::runtime::detail;

namespace {
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
  } else if (interp::isFloat8Type(type)) {
    *out = interp::toFloat8Bits(e.f, type);
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
  } else if (interp::isFloat8Type(type)) {
    e.f = interp::fromFloat8Bits(*in, type);
  } else {
    int64_t raw = 0;
    std::memcpy(&raw, in, abiBytes(type));
    e.i = interp::wrapToInteger(raw, type);
  }
  return e;
}
} // namespace

bool runtime::launchPTXKernel(pgpu::KernelOp kernel, const llvm::StringMap<int64_t> &params, const std::string &ptx,
                              ArrayRef<interp::Argument> args, unsigned launchGuards, std::string &error) {
  std::lock_guard<std::mutex> lock(driverMutex());
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
  // The variant the launch guards' conditions name (pgpu::launchGuards), evaluated like the grid.
  SmallVector<pgpu::IfOp> guards = pgpu::launchGuards(kernel, launchGuards);
  unsigned holds = 0;
  for (auto [i, guard] : llvm::enumerate(guards)) {
    FailureOr<int64_t> c = interp::evaluateLaunchExpr(guard.getCondition(), env);
    if (failed(c)) {
      error = "cannot evaluate a launch guard of @" + kernel.getSymName().str();
      return false;
    }
    holds |= unsigned(*c != 0) << i;
  }
  std::string function = pgpu::guardVariant(kernel.getSymName(), guards.size(), holds);
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
      // Index arithmetic is 32-bit in the kernel (PTX.h, kIndexBits): element offsets stay below 2^31.
      int64_t span = 0;
      for (auto [extent, stride] : llvm::zip(arg.view->shape, arg.view->strides))
        span += extent > 0 ? (extent - 1) * std::abs(stride) : 0;
      if (span >= (int64_t(1) << (ptx::kIndexBits - 1))) {
        error = which + " spans " + std::to_string(span + 1) + " elements; the PTX provider's kernels index with " +
                std::to_string(ptx::kIndexBits) + "-bit offsets";
        return false;
      }
    } else if (type.isIndex() && (arg.scalar.i < INT32_MIN || arg.scalar.i > INT32_MAX)) {
      error = which + " = " + std::to_string(arg.scalar.i) + " is outside the 32-bit range of index in PTX kernels";
      return false;
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
  CUfunction cuFunction;
  unsigned dynamicShared = 0;
  if (!kernelFunction(*d, /*ordinal=*/0, ptx, function.c_str(), cuFunction, dynamicShared, error))
    return false;
  CUresult r;
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
    r = d->cuLaunchKernel(cuFunction, unsigned(grid), 1, 1, unsigned(threads->second), 1, 1, dynamicShared, nullptr,
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
