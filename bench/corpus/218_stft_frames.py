"""Frame a batch of signals for an STFT: x [B, L] f32, window [W] f32, frames [B, F, W] f32 with
frames[b, f, w] = x[b, f*hop + w] * window[w], F = (L - W) // hop + 1 (no padding), hop a runtime
integer. B=8 L=2^20 W=1024 hop=256. Peer: torch.compile of x.unfold(-1, W, hop) * window."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def stft_frames(x: T.In[T.f32, ("B", "L")], window: T.In[T.f32, ("W",)],
                frames: T.Out[T.f32, ("B", "F", "W")], hop: T.i32):
    B, L = x.shape
    F, W = frames.shape[1], frames.shape[2]   # F == (L - W) // hop + 1 (asserted by the caller)
    samples, taps = T.domain(0, L), T.domain(0, W)
    win = window[taps]
    step = T.cast(hop, T.index)
    for b, f in T.parallel(T.domain(0, B), T.domain(0, F)):
        start = f * step
        frames[b, f, taps] = x[b, samples[start:start + W]] * win


KERNEL = stft_frames
CONSTEXPRS = {}


def inputs(shape, rng):
    B, L, W, F = (shape[n] for n in ("B", "L", "W", "F"))
    hop = _hop(W)
    assert F == (L - W) // hop + 1
    n = np.arange(W)
    return dict(x=rng.standard_normal((B, L)).astype(np.float32),
                window=(0.5 - 0.5 * np.cos(2 * np.pi * n / W)).astype(np.float32),   # periodic Hann
                hop=hop)


def _hop(W):
    return max(W // 4, 1)


def reference(x, window, hop):
    B, L = x.shape
    W = window.shape[0]
    F = (L - W) // hop + 1
    idx = np.arange(F)[:, None] * hop + np.arange(W)[None, :]
    return dict(frames=x.astype(np.float64)[:, idx] * window.astype(np.float64))


def peer(x, window, hop):
    return dict(frames=x.unfold(-1, window.shape[0], hop) * window)


def _shape(B, L, W):
    return dict(B=B, L=L, W=W, F=(L - W) // _hop(W) + 1)


TEST_SHAPES = [_shape(1, 1, 1), _shape(2, 37, 7), _shape(3, 1031, 64), _shape(1, 4099, 130)]
BENCH_SHAPE = _shape(8, 1 << 20, 1024)
TOLERANCE = dict(rtol=1e-6, atol=1e-6)
PEER = "torch.compile"


def OPS(shape):
    B, L, W, F = (shape[n] for n in ("B", "L", "W", "F"))
    return B * F * W, 4 * B * L + 4 * W + 4 * B * F * W
