// A Triton wrapper's plan (LaunchWrapper.h): the key holds every integer scalar (Triton specializes
// on its value) and a planned call guards its type; with one view there is nothing to compare for
// aliasing, so no span enters the plan and no aliasing guard is emitted.
// RUN: tessel compile %s --emit=source --target=triton | FileCheck %s
// CHECK: def _shift_checked(x, *, k, _indices=_CHECKED):
// CHECK: _check_scalar('k', k, int, (-2147483648, 2147483647))
// CHECK: _key = (type(x), x.dtype, x.shape, x.stride(), x.get_device(), _p_x & 15, x.is_neg(), k)
// CHECK-NEXT: except Exception:
// CHECK: _plan = (_shift_bind(_compiled, _grid[0], x.get_device(), _a1, _a2),)
// CHECK: def _go(x, _p_x, k):
// CHECK-NEXT: _s = _stream(_dev)
// CHECK-NEXT: _launch({{.*}}, None, None, None, _p_x, _a1, _a2, k)
// CHECK: def shift(x, *, k):
// CHECK: _p_x = x.data_ptr(){{$}}
// CHECK-NEXT: (_go,) = _plans[(type(x), x.dtype, x.shape, x.stride(), x.get_device(), _p_x & 15, x.is_neg(), k)]
// CHECK: if (type(k) is int):
// CHECK-NEXT: _go(x, _p_x, k)
// CHECK-NOT: _span(
// COM: The kernel object's call: the same planned call, its views positional-only and its scalar
// COM: keyword-only with a default, so any other call (a view by name, a constexpr, a missing or
// COM: extra argument) reaches the object's binding with the arguments as given.
// CHECK: def _shift_entry(_plans, _miss, _traced):
// CHECK: def __call__(_k, x=_ABSENT, /, *_more, k=_ABSENT, **_rest):
// CHECK-NEXT: if _more or _rest or _traced():
// CHECK-NEXT: return _miss(_k, *_given((x,), _more, _rest, (('k', k),)))
// CHECK-NEXT: try:
// CHECK-NEXT: _p_x = x.data_ptr(){{$}}
// CHECK-NEXT: (_go,) = _plans[(type(x), x.dtype, x.shape, x.stride(), x.get_device(), _p_x & 15, x.is_neg(), k)]
// CHECK-NEXT: except Exception:
// CHECK-NEXT: return _miss(_k, *_given((x,), _more, _rest, (('k', k),)))
// CHECK-NEXT: if (type(k) is int):
// CHECK-NEXT: _go(x, _p_x, k)
// CHECK-NEXT: else:
// CHECK-NEXT: return _miss(_k, *_given((x,), _more, _rest, (('k', k),)))
// CHECK-NEXT: return __call__
// CHECK-NOT: _span(
// CHECK: def shift_warmup(x, *, k):
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @shift(%x: !kir.view<i32, [N], inout>, %k: i32) {
    %c0 = arith.constant 0 : index
    %n = kir.extent "N"
    %dn = kir.domain %c0 to %n
    kir.parallel %dn {
    ^bb0(%i: index):
      %v = kir.load %x[%i] : !kir.view<i32, [N], inout>[index] -> i32
      %sum = kir.binary add %v, %k : i32
      kir.store %sum, %x[%i] : i32, !kir.view<i32, [N], inout>[index]
      kir.yield
    }
    kir.return
  }
}
