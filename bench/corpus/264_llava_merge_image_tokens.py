"""Merging image features into the text embeddings of a vision-language model (LLaVA's
masked_scatter of image features at the image placeholder tokens): for token ids ids i64 [T] (a packed
batch), text embeddings text bf16 [T, D] and projected image features image bf16 [NI, D], where exactly
NI tokens carry the id image_token (a runtime i64), the k-th such token (in order) takes image[k] and every
other token keeps its text embedding: out bf16 [T, D]. T8192 D4096 NI2304 (four 576-patch images).
Peer: torch.compile of masked_scatter."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def llava_merge_image_tokens(ids: T.In[T.i64, ("T",)], text: T.In[T.bf16, ("T", "D")],
                             image: T.In[T.bf16, ("NI", "D")], out: T.Out[T.bf16, ("T", "D")],
                             image_token: T.i64):
    NT, D = text.shape
    NI = image.shape[0]
    toks, dims = T.domain(0, NT), T.domain(0, D)
    is_img = ids[toks] == image_token
    # the k-th image token (in order) takes image row k: k = number of image tokens before it
    rank = T.cumsum(T.where(is_img, 1, 0, dtype=T.i64), exclusive=True)
    src = T.minimum(T.cast(rank, T.index), NI - 1)
    keep = T.broadcast(is_img, over=(toks, dims), dims=[0])
    out[toks, dims] = T.where(keep, image[src, dims], text[toks, dims])


KERNEL = llava_merge_image_tokens
IMAGE_TOKEN = 32000


def inputs(shape, rng):
    NT, D, NI = shape["T"], shape["D"], shape["NI"]
    assert NI <= NT
    ids = rng.integers(0, 32000, NT).astype(np.int64)
    ids[np.sort(rng.choice(NT, NI, replace=False))] = IMAGE_TOKEN
    return dict(ids=ids, text=rng.standard_normal((NT, D)).astype(np.float32),
                image=rng.standard_normal((NI, D)).astype(np.float32), image_token=IMAGE_TOKEN)


def reference(ids, text, image, image_token):
    out = text.astype(np.float64).copy()
    out[ids == image_token] = image
    return dict(out=out)


def peer(ids, text, image, image_token):
    mask = (ids == image_token).unsqueeze(-1).expand_as(text)
    return dict(out=text.masked_scatter(mask, image))


def OPS(shape):
    return 0, 2 * (2 * shape["T"] * shape["D"]) + 8 * shape["T"]


TEST_SHAPES = [dict(T=1, D=1, NI=1), dict(T=37, D=17, NI=11), dict(T=263, D=129, NI=64)]
BENCH_SHAPE = dict(T=8192, D=4096, NI=2304)
TOLERANCE = dict(rtol=0.0, atol=0.0)
PEER = "torch.compile"
