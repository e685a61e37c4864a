// RUN: tessel-opt %s -split-input-file -pgpu-triton-legalize | FileCheck %s

// COM: An unblocked stored scan becomes an ordered loop over its members in scan order: the loop
// COM: carries the prefix, combines it with the member (prefix first), and emits the inclusive prefix.
// CHECK-LABEL: pgpu.kernel @scan_inclusive
// CHECK-SAME: params = [#pgpu.param<"WARPS", [1, 2, 4, 8, 16], 4, provider = "triton">, #pgpu.param<"STAGES", [1, 2, 3, 4, 5, 6], 3, provider = "triton">]
// CHECK-NOT: pgpu.range_scan
// CHECK: %[[COUNT:.*]] = pgpu.binary sub %[[HI:.*]], %[[LO:.*]] : index
// CHECK: pgpu.for %{{.*}} to %[[COUNT]] step %{{.*}} iter_args(%{{.*}} : f32) -> f32 {
// CHECK-NEXT: ^bb0(%[[K:.*]]: index, %[[ACC:.*]]: f32):
// CHECK-NEXT: %[[AT:.*]] = pgpu.binary add %[[LO]], %[[K]] : index
// CHECK-NEXT: %[[X:.*]] = pgpu.load %x[%[[AT]]]
// CHECK-NEXT: %[[NEXT:.*]] = pgpu.binary add %[[ACC]], %[[X]] : f32
// CHECK-NEXT: pgpu.store %[[NEXT]], %y[%[[AT]]]
// CHECK-NEXT: pgpu.yield %[[NEXT]] : f32
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @scan_inclusive(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>) {
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      %t = arith.constant true
      pgpu.range_scan %c0 to %N identity(%z : f32) element {
      ^bb0(%i: index):
        %v = pgpu.load %x[%i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N], in>[index] -> f32
        pgpu.yield %v : f32
      } combine {
      ^bb0(%a: f32, %b: f32):
        %c = pgpu.binary add %a, %b : f32
        pgpu.yield %c : f32
      } emit {
      ^bb0(%i: index, %s: f32):
        pgpu.store %s, %y[%i] valid %t : i1 : f32, !pgpu.view<f32, [N], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Exclusive reverse: members are visited from hi - 1 down, and the prefix before the member
// COM: (the carried value) is what the emit region writes.
// CHECK-LABEL: pgpu.kernel @scan_exclusive_reverse
// CHECK: pgpu.for %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} : f32) -> f32 {
// CHECK-NEXT: ^bb0(%[[K:.*]]: index, %[[ACC:.*]]: f32):
// CHECK-NEXT: %[[LAST:.*]] = pgpu.binary sub %{{.*}}, %{{.*}} : index
// CHECK-NEXT: %[[AT:.*]] = pgpu.binary sub %[[LAST]], %[[K]] : index
// CHECK-NEXT: %[[X:.*]] = pgpu.load %x[%[[AT]]]
// CHECK-NEXT: %[[NEXT:.*]] = pgpu.binary max %[[ACC]], %[[X]] : f32
// CHECK-NEXT: pgpu.store %[[ACC]], %y[%[[AT]]]
// CHECK-NEXT: pgpu.yield %[[NEXT]] : f32
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @scan_exclusive_reverse(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>) {
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0xFF800000 : f32
      %t = arith.constant true
      pgpu.range_scan %c0 to %N identity(%z : f32) exclusive reverse element {
      ^bb0(%i: index):
        %v = pgpu.load %x[%i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N], in>[index] -> f32
        pgpu.yield %v : f32
      } combine {
      ^bb0(%a: f32, %b: f32):
        %c = pgpu.binary max %a, %b : f32
        pgpu.yield %c : f32
      } emit {
      ^bb0(%i: index, %s: f32):
        pgpu.store %s, %y[%i] valid %t : i1 : f32, !pgpu.view<f32, [N], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: a blocked fragment scan is spelled by the provider (tl.associative_scan) and
// COM: stays as it is.
// CHECK-LABEL: pgpu.kernel @fragment_scan
// CHECK: pgpu.scan
// CHECK-NOT: pgpu.for
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @fragment_scan(%x: !pgpu.view<f32, [16], in>, %y: !pgpu.view<f32, [16], out>) {
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      %t = arith.constant true
      %lanes = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %v = pgpu.load %x[%lanes] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [16], in>[!pgpu.fragment<index, [16]>] -> !pgpu.fragment<f32, [16]>
      %s = pgpu.scan %v axis 0 identity(%z : f32) : (!pgpu.fragment<f32, [16]>) -> (!pgpu.fragment<f32, [16]>) {
      ^bb0(%a: f32, %b: f32):
        %c = pgpu.binary add %a, %b : f32
        pgpu.yield %c : f32
      }
      pgpu.store %s, %y[%lanes] valid %t : i1 : !pgpu.fragment<f32, [16]>, !pgpu.view<f32, [16], out>[!pgpu.fragment<index, [16]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Triton's launch configuration becomes declared provider parameters, appended after the
// COM: kernel's own declarations (WARPS, then STAGES), so the tuner can search them.
// CHECK-LABEL: pgpu.kernel @launch_params
// CHECK-SAME: params = [#pgpu.param<"BLOCK", [64, 128], 64>, #pgpu.param<"WARPS", [1, 2, 4, 8, 16], 4, provider = "triton">, #pgpu.param<"STAGES", [1, 2, 3, 4, 5, 6], 3, provider = "triton">]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @launch_params(%x: !pgpu.view<f32, [N], in>) attributes {params = [#pgpu.param<"BLOCK", [64, 128], 64>]} {
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: A launch parameter the kernel already declares is kept as it is and not declared twice;
// COM: only the missing one is added.
// CHECK-LABEL: pgpu.kernel @declares_warps
// CHECK-SAME: params = [#pgpu.param<"WARPS", [4, 8], 8, provider = "triton">, #pgpu.param<"STAGES", [1, 2, 3, 4, 5, 6], 3, provider = "triton">]
// CHECK-NOT: #pgpu.param<"WARPS"
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @declares_warps(%x: !pgpu.view<f32, [N], in>) attributes {params = [#pgpu.param<"WARPS", [4, 8], 8, provider = "triton">]} {
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      pgpu.yield
    }
    pgpu.return
  }
}
