// RUN: tessel-opt %s -split-input-file -verify-diagnostics
// COM: One case per KIR verifier rule (seed 002 §5.1). Messages name the op, the operand and what
// COM: was expected.

// -----
// COM: ABI: kernel arguments are views or by-value scalars.
// expected-error @+1 {{'kir.kernel' op argument #0 has type 'tensor<4xf32>'; kernel arguments must be !kir.view or scalars passed by value}}
kir.kernel @k(%t: tensor<4xf32>) {
  kir.return
}

// -----
// expected-error @+1 {{'kir.kernel' op must not return values; results are writes to out/inout views}}
kir.kernel @k(%x: f32) -> f32 {
  kir.return
}

// -----
// COM: Constexprs are bool, integer or enum values, never floats.
// expected-error @+1 {{'kir.kernel' op constexpr 'ALPHA' must be a bool, integer or enum string, got 5.000000e-01 : f32}}
kir.kernel @k() attributes {constexprs = {ALPHA = 0.5 : f32}} {
  kir.return
}

// -----
// expected-error @+1 {{extent must be non-negative, got -3}}
kir.kernel @k(%x: !kir.view<f32, [-3], in>) {
  kir.return
}

// -----
// expected-error @+1 {{expected view mode 'in', 'out' or 'inout', got 'rw'}}
kir.kernel @k(%x: !kir.view<f32, [N], rw>) {
  kir.return
}

// -----
kir.kernel @k(%x: !kir.view<f32, [N], in>) {
  // expected-error @+1 {{'kir.extent' op refers to extent 'M', which no view of kernel @k declares}}
  %m = kir.extent "M"
  kir.return
}

// -----
kir.kernel @k() {
  // expected-error @+1 {{'kir.constexpr' op refers to constexpr 'CAUSAL', which kernel @k does not declare}}
  %c = kir.constexpr "CAUSAL" : i1
  kir.return
}

// -----
kir.kernel @k() attributes {constexprs = {W = 4 : i64}} {
  // expected-error @+1 {{'kir.constexpr' op has type 'i32' but constexpr 'W' is declared as 'i64'}}
  %c = kir.constexpr "W" : i32
  kir.return
}

// -----
kir.kernel @k(%n: i1) {
  %a = arith.constant 1 : i32
  // expected-error @+1 {{'kir.if' op is 'constexpr' but its condition is a runtime value}}
  %r = kir.if constexpr %n -> i32 {
    kir.yield %a : i32
  } else {
    kir.yield %a : i32
  }
  kir.return
}

// -----
// expected-error @+1 {{'kir.compile_options' must be a #kir.compile_options attribute}}
module attributes {kir.compile_options = "fast"} {}

// -----
// expected-error @+2 {{expected one of [source, relaxed_normalization]}}
// expected-error @+1 {{failed to parse KIR_CompileOptionsAttr parameter 'numerics'}}
module attributes {kir.compile_options = #kir.compile_options<numerics = fast>} {}

// -----
kir.kernel @k() {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  // expected-error @+1 {{'kir.domain' op step must be positive, got 0}}
  %d = kir.domain %c0 to %c8 step 0
  kir.return
}

// -----
// COM: The step attribute is unsigned in storage; -1 must not pass as 2^64-1.
kir.kernel @k() {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  // expected-error @+1 {{'kir.domain' op step must be positive, got -1}}
  %d = kir.domain %c0 to %c8 step -1
  kir.return
}

// -----
// COM: Parallel iterations carry nothing across iterations.
kir.kernel @k() {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %d = kir.domain %c0 to %c8
  %z = arith.constant 0 : i32
  // expected-error @+1 {{'kir.parallel' op 'body' region yields 1 values but 0 were expected}}
  kir.parallel %d {
  ^bb0(%i: index):
    kir.yield %z : i32
  }
  kir.return
}

// -----
// COM: Conflicting non-atomic writes: every iteration writes y[0].
kir.kernel @k(%y: !kir.view<f32, [N], out>, %v: f32) {
  %c0 = arith.constant 0 : index
  %n = kir.extent "N"
  %d = kir.domain %c0 to %n
  kir.parallel %d {
  ^bb0(%i: index):
    // expected-error @+1 {{'kir.store' op writes the same elements in every iteration of the enclosing kir.parallel (its coordinates do not depend on parallel index #0)}}
    kir.store %v, %y[%c0] : f32, !kir.view<f32, [N], out>[index]
    kir.yield
  }
  kir.return
}

// -----
// COM: The second parallel index is ignored by the coordinates: iterations (i, j) and (i, j') conflict.
kir.kernel @k(%y: !kir.view<f32, [N], out>, %v: f32) {
  %c0 = arith.constant 0 : index
  %n = kir.extent "N"
  %d = kir.domain %c0 to %n
  kir.parallel %d, %d {
  ^bb0(%i: index, %j: index):
    // expected-error @+1 {{'kir.store' op writes the same elements in every iteration of the enclosing kir.parallel (its coordinates do not depend on parallel index #1)}}
    kir.store %v, %y[%i] : f32, !kir.view<f32, [N], out>[index]
    kir.yield
  }
  kir.return
}

// -----
// COM: A shared buffer written by every iteration at the same place.
kir.kernel @k() {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %z = arith.constant 0.0 : f32
  %d = kir.domain %c0 to %c8
  %b = kir.buffer over(%d) init %z : f32 : !kir.buffer<tensor<?xf32>>
  kir.parallel %d {
  ^bb0(%i: index):
    // expected-error @+1 {{'kir.buffer_store' op writes the same elements in every iteration}}
    kir.buffer_store %z, %b[%c0] : f32, !kir.buffer<tensor<?xf32>>[index]
    kir.yield
  }
  kir.return
}

// -----
kir.kernel @k(%x: !kir.view<f32, [N], in>) {
  %c0 = arith.constant 0 : index
  %v = arith.constant 1.0 : f32
  // expected-error @+1 {{'kir.store' op writes to an 'in' view; declare it 'out' or 'inout'}}
  kir.store %v, %x[%c0] : f32, !kir.view<f32, [N], in>[index]
  kir.return
}

// -----
// COM: Out views are not read before they are written.
kir.kernel @k(%y: !kir.view<f32, [N], out>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'kir.load' op reads 'out' view argument #0 before any write to it; declare the view 'inout' to read its initial contents}}
  %v = kir.load %y[%c0] : !kir.view<f32, [N], out>[index] -> f32
  kir.store %v, %y[%c0] : f32, !kir.view<f32, [N], out>[index]
  kir.return
}

// -----
// COM: scatter_reduce reads its destination, so an `out` view needs a prior write.
kir.kernel @k(%y: !kir.view<f32, [N], out>, %ids: !kir.view<i32, [T], in>, %v: f32) {
  %c0 = arith.constant 0 : index
  %t = kir.extent "T"
  %dt = kir.domain %c0 to %t
  %rows = kir.index_relation %ids[%dt] : !kir.view<i32, [T], in> -> tensor<?xindex>
  %vals = kir.broadcast %v over(%dt) dims [] : f32 -> tensor<?xf32>
  // expected-error @+1 {{'kir.scatter_reduce' op reads 'out' view argument #0 before any write to it}}
  kir.scatter_reduce %vals, %y[%rows] : tensor<?xf32>, !kir.view<f32, [N], out>[tensor<?xindex>] {
  ^bb0(%a: f32, %b: f32):
    %s = kir.binary add %a, %b : f32
    kir.yield %s : f32
  }
  kir.return
}

// -----
kir.kernel @k(%x: !kir.view<f32, [M, N], in>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'kir.load' op has 1 coordinates but the accessed resource has rank 2}}
  %v = kir.load %x[%c0] : !kir.view<f32, [M, N], in>[index] -> f32
  kir.return
}

// -----
kir.kernel @k(%x: !kir.view<f32, [N], in>) {
  %c0 = arith.constant 0 : index
  %n = kir.extent "N"
  %d = kir.domain %c0 to %n
  // expected-error @+1 {{'kir.load' op result must be a rank-1 tensor of 'f32', got 'f32'}}
  %v = kir.load %x[%d] : !kir.view<f32, [N], in>[!kir.domain] -> f32
  kir.return
}

// -----
kir.kernel @k(%x: !kir.view<f32, [N], in>, %ids: !kir.view<i32, [T], in>) {
  %c0 = arith.constant 0 : index
  %t = kir.extent "T"
  %dt = kir.domain %c0 to %t
  %rows = kir.index_relation %ids[%dt] : !kir.view<i32, [T], in> -> tensor<?xindex>
  // expected-error @+1 {{'kir.load' op coordinate #0 is an index tensor; use kir.gather/kir.scatter for indexed access}}
  %v = kir.load %x[%rows] : !kir.view<f32, [N], in>[tensor<?xindex>] -> tensor<?xf32>
  kir.return
}

// -----
kir.kernel @k(%x: !kir.view<f32, [N], in>) {
  %c0 = arith.constant 0 : index
  %n = kir.extent "N"
  %d = kir.domain %c0 to %n
  %m = arith.constant 1 : i1
  %z = arith.constant 0 : i32
  // expected-error @+1 {{'kir.load' op fill must be a scalar of the element type 'f32', got 'i32'}}
  %v = kir.load %x[%d] valid %m : i1 fill %z : i32 : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
  kir.return
}

// -----
// COM: Shape relations: tensors over different domains are not provably the same length.
kir.kernel @k(%x: !kir.view<f32, [M], in>, %y: !kir.view<f32, [N], in>) {
  %c0 = arith.constant 0 : index
  %m = kir.extent "M"
  %n = kir.extent "N"
  %dm = kir.domain %c0 to %m
  %dn = kir.domain %c0 to %n
  %a = kir.load %x[%dm] : !kir.view<f32, [M], in>[!kir.domain] -> tensor<?xf32>
  %b = kir.load %y[%dn] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
  // expected-error @+1 {{'kir.binary' op axis 0 of lhs and rhs are not provably equal: they come from different domains}}
  %c = kir.binary add %a, %b : tensor<?xf32>
  kir.return
}

// -----
kir.kernel @k(%x: !kir.view<f32, [M], in>, %y: !kir.view<f32, [N], out>) {
  %c0 = arith.constant 0 : index
  %m = kir.extent "M"
  %n = kir.extent "N"
  %dm = kir.domain %c0 to %m
  %dn = kir.domain %c0 to %n
  %a = kir.load %x[%dm] : !kir.view<f32, [M], in>[!kir.domain] -> tensor<?xf32>
  // expected-error @+1 {{'kir.store' op writes a value whose axis 0 is not provably as long as the destination coordinates}}
  kir.store %a, %y[%dn] : tensor<?xf32>, !kir.view<f32, [N], out>[!kir.domain]
  kir.return
}

// -----
kir.kernel @k(%a: f32, %b: f32) {
  // expected-error @+1 {{'kir.binary' op has no approximate form; 'approximate' is defined for f32 div, exp2 and tanh}}
  %c = kir.binary add %a, %b {approximate} : f32
  kir.return
}

// -----
kir.kernel @k(%a: f32, %b: f32) {
  // expected-error @+1 {{'kir.binary' op 'flush_to_zero' requires 'approximate'}}
  %c = kir.binary div %a, %b {flush_to_zero} : f32
  kir.return
}

// -----
kir.kernel @k(%a: f16) {
  // expected-error @+1 {{'kir.unary' op numerical options 'approximate'/'flush_to_zero' require f32, got 'f16'}}
  %c = kir.unary exp2 %a {approximate} : f16
  kir.return
}

// -----
kir.kernel @k(%a: f32) {
  // expected-error @+1 {{'kir.unary' op does not accept 'flush_to_zero'; it is defined for f32 div and exp2}}
  %c = kir.unary tanh %a {approximate, flush_to_zero} : f32
  kir.return
}

// -----
kir.kernel @k(%a: f32, %b: f32) {
  // expected-error @+1 {{'kir.binary' op 'xor' needs integer operands, got 'f32'}}
  %c = kir.binary xor %a, %b : f32
  kir.return
}

// -----
kir.kernel @k(%a: i32) {
  // expected-error @+1 {{'kir.unary' op 'exp' needs float operands, got 'i32'}}
  %c = kir.unary exp %a : i32
  kir.return
}

// -----
kir.kernel @k(%a: f32) {
  // expected-error @+1 {{'kir.bitcast' op needs element types of equal bit width, got 'f32' and 'i16'}}
  %c = kir.bitcast %a : f32 to i16
  kir.return
}

// -----
kir.kernel @k(%a: f32) {
  // expected-error @+1 {{'kir.cast' op casts 'f32' to itself}}
  %c = kir.cast %a : f32 to f32
  kir.return
}

// -----
kir.kernel @k(%x: !kir.view<f32, [N], in>) {
  %c0 = arith.constant 0 : index
  %n = kir.extent "N"
  %d = kir.domain %c0 to %n
  %t = kir.load %x[%d] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
  // expected-error @+1 {{'kir.broadcast' op result rank 2 must equal the number of domains (1)}}
  %b = kir.broadcast %t over(%d) dims [0] : tensor<?xf32> -> tensor<?x?xf32>
  kir.return
}

// -----
kir.kernel @k(%x: !kir.view<f32, [M, N], in>) {
  %c0 = arith.constant 0 : index
  %m = kir.extent "M"
  %n = kir.extent "N"
  %dm = kir.domain %c0 to %m
  %dn = kir.domain %c0 to %n
  %t = kir.load %x[%dm, %dn] : !kir.view<f32, [M, N], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
  // expected-error @+1 {{'kir.transpose' op permutation [0, 0] is not a permutation of the operand axes}}
  %tt = kir.transpose %t [0, 0] : tensor<?x?xf32> -> tensor<?x?xf32>
  kir.return
}

// -----
kir.kernel @k(%a: f32) {
  %t = kir.tuple %a, %a : f32, f32 -> tuple<f32, f32>
  // expected-error @+1 {{'kir.tuple_get' op index 2 is out of range for 'tuple<f32, f32>'}}
  %x = kir.tuple_get %t[2] : tuple<f32, f32> -> f32
  kir.return
}

// -----
kir.kernel @k(%a: f32) {
  %r = kir.record %a, %a : f32, f32 -> !kir.record<max: f32, den: f32>
  // expected-error @+1 {{'kir.record_get' op record '!kir.record<max: f32, den: f32>' has no field 'sum'}}
  %x = kir.record_get %r["sum"] : !kir.record<max: f32, den: f32> -> f32
  kir.return
}

// -----
kir.kernel @k(%a: f32) {
  // expected-error @+1 {{record field 'm' is declared twice}}
  %r = kir.record %a, %a : f32, f32 -> !kir.record<m: f32, m: f32>
  kir.return
}

// -----
// COM: reduce: identity schema matches the accumulator schema componentwise.
kir.kernel @k(%x: !kir.view<f32, [N], in>) {
  %c0 = arith.constant 0 : index
  %n = kir.extent "N"
  %d = kir.domain %c0 to %n
  %z = arith.constant 0 : i32
  %t = kir.load %x[%d] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
  // expected-error @+1 {{'kir.reduce' op identity component #0 has type 'i32' but 'f32' was expected}}
  %s = kir.reduce %t axes [0] identity(%z : i32) : (tensor<?xf32>) -> (f32) {
  ^bb0(%a: f32, %b: f32):
    %c = kir.binary add %a, %b : f32
    kir.yield %c : f32
  }
  kir.return
}

// -----
kir.kernel @k(%x: !kir.view<f32, [N], in>) {
  %c0 = arith.constant 0 : index
  %n = kir.extent "N"
  %d = kir.domain %c0 to %n
  %z = arith.constant 0.0 : f32
  %t = kir.load %x[%d] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
  // expected-error @+1 {{'kir.reduce' op 'combine' region takes 1 arguments but 2 were expected}}
  %s = kir.reduce %t axes [0] identity(%z : f32) : (tensor<?xf32>) -> (f32) {
  ^bb0(%a: f32):
    kir.yield %a : f32
  }
  kir.return
}

// -----
kir.kernel @k(%x: !kir.view<f32, [N], in>) {
  %c0 = arith.constant 0 : index
  %n = kir.extent "N"
  %d = kir.domain %c0 to %n
  %z = arith.constant 0.0 : f32
  %t = kir.load %x[%d] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
  // expected-error @+1 {{'kir.reduce' op 'combine' region yields 'f16' as component #0 but 'f32' was expected}}
  %s = kir.reduce %t axes [0] identity(%z : f32) : (tensor<?xf32>) -> (f32) {
  ^bb0(%a: f32, %b: f32):
    %c = kir.cast %a : f32 to f16
    kir.yield %c : f16
  }
  kir.return
}

// -----
kir.kernel @k(%x: !kir.view<f32, [M, N], in>) {
  %c0 = arith.constant 0 : index
  %m = kir.extent "M"
  %n = kir.extent "N"
  %dm = kir.domain %c0 to %m
  %dn = kir.domain %c0 to %n
  %z = arith.constant 0.0 : f32
  %t = kir.load %x[%dm, %dn] : !kir.view<f32, [M, N], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
  // expected-error @+1 {{'kir.reduce' op result #0 must be 'tensor<?xf32>' (input with the reduced axes removed), got 'f32'}}
  %s = kir.reduce %t axes [1] identity(%z : f32) : (tensor<?x?xf32>) -> (f32) {
  ^bb0(%a: f32, %b: f32):
    %c = kir.binary add %a, %b : f32
    kir.yield %c : f32
  }
  kir.return
}

// -----
kir.kernel @k(%x: !kir.view<f32, [N], in>) {
  %c0 = arith.constant 0 : index
  %n = kir.extent "N"
  %d = kir.domain %c0 to %n
  %z = arith.constant 0.0 : f32
  %t = kir.load %x[%d] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
  // expected-error @+1 {{'kir.reduce' op reduces axis 0 twice}}
  %s = kir.reduce %t axes [0, 0] identity(%z : f32) : (tensor<?xf32>) -> (f32) {
  ^bb0(%a: f32, %b: f32):
    %c = kir.binary add %a, %b : f32
    kir.yield %c : f32
  }
  kir.return
}

// -----
// COM: Purity: a combine region may not touch memory.
kir.kernel @k(%x: !kir.view<f32, [N], in>) {
  %c0 = arith.constant 0 : index
  %n = kir.extent "N"
  %d = kir.domain %c0 to %n
  %z = arith.constant 0.0 : f32
  %t = kir.load %x[%d] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
  // expected-error @+1 {{'kir.reduce' op 'combine' region must be pure, but contains 'kir.load'}}
  %s = kir.reduce %t axes [0] identity(%z : f32) : (tensor<?xf32>) -> (f32) {
  ^bb0(%a: f32, %b: f32):
    %i = arith.constant 0 : index
    %e = kir.load %x[%i] : !kir.view<f32, [N], in>[index] -> f32
    kir.yield %e : f32
  }
  kir.return
}

// -----
// COM: Closure: runtime captures must be explicit operands.
kir.kernel @k(%x: !kir.view<f32, [N], in>, %scale: f32) {
  %c0 = arith.constant 0 : index
  %n = kir.extent "N"
  %d = kir.domain %c0 to %n
  %z = arith.constant 0.0 : f32
  %t = kir.load %x[%d] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
  // expected-error @+1 {{'kir.reduce' op 'combine' region captures a value defined outside it (operand of 'kir.binary'); pass it through the op's operands}}
  %s = kir.reduce %t axes [0] identity(%z : f32) : (tensor<?xf32>) -> (f32) {
  ^bb0(%a: f32, %b: f32):
    %c = kir.binary mul %a, %scale : f32
    kir.yield %c : f32
  }
  kir.return
}

// -----
kir.kernel @k(%x: !kir.view<f32, [M, N], in>) {
  %c0 = arith.constant 0 : index
  %m = kir.extent "M"
  %n = kir.extent "N"
  %dm = kir.domain %c0 to %m
  %dn = kir.domain %c0 to %n
  %t = kir.load %x[%dm, %dn] : !kir.view<f32, [M, N], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
  // expected-error @+1 {{'kir.arg_reduce' op indices must be 'tensor<?xindex>' (positions along the input axis), got 'tensor<?xi32>'}}
  %v, %i = kir.arg_reduce argmax %t axis 1 tie lowest nan propagate : tensor<?x?xf32> -> tensor<?xf32>, tensor<?xi32>
  kir.return
}

// -----
kir.kernel @k(%x: !kir.view<f32, [N], in>) {
  %c0 = arith.constant 0 : index
  %n = kir.extent "N"
  %d = kir.domain %c0 to %n
  %z = arith.constant 0.0 : f32
  %t = kir.load %x[%d] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
  // expected-error @+1 {{'kir.scan' op axis 1 is out of range for rank 1}}
  %s = kir.scan %t axis 1 identity(%z : f32) : (tensor<?xf32>) -> (tensor<?xf32>) {
  ^bb0(%a: f32, %b: f32):
    %c = kir.binary add %a, %b : f32
    kir.yield %c : f32
  }
  kir.return
}

// -----
// COM: region_fold: summarize yields the identity schema.
kir.kernel @k(%x: !kir.view<f32, [N], in>) {
  %c0 = arith.constant 0 : index
  %n = kir.extent "N"
  %d = kir.domain %c0 to %n
  %z = arith.constant 0.0 : f32
  %t = kir.load %x[%d] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
  // expected-error @+1 {{'kir.region_fold' op 'summarize' region yields 2 values but 1 were expected}}
  %r = kir.region_fold sources(%t : tensor<?xf32>) axis 0 identity(%z : f32) -> (f32)
  summarize {
  ^bb0(%s: tensor<?xf32>):
    %q = arith.constant 1.0 : f32
    kir.yield %q, %q : f32, f32
  } combine {
  ^bb0(%a: f32, %b: f32):
    %c = kir.binary add %a, %b : f32
    kir.yield %c : f32
  }
  kir.return
}

// -----
kir.kernel @k(%x: !kir.view<f32, [N], in>) {
  %c0 = arith.constant 0 : index
  %n = kir.extent "N"
  %d = kir.domain %c0 to %n
  %z = arith.constant 0.0 : f32
  %t = kir.load %x[%d] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
  // expected-error @+1 {{'kir.region_fold' op 'summarize' region argument #0 has type 'tensor<4xf32>' but 'tensor<?xf32>' was expected}}
  %r = kir.region_fold sources(%t : tensor<?xf32>) axis 0 identity(%z : f32) -> (f32)
  summarize {
  ^bb0(%s: tensor<4xf32>):
    %q = arith.constant 1.0 : f32
    kir.yield %q : f32
  } combine {
  ^bb0(%a: f32, %b: f32):
    %c = kir.binary add %a, %b : f32
    kir.yield %c : f32
  }
  kir.return
}

// -----
// COM: A summarizer may read but never write.
kir.kernel @k(%x: !kir.view<f32, [N], in>, %y: !kir.view<f32, [N], inout>) {
  %c0 = arith.constant 0 : index
  %n = kir.extent "N"
  %d = kir.domain %c0 to %n
  %z = arith.constant 0.0 : f32
  %t = kir.load %x[%d] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
  // expected-error @+1 {{'kir.region_fold' op 'summarize' region must be free of writes, but contains 'kir.store'}}
  %r = kir.region_fold sources(%t : tensor<?xf32>) axis 0 identity(%z : f32) operands(%y : !kir.view<f32, [N], inout>) -> (f32)
  summarize {
  ^bb0(%s: tensor<?xf32>, %yy: !kir.view<f32, [N], inout>):
    %q = arith.constant 1.0 : f32
    %i = arith.constant 0 : index
    kir.store %q, %yy[%i] : f32, !kir.view<f32, [N], inout>[index]
    kir.yield %q : f32
  } combine {
  ^bb0(%a: f32, %b: f32):
    %c = kir.binary add %a, %b : f32
    kir.yield %c : f32
  }
  kir.return
}

// -----
kir.kernel @k(%x: !kir.view<f32, [N], in>) {
  %c0 = arith.constant 0 : index
  %n = kir.extent "N"
  %d = kir.domain %c0 to %n
  %z = arith.constant 0.0 : f32
  %t = kir.load %x[%d] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
  // expected-error @+1 {{'kir.region_fold' op 'combine' region argument #1 has type 'f16' but 'f32' was expected}}
  %r = kir.region_fold sources(%t : tensor<?xf32>) axis 0 identity(%z : f32) -> (f32)
  summarize {
  ^bb0(%s: tensor<?xf32>):
    %q = arith.constant 1.0 : f32
    kir.yield %q : f32
  } combine {
  ^bb0(%a: f32, %b: f16):
    kir.yield %a : f32
  }
  kir.return
}

// -----
kir.kernel @k(%x: !kir.view<f32, [N], in>) {
  %c0 = arith.constant 0 : index
  %n = kir.extent "N"
  %d = kir.domain %c0 to %n
  %z = arith.constant 0.0 : f32
  %t = kir.load %x[%d] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
  // expected-error @+1 {{'kir.region_scan' op 'apply' region yields 'f16' as component #0 but 'f32' was expected}}
  %o, %f = kir.region_scan sources(%t : tensor<?xf32>) axis 0 identity(%z : f32) init(%z : f32) -> (tensor<?xf32>) final(f32)
  summarize {
  ^bb0(%s: tensor<?xf32>):
    %q = arith.constant 1.0 : f32
    kir.yield %q : f32
  } combine {
  ^bb0(%a: f32, %b: f32):
    kir.yield %a : f32
  } apply {
  ^bb0(%tr: f32, %st: f32):
    %h = kir.cast %st : f32 to f16
    kir.yield %h : f16
  } emit {
  ^bb0(%s: tensor<?xf32>, %st: f32):
    kir.yield %s : tensor<?xf32>
  }
  kir.return
}

// -----
kir.kernel @k(%x: !kir.view<f32, [N], in>) {
  %c0 = arith.constant 0 : index
  %n = kir.extent "N"
  %d = kir.domain %c0 to %n
  %z = arith.constant 0.0 : f32
  %t = kir.load %x[%d] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
  // expected-error @+1 {{'kir.region_scan' op 'emit' region takes 1 arguments but 2 were expected}}
  %o, %f = kir.region_scan sources(%t : tensor<?xf32>) axis 0 identity(%z : f32) init(%z : f32) -> (tensor<?xf32>) final(f32)
  summarize {
  ^bb0(%s: tensor<?xf32>):
    %q = arith.constant 1.0 : f32
    kir.yield %q : f32
  } combine {
  ^bb0(%a: f32, %b: f32):
    kir.yield %a : f32
  } apply {
  ^bb0(%tr: f32, %st: f32):
    kir.yield %st : f32
  } emit {
  ^bb0(%s: tensor<?xf32>):
    kir.yield %s : tensor<?xf32>
  }
  kir.return
}

// -----
// COM: contract: reduce pairs are unique.
kir.kernel @k(%a: !kir.view<f16, [M, K], in>) {
  %c0 = arith.constant 0 : index
  %m = kir.extent "M"
  %k = kir.extent "K"
  %dm = kir.domain %c0 to %m
  %dk = kir.domain %c0 to %k
  %t = kir.load %a[%dm, %dk] : !kir.view<f16, [M, K], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
  // expected-error @+1 {{'kir.contract' op reduce pair (1, 1) repeats an axis}}
  %c = kir.contract %t, %t reduce([1, 1], [1, 1]) batch([], []) : tensor<?x?xf16>, tensor<?x?xf16> -> tensor<?x?xf32>
  kir.return
}

// -----
// COM: contract: an explicit TF32 operand precision (KIR_ContractPrecision) takes f32 operands only.
kir.kernel @k(%a: !kir.view<f16, [M, K], in>) {
  %c0 = arith.constant 0 : index
  %m = kir.extent "M"
  %k = kir.extent "K"
  %dm = kir.domain %c0 to %m
  %dk = kir.domain %c0 to %k
  %t = kir.load %a[%dm, %dk] : !kir.view<f16, [M, K], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
  // expected-error @+1 {{'kir.contract' op precision tf32 rounds f32 operands to TF32 and accumulates in f32; got 'f16' operands and a 'f32' accumulator (use the default ieee precision)}}
  %c = kir.contract %t, %t reduce([1], [1]) batch([], []) precision tf32 : tensor<?x?xf16>, tensor<?x?xf16> -> tensor<?x?xf32>
  kir.return
}

// -----
// COM: contract: ... and accumulates in f32 (tf32x3's three products are summed in f32).
kir.kernel @k(%a: !kir.view<f32, [M, K], in>) {
  %c0 = arith.constant 0 : index
  %m = kir.extent "M"
  %k = kir.extent "K"
  %dm = kir.domain %c0 to %m
  %dk = kir.domain %c0 to %k
  %t = kir.load %a[%dm, %dk] : !kir.view<f32, [M, K], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
  // expected-error @+1 {{'kir.contract' op precision tf32x3 rounds f32 operands to TF32 and accumulates in f32; got 'f32' operands and a 'f64' accumulator}}
  %c = kir.contract %t, %t reduce([1], [1]) batch([], []) precision tf32x3 : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf64>
  kir.return
}

// -----
// COM: contract: the precision is one of ieee, tf32, tf32x3.
kir.kernel @k(%a: !kir.view<f32, [M, K], in>) {
  %c0 = arith.constant 0 : index
  %m = kir.extent "M"
  %k = kir.extent "K"
  %dm = kir.domain %c0 to %m
  %dk = kir.domain %c0 to %k
  %t = kir.load %a[%dm, %dk] : !kir.view<f32, [M, K], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'precision' [ieee, tf32, tf32x3]}}
  %c = kir.contract %t, %t reduce([1], [1]) batch([], []) precision bf16x3 : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  kir.return
}

// -----
// COM: contract: paired axes must have compatible extents.
kir.kernel @k(%a: !kir.view<f16, [M, K], in>, %b: !kir.view<f16, [N, J], in>) {
  %c0 = arith.constant 0 : index
  %m = kir.extent "M"
  %k = kir.extent "K"
  %n = kir.extent "N"
  %j = kir.extent "J"
  %dm = kir.domain %c0 to %m
  %dk = kir.domain %c0 to %k
  %dn = kir.domain %c0 to %n
  %dj = kir.domain %c0 to %j
  %ta = kir.load %a[%dm, %dk] : !kir.view<f16, [M, K], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
  %tb = kir.load %b[%dn, %dj] : !kir.view<f16, [N, J], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
  // expected-error @+1 {{'kir.contract' op reduce pair (1, 0) axes are not provably equal: they come from different domains}}
  %c = kir.contract %ta, %tb reduce([1], [0]) batch([], []) : tensor<?x?xf16>, tensor<?x?xf16> -> tensor<?x?xf32>
  kir.return
}

// -----
kir.kernel @k(%a: !kir.view<f16, [M, 64], in>, %b: !kir.view<f16, [32, N], in>) {
  %c0 = arith.constant 0 : index
  %m = kir.extent "M"
  %n = kir.extent "N"
  %dm = kir.domain %c0 to %m
  %dn = kir.domain %c0 to %n
  %c64 = arith.constant 64 : index
  %c32 = arith.constant 32 : index
  %dk = kir.domain %c0 to %c64
  %dj = kir.domain %c0 to %c32
  %ta = kir.load %a[%dm, %dk] : !kir.view<f16, [M, 64], in>[!kir.domain, !kir.domain] -> tensor<?x64xf16>
  %tb = kir.load %b[%dj, %dn] : !kir.view<f16, [32, N], in>[!kir.domain, !kir.domain] -> tensor<32x?xf16>
  // expected-error @+1 {{'kir.contract' op reduce pair (1, 0) axes have different extents (64 vs 32)}}
  %c = kir.contract %ta, %tb reduce([1], [0]) batch([], []) : tensor<?x64xf16>, tensor<32x?xf16> -> tensor<?x?xf32>
  kir.return
}

// -----
kir.kernel @k(%a: !kir.view<f16, [M, K], in>) {
  %c0 = arith.constant 0 : index
  %m = kir.extent "M"
  %k = kir.extent "K"
  %dm = kir.domain %c0 to %m
  %dk = kir.domain %c0 to %k
  %t = kir.load %a[%dm, %dk] : !kir.view<f16, [M, K], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
  // expected-error @+1 {{'kir.contract' op lhs axis 0 is both a batch and a reduce axis}}
  %c = kir.contract %t, %t reduce([0], [0]) batch([0], [1]) : tensor<?x?xf16>, tensor<?x?xf16> -> tensor<?xf32>
  kir.return
}

// -----
kir.kernel @k(%a: !kir.view<f16, [M, K], in>) {
  %c0 = arith.constant 0 : index
  %m = kir.extent "M"
  %k = kir.extent "K"
  %dm = kir.domain %c0 to %m
  %dk = kir.domain %c0 to %k
  %t = kir.load %a[%dm, %dk] : !kir.view<f16, [M, K], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
  // expected-error @+1 {{'kir.contract' op accumulator dtype 'i32' cannot accumulate 'f16' operands}}
  %c = kir.contract %t, %t reduce([1], [1]) batch([], []) : tensor<?x?xf16>, tensor<?x?xf16> -> tensor<?x?xi32>
  kir.return
}

// -----
kir.kernel @k(%a: !kir.view<f16, [M, K], in>, %b: !kir.view<f32, [M, K], in>) {
  %c0 = arith.constant 0 : index
  %m = kir.extent "M"
  %k = kir.extent "K"
  %dm = kir.domain %c0 to %m
  %dk = kir.domain %c0 to %k
  %ta = kir.load %a[%dm, %dk] : !kir.view<f16, [M, K], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
  %tb = kir.load %b[%dm, %dk] : !kir.view<f32, [M, K], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
  // expected-error @+1 {{'kir.contract' op operands must share one dtype, got 'f16' and 'f32'; cast explicitly}}
  %c = kir.contract %ta, %tb reduce([1], [1]) batch([], []) : tensor<?x?xf16>, tensor<?x?xf32> -> tensor<?x?xf32>
  kir.return
}

// -----
kir.kernel @k(%x: !kir.view<f32, [N], in>, %h: !kir.view<i32, [B], out>) {
  %c0 = arith.constant 0 : index
  %n = kir.extent "N"
  %b = kir.extent "B"
  %d = kir.domain %c0 to %n
  %db = kir.domain %c0 to %b
  %t = kir.load %x[%d] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
  // expected-error @+1 {{'kir.histogram' op counts integer values, got 'f32'}}
  %hist = kir.histogram %t bins(%db) : tensor<?xf32> -> tensor<?xi32>
  kir.return
}

// -----
kir.kernel @k(%x: !kir.view<i32, [N], in>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = kir.extent "N"
  %d = kir.domain %c0 to %n
  %db = kir.domain %c1 to %n
  %t = kir.load %x[%d] : !kir.view<i32, [N], in>[!kir.domain] -> tensor<?xi32>
  // expected-error @+1 {{'kir.histogram' op bins must be a unit-step domain starting at 0}}
  %hist = kir.histogram %t bins(%db) : tensor<?xi32> -> tensor<?xi32>
  kir.return
}

// -----
// COM: Atomics carry an explicit memory order and sharing domain.
kir.kernel @k(%f: !kir.view<i32, [N], inout>, %v: i32) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'kir.atomic_rmw' op must state its memory order ('order relaxed|acquire|release|acq_rel')}}
  %old = kir.atomic_rmw add %v, %f[%c0] sharing invocation : i32, !kir.view<i32, [N], inout>[index] -> i32
  kir.return
}

// -----
kir.kernel @k(%f: !kir.view<i32, [N], inout>, %v: i32) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'kir.atomic_rmw' op must state its sharing domain ('sharing invocation|parallel')}}
  %old = kir.atomic_rmw add %v, %f[%c0] order relaxed : i32, !kir.view<i32, [N], inout>[index] -> i32
  kir.return
}

// -----
kir.kernel @k(%f: !kir.view<i32, [N], inout>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'kir.atomic_load' op does not accept memory order 'release'}}
  %v = kir.atomic_load %f[%c0] order release sharing invocation : !kir.view<i32, [N], inout>[index] -> i32
  kir.return
}

// -----
kir.kernel @k(%f: !kir.view<i32, [N], inout>, %v: i32) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'kir.atomic_store' op does not accept memory order 'acquire'}}
  kir.atomic_store %v, %f[%c0] order acquire sharing invocation : i32, !kir.view<i32, [N], inout>[index]
  kir.return
}

// -----
kir.kernel @k(%f: !kir.view<f32, [N], inout>, %v: f32) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'kir.atomic_rmw' op 'xor' needs an integer view, got 'f32'}}
  %old = kir.atomic_rmw xor %v, %f[%c0] order relaxed sharing invocation : f32, !kir.view<f32, [N], inout>[index] -> f32
  kir.return
}

// -----
kir.kernel @k(%f: !kir.view<i32, [N], in>, %v: i32) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'kir.atomic_rmw' op writes to an 'in' view; declare it 'out' or 'inout'}}
  %old = kir.atomic_rmw add %v, %f[%c0] order relaxed sharing invocation : i32, !kir.view<i32, [N], in>[index] -> i32
  kir.return
}

// -----
// COM: Buffers start from a full initial value or under a first-write obligation, not both.
kir.kernel @k() {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %d = kir.domain %c0 to %c8
  // expected-error @+1 {{'kir.buffer' op needs exactly one of 'init' (a full initial value) or 'first_write' (an uninitialized buffer written before it is read)}}
  %b = kir.buffer over(%d) : !kir.buffer<tensor<?xf32>>
  kir.return
}

// -----
kir.kernel @k() {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %z = arith.constant 0.0 : f32
  %d = kir.domain %c0 to %c8
  // expected-error @+1 {{'kir.buffer' op needs exactly one of 'init'}}
  %b = kir.buffer over(%d) init %z : f32 first_write : !kir.buffer<tensor<?xf32>>
  kir.return
}

// -----
kir.kernel @k() {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %z = arith.constant 0 : i32
  %d = kir.domain %c0 to %c8
  // expected-error @+1 {{'kir.buffer' op init must be a scalar 'f32' or a full 'tensor<?xf32>', got 'i32'}}
  %b = kir.buffer over(%d) init %z : i32 : !kir.buffer<tensor<?xf32>>
  kir.return
}

// -----
kir.kernel @k() {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %z = arith.constant 0.0 : f32
  %d = kir.domain %c0 to %c8
  %b = kir.buffer over(%d) init %z : f32 : !kir.buffer<tensor<?xf32>>
  // expected-error @+1 {{'kir.buffer_load' op has 2 coordinates but the accessed resource has rank 1}}
  %v = kir.buffer_load %b[%c0, %c0] : !kir.buffer<tensor<?xf32>>[index, index] -> f32
  kir.return
}

// -----
// COM: Ordered control: carries match in number and type.
kir.kernel @k() {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %d = kir.domain %c0 to %c8
  %z = arith.constant 0.0 : f32
  // expected-error @+1 {{'kir.for' op 'body' region yields 'i32' as component #0 but 'f32' was expected}}
  %r = kir.for %d iter_args(%z : f32) -> f32 {
  ^bb0(%i: index, %a: f32):
    %q = arith.constant 1 : i32
    kir.yield %q : i32
  }
  kir.return
}

// -----
kir.kernel @k(%c: i1) {
  %z = arith.constant 0.0 : f32
  // expected-error @+1 {{'kir.if' op has results and therefore needs an 'else' region}}
  %r = kir.if %c -> f32 {
    kir.yield %z : f32
  }
  kir.return
}

// -----
kir.kernel @k(%n: i32) {
  %z = arith.constant 0 : i32
  // expected-error @+1 {{'kir.while' op kir.condition forwards 0 values whose types must equal the result types}}
  %r = kir.while (%z : i32) -> i32 {
  ^bb0(%x: i32):
    %c = kir.cmp lt %x, %n : i32
    kir.condition %c
  } do {
  ^bb0:
    kir.yield %z : i32
  }
  kir.return
}

// -----
kir.kernel @k(%x: !kir.view<f32, [N], in>) {
  %c0 = arith.constant 0 : index
  %n = kir.extent "N"
  %d = kir.domain %c0 to %n
  %t = kir.load %x[%d] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
  %c = arith.constant 1 : i1
  %cb = kir.broadcast %c over(%d, %d) dims [] : i1 -> tensor<?x?xi1>
  // expected-error @+1 {{'kir.select' op tensor condition 'tensor<?x?xi1>' must have the shape of the values 'tensor<?xf32>'; broadcast explicitly}}
  %s = kir.select %cb, %t, %t : tensor<?x?xi1>, tensor<?xf32>
  kir.return
}

// -----
kir.kernel @k(%m: !kir.view<f32, [E], in>) {
  %c0 = arith.constant 0 : index
  %e = kir.extent "E"
  %d = kir.domain %c0 to %e
  // expected-error @+1 {{'kir.index_relation' op index map must be a rank-1 integer view, got '!kir.view<f32, [E], in>'}}
  %r = kir.index_relation %m[%d] : !kir.view<f32, [E], in> -> tensor<?xindex>
  kir.return
}

// -----
kir.kernel @k(%x: !kir.view<f32, [M], in>, %y: !kir.view<f32, [N], in>) {
  %c0 = arith.constant 0 : index
  %m = kir.extent "M"
  %n = kir.extent "N"
  %dm = kir.domain %c0 to %m
  %dn = kir.domain %c0 to %n
  %a = kir.load %x[%dm] : !kir.view<f32, [M], in>[!kir.domain] -> tensor<?xf32>
  %b = kir.load %y[%dn] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
  // expected-error @+1 {{'kir.cmp' op axis 0 of lhs and rhs are not provably equal: they come from different domains}}
  %c = kir.cmp lt %a, %b : tensor<?xf32>
  kir.return
}

// -----
kir.kernel @k(%x: !kir.view<i32, [N], in>, %y: !kir.view<i32, [B], in>) {
  %c0 = arith.constant 0 : index
  %n = kir.extent "N"
  %b = kir.extent "B"
  %dn = kir.domain %c0 to %n
  %db = kir.domain %c0 to %b
  %t = kir.load %x[%dn] : !kir.view<i32, [N], in>[!kir.domain] -> tensor<?xi32>
  %u = kir.load %y[%db] : !kir.view<i32, [B], in>[!kir.domain] -> tensor<?xi32>
  %ok = kir.cmp eq %u, %u : tensor<?xi32>
  // expected-error @+1 {{'kir.histogram' op axis 0 of input and validity are not provably equal}}
  %h = kir.histogram %t bins(%db) valid %ok : tensor<?xi32>, tensor<?xi1> -> tensor<?xi32>
  kir.return
}

// -----
kir.kernel @k(%x: !kir.view<f32, [N], in>, %y: !kir.view<f32, [M], in>) {
  %c0 = arith.constant 0 : index
  %n = kir.extent "N"
  %m = kir.extent "M"
  %dn = kir.domain %c0 to %n
  %dm = kir.domain %c0 to %m
  %a = kir.load %x[%dn] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
  %b = kir.load %y[%dm] : !kir.view<f32, [M], in>[!kir.domain] -> tensor<?xf32>
  // expected-error @+1 {{'kir.broadcast_as' op operand axis 0 and reference axis 0 are not provably equal}}
  %c = kir.broadcast_as %a to %b dims [0] : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32>
  kir.return
}

// -----
// COM: Regions see slices of the folded axis, never its whole domain.
kir.kernel @k(%x: !kir.view<f32, [N], in>) {
  %c0 = arith.constant 0 : index
  %n = kir.extent "N"
  %d = kir.domain %c0 to %n
  %z = arith.constant 0.0 : f32
  %t = kir.load %x[%d] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
  // expected-error @+1 {{'kir.region_fold' op operand #0 is the folded axis's domain; regions see only their slice of it}}
  %r = kir.region_fold sources(%t : tensor<?xf32>) axis 0 identity(%z : f32) operands(%d : !kir.domain) -> (f32)
  summarize {
  ^bb0(%s: tensor<?xf32>, %dd: !kir.domain):
    %q = arith.constant 1.0 : f32
    kir.yield %q : f32
  } combine {
  ^bb0(%a: f32, %b: f32):
    %c = kir.binary add %a, %b : f32
    kir.yield %c : f32
  }
  kir.return
}

// -----
// COM: Argument names are the launch ABI: they must be unique.
// expected-error @+1 {{'kir.kernel' op argument #1 repeats the ABI name 'x'}}
kir.kernel @k(%x: f32, %y: f32 {kir.name = "x"}) {
  kir.return
}

// -----
// COM: A value defined in terms of itself: the extent walk stops at the cycle (it used to recurse
// COM: until the stack overflowed) and the dominance check reports it.
kir.kernel @k(%x: !kir.view<f32, [N], in>) {
  %c0 = arith.constant 0 : index
  %n = kir.extent "N"
  %d = kir.domain %c0 to %n
  %row = kir.load %x[%d] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
  // expected-error @+2 {{operand #1 does not dominate this use}}
  // expected-note @+1 {{operand defined here (op in the same block)}}
  %a = kir.binary add %row, %a : tensor<?xf32>
  kir.return
}

// -----
// COM: A subregion of itself: the domain key walk stops at the cycle.
kir.kernel @k(%x: !kir.view<f32, [N], out>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %n = kir.extent "N"
  // expected-error @+2 {{operand #0 does not dominate this use}}
  // expected-note @+1 {{operand defined here (op in the same block)}}
  %s = kir.subregion %s[%c0 : %c4]
  %v = arith.constant 1.0 : f32
  %t = kir.broadcast %v over(%s) dims [] : f32 -> tensor<?xf32>
  kir.store %t, %x[%s] : tensor<?xf32>, !kir.view<f32, [N], out>[!kir.domain]
  kir.return
}

// -----
// COM: A forward reference in one region resolved by a definition in a sibling region (MLIR's parser
// COM: binds them): an error at the use. When the parse failed later, the regions used to be destroyed
// COM: with the use still linked to the freed definition (a heap use-after-free).
kir.kernel @k(%x: !kir.view<f32, [N], in>) {
  %c0 = arith.constant 0 : index
  %n = kir.extent "N"
  %d = kir.domain %c0 to %n
  %z = arith.constant 0.0 : f32
  %t = kir.load %x[%d] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
  %r = kir.region_fold sources(%t : tensor<?xf32>) axis 0 identity(%z : f32) -> (f32)
  summarize {
  ^bb0(%s: tensor<?xf32>):
    // expected-error @+1 {{operand #0 uses a value defined in a sibling region of the enclosing op}}
    %q = kir.binary add %v, %v : f32
    kir.yield %q : f32
  } combine {
  ^bb0(%a: f32, %b: f32):
    %v = kir.binary add %a, %b : f32
    kir.yield %v : f32
  }
  kir.return
}

// -----
kir.kernel @k(%c: i1) {
  kir.while {
    // expected-error @+1 {{operand #0 uses a value defined in a sibling region of the enclosing op}}
    kir.condition %w
  } do {
    %w = arith.constant true
    kir.yield
  }
  kir.return
}

// -----
// COM: A forward reference in the kernel body bound to a definition inside a later op's region.
kir.kernel @k(%x: !kir.view<f32, [N], out>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{operand #0 uses a value defined inside a later op's region}}
  kir.store %v, %x[%c0] : f32, !kir.view<f32, [N], out>[index]
  %n = kir.extent "N"
  %d = kir.domain %c0 to %n
  kir.parallel %d {
  ^bb0(%i: index):
    %v = arith.constant 1.0 : f32
    kir.yield
  }
  kir.return
}

// -----
kir.kernel @k(%a: f8E4M3FN) {
  // expected-error @+1 {{'kir.bitcast' op needs element types of equal bit width, got 'f8E4M3FN' and 'i16'}}
  %c = kir.bitcast %a : f8E4M3FN to i16
  kir.return
}

// -----
kir.kernel @k(%a: f8E5M2) {
  // expected-error @+1 {{'kir.cast' op casts 'f8E5M2' to itself}}
  %c = kir.cast %a : f8E5M2 to f8E5M2
  kir.return
}

// -----
// COM: round (ties to even) is a float operation.
kir.kernel @k(%x: !kir.view<i32, [N], in>) {
  %c0 = arith.constant 0 : index
  %n = kir.extent "N"
  %d = kir.domain %c0 to %n
  %v = kir.load %x[%d] : !kir.view<i32, [N], in>[!kir.domain] -> tensor<?xi32>
  // expected-error @+1 {{'kir.unary' op 'round' needs float operands, got 'i32'}}
  %r = kir.unary round %v : tensor<?xi32>
  kir.return
}

// -----
// Paired index coordinates (`joint`): an entry per coordinate, pairing index tensors of one shape.
kir.kernel @joint_length(%x: !kir.view<f32, [N, M], in>) {
  %c0 = arith.constant 0 : index
  %n = kir.extent "N"
  %d = kir.domain %c0 to %n
  %i = kir.indices %d : tensor<?xindex>
  // expected-error @+1 {{'kir.gather' op has 1 'joint' entries for 2 coordinates}}
  %v = kir.gather %x[%i, %i] {joint = array<i64: -1>} : !kir.view<f32, [N, M], in>[tensor<?xindex>, tensor<?xindex>] -> tensor<?xf32>
  kir.return
}

// -----
kir.kernel @joint_forward(%x: !kir.view<f32, [N, M], in>) {
  %c0 = arith.constant 0 : index
  %n = kir.extent "N"
  %d = kir.domain %c0 to %n
  %i = kir.indices %d : tensor<?xindex>
  // expected-error @+1 {{'kir.gather' op 'joint' entry 0 must be -1 or an earlier coordinate, got 1}}
  %v = kir.gather %x[%i, %i] {joint = array<i64: 1, -1>} : !kir.view<f32, [N, M], in>[tensor<?xindex>, tensor<?xindex>] -> tensor<?xf32>
  kir.return
}

// -----
kir.kernel @joint_domain(%x: !kir.view<f32, [N, M], in>) {
  %c0 = arith.constant 0 : index
  %n = kir.extent "N"
  %d = kir.domain %c0 to %n
  %i = kir.indices %d : tensor<?xindex>
  // expected-error @+1 {{'kir.gather' op 'joint' pairs coordinate #1 with #0: both must be index tensors and #0 must not be paired itself}}
  %v = kir.gather %x[%d, %i] {joint = array<i64: -1, 0>} : !kir.view<f32, [N, M], in>[!kir.domain, tensor<?xindex>] -> tensor<?xf32>
  kir.return
}

// -----
kir.kernel @joint_extents(%x: !kir.view<f32, [N, M], in>) {
  %c0 = arith.constant 0 : index
  %n = kir.extent "N"
  %m = kir.extent "M"
  %dn = kir.domain %c0 to %n
  %dm = kir.domain %c0 to %m
  %i = kir.indices %dn : tensor<?xindex>
  %j = kir.indices %dm : tensor<?xindex>
  // expected-error @+1 {{'kir.gather' op axis 0 of coordinate #0 and coordinate #1 are not provably equal: they come from different domains}}
  %v = kir.gather %x[%i, %j] {joint = array<i64: -1, 0>} : !kir.view<f32, [N, M], in>[tensor<?xindex>, tensor<?xindex>] -> tensor<?xf32>
  kir.return
}

// -----
kir.kernel @joint_rank(%x: !kir.view<f32, [N, M], in>) {
  %c0 = arith.constant 0 : index
  %n = kir.extent "N"
  %d = kir.domain %c0 to %n
  %i = kir.indices %d : tensor<?xindex>
  // expected-error @+1 {{'kir.gather' op result must be a rank-1 tensor of 'f32', got 'tensor<?x?xf32>'}}
  %v = kir.gather %x[%i, %i] {joint = array<i64: -1, 0>} : !kir.view<f32, [N, M], in>[tensor<?xindex>, tensor<?xindex>] -> tensor<?x?xf32>
  kir.return
}
