"""ShuffleNet channel shuffle with G groups on NCHW f16: view the channels as [G, C/G], transpose to
[C/G, G], flatten: out[n, j*G + i, h, w] = x[n, i*(C/G) + j, h, w]. N=32 C=256 H=W=56 G=4.
Peer: torch.compile of nn.ChannelShuffle's view/transpose/contiguous."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def channel_shuffle(x: T.In[T.f16, ("N", "C", "H", "W")], out: T.Out[T.f16, ("N", "C", "H", "W")],
                    G: T.Constexpr[int] = 4):
    N, C, H, W = x.shape                      # C % G == 0 (asserted by the caller)
    per = C // G
    hs, ws = T.domain(0, H), T.domain(0, W)
    for n, c in T.parallel(T.domain(0, N), T.domain(0, C)):
        src = (c % G) * per + c // G           # output channel c = j*G + i reads input channel i*per + j
        out[n, c, hs, ws] = x[n, src, hs, ws]


KERNEL = channel_shuffle
CONSTEXPRS = {"G": 4}


def inputs(shape, rng):
    N, C, H, W = (shape[n] for n in ("N", "C", "H", "W"))
    assert C % CONSTEXPRS["G"] == 0
    return dict(x=rng.standard_normal((N, C, H, W)).astype(np.float16))


def reference(x):
    N, C, H, W = x.shape
    G = CONSTEXPRS["G"]
    return dict(out=x.reshape(N, G, C // G, H, W).transpose(0, 2, 1, 3, 4).reshape(N, C, H, W))


def peer(x):
    N, C, H, W = x.shape
    G = CONSTEXPRS["G"]
    return dict(out=x.view(N, G, C // G, H, W).transpose(1, 2).contiguous().view(N, C, H, W))


TEST_SHAPES = [dict(N=1, C=4, H=1, W=1), dict(N=2, C=12, H=7, W=5), dict(N=3, C=20, H=13, W=17),
               dict(N=1, C=64, H=11, W=67)]
BENCH_SHAPE = dict(N=32, C=256, H=56, W=56)
TOLERANCE = dict(rtol=0.0, atol=0.0)
PEER = "torch.compile"


def OPS(shape):
    N, C, H, W = (shape[n] for n in ("N", "C", "H", "W"))
    return 0, 2 * 2 * N * C * H * W
