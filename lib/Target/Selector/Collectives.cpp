//===- Collectives.cpp - workgroup-wide reduce, arg-reduce, scan, extract -===//
//
// The selector's collectives (Selector.h): a fragment's slots are combined in
// each thread, then across the warp (the target's warp or wavefront) with
// shuffles, then across warps through small shared-memory arrays read by
// every thread, so the results are uniform.
//
//===----------------------------------------------------------------------===//

#include "SelectorImpl.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::selector::detail;

/// A fresh shared-memory array (address space 3) of `count` elements, named after the kernel;
/// returns its address.
Value Selector::sharedArray(Type slotType, int64_t count) {
  std::string name = (this->name + "_shared" + llvm::Twine(nextShared++)).str();
  sharedBytes += ((count * std::max<int64_t>(1, slotType.getIntOrFloatBitWidth() / 8) + 15) / 16) * 16;
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    LLVM::GlobalOp::create(b, loc, LLVM::LLVMArrayType::get(slotType, count), /*isConstant=*/false,
                           LLVM::Linkage::Internal, name, Attribute(), /*alignment=*/16, /*addrSpace=*/3);
  }
  return LLVM::AddressOfOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3), name);
}

/// An exchange within the warp; 64-bit and narrow values travel as 32-bit words.
Value Selector::shuffle(Value v, int32_t offset, gpu::ShuffleMode mode) {
  Type type = v.getType();
  auto shuffle32 = [&](Value w) { return gpu::ShuffleOp::create(b, loc, w, offset, warpLanes, mode).getResult(0); };
  if (type.isF32() || type.isInteger(32))
    return shuffle32(v);
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  if (type.isIndex() || type.isInteger(64) || type.isF64()) {
    Value bits = type.isIndex() ? arith::IndexCastOp::create(b, loc, i64, v).getResult()
                 : type.isF64() ? arith::BitcastOp::create(b, loc, i64, v).getResult()
                                : v;
    Value lo = arith::TruncIOp::create(b, loc, i32, bits);
    Value hi = arith::TruncIOp::create(b, loc, i32, arith::ShRUIOp::create(b, loc, bits, constInt(i64, 32)));
    lo = arith::ExtUIOp::create(b, loc, i64, shuffle32(lo));
    hi = arith::ExtUIOp::create(b, loc, i64, shuffle32(hi));
    Value joined = arith::OrIOp::create(b, loc, lo, arith::ShLIOp::create(b, loc, hi, constInt(i64, 32)));
    return type.isIndex()  ? arith::IndexCastOp::create(b, loc, type, joined).getResult()
           : type.isF64() ? arith::BitcastOp::create(b, loc, type, joined).getResult()
                          : joined;
  }
  // i1, i8, i16, f16, bf16
  unsigned width = type.getIntOrFloatBitWidth();
  Type narrow = b.getIntegerType(width);
  Value bits = isa<FloatType>(type) ? arith::BitcastOp::create(b, loc, narrow, v).getResult() : v;
  Value word = shuffle32(arith::ExtUIOp::create(b, loc, i32, bits));
  Value back = arith::TruncIOp::create(b, loc, narrow, word);
  return isa<FloatType>(type) ? arith::BitcastOp::create(b, loc, type, back).getResult() : back;
}

/// Combines one partial per thread into the CTA's total, known to every thread: butterfly
/// shuffles inside each warp, then the warps' totals through shared memory, folded in warp
/// order by every thread (so every thread holds the same value: scalars stay uniform).
SmallVector<Value>
Selector::combineAcrossCTA(SmallVector<Value> acc,
                           llvm::function_ref<SmallVector<Value>(ValueRange, ValueRange)> combine) {
  for (int32_t offset = warpLanes / 2; offset >= 1; offset /= 2) {
    SmallVector<Value> other;
    for (Value v : acc)
      other.push_back(shuffleXor(v, offset));
    acc = combine(acc, other);
  }
  int64_t warps = threads / warpLanes;
  if (warps == 1)
    return acc;
  Value warp = arith::DivUIOp::create(b, loc, tid, constIndex(warpLanes));
  Value lane0 = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                      arith::RemUIOp::create(b, loc, tid, constIndex(warpLanes)), constIndex(0));
  auto sharedPtr = LLVM::LLVMPointerType::get(b.getContext(), 3);
  SmallVector<Value> arrays;
  SmallVector<Type> slotTypes;
  for (Value v : acc) {
    // index travels as i64, i1 as i8 (LLVM-compatible element types)
    Type t = v.getType().isIndex() ? b.getI64Type() : v.getType().isInteger(1) ? b.getI8Type() : v.getType();
    slotTypes.push_back(t);
    arrays.push_back(sharedArray(t, warps));
  }
  auto toSlot = [&](Value v, Type t) -> Value {
    if (v.getType().isIndex())
      return arith::IndexCastOp::create(b, loc, t, v);
    if (v.getType().isInteger(1))
      return arith::ExtUIOp::create(b, loc, t, v);
    return v;
  };
  auto fromSlot = [&](Value v, Type original) -> Value {
    if (original.isIndex())
      return arith::IndexCastOp::create(b, loc, original, v);
    if (original.isInteger(1))
      return arith::TruncIOp::create(b, loc, original, v);
    return v;
  };
  Value warp64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), warp);
  scf::IfOp::create(b, loc, lane0, [&](OpBuilder &, Location) {
    for (auto [i, v] : llvm::enumerate(acc)) {
      Value p = LLVM::GEPOp::create(b, loc, sharedPtr, slotTypes[i], arrays[i], ValueRange{warp64});
      LLVM::StoreOp::create(b, loc, toSlot(v, slotTypes[i]), p);
    }
    scf::YieldOp::create(b, loc);
  });
  gpu::BarrierOp::create(b, loc);
  SmallVector<Value> total;
  for (int64_t w = 0; w < warps; ++w) {
    SmallVector<Value> part;
    for (auto [i, v] : llvm::enumerate(acc)) {
      Value p = LLVM::GEPOp::create(b, loc, sharedPtr, slotTypes[i], arrays[i],
                                    ValueRange{constInt(b.getI64Type(), w)});
      part.push_back(fromSlot(LLVM::LoadOp::create(b, loc, slotTypes[i], p), v.getType()));
    }
    total = w == 0 ? part : combine(total, part);
  }
  gpu::BarrierOp::create(b, loc); // the arrays may be written again (a reduction in a loop)
  return total;
}

/// pgpu.reduce of rank-1 fragments to scalars.
LogicalResult Selector::emitReduce(pgpu::ReduceOp op) {
  auto fragment = cast<pgpu::FragmentType>(op.getInputs()[0].getType());
  if (op.getAxes().size() != fragment.getRank())
    return emitAxisReduce(op);
  SmallVector<Value> acc;
  flatten(op.getIdentities(), acc);
  bool ok = true;
  auto combine = combiner(op.getCombine(), ok);
  for (int64_t k = 0, n = slots(fragment); k < n; ++k) {
    SmallVector<Value> member;
    for (Value input : op.getInputs())
      member.push_back(values[input][k]);
    SmallVector<Value> next = combine(acc, member);
    if (Value exists = slotExists(fragment, k))
      for (auto [a, c] : llvm::zip(acc, next))
        a = arith::SelectOp::create(b, loc, exists, c, a);
    else
      acc = next;
  }
  acc = combineAcrossCTA(acc, combine);
  if (!ok)
    return failure();
  for (auto [r, v] : llvm::zip(op.getResults(), acc))
    values[r] = {v};
  return success();
}

/// pgpu.arg_reduce of a rank-1 fragment (Semantics.cpp argReduceAlong). Each candidate is
/// (value, position) with position -1 for none; the winner is decided by an order on
/// candidates (NaN first when it propagates, then the larger/smaller value, then the tie
/// rule on positions), so combining in any order gives the interpreter's answer.
LogicalResult Selector::emitArgReduce(pgpu::ArgReduceOp op) {
  auto fragment = cast<pgpu::FragmentType>(op.getInput().getType());
  Type type = fragment.getElementType();
  bool isFloat = isa<FloatType>(type);
  bool wantMax = op.getKind() == kir::ArgReduceKind::ArgMax;
  bool highest = op.getTie() == kir::TieRule::Highest;
  bool propagate = op.getNan() == kir::NaNRule::Propagate;
  Type i64 = b.getI64Type();
  Value none = constInt(i64, -1);
  auto isNaN = [&](Value v) { return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, v, v).getResult(); };
  // Whether candidate (bv, bi) beats (av, ai); both present.
  auto beats = [&](Value av, Value ai, Value bv, Value bi) -> Value {
    Value posWins = arith::CmpIOp::create(b, loc, highest ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::slt,
                                          bi, ai);
    Value gt = compare(kir::CmpPredicate::GT, type, bv, av);
    Value lt = compare(kir::CmpPredicate::LT, type, bv, av);
    Value better = wantMax ? gt : lt;
    Value equal = arith::AndIOp::create(b, loc, arith::XOrIOp::create(b, loc, gt, constInt(b.getI1Type(), 1)),
                                        arith::XOrIOp::create(b, loc, lt, constInt(b.getI1Type(), 1)));
    Value r = arith::OrIOp::create(b, loc, better, arith::AndIOp::create(b, loc, equal, posWins));
    if (isFloat && propagate) {
      Value an = isNaN(av), bn = isNaN(bv);
      Value bothNaN = arith::AndIOp::create(b, loc, an, bn);
      Value eitherNaN = arith::OrIOp::create(b, loc, an, bn);
      // one NaN: it wins; two: the tie rule; none: the value order
      Value nanRule = arith::SelectOp::create(b, loc, bothNaN, posWins, bn);
      r = arith::SelectOp::create(b, loc, eitherNaN, nanRule, r);
    }
    return r;
  };
  auto combine = [&](ValueRange lhs, ValueRange rhs) -> SmallVector<Value> {
    Value aNone = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lhs[1], none);
    Value bNone = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rhs[1], none);
    Value takeB = arith::AndIOp::create(b, loc, arith::XOrIOp::create(b, loc, bNone, constInt(b.getI1Type(), 1)),
                                        arith::OrIOp::create(b, loc, aNone, beats(lhs[0], lhs[1], rhs[0], rhs[1])));
    return {arith::SelectOp::create(b, loc, takeB, rhs[0], lhs[0]),
            arith::SelectOp::create(b, loc, takeB, rhs[1], lhs[1])};
  };
  Type dtype = deviceScalarType(type);
  Value fill = isFloat ? arith::ConstantOp::create(b, loc, b.getFloatAttr(dtype, APFloat::getNaN(
                                                                             cast<FloatType>(dtype).getFloatSemantics())))
                             .getResult()
                       : constInt(dtype, 0);
  SmallVector<Value> acc{fill, none};
  for (int64_t k = 0, n = slots(fragment); k < n; ++k) {
    Value v = values[op.getInput()][k];
    Value pos = arith::IndexCastOp::create(b, loc, i64, slotIndex(fragment, k));
    // absent: past the fragment, or a NaN that is ignored
    Value absent = slotExists(fragment, k);
    absent = absent ? arith::XOrIOp::create(b, loc, absent, constInt(b.getI1Type(), 1)).getResult() : Value();
    if (isFloat && !propagate)
      absent = absent ? arith::OrIOp::create(b, loc, absent, isNaN(v)).getResult() : isNaN(v);
    if (absent)
      pos = arith::SelectOp::create(b, loc, absent, none, pos);
    acc = combine(acc, ValueRange{v, pos});
  }
  acc = combineAcrossCTA(acc, combine);
  // Nothing present (every member an ignored NaN): position 0 with NaN (fill) as the value.
  Value nothing = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, acc[1], none);
  Value pos = arith::SelectOp::create(b, loc, nothing, constInt(i64, 0), acc[1]);
  Value value = arith::SelectOp::create(b, loc, nothing, fill, acc[0]);
  Value index = arith::AddIOp::create(b, loc, values[op.getBase()][0],
                                      arith::IndexCastOp::create(b, loc, b.getIndexType(), pos));
  values[op.getValues()] = {value};
  values[op.getIndices()] = {index};
  return success();
}

/// pgpu.extract of one element of a rank-1 fragment: the owning thread publishes it through
/// shared memory and every thread reads it (scalars are uniform).
LogicalResult Selector::emitExtract(pgpu::ExtractOp op) {
  auto fragment = cast<pgpu::FragmentType>(op.getFragment().getType());
  Type type = deviceScalarType(fragment.getElementType());
  Type slotType = type.isIndex() ? b.getI64Type() : type.isInteger(1) ? b.getI8Type() : type;
  Value array = sharedArray(slotType, 1);
  SmallVector<Value> indices;
  for (Value i : op.getIndices())
    indices.push_back(values[i][0]);
  Value index = linearizeStatic(indices, shapeOf(fragment));
  // The inverse of slotIndex: element g T V + t V + j is slot g V + j of thread t.
  int64_t width = vectorOf(fragment);
  Value within = arith::RemUIOp::create(b, loc, index, constIndex(threads * width));
  Value owner = width == 1 ? within : arith::DivUIOp::create(b, loc, within, constIndex(width)).getResult();
  Value slot = arith::DivUIOp::create(b, loc, index, constIndex(threads * width));
  if (width > 1)
    slot = arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, slot, constIndex(width)),
                                 arith::RemUIOp::create(b, loc, index, constIndex(width)));
  Value mine = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, owner, tid);
  scf::IfOp::create(b, loc, mine, [&](OpBuilder &, Location) {
    // select the slot dynamically among this thread's registers
    Value v = values[op.getFragment()][0];
    for (int64_t k = 1, n = slots(fragment); k < n; ++k) {
      Value isK = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, slot, constIndex(k));
      v = arith::SelectOp::create(b, loc, isK, values[op.getFragment()][k], v);
    }
    if (type.isIndex())
      v = arith::IndexCastOp::create(b, loc, slotType, v);
    else if (type.isInteger(1))
      v = arith::ExtUIOp::create(b, loc, slotType, v);
    LLVM::StoreOp::create(b, loc, v, array);
    scf::YieldOp::create(b, loc);
  });
  gpu::BarrierOp::create(b, loc);
  Value v = LLVM::LoadOp::create(b, loc, slotType, array);
  if (type.isIndex())
    v = arith::IndexCastOp::create(b, loc, type, v);
  else if (type.isInteger(1))
    v = arith::TruncIOp::create(b, loc, type, v);
  gpu::BarrierOp::create(b, loc);
  values[op.getResult()] = {v};
  return success();
}

/// pgpu.scan of rank-1 fragments (Semantics.cpp scanAlong): the running prefix starts at the carry
/// (or the identity) and combines on the left. In the cyclic layout slot k of every thread holds
/// the consecutive elements kT .. kT + T - 1, so each slot is one CTA-wide scan in element order:
/// a shuffle scan inside each warp, the warps' totals through shared memory, and the prefix
/// carried from the slots before. In the vector layout a group of V slots is V consecutive
/// elements per thread: each thread scans its own V, the threads' totals are scanned across the
/// CTA (exclusively) as one slot would be, and that prefix is combined on the left of the local
/// results. `reverse` walks elements from the end (groups, warps, lanes and slots backwards).
LogicalResult Selector::emitScan(pgpu::ScanOp op) {
  auto fragment = cast<pgpu::FragmentType>(op.getInputs()[0].getType());
  bool reverse = op.getReverse(), exclusive = op.getExclusive();
  unsigned n = op.getInputs().size();
  bool ok = true;
  auto combine = combiner(op.getCombine(), ok);
  auto select = [&](Value c, ValueRange t, ValueRange f) {
    SmallVector<Value> out;
    for (auto [x, y] : llvm::zip(t, f))
      out.push_back(arith::SelectOp::create(b, loc, c, x, y));
    return out;
  };
  SmallVector<Value> identity, carry;
  flatten(op.getIdentities(), identity);
  if (op.getCarries().empty())
    carry = identity;
  else
    flatten(op.getCarries(), carry);
  Value lane = arith::RemUIOp::create(b, loc, tid, constIndex(warpLanes));
  Value warp = arith::DivUIOp::create(b, loc, tid, constIndex(warpLanes));
  int64_t warps = threads / warpLanes;
  gpu::ShuffleMode towardLater = reverse ? gpu::ShuffleMode::DOWN : gpu::ShuffleMode::UP;
  int64_t slotCount = slots(fragment), width = vectorOf(fragment);
  SmallVector<SmallVector<Value>> results(n, SmallVector<Value>(slotCount));
  // One CTA-wide scan step over one value per thread (threads in element order): this thread's
  // prefix (the carry, the earlier warps' totals and the earlier lanes, its own value too when
  // inclusive) and the step's total.
  auto ctaScan = [&](SmallVector<Value> v, bool exclusive) -> std::pair<SmallVector<Value>, SmallVector<Value>> {
    // inclusive scan inside the warp, in element order
    for (int32_t offset = 1; offset < warpLanes; offset *= 2) {
      SmallVector<Value> earlier;
      for (Value x : v)
        earlier.push_back(shuffle(x, offset, towardLater));
      Value has = reverse ? arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                                  arith::AddIOp::create(b, loc, lane, constIndex(offset)),
                                                  constIndex(warpLanes)).getResult()
                          : arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, lane, constIndex(offset))
                                .getResult();
      v = select(has, combine(earlier, v), v);
    }
    SmallVector<Value> within = v; // inclusive within the warp
    if (exclusive) {
      SmallVector<Value> before;
      for (Value x : v)
        before.push_back(shuffle(x, 1, towardLater));
      Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, constIndex(reverse ? warpLanes - 1 : 0));
      within = select(first, identity, before);
    }
    // the prefix of the warps before this one, and the slot's total
    // (through shared memory even for one warp: every lane needs the total)
    SmallVector<Value> prefix = carry, total;
    {
      SmallVector<Value> arrays;
      SmallVector<Type> slotTypes;
      for (Value x : v) {
        Type t = x.getType().isIndex() ? b.getI64Type() : x.getType().isInteger(1) ? b.getI8Type() : x.getType();
        slotTypes.push_back(t);
        arrays.push_back(sharedArray(t, warps));
      }
      Value last = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, constIndex(reverse ? 0 : warpLanes - 1));
      Value warp64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), warp);
      scf::IfOp::create(b, loc, last, [&](OpBuilder &, Location) {
        for (auto [i, x] : llvm::enumerate(v)) {
          Value word = x.getType().isIndex() ? arith::IndexCastOp::create(b, loc, slotTypes[i], x).getResult()
                       : x.getType().isInteger(1) ? arith::ExtUIOp::create(b, loc, slotTypes[i], x).getResult()
                                                  : x;
          Value p = LLVM::GEPOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3), slotTypes[i], arrays[i],
                                        ValueRange{warp64});
          LLVM::StoreOp::create(b, loc, word, p);
        }
        scf::YieldOp::create(b, loc);
      });
      gpu::BarrierOp::create(b, loc);
      SmallVector<Value> running = identity;
      for (int64_t s = 0; s < warps; ++s) {
        int64_t w = reverse ? warps - 1 - s : s;
        SmallVector<Value> part;
        for (auto [i, x] : llvm::enumerate(v)) {
          Value p = LLVM::GEPOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3), slotTypes[i], arrays[i],
                                        ValueRange{constInt(b.getI64Type(), w)});
          Value word = LLVM::LoadOp::create(b, loc, slotTypes[i], p);
          part.push_back(x.getType().isIndex()      ? arith::IndexCastOp::create(b, loc, x.getType(), word).getResult()
                         : x.getType().isInteger(1) ? arith::TruncIOp::create(b, loc, x.getType(), word).getResult()
                                                    : word);
        }
        // warps before mine in element order contribute to my prefix
        Value before = arith::CmpIOp::create(b, loc, reverse ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::ult,
                                             constIndex(w), warp);
        prefix = select(before, combine(prefix, part), prefix);
        running = combine(running, part);
      }
      total = running;
      gpu::BarrierOp::create(b, loc);
    }
    return {combine(prefix, within), total};
  };
  for (int64_t step = 0; step < slotCount / width; ++step) {
    int64_t g = reverse ? slotCount / width - 1 - step : step;
    // This thread's V consecutive elements of the group, scanned in order on their own.
    SmallVector<SmallVector<Value>> inclusive(width), exclusiveLocal(width);
    SmallVector<Value> run = identity;
    for (int64_t s = 0; s < width; ++s) {
      int64_t j = reverse ? width - 1 - s : s, k = g * width + j;
      SmallVector<Value> x;
      for (Value input : op.getInputs())
        x.push_back(values[input][k]);
      if (Value exists = slotExists(fragment, k))
        x = select(exists, x, identity);
      exclusiveLocal[j] = run;
      run = s == 0 ? x : combine(run, x);
      inclusive[j] = run;
    }
    if (width == 1) { // the cyclic layout: one value per thread and step
      auto [out, total] = ctaScan(inclusive[0], exclusive);
      for (unsigned c = 0; c < n; ++c)
        results[c][g] = out[c];
      carry = combine(carry, total);
      continue;
    }
    auto [before, total] = ctaScan(run, /*exclusive=*/true);
    for (int64_t s = 0; s < width; ++s) {
      int64_t j = reverse ? width - 1 - s : s;
      SmallVector<Value> out = exclusive ? (s == 0 ? before : combine(before, exclusiveLocal[j]))
                                         : combine(before, inclusive[j]);
      for (unsigned c = 0; c < n; ++c)
        results[c][g * width + j] = out[c];
    }
    carry = combine(carry, total);
  }
  if (!ok)
    return failure();
  for (auto [r, list] : llvm::zip(op.getResults(), results))
    values[r] = list;
  return success();
}

