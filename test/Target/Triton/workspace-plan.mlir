// A planned call's workspace (LaunchWrapper.h): attention's split fold (pgpu-split-folds) sizes its
// ticket and summaries by launch expressions of the views' extents. The checked call evaluates each
// count once (_n_<arg>) and the plan holds it, with the checked call's tensor where the count is 0
// (the shared empty one) and None elsewhere (_e_<arg>): a planned launch evaluates no size. The
// ticket (i32, zero-filled, used only as the fold's last_program ticket) comes from the kept zeroed
// buffer of the launch's stream; the summaries (no fill) are allocated.
// RUN: tessel compile %tessel_src/examples/kir/attention.mlir --emit=source --target=triton | FileCheck %s
// CHECK-LABEL: def _attention_checked(
// CHECK: _n_arg5 = {{.*}}Q.shape[0]{{.*}}K.shape[2]
// CHECK-NEXT: _ws_arg5 = _ws_empty(torch.int32, Q.device) if _n_arg5 == 0 else torch.full((_n_arg5,), 0, dtype=torch.int32, device=Q.device)
// CHECK-NEXT: _n_arg6 = {{.*}}Q.shape[0]
// CHECK-NEXT: _ws_arg6 = _ws_empty(torch.bool, Q.device) if _n_arg6 == 0 else torch.empty(_n_arg6, dtype=torch.bool, device=Q.device)
// CHECK: _plan = (_attention_bind({{.*}}, _n_arg5, _n_arg6, _n_arg7, _n_arg8, _n_arg9, _ws_arg5 if _n_arg5 == 0 else None, _ws_arg6 if _n_arg6 == 0 else None, _ws_arg7 if _n_arg7 == 0 else None, _ws_arg8 if _n_arg8 == 0 else None, _ws_arg9 if _n_arg9 == 0 else None),
// CHECK-LABEL: def _attention_bind(
// CHECK-SAME: _n_arg5, _n_arg6, _n_arg7, _n_arg8, _n_arg9, _e_arg5, _e_arg6, _e_arg7, _e_arg8, _e_arg9):
// CHECK: def _go(Q, _p_Q, K, _p_K, V, _p_V, O, _p_O, scale):
// CHECK-NEXT: _s = _stream(_dev)
// CHECK-NEXT: _ws_arg5 = _zeroed(_n_arg5, torch.int32, Q.device, _s, 'attention.arg5') if _n_arg5 else _e_arg5
// CHECK-NEXT: _ws_arg6 = torch.empty(_n_arg6, dtype=torch.bool, device=Q.device) if _n_arg6 else _e_arg6
// CHECK-NOT: shape
// CHECK: _launch(_grid, 1, 1, _s,
// CHECK-SAME: _ws_arg5.data_ptr(), _ws_arg6.data_ptr()
// CHECK: def _go(
// CHECK-NEXT: _ws_arg5 = _zeroed(_n_arg5, torch.int32, Q.device, torch.cuda.current_stream(_dev).cuda_stream, 'attention.arg5') if _n_arg5 else _e_arg5
// CHECK: def _go(
// CHECK: _ws_arg5 = _zeroed(_n_arg5, torch.int32, Q.device, None, 'attention.arg5') if _n_arg5 else _e_arg5
// CHECK-LABEL: def attention_warmup(
// CHECK: _ws_arg5 = _ws_empty(torch.int32, Q.device) if _n_arg5 == 0 else torch.full((_n_arg5,), 0,
