//===- PGPUStructuredOps.td - pgpu structured compute (seed 000 §8) -*- tablegen -*-===//
//
// Physical structured ops consume current scalar/fragment SSA and keep KIR's
// semantic schema; they carry no provider primitive, MMA version, precision
// hint, K-pack, warp policy or pipeline stage. (A contraction's `precision` is
// not a hint: it is KIR's operand-rounding semantics, KIR_ContractPrecision.)
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_PGPU_STRUCTURED_OPS
#define TESSEL_PGPU_STRUCTURED_OPS

def PGPU_ReduceOp : PGPU_Op<"reduce", [RecursiveMemoryEffects, AttrSizedOperandSegments]> {
  let summary = "fragment reduction over axes with identity and assoc/comm combine";
  let description = [{
    ```mlir
    %s = pgpu.reduce %x axes [1] identity(%z : f32) : (!pgpu.fragment<f32, [BM, BN]>) -> (!pgpu.fragment<f32, [BM]>) {
    ^bb0(%a: f32, %b: f32):
      %c = pgpu.binary add %a, %b : f32
      pgpu.yield %c : f32
    }
    ```
  }];
  let arguments = (ins Variadic<PGPU_Fragment>:$inputs, DenseI64ArrayAttr:$axes, Variadic<PGPU_Scalar>:$identities);
  let results = (outs Variadic<PGPU_Value>:$results);
  let regions = (region SizedRegion<1>:$combine);
  let assemblyFormat = [{
    $inputs `axes` $axes `identity` `(` $identities `:` type($identities) `)` attr-dict
    `:` `(` type($inputs) `)` `->` `(` type($results) `)` custom<BodyRegion>($combine)
  }];
  let hasRegionVerifier = 1;
}

def PGPU_RangeReduceOp : PGPU_Op<"range_reduce", [RecursiveMemoryEffects]> {
  let summary = "reduction over a dynamic index range (seed 000 §8: reduce with a dynamic extent)";
  let description = [{
    Combines `element(i)` for every i in [lower, upper) with the identity,
    under the reduce contract: `combine` is associative and commutative, so
    the members may be visited in any order and regrouped; blocking turns the
    range into fragments and `pgpu.reduce`. The `element` region computes one
    member's components (it may read, never write); `combine` is pure. An
    empty range yields the identity.

    ```mlir
    %s = pgpu.range_reduce %c0 to %N identity(%z : f32) -> (f32) element {
    ^bb0(%i: index):
      %x = pgpu.load %X[%row, %i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
      pgpu.yield %x : f32
    } combine {
    ^bb0(%a: f32, %b: f32):
      %c = pgpu.binary add %a, %b : f32
      pgpu.yield %c : f32
    }
    ```
  }];
  let arguments = (ins Index:$lower, Index:$upper, Variadic<PGPU_Scalar>:$identities);
  let results = (outs Variadic<PGPU_Scalar>:$results);
  let regions = (region SizedRegion<1>:$element, SizedRegion<1>:$combine);
  let assemblyFormat = [{
    $lower `to` $upper `identity` `(` $identities `:` type($identities) `)` attr-dict
    `->` `(` type($results) `)` custom<ElementCombineRegions>($element, $combine)
  }];
  let hasRegionVerifier = 1;
}

def PGPU_ScanOp : PGPU_Op<"scan", [RecursiveMemoryEffects, AttrSizedOperandSegments]> {
  let summary = "ordered prefix combination along a fragment axis, with an incoming carry";
  let description = [{
    `carry` components (one per input) enter before the first member, so a
    blocked scan continues across blocks; `exclusive`/`reverse` as in KIR.

    ```mlir
    %c = pgpu.scan %x axis 0 identity(%z : f32) carry(%prev : f32) : (!pgpu.fragment<f32, [BN]>) -> (!pgpu.fragment<f32, [BN]>) {
    ^bb0(%a: f32, %b: f32):
      %s = pgpu.binary add %a, %b : f32
      pgpu.yield %s : f32
    }
    ```
  }];
  let arguments = (ins Variadic<PGPU_Fragment>:$inputs, I64Attr:$axis, Variadic<PGPU_Scalar>:$identities,
                       Variadic<PGPU_Scalar>:$carries, UnitAttr:$exclusive, UnitAttr:$reverse);
  let results = (outs Variadic<PGPU_Fragment>:$results);
  let regions = (region SizedRegion<1>:$combine);
  let assemblyFormat = [{
    $inputs `axis` $axis `identity` `(` $identities `:` type($identities) `)`
    (`carry` `(` $carries^ `:` type($carries) `)`)? (`exclusive` $exclusive^)? (`reverse` $reverse^)? attr-dict
    `:` `(` type($inputs) `)` `->` `(` type($results) `)` custom<BodyRegion>($combine)
  }];
  let hasRegionVerifier = 1;
}

def PGPU_RangeScanOp : PGPU_Op<"range_scan", [RecursiveMemoryEffects]> {
  let summary = "stored scan over a dynamic index range (seed 000 §8: scan with a dynamic extent)";
  let description = [{
    Visits the members `element(i)` for i in [lower, upper) in order
    (from `upper - 1` down when `reverse`) and calls `emit(i, prefix...)`
    with the running prefix at i: `combine(prefix of the earlier members,
    element(i))`, starting from the identity; with `exclusive` the prefix
    excludes member i itself. The scan contract holds: `combine` is
    associative but not commutative, so blocking may regroup members while
    keeping their order (a fragment `pgpu.scan` with a carry), never reorder
    them. `element` may read, never write; `combine` is pure; `emit` writes the
    prefix, or a value computed from it (it may read), and yields nothing. An
    empty range emits nothing.

    ```mlir
    pgpu.range_scan %c0 to %N identity(%z : f32) exclusive element {
    ^bb0(%i: index):
      %x = pgpu.load %X[%row, %i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
      pgpu.yield %x : f32
    } combine {
    ^bb0(%a: f32, %b: f32):
      %c = pgpu.binary add %a, %b : f32
      pgpu.yield %c : f32
    } emit {
    ^bb0(%i: index, %s: f32):
      pgpu.store %s, %Y[%row, %i] valid %t : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
      pgpu.yield
    }
    ```
  }];
  let arguments = (ins Index:$lower, Index:$upper, Variadic<PGPU_Scalar>:$identities,
                       UnitAttr:$exclusive, UnitAttr:$reverse);
  let regions = (region SizedRegion<1>:$element, SizedRegion<1>:$combine, SizedRegion<1>:$emit);
  let assemblyFormat = [{
    $lower `to` $upper `identity` `(` $identities `:` type($identities) `)`
    (`exclusive` $exclusive^)? (`reverse` $reverse^)? attr-dict
    custom<ElementCombineEmitRegions>($element, $combine, $emit)
  }];
  let hasRegionVerifier = 1;
}

def PGPU_ArgReduceOp : PGPU_Op<"arg_reduce", [Pure]> {
  let summary = "value and position along a fragment axis (tie, NaN and index semantics kept)";
  let description = [{
    `base` is added to positions so a blocked arg-reduce reports source
    positions.

    ```mlir
    %v, %i = pgpu.arg_reduce argmax %x axis 1 base %n0 tie lowest nan propagate
        : !pgpu.fragment<f32, [BM, BN]> -> !pgpu.fragment<f32, [BM]>, !pgpu.fragment<index, [BM]>
    ```
  }];
  let arguments = (ins KIR_ArgReduceKind:$kind, PGPU_Fragment:$input, I64Attr:$axis, Index:$base,
                       KIR_TieRule:$tie, KIR_NaNRule:$nan);
  let results = (outs PGPU_Value:$values, PGPU_Value:$indices);
  let assemblyFormat = [{
    $kind $input `axis` $axis `base` $base `tie` $tie `nan` $nan attr-dict
    `:` type($input) `->` type($values) `,` type($indices)
  }];
  let hasVerifier = 1;
}

def PGPU_ContractOp : PGPU_Op<"contract", [Pure]> {
  let summary = "fragment contraction into an explicit accumulator";
  let description = [{
    `acc + sum over paired reduce axes of lhs * rhs`, in the accumulator's
    dtype; result axes as in `kir.contract` (lhs free, then rhs free).
    `precision` is kir.contract's (KIR_ContractPrecision; absent = ieee): a
    provider realizes it exactly or rejects the op.

    ```mlir
    %acc2 = pgpu.contract %a, %b, %acc reduce([1], [0]) batch([], [])
        : !pgpu.fragment<f16, [BM, BK]>, !pgpu.fragment<f16, [BK, BN]>, !pgpu.fragment<f32, [BM, BN]>
        -> !pgpu.fragment<f32, [BM, BN]>
    ```
  }];
  let arguments = (ins PGPU_Fragment:$lhs, PGPU_Fragment:$rhs, PGPU_Fragment:$acc,
                       DenseI64ArrayAttr:$lhs_reduce, DenseI64ArrayAttr:$rhs_reduce,
                       DenseI64ArrayAttr:$lhs_batch, DenseI64ArrayAttr:$rhs_batch,
                       OptionalAttr<KIR_ContractPrecision>:$precision);
  let results = (outs PGPU_Fragment:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs `,` $acc `reduce` `(` $lhs_reduce `,` $rhs_reduce `)` `batch` `(` $lhs_batch `,` $rhs_batch `)`
    (`precision` $precision^)? attr-dict `:` type($lhs) `,` type($rhs) `,` type($acc) `->` type($result)
  }];
  let hasVerifier = 1;
}

def PGPU_ScaledContractOp : PGPU_Op<"scaled_contract", [Pure]> {
  let summary = "block-scaled contraction into an accumulator (KIR's schema, physical operands)";
  let description = [{
    ```mlir
    %r = pgpu.scaled_contract %a scale %sa, %b scale %sb, %acc format "mxfp8" block 32 reduce([1], [0])
        : !pgpu.fragment<f8E4M3FN, [BM, BK]>, !pgpu.fragment<f8E8M0FNU, [BM, 1]>, !pgpu.fragment<f8E4M3FN, [BK, BN]>,
          !pgpu.fragment<f8E8M0FNU, [1, BN]>, !pgpu.fragment<f32, [BM, BN]> -> !pgpu.fragment<f32, [BM, BN]>
    ```
  }];
  let arguments = (ins PGPU_Fragment:$lhs, PGPU_Fragment:$lhs_scale, PGPU_Fragment:$rhs, PGPU_Fragment:$rhs_scale,
                       PGPU_Fragment:$acc, StrAttr:$format, I64Attr:$block,
                       DenseI64ArrayAttr:$lhs_reduce, DenseI64ArrayAttr:$rhs_reduce);
  let results = (outs PGPU_Fragment:$result);
  let assemblyFormat = [{
    $lhs `scale` $lhs_scale `,` $rhs `scale` $rhs_scale `,` $acc `format` $format `block` $block
    `reduce` `(` $lhs_reduce `,` $rhs_reduce `)` attr-dict
    `:` type($lhs) `,` type($lhs_scale) `,` type($rhs) `,` type($rhs_scale) `,` type($acc) `->` type($result)
  }];
  let hasVerifier = 1;
}

def PGPU_SparseContractOp : PGPU_Op<"sparse_contract", [Pure]> {
  let summary = "n:m structured-sparse contraction into an accumulator";
  let description = [{
    ```mlir
    %r = pgpu.sparse_contract %a meta %m, %b, %acc pattern 2 : 4 reduce([1], [0])
        : !pgpu.fragment<f16, [BM, 32]>, !pgpu.fragment<i16, [BM, 32]>, !pgpu.fragment<f16, [64, BN]>, !pgpu.fragment<f32, [BM, BN]>
        -> !pgpu.fragment<f32, [BM, BN]>
    ```
  }];
  let arguments = (ins PGPU_Fragment:$lhs, PGPU_Fragment:$meta, PGPU_Fragment:$rhs, PGPU_Fragment:$acc,
                       I64Attr:$n, I64Attr:$m, DenseI64ArrayAttr:$lhs_reduce, DenseI64ArrayAttr:$rhs_reduce);
  let results = (outs PGPU_Fragment:$result);
  let assemblyFormat = [{
    $lhs `meta` $meta `,` $rhs `,` $acc `pattern` $n `:` $m `reduce` `(` $lhs_reduce `,` $rhs_reduce `)` attr-dict
    `:` type($lhs) `,` type($meta) `,` type($rhs) `,` type($acc) `->` type($result)
  }];
  let hasVerifier = 1;
}

def PGPU_HistogramOp : PGPU_Op<"histogram", [Pure]> {
  let summary = "count active values of a fragment into bins [0, nbins)";
  let description = [{
    The result's single extent is the number of bins.

    ```mlir
    %h = pgpu.histogram %x valid %ok : !pgpu.fragment<i32, [BN]>, !pgpu.fragment<i1, [BN]> -> !pgpu.fragment<i32, [NB]>
    ```
  }];
  let arguments = (ins PGPU_Fragment:$input, PGPU_Value:$valid);
  let results = (outs PGPU_Fragment:$result);
  let assemblyFormat = "$input `valid` $valid attr-dict `:` type($input) `,` type($valid) `->` type($result)";
  let hasVerifier = 1;
}

def PGPU_RegionFoldOp : PGPU_Op<"region_fold", [RecursiveMemoryEffects, AttrSizedOperandSegments]> {
  let summary = "physical segment loop of a region fold";
  let description = [{
    Runs `summarize` on the segments [b, min(b + step, upper)) for b = lower,
    lower + step, ... in order and folds the summaries with `combine`,
    starting from `identity` (the combine's identity, or the summary of the
    segments before `lower` when a fold continues another in source order);
    an empty range yields it. `summarize` receives the segment bounds and the
    captured `operands`, performs its own accesses (with validity for the tail)
    and writes nothing; `combine` is pure. `step` is normally a physical
    parameter.

    ```mlir
    %m, %l, %acc = pgpu.region_fold %c0 to %T step %bn identity(%ninf, %z, %zacc : f32, f32, !pgpu.fragment<f32, [D]>)
        operands(%q : !pgpu.fragment<f16, [D]>) -> (f32, f32, !pgpu.fragment<f32, [D]>)
    summarize {
    ^bb0(%b: index, %e: index, %qq: !pgpu.fragment<f16, [D]>):
      ...
    } combine {
      ...
    }
    ```
  }];
  let arguments = (ins Index:$lower, Index:$upper, Index:$step, Variadic<AnyType>:$identities,
                       Variadic<AnyType>:$captures);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$summarize, SizedRegion<1>:$combine);
  let assemblyFormat = [{
    $lower `to` $upper `step` $step `identity` `(` $identities `:` type($identities) `)`
    (`operands` `(` $captures^ `:` type($captures) `)`)? attr-dict
    `->` `(` type($results) `)` custom<FoldRegions>($summarize, $combine)
  }];
  let hasRegionVerifier = 1;
}

def PGPU_RegionScanOp : PGPU_Op<"region_scan", [RecursiveMemoryEffects, AttrSizedOperandSegments]> {
  let summary = "physical segment loop of a region scan";
  let description = [{
    For each segment in order: `emit(b, e, incoming state..., operands...)`
    writes the segment's outputs (source-aligned, with its own accesses);
    `summarize(b, e, operands...)` gives the transition and `apply(transition,
    state)` advances the state. Results are the final state. `combine`
    composes transitions (available to blocked or parallel realizations).

    ```mlir
    %S = pgpu.region_scan %c0 to %T step %bt identity(%z : !pgpu.fragment<f32, [D, E]>) init(%z : !pgpu.fragment<f32, [D, E]>)
        -> (!pgpu.fragment<f32, [D, E]>) summarize { ... } combine { ... } apply { ... } emit { ... }
    ```
  }];
  let arguments = (ins Index:$lower, Index:$upper, Index:$step, Variadic<AnyType>:$identities,
                       Variadic<AnyType>:$inits, Variadic<AnyType>:$captures);
  let results = (outs Variadic<AnyType>:$finals);
  let regions = (region SizedRegion<1>:$summarize, SizedRegion<1>:$combine, SizedRegion<1>:$apply,
                        SizedRegion<1>:$emit);
  let assemblyFormat = [{
    $lower `to` $upper `step` $step `identity` `(` $identities `:` type($identities) `)`
    `init` `(` $inits `:` type($inits) `)` (`operands` `(` $captures^ `:` type($captures) `)`)? attr-dict
    `->` `(` type($finals) `)` custom<ScanRegions>($summarize, $combine, $apply, $emit)
  }];
  let hasRegionVerifier = 1;
}

#endif // TESSEL_PGPU_STRUCTURED_OPS
