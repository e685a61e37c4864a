// RUN: tessel-opt %s -split-input-file -kir-to-pgpu -verify-diagnostics | FileCheck %s --enable-var-scope

// COM: A member's histogram read pointwise by the member's store at the store's own bins (vLLM's
// COM: frequency and presence penalties, corpus 253). Before: each stored bin recounted every token (a
// COM: range_reduce over the tokens per bin, O(tokens * vocab)). After: the member counts its tokens once
// COM: into its row of a kept workspace (a scatter_reduce per token), the store's elements read the row,
// COM: and a last foreach returns the row to zero (pgpu.kept: zero at every launch).
// CHECK-LABEL: pgpu.kernel @penalties
// CHECK-SAME: %[[WS:[^:]*]]: !pgpu.buffer<i32, [B, V], workspace> {pgpu.init = 0 : i32, pgpu.kept
// CHECK: pgpu.foreach
// CHECK: pgpu.scatter_reduce %{{.*}}, %[[WS]][
// CHECK: pgpu.foreach
// CHECK-NOT: pgpu.range_reduce
// CHECK: pgpu.buffer_load %[[WS]][
// CHECK: pgpu.store %{{.*}}, %logits[
// CHECK: pgpu.foreach
// CHECK: pgpu.buffer_store %{{.*}}, %[[WS]][
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @penalties(%logits: !kir.view<f32, [B, V], inout>, %toks: !kir.view<i32, [B, L], in>, %freq: !kir.view<f32, [B], in>, %pres: !kir.view<f32, [B], in>) {
    %0 = kir.extent "B"
    %1 = kir.extent "V"
    %2 = arith.constant 0 : index
    %3 = kir.domain %2 to %1
    %4 = kir.extent "L"
    %5 = kir.domain %2 to %4
    %6 = kir.domain %2 to %0
    %9 = arith.constant 0 : i32
    %10 = kir.broadcast %9 over(%5) dims [] : i32 -> tensor<?xi32>
    %20 = kir.broadcast %9 over(%3) dims [] : i32 -> tensor<?xi32>
    %22 = arith.constant 1.0 : f32
    %23 = arith.constant 0.0 : f32
    %24 = kir.broadcast %22 over(%3) dims [] : f32 -> tensor<?xf32>
    %25 = kir.broadcast %23 over(%3) dims [] : f32 -> tensor<?xf32>
    kir.parallel %6 {
    ^bb0(%7: index):
      %8 = kir.load %toks[%7, %5] : !kir.view<i32, [B, L], in>[index, !kir.domain] -> tensor<?xi32>
      %11 = kir.cmp ge %8, %10 : tensor<?xi32>
      // expected-remark @below {{kir-to-pgpu: this member histogram is counted once into a row of kept workspace and read per bin by the store}}
      %12 = kir.histogram %8 bins(%3) valid %11 : tensor<?xi32>, tensor<?xi1> -> tensor<?xi32>
      %13 = kir.load %logits[%7, %3] : !kir.view<f32, [B, V], inout>[index, !kir.domain] -> tensor<?xf32>
      %14 = kir.load %freq[%7] : !kir.view<f32, [B], in>[index] -> f32
      %15 = kir.cast %12 : tensor<?xi32> to tensor<?xf32>
      %16 = kir.broadcast %14 over(%3) dims [] : f32 -> tensor<?xf32>
      %17 = kir.binary mul %16, %15 : tensor<?xf32>
      %18 = kir.binary sub %13, %17 : tensor<?xf32>
      %19 = kir.load %pres[%7] : !kir.view<f32, [B], in>[index] -> f32
      %21 = kir.cmp gt %12, %20 : tensor<?xi32>
      %26 = kir.select %21, %24, %25 : tensor<?xi1>, tensor<?xf32>
      %27 = kir.broadcast %19 over(%3) dims [] : f32 -> tensor<?xf32>
      %28 = kir.binary mul %27, %26 : tensor<?xf32>
      %29 = kir.binary sub %18, %28 : tensor<?xf32>
      kir.store %29, %logits[%7, %3] : tensor<?xf32>, !kir.view<f32, [B, V], inout>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire: the store reads the histogram's maximum, every bin at each element: the histogram
// COM: stays realized per bin (no workspace, no scatter).
// CHECK-LABEL: pgpu.kernel @max_count
// CHECK-NOT: workspace
// CHECK-NOT: pgpu.scatter_reduce
// CHECK: pgpu.range_reduce
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @max_count(%logits: !kir.view<f32, [B, V], inout>, %toks: !kir.view<i32, [B, L], in>) {
    %0 = kir.extent "B"
    %1 = kir.extent "V"
    %2 = arith.constant 0 : index
    %3 = kir.domain %2 to %1
    %4 = kir.extent "L"
    %5 = kir.domain %2 to %4
    %6 = kir.domain %2 to %0
    %11 = arith.constant -2147483648 : i32
    kir.parallel %6 {
    ^bb0(%7: index):
      %8 = kir.load %toks[%7, %5] : !kir.view<i32, [B, L], in>[index, !kir.domain] -> tensor<?xi32>
      %9 = kir.histogram %8 bins(%3) : tensor<?xi32> -> tensor<?xi32>
      %10 = kir.load %logits[%7, %3] : !kir.view<f32, [B, V], inout>[index, !kir.domain] -> tensor<?xf32>
      %15 = kir.reduce %9 axes [0] identity(%11 : i32) : (tensor<?xi32>) -> (i32) {
      ^bb0(%12: i32, %13: i32):
        %14 = kir.binary max %12, %13 : i32
        kir.yield %14 : i32
      }
      %16 = kir.cast %15 : i32 to f32
      %17 = kir.broadcast %16 over(%3) dims [] : f32 -> tensor<?xf32>
      %18 = kir.binary sub %10, %17 : tensor<?xf32>
      kir.store %18, %logits[%7, %3] : tensor<?xf32>, !kir.view<f32, [B, V], inout>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}
