// RUN: tessel-opt %s | tessel-opt | FileCheck %s
// RUN: tessel-opt %s --mlir-print-op-generic | tessel-opt | FileCheck %s
// COM: Every kir op, in its custom assembly format, round-trips through the printer and parser.

module attributes {kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>} {

// CHECK: module attributes {kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>}
// CHECK-LABEL: kir.kernel @abi_and_domains
// CHECK-SAME: (%{{.*}}: !kir.view<f16, [M, 64], in>, %{{.*}}: !kir.view<i32, [E], in>, %{{.*}}: !kir.view<f32, [M], out>, %{{.*}}: f32)
// CHECK-SAME: attributes {constexprs = {CAUSAL = true, MODE = "fast", WIDTH = 4 : i64}}
kir.kernel @abi_and_domains(%x: !kir.view<f16, [M, 64], in>, %map: !kir.view<i32, [E], in>,
                            %y: !kir.view<f32, [M], out>, %s: f32)
    attributes {constexprs = {CAUSAL = true, WIDTH = 4 : i64, MODE = "fast"}} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  // CHECK: kir.extent "M"
  %m = kir.extent "M"
  // CHECK: kir.constexpr "CAUSAL" : i1
  %causal = kir.constexpr "CAUSAL" : i1
  // CHECK: kir.constexpr "WIDTH" : i64
  %w = kir.constexpr "WIDTH" : i64
  // CHECK: kir.domain %{{.*}} to %{{.*}}{{$}}
  %dm = kir.domain %c0 to %m
  // CHECK: kir.domain %{{.*}} to %{{.*}} step 2
  %even = kir.domain %c0 to %m step 2
  %dk = kir.domain %c0 to %c64
  // CHECK: kir.subregion %{{.*}}[%{{.*}} : %{{.*}}]
  %head = kir.subregion %dm[%c0 : %c64]
  // CHECK: kir.indices %{{.*}} : tensor<?xindex>
  %idx = kir.indices %head : tensor<?xindex>
  // CHECK: kir.index_relation %{{.*}}[%{{.*}}] : !kir.view<i32, [E], in> -> tensor<?xindex>
  %rows = kir.index_relation %map[%head] : !kir.view<i32, [E], in> -> tensor<?xindex>
  // CHECK: kir.parallel %{{.*}} {
  // CHECK-NEXT: ^bb0(%{{.*}}: index):
  kir.parallel %dm {
  ^bb0(%i: index):
    // CHECK: kir.load %{{.*}}[%{{.*}}, %{{.*}}] : !kir.view<f16, [M, 64], in>[index, !kir.domain] -> tensor<?xf16>
    %row = kir.load %x[%i, %dk] : !kir.view<f16, [M, 64], in>[index, !kir.domain] -> tensor<?xf16>
    // CHECK: kir.cast %{{.*}} : tensor<?xf16> to tensor<?xf32>
    %rowf = kir.cast %row : tensor<?xf16> to tensor<?xf32>
    %zero = arith.constant 0.0 : f32
    %sum = kir.reduce %rowf axes [0] identity(%zero : f32) : (tensor<?xf32>) -> (f32) {
    ^bb0(%a: f32, %b: f32):
      %c = kir.binary add %a, %b : f32
      kir.yield %c : f32
    }
    // CHECK: kir.store %{{.*}}, %{{.*}}[%{{.*}}] : f32, !kir.view<f32, [M], out>[index]
    kir.store %sum, %y[%i] : f32, !kir.view<f32, [M], out>[index]
    kir.yield
  }
  // CHECK: kir.return
  kir.return
}

// CHECK-LABEL: kir.kernel @control
kir.kernel @control(%n: i32, %y: !kir.view<i32, [N], out>) attributes {constexprs = {CAUSAL = false}} {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i32
  %two = arith.constant 2 : i32
  %nn = kir.extent "N"
  %d = kir.domain %c0 to %nn
  // CHECK: kir.for %{{.*}} iter_args(%{{.*}} : i32) -> i32 {
  // CHECK-NEXT: ^bb0(%{{.*}}: index, %{{.*}}: i32):
  %s = kir.for %d iter_args(%one : i32) -> i32 {
  ^bb0(%i: index, %acc: i32):
    %next = kir.binary mul %acc, %two : i32
    kir.yield %next : i32
  }
  // CHECK: kir.while(%{{.*}} : i32) -> i32 {
  // CHECK: kir.condition %{{.*}}, %{{.*}} : i32
  // CHECK: } do {
  %w = kir.while (%one : i32) -> i32 {
  ^bb0(%x: i32):
    %c = kir.cmp lt %x, %n : i32
    kir.condition %c, %x : i32
  } do {
  ^bb0(%x: i32):
    %x2 = kir.binary mul %x, %two : i32
    kir.yield %x2 : i32
  }
  %causal = kir.constexpr "CAUSAL" : i1
  // CHECK: kir.if constexpr %{{.*}} -> i32 {
  // CHECK: } else {
  %v = kir.if constexpr %causal -> i32 {
    kir.yield %s : i32
  } else {
    kir.yield %w : i32
  }
  %cmp = kir.cmp gt %v, %n : i32
  // CHECK: kir.if %{{.*}} {
  kir.if %cmp {
    kir.store %v, %y[%c0] : i32, !kir.view<i32, [N], out>[index]
    kir.yield
  }
  kir.return
}

// CHECK-LABEL: kir.kernel @pointwise_and_shapes
kir.kernel @pointwise_and_shapes(%x: !kir.view<f32, [N], in>, %y: !kir.view<f32, [N, 2], out>) {
  %c0 = arith.constant 0 : index
  %n = kir.extent "N"
  %d = kir.domain %c0 to %n
  %t = kir.load %x[%d] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
  // CHECK: kir.binary div %{{.*}}, %{{.*}} {approximate, flush_to_zero} : tensor<?xf32>
  %q = kir.binary div %t, %t {approximate, flush_to_zero} : tensor<?xf32>
  // CHECK: kir.binary max_num
  %mx = kir.binary max_num %q, %t : tensor<?xf32>
  // CHECK: kir.unary exp2 %{{.*}} {approximate} : tensor<?xf32>
  %e = kir.unary exp2 %mx {approximate} : tensor<?xf32>
  // CHECK: kir.unary tanh
  %th = kir.unary tanh %e : tensor<?xf32>
  %sg0 = kir.unary sigmoid %th : tensor<?xf32>
  // CHECK: kir.unary log1p
  %lp = kir.unary log1p %sg0 : tensor<?xf32>
  // CHECK: kir.unary expm1
  %sg = kir.unary expm1 %lp : tensor<?xf32>
  // CHECK: kir.unary round
  %rn = kir.unary round %sg : tensor<?xf32>
  %rs = kir.unary rsqrt %rn : tensor<?xf32>
  // CHECK: kir.cmp ge %{{.*}}, %{{.*}} : tensor<?xf32>
  %m = kir.cmp ge %rs, %t : tensor<?xf32>
  // CHECK: kir.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<?xi1>, tensor<?xf32>
  %sel = kir.select %m, %rs, %t : tensor<?xi1>, tensor<?xf32>
  // CHECK: kir.bitcast %{{.*}} : tensor<?xf32> to tensor<?xi32>
  %bits = kir.bitcast %sel : tensor<?xf32> to tensor<?xi32>
  %back = kir.bitcast %bits : tensor<?xi32> to tensor<?xf32>
  // CHECK: kir.join %{{.*}}, %{{.*}} : tensor<?xf32> -> tensor<?x2xf32>
  %pair = kir.join %back, %t : tensor<?xf32> -> tensor<?x2xf32>
  %c2 = arith.constant 2 : index
  %d2 = kir.domain %c0 to %c2
  kir.store %pair, %y[%d, %d2] : tensor<?x2xf32>, !kir.view<f32, [N, 2], out>[!kir.domain, !kir.domain]
  // CHECK: kir.broadcast %{{.*}} over(%{{.*}}, %{{.*}}) dims [0] : tensor<?xf32> -> tensor<?x?xf32>
  %b2 = kir.broadcast %t over(%d, %d) dims [0] : tensor<?xf32> -> tensor<?x?xf32>
  // CHECK: kir.broadcast_as %{{.*}} to %{{.*}} dims [] : f32, tensor<?x?xf32> -> tensor<?x?xf32>
  %one = arith.constant 1.0 : f32
  %ones = kir.broadcast_as %one to %b2 dims [] : f32, tensor<?x?xf32> -> tensor<?x?xf32>
  // CHECK: kir.transpose %{{.*}} [1, 0] : tensor<?x?xf32> -> tensor<?x?xf32>
  %tr = kir.transpose %b2 [1, 0] : tensor<?x?xf32> -> tensor<?x?xf32>
  // CHECK: kir.reshape %{{.*}} over(%{{.*}}) : tensor<?x?xf32> -> tensor<?xf32>
  %flat = kir.reshape %tr over(%d) : tensor<?x?xf32> -> tensor<?xf32>
  // CHECK: kir.extract %{{.*}}[%{{.*}}] : tensor<?xf32>
  %first = kir.extract %flat[%c0] : tensor<?xf32>
  // CHECK: kir.tuple %{{.*}}, %{{.*}} : f32, index -> tuple<f32, index>
  %tup = kir.tuple %first, %c0 : f32, index -> tuple<f32, index>
  // CHECK: kir.tuple_get %{{.*}}[1] : tuple<f32, index> -> index
  %ti = kir.tuple_get %tup[1] : tuple<f32, index> -> index
  // CHECK: kir.record %{{.*}}, %{{.*}} : f32, f32 -> !kir.record<max: f32, den: f32>
  %rec = kir.record %first, %first : f32, f32 -> !kir.record<max: f32, den: f32>
  // CHECK: kir.record_get %{{.*}}["den"] : !kir.record<max: f32, den: f32> -> f32
  %den = kir.record_get %rec["den"] : !kir.record<max: f32, den: f32> -> f32
  kir.return
}

// CHECK-LABEL: kir.kernel @structured
kir.kernel @structured(%x: !kir.view<f32, [M, N], in>, %h: !kir.view<i32, [B], out>,
                       %v: !kir.view<f32, [M], out>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %m = kir.extent "M"
  %n = kir.extent "N"
  %b = kir.extent "B"
  %dm = kir.domain %c0 to %m
  %dn = kir.domain %c0 to %n
  %db = kir.domain %c0 to %b
  %t = kir.load %x[%dm, %dn] : !kir.view<f32, [M, N], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
  // CHECK: kir.reduce %{{.*}}, %{{.*}} axes [1] identity(%{{.*}}, %{{.*}} : f32, f32) : (tensor<?x?xf32>, tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %mx, %s = kir.reduce %t, %t axes [1] identity(%ninf, %zero : f32, f32)
      : (tensor<?x?xf32>, tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  ^bb0(%a0: f32, %a1: f32, %b0: f32, %b1: f32):
    %c0m = kir.binary max %a0, %b0 : f32
    %c1s = kir.binary add %a1, %b1 : f32
    kir.yield %c0m, %c1s : f32, f32
  }
  // CHECK: kir.arg_reduce argmax %{{.*}} axis 1 tie lowest nan propagate : tensor<?x?xf32> -> tensor<?xf32>, tensor<?xindex>
  %av, %ai = kir.arg_reduce argmax %t axis 1 tie lowest nan propagate : tensor<?x?xf32> -> tensor<?xf32>, tensor<?xindex>
  kir.store %av, %v[%dm] : tensor<?xf32>, !kir.view<f32, [M], out>[!kir.domain]
  // CHECK: kir.scan %{{.*}} axis 1 identity(%{{.*}} : f32) exclusive reverse : (tensor<?x?xf32>) -> (tensor<?x?xf32>) {
  %cs = kir.scan %t axis 1 identity(%zero : f32) exclusive reverse : (tensor<?x?xf32>) -> (tensor<?x?xf32>) {
  ^bb0(%a: f32, %bb: f32):
    %c = kir.binary add %a, %bb : f32
    kir.yield %c : f32
  }
  // CHECK: kir.contract %{{.*}}, %{{.*}} reduce([1], [1]) batch([], []) : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  %g = kir.contract %t, %cs reduce([1], [1]) batch([], []) : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  // CHECK: kir.contract %{{.*}}, %{{.*}} init %{{.*}} reduce([1], [0]) batch([], [])
  %tt = kir.transpose %t [1, 0] : tensor<?x?xf32> -> tensor<?x?xf32>
  %g2 = kir.contract %t, %tt init %g reduce([1], [0]) batch([], []) : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  %xi = kir.cast %t : tensor<?x?xf32> to tensor<?x?xi32>
  %row0 = kir.extract %xi[%c0, %c0] : tensor<?x?xi32>
  %flat = kir.load %x[%c0, %dn] : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
  %ints = kir.cast %flat : tensor<?xf32> to tensor<?xi32>
  %zi = arith.constant 0 : i32
  %zb = kir.broadcast %zi over(%dn) dims [] : i32 -> tensor<?xi32>
  %ok = kir.cmp ge %ints, %zb : tensor<?xi32>
  // CHECK: kir.histogram %{{.*}} bins(%{{.*}}) valid %{{.*}} : tensor<?xi32>, tensor<?xi1> -> tensor<?xi32>
  %hist = kir.histogram %ints bins(%db) valid %ok : tensor<?xi32>, tensor<?xi1> -> tensor<?xi32>
  kir.store %hist, %h[%db] : tensor<?xi32>, !kir.view<i32, [B], out>[!kir.domain]
  kir.return
}

// CHECK-LABEL: kir.kernel @declared_contracts
kir.kernel @declared_contracts(%a: !kir.view<f8E4M3FN, [M, K], in>, %sa: !kir.view<f8E8M0FNU, [M, KS], in>,
                               %bm: !kir.view<f8E4M3FN, [K, N], in>, %sb: !kir.view<f8E8M0FNU, [KS, N], in>,
                               %h: !kir.view<f16, [M, K], in>, %meta: !kir.view<i16, [M, K], in>) {
  %c0 = arith.constant 0 : index
  %m = kir.extent "M"
  %k = kir.extent "K"
  %ks = kir.extent "KS"
  %n = kir.extent "N"
  %dm = kir.domain %c0 to %m
  %dk = kir.domain %c0 to %k
  %dks = kir.domain %c0 to %ks
  %dn = kir.domain %c0 to %n
  %ta = kir.load %a[%dm, %dk] : !kir.view<f8E4M3FN, [M, K], in>[!kir.domain, !kir.domain] -> tensor<?x?xf8E4M3FN>
  %tsa = kir.load %sa[%dm, %dks] : !kir.view<f8E8M0FNU, [M, KS], in>[!kir.domain, !kir.domain] -> tensor<?x?xf8E8M0FNU>
  %tb = kir.load %bm[%dk, %dn] : !kir.view<f8E4M3FN, [K, N], in>[!kir.domain, !kir.domain] -> tensor<?x?xf8E4M3FN>
  %tsb = kir.load %sb[%dks, %dn] : !kir.view<f8E8M0FNU, [KS, N], in>[!kir.domain, !kir.domain] -> tensor<?x?xf8E8M0FNU>
  // CHECK: kir.scaled_contract %{{.*}} scale %{{.*}}, %{{.*}} scale %{{.*}} format "mxfp8" block 32 reduce([1], [0])
  %c = kir.scaled_contract %ta scale %tsa, %tb scale %tsb format "mxfp8" block 32 reduce([1], [0])
      : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>, tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU> -> tensor<?x?xf32>
  %th = kir.load %h[%dm, %dk] : !kir.view<f16, [M, K], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
  %tm = kir.load %meta[%dm, %dk] : !kir.view<i16, [M, K], in>[!kir.domain, !kir.domain] -> tensor<?x?xi16>
  %thb = kir.transpose %th [1, 0] : tensor<?x?xf16> -> tensor<?x?xf16>
  // CHECK: kir.sparse_contract %{{.*}} meta %{{.*}}, %{{.*}} pattern 2 : 4 reduce([1], [0])
  %sp = kir.sparse_contract %th meta %tm, %thb pattern 2 : 4 reduce([1], [0])
      : tensor<?x?xf16>, tensor<?x?xi16>, tensor<?x?xf16> -> tensor<?x?xf32>
  kir.return
}

// CHECK-LABEL: kir.kernel @folds
kir.kernel @folds(%x: !kir.view<f32, [N], in>, %y: !kir.view<f32, [N], out>, %st: !kir.view<f32, [1], out>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %n = kir.extent "N"
  %d = kir.domain %c0 to %n
  %row = kir.load %x[%d] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
  // CHECK: kir.region_fold sources(%{{.*}} : tensor<?xf32>) axis 0 identity(%{{.*}}, %{{.*}} : f32, f32) operands(%{{.*}} : f32) -> (f32, f32) summarize {
  // CHECK: } combine {
  %mx, %den = kir.region_fold sources(%row : tensor<?xf32>) axis 0 identity(%ninf, %zero : f32, f32)
      operands(%zero : f32) -> (f32, f32)
  summarize {
  ^bb0(%s: tensor<?xf32>, %z: f32):
    %m = kir.reduce %s axes [0] identity(%ninf : f32) : (tensor<?xf32>) -> (f32) {
    ^bb0(%a: f32, %b: f32):
      %c = kir.binary max %a, %b : f32
      kir.yield %c : f32
    }
    kir.yield %m, %z : f32, f32
  } combine {
  ^bb0(%m1: f32, %d1: f32, %m2: f32, %d2: f32):
    %m = kir.binary max %m1, %m2 : f32
    %dd = kir.binary add %d1, %d2 : f32
    kir.yield %m, %dd : f32, f32
  }
  // CHECK: kir.region_scan sources(%{{.*}} : tensor<?xf32>) axis 0 identity(%{{.*}} : f32) init(%{{.*}} : f32) -> (tensor<?xf32>) final(f32) summarize {
  // CHECK: } combine {
  // CHECK: } apply {
  // CHECK: } emit {
  %out, %final = kir.region_scan sources(%row : tensor<?xf32>) axis 0 identity(%zero : f32) init(%zero : f32)
      -> (tensor<?xf32>) final(f32)
  summarize {
  ^bb0(%s: tensor<?xf32>):
    %z = arith.constant 0.0 : f32
    %t = kir.reduce %s axes [0] identity(%z : f32) : (tensor<?xf32>) -> (f32) {
    ^bb0(%a: f32, %b: f32):
      %c = kir.binary add %a, %b : f32
      kir.yield %c : f32
    }
    kir.yield %t : f32
  } combine {
  ^bb0(%a: f32, %b: f32):
    %c = kir.binary add %a, %b : f32
    kir.yield %c : f32
  } apply {
  ^bb0(%t: f32, %state: f32):
    %c = kir.binary add %t, %state : f32
    kir.yield %c : f32
  } emit {
  ^bb0(%s: tensor<?xf32>, %state: f32):
    %z = arith.constant 0.0 : f32
    %p = kir.scan %s axis 0 identity(%z : f32) : (tensor<?xf32>) -> (tensor<?xf32>) {
    ^bb0(%a: f32, %b: f32):
      %c = kir.binary add %a, %b : f32
      kir.yield %c : f32
    }
    kir.yield %p : tensor<?xf32>
  }
  kir.store %out, %y[%d] : tensor<?xf32>, !kir.view<f32, [N], out>[!kir.domain]
  kir.store %final, %st[%c0] : f32, !kir.view<f32, [1], out>[index]
  kir.return
}

// CHECK-LABEL: kir.kernel @effects
kir.kernel @effects(%table: !kir.view<f32, [V, D], in>, %ids: !kir.view<i32, [T], in>,
                    %grad: !kir.view<f32, [V, D], inout>, %out: !kir.view<f32, [T, D], out>,
                    %flags: !kir.view<i32, [T], inout>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1 : i32
  %t = kir.extent "T"
  %dd = kir.extent "D"
  %dt = kir.domain %c0 to %t
  %ddom = kir.domain %c0 to %dd
  %rows = kir.index_relation %ids[%dt] : !kir.view<i32, [T], in> -> tensor<?xindex>
  // CHECK: kir.gather %{{.*}}[%{{.*}}, %{{.*}}] : !kir.view<f32, [V, D], in>[tensor<?xindex>, !kir.domain] -> tensor<?x?xf32>
  %g = kir.gather %table[%rows, %ddom] : !kir.view<f32, [V, D], in>[tensor<?xindex>, !kir.domain] -> tensor<?x?xf32>
  // CHECK: kir.load %{{.*}}[%{{.*}}, %{{.*}}] valid %{{.*}} : tensor<?x?xi1> fill %{{.*}} : f32 : !kir.view<f32, [V, D], in>
  %mask = kir.cmp gt %g, %g : tensor<?x?xf32>
  %l = kir.load %table[%dt, %ddom] valid %mask : tensor<?x?xi1> fill %zero : f32
      : !kir.view<f32, [V, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
  // CHECK: kir.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] valid %{{.*}} : tensor<?x?xi1>
  kir.store %l, %out[%dt, %ddom] valid %mask : tensor<?x?xi1> : tensor<?x?xf32>, !kir.view<f32, [T, D], out>[!kir.domain, !kir.domain]
  // CHECK: kir.scatter %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : tensor<?x?xf32>, !kir.view<f32, [V, D], inout>[tensor<?xindex>, !kir.domain]
  kir.scatter %g, %grad[%rows, %ddom] : tensor<?x?xf32>, !kir.view<f32, [V, D], inout>[tensor<?xindex>, !kir.domain]
  // CHECK: kir.scatter_reduce %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : tensor<?x?xf32>, !kir.view<f32, [V, D], inout>[tensor<?xindex>, !kir.domain] {
  kir.scatter_reduce %g, %grad[%rows, %ddom] : tensor<?x?xf32>, !kir.view<f32, [V, D], inout>[tensor<?xindex>, !kir.domain] {
  ^bb0(%a: f32, %b: f32):
    %s = kir.binary add %a, %b : f32
    kir.yield %s : f32
  }
  // CHECK: kir.atomic_load %{{.*}}[%{{.*}}] order acquire sharing invocation : !kir.view<i32, [T], inout>[index] -> i32
  %f = kir.atomic_load %flags[%c0] order acquire sharing invocation : !kir.view<i32, [T], inout>[index] -> i32
  // CHECK: kir.atomic_store %{{.*}}, %{{.*}}[%{{.*}}] order release sharing invocation : i32, !kir.view<i32, [T], inout>[index]
  kir.atomic_store %one, %flags[%c0] order release sharing invocation : i32, !kir.view<i32, [T], inout>[index]
  // CHECK: kir.atomic_rmw add %{{.*}}, %{{.*}}[%{{.*}}] order relaxed sharing parallel : i32, !kir.view<i32, [T], inout>[index] -> i32
  %old = kir.atomic_rmw add %one, %flags[%c0] order relaxed sharing parallel : i32, !kir.view<i32, [T], inout>[index] -> i32
  // CHECK: kir.atomic_cas %{{.*}}, %{{.*}}, %{{.*}}[%{{.*}}] order acq_rel sharing invocation : i32, !kir.view<i32, [T], inout>[index] -> i1
  %prev, %won = kir.atomic_cas %old, %f, %flags[%c0] order acq_rel sharing invocation : i32, !kir.view<i32, [T], inout>[index] -> i1
  // CHECK: kir.buffer over(%{{.*}}) init %{{.*}} : f32 : !kir.buffer<tensor<?xf32>>
  %acc = kir.buffer over(%ddom) init %zero : f32 : !kir.buffer<tensor<?xf32>>
  // CHECK: kir.buffer over(%{{.*}}) first_write : !kir.buffer<tensor<?xf32>>
  %tmp = kir.buffer over(%ddom) first_write : !kir.buffer<tensor<?xf32>>
  // CHECK: kir.buffer_load %{{.*}}[%{{.*}}] : !kir.buffer<tensor<?xf32>>[!kir.domain] -> tensor<?xf32>
  %bv = kir.buffer_load %acc[%ddom] : !kir.buffer<tensor<?xf32>>[!kir.domain] -> tensor<?xf32>
  // CHECK: kir.buffer_store %{{.*}}, %{{.*}}[%{{.*}}] : tensor<?xf32>, !kir.buffer<tensor<?xf32>>[!kir.domain]
  kir.buffer_store %bv, %tmp[%ddom] : tensor<?xf32>, !kir.buffer<tensor<?xf32>>[!kir.domain]
  kir.return
}

}
