//===- PGPUAccessOps.td - pgpu accesses (seed 000 §6) ------*- tablegen -*-===//
//
// Every access names its resource, gives one coordinate per source axis (an
// index scalar, or an index fragment with exactly the accessed value's shape),
// and carries validity (an i1 scalar or fragment of that shape) and its fill
// (reads) or effect (writes). An invalid read performs no access and returns
// the fill; an invalid write has no effect.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_PGPU_ACCESS_OPS
#define TESSEL_PGPU_ACCESS_OPS

class PGPU_ReadOp<string mnemonic, string what> : PGPU_Op<mnemonic, [MemoryEffects<[MemRead]>]> {
  let summary = "read " # what # " at explicit coordinates with validity and fill";
  let arguments = (ins PGPU_View:$view, Variadic<AnyType>:$coords, PGPU_Value:$valid, PGPU_Scalar:$fill);
  let results = (outs PGPU_Value:$result);
  let assemblyFormat = [{
    $view `[` $coords `]` `valid` $valid `:` type($valid) `fill` $fill `:` type($fill) attr-dict
    `:` type($view) `[` type($coords) `]` `->` type($result)
  }];
  let hasVerifier = 1;
}

def PGPU_LoadOp : PGPU_ReadOp<"load", "a view"> {
  let description = [{
    ```mlir
    %a = pgpu.load %A[%mi, %ki] valid %ok : !pgpu.fragment<i1, [BM, BK]> fill %z : f16
        : !pgpu.view<f16, [M, K], in>[!pgpu.fragment<index, [BM, BK]>, !pgpu.fragment<index, [BM, BK]>]
        -> !pgpu.fragment<f16, [BM, BK]>
    ```
  }];
}

def PGPU_GatherOp : PGPU_ReadOp<"gather", "a view through data-dependent coordinates"> {
  let description = [{
    Like `pgpu.load`, for coordinates computed from loaded data (index
    relations); kept distinct so analyses never assume affine coordinates.

    ```mlir
    %rows = pgpu.gather %table[%ids, %d] valid %ok : !pgpu.fragment<i1, [BT, D]> fill %z : f16
        : !pgpu.view<f16, [V, D], in>[!pgpu.fragment<index, [BT, D]>, !pgpu.fragment<index, [BT, D]>]
        -> !pgpu.fragment<f16, [BT, D]>
    ```
  }];
}

class PGPU_WriteOp<string mnemonic, string what, list<Trait> traits = []>
    : PGPU_Op<mnemonic, !listconcat([MemoryEffects<[MemWrite]>], traits)> {
  let summary = what;
  let arguments = (ins PGPU_Value:$value, PGPU_View:$view, Variadic<AnyType>:$coords, PGPU_Value:$valid);
  let assemblyFormat = [{
    $value `,` $view `[` $coords `]` `valid` $valid `:` type($valid) attr-dict
    `:` type($value) `,` type($view) `[` type($coords) `]`
  }];
  let hasVerifier = 1;
}

def PGPU_StoreOp : PGPU_WriteOp<"store", "write a view at explicit coordinates"> {
  let description = [{
    ```mlir
    pgpu.store %acc, %C[%mi, %ni] valid %ok : !pgpu.fragment<i1, [BM, BN]>
        : !pgpu.fragment<f32, [BM, BN]>, !pgpu.view<f32, [M, N], out>[!pgpu.fragment<index, [BM, BN]>, !pgpu.fragment<index, [BM, BN]>]
    ```
  }];
}

def PGPU_ScatterOp : PGPU_WriteOp<"scatter", "unique scatter: active destinations are pairwise distinct"> {
  let description = [{
    ```mlir
    pgpu.scatter %v, %out[%rows, %d] valid %ok : !pgpu.fragment<i1, [BT, D]>
        : !pgpu.fragment<f32, [BT, D]>, !pgpu.view<f32, [V, D], inout>[!pgpu.fragment<index, [BT, D]>, !pgpu.fragment<index, [BT, D]>]
    ```
  }];
}

def PGPU_ScatterReduceOp : PGPU_Op<"scatter_reduce", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "scatter whose collisions combine with a typed pure function";
  let description = [{
    The target is a writable view or an invocation-workspace buffer (a
    partial result merged by many programs before its finalization).

    ```mlir
    pgpu.scatter_reduce %g, %W[%rows, %d] valid %ok : !pgpu.fragment<i1, [BT, D]>
        : !pgpu.fragment<f32, [BT, D]>, !pgpu.view<f32, [V, D], inout>[!pgpu.fragment<index, [BT, D]>, !pgpu.fragment<index, [BT, D]>] {
    ^bb0(%a: f32, %b: f32):
      %s = pgpu.binary add %a, %b : f32
      pgpu.yield %s : f32
    }
    ```
  }];
  let arguments = (ins PGPU_Value:$value, AnyTypeOf<[PGPU_View, PGPU_Buffer]>:$view, Variadic<AnyType>:$coords,
                       PGPU_Value:$valid);
  let regions = (region SizedRegion<1>:$combine);
  let assemblyFormat = [{
    $value `,` $view `[` $coords `]` `valid` $valid `:` type($valid) attr-dict
    `:` type($value) `,` type($view) `[` type($coords) `]` custom<BodyRegion>($combine)
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def PGPU_AtomicRMWOp : PGPU_Op<"atomic_rmw", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "atomic read-modify-write with order, sharing domain and old-value result";
  let description = [{
    The provider's scope is derived from `sharing` and the program mapping,
    never chosen by the serializer.

    ```mlir
    %old = pgpu.atomic_rmw add %v, %acc[%i] valid %t : i1 order relaxed sharing invocation
        : f32, !pgpu.view<f32, [N], inout>[index] -> f32
    ```
    The target is a writable view or invocation workspace (a counter the
    program instances of one launch take work from, e.g. a dynamic segment walk's).
  }];
  let arguments = (ins KIR_RMWKind:$kind, PGPU_Value:$value, AnyTypeOf<[PGPU_View, PGPU_Buffer]>:$view,
                       Variadic<AnyType>:$coords, PGPU_Value:$valid, KIR_AtomicOrder:$order,
                       KIR_SharingDomain:$sharing);
  let results = (outs PGPU_Value:$old);
  let assemblyFormat = [{
    $kind $value `,` $view `[` $coords `]` `valid` $valid `:` type($valid) `order` $order `sharing` $sharing attr-dict
    `:` type($value) `,` type($view) `[` type($coords) `]` `->` type($old)
  }];
  let hasVerifier = 1;
}

def PGPU_AtomicCASOp : PGPU_Op<"atomic_cas", [MemoryEffects<[MemRead, MemWrite]>,
                                             AllTypesMatch<["expected", "desired", "old"]>]> {
  let summary = "atomic compare-and-swap returning {old, success}";
  let description = [{
    ```mlir
    %old, %ok = pgpu.atomic_cas %e, %d, %lock[%i] valid %t : i1 order acq_rel sharing invocation
        : i32, !pgpu.view<i32, [N], inout>[index] -> i1
    ```
  }];
  let arguments = (ins PGPU_Value:$expected, PGPU_Value:$desired, PGPU_View:$view, Variadic<AnyType>:$coords,
                       PGPU_Value:$valid, KIR_AtomicOrder:$order, KIR_SharingDomain:$sharing);
  let results = (outs PGPU_Value:$old, PGPU_Value:$success);
  let assemblyFormat = [{
    $expected `,` $desired `,` $view `[` $coords `]` `valid` $valid `:` type($valid) `order` $order `sharing` $sharing
    attr-dict `:` type($expected) `,` type($view) `[` type($coords) `]` `->` type($success)
  }];
  let hasVerifier = 1;
}

def PGPU_AtomicLoadOp : PGPU_Op<"atomic_load", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "atomic read (relaxed or acquire)";
  let description = [{
    ```mlir
    %f = pgpu.atomic_load %flags[%i] valid %t : i1 order acquire sharing invocation : !pgpu.view<i32, [N], inout>[index] -> i32
    ```
    The target is a writable view or invocation workspace (a flag the
    programs of one launch hand to each other, e.g. a chained region scan's).
  }];
  let arguments = (ins AnyTypeOf<[PGPU_View, PGPU_Buffer]>:$view, Variadic<AnyType>:$coords, PGPU_Value:$valid,
                       KIR_AtomicOrder:$order, KIR_SharingDomain:$sharing);
  let results = (outs PGPU_Value:$result);
  let assemblyFormat = [{
    $view `[` $coords `]` `valid` $valid `:` type($valid) `order` $order `sharing` $sharing attr-dict
    `:` type($view) `[` type($coords) `]` `->` type($result)
  }];
  let hasVerifier = 1;
}

def PGPU_AtomicStoreOp : PGPU_Op<"atomic_store", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "atomic write (relaxed or release)";
  let description = [{
    ```mlir
    pgpu.atomic_store %one, %flags[%i] valid %t : i1 order release sharing invocation : i32, !pgpu.view<i32, [N], inout>[index]
    ```
    The target is a writable view or invocation workspace.
  }];
  let arguments = (ins PGPU_Value:$value, AnyTypeOf<[PGPU_View, PGPU_Buffer]>:$view, Variadic<AnyType>:$coords, PGPU_Value:$valid,
                       KIR_AtomicOrder:$order, KIR_SharingDomain:$sharing);
  let assemblyFormat = [{
    $value `,` $view `[` $coords `]` `valid` $valid `:` type($valid) `order` $order `sharing` $sharing attr-dict
    `:` type($value) `,` type($view) `[` type($coords) `]`
  }];
  let hasVerifier = 1;
}

def PGPU_AllocOp : PGPU_Op<"alloc", [MemoryEffects<[MemAlloc, MemWrite]>]> {
  let summary = "a program- or iteration-private buffer";
  let description = [{
    Exactly one of `init` (a full initial value: a scalar fill or a fragment
    of the buffer's shape) or `first_write` (no default fill; every active read
    must follow a write). The allocation's owner is the program instance
    (`program`) or the current iteration of the innermost enclosing loop
    (`iteration`); workspace buffers are kernel arguments instead.

    ```mlir
    %acc = pgpu.alloc init %z : f32 : !pgpu.buffer<f32, [BM, BN], program>
    ```
  }];
  let arguments = (ins Optional<PGPU_Value>:$init, UnitAttr:$first_write);
  let results = (outs PGPU_Buffer:$result);
  let assemblyFormat = [{
    (`init` $init^ `:` type($init))? (`first_write` $first_write^)? attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
}

def PGPU_BufferLoadOp : PGPU_Op<"buffer_load", [MemoryEffects<[MemRead]>]> {
  let summary = "read a buffer at explicit coordinates with validity and fill";
  let description = [{
    ```mlir
    %v = pgpu.buffer_load %acc[%i] valid %t : i1 fill %z : f32 : !pgpu.buffer<f32, [BM], program>[index] -> f32
    ```
  }];
  let arguments = (ins PGPU_Buffer:$buffer, Variadic<AnyType>:$coords, PGPU_Value:$valid, PGPU_Scalar:$fill);
  let results = (outs PGPU_Value:$result);
  let assemblyFormat = [{
    $buffer `[` $coords `]` `valid` $valid `:` type($valid) `fill` $fill `:` type($fill) attr-dict
    `:` type($buffer) `[` type($coords) `]` `->` type($result)
  }];
  let hasVerifier = 1;
}

def PGPU_BufferStoreOp : PGPU_Op<"buffer_store", [MemoryEffects<[MemWrite]>]> {
  let summary = "write a buffer at explicit coordinates with validity";
  let description = [{
    ```mlir
    pgpu.buffer_store %v, %acc[%i] valid %t : i1 : f32, !pgpu.buffer<f32, [BM], program>[index]
    ```
  }];
  let arguments = (ins PGPU_Value:$value, PGPU_Buffer:$buffer, Variadic<AnyType>:$coords, PGPU_Value:$valid);
  let assemblyFormat = [{
    $value `,` $buffer `[` $coords `]` `valid` $valid `:` type($valid) attr-dict
    `:` type($value) `,` type($buffer) `[` type($coords) `]`
  }];
  let hasVerifier = 1;
}

#endif // TESSEL_PGPU_ACCESS_OPS
