// RUN: tessel-opt %tessel_src/examples/kir/linear_attention.mlir > %t.1.mlir
// RUN: tessel-opt %t.1.mlir > %t.2.mlir
// RUN: cmp %t.1.mlir %t.2.mlir
// RUN: FileCheck %s --input-file=%t.1.mlir

// Causal linear attention as a region_scan over the time axis: the state is
// (S = phi(K)^T V, z = sum phi(K)); summarize/combine/apply add; emit combines
// the incoming state with the causally masked intra-slice scores, the mask built
// from the sliced time coordinates with kir.broadcast_as. Final S and z are stored.

// CHECK-LABEL: kir.kernel @linear_attention(
// CHECK-SAME: %[[Q:[a-zA-Z0-9_]+]]: !kir.view<f32, [B, H, T, D], in>, %[[K:[a-zA-Z0-9_]+]]: !kir.view<f32, [B, H, T, D], in>, %[[V:[a-zA-Z0-9_]+]]: !kir.view<f32, [B, H, T, E], in>, %[[O:[a-zA-Z0-9_]+]]: !kir.view<f32, [B, H, T, E], out>, %[[SO:[a-zA-Z0-9_]+]]: !kir.view<f32, [B, H, D, E], out>, %[[ZO:[a-zA-Z0-9_]+]]: !kir.view<f32, [B, H, D], out>)
// CHECK-DAG: %[[ZERO:[a-zA-Z0-9_]+]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[ONE:[a-zA-Z0-9_]+]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[NT:[0-9]+]] = kir.extent "T"
// CHECK-NEXT: %[[ND:[0-9]+]] = kir.extent "D"
// CHECK-NEXT: %[[NE:[0-9]+]] = kir.extent "E"
// CHECK: %[[DT:[0-9]+]] = kir.domain %c0 to %[[NT]]
// CHECK-NEXT: %[[DD:[0-9]+]] = kir.domain %c0 to %[[ND]]
// CHECK-NEXT: %[[DE:[0-9]+]] = kir.domain %c0 to %[[NE]]
// CHECK-NEXT: %[[ZTD:[0-9]+]] = kir.broadcast %[[ZERO]] over(%[[DT]], %[[DD]]) dims [] : f32 -> tensor<?x?xf32>
// CHECK-NEXT: %[[OTD:[0-9]+]] = kir.broadcast %[[ONE]] over(%[[DT]], %[[DD]]) dims [] : f32 -> tensor<?x?xf32>
// CHECK-NEXT: %[[S0:[0-9]+]] = kir.broadcast %[[ZERO]] over(%[[DD]], %[[DE]]) dims [] : f32 -> tensor<?x?xf32>
// CHECK-NEXT: %[[Z0:[0-9]+]] = kir.broadcast %[[ZERO]] over(%[[DD]]) dims [] : f32 -> tensor<?xf32>
// CHECK-NEXT: %[[TC:[0-9]+]] = kir.indices %[[DT]] : tensor<?xindex>
// CHECK-NEXT: kir.parallel %{{[0-9]+}}, %{{[0-9]+}} {
// CHECK-NEXT: ^bb0(%[[B:[a-zA-Z0-9_]+]]: index, %[[H:[a-zA-Z0-9_]+]]: index):
// CHECK-NEXT: %[[QT:[0-9]+]] = kir.load %[[Q]][%[[B]], %[[H]], %[[DT]], %[[DD]]] {{.*}} -> tensor<?x?xf32>
// CHECK-NEXT: %[[KT:[0-9]+]] = kir.load %[[K]][%[[B]], %[[H]], %[[DT]], %[[DD]]] {{.*}} -> tensor<?x?xf32>
// CHECK-NEXT: %[[VT:[0-9]+]] = kir.load %[[V]][%[[B]], %[[H]], %[[DT]], %[[DE]]] {{.*}} -> tensor<?x?xf32>
// CHECK-NEXT: %[[QR:[0-9]+]] = kir.binary max %[[QT]], %[[ZTD]] : tensor<?x?xf32>
// CHECK-NEXT: %[[PQ:[0-9]+]] = kir.binary add %[[QR]], %[[OTD]] : tensor<?x?xf32>
// CHECK-NEXT: %[[KR:[0-9]+]] = kir.binary max %[[KT]], %[[ZTD]] : tensor<?x?xf32>
// CHECK-NEXT: %[[PK:[0-9]+]] = kir.binary add %[[KR]], %[[OTD]] : tensor<?x?xf32>
// CHECK-NEXT: %[[OUTS:[a-zA-Z0-9_]+]], %[[FIN:[a-zA-Z0-9_]+]]:2 = kir.region_scan sources(%[[PK]], %[[VT]], %[[PQ]], %[[TC]] : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xindex>) axis 0 identity(%[[S0]], %[[Z0]] : tensor<?x?xf32>, tensor<?xf32>) init(%[[S0]], %[[Z0]] : tensor<?x?xf32>, tensor<?xf32>) -> (tensor<?x?xf32>) final(tensor<?x?xf32>, tensor<?xf32>) summarize {
// CHECK-NEXT: ^bb0(%[[PKS:[a-zA-Z0-9_]+]]: tensor<?x?xf32>, %[[VS:[a-zA-Z0-9_]+]]: tensor<?x?xf32>, %{{[a-zA-Z0-9_]+}}: tensor<?x?xf32>, %{{[a-zA-Z0-9_]+}}: tensor<?xindex>):
// CHECK-NEXT: %[[SZ:[a-zA-Z0-9_]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[DS:[0-9]+]] = kir.contract %[[PKS]], %[[VS]] reduce([0], [0]) batch([], []) : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
// CHECK-NEXT: %[[DZ:[0-9]+]] = kir.reduce %[[PKS]] axes [0] identity(%[[SZ]] : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
// CHECK: kir.binary add
// CHECK: kir.yield %[[DS]], %[[DZ]] : tensor<?x?xf32>, tensor<?xf32>
// CHECK-NEXT: } combine {
// CHECK-NEXT: ^bb0(%[[S1:[a-zA-Z0-9_]+]]: tensor<?x?xf32>, %[[Z1:[a-zA-Z0-9_]+]]: tensor<?xf32>, %[[S2:[a-zA-Z0-9_]+]]: tensor<?x?xf32>, %[[Z2:[a-zA-Z0-9_]+]]: tensor<?xf32>):
// CHECK-NEXT: %[[S12:[0-9]+]] = kir.binary add %[[S1]], %[[S2]] : tensor<?x?xf32>
// CHECK-NEXT: %[[Z12:[0-9]+]] = kir.binary add %[[Z1]], %[[Z2]] : tensor<?xf32>
// CHECK-NEXT: kir.yield %[[S12]], %[[Z12]] : tensor<?x?xf32>, tensor<?xf32>
// CHECK-NEXT: } apply {
// CHECK-NEXT: ^bb0(%[[TS:[a-zA-Z0-9_]+]]: tensor<?x?xf32>, %[[TZ:[a-zA-Z0-9_]+]]: tensor<?xf32>, %[[SIN:[a-zA-Z0-9_]+]]: tensor<?x?xf32>, %[[ZIN:[a-zA-Z0-9_]+]]: tensor<?xf32>):
// CHECK-NEXT: %[[SN:[0-9]+]] = kir.binary add %[[SIN]], %[[TS]] : tensor<?x?xf32>
// CHECK-NEXT: %[[ZN:[0-9]+]] = kir.binary add %[[ZIN]], %[[TZ]] : tensor<?xf32>
// CHECK-NEXT: kir.yield %[[SN]], %[[ZN]] : tensor<?x?xf32>, tensor<?xf32>
// CHECK-NEXT: } emit {
// CHECK-NEXT: ^bb0(%[[EK:[a-zA-Z0-9_]+]]: tensor<?x?xf32>, %[[EV:[a-zA-Z0-9_]+]]: tensor<?x?xf32>, %[[EQ:[a-zA-Z0-9_]+]]: tensor<?x?xf32>, %[[ET:[a-zA-Z0-9_]+]]: tensor<?xindex>, %[[ES:[a-zA-Z0-9_]+]]: tensor<?x?xf32>, %[[EZ:[a-zA-Z0-9_]+]]: tensor<?xf32>):
// CHECK-NEXT: %[[EZERO:[a-zA-Z0-9_]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[INUM:[0-9]+]] = kir.contract %[[EQ]], %[[ES]] reduce([1], [0]) batch([], []) : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
// CHECK-NEXT: %[[IDEN:[0-9]+]] = kir.contract %[[EQ]], %[[EZ]] reduce([1], [0]) batch([], []) : tensor<?x?xf32>, tensor<?xf32> -> tensor<?xf32>
// CHECK-NEXT: %[[SC:[0-9]+]] = kir.contract %[[EQ]], %[[EK]] reduce([1], [1]) batch([], []) : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
// CHECK-NEXT: %[[TQ:[0-9]+]] = kir.broadcast_as %[[ET]] to %[[SC]] dims [0] : tensor<?xindex>, tensor<?x?xf32> -> tensor<?x?xindex>
// CHECK-NEXT: %[[TK:[0-9]+]] = kir.broadcast_as %[[ET]] to %[[SC]] dims [1] : tensor<?xindex>, tensor<?x?xf32> -> tensor<?x?xindex>
// CHECK-NEXT: %[[CAUSAL:[0-9]+]] = kir.cmp le %[[TK]], %[[TQ]] : tensor<?x?xindex>
// CHECK-NEXT: %[[ZS:[0-9]+]] = kir.broadcast_as %[[EZERO]] to %[[SC]] dims [] : f32, tensor<?x?xf32> -> tensor<?x?xf32>
// CHECK-NEXT: %[[MASKED:[0-9]+]] = kir.select %[[CAUSAL]], %[[SC]], %[[ZS]] : tensor<?x?xi1>, tensor<?x?xf32>
// CHECK-NEXT: %[[ANUM:[0-9]+]] = kir.contract %[[MASKED]], %[[EV]] reduce([1], [0]) batch([], []) : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
// CHECK-NEXT: %[[ADEN:[0-9]+]] = kir.reduce %[[MASKED]] axes [1] identity(%[[EZERO]] : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
// CHECK: kir.binary add
// CHECK: %[[NUM:[0-9]+]] = kir.binary add %[[INUM]], %[[ANUM]] : tensor<?x?xf32>
// CHECK-NEXT: %[[DEN:[0-9]+]] = kir.binary add %[[IDEN]], %[[ADEN]] : tensor<?xf32>
// CHECK-NEXT: %[[DENE:[0-9]+]] = kir.broadcast_as %[[DEN]] to %[[NUM]] dims [0] : tensor<?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
// CHECK-NEXT: %[[OS:[0-9]+]] = kir.binary div %[[NUM]], %[[DENE]] : tensor<?x?xf32>
// CHECK-NEXT: kir.yield %[[OS]] : tensor<?x?xf32>
// CHECK-NEXT: }
// CHECK-NEXT: kir.store %[[OUTS]], %[[O]][%[[B]], %[[H]], %[[DT]], %[[DE]]] : tensor<?x?xf32>, !kir.view<f32, [B, H, T, E], out>[index, index, !kir.domain, !kir.domain]
// CHECK-NEXT: kir.store %[[FIN]]#0, %[[SO]][%[[B]], %[[H]], %[[DD]], %[[DE]]] : tensor<?x?xf32>, !kir.view<f32, [B, H, D, E], out>[index, index, !kir.domain, !kir.domain]
// CHECK-NEXT: kir.store %[[FIN]]#1, %[[ZO]][%[[B]], %[[H]], %[[DD]]] : tensor<?xf32>, !kir.view<f32, [B, H, D], out>[index, index, !kir.domain]
// CHECK-NEXT: kir.yield
// CHECK-NEXT: }
// CHECK-NEXT: kir.return
