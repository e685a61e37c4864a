"""Nearest-neighbour 2x upsample then add a skip connection: out[n, h, w, c] = x[n, h//2, w//2, c] + skip[n, h, w, c], NHWC f16, N16 H128 W128 (output) C256. Peer: torch.compile(F.interpolate(nearest) + add) with layouts."""
import numpy as np

import tessel
import tessel.language as T


@tessel.kernel
def upsample_skip_add(x: T.In[T.f16, ("N", "H2", "W2", "C")], skip: T.In[T.f16, ("N", "H", "W", "C")],
                      out: T.Out[T.f16, ("N", "H", "W", "C")]):
    N, H, W, C = skip.shape
    ns, hs, ws, cs = T.domain(0, N), T.domain(0, H), T.domain(0, W), T.domain(0, C)
    src_h, src_w = T.indices(hs) // 2, T.indices(ws) // 2
    out[ns, hs, ws, cs] = x[ns, src_h, src_w, cs] + skip[ns, hs, ws, cs]


KERNEL = upsample_skip_add


def inputs(shape, rng):
    N, H, W, C = shape["N"], shape["H"], shape["W"], shape["C"]
    assert shape["H2"] == H // 2 and shape["W2"] == W // 2
    return {"x": rng.standard_normal((N, H // 2, W // 2, C)).astype(np.float16),
            "skip": rng.standard_normal((N, H, W, C)).astype(np.float16)}


def reference(x, skip):
    up = x.repeat(2, axis=1).repeat(2, axis=2)
    return {"out": (up.astype(np.float32) + skip.astype(np.float32)).astype(np.float16)}


def peer(x, skip):
    import torch.nn.functional as F
    up = F.interpolate(x.permute(0, 3, 1, 2), scale_factor=2, mode="nearest")
    return {"out": (up.permute(0, 2, 3, 1) + skip).contiguous()}


def _s(N, H2, W2, C):
    return dict(N=N, H2=H2, W2=W2, H=2 * H2, W=2 * W2, C=C)


TEST_SHAPES = [_s(1, 1, 1, 1), _s(2, 3, 5, 7), _s(3, 7, 13, 17)]
BENCH_SHAPE = _s(16, 64, 64, 256)
TOLERANCE = dict(rtol=1e-3, atol=1e-3)
PEER = "torch.compile(F.interpolate(nearest) + add)"
