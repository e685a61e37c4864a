"""1x1 convolution in NCHW layout: out[n, co, h, w] = sum_ci W[co, ci] * x[n, ci, h, w] + b[co]; x [N, Ci, H, W]
f16, W [Co, Ci] f16, b [Co] f32, out [N, Co, H, W] f16 (f32 accumulation). N=32 Ci=256 Co=256 H=W=56.
Peer: torch.compile (F.conv2d with a 1x1 kernel)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def conv1x1_nchw(x: T.In[T.f16, ("N", "Ci", "H", "W")], w: T.In[T.f16, ("Co", "Ci")],
                 b: T.In[T.f32, ("Co",)], out: T.Out[T.f16, ("N", "Co", "H", "W")]):
    N, Ci, H, W = x.shape
    Co = w.shape[0]
    cis, cos, hs, ws = T.domain(0, Ci), T.domain(0, Co), T.domain(0, H), T.domain(0, W)
    for n in T.parallel(T.domain(0, N)):
        acc = T.contract(w[cos, cis], x[n, cis, hs, ws], reduce=((1, 0),), init=b[cos])   # [Co, H, W] f32
        out[n, cos, hs, ws] = T.cast(acc, T.f16)


KERNEL = conv1x1_nchw
CONSTEXPRS = {}


def inputs(shape, rng):
    N, Ci, Co, H, W = (shape[s] for s in ("N", "Ci", "Co", "H", "W"))
    return dict(x=rng.standard_normal((N, Ci, H, W)).astype(np.float16),
                w=(rng.standard_normal((Co, Ci)) / np.sqrt(Ci)).astype(np.float16),
                b=rng.standard_normal(Co).astype(np.float32))


def reference(x, w, b):
    out = np.einsum("oc,nchw->nohw", w.astype(np.float64), x.astype(np.float64))
    return dict(out=out + b.astype(np.float64)[None, :, None, None])


def peer(x, w, b):
    import torch.nn.functional as F
    Co, Ci = w.shape
    return dict(out=F.conv2d(x, w.view(Co, Ci, 1, 1), b.to(x.dtype)))


TEST_SHAPES = [dict(N=1, Ci=1, Co=1, H=1, W=1), dict(N=2, Ci=3, Co=5, H=7, W=11),
               dict(N=3, Ci=37, Co=19, H=13, W=5), dict(N=1, Ci=130, Co=67, H=9, W=17)]
BENCH_SHAPE = dict(N=32, Ci=256, Co=256, H=56, W=56)
TOLERANCE = dict(rtol=1e-2, atol=1e-2)
PEER = "torch.compile"


def OPS(shape):
    N, Ci, Co, H, W = (shape[s] for s in ("N", "Ci", "Co", "H", "W"))
    return 2 * N * Co * Ci * H * W, 2 * (N * Ci * H * W + Co * Ci + N * Co * H * W) + 4 * Co
