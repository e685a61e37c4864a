"""ViT patch embedding: images [N, C, HI, WI] f16 (C=3, 224x224) cut into 16x16 patches (row-major over the
HI//16 x WI//16 grid), each flattened in (channel, row, col) order to C*256 = 768 values, projected:
out [N, NP, E] = patches @ W^T + b with W [E, C*256] f16 (E=768), b [E] f32, out f16 (f32 accumulation).
The image is read directly (no separate im2col buffer). N=64 (NP=196). Peer: torch.compile
(F.conv2d with a 16x16 stride-16 kernel, flatten, transpose)."""
import numpy as np
import tessel
import tessel.language as T

PATCH = 16


@tessel.kernel
def patch_embed(img: T.In[T.f16, ("N", "C", "HI", "WI")], w: T.In[T.f16, ("E", "K")],
                b: T.In[T.f32, ("E",)], out: T.Out[T.f16, ("N", "NP", "E")]):
    N, C, HI, WI = img.shape
    E, K = w.shape                                        # K = C * 256
    NP = out.shape[1]                                     # (HI // 16) * (WI // 16)
    gw = WI // PATCH
    patches, ks, es = T.domain(0, NP), T.domain(0, K), T.domain(0, E)
    p, kk = T.indices(patches), T.indices(ks)
    grid = (patches, ks)
    ch = T.broadcast(kk // (PATCH * PATCH), over=grid, dims=[1])
    row = T.broadcast((p // gw) * PATCH, over=grid, dims=[0]) + (kk // PATCH) % PATCH
    col = T.broadcast((p % gw) * PATCH, over=grid, dims=[0]) + kk % PATCH
    for n in T.parallel(T.domain(0, N)):
        x = img[n, ch, row, col]                           # [NP, K] patches of image n
        acc = T.matmul(x, w[es, ks], transpose_rhs=True, init=b[es])
        out[n, patches, es] = T.cast(acc, T.f16)


KERNEL = patch_embed
CONSTEXPRS = {}


def inputs(shape, rng):
    N, C, HI, WI, E = (shape[n] for n in ("N", "C", "HI", "WI", "E"))
    assert shape["K"] == C * PATCH * PATCH and shape["NP"] == (HI // PATCH) * (WI // PATCH)
    return dict(img=rng.standard_normal((N, C, HI, WI)).astype(np.float16),
                w=(rng.standard_normal((E, C * PATCH * PATCH)) / np.sqrt(C * PATCH * PATCH)).astype(np.float16),
                b=rng.standard_normal(E).astype(np.float32))


def reference(img, w, b):
    N, C, HI, WI = img.shape
    gh, gw = HI // PATCH, WI // PATCH
    x = img[:, :, :gh * PATCH, :gw * PATCH].astype(np.float64)
    x = x.reshape(N, C, gh, PATCH, gw, PATCH).transpose(0, 2, 4, 1, 3, 5).reshape(N, gh * gw, -1)
    return dict(out=x @ w.astype(np.float64).T + b.astype(np.float64))


def peer(img, w, b):
    import torch.nn.functional as F
    E, K = w.shape
    y = F.conv2d(img, w.view(E, img.shape[1], PATCH, PATCH), b.to(img.dtype), stride=PATCH)
    return dict(out=y.flatten(2).transpose(1, 2).contiguous())


def _shape(N, C, HI, WI, E):
    return dict(N=N, C=C, HI=HI, WI=WI, E=E, K=C * PATCH * PATCH, NP=(HI // PATCH) * (WI // PATCH))


TEST_SHAPES = [_shape(1, 1, 16, 16, 1), _shape(2, 3, 37, 50, 13), _shape(1, 3, 48, 33, 130),
               _shape(3, 2, 17, 71, 67)]
BENCH_SHAPE = _shape(64, 3, 224, 224, 768)
TOLERANCE = dict(rtol=1e-2, atol=1e-2)
PEER = "torch.compile"


def OPS(shape):
    N, NP, E, K = (shape[n] for n in ("N", "NP", "E", "K"))
    return 2 * N * NP * E * K, 2 * (N * NP * K + E * K + N * NP * E) + 4 * E
