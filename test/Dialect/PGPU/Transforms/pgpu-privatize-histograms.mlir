// RUN: tessel-opt %s -split-input-file -pgpu-privatize-histograms | FileCheck %s

// COM: A blocked loop scatter-adds the constant 1 into a rank-1 workspace of extent B at the loaded
// COM: values: under the launch fact B <= HBINS * HPASSES the bins are counted in passes over ranges
// COM: of HBINS bins [r, r + HBINS): in each, the loop carries a privatized fragment of HBINS counts
// COM: (pgpu.histogram of each block's coordinates minus r, under the write's validity and the
// COM: range's), and one scatter_reduce after the loop adds the range's nonzero counts at bins r + i
// COM: below B; otherwise the original loop (direct atomics). HBINS is declared covering B with
// COM: HPASSES as its passes (HBINS x HPASSES covers B: the call's default where no HBINS holds B),
// COM: HPASSES (default 1: one range); BLOCK_P (here absent) is left alone.
// CHECK-LABEL: pgpu.kernel @count
// CHECK-SAME: #pgpu.param<"BLOCK", [256, 512, 4096], 4096>
// CHECK-SAME: #pgpu.param<"HBINS", [32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768], 32, covers = "B", passes = "HPASSES">
// CHECK-SAME: #pgpu.param<"HPASSES", [1, 2, 4, 8], 1>
// CHECK: %[[B:.*]] = pgpu.extent %h[0]
// CHECK: %[[HB:.*]] = pgpu.param "HBINS" : index
// CHECK: %[[HP:.*]] = pgpu.param "HPASSES" : index
// CHECK: %[[CAP:.*]] = pgpu.binary mul %[[HB]], %[[HP]] : index
// CHECK: %[[FITS:.*]] = pgpu.cmp le %[[B]], %[[CAP]] : index
// CHECK: pgpu.if %[[FITS]] {
// CHECK: pgpu.for %{{.*}} to %[[B]] step %[[HB]] {
// CHECK: ^bb0(%[[FIRST:.*]]: index):
// CHECK: %[[ZERO:.*]] = pgpu.splat %{{.*}} : i32 -> !pgpu.fragment<i32, [HBINS]>
// CHECK: %[[COUNTS:.*]] = pgpu.for %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ZERO]] : !pgpu.fragment<i32, [HBINS]>)
// CHECK: ^bb0(%{{.*}}: index, %[[ACC:.*]]: !pgpu.fragment<i32, [HBINS]>):
// CHECK: %[[BIN:.*]] = pgpu.cast %{{.*}} : !pgpu.fragment<i32, [BLOCK]> to !pgpu.fragment<index, [BLOCK]>
// CHECK: %[[R:.*]] = pgpu.splat %[[FIRST]] : index -> !pgpu.fragment<index, [BLOCK]>
// CHECK: %[[LOCAL:.*]] = pgpu.binary sub %[[BIN]], %[[R]] : !pgpu.fragment<index, [BLOCK]>
// CHECK: %[[GE:.*]] = pgpu.cmp ge %[[LOCAL]]
// CHECK: %[[LT:.*]] = pgpu.cmp lt %[[LOCAL]]
// CHECK: %[[INR:.*]] = pgpu.binary and %[[GE]], %[[LT]]
// CHECK: %[[OK0:.*]] = pgpu.binary and %{{.*}}, %[[INR]]
// CHECK: %[[PART:.*]] = pgpu.histogram %[[LOCAL]] valid %[[OK0]] : !pgpu.fragment<index, [BLOCK]>, !pgpu.fragment<i1, [BLOCK]> -> !pgpu.fragment<i32, [HBINS]>
// CHECK: %[[NEXT:.*]] = pgpu.binary add %[[ACC]], %[[PART]] : !pgpu.fragment<i32, [HBINS]>
// CHECK: pgpu.yield %[[NEXT]]
// CHECK: %[[AT:.*]] = pgpu.iota %[[FIRST]] : !pgpu.fragment<index, [HBINS]>
// CHECK: %[[INSIDE:.*]] = pgpu.cmp lt %[[AT]], %{{.*}} : !pgpu.fragment<index, [HBINS]>
// CHECK: %[[SOME:.*]] = pgpu.cmp ne %[[COUNTS]], %[[ZERO]] : !pgpu.fragment<i32, [HBINS]>
// CHECK: %[[OK:.*]] = pgpu.binary and %[[INSIDE]], %[[SOME]]
// CHECK: pgpu.scatter_reduce %[[COUNTS]], %ws[%[[AT]]] valid %[[OK]]
// CHECK: } else {
// CHECK: pgpu.for
// CHECK: pgpu.scatter_reduce %{{.*}}, %ws[%{{.*}}] valid
// CHECK-NOT: pgpu.histogram
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @count(%x: !pgpu.view<i32, [N], in>, %h: !pgpu.view<i32, [B], out>,
                     %ws: !pgpu.buffer<i32, [B], workspace> {pgpu.private = "workspace", pgpu.init = 0 : i32})
      attributes {params = [#pgpu.param<"BLOCK", [256, 512, 4096], 512>]} {
    %N = pgpu.extent %x[0] : !pgpu.view<i32, [N], in>
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %block = pgpu.param "BLOCK" : index
      %one = arith.constant 1 : i32
      %zero = arith.constant 0 : i32
      pgpu.for %c0 to %N step %block {
      ^bb0(%s: index):
        %lanes = pgpu.iota %s : !pgpu.fragment<index, [BLOCK]>
        %n = pgpu.splat %N : index -> !pgpu.fragment<index, [BLOCK]>
        %in = pgpu.cmp lt %lanes, %n : !pgpu.fragment<index, [BLOCK]>
        %v = pgpu.load %x[%lanes] valid %in : !pgpu.fragment<i1, [BLOCK]> fill %zero : i32 : !pgpu.view<i32, [N], in>[!pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<i32, [BLOCK]>
        %bin = pgpu.cast %v : !pgpu.fragment<i32, [BLOCK]> to !pgpu.fragment<index, [BLOCK]>
        %ones = pgpu.splat %one : i32 -> !pgpu.fragment<i32, [BLOCK]>
        pgpu.scatter_reduce %ones, %ws[%bin] valid %in : !pgpu.fragment<i1, [BLOCK]> : !pgpu.fragment<i32, [BLOCK]>, !pgpu.buffer<i32, [B], workspace>[!pgpu.fragment<index, [BLOCK]>] {
        ^bb0(%a: i32, %b: i32):
          %s2 = pgpu.binary add %a, %b : i32
          pgpu.yield %s2 : i32
        }
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the added value is the loaded data, not a constant (a scatter-add of values,
// COM: which a count does not give), and a float add (its sums round by grouping).
// CHECK-LABEL: pgpu.kernel @weighted
// CHECK-NOT: HBINS
// CHECK-NOT: HPASSES
// CHECK-NOT: pgpu.histogram
// CHECK: pgpu.scatter_reduce %{{.*}}, %ws[
// CHECK-NOT: pgpu.histogram
// CHECK: pgpu.scatter_reduce %{{.*}}, %wf[
// CHECK-NOT: pgpu.histogram
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @weighted(%x: !pgpu.view<i32, [N], in>, %h: !pgpu.view<i32, [B], out>,
                        %ws: !pgpu.buffer<i32, [B], workspace> {pgpu.private = "workspace", pgpu.init = 0 : i32},
                        %wf: !pgpu.buffer<f32, [B], workspace> {pgpu.private = "workspace", pgpu.init = 0.0 : f32})
      attributes {params = [#pgpu.param<"BLOCK", [256, 512], 512>]} {
    %N = pgpu.extent %x[0] : !pgpu.view<i32, [N], in>
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %block = pgpu.param "BLOCK" : index
      %zero = arith.constant 0 : i32
      %onef = arith.constant 1.0 : f32
      pgpu.for %c0 to %N step %block {
      ^bb0(%s: index):
        %lanes = pgpu.iota %s : !pgpu.fragment<index, [BLOCK]>
        %n = pgpu.splat %N : index -> !pgpu.fragment<index, [BLOCK]>
        %in = pgpu.cmp lt %lanes, %n : !pgpu.fragment<index, [BLOCK]>
        %v = pgpu.load %x[%lanes] valid %in : !pgpu.fragment<i1, [BLOCK]> fill %zero : i32 : !pgpu.view<i32, [N], in>[!pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<i32, [BLOCK]>
        %bin = pgpu.cast %v : !pgpu.fragment<i32, [BLOCK]> to !pgpu.fragment<index, [BLOCK]>
        pgpu.scatter_reduce %v, %ws[%bin] valid %in : !pgpu.fragment<i1, [BLOCK]> : !pgpu.fragment<i32, [BLOCK]>, !pgpu.buffer<i32, [B], workspace>[!pgpu.fragment<index, [BLOCK]>] {
        ^bb0(%a: i32, %b: i32):
          %s2 = pgpu.binary add %a, %b : i32
          pgpu.yield %s2 : i32
        }
        pgpu.yield
      }
      pgpu.for %c0 to %N step %block {
      ^bb0(%s: index):
        %lanes = pgpu.iota %s : !pgpu.fragment<index, [BLOCK]>
        %n = pgpu.splat %N : index -> !pgpu.fragment<index, [BLOCK]>
        %in = pgpu.cmp lt %lanes, %n : !pgpu.fragment<index, [BLOCK]>
        %v = pgpu.load %x[%lanes] valid %in : !pgpu.fragment<i1, [BLOCK]> fill %zero : i32 : !pgpu.view<i32, [N], in>[!pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<i32, [BLOCK]>
        %bin = pgpu.cast %v : !pgpu.fragment<i32, [BLOCK]> to !pgpu.fragment<index, [BLOCK]>
        %ones = pgpu.splat %onef : f32 -> !pgpu.fragment<f32, [BLOCK]>
        pgpu.scatter_reduce %ones, %wf[%bin] valid %in : !pgpu.fragment<i1, [BLOCK]> : !pgpu.fragment<f32, [BLOCK]>, !pgpu.buffer<f32, [B], workspace>[!pgpu.fragment<index, [BLOCK]>] {
        ^bb0(%a: f32, %b: f32):
          %s2 = pgpu.binary add %a, %b : f32
          pgpu.yield %s2 : f32
        }
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: A member's row of bins (kir-to-pgpu's per-row histogram): the target has rank 2, its first
// COM: coordinate the member's row %r for the whole loop (splatted over the lanes), its last the loaded
// COM: values. The loop counts into a privatized fragment as above; the merge adds at [%r, bins] (the
// COM: row a scalar). The last extent is the static 256: HBINS defaults to 256, which holds it in one
// COM: pass (no covering symbol).
// CHECK-LABEL: pgpu.kernel @rows
// CHECK-SAME: #pgpu.param<"HBINS", [32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768], 256, passes = "HPASSES">
// CHECK-SAME: #pgpu.param<"HPASSES", [1, 2, 4, 8], 1>
// CHECK: pgpu.execution_group
// CHECK-NEXT: ^bb0(%[[R:.*]]: index):
// CHECK: pgpu.if
// CHECK: %[[COUNTS:.*]] = pgpu.for %{{.*}} iter_args(%{{.*}} : !pgpu.fragment<i32, [HBINS]>)
// CHECK: pgpu.histogram
// CHECK: %[[AT:.*]] = pgpu.iota %{{.*}} : !pgpu.fragment<index, [HBINS]>
// CHECK: pgpu.scatter_reduce %[[COUNTS]], %ws[%[[R]], %[[AT]]] valid %{{.*}} : !pgpu.fragment<i1, [HBINS]> : !pgpu.fragment<i32, [HBINS]>, !pgpu.buffer<i32, [B, 256], workspace>[index, !pgpu.fragment<index, [HBINS]>]
// CHECK: } else {
// CHECK: pgpu.scatter_reduce %{{.*}}, %ws[%{{.*}}, %{{.*}}] valid
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @rows(%x: !pgpu.view<i32, [B, L], in>, %h: !pgpu.view<i32, [B, 256], out>,
                    %ws: !pgpu.buffer<i32, [B, 256], workspace> {pgpu.private = "workspace", pgpu.init = 0 : i32, pgpu.kept})
      attributes {params = [#pgpu.param<"BLOCK", [256, 512, 4096], 512>]} {
    %B = pgpu.extent %x[0] : !pgpu.view<i32, [B, L], in>
    %L = pgpu.extent %x[1] : !pgpu.view<i32, [B, L], in>
    pgpu.program_space (%B) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%B) segment 0 roles ["r"] {
      ^bb0(%r: index):
        %c0 = arith.constant 0 : index
        %block = pgpu.param "BLOCK" : index
        %one = arith.constant 1 : i32
        %zero = arith.constant 0 : i32
        pgpu.for %c0 to %L step %block {
        ^bb0(%s: index):
          %lanes = pgpu.iota %s : !pgpu.fragment<index, [BLOCK]>
          %n = pgpu.splat %L : index -> !pgpu.fragment<index, [BLOCK]>
          %in = pgpu.cmp lt %lanes, %n : !pgpu.fragment<index, [BLOCK]>
          %v = pgpu.load %x[%r, %lanes] valid %in : !pgpu.fragment<i1, [BLOCK]> fill %zero : i32 : !pgpu.view<i32, [B, L], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<i32, [BLOCK]>
          %bin = pgpu.cast %v : !pgpu.fragment<i32, [BLOCK]> to !pgpu.fragment<index, [BLOCK]>
          %rows = pgpu.splat %r : index -> !pgpu.fragment<index, [BLOCK]>
          %ones = pgpu.splat %one : i32 -> !pgpu.fragment<i32, [BLOCK]>
          pgpu.scatter_reduce %ones, %ws[%rows, %bin] valid %in : !pgpu.fragment<i1, [BLOCK]> : !pgpu.fragment<i32, [BLOCK]>, !pgpu.buffer<i32, [B, 256], workspace>[!pgpu.fragment<index, [BLOCK]>, !pgpu.fragment<index, [BLOCK]>] {
          ^bb0(%a: i32, %b: i32):
            %s2 = pgpu.binary add %a, %b : i32
            pgpu.yield %s2 : i32
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

// COM: Must not fire: the first coordinate of a rank-2 target varies across the lanes (each lane its
// COM: own row, x[s] // 256): no one row counts the block, so the atomics stay direct.
// CHECK-LABEL: pgpu.kernel @scattered_rows
// CHECK-NOT: HBINS
// CHECK-NOT: pgpu.histogram
// CHECK: pgpu.scatter_reduce %{{.*}}, %ws[
// CHECK-NOT: pgpu.histogram
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @scattered_rows(%x: !pgpu.view<i32, [N], in>, %h: !pgpu.view<i32, [B, 256], out>,
                              %ws: !pgpu.buffer<i32, [B, 256], workspace> {pgpu.private = "workspace", pgpu.init = 0 : i32})
      attributes {params = [#pgpu.param<"BLOCK", [256, 512], 512>]} {
    %N = pgpu.extent %x[0] : !pgpu.view<i32, [N], in>
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %block = pgpu.param "BLOCK" : index
      %one = arith.constant 1 : i32
      %zero = arith.constant 0 : i32
      pgpu.for %c0 to %N step %block {
      ^bb0(%s: index):
        %lanes = pgpu.iota %s : !pgpu.fragment<index, [BLOCK]>
        %n = pgpu.splat %N : index -> !pgpu.fragment<index, [BLOCK]>
        %in = pgpu.cmp lt %lanes, %n : !pgpu.fragment<index, [BLOCK]>
        %v = pgpu.load %x[%lanes] valid %in : !pgpu.fragment<i1, [BLOCK]> fill %zero : i32 : !pgpu.view<i32, [N], in>[!pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<i32, [BLOCK]>
        %flat = pgpu.cast %v : !pgpu.fragment<i32, [BLOCK]> to !pgpu.fragment<index, [BLOCK]>
        %c256 = arith.constant 256 : index
        %w = pgpu.splat %c256 : index -> !pgpu.fragment<index, [BLOCK]>
        %row = pgpu.binary div %flat, %w : !pgpu.fragment<index, [BLOCK]>
        %bin = pgpu.binary rem %flat, %w : !pgpu.fragment<index, [BLOCK]>
        %ones = pgpu.splat %one : i32 -> !pgpu.fragment<i32, [BLOCK]>
        pgpu.scatter_reduce %ones, %ws[%row, %bin] valid %in : !pgpu.fragment<i1, [BLOCK]> : !pgpu.fragment<i32, [BLOCK]>, !pgpu.buffer<i32, [B, 256], workspace>[!pgpu.fragment<index, [BLOCK]>, !pgpu.fragment<index, [BLOCK]>] {
        ^bb0(%a: i32, %b: i32):
          %s2 = pgpu.binary add %a, %b : i32
          pgpu.yield %s2 : i32
        }
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}
