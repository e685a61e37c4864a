//===- KIRStructuredOps.td - kir structured compute --------*- tablegen -*-===//
//
// Structured ops with typed pure regions (ARCHITECTURE.md §2.1, seed 000 §8).
// Every schema check is componentwise: values, identities and region
// signatures are lists of components, one SSA value each.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_KIR_STRUCTURED_OPS
#define TESSEL_KIR_STRUCTURED_OPS

def KIR_ReduceOp : KIR_Op<"reduce", [RecursiveMemoryEffects, AttrSizedOperandSegments]> {
  let summary = "associative, commutative reduction over axes";
  let description = [{
    Reduces every input (all of one shape) over `axes`. The accumulator schema
    is the inputs' element types; each result is the input with the reduced
    axes removed (a scalar when none remain). `combine` takes the lhs
    accumulator components then the rhs components, yields one of each, and
    must be pure and closed (no captured values). Choosing `kir.reduce`
    declares the combine associative and commutative with `identity` neutral;
    an empty reduction yields the identity.

    ```mlir
    %s = kir.reduce %x axes [1] identity(%zero : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
    ^bb0(%a: f32, %b: f32):
      %c = kir.binary add %a, %b : f32
      kir.yield %c : f32
    }
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$inputs, DenseI64ArrayAttr:$axes,
                       Variadic<AnyType>:$identities);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$combine);
  let assemblyFormat = [{
    $inputs `axes` $axes `identity` `(` $identities `:` type($identities) `)` attr-dict
    `:` `(` type($inputs) `)` `->` `(` type($results) `)` custom<BodyRegion>($combine)
  }];
  let hasRegionVerifier = 1;
}

def KIR_ArgReduceOp : KIR_Op<"arg_reduce", [Pure]> {
  let summary = "value and position of the maximum or minimum along one axis";
  let description = [{
    Returns the selected values and their positions (type `index`, counted
    from 0 along the input tensor's axis, not in view coordinates). `tie`
    says which position wins among equal values; with `nan propagate` a NaN
    is selected (its first position under `tie lowest`).

    ```mlir
    %v, %i = kir.arg_reduce argmax %x axis 1 tie lowest nan propagate : tensor<?x?xf32> -> tensor<?xf32>, tensor<?xindex>
    ```
  }];
  let arguments = (ins KIR_ArgReduceKind:$kind, AnyRankedTensor:$input, I64Attr:$axis,
                       KIR_TieRule:$tie, KIR_NaNRule:$nan);
  let results = (outs AnyType:$values, AnyType:$indices);
  let assemblyFormat = [{
    $kind $input `axis` $axis `tie` $tie `nan` $nan attr-dict `:` type($input) `->` type($values) `,` type($indices)
  }];
  let hasVerifier = 1;
}

def KIR_ScanOp : KIR_Op<"scan", [RecursiveMemoryEffects, AttrSizedOperandSegments]> {
  let summary = "ordered prefix combination along one axis";
  let description = [{
    Only associativity is declared: member order is preserved. `exclusive`
    shifts by one member (the first result is the identity); `reverse` scans
    from the last member. Results have the inputs' shapes. `combine` follows
    the `kir.reduce` rules (earlier components first).

    ```mlir
    %c = kir.scan %x axis 0 identity(%zero : f32) exclusive : (tensor<?xf32>) -> (tensor<?xf32>) {
    ^bb0(%a: f32, %b: f32):
      %s = kir.binary add %a, %b : f32
      kir.yield %s : f32
    }
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$inputs, I64Attr:$axis,
                       Variadic<AnyType>:$identities, UnitAttr:$exclusive, UnitAttr:$reverse);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let regions = (region SizedRegion<1>:$combine);
  let assemblyFormat = [{
    $inputs `axis` $axis `identity` `(` $identities `:` type($identities) `)` (`exclusive` $exclusive^)?
    (`reverse` $reverse^)? attr-dict `:` `(` type($inputs) `)` `->` `(` type($results) `)` custom<BodyRegion>($combine)
  }];
  let hasRegionVerifier = 1;
}

def KIR_RegionFoldOp : KIR_Op<"region_fold", [RecursiveMemoryEffects, AttrSizedOperandSegments]> {
  let summary = "list homomorphism over one ordered source axis";
  let description = [{
    The source components share one extent on `axis`. The compiler may cut
    them into any ordered, contiguous, non-empty slices covering the axis;
    `summarize` maps the slices (then the `operands`) to a summary, and
    `combine` merges an earlier and a later summary. An empty source yields
    `identity`. `summarize` may read but not write; `combine` is pure; both
    are closed over their arguments. Slices are typed like their sources with
    `axis` dynamic. The author promises summarize(A ++ B) = combine(summarize A,
    summarize B) and that identity is neutral.

    ```mlir
    %mx, %den = kir.region_fold sources(%row : tensor<?xf32>) axis 0
        identity(%ninf, %zero : f32, f32) -> (f32, f32)
    summarize {
    ^bb0(%s: tensor<?xf32>):
      ...
      kir.yield %m, %d : f32, f32
    } combine {
    ^bb0(%m1: f32, %d1: f32, %m2: f32, %d2: f32):
      ...
      kir.yield %m, %d : f32, f32
    }
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$sources, I64Attr:$axis,
                       Variadic<AnyType>:$identities, Variadic<AnyType>:$captures);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$summarize, SizedRegion<1>:$combine);
  let assemblyFormat = [{
    `sources` `(` $sources `:` type($sources) `)` `axis` $axis
    `identity` `(` $identities `:` type($identities) `)`
    (`operands` `(` $captures^ `:` type($captures) `)`)? attr-dict
    `->` `(` type($results) `)` custom<FoldRegions>($summarize, $combine)
  }];
  let hasRegionVerifier = 1;
}

def KIR_RegionScanOp : KIR_Op<"region_scan", [RecursiveMemoryEffects, AttrSizedOperandSegments,
                                              AttrSizedResultSegments]> {
  let summary = "ordered segmented scan with state, transitions and per-slice outputs";
  let description = [{
    `summarize(slices..., operands...)` gives a transition; `combine(earlier,
    later)` composes transitions; `apply(transition, state)` advances a state;
    `emit(slices..., incoming state..., operands...)` produces each slice's
    outputs, aligned with the slice on `axis`. `outputs` are the emitted
    slices reassembled in source order; `final` is `init` advanced by the
    whole source. An empty source emits nothing and returns `init`.

    ```mlir
    %o, %S = kir.region_scan sources(%k, %v : tensor<?x64xf32>, tensor<?x64xf32>) axis 0
        identity(%z : tensor<64x64xf32>) init(%z : tensor<64x64xf32>)
        operands(%q : tensor<?x64xf32>) -> (tensor<?x64xf32>) final (tensor<64x64xf32>)
    summarize { ... } combine { ... } apply { ... } emit { ... }
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$sources, I64Attr:$axis,
                       Variadic<AnyType>:$identities, Variadic<AnyType>:$inits,
                       Variadic<AnyType>:$captures);
  let results = (outs Variadic<AnyRankedTensor>:$outputs, Variadic<AnyType>:$finals);
  let regions = (region SizedRegion<1>:$summarize, SizedRegion<1>:$combine,
                        SizedRegion<1>:$apply, SizedRegion<1>:$emit);
  let assemblyFormat = [{
    `sources` `(` $sources `:` type($sources) `)` `axis` $axis
    `identity` `(` $identities `:` type($identities) `)`
    `init` `(` $inits `:` type($inits) `)`
    (`operands` `(` $captures^ `:` type($captures) `)`)? attr-dict
    `->` `(` type($outputs) `)` `final` `(` type($finals) `)`
    custom<ScanRegions>($summarize, $combine, $apply, $emit)
  }];
  let hasRegionVerifier = 1;
}

def KIR_ContractOp : KIR_Op<"contract", [Pure]> {
  let summary = "tensor contraction: multiply, then add over paired axes";
  let description = [{
    `reduce(lhs_axes, rhs_axes)` pairs reduction axes; `batch(lhs, rhs)` pairs
    batch axes (disjoint from the reduce pairs). Result axes: lhs axes that are
    not reduced (batch axes at their lhs position), then rhs axes neither
    reduced nor batch. The result element type is the accumulator dtype. A
    zero-length reduction yields additive zero, or `init` when present
    (contraction fused with its sole addition). No alpha/beta, no implicit TF32:
    `precision tf32` / `precision tf32x3` is the author's explicit permission for
    f32 operands (with an f32 accumulator) to be rounded as KIR_ContractPrecision
    defines; absent, the products are IEEE.

    ```mlir
    %c = kir.contract %a, %b reduce([1], [0]) batch([], []) : tensor<?x?xf16>, tensor<?x?xf16> -> tensor<?x?xf32>
    %d = kir.contract %x, %y reduce([1], [0]) batch([], []) precision tf32x3
        : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$lhs, AnyRankedTensor:$rhs, Optional<AnyRankedTensor>:$init,
                       DenseI64ArrayAttr:$lhs_reduce, DenseI64ArrayAttr:$rhs_reduce,
                       DenseI64ArrayAttr:$lhs_batch, DenseI64ArrayAttr:$rhs_batch,
                       OptionalAttr<KIR_ContractPrecision>:$precision);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs (`init` $init^)? `reduce` `(` $lhs_reduce `,` $rhs_reduce `)`
    `batch` `(` $lhs_batch `,` $rhs_batch `)` (`precision` $precision^)? attr-dict
    `:` type($lhs) `,` type($rhs) (`,` type($init)^)? `->` type($result)
  }];
  let hasVerifier = 1;
}

def KIR_ScaledContractOp : KIR_Op<"scaled_contract", [Pure]> {
  let summary = "contraction of block-scaled operands (declared; realized later)";
  let description = [{
    Each operand comes with a scale tensor; `block` members along the reduced
    axis share one scale. `format` names the element/scale format pair.

    ```mlir
    %c = kir.scaled_contract %a scale %sa, %b scale %sb format "mxfp8" block 32 reduce([1], [0])
        : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>, tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU> -> tensor<?x?xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$lhs, AnyRankedTensor:$lhs_scale, AnyRankedTensor:$rhs,
                       AnyRankedTensor:$rhs_scale, StrAttr:$format, I64Attr:$block,
                       DenseI64ArrayAttr:$lhs_reduce, DenseI64ArrayAttr:$rhs_reduce);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $lhs `scale` $lhs_scale `,` $rhs `scale` $rhs_scale `format` $format `block` $block
    `reduce` `(` $lhs_reduce `,` $rhs_reduce `)` attr-dict
    `:` type($lhs) `,` type($lhs_scale) `,` type($rhs) `,` type($rhs_scale) `->` type($result)
  }];
  let hasVerifier = 1;
}

def KIR_SparseContractOp : KIR_Op<"sparse_contract", [Pure]> {
  let summary = "contraction with a structured-sparse lhs (declared; realized later)";
  let description = [{
    `lhs` holds the kept values of an `n:m` structured-sparse operand and
    `meta` their positions within each group of `m` along the reduced axis.

    ```mlir
    %c = kir.sparse_contract %a meta %m, %b pattern 2 : 4 reduce([1], [0])
        : tensor<?x?xf16>, tensor<?x?xi16>, tensor<?x?xf16> -> tensor<?x?xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$lhs, AnyRankedTensor:$meta, AnyRankedTensor:$rhs,
                       I64Attr:$n, I64Attr:$m,
                       DenseI64ArrayAttr:$lhs_reduce, DenseI64ArrayAttr:$rhs_reduce);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $lhs `meta` $meta `,` $rhs `pattern` $n `:` $m `reduce` `(` $lhs_reduce `,` $rhs_reduce `)` attr-dict
    `:` type($lhs) `,` type($meta) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
}

def KIR_HistogramOp : KIR_Op<"histogram", [Pure]> {
  let summary = "count integer values into the bins of a domain [0, nbins)";
  let description = [{
    `bins` is a domain starting at 0; every active value must be one of its
    members and counts once; inactive values
    (where `valid` is false) need not be in range. The result has one axis of
    the bins' extent; counts wrap on overflow; an empty input gives zeros.

    ```mlir
    %h = kir.histogram %x bins(%db) valid %ok : tensor<?xi32>, tensor<?xi1> -> tensor<?xi32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, KIR_Domain:$bins,
                       Optional<AnyRankedTensor>:$valid);
  let results = (outs 1DTensorOf<[AnyInteger]>:$result);
  let assemblyFormat = [{
    $input `bins` `(` $bins `)` (`valid` $valid^)? attr-dict
    `:` type($input) (`,` type($valid)^)? `->` type($result)
  }];
  let hasVerifier = 1;
}

#endif // TESSEL_KIR_STRUCTURED_OPS
