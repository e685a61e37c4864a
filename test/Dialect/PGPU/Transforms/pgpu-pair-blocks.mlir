// RUN: tessel-opt %tessel_src/examples/kir/attention.mlir --tessel-pipeline=stop-after=narrow-fold-ranges | FileCheck %s --check-prefix=PAIR
// RUN: sed 's/CAUSAL = true/CAUSAL = false/' %tessel_src/examples/kir/attention.mlir > %t.full.mlir
// RUN: tessel-opt %t.full.mlir --tessel-pipeline=stop-after=narrow-fold-ranges | FileCheck %s --check-prefix=FULL
// RUN: tessel-opt %s -split-input-file -pgpu-pair-blocks | FileCheck %s --check-prefixes=FIRE,KEEP

// COM: Causal attention (examples/kir/attention.mlir): after pgpu-narrow-fold-ranges the key folds'
// COM: bounds depend on the query-block coordinate (axis2), so with PAIR_BLOCKS = 2 that axis has
// COM: ceil(N/2) programs (the program space with it) and a program runs its coordinate j, then
// COM: N - 1 - j when it differs, the body cloned with the coordinate remapped; PAIR_BLOCKS = 1 keeps
// COM: the original body (a launch fact).
// PAIR: #pgpu.param<"PAIR_BLOCKS", [1, 2], 1>
// PAIR: %[[P:.*]] = pgpu.param "PAIR_BLOCKS" : index
// PAIR: %[[ON:.*]] = pgpu.cmp ne %[[P]], %{{.*}} : index
// PAIR: %[[HALF:.*]] = pgpu.ceil_div %[[N:.*]], %{{.*}} : index
// PAIR: %[[E:.*]] = pgpu.select %[[ON]], %[[HALF]], %[[N]] : i1, index
// PAIR: pgpu.program_space(
// PAIR: pgpu.execution_group %{{.*}} extents(%{{.*}}, %{{.*}}, %[[E]], %{{.*}}) segment 0 roles ["axis0", "axis1", "axis2", "fold_split"]
// PAIR-NEXT: ^bb0(%{{.*}}: index, %{{.*}}: index, %[[J:.*]]: index, %{{.*}}: index):
// PAIR-NEXT: pgpu.if %[[ON]] {
// PAIR: pgpu.for %{{.*}} to %{{.*}} step %{{.*}} {
// PAIR-NEXT: ^bb0(%[[K:.*]]: index):
// PAIR: %[[TWOJ:.*]] = pgpu.binary mul %[[J]], %{{.*}} : index
// PAIR: %[[LAST:.*]] = pgpu.binary sub %[[N]], %{{.*}} : index
// PAIR: %[[SPAN:.*]] = pgpu.binary sub %[[LAST]], %[[TWOJ]] : index
// PAIR: %[[STEP:.*]] = pgpu.binary mul %[[K]], %[[SPAN]] : index
// PAIR: %[[C:.*]] = pgpu.binary add %[[J]], %[[STEP]] : index
// PAIR: %[[DIFF:.*]] = pgpu.cmp ne %[[C]], %[[J]] : index
// PAIR: %[[FIRST:.*]] = pgpu.cmp eq %[[K]], %{{.*}} : index
// PAIR: %[[GO:.*]] = pgpu.binary or %[[FIRST]], %[[DIFF]] : i1
// PAIR: pgpu.if %[[GO]] {
// PAIR: pgpu.region_fold
// PAIR: } else {
// PAIR: pgpu.region_fold

// COM: Must not fire: full attention's folds range over all keys in every program (no bound depends
// COM: on a coordinate), so nothing is paired and no parameter is declared.
// FULL-NOT: PAIR_BLOCKS
// FULL: pgpu.execution_group

// COM: A fold over each coordinate's prefix [0, i): its bound depends on the one coordinate, so the
// COM: axis is paired (N programs become ceil(N/2) when PAIR_BLOCKS = 2).
// FIRE-LABEL: pgpu.kernel @prefix_folds
// FIRE-SAME: #pgpu.param<"PAIR_BLOCKS", [1, 2], 1>
// FIRE: pgpu.ceil_div
// FIRE: pgpu.for
// FIRE: pgpu.region_fold %{{.*}} to %[[C:[0-9]+]] step
// FIRE: pgpu.store %{{.*}}, %o[%[[C]]]
// FIRE: } else {
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @prefix_folds(%x: !pgpu.view<f32, [N], in>, %o: !pgpu.view<f32, [N], out>) {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
    pgpu.program_space(%n) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%n) segment 0 roles ["axis0"] {
      ^bb0(%i: index):
        %s = pgpu.region_fold %c0 to %i step %c16 identity(%zero : f32) operands(%x : !pgpu.view<f32, [N], in>) -> (f32) summarize {
        ^bb0(%lo: index, %hi: index, %xv: !pgpu.view<f32, [N], in>):
          %v = pgpu.load %xv[%lo] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [N], in>[index] -> f32
          pgpu.yield %v : f32
        } combine {
        ^bb0(%a: f32, %b: f32):
          %c = pgpu.binary add %a, %b : f32
          pgpu.yield %c : f32
        }
        pgpu.store %s, %o[%i] valid %true : i1 : f32, !pgpu.view<f32, [N], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the program body reads the linear program index (beyond the group's decoding),
// COM: which pairing would change.
// KEEP-LABEL: pgpu.kernel @linear_read
// KEEP-NOT: PAIR_BLOCKS
// KEEP: pgpu.execution_group %{{.*}} extents(%[[N:.*]])
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @linear_read(%x: !pgpu.view<f32, [N], in>, %o: !pgpu.view<index, [N], out>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
    pgpu.program_space(%n) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%n) segment 0 roles ["axis0"] {
      ^bb0(%i: index):
        %s = pgpu.region_fold %c0 to %i step %c16 identity(%zero : f32) operands(%x : !pgpu.view<f32, [N], in>) -> (f32) summarize {
        ^bb0(%lo: index, %hi: index, %xv: !pgpu.view<f32, [N], in>):
          %v = pgpu.load %xv[%lo] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [N], in>[index] -> f32
          pgpu.yield %v : f32
        } combine {
        ^bb0(%a: f32, %b: f32):
          %c = pgpu.binary add %a, %b : f32
          pgpu.yield %c : f32
        }
        pgpu.store %p, %o[%i] valid %true : i1 : index, !pgpu.view<index, [N], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the fold's bound is a length read from memory at the coordinate (tree attention's
// COM: prefix_len[b] + N, a varlen row's length): lengths in no order along the axis, so pairing j with
// COM: N-1-j balances nothing and would only halve the programs.
// KEEP-LABEL: pgpu.kernel @loaded_lengths
// KEEP-NOT: PAIR_BLOCKS
// KEEP: pgpu.execution_group %{{.*}} extents(%[[N:.*]])
// KEEP-NOT: pgpu.ceil_div
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @loaded_lengths(%x: !pgpu.view<f32, [N], in>, %len: !pgpu.view<i32, [B], in>, %o: !pgpu.view<f32, [B], out>) {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %i0 = arith.constant 0 : i32
    %nb = pgpu.extent %len[0] : !pgpu.view<i32, [B], in>
    pgpu.program_space(%nb) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%nb) segment 0 roles ["axis0"] {
      ^bb0(%b: index):
        %l = pgpu.load %len[%b] valid %true : i1 fill %i0 : i32 : !pgpu.view<i32, [B], in>[index] -> i32
        %hi = pgpu.cast %l : i32 to index
        %s = pgpu.region_fold %c0 to %hi step %c16 identity(%zero : f32) operands(%x : !pgpu.view<f32, [N], in>) -> (f32) summarize {
        ^bb0(%lo: index, %up: index, %xv: !pgpu.view<f32, [N], in>):
          %v = pgpu.load %xv[%lo] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [N], in>[index] -> f32
          pgpu.yield %v : f32
        } combine {
        ^bb0(%a: f32, %c: f32):
          %d = pgpu.binary add %a, %c : f32
          pgpu.yield %d : f32
        }
        pgpu.store %s, %o[%b] valid %true : i1 : f32, !pgpu.view<f32, [B], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}
