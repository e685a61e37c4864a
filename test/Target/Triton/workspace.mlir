// The Triton wrapper allocates invocation workspace per call (seed 000 §2): sized from the view
// extents its buffer type names, initialized from pgpu.init, passed as a private pointer; buffer
// accesses are row-major offsets into it. The program reads back what it stored there: Triton orders a
// program's global memory only within a thread (a scalar is stored by one thread and read by all), so
// each read of a buffer the same program stores passes a CTA barrier first (OpSpelling.cpp,
// readsOwnStore; the selector's fenceWrite). The input view x, which nothing stores, is read plainly.
// RUN: tessel compile %tessel_src/examples/pgpu/workspace_rowsum.mlir --emit=source --target=triton | FileCheck %s
// CHECK: def _workspace_rowsum_kernel(x, _extent_M, _extent_N, x_stride0, x_stride1, y, y_stride0, ws):
// CHECK-NOT: tl.debug_barrier()
// CHECK: tl.load(x +
// CHECK-NEXT: # workspace_rowsum.mlir
// CHECK-NEXT: tl.debug_barrier()
// CHECK-NEXT: tl.load(ws + ({{.*}}) * (_extent_N) + ({{.*}}), mask=
// CHECK: tl.store(ws + ({{.*}}) * (_extent_N) + ({{.*}}), {{.*}}, mask=
// CHECK: for
// CHECK: tl.debug_barrier()
// CHECK-NEXT: tl.load(ws + ({{.*}}) * (_extent_N) + ({{.*}}), mask={{.*}}, other=tl.full([], 0.000000e+00, tl.float32)){{$}}
// CHECK: def _workspace_rowsum_checked(x, y, *, _indices=_CHECKED):
// CHECK: _grid =
// CHECK: _n_ws = (x.shape[0]) * (x.shape[1])
// CHECK-NEXT: _ws_ws = torch.full((_n_ws,), 1.000000e+00, dtype=torch.float32, device=x.device)
// CHECK: = x, x.shape[0], x.shape[1], x.stride(0), x.stride(1), y, y.stride(0), _ws_ws
// CHECK: _plan = (_workspace_rowsum_bind(_compiled, _grid[0], x.get_device(), _a1, _a2, _a3, _a4, _a6, _n_ws),
// A planned call allocates its own workspace (its size is fixed by the plan key, so the plan holds
// it; torch's allocator aligns it, so it is never part of the key) and passes its address. The
// workspace is no ticket (f32, filled with 1): no `_zeroed`.
// CHECK: def _workspace_rowsum_bind(_compiled, _grid, _dev, _a1, _a2, _a3, _a4, _a6, _n_ws):
// CHECK: def _go(x, _p_x, y, _p_y):
// CHECK-NEXT: _s = _stream(_dev)
// CHECK-NEXT: _ws_ws = torch.full((_n_ws,), 1.000000e+00, dtype=torch.float32, device=x.device)
// CHECK-NEXT: _launch(_grid, 1, 1, _s, {{.*}}, _p_x, _a1, _a2, _a3, _a4, _p_y, _a6, _ws_ws.data_ptr())
// CHECK-NOT: _zeroed
// CHECK: def workspace_rowsum(x, y):
// CHECK: def workspace_rowsum_warmup(x, y):
// CHECK-NEXT: """Compile
// CHECK-NEXT: _n_ws = (x.shape[0]) * (x.shape[1])
// CHECK-NEXT: _ws_ws = torch.full(
