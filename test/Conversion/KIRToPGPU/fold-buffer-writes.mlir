// RUN: tessel-opt %s -kir-to-pgpu | FileCheck %s --enable-var-scope

// COM: bench/corpus/248's CLIP loss after kir-row-parallels and kir-online-folds: two parallels over the
// COM: rows, each member folding its row (then its column) of img @ txt^T and writing its value to a
// COM: kernel-level buffer the final sums read. Before: a member's kir.buffer_store made the fold
// COM: workset element by element ("an effect other than a store"). After: the buffer write is stored as
// COM: a view's is, a [BLOCK_N] fragment at the lanes' coordinates with their validity, in every variant
// COM: (head dim within its block, and the K loop past it); the sums read the buffers in the last program.
// CHECK-LABEL: pgpu.kernel @clip_loss
// CHECK-SAME: %[[B1:arg0]]: !pgpu.buffer<f32, [N], workspace>
// CHECK-SAME: %[[B2:arg1]]: !pgpu.buffer<f32, [N], workspace>
// CHECK-NOT: pgpu.range_reduce
// CHECK: pgpu.buffer_store %{{.*}}, %[[B1]][%{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [BLOCK_N]> : !pgpu.fragment<f32, [BLOCK_N]>
// CHECK: pgpu.param "TILE_D"
// CHECK-NOT: pgpu.range_reduce
// CHECK: pgpu.buffer_store %{{.*}}, %[[B2]][%{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [BLOCK_N]> : !pgpu.fragment<f32, [BLOCK_N]>
// CHECK: pgpu.last_program
// CHECK: pgpu.range_reduce
// CHECK: pgpu.buffer_load %[[B1]]
// CHECK: pgpu.range_reduce
// CHECK: pgpu.buffer_load %[[B2]]

module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @clip_loss(%img: !kir.view<bf16, [N, D], in>, %txt: !kir.view<bf16, [N, D], in>, %loss: !kir.view<f32, [1], out>, %scale: f32) {
    %0 = kir.extent "N"
    %1 = kir.extent "D"
    %c0 = arith.constant 0 : index
    %2 = kir.domain %c0 to %0
    %3 = kir.indices %2 : tensor<?xindex>
    %4 = kir.domain %c0 to %1
    %cst = arith.constant 0xFF800000 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %cst_1 = arith.constant 2.000000e+00 : f32
    %5 = kir.buffer over(%2) first_write : !kir.buffer<tensor<?xf32>>
    %6 = kir.buffer over(%2) first_write : !kir.buffer<tensor<?xf32>>
    kir.parallel %2 {
    ^bb0(%arg0: index):
      %15 = kir.load %img[%arg0, %4] : !kir.view<bf16, [N, D], in>[index, !kir.domain] -> tensor<?xbf16>
      %16 = kir.load %txt[%2, %4] : !kir.view<bf16, [N, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xbf16>
      %17 = kir.region_fold sources(%16, %3 : tensor<?x?xbf16>, tensor<?xindex>) axis 0 identity(%cst : f32) operands(%15, %scale : tensor<?xbf16>, f32) -> (f32) summarize {
      ^bb0(%arg1: tensor<?x?xbf16>, %arg2: tensor<?xindex>, %arg3: tensor<?xbf16>, %arg4: f32):
        %26 = kir.contract %arg3, %arg1 reduce([0], [1]) batch([], []) : tensor<?xbf16>, tensor<?x?xbf16> -> tensor<?xf32>
        %27 = kir.broadcast_as %arg4 to %26 dims [] : f32, tensor<?xf32> -> tensor<?xf32>
        %28 = kir.binary mul %26, %27 : tensor<?xf32>
        %cst_2 = arith.constant 0xFF800000 : f32
        %29 = kir.reduce %28 axes [0] identity(%cst_2 : f32) : (tensor<?xf32>) -> (f32) {
        ^bb0(%arg5: f32, %arg6: f32):
          %30 = kir.binary max %arg5, %arg6 : f32
          kir.yield %30 : f32
        }
        kir.yield %29 : f32
      } combine {
      ^bb0(%arg1: f32, %arg2: f32):
        %26 = kir.binary max %arg1, %arg2 : f32
        kir.yield %26 : f32
      }
      %18 = kir.region_fold sources(%16, %3 : tensor<?x?xbf16>, tensor<?xindex>) axis 0 identity(%cst_0 : f32) operands(%15, %scale, %17 : tensor<?xbf16>, f32, f32) -> (f32) summarize {
      ^bb0(%arg1: tensor<?x?xbf16>, %arg2: tensor<?xindex>, %arg3: tensor<?xbf16>, %arg4: f32, %arg5: f32):
        %26 = kir.contract %arg3, %arg1 reduce([0], [1]) batch([], []) : tensor<?xbf16>, tensor<?x?xbf16> -> tensor<?xf32>
        %27 = kir.broadcast_as %arg4 to %26 dims [] : f32, tensor<?xf32> -> tensor<?xf32>
        %28 = kir.binary mul %26, %27 : tensor<?xf32>
        %29 = kir.broadcast_as %arg5 to %28 dims [] : f32, tensor<?xf32> -> tensor<?xf32>
        %30 = kir.binary sub %28, %29 : tensor<?xf32>
        %31 = kir.unary exp %30 : tensor<?xf32>
        %cst_2 = arith.constant 0.000000e+00 : f32
        %32 = kir.reduce %31 axes [0] identity(%cst_2 : f32) : (tensor<?xf32>) -> (f32) {
        ^bb0(%arg6: f32, %arg7: f32):
          %33 = kir.binary add %arg6, %arg7 : f32
          kir.yield %33 : f32
        }
        kir.yield %32 : f32
      } combine {
      ^bb0(%arg1: f32, %arg2: f32):
        %26 = kir.binary add %arg1, %arg2 : f32
        kir.yield %26 : f32
      }
      %19 = kir.unary log %18 : f32
      %20 = kir.binary add %17, %19 : f32
      %21 = kir.load %txt[%arg0, %4] : !kir.view<bf16, [N, D], in>[index, !kir.domain] -> tensor<?xbf16>
      %22 = kir.contract %15, %21 reduce([0], [0]) batch([], []) : tensor<?xbf16>, tensor<?xbf16> -> tensor<f32>
      %23 = kir.extract %22[] : tensor<f32>
      %24 = kir.binary mul %23, %scale : f32
      %25 = kir.binary sub %20, %24 : f32
      kir.buffer_store %25, %5[%arg0] : f32, !kir.buffer<tensor<?xf32>>[index]
      kir.yield
    }
    kir.parallel %2 {
    ^bb0(%arg0: index):
      %15 = kir.load %img[%2, %4] : !kir.view<bf16, [N, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xbf16>
      %16 = kir.load %txt[%arg0, %4] : !kir.view<bf16, [N, D], in>[index, !kir.domain] -> tensor<?xbf16>
      %17 = kir.region_fold sources(%15, %3 : tensor<?x?xbf16>, tensor<?xindex>) axis 0 identity(%cst : f32) operands(%16, %scale : tensor<?xbf16>, f32) -> (f32) summarize {
      ^bb0(%arg1: tensor<?x?xbf16>, %arg2: tensor<?xindex>, %arg3: tensor<?xbf16>, %arg4: f32):
        %26 = kir.contract %arg1, %arg3 reduce([1], [0]) batch([], []) : tensor<?x?xbf16>, tensor<?xbf16> -> tensor<?xf32>
        %27 = kir.broadcast_as %arg4 to %26 dims [] : f32, tensor<?xf32> -> tensor<?xf32>
        %28 = kir.binary mul %26, %27 : tensor<?xf32>
        %cst_2 = arith.constant 0xFF800000 : f32
        %29 = kir.reduce %28 axes [0] identity(%cst_2 : f32) : (tensor<?xf32>) -> (f32) {
        ^bb0(%arg5: f32, %arg6: f32):
          %30 = kir.binary max %arg5, %arg6 : f32
          kir.yield %30 : f32
        }
        kir.yield %29 : f32
      } combine {
      ^bb0(%arg1: f32, %arg2: f32):
        %26 = kir.binary max %arg1, %arg2 : f32
        kir.yield %26 : f32
      }
      %18 = kir.region_fold sources(%15, %3 : tensor<?x?xbf16>, tensor<?xindex>) axis 0 identity(%cst_0 : f32) operands(%16, %scale, %17 : tensor<?xbf16>, f32, f32) -> (f32) summarize {
      ^bb0(%arg1: tensor<?x?xbf16>, %arg2: tensor<?xindex>, %arg3: tensor<?xbf16>, %arg4: f32, %arg5: f32):
        %26 = kir.contract %arg1, %arg3 reduce([1], [0]) batch([], []) : tensor<?x?xbf16>, tensor<?xbf16> -> tensor<?xf32>
        %27 = kir.broadcast_as %arg4 to %26 dims [] : f32, tensor<?xf32> -> tensor<?xf32>
        %28 = kir.binary mul %26, %27 : tensor<?xf32>
        %29 = kir.broadcast_as %arg5 to %28 dims [] : f32, tensor<?xf32> -> tensor<?xf32>
        %30 = kir.binary sub %28, %29 : tensor<?xf32>
        %31 = kir.unary exp %30 : tensor<?xf32>
        %cst_2 = arith.constant 0.000000e+00 : f32
        %32 = kir.reduce %31 axes [0] identity(%cst_2 : f32) : (tensor<?xf32>) -> (f32) {
        ^bb0(%arg6: f32, %arg7: f32):
          %33 = kir.binary add %arg6, %arg7 : f32
          kir.yield %33 : f32
        }
        kir.yield %32 : f32
      } combine {
      ^bb0(%arg1: f32, %arg2: f32):
        %26 = kir.binary add %arg1, %arg2 : f32
        kir.yield %26 : f32
      }
      %19 = kir.unary log %18 : f32
      %20 = kir.binary add %17, %19 : f32
      %21 = kir.load %img[%arg0, %4] : !kir.view<bf16, [N, D], in>[index, !kir.domain] -> tensor<?xbf16>
      %22 = kir.contract %21, %16 reduce([0], [0]) batch([], []) : tensor<?xbf16>, tensor<?xbf16> -> tensor<f32>
      %23 = kir.extract %22[] : tensor<f32>
      %24 = kir.binary mul %23, %scale : f32
      %25 = kir.binary sub %20, %24 : f32
      kir.buffer_store %25, %6[%arg0] : f32, !kir.buffer<tensor<?xf32>>[index]
      kir.yield
    }
    %7 = kir.buffer_load %5[%2] : !kir.buffer<tensor<?xf32>>[!kir.domain] -> tensor<?xf32>
    %8 = kir.reduce %7 axes [0] identity(%cst_0 : f32) : (tensor<?xf32>) -> (f32) {
    ^bb0(%arg0: f32, %arg1: f32):
      %15 = kir.binary add %arg0, %arg1 : f32
      kir.yield %15 : f32
    }
    %9 = kir.buffer_load %6[%2] : !kir.buffer<tensor<?xf32>>[!kir.domain] -> tensor<?xf32>
    %10 = kir.reduce %9 axes [0] identity(%cst_0 : f32) : (tensor<?xf32>) -> (f32) {
    ^bb0(%arg0: f32, %arg1: f32):
      %15 = kir.binary add %arg0, %arg1 : f32
      kir.yield %15 : f32
    }
    %11 = kir.binary add %8, %10 : f32
    %12 = kir.cast %0 : index to f32
    %13 = kir.binary mul %cst_1, %12 : f32
    %14 = kir.binary div %11, %13 : f32
    kir.store %14, %loss[%c0] : f32, !kir.view<f32, [1], out>[index]
    kir.return
  }
}

