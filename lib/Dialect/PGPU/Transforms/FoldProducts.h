//===- FoldProducts.h - a fold's matrix-product tile loop ------*- C++ -*-===//
//
// What pgpu-keep-fold-tiles and pgpu-split-folds share: the product loop of a
// region fold's summarize (or a pgpu.for's body) -- the K loop of a matrix
// product's tile, one read-only pgpu.for with one fragment result holding a
// pgpu.contract -- the ops of its block it reads, and whether two folds over
// the same segments compute the same product (then one program may compute
// the tile once and the other load it: seed 002 §3.4 materialization).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_DIALECT_PGPU_TRANSFORMS_FOLDPRODUCTS_H
#define TESSEL_LIB_DIALECT_PGPU_TRANSFORMS_FOLDPRODUCTS_H

#include "tessel/Dialect/PGPU/IR/PGPU.h"
#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

namespace tessel::pgpu::products {

/// The body block of a member: a fold's summarize block or a loop's body.
inline mlir::Block &memberBody(mlir::Operation *member) {
  if (auto fold = llvm::dyn_cast<RegionFoldOp>(member))
    return fold.getSummarize().front();
  return llvm::cast<ForOp>(member).getBody().front();
}

/// The product loop of `member`: the one read-only pgpu.for with one fragment result of static or
/// parameter extents directly in its body that holds a pgpu.contract; null when there is none or
/// several.
inline ForOp productLoop(KernelOp kernel, mlir::Operation *member) {
  ForOp found;
  for (mlir::Operation &op : memberBody(member)) {
    auto loop = llvm::dyn_cast<ForOp>(op);
    if (!loop || loop->getNumResults() != 1 || !readsOnly(loop))
      continue;
    bool contracts = false;
    loop.walk([&](ContractOp) { contracts = true; });
    auto f = llvm::dyn_cast<FragmentType>(loop->getResult(0).getType());
    if (!contracts || !f)
      continue;
    for (mlir::Attribute e : f.getExtents())
      if (auto name = llvm::dyn_cast<mlir::StringAttr>(e); name && !kernel.getParam(name.getValue()))
        return {};
    if (found)
      return {};
    found = loop;
  }
  return found;
}

/// The product of `member` where pgpu-narrow-predicates has cut its K loop into full blocks and the
/// partial last one: the last of the loops `productLoop` accepts when they form a chain (each
/// continues the previous one's result, its only use), else as `productLoop`.
inline ForOp productChain(KernelOp kernel, mlir::Operation *member) {
  llvm::SmallVector<ForOp> loops;
  for (mlir::Operation &op : memberBody(member)) {
    auto loop = llvm::dyn_cast<ForOp>(op);
    if (!loop || loop->getNumResults() != 1 || !readsOnly(loop))
      continue;
    bool contracts = false;
    loop.walk([&](ContractOp) { contracts = true; });
    auto f = llvm::dyn_cast<FragmentType>(loop->getResult(0).getType());
    if (!contracts || !f)
      continue;
    for (mlir::Attribute e : f.getExtents())
      if (auto name = llvm::dyn_cast<mlir::StringAttr>(e); name && !kernel.getParam(name.getValue()))
        return {};
    loops.push_back(loop);
  }
  if (loops.empty())
    return {};
  for (size_t i = 0; i + 1 < loops.size(); ++i)
    if (!loops[i]->getResult(0).hasOneUse() || !llvm::is_contained(loops[i + 1].getInits(), loops[i]->getResult(0)))
      return {};
  return loops.back();
}

/// `product` and the ops of its block it reads, directly or inside its regions.
inline llvm::SetVector<mlir::Operation *> productSlice(ForOp product) {
  llvm::SetVector<mlir::Operation *> slice;
  llvm::SmallVector<mlir::Operation *> work{product};
  while (!work.empty()) {
    mlir::Operation *op = work.pop_back_val();
    if (!slice.insert(op))
      continue;
    op->walk([&](mlir::Operation *inner) {
      for (mlir::Value v : inner->getOperands())
        if (mlir::Operation *def = v.getDefiningOp(); def && def->getBlock() == product->getBlock())
          work.push_back(def);
    });
  }
  return slice;
}

/// Erases the ops of `block` without uses that write nothing (what only an erased op read).
inline void eraseDeadReads(mlir::Block &block) {
  for (bool erased = true; erased;) {
    erased = false;
    for (mlir::Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
      if (!op.hasTrait<mlir::OpTrait::IsTerminator>() && op.use_empty() &&
          (mlir::isMemoryEffectFree(&op) || readsOnly(&op))) {
        op.erase();
        erased = true;
      }
  }
}

/// Whether the product loops `pa` of fold `a` and `pb` of fold `b` (same bounds and step, checked by
/// the caller) are the same computation: the same ops over the same values, each fold's segment start
/// and end for the other's, and captures of one outer value for each other. Then a segment's tile
/// of one is the other's, bit for bit.
struct SameFoldProduct {
  RegionFoldOp a, b;
  llvm::DenseMap<mlir::Value, mlir::Value> nested; // block arguments of the compared regions, a -> b
  llvm::DenseMap<mlir::Operation *, mlir::Operation *> done;

  SameFoldProduct(RegionFoldOp a, RegionFoldOp b) : a(a), b(b) {}

  bool args(mlir::BlockArgument x, mlir::Value y) {
    auto z = llvm::dyn_cast<mlir::BlockArgument>(y);
    if (!z || z.getOwner() != &b.getSummarize().front())
      return false;
    unsigned i = x.getArgNumber(), j = z.getArgNumber();
    if (i < 2 || j < 2)
      return i == j; // the segment's start, its end
    return a.getCaptures()[i - 2] == b.getCaptures()[j - 2];
  }

  bool values(mlir::Value x, mlir::Value y) {
    if (auto it = nested.find(x); it != nested.end())
      return it->second == y;
    if (auto arg = llvm::dyn_cast<mlir::BlockArgument>(x); arg && arg.getOwner() == &a.getSummarize().front())
      return args(arg, y);
    mlir::Operation *p = x.getDefiningOp(), *q = y.getDefiningOp();
    // Constants and parameters, inside the closed region or outside it, are their attributes.
    if (p && q && p->getNumOperands() == 0 && q->getNumOperands() == 0 && p->getNumRegions() == 0 &&
        mlir::isMemoryEffectFree(p) && p->getName() == q->getName() &&
        p->getAttrDictionary() == q->getAttrDictionary() && p->getResultTypes() == q->getResultTypes())
      return true;
    if (!p || !a->isProperAncestor(p)) // defined outside the fold: the same value outside the other
      return x == y;
    if (!q || !b->isProperAncestor(q) ||
        llvm::cast<mlir::OpResult>(x).getResultNumber() != llvm::cast<mlir::OpResult>(y).getResultNumber())
      return false;
    return ops(p, q);
  }

  bool ops(mlir::Operation *x, mlir::Operation *y) {
    if (auto it = done.find(x); it != done.end())
      return it->second == y;
    if (x->getName() != y->getName() || x->getAttrDictionary() != y->getAttrDictionary() ||
        x->getResultTypes() != y->getResultTypes() || x->getNumOperands() != y->getNumOperands() ||
        x->getNumRegions() != y->getNumRegions())
      return false;
    for (auto [p, q] : llvm::zip(x->getOperands(), y->getOperands()))
      if (!values(p, q))
        return false;
    for (auto [r, s] : llvm::zip(x->getRegions(), y->getRegions())) {
      if (!r.hasOneBlock() || !s.hasOneBlock() || r.front().getArgumentTypes() != s.front().getArgumentTypes() ||
          r.front().getOperations().size() != s.front().getOperations().size())
        return false;
      for (auto [p, q] : llvm::zip(r.front().getArguments(), s.front().getArguments()))
        nested[p] = q;
      for (auto [p, q] : llvm::zip(r.front(), s.front()))
        if (!ops(&p, &q))
          return false;
    }
    done[x] = y;
    return true;
  }
};

} // namespace tessel::pgpu::products

#endif // TESSEL_LIB_DIALECT_PGPU_TRANSFORMS_FOLDPRODUCTS_H
