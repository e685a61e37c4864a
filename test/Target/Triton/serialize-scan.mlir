// A blocked stored scan is spelled with tl.associative_scan over each block and a generated combine
// function (named after its kernel, so the two kernels of one module keep their helpers apart); the
// carried prefix joins through the same function, and the block's last prefix is picked exactly by a
// tl.reduce that keeps the selected lane.
// RUN: tessel compile %tessel_src/examples/kir/cumsum.mlir --emit=source --target=triton --param BLOCK=128 -o %t.py
// RUN: FileCheck %s --input-file=%t.py
// RUN: tessel compile %tessel_src/examples/kir/cumsum.mlir --emit=source --target=triton --param BLOCK=128 -o %t.again.py
// RUN: cmp %t.py %t.again.py

// CHECK: def _cumsum_combine[[C:[0-9]+]](
// CHECK: def _cumsum_pick(a, fa, b, fb):
// CHECK-NEXT: return tl.where(fa != 0, a, b), fa | fb
// CHECK: def _cumsum_kernel(
// CHECK: [[CARRY:v[0-9]+]] = tl.full([], 0.000000e+00, tl.float32)
// COM: The block walk carries the prefix and loads each block independently of it: it is pipelined
// COM: LOOP_STAGES deep (Triton.h, pipelinesWalk).
// CHECK: for [[B:v[0-9]+]] in tl.range(0, [[N:v[0-9]+]], [[BLOCK:v[0-9]+]], num_stages=3):
// CHECK: [[P:v[0-9]+]] = tl.associative_scan([[M:v[0-9]+]], 0, _cumsum_combine[[C]])
// CHECK-NEXT: [[P]] = _cumsum_combine[[C]]([[CARRY]], [[P]])
// CHECK: tl.store(y + {{.*}}, [[P]], mask={{.*}})
// CHECK: [[NEXT:v[0-9]+]], _ = tl.reduce(([[P]], (tl.arange(0, 128) == ({{.*}})).to(tl.int32)), 0, _cumsum_pick)
// CHECK-NEXT: [[CARRY]] = [[NEXT]]
// CHECK: def _cumsum_exclusive_reverse_combine{{[0-9]+}}(
// CHECK: def _cumsum_exclusive_reverse_pick(
// CHECK: tl.associative_scan({{.*}}, 0, _cumsum_exclusive_reverse_combine{{[0-9]+}})
