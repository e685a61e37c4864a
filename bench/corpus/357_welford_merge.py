"""Merge of partial Welford statistics (the second stage of a split mean/variance over long rows, as
BatchNorm / LayerNorm over huge rows and torch's own welford reductions combine chunk results): per row r, P
partial records count f32 [R, P], mean f32 [R, P], m2 f32 [R, P] (sum of squared deviations) from chunks of
the row; combine them in order with Chan's parallel formula (n = na + nb, delta = mean_b - mean_a, mean =
mean_a + delta nb / n, m2 = m2_a + m2_b + delta^2 na nb / n), skipping chunks with count 0, into one (count,
mean, var = m2 / count) per row: outputs mean f32 [R], var f32 [R]. Every row has at least one non-empty
chunk. R 65536 P 64. Peer: torch.compile (the closed form: weighted mean, then the m2s plus the chunks'
spread about it)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def welford_merge(count: T.In[T.f32, ("R", "P")], mean: T.In[T.f32, ("R", "P")], m2: T.In[T.f32, ("R", "P")],
                  out_mean: T.Out[T.f32, ("R",)], out_var: T.Out[T.f32, ("R",)]):
    R, P = count.shape
    for r in T.parallel(T.domain(0, R)):
        n, mu, s = T.f32(0.0), T.f32(0.0), T.f32(0.0)
        for p in T.domain(0, P):
            nb = count[r, p]
            if nb > 0.0:
                tot = n + nb
                delta = mean[r, p] - mu
                mu = mu + delta * (nb / tot)
                s = s + m2[r, p] + delta * delta * (n * nb / tot)
                n = tot
        out_mean[r] = mu
        out_var[r] = s / n


KERNEL = welford_merge


def inputs(shape, rng):
    R, P = shape["R"], shape["P"]
    count = rng.integers(1, 4096, (R, P)).astype(np.float64)
    count[rng.uniform(size=(R, P)) < 0.2] = 0.0                  # empty chunks
    if P:
        count[:, rng.integers(0, P)] = rng.integers(1, 4096, R)   # at least one non-empty chunk a row
    mean = rng.standard_normal((R, P)) * 0.5 + rng.standard_normal((R, 1)) * 3.0
    var = rng.uniform(0.5, 2.0, (R, P))
    return dict(count=count.astype(np.float32), mean=mean.astype(np.float32),
                m2=(var * count).astype(np.float32))


def reference(count, mean, m2):
    n, mu, s = (count.astype(np.float64), mean.astype(np.float64), m2.astype(np.float64))
    tot = n.sum(axis=1)
    gm = (n * mu).sum(axis=1) / tot
    m2t = s.sum(axis=1) + (n * (mu - gm[:, None]) ** 2).sum(axis=1)
    return dict(out_mean=gm, out_var=m2t / tot)


def peer(count, mean, m2):
    tot = count.sum(dim=1)
    gm = (count * mean).sum(dim=1) / tot
    m2t = m2.sum(dim=1) + (count * (mean - gm[:, None]) ** 2).sum(dim=1)
    return dict(out_mean=gm, out_var=m2t / tot)


def OPS(shape):
    R, P = shape["R"], shape["P"]
    return 10 * R * P, 12 * R * P + 8 * R


TEST_SHAPES = [dict(R=0, P=3), dict(R=1, P=1), dict(R=3, P=7), dict(R=37, P=64), dict(R=5, P=131)]
BENCH_SHAPE = dict(R=65536, P=64)
TOLERANCE = dict(rtol=1e-4, atol=1e-5)
PEER = "torch.compile"
