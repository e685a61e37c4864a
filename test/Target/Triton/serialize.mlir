// The Triton provider spells the pipeline's pgpu: one kernel parameter per shape symbol (views that
// share a symbol share it; the wrapper checks they agree), strides per view, the declared search space
// as <kernel>_PARAMS, bound parameters as literals, and a wrapper that checks the ABI before launching.
// The launch configuration is declared too (WARPS, STAGES: Triton provider parameters that
// pgpu-triton-legalize adds), so the wrapper launches with their bound values.
// RUN: tessel compile %tessel_src/examples/kir/layernorm.mlir --emit=source --target=triton -o %t.default.py
// RUN: FileCheck %s --check-prefixes=CHECK,DEFAULT --input-file=%t.default.py
// RUN: tessel compile %tessel_src/examples/kir/layernorm.mlir --emit=source --target=triton --param BLOCK=128 -o %t.128.py
// RUN: FileCheck %s --check-prefixes=CHECK,TUNED --input-file=%t.128.py
// RUN: tessel compile %tessel_src/examples/kir/layernorm.mlir --emit=source --target=triton --param WARPS=8 -o %t.warps8.py
// RUN: FileCheck %s --check-prefixes=CHECK,WARPS8 --input-file=%t.warps8.py
// Deterministic: the same input compiles to the same bytes.
// RUN: tessel compile %tessel_src/examples/kir/layernorm.mlir --emit=source --target=triton -o %t.again.py
// RUN: cmp %t.default.py %t.again.py
// A value outside the declared domain, or an undeclared name, is an error and writes nothing.
// RUN: not tessel compile %tessel_src/examples/kir/layernorm.mlir --emit=source --target=triton --param BLOCK=100 -o %t.bad.py 2>&1 | FileCheck %s --check-prefix=DOMAIN
// RUN: not test -e %t.bad.py
// RUN: not tessel compile %tessel_src/examples/kir/layernorm.mlir --emit=source --target=triton --param WARPS=3 -o %t.bad.py 2>&1 | FileCheck %s --check-prefix=LAUNCHDOMAIN
// RUN: not test -e %t.bad.py
// RUN: not tessel compile %tessel_src/examples/kir/layernorm.mlir --emit=source --target=triton --param NOPE=4 -o %t.bad.py 2>&1 | FileCheck %s --check-prefix=UNDECLARED

// DEFAULT: layernorm_PARAMS = {'BLOCK': ([64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384], 512), 'WARPS': ([1, 2, 4, 8, 16], 4), 'STAGES': ([1, 2, 3, 4], 3)}
// TUNED: layernorm_PARAMS = {'BLOCK': ([64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384], 128), 'WARPS': ([1, 2, 4, 8, 16], 4), 'STAGES': ([1, 2, 3, 4], 3)}
// WARPS8: layernorm_PARAMS = {'BLOCK': ([64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384], 512), 'WARPS': ([1, 2, 4, 8, 16], 8), 'STAGES': ([1, 2, 3, 4], 3)}
// Combine functions for the two row reductions (in the staged path, and in the loops over full
// blocks and over the partial last block) come first, then the kernel.
// CHECK-COUNT-6: def _layernorm_combine{{[0-9]+}}(
// CHECK: @triton.jit
// COM: The staged path's uniform guard (the row fits one block) is a launch fact: a constexpr
// COM: parameter the wrapper evaluates, so Triton compiles only the variant taken.
// CHECK-NEXT: def _layernorm_kernel(x, _extent_M, _extent_N, x_stride0, x_stride1, w, w_stride0, bb, bb_stride0, y, y_stride0, y_stride1, eps, _G0: tl.constexpr):
// Origin comments name the author's source line.
// CHECK-NEXT: # layernorm.mlir:{{[0-9]+}}
// CHECK: = tl.program_id(0)
// CHECK: if _G0:
// DEFAULT: tl.arange(0, 512)
// TUNED: tl.arange(0, 128)
// WARPS8: tl.arange(0, 512)
// CHECK-NOT: tl.arange(0, BLOCK)
// CHECK: def layernorm(x, w, bb, y, *, eps):
// CHECK-NEXT: """Launch layernorm (one launch; checks the ABI first)."""
// COM: Written views get the stride-0/self-overlap checks and must not share memory with another
// COM: view; the scalar is checked against its type's range; the grid against the launch limit.
// CHECK: x.is_contiguous() and (_p_x := x.data_ptr()) >= 0
// CHECK: and (_p_y + y.nbytes <= _p_x or _p_x + x.nbytes <= _p_y)
// CHECK: and type(eps) is float and -3.4028234663852886e+38 <= eps <= 3.4028234663852886e+38):
// CHECK: _check_view('x', x, torch.float32, ('M', 'N'), _extents, _device)
// CHECK: _check_view('w', w, torch.float32, ('N',), _extents, _device)
// CHECK: _check_view('y', y, torch.float32, ('M', 'N'), _extents, _device, writes=True)
// CHECK: _check_scalar('eps', eps, float, (-3.4028234663852886e+38, 3.4028234663852886e+38))
// CHECK: _check_apart(('x', x, False), ('w', w, False), ('bb', bb, False), ('y', y, True), )
// CHECK: if _grid[0] > 2147483647:
// CHECK-NEXT: raise ValueError(f"{_grid[0]} programs exceed the launch limit of 2**31 - 1 on grid axis 0")
// CHECK: _a0, _a1, _a2, _a3, _a4, _a5, _a6, _a7, _a8, _a9, _a10, _a11, _a12, _a13 = x, x.shape[0], x.shape[1], x.stride(0), x.stride(1), w, w.stride(0), bb, bb.stride(0), y, y.stride(0), y.stride(1), eps, bool(((0 < max((-((-(x.shape[1])) // (1))), 0)) and ((max((-((-(x.shape[1])) // (1))), 0) - 0) <=
// CHECK: _launch = _layernorm_launched.get(_key)
// CHECK: _compiled = _layernorm_kernel[_grid](_a0, _a1, _a2, _a3, _a4, _a5, _a6, _a7, _a8, _a9, _a10, _a11, _a12, _a13, num_warps=
// DEFAULT-SAME: {{^}}4, num_stages=3){{$}}
// TUNED-SAME: {{^}}4, num_stages=3){{$}}
// WARPS8-SAME: {{^}}8, num_stages=3){{$}}

// DOMAIN: error: parameter 'BLOCK' = 100 is outside its candidate domain [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384]
// LAUNCHDOMAIN: error: parameter 'WARPS' = 3 is outside its candidate domain [1, 2, 4, 8, 16]
// UNDECLARED: error: no kernel declares a parameter 'NOPE'
