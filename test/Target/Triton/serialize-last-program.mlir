// A stored histogram through the Triton provider: the wrapper allocates the zero-filled partial and
// ticket (pgpu.init = 0); the direct branch adds one per element with tl.atomic_add into the partial,
// the privatized branch (a constexpr guard B <= HBINS) counts blocks with tl.histogram and adds each
// program's counts once; pgpu.last_program is a CTA barrier, an acq_rel ticket increment and a test
// against the grid's size, whose taken branch passes a second CTA barrier (every thread after the
// ticket's acquire), returns the ticket to 0 (every instance has arrived) and then copies the partial
// into h, read at L2 (ld.global.cg: what other programs merged is never served by the SM's L1). The
// partial is read but not reset there (it is filled per call): a load, not an exchange. Must not fire
// outside the finalization: the programs' own loads keep the default cache modifier. The ticket's only use is the last_program, so a planned
// call takes it from the kept zeroed buffer of its stream (`_zeroed`, one per module) instead of
// allocating and filling it; the partial (atomically added into, not restored) is filled per call.
// RUN: tessel compile %tessel_src/examples/kir/histogram.mlir --emit=source --target=triton --param HBINS=1024 | FileCheck %s
// CHECK: def _zeroed(n, dtype, device, stream, slot, capturing=None):
// CHECK: histogram_COVERS = {'HBINS': 'B'}
// CHECK-LABEL: def _histogram_kernel(x, _extent_N, x_stride0, h, _extent_B, h_stride0, arg2, arg3, _G0: tl.constexpr):
// CHECK: if _G0:
// CHECK: tl.histogram({{v[0-9]+}}, 1024, mask=
// CHECK: tl.atomic_add(arg2 + ({{v[0-9]+}}), {{v[0-9]+}}, mask={{v[0-9]+}}, sem='relaxed')
// CHECK: else:
// CHECK: tl.atomic_add(arg2 + ({{v[0-9]+}}), {{v[0-9]+}}, mask={{v[0-9]+}}, sem='relaxed')
// CHECK-NOT: cache_modifier
// CHECK: tl.debug_barrier()
// CHECK-NEXT: [[ARRIVED:_arrived[0-9]+]] = tl.atomic_add(arg3, 1, sem='acq_rel', scope='gpu')
// CHECK-NEXT: if [[ARRIVED]] == tl.num_programs(0) - 1:
// CHECK-NEXT: tl.debug_barrier()
// CHECK-NEXT: tl.atomic_xchg(arg3, 0, sem='relaxed', scope='gpu')
// CHECK-NOT: tl.atomic_xchg(arg2
// CHECK: tl.load(arg2 + ({{v[0-9]+}}), mask={{v[0-9]+}}, other={{.*}}, cache_modifier='.cg')
// CHECK: tl.store(h + ({{v[0-9]+}}) * h_stride0,
// CHECK-LABEL: def _histogram_checked(
// CHECK: _n_arg2 = (h.shape[0])
// CHECK-NEXT: _ws_arg2 = torch.full((_n_arg2,), 0, dtype=torch.int32, device=x.device)
// CHECK-NEXT: _n_arg3 = (1)
// CHECK-NEXT: _ws_arg3 = torch.full((_n_arg3,), 0, dtype=torch.int32, device=x.device)
// CHECK-LABEL: def _histogram_bind(
// CHECK: def _go(
// CHECK-NEXT: _s = _stream(_dev)
// CHECK-NEXT: _ws_arg2 = torch.full((_n_arg2,), 0, dtype=torch.int32, device=x.device)
// CHECK-NEXT: _ws_arg3 = _zeroed(_n_arg3, torch.int32, x.device, _s, 'histogram.arg3')
// CHECK-NEXT: _launch(_grid, 1, 1, _s,
// CHECK: _ws_arg3 = _zeroed(_n_arg3, torch.int32, x.device, torch.cuda.current_stream(_dev).cuda_stream, 'histogram.arg3')
// CHECK: _ws_arg3 = _zeroed(_n_arg3, torch.int32, x.device, None, 'histogram.arg3')
// CHECK-NEXT: try:
// CHECK-NEXT: _histogram_kernel[
// CHECK-NEXT: except BaseException:
// CHECK-NEXT: _ZEROED.clear()
// CHECK-LABEL: def histogram_warmup(x, h):
// CHECK: _ws_arg3 = torch.full((_n_arg3,), 0, dtype=torch.int32, device=x.device)
