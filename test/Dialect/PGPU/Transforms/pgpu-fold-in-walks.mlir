// RUN: tessel-opt %s -split-input-file -pgpu-fold-in-walks -verify-diagnostics | FileCheck %s
// RUN: tessel-opt %s -split-input-file -pgpu-fold-in-walks -cse -verify-diagnostics | FileCheck %s --check-prefix=SHARED

// COM: A kernel-level sum (a group without axes: pgpu-form-blocking's fold over [0, N)) beside an
// COM: elementwise walk of [0, N) in BLOCK_P-member programs (construction's chain): the walk's loop
// COM: carries the fold's [BLOCK] summary (summarize inlined with the walk's own bound, the combine
// COM: after it), each program stores its reduced scalar at [p] of workspace [WALK_PARTIALS], and the
// COM: last arrival (one ticket, max(G, 1) arrivals) adds the scalars 1024 at a time and stores the
// COM: loss. The fold's group leaves the chain: the space is the walk's max(G, 1) programs.
// CHECK-LABEL: pgpu.kernel @loss_and_grad
// CHECK-SAME: %[[TICKET:[^:]*]]: !pgpu.buffer<i32, [1], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"}
// CHECK-SAME: %[[PARTS:[^:]*]]: !pgpu.buffer<f32, [WALK_PARTIALS], workspace> {pgpu.private = "workspace"}
// CHECK: %[[BP:.*]] = pgpu.param "BLOCK_P" : index
// CHECK: %[[G:.*]] = pgpu.ceil_div %[[N:.*]], %[[BP]] : index
// CHECK: %[[P:.*]] = pgpu.binary max %[[G]], %{{.*}} : index
// CHECK: pgpu.workspace_extent "WALK_PARTIALS" = %[[P]]
// CHECK: pgpu.program_space(%[[P]]) {
// CHECK-NEXT: ^bb0(%[[PID:.*]]: index):
// CHECK-NEXT: pgpu.execution_group %[[PID]] extents(%[[P]]) segment 0 roles ["n"] {
// CHECK-NEXT: ^bb0(%[[PG:.*]]: index):
// CHECK: %[[ID:.*]] = pgpu.splat %{{.*}} : f32 -> !pgpu.fragment<f32, [BLOCK]>
// CHECK: %[[LO:.*]] = pgpu.binary mul %[[PG]], %[[BP]] : index
// CHECK: %[[HI:.*]] = pgpu.binary min
// CHECK: %[[ACC:.*]] = pgpu.for %[[LO]] to %[[HI]] step %{{.*}} iter_args(%[[ID]] : !pgpu.fragment<f32, [BLOCK]>) -> !pgpu.fragment<f32, [BLOCK]> {
// CHECK-NEXT: ^bb0(%[[B:.*]]: index, %[[CARRY:.*]]: !pgpu.fragment<f32, [BLOCK]>):
// CHECK: %[[ENDS:.*]] = pgpu.splat %[[HI]] : index -> !pgpu.fragment<index, [BLOCK]>
// CHECK: %[[X:.*]] = pgpu.load %p[
// CHECK: pgpu.store %{{.*}}, %g[
// CHECK: %[[NEXT:.*]] = pgpu.binary add %[[CARRY]], %[[X]] : !pgpu.fragment<f32, [BLOCK]>
// CHECK: pgpu.yield %[[NEXT]]
// CHECK: %[[MINE:.*]] = pgpu.reduce %[[ACC]] axes [0]
// CHECK: pgpu.buffer_store %[[MINE]], %[[PARTS]][%[[PG]]] valid
// CHECK: pgpu.last_program %[[TICKET]][%{{.*}}] arrivals %[[P]]
// CHECK: %[[ALL:.*]] = pgpu.for %{{.*}} to %[[P]] step %{{.*}} iter_args(%{{.*}} : f32) -> f32 {
// CHECK: pgpu.buffer_load %[[PARTS]][%{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [1024]>
// CHECK: pgpu.store %[[ALL]], %l[
// CHECK-NOT: pgpu.region_fold
// CHECK-NOT: pgpu.execution_group
// COM: After CSE the block's read of p is one load, shared by the gradient and the loss.
// SHARED-LABEL: pgpu.kernel @loss_and_grad
// SHARED: pgpu.for
// SHARED: pgpu.load %p[
// SHARED-NOT: pgpu.load %p[
// SHARED: pgpu.yield
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @loss_and_grad(%p: !pgpu.view<f32, [N], in>, %l: !pgpu.view<f32, [1], out>, %g: !pgpu.view<f32, [N], out>) attributes {params = [#pgpu.param<"BLOCK_P", [256, 2048], 2048>, #pgpu.param<"BLOCK", [64, 512], 512>]} {
    %t = arith.constant true
    %z = arith.constant 0.0 : f32
    %two = arith.constant 2.0 : f32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %N = pgpu.extent %p[0] : !pgpu.view<f32, [N], in>
    %bp = pgpu.param "BLOCK_P" : index
    %G = pgpu.ceil_div %N, %bp : index
    %all = pgpu.binary add %c1, %G : index
    pgpu.program_space (%all) {
    ^bb0(%pid: index):
      %first = pgpu.cmp lt %pid, %c1 : index
      pgpu.if %first {
        pgpu.execution_group %pid extents() segment 0 roles [] {
          %bt = pgpu.param "BLOCK" : index
          %id = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [BLOCK]>
          %acc = pgpu.region_fold %c0 to %N step %bt identity(%id : !pgpu.fragment<f32, [BLOCK]>) operands(%p : !pgpu.view<f32, [N], in>) -> (!pgpu.fragment<f32, [BLOCK]>) summarize {
          ^bb0(%b: index, %e: index, %v: !pgpu.view<f32, [N], in>):
            %zz = arith.constant 0.0 : f32
            %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
            %ends = pgpu.splat %e : index -> !pgpu.fragment<index, [BLOCK]>
            %ok = pgpu.cmp lt %lanes, %ends : !pgpu.fragment<index, [BLOCK]>
            %x = pgpu.load %v[%lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %zz : f32 : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
            pgpu.yield %x : !pgpu.fragment<f32, [BLOCK]>
          } combine {
          ^bb0(%a: !pgpu.fragment<f32, [BLOCK]>, %c: !pgpu.fragment<f32, [BLOCK]>):
            %s = pgpu.binary add %a, %c : !pgpu.fragment<f32, [BLOCK]>
            pgpu.yield %s : !pgpu.fragment<f32, [BLOCK]>
          }
          %sum = pgpu.reduce %acc axes [0] identity(%z : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
          ^bb0(%a: f32, %c: f32):
            %s = pgpu.binary add %a, %c : f32
            pgpu.yield %s : f32
          }
          pgpu.store %sum, %l[%c0] valid %t : i1 : f32, !pgpu.view<f32, [1], out>[index]
          pgpu.yield
        }
        pgpu.yield
      } else {
        %rest = pgpu.binary sub %pid, %c1 : index
        pgpu.execution_group %rest extents(%G) segment 1 roles ["n"] {
        ^bb0(%n: index):
          %lo = pgpu.binary mul %n, %bp : index
          %lo2 = pgpu.binary add %lo, %bp : index
          %hi = pgpu.binary min %lo2, %N : index
          %bt = pgpu.param "BLOCK" : index
          pgpu.for %lo to %hi step %bt {
          ^bb0(%b: index):
            %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
            %ends = pgpu.splat %hi : index -> !pgpu.fragment<index, [BLOCK]>
            %ok = pgpu.cmp lt %lanes, %ends : !pgpu.fragment<index, [BLOCK]>
            %x = pgpu.load %p[%lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %z : f32 : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
            %twos = pgpu.splat %two : f32 -> !pgpu.fragment<f32, [BLOCK]>
            %y = pgpu.binary mul %twos, %x : !pgpu.fragment<f32, [BLOCK]>
            pgpu.store %y, %g[%lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> : !pgpu.fragment<f32, [BLOCK]>, !pgpu.view<f32, [N], out>[!pgpu.fragment<index, [BLOCK]>]
            pgpu.yield
          }
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

// COM: Must not fire: the fold starts at 1 (T.domain(1, N)) while the walk's chunks cut [0, N).
// CHECK-LABEL: pgpu.kernel @offset
// CHECK: pgpu.region_fold %c1 to
// CHECK: pgpu.execution_group %{{.*}} extents(%{{.*}}) segment 1
// CHECK-NOT: WALK_PARTIALS
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @offset(%p: !pgpu.view<f32, [N], in>, %l: !pgpu.view<f32, [1], out>, %g: !pgpu.view<f32, [N], out>) attributes {params = [#pgpu.param<"BLOCK_P", [256, 2048], 2048>, #pgpu.param<"BLOCK", [64, 512], 512>]} {
    %t = arith.constant true
    %z = arith.constant 0.0 : f32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %N = pgpu.extent %p[0] : !pgpu.view<f32, [N], in>
    %bp = pgpu.param "BLOCK_P" : index
    %G = pgpu.ceil_div %N, %bp : index
    %all = pgpu.binary add %c1, %G : index
    pgpu.program_space (%all) {
    ^bb0(%pid: index):
      %first = pgpu.cmp lt %pid, %c1 : index
      pgpu.if %first {
        pgpu.execution_group %pid extents() segment 0 roles [] {
          %bt = pgpu.param "BLOCK" : index
          %id = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [BLOCK]>
          // expected-remark @below {{pgpu-fold-in-walks: not folded in the walk beside it: the fold does not start at 0}}
          %acc = pgpu.region_fold %c1 to %N step %bt identity(%id : !pgpu.fragment<f32, [BLOCK]>) operands(%p : !pgpu.view<f32, [N], in>) -> (!pgpu.fragment<f32, [BLOCK]>) summarize {
          ^bb0(%b: index, %e: index, %v: !pgpu.view<f32, [N], in>):
            %zz = arith.constant 0.0 : f32
            %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
            %ends = pgpu.splat %e : index -> !pgpu.fragment<index, [BLOCK]>
            %ok = pgpu.cmp lt %lanes, %ends : !pgpu.fragment<index, [BLOCK]>
            %x = pgpu.load %v[%lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %zz : f32 : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
            pgpu.yield %x : !pgpu.fragment<f32, [BLOCK]>
          } combine {
          ^bb0(%a: !pgpu.fragment<f32, [BLOCK]>, %c: !pgpu.fragment<f32, [BLOCK]>):
            %s = pgpu.binary add %a, %c : !pgpu.fragment<f32, [BLOCK]>
            pgpu.yield %s : !pgpu.fragment<f32, [BLOCK]>
          }
          %sum = pgpu.reduce %acc axes [0] identity(%z : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
          ^bb0(%a: f32, %c: f32):
            %s = pgpu.binary add %a, %c : f32
            pgpu.yield %s : f32
          }
          pgpu.store %sum, %l[%c0] valid %t : i1 : f32, !pgpu.view<f32, [1], out>[index]
          pgpu.yield
        }
        pgpu.yield
      } else {
        %rest = pgpu.binary sub %pid, %c1 : index
        pgpu.execution_group %rest extents(%G) segment 1 roles ["n"] {
        ^bb0(%n: index):
          %lo = pgpu.binary mul %n, %bp : index
          %lo2 = pgpu.binary add %lo, %bp : index
          %hi = pgpu.binary min %lo2, %N : index
          %bt = pgpu.param "BLOCK" : index
          pgpu.for %lo to %hi step %bt {
          ^bb0(%b: index):
            %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
            %ends = pgpu.splat %hi : index -> !pgpu.fragment<index, [BLOCK]>
            %ok = pgpu.cmp lt %lanes, %ends : !pgpu.fragment<index, [BLOCK]>
            %x = pgpu.load %p[%lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %z : f32 : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
            pgpu.store %x, %g[%lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> : !pgpu.fragment<f32, [BLOCK]>, !pgpu.view<f32, [N], out>[!pgpu.fragment<index, [BLOCK]>]
            pgpu.yield
          }
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

// COM: Must not fire: the walk writes p in place, which the fold reads (its sum would see the new values).
// CHECK-LABEL: pgpu.kernel @in_place
// CHECK: pgpu.region_fold
// CHECK-NOT: WALK_PARTIALS
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @in_place(%p: !pgpu.view<f32, [N], inout>, %l: !pgpu.view<f32, [1], out>, %g: !pgpu.view<f32, [N], out>) attributes {params = [#pgpu.param<"BLOCK_P", [256, 2048], 2048>, #pgpu.param<"BLOCK", [64, 512], 512>]} {
    %t = arith.constant true
    %z = arith.constant 0.0 : f32
    %two = arith.constant 2.0 : f32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %N = pgpu.extent %p[0] : !pgpu.view<f32, [N], inout>
    %bp = pgpu.param "BLOCK_P" : index
    %G = pgpu.ceil_div %N, %bp : index
    %all = pgpu.binary add %c1, %G : index
    pgpu.program_space (%all) {
    ^bb0(%pid: index):
      %first = pgpu.cmp lt %pid, %c1 : index
      pgpu.if %first {
        pgpu.execution_group %pid extents() segment 0 roles [] {
          %bt = pgpu.param "BLOCK" : index
          %id = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [BLOCK]>
          // expected-remark @below {{pgpu-fold-in-walks: not folded in the walk beside it: one segment writes a view the other accesses}}
          %acc = pgpu.region_fold %c0 to %N step %bt identity(%id : !pgpu.fragment<f32, [BLOCK]>) operands(%p : !pgpu.view<f32, [N], inout>) -> (!pgpu.fragment<f32, [BLOCK]>) summarize {
          ^bb0(%b: index, %e: index, %v: !pgpu.view<f32, [N], inout>):
            %zz = arith.constant 0.0 : f32
            %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
            %ends = pgpu.splat %e : index -> !pgpu.fragment<index, [BLOCK]>
            %ok = pgpu.cmp lt %lanes, %ends : !pgpu.fragment<index, [BLOCK]>
            %x = pgpu.load %v[%lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %zz : f32 : !pgpu.view<f32, [N], inout>[!pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
            pgpu.yield %x : !pgpu.fragment<f32, [BLOCK]>
          } combine {
          ^bb0(%a: !pgpu.fragment<f32, [BLOCK]>, %c: !pgpu.fragment<f32, [BLOCK]>):
            %s = pgpu.binary add %a, %c : !pgpu.fragment<f32, [BLOCK]>
            pgpu.yield %s : !pgpu.fragment<f32, [BLOCK]>
          }
          %sum = pgpu.reduce %acc axes [0] identity(%z : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
          ^bb0(%a: f32, %c: f32):
            %s = pgpu.binary add %a, %c : f32
            pgpu.yield %s : f32
          }
          pgpu.store %sum, %l[%c0] valid %t : i1 : f32, !pgpu.view<f32, [1], out>[index]
          pgpu.yield
        }
        pgpu.yield
      } else {
        %rest = pgpu.binary sub %pid, %c1 : index
        pgpu.execution_group %rest extents(%G) segment 1 roles ["n"] {
        ^bb0(%n: index):
          %lo = pgpu.binary mul %n, %bp : index
          %lo2 = pgpu.binary add %lo, %bp : index
          %hi = pgpu.binary min %lo2, %N : index
          %bt = pgpu.param "BLOCK" : index
          pgpu.for %lo to %hi step %bt {
          ^bb0(%b: index):
            %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
            %ends = pgpu.splat %hi : index -> !pgpu.fragment<index, [BLOCK]>
            %ok = pgpu.cmp lt %lanes, %ends : !pgpu.fragment<index, [BLOCK]>
            %x = pgpu.load %p[%lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %z : f32 : !pgpu.view<f32, [N], inout>[!pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
            %twos = pgpu.splat %two : f32 -> !pgpu.fragment<f32, [BLOCK]>
            %y = pgpu.binary mul %twos, %x : !pgpu.fragment<f32, [BLOCK]>
            pgpu.store %y, %p[%lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> : !pgpu.fragment<f32, [BLOCK]>, !pgpu.view<f32, [N], inout>[!pgpu.fragment<index, [BLOCK]>]
            pgpu.yield
          }
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

// COM: Must not fire: lane maxima finished by a sum (each program's sum of its maxima would not regroup).
// CHECK-LABEL: pgpu.kernel @max_then_sum
// CHECK: pgpu.region_fold
// CHECK-NOT: WALK_PARTIALS
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @max_then_sum(%p: !pgpu.view<f32, [N], in>, %l: !pgpu.view<f32, [1], out>, %g: !pgpu.view<f32, [N], out>) attributes {params = [#pgpu.param<"BLOCK_P", [256, 2048], 2048>, #pgpu.param<"BLOCK", [64, 512], 512>]} {
    %t = arith.constant true
    %z = arith.constant 0.0 : f32
    %two = arith.constant 2.0 : f32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %N = pgpu.extent %p[0] : !pgpu.view<f32, [N], in>
    %bp = pgpu.param "BLOCK_P" : index
    %G = pgpu.ceil_div %N, %bp : index
    %all = pgpu.binary add %c1, %G : index
    pgpu.program_space (%all) {
    ^bb0(%pid: index):
      %first = pgpu.cmp lt %pid, %c1 : index
      pgpu.if %first {
        pgpu.execution_group %pid extents() segment 0 roles [] {
          %bt = pgpu.param "BLOCK" : index
          %id = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [BLOCK]>
          // expected-remark @below {{pgpu-fold-in-walks: not folded in the walk beside it: a summary component does not combine lane-wise by one associative, commutative binary finished by its own reduction}}
          %acc = pgpu.region_fold %c0 to %N step %bt identity(%id : !pgpu.fragment<f32, [BLOCK]>) operands(%p : !pgpu.view<f32, [N], in>) -> (!pgpu.fragment<f32, [BLOCK]>) summarize {
          ^bb0(%b: index, %e: index, %v: !pgpu.view<f32, [N], in>):
            %zz = arith.constant 0.0 : f32
            %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
            %ends = pgpu.splat %e : index -> !pgpu.fragment<index, [BLOCK]>
            %ok = pgpu.cmp lt %lanes, %ends : !pgpu.fragment<index, [BLOCK]>
            %x = pgpu.load %v[%lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %zz : f32 : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
            pgpu.yield %x : !pgpu.fragment<f32, [BLOCK]>
          } combine {
          ^bb0(%a: !pgpu.fragment<f32, [BLOCK]>, %c: !pgpu.fragment<f32, [BLOCK]>):
            %s = pgpu.binary max %a, %c : !pgpu.fragment<f32, [BLOCK]>
            pgpu.yield %s : !pgpu.fragment<f32, [BLOCK]>
          }
          %sum = pgpu.reduce %acc axes [0] identity(%z : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
          ^bb0(%a: f32, %c: f32):
            %s = pgpu.binary add %a, %c : f32
            pgpu.yield %s : f32
          }
          pgpu.store %sum, %l[%c0] valid %t : i1 : f32, !pgpu.view<f32, [1], out>[index]
          pgpu.yield
        }
        pgpu.yield
      } else {
        %rest = pgpu.binary sub %pid, %c1 : index
        pgpu.execution_group %rest extents(%G) segment 1 roles ["n"] {
        ^bb0(%n: index):
          %lo = pgpu.binary mul %n, %bp : index
          %lo2 = pgpu.binary add %lo, %bp : index
          %hi = pgpu.binary min %lo2, %N : index
          %bt = pgpu.param "BLOCK" : index
          pgpu.for %lo to %hi step %bt {
          ^bb0(%b: index):
            %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
            %ends = pgpu.splat %hi : index -> !pgpu.fragment<index, [BLOCK]>
            %ok = pgpu.cmp lt %lanes, %ends : !pgpu.fragment<index, [BLOCK]>
            %x = pgpu.load %p[%lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %z : f32 : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
            %twos = pgpu.splat %two : f32 -> !pgpu.fragment<f32, [BLOCK]>
            %y = pgpu.binary mul %twos, %x : !pgpu.fragment<f32, [BLOCK]>
            pgpu.store %y, %g[%lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> : !pgpu.fragment<f32, [BLOCK]>, !pgpu.view<f32, [N], out>[!pgpu.fragment<index, [BLOCK]>]
            pgpu.yield
          }
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

// COM: Must not fire: summarize reads its segment's length (e - b), which the walk's bound would change.
// CHECK-LABEL: pgpu.kernel @counted
// CHECK: pgpu.region_fold
// CHECK-NOT: WALK_PARTIALS
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @counted(%p: !pgpu.view<f32, [N], in>, %l: !pgpu.view<f32, [1], out>, %g: !pgpu.view<f32, [N], out>) attributes {params = [#pgpu.param<"BLOCK_P", [256, 2048], 2048>, #pgpu.param<"BLOCK", [64, 512], 512>]} {
    %t = arith.constant true
    %z = arith.constant 0.0 : f32
    %two = arith.constant 2.0 : f32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %N = pgpu.extent %p[0] : !pgpu.view<f32, [N], in>
    %bp = pgpu.param "BLOCK_P" : index
    %G = pgpu.ceil_div %N, %bp : index
    %all = pgpu.binary add %c1, %G : index
    pgpu.program_space (%all) {
    ^bb0(%pid: index):
      %first = pgpu.cmp lt %pid, %c1 : index
      pgpu.if %first {
        pgpu.execution_group %pid extents() segment 0 roles [] {
          %bt = pgpu.param "BLOCK" : index
          %id = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [BLOCK]>
          // expected-remark @below {{pgpu-fold-in-walks: not folded in the walk beside it: the fold's summarize uses its segment end beyond bounding its lanes}}
          %acc = pgpu.region_fold %c0 to %N step %bt identity(%id : !pgpu.fragment<f32, [BLOCK]>) operands(%p : !pgpu.view<f32, [N], in>) -> (!pgpu.fragment<f32, [BLOCK]>) summarize {
          ^bb0(%b: index, %e: index, %v: !pgpu.view<f32, [N], in>):
            %zz = arith.constant 0.0 : f32
            %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
            %ends = pgpu.splat %e : index -> !pgpu.fragment<index, [BLOCK]>
            %ok = pgpu.cmp lt %lanes, %ends : !pgpu.fragment<index, [BLOCK]>
            %x = pgpu.load %v[%lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %zz : f32 : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
            %len = pgpu.binary sub %e, %b : index
            %lf = pgpu.cast %len : index to f32
            %lfs = pgpu.splat %lf : f32 -> !pgpu.fragment<f32, [BLOCK]>
            %xl = pgpu.binary mul %x, %lfs : !pgpu.fragment<f32, [BLOCK]>
            pgpu.yield %xl : !pgpu.fragment<f32, [BLOCK]>
          } combine {
          ^bb0(%a: !pgpu.fragment<f32, [BLOCK]>, %c: !pgpu.fragment<f32, [BLOCK]>):
            %s = pgpu.binary add %a, %c : !pgpu.fragment<f32, [BLOCK]>
            pgpu.yield %s : !pgpu.fragment<f32, [BLOCK]>
          }
          %sum = pgpu.reduce %acc axes [0] identity(%z : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
          ^bb0(%a: f32, %c: f32):
            %s = pgpu.binary add %a, %c : f32
            pgpu.yield %s : f32
          }
          pgpu.store %sum, %l[%c0] valid %t : i1 : f32, !pgpu.view<f32, [1], out>[index]
          pgpu.yield
        }
        pgpu.yield
      } else {
        %rest = pgpu.binary sub %pid, %c1 : index
        pgpu.execution_group %rest extents(%G) segment 1 roles ["n"] {
        ^bb0(%n: index):
          %lo = pgpu.binary mul %n, %bp : index
          %lo2 = pgpu.binary add %lo, %bp : index
          %hi = pgpu.binary min %lo2, %N : index
          %bt = pgpu.param "BLOCK" : index
          pgpu.for %lo to %hi step %bt {
          ^bb0(%b: index):
            %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
            %ends = pgpu.splat %hi : index -> !pgpu.fragment<index, [BLOCK]>
            %ok = pgpu.cmp lt %lanes, %ends : !pgpu.fragment<index, [BLOCK]>
            %x = pgpu.load %p[%lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %z : f32 : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
            %twos = pgpu.splat %two : f32 -> !pgpu.fragment<f32, [BLOCK]>
            %y = pgpu.binary mul %twos, %x : !pgpu.fragment<f32, [BLOCK]>
            pgpu.store %y, %g[%lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> : !pgpu.fragment<f32, [BLOCK]>, !pgpu.view<f32, [N], out>[!pgpu.fragment<index, [BLOCK]>]
            pgpu.yield
          }
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

// COM: Must not fire: the walk's chunks start one past p * BP (they do not cut [0, N)).
// CHECK-LABEL: pgpu.kernel @shifted
// CHECK: pgpu.region_fold
// CHECK-NOT: WALK_PARTIALS
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @shifted(%p: !pgpu.view<f32, [N], in>, %l: !pgpu.view<f32, [1], out>, %g: !pgpu.view<f32, [N], out>) attributes {params = [#pgpu.param<"BLOCK_P", [256, 2048], 2048>, #pgpu.param<"BLOCK", [64, 512], 512>]} {
    %t = arith.constant true
    %z = arith.constant 0.0 : f32
    %two = arith.constant 2.0 : f32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %N = pgpu.extent %p[0] : !pgpu.view<f32, [N], in>
    %bp = pgpu.param "BLOCK_P" : index
    %G = pgpu.ceil_div %N, %bp : index
    %all = pgpu.binary add %c1, %G : index
    pgpu.program_space (%all) {
    ^bb0(%pid: index):
      %first = pgpu.cmp lt %pid, %c1 : index
      pgpu.if %first {
        pgpu.execution_group %pid extents() segment 0 roles [] {
          %bt = pgpu.param "BLOCK" : index
          %id = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [BLOCK]>
          // expected-remark @below {{pgpu-fold-in-walks: not folded in the walk beside it: the walk does not start at p * BP}}
          %acc = pgpu.region_fold %c0 to %N step %bt identity(%id : !pgpu.fragment<f32, [BLOCK]>) operands(%p : !pgpu.view<f32, [N], in>) -> (!pgpu.fragment<f32, [BLOCK]>) summarize {
          ^bb0(%b: index, %e: index, %v: !pgpu.view<f32, [N], in>):
            %zz = arith.constant 0.0 : f32
            %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
            %ends = pgpu.splat %e : index -> !pgpu.fragment<index, [BLOCK]>
            %ok = pgpu.cmp lt %lanes, %ends : !pgpu.fragment<index, [BLOCK]>
            %x = pgpu.load %v[%lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %zz : f32 : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
            pgpu.yield %x : !pgpu.fragment<f32, [BLOCK]>
          } combine {
          ^bb0(%a: !pgpu.fragment<f32, [BLOCK]>, %c: !pgpu.fragment<f32, [BLOCK]>):
            %s = pgpu.binary add %a, %c : !pgpu.fragment<f32, [BLOCK]>
            pgpu.yield %s : !pgpu.fragment<f32, [BLOCK]>
          }
          %sum = pgpu.reduce %acc axes [0] identity(%z : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
          ^bb0(%a: f32, %c: f32):
            %s = pgpu.binary add %a, %c : f32
            pgpu.yield %s : f32
          }
          pgpu.store %sum, %l[%c0] valid %t : i1 : f32, !pgpu.view<f32, [1], out>[index]
          pgpu.yield
        }
        pgpu.yield
      } else {
        %rest = pgpu.binary sub %pid, %c1 : index
        pgpu.execution_group %rest extents(%G) segment 1 roles ["n"] {
        ^bb0(%n: index):
          %lo0 = pgpu.binary mul %n, %bp : index
          %lo = pgpu.binary add %lo0, %c1 : index
          %lo2 = pgpu.binary add %lo, %bp : index
          %hi = pgpu.binary min %lo2, %N : index
          %bt = pgpu.param "BLOCK" : index
          pgpu.for %lo to %hi step %bt {
          ^bb0(%b: index):
            %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
            %ends = pgpu.splat %hi : index -> !pgpu.fragment<index, [BLOCK]>
            %ok = pgpu.cmp lt %lanes, %ends : !pgpu.fragment<index, [BLOCK]>
            %x = pgpu.load %p[%lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %z : f32 : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
            %twos = pgpu.splat %two : f32 -> !pgpu.fragment<f32, [BLOCK]>
            %y = pgpu.binary mul %twos, %x : !pgpu.fragment<f32, [BLOCK]>
            pgpu.store %y, %g[%lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> : !pgpu.fragment<f32, [BLOCK]>, !pgpu.view<f32, [N], out>[!pgpu.fragment<index, [BLOCK]>]
            pgpu.yield
          }
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

