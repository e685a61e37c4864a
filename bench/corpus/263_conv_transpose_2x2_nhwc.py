"""U-Net up-convolution: a 2x2 transposed convolution with stride 2 (nn.ConvTranspose2d(C, O, 2,
stride=2)) on channels-last data: out[n, 2h + i, 2w + j, o] = b[o] + sum_c x[n, h, w, c] * w[c, i, j, o]
for i, j in {0, 1}; x bf16 [N, H, W, C], w bf16 [C, 2, 2, O] (torch's [in, out, kH, kW] weight permuted to
channels-last), b f32 [O], out bf16 [N, 2H, 2W, O] (f32 accumulation). N16 H64 W64 C256 O128. Peer: cuDNN
via torch (F.conv_transpose2d, channels_last)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def conv_transpose_2x2(x: T.In[T.bf16, ("N", "H", "W", "C")], w: T.In[T.bf16, ("C", 2, 2, "O")],
                       b: T.In[T.f32, ("O",)], out: T.Out[T.bf16, ("N", "OH", "OW", "O")]):
    # OH = 2 * H, OW = 2 * W (separate symbols: the relation cannot be declared)
    N, H, W, C = x.shape
    ns, hs, ws, cs, os = T.domain(0, N), T.domain(0, H), T.domain(0, W), T.domain(0, C), T.domain(0, w.shape[3])
    for i in range(2):
        for j in range(2):
            acc = T.contract(x[ns, hs, ws, cs], w[cs, i, j, os], reduce=((3, 0),), acc_dtype=T.f32)
            out[ns, 2 * T.indices(hs) + i, 2 * T.indices(ws) + j, os] = T.cast(acc + b[os], T.bf16)


KERNEL = conv_transpose_2x2


def inputs(shape, rng):
    N, H, W, C, O = shape["N"], shape["H"], shape["W"], shape["C"], shape["O"]
    assert shape["OH"] == 2 * H and shape["OW"] == 2 * W
    return dict(x=rng.standard_normal((N, H, W, C)).astype(np.float32),
                w=(rng.standard_normal((C, 2, 2, O)) / np.sqrt(C)).astype(np.float32),
                b=rng.standard_normal(O).astype(np.float32))


def reference(x, w, b):
    N, H, W, C = x.shape
    O = w.shape[3]
    y = np.einsum("nhwc,cijo->nhiwjo", x.astype(np.float64), w.astype(np.float64)) + b
    return dict(out=y.reshape(N, 2 * H, 2 * W, O))


def peer(x, w, b):
    import torch.nn.functional as F
    y = F.conv_transpose2d(x.permute(0, 3, 1, 2), w.permute(0, 3, 1, 2), b.to(x.dtype), stride=2)
    return dict(out=y.permute(0, 2, 3, 1))


def OPS(shape):
    N, H, W, C, O = shape["N"], shape["H"], shape["W"], shape["C"], shape["O"]
    return 2 * N * H * W * C * 4 * O, 2 * (N * H * W * C + 4 * C * O + 4 * N * H * W * O)


TEST_SHAPES = [dict(N=1, H=1, W=1, C=1, O=1, OH=2, OW=2), dict(N=2, H=3, W=5, C=7, O=3, OH=6, OW=10),
               dict(N=1, H=7, W=9, C=19, O=5, OH=14, OW=18)]
BENCH_SHAPE = dict(N=16, H=64, W=64, C=256, O=128, OH=128, OW=128)
TOLERANCE = dict(rtol=1e-2, atol=1e-2)
PEER = "F.conv_transpose2d (cuDNN)"
