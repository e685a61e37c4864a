// RUN: tessel compile %tessel_src/examples/kir/gemm.mlir --target=triton --emit=source --param=TILE_0=64 --param=TILE_1=128 --param=TILE_K=32 | FileCheck %s
// RUN: tessel compile %tessel_src/examples/kir/gemm.mlir --target=triton --emit=source --param=TMA=0 | FileCheck %s --check-prefix=OFF
// RUN: tessel compile %tessel_src/examples/kir/layernorm.mlir --target=triton --emit=source | FileCheck %s --check-prefix=ROWS
// RUN: tessel compile %tessel_src/examples/kir/gemm.mlir --target=triton --emit=source | FileCheck %s --check-prefix=DECL
// RUN: tessel compile %tessel_src/examples/kir/gemm.mlir --target=triton --emit=source --param=FLATTEN=1 | FileCheck %s --check-prefix=FLAT
// RUN: tessel compile %tessel_src/examples/kir/gemm.mlir --target=triton --emit=source --param=FLATTEN=0 | FileCheck %s --check-prefix=UNFLAT
// RUN: tessel compile %tessel_src/examples/kir/attention.mlir --target=triton --emit=source --param=TMA=1 --param=GLUON=0 | FileCheck %s --check-prefix=ATTN
// RUN: tessel compile %tessel_src/examples/kir/attention.mlir --target=triton --emit=source --param=GLUON=0 | FileCheck %s --check-prefix=ATTNDEF
// RUN: tessel compile %tessel_src/examples/kir/transpose.mlir --target=triton --emit=source | FileCheck %s --check-prefix=ONCE
// RUN: tessel compile %tessel_src/examples/kir/gemm.mlir --target=triton --emit=source | FileCheck %s --check-prefix=CSTORE

// COM: Box accesses of the tiled GEMM (each coordinate start + arange along its own fragment axis,
// COM: validity exactly the view's bounds, zero fill) are spelled both ways under the provider switch
// COM: TMA (declared by legalization, 0/1, default 1): tensor descriptors the wrapper makes on the
// COM: host (kernel parameters), and the pointer spelling; the wrapper passes USE_TMA by TMA's
// COM: alignment rules, and the descriptors only when it is on.
// COM: FLATTEN defaults to 1 for sm_90 contraction tiles (TritonLegalize.cpp); 0 keeps the walk.
// DECL: gemm_PARAMS = {{.*}}'TMA': ([0, 1], 1), 'FLATTEN': ([0, 1], 1)}
// DECL: flatten=True
// UNFLAT-NOT: flatten=True

// COM: The persistent walk over tiles (a pgpu.for holding the execution group) is the loop the
// COM: provider switch FLATTEN flattens; the k loop inside it stays a plain range.
// FLAT: for [[WALK:v[0-9]+]] in tl.range({{.*}}, flatten=True):
// FLAT: for {{v[0-9]+}} in range(0,
// COM: _G0 is the constexpr of pgpu-split-contractions' branch on SPLIT_K (1: the unsplit loop).
// CHECK: def _gemm_kernel({{.*}}, USE_TMA: tl.constexpr, _desc0, _desc1, _desc2, _G0: tl.constexpr):
// CHECK-NEXT: # _desc0: a's [64, 32] boxes of shape [_extent_M, _extent_K], strides [a_stride0, a_stride1] (made on the host)
// CHECK-NEXT: # _desc1: b's [32, 128] boxes of shape [_extent_K, _extent_N], strides [b_stride0, b_stride1] (made on the host)
// CHECK: if USE_TMA:
// CHECK-NEXT: = _desc0.load([
// CHECK-NEXT: else:
// CHECK-NEXT: = tl.load(a +
// COM: The rhs tile is walked [n, k]: its box is the transpose of the descriptor's [k, n] block.
// CHECK: if USE_TMA:
// CHECK-NEXT: = tl.permute(_desc1.load([{{.*}}]), (1, 0))
// CHECK-NEXT: else:
// CHECK-NEXT: = tl.load(b +
// CHECK: _a{{[0-9]+}} = {{.*}}not _interpreting() and _arch(a) >= 9 and a.data_ptr() % 16 == 0 and a.stride(1) == 1 and a.stride(0) % 8 == 0 and b.data_ptr() % 16 == 0
// CHECK-NEXT: if _a{{[0-9]+}}:
// CHECK-NEXT: _tma_allocator()
// CHECK-NEXT: _a{{[0-9]+}} = _tdesc(a, [64, 32])
// CHECK-NEXT: _a{{[0-9]+}} = _tdesc(b, [32, 128])

// COM: Must not fire: TMA = 0 binds the switch off; rows are 1-d fragments (no box).
// OFF-NOT: (made on the host)
// OFF-NOT: USE_TMA
// ROWS-NOT: (made on the host)
// ROWS-NOT: FLATTEN

// COM: A box of a rank-4 view (attention's [B, H, T, D] keys): batch and head are scalar coordinates,
// COM: one element wide in the descriptor's block; the load's box is reshaped to the fragment. The
// COM: wrapper checks TMA's rules on every stride.
// COM: Only the boxes walked in a loop over the keys (K, V) get descriptors: the query tile and the
// COM: output tile are one box per program (outside every loop, or in the constant two-iteration
// COM: loop over a program's paired query blocks) and keep the pointer spelling (TileAccess.h:
// COM: keepsPointerSpelling), so no program makes their descriptors.
// ATTN-NOT: _desc{{[0-9]+}}: Q's
// ATTN-NOT: _desc{{[0-9]+}}: O's
// ATTN: # [[KD:_desc[0-9]+]]: K's [1, 1, 64, 128] boxes of shape [_extent_B, _extent_H, _extent_T, _extent_D], strides [K_stride0, K_stride1, K_stride2, K_stride3] (made on the host)
// ATTN-NEXT: # [[VD:_desc[0-9]+]]: V's {{.*}} (made on the host)
// ATTN-NOT: (made on the host)
// ATTN: for [[PAIR:v[0-9]+]] in range(0, 2, 1):
// ATTN-NOT: USE_TMA
// ATTN: = tl.load(Q + {{.*}}, mask=
// ATTN: for [[KEY:v[0-9]+]] in range({{v[0-9]+}}, {{v[0-9]+}}, {{v[0-9]+}}):
// ATTN: if USE_TMA:
// ATTN-NEXT: = tl.reshape([[KD]].load([{{v[0-9]+}}, {{v[0-9]+}}, [[KEY]], 0]), [64, 128])
// ATTN: if USE_TMA:
// ATTN-NEXT: = tl.reshape([[VD]].load([{{v[0-9]+}}, {{v[0-9]+}}, [[KEY]], 0]), [64, 128])
// ATTN-NOT: {{_desc[0-9]+}}.store(
// ATTN: tl.store(O + {{.*}}, mask=
// COM: Must not fire: declared off by default for boxes with fixed axes (measured slower on the H200;
// COM: attention has no free accumulator tile, which takes them on: launch-defaults.mlir GROW): the default
// COM: source is the pointer spelling alone.
// ATTNDEF: 'TMA': ([0, 1], 0)
// ATTNDEF-NOT: (made on the host)
// COM: The diagonal interval's key and value tiles are boxes too: pgpu-narrow-fold-ranges bounds a mixed
// COM: interval's tail mask by the key range (the view's extent), not the interval's end (box-subrange.mlir:
// COM: a tile masked inside the view stays a pointer load).
// ATTN: for [[DIAG:v[0-9]+]] in range(
// ATTN: if USE_TMA:
// ATTN-NEXT: = tl.reshape([[KD]].load([{{v[0-9]+}}, {{v[0-9]+}}, [[DIAG]], 0]), [64, 128])
// ATTN: if USE_TMA:
// ATTN-NEXT: = tl.reshape([[VD]].load([{{v[0-9]+}}, {{v[0-9]+}}, [[DIAG]], 0]), [64, 128])
// COM: The wrapper checks TMA's rules on the described views only (the query and output tiles are
// COM: pointer accesses whatever their alignment).
// ATTN: not _interpreting() and _arch(K) >= 9 and K.data_ptr() % 16 == 0 and K.stride(3) == 1 and K.stride(0) % 8 == 0 and K.stride(1) % 8 == 0 and K.stride(2) % 8 == 0 and V.data_ptr() % 16 == 0 and V.stride(3) == 1 and V.stride(0) % 8 == 0 and V.stride(1) % 8 == 0 and V.stride(2) % 8 == 0,

// COM: Must not fire: a kernel whose boxes are all one per program (transpose's load and store) keeps
// COM: their descriptors: nothing in it is walked, so the TMA switch decides there as tuned.
// ONCE: # _desc0:
// ONCE-NEXT: # _desc1:
// ONCE: tl.permute(_desc0.load(
// ONCE: _desc1.store(
// COM: Must not fire: the GEMM's output tile is stored in the loop over its tiles (a persistent walk
// COM: of launch-time length) and keeps its descriptor beside the operand tiles'.
// CSTORE: # _desc2: c's
// CSTORE: for {{v[0-9]+}} in tl.range(
// CSTORE: _desc2.store(
