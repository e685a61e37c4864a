//===- KIROps.td - kir operations --------------------------*- tablegen -*-===//
//
// The whole logical surface of ARCHITECTURE.md §2.1. Semantic verification
// (seed 002 §5.1) lives in the op verifiers and in KIRKernelVerifier.cpp; it
// checks legality, never GPU profitability.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_KIR_OPS
#define TESSEL_KIR_OPS

include "tessel/Dialect/KIR/IR/KIRTypes.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "tessel/Dialect/Utils/BodyEffects.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/OpAsmInterface.td"

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def KIR_Scalar : AnyTypeOf<[AnyInteger, AnyFloat, Index], "kir scalar">;
def KIR_ScalarOrTensor : AnyTypeOf<[KIR_Scalar, AnyRankedTensor], "scalar or logical tensor">;
def KIR_IndexLike : AnyTypeOf<[Index, RankedTensorOf<[Index]>], "index or index tensor">;
// Constraints keep the generic `::mlir::Type` C++ type so that operands print
// with their full `!kir.` prefix, which reads better than the stripped form.
def KIR_View : Type<CPred<"::llvm::isa<::tessel::kir::ViewType>($_self)">, "external view">;
def KIR_Domain : Type<CPred<"::llvm::isa<::tessel::kir::DomainType>($_self)">, "domain",
                      "::tessel::kir::DomainType">,
                 BuildableType<"$_builder.getType<::tessel::kir::DomainType>()">;
def KIR_Buffer : Type<CPred<"::llvm::isa<::tessel::kir::BufferType>($_self)">, "logical buffer">;
def KIR_Record : Type<CPred<"::llvm::isa<::tessel::kir::RecordType>($_self)">, "record">;


//===----------------------------------------------------------------------===//
// Kernel, ABI access, terminators
//===----------------------------------------------------------------------===//

def KIR_KernelOp : KIR_Op<"kernel", [
    IsolatedFromAbove, FunctionOpInterface, Symbol, AutomaticAllocationScope,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmBlockArgumentNames"]>]> {
  let summary = "a kernel: one launch with a public ABI";
  let description = [{
    A kernel is one launch. Its arguments are the public ABI: external views
    (`!kir.view`), and runtime scalars passed by value. Products (tuples,
    records), domains, buffers and tensors are not ABI types. Constexpr
    specialization values are declared in `constexprs` (bool, integer or enum
    string) and read with `kir.constexpr`. A kernel returns nothing; its
    results are the writes to its `out`/`inout` views. Argument names are
    part of the ABI: the parser records each argument's SSA name as its
    `kir.name` attribute and the printer prints it back as that name.

    ```mlir
    kir.kernel @scale(%x: !kir.view<f32, [N], in>, %y: !kir.view<f32, [N], out>, %s: f32)
        attributes {constexprs = {SQUARE = false}} {
      ...
      kir.return
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs,
                       OptionalAttr<DictionaryAttr>:$constexprs);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() { return getFunctionType().getInputs(); }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() { return getFunctionType().getResults(); }
    ::mlir::Region *getCallableRegion() { return &getBody(); }
    /// True when some view argument declares the symbolic extent `name`.
    bool declaresExtent(::llvm::StringRef name);
    /// The declared value of constexpr `name`, or null.
    ::mlir::TypedAttr getConstexprValue(::llvm::StringRef name);
  }];
}

def KIR_ReturnOp : KIR_Op<"return", [Pure, HasParent<"KernelOp">, Terminator, ReturnLike]> {
  let summary = "end of a kernel body";
  let description = [{
    ```mlir
    kir.return
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def KIR_YieldOp : KIR_Op<"yield", [Pure, Terminator, ReturnLike]> {
  let summary = "yields values from a kir region";
  let description = [{
    Terminates the body of `kir.parallel` (no values), `kir.for`, the `do`
    region of `kir.while`, `kir.if` branches and every structured-op region.
    The enclosing op's verifier checks the yielded schema.

    ```mlir
    kir.yield %a, %b : f32, f32
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, ::mlir::ValueRange()); }]>];
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

def KIR_ExtentOp : KIR_Op<"extent", [Pure]> {
  let summary = "the runtime value of a named symbolic extent";
  let description = [{
    Reads the launch-time size named by a view extent of the enclosing kernel.

    ```mlir
    %M = kir.extent "M"
    ```
  }];
  let arguments = (ins StrAttr:$name);
  let results = (outs Index:$result);
  let assemblyFormat = "$name attr-dict";
  let hasVerifier = 1;
}

def KIR_ConstexprOp : KIR_Op<"constexpr", [Pure]> {
  let summary = "the value of a constexpr specialization parameter";
  let description = [{
    Constexpr values are compile-time facts of one specialization; they are
    never runtime ABI.

    ```mlir
    %causal = kir.constexpr "CAUSAL" : i1
    ```
  }];
  let arguments = (ins StrAttr:$name);
  let results = (outs AnyTypeOf<[AnyInteger, Index]>:$result);
  let assemblyFormat = "$name attr-dict `:` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Domains, subregions, indices, index relations
//===----------------------------------------------------------------------===//

def KIR_DomainOp : KIR_Op<"domain", [Pure]> {
  let summary = "a half-open logical domain [lower, upper) with a positive step";
  let description = [{
    ```mlir
    %d = kir.domain %c0 to %n
    %even = kir.domain %c0 to %n step 2
    ```
  }];
  let arguments = (ins Index:$lower, Index:$upper,
                       DefaultValuedAttr<I64Attr, "1">:$step);
  let results = (outs KIR_Domain:$result);
  let assemblyFormat = "$lower `to` $upper (`step` $step^)? attr-dict";
  let hasVerifier = 1;
}

def KIR_SubregionOp : KIR_Op<"subregion", [Pure]> {
  let summary = "a source-derived subregion of a domain";
  let description = [{
    `%d[%b : %e]` keeps the source axis, its bounds and its provenance; its
    members are the members of `%d` in `[%b, %e)`. Nothing is clamped: a
    subregion may be empty.

    A subregion of a step-1 domain has `%e - %b` members and pairs by
    position (re-based at 0) with any step-1 domain or subregion whose member
    count has the same affine form over extents, constants and index
    arithmetic: the verifier accepts element-wise ops, broadcasts and stores
    between them (`[%h, 2 * %h)` with `[0, %h)`, not `[%q, %d)` with `[0, %q)`).

    ```mlir
    %tile = kir.subregion %d[%b : %e]
    ```
  }];
  let arguments = (ins KIR_Domain:$source, Index:$begin, Index:$end);
  let results = (outs KIR_Domain:$result);
  let assemblyFormat = "$source `[` $begin `:` $end `]` attr-dict";
}

def KIR_IndicesOp : KIR_Op<"indices", [Pure]> {
  let summary = "the absolute coordinates of a domain's members";
  let description = [{
    A rank-1 index tensor whose axis has the domain as provenance and whose
    values are absolute source coordinates (never local ordinals).

    ```mlir
    %i = kir.indices %d : tensor<?xindex>
    ```
  }];
  let arguments = (ins KIR_Domain:$domain);
  let results = (outs 1DTensorOf<[Index]>:$result);
  let assemblyFormat = "$domain attr-dict `:` type($result)";
}

def KIR_IndexRelationOp : KIR_Op<"index_relation", [MemoryEffects<[MemRead]>]> {
  let summary = "gather-style indexed members: map[j] for j in a domain";
  let description = [{
    Reads an integer view at the members of `domain` and returns them as an
    index tensor whose values name members of another axis. Coordinates built
    from it are gathers; its provenance is (map, domain).

    ```mlir
    %rows = kir.index_relation %map[%d] : !kir.view<i32, [E], in> -> tensor<?xindex>
    ```
  }];
  let arguments = (ins KIR_View:$map, KIR_Domain:$domain);
  let results = (outs 1DTensorOf<[Index]>:$result);
  let assemblyFormat = "$map `[` $domain `]` attr-dict `:` type($map) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Control
//===----------------------------------------------------------------------===//

def KIR_ParallelOp : KIR_Op<"parallel", BodyEffects> {
  let summary = "unordered iteration: the body runs once per point, in any order";
  let description = [{
    One block argument (an index) per domain. There are no carries; effects
    of different iterations must not conflict unless they are atomics,
    scatter-reduce or unique scatters.

    ```mlir
    kir.parallel %dm {
    ^bb0(%m: index):
      ...
      kir.yield
    }
    ```
  }];
  let arguments = (ins Variadic<KIR_Domain>:$domains);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$domains custom<BodyRegion>($body, attr-dict)";
  let hasRegionVerifier = 1;
}

def KIR_ForOp : KIR_Op<"for", BodyEffects> {
  let summary = "ordered iteration over a domain with loop-carried values";
  let description = [{
    Visits the members of `domain` in increasing order. The body receives the
    member and the current carries and yields the next carries.

    ```mlir
    %s = kir.for %d iter_args(%z : f32) -> f32 {
    ^bb0(%i: index, %acc: f32):
      ...
      kir.yield %next : f32
    }
    ```
  }];
  let arguments = (ins KIR_Domain:$domain, Variadic<AnyType>:$inits);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $domain (`iter_args` `(` $inits^ `:` type($inits) `)`)? (`->` type($results)^)? custom<BodyRegion>($body, attr-dict)
  }];
  let hasRegionVerifier = 1;
}

def KIR_WhileOp : KIR_Op<"while", BodyEffects> {
  let summary = "ordered while loop with carries";
  let description = [{
    The `before` region receives the carries and ends in `kir.condition`; when
    the condition holds, its forwarded values enter the `do` region, which
    yields the next carries. The results are the values forwarded when the
    condition fails.

    ```mlir
    %r = kir.while (%x0 : i32) -> i32 {
    ^bb0(%x: i32):
      %c = kir.cmp lt %x, %n : i32
      kir.condition %c, %x : i32
    } do {
    ^bb0(%x: i32):
      %y = kir.binary mul %x, %two : i32
      kir.yield %y : i32
    }
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$inits);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$before, SizedRegion<1>:$after);
  let assemblyFormat = [{
    (`(` $inits^ `:` type($inits) `)`)? (`->` type($results)^)? custom<WhileRegions>($before, $after, attr-dict)
  }];
  let hasRegionVerifier = 1;
}

def KIR_ConditionOp : KIR_Op<"condition", [Pure, Terminator, HasParent<"WhileOp">]> {
  let summary = "the continuation test of kir.while";
  let description = [{
    ```mlir
    kir.condition %keep_going, %x : i32
    ```
  }];
  let arguments = (ins I1:$condition, Variadic<AnyType>:$args);
  let assemblyFormat = "$condition (`,` $args^ `:` type($args))? attr-dict";
}

def KIR_IfOp : KIR_Op<"if", BodyEffects> {
  let summary = "ordered conditional with optional results";
  let description = [{
    A scalar `i1` condition selects one region. With `constexpr`, the
    condition must be a constexpr fact (a `kir.constexpr`, a constant, or pure
    arithmetic on those) and the branch is resolved at specialization. Tensor
    predicates use `kir.select`, not `kir.if`.

    ```mlir
    %v = kir.if constexpr %causal -> f32 {
      kir.yield %a : f32
    } else {
      kir.yield %b : f32
    }
    ```
  }];
  let arguments = (ins I1:$condition, UnitAttr:$is_constexpr);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$thenRegion, AnyRegion:$elseRegion);
  let assemblyFormat = [{
    (`constexpr` $is_constexpr^)? $condition (`->` type($results)^)? custom<IfRegions>($thenRegion, $elseRegion, attr-dict)
  }];
  let hasRegionVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Pointwise value ops (scalars and logical tensors)
//===----------------------------------------------------------------------===//

def KIR_BinaryOp : KIR_Op<"binary", [Pure, SameOperandsAndResultType]> {
  let summary = "pointwise binary arithmetic";
  let description = [{
    Both operands have one type (scalars, or tensors of one shape; broadcast
    is explicit). Integer `div`/`rem` follow floor semantics; `max`/`min`
    propagate NaN, `max_num`/`min_num` do not. `approximate` and
    `flush_to_zero` (seed 000 §7) are allowed only on f32 `div`;
    `flush_to_zero` requires `approximate`.

    ```mlir
    %q = kir.binary div %a, %b {approximate, flush_to_zero} : tensor<?xf32>
    ```
  }];
  let arguments = (ins KIR_BinaryKind:$kind, KIR_ScalarOrTensor:$lhs, KIR_ScalarOrTensor:$rhs,
                       UnitAttr:$approximate, UnitAttr:$flush_to_zero);
  let results = (outs KIR_ScalarOrTensor:$result);
  let assemblyFormat = "$kind $lhs `,` $rhs attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def KIR_UnaryOp : KIR_Op<"unary", [Pure, SameOperandsAndResultType]> {
  let summary = "pointwise unary math";
  let description = [{
    `approximate` is allowed on f32 `exp2` and `tanh`; `flush_to_zero` on f32
    `exp2` together with `approximate` (seed 000 §7, DSL numerics).

    ```mlir
    %e = kir.unary exp2 %x {approximate} : tensor<?xf32>
    ```
  }];
  let arguments = (ins KIR_UnaryKind:$kind, KIR_ScalarOrTensor:$operand,
                       UnitAttr:$approximate, UnitAttr:$flush_to_zero);
  let results = (outs KIR_ScalarOrTensor:$result);
  let assemblyFormat = "$kind $operand attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def KIR_CmpOp : KIR_Op<"cmp", [Pure, AllTypesMatch<["lhs", "rhs"]>,
    TypesMatchWith<"result is i1 shaped like the operands", "lhs", "result",
                   "::tessel::kir::getI1Like($_self)">]> {
  let summary = "pointwise comparison";
  let description = [{
    Float comparisons are ordered except `ne`, which is true when either side
    is NaN. Signless integers and `index` compare as signed, unsigned integer
    types (`ui32`) as unsigned.

    ```mlir
    %m = kir.cmp ge %qi, %ki : tensor<?x?xindex>
    ```
  }];
  let arguments = (ins KIR_CmpPredicate:$predicate, KIR_ScalarOrTensor:$lhs, KIR_ScalarOrTensor:$rhs);
  let results = (outs KIR_ScalarOrTensor:$result);
  let assemblyFormat = "$predicate $lhs `,` $rhs attr-dict `:` type($lhs)";
  let hasVerifier = 1;
}

def KIR_SelectOp : KIR_Op<"select", [Pure, AllTypesMatch<["true_value", "false_value", "result"]>]> {
  let summary = "pointwise choice by a predicate";
  let description = [{
    The condition is an `i1` scalar or an `i1` tensor of the value's shape.

    ```mlir
    %s = kir.select %mask, %x, %ninf : tensor<?xi1>, tensor<?xf32>
    ```
  }];
  let arguments = (ins KIR_ScalarOrTensor:$condition, KIR_ScalarOrTensor:$true_value,
                       KIR_ScalarOrTensor:$false_value);
  let results = (outs KIR_ScalarOrTensor:$result);
  let assemblyFormat = "$condition `,` $true_value `,` $false_value attr-dict `:` type($condition) `,` type($result)";
  let hasVerifier = 1;
}

def KIR_CastOp : KIR_Op<"cast", [Pure]> {
  let summary = "pointwise value conversion";
  let description = [{
    Float to float rounds to nearest even; float to integer truncates toward
    zero and saturates (NaN gives 0); integer and `index` conversions wrap,
    sign-extending signless types and zero-extending unsigned ones and `i1`;
    integer to float rounds to nearest even. The shape is unchanged.

    ```mlir
    %h = kir.cast %acc : tensor<?xf32> to tensor<?xf16>
    ```
  }];
  let arguments = (ins KIR_ScalarOrTensor:$operand);
  let results = (outs KIR_ScalarOrTensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `to` type($result)";
  let hasVerifier = 1;
}

def KIR_BitcastOp : KIR_Op<"bitcast", [Pure]> {
  let summary = "pointwise reinterpretation of bits";
  let description = [{
    ```mlir
    %b = kir.bitcast %x : f32 to i32
    ```
  }];
  let arguments = (ins KIR_ScalarOrTensor:$operand);
  let results = (outs KIR_ScalarOrTensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `to` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Shape and product ops
//===----------------------------------------------------------------------===//

def KIR_BroadcastOp : KIR_Op<"broadcast", [Pure]> {
  let summary = "explicit broadcast of a scalar or tensor over domains";
  let description = [{
    The result has one axis per domain. `dims[i]` is the result axis that
    operand axis `i` becomes; the other result axes repeat the value. A scalar
    operand (`dims []`) gives a full tensor.

    ```mlir
    %row = kir.broadcast %mx over(%dn) dims [] : f32 -> tensor<?xf32>
    %col = kir.broadcast %q over(%dm, %dn) dims [0] : tensor<?xindex> -> tensor<?x?xindex>
    ```
  }];
  let arguments = (ins KIR_ScalarOrTensor:$operand, Variadic<KIR_Domain>:$domains,
                       DenseI64ArrayAttr:$dims);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$operand `over` `(` $domains `)` `dims` $dims attr-dict `:` type($operand) `->` type($result)";
  let hasVerifier = 1;
}

def KIR_BroadcastAsOp : KIR_Op<"broadcast_as", [Pure]> {
  let summary = "broadcast a scalar or tensor to the shape of a reference tensor";
  let description = [{
    Like `kir.broadcast`, but the result takes its shape and coordinate
    provenance from `reference` (a tensor of any element type) instead of
    domains. This is how closed regions, whose slices have no domain of their
    own, spread a value over a slice. `dims[i]` is the result axis that
    operand axis `i` becomes.

    ```mlir
    %m_s = kir.broadcast_as %m to %scores dims [] : f32, tensor<?xf32> -> tensor<?xf32>
    ```
  }];
  let arguments = (ins KIR_ScalarOrTensor:$operand, AnyRankedTensor:$reference, DenseI64ArrayAttr:$dims);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $operand `to` $reference `dims` $dims attr-dict `:` type($operand) `,` type($reference) `->` type($result)
  }];
  let hasVerifier = 1;
}

def KIR_ExtractOp : KIR_Op<"extract", [Pure,
    TypesMatchWith<"result is the tensor's element type", "tensor", "result",
                   "::llvm::cast<::mlir::RankedTensorType>($_self).getElementType()">]> {
  let summary = "one element of a logical tensor";
  let description = [{
    ```mlir
    %v = kir.extract %t[%i, %j] : tensor<?x?xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$tensor, Variadic<Index>:$indices);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$tensor `[` $indices `]` attr-dict `:` type($tensor)";
  let hasVerifier = 1;
}

def KIR_ReshapeOp : KIR_Op<"reshape", [Pure]> {
  let summary = "row-major reshape onto new domains";
  let description = [{
    Reinterprets the row-major member order of the operand over the result
    domains (one per result axis). Element counts must agree.

    ```mlir
    %flat = kir.reshape %t over(%dmn) : tensor<4x?xf32> -> tensor<?xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$operand, Variadic<KIR_Domain>:$domains);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$operand `over` `(` $domains `)` attr-dict `:` type($operand) `->` type($result)";
  let hasVerifier = 1;
}

def KIR_TransposeOp : KIR_Op<"transpose", [Pure]> {
  let summary = "permute tensor axes";
  let description = [{
    Result axis `i` is operand axis `permutation[i]`.

    ```mlir
    %kt = kir.transpose %k [1, 0] : tensor<?x64xf16> -> tensor<64x?xf16>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$operand, DenseI64ArrayAttr:$permutation);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$operand $permutation attr-dict `:` type($operand) `->` type($result)";
  let hasVerifier = 1;
}

def KIR_JoinOp : KIR_Op<"join", [Pure, AllTypesMatch<["lhs", "rhs"]>]> {
  let summary = "stack two values along a new trailing axis of extent 2";
  let description = [{
    ```mlir
    %p = kir.join %re, %im : tensor<?xf32> -> tensor<?x2xf32>
    ```
  }];
  let arguments = (ins KIR_ScalarOrTensor:$lhs, KIR_ScalarOrTensor:$rhs);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)";
  let hasVerifier = 1;
}

def KIR_TupleOp : KIR_Op<"tuple", [Pure]> {
  let summary = "build an ordered tuple";
  let description = [{
    ```mlir
    %t = kir.tuple %a, %i : f32, index -> tuple<f32, index>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$elements);
  let results = (outs AnyTuple:$result);
  let assemblyFormat = "($elements^ `:` type($elements))? attr-dict `->` type($result)";
  let hasVerifier = 1;
}

def KIR_TupleGetOp : KIR_Op<"tuple_get", [Pure]> {
  let summary = "one element of a tuple";
  let description = [{
    ```mlir
    %a = kir.tuple_get %t[0] : tuple<f32, index> -> f32
    ```
  }];
  let arguments = (ins AnyTuple:$tuple, I64Attr:$index);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$tuple `[` $index `]` attr-dict `:` type($tuple) `->` type($result)";
  let hasVerifier = 1;
}

def KIR_RecordOp : KIR_Op<"record", [Pure]> {
  let summary = "build a record from its fields, in declaration order";
  let description = [{
    ```mlir
    %r = kir.record %m, %d : f32, f32 -> !kir.record<max: f32, den: f32>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$fields);
  let results = (outs KIR_Record:$result);
  let assemblyFormat = "($fields^ `:` type($fields))? attr-dict `->` type($result)";
  let hasVerifier = 1;
}

def KIR_RecordGetOp : KIR_Op<"record_get", [Pure]> {
  let summary = "one named field of a record";
  let description = [{
    ```mlir
    %m = kir.record_get %r["max"] : !kir.record<max: f32, den: f32> -> f32
    ```
  }];
  let arguments = (ins KIR_Record:$record, StrAttr:$field);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$record `[` $field `]` attr-dict `:` type($record) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1; // a field of a kir.record is that field's value
}

include "tessel/Dialect/KIR/IR/KIRStructuredOps.td"
include "tessel/Dialect/KIR/IR/KIREffectOps.td"

#endif // TESSEL_KIR_OPS
