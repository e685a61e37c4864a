// RUN: tessel-opt %s -split-input-file -pgpu-stage-rows | FileCheck %s

// COM: Two blocked loops over the same row (a max, then the store of x - max): under
// COM: 0 < N <= BLOCK both run once, inlined at iv = 0 in the then-branch (one iota, the second
// COM: loop's carry bound to its init); the else-branch keeps the loops as they were.
// CHECK-LABEL: pgpu.kernel @rowmax_shift
// CHECK: %[[BLOCK:.*]] = pgpu.param "BLOCK" : index
// CHECK: %[[EXTENT:.*]] = pgpu.binary sub %[[N:.*]], %[[C0:.*]] : index
// CHECK: %[[NONEMPTY:.*]] = pgpu.cmp lt %[[C0]], %[[N]] : index
// CHECK: %[[FITS:.*]] = pgpu.cmp le %[[EXTENT]], %[[BLOCK]] : index
// CHECK: %[[ONCE:.*]] = pgpu.binary and %[[NONEMPTY]], %[[FITS]] : i1
// CHECK: pgpu.if %[[ONCE]] {
// CHECK-NOT: pgpu.for
// CHECK: %[[L1:.*]] = pgpu.iota %[[C0]] : !pgpu.fragment<index, [BLOCK]>
// CHECK: pgpu.load %x[%{{.*}}, %[[L1]]]
// CHECK: %[[PART:.*]] = pgpu.reduce
// CHECK: %[[MAX:.*]] = pgpu.binary max %{{.*}}, %[[PART]] : f32
// CHECK: %[[L2:.*]] = pgpu.iota %[[C0]] : !pgpu.fragment<index, [BLOCK]>
// CHECK: pgpu.splat %[[MAX]] : f32 -> !pgpu.fragment<f32, [BLOCK]>
// CHECK: pgpu.store %{{.*}}, %y[%{{.*}}, %[[L2]]]
// CHECK: } else {
// CHECK: pgpu.for %[[C0]] to %[[N]] step %[[BLOCK]] iter_args
// CHECK: pgpu.for %[[C0]] to %[[N]] step %[[BLOCK]] {
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @rowmax_shift(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M, N], out>)
      attributes {params = [#pgpu.param<"BLOCK", [64, 128], 64>]} {
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space (%M) {
    ^bb0(%row: index):
      %c0 = arith.constant 0 : index
      %ninf = arith.constant 0xFF800000 : f32
      %z = arith.constant 0.0 : f32
      %block = pgpu.param "BLOCK" : index
      %max = pgpu.for %c0 to %N step %block iter_args(%ninf : f32) -> f32 {
      ^bb0(%b: index, %acc: f32):
        %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
        %bound = pgpu.splat %N : index -> !pgpu.fragment<index, [BLOCK]>
        %ok = pgpu.cmp lt %lanes, %bound : !pgpu.fragment<index, [BLOCK]>
        %v = pgpu.load %x[%row, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %ninf : f32 : !pgpu.view<f32, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
        %part = pgpu.reduce %v axes [0] identity(%ninf : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
        ^bb0(%l: f32, %r: f32):
          %m = pgpu.binary max %l, %r : f32
          pgpu.yield %m : f32
        }
        %next = pgpu.binary max %acc, %part : f32
        pgpu.yield %next : f32
      }
      pgpu.for %c0 to %N step %block {
      ^bb0(%b: index):
        %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
        %bound = pgpu.splat %N : index -> !pgpu.fragment<index, [BLOCK]>
        %ok = pgpu.cmp lt %lanes, %bound : !pgpu.fragment<index, [BLOCK]>
        %v = pgpu.load %x[%row, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
        %mb = pgpu.splat %max : f32 -> !pgpu.fragment<f32, [BLOCK]>
        %d = pgpu.binary sub %v, %mb : !pgpu.fragment<f32, [BLOCK]>
        pgpu.store %d, %y[%row, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> : !pgpu.fragment<f32, [BLOCK]>, !pgpu.view<f32, [M, N], out>[index, !pgpu.fragment<index, [BLOCK]>]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: one blocked loop has nothing to share.
// CHECK-LABEL: pgpu.kernel @single
// CHECK-NOT: pgpu.if
// CHECK: pgpu.for
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @single(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
      attributes {params = [#pgpu.param<"BLOCK", [64, 128], 64>]} {
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      %block = pgpu.param "BLOCK" : index
      pgpu.for %c0 to %N step %block {
      ^bb0(%b: index):
        %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
        %bound = pgpu.splat %N : index -> !pgpu.fragment<index, [BLOCK]>
        %ok = pgpu.cmp lt %lanes, %bound : !pgpu.fragment<index, [BLOCK]>
        %v = pgpu.load %x[%lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %z : f32 : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
        pgpu.store %v, %y[%lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> : !pgpu.fragment<f32, [BLOCK]>, !pgpu.view<f32, [N], out>[!pgpu.fragment<index, [BLOCK]>]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: author loops (a step that is not the BLOCK parameter) stay as written,
// COM: even when they read the same view over the same bounds.
// CHECK-LABEL: pgpu.kernel @author_loops
// CHECK-NOT: pgpu.if
// CHECK-COUNT-2: pgpu.for
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @author_loops(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>) {
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %t = arith.constant true
      %z = arith.constant 0.0 : f32
      %s = pgpu.for %c0 to %N step %c1 iter_args(%z : f32) -> f32 {
      ^bb0(%i: index, %acc: f32):
        %v = pgpu.load %x[%i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N], in>[index] -> f32
        %n = pgpu.binary add %acc, %v : f32
        pgpu.yield %n : f32
      }
      pgpu.for %c0 to %N step %c1 {
      ^bb0(%i: index):
        %v = pgpu.load %x[%i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N], in>[index] -> f32
        %w = pgpu.binary sub %v, %s : f32
        pgpu.store %w, %y[%i] valid %t : i1 : f32, !pgpu.view<f32, [N], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: A branch of an if at the program's top level (the author tests the row's label first) is a
// COM: program body too: its two blocked loops over the row are staged inside the branch. The same
// COM: loops under an if inside an ordered loop (not a program body) stay as they are.
// CHECK-LABEL: pgpu.kernel @labelled_rows
// CHECK: pgpu.if %{{.*}} {
// CHECK: pgpu.store
// CHECK: } else {
// CHECK: %[[ONCE:.*]] = pgpu.binary and
// CHECK: pgpu.if %[[ONCE]] {
// CHECK-NOT: pgpu.for
// CHECK: pgpu.reduce
// CHECK: pgpu.store
// CHECK: } else {
// CHECK-COUNT-2: pgpu.for %{{.*}} to %{{.*}} step %{{.*}}
// CHECK: pgpu.for %{{.*}} to %{{.*}} step %c1
// CHECK-NEXT: ^bb0
// CHECK-NEXT: pgpu.if
// CHECK-NEXT: pgpu.for
// CHECK: pgpu.for
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @labelled_rows(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M, N], out>, %skip: i1)
      attributes {params = [#pgpu.param<"BLOCK", [64, 128], 64>]} {
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space (%M) {
    ^bb0(%row: index):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %ninf = arith.constant 0xFF800000 : f32
      %z = arith.constant 0.0 : f32
      %t = arith.constant true
      %block = pgpu.param "BLOCK" : index
      pgpu.if %skip {
        pgpu.store %z, %y[%row, %c0] valid %t : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
        pgpu.yield
      } else {
        %max = pgpu.for %c0 to %N step %block iter_args(%ninf : f32) -> f32 {
        ^bb0(%b: index, %acc: f32):
          %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
          %bound = pgpu.splat %N : index -> !pgpu.fragment<index, [BLOCK]>
          %ok = pgpu.cmp lt %lanes, %bound : !pgpu.fragment<index, [BLOCK]>
          %v = pgpu.load %x[%row, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %ninf : f32 : !pgpu.view<f32, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
          %part = pgpu.reduce %v axes [0] identity(%ninf : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
          ^bb0(%l: f32, %r: f32):
            %m = pgpu.binary max %l, %r : f32
            pgpu.yield %m : f32
          }
          %next = pgpu.binary max %acc, %part : f32
          pgpu.yield %next : f32
        }
        pgpu.for %c0 to %N step %block {
        ^bb0(%b: index):
          %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
          %bound = pgpu.splat %N : index -> !pgpu.fragment<index, [BLOCK]>
          %ok = pgpu.cmp lt %lanes, %bound : !pgpu.fragment<index, [BLOCK]>
          %v = pgpu.load %x[%row, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
          %mb = pgpu.splat %max : f32 -> !pgpu.fragment<f32, [BLOCK]>
          %d = pgpu.binary sub %v, %mb : !pgpu.fragment<f32, [BLOCK]>
          pgpu.store %d, %y[%row, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> : !pgpu.fragment<f32, [BLOCK]>, !pgpu.view<f32, [M, N], out>[index, !pgpu.fragment<index, [BLOCK]>]
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.for %c0 to %c2 step %c1 {
      ^bb0(%k: index):
        pgpu.if %skip {
          pgpu.for %c0 to %N step %block {
          ^bb0(%b: index):
            %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
            %bound = pgpu.splat %N : index -> !pgpu.fragment<index, [BLOCK]>
            %ok = pgpu.cmp lt %lanes, %bound : !pgpu.fragment<index, [BLOCK]>
            %v = pgpu.load %x[%row, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
            pgpu.store %v, %y[%row, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> : !pgpu.fragment<f32, [BLOCK]>, !pgpu.view<f32, [M, N], out>[index, !pgpu.fragment<index, [BLOCK]>]
            pgpu.yield
          }
          pgpu.for %c0 to %N step %block {
          ^bb0(%b: index):
            %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
            %bound = pgpu.splat %N : index -> !pgpu.fragment<index, [BLOCK]>
            %ok = pgpu.cmp lt %lanes, %bound : !pgpu.fragment<index, [BLOCK]>
            %v = pgpu.load %x[%row, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
            %w = pgpu.binary add %v, %v : !pgpu.fragment<f32, [BLOCK]>
            pgpu.store %w, %y[%row, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> : !pgpu.fragment<f32, [BLOCK]>, !pgpu.view<f32, [M, N], out>[index, !pgpu.fragment<index, [BLOCK]>]
            pgpu.yield
          }
          pgpu.yield
        } else {
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

// COM: A row reduced in every trip of an author loop (a bisection on a threshold: sum(max(x - t, 0))
// COM: compared with 1 halves [lo, hi)), beside a max over the row before it. Under 0 < N <= BLOCK the
// COM: nested blocked loop runs once too: it is inlined in the author loop, and its read of x, the
// COM: same every trip (x is an input), moves before the author loop with the lanes and mask it
// COM: needs, so the row is read once per row, not once per trip. The pointwise work on the row and
// COM: the reduction stay in the loop; the else-branch keeps the nested blocked loop and its read.
// CHECK-LABEL: pgpu.kernel @bisect_rows
// CHECK: pgpu.if %{{.*}} {
// CHECK: %[[LANES:.*]] = pgpu.iota %[[C0:.*]] : !pgpu.fragment<index, [BLOCK]>
// CHECK: %[[ROW:.*]] = pgpu.load %x[%{{.*}}, %[[LANES]]]
// CHECK: pgpu.reduce %[[ROW]]
// CHECK: %[[ROW2:.*]] = pgpu.load %x[%{{.*}}, %{{.*}}]
// CHECK-NEXT: pgpu.for %[[C0]] to %{{.*}} step %c1
// CHECK-NOT: pgpu.load
// CHECK-NOT: pgpu.for
// CHECK: pgpu.binary sub %[[ROW2]], %{{.*}} : !pgpu.fragment<f32, [BLOCK]>
// CHECK: pgpu.reduce
// CHECK: pgpu.if
// CHECK: pgpu.store %{{.*}}, %y
// CHECK: } else {
// CHECK: pgpu.for %[[C0]] to %{{.*}} step %c1
// CHECK-NEXT: ^bb0
// CHECK: pgpu.for %[[C0]] to %{{.*}} step %{{.*}} iter_args
// CHECK-NEXT: ^bb0
// CHECK: pgpu.load %x
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @bisect_rows(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M], out>)
      attributes {params = [#pgpu.param<"BLOCK", [64, 128], 64>]} {
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space (%M) {
    ^bb0(%row: index):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c30 = arith.constant 30 : index
      %ninf = arith.constant 0xFF800000 : f32
      %z = arith.constant 0.0 : f32
      %one = arith.constant 1.0 : f32
      %half = arith.constant 0.5 : f32
      %t = arith.constant true
      %block = pgpu.param "BLOCK" : index
      %max = pgpu.for %c0 to %N step %block iter_args(%ninf : f32) -> f32 {
      ^bb0(%b: index, %acc: f32):
        %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
        %bound = pgpu.splat %N : index -> !pgpu.fragment<index, [BLOCK]>
        %ok = pgpu.cmp lt %lanes, %bound : !pgpu.fragment<index, [BLOCK]>
        %v = pgpu.load %x[%row, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %ninf : f32 : !pgpu.view<f32, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
        %part = pgpu.reduce %v axes [0] identity(%ninf : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
        ^bb0(%l: f32, %r: f32):
          %m = pgpu.binary max %l, %r : f32
          pgpu.yield %m : f32
        }
        %next = pgpu.binary max %acc, %part : f32
        pgpu.yield %next : f32
      }
      %lo0 = pgpu.binary sub %max, %one : f32
      %ends:2 = pgpu.for %c0 to %c30 step %c1 iter_args(%lo0, %max : f32, f32) -> f32, f32 {
      ^bb0(%i: index, %lo: f32, %hi: f32):
        %s = pgpu.binary add %lo, %hi : f32
        %mid = pgpu.binary mul %s, %half : f32
        %sum = pgpu.for %c0 to %N step %block iter_args(%z : f32) -> f32 {
        ^bb0(%b: index, %acc: f32):
          %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
          %bound = pgpu.splat %N : index -> !pgpu.fragment<index, [BLOCK]>
          %ok = pgpu.cmp lt %lanes, %bound : !pgpu.fragment<index, [BLOCK]>
          %v = pgpu.load %x[%row, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
          %mb = pgpu.splat %mid : f32 -> !pgpu.fragment<f32, [BLOCK]>
          %d = pgpu.binary sub %v, %mb : !pgpu.fragment<f32, [BLOCK]>
          %zb = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [BLOCK]>
          %p = pgpu.binary max %d, %zb : !pgpu.fragment<f32, [BLOCK]>
          %pv = pgpu.select %ok, %p, %zb : !pgpu.fragment<i1, [BLOCK]>, !pgpu.fragment<f32, [BLOCK]>
          %part = pgpu.reduce %pv axes [0] identity(%z : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
          ^bb0(%l: f32, %r: f32):
            %a = pgpu.binary add %l, %r : f32
            pgpu.yield %a : f32
          }
          %next = pgpu.binary add %acc, %part : f32
          pgpu.yield %next : f32
        }
        %over = pgpu.cmp gt %sum, %one : f32
        %nlo, %nhi = pgpu.if %over -> f32, f32 {
          pgpu.yield %mid, %hi : f32, f32
        } else {
          pgpu.yield %lo, %mid : f32, f32
        }
        pgpu.yield %nlo, %nhi : f32, f32
      }
      %tau = pgpu.binary add %ends#0, %ends#1 : f32
      pgpu.store %tau, %y[%row] valid %t : i1 : f32, !pgpu.view<f32, [M], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the same bisection whose blocked loop in the author loop walks another range
// COM: ([0, K), not the row [0, N) the guard bounds) keeps the nested loop and its read in every
// COM: trip; and the read of a view the kernel writes (inout) is not moved out of a loop either.
// CHECK-LABEL: pgpu.kernel @bisect_other_range
// CHECK: pgpu.if %{{.*}} {
// CHECK: pgpu.for %{{.*}} to %{{.*}} step %c1
// CHECK-NEXT: ^bb0
// CHECK: pgpu.binary mul
// CHECK-NEXT: pgpu.for %{{.*}} to %[[K:.*]] step %{{.*}} iter_args
// CHECK-NEXT: ^bb0
// CHECK-NEXT: pgpu.iota
// CHECK: pgpu.load %w
// CHECK: } else {
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @bisect_other_range(%x: !pgpu.view<f32, [M, N], in>, %w: !pgpu.view<f32, [M, K], inout>, %y: !pgpu.view<f32, [M], out>)
      attributes {params = [#pgpu.param<"BLOCK", [64, 128], 64>]} {
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    %K = pgpu.extent %w[1] : !pgpu.view<f32, [M, K], inout>
    pgpu.program_space (%M) {
    ^bb0(%row: index):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c30 = arith.constant 30 : index
      %ninf = arith.constant 0xFF800000 : f32
      %z = arith.constant 0.0 : f32
      %one = arith.constant 1.0 : f32
      %half = arith.constant 0.5 : f32
      %t = arith.constant true
      %block = pgpu.param "BLOCK" : index
      %max = pgpu.for %c0 to %N step %block iter_args(%ninf : f32) -> f32 {
      ^bb0(%b: index, %acc: f32):
        %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
        %bound = pgpu.splat %N : index -> !pgpu.fragment<index, [BLOCK]>
        %ok = pgpu.cmp lt %lanes, %bound : !pgpu.fragment<index, [BLOCK]>
        %v = pgpu.load %x[%row, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %ninf : f32 : !pgpu.view<f32, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
        %part = pgpu.reduce %v axes [0] identity(%ninf : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
        ^bb0(%l: f32, %r: f32):
          %m = pgpu.binary max %l, %r : f32
          pgpu.yield %m : f32
        }
        %next = pgpu.binary max %acc, %part : f32
        pgpu.yield %next : f32
      }
      pgpu.for %c0 to %N step %block {
      ^bb0(%b: index):
        %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
        %bound = pgpu.splat %N : index -> !pgpu.fragment<index, [BLOCK]>
        %ok = pgpu.cmp lt %lanes, %bound : !pgpu.fragment<index, [BLOCK]>
        %v = pgpu.load %x[%row, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
        pgpu.store %v, %w[%row, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> : !pgpu.fragment<f32, [BLOCK]>, !pgpu.view<f32, [M, K], inout>[index, !pgpu.fragment<index, [BLOCK]>]
        pgpu.yield
      }
      %lo0 = pgpu.binary sub %max, %one : f32
      %ends:2 = pgpu.for %c0 to %c30 step %c1 iter_args(%lo0, %max : f32, f32) -> f32, f32 {
      ^bb0(%i: index, %lo: f32, %hi: f32):
        %s = pgpu.binary add %lo, %hi : f32
        %mid = pgpu.binary mul %s, %half : f32
        %sum = pgpu.for %c0 to %K step %block iter_args(%z : f32) -> f32 {
        ^bb0(%b: index, %acc: f32):
          %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
          %bound = pgpu.splat %K : index -> !pgpu.fragment<index, [BLOCK]>
          %ok = pgpu.cmp lt %lanes, %bound : !pgpu.fragment<index, [BLOCK]>
          %v = pgpu.load %w[%row, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %z : f32 : !pgpu.view<f32, [M, K], inout>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
          %mb = pgpu.splat %mid : f32 -> !pgpu.fragment<f32, [BLOCK]>
          %d = pgpu.binary sub %v, %mb : !pgpu.fragment<f32, [BLOCK]>
          %part = pgpu.reduce %d axes [0] identity(%z : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
          ^bb0(%l: f32, %r: f32):
            %a = pgpu.binary add %l, %r : f32
            pgpu.yield %a : f32
          }
          %next = pgpu.binary add %acc, %part : f32
          pgpu.yield %next : f32
        }
        %over = pgpu.cmp gt %sum, %one : f32
        %nlo, %nhi = pgpu.if %over -> f32, f32 {
          pgpu.yield %mid, %hi : f32, f32
        } else {
          pgpu.yield %lo, %mid : f32, f32
        }
        pgpu.yield %nlo, %nhi : f32, f32
      }
      %tau = pgpu.binary add %ends#0, %ends#1 : f32
      pgpu.store %tau, %y[%row] valid %t : i1 : f32, !pgpu.view<f32, [M], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}
