
// COM: A region scan with a tensor state (acc) and a scalar state (s), unit segments. Construction
// COM: carries no tensor state: an emitted row reads the state before it as the fold of the
// COM: transitions before it applied to init (scalar components once per row, a tensor component
// COM: per element it reads, folded with the scalars); final states fold the whole source.
// CHECK-LABEL: pgpu.kernel @running
// CHECK: pgpu.region_fold %{{.*}} to %[[ROWS:[0-9]+]] step %{{.*}} identity(%{{.*}} : f32)
// CHECK: pgpu.foreach %{{.*}} to %[[ROWS]] {
// CHECK-NEXT: ^bb0(%[[T:.*]]: index):
// CHECK: pgpu.region_fold %{{.*}} to %[[T]] step %{{.*}} identity(%{{.*}} : f32)
// CHECK: pgpu.range_reduce
// CHECK: pgpu.region_fold %{{.*}} to %[[T]] step %{{.*}} identity(%{{.*}}, %{{.*}} : f32, f32)
// CHECK: pgpu.store %{{.*}}, %o[
// CHECK: pgpu.foreach
// CHECK: pgpu.region_fold %{{.*}} to %[[ROWS]] step %{{.*}} identity(%{{.*}}, %{{.*}} : f32, f32)
// CHECK: pgpu.store %{{.*}}, %f[
// CHECK: pgpu.store %{{.*}}, %g[
// CHECK-NOT: kir.
module {
  kir.kernel @running(%x: !kir.view<f32, [B, N, D], in>, %o: !kir.view<f32, [B, N], out>, %f: !kir.view<f32, [B, D], out>,
                      %g: !kir.view<f32, [B], out>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %n = kir.extent "N"
    %nd = kir.extent "D"
    %dn = kir.domain %c0 to %n
    %dd = kir.domain %c0 to %nd
    %nb = kir.extent "B"
    %db = kir.domain %c0 to %nb
    %tc = kir.indices %dn : tensor<?xindex>
    %a0 = kir.broadcast %zero over(%dd) dims [] : f32 -> tensor<?xf32>
    kir.parallel %db {
    ^bb0(%i: index):
      %t = kir.load %x[%i, %dn, %dd] : !kir.view<f32, [B, N, D], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xf32>
      %out, %acc, %tot = kir.region_scan sources(%t, %tc : tensor<?x?xf32>, tensor<?xindex>) axis 0
          identity(%a0, %zero : tensor<?xf32>, f32) init(%a0, %zero : tensor<?xf32>, f32)
          -> (tensor<?xf32>) final (tensor<?xf32>, f32)
      summarize {
      ^bb0(%sl: tensor<?x?xf32>, %ts: tensor<?xindex>):
        %z = arith.constant 0.0 : f32
        %col = kir.reduce %sl axes [0] identity(%z : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
        ^bb0(%p: f32, %q: f32):
          %c = kir.binary add %p, %q : f32
          kir.yield %c : f32
        }
        %all = kir.reduce %sl axes [0, 1] identity(%z : f32) : (tensor<?x?xf32>) -> (f32) {
        ^bb0(%p: f32, %q: f32):
          %c = kir.binary add %p, %s : f32
          kir.yield %c : f32
        }
        kir.yield %col, %all : tensor<?xf32>, f32
      } combine {
      ^bb0(%a1: tensor<?xf32>, %s1: f32, %a2: tensor<?xf32>, %s2: f32):
        %a = kir.binary add %a1, %a2 : tensor<?xf32>
        %s = kir.binary add %s1, %s2 : f32
        kir.yield %a, %s : tensor<?xf32>, f32
      } apply {
      ^bb0(%da: tensor<?xf32>, %ds: f32, %a: tensor<?xf32>, %s: f32):
        %a2 = kir.binary add %a, %da : tensor<?xf32>
        %s2 = kir.binary add %s, %ds : f32
        kir.yield %a2, %s2 : tensor<?xf32>, f32
      } emit {
      ^bb0(%sl: tensor<?x?xf32>, %ts: tensor<?xindex>, %a: tensor<?xf32>, %s: f32):
        %z = arith.constant 0.0 : f32
        // Before the slice: x_t . acc + s. Inside it: x_t . x_u + total(x_u) for u < t.
        %dot = kir.contract %sl, %a reduce([1], [0]) batch([], []) : tensor<?x?xf32>, tensor<?xf32> -> tensor<?xf32>
        %sb = kir.broadcast_as %s to %dot dims [] : f32, tensor<?xf32> -> tensor<?xf32>
        %inter = kir.binary add %dot, %sb : tensor<?xf32>
        %gram = kir.contract %sl, %sl reduce([1], [1]) batch([], []) : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
        %rows = kir.reduce %sl axes [1] identity(%z : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
        ^bb0(%p: f32, %q: f32):
          %c = kir.binary add %p, %q : f32
          kir.yield %c : f32
        }
        %rk = kir.broadcast_as %rows to %gram dims [1] : tensor<?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
        %terms = kir.binary add %gram, %rk : tensor<?x?xf32>
        %tq = kir.broadcast_as %ts to %gram dims [0] : tensor<?xindex>, tensor<?x?xf32> -> tensor<?x?xindex>
        %tk = kir.broadcast_as %ts to %gram dims [1] : tensor<?xindex>, tensor<?x?xf32> -> tensor<?x?xindex>
        %before = kir.cmp lt %tk, %tq : tensor<?x?xindex>
        %zs = kir.broadcast_as %z to %gram dims [] : f32, tensor<?x?xf32> -> tensor<?x?xf32>
     garbage  %kept = kir.select %before, %terms, %zs : tensor<?x?xi1>, tensor<?x?xf32>
        %intra = kir.reduce %kept axes [1] identity(%z : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
        ^bb0(%p: f32, %q: f32):
          %c = kir.binary add %p, %q : f32
          kir.yield %c : f32
        }
        %r = kir.binary add %inter, %intra : tensor<?xf32>
        kir.yield %r : tensor<?xf32>
      }
      kir.store %out, %o[%i, %dn] : tensor<?xf32>, !kir.view<f32, [B, N], out>[index, !kir.domain]
      kir.store %acc, %f[%i, %dd] : tensor<?xf32>, !kir.view<f32, [B, D], out>[index, !kir.domain]
      kir.store %tot, %g[%i] : f32, !kir.view<f32, [B], out>[index]
      kir.yield
    }
    kir.return
  }
}
