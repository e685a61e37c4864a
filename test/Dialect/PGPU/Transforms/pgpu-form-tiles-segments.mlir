// RUN: tessel-opt %s -split-input-file -pgpu-form-tiles -verify-diagnostics | FileCheck %s

// COM: The ragged grouped GEMM as constructed: one program per group g (under construction's
// COM: dispatch guard, beside the tail's last-program finalization), whose row workset's bounds
// COM: are read from OFFS in the program. The segment is tiled in a walk: PERSIST * 132 programs
// COM: (the guard and the space follow), each walks the groups in order, reads the group's bounds,
// COM: and takes every programs-th of its ceil(rows / TILE_1) * ceil(N / TILE_2) tiles, dealt from
// COM: the running count of tiles before it; the rows' lanes are valid below the read bound.
// COM: Not capped by a tile bound: the segment's lower bound (min(lo0, M)) has no launch-time lower
// COM: bound, so the grid stays PERSIST * 132 (the space's extent is the product itself).
// CHECK-LABEL: pgpu.kernel @grouped
// CHECK-SAME: #pgpu.param<"TILE_1", [16, 32, 64, 128, 256], 128>, #pgpu.param<"TILE_2", [16, 32, 64, 128, 256], 128>, #pgpu.param<"TILE_K", [16, 32, 64, 128], 64>, #pgpu.param<"GROUP_1", [1, 2, 4, 8, 16], 8>, #pgpu.param<"PERSIST", [1, 2, 4], 1>
// CHECK: %[[G:.*]] = pgpu.extent %b[0]
// CHECK: %[[SMS:.*]] = arith.constant 132 : index
// CHECK: %[[PER:.*]] = pgpu.param "PERSIST" : index
// CHECK: %[[P:.*]] = pgpu.binary mul %[[PER]], %[[SMS]] : index
// CHECK: %[[TN:.*]] = pgpu.ceil_div %{{.*}}, %{{.*}} : index
// CHECK: pgpu.program_space(%[[P]]) {
// CHECK-NEXT: ^bb0(%[[PID:.*]]: index):
// CHECK-NEXT: %[[IN:.*]] = pgpu.cmp lt %[[PID]], %[[P]] : index
// CHECK-NEXT: pgpu.if %[[IN]] {
// CHECK-NEXT: pgpu.execution_group %[[PID]] extents(%[[P]]) segment 0 roles ["segment walk"] {
// CHECK-NEXT: ^bb0(%[[SELF:.*]]: index):
// CHECK: pgpu.for %{{.*}} to %[[G]] step %{{.*}} iter_args(%{{.*}} : index) -> index {
// CHECK-NEXT: ^bb0(%[[GRP:.*]]: index, %[[BASE:.*]]: index):
// CHECK: pgpu.range_reduce
// CHECK: pgpu.load %offs
// CHECK: pgpu.range_reduce
// CHECK: pgpu.load %offs
// CHECK: %[[ROWS:.*]] = pgpu.binary max %{{.*}}, %{{.*}} : index
// CHECK: %[[TILE1:.*]] = pgpu.param "TILE_1" : index
// CHECK: %[[TM:.*]] = pgpu.binary div %{{.*}}, %[[TILE1]] : index
// CHECK: %[[COUNT:.*]] = pgpu.binary mul %[[TM]], %[[TN]] : index
// CHECK: %[[R:.*]] = pgpu.binary rem %[[BASE]], %[[P]] : index
// CHECK: %[[S1:.*]] = pgpu.binary add %[[SELF]], %[[P]] : index
// CHECK: %[[S2:.*]] = pgpu.binary sub %[[S1]], %[[R]] : index
// CHECK: %[[FIRST:.*]] = pgpu.binary rem %[[S2]], %[[P]] : index
// CHECK: pgpu.for %[[FIRST]] to %[[COUNT]] step %[[P]] {
// CHECK: pgpu.param "GROUP_1"
// CHECK: %[[LANES:.*]] = pgpu.iota %{{.*}} : !pgpu.fragment<index, [TILE_1]>
// CHECK: %[[END:.*]] = pgpu.splat %{{.*}} : index -> !pgpu.fragment<index, [TILE_1]>
// CHECK: pgpu.cmp lt %[[LANES]], %[[END]] : !pgpu.fragment<index, [TILE_1]>
// CHECK: pgpu.for %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} : !pgpu.fragment<f32, [TILE_1, TILE_2]>)
// CHECK: pgpu.load %a[{{.*}}] -> !pgpu.fragment<f16, [TILE_1, TILE_K]>
// CHECK: pgpu.load %b[{{.*}}] -> !pgpu.fragment<f16, [TILE_2, TILE_K]>
// CHECK: pgpu.contract
// CHECK: pgpu.store %{{.*}}, %c[{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [TILE_1, TILE_2]>
// CHECK: %[[NEXT:.*]] = pgpu.binary add %[[BASE]], %[[COUNT]] : index
// CHECK-NEXT: pgpu.yield %[[NEXT]] : index
// CHECK: pgpu.last_program %arg0
// CHECK: pgpu.foreach
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", multiprocessors = 132>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @grouped(%a: !pgpu.view<f16, [M, K], in>, %b: !pgpu.view<f16, [G, K, N], in>, %offs: !pgpu.view<index, [G1], in>, %c: !pgpu.view<f32, [M, N], out>, %arg0: !pgpu.buffer<i32, [1], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"}) {
    %true = arith.constant true
    %z16 = arith.constant 0.0 : f16
    %z = arith.constant 0.0 : f32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %M = pgpu.extent %a[0] : !pgpu.view<f16, [M, K], in>
    %K = pgpu.extent %a[1] : !pgpu.view<f16, [M, K], in>
    %G = pgpu.extent %b[0] : !pgpu.view<f16, [G, K, N], in>
    %N = pgpu.extent %b[2] : !pgpu.view<f16, [G, K, N], in>
    %E = pgpu.binary max %G, %c1 : index
    pgpu.program_space(%E) {
    ^bb0(%pid: index):
      %in = pgpu.cmp lt %pid, %G : index
      pgpu.if %in {
        // expected-remark @+1 {{pgpu-form-tiles: tiled a contraction nest: TILE_1 (program axis 1), TILE_2 (program axis 2), TILE_K (reduction loop); 1 reduction(s) become pgpu.contract; grouped traversal GROUP_1; segment walk}}
        pgpu.execution_group %pid extents(%G) segment 0 roles ["g"] {
        ^bb0(%g: index):
          %g1 = pgpu.binary add %g, %c1 : index
          %lo0 = pgpu.range_reduce %g to %g1 identity(%c0 : index) -> (index) element {
          ^bb0(%i: index):
            %o = pgpu.load %offs[%i] valid %true : i1 fill %c0 : index : !pgpu.view<index, [G1], in>[index] -> index
            pgpu.yield %o : index
          } combine {
          ^bb0(%u: index, %v: index):
            %w = pgpu.binary max %u, %v : index
            pgpu.yield %w : index
          }
          %g2 = pgpu.binary add %g, %c2 : index
          %hi0 = pgpu.range_reduce %g1 to %g2 identity(%c0 : index) -> (index) element {
          ^bb0(%i: index):
            %o = pgpu.load %offs[%i] valid %true : i1 fill %c0 : index : !pgpu.view<index, [G1], in>[index] -> index
            pgpu.yield %o : index
          } combine {
          ^bb0(%u: index, %v: index):
            %w = pgpu.binary max %u, %v : index
            pgpu.yield %w : index
          }
          %lo = pgpu.binary min %lo0, %M : index
          %hi1 = pgpu.binary min %hi0, %M : index
          %d = pgpu.binary sub %hi1, %lo : index
          %rows = pgpu.binary max %d, %c0 : index
          pgpu.foreach %c0 to %rows {
          ^bb0(%r: index):
            pgpu.foreach %c0 to %N {
            ^bb0(%n: index):
              %s = pgpu.range_reduce %c0 to %K identity(%z : f32) -> (f32) element {
              ^bb0(%k: index):
                %row = pgpu.binary add %lo, %r : index
                %x = pgpu.load %a[%row, %k] valid %true : i1 fill %z16 : f16 : !pgpu.view<f16, [M, K], in>[index, index] -> f16
                %y = pgpu.load %b[%g, %k, %n] valid %true : i1 fill %z16 : f16 : !pgpu.view<f16, [G, K, N], in>[index, index, index] -> f16
                %xf = pgpu.cast %x : f16 to f32
                %yf = pgpu.cast %y : f16 to f32
                %p = pgpu.binary mul %xf, %yf : f32
                pgpu.yield %p : f32
              } combine {
              ^bb0(%u: f32, %v: f32):
                %w = pgpu.binary add %u, %v : f32
                pgpu.yield %w : f32
              }
              %row = pgpu.binary add %lo, %r : index
              pgpu.store %s, %c[%row, %n] valid %true : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
              pgpu.yield
            }
            pgpu.yield
          }
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.last_program %arg0 : !pgpu.buffer<i32, [1], workspace> {
        pgpu.foreach %c0 to %N {
        ^bb0(%n: index):
          pgpu.store %z, %c[%c0, %n] valid %true : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
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

// COM: The grouped GEMM as the DSL constructs it (rows[lo:hi] of T.domain(0, M)): both segment bounds
// COM: clamped to [0, M], so a segment has at most max(M - 0, 0) rows: the walk's programs are capped
// COM: by the tiles it can have, max(min(G * ceil(M / TILE_1) * ceil(N / TILE_2), PERSIST * 132), 1)
// COM: (a handful of programs at small shapes, PERSIST * 132 at large ones); the guard and the space
// COM: follow the capped count, which the walk's stride and deal use.
// CHECK-LABEL: pgpu.kernel @clamped
// CHECK: %[[M:.*]] = pgpu.extent %a[0]
// CHECK: %[[G:.*]] = pgpu.extent %b[0]
// CHECK: %[[PER:.*]] = pgpu.param "PERSIST" : index
// CHECK: %[[P:.*]] = pgpu.binary mul %[[PER]], %{{.*}} : index
// CHECK: %[[TN:.*]] = pgpu.ceil_div %{{.*}}, %{{.*}} : index
// CHECK: %[[ROWS:.*]] = pgpu.binary sub %[[M]], %{{.*}} : index
// CHECK: %[[NONNEG:.*]] = pgpu.binary max %[[ROWS]], %{{.*}} : index
// CHECK: %[[T1:.*]] = pgpu.param "TILE_1" : index
// CHECK: %[[TM:.*]] = pgpu.ceil_div %[[NONNEG]], %[[T1]] : index
// CHECK: %[[GT:.*]] = pgpu.binary mul %[[G]], %[[TM]] : index
// CHECK: %[[TILES:.*]] = pgpu.binary mul %[[GT]], %[[TN]] : index
// CHECK: %[[CAP:.*]] = pgpu.binary min %[[TILES]], %[[P]] : index
// CHECK: %[[Q:.*]] = pgpu.binary max %[[CAP]], %{{.*}} : index
// CHECK: pgpu.program_space(%[[Q]]) {
// CHECK-NEXT: ^bb0(%[[PID:.*]]: index):
// CHECK-NEXT: pgpu.cmp lt %[[PID]], %[[Q]] : index
// CHECK: pgpu.execution_group %[[PID]] extents(%[[Q]]) segment 0 roles ["segment walk"] {
// CHECK: pgpu.for %{{.*}} to %{{.*}} step %[[Q]] {
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", multiprocessors = 132>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @clamped(%a: !pgpu.view<f16, [M, K], in>, %b: !pgpu.view<f16, [G, K, N], in>, %offs: !pgpu.view<index, [G1], in>, %c: !pgpu.view<f32, [M, N], out>, %arg0: !pgpu.buffer<i32, [1], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"}) {
    %true = arith.constant true
    %z16 = arith.constant 0.0 : f16
    %z = arith.constant 0.0 : f32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %M = pgpu.extent %a[0] : !pgpu.view<f16, [M, K], in>
    %K = pgpu.extent %a[1] : !pgpu.view<f16, [M, K], in>
    %G = pgpu.extent %b[0] : !pgpu.view<f16, [G, K, N], in>
    %N = pgpu.extent %b[2] : !pgpu.view<f16, [G, K, N], in>
    %E = pgpu.binary max %G, %c1 : index
    pgpu.program_space(%E) {
    ^bb0(%pid: index):
      %in = pgpu.cmp lt %pid, %G : index
      pgpu.if %in {
        // expected-remark @+1 {{pgpu-form-tiles: tiled a contraction nest: TILE_1 (program axis 1), TILE_2 (program axis 2), TILE_K (reduction loop); 1 reduction(s) become pgpu.contract; grouped traversal GROUP_1; segment walk: the group's members in order, each segment's tiles (bounds read in the program) dealt round-robin to PERSIST programs per multiprocessor, at most the tiles the segments' launch-time bounds allow}}
        pgpu.execution_group %pid extents(%G) segment 0 roles ["g"] {
        ^bb0(%g: index):
          %g1 = pgpu.binary add %g, %c1 : index
          %lo0 = pgpu.range_reduce %g to %g1 identity(%c0 : index) -> (index) element {
          ^bb0(%i: index):
            %o = pgpu.load %offs[%i] valid %true : i1 fill %c0 : index : !pgpu.view<index, [G1], in>[index] -> index
            pgpu.yield %o : index
          } combine {
          ^bb0(%u: index, %v: index):
            %w = pgpu.binary max %u, %v : index
            pgpu.yield %w : index
          }
          %g2 = pgpu.binary add %g, %c2 : index
          %hi0 = pgpu.range_reduce %g1 to %g2 identity(%c0 : index) -> (index) element {
          ^bb0(%i: index):
            %o = pgpu.load %offs[%i] valid %true : i1 fill %c0 : index : !pgpu.view<index, [G1], in>[index] -> index
            pgpu.yield %o : index
          } combine {
          ^bb0(%u: index, %v: index):
            %w = pgpu.binary max %u, %v : index
            pgpu.yield %w : index
          }
          %lo1 = pgpu.binary min %lo0, %M : index
          %lo = pgpu.binary max %lo1, %c0 : index
          %hi1 = pgpu.binary min %hi0, %M : index
          %d = pgpu.binary sub %hi1, %lo : index
          %rows = pgpu.binary max %d, %c0 : index
          pgpu.foreach %c0 to %rows {
          ^bb0(%r: index):
            pgpu.foreach %c0 to %N {
            ^bb0(%n: index):
              %s = pgpu.range_reduce %c0 to %K identity(%z : f32) -> (f32) element {
              ^bb0(%k: index):
                %row = pgpu.binary add %lo, %r : index
                %x = pgpu.load %a[%row, %k] valid %true : i1 fill %z16 : f16 : !pgpu.view<f16, [M, K], in>[index, index] -> f16
                %y = pgpu.load %b[%g, %k, %n] valid %true : i1 fill %z16 : f16 : !pgpu.view<f16, [G, K, N], in>[index, index, index] -> f16
                %xf = pgpu.cast %x : f16 to f32
                %yf = pgpu.cast %y : f16 to f32
                %p = pgpu.binary mul %xf, %yf : f32
                pgpu.yield %p : f32
              } combine {
              ^bb0(%u: f32, %v: f32):
                %w = pgpu.binary add %u, %v : f32
                pgpu.yield %w : f32
              }
              %row = pgpu.binary add %lo, %r : index
              pgpu.store %s, %c[%row, %n] valid %true : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
              pgpu.yield
            }
            pgpu.yield
          }
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.last_program %arg0 : !pgpu.buffer<i32, [1], workspace> {
        pgpu.foreach %c0 to %N {
        ^bb0(%n: index):
          pgpu.store %z, %c[%c0, %n] valid %true : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
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

// COM: The segment bounds read by a reduction (the example's max over OFFS[0:g]) and a load, a
// COM: segment starting at its read lower bound: both cloned as they are into the walk, before the
// COM: segment's tiles, whose first row is the lower bound.
// CHECK-LABEL: pgpu.kernel @reduced
// CHECK: pgpu.execution_group %{{.*}} roles ["segment walk"]
// CHECK: pgpu.for
// CHECK-NEXT: ^bb0(%[[GRP:.*]]: index, %{{.*}}: index):
// CHECK-NEXT: pgpu.range_reduce %{{.*}} to %[[GRP]] identity
// CHECK: pgpu.load %offs
// CHECK: pgpu.for
// CHECK: pgpu.contract
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", multiprocessors = 132>} {
  pgpu.kernel @reduced(%a: !pgpu.view<f16, [M, K], in>, %b: !pgpu.view<f16, [G, K, N], in>, %offs: !pgpu.view<index, [G], in>, %c: !pgpu.view<f32, [M, N], out>) {
    %true = arith.constant true
    %z16 = arith.constant 0.0 : f16
    %z = arith.constant 0.0 : f32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %M = pgpu.extent %a[0] : !pgpu.view<f16, [M, K], in>
    %K = pgpu.extent %a[1] : !pgpu.view<f16, [M, K], in>
    %G = pgpu.extent %b[0] : !pgpu.view<f16, [G, K, N], in>
    %N = pgpu.extent %b[2] : !pgpu.view<f16, [G, K, N], in>
    pgpu.program_space(%G) {
    ^bb0(%pid: index):
      pgpu.execution_group %pid extents(%G) segment 0 roles ["g"] {
      ^bb0(%g: index):
        %lo = pgpu.range_reduce %c0 to %g identity(%c0 : index) -> (index) element {
        ^bb0(%i: index):
          %o = pgpu.load %offs[%i] valid %true : i1 fill %c0 : index : !pgpu.view<index, [G], in>[index] -> index
          pgpu.yield %o : index
        } combine {
        ^bb0(%u: index, %v: index):
          %w = pgpu.binary max %u, %v : index
          pgpu.yield %w : index
        }
        %g1 = pgpu.binary add %g, %c1 : index
        %hi0 = pgpu.range_reduce %g to %g1 identity(%c0 : index) -> (index) element {
        ^bb0(%i: index):
          %o = pgpu.load %offs[%i] valid %true : i1 fill %c0 : index : !pgpu.view<index, [G], in>[index] -> index
          pgpu.yield %o : index
        } combine {
        ^bb0(%u: index, %v: index):
          %w = pgpu.binary max %u, %v : index
          pgpu.yield %w : index
        }
        %hi1 = pgpu.binary max %hi0, %lo : index
        %hi = pgpu.binary min %hi1, %M : index
        pgpu.foreach %lo to %hi {
        ^bb0(%row: index):
          pgpu.foreach %c0 to %N {
          ^bb0(%n: index):
            %s = pgpu.range_reduce %c0 to %K identity(%z : f32) -> (f32) element {
            ^bb0(%k: index):
              %x = pgpu.load %a[%row, %k] valid %true : i1 fill %z16 : f16 : !pgpu.view<f16, [M, K], in>[index, index] -> f16
              %y = pgpu.load %b[%g, %k, %n] valid %true : i1 fill %z16 : f16 : !pgpu.view<f16, [G, K, N], in>[index, index, index] -> f16
              %xf = pgpu.cast %x : f16 to f32
              %yf = pgpu.cast %y : f16 to f32
              %p = pgpu.binary mul %xf, %yf : f32
              pgpu.yield %p : f32
            } combine {
            ^bb0(%u: f32, %v: f32):
              %w = pgpu.binary add %u, %v : f32
              pgpu.yield %w : f32
            }
            pgpu.store %s, %c[%row, %n] valid %true : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
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

// COM: Must not fire, and says why truly: a row normalization (155's spelling: the row's sum of |x|,
// COM: then a loop over the row dividing by it). The loop follows a reduction, but its bounds are
// COM: launch-time: nothing is read in the program to bound it, so the remark names no segment
// COM: (before: "a segment whose bounds are read in the program is walked only for a contraction").
// CHECK-LABEL: pgpu.kernel @row_normalize
// CHECK: pgpu.execution_group %{{.*}} extents(%{{.*}}) segment 0 roles ["axis0"]
// CHECK: pgpu.range_reduce
// CHECK: pgpu.foreach
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", multiprocessors = 132>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @row_normalize(%x: !pgpu.view<f32, [M, N], in>, %out: !pgpu.view<f32, [M, N], out>) {
    %true = arith.constant true
    %z = arith.constant 0.0 : f32
    %c0 = arith.constant 0 : index
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space(%M) {
    ^bb0(%pid: index):
      // expected-remark @+1 {{pgpu-form-tiles: not tiled: no contraction: a loop after per-row reads or reductions (a row statistic, then the row) is blocked along the row by pgpu-form-blocking}}
      pgpu.execution_group %pid extents(%M) segment 0 roles ["axis0"] {
      ^bb0(%r: index):
        %s = pgpu.range_reduce %c0 to %N identity(%z : f32) -> (f32) element {
        ^bb0(%n: index):
          %v = pgpu.load %x[%r, %n] valid %true : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
          %a = pgpu.unary abs %v : f32
          pgpu.yield %a : f32
        } combine {
        ^bb0(%u: f32, %w: f32):
          %t = pgpu.binary add %u, %w : f32
          pgpu.yield %t : f32
        }
        pgpu.foreach %c0 to %N {
        ^bb0(%n: index):
          %v = pgpu.load %x[%r, %n] valid %true : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
          %q = pgpu.binary div %v, %s : f32
          pgpu.store %q, %out[%r, %n] valid %true : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
          pgpu.yield
        }
        pgpu.yield
      } {roles = ["axis0"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: a segment read in the program with no contraction in it (a row copy): one
// COM: program per group still walks its rows.
// CHECK-LABEL: pgpu.kernel @copy
// CHECK: pgpu.execution_group %{{.*}} extents(%{{.*}}) segment 0 roles ["g"]
// CHECK: pgpu.foreach
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", multiprocessors = 132>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @copy(%x: !pgpu.view<f32, [M, N], in>, %offs: !pgpu.view<index, [G], in>, %y: !pgpu.view<f32, [M, N], out>) {
    %true = arith.constant true
    %z = arith.constant 0.0 : f32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    %G = pgpu.extent %offs[0] : !pgpu.view<index, [G], in>
    pgpu.program_space(%G) {
    ^bb0(%pid: index):
      // expected-remark @+1 {{pgpu-form-tiles: not tiled: a segment whose bounds are read in the program is walked only for a contraction}}
      pgpu.execution_group %pid extents(%G) segment 0 roles ["g"] {
      ^bb0(%g: index):
        %g1 = pgpu.binary add %g, %c1 : index
        %hi0 = pgpu.range_reduce %g to %g1 identity(%c0 : index) -> (index) element {
        ^bb0(%i: index):
          %o = pgpu.load %offs[%i] valid %true : i1 fill %c0 : index : !pgpu.view<index, [G], in>[index] -> index
          pgpu.yield %o : index
        } combine {
        ^bb0(%u: index, %v: index):
          %w = pgpu.binary max %u, %v : index
          pgpu.yield %w : index
        }
        %hi = pgpu.binary min %hi0, %M : index
        pgpu.foreach %c0 to %hi {
        ^bb0(%r: index):
          pgpu.foreach %c0 to %N {
          ^bb0(%n: index):
            %v = pgpu.load %x[%r, %n] valid %true : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
            pgpu.store %v, %y[%r, %n] valid %true : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
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

// COM: Must not fire: the segment walk needs the multiprocessor count (its grid is resident
// COM: programs); without it the group keeps its row workset.
// CHECK-LABEL: pgpu.kernel @nosms
// CHECK: pgpu.execution_group %{{.*}} extents(%{{.*}}) segment 0 roles ["g"]
// CHECK: pgpu.foreach
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @nosms(%a: !pgpu.view<f16, [M, K], in>, %b: !pgpu.view<f16, [G, K, N], in>, %offs: !pgpu.view<index, [G], in>, %c: !pgpu.view<f32, [M, N], out>) {
    %true = arith.constant true
    %z16 = arith.constant 0.0 : f16
    %z = arith.constant 0.0 : f32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %M = pgpu.extent %a[0] : !pgpu.view<f16, [M, K], in>
    %K = pgpu.extent %a[1] : !pgpu.view<f16, [M, K], in>
    %G = pgpu.extent %b[0] : !pgpu.view<f16, [G, K, N], in>
    %N = pgpu.extent %b[2] : !pgpu.view<f16, [G, K, N], in>
    pgpu.program_space(%G) {
    ^bb0(%pid: index):
      // expected-remark @+1 {{pgpu-form-tiles: not tiled: a segment walk needs the target's multiprocessor count}}
      pgpu.execution_group %pid extents(%G) segment 0 roles ["g"] {
      ^bb0(%g: index):
        %g1 = pgpu.binary add %g, %c1 : index
        %hi0 = pgpu.range_reduce %g to %g1 identity(%c0 : index) -> (index) element {
        ^bb0(%i: index):
          %o = pgpu.load %offs[%i] valid %true : i1 fill %c0 : index : !pgpu.view<index, [G], in>[index] -> index
          pgpu.yield %o : index
        } combine {
        ^bb0(%u: index, %v: index):
          %w = pgpu.binary max %u, %v : index
          pgpu.yield %w : index
        }
        %hi = pgpu.binary min %hi0, %M : index
        pgpu.foreach %c0 to %hi {
        ^bb0(%row: index):
          pgpu.foreach %c0 to %N {
          ^bb0(%n: index):
            %s = pgpu.range_reduce %c0 to %K identity(%z : f32) -> (f32) element {
            ^bb0(%k: index):
              %x = pgpu.load %a[%row, %k] valid %true : i1 fill %z16 : f16 : !pgpu.view<f16, [M, K], in>[index, index] -> f16
              %y = pgpu.load %b[%g, %k, %n] valid %true : i1 fill %z16 : f16 : !pgpu.view<f16, [G, K, N], in>[index, index, index] -> f16
              %xf = pgpu.cast %x : f16 to f32
              %yf = pgpu.cast %y : f16 to f32
              %p = pgpu.binary mul %xf, %yf : f32
              pgpu.yield %p : f32
            } combine {
            ^bb0(%u: f32, %v: f32):
              %w = pgpu.binary add %u, %v : f32
              pgpu.yield %w : f32
            }
            pgpu.store %s, %c[%row, %n] valid %true : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
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
