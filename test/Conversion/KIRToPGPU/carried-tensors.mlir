// RUN: tessel-opt %s -split-input-file --kir-to-pgpu --verify-diagnostics | FileCheck %s
// COM: seed 000 §5 (ordered loops with carried values), seed 002 §3.3 (separate free and ordered axes):
// COM: a kir.for carrying a tensor whose body is elementwise along the carried axis is constructed
// COM: position by position: the carried axis is free (a pgpu.foreach when the loop writes, the
// COM: reader's positions when only its result is read) and each position runs the ordered pgpu.for
// COM: carrying the element there as a scalar; values from outside the loop are read before it.

// COM: A recurrence over time whose body stores each step: foreach channel { decay; for t (h) }.
// CHECK-LABEL: pgpu.kernel @ema
// CHECK: pgpu.execution_group
// CHECK: pgpu.foreach %{{.*}} to %{{.*}} {
// CHECK-NEXT: ^bb0(%[[C:.*]]: index):
// CHECK: %[[A:.*]] = pgpu.load %decay[%{{.*}}]
// CHECK: pgpu.for %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} : f32) -> f32 {
// CHECK-NEXT: ^bb0(%[[T:.*]]: index, %[[H:.*]]: f32):
// CHECK: pgpu.binary mul %[[A]], %[[H]] : f32
// CHECK: pgpu.load %x[%{{.*}}, %{{.*}}, %{{.*}}]
// CHECK: %[[NEXT:.*]] = pgpu.binary add
// CHECK: pgpu.store %[[NEXT]], %y[
// CHECK: pgpu.yield %[[NEXT]] : f32
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @ema(%x: !kir.view<f32, [B, T, C], in>, %decay: !kir.view<f32, [C], in>, %y: !kir.view<f32, [B, T, C], out>) {
    %0 = kir.extent "B"
    %1 = kir.extent "T"
    %2 = kir.extent "C"
    %c0 = arith.constant 0 : index
    %3 = kir.domain %c0 to %2
    %4 = kir.domain %c0 to %0
    %cst = arith.constant 0.000000e+00 : f32
    %5 = kir.broadcast %cst over(%3) dims [] : f32 -> tensor<?xf32>
    %6 = kir.domain %c0 to %1
    %cst_0 = arith.constant 1.000000e+00 : f32
    %7 = kir.broadcast %cst_0 over(%3) dims [] : f32 -> tensor<?xf32>
    %8 = kir.load %decay[%3] : !kir.view<f32, [C], in>[!kir.domain] -> tensor<?xf32>
    kir.parallel %4 {
    ^bb0(%arg0: index):
      %9 = kir.for %6 iter_args(%5 : tensor<?xf32>) -> tensor<?xf32> {
      ^bb0(%arg1: index, %arg2: tensor<?xf32>):
        %10 = kir.binary mul %8, %arg2 : tensor<?xf32>
        %11 = kir.binary sub %7, %8 : tensor<?xf32>
        %12 = kir.load %x[%arg0, %arg1, %3] : !kir.view<f32, [B, T, C], in>[index, index, !kir.domain] -> tensor<?xf32>
        %13 = kir.binary mul %11, %12 : tensor<?xf32>
        %14 = kir.binary add %10, %13 : tensor<?xf32>
        kir.store %14, %y[%arg0, %arg1, %3] : tensor<?xf32>, !kir.view<f32, [B, T, C], out>[index, index, !kir.domain]
        kir.yield %14 : tensor<?xf32>
      }
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: An accumulator over a bag's items (a data-dependent subregion): no writes in the loop, so the
// COM: store after it realizes it per position; the loop's trip count is a runtime scalar.
// CHECK-LABEL: pgpu.kernel @bag
// CHECK: pgpu.load %offsets[
// CHECK: pgpu.foreach %{{.*}} to %{{.*}} {
// CHECK-NEXT: ^bb0(%[[D:.*]]: index):
// CHECK: %[[ACC:.*]] = pgpu.for %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} : f32) -> f32 {
// CHECK: pgpu.gather %table[
// CHECK: pgpu.store %[[ACC]], %out[
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @bag(%table: !kir.view<f32, [V, D], in>, %indices: !kir.view<i32, [NI], in> {kir.range = [0, "V"]}, %offsets: !kir.view<i32, [NB], in>, %out: !kir.view<f32, [NB, D], out>) {
    %0 = kir.extent "V"
    %1 = kir.extent "D"
    %2 = kir.extent "NI"
    %3 = kir.extent "NB"
    %c0 = arith.constant 0 : index
    %4 = kir.domain %c0 to %1
    %5 = kir.domain %c0 to %2
    %6 = kir.domain %c0 to %3
    %c1 = arith.constant 1 : index
    %cst = arith.constant 0.000000e+00 : f32
    %7 = kir.broadcast %cst over(%4) dims [] : f32 -> tensor<?xf32>
    kir.parallel %6 {
    ^bb0(%arg0: index):
      %8 = kir.load %offsets[%arg0] : !kir.view<i32, [NB], in>[index] -> i32
      %9 = kir.cast %8 : i32 to index
      %10 = kir.binary add %arg0, %c1 : index
      %11 = kir.cmp lt %10, %3 : index
      %12 = kir.if %11 -> index {
        %15 = kir.load %offsets[%10] : !kir.view<i32, [NB], in>[index] -> i32
        %16 = kir.cast %15 : i32 to index
        kir.yield %16 : index
      } else {
        kir.yield %2 : index
      }
      %13 = kir.subregion %5[%9 : %12]
      %14 = kir.for %13 iter_args(%7 : tensor<?xf32>) -> tensor<?xf32> {
      ^bb0(%arg1: index, %arg2: tensor<?xf32>):
        %15 = kir.load %indices[%arg1] : !kir.view<i32, [NI], in>[index] -> i32
        %16 = kir.cast %15 : i32 to index
        %17 = kir.load %table[%16, %4] : !kir.view<f32, [V, D], in>[index, !kir.domain] -> tensor<?xf32>
        %18 = kir.binary add %arg2, %17 : tensor<?xf32>
        kir.yield %18 : tensor<?xf32>
      }
      kir.store %14, %out[%arg0, %4] : tensor<?xf32>, !kir.view<f32, [NB, D], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire: the carry's next value reads every position of the carry (a reduction over the
// COM: carried axis), so positions are not independent.
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @norm_recurrence(%x: !kir.view<f32, [B, T, C], in>, %y: !kir.view<f32, [B, T, C], out>) {
    %0 = kir.extent "T"
    %1 = kir.extent "C"
    %c0 = arith.constant 0 : index
    %2 = kir.domain %c0 to %1
    %3 = kir.domain %c0 to %0
    %cst = arith.constant 0.000000e+00 : f32
    %5 = kir.broadcast %cst over(%2) dims [] : f32 -> tensor<?xf32>
    %bx = kir.extent "B"
    %one = kir.domain %c0 to %bx
    kir.parallel %one {
    ^bb0(%arg0: index):
      %6 = kir.for %3 iter_args(%5 : tensor<?xf32>) -> tensor<?xf32> {
      ^bb0(%t: index, %h: tensor<?xf32>):
        // expected-error @+1 {{reads the carried tensor across positions}}
        %s = kir.reduce %h axes [0] identity(%cst : f32) : (tensor<?xf32>) -> (f32) {
        ^bb0(%a: f32, %b: f32):
          %c = kir.binary add %a, %b : f32
          kir.yield %c : f32
        }
        %sb = kir.broadcast %s over(%2) dims [] : f32 -> tensor<?xf32>
        %xt = kir.load %x[%arg0, %t, %2] : !kir.view<f32, [B, T, C], in>[index, index, !kir.domain] -> tensor<?xf32>
        %n = kir.binary sub %xt, %sb : tensor<?xf32>
        kir.store %n, %y[%arg0, %t, %2] : tensor<?xf32>, !kir.view<f32, [B, T, C], out>[index, index, !kir.domain]
        kir.yield %n : tensor<?xf32>
      }
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire: the loop reads the view it writes (the previous step's row); position by
// COM: position would reorder those writes against the reads.
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @reads_written(%y: !kir.view<f32, [B, T, C], inout>) {
    %0 = kir.extent "T"
    %1 = kir.extent "C"
    %c0 = arith.constant 0 : index
    %2 = kir.domain %c0 to %1
    %3 = kir.domain %c0 to %0
    %cst = arith.constant 0.000000e+00 : f32
    %5 = kir.broadcast %cst over(%2) dims [] : f32 -> tensor<?xf32>
    %bx = kir.extent "B"
    %one = kir.domain %c0 to %bx
    kir.parallel %one {
    ^bb0(%arg0: index):
      // expected-error @+1 {{it may not read a view or buffer it writes}}
      %6 = kir.for %3 iter_args(%5 : tensor<?xf32>) -> tensor<?xf32> {
      ^bb0(%t: index, %h: tensor<?xf32>):
        %xt = kir.load %y[%arg0, %t, %2] : !kir.view<f32, [B, T, C], inout>[index, index, !kir.domain] -> tensor<?xf32>
        %n = kir.binary add %xt, %h : tensor<?xf32>
        kir.store %n, %y[%arg0, %t, %2] : tensor<?xf32>, !kir.view<f32, [B, T, C], inout>[index, index, !kir.domain]
        kir.yield %n : tensor<?xf32>
      }
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire: a scalar store inside the loop would run once per position.
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @scalar_write(%x: !kir.view<f32, [B, T, C], in>, %s: !kir.view<f32, [B, T], out>) {
    %0 = kir.extent "T"
    %1 = kir.extent "C"
    %c0 = arith.constant 0 : index
    %2 = kir.domain %c0 to %1
    %3 = kir.domain %c0 to %0
    %cst = arith.constant 0.000000e+00 : f32
    %5 = kir.broadcast %cst over(%2) dims [] : f32 -> tensor<?xf32>
    %bx = kir.extent "B"
    %one = kir.domain %c0 to %bx
    kir.parallel %one {
    ^bb0(%arg0: index):
      %6 = kir.for %3 iter_args(%5 : tensor<?xf32>) -> tensor<?xf32> {
      ^bb0(%t: index, %h: tensor<?xf32>):
        %xt = kir.load %x[%arg0, %t, %2] : !kir.view<f32, [B, T, C], in>[index, index, !kir.domain] -> tensor<?xf32>
        %n = kir.binary add %xt, %h : tensor<?xf32>
        %e = kir.load %x[%arg0, %t, %c0] : !kir.view<f32, [B, T, C], in>[index, index, index] -> f32
        // expected-error @+1 {{writes something other than a tensor over the carried axes}}
        kir.store %e, %s[%arg0, %t] : f32, !kir.view<f32, [B, T], out>[index, index]
        kir.yield %n : tensor<?xf32>
      }
      kir.yield
    }
    kir.return
  }
}
