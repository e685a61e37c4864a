// RUN: tessel compile %s --target=triton --emit=source | FileCheck %s
// RUN: sed 's/kir.unary tanh %%18 :/kir.unary tanh %%18 {approximate} :/' %s > %t.approx.mlir
// RUN: tessel compile %t.approx.mlir --target=triton --emit=source | FileCheck %s --check-prefix=APPROX

// COM: bench/corpus/17_softcap_attention (source numerics: two folds over key tiles, s -> cap * tanh(s / cap)
// COM: in both). Its accurate tanh is libdevice's, which Gluon 3.6 re-exports (gl.extra.libdevice is
// COM: triton.language.extra.libdevice, the module-level `libdevice` the spellings call): the
// COM: warp-specialized Gluon spelling is declared (on by default) and calls it in the consumer. Before,
// COM: any libdevice call refused Gluon and the kernel ran its Triton spelling only.
// CHECK: softcap_attention_PARAMS = {{.*}}'GLUON': ([0, 1], 1)}
// CHECK: def _softcap_attention_consumer(
// CHECK: libdevice.tanh(
// CHECK: def _softcap_attention_loader(

// COM: Must not fire: the approximate tanh is the module's @triton.jit helper _tanh_approx (inline PTX),
// COM: which a Gluon kernel cannot call: no Gluon spelling, as before.
// APPROX-NOT: 'GLUON'
// APPROX: _tanh_approx(
// APPROX-NOT: def _softcap_attention_consumer(
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @softcap_attention(%q: !kir.view<bf16, [B, H, S, D], in>, %k: !kir.view<bf16, [B, H, S, D], in>, %v: !kir.view<bf16, [B, H, S, D], in>, %o: !kir.view<bf16, [B, H, S, D], out>, %scale: f32, %softcap: f32) {
    %0 = kir.extent "B"
    %1 = kir.extent "H"
    %2 = kir.extent "S"
    %3 = kir.extent "D"
    %4 = arith.constant 0 : index
    %5 = kir.domain %4 to %2
    %6 = kir.domain %4 to %3
    %7 = kir.domain %4 to %0
    %8 = kir.domain %4 to %1
    %15 = kir.broadcast %scale over(%5) dims [] : f32 -> tensor<?xf32>
    %17 = kir.broadcast %softcap over(%5) dims [] : f32 -> tensor<?xf32>
    %21 = kir.indices %5 : tensor<?xindex>
    %24 = arith.constant 0xFF800000 : f32
    %25 = kir.broadcast %24 over(%5) dims [] : f32 -> tensor<?xf32>
    %37 = arith.constant 0.0 : f32
    kir.parallel %7, %8, %5 {
    ^bb0(%9: index, %10: index, %11: index):
      %12 = kir.load %k[%9, %10, %5, %6] : !kir.view<bf16, [B, H, S, D], in>[index, index, !kir.domain, !kir.domain] -> tensor<?x?xbf16>
      %13 = kir.load %q[%9, %10, %11, %6] : !kir.view<bf16, [B, H, S, D], in>[index, index, index, !kir.domain] -> tensor<?xbf16>
      %14 = kir.contract %12, %13 reduce([1], [0]) batch([], []) : tensor<?x?xbf16>, tensor<?xbf16> -> tensor<?xf32>
      %16 = kir.binary mul %14, %15 : tensor<?xf32>
      %18 = kir.binary div %16, %17 : tensor<?xf32>
      %19 = kir.unary tanh %18 : tensor<?xf32>
      %20 = kir.binary mul %17, %19 : tensor<?xf32>
      %22 = kir.broadcast %11 over(%5) dims [] : index -> tensor<?xindex>
      %23 = kir.cmp le %21, %22 : tensor<?xindex>
      %26 = kir.select %23, %20, %25 : tensor<?xi1>, tensor<?xf32>
      %30 = kir.reduce %26 axes [0] identity(%24 : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%27: f32, %28: f32):
        %29 = kir.binary max %27, %28 : f32
        kir.yield %29 : f32
      }
      %31 = kir.broadcast %30 over(%5) dims [] : f32 -> tensor<?xf32>
      %32 = kir.binary sub %26, %31 : tensor<?xf32>
      %33 = kir.unary exp %32 : tensor<?xf32>
      %34 = kir.cast %33 : tensor<?xf32> to tensor<?xbf16>
      %35 = kir.load %v[%9, %10, %5, %6] : !kir.view<bf16, [B, H, S, D], in>[index, index, !kir.domain, !kir.domain] -> tensor<?x?xbf16>
      %36 = kir.contract %34, %35 reduce([0], [0]) batch([], []) : tensor<?xbf16>, tensor<?x?xbf16> -> tensor<?xf32>
      %41 = kir.reduce %33 axes [0] identity(%37 : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%38: f32, %39: f32):
        %40 = kir.binary add %38, %39 : f32
        kir.yield %40 : f32
      }
      %42 = kir.broadcast %41 over(%6) dims [] : f32 -> tensor<?xf32>
      %43 = kir.binary div %36, %42 : tensor<?xf32>
      %44 = kir.cast %43 : tensor<?xf32> to tensor<?xbf16>
      kir.store %44, %o[%9, %10, %11, %6] : tensor<?xbf16>, !kir.view<bf16, [B, H, S, D], out>[index, index, index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

