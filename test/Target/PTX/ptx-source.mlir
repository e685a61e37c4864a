// What the PTX provider emits, stage by stage: the selected device IR (gpu.func, one CTA per
// program instance, thread-cyclic fragments, guarded loads), the LLVM IR, and the PTX.

// RUN: tessel compile %tessel_src/examples/kir/vector_add.mlir --target=ptx --emit=device | FileCheck %s --check-prefix=DEVICE
// DEVICE: gpu.module @tessel_ptx
// DEVICE: gpu.func @vector_add(%{{.*}}: !llvm.ptr<1>, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: !llvm.ptr<1>, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: !llvm.ptr<1>, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: f32) kernel attributes {known_block_size = array<i32: 128, 1, 1>}
// DEVICE: gpu.thread_id x
// DEVICE: gpu.block_id x
// DEVICE: scf.if %{{.*}} -> (f32) {
// DEVICE: llvm.load %{{.*}} : !llvm.ptr<1> -> f32
// DEVICE: llvm.intr.maximum
// DEVICE: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<1>
// DEVICE: gpu.return

// RUN: tessel compile %tessel_src/examples/kir/vector_add.mlir --target=ptx --emit=llvm | FileCheck %s --check-prefix=LLVM
// LLVM: target triple = "nvptx64-nvidia-cuda"
// LLVM: define ptx_kernel void @vector_add(
// LLVM-NOT: declare {{.*}}@__nv

// RUN: tessel compile %tessel_src/examples/kir/vector_add.mlir --target=ptx | FileCheck %s --check-prefix=PTX
// PTX: .target sm_90
// PTX: .visible .entry vector_add(
// PTX: .maxntid 128, 1, 1
// PTX: ld.global
// PTX: max.NaN.f32
// PTX: st.global
// PTX-NOT: call

// COM: A row reduction: warp butterfly shuffles, then the warps' totals through shared memory.
// RUN: tessel compile %tessel_src/examples/kir/softmax.mlir --target=ptx | FileCheck %s --check-prefix=ROWS
// ROWS: .visible .entry softmax$g0(
// ROWS: .visible .entry softmax$g1(
// ROWS: .shared .align 16 .b8 softmax$g1_shared{{[0-9]+}}[16];
// ROWS: shfl.sync.bfly.b32
// ROWS: bar.sync
// ROWS: ex2.approx.f32
// ROWS: div.rn.f32
// ROWS-NOT: call

// COM: THREADS binds the CTA size; the warps' array follows it.
// RUN: tessel compile %tessel_src/examples/kir/softmax.mlir --target=ptx --param THREADS=256 | FileCheck %s --check-prefix=T256
// T256: .maxntid 256, 1, 1
// T256: .shared .align 16 .b8 softmax$g{{[01]}}_shared{{[0-9]+}}[32];

// COM: arg-reductions carry (value, position) through the same shuffles (64-bit positions as two words).
// RUN: tessel compile %tessel_src/examples/kir/argmax.mlir --target=ptx --emit=device | FileCheck %s --check-prefix=ARG
// ARG: gpu.func @argmax(
// ARG: gpu.shuffle {{ *}}xor %{{.*}} : f32
// ARG: gpu.shuffle {{ *}}xor %{{.*}} : i32
// ARG: arith.cmpf une
// ARG: gpu.barrier

// COM: Scans: a shuffle scan inside each warp in element order, the warps' totals through shared
// COM: memory, the carry from the slot before. (The pipeline spells the exclusive reverse kernel as a
// COM: forward scan over reversed coordinates, so it shuffles up as well.)
// RUN: tessel compile %tessel_src/examples/kir/cumsum.mlir --target=ptx --emit=device | FileCheck %s --check-prefix=SCAN
// SCAN-LABEL: gpu.func @cumsum(
// SCAN: gpu.shuffle {{ *}}up
// SCAN: gpu.barrier
// SCAN-LABEL: gpu.func @cumsum_exclusive_reverse(
// SCAN: gpu.shuffle {{ *}}up
// SCAN: gpu.barrier

// COM: Rank-2 fragments are flattened over the CTA; the tile's coordinates (iota broadcasts) are
// COM: recomputed where they are needed, so the transpose needs no shared memory or barrier.
// RUN: tessel compile %tessel_src/examples/kir/transpose.mlir --target=ptx --emit=device | FileCheck %s --check-prefix=MOVE
// MOVE-NOT: addr_space = 3
// MOVE-LABEL: gpu.func @transpose(
// MOVE-NOT: gpu.barrier
// MOVE: gpu.return

// COM: GEMM as plain FMA tiles: operands staged, one fma loop per accumulator element, widened
// COM: from f16; a 128x128 accumulator gets 512 threads by default.
// RUN: tessel compile %tessel_src/examples/kir/gemm.mlir --target=ptx --emit=device | FileCheck %s --check-prefix=FMA
// FMA: gpu.func @gemm({{.*}}known_block_size = array<i32: 512, 1, 1>
// FMA: scf.for
// FMA: arith.extf %{{.*}} : f16 to f32
// FMA: llvm.call_intrinsic "llvm.fma.f32"

// COM: scatter_reduce with an add combine: relaxed atomics. Blocked by refine-mapping and
// COM: form-blocking (each program owns BLOCK_P members), every thread adds its own slots (here in
// COM: the cyclic layout, VECTOR=1).
// RUN: tessel compile %tessel_src/examples/kir/embedding.mlir --target=ptx --emit=device --param VECTOR=1 | FileCheck %s --check-prefix=ATOM
// ATOM-LABEL: gpu.func @embedding_scatter_add(
// ATOM: %[[TID:.*]] = gpu.thread_id x
// ATOM: scf.for
// ATOM: arith.addi %{{.*}}, %[[TID]] : index
// ATOM: llvm.atomicrmw fadd %{{.*}}, %{{.*}} monotonic : !llvm.ptr<1>, f32

// COM: Blocked region folds (attention, constructed on fragments) run as loops over source tiles whose
// COM: carries start at the identities (`some` = false). The default tiles (128 lanes x 64 keys x 128)
// COM: stage more than the selector's shared-memory budget, so smaller tiles are bound.
// RUN: tessel compile %tessel_src/examples/kir/attention.mlir --target=ptx --emit=device --param=BLOCK_S=32 --param=BLOCK_T=32 --param=BLOCK_D=32 | FileCheck %s --check-prefix=FOLD
// FOLD-LABEL: gpu.func @attention$g0(
// FOLD: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c32 iter_args(%{{.*}} = %false{{.*}}) -> (i1

// COM: Compiling twice gives byte-identical PTX (shared-memory names and order are deterministic).
// RUN: tessel compile %tessel_src/examples/kir/attention.mlir --target=ptx --param=BLOCK_S=32 --param=BLOCK_T=32 --param=BLOCK_D=32 -o %t.a1.ptx
// RUN: tessel compile %tessel_src/examples/kir/attention.mlir --target=ptx --param=BLOCK_S=32 --param=BLOCK_T=32 --param=BLOCK_D=32 -o %t.a2.ptx
// RUN: cmp %t.a1.ptx %t.a2.ptx

// COM: THREADS's default follows the bound parameters: a 16384-wide row block gets 512 threads.
// RUN: tessel compile %tessel_src/examples/kir/softmax.mlir --target=ptx --param BLOCK=16384 | FileCheck %s --check-prefix=WIDE
// WIDE: .maxntid 512, 1, 1

// COM: --emit=wrapper: the Python module that holds the PTX and launches it through tessel's CUDA
// COM: runtime (tessel._ptx): ABI checks, the grid from the LaunchExprs, the words of PTX.h's ABI.
// RUN: tessel compile %tessel_src/examples/kir/vector_add.mlir --target=ptx --emit=wrapper | FileCheck %s --check-prefix=WRAP
// WRAP: from tessel import _ptx
// WRAP: _PTX = """
// WRAP: .visible .entry vector_add(
// WRAP: vector_add_PARAMS = {{{.*}}'THREADS': ([32, 64, 128, 256, 512, 1024], 128), 'VECTOR': ([1, 2, 4, 8], 4)}
// WRAP: def vector_add(x, y, z, *, scale, _indices=_CHECKED):
// WRAP: _check_view('z', z, torch.float32, ('N',), _extents, _device, writes=True)
// WRAP: _check_scalar('scale', scale, float,
// WRAP: _grid = 
// WRAP: _ptx.launch(_PTX, 'vector_add', _grid, 128, _device[0], [*_ptx.view(x), *_ptx.view(y), *_ptx.view(z), _ptx.scalar(scale, 'f32')])
// RUN: not tessel compile %tessel_src/examples/kir/vector_add.mlir --emit=wrapper 2>&1 | FileCheck %s --check-prefix=WRAPERR
// WRAPERR: --emit=wrapper is a stage of --target=ptx
