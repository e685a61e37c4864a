// RUN: tessel-opt %s -split-input-file -pgpu-refine-mapping | FileCheck %s --check-prefix=REFINE
// RUN: tessel-opt %s -split-input-file -pgpu-refine-mapping -pgpu-form-blocking | FileCheck %s --check-prefix=BLOCK
// RUN: sed 's/#pgpu.target<arch = "sm_90">/&, kir.compile_options = #kir.compile_options<optimization_remarks = true>/' %s \
// RUN:   | tessel-opt -split-input-file -pgpu-refine-mapping 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK

// COM: An ordered walk per member whose step holds an author's `if` on the member's own data (a merge
// COM: of partial counts that skips empty chunks, corpus 357): per-element work, so each program owns
// COM: BLOCK_P members (the recurrence's BLOCK_P domain). form-blocking walks the loop once for the
// COM: block, its carries [BLOCK_P] fragments; the if is converted: the branch's read is masked by
// COM: the lanes whose condition holds, its result a select. Before: one program a row, a scalar walk.
// REFINE-LABEL: pgpu.kernel @skip_empty
// REFINE-SAME: #pgpu.param<"BLOCK_P", [16, 32, 64, 128, 256, 512, 1024], 64>
// REFINE: pgpu.foreach
// REFINE: pgpu.for
// REFINE: pgpu.if
// BLOCK-LABEL: pgpu.kernel @skip_empty
// BLOCK: %[[LANES:.*]] = pgpu.iota %{{.*}} : !pgpu.fragment<index, [BLOCK_P]>
// BLOCK: %[[OK:.*]] = pgpu.cmp lt %[[LANES]], %{{.*}} : !pgpu.fragment<index, [BLOCK_P]>
// BLOCK: pgpu.for %{{.*}} iter_args(%{{.*}}, %{{.*}} : !pgpu.fragment<f32, [BLOCK_P]>, !pgpu.fragment<f32, [BLOCK_P]>)
// BLOCK-NEXT: ^bb0(%[[J:[^:]*]]: index, %[[N:[^:]*]]: !pgpu.fragment<f32, [BLOCK_P]>, %[[S:[^:]*]]: !pgpu.fragment<f32, [BLOCK_P]>):
// BLOCK: %[[NB:.*]] = pgpu.load %count[%[[LANES]], %[[J]]] {{.*}} -> !pgpu.fragment<f32, [BLOCK_P]>
// BLOCK: %[[POS:.*]] = pgpu.cmp gt %[[NB]], %{{.*}} : !pgpu.fragment<f32, [BLOCK_P]>
// BLOCK: %[[TAKE:.*]] = pgpu.binary and %[[OK]], %[[POS]] : !pgpu.fragment<i1, [BLOCK_P]>
// BLOCK: %[[V:.*]] = pgpu.binary and %{{.*}}, %[[TAKE]] : !pgpu.fragment<i1, [BLOCK_P]>
// BLOCK: pgpu.load %x[%[[LANES]], %[[J]]] valid %[[V]] : !pgpu.fragment<i1, [BLOCK_P]>
// BLOCK: %[[N2:.*]] = pgpu.select %[[POS]], %{{.*}}, %[[N]] : !pgpu.fragment<i1, [BLOCK_P]>, !pgpu.fragment<f32, [BLOCK_P]>
// BLOCK: %[[S2:.*]] = pgpu.select %[[POS]], %{{.*}}, %[[S]] : !pgpu.fragment<i1, [BLOCK_P]>, !pgpu.fragment<f32, [BLOCK_P]>
// BLOCK: pgpu.yield %[[N2]], %[[S2]]
// BLOCK-NOT: pgpu.if
// BLOCK: %[[SV:.*]] = pgpu.binary and %{{.*}}, %[[OK]] : !pgpu.fragment<i1, [BLOCK_P]>
// BLOCK: pgpu.store %{{.*}}, %out[%[[LANES]]] valid %[[SV]]
// REMARK: remark: pgpu-refine-mapping: each program owns BLOCK_P consecutive members of the workset (its ifs per member run both branches a block, each masked by its members' condition)
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @skip_empty(%count: !pgpu.view<f32, [R, P], in>, %x: !pgpu.view<f32, [R, P], in>, %out: !pgpu.view<f32, [R], out>) {
    %R = pgpu.extent %count[0] : !pgpu.view<f32, [R, P], in>
    %P = pgpu.extent %count[1] : !pgpu.view<f32, [R, P], in>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %z = arith.constant 0.0 : f32
    %t = arith.constant true
    pgpu.program_space (%R) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%R) segment 0 roles ["r"] {
      ^bb0(%r: index):
        %res:2 = pgpu.for %c0 to %P step %c1 iter_args(%z, %z : f32, f32) -> f32, f32 {
        ^bb0(%j: index, %n: f32, %s: f32):
          %nb = pgpu.load %count[%r, %j] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [R, P], in>[index, index] -> f32
          %pos = pgpu.cmp gt %nb, %z : f32
          %nx:2 = pgpu.if %pos -> f32, f32 {
            %tot = pgpu.binary add %n, %nb : f32
            %v = pgpu.load %x[%r, %j] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [R, P], in>[index, index] -> f32
            %w = pgpu.binary div %v, %tot : f32
            %s2 = pgpu.binary add %s, %w : f32
            pgpu.yield %tot, %s2 : f32, f32
          } else {
            pgpu.yield %n, %s : f32, f32
          }
          pgpu.yield %nx#0, %nx#1 : f32, f32
        }
        %q = pgpu.binary div %res#1, %res#0 : f32
        pgpu.store %q, %out[%r] valid %t : i1 : f32, !pgpu.view<f32, [R], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: A branch that reads a value every member shares (w[k], k loaded from the member's row): under
// COM: the if-conversion that read is made only for the lanes taking the branch (k may be out of
// COM: range for the others), so it is spread over the lanes and masked, not read once a block.
// BLOCK-LABEL: pgpu.kernel @shared_read_in_branch
// BLOCK: %[[K:.*]] = pgpu.load %idx[%{{.*}}] {{.*}} -> !pgpu.fragment<index, [BLOCK_P]>
// BLOCK: %[[IN:.*]] = pgpu.cmp lt %[[K]], %{{.*}} : !pgpu.fragment<index, [BLOCK_P]>
// BLOCK: %[[TAKE:.*]] = pgpu.binary and %{{.*}}, %[[IN]] : !pgpu.fragment<i1, [BLOCK_P]>
// BLOCK: %[[W:.*]] = pgpu.splat %{{.*}} : index -> !pgpu.fragment<index, [BLOCK_P]>
// BLOCK: %[[V:.*]] = pgpu.binary and %{{.*}}, %[[TAKE]] : !pgpu.fragment<i1, [BLOCK_P]>
// BLOCK: pgpu.load %w[%[[W]]] valid %[[V]]
// BLOCK: pgpu.select %[[IN]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @shared_read_in_branch(%idx: !pgpu.view<index, [N], in>, %w: !pgpu.view<f32, [K], in>, %out: !pgpu.view<f32, [N], out>) {
    %N = pgpu.extent %idx[0] : !pgpu.view<index, [N], in>
    %K = pgpu.extent %w[0] : !pgpu.view<f32, [K], in>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %z = arith.constant 0.0 : f32
    %i0 = arith.constant 0 : index
    %t = arith.constant true
    pgpu.program_space (%N) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%N) segment 0 roles ["n"] {
      ^bb0(%n: index):
        %acc = pgpu.for %c0 to %c3 step %c1 iter_args(%z : f32) -> f32 {
        ^bb0(%j: index, %a: f32):
          %k = pgpu.load %idx[%n] valid %t : i1 fill %i0 : index : !pgpu.view<index, [N], in>[index] -> index
          %in = pgpu.cmp lt %k, %K : index
          %v = pgpu.if %in -> f32 {
            %c = pgpu.load %w[%j] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [K], in>[index] -> f32
            %a2 = pgpu.binary add %a, %c : f32
            pgpu.yield %a2 : f32
          } else {
            pgpu.yield %a : f32
          }
          pgpu.yield %v : f32
        }
        pgpu.store %acc, %out[%n] valid %t : i1 : f32, !pgpu.view<f32, [N], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: a branch holding a reduction (not per-element code: a loop over the member's
// COM: row with its own combine) keeps one instance per program, as before.
// REFINE-LABEL: pgpu.kernel @reduction_in_branch
// REFINE-NOT: BLOCK_P
// REFINE-NOT: pgpu.foreach
// REFINE: pgpu.if
// REMARK: remark: pgpu-refine-mapping: one instance per program kept: the group body has loops, control or fragments
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @reduction_in_branch(%x: !pgpu.view<f32, [M, N], in>, %flag: !pgpu.view<f32, [M], in>, %y: !pgpu.view<f32, [M], out>) {
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space (%M) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%M) segment 0 roles ["m"] {
      ^bb0(%m: index):
        %c0 = arith.constant 0 : index
        %z = arith.constant 0.0 : f32
        %t = arith.constant true
        %f = pgpu.load %flag[%m] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M], in>[index] -> f32
        %on = pgpu.cmp gt %f, %z : f32
        %r = pgpu.if %on -> f32 {
          %s = pgpu.range_reduce %c0 to %N identity(%z : f32) -> (f32) element {
          ^bb0(%i: index):
            %v = pgpu.load %x[%m, %i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
            pgpu.yield %v : f32
          } combine {
          ^bb0(%a: f32, %b: f32):
            %q = pgpu.binary add %a, %b : f32
            pgpu.yield %q : f32
          }
          pgpu.yield %s : f32
        } else {
          pgpu.yield %z : f32
        }
        pgpu.store %r, %y[%m] valid %t : i1 : f32, !pgpu.view<f32, [M], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire (form-blocking's if-conversion): a reduction whose element's if holds another
// COM: reduction (control the lanes cannot run together) is not blocked; the inner reduction is.
// BLOCK-LABEL: pgpu.kernel @reduction_under_if
// BLOCK: pgpu.range_reduce %{{.*}} to %{{.*}} identity(%{{.*}} : f32) -> (f32) element {
// BLOCK: pgpu.if
// BLOCK: pgpu.iota
// BLOCK: pgpu.load %x[%{{.*}}, %{{.*}}] {{.*}} -> !pgpu.fragment<f32, [BLOCK]>
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @reduction_under_if(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [1], out>) {
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      %t = arith.constant true
      %s = pgpu.range_reduce %c0 to %M identity(%z : f32) -> (f32) element {
      ^bb0(%m: index):
        %f = pgpu.load %x[%m, %c0] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
        %on = pgpu.cmp gt %f, %z : f32
        %r = pgpu.if %on -> f32 {
          %q = pgpu.range_reduce %c0 to %N identity(%z : f32) -> (f32) element {
          ^bb0(%i: index):
            %v = pgpu.load %x[%m, %i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
            pgpu.yield %v : f32
          } combine {
          ^bb0(%a: f32, %b: f32):
            %c = pgpu.binary add %a, %b : f32
            pgpu.yield %c : f32
          }
          pgpu.yield %q : f32
        } else {
          pgpu.yield %z : f32
        }
        pgpu.yield %r : f32
      } combine {
      ^bb0(%a: f32, %b: f32):
        %c = pgpu.binary add %a, %b : f32
        pgpu.yield %c : f32
      }
      pgpu.store %s, %y[%c0] valid %t : i1 : f32, !pgpu.view<f32, [1], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}
