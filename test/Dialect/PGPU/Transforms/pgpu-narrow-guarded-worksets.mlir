// RUN: tessel-opt %s -split-input-file -pgpu-narrow-guarded-worksets -verify-diagnostics | FileCheck %s

// COM: The ragged grouped GEMM's zero tail: a workset over M x N whose members store only in rows
// COM: [end, M), end = max(OFFS) read in every member. The bound is computed once before the loop
// COM: (OFFS is an `in` view: the members' copies become the hoisted value) and the loop walks
// COM: [clamp(end) * N, clamp(M) * N) only; the guard stays.
// CHECK-LABEL: pgpu.kernel @tail
// CHECK: pgpu.last_program
// CHECK-NEXT: %[[END:.*]] = pgpu.range_reduce
// CHECK: %[[LO:.*]] = pgpu.binary max %[[END]], %{{.*}} : index
// CHECK-NEXT: %[[FIRST:.*]] = pgpu.binary min %[[LO]], %[[M:.*]] : index
// CHECK-NEXT: %[[HI:.*]] = pgpu.binary min %{{.*}}, %[[M]] : index
// CHECK-NEXT: %[[LAST:.*]] = pgpu.binary max %[[HI]], %[[FIRST]] : index
// CHECK-NEXT: %[[A:.*]] = pgpu.binary mul %[[FIRST]], %[[N:.*]] : index
// CHECK-NEXT: %[[B:.*]] = pgpu.binary mul %[[LAST]], %[[N]] : index
// CHECK-NEXT: pgpu.foreach %[[A]] to %[[B]] {
// CHECK-NEXT: ^bb0(%[[IV:.*]]: index):
// CHECK-NEXT: %[[D:.*]]:2 = pgpu.delinearize %[[IV]] by(%[[M]], %[[N]])
// CHECK-NOT: pgpu.range_reduce
// CHECK: pgpu.cmp ge %[[D]]#0, %[[END]] : index
// CHECK: pgpu.if
// CHECK: pgpu.store
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @tail(%offs: !pgpu.view<index, [G], in>, %c: !pgpu.view<f32, [M, N], out>, %t: !pgpu.buffer<i32, [1], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"}) {
    %true = arith.constant true
    %z = arith.constant 0.0 : f32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %M = pgpu.extent %c[0] : !pgpu.view<f32, [M, N], out>
    %N = pgpu.extent %c[1] : !pgpu.view<f32, [M, N], out>
    %G = pgpu.extent %offs[0] : !pgpu.view<index, [G], in>
    %MN = pgpu.binary mul %M, %N : index
    pgpu.program_space(%c1) {
    ^bb0(%pid: index):
      pgpu.last_program %t : !pgpu.buffer<i32, [1], workspace> {
        // expected-remark @+1 {{pgpu-narrow-guarded-worksets: the workset walks only the members its guard admits}}
        pgpu.foreach %c0 to %MN {
        ^bb0(%i: index):
          %d:2 = pgpu.delinearize %i by(%M, %N) : index, index
          %end = pgpu.range_reduce %c0 to %G identity(%c0 : index) -> (index) element {
          ^bb0(%g: index):
            %o = pgpu.load %offs[%g] valid %true : i1 fill %c0 : index : !pgpu.view<index, [G], in>[index] -> index
            pgpu.yield %o : index
          } combine {
          ^bb0(%u: index, %v: index):
            %w = pgpu.binary max %u, %v : index
            pgpu.yield %w : index
          }
          %ge = pgpu.cmp ge %d#0, %end : index
          %lt = pgpu.cmp lt %d#0, %M : index
          %in = pgpu.binary and %ge, %lt : i1
          pgpu.if %in {
            pgpu.store %z, %c[%d#0, %d#1] valid %true : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
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

// COM: Must not fire: the guard's bound depends on the member (a triangle), and (second workset)
// COM: a store outside the guard would be lost for the skipped members.
// CHECK-LABEL: pgpu.kernel @variant
// CHECK: pgpu.foreach %c0 to %[[MN:.*]] {
// CHECK: pgpu.foreach %c0 to %[[MN]] {
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @variant(%c: !pgpu.view<f32, [M, N], out>) {
    %true = arith.constant true
    %z = arith.constant 0.0 : f32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %M = pgpu.extent %c[0] : !pgpu.view<f32, [M, N], out>
    %N = pgpu.extent %c[1] : !pgpu.view<f32, [M, N], out>
    %MN = pgpu.binary mul %M, %N : index
    pgpu.program_space(%c1) {
    ^bb0(%pid: index):
      // expected-remark @+1 {{pgpu-narrow-guarded-worksets: not narrowed: the guard does not bound the leading coordinate from both sides}}
      pgpu.foreach %c0 to %MN {
      ^bb0(%i: index):
        %d:2 = pgpu.delinearize %i by(%M, %N) : index, index
        %ge = pgpu.cmp ge %d#0, %d#1 : index
        %lt = pgpu.cmp lt %d#0, %M : index
        %in = pgpu.binary and %ge, %lt : i1
        pgpu.if %in {
          pgpu.store %z, %c[%d#0, %d#1] valid %true : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
          pgpu.yield
        }
        pgpu.yield
      }
      // expected-remark @+1 {{pgpu-narrow-guarded-worksets: not narrowed: a member has effects outside its guard}}
      pgpu.foreach %c0 to %MN {
      ^bb0(%i: index):
        %d:2 = pgpu.delinearize %i by(%M, %N) : index, index
        pgpu.store %z, %c[%d#0, %c0] valid %true : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
        %ge = pgpu.cmp ge %d#0, %c1 : index
        %lt = pgpu.cmp lt %d#0, %M : index
        %in = pgpu.binary and %ge, %lt : i1
        pgpu.if %in {
          pgpu.store %z, %c[%d#0, %d#1] valid %true : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}
