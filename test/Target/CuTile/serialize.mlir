// What the cuTile serializer spells (seed 000 §12: program coordinates -> ct.bid, fragments -> tiles,
// accesses -> ct.load/ct.store at tile indices with padding from the fill, contract -> ct.mma), the
// wrapper's ABI checks (shared with the Triton wrapper), and that compiling twice gives the same bytes.

// RUN: tessel compile %tessel_src/examples/kir/softmax.mlir --target=cutile --emit=source --param BLOCK=1024 -o %t.softmax.py
// RUN: FileCheck %s --check-prefix=ROWS --input-file=%t.softmax.py
// RUN: tessel compile %tessel_src/examples/kir/softmax.mlir --target=cutile --emit=source --param BLOCK=1024 -o %t.again.py
// RUN: cmp %t.softmax.py %t.again.py
// ROWS: import cuda.tile as ct
// ROWS: def _check_view(name, t, dtype, extents, sizes, device, writes=False):
// ROWS: the generated cuTile
// ROWS: tessel kernels run on CUDA tensors")
// ROWS: def _check_scalar(
// ROWS: def _check_apart(*views):
// ROWS: def _softmax_combine{{[0-9]+}}([[A:v[0-9]+]], [[B:v[0-9]+]]):
// ROWS: [[M:v[0-9]+]] = ct.maximum([[A]], [[B]], propagate_nan=True)
// ROWS-NEXT: return [[M]]
// ROWS: softmax_PARAMS = {'BLOCK': ([64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384], 1024), 'OCCUPANCY': ([0, 1, 2, 4, 8], 0), 'NUM_CTAS': ([1, 2], 1), 'WORKER_WARPS': ([0, 4, 8], 0)}
// ROWS: softmax_ABI = [('view', 'float32', 2), ('view', 'float32', 2), ('guard', 'bool', ())]
// COM: Whether BLOCK covers the row is a launch fact: a Constant guard the wrapper evaluates, so cuTile
// COM: compiles the single-pass program or the blocked one, never both in one kernel.
// ROWS: @ct.kernel
// ROWS-NEXT: def _softmax_kernel(x, y, _G0: ct.Constant[bool]):
// ROWS: [[PID:v[0-9]+]] = ct.bid(0)
// ROWS: if _G0:
// COM: The staged row: one tile of the row at tile index (row, 0), padded with the load's fill (0.0).
// ROWS: [[ROW:v[0-9]+]] = ct.reshape(ct.load(x, index=([[R:v[0-9]+]], (0) // 1024), shape=(1, 1024), padding_mode=ct.PaddingMode.ZERO), (1024,))
// ROWS: ct.reduce({{v[0-9]+}}, 0, _softmax_combine{{[0-9]+}}, -float('inf'))
// ROWS: ct.exp(
// ROWS: ct.store(y, index=([[R]], (0) // 1024), tile=ct.reshape({{v[0-9]+}}, (1, 1024)))
// COM: The blocked rows: full blocks without padding (their lanes are all valid), the tail padded.
// ROWS: for [[K:v[0-9]+]] in range(0, {{v[0-9]+}}, {{v[0-9]+}}):
// ROWS: ct.load(x, index=([[R]], ([[K]]) // 1024), shape=(1, 1024)), (1024,))
// ROWS: def softmax(x, y, *, _indices=_CHECKED):
// ROWS: _check_view('x', x, torch.float32, ('M', 'N'), _extents, _device)
// ROWS: _check_view('y', y, torch.float32, ('M', 'N'), _extents, _device, writes=True)
// ROWS: _check_apart(('x', x, False), ('y', y, True), )
// ROWS: _grid = (
// ROWS: ct.launch(torch.cuda.current_stream(x.device), _grid, _softmax_kernel, (x, y, bool((((0 < max((-((-(x.shape[1])) // (1))), 0)) and ((max((-((-(x.shape[1])) // (1))), 0) - 0) <= 1024))))))

// COM: cuTile's launch hints are declared provider parameters; their bound values are spelled.
// RUN: tessel compile %tessel_src/examples/kir/softmax.mlir --target=cutile --emit=source --param OCCUPANCY=2 --param NUM_CTAS=2 --param WORKER_WARPS=8 | FileCheck %s --check-prefix=HINTS
// HINTS: @ct.kernel(occupancy=2, num_ctas=2, num_worker_warps=8)
// HINTS-NEXT: def _softmax_kernel(x, y, _G0: ct.Constant[bool]):
// COM: At their defaults the hints are left to cuTile (nothing spelled).
// RUN: tessel compile %tessel_src/examples/kir/softmax.mlir --target=cutile --emit=source | FileCheck %s --check-prefix=NOHINTS
// NOHINTS: {{^}}@ct.kernel{{$}}
// RUN: not tessel compile %tessel_src/examples/kir/softmax.mlir --target=cutile --emit=source --param WORKER_WARPS=2 2>&1 | FileCheck %s --check-prefix=WARPDOMAIN
// WARPDOMAIN: error: parameter 'WORKER_WARPS' = 2 is outside its candidate domain
// RUN: not tessel compile %tessel_src/examples/kir/softmax.mlir --target=cutile --emit=source --param OCCUPANCY=3 2>&1 | FileCheck %s --check-prefix=HINTDOMAIN
// HINTDOMAIN: error: parameter 'OCCUPANCY' = 3 is outside its candidate domain

// RUN: tessel compile %tessel_src/examples/kir/gemm.mlir --target=cutile --emit=source | FileCheck %s --check-prefix=GEMM
// COM: A persistent walk over 128x128 tiles: operand boxes at tile indices (start // extent), the
// COM: k loop carrying the f32 accumulator into ct.mma, one box store.
// GEMM: def _gemm_kernel(a, b, bias, c):
// GEMM: [[PID:v[0-9]+]] = ct.bid(0)
// GEMM: for {{v[0-9]+}} in range([[PID]], {{v[0-9]+}}, {{v[0-9]+}}):
// GEMM: [[ACC0:v[0-9]+]] = ct.full((128, 128), ct.full((), 0.000000e+00, ct.float32), ct.float32)
// GEMM: [[ACC:v[0-9]+]] = [[ACC0]]
// GEMM-NEXT: for [[K:v[0-9]+]] in range(0, {{v[0-9]+}}, {{v[0-9]+}}):
// GEMM: [[A:v[0-9]+]] = ct.load(a, index=(({{v[0-9]+}}) // 128, ([[K]]) // 64), shape=(128, 64), padding_mode=ct.PaddingMode.ZERO)
// GEMM: ct.load(b, index=(([[K]]) // 64, ({{v[0-9]+}}) // 128), shape=(64, 128), padding_mode=ct.PaddingMode.ZERO)
// GEMM: [[D:v[0-9]+]] = ct.mma([[A]], {{v[0-9]+}}, [[ACC]])
// GEMM-NEXT: [[ACC]] = [[D]]
// GEMM: ct.store(c, index=(({{v[0-9]+}}) // 128, ({{v[0-9]+}}) // 128), tile=[[ACC]])

// COM: Must not fire: a condition that depends on the program coordinate stays a run-time `if` (only
// COM: launch facts become guards). A launch fact one of whose branches contracts (ct.mma) while the
// COM: other computes without a contract is neither: tileiras 13.4 compiles such a contract-free branch
// COM: pathologically slowly (attention's element-wise branch for a head size past BLOCK_D: over 10
// COM: minutes alone, 25 s to over 300 s beside the tiled branch, about 7 s without it), so only the
// COM: contracting branch is spelled, in line, and the wrapper refuses a launch that would take the
// COM: other, before launching, naming the fact, the author's line and the bound parameters. Attention
// COM: has all three: the head size check (tiled only: refused past BLOCK_D), whether the head size is
// COM: exactly BLOCK_D (both branches contract: a guard), and the causal skip (program-dependent).
// RUN: tessel compile %tessel_src/examples/kir/attention.mlir --target=cutile --emit=source | FileCheck %s --check-prefix=GUARDS
// GUARDS: attention_ABI = [{{.*}}, ('scalar', 'float32'), ('guard', 'bool', ())]
// GUARDS: def _attention_kernel(Q, K, V, O, scale, _G0: ct.Constant[bool]):
// GUARDS-NOT: {{^    }}if v{{[0-9]+}}:
// GUARDS: {{^    }}if _G0:
// GUARDS: ct.mma(
// GUARDS: {{^    }}else:
// GUARDS: ct.mma(
// GUARDS: def attention(
// GUARDS: if not ((max((-((-(Q.shape[3])) // (1))), 0) <= 128)):
// GUARDS-NEXT: raise ValueError("attention: the cuTile provider compiles only the tiled branch of the launch fact at attention.mlir:{{[0-9]+}}; these arguments take its element-wise branch (not ((max((-((-(Q.shape[3])) // (1))), 0) <= 128))) under the bound parameters {{.*}}BLOCK_D=128{{.*}}: bind tiles that cover the extents, or use target='triton'")
// GUARDS: ct.launch({{.*}}, (Q, K, V, O, scale, bool(({{.*}}Q.shape[3]{{.*}} == 128))))
// RUN: tessel compile %tessel_src/examples/kir/gemm.mlir --target=cutile --emit=source | FileCheck %s --check-prefix=NOGUARD
// NOGUARD: def _gemm_kernel(a, b, bias, c):
// NOGUARD-NOT: _G0

// COM: A view that is read at data-dependent coordinates is a gather with the access's validity as
// COM: its mask and its fill as the padding value.
// RUN: tessel compile %tessel_src/examples/kir/embedding.mlir --target=cutile --emit=source | FileCheck %s --check-prefix=GATHER
// GATHER-NOT: ct.reshape(ct.gather(
// GATHER: {{v[0-9]+}} = ct.gather(table, ({{.*}}), mask={{v[0-9]+}}, padding_value=ct.full((), 0.000000e+00, ct.float32))
// GATHER-NOT: ct.reshape(ct.gather(

// COM: A 0-d gather (every coordinate a scalar) is a gather of one lane reshaped to 0-d: tileiras 13.4
// COM: crashes on a 0-d gather whose dtype a value carried through two reading loops shares, as the
// COM: label logit after cross_entropy's blocked max and sum.
// COM: Both branches, the single-pass one and the blocked one, spell it so.
// RUN: tessel compile %tessel_src/examples/kir/cross_entropy.mlir --target=cutile --emit=source --param BLOCK=256 | FileCheck %s --check-prefix=SCALAR
// SCALAR: if _G0:
// SCALAR: [[T:v[0-9]+]] = ct.reshape(ct.gather(target, (ct.full((1,), [[M:v[0-9]+]], ct.int32),), padding_value=ct.full((), 0, ct.int32)), ())
// SCALAR: [[C:v[0-9]+]] = ct.astype([[T]], ct.int32)
// SCALAR: ct.reshape(ct.gather(logits, (ct.full((1,), [[M]], ct.int32), ct.full((1,), [[C]], ct.int32)), padding_value=ct.full((), 0.000000e+00, ct.float32)), ())
// SCALAR: else:
// SCALAR: for {{v[0-9]+}} in range(
// SCALAR: for {{v[0-9]+}} in range(
// SCALAR: ct.reshape(ct.gather(logits, (ct.full((1,), [[M]], ct.int32), ct.full((1,), {{v[0-9]+}}, ct.int32)), padding_value=ct.full((), 0.000000e+00, ct.float32)), ())
// SCALAR-NOT: = ct.gather(

// COM: Rejected programs: located at the author's op, naming what cuTile cannot express; no file.
// RUN: not tessel compile %tessel_src/examples/fused_pointwise.py:fused_pointwise --target=cutile --emit=source -o %t.fused.py 2>&1 | FileCheck %s --check-prefix=TANH
// RUN: test ! -e %t.fused.py
// TANH: fused_pointwise.py:14:28: error: the cuTile provider cannot express 'pgpu.unary': 'tanh' has no cuTile function with a documented accuracy
// RUN: not tessel compile %tessel_src/examples/kir/softmax.mlir --target=cutile --emit=source --param BLOCK=4096 --param NOPE=1 2>&1 | FileCheck %s --check-prefix=PARAM
// PARAM: error: {{.*}}NOPE

// COM: Must not fire: a tile index needs validity to be exactly the view's bounds. A program that owns
// COM: BLOCK_P elements reads its full blocks as tiles (start a multiple of 512: the loop starts at
// COM: pid * BLOCK_P and steps by 512), but its tail is masked by the ownership bound min(start +
// COM: BLOCK_P, N), not by N: that access stays a masked gather.
// RUN: tessel compile %tessel_src/examples/kir/vector_add.mlir --target=cutile --emit=source | FileCheck %s --check-prefix=OWNED
// OWNED: for [[K:v[0-9]+]] in range(
// OWNED: ct.load(x, index=(([[K]]) // 512,), shape=(512,))
// OWNED: for [[T:v[0-9]+]] in range(
// OWNED-NEXT: [[I:v[0-9]+]] = ct.arange(512, dtype=ct.int32) + [[T]]
// OWNED: ct.gather(x, ([[I]],), mask={{v[0-9]+}}, padding_value=ct.full((), 0.000000e+00, ct.float32))
// OWNED: ct.scatter(z, ([[I]],), {{v[0-9]+}}, mask={{v[0-9]+}})

// COM: A box every program instance reads alike (its tile index independent of the program coordinate:
// COM: layernorm's weight and bias, in both branches) is read without TMA at SHARED_TMA = 0 (declared on
// COM: kernels that make such a load; the default), staged like the rest at 1. The row x, whose tile
// COM: index is the program's row, keeps TMA either way.
// RUN: tessel compile %tessel_src/examples/kir/layernorm.mlir --target=cutile --emit=source --param BLOCK=1024 | FileCheck %s --check-prefix=SHARED
// SHARED: 'WORKER_WARPS': ([0, 4, 8], 0), 'SHARED_TMA': ([0, 1], 0)}
// SHARED: if _G0:
// SHARED: ct.load(x, index=([[ROW:v[0-9]+]], (0) // 1024), shape=(1, 1024), padding_mode=ct.PaddingMode.ZERO), (1024,))
// SHARED: ct.load(w, index=((0) // 1024,), shape=(1024,), padding_mode=ct.PaddingMode.ZERO, allow_tma=False)
// SHARED: ct.load(bb, index=((0) // 1024,), shape=(1024,), padding_mode=ct.PaddingMode.ZERO, allow_tma=False)
// SHARED: else:
// SHARED: ct.load(x, index=([[ROW]], ({{v[0-9]+}}) // 1024), shape=(1, 1024)), (1024,))
// SHARED: ct.load(w, index=(({{v[0-9]+}}) // 1024,), shape=(1024,), allow_tma=False)
// RUN: tessel compile %tessel_src/examples/kir/layernorm.mlir --target=cutile --emit=source --param BLOCK=1024 --param SHARED_TMA=1 | FileCheck %s --check-prefix=STAGED
// STAGED: 'SHARED_TMA': ([0, 1], 1)}
// STAGED-NOT: allow_tma
// COM: Must not fire: no load of softmax or the GEMM is shared by every program (the GEMM's operand
// COM: tiles follow the program's output tile), so neither declares the parameter.
// RUN: tessel compile %tessel_src/examples/kir/softmax.mlir --target=cutile --emit=source | FileCheck %s --check-prefix=NOSHARED
// RUN: tessel compile %tessel_src/examples/kir/gemm.mlir --target=cutile --emit=source | FileCheck %s --check-prefix=NOSHARED
// NOSHARED-NOT: SHARED_TMA
// NOSHARED-NOT: allow_tma
