// RUN: tessel compile %s --target=ptx --emit=device | FileCheck %s
// RUN: tessel compile %s --target=ptx | FileCheck %s --check-prefix=PTX
// RUN: tessel compile %s --target=ptx --emit=device --param VECTOR=1 | FileCheck %s --check-prefix=CYCLIC

// COM: The vector layout (PTX.h): a fragment of at least THREADS x VECTOR elements is held in
// COM: groups of VECTOR consecutive elements per thread. An access whose coordinates are affine
// COM: within groups is one vector access per group when, at run time, the group is wholly valid,
// COM: its address is aligned and the view's strides make it contiguous; otherwise element by element.

// CHECK-LABEL: gpu.func @copy_f32(
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: arith.muli %[[TID]], %c4 : index
// CHECK: %[[STEP:.*]] = arith.cmpi eq, %{{.*}}, %c1 : index
// CHECK: llvm.ptrtoint
// CHECK: arith.andi %{{.*}}, %c15_i64 : i64
// CHECK: scf.if %{{.*}} -> (f32, f32, f32, f32) {
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: } else {
// CHECK: llvm.load %{{.*}} : !llvm.ptr<1> -> f32
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// COM: Two groups per thread (1024 f32 on 128 threads): one check for the whole access, then both
// COM: groups as vector loads in straight line; the fallback reads each slot at its group's first
// COM: address plus the element step.
// CHECK-LABEL: gpu.func @two_groups(
// CHECK: scf.if %{{.*}} -> (f32, f32, f32, f32, f32, f32, f32, f32) {
// CHECK-NEXT: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-COUNT-4: llvm.extractelement
// CHECK-NEXT: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: } else {
// CHECK: llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK: llvm.load %{{.*}} : !llvm.ptr<1> -> f32
// CHECK-LABEL: gpu.func @copy_bf16(
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<8xbf16>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<1>

// COM: Must not fire: a strided coordinate (2 i), a gather through loaded indices (the indices
// COM: themselves and the store are contiguous), a fragment narrower than THREADS (cyclic layout),
// COM: and VECTOR=1. A fragment of THREADS x VECTOR / 2 elements gets half the width.
// CHECK-LABEL: gpu.func @strided(
// CHECK-NOT: vector<
// CHECK-LABEL: gpu.func @gathered(
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
// CHECK-NOT: -> vector<4xf32>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK-LABEL: gpu.func @halved(
// CHECK: llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<1> -> vector<2xf32>
// CHECK-LABEL: gpu.func @narrow(
// CHECK-NOT: vector<
// CHECK: gpu.return

// COM: A scalar is read by every thread (scalars are uniform), written by thread 0 only.
// CHECK-LABEL: gpu.func @scalar_read(
// CHECK-NOT: scf.if
// CHECK: llvm.load %{{.*}} : !llvm.ptr<1> -> f32
// CHECK: scf.if
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<1>

// PTX-LABEL: .entry copy_f32(
// PTX: ld.global.v4.{{[bf]}}32
// PTX: st.global.v4.{{[bf]}}32
// PTX-LABEL: .entry copy_bf16(
// PTX: ld.global.v4.b32
// PTX: st.global.v4.b32

// CYCLIC-NOT: vector<
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @copy_f32(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M, N], out>) {
    %m = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space (%m) {
    ^bb0(%row: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      %n = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
      %cols = pgpu.iota %c0 : !pgpu.fragment<index, [512]>
      %nb = pgpu.splat %n : index -> !pgpu.fragment<index, [512]>
      %ok = pgpu.cmp lt %cols, %nb : !pgpu.fragment<index, [512]>
      %v = pgpu.load %x[%row, %cols] valid %ok : !pgpu.fragment<i1, [512]> fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, !pgpu.fragment<index, [512]>] -> !pgpu.fragment<f32, [512]>
      pgpu.store %v, %y[%row, %cols] valid %ok : !pgpu.fragment<i1, [512]> : !pgpu.fragment<f32, [512]>, !pgpu.view<f32, [M, N], out>[index, !pgpu.fragment<index, [512]>]
      pgpu.yield
    }
    pgpu.return
  }
  pgpu.kernel @two_groups(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M, N], out>) {
    %m = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space (%m) {
    ^bb0(%row: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      %n = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
      %cols = pgpu.iota %c0 : !pgpu.fragment<index, [1024]>
      %nb = pgpu.splat %n : index -> !pgpu.fragment<index, [1024]>
      %ok = pgpu.cmp lt %cols, %nb : !pgpu.fragment<index, [1024]>
      %v = pgpu.load %x[%row, %cols] valid %ok : !pgpu.fragment<i1, [1024]> fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, !pgpu.fragment<index, [1024]>] -> !pgpu.fragment<f32, [1024]>
      pgpu.store %v, %y[%row, %cols] valid %ok : !pgpu.fragment<i1, [1024]> : !pgpu.fragment<f32, [1024]>, !pgpu.view<f32, [M, N], out>[index, !pgpu.fragment<index, [1024]>]
      pgpu.yield
    }
    pgpu.return
  }
  pgpu.kernel @copy_bf16(%x: !pgpu.view<bf16, [N], in>, %y: !pgpu.view<bf16, [N], out>) {
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : bf16
      %n = pgpu.extent %x[0] : !pgpu.view<bf16, [N], in>
      %cols = pgpu.iota %c0 : !pgpu.fragment<index, [1024]>
      %nb = pgpu.splat %n : index -> !pgpu.fragment<index, [1024]>
      %ok = pgpu.cmp lt %cols, %nb : !pgpu.fragment<index, [1024]>
      %v = pgpu.load %x[%cols] valid %ok : !pgpu.fragment<i1, [1024]> fill %z : bf16 : !pgpu.view<bf16, [N], in>[!pgpu.fragment<index, [1024]>] -> !pgpu.fragment<bf16, [1024]>
      pgpu.store %v, %y[%cols] valid %ok : !pgpu.fragment<i1, [1024]> : !pgpu.fragment<bf16, [1024]>, !pgpu.view<bf16, [N], out>[!pgpu.fragment<index, [1024]>]
      pgpu.yield
    }
    pgpu.return
  }
  pgpu.kernel @strided(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>) {
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      %z = arith.constant 0.0 : f32
      %t = arith.constant true
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [512]>
      %two = pgpu.splat %c2 : index -> !pgpu.fragment<index, [512]>
      %i2 = pgpu.binary mul %i, %two : !pgpu.fragment<index, [512]>
      %ok = pgpu.splat %t : i1 -> !pgpu.fragment<i1, [512]>
      %v = pgpu.load %x[%i2] valid %ok : !pgpu.fragment<i1, [512]> fill %z : f32 : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [512]>] -> !pgpu.fragment<f32, [512]>
      pgpu.store %v, %y[%i2] valid %ok : !pgpu.fragment<i1, [512]> : !pgpu.fragment<f32, [512]>, !pgpu.view<f32, [N], out>[!pgpu.fragment<index, [512]>]
      pgpu.yield
    }
    pgpu.return
  }
  pgpu.kernel @gathered(%idx: !pgpu.view<i32, [N], in>, %x: !pgpu.view<f32, [V], in>, %y: !pgpu.view<f32, [N], out>) {
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      %zi = arith.constant 0 : i32
      %t = arith.constant true
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [512]>
      %ok = pgpu.splat %t : i1 -> !pgpu.fragment<i1, [512]>
      %j = pgpu.load %idx[%i] valid %ok : !pgpu.fragment<i1, [512]> fill %zi : i32 : !pgpu.view<i32, [N], in>[!pgpu.fragment<index, [512]>] -> !pgpu.fragment<i32, [512]>
      %ji = pgpu.cast %j : !pgpu.fragment<i32, [512]> to !pgpu.fragment<index, [512]>
      %v = pgpu.gather %x[%ji] valid %ok : !pgpu.fragment<i1, [512]> fill %z : f32 : !pgpu.view<f32, [V], in>[!pgpu.fragment<index, [512]>] -> !pgpu.fragment<f32, [512]>
      pgpu.store %v, %y[%i] valid %ok : !pgpu.fragment<i1, [512]> : !pgpu.fragment<f32, [512]>, !pgpu.view<f32, [N], out>[!pgpu.fragment<index, [512]>]
      pgpu.yield
    }
    pgpu.return
  }
  pgpu.kernel @halved(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>) {
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      %t = arith.constant true
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [256]>
      %ok = pgpu.splat %t : i1 -> !pgpu.fragment<i1, [256]>
      %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [256]> fill %z : f32 : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [256]>] -> !pgpu.fragment<f32, [256]>
      pgpu.store %v, %y[%i] valid %ok : !pgpu.fragment<i1, [256]> : !pgpu.fragment<f32, [256]>, !pgpu.view<f32, [N], out>[!pgpu.fragment<index, [256]>]
      pgpu.yield
    }
    pgpu.return
  }
  pgpu.kernel @narrow(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>) {
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      %t = arith.constant true
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [64]>
      %ok = pgpu.splat %t : i1 -> !pgpu.fragment<i1, [64]>
      %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [64]> fill %z : f32 : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [64]>] -> !pgpu.fragment<f32, [64]>
      pgpu.store %v, %y[%i] valid %ok : !pgpu.fragment<i1, [64]> : !pgpu.fragment<f32, [64]>, !pgpu.view<f32, [N], out>[!pgpu.fragment<index, [64]>]
      pgpu.yield
    }
    pgpu.return
  }
  pgpu.kernel @scalar_read(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>) {
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      %t = arith.constant true
      %v = pgpu.load %x[%c0] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N], in>[index] -> f32
      pgpu.store %v, %y[%c0] valid %t : i1 : f32, !pgpu.view<f32, [N], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}
