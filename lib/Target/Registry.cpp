//===- Registry.cpp - every provider, found by name -------------------------===//
//
// The one list of providers (Provider.h). The driver looks a provider up by
// the name a user gives (`--target=NAME`) and the pipeline takes the default
// one where a tool names none (`tessel groups`, `tessel-pipeline`).
//
//===----------------------------------------------------------------------===//

#include "tessel/Target/Provider.h"

#include "tessel/Target/AMDGPU/AMDGPU.h"
#include "tessel/Target/CuTile/CuTile.h"
#include "tessel/Target/PTX/PTX.h"
#include "tessel/Target/Triton/Triton.h"

llvm::ArrayRef<const tessel::Provider *> tessel::providers() {
  // The default first: a call that names no provider takes Triton (docs/language.md).
  static const Provider *const all[] = {&triton::provider(), &cutile::provider(), &ptx::provider(),
                                        &amdgpu::provider()};
  return all;
}

const tessel::Provider &tessel::defaultProvider() { return *providers().front(); }

const tessel::Provider *tessel::lookupProvider(llvm::StringRef name) {
  for (const Provider *provider : providers())
    if (provider->name() == name)
      return provider;
  return nullptr;
}
