// RUN: tessel-opt %tessel_src/examples/kir/attention.mlir > %t.1.mlir
// RUN: tessel-opt %t.1.mlir > %t.2.mlir
// RUN: cmp %t.1.mlir %t.2.mlir
// RUN: FileCheck %s --input-file=%t.1.mlir

// Causal attention as a region_fold over the key axis with the online-softmax
// summary (valid, max, den, acc); scalars are spread over slices with
// kir.broadcast_as and CAUSAL is read inside the closed summarize region.

// CHECK: module attributes {kir.compile_options = #kir.compile_options<numerics = relaxed_normalization>}
// CHECK-LABEL: kir.kernel @attention(
// CHECK-SAME: %[[Q:[a-zA-Z0-9_]+]]: !kir.view<f16, [B, H, S, D], in>, %[[K:[a-zA-Z0-9_]+]]: !kir.view<f16, [B, H, T, D], in>, %[[V:[a-zA-Z0-9_]+]]: !kir.view<f16, [B, H, T, D], in>, %[[O:[a-zA-Z0-9_]+]]: !kir.view<f16, [B, H, S, D], out>, %[[SCALE:[a-zA-Z0-9_]+]]: f32)
// CHECK-SAME: attributes {constexprs = {CAUSAL = true}}
// CHECK-DAG: %[[FALSE:[a-zA-Z0-9_]+]] = arith.constant false
// CHECK-DAG: %[[ZERO:[a-zA-Z0-9_]+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[NT:[0-9]+]] = kir.extent "T"
// CHECK-NEXT: %[[ND:[0-9]+]] = kir.extent "D"
// CHECK: %[[DT:[0-9]+]] = kir.domain %c0 to %[[NT]]
// CHECK-NEXT: %[[DD:[0-9]+]] = kir.domain %c0 to %[[ND]]
// CHECK-NEXT: %[[ACC0:[0-9]+]] = kir.broadcast %[[ZERO]] over(%[[DD]]) dims [] : f32 -> tensor<?xf32>
// CHECK-NEXT: %[[KC:[0-9]+]] = kir.indices %[[DT]] : tensor<?xindex>
// CHECK-NEXT: kir.parallel %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} {
// CHECK-NEXT: ^bb0(%[[B:[a-zA-Z0-9_]+]]: index, %[[H:[a-zA-Z0-9_]+]]: index, %[[S:[a-zA-Z0-9_]+]]: index):
// CHECK-NEXT: %[[QROW:[0-9]+]] = kir.load %[[Q]][%[[B]], %[[H]], %[[S]], %[[DD]]] {{.*}} -> tensor<?xf16>
// CHECK-NEXT: %[[KT:[0-9]+]] = kir.load %[[K]][%[[B]], %[[H]], %[[DT]], %[[DD]]] {{.*}} -> tensor<?x?xf16>
// CHECK-NEXT: %[[VT:[0-9]+]] = kir.load %[[V]][%[[B]], %[[H]], %[[DT]], %[[DD]]] {{.*}} -> tensor<?x?xf16>
// CHECK-NEXT: %[[R:[0-9]+]]:4 = kir.region_fold sources(%[[KT]], %[[VT]], %[[KC]] : tensor<?x?xf16>, tensor<?x?xf16>, tensor<?xindex>) axis 0 identity(%[[FALSE]], %[[ZERO]], %[[ZERO]], %[[ACC0]] : i1, f32, f32, tensor<?xf32>) operands(%[[QROW]], %[[S]], %[[SCALE]] : tensor<?xf16>, index, f32) -> (i1, f32, f32, tensor<?xf32>) summarize {
// CHECK-NEXT: ^bb0(%[[KS:[a-zA-Z0-9_]+]]: tensor<?x?xf16>, %[[VS:[a-zA-Z0-9_]+]]: tensor<?x?xf16>, %[[KCS:[a-zA-Z0-9_]+]]: tensor<?xindex>, %[[QA:[a-zA-Z0-9_]+]]: tensor<?xf16>, %[[SA:[a-zA-Z0-9_]+]]: index, %[[SCA:[a-zA-Z0-9_]+]]: f32):
// CHECK-NEXT: %[[F:[a-zA-Z0-9_]+]] = arith.constant false
// CHECK-NEXT: %[[Z:[a-zA-Z0-9_]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[NINF:[a-zA-Z0-9_]+]] = arith.constant 0xFF800000 : f32
// CHECK-NEXT: %[[CAUSAL:[0-9]+]] = kir.constexpr "CAUSAL" : i1
// CHECK-NEXT: %[[RAW:[0-9]+]] = kir.contract %[[QA]], %[[KS]] reduce([0], [1]) batch([], []) : tensor<?xf16>, tensor<?x?xf16> -> tensor<?xf32>
// CHECK-NEXT: %[[SCK:[0-9]+]] = kir.broadcast_as %[[SCA]] to %[[RAW]] dims [] : f32, tensor<?xf32> -> tensor<?xf32>
// CHECK-NEXT: %[[SCORES:[0-9]+]] = kir.binary mul %[[RAW]], %[[SCK]] : tensor<?xf32>
// CHECK-NEXT: %[[VIS:[0-9]+]] = kir.if constexpr %[[CAUSAL]] -> tensor<?xi1> {
// CHECK-NEXT: %[[SK:[0-9]+]] = kir.broadcast_as %[[SA]] to %[[KCS]] dims [] : index, tensor<?xindex> -> tensor<?xindex>
// CHECK-NEXT: %[[BEFORE:[0-9]+]] = kir.cmp le %[[KCS]], %[[SK]] : tensor<?xindex>
// CHECK-NEXT: kir.yield %[[BEFORE]] : tensor<?xi1>
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[TRUE:[a-zA-Z0-9_]+]] = arith.constant true
// CHECK-NEXT: %[[EVERY:[0-9]+]] = kir.broadcast_as %[[TRUE]] to %[[KCS]] dims [] : i1, tensor<?xindex> -> tensor<?xi1>
// CHECK-NEXT: kir.yield %[[EVERY]] : tensor<?xi1>
// CHECK-NEXT: }
// CHECK-NEXT: %[[ANY:[0-9]+]] = kir.reduce %[[VIS]] axes [0] identity(%[[F]] : i1) : (tensor<?xi1>) -> (i1) {
// CHECK: kir.binary or
// CHECK: %[[NINFK:[0-9]+]] = kir.broadcast_as %[[NINF]] to %[[SCORES]] dims [] : f32, tensor<?xf32> -> tensor<?xf32>
// CHECK-NEXT: %[[MASKED:[0-9]+]] = kir.select %[[VIS]], %[[SCORES]], %[[NINFK]] : tensor<?xi1>, tensor<?xf32>
// CHECK-NEXT: %[[TOP:[0-9]+]] = kir.reduce %[[MASKED]] axes [0] identity(%[[NINF]] : f32) : (tensor<?xf32>) -> (f32) {
// CHECK: kir.binary max
// CHECK: %[[M:[0-9]+]] = kir.select %[[ANY]], %[[TOP]], %[[Z]] : i1, f32
// CHECK-NEXT: %[[MK:[0-9]+]] = kir.broadcast_as %[[M]] to %[[SCORES]] dims [] : f32, tensor<?xf32> -> tensor<?xf32>
// CHECK-NEXT: %[[SH:[0-9]+]] = kir.binary sub %[[SCORES]], %[[MK]] : tensor<?xf32>
// CHECK-NEXT: %[[E:[0-9]+]] = kir.unary exp %[[SH]] : tensor<?xf32>
// CHECK-NEXT: %[[ZK:[0-9]+]] = kir.broadcast_as %[[Z]] to %[[SCORES]] dims [] : f32, tensor<?xf32> -> tensor<?xf32>
// CHECK-NEXT: %[[P:[0-9]+]] = kir.select %[[VIS]], %[[E]], %[[ZK]] : tensor<?xi1>, tensor<?xf32>
// CHECK-NEXT: %[[DEN:[0-9]+]] = kir.reduce %[[P]] axes [0] identity(%[[Z]] : f32) : (tensor<?xf32>) -> (f32) {
// CHECK: kir.binary add
// CHECK: %[[VF:[0-9]+]] = kir.cast %[[VS]] : tensor<?x?xf16> to tensor<?x?xf32>
// CHECK-NEXT: %[[ACC:[0-9]+]] = kir.contract %[[P]], %[[VF]] reduce([0], [0]) batch([], []) : tensor<?xf32>, tensor<?x?xf32> -> tensor<?xf32>
// CHECK-NEXT: kir.yield %[[ANY]], %[[M]], %[[DEN]], %[[ACC]] : i1, f32, f32, tensor<?xf32>
// CHECK-NEXT: } combine {
// CHECK-NEXT: ^bb0(%[[V1:[a-zA-Z0-9_]+]]: i1, %[[M1:[a-zA-Z0-9_]+]]: f32, %[[D1:[a-zA-Z0-9_]+]]: f32, %[[A1:[a-zA-Z0-9_]+]]: tensor<?xf32>, %[[V2:[a-zA-Z0-9_]+]]: i1, %[[M2:[a-zA-Z0-9_]+]]: f32, %[[D2:[a-zA-Z0-9_]+]]: f32, %[[A2:[a-zA-Z0-9_]+]]: tensor<?xf32>):
// CHECK-NEXT: %[[CZ:[a-zA-Z0-9_]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[VV:[0-9]+]] = kir.binary or %[[V1]], %[[V2]] : i1
// CHECK-NEXT: %[[M12:[0-9]+]] = kir.binary max %[[M1]], %[[M2]] : f32
// CHECK-NEXT: %[[MV2:[0-9]+]] = kir.select %[[V1]], %[[M12]], %[[M2]] : i1, f32
// CHECK-NEXT: %[[MM:[0-9]+]] = kir.select %[[V2]], %[[MV2]], %[[M1]] : i1, f32
// CHECK-NEXT: %[[X1:[0-9]+]] = kir.binary sub %[[M1]], %[[MM]] : f32
// CHECK-NEXT: %[[E1:[0-9]+]] = kir.unary exp %[[X1]] : f32
// CHECK-NEXT: %[[AL1:[0-9]+]] = kir.select %[[V1]], %[[E1]], %[[CZ]] : i1, f32
// CHECK-NEXT: %[[X2:[0-9]+]] = kir.binary sub %[[M2]], %[[MM]] : f32
// CHECK-NEXT: %[[E2:[0-9]+]] = kir.unary exp %[[X2]] : f32
// CHECK-NEXT: %[[AL2:[0-9]+]] = kir.select %[[V2]], %[[E2]], %[[CZ]] : i1, f32
// CHECK-NEXT: %[[DW1:[0-9]+]] = kir.binary mul %[[D1]], %[[AL1]] : f32
// CHECK-NEXT: %[[DW2:[0-9]+]] = kir.binary mul %[[D2]], %[[AL2]] : f32
// CHECK-NEXT: %[[DD12:[0-9]+]] = kir.binary add %[[DW1]], %[[DW2]] : f32
// CHECK-NEXT: %[[AL1A:[0-9]+]] = kir.broadcast_as %[[AL1]] to %[[A1]] dims [] : f32, tensor<?xf32> -> tensor<?xf32>
// CHECK-NEXT: %[[AL2A:[0-9]+]] = kir.broadcast_as %[[AL2]] to %[[A2]] dims [] : f32, tensor<?xf32> -> tensor<?xf32>
// CHECK-NEXT: %[[AW1:[0-9]+]] = kir.binary mul %[[A1]], %[[AL1A]] : tensor<?xf32>
// CHECK-NEXT: %[[AW2:[0-9]+]] = kir.binary mul %[[A2]], %[[AL2A]] : tensor<?xf32>
// CHECK-NEXT: %[[AA:[0-9]+]] = kir.binary add %[[AW1]], %[[AW2]] : tensor<?xf32>
// CHECK-NEXT: kir.yield %[[VV]], %[[MM]], %[[DD12]], %[[AA]] : i1, f32, f32, tensor<?xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[DENB:[0-9]+]] = kir.broadcast %[[R]]#2 over(%[[DD]]) dims [] : f32 -> tensor<?xf32>
// CHECK-NEXT: %[[OUT:[0-9]+]] = kir.binary div %[[R]]#3, %[[DENB]] : tensor<?xf32>
// CHECK-NEXT: %[[OSEL:[0-9]+]] = kir.select %[[R]]#0, %[[OUT]], %[[ACC0]] : i1, tensor<?xf32>
// CHECK-NEXT: %[[O16:[0-9]+]] = kir.cast %[[OSEL]] : tensor<?xf32> to tensor<?xf16>
// CHECK-NEXT: kir.store %[[O16]], %[[O]][%[[B]], %[[H]], %[[S]], %[[DD]]] : tensor<?xf16>, !kir.view<f16, [B, H, S, D], out>[index, index, index, !kir.domain]
// CHECK-NEXT: kir.yield
// CHECK-NEXT: }
// CHECK-NEXT: kir.return
