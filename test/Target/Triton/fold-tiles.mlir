// RUN: tessel compile %tessel_src/bench/corpus/79_alibi_causal_attention.py:alibi_causal_attention --target=triton --emit=source | FileCheck %s --check-prefix=CAUSAL
// RUN: tessel compile %tessel_src/bench/corpus/76_streaming_sink_attention.py:streaming_sink_attention --target=triton --emit=source | FileCheck %s --check-prefix=BAND
// RUN: tessel compile %tessel_src/bench/corpus/42_sliding_window_attention.py:sliding_window_attention --target=triton --emit=source | FileCheck %s --check-prefix=RUNTIME
// RUN: tessel compile %tessel_src/bench/corpus/20_cross_attention.py:cross_attention --target=triton --emit=source | FileCheck %s --check-prefix=NONE
// RUN: tessel compile %tessel_src/examples/kir/gemm.mlir --target=triton --emit=source | FileCheck %s --check-prefix=NONE

// COM: <kernel>_FOLD_TILES(p, _v, _c): the tiles the walk of the program at group coordinates _c steps
// COM: through, where a fold's range was narrowed per block (pgpu-narrow-fold-ranges, seed 002 §3.5): a
// COM: call's default sizes the fold's tile by the walk's length (python/tessel/_fold_tiles.py;
// COM: python/tests/test_fold_tiles.py counts the walks against the predicate). Each bound is spelled once,
// COM: as a local, and each walk counts under the launch-fact guards around it (the D <= BLOCK_D branch,
// COM: PAIR_BLOCKS and FOLD_SPLIT variants).
// COM: Causal: the query block (coordinate 2) bounds the walk; coordinate 3 is the fold split's segment.
// CAUSAL: def alibi_causal_attention_FOLD_TILES(p, _v, _c):
// CAUSAL: _t{{[0-9]+}} = p['BLOCK_S_']
// CAUSAL: _t{{[0-9]+}} = (_t{{[0-9]+}} - _c[2])
// CAUSAL: return (max(-(-(_t{{[0-9]+}} - _t{{[0-9]+}}) // _t{{[0-9]+}}), 0) if
// CAUSAL: alibi_causal_attention_FOLD_AXES = (2, 3, )
// CAUSAL: def alibi_causal_attention_GROUP_EXTENTS(p, _v):
// CAUSAL-NEXT: """
// CAUSAL-NEXT: return (max((-((-(_v['q'].shape[0])) // (1))), 0),

// COM: A constexpr band (the last W keys and SINK sink keys): the window's width is in the bounds.
// BAND: def streaming_sink_attention_FOLD_TILES(p, _v, _c):
// BAND: - 1024)
// BAND: streaming_sink_attention_FOLD_AXES = (2, 3, )

// COM: A runtime window width (an ABI scalar) in the bounds: the walk's length is unknown to a call's
// COM: default, which then keeps the declared tiles.
// RUNTIME: sliding_window_attention_FOLD_TILES = None

// COM: Must not fire: walks that every program takes alike (cross attention's full key range, cut only by a
// COM: fold split's segments; a GEMM's K loop).
// NONE-NOT: _FOLD_TILES
// NONE-NOT: _FOLD_AXES
