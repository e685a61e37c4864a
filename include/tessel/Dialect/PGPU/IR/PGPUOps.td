//===- PGPUOps.td - pgpu kernel, program space, control, values -*- tablegen -*-===//

#ifndef TESSEL_PGPU_OPS
#define TESSEL_PGPU_OPS

include "tessel/Dialect/PGPU/IR/PGPUTypes.td"
include "tessel/Dialect/KIR/IR/KIREnums.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "tessel/Dialect/Utils/BodyEffects.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

//===----------------------------------------------------------------------===//
// Constraints (generic C++ type so operands print with their `!pgpu.` prefix)
//===----------------------------------------------------------------------===//

def PGPU_Fragment : Type<CPred<"::llvm::isa<::tessel::pgpu::FragmentType>($_self)">, "fragment">;
def PGPU_View : Type<CPred<"::llvm::isa<::tessel::pgpu::ViewType>($_self)">, "external view">;
def PGPU_Buffer : Type<CPred<"::llvm::isa<::tessel::pgpu::BufferType>($_self)">, "physical buffer">;
def PGPU_Scalar : AnyTypeOf<[AnyInteger, AnyFloat, Index], "scalar">;
def PGPU_Value : AnyTypeOf<[PGPU_Scalar, PGPU_Fragment], "scalar or fragment">;
def PGPU_ParamArray : TypedArrayAttrBase<PGPU_ParamAttr, "physical parameter declarations">;

/// Ops allowed in LaunchExpr: effect-free integer/bool arithmetic whose leaves
/// are constants, parameters, ABI scalars and view shape/stride metadata.
def PGPU_LaunchExprTrait : NativeOpTrait<"LaunchExprOp"> {
  let cppNamespace = "::tessel::pgpu";
}

//===----------------------------------------------------------------------===//
// Kernel and ABI metadata
//===----------------------------------------------------------------------===//

def PGPU_KernelOp : PGPU_Op<"kernel", [
    IsolatedFromAbove, FunctionOpInterface, Symbol,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmBlockArgumentNames"]>]> {
  let summary = "one physical kernel: one artifact, one launch";
  let description = [{
    Arguments are the public ABI (`!pgpu.view`, scalars) and compiler-private
    parameters marked `pgpu.private = workspace` (a `!pgpu.buffer` with
    workspace scope, allocated by the runtime before this same launch) or
    `pgpu.private = wrapper_scalar` (a scalar the wrapper computes from a
    LaunchExpr). `params` declares the physical parameters and their domains.
    The body holds exactly one `pgpu.program_space`.

    ```mlir
    pgpu.kernel @gemm(%A: !pgpu.view<f16, [M, K], in>, %B: !pgpu.view<f16, [K, N], in>,
                      %C: !pgpu.view<f32, [M, N], out>)
        attributes {params = [#pgpu.param<"BM", [32, 64], 64>]} {
      ...
      pgpu.return
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<DictArrayAttr>:$arg_attrs, OptionalAttr<DictArrayAttr>:$res_attrs,
                       OptionalAttr<PGPU_ParamArray>:$params);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() { return getFunctionType().getInputs(); }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() { return getFunctionType().getResults(); }
    ::mlir::Region *getCallableRegion() { return &getBody(); }
    /// The declaration of parameter `name`, or null.
    ::tessel::pgpu::ParamAttr getParam(::llvm::StringRef name);
  }];
}

def PGPU_ReturnOp : PGPU_Op<"return", [Pure, HasParent<"KernelOp">, Terminator, ReturnLike]> {
  let summary = "end of a kernel body";
  let description = [{
    ```mlir
    pgpu.return
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def PGPU_YieldOp : PGPU_Op<"yield", [Pure, Terminator, ReturnLike]> {
  let summary = "yields values from a pgpu region";
  let description = [{
    ```mlir
    pgpu.yield %acc : !pgpu.fragment<f32, [BM, BN]>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, ::mlir::ValueRange()); }]>];
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

def PGPU_ParamOp : PGPU_Op<"param", [Pure, PGPU_LaunchExprTrait]> {
  let summary = "the bound value of a declared physical parameter (a LaunchExpr leaf)";
  let description = [{
    ```mlir
    %bm = pgpu.param "BM" : index
    ```
  }];
  let arguments = (ins StrAttr:$name);
  let results = (outs AnyTypeOf<[Index, AnyInteger]>:$result);
  let assemblyFormat = "$name attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def PGPU_ExtentOp : PGPU_Op<"extent", [Pure, PGPU_LaunchExprTrait]> {
  let summary = "host-visible shape metadata of a view axis (a LaunchExpr leaf)";
  let description = [{
    ```mlir
    %M = pgpu.extent %A[0] : !pgpu.view<f16, [M, K], in>
    ```
  }];
  let arguments = (ins PGPU_View:$view, I64Attr:$axis);
  let results = (outs Index:$result);
  let assemblyFormat = "$view `[` $axis `]` attr-dict `:` type($view)";
  let hasVerifier = 1;
}

def PGPU_StrideOp : PGPU_Op<"stride", [Pure, PGPU_LaunchExprTrait]> {
  let summary = "host-visible element stride of a view axis (a LaunchExpr leaf)";
  let description = [{
    ```mlir
    %s = pgpu.stride %A[1] : !pgpu.view<f16, [M, K], in>
    ```
  }];
  let arguments = (ins PGPU_View:$view, I64Attr:$axis);
  let results = (outs Index:$result);
  let assemblyFormat = "$view `[` $axis `]` attr-dict `:` type($view)";
  let hasVerifier = 1;
}

def PGPU_WorkspaceExtentOp : PGPU_Op<"workspace_extent", [HasParent<"KernelOp">]> {
  let summary = "names a launch-time size as a workspace extent symbol (seed 000 §2, §3.1)";
  let description = [{
    Invocation workspace is sized by the runtime before the launch, from
    launch facts only. Beside static sizes, declared parameters and view
    extent names, a workspace extent may name a LaunchExpr: this op, in the
    kernel body outside the program space, binds the symbol `name` to the
    LaunchExpr `%size` (for instance the program count of an execution group
    times a declared split count). The runtime (interpreter, launch wrappers)
    evaluates it with the same evaluator as the grid; a negative value is a
    launch error. The name is not a declared parameter or a view extent, and
    is bound once per kernel. It has no result: the kernel body reads the
    same LaunchExpr value where it needs the size.

    ```mlir
    %n = pgpu.binary mul %groups, %splits : index
    pgpu.workspace_extent "FOLD_PROGRAMS" = %n
    ... %ws: !pgpu.buffer<f32, [FOLD_PROGRAMS, BLOCK_S], workspace> ...
    ```
  }];
  let arguments = (ins StrAttr:$name, Index:$size);
  let assemblyFormat = "$name `=` $size attr-dict";
  let hasVerifier = 1;
}

def PGPU_CeilDivOp : PGPU_Op<"ceil_div", [Pure, SameOperandsAndResultType, PGPU_LaunchExprTrait]> {
  let summary = "integer ceiling division (LaunchExpr)";
  let description = [{
    ```mlir
    %gm = pgpu.ceil_div %M, %bm : index
    ```
  }];
  let arguments = (ins AnyTypeOf<[Index, AnyInteger]>:$lhs, AnyTypeOf<[Index, AnyInteger]>:$rhs);
  let results = (outs AnyTypeOf<[Index, AnyInteger]>:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Program space
//===----------------------------------------------------------------------===//

def PGPU_ProgramSpaceOp : PGPU_Op<"program_space", !listconcat(BodyEffects, [HasParent<"KernelOp">])> {
  let summary = "the finite set of program instances and the per-instance body (seed 000 §3)";
  let description = [{
    The extents are LaunchExpr values; the wrapper evaluates them to form the
    grid and the body runs once per program coordinate (region arguments, one
    index per axis, in [0, extent)). Instances have no barrier between them;
    conflicting writes across instances must be atomic or scatter-reduce.

    ```mlir
    pgpu.program_space (%gm, %gn) {
    ^bb0(%pm: index, %pn: index):
      ...
      pgpu.yield
    }
    ```
  }];
  let arguments = (ins Variadic<Index>:$extents);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "`(` $extents `)` custom<BodyRegion>($body, attr-dict)";
  let hasRegionVerifier = 1;
}

def PGPU_ExecutionGroupOp : PGPU_Op<"execution_group", BodyEffects> {
  let summary = "the execution body of one workset segment (seed 000 §3)";
  let description = [{
    `linear` is the program coordinate relative to the segment's start;
    region arguments are it decoded in row-major order by `extents`. `segment`
    identifies the segment and `roles` names each decoded axis for diagnostics
    only (execution never reads it: invariant 12). The group adds no launch or
    barrier; the dispatch guard around it is explicit control.

    ```mlir
    pgpu.execution_group %pid extents(%gm, %gn) segment 0 roles ["m", "n"] {
    ^bb0(%pm: index, %pn: index):
      ...
      pgpu.yield
    }
    ```
  }];
  let arguments = (ins Index:$linear, Variadic<Index>:$extents, I64Attr:$segment, StrArrayAttr:$roles);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$linear `extents` `(` $extents `)` `segment` $segment `roles` $roles custom<BodyRegion>($body, attr-dict)";
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The role of pgpu-form-tiles' segment walk (resident programs walking each data-dependent
    /// segment's tiles in turn), which later passes look for.
    static constexpr ::llvm::StringLiteral kSegmentWalkRole = "segment walk";
    /// Whether this group is a segment walk.
    bool isSegmentWalk() {
      return ::llvm::any_of(getRoles(), [](::mlir::Attribute r) {
        auto role = ::llvm::dyn_cast<::mlir::StringAttr>(r);
        return role && role.getValue() == kSegmentWalkRole;
      });
    }
  }];
}

def PGPU_LastProgramOp : PGPU_Op<"last_program", [RecursiveMemoryEffects, MemoryEffects<[MemRead, MemWrite]>,
                                                   AttrSizedOperandSegments]> {
  let summary = "a region run once, by the program instance that arrives last";
  let description = [{
    Every program instance that reaches the op increments its ticket (an i32
    invocation-workspace buffer the runtime fills with 0) atomically with
    `acq_rel` order at `invocation` sharing; the one instance that observes
    the count of arrivals minus one runs the body. The release half publishes
    each instance's earlier effects, the acquire half makes all of them
    visible to the body (seed 000 §4.4, §9): no barrier, no second launch.
    The arrival itself reads and writes the ticket, so an op with an empty
    body is not dead: instances may wait for its count (a scatter-add after a
    zero fill waits for every earlier instance's arrival, kir-to-pgpu).

    Without coordinates (a child of the program space) the ticket is
    `ticket[0]` of a `[1]` buffer and the count is the product of the program
    space's extents, so a pass that changes the program space changes it too.
    The finalization of a result merged into workspace by atomics or
    scatter-reduces lives here.

    With coordinates (inside an execution group) the ticket is
    `ticket[coords]` and `arrivals` is the number of instances that reach the
    op with those coordinates: the body finalizes what those instances alone
    wrote (per-member or per-tile tickets, `pgpu-member-tickets`).

    ```mlir
    pgpu.last_program %ticket : !pgpu.buffer<i32, [1], workspace> {
      ...
      pgpu.yield
    }
    pgpu.last_program %tickets[%m, %n] arrivals %splits : !pgpu.buffer<i32, [M, N], workspace> {
      ...
      pgpu.yield
    }
    ```
  }];
  let arguments = (ins PGPU_Buffer:$ticket, Variadic<Index>:$coords, Optional<Index>:$arrivals);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $ticket (`[` $coords^ `]`)? (`arrivals` $arrivals^)? `:` type($ticket) custom<BodyRegion>($body, attr-dict)
  }];
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// Whether the ticket is one of many (coordinates and an arrival count) rather than the program space's.
    bool isTicketed() { return getArrivals() != nullptr; }
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Value":$ticket), [{
      build($_builder, $_state, ticket, ::mlir::ValueRange{}, ::mlir::Value());
    }]>
  ];
}

def PGPU_DelinearizeOp : PGPU_Op<"delinearize", [Pure]> {
  let summary = "row-major decoding of a linear coordinate";
  let description = [{
    Pure mathematics: no launch, segment or ownership facts.

    ```mlir
    %i, %j = pgpu.delinearize %pid by(%gm, %gn) : index, index
    ```
  }];
  let arguments = (ins Index:$linear, Variadic<Index>:$extents);
  let results = (outs Variadic<Index>:$results);
  let assemblyFormat = "$linear `by` `(` $extents `)` attr-dict `:` type($results)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Control (seed 000 §5)
//===----------------------------------------------------------------------===//

def PGPU_ForOp : PGPU_Op<"for", BodyEffects> {
  let summary = "ordered loop with carries (author loops and physical blocking loops)";
  let description = [{
    ```mlir
    %acc = pgpu.for %c0 to %K step %bk iter_args(%z : !pgpu.fragment<f32, [BM, BN]>) -> !pgpu.fragment<f32, [BM, BN]> {
    ^bb0(%k0: index, %a: !pgpu.fragment<f32, [BM, BN]>):
      ...
      pgpu.yield %next : !pgpu.fragment<f32, [BM, BN]>
    }
    ```
  }];
  let arguments = (ins Index:$lower, Index:$upper, Index:$step, Variadic<AnyType>:$inits);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $lower `to` $upper `step` $step (`iter_args` `(` $inits^ `:` type($inits) `)`)? (`->` type($results)^)? custom<BodyRegion>($body, attr-dict)
  }];
  let hasRegionVerifier = 1;
}

def PGPU_ForeachOp : PGPU_Op<"foreach", BodyEffects> {
  let summary = "an explicit independent workset inside a program (seed 000 §5)";
  let description = [{
    Runs the body once per index in [lower, upper), in any order: iterations
    carry nothing and their effects must not conflict. Construction realizes
    the element loops of logical tensors this way; blocking turns them into
    fragments.

    ```mlir
    pgpu.foreach %c0 to %N {
    ^bb0(%n: index):
      ...
      pgpu.yield
    }
    ```
  }];
  let arguments = (ins Index:$lower, Index:$upper);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$lower `to` $upper custom<BodyRegion>($body, attr-dict)";
  let hasRegionVerifier = 1;
}

def PGPU_WhileOp : PGPU_Op<"while", BodyEffects> {
  let summary = "ordered while loop with carries";
  let description = [{
    ```mlir
    %r = pgpu.while (%x0 : index) -> index {
    ^bb0(%x: index):
      pgpu.condition %c, %x : index
    } do {
    ^bb0(%x: index):
      pgpu.yield %y : index
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

def PGPU_ConditionOp : PGPU_Op<"condition", [Pure, Terminator, HasParent<"WhileOp">]> {
  let summary = "the continuation test of pgpu.while";
  let description = [{
    ```mlir
    pgpu.condition %go, %x : index
    ```
  }];
  let arguments = (ins I1:$condition, Variadic<AnyType>:$args);
  let assemblyFormat = "$condition (`,` $args^ `:` type($args))? attr-dict";
}

def PGPU_IfOp : PGPU_Op<"if", BodyEffects> {
  let summary = "scalar-condition structured if (dispatch guards, tails, author ifs)";
  let description = [{
    ```mlir
    pgpu.if %in_group {
      ...
      pgpu.yield
    }
    ```
  }];
  let arguments = (ins I1:$condition);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$thenRegion, AnyRegion:$elseRegion);
  let assemblyFormat = "$condition (`->` type($results)^)? custom<IfRegions>($thenRegion, $elseRegion, attr-dict)";
  let hasRegionVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Value ops (seed 000 §7): scalars and fragments, numerical attributes kept
//===----------------------------------------------------------------------===//

def PGPU_BinaryOp : PGPU_Op<"binary", [Pure, SameOperandsAndResultType]> {
  let summary = "pointwise binary arithmetic on scalars or fragments";
  let description = [{
    Same kinds and numerical attributes as `kir.binary`. On index/integer
    scalars it is also LaunchExpr arithmetic.

    ```mlir
    %m0 = pgpu.binary mul %pm, %bm : index
    %q = pgpu.binary div %a, %b {approximate} : !pgpu.fragment<f32, [BM]>
    ```
  }];
  let arguments = (ins KIR_BinaryKind:$kind, PGPU_Value:$lhs, PGPU_Value:$rhs,
                       UnitAttr:$approximate, UnitAttr:$flush_to_zero);
  let results = (outs PGPU_Value:$result);
  let assemblyFormat = "$kind $lhs `,` $rhs attr-dict `:` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def PGPU_UnaryOp : PGPU_Op<"unary", [Pure, SameOperandsAndResultType]> {
  let summary = "pointwise unary math on scalars or fragments";
  let description = [{
    ```mlir
    %e = pgpu.unary exp2 %s {approximate} : !pgpu.fragment<f32, [BM, BN]>
    ```
  }];
  let arguments = (ins KIR_UnaryKind:$kind, PGPU_Value:$operand, UnitAttr:$approximate,
                       UnitAttr:$flush_to_zero);
  let results = (outs PGPU_Value:$result);
  let assemblyFormat = "$kind $operand attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def PGPU_CmpOp : PGPU_Op<"cmp", [Pure, AllTypesMatch<["lhs", "rhs"]>,
    TypesMatchWith<"result is i1 shaped like the operands", "lhs", "result", "::tessel::pgpu::getI1Like($_self)">]> {
  let summary = "pointwise comparison (validity predicates, LaunchExpr compares)";
  let description = [{
    ```mlir
    %ok = pgpu.cmp lt %m, %Mf : !pgpu.fragment<index, [BM, BK]>
    ```
  }];
  let arguments = (ins KIR_CmpPredicate:$predicate, PGPU_Value:$lhs, PGPU_Value:$rhs);
  let results = (outs PGPU_Value:$result);
  let assemblyFormat = "$predicate $lhs `,` $rhs attr-dict `:` type($lhs)";
}

def PGPU_SelectOp : PGPU_Op<"select", [Pure, AllTypesMatch<["true_value", "false_value", "result"]>]> {
  let summary = "pointwise choice";
  let description = [{
    ```mlir
    %s = pgpu.select %ok, %x, %ninf : !pgpu.fragment<i1, [BN]>, !pgpu.fragment<f32, [BN]>
    ```
  }];
  let arguments = (ins PGPU_Value:$condition, PGPU_Value:$true_value, PGPU_Value:$false_value);
  let results = (outs PGPU_Value:$result);
  let assemblyFormat = "$condition `,` $true_value `,` $false_value attr-dict `:` type($condition) `,` type($result)";
  let hasVerifier = 1;
}

def PGPU_CastOp : PGPU_Op<"cast", [Pure]> {
  let summary = "pointwise conversion (kir.cast semantics)";
  let description = [{
    ```mlir
    %h = pgpu.cast %acc : !pgpu.fragment<f32, [BM, BN]> to !pgpu.fragment<f16, [BM, BN]>
    ```
  }];
  let arguments = (ins PGPU_Value:$operand);
  let results = (outs PGPU_Value:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `to` type($result)";
  let hasVerifier = 1;
}

def PGPU_BitcastOp : PGPU_Op<"bitcast", [Pure]> {
  let summary = "pointwise reinterpretation of bits";
  let description = [{
    ```mlir
    %b = pgpu.bitcast %x : f32 to i32
    ```
  }];
  let arguments = (ins PGPU_Value:$operand);
  let results = (outs PGPU_Value:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `to` type($result)";
  let hasVerifier = 1;
}

def PGPU_IotaOp : PGPU_Op<"iota", [Pure]> {
  let summary = "a 1-d index fragment base + [0, extent)";
  let description = [{
    The usual source of fragment coordinates: `m = pm * BM + range(0, BM)`.

    ```mlir
    %m = pgpu.iota %m0 : !pgpu.fragment<index, [BM]>
    ```
  }];
  let arguments = (ins Index:$base);
  let results = (outs PGPU_Fragment:$result);
  let assemblyFormat = "$base attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def PGPU_SplatOp : PGPU_Op<"splat", [Pure]> {
  let summary = "explicit scalar-to-fragment broadcast";
  let description = [{
    ```mlir
    %z = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BM, BN]>
    ```
  }];
  let arguments = (ins PGPU_Scalar:$operand);
  let results = (outs PGPU_Fragment:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `->` type($result)";
  let hasVerifier = 1;
}

def PGPU_BroadcastOp : PGPU_Op<"broadcast", [Pure]> {
  let summary = "fragment broadcast: operand axis i becomes result axis dims[i]";
  let description = [{
    ```mlir
    %mi = pgpu.broadcast %m dims [0] : !pgpu.fragment<index, [BM]> -> !pgpu.fragment<index, [BM, BK]>
    ```
  }];
  let arguments = (ins PGPU_Fragment:$operand, DenseI64ArrayAttr:$dims);
  let results = (outs PGPU_Fragment:$result);
  let assemblyFormat = "$operand `dims` $dims attr-dict `:` type($operand) `->` type($result)";
  let hasVerifier = 1;
}

def PGPU_ExtractOp : PGPU_Op<"extract", [Pure]> {
  let summary = "explicit fragment-to-scalar extraction";
  let description = [{
    ```mlir
    %v = pgpu.extract %f[%i] : !pgpu.fragment<f32, [BM]> -> f32
    ```
  }];
  let arguments = (ins PGPU_Fragment:$fragment, Variadic<Index>:$indices);
  let results = (outs PGPU_Scalar:$result);
  let assemblyFormat = "$fragment `[` $indices `]` attr-dict `:` type($fragment) `->` type($result)";
  let hasVerifier = 1;
}

def PGPU_ReshapeOp : PGPU_Op<"reshape", [Pure]> {
  let summary = "row-major reshape of a fragment";
  let description = [{
    ```mlir
    %r = pgpu.reshape %f : !pgpu.fragment<f32, [4, 16]> -> !pgpu.fragment<f32, [64]>
    ```
  }];
  let arguments = (ins PGPU_Fragment:$operand);
  let results = (outs PGPU_Fragment:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `->` type($result)";
  let hasVerifier = 1;
}

def PGPU_TransposeOp : PGPU_Op<"transpose", [Pure]> {
  let summary = "permute fragment axes";
  let description = [{
    ```mlir
    %t = pgpu.transpose %k [1, 0] : !pgpu.fragment<f16, [BN, D]> -> !pgpu.fragment<f16, [D, BN]>
    ```
  }];
  let arguments = (ins PGPU_Fragment:$operand, DenseI64ArrayAttr:$permutation);
  let results = (outs PGPU_Fragment:$result);
  let assemblyFormat = "$operand $permutation attr-dict `:` type($operand) `->` type($result)";
  let hasVerifier = 1;
}

def PGPU_JoinOp : PGPU_Op<"join", [Pure, AllTypesMatch<["lhs", "rhs"]>]> {
  let summary = "stack two fragments along a new trailing axis of extent 2";
  let description = [{
    ```mlir
    %p = pgpu.join %a, %b : !pgpu.fragment<f32, [BM]> -> !pgpu.fragment<f32, [BM, 2]>
    ```
  }];
  let arguments = (ins PGPU_Fragment:$lhs, PGPU_Fragment:$rhs);
  let results = (outs PGPU_Fragment:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)";
  let hasVerifier = 1;
}

def PGPU_TupleOp : PGPU_Op<"tuple", [Pure]> {
  let summary = "build a tuple of scalars/fragments (records are flattened to tuples)";
  let description = [{
    ```mlir
    %t = pgpu.tuple %m, %l : f32, f32 -> tuple<f32, f32>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$elements);
  let results = (outs AnyTuple:$result);
  let assemblyFormat = "($elements^ `:` type($elements))? attr-dict `->` type($result)";
  let hasVerifier = 1;
}

def PGPU_TupleGetOp : PGPU_Op<"tuple_get", [Pure]> {
  let summary = "one element of a tuple";
  let description = [{
    ```mlir
    %m = pgpu.tuple_get %t[0] : tuple<f32, f32> -> f32
    ```
  }];
  let arguments = (ins AnyTuple:$tuple, I64Attr:$index);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$tuple `[` $index `]` attr-dict `:` type($tuple) `->` type($result)";
  let hasVerifier = 1;
}

include "tessel/Dialect/PGPU/IR/PGPUAccessOps.td"
include "tessel/Dialect/PGPU/IR/PGPUStructuredOps.td"

#endif // TESSEL_PGPU_OPS
