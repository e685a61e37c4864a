// RUN: tessel compile %tessel_src/examples/kir/histogram.mlir --target=ptx --emit=device --param HBINS=1024 --param BLOCK=4096 --param BLOCK_P=262144 --param THREADS=512 | FileCheck %s --check-prefix=STATIC
// RUN: tessel compile %tessel_src/examples/kir/histogram.mlir --target=ptx --emit=device --param HBINS=32768 --param HPASSES=2 --param BLOCK=4096 --param BLOCK_P=524288 --param THREADS=1024 | FileCheck %s --check-prefix=DYNAMIC
// RUN: tessel compile %tessel_src/examples/kir/histogram.mlir --target=ptx --param HBINS=32768 --param HPASSES=2 --param BLOCK=4096 --param BLOCK_P=524288 --param THREADS=1024 | FileCheck %s --check-prefix=PTX
// RUN: tessel compile %s --target=ptx --emit=device | FileCheck %s --check-prefix=BLOCK
// RUN: tessel compile %tessel_src/examples/kir/histogram.mlir --target=ptx --emit=wrapper | FileCheck %s --check-prefix=DOMAIN

// COM: A loop whose carried counts start at zero and add one pgpu.histogram per iteration keeps
// COM: them in one shared array for the whole loop: zeroed once, the elements added by shared-memory
// COM: atomics, read once after it. The loops of a stored histogram (bin ranges, the split-off partial
// COM: block) share that array: one `counts` array, no per-block array of the bins.
// STATIC: llvm.mlir.global internal @histogram$g1_counts1024() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<1024 x i32>
// STATIC-NOT: !llvm.array<1024 x i32>
// STATIC: gpu.func @histogram$g1(
// STATIC: llvm.atomicrmw add %{{.*}}, %{{.*}} monotonic : !llvm.ptr<3>, i32

// COM: An array past the static shared memory (40 KiB of 48 beside staging) is the CTA's dynamic
// COM: shared memory: an extern array whose name states its bytes, which the launcher opts into.
// DYNAMIC: llvm.mlir.global external @histogram$g1_counts32768_dynamic131072() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i32>
// DYNAMIC-NOT: !llvm.array<32768 x i32>
// PTX: .extern .shared .align 16 .b8 histogram$g1_counts32768_dynamic131072[];

// COM: The PTX provider keeps HBINS's whole declared domain (Triton narrows it to 2048): a count
// COM: array of up to 179 KiB fits (dynamic shared memory beyond the static 48 KiB), 32768 bins take
// COM: 128 KiB. HBINS x HPASSES covers B: the call's default counts in passes where no HBINS holds B.
// DOMAIN: 'HBINS': ([32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768], 32)
// DOMAIN: histogram_COVERS = {'HBINS': 'B'}
// DOMAIN-NEXT: histogram_PASSES = {'HBINS': 'HPASSES'}

// COM: Must not fire: a histogram whose counts no loop carries is counted per use (its own array,
// COM: zeroed, added and read back between barriers).
// BLOCK-LABEL: llvm.mlir.global internal @once_shared{{[0-9]+}}() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<16 x i32>
// BLOCK-NOT: counts
// BLOCK: gpu.func @once(
// BLOCK: gpu.barrier
// BLOCK: llvm.atomicrmw add %{{.*}}, %{{.*}} monotonic : !llvm.ptr<3>, i32
// BLOCK: gpu.barrier
// BLOCK: llvm.load
// BLOCK: gpu.barrier
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @once(%x: !pgpu.view<i32, [N], in>, %h: !pgpu.view<i32, [16], out>) {
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0 : i32
      %t = arith.constant true
      %N = pgpu.extent %x[0] : !pgpu.view<i32, [N], in>
      %n = pgpu.iota %c0 : !pgpu.fragment<index, [64]>
      %Ns = pgpu.splat %N : index -> !pgpu.fragment<index, [64]>
      %in = pgpu.cmp lt %n, %Ns : !pgpu.fragment<index, [64]>
      %v = pgpu.load %x[%n] valid %in : !pgpu.fragment<i1, [64]> fill %z : i32 : !pgpu.view<i32, [N], in>[!pgpu.fragment<index, [64]>] -> !pgpu.fragment<i32, [64]>
      %bin = pgpu.cast %v : !pgpu.fragment<i32, [64]> to !pgpu.fragment<index, [64]>
      %counts = pgpu.histogram %bin valid %in : !pgpu.fragment<index, [64]>, !pgpu.fragment<i1, [64]> -> !pgpu.fragment<i32, [16]>
      %at = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %ok = pgpu.splat %t : i1 -> !pgpu.fragment<i1, [16]>
      pgpu.store %counts, %h[%at] valid %ok : !pgpu.fragment<i1, [16]> : !pgpu.fragment<i32, [16]>, !pgpu.view<i32, [16], out>[!pgpu.fragment<index, [16]>]
      pgpu.yield
    }
    pgpu.return
  }
}
