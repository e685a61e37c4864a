// RUN: tessel-opt %s -split-input-file -kir-vjp="wrt=x" -verify-diagnostics

// COM: An op without a derivative rule here (a cummax: a scan whose combine is a maximum; a sum scan
// COM: derives) is refused at the op, saying why.
kir.kernel @cummax(%x: !kir.view<f32, [M, N], in>, %y: !kir.view<f32, [M, N], out>) {
  %c0 = arith.constant 0 : index
  %low = arith.constant 0xFF800000 : f32
  %m = kir.extent "M"
  %n = kir.extent "N"
  %dm = kir.domain %c0 to %m
  %dn = kir.domain %c0 to %n
  kir.parallel %dm {
  ^bb0(%i: index):
    %row = kir.load %x[%i, %dn] : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
    // expected-error @+1 {{kir-vjp: only a sum scan (cumsum) from zero of one input is differentiated}}
    %s = kir.scan %row axis 0 identity(%low : f32) : (tensor<?xf32>) -> (tensor<?xf32>) {
    ^bb0(%a: f32, %b: f32):
      %c = kir.binary max %a, %b : f32
      kir.yield %c : f32
    }
    kir.store %s, %y[%i, %dn] : tensor<?xf32>, !kir.view<f32, [M, N], out>[index, !kir.domain]
    kir.yield
  }
  kir.return
}

// -----

// COM: x read in an outer parallel's body and used by every member of an inner one: summing its
// COM: cotangent over the inner members is not derived yet (kernel-level values are: kir-vjp.mlir).
kir.kernel @nested(%x: !kir.view<f32, [M, N], in>, %y: !kir.view<f32, [M, K, N], out>) {
  %c0 = arith.constant 0 : index
  %m = kir.extent "M"
  %n = kir.extent "N"
  %k = kir.extent "K"
  %dm = kir.domain %c0 to %m
  %dn = kir.domain %c0 to %n
  %dk = kir.domain %c0 to %k
  kir.parallel %dm {
  ^bb0(%i: index):
    %row = kir.load %x[%i, %dn] : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
    kir.parallel %dk {
    ^bb0(%j: index):
      // expected-error @+1 {{kir-vjp: uses a differentiated value defined outside its kir.parallel but inside another one}}
      %e = kir.unary exp %row : tensor<?xf32>
      kir.store %e, %y[%i, %j, %dn] : tensor<?xf32>, !kir.view<f32, [M, K, N], out>[index, index, !kir.domain]
      kir.yield
    }
    kir.yield
  }
  kir.return
}

// -----

// COM: Two reads of x at different coordinates: summing their cotangents is a scatter-add.
kir.kernel @twice(%x: !kir.view<f32, [N], in>, %y: !kir.view<f32, [1], out>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n = kir.extent "N"
  %n1 = arith.subi %n, %c1 : index
  %d1 = kir.domain %c0 to %n1
  %d2 = kir.domain %c1 to %n
  %a = kir.load %x[%d1] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
  // expected-error @+1 {{kir-vjp: this input is read at two different coordinate sets}}
  %b = kir.load %x[%d2] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
  %sa = kir.reduce %a axes [0] identity(%zero : f32) : (tensor<?xf32>) -> (f32) {
  ^bb0(%p: f32, %q: f32):
    %c = kir.binary add %p, %q : f32
    kir.yield %c : f32
  }
  %sb = kir.reduce %b axes [0] identity(%zero : f32) : (tensor<?xf32>) -> (f32) {
  ^bb0(%p: f32, %q: f32):
    %c = kir.binary add %p, %q : f32
    kir.yield %c : f32
  }
  %s = kir.binary sub %sb, %sa : f32
  kir.store %s, %y[%c0] : f32, !kir.view<f32, [1], out>[index]
  kir.return
}

// -----

// COM: wrt must name a float input view.
// expected-error @+1 {{kir-vjp: no argument named 'x'}}
kir.kernel @noname(%z: !kir.view<f32, [N], in>, %y: !kir.view<f32, [N], out>) {
  kir.return
}

// -----

// COM: A region fold (an online softmax's row maximum and denominator over x): its backward needs the
// COM: fold's summary saved by the forward, the slices' cotangents through summarize and combine, and a
// COM: second fold for the sources' cotangents; the refusal at the fold names each, and the form that
// COM: derives (whole-axis reductions).
kir.kernel @online_softmax_stats(%x: !kir.view<f32, [N], in>, %y: !kir.view<f32, [2], out>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %n = kir.extent "N"
  %d = kir.domain %c0 to %n
  %row = kir.load %x[%d] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
  // expected-error @+1 {{kir-vjp: cannot differentiate 'kir.region_fold' yet: its backward needs (1) the fold's final summary saved by the forward (for an online softmax, each row's maximum and denominator, or its logsumexp; kir-vjp recomputes and saves nothing), (2) each slice's cotangent through summarize and combine against that summary, and (3) a second fold over the members for the sources' cotangents (attention's dK and dV); the same computation written with whole-axis reductions over the fold's axis (T.max, T.sum, T.contract, no T.region_fold) derives}}
  %mx, %den = kir.region_fold sources(%row : tensor<?xf32>) axis 0 identity(%ninf, %zero : f32, f32)
      -> (f32, f32)
  summarize {
  ^bb0(%s: tensor<?xf32>):
    %m = kir.reduce %s axes [0] identity(%ninf : f32) : (tensor<?xf32>) -> (f32) {
    ^bb0(%a: f32, %b: f32):
      %c = kir.binary max %a, %b : f32
      kir.yield %c : f32
    }
    %e = kir.broadcast_as %m to %s dims [] : f32, tensor<?xf32> -> tensor<?xf32>
    %t = kir.binary sub %s, %e : tensor<?xf32>
    %p = kir.unary exp %t : tensor<?xf32>
    %z = arith.constant 0.0 : f32
    %l = kir.reduce %p axes [0] identity(%z : f32) : (tensor<?xf32>) -> (f32) {
    ^bb0(%a: f32, %b: f32):
      %c = kir.binary add %a, %b : f32
      kir.yield %c : f32
    }
    kir.yield %m, %l : f32, f32
  } combine {
  ^bb0(%m1: f32, %d1: f32, %m2: f32, %d2: f32):
    %m = kir.binary max %m1, %m2 : f32
    %a1 = kir.binary sub %m1, %m : f32
    %a2 = kir.binary sub %m2, %m : f32
    %w1 = kir.unary exp %a1 : f32
    %w2 = kir.unary exp %a2 : f32
    %s1 = kir.binary mul %d1, %w1 : f32
    %s2 = kir.binary mul %d2, %w2 : f32
    %dd = kir.binary add %s1, %s2 : f32
    kir.yield %m, %dd : f32, f32
  }
  kir.store %mx, %y[%c0] : f32, !kir.view<f32, [2], out>[index]
  kir.store %den, %y[%c1] : f32, !kir.view<f32, [2], out>[index]
  kir.return
}
