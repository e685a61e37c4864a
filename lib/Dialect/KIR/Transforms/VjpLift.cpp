//===- VjpLift.cpp - a kir.parallel member's cotangent lifted to kernel level --===//
//
// kir-vjp sums the cotangent of a kernel-level value over the members of the
// kir.parallel that uses it (a LayerNorm's weight read once for all rows:
// dw[n] = sum_m dy[m, n] * xhat[m, n]). Written per member into a buffer over
// (the members, the value's axes) and summed by the kernel body, the sum reads
// the whole buffer in one last program: a serial column walk. Lifted, the
// member's computation of its contribution is recomputed at kernel level with
// the parallel's axes first (each read at the member's index read over the
// member's domain) and summed over them: the column sum a user writes by hand
// (`T.sum(dy * xhat, axis=0)`, corpus 60 and 92). The per-member scalars it
// needs (each row's mean and rstd) are kept: each member stores its own to a
// buffer over the parallel's domains, the kernel body reads them whole. That
// is the form kir-row-parallels' kept summaries give the hand-written kernel,
// which pgpu-member-partials spreads over the members (seed 002 §3).
//
//===----------------------------------------------------------------------===//

#include "Vjp.h"

#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace tessel::kir;

namespace tessel::kir::vjp {

MemberLift::MemberLift(ParallelOp parallel) : parallel(parallel) {
  for (auto [domain, iv] : llvm::zip(parallel.getDomains(), parallel.getBody().getArguments()))
    domainOf[iv] = domain;
}

bool MemberLift::inBody(Value v) { return parallel.getBody().isAncestor(v.getParentRegion()); }

bool MemberLift::perMember(Value v) {
  if (!inBody(v))
    return false;
  if (auto it = memberMemo.find(v); it != memberMemo.end())
    return it->second;
  bool result = true;
  if (Operation *def = v.getDefiningOp())
    result = llvm::any_of(def->getOperands(), [&](Value x) { return perMember(x); });
  memberMemo[v] = result;
  return result;
}

/// A value of the body the same in every member, cloned at kernel level with its operands: pure ops
/// and reads of input views without regions but a reduce's closed combine.
bool MemberLift::clonable(Value v) {
  Operation *def = v.getDefiningOp();
  if (!inBody(v))
    return true;
  if (!def || (!isMemoryEffectFree(def) && !isa<LoadOp>(def)) ||
      (def->getNumRegions() && !isa<ReduceOp>(def)))
    return false;
  return llvm::all_of(def->getOperands(), [&](Value x) { return clonable(x); });
}

bool MemberLift::keepable(Value v) {
  Type t = v.getType();
  if (isa<ShapedType>(t) || t.isIndex() || t.isInteger(1))
    return false;
  return isa<FloatType, IntegerType>(t);
}

bool MemberLift::lifts(Value v) {
  if (!perMember(v))
    return clonable(v);
  if (auto it = liftMemo.find(v); it != liftMemo.end())
    return it->second;
  liftMemo[v] = false; // no cycles in SSA; a failure below stays recorded
  bool ok = false;
  Operation *def = v.getDefiningOp();
  if (!isa<RankedTensorType>(v.getType())) {
    ok = keepable(v) && def;
  } else if (!def) {
    ok = false;
  } else if (auto load = dyn_cast<LoadOp>(def)) {
    // Each member index once, directly (a member's own row); the other coordinates the same in all.
    ok = !load.getValid() && llvm::all_of(domainOf, [&](auto &entry) {
      return llvm::count(load.getCoords(), entry.first) == 1;
    }) && llvm::all_of(load.getCoords(), [&](Value c) {
      if (domainOf.contains(c))
        return true;
      return !perMember(c) && !isa<RankedTensorType>(c.getType()) && clonable(c);
    });
  } else if (isa<BinaryOp, UnaryOp, CastOp, CmpOp, SelectOp, TransposeOp, BroadcastOp>(def)) {
    ok = llvm::all_of(def->getOperands(), [&](Value x) { return lifts(x); });
  } else if (auto bc = dyn_cast<BroadcastAsOp>(def)) {
    // The lifted result takes its shape from the reference, which must be per member.
    ok = perMember(bc.getReference()) && lifts(bc.getOperand()) && lifts(bc.getReference());
  } else if (auto red = dyn_cast<ReduceOp>(def)) {
    ok = red->getNumResults() == 1 && llvm::all_of(red.getInputs(), [&](Value x) { return lifts(x); }) &&
         llvm::all_of(red.getIdentities(), [&](Value x) { return !perMember(x) && clonable(x); });
  }
  liftMemo[v] = ok;
  return ok;
}

void MemberLift::keep(Value g) {
  SmallVector<Value> work{g};
  llvm::DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!perMember(v) || domainOf.contains(v) || !seen.insert(v).second)
      continue;
    if (!isa<RankedTensorType>(v.getType())) {
      if (kept.contains(v))
        continue;
      // A buffer over the parallel's domains (first write: each member writes its own element before
      // the kernel body reads them all), stored at the end of the member's body.
      SmallVector<int64_t> shape(parallel.getDomains().size(), ShapedType::kDynamic);
      auto type = RankedTensorType::get(shape, v.getType());
      OpBuilder before(parallel);
      Value buffer = BufferOp::create(before, v.getLoc(), BufferType::get(parallel.getContext(), type),
                                      parallel.getDomains(), Value(), /*first_write=*/true);
      OpBuilder end(parallel.getBody().front().getTerminator());
      BufferStoreOp::create(end, v.getLoc(), v, buffer, SmallVector<Value>(parallel.getBody().getArguments()));
      kept[v] = buffer;
      continue;
    }
    if (Operation *def = v.getDefiningOp())
      llvm::append_range(work, def->getOperands());
  }
}

Type MemberLift::liftType(Type t) {
  SmallVector<int64_t> shape(parallel.getDomains().size(), ShapedType::kDynamic);
  Type element = t;
  if (auto rt = dyn_cast<RankedTensorType>(t)) {
    llvm::append_range(shape, rt.getShape());
    element = rt.getElementType();
  }
  return RankedTensorType::get(shape, element);
}

Value MemberLift::uniform(OpBuilder &b, Value v) {
  if (!inBody(v))
    return v;
  if (Value c = uniformMemo.lookup(v))
    return c;
  Operation *def = v.getDefiningOp();
  IRMapping map;
  for (Value x : def->getOperands())
    map.map(x, uniform(b, x));
  Operation *c = b.clone(*def, map);
  for (auto [r, cr] : llvm::zip(def->getResults(), c->getResults()))
    uniformMemo[r] = cr;
  return uniformMemo.lookup(v);
}

/// `v` at kernel level shaped like the lifted `ref`: lifted when per member, else spread over the
/// parallel's axes (the leading axes of `ref`).
Value MemberLift::operand(OpBuilder &b, Value v, Value ref) {
  if (perMember(v))
    return emit(b, v);
  Value u = uniform(b, v);
  int64_t k = parallel.getDomains().size();
  int64_t rank = isa<RankedTensorType>(u.getType()) ? cast<RankedTensorType>(u.getType()).getRank() : 0;
  auto rt = cast<RankedTensorType>(ref.getType());
  auto type = RankedTensorType::get(rt.getShape(), getElementTypeOrSelf(u.getType()));
  return BroadcastAsOp::create(b, u.getLoc(), type, u, ref, llvm::to_vector(llvm::seq<int64_t>(k, k + rank)));
}

Value MemberLift::emit(OpBuilder &b, Value v) {
  if (!perMember(v))
    return uniform(b, v);
  if (Value l = liftedMemo.lookup(v))
    return l;
  Location loc = v.getLoc();
  int64_t k = parallel.getDomains().size();
  auto leading = llvm::to_vector(llvm::seq<int64_t>(0, k));
  auto shifted = [&](ArrayRef<int64_t> dims, bool lead) {
    SmallVector<int64_t> out = lead ? leading : SmallVector<int64_t>();
    for (int64_t d : dims)
      out.push_back(d + k);
    return out;
  };
  Value result;
  Operation *def = v.getDefiningOp();
  if (Value buffer = kept.lookup(v)) {
    result = BufferLoadOp::create(b, loc, liftType(v.getType()), buffer, parallel.getDomains());
  } else if (auto load = dyn_cast<LoadOp>(def)) {
    // Each member index read over its domain; the read's axes follow its coordinates, so the
    // parallel's axes are moved first when they are not.
    SmallVector<Value> coords;
    SmallVector<int64_t> shape, memberAxis(k, -1);
    auto rt = cast<RankedTensorType>(load.getType());
    int64_t axis = 0, own = 0;
    for (Value c : load.getCoords()) {
      if (Value domain = domainOf.lookup(c)) {
        coords.push_back(domain);
        memberAxis[cast<BlockArgument>(c).getArgNumber()] = axis++;
        shape.push_back(ShapedType::kDynamic);
        continue;
      }
      coords.push_back(uniform(b, c));
      if (!c.getType().isIndex()) {
        shape.push_back(rt.getDimSize(own++));
        ++axis;
      }
    }
    Value read = LoadOp::create(b, loc, RankedTensorType::get(shape, rt.getElementType()), load.getView(), coords,
                                Value(), Value());
    SmallVector<int64_t> perm(memberAxis);
    for (int64_t a = 0; a < int64_t(shape.size()); ++a)
      if (!llvm::is_contained(memberAxis, a))
        perm.push_back(a);
    if (!llvm::equal(perm, llvm::seq<int64_t>(0, shape.size()))) {
      SmallVector<int64_t> permuted;
      for (int64_t a : perm)
        permuted.push_back(shape[a]);
      read = TransposeOp::create(b, loc, RankedTensorType::get(permuted, rt.getElementType()), read, perm);
    }
    result = read;
  } else if (auto bc = dyn_cast<BroadcastOp>(def)) {
    SmallVector<Value> domains(parallel.getDomains());
    for (Value d : bc.getDomains())
      domains.push_back(uniform(b, d));
    result = BroadcastOp::create(b, loc, liftType(v.getType()), emit(b, bc.getOperand()), domains,
                                 shifted(bc.getDims(), true));
  } else if (auto bc = dyn_cast<BroadcastAsOp>(def)) {
    Value ref = emit(b, bc.getReference());
    bool lead = perMember(bc.getOperand());
    Value x = lead ? emit(b, bc.getOperand()) : uniform(b, bc.getOperand());
    result = BroadcastAsOp::create(b, loc, liftType(v.getType()), x, ref, shifted(bc.getDims(), lead));
  } else if (auto tr = dyn_cast<TransposeOp>(def)) {
    result = TransposeOp::create(b, loc, liftType(v.getType()), emit(b, tr.getOperand()),
                                 shifted(tr.getPermutation(), true));
  } else if (auto red = dyn_cast<ReduceOp>(def)) {
    SmallVector<Value> inputs, identities;
    Value ref;
    for (Value x : red.getInputs())
      if (perMember(x))
        ref = emit(b, x);
    for (Value x : red.getInputs())
      inputs.push_back(operand(b, x, ref));
    for (Value x : red.getIdentities())
      identities.push_back(uniform(b, x));
    auto lifted = ReduceOp::create(b, loc, TypeRange{liftType(v.getType())}, inputs, shifted(red.getAxes(), false),
                                   identities);
    IRMapping map;
    red.getCombine().cloneInto(&lifted.getCombine(), map);
    result = lifted.getResult(0);
  } else {
    // Pointwise (binary, unary, cast, cmp, select): operands lifted or spread, the result type lifted.
    Value ref;
    for (Value x : def->getOperands())
      if (perMember(x) && isa<RankedTensorType>(x.getType()))
        ref = emit(b, x);
    IRMapping map;
    for (Value x : def->getOperands())
      map.map(x, operand(b, x, ref));
    Operation *c = b.clone(*def, map);
    c->getResult(0).setType(liftType(v.getType()));
    result = c->getResult(0);
  }
  liftedMemo[v] = result;
  return result;
}

} // namespace tessel::kir::vjp
