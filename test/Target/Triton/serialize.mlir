// The Triton provider spells the pipeline's pgpu: one kernel parameter per shape symbol (views that
// share a symbol share it; the wrapper checks they agree), strides per view, the declared search space
// as <kernel>_PARAMS, bound parameters as literals, and a wrapper that checks the ABI before launching.
// The launch configuration is declared too (WARPS, STAGES: Triton provider parameters that
// pgpu-triton-legalize adds), so the wrapper launches with their bound values.
// RUN: tessel compile %tessel_src/examples/kir/layernorm.mlir --emit=source --target=triton -o %t.default.py
// RUN: FileCheck %s --check-prefixes=CHECK,DEFAULT --input-file=%t.default.py
// RUN: tessel compile %tessel_src/examples/kir/layernorm.mlir --emit=source --target=triton --param BLOCK=128 --param TMA=0 -o %t.128.py
// RUN: FileCheck %s --check-prefixes=CHECK,TUNED --input-file=%t.128.py
// RUN: tessel compile %tessel_src/examples/kir/layernorm.mlir --emit=source --target=triton --param WARPS=8 -o %t.warps8.py
// RUN: FileCheck %s --check-prefixes=CHECK,WARPS8 --input-file=%t.warps8.py
// Deterministic: the same input compiles to the same bytes.
// RUN: tessel compile %tessel_src/examples/kir/layernorm.mlir --emit=source --target=triton -o %t.again.py
// RUN: cmp %t.default.py %t.again.py
// A value outside the declared domain, or an undeclared name, is an error and writes nothing.
// RUN: not tessel compile %tessel_src/examples/kir/layernorm.mlir --emit=source --target=triton --param BLOCK=100 -o %t.bad.py 2>&1 | FileCheck %s --check-prefix=DOMAIN
// COM: `<kernel>_ELEMENTWISE`: attention's launch fact `D <= BLOCK_D` keeps an element-wise branch beside the
// COM: tiled one; the tuner leaves out bindings whose launch takes it (python/tessel/_tune.py candidates).
// COM: A kernel without such a guard (layernorm: its row guard's branches both compute without contracts) says False.
// RUN: tessel compile %tessel_src/examples/kir/attention.mlir --emit=source --target=triton | FileCheck %s --check-prefix=ELEMENTWISE
// ELEMENTWISE: def attention_ELEMENTWISE(p, _v):
// ELEMENTWISE: return not ((max((-((-(_v['Q'].shape[3])) // (1))), 0) <= p['BLOCK_D']))
// COM: ... and the declared parameters only that branch uses (its row block): the tuner keeps them at their
// COM: defaults for a launch that does not take it.
// ELEMENTWISE: attention_ELEMENTWISE_ONLY = ('BLOCK', )
// RUN: FileCheck %s --check-prefix=NOELEMENTWISE --input-file=%t.default.py
// NOELEMENTWISE: def layernorm_ELEMENTWISE(p, _v):
// NOELEMENTWISE-NEXT: """
// NOELEMENTWISE-NEXT: return False
// NOELEMENTWISE: layernorm_ELEMENTWISE_ONLY = ()
// RUN: not test -e %t.bad.py
// RUN: not tessel compile %tessel_src/examples/kir/layernorm.mlir --emit=source --target=triton --param WARPS=3 -o %t.bad.py 2>&1 | FileCheck %s --check-prefix=LAUNCHDOMAIN
// RUN: not test -e %t.bad.py
// RUN: not tessel compile %tessel_src/examples/kir/layernorm.mlir --emit=source --target=triton --param NOPE=4 -o %t.bad.py 2>&1 | FileCheck %s --check-prefix=UNDECLARED

// COM: A view must be strided, without the negative or conjugate bit (torch applies those lazily).
// CHECK: def _check_view(
// CHECK: if t.layout != torch.strided:
// CHECK: if t.is_neg() or t.is_conj():
// CHECK: def _check_data(*views):
// COM: (ROWS declares 1, one row a program: 2 warps for the 512-lane f32 tile.)
// DEFAULT: layernorm_PARAMS = {'BLOCK': ([16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768], 512), 'ROWS': ([1, 2, 4, 8, 16, 32, 64, 128], 1), 'WARPS': ([1, 2, 4, 8, 16], 2), 'STAGES': ([1, 2, 3, 4, 5, 6], 3), 'TMA': ([0, 1], 1), 'LOOP_STAGES': ([1, 2, 3, 4], 3)}
// COM: (TMA off: at BLOCK 128 pgpu-pack-rows' [ROWS, BLOCK] tiles are TMA boxes, spelled as descriptors.)
// TUNED: layernorm_PARAMS = {'BLOCK': ([16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768], 128), 'ROWS': ([1, 2, 4, 8, 16, 32, 64, 128], 1), 'WARPS': ([1, 2, 4, 8, 16], 2), 'STAGES': ([1, 2, 3, 4, 5, 6], 3), 'TMA': ([0, 1], 0), 'LOOP_STAGES': ([1, 2, 3, 4], 3)}
// WARPS8: layernorm_PARAMS = {'BLOCK': ([16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768], 512), 'ROWS': ([1, 2, 4, 8, 16, 32, 64, 128], 1), 'WARPS': ([1, 2, 4, 8, 16], 8), 'STAGES': ([1, 2, 3, 4, 5, 6], 3), 'TMA': ([0, 1], 1), 'LOOP_STAGES': ([1, 2, 3, 4], 3)}
// The two row reductions are sums, spelled tl.sum (in the staged path, and in the loops over full
// blocks and over the partial last block): no combine function comes before the kernel.
// CHECK-NOT: def _layernorm_combine
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
// COM: A checked call: written views get the stride-0/self-overlap checks and must not share memory
// COM: with another view; the scalar is checked against its type's range; the grid against the
// COM: launch limit. Then Triton's JIT launches it, and its plan is recorded.
// CHECK: _layernorm_plans = {}
// CHECK: def _layernorm_checked(x, w, bb, y, *, eps, _indices=_CHECKED):
// CHECK: _check_view('x', x, torch.float32, ('M', 'N'), _extents, _device)
// CHECK: _check_view('w', w, torch.float32, ('N',), _extents, _device)
// CHECK: _check_view('y', y, torch.float32, ('M', 'N'), _extents, _device, writes=True)
// CHECK: _check_scalar('eps', eps, float, (-3.4028234663852886e+38, 3.4028234663852886e+38))
// CHECK: _check_apart(('x', x, False), ('w', w, False), ('bb', bb, False), ('y', y, True), )
// CHECK: if _grid[0] > 2147483647:
// CHECK-NEXT: raise ValueError(f"{_grid[0]} programs exceed the launch limit of 2**31 - 1 on grid axis 0")
// COM: A meta tensor passes the checks above (shape queries) but not a launch (issue 47).
// CHECK: _check_data(('x', x), ('w', w), ('bb', bb), ('y', y), )
// CHECK: _a0, _a1, _a2, _a3, _a4, _a5, _a6, _a7, _a8, _a9, _a10, _a11, _a12, _a13 = x, x.shape[0], x.shape[1], x.stride(0), x.stride(1), w, w.stride(0), bb, bb.stride(0), y, y.stride(0), y.stride(1), eps, bool(((0 < max((-((-(x.shape[1])) // (1))), 0)) and ((max((-((-(x.shape[1])) // (1))), 0) - 0) <=
// CHECK: _compiled = _layernorm_kernel[_grid](_a0, _a1, _a2, _a3, _a4, _a5, _a6, _a7, _a8, _a9, _a10, _a11, _a12, _a13, num_warps=
// DEFAULT-SAME: {{^}}2, num_stages=3){{$}}
// TUNED-SAME: {{^}}2, num_stages=3){{$}}
// WARPS8-SAME: {{^}}8, num_stages=3){{$}}
// COM: The plan key: everything the checks and Triton's specialization read but addresses and the
// COM: float scalar. The plan binds what the key fixes (extents, strides, the launch fact) and keeps
// COM: each view's byte span for the aliasing check.
// CHECK: _key = (type(x), x.dtype, x.shape, x.stride(), x.get_device(), _p_x & 15, x.is_neg(), type(w), w.dtype, w.shape, w.stride(), w.get_device(), _p_w & 15, w.is_neg(), type(bb), bb.dtype, bb.shape, bb.stride(), bb.get_device(), _p_bb & 15, bb.is_neg(), type(y), y.dtype, y.shape, y.stride(), y.get_device(), _p_y & 15, y.is_neg())
// CHECK: _plan = (_layernorm_bind(_compiled, _grid[0], x.get_device(), _a1, _a2, _a3, _a4, _a6, _a8, _a10, _a11, _a13), *_span(x), *_span(w), *_span(bb), *_span(y),)
// CHECK: def _layernorm_bind(_compiled, _grid, _dev, _a1, _a2, _a3, _a4, _a6, _a8, _a10, _a11, _a13):
// CHECK: def _go(x, _p_x, w, _p_w, bb, _p_bb, y, _p_y, eps):
// CHECK-NEXT: _s = _stream(_dev)
// CHECK-NEXT: _launch(_grid, 1, 1, _s, _function, _coop, _pdl, _SCRATCH.take(_dev, _s, _scratch) if _scratch else None, None, _meta, None, None, None, _p_x, _a1, _a2, _a3, _a4, _p_w, _a6, _p_bb, _a8, _p_y, _a10, _a11, eps, _a13)
// CHECK: _compiled[(_grid, 1, 1)](x, _a1, _a2, _a3, _a4, w, _a6, bb, _a8, y, _a10, _a11, eps, _a13)
// COM: A planned call checks only what its key leaves open: the written view apart from each other
// COM: view (the inputs among themselves are not compared), and the float scalar.
// CHECK: def layernorm(x, w, bb, y, *, eps):
// CHECK-NEXT: """Launch layernorm (one launch; checks the ABI first)."""
// CHECK: _go, _lo_x, _hi_x, _lo_w, _hi_w, _lo_bb, _hi_bb, _lo_y, _hi_y = _plans[(type(x), x.dtype,
// CHECK: _miss(x, w, bb, y, eps=eps)
// CHECK-NEXT: return
// CHECK-NEXT: if ((_p_y + _hi_y <= _p_x + _lo_x or _p_x + _hi_x <= _p_y + _lo_y)
// CHECK-NEXT: and (_p_y + _hi_y <= _p_w + _lo_w or _p_w + _hi_w <= _p_y + _lo_y)
// CHECK-NEXT: and (_p_y + _hi_y <= _p_bb + _lo_bb or _p_bb + _hi_bb <= _p_y + _lo_y)
// CHECK-NEXT: and type(eps) is float and -3.4028234663852886e+38 <= eps <= 3.4028234663852886e+38):
// CHECK-NEXT: _go(x, _p_x, w, _p_w, bb, _p_bb, y, _p_y, eps)
// CHECK-NEXT: else:
// CHECK-NEXT: _miss(x, w, bb, y, eps=eps)
// COM: The checked launch mode (TESSEL_CHECKED=1 at import) takes no plan: every call is checked in full.
// CHECK: if _CHECKED:
// CHECK-NEXT: def layernorm(x, w, bb, y, *, eps):
// CHECK: _layernorm_checked(x, w, bb, y, eps=eps, _indices=True)
// CHECK: layernorm = _layernorm_front(_layernorm_plans, _layernorm_checked)
// COM: A kernel object's call is the same planned call with the object first, every view
// COM: positional-only and every scalar keyword-only, each defaulting to _ABSENT (not given).
// CHECK: def _layernorm_entry(_plans, _miss, _traced):
// CHECK: def __call__(_k, x=_ABSENT, w=_ABSENT, bb=_ABSENT, y=_ABSENT, /, *_more, eps=_ABSENT, **_rest):
// CHECK-NEXT: if _more or _rest or _traced():
// CHECK-NEXT: return _miss(_k, *_given((x, w, bb, y), _more, _rest, (('eps', eps),)))
// CHECK: _go(x, _p_x, w, _p_w, bb, _p_bb, y, _p_y, eps)
// CHECK-NEXT: else:
// CHECK-NEXT: return _miss(_k, *_given((x, w, bb, y), _more, _rest, (('eps', eps),)))

// DOMAIN: error: parameter 'BLOCK' = 100 is outside its candidate domain [16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768]
// LAUNCHDOMAIN: error: parameter 'WARPS' = 3 is outside its candidate domain [1, 2, 4, 8, 16]
// UNDECLARED: error: no kernel declares a parameter 'NOPE'
