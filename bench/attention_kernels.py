"""Attention forward written in the DSL as users write it (a region fold over the keys, the online
softmax state as the summary), in the variants issue 13 measures: full / causal, a sliding window,
an additive bias tensor and grouped-query heads. Each factory returns a fresh @tessel.kernel for one
dtype (`options`: more @tessel.kernel options, e.g. summary_emptiness=True). Nothing here is
specialized for the compiler: the same summarize/combine as examples/attention.py, with the
visibility predicate (or the bias) the variant needs. The sliding window comes twice: its width a
Constexpr (window_attention) and a runtime scalar (runtime_window_attention)."""
import math

import tessel
import tessel.language as T


def _combine():
    @tessel.fn
    def combine(ok1, m1, d1, a1, ok2, m2, d2, a2):
        m = T.where(ok2, T.where(ok1, T.maximum(m1, m2), m2), m1)
        w1 = T.where(ok1, T.exp(m1 - m), 0.0)
        w2 = T.where(ok2, T.exp(m2 - m), 0.0)
        return ok1 | ok2, m, d1 * w1 + d2 * w2, a1 * w1 + a2 * w2
    return combine


def _summary(scores, visible, v):
    some = T.any(visible)
    top = T.max(T.where(visible, scores, -math.inf))
    m = T.where(some, top, 0.0)
    p = T.where(visible, T.exp(scores - m), 0.0)
    return some, m, T.sum(p), T.vecmat(p, T.cast(v, T.f32))


def _attend(Q, K, V, O, dt, b, h, kh, s, summarize, operands, extra_sources=()):
    """Query row (b, h, s) of O: the region fold over the keys of head kh, then the normalization."""
    keys, dims = T.domain(0, K.shape[2]), T.domain(0, Q.shape[3])
    zero_row = T.zeros(dims, T.f32)
    k, v = K[b, kh, keys, dims], V[b, kh, keys, dims]
    some, m, den, acc = T.region_fold(
        sources=(k, v, T.indices(keys), *extra_sources), axis=0, identity=(False, 0.0, 0.0, zero_row),
        summarize=summarize, combine=_combine(), operands=(Q[b, h, s, dims], *operands))
    O[b, h, s, dims] = T.cast(T.where(some, acc / den, zero_row), dt)


def attention(dt, name="attention", **options):
    """CAUSAL (constexpr): key t visible to query s iff t <= s; else every key."""
    @tessel.kernel(name=name, numerics="relaxed_normalization", **options)
    def kernel(Q: T.In[dt, ("B", "H", "S", "D")], K: T.In[dt, ("B", "H", "T", "D")],
               V: T.In[dt, ("B", "H", "T", "D")], O: T.Out[dt, ("B", "H", "S", "D")],
               scale: T.f32, CAUSAL: T.Constexpr[bool] = True):
        nb, nh, ns, nd = Q.shape

        @tessel.fn
        def summarize(k, v, kpos, q, s, sc):
            scores = T.contract(q, k, reduce=((0, 1),), acc_dtype=T.f32) * sc
            visible = (kpos <= s) if CAUSAL else T.full_like(kpos, True)
            return _summary(scores, visible, v)

        for b, h, s in T.parallel(T.domain(0, nb), T.domain(0, nh), T.domain(0, ns)):
            _attend(Q, K, V, O, dt, b, h, h, s, summarize, (s, scale))
    return kernel


def window_attention(dt, name="window_attention", **options):
    """Key t visible to query s iff s - W < t <= s (W constexpr)."""
    @tessel.kernel(name=name, numerics="relaxed_normalization", **options)
    def kernel(Q: T.In[dt, ("B", "H", "S", "D")], K: T.In[dt, ("B", "H", "T", "D")],
               V: T.In[dt, ("B", "H", "T", "D")], O: T.Out[dt, ("B", "H", "S", "D")],
               scale: T.f32, W: T.Constexpr[int] = 256):
        nb, nh, ns, nd = Q.shape

        @tessel.fn
        def summarize(k, v, kpos, q, s, sc):
            scores = T.contract(q, k, reduce=((0, 1),), acc_dtype=T.f32) * sc
            visible = (kpos <= s) & (kpos > s - W)
            return _summary(scores, visible, v)

        for b, h, s in T.parallel(T.domain(0, nb), T.domain(0, nh), T.domain(0, ns)):
            _attend(Q, K, V, O, dt, b, h, h, s, summarize, (s, scale))
    return kernel


def runtime_window_attention(dt, name="runtime_window_attention", **options):
    """Key t visible to query s iff t <= s and s - t < w, the width w a runtime i32 (one compiled kernel for
    every width; the DSL has no implicit promotion, so w is cast to index)."""
    @tessel.kernel(name=name, numerics="relaxed_normalization", **options)
    def kernel(Q: T.In[dt, ("B", "H", "S", "D")], K: T.In[dt, ("B", "H", "T", "D")],
               V: T.In[dt, ("B", "H", "T", "D")], O: T.Out[dt, ("B", "H", "S", "D")],
               scale: T.f32, w: T.i32):
        nb, nh, ns, nd = Q.shape

        @tessel.fn
        def summarize(k, v, kpos, q, s, sc, width):
            scores = T.contract(q, k, reduce=((0, 1),), acc_dtype=T.f32) * sc
            visible = (kpos <= s) & (s - kpos < T.cast(width, T.index))
            return _summary(scores, visible, v)

        for b, h, s in T.parallel(T.domain(0, nb), T.domain(0, nh), T.domain(0, ns)):
            _attend(Q, K, V, O, dt, b, h, h, s, summarize, (s, scale, w))
    return kernel


def bias_attention(dt, name="bias_attention", **options):
    """scores = scale * q.k + bias[h, s, t] over every key."""
    @tessel.kernel(name=name, numerics="relaxed_normalization", **options)
    def kernel(Q: T.In[dt, ("B", "H", "S", "D")], K: T.In[dt, ("B", "H", "T", "D")],
               V: T.In[dt, ("B", "H", "T", "D")], Bias: T.In[dt, ("H", "S", "T")],
               O: T.Out[dt, ("B", "H", "S", "D")], scale: T.f32):
        nb, nh, ns, nd = Q.shape
        keys = T.domain(0, K.shape[2])

        @tessel.fn
        def summarize(k, v, kpos, bias, q, sc):
            scores = T.contract(q, k, reduce=((0, 1),), acc_dtype=T.f32) * sc + T.cast(bias, T.f32)
            return _summary(scores, T.full_like(kpos, True), v)

        for b, h, s in T.parallel(T.domain(0, nb), T.domain(0, nh), T.domain(0, ns)):
            _attend(Q, K, V, O, dt, b, h, h, s, summarize, (scale,), extra_sources=(Bias[h, s, keys],))
    return kernel


def gqa_attention(dt, name="gqa_attention", **options):
    """Grouped-query heads: query head h reads key/value head h // G; causal."""
    @tessel.kernel(name=name, numerics="relaxed_normalization", **options)
    def kernel(Q: T.In[dt, ("B", "H", "S", "D")], K: T.In[dt, ("B", "G", "T", "D")],
               V: T.In[dt, ("B", "G", "T", "D")], O: T.Out[dt, ("B", "H", "S", "D")],
               scale: T.f32, GROUP: T.Constexpr[int] = 4):
        nb, nh, ns, nd = Q.shape

        @tessel.fn
        def summarize(k, v, kpos, q, s, sc):
            scores = T.contract(q, k, reduce=((0, 1),), acc_dtype=T.f32) * sc
            return _summary(scores, kpos <= s, v)

        for b, h, s in T.parallel(T.domain(0, nb), T.domain(0, nh), T.domain(0, ns)):
            _attend(Q, K, V, O, dt, b, h, h // GROUP, s, summarize, (s, scale))
    return kernel
