// RUN: tessel compile %tessel_src/bench/corpus/83_bias_grad_colsum.py:bias_grad_colsum --target=triton --emit=source | FileCheck %s --check-prefix=FOLD
// RUN: tessel compile %tessel_src/bench/corpus/83_bias_grad_colsum.py:bias_grad_colsum --target=triton --emit=source --param=LOOP_STAGES=1 | FileCheck %s --check-prefix=ONE
// RUN: tessel compile %tessel_src/bench/corpus/83_bias_grad_colsum.py:bias_grad_colsum --target=triton --emit=source --param=LOOP_STAGES=4 | FileCheck %s --check-prefix=DEEP
// RUN: tessel compile %tessel_src/bench/corpus/97_mse_loss_grad.py:mse_loss_grad --target=triton --emit=source | FileCheck %s --check-prefix=SPLIT
// RUN: tessel compile %tessel_src/examples/kir/layernorm.mlir --target=triton --emit=source --param=STAGES=5 | FileCheck %s --check-prefix=ROWS
// RUN: tessel compile %tessel_src/examples/kir/gemm.mlir --target=triton --emit=source | FileCheck %s --check-prefix=GEMM
// RUN: tessel compile %tessel_src/examples/kir/vector_add.mlir --target=triton --emit=source | FileCheck %s --check-prefix=NONE
// RUN: tessel compile %tessel_src/bench/corpus/53_batchnorm_stats.py:batchnorm_stats --target=triton --emit=source --remarks 2>&1 | FileCheck %s --check-prefix=LANES
// RUN: tessel compile %tessel_src/bench/corpus/53_batchnorm_stats.py:batchnorm_stats --target=triton --emit=source --param=LOOP_STAGES=3 | FileCheck %s --check-prefix=LANES3

// COM: A loop that walks a range in steps carrying a reduction's value, whose loads do not read the
// COM: carries (Triton.h, pipelinesWalk), is spelled tl.range(..., num_stages=LOOP_STAGES): Triton's
// COM: pipeliner reaches loads that feed no tl.dot only so. Before: `for v48 in range(v44, v46, v28):`, the
// COM: column fold of corpus 83 loading one [BLOCK_R, BLOCK_C] tile, waiting for it, adding it, then loading
// COM: the next. Both halves of a narrowed walk (full tiles, then the masked tail) are pipelined, through
// COM: pointers and through the TMA spelling alike. LOOP_STAGES is a declared Triton parameter (default 3)
// COM: and the resource model counts LOOP_STAGES - 1 shared-memory buffers of each tile the walk loads.
// FOLD: bias_grad_colsum_PARAMS = {{.*}}'LOOP_STAGES': ([1, 2, 3, 4], 3)}
// FOLD: def bias_grad_colsum_PRUNE(p):
// FOLD-NEXT: """
// FOLD-NEXT: if {{.*}}2 * p['BLOCK_R'] * p['BLOCK_C'] * p['LOOP_STAGES'] + -2 * p['BLOCK_R'] * p['BLOCK_C']
// COM: The walks' buffers alone, which a call's default keeps within 32 KiB (python/tessel/_kernel.py).
// FOLD: def bias_grad_colsum_LOOP_BUFFERS(p):
// FOLD-NEXT: """
// FOLD-NEXT: return 2 * p['BLOCK_R'] * p['BLOCK_C'] * p['LOOP_STAGES'] + -2 * p['BLOCK_R'] * p['BLOCK_C']
// FOLD: def _bias_grad_colsum_kernel(
// FOLD: for [[FULL:v[0-9]+]] in tl.range({{v[0-9]+}}, {{v[0-9]+}}, {{v[0-9]+}}, num_stages=3):
// FOLD: v{{[0-9]+}} = _desc0.load([[[FULL]], v{{[0-9]+}}])
// FOLD-NEXT: else:
// FOLD-NEXT: v{{[0-9]+}} = tl.load(dy + {{.*}}
// FOLD: for [[TAIL:v[0-9]+]] in tl.range({{v[0-9]+}}, {{v[0-9]+}}, {{v[0-9]+}}, num_stages=3):
// FOLD: tl.load(dy + {{.*}}
// COM: Must not fire: the finalization's combine of the programs' partials (buffer loads in
// COM: pgpu.last_program, read after the ticket) keeps `range`.
// FOLD: _arrived{{[0-9]+}} = tl.atomic_add(
// FOLD: for {{v[0-9]+}} in range(0, {{v[0-9]+}}, 1):
// FOLD: cache_modifier='.cg'
// FOLD: _bias_grad_colsum_plans

// COM: LOOP_STAGES = 1 spells every walk `range`, as before the parameter existed.
// ONE: def _bias_grad_colsum_kernel(
// ONE-NOT: num_stages={{[0-9]+}}):
// ONE: for {{v[0-9]+}} in range({{v[0-9]+}}, {{v[0-9]+}}, {{v[0-9]+}}):
// ONE-NOT: num_stages={{[0-9]+}}):
// ONE: _bias_grad_colsum_plans
// DEEP: for {{v[0-9]+}} in tl.range({{v[0-9]+}}, {{v[0-9]+}}, {{v[0-9]+}}, num_stages=4):

// COM: A kernel-level sum beside the element-wise gradient over the same range (pgpu-fold-in-walks): each
// COM: program's walk loads pred and target once, stores the gradient and accumulates its partial sum,
// COM: pipelined; the finalization's combine over the programs' partials keeps `range`.
// SPLIT: mse_loss_grad_PARAMS = {{.*}}'LOOP_STAGES': ([1, 2, 3, 4], 3)}
// SPLIT: if 4 * p['BLOCK'] * p['LOOP_STAGES'] + -4 * p['BLOCK'] + 4 * p['BLOCK'] * p['LOOP_STAGES'] + -4 * p['BLOCK'] > 232448:
// SPLIT: def _mse_loss_grad_kernel(
// SPLIT: for [[W:v[0-9]+]] in tl.range({{v[0-9]+}}, {{v[0-9]+}}, {{v[0-9]+}}, num_stages=3):
// SPLIT: tl.load(pred + {{.*}}
// SPLIT: tl.store(grad + {{.*}}
// SPLIT: for {{v[0-9]+}} in range(0, {{v[0-9]+}}, 1024):
// SPLIT: _mse_loss_grad_plans

// COM: A long row walked a block at a time (the staged row path's else-branch): its reduction walks take
// COM: LOOP_STAGES, not the launch's STAGES; the normalizing walk that stores and carries nothing keeps `range`.
// ROWS: def _layernorm_kernel(
// ROWS-NOT: num_stages=5):
// ROWS: in tl.range({{.*}}, num_stages=3):
// ROWS-NOT: num_stages=5):
// ROWS: tl.sum(
// ROWS-NOT: num_stages=5):
// ROWS: in range(0, {{v[0-9]+}}, {{v[0-9]+}}):
// ROWS-NOT: num_stages=5):
// ROWS: tl.store(
// ROWS: _layernorm_plans

// COM: Must not fire: a GEMM's K loop (its loads feed tl.dot: the launch's num_stages pipelines them)
// COM: declares no LOOP_STAGES; nor does a kernel without loops.
// GEMM-NOT: LOOP_
// GEMM: tl.dot(
// GEMM-NOT: LOOP_STAGES
// NONE-NOT: LOOP_STAGES
// NONE: def _vector_add_kernel(
// NONE-NOT: tl.range(
// NONE: _vector_add_plans

// COM: A walk that addresses its lanes through carried lane divisions (Resources.h readsDividedLanes:
// COM: pgpu-form-blocking's j / P, j / P + 1, j % P of corpus 53's flattened N x H x W walk) declares
// COM: LOOP_STAGES with default 1: its pointers are not contiguous, so Triton's pipeline would copy its
// COM: loads a lane at a time and hold each stage's lane pointers in registers (112 / 165 / 201 registers
// COM: a thread at 1 / 2 / 3 stages for BLOCK 1024 at 4 warps, sm_90a ptxas). Before: default 3, every
// COM: walk `tl.range(..., num_stages=3)`. The candidates stay for the tuner (LANES3).
// LANES: remark: triton: LOOP_STAGES defaults to 1: this walk addresses its lanes through carried lane divisions
// LANES: batchnorm_stats_PARAMS = {{.*}}'LOOP_STAGES': ([1, 2, 3, 4], 1)}
// LANES: def _batchnorm_stats_kernel(
// LANES-NOT: num_stages={{[0-9]+}}):
// LANES: for {{v[0-9]+}} in range({{v[0-9]+}}, {{v[0-9]+}}, {{v[0-9]+}}):
// LANES-NOT: num_stages={{[0-9]+}}):
// LANES: _batchnorm_stats_plans
// LANES3: def _batchnorm_stats_kernel(
// LANES3: for {{v[0-9]+}} in tl.range({{v[0-9]+}}, {{v[0-9]+}}, {{v[0-9]+}}, num_stages=3):
