// RUN: tessel-opt %s -split-input-file -pgpu-form-tiles | FileCheck %s

// COM: An FP8 GEMM (e4m3 x e4m3, widened to f32 and multiplied): the widenings are exact and every
// COM: product of two FP8 values is exact in f32, so the contraction reads the FP8 tiles themselves
// COM: (the tensor cores' FP8 products), as it reads f16 and bf16 ones.
// CHECK-LABEL: pgpu.kernel @gemm_e4m3
// CHECK: %[[A:.*]] = pgpu.load %a[%{{.*}}, %{{.*}}] {{.*}} -> !pgpu.fragment<f8E4M3FN, [TILE_0, TILE_K]>
// CHECK: %[[B:.*]] = pgpu.load %b[%{{.*}}, %{{.*}}] {{.*}} -> !pgpu.fragment<f8E4M3FN, [TILE_1, TILE_K]>
// CHECK-NOT: pgpu.cast
// CHECK-NOT: pgpu.binary mul
// CHECK: %[[BT:.*]] = pgpu.transpose %[[B]] [1, 0] : !pgpu.fragment<f8E4M3FN, [TILE_1, TILE_K]> -> !pgpu.fragment<f8E4M3FN, [TILE_K, TILE_1]>
// CHECK: pgpu.contract %[[A]], %[[BT]], %{{.*}} reduce([1], [0]) batch([], []) : !pgpu.fragment<f8E4M3FN, [TILE_0, TILE_K]>, !pgpu.fragment<f8E4M3FN, [TILE_K, TILE_1]>, !pgpu.fragment<f32, [TILE_0, TILE_1]>
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @gemm_e4m3(%a: !pgpu.view<f8E4M3FN, [M, K], in>, %b: !pgpu.view<f8E4M3FN, [K, N], in>, %c: !pgpu.view<f32, [M, N], out>) {
    %ha = arith.constant 0.0 : f8E4M3FN
    %hb = arith.constant 0.0 : f8E4M3FN
    %true = arith.constant true
    %c0 = arith.constant 0 : index
    %z = arith.constant 0.0 : f32
    %M = pgpu.extent %a[0] : !pgpu.view<f8E4M3FN, [M, K], in>
    %K = pgpu.extent %a[1] : !pgpu.view<f8E4M3FN, [M, K], in>
    %N = pgpu.extent %b[1] : !pgpu.view<f8E4M3FN, [K, N], in>
    pgpu.program_space(%M) {
    ^bb0(%pid: index):
      pgpu.execution_group %pid extents(%M) segment 0 roles ["axis0"] {
      ^bb0(%m: index):
        pgpu.foreach %c0 to %N {
        ^bb0(%n: index):
          %s = pgpu.range_reduce %c0 to %K identity(%z : f32) -> (f32) element {
          ^bb0(%k: index):
            %x = pgpu.load %a[%m, %k] valid %true : i1 fill %ha : f8E4M3FN : !pgpu.view<f8E4M3FN, [M, K], in>[index, index] -> f8E4M3FN
            %y = pgpu.load %b[%k, %n] valid %true : i1 fill %hb : f8E4M3FN : !pgpu.view<f8E4M3FN, [K, N], in>[index, index] -> f8E4M3FN
            %xf = pgpu.cast %x : f8E4M3FN to f32
            %yf = pgpu.cast %y : f8E4M3FN to f32
            %p = pgpu.binary mul %xf, %yf : f32
            pgpu.yield %p : f32
          } combine {
          ^bb0(%l: f32, %r: f32):
            %t = pgpu.binary add %l, %r : f32
            pgpu.yield %t : f32
          }
          pgpu.store %s, %c[%m, %n] valid %true : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}


// -----

// COM: Must not narrow: e4m3 times e5m2 (two formats; no MMA of one type takes both). The widenings
// COM: are the operands' values: they are built on the tiles and the contraction reads f32 tiles.
// COM: (Before, the casts were skipped as if narrowed and the contraction read scalars: a verifier
// COM: error at the user's matmul.)
// CHECK-LABEL: pgpu.kernel @gemm_mixed_fp8
// CHECK: %[[XF:.*]] = pgpu.cast %{{.*}} : !pgpu.fragment<f8E4M3FN, [TILE_0, TILE_K]> to !pgpu.fragment<f32, [TILE_0, TILE_K]>
// CHECK: %[[YF:.*]] = pgpu.cast %{{.*}} : !pgpu.fragment<f8E5M2, [TILE_1, TILE_K]> to !pgpu.fragment<f32, [TILE_1, TILE_K]>
// CHECK: pgpu.contract %{{.*}}, %{{.*}}, %{{.*}} reduce([1], [0]) batch([], []) : !pgpu.fragment<f32, [TILE_0, TILE_K]>, !pgpu.fragment<f32, [TILE_K, TILE_1]>, !pgpu.fragment<f32, [TILE_0, TILE_1]>
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @gemm_mixed_fp8(%a: !pgpu.view<f8E4M3FN, [M, K], in>, %b: !pgpu.view<f8E5M2, [K, N], in>, %c: !pgpu.view<f32, [M, N], out>) {
    %ha = arith.constant 0.0 : f8E4M3FN
    %hb = arith.constant 0.0 : f8E5M2
    %true = arith.constant true
    %c0 = arith.constant 0 : index
    %z = arith.constant 0.0 : f32
    %M = pgpu.extent %a[0] : !pgpu.view<f8E4M3FN, [M, K], in>
    %K = pgpu.extent %a[1] : !pgpu.view<f8E4M3FN, [M, K], in>
    %N = pgpu.extent %b[1] : !pgpu.view<f8E5M2, [K, N], in>
    pgpu.program_space(%M) {
    ^bb0(%pid: index):
      pgpu.execution_group %pid extents(%M) segment 0 roles ["axis0"] {
      ^bb0(%m: index):
        pgpu.foreach %c0 to %N {
        ^bb0(%n: index):
          %s = pgpu.range_reduce %c0 to %K identity(%z : f32) -> (f32) element {
          ^bb0(%k: index):
            %x = pgpu.load %a[%m, %k] valid %true : i1 fill %ha : f8E4M3FN : !pgpu.view<f8E4M3FN, [M, K], in>[index, index] -> f8E4M3FN
            %y = pgpu.load %b[%k, %n] valid %true : i1 fill %hb : f8E5M2 : !pgpu.view<f8E5M2, [K, N], in>[index, index] -> f8E5M2
            %xf = pgpu.cast %x : f8E4M3FN to f32
            %yf = pgpu.cast %y : f8E5M2 to f32
            %p = pgpu.binary mul %xf, %yf : f32
            pgpu.yield %p : f32
          } combine {
          ^bb0(%l: f32, %r: f32):
            %t = pgpu.binary add %l, %r : f32
            pgpu.yield %t : f32
          }
          pgpu.store %s, %c[%m, %n] valid %true : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}


// -----

// COM: Must not narrow: i8 x i8 widened to f32 (an integer operand is no tensor-core float operand
// COM: here); the f32 widenings are built on the tiles.
// CHECK-LABEL: pgpu.kernel @gemm_i8
// CHECK: pgpu.cast %{{.*}} : !pgpu.fragment<i8, [TILE_0, TILE_K]> to !pgpu.fragment<f32, [TILE_0, TILE_K]>
// CHECK: pgpu.cast %{{.*}} : !pgpu.fragment<i8, [TILE_1, TILE_K]> to !pgpu.fragment<f32, [TILE_1, TILE_K]>
// CHECK: pgpu.contract %{{.*}}, %{{.*}}, %{{.*}} reduce([1], [0]) batch([], []) : !pgpu.fragment<f32, [TILE_0, TILE_K]>, !pgpu.fragment<f32, [TILE_K, TILE_1]>
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @gemm_i8(%a: !pgpu.view<i8, [M, K], in>, %b: !pgpu.view<i8, [K, N], in>, %c: !pgpu.view<f32, [M, N], out>) {
    %ha = arith.constant 0 : i8
    %hb = arith.constant 0 : i8
    %true = arith.constant true
    %c0 = arith.constant 0 : index
    %z = arith.constant 0.0 : f32
    %M = pgpu.extent %a[0] : !pgpu.view<i8, [M, K], in>
    %K = pgpu.extent %a[1] : !pgpu.view<i8, [M, K], in>
    %N = pgpu.extent %b[1] : !pgpu.view<i8, [K, N], in>
    pgpu.program_space(%M) {
    ^bb0(%pid: index):
      pgpu.execution_group %pid extents(%M) segment 0 roles ["axis0"] {
      ^bb0(%m: index):
        pgpu.foreach %c0 to %N {
        ^bb0(%n: index):
          %s = pgpu.range_reduce %c0 to %K identity(%z : f32) -> (f32) element {
          ^bb0(%k: index):
            %x = pgpu.load %a[%m, %k] valid %true : i1 fill %ha : i8 : !pgpu.view<i8, [M, K], in>[index, index] -> i8
            %y = pgpu.load %b[%k, %n] valid %true : i1 fill %hb : i8 : !pgpu.view<i8, [K, N], in>[index, index] -> i8
            %xf = pgpu.cast %x : i8 to f32
            %yf = pgpu.cast %y : i8 to f32
            %p = pgpu.binary mul %xf, %yf : f32
            pgpu.yield %p : f32
          } combine {
          ^bb0(%l: f32, %r: f32):
            %t = pgpu.binary add %l, %r : f32
            pgpu.yield %t : f32
          }
          pgpu.store %s, %c[%m, %n] valid %true : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

