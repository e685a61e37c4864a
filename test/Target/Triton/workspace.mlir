// The Triton wrapper allocates invocation workspace per call (seed 000 §2): sized from the view
// extents its buffer type names, initialized from pgpu.init, passed as a private pointer; buffer
// accesses are row-major offsets into it.
// RUN: tessel compile %tessel_src/examples/pgpu/workspace_rowsum.mlir --emit=source --target=triton | FileCheck %s
// CHECK: def _workspace_rowsum_kernel(x, _extent_M, _extent_N, x_stride0, x_stride1, y, y_stride0, ws):
// CHECK: tl.load(ws + ({{.*}}) * (_extent_N) + ({{.*}}), mask=
// CHECK: tl.store(ws + ({{.*}}) * (_extent_N) + ({{.*}}), {{.*}}, mask=
// CHECK: def workspace_rowsum(x, y):
// CHECK: _ws_ws = torch.full(((x.shape[0]) * (x.shape[1]),), 1.000000e+00, dtype=torch.float32, device=x.device)
// CHECK: _grid =
// CHECK: = x, x.shape[0], x.shape[1], x.stride(0), x.stride(1), y, y.stride(0), _ws_ws
// CHECK: def workspace_rowsum_warmup(x, y):
// CHECK-NEXT: """Compile
// CHECK-NEXT: _ws_ws = torch.full(
