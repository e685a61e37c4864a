// A read of a view its own program wrote, where another thread may have written the element (Triton
// orders a program's global accesses only within a thread: a fragment's elements are spread over the
// CTA's threads and a scalar is stored by thread 0 and read by all), follows a tl.debug_barrier()
// (CrossLaneReads.cpp; seed 000 §9). The traced DSL (kernel bodies in the COM lines):
// RUN: tessel compile %s --emit=source --target=triton -o %t.py
// RUN: FileCheck %s --input-file=%t.py

// COM: fires, loop-carried: x[b, t, ext] = x[b, t, ext] + load(x, (b, t - 1, s - 1)) reads row t - 1 one
// COM: lane over, stored by the neighbour thread in the previous trip (corpus 302's alpha rows). One
// COM: barrier a trip, before the trip's first read of x; none before the second.
// CHECK-LABEL: def _shift_rows_kernel(
// CHECK: if _G0:
// CHECK-NEXT: for
// CHECK-NOT: tl.load(x
// CHECK: tl.debug_barrier()
// CHECK-NEXT: tl.load(x
// CHECK-NOT: tl.debug_barrier()
// CHECK: tl.load(x
// CHECK-NOT: tl.debug_barrier()
// CHECK: tl.store(x
// CHECK: else:

// COM: fires, hoisted: flag[b, i] = where(any(flag[b, 0:i] != 0 & ...), 0, 1): a scalar stored by thread 0,
// COM: read back by every lane in later trips (corpus 301's keep). The reads' loops write no flag: one
// COM: barrier before them, not one a chunk.
// CHECK-LABEL: def _sweep_flags_kernel(
// CHECK: for [[I:v[0-9]+]] in range(
// CHECK-NOT: tl.load(flag
// CHECK: tl.debug_barrier()
// CHECK-NOT: tl.debug_barrier()
// CHECK: for {{.*}} in tl.range(
// CHECK-NOT: tl.debug_barrier()
// CHECK: tl.load(flag
// CHECK-NOT: tl.debug_barrier()
// CHECK: tl.load(flag
// CHECK-NOT: tl.debug_barrier()
// CHECK: tl.store(flag + {{.*}}[[I]]

// COM: must not fire: x[b, ext] = x[b, ext] * 2 in place, blocked into a walk's full blocks and its tail:
// COM: each trip reads what its own lanes store, and the tail's elements are not the blocks'.
// CHECK-LABEL: def _scale_inplace_kernel(
// CHECK-NOT: tl.debug_barrier()
// CHECK-LABEL: def _accumulate_rows_kernel(

// COM: must not fire: acc[b, ext] = acc[b, ext] + x[b, t, ext] in a loop over t: the same lanes every trip.
// CHECK-NOT: tl.debug_barrier()
// CHECK-LABEL: def _shift_other_view_kernel(

// COM: must not fire: y[b, t, ext] = load(x, (b, t - 1, s - 1)): the shifted read is of another view.
// CHECK-NOT: tl.debug_barrier()
// CHECK: def _shift_other_view_checked(

// COM: must not fire: c[rows, cols] = alpha * T.matmul(a, b) + beta * c[rows, cols] in place (corpus 360): the
// COM: persistent tile walk's trips are program instances of their own; a trip reads no element another
// COM: trip stored, so the unsplit branch has no barrier (one would keep Triton from pipelining the K loop).
// COM: The SPLIT_K branch keeps its ticket's barriers.
// CHECK-LABEL: def _gemm_alpha_beta_kernel(
// CHECK: flatten=True
// CHECK: tl.atomic_add(
// CHECK: {{^        else:$}}
// CHECK-NOT: tl.debug_barrier()
// CHECK: def _gemm_alpha_beta_checked(

module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @shift_rows(%x: !kir.view<f32, [B, T, S], inout>) {
    %0 = kir.extent "B"
    %1 = kir.extent "T"
    %2 = kir.extent "S"
    %3 = arith.constant 0 : index
    %4 = kir.domain %3 to %2
    %5 = kir.domain %3 to %0
    %7 = kir.indices %4 : tensor<?xindex>
    %8 = arith.constant 1 : index
    %9 = kir.domain %8 to %1
    %12 = kir.broadcast %8 over(%4) dims [] : index -> tensor<?xindex>
    %15 = arith.constant 0.0 : f32
    kir.parallel %5 {
    ^bb0(%6: index):
      kir.for %9 {
      ^bb0(%10: index):
        %11 = kir.binary sub %10, %8 : index
        %13 = kir.binary sub %7, %12 : tensor<?xindex>
        %14 = kir.cmp ge %7, %12 : tensor<?xindex>
        %16 = kir.gather %x[%6, %11, %13] valid %14 : tensor<?xi1> fill %15 : f32 : !kir.view<f32, [B, T, S], inout>[index, index, tensor<?xindex>] -> tensor<?xf32>
        %17 = kir.load %x[%6, %10, %4] : !kir.view<f32, [B, T, S], inout>[index, index, !kir.domain] -> tensor<?xf32>
        %18 = kir.binary add %17, %16 : tensor<?xf32>
        kir.store %18, %x[%6, %10, %4] : tensor<?xf32>, !kir.view<f32, [B, T, S], inout>[index, index, !kir.domain]
        kir.yield
      }
      kir.yield
    }
    kir.return
  }
  kir.kernel @sweep_flags(%w: !kir.view<f32, [B, N], in>, %flag: !kir.view<i32, [B, N], inout>) {
    %0 = kir.extent "B"
    %1 = kir.extent "N"
    %2 = arith.constant 0 : index
    %3 = kir.domain %2 to %1
    %4 = kir.domain %2 to %0
    %9 = arith.constant 0 : i32
    %17 = arith.constant false
    %22 = arith.constant 1 : i32
    kir.parallel %4 {
    ^bb0(%5: index):
      kir.for %3 {
      ^bb0(%6: index):
        %7 = kir.subregion %3[%2 : %6]
        %8 = kir.load %flag[%5, %7] : !kir.view<i32, [B, N], inout>[index, !kir.domain] -> tensor<?xi32>
        %10 = kir.broadcast %9 over(%7) dims [] : i32 -> tensor<?xi32>
        %11 = kir.cmp ne %8, %10 : tensor<?xi32>
        %12 = kir.load %w[%5, %7] : !kir.view<f32, [B, N], in>[index, !kir.domain] -> tensor<?xf32>
        %13 = kir.load %w[%5, %6] : !kir.view<f32, [B, N], in>[index, index] -> f32
        %14 = kir.broadcast %13 over(%7) dims [] : f32 -> tensor<?xf32>
        %15 = kir.cmp gt %12, %14 : tensor<?xf32>
        %16 = kir.binary and %11, %15 : tensor<?xi1>
        %21 = kir.reduce %16 axes [0] identity(%17 : i1) : (tensor<?xi1>) -> (i1) {
        ^bb0(%18: i1, %19: i1):
          %20 = kir.binary or %18, %19 : i1
          kir.yield %20 : i1
        }
        %23 = kir.select %21, %9, %22 : i1, i32
        kir.store %23, %flag[%5, %6] : i32, !kir.view<i32, [B, N], inout>[index, index]
        kir.yield
      }
      kir.yield
    }
    kir.return
  }
  kir.kernel @scale_inplace(%x: !kir.view<f32, [B, S], inout>) {
    %0 = kir.extent "B"
    %1 = kir.extent "S"
    %2 = arith.constant 0 : index
    %3 = kir.domain %2 to %1
    %4 = kir.domain %2 to %0
    %7 = arith.constant 2.0 : f32
    %8 = kir.broadcast %7 over(%3) dims [] : f32 -> tensor<?xf32>
    kir.parallel %4 {
    ^bb0(%5: index):
      %6 = kir.load %x[%5, %3] : !kir.view<f32, [B, S], inout>[index, !kir.domain] -> tensor<?xf32>
      %9 = kir.binary mul %6, %8 : tensor<?xf32>
      kir.store %9, %x[%5, %3] : tensor<?xf32>, !kir.view<f32, [B, S], inout>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
  kir.kernel @accumulate_rows(%x: !kir.view<f32, [B, T, S], in>, %acc: !kir.view<f32, [B, S], inout>) {
    %0 = kir.extent "B"
    %1 = kir.extent "T"
    %2 = kir.extent "S"
    %3 = arith.constant 0 : index
    %4 = kir.domain %3 to %2
    %5 = kir.domain %3 to %0
    %7 = kir.domain %3 to %1
    kir.parallel %5 {
    ^bb0(%6: index):
      kir.for %7 {
      ^bb0(%8: index):
        %9 = kir.load %acc[%6, %4] : !kir.view<f32, [B, S], inout>[index, !kir.domain] -> tensor<?xf32>
        %10 = kir.load %x[%6, %8, %4] : !kir.view<f32, [B, T, S], in>[index, index, !kir.domain] -> tensor<?xf32>
        %11 = kir.binary add %9, %10 : tensor<?xf32>
        kir.store %11, %acc[%6, %4] : tensor<?xf32>, !kir.view<f32, [B, S], inout>[index, !kir.domain]
        kir.yield
      }
      kir.yield
    }
    kir.return
  }
  kir.kernel @shift_other_view(%x: !kir.view<f32, [B, T, S], in>, %y: !kir.view<f32, [B, T, S], out>) {
    %0 = kir.extent "B"
    %1 = kir.extent "T"
    %2 = kir.extent "S"
    %3 = arith.constant 0 : index
    %4 = kir.domain %3 to %2
    %5 = kir.domain %3 to %0
    %7 = kir.indices %4 : tensor<?xindex>
    %8 = arith.constant 1 : index
    %9 = kir.domain %8 to %1
    %12 = kir.broadcast %8 over(%4) dims [] : index -> tensor<?xindex>
    %15 = arith.constant 0.0 : f32
    kir.parallel %5 {
    ^bb0(%6: index):
      kir.for %9 {
      ^bb0(%10: index):
        %11 = kir.binary sub %10, %8 : index
        %13 = kir.binary sub %7, %12 : tensor<?xindex>
        %14 = kir.cmp ge %7, %12 : tensor<?xindex>
        %16 = kir.gather %x[%6, %11, %13] valid %14 : tensor<?xi1> fill %15 : f32 : !kir.view<f32, [B, T, S], in>[index, index, tensor<?xindex>] -> tensor<?xf32>
        kir.store %16, %y[%6, %10, %4] : tensor<?xf32>, !kir.view<f32, [B, T, S], out>[index, index, !kir.domain]
        kir.yield
      }
      kir.yield
    }
    kir.return
  }
  kir.kernel @gemm_alpha_beta(%a: !kir.view<bf16, [M, K], in>, %b: !kir.view<bf16, [K, N], in>, %c: !kir.view<f32, [M, N], inout>, %alpha: f32, %beta: f32) {
    %0 = kir.extent "M"
    %1 = kir.extent "K"
    %2 = kir.extent "N"
    %3 = arith.constant 0 : index
    %4 = kir.domain %3 to %0
    %5 = kir.domain %3 to %2
    %6 = kir.domain %3 to %1
    %10 = kir.broadcast %alpha over(%4, %5) dims [] : f32 -> tensor<?x?xf32>
    %13 = kir.broadcast %beta over(%4, %5) dims [] : f32 -> tensor<?x?xf32>
    %7 = kir.load %a[%4, %6] : !kir.view<bf16, [M, K], in>[!kir.domain, !kir.domain] -> tensor<?x?xbf16>
    %8 = kir.load %b[%6, %5] : !kir.view<bf16, [K, N], in>[!kir.domain, !kir.domain] -> tensor<?x?xbf16>
    %9 = kir.contract %7, %8 reduce([1], [0]) batch([], []) : tensor<?x?xbf16>, tensor<?x?xbf16> -> tensor<?x?xf32>
    %11 = kir.binary mul %10, %9 : tensor<?x?xf32>
    %12 = kir.load %c[%4, %5] : !kir.view<f32, [M, N], inout>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %14 = kir.binary mul %13, %12 : tensor<?x?xf32>
    %15 = kir.binary add %11, %14 : tensor<?x?xf32>
    kir.store %15, %c[%4, %5] : tensor<?x?xf32>, !kir.view<f32, [M, N], inout>[!kir.domain, !kir.domain]
    kir.return
  }
}
