// RUN: tessel-opt %s -split-input-file -pgpu-form-tiles | FileCheck %s

// COM: Issue 41. Orientation with per-member reads: a read whose coordinates span one program axis
// COM: (a per-channel scale s[c]) has no runs to coalesce beyond that axis's members, so it does not
// COM: make its axis a tile's contiguous axis. Before, s[c] counted as walking c and the planes were
// COM: tiled over (c, w) (corpus 102_depthwise_conv2d_b flattened: 0.137 -> 0.536 ms on the H100);
// COM: now every access spanning several axes walks w, and one-axis blocking serves them (must not fire).
// CHECK-LABEL: pgpu.kernel @scaled_planes
// CHECK-NOT: TILE_
// CHECK: pgpu.load %s[%{{.*}}] valid %{{.*}} : i1
// CHECK: pgpu.load %x[%{{.*}}, %{{.*}}, %{{.*}}] valid %{{.*}} : i1
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @scaled_planes(%x: !pgpu.view<f32, [C, H, W], in>, %s: !pgpu.view<f32, [C], in>,
                             %y: !pgpu.view<f32, [C, H, W], out>) {
    %f0 = arith.constant 0.0 : f32
    %true = arith.constant true
    %C = pgpu.extent %x[0] : !pgpu.view<f32, [C, H, W], in>
    %H = pgpu.extent %x[1] : !pgpu.view<f32, [C, H, W], in>
    %W = pgpu.extent %x[2] : !pgpu.view<f32, [C, H, W], in>
    %CH = pgpu.binary mul %C, %H : index
    %CHW = pgpu.binary mul %CH, %W : index
    pgpu.program_space(%CHW) {
    ^bb0(%pid: index):
      pgpu.execution_group %pid extents(%C, %H, %W) segment 0 roles ["axis0", "axis1", "axis2"] {
      ^bb0(%c: index, %h: index, %w: index):
        %k = pgpu.load %s[%c] valid %true : i1 fill %f0 : f32 : !pgpu.view<f32, [C], in>[index] -> f32
        %v = pgpu.load %x[%c, %h, %w] valid %true : i1 fill %f0 : f32 : !pgpu.view<f32, [C, H, W], in>[index, index, index] -> f32
        %p = pgpu.binary mul %v, %k : f32
        pgpu.store %p, %y[%c, %h, %w] valid %true : i1 : f32, !pgpu.view<f32, [C, H, W], out>[index, index, index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Fires: the per-member read's axis i is the row axis (the next-to-innermost coordinate) of the
// COM: accesses that walk j, so an (i, j) tile is their row-major tile, contiguous along j, and reads
// COM: the per-row index once per row of the tile (a gather's index list, corpus 181_moe_permute and
// COM: examples/embedding keep their tiles).
// CHECK-LABEL: pgpu.kernel @gather_rows
// CHECK-SAME: #pgpu.param<"TILE_0", [16, 32, 64, 128], 64>, #pgpu.param<"TILE_1", [16, 32, 64, 128], 64>
// CHECK: pgpu.load %idx[%{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [TILE_0]>
// CHECK: pgpu.store %{{.*}}, %y[%{{.*}}, %{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [TILE_0, TILE_1]>
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @gather_rows(%x: !pgpu.view<f32, [V, N], in>, %idx: !pgpu.view<i32, [M], in>,
                           %y: !pgpu.view<f32, [M, N], out>) {
    %f0 = arith.constant 0.0 : f32
    %z = arith.constant 0 : i32
    %true = arith.constant true
    %M = pgpu.extent %idx[0] : !pgpu.view<i32, [M], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [V, N], in>
    %MN = pgpu.binary mul %M, %N : index
    pgpu.program_space(%MN) {
    ^bb0(%pid: index):
      pgpu.execution_group %pid extents(%M, %N) segment 0 roles ["axis0", "axis1"] {
      ^bb0(%i: index, %j: index):
        %r32 = pgpu.load %idx[%i] valid %true : i1 fill %z : i32 : !pgpu.view<i32, [M], in>[index] -> i32
        %r = pgpu.cast %r32 : i32 to index
        %v = pgpu.gather %x[%r, %j] valid %true : i1 fill %f0 : f32 : !pgpu.view<f32, [V, N], in>[index, index] -> f32
        pgpu.store %v, %y[%i, %j] valid %true : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: a per-row length read on an outer axis b (out[b, t, d] walks d, its row axis is
// COM: t), only bounding the members (corpus 182_paged_int8_kv_dequant's seq_lens[b]): before, b
// COM: counted as walked and the rows were tiled over (b, d), rows a whole [T, D] block apart.
// CHECK-LABEL: pgpu.kernel @masked_rows
// CHECK-NOT: TILE_
// CHECK: pgpu.load %lens[%{{.*}}] valid %{{.*}} : i1
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @masked_rows(%x: !pgpu.view<f32, [B, T, D], in>, %lens: !pgpu.view<index, [B], in>,
                           %y: !pgpu.view<f32, [B, T, D], out>) {
    %f0 = arith.constant 0.0 : f32
    %c0 = arith.constant 0 : index
    %true = arith.constant true
    %B = pgpu.extent %x[0] : !pgpu.view<f32, [B, T, D], in>
    %T = pgpu.extent %x[1] : !pgpu.view<f32, [B, T, D], in>
    %D = pgpu.extent %x[2] : !pgpu.view<f32, [B, T, D], in>
    %BT = pgpu.binary mul %B, %T : index
    %BTD = pgpu.binary mul %BT, %D : index
    pgpu.program_space(%BTD) {
    ^bb0(%pid: index):
      pgpu.execution_group %pid extents(%B, %T, %D) segment 0 roles ["axis0", "axis1", "axis2"] {
      ^bb0(%b: index, %t: index, %d: index):
        %n = pgpu.load %lens[%b] valid %true : i1 fill %c0 : index : !pgpu.view<index, [B], in>[index] -> index
        %live = pgpu.cmp lt %t, %n : index
        %v = pgpu.load %x[%b, %t, %d] valid %live : i1 fill %f0 : f32 : !pgpu.view<f32, [B, T, D], in>[index, index, index] -> f32
        pgpu.store %v, %y[%b, %t, %d] valid %true : i1 : f32, !pgpu.view<f32, [B, T, D], out>[index, index, index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}
