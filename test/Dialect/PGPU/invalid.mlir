// RUN: tessel-opt %s -split-input-file -verify-diagnostics
// COM: One case per pgpu verifier rule: the completeness invariants of seed 000 §10 (1-12) and the
// COM: shared-verifier checks of seed 002 §5.3. Each case is a small kernel that breaks exactly one
// COM: rule; its COM line names the invariant. Many cases share one kernel shape: a 1-d program space
// COM: over ceil(N / B) with coordinates %i, validity %ok and a loaded fragment %v, and the case's ops
// COM: inserted after the load. A grid extent must dominate the program space, so the invariant-10
// COM: cases necessarily compute it outside the body; the extent check reports them first.

// -----
// COM: invariant 1: a kernel without a program body.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
// expected-error @+1 {{'pgpu.kernel' op has no pgpu.program_space: every kernel needs one program body (invariant 1)}}
pgpu.kernel @k(%n: index) {
  pgpu.return
}
}

// -----
// COM: invariant 1: two program bodies in one kernel (one artifact, one launch).
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    pgpu.yield
  }
  // expected-error @+1 {{'pgpu.program_space' op is a second program body; a kernel has exactly one (invariant 1)}}
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 2: a store outside the program space.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%y: !pgpu.view<f32, [N], out>, %n: index) {
  %c0 = arith.constant 0 : index
  %true = arith.constant true
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{'pgpu.store' op is outside the program space; only LaunchExpr values may be computed there (invariant 2)}}
  pgpu.store %zero, %y[%c0] valid %true : i1 : f32, !pgpu.view<f32, [N], out>[index]
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 2: a device load outside the program space (not used as an extent).
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<i32, [N], in>, %n: index) {
  %c0 = arith.constant 0 : index
  %true = arith.constant true
  %z = arith.constant 0 : i32
  // expected-error @+1 {{'pgpu.load' op is outside the program space; only LaunchExpr values may be computed there (invariant 2)}}
  %v = pgpu.load %x[%c0] valid %true : i1 fill %z : i32 : !pgpu.view<i32, [N], in>[index] -> i32
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 2: float arithmetic is not LaunchExpr, so it may not run outside the program space.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%s: f32, %n: index) {
  // expected-error @+1 {{'pgpu.binary' op is outside the program space; only LaunchExpr values may be computed there (invariant 2)}}
  %s2 = pgpu.binary mul %s, %s : f32
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 2: an arith op (not a LaunchExpr op) outside the program space.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%n: index) {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'arith.addi' op is outside the program space; only LaunchExpr values may be computed there (invariant 2)}}
  %n1 = arith.addi %n, %c1 : index
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 2: fragments belong to a program instance, not to the launch.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%n: index) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'pgpu.iota' op is outside the program space; only LaunchExpr values may be computed there (invariant 2)}}
  %i = pgpu.iota %c0 : !pgpu.fragment<index, [4]>
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 3: a tensor value inside the program body.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'arith.constant' op produces a value of type 'tensor<4xf32>', which is not a scalar, fragment, view, buffer or tuple (invariant 3)}}
    %t = arith.constant dense<0.0> : tensor<4xf32>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 3: a vector value inside the program body (no provider layouts or vectors).
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'arith.constant' op produces a value of type 'vector<4xf32>', which is not a scalar, fragment, view, buffer or tuple (invariant 3)}}
    %t = arith.constant dense<0.0> : vector<4xf32>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 3: a tensor kernel argument (the ABI is views, scalars and workspace buffers).
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
// expected-error @+1 {{'pgpu.kernel' op argument #0 has type 'tensor<4xf32>'; kernel arguments are views, scalars and workspace buffers}}
pgpu.kernel @k(%t: tensor<4xf32>, %n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 3: a fragment kernel argument (fragments are owned by one program instance).
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
// expected-error @+1 {{'pgpu.kernel' op argument #0 has type '!pgpu.fragment<f32, [4]>'; kernel arguments are views, scalars and workspace buffers}}
pgpu.kernel @k(%f: !pgpu.fragment<f32, [4]>, %n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 3: kernels have no results; results are writes to views.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
// expected-error @+1 {{'pgpu.kernel' op must not return values; results are writes to views}}
pgpu.kernel @k(%n: index) -> f32 {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 4: a fragment extent that names no declared parameter.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.splat' op has type '!pgpu.fragment<f32, [BX]>' whose extent 'BX' is not a declared physical parameter (invariant 4)}}
    %f = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BX]>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 4: a fragment sized by a runtime view extent (N is ABI shape metadata, not a parameter).
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.iota' op has type '!pgpu.fragment<index, [N]>' whose extent 'N' is not a declared physical parameter (invariant 4)}}
    %f = pgpu.iota %c0 : !pgpu.fragment<index, [N]>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 4: a fragment extent that is a provider knob.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%n: index) attributes {params = [#pgpu.param<"num_warps", [4, 8], 4, provider = "triton">]} {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    %zero = arith.constant 0.0 : f32
    // expected-error @+1 {{'pgpu.splat' op has type '!pgpu.fragment<f32, [num_warps]>' whose extent 'num_warps' is a provider parameter; fragment extents are shared parameters (invariant 4)}}
    %f = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [num_warps]>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 4: a program-private buffer with an undeclared extent.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.alloc' op has type '!pgpu.buffer<f32, [BX], program>' whose extent 'BX' is not a declared physical parameter (invariant 4)}}
    %buf = pgpu.alloc init %zero : f32 : !pgpu.buffer<f32, [BX], program>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 5: an access needs one coordinate per source axis.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [M, N], in>, %n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    // expected-error @+1 {{'pgpu.load' op has 1 coordinates but the resource has rank 2 (every source axis needs an explicit coordinate)}}
    %v = pgpu.load %x[%p] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [M, N], in>[index] -> f32
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 5: coordinates are index scalars or index fragments.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    %ci = arith.constant 0 : i32
    // expected-error @+1 {{'pgpu.load' op coordinate #0 must be an index or an index fragment, got 'i32'}}
    %s = pgpu.load %x[%ci] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [N], in>[i32] -> f32
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 5: fragment coordinates must have exactly the accessed value's shape (no implicit broadcast).
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [M, N], in>, %n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %r = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
    %c = pgpu.iota %c0 : !pgpu.fragment<index, [32]>
    // expected-error @+1 {{'pgpu.load' op coordinate #0 has type '!pgpu.fragment<index, [16]>' but coordinates must have the accessed value's shape '!pgpu.fragment<f32, [16, 32]>' (broadcast them explicitly)}}
    %v = pgpu.load %x[%r, %c] valid %true : i1 fill %zero : f32
        : !pgpu.view<f32, [M, N], in>[!pgpu.fragment<index, [16]>, !pgpu.fragment<index, [32]>] -> !pgpu.fragment<f32, [16, 32]>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 5: the accessed value has the resource's element type.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    %zh = arith.constant 0.0 : f16
    // expected-error @+1 {{'pgpu.load' op accesses 'f32' elements but its value is '!pgpu.fragment<f16, [B]>'}}
    %h = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zh : f16
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f16, [B]>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 5: validity has i1 elements.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    %one = arith.constant 1 : i32
    // expected-error @+1 {{'pgpu.load' op validity must have i1 elements, got 'i32'}}
    %w = pgpu.load %x[%i] valid %one : i32 fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 5: fragment validity has the accessed value's shape.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    %ok4 = pgpu.splat %true : i1 -> !pgpu.fragment<i1, [4]>
    // expected-error @+1 {{'pgpu.load' op validity '!pgpu.fragment<i1, [4]>' must have the accessed value's shape '!pgpu.fragment<f32, [B]>'}}
    %w = pgpu.load %x[%i] valid %ok4 : !pgpu.fragment<i1, [4]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 5: the fill of a read is a scalar of the element type.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    %zh = arith.constant 0.0 : f16
    // expected-error @+1 {{'pgpu.load' op fill must be a scalar 'f32', got 'f16'}}
    %w = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zh : f16
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 5: gather coordinates follow the same shape rule as load.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%t: !pgpu.view<f32, [V, 64], in>, %n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %d = pgpu.iota %c0 : !pgpu.fragment<index, [64]>
    // expected-error @+1 {{'pgpu.gather' op coordinate #1 has type '!pgpu.fragment<index, [64]>' but coordinates must have the accessed value's shape '!pgpu.fragment<f32, [8, 64]>' (broadcast them explicitly)}}
    %g = pgpu.gather %t[%p, %d] valid %true : i1 fill %zero : f32
        : !pgpu.view<f32, [V, 64], in>[index, !pgpu.fragment<index, [64]>] -> !pgpu.fragment<f32, [8, 64]>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 5: a write to an 'in' view.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.store' op writes to an 'in' view}}
    pgpu.store %v, %x[%i] valid %ok : !pgpu.fragment<i1, [B]>
        : !pgpu.fragment<f32, [B]>, !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>]
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 5: a unique scatter to an 'in' view.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.scatter' op writes to an 'in' view}}
    pgpu.scatter %v, %x[%i] valid %ok : !pgpu.fragment<i1, [B]>
        : !pgpu.fragment<f32, [B]>, !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>]
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 5: a scatter-reduce to an 'in' view.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.scatter_reduce' op writes to an 'in' view}}
    pgpu.scatter_reduce %v, %x[%i] valid %ok : !pgpu.fragment<i1, [B]>
        : !pgpu.fragment<f32, [B]>, !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] {
    ^bb0(%a: f32, %c: f32):
      %s = pgpu.binary add %a, %c : f32
      pgpu.yield %s : f32
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 5: a store's validity has the stored value's shape.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    %ok4 = pgpu.splat %true : i1 -> !pgpu.fragment<i1, [4]>
    // expected-error @+1 {{'pgpu.store' op validity '!pgpu.fragment<i1, [4]>' must have the accessed value's shape '!pgpu.fragment<f32, [B]>'}}
    pgpu.store %v, %y[%i] valid %ok4 : !pgpu.fragment<i1, [4]>
        : !pgpu.fragment<f32, [B]>, !pgpu.view<f32, [N], out>[!pgpu.fragment<index, [B]>]
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 5: an atomic on an 'in' view.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    %one = arith.constant 1.0 : f32
    // expected-error @+1 {{'pgpu.atomic_rmw' op is atomic on an 'in' view}}
    %old = pgpu.atomic_rmw add %one, %x[%c0] valid %true : i1 order relaxed sharing invocation
        : f32, !pgpu.view<f32, [N], in>[index] -> f32
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 5: an atomic store needs one coordinate per axis.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%f: !pgpu.view<i32, [M, N], inout>, %n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    %true = arith.constant true
    %one = arith.constant 1 : i32
    // expected-error @+1 {{'pgpu.atomic_store' op has 1 coordinates but the resource has rank 2 (every source axis needs an explicit coordinate)}}
    pgpu.atomic_store %one, %f[%p] valid %true : i1 order release sharing invocation : i32, !pgpu.view<i32, [M, N], inout>[index]
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 5: a buffer read needs one coordinate per buffer axis.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    %buf = pgpu.alloc init %zero : f32 : !pgpu.buffer<f32, [B, 4], program>
    // expected-error @+1 {{'pgpu.buffer_load' op has 1 coordinates but the resource has rank 2 (every source axis needs an explicit coordinate)}}
    %r = pgpu.buffer_load %buf[%c0] valid %true : i1 fill %zero : f32 : !pgpu.buffer<f32, [B, 4], program>[index] -> f32
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 5: a buffer read's fill is a scalar of the buffer's element type.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    %buf = pgpu.alloc init %zero : f32 : !pgpu.buffer<f32, [B], program>
    %zi = arith.constant 0 : i32
    // expected-error @+1 {{'pgpu.buffer_load' op fill must be a scalar 'f32', got 'i32'}}
    %r = pgpu.buffer_load %buf[%c0] valid %true : i1 fill %zi : i32 : !pgpu.buffer<f32, [B], program>[index] -> f32
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 5: a buffer write's value has the buffer's element type.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    %buf = pgpu.alloc init %zero : f32 : !pgpu.buffer<f32, [B], program>
    %zi = arith.constant 0 : i32
    // expected-error @+1 {{'pgpu.buffer_store' op accesses 'f32' elements but its value is 'i32'}}
    pgpu.buffer_store %zi, %buf[%c0] valid %true : i1 : i32, !pgpu.buffer<f32, [B], program>[index]
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 6: a for body yields the carried types.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.for' op 'body' region yields 'index' as component #0 but 'f32' was expected}}
    %r = pgpu.for %c0 to %b step %c1 iter_args(%zero : f32) -> f32 {
    ^bb0(%k: index, %acc: f32):
      pgpu.yield %k : index
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 6: a for's initial carries have its result types.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    %zi = arith.constant 0 : i32
    // expected-error @+1 {{'pgpu.for' op initial carries must have the result types}}
    %r = pgpu.for %c0 to %b step %c1 iter_args(%zi : i32) -> f32 {
    ^bb0(%k: index, %acc: f32):
      pgpu.yield %acc : f32
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 6: a for body takes the induction variable and every carry.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.for' op 'body' region takes 1 arguments but 2 were expected}}
    %r = pgpu.for %c0 to %b step %c1 iter_args(%zero : f32) -> f32 {
    ^bb0(%k: index):
      pgpu.yield %zero : f32
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 6: a for body's first argument is an index induction variable.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.for' op 'body' region argument #0 has type 'i32' but 'index' was expected}}
    pgpu.for %c0 to %b step %c1 {
    ^bb0(%k: i32):
      pgpu.yield
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 6: while 'before' arguments match the initial carries.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.while' op 'before' region arguments must match the initial carries}}
    %r = pgpu.while (%c0 : index) -> index {
    ^bb0(%a: i32):
      pgpu.condition %true, %c0 : index
    } do {
    ^bb0(%a: index):
      pgpu.yield %a : index
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 6: the 'before' region of a while ends in pgpu.condition.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.while' op 'before' region must end in pgpu.condition}}
    %r = pgpu.while (%c0 : index) -> index {
    ^bb0(%a: index):
      pgpu.yield %a : index
    } do {
    ^bb0(%a: index):
      pgpu.yield %a : index
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 6: pgpu.condition forwards values of the while's result types.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.while' op pgpu.condition must forward values of the result types}}
    %r = pgpu.while (%c0 : index) -> index {
    ^bb0(%a: index):
      pgpu.condition %true, %zero : f32
    } do {
    ^bb0(%a: f32):
      pgpu.yield %c0 : index
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 6: the 'do' region yields the next carries.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.while' op 'do' region yields 'f32' as component #0 but 'index' was expected}}
    %r = pgpu.while (%c0 : index) -> index {
    ^bb0(%a: index):
      %go = pgpu.cmp lt %a, %b : index
      pgpu.condition %go, %a : index
    } do {
    ^bb0(%a: index):
      pgpu.yield %zero : f32
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 6: an if with results needs an else region.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.if' op has results and therefore needs an 'else' region}}
    %r = pgpu.if %true -> f32 {
      pgpu.yield %zero : f32
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 6: both branches of an if yield its results.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.if' op 'else' region yields 0 values but 1 were expected}}
    %r = pgpu.if %true -> f32 {
      pgpu.yield %zero : f32
    } else {
      pgpu.yield
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 6: an if's then region takes no arguments.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.if' op 'then' region takes 1 arguments but 0 were expected}}
    pgpu.if %true {
    ^bb0(%a: index):
      pgpu.yield
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 6: the program body takes one index coordinate per program-space axis.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%m: index, %n: index) {
  // expected-error @+1 {{'pgpu.program_space' op 'body' region takes 1 arguments but 2 were expected}}
  pgpu.program_space (%m, %n) {
  ^bb0(%p: index):
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 6: program coordinates are index values.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%n: index) {
  // expected-error @+1 {{'pgpu.program_space' op 'body' region argument #0 has type 'i32' but 'index' was expected}}
  pgpu.program_space (%n) {
  ^bb0(%p: i32):
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 6: the program body yields nothing (results are writes).
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%n: index) {
  // expected-error @+1 {{'pgpu.program_space' op 'body' region yields 1 values but 0 were expected}}
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    pgpu.yield %p : index
  }
  pgpu.return
}
}

// -----
// COM: invariant 6: a program space has at least one axis.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%n: index) {
  // expected-error @+1 {{'pgpu.program_space' op needs at least one program-space axis}}
  pgpu.program_space () {
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 6: an execution group's body takes one index coordinate per segment extent.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.execution_group' op 'body' region takes 1 arguments but 2 were expected}}
    pgpu.execution_group %p extents(%g, %c1) segment 0 roles ["m", "n"] {
    ^bb0(%pm: index):
      pgpu.yield
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 6: execution-group coordinates are index values.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.execution_group' op 'body' region argument #0 has type 'i64' but 'index' was expected}}
    pgpu.execution_group %p extents(%g) segment 0 roles ["m"] {
    ^bb0(%pm: i64):
      pgpu.yield
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 6 (seed 002 §5.3 execution groups): one diagnostic role per decoded axis.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.execution_group' op names 1 roles for 2 extents}}
    pgpu.execution_group %p extents(%g, %c1) segment 0 roles ["m"] {
    ^bb0(%pm: index, %pn: index):
      pgpu.yield
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 2 (seed 002 §5.3 execution groups): an execution group lives inside the program space.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%n: index) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'pgpu.execution_group' op must be inside a pgpu.program_space}}
  pgpu.execution_group %c0 extents(%n) segment 0 roles ["m"] {
  ^bb0(%pm: index):
    pgpu.yield
  }
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 6 (seed 002 §5.3 execution groups): delinearize decodes one coordinate per extent.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.delinearize' op decodes 1 coordinates with 2 extents}}
    %q = pgpu.delinearize %p by(%g, %c1) : index
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 7: a buffer has an initial value or a first-write obligation, not both.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.alloc' op needs exactly one of 'init' (a full initial value) or 'first_write'}}
    %buf = pgpu.alloc init %zero : f32 first_write : !pgpu.buffer<f32, [B], program>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 7: a buffer without an initial value must declare its first-write obligation.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.alloc' op needs exactly one of 'init' (a full initial value) or 'first_write'}}
    %buf = pgpu.alloc : !pgpu.buffer<f32, [B], program>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 7: a full initial value is a scalar fill or a fragment of the buffer's shape.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.alloc' op init must be a scalar 'f32' or a fragment of the buffer's shape, got '!pgpu.fragment<f32, [B]>'}}
    %buf = pgpu.alloc init %v : !pgpu.fragment<f32, [B]> : !pgpu.buffer<f32, [B, 2], program>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 7: the initial value has the buffer's element type.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    %zi = arith.constant 0 : i32
    // expected-error @+1 {{'pgpu.alloc' op init must be a scalar 'f32' or a fragment of the buffer's shape, got 'i32'}}
    %buf = pgpu.alloc init %zi : i32 : !pgpu.buffer<f32, [B], program>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 7: invocation workspace is never allocated inside the kernel.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.alloc' op cannot allocate invocation workspace inside the kernel; it is a kernel argument marked {pgpu.private = "workspace"} that the runtime allocates before the launch}}
    %buf = pgpu.alloc init %zero : f32 : !pgpu.buffer<f32, [B], workspace>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 7: an iteration-private buffer outside any loop has no owning iteration.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.alloc' op allocates an iteration-private buffer outside any loop}}
    %buf = pgpu.alloc first_write : !pgpu.buffer<f32, [B], iteration>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 7: a workspace buffer argument must be marked as compiler-private workspace.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
// expected-error @+1 {{'pgpu.kernel' op argument #0 is a workspace buffer and must be marked {pgpu.private = "workspace"}}}
pgpu.kernel @k(%ws: !pgpu.buffer<f32, [N], workspace>, %n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 7: a workspace buffer argument marked with the wrong private kind.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
// expected-error @+1 {{'pgpu.kernel' op argument #0 is a workspace buffer and must be marked {pgpu.private = "workspace"}}}
pgpu.kernel @k(%ws: !pgpu.buffer<f32, [N], workspace> {pgpu.private = "wrapper_scalar"}, %n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 7: a program-private buffer cannot be a kernel argument.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
// expected-error @+1 {{'pgpu.kernel' op argument #0 has type '!pgpu.buffer<f32, [4], program>'; kernel arguments are views, scalars and workspace buffers}}
pgpu.kernel @k(%buf: !pgpu.buffer<f32, [4], program>, %n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 7: a scalar argument cannot be workspace (only wrapper-computed scalars are private scalars).
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
// expected-error @+1 {{'pgpu.kernel' op scalar argument #0 is marked 'workspace'; a private scalar is a 'wrapper_scalar'}}
pgpu.kernel @k(%s: index {pgpu.private = "workspace"}, %n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 8: reduce identities follow the component schema (element types of the inputs).
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    %zh = arith.constant 0.0 : f16
    // expected-error @+1 {{'pgpu.reduce' op identity component #0 has type 'f16' but 'f32' was expected}}
    %r = pgpu.reduce %v axes [0] identity(%zh : f16) : (!pgpu.fragment<f32, [B]>) -> (f32) {
    ^bb0(%a: f32, %c: f32):
      %s = pgpu.binary add %a, %c : f32
      pgpu.yield %s : f32
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 8: reduce axes are distinct axes of the input.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.reduce' op reduce axes must be distinct axes of the input, got 1}}
    %r = pgpu.reduce %v axes [1] identity(%zero : f32) : (!pgpu.fragment<f32, [B]>) -> (f32) {
    ^bb0(%a: f32, %c: f32):
      %s = pgpu.binary add %a, %c : f32
      pgpu.yield %s : f32
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 8: a reduce reduces at least one axis.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.reduce' op must reduce at least one axis}}
    %r = pgpu.reduce %v axes [] identity(%zero : f32) : (!pgpu.fragment<f32, [B]>) -> (!pgpu.fragment<f32, [B]>) {
    ^bb0(%a: f32, %c: f32):
      %s = pgpu.binary add %a, %c : f32
      pgpu.yield %s : f32
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 8: a reduce's result drops exactly the reduced axes.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    %zero = arith.constant 0.0 : f32
    %f = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16, 32]>
    // expected-error @+1 {{'pgpu.reduce' op result #0 must be '!pgpu.fragment<f32, [16]>', got '!pgpu.fragment<f32, [32]>'}}
    %r = pgpu.reduce %f axes [1] identity(%zero : f32) : (!pgpu.fragment<f32, [16, 32]>) -> (!pgpu.fragment<f32, [32]>) {
    ^bb0(%a: f32, %c: f32):
      %s = pgpu.binary add %a, %c : f32
      pgpu.yield %s : f32
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 8: the combine region takes (accumulated..., incoming...) components.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.reduce' op 'combine' region takes 1 arguments but 2 were expected}}
    %r = pgpu.reduce %v axes [0] identity(%zero : f32) : (!pgpu.fragment<f32, [B]>) -> (f32) {
    ^bb0(%a: f32):
      pgpu.yield %a : f32
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 8: a combine region is pure (no allocation or memory effects).
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.reduce' op 'combine' region must be pure, but contains 'pgpu.alloc'}}
    %r = pgpu.reduce %v axes [0] identity(%zero : f32) : (!pgpu.fragment<f32, [B]>) -> (f32) {
    ^bb0(%a: f32, %c: f32):
      %buf = pgpu.alloc init %a : f32 : !pgpu.buffer<f32, [4], program>
      %s = pgpu.binary add %a, %c : f32
      pgpu.yield %s : f32
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 8: a combine region is closed (captures only constants).
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    %scale = pgpu.extract %v[%c0] : !pgpu.fragment<f32, [B]> -> f32
    // expected-error @+1 {{'pgpu.reduce' op 'combine' region captures a value defined outside it (operand of 'pgpu.binary'); pass it through the op's operands}}
    %r = pgpu.reduce %v axes [0] identity(%zero : f32) : (!pgpu.fragment<f32, [B]>) -> (f32) {
    ^bb0(%a: f32, %c: f32):
      %s = pgpu.binary add %a, %c : f32
      %t = pgpu.binary mul %s, %scale : f32
      pgpu.yield %t : f32
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 8: reduce inputs share one shape.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    %w = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [4]>
    // expected-error @+1 {{'pgpu.reduce' op inputs must share one shape}}
    %r1, %r2 = pgpu.reduce %v, %w axes [0] identity(%zero, %zero : f32, f32) : (!pgpu.fragment<f32, [B]>, !pgpu.fragment<f32, [4]>) -> (f32, f32) {
    ^bb0(%a0: f32, %a1: f32, %c0_: f32, %c1_: f32):
      pgpu.yield %a0, %a1 : f32, f32
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 8: a scan's carry follows the component schema.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    %ci = arith.constant 0 : i32
    // expected-error @+1 {{'pgpu.scan' op carry component #0 has type 'i32' but 'f32' was expected}}
    %r = pgpu.scan %v axis 0 identity(%zero : f32) carry(%ci : i32) : (!pgpu.fragment<f32, [B]>) -> (!pgpu.fragment<f32, [B]>) {
    ^bb0(%a: f32, %c: f32):
      %s = pgpu.binary add %a, %c : f32
      pgpu.yield %s : f32
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 8: a scan axis is an axis of the input.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.scan' op axis 1 is out of range}}
    %r = pgpu.scan %v axis 1 identity(%zero : f32) : (!pgpu.fragment<f32, [B]>) -> (!pgpu.fragment<f32, [B]>) {
    ^bb0(%a: f32, %c: f32):
      %s = pgpu.binary add %a, %c : f32
      pgpu.yield %s : f32
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 8: a scan's results are source-aligned (the input types).
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.scan' op results must have the input types}}
    %r = pgpu.scan %v axis 0 identity(%zero : f32) : (!pgpu.fragment<f32, [B]>) -> (!pgpu.fragment<f32, [4]>) {
    ^bb0(%a: f32, %c: f32):
      %s = pgpu.binary add %a, %c : f32
      pgpu.yield %s : f32
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 8: a scan's combine region is pure.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.scan' op 'combine' region must be pure, but contains 'pgpu.alloc'}}
    %r = pgpu.scan %v axis 0 identity(%zero : f32) : (!pgpu.fragment<f32, [B]>) -> (!pgpu.fragment<f32, [B]>) {
    ^bb0(%a: f32, %c: f32):
      %buf = pgpu.alloc first_write : !pgpu.buffer<f32, [4], program>
      %s = pgpu.binary add %a, %c : f32
      pgpu.yield %s : f32
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 8: arg_reduce values drop the reduced axis.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.arg_reduce' op values must be 'f32'}}
    %av, %ai = pgpu.arg_reduce argmax %v axis 0 base %n0 tie lowest nan propagate
        : !pgpu.fragment<f32, [B]> -> !pgpu.fragment<f32, [B]>, !pgpu.fragment<index, [B]>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 8: arg_reduce indices are index values shaped like the values.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.arg_reduce' op indices must be index values shaped like the values}}
    %av, %ai = pgpu.arg_reduce argmin %v axis 0 base %n0 tie highest nan ignore
        : !pgpu.fragment<f32, [B]> -> f32, i32
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 8: an arg_reduce axis is an axis of the input.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.arg_reduce' op axis 2 is out of range}}
    %av, %ai = pgpu.arg_reduce argmax %v axis 2 base %n0 tie lowest nan propagate
        : !pgpu.fragment<f32, [B]> -> f32, index
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 8: a contraction's accumulator has the result axes (lhs free, then rhs free).
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    %zero = arith.constant 0.0 : f32
    %zh = arith.constant 0.0 : f16
    %a = pgpu.splat %zh : f16 -> !pgpu.fragment<f16, [16, 32]>
    %b = pgpu.splat %zh : f16 -> !pgpu.fragment<f16, [32, 8]>
    %acc = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16, 8]>
    %acct = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [8, 16]>
    // expected-error @+1 {{'pgpu.contract' op accumulator '!pgpu.fragment<f32, [8, 16]>' must have the contraction's result axes (lhs free, then rhs free)}}
    %r = pgpu.contract %a, %b, %acct reduce([1], [0]) batch([], [])
        : !pgpu.fragment<f16, [16, 32]>, !pgpu.fragment<f16, [32, 8]>, !pgpu.fragment<f32, [8, 16]> -> !pgpu.fragment<f32, [8, 16]>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 8: contraction operands share one dtype.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    %zero = arith.constant 0.0 : f32
    %zh = arith.constant 0.0 : f16
    %a = pgpu.splat %zh : f16 -> !pgpu.fragment<f16, [16, 32]>
    %b = pgpu.splat %zh : f16 -> !pgpu.fragment<f16, [32, 8]>
    %acc = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16, 8]>
    %bf = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [32, 8]>
    // expected-error @+1 {{'pgpu.contract' op operands must share one dtype}}
    %r = pgpu.contract %a, %bf, %acc reduce([1], [0]) batch([], [])
        : !pgpu.fragment<f16, [16, 32]>, !pgpu.fragment<f32, [32, 8]>, !pgpu.fragment<f32, [16, 8]> -> !pgpu.fragment<f32, [16, 8]>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 8: a contraction's operand precision is KIR's (f32 operands only for tf32/tf32x3).
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    %zero = arith.constant 0.0 : f32
    %zh = arith.constant 0.0 : f16
    %a = pgpu.splat %zh : f16 -> !pgpu.fragment<f16, [16, 32]>
    %b = pgpu.splat %zh : f16 -> !pgpu.fragment<f16, [32, 8]>
    %acc = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16, 8]>
    // expected-error @+1 {{'pgpu.contract' op precision tf32x3 rounds f32 operands to TF32 and accumulates in f32; got 'f16' operands}}
    %r = pgpu.contract %a, %b, %acc reduce([1], [0]) batch([], []) precision tf32x3
        : !pgpu.fragment<f16, [16, 32]>, !pgpu.fragment<f16, [32, 8]>, !pgpu.fragment<f32, [16, 8]> -> !pgpu.fragment<f32, [16, 8]>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 8: paired reduce axes have equal extents.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    %zero = arith.constant 0.0 : f32
    %zh = arith.constant 0.0 : f16
    %a = pgpu.splat %zh : f16 -> !pgpu.fragment<f16, [16, 32]>
    %b = pgpu.splat %zh : f16 -> !pgpu.fragment<f16, [32, 8]>
    %acc = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16, 8]>
    // expected-error @+1 {{'pgpu.contract' op reduce pair (0, 0) pairs different extents}}
    %r = pgpu.contract %a, %b, %acc reduce([0], [0]) batch([], [])
        : !pgpu.fragment<f16, [16, 32]>, !pgpu.fragment<f16, [32, 8]>, !pgpu.fragment<f32, [16, 8]> -> !pgpu.fragment<f32, [16, 8]>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 8: reduce pairs name axes of the operands.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    %zero = arith.constant 0.0 : f32
    %zh = arith.constant 0.0 : f16
    %a = pgpu.splat %zh : f16 -> !pgpu.fragment<f16, [16, 32]>
    %b = pgpu.splat %zh : f16 -> !pgpu.fragment<f16, [32, 8]>
    %acc = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16, 8]>
    // expected-error @+1 {{'pgpu.contract' op reduce pair (2, 0) is out of range or repeated}}
    %r = pgpu.contract %a, %b, %acc reduce([2], [0]) batch([], [])
        : !pgpu.fragment<f16, [16, 32]>, !pgpu.fragment<f16, [32, 8]>, !pgpu.fragment<f32, [16, 8]> -> !pgpu.fragment<f32, [16, 8]>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 8: a contraction has matching, non-empty reduce pairs.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    %zero = arith.constant 0.0 : f32
    %zh = arith.constant 0.0 : f16
    %a = pgpu.splat %zh : f16 -> !pgpu.fragment<f16, [16, 32]>
    %b = pgpu.splat %zh : f16 -> !pgpu.fragment<f16, [32, 8]>
    %acc = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16, 8]>
    // expected-error @+1 {{'pgpu.contract' op needs matching, non-empty reduce pairs and matching batch pairs}}
    %r = pgpu.contract %a, %b, %acc reduce([], []) batch([], [])
        : !pgpu.fragment<f16, [16, 32]>, !pgpu.fragment<f16, [32, 8]>, !pgpu.fragment<f32, [16, 8]> -> !pgpu.fragment<f32, [16, 8]>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 8: the accumulator dtype can hold the operand dtype.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    %zero = arith.constant 0.0 : f32
    %zh = arith.constant 0.0 : f16
    %a = pgpu.splat %zh : f16 -> !pgpu.fragment<f16, [16, 32]>
    %b = pgpu.splat %zh : f16 -> !pgpu.fragment<f16, [32, 8]>
    %acc = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16, 8]>
    %acch = pgpu.splat %zh : f16 -> !pgpu.fragment<f16, [16, 8]>
    %af = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16, 32]>
    %bf = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [32, 8]>
    // expected-error @+1 {{'pgpu.contract' op accumulator dtype 'f16' cannot accumulate 'f32' operands}}
    %r = pgpu.contract %af, %bf, %acch reduce([1], [0]) batch([], [])
        : !pgpu.fragment<f32, [16, 32]>, !pgpu.fragment<f32, [32, 8]>, !pgpu.fragment<f16, [16, 8]> -> !pgpu.fragment<f16, [16, 8]>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 8: a contraction's result is its accumulator type (explicit accumulator flow).
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    %zero = arith.constant 0.0 : f32
    %zh = arith.constant 0.0 : f16
    %a = pgpu.splat %zh : f16 -> !pgpu.fragment<f16, [16, 32]>
    %b = pgpu.splat %zh : f16 -> !pgpu.fragment<f16, [32, 8]>
    %acc = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16, 8]>
    // expected-error @+1 {{'pgpu.contract' op result must have the accumulator type '!pgpu.fragment<f32, [16, 8]>'}}
    %r = pgpu.contract %a, %b, %acc reduce([1], [0]) batch([], [])
        : !pgpu.fragment<f16, [16, 32]>, !pgpu.fragment<f16, [32, 8]>, !pgpu.fragment<f32, [16, 8]> -> !pgpu.fragment<f16, [16, 8]>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 8: a scaled contraction's scale block is positive.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    %zero = arith.constant 0.0 : f32
    %zh = arith.constant 0.0 : f16
    %a = pgpu.splat %zh : f16 -> !pgpu.fragment<f16, [16, 32]>
    %b = pgpu.splat %zh : f16 -> !pgpu.fragment<f16, [32, 8]>
    %acc = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16, 8]>
    %z8 = arith.constant 0.0 : f8E4M3FN
    %s8 = arith.constant 1.0 : f8E8M0FNU
    %qa = pgpu.splat %z8 : f8E4M3FN -> !pgpu.fragment<f8E4M3FN, [16, 32]>
    %qb = pgpu.splat %z8 : f8E4M3FN -> !pgpu.fragment<f8E4M3FN, [32, 8]>
    %sa = pgpu.splat %s8 : f8E8M0FNU -> !pgpu.fragment<f8E8M0FNU, [16, 1]>
    %sb = pgpu.splat %s8 : f8E8M0FNU -> !pgpu.fragment<f8E8M0FNU, [1, 8]>
    // expected-error @+1 {{'pgpu.scaled_contract' op scale block must be positive}}
    %r = pgpu.scaled_contract %qa scale %sa, %qb scale %sb, %acc format "mxfp8" block 0 reduce([1], [0])
        : !pgpu.fragment<f8E4M3FN, [16, 32]>, !pgpu.fragment<f8E8M0FNU, [16, 1]>, !pgpu.fragment<f8E4M3FN, [32, 8]>,
          !pgpu.fragment<f8E8M0FNU, [1, 8]>, !pgpu.fragment<f32, [16, 8]> -> !pgpu.fragment<f32, [16, 8]>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 8: a scaled contraction's accumulator has the result axes.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    %zero = arith.constant 0.0 : f32
    %zh = arith.constant 0.0 : f16
    %a = pgpu.splat %zh : f16 -> !pgpu.fragment<f16, [16, 32]>
    %b = pgpu.splat %zh : f16 -> !pgpu.fragment<f16, [32, 8]>
    %acc = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16, 8]>
    %z8 = arith.constant 0.0 : f8E4M3FN
    %s8 = arith.constant 1.0 : f8E8M0FNU
    %qa = pgpu.splat %z8 : f8E4M3FN -> !pgpu.fragment<f8E4M3FN, [16, 32]>
    %qb = pgpu.splat %z8 : f8E4M3FN -> !pgpu.fragment<f8E4M3FN, [32, 16]>
    %sa = pgpu.splat %s8 : f8E8M0FNU -> !pgpu.fragment<f8E8M0FNU, [16, 1]>
    %sb = pgpu.splat %s8 : f8E8M0FNU -> !pgpu.fragment<f8E8M0FNU, [1, 16]>
    // expected-error @+1 {{'pgpu.scaled_contract' op accumulator '!pgpu.fragment<f32, [16, 8]>' must have the contraction's result axes (lhs free, then rhs free)}}
    %r = pgpu.scaled_contract %qa scale %sa, %qb scale %sb, %acc format "mxfp8" block 32 reduce([1], [0])
        : !pgpu.fragment<f8E4M3FN, [16, 32]>, !pgpu.fragment<f8E8M0FNU, [16, 1]>, !pgpu.fragment<f8E4M3FN, [32, 16]>,
          !pgpu.fragment<f8E8M0FNU, [1, 16]>, !pgpu.fragment<f32, [16, 8]> -> !pgpu.fragment<f32, [16, 8]>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 8: a sparse contraction's n:m pattern satisfies 0 < n < m.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    %zero = arith.constant 0.0 : f32
    %zh = arith.constant 0.0 : f16
    %a = pgpu.splat %zh : f16 -> !pgpu.fragment<f16, [16, 32]>
    %b = pgpu.splat %zh : f16 -> !pgpu.fragment<f16, [32, 8]>
    %acc = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16, 8]>
    %meta = pgpu.splat %p : index -> !pgpu.fragment<index, [16, 32]>
    // expected-error @+1 {{'pgpu.sparse_contract' op pattern 4:2 must satisfy 0 < n < m}}
    %r = pgpu.sparse_contract %a meta %meta, %b, %acc pattern 4 : 2 reduce([1], [0])
        : !pgpu.fragment<f16, [16, 32]>, !pgpu.fragment<index, [16, 32]>, !pgpu.fragment<f16, [32, 8]>, !pgpu.fragment<f32, [16, 8]>
        -> !pgpu.fragment<f32, [16, 8]>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 8: a sparse contraction has exactly one (sparse) reduce pair.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    %zero = arith.constant 0.0 : f32
    %zh = arith.constant 0.0 : f16
    %a = pgpu.splat %zh : f16 -> !pgpu.fragment<f16, [16, 32]>
    %b = pgpu.splat %zh : f16 -> !pgpu.fragment<f16, [32, 8]>
    %acc = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16, 8]>
    %meta = pgpu.splat %p : index -> !pgpu.fragment<index, [16, 32]>
    // expected-error @+1 {{'pgpu.sparse_contract' op needs exactly one reduce pair (the sparse axis)}}
    %r = pgpu.sparse_contract %a meta %meta, %b, %acc pattern 2 : 4 reduce([0, 1], [1, 0])
        : !pgpu.fragment<f16, [16, 32]>, !pgpu.fragment<index, [16, 32]>, !pgpu.fragment<f16, [32, 8]>, !pgpu.fragment<f32, [16, 8]>
        -> !pgpu.fragment<f32, [16, 8]>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 8: a histogram counts integer values.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.histogram' op counts integer values, got 'f32'}}
    %h = pgpu.histogram %v valid %ok : !pgpu.fragment<f32, [B]>, !pgpu.fragment<i1, [B]> -> !pgpu.fragment<i32, [16]>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 8: a histogram's result is a 1-d integer fragment of counts.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.histogram' op result must be a 1-d integer fragment of counts}}
    %h = pgpu.histogram %i valid %ok : !pgpu.fragment<index, [B]>, !pgpu.fragment<i1, [B]> -> !pgpu.fragment<i32, [4, 4]>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 8: a histogram's validity is i1 shaped like its input.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    %ok4 = pgpu.splat %true : i1 -> !pgpu.fragment<i1, [4]>
    // expected-error @+1 {{'pgpu.histogram' op validity must be i1 shaped like the input}}
    %h = pgpu.histogram %i valid %ok4 : !pgpu.fragment<index, [B]>, !pgpu.fragment<i1, [4]> -> !pgpu.fragment<i32, [16]>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 8: region_fold identities follow the result schema.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    %zi = arith.constant 0 : i32
    // expected-error @+1 {{'pgpu.region_fold' op identity component #0 has type 'i32' but 'f32' was expected}}
    %r = pgpu.region_fold %c0 to %N step %b identity(%zi : i32) -> (f32)
    summarize {
    ^bb0(%lo: index, %hi: index):
      %z = arith.constant 0.0 : f32
      pgpu.yield %z : f32
    } combine {
    ^bb0(%a: f32, %c: f32):
      %s = pgpu.binary add %a, %c : f32
      pgpu.yield %s : f32
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 8: a region_fold summarizer takes the segment bounds and the captured operands.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.region_fold' op 'summarize' region takes 2 arguments but 3 were expected}}
    %r = pgpu.region_fold %c0 to %N step %b identity(%zero : f32) operands(%x : !pgpu.view<f32, [N], in>) -> (f32)
    summarize {
    ^bb0(%lo: index, %hi: index):
      %z = arith.constant 0.0 : f32
      pgpu.yield %z : f32
    } combine {
    ^bb0(%a: f32, %c: f32):
      %s = pgpu.binary add %a, %c : f32
      pgpu.yield %s : f32
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 8: a region_fold summarizer reads but never writes.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.region_fold' op 'summarize' region must be free of writes, but contains 'pgpu.store'}}
    %r = pgpu.region_fold %c0 to %N step %b identity(%zero : f32) operands(%y : !pgpu.view<f32, [N], out>) -> (f32)
    summarize {
    ^bb0(%lo: index, %hi: index, %o: !pgpu.view<f32, [N], out>):
      %z = arith.constant 0.0 : f32
      %t = arith.constant true
      pgpu.store %z, %o[%lo] valid %t : i1 : f32, !pgpu.view<f32, [N], out>[index]
      pgpu.yield %z : f32
    } combine {
    ^bb0(%a: f32, %c: f32):
      %s = pgpu.binary add %a, %c : f32
      pgpu.yield %s : f32
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 8: a region_fold summarizer is closed (captures go through 'operands').
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.region_fold' op 'summarize' region captures a value defined outside it (operand of 'pgpu.load'); pass it through the op's operands}}
    %r = pgpu.region_fold %c0 to %N step %b identity(%zero : f32) -> (f32)
    summarize {
    ^bb0(%lo: index, %hi: index):
      %z = arith.constant 0.0 : f32
      %t = arith.constant true
      %e = pgpu.load %x[%lo] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N], in>[index] -> f32
      pgpu.yield %e : f32
    } combine {
    ^bb0(%a: f32, %c: f32):
      %s = pgpu.binary add %a, %c : f32
      pgpu.yield %s : f32
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 8: a region_fold combine yields one value per summary component.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.region_fold' op 'combine' region yields 2 values but 1 were expected}}
    %r = pgpu.region_fold %c0 to %N step %b identity(%zero : f32) -> (f32)
    summarize {
    ^bb0(%lo: index, %hi: index):
      %z = arith.constant 0.0 : f32
      pgpu.yield %z : f32
    } combine {
    ^bb0(%a: f32, %c: f32):
      pgpu.yield %a, %c : f32, f32
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 8: region_scan's final state has the initial state's types.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    %zi = arith.constant 0 : i32
    // expected-error @+1 {{'pgpu.region_scan' op final state types must equal the initial state types}}
    %r = pgpu.region_scan %c0 to %N step %b identity(%zero : f32) init(%zero : f32) -> (i32)
    summarize {
    ^bb0(%lo: index, %hi: index):
      %z = arith.constant 0.0 : f32
      pgpu.yield %z : f32
    } combine {
    ^bb0(%t1: f32, %t2: f32):
      %s = pgpu.binary add %t1, %t2 : f32
      pgpu.yield %s : f32
    } apply {
    ^bb0(%tr: f32, %st: f32):
      %s = pgpu.binary add %st, %tr : f32
      pgpu.yield %s : f32
    } emit {
    ^bb0(%lo: index, %hi: index, %st: f32):
      pgpu.yield
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 8: region_scan's apply is pure.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.region_scan' op 'apply' region must be pure, but contains 'pgpu.alloc'}}
    %r = pgpu.region_scan %c0 to %N step %b identity(%zero : f32) init(%zero : f32) -> (f32)
    summarize {
    ^bb0(%lo: index, %hi: index):
      %z = arith.constant 0.0 : f32
      pgpu.yield %z : f32
    } combine {
    ^bb0(%t1: f32, %t2: f32):
      %s = pgpu.binary add %t1, %t2 : f32
      pgpu.yield %s : f32
    } apply {
    ^bb0(%tr: f32, %st: f32):
      %buf = pgpu.alloc init %st : f32 : !pgpu.buffer<f32, [4], program>
      %s = pgpu.binary add %st, %tr : f32
      pgpu.yield %s : f32
    } emit {
    ^bb0(%lo: index, %hi: index, %st: f32):
      pgpu.yield
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 8: region_scan's apply maps (transition, state) to the next state.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.region_scan' op 'apply' region takes 1 arguments but 2 were expected}}
    %r = pgpu.region_scan %c0 to %N step %b identity(%zero : f32) init(%zero : f32) -> (f32)
    summarize {
    ^bb0(%lo: index, %hi: index):
      %z = arith.constant 0.0 : f32
      pgpu.yield %z : f32
    } combine {
    ^bb0(%t1: f32, %t2: f32):
      %s = pgpu.binary add %t1, %t2 : f32
      pgpu.yield %s : f32
    } apply {
    ^bb0(%tr: f32):
      pgpu.yield %tr : f32
    } emit {
    ^bb0(%lo: index, %hi: index, %st: f32):
      pgpu.yield
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 8: region_scan's emitter receives the bounds, the incoming state and the captures.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.region_scan' op 'emit' region takes 2 arguments but 3 were expected}}
    %r = pgpu.region_scan %c0 to %N step %b identity(%zero : f32) init(%zero : f32) -> (f32)
    summarize {
    ^bb0(%lo: index, %hi: index):
      %z = arith.constant 0.0 : f32
      pgpu.yield %z : f32
    } combine {
    ^bb0(%t1: f32, %t2: f32):
      %s = pgpu.binary add %t1, %t2 : f32
      pgpu.yield %s : f32
    } apply {
    ^bb0(%tr: f32, %st: f32):
      %s = pgpu.binary add %st, %tr : f32
      pgpu.yield %s : f32
    } emit {
    ^bb0(%lo: index, %hi: index):
      pgpu.yield
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 8: region_scan's emitter is closed (captures go through 'operands').
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.region_scan' op 'emit' region captures a value defined outside it (operand of 'pgpu.binary'); pass it through the op's operands}}
    %r = pgpu.region_scan %c0 to %N step %b identity(%zero : f32) init(%zero : f32) -> (f32)
    summarize {
    ^bb0(%lo: index, %hi: index):
      %z = arith.constant 0.0 : f32
      pgpu.yield %z : f32
    } combine {
    ^bb0(%t1: f32, %t2: f32):
      %s = pgpu.binary add %t1, %t2 : f32
      pgpu.yield %s : f32
    } apply {
    ^bb0(%tr: f32, %st: f32):
      %s = pgpu.binary add %st, %tr : f32
      pgpu.yield %s : f32
    } emit {
    ^bb0(%lo: index, %hi: index, %st: f32):
      %at = pgpu.binary add %lo, %n0 : index
      pgpu.yield
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 8: region_scan's summarizer reads but never writes.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.region_scan' op 'summarize' region must be free of writes, but contains 'pgpu.atomic_rmw'}}
    %r = pgpu.region_scan %c0 to %N step %b identity(%zero : f32) init(%zero : f32) operands(%y : !pgpu.view<f32, [N], out>) -> (f32)
    summarize {
    ^bb0(%lo: index, %hi: index, %o: !pgpu.view<f32, [N], out>):
      %z = arith.constant 0.0 : f32
      %t = arith.constant true
      %old = pgpu.atomic_rmw add %z, %o[%lo] valid %t : i1 order relaxed sharing invocation : f32, !pgpu.view<f32, [N], out>[index] -> f32
      pgpu.yield %z : f32
    } combine {
    ^bb0(%t1: f32, %t2: f32):
      %s = pgpu.binary add %t1, %t2 : f32
      pgpu.yield %s : f32
    } apply {
    ^bb0(%tr: f32, %st: f32):
      %s = pgpu.binary add %st, %tr : f32
      pgpu.yield %s : f32
    } emit {
    ^bb0(%lo: index, %hi: index, %st: f32, %o: !pgpu.view<f32, [N], out>):
      pgpu.yield
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 8: region_scan's transition combine takes two transitions.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.region_scan' op 'combine' region argument #1 has type 'i32' but 'f32' was expected}}
    %r = pgpu.region_scan %c0 to %N step %b identity(%zero : f32) init(%zero : f32) -> (f32)
    summarize {
    ^bb0(%lo: index, %hi: index):
      %z = arith.constant 0.0 : f32
      pgpu.yield %z : f32
    } combine {
    ^bb0(%t1: f32, %t2: i32):
      pgpu.yield %t1 : f32
    } apply {
    ^bb0(%tr: f32, %st: f32):
      %s = pgpu.binary add %st, %tr : f32
      pgpu.yield %s : f32
    } emit {
    ^bb0(%lo: index, %hi: index, %st: f32):
      pgpu.yield
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 8: a scatter_reduce combine is a typed (element, element) -> element function.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.scatter_reduce' op 'combine' region argument #0 has type 'i32' but 'f32' was expected}}
    pgpu.scatter_reduce %v, %y[%i] valid %ok : !pgpu.fragment<i1, [B]>
        : !pgpu.fragment<f32, [B]>, !pgpu.view<f32, [N], out>[!pgpu.fragment<index, [B]>] {
    ^bb0(%a: i32, %c: f32):
      pgpu.yield %c : f32
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 8: a scatter_reduce combine is closed.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    %k = pgpu.extract %v[%c0] : !pgpu.fragment<f32, [B]> -> f32
    // expected-error @+1 {{'pgpu.scatter_reduce' op 'combine' region captures a value defined outside it (operand of 'pgpu.binary'); pass it through the op's operands}}
    pgpu.scatter_reduce %v, %y[%i] valid %ok : !pgpu.fragment<i1, [B]>
        : !pgpu.fragment<f32, [B]>, !pgpu.view<f32, [N], out>[!pgpu.fragment<index, [B]>] {
    ^bb0(%a: f32, %c: f32):
      %s = pgpu.binary add %a, %k : f32
      pgpu.yield %s : f32
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 9: a store that ignores program axis 1 is written by every instance along it.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%y: !pgpu.view<f32, [M, N], out>, %gm: index, %gn: index) {
  pgpu.program_space (%gm, %gn) {
  ^bb0(%pm: index, %pn: index):
    %c0 = arith.constant 0 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    // expected-error @+1 {{'pgpu.store' op writes the same elements from every program instance along program axis 1: a conflicting non-atomic write (invariant 9); use an atomic or scatter_reduce}}
    pgpu.store %zero, %y[%pm, %c0] valid %true : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 9: constant coordinates written from every program instance.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.store' op writes the same elements from every program instance along program axis 0: a conflicting non-atomic write (invariant 9); use an atomic or scatter_reduce}}
    pgpu.store %zero, %y[%c0] valid %true : i1 : f32, !pgpu.view<f32, [N], out>[index]
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 9: a non-atomic write to shared invocation workspace from every instance.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%ws: !pgpu.buffer<f32, [64], workspace> {pgpu.private = "workspace"}, %n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %d = pgpu.iota %c0 : !pgpu.fragment<index, [64]>
    %z = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [64]>
    // expected-error @+1 {{'pgpu.buffer_store' op writes the same elements from every program instance along program axis 0: a conflicting non-atomic write (invariant 9); use an atomic or scatter_reduce}}
    pgpu.buffer_store %z, %ws[%d] valid %true : i1 : !pgpu.fragment<f32, [64]>, !pgpu.buffer<f32, [64], workspace>[!pgpu.fragment<index, [64]>]
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 9: a guard that does not depend on the program coordinate does not make a write owned.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    %big = pgpu.cmp gt %N, %c0 : index
    pgpu.if %big {
      // expected-error @+1 {{'pgpu.store' op writes the same elements from every program instance along program axis 0: a conflicting non-atomic write (invariant 9); use an atomic or scatter_reduce}}
      pgpu.store %zero, %y[%c0] valid %true : i1 : f32, !pgpu.view<f32, [N], out>[index]
      pgpu.yield
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 10: a grid extent computed from device data (a load).
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%sizes: !pgpu.view<index, [E], in>) {
  %c0 = arith.constant 0 : index
  %true = arith.constant true
  %e = pgpu.load %sizes[%c0] valid %true : i1 fill %c0 : index : !pgpu.view<index, [E], in>[index] -> index
  // expected-error @+1 {{'pgpu.program_space' op extent #0 is not a LaunchExpr: it depends on 'pgpu.load' (seed 000 §3.1: constants, parameters, ABI scalars and view metadata only)}}
  pgpu.program_space (%e) {
  ^bb0(%p: index):
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 10: a grid extent computed by an op outside the LaunchExpr language (arith.addi).
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%n: index) {
  %c1 = arith.constant 1 : index
  %n1 = arith.addi %n, %c1 : index
  // expected-error @+1 {{'pgpu.program_space' op extent #0 is not a LaunchExpr: it depends on 'arith.addi' (seed 000 §3.1: constants, parameters, ABI scalars and view metadata only)}}
  pgpu.program_space (%n1) {
  ^bb0(%p: index):
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 10: a grid extent computed through a float conversion (LaunchExpr is integer/bool).
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%s: f32) {
  %c4 = arith.constant 4 : index
  %n = pgpu.cast %s : f32 to index
  // expected-error @+1 {{'pgpu.program_space' op extent #1 is not a LaunchExpr: it depends on 'pgpu.cast' (seed 000 §3.1: constants, parameters, ABI scalars and view metadata only)}}
  pgpu.program_space (%c4, %n) {
  ^bb0(%p: index, %q: index):
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 10: a grid extent computed by a loop (not an effect-free LaunchExpr op).
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = pgpu.for %c0 to %n step %c1 iter_args(%c1 : index) -> index {
  ^bb0(%i: index, %a: index):
    pgpu.yield %a : index
  }
  // expected-error @+1 {{'pgpu.program_space' op extent #0 is not a LaunchExpr: it depends on 'pgpu.for' (seed 000 §3.1: constants, parameters, ABI scalars and view metadata only)}}
  pgpu.program_space (%r) {
  ^bb0(%p: index):
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 10 (seed 000 §3.1): execution-group segment extents are LaunchExpr, not program-body values.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    %pp = pgpu.binary add %p, %c1 : index
    // expected-error @+1 {{'pgpu.execution_group' op segment extent #0 is not a LaunchExpr}}
    pgpu.execution_group %p extents(%pp) segment 0 roles ["m"] {
    ^bb0(%pm: index):
      pgpu.yield
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 12: a KIR op inside a physical kernel.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'kir.binary' op is a KIR op inside a physical kernel (invariant 12)}}
    %s = kir.binary add %zero, %zero : f32
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 12: an axis-role side record on an op (pgpu attributes are not side records).
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{unknown pgpu attribute 'pgpu.role'; physical facts live in ops and types, not side records}}
    %m0 = pgpu.binary mul %p, %b {pgpu.role = "m"} : index
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 12: a KIR attribute carried into physical IR.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{unknown kir attribute 'kir.foo'}}
    %m0 = pgpu.binary mul %p, %b {kir.foo} : index
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 12: a dialect-less discardable attribute (a decision record) on an op.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.binary' op carries side record 'role'; execution facts must be ops, operands and types (invariant 12)}}
    %m0 = pgpu.binary mul %p, %b {role = "m"} : index
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 12: a side record on a structured op.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.reduce' op carries side record 'tile_k'; execution facts must be ops, operands and types (invariant 12)}}
    %r = pgpu.reduce %v axes [0] identity(%zero : f32) {tile_k = 32 : i64} : (!pgpu.fragment<f32, [B]>) -> (f32) {
    ^bb0(%a: f32, %c: f32):
      %s = pgpu.binary add %a, %c : f32
      pgpu.yield %s : f32
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: seed 002 §5.3: a physical parameter is declared once.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
// expected-error @+1 {{'pgpu.kernel' op declares parameter 'B' twice}}
pgpu.kernel @k(%n: index) attributes {params = [#pgpu.param<"B", [64], 64>, #pgpu.param<"B", [32], 32>]} {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: seed 002 §5.3: an empty candidate domain. The attribute parser already rejects it, so the
// COM: verifier's "empty candidate domain" message is reachable only from C++ builders.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
// expected-error @+2 {{expected integer value}}
// expected-error @+1 {{failed to parse PGPU_ParamAttr parameter 'candidates' which is to be a `::llvm::ArrayRef<int64_t>`}}
pgpu.kernel @k(%n: index) attributes {params = [#pgpu.param<"B", [], 64>]} {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: seed 002 §5.3: candidates are positive.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
// expected-error @+1 {{'pgpu.kernel' op parameter 'B' has a non-positive candidate 0}}
pgpu.kernel @k(%n: index) attributes {params = [#pgpu.param<"B", [0, 64], 64>]} {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: seed 002 §5.3: negative candidates are rejected too.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
// expected-error @+1 {{'pgpu.kernel' op parameter 'B' has a non-positive candidate -32}}
pgpu.kernel @k(%n: index) attributes {params = [#pgpu.param<"B", [64, -32], 64>]} {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: seed 002 §5.3: the heuristic default is one of the candidates.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
// expected-error @+1 {{'pgpu.kernel' op parameter 'B' default 48 is not one of its candidates [32, 64]}}
pgpu.kernel @k(%n: index) attributes {params = [#pgpu.param<"B", [32, 64], 48>]} {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: seed 002 §5.3: pgpu.param reads a declared parameter.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%n: index) attributes {params = [#pgpu.param<"B", [32, 64], 64>]} {
  // expected-error @+1 {{'pgpu.param' op reads parameter 'BK', which the kernel does not declare}}
  %bk = pgpu.param "BK" : index
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: seed 002 §5.3: provider knobs are not shared program facts.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%n: index) attributes {params = [#pgpu.param<"num_warps", [4, 8], 4, provider = "triton">]} {
  // expected-error @+1 {{'pgpu.param' op reads provider parameter 'num_warps' (triton); provider knobs are not shared program facts}}
  %w = pgpu.param "num_warps" : index
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: seed 002 §5.3 (ABI): kernel argument names are unique.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
// expected-error @+1 {{'pgpu.kernel' op argument #1 repeats the ABI name 'x'}}
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %x2: !pgpu.view<f32, [N], in> {kir.name = "x"}, %n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: seed 002 §5.3 (ABI metadata): extent axes exist on the view.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [M, N], in>) {
  // expected-error @+1 {{'pgpu.extent' op axis 2 is out of range for '!pgpu.view<f32, [M, N], in>'}}
  %e = pgpu.extent %x[2] : !pgpu.view<f32, [M, N], in>
  pgpu.program_space (%e) {
  ^bb0(%p: index):
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: seed 002 §5.3 (ABI metadata): stride axes exist on the view.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [M, N], in>, %n: index) {
  // expected-error @+1 {{'pgpu.stride' op axis -1 is out of range for '!pgpu.view<f32, [M, N], in>'}}
  %s = pgpu.stride %x[-1] : !pgpu.view<f32, [M, N], in>
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: seed 000 §6 atomics: an atomic load is relaxed or acquire, never release.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%f: !pgpu.view<i32, [N], inout>, %n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    %true = arith.constant true
    // expected-error @+1 {{'pgpu.atomic_load' op does not accept memory order 'release'}}
    %v = pgpu.atomic_load %f[%p] valid %true : i1 order release sharing invocation : !pgpu.view<i32, [N], inout>[index] -> i32
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: seed 000 §6 atomics: an atomic load is relaxed or acquire, never acq_rel.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%f: !pgpu.view<i32, [N], inout>, %n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    %true = arith.constant true
    // expected-error @+1 {{'pgpu.atomic_load' op does not accept memory order 'acq_rel'}}
    %v = pgpu.atomic_load %f[%p] valid %true : i1 order acq_rel sharing parallel : !pgpu.view<i32, [N], inout>[index] -> i32
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: seed 000 §6 atomics: an atomic store is relaxed or release, never acquire.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%f: !pgpu.view<i32, [N], inout>, %n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    %true = arith.constant true
    %one = arith.constant 1 : i32
    // expected-error @+1 {{'pgpu.atomic_store' op does not accept memory order 'acquire'}}
    pgpu.atomic_store %one, %f[%p] valid %true : i1 order acquire sharing invocation : i32, !pgpu.view<i32, [N], inout>[index]
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: seed 000 §6 atomics: bitwise RMW kinds need an integer view.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%f: !pgpu.view<f32, [N], inout>, %n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    %true = arith.constant true
    %one = arith.constant 1.0 : f32
    // expected-error @+1 {{'pgpu.atomic_rmw' op 'xor' needs an integer view, got 'f32'}}
    %old = pgpu.atomic_rmw xor %one, %f[%p] valid %true : i1 order relaxed sharing invocation : f32, !pgpu.view<f32, [N], inout>[index] -> f32
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: seed 000 §6 atomics: the old value of an RMW has the update's type.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%f: !pgpu.view<i32, [N], inout>, %n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %true = arith.constant true
    %one = arith.constant 1 : i32
    %ones = pgpu.splat %one : i32 -> !pgpu.fragment<i32, [4]>
    %at = pgpu.iota %c0 : !pgpu.fragment<index, [4]>
    // expected-error @+1 {{'pgpu.atomic_rmw' op old value must have the update's type '!pgpu.fragment<i32, [4]>'}}
    %old = pgpu.atomic_rmw add %ones, %f[%at] valid %true : i1 order relaxed sharing invocation
        : !pgpu.fragment<i32, [4]>, !pgpu.view<i32, [N], inout>[!pgpu.fragment<index, [4]>] -> i32
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: seed 000 §6 atomics: CAS success is i1 shaped like the old value.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%f: !pgpu.view<i32, [N], inout>, %n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    %true = arith.constant true
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    // expected-error @+1 {{'pgpu.atomic_cas' op success must be 'i1'}}
    %old, %ok = pgpu.atomic_cas %zero, %one, %f[%p] valid %true : i1 order acq_rel sharing invocation
        : i32, !pgpu.view<i32, [N], inout>[index] -> i32
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 3 (fragment type): fragment elements are scalars.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{fragment elements must be scalars, got 'tensor<4xf32>'}}
    %f = pgpu.splat %zero : f32 -> !pgpu.fragment<tensor<4xf32>, [B]>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 3 (fragment type, seed 000 §4.1): a scalar is not a zero-axis fragment.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{a fragment has at least one axis; use a scalar instead (seed 000 §4.1)}}
    %f = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, []>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 3 (fragment type): static extents are non-negative.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{extent must be non-negative, got -4}}
    %f = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [-4]>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 3 (view type): view elements are scalars.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
// expected-error @+1 {{view elements must be scalars, got 'tuple<f32>'}}
pgpu.kernel @k(%x: !pgpu.view<tuple<f32>, [N], in>, %n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 3 (view type): the access mode is in, out or inout.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
// expected-error @+1 {{expected view mode 'in', 'out' or 'inout', got 'rw'}}
pgpu.kernel @k(%x: !pgpu.view<f32, [N], rw>, %n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 3 (view type): static view extents are non-negative.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
// expected-error @+1 {{extent must be non-negative, got -1}}
pgpu.kernel @k(%x: !pgpu.view<f32, [-1], in>, %n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 3 (buffer type): the allocation scope is program, iteration or workspace.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
// expected-error @+1 {{expected buffer scope 'program', 'iteration' or 'workspace', got 'shared'}}
pgpu.kernel @k(%ws: !pgpu.buffer<f32, [4], shared> {pgpu.private = "workspace"}, %n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 3 (buffer type): buffer elements are scalars.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
// expected-error @+1 {{buffer elements must be scalars, got 'vector<4xf32>'}}
pgpu.kernel @k(%ws: !pgpu.buffer<vector<4xf32>, [4], workspace> {pgpu.private = "workspace"}, %n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: seed 000 §2: the target capability object belongs on the module.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
// expected-error @+1 {{'pgpu.target' belongs on a builtin.module}}
pgpu.kernel @k(%n: index) attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: seed 000 §2: pgpu.target is a #pgpu.target attribute.
// expected-error @+1 {{'pgpu.target' must be a #pgpu.target attribute}}
module attributes {pgpu.target = "sm_90"} {
}

// -----
// COM: seed 000 §2 / invariant 12: no other pgpu attribute may sit on the module.
// expected-error @+1 {{unknown pgpu attribute 'pgpu.autotune_winner'; physical facts live in ops and types, not side records}}
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, pgpu.autotune_winner = 3 : i64} {
}

// -----
// COM: seed 000 §2: the target's arch is a string.
// expected-error @+2 {{invalid kind of attribute specified}}
// expected-error @+1 {{failed to parse PGPU_TargetAttr parameter 'arch'}}
module attributes {pgpu.target = #pgpu.target<arch = 90>} {
}

// -----
// COM: invariant 3 (value ops): bitwise kinds need integer operands.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.binary' op 'xor' needs integer operands, got 'f32'}}
    %r = pgpu.binary xor %v, %v : !pgpu.fragment<f32, [B]>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 3 (value ops): transcendental kinds need float operands.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.unary' op 'exp' needs float operands, got 'index'}}
    %r = pgpu.unary exp %i : !pgpu.fragment<index, [B]>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 3 (value ops): numerical attributes are defined only for their f32 forms.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.binary' op has no approximate form; 'approximate' is defined for f32 div, exp2 and tanh}}
    %r = pgpu.binary add %v, %v {approximate} : !pgpu.fragment<f32, [B]>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 3 (value ops): a fragment select condition has the values' shape.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    %c4 = pgpu.splat %true : i1 -> !pgpu.fragment<i1, [4]>
    // expected-error @+1 {{'pgpu.select' op fragment condition '!pgpu.fragment<i1, [4]>' must have the shape of '!pgpu.fragment<f32, [B]>'}}
    %r = pgpu.select %c4, %v, %v : !pgpu.fragment<i1, [4]>, !pgpu.fragment<f32, [B]>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 3 (value ops): a cast preserves the shape (scalar<->fragment is splat/extract).
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.cast' op must preserve the shape: '!pgpu.fragment<f32, [B]>' to 'f16'}}
    %r = pgpu.cast %v : !pgpu.fragment<f32, [B]> to f16
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 3 (value ops): a cast changes the type.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.cast' op casts '!pgpu.fragment<f32, [B]>' to itself}}
    %r = pgpu.cast %v : !pgpu.fragment<f32, [B]> to !pgpu.fragment<f32, [B]>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 3 (value ops): a bitcast keeps the bit width.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.bitcast' op needs element types of equal bit width, got 'f32' and 'i16'}}
    %r = pgpu.bitcast %v : !pgpu.fragment<f32, [B]> to !pgpu.fragment<i16, [B]>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 3 (value ops): iota builds a 1-d index fragment.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.iota' op result must be a 1-d index fragment, got '!pgpu.fragment<index, [B, B]>'}}
    %r = pgpu.iota %c0 : !pgpu.fragment<index, [B, B]>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 3 (value ops): splat keeps the element type.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.splat' op result elements must have the operand type 'f32'}}
    %r = pgpu.splat %zero : f32 -> !pgpu.fragment<f16, [B]>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 3 (value ops): broadcast maps each operand axis to a result axis of the same extent.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.broadcast' op operand axis 0 and result axis 0 have different extents}}
    %r = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [B]> -> !pgpu.fragment<index, [4, B]>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 3 (value ops): broadcast dims are strictly increasing result axes.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.broadcast' op 'dims' must be strictly increasing result axes, got entry 2}}
    %r = pgpu.broadcast %i dims [2] : !pgpu.fragment<index, [B]> -> !pgpu.fragment<index, [4, B]>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 3 (value ops): extract takes one index per fragment axis.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.extract' op needs one index per fragment axis (1)}}
    %r = pgpu.extract %v[%c0, %c0] : !pgpu.fragment<f32, [B]> -> f32
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 3 (value ops): a reshape keeps the element count.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    %f = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [4, 16]>
    // expected-error @+1 {{'pgpu.reshape' op changes the element count from 64 to 32}}
    %r = pgpu.reshape %f : !pgpu.fragment<f32, [4, 16]> -> !pgpu.fragment<f32, [32]>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 4 (value ops): a reshape of parameterized extents cannot be proven to keep the count.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.reshape' op reshapes parameterized extents, which cannot be proven to keep the element count}}
    %r = pgpu.reshape %v : !pgpu.fragment<f32, [B]> -> !pgpu.fragment<f32, [B, 1]>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 3 (value ops): transpose permutes the axes.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    %zero = arith.constant 0.0 : f32
    %f = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [4, 16]>
    // expected-error @+1 {{'pgpu.transpose' op permutation [0, 0] is not a permutation}}
    %r = pgpu.transpose %f [0, 0] : !pgpu.fragment<f32, [4, 16]> -> !pgpu.fragment<f32, [4, 4]>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 3 (value ops): join adds a trailing axis of extent 2.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.join' op result must be '!pgpu.fragment<f32, [B, 2]>'}}
    %r = pgpu.join %v, %v : !pgpu.fragment<f32, [B]> -> !pgpu.fragment<f32, [2, B]>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 3 (value ops): a tuple's type lists its elements.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    // expected-error @+1 {{'pgpu.tuple' op element types must match 'tuple<f32, f16>'}}
    %t = pgpu.tuple %zero, %zero : f32, f32 -> tuple<f32, f16>
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 3 (value ops): tuple_get indexes an element of the tuple.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
    attributes {params = [#pgpu.param<"B", [64, 128], 64>]} {
  %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
  %b = pgpu.param "B" : index
  %g = pgpu.ceil_div %N, %b : index
  pgpu.program_space (%g) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %n0 = pgpu.binary mul %p, %b : index
    %i = pgpu.iota %n0 : !pgpu.fragment<index, [B]>
    %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [B]>
    %ok = pgpu.cmp lt %i, %Nf : !pgpu.fragment<index, [B]>
    %v = pgpu.load %x[%i] valid %ok : !pgpu.fragment<i1, [B]> fill %zero : f32
        : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
    %t = pgpu.tuple %zero, %p : f32, index -> tuple<f32, index>
    // expected-error @+1 {{'pgpu.tuple_get' op index 2 is out of range for 'tuple<f32, index>'}}
    %r = pgpu.tuple_get %t[2] : tuple<f32, index> -> f32
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: seed 000 §2: a physical module carries its target capabilities.
module {
// expected-error @+1 {{'pgpu.kernel' op is in a module without a #pgpu.target capability attribute (seed 000 §2)}}
pgpu.kernel @k(%n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: Invariant 12 on arguments: argument attributes hold ABI facts only.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
// expected-error @+1 {{'pgpu.kernel' op argument #0 carries side record 'pgpu.role'; arguments hold only ABI facts (invariant 12)}}
pgpu.kernel @k(%x: !pgpu.view<f32, [M, N], in> {pgpu.role = "m"}, %n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: Only scalars can be wrapper-computed private parameters.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
// expected-error @+1 {{'pgpu.kernel' op argument #0 is a view marked 'wrapper_scalar'; views are public ABI and cannot be compiler-private}}
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in> {pgpu.private = "wrapper_scalar"}, %n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: Invariant 7: the runtime must be able to size invocation workspace.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
// expected-error @+1 {{'pgpu.kernel' op workspace argument #1 has extent 'ZZ', which is neither a declared parameter, a view extent nor a pgpu.workspace_extent; the runtime cannot size it}}
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %ws: !pgpu.buffer<f32, [ZZ], workspace> {pgpu.private = "workspace"}, %n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: A workspace extent named by a LaunchExpr (pgpu.workspace_extent) sizes workspace; its value is a
// COM: LaunchExpr, its name new (not a parameter or view extent) and bound once.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %n: index) {
  %v = arith.constant 1.0 : f32
  %c = pgpu.cast %v : f32 to i32
  %i = pgpu.cast %c : i32 to index
  // expected-error @+1 {{'pgpu.workspace_extent' op sizes workspace with a value that is not a LaunchExpr: it depends on 'pgpu.cast'}}
  pgpu.workspace_extent "P" = %i
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    pgpu.yield
  }
  pgpu.return
}
}

// -----
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %n: index) {
  // expected-error @+1 {{'pgpu.workspace_extent' op names 'N', a view extent; a workspace extent symbol is new}}
  pgpu.workspace_extent "N" = %n
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    pgpu.yield
  }
  pgpu.return
}
}

// -----
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %n: index) {
  pgpu.workspace_extent "P" = %n
  // expected-error @+1 {{'pgpu.workspace_extent' op binds 'P' a second time; each workspace extent symbol is bound once}}
  pgpu.workspace_extent "P" = %n
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    pgpu.yield
  }
  pgpu.return
}
}

// -----
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%x: !pgpu.view<f32, [N], in>, %n: index) attributes {params = [#pgpu.param<"B", [1, 2], 1>]} {
  // expected-error @+1 {{'pgpu.workspace_extent' op names 'B', a declared parameter; a workspace extent symbol is new}}
  pgpu.workspace_extent "B" = %n
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    pgpu.yield
  }
  pgpu.return
}
}

// -----
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%n: index) {
  %neg = arith.constant -4 : index
  // expected-error @+1 {{'pgpu.program_space' op extent #0 is the negative constant -4}}
  pgpu.program_space (%neg) {
  ^bb0(%p: index):
    pgpu.yield
  }
  pgpu.return
}
}

// -----
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    // expected-error @+1 {{'pgpu.for' op step must be positive, got the constant 0}}
    pgpu.for %c0 to %c4 step %c0 {
    ^bb0(%i: index):
      pgpu.yield
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: Invariant 9 per decoded coordinate: (pm, pn) decoded from one linear coordinate; the store
// COM: ignores pn, so instances (pm, 0) and (pm, 1) write the same element.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%y: !pgpu.view<f32, [M], out>, %gm: index, %gn: index) {
  %total = pgpu.binary mul %gm, %gn : index
  pgpu.program_space (%total) {
  ^bb0(%pid: index):
    pgpu.execution_group %pid extents(%gm, %gn) segment 0 roles ["m", "n"] {
    ^bb0(%pm: index, %pn: index):
      %true = arith.constant true
      %one = arith.constant 1.0 : f32
      // expected-error @+1 {{'pgpu.store' op writes the same elements from every program instance along execution-group axis 1}}
      pgpu.store %one, %y[%pm] valid %true : i1 : f32, !pgpu.view<f32, [M], out>[index]
      pgpu.yield
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: Invariant 8: a range_reduce element region computes members; it never writes.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%y: !pgpu.view<f32, [N], inout>, %n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %z = arith.constant 0.0 : f32
    %t = arith.constant true
    // expected-error @+1 {{'pgpu.range_reduce' op 'element' region must be free of writes, but contains 'pgpu.store'}}
    %s = pgpu.range_reduce %c0 to %n identity(%z : f32) -> (f32) element {
    ^bb0(%i: index):
      pgpu.store %z, %y[%i] valid %t : i1 : f32, !pgpu.view<f32, [N], inout>[index]
      pgpu.yield %z : f32
    } combine {
    ^bb0(%a: f32, %b: f32):
      %c = pgpu.binary add %a, %b : f32
      pgpu.yield %c : f32
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %z = arith.constant 0.0 : f32
    // expected-error @+1 {{'pgpu.range_reduce' op 'element' region yields 'index' as component #0 but 'f32' was expected}}
    %s = pgpu.range_reduce %c0 to %n identity(%z : f32) -> (f32) element {
    ^bb0(%i: index):
      pgpu.yield %i : index
    } combine {
    ^bb0(%a: f32, %b: f32):
      %c = pgpu.binary add %a, %b : f32
      pgpu.yield %c : f32
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: Invariant 8: a range_scan element region computes members; it never writes.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%y: !pgpu.view<f32, [N], inout>, %n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %z = arith.constant 0.0 : f32
    %t = arith.constant true
    // expected-error @+1 {{'pgpu.range_scan' op 'element' region must be free of writes, but contains 'pgpu.store'}}
    pgpu.range_scan %c0 to %n identity(%z : f32) element {
    ^bb0(%i: index):
      pgpu.store %z, %y[%i] valid %t : i1 : f32, !pgpu.view<f32, [N], inout>[index]
      pgpu.yield %z : f32
    } combine {
    ^bb0(%a: f32, %b: f32):
      %c = pgpu.binary add %a, %b : f32
      pgpu.yield %c : f32
    } emit {
    ^bb0(%i: index, %s: f32):
      pgpu.yield
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: Invariant 8: the emit region receives the position and one prefix component per identity.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%y: !pgpu.view<f32, [N], inout>, %n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %z = arith.constant 0.0 : f32
    %t = arith.constant true
    // expected-error @+1 {{'pgpu.range_scan' op 'emit' region takes 1 arguments but 2 were expected}}
    pgpu.range_scan %c0 to %n identity(%z : f32) element {
    ^bb0(%i: index):
      pgpu.yield %z : f32
    } combine {
    ^bb0(%a: f32, %b: f32):
      %c = pgpu.binary add %a, %b : f32
      pgpu.yield %c : f32
    } emit {
    ^bb0(%i: index):
      pgpu.yield
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: Invariant 8: a range_scan combine is pure and closed like every combine.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%y: !pgpu.view<f32, [N], inout>, %n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %z = arith.constant 0.0 : f32
    %t = arith.constant true
    // expected-error @+1 {{'pgpu.range_scan' op 'combine' region must be pure, but contains 'pgpu.load'}}
    pgpu.range_scan %c0 to %n identity(%z : f32) element {
    ^bb0(%i: index):
      pgpu.yield %z : f32
    } combine {
    ^bb0(%a: f32, %b: f32):
      %r = pgpu.load %y[%c0] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N], inout>[index] -> f32
      pgpu.yield %r : f32
    } emit {
    ^bb0(%i: index, %s: f32):
      pgpu.yield
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: Invariant 5 (accesses): a load whose coordinate is computed from loaded data is an index
// COM: relation and must be spelled pgpu.gather.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%idx: !pgpu.view<i32, [N], in>, %x: !pgpu.view<f32, [V], in>, %y: !pgpu.view<f32, [N], out>, %n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    %t = arith.constant true
    %z = arith.constant 0.0 : f32
    %zi = arith.constant 0 : i32
    %i = pgpu.load %idx[%p] valid %t : i1 fill %zi : i32 : !pgpu.view<i32, [N], in>[index] -> i32
    %at = pgpu.cast %i : i32 to index
    // expected-error @+1 {{'pgpu.load' op coordinate #0 is computed from data read by 'pgpu.load'; use pgpu.gather for data-dependent coordinates}}
    %v = pgpu.load %x[%at] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [V], in>[index] -> f32
    pgpu.store %v, %y[%p] valid %t : i1 : f32, !pgpu.view<f32, [N], out>[index]
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: Invariant 5 (accesses): a store to coordinates computed from loaded data is a scatter.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%idx: !pgpu.view<i32, [N], in>, %y: !pgpu.view<f32, [V], out>, %n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    %t = arith.constant true
    %z = arith.constant 0.0 : f32
    %zi = arith.constant 0 : i32
    %i = pgpu.load %idx[%p] valid %t : i1 fill %zi : i32 : !pgpu.view<i32, [N], in>[index] -> i32
    %at = pgpu.cast %i : i32 to index
    // expected-error @+1 {{'pgpu.store' op coordinate #0 is computed from data read by 'pgpu.load'; use pgpu.scatter for data-dependent coordinates}}
    pgpu.store %z, %y[%at] valid %t : i1 : f32, !pgpu.view<f32, [V], out>[index]
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: Invariant 1 (coverage): each segment is dispatched by one execution group.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%y: !pgpu.view<f32, [N], out>, %n: index) {
  %two = arith.constant 2 : index
  %total = pgpu.binary mul %n, %two : index
  pgpu.program_space (%total) {
  ^bb0(%p: index):
    %t = arith.constant true
    %z = arith.constant 0.0 : f32
    %in0 = pgpu.cmp lt %p, %n : index
    pgpu.if %in0 {
      pgpu.execution_group %p extents(%n) segment 0 roles ["a"] {
      ^bb0(%i: index):
        pgpu.store %z, %y[%i] valid %t : i1 : f32, !pgpu.view<f32, [N], out>[index]
        pgpu.yield
      }
      pgpu.yield
    } else {
      %q = pgpu.binary sub %p, %n : index
      // expected-error @+1 {{'pgpu.execution_group' op dispatches segment 0, which another execution group of this program space already dispatches}}
      pgpu.execution_group %q extents(%n) segment 0 roles ["b"] {
      ^bb0(%i: index):
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: Parser: a forward reference in one region bound to a definition in a sibling region is an error
// COM: at the use (a later parse failure used to free the definition first: a use-after-free).
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%n: index, %c: i1) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    pgpu.if %c -> index {
      // expected-error @+1 {{operand #0 uses a value defined in a sibling region of the enclosing op}}
      pgpu.yield %w : index
    } else {
      %w = arith.constant 1 : index
      pgpu.yield %w : index
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 7: a last-program ticket starts at 0 on every launch (the runtime's fill).
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%n: index, %t: !pgpu.buffer<i32, [1], workspace> {pgpu.private = "workspace"}) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    // expected-error @+1 {{'pgpu.last_program' op needs its ticket filled with 0 by the runtime ({pgpu.init = 0 : i32})}}
    pgpu.last_program %t : !pgpu.buffer<i32, [1], workspace> {
      pgpu.yield
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 7: the ticket is one i32 of invocation workspace (a counter all instances share).
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%n: index, %t: !pgpu.buffer<i32, [2], workspace> {pgpu.private = "workspace", pgpu.init = 0 : i32}) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    // expected-error @+1 {{'pgpu.last_program' op needs a ticket of i32 invocation workspace [1] passed as a kernel argument, got '!pgpu.buffer<i32, [2], workspace>'}}
    pgpu.last_program %t : !pgpu.buffer<i32, [2], workspace> {
      pgpu.yield
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 2: the last-program region belongs to the program space it counts.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%n: index, %t: !pgpu.buffer<i32, [1], workspace> {pgpu.private = "workspace", pgpu.init = 0 : i32}) {
  // expected-error @+1 {{'pgpu.last_program' op without ticket coordinates must be a child of the pgpu.program_space}}
  pgpu.last_program %t : !pgpu.buffer<i32, [1], workspace> {
    pgpu.yield
  }
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: a ticketed finalization counts the instances of an execution group that share its ticket.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%n: index, %t: !pgpu.buffer<i32, [4], workspace> {pgpu.private = "workspace", pgpu.init = 0 : i32}) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    // expected-error @+1 {{'pgpu.last_program' op with ticket coordinates must be inside a pgpu.execution_group}}
    pgpu.last_program %t[%p] arrivals %n : !pgpu.buffer<i32, [4], workspace> {
      pgpu.yield
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: one ticket coordinate per ticket axis.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%n: index, %t: !pgpu.buffer<i32, [4, 4], workspace> {pgpu.private = "workspace", pgpu.init = 0 : i32}) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    pgpu.execution_group %p extents(%n) segment 0 roles ["axis0"] {
    ^bb0(%i: index):
      // expected-error @+1 {{'pgpu.last_program' op needs a ticket of i32 invocation workspace of rank 1 passed as a kernel argument, got '!pgpu.buffer<i32, [4, 4], workspace>'}}
      pgpu.last_program %t[%i] arrivals %n : !pgpu.buffer<i32, [4, 4], workspace> {
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: invariant 9: program instances share only invocation workspace; a scatter-reduce into a
// COM: program-private buffer merges nothing across them.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
pgpu.kernel @k(%n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    %z = arith.constant 0.0 : f32
    %t = arith.constant true
    %buf = pgpu.alloc init %z : f32 : !pgpu.buffer<f32, [4], program>
    // expected-error @+1 {{'pgpu.scatter_reduce' op scatter-reduces into a program buffer; only invocation workspace is shared by program instances}}
    pgpu.scatter_reduce %z, %buf[%p] valid %t : i1 : f32, !pgpu.buffer<f32, [4], program>[index] {
    ^bb0(%a: f32, %b: f32):
      %s = pgpu.binary add %a, %b : f32
      pgpu.yield %s : f32
    }
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: `pgpu.indexes` (an ABI fact the checked launch mode validates) names a view argument's axis.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
// expected-error @+1 {{'pgpu.kernel' op argument #1 has a 'pgpu.indexes' entry [0, 2] that is not [view argument, axis of it]}}
pgpu.kernel @k(%t: !pgpu.view<f32, [V, D], in>, %ids: !pgpu.view<i32, [T], in> {pgpu.indexes = [[0, 2]]}, %n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: ... and only an integer view's values can be coordinates.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
// expected-error @+1 {{'pgpu.kernel' op argument #1 carries 'pgpu.indexes' but is not an integer view}}
pgpu.kernel @k(%t: !pgpu.view<f32, [V, D], in>, %ids: !pgpu.view<f32, [T], in> {pgpu.indexes = [[0, 0]]}, %n: index) {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: pgpu.segments (pgpu-tile-column-reductions' fact for call defaults) names declared parameters.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
// expected-error @+1 {{'pgpu.segments' names 'BLOCK_C' as 'across', which the kernel does not declare}}
pgpu.kernel @k(%n: index) attributes {params = [#pgpu.param<"BLOCK_R", [2, 4], 2>], pgpu.segments = {across = "BLOCK_C", along = "BLOCK_R", count = "M", pool = "NNZ"}} {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: pgpu.segments holds the four names, each a string.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
// expected-error @+1 {{'pgpu.segments' must be a dictionary of along, across, pool and count}}
pgpu.kernel @k(%n: index) attributes {params = [#pgpu.param<"BLOCK_R", [2, 4], 2>], pgpu.segments = {along = "BLOCK_R", pool = "NNZ"}} {
  pgpu.program_space (%n) {
  ^bb0(%p: index):
    pgpu.yield
  }
  pgpu.return
}
}

// -----
// COM: pgpu.segments belongs on a kernel (a launch fact), nowhere else.
// expected-error @+1 {{'pgpu.segments' belongs on a pgpu.kernel}}
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, pgpu.segments = {across = "BLOCK_C", along = "BLOCK_R", count = "M", pool = "NNZ"}} {
}
