// RUN: tessel-opt %s -split-input-file -kir-flatten-records | FileCheck %s --enable-var-scope
// RUN: tessel-opt %s -split-input-file -kir-flatten-records -verify-diagnostics -o /dev/null

// COM: A record summary {m, den} folds as its two fields: the identity's kir.record gives its
// COM: fields, summarize yields the fields of its kir.record, combine takes one argument per field
// COM: (earlier m, den, later m, den) and its record_gets read them, and the result's record_get
// COM: reads the field result. No record is left.
// CHECK-LABEL: kir.kernel @online
// CHECK-NOT: kir.record
// CHECK: %[[F:.*]]:2 = kir.region_fold sources(%{{.*}} : tensor<?xf32>) axis 0 identity(%[[NINF:.*]], %[[ZERO:.*]] : f32, f32) -> (f32, f32)
// CHECK: kir.yield %[[SM:.*]], %[[SD:.*]] : f32, f32
// CHECK: } combine {
// CHECK-NEXT: ^bb0(%[[M1:.*]]: f32, %[[D1:.*]]: f32, %[[M2:.*]]: f32, %[[D2:.*]]: f32):
// CHECK-NEXT: %[[MX:.*]] = kir.binary max %[[M1]], %[[M2]] : f32
// CHECK: kir.binary mul %[[D1]],
// CHECK: kir.binary mul %[[D2]],
// CHECK: kir.yield %[[MX]], %{{.*}} : f32, f32
// CHECK: kir.store %[[F]]#1, %{{.*}}[%{{.*}}]
// CHECK-NOT: kir.record
module {
  kir.kernel @online(%x: !kir.view<f32, [N], in>, %y: !kir.view<f32, [1], out>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %ninf = arith.constant 0xFF800000 : f32
    %zero = arith.constant 0.0 : f32
    %n = kir.extent "N"
    %d = kir.domain %c0 to %n
    %one = kir.domain %c0 to %c1
    %id = kir.record %ninf, %zero : f32, f32 -> !kir.record<m: f32, den: f32>
    kir.parallel %one {
    ^bb0(%i: index):
      %t = kir.load %x[%d] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
      %s = kir.region_fold sources(%t : tensor<?xf32>) axis 0 identity(%id : !kir.record<m: f32, den: f32>)
          -> (!kir.record<m: f32, den: f32>)
      summarize {
      ^bb0(%sl: tensor<?xf32>):
        %ni = arith.constant 0xFF800000 : f32
        %z = arith.constant 0.0 : f32
        %m = kir.reduce %sl axes [0] identity(%ni : f32) : (tensor<?xf32>) -> (f32) {
        ^bb0(%a: f32, %b: f32):
          %c = kir.binary max %a, %b : f32
          kir.yield %c : f32
        }
        %mb = kir.broadcast_as %m to %sl dims [] : f32, tensor<?xf32> -> tensor<?xf32>
        %sh = kir.binary sub %sl, %mb : tensor<?xf32>
        %e = kir.unary exp %sh : tensor<?xf32>
        %den = kir.reduce %e axes [0] identity(%z : f32) : (tensor<?xf32>) -> (f32) {
        ^bb0(%a: f32, %b: f32):
          %c = kir.binary add %a, %b : f32
          kir.yield %c : f32
        }
        %r = kir.record %m, %den : f32, f32 -> !kir.record<m: f32, den: f32>
        kir.yield %r : !kir.record<m: f32, den: f32>
      } combine {
      ^bb0(%p: !kir.record<m: f32, den: f32>, %q: !kir.record<m: f32, den: f32>):
        %m1 = kir.record_get %p["m"] : !kir.record<m: f32, den: f32> -> f32
        %m2 = kir.record_get %q["m"] : !kir.record<m: f32, den: f32> -> f32
        %d1 = kir.record_get %p["den"] : !kir.record<m: f32, den: f32> -> f32
        %d2 = kir.record_get %q["den"] : !kir.record<m: f32, den: f32> -> f32
        %m = kir.binary max %m1, %m2 : f32
        %x1 = kir.binary sub %m1, %m : f32
        %x2 = kir.binary sub %m2, %m : f32
        %e1 = kir.unary exp %x1 : f32
        %e2 = kir.unary exp %x2 : f32
        %w1 = kir.binary mul %d1, %e1 : f32
        %w2 = kir.binary mul %d2, %e2 : f32
        %den = kir.binary add %w1, %w2 : f32
        %r = kir.record %m, %den : f32, f32 -> !kir.record<m: f32, den: f32>
        kir.yield %r : !kir.record<m: f32, den: f32>
      }
      %den = kir.record_get %s["den"] : !kir.record<m: f32, den: f32> -> f32
      kir.store %den, %y[%i] : f32, !kir.view<f32, [1], out>[index]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: A plain component beside a record, and records used whole. Summarize yields a record it
// COM: chose with kir.if (no kir.record defines it): one record_get per field before the yield.
// COM: Combine chooses one of its record arguments whole: each is rebuilt at the top of combine from
// COM: its field arguments. The first fold's record result is chosen whole after the fold (rebuilt
// COM: there from the field results) and is the second fold's identity (read field by field).
// CHECK-LABEL: kir.kernel @mixed
// CHECK: %[[F:.*]]:3 = kir.region_fold sources(%{{.*}} : tensor<?xf32>) axis 0 identity(%{{.*}}, %{{.*}}, %{{.*}} : index, f32, f32) -> (index, f32, f32)
// CHECK: %[[R:.*]] = kir.if
// CHECK: %[[GA:.*]] = kir.record_get %[[R]]["a"]
// CHECK-NEXT: %[[GB:.*]] = kir.record_get %[[R]]["b"]
// CHECK-NEXT: kir.yield %{{.*}}, %[[GA]], %[[GB]] : index, f32, f32
// CHECK: } combine {
// CHECK-NEXT: ^bb0(%[[C1:.*]]: index, %[[A1:.*]]: f32, %[[B1:.*]]: f32, %[[C2:.*]]: index, %[[A2:.*]]: f32, %[[B2:.*]]: f32):
// CHECK-NEXT: %[[R1:.*]] = kir.record %[[A1]], %[[B1]] : f32, f32 -> !kir.record<a: f32, b: f32>
// CHECK-NEXT: %[[R2:.*]] = kir.record %[[A2]], %[[B2]] : f32, f32 -> !kir.record<a: f32, b: f32>
// CHECK: kir.yield %[[R1]]
// CHECK: kir.yield %[[R2]]
// CHECK: kir.record_get
// CHECK-NEXT: kir.record_get
// CHECK-NEXT: kir.yield %{{.*}}, %{{.*}}, %{{.*}} : index, f32, f32
// CHECK: }
// CHECK-NEXT: %[[RES:.*]] = kir.record %[[F]]#1, %[[F]]#2 : f32, f32 -> !kir.record<a: f32, b: f32>
// CHECK: kir.yield %[[RES]]
// CHECK: kir.region_fold {{.*}} identity(%[[F]]#1, %[[F]]#2 : f32, f32) -> (f32, f32)
module {
  kir.kernel @mixed(%x: !kir.view<f32, [N], in>, %y: !kir.view<f32, [1], out>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %n = kir.extent "N"
    %d = kir.domain %c0 to %n
    %one = kir.domain %c0 to %c1
    %id = kir.record %zero, %zero : f32, f32 -> !kir.record<a: f32, b: f32>
    kir.parallel %one {
    ^bb0(%i: index):
      %t = kir.load %x[%d] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
      %cnt, %s = kir.region_fold sources(%t : tensor<?xf32>) axis 0
          identity(%c0, %id : index, !kir.record<a: f32, b: f32>) -> (index, !kir.record<a: f32, b: f32>)
      summarize {
      ^bb0(%sl: tensor<?xf32>):
        %z = arith.constant 0.0 : f32
        %k = arith.constant 0 : index
        %sum = kir.reduce %sl axes [0] identity(%z : f32) : (tensor<?xf32>) -> (f32) {
        ^bb0(%a: f32, %b: f32):
          %c = kir.binary add %a, %b : f32
          kir.yield %c : f32
        }
        %pos = kir.cmp gt %sum, %z : f32
        %r = kir.if %pos -> !kir.record<a: f32, b: f32> {
          %r1 = kir.record %sum, %z : f32, f32 -> !kir.record<a: f32, b: f32>
          kir.yield %r1 : !kir.record<a: f32, b: f32>
        } else {
          %r2 = kir.record %z, %sum : f32, f32 -> !kir.record<a: f32, b: f32>
          kir.yield %r2 : !kir.record<a: f32, b: f32>
        }
        kir.yield %k, %r : index, !kir.record<a: f32, b: f32>
      } combine {
      ^bb0(%c1a: index, %p: !kir.record<a: f32, b: f32>, %c2a: index, %q: !kir.record<a: f32, b: f32>):
        %c = kir.binary add %c1a, %c2a : index
        %lt = kir.cmp lt %c1a, %c2a : index
        %r = kir.if %lt -> !kir.record<a: f32, b: f32> {
          kir.yield %p : !kir.record<a: f32, b: f32>
        } else {
          kir.yield %q : !kir.record<a: f32, b: f32>
        }
        kir.yield %c, %r : index, !kir.record<a: f32, b: f32>
      }
      %big = kir.cmp gt %cnt, %c1 : index
      %pick = kir.if %big -> !kir.record<a: f32, b: f32> {
        kir.yield %s : !kir.record<a: f32, b: f32>
      } else {
        kir.yield %id : !kir.record<a: f32, b: f32>
      }
      %u = kir.region_fold sources(%t : tensor<?xf32>) axis 0 identity(%s : !kir.record<a: f32, b: f32>)
          -> (!kir.record<a: f32, b: f32>)
      summarize {
      ^bb0(%sl: tensor<?xf32>):
        %z = arith.constant 0.0 : f32
        %r = kir.record %z, %z : f32, f32 -> !kir.record<a: f32, b: f32>
        kir.yield %r : !kir.record<a: f32, b: f32>
      } combine {
      ^bb0(%p: !kir.record<a: f32, b: f32>, %q: !kir.record<a: f32, b: f32>):
        kir.yield %q : !kir.record<a: f32, b: f32>
      }
      %a = kir.record_get %u["a"] : !kir.record<a: f32, b: f32> -> f32
      %b = kir.record_get %pick["b"] : !kir.record<a: f32, b: f32> -> f32
      %ab = kir.binary add %a, %b : f32
      kir.store %ab, %y[%i] : f32, !kir.view<f32, [1], out>[index]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire: a record whose field is itself a record is left whole (with a remark saying why).
// CHECK-LABEL: kir.kernel @nested
// CHECK: kir.region_fold {{.*}} -> (!kir.record<in: !kir.record<a: f32>>)
// CHECK: ^bb0(%{{.*}}: !kir.record<in: !kir.record<a: f32>>, %{{.*}}: !kir.record<in: !kir.record<a: f32>>):
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @nested(%x: !kir.view<f32, [N], in>, %y: !kir.view<f32, [1], out>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %n = kir.extent "N"
    %d = kir.domain %c0 to %n
    %one = kir.domain %c0 to %c1
    %inner = kir.record %zero : f32 -> !kir.record<a: f32>
    %id = kir.record %inner : !kir.record<a: f32> -> !kir.record<in: !kir.record<a: f32>>
    kir.parallel %one {
    ^bb0(%i: index):
      %t = kir.load %x[%d] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
      // expected-remark @+1 {{kir-flatten-records: the region fold keeps its record summary: field 'in' of component 0 is itself a record or tuple}}
      %s = kir.region_fold sources(%t : tensor<?xf32>) axis 0 identity(%id : !kir.record<in: !kir.record<a: f32>>)
          -> (!kir.record<in: !kir.record<a: f32>>)
      summarize {
      ^bb0(%sl: tensor<?xf32>):
        %z = arith.constant 0.0 : f32
        %r = kir.record %z : f32 -> !kir.record<a: f32>
        %o = kir.record %r : !kir.record<a: f32> -> !kir.record<in: !kir.record<a: f32>>
        kir.yield %o : !kir.record<in: !kir.record<a: f32>>
      } combine {
      ^bb0(%p: !kir.record<in: !kir.record<a: f32>>, %q: !kir.record<in: !kir.record<a: f32>>):
        kir.yield %q : !kir.record<in: !kir.record<a: f32>>
      }
      %r = kir.record_get %s["in"] : !kir.record<in: !kir.record<a: f32>> -> !kir.record<a: f32>
      %a = kir.record_get %r["a"] : !kir.record<a: f32> -> f32
      kir.store %a, %y[%i] : f32, !kir.view<f32, [1], out>[index]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire: a record inside a tuple component is left whole; a fold without records is
// COM: not touched and not remarked on.
// CHECK-LABEL: kir.kernel @in_tuple
// CHECK: kir.region_fold {{.*}} -> (tuple<!kir.record<a: f32>>)
// CHECK: kir.region_fold {{.*}} -> (f32)
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @in_tuple(%x: !kir.view<f32, [N], in>, %y: !kir.view<f32, [1], out>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %n = kir.extent "N"
    %d = kir.domain %c0 to %n
    %one = kir.domain %c0 to %c1
    %inner = kir.record %zero : f32 -> !kir.record<a: f32>
    %id = kir.tuple %inner : !kir.record<a: f32> -> tuple<!kir.record<a: f32>>
    kir.parallel %one {
    ^bb0(%i: index):
      %t = kir.load %x[%d] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
      // expected-remark @+1 {{kir-flatten-records: the region fold keeps its record summary: component 0 is a tuple holding a record}}
      %s = kir.region_fold sources(%t : tensor<?xf32>) axis 0 identity(%id : tuple<!kir.record<a: f32>>)
          -> (tuple<!kir.record<a: f32>>)
      summarize {
      ^bb0(%sl: tensor<?xf32>):
        %z = arith.constant 0.0 : f32
        %r = kir.record %z : f32 -> !kir.record<a: f32>
        %o = kir.tuple %r : !kir.record<a: f32> -> tuple<!kir.record<a: f32>>
        kir.yield %o : tuple<!kir.record<a: f32>>
      } combine {
      ^bb0(%p: tuple<!kir.record<a: f32>>, %q: tuple<!kir.record<a: f32>>):
        kir.yield %q : tuple<!kir.record<a: f32>>
      }
      %v = kir.region_fold sources(%t : tensor<?xf32>) axis 0 identity(%zero : f32) -> (f32)
      summarize {
      ^bb0(%sl: tensor<?xf32>):
        %z = arith.constant 0.0 : f32
        kir.yield %z : f32
      } combine {
      ^bb0(%p: f32, %q: f32):
        kir.yield %q : f32
      }
      %r = kir.tuple_get %s[0] : tuple<!kir.record<a: f32>> -> !kir.record<a: f32>
      %a = kir.record_get %r["a"] : !kir.record<a: f32> -> f32
      %b = kir.binary add %a, %v : f32
      kir.store %b, %y[%i] : f32, !kir.view<f32, [1], out>[index]
      kir.yield
    }
    kir.return
  }
}
