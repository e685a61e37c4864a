// RUN: tessel-opt %s -split-input-file -pgpu-split-row-reductions -verify-diagnostics | FileCheck %s

// COM: Two kernel-level sums over the rows (a count of kept rows; the kept rows' sums, each a row
// COM: reduction), then their quotient stored (a mean over kept rows). Before: one program walks
// COM: every row, once per sum. After: FOLD_SPLITS = max(min(FOLD_SPLIT, rows), 1) programs, each
// COM: reducing its slice of rows [begin, end) for both sums and storing its partials at [member] of
// COM: workspace [FOLD_SPLITS]; the last arrival merges each sum's partials with its combine (in
// COM: member order: no atomics) and divides after the merge.
// CHECK-LABEL: pgpu.kernel @mean_kept
// CHECK-SAME: %[[PN:[^:]*]]: !pgpu.buffer<f32, [FOLD_SPLITS], workspace> {pgpu.private = "workspace"}
// CHECK-SAME: %[[PS:[^:]*]]: !pgpu.buffer<f32, [FOLD_SPLITS], workspace> {pgpu.private = "workspace"}
// CHECK-SAME: %[[TICKETS:[^:]*]]: !pgpu.buffer<i32, [1], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"}
// CHECK-SAME: #pgpu.param<"FOLD_SPLIT", [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192], 1>
// CHECK: %[[PARAM:.*]] = pgpu.param "FOLD_SPLIT" : index
// CHECK: %[[MIN:.*]] = pgpu.binary min %[[PARAM]], %{{.*}} : index
// CHECK: %[[SPLITS:.*]] = pgpu.binary max %[[MIN]], %{{.*}} : index
// CHECK: pgpu.workspace_extent "FOLD_SPLITS" = %[[SPLITS]]
// CHECK: pgpu.program_space(%[[SPLITS]])
// CHECK: pgpu.execution_group %{{.*}} extents(%[[SPLITS]]) segment 0 roles ["fold_split"] {
// CHECK-NEXT: ^bb0(%[[SEG:.*]]: index):
// CHECK: %[[CHUNK:.*]] = pgpu.ceil_div %{{.*}}, %[[SPLITS]] : index
// CHECK: %[[AT:.*]] = pgpu.binary mul %[[SEG]], %[[CHUNK]] : index
// CHECK: %[[BEGIN:.*]] = pgpu.binary min
// CHECK: %[[END:.*]] = pgpu.binary min
// CHECK: %[[N:.*]] = pgpu.range_reduce %[[BEGIN]] to %[[END]] identity
// CHECK: %[[S:.*]] = pgpu.range_reduce %[[BEGIN]] to %[[END]] identity
// CHECK: pgpu.range_reduce %{{.*}} to %{{.*}} identity
// CHECK: pgpu.buffer_store %[[N]], %[[PN]][%[[SEG]]]
// CHECK: pgpu.buffer_store %[[S]], %[[PS]][%[[SEG]]]
// CHECK: pgpu.last_program %[[TICKETS]][%{{.*}}] arrivals %[[SPLITS]] : !pgpu.buffer<i32, [1], workspace> {
// CHECK: %[[WN:.*]] = pgpu.range_reduce %{{.*}} to %[[SPLITS]] identity
// CHECK: pgpu.buffer_load %[[PN]][
// CHECK: pgpu.binary add
// CHECK: %[[WS:.*]] = pgpu.range_reduce %{{.*}} to %[[SPLITS]] identity
// CHECK: pgpu.buffer_load %[[PS]][
// CHECK: pgpu.binary add
// CHECK: %[[Q:.*]] = pgpu.binary div %[[WS]], %[[WN]] : f32
// CHECK: pgpu.store %[[Q]], %loss
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @mean_kept(%x: !pgpu.view<f32, [N, V], in>, %labels: !pgpu.view<i32, [N], in>, %loss: !pgpu.view<f32, [1], out>) {
    %c0_i32 = arith.constant 0 : i32
    %true = arith.constant true
    %one = arith.constant 1.000000e+00 : f32
    %zero = arith.constant 0.000000e+00 : f32
    %ignore = arith.constant -100 : i32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N, V], in>
    %V = pgpu.extent %x[1] : !pgpu.view<f32, [N, V], in>
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents() segment 0 roles [] {
        // expected-remark @below {{pgpu-split-row-reductions: the rows are cut into FOLD_SPLIT contiguous slices}}
        %n = pgpu.range_reduce %c0 to %N identity(%zero : f32) -> (f32) element {
        ^bb0(%i: index):
          %l = pgpu.load %labels[%i] valid %true : i1 fill %c0_i32 : i32 : !pgpu.view<i32, [N], in>[index] -> i32
          %k = pgpu.cmp ne %l, %ignore : i32
          %w = pgpu.select %k, %one, %zero : i1, f32
          pgpu.yield %w : f32
        } combine {
        ^bb0(%a: f32, %b: f32):
          %s = pgpu.binary add %a, %b : f32
          pgpu.yield %s : f32
        }
        // expected-remark @below {{pgpu-split-row-reductions: the rows are cut into FOLD_SPLIT contiguous slices}}
        %s = pgpu.range_reduce %c0 to %N identity(%zero : f32) -> (f32) element {
        ^bb0(%i: index):
          %l = pgpu.load %labels[%i] valid %true : i1 fill %c0_i32 : i32 : !pgpu.view<i32, [N], in>[index] -> i32
          %k = pgpu.cmp ne %l, %ignore : i32
          %r = pgpu.range_reduce %c0 to %V identity(%zero : f32) -> (f32) element {
          ^bb0(%j: index):
            %v = pgpu.load %x[%i, %j] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [N, V], in>[index, index] -> f32
            pgpu.yield %v : f32
          } combine {
          ^bb0(%a: f32, %b: f32):
            %t = pgpu.binary add %a, %b : f32
            pgpu.yield %t : f32
          }
          %w = pgpu.select %k, %r, %zero : i1, f32
          pgpu.yield %w : f32
        } combine {
        ^bb0(%a: f32, %b: f32):
          %t = pgpu.binary add %a, %b : f32
          pgpu.yield %t : f32
        }
        %q = pgpu.binary div %s, %n : f32
        pgpu.store %q, %loss[%c0] valid %true : i1 : f32, !pgpu.view<f32, [1], out>[index]
        pgpu.yield
      } {roles = [], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: a workset after the reduction reads its scalar (y[i] = x[i] / total over the
// COM: rows, a loop that writes): it would run whole in the last program; the kernel keeps its one
// COM: program (and its workset) as constructed.
// CHECK-LABEL: pgpu.kernel @scaled
// CHECK-NOT: FOLD_SPLIT
// CHECK: pgpu.program_space(%c1)
// CHECK: pgpu.execution_group %{{.*}} extents() segment 0 roles []
// CHECK-NOT: pgpu.last_program
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @scaled(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>) {
    %true = arith.constant true
    %zero = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents() segment 0 roles [] {
        %s = pgpu.range_reduce %c0 to %N identity(%zero : f32) -> (f32) element {
        ^bb0(%i: index):
          %v = pgpu.load %x[%i] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [N], in>[index] -> f32
          %sq = pgpu.binary mul %v, %v : f32
          pgpu.yield %sq : f32
        } combine {
        ^bb0(%a: f32, %b: f32):
          %t = pgpu.binary add %a, %b : f32
          pgpu.yield %t : f32
        }
        // expected-remark @below {{pgpu-split-row-reductions: not split: a loop or structured op after the reductions writes memory}}
        %m = pgpu.range_reduce %c0 to %N identity(%zero : f32) -> (f32) element {
        ^bb0(%i: index):
          %v = pgpu.load %x[%i] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [N], in>[index] -> f32
          pgpu.yield %v : f32
        } combine {
        ^bb0(%a: f32, %b: f32):
          %t = pgpu.binary add %a, %b : f32
          pgpu.yield %t : f32
        }
        %d = pgpu.binary add %s, %m : f32
        pgpu.for %c0 to %N step %c1 {
        ^bb0(%i: index):
          %v = pgpu.load %x[%i] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [N], in>[index] -> f32
          %o = pgpu.binary div %v, %d : f32
          pgpu.store %o, %y[%i] valid %true : i1 : f32, !pgpu.view<f32, [N], out>[index]
          pgpu.yield
        }
        pgpu.yield
      } {roles = [], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: one flat reduction (no loop in its element) is pgpu-split-folds' case (its
// COM: blocked fold's tiles are split there).
// CHECK-LABEL: pgpu.kernel @flat
// CHECK-NOT: FOLD_SPLIT
// CHECK: pgpu.program_space(%c1)
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @flat(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [1], out>) {
    %true = arith.constant true
    %zero = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents() segment 0 roles [] {
        // expected-remark @below {{pgpu-split-row-reductions: not split: one reduction without a nested loop}}
        %s = pgpu.range_reduce %c0 to %N identity(%zero : f32) -> (f32) element {
        ^bb0(%i: index):
          %v = pgpu.load %x[%i] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [N], in>[index] -> f32
          pgpu.yield %v : f32
        } combine {
        ^bb0(%a: f32, %b: f32):
          %t = pgpu.binary add %a, %b : f32
          pgpu.yield %t : f32
        }
        pgpu.store %s, %y[%c0] valid %true : i1 : f32, !pgpu.view<f32, [1], out>[index]
        pgpu.yield
      } {roles = [], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Two reductions whose elements are row reductions (a row's sum and its square's) become one
// COM: range_reduce with both components (each combine on its own), so CSE shares their row walks;
// COM: each component's partials still merge with its own combine in the last arrival.
// CHECK-LABEL: pgpu.kernel @two_rows
// CHECK: pgpu.execution_group %{{.*}} roles ["fold_split"]
// CHECK: %[[F:.*]]:2 = pgpu.range_reduce %{{.*}} to %{{.*}} identity(%{{.*}}, %{{.*}} : f32, f32) -> (f32, f32) element {
// CHECK: pgpu.yield %{{.*}}, %{{.*}} : f32, f32
// CHECK: } combine {
// CHECK-NEXT: ^bb0(%[[A0:.*]]: f32, %[[A1:.*]]: f32, %[[B0:.*]]: f32, %[[B1:.*]]: f32):
// CHECK-NEXT: %[[C0:.*]] = pgpu.binary add %[[A0]], %[[B0]] : f32
// CHECK-NEXT: %[[C1:.*]] = pgpu.binary max %[[A1]], %[[B1]] : f32
// CHECK-NEXT: pgpu.yield %[[C0]], %[[C1]] : f32, f32
// CHECK: pgpu.buffer_store %[[F]]#0
// CHECK: pgpu.buffer_store %[[F]]#1
// CHECK: pgpu.last_program
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @two_rows(%x: !pgpu.view<f32, [N, V], in>, %out: !pgpu.view<f32, [1], out>) {
    %true = arith.constant true
    %zero = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N, V], in>
    %V = pgpu.extent %x[1] : !pgpu.view<f32, [N, V], in>
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents() segment 0 roles [] {
        // expected-remark @below {{pgpu-split-row-reductions: the rows are cut}}
        %s = pgpu.range_reduce %c0 to %N identity(%zero : f32) -> (f32) element {
        ^bb0(%i: index):
          %r = pgpu.range_reduce %c0 to %V identity(%zero : f32) -> (f32) element {
          ^bb0(%j: index):
            %v = pgpu.load %x[%i, %j] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [N, V], in>[index, index] -> f32
            pgpu.yield %v : f32
          } combine {
          ^bb0(%a: f32, %b: f32):
            %t = pgpu.binary add %a, %b : f32
            pgpu.yield %t : f32
          }
          pgpu.yield %r : f32
        } combine {
        ^bb0(%a: f32, %b: f32):
          %t = pgpu.binary add %a, %b : f32
          pgpu.yield %t : f32
        }
        // expected-remark @below {{pgpu-split-row-reductions: the rows are cut}}
        %m = pgpu.range_reduce %c0 to %N identity(%zero : f32) -> (f32) element {
        ^bb0(%i: index):
          %r = pgpu.range_reduce %c0 to %V identity(%zero : f32) -> (f32) element {
          ^bb0(%j: index):
            %v = pgpu.load %x[%i, %j] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [N, V], in>[index, index] -> f32
            pgpu.yield %v : f32
          } combine {
          ^bb0(%a: f32, %b: f32):
            %t = pgpu.binary add %a, %b : f32
            pgpu.yield %t : f32
          }
          %q = pgpu.binary mul %r, %r : f32
          pgpu.yield %q : f32
        } combine {
        ^bb0(%a: f32, %b: f32):
          %t = pgpu.binary max %a, %b : f32
          pgpu.yield %t : f32
        }
        %d = pgpu.binary div %m, %s : f32
        pgpu.store %d, %out[%c0] valid %true : i1 : f32, !pgpu.view<f32, [1], out>[index]
        pgpu.yield
      } {roles = [], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: A sample's statistics over several axes (corpus 247's Dice loss: per sample n the sums of
// COM: x and x * x over H x W, a ratio of them, summed over the samples): few rows, each a long
// COM: walk. Before: one program walks every row (FOLD_SPLIT programs at most `rows`). After: each
// COM: row's nests are one flat walk over H * W, cut into S = max(min(FOLD_SPLIT, H * W), 1)
// COM: slices; max(rows, 1) * S programs, program c takes row c / S and slice c % S, stores its
// COM: partials at [c]; the last arrival merges each row's S partials in slice order, runs the
// COM: ratio and sums the rows.
// CHECK-LABEL: pgpu.kernel @sample_ratio
// CHECK-SAME: #pgpu.param<"FOLD_SPLIT", [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024], 1>
// CHECK: %[[HW:.*]] = pgpu.binary mul %[[H:.*]], %[[W:.*]] : index
// CHECK: %[[PARAM:.*]] = pgpu.param "FOLD_SPLIT" : index
// CHECK: %[[MIN:.*]] = pgpu.binary min %[[PARAM]], %{{.*}} : index
// CHECK: %[[S:.*]] = pgpu.binary max %[[MIN]], %{{.*}} : index
// CHECK: %[[P:.*]] = pgpu.binary mul %{{.*}}, %[[S]] : index
// CHECK: %[[CHUNK:.*]] = pgpu.ceil_div %{{.*}}, %[[S]] : index
// CHECK: pgpu.workspace_extent "FOLD_SPLITS" = %[[P]]
// CHECK: pgpu.program_space(%[[P]])
// CHECK: pgpu.execution_group %{{.*}} extents(%[[P]]) segment 0 roles ["fold_split"] {
// CHECK-NEXT: ^bb0(%[[C:.*]]: index):
// CHECK: %[[ROW:.*]] = pgpu.binary div %[[C]], %[[S]] : index
// CHECK: %[[SLICE:.*]] = pgpu.binary rem %[[C]], %[[S]] : index
// CHECK: %[[B0:.*]] = pgpu.binary mul %[[SLICE]], %[[CHUNK]] : index
// CHECK: %[[BEGIN:.*]] = pgpu.binary min %[[B0]], %{{.*}} : index
// CHECK: %[[E0:.*]] = pgpu.binary add %[[BEGIN]], %[[CHUNK]] : index
// CHECK: %[[END:.*]] = pgpu.binary min %[[E0]], %{{.*}} : index
// CHECK: %[[SUM:.*]] = pgpu.range_reduce %[[BEGIN]] to %[[END]]
// CHECK: pgpu.load %x[%{{.*}}, %{{.*}}, %{{.*}}]
// CHECK: %[[SQ:.*]] = pgpu.range_reduce %[[BEGIN]] to %[[END]]
// CHECK: pgpu.buffer_store %[[SUM]], %{{.*}}[%[[C]]]
// CHECK: pgpu.buffer_store %[[SQ]], %{{.*}}[%[[C]]]
// CHECK: pgpu.last_program %{{.*}}[%{{.*}}] arrivals %[[P]] :
// CHECK: pgpu.range_reduce %c0 to %[[N:.*]] identity
// CHECK: pgpu.range_reduce %{{.*}} to %[[S]] identity
// CHECK: pgpu.buffer_load
// CHECK: pgpu.binary div
// CHECK: pgpu.store
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @sample_ratio(%x: !pgpu.view<f32, [N, H, W], in>, %out: !pgpu.view<f32, [1], out>) {
    %true = arith.constant true
    %zero = arith.constant 0.000000e+00 : f32
    %one = arith.constant 1.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N, H, W], in>
    %H = pgpu.extent %x[1] : !pgpu.view<f32, [N, H, W], in>
    %W = pgpu.extent %x[2] : !pgpu.view<f32, [N, H, W], in>
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents() segment 0 roles [] {
        // expected-remark @below {{pgpu-split-row-reductions: each row's reductions over several axes are cut}}
        %s = pgpu.range_reduce %c0 to %N identity(%zero : f32) -> (f32) element {
        ^bb0(%i: index):
          %a = pgpu.range_reduce %c0 to %H identity(%zero : f32) -> (f32) element {
          ^bb0(%h: index):
            %a1 = pgpu.range_reduce %c0 to %W identity(%zero : f32) -> (f32) element {
            ^bb0(%w: index):
              %v = pgpu.load %x[%i, %h, %w] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [N, H, W], in>[index, index, index] -> f32
              pgpu.yield %v : f32
            } combine {
            ^bb0(%l: f32, %r: f32):
              %t = pgpu.binary add %l, %r : f32
              pgpu.yield %t : f32
            }
            pgpu.yield %a1 : f32
          } combine {
          ^bb0(%l: f32, %r: f32):
            %t = pgpu.binary add %l, %r : f32
            pgpu.yield %t : f32
          }
          %b = pgpu.range_reduce %c0 to %H identity(%zero : f32) -> (f32) element {
          ^bb0(%h: index):
            %b1 = pgpu.range_reduce %c0 to %W identity(%zero : f32) -> (f32) element {
            ^bb0(%w: index):
              %v = pgpu.load %x[%i, %h, %w] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [N, H, W], in>[index, index, index] -> f32
              %q = pgpu.binary mul %v, %v : f32
              pgpu.yield %q : f32
            } combine {
            ^bb0(%l: f32, %r: f32):
              %t = pgpu.binary add %l, %r : f32
              pgpu.yield %t : f32
            }
            pgpu.yield %b1 : f32
          } combine {
          ^bb0(%l: f32, %r: f32):
            %t = pgpu.binary add %l, %r : f32
            pgpu.yield %t : f32
          }
          %d = pgpu.binary add %b, %one : f32
          %e = pgpu.binary div %a, %d : f32
          pgpu.yield %e : f32
        } combine {
        ^bb0(%l: f32, %r: f32):
          %t = pgpu.binary add %l, %r : f32
          pgpu.yield %t : f32
        }
        pgpu.store %s, %out[%c0] valid %true : i1 : f32, !pgpu.view<f32, [1], out>[index]
        pgpu.yield
      } {roles = [], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Two kernel-level segments of construction's dispatch chain (corpus 274: `loss[0]` and
// COM: `clip_frac[0]`, each a sum over the rows of a row reduction): before, each segment is one
// COM: program walking every row. After: each segment's count 1 becomes its own FOLD_SPLITS in the
// COM: chain's bound and shift and in the space's total (2 - 1 + S0 - 1 + S1); each segment's members
// COM: reduce a slice of its rows, store partials to workspace sized by its own extent (FOLD_SPLITS,
// COM: FOLD_SPLITS_1), and its own last arrival (its own ticket) merges them and stores.
// CHECK-LABEL: pgpu.kernel @two_losses
// CHECK-SAME: %[[PA:[^:]*]]: !pgpu.buffer<f32, [FOLD_SPLITS], workspace> {pgpu.private = "workspace"}
// CHECK-SAME: %[[TA:[^:]*]]: !pgpu.buffer<i32, [1], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"}
// CHECK-SAME: %[[PB:[^:]*]]: !pgpu.buffer<f32, [FOLD_SPLITS_1], workspace> {pgpu.private = "workspace"}
// CHECK-SAME: %[[TB:[^:]*]]: !pgpu.buffer<i32, [1], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"}
// CHECK: %[[P0:.*]] = pgpu.param "FOLD_SPLIT" : index
// CHECK: %[[M0:.*]] = pgpu.binary min %[[P0]], %{{.*}} : index
// CHECK: %[[S0:.*]] = pgpu.binary max %[[M0]], %{{.*}} : index
// CHECK: pgpu.workspace_extent "FOLD_SPLITS" = %[[S0]]
// CHECK: %[[A:.*]] = pgpu.binary sub %c2, %{{.*}} : index
// CHECK: %[[T0:.*]] = pgpu.binary add %[[A]], %[[S0]] : index
// CHECK: %[[P1:.*]] = pgpu.param "FOLD_SPLIT" : index
// CHECK: %[[M1:.*]] = pgpu.binary min %[[P1]], %{{.*}} : index
// CHECK: %[[S1:.*]] = pgpu.binary max %[[M1]], %{{.*}} : index
// CHECK: pgpu.workspace_extent "FOLD_SPLITS_1" = %[[S1]]
// CHECK: %[[B:.*]] = pgpu.binary sub %[[T0]], %{{.*}} : index
// CHECK: %[[TOTAL:.*]] = pgpu.binary add %[[B]], %[[S1]] : index
// CHECK: pgpu.program_space(%[[TOTAL]])
// CHECK: pgpu.cmp lt %{{.*}}, %[[S0]] : index
// CHECK: pgpu.execution_group %{{.*}} extents(%[[S0]]) segment 0 roles ["fold_split"]
// CHECK: pgpu.buffer_store %{{.*}}, %[[PA]][
// CHECK: pgpu.last_program %[[TA]][%{{.*}}] arrivals %[[S0]]
// CHECK: pgpu.store %{{.*}}, %a
// CHECK: pgpu.binary sub %{{.*}}, %[[S0]] : index
// CHECK: pgpu.execution_group %{{.*}} extents(%[[S1]]) segment 1 roles ["fold_split"]
// CHECK: pgpu.buffer_store %{{.*}}, %[[PB]][
// CHECK: pgpu.last_program %[[TB]][%{{.*}}] arrivals %[[S1]]
// CHECK: pgpu.store %{{.*}}, %b
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @two_losses(%x: !pgpu.view<f32, [N, V], in>, %a: !pgpu.view<f32, [1], out>, %b: !pgpu.view<f32, [1], out>) {
    %true = arith.constant true
    %zero = arith.constant 0.000000e+00 : f32
    %c2 = arith.constant 2 : index
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N, V], in>
    %V = pgpu.extent %x[1] : !pgpu.view<f32, [N, V], in>
    pgpu.program_space(%c2) {
    ^bb0(%p: index):
      %first = pgpu.cmp lt %p, %c1 : index
      pgpu.if %first {
        pgpu.execution_group %p extents() segment 0 roles [] {
          // expected-remark @below {{pgpu-split-row-reductions: the rows are cut into FOLD_SPLIT contiguous slices}}
          %s = pgpu.range_reduce %c0 to %N identity(%zero : f32) -> (f32) element {
          ^bb0(%i: index):
            %r = pgpu.range_reduce %c0 to %V identity(%zero : f32) -> (f32) element {
            ^bb0(%j: index):
              %v = pgpu.load %x[%i, %j] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [N, V], in>[index, index] -> f32
              pgpu.yield %v : f32
            } combine {
            ^bb0(%u: f32, %w: f32):
              %t = pgpu.binary add %u, %w : f32
              pgpu.yield %t : f32
            }
            pgpu.yield %r : f32
          } combine {
          ^bb0(%u: f32, %w: f32):
            %t = pgpu.binary add %u, %w : f32
            pgpu.yield %t : f32
          }
          pgpu.store %s, %a[%c0] valid %true : i1 : f32, !pgpu.view<f32, [1], out>[index]
          pgpu.yield
        }
        pgpu.yield
      } else {
        %q = pgpu.binary sub %p, %c1 : index
        pgpu.execution_group %q extents() segment 1 roles [] {
          // expected-remark @below {{pgpu-split-row-reductions: the rows are cut into FOLD_SPLIT contiguous slices}}
          %s = pgpu.range_reduce %c0 to %N identity(%zero : f32) -> (f32) element {
          ^bb0(%i: index):
            %r = pgpu.range_reduce %c0 to %V identity(%zero : f32) -> (f32) element {
            ^bb0(%j: index):
              %v = pgpu.load %x[%i, %j] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [N, V], in>[index, index] -> f32
              %m = pgpu.binary max %v, %zero : f32
              pgpu.yield %m : f32
            } combine {
            ^bb0(%u: f32, %w: f32):
              %t = pgpu.binary add %u, %w : f32
              pgpu.yield %t : f32
            }
            pgpu.yield %r : f32
          } combine {
          ^bb0(%u: f32, %w: f32):
            %t = pgpu.binary add %u, %w : f32
            pgpu.yield %t : f32
          }
          pgpu.store %s, %b[%c0] valid %true : i1 : f32, !pgpu.view<f32, [1], out>[index]
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

// COM: Must not slice: a row's nest whose inner bound depends on the row (a triangle: w < i) spans
// COM: no launch-uniform product; the rows are cut as before (FOLD_SPLITS programs of whole rows).
// CHECK-LABEL: pgpu.kernel @triangle
// CHECK: pgpu.execution_group %{{.*}} roles ["fold_split"]
// CHECK-NOT: pgpu.binary rem
// CHECK: pgpu.last_program
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @triangle(%x: !pgpu.view<f32, [N, H, W], in>, %out: !pgpu.view<f32, [1], out>) {
    %true = arith.constant true
    %zero = arith.constant 0.000000e+00 : f32
    %one = arith.constant 1.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N, H, W], in>
    %H = pgpu.extent %x[1] : !pgpu.view<f32, [N, H, W], in>
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents() segment 0 roles [] {
        // expected-remark @below {{pgpu-split-row-reductions: the rows are cut}}
        %s = pgpu.range_reduce %c0 to %N identity(%zero : f32) -> (f32) element {
        ^bb0(%i: index):
          %a = pgpu.range_reduce %c0 to %H identity(%zero : f32) -> (f32) element {
          ^bb0(%h: index):
            %a1 = pgpu.range_reduce %c0 to %i identity(%zero : f32) -> (f32) element {
            ^bb0(%w: index):
              %v = pgpu.load %x[%i, %h, %w] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [N, H, W], in>[index, index, index] -> f32
              pgpu.yield %v : f32
            } combine {
            ^bb0(%l: f32, %r: f32):
              %t = pgpu.binary add %l, %r : f32
              pgpu.yield %t : f32
            }
            pgpu.yield %a1 : f32
          } combine {
          ^bb0(%l: f32, %r: f32):
            %t = pgpu.binary add %l, %r : f32
            pgpu.yield %t : f32
          }
          %d = pgpu.binary add %a, %one : f32
          %e = pgpu.binary div %one, %d : f32
          pgpu.yield %e : f32
        } combine {
        ^bb0(%l: f32, %r: f32):
          %t = pgpu.binary add %l, %r : f32
          pgpu.yield %t : f32
        }
        pgpu.store %s, %out[%c0] valid %true : i1 : f32, !pgpu.view<f32, [1], out>[index]
        pgpu.yield
      } {roles = [], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire on a chain segment that is one flat reduction (pgpu-split-folds' case, its
// COM: blocked fold's tiles split there): the first segment (a sum of row sums) splits, the second
// COM: keeps its one program (its group without axes; the chain's last segment has no bound).
// CHECK-LABEL: pgpu.kernel @two_ranges
// CHECK: pgpu.execution_group %{{.*}} extents(%{{.*}}) segment 0 roles ["fold_split"]
// CHECK: pgpu.binary sub %{{.*}}, %{{.*}} : index
// CHECK: pgpu.execution_group %{{.*}} extents() segment 1 roles []
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @two_ranges(%x: !pgpu.view<f32, [N, V], in>, %a: !pgpu.view<f32, [1], out>, %b: !pgpu.view<f32, [1], out>) {
    %true = arith.constant true
    %zero = arith.constant 0.000000e+00 : f32
    %c2 = arith.constant 2 : index
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N, V], in>
    %V = pgpu.extent %x[1] : !pgpu.view<f32, [N, V], in>
    pgpu.program_space(%c2) {
    ^bb0(%p: index):
      %first = pgpu.cmp lt %p, %c1 : index
      pgpu.if %first {
        pgpu.execution_group %p extents() segment 0 roles [] {
          // expected-remark @below {{pgpu-split-row-reductions: the rows are cut into FOLD_SPLIT contiguous slices}}
          %s = pgpu.range_reduce %c0 to %N identity(%zero : f32) -> (f32) element {
          ^bb0(%i: index):
            %r = pgpu.range_reduce %c0 to %V identity(%zero : f32) -> (f32) element {
            ^bb0(%j: index):
              %v = pgpu.load %x[%i, %j] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [N, V], in>[index, index] -> f32
              pgpu.yield %v : f32
            } combine {
            ^bb0(%u: f32, %w: f32):
              %t = pgpu.binary add %u, %w : f32
              pgpu.yield %t : f32
            }
            pgpu.yield %r : f32
          } combine {
          ^bb0(%u: f32, %w: f32):
            %t = pgpu.binary add %u, %w : f32
            pgpu.yield %t : f32
          }
          pgpu.store %s, %a[%c0] valid %true : i1 : f32, !pgpu.view<f32, [1], out>[index]
          pgpu.yield
        }
        pgpu.yield
      } else {
        %q = pgpu.binary sub %p, %c1 : index
        pgpu.execution_group %q extents() segment 1 roles [] {
          // expected-remark @below {{pgpu-split-row-reductions: not split: one reduction without a nested loop}}
          %s = pgpu.range_reduce %c0 to %V identity(%zero : f32) -> (f32) element {
          ^bb0(%j: index):
            %v = pgpu.load %x[%c0, %j] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [N, V], in>[index, index] -> f32
            pgpu.yield %v : f32
          } combine {
          ^bb0(%u: f32, %w: f32):
            %t = pgpu.binary add %u, %w : f32
            pgpu.yield %t : f32
          }
          pgpu.store %s, %b[%c0] valid %true : i1 : f32, !pgpu.view<f32, [1], out>[index]
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

// COM: Must not fire: a kernel-level sum over (t, s) of a function of a contraction free on t and s
// COM: (SigLIP's pairwise loss: sum_{t,s} f(<x[t], y[s]>)) is a Gram nest: pgpu-form-tiles tiles it
// COM: as tile products (its fold over t blocks split by pgpu-split-folds). Cut here, each row's
// COM: program would end in a last-arrival merge form-tiles does not tile, every (t, s) a scalar dot.
// CHECK-LABEL: pgpu.kernel @gram_sum
// CHECK-NOT: FOLD_SPLIT
// CHECK: pgpu.program_space(%c1)
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @gram_sum(%x: !pgpu.view<bf16, [T, K], in>, %y: !pgpu.view<bf16, [T, K], in>, %out: !pgpu.view<f32, [1], out>) {
    %h0 = arith.constant 0.0 : bf16
    %true = arith.constant true
    %zero = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %T = pgpu.extent %x[0] : !pgpu.view<bf16, [T, K], in>
    %K = pgpu.extent %x[1] : !pgpu.view<bf16, [T, K], in>
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents() segment 0 roles [] {
        // expected-remark @below {{pgpu-split-row-reductions: not split: the reduction is a Gram nest}}
        %s = pgpu.range_reduce %c0 to %T identity(%zero : f32) -> (f32) element {
        ^bb0(%t: index):
          %row = pgpu.range_reduce %c0 to %T identity(%zero : f32) -> (f32) element {
          ^bb0(%u: index):
            %d = pgpu.range_reduce %c0 to %K identity(%zero : f32) -> (f32) element {
            ^bb0(%k: index):
              %a = pgpu.load %x[%t, %k] valid %true : i1 fill %h0 : bf16 : !pgpu.view<bf16, [T, K], in>[index, index] -> bf16
              %b = pgpu.load %y[%u, %k] valid %true : i1 fill %h0 : bf16 : !pgpu.view<bf16, [T, K], in>[index, index] -> bf16
              %af = pgpu.cast %a : bf16 to f32
              %bf = pgpu.cast %b : bf16 to f32
              %m = pgpu.binary mul %af, %bf : f32
              pgpu.yield %m : f32
            } combine {
            ^bb0(%l: f32, %r: f32):
              %q = pgpu.binary add %l, %r : f32
              pgpu.yield %q : f32
            }
            %e = pgpu.unary exp %d : f32
            pgpu.yield %e : f32
          } combine {
          ^bb0(%l: f32, %r: f32):
            %q = pgpu.binary add %l, %r : f32
            pgpu.yield %q : f32
          }
          pgpu.yield %row : f32
        } combine {
        ^bb0(%l: f32, %r: f32):
          %q = pgpu.binary add %l, %r : f32
          pgpu.yield %q : f32
        }
        pgpu.store %s, %out[%c0] valid %true : i1 : f32, !pgpu.view<f32, [1], out>[index]
        pgpu.yield
      } {roles = [], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: A sum over the images n of sums over the pixels (h, w) of a per-pixel reduction over the classes
// COM: c (corpus 270: a weighted cross-entropy over NCHW logits): the rows' reduction reduces alike and
// COM: holds only the pixels' nest, and the nest's innermost element holds the class reduction (its
// COM: bounds launch values). Before: FOLD_SPLITS programs of whole images (8 for N = 8). After: each
// COM: image's pixels are one flat walk over H * W cut into S slices, max(N, 1) * S programs, the class
// COM: reduction inside each pixel (pgpu-form-blocking runs it for a block of pixel lanes).
// CHECK-LABEL: pgpu.kernel @nchw_classes
// CHECK: %[[HW:.*]] = pgpu.binary mul %{{.*}}, %{{.*}} : index
// CHECK: pgpu.execution_group %{{.*}} roles ["fold_split"] {
// CHECK: pgpu.binary rem
// CHECK: pgpu.range_reduce %{{.*}} to %{{.*}} identity
// CHECK: pgpu.range_reduce %c0 to %[[C:.*]] identity
// CHECK: pgpu.load %x[
// CHECK: pgpu.last_program
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @nchw_classes(%x: !pgpu.view<f32, [N, C, H, W], in>, %out: !pgpu.view<f32, [1], out>) {
    %true = arith.constant true
    %zero = arith.constant 0.000000e+00 : f32
    %ninf = arith.constant 0xFF800000 : f32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N, C, H, W], in>
    %C = pgpu.extent %x[1] : !pgpu.view<f32, [N, C, H, W], in>
    %H = pgpu.extent %x[2] : !pgpu.view<f32, [N, C, H, W], in>
    %W = pgpu.extent %x[3] : !pgpu.view<f32, [N, C, H, W], in>
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents() segment 0 roles [] {
        // expected-remark @below {{pgpu-split-row-reductions: each row's reductions over several axes are cut into FOLD_SPLIT slices}}
        %s = pgpu.range_reduce %c0 to %N identity(%zero : f32) -> (f32) element {
        ^bb0(%n: index):
          %a = pgpu.range_reduce %c0 to %H identity(%zero : f32) -> (f32) element {
          ^bb0(%h: index):
            %b = pgpu.range_reduce %c0 to %W identity(%zero : f32) -> (f32) element {
            ^bb0(%w: index):
              %m = pgpu.range_reduce %c0 to %C identity(%ninf : f32) -> (f32) element {
              ^bb0(%c: index):
                %v = pgpu.load %x[%n, %c, %h, %w] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [N, C, H, W], in>[index, index, index, index] -> f32
                pgpu.yield %v : f32
              } combine {
              ^bb0(%l: f32, %r: f32):
                %t = pgpu.binary max %l, %r : f32
                pgpu.yield %t : f32
              }
              pgpu.yield %m : f32
            } combine {
            ^bb0(%l: f32, %r: f32):
              %t = pgpu.binary add %l, %r : f32
              pgpu.yield %t : f32
            }
            pgpu.yield %b : f32
          } combine {
          ^bb0(%l: f32, %r: f32):
            %t = pgpu.binary add %l, %r : f32
            pgpu.yield %t : f32
          }
          pgpu.yield %a : f32
        } combine {
        ^bb0(%l: f32, %r: f32):
          %t = pgpu.binary add %l, %r : f32
          pgpu.yield %t : f32
        }
        pgpu.store %s, %out[%c0] valid %true : i1 : f32, !pgpu.view<f32, [1], out>[index]
        pgpu.yield
      } {roles = [], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not slice: the per-pixel reduction's bound depends on the pixel (classes up to w): no
// COM: launch-uniform inner walk; the rows are cut as before (FOLD_SPLITS programs of whole images).
// CHECK-LABEL: pgpu.kernel @ragged_classes
// CHECK: pgpu.execution_group %{{.*}} roles ["fold_split"]
// CHECK-NOT: pgpu.binary rem
// CHECK: pgpu.last_program
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @ragged_classes(%x: !pgpu.view<f32, [N, C, H, W], in>, %out: !pgpu.view<f32, [1], out>) {
    %true = arith.constant true
    %zero = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N, C, H, W], in>
    %H = pgpu.extent %x[2] : !pgpu.view<f32, [N, C, H, W], in>
    %W = pgpu.extent %x[3] : !pgpu.view<f32, [N, C, H, W], in>
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents() segment 0 roles [] {
        // expected-remark @below {{pgpu-split-row-reductions: the rows are cut}}
        %s = pgpu.range_reduce %c0 to %N identity(%zero : f32) -> (f32) element {
        ^bb0(%n: index):
          %a = pgpu.range_reduce %c0 to %H identity(%zero : f32) -> (f32) element {
          ^bb0(%h: index):
            %b = pgpu.range_reduce %c0 to %W identity(%zero : f32) -> (f32) element {
            ^bb0(%w: index):
              %m = pgpu.range_reduce %c0 to %w identity(%zero : f32) -> (f32) element {
              ^bb0(%c: index):
                %v = pgpu.load %x[%n, %c, %h, %w] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [N, C, H, W], in>[index, index, index, index] -> f32
                pgpu.yield %v : f32
              } combine {
              ^bb0(%l: f32, %r: f32):
                %t = pgpu.binary add %l, %r : f32
                pgpu.yield %t : f32
              }
              pgpu.yield %m : f32
            } combine {
            ^bb0(%l: f32, %r: f32):
              %t = pgpu.binary add %l, %r : f32
              pgpu.yield %t : f32
            }
            pgpu.yield %b : f32
          } combine {
          ^bb0(%l: f32, %r: f32):
            %t = pgpu.binary add %l, %r : f32
            pgpu.yield %t : f32
          }
          pgpu.yield %a : f32
        } combine {
        ^bb0(%l: f32, %r: f32):
          %t = pgpu.binary add %l, %r : f32
          pgpu.yield %t : f32
        }
        pgpu.store %s, %out[%c0] valid %true : i1 : f32, !pgpu.view<f32, [1], out>[index]
        pgpu.yield
      } {roles = [], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}
