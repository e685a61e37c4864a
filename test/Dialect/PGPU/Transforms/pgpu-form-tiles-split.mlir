// RUN: tessel-opt %s -split-input-file -pgpu-form-tiles | FileCheck %s

// COM: An f32 operand (here x * x, computed) against a widened bf16 operand: the f32 tile is split
// COM: exactly into three bf16 parts (hi = bf16(x), mid = bf16(x - hi), lo = bf16(x - hi - mid), the
// COM: remainder 0 where a part is not finite), each contracted with the bf16 tile into one
// COM: accumulator, lo first (seed 000 §8: the products are exact, the sum's order the
// COM: implementation's). The widening cast of b is consumed.
// CHECK-LABEL: pgpu.kernel @split_lhs
// CHECK: %[[B:.*]] = pgpu.load %b[%{{.*}}, %{{.*}}] {{.*}} -> !pgpu.fragment<bf16, [TILE_1, TILE_K]>
// CHECK-NOT: pgpu.cast %[[B]]
// CHECK: pgpu.binary mul %{{.*}}, %{{.*}} : !pgpu.fragment<f32, [TILE_0, TILE_K]>
// CHECK: %[[X:.*]] = pgpu.select %{{.*}}, %{{.*}}, %{{.*}} : !pgpu.fragment<i1, [TILE_0, TILE_K]>, !pgpu.fragment<f32, [TILE_0, TILE_K]>
// CHECK: %[[BT:.*]] = pgpu.transpose %[[B]]
// CHECK: %[[HI:.*]] = pgpu.cast %[[X]] : !pgpu.fragment<f32, [TILE_0, TILE_K]> to !pgpu.fragment<bf16, [TILE_0, TILE_K]>
// CHECK: %[[HB:.*]] = pgpu.cast %[[HI]] : !pgpu.fragment<bf16, [TILE_0, TILE_K]> to !pgpu.fragment<f32, [TILE_0, TILE_K]>
// CHECK: %[[HH:.*]] = pgpu.binary sub %[[HB]], %[[HB]]
// CHECK: %[[OK:.*]] = pgpu.cmp eq %[[HH]]
// CHECK: %[[D:.*]] = pgpu.binary sub %[[X]], %[[HB]]
// CHECK: %[[R:.*]] = pgpu.select %[[OK]], %[[D]]
// CHECK: %[[MID:.*]] = pgpu.cast %[[R]] : !pgpu.fragment<f32, [TILE_0, TILE_K]> to !pgpu.fragment<bf16, [TILE_0, TILE_K]>
// CHECK: %[[LO:.*]] = pgpu.cast %{{.*}} : !pgpu.fragment<f32, [TILE_0, TILE_K]> to !pgpu.fragment<bf16, [TILE_0, TILE_K]>
// CHECK: %[[C1:.*]] = pgpu.contract %[[LO]], %[[BT]], %{{.*}} reduce([1], [0]) batch([], []) : !pgpu.fragment<bf16, [TILE_0, TILE_K]>, !pgpu.fragment<bf16, [TILE_K, TILE_1]>
// CHECK: %[[C2:.*]] = pgpu.contract %[[MID]], %[[BT]], %[[C1]]
// CHECK: %[[C3:.*]] = pgpu.contract %[[HI]], %[[BT]], %[[C2]]
// CHECK: pgpu.yield %[[C3]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @split_lhs(%a: !pgpu.view<f32, [M, K], in>, %b: !pgpu.view<bf16, [K, N], in>, %c: !pgpu.view<f32, [M, N], out>) {
    %ha = arith.constant 0.0 : f32
    %hb = arith.constant 0.0 : bf16
    %true = arith.constant true
    %c0 = arith.constant 0 : index
    %z = arith.constant 0.0 : f32
    %M = pgpu.extent %a[0] : !pgpu.view<f32, [M, K], in>
    %K = pgpu.extent %a[1] : !pgpu.view<f32, [M, K], in>
    %N = pgpu.extent %b[1] : !pgpu.view<bf16, [K, N], in>
    pgpu.program_space(%M) {
    ^bb0(%pid: index):
      pgpu.execution_group %pid extents(%M) segment 0 roles ["axis0"] {
      ^bb0(%m: index):
        pgpu.foreach %c0 to %N {
        ^bb0(%n: index):
          %s = pgpu.range_reduce %c0 to %K identity(%z : f32) -> (f32) element {
          ^bb0(%k: index):
            %x = pgpu.load %a[%m, %k] valid %true : i1 fill %ha : f32 : !pgpu.view<f32, [M, K], in>[index, index] -> f32
            %y = pgpu.load %b[%k, %n] valid %true : i1 fill %hb : bf16 : !pgpu.view<bf16, [K, N], in>[index, index] -> bf16
            %xf = pgpu.binary mul %x, %x : f32
            %yf = pgpu.cast %y : bf16 to f32
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

// COM: The f32 operand on the right: its tile is split, the widened bf16 lhs read as bf16.
// CHECK-LABEL: pgpu.kernel @split_rhs
// CHECK: %[[A:.*]] = pgpu.load %a[%{{.*}}, %{{.*}}] {{.*}} -> !pgpu.fragment<bf16, [TILE_0, TILE_K]>
// CHECK: %[[HI:.*]] = pgpu.cast %{{.*}} : !pgpu.fragment<f32, [TILE_K, TILE_1]> to !pgpu.fragment<bf16, [TILE_K, TILE_1]>
// CHECK: %[[MID:.*]] = pgpu.cast %{{.*}} : !pgpu.fragment<f32, [TILE_K, TILE_1]> to !pgpu.fragment<bf16, [TILE_K, TILE_1]>
// CHECK: %[[LO:.*]] = pgpu.cast %{{.*}} : !pgpu.fragment<f32, [TILE_K, TILE_1]> to !pgpu.fragment<bf16, [TILE_K, TILE_1]>
// CHECK-NEXT: %[[C1:.*]] = pgpu.contract %[[A]], %[[LO]], %{{.*}} reduce([1], [0]) batch([], []) : !pgpu.fragment<bf16, [TILE_0, TILE_K]>, !pgpu.fragment<bf16, [TILE_K, TILE_1]>
// CHECK-NEXT: %[[C2:.*]] = pgpu.contract %[[A]], %[[MID]], %[[C1]]
// CHECK-NEXT: pgpu.contract %[[A]], %[[HI]], %[[C2]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @split_rhs(%a: !pgpu.view<bf16, [M, K], in>, %b: !pgpu.view<f32, [K, N], in>, %c: !pgpu.view<f32, [M, N], out>) {
    %ha = arith.constant 0.0 : bf16
    %hb = arith.constant 0.0 : f32
    %true = arith.constant true
    %c0 = arith.constant 0 : index
    %z = arith.constant 0.0 : f32
    %M = pgpu.extent %a[0] : !pgpu.view<bf16, [M, K], in>
    %K = pgpu.extent %a[1] : !pgpu.view<bf16, [M, K], in>
    %N = pgpu.extent %b[1] : !pgpu.view<f32, [K, N], in>
    pgpu.program_space(%M) {
    ^bb0(%pid: index):
      pgpu.execution_group %pid extents(%M) segment 0 roles ["axis0"] {
      ^bb0(%m: index):
        pgpu.foreach %c0 to %N {
        ^bb0(%n: index):
          %s = pgpu.range_reduce %c0 to %K identity(%z : f32) -> (f32) element {
          ^bb0(%k: index):
            %x = pgpu.load %a[%m, %k] valid %true : i1 fill %ha : bf16 : !pgpu.view<bf16, [M, K], in>[index, index] -> bf16
            %y = pgpu.load %b[%k, %n] valid %true : i1 fill %hb : f32 : !pgpu.view<f32, [K, N], in>[index, index] -> f32
            %xf = pgpu.cast %x : bf16 to f32
            %yf = pgpu.binary mul %y, %y : f32
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

// COM: Must not split: an f32 operand against a widened f16 one (f32 values are no sum of a few f16
// COM: parts: f16's exponent range is narrow); the contraction reads f32 tiles, one product.
// CHECK-LABEL: pgpu.kernel @keep_f16
// CHECK: pgpu.cast %{{.*}} : !pgpu.fragment<f16, [TILE_1, TILE_K]> to !pgpu.fragment<f32, [TILE_1, TILE_K]>
// CHECK-NOT: bf16
// CHECK: pgpu.contract %{{.*}}, %{{.*}}, %{{.*}} reduce([1], [0]) batch([], []) : !pgpu.fragment<f32, [TILE_0, TILE_K]>, !pgpu.fragment<f32, [TILE_K, TILE_1]>
// CHECK-NOT: pgpu.contract
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @keep_f16(%a: !pgpu.view<f32, [M, K], in>, %b: !pgpu.view<f16, [K, N], in>, %c: !pgpu.view<f32, [M, N], out>) {
    %ha = arith.constant 0.0 : f32
    %hb = arith.constant 0.0 : f16
    %true = arith.constant true
    %c0 = arith.constant 0 : index
    %z = arith.constant 0.0 : f32
    %M = pgpu.extent %a[0] : !pgpu.view<f32, [M, K], in>
    %K = pgpu.extent %a[1] : !pgpu.view<f32, [M, K], in>
    %N = pgpu.extent %b[1] : !pgpu.view<f16, [K, N], in>
    pgpu.program_space(%M) {
    ^bb0(%pid: index):
      pgpu.execution_group %pid extents(%M) segment 0 roles ["axis0"] {
      ^bb0(%m: index):
        pgpu.foreach %c0 to %N {
        ^bb0(%n: index):
          %s = pgpu.range_reduce %c0 to %K identity(%z : f32) -> (f32) element {
          ^bb0(%k: index):
            %x = pgpu.load %a[%m, %k] valid %true : i1 fill %ha : f32 : !pgpu.view<f32, [M, K], in>[index, index] -> f32
            %y = pgpu.load %b[%k, %n] valid %true : i1 fill %hb : f16 : !pgpu.view<f16, [K, N], in>[index, index] -> f16
            %xf = pgpu.binary mul %x, %x : f32
            %yf = pgpu.cast %y : f16 to f32
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

// COM: Must not split: two f32 operands (no widened side): one IEEE f32 contraction.
// CHECK-LABEL: pgpu.kernel @keep_f32
// CHECK-NOT: bf16
// CHECK: pgpu.contract %{{.*}}, %{{.*}}, %{{.*}} reduce([1], [0]) batch([], []) : !pgpu.fragment<f32, [TILE_0, TILE_K]>, !pgpu.fragment<f32, [TILE_K, TILE_1]>
// CHECK-NOT: pgpu.contract
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @keep_f32(%a: !pgpu.view<f32, [M, K], in>, %b: !pgpu.view<f32, [K, N], in>, %c: !pgpu.view<f32, [M, N], out>) {
    %ha = arith.constant 0.0 : f32
    %hb = arith.constant 0.0 : f32
    %true = arith.constant true
    %c0 = arith.constant 0 : index
    %z = arith.constant 0.0 : f32
    %M = pgpu.extent %a[0] : !pgpu.view<f32, [M, K], in>
    %K = pgpu.extent %a[1] : !pgpu.view<f32, [M, K], in>
    %N = pgpu.extent %b[1] : !pgpu.view<f32, [K, N], in>
    pgpu.program_space(%M) {
    ^bb0(%pid: index):
      pgpu.execution_group %pid extents(%M) segment 0 roles ["axis0"] {
      ^bb0(%m: index):
        pgpu.foreach %c0 to %N {
        ^bb0(%n: index):
          %s = pgpu.range_reduce %c0 to %K identity(%z : f32) -> (f32) element {
          ^bb0(%k: index):
            %x = pgpu.load %a[%m, %k] valid %true : i1 fill %ha : f32 : !pgpu.view<f32, [M, K], in>[index, index] -> f32
            %y = pgpu.load %b[%k, %n] valid %true : i1 fill %hb : f32 : !pgpu.view<f32, [K, N], in>[index, index] -> f32
            %xf = pgpu.binary mul %x, %x : f32
            %yf = pgpu.binary mul %y, %y : f32
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

// COM: The f32 operand a sigmoid (sigmoid attention's weights, in [0, 1]): no part is ever inf, so the
// COM: remainders are plain differences, without the finiteness guard (a NaN's products are NaN either way).
// CHECK-LABEL: pgpu.kernel @split_sigmoid
// CHECK: %[[X:.*]] = pgpu.select %{{.*}}, %{{.*}}, %{{.*}} : !pgpu.fragment<i1, [TILE_0, TILE_K]>, !pgpu.fragment<f32, [TILE_0, TILE_K]>
// CHECK: %[[HI:.*]] = pgpu.cast %[[X]] : !pgpu.fragment<f32, [TILE_0, TILE_K]> to !pgpu.fragment<bf16, [TILE_0, TILE_K]>
// CHECK: %[[HB:.*]] = pgpu.cast %[[HI]] : !pgpu.fragment<bf16, [TILE_0, TILE_K]> to !pgpu.fragment<f32, [TILE_0, TILE_K]>
// CHECK-NOT: pgpu.cmp eq
// CHECK: %[[R:.*]] = pgpu.binary sub %[[X]], %[[HB]]
// CHECK-NEXT: %[[MID:.*]] = pgpu.cast %[[R]] : !pgpu.fragment<f32, [TILE_0, TILE_K]> to !pgpu.fragment<bf16, [TILE_0, TILE_K]>
// CHECK-NOT: pgpu.cmp eq
// CHECK: pgpu.contract
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @split_sigmoid(%a: !pgpu.view<f32, [M, K], in>, %b: !pgpu.view<bf16, [K, N], in>, %c: !pgpu.view<f32, [M, N], out>) {
    %ha = arith.constant 0.0 : f32
    %hb = arith.constant 0.0 : bf16
    %true = arith.constant true
    %c0 = arith.constant 0 : index
    %z = arith.constant 0.0 : f32
    %M = pgpu.extent %a[0] : !pgpu.view<f32, [M, K], in>
    %K = pgpu.extent %a[1] : !pgpu.view<f32, [M, K], in>
    %N = pgpu.extent %b[1] : !pgpu.view<bf16, [K, N], in>
    pgpu.program_space(%M) {
    ^bb0(%pid: index):
      pgpu.execution_group %pid extents(%M) segment 0 roles ["axis0"] {
      ^bb0(%m: index):
        pgpu.foreach %c0 to %N {
        ^bb0(%n: index):
          %s = pgpu.range_reduce %c0 to %K identity(%z : f32) -> (f32) element {
          ^bb0(%k: index):
            %x = pgpu.load %a[%m, %k] valid %true : i1 fill %ha : f32 : !pgpu.view<f32, [M, K], in>[index, index] -> f32
            %y = pgpu.load %b[%k, %n] valid %true : i1 fill %hb : bf16 : !pgpu.view<bf16, [K, N], in>[index, index] -> bf16
            %xf = pgpu.unary sigmoid %x : f32
            %yf = pgpu.cast %y : bf16 to f32
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
