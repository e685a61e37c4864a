// A stored histogram through the Triton provider: the wrapper allocates the zero-filled partial and
// ticket (pgpu.init = 0); the direct branch adds one per element with tl.atomic_add into the partial,
// the privatized branch (a constexpr guard B <= HBINS) counts blocks with tl.histogram and adds each
// program's counts once; pgpu.last_program is a CTA barrier, an acq_rel ticket increment and a test
// against the grid's size, whose taken branch copies the partial into h.
// RUN: tessel compile %tessel_src/examples/kir/histogram.mlir --emit=source --target=triton --param HBINS=1024 | FileCheck %s
// CHECK: histogram_COVERS = {'HBINS': 'B'}
// CHECK-LABEL: def _histogram_kernel(x, _extent_N, x_stride0, h, _extent_B, h_stride0, arg2, arg3, _G0: tl.constexpr):
// CHECK: if _G0:
// CHECK: tl.histogram({{v[0-9]+}}, 1024, mask=
// CHECK: tl.atomic_add(arg2 + ({{v[0-9]+}}), {{v[0-9]+}}, mask={{v[0-9]+}}, sem='relaxed')
// CHECK: else:
// CHECK: tl.atomic_add(arg2 + ({{v[0-9]+}}), {{v[0-9]+}}, mask={{v[0-9]+}}, sem='relaxed')
// CHECK: tl.debug_barrier()
// CHECK-NEXT: [[ARRIVED:_arrived[0-9]+]] = tl.atomic_add(arg3, 1, sem='acq_rel', scope='gpu')
// CHECK-NEXT: if [[ARRIVED]] == tl.num_programs(0) - 1:
// CHECK: tl.load(arg2 + ({{v[0-9]+}}), mask=
// CHECK: tl.store(h + ({{v[0-9]+}}) * h_stride0,
// CHECK-LABEL: def histogram(x, h):
// CHECK: _ws_arg2 = torch.full(((h.shape[0]),), 0, dtype=torch.int32, device=x.device)
// CHECK: _ws_arg3 = torch.full(((1),), 0, dtype=torch.int32, device=x.device)
