//===- KIREffectOps.td - kir effects -----------------------*- tablegen -*-===//
//
// External-view and buffer accesses. A coordinate list has one entry per
// source axis: an `index` (the axis is dropped), a `!kir.domain` (the axis is
// kept, its members are the coordinates) or an index tensor (a gather/scatter
// axis; its axes join the result). On a gather or scatter, `joint` pairs index
// tensors element-wise: entry i is -1, or the position of an earlier index-tensor
// coordinate of the same shape whose axes coordinate i shares (NumPy's advanced
// indexing with broadcast index arrays); a paired coordinate adds no axis. Masked accesses carry `valid`: an invalid
// read returns `fill`, an invalid write has no effect (DSL effects rules).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_KIR_EFFECT_OPS
#define TESSEL_KIR_EFFECT_OPS

def KIR_LoadOp : KIR_Op<"load", [MemoryEffects<[MemRead]>, AttrSizedOperandSegments]> {
  let summary = "read a view at index and domain coordinates";
  let description = [{
    ```mlir
    %row = kir.load %x[%m, %dn] : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
    %t = kir.load %x[%dm, %dk] valid %ok : tensor<?x?xi1> fill %zero : f16
        : !kir.view<f16, [M, K], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
    ```
  }];
  let arguments = (ins KIR_View:$view, Variadic<AnyType>:$coords,
                       Optional<KIR_ScalarOrTensor>:$valid, Optional<KIR_Scalar>:$fill);
  let results = (outs KIR_ScalarOrTensor:$result);
  let assemblyFormat = [{
    $view `[` $coords `]` (`valid` $valid^ `:` type($valid) `fill` $fill `:` type($fill))? attr-dict
    `:` type($view) `` custom<CoordTypes>(type($coords)) `->` type($result)
  }];
  let hasVerifier = 1;
}

def KIR_GatherOp : KIR_Op<"gather", [MemoryEffects<[MemRead]>, AttrSizedOperandSegments]> {
  let summary = "read a view where some coordinates are index tensors";
  let description = [{
    ```mlir
    %rows = kir.gather %table[%ids, %dd] : !kir.view<f16, [V, D], in>[tensor<?xindex>, !kir.domain] -> tensor<?x?xf16>
    // token t of a paged cache: block %blk[t], slot %slot[t] (paired: one axis, not two)
    %k = kir.gather %cache[%blk, %slot, %dd] {joint = array<i64: -1, 0, -1>}
        : !kir.view<f16, [N, S, D], in>[tensor<?xindex>, tensor<?xindex>, !kir.domain] -> tensor<?x?xf16>
    ```
  }];
  let arguments = (ins KIR_View:$view, Variadic<AnyType>:$coords,
                       Optional<KIR_ScalarOrTensor>:$valid, Optional<KIR_Scalar>:$fill,
                       OptionalAttr<DenseI64ArrayAttr>:$joint);
  let results = (outs KIR_ScalarOrTensor:$result);
  let assemblyFormat = [{
    $view `[` $coords `]` (`valid` $valid^ `:` type($valid) `fill` $fill `:` type($fill))? attr-dict
    `:` type($view) `` custom<CoordTypes>(type($coords)) `->` type($result)
  }];
  let hasVerifier = 1;
}

def KIR_StoreOp : KIR_Op<"store", [MemoryEffects<[MemWrite]>, AttrSizedOperandSegments]> {
  let summary = "write a value to a view at index and domain coordinates";
  let description = [{
    ```mlir
    kir.store %row, %y[%m, %dn] : tensor<?xf32>, !kir.view<f32, [M, N], out>[index, !kir.domain]
    ```
  }];
  let arguments = (ins KIR_ScalarOrTensor:$value, KIR_View:$view, Variadic<AnyType>:$coords,
                       Optional<KIR_ScalarOrTensor>:$valid);
  let assemblyFormat = [{
    $value `,` $view `[` $coords `]` (`valid` $valid^ `:` type($valid))? attr-dict
    `:` type($value) `,` type($view) `` custom<CoordTypes>(type($coords))
  }];
  let hasVerifier = 1;
}

def KIR_ScatterOp : KIR_Op<"scatter", [MemoryEffects<[MemWrite]>, AttrSizedOperandSegments]> {
  let summary = "unique scatter: write through index-tensor coordinates";
  let description = [{
    Active destinations must be pairwise distinct (the author's obligation);
    distinct destinations make iterations of a parallel independent.

    ```mlir
    kir.scatter %rows, %out[%ids, %dd] : tensor<?x?xf32>, !kir.view<f32, [V, D], inout>[tensor<?xindex>, !kir.domain]
    ```
  }];
  let arguments = (ins KIR_ScalarOrTensor:$value, KIR_View:$view, Variadic<AnyType>:$coords,
                       Optional<KIR_ScalarOrTensor>:$valid, OptionalAttr<DenseI64ArrayAttr>:$joint);
  let assemblyFormat = [{
    $value `,` $view `[` $coords `]` (`valid` $valid^ `:` type($valid))? attr-dict
    `:` type($value) `,` type($view) `` custom<CoordTypes>(type($coords))
  }];
  let hasVerifier = 1;
}

def KIR_ScatterReduceOp : KIR_Op<"scatter_reduce", [MemoryEffects<[MemRead, MemWrite]>, AttrSizedOperandSegments]> {
  let summary = "scatter whose collisions combine with a typed pure function";
  let description = [{
    Each active update is combined into its destination with `combine(old,
    update)`; collisions are resolved in no particular order, so `combine`
    must be associative and commutative. There is no old-value result.

    ```mlir
    kir.scatter_reduce %g, %w[%ids, %dd] : tensor<?x?xf32>, !kir.view<f32, [V, D], inout>[tensor<?xindex>, !kir.domain] {
    ^bb0(%a: f32, %b: f32):
      %s = kir.binary add %a, %b : f32
      kir.yield %s : f32
    }
    ```
  }];
  let arguments = (ins KIR_ScalarOrTensor:$value, KIR_View:$view, Variadic<AnyType>:$coords,
                       Optional<KIR_ScalarOrTensor>:$valid, OptionalAttr<DenseI64ArrayAttr>:$joint);
  let regions = (region SizedRegion<1>:$combine);
  let assemblyFormat = [{
    $value `,` $view `[` $coords `]` (`valid` $valid^ `:` type($valid))? attr-dict
    `:` type($value) `,` type($view) `` custom<CoordTypes>(type($coords)) custom<BodyRegion>($combine)
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

class KIR_AtomicOp<string mnemonic, list<Trait> traits = []>
    : KIR_Op<mnemonic, !listconcat(traits, [MemoryEffects<[MemRead, MemWrite]>])> {
  let hasVerifier = 1;
}

def KIR_AtomicLoadOp : KIR_AtomicOp<"atomic_load"> {
  let summary = "atomic read (order relaxed or acquire)";
  let description = [{
    ```mlir
    %f = kir.atomic_load %flags[%i] order acquire sharing invocation : !kir.view<i32, [N], inout>[index] -> i32
    ```
  }];
  let arguments = (ins KIR_View:$view, Variadic<AnyType>:$coords,
                       OptionalAttr<KIR_AtomicOrder>:$order, OptionalAttr<KIR_SharingDomain>:$sharing);
  let results = (outs KIR_ScalarOrTensor:$result);
  let assemblyFormat = [{
    $view `[` $coords `]` (`order` $order^)? (`sharing` $sharing^)? attr-dict
    `:` type($view) `` custom<CoordTypes>(type($coords)) `->` type($result)
  }];
}

def KIR_AtomicStoreOp : KIR_AtomicOp<"atomic_store"> {
  let summary = "atomic write (order relaxed or release)";
  let description = [{
    ```mlir
    kir.atomic_store %one, %flags[%i] order release sharing invocation : i32, !kir.view<i32, [N], inout>[index]
    ```
  }];
  let arguments = (ins KIR_ScalarOrTensor:$value, KIR_View:$view, Variadic<AnyType>:$coords,
                       OptionalAttr<KIR_AtomicOrder>:$order, OptionalAttr<KIR_SharingDomain>:$sharing);
  let assemblyFormat = [{
    $value `,` $view `[` $coords `]` (`order` $order^)? (`sharing` $sharing^)? attr-dict
    `:` type($value) `,` type($view) `` custom<CoordTypes>(type($coords))
  }];
}

def KIR_AtomicRMWOp : KIR_AtomicOp<"atomic_rmw"> {
  let summary = "atomic read-modify-write returning the old value";
  let description = [{
    ```mlir
    %old = kir.atomic_rmw add %v, %acc[%i] order relaxed sharing invocation : f32, !kir.view<f32, [N], inout>[index] -> f32
    ```
  }];
  let arguments = (ins KIR_RMWKind:$kind, KIR_ScalarOrTensor:$value, KIR_View:$view,
                       Variadic<AnyType>:$coords,
                       OptionalAttr<KIR_AtomicOrder>:$order, OptionalAttr<KIR_SharingDomain>:$sharing);
  let results = (outs KIR_ScalarOrTensor:$old);
  let assemblyFormat = [{
    $kind $value `,` $view `[` $coords `]` (`order` $order^)? (`sharing` $sharing^)? attr-dict
    `:` type($value) `,` type($view) `` custom<CoordTypes>(type($coords)) `->` type($old)
  }];
}

def KIR_AtomicCASOp : KIR_AtomicOp<"atomic_cas", [AllTypesMatch<["expected", "desired", "old"]>]> {
  let summary = "atomic compare-and-swap returning the old value and success";
  let description = [{
    The failure order is derived from `order` (release gives relaxed, acq_rel
    gives acquire).

    ```mlir
    %old, %ok = kir.atomic_cas %expect, %new, %lock[%i] order acq_rel sharing invocation
        : i32, !kir.view<i32, [N], inout>[index] -> i1
    ```
  }];
  let arguments = (ins KIR_ScalarOrTensor:$expected, KIR_ScalarOrTensor:$desired, KIR_View:$view,
                       Variadic<AnyType>:$coords,
                       OptionalAttr<KIR_AtomicOrder>:$order, OptionalAttr<KIR_SharingDomain>:$sharing);
  let results = (outs KIR_ScalarOrTensor:$old, KIR_ScalarOrTensor:$success);
  let extraClassDeclaration = [{
    /// Failure order derived from the success order (DSL effects rules).
    ::tessel::kir::AtomicOrder getFailureOrder();
  }];
  let assemblyFormat = [{
    $expected `,` $desired `,` $view `[` $coords `]` (`order` $order^)? (`sharing` $sharing^)? attr-dict
    `:` type($expected) `,` type($view) `` custom<CoordTypes>(type($coords)) `->` type($success)
  }];
}

def KIR_BufferOp : KIR_Op<"buffer", [MemoryEffects<[MemAlloc, MemWrite]>, AttrSizedOperandSegments]> {
  let summary = "a kernel-local logical buffer";
  let description = [{
    One domain per axis of the buffer's tensor type. Exactly one of `init` (a
    full initial value: a value of the buffer's type, or a scalar filling it)
    or `first_write` (uninitialized: every active read must follow a write of
    that element in the same instance) is given.

    ```mlir
    %acc = kir.buffer over(%dn) init %zero : f32 : !kir.buffer<tensor<?xf32>>
    %tmp = kir.buffer over(%dn) first_write : !kir.buffer<tensor<?xf32>>
    ```
  }];
  let arguments = (ins Variadic<KIR_Domain>:$domains, Optional<KIR_ScalarOrTensor>:$init,
                       UnitAttr:$first_write);
  let results = (outs KIR_Buffer:$result);
  let assemblyFormat = [{
    `over` `(` $domains `)` (`init` $init^ `:` type($init))? (`first_write` $first_write^)? attr-dict
    `:` type($result)
  }];
  let hasVerifier = 1;
}

def KIR_BufferLoadOp : KIR_Op<"buffer_load", [MemoryEffects<[MemRead]>]> {
  let summary = "read a logical buffer";
  let description = [{
    ```mlir
    %v = kir.buffer_load %acc[%dn] : !kir.buffer<tensor<?xf32>>[!kir.domain] -> tensor<?xf32>
    ```
  }];
  let arguments = (ins KIR_Buffer:$buffer, Variadic<AnyType>:$coords);
  let results = (outs KIR_ScalarOrTensor:$result);
  let assemblyFormat = "$buffer `[` $coords `]` attr-dict `:` type($buffer) `` custom<CoordTypes>(type($coords)) `->` type($result)";
  let hasVerifier = 1;
}

def KIR_BufferStoreOp : KIR_Op<"buffer_store", [MemoryEffects<[MemWrite]>]> {
  let summary = "write a logical buffer";
  let description = [{
    ```mlir
    kir.buffer_store %v, %acc[%dn] : tensor<?xf32>, !kir.buffer<tensor<?xf32>>[!kir.domain]
    ```
  }];
  let arguments = (ins KIR_ScalarOrTensor:$value, KIR_Buffer:$buffer, Variadic<AnyType>:$coords);
  let assemblyFormat = "$value `,` $buffer `[` $coords `]` attr-dict `:` type($value) `,` type($buffer) `` custom<CoordTypes>(type($coords))";
  let hasVerifier = 1;
}

#endif // TESSEL_KIR_EFFECT_OPS
