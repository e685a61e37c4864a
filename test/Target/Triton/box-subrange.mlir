// Box accesses at a shifted start (Triton provider, TileAccess.cpp): split-K's chunk loop reads A
// and B at lo + k. Once pgpu-narrow-predicates has split the loop, the full blocks' loads are masked
// only by the views' own M / N bounds (the K axis has every lane active, so it lies inside the view):
// they are boxes of the whole view, spelled as descriptor loads at [row, lo + k] under USE_TMA.
// Must not fire: the partial block's loads mask the chunk's lanes (k < len bounds the iota, not the
// coordinate lo + k), so they stay pointer loads.
// RUN: tessel compile %s --target=triton --emit=source --param=TILE_1=64 --param=TILE_2=32 --param=TILE_K=32 | FileCheck %s
// RUN: tessel compile %s --target=triton --emit=source --param=TMA=0 | FileCheck %s --check-prefix=OFF
// RUN: tessel compile %s --target=triton --emit=source | FileCheck %s --check-prefix=MODEL

// CHECK: # [[DA:_desc[0-9]+]]: a's [64, 32] boxes of shape [_extent_M, _extent_K], strides [a_stride0, a_stride1] (made on the host)
// CHECK-NEXT: # [[DB:_desc[0-9]+]]: b's [32, 32] boxes of shape [_extent_K, _extent_N], strides [b_stride0, b_stride1] (made on the host)
// CHECK: for [[K:v[0-9]+]] in range(0, [[MID:v[0-9]+]], {{v[0-9]+}}):
// CHECK: if USE_TMA:
// CHECK-NEXT: = [[DA]].load([{{v[0-9]+}}, [[LO:v[0-9]+]] + [[K]]])
// CHECK-NEXT: else:
// CHECK-NEXT: = tl.load(a +
// CHECK: if USE_TMA:
// CHECK-NEXT: = tl.permute([[DB]].load([{{[[:space:]]*}}[[LO]] + [[K]], {{v[0-9]+}}]), (1, 0))
// CHECK: tl.dot(
// CHECK: for {{v[0-9]+}} in range([[MID]],
// CHECK-NOT: _desc
// CHECK: tl.load(a + {{.*}}, mask=
// CHECK-NOT: _desc
// CHECK: tl.load(b + {{.*}}, mask=
// CHECK-NOT: _desc
// CHECK: tl.dot(

// OFF-NOT: {{_desc[0-9]}}

// COM: The resource model (Resources.cpp): the partial block's loop continues the full blocks' carries,
// COM: so its accumulator and operand stages are the same registers and shared memory, counted once:
// COM: one stage set; and the ticketed sum's loop runs after the k accumulator is stored, so one
// COM: carried tile, not two (the largest loop's, each loop with its enclosing loops').
// COM: The untuned defaults keep 128 x 128 (8 warps) and take 4 stages (TritonLegalize.cpp).
// MODEL: splitk_gemm_PARAMS = {{.*}}'TILE_1': ([16, 32, 64, 128, 256], 128), 'TILE_2': ([16, 32, 64, 128, 256], 128), {{.*}}'WARPS': ([1, 2, 4, 8, 16], 8), 'STAGES': ([1, 2, 3, 4, 5, 6], 6), 'TMA': ([0, 1], 1), 'FLATTEN': ([0, 1], 1)}
// COM: Shared memory: the stages and C's two tile stores staged for TMA (pgpu-zero-first's zeroing and
// COM: the merge's store), or the stages alone where that does not fit (C stored with pointers;
// COM: store-staging.mlir). The partial is merged by atomics (pgpu-atomic-partials, pgpu-zero-first),
// COM: so it has no store of its own to charge.
// MODEL: if (_staged if p['TMA'] == 1 and (_staged := 2 * p['TILE_1'] * p['TILE_K'] * p['STAGES'] + 2 * p['TILE_K'] * p['TILE_2'] * p['STAGES'] + 4 * p['TILE_1'] * p['TILE_2'] * p['TMA'] + 4 * p['TILE_1'] * p['TILE_2'] * p['TMA']) <= 232448 else 2 * p['TILE_1'] * p['TILE_K'] * p['STAGES'] + 2 * p['TILE_K'] * p['TILE_2'] * p['STAGES']) > 232448:
// MODEL: if -(-(4 * p['TILE_1'] * p['TILE_2']) // 4 // (32 * p.get('WARPS', 4))) > 132:

module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @splitk_gemm(%a: !kir.view<f16, [M, K], in>, %b: !kir.view<f16, [K, N], in>, %c: !kir.view<f32, [M, N], out>) attributes {constexprs = {SPLITS = 4 : i64}} {
    %0 = kir.extent "M"
    %1 = kir.extent "K"
    %2 = kir.extent "N"
    %3 = arith.constant 0 : index
    %4 = kir.domain %3 to %0
    %5 = kir.domain %3 to %2
    %6 = kir.domain %3 to %1
    %7 = arith.constant 4 : index
    %8 = kir.domain %3 to %7
    %9 = arith.constant 3 : index
    %16 = arith.constant 1 : index
    %25 = arith.constant 0.0 : f32
    %10 = kir.binary add %1, %9 : index
    %11 = kir.binary div %10, %7 : index
    %12 = kir.buffer over(%8, %4, %5) first_write : !kir.buffer<tensor<?x?x?xf32>>
    kir.parallel %8 {
    ^bb0(%13: index):
      %14 = kir.binary mul %13, %11 : index
      %15 = kir.binary min %14, %1 : index
      %17 = kir.binary add %13, %16 : index
      %18 = kir.binary mul %17, %11 : index
      %19 = kir.binary min %18, %1 : index
      %20 = kir.subregion %6[%15 : %19]
      %21 = kir.load %a[%4, %20] : !kir.view<f16, [M, K], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
      %22 = kir.load %b[%20, %5] : !kir.view<f16, [K, N], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
      %23 = kir.contract %21, %22 reduce([1], [0]) batch([], []) : tensor<?x?xf16>, tensor<?x?xf16> -> tensor<?x?xf32>
      kir.buffer_store %23, %12[%13, %4, %5] : tensor<?x?xf32>, !kir.buffer<tensor<?x?x?xf32>>[index, !kir.domain, !kir.domain]
      kir.yield
    }
    %24 = kir.buffer_load %12[%8, %4, %5] : !kir.buffer<tensor<?x?x?xf32>>[!kir.domain, !kir.domain, !kir.domain] -> tensor<?x?x?xf32>
    %29 = kir.reduce %24 axes [0] identity(%25 : f32) : (tensor<?x?x?xf32>) -> (tensor<?x?xf32>) {
    ^bb0(%26: f32, %27: f32):
      %28 = kir.binary add %26, %27 : f32
      kir.yield %28 : f32
    }
    kir.store %29, %c[%4, %5] : tensor<?x?xf32>, !kir.view<f32, [M, N], out>[!kir.domain, !kir.domain]
    kir.return
  }
}
