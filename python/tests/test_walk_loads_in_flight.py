"""A lanewise walk whose lanes each load more than 16 bytes an iteration (corpus 291's causal conv: four
bf16 taps and five i32 sequence ids, 28 bytes a lane) holds those loads in registers at once
(Resources.h, inFlightLoadBytes): a call's covering BLOCK narrows to the largest candidate whose loads
fit, rather than the whole row at 16 warps (128 registers a thread and spills, sm_90 ptxas). The narrowed
binding walks the row in several blocks and a partial one, checked on the interpreter at odd lengths."""
from corpus_cases import H

MOD = H.load("291_causal_conv1d_seq_idx")


def defaults(shape):
    inputs = H.draw(MOD, shape, seed=3)
    views, kw = H.torch_args(MOD, shape, inputs, "cpu")
    return {n: int(v) for n, v in MOD.KERNEL.call_defaults(*views, **kw).items()}


def test_the_bench_row_narrows_to_loads_that_fit(tessel_bin):
    got = defaults(dict(B=1, D=1, L=16384))
    # 28 bytes a lane: 16384 (16 warps), 8192 (8) and 4096 (4) hold 32 lanes a thread, 224 registers of
    # loads; 2048 at 4 warps holds 16, 112 registers.
    assert (got["BLOCK"], got["WARPS"]) == (2048, 4), got
    # A short row keeps its covering block (the loads of 256 lanes fit).
    assert defaults(dict(B=1, D=1, L=131))["BLOCK"] == 256


def test_the_narrowed_walk_matches_the_reference(tessel_bin):
    # 2053 (a prime) covers to 4096 and narrows to 2048: a full block, then a partial one whose taps
    # reach back across the block boundary; two batches.
    shape = dict(B=2, D=1, L=2053)
    assert defaults(shape)["BLOCK"] == 2048
    assert H.check(MOD, shape, 0, "triton") is None
