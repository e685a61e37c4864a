//===- ParamCovers.h - a declared parameter gains the extent it covers -*- C++ -*-===//
//
// What pgpu-stage-folds and pgpu-stage-inner-k-loops share: a tile parameter whose staged loop walks
// [0, S) of a view extent S is declared to cover S, so a call's default binds the smallest candidate
// holding it (seed 003: a fact of the call) and the resource model decides whether that tile fits.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_DIALECT_PGPU_TRANSFORMS_PARAMCOVERS_H
#define TESSEL_LIB_DIALECT_PGPU_TRANSFORMS_PARAMCOVERS_H

#include "tessel/Dialect/PGPU/IR/PGPU.h"

namespace tessel::pgpu {

/// Declares `kernel`'s parameter `name` to cover `symbol`, unless there is no symbol, no such parameter,
/// or the parameter covers something already.
inline void coverParam(KernelOp kernel, llvm::StringRef name, mlir::StringAttr symbol) {
  ParamAttr param = kernel.getParam(name);
  if (!symbol || !param || param.getCovers())
    return;
  llvm::SmallVector<mlir::Attribute> params(kernel.getParams()->begin(), kernel.getParams()->end());
  for (mlir::Attribute &a : params)
    if (mlir::cast<ParamAttr>(a).getName() == param.getName())
      a = ParamAttr::get(kernel.getContext(), param.getName(), param.getCandidates(), param.getDefaultValue(),
                         param.getProvider(), symbol, param.getPasses());
  kernel.setParamsAttr(mlir::ArrayAttr::get(kernel.getContext(), params));
}

} // namespace tessel::pgpu

#endif // TESSEL_LIB_DIALECT_PGPU_TRANSFORMS_PARAMCOVERS_H
