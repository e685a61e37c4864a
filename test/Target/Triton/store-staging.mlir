// A box store spelled as a tensor descriptor stages its tile in shared memory (Triton allocates the
// buffer before the persistent walk, beside the operand stages). A binding whose program would not
// fit the target's shared memory with its box stores staged spells them with pointers instead
// (Resources.h: storesStagedAt; TritonSerializer: descriptorAccess), so a wide tile keeps its
// pipeline depth, and the tuner's PRUNE compares what the binding is spelled with.
// RUN: tessel compile %tessel_src/test/Target/Triton/box-subrange.mlir --target=triton --emit=source --param=TILE_2=256 --param=STAGES=4 --remarks -o %t.wide.py 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --check-prefix=WIDE < %t.wide.py
// RUN: tessel compile %tessel_src/test/Target/Triton/box-subrange.mlir --target=triton --emit=source --param=STAGES=3 --remarks -o %t.four.py 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty
// RUN: FileCheck %s --check-prefix=FOUR < %t.four.py
// RUN: tessel compile %tessel_src/test/Target/Triton/box-subrange.mlir --target=triton --emit=source --remarks -o %t.default.py 2>&1 | FileCheck %s --check-prefix=DEEP
// RUN: FileCheck %s --check-prefix=DEFAULT < %t.default.py
// RUN: tessel compile %tessel_src/examples/kir/gemm.mlir --target=triton --emit=source --param=TILE_1=256 --param=STAGES=3 | FileCheck %s --check-prefix=GEMM
// RUN: tessel compile %tessel_src/examples/kir/gemm.mlir --target=triton --emit=source --param=TILE_1=256 --param=STAGES=2 --remarks 2>&1 | FileCheck %s --check-prefix=FITS
// RUN: tessel compile %tessel_src/examples/kir/gemm.mlir --target=triton --emit=source --param=TILE_1=256 --param=STAGES=3 --param=TMA=0 --remarks 2>&1 | FileCheck %s --check-prefix=OFF

// COM: Split-K (f16 inputs, f32 C) at 128x256x64 and 4 stages: the stages take 196608 B, C's f32 tile
// COM: 131072 B staged for each of its two stores (pgpu-zero-first's zeroing and the merge's): 458752 B
// COM: staged, past the 232448 B of sm_90. C keeps the pointer spelling; the operand tiles, walked in
// COM: the chunk loop, keep their descriptors (the H200 reported 327712 B for this binding staged with
// COM: one C store).
// REMARK: box-subrange.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: triton: the tile store keeps the pointer spelling: staged for TMA the program would need 458752 bytes of shared memory (the target has 232448), 196608 without
// WIDE: # _desc0: a's [128, 64] boxes
// WIDE-NEXT: # _desc1: b's [64, 256] boxes
// WIDE-NOT: _desc{{[0-9]+}}: c's
// WIDE: = _desc0.load(
// WIDE: _arrived{{[0-9]+}} = tl.atomic_add(
// WIDE-NOT: USE_TMA
// WIDE: tl.store(c + ({{v[0-9]+}}) * c_stride0 + ({{v[0-9]+}}) * c_stride1, {{v[0-9]+}}, mask={{v[0-9]+}})
// WIDE-NOT: .store(

// COM: Must not fire: the 128x128 binding at 3 stages fits with both of C's stores staged (98304 +
// COM: 2 x 65536 = 229376 B): C keeps its descriptor under USE_TMA, and nothing is remarked. (The
// COM: last arrival reads the merged tile and returns it to zero in one exchange, at L2.)
// QUIET-NOT: remark: triton: the tile store
// FOUR: # [[DC:_desc[0-9]+]]: c's [128, 128] boxes
// FOUR: if USE_TMA:
// FOUR-NEXT: [[DC]].store(
// FOUR: _arrived{{[0-9]+}} = tl.atomic_add(
// FOUR: = tl.where({{v[0-9]+}}, tl.atomic_xchg((arg{{[0-9]+}} + {{.*}}).to(tl.pointer_type(tl.int32)), {{.*}}, sem='relaxed', scope='gpu').to(tl.float32, bitcast=True)
// FOUR: if USE_TMA:
// FOUR-NEXT: [[DC]].store(

// COM: The untuned binding: split partials take the deepest declared pipeline that fits with their
// COM: stores through pointers (TritonLegalize: contractsIntoSplitPartials), 6 stages at 128x128.
// DEEP: remark: triton: the tile store keeps the pointer spelling
// DEFAULT: 'STAGES': ([1, 2, 3, 4, 5, 6], 6)
// DEFAULT-NOT: _desc{{[0-9]+}}: c's
// DEFAULT: _arrived{{[0-9]+}} = tl.atomic_add(
// DEFAULT: tl.store(c +

// COM: The rule is the program's, not split-K's: the dense GEMM's f32 128x256 C tile at 3 stages
// COM: (147456 + 131072 B staged) is stored with pointers; at 2 stages (229376 B) it fits staged.
// GEMM-NOT: _desc{{[0-9]+}}: c's
// GEMM: tl.store(c +
// FITS-NOT: remark: triton: the tile store
// FITS: _desc{{[0-9]+}}: c's
// FITS: _desc2.store(
// COM: Must not fire: TMA = 0 stages nothing (every access is a pointer access already).
// OFF-NOT: remark: triton: the tile store
// OFF-NOT: (made on the host)
