// RUN: tessel-opt %s -kir-vjp="wrt=x" | FileCheck %s --enable-var-scope
// RUN: tessel-opt %s -kir-vjp="wrt=x,w" | FileCheck %s --check-prefix=BOTH --enable-var-scope
// RUN: tessel-opt %s -kir-vjp="wrt=x,w" -kir-to-pgpu > /dev/null

// COM: A row of x per member against all of w (read at kernel level): a contraction whose lhs keeps no
// COM: free axis, so dw's per-member contribution is an outer product (d_c's row and x's row spread over
// COM: w's axes, multiplied), summed over the members through the buffer; dx is dC's row against w
// COM: (reduce([0], [1])).
// CHECK-LABEL: kir.kernel @rows_vjp
// CHECK-NOT: kir.buffer
// CHECK: kir.contract %{{.*}}, %{{.*}} reduce([0], [1])
// BOTH-LABEL: kir.kernel @rows_vjp
// BOTH: %[[W:.*]] = kir.load %w
// BOTH: %[[BUF:.*]] = kir.buffer over(%{{.*}}, %{{.*}}, %{{.*}}) first_write : !kir.buffer<tensor<?x?x?xf32>>
// BOTH: %[[X:.*]] = kir.load %x
// BOTH: %[[G:.*]] = kir.load %d_c
// BOTH: kir.contract %[[G]], %[[W]] reduce([0], [1]) batch([], [])
// BOTH: %[[GS:.*]] = kir.broadcast_as %[[G]] to %[[W]] dims [1]
// BOTH: %[[XS:.*]] = kir.broadcast_as %[[X]] to %[[W]] dims [0]
// BOTH: %[[P:.*]] = kir.binary mul %[[XS]], %[[GS]]
// BOTH: kir.buffer_store %[[P]], %[[BUF]]
// BOTH: kir.buffer_load %[[BUF]]
// BOTH: kir.reduce %{{.*}} axes [0]
// BOTH: kir.store %{{.*}}, %d_w
module {
  kir.kernel @rows(%x: !kir.view<f32, [M, K], in>, %w: !kir.view<f32, [K, N], in>, %c: !kir.view<f32, [M, N], out>) {
    %c0 = arith.constant 0 : index
    %m = kir.extent "M"
    %n = kir.extent "N"
    %k = kir.extent "K"
    %dm = kir.domain %c0 to %m
    %dn = kir.domain %c0 to %n
    %dk = kir.domain %c0 to %k
    %wt = kir.load %w[%dk, %dn] : !kir.view<f32, [K, N], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    kir.parallel %dm {
    ^bb0(%i: index):
      %row = kir.load %x[%i, %dk] : !kir.view<f32, [M, K], in>[index, !kir.domain] -> tensor<?xf32>
      %crow = kir.contract %row, %wt reduce([0], [0]) batch([], []) : tensor<?xf32>, tensor<?x?xf32> -> tensor<?xf32>
      kir.store %crow, %c[%i, %dn] : tensor<?xf32>, !kir.view<f32, [M, N], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}
